#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One full pass, lzo-rle primary, zstd secondary (set up by zram-recompd as a distribution
# would): compr_data_size falls, slots get the `r` flag, the pool is compacted, and the memory
# in use ends within 2% of a device that stored the same pages with zstd as primary (the best
# the secondary algorithm can do).
. /vm/lib.sh
need_recompd

conf "$WORK/setup.conf" "recompress-algorithms = zstd"
conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
pages=$(pages_of "$DATA/pages.bin")

zram_add
A=$Z
run_recompd "$WORK/setup.out" --config "$WORK/setup.conf" --once --device "$A"
expect_eq "setup exit code" "$RC" 0
zset "$A" disksize 256M
load "$A" "$DATA/pages.bin"

zram_add
B=$Z
zset "$B" comp_algorithm zstd
zset "$B" disksize 256M
load "$B" "$DATA/pages.bin"

note "data: $(cat "$DATA/source"), $pages pages"
note "before: $A mm_stat $(zget "$A" mm_stat)"
note "zstd reference: $B mm_stat $(zget "$B" mm_stat)"
c0=$(mm "$A" compr_data_size)
pc0=$(mm "$A" pages_compacted)
expect_eq "orig_data_size" "$(mm "$A" orig_data_size)" $((pages * PAGE))
expect_eq "recompressed slots before" "$(bs_count "$A" r)" 0

t0=$(now)
run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$A"
t1=$(now)
expect_eq "--once exit code" "$RC" 0
note "after ($(elapsed "$t0" "$t1") s): $A mm_stat $(zget "$A" mm_stat)"

c1=$(mm "$A" compr_data_size)
pc1=$(mm "$A" pages_compacted)
m1=$(mm "$A" mem_used_total)
mz=$(mm "$B" mem_used_total)
r=$(bs_count "$A" r)
note "compr_data_size $c0 -> $c1, recompressed slots $r, pages_compacted $pc0 -> $pc1," \
	"mem_used_total $m1 vs zstd primary $mz"
[ "$c1" -lt "$c0" ] || fail "compr_data_size did not drop ($c0 -> $c1)"
[ "$r" -gt 0 ] || fail "no slot has the r flag"
[ "$pc1" -gt "$pc0" ] || fail "pages_compacted did not grow ($pc0 -> $pc1): no compaction"
expect_eq "orig_data_size after" "$(mm "$A" orig_data_size)" $((pages * PAGE))
# Within 2% of the zstd-primary device (either side).
awk -v m="$m1" -v z="$mz" 'BEGIN { d = m - z; if (d < 0) d = -d; exit !(d * 100 <= 2 * z) }' ||
	fail "mem_used_total $m1 is not within 2% of the zstd-primary device's $mz"
# The data survived recompression and compaction: read it back.
dd if="/dev/$A" bs="$PAGE" count="$pages" 2>/dev/null | cmp -s - "$DATA/pages.bin" ||
	fail "data read back from $A differs from what was written"
pass
