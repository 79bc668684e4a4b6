# SPDX-License-Identifier: GPL-2.0
"""What the runner makes of a guest's kernel reports: hangs spotted on the
console as it arrives, leaks kmemleak found and whose they are, and which
kernel the stock tier boots."""

from __future__ import annotations

from pathlib import Path

import pytest

from striatest import kernels, kmemleak, runner


def report(obj: str, size: int, comm: str, *frames: str, addr: bool = True) -> str:
    """One object of a kmemleak report: 6.1 prints each frame's address in
    brackets, 6.12 (addr=False) only the symbol."""
    lines = [f"unreferenced object 0x{obj} (size {size}):",
             f'  comm "{comm}", pid 231, jiffies 4294899402',
             "  hex dump (first 16 bytes):",
             "    5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a  ZZZZZZZZZZZZZZZZ",
             "  backtrace (crc 8d2a5f1e):"]
    for f in frames:
        where, sym = f.split(None, 1)
        lines.append(f"    [<{where}>] {sym}" if addr else f"    {sym}")
    return "\n".join(lines) + "\n"


KMALLOC = "ffffffff81c11e52 __kmalloc_cache_noprof+0x2b2/0x390"
LEAK_LOADED = report("ffff888004a1c000", 1024, "insmod", KMALLOC,
                     "ffffffffc0a0b04a stria_selftest_leak_alloc+0x4a/0xa0 "
                     "[stria_selftest_leak]",
                     "ffffffff810021c3 do_one_initcall+0xa3/0x3f0")
LEAK_KERNEL = report("ffff888003f2d600", 64, "swapper/0", KMALLOC,
                     "ffffffff8287a1b5 acpi_os_map_iomem+0x1d5/0x2b0")
# a leak read after its module was unloaded: bare addresses
LEAK_UNLOADED = report("ffff888004a1c400", 512, "striactl", KMALLOC,
                       "ffffffffc0b1c0f4 0xffffffffc0b1c0f4",
                       "ffffffff810021c3 __x64_sys_ioctl+0xa3/0x3f0")
STRIA_SYMS = """\
ffffffffc0b1c000 t stria_ctl_ioctl\t[stria]
ffffffffc0b1c800 T stria_array_create\t[stria]
ffffffffc0b30000 d stria_mq_ops\t[stria]
"""


def test_parse_report_objects_and_frames() -> None:
    leaks = kmemleak.parse_report(LEAK_LOADED + LEAK_KERNEL)
    assert [len(x.frames) for x in leaks] == [3, 2]
    assert leaks[0].header.startswith("unreferenced object 0xffff888004a1c000 (size 1024)")
    assert leaks[1].frames[1].startswith("acpi_os_map_iomem")


def test_owner_is_a_module_of_the_project() -> None:
    loaded, kernel = kmemleak.parse_report(LEAK_LOADED + LEAK_KERNEL)
    assert kmemleak.owner(loaded, []) == \
        "stria_selftest_leak_alloc+0x4a/0xa0 [stria_selftest_leak]"
    assert kmemleak.owner(kernel, []) is None


def test_frames_without_addresses_as_612_prints_them() -> None:
    text = report("ffff888004d44000", 1024, "insmod", KMALLOC,
                  "ffffffffc0b1c0f4 0xffffffffc0b1c0f4",
                  "ffffffff810021c3 do_one_initcall+0xd7/0x420", addr=False)
    (leak,) = kmemleak.parse_report(text)
    assert leak.frames == ["__kmalloc_cache_noprof+0x2b2/0x390", "0xffffffffc0b1c0f4",
                           "do_one_initcall+0xd7/0x420"]
    syms = kmemleak.parse_modsyms("stria", STRIA_SYMS)
    assert kmemleak.owner(leak, [syms]) == "stria_ctl_ioctl+0xf4 [stria] (unloaded)"


def test_owner_of_a_bare_address_from_the_saved_symbols() -> None:
    (leak,) = kmemleak.parse_report(LEAK_UNLOADED)
    syms = kmemleak.parse_modsyms("stria", STRIA_SYMS)
    assert kmemleak.owner(leak, []) is None
    assert kmemleak.owner(leak, [syms]) == "stria_ctl_ioctl+0xf4 [stria] (unloaded)"
    # an address far from every symbol of the module is not the module's
    far = kmemleak.parse_report(LEAK_UNLOADED.replace("c0b1c0f4", "c0f00000"))[0]
    assert kmemleak.owner(far, [syms]) is None


def test_owned_leaks_reads_the_guest_output(tmp_path: Path) -> None:
    (tmp_path / "kmemleak.1").write_text(LEAK_KERNEL + LEAK_UNLOADED)
    (tmp_path / "modsyms.stria.1.0").write_text(STRIA_SYMS)
    found = kmemleak.owned_leaks(tmp_path)
    assert len(found) == 1
    assert "(size 512)" in found[0][0].header
    assert not kmemleak.owned_leaks(tmp_path / "nothing-here")


@pytest.mark.parametrize("line", [
    "[  130.1] INFO: task dd:231 blocked for more than 5 seconds.",
    "[   44.0] watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [fio:301]",
    "[   90.2] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "[   90.2] rcu: INFO: rcu_preempt self-detected stall on CPU",
    "[   90.2] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: {",
])
def test_hang_reports_end_the_guest_and_fail(tmp_path: Path, line: str) -> None:
    con = tmp_path / "console.log"
    con.write_text("[    1.0] Linux version 6.12\n")
    watch = runner.ConsoleWatch(con)
    assert watch.hang() == ""
    # a line still being written is not read yet
    with open(con, "a") as f:
        f.write(line[:20])
    assert watch.hang() == ""
    with open(con, "a") as f:
        f.write(line[20:] + "\n")
    assert watch.hang() == line
    assert runner.bad_kernel_lines(line) == [line]


def test_console_watch_ignores_ordinary_lines(tmp_path: Path) -> None:
    watch = runner.ConsoleWatch(tmp_path / "console.log")
    assert watch.hang() == ""  # no console yet
    (tmp_path / "console.log").write_text(
        "[ 2.0] rcu: Hierarchical RCU implementation.\n"
        "[ 3.0] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)\n")
    assert watch.hang() == ""


def test_stock_release_is_the_meta_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STRIA_STOCK_RELEASE", "6.12.117+deb12-amd64")
    assert kernels.stock_release() == "6.12.117+deb12-amd64"
    monkeypatch.delenv("STRIA_STOCK_RELEASE")

    class Done:
        stdout = "linux-image-6.1.0-56-amd64 (= 6.1.192-2)"

    monkeypatch.setattr("subprocess.run", lambda *a, **k: Done())
    assert kernels.stock_release() == "6.1.0-56-amd64"


def test_kernels_long(tmp_path: Path) -> None:
    from striatest import testfile
    t = tmp_path / "001-t"
    t.write_text('DESCRIPTION="x"\nKERNELS="stock"\nKERNELS_LONG="debug"\n')
    spec = testfile.load(t, tmp_path)
    assert (spec.kernels, spec.kernels_long) == (["stock"], ["debug"])
    t.write_text('DESCRIPTION="x"\nKERNELS_LONG="stock"\n')
    with pytest.raises(ValueError, match="both KERNELS and KERNELS_LONG"):
        testfile.load(t, tmp_path)


def test_lts_release_is_the_newest_debian_612(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STRIA_612_RELEASE", raising=False)
    with pytest.raises(kernels.KernelNotFound, match="linux-image-6.12-amd64"):
        kernels.lts_release(tmp_path)
    for r in ("6.1.0-56-amd64", "6.12.9+deb12-amd64", "6.12.117+deb12-amd64",
              "6.12.200-stria-debug"):
        (tmp_path / f"vmlinuz-{r}").touch()
    # 117 > 9 as numbers, and never the project's own debug build
    assert kernels.lts_release(tmp_path) == "6.12.117+deb12-amd64"
    monkeypatch.setenv("STRIA_612_RELEASE", "6.12.9+deb12-amd64")
    assert kernels.lts_release(tmp_path) == "6.12.9+deb12-amd64"


def test_unknown_kernel_tier_is_refused(tmp_path: Path) -> None:
    from striatest import testfile
    t = tmp_path / "001-t"
    t.write_text('DESCRIPTION="x"\nKERNELS="stock 6.12"\n')
    with pytest.raises(ValueError, match="unknown kernel tier 6.12"):
        testfile.load(t, tmp_path)
    t.write_text('DESCRIPTION="x"\nKERNELS="stock stock612"\nKERNELS_LONG="debug"\n')
    assert testfile.load(t, tmp_path).kernels == ["stock", "stock612"]
