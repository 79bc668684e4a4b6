# SPDX-License-Identifier: GPL-2.0
"""The method of the VM benchmarks (selftests/bench/raid0-nullb and
raid56-nullb), and the tables of Documentation/stria/performance.rst
rendered from what a run of them keeps.

A run keeps, in its output directory ($STRIA_OUT in the guest):

``run.json``
    the benchmark's name, what it measures, the seed of the contenders'
    order and the order each round ran in, the md settings the sweep
    chose, the kernel, the tree, the date;
``fio/CONTENDER-rROUND-JOB.json``
    fio's JSON output of every measured run, one per contender x round x
    job, untouched;
``fio/CONTENDER-rROUND-JOB.member-reads``
    the read requests the members served during that run (where counted);
``fio/sweep-CONTENDER-SETTING-JOB.json``
    fio's JSON output of every run of md's settings sweep.

The guest half runs as ``python3 -m striatest.bench COMMAND OUT ...`` from
the benchmark's shell (start, order, best-md, summary, complete); the
host half (render_block, splice) is scripts/render-performance's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import random
import re
import statistics
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from stria.bench import fio

from . import docblock, locks

RUN = "run.json"
FIO = "fio"

# what the contenders are called in the tables
NAMES = {
    "raw": "raw members", "stria0": "stria RAID0", "stria5": "stria RAID5",
    "stria6": "stria RAID6", "md0": "md raid0", "md5": "md RAID5", "md6": "md RAID6",
    "dm": "dm-stripe", "dm_ctl1": "dm-stripe (control, 1)",
    "dm_ctl2": "dm-stripe (control, 2)",
    "stria5_nospread": "stria RAID5, spread_writes=0",
    "stria6_nospread": "stria RAID6, spread_writes=0",
    "md1": "md RAID1 (4 members)", "md1x2": "md RAID1 (2 members)",
    "md10n2": "md RAID10 near 2", "md10f2": "md RAID10 far 2",
    "md10o2": "md RAID10 offset 2", "dmmirror": "dm-mirror (2 members)",
    "stria1": "stria RAID1 (4 members)", "stria1x2": "stria RAID1 (2 members)",
    "stria10n2": "stria RAID10 near 2", "stria10f2": "stria RAID10 far 2",
    "stria10o2": "stria RAID10 offset 2",
}
# what the jobs are called in the tables, and the unit of their cells
JOBS = {
    "randread": ("4K randread", "IOPS"), "randwrite": ("4K randwrite", "IOPS"),
    "write": ("1M write", "MB/s"),
    "write1": ("1M write, 1 job", "MB/s"),
    "write1u": ("1M write, 1 job, 4K-unaligned", "MB/s"),
}

# md RAID5/6's settings swept before the rounds: stripe_cache_size,
# group_thread_cnt, skip_copy (md's own default first)
MD_KNOBS = ("stripe_cache_size", "group_thread_cnt", "skip_copy")
MD_SWEEP = ("256:0:0", "1024:0:0", "4096:0:0", "4096:2:0", "4096:2:1", "4096:4:1")


# --- the order of the contenders

def order(contenders: Sequence[str], seed: int, rnd: int) -> list[str]:
    """The contenders in the order round @rnd of a run seeded @seed runs
    them: a permutation, each contender once, the same for the same seed
    and round, and independent between rounds."""
    out = list(contenders)
    random.Random(f"{seed}:{rnd}").shuffle(out)
    return out


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


# --- fio's JSON output

@dataclass
class Measure:
    iops: float
    mbps: float


def load_fio(path: Path) -> dict[str, Any]:
    """fio's JSON output (stria-bench's reader: fio may print warnings
    before the JSON itself); ValueError when there is none."""
    try:
        return fio.load_json_text(path.read_text())
    except fio.FioError as e:
        raise ValueError(f"{path}: {e}") from None


def measure(path: Path) -> Measure:
    """IOPS and MB/s (10^6 bytes) of a fio run with group_reporting: reads
    and writes together."""
    jobs = load_fio(path).get("jobs") or []
    if not jobs:
        raise ValueError(f"{path}: no jobs in fio's output")
    iops = bw = 0.0
    for j in jobs:
        for d in ("read", "write"):
            iops += float(j.get(d, {}).get("iops", 0))
            bw += float(j.get(d, {}).get("bw_bytes", 0))
    return Measure(iops, bw / 1e6)


def value(m: Measure, job: str) -> float:
    """What the tables show of a run of @job: IOPS, or MB/s for 1M."""
    return m.mbps if JOBS.get(job, ("", "IOPS"))[1] == "MB/s" else m.iops


# --- a run's output directory

def read_run(out: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((out / RUN).read_text())
    return doc


def write_run(out: Path, run: dict[str, Any]) -> None:
    tmp = out / (RUN + ".tmp")
    tmp.write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")
    tmp.replace(out / RUN)


def run_file(out: Path, contender: str, rnd: int, job: str, ext: str = "json") -> Path:
    return out / FIO / f"{contender}-r{rnd}-{job}.{ext}"


def sweep_file(out: Path, contender: str, setting: str, job: str) -> Path:
    return out / FIO / f"sweep-{contender}-{setting.replace(':', '-')}-{job}.json"


def runs(out: Path) -> dict[tuple[str, str], dict[int, Measure]]:
    """Every kept measured run: (contender, job) -> round -> Measure."""
    res: dict[tuple[str, str], dict[int, Measure]] = {}
    for f in sorted((out / FIO).glob("*-r*-*.json")):
        m = re.fullmatch(r"(?!sweep-)(\w+)-r(\d+)-(\w+)\.json", f.name)
        if m:
            res.setdefault((m.group(1), m.group(3)), {})[int(m.group(2))] = measure(f)
    return res


def member_reads(out: Path, contender: str, job: str) -> dict[int, int]:
    res = {}
    pat = re.compile(rf"{re.escape(contender)}-r(\d+)-{re.escape(job)}\.member-reads")
    for f in (out / FIO).glob(f"{contender}-r*-{job}.member-reads"):
        m = pat.fullmatch(f.name)
        if m:
            res[int(m.group(1))] = int(f.read_text().split()[0])
    return res


def sweep(out: Path, contender: str, job: str) -> dict[str, float]:
    """md's sweep for @contender and @job: setting -> what the table shows."""
    res = {}
    pat = re.compile(rf"sweep-{re.escape(contender)}-(\d+)-(\d+)-(\d+)-{re.escape(job)}\.json")
    for f in (out / FIO).glob(f"sweep-{contender}-*-{job}.json"):
        m = pat.fullmatch(f.name)
        if m:
            res[":".join(m.groups())] = value(measure(f), job)
    return res


def best_setting(results: dict[str, float]) -> str:
    """The setting whose run did most; on a tie the first in MD_SWEEP order
    (md's default first), then by name."""
    if not results:
        raise ValueError("no sweep results")
    rank = {s: i for i, s in enumerate(MD_SWEEP)}
    return min(results, key=lambda s: (-results[s], rank.get(s, len(rank)), s))


def setting_text(setting: str) -> str:
    return ", ".join(f"{k} {v}" for k, v in zip(MD_KNOBS, setting.split(":")))


# --- statistics

def med_range(v: Sequence[float]) -> tuple[float, float, float]:
    return statistics.median(v), min(v), max(v)


# the confidence of the interval given for a median of ratios, and the
# fewest rounds that can give it
CI_LEVEL = 0.95
CI_MIN_ROUNDS = 6


def median_ci(v: Sequence[float], level: float = CI_LEVEL) -> tuple[float, float] | None:
    """A distribution-free confidence interval for the median of what
    @v samples: the k-th lowest and k-th highest values, with the largest k
    whose coverage, 1 - 2 P(Binomial(n, 1/2) < k), is at least @level
    (the interval of the sign test; it assumes only that the values are
    independent draws of one distribution). None when there are too few
    values for @level (fewer than 6 for 95 %)."""
    n = len(v)
    k = ci_rank(n, level)
    if k is None:
        return None
    xs = sorted(v)
    return xs[k - 1], xs[n - k]


def ci_rank(n: int, level: float = CI_LEVEL) -> int | None:
    """The k of median_ci() for @n values: the largest whose coverage is at
    least @level (coverage falls as k grows), or None."""
    ks = [k for k in range(1, (n + 1) // 2 + 1) if coverage(n, k) >= level]
    return max(ks) if ks else None


def coverage(n: int, k: int) -> float:
    """The confidence of [k-th lowest, k-th highest] of @n independent
    values as an interval for their distribution's median."""
    return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2.0 ** n


def paired(a: dict[int, Measure], b: dict[int, Measure], job: str,
           swapped_pairs: bool = False) -> list[float]:
    """The ratios a / b within each round both ran in (and did I/O); with
    @swapped_pairs, within each pair of rounds 2k-1 and 2k (the second
    ran the first's order reversed): the geometric mean of their two
    ratios, in which whatever favours the first-placed contender of a
    round counts once for each side."""
    per = {r: value(a[r], job) / value(b[r], job) for r in sorted(a)
           if r in b and value(a[r], job) and value(b[r], job)}
    if not swapped_pairs:
        return list(per.values())
    return [math.sqrt(per[r] * per[r + 1]) for r in sorted(per)
            if r % 2 == 1 and r + 1 in per]


def _num(x: float) -> str:
    return f"{x:.0f}"


def cell(v: Sequence[float]) -> str:
    if not v:
        return "--"
    m, lo, hi = med_range(v)
    return f"{_num(m)} ({_num(lo)}-{_num(hi)})"


def ratio_cell(v: Sequence[float]) -> str:
    if not v:
        return "--"
    m, lo, hi = med_range(v)
    return f"{m:.2f} ({lo:.2f}-{hi:.2f})"


# how the order of an even round of a run with swapped pairs came about
REVERSED = ", each even round in that of the round before, reversed"
SWAP_TEXT = ("Each even round ran the order of the round before it reversed, and "
             "each ratio is taken over each such pair of rounds, as the geometric "
             "mean of its two rounds' ratios of the two contenders (so that whatever "
             "favours the contender placed first counts once for each side), then "
             "the median of the pairs")
CI_TEXT = (f"The {CI_LEVEL:.0%} confidence interval of a ratio's median is that of "
           "the sign test (from the ratios ranked: the k-th lowest to the k-th "
           "highest, k the largest that keeps the confidence; it assumes only that "
           "the ratios are independent).")


def ci_coverage_text(n: int) -> str:
    """What confidence the interval of @n ratios has exactly (the order
    statistics give steps, so at least CI_LEVEL)."""
    k = ci_rank(n)
    if k is None:
        return ""
    nth = "" if k == 1 else {2: "2nd ", 3: "3rd "}.get(k, f"{k}th ")
    return (f"With {n} ratios the interval runs from the {nth}lowest to the "
            f"{nth}highest, a confidence of {coverage(n, k):.1%}.")


def ratio_count(run: dict[str, Any]) -> int:
    """How many ratios a complete run gives each pair of contenders."""
    n = int(run["rounds"])
    return n // 2 if run.get("swapped_pairs") else n


def ci_cell(v: Sequence[float]) -> str:
    ci = median_ci(v)
    return f"{ci[0]:.2f}-{ci[1]:.2f}" if ci else "--"


def above_cell(v: Sequence[float]) -> str:
    return f"{sum(1 for x in v if x > 1)} of {len(v)}"


# --- the text a run reports (bench.txt) and its tables

def ratio_table(rows: Sequence[tuple[str, Sequence[float]]],
                title: str = "ratio within each round") -> list[str]:
    """The table of ratios within each round: label and the ratio of
    every round. With enough rounds for it (CI_MIN_ROUNDS), it also gives
    the 95 % confidence interval of the median and how many ratios were
    above 1."""
    if not any(len(v) >= CI_MIN_ROUNDS for _, v in rows):
        return table([title, "median (min-max)"],
                     [[label, ratio_cell(v)] for label, v in rows])
    return table([title, "median (min-max)",
                  f"{CI_LEVEL:.0%} CI of the median", "above 1"],
                 [[label, ratio_cell(v), ci_cell(v), above_cell(v)] for label, v in rows])


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """An RST simple table."""
    w = [max(len(headers[i]), *(len(r[i]) for r in rows)) for i in range(len(headers))]
    rule = "  ".join("=" * x for x in w)

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(x) for c, x in zip(cells, w)).rstrip()
    return [rule, line(headers), rule, *(line(r) for r in rows), rule]


def ratios(run: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """The ratios a benchmark reports: (label, numerator, denominator,
    job)."""
    out = []
    for num, den, job in run.get("ratios", []):
        out.append((f"{NAMES.get(num, num)} / {NAMES.get(den, den)}, "
                    f"{JOBS.get(job, (job,))[0]}", num, den, job))
    return out


def results_lines(out: Path) -> list[str]:
    """The tables of a run: the medians of every contender and job, with
    min-max, the ratios within each round, md's sweep; RST."""
    run = read_run(out)
    data = runs(out)
    jobs = list(run["jobs"])
    contenders = list(run["contenders"])
    counted = [j for j in jobs if any(member_reads(out, c, j) for c in contenders)]
    headers = ["contender"] + [f"{JOBS.get(j, (j, ''))[0]} {JOBS.get(j, ('', 'IOPS'))[1]}"
                               for j in jobs]
    headers += [f"member reads, {JOBS.get(j, (j,))[0]}" for j in counted]
    rows = []
    for c in contenders:
        row = [NAMES.get(c, c)]
        row += [cell([value(m, j) for m in data.get((c, j), {}).values()]) for j in jobs]
        row += [cell([float(x) for x in member_reads(out, c, j).values()]) for j in counted]
        rows.append(row)
    lines = table(headers, rows)
    rat = ratios(run)
    if rat:
        sp = bool(run.get("swapped_pairs"))
        lines += ["", *ratio_table([(label, paired(data.get((a, j), {}),
                                                   data.get((b, j), {}), j, sp))
                                    for label, a, b, j in rat],
                                   "ratio within each pair of rounds" if sp else
                                   "ratio within each round")]
    best = run.get("md_best") or {}
    if best:
        rows = []
        for c in sorted(best):
            for j in jobs:
                if j not in best[c]:
                    continue
                sw = sweep(out, c, j)
                won = best[c][j]
                rows.append([NAMES.get(c, c), JOBS.get(j, (j,))[0], setting_text(won),
                             _num(sw[won]) if won in sw else "--",
                             ", ".join(f"{s} {_num(v)}" for s, v in
                                       sorted(sw.items(), key=lambda x: -x[1]))])
        lines += ["", *table(["md", "job", "best setting (used in the rounds)", "best",
                              "every setting swept (scs:gtc:skip_copy value)"], rows)]
    return lines


def describe(run: dict[str, Any]) -> list[str]:
    """What the run was, in words: the command, seed and orders."""
    orders = run.get("orders") or {}
    lines = [
        f"Run of {run.get('date', '?')}, tree {run.get('tree') or 'unknown'}, kernel "
        f"{run.get('kernel', '?')}: {run.get('describe', '')}",
        f"{run['rounds']} round{'s' if int(run['rounds']) != 1 else ''}; in each "
        f"{'odd ' if run.get('swapped_pairs') else ''}round the contenders ran in an "
        f"order shuffled with seed {run['seed']} (STRIA_BENCH_SEED={run['seed']} "
        "repeats it)" + (REVERSED if run.get("swapped_pairs") else "") + ":",
    ]
    lines += [f"  round {r}: {' '.join(orders[r])}"
              for r in sorted(orders, key=int)]
    if run.get("md_best"):
        lines.append("md's settings were swept before the rounds (each for "
                     f"{run.get('sweep_runtime', '?')} s a job); each md job ran its "
                     "rounds with the best.")
    if run.get("swapped_pairs"):
        lines.append("Each cell: the median of the rounds, the lowest and highest in "
                     "brackets. " + SWAP_TEXT + ".")
    else:
        lines.append("Each cell: the median of the rounds, the lowest and highest in "
                     "brackets; ratios: of the two contenders within each round, then "
                     "the median of the rounds.")
    if ratio_count(run) >= CI_MIN_ROUNDS:
        lines.append(CI_TEXT + " " + ci_coverage_text(ratio_count(run)))
    return lines


def summary(out: Path) -> str:
    return "\n".join(describe(read_run(out)) + [""] + results_lines(out)) + "\n"


def missing(out: Path) -> list[str]:
    """The contender x round x job runs that a complete run has and this
    one lacks (or whose fio did no I/O)."""
    run = read_run(out)
    bad = []
    for r in range(1, int(run["rounds"]) + 1):
        for c in run["contenders"]:
            for j in run["jobs"]:
                f = run_file(out, c, r, j)
                try:
                    ok = measure(f).iops > 0
                except (OSError, ValueError):
                    ok = False
                if not ok:
                    bad.append(f.name)
    return bad


# --- performance.rst

def begin_marker(name: str) -> str:
    return f".. bench-begin {name} (scripts/render-performance writes what follows)"


def end_marker(name: str) -> str:
    return f".. bench-end {name}"


def blocks(doc: str) -> list[str]:
    """The names of the generated blocks of @doc, in order."""
    return re.findall(r"^\.\. bench-begin (\S+) ", doc, re.M)


def render_block(name: str, data: Path, data_shown: str) -> str:
    """The generated text of benchmark @name from its kept run in @data
    (shown in the text as @data_shown), or what to run when there is none."""
    cmd = f"selftests/run --kernel stock -v selftests/bench/{name}"
    if not (data / RUN).exists() and (data / "insn.txt").exists():
        from . import insn  # a profile (raid56-insn): counts, not fio runs
        return insn.render_block(name, data, data_shown)
    if not (data / RUN).exists():
        return textwrap.fill(
            f"No run of ``{name}`` is kept yet, so there is no generated table here. "
            f"To make one: ``make bench`` (or ``{cmd}``), then ``scripts/render-performance "
            "--import build/bench/stock`` (or ``build/results/stock`` after "
            f"``selftests/run``), which copies the run's raw fio output to ``{data_shown}`` "
            "and writes its tables here. The figures below this block predate the "
            "generated tables: they were copied by hand from runs whose raw output was "
            "not kept.", width=76, break_long_words=False, break_on_hyphens=False) + "\n"
    run = read_run(data)
    orders = run.get("orders") or {}
    text = (f"Generated by ``scripts/render-performance`` from the raw fio output of "
            f"``{cmd}`` kept in ``{data_shown}`` (one fio JSON file per contender, round "
            f"and job). Run of {run.get('date', '?')}, tree "
            f"{run.get('tree') or 'unknown'}, kernel {run.get('kernel', '?')}: "
            f"{run.get('describe', '')}. {run['rounds']} "
            f"round{'s' if int(run['rounds']) != 1 else ''}, each running every "
            "contender once, "
            f"{'each odd round ' if run.get('swapped_pairs') else ''}in an order "
            f"shuffled with seed {run['seed']} "
            f"(``STRIA_BENCH_SEED={run['seed']}`` repeats it)"
            + (REVERSED if run.get("swapped_pairs") else "") + ": "
            + "; ".join(f"round {r}: {', '.join(orders[r])}"
                        for r in sorted(orders, key=int)) + ".")
    if run.get("md_best"):
        text += (" md's settings were swept before the rounds, each for "
                 f"{run.get('sweep_runtime', '?')} s a job, and each md job ran its "
                 "rounds with the setting that did best for it (last table).")
    text += (" Each cell is the median of the rounds, with the lowest and highest "
             "round in brackets; ")
    if run.get("swapped_pairs"):
        text += SWAP_TEXT[0].lower() + SWAP_TEXT[1:] + " (with the lowest and highest)."
    else:
        text += ("each ratio is that of the two contenders within each round, then "
                 "the median of the rounds, with the lowest and highest.")
    if ratio_count(run) >= CI_MIN_ROUNDS:
        text += " " + CI_TEXT + " " + ci_coverage_text(ratio_count(run))
    lines = [textwrap.fill(text, width=76, break_long_words=False, break_on_hyphens=False),
             ""] + results_lines(data)
    return "\n".join(lines) + "\n"


def splice(doc: str, name: str, text: str) -> str:
    """@doc with block @name's text replaced by @text."""
    return docblock.splice(doc, begin_marker(name), end_marker(name), text)


def render_doc(doc: str, data_root: Path, shown_root: str) -> str:
    """@doc with every generated block rendered from @data_root/NAME."""
    for name in blocks(doc):
        render = locks.render_block if name == locks.BENCH else render_block
        doc = splice(doc, name, render(name, data_root / name, f"{shown_root}/{name}"))
    return doc


# --- the guest's commands

def _start(a: argparse.Namespace) -> int:
    out = Path(a.out)
    (out / FIO).mkdir(parents=True, exist_ok=True)
    seed = int(a.seed) if a.seed else new_seed()
    ratios_ = [r.split(":") for r in a.ratios.split()] if a.ratios else []
    write_run(out, {
        "bench": a.bench, "describe": a.describe, "seed": seed, "rounds": a.rounds,
        "contenders": a.contenders.split(), "jobs": a.jobs.split(), "ratios": ratios_,
        "orders": {}, "md_best": {}, "sweep_runtime": a.sweep_runtime,
        "swapped_pairs": a.swapped_pairs,
        "kernel": a.kernel, "tree": a.tree,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    })
    print(seed)
    return 0


def _order(a: argparse.Namespace) -> int:
    out = Path(a.out)
    run = read_run(out)
    if a.reverse_of:
        o = list(reversed(run["orders"][str(a.reverse_of)]))
    else:
        o = order(run["contenders"], int(run["seed"]), a.round)
    run["orders"][str(a.round)] = o
    write_run(out, run)
    print(" ".join(o))
    return 0


def _best_md(a: argparse.Namespace) -> int:
    out = Path(a.out)
    won = best_setting(sweep(out, a.contender, a.job))
    run = read_run(out)
    run["md_best"].setdefault(a.contender, {})[a.job] = won
    write_run(out, run)
    print(won)
    return 0


def placement(out: Path) -> list[str]:
    """For each ratio a / b of the run in @out: its median over the rounds
    where a ran before b in the round's order (so, in raid0-vs-dm, was
    placed first: on nullb0-3, set up and named first) and over those where b
    did; what placement alone does shows in the control's."""
    run = read_run(out)
    data = runs(out)
    lines = []
    for label, a, b, j in ratios(run):
        first: dict[bool, list[float]] = {True: [], False: []}
        for r, o in (run.get("orders") or {}).items():
            ra, rb = data.get((a, j), {}).get(int(r)), data.get((b, j), {}).get(int(r))
            if a in o and b in o and ra and rb and value(ra, j) and value(rb, j):
                first[o.index(a) < o.index(b)].append(value(ra, j) / value(rb, j))
        lines.append(f"{label}: {NAMES.get(a, a)} first: {ratio_cell(first[True])} "
                     f"in {len(first[True])} rounds; {NAMES.get(b, b)} first: "
                     f"{ratio_cell(first[False])} in {len(first[False])} rounds")
    return lines


def split(combined: Path, outs: Sequence[Path]) -> None:
    """Write fio's JSON output @combined of a run of several jobs (without
    group_reporting), one file of @outs for each of its jobs in order,
    each as fio would have written it for that job alone."""
    doc = load_fio(combined)
    jobs = doc.get("jobs") or []
    if len(jobs) != len(outs):
        raise ValueError(f"{combined}: {len(jobs)} jobs in fio's output, "
                         f"{len(outs)} files to write")
    for job, out in zip(jobs, outs):
        one = dict(doc)
        one["jobs"] = [job]
        out.write_text(json.dumps(one, indent=1) + "\n")


def _split(a: argparse.Namespace) -> int:
    split(Path(a.combined), [Path(o) for o in a.outs])
    return 0


def _placement(a: argparse.Namespace) -> int:
    print("\n".join(placement(Path(a.out))))
    return 0


def _summary(a: argparse.Namespace) -> int:
    sys.stdout.write(summary(Path(a.out)))
    return 0


def _complete(a: argparse.Namespace) -> int:
    bad = missing(Path(a.out))
    for f in bad:
        print(f"missing or no I/O: {f}")
    return 1 if bad else 0


def _md_settings(a: argparse.Namespace) -> int:
    print(" ".join(MD_SWEEP))
    return 0


def _value(a: argparse.Namespace) -> int:
    m = measure(Path(a.file))
    print(f"{m.iops:.0f} {m.mbps:.0f}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m striatest.bench")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("start", help="begin a run: write OUT/run.json, print the seed")
    p.add_argument("out")
    p.add_argument("--bench", required=True)
    p.add_argument("--describe", default="")
    p.add_argument("--seed", default="", help="empty: a new random seed")
    p.add_argument("--rounds", type=int, required=True)
    p.add_argument("--contenders", required=True)
    p.add_argument("--jobs", required=True)
    p.add_argument("--ratios", default="", help="NUM:DEN:JOB ...")
    p.add_argument("--sweep-runtime", type=int, default=0)
    p.add_argument("--swapped-pairs", action="store_true",
                   help="every even round runs the order of the round before it reversed; "
                   "a ratio is taken over each such pair of rounds")
    p.add_argument("--kernel", default="")
    p.add_argument("--tree", default="")
    p.set_defaults(fn=_start)
    p = sub.add_parser("order", help="print (and record) the order of round ROUND")
    p.add_argument("out")
    p.add_argument("round", type=int)
    p.add_argument("--reverse-of", type=int, default=0,
                   help="the order of that (earlier) round, reversed")
    p.set_defaults(fn=_order)
    p = sub.add_parser("best-md", help="print (and record) the best swept md setting")
    p.add_argument("out")
    p.add_argument("contender")
    p.add_argument("job")
    p.set_defaults(fn=_best_md)
    p = sub.add_parser("summary", help="the run's tables, as text")
    p.add_argument("out")
    p.set_defaults(fn=_summary)
    p = sub.add_parser("split", help="fio's output of several jobs, a file per job")
    p.add_argument("combined")
    p.add_argument("outs", nargs="+")
    p.set_defaults(fn=_split)
    p = sub.add_parser("placement", help="each ratio's median by which contender ran first")
    p.add_argument("out")
    p.set_defaults(fn=_placement)
    p = sub.add_parser("complete", help="exit 1 when a contender x round x job is missing")
    p.add_argument("out")
    p.set_defaults(fn=_complete)
    p = sub.add_parser("md-settings", help="the md settings swept (SCS:GTC:SKIP ...)")
    p.set_defaults(fn=_md_settings)
    p = sub.add_parser("value", help="IOPS and MB/s of a fio JSON file")
    p.add_argument("file")
    p.set_defaults(fn=_value)
    a = ap.parse_args(argv)
    rc: int = a.fn(a)
    return rc


if __name__ == "__main__":
    sys.exit(main())
