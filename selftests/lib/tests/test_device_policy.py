# SPDX-License-Identifier: GPL-2.0
"""One device policy: the block devices udev hands to striactl and those
``striactl assemble --scan`` and ``--incremental`` read are chosen by the
same exclusions (tools/striactl/ondisk.c's table, the udev rule's KERNEL
match), so a device udev ignores (a loop device a desktop user attaches
with udisks, say) cannot supply a member at the next --scan either."""

from __future__ import annotations

import re
from pathlib import Path

TOP = Path(__file__).resolve().parents[3]


def c_table() -> set[str]:
    text = (TOP / "tools" / "striactl" / "ondisk.c").read_text()
    m = re.search(r"excluded_devices\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    assert m, "ondisk.c has no excluded_devices[] table"
    return set(re.findall(r'\{\s*"([a-z]+)",', m.group(1)))


def udev_prefixes() -> set[str]:
    text = (TOP / "udev" / "64-stria-assembly.rules").read_text()
    member = text[text.index('LABEL="stria_member"'):]
    m = re.search(r'^KERNEL=="([^"]+)", GOTO="stria_end"', member, re.M)
    assert m, "the member part of the rule has no KERNEL exclusion"
    pats = m.group(1).split("|")
    assert all(p.endswith("*") for p in pats), pats
    return {p[:-1] for p in pats}


def test_udev_and_striactl_exclude_the_same_devices() -> None:
    # stria arrays themselves are sent elsewhere earlier in the rule
    assert udev_prefixes() | {"stria"} == c_table()


def test_devices_an_unprivileged_user_can_attach_are_excluded() -> None:
    assert {"loop", "nbd", "zram", "ram"} <= c_table()
