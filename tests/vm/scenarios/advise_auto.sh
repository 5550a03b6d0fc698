#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# recompress-algorithms = auto on the real kernel, as a reboot would see it:
#  1. device A (lzo-rle, zstd secondary, 4096 pages): --once refreshes the advice (none yet)
#     from advise-samples slots and stores it in the state directory; a second --once does
#     not (not due for a day);
#  2. A is reset (what a reboot does to it) and set up again: --once applies the stored
#     chain before disksize (recomp_algorithm shows it), and the chain's level is in effect:
#     after a pass, compr_data_size equals what advise predicts for that chain with that
#     level (lzo-rle primary: exact);
#  3. set up with lz4 instead: the advice (for lzo-rle) is not used, zstd is;
#  4. the daemon refreshes A's advice on its own (advise-interval-sec = 1) and configures a
#     hot-added device with the fallback (no advice for it yet).
. /vm/lib.sh
need_recompd

N=4096
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
conf "$WORK/auto.conf" "recompress-algorithms = auto" "idle-age-max-sec = 0" \
	"compact = always" "advise-samples = 1024"

# advice_field DEV KEY: a value from the advice file.
advice_field() {
	awk -v d="$1" -v k="$2=" '$1 == d {
		for (i = 2; i <= NF; i++)
			if (index($i, k) == 1) print substr($i, length(k) + 1) }' \
		"$ZRAM_RECOMPD_STATE_DIR/advice" 2>/dev/null
}

# ---- 1. refresh on a device with data ----
zram_add
A=$Z
zset "$A" comp_algorithm lzo-rle
zset "$A" recomp_algorithm "algo=zstd priority=1"
zset "$A" disksize 128M
load "$A" "$DATA/pages.bin" 0 "$N"
run_recompd "$WORK/once1.out" --config "$WORK/auto.conf" --once --device "$A"
expect_eq "--once exit code" "$RC" 0
grep -q "$A: advice refreshed from 1024 pages: " "$WORK/once1.out" ||
	fail "--once did not refresh the advice of $A"
note "advice file: $(cat "$ZRAM_RECOMPD_STATE_DIR/advice" | tr '\n' '|')"
head -n 1 "$ZRAM_RECOMPD_STATE_DIR/advice" | grep -qx "zram-recompd-advice 1" ||
	fail "advice file header"
expect_eq "advice primary" "$(advice_field "$A" primary)" lzo-rle
expect_eq "advice samples" "$(advice_field "$A" samples)" 1024
chain=$(advice_field "$A" chain)
[ -n "$chain" ] || fail "no chain stored for $A"
grep -q "$A: advice refreshed from 1024 pages: $chain " "$WORK/once1.out" ||
	fail "the log line does not name the stored chain $chain"
run_recompd "$WORK/once2.out" --config "$WORK/auto.conf" --once --device "$A"
expect_eq "second --once exit code" "$RC" 0
grep -q "advice refreshed" "$WORK/once2.out" && fail "the advice was refreshed again at once"

# ---- 2. reset (a reboot), set up again: the stored chain is applied ----
# The kernel list as recomp_algorithm prints it: "#1: ... [zstd] ...", one per priority.
algos=$(echo "$chain" | tr ',' '\n' | sed 's/:.*//' | tr '\n' ' ' | sed 's/ $//')
params=$(echo "$chain" | tr ',' '\n' | awk -F: 'NF == 2 { printf "%s%d:level=%s", s, NR, $2; s = " " }')
zset "$A" reset 1
zset "$A" comp_algorithm lzo-rle
run_recompd "$WORK/dry.out" --config "$WORK/auto.conf" --once --dry-run --device "$A"
expect_eq "--dry-run exit code" "$RC" 0
grep -q "$A: recompress-algorithms = auto: advice of .* UTC applied: $chain (" "$WORK/dry.out" ||
	fail "--dry-run does not say that the advice is applied"
i=1
for a in $algos; do
	grep -q "algo=$a priority=$i" "$WORK/dry.out" || fail "--dry-run lacks algo=$a priority=$i"
	i=$((i + 1))
done
for p in $params; do
	grep -q "priority=${p%%:*} level=${p#*=}" "$WORK/dry.out" ||
		fail "--dry-run lacks the level write for $p"
done
expect_eq "recomp_algorithm after --dry-run" "$(zget "$A" recomp_algorithm)" ""
run_recompd "$WORK/setup.out" --config "$WORK/auto.conf" --once --device "$A"
expect_eq "setup exit code" "$RC" 0
grep -q "advice of .* UTC applied: $chain (" "$WORK/setup.out" || fail "setup did not apply it"
zset "$A" disksize 128M
got=$(recomp_list "$A" | sed -n 's/^#[0-9]: .*\[\(.*\)\].*/\1/p' | tr '\n' ' ' |
	sed 's/ $//')
expect_eq "recomp_algorithm after setup" "$got" "$algos"
load "$A" "$DATA/pages.bin" 0 "$N"
# The level is not readable back (algorithm_params is write-only): check its effect. advise
# on every slot predicts the chain exactly for an lzo-rle primary (advise_accuracy_lzorle).
"$RECOMPD" advise --device "$A" --json --samples 0 --chain "$chain" --candidates zstd \
	>"$WORK/pred.json" 2>"$WORK/pred.err" || { cat "$WORK/pred.err"; fail "advise failed"; }
pred=$(sed -n 's/.*"chain":{"algos":\[[^]]*\],"compr_bytes":\([0-9]*\),.*/\1/p' "$WORK/pred.json")
run_recompd "$WORK/pass.out" --config "$WORK/auto.conf" --once --device "$A"
expect_eq "pass exit code" "$RC" 0
# Within 0.1%: with a level (zstd:9) the prediction is exact on both kernels; at zstd's
# default level 7.3's in-kernel zstd differs from libzstd by about 0.04% on these pages
# (advise_accuracy_lzorle measures it; seen here: 5,045,382 against 5,046,105 predicted).
# A level that was not applied is off by percents (zstd 3 against 9), so this still tells.
got=$(mm "$A" compr_data_size)
[ -n "$pred" ] || fail "advise gave no chain prediction: $(cat "$WORK/pred.json")"
d=$((got > pred ? got - pred : pred - got))
[ $((d * 1000)) -le "$pred" ] ||
	fail "compr_data_size after a pass with $chain: got $got, predicted $pred (more than 0.1% off)"

# ---- 3. another primary: the advice does not apply ----
zset "$A" reset 1
zset "$A" comp_algorithm lz4
run_recompd "$WORK/lz4.out" --config "$WORK/auto.conf" --once --device "$A"
expect_eq "lz4 setup exit code" "$RC" 0
grep -q "computed for primary lzo-rle, not lz4; using zstd" "$WORK/lz4.out" ||
	fail "setup with lz4 did not fall back to zstd"
zset "$A" disksize 128M
recomp_list "$A" | grep -q '^#1: .*\[zstd\]' || fail "lz4 setup: not zstd at #1"
[ "$(recomp_list "$A" | wc -l)" -eq 1 ] || fail "lz4 setup: more than one secondary"
load "$A" "$DATA/pages.bin" 0 "$N"

# ---- 4. the daemon ----
conf "$WORK/d.conf" "devices = all" "recompress-algorithms = auto" "passes = idle" \
	"interval-sec = 2" "idle-age-max-sec = 0" "backoff-max-sec = 0" \
	"cpu-share-max-percent = 0" "pages-per-hour = 0" "psi-cpu-max-percent = 0" \
	"memory-stall-us = 0" "defer-on-battery = no" "advise-interval-sec = 1" \
	"advise-samples = 256"
# --no-sandbox: a sandboxed daemon ends (exit 75, for its unit to restart it) when a device
# appears after its start; here it must stay to handle the devices added below as they come
# (the restart itself: daemon_hotplug, sandbox).
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf" -v --no-sandbox
wait_log "running on Linux" 1 10 || fail "the daemon did not start"
wait_log "^zram-recompd: $A: advice refreshed from 256 pages: " 1 60 ||
	fail "the daemon did not refresh the advice of $A"
expect_eq "advice primary after the daemon" "$(advice_field "$A" primary)" lz4
expect_eq "advice samples after the daemon" "$(advice_field "$A" samples)" 256
zram_add
C=$Z
wait_log "^zram-recompd: $C: recompress-algorithms = auto: no advice for $C yet; using zstd" \
	1 10 || fail "$C: the daemon did not resolve auto"
wait_log "^zram-recompd: $C: not initialized; secondary algorithms configured" 1 10 ||
	fail "$C: the daemon did not configure it"
recomp_list "$C" | grep -q '^#1: .*\[zstd\]' || fail "$C: not zstd at #1"
stop_daemon
expect_eq "daemon exit code" "$RC" 0
pass_note "chain $chain stored by --once, applied at setup (compr_data_size $got," \
	"predicted $pred), not applied for lz4, refreshed by the daemon"
