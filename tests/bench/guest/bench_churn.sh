#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 2, churn: a hot set (every 5th page: 20%, spread over every kind of data) is rewritten
# with the same contents once per interval, between passes, while a policy runs:
#   daemon  zram-recompd as a daemon with the shipped defaults except interval-sec = P and
#           idle-age-min-sec = idle-age-max-sec = AGE (P < AGE < 2P: cold pages turn idle
#           after two intervals, pages rewritten every P seconds never do)
#   naive   a periodic job at the same interval: echo all > idle; echo type=idle >
#           recompress; echo 1 > compact, every write timed
# Schedule (t = 0 when the policy starts): rewrite at (k - 1/2) P for k = 1..N, the naive job
# at k P, a last look at (N + 1/2) P. Before every rewrite the hot pages marked r (or n) are
# counted: the rewrite clears the marks, so the sum over the looks is the number of hot-page
# recompressions during the run. Memory is taken at the last look, after the last pass and
# before the next rewrite (the moment most favourable to the naive job).
# Word splitting of $(...) into "set --" is intended; start_bg assigns pids by name.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

P=${BENCH_CHURN_INTERVAL:-4}
AGE=${BENCH_CHURN_AGE:-6}
N=${BENCH_CHURN_INTERVALS:-8}
STRIDE=5
NS=1000000000

out churn.interval_s "$P"
out churn.idle_age_s "$AGE"
out churn.intervals "$N"
out churn.hot_stride "$STRIDE"
out churn.hot_pages $(((PAGES + STRIDE - 1) / STRIDE))

# look: "hot_r hot_n cold_r compr mem" now.
look() {
	set -- $(block_state "$Z" | awk -v s="$STRIDE" '
		{ hot = $1 % s == 0 }
		hot && index($3, "r") { hr++ } hot && index($3, "n") { hn++ }
		!hot && index($3, "r") { cr++ }
		END { print hr + 0, hn + 0, cr + 0 }') $(zget "$Z" mm_stat)
	echo "$1 $2 $3 $5 $6"
}

# naive_job T0: the periodic job, one line per run in $WORK/naive.times:
# "k idle_ns recompress_ns compact_ns compr_before compr_after_recompress errnos".
naive_job() {
	for k in $(seq 1 "$N"); do
		"$VMBENCH" sleepuntil $(($1 + k * P * NS))
		c0=$(mm "$Z" compr_data_size)
		set -- "$1" $("$VMBENCH" write "/sys/block/$Z/idle" all)
		i=$2
		e=$3
		set -- "$1" $("$VMBENCH" write "/sys/block/$Z/recompress" type=idle)
		r=$2
		e=$((e + $3))
		c1=$(mm "$Z" compr_data_size)
		set -- "$1" $("$VMBENCH" write "/sys/block/$Z/compact" 1)
		echo "$k $i $r $2 $c0 $c1 $((e + $3))" >>"$WORK/naive.times"
	done
}

for policy in daemon naive; do
	bench_dev lzo-rle zstd
	set -- $(look)
	out "churn.$policy.start.compr_data_size" "$4"
	out "churn.$policy.start.mem_used_total" "$5"
	: >"$WORK/naive.times"
	t0=$(ns)
	if [ "$policy" = daemon ]; then
		conf "$WORK/d.conf" "devices = $Z" "recompress-algorithms = zstd" \
			"interval-sec = $P" "idle-age-min-sec = $AGE" "idle-age-max-sec = $AGE"
		export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
		start_bg pid "$RECOMPD" -v --config "$WORK/d.conf" >"$WORK/daemon.log" 2>&1
	else
		start_bg pid naive_job "$t0"
	fi
	hot_r=0
	uss_max=0
	hot_n=0
	rewrite_ns=0
	for k in $(seq 1 "$N"); do
		"$VMBENCH" sleepuntil $((t0 + (2 * k - 1) * P * NS / 2))
		set -- $(look)
		note "$policy t=$(secs $(($(ns) - t0))) s: hot r $1 n $2, cold r $3," \
			"compr $4, mem $5"
		hot_r=$((hot_r + $1))
		hot_n=$((hot_n + $2))
		if [ "$policy" = daemon ]; then
			# the daemon's private memory between passes (its peak is sampled too)
			set -- $("$VMBENCH" proc "$pid")
			[ $# -eq 12 ] && [ "${11}" -gt "$uss_max" ] && uss_max=${11}
		fi
		set -- $("$VMBENCH" rewrite "$Z" "$DATA/pages.bin" "$STRIDE")
		rewrite_ns=$((rewrite_ns + $2))
	done
	if [ "$policy" = naive ]; then
		# The job's last run may end late under emulation: wait for it.
		wait_bg "$pid"
	fi
	"$VMBENCH" sleepuntil $((t0 + (2 * N + 1) * P * NS / 2))
	set -- $(look)
	note "$policy end t=$(secs $(($(ns) - t0))) s: hot r $1 n $2, cold r $3, compr $4, mem $5"
	hot_r=$((hot_r + $1))
	hot_n=$((hot_n + $2))
	out "churn.$policy.end.hot_recompressed_slots" "$1"
	out "churn.$policy.end.cold_recompressed_slots" "$3"
	out "churn.$policy.end.compr_data_size" "$4"
	out "churn.$policy.end.mem_used_total" "$5"
	out "churn.$policy.hot_recompressions" "$hot_r"
	out "churn.$policy.hot_incompressible_marks" "$hot_n"
	out "churn.$policy.rewrite_s" "$(secs "$rewrite_ns")"
	out "churn.$policy.wall_s" "$(secs $(($(ns) - t0)))"
	if [ "$policy" = daemon ]; then
		proc_stats churn.daemon.proc "$pid"
		out churn.daemon.uss_max_kb "$uss_max"
		kill -TERM "$pid"
		wait_bg "$pid"
		out churn.daemon.exit_code $?
		show "$WORK/daemon.log"
		for key in passes kernel_ns bytes_saved mem_freed pages_attempted errors; do
			v=$(state_total "$Z" "$key")
			out "churn.daemon.state.$key" "${v:-null}"
		done
		out churn.daemon.deferrals "$(grep -c 'deferred' "$WORK/daemon.log")"
		# Passes that saved nothing, and their kernel time.
		set -- $(awk '/: pass/ && /saved 0 B/ { n++
				for (i = 1; i <= NF; i++) if ($i == "s" && $(i + 1) == "in") t += $(i - 1) }
			END { printf "%d %.6f", n, t }' "$WORK/daemon.log")
		out churn.daemon.empty_passes "$1"
		out churn.daemon.empty_passes_kernel_s "$2"
		# Kernel writes of the pass, over all passes, from the state file.
		v=$(state_total "$Z" kernel_ns)
		out churn.daemon.kernel_write_s "$(secs "${v:-0}")"
		out churn.daemon.bytes_saved_cumulative "$(state_total "$Z" bytes_saved)"
	else
		show "$WORK/naive.times"
		set -- $(awk '{ i += $2; r += $3; c += $4; n++; if ($5 > $6) s += $5 - $6
			if ($7) e++ }
			END { print n + 0, i + r + c, s + 0, r + 0, e + 0 }' "$WORK/naive.times")
		out churn.naive.runs "$1"
		out churn.naive.kernel_write_s "$(secs "$2")"
		out churn.naive.bytes_saved_cumulative "$3"
		out churn.naive.recompress_write_s "$(secs "$4")"
		out churn.naive.runs_with_errors "$5"
		# The first run recompresses everything; later ones only the rewritten hot set
		# (and, on 6.2-6.14, walk every recompressed slot again).
		out churn.naive.first_run_kernel_s "$(awk 'NR == 1 { printf "%.6f", ($2 + $3 + $4) / 1e9 }' \
			"$WORK/naive.times")"
		out churn.naive.later_run_kernel_s "$(awk 'NR > 1 { t += $2 + $3 + $4; n++ }
			END { if (n) printf "%.6f", t / n / 1e9; else print "null" }' "$WORK/naive.times")"
	fi
	zram_del "$Z"
done
pass
