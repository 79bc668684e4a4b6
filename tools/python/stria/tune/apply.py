# SPDX-License-Identifier: GPL-2.0
"""Perform a plan, revert a state, reload the NVMe driver.

Order of work for each change: record the old value in the state and save
it, then write, then read back. A change the device refuses (NVMe "Feature
Not Changeable", a sysfs EINVAL) is reported and the rest still goes on;
a device that disappears has its remaining changes skipped.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..sysfs import Sysfs, SysfsError
from .nvme import FEAT_IRQ_COALESCE, NvmeAdmin, NvmeError
from .plan import Change, current_value
from .state import Entry, State, atomic_write

#: Exit codes (documented in stria-tune(8)).
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_PARTIAL = 3


def _entry(ch: Change) -> Entry:
    return Entry(ch.kind, ch.target, ch.device, ch.setting, ch.old, ch.new)


def _write(fs: Sysfs, nvme: NvmeAdmin, kind: str, target: str, value: str | None,
           setting: str) -> None:
    """Write one value; raises SysfsError, NvmeError or OSError."""
    if kind == "sysfs":
        assert value is not None
        fs.write(target, value)
        now = current_value(fs, target, setting)
        if now != value:
            raise SysfsError(target, 0, f"the kernel kept {now!r} (wrote {value!r})")
    elif kind == "feature":
        assert value is not None
        ctrl = target.split("/", 1)[0]
        nvme.set_feature(ctrl, FEAT_IRQ_COALESCE, int(value, 0))
    elif kind == "file":
        path = Path(target)
        if value is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, value)
    else:
        raise ValueError(kind)


def _classify(err: Exception) -> tuple[str, str]:
    if isinstance(err, SysfsError):
        return ("gone" if err.gone else "failed"), err.message
    if isinstance(err, NvmeError):
        if err.refused:
            return "refused", err.message
        return ("gone" if err.gone else "failed"), err.message
    if isinstance(err, OSError):
        return "failed", f"{err.filename}: {err.strerror}"
    return "failed", str(err)


def apply(changes: list[Change], fs: Sysfs, nvme: NvmeAdmin, state: State,
          profile: str) -> int:
    """Make the changes whose status is "change"; fill in ``result``."""
    gone: set[str] = set()
    partial = False
    state.profile = profile
    for ch in changes:
        if ch.status == "unreadable":
            # Not changed because revert could not restore it: not done.
            partial = True
        if ch.status != "change":
            continue
        if ch.device in gone:
            ch.result, ch.message = "skipped", f"{ch.device} disappeared"
            partial = True
            continue
        added = [state.record(_entry(ch))]
        for target, old in ch.implicit:
            added.append(state.record(Entry("sysfs", target, ch.device,
                                            Path(target).name, old, None)))
        state.save()
        try:
            _write(fs, nvme, ch.kind, ch.target, ch.new, ch.setting)
        except (SysfsError, NvmeError, OSError) as e:
            ch.result, ch.message = _classify(e)
            partial = True
            if ch.result == "gone":
                gone.add(ch.device)
            # Nothing was changed: forget what this change recorded.
            if added[0]:
                state.drop(ch.target)
            for (target, _), new in zip(ch.implicit, added[1:]):
                if new:
                    state.drop(target)
            state.save()
            continue
        ch.result = "applied"
    state.save()
    return EXIT_PARTIAL if partial else EXIT_OK


@dataclass
class Restored:
    """The outcome of reverting one saved entry."""

    entry: Entry
    result: str  # "restored", "gone", "failed", "refused"
    message: str = ""


def _revert_order(entries: list[Entry]) -> list[Entry]:
    # Schedulers first (switching resets nr_requests), then newest first.
    indexed = list(enumerate(entries))
    indexed.sort(key=lambda ie: (ie[1].setting != "scheduler", -ie[0]))
    return [e for _, e in indexed]


def revert(state: State, fs: Sysfs, nvme: NvmeAdmin) -> tuple[int, list[Restored]]:
    """Put every saved value back; keep in the state what could not be."""
    out: list[Restored] = []
    partial = False
    for entry in _revert_order(list(state.entries.values())):
        if entry.kind != "file" and entry.old is None:
            # Unknown old value: never recorded for writing, nothing to do.
            state.drop(entry.target)
            continue
        try:
            _write(fs, nvme, entry.kind, entry.target, entry.old, entry.setting)
        except (SysfsError, NvmeError, OSError) as e:
            result, message = _classify(e)
            if result == "gone":
                # The device is gone and so is the value stria-tune set.
                out.append(Restored(entry, "gone", message + "; nothing left to restore"))
                state.drop(entry.target)
            else:
                out.append(Restored(entry, result, message))
                partial = True
            continue
        out.append(Restored(entry, "restored"))
        state.drop(entry.target)
        state.save()
    state.save()
    return (EXIT_PARTIAL if partial else EXIT_OK), out


Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


def _run(cmd: list[str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def nvme_busy(fs: Sysfs) -> list[str]:
    """Reasons the NVMe driver must not be unloaded now (empty: safe)."""
    reasons: list[str] = []
    mounts = fs.read("/proc/mounts") or ""
    for line in mounts.splitlines():
        src, _, rest = line.partition(" ")
        if src.startswith("/dev/nvme"):
            reasons.append(f"{src} is mounted on {rest.split(' ', 1)[0]}")
    swaps = fs.read("/proc/swaps") or ""
    for line in swaps.splitlines()[1:]:
        if line.startswith("/dev/nvme"):
            reasons.append(f"{line.split()[0]} is in use as swap")
    for dev in fs.listdir("/sys/block"):
        if not dev.startswith("nvme"):
            continue
        holders = fs.listdir(f"/sys/block/{dev}/holders")
        if holders:
            reasons.append(f"{dev} is held by {', '.join(holders)} (an array, LVM or dm)")
        for part in fs.listdir(f"/sys/block/{dev}"):
            if part.startswith(dev) and fs.listdir(f"/sys/block/{dev}/{part}/holders"):
                reasons.append(f"{part} is held by "
                               f"{', '.join(fs.listdir(f'/sys/block/{dev}/{part}/holders'))}")
    return reasons


@dataclass
class Reload:
    """What --reload-nvme did. ``unloaded``: the devices went away and came
    back (or not), so everything must be discovered again."""

    done: bool
    message: str
    unloaded: bool = False


def reload_nvme(fs: Sysfs, modprobe_dir: Path, core: bool,
                run: Runner = _run) -> Reload:
    """Unload and load nvme (and nvme_core when ``core``) so the modprobe.d
    options take effect. Refuses when any NVMe device is in use. If the
    new options make the load fail, loads nvme again without them, so the
    drives come back."""
    busy = nvme_busy(fs)
    if busy:
        return Reload(False, "not reloading nvme: " + "; ".join(busy))
    config = [] if modprobe_dir == Path("/etc/modprobe.d") else ["-C", str(modprobe_dir)]
    unload = [["modprobe", "-r", "nvme"]]
    if core:
        unload.append(["modprobe", "-r", "nvme_core"])
    for cmd in unload:
        res = run(cmd)
        if res.returncode != 0:
            return Reload(False, f"'{' '.join(cmd)}' failed: {res.stderr.strip()}",
                          unloaded=cmd != unload[0])
    load = ["modprobe", *config, "nvme"]
    res = run(load)
    if res.returncode != 0:
        msg = f"'{' '.join(load)}' failed: {res.stderr.strip()}"
        back = run(["modprobe", "-C", "/dev/null", "nvme"])
        if back.returncode == 0:
            msg += "; loaded nvme again without the new options"
        else:
            msg += f"; nvme is NOT loaded ({back.stderr.strip()}): run 'modprobe nvme'"
        return Reload(False, msg, unloaded=True)
    return Reload(True, "reloaded nvme" + (" and nvme_core" if core else ""), unloaded=True)
