# SPDX-License-Identifier: GPL-2.0
"""The steps of a run: baseline, scaling, engines and arrays.

1. baseline  each drive alone, every baseline workload (libaio);
2. scaling   drives 1..N together, each on its own NUMA node; the 1-drive
             libaio point is the first drive's baseline (not run twice); the
             full suite draws the curve with every engine;
3. engines   all N drives with libaio, io_uring and io_uring+hipri, where
             every drive's queue/io_poll is 1 (and says so where not);
4. arrays    for each level: the raw aggregate of the N drives for each array
             workload, then stria, md and dm-stripe (RAID0) created over the
             same drives with the same chunk, the same jobs (numjobs x N, so
             one array device gets the concurrency N drives had: too few
             jobs understate md and any array), the engine variants, and teardown; with
             --repeat N, N such rounds so the contenders are interleaved, each
             round in its own order, shuffled from --seed (recorded).

A failed or skipped run is recorded with its reason; the run goes on.
results.json is written after every step, so an interrupted run keeps
what it measured.  Arrays are always torn down, even on Ctrl-C.
"""

from __future__ import annotations

import errno
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import analysis, arrays, devices, fio, jobs, results
from .progress import Progress
from .suites import Suite

FioRunner = Callable[[Path, Path, float], "tuple[dict[str, Any] | None, str]"]


def default_fio_runner(job: Path, out: Path, timeout: float) -> tuple[dict[str, Any] | None, str]:
    return fio.run(job, out, timeout)


@dataclass
class Bench:
    """One benchmark run writing into @out."""

    out: Path
    suite: Suite
    devs: list[devices.DeviceInfo]
    levels: tuple[int, ...]
    doc: dict[str, Any]
    extra: tuple[str, ...] = ()
    numa: bool = True
    kinds: tuple[str, ...] = arrays.KINDS
    backends: dict[str, arrays.Backend] = field(default_factory=arrays.backends)
    run_fio: FioRunner = default_fio_runner
    progress: Progress | None = None
    sysfs: Path = devices.SYSFS
    force: bool = False
    repeat: int = 1
    round: int = 1
    # the seed of the contenders' order in each round of the arrays step;
    # None: raw first, then the kinds in their order
    seed: int | None = None

    def __post_init__(self) -> None:
        (self.out / "jobs").mkdir(parents=True, exist_ok=True)
        (self.out / "fio").mkdir(parents=True, exist_ok=True)

    # --- planning ---------------------------------------------------------
    def planned_jobs(self) -> int:
        s, n = self.suite, len(self.devs)
        total = n * len(s.baseline) + max(0, n - 1) * len(s.scaling)
        total += (len(s.scaling_engines) - 1) * n * len(s.scaling)
        total += max(0, len(s.engines) - len(s.scaling_engines))
        per_array = len(s.arrays) + max(0, len(s.engines) - 1)
        raw_first = len([w for w in s.arrays if w not in s.scaling])  # others reused
        for _level in self.levels:
            total += raw_first + len(s.arrays) * (self.repeat - 1)
            total += len(self.kinds) * per_array * self.repeat
        return total

    def rid(self, base: str) -> str:
        """Run id of @base in the current round ("...#2" from the second on)."""
        return base if self.round == 1 else f"{base}#{self.round}"

    # --- one fio run ------------------------------------------------------
    def targets(self, devs: list[devices.DeviceInfo]) -> tuple[jobs.Target, ...]:
        return tuple(jobs.Target(d.path, d.numa_node if self.numa else None) for d in devs)

    def fio_job(self, *, run_id: str, step: str, kind: str, label: str,
                workload: jobs.Workload, engine: jobs.Engine,
                targets: tuple[jobs.Target, ...], numjobs: int | None = None,
                level: int | None = None, members: list[str] | None = None) -> dict[str, Any]:
        spec = jobs.JobSpec(run_id, workload, engine, targets, self.suite.timing,
                            numa=self.numa, numjobs=numjobs, extra=self.extra)
        job_path = self.out / "jobs" / spec.file_name
        json_path = self.out / "fio" / (jobs.safe_name(run_id) + ".json")
        job_path.write_text(jobs.render(spec))
        if self.progress:
            self.progress.begin(step, run_id)
        timeout = self.suite.job_seconds() * 4 + 120
        doc, err = self.run_fio(job_path, json_path, timeout)
        if self.progress:
            self.progress.job_done()
        common: dict[str, Any] = dict(
            run_id=run_id, step=step, kind=kind, label=label, workload=workload.name,
            engine=engine.name, targets=[t.path for t in targets], level=level,
            members=members, numa=[t.numa_node for t in targets],
            job_file=f"jobs/{job_path.name}",
            fio_json=f"fio/{json_path.name}" if doc is not None else None)
        if doc is None:
            return results.run_record(**common, status="failed",
                                      reason=f"fio wrote no result: {err[-300:]}")
        parsed = fio.parse(doc)
        if parsed.error:
            return results.run_record(**common, parsed=parsed, doc=doc, status="failed",
                                      reason=describe_error(parsed.error, engine, err))
        return results.run_record(**common, parsed=parsed, doc=doc)

    def add(self, rec: dict[str, Any]) -> dict[str, Any]:
        rec["round"] = self.round
        self.doc["runs"].append(rec)
        if rec["status"] != "ok" and self.progress:
            self.progress.note(f"{rec['id']}: {rec['status']}: {rec['reason']}")
        return rec

    def save(self) -> None:
        self.doc["analysis"] = analysis.analyze(self.doc)
        results.save(self.doc, self.out)

    # --- steps --------------------------------------------------------------
    def baseline(self) -> None:
        for d in self.devs:
            for wname in self.suite.baseline:
                self.add(self.fio_job(
                    run_id=f"baseline/{d.name}/{wname}/libaio", step="baseline",
                    kind="raw", label=d.name, workload=jobs.WORKLOADS[wname],
                    engine=jobs.LIBAIO, targets=self.targets([d])))
        self.save()

    def _reuse(self, src: dict[str, Any] | None, run_id: str, step: str,
               label: str) -> dict[str, Any] | None:
        if src is None or src["status"] != "ok":
            return None
        rec = dict(src)
        rec.update(id=run_id, step=step, label=label, reused=src["id"])
        rec.pop("fio", None)
        return self.add(rec)

    def _find(self, step: str, workload: str, targets: list[str],
              engine: str = "libaio") -> dict[str, Any] | None:
        runs: list[dict[str, Any]] = self.doc["runs"]
        for r in runs:
            if (r["step"] == step and r["workload"] == workload and r["targets"] == targets
                    and r["engine"] == engine and r["kind"] == "raw"):
                return r
        return None

    def scaling(self) -> None:
        for ename in self.suite.scaling_engines:
            engine = jobs.ENGINES[ename]
            for wname in self.suite.scaling:
                for k in range(1, len(self.devs) + 1):
                    self._scaling_point(k, jobs.WORKLOADS[wname], engine)
        self.save()

    def _scaling_point(self, k: int, w: jobs.Workload, engine: jobs.Engine) -> None:
        devs = self.devs[:k]
        run_id = f"scaling/{k}/{w.name}/{engine.name}"
        paths = [d.path for d in devs]
        if k == 1 and self._reuse(self._find("baseline", w.name, paths, engine.name),
                                  run_id, "scaling", "1 drive"):
            return
        if engine.hipri:
            why = self.poll_problem([d.name for d in devs], "raw")
            if why:
                self.add(results.run_record(
                    run_id=run_id, step="scaling", kind="raw", label=f"{k} drives",
                    workload=w.name, engine=engine.name, targets=paths,
                    status="skipped", reason=why))
                if self.progress:
                    self.progress.job_done()
                return
        self.add(self.fio_job(run_id=run_id, step="scaling", kind="raw",
                              label=f"{k} drives", workload=w, engine=engine,
                              targets=self.targets(devs)))

    def poll_problem(self, names: list[str], kind: str) -> str | None:
        """Why hipri cannot run on these devices, None if every one polls."""
        off = [n for n in names
               if (devices.from_sysfs("/dev/" + n, self.sysfs, name=n).io_poll is not True)]
        if not off:
            return None
        why = f"queue/io_poll is not 1 on {', '.join(off)}"
        if kind == "md":
            return f"md cannot poll ({why})"
        return why

    def engines(self, *, kind: str, label: str, targets: tuple[jobs.Target, ...],
                names: list[str], numjobs: int | None = None, level: int | None = None,
                members: list[str] | None = None, skip_libaio: bool = False,
                reuse_scaling: bool = False) -> None:
        w = jobs.WORKLOADS[self.suite.engine_workload]
        for ename in self.suite.engines:
            engine = jobs.ENGINES[ename]
            run_id = self.rid(f"engines/{label}/{w.name}/{ename}")
            if ename == "libaio" and skip_libaio:
                continue
            if reuse_scaling and self._reuse(
                    self._find("scaling", w.name, [t.path for t in targets], ename),
                    run_id, "engines", label):
                continue
            if engine.hipri:
                why = self.poll_problem(names, kind)
                if why:
                    self.add(results.run_record(
                        run_id=run_id, step="engines", kind=kind, label=label,
                        workload=w.name, engine=ename, targets=[t.path for t in targets],
                        level=level, members=members, status="skipped", reason=why))
                    if self.progress:
                        self.progress.job_done()
                    continue
            self.add(self.fio_job(run_id=run_id, step="engines", kind=kind, label=label,
                                  workload=w, engine=engine, targets=targets,
                                  numjobs=numjobs, level=level, members=members))

    def raw_engines(self) -> None:
        paths = [d.path for d in self.devs]
        w = self.suite.engine_workload
        src = self._find("scaling", w, paths) or (
            self._find("baseline", w, paths) if len(paths) == 1 else None)
        reused = self._reuse(src, f"engines/raw/{w}/libaio", "engines", "raw")
        self.engines(kind="raw", label="raw", targets=self.targets(self.devs),
                     names=[d.name for d in self.devs], skip_libaio=reused is not None,
                     reuse_scaling=True)
        self.save()

    def round_order(self, level: int) -> list[str]:
        """The contenders of the current round of @level in the order they
        run: each once, shuffled from the seed (the same seed, level and
        round give the same order), or raw and then the kinds without one."""
        order = ["raw", *self.kinds]
        if self.seed is not None:
            random.Random(f"{self.seed}:{level}:{self.round}").shuffle(order)
        return order

    def arrays(self) -> None:
        """Every level, --repeat rounds of raw and each array, in an order
        shuffled for each round (round_order, recorded in the document's
        "orders"), so the contenders are interleaved in time, none always
        first or last, and noise shows as spread."""
        paths = [d.path for d in self.devs]
        n = len(self.devs)
        for level in self.levels:
            for self.round in range(1, self.repeat + 1):
                order = self.round_order(level)
                self.doc.setdefault("orders", []).append(
                    {"level": level, "round": self.round, "order": order})
                for kind in order:
                    if kind == "raw":
                        self.raw_round(level, paths)
                    else:
                        self.one_array(kind, level, paths, n)
                self.save()
        self.round = 1

    def raw_round(self, level: int, paths: list[str]) -> None:
        """The raw aggregate of the drives, each array workload, for @level's
        current round (the first round reuses the scaling step's runs)."""
        for wname in self.suite.arrays:
            w = jobs.WORKLOADS[wname]
            rid = self.rid(f"arrays/raw-r{level}/{wname}/libaio")
            src = self._find("scaling", wname, paths) if self.round == 1 else None
            if not self._reuse(src, rid, "arrays", "raw"):
                self.add(self.fio_job(run_id=rid, step="arrays", kind="raw",
                                      label="raw", workload=w, engine=jobs.LIBAIO,
                                      targets=self.targets(self.devs)))
            self.doc["runs"][-1]["level"] = level

    def _skip_array(self, kind: str, level: int, status: str, reason: str,
                    paths: list[str]) -> None:
        self.doc["arrays"].append({"kind": kind, "level": level, "status": status,
                                   "reason": reason, "round": self.round})
        for wname in self.suite.arrays:
            self.add(results.run_record(
                run_id=self.rid(f"arrays/{kind}-r{level}/{wname}/libaio"), step="arrays",
                kind=kind,
                label=f"{kind}-r{level}", workload=wname, engine="libaio", targets=[],
                level=level, members=paths, status="skipped", reason=reason))
        if self.progress:
            for _ in range(len(self.suite.arrays) + max(0, len(self.suite.engines) - 1)):
                self.progress.job_done()

    def one_array(self, kind: str, level: int, paths: list[str], n: int) -> None:
        backend = self.backends[kind]
        why = backend.unavailable(level, n)
        if why is None and not all(d.is_block for d in self.devs):
            why = "arrays need block devices, not files"
        if why:
            self._skip_array(kind, level, "unavailable", why, paths)
            return
        spec = arrays.ArraySpec(kind, level, self.suite.chunk_kib, paths, force=self.force)
        if self.progress:
            self.progress.begin("arrays", f"creating {kind} RAID{level}")
        try:
            arr = backend.create(spec)
        except arrays.ArrayError as e:
            self._skip_array(kind, level, "failed", f"create failed: {e}", paths)
            return
        entry: dict[str, Any] = {"status": "created", "round": self.round, **arr.to_json()}
        self.doc["arrays"].append(entry)
        label = f"{kind}-r{level}"
        name = devices.kernel_name(arr.path)
        target = (jobs.Target(arr.path, None),)
        try:
            for wname in self.suite.arrays:
                w = jobs.WORKLOADS[wname]
                self.add(self.fio_job(
                    run_id=self.rid(f"arrays/{label}/{wname}/libaio"), step="arrays", kind=kind,
                    label=label, workload=w, engine=jobs.LIBAIO, targets=target,
                    numjobs=w.numjobs * n, level=level, members=paths))
            self.engines(kind=kind, label=label, targets=target, names=[name],
                         numjobs=jobs.WORKLOADS[self.suite.engine_workload].numjobs * n,
                         level=level, members=paths, skip_libaio=True)
        finally:
            try:
                backend.destroy(arr)
                entry["status"] = "ok"
            except arrays.ArrayError as e:
                entry["status"] = "teardown failed"
                entry["reason"] = str(e)
            entry["commands"] = [" ".join(c) for c in arr.commands]


def describe_error(code: int, engine: jobs.Engine, stderr: str) -> str:
    name = errno.errorcode.get(code, str(code))
    msg = f"fio error {code} ({name}: {os.strerror(code)})"
    if engine.hipri and code in (errno.EOPNOTSUPP, errno.EINVAL):
        msg += ": the device does not support polled I/O"
    last = [line for line in stderr.splitlines() if line.strip()]
    return msg + (f"; {last[-1][:200]}" if last else "")
