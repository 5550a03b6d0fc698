#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# threshold-bytes = 4000 loads (< 4096) but fails the kernel's check (threshold <
# huge_class_size): --check-config warns with the boundary, and --once names device,
# attribute and cause, goes on with the other device, and exits 1. Also measures the kernel's boundary (huge_class_size).
. /vm/lib.sh
need_recompd

zram_add
P=$Z
zset "$P" recomp_algorithm "algo=zstd priority=1"
zset "$P" disksize 16M
# The threshold check comes before anything else (max_pages=0 would do no work anyway).
lo=1
hi=4096
while [ $((hi - lo)) -gt 1 ]; do
	mid=$(((lo + hi) / 2))
	if echo "type=huge threshold=$mid max_pages=0" >"/sys/block/$P/recompress" 2>/dev/null; then
		lo=$mid
	else
		hi=$mid
	fi
done
note "recompress threshold: $lo accepted, $hi rejected (EINVAL): huge_class_size = $hi"
echo "VMINFO huge_class_size $hi"
[ "$hi" -le 4000 ] || skip "4000 is below huge_class_size ($hi) on this kernel"

zram_add
BAD=$Z
zram_add
GOOD=$Z
cat >"$WORK/c.conf" <<CONF
[global]
recompress-algorithms = zstd
idle-age-max-sec = 0
[$BAD]
threshold-bytes = 4000
CONF
run_recompd "$WORK/check.out" --config "$WORK/c.conf" --check-config
expect_eq "--check-config exit code" "$RC" 0
# ... with a warning that gives the boundary measured above.
grep -qxF "$WORK/c.conf:5: warning: key 'threshold-bytes': 4000 is not below this kernel's huge_class_size ($hi with 4 KiB pages): every recompress write with it fails with EINVAL" \
	"$WORK/check.out" || fail "--check-config does not warn of threshold-bytes = 4000 with huge_class_size $hi"
run_recompd "$WORK/setup.out" --config "$WORK/c.conf" --once --device "$BAD" --device "$GOOD"
for d in "$BAD" "$GOOD"; do
	zset "$d" disksize 64M
	load "$d" "$DATA/pages.bin" 0 2048
done

run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$BAD" --device "$GOOD"
expect_eq "--once exit code" "$RC" 1
grep "$BAD" "$WORK/once.out" | grep recompress | grep threshold >"$WORK/complaints"
n=$(wc -l <"$WORK/complaints")
[ "$n" -ge 1 ] || fail "no line names $BAD, recompress and threshold"
# Exactly one message: the later pass types would carry the same threshold and are skipped.
expect_eq "threshold messages" "$n" 1
expect_eq "threshold messages about $GOOD" \
	"$(grep "$GOOD" "$WORK/once.out" | grep -c threshold)" 0
expect_eq "recompressed slots on $BAD" "$(bs_count "$BAD" r)" 0
[ "$(bs_count "$GOOD" r)" -gt 0 ] || fail "$GOOD was not recompressed after $BAD failed"
pass
