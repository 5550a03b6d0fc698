#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Daemon tier: runs $BUILDDIR/zram-recompd (default build/) as the daemon against fake /sys
# and /proc trees (--sysroot; see tests/fakesys/lib.sh) and checks what it does over time:
# passes, SIGHUP reload, SIGTERM during a blocked kernel write, devices removed and added,
# backoff, the state file and the metrics file. One line per test ("PASS name" /
# "FAIL name: reason"), then "daemon: N passed, N failed"; exit status 0 only if all passed.
#
#   BUILDDIR=build-san tests/daemon/run.sh   the ASan+UBSan build (deadlines doubled; the same
#                                            for build-tsan, see tests/daemon/tsan.sh)
#   tests/daemon/run.sh NAME...              only tests whose name contains one of NAME
#   SERIAL=1 tests/daemon/run.sh             one test at a time (default: all in parallel;
#                                            they mostly sleep; serially they take ~45 s)
#   KEEP=1 tests/daemon/run.sh               keep the temporary directory (printed)
#
# Needs bash 5 (EPOCHREALTIME), coreutils, grep, sed, awk; python3 for the FIFO helpers
# (slowattr.py, fakewb.py, fakerecomp.py, fakereads.py: a shell loop cannot reopen a FIFO
# without racing the daemon's writes, and one that writes files lags on a loaded host).
#
# Timing facts the tests rely on: a device's first pass is due interval-sec after the daemon
# finds it, and the daemon's timers have 1 s accuracy (sd-event may fire up to 1 s late, so
# with interval-sec = 1 passes come every 1-2 s); a timer never fires early.
# Tests run in subshells that set T and R on purpose.
# shellcheck disable=SC2030,SC2031
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
# Nothing from the caller's environment may redirect the binary, change its log format or
# make it talk to a service manager.
unset ZRAM_RECOMPD_SYSROOT ZRAM_RECOMPD_CONFIG_ROOT ZRAM_RECOMPD_STATE_DIR STATE_DIRECTORY JOURNAL_STREAM NOTIFY_SOCKET \
	WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID

VER=6.12

if [ ! -x "$BIN" ]; then
	echo "FAIL setup: $BIN not found (build it: make $BUILDDIR/zram-recompd)"
	echo "daemon: 0 passed, 1 failed"
	exit 1
fi
# Sanitizer builds run several times slower: every deadline is multiplied by SLOW.
SLOW=1
if grep -qE '__asan_init|AddressSanitizer|__tsan_init' "$BIN" 2>/dev/null; then
	SLOW=2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/zr-daemon.XXXXXX") || exit 1

# End every process a test started (by pid, from its pids file) and remove the temp dir,
# also when interrupted or when a test runner died.
cleanup_all() {
	local p d i left ended
	for d in "$TMP"/*/; do
		[ -s "$d/runner" ] && kill -TERM "$(cat "$d/runner")" 2>/dev/null
	done
	# A runner ends its own processes (its EXIT trap) when told to.
	for i in $(seq 200); do
		left=0
		for d in "$TMP"/*/; do
			[ -s "$d/runner" ] && kill -0 "$(cat "$d/runner")" 2>/dev/null && left=1
		done
		[ "$left" = 0 ] && break
		sleep 0.03
	done
	for d in "$TMP"/*/; do
		[ -e "$d/pids" ] || continue
		ended=" $(ended_daemons "${d%/}" | tr '\n' ' ') "
		while read -r p; do
			case $ended in *" $p "*) continue ;; esac
			kill -KILL "$p" 2>/dev/null
		done <"$d/pids"
	done
	wait 2>/dev/null
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}
trap cleanup_all EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# The tests. Each runs in its own subshell; T, R are set; die ends it as failed.

# new_root: this test's fake root with zram0 (Linux 6.12, initialized, secondary zstd).
new_root() {
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0
}

t_passes_happen() {
	local n idle recomp
	new_root
	conf "${BASE_CONF[@]}" "metrics-file = $T/metrics.prom"
	dstart
	wait_for 8000 at_least 2 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "fewer than 2 passes in 8 s; stderr: $(oneline "$T/d.err")"
	dstop
	n=$(passes_logged zram0)
	idle=$(count "$(attr 0 idle)" '^all$')
	recomp=$(count "$(attr 0 recompress)" '^type=idle priority=1 max_pages=64$')
	# Every pass marks all pages idle once and writes one type=idle batch (huge types
	# stop after the first pass: nothing changed, so only incompressible pages are left).
	# Each is 64 pages: the first size of max-write-ms, which writes without progress (the
	# fake kernel does nothing) never teach a larger one.
	[ "$idle" = "$n" ] ||
		die "$n passes logged but $idle idle marks: $(oneline "$(attr 0 idle)")"
	[ "$recomp" = "$n" ] ||
		die "$n passes logged, $recomp type=idle writes: $(oneline "$(attr 0 recompress)")"
	[ "$(head -n 3 "$(attr 0 recompress)")" = "type=huge_idle priority=1 max_pages=64
type=idle priority=1 max_pages=64
type=huge priority=1 max_pages=64" ] || die "first pass wrote $(oneline "$(attr 0 recompress)")"
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"
	[ "$(state_field zram0 passes)" = "$n" ] ||
		die "state says passes=$(state_field zram0 passes), $n passes logged"
	grep -qxF "zram_recompd_passes_total{device=\"zram0\"} $n" "$T/metrics.prom" ||
		die "metrics file lacks zram_recompd_passes_total{device=\"zram0\"} $n:" \
			"$(grep passes_total "$T/metrics.prom" 2>/dev/null | tr '\n' '|')"
	# no writeback here: no day budget sample (a 0 would read as "spent"; issue 25)
	! grep -q '^zram_recompd_writeback_day_left_bytes{' "$T/metrics.prom" ||
		die "metrics: $(grep day_left "$T/metrics.prom" | tr '\n' '|')"
	grep -q '^zram-recompd: stopping (signal 15)$' "$T/d.err" ||
		die "no 'stopping (signal 15)' in stderr: $(oneline "$T/d.err")"
}

t_sighup_reload() {
	local n1 p1 all1 rest
	new_root
	# Line 6 is the passes line (FILE:6: in the reload error).
	conf "${BASE_CONF[@]}" "passes = idle"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass in 8 s; stderr: $(oneline "$T/d.err")"
	conf "${BASE_CONF[@]}" "passes = huge"
	dsig HUP
	wait_for 5000 grep -q '^zram-recompd: configuration reloaded$' "$T/d.err" ||
		die "no 'configuration reloaded' after SIGHUP; stderr: $(oneline "$T/d.err")"
	# What the passes with "passes = idle" wrote: the leading type=idle lines (the next pass
	# is due 1-2 s later, but on a slow build it may already have written type=huge).
	n1=$(awk '$0 != "type=idle priority=1 max_pages=64" { exit } { n++ } END { print n + 0 }' \
		"$(attr 0 recompress)")
	all1=$(count "$(attr 0 idle)" '^all$')
	if [ "$n1" -lt 1 ] ||
		[ "$(count "$(attr 0 recompress)" '^type=idle priority=1 max_pages=64$')" != "$n1" ]; then
		die "before the reload: $(oneline "$(attr 0 recompress)")"
	fi
	p1=$(passes_logged zram0)
	wait_for 8000 at_least 1 "$(attr 0 recompress)" '^type=huge' ||
		die "no type=huge write after the reload: $(oneline "$(attr 0 recompress)")"
	# That pass must be over before mm_stat changes below: it records the contents
	# signature it ends with as "huge types exhausted".
	wait_for 5000 at_least $((p1 + 1)) "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "the type=huge pass did not finish; stderr: $(oneline "$T/d.err")"

	conf "${BASE_CONF[@]}" "passes = idel"
	dsig HUP
	wait_for 5000 grep -q 'configuration invalid; keeping the previous one' "$T/d.err" ||
		die "invalid config on SIGHUP not reported; stderr: $(oneline "$T/d.err")"
	grep -qF "zram-recompd: error: $T/conf:6: key 'passes'" "$T/d.err" ||
		die "no FILE:LINE error for the invalid reload; stderr: $(oneline "$T/d.err")"
	# New data lands (huge_pages_since changes): the huge type is worth another try, so
	# the next pass writes type=huge again if "passes = huge" is still in force.
	put_mm 0 104857600 30300000 37300000 0 43100000 120 0 1037 1040
	wait_for 8000 at_least 2 "$(attr 0 recompress)" '^type=huge' ||
		die "no type=huge after the invalid reload: $(oneline "$(attr 0 recompress)")"
	dalive || die "daemon died; stderr: $(oneline "$T/d.err")"
	dstop
	rest=$(sed "1,${n1}d" "$(attr 0 recompress)")
	[ "$rest" = "type=huge priority=1 max_pages=64
type=huge priority=1 max_pages=64" ] || die "after the reload wrote: $(printf '%s' "$rest" | tr '\n' '|')"
	[ "$(count "$(attr 0 idle)" '^all$')" = "$all1" ] ||
		die "idle marks after switching to 'passes = huge': $(oneline "$(attr 0 idle)")"
}

# SIGHUP re-reads the search path (no --config; ZRAM_RECOMPD_CONFIG_ROOT): a new /etc drop-in
# takes effect; a broken /run drop-in is named FILE:LINE and the previous configuration stays,
# none of the broken file's other keys included.
t_sighup_search_path() {
	local cr=$T/cfgroot n1 p1
	new_root
	mkdir -p "$cr/usr/lib" "$cr/etc/zram-recompd.conf.d" "$cr/run/zram-recompd.conf.d"
	conf_to "$cr/usr/lib/zram-recompd.conf" "${BASE_CONF[@]}" "passes = idle"
	export ZRAM_RECOMPD_CONFIG_ROOT=$cr
	dstart -c -
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass in 8 s; stderr: $(oneline "$T/d.err")"
	conf_to "$cr/etc/zram-recompd.conf.d/50-admin.conf" "[global]" "passes = huge"
	dsig HUP
	wait_for 5000 grep -q '^zram-recompd: configuration reloaded$' "$T/d.err" ||
		die "no 'configuration reloaded' after SIGHUP; stderr: $(oneline "$T/d.err")"
	n1=$(awk '$0 != "type=idle priority=1 max_pages=64" { exit } { n++ } END { print n + 0 }' \
		"$(attr 0 recompress)")
	[ "$n1" -ge 1 ] || die "no type=idle pass before the reload: $(oneline "$(attr 0 recompress)")"
	p1=$(passes_logged zram0)
	wait_for 8000 at_least 1 "$(attr 0 recompress)" '^type=huge' ||
		die "the /etc drop-in did not take effect: $(oneline "$(attr 0 recompress)")"
	wait_for 5000 at_least $((p1 + 1)) "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "the type=huge pass did not finish; stderr: $(oneline "$T/d.err")"

	# Line 3 is bad; line 2 alone would bring type=idle back.
	conf_to "$cr/run/zram-recompd.conf.d/60-bad.conf" "[global]" "passes = idle" \
		"compact = sometimes"
	dsig HUP
	wait_for 5000 grep -q 'configuration invalid; keeping the previous one' "$T/d.err" ||
		die "broken drop-in on SIGHUP not reported; stderr: $(oneline "$T/d.err")"
	grep -qF "zram-recompd: error: $cr/run/zram-recompd.conf.d/60-bad.conf:3: key 'compact'" \
		"$T/d.err" || die "no FILE:LINE error for the broken drop-in; stderr: $(oneline "$T/d.err")"
	# New data: the huge type is worth another pass, which must still be type=huge.
	put_mm 0 104857600 30300000 37300000 0 43100000 120 0 1037 1040
	wait_for 8000 at_least 2 "$(attr 0 recompress)" '^type=huge' ||
		die "no type=huge after the broken reload: $(oneline "$(attr 0 recompress)")"
	dalive || die "daemon died; stderr: $(oneline "$T/d.err")"
	dstop
	[ "$(sed "1,${n1}d" "$(attr 0 recompress)" | grep -c '^type=idle')" = 0 ] ||
		die "type=idle after the reloads: $(oneline "$(attr 0 recompress)")"
}

t_sigterm_mid_pass() {
	local t0 t1 ms bound line2
	new_root
	conf "${BASE_CONF[@]}" "passes = huge_idle idle huge"
	slow_attr 0 recompress 0.2 "$T/gate"
	dstart
	wait_for 8000 at_least 1 "$T/slow.0.recompress" . ||
		die "no recompress write in 8 s; stderr: $(oneline "$T/d.err")"
	# The second write is held by the gate: signal once the daemon is blocked in it.
	wait_for 5000 blocked_in_fifo ||
		die "daemon not blocked in its second recompress write; stderr: $(oneline "$T/d.err")"
	dsig TERM
	sleep 0.3
	dalive || die "exited while its recompress write was still blocked: $(oneline "$T/d.err")"
	now_ms
	t0=$NOW
	: >"$T/gate"
	dwait 5000 || die "still running 5 s after SIGTERM and the write's end"
	now_ms
	t1=$NOW
	ms=$((t1 - t0))
	# The normal build must end within 1 s of the write's end (the helper releases it within
	# 0.2 s). The sanitizer build gets more: ASan's exit path (shadow memory teardown, leak
	# check) alone can take a few hundred ms.
	bound=$((1000 * SLOW))
	[ "$DRC" = 0 ] || die "exit code $DRC; stderr: $(oneline "$T/d.err")"
	[ "$ms" -le "$bound" ] || die "exited ${ms} ms after the blocked write was released (bound $bound ms)"
	# The write that was blocked completed after the signal, and nothing followed it.
	[ "$(slow_cmds 0 recompress)" = "type=huge_idle priority=1 max_pages=64
type=idle priority=1 max_pages=64" ] || die "recompress got $(slow_cmds 0 recompress | tr '\n' '|')"
	line2=$(sed -n '2s/ .*//p' "$T/slow.0.recompress")
	[ "$((line2 / 1000))" -ge "$t0" ] ||
		die "second write done before the gate opened (at $((line2 / 1000)) ms, gate at $t0 ms)"
	[ ! -s "$(attr 0 compact)" ] || die "interrupted pass still compacted"
	grep -q '^zram-recompd: zram0: pass (interrupted):' "$T/d.err" ||
		die "no 'pass (interrupted)' in stderr: $(oneline "$T/d.err")"
	state_valid d || die "state file invalid after SIGTERM: $(oneline "$T/d.state/state")"
	[ "$(state_field zram0 passes)" = 1 ] ||
		die "state passes=$(state_field zram0 passes), not 1: $(oneline "$T/d.state/state")"
}

t_device_removed_mid_pass() {
	local n1 t0
	new_root
	fr_dev "$R" "$VER" 1
	conf "${BASE_CONF[@]}" "passes = huge_idle idle huge"
	slow_attr 0 recompress 0.5
	dstart
	wait_for 8000 at_least 1 "$T/slow.0.recompress" . ||
		die "no recompress write on zram0 in 8 s; stderr: $(oneline "$T/d.err")"
	# Hot-remove zram0 while the daemon is blocked in its next recompress write.
	rm_dev 0
	now_ms
	t0=$NOW
	n1=$(count "$(attr 1 recompress)" '^type=idle ')
	wait_for 6000 grep -q '^zram-recompd: zram0: removed; no longer managed$' "$T/d.err" ||
		die "zram0 not dropped; stderr: $(oneline "$T/d.err")"
	wait_for 8000 at_least $((n1 + 1)) "$(attr 1 recompress)" '^type=idle ' ||
		die "no pass on zram1 after zram0 was removed; stderr: $(oneline "$T/d.err")"
	now_ms
	[ "$NOW" -ge $((t0 + 2000)) ] || sleep_ms $((t0 + 2000 - NOW))
	dalive || die "daemon died (exit code $(cat "$T/d.rc")); stderr: $(oneline "$T/d.err")"
	dstop
	[ "$(count "$T/d.err" '^zram-recompd: zram0: managed')" = 1 ] ||
		die "zram0 managed again after removal: $(oneline "$T/d.err")"
}

# The metrics file is written after every pass, also while another device's job is queued
# or running: that device's last block_state figures must still be in it (issue 11 #1: they
# were read from the job the worker was filling, and went missing from some writes).
t_metrics_while_other_runs() {
	local end seen=0 missing=0 polls=0 c
	new_root
	fr_dev "$R" "$VER" 1
	fr_blockstate "$R" "$VER" 1
	conf "${BASE_CONF[@]}" "passes = huge_idle idle huge" "metrics-file = $T/metrics.prom"
	# Both slow: each device's pass outlasts the other's metrics write.
	slow_attr 0 recompress 0.3
	slow_attr 1 recompress 0.3
	dstart
	now_ms
	end=$((NOW + 10000 * SLOW))
	while now_ms && [ "$NOW" -lt "$end" ]; do
		c=$(cat "$T/metrics.prom" 2>/dev/null)
		if grep -qF 'zram_recompd_incompressible_pages{device="zram1"}' <<<"$c"; then
			seen=1
		elif [ "$seen" = 1 ] && grep -qF 'device="zram1"' <<<"$c"; then
			missing=$((missing + 1))
		fi
		polls=$((polls + 1))
		sleep 0.02
	done
	dstop
	[ "$seen" = 1 ] || die "zram1's incompressible pages never in the metrics file;" \
		"stderr: $(oneline "$T/d.err")"
	[ "$missing" = 0 ] ||
		die "zram1's incompressible pages missing from $missing of $polls polls after it appeared"
	[ "$(passes_logged zram0)" -ge 2 ] || die "fewer than 2 passes on zram0: $(oneline "$T/d.err")"
}

# Temp files a kill -9 left between creating and renaming a save are removed at start
# (issue 11 #7); files that only look alike stay.
t_stale_temps_removed() {
	new_root
	conf "${BASE_CONF[@]}" "metrics-file = $T/metrics.prom"
	mkdir -p "$T/d.state"
	echo partial >"$T/d.state/state.tmpAbC123"
	echo partial >"$T/d.state/advice.tmp9zY8xW"
	echo keep >"$T/d.state/state.tmp-keep"
	echo partial >"$T/metrics.prom.tmpQwE789"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass in 8 s; stderr: $(oneline "$T/d.err")"
	dstop
	[ ! -e "$T/d.state/state.tmpAbC123" ] && [ ! -e "$T/d.state/advice.tmp9zY8xW" ] ||
		die "state directory temp files left: $(ls "$T/d.state" | tr '\n' ' ')"
	[ ! -e "$T/metrics.prom.tmpQwE789" ] || die "metrics temp file left"
	[ -e "$T/d.state/state.tmp-keep" ] || die "a file that is no temp file was removed"
	grep -qF "metrics.prom: removed 1 temporary file left by an interrupted write" "$T/d.err" ||
		die "removal not logged: $(oneline "$T/d.err")"
}

t_device_added() {
	new_root
	conf "${BASE_CONF[@]}"
	# --no-sandbox: a device added later makes a sandboxed daemon restart
	# (sandbox_device_added)
	dstart -a --no-sandbox
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass on zram0 in 8 s; stderr: $(oneline "$T/d.err")"
	# The device appears whole: its directory first, the sys/block link last.
	fr_dev "$R" "$VER" 1 link=none
	ln -s ../devices/virtual/block/zram1 "$R/sys/block/zram1"
	wait_for 6000 grep -q '^zram-recompd: zram1: managed (initialized)' "$T/d.err" ||
		die "zram1 not picked up; stderr: $(oneline "$T/d.err")"
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram1: pass:' ||
		die "no pass on zram1; stderr: $(oneline "$T/d.err")"
	dstop
	[ "$(head -n 3 "$(attr 1 recompress)")" = "type=huge_idle priority=1 max_pages=64
type=idle priority=1 max_pages=64
type=huge priority=1 max_pages=64" ] || die "zram1 recompress: $(oneline "$(attr 1 recompress)")"
	[ "$(head -n 1 "$(attr 1 idle)")" = all ] || die "zram1 idle: $(oneline "$(attr 1 idle)")"
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"
	[ "$(state_field zram1 passes)" = "$(passes_logged zram1)" ] ||
		die "state for zram1: $(oneline "$T/d.state/state")"
}

# The last device goes away and comes back without a uevent (a fake tree sends none):
# with no device ticking, the daemon must still notice it (it polls while it has none).
t_device_readded() {
	new_root
	conf "${BASE_CONF[@]}"
	# --no-sandbox: a device added later makes a sandboxed daemon restart
	# (sandbox_device_added)
	dstart -a --no-sandbox
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass on zram0 in 8 s; stderr: $(oneline "$T/d.err")"
	rm_dev 0
	wait_for 6000 grep -q '^zram-recompd: zram0: removed; no longer managed' "$T/d.err" ||
		die "removal not noticed; stderr: $(oneline "$T/d.err")"
	fr_dev "$R" "$VER" 0 link=none
	ln -s ../devices/virtual/block/zram0 "$R/sys/block/zram0"
	wait_for 8000 at_least 2 "$T/d.err" '^zram-recompd: zram0: managed \(initialized\)' ||
		die "zram0 not picked up again; stderr: $(oneline "$T/d.err")"
	wait_for 8000 at_least 2 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass after re-adding zram0; stderr: $(oneline "$T/d.err")"
	dstop
}

t_uninitialized_then_initialized() {
	local ra written
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 init=0 recomp=""
	ra=$(attr 0 recomp_algorithm)
	conf "${BASE_CONF[@]}" "recompress-algorithms = zstd deflate"
	dstart
	wait_for 5000 at_least 2 "$ra" . || die "recomp_algorithm not configured: $(oneline "$ra")"
	# Play the kernel: the attribute now lists the secondaries (a fake file would keep
	# the written commands, which no kernel shows).
	written=$(cat "$ra")
	put "$ra" "#1: $(fr_algo_list "$VER" zstd)
#2: $(fr_algo_list "$VER" deflate)
"
	[ "$written" = "algo=zstd priority=1
algo=deflate priority=2" ] || die "recomp_algorithm got $(printf '%s' "$written" | tr '\n' '|')"
	# Uninitialized: a few timer ticks pass with nothing to do.
	sleep $((3 * SLOW))
	dalive || die "daemon died; stderr: $(oneline "$T/d.err")"
	[ "$(wc -l <"$ra")" = 2 ] || die "recomp_algorithm written again: $(oneline "$ra")"
	local a
	for a in recompress idle compact algorithm_params; do
		[ ! -s "$(attr 0 $a)" ] ||
			die "$a written while uninitialized: $(oneline "$(attr 0 $a)")"
	done
	# zram setup happens: disksize, data, then initstate.
	put "$(attr 0 disksize)" "1073741824
"
	# shellcheck disable=SC2086 # nine fields
	put_mm 0 $FR_MM_FRAG
	put "$(attr 0 initstate)" "1
"
	wait_for 8000 at_least 1 "$(attr 0 recompress)" . ||
		die "no pass after initialization; stderr: $(oneline "$T/d.err")"
	dstop
	# Two secondaries: one write per priority; #2 gets what #1 left (no block_state
	# here: at most what #1 was charged).
	[ "$(head -n 6 "$(attr 0 recompress)")" = "type=huge_idle priority=1 max_pages=64
type=huge_idle priority=2 max_pages=64
type=idle priority=1 max_pages=64
type=idle priority=2 max_pages=64
type=huge priority=1 max_pages=64
type=huge priority=2 max_pages=64" ] || die "recompress: $(oneline "$(attr 0 recompress)")"
	[ "$(wc -l <"$ra")" = 2 ] || die "recomp_algorithm written after init: $(oneline "$ra")"
}

# pass_seen_at NAME NOW_COUNT SEEN_COUNT: AT = when the one new pass line of daemon NAME was
# written: its stderr's mtime (only a pass's own lines are logged between passes), not when
# this loop saw it, which a loaded host delays (CI under ASan: a line seen 0.5 s late made a
# 2-s wait look like 1.5 s). AT is empty (unknown) when several lines came at once (only the
# last one's time is known), or when a pass line was written between the count and the
# mtime's read, making it that line's time (seen: "second pass 0 ms after the first" with
# two bench VMs on both cores); SEEN_N = the count after the read.
pass_seen_at() {
	local m
	AT=
	SEEN_N=$2
	[ "$2" = $(($3 + 1)) ] || return 0
	m=$(date -r "$T/$1.err" +%s%3N) || return 0
	SEEN_N=$(passes_logged zram0 "$1")
	[ "$SEEN_N" = "$2" ] && AT=$m
	return 0
}

# next_in_s NAME K: the "next in" seconds the K-th pass line of daemon NAME logged (K counts
# as passes_logged does).
next_in_s() {
	grep -E '^zram-recompd: zram0: pass( \(interrupted\))?:' "$T/$1.err" | sed -n "$2p" |
		sed -n 's/.*; next in \([0-9]*\) s$/\1/p'
}

# next_ins NAME: every "next in" daemon NAME's pass lines logged, on one line (for messages).
next_ins() {
	grep 'pass:' "$T/$1.err" | sed 's/.*next in/next in/' | tr '\n' '|'
}

# gap_ms A B: B - A in ms, or nothing if either time is unknown (pass_seen_at).
gap_ms() {
	[ -n "$1" ] && [ -n "$2" ] && echo $(($2 - $1))
	return 0
}

t_backoff() {
	local ra=$T/ra rb=$T/rb na=0 nb=0 c i gap maxgap=0 deadline end=0
	local -a ta=() tb=()
	R=$ra new_root
	R=$rb new_root
	conf_to "$T/a.conf" "[global]" "interval-sec = 1" "idle-age-max-sec = 0" \
		"backoff-max-sec = 4" "cpu-share-max-percent = 0"
	conf_to "$T/b.conf" "${BASE_CONF[@]}"
	# Static mm_stat: every pass saves nothing. a backs off (waits 2, 4, 4 ... s after
	# a pass), b does not (1 s).
	dstart -n a -r "$ra" -c "$T/a.conf"
	dstart -n b -r "$rb" -c "$T/b.conf"
	# Watch until 2 s after a's 3rd pass (its 4th is due 4 s after the 3rd).
	now_ms
	deadline=$((NOW + 15000 * SLOW))
	while [ "$NOW" -lt "$deadline" ] && { [ "$end" = 0 ] || [ "$NOW" -lt "$end" ]; }; do
		sleep 0.02
		now_ms
		c=$(passes_logged zram0 a)
		pass_seen_at a "$c" "$na"
		while [ "$na" -lt "$c" ]; do
			ta+=("$AT")
			na=$((na + 1))
		done
		c=$(passes_logged zram0 b)
		pass_seen_at b "$c" "$nb"
		while [ "$nb" -lt "$c" ]; do
			tb+=("$AT")
			nb=$((nb + 1))
		done
		# from the 3rd pass's own time: a poll that stalls past it must not widen the window
		[ "$end" != 0 ] || [ "$na" -lt 3 ] || end=$((${ta[2]:-$NOW} + 2000))
	done
	dstop a
	dstop b
	[ "$na" -ge 3 ] || die "backoff daemon: only $na passes in $((15 * SLOW)) s"
	# A timer never fires early. A pass's time is when its line was logged, at its end, and
	# the line says the wait left ("next in", whole seconds, rounded down): the next line
	# comes no sooner than that (20 ms polling, 100 ms slack). The wait is counted from the
	# pass's end in the worker, before the line is logged, so a line logged late on a loaded
	# host says a shorter wait, not that the next pass comes later.
	# Checked where both times are known; a 4th pass seen is one caught after a stalled
	# poll, and held to the same bound.
	for ((i = 1; i < na && i < 4; i++)); do
		gap=$(gap_ms "${ta[i - 1]}" "${ta[i]}")
		c=$(next_in_s a "$i")
		[ -z "$gap" ] || [ -z "$c" ] || [ "$gap" -ge $((c * 1000 - 100)) ] ||
			die "backoff: pass $((i + 1)) ${gap} ms after pass $i, which logged next in $c s"
	done
	# The 1st pass waits 2 s: "next in 1", which the 1 s interval can never log; or, if the
	# line came late, a 2nd pass at least 1.9 s after it.
	gap=$(gap_ms "${ta[0]}" "${ta[1]}")
	[ "$(next_in_s a 1)" = 1 ] || { [ -n "$gap" ] && [ "$gap" -ge 1900 ]; } ||
		die "with backoff, the 1st pass did not wait 2 s (2nd ${gap:-?} ms after it): $(next_ins a)"
	# Without backoff, passes kept coming every 1-2 s over the same time (about 10 s: 5 or
	# more passes against 3).
	# One long gap is tolerated: a stall of the host (seen once, 5.7 s) is not a backoff,
	# which would show as gaps of 2, 4, 4 ... s.
	local long=0
	for ((i = 1; i < nb; i++)); do
		gap=$(gap_ms "${tb[i - 1]}" "${tb[i]}")
		[ -n "$gap" ] || continue
		[ "$gap" -le "$maxgap" ] || maxgap=$gap
		[ "$gap" -le 3500 ] || long=$((long + 1))
	done
	# The count over the window is a weak check (a loaded host slows both daemons' passes:
	# ASan beside two VMs once gave 4 against 3); what each pass decided is the strong one.
	[ "$nb" -gt "$na" ] ||
		die "without backoff $nb passes, with backoff $na in that time (expected more)"
	# "next in" is the wait left when the line is logged, in whole seconds: 1 s -> 0 or 1
	[ "$(grep -c '^zram-recompd: zram0: pass: .*; next in [01] s$' "$T/b.err")" = \
		"$(passes_logged zram0 b)" ] ||
		die "without backoff, a pass scheduled the next later than the interval: $(next_ins b)"
	# ... 4 s -> 3, or 2 on a loaded host
	[ "$(grep '^zram-recompd: zram0: pass:' "$T/a.err" | sed -n 2,3p | grep -c '; next in [23] s$')" = 2 ] ||
		die "with backoff, the 2nd and 3rd passes did not wait 4 s: $(next_ins a)"
	[ "$long" -le 1 ] || die "without backoff, $long gaps over 3.5 s between passes (longest $maxgap ms)"
}

# thread_sched PID TID: "nice/policy" of one thread (stat fields 19 and 41).
thread_sched() {
	cut -d')' -f2 "/proc/$1/task/$2/stat" | awk '{ print $17 "/" $39 }'
}

# Started as the unit starts it (Nice=10, CPUSchedulingPolicy=batch, RLIMIT_NICE 20 from
# LimitNICE=+0), the daemon puts its event loop back at nice 0 and SCHED_OTHER (0), so that
# it answers the watchdog under load, and leaves the worker (recomp-worker) at nice 10 and
# SCHED_BATCH (3).
t_loop_priority() {
	local pid t loop worker=
	ulimit -e 20 2>/dev/null || [ "$(id -u)" = 0 ] ||
		die "needs root or a hard RLIMIT_NICE of 20 (ulimit -He: $(ulimit -He))"
	renice -n 10 -p "$BASHPID" >/dev/null && chrt -b -p 0 "$BASHPID" >/dev/null ||
		die "cannot set nice 10 and SCHED_BATCH for the daemon to inherit"
	new_root
	conf "${BASE_CONF[@]}"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" "running on Linux" ||
		die "no running line: $(oneline "$T/d.err")"
	pid=$(cat "$T/d.pid")
	loop=$(thread_sched "$pid" "$pid")
	# the worker by its name (ThreadSanitizer has a thread of its own)
	for t in /proc/"$pid"/task/*; do
		[ "$(cat "$t/comm")" = recomp-worker ] &&
			worker="$worker $(thread_sched "$pid" "${t##*/}")"
	done
	dstop
	[ "$loop" = 0/0 ] && [ "$worker" = " 10/3" ] ||
		die "nice/policy: event loop $loop (expected 0/0), recomp-worker threads:$worker (expected 10/3)"
}

# The daemon under memory pressure on a device whose 3,000 stored pages were all accessed
# now, with an idle age of 18 s and a pass every 10 s (extra config lines as arguments),
# until its first pass; FIRST_AT is then when its line was written (pass_seen_at), FIRST_N
# the passes logged by then.
young_burst_start() {
	local up f
	new_root
	fr_meminfo "$R" 16000000 400000
	up=$(cut -d. -f1 /proc/uptime)
	f=$R/sys/kernel/debug/zram/zram0/block_state
	mkdir -p "${f%/*}"
	# Pages stored now, an idle age of 18 s, the first pass 10 s after the start: 8 s left
	# then, less when the first pass comes late (all tests run at once, under ASan and TSan
	# too: a late pass by 5 s found every page old enough before, and no ripening line).
	awk -v t="$up" 'BEGIN { for (i = 0; i < 3000; i++) printf "%12d %12d.%06d ......\n", i, t, 0 }' >"$f"
	conf "[global]" "interval-sec = 10" "idle-age-min-sec = 18" "idle-age-max-sec = 18" \
		"passes = idle" "cpu-share-max-percent = 0" "memory-stall-us = 0" "$@"
	${YOUNG_BURST_HOOK:-:}
	dstart
	wait_for 14000 at_least 1 "$T/d.err" "^zram-recompd: zram0: pass:" ||
		die "no first pass in 14 s; stderr: $(oneline "$T/d.err")"
	pass_seen_at d "$(passes_logged zram0)" 0
	FIRST_N=$SEEN_N
	FIRST_AT=$AT
}

# After young_burst_start: the second pass within $1 ms of the first and at least $2 ms after
# it (never at once); $3 names the test in the message.
young_burst_second() {
	local gap
	wait_for "$1" at_least 2 "$T/d.err" "^zram-recompd: zram0: pass:" ||
		die "$3: no second pass within $1 ms of the first; stderr: $(oneline "$T/d.err")"
	# when the lines were written (pass_seen_at: a loaded host sees them late); a host
	# stalled so long that both were there at once leaves the gap unknown
	[ "$FIRST_N" = 1 ] || return 0
	pass_seen_at d "$(passes_logged zram0)" 1
	gap=$(gap_ms "$FIRST_AT" "$AT")
	[ -z "$gap" ] || [ "$gap" -ge "$2" ] ||
		die "$3: second pass $gap ms after the first (expected at least $2 ms)"
}

# ... and no third pass within 3 s; then the daemon stops.
young_burst_end() {
	sleep_ms 3000
	[ "$(count "$T/d.err" "^zram-recompd: zram0: pass:")" = 2 ] ||
		die "$1: a third pass followed: $(oneline "$T/d.err")"
	dstop
}

# Memory pressure and a burst of swap-out too young for the idle age (18 s). The first pass
# (interval-sec = 10) finds nothing idle, reads when 90% of the pages are old enough (about
# 8 s later) and comes back then instead of after its backoff (20 s); the second finds them
# no longer young (the fake kernel never marks them), so no third follows soon.
t_ripen_pressure() {
	# (burst-idle-age-sec off: t_burst_age has the burst rule)
	young_burst_start "burst-idle-age-sec = 0"
	grep -qE "zram0: memory pressure: 3000 pages are younger than the idle age of 18 s, 90% of them old enough in [1-8] s" "$T/d.err" ||
		die "no ripening line: $(oneline "$T/d.err")"
	# the ripening time, not the interval with its backoff (next in 18-19 s without it):
	# about 8 s; less when the first pass started late on a loaded host (the pages' ages
	# are fixed before the daemon starts), never at once
	young_burst_second 11000 1000 ripen_pressure
	[ "$(grep -c "pages are younger" "$T/d.err")" = 1 ] ||
		die "the second pass found young pages again: $(oneline "$T/d.err")"
	[ "$(cat "$(attr 0 idle)")" = "18
18" ] || die "idle marks: $(tr '\n' '|' <"$(attr 0 idle)")"
	young_burst_end ripen_pressure
}

# After young_burst_start: the second pass (young_burst_second) marks with the burst age,
# 3 s, after the first pass's 18; with "saved" as $2 it saves memory too. $1 names the test.
burst_pass_at_3s() {
	young_burst_second 6000 900 "$1"
	[ -z "${2:-}" ] || grep -qE "^zram-recompd: zram0: pass: 1 step, saved [1-9][0-9.]* [KM]iB" "$T/d.err" ||
		die "$1: the pass at the burst age saved nothing: $(oneline "$T/d.err")"
	[ "$(cat "$(attr 0 idle)")" = "18
3" ] || die "$1: idle marks: $(tr '\n' '|' <"$(attr 0 idle)")"
}

# The same burst with burst-idle-age-sec at its default (3 s): every stored page is young,
# so the first pass begins a burst; the second comes when 90% of the pages are 3 s old
# (they are already: a second later) and marks with 3 s instead of 18; it saves nothing
# (the fake kernel changes nothing), which ends the burst, so no third pass follows soon.
t_burst_age() {
	young_burst_start
	burst_pass_at_3s burst_age
	grep -q "zram0: burst of swap-out: under memory pressure, pages count as idle after burst-idle-age-sec" "$T/d.err" ||
		die "no burst line: $(oneline "$T/d.err")"
	wait_for 3000 at_least 1 "$T/d.err" "zram0: burst over" ||
		die "a burst pass that saved nothing did not end it: $(oneline "$T/d.err")"
	young_burst_end burst_age
}

# reads_at PAGES [UNTIL]: the device's stat counting PAGES pages read a second
# (fakereads.py: by the clock when the daemon reads, so a loaded host cannot make it see
# fewer), until the daemon's stderr has UNTIL.
reads_at() {
	mkdir -p "$T/fakereads"
	python3 "$HERE/fakereads.py" "$(dirname "$(attr 0 stat)")" "$T/fakereads" "$1" \
		"$T/fakereads/ready" ${2:+"$T/d.err" "$2"} 2>>"$T/fakereads.err" &
	echo $! >>"$T/pids"
	wait_for 20000 test -e "$T/fakereads/ready" ||
		die "fakereads.py did not start: $(oneline "$T/fakereads.err")"
}

# 5,000 pages read a second against the 25,600 pages of orig_data_size stored.
reads_fast() {
	reads_at 5000
}

# The burst of t_burst_age on a device that reads back its pages fast: half of the stored
# ones within the idle age (18 s) at the rate since the first pass ended. The first pass
# begins the burst (no rate known yet); the second, due a second or two later, looks again
# for 2 s, finds the reads as fast, marks with the idle age instead of 3 s, and the burst is
# over with it, said with the rate.
t_burst_churn() {
	YOUNG_BURST_HOOK=reads_fast young_burst_start
	young_burst_second 8000 2900 burst_churn
	grep -q "zram0: burst of swap-out" "$T/d.err" || die "no burst line: $(oneline "$T/d.err")"
	grep -qE "zram0: pages read back fast since the last pass \([0-9]{4} a second, 25600 stored\): looking again for 2 s before the burst age" "$T/d.err" ||
		die "no look again: $(oneline "$T/d.err")"
	wait_for 3000 at_least 1 "$T/d.err" "zram0: burst over" ||
		die "fast reads did not end the burst: $(oneline "$T/d.err")"
	grep -qE "zram0: pages read back fast \([0-9]{4} a second, 25600 stored\): half of them within idle-age-min-sec \(18 s\), so no burst age" "$T/d.err" ||
		die "no line with the read rate: $(oneline "$T/d.err")"
	[ "$(cat "$(attr 0 idle)")" = "18
18" ] || die "fast reads: idle marks: $(tr '\n' '|' <"$(attr 0 idle)")"
	dstop
}

# 3,000 pages read a second until the daemon looks again, then none: the hot part of a
# burst that came back at once. The bound is 711 a second (half of 25,600 pages within 18
# s); the look's 2 s stay under it while fakereads.py sees the line within 0.47 s.
reads_until_look() {
	reads_at 3000 "looking again"
}

# The burst of t_burst_churn whose reads stop once the daemon looks again: after the 2 s
# the pass marks with the burst age (3 s) after all, and no "no burst age" line is logged.
t_burst_look() {
	YOUNG_BURST_HOOK=reads_until_look young_burst_start
	young_burst_second 8000 2900 burst_look
	grep -qE "zram0: pages read back fast since the last pass \([0-9]{4} a second, 25600 stored\): looking again for 2 s before the burst age" "$T/d.err" ||
		die "no look again: $(oneline "$T/d.err")"
	[ "$(cat "$(attr 0 idle)")" = "18
3" ] || die "reads stopped: idle marks: $(tr '\n' '|' <"$(attr 0 idle)")"
	! grep -q "so no burst age" "$T/d.err" || die "burst age given up: $(oneline "$T/d.err")"
	wait_for 3000 at_least 1 "$T/d.err" "zram0: burst over" ||
		die "a burst pass that saved nothing did not end it: $(oneline "$T/d.err")"
	young_burst_end burst_look
}

# The fake kernel's recompression (fakerecomp.py): each recompress command saves 4 KiB of
# compr_data_size, as mm_stat shows.
recomp_saves() {
	mkdir -p "$T/fakerecomp"
	python3 "$HERE/fakerecomp.py" "$(dirname "$(attr 0 mm_stat)")" "$T/fakerecomp" 4096 \
		"$T/fakerecomp/ready" 2>>"$T/fakerecomp.err" &
	echo $! >>"$T/pids"
	wait_for 20000 test -e "$T/fakerecomp/ready" ||
		die "fakerecomp.py did not start: $(oneline "$T/fakerecomp.err")"
}

# The burst of t_burst_age where the pass at the burst age saves memory. 6.12's idle walks
# decompress what that pass recompressed, so the burst is over after it ...
t_burst_one_pass() {
	YOUNG_BURST_HOOK=recomp_saves young_burst_start
	burst_pass_at_3s burst_one_pass saved
	wait_for 3000 at_least 1 "$T/d.err" "zram0: burst over" ||
		die "6.12: the burst went on after a pass that saved: $(oneline "$T/d.err")"
	young_burst_end burst_one_pass
}

# ... and 7.0's scan skips recompressed slots, so there it lasts.
t_burst_lasts() {
	VER=7.0
	YOUNG_BURST_HOOK=recomp_saves young_burst_start
	burst_pass_at_3s burst_lasts saved
	young_burst_end burst_lasts
	! grep -q "zram0: burst over" "$T/d.err" ||
		die "7.0: the burst ended after a pass that saved: $(oneline "$T/d.err")"
}

# A huge step that saves nothing (the fake kernel changes nothing) makes the next ones wait
# 1, 2, 4 passes, across the device's re-probes between passes. New huge pages keep landing
# (huge_pages_since rises), so the "nothing changed" rule does not leave the type out instead.
t_huge_waits() {
	local n huge since=1037 loop
	new_root
	conf "${BASE_CONF[@]}" "passes = huge"
	dstart
	(
		while :; do
			since=$((since + 1))
			put_mm 0 104857600 30300000 37300000 0 43100000 120 0 1037 "$since"
			sleep 0.5
		done
	) &
	loop=$!
	wait_for 20000 at_least 8 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		{ kill "$loop"; die "fewer than 8 passes in 20 s; stderr: $(oneline "$T/d.err")"; }
	kill "$loop"
	wait "$loop" 2>/dev/null
	dstop
	n=$(passes_logged zram0)
	huge=$(count "$(attr 0 recompress)" '^type=huge ')
	# runs at passes 1, 3, 6, then every 9th at most: 8 passes write at most 3 or 4 times
	[ "$huge" -ge 2 ] && [ "$huge" -le $(((n + 2) / 2)) ] ||
		die "$n passes, $huge type=huge writes: $(oneline "$(attr 0 recompress)")"
	[ "$huge" -le 4 ] || die "$n passes, $huge type=huge writes (expected at most 4 in 8-9 passes)"
}

t_bad_config_exit() {
	local rc
	new_root
	fr_snapshot "$R" >"$T/before"
	conf "[global]" "interval-sec = 1" "passes = idel"
	ZRAM_RECOMPD_STATE_DIR=$T/d.state timeout -s KILL $((10 * SLOW)) "$BIN" --sysroot "$R" \
		--config "$T/conf" </dev/null >"$T/d.out" 2>"$T/d.err"
	rc=$?
	[ "$rc" = 2 ] || die "exit code $rc, expected 2; stderr: $(oneline "$T/d.err")"
	grep -qF "$T/conf:3: key 'passes': 'idel'" "$T/d.err" ||
		die "no FILE:LINE error on stderr: $(oneline "$T/d.err")"
	[ ! -e "$T/d.state" ] || die "state directory created although the daemon did not start"
	fr_snapshot "$R" >"$T/after"
	[ -z "$(fr_changed "$T/before" "$T/after")" ] ||
		die "the fake tree changed: $(fr_changed "$T/before" "$T/after" | tr '\n' ' ')"
}

t_state_corrupt() {
	local n
	new_root
	conf "${BASE_CONF[@]}"
	mkdir -p "$T/d.state"
	printf 'zram-recompd-state 9\nzram0 passes=77 garbage\n\001\002\n' >"$T/d.state/state"
	dstart
	wait_for 5000 grep -q 'unreadable or foreign content; starting from zero' "$T/d.err" ||
		die "no warning about the corrupt state file; stderr: $(oneline "$T/d.err")"
	grep -q "^zram-recompd: warning: $T/d.state/state: unreadable or foreign content" \
		"$T/d.err" || die "warning does not name the file: $(oneline "$T/d.err")"
	wait_for 8000 state_valid d ||
		die "state file not replaced after a pass: $(oneline "$T/d.state/state")"
	dstop
	n=$(passes_logged zram0)
	state_valid d || die "state file invalid at exit: $(oneline "$T/d.state/state")"
	if [ "$n" -lt 1 ] || [ "$(state_field zram0 passes)" != "$n" ]; then
		die "state passes=$(state_field zram0 passes) after $n passes (the 77 must be gone)"
	fi
	[ "$(wc -l <"$T/d.state/state")" = 2 ] || die "state file: $(oneline "$T/d.state/state")"
}

# Totals survive a restart; the second run finds its directory through $STATE_DIRECTORY.
t_state_persists() {
	local n1 p1 n2 p2
	new_root
	conf "${BASE_CONF[@]}"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass in 8 s; stderr: $(oneline "$T/d.err")"
	dstop
	n1=$(passes_logged zram0)
	p1=$(state_field zram0 pages_attempted)
	[ "$(state_field zram0 passes)" = "$n1" ] || die "first run: $(oneline "$T/d.state/state")"
	mv "$T/d.err" "$T/d.err.1"
	dstart -s STATE_DIRECTORY
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass in the second run; stderr: $(oneline "$T/d.err")"
	dstop
	n2=$(passes_logged zram0)
	p2=$(state_field zram0 pages_attempted)
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"
	[ "$(state_field zram0 passes)" = $((n1 + n2)) ] ||
		die "passes=$(state_field zram0 passes) after $n1 + $n2 passes"
	[ "$p2" -gt "$p1" ] || die "pages_attempted $p1 before the restart, $p2 after"
	! grep -q '^zram-recompd: warning:' "$T/d.err" ||
		die "second run warned: $(oneline "$T/d.err")"
	[ ! -e "$T/d.state2" ] || die "the second STATE_DIRECTORY entry was used"
}

# Writeback within the pass and day budgets (issue 12). fakewb.py plays the kernel: each
# writeback command writes 12 pages, or what is left of writeback_limit, and bd_stat shows
# it. 16 pages a pass, 40 a day: pass 1 and 2 write 12 incompressible + 4 huge (each
# step gets what the pass has left), pass 3 the 8 left of the day, then the budget is spent.
# A restart a moment later finds it spent too (the state file), and writes nothing.
# (Both types are the kernel's filters: idle and huge_idle select by block_state ages,
# which this fake has not, and are skipped.)
t_writeback_budget() {
	local st
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 wb=1
	fr_kconfig "$R" boot 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_MEMORY_TRACKING=y' \
		'CONFIG_ZRAM_TRACK_ENTRY_ACTIME=y' 'CONFIG_ZRAM_MULTI_COMP=y' 'CONFIG_ZRAM_WRITEBACK=y'
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	conf "${BASE_CONF[@]}" "writeback = yes" "writeback-bytes-per-pass = 65536" \
		"writeback-bytes-per-day = 163840" "metrics-file = $T/metrics.prom" \
		"writeback-types = incompressible huge"
	mkdir -p "$T/fakewb"
	python3 "$HERE/fakewb.py" "$(dirname "$(attr 0 bd_stat)")" "$T/fakewb" 12 \
		"$T/fakewb/ready" 2>>"$T/fakewb.err" &
	echo $! >>"$T/pids"
	wait_for 20000 test -e "$T/fakewb/ready" || die "fakewb.py did not start: $(oneline "$T/fakewb.err")"
	dstart
	wait_for 15000 grep -q '^zram-recompd: zram0: writeback: budget spent' "$T/d.err" ||
		die "the day budget was not spent in 15 s; stderr: $(oneline "$T/d.err")"
	dstop
	# 6.12: the bare mode words (type= is 6.16+)
	[ "$(tr '\n' ' ' <"$(attr 0 writeback)")" = \
		"incompressible huge incompressible huge incompressible " ] ||
		die "writeback commands: $(oneline "$(attr 0 writeback)")"
	# the kernel's value first; per pass limit 0, then before each step what is left
	[ "$(tr '\n' ' ' <"$(attr 0 writeback_limit)")" = "0 0 16 4 0 16 4 0 8 " ] ||
		die "writeback_limit writes: $(oneline "$(attr 0 writeback_limit)")"
	[ "$(tr '\n' ' ' <"$(attr 0 writeback_limit_enable)")" = "0 1 0 1 0 1 0 " ] ||
		die "writeback_limit_enable writes: $(oneline "$(attr 0 writeback_limit_enable)")"
	[ "$(count "$T/d.err" '^zram-recompd: zram0: pass: .* 16 written back;')" = 2 ] &&
		[ "$(count "$T/d.err" '^zram-recompd: zram0: pass: .* 8 written back;')" = 1 ] ||
		die "pass lines: $(grep 'written back' "$T/d.err" | tr '\n' '|')"
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"
	[ "$(state_field zram0 wb_pages)" = 40 ] || die "state: $(oneline "$T/d.state/state")"
	st=$(state_field zram0 wb_day_left)
	# 160 KiB a day refills 1.9 B/s: the test's few seconds are not a page
	[ "$st" -lt 4096 ] || die "wb_day_left=$st after 40 of 40 pages"
	[ "$(state_field zram0 wb_day_at)" -gt 0 ] || die "wb_day_at: $(oneline "$T/d.state/state")"
	grep -qxF 'zram_recompd_writeback_pages_total{device="zram0"} 40' "$T/metrics.prom" ||
		die "metrics: $(grep writeback "$T/metrics.prom" | tr '\n' '|')"
	grep -qx 'zram_recompd_backing_dev_writes_pages{device="zram0"} 40' "$T/metrics.prom" ||
		die "metrics: $(grep backing_dev "$T/metrics.prom" | tr '\n' '|')"
	grep -qx 'zram_recompd_writeback_day_left_bytes{device="zram0"} [0-9]*' "$T/metrics.prom" ||
		die "metrics: $(grep day_left "$T/metrics.prom" | tr '\n' '|')"

	mv "$T/d.err" "$T/d.err.1"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass after the restart; stderr: $(oneline "$T/d.err")"
	dstop
	grep -q '^zram-recompd: zram0: writeback: budget spent' "$T/d.err" ||
		die "the restarted daemon did not find the budget spent: $(oneline "$T/d.err")"
	[ "$(wc -l <"$(attr 0 writeback)")" = 5 ] ||
		die "writeback after the restart: $(oneline "$(attr 0 writeback)")"
	[ "$(wc -l <"$(attr 0 writeback_limit)")" = 9 ] ||
		die "writeback_limit after the restart: $(oneline "$(attr 0 writeback_limit)")"
	[ "$(state_field zram0 wb_pages)" = 40 ] || die "state: $(oneline "$T/d.state/state")"
}

# limit_writes_are TEXT: zram0's writeback_limit received these writes, space-separated.
limit_writes_are() {
	[ "$(tr '\n' ' ' <"$(attr 0 writeback_limit)")" = "$1" ]
}

# A crash during a writeback write (issue 12): the pass budget was reserved in the state
# file before the write, so the next run cannot write it again. 16 pages a pass, 24 a day;
# kill -9 while the first writeback write blocks (slow FIFO): the state says 8 pages left,
# and the restarted daemon's limit is 8, not 16.
t_writeback_crash_reserved() {
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 wb=1
	fr_kconfig "$R" boot 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_MEMORY_TRACKING=y' \
		'CONFIG_ZRAM_TRACK_ENTRY_ACTIME=y' 'CONFIG_ZRAM_MULTI_COMP=y' 'CONFIG_ZRAM_WRITEBACK=y'
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	conf "${BASE_CONF[@]}" "writeback = yes" "writeback-types = incompressible" \
		"writeback-bytes-per-pass = 65536" "writeback-bytes-per-day = 98304"
	# Every writeback write blocks until the gate opens after the kill. A fixed delay (6 s)
	# counts from the helper's start: under ASan on CI the daemon reached the write late, found
	# it released at once, and the pass ended before the kill (stop 41).
	slow_attr 0 writeback 1 "$T/gate" all
	dstart
	wait_for 10000 grep -q '^zram0 .* wb_day_left=32768 ' "$T/d.state/state" ||
		die "no reservation in the state file: $(oneline "$T/d.state/state")"
	# The reservation is made when the pass is queued, before its steps: the limit of 16
	# comes a moment later (read at once, CI failed; its message, read just after, showed
	# "0 0 16").
	wait_for 10000 limit_writes_are "0 0 16 " ||
		die "writeback_limit writes: $(oneline "$(attr 0 writeback_limit)")"
	[ "$(passes_logged zram0)" = 0 ] || die "the pass ended before the crash"
	wait_for 10000 blocked_in_fifo ||
		die "daemon not blocked in its writeback write; stderr: $(oneline "$T/d.err")"
	kill -KILL "$(dpid)"
	dwait 5000 || die "daemon not gone after SIGKILL"
	: >"$T/gate"
	mv "$T/d.err" "$T/d.err.1"
	dstart
	wait_for 25000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass after the restart; stderr: $(oneline "$T/d.err")"
	dstop
	# the first pass after the restart: limit 8; later ones too (nothing was written, the
	# fake bd_stat does not move: the 8 go back and are reserved again)
	[ "$(head -n 5 "$(attr 0 writeback_limit)" | tr '\n' ' ')" = "0 0 16 0 8 " ] &&
		[ "$(sed 1,3d "$(attr 0 writeback_limit)" | grep -cvx '[08]')" = 0 ] ||
		die "writeback_limit writes: $(oneline "$(attr 0 writeback_limit)")"
	# nothing was written back (the fake bd_stat does not move): the 8 go back after the pass
	[ "$(state_field zram0 wb_day_left)" -ge 32768 ] ||
		die "after the pass: $(oneline "$T/d.state/state")"
}

# SIGTERM with one device's pass running and the other's queued (issue 25, item 1): each
# pass's writeback budget was reserved when it was queued (state file); the queued one never
# ran and must give its reservation back, the running one (interrupted before its writeback)
# too. 16 pages a pass, 24 a day: a reservation shows as wb_day_left=32768. Both devices'
# recompress writes block until SIGTERM is sent (slow FIFO), so whichever runs first keeps the
# other queued.
t_sigterm_queued_released() {
	local id
	fr_new "$R" "$VER"
	for id in 0 1; do
		fr_dev "$R" "$VER" "$id" wb=1
		printf '/dev/loop%s\n' "$id" >"$(attr "$id" backing_dev)"
	done
	fr_kconfig "$R" boot 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_MEMORY_TRACKING=y' \
		'CONFIG_ZRAM_TRACK_ENTRY_ACTIME=y' 'CONFIG_ZRAM_MULTI_COMP=y' 'CONFIG_ZRAM_WRITEBACK=y'
	conf "${BASE_CONF[@]}" "passes = huge_idle idle huge" "writeback = yes" \
		"writeback-types = incompressible" "writeback-bytes-per-pass = 65536" \
		"writeback-bytes-per-day = 98304"
	# held until SIGTERM is sent (a delay counted from the helper's start could release the
	# first write at once, and a pass end before the signal)
	slow_attr 0 recompress 1 "$T/gate" all
	slow_attr 1 recompress 1 "$T/gate" all
	dstart
	wait_for 10000 grep -q '^zram0 .* wb_day_left=32768 ' "$T/d.state/state" ||
		die "no reservation for zram0: $(oneline "$T/d.state/state")"
	wait_for 10000 grep -q '^zram1 .* wb_day_left=32768 ' "$T/d.state/state" ||
		die "no reservation for zram1: $(oneline "$T/d.state/state")"
	[ "$(passes_logged zram0)" = 0 ] && [ "$(passes_logged zram1)" = 0 ] ||
		die "a pass ended before SIGTERM: $(oneline "$T/d.err")"
	# in a write: a pass interrupted before its first write logs nothing (a loaded CI host
	# signalled that early)
	wait_for 10000 blocked_in_fifo ||
		die "daemon not blocked in a recompress write; stderr: $(oneline "$T/d.err")"
	dsig TERM
	: >"$T/gate"
	dwait $((8000 * SLOW)) || die "still running 8 s after SIGTERM"
	[ "$DRC" = 0 ] || die "exit code $DRC; stderr: $(oneline "$T/d.err")"
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"
	# the day budget is 98304 bytes; it refills, never past it
	for id in 0 1; do
		[ "$(state_field "zram$id" wb_day_left)" = 98304 ] ||
			die "zram$id keeps a reservation after SIGTERM: $(oneline "$T/d.state/state")"
		[ "$(state_field "zram$id" wb_pages)" = 0 ] ||
			die "zram$id: wb_pages: $(oneline "$T/d.state/state")"
	done
	# exactly one pass ran (interrupted); the other device wrote nothing at all
	[ "$(passes_logged zram0)$(passes_logged zram1)" = 10 ] ||
		[ "$(passes_logged zram0)$(passes_logged zram1)" = 01 ] ||
		die "passes: $(grep ': pass' "$T/d.err" | tr '\n' '|')"
}

# An uninitialized device whose backing_dev another tool set (zram-generator's
# writeback-device=) to another device than backing-device: the notice comes once, not at
# every rescan (each timer tick while the device waits for disksize; issue 25, item 6).
t_backing_noted_once() {
	fr_new "$R" "$VER"
	# (its secondary list is set already: nothing else is written, every probe succeeds)
	fr_dev "$R" "$VER" 0 init=0 wb=1
	printf '/dev/sdb1\n' >"$(attr 0 backing_dev)"
	conf "${BASE_CONF[@]}" "backing-device = /dev/loop0"
	dstart
	wait_for 5000 grep -q 'backing_dev is already /dev/sdb1' "$T/d.err" ||
		die "no notice: $(oneline "$T/d.err")"
	# a few rescans (interval-sec = 1)
	sleep $((4 * SLOW))
	dstop
	[ "$(count "$T/d.err" 'backing_dev is already /dev/sdb1; backing-device = /dev/loop0 not applied')" = 1 ] ||
		die "notices: $(grep -c 'backing_dev is already' "$T/d.err")"
	[ "$(cat "$(attr 0 backing_dev)")" = /dev/sdb1 ] ||
		die "backing_dev written: $(oneline "$(attr 0 backing_dev)")"
}

# Writeback of idle pages without block_state: page ages are unknown, the idle types are
# skipped, and the notice comes once per device, not at every pass (each pass re-probes
# the device: what passes learnt, notices included, is carried over as one struct).
passes_at_least() {
	[ "$(passes_logged "$1")" -ge "$2" ]
}

t_wb_no_ages_once() {
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 wb=1
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	conf "${BASE_CONF[@]}" "writeback = yes" "writeback-types = idle"
	dstart
	wait_for 5000 grep -q 'writeback idle/huge_idle skipped: page ages unknown' "$T/d.err" ||
		die "no notice: $(oneline "$T/d.err")"
	# more passes (interval-sec = 1)
	wait_for $((8000 * SLOW)) passes_at_least zram0 3 ||
		die "passes: $(passes_logged zram0)"
	dstop
	[ "$(count "$T/d.err" 'writeback idle/huge_idle skipped: page ages unknown')" = 1 ] ||
		die "notices: $(grep -c 'page ages unknown' "$T/d.err")"
	! grep -q 'type=idle\|^idle' "$(attr 0 writeback)" 2>/dev/null ||
		die "idle writeback written: $(oneline "$(attr 0 writeback)")"
}

# The Landlock sandbox (issue 11): a reload that moves metrics-file to another directory is
# warned about, and the daemon's write there fails with EACCES although it may write there
# otherwise (same user, a directory it could create files in); with --no-sandbox the same
# reload writes the file. The sandbox is set up at start, for the directories of then.
sandbox_run() {
	local name=$1 n
	shift
	mkdir -p "$T/m1" "$T/m2.$name"
	conf "${BASE_CONF[@]}" "metrics-file = $T/m1/$name.prom"
	dstart -n "$name" "$@"
	wait_for 8000 test -s "$T/m1/$name.prom" ||
		die "$name: no metrics file in the first directory; stderr: $(oneline "$T/$name.err")"
	conf "${BASE_CONF[@]}" "metrics-file = $T/m2.$name/zr.prom"
	dsig HUP "$name"
	wait_for 5000 grep -q '^zram-recompd: configuration reloaded$' "$T/$name.err" ||
		die "$name: no reload; stderr: $(oneline "$T/$name.err")"
	# Two more passes after the reload: each ends with a metrics write.
	n=$(passes_logged zram0 "$name")
	wait_for 8000 at_least $((n + 2)) "$T/$name.err" '^zram-recompd: zram0: pass:' ||
		die "$name: no passes after the reload; stderr: $(oneline "$T/$name.err")"
	dstop "$name"
}

t_sandbox_sighup_metrics() {
	local abi
	new_root
	sandbox_run d
	abi=$(sed -n 's/.*running on Linux .*; writes confined by Landlock (ABI \([0-9]*\))$/\1/p' \
		"$T/d.err")
	[ -n "$abi" ] || die "not sandboxed: $(grep -m1 'running on' "$T/d.err")"
	grep -qF "zram-recompd: warning: metrics-file $T/m2.d/zr.prom: its directory is outside the sandbox set up at start (metrics directory $T/m1); restart zram-recompd to write it there" \
		"$T/d.err" || die "no warning at the reload: $(oneline "$T/d.err")"
	grep -qF "zram-recompd: warning: metrics-file $T/m2.d/zr.prom: Permission denied" "$T/d.err" ||
		die "no EACCES for the write outside: $(oneline "$T/d.err")"
	[ -z "$(ls -A "$T/m2.d")" ] || die "written outside the sandbox: $(ls "$T/m2.d")"
	# The state directory (allowed) is still saved after the reload.
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"

	# The same without the sandbox: the new directory is written, nothing is warned.
	sandbox_run n -a --no-sandbox
	grep -q 'running on Linux .*; not sandboxed (--no-sandbox)$' "$T/n.err" ||
		die "--no-sandbox: $(grep -m1 'running on' "$T/n.err")"
	test -s "$T/m2.n/zr.prom" || die "--no-sandbox: metrics file not written after the reload"
	! grep -q 'warning' "$T/n.err" || die "--no-sandbox warned: $(oneline "$T/n.err")"
}

# What each kernel shape allows (issue 24): the caps_* tests.
# shellcheck source=tests/daemon/caps.sh
. "$HERE/caps.sh"

# ---------------------------------------------------------------------------------------------

# The configuration names a device that is not there yet, and a priority zram0 (one
# secondary) cannot honour: both said once, by name; the device is managed when it appears.
t_config_notes() {
	new_root
	conf "${BASE_CONF[@]}" "devices = zram0 zram1" "priority-idle = 2"
	# --no-sandbox: a device added later makes a sandboxed daemon restart
	# (sandbox_device_added)
	dstart -a --no-sandbox
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass on zram0 in 8 s; stderr: $(oneline "$T/d.err")"
	fr_dev "$R" "$VER" 1 link=none
	ln -s ../devices/virtual/block/zram1 "$R/sys/block/zram1"
	wait_for 6000 grep -q '^zram-recompd: zram1: managed (initialized)' "$T/d.err" ||
		die "zram1 not picked up; stderr: $(oneline "$T/d.err")"
	wait_for 8000 at_least 2 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no second pass on zram0; stderr: $(oneline "$T/d.err")"
	dstop
	[ "$(count "$T/d.err" '^zram-recompd: zram1 \(devices\): no such device; managed when it appears$')" = 1 ] ||
		die "absent zram1 not named once: $(oneline "$T/d.err")"
	[ "$(count "$T/d.err" '^zram-recompd: warning: zram0: priority-idle = 2: the device has 1 secondary algorithm; every secondary is used instead$')" = 1 ] ||
		die "priority note not once for zram0: $(oneline "$T/d.err")"
	[ "$(count "$T/d.err" '^zram-recompd: warning: zram1: priority-idle = 2')" = 1 ] ||
		die "priority note not once for zram1: $(oneline "$T/d.err")"
	grep -q '^type=idle priority=1 ' "$(attr 0 recompress)" ||
		die "zram0 recompress: $(oneline "$(attr 0 recompress)")"
}

# Another tool sets up a device the daemon is configuring (issue 24 #6: the kernel's zram
# selftest writes disksize between the daemon's probe and its recomp_algorithm write).
# ebusy_shim.so (LD_PRELOAD) plays that tool: the daemon's first recomp_algorithm write
# initializes the fake device and fails with EBUSY, as the kernel's does. The daemon gives
# way: a notice, no error or warning, the device probed again and managed as initialized,
# recomp_algorithm never written again, nothing else written to it, still running.
t_another_tool_sets_up() {
	local shim=${BIN%/zram-recompd}/tests/ebusy_shim.so a
	# The sanitizer runtimes must come first in the process: no shim there (and make check
	# builds build-tsan without the unit binaries, the shim among them).
	[ "$SLOW" = 1 ] || return 0
	[ -r "$shim" ] || die "$shim not built (make unit-bins)"
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 init=0 recomp=""
	conf "${BASE_CONF[@]}" "recompress-algorithms = zstd deflate"
	: >"$T/arm"
	# --no-sandbox: Landlock would (rightly) stop the shim's writes into the fake tree
	ZR_SHIM_ARM=$T/arm ZR_SHIM_LOG=$T/shim.log LD_PRELOAD=$shim dstart -a --no-sandbox
	wait_for 8000 grep -q '^zram-recompd: zram0: managed (initialized)' "$T/d.err" ||
		die "zram0 not managed as initialized; stderr: $(oneline "$T/d.err")"
	grep -qxF 'zram-recompd: zram0: set up by another tool while being configured (recomp_algorithm: EBUSY after its disksize); used as that tool set it up, nothing rewritten' "$T/d.err" ||
		die "no notice of the other tool; stderr: $(oneline "$T/d.err")"
	[ "$(count "$T/shim.log" 'EBUSY algo=zstd priority=1')" = 1 ] ||
		die "recomp_algorithm attempts: $(oneline "$T/shim.log")"
	# a few ticks: nothing is written to the device the other tool set up
	sleep $((3 * SLOW))
	dalive || die "daemon died; stderr: $(oneline "$T/d.err")"
	[ "$(wc -l <"$T/shim.log")" = 1 ] || die "recomp_algorithm retried: $(oneline "$T/shim.log")"
	for a in recomp_algorithm algorithm_params recompress idle compact; do
		[ ! -s "$(attr 0 $a)" ] || die "$a written: $(oneline "$(attr 0 $a)")"
	done
	# The other tool set zram0 up without secondaries: said once, as a warning with the fix
	# (reach.c); nothing else is an error or a warning.
	[ "$(count "$T/d.err" '^zram-recompd: warning: zram0: cannot recompress: initialized without a secondary algorithm')" = 1 ] ||
		die "no single 'cannot recompress' warning: $(oneline "$T/d.err")"
	grep -E '^zram-recompd: (error|warning):' "$T/d.err" | grep -qv 'cannot recompress' &&
		die "errors or warnings: $(grep -E '^zram-recompd: (error|warning):' "$T/d.err" | tr '\n' '|')"
	dstop
}

# vm_rss NAME: the daemon's resident set in KiB (/proc/PID/status VmRSS).
vm_rss() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$(dpid "$1")/status"
}

# No device cap (issue 24 #7): 200 devices, as Ubuntu's zram-config makes on a 200-CPU
# machine, created in a shuffled order, are all managed, announced in numeric order (zram2
# before zram10), each gets passes and its own line in the state file; a second daemon with
# one device gives the memory each further device costs (docs/performance.md, section 10).
t_many_devices() {
	local i n rss1 rss200 per
	fr_new "$R" "$VER"
	for i in $(seq 0 199 | shuf --random-source=<(yes)); do
		fr_dev "$R" "$VER" "$i"
	done
	conf "[global]" "interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
		"cpu-share-max-percent = 0"
	dstart
	wait_for 20000 grep -q '^zram-recompd: zram199: managed (initialized)' "$T/d.err" ||
		die "zram199 not managed in 20 s; stderr: $(oneline "$T/d.err")"
	grep -oE '^zram-recompd: zram[0-9]+: managed' "$T/d.err" | grep -oE 'zram[0-9]+' >"$T/order"
	seq 0 199 | sed 's/^/zram/' >"$T/want"
	cmp -s "$T/order" "$T/want" || die "not managed in numeric order: $(oneline "$T/order")"
	# every device has had a pass (they are due together: 200 passes in a row)
	for i in 0 2 10 63 64 199; do
		wait_for 60000 at_least 1 "$T/d.err" "^zram-recompd: zram$i: pass:" ||
			die "no pass on zram$i in 60 s; stderr: $(oneline "$T/d.err")"
	done
	wait_for 60000 at_least 200 "$T/d.err" '^zram-recompd: zram[0-9]+: pass:' ||
		die "fewer than 200 passes in 60 s: $(count "$T/d.err" ': pass:')"
	rss200=$(vm_rss d)
	grep -q 'warning\|error' "$T/d.err" && die "warnings or errors: $(grep 'warning\|error' "$T/d.err" | head -3 | tr '\n' '|')"
	dstop
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"
	n=$(sed 1d "$T/d.state/state" | wc -l)
	[ "$n" = 200 ] || die "state file has $n devices, not 200"
	[ "$(recompress_count 150)" -ge 1 ] || die "zram150: no recompress written"
	# the same with one device
	R=$T/root1
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0
	dstart -n one -r "$R"
	wait_for 20000 at_least 1 "$T/one.err" '^zram-recompd: zram0: pass:' ||
		die "one device: no pass in 20 s; stderr: $(oneline "$T/one.err")"
	rss1=$(vm_rss one)
	dstop one
	per=$(((rss200 - rss1) / 199))
	echo "VmRSS: 1 device $rss1 KiB, 200 devices $rss200 KiB: $per KiB per device" >"$T/rss"
	cat "$T/rss" >&2
	# the sanitizer builds shadow every byte: no bound there
	[ "$SLOW" = 1 ] || return 0
	[ "$per" -le 32 ] || die "$(cat "$T/rss"); more than 32 KiB per device"
}

# The sandbox's rules are the zram devices' own directories, not their parent, which holds
# loop, dm and md devices too: a write the daemon makes to zram0/idle, here a link to a loop
# device's attribute beside it, fails with EACCES and leaves that attribute as it was; with
# --no-sandbox the same write reaches it (the link is followed inside the root).
sandbox_loop_run() {
	local name=$1 lo=$R/sys/devices/virtual/block/loop0/queue/read_ahead_kb
	shift
	new_root
	mkdir -p "${lo%/*}"
	printf '128\n' >"$lo"
	rm -f "$(attr 0 idle)"
	ln -s ../loop0/queue/read_ahead_kb "$(attr 0 idle)"
	conf "${BASE_CONF[@]}"
	dstart -n "$name" "$@"
	wait_for 8000 at_least 1 "$T/$name.err" 'zram0: pass:' ||
		die "$name: no pass; stderr: $(oneline "$T/$name.err")"
	dstop "$name"
}

t_sandbox_not_loop() {
	local lo=$R/sys/devices/virtual/block/loop0/queue/read_ahead_kb
	sandbox_loop_run d
	grep -q 'running on Linux .*; writes confined by Landlock' "$T/d.err" ||
		die "not sandboxed: $(grep -m1 'running on' "$T/d.err")"
	[ "$(cat "$lo")" = 128 ] || die "the loop device's attribute was written: $(oneline "$lo")"
	grep -q '^zram-recompd: error: zram0: idle: not writable (Permission denied)' "$T/d.err" ||
		die "no EACCES for the write through zram0/idle: $(oneline "$T/d.err")"
	sandbox_loop_run n -a --no-sandbox
	grep -q '^all' "$lo" || die "--no-sandbox: the write did not reach the link: $(oneline "$lo")"
}

# A zram device added after the start (or removed and added again) has no rule, and
# Landlock cannot add one: the daemon saves its state and exits 75 (the unit restarts it on
# that status); started again it manages the device. The first daemon never writes it.
sandbox_added_exit() { # ID
	dwait 8000 || die "the daemon did not exit for zram$1; stderr: $(oneline "$T/d.err")"
	[ "$DRC" = 75 ] || die "exit code $DRC, expected 75; stderr: $(oneline "$T/d.err")"
	grep -q "^zram-recompd: zram$1: appeared after the sandbox was set up, which cannot be widened; exiting with status 75 to be restarted with it\$" \
		"$T/d.err" || die "no notice for zram$1: $(oneline "$T/d.err")"
	state_valid d || die "state file invalid: $(oneline "$T/d.state/state")"
	[ "$(state_field zram0 passes)" = "$(($2 + $(passes_logged zram0)))" ] ||
		die "zram0's passes not saved: $(oneline "$T/d.state/state")"
}

t_sandbox_device_added() {
	local a
	new_root
	conf "${BASE_CONF[@]}"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass on zram0; stderr: $(oneline "$T/d.err")"
	fr_dev "$R" "$VER" 1 link=none
	ln -s ../devices/virtual/block/zram1 "$R/sys/block/zram1"
	sandbox_added_exit 1 0
	for a in recompress idle compact; do
		[ ! -s "$(attr 1 $a)" ] || die "zram1 $a written: $(oneline "$(attr 1 $a)")"
	done
	p0=$(state_field zram0 passes)
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram1: pass:' ||
		die "the restarted daemon made no pass on zram1; stderr: $(oneline "$T/d.err")"
	grep -q '^type=idle priority=1 ' "$(attr 1 recompress)" ||
		die "zram1 recompress: $(oneline "$(attr 1 recompress)")"
	# zram1 removed and added again: a new directory, without a rule.
	rm_dev 1
	fr_dev "$R" "$VER" 1 link=none
	ln -s ../devices/virtual/block/zram1 "$R/sys/block/zram1"
	sandbox_added_exit 1 "$p0"
}

# A device that comes and goes while adopt runs (its temporary device) is no reason to restart:
# the sandboxed daemon leaves it alone, keeps running, and never says it appeared.
t_sandbox_adopt_temp() {
	new_root
	conf "${BASE_CONF[@]}"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass on zram0; stderr: $(oneline "$T/d.err")"
	grep -q 'writes confined by Landlock' "$T/d.err" ||
		die "not sandboxed, nothing to show; stderr: $(oneline "$T/d.err")"
	hold_lock adopt
	fr_dev "$R" "$VER" 1 link=none
	ln -s ../devices/virtual/block/zram1 "$R/sys/block/zram1"
	wait_for 8000 at_least 3 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no passes on zram0 while adopt runs; stderr: $(oneline "$T/d.err")"
	dalive || die "the daemon ended while adopt ran; stderr: $(oneline "$T/d.err")"
	rm_dev 1
	release_lock adopt
	sleep $((2 * SLOW))
	dalive || die "the daemon ended after adopt; stderr: $(oneline "$T/d.err")"
	dstop
	! grep -q 'appeared after the sandbox' "$T/d.err" ||
		die "restart for adopt's temporary device: $(oneline "$T/d.err")"
}

# hold_lock NAME: hold run/zram-recompd/lock/NAME of this test's root exclusively, as adopt
# does (a root-owned 0600 file in a 0700 directory); the holder's pid in $T/lock.NAME.pid.
hold_lock() {
	local d=$R/run/zram-recompd/lock
	mkdir -p -m 0700 "$R/run/zram-recompd" "$d"
	install -m 0600 /dev/null "$d/$1"
	flock -x -n "$d/$1" sh -c "echo \$\$ >'$T/lock.$1.pid'; exec sleep 600" &
	echo $! >>"$T/pids"
	wait_for 5000 test -s "$T/lock.$1.pid" || die "could not hold the lock $1"
}

# release_lock NAME: end the holder.
release_lock() {
	kill "$(cat "$T/lock.$1.pid")"
}

# While adopt holds a device's lock the daemon writes nothing to it (no pass, no setup of an
# uninitialized device while "adopt" is held too), says so once, and resumes after.
t_adopt_lock_held() {
	local a ra n
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0
	fr_dev "$R" "$VER" 1 init=0 recomp=""
	ra=$(attr 1 recomp_algorithm)
	n=$(wc -l <"$ra")
	hold_lock zram0
	hold_lock adopt
	conf "${BASE_CONF[@]}" "recompress-algorithms = zstd"
	dstart
	wait_for 5000 at_least 1 "$T/d.err" 'zram1: adopt holds the lock' ||
		die "zram1 not left alone; stderr: $(oneline "$T/d.err")"
	sleep $((3 * SLOW))
	dalive || die "daemon died; stderr: $(oneline "$T/d.err")"
	for a in recompress idle compact algorithm_params; do
		[ ! -s "$(attr 0 $a)" ] ||
			die "zram0 $a written while its lock was held: $(oneline "$(attr 0 $a)")"
	done
	[ "$(wc -l <"$ra")" = "$n" ] ||
		die "zram1 configured while adopt's lock was held: $(oneline "$ra")"
	[ "$(count "$T/d.err" 'zram0: adopt holds the lock /run/zram-recompd/lock/zram0: left alone until it is done$')" = 1 ] ||
		die "not said once: $(oneline "$T/d.err")"
	release_lock zram0
	wait_for 8000 at_least 1 "$(attr 0 recompress)" . ||
		die "no pass after the lock was released; stderr: $(oneline "$T/d.err")"
	grep -q 'zram0: lock released: passes resume$' "$T/d.err" || die "no resume line"
	[ "$(wc -l <"$ra")" = "$n" ] || die "zram1 configured while 'adopt' was held: $(oneline "$ra")"
	release_lock adopt
	wait_for 8000 at_least $((n + 1)) "$ra" . ||
		die "zram1 not configured after the release; stderr: $(oneline "$T/d.err")"
	dstop
}

# --once holds "adopt" shared for its run: while adopt holds it, --once waits (10 s), then
# exits 1 having written nothing; released during the wait, it goes on and sets up zram1.
t_once_waits_for_adopt() {
	local ra n t0 rc
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0
	fr_dev "$R" "$VER" 1 init=0 recomp=""
	ra=$(attr 1 recomp_algorithm)
	n=$(wc -l <"$ra")
	conf "${BASE_CONF[@]}" "recompress-algorithms = zstd"
	hold_lock adopt
	now_ms
	t0=$NOW
	rc=0
	ZRAM_RECOMPD_STATE_DIR=$T/o.state "$BIN" --sysroot "$R" --config "$T/conf" --once \
		>"$T/o1.out" 2>"$T/o1.err" || rc=$?
	now_ms
	[ "$rc" = 1 ] || die "--once exited $rc while adopt held its lock: $(oneline "$T/o1.err")"
	[ $((NOW - t0)) -ge 9500 ] || die "--once waited only $((NOW - t0)) ms"
	grep -q 'adopt: held for 10 s: an adopt is running; nothing set up and no pass now$' \
		"$T/o1.err" || die "stderr: $(oneline "$T/o1.err")"
	[ ! -s "$(attr 0 recompress)" ] && [ ! -s "$(attr 0 idle)" ] && [ "$(wc -l <"$ra")" = "$n" ] ||
		die "--once wrote while adopt held its lock"
	(sleep 2 && release_lock adopt) &
	echo $! >>"$T/pids"
	ZRAM_RECOMPD_STATE_DIR=$T/o.state "$BIN" --sysroot "$R" --config "$T/conf" --once \
		>"$T/o2.out" 2>"$T/o2.err" ||
		die "--once failed after the release: $(oneline "$T/o2.err")"
	[ "$(wc -l <"$ra")" -gt "$n" ] && [ -s "$(attr 0 recompress)" ] ||
		die "--once did nothing after the release: $(oneline "$T/o2.err")"
	# Its totals in this test's directory (the default would be the machine's own).
	grep -q '^zram0 passes=1 ' "$T/o.state/state" || die "no state in $T/o.state"
}

# recompress_count ID: commands written to zramID's recompress.
recompress_count() {
	wc -l <"$(attr "$1" recompress)"
}

TESTS=(passes_happen sighup_reload sighup_search_path sigterm_mid_pass device_removed_mid_pass
	metrics_while_other_runs stale_temps_removed device_added
	device_readded
	uninitialized_then_initialized backoff bad_config_exit state_corrupt state_persists
	writeback_budget writeback_crash_reserved sigterm_queued_released backing_noted_once
	wb_no_ages_once
	sandbox_sighup_metrics sandbox_not_loop sandbox_device_added sandbox_adopt_temp loop_priority ripen_pressure burst_age burst_churn burst_look burst_one_pass burst_lasts huge_waits config_notes many_devices another_tool_sets_up
	caps_ubuntu_writeback caps_ubuntu_nothing caps_fedora caps_adopted caps_algos_differ caps_algos_invalid caps_effect_said adopt_lock_held
	adopt_algos_quiet adopt_reach_quiet once_waits_for_adopt)

selected() {
	local pat
	[ $# -eq 1 ] && return 0
	for pat in "${@:2}"; do
		case $1 in *"$pat"*) return 0 ;; esac
	done
	return 1
}

# run_test NAME: runs t_NAME in a subshell; leaves "PASS NAME" or "FAIL NAME: reason" in
# $TMP/NAME/result.
run_test() {
	local name=$1 rc reason
	T=$TMP/$name
	mkdir -p "$T"
	: >"$T/pids"
	(
		R=$T/root
		echo "$BASHPID" >"$T/runner"
		trap test_cleanup EXIT
		trap 'exit 1' TERM
		"t_$name"
	) 3>"$T/reason" >"$T/test.log" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "PASS $name" >"$T/result"
	else
		reason=$(head -c 1500 "$T/reason" | tr '\n' ' ')
		[ -n "$reason" ] || reason="exit code $rc; $(oneline "$T/test.log")"
		echo "FAIL $name: $reason" >"$T/result"
	fi
}

RUN=()
for name in "${TESTS[@]}"; do
	selected "$name" "$@" || continue
	RUN+=("$name")
	if [ "${SERIAL:-0}" = 1 ]; then
		run_test "$name"
		cat "$TMP/$name/result"
	else
		run_test "$name" &
	fi
done
wait

NPASS=0
NFAIL=0
for name in "${RUN[@]}"; do
	if [ ! -e "$TMP/$name/result" ]; then
		echo "FAIL $name: test runner died"
		NFAIL=$((NFAIL + 1))
		continue
	fi
	[ "${SERIAL:-0}" = 1 ] || cat "$TMP/$name/result"
	case $(cat "$TMP/$name/result") in
	PASS*) NPASS=$((NPASS + 1)) ;;
	*) NFAIL=$((NFAIL + 1)) ;;
	esac
done
echo "daemon: $NPASS passed, $NFAIL failed"
[ "$NFAIL" -eq 0 ]
