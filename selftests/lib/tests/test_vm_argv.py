# SPDX-License-Identifier: GPL-2.0
"""The QEMU command line a test's declarations give."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_one_host_thread_for_every_vcpu_by_default(tmp_path: Path) -> None:
    argv = argv_of(tmp_path, 'DESCRIPTION="x"')
    assert argv[argv.index("-accel") + 1] == "tcg,thread=single"


def test_a_benchmark_may_ask_for_a_thread_per_vcpu(tmp_path: Path) -> None:
    argv = argv_of(tmp_path, 'DESCRIPTION="x"\nVM_TCG_THREADS=multi')
    assert argv[argv.index("-accel") + 1] == "tcg,thread=multi"


def test_other_thread_models_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="VM_TCG_THREADS is single or multi"):
        argv_of(tmp_path, 'DESCRIPTION="x"\nVM_TCG_THREADS=many')


def test_a_drive_may_get_a_namespace_with_its_own_properties(tmp_path: Path) -> None:
    argv = argv_of(tmp_path, 'DESCRIPTION="x"\nVM_NVME=2\nVM_NVME_NS_OPTS_1="ms=8,mset=0"')
    devices = [argv[i + 1] for i, a in enumerate(argv) if a == "-device"]
    # drive 0 as always: the controller holds the drive itself
    assert "nvme,id=nvme0,serial=stria0000,drive=d0,bus=rp0" in devices
    # drive 1: a controller and a namespace on it that holds the drive
    assert "nvme,id=nvme1,serial=stria0001,bus=rp1" in devices
    assert "nvme-ns,drive=d1,bus=nvme1,nsid=1,ms=8,mset=0" in devices
