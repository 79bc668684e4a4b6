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


@pytest.mark.parametrize("reason,kind", [
    ("(26 s): 2 check(s) failed, first: not ok 23 - fio write+verify (exit 2)", "caught"),
    ("(40 s): kernel log: WARNING: CPU: 1 PID: 9 at drivers/stria/raid56.c:10", "caught"),
    ("(40 s): kmemleak: 1 object(s) leaked by this project's modules", "caught"),
    ("(300 s): timed out after 300 s", "timeout"),
    ("(90 s): kernel log: INFO: task fio:12 blocked for more than 30 seconds. "
     "(the guest hung and was ended at once)", "timeout"),
    ("(5 s): kernel log while booting, before the test: BUG: x", "error"),
    ("(9 s): unexpected skip: no fio (MAY_SKIP does not name stock)", "error"),
    ("(9 s): test_main returned 1", "error"),
    ("(3 s): interrupted", "error"),
])
def test_vm_verdicts(reason: str, kind: str) -> None:
    """Only a failed check or a kernel report catches a mutant; a test
    that ran out of time is a timeout, whatever it printed before."""
    assert mutants.classify_vm(reason) == kind


def test_unit_and_fuzz_tests_can_be_named() -> None:
    assert mutants.test_exists("unit/test_superblock")
    assert mutants.test_exists("fuzz/ondisk")
    assert not mutants.test_exists("unit/test_nothing")
    assert not mutants.test_exists("fuzz/nothing")
    assert not mutants.test_exists("raid0/999-nothing")


def test_the_slice_rotates_over_quick_catches() -> None:
    muts = [mutants.Mutant(f"{i:02}-m", Path(f"{i:02}-m.patch"), "d", ("raid0/001-create-io",))
            for i in range(1, 7)]
    res = [mutants.Result(m.name, mutants.CAUGHT, "raid0/001-create-io", f"({s} s): x")
           for m, s in zip(muts, (10, 20, 30, 400, 50, 60))]
    res[4] = mutants.Result("05-m", mutants.SURVIVED, "raid0/001-create-io", "(50 s): x")
    pool = [m.name for m, _ in mutants.slice_pool(res, muts)]
    # not the slow one (400 s), not the one that survived
    assert pool == ["01-m", "02-m", "03-m", "06-m"]
    a = mutants.pick_slice(res, muts, "00000001" + "0" * 32, 2)
    assert [m.name for m, _ in a] == ["02-m", "06-m"]
    assert a == mutants.pick_slice(res, muts, "00000001" + "f" * 32, 2)
    b = mutants.pick_slice(res, muts, "00000002" + "0" * 32, 2)
    assert [m.name for m, _ in b] == ["03-m", "01-m"]
    with pytest.raises(ValueError):
        mutants.pick_slice(res[3:4], muts, "0", 2)
