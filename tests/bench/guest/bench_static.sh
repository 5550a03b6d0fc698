#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 1, static: the same pages, everything idle, one policy per fresh device (lzo-rle
# primary, zstd secondary at priority 1):
#   none           no recompression
#   naive          echo all > idle; echo type=idle > recompress   (as distributions ship it)
#   naive_compact  the same, then echo 1 > compact
#   once           zram-recompd --once with the shipped defaults, except idle-age-max-sec = 0
#                  (every page counts as idle: the data was written seconds ago)
#   limit          the same pages on a zstd-primary device (what recompression can reach)
#   once           also: what its compaction freed and cost (compact_freed, compact_s)
#   limit9         the pages on a zstd level 9 primary (what a cold tier can reach)
#   cold           the daemon with recompress-algorithms = zstd zstd, levels 3 and 9, and a
#                  cold tier at priority 2 (cold age 4 s, interval 2 s): memory once its
#                  first cold pass has run, against limit9
# Reports mm_stat after each, the time spent in kernel writes, and the r/n slot counts; for
# --once also the CPU of the whole process (user and system, all threads: wait4 in vmbench
# run), of which the recompress writes' kernel work is part. Pages, disksize and slot counts
# are in the kernel's page size (PAGE, static.page_size).
# Word splitting of $(...) into "set --" is intended; start_bg assigns pids by name.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

out static.page_size "$PAGE"
out static.pages "$PAGES"
out static.disksize "$DISKSIZE"

# flags PREFIX: r and n slot counts of $Z.
flags() {
	set -- "$1" $(block_state "$Z" | awk '
		index($3, "r") { r++ } index($3, "n") { n++ } END { print r + 0, n + 0 }')
	out "$1.recompressed_slots" "$2"
	out "$1.incompressible_slots" "$3"
}

bench_dev zstd
mm_out static.limit "$Z"
zram_del "$Z"

bench_dev lzo-rle zstd
mm_out static.none "$Z"
out static.none.kernel_write_s 0
out static.none.writes 0
flags static.none
zram_del "$Z"

for policy in naive naive_compact; do
	bench_dev lzo-rle zstd
	timed_write "/sys/block/$Z/idle" all
	idle=$WNS
	timed_write "/sys/block/$Z/recompress" type=idle
	rec=$WNS
	comp=0
	writes=2
	if [ "$policy" = naive_compact ]; then
		timed_write "/sys/block/$Z/compact" 1
		comp=$WNS
		writes=3
	fi
	note "$policy: idle $(secs "$idle") s, recompress $(secs "$rec") s, compact $(secs "$comp") s"
	mm_out "static.$policy" "$Z"
	out "static.$policy.idle_write_s" "$(secs "$idle")"
	out "static.$policy.recompress_write_s" "$(secs "$rec")"
	out "static.$policy.compact_write_s" "$(secs "$comp")"
	out "static.$policy.kernel_write_s" "$(secs $((idle + rec + comp)))"
	out "static.$policy.writes" "$writes"
	flags "static.$policy"
	zram_del "$Z"
done

bench_dev lzo-rle zstd
conf "$WORK/once.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
# vmbench run: "NS EXIT UTIME_NS STIME_NS" of the --once process
set -- $("$VMBENCH" run "$WORK/once.out" "$RECOMPD" --config "$WORK/once.conf" --once --device "$Z")
[ $# -eq 4 ] || fail "vmbench run of zram-recompd --once failed"
show "$WORK/once.out"
[ "$2" -eq 0 ] || fail "zram-recompd --once exited $2"
out static.once.wall_s "$(secs "$1")"
out static.once.user_s "$(secs "$3")"
out static.once.sys_s "$(secs "$4")"
out static.once.cpu_s "$(secs $(($3 + $4)))"
mm_out static.once "$Z"
# --once reports the time of every recompress and compact write, not the idle mark's.
out static.once.kernel_write_s "$(once_kernel_s "$WORK/once.out")"
out static.once.writes "$(once_writes "$WORK/once.out")"
flags static.once
# compaction's share: what it freed after the passes, and its write time
set -- $(awk '/: compact: freed / {
	for (i = 1; i <= NF; i++) if ($i == "freed") { v = $(i + 1); u = $(i + 2) }
	m = (u == "MiB") ? 1048576 : (u == "KiB") ? 1024 : (u == "GiB") ? 1073741824 : 1
	printf "%d %s\n", v * m, $(NF - 1) }' "$WORK/once.out")
out static.once.compact_freed "${1:-0}"
out static.once.compact_s "${2:-0}"
zram_del "$Z"

# The zstd level 9 limit: algorithm_params before disksize, after the algorithm (7.3+
# resets a priority's parameters when its algorithm is written).
zram_add
zset "$Z" comp_algorithm zstd
zset "$Z" algorithm_params "algo=zstd level=9"
zset "$Z" disksize "$DISKSIZE"
load "$Z" "$DATA/pages.bin"
mm_out static.limit9 "$Z"
zram_del "$Z"

# The cold tier: zram-recompd configures the uninitialized device (both priorities, then
# their levels), the pages go in, the daemon runs until a pass with the cold tier ended.
zram_add
zset "$Z" comp_algorithm lzo-rle
conf "$WORK/cold.conf" "recompress-algorithms = zstd zstd" "algorithm-params = 1:level=3 2:level=9" \
	"idle-age-max-sec = 0" "interval-sec = 2" "cold-idle-age-sec = 4" "cold-priority = 2" \
	"psi-cpu-max-percent = 0" "pages-per-hour = 0" "cpu-share-max-percent = 0"
"$RECOMPD" --config "$WORK/cold.conf" --once --device "$Z" >"$WORK/cold-setup.out" 2>&1 ||
	fail "configuring $Z for the cold tier failed: $(cat "$WORK/cold-setup.out")"
zset "$Z" disksize "$DISKSIZE"
load "$Z" "$DATA/pages.bin"
t0=$(ns)
ZRAM_RECOMPD_STATE_DIR=$WORK/cold-state
export ZRAM_RECOMPD_STATE_DIR
mkdir -p "$ZRAM_RECOMPD_STATE_DIR"
start_daemon "$WORK/cold.log" --config "$WORK/cold.conf"
wait_log "$Z: pass: .*\(cold tier first\)" 1 600 || fail "no cold-tier pass within 600 s"
stop_daemon
t1=$(ns)
mm_out static.cold "$Z"
out static.cold.passes "$(log_count "$Z: pass: ")"
out static.cold.wall_s "$(secs $((t1 - t0)))"
flags static.cold
zram_del "$Z"
pass
