# SPDX-License-Identifier: GPL-2.0
"""The admin guide's checked sessions (striatest.docsessions) and its
layout and reshape figures: the parser and matcher can fail, every session of
admin.rst parses, and each figure is what its program in figures/ prints from
the driver's own code."""

import shutil
import subprocess
from pathlib import Path

import pytest

from striatest import docsessions as ds

TOP = Path(__file__).resolve().parents[3]
ADMIN = TOP / "Documentation" / "stria" / "admin.rst"

SAMPLE = """Text.

.. session: one
   setup: echo hidden

::

    # echo a
    a
    # printf 'x 1\\ny\\n'
    x ...
    ...

After.
"""


def test_extract_sample() -> None:
    [s] = ds.extract(SAMPLE)
    assert s.name == "one" and s.setup == ["echo hidden"]
    assert [st.command for st in s.steps] == ["echo a", "printf 'x 1\\ny\\n'"]
    assert s.steps[0].expected == ["a"] and s.steps[1].expected == ["x ...", "..."]


def test_extract_refuses_a_block_without_command() -> None:
    with pytest.raises(ValueError, match="output before any command"):
        ds.extract(".. session: bad\n\n::\n\n    output\n")


def test_extract_refuses_a_mark_without_block() -> None:
    with pytest.raises(ValueError, match="no literal block"):
        ds.extract(".. session: bad\n\nplain text\n")


def test_matches() -> None:
    assert ds.matches(["a ... c"], ["a bb c"])
    assert not ds.matches(["a ... c"], ["a bb d"])
    assert ds.matches(["x", "...", "z"], ["x", "z"])
    assert ds.matches(["x", "...", "z"], ["x", "1", "2", "z"])
    assert not ds.matches(["x", "...", "z"], ["x", "1", "2"])
    assert not ds.matches(["a"], ["a", "b"])
    assert not ds.matches([], ["unexpected"])
    assert ds.matches([], [])
    assert ds.matches(["a"], ["a  ", ""])  # trailing space and blank lines


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_run_reports_a_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rst = tmp_path / "g.rst"
    rst.write_text(".. session: s\n\n::\n\n    # echo one\n    one\n    # echo two\n    three\n")
    rec = tmp_path / "rec.txt"
    assert ds.main([str(rst), "--record", str(rec)]) == 1
    out = capsys.readouterr().out
    assert "ok - s: echo one" in out and "not ok - s (line 1): 'echo two' printed:" in out
    assert "# echo two\ntwo\n" in rec.read_text()
    rst.write_text(".. session: s\n\n::\n\n    # echo one\n    one\n    # echo two\n    two\n")
    assert ds.main([str(rst)]) == 0


def test_admin_guide_sessions_parse() -> None:
    sessions = ds.extract(ADMIN.read_text())
    assert len(sessions) >= 10
    names = [s.name for s in sessions]
    assert len(set(names)) == len(names), names
    assert all(s.steps for s in sessions)


@pytest.mark.parametrize("program,doc", [("layout.c", "admin.rst"), ("reshape.c", "sync.rst")])
def test_figure_is_the_drivers(tmp_path: Path, program: str, doc: str) -> None:
    """The figure in DOC is what PROGRAM prints from the driver's own code
    (gcc builds the module, so it is there wherever the tests run)."""
    exe = tmp_path / "figure"
    subprocess.run(["gcc", "-Wall", "-Werror", "-I", str(TOP / "drivers" / "stria"),
                    "-I", str(TOP / "include" / "uapi"), "-o", str(exe),
                    str(TOP / "Documentation" / "stria" / "figures" / program)], check=True)
    fig = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    want = [line.rstrip() for line in fig.rstrip("\n").splitlines()]
    text = (TOP / "Documentation" / "stria" / doc).read_text()
    lines = [line[4:].rstrip() if line.startswith("    ") else line.rstrip()
             for line in text.splitlines()]
    start = lines.index(want[0])
    assert lines[start:start + len(want)] == want
