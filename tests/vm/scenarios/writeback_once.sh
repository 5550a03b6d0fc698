#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writeback (issue 12) on a real kernel, with a loop device as the backing device:
#  - backing-device = the loop device is applied by --once before disksize;
#  - the corpus goes in (compressible pages plus random, incompressible ones); one --once
#    recompresses and writes back the incompressible pages (writeback-types = incompressible);
#  - every page read back through /dev/zramN is byte-identical (checksums);
#  - bd_stat writes = the pages marked incompressible, mem_used_total falls by about that;
#  - a day budget smaller than the candidates stops exactly at the budget (bd_stat writes
#    <= budget), and a restart within the day does not reset it (the state file);
#  - pages are the kernel's ($PAGE: 4 KiB on x86-64, 16 KiB on the arm64 kernel), bd_stat
#    and writeback_limit count 4 KiB units (bd_pages in lib.sh): the 64 KiB budget is 16
#    units in bd_stat on both, 16 pages at 4 KiB and 4 at 16 KiB;
#  - 7.0+: compressed-writeback = yes works the same way.
. /vm/lib.sh
need_recompd

backing_loop 64M
export ZRAM_RECOMPD_STATE_DIR=$WORK/state

NP=$(pages_of "$DATA/pages.bin")
NR=$(pages_of "$DATA/random.bin")

# setup CONF...: a fresh device configured by --once (algorithms and backing device before
# disksize), then the corpus: pages.bin, then random.bin after it.
setup() {
	[ -n "${Z:-}" ] && zram_del "$Z"
	rm -rf "$ZRAM_RECOMPD_STATE_DIR"
	conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
		"writeback = yes" "writeback-types = incompressible" "backing-device = $L" "$@"
	zram_add
	run_recompd "$WORK/setup.out" --config "$WORK/c.conf" --once --device "$Z"
	expect_eq "setup exit code" "$RC" 0
	expect_eq "backing_dev" "$(zget "$Z" backing_dev)" "$L"
	zset "$Z" disksize 64M
	load "$Z" "$DATA/pages.bin"
	load "$Z" "$DATA/random.bin" 0 "$NR" "$NP"
	dd if="/dev/$Z" bs="$PAGE" count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum0"
}

setup
used0=$(mm "$Z" mem_used_total)
run_recompd "$WORK/once1.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "--once exit code" "$RC" 0
wb=$(bd_pages "$Z" bd_writes)
n=$(bs_count "$Z" n)
w=$(bs_count "$Z" w)
note "bd_stat $(zget "$Z" bd_stat) ($wb pages of $PAGE bytes); n slots $n, w slots $w; mem_used_total $used0 -> $(mm "$Z" mem_used_total)"
[ "$wb" -ge "$NR" ] || fail "bd_stat writes $wb, expected at least the $NR random pages"
expect_eq "written-back slots (w)" "$w" "$wb"
grep -q "writeback incompressible: $wb pages" "$WORK/once1.out" || fail "no writeback line for $wb pages"
# the pool gave back at least what went to the backing device (each page took a page)
used1=$(mm "$Z" mem_used_total)
[ $((used0 - used1)) -ge $((wb * PAGE * 9 / 10)) ] ||
	fail "mem_used_total fell by $((used0 - used1)), expected about $((wb * PAGE))"
dd if="/dev/$Z" bs="$PAGE" count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum1"
cmp -s "$WORK/sum0" "$WORK/sum1" || fail "data read back differs after writeback"
expect_eq "state wb_pages" "$(state_field "$Z" wb_pages)" "$wb"

# A day budget of 64 KiB (16 pages of 4 KiB, 4 of 16 KiB; 16 units of bd_stat either way):
# the kernel's limit stops the writeback exactly there, and a second run a moment later (a
# restart) finds the budget spent.
setup "writeback-bytes-per-day = 65536"
run_recompd "$WORK/once2.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "budget --once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
expect_eq "bd_stat writes (4 KiB units) at a 64 KiB budget" "$3" 16
expect_eq "pages written at a 64 KiB budget" "$(bd_pages "$Z" bd_writes)" $((65536 / PAGE))
grep -q "budget spent" "$WORK/once2.out" || fail "no 'budget spent' stop reported"
run_recompd "$WORK/once3.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "second budget --once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
expect_eq "bd_stat writes after a restart within the day" "$3" 16
grep -q "writeback: budget spent" "$WORK/once3.out" || fail "restart did not find the budget spent"
dd if="/dev/$Z" bs="$PAGE" count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum2"
cmp -s "$WORK/sum0" "$WORK/sum2" || fail "data read back differs after the budgeted writeback"

if kver_ge 7 0; then
	setup "compressed-writeback = yes"
	expect_eq "compressed_writeback" "$(zget "$Z" compressed_writeback)" 1
	run_recompd "$WORK/once4.out" --config "$WORK/c.conf" --once --device "$Z"
	expect_eq "compressed --once exit code" "$RC" 0
	wb=$(bd_pages "$Z" bd_writes)
	[ "$wb" -ge "$NR" ] || fail "compressed writeback wrote $wb pages, expected at least $NR"
	dd if="/dev/$Z" bs="$PAGE" count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum3"
	cmp -s "$WORK/sum0" "$WORK/sum3" || fail "data read back differs after compressed writeback"
fi
pass
