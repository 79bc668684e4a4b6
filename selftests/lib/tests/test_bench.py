# SPDX-License-Identifier: GPL-2.0
"""The VM benchmarks' method (selftests/bench, striatest.bench): the
contenders' shuffled order, md's best setting from the sweep, the tables
rendered from kept fio JSON, and performance.rst showing the kept runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from striatest import bench, testfile
from striatest.kernels import TOP

FIXTURE = Path(__file__).parent / "fixtures" / "bench-run"
DOC = TOP / "Documentation" / "stria" / "performance.rst"
DATA = TOP / "Documentation" / "stria" / "bench-data"
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


def _bash(script: str, out: Path) -> subprocess.CompletedProcess[str]:
    """@script run in bash after selftests/bench/.lib.sh, with the guest's
    report functions stubbed and the arrays replaced by stubs that log."""
    pre = f"""
set -u
STRIA_TOP={TOP}
STRIA_OUT={out}
. {TOP}/selftests/bench/.lib.sh
diag() {{ echo "# $*" >>{out}/log; }}
not_ok() {{ echo "not ok $*" >>{out}/log; }}
check() {{ shift; "$@"; }}
setup() {{ echo "setup $1" >>{out}/log; echo /dev/$1; }}
teardown() {{ echo "teardown $1" >>{out}/log; }}
md_tune() {{ echo "md_tune $1" >>{out}/log; MD_NOW=$1; }}
"""
    return subprocess.run(["bash", "-c", pre + script], capture_output=True, text=True)


def test_the_rounds_run_each_contender_once_in_the_recorded_order(tmp_path: Path) -> None:
    p = _bash("""
ROUNDS=3 JOBS="randread write"
bench start "$STRIA_OUT" --bench x --seed 5 --rounds 3 --contenders "raw stria5 md5" \
    --jobs "$JOBS" >/dev/null
m() { echo "measure $1 $2 $3 $4" >>"$STRIA_OUT/log"; }
bench_rounds m
""", tmp_path)
    assert p.returncode == 0, p.stderr
    log = (tmp_path / "log").read_text().splitlines()
    assert not [ln for ln in log if ln.startswith("not ok")]
    run = json.loads((tmp_path / "run.json").read_text())
    for r in (1, 2, 3):
        o = bench.order(["raw", "stria5", "md5"], 5, r)
        assert run["orders"][str(r)] == o
    want = []
    for r in (1, 2, 3):
        for c in bench.order(["raw", "stria5", "md5"], 5, r):
            want += [f"setup {c}", f"measure {c} {r} randread /dev/{c}",
                     f"measure {c} {r} write /dev/{c}", f"teardown {c}"]
    assert [ln for ln in log if not ln.startswith("#")] == want


def test_the_sweep_picks_md_settings_and_the_rounds_use_them(tmp_path: Path) -> None:
    """raid56-nullb's sweep_md and measure, with fio replaced by a stub
    whose md does best at 1024:0:0 for reads and 4096:2:1 for writes."""
    p = _bash(f"""
. {TOP}/selftests/bench/raid56-nullb
CONTENDERS="raw md5" JOBS="randread write" ROUNDS=1 STRIA_BENCH_MD_SWEEP="256:0:0 1024:0:0 4096:2:1"
member_reads() {{ echo 0; }}
fio_job() {{
    local iops=100
    case ${{MD_NOW:-}}:$3 in 1024:0:0:randread | 4096:2:1:write) iops=900 ;; esac
    echo "fio_job $3 ${{MD_NOW:-}}" >>"$STRIA_OUT/log"
    printf '{{"jobs": [{{"read": {{"iops": %s, "bw_bytes": %s000000}}}}]}}\\n' $iops $iops >"$1"
}}
bench start "$STRIA_OUT" --bench x --seed 1 --rounds 1 --contenders "$CONTENDERS" \
    --jobs "$JOBS" >/dev/null
sweep_md
bench_rounds measure
""", tmp_path)
    assert p.returncode == 0, p.stderr
    log = (tmp_path / "log").read_text()
    assert "not ok" not in log, log
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["md_best"] == {"md5": {"randread": "1024:0:0", "write": "4096:2:1"}}
    # every setting was swept for every job
    assert len(list(tmp_path.glob("fio/sweep-md5-*.json"))) == 6
    assert "md5 write: best 4096:2:1" in log
    # md's rounds ran each job with its best setting
    assert (tmp_path / "fio" / "md5-r1-randread.json").exists()
    tail = log[log.index("setup md5", log.index("teardown md5")):]
    assert "md_tune 1024:0:0\nfio_job randread 1024:0:0" in tail
    assert "md_tune 4096:2:1\nfio_job write 4096:2:1" in tail
    assert bench.missing(tmp_path) == []


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


# the sign test's interval for the median, from a table of it: for n
# values, the k-th lowest and k-th highest with coverage >= 95 %
@pytest.mark.parametrize("n, k", [(6, 1), (8, 1), (9, 2), (10, 2), (11, 2), (12, 3),
                                  (15, 4), (17, 5), (20, 6)])
def test_the_median_ci_is_the_sign_tests(n: int, k: int) -> None:
    v = [float(x) for x in range(n, 0, -1)]  # unsorted on purpose
    assert bench.median_ci(v) == (float(k), float(n + 1 - k))
    assert bench.coverage(n, k) >= 0.95 > bench.coverage(n, k + 1)


def test_the_coverage_is_the_binomials() -> None:
    # 1 - 2 * (1 + 10) / 1024 for 10 values, k = 2; 1 - 2 * 576 / 32768 for 15, k = 4
    assert bench.coverage(10, 2) == pytest.approx(0.978515625)
    assert bench.coverage(15, 4) == pytest.approx(0.96484375)
    assert "2nd lowest to the 2nd highest, a confidence of 97.9%" in \
        bench.ci_coverage_text(10)
    assert "from the lowest to the highest" in bench.ci_coverage_text(6)
    assert bench.ci_coverage_text(5) == ""


@pytest.mark.parametrize("n", range(0, 6))
def test_too_few_rounds_give_no_ci(n: int) -> None:
    assert bench.median_ci([1.0] * n) is None


def test_the_ratio_table_has_a_ci_only_with_enough_rounds() -> None:
    few = "\n".join(bench.ratio_table([("a / b", [0.9, 1.0, 1.1])]))
    assert "CI of the median" not in few and "1.00 (0.90-1.10)" in few
    v = [0.8, 0.9, 0.95, 1.02, 1.05, 1.1, 1.2, 1.3, 1.4]
    many = "\n".join(bench.ratio_table([("a / b", v), ("c / d", [2.0, 3.0])]))
    assert "95% CI of the median" in many and "above 1" in many
    rows = [line.split("  ") for line in many.splitlines()]
    rows = [[c.strip() for c in r if c.strip()] for r in rows]
    assert ["a / b", "1.05 (0.80-1.40)", "0.90-1.30", "6 of 9"] in rows
    assert ["c / d", "2.50 (2.00-3.00)", "--", "2 of 2"] in rows


def test_swapped_pairs_of_rounds_give_one_ratio_each() -> None:
    a = {r: bench.Measure(v, 0.0) for r, v in {1: 110.0, 2: 90.0, 3: 100.0, 4: 100.0,
                                                5: 120.0}.items()}
    b = {r: bench.Measure(100.0, 0.0) for r in range(1, 6)}
    assert bench.paired(a, b, "randread") == [1.1, 0.9, 1.0, 1.0, 1.2]
    # round 5 has no partner: left out
    got = bench.paired(a, b, "randread", swapped_pairs=True)
    assert got == pytest.approx([(1.1 * 0.9) ** 0.5, 1.0])
    # a round missing (or without I/O) in the middle: its pair is left out,
    # and the rounds after it still pair 3 with 4, not 1 with 3
    del a[2]
    b[4] = bench.Measure(0.0, 0.0)
    b[6] = b[5]
    a[6] = bench.Measure(80.0, 0.0)
    assert bench.paired(a, b, "randread", swapped_pairs=True) == \
        pytest.approx([(1.2 * 0.8) ** 0.5])
    a[5] = bench.Measure(0.0, 0.0)
    assert bench.paired(a, b, "randread", swapped_pairs=True) == []


def test_split_writes_each_job_of_one_fio_as_its_own_output(tmp_path: Path) -> None:
    doc = {"fio version": "fio-3.33", "jobs": [
        {"jobname": "a", "read": {"iops": 100.0, "bw_bytes": 0}},
        {"jobname": "b", "read": {"iops": 90.0, "bw_bytes": 0}}]}
    (tmp_path / "pair.json").write_text(json.dumps(doc))
    outs = [tmp_path / "x.json", tmp_path / "y.json"]
    assert bench.main(["split", str(tmp_path / "pair.json"), *map(str, outs)]) == 0
    assert bench.measure(outs[0]).iops == 100.0 and bench.measure(outs[1]).iops == 90.0
    assert json.loads(outs[1].read_text())["fio version"] == "fio-3.33"
    with pytest.raises(ValueError):
        bench.split(tmp_path / "pair.json", outs[:1])


def test_a_reversed_round_records_the_order_it_ran(tmp_path: Path) -> None:
    assert bench.main(["start", str(tmp_path), "--bench", "b", "--rounds", "2",
                       "--contenders", "a b c d", "--jobs", "randread",
                       "--swapped-pairs", "--seed", "5"]) == 0
    assert bench.main(["order", str(tmp_path), "1"]) == 0
    assert bench.main(["order", str(tmp_path), "2", "--reverse-of", "1"]) == 0
    run = bench.read_run(tmp_path)
    assert run["swapped_pairs"] is True
    assert run["orders"]["2"] == list(reversed(run["orders"]["1"]))
    assert "reversed" in "\n".join(bench.describe(run))


def test_placement_splits_the_rounds_by_who_ran_first(tmp_path: Path) -> None:
    assert bench.main(["start", str(tmp_path), "--bench", "b", "--rounds", "2",
                       "--contenders", "x y", "--jobs", "randread", "--seed", "1",
                       "--ratios", "x:y:randread"]) == 0
    run = bench.read_run(tmp_path)
    run["orders"] = {"1": ["x", "y"], "2": ["y", "x"], "3": ["x", "y"]}
    bench.write_run(tmp_path, run)
    for r, (x, y) in {1: (110, 100), 2: (90, 100), 3: (120, 100)}.items():
        for c, v in (("x", x), ("y", y)):
            bench.run_file(tmp_path, c, r, "randread").write_text(json.dumps(
                {"jobs": [{"read": {"iops": v, "bw_bytes": 0}}]}))
    assert bench.placement(tmp_path) == [
        "x / y, 4K randread: x first: 1.15 (1.10-1.20) in 2 rounds; "
        "y first: 0.90 (0.90-0.90) in 1 rounds"]


def test_the_generated_block_states_command_seed_and_statistic() -> None:
    text = bench.render_block("raid56-nullb", FIXTURE, "fixtures/bench-run")
    prose = " ".join(text.split("\n\n")[0].split())
    assert "``selftests/run --kernel stock -v selftests/bench/raid56-nullb``" in prose
    assert "``STRIA_BENCH_SEED=1234``" in prose
    assert "round 2: stria5, md5, raw;" in prose
    assert "Each cell is the median of the rounds, with the lowest and highest" in prose
    assert "best setting (used in the rounds)" in text
    assert "\n".join(bench.results_lines(FIXTURE)) in text


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


def test_render_performance_check_notices_a_stale_table(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(FIXTURE, data / "raid56-nullb")
    doc = tmp_path / "doc.rst"
    doc.write_text("x\n" + bench.begin_marker("raid56-nullb") + "\nhand-copied\n"
                   + bench.end_marker("raid56-nullb") + "\n")
    cmd = [str(TOP / "scripts" / "render-performance"), "--data", str(data), str(doc)]
    assert subprocess.run(cmd + ["--check"], capture_output=True).returncode == 1
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert "4K randread IOPS" in doc.read_text()
    assert subprocess.run(cmd + ["--check"], capture_output=True).returncode == 0


def test_render_performance_imports_a_make_bench_run(tmp_path: Path) -> None:
    results = tmp_path / "bench" / "stock"
    shutil.copytree(FIXTURE, results / "bench_raid56-nullb" / "out")
    doc = tmp_path / "doc.rst"
    doc.write_text(bench.begin_marker("raid56-nullb") + "\n" + bench.end_marker("raid56-nullb")
                   + "\n")
    p = subprocess.run([str(TOP / "scripts" / "render-performance"), "--import", str(results),
                        "--data", str(tmp_path / "data"), str(doc)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "data" / "raid56-nullb" / "fio" / "md5-r1-write.json").exists()
    assert "602 (601-603)" in doc.read_text()


def test_performance_rst_shows_the_kept_runs() -> None:
    """The generated blocks of performance.rst are what the kept raw runs
    in Documentation/stria/bench-data give (or, for a benchmark with no
    kept run, the text that says so), not typed by hand."""
    doc = DOC.read_text()
    assert set(bench.blocks(doc)) >= {"raid0-nullb", "raid56-nullb", "raid0-vs-dm",
                                      "raid56-insn"}
    assert bench.render_doc(doc, DATA, "Documentation/stria/bench-data") == doc, \
        "run scripts/render-performance"


# --- the runner keeps a benchmark's output

def test_the_benchmarks_keep_their_output(tmp_path: Path) -> None:
    for name in ("raid0-nullb", "raid56-nullb", "raid0-vs-dm"):
        assert testfile.load(TOP / "selftests" / "bench" / name, TOP).keep_out
    t = tmp_path / "t"
    t.write_text("DESCRIPTION=x\n")
    assert not testfile.load(t, tmp_path).keep_out


# --- raid56-insn: instructions per I/O, not fio runs

INSN_TXT = """# Run of 2026-11-26, tree v1, kernel 6.1.0-56-amd64, 4K jobs of 96M (2 jobs).
raw-randread         49152 I/Os  kernel   14754 insns/I/O  (stria 0, raid456 0, null_blk 365, \
user 17024)  member reads/I/O 1.00
stria0-randread      49152 I/Os  kernel   15650 insns/I/O  (stria 300, raid456 0, null_blk 365, \
user 16528)  member reads/I/O 1.00
stria5-randwrite     49152 I/Os  kernel   40399 insns/I/O  (stria 3592, raid456 0, null_blk 389, \
user 16922)  member reads/I/O 2.00
dm-randread          49152 I/Os  kernel   15750 insns/I/O  (stria 0, raid456 0, null_blk 365, \
user 16687)  member reads/I/O 1.00
"""


def test_an_insn_profile_renders_its_counts(tmp_path: Path) -> None:
    (tmp_path / "insn.txt").write_text(INSN_TXT)
    text = bench.render_block("raid56-insn", tmp_path, "D/raid56-insn")
    assert "D/raid56-insn/insn.txt" in text and "Run of 2026-11-26, tree v1" in text
    assert "49152 I/Os" in text
    rows = {line.split("  ")[0]: line for line in text.splitlines()}
    assert "15650" in rows["stria RAID0"] and "40399 (2.00 reads)" in rows["stria RAID5"]
    assert "-100 (0.994 x)" in text  # stria RAID0 - dm-stripe, 4K randread


def test_an_insn_profile_with_member_writes_shows_them(tmp_path: Path) -> None:
    # mirror-insn's lines also count member writes: a mirror writes every copy
    (tmp_path / "insn.txt").write_text(
        "# Run of 2026-11-29, tree v2, kernel 6.1.0-56-amd64.\n"
        "md10n2-randread      49152 I/Os  kernel   15000 insns/I/O  (raid10 900, "
        "user 16000)  member reads/I/O 1.00  member writes/I/O 0.00\n"
        "md10n2-randwrite     49152 I/Os  kernel   21000 insns/I/O  (raid10 1500, "
        "user 16000)  member reads/I/O 0.00  member writes/I/O 2.00\n")
    text = bench.render_block("mirror-insn", tmp_path, "D/mirror-insn")
    rows = {line.split("  ")[0]: line for line in text.splitlines()}
    assert "21000 (0.00 reads, 2.00 writes)" in rows["md RAID10 near 2"]
    assert "15000" in rows["md RAID10 near 2"] and "15000 (" not in text


def profile_txt(rows: dict[str, int]) -> str:
    """A profile as stria-profile --ios writes it, its functions only."""
    lines = ["1 instructions, 1 per I/O over 1 I/Os", "", "by module:", "     %   per I/O",
             "  100.00        1  vmlinux", "", f"top {len(rows)} functions:",
             "     %   per I/O"]
    lines += [f"    1.00  {n:9d}  {f}" for f, n in rows.items()]
    return "\n".join(lines) + "\n"


def test_an_insn_profile_says_where_stria0_and_dm_differ(tmp_path: Path) -> None:
    (tmp_path / "insn.txt").write_text(INSN_TXT)
    (tmp_path / "stria0-randread.txt").write_text(profile_txt(
        {"(user)": 9000, "ktime_get": 268, "stria_rq_to_member [stria]": 113,
         "sbitmap_get": 193, "noise_a": 17, "noise_b": 3}))
    (tmp_path / "dm-randread.txt").write_text(profile_txt(
        {"(user)": 5000, "ktime_get": 191, "dm_submit_bio [dm_mod]": 144,
         "sbitmap_get": 93, "noise_a": 9, "noise_b": 1}))
    text = bench.render_block("raid56-insn", tmp_path, "D")
    rows = {line.split("  ")[0].strip(): line.split()[-1] for line in text.splitlines()
            if line.startswith(("``", "sum"))}
    assert rows["``sbitmap_get``"] == "+100" and rows["``dm_submit_bio [dm_mod]``"] == "-144"
    assert "``noise_a``" not in rows  # 8 per I/O: in neither the table nor the sum
    # 77 + 113 + 100 - 144; (user) is not the kernel's
    assert rows["sum of all differing by 10 or more"] == "+146"


def test_an_insn_profile_cut_too_short_is_not_compared(tmp_path: Path) -> None:
    (tmp_path / "insn.txt").write_text(INSN_TXT)
    (tmp_path / "stria0-randread.txt").write_text(profile_txt({"ktime_get": 268, "x": 40}))
    (tmp_path / "dm-randread.txt").write_text(profile_txt({"ktime_get": 191, "y": 2}))
    text = bench.render_block("raid56-insn", tmp_path, "D")
    assert "too few functions to compare" in text and "sum of all" not in text
