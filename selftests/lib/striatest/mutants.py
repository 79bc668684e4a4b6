"""Mutants of stria.ko: deliberate small bugs that the VM tests must catch.

A mutant is selftests/mutants/NN-name.patch: a header of two lines,
``Description: <one line>`` and ``Tests: <group/NNN-name> ...`` (the tests,
under selftests/tests/, that must fail with it, quickest first), a blank
line, then a ``git diff`` of drivers/stria that applies with ``patch -p1``.
The results of ``make mutants`` are kept as lines of tab-separated fields
(name, verdict, test, detail) that scripts/render-mutants turns into the
table of Documentation/stria/testing.rst."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import docblock
from .kernels import TOP

MUTANTS_DIR = TOP / "selftests" / "mutants"
TESTS_DIR = TOP / "selftests" / "tests"

# verdicts of a results file
CAUGHT = "caught"
SURVIVED = "SURVIVED"
NO_APPLY = "FAILED-TO-APPLY"
NO_BUILD = "FAILED-TO-BUILD"
NOT_RUN = "NOT-RUN"
# a test reached its time limit (or hung): no check saw the mutant
TIMEOUT = "TIMEOUT"
VERDICTS = (CAUGHT, SURVIVED, NO_APPLY, NO_BUILD, NOT_RUN, TIMEOUT)
# the results of the last full run, kept with the documentation
KEPT_RESULTS = TOP / "Documentation" / "stria" / "mutants-results.tsv"
# make check's rotating slice takes mutants whose catching test took at
# most this long in the kept run (its CPU cost, not make check's wall time)
SLICE_MAX_SECONDS = 60


@dataclass(frozen=True)
class Mutant:
    """One patch of selftests/mutants/."""

    name: str  # file name without .patch
    path: Path
    description: str
    tests: tuple[str, ...]  # group/NNN-name, relative to selftests/tests/


def load(path: Path) -> Mutant:
    """Read a mutant's header; ValueError when it lacks one."""
    desc = tests = None
    for line in path.read_text().splitlines():
        if line.startswith("diff ") or line.startswith("--- "):
            break
        if line.startswith("Description:"):
            desc = line.split(":", 1)[1].strip()
        elif line.startswith("Tests:"):
            tests = tuple(line.split(":", 1)[1].split())
    if not desc:
        raise ValueError(f"{path.name}: no 'Description:' line before the diff")
    if not tests:
        raise ValueError(f"{path.name}: no 'Tests:' line before the diff")
    return Mutant(path.name.removesuffix(".patch"), path, desc, tests)


def all_mutants(directory: Path = MUTANTS_DIR) -> list[Mutant]:
    return [load(p) for p in sorted(directory.glob("*.patch"))]


def test_exists(t: str, tests_dir: Path = TESTS_DIR) -> bool:
    """Is @t a test a mutant may name: group/NNN-name under @tests_dir (a
    VM test), unit/test_NAME (a C unit test of selftests/unit/) or
    fuzz/NAME (a libFuzzer target of selftests/fuzz/)?"""
    group, _, name = t.partition("/")
    if group == "unit":
        return (TOP / "selftests" / "unit" / f"{name}.c").is_file()
    if group == "fuzz":
        return (TOP / "selftests" / "fuzz" / f"fuzz_{name}.c").is_file()
    return (tests_dir / t).is_file()


def missing_tests(m: Mutant, tests_dir: Path = TESTS_DIR) -> list[str]:
    """The tests a mutant names that do not exist."""
    return [t for t in m.tests if not test_exists(t, tests_dir)]


def apply(m: Mutant, tree: Path, dry_run: bool = False) -> subprocess.CompletedProcess[str]:
    """patch -p1 the mutant into @tree; a patch that does not apply exactly
    (rejects or fuzz) fails."""
    argv = ["patch", "-p1", "--batch", "--forward", "--fuzz=0", "-d", str(tree), "-i", str(m.path)]
    if dry_run:
        argv.append("--dry-run")
    return subprocess.run(argv, capture_output=True, text=True)


@dataclass(frozen=True)
class Result:
    name: str
    verdict: str
    test: str  # the test that caught it, or the last one run
    detail: str

    def line(self) -> str:
        return "\t".join((self.name, self.verdict, self.test, self.detail.replace("\t", " ")))


def parse_results(text: str) -> list[Result]:
    """The results file: one Result a line, '#' lines are comments."""
    out = []
    for ln in text.splitlines():
        if not ln.strip() or ln.startswith("#"):
            continue
        f = ln.split("\t")
        if len(f) != 4 or f[1] not in VERDICTS:
            raise ValueError(f"bad results line: {ln!r}")
        out.append(Result(*f))
    return out


# how a VM test's "not ok" reason (selftests/run, runner.verdict()) counts:
# a failed check or a kernel report (oops, WARN, KASAN, lockdep, leak) is
# a catch; a time limit reached (the test's TIMEOUT, or a hang the harness
# ended) is a timeout, which catches nothing: a mutant that only makes a
# test hang is not seen by any check; anything else (interrupted, a skip,
# a fault while booting, a test that stopped outside a check) is the
# harness's failure
VM_CAUGHT = re.compile(r"^\(\d+ s\): (\d+ check\(s\) failed|kernel log: |kmemleak: )")
VM_TIMEOUT = re.compile(r"timed out after|the guest hung and was ended")


def classify_vm(reason: str) -> str:
    """A VM test's "not ok" reason, as selftests/run prints it after the
    test's name: "caught", "timeout" or "error"."""
    if VM_TIMEOUT.search(reason):
        return "timeout"
    return "caught" if VM_CAUGHT.match(reason) else "error"


def test_seconds(r: Result) -> int | None:
    """How long the test that caught @r ran, from its detail's "(N s)"."""
    m = re.match(r"^\((\d+) s\)", r.detail)
    return int(m.group(1)) if m else None


def slice_pool(results: list[Result], muts: list[Mutant],
               max_seconds: int = SLICE_MAX_SECONDS) -> list[tuple[Mutant, str]]:
    """The mutants @results show caught by a test that took at most
    @max_seconds and that they still name, with that test, by name."""
    by_name = {r.name: r for r in results}
    pool = []
    for m in muts:
        r = by_name.get(m.name)
        if r is None or r.verdict != CAUGHT or r.test not in m.tests:
            continue
        secs = test_seconds(r)
        if secs is not None and secs <= max_seconds:
            pool.append((m, r.test))
    return pool


def pick_slice(results: list[Result], muts: list[Mutant], commit: str, n: int,
               max_seconds: int = SLICE_MAX_SECONDS) -> list[tuple[Mutant, str]]:
    """@n mutants of slice_pool(), chosen by @commit (a hex hash): the
    same commit picks the same ones, and successive commits go round the
    pool. ValueError when the pool is empty."""
    pool = slice_pool(results, muts, max_seconds)
    if not pool:
        raise ValueError("no mutant of the kept results was caught by a quick test")
    n = min(n, len(pool))
    start = int(commit[:8], 16) % len(pool)
    step = len(pool) // n
    return [pool[(start + i * step) % len(pool)] for i in range(n)]


BEGIN = ".. mutants-table-begin (scripts/render-mutants writes what follows)"
END = ".. mutants-table-end"


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("`", "'").replace("*", "\\*")


def render_table(results: list[Result], muts: list[Mutant]) -> str:
    """The RST list-table of every mutant and what its run in @results
    found; a mutant the run did not reach says so."""
    by_name = {r.name: r for r in results}
    out = [".. list-table::", "   :header-rows: 1", "   :widths: 14 34 10 16 26", "",
           "   * - Mutant", "     - What it breaks", "     - Verdict", "     - Test",
           "     - First failed check (time of the mutant's build and tests)"]
    for m in muts:
        r = by_name.get(m.name)
        if r is None:
            verdict, test, detail = "not run", " ".join(m.tests), "not reached by the run"
        else:
            verdict, test, detail = r.verdict, r.test, r.detail
        out += [f"   * - ``{m.name}``", f"     - {_cell(m.description)}",
                f"     - {verdict}", f"     - ``{test}``", f"     - {_cell(detail)}"]
    return "\n".join(out) + "\n"


def splice(doc: str, table: str, header: str) -> str:
    """@doc with what lies between its BEGIN and END markers replaced by
    @header and @table."""
    return docblock.splice(doc, BEGIN, END, f"{header}\n{table}")


def results_header(text: str) -> str:
    """The run's own description: the '#' lines of a results file."""
    return "\n".join(ln.lstrip("# ").rstrip() for ln in text.splitlines()
                     if ln.startswith("#")) + "\n"
