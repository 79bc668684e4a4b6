# SPDX-License-Identifier: GPL-2.0
"""What users read explains itself or cites public sources: no reference to
the project's internal documents (field reports by number, issues, notes)
in the man pages, the documentation, the README, the profiles, or any
string the tools print; and the man pages point at each other and at the
tools they work with."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[3]
MAN_PAGES = [TOP / "tools" / "striactl" / "striactl.8",
             TOP / "tools" / "python" / "man" / "stria-tune.8",
             TOP / "tools" / "python" / "man" / "stria-bench.8"]

# "seed 003", "seeds 000", "issue 22", "TESTING-NOTES", "STYLE.md", paths
# into the team's shared folder
INTERNAL = re.compile(r"\bseeds?\s*\d{3}\b|\bseeds'|\bissues?\s+\d+\b|TESTING-NOTES|STYLE\.md"
                      r"|/work/shared|\bshared/seeds", re.I)


def user_files() -> list[Path]:
    files = [TOP / "README.md", TOP / "tools" / "python" / "README.md", *MAN_PAGES]
    files += sorted((TOP / "Documentation").rglob("*.rst"))
    files += sorted((TOP / "Documentation").rglob("sysfs-*"))
    files += sorted((TOP / "tools" / "python" / "stria" / "profiles").glob("*.toml"))
    return files


@pytest.mark.parametrize("path", user_files(), ids=lambda p: str(p.relative_to(TOP)))
def test_no_internal_references_in_documents(path: Path) -> None:
    bad = [f"{path.name}:{i}: {line.strip()}"
           for i, line in enumerate(path.read_text().splitlines(), 1) if INTERNAL.search(line)]
    assert not bad, "\n".join(bad)


def test_no_internal_references_in_python_strings() -> None:
    """Every string literal of the tools (messages, help, docstrings)."""
    bad = []
    for path in sorted((TOP / "tools" / "python" / "stria").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and INTERNAL.search(node.value):
                bad.append(f"{path.relative_to(TOP)}:{node.lineno}: {node.value[:80]!r}")
    assert not bad, "\n".join(bad)


def test_no_internal_references_in_striactl_strings() -> None:
    bad = []
    for path in sorted((TOP / "tools" / "striactl").glob("*.[ch]")):
        for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"', path.read_text()):
            if INTERNAL.search(m.group(0)):
                bad.append(f"{path.name}: {m.group(0)[:80]}")
    assert not bad, "\n".join(bad)


def test_the_pattern_finds_what_it_must() -> None:
    for text in ("(seed 003)", "Seeds 000 and 003", "issue 22", "see TESTING-NOTES",
                 "the seeds' tables"):
        assert INTERNAL.search(text), text
    for text in ("--randseed=1234", "a seed for the generator", "issued 3 writes",
                 "fuzzed 1,800 s, seed 4242"):
        assert not INTERNAL.search(text), text


@pytest.mark.parametrize("page", MAN_PAGES, ids=lambda p: p.name)
def test_man_pages_see_also(page: Path) -> None:
    text = page.read_text()
    see = text[text.index(".SH SEE ALSO"):]
    refs = set(re.findall(r"^\.BR (\S+) \((\d)\)", see, re.M))
    wanted = {("striactl", "8"), ("stria-tune", "8"), ("stria-bench", "8"),
              ("mdadm", "8"), ("nvme", "1"), ("fio", "1")} - {(page.stem, "8")}
    assert wanted <= refs, f"{page.name} SEE ALSO lacks {sorted(wanted - refs)}"


@pytest.mark.parametrize("page", MAN_PAGES, ids=lambda p: p.name)
def test_man_pages_document_quiet_verbose_version(page: Path) -> None:
    text = page.read_text()
    for opt in (r"\-q", r"\-\-quiet", r"\-v", r"\-\-verbose", r"\-\-version"):
        assert opt in text, f"{page.name} does not document {opt}"


def test_documented_metrics_cron_job_is_unprivileged_and_safe(tmp_path: Path) -> None:
    # A cron job that writes a fixed name in a directory another user can
    # write to, as root, follows whatever link that user put there.
    text = (TOP / "Documentation" / "stria" / "admin.rst").read_text()
    job = text[text.index("# /etc/cron.d/stria-metrics"):].splitlines()[1].split(None, 6)
    user, command = job[5], job[6]
    assert user not in ("root", "0")
    assert "mktemp" in command and "$$" not in command and ".tmp" not in command
    # Run it: the file appears whole under its name, no temporary is left.
    fake = tmp_path / "striactl"
    fake.write_text("#!/bin/sh\necho 'stria_up 1'\n")
    fake.chmod(0o755)
    d = tmp_path / "node-exporter"
    d.mkdir()
    command = command.replace("/var/lib/prometheus/node-exporter", str(d))
    command = command.replace("/usr/sbin/striactl", str(fake))
    subprocess.run(["/bin/sh", "-c", command], check=True)
    assert [p.name for p in d.iterdir()] == ["stria.prom"]
    assert (d / "stria.prom").read_text() == "stria_up 1\n"
