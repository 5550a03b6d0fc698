#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `zram-recompd adopt` refuses when neither plan is safe: a zram swap device in use by a
# running workload (set up as in the adopt scenario: lzo-rle, mkswap -L, priority 7), with
# memory squeezed by balloons (as swap_short), so that MemAvailable holds neither the swapped
# pages (plan A) nor their compressed copy (plan B) with the margin.
# Asserted: exit status 5, the figures printed (stored, both plans' needed + margin and
# available), nothing changed (still swap with its size and priority, the same header, no
# secondary, no new zram device, still initialized), --dry-run refuses the same way, and every
# page of the workload is intact.
. /vm/lib.sh
SQUEEZE=1 # mlocked balloons: its allocation-failure traces are judged (squeeze_traces)
need_recompd

. /vm/adopt_lib.sh
RAM=112
MIB=136
PRIO=7

state() {
	echo "swaps $(swap_line "$Z") init $(zget "$Z" initstate) size $(zget "$Z" disksize)" \
		"comp $(zget "$Z" comp_algorithm) recomp [$(recomp_list "$Z")]" \
		"header $(dd if="/dev/$Z" bs=4096 count=1 2>/dev/null | md5sum | cut -c1-32)" \
		"devs $(ls -d /sys/block/zram* | tr '\n' ' ')"
}

avail=$(avail_mib)
[ "$avail" -gt $((RAM + 64)) ] || skip "only $avail MiB available"
# the balloons topped up until RAM MiB are left (adopt_lib's top_up)
top_up hold.
[ "$avail" -le $((RAM + 16)) ] || fail "MemAvailable still $avail MiB after the balloons"

zram_add
swap_setup refuselbl
workload
before=$(state)
note "before: $before; MemAvailable $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) kB"

conf "$WORK/a.conf" "recompress-algorithms = zstd"
run_recompd "$WORK/dry.out" --config "$WORK/a.conf" adopt --dry-run "$Z"
expect_eq "adopt --dry-run exit code" "$RC" 5
run_recompd "$WORK/a.out" --config "$WORK/a.conf" adopt "$Z"
expect_eq "adopt exit code" "$RC" 5
grep -q "^$Z: stored: [0-9.]* [KMG]iB in swap, [0-9.]* [KMG]\{0,1\}i\{0,1\}B of memory compressed" "$WORK/a.out" ||
	fail "no 'stored' line"
grep -q "^$Z: direct (swapoff first, pages uncompressed): needed .* + margin .*, available .*: not safe$" "$WORK/a.out" ||
	fail "no 'not safe' figures for plan A"
grep -q "^$Z: through a temporary zram device (pages compressed): needed .* + margin .*, available .*: not safe$" "$WORK/a.out" ||
	fail "no 'not safe' figures for plan B"
grep -q "error: $Z: adopt refused: neither plan leaves the margin free; nothing changed" "$WORK/a.out" ||
	fail "no refusal line"
grep -q "would swapoff\|would write" "$WORK/dry.out" && fail "--dry-run printed steps although refused"
after=$(state)
expect_eq "device state after the refusal" "$after" "$before"

verify_pages 120
squeeze_traces "$HOLDS"
pass_note "refused with $(sed -n "s/^$Z: stored: //p" "$WORK/a.out" | cut -d, -f1); $VERIFIED pages verified"
