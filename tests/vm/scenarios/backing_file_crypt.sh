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
#    no file; the file system has its space back.
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
pass_note "$wb pages written back through dm-crypt ($DM on $LP), none of $NM strings in the file"
