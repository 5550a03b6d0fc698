#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An administrator's writeback_limit caps a pass (issue 25, item 2) on a real kernel: with
# writeback_limit_enable = 1 and writeback_limit = 5 set by someone else, --once writes
# exactly 5 pages to the backing device (bd_stat), leaves the limit on, and the limit at 0;
# a limit of 300 above what there is to write gets back exactly 300 less what was written
# (the kernel's own count: bd_stat), never more; the data reads back intact.
. /vm/lib.sh
need_recompd

backing_loop 64M
export ZRAM_RECOMPD_STATE_DIR=$WORK/state

NP=$(pages_of "$DATA/pages.bin")
NR=$(pages_of "$DATA/random.bin")

conf "$WORK/c.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
	"writeback = yes" "writeback-types = incompressible" "backing-device = $L"
zram_add
run_recompd "$WORK/setup.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "setup exit code" "$RC" 0
expect_eq "backing_dev" "$(zget "$Z" backing_dev)" "$L"
zset "$Z" disksize 64M
load "$Z" "$DATA/pages.bin"
load "$Z" "$DATA/random.bin" 0 "$NR" "$NP"
dd if="/dev/$Z" bs=4096 count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum0"

# the administrator's limit: 5 pages
zset "$Z" writeback_limit_enable 1
zset "$Z" writeback_limit 5
run_recompd "$WORK/once1.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "--once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
note "bd_stat $* after a pass under writeback_limit 5 ($NR incompressible pages)"
expect_eq "bd_stat writes under the administrator's limit of 5" "$3" 5
expect_eq "writeback_limit after" "$(zget "$Z" writeback_limit)" 0
expect_eq "writeback_limit_enable after" "$(zget "$Z" writeback_limit_enable)" 1
grep -q "within another writer's writeback_limit of 5 pages" "$WORK/once1.out" ||
	fail "no 'within another writer's writeback_limit' in the report"

# spent: the next pass writes nothing and says why
run_recompd "$WORK/once2.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "second --once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
expect_eq "bd_stat writes with the limit at 0" "$3" 5
grep -q "writeback: skipped: another writer's writeback_limit is 0" "$WORK/once2.out" ||
	fail "no skip line for the spent limit"

# a limit above what is left to write: it gets back exactly 300 less what went
zset "$Z" writeback_limit 300
run_recompd "$WORK/once3.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "third --once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
wrote=$(($3 - 5))
note "bd_stat $*: $wrote pages under writeback_limit 300"
[ "$wrote" -gt 0 ] && [ "$wrote" -le 300 ] || fail "$wrote pages written under a limit of 300"
expect_eq "writeback_limit after (300 - written)" "$(zget "$Z" writeback_limit)" $((300 - wrote))
expect_eq "writeback_limit_enable after" "$(zget "$Z" writeback_limit_enable)" 1
dd if="/dev/$Z" bs=4096 count=$((NP + NR)) 2>/dev/null | md5sum >"$WORK/sum1"
cmp -s "$WORK/sum0" "$WORK/sum1" || fail "data read back differs after writeback"
pass
