#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every libFuzzer target of tests/fuzz for FUZZ_SECONDS seconds each (default 60), one
# after the other, and prints "fuzz: N passed, N failed" (one test per target).
# Environment: FUZZ_BUILDDIR (default build-fuzz: where `make fuzz-bins` put the targets),
# FUZZ_SECONDS, FUZZ_ARTIFACTS (where a failing input is kept; default
# $FUZZ_BUILDDIR/artifacts). Each target starts from its committed seeds,
# tests/fuzz/corpus/<target>/ (read only: what it finds goes to a scratch copy), with
# tests/fuzz/<target>.dict when there is one. A crash, leak, UB report, timeout (10 s for one
# input) or broken invariant fails the target; its last output lines and the saved input
# are printed. Replay one with: $FUZZ_BUILDDIR/fuzz_X path/to/input
set -u
cd "$(dirname "$0")/../.." || exit 1

BD=${FUZZ_BUILDDIR:-build-fuzz}
SECS=${FUZZ_SECONDS:-60}
ART=${FUZZ_ARTIFACTS:-$BD/artifacts}
case $SECS in '' | *[!0-9]*)
	echo "fuzz: FUZZ_SECONDS must be a number of seconds, not '$SECS'"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
	;;
esac

W=$(mktemp -d "${TMPDIR:-/tmp}/zram-recompd-fuzz.XXXXXX") || exit 1
# The files the config and state targets write and fsync, on tmpfs when there is one: ext4
# makes the state target ten times slower.
FT=$(mktemp -d /dev/shm/zram-recompd-fuzz.XXXXXX 2>/dev/null) || FT=$W/tmp
trap 'rm -rf "$W" "$FT"' EXIT
mkdir -p "$ART" "$FT"

P=0
F=0
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	name=${t#fuzz_}
	bin=$BD/$t
	if [ ! -x "$bin" ]; then
		echo "FAIL $name: $bin missing (make fuzz-bins)"
		F=$((F + 1))
		continue
	fi
	mkdir -p "$W/corpus/$name"
	seeds=tests/fuzz/corpus/$name
	set -- -max_total_time="$SECS" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$ART/$name-"
	[ -f "tests/fuzz/$name.dict" ] && set -- "$@" -dict="tests/fuzz/$name.dict"
	set -- "$@" "$W/corpus/$name"
	[ -d "$seeds" ] && set -- "$@" "$seeds"
	start=$(date +%s)
	FUZZ_TMPDIR=$FT ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$bin" "$@" >"$W/$name.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$W/$name.log")
	cov=$(sed -nE 's/^#[0-9]+.*DONE +cov: ([0-9]+).*/\1/p' "$W/$name.log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		P=$((P + 1))
		echo "PASS $name (${secs} s, ${runs:-?} runs, cov ${cov:-?}," \
			"corpus $(find "$W/corpus/$name" -type f | wc -l) new)"
	else
		F=$((F + 1))
		tail -n 40 "$W/$name.log"
		echo "FAIL $name (exit $rc after ${secs} s; input: $(ls -t "$ART/$name-"* \
			2>/dev/null | head -n 1))"
	fi
done
echo "fuzz: $P passed, $F failed"
[ "$F" -eq 0 ]
