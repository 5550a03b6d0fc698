#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bench 4, overhead of the idle daemon: interval-sec = 3600 on a device holding the pages, so
# no pass falls into the window. After 3 s of start-up, WINDOW seconds (default 20) are
# watched: wake-ups (voluntary context switches of all threads: each one is a sleep after a
# wake-up), CPU time (utime + stime of all threads) and peak RSS (VmHWM). Twice: without a
# watchdog, and with WATCHDOG_USEC=10 s, whose keep-alive pings sd-event sends every 5 to
# 7.5 s (between 1/2 and 3/4 of the period): those wake-ups are expected.
# Word splitting of $(...) into "set --" is intended; start_bg assigns pids by name.
# shellcheck disable=SC1091,SC2046,SC2086,SC2154
. /vm/lib.sh
. /vm/benchlib.sh
need_recompd

WINDOW=${BENCH_IDLE_WINDOW:-20}
out overhead.window_s "$WINDOW"
out overhead.clk_tck 100

bench_dev lzo-rle zstd
conf "$WORK/d.conf" "devices = $Z" "recompress-algorithms = zstd" "interval-sec = 3600"
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"

for mode in plain watchdog; do
	if [ "$mode" = watchdog ]; then
		export WATCHDOG_USEC=10000000
		out overhead.watchdog.watchdog_usec "$WATCHDOG_USEC"
	fi
	start_bg pid "$RECOMPD" --config "$WORK/d.conf" >"$WORK/$mode.log" 2>&1
	sleep 3
	set -- $("$VMBENCH" proc "$pid")
	[ $# -eq 12 ] || { show "$WORK/$mode.log"; fail "$mode: the daemon is not running"; }
	u0=$1 s0=$2 v0=$3 n0=$4
	sleep "$WINDOW"
	set -- $("$VMBENCH" proc "$pid")
	[ $# -eq 12 ] || { show "$WORK/$mode.log"; fail "$mode: the daemon died"; }
	out "overhead.$mode.wakeups" $(($3 - v0))
	out "overhead.$mode.nonvoluntary_ctxt_switches" $(($4 - n0))
	out "overhead.$mode.cpu_ticks" $(($1 + $2 - u0 - s0))
	out "overhead.$mode.vmhwm_kb" "$5"
	out "overhead.$mode.vmrss_kb" "$6"
	out "overhead.$mode.threads" "$7"
	note "$mode: $(($3 - v0)) wake-ups, $(($1 + $2 - u0 - s0)) ticks in $WINDOW s, VmHWM $5 kB" \
		"(now RssAnon $8 kB, RssFile $9 kB, RssShmem ${10} kB)"
	out "overhead.$mode.rss_anon_kb" "$8"
	out "overhead.$mode.rss_file_kb" "$9"
	shift 3
	out "overhead.$mode.rss_shmem_kb" "$7"
	# the daemon's own memory (private pages) and its share of the shared ones
	out "overhead.$mode.uss_kb" "$8"
	out "overhead.$mode.pss_kb" "$9"
	note "$mode: USS $8 kB, PSS $9 kB"
	if [ "$mode" = plain ]; then
		# Where the resident pages are: per mapping (anonymous ones as [anon]).
		awk '/^[0-9a-f]+-[0-9a-f]+ / { name = NF >= 6 ? $6 : "[anon]"; next }
			$1 == "Rss:" { rss[name] += $2 }
			END { for (n in rss) if (rss[n]) print rss[n], n }' "/proc/$pid/smaps" |
			sort -rn >"$WORK/smaps"
		show "$WORK/smaps"
		kb() { # AWK-CONDITION: kB of the mappings whose name ($2) matches
			awk "$1 { s += \$1 } END { print s + 0 }" "$WORK/smaps"
		}
		out overhead.plain.rss_binary_kb "$(kb '$2 ~ /zram-recompd$/')"
		out overhead.plain.rss_libraries_kb "$(kb '$2 ~ /\.so/')"
		out overhead.plain.rss_heap_kb "$(kb '$2 == "[heap]"')"
		out overhead.plain.rss_anon_maps_kb "$(kb '$2 == "[anon]"')"
		out overhead.plain.rss_stack_kb "$(kb '$2 == "[stack]"')"
		# What USS is made of (benchlib.sh: private_split).
		read -r lib_text own <<EOF
$(private_split "$pid")
EOF
		out overhead.plain.uss_lib_text_kb "$lib_text"
		out overhead.plain.uss_own_kb "$own"
		note "plain: private pages = $lib_text kB of library files only this process maps + $own kB own"
	fi
	kill -TERM "$pid"
	wait_bg "$pid"
	show "$WORK/$mode.log"
done
unset WATCHDOG_USEC
pass
