# SPDX-License-Identifier: GPL-2.0
"""Property tests of every generator that writes device- or file-supplied
strings into a file a root program parses: the udev rules of
``stria-tune persist`` and the modprobe.d file of ``stria-tune apply``.

The oracle is the file's syntax, not the generator's code: whatever a
drive reports as its serial or wwid and whatever a profile holds, either
the generator refuses (UnsafeText/ProfileError) or every line it writes
parses strictly and holds exactly the keys the same generator writes for
harmless values. A value that ends its quotes, starts a new key or a new
line would show up as an extra or missing key.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.tunefakes import FIXTURES
from stria.discovery import System, discover
from stria.safetext import UnsafeText
from stria.sysfs import Sysfs
from stria.tune import profiles
from stria.tune.plan import modprobe_text
from stria.tune.persist import rules_text

# One key: KEY or KEY{attr}, an operator, a double-quoted value without
# quote, backslash or newline (stricter than udev, which unescapes \").
_TOKEN = re.compile(r'([A-Z_]+(?:\{[A-Za-z0-9_/]+\})?)(==|!=|\+=|-=|:=|=)"([^"\\\n]*)"')
_SEP = re.compile(r",\s*|\s*$")

SYSTEM = discover(FIXTURES / "plain4")
NS = "nvme1n1"
CTRL = "nvme1"

# Text a device or a file could hold: anything, with the characters that
# matter to udev and to line-based files drawn often.
_HOSTILE = st.sampled_from(list('"\\,=\n\r\t *?[]|{}$%#') + ["\x1b", "\x00", "\u202e",
                                                             '",RUN+="', "\nRUN+="])
_TEXT = st.lists(st.one_of(st.characters(), _HOSTILE, st.text(max_size=4)),
                 min_size=1, max_size=12).map("".join).filter(bool)


def keys_of_rule(line: str) -> list[tuple[str, str]]:
    """The (key, operator) pairs of one rule line; AssertionError when the
    line is not strictly valid udev syntax."""
    out = []
    pos = 0
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        assert m, f"bad udev syntax at {line[pos:]!r} in {line!r}"
        out.append((m.group(1), m.group(2)))
        sep = _SEP.match(line, m.end())
        assert sep and (sep.end() > m.end() or sep.end() == len(line)), \
            f"no separator after {m.group(0)!r} in {line!r}"
        pos = sep.end()
    return out


def shape(text: str) -> list[Any]:
    """Comments as such, each rule as its keys: what must not change."""
    out: list[Any] = []
    for line in text.split("\n"):
        if line.startswith("#"):
            out.append("#")
        elif line:
            out.append(keys_of_rule(line))
        else:
            out.append("")
    return out


def _system(serial: str | None = None, wwid: str | None = None) -> System:
    system = copy.deepcopy(SYSTEM)
    if serial is not None:
        ctrl = system.controller(CTRL)
        assert ctrl is not None
        ctrl.serial = serial
    if wwid is not None:
        ns = system.namespace(NS)
        assert ns is not None
        ns.wwid = wwid
    return system


def _rules(system: System, prof: profiles.Profile) -> str:
    devices = [d for d in system.namespaces if d.name == NS]
    return rules_text(prof, system, devices, program="/usr/bin/stria-tune")


PROFILES = {n: profiles.load(n, profiles.search_path())
            for n in ("latency", "throughput", "balanced")}
BASELINE = {n: shape(_rules(_system(), p)) for n, p in PROFILES.items()}

_FAST = settings(max_examples=300, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(serial=_TEXT, wwid=_TEXT, name=st.sampled_from(sorted(PROFILES)))
def test_device_strings_never_add_a_key_to_the_rules(serial: str, wwid: str,
                                                     name: str) -> None:
    system = _system(serial=serial, wwid=wwid)
    try:
        text = _rules(system, PROFILES[name])
    except UnsafeText:
        return
    assert shape(text) == BASELINE[name]
    if PROFILES[name].coalescing() is not None:
        assert f'ATTR{{serial}}=="{serial}"' in text
    assert f'ATTR{{wwid}}=="{wwid}"' in text


@_FAST
@given(scheduler=_TEXT, why=_TEXT, description=_TEXT)
def test_profile_strings_never_add_a_key_or_a_line(scheduler: str, why: str,
                                                   description: str) -> None:
    data = {"description": description,
            "queue": {"scheduler": {"value": scheduler, "why": why},
                      "nomerges": {"value": 2, "why": why}},
            "nvme": {"coalescing": {"time_100us": 1, "threshold": 2, "why": why}},
            "module": {"nvme": {"poll_queues": {"value": 1, "why": why}}}}
    try:
        prof = profiles.parse("p", "p.toml", data)
    except profiles.ProfileError:
        return
    good = profiles.parse("p", "p.toml", {
        **data, "description": "d",
        "queue": {"scheduler": {"value": "none", "why": "w"},
                  "nomerges": {"value": 2, "why": "w"}}})
    assert shape(_rules(_system(), prof)) == shape(_rules(_system(), good))
    fs = Sysfs.at(FIXTURES / "plain4")
    text = modprobe_text(fs, prof)
    assert text is not None
    lines = text.splitlines()
    assert [l for l in lines if not l.startswith("#")] == ["options nvme poll_queues=1"]
    assert len(lines) == len((modprobe_text(fs, good) or "").splitlines())
