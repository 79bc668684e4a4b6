# SPDX-License-Identifier: GPL-2.0
"""The steps of a run: baseline, scaling, engines, arrays and latency.

0. precondition  with write workloads on real drives (not null_blk, RAM,
             loop, files, QEMU's drives): each drive written twice over, sequential 128K,
             the time it takes said first; every write run on them is then
             measured until fio's steady-state test holds (or its limit),
             and records whether it did;
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
             round in its own order, shuffled from --seed (recorded);
5. latency   4K random reads at QD1 and QD32, polled (io_uring hipri) and
             interrupt-driven (io_uring), on the raw drives (one job each)
             and on a stria array of each latency level over them (one job
             per member), for the latency percentiles of each.

A failed or skipped run is recorded with its reason; the run goes on.
results.json is written after every step, so an interrupted run keeps
what it measured.  Arrays are always torn down, even on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from . import analysis, arrays, devices, fio, jobs, results
from .arrays import Array
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
    # write runs on real drives measured until steady state (None: off)
    steady: jobs.SteadyState | None = None

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
        if s.latency_levels:
            total += (1 + len(s.latency_levels)) * self.latency_matrix()
        return total

    def latency_matrix(self) -> int:
        """fio runs of the latency step per target."""
        return len(self.suite.latency_workloads) * len(self.suite.latency_engines)

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
        steady = self.steady_for(workload, members or [t.path for t in targets])
        spec = jobs.JobSpec(run_id, workload, engine, targets, self.suite.timing,
                            numa=self.numa, numjobs=numjobs, extra=self.extra,
                            steady=steady)
        job_path = self.out / "jobs" / spec.file_name
        json_path = self.out / "fio" / (jobs.safe_name(run_id) + ".json")
        job_path.write_text(jobs.render(spec))
        if self.progress:
            self.progress.begin(step, run_id)
        timeout = (spec.runtime + spec.timing.ramp_time) * 4 + 120
        doc, err = self.run_fio(job_path, json_path, timeout)
        if self.progress:
            self.progress.job_done()
        common: dict[str, Any] = dict(
            run_id=run_id, step=step, kind=kind, label=label, workload=workload.name,
            engine=engine.name, targets=[t.path for t in targets], level=level,
            members=members, numa=[t.numa_node for t in targets],
            job_file=f"jobs/{job_path.name}",
            fio_json=f"fio/{json_path.name}" if doc is not None else None,
            steady=steady.to_json() if steady else None)
        if doc is None:
            return results.run_record(**common, status="failed",
                                      reason=f"fio wrote no result: {err[-300:]}")
        parsed = fio.parse(doc)
        if parsed.error:
            return results.run_record(**common, parsed=parsed, doc=doc, status="failed",
                                      reason=describe_error(parsed.error, engine, err))
        return results.run_record(**common, parsed=parsed, doc=doc)

    def real_drives(self) -> list[devices.DeviceInfo]:
        return [d for d in self.devs if d.real_drive]

    def steady_for(self, workload: jobs.Workload,
                   paths: list[str]) -> jobs.SteadyState | None:
        """The steady-state test for a run of @workload on @paths (the
        drives, or an array's members): write runs on real drives only."""
        real = {d.path for d in self.real_drives()}
        if self.steady is None or not workload.is_write or not paths:
            return None
        return self.steady if all(p in real for p in paths) else None

    # --- preconditioning --------------------------------------------------
    def precondition(self, say: Callable[[str], None],
                     declared_mbps: float | None = None) -> dict[str, Any]:
        """Fill every real drive twice with sequential 128K writes, all at
        once, after saying how long it will take: 2 x capacity over the
        bandwidth declared (MB/s) or measured (PRECONDITION_PROBE_S of the
        same writes). Recorded in the document's "precondition"."""
        drives = self.real_drives()
        rec: dict[str, Any] = {"drives": [d.path for d in drives],
                               "passes": jobs.PRECONDITION_PASSES,
                               "block_size": jobs.PRECONDITION_BS}
        self.doc["precondition"] = rec
        if not drives:
            rec.update(status="skipped", reason="no real drive (null_blk, RAM disks, loop, "
                       "files and QEMU's emulated drives need no preconditioning)")
            return rec
        targets = self.targets(drives)
        if declared_mbps is not None:
            bw = {d.path: declared_mbps * 1e6 for d in drives}
            rec["bandwidth_source"] = "declared"
        else:
            rec["bandwidth_source"] = "measured"
            probe = self._probe_bandwidth(targets)
            if probe is None:
                rec.update(status="failed", reason="the bandwidth probe wrote no result "
                           "(see fio/precondition-probe.json)")
                say(f"preconditioning not done: {rec['reason']}")
                self.save()
                return rec
            bw = probe
        est = max(jobs.PRECONDITION_PASSES * (d.size_bytes or 0) / bw[d.path] for d in drives)
        rec["bandwidth_mbps"] = {p: round(b / 1e6, 1) for p, b in bw.items()}
        rec["estimate_s"] = round(est)
        say(f"preconditioning {', '.join(d.name for d in drives)}: each written "
            f"{jobs.PRECONDITION_PASSES} times over with sequential "
            f"{jobs.PRECONDITION_BS} writes, "
            + ", ".join(f"{d.name} {_fmt_bytes(d.size_bytes or 0)} at "
                        f"{bw[d.path] / 1e6:.0f} MB/s" for d in drives)
            + f" ({rec['bandwidth_source']}): about {fmt_duration(est)} "
            f"(--no-precondition skips it)"
            + (f"; then each write run lasts until steady state "
               f"({self.steady.criterion}), {fmt_duration(self.steady.max_s)} at most"
               if self.steady else ""))
        job = self.out / "jobs" / "precondition.fio"
        job.write_text(jobs.render_precondition(targets, numa=self.numa))
        if self.progress:
            self.progress.begin("precondition", f"filling {len(drives)} drives twice")
        start = time.monotonic()
        doc, err = self.run_fio(job, self.out / "fio" / "precondition.json", est * 4 + 600)
        rec["seconds"] = round(time.monotonic() - start)
        parsed = fio.parse(doc) if doc is not None else None
        if parsed is None or parsed.error:
            why = (f"fio wrote no result: {err[-300:]}" if parsed is None else
                   describe_error(parsed.error, jobs.LIBAIO, err))
            rec.update(status="failed", reason=why)
            say(f"preconditioning failed: {why}; the write runs are measured anyway")
        else:
            rec["status"] = "ok"
        self.save()
        return rec

    def _probe_bandwidth(self, targets: tuple[jobs.Target, ...]) -> dict[str, float] | None:
        job = self.out / "jobs" / "precondition-probe.fio"
        job.write_text(jobs.render_precondition(targets, probe=True, numa=self.numa))
        if self.progress:
            self.progress.begin("precondition", "measuring write bandwidth")
        doc, _ = self.run_fio(job, self.out / "fio" / "precondition-probe.json",
                              jobs.PRECONDITION_PROBE_S * 4 + 120)
        if doc is None:
            return None
        parsed = fio.parse(doc)
        bw = {g.filename: g.write.bw_bytes for g in parsed.groups}
        if parsed.error or any(bw.get(t.path, 0) <= 0 for t in targets):
            return None
        return bw

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
        if engine.hipri and self.skip_unpolled(
                [d.name for d in devs], run_id=run_id, step="scaling", kind="raw",
                label=f"{k} drives", workload=w.name, engine=engine.name, targets=paths):
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

    def skip_unpolled(self, names: list[str], *, run_id: str, step: str, kind: str,
                      label: str, workload: str, engine: str, targets: list[str],
                      level: int | None = None, members: list[str] | None = None) -> bool:
        """Record a polled run as skipped when @names cannot all poll; True if so."""
        why = self.poll_problem(names, kind)
        if not why:
            return False
        self.add(results.run_record(
            run_id=run_id, step=step, kind=kind, label=label, workload=workload,
            engine=engine, targets=targets, level=level, members=members,
            status="skipped", reason=why))
        if self.progress:
            self.progress.job_done()
        return True

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
            if engine.hipri and self.skip_unpolled(
                    names, run_id=run_id, step="engines", kind=kind, label=label,
                    workload=w.name, engine=ename, targets=[t.path for t in targets],
                    level=level, members=members):
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

    def _skip_array(self, kind: str, level: int, paths: list[str], reason: str) -> None:
        for wname in self.suite.arrays:
            self.add(results.run_record(
                run_id=self.rid(f"arrays/{kind}-r{level}/{wname}/libaio"), step="arrays",
                kind=kind,
                label=f"{kind}-r{level}", workload=wname, engine="libaio", targets=[],
                level=level, members=paths, status="skipped", reason=reason))
        if self.progress:
            for _ in range(len(self.suite.arrays) + max(0, len(self.suite.engines) - 1)):
                self.progress.job_done()

    @contextlib.contextmanager
    def built(self, kind: str, level: int, paths: list[str], step: str,
              skip: Callable[[str], None]) -> Iterator[Array | None]:
        """An array of @kind over @paths for the body, torn down after it
        (even on Ctrl-C); None, after skip(reason), when it cannot be built.
        Every array tried is in the document's "arrays", with its outcome."""
        backend = self.backends[kind]
        why = backend.unavailable(level, len(paths))
        if why is None and not all(d.is_block for d in self.devs):
            why = "arrays need block devices, not files"
        status = "unavailable"
        arr = None
        if not why:
            spec = arrays.ArraySpec(kind, level, self.suite.chunk_kib, paths, force=self.force)
            if self.progress:
                self.progress.begin(step, f"creating {kind} RAID{level}")
            try:
                arr = backend.create(spec)
            except arrays.ArrayError as e:
                status, why = "failed", f"create failed: {e}"
        if arr is None:
            self.doc["arrays"].append({"kind": kind, "level": level, "status": status,
                                       "reason": why, "round": self.round, "step": step})
            skip(str(why))
            yield None
            return
        entry: dict[str, Any] = {"status": "created", "round": self.round, "step": step,
                                 **arr.to_json()}
        self.doc["arrays"].append(entry)
        try:
            yield arr
        finally:
            try:
                backend.destroy(arr)
                entry["status"] = "ok"
            except arrays.ArrayError as e:
                entry["status"] = "teardown failed"
                entry["reason"] = str(e)
            entry["commands"] = [" ".join(c) for c in arr.commands]

    def one_array(self, kind: str, level: int, paths: list[str], n: int) -> None:
        label = f"{kind}-r{level}"
        with self.built(kind, level, paths, "arrays",
                        lambda why: self._skip_array(kind, level, paths, why)) as arr:
            if arr is None:
                return
            target = (jobs.Target(arr.path, None),)
            for wname in self.suite.arrays:
                w = jobs.WORKLOADS[wname]
                self.add(self.fio_job(
                    run_id=self.rid(f"arrays/{label}/{wname}/libaio"), step="arrays", kind=kind,
                    label=label, workload=w, engine=jobs.LIBAIO, targets=target,
                    numjobs=w.numjobs * n, level=level, members=paths))
            self.engines(kind=kind, label=label, targets=target,
                         names=[devices.kernel_name(arr.path)],
                         numjobs=jobs.WORKLOADS[self.suite.engine_workload].numjobs * n,
                         level=level, members=paths, skip_libaio=True)

    # --- latency: polled against interrupt, QD1 and QD32, raw and stria ----
    def latency(self) -> None:
        """The raw drives (one job on each), then a stria array of each
        latency level over them (one job per member, so the array has the
        drives' concurrency): every latency workload with every latency
        engine. A polled run where a device cannot poll is skipped, with why."""
        s = self.suite
        if not s.latency_levels:
            return
        paths = [d.path for d in self.devs]
        self._latency_runs(kind="raw", label="raw", targets=self.targets(self.devs),
                           names=[d.name for d in self.devs])
        for level in s.latency_levels:
            label = f"stria-r{level}"
            with self.built("stria", level, paths, "latency",
                            lambda why: self._skip_latency(label, level, paths, why)) as arr:
                if arr is not None:
                    self._latency_runs(kind="stria", label=label,
                                       targets=(jobs.Target(arr.path, None),),
                                       names=[devices.kernel_name(arr.path)],
                                       per_job=len(paths), level=level, members=paths)
            self.save()

    def _latency_runs(self, *, kind: str, label: str, targets: tuple[jobs.Target, ...],
                      names: list[str], per_job: int | None = None,
                      level: int | None = None, members: list[str] | None = None) -> None:
        for wname in self.suite.latency_workloads:
            w = jobs.WORKLOADS[wname]
            for ename in self.suite.latency_engines:
                engine = jobs.ENGINES[ename]
                run_id = latency_id(label, w, ename)
                if engine.hipri and self.skip_unpolled(
                        names, run_id=run_id, step="latency", kind=kind, label=label,
                        workload=wname, engine=ename, targets=[t.path for t in targets],
                        level=level, members=members):
                    continue
                self.add(self.fio_job(
                    run_id=run_id, step="latency", kind=kind, label=label, workload=w,
                    engine=engine, targets=targets,
                    numjobs=None if per_job is None else w.numjobs * per_job,
                    level=level, members=members))

    def _skip_latency(self, label: str, level: int, paths: list[str], reason: str) -> None:
        for wname in self.suite.latency_workloads:
            for ename in self.suite.latency_engines:
                self.add(results.run_record(
                    run_id=latency_id(label, jobs.WORKLOADS[wname], ename), step="latency", kind="stria",
                    label=label, workload=wname, engine=ename, targets=[], level=level,
                    members=paths, status="skipped", reason=reason))
                if self.progress:
                    self.progress.job_done()


def _fmt_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


def fmt_duration(s: float) -> str:
    """"2 h 05 min", "15 min 14 s", "40 s"."""
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


def latency_id(label: str, w: jobs.Workload, engine: str) -> str:
    """"latency/stria-r0/qd32/io_uring-hipri": short enough for compare's table."""
    return f"latency/{label}/qd{w.iodepth}/{engine}"


def describe_error(code: int, engine: jobs.Engine, stderr: str) -> str:
    name = errno.errorcode.get(code, str(code))
    msg = f"fio error {code} ({name}: {os.strerror(code)})"
    if engine.hipri and code in (errno.EOPNOTSUPP, errno.EINVAL):
        msg += ": the device does not support polled I/O"
    last = [line for line in stderr.splitlines() if line.strip()]
    return msg + (f"; {last[-1][:200]}" if last else "")
