# SPDX-License-Identifier: GPL-2.0-or-later
# Guest-side helpers for the bench scenarios (busybox ash), sourced after /vm/lib.sh (device
# helpers, pass/fail/skip). Measurements go to the console as "BENCH key value" lines; the
# host (tests/bench/run.sh) collects them into results/latest.json. Keys are dotted paths
# (static.none.mem_used_total); values are numbers or single words.
# Sourced: WNS and friends are for the caller; "set -- $(...)" splits on purpose.
# shellcheck disable=SC1091,SC2034,SC2046

VMBENCH=/usr/bin/vmbench
# Scenario knobs from the host's environment (run.sh writes them).
[ -r /vm/bench.env ] && . /vm/bench.env
BENCH_PIDS=
# Pages of the data set in the kernel's page size (PAGE, lib.sh: 16 KiB on the arm64 kernel,
# where run.sh gives the guest a page file of whole 16 KiB pages), and a disksize with room to
# spare (as make demo does).
PAGES=$(pages_of "$DATA/pages.bin")
DISKSIZE=$((PAGES * PAGE + 64 * 1048576))

[ -x "$VMBENCH" ] || fail "vmbench missing from the initramfs"

out() { # key value
	echo "BENCH $1 $2"
}

# Nanoseconds, CLOCK_MONOTONIC.
ns() {
	"$VMBENCH" now
}

# secs NS: nanoseconds as seconds with 6 decimals.
secs() {
	awk -v n="$1" 'BEGIN { printf "%.6f", n / 1e9 }'
}

# timed_write FILE STRING: one write, timed; sets WNS (ns). Fails the scenario on an error.
timed_write() {
	set -- "$1" "$2" $("$VMBENCH" write "$1" "$2")
	[ "$4" = 0 ] || fail "write '$2' to $1 failed (errno $4)"
	WNS=$3
}

# bench_dev PRIMARY [SECONDARY]: a fresh device (sets Z) with that primary and optionally one
# secondary at priority 1, disksize DISKSIZE, holding every page of pages.bin.
bench_dev() {
	zram_add
	zset "$Z" comp_algorithm "$1"
	[ -n "${2:-}" ] && zset "$Z" recomp_algorithm "algo=$2 priority=1"
	zset "$Z" disksize "$DISKSIZE"
	load "$Z" "$DATA/pages.bin"
}

# mm_out PREFIX DEV: mm_stat fields as PREFIX.<field>.
mm_out() {
	set -- "$1" $(zget "$2" mm_stat)
	out "$1.orig_data_size" "$2"
	out "$1.compr_data_size" "$3"
	out "$1.mem_used_total" "$4"
	out "$1.pages_compacted" "$8"
	out "$1.huge_pages" "$9"
}

# once_kernel_s FILE: the kernel time a --once report names (every pass type and compact).
once_kernel_s() {
	awk '/ s in kernel/ { for (i = 1; i <= NF; i++) if ($i == "s" && $(i + 1) == "in") t += $(i - 1) }
		/: compact: freed / { t += $(NF - 1) }
		END { printf "%.6f", t }' "$1"
}

# once_writes FILE: recompress writes in a --once report.
once_writes() {
	awk '/: pass .*write/ { for (i = 1; i <= NF; i++) if ($i ~ /^writes?,$/) n += $(i - 1) }
		END { print n + 0 }' "$1"
}

# start_bg VAR CMD...: run CMD in the background, remember its pid in VAR (killed on exit).
start_bg() {
	_v=$1
	shift
	"$@" &
	eval "$_v=$!"
	BENCH_PIDS="$BENCH_PIDS $!"
}

# stop_bg PID: SIGKILL (cleanup only; measurements use SIGTERM) and reap.
stop_bg() {
	kill -9 "$1" 2>/dev/null
	wait_bg "$1" 2>/dev/null
	return 0
}

# wait_bg PID: wait for a background job to end by itself and forget it; returns its status.
wait_bg() {
	wait "$1"
	_wb_rc=$?
	BENCH_PIDS=$(echo " $BENCH_PIDS " | sed "s/ $1 / /")
	return $_wb_rc
}

_bench_cleanup() {
	for p in $BENCH_PIDS; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	BENCH_PIDS=
	_cleanup
}
trap _bench_cleanup EXIT

# show FILE: a file on the console, indented (for the log; the host ignores it).
show() {
	sed "s/^/[$T]   | /" "$1"
}

# proc_stats PREFIX PID: CPU, context switches and memory of the whole process (VmHWM, and
# USS and PSS from smaps_rollup).
proc_stats() {
	_p=$1
	set -- $("$VMBENCH" proc "$2")
	[ $# -eq 12 ] || return 1
	out "$_p.utime_ticks" "$1"
	out "$_p.stime_ticks" "$2"
	out "$_p.voluntary_ctxt_switches" "$3"
	out "$_p.nonvoluntary_ctxt_switches" "$4"
	out "$_p.vmhwm_kb" "$5"
	out "$_p.vmrss_kb" "$6"
	out "$_p.threads" "$7"
	out "$_p.rss_anon_kb" "$8"
	out "$_p.rss_file_kb" "$9"
	shift 3
	out "$_p.rss_shmem_kb" "$7"
	# private (what the daemon itself costs) and proportional memory, smaps_rollup
	out "$_p.uss_kb" "$8"
	out "$_p.pss_kb" "$9"
}

# private_split PID: "LIB OWN" kB of the process's private pages (smaps): pages of shared
# libraries' files (text and read-only data that no other process in this VM maps; shared
# wherever other processes use the same libraries, as systemd's do) against the rest
# (anonymous memory, the libraries' relocated data, which smaps counts as Anonymous within
# their mappings, and the program itself): the daemon's own cost anywhere. (The initramfs
# is shmem, whose pages smaps reports dirty: clean/dirty cannot tell them apart.)
private_split() {
	awk 'function flush() { if (lib) { t += p - a; o += a } else o += p; p = a = 0 }
		/^[0-9a-f]+-[0-9a-f]+ / { flush(); lib = NF >= 6 && $6 ~ /\.so/; next }
		$1 == "Private_Clean:" || $1 == "Private_Dirty:" { p += $2 }
		$1 == "Anonymous:" { a += $2 }
		END { flush(); print t + 0, o + 0 }' "/proc/$1/smaps"
}

# state_total DEV KEY: a total from the daemon's state file in $ZRAM_RECOMPD_STATE_DIR.
state_total() {
	awk -v d="$1" -v k="$2=" '$1 == d {
		for (i = 2; i <= NF; i++)
			if (index($i, k) == 1) print substr($i, length(k) + 1) }' \
		"$ZRAM_RECOMPD_STATE_DIR/state" 2>/dev/null
}
