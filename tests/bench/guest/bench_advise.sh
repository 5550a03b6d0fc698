#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 6, advisor: `zram-recompd advise --device` on a fresh lzo-rle + zstd device, then
# `--once` (idle-age-max-sec = 0); the prediction for the device's own chain (zstd) is compared
# with mm_stat after the pass: compr_data_size with "compr_bytes", mem_used_total (after
# compaction) with "mem_bytes". Twice before the pass: with the default sampling (4096 slots;
# --seed 1, so that runs repeat) and with every slot sampled (the model's own error). Speed:
# sampled pages per second of (emulated) time. Without `advise` the scenario reports "not
# available".
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC1091,SC2046,SC2086
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd
if ! "$RECOMPD" advise --help >/dev/null 2>&1; then
	out advise.available false
	skip "advise not available"
fi
out advise.available true
bench_dev lzo-rle zstd
out advise.start_compr_bytes "$(mm "$Z" compr_data_size)"
out advise.start_mem_bytes "$(mm "$Z" mem_used_total)"

# advise_run PREFIX ARGS...: one advise --json run, its chain prediction and speed.
advise_run() {
	_p=$1
	shift
	t0=$(ns)
	"$RECOMPD" advise --device "$Z" --json "$@" >"$WORK/advise.json" 2>"$WORK/advise.err"
	rc=$?
	t1=$(ns)
	show "$WORK/advise.err"
	show "$WORK/advise.json"
	if [ "$rc" -ne 0 ]; then
		out advise.error "exit_code_$rc"
		fail "advise $* exited $rc"
	fi
	j=$(cat "$WORK/advise.json")
	# "chain":{"algos":[...],"compr_bytes":N,"mem_bytes":N}
	set -- $(echo "$j" | sed -n 's/.*"chain":{"algos":\[\([^]]*\)\],/\1 /
		s/"compr_bytes":\([0-9]*\),"mem_bytes":\([0-9]*\)}.*/\1 \2/p')
	[ $# -eq 3 ] || fail "no chain prediction in the advise output"
	out "$_p.chain" "$(echo "$1" | tr -d '"')"
	out "$_p.predicted_compr_bytes" "$2"
	out "$_p.predicted_mem_bytes" "$3"
	out "$_p.sampled_pages" "$(echo "$j" | sed -n 's/.*"sampled_pages":\([0-9]*\).*/\1/p')"
	out "$_p.scaled" "$(echo "$j" | sed -nE 's/.*"scaled":(true|false).*/\1/p')"
	out "$_p.wall_s" "$(secs $((t1 - t0)))"
}

advise_run advise --seed 1
out advise.seed 1
advise_run advise.all --samples "$PAGES"

conf "$WORK/once.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
"$RECOMPD" --config "$WORK/once.conf" --once --device "$Z" >"$WORK/once.out" 2>&1
rc=$?
show "$WORK/once.out"
[ "$rc" -eq 0 ] || fail "zram-recompd --once exited $rc"
out advise.measured_compr_bytes "$(mm "$Z" compr_data_size)"
out advise.measured_mem_bytes "$(mm "$Z" mem_used_total)"
zram_del "$Z"
pass
