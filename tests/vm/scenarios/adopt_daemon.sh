#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `zram-recompd adopt` while the daemon runs on the same device, with a pass interval of 1 s,
# under the swapping workload of the adopt scenario (swapload): adopt's reset sends a uevent,
# and a daemon that rescans then finds the device uninitialized and would set it up with its
# own list between adopt's writes (on 7.3 an algorithm write resets that priority's level).
# adopt holds /run/zram-recompd/lock/adopt and .../zramN for its run (src/kernel/devlock.c):
#   1. plan A, the daemon sandboxed (Landlock: its rule for the lock directory): the daemon
#      says once that adopt holds the lock, never sets the device up itself, and passes on it
#      once adopt is done;
#   2. plan B (--via-temp), the daemon unsandboxed (a sandboxed one restarts for a hot-added
#      device, and nothing restarts it here): it never sets up the temporary device either.
# Asserted after each: recomp_algorithm lists exactly the configured secondaries (the levels
# of algorithm_params cannot be read back: the file is write-only), the device is swap again
# with its size, priority and header; at the end every page of the workload reads back
# intact.
# vm-timeout: 240
. /vm/lib.sh
SQUEEZE=1 # mlocked balloons: its allocation-failure traces are judged (squeeze_traces)
need_recompd

. /vm/adopt_lib.sh
RAM=112
EXTRA=128
MIB=136
PRIO=7

after_adopt() {
	expect_swap_again "$1"
	expect_eq "$1: disksize" "$(zget "$Z" disksize)" $((128 << 20))
	expect_eq "$1: recomp_algorithm" "$(secondaries "$Z")" "$2"
	kill -0 "$LPID" || fail "the workload died during $1"
	daemon_alive || fail "the daemon exited during $1"
	# the daemon set up no device itself while adopt ran (configure_dev's line; an unused
	# uninitialized zram0 may have been set up by it before)
	[ "$(log_count "$CONFIGURED")" = "$cfg0" ] ||
		fail "$1: the daemon set up a device during adopt: $(grep 'configured' "$DLOG")"
}

CONFIGURED='not initialized; (secondary algorithms|backing device .*) configured'

# daemon_conf FILE: the daemon's configuration: the device only, a pass every second.
daemon_conf() {
	conf "$1" "devices = $Z" "recompress-algorithms = zstd deflate" \
		"algorithm-params = zstd:level=7 deflate:level=9" "interval-sec = 1" \
		"idle-age-max-sec = 0" "backoff-max-sec = 0" "cpu-share-max-percent = 0" \
		"psi-cpu-max-percent = 0" "defer-on-battery = no" "max-pages-per-pass = 2048"
}

t0=$(now)
avail=$(avail_mib)
[ "$avail" -gt $((RAM + EXTRA + 64)) ] || skip "only $avail MiB available"
squeeze
zram_add
swap_setup adoptlbl
workload
remember
swap_some

# 1. plan A, the daemon sandboxed and ticking every second on the device
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
daemon_conf "$WORK/d.conf"
daemon_start "$WORK/d1.log" --config "$WORK/d.conf"
wait_log "$Z: managed" 1 30 || fail "the daemon did not take up $Z"
unsqueeze
cfg0=$(log_count "$CONFIGURED")
t1=$(now)
run_recompd "$WORK/a.out" --config "$WORK/d.conf" adopt "$Z"
expect_eq "adopt (direct) exit code" "$RC" 0
grep -q "^$Z: plan: direct (swapoff first)" "$WORK/a.out" || fail "plan A was not chosen"
after_adopt "plan A" "#1: [zstd] #2: [deflate] "
ta=$(elapsed "$t1" "$(now)")
# whether a tick of the daemon fell into adopt's run (1.4 s on 7.3, 0.5 s on 6.12): said
# once if so
held=$(log_count "$Z: adopt holds the lock /run/zram-recompd/lock/$Z: left alone")
[ "$held" -le 1 ] || fail "plan A: the daemon said $held times that adopt holds the lock"
grep -q 'writes confined by Landlock' "$DLOG" || fail "the daemon is not sandboxed: $(head -n 3 "$DLOG")"
wait_log "^zram-recompd: $Z: pass" 1 60 || fail "no pass on $Z after adopt"
[ "$held" = 0 ] || wait_log "$Z: lock released: passes resume" 1 5 || fail "no 'passes resume' line"
stop_daemon
expect_eq "daemon exit code" "$RC" 0
note "plan A in $ta s with the daemon ticking; used $(swap_used "$Z") KiB"

# 2. squeezed again, then plan B through a temporary device, the daemon unsandboxed
avail=$(avail_mib)
balloon $((avail + MIB - RAM - EXTRA)) hold3
balloon $EXTRA hold4
H4=$BPID
sleep 2
pop "$H4"
# every device: the temporary one too, which a daemon without the lock would set up
conf "$WORK/b.conf" "recompress-algorithms = zstd" "interval-sec = 1" \
	"idle-age-max-sec = 0" "backoff-max-sec = 0" "cpu-share-max-percent = 0"
daemon_start "$WORK/d2.log" --no-sandbox --config "$WORK/b.conf"
wait_log "^zram-recompd: $Z: pass" 1 60 || fail "no pass on $Z before plan B"
sleep 2 # the daemon's start-up settled (it may set up an unused zram0)
cfg0=$(log_count "$CONFIGURED")
t1=$(now)
run_recompd "$WORK/b.out" --config "$WORK/b.conf" adopt --via-temp "$Z"
expect_eq "adopt --via-temp exit code" "$RC" 0
tmp=$(sed -n "s/^$Z: hot-added \(zram[0-9]*\) as the temporary device.*/\1/p" "$WORK/b.out")
[ -n "$tmp" ] || fail "no temporary device was hot-added"
after_adopt "plan B" "#1: [zstd] "
note "plan B in $(elapsed "$t1" "$(now)") s through $tmp; the daemon on it:" \
	"$(grep "$tmp: " "$DLOG" | tr '\n' '|')"
wait_log "^zram-recompd: $Z: pass" 1 60 || fail "no pass on $Z after plan B"
stop_daemon
expect_eq "daemon exit code" "$RC" 0

verify_pages 120
squeeze_traces "$HOLDS"
pass_note "plans A and B with the daemon running, held off by the lock $held time(s)," \
	"$VERIFIED pages verified, $(elapsed "$t0" "$(now)") s"
