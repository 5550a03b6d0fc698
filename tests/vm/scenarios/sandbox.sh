#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Landlock self-sandbox on the real kernel (issue 11), as root in the VM:
#  1. --once -v reports the sandbox (Landlock ABI N), and under it the pass still does its
#     work: recompressed slots, the state file and the metrics file in their directories;
#  2. the daemon (metrics-file in m1) says it is confined; a SIGHUP moves metrics-file to m2:
#     the daemon warns that a restart is needed, and its next writes there fail with EACCES
#     (root may write m2 otherwise: nothing but the sandbox stops it); m2 stays empty;
#  3. control: the same with --no-sandbox writes the file in the new directory;
#  4. its rules are the zram devices' own directories, not their parent, which holds the loop
#     devices too: in a root whose zram device is the real one, but whose idle attribute links
#     to a loop device's queue/read_ahead_kb, the daemon's idle write is refused with EACCES;
#     with --no-sandbox it reaches the loop device (which refuses "all": EINVAL).
# No test hook: the write outside is one the daemon makes itself because its configuration
# asks for it.
. /vm/lib.sh
need_recompd

N=2048
zram_add
A=$Z
zset "$A" recomp_algorithm "algo=zstd priority=1"
zset "$A" disksize 64M
load "$A" "$DATA/pages.bin" 0 "$N" 0
mkdir -p "$WORK/m1" "$WORK/m2" "$WORK/m3"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
expect_eq "uid" "$(id -u)" 0

# 1. --once
conf "$WORK/o.conf" "devices = $A" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
	"metrics-file = $WORK/m1/once.prom"
run_recompd "$WORK/once.out" -v --config "$WORK/o.conf" --once --device "$A"
expect_eq "--once exit code" "$RC" 0
abi=$(sed -n 's/^zram-recompd: debug: sandbox: Landlock ABI \([0-9]*\): writes allowed only .*/\1/p' \
	"$WORK/once.out")
[ -n "$abi" ] || fail "--once is not sandboxed: $(grep sandbox "$WORK/once.out")"
# 6.12 brought ABI 6 (scopes); both kernels of the tier have at least that.
[ "$abi" -ge 6 ] || fail "Landlock ABI $abi on $KREL, expected 6 or later"
r=$(bs_count "$A" r)
[ "$r" -gt 0 ] || fail "no recompressed slot after the sandboxed --once"
[ -s "$WORK/state/state" ] || fail "--once saved no state file under the sandbox"
grep -q "^zram_recompd_" "$WORK/m1/once.prom" || fail "--once wrote no metrics file"

# 2. and 3.: the daemon, sandboxed and not.
daemon_run() { # NAME METRICS-DIR-AFTER-RELOAD ARGS...
	_n=$1
	_to=$2
	shift 2
	conf "$WORK/$_n.conf" "devices = $A" "recompress-algorithms = zstd" "passes = idle" \
		"interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
		"cpu-share-max-percent = 0" "pages-per-hour = 0" "psi-cpu-max-percent = 0" \
		"memory-stall-us = 0" "defer-on-battery = no" "metrics-file = $WORK/m1/$_n.prom"
	start_daemon "$WORK/$_n.log" --config "$WORK/$_n.conf" "$@"
	wait_log "running on Linux" 1 10 || fail "$_n: the daemon did not start"
	wait_log "^zram-recompd: $A: pass:" 1 30 || fail "$_n: no pass"
	_i=0
	until [ -s "$WORK/m1/$_n.prom" ]; do
		_i=$((_i + 1))
		[ $_i -le 100 ] || fail "$_n: no metrics file in m1 after a pass"
		usleep 100000
	done
	conf "$WORK/$_n.conf" "devices = $A" "recompress-algorithms = zstd" "passes = idle" \
		"interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
		"cpu-share-max-percent = 0" "pages-per-hour = 0" "psi-cpu-max-percent = 0" \
		"memory-stall-us = 0" "defer-on-battery = no" "metrics-file = $_to/$_n.prom"
	kill -HUP "$DPID"
	wait_log "configuration reloaded" 1 10 || fail "$_n: no reload after SIGHUP"
	_p=$(log_count "^zram-recompd: $A: pass:")
	wait_log "^zram-recompd: $A: pass:" $((_p + 2)) 30 || fail "$_n: no two passes after the reload"
	stop_daemon
	expect_eq "$_n: exit code after SIGTERM" "$RC" 0
	sed "s/^/[$T]   | /" "$DLOG"
	LOG=$DLOG
	DLOG=
}

daemon_run d "$WORK/m2"
grep -q "running on Linux .*; writes confined by Landlock (ABI $abi)\$" "$LOG" ||
	fail "the daemon is not sandboxed: $(grep 'running on' "$LOG")"
grep -qF "warning: metrics-file $WORK/m2/d.prom: its directory is outside the sandbox set up at start" \
	"$LOG" || fail "no warning about the metrics directory at the reload"
grep -qF "warning: metrics-file $WORK/m2/d.prom: Permission denied" "$LOG" ||
	fail "the write to the new metrics directory did not fail with EACCES"
[ -z "$(ls -A "$WORK/m2")" ] || fail "written outside the sandbox: $(ls "$WORK/m2")"
# The state directory is still written after the reload (allowed).
[ "$(state_field "$A" passes)" -ge 3 ] || fail "state file: passes=$(state_field "$A" passes)"

daemon_run n "$WORK/m3" --no-sandbox
grep -q "running on Linux .*; not sandboxed (--no-sandbox)\$" "$LOG" ||
	fail "--no-sandbox: $(grep 'running on' "$LOG")"
[ -s "$WORK/m3/n.prom" ] || fail "--no-sandbox: the new metrics directory was not written"
grep -q "Permission denied" "$LOG" && fail "--no-sandbox: a write failed with EACCES"
# 4. The root: proc and the real sysfs directories bound in, sys/block/$A a directory of links
# to the real device's attributes, its idle one to the loop device's read_ahead_kb instead.
backing_loop 1M
LO=${L#/dev/}
RA=/sys/devices/virtual/block/$LO/queue/read_ahead_kb
[ -w "$RA" ] || fail "$RA: no such attribute"
ra0=$(cat "$RA")
R=$WORK/root
for d in proc sys/devices sys/class sys/module sys/kernel/debug; do
	mkdir -p "$R/$d"
	mount -o bind "/$d" "$R/$d" || fail "mount -o bind /$d $R/$d failed"
	MOUNTS="$R/$d $MOUNTS"
done
mkdir -p "$R/sys/block/$A"
for f in /sys/block/$A/*; do
	ln -s "/sys/devices/virtual/block/$A/${f##*/}" "$R/sys/block/$A/${f##*/}"
done
rm -f "$R/sys/block/$A/idle"
ln -s "$RA" "$R/sys/block/$A/idle"
loop_run() { # NAME ARGS...
	_n=$1
	shift
	conf "$WORK/$_n.conf" "devices = $A" "recompress-algorithms = zstd" "passes = idle" \
		"interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
		"cpu-share-max-percent = 0" "pages-per-hour = 0" "psi-cpu-max-percent = 0" \
		"memory-stall-us = 0" "defer-on-battery = no"
	start_daemon "$WORK/$_n.log" --sysroot "$R" --config "$WORK/$_n.conf" "$@"
	wait_log "running on Linux" 1 10 || fail "$_n: the daemon did not start"
	wait_log "$A: idle: " 1 30 || fail "$_n: no idle write"
	stop_daemon
	sed "s/^/[$T]   | /" "$DLOG"
	LOG=$DLOG
	DLOG=
}
loop_run l
grep -q "running on Linux .*; writes confined by Landlock (ABI $abi)\$" "$LOG" ||
	fail "root with the loop link: not sandboxed: $(grep 'running on' "$LOG")"
grep -q "^zram-recompd: error: $A: idle: not writable (Permission denied)" "$LOG" ||
	fail "the idle write to $RA was not refused with EACCES: $(grep "$A: idle" "$LOG")"
expect_eq "$RA after the sandboxed write" "$(cat "$RA")" "$ra0"
loop_run ln --no-sandbox
grep -q "^zram-recompd: error: $A: idle: .*(EINVAL)" "$LOG" ||
	fail "--no-sandbox: the idle write did not reach $RA: $(grep "$A: idle" "$LOG")"
pass_note "Landlock ABI $abi: --once sandboxed ($r slots recompressed), daemon's write outside" \
	"refused (EACCES), written with --no-sandbox; a loop device's attribute refused (EACCES)"
