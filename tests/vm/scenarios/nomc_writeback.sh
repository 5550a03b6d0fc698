#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A kernel without CONFIG_ZRAM_MULTI_COMP (issue 24; the 6.12-nomc kernel of the VM tier,
# WRITEBACK, ACTIME and MEMORY_TRACKING on, like Ubuntu's): zram-recompd does what the
# kernel allows and says what it cannot, once, without promising a pass it will not run.
#  - status: "recompression: no: this kernel lacks CONFIG_ZRAM_MULTI_COMP", and what writeback
#    would do; JSON reach.limit "no_multi_comp";
#  - no writeback configured: --once exits 4 and writes nothing (mm_stat and bd_stat as
#    before), can-run exits 1 with the reason; the daemon announces "no pass", never a first
#    pass, in its log;
#  - writeback configured (a loop device, set by --once before disksize): --once writes back
#    the huge pages (the incompressible random ones) and compacts, exit 0; every page reads
#    back intact; can-run exits 0; the daemon announces "writeback and compaction only" and
#    its passes write back what comes next.
# Only for a kernel without MULTI_COMP: skipped where recomp_algorithm exists.
. /vm/lib.sh
need_recompd

zram_add
[ -e "/sys/block/$Z/recomp_algorithm" ] &&
	skip "this kernel has CONFIG_ZRAM_MULTI_COMP (the scenario is for 6.12-nomc)"
[ -e "/sys/block/$Z/backing_dev" ] || fail "no backing_dev: the kernel lacks CONFIG_ZRAM_WRITEBACK"
backing_loop 64M
export ZRAM_RECOMPD_STATE_DIR=$WORK/state
NP=$(pages_of "$DATA/pages.bin")
NR=$(pages_of "$DATA/random.bin")
MSG="$Z: cannot recompress: this kernel lacks CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute)"

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

# 1. As installed: no writeback configured.
conf "$WORK/none.conf" "devices = $Z" "interval-sec = 2"
fill
run_recompd "$WORK/status.out" --config "$WORK/none.conf" status --device "$Z"
expect_eq "status exit code" "$RC" 0
grep -q "  recompression:  no: this kernel lacks CONFIG_ZRAM_MULTI_COMP" "$WORK/status.out" ||
	fail "status does not say the kernel lacks CONFIG_ZRAM_MULTI_COMP"
grep -q "  passes:         nothing to do (writeback = yes with a backing device" "$WORK/status.out" ||
	fail "status does not say what writeback would do"
run_recompd "$WORK/json.out" --config "$WORK/none.conf" status --json --device "$Z"
grep -q '"limit":"no_multi_comp"' "$WORK/json.out" || fail "status --json: no reach.limit no_multi_comp"
mm0=$(zget "$Z" mm_stat)
run_recompd "$WORK/once0.out" --config "$WORK/none.conf" --once --device "$Z"
expect_eq "--once exit code without writeback" "$RC" 4
[ "$(grep -c "$MSG; nothing to do" "$WORK/once0.out")" = 1 ] || fail "--once: the reason not said once"
expect_eq "mm_stat after --once without writeback" "$(zget "$Z" mm_stat)" "$mm0"
expect_eq "bd_stat writes" "$(bd_writes)" 0
run_recompd "$WORK/can0.out" --config "$WORK/none.conf" can-run
expect_eq "can-run exit code without writeback" "$RC" 1
grep -q "can-run: no: nothing zram-recompd could do on this machine" "$WORK/can0.out" ||
	fail "can-run gives no reason"
start_daemon "$WORK/d0.log" --config "$WORK/none.conf"
wait_log "$Z: managed \(initialized\): no pass" 1 20 || fail "daemon: no 'no pass' announcement"
sleep 6 # three intervals
daemon_alive || fail "the daemon died"
stop_daemon
[ "$(grep -c "$MSG" "$WORK/d0.log")" = 1 ] || fail "daemon: the reason not said exactly once"
grep -q "first pass\|$Z: pass:" "$WORK/d0.log" && fail "daemon promised or ran a pass"
expect_eq "mm_stat after the daemon without writeback" "$(zget "$Z" mm_stat)" "$mm0"
zram_del "$Z"

# 2. Writeback configured: --once sets the backing device before disksize, then writes back.
zram_add
conf "$WORK/wb.conf" "devices = $Z" "writeback = yes" "writeback-types = huge" \
	"backing-device = $L" "interval-sec = 2" "backoff-max-sec = 0" "cpu-share-max-percent = 0" \
	"psi-cpu-max-percent = 0" "memory-stall-us = 0" "defer-on-battery = no"
run_recompd "$WORK/setup.out" --config "$WORK/wb.conf" --once --device "$Z"
expect_eq "setup --once exit code" "$RC" 0
expect_eq "backing_dev" "$(zget "$Z" backing_dev)" "$L"
fill
run_recompd "$WORK/can1.out" --config "$WORK/wb.conf" can-run
expect_eq "can-run exit code with writeback" "$RC" 0
run_recompd "$WORK/once1.out" --config "$WORK/wb.conf" --once --device "$Z"
expect_eq "--once exit code with writeback" "$RC" 0
grep -q "$MSG; writeback and compaction only" "$WORK/once1.out" || fail "--once: no notice"
wb=$(bd_writes)
[ "$wb" -ge "$NR" ] || fail "bd_stat writes $wb, expected at least the $NR random (huge) pages"
grep -q "writeback huge: $wb pages" "$WORK/once1.out" || fail "no writeback line for $wb pages"
grep -q "$Z: compact" "$WORK/once1.out" || fail "no compaction reported"
same_data once
# the daemon: a new batch of incompressible pages after the first ones
start_daemon "$WORK/d1.log" --config "$WORK/wb.conf"
wait_log "$Z: managed \(initialized; writeback and compaction only\), first pass in" 1 20 ||
	fail "daemon: no honest announcement"
load "$Z" "$DATA/random.bin" 0 "$NR" $((NP + NR))
dd if="/dev/$Z" bs=4096 count=$((NP + 2 * NR)) 2>/dev/null | md5sum >"$WORK/sum0"
i=0
while [ "$(bd_writes)" -lt $((wb + NR)) ]; do
	i=$((i + 1))
	[ "$i" -le 300 ] || fail "daemon wrote back $(($(bd_writes) - wb)) of $NR new huge pages in 30 s"
	usleep 100000
done
wait_log "$Z: pass: " 1 10 || fail "no pass logged"
stop_daemon
expect_eq "daemon exit code" "$RC" 0
[ "$(grep -c "$MSG" "$WORK/d1.log")" = 1 ] || fail "daemon: the reason not said exactly once"
dd if="/dev/$Z" bs=4096 count=$((NP + 2 * NR)) 2>/dev/null | md5sum >"$WORK/sum.daemon"
cmp -s "$WORK/sum0" "$WORK/sum.daemon" || fail "data read back differs after the daemon"
pass_note "--once wrote back $wb pages, the daemon $(($(bd_writes) - wb)) more"
