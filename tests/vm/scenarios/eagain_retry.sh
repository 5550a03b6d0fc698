#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A writeback is running when zram-recompd issues its recompress: 6.12.y (like 6.13-6.19)
# answers -EAGAIN, and zram-recompd must log the retry and still finish with exit code 0.
#
# Under TCG the overlap has to be arranged: the writeback rate is measured first, then a
# writeback sized to last about 1 s on its own is started (longer than zram-recompd needs to
# reach its first recompress; shorter than its ~3 s of retries even when the two slow each
# other down), and zram-recompd runs while it does. Up to four attempts, resized when the
# writeback ended too early (no EAGAIN) or outlasted the retries.
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
	zset "$Z" disksize 128M
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

# Calibration: pages written back per second (pages.bin pages, same-filled ones included:
# they are skipped by writeback but count in the sizes below).
PAGES=$(pages_of "$DATA/pages.bin")
max=24576 # 96 MiB of the 128 MiB device
cal=2048
fresh "$cal"
t0=$(now)
zset "$Z" writeback idle
t1=$(now)
d=$(elapsed "$t0" "$t1")
rate=$(awk -v n="$cal" -v d="$d" 'BEGIN { if (d < 0.01) d = 0.01; printf "%d", n / d }')
note "calibration: $cal pages ($(bd_writes) written back) in $d s: $rate pages/s"
n=$(awk -v r="$rate" -v m="$max" 'BEGIN {
	n = int(r * 1.0); if (n < 256) n = 256; if (n > m) n = m; print n }')

for attempt in 1 2 3 4; do
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
		[ "$RC" -eq 0 ] && pass
		if grep -qi "still busy" "$WORK/once.out"; then
			n=$((n / 2)) # the writeback outlasted the retries: shorter one
			continue
		fi
		fail "zram-recompd saw EAGAIN and exited $RC"
	fi
	[ "$RC" -eq 0 ] || fail "zram-recompd exited $RC (no EAGAIN seen)"
	[ "$n" -ge "$max" ] && break
	n=$((n * 2)) # the writeback ended before the recompress: longer one
	[ "$n" -gt "$max" ] && n=$max
done
fail "no writeback overlapped zram-recompd's recompress in 4 attempts ($rate pages/s)"
