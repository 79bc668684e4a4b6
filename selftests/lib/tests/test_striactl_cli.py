# SPDX-License-Identifier: GPL-2.0
"""striactl's command line, on the host: no module, no control device.

Every command answers --help with its usage and exit 0, and a missing
operand is a usage error (exit 2) that names what is missing; nothing of
this may reach the kernel or crash."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[3]
STRIACTL = TOP / "tools" / "striactl" / "striactl"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    if not STRIACTL.exists():
        pytest.fail(f"{STRIACTL} is not built (make tools)")
    return subprocess.run([str(STRIACTL), *args], capture_output=True, text=True,
                          timeout=30)


def commands() -> list[str]:
    out = run("--help").stdout + run("--help").stderr
    names = re.findall(r"^\s{2,}([a-z][a-z-]+)\s", out, re.M)
    return sorted(set(names))


def test_the_command_list_is_found() -> None:
    assert {"create", "add", "replace", "scrub", "fail"} <= set(commands())


@pytest.mark.parametrize("cmd", ["create", "assemble", "stop", "status", "detail",
                                 "examine", "list", "fail", "add", "remove",
                                 "replace", "scrub", "wait"])
def test_help_exits_0(cmd: str) -> None:
    p = run(cmd, "--help")
    assert p.returncode == 0, p.stderr
    assert f"usage: striactl {cmd}" in p.stdout


@pytest.mark.parametrize("args,missing", [
    (["replace"], "give the array and the member to replace"),
    (["replace", "w"], "give the array and the member to replace"),
    (["replace", "w", "/dev/x", "--with"], "requires an argument"),
    (["scrub", "w"], "give the array and check, repair or stop"),
    (["add", "w"], "give the array and at least one device"),
    (["fail", "w"], "give the array and one member device"),
])
def test_missing_operands_are_usage_errors(args: list[str], missing: str) -> None:
    p = run(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert missing in p.stderr
