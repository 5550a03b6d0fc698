#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Strace tier: runs $BUILDDIR/zram-recompd (default build/) under strace on fake roots
# (build_version_root of tests/fakesys/lib.sh) and checks at the system-call level
#   * the write allowlist: a full --once and a daemon run (passes, SIGHUP, SIGTERM) on 6.12 and
#     7.3 roots open for writing only allowlisted zram attributes, proc/pressure/{cpu,memory},
#     the state directory's files and the metrics file, and open nothing outside the root but
#     the explicit list of check_trace.py (libraries, locale, boot id), the configuration, the
#     state directory and the metrics directory;
#   * openat2 failing with ENOSYS: a non-"/" root is refused and nothing is written;
#   * fault injection (strace -e inject=SYSCALL:error=ERRNO[:when=N]) into fsync, write
#     (ENOSPC on the state and the metrics temp file), fchmod, renameat, openat2 (EACCES) and
#     getdents64 (EIO): exactly one message line naming the file and the reason, the previous
#     state/metrics file intact, no temp file left, and --once's documented exit code or a
#     daemon that goes on with its passes.
# One line per test ("PASS name" / "FAIL name: reason"), then "strace: N passed, N failed"
# (", N skipped" when strace is missing or ptrace is not permitted). Takes about 15 s.
#
#   tests/strace/run.sh NAME...     only tests whose name contains one of NAME
#   KEEP=1 tests/strace/run.sh      keep the temporary directory (printed)
#
# Needs bash 5, strace (tests/deps.sh test), python3, coreutils, grep.
# Tests run in subshells that set T and R on purpose.
# shellcheck disable=SC2030,SC2031
set -u
cd "$(dirname "$0")/../.." || exit 1
HERE=$PWD/tests/strace
BUILDDIR=${BUILDDIR:-build}
case $BUILDDIR in
/*) BIN=$BUILDDIR/zram-recompd ;;
*) BIN=$PWD/$BUILDDIR/zram-recompd ;;
esac
# shellcheck source=tests/fakesys/lib.sh
. "$PWD/tests/fakesys/lib.sh"

export LC_ALL=C
unset ZRAM_RECOMPD_SYSROOT ZRAM_RECOMPD_STATE_DIR STATE_DIRECTORY JOURNAL_STREAM NOTIFY_SOCKET \
	WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID

NPASS=0
NFAIL=0
if [ ! -x "$BIN" ]; then
	echo "FAIL setup: $BIN not found (build it: make $BUILDDIR/zram-recompd)"
	echo "strace: 0 passed, 1 failed"
	exit 1
fi
if ! command -v strace >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP strace tier: strace or python3 missing (tests/deps.sh test)"
	echo "strace: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
if ! strace -qq -o /dev/null true 2>/dev/null; then
	echo "SKIP strace tier: ptrace is not permitted here"
	echo "strace: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/zr-strace.XXXXXX") || exit 1
# tmpfs for dict_once (zstd-dictionary refuses other file systems), gone with $TMP
DSHM=$(mktemp -d /dev/shm/zr-strace.XXXXXX 2>/dev/null) || DSHM=
if [ "${KEEP:-0}" = 1 ]; then
	echo "keeping $TMP ${DSHM:+and $DSHM}"
else
	trap 'rm -rf "$TMP" ${DSHM:+"$DSHM"}' EXIT
fi
trap 'exit 130' INT TERM

# The system calls traced (trace.set, shared with the VM's strace_allowlist scenario):
# everything that names a file, every way to write or change a file through a descriptor,
# what the faults are injected into, and the Landlock calls of the sandbox.
TRACE=$(cat "$HERE/trace.set")

# ---------------------------------------------------------------------------------------------
# Framework: each test runs in a subshell in its own directory $T; die leaves the reason on fd 3.

die() {
	printf '%s\n' "$*" >&3
	exit 1
}

oneline() {
	if [ -e "$1" ]; then tr '\n' '|' <"$1" | cut -c1-300; else printf '(no %s)' "${1##*/}"; fi
}

FILTER=("$@")

# run_test NAME FUNCTION [ARG...]: starts the test in the background (they mostly wait for
# strace and the daemon's timers); finish prints the results in order.
TESTS=()
run_test() {
	local name=$1 fn=$2 f hit
	shift 2
	if [ ${#FILTER[@]} -gt 0 ]; then
		hit=0
		for f in "${FILTER[@]}"; do
			case $name in *"$f"*) hit=1 ;; esac
		done
		[ $hit = 1 ] || return 0
	fi
	mkdir -p "$TMP/$name"
	(
		T=$TMP/$name
		R=$T/root
		cd "$T" || exit 1
		"$fn" "$@"
	) 3>"$TMP/$name/.reason" >"$TMP/$name/.log" 2>&1 &
	echo $! >"$TMP/$name/.runner"
	TESTS+=("$name")
}

finish() {
	local name rc reason
	for name in "${TESTS[@]}"; do
		wait "$(cat "$TMP/$name/.runner")"
		rc=$?
		if [ $rc = 0 ]; then
			echo "PASS $name"
			NPASS=$((NPASS + 1))
		else
			reason=$(tr '\n' ' ' <"$TMP/$name/.reason" | cut -c1-600)
			[ -n "$reason" ] || reason="test script error (exit $rc): $(oneline "$TMP/$name/.log")"
			echo "FAIL $name: $reason"
			NFAIL=$((NFAIL + 1))
		fi
	done
}

# setup VER [CONF-LINE...]: root $R of kernel VER with PSI files, configuration $T/conf with a
# metrics file $T/m/zr.prom; the state directory $T/st does not exist yet.
setup() {
	local ver=$1 r
	shift
	build_version_root "$R" "$ver"
	mkdir -p "$R/proc/pressure" "$T/m"
	for r in cpu memory; do
		printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
			>"$R/proc/pressure/$r"
	done
	{
		echo "[global]"
		echo "metrics-file = $T/m/zr.prom"
		case $ver in 6.15 | 7.3) echo "recompress-algorithms = zstd deflate" ;; esac
		printf '%s\n' "$@"
	} >"$T/conf"
}

# once [STRACE-OPTION...]: --once under strace; trace $T/trace, stdout $T/out, stderr $T/err,
# exit code RC. strace exits with the traced program's code.
once() {
	ZRAM_RECOMPD_STATE_DIR=$T/st timeout -k 5 60 strace -f -qq -y -e "trace=$TRACE" \
		-o "$T/trace" "$@" -- "$BIN" --sysroot "$R" --config "$T/conf" --once \
		>"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" != 124 ] || die "--once under strace did not finish within 60 s"
}

# plain_once: --once without strace (to have a previous state and metrics file).
plain_once() {
	ZRAM_RECOMPD_STATE_DIR=$T/st timeout -k 5 60 "$BIN" --sysroot "$R" --config "$T/conf" \
		--once >/dev/null 2>"$T/err0" || die "plain --once failed: $(oneline "$T/err0")"
}

# allowlist: the trace obeys check_trace.py's rules; written paths in $T/writes.
allowlist() {
	python3 "$HERE/check_trace.py" "$T/trace" --root "$R" --state "$T/st" \
		--metrics "$T/m/zr.prom" --read "$T/conf" --writes "$T/writes" >"$T/violations" 2>&1 ||
		die "allowlist: $(oneline "$T/violations")"
}

# sandboxed_first: the Landlock sandbox was in place (landlock_restrict_self returned 0)
# before the first write-open of a zram attribute; where the kernel has no Landlock (the
# version probe fails), that failure is all the trace may show of it.
sandboxed_first() {
	awk '
		/landlock_create_ruleset\(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION\) = -1/ { none = 1 }
		/landlock_restrict_self\(.*\) = 0/ && !r { r = NR }
		/openat2\(.*"sys\/block\/zram[0-9]+\/[a-z_]+", \{flags=O_WRONLY/ && !w { w = NR }
		END {
			if (none && !r) exit 0
			if (!r) { print "no successful landlock_restrict_self"; exit 1 }
			if (w && w < r) { print "a zram attribute opened for writing before the sandbox"; exit 1 }
		}' "$T/trace" >"$T/sandbox.why" || die "sandbox: $(oneline "$T/sandbox.why")"
}

expect_rc() {
	[ "$RC" = "$1" ] || die "exit code $RC, expected $1; stderr: $(oneline "$T/err")"
}

# expect_lines FILE LINE...: FILE holds exactly these lines.
expect_lines() {
	local f=$1
	shift
	printf '%s\n' "$@" >"$T/.want"
	cmp -s "$f" "$T/.want" || die "${f##*/}: got '$(oneline "$f")', expected '$(oneline "$T/.want")'"
}

# no_temps: no temp file left in the state or the metrics directory.
no_temps() {
	local left
	left=$(find "$T/st" "$T/m" -name '*.tmp*' 2>/dev/null)
	[ -z "$left" ] || die "temp files left: $left"
}

# keep_prev: copies of the current state and metrics files; intact NAME...: unchanged since.
keep_prev() {
	cp "$T/st/state" "$T/state.prev" || die "no previous state file"
	cp "$T/m/zr.prom" "$T/prom.prev" || die "no previous metrics file"
}
intact() {
	local n
	for n in "$@"; do
		case $n in
		state) cmp -s "$T/st/state" "$T/state.prev" || die "state file changed: $(oneline "$T/st/state")" ;;
		metrics) cmp -s "$T/m/zr.prom" "$T/prom.prev" || die "metrics file changed" ;;
		esac
	done
}
replaced() {
	local n
	for n in "$@"; do
		case $n in
		state)
			! cmp -s "$T/st/state" "$T/state.prev" || die "state file not replaced"
			head -n 1 "$T/st/state" | grep -q '^zram-recompd-state ' || die "state file torn"
			;;
		metrics)
			! cmp -s "$T/m/zr.prom" "$T/prom.prev" || die "metrics file not replaced"
			tail -c 1 "$T/m/zr.prom" | od -An -c | grep -q '\\n' || die "metrics file torn"
			;;
		esac
	done
}

# nth CALL REGEX: 1-based index, among the CALL lines of $T/trace, of the first that matches
# REGEX (for when=N of the next, injected, run: --once makes the same calls in the same order).
nth() {
	awk -v call="$1" -v re="$2" '
		{ sub(/^[0-9]+ +/, "") }
		index($0, call "(") == 1 { n++; if ($0 ~ re) { print n; found = 1; exit } }
		END { if (!found) exit 1 }' "$T/trace"
}

# ---------------------------------------------------------------------------------------------
# 1. Allowlist: --once and a daemon run.

t_allow_once() {
	setup "$1"
	fr_snapshot "$R" >"$T/before"
	once
	expect_rc 0
	allowlist
	expect_lines "$T/writes" metrics:zr.prom metrics:zr.prom.tmpXXXXXX \
		root:sys/block/zram0/compact root:sys/block/zram0/idle root:sys/block/zram0/recompress \
		state:. state:state state:state.tmpXXXXXX
	fr_snapshot "$R" >"$T/after"
	fr_changed "$T/before" "$T/after" >"$T/changed"
	expect_lines "$T/changed" sys/devices/virtual/block/zram0/compact \
		sys/devices/virtual/block/zram0/idle sys/devices/virtual/block/zram0/recompress
	no_temps
	sandboxed_first
}

# dstart [STRACE-OPTION...]: the daemon under strace in the background; DPID is the daemon's
# pid (the first pid of the trace), $T/d.rc its exit code when it ends.
dstart() {
	(
		ZRAM_RECOMPD_STATE_DIR=$T/st strace -f -qq -y -e "trace=$TRACE" -o "$T/trace" "$@" \
			-- "$BIN" --sysroot "$R" --config "$T/conf" </dev/null >"$T/out" 2>"$T/err"
		echo $? >"$T/d.rc"
	) &
	SPID=$!
	echo "$SPID" >>"$T/pids"
	wait_for 100 test -s "$T/trace" || die "strace did not start"
	DPID=$(awk 'NR == 1 { print $1 }' "$T/trace")
	echo "$DPID" >>"$T/pids"
}

# wait_for TENTHS CMD...: poll CMD every 0.1 s, at most TENTHS times.
wait_for() {
	local i
	for ((i = 0; i < $1; i++)); do
		"${@:2}" && return 0
		sleep 0.1
	done
	return 1
}

# lines_ge N REGEX: at least N lines of the daemon's stderr match.
lines_ge() {
	[ "$(grep -cE -- "$2" "$T/err")" -ge "$1" ]
}

# dstop: SIGTERM, then the daemon's exit code in RC.
dstop() {
	kill -TERM "$DPID" 2>/dev/null || die "daemon not running: $(oneline "$T/err")"
	wait_for 100 test -s "$T/d.rc" || die "daemon did not stop within 10 s of SIGTERM"
	RC=$(cat "$T/d.rc")
}

# Every test's processes end with it (by pid: the daemon, then its strace).
end_pids() {
	local p
	[ -e "$T/pids" ] || return 0
	while read -r p; do
		kill -KILL "$p" 2>/dev/null
	done <"$T/pids"
}

# With interval-sec = 1 the daemon is in a pass most of the time, so dstop's SIGTERM may land
# in one (more often on a loaded host): its line then says "pass (interrupted):", no warning.
PASS_RE='^zram-recompd: zram0: pass: '

t_allow_daemon() {
	trap end_pids EXIT
	setup "$1" "interval-sec = 1" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
		"cpu-share-max-percent = 0"
	dstart
	wait_for 60 lines_ge 1 "$PASS_RE" || die "no first pass: $(oneline "$T/err")"
	kill -HUP "$DPID"
	wait_for 30 lines_ge 1 '^zram-recompd: configuration reloaded$' ||
		die "no reload: $(oneline "$T/err")"
	wait_for 60 lines_ge 2 "$PASS_RE" || die "no pass after SIGHUP: $(oneline "$T/err")"
	dstop
	RC=$RC expect_rc 0
	grep -E -v '^zram-recompd: (zram0: (managed|pass( \(interrupted\))?:)|zram-recompd .* running on|configuration reloaded$|stopping \(signal 15\)$)' \
		"$T/err" >"$T/unexpected" || true
	[ ! -s "$T/unexpected" ] || die "unexpected messages: $(oneline "$T/unexpected")"
	allowlist
	expect_lines "$T/writes" metrics:zr.prom metrics:zr.prom.tmpXXXXXX \
		root:proc/pressure/cpu root:proc/pressure/memory \
		root:sys/block/zram0/compact root:sys/block/zram0/idle root:sys/block/zram0/recompress \
		state:. state:state state:state.tmpXXXXXX
	no_temps
	sandboxed_first
}

# The checker itself finds what it must: a write-open of a non-allowlisted attribute, an
# allowlisted name resolving outside, a read outside the root, a rename outside the state
# directory, a write to a descriptor of a file not opened for writing.
t_checker_catches() {
	setup 6.12
	cat >"$T/trace" <<TRACE
10 openat2(3<$R>, "sys/block/zram0/disksize", {flags=O_WRONLY|O_APPEND, resolve=RESOLVE_IN_ROOT}, 24) = 5<$R/sys/devices/virtual/block/zram0/disksize>
10 openat2(3<$R>, "sys/block/zram0/recompress", {flags=O_WRONLY|O_APPEND, resolve=RESOLVE_IN_ROOT}, 24) = 6</etc/passwd>
10 openat(AT_FDCWD</>, "/etc/shadow", O_RDONLY|O_CLOEXEC) = -1 EACCES (Permission denied)
10 renameat(4</tmp>, "x.tmp", 4</tmp>, "x") = 0
10 write(7<$R/sys/devices/virtual/block/zram0/reset>, "1\n", 2) = 2
10 openat(AT_FDCWD</>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache>
TRACE
	if python3 "$HERE/check_trace.py" "$T/trace" --root "$R" --state "$T/st" \
		--metrics "$T/m/zr.prom" --read "$T/conf" >"$T/violations"; then
		die "no violation found"
	fi
	expect_lines "$T/violations" \
		"write-open outside the allowlist: $(sed -n 1p "$T/trace")" \
		"write-open resolved outside: $(sed -n 2p "$T/trace")" \
		"open outside the root: $(sed -n 3p "$T/trace")" \
		"renameat outside the allowlist: $(sed -n 4p "$T/trace")" \
		"write to a file outside the allowlist: $(sed -n 5p "$T/trace")"
}

# The checker on the real root "/" (the VM tier): allowlisted attributes are recognized, and
# with --root-read only those subdirectories count as inside the root for reads.
t_checker_real_root() {
	mkdir -p "$T/st" "$T/m"
	cat >"$T/trace" <<TRACE
10 openat2(3</>, "sys/block/zram0/recompress", {flags=O_WRONLY|O_APPEND, resolve=RESOLVE_IN_ROOT}, 24) = 5</sys/devices/virtual/block/zram0/recompress>
10 openat2(3</>, "proc/meminfo", {flags=O_RDONLY, resolve=RESOLVE_IN_ROOT}, 24) = 6</proc/meminfo>
10 openat(AT_FDCWD</>, "/etc/shadow", O_RDONLY|O_CLOEXEC) = 7</etc/shadow>
10 openat2(3</>, "etc/passwd", {flags=O_WRONLY|O_APPEND, resolve=RESOLVE_IN_ROOT}, 24) = 8</etc/passwd>
10 openat(AT_FDCWD</>, "$T/st/state.tmpAbC123", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0644) = 9<$T/st/state.tmpAbC123>
TRACE
	if python3 "$HERE/check_trace.py" "$T/trace" --root / --root-read sys --root-read proc \
		--state "$T/st" --metrics "$T/m/zr.prom" --writes "$T/writes" >"$T/violations"; then
		die "no violation found"
	fi
	expect_lines "$T/violations" \
		"open outside the root: $(sed -n 3p "$T/trace")" \
		"write-open outside the allowlist: $(sed -n 4p "$T/trace")"
	expect_lines "$T/writes" root:sys/block/zram0/recompress state:state.tmpXXXXXX
}

# 2. openat2 missing (kernels before 5.6): with a non-"/" root, refused, nothing written. The 7.0
# root's sys/block/zram0 is an absolute symlink: plain openat() would leave the root through it.
t_enosys_openat2() {
	setup 7.0
	fr_snapshot "$R" >"$T/before"
	once -e inject=openat2:error=ENOSYS
	expect_rc 1
	expect_lines "$T/err" \
		"zram-recompd: error: /proc/sys/kernel/osrelease: cannot read the kernel release: Function not implemented"
	allowlist
	[ ! -s "$T/writes" ] || die "wrote $(oneline "$T/writes")"
	fr_snapshot "$R" >"$T/after"
	cmp -s "$T/before" "$T/after" || die "the root changed"
	# No fallback: nothing below the root is opened without openat2 (the root itself is
	# opened with open(2), O_PATH).
	grep -E '^[0-9]+ +(open|openat)\(' "$T/trace" | sed 's/) *= .*//' |
		grep -F -e "<$R>" -e "<$R/" -e "\"$R/" >"$T/fallback"
	[ ! -s "$T/fallback" ] || die "opened inside the root without openat2: $(oneline "$T/fallback")"
	[ ! -e "$T/st" ] || [ -z "$(ls -A "$T/st")" ] || die "state written: $(ls "$T/st")"
	[ ! -e "$T/m/zr.prom" ] || die "metrics file written"
}

# 3. Faults in saving the state and the metrics file (--once: warnings, exit 0).

# fault_once WHICH-INTACT... -- STRACE-OPTION...: a previous state and metrics file, then --once
# with the fault; exit 0, no temp file, the named files intact.
fault_once() {
	setup 6.12
	plain_once
	keep_prev
	once "$@"
	expect_rc 0
	allowlist
	no_temps
}

STATE_MSG() { printf 'zram-recompd: warning: %s/st/state: cannot save: %s' "$T" "$1"; }
METRICS_MSG() { printf 'zram-recompd: warning: metrics-file %s/m/zr.prom: %s' "$T" "$1"; }

t_fsync_state() {
	# fsync #1: the state's temp file; the old state stays, the metrics file is written.
	fault_once -e inject=fsync:error=EIO:when=1
	expect_lines "$T/err" "$(STATE_MSG "Input/output error")"
	intact state
	replaced metrics
}

t_fsync_state_dir() {
	# fsync #2: the state directory after the rename: the new state is in place (maybe not
	# durable), and said so.
	fault_once -e inject=fsync:error=EIO:when=2
	expect_lines "$T/err" "$(STATE_MSG "Input/output error")"
	replaced state metrics
}

t_fsync_metrics() {
	# fsync #3: the metrics temp file.
	fault_once -e inject=fsync:error=EIO:when=3
	expect_lines "$T/err" "$(METRICS_MSG "Input/output error")"
	replaced state
	intact metrics
}

# ENOSPC on the write of a temp file: found in a first traced run.
t_enospc_state() {
	setup 6.12
	plain_once
	once
	N=$(nth write '^write\([0-9]+</[^>]*/st/state\.tmp') || die "no write of the state temp file"
	keep_prev
	once -e "inject=write:error=ENOSPC:when=$N"
	expect_rc 0
	expect_lines "$T/err" "$(STATE_MSG "No space left on device")"
	intact state
	replaced metrics
	no_temps
}

t_enospc_metrics() {
	setup 6.12
	plain_once
	once
	N=$(nth write '^write\([0-9]+</[^>]*/m/zr\.prom\.tmp') || die "no write of the metrics temp file"
	keep_prev
	once -e "inject=write:error=ENOSPC:when=$N"
	expect_rc 0
	expect_lines "$T/err" "$(METRICS_MSG "No space left on device")"
	replaced state
	intact metrics
	no_temps
}

t_fchmod_state() {
	fault_once -e inject=fchmod:error=EPERM:when=1
	expect_lines "$T/err" "$(STATE_MSG "Operation not permitted")"
	intact state
	replaced metrics
}

t_fchmod_metrics() {
	fault_once -e inject=fchmod:error=EPERM:when=2
	expect_lines "$T/err" "$(METRICS_MSG "Operation not permitted")"
	replaced state
	intact metrics
}

t_rename_state() {
	# renameat or renameat2, whichever the C library uses; each counts its own calls.
	fault_once -e inject=renameat,renameat2:error=EXDEV:when=1
	expect_lines "$T/err" "$(STATE_MSG "Invalid cross-device link")"
	intact state
	replaced metrics
}

t_rename_metrics() {
	fault_once -e inject=renameat,renameat2:error=EXDEV:when=2
	expect_lines "$T/err" "$(METRICS_MSG "Invalid cross-device link")"
	replaced state
	intact metrics
}

# 4. Faults in reaching the kernel's files (--once: exit 1, "a pass failed" / a runtime error).

t_eacces_recompress() {
	setup 6.12
	plain_once
	once
	N=$(nth openat2 '"sys/block/zram0/recompress", \{flags=O_WRONLY') ||
		die "no write-open of recompress"
	cp "$(fr_attr "$R" 0 recompress)" "$T/recompress.prev"
	keep_prev
	once -e "inject=openat2:error=EACCES:when=$N"
	expect_rc 1
	expect_lines "$T/err" "$RECOMPRESS_EACCES_MSG"
	cmp -s "$(fr_attr "$R" 0 recompress)" "$T/recompress.prev" || die "recompress written"
	allowlist
	no_temps
	# The failed pass still counts (as an error) in the totals.
	replaced state metrics
}

t_getdents_eio() {
	setup 6.12
	plain_once
	keep_prev
	fr_snapshot "$R" >"$T/before"
	once -e inject=getdents64:error=EIO
	expect_rc 1
	expect_lines "$T/err" "zram-recompd: error: /sys/block: Input/output error"
	fr_snapshot "$R" >"$T/after"
	cmp -s "$T/before" "$T/after" || die "the root changed"
	allowlist
	intact state metrics
	no_temps
}

# 5. The daemon goes on when saving fails.

t_daemon_fault() {
	local err=$1
	shift
	trap end_pids EXIT
	setup 6.12 "interval-sec = 1" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
		"cpu-share-max-percent = 0"
	plain_once
	keep_prev
	dstart "$@"
	wait_for 80 lines_ge 2 "$PASS_RE" || die "fewer than 2 passes: $(oneline "$T/err")"
	wait_for 30 lines_ge 2 ': cannot save: ' || die "no second warning: $(oneline "$T/err")"
	kill -0 "$DPID" 2>/dev/null || die "daemon gone: $(oneline "$T/err")"
	dstop
	RC=$RC expect_rc 0
	grep -E -v '^zram-recompd: (zram0: (managed|pass( \(interrupted\))?:)|zram-recompd .* running on|stopping \(signal 15\)$)' \
		"$T/err" | sort -u >"$T/warnings"
	printf '%s\n' "$(METRICS_MSG "$err")" "$(STATE_MSG "$err")" | sort >"$T/.want"
	cmp -s "$T/warnings" "$T/.want" ||
		die "messages: got '$(oneline "$T/warnings")', expected '$(oneline "$T/.want")'"
	allowlist
	intact state metrics
	no_temps
}

# adopt --dry-run, and a refused adopt: the figures are read (proc/swaps, meminfo, the device's
# attributes, dev/zram0's header read-only), nothing is opened for writing anywhere.
t_adopt_nowrite() {
	local mode=$1
	setup 7.3
	fr_dev "$R" 7.3 0 recomp="" wb=1 link=none
	mkdir -p "$R/dev" "$R/sys/class/zram-control"
	: >"$R/sys/class/zram-control/hot_add"
	head -c 4096 /dev/zero >"$R/dev/zram0"
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/zram0 partition\t1048572\t102400\t100\n' >"$R/proc/swaps"
	if [ "$mode" = refused ]; then
		fr_meminfo "$R" 2000000 100000
	fi
	ZRAM_RECOMPD_STATE_DIR=$T/st timeout -k 5 60 strace -f -qq -y -e "trace=$TRACE" \
		-o "$T/trace" -- "$BIN" --sysroot "$R" --config "$T/conf" adopt \
		$([ "$mode" = dry ] && echo --dry-run) zram0 >"$T/out" 2>"$T/err"
	RC=$?
	if [ "$mode" = refused ]; then
		expect_rc 5
	else
		expect_rc 0
		grep -q "would swapon /dev/zram0" "$T/out" || die "no dry-run steps: $(oneline "$T/out")"
	fi
	allowlist
	[ ! -s "$T/writes" ] || die "adopt opened for writing: $(oneline "$T/writes")"
	grep -q 'openat2(.*"dev/zram0", {flags=O_RDONLY' "$T/trace" ||
		die "the old swap header was not read from dev/zram0"
}

# zstd-dictionary (issue 28): --once on an uninitialized 7.3 device with a dictionary in a
# tmpfs directory writes recomp_algorithm, algorithm_params and, in that directory only, the
# record (through its temp file); every open there carries O_CLOEXEC (check_trace.py --dict),
# the dictionary is opened read-only, and the sandbox was in place before the first write.
t_dict_once() {
	local D
	[ -n "$DSHM" ] || die "no /dev/shm"
	D=$DSHM/dict
	mkdir "$D" || die "mkdir $D"
	[ "$(stat -f -c %T "$D")" = tmpfs ] || die "/dev/shm is not tmpfs"
	chmod 0700 "$D"
	{
		printf '\067\244\060\354'
		head -c 2044 /dev/zero
	} >"$D/zram0.zdict"
	chmod 0600 "$D/zram0.zdict"
	fr_new "$R" 7.3
	fr_dev "$R" 7.3 0 init=0 recomp=""
	mkdir -p "$T/m"
	printf '%s\n' "[global]" "metrics-file = $T/m/zr.prom" "recompress-algorithms = zstd" \
		"algorithm-params = zstd:level=9" "zstd-dictionary = yes" >"$T/conf"
	ZRAM_RECOMPD_DICT_DIR=$D once
	expect_rc 0
	python3 "$HERE/check_trace.py" "$T/trace" --root "$R" --state "$T/st" \
		--metrics "$T/m/zr.prom" --read "$T/conf" --writes "$T/writes" --dict "$D" \
		>"$T/violations" 2>&1 || die "allowlist: $(oneline "$T/violations")"
	expect_lines "$T/writes" dict:.zram0.zdict.applied.tmp dict:zram0.zdict.applied \
		root:sys/block/zram0/algorithm_params root:sys/block/zram0/recomp_algorithm
	grep -qE "openat2\([0-9]+<$D>, \"zram0.zdict\", \{flags=O_RDONLY\|.*O_CLOEXEC.*RESOLVE_NO_SYMLINKS" \
		"$T/trace" || die "the dictionary was not opened read-only without following symlinks"
	grep -q "priority=1 level=9 dict=$D/zram0.zdict" "$R/sys/devices/virtual/block/zram0/algorithm_params" ||
		die "no dict= written"
	sandboxed_first
}

# The message of t_eacces_recompress, as zram-recompd words a refused attribute.
RECOMPRESS_EACCES_MSG="zram-recompd: error: zram0: recompress: not writable (Permission denied); needs root, a device added after the start of the sandbox needs a restart, and under systemd /sys stays writable only in ReadWritePaths="

for v in 6.12 7.3; do
	run_test "allow_once_$v" t_allow_once "$v"
	run_test "allow_daemon_$v" t_allow_daemon "$v"
done
run_test dict_once t_dict_once
run_test adopt_dry_run t_adopt_nowrite dry
run_test adopt_refused t_adopt_nowrite refused
run_test checker_catches t_checker_catches
run_test checker_real_root t_checker_real_root
run_test enosys_openat2 t_enosys_openat2
run_test fsync_state t_fsync_state
run_test fsync_state_dir t_fsync_state_dir
run_test fsync_metrics t_fsync_metrics
run_test enospc_state t_enospc_state
run_test enospc_metrics t_enospc_metrics
run_test fchmod_state t_fchmod_state
run_test fchmod_metrics t_fchmod_metrics
run_test rename_state t_rename_state
run_test rename_metrics t_rename_metrics
run_test eacces_recompress t_eacces_recompress
run_test getdents_eio t_getdents_eio
run_test daemon_fsync_eio t_daemon_fault "Input/output error" -e inject=fsync:error=EIO
run_test daemon_rename_exdev t_daemon_fault "Invalid cross-device link" \
	-e inject=renameat,renameat2:error=EXDEV

finish
echo "strace: $NPASS passed, $NFAIL failed"
[ "$NFAIL" -eq 0 ]
