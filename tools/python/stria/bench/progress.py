# SPDX-License-Identifier: GPL-2.0
"""Progress: which step and an ETA on a terminal, quiet otherwise.

On a terminal one status line is rewritten in place.  Otherwise nothing is
printed while running (the caller prints the machine-readable summary at
the end), so logs and pipes stay clean.  With ``log`` (-v) every step is a
line of its own, on a terminal or not: a log of what ran when.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def fmt_seconds(s: float) -> str:
    s = max(0, int(round(s)))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """Counts jobs done against an estimate of the jobs planned."""

    def __init__(self, total_jobs: int, job_seconds: float,
                 stream: TextIO | None = None, enabled: bool | None = None,
                 log: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.log = log
        self.total = max(1, total_jobs)
        self.job_seconds = job_seconds
        self.done = 0
        self.start = time.monotonic()
        self.step = ""
        self._width = 0

    def eta(self, now: float | None = None) -> float:
        """Seconds left: measured pace once a job has finished, else the plan."""
        now = time.monotonic() if now is None else now
        left = max(0, self.total - self.done)
        if self.done:
            return (now - self.start) / self.done * left
        return left * self.job_seconds

    def line(self, what: str, now: float | None = None) -> str:
        return (f"[{self.done}/{self.total}] {self.step}: {what}  "
                f"ETA {fmt_seconds(self.eta(now))}")

    def begin(self, step: str, what: str) -> None:
        self.step = step
        if self.log:
            self.stream.write(self.line(what) + "\n")
            self.stream.flush()
        else:
            self._show(self.line(what))

    def job_done(self) -> None:
        self.done += 1

    def note(self, msg: str) -> None:
        """A message worth keeping on screen (a skipped contender, a failure)."""
        if self.log:
            self.stream.write(msg + "\n")
            self.stream.flush()
        elif self.enabled:
            self._show("")
            self.stream.write("\r" + msg + "\n")
            self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self._show("")
            self.stream.write("\r")
            self.stream.flush()

    def _show(self, text: str) -> None:
        if not self.enabled:
            return
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)
