# SPDX-License-Identifier: GPL-2.0
"""Refusing devices that hold data.

stria-bench writes to every device named on the command line, and to
nothing else.  A device is refused when it starts with a stria superblock
(blkid does not know stria's format), when ``blkid -p`` finds a signature
on it (file system, partition table, md/LVM/ZFS or other RAID member),
when ``lsblk`` shows children (partitions, md/dm/stria arrays on it), when
sysfs lists holders, when the kernel refuses to open it exclusively (it is
mounted or held by md, dm or a running array), or when it is mounted.  ``--force`` overrides everything except a mount:
a mounted file system is never overwritten.
"""

from __future__ import annotations

import errno
import json
import mmap
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..safetext import printable
from . import devices

#: stria's superblock (Documentation/stria/ondisk-format.rst): the magic
#: at byte 0, the array name at 64 (32 bytes, NUL-padded), the role at 108.
STRIA_MAGIC = b"STRIA-SB"
STRIA_SB_SIZE = 4096
STRIA_ROLE_SPARE = 0xFFFFFFFF

Runner = Callable[[list[str]], "tuple[int, str]"]


def run_cmd(cmd: list[str]) -> tuple[int, str]:
    """Run a probe command; (exit code, stdout).  127 when not installed."""
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=60, check=False)
    except FileNotFoundError:
        return 127, ""
    except (OSError, subprocess.TimeoutExpired) as e:
        return 1, str(e)
    return p.returncode, p.stdout


@dataclass
class Verdict:
    """Why a device may or may not be written to."""

    path: str
    problems: list[str] = field(default_factory=list)
    fatal: list[str] = field(default_factory=list)  # not even --force

    def allowed(self, force: bool) -> bool:
        return not self.fatal and (force or not self.problems)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "problems": self.problems, "fatal": self.fatal}


def parse_blkid_export(text: str) -> dict[str, str]:
    """``blkid -p -o export`` output as a dict."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep:
            out[k.strip()] = v.strip()
    return out


def blkid_problems(code: int, text: str) -> list[str]:
    """Signatures blkid found.  Exit 2 means none; other codes are doubts."""
    if code == 2:
        return []
    if code == 127:
        return ["blkid is not installed: cannot check for signatures"]
    if code != 0:
        return [f"blkid -p failed (exit {code}): cannot tell what is on the device"]
    tags = {k: printable(v) for k, v in parse_blkid_export(text).items()}
    found = []
    if "PTTYPE" in tags:
        found.append(f"partition table ({tags['PTTYPE']})")
    if "TYPE" in tags:
        usage = tags.get("USAGE", "")
        kind = "array member" if usage == "raid" or tags["TYPE"].endswith("_member") \
            else "file system" if usage == "filesystem" else "signature"
        found.append(f"{kind} ({tags['TYPE']})")
    if not found and tags:
        found.append("unknown signature: " + " ".join(f"{k}={v}" for k, v in tags.items()))
    return found


def lsblk_problems(text: str) -> tuple[list[str], list[str]]:
    """(problems, fatal) from ``lsblk -J -o NAME,TYPE,MOUNTPOINT``."""
    problems: list[str] = []
    fatal: list[str] = []
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        return ["lsblk output unreadable"], []

    def walk(node: dict[str, Any], depth: int) -> None:
        mp = node.get("mountpoint")
        mps = node.get("mountpoints") or ([mp] if mp else [])
        for m in mps:
            if m:
                fatal.append(printable(f"{node.get('name')} is mounted on {m}"))
        if depth > 0:
            problems.append(printable(f"has {node.get('type', 'child')} {node.get('name')}"))
        for child in node.get("children", []) or []:
            walk(child, depth + 1)

    for dev in doc.get("blockdevices", []):
        walk(dev, 0)
    return problems, fatal


def _read_head(path: str) -> bytes | None:
    """The first 4 KiB of @path, read past the page cache when the device
    allows it (the module writes superblocks with bios, not through it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECT", 0))
    except OSError as e:
        if e.errno != errno.EINVAL:
            return None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
    try:
        buf = mmap.mmap(-1, STRIA_SB_SIZE)     # page-aligned, as O_DIRECT needs
        try:
            n = os.preadv(fd, [buf], 0)
        except OSError:
            os.close(fd)
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            n = os.preadv(fd, [buf], 0)
        return bytes(buf[:n])
    except OSError:
        return None
    finally:
        os.close(fd)


def stria_problems(head: bytes | None) -> list[str]:
    """A stria superblock at the start of the device, described."""
    if head is None:
        return ["cannot read the device: cannot tell whether it holds a stria superblock"]
    if not head.startswith(STRIA_MAGIC):
        return []
    if len(head) < 112:
        return ["stria superblock (truncated)"]
    name = printable(head[64:96].split(b"\0", 1)[0].decode("ascii", "replace"))
    role = int.from_bytes(head[108:112], "little")
    who = "spare" if role == STRIA_ROLE_SPARE else f"member {role}"
    return [f"stria superblock ({who} of array '{name}')"]


def busy_problems(path: str) -> list[str]:
    """The kernel refuses an exclusive open of a block device that is
    mounted or held by md, dm or a running array: in use, even when sysfs
    shows no holder."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.EBUSY:
            return ["in use (mounted, or held by md, dm, a stria array or another program)"]
        return []
    os.close(fd)
    return []


def check(path: str, run: Runner = run_cmd, root: Path = devices.SYSFS) -> Verdict:
    """Everything that makes @path unsafe to overwrite."""
    v = Verdict(path)
    if not Path(path).exists():
        v.fatal.append("does not exist")
        return v
    v.problems += stria_problems(_read_head(path))
    code, out = run(["blkid", "-p", "-o", "export", path])
    v.problems += blkid_problems(code, out)
    name = devices.kernel_name(path)
    in_sysfs = (root / "class" / "block" / name).exists() or (root / "block" / name).exists()
    if devices.is_block_device(path) or in_sysfs:
        code, out = run(["lsblk", "-J", "-o", "NAME,TYPE,MOUNTPOINT", path])
        if code == 0:
            p, f = lsblk_problems(out)
            v.problems += p
            v.fatal += f
        v.problems += busy_problems(path)
        held = devices.holders(name, root)
        for h in held:
            msg = f"held by {h}"
            if not any(h in p for p in v.problems):
                v.problems.append(msg)
    return v


def check_all(paths: list[str], run: Runner = run_cmd,
              root: Path = devices.SYSFS) -> list[Verdict]:
    verdicts = [check(p, run, root) for p in paths]
    seen: dict[str, str] = {}
    for v in verdicts:
        real = str(Path(v.path).resolve())
        if real in seen:
            v.fatal.append(f"same device as {seen[real]}")
        seen.setdefault(real, v.path)
    return verdicts
