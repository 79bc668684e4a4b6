"""Running tests N at a time and reporting them in order.

Each VM test under TCG keeps about one host core busy (its vCPU threads
wait on I/O, timers and the 9p host root much of the time), so a machine
with two cores runs two tests in about the time of one and a half. This
module is the scheduling only, apart from QEMU, so it can be tested with a
fake test function (selftests/lib/tests/test_pool.py):

- the SERIAL tests (those whose assertions measure speed or time) run
  first, one at a time, alone; then the others start in their order, at
  most `jobs` at a time. A SERIAL test among the others would wait for
  the pool to drain, leaving cores idle until the longest test running
  ends, and again while it runs alone: first, it waits for nothing;
- results are reported in the tests' order: test N as soon as it and every
  test before it have ended, so TAP numbering and the log read as in a
  sequential run.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Memory counted for a QEMU process beyond the guest's RAM (TCG translation
# cache, 9p, device models). The largest RSS seen over the -j2 runs of
# harness/, raid0/, raid56/ and rebuild/ (QEMU 7.2) was 1.9 GiB for a 2 GiB
# guest: guest RAM plus 1 GiB is on the safe side.
QEMU_OVERHEAD_MB = 1024


def run_ordered(items: Sequence[T], jobs: int, run: Callable[[int, T], R],
                serial: Callable[[T], bool], report: Callable[[int, T, R], None],
                abort: threading.Event | None = None) -> None:
    """Run `run(i, items[i])` for every item, at most `jobs` at a time;
    call `report(i, item, result)` in index order from this thread.

    An exception in `run` sets `abort` (so that the other runs can stop
    early), waits for the runs under way, and is raised here."""
    jobs = max(1, jobs)
    n = len(items)
    # the order tests start in: the SERIAL ones first (see above)
    order = ([i for i in range(n) if serial(items[i])]
             + [i for i in range(n) if not serial(items[i])])
    results: dict[int, R] = {}
    running: dict[Future[R], int] = {}
    nxt = 0
    emitted = 0
    serial_running = False
    error: BaseException | None = None
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="test") as ex:
        try:
            while emitted < n:
                while error is None and nxt < n and not serial_running and len(running) < jobs:
                    i = order[nxt]
                    if serial(items[i]):
                        if running:
                            break  # drain the pool first
                        serial_running = True
                    running[ex.submit(run, i, items[i])] = i
                    nxt += 1
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    i = running.pop(f)
                    if serial(items[i]):
                        serial_running = False
                    exc = f.exception()
                    if exc is not None:
                        if error is None:
                            error = exc
                            if abort is not None:
                                abort.set()
                        continue
                    results[i] = f.result()
                if error is None:
                    while emitted in results:
                        report(emitted, items[emitted], results.pop(emitted))
                        emitted += 1
        except BaseException:
            # KeyboardInterrupt, or report() failed: stop the runs under way
            if abort is not None:
                abort.set()
            raise
    if error is not None:
        raise error


def mem_available_mb(meminfo: Path = Path("/proc/meminfo")) -> int:
    """MemAvailable in MiB (0 when it cannot be read)."""
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def cpu_count() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def auto_jobs(cpus: int, mem_available: int, largest_vm_mb: int, n_tests: int) -> int:
    """The default number of tests to run at once: one per CPU (a TCG guest
    with two vCPUs keeps about one host core busy on average), as many as
    MemAvailable holds of the largest guest of the run plus QEMU's own
    memory, never more than there are tests, at least 1."""
    per_vm = largest_vm_mb + QEMU_OVERHEAD_MB
    by_mem = mem_available // per_vm if per_vm > 0 else cpus
    return max(1, min(cpus, by_mem, n_tests))


def parse_jobs(value: str) -> int | None:
    """'-j' / STRIA_JOBS: a positive number, or 'auto' (None)."""
    v = value.strip().lower()
    if v in ("", "auto", "0"):
        return None
    n = int(v)
    if n < 1:
        raise ValueError(f"jobs must be a positive number or 'auto', not {value!r}")
    return n
