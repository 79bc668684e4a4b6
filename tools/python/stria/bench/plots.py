# SPDX-License-Identifier: GPL-2.0
"""PNG plots with matplotlib (Agg backend, no display needed).

scaling-WORKLOAD.png   measured aggregate vs drives, with the linear line
efficiency.png         array / raw aggregate per array and workload, with
                       the raw line at 100 % and a 90 % goal
latency.png            completion-latency percentiles of the baseline and
                       array random-read runs
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib  # type: ignore[import]

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # type: ignore[import]  # noqa: E402

from .jobs import PERCENTILES, WORKLOADS  # noqa: E402

DPI = 100


def _unit(workload: str) -> tuple[str, float]:
    if WORKLOADS[workload].metric == "iops":
        return "IOPS (thousands)", 1e3
    return "MB/s", 1e6


def scaling(doc: dict[str, Any], out: Path) -> list[Path]:
    """One plot per workload: each engine's measured curve and the linear line."""
    by_workload: dict[str, list[dict[str, Any]]] = {}
    for key, data in doc.get("analysis", {}).get("scaling", {}).items():
        if data.get("points"):
            by_workload.setdefault(data.get("workload", key), []).append(data)
    made = []
    for w, curves in by_workload.items():
        label, div = _unit(w)
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ref = next((c for c in curves if c.get("engine", "libaio") == "libaio"), curves[0])
        x = [p["drives"] for p in ref["points"]]
        ax.plot(x, [p["linear"] / div for p in ref["points"]], "--", color="grey",
                label="linear (sum of baselines)" if ref is curves[0] and
                ref.get("engine", "libaio") == "libaio" else "linear")
        for c in curves:
            xs = [p["drives"] for p in c["points"]]
            ax.plot(xs, [p["measured"] / div for p in c["points"]], "o-",
                    label=f"measured, {c.get('engine', 'libaio')}")
        at = ref.get("departs_at")
        if at:
            ax.axvline(at, color="tab:red", alpha=0.4, label=f"departs at {at} drives")
        ax.set_xlabel("drives")
        ax.set_ylabel(label)
        ax.set_xticks(sorted({p["drives"] for c in curves for p in c["points"]}))
        ax.set_title(f"Scaling: {w}")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        path = out / f"scaling-{w}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=DPI)
        plt.close(fig)
        made.append(path)
    return made


def efficiency(doc: dict[str, Any], out: Path) -> list[Path]:
    rows = [a for a in doc.get("analysis", {}).get("arrays", [])
            if a.get("engine") == "libaio"]
    if not rows:
        return []
    workloads = sorted({a["workload"] for a in rows}, key=list(WORKLOADS).index)
    arrays_ = sorted({(a["level"], a["kind"]) for a in rows})
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(workloads) * len(arrays_) / 2), 4.5))
    width = 0.8 / max(1, len(arrays_))
    for i, (level, kind) in enumerate(arrays_):
        vals = []
        for w in workloads:
            m = [a for a in rows if a["workload"] == w and a["kind"] == kind
                 and a["level"] == level]
            eff = m[0].get("efficiency") if m else None
            vals.append(100 * eff if eff is not None else 0.0)
        xs = [j + (i - (len(arrays_) - 1) / 2) * width for j in range(len(workloads))]
        bars = ax.bar(xs, vals, width, label=f"{kind} RAID{level}")
        for b, v in zip(bars, vals):
            ax.annotate("n/a" if v == 0 else f"{v:.0f}", (b.get_x() + b.get_width() / 2, v),
                        ha="center", va="bottom", fontsize=8)
    ax.axhline(100, color="black", linewidth=1, label="raw drives")
    ax.axhline(90, color="grey", linestyle=":", label="90 % goal")
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads)
    ax.set_ylabel("% of raw aggregate")
    ax.set_title("Array efficiency (array / raw)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    path = out / "efficiency.png"
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return [path]


def latency(doc: dict[str, Any], out: Path) -> list[Path]:
    series = []
    for r in doc.get("runs", []):
        if (r.get("status") == "ok" and r.get("workload") == "randread-4k"
                and r.get("engine") == "libaio" and not r.get("reused")
                and r.get("step") in ("baseline", "arrays")):
            clat = r.get("read", {}).get("clat_ns", {})
            pts = [(p, clat.get(f"{p:g}")) for p in PERCENTILES]
            if all(v is not None for _, v in pts):
                series.append((r.get("label", r["id"]), [float(v or 0) / 1e3 for _, v in pts]))
    if not series:
        return []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = list(range(len(PERCENTILES)))
    for label, vals in series:
        ax.plot(xs, vals, "o-", label=str(label))
    ax.set_xticks(xs)
    ax.set_xticklabels([f"p{p:g}" for p in PERCENTILES])
    ax.set_yscale("log")
    ax.set_ylabel("completion latency (µs)")
    ax.set_title("randread-4k latency percentiles")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    path = out / "latency.png"
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return [path]


def render_all(doc: dict[str, Any], out_dir: Path) -> list[str]:
    """Draw every plot the results allow; file names relative to @out_dir."""
    plot_dir = out_dir / "plots"
    plot_dir.mkdir(parents=True, exist_ok=True)
    made = scaling(doc, plot_dir) + efficiency(doc, plot_dir) + latency(doc, plot_dir)
    return [str(p.relative_to(out_dir)) for p in made]
