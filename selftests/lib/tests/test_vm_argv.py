# SPDX-License-Identifier: GPL-2.0
"""The QEMU command line a test's declarations give."""

from __future__ import annotations

from pathlib import Path

from striatest import testfile, vm
from striatest.kernels import Kernel


def argv_of(tmp_path: Path, body: str) -> list[str]:
    t = tmp_path / "001-t"
    t.write_text(body + "\ntest_main() { :; }\n")
    spec = testfile.load(t, tmp_path)
    k = Kernel("stock", "6.1.0-test", tmp_path / "bzImage", tmp_path, tmp_path)
    return vm.qemu_argv(k, tmp_path / "initrd", spec, tmp_path)


def test_prealloc_backs_guest_memory_first(tmp_path: Path) -> None:
    assert "-mem-prealloc" in argv_of(tmp_path, 'DESCRIPTION="x"\nVM_PREALLOC=1')


def test_memory_is_backed_lazily_by_default(tmp_path: Path) -> None:
    argv = argv_of(tmp_path, 'DESCRIPTION="x"')
    assert "-mem-prealloc" not in argv
    # guests run without ERMS/FSRM and with 4-level paging
    assert argv[argv.index("-cpu") + 1] == "max,-erms,-fsrm,-la57"
