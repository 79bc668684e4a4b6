# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the rebuild tests (a dot file: not a test itself):
# spares, rebuild, scrub and their sysfs files. Source with:
#   . "$STRIA_TOP/selftests/tests/rebuild/.lib.sh"
# It sources raid0/.lib.sh (striactl, wipe, fio_verify, expect_refused) and
# raid56/.lib.sh (layout checker, zero_members, stria_parity_check).
#
# Everything here reads sysfs with bash builtins: under TCG every program a
# test starts costs about 0.3 s.

. "$STRIA_TOP/selftests/tests/raid0/.lib.sh"
. "$STRIA_TOP/selftests/tests/raid56/.lib.sh"

MiB=1048576

# expect_refused DESC WANT_RC PATTERN CMD...: CMD fails with exit WANT_RC
# and a line of its output matches PATTERN (extended regex). As raid0's,
# with bash's own regex matching: under TCG on a loaded host every grep
# costs about a second.
expect_refused() {
	local desc=$1 want=$2 pat=$3 out rc l
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ]; then
		while IFS= read -r l; do
			if [[ $l =~ $pat ]]; then
				ok "$desc"
				return 0
			fi
		done <<<"$out"
	fi
	not_ok "$desc"
	diag "  expected rc=$want and /$pat/"
	diag "  got: rc=$rc $out"
	return 1
}

# sysf FILE [DEV]: the first line of /sys/block/DEV/stria/FILE (DEV
# default stria0); fails when the file is missing.
sysf() {
	local v
	read -r v <"/sys/block/${2:-stria0}/stria/$1" || return 1
	echo "$v"
}

# sysw FILE VALUE [DEV]: write VALUE to /sys/block/DEV/stria/FILE.
sysw() {
	echo "$2" >"/sys/block/${3:-stria0}/stria/$1"
}

# sync_done [DEV]: the DONE of sync_completed ("DONE / TOTAL" sectors), or
# "none" when no sync runs.
sync_done() {
	local l
	l=$(sysf sync_completed "${1:-}") || return 1
	[ "$l" = none ] && { echo none; return 0; }
	echo "${l%% *}"
}

# sync_total [DEV]: the TOTAL of sync_completed, or "none".
sync_total() {
	local l
	l=$(sysf sync_completed "${1:-}") || return 1
	[ "$l" = none ] && { echo none; return 0; }
	echo "${l##* }"
}

# is_num V: V is a decimal number.
is_num() {
	[[ $1 =~ ^[0-9]+$ ]]
}

# kname DEV: the kernel's name of block device DEV (/dev/mapper/m1 ->
# dm-1; /dev/ optional); DEV itself when it is no device (any more).
kname() {
	local d=/dev/${1#/dev/} mm
	if [[ $d == /dev/mapper/* ]] && mm=$(majmin "$d" 2>/dev/null); then
		d=$(readlink "/sys/dev/block/$mm")
	fi
	echo "${d##*/}"
}

# dev_states DEV...: "state state ..." of the members with these devices
# in /sys/block/stria0/stria/members; "absent" for a device that is not
# listed.
dev_states() {
	local want r d st _ out=() found
	for want in "$@"; do
		want=$(kname "$want")
		found=absent
		while read -r r d st _; do
			[ "$d" = "$want" ] && { found=$st; break; }
		done </sys/block/stria0/stria/members
		out+=("$found")
	done
	echo "${out[*]}"
}

# dev_role DEV: the role column of DEV's line in the members file.
dev_role() {
	local want r d _
	want=$(kname "$1")
	while read -r r d _; do
		[ "$d" = "$want" ] && { echo "$r"; return 0; }
	done </sys/block/stria0/stria/members
	return 1
}

# role_devs: the devices holding roles 0..N-1 (/dev/NAME, role order),
# whatever their state: lines whose role column is a number.
role_devs() {
	local r d _
	while read -r r d _; do
		is_num "$r" && echo "$r /dev/$d"
	done </sys/block/stria0/stria/members | sort -n | cut -d' ' -f2
}

# all_states: the states of the role members in role order, then of the
# others (spares), e.g. "active active active active | spare".
all_states() {
	local r d st _ roles=() rest=()
	while read -r r d st _; do
		if is_num "$r"; then
			roles[r]=$st
		else
			rest+=("$st")
		fi
	done </sys/block/stria0/stria/members
	echo "${roles[*]}${rest:+ | ${rest[*]}}"
}

# sb_sum DEV...: one checksum of the devices' superblocks (first 4 KiB of
# each: the write-intent bitmap after them changes on its own while the
# array runs), read direct.
sb_sum() {
	local d s
	s=$(for d in "$@"; do
		dd if="$d" bs=4k count=1 iflag=direct status=none
	done | md5sum)
	echo "${s%% *}"
}

# data_sum DEV...: one checksum of the devices' data areas (after the
# first MiB of each), read direct.
data_sum() {
	local d s
	s=$(for d in "$@"; do
		dd if="$d" bs=1M skip=1 iflag=direct status=none
	done | md5sum)
	echo "${s%% *}"
}

# wait_sync NAME [TIMEOUT]: striactl wait NAME, at most TIMEOUT seconds
# (default 120); its exit status (124 on time-out).
wait_sync() {
	timeout "${2:-120}" "$STRIACTL" wait "$1"
}

# rate_kib SECONDS [DEV]: KiB/s by which sync_completed's DONE grew over
# SECONDS; fails (prints why) when no sync ran at both ends.
rate_kib() {
	local a b t0 t1
	a=$(sync_done "${2:-}")
	t0=$EPOCHREALTIME
	sleep "$1"
	b=$(sync_done "${2:-}")
	t1=$EPOCHREALTIME
	if ! is_num "$a" || ! is_num "$b"; then
		echo "no sync running: sync_completed DONE $a -> $b"
		return 1
	fi
	# microseconds, from bash's EPOCHREALTIME (no bc under TCG)
	t0=${t0/./} t1=${t1/./}
	echo $(((b - a) * 1000000 / 2 / (t1 - t0)))
}

# status_json NAME EXPR: EXPR evaluated (python) on striactl status -o json
# NAME, with a = the array's object; lists print space-separated.
status_json() {
	"$STRIACTL" status -o json "$1" | python3 -c 'import json, sys
d = json.load(sys.stdin)
a = d["arrays"][0] if "arrays" in d else d
v = eval(sys.argv[1])
print(" ".join(map(str, v)) if isinstance(v, list) else v)' "$2"
}

# write_sectors DEV: sectors written to DEV so far (/sys/block stat field 7).
write_sectors() {
	local d=$1 f
	[ -L "$d" ] && d=$(readlink -f "$d")
	read -r -a f <"/sys/block/${d#/dev/}/stat" || return 1
	echo "${f[6]}"
}

# dm_wrap NAME DEV: a dm-linear device /dev/mapper/NAME over all of DEV.
dm_wrap() {
	dmsetup create --noudevsync "$1" --table "0 $(blockdev --getsz "$2") linear $2 0" &&
		dmsetup mknodes "$1"
}

# dm_swap NAME TABLE: load TABLE under NAME (suspend, load, always resume).
dm_swap() {
	dmsetup suspend --noudevsync "$1"
	dmsetup load --noudevsync "$1" --table "$2"
	local rc=$?
	dmsetup resume --noudevsync "$1" || rc=1
	return $rc
}

# dm_error NAME: every I/O to /dev/mapper/NAME fails from now on.
dm_error() {
	dm_swap "$1" "0 $(blockdev --getsz "/dev/mapper/$1") error"
}

# parity_pos LEVEL N STRIPE: the roles of P (and Q) in stripe STRIPE of a
# left-symmetric array of N members (md's ALGORITHM_LEFT_SYMMETRIC, as
# drivers/stria/geom.h): P at N-1 - STRIPE % N, Q right after it.
parity_pos() {
	local p=$(($2 - 1 - $3 % $2))
	if [ "$1" = 6 ]; then
		echo "$p $(((p + 1) % $2))"
	else
		echo "$p"
	fi
}

# lap WHAT: a diagnostic with the seconds since the last lap (bash's
# SECONDS), to see where a test spends its time under TCG.
_LAP=0
lap() {
	diag "$1: $((SECONDS - _LAP)) s"
	_LAP=$SECONDS
}

# kill_job PID: end a background job this test started, and reap it.
kill_job() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# repeat_until_stopped CMD...: run CMD again and again until
# /tmp/fio.stop exists (stop_repeating), so that writes stay in flight
# across failures however slow the kernel; exits 1 as soon as a run fails.
# Run it in the background and wait for it after stop_repeating.
repeat_until_stopped() {
	rm -f /tmp/fio.stop
	while :; do
		"$@" || return 1
		[ -e /tmp/fio.stop ] && return 0
	done
}

stop_repeating() {
	touch /tmp/fio.stop
}
