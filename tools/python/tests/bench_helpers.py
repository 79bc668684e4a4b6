# SPDX-License-Identifier: GPL-2.0
"""Shared helpers for the stria-bench tests: recorded fio JSON and fakes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from stria.bench import arrays, devices, results
from stria.bench.steps import Bench
from stria.bench.suites import SUITES

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIO = FIXTURES / "fio"


def fio_doc(name: str) -> dict[str, Any]:
    """A fio 3.33 JSON document recorded by fixtures/fio/record.py."""
    doc: dict[str, Any] = json.loads((FIO / f"{name}.json").read_text())
    return doc


# which recorded document answers a job file, by its rw/engine lines
def fixture_for(job_text: str) -> str:
    if "hipri=1" in job_text:
        return "hipri-randread-4k"
    if "ioengine=io_uring" in job_text:
        return "io_uring-randread-4k"
    for rw, name in (("rw=randread", "baseline-randread-4k"),
                     ("rw=randwrite", "baseline-randwrite-4k"),
                     ("rw=read", "baseline-read-1m"), ("rw=write", "baseline-write-1m")):
        if rw + "\n" in job_text:
            return name
    raise AssertionError("no fixture for job:\n" + job_text)


class FakeFio:
    """Answers every job with a recorded document; can scale results per job
    (to make drives differ) and records the job files it was given."""

    def __init__(self, scale: dict[str, float] | None = None, fail: str | None = None) -> None:
        self.jobs: list[str] = []
        self.scale = scale or {}
        self.fail = fail

    def __call__(self, job: Path, out: Path, timeout: float) -> tuple[dict[str, Any] | None, str]:
        text = job.read_text()
        self.jobs.append(text)
        if self.fail and self.fail in text:
            return None, "fio: something went wrong"
        doc = fio_doc(fixture_for(text))
        one = doc["jobs"][0]
        filenames = [line.split("=", 1)[1] for line in text.splitlines()
                     if line.startswith("filename=")]
        jobs_out = []
        for i, fname in enumerate(filenames):
            j = json.loads(json.dumps(one))
            j["jobname"], j["groupid"] = f"{i}-{Path(fname).name}", i
            j["job options"] = {"filename": fname}
            k = next((v for key, v in self.scale.items() if key in fname), 1.0)
            for d in ("read", "write"):
                for f in ("iops", "bw_bytes", "io_bytes"):
                    j[d][f] = j[d][f] * k
            jobs_out.append(j)
        doc["jobs"] = jobs_out
        shutil.copy(FIO / f"{fixture_for(text)}.json", out)
        return doc, ""


class FakeBackend:
    """An array backend that records what it was asked to do."""

    def __init__(self, kind: str, why: str | None = None, fail_create: bool = False) -> None:
        self.kind = kind
        self.why = why
        self.fail_create = fail_create
        self.created: list[arrays.ArraySpec] = []
        self.destroyed: list[str] = []

    def unavailable(self, level: int, members: int) -> str | None:
        return self.why or arrays.level_problem(level, members)

    def create(self, spec: arrays.ArraySpec) -> arrays.Array:
        if self.fail_create:
            raise arrays.ArrayError("mdadm: device busy")
        self.created.append(spec)
        return arrays.Array(spec, f"/dev/fake-{self.kind}{spec.level}", [["create", self.kind]],
                            handle=spec.name)

    def destroy(self, array: arrays.Array) -> None:
        self.destroyed.append(array.path)
        array.commands.append(["destroy", self.kind])


def make_sysfs(tmp_path: Path, poll: dict[str, str]) -> Path:
    root = tmp_path / "sys"
    for name, value in poll.items():
        q = root / "class" / "block" / name / "queue"
        q.mkdir(parents=True)
        (q / "io_poll").write_text(value + "\n")
    return root


def make_bench(tmp_path: Path, fio: FakeFio, backends: dict[str, Any],
          poll: dict[str, str] | None = None, levels: tuple[int, ...] = (0,),
          n: int = 3) -> Bench:
    names = [f"nullb{i}" for i in range(n)]
    devs = [devices.DeviceInfo(f"/dev/{x}", x, True, 1 << 28, numa_node=i % 2)
            for i, x in enumerate(names)]
    doc = results.new_document({"suite": "quick"})
    doc["devices"] = [d.to_json() for d in devs]
    return Bench(out=tmp_path / "out", suite=SUITES["quick"], devs=devs, levels=levels,
                 doc=doc, backends=backends, run_fio=fio,
                 sysfs=make_sysfs(tmp_path, poll or {x: "0" for x in names}))


def run_all(b: Bench) -> dict[str, Any]:
    """Every step, as cli run does them; the document is saved."""
    b.baseline()
    b.scaling()
    b.raw_engines()
    b.arrays()
    b.latency()
    b.doc["finished"] = results.now()
    b.save()
    return b.doc


def full_doc(tmp_path: Path, scale: dict[str, float] | None = None) -> dict[str, Any]:
    """A finished quick run over 3 fake drives with md and dm, stria unavailable."""
    backs = {"stria": FakeBackend("stria", why="stria not available: striactl not found"),
             "md": FakeBackend("md"), "dm": FakeBackend("dm")}
    return run_all(make_bench(tmp_path, FakeFio(scale=scale or {"nullb2": 0.5}), backs))
