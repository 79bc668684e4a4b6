#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Raw STRIA_IOC_CREATE/ASSEMBLE/STOP/MEMBER calls with hand-made, possibly
malformed structures, for the bad-input tests. Prints "OK <index>" (create,
assemble), "OK" (stop), "OK role=<role> events=<events>" (member) or
"<ERRNO> <message from the kernel>".

With --batch as its only argument it reads one call's arguments per line of
stdin and prints one result line for each: one python start for many calls,
which counts under TCG."""

import argparse
import ctypes
import errno
import fcntl
import os
import shlex
import struct
import sys

ARRAY_FMT = "<IIIIIIQ32sII16s128sII7Q"   # struct stria_ioc_array
STOP_FMT = "<IIII32s128s4Q"              # struct stria_ioc_stop
MEMBER_FMT = "<IIII32sIIIIQ128s8Q"       # struct stria_ioc_member_op
ARRAY_F_LAYOUT = 1
MEMBER_OP_FAIL = 1
MEMBER_F_FORCE = 1


def iowr(nr: int, size: int) -> int:
    return (3 << 30) | (size << 16) | (0xB7 << 8) | nr


def call(argv: list[str]) -> str:
    """One ioctl as the command line @argv describes it; its result line."""
    ap = argparse.ArgumentParser()
    ap.add_argument("op", choices=["create", "assemble", "stop", "member"])
    ap.add_argument("--name", default="bad")
    ap.add_argument("--level", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=128, help="sectors")
    ap.add_argument("--nr", type=int, help="nr_members (default: count of devices)")
    ap.add_argument("--size", type=int, help="the size field (default: real size)")
    ap.add_argument("--flags", type=int, default=0)
    ap.add_argument("--reserved", type=int, default=0, help="value of reserved[3]")
    ap.add_argument("--node", type=lambda s: int(s, 0), default=0xFFFFFFFF)
    ap.add_argument("--bad-pointer", action="store_true", help="members points nowhere")
    ap.add_argument("--buflen", type=int, help="bytes actually passed (short buffer)")
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--layout", type=lambda s: int(s, 0),
                    help="parity layout, with STRIA_ARRAY_F_LAYOUT set")
    ap.add_argument("--layout-noflag", type=lambda s: int(s, 0),
                    help="a value in the layout field without the flag")
    ap.add_argument("--bitmap-chunk", type=int, default=0,
                    help="create: bitmap_chunk, sectors per bitmap region")
    ap.add_argument("--mop", type=int, default=MEMBER_OP_FAIL, help="member: op")
    ap.add_argument("--force", action="store_true", help="member: STRIA_MEMBER_F_FORCE")
    ap.add_argument("--devnum", help="member: MAJOR:MINOR instead of a device path")
    ap.add_argument("devices", nargs="*")
    a = ap.parse_intermixed_args(argv)

    if a.op == "member":
        if a.devnum:
            major, minor = (int(x) for x in a.devnum.split(":"))
        else:
            rdev = os.stat(a.devices[0]).st_rdev
            major, minor = os.major(rdev), os.minor(rdev)
        size = struct.calcsize(MEMBER_FMT)
        flags = a.flags | (MEMBER_F_FORCE if a.force else 0)
        buf = bytearray(struct.pack(MEMBER_FMT, a.size if a.size is not None else size, flags,
                                    a.index, a.mop, a.name.encode(), major, minor, 0, 0, 0,
                                    b"", 0, 0, 0, a.reserved, 0, 0, 0, 0))
        cmd = iowr(5, size)
    elif a.op == "stop":
        size = struct.calcsize(STOP_FMT)
        buf = bytearray(struct.pack(STOP_FMT, a.size if a.size is not None else size, a.flags,
                                    a.index, 0, a.name.encode(), b"", 0, 0, 0, a.reserved))
        cmd = iowr(3, size)
    else:
        paths = [ctypes.create_string_buffer(d.encode()) for d in a.devices]
        ptrs = (ctypes.c_uint64 * max(1, len(paths)))(*[ctypes.addressof(p) for p in paths])
        members = 0xDEAD0000 if a.bad_pointer else ctypes.addressof(ptrs)
        nr = a.nr if a.nr is not None else len(paths)
        size = struct.calcsize(ARRAY_FMT)
        flags, layout = a.flags, 0
        if a.layout is not None:
            flags, layout = flags | ARRAY_F_LAYOUT, a.layout
        elif a.layout_noflag is not None:
            layout = a.layout_noflag
        buf = bytearray(struct.pack(ARRAY_FMT, a.size if a.size is not None else size, flags,
                                    a.level, a.chunk, nr, a.node, members, a.name.encode(),
                                    0, 0, b"", b"", layout, a.bitmap_chunk, 0, 0, a.reserved,
                                    0, 0, 0, 0))
        cmd = iowr(1 if a.op == "create" else 2, size)
    if a.buflen is not None:
        # a short mapping: the kernel must not read past what it was told
        del buf[a.buflen:]
    fd = -1
    try:
        fd = os.open("/dev/stria-control", os.O_RDWR)
        fcntl.ioctl(fd, cmd, buf)
    except OSError as e:
        msg = ""
        if a.op in ("create", "assemble") and len(buf) >= 216:
            msg = bytes(buf[88:216]).split(b"\0")[0].decode(errors="replace")
        elif a.op == "stop" and len(buf) >= 176:
            msg = bytes(buf[48:176]).split(b"\0")[0].decode(errors="replace")
        elif a.op == "member" and len(buf) >= 200:
            msg = bytes(buf[72:200]).split(b"\0")[0].decode(errors="replace")
        return f"{errno.errorcode.get(e.errno, str(e.errno))} {msg}"
    finally:
        if fd >= 0:
            os.close(fd)
    if a.op == "stop":
        return "OK"
    if a.op == "member":
        role, _, events = struct.unpack_from("<IIQ", buf, 56)
        return f"OK role={role} events={events}"
    return f"OK {struct.unpack_from('<I', buf, 64)[0]}"


def main() -> int:
    if sys.argv[1:] == ["--batch"]:
        for line in sys.stdin:
            print(call(shlex.split(line)), flush=True)
    else:
        print(call(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
