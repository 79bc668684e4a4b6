# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the monitor tests (a dot file: not a test itself):
# striactl monitor running in the background with every channel caught.
#   - syslog: a listener on /dev/log (the guest has no syslog daemon),
#     one datagram a line in /tmp/syslog.txt;
#   - PROGRAM: /tmp/program, which appends its arguments and STRIA_*
#     variables to /tmp/program.log;
#   - mail: /tmp/sendmail (--sendmail), which keeps each mail as
#     /tmp/mail/N;
#   - stdout: one JSON object a line (-o json), $STRIA_OUT/events.jsonl.
# Source after rebuild/.lib.sh.

EVENTS=$STRIA_OUT/events.jsonl
MON_PID=
SYSLOG_PID=

# mon_setup: the program, the sendmail, the syslog listener, the config.
mon_setup() {
	mkdir -p /tmp/mail
	cat >/tmp/program <<-'EOF'
	#!/bin/sh
	echo "$*|role=${STRIA_MEMBER_ROLE:-}|state=$STRIA_ARRAY_STATE|name=$STRIA_NAME|sev=$STRIA_SEVERITY" >>/tmp/program.log
	EOF
	cat >/tmp/sendmail <<-'EOF'
	#!/bin/sh
	[ "$*" = "-t -oi" ] || { echo "sendmail: unexpected arguments: $*" >&2; exit 64; }
	n=$(ls /tmp/mail | wc -l)
	cat >/tmp/mail/$n
	EOF
	chmod +x /tmp/program /tmp/sendmail
	cat >/tmp/stria.conf <<-'EOF'
	# what the monitor tests use
	MAILADDR ops@example.com
	PROGRAM /tmp/program
	EOF
	rm -f /dev/log
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
with open("/tmp/syslog.txt", "a") as f:
    print("listening", file=f, flush=True)
    while True:
        print(s.recv(4096).decode(errors="replace"), file=f, flush=True)
' &
	SYSLOG_PID=$!
	wait_for "[ -S /dev/log ] && grep -q listening /tmp/syslog.txt" 30
}

# mon_start [ARGS]: striactl monitor -o json in the background, its
# events appended to $EVENTS; returns once it follows the arrays (it says
# so in syslog).
mon_start() {
	local n
	n=$(grep -c "monitoring [0-9]* stria array" /tmp/syslog.txt 2>/dev/null)
	"$STRIACTL" monitor -o json --config /tmp/stria.conf --sendmail /tmp/sendmail \
		--delay 5 "$@" >>"$EVENTS" 2>>"$STRIA_OUT/monitor.err" &
	MON_PID=$!
	wait_for "[ \$(grep -c 'monitoring [0-9]* stria array' /tmp/syslog.txt) -gt ${n:-0} ]" 30
}

mon_stop() {
	kill_job "$MON_PID"
	MON_PID=
}

mon_cleanup() {
	[ -n "$MON_PID" ] && kill_job "$MON_PID"
	[ -n "$SYSLOG_PID" ] && kill_job "$SYSLOG_PID"
	rm -f /dev/log
}

# ev_count PATTERN...: lines of $EVENTS that hold every PATTERN (literal
# substrings such as '"event":"MemberFailed"' '"role":1').
ev_count() {
	local l p n=0 hit
	while IFS= read -r l; do
		hit=1
		for p in "$@"; do
			[[ $l == *"$p"* ]] || { hit=0; break; }
		done
		n=$((n + hit))
	done <"$EVENTS"
	echo "$n"
}

# ev_wait DESC PATTERN...: ok once $EVENTS has a line with every
# PATTERN (within 60 s).
ev_wait() {
	local desc=$1 p q=
	shift
	for p in "$@"; do
		q+=" $(printf '%q' "$p")"
	done
	if wait_for "[ \$(ev_count$q) -ge 1 ]" 60; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "  no event with: $*"
		_show_output "$(tail -n 8 "$EVENTS")"
	fi
}

# scan_wait DESC PATTERN...: ev_wait on $SCAN (a monitor that only
# re-reads sysfs), for an event it found itself ("source":"scan").
scan_wait() {
	local desc=$1
	shift
	EVENTS=$SCAN ev_wait "re-reads: $desc" '"source":"scan"' "$@"
}

# ev_once DESC PATTERN...: exactly one line of $EVENTS has every PATTERN.
ev_once() {
	check_eq "$1" 1 "$(shift; ev_count "$@")"
}

# pollers SECONDS FILE... -- CONTROL...: poll(2) each
# /sys/block/stria0/stria/FILE and CONTROL for POLLPRI (sysfs_notify)
# after reading it, until every FILE woke or SECONDS passed; print "NAME
# woke" or "NAME slept" for each. Ready when /tmp/pollers.ready exists.
pollers() {
	/usr/bin/python3 -c '
import select, sys, time
files, want = {}, True
p = select.poll()
for name in sys.argv[2:]:
    if name == "--":
        want = False
        continue
    f = open("/sys/block/stria0/stria/" + name)
    f.read()
    p.register(f, select.POLLPRI | select.POLLERR)
    files[f.fileno()] = [name, f, "slept", want]
open("/tmp/pollers.ready", "w").close()
end = time.time() + float(sys.argv[1])
while time.time() < end and any(v[2] == "slept" and v[3] for v in files.values()):
    for fd, ev in p.poll(500):
        files[fd][2] = "woke"
        p.unregister(fd)
for name, f, what, _ in files.values():
    print(name, what)' "$@"
}

# kname_of DEV: the kernel's name of block device DEV (/dev/nvme3n1 ->
# nvme3n1).
kname_of() {
	echo "${1#/dev/}"
}

# json_lines FILE: every line of FILE is one JSON object (python).
json_lines() {
	/usr/bin/python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    obj = json.loads(line)
    assert isinstance(obj, dict), line
    assert {"time", "event", "severity", "source", "array", "device",
            "message"} <= obj.keys(), line
    n += 1
assert n, "no events"
print(n, "events")' "$1"
}
