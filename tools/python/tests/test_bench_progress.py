# SPDX-License-Identifier: GPL-2.0
"""Progress on a terminal, silence otherwise."""

from __future__ import annotations

import io

from stria.bench.progress import Progress, fmt_seconds


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_when_not_a_terminal() -> None:
    out = io.StringIO()
    p = Progress(10, 4.0, stream=out)
    p.begin("baseline", "nullb0")
    p.note("something skipped")
    p.finish()
    assert out.getvalue() == ""


def test_step_and_eta_on_a_terminal() -> None:
    out = Tty()
    p = Progress(10, 4.0, stream=out)
    p.begin("baseline", "baseline/nullb0/randread-4k/libaio")
    assert "[0/10] baseline: baseline/nullb0/randread-4k/libaio  ETA 40s" in out.getvalue()
    p.note("stria RAID0: not available")
    assert "stria RAID0: not available\n" in out.getvalue()


def test_eta_follows_the_measured_pace() -> None:
    p = Progress(10, 4.0, enabled=False)
    p.start = 100.0
    for _ in range(5):
        p.job_done()
    assert p.eta(now=150.0) == 50.0  # 10 s per job measured, 5 left
    assert fmt_seconds(125) == "2m05s" and fmt_seconds(7.4) == "7s"
