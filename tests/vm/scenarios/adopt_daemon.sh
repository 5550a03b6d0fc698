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
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC2046,SC2086
. /vm/lib.sh
SQUEEZE=1 # mlocked balloons: its allocation-failure traces are judged (squeeze_traces)
need_recompd

SWAPLOAD=/usr/bin/swapload
[ -x "$SWAPLOAD" ] || skip "swapload missing from the initramfs (make tools)"
RAM=112
EXTRA=128
MIB=136
PRIO=7

LPID=
HOLDS=
_end() {
	for p in $LPID $HOLDS; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	_daemon_end
	[ -n "${Z:-}" ] || return 0
	swapoff "/dev/$Z" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		echo 1 >"/sys/block/$Z/reset" 2>/dev/null && break
		usleep 100000
	done
}
trap '_end; _cleanup' EXIT
# start_daemon sets its own EXIT trap: put ours (which ends the daemon too) back after it, or
# the workload and the mlocked balloons outlive the scenario.
daemon_start() {
	start_daemon "$@"
	trap '_end; _cleanup' EXIT
}

balloon() {
	"$SWAPLOAD" hold "$1" >"$WORK/$2.out" 2>&1 &
	BPID=$!
	HOLDS="$HOLDS $BPID"
	wait_line "$WORK/$2.out" "SWAPLOAD holding" 90 || fail "balloon $2 ($1 MiB) did not start"
}

pop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

avail_mib() {
	awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo
}

swap_line() {
	awk -v d="/dev/$1" '$1 == d { print $3, $5 }' /proc/swaps
}
swap_used() {
	awk -v d="/dev/$1" '$1 == d { print $4 }' /proc/swaps
}

header() {
	dd if="/dev/$1" bs=4096 count=1 2>/dev/null | dd bs=1 skip=1036 count=32 2>/dev/null |
		od -An -tx1 | tr -d ' \n'
}

after_adopt() {
	expect_eq "$1: /proc/swaps size and priority" "$(swap_line "$Z")" "$line0"
	expect_eq "$1: header UUID and label" "$(header "$Z")" "$hdr0"
	expect_eq "$1: disksize" "$(zget "$Z" disksize)" $((128 << 20))
	expect_eq "$1: recomp_algorithm" \
		"$(recomp_list "$Z" | sed 's/ .*\[/ [/; s/\].*/]/' | tr '\n' ' ')" "$2"
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
balloon $((avail - RAM - EXTRA)) hold1
H1=$BPID
balloon $EXTRA hold2
H2=$BPID
TOPS=
n=0
sleep 1
avail=$(avail_mib)
while [ "$avail" -gt $((RAM + 16)) ] && [ "$n" -lt 4 ]; do
	n=$((n + 1))
	balloon $((avail - RAM)) top$n
	TOPS="$TOPS $BPID"
	sleep 1
	avail=$(avail_mib)
done

zram_add
zset "$Z" comp_algorithm lzo-rle
zset "$Z" disksize 128M
mkswap -L adoptlbl "/dev/$Z" >/dev/null 2>&1 || fail "mkswap /dev/$Z failed"
"$SWAPLOAD" swapon "/dev/$Z" $PRIO || fail "swapon /dev/$Z with priority $PRIO failed"

W=$WORK/load.out
"$SWAPLOAD" run "$DATA/pages.bin" "$MIB" 10 600 1 65536 0 1 >"$W" 2>&1 &
LPID=$!
wait_line "$W" "SWAPLOAD filled" 90 || fail "the workload did not fill its memory"
line0=$(swap_line "$Z")
hdr0=$(header "$Z")
i=0
while [ "$(swap_used "$Z")" -le 8192 ] && [ "$i" -lt 8 ]; do
	i=$((i + 1))
	balloon 8 "top.$i"
	TOPS="$TOPS $BPID"
	sleep 1
done
[ "$(swap_used "$Z")" -gt 4096 ] || fail "only $(swap_used "$Z") KiB in swap: the workload did not swap"

# 1. plan A, the daemon sandboxed and ticking every second on the device
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
daemon_conf "$WORK/d.conf"
daemon_start "$WORK/d1.log" --config "$WORK/d.conf"
wait_log "$Z: managed" 1 30 || fail "the daemon did not take up $Z"
pop "$H1"
pop "$H2"
for p in $TOPS; do
	pop "$p"
done
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

kill -USR1 "$LPID"
wait_line "$W" "^SWAPLOAD verify" 120 || fail "the workload's verification did not end"
set -- $(sed -n 's/^SWAPLOAD verify pages \([0-9]*\) bad \([0-9]*\) first_bad \([0-9]*\)/\1 \2 \3/p' "$W")
expect_eq "pages verified" "$1" $((MIB * 256))
[ "$2" -eq 0 ] || fail "$2 of $1 pages read back wrong (the first: page $3)"
squeeze_traces "$HOLDS"
pass_note "plans A and B with the daemon running, held off by the lock $held time(s)," \
	"$1 pages verified, $(elapsed "$t0" "$(now)") s"
