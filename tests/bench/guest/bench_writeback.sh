#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 7, writeback (issue 12): the pages on a device (lzo-rle primary, zstd secondary at
# priority 1) with a loop device as backing device, then
#   recomp   zram-recompd --once with writeback = no (recompression alone; idle-age-max-sec
#            = 0: every page counts as idle)
#   wb       zram-recompd --once again on the same device with writeback = yes and the
#            shipped writeback defaults (types incompressible huge_idle idle, 128 MiB a pass,
#            1 GiB a day, idle age 1 day: here only the incompressible pages qualify)
# Reports mm_stat before, after recomp and after wb (memory after recompression alone vs after
# recompression + writeback), the pages and bytes written (bd_stat), the kernel time of each
# run and of the writeback writes alone, the `n` slots left by recomp (the candidates), and
# whether every page reads back the same (md5 of /dev/zramN before and after).
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

out writeback.pages "$PAGES"
backing_loop "$DISKSIZE"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"

zram_add
zset "$Z" comp_algorithm lzo-rle
zset "$Z" recomp_algorithm "algo=zstd priority=1"
zset "$Z" backing_dev "$L"
zset "$Z" disksize "$DISKSIZE"
load "$Z" "$DATA/pages.bin"
dd if="/dev/$Z" bs="$PAGE" count="$PAGES" 2>/dev/null | md5sum >"$WORK/sum0"
mm_out writeback.before "$Z"

# wb_kernel_s FILE: kernel time of the writeback steps in a --once report.
wb_kernel_s() {
	awk '/: writeback [a-z_]+: / { for (i = 1; i <= NF; i++) if ($i == "s" && $(i + 1) == "in") t += $(i - 1) }
		END { printf "%.6f", t }' "$1"
}

for run in recomp wb; do
	wb=no
	[ "$run" = wb ] && wb=yes
	conf "$WORK/$run.conf" "devices = $Z" "recompress-algorithms = zstd" \
		"idle-age-max-sec = 0" "writeback = $wb"
	t0=$(ns)
	"$RECOMPD" --config "$WORK/$run.conf" --once --device "$Z" >"$WORK/$run.out" 2>&1
	rc=$?
	t1=$(ns)
	show "$WORK/$run.out"
	[ "$rc" = 0 ] || fail "$run: zram-recompd --once exited $rc"
	mm_out "writeback.$run" "$Z"
	out "writeback.$run.wall_s" "$(secs $((t1 - t0)))"
	out "writeback.$run.kernel_s" "$(once_kernel_s "$WORK/$run.out")"
	set -- $(zget "$Z" bd_stat)
	out "writeback.$run.bd_count" "$1"
	out "writeback.$run.bd_writes" "$3"
	if [ "$run" = recomp ]; then
		out writeback.recomp.incompressible_slots "$(bs_count "$Z" n)"
	else
		# bd_stat counts 4 KiB units whatever PAGE is (lib.sh, bd_pages)
		out writeback.wb.written_pages $(($3 * 4096 / PAGE))
		out writeback.wb.written_bytes $(($3 * 4096))
		out writeback.wb.writeback_kernel_s "$(wb_kernel_s "$WORK/wb.out")"
		out writeback.wb.written_back_slots "$(bs_count "$Z" w)"
	fi
done

dd if="/dev/$Z" bs="$PAGE" count="$PAGES" 2>/dev/null | md5sum >"$WORK/sum1"
if cmp -s "$WORK/sum0" "$WORK/sum1"; then
	out writeback.data_intact yes
else
	out writeback.data_intact no
	fail "data read back differs after writeback"
fi
pass
