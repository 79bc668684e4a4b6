# SPDX-License-Identifier: GPL-2.0
"""stria operator tools: device discovery (stria.discovery), stria-tune and
stria-bench."""

from pathlib import Path


def _version() -> str:
    # VERSION is the tree's one version (the module's, striactl's): a link
    # to it in a checkout, a copy of it in an installed package.
    try:
        return (Path(__file__).resolve().parent / "VERSION").read_text().strip()
    except OSError:
        return "unknown"


__version__ = _version()
