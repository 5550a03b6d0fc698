#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ThreadSanitizer tier: the daemon tier (tests/daemon/run.sh) and a short soak
# (tests/daemon/soak.sh: TSAN_SOAK_SECONDS, default 30, with 8 devices, hot add/remove, SIGHUP
# every 2 s, a metrics file) run from $BUILDDIR (default build-tsan: make SANITIZE=thread).
# Every daemon process writes its TSan reports to a file of its own (log_path) and stops at the
# first one with exit code 66 (halt_on_error), which also fails the test that ran it. One more
# check, "no-tsan-reports", fails when any report file exists, and prints the reports' heads.
# Ends with "daemon-tsan: N passed, N failed" (the two runners' counts and that check).
# A daemon test that fails is run a second time (see below).
# About 30 s for the daemon tests plus TSAN_SOAK_SECONDS on two cores.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILDDIR=${BUILDDIR:-build-tsan}
case $BUILDDIR in
/*) BIN=$BUILDDIR/zram-recompd ;;
*) BIN=$PWD/$BUILDDIR/zram-recompd ;;
esac
if ! grep -q __tsan_init "$BIN" 2>/dev/null; then
	echo "FAIL setup: $BIN is missing or not built with ThreadSanitizer (make SANITIZE=thread)"
	echo "daemon-tsan: 0 passed, 1 failed"
	exit 1
fi

LOG=$(mktemp -d "${TMPDIR:-/tmp}/zr-tsan.XXXXXX") || exit 1
trap 'rm -rf "$LOG"' EXIT
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 log_path=$LOG/report"

P=0
F=0
# run NAME CMD...: runs a tier runner, shows its lines but the summary, adds its counts.
run() {
	local name=$1 line p f
	shift
	"$@" >"$LOG/$name.out" 2>&1
	grep -vE '^[a-z-]+: [0-9]+ passed, [0-9]+ failed' "$LOG/$name.out"
	line=$(grep -E '^[a-z-]+: [0-9]+ passed, [0-9]+ failed' "$LOG/$name.out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $name: no summary line"
		F=$((F + 1))
		return
	fi
	p=$(sed -E 's/^[a-z-]+: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/^[a-z-]+: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
	P=$((P + p))
	F=$((F + f))
}

# The daemon tests bound times (a SIGTERM obeyed within the pass's next write, backoff gaps)
# that a loaded machine running the TSan build, several times slower, misses now and then:
# a failed test is run once more, alone, and its second result counts. A TSan report is never
# retried away: every run's reports stay in $LOG and fail no-tsan-reports below.
env BUILDDIR="$BUILDDIR" tests/daemon/run.sh >"$LOG/daemon1.out" 2>&1
failed=$(sed -nE 's/^FAIL ([a-z_]+):.*/\1/p' "$LOG/daemon1.out")
if [ -n "$failed" ] && grep -qE '^daemon: [0-9]+ passed' "$LOG/daemon1.out"; then
	grep -E '^FAIL ' "$LOG/daemon1.out" | sed 's/^/first run: /'
	grep -vE '^(FAIL |daemon: [0-9]+ passed)' "$LOG/daemon1.out"
	# shellcheck disable=SC2086 # test names, one word each
	run daemon-retry env BUILDDIR="$BUILDDIR" SERIAL=1 tests/daemon/run.sh $failed
	P=$((P + $(sed -nE 's/^daemon: ([0-9]+) passed.*/\1/p' "$LOG/daemon1.out")))
else
	run daemon cat "$LOG/daemon1.out"
fi
run soak env BUILDDIR="$BUILDDIR" SOAK_SECONDS="${TSAN_SOAK_SECONDS:-30}" SOAK_DEVICES=8 \
	tests/daemon/soak.sh

reports=$(find "$LOG" -name 'report.*' -type f | sort)
if [ -z "$reports" ]; then
	echo "PASS no-tsan-reports"
	P=$((P + 1))
else
	for r in $reports; do
		echo "--- $r"
		head -n 40 "$r"
	done
	echo "FAIL no-tsan-reports: $(wc -w <<<"$reports") process(es) reported"
	F=$((F + 1))
fi
echo "daemon-tsan: $P passed, $F failed"
[ "$F" -eq 0 ]
