# SPDX-License-Identifier: GPL-2.0
"""stria-tune's command line: launcher, -o json everywhere, usage errors."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fixtures.tunefakes import FIXTURES, FakeNvme, run, run_json
from stria import __version__

LAUNCHER = Path(__file__).resolve().parent.parent / "bin" / "stria-tune"


def launch(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    e = dict(os.environ)
    e.pop("PYTHONPATH", None)
    e.update(env)
    return subprocess.run(["/usr/bin/python3", str(LAUNCHER), *args], capture_output=True,
                          text=True, cwd="/", env=e, check=False)


def test_launcher_from_checkout() -> None:
    res = launch("--version")
    assert res.returncode == 0 and res.stdout == f"stria-tune {__version__}\n"


def test_launcher_profiles_json_and_env_root(tmp_path: Path) -> None:
    res = launch("profiles", "-o", "json")
    assert res.returncode == 0, res.stderr
    names = [p["name"] for p in json.loads(res.stdout)["profiles"]]
    assert names == ["balanced", "latency", "throughput"]
    res = launch("show", "-o", "json", STRIA_SYSFS_ROOT=str(FIXTURES / "degraded"))
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert [c["link"]["current"] for c in report["controllers"]] == [
        "Gen4 x4", "Gen4 x4", "Gen3 x2", "Gen3 x4"]
    # No /dev/nvme* below the fake root: coalescing is unknown, not an error.
    assert "cannot open" in report["controllers"][0]["coalescing"]["error"]


def test_state_dir_from_environment(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "t"
    shutil.copytree(FIXTURES / "plain4", root, symlinks=True)
    env = {"STRIA_SYSFS_ROOT": str(root), "STRIA_TUNE_STATE_DIR": str(tmp_path / "st"),
           "STRIA_TUNE_MODPROBE_DIR": str(tmp_path)}
    os.environ.update(env)
    try:
        code, out = run_json(["apply", "-p", "balanced"], nvme=FakeNvme(root))
    finally:
        for k in env:
            os.environ.pop(k)
    assert code == 0
    assert (tmp_path / "st" / "state.json").exists()


@pytest.mark.parametrize("argv", [
    ["show"], ["profiles"], ["apply", "-p", "latency", "--dry-run"], ["revert"],
    ["persist", "-p", "latency", "--dry-run"], ["unpersist"],
])
def test_every_command_speaks_json(tmp_path: Path, argv: list[str]) -> None:
    import shutil

    root = tmp_path / "t"
    shutil.copytree(FIXTURES / "plain4", root, symlinks=True)
    code, data = run_json(argv + ["--root", str(root), "--state-dir", str(tmp_path / "s"),
                                  "--udev-dir", str(tmp_path / "u"),
                                  "--modprobe-dir", str(tmp_path)], nvme=FakeNvme(root))
    assert code == 0 and isinstance(data, dict)


def test_usage_errors() -> None:
    assert run([])[0] == 2
    code, _, _ = run(["apply"])                       # --profile is required
    assert code == 2
    code, _, _ = run(["show", "-o", "yaml"])
    assert code == 2


def test_profiles_text_explains_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")     # no cell wraps
    code, out, _ = run(["profiles"])
    assert code == 0
    assert "nvme_core.multipath (modprobe.d)" in out
    assert "5000 us / 11 completions (0x320a)" in out
    assert "Operation not supported" in out
