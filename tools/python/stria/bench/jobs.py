# SPDX-License-Identifier: GPL-2.0
"""fio workloads, engines and job files.

Every measurement is one fio job file written to the output folder, so any
run can be repeated by hand with ``fio --output-format=json FILE``.  Each
target (drive or array) is its own fio group (``new_group`` plus
``group_reporting``): fio then reports one entry per target, and the
aggregate is their sum.  Jobs are placed on the target's NUMA node with
``numa_cpu_nodes``/``numa_mem_policy`` when that node is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Latency percentiles asked of fio (fio's percentile_list uses ':').
PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0, 99.9, 99.99)


@dataclass(frozen=True)
class Workload:
    """One access pattern: fio's rw, block size, queue depth and jobs."""

    name: str
    rw: str
    bs: str
    iodepth: int
    numjobs: int

    @property
    def is_write(self) -> bool:
        return self.rw in ("write", "randwrite")

    @property
    def is_random(self) -> bool:
        return self.rw.startswith("rand")

    @property
    def metric(self) -> str:
        """The headline figure: IOPS for small random I/O, bandwidth else."""
        return "iops" if self.is_random else "bw_bytes"


RANDREAD_4K = Workload("randread-4k", "randread", "4k", 32, 2)
RANDWRITE_4K = Workload("randwrite-4k", "randwrite", "4k", 32, 2)
READ_1M = Workload("read-1m", "read", "1m", 8, 1)
WRITE_1M = Workload("write-1m", "write", "1m", 8, 1)

# the latency step's: one job per drive at QD1 and at QD32
RANDREAD_4K_QD1 = Workload("randread-4k-qd1", "randread", "4k", 1, 1)
RANDREAD_4K_QD32 = Workload("randread-4k-qd32", "randread", "4k", 32, 1)

WORKLOADS: dict[str, Workload] = {
    w.name: w for w in (RANDREAD_4K, RANDWRITE_4K, READ_1M, WRITE_1M,
                        RANDREAD_4K_QD1, RANDREAD_4K_QD32)
}


@dataclass(frozen=True)
class Engine:
    """An fio I/O engine variant."""

    name: str
    ioengine: str
    hipri: bool = False

    def options(self) -> list[str]:
        opts = [f"ioengine={self.ioengine}"]
        if self.hipri:
            opts.append("hipri=1")
        return opts


LIBAIO = Engine("libaio", "libaio")
IO_URING = Engine("io_uring", "io_uring")
IO_URING_HIPRI = Engine("io_uring-hipri", "io_uring", hipri=True)

ENGINES: dict[str, Engine] = {
    e.name: e for e in (LIBAIO, IO_URING, IO_URING_HIPRI)
}


@dataclass(frozen=True)
class Timing:
    """Seconds of measured run time and of warm-up excluded from results."""

    runtime: int
    ramp_time: int


@dataclass(frozen=True)
class SteadyState:
    """fio's steady-state test for a write run: the run ends when
    ``metric`` has stayed within ``limit`` over the last ``window`` seconds
    (after ``ramp`` seconds not looked at), or after ``limit_s`` seconds
    without it (fio's ``steadystate``, ``ss_dur``, ``ss_ramp``; the results
    say which)."""

    metric: str = "iops_slope"
    limit: str = "1%"
    window: int = 60
    ramp: int = 10
    max_s: int = 600

    @property
    def criterion(self) -> str:
        return f"{self.metric}:{self.limit}"

    def options(self) -> list[str]:
        return [f"steadystate={self.criterion}", f"ss_dur={self.window}",
                f"ss_ramp={self.ramp}"]

    def describe(self) -> str:
        return (f"{self.criterion},window={self.window},ramp={self.ramp},"
                f"max={self.max_s}")

    def to_json(self) -> dict[str, Any]:
        return {"criterion": self.criterion, "window_s": self.window, "ramp_s": self.ramp,
                "max_s": self.max_s}


SS_METRICS = ("iops", "iops_slope", "bw", "bw_slope")


def parse_steady_state(text: str) -> SteadyState:
    """``METRIC:LIMIT[,window=S][,ramp=S][,max=S]``, e.g. ``iops_slope:1%``
    or ``bw:5%,window=120,max=1800``; ValueError saying what is wrong."""
    head, *rest = text.split(",")
    metric, sep, limit = head.partition(":")
    if metric not in SS_METRICS or not sep:
        raise ValueError(f"'{text}': the criterion starts with one of "
                         f"{', '.join(SS_METRICS)}, a colon and a limit (iops_slope:1%)")
    if not re.fullmatch(r"(?:[0-9]+(?:\.[0-9]+)?)%?", limit) or float(limit.rstrip("%")) <= 0:
        raise ValueError(f"'{limit}': the limit is a positive number, or a percentage "
                         f"of the mean (1%)")
    nums = {"window": 60, "ramp": 10, "max": 600}
    for item in rest:
        key, eq, value = item.partition("=")
        if key not in nums or not eq or not value.isdigit() or \
                (int(value) == 0 and key != "ramp"):
            raise ValueError(f"'{item}': expected window=S, ramp=S or max=S "
                             f"(seconds; window and max more than 0)")
        nums[key] = int(value)
    if nums["max"] < nums["window"] + nums["ramp"]:
        raise ValueError(f"max={nums['max']} is shorter than window + ramp "
                         f"({nums['window'] + nums['ramp']} s): steady state could never "
                         f"be seen")
    return SteadyState(metric, limit, nums["window"], nums["ramp"], nums["max"])


@dataclass(frozen=True)
class Target:
    """One device a job runs against, and the NUMA node to run it on."""

    path: str
    numa_node: int | None = None

    @property
    def label(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class JobSpec:
    """Everything that defines one fio run."""

    job_id: str
    workload: Workload
    engine: Engine
    targets: tuple[Target, ...]
    timing: Timing
    numa: bool = True
    numjobs: int | None = None
    extra: tuple[str, ...] = field(default_factory=tuple)
    # a write run measured until steady state (on preconditioned drives)
    steady: SteadyState | None = None

    @property
    def runtime(self) -> int:
        """Seconds fio runs at most: with a steady-state test, its limit."""
        if self.steady is None:
            return self.timing.runtime
        return max(self.timing.runtime, self.steady.max_s)

    @property
    def effective_numjobs(self) -> int:
        return self.numjobs if self.numjobs is not None else self.workload.numjobs

    @property
    def file_name(self) -> str:
        return safe_name(self.job_id) + ".fio"


def safe_name(text: str) -> str:
    """A file-name-safe form of a job id ("baseline/nullb0/..." -> "baseline_nullb0_...")."""
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", text).strip("_")


def normalize_fio_args(args: list[str]) -> tuple[str, ...]:
    """Turn ``--size=64m`` / ``size=64m`` / ``norandommap`` into job-file lines.

    Raises ValueError on anything that is not an option (empty, or with a
    newline or section bracket that would inject a new section).
    """
    out: list[str] = []
    for arg in args:
        opt = arg.strip()
        while opt.startswith("-"):
            opt = opt[1:]
        if not opt or "\n" in opt or opt.startswith("[") or not re.match(r"^[A-Za-z_]", opt):
            raise ValueError(f"not an fio option: {arg!r}")
        out.append(opt)
    return tuple(out)


def render(spec: JobSpec) -> str:
    """The fio job file for @spec."""
    w = spec.workload
    lines = [
        f"; stria-bench job {spec.job_id}",
        f"; repeat with: fio --output-format=json {spec.file_name}",
        "[global]",
        *spec.engine.options(),
        "direct=1",
        f"rw={w.rw}",
        f"bs={w.bs}",
        f"iodepth={w.iodepth}",
        f"numjobs={spec.effective_numjobs}",
        "time_based=1",
        f"runtime={spec.runtime}",
        f"ramp_time={spec.timing.ramp_time}",
        "group_reporting=1",
        "norandommap=1",
        "randrepeat=0",
        "percentile_list=" + ":".join(f"{p:g}" for p in PERCENTILES),
        *(spec.steady.options() if spec.steady else []),
        *spec.extra,
    ]
    for i, t in enumerate(spec.targets):
        lines += ["", f"[{i}-{t.label}]", "new_group", f"filename={t.path}"]
        if spec.numa and t.numa_node is not None:
            lines += [f"numa_cpu_nodes={t.numa_node}",
                      f"numa_mem_policy=bind:{t.numa_node}"]
    return "\n".join(lines) + "\n"


# Preconditioning: the whole of each drive written twice, sequentially, in
# 128K blocks, so that a write benchmark sees the drive as it is in use
# (every block mapped, garbage collection running), not fresh from the box.
PRECONDITION_BS = "128k"
PRECONDITION_PASSES = 2
# seconds of the same writes that measure a drive's bandwidth, to say
# beforehand how long preconditioning takes
PRECONDITION_PROBE_S = 10


def render_precondition(targets: tuple[Target, ...], *, probe: bool = False,
                        numa: bool = True) -> str:
    """The fio job that fills each target twice (each its own group, all
    at once); with @probe, the same writes for PRECONDITION_PROBE_S
    seconds, to measure each target's bandwidth."""
    what = (f"{PRECONDITION_PROBE_S} s of the preconditioning writes, to measure "
            f"bandwidth" if probe else
            f"preconditioning: each drive written {PRECONDITION_PASSES} times over, "
            f"sequential {PRECONDITION_BS} writes")
    lines = [f"; stria-bench {what}", "[global]", "ioengine=libaio", "direct=1",
             "rw=write", f"bs={PRECONDITION_BS}", "iodepth=32", "numjobs=1",
             "group_reporting=1"]
    lines += ["time_based=1", f"runtime={PRECONDITION_PROBE_S}"] if probe else \
        [f"loops={PRECONDITION_PASSES}"]
    for i, t in enumerate(targets):
        lines += ["", f"[{i}-{t.label}]", "new_group", f"filename={t.path}"]
        if numa and t.numa_node is not None:
            lines += [f"numa_cpu_nodes={t.numa_node}",
                      f"numa_mem_policy=bind:{t.numa_node}"]
    return "\n".join(lines) + "\n"
