# SPDX-License-Identifier: GPL-2.0
"""Model of a RAID5/6 array's bytes for the discard tests (raid56/032, 033).

A dot file: not a test. The tests keep a copy of what the array must read
back (the model, a file on the guest's tmpfs) and update it by the rules of
stria_r56_zero():

  zero MODEL OFF LEN            write-zeroes: the range reads back as zeroes
  discard DEV MODEL CHUNK ND OFF:LEN...
                                discards (CHUNK bytes, ND data chunks a
                                stripe): a slice of a stripe the ranges
                                cover in every data chunk reads back as
                                zeroes or as before (the block layer's
                                discard split decides which:
                                blkdev_issue_discard() aligns with
                                power-of-two arithmetic, a stripe's data
                                need not be one); everything else as
                                before. The model then zeroes the
                                slices the array zeroed, and nothing
                                else. Prints "zeroed=N kept=N" (slices).
  cmp DEV MODEL                 the array reads back as the model

The model starts as the data the test writes (a file it then writes to
the array), never as the array's bytes, and a discard only tells it which
of the two outcomes it allows each slice had: no byte of the array enters
it unchecked, so a later cmp cannot compare the array with itself.

Exit status 1 on a difference, with the first differing offsets printed.
"""
import os
import sys

BLOCK = 1 << 20


def read_all(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        size = os.lseek(fd, 0, os.SEEK_END)
        out = bytearray()
        while len(out) < size:
            b = os.pread(fd, min(BLOCK, size - len(out)), len(out))
            if not b:
                sys.exit(f"{path}: short read at {len(out)}")
            out += b
        return out
    finally:
        os.close(fd)


def write_model(path, data):
    with open(path, "wb") as f:
        f.write(data)


def first_diffs(a, b, base, limit=5):
    out = []
    for i in range(0, len(a), 4096):
        if a[i:i + 4096] != b[i:i + 4096]:
            out.append(base + i)
            if len(out) >= limit:
                break
    return out


def cmp(dev, model):
    a, m = read_all(dev), read_all(model)
    if len(a) != len(m):
        sys.exit(f"sizes differ: {len(a)} vs {len(m)}")
    if a != m:
        print("differs at byte " + ", ".join(str(o) for o in first_diffs(a, m, 0)))
        return 1
    print(f"{len(a)} bytes as the model")
    return 0


def zero(model, off, length):
    with open(model, "r+b") as f:
        f.seek(off)
        f.write(bytes(length))
    return 0


def discard(dev, model, chunk, nd, ranges):
    """A slice of a stripe (columns [k * slice, (k + 1) * slice) of each of
    its nd data chunks, slice = min(chunk, 64 KiB): the unit the driver
    zeroes) that the ranges cover in every data chunk reads back as zeroes
    or as before; every other byte as before."""
    a, m = read_all(dev), read_all(model)
    if len(a) != len(m):
        sys.exit(f"sizes differ: {len(a)} vs {len(m)}")
    covered = bytearray(len(a))
    for off, length in ranges:
        covered[off:off + length] = b"\x01" * length
    stripe, piece = chunk * nd, min(chunk, 65536)
    zeroes = bytes(piece)
    bad = zeroed = kept = 0
    new = bytearray(m)
    for n in range(len(a) // stripe):
        for k in range(chunk // piece):
            spans = [(n * stripe + i * chunk + k * piece,
                      n * stripe + i * chunk + (k + 1) * piece) for i in range(nd)]
            whole = all(covered.find(0, s, e) < 0 for s, e in spans)
            if whole and all(a[s:e] == zeroes for s, e in spans):
                zeroed += 1
                for s, e in spans:
                    new[s:e] = zeroes
            elif all(a[s:e] == m[s:e] for s, e in spans):
                kept += whole
            else:
                bad += 1
                if bad <= 5:
                    what = "neither zeroes nor its old data" if whole else \
                        "changed, though no discard covers it whole"
                    print(f"stripe {n} slice {k}: {what}")
    write_model(model, new)
    print(f"zeroed={zeroed} kept={kept}")
    return 1 if bad else 0


def main(argv):
    op = argv[1]
    if op == "cmp":
        return cmp(argv[2], argv[3])
    if op == "zero":
        return zero(argv[2], int(argv[3]), int(argv[4]))
    if op == "discard":
        return discard(argv[2], argv[3], int(argv[4]), int(argv[5]),
                       [tuple(int(x) for x in r.split(":")) for r in argv[6:]])
    sys.exit(f"unknown operation {op}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
