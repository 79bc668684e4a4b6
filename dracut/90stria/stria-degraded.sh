#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dracut initqueue/timeout hook: run while the root file system has not
# appeared, two thirds into the time dracut waits for it (rd.retry=
# seconds, 180 by default: after 120 s). Members still missing by then
# are taken for gone: every incomplete array is started degraded, if its
# level tolerates the missing members (striactl assemble --scan --run),
# once. An array that was not stopped cleanly is never started degraded
# here (the write hole): the boot stops in the emergency shell, where
# 'striactl assemble --scan --run --force' starts it.
[ -e /dev/stria-control ] || return 0
[ -f /run/stria.initrd ] && return 0
: >/run/stria.initrd
echo "stria: members still missing: starting incomplete arrays degraded"
/usr/sbin/striactl assemble --scan --run
# something may have appeared: dracut's wait starts afresh (hookdir is
# dracut's)
# shellcheck disable=SC2154
: >"$hookdir/initqueue/work"
