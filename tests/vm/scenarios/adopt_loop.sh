#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `zram-recompd adopt` on a swap device whose backing device is a plain loop device set to
# autoclear: `backing setup` with backing-file and backing-encryption = no puts the file on
# a loop device (LO_FLAGS_AUTOCLEAR) that zram alone holds open, so zram's reset would detach
# it and backing_dev could not name it again; adopt holds it open across the reset. Under the
# swapping workload of the adopt scenario, with pages written back to the loop device, plan A
# (direct; adopt_loop_temp.sh: plan B, --via-temp, through this file with ADOPT_LOOP_PLAN=temp):
# the device gets zstd, keeps /dev/loopN as its backing device (still attached, on the same
# file), and on 7.0+ compressed_writeback (compressed-writeback = yes). One plan a boot's
# scenario: squeezing again after a first adoption, with the backing file's ext4 on the
# guest's RAM, hung the whole guest at times.
# Asserted after the adoption: the device swap again at its priority and size, the header's
# UUID and label, no other zram device left, the written-back pages read back (bd_stat
# bd_count 0); at the end every page the workload reads back is intact.
# vm-timeout: 300
. /vm/lib.sh
SQUEEZE=1 # mlocked balloons: its allocation-failure traces are judged (squeeze_traces)
need_recompd

. /vm/adopt_lib.sh
RAM=112   # MiB the balloons leave to the workload
EXTRA=128 # of which a second balloon holds this much
MIB=136
PRIO=7

# writeback_some WHAT: every slot marked idle and written back to the loop device; at least
# one page lands there.
writeback_some() {
	zset "$Z" idle all
	zwrite "$Z" writeback idle
	wb=$(bd_pages "$Z" bd_count)
	note "$1: $wb pages on $LOOP after the writeback (bd_stat $(zget "$Z" bd_stat))"
	[ "$wb" -gt 0 ] || fail "$1: no page was written back to $LOOP"
}

# after_adopt OUT WHAT: swap again as before, on the same loop device, nothing left on it.
after_adopt() {
	grep -q "^$Z: adopted" "$1" || fail "$2: no 'adopted' line"
	grep -q "^$Z: hold $LOOPDEV open until backing_dev names it again" "$1" ||
		fail "$2: $LOOPDEV was not held open"
	expect_swap_again "$2"
	expect_eq "$2: zram devices" "$(zram_list)" "$devs0"
	expect_eq "$2: disksize" "$(zget "$Z" disksize)" $((128 << 20))
	expect_eq "$2: backing_dev" "$(zget "$Z" backing_dev)" "$LOOPDEV"
	expect_eq "$2: $LOOP's file" "$(cat "/sys/block/$LOOP/loop/backing_file" 2>/dev/null)" "$FILE"
	expect_eq "$2: $LOOP autoclear" "$(cat "/sys/block/$LOOP/loop/autoclear")" 1
	expect_eq "$2: pages on $LOOP" "$(bd_pages "$Z" bd_count)" 0
	if kver_ge 7 0; then
		expect_eq "$2: compressed_writeback" "$(zget "$Z" compressed_writeback)" 1
	fi
}

t0=$(now)
avail=$(avail_mib)
[ "$avail" -gt $((RAM + EXTRA + 64)) ] || skip "only $avail MiB available"

# the device, on a plain loop device (the file on ext4; the guest's /tmp is tmpfs)
ext4_mount 96M
BDIR=$MNT/zram-recompd
mkdir -p "$BDIR"
chmod 0700 "$BDIR"
FILE=$BDIR/backing.img
zram_add
BCONF=$WORK/b.conf
conf "$BCONF" "devices = $Z" "writeback = yes" "compressed-writeback = yes" "" "[$Z]" \
	"backing-file = $FILE" "backing-file-size = 64M" "backing-encryption = no"
BACKING_CONF=$BCONF
run_recompd "$WORK/setup.out" --config "$BCONF" backing setup "$Z"
expect_eq "backing setup exit code" "$RC" 0
LOOPDEV=$(zget "$Z" backing_dev)
LOOP=${LOOPDEV#/dev/}
case $LOOP in
loop[0-9]*) ;;
*) fail "backing_dev is '$LOOPDEV', not a loop device" ;;
esac
expect_eq "$LOOP autoclear" "$(cat "/sys/block/$LOOP/loop/autoclear")" 1
expect_eq "$LOOP's file" "$(cat "/sys/block/$LOOP/loop/backing_file")" "$FILE"
# 7.0+: the setup turned compressed_writeback on before backing_dev
kver_ge 7 0 && expect_eq "compressed_writeback after setup" "$(zget "$Z" compressed_writeback)" 1

squeeze
swap_setup adoptlbl
workload
remember
swap_some
# written back with memory to spare: a writeback under the squeeze can wait on reclaim, which
# waits on zram (7.0+: writeback holds the device's lock exclusively)
pop "$H2"
writeback_some "before the adoption"

# the adoption, with the balloons gone
unsqueeze
conf "$WORK/a.conf" "recompress-algorithms = zstd" "writeback = yes" "compressed-writeback = yes" \
	"" "[$Z]" "backing-file = $FILE" "backing-file-size = 64M" "backing-encryption = no"
t1=$(now)
if [ "${ADOPT_LOOP_PLAN:-direct}" = temp ]; then
	PLAN="plan B"
	run_recompd "$WORK/a.out" --config "$WORK/a.conf" adopt --via-temp "$Z"
	expect_eq "adopt --via-temp exit code" "$RC" 0
	grep -q "^$Z: plan: through a temporary zram device" "$WORK/a.out" || fail "plan B was not taken"
else
	PLAN="plan A"
	run_recompd "$WORK/a.out" --config "$WORK/a.conf" adopt "$Z"
	expect_eq "adopt (direct) exit code" "$RC" 0
	grep -q "^$Z: plan: direct (swapoff first)" "$WORK/a.out" || fail "plan A was not chosen"
fi
after_adopt "$WORK/a.out" "$PLAN"
expect_eq "recomp_algorithm after $PLAN" "$(secondaries "$Z")" "#1: [zstd] "
kill -0 "$LPID" || fail "the workload died during $PLAN"
note "$PLAN in $(elapsed "$t1" "$(now)") s; used $(swap_used "$Z") KiB"

# every page of the workload, through it
verify_pages 120
squeeze_traces "$HOLDS"
pass_note "$PLAN on $LOOPDEV (autoclear), $VERIFIED pages verified, $(elapsed "$t0" "$(now)") s"
