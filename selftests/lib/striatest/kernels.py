"""The kernels the VM suite boots: Debian 12's stock kernel (6.1), Debian's
6.12 LTS image (stock612), the newest stable kernel Debian ships (stock7,
fetched by scripts/fetch-kernel) and the debug kernel."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

TOP = Path(__file__).resolve().parents[3]


class KernelNotFound(Exception):
    """No kernel of the asked kind is installed or built."""


@dataclass(frozen=True)
class Kernel:
    """A bootable kernel and where its modules are."""

    tier: str  # "stock", "stock612", "stock7" or "debug"
    release: str  # uname -r
    image: Path  # bzImage / vmlinuz
    moddir: Path  # the lib/modules/<release> directory on the host
    kdir: Path  # build tree for external modules

    @property
    def kmod_dir(self) -> Path:
        """Where `make module KDIR=...` leaves stria.ko for this kernel."""
        return TOP / "build" / self.release


# The stock tier boots Debian 12's own kernel line (6.1): the release that
# the linux-image-amd64 meta package depends on, whatever other kernels are
# installed (the debug tier covers 6.12). STRIA_STOCK_RELEASE=<uname -r>
# boots another installed Debian kernel instead, e.g. 6.12.117+deb12-amd64.
STOCK_META = "linux-image-amd64"

# every kernel tier, in the order make check runs them
TIERS = ("stock", "stock612", "stock7", "debug")


def stock_release() -> str:
    """uname -r of the stock tier's kernel."""
    forced = os.environ.get("STRIA_STOCK_RELEASE", "").strip()
    if forced:
        return forced
    try:
        deps = subprocess.run(["dpkg-query", "-W", "-f=${Depends}", STOCK_META],
                              check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        raise KernelNotFound(f"{STOCK_META} is not installed: run 'make deps'") from None
    m = re.search(r"linux-image-(\S+)", deps)
    if not m:
        raise KernelNotFound(f"cannot tell the kernel of {STOCK_META} from {deps!r}")
    return m.group(1)


# The stock612 tier boots Debian 12's 6.12 LTS image from the security
# archive (linux-image-6.12-amd64, which make deps installs): the newest
# installed 6.12 release, or STRIA_612_RELEASE=<uname -r>.
LTS_SERIES = "6.12"


def _release_key(release: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", release)]


def lts_release(boot: Path = Path("/boot")) -> str:
    """uname -r of the stock612 tier's kernel."""
    forced = os.environ.get("STRIA_612_RELEASE", "").strip()
    if forced:
        return forced
    found = [p.name.removeprefix("vmlinuz-") for p in boot.glob(f"vmlinuz-{LTS_SERIES}.*")
             if "stria" not in p.name]
    if not found:
        raise KernelNotFound(f"no Debian {LTS_SERIES} kernel in {boot}: run 'make deps' "
                             f"(linux-image-{LTS_SERIES}-amd64), or set STRIA_612_RELEASE")
    return max(found, key=_release_key)


def _debian(tier: str, release: str) -> Kernel:
    image = Path("/boot") / f"vmlinuz-{release}"
    if not image.exists():
        raise KernelNotFound(f"no {image}: run 'make deps', or set STRIA_STOCK_RELEASE "
                             "or STRIA_612_RELEASE to an installed kernel")
    moddir = Path("/lib/modules") / release
    if not (moddir / "build").is_dir():
        raise KernelNotFound(f"no {moddir / 'build'}: install linux-headers-{release} "
                             "(make deps)")
    return Kernel(tier, release, image, moddir, moddir / "build")


def _debug(build: bool) -> Kernel:
    script = TOP / "selftests" / "kernel" / "build-debug-kernel"
    if not build:
        raise KernelNotFound("debug kernel not requested")
    out = subprocess.run([str(script)], check=True, stdout=subprocess.PIPE, text=True)
    d = Path(out.stdout.strip().splitlines()[-1])
    release = (d / "kernel.release").read_text().strip()
    return Kernel("debug", release, d / "bzImage", d / "mod" / "lib" / "modules" / release,
                  d / "build")


# The stock7 tier boots the newest stable kernel Debian ships (7.x, from
# trixie-backports or sid) as Debian built it: image and modules unpacked,
# not installed, by scripts/fetch-kernel (make deps), which also makes its
# build tree. This waits for a build tree still being prepared and uses no
# network.
def _fetched() -> Kernel:
    script = TOP / "scripts" / "fetch-kernel"
    out = subprocess.run([str(script), "--wait"], check=True, stdout=subprocess.PIPE,
                         text=True).stdout.strip()
    if not out:
        raise KernelNotFound("no newest Debian kernel fetched: run 'make deps' "
                             "(scripts/fetch-kernel)")
    d = Path(out.splitlines()[-1])
    release = (d / "kernel.release").read_text().strip()
    return Kernel("stock7", release, d / "vmlinuz", d / "mod" / "lib" / "modules" / release,
                  d / "build")


def find(tier: str, build: bool = True) -> Kernel:
    """Return the kernel for `tier`, building the debug kernel if needed."""
    if tier == "stock":
        return _debian(tier, stock_release())
    if tier == "stock612":
        return _debian(tier, lts_release())
    if tier == "stock7":
        return _fetched()
    if tier == "debug":
        return _debug(build)
    raise KernelNotFound(f"unknown kernel tier {tier!r} ({', '.join(TIERS)})")


def build_modules(k: Kernel) -> None:
    """Build stria.ko and the selftest modules against `k`."""
    env = dict(os.environ)
    subprocess.run(["make", "-s", "-C", str(TOP), "module", f"KDIR={k.kdir}"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(["make", "-s", "-C", str(TOP / "selftests" / "modules"), f"KDIR={k.kdir}"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
