# SPDX-License-Identifier: GPL-2.0
"""The VM benchmarks' method (selftests/bench, striatest.bench): the
contenders' shuffled order, md's best setting from the sweep, the tables
rendered from kept fio JSON, and performance.rst showing the kept runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from striatest import bench

FIXTURE = Path(__file__).parent / "fixtures" / "bench-run"
CONTENDERS = ["raw", "stria0", "stria5", "stria6", "md5", "md6"]


# --- the order

@pytest.mark.parametrize("seed", [1, 42, 2**31 - 1])
def test_every_contender_runs_once_in_every_round(seed: int) -> None:
    for rnd in range(1, 11):
        o = bench.order(CONTENDERS, seed, rnd)
        assert sorted(o) == sorted(CONTENDERS)
        assert len(o) == len(set(o))


def test_the_seed_repeats_the_order() -> None:
    assert [bench.order(CONTENDERS, 7, r) for r in range(1, 6)] == \
        [bench.order(CONTENDERS, 7, r) for r in range(1, 6)]


def test_the_order_changes_between_rounds_and_seeds() -> None:
    rounds = {tuple(bench.order(CONTENDERS, 7, r)) for r in range(1, 21)}
    assert len(rounds) > 10
    seeds = {tuple(bench.order(CONTENDERS, s, 1)) for s in range(1, 21)}
    assert len(seeds) > 10
    # not a fixed rotation: every contender is first in some round
    assert {bench.order(CONTENDERS, 7, r)[0] for r in range(1, 61)} == set(CONTENDERS)


def test_the_input_list_is_not_shuffled_in_place() -> None:
    c = list(CONTENDERS)
    bench.order(c, 3, 1)
    assert c == CONTENDERS


# --- the md sweep

def test_the_best_setting_is_the_one_that_did_most() -> None:
    assert bench.best_setting({"256:0:0": 100.0, "4096:2:0": 180.0, "4096:2:1": 170.0}) \
        == "4096:2:0"


def test_a_tie_goes_to_the_earlier_setting_of_the_sweep() -> None:
    assert bench.best_setting({"4096:2:1": 100.0, "256:0:0": 100.0}) == "256:0:0"
    assert bench.best_setting({"4096:4:1": 100.0, "1024:0:0": 100.0}) == "1024:0:0"


def test_no_sweep_result_is_an_error() -> None:
    with pytest.raises(ValueError):
        bench.best_setting({})


def test_the_sweep_reads_its_kept_runs() -> None:
    assert bench.sweep(FIXTURE, "md5", "write") == {"256:0:0": 150.0, "4096:2:0": 225.0}
    assert bench.best_setting(bench.sweep(FIXTURE, "md5", "write")) == "4096:2:0"
    assert bench.best_setting(bench.sweep(FIXTURE, "md5", "randread")) == "256:0:0"


def test_md_default_is_swept_first() -> None:
    assert bench.MD_SWEEP[0] == "256:0:0"
    assert all(len(s.split(":")) == 3 for s in bench.MD_SWEEP)


# --- the guest's commands, as the benchmark's shell calls them

def test_start_order_and_best_md_record_the_run(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert bench.main(["start", str(out), "--bench", "x", "--seed", "99", "--rounds", "2",
                       "--contenders", "raw md5", "--jobs", "write"]) == 0
    assert capsys.readouterr().out.strip() == "99"
    assert bench.main(["order", str(out), "2"]) == 0
    assert capsys.readouterr().out.split() == bench.order(["raw", "md5"], 99, 2)
    for f in FIXTURE.glob("fio/sweep-md5-*-write.json"):
        shutil.copy(f, out / "fio" / f.name)
    assert bench.main(["best-md", str(out), "md5", "write"]) == 0
    assert capsys.readouterr().out.strip() == "4096:2:0"
    run = json.loads((out / "run.json").read_text())
    assert run["seed"] == 99
    assert run["orders"] == {"2": bench.order(["raw", "md5"], 99, 2)}
    assert run["md_best"] == {"md5": {"write": "4096:2:0"}}


def test_without_a_seed_start_draws_one(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["start", str(tmp_path), "--bench", "x", "--rounds", "1",
                "--contenders", "a", "--jobs", "write"])
    seed = int(capsys.readouterr().out)
    assert json.loads((tmp_path / "run.json").read_text())["seed"] == seed > 0


# --- the tables

def test_runs_are_read_from_the_kept_files() -> None:
    data = bench.runs(FIXTURE)
    assert sorted(data) == [(c, j) for c in ("md5", "raw", "stria5")
                            for j in ("randread", "write")]
    assert data[("raw", "randread")][1].iops == pytest.approx(40000.4)
    # the fio warning before the JSON is skipped
    assert data[("md5", "write")][2].mbps == pytest.approx(230)
    assert bench.member_reads(FIXTURE, "md5", "write") == {1: 601, 2: 602, 3: 603}


def test_the_table_gives_the_median_with_min_and_max() -> None:
    text = "\n".join(bench.results_lines(FIXTURE))
    assert "raw members  42000 (40000-44000)  1280 (1250-1300)  0 (0-0)" in text
    assert "md RAID5     31000 (30000-32000)  220 (200-230)     602 (601-603)" in text
    # ratios within each round: 340/220, 330/230, 345/200
    assert "stria RAID5 / md RAID5, 1M write        1.55 (1.43-1.73)" in text
    assert "stria_cache" not in text
    assert "stripe_cache_size 4096, group_thread_cnt 2, skip_copy 0  225" in text


def test_the_generated_block_states_command_seed_and_statistic() -> None:
    text = bench.render_block("raid56-nullb", FIXTURE, "fixtures/bench-run")
    assert "``selftests/run --kernel stock -v selftests/bench/raid56-nullb``" in text
    assert "STRIA_BENCH_SEED=1234" in text
    assert "round 2: stria5 md5 raw" in text
    assert "the median of the rounds, the lowest and highest" in text


def test_a_block_without_a_kept_run_says_what_makes_one(tmp_path: Path) -> None:
    text = " ".join(bench.render_block("raid0-nullb", tmp_path / "none",
                                       "x/raid0-nullb").split())
    assert "scripts/render-performance --import build/bench/stock" in text
    assert "predate" in text


def test_splice_replaces_only_its_block() -> None:
    doc = ("a\n" + bench.begin_marker("one") + "\nold\n" + bench.end_marker("one") + "\nb\n"
           + bench.begin_marker("two") + "\nkeep\n" + bench.end_marker("two") + "\n")
    assert bench.blocks(doc) == ["one", "two"]
    new = bench.splice(doc, "one", "new\n")
    assert "old" not in new and "keep" in new and new.startswith("a\n")
    assert bench.splice(new, "one", "new\n") == new
    with pytest.raises(ValueError):
        bench.splice(doc, "three", "x\n")
