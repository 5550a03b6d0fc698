#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 3, responsiveness: how long one sysfs write keeps the writer in the kernel, and how
# fast the daemon ends on SIGTERM while a pass runs.
#  - The writes of one default pass, each timed on its own (zram-recompd reports only sums):
#    idle all, then type=huge_idle, type=idle and type=huge with max_pages=2048 repeated while
#    they make progress (as zram-recompd does), then compact. REPS runs on fresh devices: the
#    median of their longest writes is reported.
#    The naive policy's single unbatched recompress write is timed by bench_static.
#  - zram-recompd's own next pass on that fully recompressed device: --once with the same
#    defaults. It skips the idle steps when block_state shows no idle slot left to improve
#    (docs/policy.md, "Recompressed pages look idle"); its longest write is at most the
#    largest per-step kernel time it reports, or the idle mark (timed here: --once does not
#    report it).
#  - The kernel's cost of what that pass now skips: idle all, then type=idle max_pages=2048
#    written directly, over the recompressed device (on 6.2-6.14 it decompresses every
#    recompressed slot again, and such slots do not count against max_pages).
#  - The first pass's type=idle writes with max_pages 1024 and 512, REPS runs each.
#  - SIGTERM: the daemon (interval-sec = 1, idle-age-max-sec = 0, otherwise defaults) on a
#    fresh device; the signal goes out as soon as compr_data_size starts falling, and the time
#    until the process has exited is measured; three runs. (A pass over an already
#    recompressed device no longer makes a long write to send the signal into.)
# Word splitting of $(...) into "set --" is intended; start_bg assigns pids by name.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

REPS=${BENCH_LATENCY_REPS:-3}
BATCH=2048
out latency.reps "$REPS"
out latency.batched.max_pages "$BATCH"

# median of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}

# batches PREFIX TYPE PAGES: the writes of one pass type on $Z; sets BW (writes), BT (total
# ns), BM (longest ns) and writes PREFIX.{writes,total_s,max_s,each_s}.
batches() {
	"$VMBENCH" batches "$Z" "type=$2 max_pages=$3" 1000 >"$WORK/batches.out" ||
		fail "batches of type=$2 max_pages=$3 failed"
	set -- "$1" "$2" "$3" $(awk '$1 == "writes" { print $2, $4, $6 }' "$WORK/batches.out")
	BW=$4 BT=$5 BM=$6
	note "type=$2 max_pages=$3: $BW writes, $(secs "$BT") s, longest $(secs "$BM") s"
	out "$1.writes" "$BW"
	out "$1.total_s" "$(secs "$BT")"
	out "$1.max_s" "$(secs "$BM")"
	out "$1.each_s" "$(awk '$1 == "write" { printf "%s%.3f", n++ ? "," : "", $2 / 1e9 }' \
		"$WORK/batches.out")"
}

: >"$WORK/longest"
: >"$WORK/next"
: >"$WORK/walk"
conf "$WORK/next.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
for rep in $(seq 1 "$REPS"); do
	p=latency.batched.run$rep
	bench_dev lzo-rle zstd
	timed_write "/sys/block/$Z/idle" all
	out "$p.idle_write_s" "$(secs "$WNS")"
	max=$WNS
	writes=0
	total=0
	for t in huge_idle idle huge; do
		batches "$p.$t" "$t" "$BATCH"
		writes=$((writes + BW))
		total=$((total + BT))
		[ "$BM" -gt "$max" ] && max=$BM
	done
	timed_write "/sys/block/$Z/compact" 1
	out "$p.compact_write_s" "$(secs "$WNS")"
	[ "$WNS" -gt "$max" ] && max=$WNS
	out "$p.recompress_writes" "$writes"
	out "$p.recompress_total_s" "$(secs "$total")"
	out "$p.longest_write_s" "$(secs "$max")"
	echo "$max" >>"$WORK/longest"
	r=$(bs_count "$Z" r)

	# zram-recompd's next pass on the recompressed device (every recompressed slot reads as
	# idle again: ac_time 0, and --once marks all pages idle).
	n=latency.next.run$rep
	export ZRAM_RECOMPD_STATE_DIR="$WORK/next_state$rep"
	"$RECOMPD" --config "$WORK/next.conf" --once --device "$Z" >"$WORK/next.out" 2>&1 ||
		{ show "$WORK/next.out"; fail "--once (next pass) failed"; }
	show "$WORK/next.out"
	# The largest kernel time of one step (or of compact) bounds each of its writes.
	step_max=$(awk '/ s in kernel/ { for (i = 1; i <= NF; i++)
			if ($i == "s" && $(i + 1) == "in" && $(i - 1) > m) m = $(i - 1) }
		/: compact: freed / { if ($(NF - 1) > m) m = $(NF - 1) }
		END { printf "%.0f", m * 1e9 }' "$WORK/next.out")
	# The idle mark that pass made (idle all; not in the report), timed on its own. It also
	# marks the device for the kernel's walk below.
	timed_write "/sys/block/$Z/idle" all
	nmax=$WNS
	[ "$step_max" -gt "$nmax" ] && nmax=$step_max
	out "$n.recompress_writes" "$(once_writes "$WORK/next.out")"
	out "$n.kernel_write_s" "$(once_kernel_s "$WORK/next.out")"
	out "$n.skipped_steps" "$(grep -c 'stop: nothing left to improve' "$WORK/next.out")"
	out "$n.idle_mark_s" "$(secs "$WNS")"
	out "$n.step_max_s" "$(secs "$step_max")"
	out "$n.longest_write_s" "$(secs "$nmax")"
	echo "$nmax" >>"$WORK/next"

	# What that pass skips, written directly: one type=idle write walks every recompressed slot.
	batches "latency.walk.run$rep" idle "$BATCH"
	out "latency.walk.run$rep.recompressed_slots" "$r"
	echo "$BM $r" >>"$WORK/walk"
	zram_del "$Z"
done
out latency.batched.longest_write_s "$(secs "$(median <"$WORK/longest")")"
out latency.batched.longest_write_min_s "$(secs "$(sort -n "$WORK/longest" | head -n 1)")"
out latency.batched.longest_write_max_s "$(secs "$(sort -n "$WORK/longest" | tail -n 1)")"
out latency.next.longest_write_s "$(secs "$(median <"$WORK/next")")"
set -- $(sort -n "$WORK/walk" | awk '{ v[NR] = $0 } END { print v[int((NR + 1) / 2)] }')
out latency.walk.max_s "$(secs "$1")"
out latency.walk.recompressed_slots "$2"
out latency.walk.us_per_recompressed_slot "$(awk -v t="$1" -v r="$2" \
	'BEGIN { if (r > 0) printf "%.2f", t / r / 1000; else print "null" }')"

# zram-recompd's own first pass on a fresh device, its writes as it reports them: with
# max-write-ms (the default, 100 ms: each write sized from the cost per page of the ones
# before) and with fixed batches (max-write-ms = 0: max_pages 2048). The longest single
# write of each (the step lines' "longest write", and compact), its kernel time (idle mark
# left out, as --once reports it) per MiB saved. One run each: emulated times repeat.
for mode in bounded fixed; do
	bench_dev lzo-rle zstd
	c0=$(mm "$Z" compr_data_size)
	if [ "$mode" = fixed ]; then
		conf "$WORK/own.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
			"max-write-ms = 0"
	else
		conf "$WORK/own.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
	fi
	export ZRAM_RECOMPD_STATE_DIR="$WORK/own_state_$mode"
	"$RECOMPD" --config "$WORK/own.conf" --once --device "$Z" >"$WORK/own.out" 2>&1 ||
		{ show "$WORK/own.out"; fail "--once ($mode) failed"; }
	show "$WORK/own.out"
	p=latency.own.$mode
	out "$p.writes" "$(once_writes "$WORK/own.out")"
	out "$p.kernel_write_s" "$(once_kernel_s "$WORK/own.out")"
	out "$p.longest_write_s" "$(awk '/\(longest write / { for (i = 1; i < NF; i++)
			if ($i == "(longest" && $(i + 2) + 0 > m) m = $(i + 2) + 0 }
		/: compact: freed / { if ($(NF - 1) + 0 > m) m = $(NF - 1) + 0 }
		END { printf "%.6f", m }' "$WORK/own.out")"
	out "$p.saved_bytes" $((c0 - $(mm "$Z" compr_data_size)))
	zram_del "$Z"
done

# Smaller batches: the first pass's type=idle writes.
for b in 1024 512; do
	: >"$WORK/sweep"
	for rep in $(seq 1 "$REPS"); do
		bench_dev lzo-rle zstd
		timed_write "/sys/block/$Z/idle" all
		batches "latency.sweep.b$b.run$rep" idle "$b"
		echo "$BM" >>"$WORK/sweep"
		zram_del "$Z"
	done
	out "latency.sweep.b$b.writes" "$BW"
	out "latency.sweep.b$b.max_s" "$(secs "$(median <"$WORK/sweep")")"
done

stop_daemon_run() { # NAME: after vmbench printed its line; sets RC
	wait_bg "$dpid"
	RC=$?
	show "$WORK/daemon.$1.log"
}

worst=0
for run in 1 2 3; do
	bench_dev lzo-rle zstd
	conf "$WORK/d$run.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
		"interval-sec = 1" "devices = $Z"
	export ZRAM_RECOMPD_STATE_DIR="$WORK/state$run"
	start_bg dpid "$RECOMPD" --config "$WORK/d$run.conf" >"$WORK/daemon.$run.log" 2>&1
	set -- $("$VMBENCH" term "$dpid" "$Z" 60)
	[ $# -eq 3 ] || { show "$WORK/daemon.$run.log"; fail "run $run: no SIGTERM measurement"; }
	stop=$1
	stop_daemon_run "$run"
	note "run $run: SIGTERM -> exit $(secs "$stop") s, exit code $RC, compr_data_size $2 ->" \
		"$3 at the signal -> $(mm "$Z" compr_data_size) at exit"
	out "latency.sigterm.run$run.exit_s" "$(secs "$stop")"
	out "latency.sigterm.run$run.exit_code" "$RC"
	out "latency.sigterm.run$run.interrupted_passes" \
		"$(grep -c 'pass (interrupted)' "$WORK/daemon.$run.log")"
	out "latency.sigterm.run$run.passes_in_state" "$(state_total "$Z" passes)"
	[ "$stop" -gt "$worst" ] && worst=$stop
	zram_del "$Z"
done

out latency.sigterm.runs 3
out latency.sigterm.max_exit_s "$(secs "$worst")"
pass
