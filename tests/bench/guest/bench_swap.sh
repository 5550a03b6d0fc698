#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench: zram as swap under a real workload. An mlocked balloon leaves the workload about
# BENCH_SWAP_RAM_MIB (default 256) MiB of RAM; a 1 GiB zram swap device (lzo-rle primary,
# zstd secondary) takes the rest. tests/tools/swapload fills BENCH_SWAP_MIB (default 400) MiB
# with the page data, then keeps 20% of it busy while reading a random cold page after every
# BENCH_SWAP_COLD_EVERY (default 1048576, about 40 a second: the rest is touched rarely)
# operations: BENCH_SWAP_WARMUP (default 60) s in which each policy catches up with the
# freshly swapped-out memory, then the measured BENCH_SWAP_SECONDS (default 60) s, the
# steady state of a long-running workload. Three runs, same seed:
#   none     no recompression
#   naive    every 10 s: echo all > idle; echo type=idle > recompress; echo 1 > compact
#   daemon   zram-recompd, interval-sec = 10, idle ages 10 s, every other key at its default
#            (so a busy CPU paces it, and memory pressure raises its share)
# Reported per run: mem_used_total and MemAvailable while the workload still holds its
# memory, the workload's hot operations per second, cold-page access latency p50/p99, and
# the CPU the policy took (kernel writes for naive; the daemon's process CPU).
# The runs themselves: swaplib.sh (swap_policy), shared with bench_burst.sh.
# shellcheck disable=SC1091,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
. /vm/swaplib.sh
swap_need
SECS=${BENCH_SWAP_SECONDS:-60}
COLD_EVERY=${BENCH_SWAP_COLD_EVERY:-1048576}
WARMUP=${BENCH_SWAP_WARMUP:-60}
# BENCH_SWAP_DAEMON_ONLY=1: only the daemon's run (when working on the daemon; the ratios
# need all three, side by side).
POLICIES="none naive daemon"
[ "${BENCH_SWAP_DAEMON_ONLY:-0}" = 1 ] && POLICIES=daemon
out swap.mib "$MIB"
out swap.seconds "$SECS"
out swap.ram_mib "$RAM"
out swap.cold_every "$COLD_EVERY"
out swap.warmup_seconds "$WARMUP"
for policy in $POLICIES; do
	swap_policy swap "$policy" "$MIB" 20 "$SECS" "$COLD_EVERY" "$WARMUP"
done
swap_balloon_stop
pass
