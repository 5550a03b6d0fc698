#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Driver of the systemd VM's backing boot (run-systemd.sh; mkinitramfs.sh systemd-backing),
# run by zram-recompd-backingtest.service with systemd as PID 1: starting the packaged
# zram-recompd.service pulls in zram-recompd-backing.service, which sets up an encrypted
# backing file for an uninitialized zram0 (`zram-recompd backing setup`, in its own sandbox:
# the daemon's has neither CAP_SYS_ADMIN nor the device access the kernel's O_EXCL open of
# the backing device needs; issue 25, item 3). /etc/zram-recompd.conf (systemd/zram-recompd.conf
# and systemd/backing.conf) names the file, on an ext4 this driver mounts first.
#   systemd_backing_setup      after `systemctl start` both units are active and zram0's
#                              backing_dev is the dm device zram-recompd-zram0 (by its dm-N or
#                              mapper name; zram holds it), dm-crypt in cryptsetup's plain mode
#                              (uuid CRYPT-PLAIN-*), on a loop
#                              device on the file (mode 0600, fully allocated); the unit's
#                              backing unit's journal has the setup's line, no error in
#                              either unit's
#   systemd_backing_writeback  zram0 initialized and swapped on, filled by tests/tools/swapload
#                              under a balloon: the daemon's passes write idle pages back
#                              (bd_stat writes > 0, a pass line "written back"), the workload's
#                              pages verified intact (swapload verify) after that
#   systemd_backing_teardown   `systemctl stop` of both: the backing unit's ExecStop= teardown
#                              leaves the stack (zram0 still holds it, initialized) and says
#                              so; the daemon's unit has no device access beyond zram; then swapoff,
#                              reset and `zram-recompd backing teardown`: no dm device, no
#                              loop device on the file, no file
# Prints "VMTEST PASS|FAIL|SKIP systemd_backing_NAME[: detail]" per check (run-systemd.sh knows
# the names; a missing line counts as a failure), VMKERNEL lines, "VMTEST DONE", and reboots.
export PATH=/usr/sbin:/usr/bin
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0 SYSTEMD_LOG_COLOR=0 LC_ALL=C
U=zram-recompd.service
UB=zram-recompd-backing.service
D=zram0
DATA=/vm/data/pages.bin
MNT=/srv/zram-backing
FILE=$MNT/zram-recompd/zram0.img
# the balloon leaves the workload RAM MiB of which it fills MIB: at least MIB - RAM go to swap
# (112 of 160 once ended in the OOM killer on 7.3)
RAM=144
MIB=192

say() {
	echo "[backing] $*"
}

# each task in uninterruptible sleep: name, pid, wait channel and kernel stack (the last two
# are empty on the test kernels, built without KALLSYMS and STACKTRACE: the names tell)
hung_tasks() {
	for _st in /proc/[0-9]*/status; do
		grep -q '^State:[[:space:]]*D' "$_st" 2>/dev/null || continue
		_p=${_st%/status}
		say "D: $(cat "$_p/comm" 2>/dev/null) pid ${_p#/proc/} wchan $(cat "$_p/wchan" 2>/dev/null)"
		sed 's/^/[backing]     /' "$_p/stack" 2>/dev/null
	done
}

# watchdog PHASE SECONDS: in the background, once PHASE has run SECONDS, every 30 s the
# device's figures, memory, and the tasks in uninterruptible sleep (hung_tasks; this kernel
# has no sysrq); stopped with kill "$WD". What a boot that times out in PHASE
# leaves on the console.
watchdog() {
	(
		sleep "$2"
		_t=$2
		while :; do
			say "$1 still running after $_t s: mm_stat $(cat "/sys/block/$D/mm_stat" 2>/dev/null);" \
				"bd_stat $(cat "/sys/block/$D/bd_stat" 2>/dev/null);" \
				"$(grep -E '^(MemAvailable|SwapFree):' /proc/meminfo | tr -s ' \n' ' ')"
			hung_tasks
			sleep 30
			_t=$((_t + 30))
		done
	) &
	WD=$!
}

res() { # PASS|FAIL|SKIP name [detail...]
	_s=$1
	_n=$2
	shift 2
	if [ $# -gt 0 ]; then
		echo "VMTEST $_s systemd_backing_$_n: $*"
	else
		echo "VMTEST $_s systemd_backing_$_n"
	fi
}

jlog() {
	journalctl -q --no-pager -o cat -u "$U"
}

jlogb() {
	journalctl -q --no-pager -o cat -u "$UB"
}

errors() {
	journalctl -q --no-pager -o cat -u "$U" -u "$UB" -p err | grep -v '^$'
}

dm_of() {
	for _d in /sys/block/dm-*; do
		[ -r "$_d/dm/name" ] && [ "$(cat "$_d/dm/name")" = "$1" ] && echo "${_d##*/}"
	done
	return 0
}

dm_devices() {
	for _d in /sys/block/dm-*; do
		[ -e "$_d" ] && printf '%s ' "${_d##*/}"
	done
	return 0
}

# loops_on FILE: loop devices on FILE. The kernel shows a loop's backing_file (and zram's
# backing_dev) as a path from the mount it was opened through, and the unit's "+" commands
# open it in the unit's mount namespace (ProtectSystem= bind mounts: measured under systemd
# 252, "/zram-recompd/zram0.img", "/mapper/zram-recompd-zram0"), so the path below the ext4's
# mount point counts too.
loops_on() {
	for _d in /sys/block/loop*; do
		[ -r "$_d/loop/backing_file" ] || continue
		_f=$(cat "$_d/loop/backing_file")
		[ "$_f" = "$1" ] || [ "$_f" = "${1#"$MNT"}" ] && printf '%s ' "${_d##*/}"
	done
	return 0
}

bd_writes() {
	# shellcheck disable=SC2046 # bd_stat's three numbers
	set -- $(cat "/sys/block/$D/bd_stat")
	echo "$3"
}

# wait_file FILE REGEX SECONDS
wait_file() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 4)) ] && return 1
		usleep 250000
	done
}

finish() {
	[ -n "${LPID:-}" ] && kill "$LPID" 2>/dev/null
	[ -n "${HOLDPID:-}" ] && kill "$HOLDPID" 2>/dev/null
	# An allocation failure's report (accepted: see the squeeze below) has a Call Trace of
	# its own, also when it comes after the squeeze's check (in swapoff): its header is
	# shown, its trace is not a warning. Any other trace is, with the lines before it.
	dmesg | awk '/page allocation failure/ { alloc = 1; print "[backing] kernel (accepted): " $0; next }
		/Call Trace/ && alloc { alloc = 0; next }
		/WARNING:|BUG:|Oops|general protection|Call Trace|hung_task|soft lockup/ {
			for (i = n - 6; i < n; i++) if (i >= 0) print "[backing] kernel: " last[i % 6]
			print "VMKERNEL " $0 }
		{ last[n % 6] = $0; n++ }'
	say "journal of $U and $UB:"
	journalctl -q --no-pager -o short-monotonic -u "$U" -u "$UB" | tail -n 60 |
		sed 's/^/[journal] /'
	echo "VMTEST DONE"
	sync
	busybox reboot -f
}

say "driver started; kernel $(uname -r)"
# ---- the file system for the backing file (a real one: zram-recompd refuses tmpfs) ----
# Its image lives in RAM, on a tmpfs that never swaps (noswap, 6.4+). On /tmp its pages could
# go to zram0 and be written back through the ext4 they hold: reading them back needs the
# loop device that is waiting for them. Three boots on 7.3 hung that way with the host's cores
# busy (swapload, loop0's worker and jbd2/loop0 in D state, MemAvailable 1.2 GB).
mkdir -p "$MNT" /vm/ext4
IMG=/vm/ext4/ext4.img
# mke2fs by its path: busybox's sh would run its own applet (no -t) for the bare name
if ! mount -t tmpfs -o noswap,size=330M,mode=0700 tmpfs /vm/ext4 >/tmp/mke2fs.out 2>&1 ||
	! truncate -s 320M "$IMG" >>/tmp/mke2fs.out 2>&1 ||
	! /usr/sbin/mke2fs -q -F -t ext4 -m 0 "$IMG" >>/tmp/mke2fs.out 2>&1 ||
	! EXT4LOOP=$(losetup -f) || ! losetup "$EXT4LOOP" "$IMG" ||
	! mount -t ext4 "$EXT4LOOP" "$MNT"; then
	for c in setup writeback teardown; do
		res FAIL "$c" "the ext4 for the backing file: $(cat /tmp/mke2fs.out)"
	done
	finish
fi
mkdir -p "$MNT/zram-recompd"
chmod 0700 "$MNT/zram-recompd"
say "ext4 on $EXT4LOOP at $MNT; zram0 initstate $(cat /sys/block/$D/initstate)," \
	"backing_dev $(cat /sys/block/$D/backing_dev)"

# ---- setup by zram-recompd-backing.service, pulled in by the daemon's unit ----
systemctl start "$U"
st=$(systemctl show -p ActiveState --value "$U")/$(systemctl show -p SubState --value "$U")
stb=$(systemctl show -p ActiveState --value "$UB")/$(systemctl show -p SubState --value "$UB")
# the daemon's unit gained no device access for it
dallow=$(systemctl show -p DeviceAllow --value "$U")
bd=$(cat "/sys/block/$D/backing_dev")
DM=$(dm_of zram-recompd-$D)
LP=$(loops_on "$FILE")
LP=${LP% }
uuid=
[ -n "$DM" ] && uuid=$(cat "/sys/block/$DM/dm/uuid")
slaves=
[ -n "$DM" ] && slaves=$(ls "/sys/block/$DM/slaves" | tr '\n' ' ')
# shellcheck disable=SC2046 # stat's fields
set -- $(stat -c '%a %u %h %s %b %B' "$FILE" 2>/dev/null)
fmode=${1:-} fsize=${4:-0} falloc=$((${5:-0} * ${6:-0}))
# backing_dev names the mapper node of the dm device (the node's device number is dm-N's)
held=no
node=/dev/mapper/zram-recompd-$D
if [ -n "$DM" ] && [ -b "$node" ] && [ "${bd%mapper/zram-recompd-"$D"}" != "$bd" ] &&
	[ "$(stat -L -c '%t %T' "$node" | { read -r a b; echo "$((0x$a)):$((0x$b))"; })" = \
		"$(cat "/sys/block/$DM/dev")" ]; then
	held=yes
fi
pre=$(jlogb | grep -c "$D" || true)
errs=$(errors)
say "units $st, $UB $stb; DeviceAllow of $U: $dallow; backing_dev $bd (the node of $DM: $held); dm $DM ($uuid, slaves $slaves); loop $LP;" \
	"file mode $fmode size $fsize allocated $falloc"
jlogb | sed 's/^/[backing]   | /'
if [ "$st" = active/running ] && [ "$stb" = active/exited ] && [ -n "$DM" ] &&
	[ "$held" = yes ] && ! echo "$dallow" | grep -q 'loop\|mapper' &&
	[ "${uuid#CRYPT-PLAIN-}" != "$uuid" ] &&
	[ -n "$LP" ] && [ "$slaves" = "$LP " ] && [ "$fmode" = 600 ] && [ "$fsize" -gt 0 ] &&
	[ "$falloc" -ge "$fsize" ] && [ "$(cat /sys/block/$D/initstate)" = 0 ] &&
	[ "$pre" -gt 0 ] && [ -z "$errs" ]; then
	res PASS setup "units $st, $stb, $D backing_dev $bd = $DM ($uuid) on $LP on $FILE ($fsize bytes, mode 0600)"
else
	res FAIL setup "units $st, $stb (daemon's DeviceAllow $dallow), backing_dev '$bd' (the node of $DM: $held), dm '$DM' ($uuid, slaves $slaves)," \
		"loop '$LP', file mode '$fmode' size $fsize allocated $falloc, journal lines on $D" \
		"$pre, errors: $(echo "$errs" | head -n 2 | tr '\n' ' ')"
fi

# ---- swap on zram0, filled under a balloon; the daemon writes idle pages back ----
LPID=
HOLDPID=
echo 256M >"/sys/block/$D/disksize"
mkswap "/dev/$D" >/dev/null && swapload swapon "/dev/$D" 100 || say "swap on $D failed"
sync
echo 3 >/proc/sys/vm/drop_caches
avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
swapload hold $((avail - RAM)) >/tmp/hold.out &
HOLDPID=$!
wait_file /tmp/hold.out "SWAPLOAD holding" 60 || say "the balloon did not start"
# A short run (1 s, 1% hot) with VERIFY: then it holds its memory, swapped out, until SIGUSR1
# (verify) and SIGTERM.
swapload run "$DATA" "$MIB" 1 1 1 256 0 1 >/tmp/load.out &
LPID=$!
# On 7.3 the boot timed out in this phase twice with the host's cores busy, before the noswap
# tmpfs (above); the watchdog showed the tasks in D state
watchdog writeback 150
wb=0
if wait_file /tmp/load.out "^SWAPLOAD hotslots" 180; then
	say "filled: mm_stat $(cat "/sys/block/$D/mm_stat"); bd_stat $(cat "/sys/block/$D/bd_stat")"
	i=0
	while [ "$i" -lt 90 ] && [ "$(bd_writes)" -eq 0 ]; do
		sleep 1
		i=$((i + 1))
	done
	# the pass that wrote them logs it
	i=0
	while [ "$i" -lt 30 ] && ! jlog | grep -qE "^$D: pass: .* [1-9][0-9]* written back"; do
		sleep 1
		i=$((i + 1))
	done
	wb=$(bd_writes)
	# what reached the dm device (write sectors of 512 bytes): at least the pages written
	dmw=0
	# shellcheck disable=SC2046 # the fields of the stat file
	[ -n "$DM" ] && set -- $(cat "/sys/block/$DM/stat") && dmw=$(($7 / 8))
	line=$(jlog | grep -E "^$D: pass: .* [1-9][0-9]* written back" | tail -n 1)
	# the balloon goes first: the check reads every page back (from zram and through
	# dm-crypt from the file), which under the balloon would thrash
	kill "$HOLDPID" 2>/dev/null
	wait "$HOLDPID" 2>/dev/null
	HOLDPID=
	kill -USR1 "$LPID"
	wait_file /tmp/load.out "^SWAPLOAD verify" 180
	ver=$(grep "^SWAPLOAD verify" /tmp/load.out)
	errs=$(errors)
	say "bd_stat $(cat "/sys/block/$D/bd_stat"); $ver; last writeback pass: $line"
	if [ "$wb" -gt 0 ] && [ "$dmw" -ge "$wb" ] && [ -n "$line" ] &&
		echo "$ver" | grep -q " bad 0 " &&
		[ -z "$errs" ]; then
		res PASS writeback "$wb pages written back by the daemon, $dmw pages written to $DM;" \
			"$ver; $line"
	else
		res FAIL writeback "bd_stat writes $wb, $DM pages written $dmw, pass line '${line:-none}', '$ver'," \
			"errors: $(echo "$errs" | head -n 2 | tr '\n' ' ')"
	fi
else
	res FAIL writeback "the workload did not fill its memory: $(tail -n 2 /tmp/load.out |
		tr '\n' ' ')"
fi
kill "$WD" 2>/dev/null
# shellcheck disable=SC2086 # empty when gone
kill $LPID $HOLDPID 2>/dev/null
# shellcheck disable=SC2086
wait $LPID $HOLDPID 2>/dev/null
LPID= HOLDPID=
# The squeeze can make zram's own allocations fail (GFP_NOIO: "page allocation failure", then
# "Write-error on swap-device"; the pages stay in memory): accepted here as in swap_short,
# the pages were verified above; any other trace still fails the kernel log check.
if dmesg | grep -q 'page allocation failure'; then
	say "allocation failure(s) under the squeeze (accepted): $(dmesg | grep -c 'Write-error on swap-device') swap write errors"
	dmesg -c >/dev/null
fi

# ---- the daemon stops; a teardown while zram0 is initialized leaves the stack (pages may
# be on it) and says so; swapoff, reset; then the backing unit's stop (ExecStop=, where
# shutdown stops it: after the setup tools) takes it all down ----
systemctl stop "$U"
res1=$(systemctl show -p Result --value "$U")
zram-recompd backing teardown "$D" >/tmp/td0.out 2>&1
rc0=$?
sed 's/^/[backing]   | /' /tmp/td0.out
# Should the swapoff or a stop below hang, the tasks it leaves in uninterruptible sleep go to
# the console (watchdog). On 7.3 the boot timed out here before the ext4's
# image went to a noswap tmpfs (above): once in CI, once in 4 boots with the host's cores busy.
watchdog teardown 120
kept_dm=$(dm_of zram-recompd-$D)
kept_loop=$(loops_on "$FILE")
kept_file=no
[ -f "$FILE" ] && kept_file=yes
# "zram0: initialized with its backing device on /dev/dm-N: left in place ..."
said=$(grep -c "$D: initialized with its backing device.*left in place" /tmp/td0.out || true)
[ "$rc0" = 0 ] || said=0
swapoff "/dev/$D"
echo 1 >"/sys/block/$D/reset"
systemctl stop "$UB"
kill "$WD" 2>/dev/null
rc=$(systemctl show -p Result --value "$UB")
[ "$rc" = success ] && rc=0
jlogb | tail -n 4 | sed 's/^/[backing]   | /'
left_dm=$(dm_devices)
left_loop=$(loops_on "$FILE")
left_file=no
[ -e "$FILE" ] && left_file=yes
say "after stop: Result=$res1, dm '$kept_dm', loop '$kept_loop', file $kept_file, journal" \
	"lines saying why: $said; after swapoff, reset, stop of $UB ($rc): dm '$left_dm'," \
	"loop '$left_loop', file $left_file"
if [ "$res1" = success ] && [ "$kept_dm" = "$DM" ] && [ -n "$kept_loop" ] &&
	[ "$kept_file" = yes ] && [ "$said" -gt 0 ] && [ "$rc" = 0 ] && [ -z "$left_dm" ] &&
	[ -z "$left_loop" ] && [ "$left_file" = no ]; then
	res PASS teardown "teardown left $DM in place ($D initialized: said so);" \
		"after swapoff, reset and $UB's stop nothing is attached, the file is gone"
else
	res FAIL teardown "stop: Result=$res1, dm '$kept_dm', loop '$kept_loop', file $kept_file," \
		"said $said; teardown exit $rc: dm '$left_dm', loop '$left_loop', file $left_file"
fi
finish
