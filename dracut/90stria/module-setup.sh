#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dracut module: what the initramfs needs to start stria arrays before
# the root file system is mounted, as dracut's 90mdraid does for md and
# stria's initramfs-tools hook does on Debian: the module, striactl (the
# static build when it is installed, so no library comes along; at the
# path make install gave it), the udev rules that start an array once all
# its members are there, /etc/stria/stria.conf (with this host's name as
# HOMEHOST), stria-load.sh (loads the module before udev announces the
# block devices) and stria-degraded.sh (starts what is still incomplete
# after a while, degraded). Run by dracut, which reads it from
# /usr/lib/dracut/modules.d/90stria.
#
# dracut sets dracutsysrootdir, host_devs, host_fs_types, initdir and
# moddir:
# shellcheck disable=SC2154

# called by dracut: in a generic initramfs whenever striactl is
# installed; in host-only mode when a file system the host needs is on a
# stria array (or a partition of one), or when asked for (--add stria)
check() {
	local dev majmin
	[ -x "$dracutsysrootdir/usr/sbin/striactl" ] || return 1
	if [[ $hostonly ]] || [[ $mount_needs ]]; then
		for dev in "${host_devs[@]}" "${!host_fs_types[@]}"; do
			case $dev in
			[0-9]*:[0-9]*) majmin=$dev ;;
			*) majmin=$(get_maj_min "$dev") || continue ;;
			esac
			[ -d "/sys/dev/block/$majmin/stria" ] && return 0
			[ -d "/sys/dev/block/$majmin/../stria" ] && return 0
		done
		return 255
	fi
	return 0
}

# called by dracut
depends() {
	echo rootfs-block
	return 0
}

# called by dracut: the members' drivers come with host-only mode's
# drivers of the root's devices (an array's members are its slaves) or,
# without it, with the storage drivers dracut takes anyway
installkernel() {
	instmods stria
}

# homehost_conf FILE: name this host as HOMEHOST in the initramfs's
# stria.conf, unless it does already. The initramfs runs without a host
# name, so arrays created here (their superblocks record this host) would
# count as another host's there and not start. Only a name stria.conf takes
# as HOMEHOST (1 to 63 of A-Z a-z 0-9 . -, not starting with . or -) is
# written.
homehost_conf() {
	local conf=$1 host shown
	grep -qi '^[[:space:]]*homehost[[:space:]]' "$conf" 2>/dev/null && return 0
	host=$(hostname 2>/dev/null || true)
	case $host in
	"" | "(none)" | [.-]* | *[!A-Za-z0-9.-]*) host= ;;
	esac
	if [ -n "$host" ] && [ "${#host}" -le 63 ]; then
		printf '\n# added by the stria dracut module: the host the arrays were created on\nHOMEHOST %s\n' \
			"$host" >>"$conf"
	else
		shown=$(printf '%s' "$host" | tr -c 'A-Za-z0-9.()-' '?')
		dwarn "stria: host name '$shown' is not usable as HOMEHOST (1 to 63 of A-Z a-z 0-9 . -): arrays that record a home host start in the initramfs only if stria.conf lists them (ARRAY) or allows them (AUTO)"
	fi
}

# called by dracut
install() {
	local sbin=/usr/sbin conf
	if [ -x "$dracutsysrootdir/usr/lib/stria/striactl.static" ]; then
		inst_simple /usr/lib/stria/striactl.static /usr/sbin/striactl
	else
		inst_binary /usr/sbin/striactl
	fi
	# on the PATH of the emergency shell too, whatever make install's PREFIX
	[ -e "$initdir$sbin/striactl" ] || ln_r /usr/sbin/striactl "$sbin/striactl"
	inst_rules 64-stria-assembly.rules

	mkdir -p "$initdir/etc/stria"
	conf=$initdir/etc/stria/stria.conf
	if [ -f "$dracutsysrootdir/etc/stria/stria.conf" ]; then
		cp "$dracutsysrootdir/etc/stria/stria.conf" "$conf"
	fi
	homehost_conf "$conf"

	inst_hook pre-trigger 30 "$moddir/stria-load.sh"
	inst_hook initqueue/timeout 50 "$moddir/stria-degraded.sh"
	dracut_need_initqueue
}
