# SPDX-License-Identifier: GPL-2.0
"""A whole run with recorded fio output and fake array backends."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from bench_helpers import FakeBackend, FakeFio, make_bench as bench, run_all
from stria.bench import arrays, results




def by_id(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in doc["runs"]}


def test_whole_quick_run(tmp_path: Path) -> None:
    fio = FakeFio(scale={"nullb2": 0.5})
    backs = {"stria": FakeBackend("stria", why="stria not available: striactl not found"),
             "md": FakeBackend("md"), "dm": FakeBackend("dm")}
    b = bench(tmp_path, fio, backs)
    doc = run_all(b)
    runs = by_id(doc)
    # 3 drives x 4 baseline workloads, scaling 2 and 3 (1 is the baseline)
    assert len([r for r in doc["runs"] if r["step"] == "baseline"]) == 12
    assert runs["scaling/1/randread-4k/libaio"]["reused"] == "baseline/nullb0/randread-4k/libaio"
    assert runs["scaling/3/randread-4k/libaio"]["drives"] == 3
    # scaling jobs are NUMA-placed per drive
    job3 = (b.out / runs["scaling/3/randread-4k/libaio"]["job_file"]).read_text()
    assert "filename=/dev/nullb1\nnuma_cpu_nodes=1\nnuma_mem_policy=bind:1" in job3
    # nullb2 was given half the IOPS: it is the weakest link
    wl = doc["analysis"]["baseline"]["randread-4k"]["weakest_link"]
    assert wl["member"] == "/dev/nullb2"
    per = doc["analysis"]["baseline"]["randread-4k"]["per_drive"]
    assert wl["bound"] == pytest.approx(per["/dev/nullb2"] * 3)
    # hipri skipped with the reason, not run
    hip = runs["engines/raw/randread-4k/io_uring-hipri"]
    assert hip["status"] == "skipped" and "io_poll is not 1 on nullb0" in hip["reason"]
    assert runs["engines/raw/randread-4k/io_uring"]["status"] == "ok"
    # md and dm were built with the same members and chunk, and torn down
    for kind in ("md", "dm"):
        assert [(s.level, s.chunk_kib, s.members) for s in backs[kind].created] == \
            [(0, 64, ["/dev/nullb0", "/dev/nullb1", "/dev/nullb2"])]
        assert backs[kind].destroyed == [f"/dev/fake-{kind}0"]
    md_rr = runs["arrays/md-r0/randread-4k/libaio"]
    assert md_rr["status"] == "ok" and md_rr["targets"] == ["/dev/fake-md0"]
    assert "numjobs=6" in (b.out / md_rr["job_file"]).read_text()  # 2 x 3 members
    assert runs["engines/md-r0/randread-4k/io_uring-hipri"]["reason"].startswith(
        "md cannot poll")
    # stria not available: said so in arrays and runs, nothing created
    st = [a for a in doc["arrays"] if a["kind"] == "stria"][0]
    assert st == {"kind": "stria", "level": 0, "status": "unavailable", "round": 1,
                  "step": "arrays", "reason": "stria not available: striactl not found"}
    assert runs["arrays/stria-r0/randread-4k/libaio"]["status"] == "skipped"
    eff = [a for a in doc["analysis"]["arrays"] if a["kind"] == "md"
           and a["workload"] == "randread-4k"][0]["efficiency"]
    assert eff == pytest.approx(md_rr["read"]["iops"] /
                                runs["arrays/raw-r0/randread-4k/libaio"]["read"]["iops"])
    saved = results.load(b.out)
    assert set(results.TOP_KEYS) <= set(saved)
    assert saved["runs"][0]["fio"]["fio version"] == "fio-3.33"


def test_hipri_runs_where_every_device_polls_and_failures_are_recorded(tmp_path: Path) -> None:
    fio = FakeFio()
    b = bench(tmp_path, fio, {}, poll={"nullb0": "1", "nullb1": "1"}, n=2)
    b.baseline()
    b.scaling()
    b.raw_engines()
    hip = by_id(b.doc)["engines/raw/randread-4k/io_uring-hipri"]
    # the recorded polled run on a file failed with EOPNOTSUPP: a failed run with its reason
    assert hip["status"] == "failed"
    assert "fio error 95" in hip["reason"] and "Operation not supported" in hip["reason"]
    assert "does not support polled I/O" in hip["reason"]
    assert any("hipri=1" in j for j in fio.jobs)


def test_arrays_are_torn_down_when_a_job_blows_up(tmp_path: Path) -> None:
    class Boom(FakeFio):
        def __call__(self, job: Path, out: Path, timeout: float) -> Any:
            if "fake-md" in job.read_text():
                raise KeyboardInterrupt
            return super().__call__(job, out, timeout)

    md = FakeBackend("md")
    b = bench(tmp_path, Boom(), {"md": md}, n=2)
    b.kinds = ("md",)
    with pytest.raises(KeyboardInterrupt):
        b.arrays()
    assert md.destroyed == ["/dev/fake-md0"]


def test_create_failure_and_too_few_members(tmp_path: Path) -> None:
    backs = {"stria": FakeBackend("stria"), "md": FakeBackend("md", fail_create=True),
             "dm": FakeBackend("dm")}
    b = bench(tmp_path, FakeFio(fail="rw=randwrite"), backs, levels=(0, 6), n=3)
    b.arrays()
    tried = {(a["kind"], a["level"]): a for a in b.doc["arrays"]}
    assert tried[("md", 0)]["status"] == "failed"
    assert "device busy" in tried[("md", 0)]["reason"]
    assert tried[("stria", 6)]["reason"] == "RAID6 needs at least 4 members, 3 given"
    assert tried[("md", 6)]["status"] == "unavailable"
    assert tried[("dm", 0)]["status"] == "ok"
    failed = [r for r in b.doc["runs"] if r["status"] == "failed"]
    assert failed and all("fio wrote no result" in r["reason"] for r in failed)


def test_planned_jobs_counts_what_quick_runs(tmp_path: Path) -> None:
    b = bench(tmp_path, FakeFio(), {k: FakeBackend(k) for k in arrays.KINDS})
    planned = b.planned_jobs()
    run_all(b)
    ran = len([r for r in b.doc["runs"] if not r.get("reused")])
    assert planned >= ran and planned - ran <= 3


def test_repeated_rounds_interleave_and_report_medians(tmp_path: Path) -> None:
    class Drifting(FakeFio):
        """Every job 10 % faster than the one before: noise the median must absorb."""

        def __call__(self, job: Path, out: Path, timeout: float) -> Any:
            doc, err = super().__call__(job, out, timeout)
            assert doc is not None
            k = 1.1 ** len(self.jobs)
            for j in doc["jobs"]:
                for d in ("read", "write"):
                    j[d]["iops"] *= k
            return doc, err

    md = FakeBackend("md")
    b = bench(tmp_path, Drifting(), {"md": md}, n=2)
    b.kinds = ("md",)
    b.repeat = 3
    b.arrays()
    assert len(md.created) == 3 and len(md.destroyed) == 3
    ids = [r["id"] for r in b.doc["runs"] if r["kind"] == "md" and r["step"] == "arrays"]
    assert ids == ["arrays/md-r0/randread-4k/libaio", "arrays/md-r0/randwrite-4k/libaio",
                   "arrays/md-r0/randread-4k/libaio#2", "arrays/md-r0/randwrite-4k/libaio#2",
                   "arrays/md-r0/randread-4k/libaio#3", "arrays/md-r0/randwrite-4k/libaio#3"]
    # raw and md alternate: raw, raw, md, md, md-engine, raw, raw, md, ...
    order = [r["kind"] for r in b.doc["runs"] if r["status"] == "ok"]
    assert order[:6] == ["raw", "raw", "md", "md", "md", "raw"]
    b.save()
    rr = [a for a in b.doc["analysis"]["arrays"] if a["workload"] == "randread-4k"][0]
    vals = [r["read"]["iops"] for r in b.doc["runs"]
            if r["id"].startswith("arrays/md-r0/randread-4k")]
    assert len(rr["samples"]) == 3 and rr["value"] == sorted(vals)[1]
    assert len(rr["raw_samples"]) == 3
    assert rr["spread"] == pytest.approx((max(vals) - min(vals)) / sorted(vals)[1])
    eng = [e for e in b.doc["analysis"]["engines"] if e["engine"] == "io_uring"][0]
    assert len(eng["samples"]) == 3
    from stria.bench import report
    assert "median of 3, spread" in report.render(b.doc)


def test_each_round_runs_every_contender_once_in_its_seeded_order(tmp_path: Path) -> None:
    backends = {k: FakeBackend(k) for k in arrays.KINDS}

    def orders(seed: int, sub: str) -> tuple[list[Any], list[str]]:
        b = bench(tmp_path / sub, FakeFio(), backends, n=2)
        b.repeat, b.seed = 6, seed
        b.arrays()
        # one randread-4k libaio run per contender and round
        ran = [r["kind"] for r in b.doc["runs"]
               if r["step"] == "arrays" and "/randread-4k/libaio" in r["id"]]
        return b.doc["orders"], ran

    got, ran = orders(11, "a")
    assert [(o["level"], o["round"]) for o in got] == [(0, r) for r in range(1, 7)]
    for o in got:
        assert sorted(o["order"]) == sorted(["raw", *arrays.KINDS])
    # the runs went in the recorded order
    assert ran == [k for o in got for k in o["order"]]
    # shuffled: not the same order in every round
    assert len({tuple(o["order"]) for o in got}) > 1
    # the seed repeats it
    assert orders(11, "b")[0] == got
    from stria.bench import report
    b = bench(tmp_path / "c", FakeFio(), backends, n=2)
    b.doc["settings"].update(seed=11, repeat=6)
    b.doc["orders"] = got
    assert "shuffled with seed 11 (`--seed 11` repeats it)" in "\n".join(report.header(b.doc))


def test_full_suite_draws_a_scaling_curve_per_engine(tmp_path: Path) -> None:
    from stria.bench import plots
    from stria.bench.suites import SUITES
    b = bench(tmp_path, FakeFio(), {}, poll={"nullb0": "1", "nullb1": "0"}, n=2)
    b.suite = SUITES["full"]
    b.baseline()
    b.scaling()
    b.raw_engines()
    runs = by_id(b.doc)
    assert runs["scaling/1/randread-4k/io_uring"]["status"] == "ok"
    assert "reused" not in runs["scaling/1/randread-4k/io_uring"]
    # polled: nullb0 polls, so 1 drive runs (and the recorded file run fails
    # with EOPNOTSUPP); with nullb1 added it cannot poll: skipped, with why
    assert runs["scaling/1/randread-4k/io_uring-hipri"]["status"] == "failed"
    two = runs["scaling/2/randread-4k/io_uring-hipri"]
    assert two["status"] == "skipped" and two["reason"] == "queue/io_poll is not 1 on nullb1"
    # the raw engine comparison reuses the N-drive scaling points
    assert runs["engines/raw/randread-4k/io_uring"]["reused"] == "scaling/2/randread-4k/io_uring"
    b.save()
    sc = b.doc["analysis"]["scaling"]
    assert sc["randread-4k/io_uring"]["engine"] == "io_uring"
    pts = sc["randread-4k/io_uring"]["points"]
    assert pts[1]["linear"] == pytest.approx(2 * pts[0]["measured"])
    assert "randread-4k/io_uring-hipri" not in sc  # no successful point
    made = plots.scaling(b.doc, tmp_path)
    assert {p.name for p in made} == {"scaling-randread-4k.png", "scaling-read-1m.png",
                                      "scaling-randwrite-4k.png", "scaling-write-1m.png"}
    from stria.bench import report
    text = report.render(b.doc)
    assert "## Scaling: randread-4k, io_uring, drives 1..N together" in text
    assert "Scaling of randread-4k with io_uring-hipri: no result (fio error 95" in text


def test_planned_jobs_for_the_full_suite(tmp_path: Path) -> None:
    from stria.bench.suites import SUITES
    b = bench(tmp_path, FakeFio(), {k: FakeBackend(k) for k in arrays.KINDS},
              poll={"nullb0": "1", "nullb1": "1", "nullb2": "1"}, levels=(0, 5))
    b.suite = SUITES["full"]
    planned = b.planned_jobs()
    run_all(b)
    ran = len([r for r in b.doc["runs"] if not r.get("reused")])
    assert abs(planned - ran) <= 3  # an ETA estimate: reuse depends on outcomes


class PolledFio(FakeFio):
    """Polled runs succeed (the recorded one, on a file, failed): answered
    with the interrupt-driven document, its latency halved."""

    def __call__(self, job: Path, out: Path, timeout: float) -> Any:
        text = job.read_text()
        polled = "hipri=1" in text
        if polled:
            alt = job.with_name("irq-" + job.name)
            alt.write_text(text.replace("hipri=1\n", ""))
            job = alt
        doc, err = super().__call__(job, out, timeout)
        assert doc is not None
        if polled:
            for j in doc["jobs"]:
                pct = j["read"]["clat_ns"]["percentile"]
                for k in pct:
                    pct[k] = pct[k] // 2
        return doc, err


def test_latency_matrix_raw_and_stria_polled_and_interrupt(tmp_path: Path) -> None:
    from stria.bench import report
    stria = FakeBackend("stria")
    fio = PolledFio()
    # the drives and the RAID0 poll; the RAID5 does not (a member that cannot)
    b = bench(tmp_path, fio, {"stria": stria},
              poll={"nullb0": "1", "nullb1": "1", "nullb2": "1", "fake-stria0": "1",
                    "fake-stria5": "0"})
    b.suite = dataclasses.replace(b.suite, latency_levels=())
    without = b.planned_jobs()
    b.suite = dataclasses.replace(b.suite, latency_levels=(0, 5))
    planned = b.planned_jobs() - without
    b.latency()
    runs = by_id(b.doc)
    ids = [r["id"] for r in b.doc["runs"]]
    assert ids[:4] == ["latency/raw/qd1/io_uring", "latency/raw/qd1/io_uring-hipri",
                       "latency/raw/qd32/io_uring", "latency/raw/qd32/io_uring-hipri"]
    assert len(ids) == 12
    # raw: each drive its own group, one job each; the array: one job per member
    raw = (b.out / runs["latency/raw/qd1/io_uring-hipri"]["job_file"]).read_text()
    assert "hipri=1" in raw and "iodepth=1\nnumjobs=1\n" in raw
    assert raw.count("filename=/dev/nullb") == 3
    arr = (b.out / runs["latency/stria-r0/qd32/io_uring"]["job_file"]).read_text()
    assert "iodepth=32\nnumjobs=3\n" in arr and "filename=/dev/fake-stria0" in arr
    assert [(s.level, s.members) for s in stria.created] == \
        [(0, ["/dev/nullb0", "/dev/nullb1", "/dev/nullb2"]),
         (5, ["/dev/nullb0", "/dev/nullb1", "/dev/nullb2"])]
    assert stria.destroyed == ["/dev/fake-stria0", "/dev/fake-stria5"]
    assert all(a["step"] == "latency" and a["status"] == "ok" for a in b.doc["arrays"])
    r5 = runs["latency/stria-r5/qd1/io_uring-hipri"]
    assert r5["status"] == "skipped" and r5["reason"] == "queue/io_poll is not 1 on fake-stria5"
    assert runs["latency/stria-r5/qd1/io_uring"]["status"] == "ok"
    assert planned == len(ids)
    b.save()
    lat = {(e["target"], e["iodepth"], e["engine"]): e for e in b.doc["analysis"]["latency"]}
    hip = lat[("stria-r0", 1, "io_uring-hipri")]
    assert hip["polled"] and hip["status"] == "ok"
    assert hip["p50_vs_interrupt"] == pytest.approx(0.5, rel=1e-3)
    assert hip["p50_vs_raw"] == pytest.approx(1.0)
    assert lat[("raw", 32, "io_uring")]["p50_vs_raw"] is None
    assert lat[("stria-r5", 1, "io_uring-hipri")]["status"] == "skipped"
    text = report.render(b.doc)
    assert "## Latency: polled (io_uring hipri) against interrupt-driven (io_uring)" in text
    assert "| stria RAID5 | 1 | polled | - | - | - | - | - | - | skipped: queue/io_poll is not " \
           "1 on fake-stria5 |" in text


def test_latency_array_that_cannot_be_built_is_skipped_with_why(tmp_path: Path) -> None:
    b = bench(tmp_path, FakeFio(), {"stria": FakeBackend("stria", fail_create=True)}, n=2)
    b.suite = dataclasses.replace(b.suite, latency_levels=(0, 5))
    b.latency()
    runs = by_id(b.doc)
    assert runs["latency/raw/qd32/io_uring"]["status"] == "ok"
    assert runs["latency/raw/qd32/io_uring-hipri"]["reason"] == \
        "queue/io_poll is not 1 on nullb0, nullb1"
    assert runs["latency/stria-r0/qd1/io_uring"]["reason"] == "create failed: mdadm: device busy"
    assert runs["latency/stria-r5/qd1/io_uring"]["reason"] == \
        "RAID5 needs at least 3 members, 2 given"
    b.save()
    from stria.bench import report
    text = report.render(b.doc)
    # the latency step's arrays are not the arrays step's
    assert "## Arrays vs the raw drives" not in text


def test_no_latency_step_without_levels(tmp_path: Path) -> None:
    b = bench(tmp_path, FakeFio(), {})
    b.suite = dataclasses.replace(b.suite, latency_levels=())
    b.latency()
    assert b.doc["runs"] == [] and b.doc["arrays"] == []
