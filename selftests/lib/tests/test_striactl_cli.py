# SPDX-License-Identifier: GPL-2.0
"""striactl's command line, on the host: no module, no control device.

Every command answers --help with its usage and exit 0, and a missing
operand is a usage error (exit 2) that names what is missing; nothing of
this may reach the kernel or crash."""

from __future__ import annotations

import json
import os
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
                                 "replace", "scrub", "wait", "monitor",
                                 "zero-superblock", "home", "readwrite"])
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
    (["zero-superblock"], "give at least one device"),
    (["home"], "give one array: /dev/striaN"),
    (["home", "data"], "'data' is not /dev/striaN"),
    (["assemble", "--incremental", "/dev/x", "--run"], "--run is not for --incremental"),
    (["assemble", "--incremental", "/dev/x", "--force"], "--force is not for --incremental"),
    (["assemble", "--incremental", "/dev/x", "--readonly"],
     "--readonly is not for --incremental"),
    (["assemble", "--readonly", "--force", "r", "/dev/x", "/dev/y"],
     "--readonly and --force exclude each other"),
    (["assemble", "--scan", "--readonly", "--force"], "--readonly and --force exclude each other"),
    (["readwrite"], "give one array: NAME or /dev/striaN"),
    (["readwrite", "a", "b"], "give one array: NAME or /dev/striaN"),
])
def test_missing_operands_are_usage_errors(args: list[str], missing: str) -> None:
    p = run(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert missing in p.stderr


# monitor and status -o prometheus read sysfs, so they run here too; this
# host has no stria arrays.

@pytest.mark.parametrize("args,error", [
    (["create", "r", "--level"], "option '--level' requires an argument"),
    (["create", "r", "-l"], "option requires an argument -- 'l'"),
    (["create", "r", "--bogus", "--level", "0"], "unrecognized option '--bogus'"),
    (["status", "-Z"], "invalid option -- 'Z'"),
])
def test_bad_option_is_one_error(args: list[str], error: str) -> None:
    """One error line, as striactl words them, then the usage hint."""
    p = run(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert lines[0] == f"striactl: {args[0]}: {error}", p.stderr
    assert lines[1].startswith(f"usage: striactl {args[0]} ") and len(lines) == 3, p.stderr


def test_examine_a_directory_says_so(tmp_path: Path) -> None:
    p = run("examine", str(tmp_path))
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert p.stderr == (f"striactl: examine: {tmp_path} is a directory, not a block device "
                        "or an image file\n")


def test_examine_a_character_device_says_so() -> None:
    p = run("examine", "/dev/null")
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "/dev/null is a character device, not a block device or an image file" in p.stderr


def test_monitor_bad_config_names_file_and_line(tmp_path: Path) -> None:
    conf = tmp_path / "stria.conf"
    conf.write_text("PROGRAM /bin/true\nMAILADR root\n")
    p = run("monitor", "--oneshot", "--no-syslog", "--config", str(conf))
    assert p.returncode == 1, p.stderr
    assert f"{conf}:2: unknown keyword 'MAILADR'" in p.stderr


def test_monitor_missing_config_given_is_an_error(tmp_path: Path) -> None:
    p = run("monitor", "--oneshot", "--no-syslog", "--config", str(tmp_path / "none"))
    assert p.returncode == 1 and "No such file or directory" in p.stderr, p.stderr


@pytest.mark.parametrize("args,message", [
    (["--delay", "0"], "--delay takes 1 to 86400 seconds"),
    (["--delay", ""], "--delay takes 1 to 86400 seconds"),
    (["--increment", "0"], "--increment takes 1 to 99 percent"),
    (["--increment", "100"], "--increment takes 1 to 99 percent"),
    (["-r", "20x"], "--increment takes 1 to 99 percent"),
    (["--mail", "-oQ/tmp"], "is not a mail address"),
    (["--export"], "this command has no --export"),
    (["-o", "prometheus"], "-o prometheus is for status only"),
    (["extra"], "unexpected argument 'extra'"),
])
def test_monitor_usage_errors(args: list[str], message: str) -> None:
    p = run("monitor", *args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert message in p.stderr


@pytest.mark.parametrize("line,error", [
    ("PROGRAM {tmp}/none", "PROGRAM {tmp}/none: No such file or directory"),
    ("PROGRAM alert", "PROGRAM 'alert' must be an absolute path"),
    ("PROGRAM {conf}", "PROGRAM {conf}: Permission denied"),
])
def test_monitor_bad_program_in_config_names_file_and_line(tmp_path: Path, line: str,
                                                             error: str) -> None:
    conf = tmp_path / "stria.conf"
    conf.write_text("# alerts\nMAILADDR root\n" + line.format(tmp=tmp_path, conf=conf) + "\n")
    p = run("monitor", "--oneshot", "--no-syslog", "--config", str(conf))
    assert p.returncode == 1, p.stderr
    assert f"striactl: monitor: {conf}:3: " + error.format(tmp=tmp_path, conf=conf) in p.stderr, \
        p.stderr


def test_monitor_program_must_be_executable(tmp_path: Path) -> None:
    p = run("monitor", "--oneshot", "--no-syslog", "--config", "/dev/null",
            "--program", str(tmp_path / "none"))
    assert p.returncode == 1 and "PROGRAM" in p.stderr, p.stderr


def test_monitor_oneshot_without_arrays_exits_0() -> None:
    p = run("monitor", "--oneshot", "--no-syslog", "--config", "/dev/null")
    assert p.returncode == 0 and p.stdout == "", (p.returncode, p.stdout, p.stderr)


def test_monitor_oneshot_configured_array_not_running(tmp_path: Path) -> None:
    """An ARRAY line for an array that is not running is an alert
    (DeviceDisappeared, critical): the line, PROGRAM, exit 1; JSON too."""
    name = "stria-test-absent"
    log = tmp_path / "program.log"
    prog = tmp_path / "program"
    prog.write_text(f'#!/bin/sh\necho "$* $STRIA_SEVERITY $STRIA_NAME" >>"{log}"\n')
    prog.chmod(0o755)
    conf = tmp_path / "stria.conf"
    conf.write_text(f"PROGRAM {prog}\nARRAY /dev/stria/{name} spares=1\n")
    why = ("the stria module is not loaded ('modprobe stria', then 'striactl assemble --scan')"
           if not os.path.isdir("/sys/module/stria") else
           "start it ('striactl assemble --scan'), or take its ARRAY line out")
    p = run("monitor", "--oneshot", "--no-syslog", "--config", str(conf))
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert p.stdout.count("\n") == 1 and p.stdout.endswith(
        f" DeviceDisappeared on /dev/stria/{name} ({name}): the array configured at "
        f"{conf}:2 is not running: {why}\n"), p.stdout
    assert log.read_text() == f"DeviceDisappeared /dev/stria/{name} critical {name}\n"
    p = run("monitor", "--oneshot", "--no-syslog", "-o", "json", "--config", str(conf))
    ev = json.loads(p.stdout)
    assert p.returncode == 1 and (ev["event"], ev["severity"], ev["array"], ev["device"]) == (
        "DeviceDisappeared", "critical", name, f"/dev/stria/{name}"), p.stdout


def test_monitor_test_without_arrays_exits_3() -> None:
    p = run("monitor", "--test", "--no-syslog", "--config", "/dev/null")
    assert p.returncode == 3 and "no stria array is running" in p.stderr, p.stderr


def test_status_prometheus_says_whether_the_module_is_up() -> None:
    """No arrays here: stria_up alone, 1 when the module is loaded, 0 when
    not, exit 0 either way (the file a collector reads is written, and an
    alert on stria_up == 0 fires)."""
    p = run("status", "-o", "prometheus")
    up = int(os.path.isdir("/sys/module/stria"))
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    assert p.stdout.splitlines() == [
        "# HELP stria_up 1 when the stria module is loaded (arrays can run), 0 when it is not.",
        "# TYPE stria_up gauge", f"stria_up {up}"], p.stdout


def test_status_prometheus_named_array_not_running_exits_3() -> None:
    p = run("status", "-o", "prometheus", "nosuch")
    assert p.returncode == 3 and p.stdout == "", (p.returncode, p.stdout)
    assert "nosuch: no such array is running" in p.stderr


def test_zero_superblock_writes_no_file(tmp_path: Path) -> None:
    """Only block devices: a file (an image, say) is refused untouched."""
    f = tmp_path / "image"
    data = b"STRIA-SB" + bytes(4088)
    f.write_bytes(data)
    p = run("zero-superblock", "--force", str(f))
    assert p.returncode == 1 and "is not a block device" in p.stderr, p.stderr
    assert f.read_bytes() == data


@pytest.mark.parametrize("args,error", [
    (["fail", "--incremental"], "--incremental takes the device only"),
    (["fail", "--incremental", "w", "/dev/x"], "--incremental takes the device only"),
    (["fail", "-I", "--force", "8:16"], "--force is not for it"),
])
def test_fail_incremental_usage_errors(args: list[str], error: str) -> None:
    p = run(*args)
    assert p.returncode == 2
    assert error in p.stderr
    assert "usage: striactl fail" in p.stderr


def test_fail_incremental_needs_a_block_device(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("")
    p = run("fail", "--incremental", str(f))
    assert p.returncode == 1
    assert p.stderr.strip() == f"striactl: fail: {f} is not a block device"


@pytest.mark.skipif(os.path.exists("/sys/module/stria"), reason="the stria module is loaded here")
def test_fail_incremental_without_the_module_is_nothing_to_do() -> None:
    """udev runs it for every member that goes away: with no module, no
    array holds the device, and the module is not loaded for it."""
    p = run("fail", "--incremental", "8:16")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "8:16: the stria module is not loaded: no array holds it\n"
    assert not os.path.exists("/sys/module/stria")
