#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# backing-encryption = yes on a backing-device the admin names (issue 25): `zram-recompd
# backing setup` wraps that device in dm-crypt (plain aes-xts-plain64, a random key) and gives
# the dm device to zram; the device itself is the admin's and stays theirs.
#  - setup: exit 0; backing_dev is the dm device zram-recompd-zramN (uuid CRYPT-PLAIN-*) whose
#    one slave is the named device (here a loop device on an image in the guest's tmpfs);
#  - 64 pages, each a 64-byte random string (made now, kept only in $WORK) and random bytes:
#    a --once with writeback-types = incompressible writes them back, every page reads back
#    intact through /dev/zramN (checksum); the raw image holds none of the strings, the dm
#    device every one (the control);
#  - after a reset, `backing teardown`: no dm device; the named loop device is still attached
#    to its image (not ours to detach), and the image is still there.
. /vm/lib.sh
need_recompd
export ZRAM_RECOMPD_STATE_DIR=$WORK/state

dm0=$(dm_devices)
[ -z "$dm0" ] || fail "dm devices before the test: $dm0"
IMG=$WORK/device.img
truncate -s 64M "$IMG" || fail "truncate $IMG"
UL=$(losetup -f) || fail "no free loop device"
losetup "$UL" "$IMG" || fail "losetup $UL $IMG"
ULN=${UL##*/}
_bdc_end() {
	losetup -d "$UL" 2>/dev/null
}
trap '_bdc_end; _cleanup' EXIT

zram_add
conf "$WORK/c.conf" "devices = $Z" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
	"writeback = yes" "writeback-types = incompressible" "" "[$Z]" \
	"backing-device = $UL" "backing-encryption = yes"
run_recompd "$WORK/check.out" --config "$WORK/c.conf" --check-config
expect_eq "--check-config exit code" "$RC" 0
grep -q "not encrypted" "$WORK/check.out" && fail "--check-config warns of clear text although encrypted"

run_recompd "$WORK/setup.out" --config "$WORK/c.conf" backing setup "$Z"
expect_eq "backing setup exit code" "$RC" 0
DM=$(dm_of "zram-recompd-$Z")
[ -n "$DM" ] || fail "no dm device named zram-recompd-$Z after setup (dm: $(dm_devices))"
uuid=$(cat "/sys/block/$DM/dm/uuid")
case $uuid in
CRYPT-PLAIN-*) ;;
*) fail "dm uuid '$uuid' of $DM: not a cryptsetup plain mapping" ;;
esac
expect_eq "$DM's slaves" "$(ls "/sys/block/$DM/slaves" | tr '\n' ' ')" "$ULN "
bd=$(zget "$Z" backing_dev)
[ -b "$bd" ] || fail "backing_dev '$bd' is not a block device"
set -- $(stat -L -c '%t %T' "$bd")
expect_eq "backing_dev's device number" "$((0x$1)):$((0x$2))" "$(cat "/sys/block/$DM/dev")"

NM=64
marked_pages "$WORK/marks" "$WORK/mk.bin" "$NM"
run_recompd "$WORK/once0.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "setup --once exit code" "$RC" 0
expect_eq "backing_dev after the setup --once" "$(zget "$Z" backing_dev)" "$bd"
zset "$Z" disksize 32M
load "$Z" "$WORK/mk.bin"
dd if="/dev/$Z" bs=4096 count=$NM iflag=direct 2>/dev/null | md5sum >"$WORK/sum0"
md5sum <"$WORK/mk.bin" >"$WORK/summk"
cmp -s "$WORK/summk" "$WORK/sum0" || fail "the marked pages read back differ before writeback"

run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "writeback --once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
wb=$3
[ "$wb" -ge "$NM" ] || fail "bd_stat writes $wb, expected at least the $NM marked pages"
expect_eq "marked slots written back (w)" "$(bs_count "$Z" w 0 $((NM - 1)))" "$NM"
dd if="/dev/$Z" bs=4096 count=$NM iflag=direct 2>/dev/null | md5sum >"$WORK/sum1"
cmp -s "$WORK/sum0" "$WORK/sum1" || fail "data read back differs after writeback"

sync
echo 3 >/proc/sys/vm/drop_caches
raw=$(tr -d '\000' <"$IMG" | grep -c -F -f "$WORK/marks")
expect_eq "lines of the raw device image holding a known string" "$raw" 0
plain=$(dd if="/dev/$DM" bs=1M count=16 iflag=direct 2>/dev/null | tr -d '\000' |
	grep -o -F -f "$WORK/marks" | sort -u | wc -l)
expect_eq "known strings on the dm device (the control)" "$plain" "$NM"

zset "$Z" reset 1
run_recompd "$WORK/td.out" --config "$WORK/c.conf" backing teardown "$Z"
expect_eq "teardown exit code after the reset" "$RC" 0
expect_eq "dm devices after teardown" "$(dm_devices)" ""
expect_eq "the named device's image after teardown" "$(cat "/sys/block/$ULN/loop/backing_file" 2>/dev/null)" "$IMG"
[ -e "$IMG" ] || fail "$IMG removed by teardown"
pass_note "$wb pages written back through dm-crypt over the named $UL ($DM), none of $NM strings on it"
