# SPDX-License-Identifier: GPL-2.0
"""Parsing fio's JSON output (recorded with fio 3.33)."""

from __future__ import annotations

import json

import pytest

from bench_helpers import FIO, fio_doc
from stria.bench import fio


def test_randread_baseline_figures_match_the_recorded_json() -> None:
    doc = fio_doc("baseline-randread-4k")
    run = fio.parse(doc)
    raw = doc["jobs"][0]["read"]
    assert run.version == "fio-3.33"
    assert len(run.groups) == 1
    g = run.groups[0]
    assert g.error == 0
    assert g.read.iops == pytest.approx(raw["iops"])
    assert g.read.bw_bytes == raw["bw_bytes"]
    assert g.read.io_bytes == raw["io_bytes"]
    assert g.read.clat_ns[99.0] == raw["clat_ns"]["percentile"]["99.000000"]
    assert g.read.clat_ns[99.99] >= g.read.clat_ns[50.0] > 0
    assert g.write.iops == 0
    assert g.filename.endswith("drive0")


def test_write_job_reports_in_the_write_direction() -> None:
    run = fio.parse(fio_doc("baseline-write-1m"))
    assert run.groups[0].write.bw_bytes > 0
    assert run.groups[0].read.bw_bytes == 0
    assert 50.0 in run.groups[0].write.clat_ns


def test_one_group_per_target_and_the_total_is_their_sum() -> None:
    doc = fio_doc("scaling-3-numa")
    run = fio.parse(doc)
    assert [g.groupid for g in run.groups] == [0, 1, 2]
    iops = [j["read"]["iops"] for j in doc["jobs"]]
    total = run.total("read")
    assert total.iops == pytest.approx(sum(iops))
    assert total.bw_bytes == pytest.approx(sum(j["read"]["bw_bytes"] for j in doc["jobs"]))
    # latency of the sum is the worst group's, not an average
    assert total.clat_ns[99.0] == max(g.read.clat_ns[99.0] for g in run.groups)
    assert doc["jobs"][0]["job options"]["numa_cpu_nodes"] == "0"


def test_polled_io_on_a_file_is_an_error_fio_reports_per_job() -> None:
    run = fio.parse(fio_doc("hipri-randread-4k"))
    assert run.error == 95  # EOPNOTSUPP
    assert run.total("read").iops == 0


def test_warnings_before_the_json_are_skipped() -> None:
    text = "fio: file hash not empty on exit\n" + (FIO / "io_uring-randread-4k.json").read_text()
    doc = fio.load_json_text(text)
    assert doc["global options"]["ioengine"] == "io_uring"


@pytest.mark.parametrize("text", ["", "fio: no jobs\n", "{\"jobs\": [", json.dumps({"x": 1})])
def test_garbage_is_an_error_not_a_zero_result(text: str) -> None:
    with pytest.raises(fio.FioError):
        fio.load_json_text(text)


def test_dirstats_round_trip_through_results_json() -> None:
    d = fio.parse(fio_doc("baseline-randread-4k")).groups[0].read
    back = fio.DirStats.from_json(json.loads(json.dumps(d.to_json())))
    assert back == d
