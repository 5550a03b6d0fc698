#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench: the daemon on the largest device the VM's memory allows, on the real kernel (the
# fake-/sys counterpart is tests/bench/scale.sh). The device (lzo-rle primary, zstd
# secondary) gets BENCH_LARGE_PERCENT (default 60) percent of MemAvailable in pages of the
# page data, written again and again (each page compressed on its own: the pool holds about
# a third of that), disksize the data. The kernel recompresses it first in one write (idle
# all, type=idle): the daemon's own first pass would do the same in hundreds of writes of
# max-write-ms, each walking every slot from the first on 7.x (measured: not done after 30
# min of wall time on a loaded host for 213,000 slots), and what is measured here is the
# daemon's work per pass on a large device, not the kernel's recompression. The daemon then
# runs with a pass every BENCH_LARGE_INTERVAL (default 5) s, idle age 0 and the CPU gates
# off, until BENCH_LARGE_PASSES (default 4) passes ended. Measured:
#   large.kernel_recompress_s  the kernel's one recompress write (emulated);
#   large.pass1.*   the daemon's first pass: user and system CPU, including start-up;
#   large.later.*   user and system CPU per later pass (reading and parsing block_state, the
#                   incompressible set, decisions; system: the kernel formatting block_state);
#   large.uss_*     USS and PSS (smaps_rollup) sampled every BENCH_LARGE_SAMPLE_MS (default
#                   200) ms: the peak over all passes and the lowest sample after the first;
#   large.uss_file_kb, large.uss_anon_kb  the private pages after the last pass, file-backed
#                   (text and data of the program and libraries only it maps) and anonymous;
#   large.block_state_read_s  one read of block_state by dd (the kernel formatting it);
# plus slots, data, mm_stat before and after.
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

PCT=${BENCH_LARGE_PERCENT:-60}
INTERVAL=${BENCH_LARGE_INTERVAL:-5}
PASSES=${BENCH_LARGE_PASSES:-4}
SAMPLE_MS=${BENCH_LARGE_SAMPLE_MS:-200}

avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
copies=$((avail * PCT * 256 / 100 / PAGES))
[ "$copies" -ge 1 ] || copies=1
slots=$((copies * PAGES))
out large.memavailable_mib "$avail"
out large.percent "$PCT"
out large.slots "$slots"
out large.data_mib $((slots / 256))

zram_add
zset "$Z" comp_algorithm lzo-rle
zset "$Z" recomp_algorithm "algo=zstd priority=1"
zset "$Z" disksize $((slots * 4096))
out large.disksize $((slots * 4096))
t0=$(ns)
i=0
while [ "$i" -lt "$copies" ]; do
	load "$Z" "$DATA/pages.bin" 0 "$PAGES" $((i * PAGES))
	i=$((i + 1))
done
out large.fill_s "$(secs $(($(ns) - t0)))"
mm_out large.before "$Z"
t0=$(ns)
block_state "$Z" | wc -l >"$WORK/lines"
out large.block_state_read_s "$(secs $(($(ns) - t0)))"
out large.block_state_lines "$(cat "$WORK/lines")"
note "$slots slots ($((slots / 256)) MiB of $avail MiB available) in $Z;" \
	"mm_stat $(zget "$Z" mm_stat)"

t0=$(ns)
timed_write "/sys/block/$Z/idle" all
timed_write "/sys/block/$Z/recompress" "type=idle"
out large.kernel_recompress_s "$(secs $(($(ns) - t0)))"
mm_out large.recompressed "$Z"
note "recompressed by the kernel in $(secs $(($(ns) - t0))) s: mm_stat $(zget "$Z" mm_stat)"

conf "$WORK/d.conf" "devices = $Z" "recompress-algorithms = zstd" \
	"interval-sec = $INTERVAL" "idle-age-min-sec = 0" "idle-age-max-sec = 0" \
	"backoff-max-sec = 0" "cpu-share-max-percent = 0" "psi-cpu-max-percent = 0" \
	"memory-stall-us = 0" "pages-per-hour = 0" "defer-on-battery = no"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
mkdir -p "$ZRAM_RECOMPD_STATE_DIR"
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf"
wait_log "running on Linux" 1 30 || fail "the daemon did not start"

# One loop: sample memory, note the CPU at the end of each pass.
PASS_RE="^zram-recompd: $Z: pass"
uss_max=0 pss_max=0 uss_min=0 seen=0 u1=0 s1=0 t_end=$(($(ns) / 1000000000 + 1800))
while :; do
	set -- $("$VMBENCH" proc "$DPID")
	[ $# -eq 12 ] || fail "the daemon died"
	ut=$1 st=$2 hwm=$5
	shift 3
	uss=$8 pss=$9
	[ "$uss" -gt "$uss_max" ] && uss_max=$uss
	[ "$pss" -gt "$pss_max" ] && pss_max=$pss
	np=$(log_count "$PASS_RE")
	if [ "$np" -ge 1 ] && { [ "$uss_min" = 0 ] || [ "$uss" -lt "$uss_min" ]; }; then
		uss_min=$uss
	fi
	if [ "$np" -ne "$seen" ]; then
		note "pass $np ended: utime $ut stime $st ticks, USS $uss kB"
		if [ "$seen" -eq 0 ]; then
			u1=$ut s1=$st
			out large.pass1.user_s "$(awk -v t="$ut" 'BEGIN { printf "%.2f", t / 100 }')"
			out large.pass1.sys_s "$(awk -v t="$st" 'BEGIN { printf "%.2f", t / 100 }')"
		fi
		seen=$np
	fi
	[ "$np" -ge "$PASSES" ] && break
	[ $(($(ns) / 1000000000)) -lt "$t_end" ] || fail "only $np passes in 1800 s"
	usleep $((SAMPLE_MS * 1000))
done
# Where the private pages are now (between passes): file-backed (library and program text
# and data that no other process maps in this VM) and anonymous (the daemon's own memory).
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = NF >= 6 ? $6 : "[anon]"; next }
	$1 == "Private_Clean:" || $1 == "Private_Dirty:" { p[name] += $2 }
	END { for (n in p) if (p[n]) print p[n], n }' "/proc/$DPID/smaps" | sort -rn >"$WORK/smaps"
show "$WORK/smaps"
out large.uss_file_kb "$(awk '$2 ~ /^\// { s += $1 } END { print s + 0 }' "$WORK/smaps")"
out large.uss_anon_kb "$(awk '$2 !~ /^\// { s += $1 } END { print s + 0 }' "$WORK/smaps")"
# The same split as the overhead scenario (benchlib.sh: private_split).
set -- $(private_split "$DPID")
out large.uss_lib_text_kb "$1"
out large.uss_own_kb "$2"
n=$((seen - 1))
out large.passes "$seen"
out large.later.passes "$n"
out large.later.user_s_per_pass "$(awk -v a="$u1" -v b="$ut" -v n="$n" \
	'BEGIN { printf "%.3f", (b - a) / 100 / n }')"
out large.later.sys_s_per_pass "$(awk -v a="$s1" -v b="$st" -v n="$n" \
	'BEGIN { printf "%.3f", (b - a) / 100 / n }')"
out large.uss_peak_kb "$uss_max"
out large.uss_between_kb "$uss_min"
out large.pss_peak_kb "$pss_max"
out large.vmhwm_kb "$hwm"
mm_out large.after "$Z"
out large.recompressed_slots "$(bs_count "$Z" r)"
out large.incompressible_slots "$(bs_count "$Z" n)"
grep -E "$PASS_RE" "$DLOG" | head -n 3 | sed "s/^/[$T]   | /"
stop_daemon
out large.sigterm_s "$STOP_S"
pass
