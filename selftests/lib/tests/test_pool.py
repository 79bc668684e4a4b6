# SPDX-License-Identifier: GPL-2.0
"""The runner's pool: at most N at once, SERIAL alone, results in order."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from striatest import pool


class Recorder:
    """A fake test function: item i sleeps durations[i] seconds; every
    start, end and report is logged in order."""

    def __init__(self, durations: list[float], fail: int | None = None) -> None:
        self.durations = durations
        self.fail = fail
        self.log: list[tuple[str, int]] = []
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0

    def run(self, i: int, item: int) -> str:
        assert i == item
        with self.lock:
            self.log.append(("start", i))
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(self.durations[i])
        with self.lock:
            self.log.append(("end", i))
            self.now -= 1
        if i == self.fail:
            raise RuntimeError(f"harness error in {i}")
        return f"result {i}"

    def report(self, i: int, item: int, res: str) -> None:
        assert res == f"result {i}"
        with self.lock:
            self.log.append(("report", i))

    def pos(self, what: str, i: int) -> int:
        return self.log.index((what, i))

    def running_at(self, k: int) -> set[int]:
        """Items started and not yet ended just before log entry k."""
        on: set[int] = set()
        for what, i in self.log[:k]:
            if what == "start":
                on.add(i)
            elif what == "end":
                on.discard(i)
        return on


def run(rec: Recorder, jobs: int, serial: set[int] | None = None,
        abort: threading.Event | None = None) -> None:
    items = list(range(len(rec.durations)))
    pool.run_ordered(items, jobs, rec.run, lambda i: i in (serial or set()), rec.report,
                     abort=abort)


def test_results_in_order_although_later_tests_end_first() -> None:
    rec = Recorder([0.4, 0.05, 0.05, 0.05, 0.3, 0.05])
    run(rec, 2)
    assert [i for what, i in rec.log if what == "report"] == list(range(6))
    for i in range(6):
        # each report comes after its own end and every earlier one's
        assert all(rec.pos("end", j) < rec.pos("report", i) for j in range(i + 1))
    assert rec.pos("end", 1) < rec.pos("end", 0)  # they did overlap


def test_a_result_is_reported_as_soon_as_the_earlier_ones_are() -> None:
    rec = Recorder([0.05, 0.5, 0.05])
    run(rec, 2)
    # 0 ended while 1 runs: reported at once, not after 1
    assert rec.pos("report", 0) < rec.pos("end", 1)
    # 2 ended before 1 but waits for it
    assert rec.pos("end", 2) < rec.pos("end", 1) < rec.pos("report", 2)


def test_at_most_jobs_at_once_and_the_pool_is_used() -> None:
    rec = Recorder([0.1] * 8)
    run(rec, 3)
    assert rec.peak == 3
    # tests start in their order
    assert [i for what, i in rec.log if what == "start"] == list(range(8))


def test_jobs_1_is_sequential() -> None:
    rec = Recorder([0.02, 0.01, 0.03])
    run(rec, 1)
    assert rec.log == [(w, i) for i in range(3) for w in ("start", "end", "report")]


def test_serial_tests_run_first_alone_one_at_a_time() -> None:
    rec = Recorder([0.05, 0.05, 0.1, 0.05, 0.05, 0.05, 0.1])
    run(rec, 3, serial={2, 6})
    starts = [i for what, i in rec.log if what == "start"]
    # the SERIAL ones first, in their order, then the others in theirs
    assert starts == [2, 6, 0, 1, 3, 4, 5]
    for s in (2, 6):
        k = rec.pos("start", s)
        assert rec.running_at(k) == set(), f"{s} started beside {rec.running_at(k)}"
        between = rec.log[k:rec.pos("end", s)]
        assert [e for e in between if e[0] == "start"] == [("start", s)]
    # after them the pool fills: 0, 1 and 3 all start before any ends
    assert rec.pos("start", 3) < min(rec.pos("end", j) for j in (0, 1, 3))
    # reported in the tests' order all the same
    assert [i for what, i in rec.log if what == "report"] == list(range(7))


def test_serial_first_and_last() -> None:
    rec = Recorder([0.05, 0.05, 0.05, 0.05])
    run(rec, 2, serial={0, 3})
    assert [i for what, i in rec.log if what == "start"][:2] == [0, 3]
    assert rec.running_at(rec.pos("start", 3)) == set()  # 3 waited for 0
    assert rec.running_at(rec.pos("start", 1)) == set()  # 1 waited for 3
    assert [i for what, i in rec.log if what == "report"] == [0, 1, 2, 3]


def test_a_harness_error_stops_new_starts_and_is_raised() -> None:
    rec = Recorder([0.05, 0.3, 0.05, 0.05, 0.05], fail=0)
    abort = threading.Event()
    with pytest.raises(RuntimeError, match="harness error in 0"):
        run(rec, 2, abort=abort)
    assert abort.is_set()
    # 1 was already running and was waited for; nothing started after the error
    assert ("end", 1) in rec.log
    assert [i for what, i in rec.log if what == "start"] == [0, 1]
    assert not [e for e in rec.log if e[0] == "report"]


def test_an_interrupt_in_report_sets_abort() -> None:
    rec = Recorder([0.01, 0.2, 0.01])
    abort = threading.Event()

    def report(i: int, item: int, res: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pool.run_ordered([0, 1, 2], 2, rec.run, lambda i: False, report, abort=abort)
    assert abort.is_set()
    assert ("end", 1) in rec.log  # the run under way ended before it returned


def test_nothing_to_run() -> None:
    called: list[int] = []

    def ident(i: int, x: int) -> int:
        return x

    pool.run_ordered([], 2, ident, lambda x: False, lambda i, x, r: called.append(i))
    assert called == []


@pytest.mark.parametrize("cpus,avail,largest,n,want", [
    (2, 21000, 2048, 49, 2),    # this CI machine: 2 cores, 24 GiB
    (2, 5000, 2048, 49, 1),     # memory for one 2 GiB guest and QEMU only
    (2, 6144, 2048, 49, 2),     # exactly two
    (1, 64000, 2048, 49, 1),    # one CPU
    (16, 64000, 2048, 49, 16),
    (16, 64000, 2048, 3, 3),    # no more than there are tests
    (4, 0, 2048, 10, 1),        # MemAvailable unknown: one at a time
    (4, 64000, 0, 3, 3),        # host tests only
])
def test_auto_jobs(cpus: int, avail: int, largest: int, n: int, want: int) -> None:
    assert pool.auto_jobs(cpus, avail, largest, n) == want


def test_parse_jobs() -> None:
    assert pool.parse_jobs("auto") is None
    assert pool.parse_jobs(" AUTO ") is None
    assert pool.parse_jobs("0") is None
    assert pool.parse_jobs("2") == 2
    for bad in ("-1", "two", "1.5"):
        with pytest.raises(ValueError):
            pool.parse_jobs(bad)


def test_mem_available(tmp_path: Path) -> None:
    f = tmp_path / "meminfo"
    f.write_text("MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   22020096 kB\n")
    assert pool.mem_available_mb(f) == 21504
    f.write_text("MemTotal: 1 kB\n")
    assert pool.mem_available_mb(f) == 0
    assert pool.mem_available_mb(tmp_path / "missing") == 0
