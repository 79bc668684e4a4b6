# SPDX-License-Identifier: GPL-2.0
"""report.md and the PNG plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.image as mpimg  # type: ignore[import]

from bench_helpers import full_doc
from stria.bench import plots, report


def test_number_formats() -> None:
    assert report.fmt_value(54_600, "iops") == "54.6k IOPS"
    assert report.fmt_value(21_000_000, "iops") == "21.00M IOPS"
    assert report.fmt_value(3_322_000_000, "bw_bytes") == "3322 MB/s"
    assert report.fmt_value(None, "iops") == "-"
    assert report.fmt_lat(83_456) == "83 µs"
    assert report.fmt_lat(4_145_152) == "4.15 ms"
    assert report.fmt_pct(0.93) == "93 %"


def test_report_has_the_seeds_tables(tmp_path: Path) -> None:
    doc = full_doc(tmp_path)
    text = report.render(doc, ["plots/efficiency.png"])
    for heading in ("## Devices", "## Per-drive baseline", "## Scaling: randread-4k",
                    "## Engines", "## Arrays vs the raw drives", "## Repeating a run"):
        assert heading in text
    wl = doc["analysis"]["baseline"]["randread-4k"]["weakest_link"]
    assert f"weakest link **/dev/nullb2** at {report.fmt_value(wl['slowest'], 'iops')}" in text
    assert "stria RAID0: unavailable: stria not available: striactl not found" in text
    assert "md cannot poll" in text
    md = [a for a in doc["analysis"]["arrays"] if a["kind"] == "md"
          and a["workload"] == "randread-4k"][0]
    assert f"| md RAID0 | randread-4k | {report.fmt_value(md['value'], 'iops')} |" in text
    assert "![plots/efficiency.png](plots/efficiency.png)" in text


def assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = mpimg.imread(str(path))
    h, w = img.shape[:2]
    assert w >= 500 and h >= 350
    assert float(img.std()) > 0.01  # not a blank canvas


def test_plots_are_real_pngs(tmp_path: Path) -> None:
    doc = full_doc(tmp_path)
    made = plots.render_all(doc, tmp_path / "out")
    assert sorted(made) == ["plots/efficiency.png", "plots/latency.png",
                            "plots/scaling-randread-4k.png"]
    for m in made:
        assert_png(tmp_path / "out" / m)


def test_no_data_no_plot(tmp_path: Path) -> None:
    assert plots.render_all({"runs": [], "analysis": {}}, tmp_path) == []


def test_placement_line() -> None:
    doc: dict[str, Any] = {"settings": {"numa_placement": True},
                           "devices": [{"path": "/dev/nvme0n1", "numa_node": 0},
                                       {"path": "/dev/nvme1n1", "numa_node": 1},
                                       {"path": "/dev/nullb0", "numa_node": None}]}
    assert report.placement(doc) == (
        "Jobs bound to each drive's NUMA node: /dev/nvme0n1 -> node 0, /dev/nvme1n1 -> node 1;"
        " node unknown, not bound: /dev/nullb0.")
    doc["settings"]["numa_placement"] = False
    assert report.placement(doc).startswith("Jobs were not bound")


def test_terminal_summary(tmp_path: Path) -> None:
    lines = report.summary_lines(full_doc(tmp_path))
    assert lines[0].startswith("weakest link (randread-4k): /dev/nullb2 -> bound ")
    assert any(x.startswith("scaling (randread-4k): ") for x in lines)
    assert any(x.startswith("md RAID0 randread-4k: ") and x.endswith("% of raw") for x in lines)
    assert "stria RAID0 randread-4k: skipped: stria not available: striactl not found" in lines


def test_latency_table_from_recorded_fio_and_emulated_time(tmp_path: Path) -> None:
    doc = full_doc(tmp_path)
    text = report.render(doc)
    # io_uring-randread-4k.json: 73011 IOPS, clat p50 733184 ns, p99 5013504,
    # p99.9 7700480 ns; three drives (nullb2 at half), each its own group
    assert "| raw drives | 1 | interrupt | 182.5k IOPS | 733 µs | 5.01 ms | 7.70 ms | - | - |  |" \
        in text
    # files cannot poll: skipped, with why; stria is not there: said so
    assert "| raw drives | 32 | polled | - | - | - | - | - | - | skipped: queue/io_poll is not 1 " \
           "on nullb0, nullb1, nullb2 |" in text
    assert "| stria RAID0 | 1 | interrupt | - |" in text and \
        "skipped: stria not available: striactl not found |" in text
    assert "Emulated time" not in text and "emulated hardware" not in text
    doc["devices"][1]["model"] = "QEMU NVMe Ctrl"
    doc["environment"]["cpu"] = {"model": "QEMU Virtual CPU version 2.5+", "count": 2}
    text = report.render(doc)
    why = "/dev/nullb1 is a QEMU NVMe Ctrl; the CPU is a QEMU Virtual CPU version 2.5+"
    assert f"**Emulated time.** {why}: these figures are the emulator's time" in text
    assert f"- **emulated hardware** ({why}): every figure below is emulated time" in text
    assert "no verdict on speed" in text
    doc["devices"][0]["model"] = "QEMU NVMe Ctrl"
    assert "(/dev/nullb0, /dev/nullb1 are QEMU NVMe Ctrl; the CPU" in report.render(doc)


def test_device_strings_are_escaped_in_the_report(tmp_path: Path) -> None:
    """A drive chooses its model and firmware, a hypervisor the CPU's model:
    report.md (read in a terminal or rendered as Markdown) shows them
    escaped, and a '|' or a newline in one cannot add a table cell or a
    line."""
    doc = full_doc(tmp_path)
    evil = "QEMU\x1b]0;owned\x07 | x\n## injected\u202e"
    for d in doc["devices"]:
        d["model"] = evil
        d["firmware"] = "1.0\x9b2J"
    doc["environment"].setdefault("cpu", {})["model"] = "QEMU \x1b[2J cpu\nline"
    doc["environment"].setdefault("dmi", {})["sys_vendor"] = "QEMU\r|"
    text = report.render(doc, [])
    bad = [c for c in text if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0
                                              or c == "\u202e")]
    assert not bad, f"raw control characters in the report: {bad!r}"
    assert "## injected" not in text.splitlines()
    lines = text.splitlines()
    start = lines.index("## Devices") + 2
    rows = lines[start:lines.index("", start)]
    assert len(rows) == 2 + len(doc["devices"])
    for r in rows:
        # cells split on '|' not escaped as '\|'
        assert len(r.replace("\\|", "").split("|")) == 9, r
    assert "\\x1b]0;owned\\x07 \\| x\\x0a## injected\\u202e" in text
