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
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

SWAPLOAD=/usr/bin/swapload
[ -x "$SWAPLOAD" ] || fail "swapload missing from the initramfs"
MIB=${BENCH_SWAP_MIB:-400}
SECS=${BENCH_SWAP_SECONDS:-60}
RAM=${BENCH_SWAP_RAM_MIB:-256}
COLD_EVERY=${BENCH_SWAP_COLD_EVERY:-1048576}
WARMUP=${BENCH_SWAP_WARMUP:-60}
# BENCH_SWAP_VERBOSE=1: the daemon logs each step and batch (-v), to see what a pass tried.
VERBOSE=
[ "${BENCH_SWAP_VERBOSE:-0}" = 1 ] && VERBOSE=--verbose
# BENCH_SWAP_DAEMON_ONLY=1: only the daemon's run (when working on the daemon; the ratios
# need all three, side by side).
POLICIES="none naive daemon"
[ "${BENCH_SWAP_DAEMON_ONLY:-0}" = 1 ] && POLICIES=daemon
out swap.mib "$MIB"
out swap.seconds "$SECS"
out swap.ram_mib "$RAM"
out swap.cold_every "$COLD_EVERY"
out swap.warmup_seconds "$WARMUP"

avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
[ "$avail" -gt $((RAM + 64)) ] || skip "only $avail MiB available"
start_bg HOLDPID "$SWAPLOAD" hold $((avail - RAM)) >"$WORK/hold.out"
wait_line "$WORK/hold.out" "SWAPLOAD holding" 120 || fail "the balloon did not start"
note "balloon: $((avail - RAM)) MiB locked; MemAvailable now" \
	"$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo) MiB"

for policy in $POLICIES; do
	zram_add
	zset "$Z" comp_algorithm lzo-rle
	zset "$Z" recomp_algorithm "algo=zstd priority=1"
	zset "$Z" disksize 1G
	mkswap "/dev/$Z" >/dev/null 2>&1 || fail "mkswap /dev/$Z failed"
	swapon "/dev/$Z" || fail "swapon /dev/$Z failed"
	W=$WORK/$policy.out
	# VERIFY 1: after the measured window it lists the swap slots of its swapped-out hot
	# pages (then waits; the pages are not verified here).
	start_bg LOADPID "$SWAPLOAD" run "$DATA/pages.bin" "$MIB" 20 "$SECS" 1 "$COLD_EVERY" "$WARMUP" 1 >"$W"
	wait_line "$W" "SWAPLOAD filled" 600 || fail "$policy: the workload did not fill its memory"
	kw=0
	case $policy in
	naive)
		(
			while :; do
				sleep 10
				for c in "idle all" "recompress type=idle" "compact 1"; do
					set -- $c
					"$VMBENCH" write "/sys/block/$Z/$1" "$2" >>"$WORK/naive.writes"
				done
			done
		) &
		NAIVEPID=$!
		BENCH_PIDS="$BENCH_PIDS $NAIVEPID"
		;;
	daemon)
		conf "$WORK/swap.conf" "recompress-algorithms = zstd" "interval-sec = 10" \
			"idle-age-min-sec = 10" "idle-age-max-sec = 10" "devices = $Z"
		ZRAM_RECOMPD_STATE_DIR=$WORK/swap-state
		export ZRAM_RECOMPD_STATE_DIR
		mkdir -p "$ZRAM_RECOMPD_STATE_DIR"
		start_daemon "$WORK/swap-daemon.log" $VERBOSE --config "$WORK/swap.conf"
		;;
	esac
	# The policy's CPU in the warm-up (its first passes) and in the measured window apart.
	if [ "$WARMUP" -gt 0 ]; then
		wait_line "$W" "SWAPLOAD warmup" $((WARMUP * 20 + 600)) ||
			fail "$policy: the workload's warm-up did not end"
		case $policy in
		naive) out swap.naive.warmup_kernel_write_s "$(awk '{ t += $1 } END { printf "%.6f", t / 1e9 }' "$WORK/naive.writes")" ;;
		daemon) out swap.daemon.warmup_cpu_ticks "$(awk '{ print $14 + $15 }' "/proc/$DPID/stat")" ;;
		esac
	fi
	wait_line "$W" "SWAPLOAD ops" $((SECS * 20 + 600)) || fail "$policy: the workload did not end"
	# Measured while the workload still holds its memory.
	mm_out "swap.$policy" "$Z"
	out "swap.$policy.memavailable_kb" "$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)"
	set -- $(sed -n 's/^SWAPLOAD ops \([0-9]*\) seconds \([0-9.]*\) ops_per_s \([0-9]*\) cold_reads \([0-9]*\) cold_p50_us \([0-9.]*\) cold_p99_us \([0-9.]*\).*/\1 \2 \3 \4 \5 \6/p' "$W")
	out "swap.$policy.ops" "$1"
	out "swap.$policy.warmup_ops_per_s" "$(sed -n 's/^SWAPLOAD warmup ops [0-9]* seconds [0-9.]* ops_per_s \([0-9]*\).*/\1/p' "$W")"
	out "swap.$policy.windows" "$(awk '/^SWAPLOAD window/ { printf "%s%s", s, $6; s = "," }' "$W")"
	out "swap.$policy.ops_per_s" "$3"
	out "swap.$policy.cold_reads" "$4"
	out "swap.$policy.cold_p50_us" "$5"
	out "swap.$policy.cold_p99_us" "$6"
	# Hot pages in zram now and how many of them a policy recompressed (their slots, from
	# the workload's pagemap, against block_state's r flag).
	wait_line "$W" "^SWAPLOAD hotslots" 120 || fail "$policy: the workload did not list its hot slots"
	block_state "$Z" >"$WORK/bs.$policy"
	set -- $(awk 'FNR == NR { if ($1 == "SWAPLOAD" && $2 == "hotslot") hot[$3] = 1; next }
		index($3, "r") { r++; if ($1 in hot) hr++ }
		END { print r + 0, hr + 0 }' "$W" "$WORK/bs.$policy")
	out "swap.$policy.recompressed_slots" "$1"
	out "swap.$policy.hot_in_zram" "$(sed -n 's/^SWAPLOAD hotslots //p' "$W")"
	out "swap.$policy.hot_recompressed" "$2"
	rm -f "$WORK/bs.$policy"
	case $policy in
	naive)
		stop_bg "$NAIVEPID"
		kw=$(awk '{ t += $1 } END { printf "%.6f", t / 1e9 }' "$WORK/naive.writes")
		out swap.naive.kernel_write_s "$kw"
		out swap.naive.enomem "$(awk '$2 == 12 { n++ } END { print n + 0 }' "$WORK/naive.writes")"
		;;
	daemon)
		proc_stats swap.daemon.proc "$DPID"
		out swap.daemon.passes "$(log_count "$Z: pass: ")"
		out swap.daemon.repaced "$(log_count "running pass now takes")"
		show "$DLOG"
		stop_daemon
		;;
	esac
	note "$policy: $(grep '^SWAPLOAD ops' "$W"); mm_stat $(zget "$Z" mm_stat)"
	stop_bg "$LOADPID"
	swapoff "/dev/$Z" || fail "swapoff /dev/$Z failed"
	zram_del "$Z"
done
stop_bg "$HOLDPID"
pass
