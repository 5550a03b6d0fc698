#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench: a zstd dictionary (issue 28, item 5) on the real driver. The page file is split
# into blocks of BENCH_DICT_BLOCK (256) pages, the even ones to training, the odd ones to
# the test: both halves come from every program of the capture, and no page the devices
# store was trained on. `advise --input` trains the dictionary on the training half (its
# own held-out prediction inside it) and installs it in a memory-backed directory; each
# device below is configured by `zram-recompd --once` before disksize (zstd-dictionary =
# the priorities given, whatever the prediction: this measures) and holds the test half.
#   none         lzo-rle, nothing recompressed (the baseline of CPU per MiB saved)
#   limit9       zstd level 9 primary, no dictionary: the single-algorithm limit of the cold tier
#   limit3       zstd level 3 primary, no dictionary
#   cold         lzo-rle + zstd 3 (#1) + zstd 9 (#2), the daemon until its first cold-tier
#                pass (as static's cold), without a dictionary
#   cold_dict    the same with the dictionary at priority 2 (the cold tier's zstd 9)
#   l3           lzo-rle + zstd 3 (#1), one --once (idle-age-max-sec = 0), no dictionary
#   l3_dict      the same with the dictionary at priority 1
# For each: mm_stat; the CPU of the process that recompressed (--once: vmbench run; the
# daemon: utime + stime of /proc/PID/stat); read-back time of every page with O_DIRECT
# (each page decompressed by the kernel, as a swap-in) and whether the bytes read back are
# the bytes written. Keys dict.*.
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

BLK=${BENCH_DICT_BLOCK:-256}
: >"$WORK/train.bin"
: >"$WORK/test.bin"
n=0
while [ "$n" -lt "$PAGES" ]; do
	f="test"
	[ $(((n / BLK) % 2)) -eq 0 ] && f=train
	dd if="$DATA/pages.bin" bs="$PAGE" skip="$n" count="$BLK" 2>/dev/null >>"$WORK/$f.bin" ||
		fail "splitting the pages failed"
	n=$((n + BLK))
done
TP=$(pages_of "$WORK/test.bin")
TDISK=$((TP * PAGE + 64 * 1048576))
out dict.block_pages "$BLK"
out dict.train_pages "$(pages_of "$WORK/train.bin")"
out dict.test_pages "$TP"
out dict.page_size "$PAGE"

# The dictionary, trained once on the training half for a device name of its own, then
# copied (mode kept) for each device that uses it: the same bytes everywhere.
ZRAM_RECOMPD_DICT_DIR=$WORK/dict
export ZRAM_RECOMPD_DICT_DIR
"$RECOMPD" advise --input "$WORK/train.bin" --primary lzo-rle --chain zstd:9 --dict \
	--dict-install zram99 --seed 1 --threads 1 >"$WORK/advise.out" 2>&1 ||
	fail "advise --dict failed: $(tail -n 3 "$WORK/advise.out")"
show "$WORK/advise.out"
DICT=$ZRAM_RECOMPD_DICT_DIR/zram99.zdict
[ -f "$DICT" ] || fail "advise --dict-install wrote no dictionary"
out dict.dict_bytes "$(wc -c <"$DICT")"
# "dictionary (--dict): B bytes (...), ... in T s CPU, ..."
out dict.train_cpu_s "$(sed -n 's/^dictionary (--dict): .* in \([0-9.]*\) s CPU.*/\1/p' "$WORK/advise.out")"
# "  at priority 1 (zstd:9): mem_used_total X, saves Y (P%), ..."
out dict.predicted_l9_saving_pct "$(sed -n 's/^  at priority 1 (zstd:9): .*saves [^(]*(\([0-9.-]*\)%).*/\1/p' "$WORK/advise.out")"

# use_dict DEV: the dictionary and its prediction where --once looks for DEV's
use_dict() {
	cp -p "$DICT" "$ZRAM_RECOMPD_DICT_DIR/$1.zdict"
	cp -p "$DICT.pred" "$ZRAM_RECOMPD_DICT_DIR/$1.zdict.pred"
}

# readback KEY DEV: every page read with O_DIRECT, timed, then compared with the test half.
readback() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	rb0=$(ns)
	dd if="/dev/$2" of=/dev/null bs=256K iflag=direct,count_bytes count=$((TP * PAGE)) \
		2>/dev/null || fail "$1: reading /dev/$2 back failed"
	rb1=$(ns)
	out "$1.readback_s" "$(secs $((rb1 - rb0)))"
	out "$1.readback_us_per_page" "$(awk -v t=$((rb1 - rb0)) -v n="$TP" 'BEGIN { printf "%.2f", t / n / 1000 }')"
	if dd if="/dev/$2" bs=256K iflag=direct,count_bytes count=$((TP * PAGE)) 2>/dev/null |
		cmp -s - "$WORK/test.bin"; then
		out "$1.intact" 1
	else
		out "$1.intact" 0
	fi
}

# setup DEV CONF: --once configures the uninitialized device, then disksize and the test half
setup() {
	"$RECOMPD" --config "$2" --once --device "$1" >"$WORK/setup.$1.out" 2>&1 ||
		fail "configuring $1 failed: $(cat "$WORK/setup.$1.out")"
	show "$WORK/setup.$1.out"
	zset "$1" disksize "$TDISK"
	load "$1" "$WORK/test.bin"
}

# dict_dev NAME PRIO CONF_LINE...: a new lzo-rle device configured by --once from the
# configuration lines (with the dictionary at priority PRIO when NAME ends in _dict, and
# checked applied), holding the test half.
dict_dev() {
	dd_v=$1
	dd_p=$2
	shift 2
	zram_add
	zset "$Z" comp_algorithm lzo-rle
	case $dd_v in
	*_dict)
		use_dict "$Z"
		set -- "$@" "zstd-dictionary = $dd_p"
		;;
	esac
	conf "$WORK/$dd_v.conf" "$@"
	setup "$Z" "$WORK/$dd_v.conf"
	case $dd_v in
	*_dict)
		grep -q "$Z: zstd dictionary .* at priority $dd_p" "$WORK/setup.$Z.out" ||
			fail "$dd_v: the dictionary was not applied at priority $dd_p"
		;;
	esac
}

for lvl in none limit9 limit3; do
	zram_add
	case $lvl in
	none) zset "$Z" comp_algorithm lzo-rle ;;
	limit9)
		zset "$Z" comp_algorithm zstd
		zset "$Z" algorithm_params "algo=zstd level=9"
		;;
	limit3) zset "$Z" comp_algorithm zstd ;;
	esac
	zset "$Z" disksize "$TDISK"
	load "$Z" "$WORK/test.bin"
	mm_out "dict.$lvl" "$Z"
	readback "dict.$lvl" "$Z"
	zram_del "$Z"
done

# The cold tier, without and with the dictionary at priority 2.
for v in cold cold_dict; do
	dict_dev "$v" 2 "recompress-algorithms = zstd zstd" "algorithm-params = 1:level=3 2:level=9" \
		"idle-age-max-sec = 0" "interval-sec = 2" "cold-idle-age-sec = 4" "cold-priority = 2" \
		"psi-cpu-max-percent = 0" "pages-per-hour = 0" "cpu-share-max-percent = 0"
	ZRAM_RECOMPD_STATE_DIR=$WORK/state-$v
	export ZRAM_RECOMPD_STATE_DIR
	mkdir -p "$ZRAM_RECOMPD_STATE_DIR"
	start_daemon "$WORK/$v.log" --verbose --config "$WORK/$v.conf"
	wait_log "$Z: pass: .*\(cold tier first\)" "${BENCH_DICT_COLD_PASSES:-3}" 900 ||
		fail "$v: not ${BENCH_DICT_COLD_PASSES:-3} cold-tier passes within 900 s"
	set -- $(awk '{ print $14, $15 }' "/proc/$DPID/stat")
	out "dict.$v.cpu_s" "$(awk -v t=$(($1 + $2)) -v hz=100 'BEGIN { printf "%.2f", t / hz }')"
	stop_daemon
	show "$WORK/$v.log"
	mm_out "dict.$v" "$Z"
	out "dict.$v.passes" "$(log_count "$Z: pass: ")"
	readback "dict.$v" "$Z"
	zram_del "$Z"
done

# One pass at level 3, without and with the dictionary at priority 1.
for v in l3 l3_dict; do
	dict_dev "$v" 1 "recompress-algorithms = zstd" "idle-age-max-sec = 0"
	# vmbench run: "NS EXIT UTIME_NS STIME_NS" of the --once process
	set -- $("$VMBENCH" run "$WORK/$v.out" "$RECOMPD" --config "$WORK/$v.conf" --once --device "$Z")
	[ $# -eq 4 ] || fail "vmbench run of zram-recompd --once failed"
	show "$WORK/$v.out"
	[ "$2" -eq 0 ] || fail "$v: zram-recompd --once exited $2"
	out "dict.$v.cpu_s" "$(secs $(($3 + $4)))"
	out "dict.$v.kernel_write_s" "$(once_kernel_s "$WORK/$v.out")"
	mm_out "dict.$v" "$Z"
	readback "dict.$v" "$Z"
	zram_del "$Z"
done
pass
