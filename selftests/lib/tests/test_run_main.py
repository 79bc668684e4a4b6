# SPDX-License-Identifier: GPL-2.0
"""selftests/run with a fake test function: with -j 2 the TAP lines, the
closing line, the TAP file and the exit status are those of -j 1."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

import pytest

from striatest import kernels, runner, testfile
from striatest.kernels import TOP

HEADER = "# SPDX-License-Identifier: GPL-2.0\n"


def load_run() -> ModuleType:
    path = str(TOP / "selftests" / "run")
    loader = importlib.machinery.SourceFileLoader("selftests_run", path)
    spec = importlib.util.spec_from_loader("selftests_run", loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def write_tests(d: Path) -> list[Path]:
    """Six tests: passes, a failure, a skip, a host test, SERIAL ones."""
    shapes = {
        "001-a": 'VM_NVME=2\nTIMEOUT=100\n',
        "002-fails": 'TIMEOUT=100\n',
        "003-serial": 'SERIAL=1\nTIMEOUT=100\n',
        "004-skips": '',
        "005-host": 'HOST=1\nTIMEOUT=50\n',
        "006-serial-slow": 'SERIAL=1\nVM_MEM=1024\n',
    }
    out = []
    for name, body in shapes.items():
        p = d / name
        p.write_text(f'{HEADER}DESCRIPTION="test {name}"\n{body}test_main() {{ :; }}\n')
        out.append(p)
    return out


class FakeRun:
    """run_one stand-in: a result from the test's name, after a short sleep
    (the earlier tests take longer, so that with -j 2 they end out of order)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0
        self.alone: dict[str, bool] = {}
        self.timeouts: dict[str, int] = {}
        self.labels: dict[str, str] = {}

    def __call__(self, spec: testfile.TestSpec, kernel: kernels.Kernel, initrd: Path | None,
                 results: Path, verbose: bool, workroot: Path | None = None,
                 label: str = "", console: bool = False) -> runner.Result:
        name = spec.path.name
        with self.lock:
            self.alone[name] = self.now == 0
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.timeouts[name] = spec.timeout
            self.labels[name] = label
        time.sleep(0.2 if name.startswith("001") else 0.05)
        with self.lock:
            self.now -= 1
        if "fails" in name:
            return runner.Result("fail", "1 check(s) failed, first: not ok 1 - x", 3.0)
        if "skips" in name:
            return runner.Result("skip", "requirements not met", 1.0)
        return runner.Result("pass", "1 checks", 2.0)


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path, tests: list[Path], *opts: str) -> tuple[int, list[str], str,
                                                                     FakeRun]:
    mod = load_run()
    fake = FakeRun()
    k = kernels.Kernel("stock", "6.1-test", tmp_path / "bzImage", tmp_path, tmp_path)
    monkeypatch.setattr(kernels, "find", lambda tier: k)
    monkeypatch.setattr(runner, "prepare", lambda kernel: tmp_path / "initrd")
    monkeypatch.setattr(runner, "run_one", fake)
    monkeypatch.delenv("STRIA_JOBS", raising=False)
    results = tmp_path / f"results{len(opts)}{'-'.join(opts)}"
    monkeypatch.setattr(sys, "argv", ["run", "--results", str(results), *opts,
                                      *map(str, tests)])
    runner.ABORT.clear()
    rc = mod.main()
    out = capsys.readouterr().out.splitlines()
    return rc, out, (results / "stock.tap").read_text(), fake


def tap(lines: list[str]) -> list[str]:
    return [ln for ln in lines if not ln.startswith("#")]


def test_j2_reports_as_j1(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                          tmp_path: Path) -> None:
    tests = write_tests(tmp_path)
    rc1, out1, tap1, f1 = run_main(monkeypatch, capsys, tmp_path, tests, "-j", "1")
    rc2, out2, tap2, f2 = run_main(monkeypatch, capsys, tmp_path, tests, "-j", "2")
    assert rc1 == rc2 == 1
    assert tap(out1) == tap(out2)
    assert tap1 == tap2
    assert out2[-1] == "4 passed, 1 failed, 1 skipped"
    assert tap(out1)[:3] == ["TAP version 13", "1..6", f"ok 1 - stock/{tests[0]} (2 s)"]
    assert f"not ok 2 - stock/{tests[1]} (3 s): 1 check(s) failed, first: not ok 1 - x" in out2
    assert tap2.splitlines()[2:] == tap(out2)[2:-1]
    # every result comes right after its description, as in a sequential run
    for i, t in enumerate(tests):
        after = out2[out2.index(f"# {t}: test {t.name}") + 1]
        assert after.startswith(("ok ", "not ok ")) and f" {i + 1} - stock/{t}" in after
    assert f1.peak == 1 and f2.peak == 2
    assert f2.alone["003-serial"] and f2.alone["006-serial-slow"]
    assert "# 2 tests at a time; SERIAL tests alone" in out2
    assert not [ln for ln in out1 if "at a time" in ln]


def test_timeouts_scaled_for_shared_tests_only(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    tests = write_tests(tmp_path)
    _, _, _, f1 = run_main(monkeypatch, capsys, tmp_path, tests, "-j", "1")
    _, _, _, f2 = run_main(monkeypatch, capsys, tmp_path, tests, "-j", "2")
    _, _, _, f3 = run_main(monkeypatch, capsys, tmp_path, tests, "-j", "2",
                           "--timeout-factor", "2")
    assert f1.timeouts == {"001-a": 100, "002-fails": 100, "003-serial": 100,
                           "004-skips": 300, "005-host": 50, "006-serial-slow": 300}
    assert f2.timeouts == {"001-a": 150, "002-fails": 150, "003-serial": 100,
                           "004-skips": 450, "005-host": 50, "006-serial-slow": 300}
    # an explicit factor is the whole factor
    assert f3.timeouts["001-a"] == 200 and f3.timeouts["003-serial"] == 200
    assert f3.timeouts["005-host"] == 50
    # -v lines name their test when several run at once
    assert f2.labels["001-a"] == str(tests[0]) and f1.labels["001-a"] == ""


def test_stria_jobs_and_bad_jobs(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tests = write_tests(tmp_path)
    mod = load_run()
    monkeypatch.setattr(sys, "argv", ["run", "-j", "many", str(tests[0])])
    assert mod.main() == 2
    assert "run: -j/STRIA_JOBS:" in capsys.readouterr().err
    monkeypatch.setenv("STRIA_JOBS", "-2")
    monkeypatch.setattr(sys, "argv", ["run", str(tests[0])])
    assert mod.main() == 2
