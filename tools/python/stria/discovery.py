# SPDX-License-Identifier: GPL-2.0
"""Discover NVMe controllers, namespaces and block devices from sysfs.

The result is plain data (dataclasses) that the tools print, compare and
turn into JSON; nothing here writes. Everything is read below ``root``
(default "/"), so recorded sysfs trees work the same as a live system:

    >>> from stria.discovery import discover
    >>> system = discover("tests/fixtures/plain4")
    >>> [c.name for c in system.controllers]
    ['nvme0', 'nvme1', 'nvme2', 'nvme3']

Layout this code relies on (Linux 5.x/6.x):

- /sys/class/nvme/nvmeN -> the controller; its ``device`` link is the PCI
  function (numa_node, local_cpulist, *_link_speed/width, msi_irqs/).
- Without native multipath the namespace nvmeNnM is a child of its
  controller. With it, /sys/block/nvmeSnM is a "head" below
  /sys/devices/virtual/nvme-subsystem/, and each path to it is a hidden
  disk nvmeScCnM below controller nvmeC, linked from the head's
  ``multipath/`` directory.
- /proc/interrupts and /proc/irq/N/*affinity_list for the interrupts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .sysfs import Sysfs, parse_cpulist

#: Block queue attributes reported for every device, in the order shown.
QUEUE_ATTRS: tuple[str, ...] = (
    "scheduler",
    "nomerges",
    "rq_affinity",
    "nr_requests",
    "read_ahead_kb",
    "add_random",
    "iostats",
    "io_poll",
    "io_poll_delay",
    "max_sectors_kb",
    "write_cache",
    "io_timeout",
)

#: Module parameters reported (module -> parameters).
MODULE_PARAMS: dict[str, tuple[str, ...]] = {
    "nvme": ("poll_queues", "write_queues", "io_queue_depth"),
    "nvme_core": ("multipath", "io_timeout", "admin_timeout", "max_retries"),
}

#: Raw PCIe link rate per lane in MB/s (10^6 bytes/s) after line coding:
#: 8b/10b for Gen1/2, 128b/130b for Gen3-5, FLIT 242/256 for Gen6.
#: Protocol overhead (TLP headers) costs another 5-15 % on top.
LANE_MBPS: dict[float, float] = {
    2.5: 250.0,
    5.0: 500.0,
    8.0: 984.6,
    16.0: 1969.2,
    32.0: 3938.5,
    64.0: 7562.5,
}

_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}

_PATH_RE = re.compile(r"^nvme(\d+)c(\d+)n(\d+)$")
_NS_RE = re.compile(r"^nvme(\d+)n(\d+)$")
_CTRL_RE = re.compile(r"^nvme(\d+)$")


def _speed(text: str | None) -> float | None:
    """"8.0 GT/s PCIe" -> 8.0; "Unknown" or missing -> None."""
    if not text:
        return None
    m = re.match(r"^\s*([0-9.]+)\s*GT/s", text)
    return float(m.group(1)) if m else None


@dataclass
class PcieLink:
    """Negotiated (current) and capable (max) PCIe link of one function."""

    current_speed: str | None
    current_width: int | None
    max_speed: str | None
    max_width: int | None

    @property
    def current_gts(self) -> float | None:
        return _speed(self.current_speed)

    @property
    def max_gts(self) -> float | None:
        return _speed(self.max_speed)

    @property
    def known(self) -> bool:
        return self.current_gts is not None and self.current_width is not None

    @property
    def degraded(self) -> bool:
        """True when the link trained below what the device can do."""
        cur, top = self.current_gts, self.max_gts
        if cur is not None and top is not None and cur < top:
            return True
        cw, mw = self.current_width, self.max_width
        return cw is not None and mw is not None and 0 < cw < mw

    @property
    def current_mbps(self) -> float | None:
        """Raw link throughput cap of the trained link, MB/s."""
        return _mbps(self.current_gts, self.current_width)

    @property
    def max_mbps(self) -> float | None:
        return _mbps(self.max_gts, self.max_width)

    def describe(self, current: bool = True) -> str:
        gts = self.current_gts if current else self.max_gts
        width = self.current_width if current else self.max_width
        if gts is None or width is None:
            return "unknown"
        gen = _GEN.get(gts)
        return f"Gen{gen} x{width}" if gen else f"{gts:g} GT/s x{width}"


def _mbps(gts: float | None, width: int | None) -> float | None:
    if gts is None or not width:
        return None
    lane = LANE_MBPS.get(gts)
    if lane is None:
        return None
    return lane * width


@dataclass
class Irq:
    """One interrupt line and where it may (affinity) and does (effective) run."""

    number: int
    name: str
    affinity: list[int]
    effective: list[int]


@dataclass
class Controller:
    """An NVMe controller (/sys/class/nvme/nvmeN)."""

    name: str
    sysfs_path: str
    model: str | None
    serial: str | None
    firmware: str | None
    transport: str | None
    address: str | None
    state: str | None
    subsystem: str | None
    numa_node: int | None
    cpus: list[int]
    queue_count: int | None
    sqsize: int | None
    link: PcieLink | None
    irqs: list[Irq]
    namespaces: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    @property
    def io_queues(self) -> int | None:
        """I/O queues (all maps, poll included): queue_count minus admin."""
        return None if self.queue_count is None else self.queue_count - 1


@dataclass
class BlockDevice:
    """A block device: an NVMe namespace (head or plain), a hidden NVMe
    multipath path, or any other disk named on the command line."""

    name: str
    sysfs_path: str
    kind: str  # "nvme", "nvme-path" or "other"
    controllers: list[str]
    paths: list[str]
    numa_node: int | None
    cpus: list[int]
    queue: dict[str, str]
    hw_queues: int
    wwid: str | None

    @property
    def is_nvme(self) -> bool:
        return self.kind in ("nvme", "nvme-path")

    @property
    def multipath_head(self) -> bool:
        return self.kind == "nvme" and bool(self.paths)

    @property
    def scheduler(self) -> str | None:
        return active_scheduler(self.queue.get("scheduler"))


@dataclass
class System:
    """Everything discovered below one root."""

    root: str
    controllers: list[Controller]
    namespaces: list[BlockDevice]
    paths: list[BlockDevice]
    numa_nodes: dict[int, list[int]]
    modules: dict[str, dict[str, str]]
    irqbalance: bool | None

    def controller(self, name: str) -> Controller | None:
        return next((c for c in self.controllers if c.name == name), None)

    def namespace(self, name: str) -> BlockDevice | None:
        for dev in self.namespaces + self.paths:
            if dev.name == name:
                return dev
        return None

    @property
    def multipath(self) -> bool | None:
        """nvme_core's native multipath parameter (None: not loaded)."""
        value = self.modules.get("nvme_core", {}).get("multipath")
        return None if value is None else value.strip() in ("Y", "1")

    def module_param(self, module: str, param: str) -> str | None:
        return self.modules.get(module, {}).get(param)


def active_scheduler(text: str | None) -> str | None:
    """"mq-deadline [none]" -> "none"; a single word is itself."""
    if text is None:
        return None
    m = re.search(r"\[([^\]]+)\]", text)
    if m:
        return m.group(1)
    words = text.split()
    return words[0] if len(words) == 1 else None


def device_name(arg: str) -> str:
    """Accept "/dev/nvme0n1", "nvme0n1" or "/sys/block/nvme0n1"."""
    return Path(arg.rstrip("/")).name


def _interrupt_names(fs: Sysfs) -> dict[int, str]:
    names: dict[int, str] = {}
    text = fs.read("/proc/interrupts")
    if not text:
        return names
    for line in text.splitlines()[1:]:
        head, _, rest = line.partition(":")
        if not head.strip().isdigit():
            continue
        words = rest.split()
        if words:
            names[int(head)] = words[-1]
    return names


def _irq(fs: Sysfs, number: int, names: dict[int, str]) -> Irq:
    aff = fs.read(f"/proc/irq/{number}/smp_affinity_list")
    eff = fs.read(f"/proc/irq/{number}/effective_affinity_list")
    return Irq(
        number=number,
        name=names.get(number, ""),
        affinity=parse_cpulist(aff) if aff else [],
        effective=parse_cpulist(eff) if eff else [],
    )


def numa_nodes(fs: Sysfs) -> dict[int, list[int]]:
    """NUMA node -> its CPUs, from /sys/devices/system/node."""
    nodes: dict[int, list[int]] = {}
    for entry in fs.listdir("/sys/devices/system/node"):
        m = re.match(r"^node(\d+)$", entry)
        if not m:
            continue
        text = fs.read(f"/sys/devices/system/node/{entry}/cpulist")
        nodes[int(m.group(1))] = parse_cpulist(text) if text else []
    return nodes


def _controller(fs: Sysfs, name: str, nodes: dict[int, list[int]],
                irq_names: dict[int, str]) -> Controller:
    base = f"/sys/class/nvme/{name}"
    real = fs.resolve(base) or base
    dev = f"{base}/device"
    node = fs.read_int(f"{base}/numa_node")
    if node is None:
        node = fs.read_int(f"{dev}/numa_node")
    if node is not None and node < 0:
        node = None
    local = fs.read(f"{dev}/local_cpulist")
    if local:
        cpus = parse_cpulist(local)
    else:
        cpus = list(nodes.get(node, [])) if node is not None else []
    link = None
    if fs.exists(f"{dev}/current_link_speed") or fs.exists(f"{dev}/max_link_speed"):
        link = PcieLink(
            current_speed=fs.read(f"{dev}/current_link_speed"),
            current_width=fs.read_int(f"{dev}/current_link_width"),
            max_speed=fs.read(f"{dev}/max_link_speed"),
            max_width=fs.read_int(f"{dev}/max_link_width"),
        )
    numbers = [int(n) for n in fs.listdir(f"{dev}/msi_irqs") if n.isdigit()]
    if not numbers:
        numbers = [n for n, label in irq_names.items()
                   if re.match(rf"^{name}q\d+$", label)]
    if not numbers:
        legacy = fs.read_int(f"{dev}/irq")
        numbers = [legacy] if legacy else []
    address = fs.read(f"{base}/address")
    if not address:
        pci = fs.resolve(dev)
        address = Path(pci).name if pci else None
    ctrl = Controller(
        name=name,
        sysfs_path=real,
        model=_strip(fs.read(f"{base}/model")),
        serial=_strip(fs.read(f"{base}/serial")),
        firmware=_strip(fs.read(f"{base}/firmware_rev")),
        transport=fs.read(f"{base}/transport"),
        address=address,
        state=fs.read(f"{base}/state"),
        subsystem=_subsystem_name(fs, base),
        numa_node=node,
        cpus=cpus,
        queue_count=fs.read_int(f"{base}/queue_count"),
        sqsize=fs.read_int(f"{base}/sqsize"),
        link=link,
        irqs=[_irq(fs, n, irq_names) for n in sorted(numbers)],
    )
    return ctrl


def _subsystem_name(fs: Sysfs, base: str) -> str | None:
    # The controller's "subsystem" link names its class ("nvme"); the NVMe
    # subsystem is the nvme-subsysN directory that links back to it.
    for subsys in fs.listdir("/sys/class/nvme-subsystem"):
        if fs.exists(f"/sys/class/nvme-subsystem/{subsys}/{Path(base).name}"):
            return subsys
    return None


def _strip(text: str | None) -> str | None:
    return text.strip() if text is not None else None


def _queue(fs: Sysfs, name: str) -> dict[str, str]:
    queue: dict[str, str] = {}
    for attr in QUEUE_ATTRS:
        value = fs.read(f"/sys/block/{name}/queue/{attr}")
        if value is not None:
            queue[attr] = value
    return queue


def block_device(name: str, root: str | Path = "/",
                 nodes: dict[int, list[int]] | None = None) -> BlockDevice | None:
    """Describe one block device by name (None if it does not exist)."""
    fs = Sysfs.at(root)
    name = device_name(name)
    base = f"/sys/block/{name}"
    real = fs.resolve(base)
    if real is None:
        return None
    if nodes is None:
        nodes = numa_nodes(fs)
    parts = Path(real).parts
    controllers: list[str] = []
    paths: list[str] = []
    if _PATH_RE.match(name):
        kind = "nvme-path"
        parent = Path(real).parent.name
        controllers = [parent] if _CTRL_RE.match(parent) else []
    elif _NS_RE.match(name) and ("nvme-subsystem" in parts or "nvme" in parts):
        kind = "nvme"
        paths = fs.listdir(f"{base}/multipath")
        if paths:
            for p in paths:
                ctrl = _path_controller(fs, p)
                if ctrl:
                    controllers.append(ctrl)
        else:
            parent = Path(real).parent.name
            if _CTRL_RE.match(parent):
                controllers = [parent]
    else:
        kind = "other"
    node = None
    for ctrl in controllers:
        node = fs.read_int(f"/sys/class/nvme/{ctrl}/numa_node")
        if node is None:
            node = fs.read_int(f"/sys/class/nvme/{ctrl}/device/numa_node")
        if node is not None:
            break
    if node is None:
        node = fs.read_int(f"{base}/device/numa_node")
    if node is not None and node < 0:
        node = None
    cpus = list(nodes.get(node, [])) if node is not None else []
    return BlockDevice(
        name=name,
        sysfs_path=real,
        kind=kind,
        controllers=controllers,
        paths=paths,
        numa_node=node,
        cpus=cpus,
        queue=_queue(fs, name),
        hw_queues=len([d for d in fs.listdir(f"{base}/mq") if d.isdigit()]),
        wwid=_strip(fs.read(f"{base}/wwid")),
    )


def _path_controller(fs: Sysfs, path_name: str) -> str | None:
    real = fs.resolve(f"/sys/block/{path_name}")
    if real:
        parent = Path(real).parent.name
        if _CTRL_RE.match(parent):
            return parent
    m = _PATH_RE.match(path_name)
    return f"nvme{m.group(2)}" if m else None


def modules(fs: Sysfs) -> dict[str, dict[str, str]]:
    """Parameters of the loaded NVMe modules (absent module: no key)."""
    out: dict[str, dict[str, str]] = {}
    for module, params in MODULE_PARAMS.items():
        base = f"/sys/module/{module}"
        if not fs.exists(base):
            continue
        values: dict[str, str] = {}
        for param in params:
            value = fs.read(f"{base}/parameters/{param}")
            if value is not None:
                values[param] = value.strip()
        out[module] = values
    return out


def irqbalance_running(fs: Sysfs) -> bool | None:
    """Whether an irqbalance process exists (None: /proc unreadable)."""
    pids = [p for p in fs.listdir("/proc") if p.isdigit()]
    if not pids:
        return None
    for pid in pids:
        comm = fs.read(f"/proc/{pid}/comm")
        if comm is not None and comm.strip() == "irqbalance":
            return True
    return False


def _sort_key(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


def discover(root: str | Path = "/") -> System:
    """Walk sysfs below ``root`` and describe every NVMe device."""
    fs = Sysfs.at(root)
    nodes = numa_nodes(fs)
    irq_names = _interrupt_names(fs)
    names = sorted((n for n in fs.listdir("/sys/class/nvme") if _CTRL_RE.match(n)),
                   key=_sort_key)
    controllers = [_controller(fs, n, nodes, irq_names) for n in names]
    namespaces: list[BlockDevice] = []
    paths: list[BlockDevice] = []
    for entry in sorted(fs.listdir("/sys/block"), key=_sort_key):
        if not (_NS_RE.match(entry) or _PATH_RE.match(entry)):
            continue
        dev = block_device(entry, root, nodes)
        if dev is None or dev.kind == "other":
            continue
        (paths if dev.kind == "nvme-path" else namespaces).append(dev)
    by_name = {c.name: c for c in controllers}
    for dev in namespaces:
        for ctrl in dev.controllers:
            if ctrl in by_name:
                by_name[ctrl].namespaces.append(dev.name)
    for dev in paths:
        for ctrl in dev.controllers:
            if ctrl in by_name:
                by_name[ctrl].paths.append(dev.name)
    return System(
        root=str(root),
        controllers=controllers,
        namespaces=namespaces,
        paths=paths,
        numa_nodes=nodes,
        modules=modules(fs),
        irqbalance=irqbalance_running(fs),
    )
