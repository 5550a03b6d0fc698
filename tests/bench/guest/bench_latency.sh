#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 3, responsiveness: how long one sysfs write keeps the writer in the kernel, and how
# fast the daemon ends on SIGTERM while a pass runs.
#  - The writes of one default pass, each timed on its own (zram-recompd reports only sums):
#    idle all, then type=huge_idle, type=idle and type=huge with max_pages=2048 repeated while
#    they make progress (as zram-recompd does), then compact; then the next pass's type=idle
#    write over the now recompressed device (on 6.2-6.14 it decompresses every recompressed
#    slot again, and such slots do not count against max_pages). REPS runs on fresh devices
#    (the host's load moves emulated timings): the median of their longest writes is reported.
#    The naive policy's single unbatched recompress write is timed by bench_static.
#  - The first pass's type=idle writes with max_pages 1024 and 512, REPS runs each.
#  - SIGTERM: the daemon (interval-sec = 1, idle-age-max-sec = 0, otherwise defaults) on a
#    fresh device; the signal goes out as soon as compr_data_size starts falling, and the time
#    until the process has exited is measured. Three runs, and a fourth on a device that
#    --once recompressed before, with the signal 100 ms into the pass's longest write.
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
: >"$WORK/again"
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

	# The next pass: every recompressed slot is idle again (ac_time 0; idle all here).
	r=$(bs_count "$Z" r)
	timed_write "/sys/block/$Z/idle" all
	batches "$p.again" idle "$BATCH"
	out "$p.again.recompressed_slots" "$r"
	echo "$BM $r" >>"$WORK/again"
	zram_del "$Z"
done
out latency.batched.longest_write_s "$(secs "$(median <"$WORK/longest")")"
out latency.batched.longest_write_min_s "$(secs "$(sort -n "$WORK/longest" | head -n 1)")"
out latency.batched.longest_write_max_s "$(secs "$(sort -n "$WORK/longest" | tail -n 1)")"
set -- $(sort -n "$WORK/again" | awk '{ v[NR] = $0 } END { print v[int((NR + 1) / 2)] }')
out latency.again.max_s "$(secs "$1")"
out latency.again.recompressed_slots "$2"
out latency.again.us_per_recompressed_slot "$(awk -v t="$1" -v r="$2" \
	'BEGIN { if (r > 0) printf "%.2f", t / r / 1000; else print "null" }')"

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
	wait "$dpid"
	RC=$?
	BENCH_PIDS=$(echo " $BENCH_PIDS " | sed "s/ $dpid / /")
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

# Once more on a device that --once recompressed before: the daemon's pass changes nothing,
# but its type=idle write walks every recompressed slot. The signal goes out 100 ms into the
# first recompress write that lasts that long.
bench_dev lzo-rle zstd
conf "$WORK/once.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
"$RECOMPD" --config "$WORK/once.conf" --once --device "$Z" >"$WORK/once.out" 2>&1 ||
	fail "--once failed"
conf "$WORK/d4.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" "interval-sec = 1" \
	"devices = $Z"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state4"
start_bg dpid "$RECOMPD" --config "$WORK/d4.conf" >"$WORK/daemon.4.log" 2>&1
set -- $("$VMBENCH" termwrite "$dpid" recompress 100 60)
[ $# -eq 2 ] || { show "$WORK/daemon.4.log"; fail "no SIGTERM measurement (recompressed device)"; }
stop=$1
stop_daemon_run 4
note "recompressed device: SIGTERM $2 ms into a recompress write -> exit $(secs "$stop") s," \
	"exit code $RC"
out latency.sigterm.again.exit_s "$(secs "$stop")"
out latency.sigterm.again.write_ms_at_signal "$2"
out latency.sigterm.again.exit_code "$RC"
out latency.sigterm.again.recompressed_slots "$(bs_count "$Z" r)"
[ "$stop" -gt "$worst" ] && worst=$stop
zram_del "$Z"
out latency.sigterm.max_exit_s "$(secs "$worst")"
pass
