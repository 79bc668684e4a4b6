# SPDX-License-Identifier: GPL-2.0
"""The results.json document.

Top-level keys (schema "stria-bench/1"):

schema       "stria-bench/1"
started,     ISO 8601 UTC times
finished
settings     everything chosen for this run: suite, devices, levels, chunk,
             timing, workloads per step, engines, extra fio options, force
environment  env.capture(): kernel, CPUs, NUMA, tool versions, stria-tune
devices      one record per device (devices.DeviceInfo)
safety       the safety verdict for each device
runs         one record per fio run (see run_record), with fio's whole JSON
arrays       each array tried: created / not available / failed, and why
precondition what preconditioning did before the write runs (see
             steps.Bench.precondition): status, drives, estimate, seconds
analysis     analysis.analyze() of the above
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from .fio import FioRun

SCHEMA = "stria-bench/1"
TOP_KEYS = ("schema", "started", "finished", "settings", "environment",
            "devices", "safety", "runs", "arrays", "precondition", "analysis")


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def new_document(settings: dict[str, Any]) -> dict[str, Any]:
    return {"schema": SCHEMA, "started": now(), "finished": None,
            "settings": settings, "environment": {}, "devices": [],
            "safety": [], "runs": [], "arrays": [], "precondition": None,
            "analysis": {}}


def run_record(*, run_id: str, step: str, kind: str, label: str, workload: str,
               engine: str, targets: list[str], level: int | None = None,
               members: list[str] | None = None, numa: list[int | None] | None = None,
               job_file: str | None = None, fio_json: str | None = None,
               parsed: FioRun | None = None, doc: dict[str, Any] | None = None,
               status: str = "ok", reason: str | None = None,
               steady: dict[str, Any] | None = None) -> dict[str, Any]:
    """One fio run (or a run that was skipped, with its reason). A write
    run measured until steady state has "steady_state": the criterion
    (jobs.SteadyState.to_json) and "attained" (true, false, or null when
    fio wrote no result)."""
    rec: dict[str, Any] = {
        "id": run_id, "step": step, "kind": kind, "label": label,
        "level": level, "workload": workload, "engine": engine,
        "targets": targets, "drives": len(members) if members else len(targets),
        "members": members or targets, "numa": numa or [],
        "job_file": job_file, "fio_json": fio_json,
        "status": status, "reason": reason,
    }
    if steady is not None:
        rec["steady_state"] = dict(steady, attained=None if parsed is None
                                   else parsed.steady_attained())
    if parsed is not None:
        rec["read"] = parsed.total("read").to_json()
        rec["write"] = parsed.total("write").to_json()
        rec["per_target"] = [{"target": g.filename or g.name,
                              "read": g.read.to_json(), "write": g.write.to_json()}
                             for g in parsed.groups]
    if doc is not None:
        rec["fio"] = doc
    return rec


def save(doc: dict[str, Any], out_dir: Path) -> Path:
    path = out_dir / "results.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    tmp.replace(path)
    return path


class ResultsError(Exception):
    pass


def load(out_dir: Path) -> dict[str, Any]:
    path = out_dir / "results.json" if out_dir.is_dir() else out_dir
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ResultsError(f"cannot read {path}: {e}") from e
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ResultsError(f"{path} is not a stria-bench result ({SCHEMA})")
    return doc
