# SPDX-License-Identifier: GPL-2.0
"""Instruction profiles: snapshot differences, symbol resolution, report."""

from __future__ import annotations

from pathlib import Path

import pytest

from striatest import profile

KALLSYMS = """\
ffffffff81000000 T _stext
ffffffff81000100 t helper_a
ffffffff81000200 T helper_b
ffffffff81000300 d some_data
ffffffffc0000000 t stria_queue_rq\t[stria]
ffffffffc0000400 t stria_sop_run\t[stria]
""".splitlines()


def test_diff_keeps_blocks_that_ran_in_the_window() -> None:
    begin = ["# blocks 3 overflow 0", "ffffffff81000100 4 10", "ffffffff81000200 2 5"]
    end = ["# blocks 4 overflow 0", "ffffffff81000100 4 10", "ffffffff81000200 2 8",
           "ffffffffc0000010 3 7"]
    assert profile.diff_snapshots(begin, end) == {
        (0xffffffff81000200, 2): 3, (0xffffffffc0000010, 3): 7}


def test_same_address_other_length_is_another_block() -> None:
    snap = profile.parse_snapshot(["ffffffff81000100 4 1", "ffffffff81000100 6 2"])
    assert snap == {(0xffffffff81000100, 4): 1, (0xffffffff81000100, 6): 2}


def test_bad_snapshot_line_is_refused() -> None:
    with pytest.raises(ValueError, match="bad snapshot line"):
        profile.parse_snapshot(["ffffffff81000100 4"])


def test_resolve_text_symbols_modules_and_user() -> None:
    syms = profile.parse_kallsyms(KALLSYMS)
    assert syms.resolve(0xffffffff81000150) == "helper_a"
    # data symbols are not functions: the text symbol before them counts
    assert syms.resolve(0xffffffff81000350) == "helper_b"
    assert syms.resolve(0xffffffffc0000410) == "stria_sop_run [stria]"
    assert syms.resolve(0x400000) == "(user)"
    assert syms.resolve(0xffffffff80000000) == "?"


def test_kallsyms_without_addresses_is_refused() -> None:
    with pytest.raises(ValueError, match="not read as root"):
        profile.parse_kallsyms(["0000000000000000 T _stext"])


def test_build_and_report_per_io() -> None:
    syms = profile.parse_kallsyms(KALLSYMS)
    window = {(0xffffffff81000100, 4): 100, (0xffffffffc0000000, 10): 30,
              (0x401000, 5): 40}
    p = profile.build(window, syms)
    assert p.total == 400 + 300 + 200
    assert p.modules == {"vmlinux": 400, "stria": 300, "(user)": 200}
    assert p.functions["stria_queue_rq [stria]"] == 300
    text = profile.report(p, ios=10)
    assert "900 instructions, 90 per I/O over 10 I/Os" in text
    assert "     30  stria_queue_rq [stria]" in text
    assert profile.report(profile.Profile(0, p.functions, p.modules)) == \
        "no instructions counted\n"


def test_main_reports_and_refuses_a_missing_file(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    ks = tmp_path / "kallsyms"
    ks.write_text("\n".join(KALLSYMS) + "\n")
    win = tmp_path / "win"
    win.write_text("ffffffffc0000400 5 20\n")
    assert profile.main([str(win), str(ks), "--ios", "4"]) == 0
    assert "100 instructions, 25 per I/O" in capsys.readouterr().out
    assert profile.main([str(win) + ".none", str(ks)]) == 1
    assert "stria-profile:" in capsys.readouterr().err


def test_a_window_with_uncounted_blocks_is_refused() -> None:
    begin = ["# blocks 3 overflow 2", "ffffffff81000100 4 10"]
    end = ["# blocks 3 overflow 5", "ffffffff81000100 4 12"]
    with pytest.raises(ValueError, match="3 blocks were translated but not counted"):
        profile.diff_snapshots(begin, end)


def test_user_space_is_counted_by_block_length() -> None:
    window = profile.parse_window(["0 5 10", "0 7 1", "ffffffffc0000010 3 2"])
    p = profile.build(window, profile.parse_kallsyms(KALLSYMS))
    assert p.modules["(user)"] == 57
    assert p.functions["stria_queue_rq [stria]"] == 6
