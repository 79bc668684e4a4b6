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
        f"runtime={spec.timing.runtime}",
        f"ramp_time={spec.timing.ramp_time}",
        "group_reporting=1",
        "norandommap=1",
        "randrepeat=0",
        "percentile_list=" + ":".join(f"{p:g}" for p in PERCENTILES),
        *spec.extra,
    ]
    for i, t in enumerate(spec.targets):
        lines += ["", f"[{i}-{t.label}]", "new_group", f"filename={t.path}"]
        if spec.numa and t.numa_node is not None:
            lines += [f"numa_cpu_nodes={t.numa_node}",
                      f"numa_mem_policy=bind:{t.numa_node}"]
    return "\n".join(lines) + "\n"
