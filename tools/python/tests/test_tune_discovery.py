# SPDX-License-Identifier: GPL-2.0
"""stria.discovery against the recorded sysfs trees."""

from __future__ import annotations

import pytest

from fixtures.tunefakes import FIXTURES
from stria.discovery import (PcieLink, active_scheduler, block_device, device_name,
                             discover)
from stria.sysfs import format_cpulist, parse_cpulist


@pytest.mark.parametrize("text,cpus", [
    ("0-3", [0, 1, 2, 3]), ("0,2,4-5", [0, 2, 4, 5]), ("7", [7]), ("", []),
    ("0-1,8-9\n", [0, 1, 8, 9]),
])
def test_cpulist_round_trip(text: str, cpus: list[int]) -> None:
    assert parse_cpulist(text) == cpus
    assert parse_cpulist(format_cpulist(cpus)) == cpus


def test_format_cpulist_compacts_runs() -> None:
    assert format_cpulist([3, 0, 1, 2, 8, 10, 11]) == "0-3,8,10-11"


def test_plain4_controllers_numa_and_links() -> None:
    system = discover(FIXTURES / "plain4")
    assert [c.name for c in system.controllers] == ["nvme0", "nvme1", "nvme2", "nvme3"]
    assert [c.numa_node for c in system.controllers] == [0, 1, 0, 1]
    assert system.numa_nodes == {0: [0, 1, 2, 3], 1: [4, 5, 6, 7]}
    assert system.controllers[1].cpus == [4, 5, 6, 7]
    c0 = system.controllers[0]
    assert c0.address == "0000:01:00.0"
    assert c0.serial == "stria0000"
    assert c0.io_queues == 3
    assert c0.link is not None and c0.link.describe() == "Gen4 x4"
    assert not c0.link.degraded
    assert c0.link.current_mbps == pytest.approx(4 * 1969.2)
    assert [i.number for i in c0.irqs] == [40, 41, 42, 43]
    assert c0.irqs[0].name == "nvme0q0"
    assert c0.irqs[0].affinity == [0, 1, 2, 3] and c0.irqs[0].effective == [0]
    assert c0.namespaces == ["nvme0n1"] and c0.paths == []
    assert system.irqbalance is True
    assert system.multipath is False
    assert system.module_param("nvme", "poll_queues") == "2"


def test_plain4_namespaces() -> None:
    system = discover(FIXTURES / "plain4")
    names = [d.name for d in system.namespaces]
    assert names == ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"]
    assert system.paths == []
    ns = system.namespace("nvme3n1")
    assert ns is not None
    assert ns.kind == "nvme" and ns.controllers == ["nvme3"]
    assert ns.numa_node == 1 and ns.cpus == [4, 5, 6, 7]
    assert ns.queue["nomerges"] == "0"
    assert ns.scheduler == "none"
    assert ns.hw_queues == 3
    assert ns.wwid and ns.wwid.startswith("nvme.")


def test_multipath_heads_and_hidden_paths() -> None:
    system = discover(FIXTURES / "multipath")
    assert system.multipath is True
    assert [d.name for d in system.namespaces] == ["nvme0n1", "nvme2n1"]
    assert [d.name for d in system.paths] == ["nvme0c0n1", "nvme0c1n1", "nvme2c2n1"]
    head = system.namespace("nvme0n1")
    assert head is not None and head.multipath_head
    assert head.controllers == ["nvme0", "nvme1"]
    assert head.paths == ["nvme0c0n1", "nvme0c1n1"]
    assert head.queue["io_poll"] == "0"
    path = system.namespace("nvme0c1n1")
    assert path is not None and path.kind == "nvme-path"
    assert path.controllers == ["nvme1"] and path.numa_node == 1
    assert path.queue["io_poll"] == "1"
    nvme1 = system.controller("nvme1")
    assert nvme1 is not None
    assert nvme1.subsystem == "nvme-subsys0"
    assert nvme1.namespaces == ["nvme0n1"] and nvme1.paths == ["nvme0c1n1"]


def test_degraded_link() -> None:
    system = discover(FIXTURES / "degraded")
    links = {c.name: c.link for c in system.controllers}
    assert links["nvme2"] is not None and links["nvme2"].degraded
    assert links["nvme2"].describe(True) == "Gen3 x2"
    assert links["nvme2"].describe(False) == "Gen4 x4"
    assert links["nvme2"].current_mbps == pytest.approx(2 * 984.6)
    assert links["nvme3"] is not None and not links["nvme3"].degraded


@pytest.mark.parametrize("cur,cw,top,mw,degraded", [
    ("16.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 4, False),
    ("2.5 GT/s PCIe", 4, "5.0 GT/s PCIe", 4, True),      # seed 000: Gen1 in a Gen2 slot
    ("8.0 GT/s PCIe", 2, "8.0 GT/s PCIe", 4, True),
    ("Unknown", None, "8.0 GT/s PCIe", 4, False),
])
def test_link_degraded(cur: str, cw: int | None, top: str, mw: int, degraded: bool) -> None:
    assert PcieLink(cur, cw, top, mw).degraded is degraded


def test_seed000_gen1_vs_gen2_halves_the_cap() -> None:
    gen1 = PcieLink("2.5 GT/s PCIe", 4, "2.5 GT/s PCIe", 4)
    gen2 = PcieLink("5.0 GT/s PCIe", 4, "5.0 GT/s PCIe", 4)
    assert gen1.current_mbps == 1000.0 and gen2.current_mbps == 2000.0


def test_block_device_other_and_missing() -> None:
    loop = block_device("/dev/loop0", FIXTURES / "plain4")
    assert loop is not None and loop.kind == "other" and not loop.is_nvme
    assert loop.queue["nr_requests"] == "128"
    assert block_device("sdz", FIXTURES / "plain4") is None


def test_helpers() -> None:
    assert device_name("/dev/nvme0n1") == "nvme0n1"
    assert device_name("/sys/block/nvme0n1/") == "nvme0n1"
    assert active_scheduler("mq-deadline [none] kyber") == "none"
    assert active_scheduler("none") == "none"
    assert active_scheduler(None) is None


def test_empty_root(tmp_path) -> None:  # type: ignore[no-untyped-def]
    system = discover(tmp_path)
    assert system.controllers == [] and system.namespaces == []
    assert system.multipath is None and system.irqbalance is None
