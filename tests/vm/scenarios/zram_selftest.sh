#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Sharing devices with another tool (issue 24 #6): the kernel's own zram selftest (zram02.sh with
# zram_lib.sh, from tools/testing/selftests/zram of the source tree of the kernel booted,
# packed by mkinitramfs.sh) runs ROUNDS times beside the daemon (devices = all, two
# secondaries to configure). Each round hot-adds a device, writes disksize and mem_limit,
# mkswap, swapon, swapoff, reset, hot_remove, within milliseconds: the daemon sees each device
# through its uevent and writes recomp_algorithm while it looks uninitialized, racing the
# test's disksize (EBUSY) and hot_remove (ENOENT). Once that logged
# "error: zram3: recomp_algorithm: device busy (EBUSY)". Asserted:
#  1. every round of the selftest passes ("zram02 : [PASS]", no FAIL line, exit 0), its reset
#     and hot_remove never refused (the daemon holds no device open, never resets), and its
#     device is gone after the round;
#  2. the daemon log has no error line; the races it met are notices;
#  3. the daemon is still running, saw the test's devices, and still manages a device of its
#     own afterwards: configures it before disksize and recompresses it.
. /vm/lib.sh
need_recompd

KST=/vm/kselftest/zram
[ -r "$KST/zram02.sh" ] && [ -r "$KST/zram_lib.sh" ] ||
	fail "the kernel's zram selftest was not packed (mkinitramfs.sh: VM_KSRC)"
ROUNDS=${ZRAM_SELFTEST_ROUNDS:-12}
N=2048
conf "$WORK/d.conf" "devices = all" "recompress-algorithms = zstd lz4" "passes = idle" \
	"interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
	"cpu-share-max-percent = 0" "pages-per-hour = 0" "psi-cpu-max-percent = 0" \
	"memory-stall-us = 0" "defer-on-battery = no"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
# --no-sandbox: a sandboxed daemon ends (exit 75, for its unit to restart it) when a device
# appears after its start; here it must stay to handle the devices added below as they come
# (the restart itself: daemon_hotplug, sandbox).
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf" -v --no-sandbox
wait_log "running on Linux" 1 10 || fail "the daemon did not start"
grep -q "kernel uevents unavailable" "$DLOG" && fail "the daemon has no uevent socket"

# The selftest works in its current directory (err.log) and takes the lowest free id.
mkdir -p "$WORK/kst" || fail "mkdir"
cp "$KST/zram02.sh" "$KST/zram_lib.sh" "$WORK/kst/" || fail "cannot copy the selftest"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	out=$WORK/round.$i.out
	before=$(ls /sys/block | grep -c '^zram')
	(cd "$WORK/kst" && sh ./zram02.sh) >"$out" 2>&1
	rc=$?
	if [ "$rc" != 0 ] || ! grep -q '^zram02 : \[PASS\]' "$out" || grep -q 'FAIL' "$out" ||
		grep -qiE 'busy|write error|No such' "$out"; then
		sed "s/^/[$T]   selftest| /" "$out"
		fail "round $i: the kernel's zram02 selftest failed beside the daemon (exit $rc)"
	fi
	after=$(ls /sys/block | grep -c '^zram')
	[ "$after" = "$before" ] || fail "round $i: $before zram devices before, $after after"
	daemon_alive || fail "round $i: the daemon died"
	i=$((i + 1))
done
[ -f "$WORK/round.0.out" ] && sed "s/^/[$T]   selftest round 0| /" "$WORK/round.0.out"

# The daemon saw the test's devices; the races were notices.
seen=$(log_count '^zram-recompd: zram[0-9]+: managed')
busy=$(log_count 'set up by another tool while being configured')
gone=$(log_count 'removed while being (probed|configured)|: removed; no longer managed')
note "daemon: $seen devices managed, $busy gave way to the test's disksize (EBUSY), $gone removals"
[ "$seen" -ge 2 ] || fail "the daemon managed $seen devices; it did not see the selftest's"
grep -E '^zram-recompd: error:' "$DLOG" && fail "the daemon logged errors beside the selftest"
daemon_alive || fail "the daemon died"

# 3. It still manages a device of its own: configured before disksize, then recompressed.
zram_add
B=$Z
wait_log "^zram-recompd: $B: not initialized; secondary algorithms configured" 1 10 ||
	fail "$B: the daemon did not configure the secondary algorithms within 10 s"
recomp_list "$B" | grep -q '^#1: .*\[zstd\]' ||
	fail "$B: recomp_algorithm does not select zstd at priority 1: $(recomp_list "$B")"
zset "$B" disksize 64M
load "$B" "$DATA/pages.bin" 0 "$N" 0
wait_log "^zram-recompd: $B: pass: .*saved [1-9]" 1 40 || fail "no pass on $B saved anything"
rb=$(bs_count "$B" r)
[ "$rb" -gt 0 ] || fail "$B: no slot has the r flag after a pass"
grep -E '^zram-recompd: error:' "$DLOG" && fail "the daemon logged errors"
stop_daemon
expect_eq "daemon exit code after SIGTERM" "$RC" 0
pass_note "$ROUNDS selftest rounds passed beside the daemon ($seen devices seen, $busy EBUSY" \
	"notices, $gone removals, no error); $B recompressed ($rb r)"
