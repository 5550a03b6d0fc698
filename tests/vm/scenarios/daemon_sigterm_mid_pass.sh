#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGTERM while a long pass runs: 96 MiB of pages, batches of 256 pages (a pass is about a
# hundred recompress writes). The signal is sent as soon as compr_data_size starts falling;
# the daemon must exit within 1 s (the batch running then, the final mm_stat and block_state
# reads and the state file), exit code 0, log the pass as interrupted, count it in the state
# file, and leave part of the device not recompressed (it really stopped mid-pass).
. /vm/lib.sh
need_recompd

BATCH=256
zram_add
zset "$Z" recomp_algorithm "algo=zstd priority=1"
zset "$Z" disksize 128M
conf "$WORK/d.conf" "recompress-algorithms = zstd" "passes = idle" "interval-sec = 1" \
	"idle-age-max-sec = 0" "max-pages-per-batch = $BATCH" "max-pages-per-pass = 0" \
	"backoff-max-sec = 0" "cpu-share-max-percent = 0" "pages-per-hour = 0" \
	"psi-cpu-max-percent = 0" "memory-stall-us = 0" "defer-on-battery = no" \
	"devices = $Z"

P=$(pages_of "$DATA/pages.bin")
total=24576
done_=0
while [ "$done_" -lt "$total" ]; do
	n=$((total - done_))
	[ "$n" -gt "$P" ] && n=$P
	load "$Z" "$DATA/pages.bin" 0 "$n" "$done_"
	done_=$((done_ + n))
done
cand=$(block_state "$Z" | awk '!index($3, "s") { n++ } END { print n + 0 }')
c0=$(mm "$Z" compr_data_size)
note "$total pages loaded, $cand candidates (not same-filled), compr_data_size $c0"

export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf"
wait_log "running on Linux" 1 10 || fail "the daemon did not start"
# The first pass is due 1 s after the start; wait until it has recompressed something.
i=0
while [ "$(mm "$Z" compr_data_size)" -ge "$c0" ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "no pass started within 15 s"
	daemon_alive || fail "the daemon exited"
	usleep 50000
done
[ "$(log_count "^zram-recompd: $Z: pass")" -eq 0 ] || fail "the first pass ended before SIGTERM"
c1=$(mm "$Z" compr_data_size)
stop_daemon
stop=$STOP_S
expect_eq "daemon exit code after SIGTERM" "$RC" 0
r=$(bs_count "$Z" r)
c2=$(mm "$Z" compr_data_size)
note "compr_data_size $c0 -> $c1 (signal) -> $c2 (exit); $r of $cand slots recompressed"
awk -v s="$stop" 'BEGIN { exit !(s <= 1.0) }' || fail "SIGTERM -> exit took $stop s (limit 1 s)"
grep -q "^zram-recompd: $Z: pass (interrupted)" "$DLOG" ||
	fail "the pass is not logged as interrupted"
[ "$r" -gt 0 ] || fail "no slot recompressed"
# Interrupted for real: a good part of the candidates was never reached.
[ "$r" -lt $((cand * 3 / 4)) ] ||
	fail "$r of $cand slots recompressed: the pass was not stopped early"
expect_eq "state file passes" "$(state_field "$Z" passes)" 1
pass_note "SIGTERM->exit $stop s with batches of $BATCH pages; $r of $cand slots recompressed"
