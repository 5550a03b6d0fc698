#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A backing file under a mount point that /etc/fstab names but that is not mounted yet (a
# separate /var at early boot): the file would land on the file system below, and the real
# one would hide it once mounted.
#  - `backing setup zramN` refuses: exit 1, one line naming the directory and fstab, no file
#    in the directory below the mount point, no loop or dm device, backing_dev still none;
#  - the control: the same configuration once the directory is mounted (a bind mount of
#    another directory of the same ext4) is set up (exit 0), its file in the mounted
#    directory, and torn down.
# /etc/fstab is the guest's own: written here and put back as it was.
. /vm/lib.sh
need_recompd

ext4_mount 192M
LATE=$MNT/late
mkdir -p "$LATE" "$MNT/real"
chmod 0700 "$LATE" "$MNT/real"
FILE=$LATE/zram.swap

FSTAB_SAVED=
if [ -e /etc/fstab ]; then
	cp /etc/fstab "$WORK/fstab.saved" || fail "cannot save /etc/fstab"
	FSTAB_SAVED=1
fi
restore_fstab() {
	if [ -n "$FSTAB_SAVED" ]; then
		cp "$WORK/fstab.saved" /etc/fstab
	else
		rm -f /etc/fstab
	fi
}
mkdir -p /etc
{
	[ -z "$FSTAB_SAVED" ] || cat "$WORK/fstab.saved"
	echo "LABEL=late $LATE ext4 defaults 0 2"
} >/etc/fstab

zram_add
conf "$WORK/l.conf" "devices = $Z" "recompress-algorithms = zstd" "writeback = yes" "" \
	"[$Z]" "backing-file = $FILE" "backing-file-size = 32M" "backing-encryption = no"
BACKING_CONF=$WORK/l.conf

run_recompd "$WORK/setup.out" --config "$WORK/l.conf" backing setup "$Z"
rc1=$RC
line=$(grep "$Z" "$WORK/setup.out" | head -n 1)
left=$(ls -A "$LATE")
loops=$(loops_on "$FILE")
bdev=$(zget "$Z" backing_dev)
restore_fstab
expect_eq "backing setup exit code (mount point not mounted yet)" "$rc1" 1
echo "$line" | grep -q "in /etc/fstab but not mounted yet" ||
	fail "the refusal does not say why: $(cat "$WORK/setup.out")"
echo "$line" | grep -qF "$LATE" || fail "the refusal does not name $LATE: $line"
expect_eq "files below the mount point after the refusal" "$left" ""
expect_eq "loop devices on the file after the refusal" "$loops" ""
expect_eq "backing_dev after the refusal" "$bdev" none

# the control: mounted now (fstab still names it), so the file goes where it belongs
{
	[ -z "$FSTAB_SAVED" ] || cat "$WORK/fstab.saved"
	echo "LABEL=late $LATE ext4 defaults 0 2"
} >/etc/fstab
mount --bind "$MNT/real" "$LATE" || { restore_fstab; fail "mount --bind failed"; }
MOUNTS="$LATE $MOUNTS"
run_recompd "$WORK/setup2.out" --config "$WORK/l.conf" backing setup "$Z"
rc2=$RC
restore_fstab
expect_eq "backing setup exit code once mounted" "$rc2" 0
[ -f "$MNT/real/zram.swap" ] || fail "the file is not in the mounted directory: $(ls -A "$MNT/real")"
run_recompd "$WORK/td.out" --config "$WORK/l.conf" backing teardown "$Z"
expect_eq "teardown exit code" "$RC" 0
[ ! -e "$MNT/real/zram.swap" ] || fail "the file is left after teardown"
umount "$LATE" || fail "umount $LATE failed"
MOUNTS=$(echo " $MOUNTS " | sed "s| $LATE | |")
expect_eq "files below the mount point at the end" "$(ls -A "$LATE")" ""
pass_note "refused: $line"
