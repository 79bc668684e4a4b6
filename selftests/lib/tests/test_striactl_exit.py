# SPDX-License-Identifier: GPL-2.0
"""striactl on the host (no module): one test per exit code of its man
page, its version (the tree's VERSION), -q and -v, and the version the
module carries (modinfo)."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[3]
STRIACTL = TOP / "tools" / "striactl" / "striactl"
VERSION = (TOP / "VERSION").read_text().strip()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    if not STRIACTL.exists():
        pytest.fail(f"{STRIACTL} is not built (make tools)")
    return subprocess.run([str(STRIACTL), *args], capture_output=True, text=True,
                          timeout=30)


def test_exit_0_success() -> None:
    assert run("--help").returncode == 0


def test_exit_1_failed(tmp_path: Path) -> None:
    p = run("examine", str(tmp_path / "missing"))
    assert p.returncode == 1 and "cannot read" in p.stderr


def test_exit_2_bad_command_line() -> None:
    p = run("create", "x", "--level", "4", "/dev/null", "/dev/null")
    assert p.returncode == 2 and "level '4' is not supported" in p.stderr, p.stderr


def test_exit_3_no_superblock(tmp_path: Path) -> None:
    f = tmp_path / "blank"
    f.write_bytes(bytes(1 << 20))
    p = run("examine", str(f))
    assert p.returncode == 3, p.stderr


@pytest.mark.skipif(os.path.exists("/dev/stria-control"), reason="the module is loaded here")
def test_exit_4_no_module() -> None:
    p = run("list")
    assert p.returncode == 4 and "is the stria module loaded?" in p.stderr


def test_man_page_lists_exactly_these() -> None:
    text = (TOP / "tools" / "striactl" / "striactl.8").read_text()
    section = text[text.index(".SH EXIT STATUS"):]
    section = section[:section.index("\n.SH", 1)]
    assert set(re.findall(r"^\.B (\d+)$", section, re.M)) == {"0", "1", "2", "3", "4"}


def test_version_is_the_trees() -> None:
    p = run("--version")
    assert p.returncode == 0 and p.stdout == f"striactl {VERSION}\n"
    assert run("-V").stdout == f"striactl {VERSION}\n"
    p = run("version", "-o", "json")       # no module: striactl's own, then exit 4
    assert f'"striactl_version": "{VERSION}"' in p.stdout


@pytest.mark.skipif(not shutil.which("modinfo"), reason="modinfo not installed")
def test_module_carries_the_version() -> None:
    built = sorted(glob.glob(str(TOP / "build" / "*" / "stria.ko")))
    if not built:
        pytest.skip("stria.ko not built here (make module)")
    for ko in built:
        out = subprocess.run(["modinfo", "-F", "version", ko], capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == VERSION, ko


def test_quiet_and_verbose_anywhere() -> None:
    """-q/-v before or after the command; -v says what it opens."""
    for args in (("-v", "list"), ("list", "-v"), ("list", "--verbose")):
        p = run(*args)
        assert "striactl: opening /dev/stria-control:" in p.stderr, args
    p = run("-q", "list")
    assert "opening" not in p.stderr
    assert "-q, --quiet" in run("stop", "--help").stdout


def test_static_build_runs_without_libraries() -> None:
    """make -C tools/striactl static: libblkid and libc linked in, for an
    initramfs (no dynamic section, no interpreter)."""
    subprocess.run(["make", "-s", "-C", str(STRIACTL.parent), "static"], check=True,
                   capture_output=True)
    static = STRIACTL.parent / "striactl.static"
    assert static.read_bytes()[:4] == b"\x7fELF"
    p = subprocess.run([str(static), "--version"], capture_output=True, text=True,
                       check=False)
    assert p.returncode == 0 and p.stdout == f"striactl {VERSION}\n"
    ldd = subprocess.run(["ldd", str(static)], capture_output=True, text=True, check=False)
    assert "not a dynamic executable" in ldd.stdout + ldd.stderr


@pytest.mark.skipif(os.path.exists("/dev/stria-control"), reason="the module is loaded here")
def test_environment_does_not_choose_what_runs_as_root(tmp_path: Path) -> None:
    # striactl runs modprobe as root (from udev, the initramfs, sudo): no
    # variable may replace it. It is found on PATH, as mdadm finds it, so
    # a test puts a stand-in first on PATH.
    def script(path: Path, marker: Path, code: int) -> None:
        path.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit {code}\n")
        path.chmod(0o755)

    hook, stand_in = tmp_path / "hook", tmp_path / "bin" / "modprobe"
    stand_in.parent.mkdir()
    script(hook, tmp_path / "hook-ran", 0)
    script(stand_in, tmp_path / "stand-in-ran", 1)
    env = dict(os.environ, STRIA_MODPROBE=str(hook),
               PATH=f"{stand_in.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    p = subprocess.run([str(STRIACTL), "list"], capture_output=True, text=True,
                       timeout=30, env=env)
    assert not (tmp_path / "hook-ran").exists()
    assert (tmp_path / "stand-in-ran").exists()
    assert p.returncode == 4 and "'modprobe stria' failed" in p.stderr, p.stderr


@pytest.mark.skipif(os.path.exists("/dev/stria-control"), reason="the module is loaded here")
@pytest.mark.parametrize("level", ["0", "5"])
def test_create_without_module_exits_4(tmp_path: Path, level: str) -> None:
    """create needs the module: exit 4 and why, nothing else said (no note
    about what the module lacks) and the member images untouched. A
    stand-in modprobe that fails comes first on PATH, so that no real
    module is loaded."""
    stand_in = tmp_path / "bin" / "modprobe"
    stand_in.parent.mkdir()
    stand_in.write_text("#!/bin/sh\nexit 1\n")
    stand_in.chmod(0o755)
    imgs = []
    for i in range(3):
        img = tmp_path / f"m{i}.img"
        img.write_bytes(bytes(4 << 20))
        imgs.append(str(img))
    env = dict(os.environ, PATH=f"{stand_in.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    p = subprocess.run([str(STRIACTL), "create", "r", "--level", level, *imgs],
                       capture_output=True, text=True, env=env, timeout=30, check=False)
    assert p.returncode == 4, (p.returncode, p.stderr)
    assert p.stderr == ("striactl: create: /dev/stria-control not found: is the stria "
                        "module loaded? ('modprobe stria' failed)\n"), p.stderr
    assert all(Path(i).read_bytes() == bytes(4 << 20) for i in imgs)
