#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Devices coming and going while the daemon runs (devices = all):
#  1. device A (set up before the daemon starts) gets its passes;
#  2. device B is hot-added: the daemon sees it (uevent); its Landlock sandbox, set up at
#     start, has no rule for B and cannot get one, so it exits 75 with its state saved, and is
#     started again as the unit's RestartForceExitStatus= does; the new daemon writes
#     recompress-algorithms to B while it is uninitialized, and once it has a size and pages,
#     recompresses it;
#  3. A is hot-removed (retried while busy; a pass may be running on it): the daemon logs
#     that A is no longer managed, stays alive and keeps passing over B.
. /vm/lib.sh
need_recompd

N=2048
conf "$WORK/d.conf" "devices = all" "recompress-algorithms = zstd" "passes = idle" \
	"interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
	"cpu-share-max-percent = 0" "pages-per-hour = 0" "psi-cpu-max-percent = 0" \
	"memory-stall-us = 0" "defer-on-battery = no"

# The daemon manages every zram device, the boot-time zram0 too (uninitialized: it only gets
# its secondary algorithm written, which no other scenario minds).
zram_add
A=$Z
AID=$ZID
zset "$A" recomp_algorithm "algo=zstd priority=1"
zset "$A" disksize 64M
load "$A" "$DATA/pages.bin" 0 "$N" 0

export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf" -v
wait_log "running on Linux" 1 10 || fail "the daemon did not start"
grep -q "kernel uevents unavailable" "$DLOG" && fail "the daemon has no uevent socket"
grep -q "running on Linux .*; writes confined by Landlock" "$DLOG" ||
	fail "the daemon is not sandboxed: $(grep 'running on' "$DLOG")"
wait_log "^zram-recompd: $A: pass: .*saved [1-9]" 1 30 || fail "no pass on $A saved anything"
ra=$(bs_count "$A" r)
note "$A: $ra slots recompressed"
[ "$ra" -gt 0 ] || fail "$A: no slot has the r flag after a pass"

# 2. hot_add B: the daemon exits 75 for it and, started again, configures its secondary
# algorithm before anyone sets disksize.
t0=$(now)
zram_add
B=$Z
_i=0
while daemon_alive; do
	_i=$((_i + 1))
	[ $_i -le 100 ] || fail "the daemon did not exit within 10 s of hot_add $B"
	usleep 100000
done
wait "$DPID"
RC=$?
DPID=
expect_eq "exit code after hot_add $B" "$RC" 75
grep -q "^zram-recompd: $B: appeared after the sandbox was set up, which cannot be widened; exiting with status 75 to be restarted with it\$" \
	"$DLOG" || fail "no notice for $B: $(grep "$B" "$DLOG")"
grep -E "$B: " "$DLOG" | grep -v "appeared after the sandbox" | grep -q . &&
	fail "the first daemon did something to $B: $(grep "$B: " "$DLOG")"
sed "s/^/[$T]   | /" "$DLOG"
pa=$(state_field "$A" passes)
[ -n "$pa" ] && [ "$pa" -ge 1 ] || fail "state file: $A passes='$pa' after the exit"
start_daemon "$WORK/daemon2.log" --config "$WORK/d.conf" -v
wait_log "^zram-recompd: $B: not initialized; secondary algorithms configured" 1 10 ||
	fail "$B: the daemon did not configure the secondary algorithms within 10 s"
note "$B: configured by the daemon $(elapsed "$t0" "$(now)") s after hot_add"
grep -q "^zram-recompd: $B: managed" "$DLOG" || fail "$B: no 'managed' line"
recomp_list "$B" | grep -q '^#1: .*\[zstd\]' ||
	fail "$B: recomp_algorithm does not select zstd at priority 1:" \
		"$(recomp_list "$B")"
zset "$B" disksize 64M
load "$B" "$DATA/pages.bin" "$N" "$N" 0
wait_log "^zram-recompd: $B: pass: .*saved [1-9]" 1 30 || fail "no pass on $B saved anything"
rb=$(bs_count "$B" r)
note "$B: $rb slots recompressed"
[ "$rb" -gt 0 ] || fail "$B: no slot has the r flag after a pass"

# 3. hot_remove A, wherever its passes are (daemon_remove_mid_pass aims at a running pass);
# hot_remove answers EBUSY only while the disk is open, so retry a few times.
nb=$(log_count "^zram-recompd: $B: pass")
tries=0
until echo "$AID" >/sys/class/zram-control/hot_remove 2>"$WORK/rm.err"; do
	tries=$((tries + 1))
	[ $tries -ge 20 ] && fail "hot_remove $A failed 20 times: $(cat "$WORK/rm.err")"
	usleep 200000
done
ZDEVS=$(echo " $ZDEVS " | sed "s/ $A / /")
note "$A removed (after $tries busy retries)"
[ -e "/sys/block/$A" ] && fail "/sys/block/$A still exists after hot_remove"
wait_log "^zram-recompd: $A: .*no longer managed" 1 10 ||
	fail "the daemon did not log that $A is no longer managed"
wait_log "^zram-recompd: $B: pass" $((nb + 2)) 20 ||
	fail "no two more passes on $B after $A was removed"
daemon_alive || fail "the daemon died after $A was removed"
# Whether the removal met a pass: that pass then ended with an error.
if grep -E "^zram-recompd: $A: pass" "$DLOG" | tail -n 1 | grep -q "with errors"; then
	midpass=yes
else
	midpass=no
fi
# A's removal must not be the reason of an error on B.
grep -qE "^zram-recompd: (error|warning): $B: |^zram-recompd: $B: .*with errors" "$DLOG" &&
	fail "errors on $B in the log"

stop_daemon
expect_eq "daemon exit code after SIGTERM" "$RC" 0
awk -v s="$STOP_S" 'BEGIN { exit !(s <= 1.0) }' || fail "SIGTERM -> exit took $STOP_S s (limit 1 s)"
pb=$(state_field "$B" passes)
[ -n "$pb" ] && [ "$pb" -ge 3 ] || fail "state file: $B passes='$pb', expected >= 3"
pass_note "$B configured and recompressed ($rb r), $A removed (mid-pass: $midpass," \
	"$tries busy retries)," \
	"SIGTERM->exit $STOP_S s"
