# SPDX-License-Identifier: GPL-2.0
"""The command line: refusal, a whole run with recorded fio output, report, compare."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench_helpers import FakeBackend, FakeFio, full_doc
from stria.bench import cli, report, results
from stria.bench.steps import Bench


def test_fio_args_value_may_start_with_dashes() -> None:
    assert cli.glue_fio_args(["run", "--fio-args", "--size=1g --iodepth=4", "--force"]) == \
        ["run", "--fio-args=--size=1g --iodepth=4", "--force"]


def test_levels_are_checked() -> None:
    assert cli.parse_levels("0,5,6") == (0, 5, 6)
    with pytest.raises(argparse.ArgumentTypeError):
        cli.parse_levels("0,1")
    with pytest.raises(argparse.ArgumentTypeError):
        cli.parse_levels("raid5")
    with pytest.raises(SystemExit):
        cli.main(["run", "--devices", "/dev/null", "--levels", "10"])


@pytest.mark.skipif(shutil.which("mkfs.ext4") is None or shutil.which("blkid") is None,
                    reason="needs mkfs.ext4 and blkid")
def test_refuses_a_device_holding_a_file_system(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    img = tmp_path / "disk"
    img.write_bytes(b"\0" * (8 << 20))
    subprocess.run(["mkfs.ext4", "-q", "-F", str(img)], check=True)
    out = tmp_path / "out"
    code = cli.main(["run", "--devices", str(img), "--out", str(out)])
    assert code == cli.EXIT_REFUSED
    assert "file system (ext4)" in capsys.readouterr().err
    assert not out.exists()  # nothing written anywhere


def test_whole_run_with_recorded_fio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    drives = []
    for i in range(3):
        d = tmp_path / f"nullb{i}"
        d.write_bytes(b"\0" * 65536)
        drives.append(str(d))
    fio = FakeFio()

    def factory(**kw: Any) -> Bench:
        backs: dict[str, Any] = {k: FakeBackend(k) for k in ("stria", "md", "dm")}
        return Bench(**kw, backends=backs, run_fio=fio)

    out = tmp_path / "out"
    a = cli.build_parser().parse_args(cli.glue_fio_args(
        ["run", "--devices", *drives, "--out", str(out), "--fio-args", "--size=64k"]))
    code = cli.cmd_run(a, bench_factory=factory)
    summary = json.loads(capsys.readouterr().out)  # not a terminal: one JSON line
    assert code == cli.EXIT_OK and summary["exit"] == 0
    doc = results.load(out)
    assert set(results.TOP_KEYS) <= set(doc)
    assert doc["settings"]["fio_args"] == ["size=64k"]
    assert doc["settings"]["devices"] == drives
    assert "kernel" in doc["environment"] and "stria_tune" in doc["environment"]
    assert all("size=64k" in j for j in fio.jobs)
    # plain files: arrays are skipped with the reason, runs still recorded
    assert {a["reason"] for a in doc["arrays"]} == {"arrays need block devices, not files"}
    assert (out / "report.md").exists()
    assert sorted(summary["plots"]) == ["plots/efficiency.png", "plots/latency.png",
                                        "plots/scaling-randread-4k.png"]
    assert len(list((out / "jobs").glob("*.fio"))) == len(fio.jobs)


def test_runtime_and_ramp_time_override_the_suite(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "nullb0"
    d.write_bytes(b"\0" * 65536)
    fio = FakeFio()

    def factory(**kw: Any) -> Bench:
        return Bench(**kw, backends={k: FakeBackend(k) for k in ("stria", "md", "dm")},
                     run_fio=fio)

    out = tmp_path / "out"
    a = cli.build_parser().parse_args(["run", "--devices", str(d), "--out", str(out),
                                       "--runtime", "1", "--ramp-time", "0"])
    assert cli.cmd_run(a, bench_factory=factory) == cli.EXIT_OK
    assert results.load(out)["settings"]["timing"] == {"runtime": 1, "ramp_time": 0}
    assert fio.jobs and all("runtime=1\n" in j and "ramp_time=0\n" in j for j in fio.jobs)


@pytest.mark.parametrize("args", [["--runtime", "0"], ["--runtime", "-3"],
                                  ["--ramp-time", "x"], ["--runtime", "1.5"]])
def test_bad_timing_is_refused_before_anything(tmp_path: Path, args: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "nullb0"
    d.write_bytes(b"\0" * 4096)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        code = cli.main(["run", "--devices", str(d), "--out", str(out), *args])
        raise SystemExit(code)
    assert e.value.code == 2
    assert "second" in capsys.readouterr().err
    assert not out.exists()


def test_out_dir_must_be_new_or_empty(tmp_path: Path) -> None:
    d = tmp_path / "drive"
    d.write_bytes(b"\0" * 4096)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "old").write_text("x")
    assert cli.main(["run", "--devices", str(d), "--out", str(tmp_path / "out")]) == \
        cli.EXIT_ERROR


def test_report_rerenders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = full_doc(tmp_path / "w")
    out = tmp_path / "run"
    out.mkdir()
    results.save(doc, out)
    assert cli.main(["report", str(out)]) == 0
    assert "## Arrays vs the raw drives" in (out / "report.md").read_text()
    assert (out / "plots" / "efficiency.png").stat().st_size > 1000
    assert cli.main(["report", str(tmp_path / "nothing")]) == cli.EXIT_ERROR


def test_compare_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = full_doc(tmp_path / "w")
    doc["settings"]["chunk_kib"] = 64
    for name, chunk in (("a", 64), ("b", 128)):
        (tmp_path / name).mkdir()
        doc["settings"]["chunk_kib"] = chunk
        results.save(doc, tmp_path / name)
    capsys.readouterr()
    assert cli.main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "-o", "json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    assert cmp["settings"] == [{"key": "settings.chunk_kib", "a": 64, "b": 128}]
    assert all(r["change"] == 0 for r in cmp["results"] if r["a"])


def test_interrupted_run_keeps_what_it_measured(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    drives = []
    for i in range(2):
        d = tmp_path / f"nullb{i}"
        d.write_bytes(b"\0" * 65536)
        drives.append(str(d))

    class Interrupted(FakeFio):
        def __call__(self, job: Path, out: Path, timeout: float) -> Any:
            if "scaling" in job.name:
                raise KeyboardInterrupt
            return super().__call__(job, out, timeout)

    def factory(**kw: Any) -> Bench:
        return Bench(**kw, backends={}, run_fio=Interrupted())

    out = tmp_path / "out"
    a = cli.build_parser().parse_args(["run", "--devices", *drives, "--out", str(out)])
    assert cli.cmd_run(a, bench_factory=factory) == cli.EXIT_INTERRUPTED
    doc = results.load(out)
    assert doc["interrupted"] is True and doc["finished"]
    measured = [r for r in doc["runs"] if not r.get("reused")]
    assert {r["step"] for r in measured} == {"baseline"} and len(measured) == 8
    # the 1-drive scaling point is the baseline, the 2-drive run was interrupted
    assert [r["id"] for r in doc["runs"] if r["step"] == "scaling"] == \
        ["scaling/1/randread-4k/libaio"]
    assert "## Per-drive baseline" in (out / "report.md").read_text()


def test_block_devices_need_root(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cli.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(cli.safety, "check_all", lambda paths: [])
    monkeypatch.setattr(cli.devices, "is_block_device", lambda p: True)
    assert cli.main(["run", "--devices", "/dev/nullb0"]) == cli.EXIT_ERROR
    assert "needs root" in capsys.readouterr().err


def one_drive_run(tmp_path: Path, *args: str) -> dict[str, Any]:
    """results.json of a run on one file as the drive, fake fio and arrays."""
    d = tmp_path / "nullb0"
    d.write_bytes(b"\0" * 65536)

    def factory(**kw: Any) -> Bench:
        return Bench(**kw, backends={k: FakeBackend(k) for k in ("stria", "md", "dm")},
                     run_fio=FakeFio())

    out = tmp_path / "out"
    argv = ["run", "--devices", str(d), "--out", str(out), *args]
    assert cli.cmd_run(cli.build_parser().parse_args(argv), bench_factory=factory) == 0
    return results.load(out)


@pytest.mark.parametrize("levels,expect", [(None, [0]), ("", []), ("0,5", [0, 5])])
def test_latency_levels_override_the_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           levels: str | None, expect: list[int]) -> None:
    doc = one_drive_run(tmp_path, "--levels", "",
                        *(["--latency-levels", levels] if levels is not None else []))
    assert doc["settings"]["latency"]["levels"] == expect
    lat = {r["label"] for r in doc["runs"] if r["step"] == "latency"}
    assert lat == (set() if not expect else {"raw"} | {f"stria-r{x}" for x in expect})


def test_settings_carry_the_seed_and_the_latency_step(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    doc = one_drive_run(tmp_path, "--levels", "0", "--seed", "7")
    assert doc["settings"]["seed"] == 7
    assert doc["settings"]["latency"]["levels"] == [0]
    assert [(o["level"], o["round"]) for o in doc["orders"]] == [(0, 1)]
    assert {r["step"] for r in doc["runs"]} >= {"arrays", "latency"}
    # the arrays step's entries and the latency step's are told apart
    assert {a["step"] for a in doc["arrays"]} == {"arrays", "latency"}
    doc["devices"][0]["model"] = "QEMU NVMe Ctrl"
    head = "\n".join(report.header(doc))
    assert "shuffled with seed 7 (`--seed 7` repeats it)" in head
    assert "- **emulated hardware** (" in head
