#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Random (already-compressed) pages: huge under lzo-rle, still huge under zstd. One pass marks
# them incompressible (`n`), status reports them, and a second pass leaves everything as is.
. /vm/lib.sh
need_recompd

N=$(pages_of "$DATA/random.bin")
conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
zram_add
run_recompd "$WORK/setup.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "setup exit code" "$RC" 0
zset "$Z" disksize 16M
load "$Z" "$DATA/random.bin"
expect_eq "huge_pages after loading random pages" "$(mm "$Z" huge_pages)" "$N"

run_recompd "$WORK/once1.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "first --once exit code" "$RC" 0
expect_eq "huge_pages after the pass" "$(mm "$Z" huge_pages)" "$N"
expect_eq "slots marked n" "$(bs_count "$Z" n)" "$N"
expect_eq "slots marked r" "$(bs_count "$Z" r)" 0

run_recompd "$WORK/status.txt" status --device "$Z"
grep -q "incompressible: $N pages" "$WORK/status.txt" ||
	fail "text status lacks 'incompressible: $N pages'"
run_recompd "$WORK/status.json" status --json --device "$Z"
case $(tr -d ' \n\t' <"$WORK/status.json") in
*"\"incompressible\":$N"[',}']*) ;;
*) fail "status --json lacks \"incompressible\":$N" ;;
esac

mm0=$(zget "$Z" mm_stat)
block_state "$Z" | awk '{ print $1, $3 }' >"$WORK/flags0"
run_recompd "$WORK/once2.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "second --once exit code" "$RC" 0
expect_eq "mm_stat after the second pass" "$(zget "$Z" mm_stat)" "$mm0"
expect_eq "slots marked n after the second pass" "$(bs_count "$Z" n)" "$N"
# Flags other than idle are unchanged (the pass marks everything idle again).
block_state "$Z" | awk '{ print $1, $3 }' | tr i . >"$WORK/flags1"
tr i . <"$WORK/flags0" | cmp -s - "$WORK/flags1" || fail "slot flags changed in the second pass"
grep -qi "no progress" "$WORK/once2.out" || fail "second pass did not report 'no progress'"
grep -Eq "saved [1-9]" "$WORK/once2.out" && fail "second pass reports savings"
pass
