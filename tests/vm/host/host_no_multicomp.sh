#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs on the HOST (not in the VM): on a kernel whose zram lacks CONFIG_ZRAM_MULTI_COMP (no
# recomp_algorithm attribute), `status` says so, `--once` exits 4, `can-run` exits 1, and none writes
# anything to the device (checked with strace when present, else by comparing every readable
# attribute before and after). Skipped when the host has no such zram device.
# Prints one "VMTEST PASS|FAIL|SKIP host_no_multicomp[: reason]" line.
set -u
T=host_no_multicomp
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
BUILDDIR=${BUILDDIR:-build}
case $BUILDDIR in
/*) ;;
*) BUILDDIR=$TOP/$BUILDDIR ;;
esac
BIN=$BUILDDIR/zram-recompd

pass() { echo "VMTEST PASS $T"; exit 0; }
fail() { echo "VMTEST FAIL $T: $*"; exit 0; }
skip() { echo "VMTEST SKIP $T: $*"; exit 0; }

[ -x "$BIN" ] || skip "$BIN not built"
devs=
for d in /sys/block/zram*; do
	[ -e "$d" ] || continue
	[ -e "$d/recomp_algorithm" ] && continue
	devs="$devs ${d##*/}"
done
[ -n "$devs" ] || skip "no zram device without recomp_algorithm on this host"
[ "$(id -u)" -eq 0 ] || skip "needs root (zram attributes are root-only)"

W=$(mktemp -d "${TMPDIR:-/tmp}/zram-recompd-host.XXXXXX")
trap 'rm -rf "$W"' EXIT
: >"$W/empty.conf"
devargs=
for d in $devs; do
	devargs="$devargs --device $d"
done

# Every readable attribute's contents (mm_stat, disksize, comp_algorithm, ...).
snapshot() {
	for d in $devs; do
		for f in /sys/block/$d/*; do
			[ -f "$f" ] && [ -r "$f" ] || continue
			case ${f##*/} in uevent | stat | inflight) continue ;; esac
			printf '%s: ' "$f"
			cat "$f" 2>/dev/null | tr '\n' ' '
			echo
		done
	done
}

# run NAME ARGS...: runs zram-recompd (under strace when available); sets RC. In a mount
# namespace of its own with an empty tmpfs on /run: --once takes adopt's lock in
# /run/zram-recompd/lock, which would be this machine's own (tests write only under their
# own directories).
STRACE=$(command -v strace || true)
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) not found"
PRIVRUN='mount -t tmpfs -o size=1m,mode=0755 tmpfs /run && exec "$@"'
run() {
	name=$1
	shift
	if [ -n "$STRACE" ]; then
		unshare -m --propagation private sh -c "$PRIVRUN" sh \
			"$STRACE" -f -qq -y -o "$W/$name.trace" \
			-e trace=open,openat,openat2,creat,truncate,write,pwrite64,writev \
			"$BIN" "$@" >"$W/$name.out" 2>&1
	else
		unshare -m --propagation private sh -c "$PRIVRUN" sh \
			"$BIN" "$@" >"$W/$name.out" 2>&1
	fi
	RC=$?
	sed "s/^/$name | /" "$W/$name.out"
}

# Writes other than to stdout/stderr, and opens for writing, from a trace (strace -y: each
# descriptor with its path); the lock files in the private /run/zram-recompd/lock aside.
trace_writes() {
	[ -n "$STRACE" ] || return 0
	grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^[0-9]+ +(creat|truncate)\(' "$W/$1.trace" |
		grep -v ' = -1 ' | grep -v '</run/zram-recompd/lock>' | head -n 5
	grep -E '^[0-9]+ +(write|pwrite64|writev)\(([03-9]|[0-9][0-9]+)(<[^>]*>)?,' "$W/$1.trace" |
		head -n 5
}

snapshot >"$W/before"
run status --config "$W/empty.conf" status $devargs
grep -q "CONFIG_ZRAM_MULTI_COMP" "$W/status.out" ||
	fail "status does not say the kernel lacks CONFIG_ZRAM_MULTI_COMP"
for d in $devs; do
	grep -q "$d" "$W/status.out" || fail "status does not mention $d"
done
w=$(trace_writes status)
[ -z "$w" ] || fail "status wrote: $w"

run json --config "$W/empty.conf" status --json $devargs
case $(tr -d ' \n\t' <"$W/json.out") in
*'"multi_comp":false'*) ;;
*) fail "status --json lacks \"multi_comp\":false" ;;
esac

run once --config "$W/empty.conf" --once $devargs
[ "$RC" -eq 4 ] || fail "--once exit code $RC, expected 4"
grep -q "CONFIG_ZRAM_MULTI_COMP" "$W/once.out" ||
	fail "--once does not say the kernel lacks CONFIG_ZRAM_MULTI_COMP"
w=$(trace_writes once)
[ -z "$w" ] || fail "--once wrote: $w"

# ExecCondition= of the units: nothing possible without MULTI_COMP and writeback (issue 24).
run canrun --config "$W/empty.conf" can-run
[ "$RC" -eq 1 ] || fail "can-run exit code $RC, expected 1"
grep -q "can-run: no" "$W/canrun.out" || fail "can-run gives no reason"
w=$(trace_writes canrun)
[ -z "$w" ] || fail "can-run wrote: $w"

snapshot >"$W/after"
cmp -s "$W/before" "$W/after" ||
	fail "attributes changed: $(diff "$W/before" "$W/after" | head -n 4)"
if [ -n "$STRACE" ]; then
	echo "checked:$devs (strace and attribute snapshot)"
else
	echo "checked:$devs (attribute snapshot; no strace)"
fi
pass
