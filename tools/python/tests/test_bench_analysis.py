# SPDX-License-Identifier: GPL-2.0
"""Efficiency, weakest link, RAID bounds and scaling departure."""

from __future__ import annotations

from typing import Any

import pytest

from stria.bench import analysis, jobs


def test_weakest_link_reproduces_seed_000() -> None:
    # 4 x 4M sequential reads, MB/s per drive; md RAID0 measured 3322 MB/s
    per = {"/dev/nvme0n1": 832.0, "/dev/nvme1n1": 1652.0, "/dev/nvme2n1": 1648.0,
           "/dev/nvme3n1": 1657.0}
    wl = analysis.weakest_link(per)
    assert wl is not None
    assert wl.member == "/dev/nvme0n1"
    assert wl.bound == 3328.0
    assert wl.fastest == 1657.0
    assert analysis.efficiency(3322.0, wl.bound) == pytest.approx(0.998, abs=1e-3)


def test_weakest_link_of_nothing() -> None:
    assert analysis.weakest_link({}) is None


@pytest.mark.parametrize("level,members,cost", [
    (0, 4, (0, 1)),
    (5, 3, (1, 2)),   # reconstruct-write: read the other data chunk
    (5, 4, (2, 2)),   # equal I/O count: fewer reads wins, read-modify-write
    (5, 8, (2, 2)),
    (6, 4, (1, 3)),
    (6, 12, (3, 3)),
])
def test_random_write_cost(level: int, members: int, cost: tuple[int, int]) -> None:
    assert analysis.random_write_cost(level, members) == cost


def test_raid_bounds() -> None:
    r, w = 100_000.0, 50_000.0
    assert analysis.raid_bound(0, 4, jobs.RANDREAD_4K, r, w) == 400_000
    assert analysis.raid_bound(0, 4, jobs.RANDWRITE_4K, r, w) == 200_000
    assert analysis.raid_bound(5, 4, jobs.RANDREAD_4K, r, w) == 400_000
    assert analysis.raid_bound(5, 4, jobs.READ_1M, 2e9, 1e9) == 6e9
    assert analysis.raid_bound(6, 4, jobs.WRITE_1M, 2e9, 1e9) == 2e9
    # RAID5, 4 members, RMW: each write = 2 reads + 2 writes on members
    per_member = 2 / r + 2 / w
    assert analysis.raid_bound(5, 4, jobs.RANDWRITE_4K, r, w) == pytest.approx(4 / per_member)
    assert analysis.raid_bound(5, 4, jobs.RANDWRITE_4K, None, w) is None
    assert analysis.raid_bound(0, 4, jobs.RANDREAD_4K, None, w) is None


def test_scaling_departs_where_seed_000_saw_it() -> None:
    # ~380K per drive, linear to 8 drives, then the second bank adds little
    measured = {k: 380_000.0 * k for k in range(1, 9)}
    measured.update({9: 3_000_000.0, 10: 3_150_000.0})  # 88 %, 83 %
    pts = analysis.scaling_points(measured, [380_000.0] * 10)
    assert [p.drives for p in pts] == list(range(1, 11))
    assert pts[7].ratio == pytest.approx(1.0)
    assert analysis.departs_at(pts) == 9
    assert analysis.departs_at(pts[:8]) is None


def test_scaling_without_baselines_uses_the_one_drive_point() -> None:
    pts = analysis.scaling_points({1: 100.0, 2: 150.0}, [])
    assert [(p.drives, p.linear) for p in pts] == [(1, 100.0), (2, 200.0)]
    assert analysis.departs_at(pts) == 2


def run(rid: str, step: str, workload: str, value: float, kind: str = "raw",
        targets: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    w = jobs.WORKLOADS[workload]
    d = {"iops": value, "bw_bytes": value}
    rec = {"id": rid, "step": step, "kind": kind, "workload": workload, "engine": "libaio",
           "targets": targets or [], "status": "ok",
           "read": d if not w.is_write else {"iops": 0, "bw_bytes": 0},
           "write": d if w.is_write else {"iops": 0, "bw_bytes": 0}}
    rec.update(kw)
    return rec


def test_analyze_a_document() -> None:
    devs = ["/dev/a", "/dev/b", "/dev/c"]
    runs = [run(f"b/{d}/rr", "baseline", "randread-4k", v, targets=[d])
            for d, v in zip(devs, (100.0, 90.0, 50.0))]
    runs += [run(f"b/{d}/rw", "baseline", "randwrite-4k", v, targets=[d])
             for d, v in zip(devs, (40.0, 40.0, 40.0))]
    runs += [run("s1", "scaling", "randread-4k", 100.0, targets=devs[:1], drives=1),
             run("s2", "scaling", "randread-4k", 185.0, targets=devs[:2], drives=2),
             run("s3", "scaling", "randread-4k", 200.0, targets=devs, drives=3),
             run("a-raw", "arrays", "randread-4k", 200.0, targets=devs),
             run("a-md", "arrays", "randread-4k", 120.0, kind="md", level=5, members=devs),
             run("a-md-w", "arrays", "randwrite-4k", 20.0, kind="md", level=5, members=devs),
             run("a-dm", "arrays", "randread-4k", 0.0, kind="dm", level=0, members=devs,
                 status="skipped", reason="dm-stripe is RAID0 only")]
    doc = {"devices": [{"path": d, "pcie_link": "Gen1 x4" if d == "/dev/c" else "Gen4 x4"}
                       for d in devs], "runs": runs}
    an = analysis.analyze(doc)
    wl = an["baseline"]["randread-4k"]["weakest_link"]
    assert (wl["member"], wl["bound"], wl["pcie_link"]) == ("/dev/c", 150.0, "Gen1 x4")
    assert an["baseline"]["randread-4k"]["aggregate"] == 240.0
    sc = an["scaling"]["randread-4k"]
    assert [p["linear"] for p in sc["points"]] == [100.0, 190.0, 240.0]
    assert sc["departs_at"] == 3
    md = [a for a in an["arrays"] if a["kind"] == "md" and a["workload"] == "randread-4k"][0]
    assert md["efficiency"] == pytest.approx(0.6)
    assert md["bound"] == 150.0 and md["of_bound"] == pytest.approx(0.8)
    mdw = [a for a in an["arrays"] if a["workload"] == "randwrite-4k"][0]
    # no raw randwrite run: raw = sum of baselines; RAID5 3 members: rcw 1R + 2W
    assert mdw["raw"] == 120.0
    assert mdw["bound"] == pytest.approx(3 / (1 / 50.0 + 2 / 40.0))
    dm = [a for a in an["arrays"] if a["kind"] == "dm"][0]
    assert dm["value"] is None and dm["efficiency"] is None and dm["status"] == "skipped"


def test_link_bound_drive_is_named() -> None:
    # seed 000: a Gen1 x4 slot (~1000 MB/s raw) under a drive reading 832 MB/s
    per = {"/dev/nvme0n1": 832e6, "/dev/nvme1n1": 1652e6}
    links: dict[str, float | None] = {"/dev/nvme0n1": 1000.0, "/dev/nvme1n1": 3938.4}
    assert analysis.link_bound(per, links) == {"/dev/nvme0n1": pytest.approx(0.832)}
    assert analysis.link_bound(per, {}) == {}
