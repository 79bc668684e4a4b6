# SPDX-License-Identifier: GPL-2.0
"""Custom boots (host_boot in lib.sh): what a request may ask, the QEMU
command line it gives, whose kernel log a custom boot's console is, and
that a test file's host_prepare() is seen."""

from __future__ import annotations

from pathlib import Path

import pytest

from striatest import runner, testfile, vm
from striatest.kernels import Kernel


def spec_of(tmp_path: Path, body: str) -> testfile.TestSpec:
    t = tmp_path / "001-t"
    t.write_text('DESCRIPTION="x"\nVM_NVME=4\n' + body + "\ntest_main() { :; }\n")
    return testfile.load(t, tmp_path)


def test_a_request(tmp_path: Path) -> None:
    (tmp_path / "initrd.img").write_bytes(b"x")
    cb = runner.parse_custom_boot(
        '{"initrd": "initrd.img", "append": "root=UUID=1-2 ro", "without": [3], "timeout": 90}',
        tmp_path, 4)
    assert cb == runner.CustomBoot(tmp_path / "initrd.img", "root=UUID=1-2 ro",
                                   frozenset({3}), 90.0)


@pytest.mark.parametrize("req,why", [
    ('{"initrd": "../initrd.img"}', "give a file name"),
    ('{"initrd": "/etc/passwd"}', "give a file name"),
    ('{"initrd": "missing.img"}', "no such file"),
    ('{"initrd": "initrd.img", "append": "a\\nb"}', "one line"),
    ('{"initrd": "initrd.img", "without": [4]}', "drive numbers below 4"),
    ('{"initrd": "initrd.img", "without": "3"}', "drive numbers"),
    ('{"initrd": "initrd.img", "timeout": 0}', "timeout"),
    ('["initrd.img"]', "JSON object"),
])
def test_refused_requests(tmp_path: Path, req: str, why: str) -> None:
    (tmp_path / "initrd.img").write_bytes(b"x")
    with pytest.raises(ValueError, match=why):
        runner.parse_custom_boot(req, tmp_path, 4)


def test_qemu_argv_of_a_custom_boot(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, 'VM_APPEND="quiet"')
    k = Kernel("stock", "6.1.0-test", tmp_path / "bzImage", tmp_path, tmp_path)
    argv = vm.qemu_argv(k, tmp_path / "mine.img", spec, tmp_path, "root=UUID=x ro",
                        frozenset({1}))
    assert argv[argv.index("-initrd") + 1] == str(tmp_path / "mine.img")
    assert argv[argv.index("-append") + 1].endswith(" quiet root=UUID=x ro")
    drives = [a for a in argv if a.startswith("nvme,")]
    assert [d.split(",")[1] for d in drives] == ["id=nvme0", "id=nvme2", "id=nvme3"]
    plain = vm.qemu_argv(k, tmp_path / "initrd", spec, tmp_path)
    assert len([a for a in plain if a.startswith("nvme,")]) == 4


def test_a_custom_boots_console_is_the_tests_kernel_log(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, "")
    k = Kernel("stock", "6.1.0-test", tmp_path / "bzImage", tmp_path, tmp_path)
    run = runner.TestRun(spec, k, tmp_path / "initrd", tmp_path, False)
    (tmp_path / "out").mkdir()
    (tmp_path / "console.log.1").write_text(
        "[ 1.0] boot\nstria-harness: test t boot 1 starts\n[ 2.0] test\n")
    (tmp_path / "console.log.2").write_text("[ 1.0] WARNING: in the custom boot\n")
    (tmp_path / "console.log").write_text("stria-harness: test t boot 3 starts\n")
    run.custom_boots = {2}
    run.last_boot = 3
    boot, test = run.kernel_logs()
    assert "custom boot" in test and "custom boot" not in boot
    assert run.boot_problems() == []
    assert run.verdict(1.0).status == "fail"


def test_host_prepare_is_seen(tmp_path: Path) -> None:
    assert spec_of(tmp_path, "host_prepare() { :; }").host_prepare
    assert not spec_of(tmp_path, "").host_prepare
