#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 9, writeback through dm-crypt (issue 25): the same pages written back to a backing
# file on ext4 (a loop-mounted image in the guest's tmpfs), once on a plain loop device
# (backing-encryption = no) and once behind dm-crypt (backing-encryption = yes: plain
# aes-xts-plain64, 4 KiB sectors where the kernel takes them), each set up by
# `zram-recompd backing setup` and taken down by `backing teardown`. Per variant: a fresh
# device (lzo-rle, zstd #1) with WBCRYPT_COPIES (default 16) copies of the 256 random pages
# (incompressible: every one is a writeback candidate), --once without writeback (marks
# them), then --once with writeback-types = incompressible; reported: pages and bytes written
# (bd_stat), the writeback's kernel time (the report's "writeback incompressible" line), the
# pool memory freed by it (mem_used_total before and after that run), the data read back
# intact. derive.awk adds the kernel time per MiB written and crypt against plain.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

COPIES=${BENCH_WBCRYPT_COPIES:-16}
NR=$(pages_of "$DATA/random.bin")
N=$((NR * COPIES))
out wbcrypt.pages "$N"
ext4_mount 256M
mkdir -p "$MNT/zram-recompd"
chmod 0700 "$MNT/zram-recompd"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"

# wb_kernel_s FILE: kernel time of the writeback steps in a --once report.
wb_kernel_s() {
	awk '/: writeback [a-z_]+: / { for (i = 1; i <= NF; i++) if ($i == "s" && $(i + 1) == "in") t += $(i - 1) }
		END { printf "%.6f", t }' "$1"
}

for v in plain crypt; do
	enc=no
	[ "$v" = crypt ] && enc=yes
	zram_add
	for wb in no yes; do
		conf "$WORK/$v.$wb.conf" "devices = $Z" "recompress-algorithms = zstd" \
			"idle-age-max-sec = 0" "writeback = $wb" "writeback-types = incompressible" \
			"" "[$Z]" "backing-file = $MNT/zram-recompd/$v.img" \
			"backing-file-size = 128M" "backing-encryption = $enc"
	done
	cp "$WORK/$v.no.conf" "$WORK/$v.conf"
	BACKING_CONF=$WORK/$v.conf
	"$RECOMPD" --config "$WORK/$v.conf" backing setup "$Z" >"$WORK/$v.setup" 2>&1 ||
		{ show "$WORK/$v.setup"; fail "$v: backing setup failed"; }
	show "$WORK/$v.setup"
	out "wbcrypt.$v.backing_dev" "$(zget "$Z" backing_dev)"
	"$RECOMPD" --config "$WORK/$v.conf" --once --device "$Z" >/dev/null 2>&1 ||
		fail "$v: setup --once failed"
	zset "$Z" disksize $((N * 4096 + 16 * 1048576))
	c=0
	while [ "$c" -lt "$COPIES" ]; do
		load "$Z" "$DATA/random.bin" 0 "$NR" $((c * NR))
		c=$((c + 1))
	done
	dd if="/dev/$Z" bs=4096 count="$N" iflag=direct 2>/dev/null | md5sum >"$WORK/sum0"
	"$RECOMPD" --config "$WORK/$v.conf" --once --device "$Z" >"$WORK/$v.recomp" 2>&1 ||
		fail "$v: recompression --once failed"
	out "wbcrypt.$v.incompressible_slots" "$(bs_count "$Z" n)"
	set -- $(zget "$Z" mm_stat)
	used0=$3
	t0=$(ns)
	"$RECOMPD" --config "$WORK/$v.yes.conf" --once --device "$Z" >"$WORK/$v.wb" 2>&1
	rc=$?
	t1=$(ns)
	show "$WORK/$v.wb"
	[ "$rc" = 0 ] || fail "$v: writeback --once exited $rc"
	set -- $(zget "$Z" mm_stat)
	used1=$3
	set -- $(zget "$Z" bd_stat)
	out "wbcrypt.$v.written_pages" "$3"
	out "wbcrypt.$v.written_bytes" $(($3 * 4096))
	out "wbcrypt.$v.writeback_kernel_s" "$(wb_kernel_s "$WORK/$v.wb")"
	out "wbcrypt.$v.wall_s" "$(secs $((t1 - t0)))"
	out "wbcrypt.$v.mem_used_before" "$used0"
	out "wbcrypt.$v.mem_used_after" "$used1"
	out "wbcrypt.$v.freed_bytes" $((used0 - used1))
	dd if="/dev/$Z" bs=4096 count="$N" iflag=direct 2>/dev/null | md5sum >"$WORK/sum1"
	if cmp -s "$WORK/sum0" "$WORK/sum1"; then
		out "wbcrypt.$v.data_intact" yes
	else
		out "wbcrypt.$v.data_intact" no
		fail "$v: data read back differs after writeback"
	fi
	zram_del "$Z"
	"$RECOMPD" --config "$WORK/$v.conf" backing teardown >"$WORK/$v.td" 2>&1 ||
		{ show "$WORK/$v.td"; fail "$v: backing teardown failed"; }
	BACKING_CONF=
done
pass
