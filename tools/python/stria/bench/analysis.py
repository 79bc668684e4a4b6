# SPDX-License-Identifier: GPL-2.0
"""The derived figures: efficiency, weakest link, RAID bounds, scaling.

* Array efficiency = array result / raw aggregate of the same drives with
  the same workload (Xinnor's goal for a RAID engine, "PCIe Gen 5 Storage
  Array Optimization", 2023: 90-95 %).
* Weakest-link bound = slowest member x N for striping ("Linux MD RAID0: The
  Weakest Link", ESOS blog, 2017: one drive in a PCIe Gen1 slot capped a
  4-drive md RAID0 at 832 MB/s x 4).
* RAID5/6 bounds from member counts: reads use all N members for random
  I/O but only N - parity for sequential; a small random write costs the
  cheaper of read-modify-write (1 + parity reads, 1 + parity writes) and
  reconstruct-write (N - 1 - parity reads, 1 + parity writes); a full
  stripe write moves N - parity chunks of data.
* Scaling departs from linear at the first drive count whose aggregate
  falls below ``threshold`` of the sum of those drives' own baselines.

Everything here is pure: numbers in, numbers out, no I/O.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from .jobs import ENGINES, WORKLOADS, Workload

PARITY = {0: 0, 5: 1, 6: 2}
SCALING_THRESHOLD = 0.9


@dataclass
class WeakestLink:
    member: str
    slowest: float
    fastest: float
    members: int

    @property
    def bound(self) -> float:
        return self.slowest * self.members

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["bound"] = self.bound
        return d


def weakest_link(per_member: dict[str, float]) -> WeakestLink | None:
    """Slowest member x N, and which member set it."""
    if not per_member:
        return None
    member = min(per_member, key=lambda k: (per_member[k], k))
    return WeakestLink(member, per_member[member], max(per_member.values()),
                       len(per_member))


def random_write_cost(level: int, members: int) -> tuple[int, int]:
    """(member reads, member writes) per small array write, cheaper method."""
    p = PARITY[level]
    if p == 0:
        return 0, 1
    rmw = (1 + p, 1 + p)
    rcw = (members - 1 - p, 1 + p)
    return min(rmw, rcw, key=lambda c: (c[0] + c[1], c[0]))


def raid_bound(level: int, members: int, workload: Workload,
               slowest_read: float | None, slowest_write: float | None) -> float | None:
    """Upper bound of an array of @members from its slowest member's results.

    @slowest_read / @slowest_write are the slowest member's result for the
    read and write form of @workload (IOPS for random, bytes/s for sequential).
    """
    p = PARITY[level]
    data = members - p
    if not workload.is_write:
        if slowest_read is None:
            return None
        return slowest_read * (members if workload.is_random else data)
    if slowest_write is None:
        return None
    if not workload.is_random:
        return slowest_write * data
    reads, writes = random_write_cost(level, members)
    if reads == 0:
        return slowest_write * members / writes
    if slowest_read is None or slowest_read <= 0 or slowest_write <= 0:
        return None
    # each member spends reads/R + writes/W seconds per array write
    per_member = reads / slowest_read + writes / slowest_write
    return members / per_member


def efficiency(array: float | None, raw: float | None) -> float | None:
    if array is None or raw is None or raw <= 0:
        return None
    return array / raw


@dataclass
class ScalingPoint:
    drives: int
    measured: float
    linear: float

    @property
    def ratio(self) -> float | None:
        return self.measured / self.linear if self.linear > 0 else None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["ratio"] = self.ratio
        return d


def scaling_points(measured: dict[int, float], baselines: list[float]) -> list[ScalingPoint]:
    """Pair each drive count with its linear expectation.

    The expectation for k drives is the sum of the first k drives'
    baselines; without baselines, k times the one-drive measurement.
    """
    points = []
    one = measured.get(1)
    for k in sorted(measured):
        if len(baselines) >= k:
            linear = sum(baselines[:k])
        elif one is not None:
            linear = one * k
        else:
            continue
        points.append(ScalingPoint(k, measured[k], linear))
    return points


def departs_at(points: list[ScalingPoint], threshold: float = SCALING_THRESHOLD) -> int | None:
    """First drive count below @threshold of linear, None if it stays linear."""
    for p in points:
        r = p.ratio
        if r is not None and r < threshold:
            return p.drives
    return None


# --- the analysis of a results document -----------------------------------

def run_value(run: dict[str, Any], workload: Workload | None = None) -> float | None:
    """The headline figure of one run (IOPS or bytes/s in the workload's direction)."""
    if run.get("status") != "ok":
        return None
    w = workload or WORKLOADS.get(str(run.get("workload")))
    if w is None:
        return None
    d = run.get("write" if w.is_write else "read", {})
    v = d.get(w.metric)
    return float(v) if isinstance(v, (int, float)) else None


def _find(runs: list[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    return [r for r in runs if all(r.get(k) == v for k, v in match.items())]


LINK_BOUND = 0.8


def link_bound(per_drive_bw: dict[str, float],
               link_mbps: dict[str, float | None]) -> dict[str, float]:
    """Drives whose sequential bandwidth reaches LINK_BOUND of their PCIe
    link's capacity (the Gen1 slot of "The Weakest Link"), with the fraction reached."""
    out = {}
    for dev, bw in per_drive_bw.items():
        cap = link_mbps.get(dev)
        if cap and bw / (cap * 1e6) >= LINK_BOUND:
            out[dev] = bw / (cap * 1e6)
    return out


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def spread(values: list[float]) -> float | None:
    """(max - min) / median of repeated measurements; None for one sample."""
    if len(values) < 2:
        return None
    m = median(values)
    return (max(values) - min(values)) / m if m else None


def _rounds(runs: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Runs grouped by what they measured, in first-seen order; repeated
    rounds of the same measurement ("...#2", "...#3") land in one group."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in runs:
        key = (r.get("step"), r.get("kind"), r.get("label"), r.get("level"),
               r.get("workload"), r.get("engine"))
        groups.setdefault(key, []).append(r)
    return list(groups.values())


def _baseline(runs: list[dict[str, Any]], devices: list[str],
              workload: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for dev in devices:
        for r in _find(runs, step="baseline", workload=workload, engine="libaio"):
            if r.get("targets") == [dev]:
                v = run_value(r)
                if v is not None:
                    out[dev] = v
    return out


def _counterpart(name: str) -> str | None:
    """The workload of the other direction with the same shape."""
    w = WORKLOADS[name]
    for o in WORKLOADS.values():
        if o.bs == w.bs and o.is_random == w.is_random and o.is_write != w.is_write:
            return o.name
    return None


def analyze(doc: dict[str, Any]) -> dict[str, Any]:
    """Derived figures for a results document (see results.py for its shape)."""
    runs: list[dict[str, Any]] = doc.get("runs", [])
    devices = [d["path"] for d in doc.get("devices", [])]
    links = {d["path"]: d.get("pcie_link") for d in doc.get("devices", [])}
    link_mbps = {d["path"]: d.get("link_mbps") for d in doc.get("devices", [])}
    n = len(devices)
    out: dict[str, Any] = {"baseline": {}, "scaling": {}, "arrays": [], "engines": [],
                           "latency": latency(runs)}
    base: dict[str, dict[str, float]] = {}
    for wname in WORKLOADS:
        per = _baseline(runs, devices, wname)
        if not per:
            continue
        base[wname] = per
        wl = weakest_link(per)
        wl_json = wl.to_json() if wl else None
        if wl_json is not None:
            wl_json["pcie_link"] = links.get(wl_json["member"])
        out["baseline"][wname] = {
            "unit": WORKLOADS[wname].metric, "per_drive": per,
            "aggregate": sum(per.values()), "weakest_link": wl_json,
        }
        if WORKLOADS[wname].metric == "bw_bytes":
            out["baseline"][wname]["link_bound"] = link_bound(per, link_mbps)
    engines = sorted({str(r.get("engine")) for r in _find(runs, step="scaling")},
                     key=lambda e: (e != "libaio", e))
    for engine in engines:
        for wname in WORKLOADS:
            measured: dict[int, float] = {}
            for r in _find(runs, step="scaling", workload=wname, engine=engine):
                v = run_value(r)
                if v is not None:
                    measured[int(r["drives"])] = v
            if not measured:
                continue
            per = base.get(wname, {})
            # the drives' own baselines are libaio runs: other engines are
            # held to their own 1-drive point x k
            ordered = ([per[d] for d in devices if d in per]
                       if len(per) == n and engine == "libaio" else [])
            pts = scaling_points(measured, ordered)
            key = wname if engine == "libaio" else f"{wname}/{engine}"
            out["scaling"][key] = {
                "workload": wname, "engine": engine,
                "points": [p.to_json() for p in pts],
                "departs_at": departs_at(pts), "threshold": SCALING_THRESHOLD,
            }
    for group in _rounds(r for r in _find(runs, step="arrays") if r.get("kind") != "raw"):
        r = group[0]
        wname = str(r.get("workload"))
        w = WORKLOADS.get(wname)
        if w is None:
            continue
        array_engine = r.get("engine")
        raw_vals = [v for v in (run_value(x) for x in _find(
            runs, step="arrays", kind="raw", workload=wname, engine=array_engine)) if v is not None]
        raw = median(raw_vals) if raw_vals else None
        if raw is None and n and wname in base and len(base[wname]) == n:
            raw = sum(base[wname].values())
        level = int(r.get("level", 0))
        members = len(r.get("members", devices)) or n
        other = _counterpart(wname)
        rd = base.get(wname if not w.is_write else (other or ""), {})
        wr = base.get(wname if w.is_write else (other or ""), {})
        bound = raid_bound(level, members, w, min(rd.values()) if rd else None,
                           min(wr.values()) if wr else None) if level in PARITY else None
        samples = [v for v in (run_value(x) for x in group) if v is not None]
        value = median(samples) if samples else None
        bad = next((x for x in group if x.get("status") != "ok"), None)
        out["arrays"].append({
            "kind": r.get("kind"), "level": level, "workload": wname,
            "engine": array_engine, "status": "ok" if samples else r.get("status"),
            "reason": bad.get("reason") if bad else None,
            "value": value, "samples": samples, "spread": spread(samples),
            "unit": w.metric, "raw": raw, "raw_samples": raw_vals,
            "efficiency": efficiency(value, raw), "bound": bound,
            "of_bound": efficiency(value, bound),
        })
    for group in _rounds(_find(runs, step="engines")):
        r = group[0]
        samples = [v for v in (run_value(x) for x in group) if v is not None]
        p99 = [x.get("read", {}).get("clat_ns", {}).get("99") for x in group
               if x.get("status") == "ok"]
        p99 = [float(v) for v in p99 if isinstance(v, (int, float))]
        bad = next((x for x in group if x.get("status") != "ok"), None)
        out["engines"].append({
            "target": r.get("label"), "kind": r.get("kind"), "engine": r.get("engine"),
            "workload": r.get("workload"), "status": "ok" if samples else r.get("status"),
            "reason": bad.get("reason") if bad else None,
            "value": median(samples) if samples else None, "samples": samples,
            "lat_p99_ns": median(p99) if p99 else None,
        })
    return out


LATENCY_PERCENTILES = ("50", "99", "99.9")
INTERRUPT = "io_uring"  # what a polled run is held against


def latency(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The latency step, one entry per target x workload x engine: IOPS and
    completion-latency percentiles (medians over rounds), and for a polled
    entry its p50 against the same target's interrupt-driven one, for an
    array's its p50 against the raw drives' with the same workload and engine."""
    out: list[dict[str, Any]] = []
    for group in _rounds(_find(runs, step="latency")):
        r = group[0]
        w = WORKLOADS.get(str(r.get("workload")))
        ok = [x for x in group if x.get("status") == "ok"]
        samples = [v for v in (run_value(x, w) for x in ok) if v is not None]
        clat: dict[str, float | None] = {}
        for p in LATENCY_PERCENTILES:
            vals = [x.get("read", {}).get("clat_ns", {}).get(p) for x in ok]
            nums = [float(v) for v in vals if isinstance(v, (int, float))]
            clat[p] = median(nums) if nums else None
        bad = next((x for x in group if x.get("status") != "ok"), None)
        out.append({
            "target": r.get("label"), "kind": r.get("kind"), "level": r.get("level"),
            "workload": r.get("workload"), "iodepth": w.iodepth if w else None,
            "engine": r.get("engine"), "status": "ok" if samples else r.get("status"),
            "reason": bad.get("reason") if bad else None,
            "iops": median(samples) if samples else None, "samples": samples,
            "clat_ns": clat,
        })
    for e in out:
        engine = ENGINES.get(str(e["engine"]))
        polled = bool(engine and engine.hipri)
        e["polled"] = polled
        irq = next((o for o in out if o["target"] == e["target"]
                    and o["workload"] == e["workload"] and o["engine"] == INTERRUPT), None)
        raw = next((o for o in out if o["kind"] == "raw" and o["workload"] == e["workload"]
                    and o["engine"] == e["engine"]), None)
        e["p50_vs_interrupt"] = _ratio(e, irq) if polled else None
        e["p50_vs_raw"] = _ratio(e, raw) if e["kind"] != "raw" else None
    return out


def _ratio(a: dict[str, Any], b: dict[str, Any] | None) -> float | None:
    if b is None:
        return None
    x, y = a["clat_ns"].get("50"), b["clat_ns"].get("50")
    return x / y if x is not None and y else None
