"""The debug kernel's record (selftests/record): parsing, latest, TAP."""

from __future__ import annotations

import pytest

from striatest import record

OK = "m1\ttests/raid0/001-a\tok\t120\tabc1234\t2026-11-30T02:00:00Z\n"
BAD = "m1\ttests/raid0/002-b\tnot ok\t300\tabc1234\t2026-11-30T02:10:00Z\ttimed out\n"
OTHER = "m0\ttests/raid0/002-b\tok\t90\t0000000\t2026-11-29T02:10:00Z\n"
AGAIN = "m1\ttests/raid0/002-b\tok\t250\tdef5678\t2026-11-30T03:00:00Z\n"


def test_round_trip() -> None:
    e = record.parse(BAD)[0]
    assert (e.test, e.status, e.seconds, e.reason) == ("tests/raid0/002-b", "not ok", 300,
                                                       "timed out")
    assert e.line() == BAD


def test_bad_lines_are_refused() -> None:
    for ln in ("m1\tt\tpassed\t1\tc\tt\n", "m1\tt\tok\tx\tc\tt\n", "m1\tt\tok\n"):
        with pytest.raises(ValueError, match="record line 1"):
            record.parse(ln)
    with pytest.raises(ValueError, match="tab"):
        record.Entry("m", "t", "ok", 1, "c", "t", "a\tb").line()


def test_latest_is_per_module_and_last_wins() -> None:
    entries = record.parse("# comment\n" + OK + BAD + OTHER)
    last = record.latest(entries, "m1")
    assert last["tests/raid0/002-b"].status == "not ok"
    last = record.latest(record.parse(OK + BAD + OTHER + AGAIN), "m1")
    assert last["tests/raid0/002-b"].status == "ok"
    assert record.latest(entries, "m0")["tests/raid0/002-b"].commit == "0000000"


def test_tap_lists_ran_and_todo() -> None:
    wanted = ["tests/raid0/001-a", "tests/raid0/002-b", "tests/raid0/003-c"]
    out = record.tap(record.parse(OK + BAD + OTHER), "m1", wanted, ["head"])
    lines = out.splitlines()
    assert lines[0] == "# head"
    assert "1..2" in lines
    assert "ok 1 - debug/tests/raid0/001-a (120 s) [abc1234]" in lines
    assert "not ok 2 - debug/tests/raid0/002-b (300 s) [abc1234]: timed out" in lines
    assert lines[-1] == "#   tests/raid0/003-c"
    # a pass on another module does not count for this one
    assert "m0" not in out


def test_parse_tap_line() -> None:
    t = "tests/raid0/001-a"
    assert record.parse_tap_line(f"TAP version 13\n1..1\nok 1 - debug/{t} (42 s)\n", t) == \
        ("ok", 42, "")
    assert record.parse_tap_line(f"not ok 1 - debug/{t} (7 s): guest hung\n", t) == \
        ("not ok", 7, "guest hung")
    assert record.parse_tap_line(f"ok 1 - debug/{t} # SKIP no hipri\n", t) == \
        ("skip", 0, "no hipri")
    status, _, why = record.parse_tap_line("# interrupted\n", t)
    assert status == "not ok" and "no TAP line" in why


def test_module_hash_is_the_documented_pipeline() -> None:
    import subprocess
    from pathlib import Path

    elf = Path("/bin/true")
    want = subprocess.run(f"objdump -d --no-show-raw-insn {elf} | tail -n +4 | sha256sum",
                          shell=True, check=True, capture_output=True,
                          text=True).stdout[:16]
    assert record.module_hash(elf) == want
