#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Setups of one device at once, on a real kernel: zram-recompd-backing.service sets up every
# device while the setup tools' hook of zramN (N >= 1, not ordered after that unit) runs its
# own, so two `backing setup` may meet on one device and one's undo used to remove the file
# the other's loop device was on. Three rounds of two setups started together:
#  - both exit 0 (the later one, after the lock, finds the backing device in place);
#  - one dm device, one loop device, on the file that is there (not a deleted one), and
#    backing_dev is that dm device;
#  - teardown leaves no dm device, no loop device, no file.
. /vm/lib.sh
need_recompd

ext4_mount 256M
BDIR=$MNT/zram-recompd
mkdir -p "$BDIR"
chmod 0700 "$BDIR"
FILE=$BDIR/backing.img

zram_add
conf "$WORK/r.conf" "devices = $Z" "writeback = yes" "" "[$Z]" "backing-file = $FILE" \
	"backing-file-size = 64M" "backing-encryption = yes"
BACKING_CONF=$WORK/r.conf
waits=0
for round in 1 2 3; do
	"$RECOMPD" --config "$WORK/r.conf" backing setup "$Z" >"$WORK/a$round.out" 2>&1 &
	pa=$!
	"$RECOMPD" --config "$WORK/r.conf" backing setup "$Z" >"$WORK/b$round.out" 2>&1 &
	pb=$!
	wait "$pa"
	ra=$?
	wait "$pb"
	rb=$?
	sed "s/^/[$T]   a$round | /" "$WORK/a$round.out"
	sed "s/^/[$T]   b$round | /" "$WORK/b$round.out"
	expect_eq "round $round: exit codes of the two setups" "$ra $rb" "0 0"
	! grep -q "waiting for another backing setup" "$WORK/a$round.out" "$WORK/b$round.out" ||
		waits=$((waits + 1))
	DM=$(dm_of "zram-recompd-$Z")
	[ -n "$DM" ] || fail "round $round: no dm device zram-recompd-$Z"
	expect_eq "round $round: dm devices" "$(dm_devices)" "$DM "
	[ -f "$FILE" ] || fail "round $round: $FILE is gone"
	LP=$(loops_on "$FILE")
	[ -n "$LP" ] || fail "round $round: no loop device on $FILE" \
		"($(cat /sys/block/loop*/loop/backing_file 2>/dev/null | tr '\n' ' '))"
	expect_eq "round $round: loop devices on $FILE" "$(echo $LP | wc -w)" 1
	expect_eq "round $round: $DM's slaves" "$(ls "/sys/block/$DM/slaves" | tr '\n' ' ')" "$LP"
	set -- $(stat -L -c '%t %T' "$(zget "$Z" backing_dev)")
	expect_eq "round $round: backing_dev's device number" "$((0x$1)):$((0x$2))" \
		"$(cat "/sys/block/$DM/dev")"
	run_recompd "$WORK/td$round.out" --config "$WORK/r.conf" backing teardown "$Z"
	expect_eq "round $round: teardown exit code" "$RC" 0
	expect_eq "round $round: dm devices after teardown" "$(dm_devices)" ""
	expect_eq "round $round: loop devices after teardown" "$(loops_on "$FILE")" ""
	[ ! -e "$FILE" ] || fail "round $round: $FILE left after teardown"
done
pass_note "3 rounds of two setups at once: one stack each ($waits waited for the lock)"
