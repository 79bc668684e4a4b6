# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the benchmarks (a dot file: not a test itself):
# the 4 null_blk members and the contenders built on them. Source after
# selftests/tests/raid0/.lib.sh (striactl, wipe).

M=(/dev/nullb0 /dev/nullb1 /dev/nullb2 /dev/nullb3)
DM_NAME=bstripe	# the dm contender's name (dmsetup)

# member_stat FIELD: the sum of FIELD of the 4 members' block statistics
# (/sys/block/X/stat: 1 reads completed, 5 writes completed)
member_stat() {
	local d s=0
	for d in "${M[@]}"; do
		s=$((s + $(awk -v f="$1" '{print $f}' "/sys/block/${d#/dev/}/stat")))
	done
	echo $s
}

# member_reads, member_writes: requests completed by the 4 members so far
member_reads() { member_stat 1; }
member_writes() { member_stat 5; }

# setup CONTENDER: build raw (the members side by side, for fio), stria0,
# stria5, stria6, stria1x2 and stria1 (RAID1 of two members, of all 4),
# stria10n2, stria10f2, stria10o2 (RAID10 over the 4 in each layout),
# md0, md5, md6, md1, md1x2 (RAID1 of two members),
# md10n2, md10f2, md10o2 (md RAID10 over the 4 in each layout), dm or
# dmmirror (dm-mirror of two members) on the members, 64 KiB chunks;
# print the device to measure. Neither stria nor md has a write-intent
# bitmap: the same work per write. md RAID5/6 gets the settings
# $MD_SETTING (md_tune; default 4096:2:0: stripe_cache_size 4096,
# group_thread_cnt 2, skip_copy 0). md1 is RAID1 over all 4 members: each
# write is 4 member writes and nothing else, the member I/O a RAID5 write
# needs without its reads, parity or stripe logic. md0 is md raid0, dm
# dm-stripe.
setup() {
	local sz
	case $1 in
	raw) (IFS=:; echo "${M[*]}") ;;
	stria0) striactl create b --level 0 --chunk 64K "${M[@]}" >&2 && echo /dev/stria0 ;;
	stria1x2)
		striactl create b --level 1 --bitmap none --force "${M[0]}" "${M[1]}" >&2 &&
			echo /dev/stria0 ;;
	stria1)
		striactl create b --level 1 --bitmap none --force "${M[@]}" >&2 && echo /dev/stria0 ;;
	stria10n2 | stria10f2 | stria10o2)
		striactl create b --level 10 --layout "${1#stria10}" --chunk 64K --bitmap none \
			--force "${M[@]}" >&2 && echo /dev/stria0 ;;
	stria5 | stria6 | stria5_nospread | stria6_nospread)
		spread_writes "${1#*_}" &&
			striactl create b --level "${1:5:1}" --chunk 64K \
				--bitmap none "${M[@]}" >&2 && echo /dev/stria0 ;;
	md0)
		mdadm --create /dev/md0 --run --force --level=0 --chunk=64 \
			--raid-devices=4 "${M[@]}" >&2 && echo /dev/md0 ;;
	md5 | md6)
		md_create --level="${1#md}" --chunk=64 --raid-devices=4 "${M[@]}" >/dev/null ||
			return 1
		md_tune "${MD_SETTING:-4096:2:0}" && echo /dev/md0 ;;
	md1) md_create --level=1 --raid-devices=4 "${M[@]}" ;;
	md1x2) md_create --level=1 --raid-devices=2 "${M[0]}" "${M[1]}" ;;
	md10n2 | md10f2 | md10o2)
		md_create --level=10 --layout="${1#md10}" --chunk=64 --raid-devices=4 "${M[@]}" ;;
	dmmirror)
		# dm-mirror over the first two members, its log in memory, no
		# initial copy (the members are zeroed alike)
		sz=$(blockdev --getsz "${M[0]}") || return 1
		dm_create "0 $sz mirror core 2 1024 nosync 2 ${M[0]} 0 ${M[1]} 0" ;;
	dm)
		sz=$(blockdev --getsz "${M[0]}") || return 1
		dm_create "0 $((sz * 4 / 128 * 128)) striped 4 128 \
${M[0]} 0 ${M[1]} 0 ${M[2]} 0 ${M[3]} 0" ;;
	*) echo "setup: unknown contender $1" >&2; return 1 ;;
	esac
}

# md_create MDADM-ARGS...: /dev/md0, in sync from the start and without a
# bitmap, as every md contender is; prints it
md_create() {
	mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --bitmap=none \
		"$@" >&2 && echo /dev/md0
}

# dm_create TABLE: the dm contender $DM_NAME; prints its device
dm_create() {
	dmsetup --noudevsync create "$DM_NAME" --table "$1" >&2 &&
		dmsetup mknodes "$DM_NAME" >&2 && echo "/dev/mapper/$DM_NAME"
}

# spread_writes SUFFIX: stria's spread_writes off for the suffix
# "nospread" (the contenders stria5_nospread and stria6_nospread), else on
spread_writes() {
	local v=1
	[ "$1" = nospread ] && v=0
	echo $v >/sys/module/stria/parameters/spread_writes
}

# md_tune SCS:GTC:SKIP: md0's stripe_cache_size, group_thread_cnt and
# skip_copy (md RAID5/6 only; they can change while the array runs)
md_tune() {
	local scs gtc skip
	IFS=: read -r scs gtc skip <<<"$1"
	echo "$scs" >/sys/block/md0/md/stripe_cache_size &&
		echo "$gtc" >/sys/block/md0/md/group_thread_cnt &&
		echo "$skip" >/sys/block/md0/md/skip_copy
}

# teardown CONTENDER: take it down and wipe the members (fails when it
# cannot be taken down)
teardown() {
	case $1 in
	stria*) striactl stop b && spread_writes on ;;
	md*) mdadm --stop /dev/md0 >/dev/null && mdadm --zero-superblock "${M[@]}" ;;
	dm | dmmirror) dmsetup --noudevsync remove "$DM_NAME" ;;
	esac || return 1
	wipe "${M[@]}"
}

# bench COMMAND ARGS: the method's Python half (selftests/lib/striatest/
# bench.py, which also says what a run keeps in $STRIA_OUT): start a kept
# run, the order of a round, md's best setting, the summary
bench() {
	PYTHONPATH=$STRIA_TOP/selftests/lib:$STRIA_TOP/tools/python python3 -m striatest.bench "$@"
}

# bench_tree: the stria tree the run measures (empty when git cannot tell)
bench_tree() {
	git -c safe.directory='*' -C "$STRIA_TOP" describe --always --dirty 2>/dev/null || true
}

# fio_job FILE TARGET RW RUNTIME: one timed fio run of workload RW on
# TARGET, fio's JSON output kept in FILE: randread and randwrite are 4K at
# QD32 x 2 jobs, write is 1M at QD8 x 2 jobs, each job in its own half
# (halves); write1 is one job of 1M writes at QD32 from the start, write1u
# the same from 4K on (no write aligned to a chunk or a stripe); libaio,
# O_DIRECT, RUNTIME s after 1 s of ramp
fio_job() {
	local bs=4k qd=32 nj=2 rw=$3 extra=()
	case $3 in
	# each job writes its own half of the device (halves): with fio's
	# default size the first job runs into the second's half, and two
	# streams then write the same stripes, which is not a sequential write
	write)
		# shellcheck disable=SC2207 # halves prints a list of options
		bs=1M qd=8 extra=($(halves "$2")) ;;
	write1) bs=1M nj=1 rw=write ;;
	write1u) bs=1M nj=1 rw=write extra=(--offset=4k) ;;
	esac
	fio --name=b --filename="$2" --rw="$rw" --bs=$bs --iodepth=$qd --numjobs=$nj \
		--ioengine=libaio --direct=1 --gtod_reduce=1 --time_based --runtime="$4" \
		--ramp_time=1 --group_reporting --norandommap --randrepeat=0 \
		"${extra[@]}" --output-format=json --output="$1"
}

# bench_rounds MEASURE: the $ROUNDS rounds of the run begun by bench start
# in $STRIA_OUT. Each round builds the contenders one at a time, in the
# round's own shuffled order (bench order), runs MEASURE CONTENDER ROUND
# JOB DEVICE for each job of $JOBS, and tears the contender down.
bench_rounds() {
	local r c dev rw order
	for r in $(seq "$ROUNDS"); do
		order=$(bench order "$STRIA_OUT" "$r") || { not_ok "round $r: its order"; continue; }
		for c in $order; do
			if ! dev=$(setup "$c"); then
				not_ok "round $r: set up $c"
				continue
			fi
			for rw in $JOBS; do
				"$1" "$c" "$r" "$rw" "$dev" || not_ok "round $r: $c $rw"
			done
			teardown "$c" >/dev/null 2>&1 || not_ok "round $r: tear down $c"
		done
		diag "round $r done (order: $order)"
	done
}

# bench_report: the run's tables to $STRIA_OUT/bench.txt and the TAP
# diagnostics, and a check that every contender was measured in every
# round and job
bench_report() {
	bench summary "$STRIA_OUT" >"$STRIA_OUT/bench.txt"
	while IFS= read -r l; do diag "$l"; done <"$STRIA_OUT/bench.txt"
	check "every contender measured in every round and job (no zero IOPS)" \
		bench complete "$STRIA_OUT"
}

# stats_begin CONTENDER / stats_end CONTENDER PREFIX: for a stria RAID5/6
# contender, print PREFIX and the raid56_stats counters that grew in
# between ("full_stripe=N rcw=N ..."); nothing for the others
stats_begin() {
	case $1 in stria[56]*) cp /sys/block/stria0/stria/raid56_stats /tmp/stats.0 ;; esac
}
stats_end() {
	case $1 in
	stria[56]*) paste /tmp/stats.0 /sys/block/stria0/stria/raid56_stats |
		awk -v p="$2" '{ d = $4 - $2; if (d) s = s " " $1 "=" d } END { print p s }' ;;
	esac
}

# half_bytes ARRAY: half of ARRAY's size, rounded down to a multiple of
# 3 MiB: whole 1M blocks and whole stripes of 3 (RAID5) or 2 (RAID6) 64K
# data chunks, so a sequential job that starts or wraps there does so on a
# stripe boundary (a plain 50% of stria's 765 MiB is 382.5 MiB, whose wrap
# leaves a partial stripe that nothing continues)
half_bytes() {
	local cap
	cap=$(blockdev --getsize64 "$1") || return 1
	echo $((cap / 2 / 3145728 * 3145728))
}

# halves TARGET: fio options that give each of 2 jobs its own half of
# TARGET, the second from the middle: half_bytes on an array; the raw
# members are 256 MiB each.
halves() {
	local half
	case $1 in
	*:*) echo "--offset_increment=50% --size=50%" ;;
	*) half=$(half_bytes "$1") || return 1
		echo "--offset_increment=$half --size=$half" ;;
	esac
}

# insn_fio_args RW TARGET: the job of a workload of the instruction profiles
# (raid56-insn, mirror-insn), a fixed amount of I/O per job
# (the 1M writes: the second job from the stripe-aligned middle)
insn_fio_args() {
	case $1 in
	randread) echo "--rw=randread --bs=4k --iodepth=32 --io_size=${STRIA_INSN_4K:-24M}" ;;
	randwrite) echo "--rw=randwrite --bs=4k --iodepth=32 --io_size=${STRIA_INSN_4K:-24M}" ;;
	write) echo "--rw=write --bs=1M --iodepth=8 --size=${STRIA_INSN_1M:-96M} --offset_increment=$(half_bytes "$2")" ;;
	esac
}

# insn_measure NAME TARGET RW: one profiled fio run; its line (instructions
# per I/O, those of the modules $INSN_MODULES, member reads and writes per
# I/O) goes to $STRIA_OUT/insn.txt
insn_measure() {
	local name=$1-$3 target=$2 rw=$3 ios m0 w0 reads writes
	m0=$(member_reads)
	w0=$(member_writes)
	host_profile_begin "$name" || return 1
	# shellcheck disable=SC2046 # insn_fio_args is a list of options
	fio --name=b --filename="$target" $(insn_fio_args "$rw" "$target") --numjobs=2 \
		--ioengine=libaio --direct=1 --gtod_reduce=1 --group_reporting --norandommap \
		--randrepeat=0 --output-format=json >"/tmp/fio-$name.json" || return 1
	# the window closes before python3 counts fio's I/Os: python's start
	# and run are not the I/O path's and were counted in it before
	host_profile_stop "$name" || return 1
	ios=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["total_ios"] + j["write"]["total_ios"])' "/tmp/fio-$name.json") || return 1
	# 400 functions: down to a few instructions per I/O, so that
	# striatest.insn can tell where two contenders differ
	host_profile_report "$name" "$ios" 400 || return 1
	reads=$(($(member_reads) - m0))
	writes=$(($(member_writes) - w0))
	python3 - "$name" "$STRIA_OUT/$name.txt" "$ios" "$reads" "$writes" \
		"${INSN_MODULES:-stria raid456 null_blk}" <<'PY' | tee -a "$STRIA_OUT/insn.txt"
import re, sys
name, f, ios, reads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
writes, shown = int(sys.argv[5]), sys.argv[6].split()
mods = {}
section = None
for line in open(f):
    if line.startswith("by module"):
        section = "m"
    elif line.startswith("top"):
        section = None
    elif section == "m":
        m = re.match(r"\s+[\d.]+\s+(\d+)\s+(.+)$", line)
        if m:
            mods[m.group(2).strip()] = int(m.group(1))
kern = sum(v for k, v in mods.items() if k != "(user)")
parts = ", ".join(f"{m} {mods.get(m, 0)}" for m in shown)
print(f"{name:18} {ios:7d} I/Os  kernel {kern:7d} insns/I/O  "
      f"({parts}, user {mods.get('(user)', 0)})  "
      f"member reads/I/O {reads / ios:.2f}  member writes/I/O {writes / ios:.2f}")
PY
}
