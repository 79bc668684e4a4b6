# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the raid0 tests (a dot file: not a test itself).
# Source with: . "$STRIA_TOP/selftests/tests/raid0/.lib.sh"

STRIACTL=$STRIA_TOP/tools/striactl/striactl

striactl() {
	"$STRIACTL" "$@"
}

# nvme_drives N: the first N emulated NVMe namespaces, one per line, in
# the drives' order (nvme_disks).
nvme_drives() {
	nvme_disks | head -n "$1"
}

# wipe DEV...: zero the superblock area (stale superblocks make tests lie).
wipe() {
	local d
	for d in "$@"; do
		dd if=/dev/zero of="$d" bs=1M count=2 oflag=direct status=none
	done
}

# fio_verify DEV SIZE [extra fio args]: write SIZE bytes per job with
# checksummed blocks and verify them (crc32c, fatal on the first bad block).
# Two jobs in separate regions, mixed block sizes from 4K to 1M.
fio_verify() {
	local dev=$1 size=$2
	shift 2
	fio --name=stria --filename="$dev" --direct=1 --ioengine=libaio \
		--iodepth=16 --numjobs=2 --size="$size" --offset_increment="$size" \
		--rw=randwrite --bssplit=4k/40:64k/30:192k/20:1m/10 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=64 \
		--randseed=1234 --group_reporting "$@"
}

# fio_reverify DEV SIZE: check data written by fio_verify earlier.
fio_reverify() {
	fio_verify "$@" --verify_only
}

# msg_of CMD...: run CMD, print "rc=N" and its output (for message checks).
msg_of() {
	local err rc
	err=$("$@" 2>&1)
	rc=$?
	echo "rc=$rc $err"
}

# expect_refused DESC WANT_RC PATTERN CMD...: CMD fails with exit WANT_RC
# and a message matching PATTERN (grep -E).
expect_refused() {
	local desc=$1 want=$2 pat=$3 out
	shift 3
	out=$(msg_of "$@")
	if [[ $out == "rc=$want "* ]] && grep -qE -- "$pat" <<<"$out"; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "  expected rc=$want and /$pat/"
		diag "  got: $out"
	fi
}

# devnum DEV: "MAJOR,MINOR" in decimal, as the block trace events print it
devnum() {
	majmin "$1" ,
}

# have_hipri: fio can send polled I/O (io_uring with hipri), for requires().
# Debian 12's fio has it: no polled test declares this skip (MAY_SKIP), so
# a fio without it fails them rather than leaving polling untested.
have_hipri() {
	_have_cmd fio || return 1
	fio --enghelp=io_uring 2>/dev/null | grep -q hipri ||
		{ skip_reason "fio has no io_uring engine with hipri"; return 1; }
}

# polled NAME ARGS...: fio io_uring --hipri on the array, 4K blocks.
polled() {
	local name=$1
	shift
	fio --name="$name" --filename=/dev/stria0 --direct=1 --ioengine=io_uring \
		--hipri --iodepth=4 --bs=4k "$@"
}

# reads_of DEV: read requests DEV completed (its stat's first field).
reads_of() {
	local r
	read -r r _ <"/sys/block/${1#/dev/}/stat" && echo "$r"
}

# writes_of DEV: write requests DEV completed (its stat's fifth field).
writes_of() {
	local f
	read -r -a f <"/sys/block/${1#/dev/}/stat" && echo "${f[4]}"
}

# reset_under_polled_reads DRIVE CTRL [DESC CMD...]: polled reads by 4
# tasks at once through the array over DRIVE and the other members,
# DRIVE's controller CTRL reset in the middle (after CMD, checked as DESC,
# if given). fio runs
# until the test has seen DRIVE serve reads after the reset, then stops on
# its trigger file, however long the reset takes on a loaded host; its
# runtime only bounds it. Fails (1) when fio does not end.
reset_under_polled_reads() {
	local drive=$1 ctrl=$2 pid reads0 rc
	shift 2
	rm -f /tmp/fio.stop /tmp/reset.done
	polled reads --rw=randread --size=8M --runtime=600 --time_based \
		--numjobs=4 --trigger-file=/tmp/fio.stop --verify_state_save=0 \
		>"$STRIA_OUT/fio-reads.log" 2>&1 &
	pid=$!
	reads0=$(reads_of "$drive")
	check "the premise: member 0 serves the polled reads" \
		wait_for "[ \$(reads_of $drive) -gt $((reads0 + 100)) ]" 120
	if [ $# -gt 0 ]; then check "$@"; fi
	( echo 1 >"/sys/class/nvme/$ctrl/reset_controller"; touch /tmp/reset.done ) &
	check "reset member 0's controller ($ctrl) under them" \
		wait_for "[ -e /tmp/reset.done ]" 120
	check "the controller is live again" \
		wait_for "[ \"\$(cat /sys/class/nvme/$ctrl/state)\" = live ]" 60
	check "the premise: the reads ran across the reset" kill -0 $pid
	reads0=$(reads_of "$drive")
	check "member 0 serves polled reads again" \
		wait_for "[ \$(reads_of $drive) -gt $((reads0 + 100)) ]" 120
	touch /tmp/fio.stop
	check "fio ends when told to" wait_for "! kill -0 $pid" 120 || {
		kill -KILL $pid
		_show_output "$(cat "$STRIA_OUT/fio-reads.log")"
		diag_lost_queues
		return 1
	}
	wait $pid
	rc=$?
	check_eq "the polled reads end without an error (fio exit status)" 0 "$rc" ||
		_show_output "$(cat "$STRIA_OUT/fio-reads.log")"
}

# polled_rw_verify: polled writes through the array, then polled reads
# that verify them.
polled_rw_verify() {
	check "polled writes through the array verify" \
		polled w --rw=randwrite --size=4M --verify=crc32c --verify_fatal=1
	check "polled reads verify them" \
		polled w --rw=randread --size=4M --verify=crc32c --verify_fatal=1 --verify_only
}

# nvme_timeouts WHAT: how many times the NVMe driver logged a command's
# timeout ending in WHAT (an extended regex): "aborting" and then "reset
# controller" when the drive did not complete it, "disable controller"
# during a reset, "completion polled" when the driver's own poll of the
# queue found its completion (6.1: "I/O 5 QID 3 timeout, aborting"; 6.12:
# "I/O tag 5 (0005) ... QID 3 timeout, aborting req_op...")
nvme_timeouts() {
	dmesg | grep -cE "nvme.* QID [0-9]+ timeout, ($1)"
}

# diag_lost_queues: not a verdict: the NVMe timeouts the kernel logged
# (testing.rst, "Polled I/O: the full record")
diag_lost_queues() {
	diag "NVMe timeouts: $(nvme_timeouts 'aborting|reset controller|disable controller') aborts or resets, $(nvme_timeouts 'completion polled') completions the timeout handler found itself"
}

# two_poll_queues DRIVE...: check that each NVMe drive has two poll queues
# (nvme.poll_queues=2): an admin queue, one per CPU, and the two.
two_poll_queues() {
	local d q=$(($(nproc --all) + 3)) want=()
	for d in "$@"; do
		want+=("$q")
	done
	check_eq "the premise: $* have two poll queues each" "${want[*]}" \
		"$(for d in "$@"; do cat /sys/block/"${d#/dev/}"/device/queue_count; done | xargs)"
}

# polled_raid0 DRIVE0 DRIVE1: stria loaded and a RAID0 of the two drives
# (64K chunks) that polls, each drive with two poll queues (nvme.poll_queues=2).
polled_raid0() {
	two_poll_queues "$1" "$2" || return 1
	wipe "$1" "$2"
	check "insmod stria.ko" stria_load || return 1
	check "create a RAID0 of 2 members, 64K chunks" \
		striactl create r --level 0 --chunk 64K "$1" "$2" || return 1
	check_eq "the array polls" 1 "$(cat /sys/block/stria0/queue/io_poll)"
}
