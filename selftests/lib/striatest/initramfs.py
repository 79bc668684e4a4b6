"""The guest's initramfs: static busybox, the modules needed to mount the
host's root over 9p, and selftests/guest/init as /init. Built once per kernel
and init script, cached under build/."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .kernels import TOP, Kernel

# What /init needs before the host root is mounted, in load order.
BOOT_MODULES = [
    "virtio", "virtio_ring", "virtio_pci_modern_dev", "virtio_pci_legacy_dev",
    "virtio_pci", "netfs", "fscache", "9pnet", "9pnet_virtio", "9p",
]
BUSYBOX = Path("/bin/busybox")
INIT = TOP / "selftests" / "guest" / "init"


def _deps(moddir: Path) -> dict[str, list[str]]:
    """modules.dep as name -> [relative paths of the module and its deps]."""
    deps: dict[str, list[str]] = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        mod, _, rest = line.partition(":")
        name = Path(mod).name.split(".ko")[0].replace("-", "_")
        deps[name] = [mod] + rest.split()
    return deps


def _builtin(moddir: Path) -> set[str]:
    f = moddir / "modules.builtin"
    if not f.exists():
        return set()
    return {Path(line).name.split(".ko")[0].replace("-", "_")
            for line in f.read_text().split()}


def module_paths(moddir: Path) -> list[str]:
    """Module files (relative to moddir) to insmod, dependencies first."""
    deps = _deps(moddir)
    builtin = _builtin(moddir)
    order: list[str] = []
    for name in BOOT_MODULES:
        if name in builtin or name not in deps:
            continue
        paths = deps[name]
        for p in reversed(paths):  # modules.dep lists the module, then deps
            if p not in order:
                order.append(p)
    return order


def build(k: Kernel) -> Path:
    """Return the path of the initramfs for kernel `k`, building it if needed."""
    if not BUSYBOX.exists():
        raise FileNotFoundError("/bin/busybox missing: run 'make deps' (busybox-static)")
    mods = module_paths(k.moddir)
    h = hashlib.sha256()
    h.update(INIT.read_bytes())
    h.update(BUSYBOX.read_bytes())
    h.update(k.release.encode())
    for m in mods:
        h.update(m.encode())
        h.update(str((k.moddir / m).stat().st_mtime).encode())
    out = TOP / "build" / "initramfs" / f"{k.release}-{h.hexdigest()[:12]}.cpio"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for d in ("bin", "sbin", "proc", "sys", "dev", "host", "mods", "tmp"):
            (root / d).mkdir()
        shutil.copy2(BUSYBOX, root / "bin" / "busybox")
        (root / "bin" / "sh").symlink_to("busybox")
        shutil.copy2(INIT, root / "init")
        (root / "init").chmod(0o755)
        with open(root / "mods" / "order", "w") as f:
            for i, m in enumerate(mods):
                dst = f"{i:02d}-{Path(m).name}"
                shutil.copy2(k.moddir / m, root / "mods" / dst)
                f.write(dst + "\n")
        files = subprocess.run(["find", "."], cwd=root, check=True, stdout=subprocess.PIPE)
        # two runners (make check and a developer's) may build it at once
        tmp_out = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        with open(tmp_out, "wb") as f:
            subprocess.run(["cpio", "--quiet", "-o", "-H", "newc"], cwd=root, check=True,
                           input=files.stdout, stdout=f)
        tmp_out.rename(out)
    return out
