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
	local maj min
	read -r maj min < <(stat -L -c '%t %T' "$1")
	printf '%d,%d' "0x$maj" "0x$min"
}
