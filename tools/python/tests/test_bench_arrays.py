# SPDX-License-Identifier: GPL-2.0
"""md, dm-stripe and stria setup/teardown commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from stria.bench import arrays


class Recorder:
    def __init__(self, fail: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.fail = fail

    def __call__(self, cmd: list[str]) -> arrays.CmdResult:
        self.calls.append(cmd)
        if self.fail and self.fail in cmd:
            return arrays.CmdResult(1, "", "mdadm: cannot open /dev/nullb0: Device or resource busy")
        return arrays.CmdResult(0, "", "")


def fake_sysfs(tmp_path: Path, sizes: dict[str, int], used_md: tuple[int, ...] = ()) -> Path:
    root = tmp_path / "sys"
    for name, sectors in sizes.items():
        d = root / "class" / "block" / name
        d.mkdir(parents=True)
        (d / "size").write_text(f"{sectors}\n")
    for n in used_md:
        (root / "block" / f"md{n}").mkdir(parents=True)
    return root


MEMBERS = ["/dev/nullb0", "/dev/nullb1", "/dev/nullb2"]


def test_md_create_and_teardown(tmp_path: Path) -> None:
    rec = Recorder()
    md = arrays.MdBackend(rec, fake_sysfs(tmp_path, {}, used_md=(127,)))
    a = md.create(arrays.ArraySpec("md", 5, 64, MEMBERS))
    assert a.path == "/dev/md126"
    assert rec.calls[0] == ["mdadm", "--create", "/dev/md126", "--run", "--assume-clean",
                            "--level=5", "--chunk=64", "--raid-devices=3", "--metadata=1.2",
                            "--bitmap=none", *MEMBERS]
    md.destroy(a)
    assert rec.calls[1] == ["mdadm", "--stop", "/dev/md126"]
    assert rec.calls[2] == ["mdadm", "--zero-superblock", *MEMBERS]


def test_md_failure_carries_mdadm_message(tmp_path: Path) -> None:
    md = arrays.MdBackend(Recorder(fail="--create"), fake_sysfs(tmp_path, {}))
    with pytest.raises(arrays.ArrayError, match="Device or resource busy"):
        md.create(arrays.ArraySpec("md", 6, 64, MEMBERS + ["/dev/nullb3"]))


def test_dm_stripe_table_uses_the_smallest_member_rounded_to_chunks(tmp_path: Path) -> None:
    root = fake_sysfs(tmp_path, {"nullb0": 524288, "nullb1": 524288 + 100, "nullb2": 524300})
    dm = arrays.DmStripeBackend(Recorder(), root)
    table = dm.table(arrays.ArraySpec("dm", 0, 64, MEMBERS))
    assert table == ("0 1572864 striped 3 128 /dev/nullb0 0 /dev/nullb1 0 /dev/nullb2 0")


def test_dm_create_remove(tmp_path: Path) -> None:
    rec = Recorder()
    dm = arrays.DmStripeBackend(rec, fake_sysfs(tmp_path, {n: 2048 for n in
                                                           ("nullb0", "nullb1", "nullb2")}))
    a = dm.create(arrays.ArraySpec("dm", 0, 64, MEMBERS))
    assert a.path == "/dev/mapper/striabench-dm-r0"
    assert rec.calls[0][:3] == ["dmsetup", "create", "striabench-dm-r0"]
    assert rec.calls[0][-1] == "0 6144 striped 3 128 /dev/nullb0 0 /dev/nullb1 0 /dev/nullb2 0"
    dm.destroy(a)
    assert rec.calls[-1][:2] == ["dmsetup", "remove"] and rec.calls[-1][-1] == "striabench-dm-r0"


def test_levels_and_member_counts() -> None:
    dm = arrays.DmStripeBackend(Recorder())
    assert dm.unavailable(5, 4) == "dm-stripe is RAID0 only"
    assert arrays.level_problem(6, 3) == "RAID6 needs at least 4 members, 3 given"
    assert arrays.level_problem(5, 3) is None
    assert arrays.level_problem(1, 3) is not None


def test_stria_not_available_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    root.mkdir()
    none = arrays.StriaBackend(Recorder(), root, striactl=None)
    none.striactl = None
    assert none.unavailable(0, 3) == "stria not available: striactl not found"
    no_mod = arrays.StriaBackend(Recorder(), root, striactl="/usr/sbin/striactl")
    assert no_mod.unavailable(0, 3) == "stria not available: the stria module is not loaded"
    (root / "module" / "stria").mkdir(parents=True)
    assert no_mod.unavailable(0, 3) is None


def test_stria_create_finds_the_new_array_device(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    (root / "module" / "stria").mkdir(parents=True)
    (root / "block").mkdir()

    class MakesDevice(Recorder):
        def __call__(self, cmd: list[str]) -> arrays.CmdResult:
            if "create" in cmd:
                (root / "block" / "stria0").mkdir()
            return super().__call__(cmd)

    rec = MakesDevice()
    st = arrays.StriaBackend(rec, root, striactl="striactl")
    a = st.create(arrays.ArraySpec("stria", 0, 64, MEMBERS))
    assert a.path == "/dev/stria0"
    assert rec.calls[0] == ["striactl", "create", "striabench-stria-r0", "--level", "0",
                            "--chunk", "64K", *MEMBERS]
    st.destroy(a)
    assert rec.calls[-1] == ["striactl", "stop", "striabench-stria-r0"]


def test_stria_raid5_has_no_bitmap_like_md(tmp_path: Path) -> None:
    rec = Recorder()
    st = arrays.StriaBackend(rec, tmp_path, striactl="striactl")
    with pytest.raises(arrays.ArrayError):
        st.create(arrays.ArraySpec("stria", 5, 64, MEMBERS))
    assert rec.calls[0] == ["striactl", "create", "striabench-stria-r5", "--level", "5",
                            "--chunk", "64K", "--bitmap", "none", *MEMBERS]


def test_force_is_passed_to_striactl(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    (root / "module" / "stria").mkdir(parents=True)
    (root / "block" / "stria3").mkdir(parents=True)
    rec = Recorder()
    st = arrays.StriaBackend(rec, root, striactl="striactl")
    with pytest.raises(arrays.ArrayError, match="no new stria device"):
        st.create(arrays.ArraySpec("stria", 0, 64, MEMBERS, force=True))
    assert "--force" in rec.calls[0]


def test_wipe_only_a_stria_superblock(tmp_path: Path) -> None:
    member = tmp_path / "m"
    member.write_bytes(b"STRIA-SB" + b"\x01" * 5000)
    assert arrays.wipe_stria_superblock(str(member))
    data = member.read_bytes()
    assert data[:4096] == bytes(4096) and data[4096:] == b"\x01" * (5008 - 4096)
    other = tmp_path / "o"
    other.write_bytes(b"XFSB" + b"\x02" * 100)
    assert not arrays.wipe_stria_superblock(str(other))
    assert other.read_bytes() == b"XFSB" + b"\x02" * 100


def test_md_raid0_falls_back_to_build_on_members_without_a_superblock(tmp_path: Path) -> None:
    rec = Recorder(fail="--create")
    md = arrays.MdBackend(rec, fake_sysfs(tmp_path, {}))
    a = md.create(arrays.ArraySpec("md", 0, 64, MEMBERS))
    assert rec.calls[1] == ["mdadm", "--build", "/dev/md127", "--level=0", "--chunk=64",
                            "--raid-devices=3", *MEMBERS]
    assert a.note.startswith("built without a superblock (--create failed: mdadm: cannot open")
    md.destroy(a)
    assert rec.calls[-1] == ["mdadm", "--stop", "/dev/md127"]  # nothing to zero
    # RAID5 cannot be built without a superblock: the failure stands
    with pytest.raises(arrays.ArrayError):
        md.create(arrays.ArraySpec("md", 5, 64, MEMBERS))
