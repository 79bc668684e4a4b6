# SPDX-License-Identifier: GPL-2.0
"""stria-tune apply / revert on copies of the recorded trees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.tunefakes import (FakeNvme, VanishingSysfs, copy_fixture, run, run_json,
                                snapshot)
from stria.discovery import discover
from stria.sysfs import Sysfs
from stria.tune import apply as applymod
from stria.tune import profiles
from stria.tune.plan import make_plan, select
from stria.tune.state import State


class Env:
    """A copied fixture tree plus state/modprobe dirs and a fake NVMe."""

    def __init__(self, tmp: Path, tree: str) -> None:
        self.root = copy_fixture(tree, tmp)
        self.state = tmp / "state"
        self.modprobe = tmp / "modprobe.d"
        self.modprobe.mkdir()
        self.nvme = FakeNvme(self.root)

    def args(self, *extra: str) -> list[str]:
        return [*extra, "--root", str(self.root), "--state-dir", str(self.state),
                "--modprobe-dir", str(self.modprobe)]

    def run(self, *argv: str, **kw: Any) -> tuple[int, str, str]:
        kw.setdefault("nvme", self.nvme)
        return run(self.args(*argv), **kw)

    def run_json(self, *argv: str, **kw: Any) -> tuple[int, Any]:
        kw.setdefault("nvme", self.nvme)
        return run_json(self.args(*argv), **kw)

    def attr(self, dev: str, attr: str) -> str:
        return (self.root / f"sys/block/{dev}/queue/{attr}").read_text()


@pytest.fixture
def plain(tmp_path: Path) -> Env:
    return Env(tmp_path, "plain4")


def test_dry_run_changes_nothing_and_lists_changes(plain: Env) -> None:
    before = snapshot(plain.root)
    code, out = plain.run_json("apply", "--profile", "throughput", "--dry-run")
    assert code == 0 and out["dry_run"] is True
    assert snapshot(plain.root) == before
    assert not plain.state.exists() and list(plain.modprobe.iterdir()) == []
    assert plain.nvme.calls == []
    changes = {(c["device"], c["setting"]): c for c in out["changes"]}
    assert changes[("nvme0n1", "read_ahead_kb")]["old"] == "128"
    assert changes[("nvme0n1", "read_ahead_kb")]["new"] == "4096"
    assert changes[("nvme0n1", "read_ahead_kb")]["status"] == "change"
    assert changes[("nvme0n1", "scheduler")]["status"] == "same"
    assert changes[("nvme3", "coalescing")]["old"] == "0x0000"
    assert changes[("nvme3", "coalescing")]["new"] == "0x320a"
    assert all(c["result"] == "" for c in out["changes"])


def test_apply_then_revert_restores_every_byte(plain: Env) -> None:
    before = snapshot(plain.root)
    code, out = plain.run_json("apply", "--profile", "throughput")
    assert code == 0, out
    assert plain.attr("nvme2n1", "read_ahead_kb") == "4096\n"
    assert plain.attr("nvme2n1", "rq_affinity") == "1\n"
    assert plain.attr("nvme2n1", "nomerges") == "0\n"
    assert [c for c in plain.nvme.calls] == [(f"nvme{i}", 8, 0x320A) for i in range(4)]
    conf = (plain.modprobe / "stria-tune.conf").read_text()
    assert "options nvme_core multipath=N\n" in conf
    assert "update-initramfs -u" in conf
    results = {c["result"] for c in out["changes"] if c["status"] == "change"}
    assert results == {"applied"}
    saved = json.loads((plain.state / "state.json").read_text())
    ra = [e for e in saved["entries"] if e["target"] == "/sys/block/nvme2n1/queue/read_ahead_kb"]
    assert ra == [{"kind": "sysfs", "target": "/sys/block/nvme2n1/queue/read_ahead_kb",
                   "device": "nvme2n1", "setting": "read_ahead_kb", "old": "128", "new": "4096"}]

    code, out = plain.run_json("revert")
    assert code == 0, out
    assert snapshot(plain.root) == before
    assert all(plain.nvme.value(f"nvme{i}") == 0 for i in range(4))
    assert not (plain.modprobe / "stria-tune.conf").exists()
    assert not (plain.state / "state.json").exists()
    assert {r["result"] for r in out["restored"]} == {"restored"}
    code, text, _ = plain.run("revert")
    assert code == 0 and "nothing to revert" in text


def test_second_apply_keeps_the_original_values(plain: Env) -> None:
    (plain.modprobe / "stria-tune.conf").write_text("options nvme poll_queues=1\n")
    before = snapshot(plain.root)
    assert plain.run("apply", "-p", "latency")[0] == 0
    assert plain.attr("nvme0n1", "nomerges") == "2\n"
    assert plain.run("apply", "-p", "balanced")[0] == 0
    assert plain.attr("nvme0n1", "nomerges") == "1\n"
    assert plain.nvme.value("nvme1") == 0x0107
    assert plain.run("revert")[0] == 0
    assert snapshot(plain.root) == before
    assert plain.nvme.value("nvme1") == 0
    assert (plain.modprobe / "stria-tune.conf").read_text() == "options nvme poll_queues=1\n"


def test_scheduler_switch_saves_nr_requests(plain: Env) -> None:
    prof = plain.root.parent / "sched.toml"
    prof.write_text('[queue.scheduler]\nvalue = "mq-deadline"\n')
    code, out = plain.run_json("apply", "-p", str(prof), "nvme0n1", "--queue-only")
    assert code == 0
    assert plain.attr("nvme0n1", "scheduler") == "mq-deadline\n"
    # The real kernel resets nr_requests when the scheduler changes.
    (plain.root / "sys/block/nvme0n1/queue/nr_requests").write_text("64\n")
    saved = json.loads((plain.state / "state.json").read_text())
    assert {e["setting"]: e["old"] for e in saved["entries"]} == {
        "scheduler": "none", "nr_requests": "1023"}
    code, out = plain.run_json("revert")
    assert code == 0
    assert [r["setting"] for r in out["restored"]] == ["scheduler", "nr_requests"]
    assert plain.attr("nvme0n1", "scheduler") == "none\n"
    assert plain.attr("nvme0n1", "nr_requests") == "1023\n"


def test_refused_coalescing_is_reported_and_the_rest_applies(tmp_path: Path) -> None:
    env = Env(tmp_path, "refuse08")
    code, out = env.run_json("apply", "--profile", "throughput")
    assert code == applymod.EXIT_PARTIAL == 3
    coal = {c["device"]: c for c in out["changes"] if c["setting"] == "coalescing"}
    assert coal["nvme1"]["result"] == "refused"
    assert coal["nvme1"]["message"] == "Feature Not Changeable (status 0x10e)"
    assert {coal[f"nvme{i}"]["result"] for i in (0, 2, 3)} == {"applied"}
    assert env.attr("nvme1n1", "read_ahead_kb") == "4096\n"
    saved = json.loads((env.state / "state.json").read_text())
    assert "nvme1/0x08" not in [e["target"] for e in saved["entries"]]
    assert "nvme0/0x08" in [e["target"] for e in saved["entries"]]
    code, text, _ = env.run("apply", "--profile", "throughput")
    assert code == 3 and "partial" in text and "refused" in text
    assert env.run("revert")[0] == 0
    assert env.nvme.value("nvme0") == 0


def test_non_root_apply_is_refused_before_anything(plain: Env) -> None:
    before = snapshot(plain.root)
    code, out, err = plain.run("apply", "-p", "latency", euid=1000)
    assert code == 1 and out == ""
    assert err.startswith("stria-tune: error: apply needs root")
    assert "--dry-run" in err
    assert snapshot(plain.root) == before and not plain.state.exists()
    code, out, err = plain.run("revert", euid=1000)
    assert code == 1 and "revert needs root" in err
    # A dry run works without root.
    assert plain.run("apply", "-p", "latency", "--dry-run", euid=1000)[0] == 0


def test_unknown_profile_and_device(plain: Env) -> None:
    code, _, err = plain.run("apply", "-p", "fast")
    assert code == 1 and "unknown profile 'fast'" in err
    code, _, err = plain.run("apply", "-p", "latency", "/dev/nvme9n1")
    assert code == 1
    assert err.startswith("stria-tune: error: /dev/nvme9n1: no such block device")
    assert not plain.state.exists()


def test_nvme_settings_on_a_non_nvme_device(plain: Env) -> None:
    before = snapshot(plain.root)
    code, _, err = plain.run("apply", "-p", "throughput", "nvme0n1", "/dev/loop0")
    assert code == 1
    assert "loop0: not an NVMe device, but profile 'throughput' sets NVMe interrupt " \
           "coalescing" in err
    assert "--queue-only" in err
    assert snapshot(plain.root) == before and plain.nvme.calls == []
    code, out = plain.run_json("apply", "-p", "throughput", "/dev/loop0", "--queue-only")
    assert code == 0
    assert (plain.root / "sys/devices/virtual/block/loop0/queue/read_ahead_kb").read_text() \
        == "4096\n"
    assert plain.nvme.calls == [] and not (plain.modprobe / "stria-tune.conf").exists()


def test_device_disappearing_mid_apply(plain: Env) -> None:
    before = snapshot(plain.root)
    fs = VanishingSysfs(plain.root, "nvme2n1", after=4)
    system = discover(plain.root)
    prof = profiles.load("latency", profiles.search_path())
    changes = make_plan(fs, system, prof, select(system, [], str(plain.root)), plain.nvme,
                        plain.modprobe)
    state = State.load(plain.state)
    code = applymod.apply(changes, fs, plain.nvme, state, prof.name)
    assert code == applymod.EXIT_PARTIAL
    n2 = [c for c in changes if c.device == "nvme2n1" and c.status == "change"]
    assert n2[0].result == "gone"
    assert "device gone" in n2[0].message
    assert [c.result for c in n2[1:]] == ["skipped"]
    assert n2[1].message == "nvme2n1 disappeared"
    others = [c for c in changes if c.device == "nvme3n1" and c.status == "change"]
    assert {c.result for c in others} == {"applied"}
    saved = State.load(plain.state)
    assert not [t for t in saved.entries if "/nvme2n1/" in t]
    code, restored = applymod.revert(saved, Sysfs.at(plain.root), plain.nvme)
    assert code == 0
    after = snapshot(plain.root)
    assert after == before


def test_interrupted_apply_can_be_reverted(plain: Env) -> None:
    before = snapshot(plain.root)

    class Boom(Sysfs):
        count = 0

        def write(self, abspath: str, value: str) -> None:
            Boom.count += 1
            if Boom.count == 7:
                raise KeyboardInterrupt
            super().write(abspath, value)

    fs = Boom(plain.root)
    system = discover(plain.root)
    prof = profiles.load("latency", profiles.search_path())
    changes = make_plan(fs, system, prof, system.namespaces, plain.nvme, plain.modprobe)
    with pytest.raises(KeyboardInterrupt):
        applymod.apply(changes, fs, plain.nvme, State.load(plain.state), prof.name)
    assert snapshot(plain.root) != before
    code, _ = applymod.revert(State.load(plain.state), Sysfs.at(plain.root), plain.nvme)
    assert code == 0 and snapshot(plain.root) == before


def test_multipath_apply_reaches_hidden_paths(tmp_path: Path) -> None:
    env = Env(tmp_path, "multipath")
    code, out = env.run_json("apply", "-p", "latency", "nvme0n1")
    assert code == 0
    devs = {c["device"] for c in out["changes"] if c["kind"] == "sysfs"}
    assert devs == {"nvme0n1", "nvme0c0n1", "nvme0c1n1"}
    head = {c["setting"]: c for c in out["changes"] if c["device"] == "nvme0n1"}
    # A bio-based head refuses io_poll_delay (EINVAL): only its paths get it.
    assert head["io_poll_delay"]["status"] == "n/a"
    assert head["io_poll_delay"]["note"] == "bio-based multipath head: set on its paths"
    assert head["nomerges"]["result"] == "applied"
    paths = [c for c in out["changes"] if c["setting"] == "io_poll_delay"
             and c["device"] != "nvme0n1"]
    assert [c["status"] for c in paths] == ["same", "same"]
    assert env.attr("nvme0c1n1", "nomerges") == "2\n"
    coal = sorted(c["device"] for c in out["changes"] if c["setting"] == "coalescing")
    assert coal == ["nvme0", "nvme1"]
    conf = (env.modprobe / "stria-tune.conf").read_text()
    assert "options nvme poll_queues=4\n" in conf
    assert "options nvme_core multipath=N\n" in conf
    mod = [c for c in out["changes"] if c["kind"] == "file"][0]
    assert "nvme_core.multipath Y -> N" in mod["note"]


def test_reload_nvme_refused_while_in_use(plain: Env) -> None:
    (plain.root / "proc/mounts").write_text("/dev/nvme1n1 /data xfs rw 0 0\n")
    (plain.root / "sys/block/nvme3n1/holders").mkdir()
    (plain.root / "sys/block/nvme3n1/holders/md0").write_text("")
    calls: list[list[str]] = []

    def runner(cmd: list[str]) -> Any:
        calls.append(cmd)
        raise AssertionError("must not run")

    code, out = plain.run_json("apply", "-p", "latency", "--reload-nvme", runner=runner)
    assert code == 3
    assert out["reload"]["done"] is False
    assert "/dev/nvme1n1 is mounted on /data" in out["reload"]["message"]
    assert "nvme3n1 is held by md0" in out["reload"]["message"]
    assert calls == []
    # The runtime settings still applied.
    assert plain.attr("nvme0n1", "nomerges") == "2\n"


def test_reload_nvme_runs_modprobe_with_the_config(plain: Env) -> None:
    import subprocess

    calls: list[list[str]] = []

    def runner(cmd: list[str]) -> "subprocess.CompletedProcess[str]":
        calls.append(cmd)
        if cmd[-1] == "nvme" and "-r" not in cmd:
            (plain.root / "sys/module/nvme/parameters/poll_queues").write_text("4\n")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    code, out = plain.run_json("apply", "-p", "latency", "--reload-nvme", runner=runner)
    assert code == 0, out
    assert calls == [["modprobe", "-r", "nvme"],
                     ["modprobe", "-C", str(plain.modprobe), "nvme"]]
    assert out["reload"] == {"done": True, "message": "reloaded nvme"}
    assert plain.attr("nvme0n1", "nomerges") == "2\n"


def test_unreadable_coalescing_is_left_alone_and_partial(plain: Env) -> None:
    class Flaky(FakeNvme):
        def get_feature(self, ctrl: str, fid: int) -> int:
            if ctrl == "nvme2":
                from stria.tune.nvme import NvmeError
                raise NvmeError(ctrl, "admin command failed: Input/output error", err=5)
            return super().get_feature(ctrl, fid)

    nvme = Flaky(plain.root)
    code, out = plain.run_json("apply", "-p", "throughput", nvme=nvme)
    assert code == 3
    c2 = [c for c in out["changes"] if c["device"] == "nvme2"][0]
    assert c2["status"] == "unreadable" and c2["result"] == ""
    assert "Input/output error; left alone" in c2["note"]
    assert sorted(c[0] for c in nvme.calls) == ["nvme0", "nvme1", "nvme3"]


def test_poll_queues_lowered_to_possible_cpus(plain: Env) -> None:
    # nvme refuses poll_queues > possible CPUs; at boot that would leave
    # the machine without its drives.
    (plain.root / "sys/devices/system/cpu/possible").write_text("0-1\n")
    code, out = plain.run_json("apply", "-p", "latency")
    assert code == 0
    conf = (plain.modprobe / "stria-tune.conf").read_text()
    assert "options nvme poll_queues=2\n" in conf
    assert "# Note: nvme.poll_queues=4 lowered to 2: nvme refuses more queues than " \
           "possible CPUs." in conf
    f = [c for c in out["changes"] if c["kind"] == "file"][0]
    assert "nvme.poll_queues=4 lowered to 2" in f["note"]
    assert "nvme.poll_queues" not in f["note"].split(";")[0]   # 2 is what runs already
    code, report = plain.run_json("show", "-p", "latency")
    assert report["modules"]["nvme.poll_queues"]["recommended"] == "2"
    assert report["modules"]["nvme.poll_queues"]["differs"] is False


def test_reload_that_fails_loads_nvme_back_without_the_options(plain: Env) -> None:
    import subprocess

    calls: list[list[str]] = []

    def runner(cmd: list[str]) -> "subprocess.CompletedProcess[str]":
        calls.append(cmd)
        if "-C" in cmd and cmd[cmd.index("-C") + 1] == str(plain.modprobe):
            return subprocess.CompletedProcess(
                cmd, 1, "", "modprobe: ERROR: could not insert 'nvme': Invalid argument")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    code, out = plain.run_json("apply", "-p", "latency", "--reload-nvme", runner=runner)
    assert code == 3
    # plain4 runs multipath=N already: nvme_core stays loaded.
    assert calls == [["modprobe", "-r", "nvme"],
                     ["modprobe", "-C", str(plain.modprobe), "nvme"],
                     ["modprobe", "-C", "/dev/null", "nvme"]]
    assert out["reload"]["done"] is False
    assert "could not insert 'nvme': Invalid argument; loaded nvme again without the new " \
           "options" in out["reload"]["message"]
    # The drives are back (rediscovered) and tuned.
    assert plain.attr("nvme0n1", "nomerges") == "2\n"


def test_revert_reload_nvme_loads_the_previous_options(plain: Env) -> None:
    import subprocess

    calls: list[list[str]] = []

    def runner(cmd: list[str]) -> "subprocess.CompletedProcess[str]":
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    code, out = plain.run_json("apply", "-p", "latency", "--reload-nvme", runner=runner)
    assert code == 0, out
    conf = (plain.modprobe / "stria-tune.conf").read_text()
    calls.clear()
    code, out = plain.run_json("revert", "--reload-nvme", runner=runner)
    assert code == 0, out
    assert not (plain.modprobe / "stria-tune.conf").exists()
    core = "options nvme_core " in conf
    assert calls == [["modprobe", "-r", "nvme"]] + ([["modprobe", "-r", "nvme_core"]]
                                                    if core else []) + [
        ["modprobe", "-C", str(plain.modprobe), "nvme"]]
    assert out["reload"] == {"done": True,
                             "message": "reloaded nvme" + (" and nvme_core" if core else "")}
    assert out["remaining"] == 0


def test_revert_reload_nvme_without_module_options_reloads_nothing(plain: Env) -> None:
    def runner(cmd: list[str]) -> Any:
        raise AssertionError("must not run")

    code, out = plain.run_json("apply", "-p", "throughput", "--queue-only")
    assert code == 0, out
    code, out = plain.run_json("revert", "--reload-nvme", runner=runner)
    assert code == 0, out
    assert out["reload"] == {"done": False,
                             "message": "no module options were restored: nothing to reload"}


def test_revert_reload_nvme_refused_while_in_use_is_partial(plain: Env) -> None:
    def runner(cmd: list[str]) -> Any:
        raise AssertionError("must not run")

    code, out = plain.run_json("apply", "-p", "latency")
    assert code == 0, out
    (plain.root / "proc/mounts").write_text("/dev/nvme1n1 /data xfs rw 0 0\n")
    code, out = plain.run_json("revert", "--reload-nvme", runner=runner)
    assert code == 3
    assert out["reload"]["done"] is False
    assert "/dev/nvme1n1 is mounted on /data" in out["reload"]["message"]
    assert out["remaining"] == 0
    code, text, _ = plain.run("revert", "--reload-nvme", runner=runner)
    assert "nothing to revert" in text
