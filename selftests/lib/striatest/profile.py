"""Instruction profiles of a guest, from the TCG plugin's block counts.

perf has no PMU under TCG, and timings on this 2-core machine move by 15 %
or more from run to run. The plugin (selftests/tools/stria-insn-profile.c)
counts the instructions the guest executes per translation block instead;
this module takes the difference of two of its snapshots and resolves it
with the guest's /proc/kallsyms into instructions by function and by
module. The same workload gives the same counts whatever else the host
does, so two contenders compare exactly, per I/O."""

from __future__ import annotations

import argparse
import bisect
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

Block = tuple[int, int]  # (vaddr, instructions in the block)


def parse_snapshot(lines: Iterable[str]) -> dict[Block, int]:
    """A plugin snapshot: executions per block ('#' lines are comments)."""
    out: dict[Block, int] = {}
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split()
        if len(parts) != 3:
            raise ValueError(f"bad snapshot line: {line!r}")
        out[(int(parts[0], 16), int(parts[1]))] = int(parts[2])
    return out


def overflow_of(lines: Iterable[str]) -> int:
    """Blocks the plugin could not count so far (its '# blocks N overflow M'
    header; 0 without one)."""
    for line in lines:
        if line.startswith("# blocks"):
            return int(line.split()[-1])
    return 0


def diff_snapshots(begin: Iterable[str], end: Iterable[str]) -> dict[Block, int]:
    """Executions per block between two snapshots (blocks that ran).
    Refuses a window in which blocks went uncounted (a full table)."""
    bl, el = list(begin), list(end)
    lost = overflow_of(el) - overflow_of(bl)
    if lost:
        raise ValueError(f"{lost} blocks were translated but not counted (the plugin's table "
                         "is full): the profile would be incomplete")
    b = parse_snapshot(bl)
    return {k: n - b.get(k, 0) for k, n in parse_snapshot(el).items() if n > b.get(k, 0)}


@dataclass
class Symbols:
    """Sorted text symbols of one kernel (kallsyms), module names included."""

    addrs: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def resolve(self, addr: int) -> str:
        """'function [module]' holding addr; '(user)' below the kernel half."""
        if addr < 1 << 63:
            return "(user)"
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else "?"


def parse_kallsyms(lines: Iterable[str]) -> Symbols:
    """Text symbols (types t/T) of /proc/kallsyms, read as root (addresses
    are 0 otherwise, which this refuses)."""
    syms: list[tuple[int, str]] = []
    for line in lines:
        parts = line.split()
        if len(parts) < 3 or parts[1] not in ("t", "T"):
            continue
        name = parts[2] + (f" {parts[3]}" if len(parts) > 3 else "")
        syms.append((int(parts[0], 16), name))
    syms.sort()
    if not syms or syms[-1][0] == 0:
        raise ValueError("kallsyms has no addresses (not read as root?)")
    return Symbols([a for a, _ in syms], [n for _, n in syms])


def parse_window(lines: Iterable[str]) -> dict[Block, int]:
    """The 'vaddr instructions executions' lines the harness writes."""
    return parse_snapshot(lines)


def module_of(name: str) -> str:
    """'stria' of 'stria_queue_rq [stria]', 'vmlinux' for the kernel's own,
    '(user)' for user space."""
    if name == "(user)":
        return name
    return name.rsplit(" ", 1)[1].strip("[]") if name.endswith("]") else "vmlinux"


@dataclass
class Profile:
    """Instructions executed, by function and by module."""

    total: int
    functions: Counter[str]
    modules: Counter[str]


def build(window: dict[Block, int], syms: Symbols) -> Profile:
    """Attribute each block's instructions to the function it starts in."""
    funcs: Counter[str] = Counter()
    mods: Counter[str] = Counter()
    for (vaddr, insns), n in window.items():
        name = syms.resolve(vaddr)
        funcs[name] += insns * n
        mods[module_of(name)] += insns * n
    return Profile(sum(funcs.values()), funcs, mods)


def report(p: Profile, ios: int = 0, top: int = 40) -> str:
    """The profile as text; per I/O too when the I/O count is given."""
    if not p.total:
        return "no instructions counted\n"
    per = f", {p.total / ios:.0f} per I/O over {ios} I/Os" if ios else ""

    def row(n: int, what: str) -> str:
        each = f"  {n / ios:9.0f}" if ios else ""
        return f"  {100 * n / p.total:6.2f}{each}  {what}"

    head = "     %" + ("   per I/O" if ios else "")
    lines = [f"{p.total} instructions{per}", "", "by module:", head]
    lines += [row(n, m) for m, n in p.modules.most_common()]
    lines += ["", f"top {top} functions:", head]
    lines += [row(n, f) for f, n in p.functions.most_common(top)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """stria-profile WINDOW KALLSYMS [--ios N] [--top N]."""
    ap = argparse.ArgumentParser(
        prog="stria-profile",
        description="The instructions a guest ran in a profile window (host_profile_begin/"
        "_end in selftests/guest/lib.sh, VM_PROFILE=1), by module and by function, "
        "resolved with the guest's /proc/kallsyms; per I/O with --ios.")
    ap.add_argument("window")
    ap.add_argument("kallsyms")
    ap.add_argument("--ios", type=int, default=0, help="I/Os done in the window")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args(argv)
    try:
        with open(args.kallsyms) as f:
            syms = parse_kallsyms(f)
        with open(args.window) as f:
            window = parse_window(f)
    except (OSError, ValueError) as e:
        print(f"stria-profile: {e}", file=sys.stderr)
        return 1
    print(report(build(window, syms), args.ios, args.top), end="")
    return 0
