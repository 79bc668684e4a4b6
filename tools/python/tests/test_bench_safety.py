# SPDX-License-Identifier: GPL-2.0
"""Refusing devices that hold data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench_helpers import FIXTURES
from stria.bench import safety

EXT4 = (FIXTURES / "blkid" / "ext4.export").read_text()   # blkid -p of a mkfs.ext4 image
DOS = (FIXTURES / "blkid" / "dos.export").read_text()     # blkid -p of an MBR image
RAID = "DEVNAME=/dev/nullb1\nUUID=9b1c\nUUID_SUB=77aa\nLABEL=host:0\nVERSION=1.2\n" \
       "TYPE=linux_raid_member\nUSAGE=raid\n"

LSBLK_PART = {"blockdevices": [{"name": "sdb", "type": "disk", "mountpoint": None, "children": [
    {"name": "sdb1", "type": "part", "mountpoint": "/srv"}]}]}
LSBLK_MD = {"blockdevices": [{"name": "nullb0", "type": "disk", "mountpoint": None, "children": [
    {"name": "md127", "type": "raid0", "mountpoint": None}]}]}
LSBLK_EMPTY = {"blockdevices": [{"name": "nullb0", "type": "disk", "mountpoint": None}]}


class FakeRun:
    def __init__(self, blkid: tuple[int, str], lsblk: Any = None) -> None:
        self.blkid = blkid
        self.lsblk = lsblk
        self.calls: list[list[str]] = []

    def __call__(self, cmd: list[str]) -> tuple[int, str]:
        self.calls.append(cmd)
        if cmd[0] == "blkid":
            return self.blkid
        if cmd[0] == "lsblk" and self.lsblk is not None:
            return 0, json.dumps(self.lsblk)
        return 127, ""


def test_blkid_signatures() -> None:
    assert safety.blkid_problems(0, EXT4) == ["file system (ext4)"]
    assert safety.blkid_problems(0, DOS) == ["partition table (dos)"]
    assert safety.blkid_problems(0, RAID) == ["array member (linux_raid_member)"]
    assert safety.blkid_problems(2, "") == []
    # blkid missing or failing is a doubt, not a clean bill of health
    assert safety.blkid_problems(127, "") != []
    assert safety.blkid_problems(4, "") != []


def test_lsblk_children_and_mounts() -> None:
    problems, fatal = safety.lsblk_problems(json.dumps(LSBLK_PART))
    assert problems == ["has part sdb1"]
    assert fatal == ["sdb1 is mounted on /srv"]
    problems, fatal = safety.lsblk_problems(json.dumps(LSBLK_MD))
    assert problems == ["has raid0 md127"] and fatal == []
    assert safety.lsblk_problems(json.dumps(LSBLK_EMPTY)) == ([], [])


def test_clean_device_is_allowed(tmp_path: Path) -> None:
    dev = tmp_path / "nullb0"
    dev.write_bytes(b"\0" * 4096)
    v = safety.check(str(dev), FakeRun((2, "")), root=tmp_path / "sys")
    assert v.allowed(force=False)


def test_filesystem_is_refused_unless_forced(tmp_path: Path) -> None:
    dev = tmp_path / "nullb1"
    dev.write_bytes(b"\0" * 4096)
    v = safety.check(str(dev), FakeRun((0, EXT4)), root=tmp_path / "sys")
    assert not v.allowed(force=False)
    assert v.allowed(force=True)
    assert v.problems == ["file system (ext4)"]


def test_array_member_seen_through_sysfs_holders(tmp_path: Path) -> None:
    sys_root = tmp_path / "sys"
    (sys_root / "class" / "block" / "nullb0" / "holders" / "md127").mkdir(parents=True)
    dev = tmp_path / "nullb0"
    dev.write_bytes(b"\0" * 4096)
    run = FakeRun((2, ""), LSBLK_EMPTY)
    v = safety.check(str(dev), run, root=sys_root)
    assert v.problems == ["held by md127"]
    assert ["lsblk", "-J", "-o", "NAME,TYPE,MOUNTPOINT", str(dev)] in run.calls


def test_mounted_is_refused_even_with_force(tmp_path: Path) -> None:
    sys_root = tmp_path / "sys"
    (sys_root / "block" / "sdb").mkdir(parents=True)
    dev = tmp_path / "sdb"
    dev.write_bytes(b"")
    v = safety.check(str(dev), FakeRun((0, DOS), LSBLK_PART), root=sys_root)
    assert not v.allowed(force=True)
    assert "partition table (dos)" in v.problems and "has part sdb1" in v.problems


def test_missing_and_duplicate_devices(tmp_path: Path) -> None:
    dev = tmp_path / "nullb0"
    dev.write_bytes(b"\0")
    link = tmp_path / "alias"
    link.symlink_to(dev)
    vs = safety.check_all([str(dev), str(link), str(tmp_path / "nope")], FakeRun((2, "")),
                          root=tmp_path / "sys")
    assert vs[0].allowed(False)
    assert not vs[1].allowed(True) and "same device as" in vs[1].fatal[0]
    assert vs[2].fatal == ["does not exist"]


def _stria_member(path: Path, name: bytes = b"data", role: int = 2) -> None:
    """The first 4 KiB of a stria member: magic, array name, role (the
    checksum is not checked here: any superblock, valid or not, is data)."""
    sb = bytearray(8192)
    sb[0:8] = b"STRIA-SB"
    sb[64:64 + len(name)] = name
    sb[108:112] = role.to_bytes(4, "little")
    path.write_bytes(bytes(sb))


def test_stria_member_is_refused_unless_forced(tmp_path: Path) -> None:
    # blkid does not know stria's superblock: the check must read it.
    dev = tmp_path / "nvme1n1"
    _stria_member(dev)
    v = safety.check(str(dev), FakeRun((2, "")), root=tmp_path / "sys")
    assert not v.allowed(force=False) and v.allowed(force=True)
    assert v.problems == ["stria superblock (member 2 of array 'data')"]


def test_stria_spare_and_hostile_name_are_described_escaped(tmp_path: Path) -> None:
    dev = tmp_path / "nvme1n1"
    _stria_member(dev, name=b"a\x1b[2Jb", role=0xFFFFFFFF)
    v = safety.check(str(dev), FakeRun((2, "")), root=tmp_path / "sys")
    assert v.problems == ["stria superblock (spare of array 'a\\x1b[2Jb')"]


def test_device_opened_exclusively_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    # Mounted, or held by md, dm or a running stria array: the kernel
    # refuses an exclusive open with EBUSY even when sysfs shows no holder.
    import errno
    import os

    dev = tmp_path / "nvme1n1"
    dev.write_bytes(b"\0" * 4096)
    real_open = os.open

    def fake_open(path: Any, flags: int, *a: Any) -> int:
        if str(path) == str(dev) and flags & os.O_EXCL:
            raise OSError(errno.EBUSY, "Device or resource busy")
        return real_open(path, flags, *a)

    monkeypatch.setattr(safety.devices, "is_block_device", lambda p: True)
    monkeypatch.setattr(safety.os, "open", fake_open)
    v = safety.check(str(dev), FakeRun((2, ""), LSBLK_EMPTY), root=tmp_path / "sys")
    assert not v.allowed(force=False)
    assert any("in use" in p for p in v.problems)


def test_lvm_and_zfs_members_are_refused() -> None:
    lvm = "TYPE=LVM2_member\nUSAGE=raid\nVERSION=LVM2 001\n"
    zfs = "TYPE=zfs_member\nUSAGE=filesystem\nLABEL=tank\n"
    assert safety.blkid_problems(0, lvm) == ["array member (LVM2_member)"]
    assert safety.blkid_problems(0, zfs) == ["array member (zfs_member)"]
    assert safety.blkid_problems(0, "PTTYPE=gpt\x1b[2J\n") == ["partition table (gpt\\x1b[2J)"]
