# SPDX-License-Identifier: GPL-2.0
"""stria-bench command line.

    stria-bench run --devices DEV... [--suite quick|standard|full] [--out DIR]
                    [--levels 0,5,6] [--latency-levels 0,5] [--arrays stria,md,dm]
                    [--fio-args "..."]
                    [--no-numa] [--force]
    stria-bench report DIR
    stria-bench compare DIR1 DIR2 [-o json]

Exit codes: 0 done; 1 error (environment, files); 2 bad usage; 3 done but
some fio runs failed (see report.md); 4 a device was refused; 130
interrupted (partial results kept); 141 the output was closed (a pipe to
head).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import random
import shlex
import signal
import sys
from pathlib import Path
from typing import Any, Sequence

from .. import textout
from ..cliutil import EXIT_INTERRUPTED, EXIT_USAGE, run_main
from . import __version__, arrays, compare, devices, env, fio, jobs, report, results, safety
from .progress import Progress
from .steps import Bench
from .jobs import Timing
from .suites import SUITES

EXIT_OK, EXIT_ERROR, EXIT_RUNS_FAILED, EXIT_REFUSED = 0, 1, 3, 4
__all__ = ["EXIT_OK", "EXIT_ERROR", "EXIT_USAGE", "EXIT_RUNS_FAILED", "EXIT_REFUSED",
           "EXIT_INTERRUPTED", "build_parser", "main"]


def parse_levels(text: str) -> tuple[int, ...]:
    try:
        levels = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"levels must be like 0,5,6: {text!r}") from None
    bad = [x for x in levels if x not in arrays.MIN_MEMBERS]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown RAID level(s) {bad}: choose from 0, 5, 6")
    return levels


def seconds(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected whole seconds, 0 or more: {text!r}")
    return v


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a count of 1 or more: {text!r}")
    return v


def steady_state(text: str) -> jobs.SteadyState:
    try:
        return jobs.parse_steady_state(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def megabytes_per_s(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = 0.0
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a bandwidth in MB/s, more than 0: {text!r}")
    return v


def parse_kinds(text: str) -> tuple[str, ...]:
    kinds = tuple(x.strip() for x in text.split(",") if x.strip())
    bad = [k for k in kinds if k not in arrays.KINDS]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown array kind(s) {bad}: choose from "
                                         + ", ".join(arrays.KINDS))
    return kinds


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stria-bench",
        description="Per-drive baselines, 1..N scaling, stria vs md vs dm arrays and "
                    "I/O engines on the same drives; results.json, report.md and plots.")
    p.add_argument("--version", action="version", version=f"stria-bench {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    textout.add_output_arguments(common)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    r = sub.add_parser("run", parents=[common],
                       help="benchmark DEVICES (destroys their contents)")
    r.add_argument("--devices", nargs="+", required=True, metavar="DEV",
                   help="block devices to benchmark; everything on them is overwritten")
    r.add_argument("--suite", choices=sorted(SUITES), default="quick")
    r.add_argument("--out", type=Path, help="output folder (default ./stria-bench-TIME)")
    r.add_argument("--runtime", type=seconds, metavar="S",
                   help="measured seconds per fio job (default: the suite's)")
    r.add_argument("--ramp-time", type=seconds, metavar="S",
                   help="warm-up seconds per fio job, not measured (default: the suite's)")
    r.add_argument("--levels", type=parse_levels,
                   help="RAID levels to build, e.g. 0,5,6 (default: the suite's)")
    r.add_argument("--latency-levels", type=parse_levels, metavar="LEVELS",
                   help="stria RAID levels the latency step (QD1 and QD32 4K reads, "
                        "polled and interrupt-driven, raw drives and stria) builds, "
                        "e.g. 0,5 (default: the suite's; \"\" skips the step)")
    r.add_argument("--arrays", type=parse_kinds, default=arrays.KINDS,
                   help="array implementations to compare (default stria,md,dm)")
    r.add_argument("--fio-args", default="",
                   help="extra fio options for every job, e.g. \"--size=1g --iodepth=64\"")
    r.add_argument("--repeat", type=positive_int, default=1, metavar="N",
                   help="rounds of raw and array runs, interleaved; the report "
                        "shows medians and spread (default 1)")
    r.add_argument("--seed", type=positive_int, metavar="N",
                   help="seed of the contenders' order in each round (default: a "
                        "new one; the report gives it, and it repeats the order)")
    r.add_argument("--no-precondition", action="store_true",
                   help="no preconditioning and no steady-state test: write runs on "
                        "fresh drives then measure the drive out of the box")
    r.add_argument("--steady-state", type=steady_state, metavar="CRITERIA",
                   default=jobs.SteadyState(),
                   help="when a write run on real drives is steady: fio's METRIC:LIMIT "
                        "(iops, iops_slope, bw, bw_slope), then window=S, ramp=S and "
                        "max=S, the longest run (default "
                        f"{jobs.SteadyState().describe()})".replace("%", "%%"))
    r.add_argument("--precondition-bw", type=megabytes_per_s, metavar="MBPS",
                   help="the drives' sequential write bandwidth (MB/s) to estimate "
                        "preconditioning from (default: measured, "
                        f"{jobs.PRECONDITION_PROBE_S} s of writes)")
    r.add_argument("--no-numa", action="store_true",
                   help="do not place jobs on the drives' NUMA nodes")
    r.add_argument("--force", action="store_true",
                   help="overwrite devices holding a file system, partition table or "
                        "array membership (never a mounted one)")
    rep = sub.add_parser("report", parents=[common],
                         help="re-render report.md and plots from DIR/results.json")
    rep.add_argument("dir", type=Path)
    c = sub.add_parser("compare", parents=[common], help="differences between two runs")
    c.add_argument("dir1", type=Path)
    c.add_argument("dir2", type=Path)
    c.add_argument("-o", "--output", choices=("normal", "json"), default="normal")
    return p


def err(msg: str) -> None:
    print(f"stria-bench: {msg}", file=sys.stderr)


PLOTS_MISSING = ("no plots: matplotlib is not installed (Debian: apt install "
                 "python3-matplotlib; pip: pip install 'stria-tools[plots]'); "
                 "'stria-bench report DIR' draws them afterwards")


def render_outputs(doc: dict[str, Any], out: Path) -> list[str]:
    """report.md and the plots; the plots only when matplotlib is there."""
    try:
        from . import plots  # matplotlib takes seconds to import: only when drawing
    except ImportError as e:
        if not (e.name or "").startswith("matplotlib"):
            raise
        (out / "report.md").write_text(report.render(doc, [], PLOTS_MISSING))
        return []
    made = plots.render_all(doc, out)
    (out / "report.md").write_text(report.render(doc, made))
    return made


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM (a harness timeout, systemd stop) unwinds like Ctrl-C, so
    arrays are torn down and partial results are written."""
    raise KeyboardInterrupt


def cmd_run(a: argparse.Namespace, bench_factory: Any = Bench) -> int:
    suite = SUITES[a.suite]
    if a.runtime is not None or a.ramp_time is not None:
        if a.runtime == 0:
            err("--runtime must be at least 1 second")
            return EXIT_USAGE
        suite = dataclasses.replace(suite, timing=Timing(
            runtime=suite.timing.runtime if a.runtime is None else a.runtime,
            ramp_time=suite.timing.ramp_time if a.ramp_time is None else a.ramp_time))
    levels: tuple[int, ...] = a.levels if a.levels is not None else suite.levels
    if a.latency_levels is not None:
        suite = dataclasses.replace(suite, latency_levels=a.latency_levels)
    try:
        extra = jobs.normalize_fio_args(shlex.split(a.fio_args))
    except ValueError as e:
        err(str(e))
        return EXIT_ERROR
    verdicts = safety.check_all(a.devices)
    refused = [v for v in verdicts if not v.allowed(a.force)]
    for v in refused:
        why = "; ".join(v.fatal + ([] if a.force else v.problems))
        err(f"refusing {v.path}: {why}" + ("" if v.fatal else " (--force to overwrite)"))
    if refused:
        return EXIT_REFUSED
    if os.geteuid() != 0 and any(devices.is_block_device(p) for p in a.devices):
        err("benchmarking block devices needs root (fio opens them O_DIRECT for writing; "
            "arrays are created)")
        return EXIT_ERROR
    if fio.version() is None:
        err("fio is not installed")
        return EXIT_ERROR
    out: Path = a.out or Path(f"stria-bench-{datetime.datetime.now():%Y%m%d-%H%M%S}")
    if out.exists() and any(out.iterdir()):
        err(f"{out} exists and is not empty: choose another --out")
        return EXIT_ERROR
    out.mkdir(parents=True, exist_ok=True)
    devs = [devices.describe(p) for p in a.devices]
    environment = env.capture(list(a.devices))
    numa = not a.no_numa and bool(environment["tools"].get("fio_numa"))
    seed = a.seed or random.SystemRandom().randrange(1, 2**31)
    settings = {
        "suite": suite.name, "devices": list(a.devices), "levels": list(levels),
        "arrays": list(a.arrays), "chunk_kib": suite.chunk_kib,
        "timing": {"runtime": suite.timing.runtime, "ramp_time": suite.timing.ramp_time},
        "workloads": {"baseline": list(suite.baseline), "scaling": list(suite.scaling),
                      "arrays": list(suite.arrays), "engines": suite.engine_workload},
        "workload_params": {n: vars(w) for n, w in jobs.WORKLOADS.items()},
        "engines": list(suite.engines), "fio_args": list(extra),
        "latency": {"levels": list(suite.latency_levels),
                    "workloads": list(suite.latency_workloads),
                    "engines": list(suite.latency_engines)},
        "numa_placement": numa, "force": bool(a.force), "repeat": a.repeat, "seed": seed,
        "precondition": not a.no_precondition,
        "steady_state": None if a.no_precondition else a.steady_state.to_json(),
        "command": " ".join(shlex.quote(x) for x in sys.argv),
    }
    doc = results.new_document(settings)
    doc["environment"] = environment
    doc["devices"] = [d.to_json() for d in devs]
    doc["safety"] = [v.to_json() for v in verdicts]
    results.save(doc, out)
    bench = bench_factory(out=out, suite=suite, devs=devs, levels=levels, doc=doc,
                          extra=extra, numa=numa, kinds=tuple(a.arrays), force=bool(a.force),
                          repeat=a.repeat, seed=seed,
                          steady=None if a.no_precondition else a.steady_state)
    progress = Progress(bench.planned_jobs(), suite.job_seconds() + 1,
                        enabled=False if a.quiet else None, log=a.verbose > 0)
    bench.progress = progress
    code = EXIT_OK
    old_term = signal.signal(signal.SIGTERM, _terminate)
    writes = [w for w in (*suite.baseline, *suite.scaling, *suite.arrays)
              if jobs.WORKLOADS[w].is_write]
    try:
        if a.no_precondition:
            doc["precondition"] = {"status": "off", "reason": "--no-precondition"}
        elif not writes:
            doc["precondition"] = {"status": "not needed", "reason": "no write workload"}
        else:
            bench.precondition(lambda msg: None if a.quiet else err(msg), a.precondition_bw)
        bench.baseline()
        bench.scaling()
        bench.raw_engines()
        if levels:
            bench.arrays()
        bench.latency()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
        doc["interrupted"] = True
    finally:
        signal.signal(signal.SIGTERM, old_term)
        progress.finish()
        doc["finished"] = results.now()
        bench.save()
        made = render_outputs(doc, out)
    failed = [r["id"] for r in doc["runs"] if r["status"] == "failed"]
    if code == EXIT_OK and failed:
        code = EXIT_RUNS_FAILED
    summary = {"out": str(out), "results": str(out / "results.json"),
               "report": str(out / "report.md"), "plots": made,
               "runs": len(doc["runs"]), "failed": failed, "exit": code}
    if a.quiet:
        pass
    elif sys.stdout.isatty():
        print("\n".join(report.summary_lines(doc)))
        print(f"report: {out / 'report.md'}\nresults: {out / 'results.json'}\n"
              f"plots: {', '.join(made) or 'none'}"
              + ("" if made else f" ({PLOTS_MISSING})" if not _have_matplotlib() else "")
              + (f"\nfailed runs: {', '.join(failed)}" if failed else ""))
    else:
        print(json.dumps(summary))
    return code


def _have_matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def cmd_report(a: argparse.Namespace) -> int:
    try:
        doc = results.load(a.dir)
    except results.ResultsError as e:
        err(str(e))
        return EXIT_ERROR
    from . import analysis
    doc["analysis"] = analysis.analyze(doc)
    made = render_outputs(doc, a.dir)
    if not a.quiet:
        print(a.dir / "report.md")
        for m in made:
            print(a.dir / m)
        if not made and not _have_matplotlib():
            err(PLOTS_MISSING)
    return EXIT_OK


def cmd_compare(a: argparse.Namespace) -> int:
    try:
        da, db = results.load(a.dir1), results.load(a.dir2)
    except results.ResultsError as e:
        err(str(e))
        return EXIT_ERROR
    cmp = compare.compare(da, db)
    if a.output == "json":
        print(json.dumps(cmp, indent=1))
    else:
        textout.emit(textout.console(sys.stdout, a.color),
                     *compare.render(cmp, str(a.dir1), str(a.dir2)))
    return EXIT_OK


def glue_fio_args(argv: Sequence[str]) -> list[str]:
    """``--fio-args "--size=1g"`` -> ``--fio-args=--size=1g`` (argparse would
    take the value for an option of its own)."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--fio-args":
            nxt = next(it, None)
            out.append(arg if nxt is None else f"--fio-args={nxt}")
        else:
            out.append(arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse (usage errors exit 2), run, exit code."""
    a = build_parser().parse_args(glue_fio_args(sys.argv[1:] if argv is None else argv))

    def work() -> int:
        if a.command == "run":
            return cmd_run(a)
        if a.command == "report":
            return cmd_report(a)
        return cmd_compare(a)

    return run_main(work, "stria-bench")


if __name__ == "__main__":
    sys.exit(main())
