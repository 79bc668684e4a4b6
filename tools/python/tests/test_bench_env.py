# SPDX-License-Identifier: GPL-2.0
"""Environment record and per-device facts."""

from __future__ import annotations

import json
from pathlib import Path

from bench_helpers import FIXTURES
from stria.bench import devices, env


def test_cpu_model_and_numa(tmp_path: Path) -> None:
    assert env.cpu_model("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6430\n") == \
        "Intel(R) Xeon(R) Gold 6430"
    node = tmp_path / "devices" / "system" / "node"
    for n, cpus in ((0, "0-31,64-95"), (1, "32-63,96-127")):
        (node / f"node{n}").mkdir(parents=True)
        (node / f"node{n}" / "cpulist").write_text(cpus + "\n")
    (node / "online").write_text("0-1\n")
    assert env.numa_topology(tmp_path) == {"0": "0-31,64-95", "1": "32-63,96-127"}
    assert devices.online_numa_nodes(tmp_path / "nothing") == [0]


def fake_tune(tmp_path: Path, script: str) -> str:
    exe = tmp_path / "stria-tune"
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(0o755)
    return str(exe)


def test_stria_tune_state_is_recorded_whole(tmp_path: Path) -> None:
    state = {"profile": "balanced", "devices": [{"name": "nullb0"}]}
    exe = fake_tune(tmp_path, f"echo '{json.dumps(state)}'\n")
    got = env.stria_tune_state(exe, ["/dev/nullb0"])
    assert got["available"] and got["state"] == state
    assert got["command"].endswith("show /dev/nullb0 -o json")


def test_stria_tune_refusing_devices_falls_back_to_plain_show(tmp_path: Path) -> None:
    exe = fake_tune(tmp_path, '[ "$2" = "-o" ] && echo "{\\"profile\\": \\"x\\"}" && exit 0\n'
                              'echo "not an NVMe device" >&2; exit 2\n')
    got = env.stria_tune_state(exe, ["/dev/nullb0"])
    assert got["available"] and got["state"] == {"profile": "x"}


def test_stria_tune_missing_or_broken(tmp_path: Path) -> None:
    assert env.stria_tune_state(None) == {"available": False, "reason": "stria-tune not found"}
    broken = env.stria_tune_state(fake_tune(tmp_path, "echo oops; exit 0\n"))
    assert not broken["available"] and "not JSON" in broken["reason"]


def test_device_facts_from_discovery_name_a_degraded_link() -> None:
    root = FIXTURES / "degraded"
    slow = devices.describe("/dev/nvme2n1", root)
    assert slow.source == "stria.discovery"
    assert slow.pcie_link == "Gen3 x2 (capable of Gen4 x4: degraded)"
    assert slow.link_mbps is not None and slow.link_mbps < 2000
    fast = devices.describe("/dev/nvme0n1", root)
    assert fast.pcie_link == "Gen4 x4" and fast.model == "QEMU NVMe Ctrl"
    assert devices.describe("/dev/nvme3n1", root).numa_node == 1


def test_io_poll_on_multipath_paths_not_heads() -> None:
    root = FIXTURES / "multipath"
    assert devices.describe("/dev/nvme0n1", root).io_poll is False
    assert devices.describe("/dev/nvme0c0n1", root).io_poll is True
