# SPDX-License-Identifier: GPL-2.0
"""compare: what changed between two runs."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from bench_helpers import full_doc
from stria.bench import compare
from stria.textout import to_text


def test_the_changed_setting_and_the_changed_results(tmp_path: Path) -> None:
    a = full_doc(tmp_path / "a")
    a["settings"]["fio_args"] = []
    b = copy.deepcopy(a)
    b["settings"]["fio_args"] = ["iodepth=64"]
    b["started"] = "2030-01-01T00:00:00+00:00"
    rr = next(r for r in b["runs"] if r["id"] == "baseline/nullb0/randread-4k/libaio")
    rr["read"]["iops"] *= 1.5
    cmp = compare.compare(a, b)
    assert cmp["settings"] == [{"key": "settings.fio_args", "a": [], "b": ["iodepth=64"]}]
    res = {r["id"]: r for r in cmp["results"]}
    assert res["baseline/nullb0/randread-4k/libaio"]["change"] == pytest.approx(0.5)
    assert not res["baseline/nullb0/randread-4k/libaio"]["noise"]
    assert res["baseline/nullb1/randread-4k/libaio"]["change"] == 0
    text = to_text(compare.render(cmp, "A", "B"))
    assert "settings.fio_args  []  ['iodepth=64']" in text
    assert "+50.0 %" in text and "within noise" in text


def test_several_changes_are_called_out(tmp_path: Path) -> None:
    a = full_doc(tmp_path)
    a["settings"]["chunk_kib"] = 64
    a["environment"] = {"kernel": {"release": "6.1.0-28-amd64"}, "hostname": "x"}
    b = copy.deepcopy(a)
    b["environment"]["hostname"] = "y"  # not a setting
    b["settings"]["chunk_kib"] = 128
    b["environment"]["kernel"]["release"] = "6.12.0"
    text = to_text(compare.render(compare.compare(a, b), "A", "B"))
    assert "2 settings differ" in text


def test_long_values_are_never_cut(tmp_path: Path) -> None:
    """A command line longer than a terminal is shown whole at 80 columns
    (wrapped, or the table as blocks), with no line over 80."""
    a = full_doc(tmp_path)
    b = copy.deepcopy(a)
    long_arg = "--filename=/dev/disk/by-id/nvme-VERY_LONG_MODEL_NAME_1234567890_SERIAL_ABCDEFGH"
    a["settings"]["command"] = "stria-bench run --devices /dev/nvme0n1 " + long_arg + "-A"
    b["settings"]["command"] = "stria-bench run --devices /dev/nvme0n1 " + long_arg + "-B"
    for width in (80, 60, 40):
        text = to_text(compare.render(compare.compare(a, b), "A", "B"), width)
        assert max(len(line) for line in text.splitlines()) <= width
        assert "..." not in text and "\u2026" not in text
        joined = "".join(text.split())
        assert long_arg + "-A" in joined and long_arg + "-B" in joined


def test_flatten() -> None:
    assert compare.flatten({"a": {"b": 1, "c": [1, 2]}, "d": [{"e": 3}]}) == \
        {"a.b": 1, "a.c": [1, 2], "d[0].e": 3}
