# SPDX-License-Identifier: GPL-2.0
"""scripts/layers on a small tree of its own, compiled here: the arrows
between files come from the objects' symbols, a circle is found, and with
a layer map a call that goes up fails unless it is allowed, as does a
circle across layers and a file too long."""

from __future__ import annotations

import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parents[3]
LAYERS = TOP / "scripts" / "layers"

# top.c calls mid.c, mid.c calls low.c; low.c calls back into mid.c
# (a circle) only when UPCALL is defined
SOURCES = {
    "top.c": "int mid_f(void);\nint top_f(void) { return mid_f(); }\n",
    "mid.c": "int low_f(void);\nint mid_f(void) { return low_f(); }\n"
             "int mid_cb(void) { return 1; }\n",
    "low.c": "int mid_cb(void);\nint low_f(void) {\n#ifdef UPCALL\n"
             "\treturn mid_cb();\n#else\n\treturn 0;\n#endif\n}\n",
}


def tree(tmp: Path, upcall: bool) -> Path:
    for name, text in SOURCES.items():
        (tmp / name).write_text(text)
        subprocess.run(["cc", "-c", "-O0"] + (["-DUPCALL"] if upcall else [])
                       + ["-o", str(tmp / name.replace(".c", ".o")), str(tmp / name)],
                       check=True)
    return tmp


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LAYERS), *args], capture_output=True, text=True, timeout=60)


def test_arrows_from_the_objects(tmp_path: Path) -> None:
    p = run(str(tree(tmp_path, False)))
    assert p.returncode == 0, p.stderr
    assert "top.c -> mid.c: mid_f" in p.stdout
    assert "mid.c -> low.c: low_f" in p.stdout
    assert "low.c -> mid.c" not in p.stdout
    circles = p.stdout.split("# circles")[1].split("# .c files")[0]
    assert "files:" not in circles


def test_a_circle(tmp_path: Path) -> None:
    p = run(str(tree(tmp_path, True)))
    assert p.returncode == 0, p.stderr      # no layer map: a report
    assert "low.c -> mid.c: mid_cb" in p.stdout
    assert "2 files: low.c mid.c" in p.stdout


def test_layer_map(tmp_path: Path) -> None:
    d = tree(tmp_path, True)
    m = d / "LAYERS"
    m.write_text("low.c bottom\nmid.c middle\ntop.c top\n")
    p = run("--layers", str(m), str(d))
    assert p.returncode == 1
    assert "low.c -> mid.c: mid_cb  UP: mid_cb" in p.stdout
    assert "2 files: low.c mid.c  (across layers)" in p.stdout
    # an allowed callback, both files in one layer: passes
    m.write_text("low.c bottom\nmid.c bottom\ntop.c top\n")
    assert run("--layers", str(m), str(d)).returncode == 0
    m.write_text("low.c bottom\nmid.c middle\ntop.c top\nup low.c mid.c mid_cb  # a callback\n")
    p = run("--layers", str(m), str(d))
    assert "UP:" not in p.stdout
    assert p.returncode == 1                 # the circle across layers still fails
    # too long a file fails with a map
    m.write_text("low.c bottom\nmid.c bottom\ntop.c top\n")
    p = run("--layers", str(m), "--max-lines", "2", str(d))
    assert p.returncode == 1 and "low.c: 8" in p.stdout


def test_bad_input(tmp_path: Path) -> None:
    d = tree(tmp_path, False)
    (d / "low.o").unlink()
    p = run(str(d))
    assert p.returncode == 2 and "make module" in p.stderr
    d = tree(tmp_path, False)
    m = d / "LAYERS"
    m.write_text("low.c bottom\nmid.c\n")
    p = run("--layers", str(m), str(d))
    assert p.returncode == 2 and "LAYERS:2" in p.stderr
    m.write_text("low.c bottom\n")
    p = run("--layers", str(m), str(d))
    assert p.returncode == 2 and "no layer for mid.c, top.c" in p.stderr
