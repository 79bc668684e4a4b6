# SPDX-License-Identifier: GPL-2.0
"""Profile files: the shipped ones and malformed ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from stria.tune import profiles
from stria.tune.profiles import Coalescing, ProfileError


def load(name: str) -> profiles.Profile:
    return profiles.load(name, profiles.search_path())


def test_shipped_profiles_exist() -> None:
    assert set(profiles.available([profiles.SHIPPED_DIR])) == {"balanced", "latency", "throughput"}


def test_latency_is_seed_003() -> None:
    p = load("latency")
    q = {s.key: s.value for s in p.queue()}
    assert q["nomerges"] == "2" and q["rq_affinity"] == "0" and q["io_poll_delay"] == "-1"
    assert q["scheduler"] == "none"
    assert p.queue()[0].key == "scheduler"          # scheduler is applied first
    assert p.recommended("io_poll") == "1"
    assert "io_poll" not in q                        # expected, never written
    assert p.module_value("nvme", "poll_queues") == "4"
    assert p.module_value("nvme_core", "multipath") == "N"
    assert p.coalescing() == Coalescing(0, 0)
    assert "CPU" in p.cpu_cost
    assert all(s.why for s in p.settings)


def test_throughput_coalescing_is_seed_register() -> None:
    c = load("throughput").coalescing()
    assert c is not None and c.register == 0x320A
    # NVMe spec: TIME in 100 us units, THR 0's based.
    assert c.describe() == "5000 us / 11 completions (0x320a)"


@pytest.mark.parametrize("reg", [0x0000, 0x0107, 0x320A, 0xFFFF])
def test_coalescing_round_trip(reg: int) -> None:
    assert Coalescing.from_register(reg).register == reg


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text,message", [
    ('[queue.nomerge]\nvalue = 2\n', "queue.nomerge: unknown queue attribute"),
    ('[queue.nomerges]\nvalue = 3\n', "queue.nomerges: 3 is out of range (0..2)"),
    ('[queue.nomerges]\nvalue = "2"\n', "expected an integer"),
    ('[queue.nomerges]\nvalu = 2\n', "expected a table with 'value'"),
    ('[queue.write_cache]\nvalue = "write-back"\n', 'expected "write back"'),
    ('[nvme.coalescing]\ntime_100us = 256\nthreshold = 1\n', "time_100us must be an integer 0..255"),
    ('[module.nvme.poll_queue]\nvalue = 4\n', "unknown parameter"),
    ('[module.nvme_tcp.x]\nvalue = 4\n', "unknown module"),
    ('[tuned]\nx = 1\n', "unknown section(s) tuned"),
    ('[queue.nomerges\nvalue = 2\n', "not valid TOML"),
])
def test_bad_profiles(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "bad", text)
    with pytest.raises(ProfileError) as e:
        profiles.load(str(path), [])
    assert message in str(e.value)
    assert "bad.toml" in str(e.value)


def test_unknown_profile_lists_available() -> None:
    with pytest.raises(ProfileError) as e:
        load("fastest")
    assert str(e.value).startswith("unknown profile 'fastest' (available: balanced, latency, "
                                   "throughput")


def test_user_dir_overrides_and_adds(tmp_path: Path) -> None:
    write(tmp_path, "latency", 'description = "mine"\n[queue.nomerges]\nvalue = 1\n')
    write(tmp_path, "db", 'description = "database"\n[queue.read_ahead_kb]\nvalue = 0\n')
    dirs = profiles.search_path([tmp_path])
    assert set(profiles.available(dirs)) == {"balanced", "db", "latency", "throughput"}
    mine = profiles.load("latency", dirs)
    assert mine.description == "mine" and mine.recommended("nomerges") == "1"
    assert not mine.has_nvme
    assert profiles.load("db", dirs).recommended("read_ahead_kb") == "0"


@pytest.mark.parametrize("text", ["x\ninstall nvme /tmp/x", "x\rY", "a\x1b[2Jb", "a\u202eb"])
def test_profile_text_must_be_one_printable_line(text: str) -> None:
    # "why" becomes a comment line in modprobe.d: a newline in it would
    # add an "install nvme /tmp/x" line that modprobe runs as root.
    for data in ({"description": text},
                 {"cpu_cost": text},
                 {"queue": {"nomerges": {"value": 2, "why": text}}},
                 {"nvme": {"coalescing": {"time_100us": 1, "threshold": 1, "why": text}}},
                 {"module": {"nvme": {"poll_queues": {"value": 1, "why": text}}}}):
        with pytest.raises(ProfileError, match="one line of printable text"):
            profiles.parse("p", "p.toml", data)


@pytest.mark.parametrize("value", ['none",RUN+="/tmp/x', "none\n", "mq*", "a,b", ""])
def test_scheduler_must_be_a_scheduler_name(value: str) -> None:
    with pytest.raises(ProfileError, match="queue.scheduler"):
        profiles.parse("p", "p.toml", {"queue": {"scheduler": {"value": value}}})


def test_profile_name_must_be_safe(tmp_path: Path) -> None:
    bad = tmp_path / "a\nACTION.toml"
    bad.write_text('description = "x"\n')
    with pytest.raises(ProfileError, match="profile name"):
        profiles.load(str(bad), [])
