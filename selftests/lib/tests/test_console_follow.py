# SPDX-License-Identifier: GPL-2.0
"""selftests/run --console (make demo's transcript): a guest's console is
printed line by line as QEMU writes it, without the kernel's messages,
across a reboot's new console.log."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from striatest import runner
from striatest.kernels import TOP


def test_lines_are_printed_as_they_arrive(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    shown: list[str] = []
    f = runner.ConsoleFollower(log, shown.append)
    f.poll()                                   # no console yet
    assert shown == []
    with open(log, "wb") as w:
        w.write(b"[    0.000000] Linux version 6.1.0\r\n=== 1. step one\r\n--- the dri")
        w.flush()
        f.poll()
        # the step line is out at once; the kernel's line never; the line
        # still being written waits for its end
        assert shown == ["=== 1. step one"]
        w.write(b"ves\r\n[   12.5] nvme nvme0: 4/0/0 queues\r\nnvme0n1 ...\r\n")
        w.flush()
        f.poll()
        assert shown == ["=== 1. step one", "--- the drives", "nvme0n1 ..."]


def test_a_writer_in_another_thread_is_followed_live(tmp_path: Path) -> None:
    """Each line is seen while the writer is still going, not at its end."""
    log = tmp_path / "console.log"
    seen_while_running: list[bool] = []
    done = threading.Event()
    f = runner.ConsoleFollower(log, lambda line: seen_while_running.append(not done.is_set()))

    def guest() -> None:
        with open(log, "w") as w:
            for i in range(5):
                w.write(f"step {i}\n")
                w.flush()
                time.sleep(0.3)
        done.set()

    t = threading.Thread(target=guest)
    t.start()
    while not done.is_set():
        f.poll()
        time.sleep(0.05)
    t.join()
    f.poll()
    assert len(seen_while_running) == 5
    assert seen_while_running[:4] == [True] * 4


def test_a_new_boot_starts_from_the_top(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    shown: list[str] = []
    f = runner.ConsoleFollower(log, shown.append)
    log.write_text("boot 1: crash phase\n")
    f.poll()
    os.rename(log, tmp_path / "console.log.1")   # what run_vm does before a reboot
    log.write_text("boot 2\n")
    f.restart()
    f.poll()
    assert shown == ["boot 1: crash phase", "boot 2"]


def test_run_has_the_option() -> None:
    res = subprocess.run([sys.executable, str(TOP / "selftests" / "run"), "--help"],
                         capture_output=True, text=True, check=True)
    assert "--console" in res.stdout
