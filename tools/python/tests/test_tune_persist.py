# SPDX-License-Identifier: GPL-2.0
"""stria-tune persist / unpersist: the udev rules file."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from fixtures.tunefakes import FIXTURES, FakeNvme, copy_fixture, run, run_json
from stria.discovery import discover
from stria.tune import profiles
from stria.tune import persist
from stria.tune.persist import rules_text

RULE_TOKEN = re.compile(r'\s*([A-Z_]+(?:\{[^}]+\})?)(==|!=|\+=|=)"([^"]*)"\s*(,|$)')


def parse_rule(line: str) -> list[tuple[str, str, str]]:
    """Split one udev rule into (key, op, value); fail on bad syntax."""
    out = []
    pos = 0
    while pos < len(line):
        m = RULE_TOKEN.match(line, pos)
        assert m, f"bad udev syntax at {line[pos:]!r}"
        out.append((m.group(1), m.group(2), m.group(3)))
        pos = m.end()
    return out


def rules(profile: str, tree: str = "plain4", devices: list[str] | None = None) -> str:
    system = discover(FIXTURES / tree)
    prof = profiles.load(profile, profiles.search_path())
    devs = [d for d in system.namespaces if d.name in devices] if devices else None
    return rules_text(prof, system, devs, program="/usr/local/bin/stria-tune")


def test_rules_are_valid_udev_syntax() -> None:
    for name in ("latency", "throughput", "balanced"):
        for line in rules(name).splitlines():
            if line and not line.startswith("#"):
                parse_rule(line)


def test_rules_set_queue_attrs_scheduler_first() -> None:
    text = rules("latency")
    block = [parse_rule(l) for l in text.splitlines() if 'SUBSYSTEM=="block"' in l]
    assert len(block) == 2
    common, mq = block
    assert ("ENV{DEVTYPE}", "==", "disk") in common        # not partitions
    assert [(k, v) for k, op, v in common if op == "="] == [
        ("ATTR{queue/nomerges}", "2"), ("ATTR{queue/rq_affinity}", "0"),
        ("ATTR{queue/add_random}", "0")]
    # Only request-based disks (not a bio-based multipath head) take these.
    assert ("TEST", "==", "mq") in mq and ("TEST", "==", "mq") not in common
    assert [(k, v) for k, op, v in mq if op == "="] == [
        ("ATTR{queue/scheduler}", "none"), ("ATTR{queue/io_poll_delay}", "-1")]
    assert "io_poll}" not in text                          # expected only, never written


def test_rules_run_stria_tune_coalesce_on_add_and_connect() -> None:
    text = rules("throughput")
    runs = [parse_rule(l) for l in text.splitlines() if "RUN+=" in l]
    assert len(runs) == 2
    add, connected = runs
    assert ("ACTION", "==", "add") in add and ("SUBSYSTEM", "==", "nvme") in add
    assert ("ENV{NVME_EVENT}", "==", "connected") in connected
    cmd = dict((k, v) for k, _, v in add)["RUN"]
    # stria-tune itself, not nvme-cli: the admin command apply sends
    assert shlex.split(cmd) == ["/usr/local/bin/stria-tune", "coalesce", "%k", "0x320a"]
    assert text.rstrip().endswith('LABEL="stria_tune_end"')
    assert 'ACTION!="add|change", GOTO="stria_tune_end"' in text


def test_rules_for_named_devices_match_wwid_and_serial() -> None:
    text = rules("balanced", devices=["nvme1n1"])
    system = discover(FIXTURES / "plain4")
    ns = system.namespace("nvme1n1")
    assert ns is not None and ns.wwid
    assert f'ATTR{{wwid}}=="{ns.wwid}"' in text
    assert 'ATTR{serial}=="stria0001"' in text
    assert "stria0000" not in text


def test_persist_and_unpersist_cli(tmp_path: Path) -> None:
    root = FIXTURES / "plain4"
    udev = tmp_path / "rules.d"
    base = ["--root", str(root), "--udev-dir", str(udev)]
    code, out = run_json(["persist", "-p", "latency", *base], nvme=FakeNvme(root))
    assert code == 0
    path = udev / "90-stria-tune.rules"
    assert out["path"] == str(path) and path.read_text() == out["rules"]
    code, text, _ = run(["persist", "-p", "latency", "--dry-run", *base])
    assert code == 0 and text == path.read_text()
    code, out = run_json(["unpersist", *base])
    assert code == 0 and out == {"removed": str(path)} and not path.exists()
    code, text, _ = run(["unpersist", *base])
    assert code == 0 and "no rules file" in text


def test_persist_bad_input(tmp_path: Path) -> None:
    root = FIXTURES / "plain4"
    base = ["--root", str(root), "--udev-dir", str(tmp_path)]
    code, _, err = run(["persist", "-p", "latency", "loop0", *base])
    assert code == 1 and "loop0: not an NVMe device" in err
    code, _, err = run(["persist", "-p", "nope", *base])
    assert code == 1 and "unknown profile 'nope'" in err
    assert list(tmp_path.iterdir()) == []


HOSTILE_SERIAL = 'x",RUN+="/tmp/x'


def _with_serial(tmp_path: Path, ctrl: str, serial: str) -> Path:
    root = copy_fixture("plain4", tmp_path)
    (root / "sys/class/nvme" / ctrl / "serial").write_text(serial + "\n")
    return root


def test_persist_refuses_a_serial_that_carries_rule_syntax(tmp_path: Path) -> None:
    # A drive chooses its serial number and the kernel passes it on as is:
    # written into ATTR{serial}=="..." it would end the string and add a
    # RUN+= that udev runs as root at every boot.
    root = _with_serial(tmp_path, "nvme1", HOSTILE_SERIAL)
    udev = tmp_path / "rules.d"
    base = ["--root", str(root), "--udev-dir", str(udev)]
    for extra in (["--dry-run"], []):
        code, out, err = run(["persist", "-p", "throughput", "nvme1n1", *base, *extra])
        assert code == 1, out
        assert out == ""
        assert "nvme1" in err and "serial" in err and "/tmp/x" in err
        assert "without naming devices" in err
        assert not udev.exists()
    # Every other drive is still fine, and so is the rule for all of them.
    code, out, _ = run(["persist", "-p", "throughput", "nvme2n1", *base, "--dry-run"])
    assert code == 0 and "RUN+=\"/tmp" not in out


def test_persist_refuses_a_control_character_in_the_serial(tmp_path: Path) -> None:
    root = _with_serial(tmp_path, "nvme1", "ab\x1b[2Jcd")
    code, out, err = run(["persist", "-p", "throughput", "nvme1n1", "--dry-run",
                          "--root", str(root), "--udev-dir", str(tmp_path / "r")])
    assert code == 1 and out == ""
    assert "\x1b" not in err and "\\x1b" in err


def test_persist_refuses_a_hostile_wwid(tmp_path: Path) -> None:
    root = copy_fixture("plain4", tmp_path)
    (root / "sys/block/nvme1n1/wwid").write_text('w", RUN+="/tmp/x\n')
    code, out, err = run(["persist", "-p", "latency", "nvme1n1", "--dry-run",
                          "--root", str(root), "--udev-dir", str(tmp_path / "r")])
    assert code == 1 and out == "" and "wwid" in err


def test_persist_refuses_rule_syntax_in_a_profile(tmp_path: Path) -> None:
    prof = tmp_path / "profiles"
    prof.mkdir()
    (prof / "evil.toml").write_text(
        'description = "x"\n[queue.scheduler]\nvalue = \'none",RUN+="/tmp/x\'\nwhy = "x"\n')
    udev = tmp_path / "rules.d"
    code, out, err = run(["persist", "-p", "evil", "--profile-dir", str(prof), "--dry-run",
                          "--root", str(FIXTURES / "plain4"), "--udev-dir", str(udev)])
    assert code == 1 and out == "" and "queue.scheduler" in err
    assert not udev.exists()


def test_the_rules_command_sets_the_feature_as_apply_does(tmp_path: Path) -> None:
    """The RUN+= of the rules, %k filled in as udev does, run against the
    fake controllers: Set Features 0x08 with the profile's value, through
    the same admin interface apply uses."""
    root = copy_fixture("plain4", tmp_path)
    text = rules("throughput")
    add = next(parse_rule(l) for l in text.splitlines() if "RUN+=" in l)
    argv = shlex.split(dict((k, v) for k, _, v in add)["RUN"].replace("%k", "nvme1"))
    assert argv[0] == "/usr/local/bin/stria-tune"
    nvme = FakeNvme(root)
    code, out, err = run([*argv[1:], "--root", str(root)], nvme=nvme)
    assert code == 0, err
    assert nvme.calls == [("nvme1", 0x08, 0x320a)]
    assert out == "nvme1: interrupt coalescing 5000 us / 11 completions (0x320a)\n"
    code, js = run_json(["coalesce", "/dev/nvme2", "0", "--root", str(root)], nvme=nvme)
    assert code == 0 and js == {"controller": "nvme2", "register": "0x0000", "set": True}
    assert nvme.calls[-1] == ("nvme2", 0x08, 0)


@pytest.mark.parametrize("argv, msg", [
    (["nvme0n1", "0x320a"], "nvme0n1: not an NVMe controller"),
    (["loop0", "0x320a"], "loop0: not an NVMe controller"),
    (["nvme0", "0x10000"], "0x10000: not a coalescing value"),
    (["nvme0", "-1"], "-1: not a coalescing value"),
    (["nvme0", "fast"], "fast: not a coalescing value"),
    (["nvme9", "0x320a"], "nvme9: cannot open /dev/nvme9"),
])
def test_coalesce_bad_input(tmp_path: Path, argv: list[str], msg: str) -> None:
    root = copy_fixture("plain4", tmp_path)
    nvme = FakeNvme(root)
    code, out, err = run(["coalesce", *argv, "--root", str(root)], nvme=nvme)
    assert code == 1 and out == ""
    assert err.startswith(f"stria-tune: error: {msg}"), err
    assert nvme.calls == []


def test_coalesce_refused_by_the_controller(tmp_path: Path) -> None:
    root = copy_fixture("plain4", tmp_path)
    nvme = FakeNvme(root)
    nvme.data["nvme1"]["refuse_set"] = {"0x08": 0x10E}
    code, out, err = run(["coalesce", "nvme1", "0x320a", "--root", str(root)], nvme=nvme)
    assert code == 1 and out == ""
    assert "Feature Not Changeable" in err and "not set" in err


def test_rules_name_the_running_stria_tune(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    tool = tmp_path / "bin" / "stria-tune"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    monkeypatch.setattr("sys.argv", [str(tool), "persist"])
    assert persist.tune_program() == str(tool)
    spaced = tmp_path / "my bin" / "stria-tune"
    spaced.parent.mkdir()
    spaced.write_text("#!/bin/sh\n")
    monkeypatch.setattr("sys.argv", [str(spaced), "persist"])
    system = discover(FIXTURES / "plain4")
    prof = profiles.load("throughput", profiles.search_path())
    with pytest.raises(persist.UnsafeText, match="has a space"):
        rules_text(prof, system, None)
