#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# writeback-idle-age-sec is honoured by the idle writeback (issue 12 follow-up): the slots
# come from block_state by their ac_time, never from the kernel's IDLE flag.
#  - the corpus goes in, one --once recompresses every page (idle-age-max-sec = 0 marks
#    all) with writeback off: recompressed slots get ac_time 0 (age unknown), the random
#    pages are marked incompressible and keep their load time;
#  - 5 s later some incompressible and some recompressed pages are read (young);
#  - a --once with writeback-types = idle and writeback-idle-age-sec = 3 writes back exactly
#    the incompressible pages nobody read: not one recompressed (ac_time 0) slot, not one
#    young slot, although all of them carry the IDLE mark of the recompression pass;
#  - every page reads back identical (O_DIRECT, so the reads reach zram and the disk).
. /vm/lib.sh
need_recompd

backing_loop 64M
export ZRAM_RECOMPD_STATE_DIR=$WORK/state

NP=$(pages_of "$DATA/pages.bin")
NR=$(pages_of "$DATA/random.bin")
TOT=$((NP + NR))

conf "$WORK/a.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" "writeback = no" \
	"backing-device = $L"
zram_add
run_recompd "$WORK/setup.out" --config "$WORK/a.conf" --once --device "$Z"
expect_eq "setup exit code" "$RC" 0
expect_eq "backing_dev" "$(zget "$Z" backing_dev)" "$L"
zset "$Z" disksize 64M
load "$Z" "$DATA/pages.bin"
load "$Z" "$DATA/random.bin" 0 "$NR" "$NP"
dd if="/dev/$Z" bs=4096 count=$TOT iflag=direct 2>/dev/null | md5sum >"$WORK/sum0"

# recompression only
run_recompd "$WORK/a.out" --config "$WORK/a.conf" --once --device "$Z"
expect_eq "recompression --once exit code" "$RC" 0
r0=$(bs_count "$Z" r)
n0=$(bs_count "$Z" n)
[ "$r0" -gt 0 ] || fail "nothing recompressed"
[ "$n0" -ge "$NR" ] || fail "only $n0 slots incompressible, expected at least the $NR random pages"
# every recompressed slot has ac_time 0 and all are marked idle
zr=$(block_state "$Z" | awk 'index($3, "r") && $2 + 0 == 0 { n++ } END { print n + 0 }')
expect_eq "recompressed slots with ac_time 0" "$zr" "$r0"

sleep 5
# young: 8 incompressible (random) pages and 8 recompressed ones, read just now
dd if="/dev/$Z" of=/dev/null bs=4096 skip="$NP" count=8 iflag=direct 2>/dev/null
first_r=$(block_state "$Z" | awk 'index($3, "r") { print $1; exit }')
dd if="/dev/$Z" of=/dev/null bs=4096 skip="$first_r" count=8 iflag=direct 2>/dev/null
block_state "$Z" >"$WORK/bs_before"
# what must go: untouched slots with a known ac_time (not s, not w), at least 3 s old
now_s=$(cut -d. -f1 /proc/uptime)
want=$(awk -v now="$now_s" '!index($3, "s") && !index($3, "w") && $2 + 0 > 0 &&
	$2 + 0 <= now - 3 { n++ } END { print n + 0 }' "$WORK/bs_before")
note "recompressed $r0 (ac_time 0), incompressible $n0, old candidates $want"
[ "$want" -ge $((NR - 8)) ] || fail "only $want old slots, expected the $((NR - 8)) untouched random pages"

conf "$WORK/b.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" "writeback = yes" \
	"writeback-types = idle" "writeback-idle-age-sec = 3" "backing-device = $L"
t0=$(now)
run_recompd "$WORK/b.out" --config "$WORK/b.conf" --once --device "$Z"
expect_eq "writeback --once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
wb=$3
block_state "$Z" >"$WORK/bs_after"
note "bd_stat $*; --once took $(elapsed "$t0" "$(now)") s"
grep "writeback idle" "$WORK/b.out" || fail "no writeback idle line"
# nothing young, nothing recompressed-and-unread went to the disk
bad=$(awk 'NR == FNR { if (index($3, "w")) w[$1] = 1; next }
	($1 in w) && (index($3, "r") || $2 + 0 == 0 || $1 >= '"$NP"' && $1 < '"$NP"' + 8) { n++ }
	END { print n + 0 }' "$WORK/bs_after" "$WORK/bs_before")
expect_eq "written back although young or of unknown age" "$bad" 0
# the untouched incompressible pages did go
left=$(awk -v lo="$((NP + 8))" -v hi="$((TOT - 1))" '$1 >= lo && $1 <= hi && !index($3, "w") &&
	!index($3, "s") { n++ } END { print n + 0 }' "$WORK/bs_after")
expect_eq "untouched random pages not written back" "$left" 0
expect_eq "bd_stat writes = the old candidates" "$wb" "$want"
expect_eq "written-back slots (w)" "$(bs_count "$Z" w)" "$wb"
grep -q "writeback idle: $wb pages" "$WORK/b.out" || fail "no writeback line for $wb pages"
dd if="/dev/$Z" bs=4096 count=$TOT iflag=direct 2>/dev/null | md5sum >"$WORK/sum1"
cmp -s "$WORK/sum0" "$WORK/sum1" || fail "data read back differs after writeback"
pass
