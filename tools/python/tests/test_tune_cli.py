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


def test_launcher_profiles_json_and_root(tmp_path: Path) -> None:
    res = launch("profiles", "-o", "json")
    assert res.returncode == 0, res.stderr
    names = [p["name"] for p in json.loads(res.stdout)["profiles"]]
    assert names == ["balanced", "latency", "throughput"]
    res = launch("show", "-o", "json", "--root", str(FIXTURES / "degraded"))
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert [c["link"]["current"] for c in report["controllers"]] == [
        "Gen4 x4", "Gen4 x4", "Gen3 x2", "Gen3 x4"]
    # No /dev/nvme* below the fake root: coalescing is unknown, not an error.
    assert "cannot open" in report["controllers"][0]["coalescing"]["error"]


HOOKS = {"STRIA_SYSFS_ROOT": "root", "STRIA_TUNE_STATE_DIR": "state_dir",
         "STRIA_TUNE_MODPROBE_DIR": "modprobe_dir", "STRIA_TUNE_UDEV_DIR": "udev_dir",
         "STRIA_TUNE_PROFILE_DIR": "profile_dir"}


@pytest.mark.parametrize("command", ["show", "apply", "revert", "persist", "unpersist"])
def test_environment_does_not_steer_where_it_reads_and_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    # stria-tune runs as root (sudo may keep the caller's environment): a
    # variable must not choose the sysfs it trusts, the state revert
    # writes back from, or where rules and module options go. Only the
    # command-line options do.
    from stria.tune import cli

    argv = [command] + (["-p", "latency"] if command in ("apply", "persist") else [])
    defaults = vars(cli.build_parser().parse_args(argv))
    for name in HOOKS:
        monkeypatch.setenv(name, str(tmp_path / name))
    args = vars(cli.build_parser().parse_args(argv))
    for name, dest in HOOKS.items():
        assert args[dest] == defaults[dest], name
    assert args["root"] == "/" and args["profile_dir"] == []


def test_options_choose_the_directories(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "t"
    shutil.copytree(FIXTURES / "plain4", root, symlinks=True)
    code, out = run_json(["apply", "-p", "balanced", "--root", str(root),
                          "--state-dir", str(tmp_path / "st"),
                          "--modprobe-dir", str(tmp_path)], nvme=FakeNvme(root))
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
