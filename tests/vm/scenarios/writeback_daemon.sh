#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writeback (issue 12) by the DAEMON (not --once) on a real kernel, a loop device as the
# backing device:
#  - the daemon writes backing_dev itself while the device is uninitialized (before disksize);
#  - the corpus goes in (pages.bin, then the 256 random pages of random.bin); the daemon's
#    passes recompress and write back the incompressible pages: bd_stat writes reach the
#    random pages, `w` slots = bd_stat writes, the state file's wb_pages = bd_stat writes,
#    every page read back through /dev/zramN is byte-identical (checksums);
#  - a day budget of 16 pages with 8 pages per pass: two passes of 8, then "budget spent",
#    bd_stat writes exactly 16 (the kernel's writeback_limit), and a restart of the daemon a
#    moment later finds the budget spent (state file): still 16.
. /vm/lib.sh
need_recompd

backing_loop 64M
export ZRAM_RECOMPD_STATE_DIR=$WORK/state

NP=$(pages_of "$DATA/pages.bin")
NR=$(pages_of "$DATA/random.bin")

# The daemon's knobs: a pass every 2 s on everything, no gate that could hold a pass back.
dconf() {
	conf "$WORK/d.conf" "devices = $Z" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
		"interval-sec = 2" "backoff-max-sec = 0" "cpu-share-max-percent = 0" \
		"pages-per-hour = 0" "psi-cpu-max-percent = 0" "memory-stall-us = 0" \
		"defer-on-battery = no" "writeback = yes" "writeback-types = incompressible" \
		"backing-device = $L" "$@"
	run_recompd "$WORK/check.out" --config "$WORK/d.conf" --check-config
	expect_eq "--check-config exit code" "$RC" 0
}

fill() {
	zset "$Z" disksize 64M
	load "$Z" "$DATA/pages.bin"
	load "$Z" "$DATA/random.bin" 0 "$NR" "$NP"
	dd if="/dev/$Z" bs=4096 count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum0"
}

same_data() {
	dd if="/dev/$Z" bs=4096 count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum.$1"
	cmp -s "$WORK/sum0" "$WORK/sum.$1" || fail "data read back differs ($1)"
}

bd_writes() {
	set -- $(zget "$Z" bd_stat)
	echo "$3"
}

# 1. The defaults' day budget (1 GiB): the daemon sets the backing device up, then writes
# back every incompressible page.
zram_add
dconf
start_daemon "$WORK/d1.log" --config "$WORK/d.conf"
wait_log "$Z: not initialized; backing device $L configured" 1 20 ||
	fail "the daemon did not configure the backing device"
expect_eq "backing_dev" "$(zget "$Z" backing_dev)" "$L"
fill
i=0
while [ "$(bd_writes)" -lt "$NR" ]; do
	daemon_alive || fail "the daemon exited"
	i=$((i + 1))
	[ "$i" -le 90 ] || fail "bd_stat writes $(bd_writes) after 90 s, expected >= $NR"
	sleep 1
done
# the pass that wrote them has logged it, and the state file has been saved
wait_log "$Z: pass: .* [1-9][0-9]* written back" 1 20 || fail "no pass logged pages written back"
sleep 3
stop_daemon
expect_eq "daemon exit code" "$RC" 0
wb=$(bd_writes)
w=$(bs_count "$Z" w)
note "bd_stat $(zget "$Z" bd_stat); w slots $w; passes logged $(log_count "$Z: pass")"
expect_eq "written-back slots (w)" "$w" "$wb"
expect_eq "state wb_pages" "$(state_field "$Z" wb_pages)" "$wb"
logged=$(sed -n "s/.*$Z: pass: .* \([0-9][0-9]*\) written back.*/\1/p" "$DLOG" |
	awk '{ n += $1 } END { print n + 0 }')
expect_eq "pages written back in the pass lines" "$logged" "$wb"
same_data daemon

# 2. 16 pages a day, 8 per pass: the kernel's limit stops each pass at 8, the day at 16.
zram_del "$Z"
rm -rf "$ZRAM_RECOMPD_STATE_DIR"
zram_add
dconf "writeback-bytes-per-day = 65536" "writeback-bytes-per-pass = 32768"
run_recompd "$WORK/setup.out" --config "$WORK/d.conf" --once --device "$Z"
expect_eq "setup exit code" "$RC" 0
expect_eq "backing_dev" "$(zget "$Z" backing_dev)" "$L"
fill
start_daemon "$WORK/d2.log" --config "$WORK/d.conf"
wait_log "$Z: writeback: budget spent" 1 60 || fail "no 'budget spent' within 60 s"
expect_eq "bd_stat writes at a 16-page day budget" "$(bd_writes)" 16
n8=$(log_count "$Z: pass: .* 8 written back")
expect_eq "passes that wrote back 8 pages" "$n8" 2
stop_daemon
expect_eq "daemon exit code" "$RC" 0
expect_eq "state wb_pages" "$(state_field "$Z" wb_pages)" 16
left=$(state_field "$Z" wb_day_left)
[ "$left" -lt 4096 ] || fail "state wb_day_left $left after the day budget was spent"

# a restart within the day: the budget stays spent
start_daemon "$WORK/d3.log" --config "$WORK/d.conf"
wait_log "$Z: pass: " 1 30 || fail "no pass after the restart"
stop_daemon
expect_eq "daemon exit code after the restart" "$RC" 0
expect_eq "bd_stat writes after a restart within the day" "$(bd_writes)" 16
[ "$(log_count "$Z: writeback: budget spent")" -ge 1 ] ||
	fail "the restarted daemon did not find the budget spent"
same_data budget
pass_note "$wb pages written back by the daemon; budget 16 pages held across a restart"
