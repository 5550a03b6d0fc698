#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The syscall-level write allowlist on the real kernel (issue 11): a full --once and a daemon
# run (passes, SIGHUP, a pass after it, SIGTERM) under strace, with the system calls of the
# strace tier (/vm/trace.set = tests/strace/trace.set). Here: both runs work under strace, and
# the Landlock sandbox was in place (landlock_restrict_self returned 0) before the first
# attribute write. Each trace goes to the console (as soon as its run ended) between "VMTRACE BEGIN NAME ..." and
# "VMTRACE END NAME" lines; on the host, run.sh checks each with the strace tier's own
# checker (tests/strace/check_trace.py: only allowlisted attributes, the state directory's
# files and the metrics file opened for writing; nothing read outside /sys, /proc, /dev,
# /boot, the libraries and the configuration) and reports strace_allowlist_once and
# strace_allowlist_daemon.
. /vm/lib.sh
need_recompd
command -v strace >/dev/null 2>&1 || skip "strace is not in the initramfs"
[ -r /vm/trace.set ] || skip "/vm/trace.set missing"
TRACE=$(cat /vm/trace.set)

# A for --once, B for the daemon: each run meets pages that are still to recompress (after
# --once the daemon's passes on A would attempt nothing).
N=2048
zram_add
A=$Z
zset "$A" recomp_algorithm "algo=zstd priority=1"
zset "$A" disksize 64M
load "$A" "$DATA/pages.bin" 0 "$N" 0
zram_add
B=$Z
zset "$B" recomp_algorithm "algo=zstd priority=1"
zset "$B" disksize 64M
load "$B" "$DATA/pages.bin" "$N" "$N" 0
mkdir -p "$WORK/m"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
METRICS=$WORK/m/zr.prom

# check_sandbox TRACE: landlock_restrict_self succeeded before the first zram attribute was
# opened for writing.
check_sandbox() {
	awk '
		/landlock_restrict_self\(.*\) = 0/ && !r { r = NR }
		/openat2\(.*"sys\/block\/zram[0-9]+\/[a-z_]+", \{flags=O_WRONLY/ && !w { w = NR }
		END {
			if (!r) { print "no successful landlock_restrict_self"; exit 1 }
			if (!w) { print "no zram attribute opened for writing"; exit 1 }
			if (w < r) { print "an attribute was opened for writing before the sandbox"; exit 1 }
		}' "$1" >"$WORK/why" || fail "${1##*/}: $(cat "$WORK/why")"
}

# emit NAME TRACE CONF: the trace on the console for the host's checker.
emit() {
	echo "VMTRACE BEGIN $1 state=$ZRAM_RECOMPD_STATE_DIR metrics=$METRICS conf=$3"
	sed 's/^/VMTRACE /' "$2"
	echo "VMTRACE END $1"
}

# 1. --once
conf "$WORK/o.conf" "devices = $A" "recompress-algorithms = zstd" "idle-age-max-sec = 0" \
	"metrics-file = $METRICS"
note "strace zram-recompd --once"
strace -f -qq -y -e "trace=$TRACE" -o "$WORK/once.trace" \
	"$RECOMPD" --config "$WORK/o.conf" --once --device "$A" >"$WORK/once.out" 2>&1
RC=$?
sed "s/^/[$T]   | /" "$WORK/once.out"
expect_eq "--once exit code under strace" "$RC" 0
[ "$(bs_count "$A" r)" -gt 0 ] || fail "no recompressed slot after --once under strace"
[ -s "$METRICS" ] || fail "--once wrote no metrics file"
emit strace_allowlist_once "$WORK/once.trace" "$WORK/o.conf"
check_sandbox "$WORK/once.trace"

# 2. the daemon: two passes, SIGHUP, one more pass, SIGTERM.
conf "$WORK/d.conf" "devices = $B" "recompress-algorithms = zstd" "passes = idle" \
	"interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
	"cpu-share-max-percent = 0" "pages-per-hour = 0" "psi-cpu-max-percent = 0" \
	"defer-on-battery = no" "metrics-file = $METRICS"
note "strace zram-recompd (daemon)"
strace -f -qq -y -e "trace=$TRACE" -o "$WORK/daemon.trace" \
	"$RECOMPD" --config "$WORK/d.conf" >"$WORK/daemon.log" 2>&1 &
SPID=$!
# shellcheck disable=SC2034 # read by wait_log and log_count (lib.sh)
DLOG=$WORK/daemon.log
# The daemon is the first pid of the trace; the helpers below wait for its log.
i=0
until [ -s "$WORK/daemon.trace" ]; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "strace did not start the daemon"
	usleep 100000
done
DPID=$(awk 'NR == 1 { print $1 }' "$WORK/daemon.trace")
trap 'kill -9 "$DPID" "$SPID" 2>/dev/null; _cleanup' EXIT
wait_log "^zram-recompd: $B: pass:" 2 60 || fail "no two passes under strace"
kill -HUP "$DPID"
wait_log "configuration reloaded" 1 10 || fail "no reload after SIGHUP"
p=$(log_count "^zram-recompd: $B: pass:")
wait_log "^zram-recompd: $B: pass:" $((p + 1)) 30 || fail "no pass after the reload"
kill -TERM "$DPID"
wait "$SPID"
RC=$?
DPID=
sed "s/^/[$T]   | /" "$WORK/daemon.log"
emit strace_allowlist_daemon "$WORK/daemon.trace" "$WORK/d.conf"
expect_eq "daemon exit code after SIGTERM (strace's)" "$RC" 0
grep -qE "^zram-recompd: (error|warning):" "$WORK/daemon.log" &&
	fail "errors or warnings in the daemon's log"
[ "$(bs_count "$B" r)" -gt 0 ] || fail "$B: no recompressed slot after the daemon's passes"
check_sandbox "$WORK/daemon.trace"
pass_note "$(wc -l <"$WORK/once.trace") + $(wc -l <"$WORK/daemon.trace") traced calls on the" \
	"console for the host's check"
