# SPDX-License-Identifier: GPL-2.0
"""The stress test's schedule (striatest.stress): a function of the seed only."""

from __future__ import annotations

import pytest

from striatest import stress


def events(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith("event ")]


def test_same_seed_same_schedule() -> None:
    assert stress.schedule(42, 3) == stress.schedule(42, 3)


def test_other_seed_other_schedule() -> None:
    assert stress.schedule(42, 3)[1:] != stress.schedule(43, 3)[1:]


def test_known_schedule() -> None:
    # the first lines of seed 1 as they were when the test was written:
    # a change of the generator changes every recorded seed's replay
    lines = stress.schedule(1, 3)
    assert lines[1:4] == ["array s0 level=0 chunk=16K", "array s5 level=5 chunk=128K",
                          "array s6 level=6 chunk=16K"]
    assert events(lines)[0] == "event 1 s6 scrub-repair round=1 gap=1 range=25M-36M"


def test_round_one_has_every_family_of_every_level() -> None:
    lines = stress.schedule(7, 3)
    r1 = {(ln.split()[2], ln.split()[3]) for ln in events(lines) if " round=1 " in ln}
    want = {(a, f) for a, lv in stress.ARRAYS for f, lvs in stress.FAMILIES.items()
            if lv in lvs}
    assert r1 == want
    assert ("s0", "fail-spare") not in r1 and ("s5", "ioerr") not in r1


def test_longer_run_more_rounds() -> None:
    per_round = sum(1 for _, lv in stress.ARRAYS for lvs in stress.FAMILIES.values() if lv in lvs)
    assert per_round == 23
    assert len(events(stress.schedule(5, 20))) > len(events(stress.schedule(5, 3))) >= 2 * per_round


def test_skip_leaves_families_out() -> None:
    lines = stress.schedule(9, 3, frozenset({"reset", "ioerr"}))
    fams = {ln.split()[3] for ln in events(lines)}
    assert "reset" not in fams and "ioerr" not in fams and "replace" in fams
    assert "families off: ioerr,reset" in lines[0]


def test_unknown_family_refused() -> None:
    with pytest.raises(ValueError, match="no such event family: resett"):
        stress.schedule(1, 3, frozenset({"resett"}))


def test_jobs_mix_engines_and_sizes() -> None:
    jobs = [ln for ln in stress.schedule(3, 3) if ln.startswith("job ")]
    assert len(jobs) == sum(stress.JOBS.values())
    for a, lv in stress.ARRAYS:
        mine = [j for j in jobs if j.split()[1] == a]
        engines = {(kv["engine"], kv["hipri"]) for kv in
                   (dict(f.split("=") for f in j.split()[3:]) for j in mine)}
        assert ("psync", "0") in engines and ("libaio", "0") in engines
        assert (("io_uring", "1") in engines) == (lv != 6)
        assert any("rw=randwrite" in j for j in mine)
    regions = [(j.split()[1], j.split()[-1]) for j in jobs]
    assert len(set(regions)) == len(regions)


def test_skip_hipri_leaves_polled_jobs_out() -> None:
    jobs = [ln for ln in stress.schedule(3, 3, frozenset({"hipri"})) if ln.startswith("job ")]
    assert len(jobs) == sum(stress.JOBS.values())
    assert not any("hipri=1" in j for j in jobs)
    assert any("engine=io_uring" in j for j in jobs)


def test_known_schedule_of_make_check() -> None:
    # make check's slice: seed 1 with the polled jobs off (the default)
    lines = stress.schedule(1, 3, frozenset({"hipri"}))
    assert "job s5 j1 engine=psync hipri=0 rw=randwrite bs=1048576 iodepth=1 region=1" in lines
    assert events(lines)[2] == "event 3 s5 fail-spare round=1 gap=2 role=1"
