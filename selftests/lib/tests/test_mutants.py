# SPDX-License-Identifier: GPL-2.0
"""The mutants of selftests/mutants/ still apply to the driver and name
tests that exist: a driver change that moves a mutant's code breaks this
test, not make mutants an hour into make check-long."""

from __future__ import annotations

from pathlib import Path

import pytest

from striatest import mutants
from striatest.kernels import TOP

MUTANTS = mutants.all_mutants()


def test_at_least_twelve_mutants() -> None:
    assert len(MUTANTS) >= 12


@pytest.mark.parametrize("m", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_applies_cleanly(m: mutants.Mutant) -> None:
    p = mutants.apply(m, TOP, dry_run=True)
    assert p.returncode == 0, p.stdout + p.stderr
    # exactly, not by fuzz or offset guesses that may land elsewhere
    assert "fuzz" not in p.stdout.lower(), p.stdout


@pytest.mark.parametrize("m", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_names_existing_tests(m: mutants.Mutant) -> None:
    assert m.tests
    assert mutants.missing_tests(m) == []


@pytest.mark.parametrize("m", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_changes_only_the_driver(m: mutants.Mutant) -> None:
    files = [ln.split()[1] for ln in m.path.read_text().splitlines()
             if ln.startswith("+++ ")]
    assert files
    assert all(f.startswith("b/drivers/stria/") for f in files), files


def test_header_is_required(tmp_path: Path) -> None:
    p = tmp_path / "99-x.patch"
    p.write_text("Tests: raid0/001-create-io\n\ndiff --git a/x b/x\n")
    with pytest.raises(ValueError, match="Description"):
        mutants.load(p)
    p.write_text("Description: d\n\ndiff --git a/x b/x\n")
    with pytest.raises(ValueError, match="Tests"):
        mutants.load(p)


def test_a_patch_that_does_not_apply_is_noticed(tmp_path: Path) -> None:
    p = tmp_path / "99-x.patch"
    p.write_text("Description: d\nTests: raid0/001-create-io\n\n"
                 "--- a/drivers/stria/raid0.c\n+++ b/drivers/stria/raid0.c\n"
                 "@@ -1,1 +1,1 @@\n-no such line in the driver\n+x\n")
    assert mutants.apply(mutants.load(p), TOP, dry_run=True).returncode != 0


def test_results_round_trip() -> None:
    r = mutants.Result("01-x", mutants.CAUGHT, "raid0/009-member-pulled", "1 check failed")
    assert mutants.parse_results("# comment\n" + r.line() + "\n") == [r]
    with pytest.raises(ValueError):
        mutants.parse_results("01-x\tmaybe\tt\td\n")


def test_testing_rst_shows_the_kept_results() -> None:
    """The table of Documentation/stria/testing.rst is rendered from the
    kept results of a real run, not typed by hand."""
    results = TOP / "Documentation" / "stria" / "mutants-results.tsv"
    doc = TOP / "Documentation" / "stria" / "testing.rst"
    text = results.read_text()
    assert mutants.parse_results(text)
    table = mutants.render_table(mutants.parse_results(text), MUTANTS)
    assert table in doc.read_text(), "run scripts/render-mutants"
