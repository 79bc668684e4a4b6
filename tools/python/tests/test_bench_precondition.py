# SPDX-License-Identifier: GPL-2.0
"""stria-bench preconditioning and steady state: on by default for write
workloads on real drives (not null_blk, RAM disks, loop or files); the
drives filled twice with sequential 128K writes, the time that takes said
first; write runs measured until fio's steadystate test holds; the
results say whether it did. fio itself is faked (recorded documents)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench_helpers import FIO, FakeBackend, FakeFio, fio_doc
from stria.bench import cli, devices, jobs, results
from stria.bench.steps import Bench

TB = 10**12
# the recorded sequential write document the fake answers the probe with
PROBE_BW = fio_doc("baseline-write-1m")["jobs"][0]["write"]["bw_bytes"]


def job_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(";")]


@pytest.mark.parametrize("text, want", [
    ("iops_slope:1%", jobs.SteadyState("iops_slope", "1%", 60, 10, 600)),
    ("bw:5%,window=120,max=1800", jobs.SteadyState("bw", "5%", 120, 10, 1800)),
    ("iops:0.5%,ramp=30", jobs.SteadyState("iops", "0.5%", 60, 30, 600)),
    ("bw_slope:2000", jobs.SteadyState("bw_slope", "2000", 60, 10, 600)),
    ("iops:1%,ramp=0", jobs.SteadyState("iops", "1%", 60, 0, 600)),
])
def test_criteria_parse(text: str, want: jobs.SteadyState) -> None:
    assert jobs.parse_steady_state(text) == want


@pytest.mark.parametrize("text, msg", [
    ("lat:1%", "starts with one of iops, iops_slope, bw, bw_slope"),
    ("iops_slope", "starts with one of"),
    ("iops_slope:", "the limit is a positive number"),
    ("iops_slope:0%", "the limit is a positive number"),
    ("iops_slope:-1%", "the limit is a positive number"),
    ("iops_slope:1%,dur=60", "expected window=S, ramp=S or max=S"),
    ("iops_slope:1%,window=x", "expected window=S"),
    ("iops_slope:1%,window=0", "expected window=S"),
    ("iops_slope:1%,window=60,max=30", "max=30 is shorter than window + ramp (70 s)"),
])
def test_criteria_refused(text: str, msg: str) -> None:
    with pytest.raises(ValueError, match=re.escape(msg)):
        jobs.parse_steady_state(text)


def test_write_job_asks_fio_for_steady_state() -> None:
    ss = jobs.SteadyState("iops_slope", "1%", 60, 10, 600)
    t = (jobs.Target("/dev/nvme0n1", 0),)
    spec = jobs.JobSpec("baseline/nvme0n1/randwrite-4k/libaio", jobs.RANDWRITE_4K,
                        jobs.LIBAIO, t, jobs.Timing(30, 5), steady=ss)
    lines = job_lines(jobs.render(spec))
    assert "steadystate=iops_slope:1%" in lines
    assert "ss_dur=60" in lines and "ss_ramp=10" in lines
    # fio stops at steady state; runtime is the limit
    assert "runtime=600" in lines and "time_based=1" in lines and "ramp_time=5" in lines
    plain = job_lines(jobs.render(jobs.JobSpec("x", jobs.RANDWRITE_4K, jobs.LIBAIO, t,
                                               jobs.Timing(30, 5))))
    assert "runtime=30" in plain and not any(x.startswith(("steadystate", "ss_")) for x in plain)


def test_precondition_job_fills_each_drive_twice() -> None:
    t = (jobs.Target("/dev/nvme0n1", 0), jobs.Target("/dev/nvme1n1", 1))
    lines = job_lines(jobs.render_precondition(t))
    for want in ("rw=write", "bs=128k", "loops=2", "direct=1", "ioengine=libaio",
                 "filename=/dev/nvme0n1", "filename=/dev/nvme1n1", "numa_cpu_nodes=1"):
        assert want in lines, want
    # the whole device, twice: no size, no time limit
    assert not any(x.startswith(("size=", "runtime=", "time_based")) for x in lines)
    assert lines.count("new_group") == 2
    probe = job_lines(jobs.render_precondition(t, probe=True))
    assert "runtime=10" in probe and "time_based=1" in probe and "bs=128k" in probe
    assert not any(x.startswith("loops=") for x in probe)


class SteadyFio(FakeFio):
    """FakeFio, plus fio's steadystate result (recorded from fio 3.33) in
    every group of a job that asked for one; @not_steady: the files whose
    group did not get there."""

    def __init__(self, not_steady: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.not_steady = not_steady
        self.recorded = json.loads((FIO / "steadystate-randwrite-4k.json").read_text())

    def __call__(self, job: Path, out: Path, timeout: float) -> tuple[dict[str, Any] | None, str]:
        doc, err = super().__call__(job, out, timeout)
        text = job.read_text()
        if doc is not None and "steadystate=" in text:
            for j in doc["jobs"]:
                ss = dict(self.recorded["jobs"][0]["steadystate"])
                ss["attained"] = 0 if j["job options"]["filename"] in self.not_steady else 1
                j["steadystate"] = ss
        return doc, err


def real_drives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, n: int = 2) -> list[str]:
    """Plain files that describe() reports as NVMe drives of 1 TB."""
    paths = []
    for i in range(n):
        p = tmp_path / f"nvme{i}n1"
        p.write_bytes(b"\0" * 65536)
        paths.append(str(p))

    def describe(path: str, root: Path = Path("/")) -> devices.DeviceInfo:
        return devices.DeviceInfo(path, Path(path).name, True, TB, numa_node=0,
                                  hardware=True)

    monkeypatch.setattr(devices, "describe", describe)
    return paths


def run_cli(tmp_path: Path, paths: list[str], fio: FakeFio, *extra: str) -> tuple[int, Path]:
    def factory(**kw: Any) -> Bench:
        return Bench(**kw, backends={k: FakeBackend(k) for k in ("stria", "md", "dm")},
                     run_fio=fio)

    out = tmp_path / "out"
    a = cli.build_parser().parse_args(["run", "--devices", *paths, "--out", str(out),
                                       "--arrays", "stria", *extra])
    return cli.cmd_run(a, bench_factory=factory), out


def test_real_drives_are_preconditioned_then_measured_to_steady_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    paths = real_drives(monkeypatch, tmp_path)
    fio = SteadyFio(not_steady=(paths[1],))
    code, out = run_cli(tmp_path, paths, fio)
    assert code == cli.EXIT_OK
    # the time it costs, said before the first fill: 2 x 1 TB at the probe's bandwidth
    est = 2 * TB / PROBE_BW
    err = capsys.readouterr().err
    assert (f"stria-bench: preconditioning nvme0n1, nvme1n1: each written 2 times over "
            f"with sequential 128k writes, nvme0n1 1.0 TB at {PROBE_BW / 1e6:.0f} MB/s, "
            f"nvme1n1 1.0 TB at {PROBE_BW / 1e6:.0f} MB/s (measured): about "
            f"{int(round(est)) // 60} min {int(round(est)) % 60:02d} s "
            f"(--no-precondition skips it); then each write run lasts until steady "
            f"state (iops_slope:1%), 10 min 00 s at most\n") in err
    # probe, then the fill, then the benchmark
    assert "runtime=10\n" in fio.jobs[0] and "loops=2\n" in fio.jobs[1]
    assert all(f"filename={p}\n" in fio.jobs[1] for p in paths)
    assert "loops=" not in "".join(fio.jobs[2:])
    doc = results.load(out)
    pre = doc["precondition"]
    assert pre["status"] == "ok" and pre["drives"] == paths and pre["passes"] == 2
    assert pre["bandwidth_source"] == "measured" and pre["estimate_s"] == round(est)
    assert doc["settings"]["steady_state"] == {"criterion": "iops_slope:1%", "window_s": 60,
                                               "ramp_s": 10, "max_s": 600}
    runs = {r["id"]: r for r in doc["runs"] if not r.get("reused") and r["job_file"]}
    writes = [r for r in runs.values() if r["workload"] in ("randwrite-4k", "write-1m")]
    reads = [r for r in runs.values() if r["workload"] not in ("randwrite-4k", "write-1m")]
    assert writes and reads
    assert any(r["kind"] == "stria" for r in writes)    # an array over real drives too
    for r in writes:
        text = (out / r["job_file"]).read_text()
        assert "steadystate=iops_slope:1%\n" in text and "runtime=600\n" in text, r["id"]
        # drive 1 never held steady: a run on it did not get there
        want = paths[1] not in r["targets"]
        assert r["steady_state"]["attained"] is want, r["id"]
    for r in reads:
        assert "steady_state" not in r
        assert "steadystate" not in (out / r["job_file"]).read_text()
    md = (out / "report.md").read_text()
    assert "## Preconditioning and steady state" in md
    assert "| `baseline/nvme0n1/randwrite-4k/libaio` | iops_slope:1% | yes |" in md
    assert "| `baseline/nvme1n1/randwrite-4k/libaio` | iops_slope:1% | **no** (stopped " \
           "at the limit) |" in md


def test_declared_bandwidth_and_criteria(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    paths = real_drives(monkeypatch, tmp_path, n=1)
    fio = SteadyFio()
    code, out = run_cli(tmp_path, paths, fio, "--precondition-bw", "2000",
                        "--steady-state", "bw:5%,window=120,ramp=20,max=1800")
    assert code == cli.EXIT_OK
    assert "nvme0n1 1.0 TB at 2000 MB/s (declared): about 16 min 40 s" in capsys.readouterr().err
    assert "loops=2\n" in fio.jobs[0]          # no probe
    w = next(j for j in fio.jobs if "rw=randwrite\n" in j)
    assert all(x in w for x in ("steadystate=bw:5%\n", "ss_dur=120\n", "ss_ramp=20\n",
                                "runtime=1800\n"))
    pre = results.load(out)["precondition"]
    assert pre["bandwidth_source"] == "declared" and pre["estimate_s"] == 1000


def test_no_precondition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = real_drives(monkeypatch, tmp_path)
    fio = SteadyFio()
    code, out = run_cli(tmp_path, paths, fio, "--no-precondition")
    assert code == cli.EXIT_OK
    assert not any("loops=" in j or "steadystate" in j for j in fio.jobs)
    doc = results.load(out)
    assert doc["precondition"] == {"status": "off", "reason": "--no-precondition"}
    assert doc["settings"]["precondition"] is False and doc["settings"]["steady_state"] is None
    assert not any("steady_state" in r for r in doc["runs"])
    assert "not preconditioned (off): --no-precondition" in (out / "report.md").read_text()


def test_virtual_devices_are_not_preconditioned(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "nullb0"
    d.write_bytes(b"\0" * 65536)
    fio = SteadyFio()
    code, out = run_cli(tmp_path, [str(d)], fio)
    assert code == cli.EXIT_OK
    assert not any("loops=" in j or "steadystate" in j for j in fio.jobs)
    assert "preconditioning" not in capsys.readouterr().err
    pre = results.load(out)["precondition"]
    assert pre["status"] == "skipped" and "no real drive" in pre["reason"]


def test_failed_fill_is_recorded_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    paths = real_drives(monkeypatch, tmp_path, n=1)
    fio = SteadyFio()
    fio.fail = "loops=2"
    code, out = run_cli(tmp_path, paths, fio, "--precondition-bw", "2000")
    assert code == cli.EXIT_OK
    assert "preconditioning failed: fio wrote no result" in capsys.readouterr().err
    doc = results.load(out)
    assert doc["precondition"]["status"] == "failed"
    assert any(r.get("steady_state") for r in doc["runs"])


@pytest.mark.parametrize("args", [["--steady-state", "lat:1%"], ["--precondition-bw", "0"],
                                  ["--precondition-bw", "fast"]])
def test_bad_options_are_usage_errors(tmp_path: Path, args: list[str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(["run", "--devices", "x", *args])
    assert e.value.code == 2
    assert args[0] in capsys.readouterr().err


def test_hardware_is_read_from_sysfs(tmp_path: Path) -> None:
    sysfs = tmp_path / "sys"
    for name, hw in (("nvme0n1", True), ("nullb0", False)):
        b = sysfs / "class" / "block" / name
        b.mkdir(parents=True)
        (b / "size").write_text("2048\n")
        if hw:
            (b / "device").mkdir()
    assert devices.from_sysfs("/dev/nvme0n1", sysfs, name="nvme0n1").hardware is True
    assert devices.from_sysfs("/dev/nullb0", sysfs, name="nullb0").hardware is False
    nvme = devices.DeviceInfo("/dev/nvme0n1", "nvme0n1", True, TB, hardware=True,
                              model="Samsung SSD 990 PRO 2TB")
    assert nvme.real_drive
    # QEMU's NVMe drive: no flash to settle (make demo's drives)
    qemu = devices.DeviceInfo("/dev/nvme0n1", "nvme0n1", True, TB, hardware=True,
                              model="QEMU NVMe Ctrl")
    assert not qemu.real_drive
