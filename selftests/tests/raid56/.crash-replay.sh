# SPDX-License-Identifier: GPL-2.0
# The log-replay crash test, shared by raid56/017 (RAID5), 018 (RAID6),
# their long runs 019 and 020, and 021 (a rebuild in the log) (a dot file:
# not a test itself).
# Documentation/stria/testing.rst, "Crash tests that lose what a power cut
# loses", explains the model and the checks.
#
# The test file sets, before sourcing this:
#   CR_LEVEL  5 or 6, or 1 or 10 (raid10/008, 009: md's default near
#             layout; the replay checks copies where it checks parity)
#   CR_N      members (RAID5: 4, RAID6: 5: three data chunks a stripe each)
#   CR_CUTS   cut points per array: a number, or "all" (every flush and FUA
#             entry of the log, and at least 200). The debug kernel (KASAN,
#             lockdep) runs each step about ten times slower: there the
#             workload is CR_DEBUG_BATCHES batches and a number becomes
#             CR_DEBUG_CUTS, so the short test stays within a few minutes.
# and asks for VM_NVME=2: drive 0 holds the members while they are logged,
# drive 1 the log.
#
# Per array (with a write-intent bitmap, then without one):
#  1. create it over dm-linear slices of drive 0, write version 0 of every
#     block, stop it: the starting image, copied to tmpfs;
#  2. put dm-log-writes over drive 0, the slices over it, assemble, run the
#     workload (stria-crashlog write: flushes with writes in flight, FUA
#     batches, marks), stop cleanly, mark, tear down: the log;
#  3. stria-crashlog order: the write-intent order on the log;
#  4. stria-crashlog replay: the members rebuilt at each cut point on
#     null_blk devices, the array assembled and checked there.
# A third array (zeroes) has a bitmap and a workload with write-zeroes and
# discard requests. dm-log-writes has no write-zeroes, and RAID5/6 offer
# discard and write-zeroes only over members that have them: it is
# assembled over slices of the drive itself, then each slice's table is
# swapped for one over the logged device (stria then writes the zero page
# where it would send write-zeroes, as for any member that lost them), and
# its starting image is taken after that, so its log begins after the
# assembly. CR_ZERO_CUTS cut points (a number or "all").

CRASHLOG=$STRIA_TOP/build/tools/stria-crashlog
CR_MEMBER_MB=2			# the smallest members: 1 MiB superblock area + 1 MiB data
CR_MEMBER_SECTORS=$((CR_MEMBER_MB * 2048))
CR_CHUNK=16K
CR_REGION=64K			# 4 stripes a region: 16 regions
# the workload's shape in array blocks (a test file may set its own: a
# mirror's rows hold fewer data chunks than a RAID5 stripe)
: "${CR_STRIPE_BLOCKS:=12}"	# 3 data chunks of 16K
: "${CR_WINDOW_BLOCKS:=96}"	# a batch writes in 2 regions
: "${CR_SPAN_BLOCKS:=576}"	# 12 of the 16 regions are written; 4 keep the prefill
: "${CR_ZEROES:=1}"		# the third array, with write-zeroes and discards
CR_BATCHES=24
CR_DEBUG_CUTS=24
CR_DEBUG_ZERO_CUTS=12
CR_LOSE_CUTS=6			# the self-test's cuts at dropped flushes
CR_DEBUG_BATCHES=12
CR_SEED=${CR_SEED:-2207}
CR_ZERO_CUTS=${CR_ZERO_CUTS:-24}
CR_REBUILD_CUTS=${CR_REBUILD_CUTS:-48}
CR_REBUILD_ROLE=1
CR_REBUILD_KIBS=96		# the rebuild's speed: about 11 s for 1 MiB, past the workload

crash_requires() {
	_have_cmd dmsetup blkdiscard && _have_module dm-log-writes null_blk
}

cr_dm() {
	dmsetup --noudevsync "$@"
}

# cr_swap_slices DEV: the slices m0.. moved onto the same sectors of DEV
# while the array is assembled and idle (suspend, load, resume)
cr_swap_slices() {
	local i
	for ((i = 0; i < CR_N; i++)); do
		cr_dm suspend "m$i" && cr_dm load "m$i" --table \
			"0 $CR_MEMBER_SECTORS linear $1 $((i * CR_MEMBER_SECTORS))" &&
			cr_dm resume "m$i" || return 1
	done
}

# cr_queue DMNAME|stria0 LIMIT: a queue limit of a dm device or the array
cr_queue() {
	local d=$1
	[ "$d" = stria0 ] || d=$(dmsetup info -c --noheadings -o blkdevname "$1") || return 1
	cat "/sys/block/$d/queue/$2"
}

# cr_r56_stat NAME: a counter of the array's raid56_stats
cr_r56_stat() {
	awk -v k="$1" '$1 == k { print $2 }' /sys/block/stria0/stria/raid56_stats
}

# cr_slices DEV: dm-linear devices m0.. over consecutive slices of DEV.
cr_slices() {
	local i
	for ((i = 0; i < CR_N; i++)); do
		cr_dm create "m$i" --table \
			"0 $CR_MEMBER_SECTORS linear $1 $((i * CR_MEMBER_SECTORS))" || return 1
	done
	dmsetup mknodes
}

cr_remove_slices() {
	local i names=()
	for ((i = 0; i < CR_N; i++)); do
		names+=("m$i")
	done
	cr_dm remove "${names[@]}"
}

# cr_nullb: the members of the replay, null_blk devices cr0.. of the
# members' size, 512-byte sectors as the logged drive.
cr_nullb() {
	local i d
	modprobe null_blk nr_devices=0 || return 1
	for ((i = 0; i < CR_N; i++)); do
		d=/sys/kernel/config/nullb/cr$i
		[ -d "$d" ] && continue
		mkdir "$d" && echo "$CR_MEMBER_MB" >"$d/size" &&
			echo 1 >"$d/memory_backed" && echo 512 >"$d/blocksize" &&
			echo 1 >"$d/power" || return 1
	done
	wait_for "[ -b /dev/cr$((CR_N - 1)) ]" 10
}

# cr_summary TAG KEY: a value of the replay's summary.
cr_summary() {
	awk -v k="$2" '$1 == k { print $2 }' "/tmp/$1.summary"
}

# cr_capture SEED ATTEMPT LAST: the starting image and the log of one array
# (the caller's locals), its checks reported. Return 3 when the log does
# not hold the drive's writes in the drive's order and LAST is 0 (the
# caller takes the capture again), 1 when the run cannot go on, else 0.
cr_capture() {
	local seed=$1 attempt=$2 last=$3 rc
	if ! blkdiscard -z -l $((CR_N * CR_MEMBER_MB))M "$base" || ! blkdiscard -z -l 1M "$log"; then
		not_ok "$tag: zero the drives"
		return 1
	fi
	check "$tag: $CR_N slices of $CR_MEMBER_MB MiB of $base" cr_slices "$base" || return 1
	check "$tag: create (RAID$CR_LEVEL, $CR_CHUNK chunks, bitmap $bitmap)" striactl create cr \
		--level "$CR_LEVEL" --chunk "$CR_CHUNK" "${bm_args[@]}" "${m[@]}" || return 1
	check "$tag: version 0 of every block" "$CRASHLOG" write --dev /dev/stria0 --prefill \
		--seed "$seed" || return 1
	check "$tag: stop" striactl stop cr || return 1
	check "$tag: the starting image" dd if="$base" of="/tmp/$tag.origin" bs=1M \
		count=$((CR_N * CR_MEMBER_MB)) iflag=direct status=none || return 1
	cr_remove_slices

	times+="starting image $((SECONDS - t0)) s, "
	t0=$SECONDS
	check "$tag: dm-log-writes over $base, logged to $log" cr_dm create lw --table \
		"0 $((CR_N * CR_MEMBER_SECTORS)) log-writes $base $log" || return 1
	dmsetup mknodes
	echo 200 >/sys/module/stria/parameters/bitmap_clear_ms
	if [ "$zeroes" = 1 ]; then
		check "$tag: the slices over $base itself" cr_slices "$base" || return 1
		check "$tag: assemble" striactl assemble cr "${m[@]}" || return 1
		check "$tag: discard and write-zeroes offered over members that have write-zeroes" \
			test "$(cr_queue stria0 discard_max_bytes)" -gt 0 \
			-a "$(cr_queue stria0 write_zeroes_max_bytes)" -gt 0 || return 1
		check_eq "$tag: the premise: dm-log-writes has no write-zeroes (stria writes the zero page through it)" \
			0 "$(cr_queue lw write_zeroes_max_bytes)"
		check "$tag: the slices moved onto the logged device" cr_swap_slices /dev/mapper/lw ||
			return 1
		check "$tag: ... discard and write-zeroes still offered" \
			test "$(cr_queue stria0 discard_max_bytes)" -gt 0 \
			-a "$(cr_queue stria0 write_zeroes_max_bytes)" -gt 0 || return 1
		check "$tag: the starting image, after the assembly" dd if="$base" \
			of="/tmp/$tag.origin" bs=1M count=$((CR_N * CR_MEMBER_MB)) iflag=direct \
			status=none || return 1
	else
		check "$tag: the slices over the logged device" cr_slices /dev/mapper/lw || return 1
		check "$tag: assemble" striactl assemble cr "${m[@]}" || return 1
	fi
	if [ "$rebuild" = 1 ]; then
		local f=/dev/mapper/m$CR_REBUILD_ROLE
		echo "$CR_REBUILD_KIBS" >/sys/block/stria0/stria/sync_speed_max
		echo "$CR_REBUILD_KIBS" >/sys/block/stria0/stria/sync_speed_min
		check "$tag: fail member $CR_REBUILD_ROLE" striactl fail cr "$f" || return 1
		check "$tag: remove it" striactl remove cr "$f" || return 1
		# a blank device takes its place: a rebuild that skips a chunk
		# leaves zeroes there, not the member's old data
		check "$tag: blank its slice (zeroes, through the log)" blkdiscard -z "$f" || return 1
		check "$tag: add the blank slice as a spare: a full rebuild, $CR_REBUILD_KIBS KiB/s" \
			striactl add cr "$f" || return 1
		check_eq "$tag: rebuilding" rebuild "$(cat /sys/block/stria0/stria/sync_action)"
	fi
	out=$("$CRASHLOG" write --dev /dev/stria0 --dm lw --journal "/tmp/$tag.journal" \
		--stripe-blocks $CR_STRIPE_BLOCKS --window-blocks $CR_WINDOW_BLOCKS \
		--span-blocks $CR_SPAN_BLOCKS --batches "$CR_BATCHES" --seed "$seed" \
		--pause-ms 700 "${wr_args[@]}" 2>&1)
	check "$tag: the workload ($out)" test $? -eq 0 || return 1
	if [ "$rebuild" = 1 ]; then
		diag "$tag: after the workload: $(cat /sys/block/stria0/stria/sync_action), $(cat /sys/block/stria0/stria/sync_completed 2>/dev/null)"
		check "$tag: the rebuild ends" striactl wait cr
		check_eq "$tag: member $CR_REBUILD_ROLE active" active \
			"$(awk -v r="$CR_REBUILD_ROLE" '$1 == r { print $3 }' /sys/block/stria0/stria/members)"
	fi
	if [ "$zeroes" = 1 ]; then
		check "$tag: stripes zeroed on every member, by the zero page" \
			test "$(cr_r56_stat zeroed)" -gt 0 -a "$(cr_r56_stat zero_pages)" -gt 0
		_show_output "$(grep -E '^(zeroed|zero_pages) ' /sys/block/stria0/stria/raid56_stats | tr '\n' ' ')"
	fi
	times+="workload $((SECONDS - t0)) s, "
	t0=$SECONDS
	check "$tag: the array holds what the workload wrote last" \
		"$CRASHLOG" verify /dev/stria0 "/tmp/$tag.journal"
	check "$tag: stop" striactl stop cr
	check "$tag: mark the clean stop" cr_dm message lw 0 mark stria-crash-stopped
	cr_remove_slices
	check "$tag: remove the log device" cr_dm remove lw || return 1
	cp "/tmp/$tag.journal" "$STRIA_OUT/"
	# on a difference, which of the log's writes touched the block and
	# whether one of them holds what the drive holds
	"$CRASHLOG" compare "$log" "/tmp/$tag.origin" "$base" >"$STRIA_OUT/$tag.compare" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$tag: the starting image and the whole log are what the drive holds, each block's versions in order"
		_show_output "$(tail -n 1 "$STRIA_OUT/$tag.compare")"
		return 0
	fi
	if [ $rc -eq 3 ] && [ "$last" = 0 ]; then
		# the log holds every write the drive got, not in the drive's
		# order: the capture failed, not the array
		diag "$tag: capture $attempt: the log holds the drive's writes in another order than the drive got them (flushes completing out of order under dm-log-writes); the capture is taken again with another seed"
		_show_output "$(tail -n 1 "$STRIA_OUT/$tag.compare")"
		return 3
	fi
	not_ok "$tag: the starting image and the whole log are what the drive holds, each block's versions in order"
	head -n 150 "$STRIA_OUT/$tag.compare" | while IFS= read -r l; do diag "  $l"; done
	return 0
}

# crash_replay TAG BITMAP [SELFTEST [ZEROES [REBUILD]]]: the whole run for
# one array; BITMAP is a region size for --bitmap-chunk, or "none". With
# SELFTEST 1 the checkers also show they can fail; with ZEROES 1 the
# workload has write-zeroes and discard requests (CR_ZERO_CUTS cut
# points); with REBUILD 1 member CR_REBUILD_ROLE is failed before the
# workload and rebuilt onto its blanked slice during it (CR_REBUILD_CUTS).
crash_replay() {
	local tag=$1 bitmap=$2 selftest=${3:-0} zeroes=${4:-0} rebuild=${5:-0}
	local base=/dev/nvme0n1 log=/dev/nvme1n1 m=() i
	local bm_args=(--bitmap-chunk "$bitmap") devs="" out t0=$SECONDS times="" attempt rc
	local wr_args=() cuts=$CR_CUTS rb_args=()
	[ "$bitmap" = none ] && bm_args=(--bitmap none)
	if [ "$zeroes" = 1 ]; then
		wr_args=(--zeroes)
		cuts=$CR_ZERO_CUTS
	fi
	if [ "$rebuild" = 1 ]; then
		rb_args=(--rebuild-role "$CR_REBUILD_ROLE")
		# no RWF_DSYNC batches: the log could not order the rebuild's
		# plain write of a chunk and a FUA write of it between two flushes
		wr_args=(--no-fua)
		cuts=$CR_REBUILD_CUTS
	fi
	for ((i = 0; i < CR_N; i++)); do
		m+=("/dev/mapper/m$i")
		devs+=${devs:+,}/dev/cr$i
	done

	for attempt in 1 2 3; do
		cr_capture $((CR_SEED + attempt - 1)) "$attempt" $((attempt == 3))
		rc=$?
		[ $rc -eq 3 ] || break
		cr_captures_retried=$((cr_captures_retried + 1))
	done
	[ $rc -eq 0 ] || return 1

	out=$("$CRASHLOG" order --log "$log" --origin "/tmp/$tag.origin" --members "$CR_N" 2>&1)
	rc=$?	# before the message's own command substitution resets $?
	local red=parity
	case $CR_LEVEL in 1 | 10) red="later copy" ;; esac
	check "$tag: write-intent order: every data and $red write after the array is durably active$([ "$bitmap" = none ] || echo " and its region's bit durably set") on every member" \
		test $rc -eq 0
	_show_output "$out"
	if [ "$selftest" = 1 ]; then
		out=$("$CRASHLOG" order --log "$log" --origin "/tmp/$tag.origin" \
			--members "$CR_N" --ignore-fua 2>&1)
		check_eq "$tag: self-test: with FUA taken as volatile the order check fails" 1 $?
		_show_output "$(printf '%s\n' "$out" | tail -n 1)"
	fi

	cr_nullb || { not_ok "$tag: null_blk members"; return 1; }
	times+="the capture's checks $((SECONDS - t0)) s, "
	t0=$SECONDS
	out=$("$CRASHLOG" replay --log "$log" --origin "/tmp/$tag.origin" \
		--journal "/tmp/$tag.journal" --devices "$devs" --cuts "$cuts" \
		"${rb_args[@]}" --seed "$CR_SEED" --cut-log "$STRIA_OUT/$tag.cuts" --summary "/tmp/$tag.summary" 2>&1)
	printf '%s\n' "$out" | while IFS= read -r l; do diag "$tag: $l"; done
	diag "$tag: ${times}replay $((SECONDS - t0)) s"
	cp "/tmp/$tag.summary" "$STRIA_OUT/" 2>/dev/null
	check "$tag: the replay ran" test -s "/tmp/$tag.summary" || return 1
	if [ "$cuts" = all ]; then
		check "$tag: at least 200 cut points, every flush and FUA entry" \
			test "$(cr_summary "$tag" cuts)" -ge 200
	else
		check_eq "$tag: $cuts cut points" "$cuts" "$(cr_summary "$tag" cuts)"
	fi
	check "$tag: cuts where the array was dirty" test "$(cr_summary "$tag" dirty)" -gt 0
	check "$tag: cuts with random subsets and torn writes of the unflushed tail" \
		test "$(cr_summary "$tag" subset)" -gt 0 -a "$(cr_summary "$tag" torn)" -gt 0
	check_eq "$tag: every cut assembles" 0 "$(cr_summary "$tag" assemble_failed)"
	check_eq "$tag: every resync and check ends" 0 "$(cr_summary "$tag" sync_timeouts)"
	check_eq "$tag: no acknowledged, flushed write lost (blocks)" 0 "$(cr_summary "$tag" lost_blocks)"
	check_eq "$tag: every block old or new (blocks)" 0 "$(cr_summary "$tag" oon_blocks)"
	check_eq "$tag: after the resync the check finds only the mismatches planted outside (cuts otherwise)" \
		0 "$(cr_summary "$tag" mismatch_cuts)"
	# with a rebuild in the log, mismatches are planted only below the
	# rebuild's checkpoint while the role is rebuilding (elsewhere they
	# would be rebuilt into its data): few cuts have regions to resync there
	[ "$rebuild" = 1 ] || check "$tag: mismatches planted inside the regions to resync" \
		test "$(cr_summary "$tag" planted_in)" -gt 0
	check_eq "$tag: ... every one repaired by the resync" \
		"$(cr_summary "$tag" planted_in)" "$(cr_summary "$tag" repaired_in)"
	check "$tag: mismatches planted outside them" test "$(cr_summary "$tag" planted_out)" -gt 0
	check_eq "$tag: ... every one found by the check" \
		"$(cr_summary "$tag" planted_out)" "$(cr_summary "$tag" found_out)"
	check_eq "$tag: the resync covers what the bitmaps say (cuts otherwise)" 0 \
		"$(cr_summary "$tag" coverage_cuts)"
	check_eq "$tag: nothing written outside the superblocks, bitmaps, ${red/later copy/later copies} and the log's writes (blocks)" \
		0 "$(cr_summary "$tag" stray_blocks)"
	check_eq "$tag: no failure reported" 0 "$(cr_summary "$tag" failures)"
	if [ "$rebuild" = 1 ]; then
		check "$tag: cuts where member $CR_REBUILD_ROLE was being rebuilt and the workload writing" \
			test "$(cr_summary "$tag" rebuilt)" -gt 0 -a "$(cr_summary "$tag" degraded_marked)" -gt 0
		check "$tag: ... some where the rebuild went on from a checkpoint" \
			test "$(cr_summary "$tag" resumed)" -gt 0
	fi
	if [ "$zeroes" = 1 ]; then
		check "$tag: blocks read back as the zeroes of a write-zeroes or discard request" \
			test "$(cr_summary "$tag" zero_reads)" -gt 0
		check "$tag: ... some at cuts where their old data was allowed too (not yet durable)" \
			test "$(cr_summary "$tag" zero_or_old)" -gt 0
	fi
	[ "$selftest" = 1 ] || return 0
	"$CRASHLOG" replay --log "$log" --origin "/tmp/$tag.origin" --journal "/tmp/$tag.journal" \
		--devices "$devs" --cuts 4 --seed 99 --corrupt-data --summary "/tmp/$tag-control.summary" \
		>/dev/null 2>&1
	check_eq "$tag: self-test: a data byte flipped on a member at each of 4 cuts is caught at each" \
		4 "$(($(cr_summary "$tag-control" lost_blocks) + $(cr_summary "$tag-control" oon_blocks)))"
	# A drive that ignores a flush: each cut at one of the writer's marks,
	# every flush since its previous mark ignored and the cache lost.
	out=$("$CRASHLOG" replay --log "$log" --origin "/tmp/$tag.origin" --journal "/tmp/$tag.journal" \
		--devices "$devs" --cuts "$CR_LOSE_CUTS" --seed 98 --drop-flushes \
		--summary "/tmp/$tag-lose.summary" --cut-log "$STRIA_OUT/$tag-lose.cuts" 2>&1)
	printf '%s\n' "$out" | grep -E '^(cuts|dropped flushes):' | while IFS= read -r l; do
		diag "$tag: self-test: $l"
	done
	check_eq "$tag: self-test: $CR_LOSE_CUTS cuts where the drive ignored the flushes since the writer's previous mark" \
		"$CR_LOSE_CUTS" "$(cr_summary "$tag-lose" lose)"
	check "$tag: self-test: ... some of them lost acknowledged, flushed data" \
		test "$(cr_summary "$tag-lose" lose_expected)" -gt 0
	check_eq "$tag: self-test: ... the data check finds lost writes at each of those" \
		"$(cr_summary "$tag-lose" lose_expected)" "$(cr_summary "$tag-lose" lose_caught)"
}

crash_main() {
	if [ "$STRIA_KERNEL" = debug ]; then
		CR_BATCHES=$CR_DEBUG_BATCHES
		[ "$CR_CUTS" = all ] || CR_CUTS=$CR_DEBUG_CUTS
		[ "$CR_ZERO_CUTS" = all ] || CR_ZERO_CUTS=$CR_DEBUG_ZERO_CUTS
	fi
	cr_captures_retried=0
	check "insmod stria.ko" stria_load || return 1
	check "stria-crashlog is built (make tools)" test -x "$CRASHLOG" || return 1
	check "dm-log-writes" modprobe dm-log-writes || return 1
	crash_replay "raid$CR_LEVEL-bitmap" "$CR_REGION" 1
	crash_replay "raid$CR_LEVEL-nobitmap" none
	[ "$CR_ZEROES" = 1 ] && crash_replay "raid$CR_LEVEL-zeroes" "$CR_REGION" 0 1
	local b=raid$CR_LEVEL-bitmap n=raid$CR_LEVEL-nobitmap z=raid$CR_LEVEL-zeroes zs=
	[ "$CR_ZEROES" = 1 ] && zs=", $z $(cr_summary "$z" cuts 2>/dev/null)"
	diag "cut points checked: $b $(cr_summary "$b" cuts 2>/dev/null), $n $(cr_summary "$n" cuts 2>/dev/null)$zs; self-tests on $b: $(cr_summary "$b-control" cuts 2>/dev/null) with a flipped data byte, $(cr_summary "$b-lose" lose 2>/dev/null) at dropped flushes; captures taken again: $cr_captures_retried"
}
