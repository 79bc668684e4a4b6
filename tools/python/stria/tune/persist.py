# SPDX-License-Identifier: GPL-2.0
"""The udev rules file that re-applies a profile at boot and on hotplug.

Block-queue settings become ATTR{queue/...} assignments on NVMe namespaces
(partitions excluded); interrupt coalescing becomes a RUN+= of
"stria-tune coalesce" on the controller (the admin ioctl apply uses, so
nothing else, such as nvme-cli, needs to be installed), both when it is added (coldplug at boot) and when the
driver reports it connected (NVME_EVENT=connected, after a reset or
hotplug; at "add" time a hotplugged controller may not be live yet).
Module parameters are not here: apply writes them to modprobe.d.

Every value written between quotes goes through rules_value(): a drive
picks its own serial number, so one that could end the quoted string (and
add a RUN+= that udev runs as root) is refused, and nothing is written.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..discovery import BlockDevice, System
from ..safetext import UnsafeText, rule_value
from .plan import HEAD_ONLY_PATHS
from .profiles import Profile, Setting
from .state import atomic_write

RULES_FILE = "90-stria-tune.rules"
DEFAULT_DIR = Path("/etc/udev/rules.d")


def tune_program() -> str:
    """The stria-tune the rules run: the one running now, by the path it
    was started with (a link into PREFIX/bin stays valid when make install
    replaces the venv behind it); else the one on PATH."""
    me = sys.argv[0] if sys.argv else ""
    if os.path.basename(me) == "stria-tune" and os.path.isfile(me):
        return os.path.abspath(me)
    return shutil.which("stria-tune") or "/usr/bin/stria-tune"


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
               program: str | None = None) -> str:
    """The rules for ``profile``: every NVMe namespace, or only ``devices``
    (matched by their stable WWID and their controllers' serial numbers).
    UnsafeText when a value cannot be written safely (nothing is then)."""
    program = rule_value(program or tune_program(), "the path of stria-tune")
    if " " in program:
        # udev splits RUN+= at spaces
        raise UnsafeText(f"the path of stria-tune '{program}' has a space, which a udev "
                         f"rule's RUN+= cannot hold: install it where the path has none")
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
        cmd = f"{program} coalesce %k 0x{coal.register:04x}"
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
