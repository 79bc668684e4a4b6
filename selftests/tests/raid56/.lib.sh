# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the raid56 tests (a dot file: not a test itself).
# Source with: . "$STRIA_TOP/selftests/tests/raid56/.lib.sh"
#
# The RAID5/6 layout checker, selftests/tools/stria-layout-check.c, and
# stria-aio-hop.c (writes whose writer moves between CPUs) are built by
# `make tools` into build/tools/; the guest sees the checkout at the same
# path.

LAYOUT_CHECK=$STRIA_TOP/build/tools/stria-layout-check
AIO_HOP=$STRIA_TOP/build/tools/stria-aio-hop

layout_check() {
	"$LAYOUT_CHECK" "$@"
}

# zero_members DEV...: zero every member completely (fast on NVMe: Write
# Zeroes), so no stale superblock or data survives into the next array.
zero_members() {
	local d
	for d in "$@"; do
		blkdiscard -z "$d" 2>/dev/null ||
			dd if=/dev/zero of="$d" bs=1M oflag=direct status=none 2>/dev/null
	done
	return 0
}

# r56_make_active SEEK: one 64K direct write of zeroes at SEEK (in 64K
# units) to /dev/stria0, and the array is active. The first write to a clean
# array is held back (BLK_STS_RESOURCE) until the superblocks say active,
# and blk-mq's workers then dispatch it and the writes submitted meanwhile
# in any order: a stripe's first write can reach stria before the write it
# continues, which no stream hint can tell. A test that counts merges
# writes once past its regions first (with safe mode off, the array then
# stays active).
r56_make_active() {
	dd if=/dev/zero of=/dev/stria0 bs=65536 count=1 seek="$1" oflag=direct \
		status=none || return 1
	test "$(cat /sys/block/stria0/stria/array_state)" = active
}

# md_role_members MD N: md's members in role order (slot 0 first), one
# /dev path per line, from /sys/block/MD/md/rdI.
md_role_members() {
	local i l
	for ((i = 0; i < $2; i++)); do
		l=$(readlink "/sys/block/$1/md/rd$i") || return 1
		echo "/dev/${l#dev-}"
	done
}

# md_data_offsets MD DEV...: the data offsets (sectors) of the members, comma
# separated, in the order given.
md_data_offsets() {
	local md=$1 d out=""
	shift
	for d in "$@"; do
		out+=${out:+,}$(cat "/sys/block/$md/md/dev-${d#/dev/}/offset") || return 1
	done
	echo "$out"
}

# flip_byte DEV OFFSET: invert one byte of DEV at byte OFFSET, written through.
flip_byte() {
	python3 - "$1" "$2" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
off = int(sys.argv[2])
b = os.pread(fd, 1, off)
os.pwrite(fd, bytes([b[0] ^ 0xff]), off)
os.fsync(fd)
os.close(fd)
PY
}

# --- stria RAID5/6 arrays -------------------------------------------------

STRIACTL=$STRIA_TOP/tools/striactl/striactl
# where the data area starts on every stria member (STRIA_SB_DATA_OFFSET)
STRIA_DATA_OFFSET=2048

striactl() {
	"$STRIACTL" "$@"
}

# nd_of LEVEL N: data members per stripe.
nd_of() {
	echo $(($2 - $1 + 4))
}

# size_bytes SIZE: 4K, 64K, 1M ... in bytes.
size_bytes() {
	local v=${1%[KkMm]}
	case $1 in
	*[Kk]) echo $((v * 1024)) ;;
	*[Mm]) echo $((v * 1048576)) ;;
	*) echo "$1" ;;
	esac
}

# Under TCG every program a test starts costs about 0.3 s (exec over 9p):
# the counter helpers below use bash builtins only.

# r56_snap FILE [DEV]: save /sys/block/DEV/stria/raid56_stats (default
# stria0); fails when the file is missing.
r56_snap() {
	local l
	{ while read -r l; do echo "$l"; done <"/sys/block/${2:-stria0}/stria/raid56_stats"; } >"$1"
}

# _r56_get FILE NAME: the value of counter NAME in FILE; fails if absent.
_r56_get() {
	local n v
	while read -r n v; do
		[ "$n" = "$2" ] && { echo "$v"; return 0; }
	done <"$1"
	return 1
}

# r56_delta FILE NAME [DEV]: how much counter NAME grew since r56_snap FILE.
# Prints nothing (so any comparison fails) when the counter is missing.
r56_delta() {
	local now was
	now=$(_r56_get "/sys/block/${3:-stria0}/stria/raid56_stats" "$2") || return 1
	was=$(_r56_get "$1" "$2") || return 1
	echo $((now - was))
}

# r56_sum FILE NAME...: the growth of several counters, added; nothing
# when one is missing.
r56_sum() {
	local f=$1 n d sum=0
	shift
	for n in "$@"; do
		d=$(r56_delta "$f" "$n") || return 1
		sum=$((sum + d))
	done
	echo "$sum"
}

# r56_deltas FILE [DEV]: every counter's growth as "name=N ...", for diag.
r56_deltas() {
	local n out=""
	for n in full_stripe rmw rcw degraded_write degraded_read member_reads lock_waits merged merge_timeouts merge_idle mem_retries mem_deferred spread bio_reserve bio_deferred; do
		out+="$n=$(r56_delta "$1" $n "${2:-}") "
	done
	echo "$out"
}

# stria_parity_check LEVEL LAYOUT CHUNK ARRAY_SECTORS MEMBER...: every stripe
# of a stopped stria array holding ARRAY_SECTORS has consistent P (and Q).
stria_parity_check() {
	local level=$1 layout=$2 chunk=$3 sectors=$4
	shift 4
	blockdev --flushbufs "$@"
	layout_check --level "$level" --layout "$layout" --chunk "$chunk" \
		--data-offset "$STRIA_DATA_OFFSET" --sectors "$sectors" "$@"
}

# member_reads DEV...: read requests the devices completed, summed
# (/sys/block/X/stat field 1).
member_reads() {
	local d r sum=0
	for d in "$@"; do
		[ -L "$d" ] && d=$(readlink -f "$d")
		read -r r _ <"/sys/block/${d#/dev/}/stat" || return 1
		sum=$((sum + r))
	done
	echo "$sum"
}

# --- workloads ------------------------------------------------------------

# Data jobs for fio, as argument lists: a job's options follow its --name,
# so several lists go into one fio run, and the same lists with
# --verify_only (a global option, before them) check the data later. fio
# costs seconds to start under TCG: verify several regions in one run.
FIO_DATA=(--direct=1 --ioengine=libaio --verify=crc32c --verify_fatal=1)

# jobs_mixed NAME OFFSET SIZE RW: two jobs, SIZE each side by side from
# OFFSET, of 4K..1M blocks (as raid0's fio_verify), RW randwrite or write.
jobs_mixed() {
	printf '%s\n' --name="$1" --offset="$2" --numjobs=2 --size="$3" \
		--offset_increment="$3" --rw="$4" --bssplit=4k/40:64k/30:192k/20:1m/10 \
		--randseed=1234 --iodepth=16
}

# jobs_interleaved NAME OFFSET JOBS SLOT SIZE BSSPLIT: JOBS jobs that write
# into the same stripes of the SIZE bytes from OFFSET: job j owns the
# SLOT-sized slots j, j+JOBS, j+2*JOBS ... and writes random blocks
# (BSSPLIT, none larger than SLOT) at the start of its slots, so
# neighbouring blocks of one chunk, and the parity they share, are updated
# by different jobs at once (they share the seed, so they visit the same
# stripes at the same time). Slots are rewritten (no random map): verify
# checks the last write of each. Every job issues SIZE / JOBS bytes.
jobs_interleaved() {
	local name=$1 off=$2 jobs=$3 slot_b stride size_b bssplit=$6 j
	slot_b=$(size_bytes "$4")
	size_b=$(size_bytes "$5")
	stride=$((slot_b * jobs))
	for ((j = 0; j < jobs; j++)); do
		printf '%s\n' --name="$name$j" --offset=$((off + j * slot_b)) \
			--rw=randwrite --bssplit="$bssplit" --blockalign="$stride" \
			--norandommap --size=$((size_b - stride + slot_b)) \
			--io_size=$((size_b / jobs)) --randseed=5678 --iodepth=8
	done
}

# r56_replay DEV SEED OPS SPAN [SIZES [ALIGN [BASE]]]: OPS direct writes
# of pseudo-random data at pseudo-random ALIGN-aligned offsets (default
# 4096) in the SPAN bytes from BASE (default 0), one at a time, all decided
# by SEED: the same call writes the same bytes to any device, or file.
# SIZES: comma-separated bytes (default 4K,8K,12K,64K,132K,1M).
r56_replay() {
	python3 - "$@" <<'PY'
import mmap, os, random, sys
dev, seed, ops, span = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sizes = [int(s) for s in (sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else
         "4096,8192,12288,65536,135168,1048576").split(",")]
align = int(sys.argv[6]) if len(sys.argv) > 6 else 4096
base = int(sys.argv[7]) if len(sys.argv) > 7 else 0
rng = random.Random(seed)
buf = mmap.mmap(-1, max(sizes))          # page aligned, as O_DIRECT wants
try:
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
except OSError:                          # a model file on tmpfs
    fd = os.open(dev, os.O_WRONLY)
for _ in range(ops):
    n = rng.choice(sizes)
    off = rng.randrange(0, (span - n) // align + 1) * align
    buf[:n] = rng.randbytes(n)
    if os.pwritev(fd, [memoryview(buf)[:n]], base + off) != n:
        sys.exit(f"short write at {base + off}")
os.fsync(fd)
os.close(fd)
PY
}

# cmp_data_areas CHUNK LEN OFF_A OFF_B A... -- B...: member i of set A and
# member i of set B hold the same LEN bytes from their data offsets (sectors),
# compared chunk by chunk; names the first differing chunks (stripe, member).
cmp_data_areas() {
	python3 - "$@" <<'PY'
import os, sys
a = sys.argv[1:]
chunk, length, off_a, off_b = int(a[0]), int(a[1]), int(a[2]) * 512, int(a[3]) * 512
sep = a.index("--")
set_a, set_b = a[4:sep], a[sep + 1:]
if len(set_a) != len(set_b):
    sys.exit("cmp_data_areas: member counts differ")
bad = 0
for m, (x, y) in enumerate(zip(set_a, set_b)):
    fx, fy = os.open(x, os.O_RDONLY), os.open(y, os.O_RDONLY)
    for fd in (fx, fy):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    for s in range(length // chunk):
        cx = os.pread(fx, chunk, off_a + s * chunk)
        cy = os.pread(fy, chunk, off_b + s * chunk)
        if len(cx) != chunk or len(cy) != chunk:
            sys.exit(f"member {m}: short read at stripe {s}")
        if cx != cy:
            bad += 1
            if bad <= 8:
                i = next(i for i in range(chunk) if cx[i] != cy[i])
                print(f"stripe {s}: member {m} ({x} vs {y}) differs from byte {i} of the chunk")
    os.close(fx)
    os.close(fy)
print(f"{len(set_a)} members x {length // chunk} chunks compared, {bad} differ")
sys.exit(1 if bad else 0)
PY
}

# pattern_write DEV SECTORS: the --generate pattern over DEV's first SECTORS
# sectors (whole MiBs), 1 MiB direct writes.
pattern_write() {
	"$LAYOUT_CHECK" --generate "$2" |
		dd of="$1" bs=1M oflag=direct iflag=fullblock status=none
}

# pattern_classify DEV SECTORS BLOCK: read DEV's first SECTORS sectors in
# direct reads of BLOCK bytes and sort each block: it holds the pattern
# (ok), its read failed with EIO (eio), or it returned anything else
# (wrong, or another error). Prints "ok=N eio=N wrong=N" and the first
# wrong blocks; exits 1 when any block is wrong.
pattern_classify() {
	"$LAYOUT_CHECK" --generate "$2" >/tmp/pattern.expect || return 2
	python3 - "$1" "$2" "$3" <<'PY'
import errno, mmap, os, sys
dev, sectors, block = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
want = open("/tmp/pattern.expect", "rb")
buf = mmap.mmap(-1, block)
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
ok = eio = wrong = 0
for off in range(0, sectors * 512, block):
    exp = want.read(block)
    try:
        n = os.preadv(fd, [buf], off)
    except OSError as e:
        if e.errno == errno.EIO:
            eio += 1
            continue
        n = -e.errno
    if n == block and buf[:] == exp:
        ok += 1
        continue
    wrong += 1
    if wrong <= 5:
        print(f"block at byte {off}: " + (f"read returned {n}" if n != block else
              "wrong data (array sector "
              f"{int.from_bytes(buf[0:8], 'little') if buf[8:16] == b'STRIAPAT' else 'none'})"))
print(f"ok={ok} eio={eio} wrong={wrong}")
sys.exit(1 if wrong else 0)
PY
}

# member_state ROLE [DEV]: that member's state in /sys/block/DEV/stria/members.
member_state() {
	local r d st _
	while read -r r d st _; do
		[ "$r" = "$1" ] && { echo "$st"; return 0; }
	done <"/sys/block/${2:-stria0}/stria/members"
	return 1
}

# SUB4K: write sizes for r56_replay with ALIGN 512: sectors within a page,
# across pages, chunks (64K + 512) and 4K stripes (196K)
SUB4K=512,1024,1536,3584,4608,8192,66048,200704

# model_check TAG DEV OFF LEN SEED OPS: OPS sub-4K writes (r56_replay) to
# the LEN bytes of DEV at OFF and to a copy of them in a file; DEV must
# then read back as the copy.
model_check() {
	local tag=$1 dev=$2 off=$3 len=$4 seed=$5 ops=$6
	check "$tag: copy $((len >> 10)) KiB at $((off >> 10)) KiB as the model" \
		dd if="$dev" of=/tmp/model bs=64K skip=$((off / 65536)) count=$((len / 65536)) \
		iflag=direct status=none
	check "$tag: $ops writes of 512 bytes to 196K, 512-byte aligned" \
		r56_replay "$dev" "$seed" "$ops" "$len" "$SUB4K" 512 "$off"
	r56_replay /tmp/model "$seed" "$ops" "$len" "$SUB4K" 512 0
	check "$tag: the array reads back as the model" \
		cmp -n "$len" -i "$off:0" "$dev" /tmp/model
}

# as_verify JOBARG...: the job argument lists given, with --verify_only
# after every --name: put jobs that wrote earlier in front of new ones, so
# fio checks their data while the new ones write and every job keeps its
# place. fio seeds a job's random offsets with its place in the command
# line (thread_number): a job verifies only at the place it wrote from.
as_verify() {
	local a
	for a in "$@"; do
		echo "$a"
		[[ $a == --name=* ]] && echo --verify_only
	done
}
