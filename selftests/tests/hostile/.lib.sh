# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the hostile-disk tests (a dot file: not a test itself).
# Source with: . "$STRIA_TOP/selftests/tests/hostile/.lib.sh"

. "$STRIA_TOP/selftests/tests/raid0/.lib.sh"
CRAFT=$STRIA_TOP/build/tools/stria-craft
RAWCTL=$STRIA_TOP/build/tools/stria-ioctl-fuzz

# udev_start: udevd with stria's rules, pointing at this checkout's striactl.
udev_start() {
	mkdir -p /run/udev/rules.d
	sed "s|/usr/sbin/striactl|$STRIACTL|g" "$STRIA_TOP/udev/64-stria-assembly.rules" \
		>/run/udev/rules.d/64-stria-assembly.rules
	/lib/systemd/systemd-udevd --daemon --resolve-names=never
	udevadm control --reload
}

# make_stick FILE NR LEVEL [FIELD=VALUE...]: a 64 MiB image (under
# $STRIA_OUT) with an MBR and NR partitions of 16 MiB, each carrying the
# superblock of role 0..NR-1 of one array of LEVEL, data areas exactly
# filling the partitions; FIELD=VALUE (stria-craft) on every superblock.
make_stick() {
	local file=$STRIA_OUT/$1 nr=$2 level=$3 i uuid parts=""
	shift 3
	rm -f "$file"
	truncate -s 64M "$file"
	for ((i = 0; i < nr; i++)); do
		parts+="start=$((2048 + i * 32768)), size=32768, type=da"$'\n'
	done
	printf 'label: dos\n%s' "$parts" | sfdisk -q "$file" >/dev/null || return 1
	uuid=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	for ((i = 0; i < nr; i++)); do
		"$CRAFT" -o $(((2048 + i * 32768) * 512)) "$file" array_uuid="$uuid" \
			level="$level" parity_layout=$((level ? 2 : 0)) nr_members="$nr" \
			role="$i" dev_sectors=32768 data_sectors=30720 "$@" || return 1
	done
	sync
}

# plug FILE ID SLOT NR: plug the stick in; prints its disk (/dev/nvmeXn1)
# once its NR partitions are there and udev has handled them.
plug() {
	local c ctrl ns=""
	host_plug "$1" "$2" "$3" >"$STRIA_OUT/plug-$2" || return 1
	for ((c = 0; c < 300; c++)); do
		for ctrl in /sys/class/nvme/nvme*; do
			[ "$(tr -d ' ' <"$ctrl/serial" 2>/dev/null)" = "$2" ] &&
				ns=$(basename "$ctrl")n1
		done
		[ -n "$ns" ] && break
		sleep 0.2
	done
	[ -n "$ns" ] || return 1
	for ((c = 0; c < 300; c++)); do
		[ -b "/dev/${ns}p$4" ] && break
		sleep 0.2
	done
	udevadm settle --timeout=60
	sleep 1
	udevadm settle --timeout=60
	[ -b "/dev/${ns}p$4" ] && echo "/dev/$ns"
}

# arrays: how many stria arrays are running.
arrays() {
	ls -d /sys/block/stria* 2>/dev/null | wc -l
}

# The slow members of hostile/005 and 006: dm-delay devices slow0..2.

# delay_table DRIVE MS: a dm-delay table over DRIVE's first 32 MiB, reads
# and writes held MS milliseconds each.
delay_table() {
	echo "0 65536 delay $1 0 $2 $1 0 $2"
}

# set_delay MS DRIVE...: reload slow0.. with a delay of MS.
set_delay() {
	local ms=$1 i=0 d
	shift
	for d in "$@"; do
		dmsetup suspend --noudevsync "slow$i" &&
			dmsetup reload --noudevsync "slow$i" --table "$(delay_table "$d" "$ms")" &&
			dmsetup resume --noudevsync "slow$i" || return 1
		i=$((i + 1))
	done
}

# queued EXPR: the sum over slow0..2 of awk EXPR on dm-delay's status line
# (its fields after the table: $4 reads held, $5 writes, $6 flushes)
queued() {
	local i n=0
	for i in 0 1 2; do
		n=$((n + $(dmsetup status "slow$i" | awk "{print $1}")))
	done
	echo $n
}

# queued_reads: reads dm-delay holds on slow0..2 now
queued_reads() {
	queued '$4'
}

# queued_writes: member writes and flushes dm-delay holds on slow0..2 now
queued_writes() {
	queued '$5 + $6'
}

# ends_within PID SECONDS: PID is gone within SECONDS
ends_within() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}
