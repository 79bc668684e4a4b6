# SPDX-License-Identifier: GPL-2.0
"""A test that timed out says where: its last check, so that a summary read
without the logs (CI's) names the step that hung."""

from __future__ import annotations

from pathlib import Path

from striatest import runner, testfile
from striatest.kernels import Kernel


def timed_out(tmp_path: Path, tap: list[str]) -> runner.Result:
    t = tmp_path / "001-t"
    t.write_text('DESCRIPTION="x"\nVM_NVME=1\nTIMEOUT=300\ntest_main() { :; }\n')
    spec = testfile.load(t, tmp_path)
    k = Kernel("stock", "6.1.0-test", tmp_path / "bzImage", tmp_path, tmp_path)
    run = runner.TestRun(spec, k, tmp_path / "initrd", tmp_path, False)
    (tmp_path / "out").mkdir(exist_ok=True)
    run.tap = tap
    run.timed_out = True
    return run.verdict(1.0)


def test_names_the_last_check(tmp_path: Path) -> None:
    res = timed_out(tmp_path, ["ok 1 - create", "# a diagnostic", "ok 2 - the copy was still running",
                               "# waiting"])
    assert res.status == "fail"
    assert res.reason.startswith("timed out after 300 s; last check: ok 2 - the copy was still running")


def test_a_failed_check_is_a_check_too(tmp_path: Path) -> None:
    res = timed_out(tmp_path, ["ok 1 - create", "not ok 2 - fio ends when told to"])
    assert res.reason.endswith("last check: not ok 2 - fio ends when told to")


def test_before_any_check(tmp_path: Path) -> None:
    res = timed_out(tmp_path, ["# booting"])
    assert res.reason == "timed out after 300 s; before its first check"
