#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The encrypted backing file (issue 25) on a real kernel: `zram-recompd backing setup` makes a
# file on a real file system (ext4 in a loop-mounted image), puts it on a loop device behind
# dm-crypt (libcryptsetup, plain aes-xts-plain64, a random key) and gives that to zram as
# backing_dev; writeback then puts pages there that only the dm device can read.
#  - setup: exit 0; backing_dev is the dm device named zram-recompd-zramN (uuid CRYPT-PLAIN-*:
#    cryptsetup's plain mode), whose one slave is a loop device on the file; the file is
#    root's, mode 0600, one link, fully allocated (st_blocks * 512 >= size: no holes);
#  - 64 pages, each a 64-byte random string (made now, kept only in $WORK) followed by random
#    bytes, then the 256 random pages: a --once with writeback-types = incompressible writes
#    them back (bd_stat writes >= 64, the marked pages' slots `w`), every page reads back
#    intact through /dev/zramN (checksum);
#  - the raw file (read through the ext4 mount, caches dropped) holds none of the 64 strings,
#    while the dm device, read beside zram, holds every one (the control: they did reach the
#    backing store, in clear text only above dm-crypt);
#  - `backing teardown` while zramN is initialized leaves everything in place and says so;
#  - after a reset, `backing teardown` leaves no dm device, no loop device on the file, and
#    no file; the file system has its space back;
#  - a file zram-recompd did not make, at another configured path on the same ext4 (root's,
#    mode 0600, one link, allocated: what a swap file looks like), survives `backing setup`
#    (exit 1, one line naming it) and `backing teardown` (exit 0, says it left it) byte for
#    byte, and a loop device the admin put on it stays attached;
#  - the file setup makes carries the mark: setup sets trusted.zram-recompd.backing naming
#    its inode (seen with strace where the image has it), and teardown removes that file
#    where it left the unmarked one.
. /vm/lib.sh
need_recompd
export ZRAM_RECOMPD_STATE_DIR=$WORK/state

ext4_mount 256M
BDIR=$MNT/zram-recompd
mkdir -p "$BDIR"
chmod 0700 "$BDIR"
FILE=$BDIR/backing.img
free0=$(free_bytes "$MNT")
dm0=$(dm_devices)
[ -z "$dm0" ] || fail "dm devices before the test: $dm0"

zram_add
conf "$WORK/c.conf" "devices = $Z" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
	"writeback = yes" "writeback-types = incompressible" "" "[$Z]" \
	"backing-file = $FILE" "backing-file-size = 128M" "backing-encryption = yes"
BACKING_CONF=$WORK/c.conf
run_recompd "$WORK/check.out" --config "$WORK/c.conf" --check-config
expect_eq "--check-config exit code" "$RC" 0

run_recompd "$WORK/setup.out" --config "$WORK/c.conf" backing setup "$Z"
expect_eq "backing setup exit code" "$RC" 0
DM=$(dm_of "zram-recompd-$Z")
[ -n "$DM" ] || fail "no dm device named zram-recompd-$Z after setup (dm: $(dm_devices))"
uuid=$(cat "/sys/block/$DM/dm/uuid")
case $uuid in
CRYPT-PLAIN-*) ;;
*) fail "dm uuid '$uuid' of $DM: not a cryptsetup plain mapping" ;;
esac
bd=$(zget "$Z" backing_dev)
[ -b "$bd" ] || fail "backing_dev '$bd' is not a block device"
set -- $(stat -L -c '%t %T' "$bd")
expect_eq "backing_dev's device number" "$((0x$1)):$((0x$2))" "$(cat "/sys/block/$DM/dev")"
LP=$(loops_on "$FILE")
LP=${LP% }
[ -n "$LP" ] || fail "no loop device on $FILE"
expect_eq "$DM's slaves" "$(ls "/sys/block/$DM/slaves" | tr '\n' ' ')" "$LP "
# mode, owner, links, size, allocation
set -- $(stat -c '%a %u %h %s %b %B' "$FILE")
expect_eq "file mode" "$1" 600
expect_eq "file owner" "$2" 0
expect_eq "file links" "$3" 1
expect_eq "file size" "$4" $((128 * 1024 * 1024))
[ $(($5 * $6)) -ge "$4" ] || fail "file has holes: $5 blocks of $6 bytes for $4 bytes"
note "backing_dev $bd = $DM ($uuid), on $LP on $FILE: mode $1, $(($5 * $6)) bytes allocated"

# 64 pages with a known random string each (generated now, never leaving $WORK).
NM=64
marked_pages "$WORK/marks" "$WORK/mk.bin" "$NM"
NR=$(pages_of "$DATA/random.bin")
TOT=$((NM + NR))
expect_eq "marked pages" "$(pages_of "$WORK/mk.bin")" "$NM"
# grep reads lines as C strings: a NUL byte before a string on its line would hide it, so
# every grep here reads with the NUL bytes taken out (no string has one: nothing is hidden)
# each page begins with its string: read them back page by page (a grep over the whole file
# once found 63 of 64 in a CI run)
expect_eq "strings found in the pages written" \
	"$(_i=0; while [ "$_i" -lt "$NM" ]; do dd if="$WORK/mk.bin" bs=4096 skip="$_i" count=1 2>/dev/null | head -c 64; echo; _i=$((_i + 1)); done | cmp -s - "$WORK/marks" && echo "$NM")" "$NM"

# the secondary algorithm before disksize (the setup tools' hook): --once on the device,
# whose backing device is in place already, so it changes nothing there
run_recompd "$WORK/once0.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "setup --once exit code" "$RC" 0
expect_eq "backing_dev after the setup --once" "$(zget "$Z" backing_dev)" "$bd"
expect_eq "dm devices after the setup --once" "$(dm_devices)" "$DM "
recomp_list "$Z" | grep -q zstd || fail "no zstd in recomp_algorithm after the setup --once"
zset "$Z" disksize 64M
load "$Z" "$WORK/mk.bin"
load "$Z" "$DATA/random.bin" 0 "$NR" "$NM"
dd if="/dev/$Z" bs=4096 count=$TOT iflag=direct 2>/dev/null | md5sum >"$WORK/sum0"
cat "$WORK/mk.bin" | md5sum >"$WORK/summk"
dd if="/dev/$Z" bs=4096 count=$NM iflag=direct 2>/dev/null | md5sum >"$WORK/summk.z"
cmp -s "$WORK/summk" "$WORK/summk.z" || fail "the marked pages read back differ before writeback"

run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "writeback --once exit code" "$RC" 0
set -- $(zget "$Z" bd_stat)
wb=$3
note "bd_stat $*"
[ "$wb" -ge "$NM" ] || fail "bd_stat writes $wb, expected at least the $NM marked pages"
expect_eq "marked slots written back (w)" "$(bs_count "$Z" w 0 $((NM - 1)))" "$NM"
expect_eq "written-back slots (w) = bd_stat writes" "$(bs_count "$Z" w)" "$wb"
dd if="/dev/$Z" bs=4096 count=$TOT iflag=direct 2>/dev/null | md5sum >"$WORK/sum1"
cmp -s "$WORK/sum0" "$WORK/sum1" || fail "data read back differs after writeback"

# The raw file holds none of the strings; the dm device (plain text above dm-crypt) all.
sync
echo 3 >/proc/sys/vm/drop_caches
# (NUL bytes out, as above; also, the unwritten rest of the file would be one 128 MiB line)
raw=$(tr -d '\000' <"$FILE" | grep -c -F -f "$WORK/marks")
expect_eq "lines of the raw backing file holding a known string" "$raw" 0
plain=$(dd if="/dev/$DM" bs=1M count=16 iflag=direct 2>/dev/null | tr -d '\000' |
	grep -o -F -f "$WORK/marks" | sort -u | wc -l)
expect_eq "known strings on the dm device (the control)" "$plain" "$NM"

# teardown while zramN is initialized: nothing moves
run_recompd "$WORK/td1.out" --config "$WORK/c.conf" backing teardown "$Z"
expect_eq "teardown exit code while $Z is initialized" "$RC" 0
grep -q "$Z" "$WORK/td1.out" || fail "teardown while $Z is initialized did not say why it left it"
expect_eq "dm device after teardown while initialized" "$(dm_of "zram-recompd-$Z")" "$DM"
expect_eq "loop device on the file after teardown while initialized" "$(loops_on "$FILE")" "$LP "
[ -f "$FILE" ] || fail "teardown while $Z is initialized removed the file"
expect_eq "backing_dev after teardown while initialized" "$(zget "$Z" backing_dev)" "$bd"
dd if="/dev/$Z" bs=4096 count=$TOT iflag=direct 2>/dev/null | md5sum >"$WORK/sum2"
cmp -s "$WORK/sum0" "$WORK/sum2" || fail "data read back differs after the refused teardown"

# reset, then teardown: nothing of ours is left
zset "$Z" reset 1
run_recompd "$WORK/td2.out" --config "$WORK/c.conf" backing teardown "$Z"
expect_eq "teardown exit code after the reset" "$RC" 0
expect_eq "dm devices after teardown" "$(dm_devices)" ""
expect_eq "loop devices on the file after teardown" "$(loops_on "$FILE")" ""
[ ! -e "$FILE" ] || fail "$FILE still exists after teardown"
free1=$(free_bytes "$MNT")
[ "$free1" -ge $((free0 - 1048576)) ] ||
	fail "free space $free1 after teardown, $free0 before setup: the file's space is not back"
# A file zram-recompd did not make: never replaced, never removed, a loop device on it kept.
ADM=$BDIR/admin.swap
dd if=/dev/urandom of="$ADM" bs=1M count=4 2>/dev/null || fail "cannot write $ADM"
chmod 0600 "$ADM"
sync
adm_sum=$(md5sum <"$ADM")
adm_ino=$(stat -c %i "$ADM")
set -- $(stat -c '%a %u %h' "$ADM")
expect_eq "the admin's file: mode owner links" "$*" "600 0 1"
conf "$WORK/a.conf" "devices = $Z" "writeback = yes" "" "[$Z]" "backing-file = $ADM" \
	"backing-file-size = 16M" "backing-encryption = yes"
run_recompd "$WORK/adm1.out" --config "$WORK/a.conf" backing setup "$Z"
expect_eq "backing setup exit code on the admin's file" "$RC" 1
grep -q "$ADM exists and is not a file zram-recompd made" "$WORK/adm1.out" ||
	fail "the refusal does not name $ADM: $(cat "$WORK/adm1.out")"
expect_eq "the admin's file after setup (md5)" "$(md5sum <"$ADM")" "$adm_sum"
expect_eq "the admin's file's inode after setup" "$(stat -c %i "$ADM")" "$adm_ino"
expect_eq "dm devices after the refused setup" "$(dm_devices)" ""
expect_eq "loop devices on the admin's file after setup" "$(loops_on "$ADM")" ""
expect_eq "backing_dev after the refused setup" "$(zget "$Z" backing_dev)" none
AL=$(losetup -f) || fail "no free loop device"
losetup "$AL" "$ADM" || fail "losetup $AL $ADM failed"
LOOPS="$LOOPS $AL"
run_recompd "$WORK/adm2.out" --config "$WORK/a.conf" backing teardown "$Z"
expect_eq "backing teardown exit code on the admin's file" "$RC" 0
grep -q "left attached" "$WORK/adm2.out" ||
	fail "teardown did not say it left ${AL#/dev/} on $ADM: $(cat "$WORK/adm2.out")"
expect_eq "loop devices on the admin's file after teardown" "$(loops_on "$ADM")" "${AL#/dev/} "
losetup -d "$AL"
run_recompd "$WORK/adm3.out" --config "$WORK/a.conf" backing teardown "$Z"
expect_eq "backing teardown exit code on the admin's file, no loop" "$RC" 0
grep -q "not a file zram-recompd made.*left alone" "$WORK/adm3.out" ||
	fail "teardown did not say it left $ADM alone: $(cat "$WORK/adm3.out")"
[ -f "$ADM" ] || fail "teardown removed the admin's file $ADM"
expect_eq "the admin's file after teardown (md5)" "$(md5sum <"$ADM")" "$adm_sum"
expect_eq "the admin's file's inode after teardown" "$(stat -c %i "$ADM")" "$adm_ino"

# The mark on a file setup makes, beside the unmarked one: teardown removes only it.
OURS=$BDIR/ours.swap
conf "$WORK/o.conf" "devices = $Z" "writeback = yes" "" "[$Z]" "backing-file = $OURS" \
	"backing-file-size = 16M" "backing-encryption = yes"
if [ -x /usr/bin/strace ]; then
	note "strace -e trace=fsetxattr zram-recompd backing setup $Z"
	/usr/bin/strace -f -qq -s 128 -e trace=fsetxattr -o "$WORK/mark.st" \
		"$RECOMPD" --config "$WORK/o.conf" backing setup "$Z" >"$WORK/o1.out" 2>&1
	RC=$?
	sed "s/^/[$T]   | /" "$WORK/o1.out" "$WORK/mark.st"
else
	run_recompd "$WORK/o1.out" --config "$WORK/o.conf" backing setup "$Z"
fi
expect_eq "backing setup exit code on a new file" "$RC" 0
[ -f "$OURS" ] || fail "no $OURS after setup"
if [ -x /usr/bin/strace ]; then
	grep -q "fsetxattr([0-9]*, \"trusted.zram-recompd.backing\", \"zram-recompd backing-file ino=$(stat -c %i "$OURS")\", [0-9]*, XATTR_CREATE) = 0" \
		"$WORK/mark.st" || fail "setup did not mark $OURS (inode $(stat -c %i "$OURS"))"
else
	note "no strace in the image: the mark is seen only by teardown below"
fi
run_recompd "$WORK/o2.out" --config "$WORK/o.conf" backing teardown "$Z"
expect_eq "backing teardown exit code on the new file" "$RC" 0
[ ! -e "$OURS" ] || fail "teardown left $OURS, which setup made"
expect_eq "dm devices after the new file's teardown" "$(dm_devices)" ""
expect_eq "the admin's file at the end (md5)" "$(md5sum <"$ADM")" "$adm_sum"
rm -f "$ADM"
pass_note "$wb pages written back through dm-crypt ($DM on $LP), none of $NM strings in the file"
