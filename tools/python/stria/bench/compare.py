# SPDX-License-Identifier: GPL-2.0
"""Differences between two runs, with the settings that changed.

Change one parameter per run and record every setting: compare lists
every setting and environment value that differs (the suspects), then
every measurement present in both runs with its change.  Differences
within ``noise`` (15 %: what repeated runs of one setup differed by on
the project's test machines) are marked as such, not as findings.
"""

from __future__ import annotations

from typing import Any

from .analysis import run_value
from .jobs import WORKLOADS
from ..textout import Table
from .report import fmt_pct, fmt_value

NOISE = 0.15
IGNORED = ("started", "finished", "hostname")


def flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}; lists of scalars stay values."""
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, list) and any(isinstance(x, (dict, list)) for x in obj):
        for i, v in enumerate(obj):
            out.update(flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = obj
    return out


def setting_changes(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Settings, environment and device facts that differ between two runs."""
    changes = []
    for section in ("settings", "environment", "devices"):
        fa, fb = flatten(a.get(section, {}), section), flatten(b.get(section, {}), section)
        for key in sorted(set(fa) | set(fb)):
            if any(key.endswith("." + i) for i in IGNORED):
                continue
            if fa.get(key) != fb.get(key):
                changes.append((key, fa.get(key), fb.get(key)))
    return changes


def result_changes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    runs_b = {r["id"]: r for r in b.get("runs", [])}
    out = []
    for ra in a.get("runs", []):
        rb = runs_b.get(ra["id"])
        if rb is None or ra.get("workload") not in WORKLOADS:
            continue
        va, vb = run_value(ra), run_value(rb)
        change = (vb - va) / va if va and vb is not None else None
        out.append({"id": ra["id"], "unit": WORKLOADS[ra["workload"]].metric,
                    "a": va, "b": vb, "change": change,
                    "noise": change is not None and abs(change) < NOISE})
    return out


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {"settings": [{"key": k, "a": va, "b": vb} for k, va, vb in setting_changes(a, b)],
            "results": result_changes(a, b), "noise": NOISE}


def _value(v: Any) -> str:
    return "-" if v is None else str(v)


def render(cmp: dict[str, Any], name_a: str, name_b: str) -> list[Any]:
    """The comparison as lines and tables for textout (never cut: a value
    too wide for its column is wrapped, or the table printed as blocks)."""
    out: list[Any] = [f"stria-bench compare: A = {name_a}, B = {name_b}", ""]
    sets = cmp["settings"]
    if sets:
        t = Table(["setting", "A", "B"], title="What changed between the runs")
        for s in sets:
            t.add_row(s["key"], _value(s["a"]), _value(s["b"]))
        out += [t, ""]
        if len(sets) > 1:
            out += [f"{len(sets)} settings differ: a difference in results cannot be "
                    "pinned on one of them (change one parameter per run).", ""]
    else:
        out += ["No setting differs between the runs.", ""]
    t = Table(["run", "A", "B", "change", "note"], title="Results")
    for r in cmp["results"]:
        ch = r["change"]
        note = "within noise" if r["noise"] else ("" if ch is None else
                                                  ("better" if ch > 0 else "worse"))
        t.add_row(r["id"], fmt_value(r["a"], r["unit"]), fmt_value(r["b"], r["unit"]),
                  "-" if ch is None else f"{ch * 100:+.1f} %", note)
    out += [t, "",
            f"Noise: changes under {fmt_pct(cmp['noise'])} are marked 'within noise'; "
            "repeat runs and compare medians before drawing a conclusion."]
    return out
