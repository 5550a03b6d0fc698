#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A reset of the device during a writeback pass (issue 25, item 5) on the real kernel: the
# pages written to the backing device before the reset are on the disk all the same, so the
# day budget in the state file must still charge them (the unit test test_pass
# test_writeback_reset_charged covers the accounting on a fake root; this is the kernel's
# side: a reset zeroes bd_stat, not writeback_limit).
#  - 4096 random (incompressible) pages, each followed by a zero page (same-filled, never
#    written back), so that the age-based idle writeback needs many writes: 6.12 (6.2-6.15)
#    one page_index= per write, 7.x ranges of single pages, 1 KiB of keys per write;
#  - --once with writeback-types = idle (age 2 s) in the background; once bd_stat shows
#    writes, `echo 1 > reset` (the kernel lets it in between two writeback writes);
#  - what went to the disk is the loop device's own write count (/sys/block/loopN/stat,
#    sectors / 8): the reset cannot zero it;
#  - the pass logs the reset with exactly that many pages; the state file's wb_pages is that
#    count, and wb_day_left is the day budget less that many pages (plus at most the 24 h
#    refill of the seconds the run took); the reset met the pass mid-way (fewer pages on the
#    disk than candidates).
. /vm/lib.sh
need_recompd

backing_loop 64M
export ZRAM_RECOMPD_STATE_DIR=$WORK/state
NR=$(pages_of "$DATA/random.bin")
COPIES=16
CAND=$((NR * COPIES))
PER_DAY=$((64 * 1024 * 1024))

# loop_pages: pages written to the backing loop device (512-byte sectors / 8) since LP0 (its
# count when the pass started: a loop device keeps its counters from earlier attachments).
LP0=0
loop_pages() {
	set -- $(cat "/sys/block/${L#/dev/}/stat")
	echo $(($7 / 8 - LP0))
}

# The pattern: random page i at slot 2i, a zero page at 2i+1 (256 small dd writes in tmpfs).
i=0
while [ "$i" -lt "$NR" ]; do
	dd if="$DATA/random.bin" of="$WORK/pat.bin" bs=4096 count=1 skip="$i" seek=$((2 * i)) \
		conv=notrunc 2>/dev/null || fail "building the page pattern failed"
	dd if=/dev/zero of="$WORK/pat.bin" bs=4096 count=1 seek=$((2 * i + 1)) conv=notrunc \
		2>/dev/null || fail "building the page pattern failed"
	i=$((i + 1))
done
PP=$(pages_of "$WORK/pat.bin")
expect_eq "pattern pages" "$PP" $((2 * NR))

conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
	"writeback = yes" "writeback-types = idle" "writeback-idle-age-sec = 2" \
	"writeback-bytes-per-day = $PER_DAY" "writeback-bytes-per-pass = $PER_DAY" \
	"backing-device = $L"
zram_add
run_recompd "$WORK/setup.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "setup exit code" "$RC" 0
expect_eq "backing_dev" "$(zget "$Z" backing_dev)" "$L"
zset "$Z" disksize 64M
c=0
while [ "$c" -lt "$COPIES" ]; do
	load "$Z" "$WORK/pat.bin" 0 "$PP" $((c * PP))
	c=$((c + 1))
done
sleep 3
LP0=$(loop_pages)

note "zram-recompd --config c.conf --once --device $Z (background)"
"$RECOMPD" --config "$WORK/c.conf" --once --device "$Z" >"$WORK/once.out" 2>&1 &
OPID=$!
i=0
while :; do
	set -- $(zget "$Z" bd_stat)
	[ "$3" -gt 0 ] && break
	kill -0 "$OPID" 2>/dev/null || break
	i=$((i + 1))
	[ "$i" -le 3000 ] || fail "no writeback write within 60 s"
	usleep 20000
done
bd=$3
echo 1 >"/sys/block/$Z/reset" || fail "echo 1 > /sys/block/$Z/reset failed"
note "reset after bd_stat writes reached $bd"
wait "$OPID"
RC=$?
sed "s/^/[$T]   | /" "$WORK/once.out"
note "exit code $RC"

[ "$bd" -gt 0 ] || fail "the pass ended before its first writeback write (bd_stat 0): no reset mid-pass"
disk=$(loop_pages)
note "pages on the backing device: $disk of $CAND candidates; bd_stat now $(zget "$Z" bd_stat)"
[ "$disk" -ge "$bd" ] || fail "loop device has $disk pages, fewer than bd_stat's $bd before the reset"
[ "$disk" -lt "$CAND" ] ||
	fail "all $CAND candidates were written before the reset: it did not meet the pass"
expect_eq "zram initstate after the reset" "$(zget "$Z" initstate)" 0
grep -q "$Z: reset or removed during the pass; nothing is counted but the $disk pages written back before" \
	"$WORK/once.out" || fail "no report line naming the $disk pages written back before the reset"

wbp=$(state_field "$Z" wb_pages)
left=$(state_field "$Z" wb_day_left)
note "state file: $(grep "^$Z " "$ZRAM_RECOMPD_STATE_DIR/state" 2>/dev/null || echo "no line for $Z")"
expect_eq "state wb_pages (pages on the disk)" "$wbp" "$disk"
[ -n "$left" ] || fail "no wb_day_left for $Z in the state file"
lo=$((PER_DAY - disk * 4096))
# the rolling 24 h refill of the seconds since the reservation (at most 60 s here)
hi=$((lo + PER_DAY / 86400 * 60))
[ "$left" -ge "$lo" ] && [ "$left" -le "$hi" ] ||
	fail "state wb_day_left $left, expected $lo..$hi (day budget $PER_DAY less $disk pages)"
pass_note "reset after $disk of $CAND pages written back; all $disk charged (wb_day_left $left)"
