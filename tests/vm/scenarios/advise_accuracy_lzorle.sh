#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `advise` against the real kernel, lzo-rle primary (advise_accuracy_lz4.sh runs this file
# with PRIMARY=lz4). What is compared:
#
#  1. Device A: PRIMARY, zstd as priority 1 (set before disksize), the tier's page data.
#     `advise --device A --json --samples 0` reads EVERY stored slot (the figures asserted
#     below are not sampled) and predicts, for the device's own chain (zstd), the
#     compr_data_size and the mem_used_total after recompression + compaction. Then
#     `--once` (idle-age-max-sec = 0: every slot; compact = always) does it for real.
#  2. Device B: PRIMARY with the chain advise recommended (its config lines used as they
#     are), the same pages, `--once`: the recommendation's predicted savings against the
#     kernel's. Skipped when the recommendation is the zstd chain of A (A measured it).
#
# Asserted, each within 5%: predicted compr_data_size saving (before - after) against the
# measured one, and predicted mem_used_total after --once against the measured one. The
# error of a 1024-slot sample (the daemon's advise-samples default) is printed, not asserted.
# VMINFO lines carry every figure; the result line carries the errors.
. /vm/lib.sh
need_recompd

PRIMARY=${PRIMARY:-lzo-rle}
TOL=5 # percent

# jfield FILE ERE: the number right after the first (leftmost) match of ERE in a one-line
# JSON file. Write '{' and '[' as [{] and [[] in ERE.
jfield() {
	awk -v re="$2" 'match($0, re) { v = substr($0, RSTART + RLENGTH)
		sub(/[^-0-9].*/, "", v); print v; exit }' "$1"
}

# jstr FILE KEY: the first string value of "KEY":"VALUE" in a one-line JSON file.
jstr() {
	awk -v re="\"$2\":\"" 'match($0, re) { v = substr($0, RSTART + RLENGTH)
		sub(/".*/, "", v); print v; exit }' "$1"
}

# err PRED MEAS: signed relative error in percent, two decimals.
err() {
	awk -v p="$1" -v m="$2" 'BEGIN { if (m == 0) print "inf"; else printf "%+.2f", (p - m) * 100 / m }'
}

# within PRED MEAS: |error| <= TOL percent.
within() {
	awk -v p="$1" -v m="$2" -v t="$TOL" 'BEGIN { d = p - m; if (d < 0) d = -d;
		if (m < 0) m = -m; exit !(m > 0 && d * 100 <= t * m) }'
}

# setup_dev CONF: a new device with PRIMARY, secondaries from CONF written by --once before
# disksize (as the zram-setup drop-in does), the page data loaded. Sets D.
setup_dev() {
	zram_add
	D=$Z
	zset "$D" comp_algorithm "$PRIMARY"
	run_recompd "$WORK/setup-$D.out" --config "$1" --once --device "$D"
	expect_eq "$D: setup exit code" "$RC" 0
	zset "$D" disksize 256M
	load "$D" "$DATA/pages.bin"
}

# measure_once DEV CONF: --once; sets C0 C1 (compr_data_size before/after) and M1
# (mem_used_total after; --once compacts).
measure_once() {
	C0=$(mm "$1" compr_data_size)
	run_recompd "$WORK/once-$1.out" --config "$2" --once --device "$1"
	expect_eq "$1: --once exit code" "$RC" 0
	grep -q "compact: freed" "$WORK/once-$1.out" || fail "$1: --once did not compact"
	C1=$(mm "$1" compr_data_size)
	M1=$(mm "$1" mem_used_total)
	note "$1 after --once: mm_stat $(zget "$1" mm_stat)"
}

pages=$(pages_of "$DATA/pages.bin")
note "data: $(cat "$DATA/source"), $pages pages, primary $PRIMARY"

# ---- 1. device A, chain zstd ----
conf "$WORK/a.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0" "compact = always"
setup_dev "$WORK/a.conf"
A=$D
expect_eq "$A recomp_algorithm" "$(recomp_list "$A" | sed -n 's/^#1: .*\[\(.*\)\].*/\1/p')" zstd
note "$A before: mm_stat $(zget "$A" mm_stat)"
c0=$(mm "$A" compr_data_size)
m0=$(mm "$A" mem_used_total)

t0=$(now)
"$RECOMPD" advise --device "$A" --json --samples 0 >"$WORK/all.json" 2>"$WORK/all.err" ||
	{ cat "$WORK/all.err"; fail "advise --samples 0 failed"; }
t1=$(now)
"$RECOMPD" advise --device "$A" --json --samples 1024 --seed 1 >"$WORK/s1024.json" \
	2>"$WORK/s1024.err" || { cat "$WORK/s1024.err"; fail "advise --samples 1024 failed"; }
note "advise (all slots, $(elapsed "$t0" "$t1") s): $(cat "$WORK/all.json")"
grep -q '"scaled":false' "$WORK/all.json" || fail "advise --samples 0 scaled its figures"
expect_eq "advise primary" "$(jstr "$WORK/all.json" algo)" "$PRIMARY"

p_compr=$(jfield "$WORK/all.json" '"primary":[{][^}]*"compr_bytes":')
p_mem=$(jfield "$WORK/all.json" '"primary":[{][^}]*"mem_bytes":')
ch_compr=$(jfield "$WORK/all.json" '"chain":[{]"algos":[[]"zstd"],"compr_bytes":')
ch_mem=$(jfield "$WORK/all.json" '"chain":[{]"algos":[[]"zstd"],"compr_bytes":[0-9]*,"mem_bytes":')
[ -n "$p_compr" ] && [ -n "$ch_compr" ] && [ -n "$ch_mem" ] ||
	fail "advise JSON lacks primary/chain figures (chain not [\"zstd\"]?)"
s_compr=$(jfield "$WORK/s1024.json" '"primary":[{][^}]*"compr_bytes":')
s_ch_compr=$(jfield "$WORK/s1024.json" '"chain":[{]"algos":[[]"zstd"],"compr_bytes":')
s_ch_mem=$(jfield "$WORK/s1024.json" '"chain":[{]"algos":[[]"zstd"],"compr_bytes":[0-9]*,"mem_bytes":')
echo "VMINFO advise $PRIMARY primary: compr_data_size predicted $p_compr measured $c0" \
	"($(err "$p_compr" "$c0")%); pool after compaction predicted $p_mem, mem_used_total now $m0"

measure_once "$A" "$WORK/a.conf"
pred_save=$((p_compr - ch_compr))
meas_save=$((C0 - C1))
e_save=$(err "$pred_save" "$meas_save")
e_mem=$(err "$ch_mem" "$M1")
s_e_save=$(err $((s_compr - s_ch_compr)) "$meas_save")
s_e_mem=$(err "$s_ch_mem" "$M1")
echo "VMINFO advise $PRIMARY chain zstd (all slots): compr saving predicted $pred_save" \
	"measured $meas_save (${e_save}%); mem_used_total after predicted $ch_mem measured $M1" \
	"(${e_mem}%)"
echo "VMINFO advise $PRIMARY chain zstd (1024-slot sample, seed 1): compr saving error" \
	"${s_e_save}%, mem_used_total error ${s_e_mem}%"
within "$pred_save" "$meas_save" ||
	fail "chain zstd: predicted compr saving $pred_save vs measured $meas_save (${e_save}%)"
within "$ch_mem" "$M1" ||
	fail "chain zstd: predicted mem_used_total $ch_mem vs measured $M1 (${e_mem}%)"
summary="zstd: compr saving ${e_save}%, mem ${e_mem}% (1024 samples: ${s_e_save}%, ${s_e_mem}%)"

# ---- 2. the recommended chain ----
grep -q '"pays":true' "$WORK/all.json" || {
	note "advise says recompression does not pay; no recommended chain to check"
	pass_note "$summary; recommendation: none (does not pay)"
}
rec_algos=$(jstr "$WORK/all.json" recompress-algorithms)
rec_params=$(jstr "$WORK/all.json" algorithm-params)
r_mem_save=$(jfield "$WORK/all.json" '"mem_saving_bytes":')
r_compr_save=$(jfield "$WORK/all.json" '"compr_saving_bytes":')
[ -n "$rec_algos" ] && [ -n "$r_mem_save" ] && [ -n "$r_compr_save" ] ||
	fail "advise JSON lacks the recommendation's config or savings"
label="$rec_algos${rec_params:+ ($rec_params)}"
if [ "$rec_algos" = zstd ] && [ -z "$rec_params" ]; then
	# A measured exactly this chain.
	C0=$c0
	C1=$(mm "$A" compr_data_size)
	M1=$(mm "$A" mem_used_total)
else
	conf "$WORK/b.conf" "recompress-algorithms = $rec_algos" "algorithm-params = $rec_params" \
		"idle-age-max-sec = 0" "compact = always"
	setup_dev "$WORK/b.conf"
	B=$D
	note "$B (recommended $label) before: mm_stat $(zget "$B" mm_stat)"
	measure_once "$B" "$WORK/b.conf"
fi
r_pred_mem=$((p_mem - r_mem_save))
r_e_save=$(err "$r_compr_save" $((C0 - C1)))
r_e_mem=$(err "$r_pred_mem" "$M1")
echo "VMINFO advise $PRIMARY recommended $label: compr saving predicted $r_compr_save" \
	"measured $((C0 - C1)) (${r_e_save}%); mem_used_total after predicted $r_pred_mem" \
	"measured $M1 (${r_e_mem}%)"
within "$r_compr_save" $((C0 - C1)) ||
	fail "recommended $label: predicted compr saving $r_compr_save vs measured $((C0 - C1))"
within "$r_pred_mem" "$M1" ||
	fail "recommended $label: predicted mem_used_total $r_pred_mem vs measured $M1"
pass_note "$summary; recommended $label: compr saving ${r_e_save}%, mem ${r_e_mem}%"
