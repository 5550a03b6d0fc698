#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Driver of the systemd VM's hook boots (run-systemd.sh), run by zram-recompd-hooktest.service
# after multi-user.target, with systemd as PID 1 and a real zram setup tool as Debian 12 ships
# it (/vm/hook: zram-generator or zram-tools; mkinitramfs.sh unpacked the package and
# configured it) next to the zram-recompd package's drop-in for it and its enabled
# zram-recompd.service. Everything the checks look at happened at boot, by systemd:
#   systemd_T_package  the tool's files are the package's (its md5sums), its setup unit is the
#                      package's and carries zram-recompd's drop-in (DropInPaths)
#   systemd_T_setup    the drop-in's ExecStartPre ran zram-recompd --once --device zram0 (exit
#                      0, "zram0: not initialized" in the setup unit's journal) before the
#                      tool wrote disksize: zram0 is swap with the
#                      tool's size, primary and priority, and recomp_algorithm lists both
#                      secondaries of /etc/zram-recompd.conf (#1 zstd, #2 deflate), which the
#                      kernel takes only before disksize
#   systemd_T_order    zram-recompd.service, enabled like the tool, is running, started after
#                      the setup unit was done, and configured nothing on zram0 itself
#   systemd_T_pass     with swap filled by tests/tools/swapload (a balloon leaves it 112 MiB),
#                      the daemon's passes recompress zram0: block_state `r` slots (at least a
#                      tenth of those holding data), a pass line that saved bytes, and no
#                      error in its journal
# T is zramgen or zramtools; the zram-tools-adopt boot (T zramadopt) runs systemd/adopttest.sh
# instead of these four checks. Prints "VMTEST PASS|FAIL|SKIP systemd_T_NAME[: detail]" per
# check (run-systemd.sh knows the names; a missing line counts as a failure), VMKERNEL lines
# for kernel warnings, "VMTEST DONE", and reboots.
export PATH=/usr/sbin:/usr/bin
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0 SYSTEMD_LOG_COLOR=0 LC_ALL=C
U=zram-recompd.service
D=zram0
DATA=/vm/data/pages.bin
TOOL=$(cat /vm/hook)
case $TOOL in
zram-generator)
	T=zramgen
	S=systemd-zram-setup@$D.service
	UNITFILE=systemd-zram-setup@.service
	DROPIN=/usr/lib/systemd/system/systemd-zram-setup@.service.d/zram-recompd.conf
	# /etc/systemd/zram-generator.conf (tests/vm/systemd/zram-generator.conf)
	WANT_PRIM=lz4 WANT_PRIO=50
	;;
zram-tools | zram-tools-adopt)
	T=zramtools
	[ "$TOOL" = zram-tools-adopt ] && T=zramadopt
	S=zramswap.service
	UNITFILE=zramswap.service
	DROPIN=/usr/lib/systemd/system/zramswap.service.d/zram-recompd.conf
	# /etc/default/zramswap (tests/vm/systemd/zramswap.default)
	WANT_PRIM=lzo-rle WANT_PRIO=100
	;;
*)
	echo "VMTEST FAIL systemd_hook: unknown tool '$TOOL' in /vm/hook"
	echo "VMTEST DONE"
	busybox reboot -f
	;;
esac
WANT_SIZE=$((256 << 20))
# Passes of the daemon on the swap device: a balloon leaves the workload RAM MiB, the
# workload fills MIB (as swap_short does: some thousands of slots end in zram).
RAM=112
MIB=136

say() {
	echo "[$T] $*"
}

res() { # PASS|FAIL|SKIP name [detail...]
	_s=$1
	_n=systemd_${T}_$2
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

# jlog UNIT: the unit's messages, text only.
jlog() {
	journalctl -q --no-pager -o cat -u "$1" | grep -v '^$'
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

# recomp DEV: recomp_algorithm as "#1 zstd #2 deflate" (6.17+ put NUL bytes between lines).
recomp() {
	tr -d '\000' <"/sys/block/$1/recomp_algorithm" | sed -n 's/^#\([0-9]\): .*\[\(.*\)\].*/#\1 \2/p' |
		tr '\n' ' ' | sed 's/ $//'
}

# wait_file FILE REGEX SECONDS
wait_file() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 10)) ] && return 1
		usleep 100000
	done
}

say "driver started at $(now) s after boot; $(cat /vm/hook.package); PID 1 is $(cat /proc/1/comm)"
failed=$(systemctl list-units --failed --plain --no-legend 2>/dev/null | awk '{ print $1 }' |
	tr '\n' ' ')
say "units failed during boot: ${failed:-none}"
say "swaps: $(tail -n +2 /proc/swaps | tr -s ' ' | tr '\n' ';')"
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug

if [ "$T" = zramadopt ]; then
	# zram-tools set zram0 up before zram-recompd was installed (systemd/adopttest.sh).
	. /vm/adopttest.sh
	adopt_main
else
	# ---- the tool's package and its setup unit with zram-recompd's drop-in ----
	sums=$(cd / && md5sum -c /vm/hook.md5sums 2>&1)
	rc=$?
	nsum=$(grep -c . /vm/hook.md5sums)
	frag=$(systemctl show -p FragmentPath --value "$S")
	dropins=$(systemctl show -p DropInPaths --value "$S")
	# As files (/lib links to /usr/lib here: either may be named).
	real_dropins=$(for f in $dropins; do readlink -f "$f"; done | tr '\n' ' ')
	extra=
	if [ "$TOOL" = zram-generator ]; then
		# The generator ran at boot and made the swap unit (it is the only generator here).
		swapfrag=$(systemctl show -p FragmentPath --value dev-zram0.swap)
		extra=", dev-zram0.swap from $swapfrag"
		case $swapfrag in /run/systemd/generator/*) ;; *) rc=99 ;; esac
	fi
	echo "$sums" | grep -v ': OK$' | sed "s/^/[$T] package: /"
	# The package's unit file is under /lib/systemd/system (/usr/lib here: /lib links to it).
	unitpath=$(grep -o " lib/systemd/system/$UNITFILE\$" /vm/hook.md5sums)
	if [ "$rc" -eq 0 ] && [ "$nsum" -ge 3 ] && [ -n "$unitpath" ] &&
		[ "$(readlink -f "$frag")" = "$(readlink -f "/${unitpath# }")" ] &&
		echo " $real_dropins " | grep -q " $DROPIN "; then
		res PASS package "$(cat /vm/hook.package): $nsum files as packaged; $S from $frag with" \
			"drop-ins $dropins$extra"
	else
		res FAIL package "md5sum -c exit $rc on $nsum files" \
			"($(echo "$sums" | grep -v ': OK$' | head -n 3 | tr '\n' ' ')), $S from '$frag'" \
			"(package: '$unitpath'), drop-ins '$dropins'$extra"
	fi

	# ---- the drop-in ran before the tool's disksize ----
	pre=$(systemctl show -p ExecStartPre --value "$S" | tr -s ' ')
	slog=$(jlog "$S")
	state=$(systemctl show -p ActiveState --value "$S")/$(systemctl show -p Result --value "$S")
	size=$(cat "/sys/block/$D/disksize")
	prim=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$D/comp_algorithm")
	alg=$(recomp "$D")
	prio=$(awk -v d="/dev/$D" '$1 == d { print $5 }' /proc/swaps)
	say "$S: $state; ExecStartPre: $pre"
	echo "$slog" | sed "s/^/[$T] $S journal: /"
	say "$D: disksize $size, primary $prim, recomp_algorithm '$alg', swap priority '${prio:-none}'"
	# zram-tools' drop-in loads the module through modprobe@zram.service first (kmod's modprobe:
	# zram is built in here, which it reports as success).
	modp=ok
	if [ "$TOOL" = zram-tools ]; then
		modp=$(systemctl show -p Result --value modprobe@zram.service)/$(systemctl show \
			-p ExecMainStatus --value modprobe@zram.service)
		say "modprobe@zram.service: Result/ExecMainStatus $modp"
		[ "$modp" = success/0 ] && modp=ok
	fi
	if [ "$state" = active/success ] &&
		echo "$pre" | grep -q "argv\[\]=/usr/sbin/zram-recompd --once --device $D ;" &&
		echo "$pre" | grep -q 'code=exited ; status=0 ' &&
		echo "$slog" | grep -q "^$D: not initialized" &&
		[ "$size" = "$WANT_SIZE" ] && [ "$prim" = "$WANT_PRIM" ] &&
		[ "$alg" = "#1 zstd #2 deflate" ] && [ "$prio" = "$WANT_PRIO" ] && [ "$modp" = ok ]; then
		res PASS setup "$S: ExecStartPre zram-recompd --once --device $D (exit 0) configured" \
			"$alg; then the tool made $D swap: $((size >> 20)) MiB, $prim, priority $prio"
	else
		res FAIL setup "$S $state; ExecStartPre '$pre'; $D disksize $size (want $WANT_SIZE)," \
			"primary $prim (want $WANT_PRIM), recomp_algorithm '$alg' (want #1 zstd #2 deflate)," \
			"swap priority '$prio' (want $WANT_PRIO), modprobe@zram $modp; journal: $(echo "$slog" | head -n 3 |
				tr '\n' '|')"
	fi

	# ---- the daemon, enabled as the package enables it, started after the setup ----
	ust=$(systemctl show -p ActiveState --value "$U")/$(systemctl show -p SubState --value "$U")
	t_daemon=$(systemctl show -p ExecMainStartTimestampMonotonic --value "$U")
	t_setup=$(systemctl show -p ActiveEnterTimestampMonotonic --value "$S")
	enabled=$(systemctl is-enabled "$U" 2>&1)
	dlog=$(jlog "$U")
	say "$U: $ust, $enabled, main process started at ${t_daemon:-?} us; $S active at ${t_setup:-?} us"
	if [ "$ust" = active/running ] && [ "$enabled" = enabled ] && [ "${t_daemon:-0}" -gt 0 ] &&
		[ "${t_setup:-0}" -gt 0 ] && [ "$t_daemon" -ge "$t_setup" ] &&
		! echo "$dlog" | grep -q "^$D: not initialized"; then
		res PASS order "$U ($enabled) started $(((t_daemon - t_setup) / 1000)) ms after $S" \
			"was done, found $D set up (configured nothing on it)"
	else
		res FAIL order "$U $ust ($enabled), started at ${t_daemon:-?} us, $S done at" \
			"${t_setup:-?} us; daemon journal: $(echo "$dlog" | grep "^$D:" | head -n 2 |
				tr '\n' '|')"
	fi

	# ---- the daemon recompresses the swap device ----
	LPID=
	HOLDPID=
	avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	if [ "$ust" != active/running ]; then
		res FAIL pass "$U is not running"
	elif [ "$avail" -le $((RAM + 64)) ]; then
		res FAIL pass "only $avail MiB available"
	else
		t0=$(now)
		# Passes before the fill may save a few bytes already (the swap header page).
		nsaved=$(jlog "$U" | grep -cE "^$D: pass: .*saved [1-9]")
		swapload hold $((avail - RAM)) >/tmp/hold.out &
		HOLDPID=$!
		wait_file /tmp/hold.out "SWAPLOAD holding" 60 || say "the balloon did not start"
		# Topped up until RAM MiB are left (as the adopt scenarios): memory given back after
		# MemAvailable was read once left the fill unswapped on 7.3 (1 slot stored, CI of
		# 88a6351 and the fresh-clone run of 6d3dd45).
		n=0
		sleep 1
		a=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
		while [ "$a" -gt $((RAM + 16)) ] && [ "$n" -lt 4 ]; do
			n=$((n + 1))
			swapload hold $((a - RAM)) >/tmp/hold$n.out &
			HOLDPID="$HOLDPID $!"
			wait_file /tmp/hold$n.out "SWAPLOAD holding" 60 || say "balloon $n did not start"
			sleep 1
			a=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
		done
		# A short run (1 s, 1% hot): then it holds its memory, swapped out, until SIGTERM.
		swapload run "$DATA" "$MIB" 1 1 1 >/tmp/load.out &
		LPID=$!
		if wait_file /tmp/load.out "^SWAPLOAD ops" 120; then
			t1=$(now)
			say "balloon $((avail - RAM)) MiB, $MIB MiB filled in $(awk -v a="$t0" -v b="$t1" \
				'BEGIN { printf "%.1f", b - a }') s: mm_stat $(cat "/sys/block/$D/mm_stat")"
			# Passes every 3 s with every page idle: wait until one after the fill saved
			# something, and for the next (the slots the first one had not reached).
			i=0
			while [ $i -lt 60 ] &&
				[ "$(jlog "$U" | grep -cE "^$D: pass: .*saved [1-9]")" -le "$nsaved" ]; do
				sleep 1
				i=$((i + 1))
			done
			sleep 4
			# shellcheck disable=SC2046 # two numbers
			set -- $(dd if="/sys/kernel/debug/zram/$D/block_state" bs=1M 2>/dev/null |
				awk '!index($3, "s") { stored++ } index($3, "r") { r++ }
				END { print r + 0, stored + 0 }')
			r=$1 stored=$2
			line=$(jlog "$U" | grep -E "^$D: pass: .*saved [1-9]" | tail -n +$((nsaved + 1)) |
				tail -n 1)
			errs=$(journalctl -q --no-pager -o cat -u "$U" -p err | grep -v '^$')
			say "after the fill: $r of $stored slots holding data recompressed; mm_stat" \
				"$(cat "/sys/block/$D/mm_stat"); last saving pass: $line"
			if [ "$stored" -gt 0 ] && [ "$r" -gt 0 ] && [ $((r * 10)) -ge "$stored" ] &&
				[ -n "$line" ] && [ -z "$errs" ]; then
				res PASS pass "$r of $stored slots of the swap device recompressed;" \
					"compr_data_size $(mm "$D" compr_data_size) of orig $(mm "$D" orig_data_size);" \
					"$line"
			else
				res FAIL pass "$r of $stored slots recompressed, saving pass: '${line:-none}'," \
					"errors: $(echo "$errs" | head -n 2 | tr '\n' ' ')"
			fi
		else
			res FAIL pass "the workload did not fill its memory: $(tail -n 2 /tmp/load.out |
				tr '\n' ' ')"
		fi
	fi
	for p in $LPID $HOLDPID; do
		kill -9 "$p" 2>/dev/null
	done

fi

# zram-generator's boot: the encrypted dictionary round trip (issue 28, systemd/dicttest.sh)
if [ "$T" = zramgen ]; then
	# shellcheck source=tests/vm/systemd/dicttest.sh
	. /vm/dicttest.sh
fi

say "journal of $U and $S (monotonic time):"
journalctl -q --no-pager -o short-monotonic -u "$U" -u "$S" | tail -n 60 | sed "s/^/[$T]   | /"
# Kernel warnings are failures (run-systemd.sh counts VMKERNEL lines). As in swap_short, a
# failed order-0 allocation under the balloon's squeeze ("page allocation failure", then the
# page stays in RAM) is the kernel reporting it and is accepted; any other trace is not.
traces=$(dmesg | grep -c 'Call Trace')
allocs=$(dmesg | grep -c 'page allocation failure')
if [ "$traces" -gt 0 ] && [ "$traces" -le "$allocs" ] &&
	! dmesg | grep -qE 'WARNING:|BUG:|Oops|general protection|hung_task|soft lockup'; then
	say "$allocs allocation failure(s) under the squeeze (accepted)"
else
	dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|hung_task|soft lockup' |
		sed 's/^/VMKERNEL /'
fi
echo "VMTEST DONE"
# qemu runs with -no-reboot: a reboot ends it.
busybox reboot -f
