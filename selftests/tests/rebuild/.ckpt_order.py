# SPDX-License-Identifier: GPL-2.0
"""rebuild/020: is every rebuild checkpoint recorded only after the data
behind it is durable? Reads a trace (tracefs text) with the events
block:block_rq_issue, block:block_rq_complete and stria:stria_sync.

A checkpoint's superblock update writes sector 0 of every member. For
each update a "checkpoint" stria_sync event follows, before the first
superblock write issued (whatever member it goes to), every member of
the update must have completed a cache flush after its last completed
data write (sector 2048 and on): else the superblock on one member
claims a rebuild position whose data another member still holds only in
its volatile cache. A superblock write's own preflush (blk-flush issues
it first, then the write) covers only its own member.

Prints one line per checkpoint and exits 0 when every one is in order,
1 when one is not, 2 when the trace has no checkpoint (the premise)."""

from __future__ import annotations

import re
import sys

EV = re.compile(r"\s(\d+\.\d+): (block_rq_issue|block_rq_complete|stria_sync): (.*)$")
ISSUE = re.compile(r"^(\d+),(\d+) (\S+) \d+ \([^)]*\) (\d+) \+ (\d+)")
COMPLETE = re.compile(r"^(\d+),(\d+) (\S+) \([^)]*\) (\d+) \+ (\d+)")
DATA_START = 2048


def is_flush(rwbs: str) -> bool:
    return rwbs.startswith("F") and "W" not in rwbs and "R" not in rwbs


def main() -> int:
    last_data: dict[str, float] = {}
    last_flush: dict[str, float] = {}
    update: dict[str, bool] | None = None  # member -> flushed, at the first sb write
    members: set[str] = set()
    n_ckpt = bad = 0
    for line in open(sys.argv[1], errors="replace"):
        m = EV.search(line)
        if not m:
            continue
        t, ev, rest = float(m.group(1)), m.group(2), m.group(3)
        if ev == "stria_sync":
            if " checkpoint " not in rest:
                continue
            n_ckpt += 1
            if update is None:
                print(f"checkpoint {n_ckpt} ({rest.split()[3]}): no superblock write seen before it")
                bad += 1
                continue
            late = sorted(d for d in members if not update.get(d, True))
            print(f"checkpoint {n_ckpt} ({rest.split()[3]}): superblocks of {len(members)} members; "
                  + (f"NOT flushed first: {' '.join(late)}" if late else "every member flushed first"))
            bad += 1 if late else 0
            update = None
            continue
        pat = ISSUE if ev == "block_rq_issue" else COMPLETE
        b = pat.match(rest)
        if not b:
            continue
        dev, rwbs, sector = f"{b.group(1)},{b.group(2)}", b.group(3), int(b.group(4))
        if ev == "block_rq_complete":
            if is_flush(rwbs):
                last_flush[dev] = t
            elif "W" in rwbs and sector >= DATA_START:
                last_data[dev] = t
            continue
        if "W" in rwbs and sector == 0:
            if update is None:
                # the update's first superblock write: the state of every
                # device now (a member not written yet is fine)
                devs = set(last_data) | set(last_flush) | {dev}
                update = {d: last_flush.get(d, -1.0) > last_data.get(d, -2.0) for d in devs}
                members = set()
            members.add(dev)
        elif "W" in rwbs and sector >= DATA_START and update is not None:
            # data written again before any checkpoint event: that update
            # was not a checkpoint's
            update = None
    if not n_ckpt:
        print("no checkpoint in the trace")
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
