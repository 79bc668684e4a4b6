"""Runs test files (one VM per test, or on the host for HOST=1), reads their
TAP, scans the kernel log, and reports one TAP line per test."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import initramfs, kmemleak, profile, vm
from .kernels import TOP, Kernel
from .testfile import TestSpec

# environment variables passed to tests: benchmark, profile and fuzz knobs,
# and test knobs (STRIA_TEST_REPLACE_LOOPS=...)
PASSED_ENV = ("STRIA_BENCH_", "STRIA_PROFILE_", "STRIA_INSN_", "STRIA_FUZZ_",
              "STRIA_TEST_")

# A kernel log line matching this fails the test (the brief's list).
BAD_KERNEL_LOG = re.compile(
    r"\bBUG\b|WARNING:|\bOops\b|KASAN|lockdep is turned off|possible recursive locking"
    r"|possible circular locking|inconsistent lock state|suspicious RCU usage"
    r"|possible irq lock inversion|bad unlock balance|held lock freed"
    r"|lock held when returning to user space"
    r"|hung task|blocked for more than \d+ seconds|list_(add|del) corruption"
    r"|general protection fault|Kernel panic|stack-protector|UBSAN"
    r"|detected (expedited )?stalls? on CPU|self-detected stall|soft lockup"
    r"|Invalid wait context|sleeping function called from invalid context"
    r"|scheduling while atomic")
# A guest whose kernel reports one of these will not finish: the runner ends
# it as soon as the report is on its console (after HANG_GRACE seconds, so
# the report's backtraces are kept), instead of waiting out the timeout.
HANG_KERNEL_LOG = re.compile(
    r"blocked for more than \d+ seconds|soft lockup - CPU#"
    r"|rcu: INFO: \S+ (self-)?detected (expedited )?stalls?")
HANG_GRACE = 3.0
# Lines the stock kernel prints on every boot under QEMU TCG that match the
# pattern but are not faults of the code under test.
BENIGN_KERNEL_LOG = [
    re.compile(r"WARNING: Unprivileged eBPF is enabled"),
]


@dataclass
class Result:
    """The outcome of one test on one kernel tier."""

    status: str  # "pass", "fail", "skip"
    reason: str = ""
    seconds: float = 0.0
    # CPU time of the test's QEMU processes, every boot (0 for host tests)
    cpu: float = 0.0


TEST_START = "stria-harness: test "


@dataclass(frozen=True)
class CustomBoot:
    """A boot of a system the test made itself (host_boot in
    selftests/guest/lib.sh): the test's kernel with `initrd`, a file of the
    test's out directory, and `append` added to the kernel command line,
    without the drives numbered in `without`. No test runs in it: its
    console, copied to out/console.N (N its boot number), is its result.
    When it powers off, or after `timeout` seconds, the test boots again
    as usual with STRIA_BOOT = N + 1. Its kernel log is the test's: a
    fault there fails the test."""

    initrd: Path
    append: str
    without: frozenset[int]
    timeout: float


def parse_custom_boot(arg: str, out: Path, nvme: int) -> CustomBoot:
    """The JSON of a '#@host SEQ boot JSON' request: {"initrd": NAME,
    "append": "...", "without": [N, ...], "timeout": SECONDS}; ValueError
    when the harness cannot do it."""
    req = json.loads(arg)
    if not isinstance(req, dict):
        raise ValueError("a boot request is a JSON object")
    name = req.get("initrd")
    if not isinstance(name, str) or not re.fullmatch(r"[\w-][\w.-]*", name):
        raise ValueError(f"initrd {name!r}: give a file name in $STRIA_OUT")
    if not (out / name).is_file():
        raise ValueError(f"initrd {name!r}: no such file in $STRIA_OUT")
    append = req.get("append", "")
    if not isinstance(append, str) or not re.fullmatch(r"[ -~]*", append):
        raise ValueError("append: printable ASCII on one line")
    without = req.get("without", [])
    if not isinstance(without, list) or \
            not all(isinstance(i, int) and 0 <= i < nvme for i in without):
        raise ValueError(f"without: a list of drive numbers below {nvme}")
    timeout = req.get("timeout", 300)
    if not isinstance(timeout, (int, float)) or not 1 <= timeout <= 3600:
        raise ValueError("timeout: 1 to 3600 seconds")
    return CustomBoot(out / name, append, frozenset(without), float(timeout))

# A kernel message on the serial console ("[   12.345678] nvme ..."): what
# --console leaves out of a test's transcript.
KERNEL_LINE = re.compile(r"^\[\s*\d+\.\d+\]")


def take_lines(path: Path, pos: int) -> tuple[list[str], int]:
    """The whole lines added to ``path`` since offset ``pos``, and the new
    offset (a line still being written stays for the next call)."""
    if not path.exists():
        return [], pos
    with open(path, "rb") as f:
        f.seek(pos)
        data = f.read()
    end = data.rfind(b"\n")
    if end < 0:
        return [], pos
    chunk = data[:end + 1].decode(errors="replace")
    return [ln.rstrip("\r") for ln in chunk.splitlines()], pos + end + 1


class ConsoleFollower:
    """Prints a guest's console as it arrives (selftests/run --console):
    every whole line the test and its commands print, not the kernel's
    own messages. A new boot starts a new console.log: call restart()."""

    def __init__(self, path: Path, out: Any) -> None:
        self.path = path
        self.out = out
        self.pos = 0

    def restart(self) -> None:
        self.pos = 0

    def poll(self) -> None:
        lines, self.pos = take_lines(self.path, self.pos)
        for line in lines:
            if not KERNEL_LINE.match(line):
                self.out(line)

# Set when the run is being interrupted (Ctrl-C, SIGTERM, a harness error in
# another test): every test under way kills its guest or host job and ends.
ABORT = threading.Event()
_PRINT_LOCK = threading.Lock()


def split_at_test_start(text: str) -> tuple[str, str]:
    """Split a kernel log into the kernel's own boot and the test's part."""
    i = text.find(TEST_START)
    if i < 0:
        return text, ""
    return text[:i], text[i:]


def bad_kernel_lines(text: str) -> list[str]:
    """Kernel log lines that fail a test."""
    bad = []
    for line in text.splitlines():
        if BAD_KERNEL_LOG.search(line) and not any(b.search(line) for b in BENIGN_KERNEL_LOG):
            bad.append(line.strip())
    return bad


class ConsoleWatch:
    """Reads a guest's console log as it grows and spots hang reports."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pos = 0
        self.rest = b""

    def hang(self) -> str:
        """The first new complete line that reports a hang, or ''."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except FileNotFoundError:
            return ""
        self.pos += len(data)
        data = self.rest + data
        end = data.rfind(b"\n")
        if end < 0:
            self.rest = data
            return ""
        self.rest = data[end + 1:]
        for line in data[:end].decode(errors="replace").splitlines():
            if HANG_KERNEL_LOG.search(line):
                return line.strip()
        return ""


def parse_tap(lines: list[str]) -> tuple[int, int, str | None, int | None]:
    """Return (ok count, not-ok count, skip reason, final rc)."""
    oks = nots = 0
    skip = None
    rc = None
    for line in lines:
        if line.startswith("not ok"):
            nots += 1
        elif line.startswith("ok"):
            oks += 1
        elif line.startswith("1..0 # SKIP"):
            skip = line[len("1..0 # SKIP"):].strip()
        elif line.startswith("#@done"):
            rest = line.split(None, 1)[1] if " " in line else ""
            rc = 0 if rest == "skip" else int(rest.partition("=")[2] or 1)
    return oks, nots, skip, rc


class TestRun:
    """One test on one kernel: boots (and reboots) the VM, serves requests."""

    def __init__(self, spec: TestSpec, kernel: Kernel, initrd: Path | None,
                 workdir: Path, verbose: bool, label: str = "",
                 console: bool = False) -> None:
        self.console = ConsoleFollower(workdir / "console.log", print_flush) \
            if console else None
        self.spec = spec
        self.kernel = kernel
        self.initrd = initrd
        self.workdir = workdir
        self.verbose = verbose
        self.label = label
        self.tap: list[str] = []
        self.timed_out = False
        self.aborted = False
        # the console line of a hung task, soft lockup or RCU stall, when
        # the guest was ended for it
        self.hang = ""
        # CPU seconds of the guests of the boots that ended
        self.cpu = 0.0
        # custom boots (host_boot): their numbers, and the next one asked for
        self.custom_boots: set[int] = set()
        self.last_boot = 0
        self._next_custom: CustomBoot | None = None
        self.prepare_failed = False
        self.reboot_asked = False

    def env(self, boot: int, guest: bool) -> dict[str, str]:
        out = "/tmp/stria-out" if guest else str(self.workdir / "out")
        e = {
            "STRIA_TOP": str(TOP),
            "STRIA_TEST": str(self.spec.path),
            "STRIA_BOOT": str(boot),
            "STRIA_KERNEL": self.kernel.tier,
            "STRIA_KMOD_DIR": str(self.kernel.kmod_dir),
            "STRIA_OUT": out,
            # where the host sees it: files the guest writes there can
            # become drives (host_plug)
            "STRIA_HOST_OUT": str(self.workdir / "out"),
            "STRIA_MODULES_HOST_DIR": str(self.kernel.moddir),
        }
        # the knobs of benchmarks and profiles (STRIA_BENCH_MERGE_US=...)
        # reach the guest from the runner's environment
        for k, v in os.environ.items():
            if k.startswith(PASSED_ENV) and re.fullmatch(r"[\w.,:/ =-]*", v):
                e[k] = v
        return e

    def _write_env(self, boot: int) -> None:
        with open(self.workdir / "out" / "env", "w") as f:
            for k, v in self.env(boot, guest=True).items():
                f.write(f"{k}='{v}'\n")

    def _take_lines(self, path: Path, pos: int) -> tuple[list[str], int]:
        return take_lines(path, pos)

    def _log(self, line: str) -> None:
        if self.verbose:
            print_flush(f"    [{self.label}] {line}" if self.label else f"    {line}")

    def _run_test_on_host(self, tapf: Path, log: Path, deadline: float,
                          extra: dict[str, str]) -> int | None:
        """Run selftests/guest/run-test on the host, TAP to `tapf`, output
        to `log`; its exit status, or None when it was killed (timed out or
        aborted)."""
        env = dict(os.environ)
        env.update(self.env(1, guest=False))
        env["STRIA_HOST_TEST"] = "1"
        env["STRIA_TAP_FILE"] = str(tapf)
        # A runner started by a host test (host/001 runs selftests/broken)
        # runs its tests one at a time: this runner's pool already fills the
        # machine, and the nested run's timeouts must stay the files' own.
        env["STRIA_JOBS"] = "1"
        env.update(extra)
        with open(log, "wb") as cf:
            p = subprocess.Popen(["bash", str(TOP / "selftests" / "guest" / "run-test")],
                                 stdout=cf, stderr=subprocess.STDOUT, env=env,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            while True:
                try:
                    return p.wait(timeout=0.5)
                except subprocess.TimeoutExpired:
                    pass
                if ABORT.is_set() or time.time() > deadline:
                    self.aborted = ABORT.is_set()
                    self.timed_out = not self.aborted
                    os.killpg(p.pid, 9)
                    p.wait()
                    return None

    def run_host(self) -> None:
        tapf = self.workdir / "tap.log"
        self._run_test_on_host(tapf, self.workdir / "console.log",
                               time.time() + self.spec.timeout, {})
        self.tap, _ = self._take_lines(tapf, 0)

    def _host_prepare(self, deadline: float) -> bool:
        """The test's host_prepare() (a test file may define one: what its
        guests need that only the host can make), on the host before the
        first boot; its checks are the test's. False when it failed."""
        tapf = self.workdir / "prepare.tap"
        rc = self._run_test_on_host(tapf, self.workdir / "prepare.log", deadline,
                                    {"STRIA_HOST_PREPARE": "1"})
        lines, _ = self._take_lines(tapf, 0)
        for line in lines:
            self._log(line)
        self.tap += lines
        if rc == 0:
            return True
        if rc is not None and not any(ln.startswith("not ok") for ln in lines):
            self.tap.append(f"not ok - host_prepare exited {rc} (see prepare.log)")
        return False

    def run_vm(self) -> None:
        assert self.initrd is not None
        vm.create_images(self.workdir, self.spec)
        deadline = time.time() + self.spec.timeout
        if self.spec.host_prepare and not self._host_prepare(deadline):
            self.prepare_failed = True
            return
        boot = 1
        custom: CustomBoot | None = None
        while True:
            self._write_env(boot)
            # keep the logs of the boot before a power loss as *.log.N
            for f in ("tap.log", "console.log"):
                if (self.workdir / f).exists():
                    os.rename(self.workdir / f, self.workdir / f"{f}.{boot - 1}")
            (self.workdir / "qmp.sock").unlink(missing_ok=True)
            if custom:
                argv = vm.qemu_argv(self.kernel, custom.initrd, self.spec, self.workdir,
                                    custom.append, custom.without)
                self.custom_boots.add(boot)
            else:
                argv = vm.qemu_argv(self.kernel, self.initrd, self.spec, self.workdir)
            self.last_boot = boot
            boot_deadline = min(deadline, time.time() + custom.timeout) if custom else deadline
            (self.workdir / "qemu.cmdline").write_text(" ".join(argv) + "\n")
            guest = vm.VM(argv, self.workdir)
            vm.wait_qmp_socket(self.workdir)
            pos = 0
            console = ConsoleWatch(self.workdir / "console.log")
            hang_kill = 0.0
            rebooted = False
            self.reboot_asked = False
            if self.console:
                self.console.restart()
            cpu = 0.0
            while True:
                cpu = guest.cpu_seconds() or cpu
                if self.console:
                    self.console.poll()
                if not self.hang:
                    self.hang = console.hang()
                    if self.hang:
                        print_flush(f"# {self.spec.name}: the guest hangs ({self.hang[:120]}); "
                                    f"ending it in {HANG_GRACE:.0f} s")
                        hang_kill = time.time() + HANG_GRACE
                if self.hang and time.time() > hang_kill:
                    break
                lines, pos = self._take_lines(self.workdir / "tap.log", pos)
                for line in lines:
                    self._log(line)
                    if line.startswith("#@host "):
                        if self._host_request(guest, line):
                            rebooted = True
                            break
                    else:
                        self.tap.append(line)
                if rebooted:
                    break
                if not guest.alive():
                    # the guest rebooted itself (host_reboot); QEMU runs
                    # with -no-reboot, so its reset ended QEMU
                    rebooted = self.reboot_asked
                    break
                if ABORT.is_set():
                    self.aborted = True
                    break
                if time.time() > boot_deadline:
                    # a custom boot that did not power off in its time: the
                    # test's next boot looks at what it printed
                    self.timed_out = not custom or time.time() > deadline
                    break
                time.sleep(0.1)
            if guest.alive() and not rebooted and not custom and not self.hang:
                # the test finished and the guest is powering off; give it a moment
                end = time.time() + 15
                while guest.alive() and time.time() < end and not self.timed_out \
                        and not ABORT.is_set():
                    cpu = guest.cpu_seconds() or cpu
                    time.sleep(0.1)
            self.cpu += cpu
            guest.kill()
            if self.console:
                self.console.poll()
            lines, pos = self._take_lines(self.workdir / "tap.log", pos)
            self.tap += [ln for ln in lines if not ln.startswith("#@host ")]
            if custom and (self.workdir / "console.log").exists():
                shutil.copy(self.workdir / "console.log", self.workdir / "out" / f"console.{boot}")
            if (rebooted or custom) and not self.timed_out and not self.aborted \
                    and not self.hang:
                boot += 1
                custom, self._next_custom = self._next_custom, None
                continue
            break

    def _host_request(self, guest: vm.VM, line: str) -> bool:
        """Serve one '#@host SEQ CMD ARGS' line; True when the VM was killed."""
        parts = line.split(None, 3)
        seq, cmd = parts[1], parts[2]
        arg = parts[3] if len(parts) > 3 else ""
        if cmd == "kill":
            guest.kill()
            return True
        reply: dict[str, Any]
        if cmd == "boot":
            try:
                self._next_custom = parse_custom_boot(arg, self.workdir / "out", self.spec.nvme)
            except ValueError as e:
                reply = {"error": {"desc": f"harness: boot: {e}"}}
            else:
                guest.kill()
                return True
        elif cmd == "reboot":
            # the guest calls reboot(2) once it has this answer
            self.reboot_asked = True
            reply = {"return": {}}
        elif cmd == "qmp":
            try:
                reply = guest.qmp(json.loads(arg))
            except (OSError, ValueError) as e:
                reply = {"error": {"desc": f"harness: {e}"}}
        elif cmd == "profile":
            reply = self._profile(arg)
        else:
            reply = {"error": {"desc": f"harness: unknown request {cmd!r}"}}
        ack = self.workdir / "out" / f"ack.{seq}"
        tmp = ack.with_suffix(".tmp")
        tmp.write_text(json.dumps(reply) + "\n")
        tmp.rename(ack)
        return False

    def _profile(self, arg: str) -> dict[str, Any]:
        """'profile begin|end NAME': snapshot the guest's instruction counts
        (VM_PROFILE=1); at the end, write out/NAME with what ran between
        the two snapshots, one 'vaddr instructions-per-block executions'
        line per block, for profile.py to resolve with the guest's
        kallsyms."""
        try:
            what, name = arg.split()
            if not re.fullmatch(r"[\w.-]+", name) or what not in ("begin", "end"):
                raise ValueError(f"bad profile request {arg!r}")
            if not self.spec.profile:
                raise ValueError("the test does not say VM_PROFILE=1")
            snap = vm.insn_snapshot(self.workdir, f"{name}.{what}")
            if what == "end":
                begin = self.workdir / "profile" / f"snap-{name}.begin"
                with open(begin) as b, open(snap) as e:
                    diff = profile.diff_snapshots(b, e)
                with open(self.workdir / "out" / name, "w") as f:
                    for (vaddr, insns), n in sorted(diff.items()):
                        f.write(f"{vaddr:x} {insns} {n}\n")
        except (OSError, ValueError) as e:
            return {"error": {"desc": f"harness: profile: {e}"}}
        return {"return": {}}

    def booted(self) -> bool:
        """Did the guest reach the test (run-test's first line)?"""
        con = self.workdir / "console.log"
        logs = [con] + sorted(self.workdir.glob("console.log.*"))
        return any(TEST_START in p.read_text(errors="replace") for p in logs if p.exists())

    def kernel_logs(self) -> tuple[str, str]:
        """(boot, test): every kernel log of every boot, split at the marker
        run-test writes to /dev/kmsg before the test's setup starts."""
        boot, test = [], []
        for p in sorted(self.workdir.glob("console.log*")) + \
                sorted((self.workdir / "out").glob("dmesg.*")):
            if self._custom_console(p):
                # a system the test made: all of its log is the test's
                test.append(p.read_text(errors="replace"))
                continue
            b, t = split_at_test_start(p.read_text(errors="replace"))
            boot.append(b)
            test.append(t)
        return "\n".join(boot), "\n".join(test)

    def _custom_console(self, p: Path) -> bool:
        """Is `p` the console log of a custom boot?"""
        if p.name == "console.log":
            return self.last_boot in self.custom_boots
        n = p.name.rpartition(".")[2]
        return p.name.startswith("console.log.") and n.isdigit() and int(n) in self.custom_boots

    def boot_problems(self) -> list[str]:
        """Faults the kernel reported while booting, before the test began."""
        return [] if self.spec.host else bad_kernel_lines(self.kernel_logs()[0])

    def verdict(self, seconds: float) -> Result:
        oks, nots, skip, rc = parse_tap(self.tap)
        bad = [] if self.spec.host else bad_kernel_lines(self.kernel_logs()[1])
        if bad:
            ended = " (the guest hung and was ended at once)" if self.hang else ""
            return Result("fail", f"kernel log: {bad[0][:160]}{ended}", seconds)
        boot_bad = self.boot_problems()
        if boot_bad:
            return Result("fail", f"kernel log while booting, before the test: {boot_bad[0][:160]}",
                          seconds)
        if self.hang:
            return Result("fail", f"kernel log: {self.hang[:160]} (the guest hung and was "
                          "ended at once)", seconds)
        if self.aborted:
            return Result("fail", "interrupted", seconds)
        if self.timed_out:
            # where it stopped, for whoever reads only the summary (CI)
            done = [ln for ln in self.tap if ln.startswith(("ok", "not ok"))]
            where = f"; last check: {done[-1][:100]}" if done else "; before its first check"
            return Result("fail", f"timed out after {self.spec.timeout} s{where}", seconds)
        leaks = [] if self.spec.host else kmemleak.owned_leaks(self.workdir / "out")
        if leaks:
            leak, where = leaks[0]
            return Result("fail", f"kmemleak: {len(leaks)} object(s) leaked by this project's "
                          f"modules, first: {leak.header[:80]} allocated in {where}", seconds)
        if skip is not None and nots == 0:
            why = skip or "requirements not met"
            declared = self.spec.may_skip.get(self.kernel.tier)
            if declared is None:
                # make check must not pass what it did not run: a skip the
                # test does not declare for this tier (MAY_SKIP) is a
                # missing dependency or a broken premise
                return Result("fail", f"unexpected skip: {why} (MAY_SKIP does not name "
                              f"{self.kernel.tier})", seconds)
            return Result("skip", f"{why} (may skip on {self.kernel.tier}: {declared})", seconds)
        if nots:
            first = next(ln for ln in self.tap if ln.startswith("not ok"))
            return Result("fail", f"{nots} check(s) failed, first: {first}", seconds)
        if rc is None:
            return Result("fail", "test did not finish (no #@done: crash or panic?)", seconds)
        if rc != 0:
            return Result("fail", f"test_main returned {rc}", seconds)
        if oks == 0:
            return Result("fail", "test reported no result", seconds)
        return Result("pass", f"{oks} checks", seconds)


def run_one(spec: TestSpec, kernel: Kernel, initrd: Path | None, results: Path,
            verbose: bool, workroot: Path | None = None, label: str = "",
            console: bool = False) -> Result:
    """Run `spec` on `kernel`; keep its logs in `results` when it fails.
    `label` prefixes the test's live TAP lines (verbose) when several tests
    run at once. Safe to call from several threads for different tests."""
    safe = spec.name.replace("/", "_")
    # one directory per runner process: two runs of the same test (a
    # developer's and make check's) must not share images or logs
    workdir = (workroot or TOP / "build" / "work" / f"{kernel.tier}-{os.getpid()}") / safe
    if workdir.exists():
        shutil.rmtree(workdir)
    (workdir / "out").mkdir(parents=True)
    start = time.time()
    for attempt in (1, 2):
        run = TestRun(spec, kernel, initrd, workdir, verbose, label, console)
        if spec.host:
            run.run_host()
            break
        run.run_vm()
        if run.aborted:
            break
        # A guest that died before the test started, or whose kernel reported
        # a fault while booting (before stria or the test did anything), is
        # an infrastructure failure (TCG on a loaded host), not the code
        # under test: boot once more, and say so.
        boot_bad = run.boot_problems()
        if attempt == 1 and not run.prepare_failed and (not run.booted() or boot_bad):
            why = f"kernel log: {boot_bad[0][:120]}" if boot_bad else "it did not boot"
            print_flush(f"# {spec.name}: the guest failed before the test ({why}); "
                        "booting once more")
            # keep the failed boot's console for whoever wonders why
            kept = workdir.with_name(workdir.name + ".boot1")
            if kept.exists():
                shutil.rmtree(kept)
            workdir.rename(kept)
            (workdir / "out").mkdir(parents=True)
            continue
        break
    res = run.verdict(time.time() - start)
    res.cpu = run.cpu
    (workdir / "tap.all").write_text("\n".join(run.tap) + "\n")
    dest = results / kernel.tier / safe
    if res.status == "fail":
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(workdir, dest, symlinks=True,
                        ignore=shutil.ignore_patterns("*.img", "qmp.sock"))
        res.reason += f" (logs: {dest.relative_to(TOP) if dest.is_relative_to(TOP) else dest})"
    else:
        if spec.keep_out:
            # a benchmark's raw output (KEEP_OUT=1), where make bench's
            # --results puts it and scripts/render-performance --import reads it
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(workdir / "out", dest / "out", symlinks=True,
                            ignore=shutil.ignore_patterns("*.img"))
        for img in workdir.glob("*.img"):
            img.unlink()
    return res


def prepare(kernel: Kernel) -> Path:
    """Build what the guest needs for `kernel`: modules and the initramfs."""
    from .kernels import build_modules
    build_modules(kernel)
    return initramfs.build(kernel)


def print_flush(*a: object) -> None:
    """print() whole lines at once: tests running in several threads must
    not interleave within a line."""
    text = " ".join(str(x) for x in a) + "\n"
    with _PRINT_LOCK:
        sys.stdout.write(text)
        sys.stdout.flush()
