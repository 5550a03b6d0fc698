#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The swap workload's runs, shared by bench_swap.sh (steady state after a warm-up) and
# bench_burst.sh (the first minute after a burst of swap-out). Sourced after lib.sh and
# benchlib.sh, with the balloon already holding the memory the workload may not use.
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC2046,SC2086,SC2154

SWAPLOAD=/usr/bin/swapload

# swap_need: the daemon and the workload are in the image; MIB and RAM from the knobs
# (BENCH_SWAP_MIB, default 400 MiB of page data; BENCH_SWAP_RAM_MIB, default 256 MiB of RAM).
swap_need() {
	need_recompd
	[ -x "$SWAPLOAD" ] || fail "swapload missing from the initramfs"
	MIB=${BENCH_SWAP_MIB:-400}
	RAM=${BENCH_SWAP_RAM_MIB:-256}
}

# swap_naive_writes: the /proc directories of the naive job's writes under way, a line each.
swap_naive_writes() {
	for sp_proc in /proc/[0-9]*; do
		tr '\0' ' ' <"$sp_proc/cmdline" 2>/dev/null | grep -q "^$VMBENCH write /sys/block/$Z/" &&
			echo "$sp_proc"
	done
}

# swap_naive_cpu: the naive job's CPU so far, in seconds: its writes done (naive.writes,
# the third column) and those under way (their processes' utime + stime).
swap_naive_cpu() {
	_sn_done=$(awk '{ t += $3 } END { printf "%.6f", t / 1e9 }' "$WORK/naive.writes")
	_sn_ticks=0
	for _sn_proc in $(swap_naive_writes); do
		_sn_t=$(awk '{ print $14 + $15 }' "$_sn_proc/stat" 2>/dev/null)
		_sn_ticks=$((_sn_ticks + ${_sn_t:-0}))
	done
	awk -v d="$_sn_done" -v t="$_sn_ticks" 'BEGIN { printf "%.2f", d + t / 100 }'
}

# swap_policy KEY POLICY MIB HOT_PERCENT SECONDS COLD_EVERY WARMUP: one run of the workload
# on a fresh 1 GiB zram swap device (lzo-rle, zstd #1) with POLICY (none, naive: every 10 s
# idle all, recompress type=idle, compact; daemon: interval and idle ages 10 s, defaults
# otherwise), its figures as KEY.POLICY.* lines. The daemon logs its steps (--verbose) so
# that its CPU by kind ("cpu:" lines, include/pass_cpu.h) is summed; a reader times an
# mm_stat read every 100 ms meanwhile (on 7.0+ a recompress write holds the lock it needs).
swap_policy() {
	_k=$1 _pol=$2 _mib=$3 _hot=$4 _secs=$5 _cold=$6 _warm=$7
	# Each run with RAM MiB, whatever the runs before left behind (on 7.3 with one vCPU the
	# third run's fill met the OOM killer with the balloon sized once at the start).
	swap_balloon "$RAM"
	zram_add
	zset "$Z" comp_algorithm lzo-rle
	zset "$Z" recomp_algorithm "algo=zstd priority=1"
	zset "$Z" disksize 1G
	mkswap "/dev/$Z" >/dev/null 2>&1 || fail "mkswap /dev/$Z failed"
	swapon "/dev/$Z" || fail "swapon /dev/$Z failed"
	W=$WORK/$_k.$_pol.out
	: >"$WORK/naive.writes"
	: >"$WORK/naive.when"
	# VERIFY 1: after the measured window it lists the swap slots of its swapped-out hot
	# pages (then waits; the pages are not verified here).
	start_bg LOADPID "$SWAPLOAD" run "$DATA/pages.bin" "$_mib" "$_hot" "$_secs" 1 "$_cold" "$_warm" 1 >"$W"
	wait_line "$W" "SWAPLOAD filled" 600 || fail "$_pol: the workload did not fill its memory"
	_tfill=$("$VMBENCH" now)
	start_bg READPID "$VMBENCH" readloop "/sys/block/$Z/mm_stat" 100 $((_secs + _warm)) >"$WORK/reads.out"
	# The burst window (no warm-up): the pool and the swap in use every 500 ms, without
	# the device lock, for the mean over the window beside the pool at its end.
	POOLPID=
	[ "$_warm" -gt 0 ] || start_bg POOLPID "$VMBENCH" poolloop 500 "$_secs" >"$WORK/pool.out"
	case $_pol in
	naive)
		(
			while :; do
				sleep 10
				for c in "idle all" "recompress type=idle" "compact 1"; do
					set -- $c
					echo "$("$VMBENCH" now) $1" >>"$WORK/naive.when"
					"$VMBENCH" write "/sys/block/$Z/$1" "$2" >>"$WORK/naive.writes"
				done
			done
		) &
		NAIVEPID=$!
		BENCH_PIDS="$BENCH_PIDS $NAIVEPID"
		;;
	daemon | daemon-idle)
		conf "$WORK/swap.conf" "recompress-algorithms = zstd" "interval-sec = 10" \
			"idle-age-min-sec = 10" "idle-age-max-sec = 10" "devices = $Z"
		# daemon-idle (a diagnostic, BENCH_BURST_POLICIES): the daemon present, its
		# page bucket of one page spent by the first passes (their block_state reads,
		# idle marks and compaction: about 0.9 s of CPU on 6.12), every pass after them
		# deferred: what the daemon costs the workload besides recompression.
		[ "$_pol" = daemon ] || echo "pages-per-hour = 1" >>"$WORK/swap.conf"
		# BENCH_BURST_AGE (a diagnostic): burst-idle-age-sec other than its default (0: off)
		[ -z "${BENCH_BURST_AGE:-}" ] || echo "burst-idle-age-sec = $BENCH_BURST_AGE" >>"$WORK/swap.conf"
		ZRAM_RECOMPD_STATE_DIR=$WORK/swap-state.$_k
		export ZRAM_RECOMPD_STATE_DIR
		mkdir -p "$ZRAM_RECOMPD_STATE_DIR"
		start_daemon "$WORK/swap-daemon.log" --verbose --config "$WORK/swap.conf"
		;;
	esac
	# The policy's CPU in the warm-up (its first passes) and in the measured window apart.
	if [ "$_warm" -gt 0 ]; then
		wait_line "$W" "SWAPLOAD warmup" $((_warm * 20 + 600)) ||
			fail "$_pol: the workload's warm-up did not end"
		case $_pol in
		naive) out "$_k.naive.warmup_kernel_write_s" "$(awk '{ t += $1 } END { printf "%.6f", t / 1e9 }' "$WORK/naive.writes")" ;;
		daemon) out "$_k.daemon.warmup_cpu_ticks" "$(awk '{ print $14 + $15 }' "/proc/$DPID/stat")" ;;
		esac
	fi
	wait_line "$W" "SWAPLOAD ops" $((_secs * 20 + 600)) || fail "$_pol: the workload did not end"
	# Each policy's CPU in the measured window, read as it ends: the daemon's process (it
	# starts with the window), the naive job's writes done by then and the one under way.
	# The daemon's per-pass split (cpu.*) leaves out a pass still running at the end (on
	# 6.12 warmcold 2-2.5 s of about 12), and naive.cpu_s counts a write's CPU after the
	# window too (on 7.3 one write took 24 s). Without a warm-up (the burst scenario) only.
	[ "$_warm" -gt 0 ] || case $_pol in
	naive) out "$_k.naive.cpu_window_s" "$(swap_naive_cpu)" ;;
	daemon | daemon-idle)
		out "$_k.$_pol.cpu_window_s" "$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$DPID/stat")"
		;;
	esac
	# Measured while the workload still holds its memory. First what needs no device lock:
	# on 7.0+ an mm_stat read waits for a recompress write under way, with the naive job
	# on 7.3 until its write over the whole device ends, after the window, while the
	# workload waits and frees no slot. The pool in zsmalloc's pages (nr_zspages: the only
	# pool in the VM) is the kernel's at 60 s; the pages stored (orig_data_size) do not
	# change while the workload waits. The swap in use is a check on them (on 6.12 about
	# 1.4% more: slots whose free is still batched).
	_t0=$("$VMBENCH" now)
	out "$_k.$_pol.pool_end" "$(awk -v p="$PAGE" '$1 == "nr_zspages" { print $2 * p }' /proc/vmstat)"
	out "$_k.$_pol.swap_used_end" "$(awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 }
		END { print (t - f) * 1024 }' /proc/meminfo)"
	mm_out "$_k.$_pol" "$Z"
	if [ -n "$POOLPID" ]; then
		wait_bg "$POOLPID"
		set -- $(sed -n 's/^pool samples \([0-9]*\) mean_pages \([0-9.]*\) mean_swap_kb \([0-9.]*\) last_pages \([0-9]*\)$/\1 \2 \3 \4/p' "$WORK/pool.out")
		if [ $# = 4 ]; then
			out "$_k.$_pol.pool_samples" "$1"
			out "$_k.$_pol.pool_mean" "$(awk -v n="$2" -v p="$PAGE" 'BEGIN { printf "%.0f", n * p }')"
			out "$_k.$_pol.swap_used_mean" "$(awk -v n="$3" 'BEGIN { printf "%.0f", n * 1024 }')"
			# a check on the parse: the last sample, next to pool_end
			out "$_k.$_pol.pool_last" "$(($4 * PAGE))"
		fi
	fi
	out "$_k.$_pol.mm_stat_wait_s" "$(awk -v a="$_t0" -v b="$("$VMBENCH" now)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
	# Slot frees: a swap-in frees its slot (notify_free, io_stat); one that finds the slot
	# locked (a recompress write on it) is missed, and the slot keeps its data until it is
	# written again (miss_free, debug_stat's second figure).
	out "$_k.$_pol.notify_free" "$(awk '{ print $4 }' "/sys/block/$Z/io_stat")"
	out "$_k.$_pol.miss_free" "$(awk 'NR == 2 { print $2 }' "/sys/block/$Z/debug_stat" 2>/dev/null)"
	out "$_k.$_pol.memavailable_kb" "$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)"
	set -- $(sed -n 's/^SWAPLOAD ops \([0-9]*\) seconds \([0-9.]*\) ops_per_s \([0-9]*\) cold_reads \([0-9]*\) cold_p50_us \([0-9.]*\) cold_p99_us \([0-9.]*\).*/\1 \2 \3 \4 \5 \6/p' "$W")
	out "$_k.$_pol.ops" "$1"
	out "$_k.$_pol.warmup_ops_per_s" "$(sed -n 's/^SWAPLOAD warmup ops [0-9]* seconds [0-9.]* ops_per_s \([0-9]*\).*/\1/p' "$W")"
	out "$_k.$_pol.windows" "$(awk '/^SWAPLOAD window/ { printf "%s%s", s, $6; s = "," }' "$W")"
	out "$_k.$_pol.ops_per_s" "$3"
	out "$_k.$_pol.cold_reads" "$4"
	out "$_k.$_pol.cold_p50_us" "$5"
	out "$_k.$_pol.cold_p99_us" "$6"
	stop_bg "$READPID"
	set -- $(sed -n 's/^reads \([0-9]*\) max_ns \([0-9]*\).*/\1 \2/p' "$WORK/reads.out" | tail -n 1)
	out "$_k.$_pol.mm_stat_reads" "${1:-0}"
	out "$_k.$_pol.mm_stat_read_max_s" "$(awk -v n="${2:-0}" 'BEGIN { printf "%.3f", n / 1e9 }')"
	# Hot pages in zram now and how many of them a policy recompressed (their slots, from
	# the workload's pagemap, against block_state's r flag).
	wait_line "$W" "^SWAPLOAD hotslots" 120 || fail "$_pol: the workload did not list its hot slots"
	block_state "$Z" >"$WORK/bs.$_pol"
	set -- $(awk 'FNR == NR { if ($1 == "SWAPLOAD" && $2 == "hotslot") hot[$3] = 1; next }
		index($3, "r") { r++; if ($1 in hot) hr++ }
		END { print r + 0, hr + 0 }' "$W" "$WORK/bs.$_pol")
	out "$_k.$_pol.recompressed_slots" "$1"
	out "$_k.$_pol.hot_in_zram" "$(sed -n 's/^SWAPLOAD hotslots //p' "$W")"
	out "$_k.$_pol.hot_recompressed" "$2"
	rm -f "$WORK/bs.$_pol"
	case $_pol in
	naive)
		stop_bg "$NAIVEPID"
		# Its write under way outlives the loop (on 7.3 a type=idle write ran 14 s): wait
		# for it, or the next run fills its memory while this device still holds its pool.
		for sp_proc in $(swap_naive_writes); do
			while [ -d "$sp_proc" ]; do sleep 1; done
		done
		out "$_k.naive.kernel_write_s" "$(awk '{ t += $1 } END { printf "%.6f", t / 1e9 }' "$WORK/naive.writes")"
		out "$_k.naive.cpu_s" "$(awk '{ t += $3 } END { printf "%.6f", t / 1e9 }' "$WORK/naive.writes")"
		out "$_k.naive.enomem" "$(awk '$2 == 12 { n++ } END { print n + 0 }' "$WORK/naive.writes")"
		# Each write: seconds from the fill to its start, the attribute, its wall and CPU
		# seconds and its errno, where the daemon's passes log theirs.
		out "$_k.naive.write_log" "$(paste -d ' ' "$WORK/naive.when" "$WORK/naive.writes" |
			awk -v t="$_tfill" 'NF == 5 { printf "%s%.1f:%s:%.3f:%.3f:%d", s, ($1 - t) / 1e9, $2,
				$3 / 1e9, $5 / 1e9, $4; s = "," }')"
		;;
	daemon | daemon-idle)
		proc_stats "$_k.$_pol.proc" "$DPID"
		out "$_k.$_pol.passes" "$(log_count "$Z: pass: ")"
		out "$_k.$_pol.repaced" "$(log_count "running pass now takes")"
		# The passes' CPU by kind: "ZRAM: cpu: T s (user U s; kernel: recompress R s,
		# idle marks I s, block_state B s, compact C s, writeback W s, other O s)"
		set -- $(sed -n "s/.*$Z: cpu: \([0-9.]*\) s (user \([0-9.]*\) s; kernel: recompress \([0-9.]*\) s, idle marks \([0-9.]*\) s, block_state \([0-9.]*\) s, compact \([0-9.]*\) s, writeback \([0-9.]*\) s, other \([0-9.]*\) s).*/\1 \2 \3 \4 \5 \6 \7 \8/p" "$DLOG" |
			awk '{ for (i = 1; i <= 8; i++) s[i] += $i } END { for (i = 1; i <= 8; i++) printf "%.3f ", s[i] + 0 }')
		out "$_k.$_pol.cpu.passes_s" "$1"
		out "$_k.$_pol.cpu.user_s" "$2"
		out "$_k.$_pol.cpu.recompress_s" "$3"
		out "$_k.$_pol.cpu.idle_s" "$4"
		out "$_k.$_pol.cpu.block_state_s" "$5"
		out "$_k.$_pol.cpu.compact_s" "$6"
		out "$_k.$_pol.cpu.other_s" "$8"
		out "$_k.$_pol.attempted" "$(sed -n "s/.*$Z: pass.*, \([0-9]*\) pages attempted.*/\1/p" "$DLOG" | awk '{ s += $1 } END { print s + 0 }')"
		show "$DLOG"
		stop_daemon
		;;
	esac
	note "$_k $_pol: $(grep '^SWAPLOAD ops' "$W"); mm_stat $(zget "$Z" mm_stat)"
	stop_bg "$LOADPID"
	swapoff "/dev/$Z" || fail "swapoff /dev/$Z failed"
	zram_del "$Z"
}

# swap_balloon RAM_MIB: lock all but RAM_MIB MiB of what is available (HOLDPIDS). Memory
# comes back late after the run before (on 7.3 a balloon sized at once held 140 MiB too
# little and the run did not swap), so the balloon is topped up while more than RAM_MIB + 16
# MiB is available, as the VM tier's adopt scenario does.
swap_balloon() {
	swap_balloon_stop
	avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	[ "$avail" -gt $(($1 + 64)) ] || skip "only $avail MiB available"
	sp_i=0
	while [ "$avail" -gt $(($1 + 16)) ] && [ "$sp_i" -lt 5 ]; do
		start_bg sp_pid "$SWAPLOAD" hold $((avail - $1)) >"$WORK/hold.$sp_i.out"
		wait_line "$WORK/hold.$sp_i.out" "SWAPLOAD holding" 120 || fail "the balloon did not start"
		# Never the OOM killer's choice: without it the runs after would have all the memory.
		echo -1000 >"/proc/$sp_pid/oom_score_adj"
		HOLDPIDS="$HOLDPIDS $sp_pid"
		sleep 2
		avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
		sp_i=$((sp_i + 1))
	done
	note "balloon: $sp_i part(s) locked; MemAvailable now $avail MiB"
}

# swap_balloon_stop: give the balloon's memory back.
swap_balloon_stop() {
	for sp_pid in $HOLDPIDS; do
		stop_bg "$sp_pid"
	done
	HOLDPIDS=
}
