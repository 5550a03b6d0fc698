#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# recompress-algorithms on an uninitialized device: `--once` writes the list to
# recomp_algorithm (contiguous priorities from 1), the kernel keeps it across disksize, and
# `status --json` reports it.
. /vm/lib.sh
need_recompd

zram_add
conf "$WORK/c.conf" "recompress-algorithms = zstd deflate"
expect_eq "recomp_algorithm before" "$(zget "$Z" recomp_algorithm)" ""
run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "--once exit code on an uninitialized device" "$RC" 0
grep -q "not initialized" "$WORK/once.out" || fail "--once did not say that $Z is not initialized"

zset "$Z" disksize 64M
want=$(printf '%s\n%s' '#1: lzo-rle lzo lz4 lz4hc [zstd] deflate 842 ' \
	'#2: lzo-rle lzo lz4 lz4hc zstd [deflate] 842 ')
expect_eq "recomp_algorithm after disksize" "$(recomp_list "$Z")" "$want"

run_recompd "$WORK/status.json" status --json --device "$Z"
expect_eq "status --json exit code" "$RC" 0
j=$(tr -d ' \n\t' <"$WORK/status.json")
for frag in "\"name\":\"$Z\"" '"initialized":true' '"primary":"lzo-rle"' \
	'"recomp_algorithms":["zstd","deflate"]' '"multi_comp":true' '"disksize":67108864' \
	"\"kernel\":\"$KREL\""; do
	case $j in
	*"$frag"*) ;;
	*) fail "status --json lacks $frag" ;;
	esac
done
run_recompd "$WORK/status.txt" status --device "$Z"
expect_eq "status exit code" "$RC" 0
grep -q zstd "$WORK/status.txt" && grep -q deflate "$WORK/status.txt" ||
	fail "text status does not name zstd and deflate"
pass
