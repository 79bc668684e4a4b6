#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Raw STRIA_IOC_CREATE/ASSEMBLE/STOP calls with hand-made, possibly
malformed structures, for the bad-input tests. Prints "OK <index>" or
"<ERRNO> <message from the kernel>"."""

import argparse
import ctypes
import errno
import fcntl
import os
import struct
import sys

ARRAY_FMT = "<IIIIIIQ32sII16s128s8Q"     # struct stria_ioc_array
STOP_FMT = "<IIII32s128s4Q"              # struct stria_ioc_stop


def iowr(nr: int, size: int) -> int:
    return (3 << 30) | (size << 16) | (0xB7 << 8) | nr


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("op", choices=["create", "assemble", "stop"])
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
    ap.add_argument("devices", nargs="*")
    a = ap.parse_intermixed_args()

    if a.op == "stop":
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
        buf = bytearray(struct.pack(ARRAY_FMT, a.size if a.size is not None else size, a.flags,
                                    a.level, a.chunk, nr, a.node, members, a.name.encode(),
                                    0, 0, b"", b"", 0, 0, 0, a.reserved, 0, 0, 0, 0))
        cmd = iowr(1 if a.op == "create" else 2, size)
    if a.buflen is not None:
        # a short mapping: the kernel must not read past what it was told
        del buf[a.buflen:]
    try:
        fd = os.open("/dev/stria-control", os.O_RDWR)
        fcntl.ioctl(fd, cmd, buf)
    except OSError as e:
        msg = ""
        if a.op != "stop" and len(buf) >= 216:
            msg = bytes(buf[88:216]).split(b"\0")[0].decode(errors="replace")
        elif a.op == "stop" and len(buf) >= 176:
            msg = bytes(buf[48:176]).split(b"\0")[0].decode(errors="replace")
        print(errno.errorcode.get(e.errno, str(e.errno)), msg)
        return 0
    if a.op == "stop":
        print("OK")
    else:
        print("OK", struct.unpack_from("<I", buf, 64)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
