# SPDX-License-Identifier: GPL-2.0
"""The systemd units of systemd/ as make install writes them: systemd's own
checker (systemd-analyze verify) finds nothing in them, the programs they
run exist, and the timers say what Documentation/stria/admin.rst says."""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[3]
UNITS = sorted(p for p in (TOP / "systemd").iterdir() if p.suffix in (".service", ".timer"))
STRIACTL = TOP / "tools" / "striactl" / "striactl"


def installed(tmp_path: Path) -> Path:
    """The units with the paths make install gives them, pointing into this
    tree (make install's own substitution, with the tree as prefix)."""
    if not STRIACTL.exists():
        pytest.fail(f"{STRIACTL} is not built (make tools)")
    out = tmp_path / "units"
    out.mkdir()
    for unit in UNITS:
        text = unit.read_text()
        text = text.replace("/usr/sbin/striactl", str(STRIACTL))
        text = text.replace("/usr/lib/stria/", str(TOP / "systemd") + "/")
        (out / unit.name).write_text(text)
    return out


def test_units_are_there() -> None:
    assert {u.name for u in UNITS} == {
        "stria-last-resort@.service", "stria-last-resort@.timer",
        "stria-scrub.service", "stria-scrub.timer", "stria-monitor.service",
        "stria-shutdown.service"}


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze not installed (make deps)")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    d = installed(tmp_path)
    # templates are verified as an instance; man: links are checked below
    names = [str(d / u.name.replace("@.", "@0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0."))
             for u in UNITS]
    p = subprocess.run(["systemd-analyze", "verify", "--man=no", *names],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(), \
        p.stdout + p.stderr


def test_it_catches_a_broken_unit(tmp_path: Path) -> None:
    """The check above can fail: a timer without a trigger is refused."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed (make deps)")
    bad = tmp_path / "bad.timer"
    bad.write_text("[Timer]\nOnActiveSecs=30\n")
    (tmp_path / "bad.service").write_text("[Service]\nExecStart=/bin/true\n")
    p = subprocess.run(["systemd-analyze", "verify", "--man=no", str(bad)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 or p.stderr.strip()


def test_documentation_is_a_man_page_of_the_tree() -> None:
    for unit in UNITS:
        for page, section in re.findall(r"^Documentation=man:([\w-]+)\((\d)\)$",
                                        unit.read_text(), re.M):
            assert (TOP / "tools" / "striactl" / f"{page}.{section}").exists(), unit.name


def test_executables_exist_in_the_tree() -> None:
    for unit in UNITS:
        for cmd in re.findall(r"^ExecStart=(\S+)", unit.read_text(), re.M):
            name = Path(cmd).name
            assert name == "striactl" or (TOP / "systemd" / name).exists(), (unit.name, cmd)


def test_last_resort_waits_30_s_and_runs_the_scan() -> None:
    timer = (TOP / "systemd" / "stria-last-resort@.timer").read_text()
    service = (TOP / "systemd" / "stria-last-resort@.service").read_text()
    assert re.search(r"^OnActiveSec=30$", timer, re.M)
    assert re.search(r"^ExecStart=/usr/sbin/striactl assemble --scan --run %i$", service, re.M)
    # no start once the array runs (udev names it by UUID)
    assert "ConditionPathExists=!/dev/disk/by-id/stria-uuid-%i" in service
    rules = (TOP / "udev" / "64-stria-assembly.rules").read_text()
    assert 'SYMLINK+="disk/by-id/stria-uuid-$attr{stria/uuid}"' in rules
    assert 'SYSTEMD_WANTS}+="stria-last-resort@$env{STRIA_UUID}.timer"' in rules


def test_last_resort_for_every_level_that_runs_degraded() -> None:
    """A member of a RAID1, 5, 6 or 10 array wants the timer (those levels
    can start without a member); a RAID0 member does not. The level is
    examine --export's STRIA_LEVEL, a number; udev's pattern is a list of
    globs separated by '|'."""
    rules = (TOP / "udev" / "64-stria-assembly.rules").read_text()
    m = re.search(r'^ENV\{STRIA_LEVEL\}=="([^"]*)", \\\n\s*ENV\{SYSTEMD_WANTS\}\+='
                  r'"stria-last-resort@', rules, re.M)
    assert m, "no STRIA_LEVEL condition on the last-resort timer"
    globs = m.group(1).split("|")

    def wants(level: str) -> bool:
        return any(fnmatch.fnmatchcase(level, g) for g in globs)

    assert [lv for lv in ("0", "1", "5", "6", "10", "4", "11") if wants(lv)] == \
        ["1", "5", "6", "10"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze not installed (make deps)")
def test_scrub_is_monthly_and_spread() -> None:
    timer = (TOP / "systemd" / "stria-scrub.timer").read_text()
    cal = re.search(r"^OnCalendar=(.+)$", timer, re.M)
    assert cal and re.search(r"^RandomizedDelaySec=24h$", timer, re.M)
    assert re.search(r"^Persistent=true$", timer, re.M)
    p = subprocess.run(["systemd-analyze", "calendar", "--iterations=3",
                        "--base-time=2030-01-01", cal.group(1)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    # the first Sunday of each month
    days = re.findall(r"Sun 2030-(\d\d)-0(\d) 01:00:00", p.stdout)
    assert [m for m, _ in days] == ["01", "02", "03"], p.stdout


def test_shutdown_stops_arrays_after_the_file_systems() -> None:
    """stria-shutdown.service does nothing until it is stopped, after the
    local file systems are unmounted (it starts before local-fs-pre), and
    every array pulls it in through udev."""
    unit = (TOP / "systemd" / "stria-shutdown.service").read_text()
    assert re.search(r"^ExecStop=/usr/sbin/striactl stop --scan$", unit, re.M)
    assert not re.search(r"^ExecStart=", unit, re.M)
    assert re.search(r"^RemainAfterExit=yes$", unit, re.M)
    assert re.search(r"^Before=.*\blocal-fs-pre\.target\b", unit, re.M)
    assert re.search(r"^Conflicts=shutdown\.target$", unit, re.M)
    rules = (TOP / "udev" / "64-stria-assembly.rules").read_text()
    assert 'ENV{DEVTYPE}=="disk", ENV{SYSTEMD_WANTS}+="stria-shutdown.service"' in rules


def test_udev_starts_the_monitor_with_an_array() -> None:
    """Every array pulls stria-monitor.service in when it appears, as md's
    rules pull mdmonitor in: the monitor runs without being enabled."""
    rules = (TOP / "udev" / "64-stria-assembly.rules").read_text()
    unit = (TOP / "systemd" / "stria-monitor.service").read_text()
    assert re.search(r"^ExecStart=/usr/sbin/striactl monitor$", unit, re.M)
    line = 'ENV{DEVTYPE}=="disk", ENV{SYSTEMD_WANTS}+="stria-monitor.service"'
    assert line in rules
    # in the array's part (striaN, add or change), not a member's
    at = rules.index(line)
    assert rules.index('KERNEL!="stria[0-9]*", GOTO="stria_member"') < at
    assert rules.index('ACTION!="add|change", GOTO="stria_end"') < at
    assert at < rules.index('LABEL="stria_member"')


def test_udev_fails_a_member_that_goes_away() -> None:
    """A stria member's remove event runs striactl fail --incremental with
    its device number (the node is gone by then), before the rules skip
    every other remove event."""
    rules = (TOP / "udev" / "64-stria-assembly.rules").read_text()
    m = re.search(r'^ACTION=="remove", ENV\{ID_FS_TYPE\}=="stria_member", \\\n'
                  r'\tRUN\+="/usr/sbin/striactl fail --incremental \$major:\$minor"$',
                  rules, re.M)
    assert m
    assert m.start() < rules.index('ACTION=="remove", GOTO="stria_end"')
    assert rules.index('SUBSYSTEM!="block", GOTO="stria_end"') < m.start()
