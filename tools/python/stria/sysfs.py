# SPDX-License-Identifier: GPL-2.0
"""Read and write sysfs/procfs attributes under a configurable root.

Every path the tools touch goes through a :class:`Sysfs` object, so the same
code runs against the live system (root "/") and against recorded fake trees
in the tests (root "tests/fixtures/<name>"). Paths given to the methods are
absolute-looking ("/sys/block/nvme0n1/queue/nomerges"); they are resolved
below the root.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path


class SysfsError(Exception):
    """A sysfs write failed; carries the path and errno for the report."""

    def __init__(self, path: str, err: int, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.errno = err
        self.message = message

    @property
    def gone(self) -> bool:
        """True when the attribute (or its device) no longer exists."""
        return self.errno in (errno.ENOENT, errno.ENODEV, errno.ENXIO)


def parse_cpulist(text: str) -> list[int]:
    """Parse a kernel CPU list ("0-3,8,10-11") into a sorted list."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            cpus.update(range(int(lo), int(hi) + 1))
        else:
            cpus.add(int(part))
    return sorted(cpus)


def format_cpulist(cpus: list[int]) -> str:
    """Format CPUs as the kernel does ("0-3,8,10-11")."""
    out: list[str] = []
    run: list[int] = []
    for cpu in sorted(set(cpus)):
        if run and cpu == run[-1] + 1:
            run.append(cpu)
            continue
        if run:
            out.append(_fmt_run(run))
        run = [cpu]
    if run:
        out.append(_fmt_run(run))
    return ",".join(out)


def _fmt_run(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


@dataclass(frozen=True)
class Sysfs:
    """A view of /sys and /proc below ``root``."""

    root: Path = Path("/")

    @classmethod
    def at(cls, root: str | os.PathLike[str] = "/") -> "Sysfs":
        return cls(Path(root))

    def path(self, abspath: str) -> Path:
        """Map an absolute system path onto the root."""
        return self.root / abspath.lstrip("/")

    def unmap(self, real: Path) -> str:
        """Map a path below the root back to its absolute system path."""
        try:
            rel = real.relative_to(self.root.resolve())
        except ValueError:
            rel = real.relative_to(self.root)
        return "/" + str(rel)

    def exists(self, abspath: str) -> bool:
        return self.path(abspath).exists()

    def read(self, abspath: str) -> str | None:
        """The attribute's text without the trailing newline, or None when it
        does not exist or cannot be read (e.g. needs root)."""
        try:
            return self.path(abspath).read_text(errors="replace").rstrip("\n")
        except OSError:
            return None

    def read_int(self, abspath: str) -> int | None:
        text = self.read(abspath)
        if text is None:
            return None
        try:
            return int(text.strip(), 0)
        except ValueError:
            return None

    def listdir(self, abspath: str) -> list[str]:
        try:
            return sorted(os.listdir(self.path(abspath)))
        except OSError:
            return []

    def resolve(self, abspath: str) -> str | None:
        """The absolute system path a sysfs symlink points to."""
        p = self.path(abspath)
        if not p.exists():
            return None
        return self.unmap(p.resolve())

    def write(self, abspath: str, value: str) -> None:
        """Write one attribute the way ``echo value > attr`` does (a single
        write of value + newline) and raise SysfsError on failure."""
        p = self.path(abspath)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_TRUNC)
        except OSError as e:
            raise SysfsError(abspath, e.errno or 0, _why(e)) from e
        try:
            os.write(fd, (value + "\n").encode())
        except OSError as e:
            raise SysfsError(abspath, e.errno or 0, _why(e)) from e
        finally:
            os.close(fd)


def _why(e: OSError) -> str:
    if e.errno == errno.EACCES or e.errno == errno.EPERM:
        return "permission denied (needs root)"
    if e.errno in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
        return "no such attribute or device (device gone?)"
    if e.errno == errno.EINVAL:
        return "the kernel rejected the value (EINVAL)"
    return e.strerror or str(e)
