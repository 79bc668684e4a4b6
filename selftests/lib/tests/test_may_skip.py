# SPDX-License-Identifier: GPL-2.0
"""MAY_SKIP: a test declares the tiers where it may skip and why; a skip
anywhere else is a failure with the skip's reason in it, so make check
cannot pass what it did not run."""

from __future__ import annotations

from pathlib import Path

import pytest

from striatest import runner, testfile
from striatest.kernels import TOP, Kernel


def spec_of(tmp_path: Path, body: str) -> testfile.TestSpec:
    t = tmp_path / "001-t"
    t.write_text('DESCRIPTION="x"\nVM_NVME=1\n' + body + "\ntest_main() { :; }\n")
    return testfile.load(t, tmp_path)


def verdict(tmp_path: Path, spec: testfile.TestSpec, tier: str, tap: list[str]) -> runner.Result:
    k = Kernel(tier, "6.1.0-test", tmp_path / "bzImage", tmp_path, tmp_path)
    run = runner.TestRun(spec, k, tmp_path / "initrd", tmp_path, False)
    (tmp_path / "out").mkdir(exist_ok=True)
    run.tap = tap
    return run.verdict(1.0)


SKIPPED = ["1..0 # SKIP no block integrity in this kernel", "#@done skip"]


def test_no_declaration(tmp_path: Path) -> None:
    assert spec_of(tmp_path, "").may_skip == {}


def test_declarations_one_a_line(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, 'MAY_SKIP="debug: the debug kernel has no block integrity\n'
                             '  stock stock612: Debian has no such module: see why"')
    assert spec.may_skip == {
        "debug": "the debug kernel has no block integrity",
        "stock": "Debian has no such module: see why",
        "stock612": "Debian has no such module: see why",
    }


@pytest.mark.parametrize("value,why", [
    ("debug", "write 'TIER"),
    ("debug:", "write 'TIER"),
    (": no tier", "write 'TIER"),
    ("sid: a tier that does not exist", "unknown kernel tier sid"),
    ("debug: one\ndebug: two", "names debug twice"),
])
def test_bad_declarations(tmp_path: Path, value: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        spec_of(tmp_path, f'MAY_SKIP="{value}"')


def test_an_undeclared_skip_fails_with_its_reason(tmp_path: Path) -> None:
    res = verdict(tmp_path, spec_of(tmp_path, ""), "stock", SKIPPED)
    assert res.status == "fail"
    assert res.reason.startswith("unexpected skip: no block integrity in this kernel")


def test_a_skip_declared_for_another_tier_fails(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, 'MAY_SKIP="debug: no integrity there"')
    res = verdict(tmp_path, spec, "stock", SKIPPED)
    assert res.status == "fail"
    assert "unexpected skip" in res.reason and "does not name stock" in res.reason


def test_a_declared_skip_is_a_skip(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, 'MAY_SKIP="debug: no integrity there"')
    res = verdict(tmp_path, spec, "debug", SKIPPED)
    assert res.status == "skip"
    assert "no block integrity in this kernel" in res.reason
    assert "no integrity there" in res.reason


def test_a_skip_with_no_reason_still_says_so(tmp_path: Path) -> None:
    res = verdict(tmp_path, spec_of(tmp_path, ""), "stock", ["1..0 # SKIP", "#@done skip"])
    assert res.status == "fail"
    assert "unexpected skip: requirements not met" in res.reason


def test_a_declaration_does_not_excuse_a_failure(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, 'MAY_SKIP="stock: never mind"')
    res = verdict(tmp_path, spec, "stock", ["ok 1 - a", "not ok 2 - b", "#@done rc=1"])
    assert res.status == "fail"


def test_every_test_file_reads() -> None:
    """Every declaration in the tree parses (a typo in a tier would
    otherwise surface only when the test runs)."""
    for group in ("tests", "bench", "broken", "platform"):
        for t in sorted((TOP / "selftests" / group).rglob("*")):
            if t.is_file() and not t.name.startswith(".") and t.name != "README" \
                    and "SPDX" in t.read_text(errors="replace")[:200] \
                    and "DESCRIPTION=" in t.read_text(errors="replace"):
                testfile.load(t, TOP)
