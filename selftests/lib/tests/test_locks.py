# SPDX-License-Identifier: GPL-2.0
"""The lock-scaling count (selftests/bench/raid56-locks, striatest.locks):
a text trace reduced per class, contentions placed on their lock's class,
the classes' modules from /proc/lockdep and /proc/kallsyms, the
classification of stria's and md's classes, and the tables rendered from
a kept run."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from striatest import bench, locks, testfile
from striatest.kernels import TOP

FIXTURES = Path(__file__).parent / "fixtures"
RUN = FIXTURES / "locks-run"


def tallies() -> dict[str, locks.Tally]:
    return locks.parse_trace((FIXTURES / "locks" / "trace.txt").read_text().splitlines())[0]


def test_the_trace_spans_its_first_to_its_last_event() -> None:
    _, span = locks.parse_trace((FIXTURES / "locks" / "trace.txt").read_text().splitlines())
    assert span == pytest.approx(125.335497 - 125.317362)


# --- the trace

def test_acquisitions_are_counted_per_class_name() -> None:
    t = tallies()
    assert t["rcu_read_lock"].acq == 2          # "read " is not part of the name
    assert t["&r->buckets[i].lock"].acq == 3    # nor "try "
    assert len(t["&r->buckets[i].lock"].inst) == 2
    assert t["&conf->device_lock"].acq == 1
    assert "lock_acquire" not in " ".join(t)


def test_a_contention_is_the_class_of_its_cpus_acquisition_within_the_lock() -> None:
    t = tallies()
    # CPU 0's bucket lock at ...ac68 lies 0x18 into the contended ...ac50;
    # CPU 1's acquisition in between is not CPU 0's
    assert t["&r->buckets[i].lock"].cont == 1
    assert t["&pcp->lock"].cont == 0
    assert t[locks.UNATTRIBUTED].cont == 1      # ...70000000: no acquisition of it


def test_a_mutex_counts_as_contended_only_when_its_task_slept() -> None:
    # the SPIN|MUTEX begin of every lockdep mutex_lock() is not counted
    assert tallies()["&mm->context.lock"].cont == 1


def test_count_writes_a_window_with_its_owners(tmp_path: Path) -> None:
    (tmp_path / "fio").mkdir()
    f = FIXTURES / "locks"
    with open(f / "trace.txt") as trace:
        old, sys.stdin = sys.stdin, trace
        try:
            rc = locks.main(["count", str(tmp_path), "stria5", "randwrite", "--sectors", "64",
                             "--bs", "4096", "--seconds", "3", "--lockdep",
                             str(f / "lockdep.txt"), "--kallsyms", str(f / "kallsyms.txt")])
        finally:
            sys.stdin = old
    assert rc == 0
    w = json.loads((tmp_path / "fio" / "stria5-randwrite.locks.json").read_text())
    assert w["ios"] == 8 and w["owners"]["&r->buckets[i].lock"] == ["stria"]
    assert w["owners"]["&conf->device_lock"] == ["raid456"]


def test_a_class_whose_module_was_not_asked_fails_loudly() -> None:
    with pytest.raises(ValueError, match="no module recorded"):
        locks.row({"ios": 1, "classes": {"&r->buckets[i].lock": [1, 0, 1]}}, {})


def test_a_window_is_per_block_of_the_job() -> None:
    w = locks.window(tallies(), sectors=16384, bs=1048576, seconds=3, traced=2.9, lost=0)
    assert w["ios"] == 8
    assert w["classes"]["&r->buckets[i].lock"] == [3, 1, 2]
    json.dumps(w)


# --- whose class a name is

def owners() -> dict[str, list[str]]:
    keys = locks.lockdep_keys((FIXTURES / "locks" / "lockdep.txt").read_text())
    syms = locks.Symbols((FIXTURES / "locks" / "kallsyms.txt").read_text())
    return locks.owners(["&r->buckets[i].lock", "&st->lock", "&conf->device_lock",
                         "rcu_read_lock", "(wq_completion)stria0_r56", "&pcp->lock",
                         "never_seen"], keys, syms)


def test_a_name_has_the_modules_of_its_classes_keys() -> None:
    o = owners()
    assert o["&r->buckets[i].lock"] == ["stria"]
    assert o["&st->lock"] == ["stria", "vmlinux"]       # &st->lock#2 is the kernel's
    assert o["&conf->device_lock"] == ["raid456"]       # /1, a subclass: key + 1
    assert o["rcu_read_lock"] == ["vmlinux"]
    assert o["(wq_completion)stria0_r56"] == ["dynamic"]  # an allocated key
    assert o["never_seen"] == ["unknown"]


def test_the_raid_drivers_classes_are_classified() -> None:
    o = owners()
    c = locks.classify("&r->buckets[i].lock", o["&r->buckets[i].lock"])
    assert c is not None and c.scope == "stripe"
    c = locks.classify("&conf->device_lock", o["&conf->device_lock"])
    assert c is not None and c.scope == "array"
    c = locks.classify("(wq_completion)stria0_r56", o["(wq_completion)stria0_r56"])
    assert c is not None and c.scope == "annotation"
    # once the array stopped, its workqueue's key is gone from /proc/lockdep
    assert locks.classify("(wq_completion)stria3_r56", ["unknown"]) is not None
    assert locks.classify("rcu_read_lock", o["rcu_read_lock"]) is None
    assert locks.classify("(wq_completion)kblockd", ["dynamic"]) is None


def test_an_unknown_class_of_stria_or_md_fails_loudly() -> None:
    with pytest.raises(ValueError, match="not in striatest.locks.CLASSES"):
        locks.classify("&r->new_lock", ["stria"])
    with pytest.raises(ValueError, match="not in striatest.locks.CLASSES"):
        locks.classify("&conf->new_lock", ["raid456"])


def test_a_name_shared_with_another_module_counts_as_the_raid_drivers() -> None:
    own = {"&st->lock": owners()["&st->lock"]}
    r = locks.row({"ios": 10, "classes": {"&st->lock": [5, 1, 2]}}, own)
    assert r.acq["cpu"] == 0.5 and r.outside == 0
    assert r.classes[0].shared == {"vmlinux"}
    assert locks.classify("&st->lock", own["&st->lock"]) is not None


def test_a_per_cpu_lock_matches_its_expanded_name() -> None:
    name = ("&({ do { const void *__vpp_verify = (typeof((r->pcache) + 0))((void *)0); "
            "(void)__vpp_verify; } while (0); ({ unsigned long __ptr; __asm__ (\"\" : "
            "\"=r\"(__ptr) : \"0\"((typeof(*((r->pcache))) *)((r->pcache)))); (typeof("
            "(typeof(*((r->pcache))) *)((r->pcache)))) (__ptr + (((__per_cpu_offset[(cpu)]))))"
            "; }); })->lock")
    c = locks.classify(name, ["stria"])
    assert c is not None and c.scope == "cpu"


STRIA_CLASSES = [c for c in locks.CLASSES if c.owner == "stria"]
MD_CLASSES = [c for c in locks.CLASSES if c.owner in ("md_mod", "raid456")]
# the debug kernel's source, where selftests/kernel/build-debug-kernel left it
MD_SRC = sorted(Path("/var/cache/stria").glob("debug-kernel-*/src/drivers/md/raid5.c"))


def initialised(c: locks.Class, src: str) -> bool:
    """Whether @src initialises a lock that lockdep names as @c (the
    expression given to its init, or its work item's)."""
    work = re.fullmatch(r"\(work_completion\)\((.*)\)", c.name)
    if work:
        return work.group(1) == "*" or f"INIT_WORK({work.group(1)}," in src
    percpu = re.fullmatch(r"&\(\{\*\(([\w>-]+)\)\*\}\)->(\w+)", c.name)
    if percpu:
        # per_cpu_ptr(X, cpu)->F as the preprocessor expands it
        return bool(re.search(rf"_init\(&per_cpu_ptr\({re.escape(percpu.group(1))}, \w+\)"
                              rf"->{percpu.group(2)}\)", src))
    timer = re.fullmatch(r"\((&.*)\)", c.name)
    if timer:
        return f"timer_setup({timer.group(1)}," in src
    if c.name.endswith(".lock") and f"DECLARE_WAIT_QUEUE_HEAD({c.name[:-5]})" in src:
        return True
    if c.name == "kn->active":
        # a sysfs file's kernfs active reference: lockdep keys it per
        # attribute (the attribute's own key), so every module that
        # declares sysfs attributes defines a class of that name
        return bool(re.search(r"\b(DEVICE_ATTR\w*|__ATTR\w*)\(", src))
    if c.name == "&____s->seqcount":
        # the name seqcount_LOCKNAME_init() gives the seqcount it wraps
        return bool(re.search(r"seqcount_\w+_init\(", src))
    expr = c.name.lstrip("&")
    return any(f"{init}({amp}{expr})" in src for init in ("_init", "_head", "DEFINE_MUTEX")
               for amp in ("&", "")) or f"_init({c.name}," in src


def check_where(c: locks.Class, tree: Path) -> None:
    """The file and function @c's entry names, in @tree, initialise it."""
    m = re.match(r"(\w+\.c)(?: (\w+)\(\))?", c.where)
    assert m, c.where
    src = (tree / m.group(1)).read_text()
    if m.group(2):
        assert re.search(rf"^\S.*\b{m.group(2)}\(", src, re.M), m.group(2)
    assert initialised(c, src), f"{c.name} not initialised in {m.group(1)}"


@pytest.mark.parametrize("c", STRIA_CLASSES, ids=[c.name for c in STRIA_CLASSES])
def test_each_stria_class_is_where_the_table_says(c: locks.Class) -> None:
    check_where(c, TOP / "drivers" / "stria")


@pytest.mark.skipif(not MD_SRC, reason="no debug kernel source in /var/cache/stria")
@pytest.mark.parametrize("c", MD_CLASSES, ids=[c.name for c in MD_CLASSES])
def test_each_md_class_is_where_the_table_says(c: locks.Class) -> None:
    check_where(c, MD_SRC[-1].parent)


def test_a_star_is_the_only_wildcard_of_the_table() -> None:
    c = locks.Class("dynamic", "(wq_completion)stria*_r56", "annotation", "x")
    assert c.matches("(wq_completion)stria12_r56")
    assert not c.matches("(wq_completion)stria12_r56x")
    b = locks.Class("stria", "&r->buckets[i].lock", "stripe", "x")
    assert b.matches("&r->buckets[i].lock") and not b.matches("&r->bucketsi.lock")
    with pytest.raises(ValueError, match="no scope"):
        locks.load_classes("stria\t&x->lock\tglobal\tx.c\n")


def test_the_scopes_are_the_ones_rendered() -> None:
    assert {c.scope for c in locks.CLASSES} <= set(locks.SCOPES)
    assert set(locks.SCOPES) == set(locks.SCOPE_TEXT)


# --- the tables

def test_the_tables_are_per_array_io_with_the_raw_baseline() -> None:
    text = locks.summary(RUN)
    # md RAID5 randwrite: 350 device_lock of 100 I/Os, 20 contended;
    # outside 3000/100 = 30, less raw's 10000/1000
    assert re.search(r"md RAID5\s+100\s+3\.50\s+3\.00\s+0\.00\s+0\.00\s+0\.20\s+0\.01\s+30\.00"
                     r"\s+20\.00", text), text
    assert re.search(r"stria RAID5\s+500\s+0\.00\s+0\.00\s+0\.00\s+0\.00\s+0\.00\s+0\.00"
                     r"\s+14\.00\s+2\.00", text), text
    assert "``&r->buckets[i].lock``" in text and "150" in text
    assert "``(wq_completion)stria*_r56`` (dynamic, lockdep annotation)" in text
    assert "raw members" not in text.split("The RAID")[0]
    assert "Goal, at most 0 array-wide acquisitions per I/O: stria RAID5 0.00, met." in text


def test_the_generated_block_names_the_command(tmp_path: Path) -> None:
    text = locks.render_block("raid56-locks", RUN, "fixtures/locks-run")
    assert "``selftests/run --kernel debug -v selftests/bench/raid56-locks``" in text
    assert locks.summary(RUN).strip() in text
    none = locks.render_block("raid56-locks", tmp_path, "x")
    assert "No run of ``raid56-locks`` is kept yet" in none


def test_performance_rst_gets_the_lock_block_from_its_run(tmp_path: Path) -> None:
    shutil.copytree(RUN, tmp_path / "raid56-locks")
    doc = ("x\n" + bench.begin_marker("raid56-locks") + "\nold\n"
           + bench.end_marker("raid56-locks") + "\n")
    new = bench.render_doc(doc, tmp_path, "data")
    assert "old" not in new and locks.summary(RUN).strip() in new
    assert bench.render_doc(new, tmp_path, "data") == new


def test_the_benchmark_runs_alone_on_the_debug_kernel_and_keeps_its_output() -> None:
    spec = testfile.load(TOP / "selftests" / "bench" / "raid56-locks", TOP)
    assert spec.keep_out and spec.kernels == ["debug"]
