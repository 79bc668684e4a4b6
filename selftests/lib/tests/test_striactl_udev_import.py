# SPDX-License-Identifier: GPL-2.0
"""What udev imports from ``striactl examine --export`` for every block
device that appears (udev/64-stria-assembly.rules), from superblocks whose
name, home host and UUID a crafted disk chose: read as udev's
IMPORT{program} reads it, the output has only keys striactl writes, each
once, one per line; a name or home host stria does not take is refused
(STRIA_VALID=false, no name); a valid one comes back as it was; and the
unit the rule asks systemd for, ``stria-last-resort@$env{STRIA_UUID}.timer``,
is a valid unit name with the UUID as its instance (systemd-escape is the
judge). The superblocks are the fuzz corpus's real ones with one field
changed and the checksum made right again."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from striatest import superblock

TOP = Path(__file__).resolve().parents[3]
STRIACTL = TOP / "tools" / "striactl" / "striactl"
SEED = TOP / "selftests" / "fuzz" / "corpus" / "ondisk" / "raid5-bitmap-spare-nvme0n1"
# Documentation/stria/ondisk-format.rst
FEATURES_INCOMPAT, ARRAY_UUID, NAME, HOMEHOST = 24, 32, 64, 240
NAME_LEN, HOST_LEN = 32, 64
FEAT_HOMEHOST = 1 << 2

# The keys examine --export writes (striactl.8), and the error's.
KEYS = {
    "DEVICE", "VALID", "ERROR", "NAME", "HOMEHOST", "UUID", "MEMBER_UUID",
    "FORMAT", "LAYOUT_VERSION", "LEVEL", "LAYOUT", "CHUNK_BYTES",
    "NR_MEMBERS", "ROLE", "SPARE", "ARRAY_STATE", "NR_FAILED",
    "FAILED_ROLES", "REBUILDING_ROLES", "REBUILD_OFFSET_SECTORS",
    "REBUILD_PARTIAL_ROLES", "SCRUB_CHECKPOINT", "SCRUB_OFFSET_SECTORS",
    "SCRUB_END_SECTORS", "DATA_OFFSET_SECTORS", "DATA_SECTORS",
    "DEV_SECTORS", "BITMAP_OFFSET_SECTORS", "BITMAP_CHUNK_SECTORS",
    "BITMAP_REGIONS", "BITMAP_DIRTY", "BITMAP", "EVENTS",
    "DEGRADED_SINCE_EVENT", "STATE", "FEATURES_COMPAT", "FEATURES_INCOMPAT",
    "CREATED", "UPDATED", "CRC32C", "RESHAPE", "RESHAPE_FROM_MEMBERS",
    "RESHAPE_ROWS_DONE", "RESHAPE_ROWS", "RESHAPE_BACKUP",
}
# stria.conf(5), ondisk-format.rst: a name, and a home host
NAME_RULE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,30}")
HOST_RULE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,62}")

HOSTILE = [b"a\nb", b"a\rb", b"x\nSTRIA_VALID=true", b"x\rSTRIA_NAME=root",
           b"a b", b"'", b'"', b"a'b", b'a"b', b"\\", b"a=b", b"a,b", b"%n",
           b"$(reboot)", b"`id`", b";", b"|", b"*", b"\x1b[31m", b"\x7f",
           b"\xff\xfe", b"\xc3\x28", b"caf\xc3\xa9", b"-x", b".x", b"ok-name",
           b"ok.name_1", b"A" * 31, b"A" * 32, b"A" * 63, b"A" * 64]


def image(path: Path, name: bytes | None = None, host: bytes | None = None,
          uuid: bytes | None = None) -> Path:
    """The seed's superblock with @name, @host (the feature bit set) or
    @uuid put in (cut to the field, NUL-padded), the checksum fixed."""
    sb = superblock.from_corpus(SEED)
    if name is not None:
        sb[NAME:NAME + NAME_LEN] = name[:NAME_LEN].ljust(NAME_LEN, b"\0")
    if host is not None:
        sb[HOMEHOST:HOMEHOST + HOST_LEN] = host[:HOST_LEN].ljust(HOST_LEN, b"\0")
        feat = int.from_bytes(sb[FEATURES_INCOMPAT:FEATURES_INCOMPAT + 8], "little")
        sb[FEATURES_INCOMPAT:FEATURES_INCOMPAT + 8] = \
            (feat | FEAT_HOMEHOST).to_bytes(8, "little")
    if uuid is not None:
        sb[ARRAY_UUID:ARRAY_UUID + 16] = uuid
    return superblock.write_member(path, sb)


def udev_import(out: bytes) -> dict[str, bytes]:
    """The properties udev's IMPORT{program} takes from @out: one per line
    (udev splits at CR as at LF), KEY=VALUE, a value in matching quotes
    taken out of them. AssertionError for a key twice, a line that is no
    property, a key striactl does not write."""
    props: dict[str, bytes] = {}
    for line in re.split(rb"[\r\n]", out):
        line = line.lstrip()
        if not line or line.startswith(b"#"):
            continue
        key, eq, value = line.partition(b"=")
        assert eq, f"no property: {line!r}"
        k = key.rstrip().decode("ascii")
        assert re.fullmatch(r"STRIA_[A-Z0-9_]+", k), f"key {k!r}"
        assert k[6:] in KEYS, f"a key striactl does not write: {k}"
        assert k not in props, f"{k} twice in {out!r}"
        value = value.lstrip()
        if len(value) >= 2 and value[:1] in (b"'", b'"') and value[-1:] == value[:1]:
            value = value[1:-1]
        props[k] = value
    return props


def examine(img: Path) -> dict[str, bytes]:
    if not STRIACTL.exists():
        pytest.fail(f"{STRIACTL} is not built (make tools)")
    p = subprocess.run([str(STRIACTL), "examine", "--export", str(img)],
                       capture_output=True, timeout=30)
    props = udev_import(p.stdout)
    assert props.get("STRIA_VALID") in (b"true", b"false"), p.stdout
    assert (p.returncode == 0) == (props["STRIA_VALID"] == b"true"), p
    # printable ASCII only: nothing for a terminal or a log to act on
    assert all(0x20 <= c < 0x7F or c == 0x0A for c in p.stdout), p.stdout
    if props["STRIA_VALID"] == b"false":
        assert b"STRIA_NAME" not in p.stdout and p.stderr, p
    return props


def as_field(value: bytes, size: int, rule: re.Pattern[str]) -> tuple[bytes, bool]:
    """@value as the NUL-padded field of @size holds it: the text up to
    its first NUL, and whether the field follows @rule (the rest NUL)."""
    field = value[:size].ljust(size, b"\0")
    text = field.split(b"\0", 1)[0]
    return text, bool(rule.fullmatch(text.decode("latin-1"))) \
        and not field[len(text):].strip(b"\0")


def check_name(tmp_path: Path, name: bytes) -> None:
    props = examine(image(tmp_path / "m.img", name=name))
    got, valid = as_field(name, NAME_LEN, NAME_RULE)
    assert (props["STRIA_VALID"] == b"true") == valid, (name, props)
    if valid:
        assert props["STRIA_NAME"] == got


def check_host(tmp_path: Path, host: bytes) -> None:
    props = examine(image(tmp_path / "m.img", host=host))
    got, valid = as_field(host, HOST_LEN, HOST_RULE)
    assert (props["STRIA_VALID"] == b"true") == valid, (host, props)
    if valid:
        assert props["STRIA_HOMEHOST"] == got


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_hostile_name(tmp_path: Path, value: bytes) -> None:
    check_name(tmp_path, value)


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_hostile_homehost(tmp_path: Path, value: bytes) -> None:
    check_host(tmp_path, value)


def unescape(value: bytes) -> bytes:
    """striactl's \\xHH escapes (and the shell's '\\'' for a quote) undone."""
    value = value.replace(b"'\\''", b"'")
    return re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), value)


@pytest.mark.parametrize("value", [v for v in HOSTILE if b"/" not in v], ids=repr)
def test_hostile_device_path(tmp_path: Path, value: bytes) -> None:
    """The device's path ($devnode) is a value too: one line, and back as
    it was once the escapes are undone."""
    img = image(tmp_path / os.fsdecode(value))
    props = examine(img)
    assert props["STRIA_VALID"] == b"true"
    assert unescape(props["STRIA_DEVICE"]) == os.fsencode(img)


_BYTES = st.lists(st.one_of(st.sampled_from(list(b"\r\n\t \"'\\=,#%$`;|&*?.-_")),
                            st.integers(0, 255), st.integers(0x30, 0x7A)),
                  min_size=1, max_size=70).map(bytes)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_BYTES, host=_BYTES)
def test_any_name_and_homehost(tmp_path: Path, name: bytes, host: bytes) -> None:
    check_name(tmp_path, name)
    check_host(tmp_path, host)


def instance_of(unit: str) -> str:
    """systemd's own reading of @unit: the instance, unescaped; fails for
    a name systemd does not take."""
    tool = shutil.which("systemd-escape")
    if not tool:
        pytest.fail("no systemd-escape: install systemd")
    p = subprocess.run([tool, "--unescape", "--instance", unit],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, f"{unit!r} is no unit name systemd takes: {p.stderr}"
    return p.stdout.rstrip("\n")


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(uuid=st.binary(min_size=16, max_size=16))
def test_last_resort_unit_name(tmp_path: Path, uuid: bytes) -> None:
    """The rule's SYSTEMD_WANTS: a valid unit, its %i the UUID, one word
    for the ExecStart of stria-last-resort@.service."""
    props = examine(image(tmp_path / "m.img", uuid=uuid))
    if props["STRIA_VALID"] != b"true":
        return      # an all-zero UUID is refused: no rule goes further
    u = props["STRIA_UUID"].decode("ascii")
    assert u == "-".join(uuid[a:b].hex() for a, b in
                         ((0, 4), (4, 6), (6, 8), (8, 10), (10, 16)))
    # every unit the rules ask for, with the properties put in
    rules = (TOP / "udev" / "64-stria-assembly.rules").read_text()
    wants = re.findall(r'ENV\{SYSTEMD_WANTS\}\+="([^"]*)"', rules)
    assert "stria-last-resort@$env{STRIA_UUID}.timer" in wants
    for want in wants:
        unit = re.sub(r"\$env\{(\w+)\}", lambda m: props[m.group(1)].decode("ascii"),
                      want)
        assert "$" not in unit and "%" not in unit, unit
        if "@" in unit:
            # %I is the instance unescaped ("-" reads as "/"); %i, which
            # the unit uses, is the raw UUID
            assert instance_of(unit) == u.replace("-", "/")
