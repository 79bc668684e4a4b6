# SPDX-License-Identifier: GPL-2.0
"""Array setup and teardown: stria, md and dm-stripe over the same drives.

All three get the same members in the same order and the same chunk.  md
is created with ``--assume-clean`` (no initial resync competing with the
benchmark) and no write-intent bitmap, and so is stria RAID5/6
(``--bitmap none``): the same work per write; dm-stripe exists for RAID0
only.
stria is optional: when ``striactl`` or the module is missing the result
says "stria not available" and the other contenders still run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from . import devices

KINDS = ("stria", "md", "dm")
MIN_MEMBERS = {0: 2, 5: 3, 6: 4}
PARITY = {0: 0, 5: 1, 6: 2}
NAME_PREFIX = "striabench"


class ArrayError(Exception):
    """An array could not be created or removed."""


@dataclass
class CmdResult:
    code: int
    out: str
    err: str


Runner = Callable[[list[str]], CmdResult]


def run_cmd(cmd: list[str]) -> CmdResult:
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=300, check=False)
    except FileNotFoundError:
        return CmdResult(127, "", f"{cmd[0]}: not found")
    except (OSError, subprocess.TimeoutExpired) as e:
        return CmdResult(1, "", str(e))
    return CmdResult(p.returncode, p.stdout, p.stderr)


@dataclass
class ArraySpec:
    kind: str
    level: int
    chunk_kib: int
    members: list[str]
    force: bool = False  # the user said --force: overwrite foreign signatures

    @property
    def name(self) -> str:
        return f"{NAME_PREFIX}-{self.kind}-r{self.level}"


@dataclass
class Array:
    """A created array and what it took to create it."""

    spec: ArraySpec
    path: str
    commands: list[list[str]] = field(default_factory=list)
    handle: str = ""
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.spec.kind, "level": self.spec.level,
                "chunk_kib": self.spec.chunk_kib, "members": self.spec.members,
                "path": self.path, "note": self.note,
                "commands": [" ".join(c) for c in self.commands]}


class Backend(Protocol):
    kind: str

    def unavailable(self, level: int, members: int) -> str | None: ...
    def create(self, spec: ArraySpec) -> Array: ...
    def destroy(self, array: Array) -> None: ...


def level_problem(level: int, members: int) -> str | None:
    if level not in MIN_MEMBERS:
        return f"RAID{level} is not a level stria-bench knows"
    if members < MIN_MEMBERS[level]:
        return f"RAID{level} needs at least {MIN_MEMBERS[level]} members, {members} given"
    return None


def res_err(res: CmdResult) -> str:
    return (res.err + res.out).strip()


def _check(res: CmdResult, cmd: list[str]) -> None:
    if res.code != 0:
        msg = " / ".join(line.strip() for line in (res.err + res.out).splitlines()
                         if line.strip())
        raise ArrayError(f"{' '.join(cmd)}: exit {res.code}: {msg[-600:]}")


def wait_released(members: list[str], sysfs: Path, timeout: float = 15.0) -> list[str]:
    """Wait until no member has a holder (an array being torn down lets go
    of its members asynchronously); the members still held at the end."""
    end = time.monotonic() + timeout
    while True:
        held = [m for m in members if devices.holders(devices.kernel_name(m, sysfs), sysfs)]
        if not held or time.monotonic() > end:
            return held
        time.sleep(0.2)


def _udev_running() -> bool:
    return os.path.exists("/run/udev/control")


def _wait_for(path: str, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > end:
            raise ArrayError(f"{path} did not appear")
        time.sleep(0.1)


class MdBackend:
    """Linux md via mdadm."""

    kind = "md"

    def __init__(self, run: Runner = run_cmd, sysfs: Path = devices.SYSFS) -> None:
        self.run = run
        self.sysfs = sysfs
        self.built: set[str] = set()  # arrays built without a superblock

    def unavailable(self, level: int, members: int) -> str | None:
        if shutil.which("mdadm") is None and self.run is run_cmd:
            return "mdadm is not installed"
        return level_problem(level, members)

    def free_device(self) -> str:
        for n in range(127, 0, -1):
            if not (self.sysfs / "block" / f"md{n}").exists():
                return f"/dev/md{n}"
        raise ArrayError("no free md device")

    def create(self, spec: ArraySpec) -> Array:
        dev = self.free_device()
        cmd = ["mdadm", "--create", dev, "--run", "--assume-clean",
               f"--level={spec.level}", f"--chunk={spec.chunk_kib}",
               f"--raid-devices={len(spec.members)}", "--metadata=1.2"]
        if spec.level in (5, 6):
            cmd.append("--bitmap=none")
        cmd += spec.members
        res = create_res = self.run(cmd)
        cmds = [cmd]
        if res.code != 0 and spec.level == 0:
            # Members that cannot keep a superblock (null_blk without
            # memory_backed) fail --create: build a RAID0 without one.
            build = ["mdadm", "--build", dev, f"--level={spec.level}",
                     f"--chunk={spec.chunk_kib}", f"--raid-devices={len(spec.members)}",
                     *spec.members]
            bres = self.run(build)
            if bres.code == 0:
                res, cmds = bres, [cmd, build]
                self.built.add(dev)
        _check(res, cmds[-1])
        if self.run is run_cmd:
            _wait_for(dev)
        arr = Array(spec, dev, cmds, handle=dev)
        if dev in self.built:
            arr.note = "built without a superblock (--create failed: " \
                f"{' '.join(res_err(create_res).split())[:200]})"
        return arr

    def destroy(self, array: Array) -> None:
        stop = ["mdadm", "--stop", array.handle]
        _check(self.run(stop), stop)
        array.commands.append(stop)
        if self.run is run_cmd:
            held = wait_released(array.spec.members, self.sysfs)
            if held:
                raise ArrayError(f"md stopped but {', '.join(held)} still held")
        if array.handle in self.built:
            self.built.discard(array.handle)
            return
        zero = ["mdadm", "--zero-superblock", *array.spec.members]
        _check(self.run(zero), zero)
        array.commands.append(zero)


class DmStripeBackend:
    """dm-stripe via dmsetup (RAID0 only)."""

    kind = "dm"

    def __init__(self, run: Runner = run_cmd, sysfs: Path = devices.SYSFS) -> None:
        self.run = run
        self.sysfs = sysfs

    def unavailable(self, level: int, members: int) -> str | None:
        if level != 0:
            return "dm-stripe is RAID0 only"
        if shutil.which("dmsetup") is None and self.run is run_cmd:
            return "dmsetup is not installed"
        return level_problem(level, members)

    def member_sectors(self, path: str) -> int:
        info = devices.from_sysfs(path, self.sysfs)
        if not info.size_bytes:
            raise ArrayError(f"size of {path} unknown")
        return info.size_bytes // 512

    def table(self, spec: ArraySpec) -> str:
        chunk = spec.chunk_kib * 2
        per = min(self.member_sectors(m) for m in spec.members) // chunk * chunk
        if per == 0:
            raise ArrayError("members smaller than one chunk")
        n = len(spec.members)
        return f"0 {per * n} striped {n} {chunk} " + " ".join(f"{m} 0" for m in spec.members)

    def create(self, spec: ArraySpec) -> Array:
        sync = [] if _udev_running() else ["--noudevsync"]
        cmd = ["dmsetup", "create", spec.name, *sync, "--table", self.table(spec)]
        _check(self.run(cmd), cmd)
        cmds = [cmd]
        if sync:
            mk = ["dmsetup", "mknodes", spec.name]
            self.run(mk)
            cmds.append(mk)
        path = f"/dev/mapper/{spec.name}"
        if self.run is run_cmd:
            _wait_for(path)
        return Array(spec, path, cmds, handle=spec.name)

    def destroy(self, array: Array) -> None:
        sync = [] if _udev_running() else ["--noudevsync"]
        cmd = ["dmsetup", "remove", *sync, array.handle]
        _check(self.run(cmd), cmd)
        array.commands.append(cmd)
        if self.run is run_cmd:
            wait_released(array.spec.members, self.sysfs)


def find_striactl() -> str | None:
    """striactl on PATH, else the one built in this checkout."""
    found = shutil.which("striactl")
    if found:
        return found
    local = Path(__file__).resolve().parents[3] / "striactl" / "striactl"
    return str(local) if os.access(local, os.X_OK) else None


class StriaBackend:
    """stria via striactl (``create NAME --level L --chunk NK DEV...``, ``stop NAME``)."""

    kind = "stria"

    def __init__(self, run: Runner = run_cmd, sysfs: Path = devices.SYSFS,
                 striactl: str | None = None) -> None:
        self.run = run
        self.sysfs = sysfs
        self.striactl = striactl if striactl is not None else find_striactl()

    def module_loaded(self) -> bool:
        return (self.sysfs / "module" / "stria").exists()

    def unavailable(self, level: int, members: int) -> str | None:
        if self.striactl is None:
            return "stria not available: striactl not found"
        if not self.module_loaded():
            return "stria not available: the stria module is not loaded"
        return level_problem(level, members)

    def _arrays(self) -> set[str]:
        try:
            return {d for d in os.listdir(self.sysfs / "block") if d.startswith("stria")}
        except OSError:
            return set()

    def create(self, spec: ArraySpec) -> Array:
        assert self.striactl is not None
        before = self._arrays()
        cmd = [self.striactl, "create", spec.name, "--level", str(spec.level),
               "--chunk", f"{spec.chunk_kib}K",
               # as md here: no write-intent bitmap
               *(["--bitmap", "none"] if spec.level in (5, 6) else []),
               *(["--force"] if spec.force else []),
               *spec.members]
        _check(self.run(cmd), cmd)
        path = f"/dev/stria/{spec.name}"
        if not os.path.exists(path):
            new = sorted(self._arrays() - before)
            if len(new) != 1:
                raise ArrayError(f"striactl create succeeded but no new stria device: {new}")
            path = f"/dev/{new[0]}"
        return Array(spec, path, [cmd], handle=spec.name)

    def destroy(self, array: Array) -> None:
        assert self.striactl is not None
        cmd = [self.striactl, "stop", array.handle]
        _check(self.run(cmd), cmd)
        array.commands.append(cmd)
        if self.run is run_cmd:
            wait_released(array.spec.members, self.sysfs)
            for m in array.spec.members:
                if wipe_stria_superblock(m):
                    array.commands.append(["wipe", f"{m}: stria superblock (4 KiB at 0)"])


STRIA_MAGIC = b"STRIA-SB"
STRIA_SB_SIZE = 4096


def wipe_stria_superblock(path: str) -> bool:
    """Zero the stria superblock at byte 0 of @path if there is one, like
    ``mdadm --zero-superblock``: a stale one would make the next create ask
    before overwriting.  True when one was wiped."""
    fd = os.open(path, os.O_RDWR)
    try:
        if os.pread(fd, len(STRIA_MAGIC), 0) != STRIA_MAGIC:
            return False
        os.pwrite(fd, bytes(STRIA_SB_SIZE), 0)
        os.fsync(fd)
        return True
    finally:
        os.close(fd)


def backends(run: Runner = run_cmd, sysfs: Path = devices.SYSFS) -> dict[str, Backend]:
    return {"stria": StriaBackend(run, sysfs), "md": MdBackend(run, sysfs),
            "dm": DmStripeBackend(run, sysfs)}
