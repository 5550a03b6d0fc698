#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Soak test: $BUILDDIR/zram-recompd (default build/) as the daemon on a fake /sys with
# SOAK_DEVICES devices (default 16) for SOAK_SECONDS (default 600, at most 86400), while every
# second one device is hot-removed and the one removed 2 s before comes back, mm_stat of
# two devices changes, and every 2 s a SIGHUP reloads a configuration that alternates between
# two pass lists. It stops by itself. Checks, one line each ("PASS name" / "FAIL name: reason"),
# then "soak: N passed, N failed":
#   alive       the daemon never exited before the SIGTERM at the end, which it obeys (exit 0)
#   passes      every device had passes; 90 % of the removals (less the last two) were noticed
#               and as many of the re-adds managed again
#   reloads     every SIGHUP but possibly the last was followed by "configuration reloaded"
#   files       the state file is valid, the metrics file names every device, no temp file left
#   rss         VmRSS at the end is at most the one at the start + 1024 KiB + 10 %
#   fds         open descriptors at the end are at most those at the start + 2
#   sanitizer   with TSAN_LOG_DIR set (tests/daemon/tsan.sh): done there, not here
# "Start" is after a warm-up of SOAK_SECONDS/10 (at least 5 s): every device has had its first
# pass, so the allocations the daemon keeps for good (device table, buffers, sd-event sources)
# are made. Each measure is the smallest of 5 samples 100 ms apart: a pass holds an attribute or
# a temp file open for a moment, and the smallest sample is the resting count.
#
#   SOAK_SECONDS=60 tests/daemon/soak.sh      a one-minute run
#   KEEP=1 tests/daemon/soak.sh               keep the temporary directory (printed)
set -u
cd "$(dirname "$0")/../.." || exit 1
HERE=$PWD/tests/daemon
BUILDDIR=${BUILDDIR:-build}
case $BUILDDIR in
/*) BIN=$BUILDDIR/zram-recompd ;;
*) BIN=$PWD/$BUILDDIR/zram-recompd ;;
esac
# shellcheck source=tests/fakesys/lib.sh
. "$PWD/tests/fakesys/lib.sh"
# shellcheck source=tests/daemon/lib.sh
. "$HERE/lib.sh"

export LC_ALL=C
unset ZRAM_RECOMPD_SYSROOT ZRAM_RECOMPD_STATE_DIR STATE_DIRECTORY JOURNAL_STREAM NOTIFY_SOCKET \
	WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID

VER=6.12
SECS=${SOAK_SECONDS:-600}
NDEV=${SOAK_DEVICES:-16}
NPASS=0
NFAIL=0
pass() {
	echo "PASS $1"
	NPASS=$((NPASS + 1))
}
fail() {
	echo "FAIL $1: $2"
	NFAIL=$((NFAIL + 1))
}
finish() {
	echo "soak: $NPASS passed, $NFAIL failed"
	[ "$NFAIL" -eq 0 ]
	exit
}

case $SECS in '' | *[!0-9]*) SECS=-1 ;; esac
case $NDEV in '' | *[!0-9]*) NDEV=0 ;; esac
if [ "$SECS" -lt 10 ] || [ "$SECS" -gt 86400 ] || [ "$NDEV" -lt 3 ] || [ "$NDEV" -gt 64 ]; then
	fail setup "SOAK_SECONDS must be 10..86400, SOAK_DEVICES 3..64"
	finish
fi
if [ ! -x "$BIN" ]; then
	fail setup "$BIN not found (build it: make $BUILDDIR/zram-recompd)"
	finish
fi
SLOW=1
if grep -qE '__asan_init|AddressSanitizer|__tsan_init' "$BIN" 2>/dev/null; then
	SLOW=3
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/zr-soak.XXXXXX") || exit 1
R=$T/root
: >"$T/pids"
cleanup() {
	test_cleanup
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $T" >&2
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# die (lib.sh) writes its reason to fd 3: here a setup failure.
exec 3>"$T/reason"

# conf_n N: configuration N (0 or 1); both write a metrics file.
conf_n() {
	local passes="huge_idle idle huge"
	[ "$1" = 1 ] && passes="idle huge"
	conf "${BASE_CONF[@]}" "passes = $passes" "metrics-file = $T/metrics.prom"
}

# measure: sets RSS (KiB) and FDS to the smallest of 5 samples 100 ms apart.
measure() {
	local pid i r f
	pid=$(dpid)
	RSS=
	FDS=
	for i in 1 2 3 4 5; do
		r=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status" 2>/dev/null)
		f=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
		[ -n "$r" ] || return 1
		{ [ -z "$RSS" ] || [ "$r" -lt "$RSS" ]; } && RSS=$r
		{ [ -z "$FDS" ] || [ "$f" -lt "$FDS" ]; } && FDS=$f
		sleep 0.1
	done
}

# add_dev ID: the device appears whole (directory first, then the sys/block link).
add_dev() {
	fr_dev "$R" "$VER" "$1" link=none
	ln -s "../devices/virtual/block/zram$1" "$R/sys/block/zram$1"
}

(
	fr_new "$R" "$VER"
	for ((i = 0; i < NDEV; i++)); do
		fr_dev "$R" "$VER" "$i"
	done
	fr_blockstate "$R" "$VER" 0
	conf_n 0
	# Without the sandbox: a sandboxed daemon ends (exit 75, for its unit to restart it) at
	# the first device added again, by design (the daemon tier's sandbox_device_added).
	dstart -a --no-sandbox
) || {
	fail setup "$(cat "$T/reason")"
	finish
}

now_ms
START=$NOW
END=$((START + SECS * 1000))
WARM=$((SECS / 10))
[ "$WARM" -ge 5 ] || WARM=5
WARM_END=$((START + WARM * 1000))
RSS0=
FDS0=
HUPS=0
REMOVED=0
READDED=0
cfg=0
tick=0
gone=
gone2=
# Devices 1..NDEV-1 take turns being removed; zram0 (with a block_state) always stays.
victim=1
while now_ms && [ "$NOW" -lt "$END" ]; do
	dalive || break
	if [ -z "$RSS0" ] && [ "$NOW" -ge "$WARM_END" ]; then
		measure || break
		RSS0=$RSS
		FDS0=$FDS
		echo "start (after ${WARM} s): VmRSS $RSS0 KiB, $FDS0 fds"
	fi
	# Each removed device stays away 2 s (two scans of the daemon at least), so that every
	# second one device is removed and one comes back.
	if [ -n "$gone2" ]; then
		add_dev "$gone2"
		READDED=$((READDED + 1))
	fi
	gone2=$gone
	rm_dev "$victim"
	REMOVED=$((REMOVED + 1))
	gone=$victim
	victim=$((victim % (NDEV - 1) + 1))
	# New data on two devices (zram0 and the one after the victim): stored and compressed
	# sizes move, so passes find something to do.
	for id in 0 "$victim"; do
		[ -d "$R/sys/devices/virtual/block/zram$id" ] || continue
		put_mm "$id" 104857600 $((30300000 + tick * 4096 % 1000000)) 37300000 0 43100000 \
			$((120 + tick % 50)) 0 1037 $((1037 + tick))
	done
	if [ $((tick % 2)) = 1 ]; then
		cfg=$((1 - cfg))
		conf_n "$cfg"
		kill -HUP "$(dpid)" 2>/dev/null || break
		HUPS=$((HUPS + 1))
	fi
	tick=$((tick + 1))
	# On a 1 s grid from the start, whatever the work above took.
	now_ms
	ms=$((START + tick * 1000 - NOW))
	[ "$ms" -le 0 ] || sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
done
for id in $gone2 $gone; do
	dalive && add_dev "$id"
done

if dalive; then
	measure
	RSS1=$RSS
	FDS1=$FDS
	echo "end (after $(((NOW - START) / 1000)) s): VmRSS $RSS1 KiB, $FDS1 fds;" \
		"$REMOVED removals, $READDED re-adds, $HUPS SIGHUPs"
	kill -TERM "$(dpid)"
	if dwait $((10000 * SLOW)) && [ "$DRC" = 0 ]; then
		pass alive
	else
		fail alive "exit code ${DRC:-none} after SIGTERM; stderr: $(oneline "$T/d.err")"
	fi
else
	fail alive "the daemon died after $(((NOW - START) / 1000)) s (exit code" \
		"$(cat "$T/d.rc" 2>/dev/null)); stderr: $(oneline "$T/d.err")"
	finish
fi

# Every device had passes; each removal was noticed and each re-add managed again.
nopass=
for ((i = 0; i < NDEV; i++)); do
	[ "$(passes_logged "zram$i")" -ge 1 ] || nopass+=" zram$i"
done
dropped=$(count "$T/d.err" '^zram-recompd: zram[0-9]+: removed; no longer managed')
managed=$(count "$T/d.err" '^zram-recompd: zram[0-9]+: managed')
# The last removals and re-adds may fall after the daemon's last scan, and a scan late by more
# than the 2 s a device stays away (the sanitizer builds on a loaded machine) misses one: 90 %
# of them, less those last two, must have been seen.
if [ -n "$nopass" ]; then
	fail passes "no pass on$nopass; stderr: $(oneline "$T/d.err")"
elif [ "$dropped" -lt $((REMOVED * 9 / 10 - 2)) ] ||
	[ "$managed" -lt $((NDEV + READDED * 9 / 10 - 2)) ]; then
	fail passes "$REMOVED removals, $dropped noticed; $NDEV + $READDED devices, $managed managed"
else
	pass passes
fi

reloads=$(count "$T/d.err" '^zram-recompd: configuration reloaded$')
if [ "$reloads" -ge $((HUPS - 1)) ] && [ "$HUPS" -ge 1 ]; then
	pass reloads
else
	fail reloads "$HUPS SIGHUPs, $reloads reloads logged"
fi

temps=$(find "$T/d.state" "$T" -maxdepth 1 -name '*.tmp??????' | tr '\n' ' ')
if ! state_valid d; then
	fail files "state file invalid: $(oneline "$T/d.state/state")"
elif [ "$(grep -c '^zram[0-9]' "$T/d.state/state")" -lt "$NDEV" ]; then
	fail files "state file lacks devices: $(oneline "$T/d.state/state")"
elif [ "$(grep -oE 'zram_recompd_passes_total\{device="zram[0-9]+"\}' "$T/metrics.prom" |
	sort -u | wc -l)" -lt $((NDEV - 1)) ]; then
	fail files "metrics file lacks devices: $(grep passes_total "$T/metrics.prom" | tr '\n' '|')"
elif [ -n "$temps" ]; then
	fail files "temp files left: $temps"
else
	pass files
fi

if [ -z "$RSS0" ]; then
	fail rss "no start measure (run shorter than the warm-up?)"
	fail fds "no start measure"
else
	lim=$((RSS0 + 1024 + RSS0 / 10))
	if [ "$RSS1" -le "$lim" ]; then
		pass rss
	else
		fail rss "VmRSS $RSS0 KiB at the start, $RSS1 KiB at the end (limit $lim KiB)"
	fi
	if [ "$FDS1" -le $((FDS0 + 2)) ]; then
		pass fds
	else
		fail fds "$FDS0 open fds at the start, $FDS1 at the end (limit $((FDS0 + 2)))"
	fi
fi
finish
