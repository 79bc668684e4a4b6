# SPDX-License-Identifier: GPL-2.0
"""The environment record: every setting a result depends on: change one
parameter per run and record every setting.

Kernel and command line, CPU model and NUMA topology, fio/mdadm/dmsetup
versions, whether stria is available, and the whole ``stria-tune show -o
json`` state when stria-tune is installed (its absence is recorded too).
Drive models, firmware and PCIe links are in the per-device records.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from . import __version__, arrays, devices, fio


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _cmd_output(cmd: list[str], timeout: float = 60) -> tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        return 127, "", f"{cmd[0]}: not found"
    except (OSError, subprocess.TimeoutExpired) as e:
        return 1, "", str(e)
    return p.returncode, p.stdout, p.stderr


def cpu_model(cpuinfo: str) -> str | None:
    for line in cpuinfo.splitlines():
        key, sep, val = line.partition(":")
        if sep and key.strip() in ("model name", "Model", "cpu model"):
            return val.strip()
    return None


def numa_topology(root: Path = devices.SYSFS) -> dict[str, str]:
    """NUMA node -> its CPU list ("0" -> "0-63")."""
    out: dict[str, str] = {}
    for node in devices.online_numa_nodes(root):
        cpus = _read(root / "devices" / "system" / "node" / f"node{node}" / "cpulist")
        out[str(node)] = cpus if cpus is not None else "?"
    return out


def find_stria_tune() -> str | None:
    """stria-tune on PATH, else the launcher in this checkout."""
    found = shutil.which("stria-tune")
    if found:
        return found
    local = Path(__file__).resolve().parents[2] / "bin" / "stria-tune"
    return str(local) if local.exists() else None


def stria_tune_state(exe: str | None, devs: list[str] | None = None) -> dict[str, Any]:
    """``stria-tune show [DEV...] -o json``, or why it is missing.

    The benchmarked devices are named so non-NVMe members (null_blk, md)
    are in the record too; if stria-tune refuses them, the plain show is kept.
    """
    if exe is None:
        return {"available": False, "reason": "stria-tune not found"}
    base = [exe] if os.access(exe, os.X_OK) else [sys.executable, exe]
    cmd = [*base, "show", *(devs or []), "-o", "json"]
    code, out, err = _cmd_output(cmd, timeout=120)
    if code != 0 and devs:
        cmd = [*base, "show", "-o", "json"]
        code, out, err = _cmd_output(cmd, timeout=120)
    if code != 0:
        return {"available": False, "command": " ".join(cmd),
                "reason": f"exit {code}: {err.strip()[-500:]}"}
    try:
        return {"available": True, "command": " ".join(cmd), "state": json.loads(out)}
    except json.JSONDecodeError as e:
        return {"available": False, "command": " ".join(cmd),
                "reason": f"output is not JSON: {e}"}


def _version(cmd: list[str]) -> str | None:
    code, out, err = _cmd_output(cmd)
    text = (out or err).strip()
    return text.splitlines()[0] if code == 0 and text else None


def capture(devs: list[str] | None = None, root: Path = devices.SYSFS) -> dict[str, Any]:
    """The environment of this run (@devs: the devices benchmarked)."""
    u = platform.uname()
    striactl = arrays.find_striactl()
    return {
        "stria_bench": __version__,
        "hostname": u.node,
        "kernel": {"release": u.release, "version": u.version, "machine": u.machine,
                   "cmdline": _read(Path("/proc/cmdline"))},
        "cpu": {"model": cpu_model(_read(Path("/proc/cpuinfo")) or ""),
                "count": os.cpu_count()},
        "numa": numa_topology(root),
        # who made the machine: "QEMU" says the time measured is emulated
        "dmi": {"sys_vendor": _read(root / "class" / "dmi" / "id" / "sys_vendor"),
                "product_name": _read(root / "class" / "dmi" / "id" / "product_name")},
        "python": platform.python_version(),
        "tools": {
            "fio": fio.version(),
            "fio_numa": fio.supports_option("numa_cpu_nodes"),
            "mdadm": _version(["mdadm", "--version"]),
            "dmsetup": _version(["dmsetup", "--version"]),
            "striactl": striactl,
        },
        "stria_module": {"loaded": (root / "module" / "stria").exists(),
                         "version": _read(root / "module" / "stria" / "version")},
        "stria_tune": stria_tune_state(find_stria_tune(), devs),
    }
