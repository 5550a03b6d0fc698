#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Driver of the systemd VM test, run by zram-recompd-vmtest.service with systemd as PID 1.
# Checks the installed zram-recompd.service (the real unit, with its hardening, as the Debian
# package ships it: systemd_package checks the files against the package's md5sums) against the
# kernel's zram: start/READY/STATUS, the sandbox, writes under it (a pass, configuring a new
# device), the watchdog (drop-in WatchdogSec=3s), reload with a good and a broken
# configuration, stop during a pass, and systemd-analyze security. (The drop-ins for
# zram-generator and zram-tools are checked with the real tools: hooktest.sh.) Prints one
# "VMTEST PASS|FAIL|SKIP systemd_NAME[: detail]" line per check (run-systemd.sh knows the
# names; a missing line counts as a failure), then "VMTEST DONE", and reboots.
export PATH=/usr/sbin:/usr/bin
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0 SYSTEMD_LOG_COLOR=0 LC_ALL=C
U=zram-recompd.service
CONF=/etc/zram-recompd.conf
TESTCONF=/vm/zram-recompd.conf
DATA=/vm/data/pages.bin
PAGES=16384

say() {
	echo "[systemd] $*"
}

res() { # PASS|FAIL|SKIP name [detail...]
	_s=$1
	_n=$2
	shift 2
	if [ $# -gt 0 ]; then
		echo "VMTEST $_s $_n: $*"
	else
		echo "VMTEST $_s $_n"
	fi
}

now() {
	cut -d' ' -f1 /proc/uptime
}

elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

prop() {
	systemctl show -p "$1" --value "$U"
}

# Messages of the unit (the daemon's and systemd's about it), text only.
jlog() {
	journalctl -q --no-pager -o cat -u "$U"
}

jcount() {
	jlog | grep -cE "$1"
}

# wait_journal REGEX [N [SECONDS]]: until the unit's journal has N (default 1) matching lines.
wait_journal() {
	_i=0
	while [ "$(jcount "$1")" -lt "${2:-1}" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $((${3:-30} * 4)) ] && return 1
		usleep 250000
	done
	return 0
}

mm() {
	# shellcheck disable=SC2046 # the fields of mm_stat
	set -- "$1" "$2" $(cat "/sys/block/$1/mm_stat")
	case $2 in
	orig_data_size) echo "$3" ;;
	compr_data_size) echo "$4" ;;
	mem_used_total) echo "$5" ;;
	esac
}

bs_r() {
	dd if="/sys/kernel/debug/zram/$1/block_state" bs=1M 2>/dev/null |
		awk 'index($3, "r") { n++ } END { print n + 0 }'
}

load() {
	dd if="$DATA" of="/dev/$1" bs=256K oflag=direct conv=notrunc 2>/dev/null
}

# wait_drop DEV VALUE SECONDS: until compr_data_size falls below VALUE (a pass is running).
wait_drop() {
	_i=0
	while [ "$(mm "$1" compr_data_size)" -ge "$2" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 20)) ] && return 1
		usleep 50000
	done
	return 0
}

# next_in DEV: the "next in N s" of DEV in the unit's status text (empty if none).
next_in() {
	prop StatusText | tr ';' '\n' | sed -n "s/^ *$1: .*next in \([0-9]*\) s.*/\1/p"
}

say "driver started at $(now) s after boot; PID 1 is $(cat /proc/1/comm)"
failed=$(systemctl list-units --failed --plain --no-legend 2>/dev/null | awk '{ print $1 }' |
	tr '\n' ' ')
say "units failed during boot (parts of the host's systemd this image lacks): ${failed:-none}"

# ---- boot ----
ver=$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
if [ "$(cat /proc/1/comm)" = systemd ]; then
	res PASS systemd_boot "systemd $ver as PID 1, test driver at $(now) s"
else
	res FAIL systemd_boot "PID 1 is $(cat /proc/1/comm)"
fi

# ---- the packaged files: mkinitramfs.sh unpacked the Debian package (make deb) into the
# image; every file of its md5sums (conffiles are not listed: the test's configuration
# replaces /etc/zram-recompd.conf) is there unchanged, and the unit systemd loaded is the
# package's /lib/systemd/system file (/lib links to /usr/lib here). ----
pkg=$(cat /vm/package 2>/dev/null)
frag=$(systemctl show -p FragmentPath --value "$U")
sums=$(cd / && md5sum -c /vm/package.md5sums 2>&1)
rc=$?
nsum=$(grep -c . /vm/package.md5sums 2>/dev/null)
echo "$sums" | grep -v ': OK$' | sed 's/^/[systemd] package: /'
if [ -n "$pkg" ] && [ "$rc" -eq 0 ] && [ "${nsum:-0}" -ge 5 ] &&
	[ "$(readlink -f "$frag")" = /usr/lib/systemd/system/zram-recompd.service ] &&
	grep -q ' lib/systemd/system/zram-recompd.service$' /vm/package.md5sums; then
	res PASS systemd_package "$pkg: $nsum files as packaged, $U from $frag"
else
	res FAIL systemd_package "package '$pkg': md5sum -c exit $rc on $nsum files" \
		"($(echo "$sums" | grep -v ': OK$' | head -n 3 | tr '\n' ' ')), $U from '$frag'"
fi

# ---- the unit as installed ----
out=$(systemd-analyze verify --man=no "$U" 2>&1)
rc=$?
echo "$out" | sed 's/^/[systemd] verify: /'
if [ "$rc" -eq 0 ] && ! echo "$out" | grep -q "zram-recompd.service"; then
	res PASS systemd_verify
else
	res FAIL systemd_verify "systemd-analyze verify exit $rc: $(echo "$out" | head -n 1)"
fi

# ---- a kernel without CONFIG_ZRAM_MULTI_COMP (the 6.12-nomc kernel; issue 24) and no
# writeback configured: nothing is possible, so ExecCondition= (zram-recompd can-run) skips
# both units: not failed, not active, the reason in their journal. The other checks need
# recompression: this kernel ends here. ----
if [ ! -e /sys/block/zram0/recomp_algorithm ]; then
	ok=1 det=
	for u in "$U" zram-recompd-once.service; do
		timeout 60 systemctl start "$u"
		rc=$?
		st=$(systemctl show -p ActiveState --value "$u")
		why=$(journalctl -q --no-pager -o cat -u "$u" | grep 'can-run: no' | head -n 1)
		skipped=$(journalctl -q --no-pager -o cat -u "$u" | grep -c "Skipped due to 'exec-condition'")
		journalctl -q --no-pager -o cat -u "$u" | sed "s/^/[systemd] $u: /"
		systemctl status --no-pager "$u" | sed "s/^/[systemd] status: /"
		say "$u: start exit $rc, $st; is-failed: $(systemctl is-failed "$u")"
		det="$det $u: $st, skipped $skipped, '$why';"
		# systemd 252: inactive (dead), Result=success, and "Skipped due to 'exec-condition'"
		[ "$rc" -eq 0 ] && [ "$st" = inactive ] && [ "$skipped" -ge 1 ] && [ -n "$why" ] &&
			! systemctl is-failed -q "$u" || ok=0
	done
	if [ "$ok" = 1 ]; then
		res PASS systemd_condition "skipped by ExecCondition=:$det"
	else
		res FAIL systemd_condition "$det"
	fi
	echo "VMTEST DONE"
	busybox reboot -f
	exit 0
fi

# ---- devices: Z like zram-generator plus the drop-in would set it up; Y left uninitialized
# for the daemon to configure ----
# systemd's sys-kernel-debug.mount normally has debugfs mounted by now (block_state).
if grep -q ' /sys/kernel/debug ' /proc/mounts; then
	say "debugfs mounted by systemd"
else
	mount -t debugfs debugfs /sys/kernel/debug
	say "debugfs was not mounted; mounted by the driver"
fi
Z=zram$(cat /sys/class/zram-control/hot_add)
echo "algo=zstd priority=1" >"/sys/block/$Z/recomp_algorithm"
echo 128M >"/sys/block/$Z/disksize"
load "$Z"
Y=zram$(cat /sys/class/zram-control/hot_add)
say "$Z: $PAGES pages, mm_stat $(cat "/sys/block/$Z/mm_stat"); $Y: uninitialized"
c0=$(mm "$Z" compr_data_size)

# ---- start: Type=notify reaches "active" only after READY=1 ----
t0=$(now)
timeout 60 systemctl start "$U"
rc=$?
t1=$(now)
st="$(prop ActiveState)/$(prop SubState)"
PID=$(prop MainPID)
say "systemctl start: exit $rc after $(elapsed "$t0" "$t1") s, $st, MainPID $PID, type $(prop Type)"
if [ "$rc" -eq 0 ] && [ "$st" = active/running ] && [ "$(prop Type)" = notify ] &&
	[ "${PID:-0}" -gt 0 ]; then
	res PASS systemd_start \
		"active (READY=1 received) $(elapsed "$t0" "$t1") s after systemctl start"
else
	res FAIL systemd_start "systemctl start exit $rc, state $st, MainPID $PID"
	systemctl status --no-pager "$U" 2>&1 | sed 's/^/[systemd] /'
fi

# ---- the sandbox the process runs in ----
if [ "${PID:-0}" -gt 0 ] && [ -r "/proc/$PID/status" ]; then
	capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$PID/status")
	capbnd=$(awk '/^CapBnd:/ { print $2 }' "/proc/$PID/status")
	nnp=$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$PID/status")
	sec=$(awk '/^Seccomp:/ { print $2 }' "/proc/$PID/status")
	rootopt=$(awk '$5 == "/" { print $6 }' "/proc/$PID/mountinfo" | tail -n 1)
	sysopt=$(awk '$5 == "/sys/devices/virtual/block" { print $6 }' "/proc/$PID/mountinfo" |
		tail -n 1)
	# nice and scheduling policy (stat fields 19 and 41) of the event loop (the main
	# thread: nice 0, SCHED_OTHER 0, so that it answers the watchdog under load) and of the
	# worker (the unit's Nice=10 and CPUSchedulingPolicy=batch, 3; no memory pressure here)
	nice=$(cut -d')' -f2 "/proc/$PID/task/$PID/stat" | awk '{ print $17 "/" $39 }')
	for t in /proc/$PID/task/*; do
		[ "$(cat "$t/comm")" = recomp-worker ] &&
			nice="$nice $(cut -d')' -f2 "$t/stat" | awk '{ print $17 "/" $39 }')"
	done
	# Its own Landlock sandbox too: the unit allows the system calls (SystemCallFilter=).
	landlock=$(jlog |
		sed -n 's/.*running on Linux .*; writes confined by Landlock (ABI \([0-9]*\))$/\1/p' |
		tail -n 1)
	info="CapEff $capeff CapBnd $capbnd NoNewPrivs $nnp Seccomp $sec, / ${rootopt%%,*},"
	info="$info /sys/devices/virtual/block ${sysopt%%,*}, nice/policy of loop, worker $nice,"
	info="$info Landlock ABI ${landlock:-none}"
	say "sandbox: $info"
	if [ "$capeff" = 0000000000000000 ] && [ "$capbnd" = 0000000000000000 ] &&
		[ "$nnp" = 1 ] && [ "$sec" = 2 ] && [ "${rootopt%%,*}" = ro ] &&
		[ "${sysopt%%,*}" = rw ] && [ "$nice" = "0/0 10/3" ] && [ -n "$landlock" ]; then
		res PASS systemd_sandbox "$info"
	else
		res FAIL systemd_sandbox "$info"
	fi
else
	res FAIL systemd_sandbox "no main process"
fi

# ---- what the unit's mounts let the service write: a root shell entered into the service's
# mount namespace (nsenter -m: its mounts, not its Landlock sandbox, capabilities or system
# call filter) opens files for writing and writes nothing (": >FILE"; sysctl and sysfs files
# act only on a write). Sysctls and /sys outside the block devices' directory must be
# read-only there, the zram attributes writable. ----
if [ "${PID:-0}" -gt 0 ]; then
	probe() { # FILE: "ok" or the shell's reason
		nsenter -t "$PID" -m sh -c ': >"$1"' sh "$1" 2>&1 | sed 's/.*: //' | head -n 1 |
			grep . || echo ok
	}
	bad=
	info=
	for f in /proc/sys/vm/swappiness /sys/power/state /sys/class/zram-control/hot_remove; do
		[ -e "$f" ] || continue
		r=$(probe "$f")
		info="$info $f: $r;"
		[ "$r" = "Read-only file system" ] || bad="$bad $f"
	done
	for f in "/sys/block/$Z/compact" "/sys/devices/virtual/block/$Y/recomp_algorithm"; do
		r=$(probe "$f")
		info="$info $f: $r;"
		[ "$r" = ok ] || bad="$bad $f"
	done
	say "writable in the service's mounts:$info"
	if [ -z "$bad" ] && echo "$info" | grep -q swappiness; then
		res PASS systemd_protect "$info"
	else
		res FAIL systemd_protect "not as expected:$bad;$info"
	fi
else
	res FAIL systemd_protect "no main process"
fi

# ---- STATUS= ----
i=0
status=$(prop StatusText)
while ! echo "$status" | grep -qE "$Z: (first pass in|last pass)" && [ $i -lt 20 ]; do
	usleep 250000
	i=$((i + 1))
	status=$(prop StatusText)
done
say "StatusText: $status"
if echo "$status" | grep -qE "$Z: (first pass in [0-9]+ s|last pass [0-9]+ s ago saved)"; then
	res PASS systemd_status "$status"
else
	res FAIL systemd_status "StatusText '$status'"
fi

# ---- a write under the sandbox: the uninitialized device gets its secondary algorithm ----
# (6.17+ put NUL bytes between and after the lines of recomp_algorithm: read as text.)
if wait_journal "^$Y: not initialized; secondary algorithms configured" 1 10 &&
	tr -d '\000' <"/sys/block/$Y/recomp_algorithm" | grep -q '^#1: .*\[zstd\]'; then
	alg=$(tr -d '\000' <"/sys/block/$Y/recomp_algorithm" | grep '^#1' |
		sed 's/.*\[\(.*\)\].*/#1 \1/')
	res PASS systemd_configure "$Y: recomp_algorithm $alg, written by the daemon"
else
	res FAIL systemd_configure "$Y: $(tr -d '\000' <"/sys/block/$Y/recomp_algorithm" 2>&1 |
		head -n 1)"
	jlog | tail -n 20 | sed 's/^/[systemd] journal: /'
fi

# ---- a pass recompresses real pages under the sandbox ----
if wait_journal "^$Z: pass: .*saved [1-9]" 1 60; then
	c1=$(mm "$Z" compr_data_size)
	r=$(bs_r "$Z")
	line=$(jlog | grep -E "^$Z: pass: .*saved [1-9]" | head -n 1)
	errs=$(journalctl -q --no-pager -o cat -u "$U" -p err | grep -v '^$')
	say "pass: $line; compr_data_size $c0 -> $c1, $r slots r"
	if [ "$c1" -lt "$c0" ] && [ "$r" -gt 0 ] && [ -z "$errs" ]; then
		res PASS systemd_pass "compr_data_size $c0 -> $c1, $r slots recompressed"
	else
		res FAIL systemd_pass "compr_data_size $c0 -> $c1, $r slots r, errors:" \
			"$(echo "$errs" | head -n 2 | tr '\n' ' ')"
	fi
else
	res FAIL systemd_pass "no pass on $Z saved anything within 60 s"
	jlog | tail -n 20 | sed 's/^/[systemd] journal: /'
fi
# The pass summary carries journal fields (MESSAGE_ID "pass finished", ZRAM_DEVICE, ...).
jf=$(journalctl -q --no-pager -o verbose -u "$U" "ZRAM_DEVICE=$Z" \
	MESSAGE_ID=259d1e18c4e64a0f9f3dfa58a4558ee4 2>/dev/null)
if echo "$jf" | grep -q "ZRAM_SAVED_BYTES=[1-9]" && echo "$jf" | grep -q "ZRAM_PASS_RESULT=finished" &&
	echo "$jf" | grep -q "ZRAM_KERNEL_SECONDS=[0-9]"; then
	res PASS systemd_journal_fields "journalctl -u $U ZRAM_DEVICE=$Z: $(echo "$jf" |
		grep -c 'ZRAM_PASS_RESULT=') pass records with fields"
else
	res FAIL systemd_journal_fields "no pass record with fields: $(echo "$jf" | head -n 12 | tr '\n' ' ')"
fi
# The sandbox must not have cost the PSI trigger or the uevent socket.
if jlog | grep -qE "PSI memory trigger unavailable|kernel uevents unavailable"; then
	res FAIL systemd_events "$(jlog | grep -E "unavailable" | head -n 1)"
else
	res PASS systemd_events "PSI memory trigger and uevent socket available"
fi

# ---- watchdog: WatchdogSec=3s (drop-in); the service must still be the same process after
# more than 3 s, with keep-alive pings arriving. The control service, which never pings,
# shows that systemd enforces the watchdog here. ----
C=vmtest-watchdog-control.service
systemctl start "$C"
wd=$(prop WatchdogUSec)
w0=$(prop WatchdogTimestampMonotonic)
sleep 5
w1=$(prop WatchdogTimestampMonotonic)
sleep 2
w2=$(prop WatchdogTimestampMonotonic)
cres=$(systemctl show -p Result --value "$C")
say "watchdog $wd: last ping at $w0, $w1, $w2 (us); NRestarts $(prop NRestarts)," \
	"MainPID $(prop MainPID); control service without pings: Result $cres"
if [ "$cres" != watchdog ]; then
	res FAIL systemd_watchdog "the control service without pings was not killed by the" \
		"watchdog (Result $cres): the check proves nothing here"
elif [ "$wd" = 3s ] && [ "$w1" -gt "$w0" ] && [ "$w2" -gt "$w1" ] &&
	[ "$(prop MainPID)" = "$PID" ] && [ "$(prop NRestarts)" = 0 ] &&
	[ "$(prop ActiveState)" = active ]; then
	res PASS systemd_watchdog "WatchdogSec=$wd: same process after 7 s, pings seen at" \
		"$((w0 / 1000)), $((w1 / 1000)), $((w2 / 1000)) ms; a service without pings got" \
		"Result=watchdog"
else
	res FAIL systemd_watchdog "WatchdogUSec $wd, pings $w0 $w1 $w2, MainPID $(prop MainPID)" \
		"(was $PID), NRestarts $(prop NRestarts), $(prop ActiveState)"
fi

# ---- reload with a valid configuration: interval-sec 3 -> 45 ----
sed 's/^interval-sec = .*/interval-sec = 45/' "$TESTCONF" >"$CONF"
nrel=$(jcount "^configuration reloaded")
timeout 30 systemctl reload "$U"
rc=$?
if wait_journal "^configuration reloaded" $((nrel + 1)) 10; then
	i=0
	while { n=$(next_in "$Z"); [ -z "$n" ] || [ "$n" -lt 30 ]; } && [ $i -lt 40 ]; do
		usleep 250000
		i=$((i + 1))
	done
	say "after reload: $(prop ActiveState), StatusText: $(prop StatusText)"
	if [ "$rc" -eq 0 ] && [ -n "$n" ] && [ "$n" -ge 30 ] && [ "$(prop MainPID)" = "$PID" ] &&
		[ "$(prop ActiveState)" = active ]; then
		res PASS systemd_reload "interval-sec 45 applied: $Z next pass in $n s"
	else
		res FAIL systemd_reload "reload exit $rc, $Z next in '$n' s, $(prop ActiveState)"
	fi
else
	res FAIL systemd_reload "reload exit $rc, no 'configuration reloaded' in the journal"
fi

# ---- reload with a broken configuration (interval-sec 3, passes = idel): kept running with the
# previous one (interval 45) ----
sed 's/^passes = .*/passes = idel/' "$TESTCONF" >"$CONF"
nbad=$(jcount "^reload: configuration invalid; keeping the previous one")
timeout 30 systemctl reload "$U"
rc=$?
if wait_journal "^reload: configuration invalid; keeping the previous one" $((nbad + 1)) 10; then
	sleep 4
	n=$(next_in "$Z")
	err=$(jlog | grep -E "^$CONF:[0-9]+: .*passes" | tail -n 1)
	say "broken config: error '$err'; $(prop ActiveState); StatusText $(prop StatusText)"
	if [ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" = "$PID" ] && [ -n "$err" ] &&
		[ -n "$n" ] && [ "$n" -ge 20 ]; then
		res PASS systemd_reload_invalid \
			"still active with the old configuration ($Z next in $n s); journal: $err"
	else
		res FAIL systemd_reload_invalid "$(prop ActiveState)," \
			"MainPID $(prop MainPID) (was $PID), $Z next in '$n' s, error line '$err'"
	fi
else
	res FAIL systemd_reload_invalid "reload exit $rc; no 'configuration invalid' in the journal"
	jlog | tail -n 10 | sed 's/^/[systemd] journal: /'
fi

# ---- the timer's service started beside the running daemon (both enabled by mistake): it
# is skipped by its ConditionPathExists=!/run/zram-recompd/daemon (the daemon's
# RuntimeDirectory=), and the daemon goes on, the same process ----
O=zram-recompd-once.service
timeout 60 systemctl start "$O"
rc=$?
st=$(systemctl show -p ActiveState --value "$O")
cond=$(systemctl show -p ConditionResult --value "$O")
skipped=$(journalctl -q --no-pager -o cat -u "$O" |
	grep -c 'unmet condition check (ConditionPathExists=!/run/zram-recompd/daemon)')
journalctl -q --no-pager -o cat -u "$O" | sed "s/^/[systemd] $O: /"
info="$O: start exit $rc, $st, ConditionResult $cond, skipped $skipped;"
info="$info $U: $(prop ActiveState), MainPID $(prop MainPID) (was $PID),"
info="$info /run/zram-recompd/: $(ls /run/zram-recompd | tr '\n' ' ')"
if [ "$rc" -eq 0 ] && [ "$st" = inactive ] && [ "$cond" = no ] && [ "$skipped" -ge 1 ] &&
	! systemctl is-failed -q "$O" && [ "$(prop ActiveState)" = active ] &&
	[ "$(prop MainPID)" = "$PID" ] && [ -d /run/zram-recompd/daemon ] &&
	[ -d /run/zram-recompd/lock ]; then
	res PASS systemd_once_beside "$info"
else
	res FAIL systemd_once_beside "$info"
fi

# ---- stop during a pass: back to the short interval, new data, stop once it is running ----
cp "$TESTCONF" "$CONF"
nrel=$(jcount "^configuration reloaded")
timeout 30 systemctl reload "$U"
wait_journal "^configuration reloaded" $((nrel + 1)) 10 || say "third reload not logged"
load "$Z"
c2=$(mm "$Z" compr_data_size)
if wait_drop "$Z" "$c2" 20; then
	t0=$(now)
	timeout 60 systemctl stop "$U"
	rc=$?
	t1=$(now)
	d=$(elapsed "$t0" "$t1")
	result=$(prop Result)
	code=$(prop ExecMainStatus)
	intr=$(jcount "^$Z: pass \(interrupted\)")
	say "systemctl stop: exit $rc after $d s; Result $result, ExecMainStatus $code," \
		"interrupted passes in the journal: $intr;" \
		"compr_data_size $c2 -> $(mm "$Z" compr_data_size)"
	if [ "$rc" -eq 0 ] && [ "$result" = success ] && [ "$code" = 0 ] && [ "$intr" -ge 1 ] &&
		awk -v d="$d" 'BEGIN { exit !(d < 5) }'; then
		res PASS systemd_stop \
			"stopped during a pass in $d s (TimeoutStopSec=$(prop TimeoutStopUSec))"
	else
		res FAIL systemd_stop "exit $rc after $d s, Result $result, status $code," \
			"interrupted passes $intr"
	fi
else
	res FAIL systemd_stop "no pass started within 20 s after new data"
	timeout 60 systemctl stop "$U"
fi

# ---- after the stop: the daemon's runtime directory is gone, the lock directory (with the
# device locks the daemon made) stays, and the timer's service runs its pass ----
nonce=$(journalctl -q --no-pager -o cat -u "$O" | grep -c "^$Z: ")
timeout 120 systemctl start "$O"
rc=$?
res_o=$(systemctl show -p Result --value "$O")
ran=$(journalctl -q --no-pager -o cat -u "$O" | grep -c "^$Z: ")
locks=$(ls /run/zram-recompd/lock 2>&1 | tr '\n' ' ')
info="daemon dir $([ -e /run/zram-recompd/daemon ] && echo present || echo gone),"
info="$info lock/: $(stat -c %a /run/zram-recompd/lock 2>&1) $locks;"
info="$info $O: start exit $rc, Result $res_o, its lines on $Z $nonce -> $ran"
say "after stop: $info"
if [ ! -e /run/zram-recompd/daemon ] && [ "$(stat -c %a /run/zram-recompd/lock)" = 700 ] &&
	[ -e "/run/zram-recompd/lock/$Z" ] && [ "$rc" -eq 0 ] && [ "$res_o" = success ] && [ "$ran" -gt "$nonce" ]; then
	res PASS systemd_once_alone "$info"
else
	res FAIL systemd_once_alone "$info"
	journalctl -q --no-pager -o cat -u "$O" | tail -n 10 | sed "s/^/[systemd] $O: /"
fi

# ---- watchdog during a long pass: from 7.0 a recompress write holds the device lock, so an
# event loop that read the device's mm_stat while its pass runs would stop pinging and be
# killed (WatchdogSec=3s). A device W with zstd level 9 at #1 (about 5x zstd's default cost)
# makes the pass last longer than the watchdog interval in batches of 256 pages; the pings
# must keep coming during it, and SIGTERM must still end the daemon within 1 s. ----
W=zram$(cat /sys/class/zram-control/hot_add)
echo "algo=zstd priority=1" >"/sys/block/$W/recomp_algorithm"
echo "priority=1 level=9" >"/sys/block/$W/algorithm_params"
echo 128M >"/sys/block/$W/disksize"
load "$W"
cw=$(mm "$W" compr_data_size)
# Batches of 64 pages for W: each write stays far below 1 s however loaded the host is (a
# write cannot be interrupted), while the pass still lasts many seconds.
printf '\n[%s]\nmax-pages-per-batch = 64\n' "$W" >>"$CONF"
timeout 60 systemctl start "$U"
PID=$(prop MainPID)
if wait_drop "$W" "$cw" 30; then
	# Ping timestamps (us) every 0.25 s while the pass runs; the largest gap between two
	# different ones, and how long the pass was seen running.
	t0=$(now)
	last=$(prop WatchdogTimestampMonotonic)
	since=$last
	maxgap=0
	i=0
	# Six seconds (twice WatchdogSec), then SIGTERM while the pass still runs.
	while [ "$(jcount "^$W: pass")" -eq 0 ] &&
		awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a < 6) }'; do
		usleep 250000
		i=$((i + 1))
		p=$(prop WatchdogTimestampMonotonic)
		[ "$p" = "$last" ] && continue
		gap=$((p - last))
		[ "$gap" -gt "$maxgap" ] && maxgap=$gap
		last=$p
	done
	t1=$(now)
	running=$(elapsed "$t0" "$t1")
	done_already=$(jcount "^$W: pass")
	# SIGTERM during the pass (if it still runs): the exit, measured from /proc.
	k0=$(now)
	kill -TERM "$PID"
	j=0
	while [ -d "/proc/$PID" ] && [ $j -lt 100 ]; do
		usleep 20000
		j=$((j + 1))
	done
	k1=$(now)
	kd=$(elapsed "$k0" "$k1")
	say "long pass on $W (zstd level 9): seen running $running s, watchdog pings $since ->" \
		"$last us, largest gap $((maxgap / 1000)) ms; SIGTERM -> exit $kd s;" \
		"NRestarts $(prop NRestarts), Result $(prop Result)"
	if [ "$done_already" -eq 0 ] && awk -v r="$running" 'BEGIN { exit !(r >= 5) }' &&
		[ "$last" -gt "$since" ] && [ "$maxgap" -lt 3000000 ] && [ "$(prop NRestarts)" = 0 ] &&
		[ "$(prop Result)" = success ] && awk -v d="$kd" 'BEGIN { exit !(d <= 1) }'; then
		res PASS systemd_watchdog_long_pass "a pass on $W ran $running s (WatchdogSec 3s):" \
			"pings kept coming (largest gap $((maxgap / 1000)) ms), no watchdog kill;" \
			"SIGTERM -> exit $kd s"
	else
		res FAIL systemd_watchdog_long_pass "pass seen running $running s (finished early:" \
			"$done_already), pings $since -> $last (largest gap $((maxgap / 1000)) ms)," \
			"NRestarts $(prop NRestarts), Result $(prop Result), SIGTERM -> exit $kd s"
		jlog | tail -n 15 | sed 's/^/[systemd] journal: /'
	fi
else
	res FAIL systemd_watchdog_long_pass "no pass started on $W within 30 s"
	jlog | tail -n 15 | sed 's/^/[systemd] journal: /'
fi
timeout 60 systemctl stop "$U" 2>/dev/null

# ---- a device hot-added while the daemon runs: its Landlock sandbox has no rule for it and
# cannot get one, so the daemon exits 75 with its state saved, and the unit
# (RestartForceExitStatus=75, after RestartSec=) starts it again, which gives the device its
# secondaries. ----
timeout 60 systemctl start "$U"
P1=$(prop MainPID)
n0=$(prop NRestarts)
V=zram$(cat /sys/class/zram-control/hot_add)
t0=$(now)
if wait_journal "^$V: appeared after the sandbox was set up" 1 10; then
	# between the exit and the restart (RestartSec=): RuntimeDirectoryPreserve=restart keeps
	# /run/zram-recompd/daemon, so the timer's service stays skipped
	i=0
	while [ "$(prop SubState)" != auto-restart ] && [ $i -lt 40 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	waitdir="$(prop SubState): /run/zram-recompd/daemon"
	waitdir="$waitdir $([ -d /run/zram-recompd/daemon ] && echo kept || echo gone)"
fi
if [ -n "${waitdir:-}" ] &&
	wait_journal "^$V: not initialized; secondary algorithms configured" 1 30; then
	t1=$(now)
	P2=$(prop MainPID)
	alg=$(tr -d '\000' <"/sys/block/$V/recomp_algorithm" | grep '^#1' | sed 's/.*\[\(.*\)\].*/\1/')
	info="$V configured $(elapsed "$t0" "$t1") s after hot_add by a new process ($P1 -> $P2),"
	info="$info NRestarts $n0 -> $(prop NRestarts), #1 $alg, $(prop ActiveState); $waitdir"
	say "hot-add: $info"
	if [ "$P2" != "$P1" ] && [ "$(prop NRestarts)" = $((n0 + 1)) ] && [ "$alg" = zstd ] &&
		[ "$(prop ActiveState)" = active ] &&
		[ "$waitdir" = "auto-restart: /run/zram-recompd/daemon kept" ]; then
		res PASS systemd_hotadd_restart "$info"
	else
		res FAIL systemd_hotadd_restart "$info"
	fi
else
	res FAIL systemd_hotadd_restart "$V: no exit for it or not configured after the restart" \
		"(MainPID $P1 -> $(prop MainPID), NRestarts $n0 -> $(prop NRestarts))"
	jlog | tail -n 15 | sed 's/^/[systemd] journal: /'
fi
timeout 60 systemctl stop "$U" 2>/dev/null

# ---- systemd-analyze security ----
sec=$(systemd-analyze security --no-pager "$U" 2>&1)
# Unmet items start with "✗" ("-" in the C locale).
echo "$sec" | grep -E '^(✗|-) ' | sed 's/^/[systemd] security: /'
line=$(echo "$sec" | grep -E 'Overall exposure level' | tail -n 1)
level=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')
say "security: $line"
if [ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l <= 2.5) }'; then
	res PASS systemd_security \
		"exposure level $level (limit 2.5): $(echo "$line" | sed 's/.*: //')"
else
	res FAIL systemd_security "exposure level '${level:-?}' (limit 2.5): $line"
fi

say "journal of $U (monotonic time):"
journalctl -q --no-pager -o short-monotonic -u "$U" | sed 's/^/[systemd]   | /'
# Kernel warnings are failures too (run-systemd.sh counts VMKERNEL lines).
dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|hung_task|soft lockup' |
	sed 's/^/VMKERNEL /'
echo "VMTEST DONE"
# qemu runs with -no-reboot: a reboot ends it (power-off needs ACPI with PCI, which the test
# kernel lacks).
busybox reboot -f
