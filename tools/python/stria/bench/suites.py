# SPDX-License-Identifier: GPL-2.0
"""What each suite runs.

quick    a smoke run: seconds per job (fits a TCG VM in ~2-3 minutes on
         3 null_blk devices); numbers are indicative only
standard the whole method at a useful length (30 s per job)
full     every workload in every step, 60 s per job, RAID0/5/6, and the
         scaling curve for each engine (libaio, io_uring, polled)

Each also runs the latency step: 4K random reads at QD1 and QD32, polled
(io_uring hipri) and interrupt-driven (io_uring), on the raw drives and on
a stria array of each of its latency_levels.
"""

from __future__ import annotations

from dataclasses import dataclass

from .jobs import Timing


@dataclass(frozen=True)
class Suite:
    name: str
    timing: Timing
    baseline: tuple[str, ...]
    scaling: tuple[str, ...]
    arrays: tuple[str, ...]
    engines: tuple[str, ...]
    engine_workload: str
    levels: tuple[int, ...]
    chunk_kib: int = 64
    # engines the 1..N scaling runs with (one curve per engine)
    scaling_engines: tuple[str, ...] = ("libaio",)
    # the latency step: stria levels built for it (none: no latency step),
    # its workloads (one per queue depth) and engines (interrupt, polled)
    latency_levels: tuple[int, ...] = ()
    latency_workloads: tuple[str, ...] = ("randread-4k-qd1", "randread-4k-qd32")
    latency_engines: tuple[str, ...] = ("io_uring", "io_uring-hipri")

    def job_seconds(self) -> int:
        return self.timing.runtime + self.timing.ramp_time


ALL = ("randread-4k", "randwrite-4k", "read-1m", "write-1m")

SUITES: dict[str, Suite] = {
    "quick": Suite("quick", Timing(runtime=3, ramp_time=1), baseline=ALL,
                   scaling=("randread-4k",), arrays=("randread-4k", "randwrite-4k"),
                   engines=("libaio", "io_uring", "io_uring-hipri"),
                   engine_workload="randread-4k", levels=(0,), latency_levels=(0,)),
    "standard": Suite("standard", Timing(runtime=30, ramp_time=5), baseline=ALL,
                      scaling=("randread-4k", "read-1m"), arrays=ALL,
                      engines=("libaio", "io_uring", "io_uring-hipri"),
                      engine_workload="randread-4k", levels=(0, 5),
                      latency_levels=(0, 5)),
    "full": Suite("full", Timing(runtime=60, ramp_time=10), baseline=ALL,
                  scaling=ALL, arrays=ALL,
                  engines=("libaio", "io_uring", "io_uring-hipri"),
                  engine_workload="randread-4k", levels=(0, 5, 6),
                  scaling_engines=("libaio", "io_uring", "io_uring-hipri"),
                  latency_levels=(0, 5, 6)),
}
