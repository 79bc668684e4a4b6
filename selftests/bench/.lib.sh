# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the RAID5/6 benchmarks (a dot file: not a test itself):
# the 4 null_blk members and the contenders built on them. Source after
# selftests/tests/raid0/.lib.sh (striactl, wipe).

M=(/dev/nullb0 /dev/nullb1 /dev/nullb2 /dev/nullb3)

# member_reads: read requests completed by the 4 members so far
member_reads() {
	local d s=0
	for d in "${M[@]}"; do
		s=$((s + $(awk '{print $1}' "/sys/block/${d#/dev/}/stat")))
	done
	echo $s
}

# setup CONTENDER: build raw (the members side by side, for fio), stria0,
# stria5, stria6, md5, md6 or md1 on the members, 64 KiB chunks; print the
# device to measure. Neither stria nor md has a write-intent bitmap: the
# same work per write. md RAID5/6 is tuned (stripe_cache_size 4096,
# group_thread_cnt 2). md1 is RAID1 over all 4 members: each write is 4
# member writes and nothing else, the member I/O a RAID5 write needs
# without its reads, parity or stripe logic.
setup() {
	case $1 in
	raw) (IFS=:; echo "${M[*]}") ;;
	stria0) striactl create b --level 0 --chunk 64K "${M[@]}" >&2 && echo /dev/stria0 ;;
	stria5 | stria6)
		striactl create b --level "${1#stria}" --chunk 64K \
			--bitmap none "${M[@]}" >&2 && echo /dev/stria0 ;;
	md5 | md6)
		mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --bitmap=none \
			--level="${1#md}" --chunk=64 --raid-devices=4 "${M[@]}" >&2 || return 1
		echo 4096 >/sys/block/md0/md/stripe_cache_size &&
			echo 2 >/sys/block/md0/md/group_thread_cnt && echo /dev/md0 ;;
	md1)
		mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --bitmap=none \
			--level=1 --raid-devices=4 "${M[@]}" >&2 && echo /dev/md0 ;;
	*) echo "setup: unknown contender $1" >&2; return 1 ;;
	esac
}

# teardown CONTENDER: take it down and wipe the members
teardown() {
	case $1 in
	stria*) striactl stop b ;;
	md*) mdadm --stop /dev/md0 >/dev/null && mdadm --zero-superblock "${M[@]}" ;;
	esac
	wipe "${M[@]}"
}

# stats_begin CONTENDER / stats_end CONTENDER PREFIX: for a stria RAID5/6
# contender, print PREFIX and the raid56_stats counters that grew in
# between ("full_stripe=N rcw=N ..."); nothing for the others
stats_begin() {
	case $1 in stria[56]) cp /sys/block/stria0/stria/raid56_stats /tmp/stats.0 ;; esac
}
stats_end() {
	case $1 in
	stria[56]) paste /tmp/stats.0 /sys/block/stria0/stria/raid56_stats |
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
