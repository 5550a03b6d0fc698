#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Age-based idle marking: set A is written, then after a pause set B; a pass with an idle age
# shorter than the pause (idle-age-min-sec = idle-age-max-sec = 3, passes = idle)
# recompresses slots of A only.
. /vm/lib.sh
need_recompd

# 4 MiB a set: 1024 pages of 4 KiB, 256 of 16 KiB (the kernel's page size, $PAGE)
N=$((4194304 / PAGE))
conf "$WORK/setup.conf" "recompress-algorithms = zstd"
conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-min-sec = 3" \
	"idle-age-max-sec = 3" "passes = idle"
# Equal bounds are a valid configuration (a fixed age).
run_recompd "$WORK/check.out" --config "$WORK/c.conf" --check-config
expect_eq "--check-config exit code with min = max" "$RC" 0
zram_add
run_recompd "$WORK/setup.out" --config "$WORK/setup.conf" --once --device "$Z"
expect_eq "setup exit code" "$RC" 0
zset "$Z" disksize 64M
load "$Z" "$DATA/pages.bin" 0 "$N" 0
# Age 3 s: A is then 6 s old, B less than 1 s.
sleep 6
load "$Z" "$DATA/pages.bin" "$N" "$N" "$N"
last=$((2 * N - 1))
a_alloc=$(bs_total "$Z" 0 $((N - 1)))
a_same=$(bs_count "$Z" s 0 $((N - 1)))
b_alloc=$(bs_total "$Z" "$N" "$last")
note "A: $a_alloc slots ($a_same same-filled), B: $b_alloc slots"

run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "--once exit code" "$RC" 0
ar=$(bs_count "$Z" r 0 $((N - 1)))
br=$(bs_count "$Z" r "$N" "$last")
bi=$(bs_count "$Z" i "$N" "$last")
note "recompressed: A $ar of $((a_alloc - a_same)), B $br; idle in B: $bi"
grep -q "unused for more than 3 s" "$WORK/once.out" ||
	fail "the pass did not report an idle age of 3 s"
# Most of A shrinks with zstd; same-filled slots are never candidates.
[ "$ar" -ge $(((a_alloc - a_same) / 2)) ] ||
	fail "only $ar of $((a_alloc - a_same)) old slots were recompressed"
expect_eq "recompressed slots in the young set B" "$br" 0
expect_eq "idle slots in the young set B" "$bi" 0
pass
