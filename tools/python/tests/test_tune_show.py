# SPDX-License-Identifier: GPL-2.0
"""stria-tune show: the report's values, flags and findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.tunefakes import FIXTURES, FakeNvme, run, run_json


def show(tree: str, *args: str, nvme: FakeNvme | None = None) -> dict:  # type: ignore[type-arg]
    root = FIXTURES / tree
    code, report = run_json(["show", "--root", str(root), *args],
                            nvme=nvme or FakeNvme(root))
    assert code == 0
    return report  # type: ignore[no-any-return]


def test_show_plain4_numa_queues_and_coalescing() -> None:
    r = show("plain4", "--profile", "throughput")
    assert [(c["name"], c["numa_node"], c["cpus"]) for c in r["controllers"]] == [
        ("nvme0", 0, "0-3"), ("nvme1", 1, "4-7"), ("nvme2", 0, "0-3"), ("nvme3", 1, "4-7")]
    assert r["numa_nodes"] == {"0": "0-3", "1": "4-7"}
    c0 = r["controllers"][0]
    assert c0["coalescing"]["current"] == "0x0000"
    assert c0["coalescing"]["recommended"] == "0x320a"
    assert c0["coalescing"]["differs"] is True
    assert c0["io_queues"] == 3
    assert [i["name"] for i in c0["irqs"]] == ["nvme0q0", "nvme0q1", "nvme0q2", "nvme0q3"]
    ns = r["namespaces"][1]
    assert ns["name"] == "nvme1n1" and ns["numa_node"] == 1
    s = ns["settings"]
    assert s["read_ahead_kb"] == {"current": "128", "raw": "128", "recommended": "4096",
                                  "differs": True}
    assert s["scheduler"]["current"] == "none" and s["scheduler"]["differs"] is False
    assert s["scheduler"]["raw"] == "[none] mq-deadline kyber bfq"
    assert s["iostats"]["recommended"] is None and s["iostats"]["differs"] is False
    assert r["modules"]["nvme_core.multipath"] == {
        "current": "N", "recommended": "N", "differs": False,
        "applies": "module reload or reboot (modprobe.d)", "note": ""}
    assert r["irqbalance"] is True
    assert r["array"]["cap_mbps"] == r["array"]["possible_mbps"]


def test_show_degraded_names_weakest_link_and_cap() -> None:
    r = show("degraded")
    links = {c["name"]: c["link"] for c in r["controllers"]}
    assert links["nvme2"]["degraded"] and links["nvme2"]["weakest"]
    assert links["nvme3"]["below_peers"] and not links["nvme3"]["weakest"]
    assert not links["nvme0"]["degraded"] and not links["nvme0"]["below_peers"]
    assert r["array"]["weakest_mbps"] == 2 * 984.6
    assert round(r["array"]["cap_mbps"]) == round(4 * 2 * 984.6)
    msgs = [f["message"] for f in r["findings"] if f["device"] == "nvme2"]
    assert any("trained at Gen3 x2 (1.97 GB/s) but the drive can do Gen4 x4" in m for m in msgs)
    assert any(m.startswith("weakest link: Gen3 x2 = 1.97 GB/s") and "4 x 1.97 GB/s = 7.88 GB/s"
               in m for m in msgs)


def test_show_multipath_flags_blocked_polling() -> None:
    r = show("multipath", "--profile", "latency")
    assert r["multipath"]["enabled"] is True
    assert r["multipath"]["hidden_paths"] == ["nvme0c0n1", "nvme0c1n1", "nvme2c2n1"]
    assert r["multipath"]["io_poll_blocked"] == ["nvme0n1", "nvme2n1"]
    warn = [f for f in r["findings"] if f["device"] == "nvme_core"]
    assert warn[0]["severity"] == "warning"
    assert "Operation not supported" in warn[0]["message"]
    assert r["modules"]["nvme_core.multipath"]["differs"] is True
    head = r["namespaces"][0]
    assert head["settings"]["io_poll"]["differs"] is True
    assert head["controllers"] == ["nvme0", "nvme1"]
    assert [p["name"] for p in r["paths"]][:2] == ["nvme0c0n1", "nvme0c1n1"]
    assert r["paths"][0]["settings"]["io_poll"]["differs"] is False


def test_show_one_device_limits_report() -> None:
    r = show("plain4", "/dev/nvme2n1")
    assert [n["name"] for n in r["namespaces"]] == ["nvme2n1"]
    assert [c["name"] for c in r["controllers"]] == ["nvme2"]


def test_show_non_nvme_device() -> None:
    r = show("plain4", "loop0")
    assert [d["name"] for d in r["devices"]] == ["loop0"]
    assert r["devices"][0]["kind"] == "other"
    assert r["namespaces"] == []


def test_show_without_root_says_what_needs_root() -> None:
    root = FIXTURES / "plain4"
    r = show("plain4", nvme=FakeNvme(root, deny=True))
    assert r["controllers"][0]["coalescing"]["current"] is None
    assert "Permission denied" in r["controllers"][0]["coalescing"]["error"]
    assert r["needs_root"] == ["Get Features 0x08 (interrupt coalescing) needs root"]
    code, out, _ = run(["show", "--root", str(root)], nvme=FakeNvme(root, deny=True))
    assert code == 0 and "run as root to see it" in out


def test_show_text_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")     # no cell wraps
    root = FIXTURES / "degraded"
    code, out, err = run(["show", "--root", str(root), "-p", "throughput"], nvme=FakeNvme(root))
    assert code == 0, err
    assert "DEGRADED WEAKEST" in out
    assert "SLOWER" in out
    assert "capped at 7.88 GB/s by the weakest link (would be 31.51 GB/s)" in out
    assert "128*" in out          # read_ahead_kb differs from 4096
    assert "5000 us / 11 completions (0x320a)" in out
    assert "irqbalance: running" in out
    assert "Operation not supported" not in out and "seed" not in out


def test_show_unknown_device_and_bad_root(tmp_path: Path) -> None:
    root = FIXTURES / "plain4"
    code, out, err = run(["show", "--root", str(root), "/dev/sdq"], nvme=FakeNvme(root))
    assert code == 1 and out == ""
    assert err == "stria-tune: error: /dev/sdq: no such block device or NVMe controller\n"
    code, _, err = run(["show", "--root", str(tmp_path)])
    assert code == 1 and "is --root" in err


def test_show_unknown_profile() -> None:
    root = FIXTURES / "plain4"
    code, _, err = run(["show", "--root", str(root), "-p", "turbo"], nvme=FakeNvme(root))
    assert code == 1
    assert "unknown profile 'turbo' (available: balanced, latency, throughput" in err


def test_show_prints_drive_strings_escaped(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The drive chooses its model and serial; the kernel passes them on.
    # An escape sequence in them must reach the terminal as text, and
    # brackets must not be taken for markup.
    from fixtures.tunefakes import copy_fixture

    root = copy_fixture("plain4", tmp_path)
    ctrl = root / "sys/class/nvme/nvme1"
    (ctrl / "model").write_text("Evil\x1b]0;owned\x07 [bold]SSD\x1b[2J\n")
    (ctrl / "serial").write_text("s\x9b1m\u202eN\n")
    monkeypatch.setenv("COLUMNS", "300")
    code, out, _ = run(["show", "-v", "--root", str(root), "--color", "never"],
                       nvme=FakeNvme(root))
    assert code == 0
    assert not any(ord(ch) < 0x20 and ch != "\n" or 0x7f <= ord(ch) < 0xa0
                   or ch == "\u202e" for ch in out)
    assert "Evil\\x1b]0;owned\\x07 [bold]SSD\\x1b[2J" in out
    assert "s\\x9b1m\\u202eN" in out
