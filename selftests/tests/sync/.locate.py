# SPDX-License-Identifier: GPL-2.0
"""Plant and verify the corruptions of sync/013-raid6-locate (not a test).

    .locate.py plant STATE LAYOUT CHUNK_SECTORS STRIPES ARRAY MEMBER...
    .locate.py verify STATE ARRAY MEMBER...
    .locate.py unchanged STATE ARRAY MEMBER...
    .locate.py events STATE EVENTS_JSON

The geometry is md's RAID6 (drivers/md/raid5.c, raid5_compute_sector()),
written here again and not taken from the driver: P on member n-1 - s % n
(left) or s % n (right), Q after it; symmetric layouts put data index i on
(P + 2 + i) % n, asymmetric ones on i (Q on member 0 when P is last) or
i + 2 past P. Members are read and written with O_DIRECT, behind the
array's back, at 1 MiB (the data area) + stripe * chunk.

plant: for every member and every kind (P, Q, data) one stripe with 512
random-xored bytes in that chunk alone; then three stripes with two wrong
chunks (two data, data and P, P and Q, at the same bytes) and one with a
single wrong byte (too few to locate). Records in STATE the checksums of
every member's chunk and of the array's stripes before and after.

verify: the located stripes are back to the original bytes (members and
array), the others byte-identical to what was planted; prints one line
per finding and exits 1 on any.

unchanged: every member's chunks are still as planted.

events: the monitor's JSON lines have one MismatchLocated per located
stripe naming its member, chunk and array sector, and one
MismatchUnlocatable per other.
"""
import hashlib
import json
import mmap
import os
import random
import sys

DATA_OFFSET = 1 << 20
LAYOUTS = ("left-asymmetric", "right-asymmetric", "left-symmetric",
           "right-symmetric")


def roles(layout, n, s):
    """{member: "P" | "Q" | data index} of stripe s."""
    left = layout in ("left-asymmetric", "left-symmetric")
    p = n - 1 - s % n if left else s % n
    q = (p + 1) % n
    out = {p: "P", q: "Q"}
    for i in range(n - 2):
        if layout.endswith("-symmetric"):
            m = (p + 2 + i) % n
        elif p == n - 1:
            m = i + 1
        else:
            m = i if i < p else i + 2
        out[m] = i
    assert len(out) == n
    return out


def dread(path, off, length):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, length)
        assert os.preadv(fd, [buf], off) == length
        return bytes(buf)
    finally:
        os.close(fd)


def dwrite(path, off, data):
    fd = os.open(path, os.O_RDWR | os.O_DIRECT | os.O_SYNC)
    try:
        buf = mmap.mmap(-1, len(data))
        buf[:] = data
        assert os.pwritev(fd, [buf], off) == len(data)
    finally:
        os.close(fd)


def md5(b):
    return hashlib.md5(b).hexdigest()


def snapshot(st, array, members):
    """Checksums of every member chunk and every array stripe."""
    cb = st["chunk"] * 512
    nd = len(members) - 2
    nstripes = st["stripes"]
    mem = [dread(m, DATA_OFFSET, nstripes * cb) for m in members]
    arr = dread(array, 0, nstripes * nd * cb)
    return {
        "members": [[md5(mem[m][s * cb:(s + 1) * cb])
                     for m in range(len(members))] for s in range(nstripes)],
        "array": [md5(arr[s * nd * cb:(s + 1) * nd * cb])
                  for s in range(nstripes)],
    }


def corrupt(path, stripe, cb, off, length, rnd):
    """xor @length bytes at @off of the chunk of @stripe with nonzero bytes."""
    base = DATA_OFFSET + stripe * cb
    chunk = bytearray(dread(path, base, cb))
    for i in range(off, off + length):
        chunk[i] ^= rnd.randrange(1, 256)
    dwrite(path, base, bytes(chunk))


def plant(state, layout, chunk, nstripes, array, members):
    n = len(members)
    cb = chunk * 512
    rnd = random.Random(f"{layout}-{n}-{chunk}")
    st = {"layout": layout, "chunk": chunk, "stripes": nstripes, "n": n,
          "located": [], "unlocatable": []}
    st["before"] = snapshot(st, array, members)
    used = set()
    # every member in every role: the first stripe where it has that role
    for m in range(n):
        for kind in ("P", "Q", "data"):
            for s in range(nstripes):
                r = roles(layout, n, s)[m]
                if s in used or (kind == "data") != isinstance(r, int) or \
                   (kind != "data" and r != kind):
                    continue
                used.add(s)
                off = rnd.randrange(0, cb // 512) * 512
                corrupt(members[m], s, cb, off, 512, rnd)
                sector = s * (n - 2) * chunk
                if kind == "data":
                    sector += r * chunk
                st["located"].append({"stripe": s, "member": m,
                                      "chunk": kind, "sector": sector})
                break
            else:
                sys.exit(f"no stripe left for member {m} as {kind}")
    free = [s for s in range(nstripes) if s not in used]
    if len(free) < 4:
        sys.exit("too few stripes")
    for s, pair in zip(free, ((0, 1), (0, "P"), ("P", "Q"))):
        r = roles(layout, n, s)
        inv = {v: k for k, v in r.items()}
        off = rnd.randrange(0, cb // 512) * 512
        for what in pair:
            corrupt(members[inv[what]], s, cb, off, 512, rnd)
        st["unlocatable"].append({"stripe": s, "why": f"{pair}"})
    s = free[3]
    inv = {v: k for k, v in roles(layout, n, s).items()}
    corrupt(members[inv[0]], s, cb, rnd.randrange(0, cb), 1, rnd)
    st["unlocatable"].append({"stripe": s, "why": "one byte"})
    st["planted"] = snapshot(st, array, members)
    with open(state, "w") as f:
        json.dump(st, f)
    print(f"planted {len(st['located'])} single-chunk and "
          f"{len(st['unlocatable'])} unlocatable corruptions")


def verify(state, array, members):
    with open(state) as f:
        st = json.load(f)
    now = snapshot(st, array, members)
    bad = 0
    for e in st["located"]:
        s = e["stripe"]
        for m in range(st["n"]):
            if now["members"][s][m] != st["before"]["members"][s][m]:
                print(f"stripe {s} ({e['chunk']} on member {e['member']}): "
                      f"member {m} not restored")
                bad += 1
        if now["array"][s] != st["before"]["array"][s]:
            print(f"stripe {s}: the array's bytes are not the original")
            bad += 1
    for e in st["unlocatable"]:
        s = e["stripe"]
        if now["members"][s] != st["planted"]["members"][s]:
            print(f"stripe {s} ({e['why']}): written, should be left as is")
            bad += 1
    for s in range(st["stripes"]):
        if s in [e["stripe"] for e in st["located"] + st["unlocatable"]]:
            continue
        if now["members"][s] != st["before"]["members"][s]:
            print(f"stripe {s} (not corrupted): changed")
            bad += 1
    print(f"{len(st['located'])} located stripes, "
          f"{len(st['unlocatable'])} unlocatable, {bad} wrong")
    sys.exit(1 if bad else 0)


def unchanged(state, array, members):
    """Every member's chunks are as planted: nothing was written."""
    with open(state) as f:
        st = json.load(f)
    now = snapshot(st, array, members)
    bad = [s for s in range(st["stripes"])
           if now["members"][s] != st["planted"]["members"][s]]
    print(f"stripes written since the corruptions were planted: {bad}")
    sys.exit(1 if bad else 0)


def events(state, path):
    with open(state) as f:
        st = json.load(f)
    got_loc, got_unl = [], []
    with open(path) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event") == "MismatchLocated":
                got_loc.append({"stripe": e.get("stripe"),
                                "member": e.get("role"),
                                "chunk": e.get("chunk"),
                                "sector": e.get("sector")})
            elif e.get("event") == "MismatchUnlocatable":
                got_unl.append(e.get("stripe"))
    key = lambda e: e["stripe"]
    want_unl = sorted(e["stripe"] for e in st["unlocatable"])
    ok = sorted(got_loc, key=key) == sorted(st["located"], key=key) and \
        sorted(got_unl) == want_unl
    if not ok:
        print("want located:", sorted(st["located"], key=key))
        print("got located: ", sorted(got_loc, key=key))
        print("want unlocatable:", want_unl, "got:", sorted(got_unl))
    sys.exit(0 if ok else 1)


def main():
    cmd = sys.argv[1]
    if cmd == "plant":
        plant(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
              sys.argv[6], sys.argv[7:])
    elif cmd == "verify":
        verify(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "unchanged":
        unchanged(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "events":
        events(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
