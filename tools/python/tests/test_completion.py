# SPDX-License-Identifier: GPL-2.0
"""bash and zsh completion of striactl, stria-tune and stria-bench, as
scripts/gen-completion generates them (make tools): each script is loaded
in its shell and its completion asked for a command line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[3]
STRIACTL = TOP / "tools" / "striactl" / "striactl"
PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def comp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("completion")
    if not STRIACTL.exists():
        subprocess.run(["make", "-s", "-C", str(STRIACTL.parent)], check=True)
    subprocess.run([PYTHON, str(TOP / "scripts" / "gen-completion"), str(out), str(STRIACTL)],
                   check=True)
    # the tools on PATH, as installed: completion asks stria-tune for profiles
    bin_ = out / "bin"
    bin_.mkdir()
    for t in ("stria-tune", "stria-bench"):
        (bin_ / t).symlink_to(TOP / "tools" / "python" / "bin" / t)
    (bin_ / "striactl").symlink_to(STRIACTL)
    return out


def bash_complete(comp: Path, tool: str, line: str) -> list[str]:
    """COMPREPLY for ``line`` (the word being completed is its last, empty
    when it ends with a space), from the tool's bash completion."""
    script = comp / "bash" / tool
    func = re.search(r"^complete .*-F (\S+) " + re.escape(tool) + "$", script.read_text(),
                     re.M)
    assert func, f"{script} registers no completion function for {tool}"
    words = line.split() + ([""] if line.endswith(" ") else [])
    prog = ("source \"$1\"\n"
            "shift\n"
            "COMP_WORDS=(\"$@\")\n"
            "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
            f"COMP_LINE={line!r}\n"
            "COMP_POINT=${#COMP_LINE}\n"
            f"{func.group(1)} {tool} \"${{COMP_WORDS[COMP_CWORD]}}\" "
            "\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
            "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    env = dict(os.environ, PATH=f"{comp / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin",
               PYTHONPATH="")
    res = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog, "bash", str(script),
                          *words], capture_output=True, text=True, env=env, check=False)
    assert res.returncode == 0, res.stderr
    return sorted(w.strip() for w in res.stdout.splitlines() if w.strip())


# Type the line and Ctrl-D (list the choices) in an interactive zsh on a
# pty, once its line editor is up (the prompt after READY, which turns on
# bracketed paste: 2004h); the list is what zsh prints before it draws the
# line again. (Keys typed before the list is drawn would suppress it: zsh
# skips listing with typeahead, so the driver waits for the redraw.)
ZSH_DRIVER = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='>' ; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; bindkey -e; setopt NO_BEEP; echo RE''ADY"
zpty -r z junk '*READY*'
zpty -r z junk '*2004h*'
l=${2% }
zpty -w -n z "$2"$'\C-d'
zpty -r z out "*${(b)l}*${(b)l}*"
zpty -w -n z $'\C-u'"echo EN""D"$'\n'
zpty -r z junk '*END*'
print -r -- "$out"
zpty -d z
"""


def zsh_list(comp: Path, line: str) -> str:
    """What zsh lists for ``line`` (Ctrl-D, list-choices), escapes removed."""
    env = dict(os.environ, PATH=f"{comp / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin",
               TERM="xterm", PYTHONPATH="")
    res = subprocess.run(["timeout", "60", "zsh", "-f", "-c", ZSH_DRIVER, "zsh",
                          str(comp / "zsh"), line], capture_output=True, text=True, env=env,
                         check=False)
    assert res.returncode == 0, res.stderr
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x08|\r", " ", res.stdout)
    return text.split(line.rstrip())[1]


# --- bash ------------------------------------------------------------------

def test_bash_striactl_commands_and_options(comp: Path) -> None:
    assert bash_complete(comp, "striactl", "striactl cr") == ["create"]
    assert "status" in bash_complete(comp, "striactl", "striactl ")
    assert bash_complete(comp, "striactl", "striactl create r --le") == ["--level"]
    assert bash_complete(comp, "striactl", "striactl create r --level ") == [
        "0", "1", "10", "5", "6"]
    assert bash_complete(comp, "striactl", "striactl create r --level 10 --layout f") == [
        "f2", "f3", "f4"]
    assert bash_complete(comp, "striactl", "striactl create r -p ls --bitmap ") == [
        "internal", "none"]
    assert bash_complete(comp, "striactl", "striactl status -o ") == [
        "json", "normal", "prometheus"]
    assert bash_complete(comp, "striactl", "striactl status --output ") == [
        "json", "normal", "prometheus"]
    assert bash_complete(comp, "striactl", "striactl list -o ") == ["json", "normal"]
    assert bash_complete(comp, "striactl", "striactl scrub r ") == ["check", "repair", "stop"]
    assert "--quiet" in bash_complete(comp, "striactl", "striactl stop -")


def test_bash_striactl_offers_each_option_once(comp: Path) -> None:
    for cmd in ("create", "status", "monitor", "examine"):
        got = bash_complete(comp, "striactl", f"striactl {cmd} --")
        assert "--help" in got and len(got) == len(set(got)), (cmd, got)


@pytest.mark.skipif(not shutil.which("lsblk"), reason="lsblk not installed")
def test_bash_striactl_devices(comp: Path) -> None:
    devs = subprocess.run(["lsblk", "-dpno", "NAME"], capture_output=True, text=True,
                          check=True).stdout.split()
    assert devs, "no block device on this machine to complete"
    got = bash_complete(comp, "striactl", f"striactl create r --level 0 {devs[0][:-1]}")
    assert devs[0] in got and set(got) <= set(devs)
    assert devs[0] in bash_complete(comp, "striactl", f"striactl examine {devs[0][:-1]}")


def test_bash_stria_tune(comp: Path) -> None:
    assert bash_complete(comp, "stria-tune", "stria-tune sh") == ["show"]
    assert "--color" in bash_complete(comp, "stria-tune", "stria-tune show --co")
    assert bash_complete(comp, "stria-tune", "stria-tune show --color ") == [
        "always", "auto", "never"]
    assert {"balanced", "latency", "throughput"} <= set(
        bash_complete(comp, "stria-tune", "stria-tune apply -p "))


def test_bash_stria_bench(comp: Path) -> None:
    assert bash_complete(comp, "stria-bench", "stria-bench ru") == ["run"]
    assert bash_complete(comp, "stria-bench", "stria-bench run --suite ") == [
        "full", "quick", "standard"]
    assert "--verbose" in bash_complete(comp, "stria-bench", "stria-bench compare --ver")


# --- zsh -------------------------------------------------------------------

needs_zsh = pytest.mark.skipif(not shutil.which("zsh"), reason="zsh not installed")


@needs_zsh
def test_zsh_striactl(comp: Path) -> None:
    assert "create" in zsh_list(comp, "striactl cr")
    listed = zsh_list(comp, "striactl create r --level ").split()
    assert {"0", "1", "5", "6", "10"} <= set(listed)
    assert {"check", "repair", "stop"} <= set(zsh_list(comp, "striactl scrub r ").split())
    assert {"json", "normal", "prometheus"} <= set(zsh_list(comp, "striactl status -o ").split())


@needs_zsh
def test_zsh_stria_tune_and_bench(comp: Path) -> None:
    assert "show" in zsh_list(comp, "stria-tune sh")
    assert {"auto", "always", "never"} <= set(zsh_list(comp, "stria-tune show --color ").split())
    assert {"quick", "standard", "full"} <= set(
        zsh_list(comp, "stria-bench run --suite ").split())
