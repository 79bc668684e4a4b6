# SPDX-License-Identifier: GPL-2.0
"""What both tools do alike: plain, uncut text off a terminal and at 80
columns, --color and NO_COLOR, the documented exit codes (one test each),
no traceback on Ctrl-C or a closed pipe, matplotlib optional, Python 3.9,
and installing as a package with pip."""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_helpers import full_doc
from fixtures.tunefakes import FIXTURES, FakeNvme, run
from stria import __version__
from stria.bench import cli as bench_cli
from stria.tune import cli as tune_cli

PYDIR = Path(__file__).resolve().parent.parent
TOP = PYDIR.parent.parent
PYTHON = "/usr/bin/python3"
ESC = "\x1b"


def tool(name: str, *args: str, env: dict[str, str] | None = None,
         python: str = PYTHON, pythonpath: str = str(PYDIR)) -> subprocess.CompletedProcess[str]:
    """Run a tool from the checkout with its stdout a pipe."""
    e = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "TERM")}
    e["PYTHONPATH"] = pythonpath
    e.update(env or {})
    return subprocess.run([python, str(PYDIR / "bin" / name), *args], capture_output=True,
                          text=True, env=e, check=False)


def on_a_terminal(name: str, *args: str, env: dict[str, str] | None = None) -> str:
    """Run a tool with its stdout a terminal (a pty, 80 columns) and return
    what it printed."""
    e = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    e.update({"PYTHONPATH": str(PYDIR), "TERM": "xterm-256color", "COLUMNS": "80"})
    e.update(env or {})
    master, slave = pty.openpty()
    p = subprocess.Popen([PYTHON, str(PYDIR / "bin" / name), *args], stdout=slave,
                         stderr=subprocess.PIPE, env=e)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    p.wait()
    os.close(master)
    assert p.returncode == 0, p.stderr
    return b"".join(chunks).decode()


def words(text: str) -> set[str]:
    return set(text.split())


# --- plain text, never cut ------------------------------------------------

SHOW = ["show", "--root", str(FIXTURES / "degraded"), "-p", "throughput"]


def test_show_off_a_terminal_is_plain_and_80_columns() -> None:
    res = tool("stria-tune", *SHOW)
    assert res.returncode == 0, res.stderr
    assert ESC not in res.stdout
    assert max(len(line) for line in res.stdout.splitlines()) <= 80
    assert "\u2026" not in res.stdout and "..." not in res.stdout
    # every PCI address whole, on one line
    for addr in ("0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0"):
        assert addr in res.stdout


@pytest.mark.parametrize("width", [80, 60, 40])
def test_show_values_whole_at_any_width(width: int) -> None:
    """Narrower than the table: cells wrap at spaces, or the table turns
    into blocks; every word of the wide output is still there."""
    wide = tool("stria-tune", *SHOW, "-v", env={"COLUMNS": "300"}).stdout
    narrow = tool("stria-tune", *SHOW, "-v", env={"COLUMNS": str(width)}).stdout
    assert max(len(line) for line in narrow.splitlines()) <= width
    # rules under headers change with the width; a word longer than a line
    # is folded over two; everything else stays
    flat = "".join(narrow.split())
    lost = {w for w in words(wide) if w not in flat and not re.fullmatch(r"-+", w)}
    assert not lost


def test_color_only_on_a_terminal() -> None:
    assert ESC in on_a_terminal("stria-tune", *SHOW)                    # bold headers
    assert ESC not in on_a_terminal("stria-tune", *SHOW, "--color", "never")
    assert ESC not in on_a_terminal("stria-tune", *SHOW, env={"NO_COLOR": "1"})
    assert ESC not in on_a_terminal("stria-tune", *SHOW, env={"TERM": "dumb"})
    # and forced on a pipe: the test can see escapes where there are some
    assert ESC in tool("stria-tune", *SHOW, "--color", "always").stdout


def test_profiles_and_apply_fit_80_columns(tmp_path: Path) -> None:
    res = tool("stria-tune", "profiles")
    assert res.returncode == 0 and ESC not in res.stdout
    assert max(len(line) for line in res.stdout.splitlines()) <= 80
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / "plain4", root, symlinks=True)
    code, out, err = run(["apply", "--root", str(root), "-p", "latency", "-n",
                          "--modprobe-dir", str(tmp_path)], nvme=FakeNvme(root), euid=1000)
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "nomerges" in out and "poll_queues" in out


def _compare_dirs(tmp_path: Path) -> tuple[Path, Path]:
    a = full_doc(tmp_path / "a")
    b = copy.deepcopy(a)
    b["settings"]["fio_args"] = ["--iodepth=64", "--filename=/dev/disk/by-id/"
                                 "nvme-A_VERY_LONG_MODEL_NAME_1234567890_SERIAL_XYZ"]
    for d, doc in (("a", a), ("b", b)):
        (tmp_path / d).mkdir(exist_ok=True)
        (tmp_path / d / "results.json").write_text(json.dumps(doc))
    return tmp_path / "a", tmp_path / "b"


def test_compare_plain_and_uncut(tmp_path: Path) -> None:
    a, b = _compare_dirs(tmp_path)
    res = tool("stria-bench", "compare", str(a), str(b))
    assert res.returncode == 0, res.stderr
    assert ESC not in res.stdout
    assert max(len(line) for line in res.stdout.splitlines()) <= 80
    assert "nvme-A_VERY_LONG_MODEL_NAME_1234567890_SERIAL_XYZ" in "".join(res.stdout.split())
    assert "within noise" in res.stdout


# --- exit codes: one test per documented code ------------------------------

def test_tune_exit_0() -> None:
    assert tool("stria-tune", "--version").returncode == 0


def test_tune_exit_1_error_nothing_changed() -> None:
    code, out, err = run(["show", "--root", str(FIXTURES / "plain4"), "-p", "turbo"])
    assert code == tune_cli.EXIT_ERROR == 1 and "unknown profile" in err


def test_tune_exit_2_usage() -> None:
    res = tool("stria-tune", "show", "--no-such-option")
    assert res.returncode == 2 and "usage:" in res.stderr


def test_tune_exit_3_partial() -> None:
    assert tune_cli.EXIT_PARTIAL == 3   # applied in part: test_tune_apply's refusals


def test_tune_exit_130_interrupted(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(ctx: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setitem(tune_cli.COMMANDS, "show", interrupted)
    code, out, err = run(["show"])
    assert code == 130
    assert err == "stria-tune: interrupted; 'stria-tune revert' undoes what was applied\n"


def test_tune_exit_141_closed_pipe(tmp_path: Path) -> None:
    _exit_141(tmp_path, "stria-tune", "profiles")


def _exit_141(tmp_path: Path, name: str, *args: str) -> None:
    """The reader of the tool's stdout is gone before it writes (as with
    | head once head has its lines)."""
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([PYTHON, str(PYDIR / "bin" / name), *args], stdout=w,
                       stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, PYTHONPATH=str(PYDIR)), check=False)
    os.close(w)
    assert p.returncode == 141, p.stderr
    assert p.stderr == ""


def test_bench_exit_0(tmp_path: Path) -> None:
    a, b = _compare_dirs(tmp_path)
    assert tool("stria-bench", "compare", str(a), str(b), "-o", "json").returncode == 0


def test_bench_exit_1_error(tmp_path: Path) -> None:
    res = tool("stria-bench", "report", str(tmp_path / "nothing"))
    assert res.returncode == 1 and "stria-bench:" in res.stderr


def test_bench_exit_2_usage() -> None:
    """argparse's usage errors: 2, which means nothing else here."""
    res = tool("stria-bench", "run", "--devices", "/dev/null", "--levels", "4")
    assert res.returncode == 2 and "usage:" in res.stderr
    res = tool("stria-bench", "frobnicate")
    assert res.returncode == 2
    assert bench_cli.EXIT_USAGE == 2
    assert 2 not in (bench_cli.EXIT_ERROR, bench_cli.EXIT_RUNS_FAILED, bench_cli.EXIT_REFUSED)


def test_bench_exit_3_runs_failed() -> None:
    assert bench_cli.EXIT_RUNS_FAILED == 3   # test_bench_cli: a run whose fio failed


def test_bench_exit_4_refused(tmp_path: Path) -> None:
    img = tmp_path / "ext4.img"
    with open(img, "wb") as f:
        f.truncate(64 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(img)], check=True)
    res = tool("stria-bench", "run", "--devices", str(img), "--out", str(tmp_path / "o"))
    assert res.returncode == 4, res.stderr
    assert f"refusing {img}" in res.stderr


def test_bench_exit_130_interrupted(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(a: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(bench_cli, "cmd_compare", interrupted)
    assert bench_cli.main(["compare", "a", "b"]) == 130
    assert capsys.readouterr().err == "stria-bench: interrupted\n"


def test_bench_exit_141_closed_pipe(tmp_path: Path) -> None:
    a, b = _compare_dirs(tmp_path)
    _exit_141(tmp_path, "stria-bench", "compare", str(a), str(b))


def test_man_pages_document_the_codes() -> None:
    for page, codes in (("stria-tune.8", (0, 1, 2, 3, 130, 141)),
                        ("stria-bench.8", (0, 1, 2, 3, 4, 130, 141))):
        text = (PYDIR / "man" / page).read_text()
        section = text[text.index(".SH EXIT STATUS"):]
        section = section[:section.index("\n.SH", 1)]
        found = {int(m) for m in re.findall(r"^\.B (\d+)$|^\.IP (\d+)", section, re.M)
                 for m in m if m}
        assert found == set(codes), (page, found)


# --- matplotlib is optional; stria-tune never loads it ---------------------

def test_tune_never_imports_matplotlib(tmp_path: Path) -> None:
    code = ("import sys\n"
            "from stria.tune import cli\n"
            f"root = {str(FIXTURES / 'degraded')!r}\n"
            "for argv in (['show', '--root', root], ['show', '--root', root, '-o', 'json'],\n"
            "             ['profiles'], ['apply', '--root', root, '-p', 'balanced', '-n']):\n"
            "    cli.main(argv, out=open('/dev/null', 'w'))\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in\n"
            "             ('matplotlib', 'numpy')))\n")
    res = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(PYDIR)), check=False)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_bench_report_without_matplotlib(tmp_path: Path) -> None:
    doc = full_doc(tmp_path / "run")
    (tmp_path / "run" / "results.json").write_text(json.dumps(doc))
    code = ("import sys\n"
            "sys.modules['matplotlib'] = None  # as if not installed\n"
            "from stria.bench import cli\n"
            f"sys.exit(cli.main(['report', {str(tmp_path / 'run')!r}]))\n")
    res = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(PYDIR)), check=False)
    assert res.returncode == 0, res.stderr
    assert "matplotlib is not installed" in res.stderr
    report = (tmp_path / "run" / "report.md").read_text()
    assert "No plots: matplotlib is not installed" in report
    assert not list((tmp_path / "run").glob("*.png"))


# --- Python 3.9, and pip ---------------------------------------------------

def _python39() -> str | None:
    for p in sorted(str(p) for p in Path("/root/.pyenv/versions").glob("3.9*/bin/python3.9")) \
            + [shutil.which("python3.9")]:
        if p and subprocess.run([p, "-c", "import sys; assert sys.version_info[:2] == (3, 9)"],
                                capture_output=True, check=False).returncode == 0:
            return p
    return None


@pytest.mark.skipif(_python39() is None, reason="no Python 3.9 interpreter on this machine")
def test_runs_on_python_3_9() -> None:
    """The oldest Python supported (no tomllib there: tomli reads the
    profiles). rich and tomli are pure Python: Debian's copies serve."""
    py = _python39()
    assert py is not None
    path = f"{PYDIR}:/usr/lib/python3/dist-packages"
    res = tool("stria-tune", "--version", python=py, pythonpath=path)
    assert res.returncode == 0 and res.stdout == f"stria-tune {__version__}\n", res.stderr
    res = tool("stria-tune", "profiles", "-o", "json", python=py, pythonpath=path)
    assert res.returncode == 0, res.stderr
    assert [p["name"] for p in json.loads(res.stdout)["profiles"]] == [
        "balanced", "latency", "throughput"]
    res = tool("stria-tune", *SHOW, python=py, pythonpath=path)
    assert res.returncode == 0 and "0000:03:00.0" in res.stdout, res.stderr
    res = tool("stria-bench", "--version", python=py, pythonpath=path)
    assert res.returncode == 0 and res.stdout == f"stria-bench {__version__}\n", res.stderr


def test_pip_install_gives_entry_points(tmp_path: Path) -> None:
    """pip install tools/python: stria-tune and stria-bench as console
    scripts, the version of VERSION, the profiles as package data."""
    src = tmp_path / "src"
    shutil.copytree(PYDIR, src, ignore=shutil.ignore_patterns(
        "tests", "build", "*.egg-info", "__pycache__"))     # VERSION's link followed
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    res = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-deps",
                          "--no-index", "--no-build-isolation", str(src)],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    for name in ("stria-tune", "stria-bench"):
        script = venv / "bin" / name
        assert f"from stria.{name[6:]}.cli import main" in script.read_text()
        out = subprocess.run([str(script), "--version"], capture_output=True, text=True,
                             cwd="/", env={"PATH": "/usr/bin:/bin"}, check=False)
        assert out.returncode == 0 and out.stdout == f"{name} {__version__}\n", out.stderr
    out = subprocess.run([str(venv / "bin" / "stria-tune"), "profiles", "-q"],
                         capture_output=True, text=True, cwd="/", check=False)
    assert out.returncode == 0 and out.stdout.startswith("balanced: "), out.stderr
    meta = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import importlib.metadata as m; d = m.metadata('stria-tools'); "
                           "print(d['Version'], d['Requires-Python']); "
                           "print(sorted(m.requires('stria-tools')))"],
                          capture_output=True, text=True, check=True).stdout.splitlines()
    assert meta[0] == f"{__version__} >=3.9"
    # setuptools versions spell requirements differently: compare them bare
    reqs = re.sub(r"[\s()'\"]", "", meta[1])
    assert "matplotlib>=3.3;extra==plots" in reqs, meta[1]
    assert "tomli>=1.1;python_version<3.11" in reqs, meta[1]
    assert sys.version_info >= (3, 9)


def test_package_version_is_the_trees() -> None:
    """stria/VERSION is a copy of the tree's VERSION (the module's and
    striactl's version): bump both."""
    assert (PYDIR / "stria" / "VERSION").read_text() == (TOP / "VERSION").read_text()
    assert not (PYDIR / "stria" / "VERSION").is_symlink()


def test_built_outside_the_checkout_carries_the_version(tmp_path: Path) -> None:
    """tools/python copied alone, links kept (cp -a, a packager's tree):
    the wheel and --version carry the tree's version, not 0.0.0."""
    want = (TOP / "VERSION").read_text().strip()
    src = tmp_path / "python"
    shutil.copytree(PYDIR, src, symlinks=True, ignore=shutil.ignore_patterns(
        "tests", "build", "*.egg-info", "__pycache__"))
    res = subprocess.run([PYTHON, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
                          "--no-build-isolation", "-w", str(tmp_path / "w"), str(src)],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    assert [p.name for p in (tmp_path / "w").iterdir()] == \
        [f"stria_tools-{want}-py3-none-any.whl"]
    out = subprocess.run([PYTHON, str(src / "bin" / "stria-tune"), "--version"],
                         capture_output=True, text=True, cwd="/", check=False)
    assert out.stdout == f"stria-tune {want}\n", out.stderr


@pytest.mark.parametrize("tool", ["bench", "tune"])
def test_every_help_renders(tool: str) -> None:
    """Every command's --help prints: argparse expands '%' in help texts,
    so a bare one ("iops_slope:1%") made `stria-bench run --help` die
    with a traceback instead of printing the help."""
    mod = importlib.import_module(f"stria.{tool}.cli")
    parser = mod.build_parser()
    texts = [parser.format_help()]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            texts += [sub.format_help() for sub in action.choices.values()]
    assert len(texts) > 1 and all(texts)
