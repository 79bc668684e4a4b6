"""The debug kernel's record of check-long's tests (selftests/record).

check-long's debug list takes most of a day to run on a 2-core machine
under TCG, longer than one working session. The record lets that run
span sessions and machines and still be the record of one module: every
line names the module it ran (a hash of the disassembly of stria.ko as
built for the debug kernel), so a test counts for the record only if it
passed on the module being recorded, whatever commit or day it ran on.

The record is a TSV file kept in the tree, one line per test run, the
last line of a test winning:

    module-hash  test  status  seconds  commit  utc-time  reason

`tap()` turns the lines of one module into the TAP file kept beside it,
with a header that says what ran where and a list of the tests still to
run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
from pathlib import Path

FIELDS = ("module", "test", "status", "seconds", "commit", "time", "reason")
STATUSES = ("ok", "not ok", "skip")


@dataclasses.dataclass
class Entry:
    """One run of one test."""
    module: str
    test: str
    status: str
    seconds: int
    commit: str
    time: str
    reason: str = ""

    def line(self) -> str:
        vals = [self.module, self.test, self.status, str(self.seconds), self.commit,
                self.time, self.reason]
        for v in vals:
            if "\t" in v or "\n" in v:
                raise ValueError(f"record field with a tab or newline: {v!r}")
        return "\t".join(vals) + "\n"


def parse(text: str) -> list[Entry]:
    """The entries of a record file; '#' lines are comments."""
    out = []
    for n, ln in enumerate(text.splitlines(), 1):
        if not ln.strip() or ln.startswith("#"):
            continue
        f = ln.split("\t")
        if len(f) not in (6, 7) or f[2] not in STATUSES or not f[3].isdigit():
            raise ValueError(f"record line {n}: expected {len(FIELDS)} tab-separated "
                             f"fields ({', '.join(FIELDS)}), status one of {STATUSES}: {ln!r}")
        out.append(Entry(f[0], f[1], f[2], int(f[3]), f[4], f[5], f[6] if len(f) > 6 else ""))
    return out


def latest(entries: list[Entry], module: str) -> dict[str, Entry]:
    """The last run of each test on `module`."""
    out: dict[str, Entry] = {}
    for e in entries:
        if e.module == module:
            out[e.test] = e
    return out


def module_hash(ko: Path) -> str:
    """A hash of stria.ko's code: its disassembly (instructions, not their
    bytes) without objdump's three header lines (which name the file), so
    the same code built in another directory or at another commit hashes
    the same: `objdump -d --no-show-raw-insn KO | tail -n +4 | sha256sum`."""
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(ko)], check=True,
                         capture_output=True, text=True).stdout
    body = dis.split("\n", 3)[3] if dis.count("\n") >= 3 else dis
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def parse_tap_line(out: str, test: str) -> tuple[str, int, str]:
    """Status, seconds and reason of `test` from a one-test TAP run of
    selftests/run; ('not ok', 0, why) when its line is missing."""
    for ln in out.splitlines():
        for status in ("not ok", "ok"):
            head = f"{status} 1 - "
            if not ln.startswith(head) or f"/{test}" not in ln:
                continue
            rest = ln[len(head):]
            if "# SKIP" in rest:
                return "skip", 0, rest.split("# SKIP", 1)[1].strip()
            secs = 0
            if " (" in rest and " s)" in rest:
                num = rest.split(" (", 1)[1].split(" s)", 1)[0]
                secs = int(num) if num.isdigit() else 0
            reason = rest.split(" s): ", 1)[1] if " s): " in rest else ""
            return status, secs, reason
    return "not ok", 0, "no TAP line for the test (runner interrupted or crashed)"


def tap(entries: list[Entry], module: str, wanted: list[str], header: list[str]) -> str:
    """The TAP file of `module`: the tests of `wanted` that ran on it, in
    that order, then the ones still to run as comments."""
    last = latest(entries, module)
    ran = [t for t in wanted if t in last]
    todo = [t for t in wanted if t not in last]
    commits = sorted({last[t].commit for t in ran})
    days = sorted({last[t].time[:10] for t in ran})
    lines = [f"# {h}" for h in header]
    lines.append(f"# module {module}; commits of the runs: {', '.join(commits) or 'none'}; "
                 f"days: {', '.join(days) or 'none'}")
    lines.append(f"# {len(ran)} of the {len(wanted)} tests run so far"
                 + (f"; {len(todo)} still to run, listed at the end" if todo else ""))
    lines.append(f"1..{len(ran)}")
    for n, t in enumerate(ran, 1):
        e = last[t]
        if e.status == "ok":
            lines.append(f"ok {n} - debug/{t} ({e.seconds} s) [{e.commit}]")
        elif e.status == "skip":
            lines.append(f"ok {n} - debug/{t} # SKIP {e.reason}")
        else:
            lines.append(f"not ok {n} - debug/{t} ({e.seconds} s) [{e.commit}]: {e.reason}")
    if todo:
        lines.append(f"# not run yet on this module ({len(todo)}):")
        lines += [f"#   {t}" for t in todo]
    return "\n".join(lines) + "\n"
