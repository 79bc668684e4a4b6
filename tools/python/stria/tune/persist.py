# SPDX-License-Identifier: GPL-2.0
"""The udev rules file that re-applies a profile at boot and on hotplug.

Block-queue settings become ATTR{queue/...} assignments on NVMe namespaces
(partitions excluded); interrupt coalescing becomes a RUN+= of nvme-cli on
the controller, both when it is added (coldplug at boot) and when the
driver reports it connected (NVME_EVENT=connected, after a reset or
hotplug; at "add" time a hotplugged controller may not be live yet).
Module parameters are not here: apply writes them to modprobe.d.

Every value written between quotes goes through rules_value(): a drive
picks its own serial number, so one that could end the quoted string (and
add a RUN+= that udev runs as root) is refused, and nothing is written.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..discovery import BlockDevice, System
from ..safetext import UnsafeText, rule_value
from .plan import HEAD_ONLY_PATHS
from .profiles import Profile, Setting
from .state import atomic_write

RULES_FILE = "90-stria-tune.rules"
DEFAULT_DIR = Path("/etc/udev/rules.d")


def nvme_cli() -> str:
    return shutil.which("nvme", path="/usr/sbin:/sbin:/usr/bin:/bin") or "/usr/sbin/nvme"


def _device_value(text: str, what: str) -> str:
    try:
        return rule_value(text, what)
    except UnsafeText as e:
        raise UnsafeText(f"{e} (rules for named devices match them by it): persist "
                         f"without naming devices, so that the rules match every NVMe "
                         f"namespace and controller, or leave this device out") from e


def _profile_value(text: str, what: str) -> str:
    try:
        return rule_value(text, what)
    except UnsafeText as e:
        raise UnsafeText(f"{e}; correct the profile") from e


def rules_text(profile: Profile, system: System, devices: list[BlockDevice] | None,
               nvme: str | None = None) -> str:
    """The rules for ``profile``: every NVMe namespace, or only ``devices``
    (matched by their stable WWID and their controllers' serial numbers).
    UnsafeText when a value cannot be written safely (nothing is then)."""
    nvme = rule_value(nvme or nvme_cli(), "the path of nvme-cli")
    _profile_value(profile.name, "the profile name")
    lines = [
        f"# Written by 'stria-tune persist --profile {profile.name}'; remove with",
        "# 'stria-tune unpersist'. Re-applies the profile's block-queue settings and",
        "# NVMe interrupt coalescing when an NVMe namespace or controller appears.",
        "# Module parameters (poll_queues, multipath) live in modprobe.d instead.",
        'ACTION!="add|change", GOTO="stria_tune_end"',
        "",
    ]
    # A native-multipath head is bio-based (no mq/ directory) and refuses
    # these; they go to request-based disks (namespaces and paths) only.
    mq_only = [s for s in profile.queue() if s.key in HEAD_ONLY_PATHS]
    common = [s for s in profile.queue() if s.key not in HEAD_ONLY_PATHS]
    groups = [(f"{_assigns(common)}", "")] if common else []
    if mq_only:
        groups.append((_assigns(mq_only), ', TEST=="mq"'))
    match_block = 'SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", KERNEL=="nvme[0-9]*n[0-9]*"'
    if groups:
        lines.append("# Block-queue settings (scheduler first: switching it resets nr_requests).")
    for assigns, test in groups:
        if devices:
            for dev in devices:
                if dev.wwid:
                    # Matches the namespace and its multipath paths alike.
                    wwid = _device_value(dev.wwid, f"{dev.name}'s wwid")
                    lines.append(f'{match_block}{test}, ATTR{{wwid}}=="{wwid}", {assigns}')
        else:
            lines.append(f"{match_block}{test}, {assigns}")
    coal = profile.coalescing()
    if coal is not None:
        cmd = f"{nvme} set-feature /dev/%k --feature-id=0x08 --value=0x{coal.register:04x}"
        lines.append("")
        lines.append(f"# NVMe interrupt coalescing: {coal.describe()}.")
        match = 'SUBSYSTEM=="nvme", KERNEL=="nvme[0-9]*"'
        serials: list[str | None] = [None]
        if devices:
            serials = []
            for dev in devices:
                for name in dev.controllers:
                    ctrl = system.controller(name)
                    if ctrl is None or not ctrl.serial:
                        continue
                    checked = _device_value(ctrl.serial, f"{name}'s serial number")
                    if checked not in serials:
                        serials.append(checked)
        for serial in serials:
            who = f', ATTR{{serial}}=="{serial}"' if serial else ""
            lines.append(f'ACTION=="add", {match}{who}, RUN+="{cmd}"')
            lines.append(f'ACTION=="change", {match}{who}, ENV{{NVME_EVENT}}=="connected", '
                         f'RUN+="{cmd}"')
    lines += ["", 'LABEL="stria_tune_end"', ""]
    return "\n".join(lines)


def _assigns(settings: list[Setting]) -> str:
    return ", ".join(f'ATTR{{queue/{s.key}}}="{_profile_value(s.value, f"queue.{s.key}")}"'
                     for s in settings)


def write_rules(udev_dir: Path, text: str) -> Path:
    path = udev_dir / RULES_FILE
    udev_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    return path


def remove_rules(udev_dir: Path) -> Path | None:
    path = udev_dir / RULES_FILE
    try:
        path.unlink()
    except FileNotFoundError:
        return None
    return path
