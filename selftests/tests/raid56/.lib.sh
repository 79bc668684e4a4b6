# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the raid56 tests (a dot file: not a test itself).
# Source with: . "$STRIA_TOP/selftests/tests/raid56/.lib.sh"
#
# The RAID5/6 layout checker, selftests/tools/stria-layout-check.c, is built
# by `make tools` into build/tools/; the guest sees the checkout at the same
# path.

LAYOUT_CHECK=$STRIA_TOP/build/tools/stria-layout-check

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
