#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs test tiers and sums their results into one closing line "N passed, N failed".
# unit also runs tests/house/run.sh (the house's bounds: lines, layers, circles of calls).
# BUILDDIR (default build): the build that unit, house, fakesys, daemon and strace test.
# Usage: tests/check.sh all|deps|unit|fakesys|daemon|strace|cross|san|tsan|deb|vm|fuzz|long
# cross builds for arm64 and armhf (CROSS_ARCHES), runs their unit and fakesys tiers under
# qemu-user and cross-builds their Debian packages (tests/cross/README).
# tsan runs the daemon tier and a 30 s soak from build-tsan (make SANITIZE=thread) and fails on
# any ThreadSanitizer report. long (not in all; make check-long) is the soak test,
# tests/daemon/soak.sh, for SOAK_SECONDS (default 600).
# strace runs the binary under strace (tests/strace/run.sh): the syscall-level write allowlist
# and fault injection; it reports itself skipped where strace or ptrace is unavailable.
# deb builds the Debian package (make deb: dpkg-buildpackage, lintian) and checks it
# (tests/deb/run.sh, etc/debian/README.source); it runs before vm, whose systemd VM boots the
# packaged files.
# fuzz runs every libFuzzer target of tests/fuzz for FUZZ_SECONDS (default 10) seconds from
# FUZZ_BUILDDIR (default build-fuzz; `make fuzz-bins`, which needs clang).
# Every tier runner prints exactly one summary line "<tier>: N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/.." || exit 1

TOTAL_P=0
TOTAL_F=0
TOTAL_S=0
LOGDIR=${TMPDIR:-/tmp}/zram-recompd-check.$$
mkdir -p "$LOGDIR"
trap 'rm -rf "$LOGDIR"' EXIT

# Add the numbers of a tier summary line from file $1.
account() {
	line=$(grep -E '^[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		echo "check: $2 printed no summary line: counted as 1 failure"
		TOTAL_F=$((TOTAL_F + 1))
		return
	fi
	p=$(echo "$line" | sed -E 's/^[a-z0-9-]+: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/^[a-z0-9-]+: [0-9]+ passed, ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
	TOTAL_P=$((TOTAL_P + p))
	TOTAL_F=$((TOTAL_F + f))
	TOTAL_S=$((TOTAL_S + ${s:-0}))
}

# cmocka binaries: count "[       OK ]" per test, the skipped ones (a test that cannot run
# here says why and calls skip(): not a pass) and the run total; a binary that dies before
# its summary counts as one failure.
run_unit() {
	dir=$1
	tier=$2
	# A cross build's programs run through its qemu-user runner (tests/cross/build.sh).
	runner=${3:-}
	p=0
	f=0
	s=0
	for t in "$dir"/tests/test_*; do
		[ -x "$t" ] || continue
		out="$LOGDIR/$(basename "$t").out"
		${runner:+"$runner"} "$t" >"$out" 2>&1
		rc=$?
		ok=$(grep -c '^\[       OK \]' "$out")
		run=$(sed -nE 's/^\[==========\] ([0-9]+) test\(s\) run\./\1/p' "$out" | tail -n 1)
		if [ -z "$run" ]; then
			cat "$out"
			echo "$tier: $(basename "$t") exited $rc without a summary"
			f=$((f + 1))
			continue
		fi
		sk=$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) test\(s\), listed below:/\1/p' "$out" | tail -n 1)
		sk=${sk:-0}
		p=$((p + ok))
		f=$((f + run - ok - sk))
		s=$((s + sk))
		if [ "$rc" -ne 0 ] || [ "$((ok + sk))" -ne "$run" ]; then
			grep -E 'FAILED|error|Error|ERROR' "$out" | head -n 40
		fi
		grep -E '^skipped: ' "$out" | sed "s|^|$(basename "$t"): |"
	done
	echo "$tier: $p passed, $f failed, $s skipped"
}

# The program's real paths on this machine: tests write only under their own directories, so
# a tier after which one of these is new, changed or gone fails (what an installation left
# before the tier is compared, not refused). Owner, mode, size and contents of every entry.
HOST_PATHS="/var/lib/zram-recompd /run/zram-recompd /etc/zram-recompd.conf /etc/zram-recompd.conf.d"
host_snapshot() {
	for p in $HOST_PATHS; do
		[ -e "$p" ] || [ -L "$p" ] || continue
		find "$p" -printf '%p %y %u %m %s %l\n' 2>&1
		find "$p" -type f -exec md5sum {} + 2>&1
	done | LC_ALL=C sort
}

tier() {
	name=$1
	shift
	echo "== $name"
	host_snapshot >"$LOGDIR/$name.host-before"
	"$@" 2>&1 | tee "$LOGDIR/$name.log"
	account "$LOGDIR/$name.log" "$name"
	host_snapshot >"$LOGDIR/$name.host-after"
	if ! cmp -s "$LOGDIR/$name.host-before" "$LOGDIR/$name.host-after"; then
		echo "FAIL $name: wrote to this machine's own paths ($HOST_PATHS):"
		diff "$LOGDIR/$name.host-before" "$LOGDIR/$name.host-after" | grep '^[<>]' |
			head -n 10
		TOTAL_F=$((TOTAL_F + 1))
		echo "FAIL $name: host paths" >>"$LOGDIR/$name.log"
	fi
}

want() {
	[ "$MODE" = all ] || [ "$MODE" = "$1" ]
}

MODE=${1:-all}
# The build the unit, house, fakesys, daemon and strace tiers test (a developer's own BUILDDIR).
B=${BUILDDIR:-build}
if want deps; then
	tier deps tests/deps/run.sh
fi
if want unit; then
	tier unit run_unit "$B" unit
	# The house's bounds on the same build: file and function lengths, layers, circles.
	tier house tests/house/run.sh "$B"
fi
if want fakesys; then
	tier fakesys env BUILDDIR="$B" tests/fakesys/run.sh
fi
if want daemon; then
	tier daemon env BUILDDIR="$B" tests/daemon/run.sh
fi
if want strace; then
	tier strace env BUILDDIR="$B" tests/strace/run.sh
fi
# The cross tier: for each of CROSS_ARCHES (default arm64 armhf) a cross build into
# build-ARCH (tests/cross/build.sh: Debian's cross compiler, a sysroot of the target's
# packages in the cache), then the unit and fakesys tiers of that build under qemu-user, then
# its Debian package (tests/cross/deb.sh: dpkg-buildpackage -a ARCH, lintian).
if want cross; then
	for a in ${CROSS_ARCHES:-arm64 armhf}; do
		tier "cross-build-$a" tests/cross/build.sh "$a"
		grep -q "^cross-build-$a: 1 passed" "$LOGDIR/cross-build-$a.log" || continue
		tier "unit-$a" run_unit "build-$a" "unit-$a" "$PWD/build-$a/run"
		tier "fakesys-$a" env BUILDDIR="build-$a" ZR_TEST_RUNNER="$PWD/build-$a/run" \
			tests/fakesys/run.sh
		tier "deb-$a" tests/cross/deb.sh "$a"
	done
fi
if want san || [ "$MODE" = all ]; then
	if [ "$MODE" = san ] || [ "$MODE" = all ]; then
		tier unit-san run_unit build-san unit-san
		tier fakesys-san env BUILDDIR=build-san ASAN_OPTIONS=detect_leaks=1 tests/fakesys/run.sh
		tier daemon-san env BUILDDIR=build-san ASAN_OPTIONS=detect_leaks=1 tests/daemon/run.sh
	fi
fi
if want tsan; then
	tier daemon-tsan env BUILDDIR=build-tsan tests/daemon/tsan.sh
fi
if want deb; then
	tier deb env BUILDDIR=build tests/deb/run.sh
fi
if want vm; then
	tier vm env BUILDDIR=build tests/vm/run.sh
fi
if want fuzz; then
	tier fuzz env FUZZ_BUILDDIR="${FUZZ_BUILDDIR:-build-fuzz}" FUZZ_SECONDS="${FUZZ_SECONDS:-10}" \
		tests/fuzz/run.sh
fi
if [ "$MODE" = long ]; then
	tier soak env BUILDDIR=build SOAK_SECONDS="${SOAK_SECONDS:-600}" tests/daemon/soak.sh
fi

# CI shows the end of the output: repeat every failure line of every tier just above the
# closing line, so a failure deep in a long tier is named there.
if [ "$TOTAL_F" -gt 0 ]; then
	echo "== failures"
	for l in "$LOGDIR"/*.log; do
		grep -hE '^(vm: )?FAIL|: FAIL |\[  FAILED  \] [a-z]|printed no summary|without a summary' \
			"$l" | sed "s|^|$(basename "$l" .log): |" | head -n 20
	done
fi
if [ "$TOTAL_S" -gt 0 ]; then
	echo "$TOTAL_P passed, $TOTAL_F failed, $TOTAL_S skipped"
else
	echo "$TOTAL_P passed, $TOTAL_F failed"
fi
[ "$TOTAL_F" -eq 0 ]
