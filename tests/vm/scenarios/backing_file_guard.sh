#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The free-space guard of the backing file (issue 25; ChromeOS: no writeback below 15% free
# disk) on a real file system: an ext4 of 192 MiB cannot hold a 128 MiB backing file and keep
# half of itself free (backing-file-min-free = 50%).
#  - `backing setup zramN` refuses: exit 6, one line naming the device and the figures (the
#    file's size and the free space), and nothing is left behind: no dm device, no loop
#    device on the file, no file, backing_dev still none, the free space as before;
#  - the device itself is untouched (initstate 0) and can still be set up without a backing
#    file: the refusal costs nothing but the writeback.
#  - the control: the same file with backing-file-min-free = 10% is set up (exit 0), and torn
#    down again, so the refusal above came from the guard, not from something else.
. /vm/lib.sh
need_recompd

ext4_mount 192M
BDIR=$MNT/zram-recompd
mkdir -p "$BDIR"
chmod 0700 "$BDIR"
FILE=$BDIR/backing.img
free0=$(free_bytes "$MNT")
note "free on the ext4: $free0 bytes"

zram_add
gconf() {
	conf "$WORK/g.conf" "devices = $Z" "recompress-algorithms = zstd" "writeback = yes" "" \
		"[$Z]" "backing-file = $FILE" "backing-file-size = 128M" "$@"
	run_recompd "$WORK/check.out" --config "$WORK/g.conf" --check-config
	expect_eq "--check-config exit code" "$RC" 0
}
gconf "backing-file-min-free = 50%"
BACKING_CONF=$WORK/g.conf

run_recompd "$WORK/setup.out" --config "$WORK/g.conf" backing setup "$Z"
expect_eq "backing setup exit code (free-space guard)" "$RC" 6
line=$(grep "$Z" "$WORK/setup.out" | head -n 1)
[ -n "$line" ] || fail "no line naming $Z in the refusal"
# the figures: the file's size and what would be left free (or the free space), with units
nfig=$(echo "$line" | grep -oE '[0-9]+(\.[0-9]+)? ?(B|KiB|MiB|GiB|TiB|%)' | wc -l)
[ "$nfig" -ge 2 ] || fail "the refusal names $nfig figures, expected at least 2: $line"
echo "$line" | grep -qE '128(\.0)? ?MiB' || fail "the refusal does not name the 128 MiB file: $line"
expect_eq "dm devices after the refusal" "$(dm_devices)" ""
expect_eq "loop devices on the file after the refusal" "$(loops_on "$FILE")" ""
[ ! -e "$FILE" ] || fail "$FILE left behind by the refused setup"
expect_eq "files left in $BDIR" "$(ls -A "$BDIR")" ""
expect_eq "backing_dev after the refusal" "$(zget "$Z" backing_dev)" none
expect_eq "free space after the refusal" "$(free_bytes "$MNT")" "$free0"
expect_eq "initstate after the refusal" "$(zget "$Z" initstate)" 0

# the control: a guard the file system meets
gconf "backing-file-min-free = 10%"
run_recompd "$WORK/setup2.out" --config "$WORK/g.conf" backing setup "$Z"
expect_eq "backing setup exit code with a 10% guard" "$RC" 0
DM=$(dm_of "zram-recompd-$Z")
[ -n "$DM" ] || fail "no dm device after the setup with a 10% guard"
[ -f "$FILE" ] || fail "no file after the setup with a 10% guard"
run_recompd "$WORK/td.out" --config "$WORK/g.conf" backing teardown "$Z"
expect_eq "teardown exit code" "$RC" 0
expect_eq "dm devices after teardown" "$(dm_devices)" ""
expect_eq "loop devices on the file after teardown" "$(loops_on "$FILE")" ""
[ ! -e "$FILE" ] || fail "$FILE left after teardown"
expect_eq "backing_dev after teardown" "$(zget "$Z" backing_dev)" none
# still usable without a backing file
zset "$Z" disksize 16M
load "$Z" "$DATA/random.bin" 0 16
pass_note "refused with exit 6: $line"
