# SPDX-License-Identifier: GPL-2.0
"""stria operator tools: device discovery (stria.discovery), stria-tune and
stria-bench."""

from pathlib import Path


def _version() -> str:
    # VERSION is the tree's one version (the module's, striactl's), copied
    # into the package (tests/test_cli_common.py checks the copy).
    try:
        return (Path(__file__).resolve().parent / "VERSION").read_text().strip()
    except OSError:
        return "unknown"


__version__ = _version()
