# SPDX-License-Identifier: GPL-2.0
"""The admin guide's example sessions: find them, run them, compare.

A session in an .rst file is a literal block introduced by a comment::

    .. session: NAME
       setup: SHELL COMMAND        (optional, not shown: run first)

    ::

        # striactl status
        data (/dev/stria0): raid5, 4 members, active
        ...

Lines starting with ``# `` are commands (a root prompt); the lines after
one, up to the next command, are what it prints (stdout and stderr).
``...`` alone on a line stands for any number of lines, and within a line
for any text: the parts that differ from run to run (UUIDs, times, speeds).

``selftests/tests/demo/002-admin-guide`` runs every session of
``Documentation/stria/admin.rst`` in order, in one shell, in a guest, and
fails on the first output that does not match.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

PROMPT = "# "
MARK = re.compile(r"^\.\. session: ([A-Za-z0-9._-]+)\s*$")
SETUP = re.compile(r"^\s+setup: (.+)$")
ELLIPSIS = "..."


@dataclass
class Step:
    """One command and what it prints."""

    command: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Session:
    """A checked literal block of the guide."""

    name: str
    line: int
    setup: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)


def extract(text: str) -> list[Session]:
    """Every session of an .rst text, in order."""
    lines = text.splitlines()
    sessions: list[Session] = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        s = Session(m.group(1), i + 1)
        i += 1
        while i < len(lines) and SETUP.match(lines[i]):
            s.setup.append(SETUP.match(lines[i]).group(1))  # type: ignore[union-attr]
            i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines) or not lines[i].rstrip().endswith("::"):
            raise ValueError(f"line {s.line}: session {s.name}: no literal block (::) follows")
        i += 1
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
            block.append(lines[i])
            i += 1
        while block and not block[-1].strip():
            block.pop()
        while block and not block[0].strip():
            block.pop(0)
        if not block:
            raise ValueError(f"line {s.line}: session {s.name}: empty block")
        indent = min(len(b) - len(b.lstrip()) for b in block if b.strip())
        for b in block:
            b = b[indent:].rstrip()
            if b.startswith(PROMPT):
                s.steps.append(Step(b[len(PROMPT):]))
            elif not s.steps:
                raise ValueError(f"line {s.line}: session {s.name}: output before any command")
            else:
                s.steps[-1].expected.append(b)
        sessions.append(s)
    return sessions


def _line_matches(pattern: str, line: str) -> bool:
    parts = [re.escape(p) for p in pattern.split(ELLIPSIS)]
    return re.fullmatch(".*".join(parts), line) is not None


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ACTUAL fits EXPECTED, ``...`` lines taking any lines."""
    exp = [e.rstrip() for e in expected]
    act = [a.rstrip() for a in actual]
    while act and not act[-1]:
        act.pop()
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(exp):
            r = j == len(act)
        elif exp[i] == ELLIPSIS:
            r = any(go(i + 1, k) for k in range(j, len(act) + 1))
        else:
            r = j < len(act) and _line_matches(exp[i], act[j]) and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return go(0, 0)


SEP = "@@stria-session-step@@"


def script(sessions: list[Session]) -> str:
    """One bash script running every session's setup and commands in order,
    each command's output after a separator line."""
    out = ["exec 2>&1"]
    for si, s in enumerate(sessions):
        for c in s.setup:
            out.append(f"{{\n{c}\n}} >/dev/null 2>&1 </dev/null || echo 'setup failed: {s.name}'")
        for ci, st in enumerate(s.steps):
            out.append(f"echo '{SEP} {si} {ci}'")
            out.append(f"{{\n{st.command}\n}} </dev/null")
    out.append(f"echo '{SEP} end'")
    return "\n".join(out) + "\n"


def split_output(text: str) -> dict[tuple[int, int], list[str]]:
    """The run's output by (session, step)."""
    res: dict[tuple[int, int], list[str]] = {}
    cur: tuple[int, int] | None = None
    for line in text.splitlines():
        if line.startswith(SEP):
            f = line.split()
            cur = None if f[1] == "end" else (int(f[1]), int(f[2]))
            if cur is not None:
                res[cur] = []
        elif cur is not None:
            res[cur].append(line)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rst", type=Path)
    ap.add_argument("--record", type=Path, help="write what the commands printed, as sessions, here")
    ap.add_argument("--list", action="store_true", help="print the sessions' commands and exit")
    ap.add_argument("--prelude", type=Path, help="a bash file sourced before the sessions run")
    a = ap.parse_args(argv)
    sessions = extract(a.rst.read_text())
    if a.list:
        for s in sessions:
            print(f"== {s.name} (line {s.line})")
            for st in s.steps:
                print(PROMPT + st.command)
        return 0
    text = script(sessions)
    if a.prelude:
        text = f". {a.prelude}\n" + text
    # close_fds=False: the harness's channel to the host (fd 3) stays open
    # for a setup line that asks the host to pull a drive
    p = subprocess.run(["bash", "-c", text], stdout=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, check=False, close_fds=False)
    got = split_output(p.stdout.decode(errors="replace"))
    bad = 0
    rec: list[str] = []
    for si, s in enumerate(sessions):
        rec.append(f".. session: {s.name}")
        for ci, st in enumerate(s.steps):
            act = got.get((si, ci))
            rec.append(PROMPT + st.command)
            rec.extend(act or [])
            if act is None:
                print(f"not ok - {s.name}: '{st.command}' did not run (an earlier command ended the shell)")
                bad += 1
            elif not matches(st.expected, act):
                print(f"not ok - {s.name} (line {s.line}): '{st.command}' printed:")
                print("\n".join("#   " + x for x in act))
                print("# the guide says:")
                print("\n".join("#   " + x for x in st.expected))
                bad += 1
            else:
                print(f"ok - {s.name}: {st.command}")
        rec.append("")
    if a.record:
        a.record.write_text("\n".join(rec) + "\n")
    print(f"# {len(sessions)} sessions, {sum(len(s.steps) for s in sessions)} commands, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
