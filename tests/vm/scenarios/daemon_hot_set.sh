#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon on a device with a cold and a hot set: lzo-rle primary, zstd secondary, a pass
# every 2 s with an idle age of 5 s. 20% of the slots (a block in the middle) are rewritten
# about every 1.5 s, the rest never again. Across several passes the cold slots get `r` and
# the hot ones never do (checked before every rewrite, when they are oldest); SIGTERM ends
# the daemon within 1 s with exit code 0, and the state file counts the passes.
. /vm/lib.sh
need_recompd

# Sized in bytes (10 MiB), so that 16 KiB pages (the arm64 kernel) take as long as 4 KiB ones.
N=$((10485760 / PAGE))  # slots in use: 2560 at 4 KiB, 640 at 16 KiB
HOT0=$((N * 2 / 5))     # hot block: slots HOT0 .. HOT0 + HOTN - 1
HOTN=$((N / 5))         # 20%
AGE=5

zram_add
zset "$Z" recomp_algorithm "algo=zstd priority=1"
zset "$Z" disksize 64M
conf "$WORK/d.conf" "devices = $Z" "recompress-algorithms = zstd" "passes = huge_idle idle" \
	"interval-sec = 2" "idle-age-min-sec = $AGE" "idle-age-max-sec = $AGE" \
	"backoff-max-sec = 0" "cpu-share-max-percent = 0" "pages-per-hour = 0" \
	"psi-cpu-max-percent = 0" "memory-stall-us = 0" "defer-on-battery = no"
run_recompd "$WORK/check.out" --config "$WORK/d.conf" --check-config
expect_eq "--check-config exit code" "$RC" 0

load "$Z" "$DATA/pages.bin" 0 "$N" 0
HOT1=$((HOT0 + HOTN - 1))
rewrite_hot() {
	load "$Z" "$DATA/pages.bin" "$HOT0" "$HOTN" "$HOT0"
}

# counts: "recompressed-hot recompressed-cold cold-candidates" from one block_state read
# (candidates: allocated cold slots that are not same-filled).
counts() {
	block_state "$Z" | awk -v lo="$HOT0" -v hi="$HOT1" '
		{ hot = $1 >= lo && $1 <= hi }
		hot && index($3, "r") { hr++ }
		!hot && index($3, "r") { cr++ }
		!hot && !index($3, "s") { cc++ }
		END { print hr + 0, cr + 0, cc + 0 }'
}

export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf"
wait_log "running on Linux" 1 10 || fail "the daemon did not start"

PASS_RE="^zram-recompd: $Z: pass"
t_start=$(now)
seen=0
checks=0
cold_done=0
while :; do
	sleep 1
	set -- $(counts)
	hr=$1 cr=$2 cc=$3
	checks=$((checks + 1))
	[ "$hr" -eq 0 ] || fail "$hr hot slots (rewritten less than $AGE s ago) were recompressed" \
		"(check $checks, $(log_count "$PASS_RE") passes so far)"
	rewrite_hot
	np=$(log_count "$PASS_RE")
	if [ "$np" -ne "$seen" ]; then
		note "$(elapsed "$t_start" "$(now)") s: $np passes;" \
			"cold slots recompressed $cr of $cc"
		seen=$np
	fi
	[ "$cold_done" -eq 0 ] && [ "$cr" -ge $((cc / 2)) ] && cold_done=$np
	# Done two passes after the cold set was recompressed (the hot set then went through
	# passes while its neighbours were recompressed), with at least 5 passes in all.
	[ "$cold_done" -gt 0 ] && [ "$np" -ge $((cold_done + 2)) ] && [ "$np" -ge 5 ] && break
	daemon_alive || fail "the daemon exited"
	[ "$(elapsed "$t_start" "$(now)" | cut -d. -f1)" -ge 60 ] &&
		fail "after 60 s: $np passes, cold slots recompressed $cr of $cc"
done
note "$checks checks of the hot set, $seen passes in $(elapsed "$t_start" "$(now)") s"

stop_daemon
stop=$STOP_S
expect_eq "daemon exit code after SIGTERM" "$RC" 0
awk -v s="$stop" 'BEGIN { exit !(s <= 1.0) }' || fail "SIGTERM -> exit took $stop s (limit 1 s)"

set -- $(counts)
hr=$1 cr=$2 cc=$3
note "after stop: hot recompressed $hr of $HOTN, cold recompressed $cr of $cc candidates"
expect_eq "recompressed hot slots" "$hr" 0
[ "$cr" -ge $((cc / 2)) ] || fail "only $cr of $cc cold slots were recompressed"
# The passes ran at intervals, not all at once: at least 5 logged, and some saved nothing
# before the cold set was old enough, then one saved something.
np=$(log_count "$PASS_RE")
[ "$np" -ge 5 ] || fail "only $np pass lines in the log"
log_count "$PASS_RE.*saved [1-9]" >/dev/null || fail "no pass saved anything"
passes=$(state_field "$Z" passes)
note "state file: $(grep "^$Z " "$ZRAM_RECOMPD_STATE_DIR/state" 2>/dev/null)"
[ -n "$passes" ] || fail "no line for $Z in the state file"
[ "$passes" -ge 2 ] || fail "state file: passes=$passes, expected >= 2"
expect_eq "state file passes vs pass lines in the log" "$passes" "$np"
grep -q "stopping (signal 15)" "$DLOG" || fail "no 'stopping (signal 15)' line in the log"
pass_note "$np passes, cold $cr/$cc recompressed, hot 0/$HOTN; SIGTERM->exit ${stop} s"
