# SPDX-License-Identifier: GPL-2.0
"""Running fio and reading its JSON output.

Only ``--output-format=json`` is read, never fio's text.  fio may print
warnings ahead of the JSON document when writing to stdout, so the output
goes to a file with ``--output`` and the parser also skips anything before
the first ``{``.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class FioError(Exception):
    """fio could not be run or its output could not be read."""


@dataclass
class DirStats:
    """One direction (read or write) of one fio group."""

    iops: float = 0.0
    bw_bytes: float = 0.0
    io_bytes: int = 0
    runtime_ms: int = 0
    lat_mean_ns: float = 0.0
    # percentile (e.g. 99.9) -> completion latency in ns
    clat_ns: dict[float, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "iops": self.iops, "bw_bytes": self.bw_bytes,
            "io_bytes": self.io_bytes, "runtime_ms": self.runtime_ms,
            "lat_mean_ns": self.lat_mean_ns,
            "clat_ns": {f"{p:g}": v for p, v in sorted(self.clat_ns.items())},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DirStats:
        return cls(float(d.get("iops", 0.0)), float(d.get("bw_bytes", 0.0)),
                   int(d.get("io_bytes", 0)), int(d.get("runtime_ms", 0)),
                   float(d.get("lat_mean_ns", 0.0)),
                   {float(k): float(v) for k, v in d.get("clat_ns", {}).items()})


@dataclass
class GroupResult:
    """One fio group: with stria-bench's job files, one target."""

    name: str
    groupid: int
    error: int
    read: DirStats
    write: DirStats
    filename: str = ""
    # fio's steady-state result, when the job asked for one: "attained"
    # (bool), "criterion" (what was asked: "iops_slope:1.000000%"),
    # "duration" (the window, seconds), "measured" (fio's figure at the end)
    steady: dict[str, Any] | None = None


@dataclass
class FioRun:
    """A whole fio run: its groups and their sum."""

    version: str
    groups: list[GroupResult]

    @property
    def error(self) -> int:
        return next((g.error for g in self.groups if g.error), 0)

    def steady_attained(self) -> bool | None:
        """Whether every group reached steady state; None when none was
        asked for (or fio reported none)."""
        asked = [g.steady for g in self.groups if g.steady is not None]
        if not asked:
            return None
        return len(asked) == len(self.groups) and all(s["attained"] for s in asked)

    def total(self, direction: str) -> DirStats:
        """Sum of IOPS, bandwidth and bytes over all groups; latency of the
        worst group (the percentile of a sum cannot be rebuilt from parts)."""
        parts = [g.read if direction == "read" else g.write for g in self.groups]
        out = DirStats()
        for p in parts:
            out.iops += p.iops
            out.bw_bytes += p.bw_bytes
            out.io_bytes += p.io_bytes
            out.runtime_ms = max(out.runtime_ms, p.runtime_ms)
            out.lat_mean_ns = max(out.lat_mean_ns, p.lat_mean_ns)
            for k, v in p.clat_ns.items():
                out.clat_ns[k] = max(out.clat_ns.get(k, 0.0), v)
        return out


def _dir_stats(d: dict[str, Any]) -> DirStats:
    clat = d.get("clat_ns", {})
    pct = clat.get("percentile", {}) or {}
    lat = d.get("lat_ns", {})
    return DirStats(
        iops=float(d.get("iops", 0.0)),
        bw_bytes=float(d.get("bw_bytes", d.get("bw", 0) * 1024)),
        io_bytes=int(d.get("io_bytes", 0)),
        runtime_ms=int(d.get("runtime", 0)),
        lat_mean_ns=float(lat.get("mean", 0.0)),
        clat_ns={float(k): float(v) for k, v in pct.items()},
    )


def load_json_text(text: str) -> dict[str, Any]:
    """The fio JSON document in @text, skipping any warnings before it."""
    start = text.find("{")
    if start < 0:
        raise FioError("no JSON document in fio output")
    try:
        doc = json.loads(text[start:])
    except json.JSONDecodeError as e:
        raise FioError(f"fio output is not valid JSON: {e}") from e
    if not isinstance(doc, dict) or "jobs" not in doc:
        raise FioError("fio JSON has no 'jobs'")
    return doc


def _steady(ss: Any) -> dict[str, Any] | None:
    if not isinstance(ss, dict) or "attained" not in ss:
        return None
    return {"attained": bool(ss["attained"]), "criterion": str(ss.get("ss", "")),
            "duration": int(ss.get("duration", 0)), "measured": str(ss.get("criterion", ""))}


def parse(doc: dict[str, Any]) -> FioRun:
    """Parse a fio JSON document (``--output-format=json``)."""
    groups = []
    for job in doc.get("jobs", []):
        opts = job.get("job options", {})
        groups.append(GroupResult(
            name=str(job.get("jobname", "")),
            groupid=int(job.get("groupid", 0)),
            error=int(job.get("error", 0)),
            read=_dir_stats(job.get("read", {})),
            write=_dir_stats(job.get("write", {})),
            filename=str(opts.get("filename", "")),
            steady=_steady(job.get("steadystate")),
        ))
    return FioRun(version=str(doc.get("fio version", "")), groups=groups)


def run(job_file: Path, json_out: Path, timeout: float,
        fio: str = "fio") -> tuple[dict[str, Any] | None, str]:
    """Run fio on @job_file writing JSON to @json_out.

    Returns (document or None, fio's stderr).  A failed job still returns
    its document when fio wrote one (the per-job ``error`` field says why).
    """
    cmd = [fio, "--output-format=json", f"--output={json_out}", str(job_file)]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None, f"fio timed out after {timeout:.0f} s"
    except OSError as e:
        raise FioError(f"cannot run fio: {e}") from e
    err = (p.stderr + p.stdout).strip()
    try:
        return load_json_text(json_out.read_text()), err
    except (OSError, FioError) as e:
        return None, err or str(e)


def version(fio: str = "fio") -> str | None:
    try:
        p = subprocess.run([fio, "--version"], capture_output=True, text=True,
                           timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() or None


def supports_option(option: str, fio: str = "fio") -> bool:
    """Whether this fio build knows @option (e.g. numa_cpu_nodes needs libnuma)."""
    try:
        p = subprocess.run([fio, f"--cmdhelp={option}"], capture_output=True,
                           text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0 and "No such command" not in p.stdout + p.stderr
