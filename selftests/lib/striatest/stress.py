"""The schedule of the stress test (selftests/tests/stress/): a pure function of a seed.

    python3 -m striatest.stress --seed N --minutes M [--skip FAMILY,...]
                                [--first-round all|families]

prints the arrays, the fio jobs that run against them and the operator
and fault events, one a line, for selftests/tests/stress/.lib.sh to run in
the guest. The same seed, minutes and families give the same lines on any
machine and any Python 3 (random.Random with an integer seed: the
generator and the methods used here are stable across versions), so a
failing seed is replayed by running the test with it again.

Lines (fields separated by spaces, KEY=VALUE after the first three):

    array NAME level=L chunk=SIZE
    job NAME jN engine=E hipri=0|1 rw=RW bs=BYTES iodepth=D region=R
    event N NAME FAMILY round=R gap=SECONDS [KEY=VALUE...]

Events come in rounds: each round holds every family of every array once
(those the array's level allows), in a seeded order, with seeded
parameters; the guest runs round 1 whatever the time, then further rounds
until the minutes are up. With --first-round families (make check's
slice), round 1 holds every family once, on an array the seed picks among
those its level allows, every array getting some: the slice's bound is
then its minutes, not the 23 events of a whole round.
"""

from __future__ import annotations

import argparse
import random
import sys

# The arrays: one of each level, all in one guest at once.
ARRAYS = (("s0", 0), ("s5", 5), ("s6", 6))

# Every family, with the levels it applies to. The guest's lib
# (selftests/tests/stress/.lib.sh) documents what each one does.
FAMILIES: dict[str, tuple[int, ...]] = {
    "fail-spare": (5, 6),     # fail a member, the spare rebuilds it, the old one back as spare
    "fail-readd": (5, 6),     # spare out, fail + remove + re-add a member (bitmap rebuild)
    "fail-two": (6,),         # spare out, two members failed and re-added
    "replace": (5, 6),        # striactl replace onto the spare, the old one back as spare
    "scrub-check": (5, 6),    # scrub check (whole or a range): no mismatch
    "scrub-repair": (5, 6),   # scrub repair (whole or a range): no mismatch
    "discard": (0, 5, 6),     # discard or write-zeroes in the array's discard region
    "reset": (0, 5),          # an NVMe member's controller reset (reset_controller)
    "ioerr": (6,),            # member I/O errors: dm-flakey / dm-error under a member
    "stop-assemble": (0, 5, 6),  # fio paused, stop, assemble, the bytes unchanged
    "sysfs": (0, 5, 6),       # sysfs reads, writes of tunables, a refused write, sync_action
}

# Families of the load, not events, that STRESS_SKIP can leave out too
LOAD_FAMILIES = {
    "hipri": "the polled fio jobs (io_uring --hipri) of s0 and s5",
}

# Members (and spares) per array: RAID0 2, RAID5 3 + 1 spare, RAID6 4 + 1
MEMBERS = {0: 2, 5: 3, 6: 4}

# fio's block sizes: 512 B to 1 MiB, multiples of 4K and not
BLOCK_SIZES = (512, 1024, 3584, 4096, 8192, 12800, 65536, 66048, 131584, 262144, 1048576)
RWS = ("randwrite", "write", "randrw", "rw", "randread")
CHUNKS = ("16K", "64K", "128K")
# MiB: each job writes its own region of REGION_MB; the discard region
# follows the jobs' (DISCARD_OFF_MB, DISCARD_MB)
REGION_MB = 4
JOBS = {0: 5, 5: 5, 6: 4}
DISCARD_OFF_MB = 24
DISCARD_MB = 8


def polled_sizes(level: int, chunk: str) -> tuple[int, ...]:
    """The block sizes a polled job of an array of LEVEL with CHUNK chunks
    picks from.

    RAID5 and RAID6 take requests within one stripe: the block layer
    splits a larger or crossing write, and Linux 6.1 ends a polled bio it
    must split with BLK_STS_AGAIN, which io_uring retries without end (the
    write never completes; a raw NVMe drive does the same above its
    max_sectors_kb). Their polled jobs use the block sizes that divide a
    stripe's data, so fio's aligned offsets never cross a stripe; RAID0
    splits bios itself and takes every size."""
    if level == 0:
        return BLOCK_SIZES
    parity = 1 if level == 5 else 2
    data = (MEMBERS[level] - parity) * int(chunk.rstrip("K")) * 1024
    return tuple(b for b in BLOCK_SIZES if data % b == 0)


def jobs(rng: random.Random, aid: str, level: int, hipri: bool = True,
         chunk: str = "16K") -> list[str]:
    """The fio jobs of one array: engines, sizes and directions mixed; on
    the arrays whose members poll (RAID0, RAID5 on raw NVMe), one job
    polls (io_uring --hipri), in the sizes polled_sizes() gives; RAID6's
    members are dm devices, which do not poll."""
    out = []
    n = JOBS[level]
    engines = ["psync", "libaio", "io_uring"]
    if level != 6 and hipri:
        engines.append("io_uring+hipri")
    # every engine at least once, then seeded picks
    picks = engines + [rng.choice(engines) for _ in range(n - len(engines))]
    rng.shuffle(picks)
    # at least one job of each array writes at random (verified)
    rws = ["randwrite"] + [rng.choice(RWS) for _ in range(n - 1)]
    rng.shuffle(rws)
    for j in range(n):
        eng = picks[j]
        polled = 1 if eng.endswith("+hipri") else 0
        eng = eng.split("+")[0]
        depth = 1 if eng == "psync" else rng.choice((1, 4, 16))
        bs = rng.choice(polled_sizes(level, chunk) if polled else BLOCK_SIZES)
        out.append(f"job {aid} j{j} engine={eng} hipri={polled} rw={rws[j]} bs={bs} "
                   f"iodepth={depth} region={j}")
    return out


def params(rng: random.Random, fam: str, level: int) -> str:
    """The seeded parameters of one event."""
    nm = MEMBERS[level]
    if fam in ("fail-spare", "fail-readd", "replace", "reset"):
        return f"role={rng.randrange(nm)}"
    if fam == "fail-two":
        a, b = rng.sample(range(nm), 2)
        return f"role={a} role2={b}"
    if fam in ("scrub-check", "scrub-repair"):
        if rng.random() < 0.5:
            return "range=all"
        start = rng.randrange(0, 32)
        return f"range={start}M-{start + rng.randrange(1, 16)}M"
    if fam == "discard":
        # offsets and lengths in 512-byte sectors inside the discard
        # region, 4K-aligned or not; zero=1: write-zeroes (blkdiscard -z)
        sectors = DISCARD_MB * 2048
        off = rng.randrange(0, sectors - 8)
        if rng.random() < 0.5:
            off -= off % 8
        ln = rng.randrange(1, sectors - off + 1)
        return f"off={off} len={ln} zero={rng.randrange(2)}"
    if fam == "ioerr":
        return (f"role={rng.randrange(nm)} mode={rng.choice(('read', 'write', 'all'))} "
                f"secs={rng.randrange(1, 5)}")
    if fam == "sysfs":
        return (f"speed_min={rng.choice((1000, 10000, 50000))} "
                f"speed_max={rng.choice((100000, 400000, 2000000))} "
                f"safe_ms={rng.choice((0, 50, 200, 1000))} "
                f"sync_action={rng.choice(('none', 'check', 'repair'))} "
                f"bad={rng.choice(('0', '-1', 'x', '104857601'))}")
    return ""


FIRST_ROUNDS = ("all", "families")


def first_round_families(rng: random.Random,
                         evs: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """Every family of EVS once, on one of the arrays it applies to: the
    families in a seeded order, each on the array with the fewest events so
    far (a seeded pick among equals), so that every array gets some."""
    fams = [f for f in FAMILIES if any(e[1] == f for e in evs)]
    rng.shuffle(fams)
    count = {aid: 0 for aid, _ in ARRAYS}
    out = []
    for f in fams:
        cands = [e for e in evs if e[1] == f]
        least = min(count[e[0]] for e in cands)
        pick = rng.choice([e for e in cands if count[e[0]] == least])
        count[pick[0]] += 1
        out.append(pick)
    return out


def schedule(seed: int, minutes: float, skip: frozenset[str] = frozenset(),
             first_round: str = "all") -> list[str]:
    """Every line of the schedule for SEED and MINUTES with the families in
    SKIP left out; FIRST_ROUND "families" makes round 1 every family once."""
    bad = skip - set(FAMILIES) - set(LOAD_FAMILIES)
    if bad:
        raise ValueError(f"no such event family: {', '.join(sorted(bad))} "
                         f"(families: {', '.join(list(FAMILIES) + list(LOAD_FAMILIES))})")
    if first_round not in FIRST_ROUNDS:
        raise ValueError(f"no such first round: {first_round} (one of: {', '.join(FIRST_ROUNDS)})")
    rng = random.Random(seed)
    lines = [f"# stria stress schedule: seed {seed}, {minutes:g} minutes"
             + (f", families off: {','.join(sorted(skip))}" if skip else "")
             + (", round 1 every family once" if first_round == "families" else "")]
    chunks = {}
    for aid, level in ARRAYS:
        chunks[aid] = rng.choice(CHUNKS)
        lines.append(f"array {aid} level={level} chunk={chunks[aid]}")
    for aid, level in ARRAYS:
        lines += jobs(rng, aid, level, "hipri" not in skip, chunks[aid])
    # about one event per 6 s of the time given, at least two rounds
    per_round = sum(1 for _, lv in ARRAYS for f, lvs in FAMILIES.items()
                    if lv in lvs and f not in skip)
    rounds = max(2, int(minutes * 60 / 6 / max(per_round, 1)) + 1)
    n = 0
    for r in range(1, rounds + 1):
        evs = [(aid, f, lv) for aid, lv in ARRAYS for f, lvs in FAMILIES.items()
               if lv in lvs and f not in skip]
        if r == 1 and first_round == "families":
            evs = first_round_families(rng, evs)
        rng.shuffle(evs)
        for aid, fam, lv in evs:
            n += 1
            p = params(rng, fam, lv)
            lines.append(f"event {n} {aid} {fam} round={r} gap={rng.randrange(0, 4)}"
                         + (f" {p}" if p else ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--minutes", type=float, required=True)
    ap.add_argument("--skip", default="",
                    help="event families to leave out, comma separated")
    ap.add_argument("--first-round", default="all", choices=FIRST_ROUNDS,
                    help="all: round 1 is every family of every array; families: every "
                    "family once, on an array the seed picks")
    a = ap.parse_args(argv)
    skip = frozenset(s for s in a.skip.replace(" ", ",").split(",") if s)
    try:
        lines = schedule(a.seed, a.minutes, skip, a.first_round)
    except ValueError as e:
        print(f"stress: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
