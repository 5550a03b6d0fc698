#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --dry-run prints the commands it would write and writes none: mm_stat and block_state (idle
# flags and access times included) stay byte-identical, and an uninitialized device keeps an
# empty recomp_algorithm.
. /vm/lib.sh
need_recompd

conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
zram_add
U=$Z
run_recompd "$WORK/u.out" --config "$WORK/c.conf" --once --dry-run --device "$U"
expect_eq "dry run exit code (uninitialized)" "$RC" 0
grep -q "$U: would write 'algo=zstd priority=1' to recomp_algorithm" "$WORK/u.out" ||
	fail "dry run did not show the recomp_algorithm command"
expect_eq "recomp_algorithm after a dry run" "$(zget "$U" recomp_algorithm)" ""

zram_add
zset "$Z" recomp_algorithm "algo=zstd priority=1"
zset "$Z" disksize 64M
load "$Z" "$DATA/pages.bin" 0 2048
zset "$Z" idle all
load "$Z" "$DATA/pages.bin" 0 64 # some slots not idle, with fresh access times
zget "$Z" mm_stat >"$WORK/mm0"
block_state "$Z" >"$WORK/bs0"
[ "$(grep -c i "$WORK/bs0")" -gt 0 ] || fail "setup: no idle slots"

run_recompd "$WORK/d.out" --config "$WORK/c.conf" --once --dry-run --device "$Z"
expect_eq "dry run exit code" "$RC" 0
zget "$Z" mm_stat >"$WORK/mm1"
block_state "$Z" >"$WORK/bs1"
cmp -s "$WORK/mm0" "$WORK/mm1" || fail "mm_stat changed: $(cat "$WORK/mm0") -> $(cat "$WORK/mm1")"
cmp -s "$WORK/bs0" "$WORK/bs1" || fail "block_state changed in a dry run"
grep -q "$Z: would write 'all' to idle" "$WORK/d.out" || fail "no 'would write' line for idle"
# 6.12+: every write names its priority (one secondary here: #1); the first write of a type
# is 64 pages (max-write-ms: no cost per page learnt yet), except on 6.13+, where every write
# scans all slots whatever max_pages and max-write-ms is not applied (2048).
n=64
kver_ge 6 13 && n=2048
for t in huge_idle idle huge; do
	grep -q "$Z: would write 'type=$t priority=1 max_pages=$n' to recompress" "$WORK/d.out" ||
		fail "no 'would write' line for recompress type=$t priority=1"
done
pass
