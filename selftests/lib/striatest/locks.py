# SPDX-License-Identifier: GPL-2.0
"""Lock acquisitions and contentions per array I/O, by lock class, for
selftests/bench/raid56-locks, and its table in
Documentation/stria/performance.rst.

The debug kernel has lockdep but not lock_stat. lockdep's tracepoint
lock:lock_acquire (name and lockdep_map of every acquisition, spinlocks,
mutexes, rwsems, seqcount writers, local locks and lockdep's annotations
alike) and lock:contention_begin (the address of a lock whose fast path
failed) exist without it. The benchmark records both with ftrace for a few
seconds of a workload and ``count`` reduces the text trace to a window
file: per class name its acquisitions, contentions and distinct instances.
A contention is the class of the latest acquisition on the same CPU whose
lockdep_map lies within the contended lock (a lock's lockdep_map is a
field of it: spin_lock() records the acquisition, then spins). A mutex
counts only when its task slept (flags=MUTEX): with lockdep every
mutex_lock() takes the slow path, whose first contention_begin
(flags=SPIN|MUTEX) comes before its trylock, contended or not.

A trace names a class by its name only, and names repeat (``&st->lock``).
``owners`` asks /proc/lockdep for every class's key (raw addresses: the
guest boots with no_hash_pointers) and /proc/kallsyms for the module that
holds the key, so each name seen gets the set of modules that define a
class of that name. lock-classes.tsv (CLASSES) then says, for the names
that stria and md (md_mod, raid456) define, where the lock is initialised
and how many instances it has: one per array, one per stripe (or hash
bucket of stripes), one per CPU, or a lockdep annotation that writes no
lock word. A class of those modules that it lacks, or a name that one of
them shares with another module, is an error, not "other".

A run keeps, in its output directory (imported by scripts/render-performance
as the other benchmarks' runs are): ``run.json`` (what was run, the owners
of all the names seen, asked at the end) and ``fio/CONTENDER-JOB.locks.json``,
one window each with the owners of its names, asked right after it (an
array's workqueue key is gone once the array stops).
"""

from __future__ import annotations

import argparse
import bisect
import datetime
import json
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

RUN = "run.json"
DIR = "fio"
BENCH = "raid56-locks"

RAID_MODULES = ("stria", "md_mod", "raid456")
# the contenders, the baseline (fio and the block layer on the bare members)
# first
CONTENDERS = {"raw": "raw members", "stria5": "stria RAID5", "md5": "md RAID5",
              "stria6": "stria RAID6", "md6": "md RAID6"}
JOBS = {"randread": "4K random read", "write": "1M sequential write (full stripes)",
        "randwrite": "4K random write (RMW)"}
# the goal, array-wide acquisitions per I/O at most
GOAL = {"randread": 0.0, "write": 0.0, "randwrite": 1.0}

SCOPES = ("array", "stripe", "cpu", "annotation")
SCOPE_TEXT = {"array": "array-wide", "stripe": "per stripe or bucket",
              "cpu": "per CPU", "annotation": "lockdep annotation"}


@dataclass(frozen=True)
class Class:
    """A lock class of stria or md (a line of lock-classes.tsv): @owner the
    module, @name lockdep's name ("*" for any text), @scope one of SCOPES,
    @where the code that initialises the lock."""
    owner: str
    name: str
    scope: str
    where: str

    def matches(self, name: str) -> bool:
        if "*" not in self.name:
            return name == self.name
        return bool(re.fullmatch(".*".join(map(re.escape, self.name.split("*"))), name))


def load_classes(text: str) -> tuple[Class, ...]:
    """The classes of lock-classes.tsv's @text."""
    out = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            owner, name, scope, where = line.split("\t")
            if scope not in SCOPES:
                raise ValueError(f"lock-classes.tsv: {name}: no scope {scope!r}")
            out.append(Class(owner, name, scope, where))
    return tuple(out)


# the classification, in one place reviewed against the code
CLASSES = load_classes((Path(__file__).parent / "lock-classes.tsv").read_text())


def lookup(name: str, owner: str) -> Class | None:
    """The entry of CLASSES for class @name of module @owner."""
    for c in CLASSES:
        if c.owner == owner and c.matches(name):
            return c
    return None


# --- the trace

_EVENT = re.compile(r"\[(\d+)\]\s+\S+\s+(\d+\.\d+): (lock_acquire|contention_begin): "
                    r"([0-9a-f]+) (.*)$")
# lockdep_map lies this far into its lock at most (struct mutex, rwsem: the
# wait lists and owner come first)
_MAP_OFFSET = 256
# acquisitions on a CPU looked back on for a contention's lock
_LOOK_BACK = 8
UNATTRIBUTED = "(contention of no acquisition seen)"


@dataclass
class Tally:
    """One class in one window: acquisitions, contentions, instances."""
    acq: int = 0
    cont: int = 0
    inst: set[str] = field(default_factory=set)


def parse_trace(lines: Iterable[str]) -> tuple[dict[str, Tally], float]:
    """Per class name, the lock_acquire and contention_begin events of a
    text trace (/sys/kernel/tracing/trace, pointers not hashed); and the
    seconds from its first event to its last."""
    out: dict[str, Tally] = {}
    last: dict[str, list[tuple[int, str]]] = {}
    first = end = 0.0
    for line in lines:
        m = _EVENT.search(line)
        if not m:
            continue
        cpu, ts, ev, addr, rest = m.groups()
        end = float(ts)
        first = first or end
        if ev == "lock_acquire":
            for prefix in ("try ", "read "):
                if rest.startswith(prefix):
                    rest = rest[len(prefix):]
            t = out.setdefault(rest, Tally())
            t.acq += 1
            t.inst.add(addr)
            seen = last.setdefault(cpu, [])
            seen.append((int(addr, 16), rest))
            del seen[:-_LOOK_BACK]
        elif rest != "(flags=SPIN|MUTEX)":
            lock = int(addr, 16)
            name = UNATTRIBUTED
            for a, n in reversed(last.get(cpu, [])):
                if 0 <= a - lock < _MAP_OFFSET:
                    name = n
                    break
            out.setdefault(name, Tally()).cont += 1
    return out, end - first


def window(tallies: dict[str, Tally], sectors: int, bs: int, seconds: float,
           traced: float, lost: int) -> dict[str, Any]:
    """A window file's content: @seconds the window asked, @traced the
    seconds between its first and last event."""
    return {
        "ios": sectors * 512 / bs, "sectors": sectors, "bs": bs, "seconds": seconds,
        "traced_seconds": round(traced, 3), "lost_events": lost,
        "classes": {n: [t.acq, t.cont, len(t.inst)] for n, t in sorted(tallies.items())},
    }


# --- whose class a name is

_LOCKDEP = re.compile(r"^([0-9a-f]{8,16}) FD:\s*\d+ BD:\s*\d+ \S+: (.+)$")
_KALLSYMS = re.compile(r"^([0-9a-f]+) \S+ (\S+)(?:\s+\[(\S+)\])?$")


def lockdep_keys(text: str) -> dict[str, set[int]]:
    """Per class name of /proc/lockdep (without lockdep's #version and
    /subclass), the keys of its classes."""
    out: dict[str, set[int]] = {}
    for line in text.splitlines():
        m = _LOCKDEP.match(line)
        if m:
            name = re.sub(r"(#\d+)?(/\d+)?$", "", m.group(2))
            out.setdefault(name, set()).add(int(m.group(1), 16))
    return out


class Symbols:
    """/proc/kallsyms: the module (or "vmlinux") that holds an address."""

    def __init__(self, text: str) -> None:
        syms = []
        for line in text.splitlines():
            m = _KALLSYMS.match(line)
            if m and int(m.group(1), 16):
                syms.append((int(m.group(1), 16), m.group(3) or "vmlinux"))
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.mods = [mod for _, mod in syms]

    def module(self, addr: int) -> str:
        """The module of the symbol at or below @addr; "dynamic" for a key
        below every symbol (allocated: workqueues, lockdep_register_key())."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.mods[i] if i >= 0 else "dynamic"


def owners(names: Iterable[str], keys: dict[str, set[int]], syms: Symbols) -> dict[str, list[str]]:
    """Per name, the modules that define a class of that name."""
    return {n: sorted({syms.module(k) for k in keys.get(n, set())} or {"unknown"})
            for n in names}


# --- classifying a window

@dataclass
class ClassRow:
    """A class of the RAID driver in a window, per array I/O; @shared: the
    other modules that define a class of the same name."""
    cls: Class
    acq: float
    cont: float
    inst: int
    shared: set[str]


@dataclass
class Row:
    """A window per array I/O: acquisitions and contentions per scope of the
    RAID driver's classes, and the rest (outside the RAID driver)."""
    ios: float
    acq: dict[str, float]
    cont: dict[str, float]
    outside: float
    outside_cont: float
    classes: list[ClassRow]


def classify(name: str, own: Sequence[str]) -> Class | None:
    """@name's entry of CLASSES when a RAID module (or a dynamic key) defines
    it, None when no RAID module does. Raises ValueError for a class of a
    RAID module that CLASSES lacks."""
    raid = [o for o in own if o in RAID_MODULES]
    # a workqueue's key is gone from /proc/lockdep once the array stopped
    own = ["dynamic"] if list(own) == ["unknown"] else own
    if raid or "dynamic" in own:
        hit = lookup(name, raid[0] if raid else "dynamic")
        if hit is None and raid:
            raise ValueError(f"lock class {name!r} of {raid[0]} is not in "
                             "striatest.locks.CLASSES: say where it is and its scope")
        return hit
    return None


def row(win: dict[str, Any], own: dict[str, list[str]]) -> Row:
    """@win per array I/O, its classes placed by @own. A name that a RAID
    module shares with another module counts as the RAID module's class
    (an upper bound), the other modules named."""
    ios = float(win["ios"]) or 1.0
    acq = dict.fromkeys(SCOPES, 0.0)
    cont = dict.fromkeys(SCOPES, 0.0)
    outside = outside_cont = 0.0
    classes: dict[Class, ClassRow] = {}
    for name, (a, c, inst) in win["classes"].items():
        o = own.get(name)
        if o is None:
            raise ValueError(f"no module recorded for lock class {name!r} (locks owners)")
        cls = classify(name, o)
        if cls is None:
            outside += a / ios
            outside_cont += c / ios
            continue
        acq[cls.scope] += a / ios
        cont[cls.scope] += c / ios
        cr = classes.setdefault(cls, ClassRow(cls, 0.0, 0.0, 0, set()))
        cr.acq += a / ios
        cr.cont += c / ios
        cr.inst += int(inst)
        cr.shared |= {x for x in o if x not in (cls.owner, "unknown")}
    return Row(ios, acq, cont, outside, outside_cont,
               sorted(classes.values(), key=lambda x: (SCOPES.index(x.cls.scope), x.cls.name)))


# --- a run

def run_file(out: Path, contender: str, job: str) -> Path:
    return out / DIR / f"{contender}-{job}.locks.json"


def read_run(out: Path) -> dict[str, Any]:
    run: dict[str, Any] = json.loads((out / RUN).read_text())
    return run


def write_run(out: Path, run: dict[str, Any]) -> None:
    (out / RUN).write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")


def rows(out: Path) -> dict[tuple[str, str], Row]:
    """The run's windows, per (contender, job)."""
    run = read_run(out)
    own = run.get("owners") or {}
    got = {}
    for c in run["contenders"]:
        for j in run["jobs"]:
            f = run_file(out, c, j)
            if f.exists():
                w = json.loads(f.read_text())
                got[(c, j)] = row(w, {**own, **w.get("owners", {})})
    return got


def goal_line(job: str, got: dict[tuple[str, str], Row]) -> str:
    """Whether stria's contenders of @job meet the goal."""
    most = GOAL.get(job, 0.0)
    said = [f"{CONTENDERS.get(c, c)} {_n(r.acq['array'])}, "
            + ("met" if r.acq["array"] <= most else "NOT met")
            for (c, j), r in got.items() if j == job and c.startswith("stria")]
    return f"Goal, at most {most:g} array-wide acquisitions per I/O: " + "; ".join(said) + "."


def _n(x: float) -> str:
    return f"{x:.2f}"


def table(headers: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    """An RST simple table."""
    w = [max(len(r[i]) for r in [headers, *body]) for i in range(len(headers))]
    rule = "  ".join("=" * x for x in w)
    fmt = [h.ljust(x) for h, x in zip(headers, w)]
    return [rule, "  ".join(fmt).rstrip(), rule,
            *("  ".join(c.ljust(x) for c, x in zip(r, w)).rstrip() for r in body), rule]


def results_lines(out: Path) -> list[str]:
    """The run's tables: per job, the scopes per array I/O; then every class
    of stria and md that was taken."""
    run = read_run(out)
    got = rows(out)
    lines: list[str] = []
    for j in run["jobs"]:
        base = got.get(("raw", j))
        body = []
        for c in run["contenders"]:
            r = got.get((c, j))
            if c == "raw" or r is None:
                continue
            extra = "" if base is None else _n(r.outside - base.outside)
            body.append([CONTENDERS.get(c, c), f"{r.ios:.0f}",
                         *(_n(r.acq[s]) for s in SCOPES),
                         _n(r.cont["array"]), _n(sum(r.cont.values()) - r.cont["array"]),
                         _n(r.outside), extra])
        if not body:
            continue
        lines += [f"{JOBS.get(j, j)}, per array I/O (goal: at most "
                  f"{GOAL.get(j, 0):g} array-wide acquisitions):", ""]
        lines += table(["contender", "I/Os", "array-wide", "per stripe", "per CPU",
                        "annotations", "array cont.", "other cont.", "outside",
                        "outside - raw"], body)
        lines += ["", goal_line(j, got), ""]
    body = []
    for (c, j), r in got.items():
        for cr in r.classes if c != "raw" else []:
            also = f" (a name {', '.join(sorted(cr.shared))} also has)" if cr.shared else ""
            body.append([CONTENDERS.get(c, c), j, f"``{cr.cls.name}``{also}",
                         SCOPE_TEXT[cr.cls.scope], _n(cr.acq), _n(cr.cont), str(cr.inst)])
    if body:
        lines += ["The RAID drivers' classes taken, per array I/O (instances: distinct "
                  "locks of the class seen in the window; a name another module also "
                  "has counts as the RAID driver's, an upper bound):", ""]
        lines += table(["contender", "job", "class", "scope", "acquired", "contended",
                        "instances"], body)
        lines.append("")
    where = sorted({(cr.cls.owner, cr.cls.name, SCOPE_TEXT[cr.cls.scope], cr.cls.where)
                    for r in got.values() for cr in r.classes})
    if where:
        lines += ["Where those classes are defined:", ""]
        lines += [f"- ``{n}`` ({o}, {s}): {w}" for o, n, s, w in where]
        lines.append("")
    return lines


def summary(out: Path) -> str:
    return "\n".join(results_lines(out)) + "\n"


def render_block(name: str, data: Path, data_shown: str) -> str:
    """performance.rst's generated text of benchmark @name from @data."""
    cmd = f"selftests/run --kernel debug -v selftests/bench/{name}"
    if not (data / RUN).exists():
        return textwrap.fill(
            f"No run of ``{name}`` is kept yet. To make one: ``{cmd}``, then "
            "``scripts/render-performance --import build/results/debug``.",
            width=76, break_long_words=False, break_on_hyphens=False) + "\n"
    run = read_run(data)
    text = (f"Generated by ``scripts/render-performance`` from the window counts of "
            f"``{cmd}`` kept in ``{data_shown}``. Run of {run.get('date', '?')}, tree "
            f"{run.get('tree') or 'unknown'}, kernel {run.get('kernel', '?')}: "
            f"{run.get('describe', '')}. Per array I/O (sectors moved / block size): "
            "lock acquisitions of the RAID driver's classes by scope, contentions "
            "of its array-wide classes and of the others, and the acquisitions of "
            "every other class (block layer, null_blk, fio, scheduler, timers, "
            "RCU), alone and less the raw members' figure for the same job.")
    lines = [textwrap.fill(text, width=76, break_long_words=False, break_on_hyphens=False),
             ""] + results_lines(data)
    return "\n".join(lines).rstrip() + "\n"


# --- the guest's commands

def _start(a: argparse.Namespace) -> int:
    out = Path(a.out)
    (out / DIR).mkdir(parents=True, exist_ok=True)
    write_run(out, {
        "bench": BENCH, "describe": a.describe, "contenders": a.contenders.split(),
        "jobs": a.jobs.split(), "kernel": a.kernel, "tree": a.tree, "owners": {},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    })
    return 0


def _count(a: argparse.Namespace) -> int:
    tallies, traced = parse_trace(sys.stdin)
    w = window(tallies, a.sectors, a.bs, a.seconds, traced, a.lost)
    # whose classes they are, while the array and its workqueue exist
    w["owners"] = owners(sorted(tallies), lockdep_keys(Path(a.lockdep).read_text()),
                         Symbols(Path(a.kallsyms).read_text()))
    run_file(Path(a.out), a.contender, a.job).write_text(json.dumps(w, indent=0) + "\n")
    r = sum(v[0] for v in w["classes"].values())
    print(f"{a.contender} {a.job}: {w['ios']:.0f} I/Os, {r} acquisitions in {traced:.2f} s")
    return 0 if w["ios"] > 0 and r > 0 and not a.lost else 1


def _owners(a: argparse.Namespace) -> int:
    out = Path(a.out)
    run = read_run(out)
    names: set[str] = set()
    for f in (out / DIR).glob("*.locks.json"):
        names |= set(json.loads(f.read_text())["classes"])
    keys = lockdep_keys(Path(a.lockdep).read_text())
    run["owners"] = owners(sorted(names), keys, Symbols(Path(a.kallsyms).read_text()))
    write_run(out, run)
    return 0


def _summary(a: argparse.Namespace) -> int:
    text = summary(Path(a.out))
    (Path(a.out) / "locks.txt").write_text(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    a = parser().parse_args(argv)
    try:
        rc: int = a.fn(a)
    except (OSError, ValueError, KeyError) as e:
        print(f"striatest.locks: {e}", file=sys.stderr)
        return 1
    return rc


def parser() -> argparse.ArgumentParser:
    """The guest's commands."""
    ap = argparse.ArgumentParser(prog="python3 -m striatest.locks")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("count", help="reduce a text trace on stdin to a window file")
    p.add_argument("out")
    p.add_argument("contender")
    p.add_argument("job")
    p.add_argument("--sectors", type=int, required=True, help="sectors the array moved")
    p.add_argument("--bs", type=int, required=True, help="bytes per I/O")
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--lost", type=int, default=0, help="events the ring buffer lost")
    p.add_argument("--lockdep", default="/proc/lockdep")
    p.add_argument("--kallsyms", default="/proc/kallsyms")
    p.set_defaults(fn=_count)
    p = sub.add_parser("owners", help="record the modules defining each class name seen")
    p.add_argument("out")
    p.add_argument("--lockdep", default="/proc/lockdep")
    p.add_argument("--kallsyms", default="/proc/kallsyms")
    p.set_defaults(fn=_owners)
    p = sub.add_parser("summary", help="the run's tables to OUT/locks.txt (fails on an "
                       "unknown class)")
    p.add_argument("out")
    p.set_defaults(fn=_summary)
    p = sub.add_parser("start", help="begin a run: write OUT/run.json")
    p.add_argument("out")
    p.add_argument("--describe", default="")
    p.add_argument("--contenders", required=True)
    p.add_argument("--jobs", required=True)
    p.add_argument("--kernel", default="")
    p.add_argument("--tree", default="")
    p.set_defaults(fn=_start)
    return ap


if __name__ == "__main__":
    sys.exit(main())
