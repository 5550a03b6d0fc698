#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench: the first minute after a burst of swap-out (issue 29), no warm-up left out. The
# workload of bench_swap.sh fills its memory (the burst: most of it goes to zram at once),
# and the policies are measured over the BENCH_BURST_SECONDS (60) s right after, in which
# the daemon's catch-up runs. Two shapes, so that no single one is what the policy is tuned to:
#   warmcold  20% hot, a cold page read every 256 operations: cold pages come back from zram
#             all the time (thousands a second), so a page recompressed may be swapped in
#             soon after
#   hot40     40% hot, a cold page read every 65536 operations: a larger busy set, the
#             cold pages stay in zram
# each run BENCH_BURST_RUNS (3) times with the same seed: none, naive, daemon as in
# bench_swap.sh (swaplib.sh). run.sh boots this scenario with one vCPU (BENCH_BURST_SMP):
# with -icount, one vCPU is a one-CPU machine whose schedule repeats, so the spread of the
# runs shows what is left of chance. Keys: burst.SHAPE.rN.POLICY.*.
# BENCH_BURST_BOOT=each (run.sh): one policy of one run per boot, so that no run starts
# from what the one before left in memory; then BENCH_BURST_RUN_FIRST numbers this boot's
# run, and BENCH_BURST_ALL_SHAPES / BENCH_BURST_ALL_RUNS give the header keys of the whole.
# shellcheck disable=SC1091,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
. /vm/swaplib.sh
swap_need
SECS=${BENCH_BURST_SECONDS:-60}
RUNS=${BENCH_BURST_RUNS:-3}
SHAPES=${BENCH_BURST_SHAPES:-warmcold hot40}
# BENCH_BURST_POLICIES: a subset when working on the daemon (the ratios need all three,
# side by side).
POLICIES=${BENCH_BURST_POLICIES:-none naive daemon}
out burst.mib "$MIB"
out burst.ram_mib "$RAM"
out burst.seconds "$SECS"
out burst.runs "${BENCH_BURST_ALL_RUNS:-$RUNS}"
out burst.shapes "${BENCH_BURST_ALL_SHAPES:-$SHAPES}"
out burst.cpus "$(grep -c '^processor' /proc/cpuinfo)"
for shape in $SHAPES; do
	case $shape in
	warmcold) hot=20 cold=256 ;;
	hot40) hot=40 cold=65536 ;;
	*) fail "unknown shape $shape" ;;
	esac
	out "burst.$shape.hot_percent" "$hot"
	out "burst.$shape.cold_every" "$cold"
	r=${BENCH_BURST_RUN_FIRST:-1}
	while [ "$r" -lt $((${BENCH_BURST_RUN_FIRST:-1} + RUNS)) ]; do
		for policy in $POLICIES; do
			swap_policy "burst.$shape.r$r" "$policy" "$MIB" "$hot" "$SECS" "$cold" 0
		done
		r=$((r + 1))
	done
done
swap_balloon_stop
pass
