# SPDX-License-Identifier: GPL-2.0
"""The tree recorded from a QEMU guest (selftests/tests/tune/001-show ran
tests/fixtures/record.py): Linux 6.1, 4 emulated NVMe drives behind
pcie-root-ports on two pxb-pcie NUMA nodes, nvme loaded with
poll_queues=2, QEMU refusing Set Features 0x08."""

from __future__ import annotations

from pathlib import Path

from fixtures.tunefakes import FIXTURES, FakeNvme, copy_fixture, run_json, snapshot
from stria.discovery import discover

ROOT = FIXTURES / "qemu4"


def test_real_layout_is_discovered() -> None:
    system = discover(ROOT)
    assert [c.name for c in system.controllers] == ["nvme0", "nvme1", "nvme2", "nvme3"]
    # VM_NVME_NODES="0 1 1 0": serial stria000N sits on node N's entry.
    nodes = {c.serial: c.numa_node for c in system.controllers}
    assert nodes == {"stria0000": 0, "stria0001": 1, "stria0002": 1, "stria0003": 0}
    assert system.numa_nodes == {0: [0], 1: [1]}
    for c in system.controllers:
        assert c.link is not None and c.link.describe() == "Gen1 x1" and not c.link.degraded
        assert c.io_queues == 4                  # 2 CPUs + 2 poll queues
        assert len(c.irqs) == 3 and c.irqs[0].name.endswith("q0")
        assert c.model == "QEMU NVMe Ctrl"
    # multipath=Y, but QEMU's drives are not multi-controller: plain namespaces.
    assert system.multipath is True and system.paths == []
    assert [d.name for d in system.namespaces] == ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"]
    for d in system.namespaces:
        assert d.queue["io_poll"] == "1" and d.queue["scheduler"] == "[none] mq-deadline "
        assert d.hw_queues == 4


def test_real_tree_apply_and_revert(tmp_path: Path) -> None:
    root = copy_fixture("qemu4", tmp_path)
    before = snapshot(root)
    nvme = FakeNvme(root)
    base = ["--root", str(root), "--state-dir", str(tmp_path / "st"),
            "--modprobe-dir", str(tmp_path)]
    code, out = run_json(["apply", "-p", "throughput", *base], nvme=nvme)
    assert code == 3
    refused = sorted(c["device"] for c in out["changes"] if c["result"] == "refused")
    assert refused == ["nvme0", "nvme1", "nvme2", "nvme3"]
    code, out = run_json(["revert", *base], nvme=nvme)
    assert code == 0
    # The scheduler is already "none", so every file is untouched or
    # restored: byte for byte.
    assert snapshot(root) == before
    assert nvme.calls == []


def test_real_tree_latency_lowers_poll_queues_to_two_cpus(tmp_path: Path) -> None:
    root = copy_fixture("qemu4", tmp_path)
    code, out = run_json(["apply", "-p", "latency", "--dry-run", "--root", str(root),
                          "--modprobe-dir", str(tmp_path)], nvme=FakeNvme(root))
    assert code == 0
    f = [c for c in out["changes"] if c["kind"] == "file"][0]
    assert "options nvme poll_queues=2\n" in f["new"]
    assert f["note"] == ("needs a module reload or reboot: nvme_core.multipath Y -> N; "
                         "nvme.poll_queues=4 lowered to 2: nvme refuses more queues than "
                         "possible CPUs")
