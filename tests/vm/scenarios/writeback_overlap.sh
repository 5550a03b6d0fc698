#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A writeback is running on the device when zram-recompd issues its recompress. What the
# kernel does then depends on its version (zram-abi.md §1, §6.5):
#  - 6.12.y and 6.13-6.19: the second post-processing operation gets -EAGAIN; zram-recompd
#    must log the retry and still finish with exit code 0;
#  - 7.0+: recompress and writeback take the device lock exclusively, so the second one (and
#    every read of that device's mm_stat) BLOCKS until the first returns; zram-recompd must
#    simply wait: exit code 0, no EAGAIN retry logged, and the slots the writeback left alone
#    recompressed afterwards. A mm_stat read started during the writeback is asserted to wait
#    for it as well.
#
# Under TCG the overlap has to be arranged: the writeback rate is measured first, then a
# writeback sized to last about 1 s on its own (7.x: 2 s) is started, and zram-recompd runs
# while it does. Up to four attempts, resized when the writeback ended too early or (6.x)
# outlasted the retries.
. /vm/lib.sh
need_recompd

conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
truncate -s 160M "$WORK/backing.img" || fail "cannot create the backing file"
L=$(losetup -f) || fail "no free loop device"
losetup "$L" "$WORK/backing.img" || fail "losetup $L failed"
LOOPS=$L

# fresh N: a device backed by $L holding N pages (pages.bin, repeated as needed), all marked
# idle.
fresh() {
	[ -n "${Z:-}" ] && zram_del "$Z"
	zram_add
	zset "$Z" backing_dev "$L"
	zset "$Z" recomp_algorithm "algo=zstd priority=1"
	zset "$Z" disksize "$DISK"
	_done=0
	while [ "$_done" -lt "$1" ]; do
		_n=$(($1 - _done))
		[ "$_n" -gt "$PAGES" ] && _n=$PAGES
		load "$Z" "$DATA/pages.bin" 0 "$_n" "$_done"
		_done=$((_done + _n))
	done
	zset "$Z" idle all
}

bd_writes() {
	set -- $(zget "$Z" bd_stat)
	echo "$3"
}

# 7.0+: the writeback covers the first half of the slots only (page_indexes, 6.16+), so that
# the recompress that waited for it still finds work in the second half.
# 7.x writes back asynchronously in batches, about 20 times faster than 6.12 here: its
# device is larger.
if kver_ge 7 0; then
	MODE=block
	DISK=256M
	wb_cmd() { echo "page_indexes=0-$(($1 - 1))"; }
	secs=2
else
	MODE=eagain
	DISK=128M
	wb_cmd() { echo idle; }
	secs=1
fi

# Calibration: pages written back per second (pages.bin pages, same-filled ones included:
# they are skipped by writeback but count in the sizes below).
PAGES=$(pages_of "$DATA/pages.bin")
max=24576 # 96 MiB written back (7.x: of 192 MiB in the device)
cal=2048
fresh "$cal"
t0=$(now)
zset "$Z" writeback "$(wb_cmd "$cal")"
t1=$(now)
d=$(elapsed "$t0" "$t1")
rate=$(awk -v n="$cal" -v d="$d" 'BEGIN { if (d < 0.01) d = 0.01; printf "%d", n / d }')
note "calibration: $cal pages ($(bd_writes) written back) in $d s: $rate pages/s ($KREL: $MODE)"
n=$(awk -v r="$rate" -v s="$secs" -v m="$max" 'BEGIN {
	n = int(r * s); if (n < 256) n = 256; if (n > m) n = m; print n }')

# ---- 6.x: EAGAIN, retried ----
eagain_attempt() {
	fresh "$n"
	note "attempt $attempt: writeback of up to $n pages"
	(echo idle >"/sys/block/$Z/writeback") &
	wbpid=$!
	# Wait until the writeback has really started (its first bio completed).
	i=0
	while [ "$(bd_writes)" -eq 0 ] && [ $i -lt 200 ]; do
		usleep 10000
		i=$((i + 1))
	done
	run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$Z"
	wait "$wbpid"
	wbrc=$?
	note "writeback exit $wbrc, bd_stat $(zget "$Z" bd_stat)"
	if grep -Eq "EAGAIN|busy, retrying" "$WORK/once.out"; then
		[ "$RC" -eq 0 ] && pass_note "$KREL: EAGAIN during the writeback, retried, exit code 0"
		if grep -qi "still busy" "$WORK/once.out"; then
			n=$((n / 2)) # the writeback outlasted the retries: shorter one
			return
		fi
		fail "zram-recompd saw EAGAIN and exited $RC"
	fi
	[ "$RC" -eq 0 ] || fail "zram-recompd exited $RC (no EAGAIN seen)"
	[ "$n" -ge "$max" ] && fail "no writeback overlapped zram-recompd's recompress ($rate pages/s)"
	n=$((n * 2)) # the writeback ended before the recompress: longer one
	[ "$n" -gt "$max" ] && n=$max
}

# ---- 7.x: the recompress (and mm_stat) blocks until the writeback returns ----
block_attempt() {
	fresh $((2 * n))
	note "attempt $attempt: writeback of slots 0-$((n - 1)) of $((2 * n))"
	rm -f "$WORK/wb.end" "$WORK/mm.end"
	(echo "$(wb_cmd "$n")" >"/sys/block/$Z/writeback" && now >"$WORK/wb.end") &
	wbpid=$!
	# bd_stat cannot tell when the writeback has started (reading it would wait for the
	# end): wait until the writing subshell sleeps uninterruptibly (state D: in the kernel,
	# waiting for its bios), then start a reader of mm_stat.
	i=0
	while [ ! -e "$WORK/wb.end" ] && [ $i -lt 200 ] &&
		! sed 's/^.*) //' "/proc/$wbpid/stat" 2>/dev/null | grep -q '^D'; do
		usleep 10000
		i=$((i + 1))
	done
	tm0=$(now)
	(cat "/sys/block/$Z/mm_stat" >/dev/null && now >"$WORK/mm.end") &
	mmpid=$!
	usleep 200000
	if [ -e "$WORK/wb.end" ]; then
		wait "$wbpid" "$mmpid"
		note "the writeback ended within 0.35 s: longer one"
		[ "$n" -ge "$max" ] && fail "a writeback of $n pages did not last 0.35 s ($rate pages/s)"
		n=$((n * 2))
		[ "$n" -gt "$max" ] && n=$max
		return
	fi
	if [ -e "$WORK/mm.end" ]; then
		wait "$wbpid" "$mmpid"
		fail "a mm_stat read returned at $(cat "$WORK/mm.end") s, while the writeback ran" \
			"(7.0+: it waits for the device lock)"
	fi
	t0=$(now)
	run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$Z"
	t1=$(now)
	wait "$wbpid"
	wbrc=$?
	wait "$mmpid"
	wbend=$(cat "$WORK/wb.end" 2>/dev/null)
	mmend=$(cat "$WORK/mm.end" 2>/dev/null)
	note "writeback exit $wbrc, ended at $wbend s; mm_stat read $tm0 -> $mmend s;" \
		"zram-recompd $t0 -> $t1 s; bd_stat $(zget "$Z" bd_stat)"
	expect_eq "writeback exit status" "$wbrc" 0
	[ -n "$mmend" ] || fail "the mm_stat read failed"
	# The read ended when the writeback did (10 ms clock, the two subshells race).
	awk -v m="$mmend" -v w="$wbend" 'BEGIN { exit !(m >= w - 0.05) }' ||
		fail "the mm_stat read ended at $mmend s, before the writeback ($wbend s)"
	awk -v t="$t0" -v w="$wbend" 'BEGIN { exit !(t < w) }' || {
		note "the writeback ended before zram-recompd started: longer one"
		[ "$n" -ge "$max" ] && fail "no writeback overlapped zram-recompd ($rate pages/s)"
		n=$((n * 2))
		[ "$n" -gt "$max" ] && n=$max
		return
	}
	expect_eq "zram-recompd exit code (7.0+: waits, no EAGAIN)" "$RC" 0
	grep -Eq "EAGAIN|busy, retrying" "$WORK/once.out" &&
		fail "zram-recompd logged an EAGAIN retry on $KREL (7.0+ blocks instead)"
	awk -v t="$t1" -v w="$wbend" 'BEGIN { exit !(t >= w) }' ||
		fail "zram-recompd ended at $t1 s, before the writeback ($wbend s)"
	[ "$(bd_writes)" -gt 0 ] || fail "the writeback wrote nothing"
	rr=$(bs_count "$Z" r "$n" $((2 * n - 1)))
	[ "$rr" -gt 0 ] || fail "nothing recompressed in slots $n-$((2 * n - 1)) after the wait"
	pass_note "$KREL: zram-recompd waited $(elapsed "$t0" "$wbend") s for the writeback" \
		"(mm_stat read blocked $(elapsed "$tm0" "$mmend") s), no EAGAIN, then recompressed" \
		"$rr slots, exit code 0"
}

for attempt in 1 2 3 4; do
	"${MODE}_attempt"
done
fail "no writeback overlapped zram-recompd's recompress in 4 attempts ($rate pages/s)"
