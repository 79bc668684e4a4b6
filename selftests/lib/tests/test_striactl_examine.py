# SPDX-License-Identifier: GPL-2.0
"""striactl examine on the host (no module), from image files made of the
fuzz corpus's real superblocks with one field changed and the checksum
made right again: what a crafted disk can make it print."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from striatest import superblock

TOP = Path(__file__).resolve().parents[3]
STRIACTL = TOP / "tools" / "striactl" / "striactl"
CTIME, UTIME = 152, 160          # Documentation/stria/ondisk-format.rst
LEVEL, NR_MEMBERS, FAILED, PARITY_LAYOUT = 96, 104, 168, 176


def image(tmp_path: Path, seed: str, **fields: int) -> Path:
    """A 4 KiB superblock from the corpus (after its flag byte), each
    field in @fields (offset name -> 64-bit value) set, checksum fixed."""
    sb = superblock.from_corpus(seed)
    for name, value in fields.items():
        off = {"ctime": CTIME, "utime": UTIME}[name]
        sb[off:off + 8] = value.to_bytes(8, "little")
    return superblock.write_member(tmp_path / "member.img", sb)


def examine(path: Path) -> str:
    if not STRIACTL.exists():
        pytest.fail(f"{STRIACTL} is not built (make tools)")
    p = subprocess.run([str(STRIACTL), "examine", str(path)], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout


def line(out: str, key: str) -> str:
    return next(l.split(":", 1)[1].strip() for l in out.splitlines()
                if l.strip().startswith(key + ":"))


def test_times_as_recorded(tmp_path: Path) -> None:
    out = examine(image(tmp_path, "raid0-nvme1n1", ctime=1795660783))
    assert line(out, "created") == "2026-11-26T02:39:43Z"


@pytest.mark.parametrize("value", [0xFFFFFFFFFFFFFFFF, 1 << 63, 1 << 62])
def test_times_no_calendar_can_show_are_not_dates(tmp_path: Path, value: int) -> None:
    # 2^64 - 1 used to print as 1969 (a negative time_t), 2^62 as a year
    # beyond any calendar: the raw value, and that it is not a time.
    out = examine(image(tmp_path, "raid0-nvme1n1", ctime=value, utime=value))
    for key in ("created", "updated"):
        assert line(out, key) == f"{value} (not a valid time)", out


@pytest.mark.parametrize("raw", [b"caf\xff", b"a\xc3(b", b"\xc0\xaf", b"\xed\xa0\x80",
                                 b"\xf5\x80\x80\x80", b"x\xe2\x82", b"caf\xc3\xa9",
                                 b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"del\x7f"])
def test_json_is_utf8_whatever_the_path(tmp_path: Path, raw: bytes) -> None:
    # A device path is bytes: JSON output is UTF-8 all the same (a byte
    # that is no UTF-8 becomes U+FFFD), and valid UTF-8 stays as it was.
    sb = superblock.from_corpus("raid0-nvme1n1")
    dev = superblock.write_member(Path(os.fsdecode(bytes(tmp_path) + b"/" + raw)), sb)
    p = subprocess.run([str(STRIACTL), "examine", "-o", "json", os.fsencode(dev)],
                       capture_output=True, timeout=30)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout.decode("utf-8"))
    got = doc["device"].rsplit("/", 1)[1]
    try:
        assert got == raw.decode("utf-8")
    except UnicodeDecodeError:
        assert "\ufffd" in got, got
        assert [c for c in got if c != "\ufffd"] == [chr(b) for b in raw if b < 0x80], got


# level, members, layout word (ondisk-format.rst: md's RAID10 word, near
# copies | far copies << 8), failed roles, the array state examine shows
MIRROR_STATES = [
    (10, 4, 0x102, {1}, "degraded"),        # n2: a copy of each chunk left
    (10, 4, 0x102, {0, 2}, "degraded"),     # one member of each pair
    (10, 4, 0x102, {0, 1}, "failed"),       # both copies of some chunks
    (1, 3, 0x103, {0, 1}, "degraded"),      # RAID1 of 3: one copy is enough
    (1, 3, 0x103, {0, 1, 2}, "failed"),
    (5, 3, 2, {1}, "degraded"),
    (5, 3, 2, {0, 1}, "failed"),
]


@pytest.mark.parametrize("level,nr,layout,failed,state", MIRROR_STATES)
def test_array_state_by_which_members_failed(tmp_path: Path, level: int, nr: int,
                                             layout: int, failed: set[int],
                                             state: str) -> None:
    """A mirror is degraded while every chunk keeps a copy, whatever the
    number of failed members (examine said "failed" for any failed member
    of a RAID1/10: it counted them against RAID5/6's parity)."""
    sb = superblock.from_corpus("raid5-bitmap-spare-nvme0n1")
    for off, size, value in ((LEVEL, 4, level), (NR_MEMBERS, 4, nr),
                             (PARITY_LAYOUT, 4, layout),
                             (FAILED, 8, sum(1 << r for r in failed))):
        sb[off:off + size] = value.to_bytes(size, "little")
    out = examine(superblock.write_member(tmp_path / "member.img", sb))
    assert line(out, "array_state") == state, out
