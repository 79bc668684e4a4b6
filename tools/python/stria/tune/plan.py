# SPDX-License-Identifier: GPL-2.0
"""Compare the system with a profile: the list of changes apply would make.

Planning reads only. Every change carries the value found now (``old``),
which the state saves before anything is written, so a value that cannot
be read is never changed: revert could not put it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..discovery import BlockDevice, System, active_scheduler, block_device, device_name
from ..sysfs import Sysfs, parse_cpulist
from .nvme import FEAT_IRQ_COALESCE, NvmeAdmin, NvmeError
from .profiles import Coalescing, Profile, Setting

MODPROBE_FILE = "stria-tune.conf"


class PlanError(Exception):
    """The request cannot be planned (bad device, NVMe setting on a non-NVMe
    device, ...). Nothing has been changed."""


@dataclass
class Change:
    """One value to change. ``status`` is "change", "same" (already at the
    profile value), "missing" (the kernel has no such attribute), "n/a"
    (not for this kind of device), or "unreadable" (current value unknown:
    left alone). ``result`` is filled
    in by apply: "applied", "failed", "refused", "gone" or "skipped"."""

    kind: str       # "sysfs", "feature" or "file"
    target: str     # attribute path, "nvme0/0x08" or file path
    device: str
    setting: str
    old: str | None
    new: str | None
    status: str
    note: str = ""
    result: str = ""
    message: str = ""
    implicit: list[tuple[str, str | None]] = field(default_factory=list)


def current_value(fs: Sysfs, path: str, attr: str) -> str | None:
    """An attribute's value in the form it can be written back."""
    text = fs.read(path)
    if text is None:
        return None
    if attr == "scheduler":
        return active_scheduler(text)
    return text.strip()


def select(system: System, names: list[str], root: str) -> list[BlockDevice]:
    """The block devices to tune: those named, or every NVMe namespace."""
    if not names:
        return list(system.namespaces)
    devices: list[BlockDevice] = []
    for arg in names:
        name = device_name(arg)
        dev = system.namespace(name) or block_device(name, root, system.numa_nodes)
        if dev is None:
            ctrl = system.controller(name)
            if ctrl is not None:
                devices.extend(d for d in system.namespaces if d.name in ctrl.namespaces)
                continue
            raise PlanError(f"{arg}: no such block device or NVMe controller "
                            f"(looked in {Path(root) / 'sys/block'})")
        devices.append(dev)
    return devices


def _queue_targets(system: System, dev: BlockDevice) -> list[BlockDevice]:
    """A multipath head and its hidden paths: requests queue on the paths."""
    out = [dev]
    for path in dev.paths:
        p = system.namespace(path)
        if p is not None:
            out.append(p)
    return out


#: Attributes a native-multipath head (a bio-based disk) has no use for:
#: the kernel refuses nr_requests and io_poll_delay there (EINVAL) and
#: ignores a scheduler. They are set on the head's paths instead.
HEAD_ONLY_PATHS = ("scheduler", "nr_requests", "io_poll_delay")


def plan_queue(fs: Sysfs, system: System, profile: Profile,
               devices: list[BlockDevice]) -> list[Change]:
    changes: list[Change] = []
    seen: set[str] = set()
    for top in devices:
        for dev in _queue_targets(system, top):
            if dev.name in seen:
                continue
            seen.add(dev.name)
            if not fs.exists(f"/sys/block/{dev.name}"):
                raise PlanError(f"{dev.name} disappeared while planning; nothing was changed")
            for s in profile.queue():
                path = f"/sys/block/{dev.name}/queue/{s.key}"
                if dev.multipath_head and s.key in HEAD_ONLY_PATHS:
                    changes.append(Change("sysfs", path, dev.name, s.key,
                                          current_value(fs, path, s.key), s.value, "n/a",
                                          "bio-based multipath head: set on its paths"))
                    continue
                old = current_value(fs, path, s.key)
                if old is None:
                    changes.append(Change("sysfs", path, dev.name, s.key, None, s.value,
                                          "missing", "not present on this kernel/device"))
                    continue
                status = "same" if old == s.value else "change"
                ch = Change("sysfs", path, dev.name, s.key, old, s.value, status)
                if s.key == "scheduler" and status == "change":
                    nr = f"/sys/block/{dev.name}/queue/nr_requests"
                    ch.implicit.append((nr, current_value(fs, nr, "nr_requests")))
                    ch.note = "switching the scheduler resets nr_requests"
                changes.append(ch)
    return changes


def plan_coalescing(system: System, profile: Profile, devices: list[BlockDevice],
                    nvme: NvmeAdmin) -> list[Change]:
    want = profile.coalescing()
    if want is None:
        return []
    ctrls: list[str] = []
    for dev in devices:
        for c in dev.controllers:
            if c not in ctrls:
                ctrls.append(c)
    changes = []
    for ctrl in ctrls:
        target = f"{ctrl}/0x{FEAT_IRQ_COALESCE:02x}"
        new = f"0x{want.register:04x}"
        try:
            old = f"0x{nvme.get_feature(ctrl, FEAT_IRQ_COALESCE) & 0xFFFF:04x}"
        except NvmeError as e:
            changes.append(Change("feature", target, ctrl, "coalescing", None, new,
                                  "unreadable", f"Get Features 0x08: {e.message}; left alone"))
            continue
        status = "same" if old == new else "change"
        changes.append(Change("feature", target, ctrl, "coalescing", old, new, status,
                              f"{Coalescing.from_register(int(old, 16)).describe()} -> "
                              f"{want.describe()}"))
    return changes


#: nvme parameters the module refuses above the number of possible CPUs
#: (io_queue_count_set() in drivers/nvme/host/pci.c).
CPU_BOUND = ("nvme.poll_queues", "nvme.write_queues")


def possible_cpus(fs: Sysfs) -> int | None:
    text = fs.read("/sys/devices/system/cpu/possible")
    return len(parse_cpulist(text)) if text else None


def module_values(fs: Sysfs, profile: Profile) -> list[tuple[Setting, str, str]]:
    """(setting, value to write, note) for each module parameter. A queue
    count above the possible CPUs is lowered to it: nvme refuses to load
    with more, and at boot that would leave the machine without its NVMe
    drives."""
    cpus = possible_cpus(fs)
    out = []
    for s in profile.modules():
        value, note = s.value, ""
        if s.key in CPU_BOUND and cpus is not None and int(s.value) > cpus:
            value = str(cpus)
            note = (f"{s.key}={s.value} lowered to {cpus}: nvme refuses more queues "
                    f"than possible CPUs")
        out.append((s, value, note))
    return out


def modprobe_text(fs: Sysfs, profile: Profile) -> str | None:
    """The modprobe.d file for the profile's module parameters."""
    settings = module_values(fs, profile)
    if not settings:
        return None
    lines = [
        f"# Written by stria-tune for profile '{profile.name}'.",
        "# Module parameters take effect only when the module is loaded again:",
        "#  - if nvme is loaded from the initramfs (root file system on NVMe),",
        "#    rebuild it (Debian: update-initramfs -u; RHEL: dracut -f), then reboot;",
        "#  - otherwise reboot, or run 'stria-tune apply --reload-nvme' while no",
        "#    NVMe device is mounted or in use.",
        "# 'stria-tune revert' puts back what was here before.",
    ]
    for s, value, note in settings:
        module, param = s.key.split(".", 1)
        lines.append("#")
        lines.append(f"# {s.key}: {s.why}")
        if note:
            lines.append(f"# Note: {note}.")
        lines.append(f"options {module} {param}={value}")
    return "\n".join(lines) + "\n"


def plan_modules(fs: Sysfs, system: System, profile: Profile,
                 modprobe_dir: Path) -> list[Change]:
    text = modprobe_text(fs, profile)
    if text is None:
        return []
    path = modprobe_dir / MODPROBE_FILE
    try:
        old: str | None = path.read_text()
    except FileNotFoundError:
        old = None
    except OSError as e:
        return [Change("file", str(path), "modprobe.d", MODPROBE_FILE, None, text,
                       "unreadable", f"cannot read {path}: {e.strerror}")]
    pending = []
    notes = []
    for s, value, clamp in module_values(fs, profile):
        module, param = s.key.split(".", 1)
        now = system.module_param(module, param)
        if now != value:
            pending.append(f"{s.key} {now if now is not None else '(not loaded)'} -> {value}")
        if clamp:
            notes.append(clamp)
    note = ("needs a module reload or reboot: " + ", ".join(pending)) if pending else \
        "running modules already match"
    if notes:
        note += "; " + "; ".join(notes)
    status = "same" if old == text else "change"
    return [Change("file", str(path), "modprobe.d", MODPROBE_FILE, old, text, status, note)]


def make_plan(fs: Sysfs, system: System, profile: Profile, devices: list[BlockDevice],
              nvme: NvmeAdmin, modprobe_dir: Path, queue_only: bool = False) -> list[Change]:
    """Everything apply would do for ``profile`` on ``devices``.

    Raises PlanError, before anything is changed, when an NVMe-only setting
    is asked of a device that is not NVMe."""
    others = [d.name for d in devices if not d.is_nvme]
    if others and profile.has_nvme and not queue_only:
        raise PlanError(
            f"{', '.join(others)}: not an NVMe device, but profile '{profile.name}' sets "
            f"NVMe interrupt coalescing; name only NVMe devices, or add --queue-only to "
            f"apply just the block-queue settings")
    changes = plan_queue(fs, system, profile, devices)
    if not queue_only:
        changes += plan_coalescing(system, profile, [d for d in devices if d.is_nvme], nvme)
        changes += plan_modules(fs, system, profile, modprobe_dir)
    return changes
