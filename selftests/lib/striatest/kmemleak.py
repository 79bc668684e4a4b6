"""Memory leaks that kmemleak found in a guest, and which of them are stria's.

On the debug kernel the guest asks kmemleak for a scan once the test is
over (selftests/guest/run-test) and saves the report as out/kmemleak.BOOT.
The kernel's own objects that kmemleak cannot see referenced (boot-time
allocations held only through physical addresses, and the like) are listed
there too: only a leak allocated by a module of this project (stria, or a
selftest module) fails the test. Its allocation backtrace names the module
while it is loaded ("stria_foo+0x12/0x34 [stria]"); a module unloaded
before the scan leaves bare addresses, resolved here with the module's
symbols as saved when it was loaded (out/modsyms.MODULE.BOOT.N, from
/proc/kallsyms)."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

# a module of this project, as %pS names it
OWN_MODULE = re.compile(r"\[(stria\w*)\]")
# a backtrace line: "    [<hash>] func+0x1/0x2 [mod]" (6.1), "    func+0x1/0x2
# [mod]" (6.12: no address)
FRAME = re.compile(r"^ {4}(?:\[<[0-9a-fx]+>\]\s+)?(\S.*)$")
BARE = re.compile(r"^0x([0-9a-f]+)$")
# a bare address past the last symbol of a module still in the module: the
# largest function stria has is well under this
MAX_FUNCTION = 64 * 1024


@dataclass
class Leak:
    """One unreferenced object: its header line and allocation backtrace."""

    header: str
    frames: list[str] = field(default_factory=list)


@dataclass
class ModuleSymbols:
    """The text symbols of one load of one module."""

    module: str
    addrs: list[int]
    names: list[str]

    def resolve(self, addr: int) -> str | None:
        """'function+0xoff [module]' when addr is in this module's text."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0 or addr - self.addrs[i] > MAX_FUNCTION:
            return None
        return f"{self.names[i]}+{addr - self.addrs[i]:#x} [{self.module}] (unloaded)"


def parse_report(text: str) -> list[Leak]:
    """The objects of a /sys/kernel/debug/kmemleak report."""
    leaks: list[Leak] = []
    in_trace = False
    for line in text.splitlines():
        if line.startswith("unreferenced object"):
            leaks.append(Leak(line.strip()))
            in_trace = False
        elif line.strip().startswith("backtrace"):
            in_trace = bool(leaks)
        elif in_trace:
            m = FRAME.match(line)
            if m:
                leaks[-1].frames.append(m.group(1).strip())
            else:
                in_trace = False
    return leaks


def parse_modsyms(module: str, text: str) -> ModuleSymbols:
    """Text symbols of `module` from /proc/kallsyms lines."""
    syms = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in ("t", "T"):
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return ModuleSymbols(module, [a for a, _ in syms], [n for _, n in syms])


def owner(leak: Leak, modules: list[ModuleSymbols]) -> str | None:
    """The first frame of `leak` in a module of this project, or None."""
    for f in leak.frames:
        if OWN_MODULE.search(f):
            return f
        m = BARE.match(f)
        if m:
            addr = int(m.group(1), 16)
            for mod in modules:
                where = mod.resolve(addr)
                if where:
                    return where
    return None


def owned_leaks(out: Path) -> list[tuple[Leak, str]]:
    """The leaks of every kmemleak report in `out` that this project's
    modules allocated, each with the frame that shows it."""
    modules = []
    for p in sorted(out.glob("modsyms.*")):
        name = p.name.split(".")[1]
        modules.append(parse_modsyms(name, p.read_text(errors="replace")))
    found = []
    for p in sorted(out.glob("kmemleak.*")):
        for leak in parse_report(p.read_text(errors="replace")):
            where = owner(leak, modules)
            if where:
                found.append((leak, where))
    return found
