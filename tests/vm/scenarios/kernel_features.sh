#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The test kernel itself: every zram feature the other scenarios rely on is there. A failure
# here means kernel.fragment/build-kernel.sh produced the wrong kernel, not a daemon bug.
. /vm/lib.sh

zram_add
for a in recomp_algorithm recompress algorithm_params backing_dev writeback idle compact; do
	[ -e "/sys/block/$Z/$a" ] || fail "/sys/block/$Z/$a missing"
done
expect_eq "comp_algorithm" "$(zget "$Z" comp_algorithm)" "[lzo-rle] lzo lz4 lz4hc zstd deflate 842 "
zset "$Z" recomp_algorithm "algo=zstd priority=1"
# As text (the NUL bytes of 6.17+ are kernel_abi's business).
expect_eq "recomp_algorithm" "$(recomp_list "$Z")" \
	"#1: lzo-rle lzo lz4 lz4hc [zstd] deflate 842 "
zset "$Z" disksize 16M
# One slot per page of the kernel's size: zram sets the queue's physical block size to
# PAGE_SIZE, which is what zram-recompd reads; the arm64 kernel has 16 KiB pages
# (kernel-arm64.fragment), the x86-64 ones 4 KiB.
expect_eq "queue/physical_block_size" "$(zget "$Z" queue/physical_block_size)" "$PAGE"
case $(uname -m) in
aarch64) expect_eq "page size of the arm64 kernel" "$PAGE" 16384 ;;
x86_64) expect_eq "page size of the x86-64 kernel" "$PAGE" 4096 ;;
esac
[ -r "/sys/kernel/debug/zram/$Z/block_state" ] || fail "no debugfs block_state"
# Age-based idle marking needs CONFIG_ZRAM_TRACK_ENTRY_ACTIME.
zset "$Z" idle 60
load "$Z" "$DATA/pages.bin" 0 64
expect_eq "allocated slots" "$(bs_total "$Z")" 64
[ -d /sys/class/zram-control ] || fail "no zram-control"
[ -e /dev/loop-control ] || fail "no loop device support"
grep -q '^some ' /proc/pressure/memory || fail "no PSI"
pass_note "$(uname -m), $PAGE-byte pages"
