"""Mutants of stria.ko: deliberate small bugs that the VM tests must catch.

A mutant is selftests/mutants/NN-name.patch: a header of two lines,
``Description: <one line>`` and ``Tests: <group/NNN-name> ...`` (the tests,
under selftests/tests/, that must fail with it, quickest first), a blank
line, then a ``git diff`` of drivers/stria that applies with ``patch -p1``.
The results of ``make mutants`` are kept as lines of tab-separated fields
(name, verdict, test, detail) that scripts/render-mutants turns into the
table of Documentation/stria/testing.rst."""

from __future__ import annotations

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
VERDICTS = (CAUGHT, SURVIVED, NO_APPLY, NO_BUILD, NOT_RUN)


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


def missing_tests(m: Mutant, tests_dir: Path = TESTS_DIR) -> list[str]:
    """The tests a mutant names that do not exist."""
    return [t for t in m.tests if not (tests_dir / t).is_file()]


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
