# SPDX-License-Identifier: GPL-2.0
# The stress test's guest side (a dot file: not a test itself); the test
# files of selftests/tests/stress/ set the duration and seed and call
# stress_main. Source with: . "$STRIA_TOP/selftests/tests/stress/.lib.sh"
#
# Three arrays at once, one of each level: s0 (RAID0, 2 raw NVMe members
# with poll queues), s5 (RAID5, 3 raw NVMe members + 1 spare) and s6
# (RAID6, 4 members + 1 spare, each a dm device over an NVMe drive, so
# that I/O errors can be switched on under it). Each array has its own
# fio jobs (selftests/lib/striatest/stress.py picks their engines, block
# sizes and directions from the seed), run in rounds of $ROUND seconds,
# every write crc32c-checked (verify_backlog, verify_fatal) in the job's
# own 4 MiB region. Meanwhile one operator runs the seeded events, one at
# a time; `striactl monitor` runs throughout, and a poller reads `striactl
# status`, `striactl status -o json` and the arrays' sysfs files.
#
# What each event family does (an event leaves its array as it found it:
# every role active, the same devices in it, a spare on RAID5/6):
#   fail-spare     striactl fail a member; the spare takes its role and
#                  is rebuilt; the failed device is removed, its
#                  superblock erased, and it is added back as the spare
#   fail-readd     the spare removed; a member failed, removed and added
#                  back: a re-add, only the bitmap's dirty regions rebuilt;
#                  the spare added back
#   fail-two       (RAID6) the same with two members at once
#   replace        striactl replace a member with the spare; the released
#                  device added back as the spare
#   scrub-check, scrub-repair
#                  the scrub (the whole array or a seeded range); it must
#                  find no mismatch: the schedule plants none
#   discard        random bytes written to the array's discard region
#                  (24 to 32 MiB, no fio job there), then blkdiscard of a
#                  seeded range (512-byte aligned, 4K-aligned or not), or
#                  blkdiscard -z (write-zeroes): the range must read zero
#   reset          a member's NVMe controller reset (reset_controller);
#                  the member must stay active
#   ioerr          (RAID6) a member's dm table swapped for dm-flakey
#                  failing reads (mode=read), dm-flakey failing writes
#                  (write) or dm-error (all) for a few seconds, then back
#                  to dm-linear; a member the array failed is rebuilt by
#                  the spare and added back as the spare
#   stop-assemble  the array's fio paused (its round ends), a checksum of
#                  its first 32 MiB, stop, assemble, the same checksum,
#                  fio resumed
#   sysfs          every file of /sys/block/striaN/stria read; the sync
#                  speeds and safe mode delay written; a bad value refused
#                  (EINVAL, the value unchanged); sync_action check or
#                  repair written and a moment later idle (RAID5/6)
#
# STRESS_SKIP (from STRIA_TEST_STRESS_SKIP, `make stress STRESS_SKIP=`)
# leaves families out: the switch for a family that finds a defect that is
# not fixed yet, or "hipri" (the polled fio jobs). A polled job of the
# RAID5 writes blocks that divide a stripe's data (striatest.stress
# polled_sizes): on 6.1 a polled write the block layer must split never
# completes, a limit of that kernel's block layer and io_uring, not of
# stria (testing.rst, "The stress test"; raid56/048).

STRIACTL=$STRIA_TOP/tools/striactl/striactl
ST=/tmp/stress
# seconds a fio round lasts; a round ends (and verifies) before its array
# is stopped
ROUND=${STRIA_TEST_STRESS_ROUND:-15}
# seconds any one step (an operator command, a rebuild, a fio round past
# its time) may take before it counts as hung: the watchdog dumps the
# blocked tasks (sysrq w) and fails the test. The kernel's hung task
# detector (set to 60 s here) reports a task stuck in the kernel sooner.
LIMIT=${STRIA_TEST_STRESS_LIMIT:-300}
[ "${STRIA_KERNEL:-}" = debug ] && LIMIT=${STRIA_TEST_STRESS_LIMIT:-900}

striactl() {
	"$STRIACTL" "$@"
}

# replay: how to run this schedule again
replay() {
	echo "seed $SEED: replay with make stress STRESS_SEED=$SEED STRESS_MINUTES=$MINUTES KERNEL=$STRIA_KERNEL STRESS_SKIP=\"$SKIP\"$([ "${FIRST_ROUND:-all}" = all ] || echo " STRESS_FIRST_ROUND=$FIRST_ROUND")"
}

# sfail MSG: a failure of the run: not ok with the seed, and the operator
# stops (the arrays may not be in the state the next event expects).
sfail() {
	not_ok "$1 ($(replay))"
	touch $ST/failed
	return 1
}

# watchdog WHAT: a step did not end within $LIMIT s: dump blocked tasks.
watchdog() {
	echo w >/proc/sysrq-trigger
	sfail "hang: $1 took more than $LIMIT s (blocked tasks dumped to the kernel log)"
}

# lim CMD...: CMD (a program, striactl or a function of this file) under
# the watchdog's limit; 124 when it ran out.
lim() {
	local p t
	[ "$1" = striactl ] && set -- "$STRIACTL" "${@:2}"
	[ "$(type -t "$1")" = function ] || { timeout "$LIMIT" "$@"; return; }
	"$@" &
	p=$!
	t=$((SECONDS + LIMIT))
	while kill -0 $p 2>/dev/null; do
		((SECONDS > t)) && return 124
		sleep 0.2
	done
	wait $p
}

# run DESC CMD...: one operator command; its failure fails the run.
run() {
	local desc=$1 out rc
	shift
	out=$(lim "$@" 2>&1)
	rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = 124 ] && { watchdog "$desc"; return 1; }
	sfail "$desc (exit $rc)"
	_show_output "$out"
	return 1
}

# adev NAME: striaN of the running array NAME.
adev() {
	local f n
	for f in /sys/block/stria*/stria/name; do
		read -r n 2>/dev/null <"$f" || continue
		[ "$n" = "$1" ] || continue
		f=${f#/sys/block/}
		echo "${f%%/*}"
		return 0
	done
	return 1
}

# mem NAME: the array's members file (role dev state errors ...).
mem() {
	local d
	d=$(adev "$1") && echo "$(<"/sys/block/$d/stria/members")"
}

# role_dev NAME ROLE: the device (/dev/...) holding ROLE.
role_dev() {
	local r dev st _
	while read -r r dev st _; do
		[ "$r" = "$2" ] && [ "$st" != replacement ] && { echo "/dev/$dev"; return 0; }
	done < <(mem "$1")
	return 1
}

# spare_dev NAME: the spare's device.
spare_dev() {
	local r dev st _
	while read -r r dev st _; do
		[ "$st" = spare ] && { echo "/dev/$dev"; return 0; }
	done < <(mem "$1")
	return 1
}

# states NAME: the states of the roles and spares, in order.
states() {
	local r dev st _ out=()
	while read -r r dev st _; do
		out+=("$st")
	done < <(mem "$1")
	echo "${out[*]}"
}

# in_array NAME DEV: DEV is in the array (member, spare, replacement).
in_array() {
	local r dev _
	while read -r r dev _; do
		[ "/dev/$dev" = "$2" ] && return 0
	done < <(mem "$1")
	return 1
}

# wait_sync NAME: no sync runs on NAME (under the watchdog).
wait_sync() {
	local rc
	lim "$STRIACTL" wait "$1" >/dev/null 2>&1
	rc=$?
	[ $rc = 124 ] && { watchdog "the sync of $1 ends"; return 1; }
	return 0
}

# healthy NAME: every role active and, on RAID5/6, one spare, no sync
# running: the state every event leaves its array in.
healthy() {
	local want
	case $1 in
	s0) want="active active" ;;
	s5) want="active active active spare" ;;
	s6) want="active active active active spare" ;;
	esac
	wait_sync "$1" || return 1
	[ "$(states "$1")" = "$want" ] && return 0
	sfail "$1: the members after the event: want '$want', have '$(states "$1")'"
	mem "$1" | sed 's/^/# /'
	return 1
}

# dm_dev NAME: /dev/dm-N of dm device NAME (the guest has no udev links).
dm_dev() {
	local f
	for f in /sys/block/dm-*/dm/name; do
		[ "$(cat "$f")" = "$1" ] || continue
		f=${f#/sys/block/}
		echo "/dev/${f%%/*}"
		return 0
	done
	return 1
}

# pool NAME: every device of NAME's pool (members and spare), for assemble.
pool() {
	case $1 in
	s0) echo "${D[0]} ${D[1]}" ;;
	s5) echo "${D[2]} ${D[3]} ${D[4]} ${D[5]}" ;;
	s6) echo "$(dm_dev s6m0) $(dm_dev s6m1) $(dm_dev s6m2) $(dm_dev s6m3) $(dm_dev s6m4)" ;;
	esac
}

# readd_released NAME: add every device of NAME's pool that is no longer
# in it back as a spare (erasing a failed member's superblock first: it
# comes back as a new spare).
readd_released() {
	local x
	for x in $(pool "$1"); do
		in_array "$1" "$x" && continue
		striactl zero-superblock --force "$x" >/dev/null 2>&1
		run "$1: add the released $x back as a spare" striactl add "$1" "$x" || return 1
	done
}

# remove_failed NAME: remove the failed devices still attached.
remove_failed() {
	local r dev st _
	while read -r r dev st _; do
		[ "$st" = failed ] && [ "$dev" != - ] || continue
		run "$1: remove failed /dev/$dev" striactl remove "$1" "/dev/$dev" || return 1
	done < <(mem "$1")
}

# speeds NAME: RAID5/6 syncs fast enough to end while fio runs (the
# sysfs event changes them; an assemble starts with the defaults)
speeds() {
	local d
	[ "$1" = s0 ] && return 0
	d=/sys/block/$(adev "$1")/stria
	echo 2000000 >"$d/sync_speed_max"
	echo 50000 >"$d/sync_speed_min"
}

# ---- the event families: ev_FAMILY NAME [KEY=VALUE...]; 0 when the
# array is healthy afterwards

ev_fail-spare() {
	local dev
	dev=$(role_dev "$1" "$role") || { sfail "$1: no device holds role $role"; return 1; }
	run "$1: fail role $role ($dev)" striactl fail "$1" "$dev" || return 1
	echo "$dev" >>"$ST/failed-members.$1"
	wait_sync "$1" && remove_failed "$1" && readd_released "$1" && healthy "$1"
}

ev_fail-readd() {
	local dev dev2="" spare out devs
	wait_sync "$1" || return 1
	spare=$(spare_dev "$1")
	run "$1: remove the spare $spare" striactl remove "$1" "$spare" || return 1
	dev=$(role_dev "$1" "$role")
	devs=("$dev")
	run "$1: fail role $role ($dev)" striactl fail "$1" "$dev" || return 1
	echo "$dev" >>"$ST/failed-members.$1"
	if [ -n "$role2" ]; then
		dev2=$(role_dev "$1" "$role2")
		run "$1: fail role $role2 ($dev2)" striactl fail "$1" "$dev2" || return 1
		echo "$dev2" >>"$ST/failed-members.$1"
		devs+=("$dev2")
	fi
	run "$1: remove $dev $dev2" striactl remove "$1" "${devs[@]}" || return 1
	out=$(lim "$STRIACTL" add "$1" "${devs[@]}" 2>&1) ||
		{ sfail "$1: re-add $dev $dev2"; _show_output "$out"; return 1; }
	# a former member whose role is still failed comes back in it
	grep -q "re-added $dev to $1 as member $role" <<<"$out" ||
		{ sfail "$1: $dev is re-added to role $role"; _show_output "$out"; return 1; }
	wait_sync "$1" || return 1
	run "$1: add the spare $spare back" striactl add "$1" "$spare" || return 1
	healthy "$1"
}

ev_fail-two() {
	ev_fail-readd "$@"
}

ev_replace() {
	local dev spare
	wait_sync "$1" || return 1
	dev=$(role_dev "$1" "$role")
	spare=$(spare_dev "$1")
	run "$1: replace role $role ($dev) with $spare" striactl replace "$1" "$dev" --with "$spare" ||
		return 1
	wait_sync "$1" || return 1
	[ "$(role_dev "$1" "$role")" = "$spare" ] ||
		{ sfail "$1: $spare holds role $role after the replace"; mem "$1" | sed 's/^/# /'; return 1; }
	readd_released "$1" && healthy "$1"
}

# scrub NAME MODE: a scrub of the array, or of $range; no mismatch.
scrub() {
	local r=()
	[ "$range" != all ] && r=(--range "$range")
	wait_sync "$1" || return 1
	run "$1: scrub $2 ${r[*]}" striactl scrub "$1" "$2" "${r[@]}" || return 1
	wait_sync "$1" || return 1
	local n
	n=$(cat "/sys/block/$(adev "$1")/stria/mismatch_cnt")
	[ "$n" = 0 ] || { sfail "$1: scrub $2 ${r[*]} found $n mismatched sectors (none planted)"; return 1; }
	healthy "$1"
}

ev_scrub-check() {
	scrub "$1" check
}

ev_scrub-repair() {
	scrub "$1" repair
}

ev_discard() {
	local dev z=() base=$((24 * 2048))
	dev=/dev/$(adev "$1")
	run "$1: random bytes in the discard region" \
		dd if=/dev/urandom of="$dev" bs=1M seek=24 count=8 oflag=direct status=none || return 1
	[ "$zero" = 1 ] && z=(-z)
	run "$1: blkdiscard ${z[*]} sectors $((base + off))+$len" \
		blkdiscard "${z[@]}" -o $(((base + off) * 512)) -l $((len * 512)) "$dev" || return 1
	if [ "$zero" = 1 ]; then
		cmp -s -n $((len * 512)) <(dd if="$dev" bs=512 skip=$((base + off)) count="$len" \
			iflag=direct status=none) /dev/zero ||
			{ sfail "$1: sectors $((base + off))+$len read zero after write-zeroes"; return 1; }
	fi
	healthy "$1"
}

ev_reset() {
	local dev ctrl
	dev=$(role_dev "$1" "$role") || return 1
	ctrl=$(basename "$(readlink -f "/sys/block/${dev#/dev/}/device")")
	run "$1: reset role $role's controller ($ctrl)" \
		sh -c "echo 1 >/sys/class/nvme/$ctrl/reset_controller" || return 1
	lim sh -c "until [ \"\$(cat /sys/class/nvme/$ctrl/state)\" = live ]; do sleep 0.2; done" ||
		{ watchdog "$1: $ctrl live again"; return 1; }
	healthy "$1"
}

# dm_table NAME TABLE: swap a dm device's table (always resumed).
dm_table() {
	dmsetup suspend --noudevsync "$1" || return 1
	dmsetup load --noudevsync "$1" --table "$2"
	dmsetup resume --noudevsync "$1"
}

ev_ioerr() {
	local dev name sz under t
	dev=$(role_dev "$1" "$role") || return 1
	name=$(cat "/sys/block/${dev#/dev/}/dm/name")
	sz=$(blockdev --getsz "$dev")
	under=$(dmsetup table "$name" | awk '{ print $4 }')
	case $mode in
	read) t="0 $sz flakey $under 0 0 1" ;;	# down all the time: reads fail
	write) t="0 $sz flakey $under 0 0 1 1 error_writes" ;;
	all) t="0 $sz error" ;;
	esac
	run "$1: role $role ($name) errors ($mode) for $secs s" dm_table "$name" "$t" || return 1
	sleep "$secs"
	run "$1: role $role ($name) back to dm-linear" dm_table "$name" "0 $sz linear $under 0" ||
		return 1
	diag "$1: after $mode errors: $(mem "$1" | awk '{ printf "%s%s %s (%s errors)", (NR > 1 ? ", " : ""), $2, $3, $4 }')"
	wait_sync "$1" && remove_failed "$1" && readd_released "$1" && healthy "$1"
}

# pause ID / resume ID: hold the array's fio loop between rounds.
pause() {
	rm -f "$ST/paused.$1"
	touch "$ST/pause.$1"
	lim sh -c "until [ -e $ST/paused.$1 ] || [ -e $ST/end.$1 ]; do sleep 0.2; done" ||
		{ watchdog "$1: its fio round ends"; return 1; }
}

resume() {
	rm -f "$ST/pause.$1"
}

# holders DEV: the processes with DEV (striaN) open.
holders() {
	local p
	for p in /proc/[0-9]*; do
		ls -l "$p/fd" 2>/dev/null | grep -q "/dev/$1\$" && echo "${p#/proc/} $(<"$p/comm")"
	done
}

# stop_array NAME: stop it; refused while it is open, so tried again for
# 60 s: an io_uring instance's requests let go of the device in a work
# item after fio has exited, which a loaded guest runs late (striactl
# itself tries for 5 s). The processes that hold it open are named if it
# stays refused.
stop_array() {
	local out rc t0=$SECONDS dev
	dev=$(adev "$1")
	while :; do
		out=$(lim "$STRIACTL" stop "$1" 2>&1)
		rc=$?
		[ $rc = 0 ] && break
		[ $rc = 124 ] && { watchdog "$1: stop"; return 1; }
		if ! grep -q "is open" <<<"$out" || ((SECONDS - t0 > 60)); then
			sfail "$1: stop (exit $rc)"
			_show_output "$out"
			diag "holders of /dev/$dev: $(holders "$dev" | xargs)"
			return 1
		fi
		sleep 1
	done
	((SECONDS - t0 > 5)) && diag "$1: stopped after $((SECONDS - t0)) s of refusals (the device open)"
	return 0
}

ev_stop-assemble() {
	local sum1 sum2 dev
	pause "$1" || return 1
	wait_sync "$1" || return 1
	dev=/dev/$(adev "$1")
	sum1=$(dd if="$dev" bs=1M count=32 iflag=direct status=none | md5sum)
	stop_array "$1" || return 1
	# shellcheck disable=SC2046
	run "$1: assemble" striactl assemble "$1" $(pool "$1") || return 1
	dev=/dev/$(adev "$1")
	sum2=$(dd if="$dev" bs=1M count=32 iflag=direct status=none | md5sum)
	[ "$sum1" = "$sum2" ] ||
		{ sfail "$1: its first 32 MiB read the same after stop and assemble"; return 1; }
	speeds "$1"
	resume "$1"
	healthy "$1"
}

ev_sysfs() {
	local d f v
	d=/sys/block/$(adev "$1")/stria
	for f in "$d"/*; do
		[ -r "$f" ] && [ -f "$f" ] || continue
		cat "$f" >/dev/null || { sfail "$1: read $f"; return 1; }
	done
	[ "$1" = s0 ] && return 0
	for f in sync_speed_min:"$speed_min" sync_speed_max:"$speed_max" \
		safe_mode_delay_ms:"$safe_ms"; do
		echo "${f#*:}" >"$d/${f%%:*}" ||
			{ sfail "$1: write ${f#*:} to ${f%%:*}"; return 1; }
		[ "$(cat "$d/${f%%:*}")" = "${f#*:}" ] ||
			{ sfail "$1: ${f%%:*} reads ${f#*:} back"; return 1; }
	done
	v=$(cat "$d/sync_speed_min")
	# every bad value of the schedule is out of range (1 KiB/s to 100 GiB/s)
	if (echo "$bad" >"$d/sync_speed_min") 2>/dev/null; then
		sfail "$1: sync_speed_min refuses '$bad'"
		return 1
	fi
	[ "$(cat "$d/sync_speed_min")" = "$v" ] ||
		{ sfail "$1: a refused write leaves sync_speed_min at $v"; return 1; }
	speeds "$1"
	if [ "$sync_action" != none ]; then
		wait_sync "$1" || return 1
		echo "$sync_action" >"$d/sync_action" ||
			{ sfail "$1: write $sync_action to sync_action"; return 1; }
		sleep 0.5
		echo idle >"$d/sync_action" 2>/dev/null
		wait_sync "$1" || return 1
	fi
	healthy "$1"
}

# ---- the fio loops

# jobfile ID DEV ROUND: the array's fio jobs for one round.
jobfile() {
	local id=$1 kw j
	cat <<-F
	[global]
	filename=$2
	direct=1
	randseed=$((SEED % 1000000 * 1000 + $3))
	loops=1000000
	runtime=$ROUND
	F
	grep "^job $id " $ST/schedule | while read -r _ _ j kw; do
		local engine hipri rw bs iodepth region
		eval "$kw"
		echo "[$j]"
		echo "ioengine=$engine"
		echo "iodepth=$iodepth"
		[ "$hipri" = 1 ] && echo "hipri=1"
		echo "rw=$rw"
		echo "bs=$bs"
		echo "offset=$((region * 4))M"
		# a whole number of blocks: a last block would cross into the
		# next job's region
		echo "size=$((4194304 / bs * bs))"
		if [ "$rw" != randread ]; then
			echo "verify=crc32c"
			echo "verify_fatal=1"
			echo "verify_backlog=16"
		fi
	done
}

# fio_loop ID NAME: fio rounds on the array until $ST/end; a round that
# fails leaves its output in $STRIA_OUT/fio-fail.ID.ROUND and ends the loop.
fio_loop() {
	local id=$1 n=0 dev rc
	while [ ! -e $ST/end ] && [ ! -e $ST/failed ]; do
		if [ -e "$ST/pause.$id" ]; then
			touch "$ST/paused.$id"
			sleep 0.2
			continue
		fi
		n=$((n + 1))
		dev=$(adev "$2") || { echo "round $n: $2 is not running" >"$ST/fail.$id"; break; }
		jobfile "$id" "/dev/$dev" "$n" >"$ST/job.$id"
		timeout $((ROUND + LIMIT)) nice -n 10 fio --output-format=json --output="$ST/fio.$id.json" \
			"$ST/job.$id" >"$ST/fio.$id.err" 2>&1
		rc=$?
		if [ $rc != 0 ]; then
			cat "$ST/job.$id" "$ST/fio.$id.err" "$ST/fio.$id.json" >"$STRIA_OUT/fio-fail.$id.$n"
			echo "round $n: fio exit $rc$([ $rc = 124 ] && echo ' (timed out: hung)')" \
				>"$ST/fail.$id"
			break
		fi
		fio_ios "$ST/fio.$id.json" >>"$ST/ios.$id" 2>/dev/null
	done
	echo "$n" >"$ST/rounds.$id"
	touch "$ST/end.$id"
}

# poller: striactl status (text and JSON) and the arrays' sysfs files,
# again and again until $ST/end; a failed read is recorded.
poller() {
	local n=0 f t max=0 t1
	# below the operator, above fio
	renice -n 5 -p $BASHPID >/dev/null
	while [ ! -e $ST/end ]; do
		n=$((n + 1))
		t=$SECONDS
		striactl status >/dev/null 2>"$ST/poll.err" ||
			{ echo "status, poll $n: $(cat "$ST/poll.err")" >>"$ST/poll.fail"; }
		# JSON that parses (python3 is slow to start under TCG: one in 10)
		striactl status -o json >"$ST/poll.json" 2>"$ST/poll.err" &&
			{ ((n % 10)) || python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
				"$ST/poll.json"; } ||
			{ echo "status -o json, poll $n: $(cat "$ST/poll.err")" >>"$ST/poll.fail"; }
		for f in /sys/block/stria*/stria/*; do
			[ -f "$f" ] || continue
			t1=${EPOCHREALTIME/./}
			: "$(<"$f")" 2>/dev/null
			t1=$(((${EPOCHREALTIME/./} - t1) / 1000))
			((t1 > 5000)) && echo "poll $n: reading $f took $t1 ms" >>"$ST/poll.slow"
		done
		((SECONDS - t > 10)) && echo "poll $n: took $((SECONDS - t)) s in all" >>"$ST/poll.slow"
		((SECONDS - t > max)) && max=$((SECONDS - t))
		sleep 0.5
	done
	echo "$n times (the longest $max s)" >"$ST/polls"
}

# ---- the arrays

setup() {
	local i sz
	mapfile -t D < <(nvme_disks)
	[ "${#D[@]}" = 11 ] || { not_ok "11 NVMe drives (have ${#D[@]})"; return 1; }
	for i in "${D[@]}"; do
		blkdiscard -z "$i" 2>/dev/null || dd if=/dev/zero of="$i" bs=1M oflag=direct status=none
	done
	check "insmod stria.ko" stria_load || return 1
	for i in 0 1 2 3 4; do
		sz=$(blockdev --getsz "${D[$((6 + i))]}")
		dmsetup create --noudevsync "s6m$i" --table "0 $sz linear ${D[$((6 + i))]} 0" ||
			{ not_ok "dm-linear s6m$i"; return 1; }
	done
	dmsetup mknodes
	local name kw level chunk
	while read -r _ name kw; do
		eval "$kw"
		# shellcheck disable=SC2046
		check "create $name: RAID$level, $chunk chunks" striactl create "$name" --level "$level" \
			--chunk "$chunk" $(pool "$name" | cut -d' ' -f1-$((level == 0 ? 2 : level == 5 ? 3 : 4))) ||
			return 1
		if [ "$level" != 0 ]; then
			check "$name: add the spare" striactl add "$name" "$(pool "$name" | awk '{ print $NF }')" ||
				return 1
			speeds "$name"
		fi
	done < <(grep '^array ' $ST/schedule)
	check_eq "s0 and s5 poll (their members have poll queues)" "1 1" \
		"$(cat "/sys/block/$(adev s0)/queue/io_poll") $(cat "/sys/block/$(adev s5)/queue/io_poll")"
}

# stress_main SEED MINUTES: the whole run.
stress_main() {
	SEED=$1
	MINUTES=$2
	SKIP=${STRIA_TEST_STRESS_SKIP-}
	ROUND1=${STRIA_TEST_STRESS_ROUND1:-$([ "$STRIA_KERNEL" = debug ] && echo 0 || echo 1)}
	local t_end ev n id fam kw round gap pids=() mon i ran=0 t0 fails=0
	local role role2 range off len zero mode secs speed_min speed_max safe_ms sync_action bad
	rm -rf $ST
	mkdir -p $ST
	diag "$(replay)"
	PYTHONPATH=$STRIA_TOP/selftests/lib python3 -m striatest.stress --seed "$SEED" \
		--minutes "$MINUTES" --skip "$SKIP" --first-round "${FIRST_ROUND:-all}" >$ST/schedule ||
		{ not_ok "the schedule for seed $SEED"; return 1; }
	cp $ST/schedule "$STRIA_OUT/schedule"
	while IFS= read -r ev; do diag "$ev"; done < <(grep -v '^event' $ST/schedule)
	diag "$(grep -c '^event' $ST/schedule) events in the schedule (\$STRIA_OUT/schedule); each is printed as it starts"
	echo 60 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
	setup || return 1

	# the program itself, not the striactl function: its pid is the monitor's
	"$STRIACTL" monitor -o json >"$ST/monitor.json" 2>"$ST/monitor.err" &
	mon=$!
	poller &
	pids+=($!)
	for id in s0 s5 s6; do
		fio_loop "$id" "$id" &
		pids+=($!)
	done

	t0=$SECONDS
	t_end=$((SECONDS + ${MINUTES%.*} * 60))
	while read -r _ n id fam kw; do
		role="" role2="" range="" off="" len="" zero="" mode="" secs=""
		speed_min="" speed_max="" safe_ms="" sync_action="" bad=""
		eval "$kw"
		# on stock, round 1 always runs (every family once): a slow host
		# takes longer, never covers less; later rounds while time is
		# left. On the debug kernel, whose events take 4 to 10 times as
		# long, the minutes given are the bound (STRIA_TEST_STRESS_ROUND1
		# =1 or 0 says otherwise)
		[ "$round" -gt 1 ] || [ "$ROUND1" = 0 ] && [ "$SECONDS" -ge "$t_end" ] && break
		[ -e $ST/failed ] && break
		compgen -G "$ST/fail.*" >/dev/null && break
		sleep "$gap"
		diag "event $n at $((SECONDS - t0)) s: $id $fam $kw"
		"ev_$fam" "$id" || break
		ran=$((ran + 1))
	done < <(grep '^event ' $ST/schedule)
	# fio runs for the minutes given even when the events went faster
	while [ "$SECONDS" -lt "$t_end" ] && [ ! -e $ST/failed ] &&
		! compgen -G "$ST/fail.*" >/dev/null; do
		sleep 1
	done
	for id in s0 s5 s6; do resume "$id"; done
	touch $ST/end
	diag "$ran events ran in $((SECONDS - t0)) s$([ "$ROUND1" = 0 ] && echo " (the time given bounds them)")"
	# the watchdog: every loop ends within its round and the limit
	for i in "${pids[@]}"; do
		lim sh -c "while kill -0 $i 2>/dev/null; do sleep 0.5; done" ||
			{ watchdog "the fio loops and the poller end"; return 1; }
		wait "$i"
	done
	for id in s0 s5 s6; do
		if [ -e "$ST/fail.$id" ]; then
			sfail "$id: every fio round verifies: $(cat "$ST/fail.$id")"
			_show_output "$(tail -n 30 "$STRIA_OUT"/fio-fail."$id".* 2>/dev/null)"
			fails=1
		else
			ok "$id: $(cat "$ST/rounds.$id") fio rounds ($(awk '{ s += $1 } END { print s + 0 }' "$ST/ios.$id" 2>/dev/null) I/Os), every write verified"
		fi
	done
	if [ -s "$ST/poll.fail" ]; then
		sfail "striactl status during the run: $(wc -l <"$ST/poll.fail") failed reads"
		_show_output "$(cat "$ST/poll.fail")"
	else
		ok "striactl status, status -o json and sysfs read $(cat "$ST/polls"), no failure"
	fi
	[ -s "$ST/poll.slow" ] && _show_output "$(cat "$ST/poll.slow")"
	[ -e $ST/failed ] && return 1

	# the monitor saw the run: alive, JSON lines, a MemberFailed for every
	# member the events failed
	check "striactl monitor is still running" kill -0 "$mon"
	kill "$mon"
	wait "$mon" 2>/dev/null
	check "striactl monitor printed JSON lines only" python3 - "$ST/monitor.json" <<-'PY'
	import json, sys
	for l in open(sys.argv[1]):
	    json.loads(l)
	PY
	for id in s5 s6; do
		n=$(cat "$ST/failed-members.$id" 2>/dev/null | wc -l)
		check "striactl monitor reported a MemberFailed of $id for each of the $n members striactl fail failed" \
			python3 - "$ST/monitor.json" "$id" "$n" <<-'PY'
		import json, sys
		ev = [json.loads(l) for l in open(sys.argv[1])]
		got = sum(1 for e in ev if e.get("event") == "MemberFailed" and e.get("array") == sys.argv[2])
		sys.exit(0 if got >= int(sys.argv[3]) else f"{got} MemberFailed of {sys.argv[2]}")
		PY
	done
	diag "monitor: $(grep -c . "$ST/monitor.json") events"
	cp "$ST/monitor.json" "$STRIA_OUT/monitor.json"

	# parity: a check of the whole array finds nothing (none planted)
	for id in s5 s6; do
		wait_sync "$id" || return 1
		run "$id: scrub check after the run" striactl scrub "$id" check || return 1
		wait_sync "$id" || return 1
		n=$(cat "/sys/block/$(adev "$id")/stria/mismatch_cnt")
		if [ "$n" = 0 ]; then
			ok "$id: a scrub check after the run finds no parity mismatch"
		else
			sfail "$id: a scrub check after the run finds $n mismatched sectors (none planted)"
		fi
		healthy "$id" && ok "$id: every role active, the spare a spare"
	done
	for id in s0 s5 s6; do
		stop_array "$id" && ok "$id: stop"
	done
	for i in 0 1 2 3 4; do dmsetup remove --noudevsync "s6m$i"; done
	check "rmmod stria" rmmod stria
	[ ! -e $ST/failed ] && [ $fails = 0 ]
}
