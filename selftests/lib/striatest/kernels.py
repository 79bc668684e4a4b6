"""The kernels the VM suite boots: Debian's stock kernel and the debug kernel."""

from __future__ import annotations

import glob
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

TOP = Path(__file__).resolve().parents[3]


class KernelNotFound(Exception):
    """No kernel of the asked kind is installed or built."""


@dataclass(frozen=True)
class Kernel:
    """A bootable kernel and where its modules are."""

    tier: str  # "stock" or "debug"
    release: str  # uname -r
    image: Path  # bzImage / vmlinuz
    moddir: Path  # the lib/modules/<release> directory on the host
    kdir: Path  # build tree for external modules

    @property
    def kmod_dir(self) -> Path:
        """Where `make module KDIR=...` leaves stria.ko for this kernel."""
        return TOP / "build" / self.release


def _stock() -> Kernel:
    images = sorted(glob.glob("/boot/vmlinuz-*-amd64"))
    if not images:
        raise KernelNotFound("no /boot/vmlinuz-*-amd64: run 'make deps' (linux-image-amd64)")
    image = Path(images[-1])
    release = image.name[len("vmlinuz-"):]
    moddir = Path("/lib/modules") / release
    return Kernel("stock", release, image, moddir, moddir / "build")


def _debug(build: bool) -> Kernel:
    script = TOP / "selftests" / "kernel" / "build-debug-kernel"
    if not build:
        raise KernelNotFound("debug kernel not requested")
    out = subprocess.run([str(script)], check=True, stdout=subprocess.PIPE, text=True)
    d = Path(out.stdout.strip().splitlines()[-1])
    release = (d / "kernel.release").read_text().strip()
    return Kernel("debug", release, d / "bzImage", d / "mod" / "lib" / "modules" / release,
                  d / "build")


def find(tier: str, build: bool = True) -> Kernel:
    """Return the kernel for `tier`, building the debug kernel if needed."""
    if tier == "stock":
        return _stock()
    if tier == "debug":
        return _debug(build)
    raise KernelNotFound(f"unknown kernel tier {tier!r} (stock or debug)")


def build_modules(k: Kernel) -> None:
    """Build stria.ko and the selftest modules against `k`."""
    env = dict(os.environ)
    subprocess.run(["make", "-s", "-C", str(TOP), "module", f"KDIR={k.kdir}"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(["make", "-s", "-C", str(TOP / "selftests" / "modules"), f"KDIR={k.kdir}"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
