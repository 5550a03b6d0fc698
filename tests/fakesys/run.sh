#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fake-sysfs tier: runs $BUILDDIR/zram-recompd (default build/) against fake /sys and /proc
# trees (--sysroot) imitating Linux 6.2, 6.10, 6.12, 6.15 and 7.0, and checks its effects:
# the exact commands written to each attribute, that nothing else changed, stdout, stderr
# and the exit code. One line per test ("PASS name" / "FAIL name: reason" / "SKIP name:
# reason", the last only for what qemu-user cannot emulate under ZR_TEST_RUNNER), then
# "fakesys: N passed, N failed[, N skipped]". Exit status 0 only if no test failed.
#
#   BUILDDIR=build-san tests/fakesys/run.sh     the ASan+UBSan build
#   UPDATE_GOLDEN=1 tests/fakesys/run.sh        rewrite tests/fakesys/expected/* (review the diff!)
#   tests/fakesys/run.sh NAME...                only tests whose name contains one of NAME
#
# Needs bash, coreutils, findutils, awk, gzip; python3 only to validate JSON (optional).
# Tests run in subshells that set T and R on purpose.
# shellcheck disable=SC2030,SC2031
set -u
cd "$(dirname "$0")/../.." || exit 1
HERE=$PWD/tests/fakesys
GOLDEN=$HERE/expected
BUILDDIR=${BUILDDIR:-build}
# ZR_TEST_RUNNER: a command the binary runs under, e.g. build-arm64/run (qemu-user with the
# target's sysroot, tests/cross/build.sh) for a cross build; empty: the binary itself.
RUNNER=${ZR_TEST_RUNNER:-}
case $BUILDDIR in
/*) BIN=$BUILDDIR/zram-recompd ;;
*) BIN=$PWD/$BUILDDIR/zram-recompd ;;
esac
# shellcheck source=tests/fakesys/lib.sh
. "$HERE/lib.sh"

export LC_ALL=C
# Nothing from the caller's environment may redirect the binary or change its log format.
unset ZRAM_RECOMPD_SYSROOT ZRAM_RECOMPD_CONFIG_ROOT JOURNAL_STREAM

# --check-config on an invalid file exits 1 (a validator: 0 OK, 1 errors), as
# zram-recompd(8) says; the other commands exit 2 on a bad configuration.
CHECK_CONFIG_ERROR_RC=1

NPASS=0
NFAIL=0
NSKIP=0
if [ ! -x "$BIN" ]; then
	echo "FAIL setup: $BIN not found (build it: make $BUILDDIR/zram-recompd)"
	echo "fakesys: 0 passed, 1 failed"
	exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/zr-fakesys.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
# Never the host's files: a call without --sysroot gets a root that does not exist, and
# `status` reads the daemon's totals from an empty state directory, not /var/lib.
export ZRAM_RECOMPD_SYSROOT=$TMP/no-sysroot
export ZRAM_RECOMPD_STATE_DIR=$TMP/no-state
# ... and a call without --config reads the search path of an empty tree, not /etc; no
# dictionary from /run (tests/fakesys/dict.sh sets its own).
export ZRAM_RECOMPD_CONFIG_ROOT=$TMP/no-config-root
export ZRAM_RECOMPD_DICT_DIR=$TMP/no-dict ZRAM_RECOMPD_CREDENTIALS_ROOT=$TMP/no-credentials
unset CREDENTIALS_DIRECTORY

# ---------------------------------------------------------------------------------------------
# Test framework. Each test runs in a subshell in its own directory $T; helpers end it with
# die, which leaves the reason on fd 3.

die() {
	printf '%s\n' "$*" >&3
	exit 1
}

# skip_test REASON: the test cannot run here (only under ZR_TEST_RUNNER: what qemu-user does
# not emulate); counted as skipped, never as passed.
skip_test() {
	printf '%s\n' "$*" >&3
	exit 77
}

# One line of a file for messages: newlines as '|', at most 300 characters.
oneline() {
	tr '\n' '|' <"$1" | cut -c1-300
}

# zr ARGS...: run the binary; stdout in $T/out, stderr in $T/err, exit code in RC. Every
# command here finishes in milliseconds; a hang (e.g. the daemon started by mistake) is a
# failure, not a stuck tier.
zr() {
	timeout -k 5 60 ${RUNNER:+"$RUNNER"} "$BIN" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" != 124 ] || die "zram-recompd $* did not finish within 60 s"
}

# zro ARGS...: zr on this test's root ($R) and config ($T/conf).
zro() {
	zr --sysroot "$R" --config "$T/conf" "$@"
}

# conf LINE...: this test's configuration file.
conf() {
	printf '%s\n' "$@" >"$T/conf"
}

expect_rc() {
	[ "$RC" = "$1" ] || die "exit code $RC, expected $1; stderr: $(oneline "$T/err")"
}

# expect_content FILE [LINE...]: FILE holds exactly these lines (no LINE: empty).
expect_content() {
	local f=$1
	shift
	if [ $# -eq 0 ]; then
		: >"$T/.want"
	else
		printf '%s\n' "$@" >"$T/.want"
	fi
	[ -f "$f" ] || die "${f#"$T"/}: missing"
	cmp -s "$f" "$T/.want" ||
		die "${f#"$T"/}: got '$(oneline "$f")', expected '$(oneline "$T/.want")'"
}

expect_has() {
	grep -F -q -- "$2" "$1" || die "${1#"$T"/} lacks '$2': $(oneline "$1")"
}

expect_not() {
	if grep -F -q -- "$2" "$1"; then
		die "${1#"$T"/} has '$2': $(oneline "$1")"
	fi
}

# expect_count FILE STRING N: N lines of FILE contain STRING.
expect_count() {
	local n
	n=$(grep -c -F -- "$2" "$1")
	[ "$n" = "$3" ] || die "${1#"$T"/}: $n lines with '$2', expected $3: $(oneline "$1")"
}

# dp ID ATTR: root-relative path of a device attribute's real file.
dp() {
	printf 'sys/devices/virtual/block/zram%s/%s' "$1" "$2"
}

# attr ID ATTR: absolute path of that file in this test's root.
attr() {
	fr_attr "$R" "$1" "$2"
}

# snap: record the state of the whole root before a run.
snap() {
	fr_snapshot "$R" >"$T/.before"
}

# expect_changed [PATH...]: exactly these root-relative paths changed since snap.
expect_changed() {
	fr_snapshot "$R" >"$T/.after"
	fr_changed "$T/.before" "$T/.after" >"$T/.changed"
	if [ $# -eq 0 ]; then
		: >"$T/.want_changed"
	else
		printf '%s\n' "$@" | LC_ALL=C sort >"$T/.want_changed"
	fi
	cmp -s "$T/.changed" "$T/.want_changed" ||
		die "changed files [$(tr '\n' ' ' <"$T/.changed")], expected [$*]"
}

# Timings vary from run to run: "0.000 s" -> "T s".
normalize() {
	sed -E 's/[0-9]+\.[0-9]{3,6} s\b/T s/g' "$1"
}

# golden NAME FILE: FILE equals tests/fakesys/expected/NAME (UPDATE_GOLDEN=1 rewrites it).
golden() {
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		mkdir -p "$GOLDEN"
		cp "$2" "$GOLDEN/$1"
		return 0
	fi
	[ -f "$GOLDEN/$1" ] || die "missing expected/$1 (generate with UPDATE_GOLDEN=1, then review it)"
	cmp -s "$GOLDEN/$1" "$2" ||
		die "differs from expected/$1: $(diff "$GOLDEN/$1" "$2" | grep '^[<>]' | head -n 2 | tr '\n' '|')"
}

FILTER=("$@")

run_test() {
	local name=$1 fn=$2 rc reason f
	shift 2

	if [ ${#FILTER[@]} -gt 0 ]; then
		local hit=0
		for f in "${FILTER[@]}"; do
			case $name in *"$f"*) hit=1 ;; esac
		done
		[ $hit = 1 ] || return 0
	fi
	mkdir -p "$TMP/$name"
	(
		T=$TMP/$name
		R=$T/root
		# --once keeps totals there: each test starts without any.
		export ZRAM_RECOMPD_STATE_DIR=$T/no-state
		cd "$T" || exit 1
		: >"$T/conf"
		"$fn" "$@"
	) 3>"$TMP/$name/.reason" >"$TMP/$name/.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "PASS $name"
		NPASS=$((NPASS + 1))
	elif [ $rc = 77 ]; then
		echo "SKIP $name: $(tr '\n' ' ' <"$TMP/$name/.reason" | cut -c1-500)"
		NSKIP=$((NSKIP + 1))
	else
		reason=$(tr '\n' ' ' <"$TMP/$name/.reason" | cut -c1-500)
		[ -n "$reason" ] || reason="test script error (exit $rc): $(oneline "$TMP/$name/.log")"
		echo "FAIL $name: $reason"
		NFAIL=$((NFAIL + 1))
	fi
}

# ---------------------------------------------------------------------------------------------
# The reference roots (build_version_root, tests/fakesys/lib.sh): one initialized zram0 with a
# secondary algorithm, like a distro kernel of that version. Idle-age support is known from a
# kernel config (6.2, 6.10) or from block_state (6.12+).

VERSIONS="6.2 6.10 6.12 6.15 7.0 7.3"

# The configuration matching each reference root (6.15 has two secondaries).
version_conf() {
	case $1 in
	6.15 | 7.3) conf '[global]' 'recompress-algorithms = zstd deflate' ;;
	*) conf '# defaults' ;;
	esac
}

# Expected recompress commands with the default configuration. The first write of a type and
# priority is 64 pages (max-write-ms: no cost per page learnt yet), and the fake kernel's
# writes make no progress, which teaches nothing, so no write grows past it. 6.13+ scans
# every slot per write whatever max_pages: there max-write-ms is not applied (2048 pages).
# 6.12+: every write names its priority. With two secondaries (6.15, 7.3 roots) each type is
# one step per priority; #2 gets what #1 tried and left unshrunk as its budget: with the
# unchanging fake block_state that is every candidate of #1 (huge_idle 1, idle 2, huge 2).
default_recompress() {
	case $1 in
	6.15 | 7.3)
		printf '%s\n' 'type=huge_idle priority=1 max_pages=2048' \
			'type=huge_idle priority=2 max_pages=1' \
			'type=idle priority=1 max_pages=2048' 'type=idle priority=2 max_pages=2' \
			'type=huge priority=1 max_pages=2048' 'type=huge priority=2 max_pages=2'
		return
		;;
	esac
	if fr_ver_ge "$1" 6.13; then
		printf '%s\n' 'type=huge_idle priority=1 max_pages=2048' \
			'type=idle priority=1 max_pages=2048' 'type=huge priority=1 max_pages=2048'
	elif fr_ver_ge "$1" 6.12; then
		printf '%s\n' 'type=huge_idle priority=1 max_pages=64' \
			'type=idle priority=1 max_pages=64' 'type=huge priority=1 max_pages=64'
	elif fr_ver_ge "$1" 6.10; then
		printf '%s\n' 'type=huge_idle max_pages=64' 'type=idle max_pages=64' \
			'type=huge max_pages=64'
	else
		# 6.2-6.9: no max_pages= key; one unbounded write per type.
		printf '%s\n' 'type=huge_idle' 'type=idle' 'type=huge'
	fi
}

# 1. --once on each version --------------------------------------------------------------------

t_once_version() {
	local ver=$1

	build_version_root "$R" "$ver"
	version_conf "$ver"
	snap
	zro --once
	expect_rc 0
	case $ver in
	# 6.13+ clear the idle mark of every page tried: marked again before each #2
	6.15 | 7.3) expect_content "$(attr 0 idle)" 14400 14400 14400 ;;
	*) expect_content "$(attr 0 idle)" 14400 ;;
	esac
	default_recompress "$ver" >"$T/want_recompress"
	cmp -s "$(attr 0 recompress)" "$T/want_recompress" ||
		die "recompress: got '$(oneline "$(attr 0 recompress)")', expected '$(oneline "$T/want_recompress")'"
	expect_content "$(attr 0 compact)" 1
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
	expect_content "$T/err"
	expect_has "$T/out" "zram0: idle: marked pages unused for more than 14400 s (4 h)"
	case $ver in
	6.15 | 7.3) expect_count "$T/out" "zram0: pass " 6 ;;
	*) expect_count "$T/out" "zram0: pass " 3 ;;
	esac
	expect_has "$T/out" "zram0: compact: freed 0 B in"
	normalize "$T/out" >"$T/out.norm"
	golden "once-$ver.out" "$T/out.norm"
}

for v in $VERSIONS; do
	run_test "once-$v" t_once_version "$v"
done

# --once keeps history (issue 13): the totals in the state directory and the metrics
# textfile, as a daemon pass does; --dry-run changes neither.
t_once_history() {
	build_version_root "$R" 6.12
	conf '[global]' "metrics-file = $T/metrics.prom"
	ZRAM_RECOMPD_STATE_DIR=$T/state zro --once
	expect_rc 0
	expect_content "$T/err"
	grep -q '^zram0 passes=1 pages_attempted=[1-9]' "$T/state/state" ||
		die "state: no pass counted: $(oneline "$T/state/state")"
	expect_has "$T/metrics.prom" 'zram_recompd_passes_total{device="zram0"} 1'
	expect_has "$T/metrics.prom" 'zram_recompd_compr_data_bytes{device="zram0"}'
	ZRAM_RECOMPD_STATE_DIR=$T/state zro --once
	expect_rc 0
	expect_count "$T/state/state" 'zram0 passes=2 ' 1
	expect_has "$T/metrics.prom" 'zram_recompd_passes_total{device="zram0"} 2'
	cp "$T/state/state" "$T/state.before"
	ZRAM_RECOMPD_STATE_DIR=$T/state zro --once --dry-run
	expect_rc 0
	cmp -s "$T/state/state" "$T/state.before" || die "--dry-run changed the totals"
	expect_has "$T/metrics.prom" 'zram_recompd_passes_total{device="zram0"} 2'
}
run_test once-history t_once_history

# compact=auto with fragmentation below 10 %: no compaction.
t_compact_auto_low() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 mm="$FR_MM_LOWFRAG"
	fr_blockstate "$R" 6.12 0
	snap
	zro --once
	expect_rc 0
	expect_content "$(attr 0 compact)"
	default_recompress 6.12 >"$T/want"
	cmp -s "$(attr 0 recompress)" "$T/want" || die "recompress: $(oneline "$(attr 0 recompress)")"
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)"
	expect_not "$T/out" "compact:"
}
run_test compact-auto-low-frag t_compact_auto_low

t_compact_always() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 mm="$FR_MM_LOWFRAG"
	fr_blockstate "$R" 6.12 0
	conf '[global]' 'compact = always'
	snap
	zro --once
	expect_rc 0
	expect_content "$(attr 0 compact)" 1
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
}
run_test compact-always t_compact_always

t_compact_never() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_blockstate "$R" 6.12 0
	conf '[global]' 'compact = never'
	snap
	zro --once
	expect_rc 0
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)"
}
run_test compact-never t_compact_never

# Per-device section overrides [global]; passes = one type only.
t_section_override() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_dev "$R" 6.12 1
	conf '[global]' 'passes = idle' 'max-pages-per-batch = 512' 'max-write-ms = 0' '' \
		'[zram1]' 'passes = huge' 'compact = never'
	snap
	zro --once
	expect_rc 0
	expect_content "$(attr 0 recompress)" 'type=idle priority=1 max_pages=512'
	expect_content "$(attr 1 recompress)" 'type=huge priority=1 max_pages=512'
	expect_content "$(attr 0 idle)" 14400
	# A huge-only pass needs no idle mark.
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)" "$(dp 1 recompress)"
}
run_test section-override t_section_override

# max-pages-per-pass smaller than a batch: the budget caps max_pages.
t_pass_budget() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	conf '[global]' 'passes = huge' 'max-pages-per-pass = 100' 'max-write-ms = 0'
	zro --once
	expect_rc 0
	expect_content "$(attr 0 recompress)" 'type=huge priority=1 max_pages=100'
}
run_test pass-budget-caps-batch t_pass_budget

# 2. idle marking -------------------------------------------------------------------------------

t_idle_max_zero() {
	build_version_root "$R" 6.12
	conf '[global]' 'idle-age-max-sec = 0'
	zro --once
	expect_rc 0
	expect_content "$(attr 0 idle)" all
	expect_has "$T/out" "zram0: idle: marked all pages"
}
run_test idle-age-max-zero t_idle_max_zero

# 6.8+: CONFIG_ZRAM_TRACK_ENTRY_ACTIME off and no block_state: only "all" exists.
t_idle_no_actime() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_kconfig "$R" boot 'CONFIG_ZRAM=y' '# CONFIG_ZRAM_TRACK_ENTRY_ACTIME is not set' \
		'# CONFIG_ZRAM_MEMORY_TRACKING is not set'
	zro --once
	expect_rc 0
	expect_content "$(attr 0 idle)" all
	expect_has "$T/err" "CONFIG_ZRAM_TRACK_ENTRY_ACTIME"
}
run_test idle-no-actime-config t_idle_no_actime

# 6.2-6.7: the age switch is CONFIG_ZRAM_MEMORY_TRACKING (here from /proc/config.gz).
t_idle_no_memtracking_62() {
	fr_new "$R" 6.2
	fr_dev "$R" 6.2 0
	fr_kconfig "$R" gz 'CONFIG_ZRAM=m' '# CONFIG_ZRAM_MEMORY_TRACKING is not set'
	zro --once
	expect_rc 0
	expect_content "$(attr 0 idle)" all
}
run_test idle-no-memtracking-6.2 t_idle_no_memtracking_62

# age = min + (max - min) * e^(-5 * util), util = 1 - MemAvailable / MemTotal.
t_idle_util() {
	local total=$1 avail=$2 min=$3 max=$4 want
	build_version_root "$R" 6.12
	fr_meminfo "$R" "$total" "$avail"
	if [ -n "$min" ]; then
		conf '[global]' "idle-age-min-sec = $min" "idle-age-max-sec = $max"
	else
		min=1800
		max=14400
	fi
	want=$(awk -v t="$total" -v a="$avail" -v lo="$min" -v hi="$max" \
		'BEGIN { u = 1 - a / t; printf "%d", lo + (hi - lo) * exp(-5 * u) + 0.5 }')
	zro --once
	expect_rc 0
	expect_content "$(attr 0 idle)" "$want"
	expect_has "$T/out" "more than $want s"
}
run_test idle-util-0.5 t_idle_util 16000000 8000000 "" ""
run_test idle-util-0.9-custom t_idle_util 16000000 1600000 600 7200
run_test idle-util-1.0 t_idle_util 16000000 0 "" ""

# No kernel config, no block_state: the age is tried (the fake accepts it).
t_idle_unknown() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	zro --once
	expect_rc 0
	expect_content "$(attr 0 idle)" 14400
}
run_test idle-support-unknown t_idle_unknown

# Without /proc/meminfo the age is idle-age-max-sec.
t_idle_no_meminfo() {
	build_version_root "$R" 6.12
	rm "$R/proc/meminfo"
	zro --once
	expect_rc 0
	expect_content "$(attr 0 idle)" 14400
}
run_test idle-no-meminfo t_idle_no_meminfo

# 3. --dry-run ----------------------------------------------------------------------------------

t_dry_run() {
	build_version_root "$R" 6.12
	snap
	zro --once --dry-run
	expect_rc 0
	expect_changed
	expect_content "$T/out" \
		"zram0: would write '14400' to idle (4 h)" \
		"zram0: would write 'type=huge_idle priority=1 max_pages=64' to recompress" \
		"zram0:   (repeated while batches make progress, each sized to take about 100 ms at the cost per page measured, at most 2048 pages; up to max-pages-per-pass pages)" \
		"zram0: would write 'type=idle priority=1 max_pages=64' to recompress" \
		"zram0:   (repeated while batches make progress, each sized to take about 100 ms at the cost per page measured, at most 2048 pages; up to max-pages-per-pass pages)" \
		"zram0: would write 'type=huge priority=1 max_pages=64' to recompress" \
		"zram0:   (repeated while batches make progress, each sized to take about 100 ms at the cost per page measured, at most 2048 pages; up to max-pages-per-pass pages)" \
		"zram0: would write '1' to compact if the passes free compressed data, or if fragmentation after them is at least 10.0% (now 18.7%)"
	expect_content "$T/err"
}
run_test dry-run-6.12 t_dry_run

# compact-min-saved-bytes in the dry-run's condition: a size for people (issue 27).
t_dry_run_compact_min() {
	build_version_root "$R" 6.12
	conf '[global]' 'compact-min-saved-bytes = 1536K'
	zro --once --dry-run
	expect_rc 0
	expect_has "$T/out" "zram0: would write '1' to compact if the passes free at least 1.5 MiB of compressed data, or if fragmentation after them is at least 10.0% (now 18.7%)"
}
run_test dry-run-compact-min t_dry_run_compact_min

t_dry_run_62() {
	build_version_root "$R" 6.2
	conf '[global]' 'compact = always' 'threshold-bytes = 2000'
	snap
	zro --once --dry-run
	expect_rc 0
	expect_changed
	expect_content "$T/out" \
		"zram0: would write '14400' to idle (4 h)" \
		"zram0: would write 'type=huge_idle threshold=2000' to recompress" \
		"zram0: would write 'type=idle threshold=2000' to recompress" \
		"zram0: would write 'type=huge threshold=2000' to recompress" \
		"zram0: would write '1' to compact"
}
run_test dry-run-6.2 t_dry_run_62

t_dry_run_uninit() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = zstd deflate' 'algorithm-params = deflate:level=9'
	snap
	zro --once --dry-run
	expect_rc 0
	expect_changed
	expect_content "$T/out" \
		"zram0: would write 'algo=zstd priority=1' to recomp_algorithm" \
		"zram0: would write 'algo=deflate priority=2' to recomp_algorithm" \
		"zram0: would write 'priority=2 level=9' to algorithm_params"
}
run_test dry-run-uninitialized t_dry_run_uninit

# 4. uninitialized devices: the secondary list goes in before disksize ---------------------------

t_uninit() {
	local ver=$1
	fr_new "$R" "$ver"
	fr_dev "$R" "$ver" 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = zstd deflate' 'algorithm-params = deflate:level=9'
	snap
	zro --once
	expect_rc 0
	expect_content "$(attr 0 recomp_algorithm)" 'algo=zstd priority=1' 'algo=deflate priority=2'
	if fr_ver_ge "$ver" 6.12; then
		expect_content "$(attr 0 algorithm_params)" 'priority=2 level=9'
		expect_changed "$(dp 0 recomp_algorithm)" "$(dp 0 algorithm_params)"
	else
		# No algorithm_params before 6.12: a warning, and the level is not applied.
		[ ! -e "$(attr 0 algorithm_params)" ] || die "algorithm_params was created"
		expect_has "$T/err" "algorithm_params"
		expect_has "$T/err" "warning"
		expect_changed "$(dp 0 recomp_algorithm)"
	fi
	cat "$T/out" "$T/err" >"$T/both"
	expect_has "$T/both" "zram0: not initialized"
	expect_not "$T/err" "error"
}
for v in 6.10 6.12 6.15 7.0; do
	run_test "uninitialized-$v" t_uninit "$v"
done

# Default configuration (zstd) on a device whose primary is zstd too: written, with a warning
# that recompressing with the primary's own algorithm cannot win.
t_uninit_defaults() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp="" primary=zstd
	snap
	zro --once --device zram0
	expect_rc 0
	expect_content "$(attr 0 recomp_algorithm)" 'algo=zstd priority=1'
	expect_changed "$(dp 0 recomp_algorithm)"
	grep -F warning "$T/err" | grep -q -F 'zstd' || die "no warning about zstd: $(oneline "$T/err")"
}
run_test uninitialized-defaults-primary-zstd t_uninit_defaults

# A name no zram backend has, or a level its backend refuses, is a configuration error of
# --once (exit 2), named with FILE:LINE before anything is written, whether the device is
# set up already or not: the setup hook's "-" would hide a later failure.
T_BROTLI="key 'recompress-algorithms': 'brotli' is not a compression backend of zram (842, lzo, lzo-rle, lz4, lz4hc, zstd, deflate)"
t_uninit_unknown_algo() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = brotli'
	snap
	zro --once
	expect_rc 2
	expect_changed
	expect_content "$T/err" "$T/conf:2: $T_BROTLI"
}
run_test uninitialized-unknown-algo t_uninit_unknown_algo

# The whole list is checked before the first write: an unknown second name must not leave
# the device half-configured (only an unused reset could remove priority 1 again).
t_uninit_unknown_second() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = zstd brotli'
	snap
	zro --once
	expect_rc 2
	expect_content "$T/err" "$T/conf:2: $T_BROTLI"
	expect_changed
}
run_test uninitialized-unknown-second-algo t_uninit_unknown_second

# The typo and the level of the issue, on a set-up device and in a [zramN] section.
t_once_algo_typo() {
	build_version_root "$R" 6.12
	conf '[global]' 'recompress-algorithms = zsdt'
	snap
	zro --once
	expect_rc 2
	expect_content "$T/err" \
		"$T/conf:2: key 'recompress-algorithms': 'zsdt' is not a compression backend of zram (842, lzo, lzo-rle, lz4, lz4hc, zstd, deflate); did you mean 'zstd'?"
	expect_content "$T/out"
	conf '[zram0]' 'recompress-algorithms = zstd' 'algorithm-params = zstd:level=99'
	zro --once --dry-run
	expect_rc 2
	expect_content "$T/err" \
		"$T/conf:3: key 'algorithm-params': level 99 is out of range for zstd (-131072 to 22): Linux 7.3+ fails disksize with EINVAL and the device gets no secondary"
	expect_changed
}
run_test once-algo-typo t_once_algo_typo

# A backend of zram that this kernel lacks: --once says which ones it has.
t_uninit_not_offered() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp=""
	printf '%s\n' 'lzo-rle lzo [lz4] zstd' >"$(attr 0 comp_algorithm)"
	conf '[global]' 'recompress-algorithms = deflate'
	snap
	zro --once
	expect_rc 1
	expect_content "$T/err" \
		"zram-recompd: error: zram0: recomp_algorithm: 'deflate' is not a compressor this kernel offers (comp_algorithm: lzo-rle lzo lz4 zstd); nothing written"
	expect_changed
}
run_test uninitialized-not-offered t_uninit_not_offered

# 5. traps --------------------------------------------------------------------------------------

# 6.15+: with only #2 configured, every scanned slot would be marked incompressible.
t_gap_615() {
	fr_new "$R" 6.15
	fr_dev "$R" 6.15 0 recomp="2:zstd"
	fr_blockstate "$R" 6.15 0
	snap
	zro --once
	expect_rc 1
	expect_changed
	expect_has "$T/err" "priority gap"
	expect_has "$T/err" "zram0"
}
run_test priority-gap-6.15 t_gap_615

t_gap_612() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 recomp="2:zstd"
	fr_blockstate "$R" 6.12 0
	snap
	zro --once
	expect_rc 0
	expect_has "$T/err" "priority gap"
	expect_has "$T/err" "warning"
	# every write names the priority that has an algorithm
	default_recompress 6.12 | sed 's/priority=1/priority=2/' >"$T/want"
	cmp -s "$(attr 0 recompress)" "$T/want" || die "recompress: $(oneline "$(attr 0 recompress)")"
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
}
run_test priority-gap-6.12 t_gap_612

# 6.17+ (7.3.4 measured): recomp_algorithm holds NUL runs between and after its records.
# Every configured secondary must be seen (a C-string reader saw only #1), and the cold tier
# and the second priority must be usable.
t_recomp_nul_73() {
	local f
	build_version_root "$R" 7.3
	f=$(attr 0 recomp_algorithm)
	[ "$(wc -c <"$f")" -eq 150 ] || die "the 7.3 fake is $(wc -c <"$f") bytes, not 150"
	[ "$(tr -d '\000' <"$f" | wc -c)" -lt 150 ] || die "the 7.3 fake lost its NUL bytes"
	zro status --json
	expect_rc 0
	expect_has "$T/out" '"recomp_algorithms":["zstd","deflate"]'
	expect_has "$T/out" '"one_priority_per_write":true'
	expect_has "$T/out" '"concurrent_blocks":true'
	zro status
	expect_has "$T/out" "secondary:      #1 zstd #2 deflate"
	expect_has "$T/out" "one priority per write (7.1+)"
	version_conf 7.3
	zro --once --dry-run
	expect_rc 0
	expect_has "$T/out" "would write 'type=idle priority=2 max_pages=2048' to recompress"
	expect_not "$T/err" "differ from the configuration"
}
run_test recomp-nul-7.3 t_recomp_nul_73

T_NOMULTI_MSG="zram0: cannot recompress: this kernel lacks CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute)"

t_no_multicomp() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 multi=0
	snap
	zro --once
	expect_rc 4
	expect_changed
	expect_has "$T/err" "$T_NOMULTI_MSG"
	zro status
	expect_rc 0
	expect_has "$T/out" "  recompression:  no: this kernel lacks CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute)"
	zro status --json
	expect_rc 0
	expect_has "$T/out" '"multi_comp":false'
	expect_has "$T/out" "recompression unsupported: kernel built without CONFIG_ZRAM_MULTI_COMP"
	expect_changed
}
run_test no-multi-comp t_no_multicomp

# Exit 4 when a selected device can get nothing (issue 24); the others still get their pass.
t_no_multicomp_one_of_two() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 multi=0
	fr_dev "$R" 6.12 1
	snap
	zro --once
	expect_rc 4
	expect_has "$T/err" "$T_NOMULTI_MSG"
	expect_changed "$(dp 1 idle)" "$(dp 1 recompress)" "$(dp 1 compact)"
}
run_test no-multi-comp-one-of-two t_no_multicomp_one_of_two

# devices = all and a zram device that is not swap (zram-generator's mount-point=, /tmp) and
# has no secondary: not --once's to fix, so a notice and no failure (the timer unit would
# fail every hour); it is left alone. As swap, or named, it still is one (exit 4).
t_once_foreign_device() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_blockstate "$R" 6.12 0
	fr_dev "$R" 6.12 1 recomp=""
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/zram0                              partition\t1048572\t\t102400\t\t100\n' >"$R/proc/swaps"
	snap
	zro --once
	expect_rc 0
	expect_content "$T/err" \
		"zram-recompd: zram1: not swap (/proc/swaps; a file system or other use of its own) and initialized without a secondary algorithm (the kernel takes them only before disksize): skipped"
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
	zro --once --device zram1
	expect_rc 4
	expect_has "$T/err" "zram-recompd: warning: zram1: cannot recompress: initialized without a secondary algorithm"
	printf '/dev/zram1                              partition\t1048572\t\t0\t\t50\n' >>"$R/proc/swaps"
	zro --once --dry-run
	expect_rc 4
	expect_has "$T/err" "fix: zram-recompd adopt zram1"
	expect_not "$T/err" "skipped"
}
run_test once-foreign-device t_once_foreign_device

t_no_devices() {
	fr_new "$R" 6.12
	snap
	zro --once
	expect_rc 3
	expect_has "$T/err" "no zram device"
	zro status
	expect_rc 3
	# No sys/block at all (no sysfs mounted in a container).
	rm -rf "$R/sys"
	zro --once
	expect_rc 3
}
run_test no-devices t_no_devices

t_threshold_too_big() {
	build_version_root "$R" 6.12
	conf '[global]' 'threshold-bytes = 5000'
	snap
	zro --once
	expect_rc 2
	expect_changed
	expect_has "$T/err" "$T/conf:2:"
	expect_has "$T/err" "threshold-bytes"
	expect_content "$T/out"
}
run_test threshold-5000-config-error t_threshold_too_big

t_threshold() {
	local ver=$1
	build_version_root "$R" "$ver"
	conf '[global]' 'threshold-bytes = 3000'
	zro --once
	expect_rc 0
	default_recompress "$ver" | sed -E 's/^(type=[a-z_]+)/\1 threshold=3000/' >"$T/want"
	cmp -s "$(attr 0 recompress)" "$T/want" ||
		die "recompress: got '$(oneline "$(attr 0 recompress)")', expected '$(oneline "$T/want")'"
	expect_count "$(attr 0 recompress)" "threshold=3000" 3
}
run_test threshold-3000-6.12 t_threshold 6.12
run_test threshold-3000-6.2 t_threshold 6.2

t_malformed_mm_stat() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 mm_raw="$(printf 'garbage\n')"
	fr_dev "$R" 6.12 1
	snap
	zro --once
	expect_rc 1
	expect_count "$T/err" "zram0" 1
	expect_has "$T/err" "mm_stat"
	grep -F zram0 "$T/err" | grep -q -F mm_stat || die "the zram0 error does not name mm_stat"
	expect_changed "$(dp 1 idle)" "$(dp 1 recompress)" "$(dp 1 compact)"
	expect_has "$T/out" "zram1: total:"
	expect_not "$T/out" "zram0"
}
run_test malformed-mm-stat t_malformed_mm_stat

t_malformed_recomp() {
	local listing=$1
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 recomp_raw="$listing"
	snap
	zro --once
	expect_rc 1
	expect_changed
	expect_has "$T/err" "zram0"
	expect_has "$T/err" "recomp_algorithm"
	zro status
	expect_rc 1
	expect_has "$T/err" "recomp_algorithm"
}
# No bracketed selection; no "#P: " prefix; priority out of range.
run_test malformed-recomp-no-selection t_malformed_recomp \
	"#1: lzo-rle lzo lz4 lz4hc zstd deflate 842 
"
run_test malformed-recomp-no-prefix t_malformed_recomp "zstd
"
run_test malformed-recomp-prio-4 t_malformed_recomp \
	"#4: lzo-rle lzo lz4 lz4hc [zstd] deflate 842 
"

# Initialized without any secondary algorithm: it can only be set before disksize, so the
# pass is skipped (nothing written, not even the idle mark) with a warning, and the run
# exits 4 (tests/fakesys/caps.sh: the fix it names).
t_no_secondary() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 recomp=""
	snap
	zro --once
	expect_rc 4
	expect_changed
	expect_has "$T/err" "zram0"
	expect_has "$T/err" "warning"
}
run_test initialized-without-secondary t_no_secondary

# A write that fails on zram0 is reported with device and attribute; zram1 is still done.
t_write_error() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_dev "$R" 6.12 1
	rm "$(attr 0 recompress)"
	mkdir "$(attr 0 recompress)" # open(O_WRONLY) fails with EISDIR, as root too
	snap
	zro --once
	expect_rc 1
	grep -F 'zram0: recompress' "$T/err" | grep -q -F 'type=huge_idle priority=1 max_pages=64' ||
		die "no error naming zram0, recompress and the command: $(oneline "$T/err")"
	expect_changed "$(dp 0 idle)" "$(dp 0 compact)" "$(dp 1 idle)" "$(dp 1 recompress)" \
		"$(dp 1 compact)"
	expect_has "$T/out" "zram1: total:"
}
run_test write-error-other-device-continues t_write_error

# Only zramN entries of sys/block are devices.
t_other_block_devices() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	mkdir -p "$R/sys/devices/virtual/block/loop0" "$R/sys/devices/pci0000:00/block/sda"
	for a in idle recompress compact; do
		: >"$R/sys/devices/virtual/block/loop0/$a"
		: >"$R/sys/devices/pci0000:00/block/sda/$a"
	done
	ln -s ../devices/virtual/block/loop0 "$R/sys/block/loop0"
	ln -s ../devices/pci0000:00/block/sda "$R/sys/block/sda"
	ln -s ../devices/virtual/block/loop0 "$R/sys/block/zramfoo"
	snap
	zro --once
	expect_rc 0
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
	expect_not "$T/err" "zramfoo"
}
run_test other-block-devices-ignored t_other_block_devices

t_bad_root() {
	zr --sysroot "$T/nonexistent" --config "$T/conf" status
	expect_rc 1
	expect_has "$T/err" "$T/nonexistent"
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	rm "$R/proc/sys/kernel/osrelease"
	zro status
	expect_rc 1
	expect_has "$T/err" "osrelease"
}
run_test bad-sysroot t_bad_root

# Two devices for the selection tests.
two_devices() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_dev "$R" 6.12 1
	fr_blockstate "$R" 6.12 1
}

# 6. device selection ---------------------------------------------------------------------------

t_device_option() {
	two_devices
	snap
	zro --once --device zram1
	expect_rc 0
	expect_changed "$(dp 1 idle)" "$(dp 1 recompress)" "$(dp 1 compact)"
	expect_not "$T/out" "zram0"
	expect_has "$T/out" "zram1: total:"
}
run_test device-option t_device_option

t_devices_config() {
	two_devices
	conf '[global]' 'devices = zram1'
	snap
	zro --once
	expect_rc 0
	expect_changed "$(dp 1 idle)" "$(dp 1 recompress)" "$(dp 1 compact)"
	expect_not "$T/out" "zram0"
}
run_test devices-config t_devices_config

# --device wins over the config's list.
t_device_overrides_config() {
	two_devices
	conf '[global]' 'devices = zram1'
	snap
	zro --once --device zram0
	expect_rc 0
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
}
run_test device-option-overrides-config t_device_overrides_config

# "One pass over each selected device": naming a device twice must not run two passes
# (either it counts once, or it is a usage error and nothing is written).
t_device_repeated() {
	two_devices
	snap
	zro --once --device zram0 --device zram0
	if [ "$RC" = 2 ]; then
		expect_changed
		return 0
	fi
	expect_rc 0
	expect_content "$(attr 0 idle)" 14400
	expect_count "$T/out" "zram0: total:" 1
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
}
run_test device-option-repeated t_device_repeated

t_device_absent() {
	two_devices
	snap
	zro --once --device zram7
	expect_rc 3
	expect_has "$T/err" "zram7"
	expect_changed
	zro status --device zram7
	expect_rc 3
}
run_test device-absent t_device_absent

t_device_bad_name() {
	local name
	two_devices
	snap
	for name in foo zram zram01 zram-1 sda; do
		zro --once --device "$name"
		expect_rc 2
		expect_has "$T/err" "$name"
	done
	expect_changed
}
run_test device-bad-name t_device_bad_name

t_devices_config_none_present() {
	two_devices
	conf '[global]' 'devices = zram5'
	snap
	zro --once
	expect_rc 3
	expect_changed
}
run_test devices-config-none-present t_devices_config_none_present

# No device cap (issue 24 #7; 64 before): 200 devices, created in a shuffled order, are all
# handled, in numeric order (zram2 before zram10), by --once, --once --dry-run and status;
# --device still picks one.
t_many_devices() {
	local i
	fr_new "$R" 6.12
	for i in $(seq 0 199 | shuf --random-source=<(yes)); do
		fr_dev "$R" 6.12 "$i"
	done
	zro --once --dry-run
	expect_rc 0
	expect_not "$T/err" "at most"
	grep -oE '^zram[0-9]+: ' "$T/out" | uniq >"$T/order"
	seq 0 199 | sed 's/.*/zram&: /' >"$T/want"
	cmp -s "$T/order" "$T/want" || die "--dry-run: devices not all in numeric order: $(oneline "$T/order")"
	zro status
	expect_rc 0
	grep -oE '^zram[0-9]+' "$T/out" >"$T/order"
	seq 0 199 | sed 's/.*/zram&/' >"$T/want"
	cmp -s "$T/order" "$T/want" || die "status: devices not all in numeric order: $(oneline "$T/order")"
	zro --once
	expect_rc 0
	expect_not "$T/err" "error"
	for i in 0 2 10 63 64 65 128 199; do
		[ -s "$(fr_attr "$R" "$i" recompress)" ] || die "--once wrote no recompress to zram$i"
	done
	zro --once --dry-run --device zram199
	expect_rc 0
	expect_has "$T/out" "zram199: "
	expect_not "$T/out" "zram0: "
}
run_test many-devices t_many_devices

# 7. initialized device whose secondary list differs from the configuration ---------------------

# The difference is said wherever the admin looks (--once, status, --check-config: a
# warning, exit 0), naming the device, both lists and the command that applies the
# configured one; the passes use the kernel's list meanwhile.
T_DIFFERS="runs secondary algorithms 'zstd deflate', not the configured 'lz4hc' (a device keeps its list until it is set up again); fix: zram-recompd adopt zram0"
t_algo_list_differs() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 recomp="1:zstd 2:deflate"
	fr_blockstate "$R" 6.12 0
	conf '[global]' 'recompress-algorithms = lz4hc'
	snap
	zro --once
	expect_rc 0
	expect_content "$T/err" "zram-recompd: warning: zram0: $T_DIFFERS"
	expect_has "$(attr 0 recompress)" "priority=2"
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
	zro status
	expect_rc 0
	expect_has "$T/out" "  configuration:  $T_DIFFERS"
	zro status --json
	expect_rc 0
	expect_has "$T/out" "\"algorithms_differ\":\"$T_DIFFERS\""
	zro --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" "configuration OK, 1 warning"
	expect_content "$T/err" "$T/conf:2: warning: device zram0: $T_DIFFERS"
	# The same list in another order differs too; the configured list is said nowhere once
	# it is the device's.
	conf '[global]' 'recompress-algorithms = deflate zstd'
	zro --check-config
	expect_rc 0
	expect_has "$T/err" "runs secondary algorithms 'zstd deflate', not the configured 'deflate zstd'"
	conf '[global]' 'recompress-algorithms = zstd deflate'
	zro --check-config
	expect_rc 0
	expect_content "$T/err"
	zro status
	expect_not "$T/out" "configuration:"
	zro status --json
	expect_has "$T/out" '"algorithms_differ":null'
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
}
run_test algo-list-differs t_algo_list_differs

# 8. the root is a jail ---------------------------------------------------------------------------

# recompress is an absolute symlink to a file outside the root. RESOLVE_IN_ROOT resolves it
# under the root, where nothing exists: the write cannot happen, the outside file stays as is.
t_escape_abs() {
	local out=$T/outside
	printf 'untouched\n' >"$out"
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	rm "$(attr 0 recompress)"
	ln -s "$out" "$(attr 0 recompress)"
	snap
	zro --once
	expect_content "$out" untouched
	# What was written inside the root: at most the idle mark and compact, never recompress.
	fr_snapshot "$R" >"$T/.after"
	fr_changed "$T/.before" "$T/.after" | grep -v -x -e "$(dp 0 idle)" -e "$(dp 0 compact)" \
		>"$T/.other" && die "unexpected changes: $(oneline "$T/.other")"
	[ "$RC" != 0 ] || die "exit code 0 although recompress cannot be written"
}
run_test symlink-escape-absolute t_escape_abs

# Same, but the in-root counterpart of the target exists: the writes land there. (Without
# the sandbox, which would refuse them: the target is not in a zram directory; next test.)
t_escape_abs_inside() {
	local out=$T/outside
	printf 'untouched\n' >"$out"
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	rm "$(attr 0 recompress)"
	ln -s "$out" "$(attr 0 recompress)"
	mkdir -p "$R$T"
	: >"$R$out"
	snap
	zro --once --no-sandbox
	expect_rc 0
	expect_content "$out" untouched
	default_recompress 6.12 >"$T/want"
	cmp -s "$R$out" "$T/want" || die "in-root target: got '$(oneline "$R$out")'"
	expect_changed "$(dp 0 idle)" "$(dp 0 compact)" "${T#/}/outside"
}
run_test symlink-escape-absolute-lands-inside t_escape_abs_inside

# landlock_abi: the Landlock ABI version --once reports with -v (empty: unavailable here).
# Landlock is missing: a failure on a kernel without it (the host's should have it), a skip
# under ZR_TEST_RUNNER, whose qemu-user does not emulate the landlock_* system calls.
need_landlock() {
	[ -z "$RUNNER" ] || skip_test "Landlock: not emulated by qemu-user (ZR_TEST_RUNNER)"
	die "Landlock unavailable on this kernel${1:+: $1}"
}

landlock_abi() {
	[ -e "$T/conf" ] || : >"$T/conf"
	zro -v --once --dry-run
	sed -n 's/^zram-recompd: debug: sandbox: Landlock ABI \([0-9]*\):.*/\1/p' "$T/err"
}

# The same link with the sandbox (the default): the in-root target is outside the zram
# directories, so Landlock refuses the write (EACCES) although the process may write there.
t_escape_abs_inside_sandbox() {
	local out=$T/outside
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	rm "$(attr 0 recompress)"
	ln -s "$out" "$(attr 0 recompress)"
	mkdir -p "$R$T"
	: >"$R$out"
	[ -n "$(landlock_abi)" ] || need_landlock "cannot show the sandbox"
	snap
	zro --once
	expect_rc 1
	expect_has "$T/err" "zram0: recompress: not writable (Permission denied)"
	[ ! -s "$R$out" ] || die "in-root target written: '$(oneline "$R$out")'"
	# The idle mark before it is a zram attribute: written (the failed pass compacts nothing).
	expect_changed "$(dp 0 idle)"
}
run_test symlink-escape-absolute-sandbox t_escape_abs_inside_sandbox

# --dry-run under the sandbox may write nothing, and says so with -v.
t_sandbox_dry_run() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	[ -n "$(landlock_abi)" ] || need_landlock
	zro -v --once --dry-run
	expect_rc 0
	expect_has "$T/err" "sandbox: Landlock ABI $(landlock_abi): no writes allowed (--dry-run)"
	zro -v --once --dry-run --no-sandbox
	expect_has "$T/err" "sandbox: off (--no-sandbox)"
	conf "[global]" "sandbox = no"
	zro -v --once --dry-run
	expect_has "$T/err" "sandbox: off (sandbox = no)"
}
run_test sandbox-dry-run t_sandbox_dry_run

# A relative symlink with more ".." than the root is deep stops at the root.
t_escape_dotdot() {
	local out=$T/outside up=""
	printf 'untouched\n' >"$out"
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do up="$up../"; done
	rm "$(attr 0 compact)"
	ln -s "$up${out#/}" "$(attr 0 compact)"
	snap
	zro --once
	expect_content "$out" untouched
	expect_has "$T/err" "compact"
}
run_test symlink-escape-dotdot t_escape_dotdot

# sys/block/zram0 itself points to a device directory outside the root.
t_escape_devdir() {
	local evil=$T/evil
	fr_new "$evil" 6.12
	fr_dev "$evil" 6.12 0
	fr_new "$R" 6.12
	ln -s "$evil/sys/devices/virtual/block/zram0" "$R/sys/block/zram0"
	fr_snapshot "$evil" >"$T/.evil_before"
	zro --once
	fr_snapshot "$evil" >"$T/.evil_after"
	cmp -s "$T/.evil_before" "$T/.evil_after" || die "the outside device was modified"
	[ "$RC" != 0 ] || die "exit code 0 for a device that does not exist inside the root"
	expect_has "$T/err" "zram0"
	zro status
	fr_snapshot "$evil" >"$T/.evil_after"
	cmp -s "$T/.evil_before" "$T/.evil_after" || die "status modified the outside device"
	expect_not "$T/out" "lzo-rle"
}
run_test symlink-escape-device-dir t_escape_devdir

# 9. golden status output -----------------------------------------------------------------------

# The interpreter itself, not a version-manager shim (pyenv's costs ~100 ms per call).
PYTHON=$(python3 -c 'import json, sys; print(sys.executable)' 2>/dev/null) || PYTHON=

# expect_json FILE: valid JSON (skipped without python3).
expect_json() {
	[ -n "$PYTHON" ] || return 0
	"$PYTHON" -m json.tool "$1" >/dev/null 2>"$T/json.err" ||
		die "${1#"$T"/} is not valid JSON: $(oneline "$T/json.err")"
}

t_status_golden() {
	local ver=$1
	build_version_root "$R" "$ver"
	snap
	zro status
	expect_rc 0
	expect_content "$T/err"
	golden "status-$ver.txt" "$T/out"
	zro status --json
	expect_rc 0
	expect_content "$T/err"
	golden "status-$ver.json" "$T/out"
	expect_json "$T/out"
	expect_has "$T/out" "\"kernel\":\"$(fr_release "$ver")\""
	expect_changed
}
for v in $VERSIONS; do
	run_test "status-golden-$v" t_status_golden "$v"
done

# One 6.12 root with an initialized, an uninitialized and a gapped device.
t_status_mixed() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_blockstate "$R" 6.12 0
	fr_dev "$R" 6.12 1 init=0 recomp=""
	fr_dev "$R" 6.12 2 recomp="2:zstd" mm="$FR_MM_LOWFRAG"
	fr_kconfig "$R" boot 'CONFIG_ZRAM=y' 'CONFIG_ZRAM_TRACK_ENTRY_ACTIME=y'
	snap
	zro status
	expect_rc 0
	golden status-mixed-6.12.txt "$T/out"
	zro status --json
	expect_rc 0
	golden status-mixed-6.12.json "$T/out"
	expect_json "$T/out"
	zro status --json --device zram2
	expect_rc 0
	expect_not "$T/out" '"zram0"'
	expect_has "$T/out" '"name":"zram2"'
	expect_changed
}
run_test status-golden-mixed t_status_mixed

# status without root: debugfs (mode 0700) hides block_state; the kernel is not blamed.
t_status_not_root() {
	local run=()
	build_version_root "$R" 6.12
	chmod 0700 "$R/sys/kernel/debug"
	if [ "$(id -u)" = 0 ]; then
		# the cross tiers' qemu-user lies in root's cache (/root is 0700): nobody cannot run it
		[ -z "$RUNNER" ] || skip_test "another user: the qemu-user runner is root's alone"
		command -v setpriv >/dev/null || die "setpriv (util-linux) is needed as root"
		# nobody must reach the root and read the configuration: search only on the way
		chmod o+x "$TMP" "$T"
		chmod o+r "$T/conf"
		run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	"${run[@]}" ${RUNNER:+"$RUNNER"} "$BIN" --sysroot "$R" --config "$T/conf" status >"$T/out" \
		2>"$T/err"
	RC=$?
	expect_rc 0
	expect_content "$T/err"
	expect_has "$T/out" "  missing:        no per-slot state shown: debugfs block_state is not readable by this user (Permission denied); run as root to see it"
	expect_not "$T/out" "MEMORY_TRACKING"
	"${run[@]}" ${RUNNER:+"$RUNNER"} "$BIN" --sysroot "$R" --config "$T/conf" status --json \
		>"$T/out" 2>"$T/err"
	RC=$?
	expect_rc 0
	expect_has "$T/out" '"no per-slot state shown: debugfs block_state is not readable by this user (Permission denied); run as root to see it"]'
}
run_test status-not-root t_status_not_root

# status shows the daemon's persisted totals (state file version 1) for the devices it has.
t_status_totals() {
	build_version_root "$R" 6.12
	fr_dev "$R" 6.12 1
	mkdir "$T/state"
	printf '%s\n' 'zram-recompd-state 1' \
		'zram0 passes=12 pages_attempted=98304 bytes_saved=11219763 mem_freed=5767168 incompressible=1024 kernel_ns=4250000000 errors=1 last_pass_unix=1796250000' \
		'zram5 passes=1 pages_attempted=1 bytes_saved=1 mem_freed=1 incompressible=1 kernel_ns=1 errors=0 last_pass_unix=1' \
		>"$T/state/state"
	snap
	ZRAM_RECOMPD_STATE_DIR=$T/state zro status
	expect_rc 0
	sed -E 's/, the last [0-9a-z ]+ ago,/, the last N ago,/' "$T/out" >"$T/out.n"
	golden status-totals-6.12.txt "$T/out.n"
	ZRAM_RECOMPD_STATE_DIR=$T/state zro status --json
	expect_rc 0
	golden status-totals-6.12.json "$T/out"
	expect_json "$T/out"
	# The daemon's directory under systemd ($STATE_DIRECTORY): status reads the same one.
	ZRAM_RECOMPD_STATE_DIR= STATE_DIRECTORY=$T/state:$T/other zro status
	expect_rc 0
	sed -E 's/, the last [0-9a-z ]+ ago,/, the last N ago,/' "$T/out" >"$T/out.n"
	golden status-totals-6.12.txt "$T/out.n"
	expect_changed
	# A corrupt state file is no error for status: no totals.
	printf 'zram-recompd-state 2\n' >"$T/state/state"
	ZRAM_RECOMPD_STATE_DIR=$T/state zro status --json
	expect_rc 0
	expect_count "$T/out" '"totals":null' 1
	[ "$(grep -o '"totals":null' "$T/out" | wc -l)" = 2 ] || die "expected totals null twice"
}
run_test status-daemon-totals t_status_totals

# 10. configuration -----------------------------------------------------------------------------

t_check_config_ok() {
	conf '# comment' '[global]' 'devices = zram0 zram1' 'recompress-algorithms = zstd deflate' \
		'algorithm-params = zstd:level=9 2:level=9' 'passes = idle huge' 'threshold-bytes = 3000' \
		'max-pages-per-batch = 1024' 'max-pages-per-pass = 0' 'idle-age-min-sec = 600' \
		'idle-age-max-sec = 7200' 'compact = always' '' '[zram1]' 'compact = never'
	zr --config "$T/conf" --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" \
		"device names not checked: no zram device under $ZRAM_RECOMPD_SYSROOT (No such file or directory)" "configuration OK"
	expect_content "$T/err"
	# The same on a machine with zram0 and zram1.
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 recomp="1:zstd 2:deflate"
	fr_dev "$R" 6.12 1 recomp="1:zstd 2:deflate"
	zro --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" "configuration OK"
	expect_content "$T/err"
}
run_test check-config-ok t_check_config_ok

# An absent main file means "all defaults" (the package may not ship one).
# A --config FILE that does not exist is an error naming it: --check-config fails (exit 1,
# zram-recompd(8)), every other command that reads the configuration exits 2; the default
# path may be absent (defaults).
t_check_config_absent() {
	zr --config "$T/nonexistent.conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/out"
	expect_content "$T/err" "zram-recompd: error: $T/nonexistent.conf: no such configuration file"
	zr --config "$T/nonexistent.conf" --print-config
	expect_rc 2
	zr --sysroot "$R" --config "$T/nonexistent.conf" --once
	expect_rc 2
}
run_test check-config-absent-file t_check_config_absent

# status reports the devices even with a broken configuration, warning once.
t_status_bad_config() {
	build_version_root "$R" 6.12
	conf '[global]' 'passes = idel' 'compact = sometimes'
	zro status
	expect_rc 0
	expect_has "$T/out" "zram0"
	expect_count "$T/err" "the configuration is not valid" 1
	[ "$(wc -l <"$T/err")" = 1 ] || die "more than one line on stderr: $(oneline "$T/err")"
	# The same with a broken drop-in on the search path.
	mkdir -p "$T/root/run/zram-recompd.conf.d"
	printf '%s\n' '[global]' 'passes = idel' >"$T/root/run/zram-recompd.conf.d/50-x.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/root zr --sysroot "$R" status
	expect_rc 0
	expect_has "$T/out" "zram0"
	expect_content "$T/err" "zram-recompd: warning: zram-recompd.conf (search path): the configuration is not valid (zram-recompd --check-config lists why); status uses the defaults"
}
run_test status-bad-config t_status_bad_config

t_check_config_error() {
	local line=$1
	shift
	conf "$@"
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_has "$T/err" "$T/conf:$line:"
	expect_not "$T/out" "configuration OK"
}
run_test check-config-threshold t_check_config_error 3 '[global]' '' 'threshold-bytes = 5000'
run_test check-config-unknown-key t_check_config_error 2 '[global]' 'recompress-algorithm = zstd'
run_test check-config-bad-pass t_check_config_error 3 '[global]' 'passes = idle' 'passes = idel'
run_test check-config-bad-compact t_check_config_error 4 '[global]' '' '' 'compact = sometimes'
run_test check-config-bad-section t_check_config_error 1 '[zram]' 'compact = never'
run_test check-config-params-not-listed t_check_config_error 3 '[global]' \
	'recompress-algorithms = zstd' 'algorithm-params = deflate:level=9'

# Names and levels no zram backend takes are errors of --check-config (issue 24): they would
# fail only at boot, in the zram setup's drop-in. Loading alone accepts them (--print-config).
run_test check-config-algorithm-typo t_check_config_error 2 '[global]' \
	'recompress-algorithms = zsdt'
run_test check-config-level-range t_check_config_error 3 '[global]' \
	'recompress-algorithms = zstd' 'algorithm-params = zstd:level=99'
run_test check-config-level-none t_check_config_error 4 '[global]' '' \
	'recompress-algorithms = zstd lzo' 'algorithm-params = 2:level=1'

t_check_config_backends() {
	conf '[global]' 'recompress-algorithms = zsdt' '' '[zram1]' \
		'recompress-algorithms = zstd deflate' 'algorithm-params = deflate:level=99'
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/out" "read $T/conf" \
		"device names not checked: no zram device under $ZRAM_RECOMPD_SYSROOT (No such file or directory)"
	expect_content "$T/err" \
		"$T/conf:2: key 'recompress-algorithms': 'zsdt' is not a compression backend of zram (842, lzo, lzo-rle, lz4, lz4hc, zstd, deflate); did you mean 'zstd'?" \
		"$T/conf:6: key 'algorithm-params': level 99 is out of range for deflate (-1 to 9): Linux 7.3+ fails disksize with EINVAL and the device gets no secondary"
	# --print-config still prints it (it loads); the check is --check-config's.
	zr --config "$T/conf" --print-config
	expect_rc 0
	expect_has "$T/out" "recompress-algorithms = zsdt"
	# The running kernel's comp_algorithm: deflate is not built into this one.
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 primary=lz4
	fr_dev "$R" 6.12 1 primary=lz4
	printf '%s\n' 'lzo-rle lzo [lz4] zstd' >"$(attr 0 comp_algorithm)"
	printf '%s\n' 'lzo-rle lzo [lz4] zstd' >"$(attr 1 comp_algorithm)"
	# A backend of zram this kernel lacks is a warning that says why: another kernel may
	# have it.
	conf '[zram1]' 'recompress-algorithms = zstd deflate'
	zro --check-config
	expect_rc 0
	expect_content "$T/err" \
		"$T/conf:2: warning: key 'recompress-algorithms': 'deflate' is not offered by this kernel (comp_algorithm: lzo-rle lzo lz4 zstd): a device set up with this list gets no secondary algorithm"
	expect_content "$T/out" "read $T/conf" "configuration OK, 1 warning"
}
run_test check-config-backends t_check_config_backends

# The shipped configuration on a fresh install, on kernels whose zram lacks zstd: a default
# is never an error. Without CONFIG_ZRAM_MULTI_COMP the news is that nothing will be
# recompressed, said once; with it, that the default zstd is not there.
t_check_config_shipped() {
	local prof=$1 want=$2
	build_version_root "$R" "$prof"
	mkdir -p "$T/cr/etc"
	cp "$HERE/../../etc/zram-recompd.conf" "$T/cr/etc/zram-recompd.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/cr zr --sysroot "$R" --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/cr/etc/zram-recompd.conf" "configuration OK, 1 warning"
	expect_content "$T/err" \
		"$T/cr/etc/zram-recompd.conf: warning: key 'recompress-algorithms' (default): $want"
	# No main file at all: the same, from the built-in defaults.
	rm "$T/cr/etc/zram-recompd.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/cr zr --sysroot "$R" --check-config
	expect_rc 0
	expect_content "$T/out" "no configuration file read: built-in defaults" \
		"configuration OK, 1 warning"
	expect_content "$T/err" \
		"(no main file): warning: key 'recompress-algorithms' (default): $want"
}
run_test check-config-shipped-nomc-nozstd t_check_config_shipped nomc-nozstd \
	"this kernel lacks CONFIG_ZRAM_MULTI_COMP (zram0 has no recomp_algorithm): nothing will be recompressed on this machine"
run_test check-config-shipped-nozstd t_check_config_shipped nozstd \
	"'zstd' is not offered by this kernel (comp_algorithm: lzo-rle lzo lz4 lz4hc deflate): a device set up with this list gets no secondary algorithm"
run_test check-config-shipped-ubuntu t_check_config_shipped ubuntu \
	"this kernel lacks CONFIG_ZRAM_MULTI_COMP (zram0 has no recomp_algorithm): nothing will be recompressed on this machine"

# Settings that cannot take effect are warnings: exit 0, "configuration OK, N warnings", each
# warning on stderr with FILE:LINE and the key; devices are looked for under the sysroot.
t_check_config_warnings() {
	build_version_root "$R" 6.12
	conf '[global]' 'devices = zram0 zram5' 'writeback = yes' 'writeback-bytes-per-day = 64M' \
		'writeback-bytes-per-pass = 128M' 'cold-idle-age-sec = 1d' 'cold-priority = 3' \
		'priority-idle = 2' '' '[zram99]' 'compact = never'
	zro --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" "configuration OK, 6 warnings"
	expect_content "$T/err" \
		"$T/conf:5: warning: key 'writeback-bytes-per-pass': writeback-bytes-per-pass (128M) is above writeback-bytes-per-day (64M) in [global]: a pass never writes more than the day's budget" \
		"$T/conf:8: warning: key 'priority-idle': priority 2 but recompress-algorithms of [global] has 1 algorithm: the idle pass uses every secondary instead" \
		"$T/conf:7: warning: key 'cold-priority': cold-priority = 3 but recompress-algorithms of [global] has 1 algorithm: the cold tier never runs" \
		"$T/conf:3: warning: key 'writeback': yes in [global], but zram0 has no backing device and backing-device is not set: nothing can be written back" \
		"$T/conf:10: warning: section [zram99]: zram99 is not selected by 'devices': these settings are never used" \
		"$T/conf:2: warning: key 'devices': zram5: no such device (present: zram0); managed when it appears"
	# With every device selected, [zram99] is absent rather than unselected.
	conf '[global]' '[zram99]' 'compact = never'
	zro --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" "configuration OK, 1 warning"
	expect_content "$T/err" \
		"$T/conf:2: warning: section [zram99]: no such device (present: zram0); these settings wait for zram99"
	# A backing device set on the device (by its zram setup) is enough.
	printf '/dev/vdb\n' >"$(attr 0 backing_dev)"
	conf '[global]' 'writeback = yes'
	zro --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" "configuration OK"
	expect_content "$T/err"
	# Warnings and an error: exit 1, both printed.
	conf '[global]' 'writeback-bytes-per-pass = 2G' 'recompress-algorithms = zstd lz5'
	zro --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_count "$T/err" "warning: key 'writeback-bytes-per-pass'" 1
	expect_count "$T/err" "'lz5' is not a compression backend of zram" 1
	expect_content "$T/out" "read $T/conf"
}
run_test check-config-warnings t_check_config_warnings

# Settings that load but cannot take effect on this machine are warnings that say why, on
# the line that set them: exit 0, "configuration OK, N warnings" (N counts every warning of
# the case, the one asserted included). Most harmful first.
t_check_config_effect() {
	local prof=$1 n=$2 want=$3
	shift 3
	build_version_root "$R" "$prof"
	conf "$@"
	zro --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" \
		"configuration OK, $n warning$([ "$n" = 1 ] || echo s)"
	grep -qxF -- "$T/conf:$want" "$T/err" || die "err lacks the line '$T/conf:$want': $(oneline "$T/err")"
}
run_test check-config-effect-wb-kernel t_check_config_effect fedora 1 \
	"2: warning: key 'writeback': writeback = yes with backing-device /dev/vdb in [global], but this kernel (6.14.5-300.fc42.x86_64) has no CONFIG_ZRAM_WRITEBACK: no backing device can be set and nothing is written back" \
	'[global]' 'writeback = yes' 'backing-device = /dev/vdb' 'backing-encryption = yes'
run_test check-config-effect-priority-6.10 t_check_config_effect 6.10 2 \
	"3: warning: key 'priority-idle': priority 1, but this kernel (6.10.14) has no recompress priority= (Linux 6.12+): the idle pass uses every secondary in order instead" \
	'[global]' 'cold-idle-age-sec = 1d' 'priority-idle = 1' 'cold-priority = 1'
run_test check-config-effect-cold-6.10 t_check_config_effect 6.10 2 \
	"2: warning: key 'cold-idle-age-sec': this kernel (6.10.14) has no recompress priority= (Linux 6.12+): the cold tier never runs" \
	'[global]' 'cold-idle-age-sec = 1d' 'priority-idle = 1' 'cold-priority = 1'
run_test check-config-effect-params-6.2 t_check_config_effect 6.2 1 \
	"2: warning: key 'algorithm-params': needs Linux 6.12+ (algorithm_params), this kernel is 6.2.16: ignored, the secondaries use their default levels" \
	'[global]' 'algorithm-params = zstd:level=9'
run_test check-config-effect-max-pages-6.2 t_check_config_effect 6.2 1 \
	"3: warning: key 'max-pages-per-batch': needs Linux 6.10+ (recompress max_pages=), this kernel is 6.2.16: ignored, one recompress write does a whole step" \
	'[global]' '' 'max-pages-per-batch = 1024'
run_test check-config-effect-wb-batch-6.12 t_check_config_effect 6.12 1 \
	"3: warning: key 'writeback-batch-size': needs Linux 6.19+ (writeback_batch_size), this kernel is 6.12.118: ignored" \
	'[zram0]' 'writeback = no' 'writeback-batch-size = 64'
run_test check-config-effect-compressed-wb-6.12 t_check_config_effect 6.12 1 \
	"2: warning: key 'compressed-writeback': needs Linux 7.0+ (compressed_writeback), this kernel is 6.12.118: ignored, pages are written back decompressed" \
	'[global]' 'compressed-writeback = yes'
run_test check-config-effect-idle-age t_check_config_effect fedora 1 \
	"2: warning: key 'idle-age-max-sec': this kernel (6.14.5-300.fc42.x86_64) has no CONFIG_ZRAM_TRACK_ENTRY_ACTIME, so zram keeps no access times: every page is marked idle at once, whatever its age" \
	'[global]' 'idle-age-max-sec = 4h'
run_test check-config-effect-threshold t_check_config_effect 6.12 1 \
	"2: warning: key 'threshold-bytes': 3700 is not below this kernel's huge_class_size (3625 with 4 KiB pages): every recompress write with it fails with EINVAL" \
	'[global]' 'threshold-bytes = 3700'
run_test check-config-effect-global-only t_check_config_effect 6.12 1 \
	"4: warning: key 'memory-stall-us': the memory pressure trigger is system-wide and set from [global] (memory-stall-us = 150ms): this line in [zram0] is never used" \
	'[global]' '' '[zram0]' 'memory-stall-us = 1s'
run_test check-config-effect-cpu-share t_check_config_effect 6.12 1 \
	"3: warning: key 'cpu-share-pressure-percent': cpu-share-pressure-percent (20%) is below cpu-share-max-percent (50%) in [global]: the share under memory pressure is raised to 50%" \
	'[global]' 'cpu-share-max-percent = 50' 'cpu-share-pressure-percent = 20'
run_test check-config-effect-backing-file-unused t_check_config_effect 6.12 1 \
	"2: warning: key 'writeback': backing-file /var/z.img in [zram0] with writeback = no: the file is created and attached (backing-file-size) but nothing is ever written to it" \
	'[zram0]' 'writeback = no' 'backing-file = /var/z.img'
run_test check-config-effect-metrics-tmp t_check_config_effect 6.12 1 \
	"2: warning: key 'metrics-file': /tmp/m.prom: zram-recompd.service has PrivateTmp=yes, so the daemon writes it into a /tmp of its own that nothing else sees" \
	'[global]' 'metrics-file = /tmp/m.prom'
run_test check-config-effect-metrics-missing-dir t_check_config_effect 6.12 1 \
	"2: warning: key 'metrics-file': /var/lib/nothere/m.prom: its directory cannot be opened (No such file or directory): the daemon writes no metrics until it exists" \
	'[global]' 'metrics-file = /var/lib/nothere/m.prom'
run_test check-config-effect-dict-no-zstd t_check_config_effect nozstd 1 \
	"3: warning: key 'zstd-dictionary': zstd-dictionary is on but recompress-algorithms of [global] has no zstd: no dictionary is used" \
	'[global]' 'recompress-algorithms = deflate' 'zstd-dictionary = yes'
run_test check-config-effect-same-as-primary t_check_config_effect 6.15 2 \
	"2: warning: key 'recompress-algorithms': lz4 is also the primary algorithm of zram0: recompressing with it at the same level gains nothing" \
	'[zram0]' 'recompress-algorithms = lz4 zstd deflate'

# Sizes and durations in the units admins write; --print-config prints plain numbers.
t_config_units() {
	conf '[global]' 'writeback-bytes-per-day = 1G' 'writeback-bytes-per-pass = 64M' \
		'idle-age-max-sec = 4h' 'interval-sec = 5min' 'memory-stall-us = 150ms' \
		'max-write-ms = 1s' 'cold-idle-age-sec = 1d 12h'
	zr --config "$T/conf" --print-config
	expect_rc 0
	expect_line "$T/out" "writeback-bytes-per-day = 1073741824"
	expect_line "$T/out" "writeback-bytes-per-pass = 67108864"
	expect_line "$T/out" "idle-age-max-sec = 14400"
	expect_line "$T/out" "interval-sec = 300"
	expect_line "$T/out" "memory-stall-us = 150000"
	expect_line "$T/out" "max-write-ms = 1000"
	expect_line "$T/out" "cold-idle-age-sec = 129600"
	conf '[global]' 'interval-sec = 1500ms'
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/err" \
		"$T/conf:2: key 'interval-sec': '1500ms' is not a whole number of seconds"
	# Bounds and comparisons in the units the value was written in.
	conf '[global]' 'idle-age-max-sec = 400d' 'writeback-bytes-per-day = 1K' \
		'memory-stall-us = 2s' 'interval-sec = 90000'
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/err" "$T/conf:2: key 'idle-age-max-sec': '400d' is out of range 0-365d" \
		"$T/conf:3: key 'writeback-bytes-per-day': '1K' is out of range 4K-1P (at least the smallest page, 4 KiB)" \
		"$T/conf:4: key 'memory-stall-us': '2s' is out of range 0-1s (microseconds of memory stall per second; 0 = off)" \
		"$T/conf:5: key 'interval-sec': '90000' is out of range 1-86400"
	conf '[global]' 'idle-age-min-sec = 5h' 'idle-age-max-sec = 1h 30min'
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/err" \
		"$T/conf:3: key 'idle-age-max-sec': idle-age-min-sec (5h) is greater than idle-age-max-sec (1h 30min) in [global]"
	# An unknown key names the nearest one.
	conf '[global]' 'recompress-algorithm = zstd'
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/err" \
		"$T/conf:2: unknown key 'recompress-algorithm' in section [global]; did you mean 'recompress-algorithms'?"
}
run_test config-units t_config_units

# A 4096-character line (conf(5)); one more is an error naming the line.
t_config_long_line() {
	local pad
	pad=$(printf '%*s' 4000 '' | tr ' ' x)
	conf '[global]' "metrics-file = /run/m.prom ; $pad$(printf '%*s' 67 '' | tr ' ' y)"
	[ "$(sed -n 2p "$T/conf" | tr -d '\n' | wc -c)" = 4096 ] || die "test line is not 4096 long"
	zr --config "$T/conf" --check-config
	expect_rc 0
	conf '[global]' "metrics-file = /run/m.prom ; ${pad}$(printf '%*s' 68 '' | tr ' ' y)"
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/err" "$T/conf:2: line too long (more than 4096 characters)"
}
run_test config-long-line t_config_long_line

# At run time: a priority the device cannot honour, and configured devices that are absent.
t_once_config_notes() {
	build_version_root "$R" 6.12
	conf '[global]' 'devices = zram0 zram5' 'priority-idle = 3'
	zro --once --dry-run
	expect_rc 0
	expect_has "$T/err" "zram-recompd: warning: zram5 (devices): no such device"
	expect_has "$T/err" "zram-recompd: warning: zram0: priority-idle = 3: the device has 1 secondary algorithm; every secondary is used instead"
	expect_has "$T/out" "zram0: would write 'type=idle priority=1 max_pages=64' to recompress"
	conf '[global]' 'devices = zram5'
	zro --once --dry-run
	expect_rc 3
	expect_content "$T/err" "zram-recompd: warning: zram5 (devices): no such device" \
		"zram-recompd: error: none of the zram devices present is selected by 'devices'"
}
run_test once-config-notes t_once_config_notes

# Errors in a drop-in name the drop-in file (the search path under ZRAM_RECOMPD_CONFIG_ROOT).
t_check_config_dropin() {
	mkdir -p "$T/root/etc" "$T/root/run/zram-recompd.conf.d"
	printf '%s\n' '[global]' 'compact = never' >"$T/root/etc/zram-recompd.conf"
	printf '%s\n' '[global]' 'max-pages-per-batch = 0' >"$T/root/run/zram-recompd.conf.d/50-local.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/root zr --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/err" "$T/root/run/zram-recompd.conf.d/50-local.conf:2: key 'max-pages-per-batch': '0' is out of range 1-4294967296"
	expect_content "$T/out" "read $T/root/etc/zram-recompd.conf" \
		"read $T/root/run/zram-recompd.conf.d/50-local.conf"
}
run_test check-config-dropin-error t_check_config_dropin

# A NUL byte ends nothing: its line is an error of its own and the next line is read as
# usual, not swallowed as the rest of a "line too long" (issue 11 #10).
t_check_config_nul() {
	printf '[global]\ncompact = ne\000ver\nbogus-key = 1\ninterval-sec = 60\n' >"$T/conf"
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_has "$T/err" "$T/conf:2: NUL byte"
	expect_has "$T/err" "$T/conf:3: unknown key 'bogus-key'"
	expect_not "$T/err" "too long"
	expect_count "$T/err" "$T/conf:" 2
}
run_test check-config-nul-byte t_check_config_nul

# A FIFO (or any other non-regular file) is refused at once, not waited on (issue 11 #10).
t_check_config_fifo() {
	mkfifo "$T/fifo.conf"
	timeout -k 2 5 ${RUNNER:+"$RUNNER"} "$BIN" --config "$T/fifo.conf" --check-config >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" != 124 ] || die "--check-config hangs on a FIFO"
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_has "$T/err" "$T/fifo.conf: not a regular file"
	# A FIFO drop-in is skipped like any other non-regular entry; a FIFO main file of the
	# search path is refused like one given with --config.
	mkdir -p "$T/root/etc/zram-recompd.conf.d"
	printf '[global]\n' >"$T/root/etc/zram-recompd.conf"
	mkfifo "$T/root/etc/zram-recompd.conf.d/10-fifo.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/root timeout -k 2 5 ${RUNNER:+"$RUNNER"} "$BIN" --check-config >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" != 124 ] || die "--check-config hangs on a FIFO drop-in"
	expect_rc 0
	expect_content "$T/out" "read $T/root/etc/zram-recompd.conf" \
		"skipped $T/root/etc/zram-recompd.conf.d/10-fifo.conf (not a regular file)" \
		"configuration OK"
	rm "$T/root/etc/zram-recompd.conf"
	mkfifo "$T/root/etc/zram-recompd.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/root timeout -k 2 5 ${RUNNER:+"$RUNNER"} "$BIN" --check-config >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" != 124 ] || die "--check-config hangs on a FIFO main file"
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_has "$T/err" "$T/root/etc/zram-recompd.conf: not a regular file"
}
run_test check-config-fifo t_check_config_fifo

# --once refuses to run on a bad configuration (exit 2, nothing written).
t_once_bad_config() {
	build_version_root "$R" 6.12
	conf '[global]' 'passes = idle everything'
	snap
	zro --once
	expect_rc 2
	expect_has "$T/err" "$T/conf:2:"
	expect_changed
}
run_test once-bad-config t_once_bad_config

# --print-config writes a file that loads again and prints the same.
t_print_config_roundtrip() {
	conf '[global]' 'devices = zram0 zram2' 'recompress-algorithms = zstd deflate' \
		'algorithm-params = deflate:level=9' 'passes = huge idle' 'threshold-bytes = 2048' \
		'idle-age-max-sec = 0' '' '[zram2]' 'recompress-algorithms = lz4hc' 'algorithm-params =' \
		'compact = never' \
		'' '[zram0]' 'max-pages-per-pass = 0'
	zr --config "$T/conf" --print-config
	expect_rc 0
	expect_content "$T/err"
	cp "$T/out" "$T/printed.conf"
	expect_has "$T/printed.conf" "devices = zram0 zram2"
	expect_has "$T/printed.conf" "threshold-bytes = 2048"
	expect_has "$T/printed.conf" "[zram2]"
	expect_has "$T/printed.conf" "# read $T/conf"
	zr --config "$T/printed.conf" --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/printed.conf" \
		"device names not checked: no zram device under $ZRAM_RECOMPD_SYSROOT (No such file or directory)" "configuration OK"
	zr --config "$T/printed.conf" --print-config
	expect_rc 0
	# The same but for the header naming the file read.
	grep -v '^#' "$T/out" >"$T/out2"
	grep -v '^#' "$T/printed.conf" >"$T/printed2"
	cmp -s "$T/out2" "$T/printed2" || die "--print-config of its own output differs"
	# Defaults (an empty file) print as a loadable file too.
	: >"$T/none.conf"
	zr --config "$T/none.conf" --print-config
	expect_rc 0
	cp "$T/out" "$T/defaults.conf"
	expect_has "$T/defaults.conf" "recompress-algorithms = zstd"
	zr --config "$T/defaults.conf" --check-config
	expect_rc 0
}
run_test print-config-roundtrip t_print_config_roundtrip

# The printed configuration drives --once exactly like the original.
t_print_config_same_effect() {
	build_version_root "$R" 6.12
	conf '[global]' 'passes = huge' 'threshold-bytes = 1024' 'compact = never' \
		'max-pages-per-batch = 4096' 'max-write-ms = 0'
	zro --print-config
	cp "$T/out" "$T/printed.conf"
	zr --sysroot "$R" --config "$T/printed.conf" --once
	expect_rc 0
	expect_content "$(attr 0 recompress)" 'type=huge threshold=1024 priority=1 max_pages=4096'
	expect_content "$(attr 0 compact)"
}
run_test print-config-same-effect t_print_config_same_effect

# expect_line FILE LINE: FILE has exactly this line.
expect_line() {
	grep -qxF -- "$2" "$1" || die "${1#"$T"/} lacks the line '$2': $(oneline "$1")"
}

# The search path (zram-recompd.conf(5), FILES) in a fake tree under ZRAM_RECOMPD_CONFIG_ROOT:
# the first main file only; the drop-ins of all four directories merged by name, the one
# in the earliest directory counting; a link to /dev/null masks. The effective values are
# the ones --print-config shows and --once uses.
t_config_search_path() {
	local rt=$T/root
	build_version_root "$R" 6.12
	mkdir -p "$rt/etc/zram-recompd.conf.d" "$rt/run/zram-recompd.conf.d" \
		"$rt/usr/local/lib" "$rt/usr/lib/zram-recompd.conf.d"
	printf '%s\n' '[global]' 'compact = never' 'max-pages-per-batch = 100' \
		>"$rt/usr/lib/zram-recompd.conf"
	printf '%s\n' '[global]' 'compact = always' >"$rt/usr/local/lib/zram-recompd.conf"
	printf '%s\n' '[global]' 'threshold-bytes = 1000' '[zram1]' 'interval-sec = 60' \
		>"$rt/usr/lib/zram-recompd.conf.d/10-vendor.conf"
	# Invalid: reading either would fail the load.
	printf '%s\n' '[global]' 'passes = idel' >"$rt/usr/lib/zram-recompd.conf.d/20-masked.conf"
	ln -s /dev/null "$rt/etc/zram-recompd.conf.d/20-masked.conf"
	printf '%s\n' '[global]' 'passes = idel' >"$rt/usr/lib/zram-recompd.conf.d/30-replaced.conf"
	# Below max-write-ms's first write (64 pages), so it is what --once writes.
	printf '%s\n' '[global]' 'max-pages-per-batch = 30' \
		>"$rt/run/zram-recompd.conf.d/30-replaced.conf"
	printf '%s\n' '[global]' 'passes = huge' '[zram1]' 'interval-sec = 90' \
		>"$rt/etc/zram-recompd.conf.d/40-admin.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$rt zr --print-config
	expect_rc 0
	expect_content "$T/err"
	grep '^#' "$T/out" >"$T/header"
	expect_content "$T/header" \
		"# Effective configuration (zram-recompd --print-config) from:" \
		"# read $rt/usr/local/lib/zram-recompd.conf" \
		"# overridden $rt/usr/lib/zram-recompd.conf" \
		"# read $rt/usr/lib/zram-recompd.conf.d/10-vendor.conf" \
		"# masked $rt/etc/zram-recompd.conf.d/20-masked.conf" \
		"# overridden $rt/usr/lib/zram-recompd.conf.d/20-masked.conf" \
		"# read $rt/run/zram-recompd.conf.d/30-replaced.conf" \
		"# overridden $rt/usr/lib/zram-recompd.conf.d/30-replaced.conf" \
		"# read $rt/etc/zram-recompd.conf.d/40-admin.conf"
	expect_line "$T/out" "compact = always"
	expect_line "$T/out" "max-pages-per-batch = 30"
	expect_line "$T/out" "threshold-bytes = 1000"
	expect_line "$T/out" "passes = huge"
	expect_line "$T/out" "interval-sec = 90"
	# [global]'s default and [zram1]'s: 40-admin's section over 10-vendor's.
	[ "$(grep -c '^interval-sec = ' "$T/out")" = 2 ] || die "interval-sec: $(oneline "$T/out")"
	cp "$T/out" "$T/printed.conf"

	# --check-config lists the same files.
	ZRAM_RECOMPD_CONFIG_ROOT=$rt zr --check-config
	expect_rc 0
	sed 's/^# //' "$T/header" | tail -n +2 >"$T/want"
	# a [zram1] section, and no sysroot to look for it
	echo "device names not checked: no zram device under $ZRAM_RECOMPD_SYSROOT (No such file or directory)" >>"$T/want"
	echo "configuration OK" >>"$T/want"
	cmp -s "$T/out" "$T/want" || die "--check-config lists $(oneline "$T/out")"

	# --once uses them.
	ZRAM_RECOMPD_CONFIG_ROOT=$rt zr --sysroot "$R" --once --device zram0
	expect_rc 0
	expect_content "$(attr 0 recompress)" 'type=huge threshold=1000 priority=1 max_pages=30'

	# The printed file is the same configuration, read alone with --config.
	ZRAM_RECOMPD_CONFIG_ROOT=$rt zr --config "$T/printed.conf" --print-config
	expect_rc 0
	grep -v '^#' "$T/out" >"$T/out2"
	grep -v '^#' "$T/printed.conf" >"$T/printed2"
	cmp -s "$T/out2" "$T/printed2" || die "the printed search-path configuration differs"

	# --config FILE: only FILE, neither the search path nor FILE.d.
	conf '[global]' 'compact = never'
	mkdir -p "$T/conf.d"
	printf '%s\n' '[global]' 'threshold-bytes = 2000' >"$T/conf.d/50-x.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$rt zr --config "$T/conf" --print-config
	expect_rc 0
	grep '^#' "$T/out" >"$T/header"
	expect_content "$T/header" \
		"# Effective configuration (zram-recompd --print-config) from:" "# read $T/conf"
	expect_line "$T/out" "compact = never"
	expect_line "$T/out" "threshold-bytes = 0"
	expect_line "$T/out" "max-pages-per-batch = 2048"
	expect_not "$T/out" "[zram1]"

	# An empty tree: the built-in defaults, said so.
	ZRAM_RECOMPD_CONFIG_ROOT=$T/empty zr --print-config
	expect_rc 0
	expect_has "$T/out" "# no configuration file read: built-in defaults"
	expect_line "$T/out" "compact = auto"

	# An empty root is refused, as an empty sysroot is.
	ZRAM_RECOMPD_CONFIG_ROOT='' zr --check-config
	expect_rc 2
	expect_content "$T/err" \
		"zram-recompd: error: ZRAM_RECOMPD_CONFIG_ROOT is set but empty (unset it for /)"
}
run_test config-search-path t_config_search_path

# Symlinks on the search path are followed (config management links files into /etc), as
# systemd follows them; a link to /dev/null masks. --config FILE may be one too.
t_config_search_symlink() {
	local rt=$T/root
	mkdir -p "$rt/etc/zram-recompd.conf.d"
	conf '[global]' 'compact = never'
	ln -s "$T/conf" "$rt/etc/zram-recompd.conf.d/50-link.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$rt zr --print-config
	expect_rc 0
	expect_has "$T/out" "compact = never"
	ln -sf /dev/null "$rt/etc/zram-recompd.conf.d/50-link.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$rt zr --print-config
	expect_rc 0
	expect_has "$T/out" "compact = auto"
	ln -s "$T/conf" "$T/link.conf"
	zr --config "$T/link.conf" --print-config
	expect_rc 0
	expect_has "$T/out" "compact = never"
}
run_test config-search-symlink t_config_search_symlink

# CLI usage errors. (No arguments at all starts the daemon: not run here.)
t_usage() {
	zr --once --json --config "$T/conf"
	expect_rc 2
	zr --dry-run --config "$T/conf"
	expect_rc 2
	zr --once status --config "$T/conf"
	expect_rc 2
	zr --bogus
	expect_rc 2
	zr --version
	expect_rc 0
	expect_has "$T/out" "zram-recompd "
	# the libraries it runs with, as the linker loaded them
	grep -Eq '^liblz4 [0-9]+\.[0-9]+\.[0-9]+, libzstd [0-9]+\.[0-9]+\.[0-9]+, zlib [0-9.]+, libsystemd libsystemd\.so\.0(\.[0-9]+)*$' "$T/out" ||
		die "--version: no library versions: $(oneline "$T/out")"
}
run_test usage-errors t_usage

# bash completion (etc/completion/zram-recompd) with stand-ins for bash-completion's
# helpers: subcommands and options, device names from /sys/block, advise's own options.
t_bash_completion() {
	local out
	out=$(bash -c '
		_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
			words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
		_filedir() { COMPREPLY=(FILES); }
		complete() { :; }
		. "$1"
		try() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _zram_recompd
			echo "$*: ${COMPREPLY[*]}"; }
		try zram-recompd st
		try zram-recompd --dry
		try zram-recompd --config x
		try zram-recompd advise --sa
		try zram-recompd advise --primary zs
		try zram-recompd status --js
		try zram-recompd --no-s
		try zram-recompd ado
		try zram-recompd adopt --v
		try zram-recompd adopt zr
	' sh "$HERE/../../etc/completion/zram-recompd" 2>&1)
	printf '%s\n' "$out" >"$T/out"
	expect_has "$T/out" "zram-recompd st: status"
	expect_has "$T/out" "zram-recompd --dry: --dry-run"
	expect_has "$T/out" "zram-recompd --config x: FILES"
	expect_has "$T/out" "zram-recompd advise --sa: --samples --save"
	expect_has "$T/out" "zram-recompd advise --primary zs: zstd"
	expect_has "$T/out" "zram-recompd status --js: --json"
	expect_has "$T/out" "zram-recompd --no-s: --no-sandbox"
	expect_has "$T/out" "zram-recompd ado: adopt"
	expect_has "$T/out" "zram-recompd adopt --v: --via-temp"
	# device names come from /sys/block (the host's: none, or its zram devices)
	grep -Eq '^zram-recompd adopt zr:( zram[0-9]+)*$' "$T/out" ||
		die "adopt zr: not device names: $(oneline "$T/out")"
}
run_test bash-completion t_bash_completion

# A long option without its argument names the option in one printable line (issue 11 #10;
# getopt_long's optopt for it is the option's value, 0x100 and up, not a character).
t_usage_missing_arg() {
	local o
	for o in --config --sysroot --device; do
		zr "$o"
		expect_rc 2
		[ "$(wc -l <"$T/err")" = 1 ] || die "$o: not one line: $(oneline "$T/err")"
		LC_ALL=C grep -q '[^[:print:]]' "$T/err" && die "$o: unprintable byte in: $(oneline "$T/err")"
		expect_has "$T/err" "'$o'"
	done
}
run_test usage-missing-argument t_usage_missing_arg

# "advise" as the value of an abbreviated option (--conf for --config) is not the subcommand.
t_usage_advise_value() {
	printf '[global]\ncompact = never\n' >"$T/advise"
	cd "$T" || die "cd $T"
	zr --conf advise --check-config
	expect_rc 0
	expect_content "$T/out" "read advise" "configuration OK"
	zr --sys advise --conf advise --check-config
	expect_rc 0
	expect_content "$T/out" "read advise" "configuration OK"
}
run_test usage-advise-as-option-value t_usage_advise_value

# The sysroot can come from the environment.
t_env_sysroot() {
	build_version_root "$R" 6.12
	ZRAM_RECOMPD_SYSROOT=$R zr --config "$T/conf" status
	expect_rc 0
	expect_has "$T/out" "kernel 6.12.118"
	# --sysroot takes precedence over the environment.
	fr_new "$T/other" 7.0
	fr_dev "$T/other" 7.0 0
	ZRAM_RECOMPD_SYSROOT=$R zr --sysroot "$T/other" --config "$T/conf" status
	expect_rc 0
	expect_has "$T/out" "kernel 7.0.0"
}
run_test env-sysroot t_env_sysroot

# An empty root is a mistake, never "/" (issue 11 #4): --once would write to the host's /sys.
t_empty_sysroot() {
	zr --sysroot "" --config "$T/conf" --once --dry-run
	expect_rc 2
	[ "$(wc -l <"$T/err")" = 1 ] || die "not one line: $(oneline "$T/err")"
	expect_has "$T/err" "sysroot"
	ZRAM_RECOMPD_SYSROOT='' zr --config "$T/conf" status
	expect_rc 2
	[ "$(wc -l <"$T/err")" = 1 ] || die "not one line: $(oneline "$T/err")"
	expect_has "$T/err" "ZRAM_RECOMPD_SYSROOT"
	# --sysroot still wins over the variable, even an empty one.
	build_version_root "$R" 6.12
	ZRAM_RECOMPD_SYSROOT='' zr --sysroot "$R" --config "$T/conf" status
	expect_rc 0
}
run_test empty-sysroot t_empty_sysroot

# Writeback (issue 12) ----------------------------------------------------------------------
# The fake bd_stat never moves, so every step writes nothing and each gets the whole budget:
# the command sequences are what is checked (the VM tier checks the effects).

# wb_root VER [BACKING [PAGE]]: zram0 with CONFIG_ZRAM_WRITEBACK, backing_dev BACKING ("none"),
# the kernel's page size PAGE (default 4096).
wb_root() {
	fr_new "$R" "$1"
	fr_dev "$R" "$1" 0 wb=1 "page=${3:-4096}"
	fr_kconfig "$R" boot 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_MEMORY_TRACKING=y' \
		'CONFIG_ZRAM_TRACK_ENTRY_ACTIME=y' 'CONFIG_ZRAM_MULTI_COMP=y' 'CONFIG_ZRAM_WRITEBACK=y'
	printf '%s\n' "${2:-/dev/loop0}" >"$(attr 0 backing_dev)"
}

# writeback syntax by version: the bare word before 6.16, type= from 6.16; the limit (8 MiB
# a day = 2048 pages) before each step, enabled once, disabled again after the steps.
# No block_state here: the idle and huge_idle steps cannot know page ages and are skipped
# (one notice), never run with the kernel's IDLE filter.
t_wb_version() {
	local ver=$1 p=''

	wb_root "$ver"
	conf '[global]' 'writeback = yes' 'writeback-bytes-per-day = 8388608'
	fr_ver_ge "$ver" 6.16 && p='type='
	snap
	zro --once
	expect_rc 0
	expect_content "$(attr 0 writeback)" "${p}incompressible"
	# (each fake file starts with the kernel's value: limit 0, enable 0)
	expect_content "$(attr 0 writeback_limit)" 0 0 2048
	expect_content "$(attr 0 writeback_limit_enable)" 0 1 0
	# only the recompression mark: writeback never marks idle
	expect_content "$(attr 0 idle)" 14400
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)" "$(dp 0 writeback)" \
		"$(dp 0 writeback_limit)" "$(dp 0 writeback_limit_enable)"
	expect_has "$T/out" "zram0: writeback incompressible: 0 pages (0 B)"
	expect_has "$T/out" "zram0: writeback idle: 0 pages (0 B), 0.000 s in kernel, stop: skipped (no block_state: page ages unknown)"
	expect_count "$T/err" "writeback idle/huge_idle skipped: page ages unknown without debugfs block_state" 1
	expect_has "$T/out" "zram0: writeback: 0 pages (0 B) written back, pool 0 B, budget left 8.0 MiB of 8.0 MiB, bd_stat 0 0 0"
	# writeback comes after the recompression steps and before compaction
	awk '/pass huge[ :]/{p=NR} /writeback idle:/{w=NR} /compact:/{c=NR} END{exit !(p && w > p && c > w)}' \
		"$T/out" || die "order of the report lines: $(oneline "$T/out")"
	grep -q '^zram0 .* wb_pages=0 wb_day_left=8388608 wb_day_at=[1-9]' "$T/no-state/state" ||
		die "state: $(oneline "$T/no-state/state")"
	# status says why
	zr --sysroot "$R" --config "$T/conf" status
	expect_rc 0
	expect_has "$T/out" "  writeback ages: unknown (no debugfs block_state): idle and huge_idle writeback are skipped"
	zr --sysroot "$R" --config "$T/conf" status --json
	expect_has "$T/out" '"idle_by_age":false'
}
for v in 6.2 6.16 7.3; do
	run_test "writeback-$v" t_wb_version "$v"
done

# idle and huge_idle by age (writeback-idle-age-sec) from block_state: the old slots by
# index, never young ones, never ac_time 0 (recompressed, not read since), never s or w.
# ac_time 1 is old for an age of 5 s (the host has been up longer); 4000000000 is young.
# 6.12: one page_index= per write; 7.3: page_indexes= ranges, several keys per write.
wb_agefile() {
	local f=$R/sys/kernel/debug/zram/zram0/block_state idx sec flags
	mkdir -p "${f%/*}"
	: >"$f"
	while read -r idx sec flags; do
		printf '%12d %12d.%06d %s\n' "$idx" "$sec" 0 "$flags" >>"$f"
	done <<'EOF'
0 1 ......
1 1 ..h...
2 4000000000 ...i..
3 0 ...ir.
4 1 ..h..n
5 1 .....n
6 0 s..i..
7 0 .w.i..
8 1 ......
9 1 ....r.
EOF
}
t_wb_by_age() {
	local ver=$1

	wb_root "$ver"
	wb_agefile
	conf '[global]' 'writeback = yes' 'writeback-bytes-per-day = 8388608' \
		'writeback-types = huge_idle idle' 'writeback-idle-age-sec = 5'
	snap
	zro --once
	expect_rc 0
	if fr_ver_ge "$ver" 6.16; then
		expect_content "$(attr 0 writeback)" "page_index=1 page_index=4" \
			"page_indexes=0-1 page_indexes=4-5 page_indexes=8-9"
	else
		expect_content "$(attr 0 writeback)" page_index=1 page_index=4 page_index=0 \
			page_index=1 page_index=4 page_index=5 page_index=8 page_index=9
	fi
	# the fake bd_stat does not move: each step gets the whole budget
	expect_content "$(attr 0 writeback_limit)" 0 0 2048 2048
	expect_content "$(attr 0 idle)" 14400
	# (the time in the kernel apart: under qemu-user the fake write takes milliseconds)
	expect_has "$T/out" "zram0: writeback huge_idle: 0 pages (0 B), "
	expect_has "$T/out" " s in kernel, stop: done; by age >= 5 s: 2 selected"
	expect_has "$T/out" "younger, 1 of unknown age (recompressed), 0 over the budget"
	expect_not "$T/err" "page ages unknown"
	zr --sysroot "$R" --config "$T/conf" status --json
	expect_has "$T/out" '"idle_by_age":true'
	# a budget of 3 pages: the first three old slots only
	: >"$(attr 0 writeback)"
	conf '[global]' 'writeback = yes' 'writeback-bytes-per-day = 12288' \
		'writeback-types = idle' 'writeback-idle-age-sec = 5'
	zro --once
	expect_rc 0
	if fr_ver_ge "$ver" 6.16; then
		expect_content "$(attr 0 writeback)" "page_indexes=0-1 page_index=4"
	else
		expect_content "$(attr 0 writeback)" page_index=0 page_index=1 page_index=4
	fi
	expect_has "$T/out" "3 selected"
	expect_has "$T/out" "3 over the budget"
}
for v in 6.12 7.3; do
	run_test "writeback-by-age-$v" t_wb_by_age "$v"
done

# 16 KiB pages (Raspberry Pi 5, issue 26): every page count follows the kernel's page size,
# which zram shows as queue/physical_block_size. 48 KiB a day are 3 pages here (12 with 4 KiB
# pages would take every old slot, see above); writeback_limit and bd_stat count 4 KiB units
# whatever the page size, so 3 pages are a limit of 12, and bd_stat's 40 units are 10 pages.
t_page_16k() {
	wb_root 7.3 /dev/loop0 16384
	wb_agefile
	printf '%8s %8s %8s\n' 40 8 400 >"$(attr 0 bd_stat)"
	conf '[global]' 'writeback = yes' 'writeback-bytes-per-day = 49152' \
		'writeback-types = idle' 'writeback-idle-age-sec = 5' "metrics-file = $T/m.prom"
	zro --once
	expect_rc 0
	expect_content "$(attr 0 writeback)" "page_indexes=0-1 page_index=4"
	expect_content "$(attr 0 writeback_limit)" 0 0 12
	expect_has "$T/out" "3 selected"
	expect_has "$T/out" "3 over the budget"
	expect_has "$T/out" "zram0: writeback: 0 pages (0 B) written back, pool 0 B, budget left 48.0 KiB of 48.0 KiB, bd_stat 40 8 400"
	grep -q '^zram0 .* wb_pages=0 wb_day_left=49152 ' "$T/no-state/state" ||
		die "state: $(oneline "$T/no-state/state")"
	expect_has "$T/m.prom" 'zram_recompd_page_size_bytes{device="zram0"} 16384'
	expect_has "$T/m.prom" 'zram_recompd_backing_dev_pages{device="zram0"} 10'
	expect_has "$T/m.prom" 'zram_recompd_backing_dev_writes_pages{device="zram0"} 100'
	# 20 KiB a day: one whole page, a limit of 4 units (5 would wrap a <= 6.18 kernel)
	: >"$(attr 0 writeback)"
	conf '[global]' 'writeback = yes' 'writeback-bytes-per-day = 20480' \
		'writeback-types = idle' 'writeback-idle-age-sec = 5'
	zro --once
	expect_rc 0
	expect_content "$(attr 0 writeback)" "page_index=0"
	expect_content "$(attr 0 writeback_limit)" 0 0 12 0 4
	# a threshold at or above the page size cannot be written: 16383 can
	conf '[global]' 'threshold-bytes = 3000'
	: >"$(attr 0 recompress)"
	zro --once
	expect_rc 0
	expect_has "$(attr 0 recompress)" "threshold=3000"
	zr --sysroot "$R" --config "$T/conf" status
	expect_rc 0
	expect_has "$T/out" "zram0: initialized, disksize 1.0 GiB, 16 KiB pages"
	expect_has "$T/out" "  backing device: /dev/loop0: 10 pages stored, 100 written, 2 read back"
	zr --sysroot "$R" --config "$T/conf" status --json
	expect_has "$T/out" '"disksize":1073741824,"page_size":16384,'
	expect_has "$T/out" '"bd_stat":{"bd_count":40,"bd_reads":8,"bd_writes":400}'
}
run_test page-size-16k t_page_16k

# A device without a backing device: skipped with a line, no error, nothing written.
t_wb_no_backing() {
	wb_root 7.3 none
	conf '[global]' 'writeback = yes'
	zro --once
	expect_rc 0
	expect_content "$(attr 0 writeback)"
	expect_content "$(attr 0 writeback_limit)" 0
	expect_content "$(attr 0 writeback_limit_enable)" 0
	expect_has "$T/err" "zram0: writeback: no backing device"
	expect_has "$T/out" "zram0: writeback: skipped: no backing device"
	# and a kernel without CONFIG_ZRAM_WRITEBACK
	fr_new "$T/r2" 7.3
	fr_dev "$T/r2" 7.3 0
	zr --sysroot "$T/r2" --config "$T/conf" --once
	expect_rc 0
	expect_has "$T/err" "zram0: writeback: kernel built without CONFIG_ZRAM_WRITEBACK; skipped"
}
run_test writeback-no-backing-dev t_wb_no_backing

# The day budget comes from the state file: 10 pages left -> limit 10; none left -> skipped.
t_wb_day_budget() {
	local now

	wb_root 6.16
	conf '[global]' 'writeback = yes' 'writeback-bytes-per-day = 8388608' \
		'writeback-types = huge'
	now=$(date +%s)
	mkdir -p "$T/st"
	printf '%s\n' 'zram-recompd-state 2' "zram0 passes=1 pages_attempted=0 bytes_saved=0 mem_freed=0 incompressible=0 kernel_ns=0 errors=0 last_pass_unix=$now wb_pages=2038 wb_day_left=40960 wb_day_at=$now" >"$T/st/state"
	ZRAM_RECOMPD_STATE_DIR=$T/st zro --once
	expect_rc 0
	# a second or two of refill (8 MiB / 86400 s = 97 B/s) is not a page
	expect_content "$(attr 0 writeback_limit)" 0 0 10
	expect_content "$(attr 0 writeback)" type=huge
	sed -i "s/wb_day_left=[0-9]*/wb_day_left=100/" "$T/st/state"
	: >"$(attr 0 writeback)"
	ZRAM_RECOMPD_STATE_DIR=$T/st zro --once
	expect_rc 0
	expect_content "$(attr 0 writeback)"
	expect_has "$T/err" "zram0: writeback: budget spent"
}
run_test writeback-day-budget t_wb_day_budget

# The dry-run shows each value as it would be written, and what it means for a person
# (issue 27): the writeback budget in 4 KiB units and its size, the idle age and its
# duration; nothing is written.
t_wb_dry_run() {
	wb_root 6.16
	conf '[global]' 'writeback = yes' 'writeback-bytes-per-day = 8388608' \
		'writeback-types = huge'
	snap
	zro --once --dry-run
	expect_rc 0
	expect_has "$T/out" "zram0: would write '14400' to idle (4 h)"
	expect_has "$T/out" "zram0: would write '2048' to writeback_limit (8.0 MiB)"
	expect_has "$T/out" "zram0: would write '1' to writeback_limit_enable"
	expect_has "$T/out" "zram0: would write 'type=huge' to writeback"
	# nothing written
	expect_changed
}
run_test writeback-dry-run t_wb_dry_run

# writeback-batch-size: 6.19+ only; the device's value is put back after the pass (issue 25).
t_wb_batch_size() {
	wb_root 7.3
	conf '[global]' 'writeback = yes' 'writeback-batch-size = 64' 'writeback-types = idle'
	zro --once
	expect_rc 0
	expect_content "$(attr 0 writeback_batch_size)" 32 64 32
	R=$T/r2 wb_root 6.16
	zr --sysroot "$T/r2" --config "$T/conf" --once
	expect_rc 0
	expect_has "$T/err" "writeback-batch-size ignored: writeback_batch_size needs Linux 6.19"
}
run_test writeback-batch-size t_wb_batch_size

# Before disksize: backing-device and compressed-writeback (7.0+) like the algorithms;
# a backing_dev already set (zram-generator's writeback-device=) is kept.
t_wb_backing_setup() {
	fr_new "$R" 7.3
	fr_dev "$R" 7.3 0 init=0 wb=1 recomp=''
	conf '[global]' 'backing-device = /dev/loop0' 'compressed-writeback = yes'
	snap
	zro --once
	expect_rc 0
	expect_content "$(attr 0 compressed_writeback)" 0 1
	expect_content "$(attr 0 backing_dev)" none /dev/loop0
	expect_changed "$(dp 0 compressed_writeback)" "$(dp 0 backing_dev)" "$(dp 0 recomp_algorithm)"
	printf '/dev/sdb1\n' >"$(attr 0 backing_dev)"
	printf '0\n' >"$(attr 0 compressed_writeback)"
	: >"$(attr 0 recomp_algorithm)"
	snap
	zro --once
	expect_rc 0
	expect_changed "$(dp 0 recomp_algorithm)"
	expect_has "$T/err" "zram0: backing_dev is already /dev/sdb1; backing-device = /dev/loop0 not applied"
	# 6.16: no compressed_writeback
	fr_new "$T/r2" 6.16
	fr_dev "$T/r2" 6.16 0 init=0 wb=1 recomp=''
	zr --sysroot "$T/r2" --config "$T/conf" --once
	expect_rc 0
	expect_has "$T/err" "compressed-writeback ignored: compressed_writeback needs Linux 7.0"
	expect_content "$(fr_attr "$T/r2" 0 backing_dev)" none /dev/loop0
	# The kernel shows the device it opened (/dev/sdb1); a configured symlink to it
	# (/dev/disk/by-id/..., as udev makes them) is the same device: no notice (issue 25).
	mkdir -p "$R/dev/disk/by-id"
	: >"$R/dev/sdb1"
	ln -s ../../sdb1 "$R/dev/disk/by-id/ata-disk-part1"
	: >"$(attr 0 recomp_algorithm)"
	conf '[global]' 'backing-device = /dev/disk/by-id/ata-disk-part1'
	zro --once
	expect_rc 0
	expect_not "$T/err" "backing_dev is already"
}
run_test writeback-backing-setup t_wb_backing_setup

# status has a writeback line only where writeback is configured or a backing device is set:
# a kernel without CONFIG_ZRAM_WRITEBACK is no news to a device nobody asked to write back.
t_status_wb_lines() {
	# zram0, zram1: no CONFIG_ZRAM_WRITEBACK; writeback = yes for zram1 only
	fr_new "$R" 7.3
	fr_dev "$R" 7.3 0
	fr_dev "$R" 7.3 1
	conf '[global]' 'writeback = no' '[zram1]' 'writeback = yes'
	zro status
	expect_rc 0
	expect_count "$T/out" "writeback:      unsupported (kernel built without CONFIG_ZRAM_WRITEBACK)" 1
	awk '/^zram1:/{d=1} d && /writeback:      unsupported/{f=1} END{exit !f}' "$T/out" ||
		die "the unsupported line is not zram1's: $(oneline "$T/out")"
	# the JSON keeps its keys whatever the configuration
	zro status --json
	expect_rc 0
	expect_count "$T/out" '"writeback":null' 1
	expect_has "$T/out" '"writeback":null,"capabilities"'
	# CONFIG_ZRAM_WRITEBACK and no backing device: a line only with writeback = yes
	R=$T/r2 wb_root 7.3 none
	conf '[global]'
	zr --sysroot "$T/r2" --config "$T/conf" status
	expect_rc 0
	expect_not "$T/out" "writeback:"
	conf '[global]' 'writeback = yes'
	zr --sysroot "$T/r2" --config "$T/conf" status
	expect_rc 0
	expect_has "$T/out" "  writeback:      no backing device (writeback steps are skipped)"
	# a backing device (zram-generator's writeback-device=) is shown with writeback off too
	printf '/dev/loop0\n' >"$(fr_attr "$T/r2" 0 backing_dev)"
	printf '%8s %8s %8s\n' 5 1 7 >"$(fr_attr "$T/r2" 0 bd_stat)"
	conf '[global]'
	zr --sysroot "$T/r2" --config "$T/conf" status
	expect_rc 0
	expect_has "$T/out" "  backing device: /dev/loop0: 5 pages stored, 7 written, 1 read back"
}
run_test status-writeback-lines t_status_wb_lines

# max-pages-per-batch bounds every write, under memory pressure too. On 6.13+ each write
# scans every slot and allocates an entry per candidate, and from 7.0 it holds the device
# lock mm_stat readers wait for: writes of up to 8x the batch under pressure were measured
# (burst bench, 7.3, 166503e) at 5% less CPU a page for 2.6x the longest reader stall and
# no more memory freed, and taken out. 20,000 idle candidates at MemAvailable 3% (full
# pressure), half pressure and none; with HUGE, 100 huge idle slots more, and the huge_idle
# step writes first.
t_batch_pressure() {
	local ver=$1 avail=$2 huge=${3:-} f
	build_version_root "$R" "$ver"
	f=$R/sys/kernel/debug/zram/zram0/block_state
	awk 'BEGIN { for (i = 0; i < 20000; i++) printf "%12d %12d.%06d ...i..\n", i, 100 + i % 50, 0 }' >"$f"
	fr_meminfo "$R" 16000000 "$avail"
	if [ -n "$huge" ]; then
		awk 'BEGIN { for (i = 20000; i < 20100; i++) printf "%12d %12d.%06d ..hi..\n", i, 100, 0 }' >>"$f"
		conf '[global]' 'passes = huge_idle idle' 'max-write-ms = 0'
	else
		conf '[global]' 'passes = idle' 'max-write-ms = 0'
	fi
	zro --once
	expect_rc 0
	# One secondary marks its failures: the step's writes go on until their max_pages
	# cover the candidates counted after the idle mark, the huge idle ones too (this fake
	# kernel marks nothing; a real one would have tried them all by then), with no
	# block_state read in between.
	set --
	n=0
	[ -z "$huge" ] || { set -- "type=huge_idle priority=1 max_pages=2048"; n=-100; }
	while [ "$n" -lt 20000 ]; do
		set -- "$@" "type=idle priority=1 max_pages=2048"
		n=$((n + 2048))
	done
	expect_content "$(attr 0 recompress)" "$@"
}
run_test batch-7.0-pressure t_batch_pressure 7.0 480000
run_test batch-7.0-half-pressure t_batch_pressure 7.0 2000000
run_test batch-7.0-no-pressure t_batch_pressure 7.0 16000000
run_test batch-6.12-pressure t_batch_pressure 6.12 480000
run_test batch-7.0-pressure-after-huge t_batch_pressure 7.0 480000 huge

# adopt: an in-use zram swap device gets the configured secondaries (src/adopt/adopt_run.c). Only
# --dry-run and the refusals run here (a real run needs swapon(2) on the real /dev: the VM
# scenarios adopt and adopt_refuse, and test_adopt on a fake root with the calls wrapped).

# adopt_root VER: zram0 in use as swap (100 MiB of 1 GiB used, priority 100), no secondary,
# with a swap header whose UUID 01234567-89ab-4cde-8f01-23456789abcd and label "mylabel" are
# kept; hot_add present; 15.6 GiB available.
adopt_root() {
	build_version_root "$R" "$1"
	fr_dev "$R" "$1" 0 recomp="" wb=1 link=none
	mkdir -p "$R/dev" "$R/sys/class/zram-control"
	: >"$R/sys/class/zram-control/hot_add"
	: >"$R/sys/class/zram-control/hot_remove"
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/zram0                              partition\t1048572\t\t102400\t\t100\n' >"$R/proc/swaps"
	{
		head -c 1024 /dev/zero
		printf '\001\000\000\000\377\377\003\000\000\000\000\000'
		printf '\001\043\105\147\211\253\114\336\217\001\043\105\147\211\253\315'
		printf 'mylabel'
		head -c $((4096 - 1052 - 7 - 10)) /dev/zero
		printf 'SWAPSPACE2'
	} >"$R/dev/zram0"
	conf '[global]' 'recompress-algorithms = zstd deflate' 'algorithm-params = zstd:level=9'
}

t_adopt_dry_run() {
	adopt_root 6.12
	snap
	zro adopt --dry-run zram0
	expect_rc 0
	expect_changed
	expect_content "$T/out" \
		"zram0: stored: 100.0 MiB in swap, 35.6 MiB of memory compressed (mm_stat mem_used_total)" \
		"zram0: direct (swapoff first, pages uncompressed): needed 100.0 MiB + margin 89.0 MiB, available 15.6 GiB (MemAvailable 15.6 GiB + other swap free 0 B): safe" \
		"zram0: through a temporary zram device (pages compressed): needed 35.6 MiB + margin 72.9 MiB, available 15.6 GiB (MemAvailable): safe" \
		"zram0: plan: direct (swapoff first); keeps primary lzo-rle, disksize 1073741824 (1.0 GiB), mem_limit 0 (none), backing device none, swap priority 100, the header's UUID 01234567-89ab-4cde-8f01-23456789abcd" \
		"zram0: would swapoff /dev/zram0 (its pages go back to memory and other swap)" \
		"zram0: would write '1' to reset" \
		"zram0: would write 'lzo-rle' to comp_algorithm" \
		"zram0: would write 'algo=zstd priority=1' to recomp_algorithm" \
		"zram0: would write 'algo=deflate priority=2' to recomp_algorithm" \
		"zram0: would write 'priority=1 level=9' to algorithm_params" \
		"zram0: would write '1073741824' to disksize (1.0 GiB)" \
		"zram0: would write a swap header to /dev/zram0 (last_page 262143, the old UUID 01234567-89ab-4cde-8f01-23456789abcd)" \
		"zram0: would swapon /dev/zram0 with priority 100"
	expect_content "$T/err"
}
run_test adopt-dry-run-6.12 t_adopt_dry_run

# 7.3, a backing device with 1 MiB written back and compressed_writeback on (kept), a
# mem_limit, other swap, --via-temp.
t_adopt_dry_run_via_temp() {
	adopt_root 7.3
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	printf '1\n' >"$(attr 0 compressed_writeback)"
	printf '%8s %8s %8s\n' 256 0 256 >"$(attr 0 bd_stat)"
	fr_mm_stat "$(attr 0 mm_stat)" 104857600 30300000 37300000 536870912 43100000 120 0 1037 1037
	printf '/swapfile                               file\t\t2097148\t\t1024\t\t-2\n' >>"$R/proc/swaps"
	snap
	zro adopt --dry-run --via-temp zram0
	expect_rc 0
	expect_changed
	expect_content "$T/out" \
		"zram0: stored: 100.0 MiB in swap, 35.6 MiB of memory compressed (mm_stat mem_used_total), 1.0 MiB on the backing device" \
		"zram0: direct (swapoff first, pages uncompressed): needed 100.0 MiB + margin 89.0 MiB, available 17.6 GiB (MemAvailable 15.6 GiB + other swap free 2.0 GiB): safe" \
		"zram0: through a temporary zram device (pages compressed): needed 36.6 MiB + margin 73.1 MiB, available 15.6 GiB (MemAvailable): safe" \
		"zram0: plan: through a temporary zram device; keeps primary lzo-rle, disksize 1073741824 (1.0 GiB), mem_limit 536870912 (512.0 MiB), backing device /dev/loop0, swap priority 100, the header's UUID 01234567-89ab-4cde-8f01-23456789abcd" \
		"zram0: would hold /dev/loop0 open until backing_dev names it again (a loop device set to autoclear would go with the reset)" \
		"zram0: would read sys/class/zram-control/hot_add: a temporary device, zram(new) below" \
		"zram(new): would write 'lzo-rle' to comp_algorithm" \
		"zram(new): would write '1073741824' to disksize (1.0 GiB)" \
		"zram(new): would write a swap header to /dev/zram(new) (last_page 262143, a new UUID)" \
		"zram(new): would swapon /dev/zram(new) with priority 100" \
		"zram0: would swapoff /dev/zram0 (its pages move to the temporary device)" \
		"zram0: would write '1' to reset" \
		"zram0: would write 'lzo-rle' to comp_algorithm" \
		"zram0: would write 'algo=zstd priority=1' to recomp_algorithm" \
		"zram0: would write 'algo=deflate priority=2' to recomp_algorithm" \
		"zram0: would write 'priority=1 level=9' to algorithm_params" \
		"zram0: would write '1' to compressed_writeback" \
		"zram0: would write '/dev/loop0' to backing_dev" \
		"zram0: would write '1073741824' to disksize (1.0 GiB)" \
		"zram0: would write '536870912' to mem_limit" \
		"zram0: would write a swap header to /dev/zram0 (last_page 262143, the old UUID 01234567-89ab-4cde-8f01-23456789abcd)" \
		"zram0: would swapon /dev/zram0 with priority 100" \
		"zram(new): would swapoff /dev/zram(new) (its pages move back)" \
		"zram(new): would write its id to sys/class/zram-control/hot_remove"
}
run_test adopt-dry-run-via-temp-7.3 t_adopt_dry_run_via_temp

# 7.3, compressed_writeback off on a device with a backing device, compressed-writeback = yes:
# adopt turns it on before backing_dev, as a boot's setup would.
t_adopt_dry_run_compressed_wb() {
	adopt_root 7.3
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	conf '[global]' 'recompress-algorithms = zstd' 'compressed-writeback = yes'
	snap
	zro adopt --dry-run zram0
	expect_rc 0
	expect_changed
	grep -A3 '^zram0: would write .algo=zstd priority=1. to recomp_algorithm$' "$T/out" >"$T/wb"
	expect_content "$T/wb" \
		"zram0: would write 'algo=zstd priority=1' to recomp_algorithm" \
		"zram0: would write '1' to compressed_writeback" \
		"zram0: would write '/dev/loop0' to backing_dev" \
		"zram0: would write '1073741824' to disksize (1.0 GiB)"
}
run_test adopt-dry-run-compressed-wb-7.3 t_adopt_dry_run_compressed_wb

# Too little memory for either plan: exit 5, the figures, nothing changed (--dry-run or not:
# the refusal comes before the root check of a real run).
t_adopt_refused() {
	adopt_root 6.12
	fr_meminfo "$R" 2000000 100000
	snap
	zro adopt zram0
	expect_rc 5
	expect_changed
	expect_content "$T/out" \
		"zram0: stored: 100.0 MiB in swap, 35.6 MiB of memory compressed (mm_stat mem_used_total)" \
		"zram0: direct (swapoff first, pages uncompressed): needed 100.0 MiB + margin 89.0 MiB, available 97.7 MiB (MemAvailable 97.7 MiB + other swap free 0 B): not safe" \
		"zram0: through a temporary zram device (pages compressed): needed 35.6 MiB + margin 72.9 MiB, available 97.7 MiB (MemAvailable): not safe"
	expect_content "$T/err" \
		"zram-recompd: error: zram0: adopt refused: neither plan leaves the margin free; nothing changed" \
		"zram-recompd: zram0: next: free 10.8 MiB of memory (for the temporary device), or add 91.3 MiB of other swap (swapon a file or partition) or free as much memory (for the direct plan); then adopt again"
}
run_test adopt-refused t_adopt_refused

# A memory cgroup whose memory.max cannot take back its 90 MiB in swap (50 MiB left): the
# direct plan would charge them to it (reclaim, then its OOM killer), so the temporary
# device, although MemAvailable holds every page; only the cgroup with the least room is
# shown.
t_adopt_memcg() {
	local cg
	adopt_root 6.12
	cg=$R/sys/fs/cgroup/system.slice
	mkdir -p "$cg/db.service" "$cg/web.service"
	printf 'max\n' >"$cg/memory.max"
	printf '%s\n' 209715200 >"$cg/memory.current"
	printf '%s\n' 104857600 >"$cg/db.service/memory.max"
	printf '%s\n' 52428800 >"$cg/db.service/memory.current"
	printf '%s\n' 94371840 >"$cg/db.service/memory.swap.current"
	printf '%s\n' 1073741824 >"$cg/web.service/memory.max"
	printf '%s\n' 52428800 >"$cg/web.service/memory.current"
	printf '%s\n' 10485760 >"$cg/web.service/memory.swap.current"
	snap
	zro adopt --dry-run zram0
	expect_rc 0
	expect_changed
	head -n 5 "$T/out" >"$T/fig"
	expect_content "$T/fig" \
		"zram0: stored: 100.0 MiB in swap, 35.6 MiB of memory compressed (mm_stat mem_used_total)" \
		"zram0: memory cgroup system.slice/db.service (the least room; swapoff charges it): needed 90.0 MiB + margin 38.5 MiB, available 50.0 MiB (memory.max - memory.current; needed: its memory.swap.current): not safe" \
		"zram0: direct (swapoff first, pages uncompressed): needed 100.0 MiB + margin 89.0 MiB, available 15.6 GiB (MemAvailable 15.6 GiB + other swap free 0 B): safe" \
		"zram0: through a temporary zram device (pages compressed): needed 35.6 MiB + margin 72.9 MiB, available 15.6 GiB (MemAvailable): safe" \
		"zram0: plan: through a temporary zram device; keeps primary lzo-rle, disksize 1073741824 (1.0 GiB), mem_limit 0 (none), backing device none, swap priority 100, the header's UUID 01234567-89ab-4cde-8f01-23456789abcd"
	# room enough (100 MiB + 38.5 MiB left): the direct plan again, the cgroup still shown
	printf '%s\n' 251658240 >"$cg/db.service/memory.max"
	zro adopt --dry-run zram0
	expect_rc 0
	grep -q '^zram0: memory cgroup system.slice/db.service .*available 190.0 MiB .*: safe$' "$T/out" &&
		grep -q '^zram0: plan: direct (swapoff first)' "$T/out" || die "out: $(oneline "$T/out")"
}
run_test adopt-memcg t_adopt_memcg

# zram-recompd(8) names what adopt writes beyond a pass (sysfs.c's adopt_allowlist) and its
# exit status 5.
t_adopt_man() {
	local man=$HERE/../../docs/zram-recompd.8 a
	sed -n '/^\.SH ADOPT/,/^\.SH DAEMON MODE/p' "$man" >"$T/adopt.8"
	for a in reset comp_algorithm disksize mem_limit 'zram\\-control/hot_remove'; do
		grep -q "$a" "$T/adopt.8" ||
			die "zram-recompd(8) ADOPT does not name $a"
	done
	for a in '"reset",' '"comp_algorithm",' '"disksize",' '"mem_limit",'; do
		grep -qF "$a" "$HERE/../../src/kernel/sysfs.c" || die "sysfs.c's adopt allowlist lacks $a"
	done
	[ "$(grep -c '^[[:space:]]*"' <(sed -n '/adopt_allowlist\[\] = {/,/^};/p' "$HERE/../../src/kernel/sysfs.c"))" = 4 ] ||
		die "sysfs.c's adopt allowlist is not the four attributes zram-recompd(8) names"
	sed -n '/^\.SH EXIT STATUS/,/^\.SH KERNEL/p' "$man" | grep -A2 '^\.B 5$' | grep -q '^\.B adopt$' ||
		die "zram-recompd(8) EXIT STATUS does not document adopt's 5"
}
run_test adopt-man-page t_adopt_man

t_adopt_refusals() {
	adopt_root 6.12
	snap
	# a real run on a fake root: swapon(2) would act on the host (checked after the figures)
	zro adopt zram0
	expect_rc 2
	expect_has "$T/out" "zram0: plan: direct (swapoff first)"
	expect_content "$T/err" \
		"zram-recompd: error: adopt: swapon(2) and swapoff(2) act on this machine's /dev: another --sysroot only with --dry-run; nothing changed"
	zro adopt --dry-run
	expect_rc 2
	expect_has "$T/err" "adopt: name one device (adopt zramN)"
	zro adopt --dry-run sda
	expect_rc 2
	expect_has "$T/err" "adopt: 'sda' is not a zram device name (zramN)"
	zro adopt --dry-run zram7
	expect_rc 3
	expect_content "$T/err" "zram-recompd: error: zram7: no such device"
	expect_changed
	# not in /proc/swaps
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' >"$R/proc/swaps"
	snap
	zro adopt --dry-run zram0
	expect_rc 1
	expect_content "$T/err" \
		"zram-recompd: error: zram0: not in use as swap (/proc/swaps): adopt takes swap devices only"
	# a name this kernel does not offer: refused before anything else
	conf '[global]' 'recompress-algorithms = zsdt'
	zro adopt --dry-run zram0
	expect_rc 2
	expect_has "$T/err" "zram0: recomp_algorithm: 'zsdt' is not a compressor this kernel offers"
	expect_changed
}
run_test adopt-refusals t_adopt_refusals

# Already the configured list: nothing to do (--force: set up again, for changed levels).
t_adopt_nothing() {
	adopt_root 6.12
	fr_dev "$R" 6.12 0 recomp="1:zstd" link=none
	conf '[global]' 'recompress-algorithms = zstd'
	snap
	zro adopt --dry-run zram0
	expect_rc 0
	expect_content "$T/out" \
		"zram0: already has the configured secondary algorithms; nothing to do (--force sets it up again, for changed algorithm-params)"
	zro adopt --dry-run --force zram0
	expect_rc 0
	expect_has "$T/out" "zram0: would write 'algo=zstd priority=1' to recomp_algorithm"
	expect_changed
}
run_test adopt-nothing-to-do t_adopt_nothing

# backing-file (issue 25): --once --dry-run names the stack it would build; a real run on a
# fake root refuses it (loop devices and dm-crypt are this machine's) and writes nothing;
# `backing` refuses --sysroot and bad usage. The real setup runs in tests/unit/test_backing
# (file, loop) and the VM tier (dm-crypt, zram).
t_backing_file_once() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp="" wb=1
	snap
	conf '[global]' 'writeback = yes' '[zram0]' 'backing-file = /var/lib/zram-recompd/zram0.swap'
	zro --once --dry-run --device zram0
	expect_rc 0
	expect_has "$T/out" "zram0: would set up backing-file /var/lib/zram-recompd/zram0.swap as /dev/mapper/zram-recompd-zram0, then write backing_dev"
	# plain (backing-encryption = no): a loop device only
	conf '[zram0]' 'backing-file = /var/lib/zram-recompd/zram0.swap' 'backing-encryption = no'
	zro --once --dry-run --device zram0
	expect_has "$T/out" "zram0: would set up backing-file /var/lib/zram-recompd/zram0.swap on a loop device, then write backing_dev"
	# an encrypted backing-device: never written as it is
	conf '[zram0]' 'backing-device = /dev/sdb2' 'backing-encryption = yes'
	zro --once --dry-run --device zram0
	expect_has "$T/out" "zram0: would set up dm-crypt over /dev/sdb2 as /dev/mapper/zram-recompd-zram0, then write backing_dev"
	expect_not "$T/out" "to backing_dev"
	expect_changed
	conf '[global]' 'writeback = yes' '[zram0]' 'backing-file = /var/lib/zram-recompd/zram0.swap'
	zro --once --device zram0
	expect_rc 1
	expect_has "$T/err" "zram0: backing setup: loop devices and dm-crypt act on this machine's /dev: not with --sysroot; skipped"
	expect_changed "$(dp 0 recomp_algorithm)"
	expect_content "$(attr 0 backing_dev)" none
}
run_test backing-file-once t_backing_file_once

t_backing_usage() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 wb=1
	conf '[zram0]' 'backing-file = /var/lib/zram-recompd/zram0.swap'
	snap
	zro backing setup
	expect_rc 2
	expect_content "$T/err" "zram-recompd: error: backing: loop devices and dm-crypt act on this machine's /dev: not with --sysroot; nothing changed"
	zro backing teardown zram0
	expect_rc 2
	zro backing
	expect_rc 2
	expect_has "$T/err" "Usage: zram-recompd backing setup [zramN...]"
	zro backing --help
	expect_rc 0
	expect_has "$T/out" "zram-recompd backing teardown [zramN...]"
	# a bad configuration: exit 2 before anything
	conf '[global]' 'backing-file = /x'
	zro backing setup
	expect_rc 2
	expect_has "$T/err" "key 'backing-file' is only allowed in a device section ([zramN])"
	expect_changed
}
run_test backing-usage t_backing_usage

# zram-recompd(8) documents the subcommand and its exit status 6.
t_backing_man() {
	local man=$HERE/../../docs/zram-recompd.8
	sed -n '/^\.SH EXIT STATUS/,/^\.SH KERNEL/p' "$man" | grep -A2 '^\.B 6$' | grep -q '^\.B backing setup$' ||
		die "zram-recompd(8) EXIT STATUS does not document backing setup's 6"
	grep -q '^#define BACKING_EXIT_GUARD 6$' "$HERE/../../include/backing.h" ||
		die "backing.h's guard exit status is not the 6 zram-recompd(8) documents"
	grep -q '^\.SH BACKING FILE$' "$man" || die "zram-recompd(8) has no BACKING FILE section"
}
run_test backing-man-page t_backing_man

# zstd-dictionary and advise --dict-install (issue 28).
# shellcheck source=tests/fakesys/dict.sh
. "$HERE/dict.sh"

# What each kernel shape allows, what a device cannot do and the fix, can-run (issue 24).
# shellcheck source=tests/fakesys/caps.sh
. "$HERE/caps.sh"

# Small things an admin meets first.
# shellcheck source=tests/fakesys/small.sh
. "$HERE/small.sh"

if [ "$NSKIP" -gt 0 ]; then
	echo "fakesys: $NPASS passed, $NFAIL failed, $NSKIP skipped"
else
	echo "fakesys: $NPASS passed, $NFAIL failed"
fi
[ "$NFAIL" = 0 ]
