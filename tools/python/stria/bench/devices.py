# SPDX-License-Identifier: GPL-2.0
"""Per-device facts from sysfs: size, NUMA node, io_poll, model, PCIe link.

When the shared ``stria.discovery`` module (owned by stria-tune) provides
NUMA node and PCIe link, it is used; these small readers are the fallback
so that stria-bench works on its own (null_blk, loop, files).  ``root``
lets tests point everything at a recorded fake sysfs tree.
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SYSFS = Path("/sys")


@dataclass
class DeviceInfo:
    """What stria-bench records about one device named on the command line."""

    path: str
    name: str
    is_block: bool
    size_bytes: int | None = None
    numa_node: int | None = None
    io_poll: bool | None = None
    model: str | None = None
    firmware: str | None = None
    serial: str | None = None
    pcie_link: str | None = None
    scheduler: str | None = None
    link_mbps: float | None = None
    source: str = "sysfs"
    # a device with hardware behind it (sysfs "device": NVMe, SCSI, virtio),
    # not null_blk, a RAM disk, loop, dm, md or a file: the drives
    # preconditioning and steady state are for
    hardware: bool = False

    @property
    def real_drive(self) -> bool:
        """A drive with flash behind it, which a write benchmark must
        precondition: hardware, and not one QEMU emulates (no flash
        translation layer to settle)."""
        return self.is_block and self.hardware and "QEMU" not in (self.model or "")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def kernel_name(path: str, root: Path = SYSFS) -> str:
    """The kernel's name for a device path, else the base name.

    /dev/md/x -> md127 through the symlink; a node that is not a link
    (/dev/mapper/x made by ``dmsetup mknodes`` without udev) -> dm-0
    through its device number and /sys/dev/block.
    """
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return os.path.basename(real)
    if stat.S_ISBLK(st.st_mode):
        link = root / "dev" / "block" / f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
        try:
            return link.resolve(strict=True).name
        except OSError:
            pass
    return os.path.basename(real)


def is_block_device(path: str) -> bool:
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except OSError:
        return False


def _numa_node(dev_dir: Path) -> int | None:
    """Walk up the device's parents to the first numa_node file (nvme: the PCI function)."""
    try:
        cur = dev_dir.resolve()
    except OSError:
        return None
    for _ in range(8):
        val = _read(cur / "numa_node")
        if val is not None:
            try:
                node = int(val)
            except ValueError:
                return None
            return node if node >= 0 else None
        if cur.parent == cur:
            break
        cur = cur.parent
    return None


def _pcie_link(dev_dir: Path) -> str | None:
    try:
        cur = dev_dir.resolve()
    except OSError:
        return None
    for _ in range(8):
        speed = _read(cur / "current_link_speed")
        if speed is not None:
            width = _read(cur / "current_link_width")
            mspeed = _read(cur / "max_link_speed")
            mwidth = _read(cur / "max_link_width")
            return f"{speed} x{width} (max {mspeed} x{mwidth})"
        if cur.parent == cur:
            break
        cur = cur.parent
    return None


def _scheduler(text: str | None) -> str | None:
    if text is None:
        return None
    for word in text.split():
        if word.startswith("["):
            return word.strip("[]")
    return text


def from_sysfs(path: str, root: Path = SYSFS, name: str | None = None) -> DeviceInfo:
    """Read what sysfs says about @path (a block device or a plain file)."""
    name = name or kernel_name(path)
    block = root / "class" / "block" / name
    if not block.exists():
        block = root / "block" / name
    info = DeviceInfo(path=path, name=name, is_block=is_block_device(path) or block.exists())
    if not block.exists():
        try:
            info.size_bytes = os.stat(path).st_size
        except OSError:
            pass
        return info
    sectors = _read(block / "size")
    info.size_bytes = int(sectors) * 512 if sectors and sectors.isdigit() else None
    poll = _read(block / "queue" / "io_poll")
    info.io_poll = None if poll is None else poll == "1"
    info.scheduler = _scheduler(_read(block / "queue" / "scheduler"))
    dev = block / "device"
    info.hardware = dev.exists()
    # nvme namespace: device -> controller (model, firmware_rev, serial)
    info.model = _read(dev / "model")
    info.firmware = _read(dev / "firmware_rev") or _read(dev / "rev")
    info.serial = _read(dev / "serial")
    info.numa_node = _numa_node(dev) if dev.exists() else None
    info.pcie_link = _pcie_link(dev) if dev.exists() else None
    return info


def overlay_discovery(info: DeviceInfo, root: Path = Path("/")) -> DeviceInfo:
    """Take NUMA node, model, firmware and PCIe link from stria.discovery
    (shared with stria-tune) for NVMe namespaces; keep sysfs facts else."""
    try:
        from .. import discovery
        system = discovery.discover(root)
        dev = system.namespace(info.name) or discovery.block_device(info.name, root)
    except Exception:  # discovery trouble must not stop a benchmark
        return info
    if dev is None:
        return info
    info.numa_node = dev.numa_node
    info.source = "stria.discovery"
    for name in dev.controllers:
        ctrl = system.controller(name)
        if ctrl is None:
            continue
        info.model = ctrl.model or info.model
        info.firmware = ctrl.firmware or info.firmware
        info.serial = ctrl.serial or info.serial
        link = ctrl.link
        if link is not None and link.known:
            info.pcie_link = link.describe() + (
                f" (capable of {link.describe(current=False)}: degraded)"
                if link.degraded else "")
            info.link_mbps = link.current_mbps
        break
    return info


def describe(path: str, root: Path = Path("/")) -> DeviceInfo:
    """What sysfs and stria.discovery say about @path; @root is the file
    system root the tests point at a recorded tree."""
    return overlay_discovery(from_sysfs(path, root / "sys"), root)


def online_numa_nodes(root: Path = SYSFS) -> list[int]:
    """Online NUMA nodes ("0-1,3" -> [0, 1, 3]); [0] when unknown."""
    text = _read(root / "devices" / "system" / "node" / "online")
    if not text:
        return [0]
    nodes: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        nodes.extend(range(int(lo), int(hi or lo) + 1))
    return nodes


def holders(name: str, root: Path = SYSFS) -> list[str]:
    """Devices stacked on @name (md, dm, stria arrays)."""
    try:
        base = root / "class" / "block" / name
        if not base.exists():
            base = root / "block" / name
        return sorted(os.listdir(base / "holders"))
    except OSError:
        return []
