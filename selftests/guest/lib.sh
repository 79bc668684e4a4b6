# SPDX-License-Identifier: GPL-2.0
#
# Helpers for stria selftests, sourced before the test file (see
# selftests/README.md). TAP goes to fd 3; everything else a test prints
# goes to the console log that is saved when a test fails.

_TAPN_FILE=$STRIA_OUT/.tapcount

_tap() {
	printf '%s\n' "$*" >&3
}

_next() {
	local n=0
	[ -f "$_TAPN_FILE" ] && n=$(cat "$_TAPN_FILE")
	n=$((n + 1))
	echo "$n" >"$_TAPN_FILE"
	echo "$n"
}

# diag MSG: a TAP comment (also on the console).
diag() {
	echo "# $*"
	_tap "# $*"
}

# ok DESC / not_ok DESC: report one result.
ok() {
	_tap "ok $(_next) - $*"
}

not_ok() {
	_tap "not ok $(_next) - $*"
	echo "not ok: $*"
}

# _show_output OUT: the last lines of a failed command's output, as diagnostics.
_show_output() {
	printf '%s\n' "$1" | tail -n 20 | while IFS= read -r l; do diag "  $l"; done
}

# check DESC CMD...: run CMD; ok when it exits 0. Its output becomes
# diagnostics when it fails.
check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$desc"
	else
		not_ok "$desc (exit $rc)"
		_show_output "$out"
	fi
	return $rc
}

# expect_fail DESC CMD...: ok when CMD fails.
expect_fail() {
	local desc=$1 out
	shift
	if ! out=$("$@" 2>&1); then
		ok "$desc"
		return 0
	fi
	not_ok "$desc (unexpectedly succeeded)"
	_show_output "$out"
	return 1
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "  expected: $2"
		diag "  actual:   $3"
		return 1
	fi
}

# skip_reason MSG: why requires() returns 1.
skip_reason() {
	_SKIP_REASON=$*
	return 1
}

_have_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || { skip_reason "command $c not installed"; return 1; }
	done
}

_have_module() {
	local m
	for m in "$@"; do
		modinfo "$m" >/dev/null 2>&1 || { skip_reason "module $m not available on $(uname -r)"; return 1; }
	done
}

_have_debug_kernel() {
	[ "$STRIA_KERNEL" = debug ] || { skip_reason "needs the debug kernel"; return 1; }
}

# stria_load [PARAMS]: load the stria.ko built for the running kernel.
stria_load() {
	modprobe -q raid6_pq 2>/dev/null
	modprobe -q libcrc32c 2>/dev/null
	modprobe -q xor 2>/dev/null
	insmod "$STRIA_KMOD_DIR/stria.ko" "$@" || return
	_save_module_syms stria
}

# Where kmemleak is (the debug kernel), the runner fails a test that leaks
# memory allocated by stria (selftests/lib/striatest/kmemleak.py): the
# guest scans once the test is over, if it loaded one of the project's
# modules. An object is reported by the scan after the one that first saw
# it (the first records its checksum: one that changed since is not a
# leak yet), so it scans twice; objects younger than 5 s when a scan
# starts are left for later, so it waits that long first (a scan can take
# less on a fast host: CI's missed the leaking control's leak).
KMEMLEAK=/sys/kernel/debug/kmemleak

# _save_module_syms MODULE: keep MODULE's text symbols as loaded now: a
# leak read after the module is unloaded shows its frames as bare addresses.
_save_module_syms() {
	local n=0
	[ -e "$KMEMLEAK" ] || return 0
	while [ -e "$STRIA_OUT/modsyms.$1.$STRIA_BOOT.$n" ]; do n=$((n + 1)); done
	grep "\[$1\]\$" /proc/kallsyms >"$STRIA_OUT/modsyms.$1.$STRIA_BOOT.$n"
	return 0
}

# _kmemleak_scan: scan for leaks; the report goes to $STRIA_OUT/kmemleak.BOOT.
# A kmemleak that cannot scan (it turns itself off when it runs out of
# memory for its metadata) fails the test: it would hide a leak.
_kmemleak_scan() {
	local f=$STRIA_OUT/kmemleak.$STRIA_BOOT t0
	[ -e "$KMEMLEAK" ] || return 0
	compgen -G "$STRIA_OUT/modsyms.*" >/dev/null || compgen -G "/sys/module/stria*" >/dev/null ||
		return 0
	sleep 6	# kmemleak's MSECS_MIN_AGE is 5 s
	t0=$SECONDS
	if ! { echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK" &&
		cat "$KMEMLEAK" >"$f"; } 2>/dev/null; then
		not_ok "kmemleak scan (is kmemleak still on? see the kernel log)"
		return 1
	fi
	diag "kmemleak: $(grep -c '^unreferenced object' "$f") unreferenced object(s) in the kernel after $((SECONDS - t0)) s (only those of stria's modules fail the test)"
}

# host_cmd CMD [ARGS]: ask the harness on the host to do something (see
# selftests/lib/striatest/runner.py) and print its answer. The request
# number lives in a file, so calls from subshells (check ...) stay unique.
host_cmd() {
	local i seq=0 f=$STRIA_OUT/.hostseq.$STRIA_BOOT
	[ -f "$f" ] && seq=$(cat "$f")
	seq=$((seq + 1))
	echo "$seq" >"$f"
	local ack=$STRIA_OUT/ack.$STRIA_BOOT.$seq
	_tap "#@host $STRIA_BOOT.$seq $*"
	for ((i = 0; i < 600; i++)); do
		if [ -f "$ack" ]; then
			cat "$ack"
			grep -q '"error"' "$ack" && return 1
			return 0
		fi
		sleep 0.1
	done
	echo "host_cmd: no answer from the host for: $*" >&2
	return 1
}

# host_qmp JSON: run one QMP command on this VM's monitor.
host_qmp() {
	host_cmd qmp "$1"
}

# host_unplug ID: hot-remove device ID (nvme0, nvme1, ...) as if pulled.
host_unplug() {
	host_cmd qmp "{\"execute\": \"device_del\", \"arguments\": {\"id\": \"$1\"}}"
}

# host_plug FILE ID SLOT: plug the image FILE (written under $STRIA_OUT)
# into empty slot hpSLOT (the test says VM_HOTPLUG=N) as a new NVMe drive
# with serial ID, as if someone inserted a disk: the kernel, udev and stria
# see it appear like any other.
host_plug() {
	host_qmp "{\"execute\": \"blockdev-add\", \"arguments\": {\"driver\": \"raw\", \"node-name\": \"$2\", \"file\": {\"driver\": \"file\", \"filename\": \"$STRIA_HOST_OUT/$1\"}}}" &&
		host_qmp "{\"execute\": \"device_add\", \"arguments\": {\"driver\": \"nvme\", \"id\": \"$2\", \"serial\": \"$2\", \"drive\": \"$2\", \"bus\": \"hp$3\"}}"
}

# host_profile_begin NAME / host_profile_end NAME [IOS [TOP]]: count the
# instructions the guest runs between the two calls (the test says
# VM_PROFILE=1: a TCG plugin counts them; counts, not time). The profile,
# by module and by function (the TOP functions, default 40) and per I/O
# when IOS is given, goes to $STRIA_OUT/NAME.txt; the raw counts to
# $STRIA_OUT/NAME.
host_profile_begin() {
	host_cmd profile begin "$1" >/dev/null
}

host_profile_end() {
	host_profile_stop "$1" && host_profile_report "$@"
}

# host_profile_stop NAME / host_profile_report NAME [IOS [TOP]]: the two
# halves of host_profile_end, for a test that must work out IOS (parse
# fio's output, say) after the window has closed, so that the work of
# doing so is not counted in it
host_profile_stop() {
	host_cmd profile end "$1" >/dev/null
}

host_profile_report() {
	local name=$1 ios=${2:-0} top=${3:-40}
	# modules come and go between profiles: their symbols as of now
	cat /proc/kallsyms >"$STRIA_OUT/$name.kallsyms"
	"$STRIA_TOP/selftests/tools/stria-profile" --ios "$ios" --top "$top" "$STRIA_OUT/$name" \
		"$STRIA_OUT/$name.kallsyms" >"$STRIA_OUT/$name.txt"
}

# host_kill: power loss. The VM dies at once; the harness boots it again
# with the same disks and runs test_main with STRIA_BOOT incremented.
host_kill() {
	sync_log=$STRIA_OUT/killed.$STRIA_BOOT
	: >"$sync_log"
	_tap "#@host $STRIA_BOOT.kill kill"
	sleep 600
}

# host_boot INITRD APPEND [WITHOUT [TIMEOUT]]: power the VM off and boot a
# system the test made itself: the test's kernel with INITRD (a file name
# in $STRIA_OUT), APPEND added to its command line, and the drives but
# those numbered in WITHOUT ("3", "1 2"). No test runs there: its console
# is saved as $STRIA_OUT/console.N (N = $STRIA_BOOT + 1). When it powers
# off, or after TIMEOUT seconds (default 300), the harness boots the test
# again with STRIA_BOOT = N + 1 and all the drives. Returns 1 (with the
# harness's reason) only when the request is refused.
host_boot() {
	local w without=""
	for w in ${3:-}; do without+=${without:+,}$w; done
	host_cmd boot "{\"initrd\": \"$1\", \"append\": \"$2\", \"without\": [$without], \"timeout\": ${4:-300}}" &&
		sleep 600
}

# host_reboot: a plain reboot, as "reboot -f" does it: reboot(2) with
# RB_AUTOBOOT, so the kernel's reboot notifiers run (host_kill is a power
# loss, which runs none). The harness boots the VM again with the same
# disks and runs test_main with STRIA_BOOT incremented.
host_reboot() {
	host_cmd reboot >/dev/null || return 1
	_tap "# rebooting"
	sync
	python3 -c 'import ctypes; ctypes.CDLL(None, use_errno=True).reboot(0x01234567)'
	sleep 600
}

# majmin DEV [SEP]: block device DEV's number in decimal, "MAJOR:MINOR" (as
# /sys/dev/block and striactl take it), or MAJOR SEP MINOR.
majmin() {
	local maj min
	read -r maj min < <(stat -L -c '%t %T' "$1") || return 1
	printf '%d%s%d' "0x$maj" "${2-:}" "0x$min"
}

# wait_for COND_CMD [TIMEOUT_S]: poll until COND_CMD succeeds.
wait_for() {
	local t=${2:-30} i
	for ((i = 0; i < t * 10; i++)); do
		eval "$1" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# wait_clean [N]: RAID5/6 striaN (default 0) is idle and its superblocks
# say so (safe mode): wait for it before comparing superblocks, which the
# change to clean rewrites (events + 1) a moment after the last write.
wait_clean() {
	wait_for "[ \"\$(cat /sys/block/stria${1:-0}/stria/array_state)\" = clean ]" 30
}

# safe_mode_off [N]: RAID5/6 striaN (default 0) stays active while it runs
# (safe_mode_delay_ms 0): for a test that needs it dirty when the power
# goes, holds its superblock writes, or measures writes without the first
# write after an idle spell waiting for the superblocks.
safe_mode_off() {
	echo 0 >"/sys/block/stria${1:-0}/stria/safe_mode_delay_ms"
}

# nvme_disks: the NVMe namespaces in the order of the drives on the QEMU
# command line (their serials, stria0000 up), the same on every boot: the
# kernel names them in the order their controllers finish probing, which
# 6.12 does in parallel, so nvme0n1 is not always the first drive.
nvme_disks() {
	local d serial
	for d in /sys/block/nvme*n1; do
		[ -e "$d" ] || continue
		serial=$(tr -d ' ' <"$d/device/serial" 2>/dev/null)
		echo "${serial:-~} ${d##*/}"
	done | sort -V | while read -r _ d; do echo "/dev/$d"; done
}

# nullb_create NAME SIZE_MB: a memory-backed null_blk device through configfs.
nullb_create() {
	local d=/sys/kernel/config/nullb/$1
	modprobe null_blk nr_devices=0 || return 1
	mkdir "$d" || return 1
	echo "$2" >"$d/size"
	echo 1 >"$d/memory_backed"
	echo 4096 >"$d/blocksize"
	echo 1 >"$d/power"
}

# The VM-level setup a test asked for in its header.
_vm_setup() {
	local i
	[ -n "${STRIA_HOST_TEST:-}" ] && return 0
	for ((i = 0; i < ${VM_NULLB:-0}; i++)); do
		nullb_create "nullb$i" "${VM_NULLB_SIZE_MB:-256}" || return 1
	done
	if [ "${VM_NVME:-0}" -gt 0 ]; then
		modprobe nvme || return 1
		wait_for "[ \$(nvme_disks | wc -l) -ge ${VM_NVME} ]" 60 ||
			{ echo "only $(nvme_disks | wc -l) of $VM_NVME NVMe drives appeared"; return 1; }
	fi
	return 0
}

# member_irqs: interrupts the NVMe drives' I/O queues raised so far (the
# admin queues, q0, left out).
member_irqs() {
	awk '/nvme[0-9]+q[1-9]/ {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i
	} END { print s + 0 }' /proc/interrupts
}

# fio_ios JSON [MIN]: I/Os the run completed (reads, verify reads and
# writes); with MIN, fails unless every job of the run completed at least
# MIN of them.
fio_ios() {
	python3 - "$1" "${2:-0}" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("{"):])	# after fio's warnings, if any
ios = {j["jobname"] + "." + str(n): sum(j[k]["total_ios"] for k in ("read", "write"))
       for n, j in enumerate(d["jobs"])}
print(sum(ios.values()))
few = {k: v for k, v in ios.items() if v < int(sys.argv[2])}
sys.exit(f"jobs with fewer than {sys.argv[2]} I/Os: {few}" if few else 0)
PY
}

# polled_tasks DEV SECONDS [OFFSET_MB]: several tasks polling DEV at once,
# as a server's would: io_uring --hipri, 4K blocks; 3 tasks reading the
# first 16M at QD1 and QD16 (2 of them) for SECONDS, and 2 writing, at QD1
# and QD16, each over its own 4M region from OFFSET_MB (default 16) until
# SECONDS are up, every block crc32c-checked while they write
# (verify_backlog) and at the end (verify_fatal). Checks that fio ends
# without an I/O or verify error, that every task completed I/O (how much
# depends on the host's load: under KASAN on a loaded host a QD1 writer
# completed 42 in 10 s), and that the NVMe members' I/O was polled
# (interrupts fewer than a tenth of the array's I/Os). fio's report:
# $STRIA_OUT/polled-tasks.json.
polled_tasks() {
	polled_tasks_start "$@" && polled_tasks_wait --all
}

# polled_tasks_start DEV SECONDS [OFFSET_MB] / polled_tasks_wait
# --all|--may-fail|--irqs: polled_tasks in two halves, for a test that does
# something while the tasks poll. --all: every check of polled_tasks;
# --may-fail: only checks that fio ends
# (the test expects I/O errors: a member pulled from a RAID0); --irqs:
# leaves out the check that the members raised no interrupts (a reset
# re-creates the drive's queues, and requeues commands by interrupt).
polled_tasks_start() {
	local dev=$1 secs=$2 off=${3:-16}
	_PT_IRQS=$(member_irqs)
	_PT_SECS=$secs
	fio --output-format=json --output="$STRIA_OUT/polled-tasks.json" - \
		>"$STRIA_OUT/polled-tasks.err" 2>&1 <<-F &
	[global]
	filename=$dev
	direct=1
	ioengine=io_uring
	hipri=1
	bs=4k
	randseed=4321
	rw=randread
	size=16M
	runtime=$secs
	time_based
	[read-qd1]
	iodepth=1
	[read-qd16]
	iodepth=16
	numjobs=2
	; a [global] section applies to the jobs after it (fio's job files)
	[global]
	rw=randwrite
	size=4M
	time_based=0
	loops=100000
	verify=crc32c
	verify_fatal=1
	verify_backlog=32
	[write-qd1]
	iodepth=1
	offset=${off}M
	[write-qd16]
	iodepth=16
	offset=$((off + 4))M
	F
	_PT_PID=$!
}

polled_tasks_wait() {
	local json=$STRIA_OUT/polled-tasks.json rc n
	check "5 polling tasks end (3 readers, 2 verified writers, $_PT_SECS s)" \
		wait_for "! kill -0 $_PT_PID" $((_PT_SECS + 120)) || {
		kill -KILL "$_PT_PID"
		return 1
	}
	wait "$_PT_PID"
	rc=$?
	[ "${1:-}" = --may-fail ] && return 0
	check_eq "fio's exit status: no I/O or verify error" 0 "$rc" ||
		{ _show_output "$(cat "$STRIA_OUT/polled-tasks.err" "$json")"; return 1; }
	check "every polling task completed I/O" fio_ios "$json" 1 || return 1
	[ "${1:-}" = --irqs ] && return 0
	n=$(fio_ios "$json")
	check "the members' I/O was polled ($n array I/Os, $(($(member_irqs) - _PT_IRQS)) member interrupts)" \
		test $(($(member_irqs) - _PT_IRQS)) -lt $((n / 10))
}
