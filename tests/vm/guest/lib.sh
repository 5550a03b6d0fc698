# SPDX-License-Identifier: GPL-2.0-or-later
# Guest-side helpers for the VM scenarios (busybox ash). Each scenario script is run by /init as
# `sh /vm/scenarios/NAME.sh` with VMTEST_NAME=NAME and starts with `. /vm/lib.sh`.
#
# Result protocol: a scenario ends with exactly one of pass / fail REASON / skip REASON. Each
# prints "VMTEST PASS|FAIL|SKIP NAME[: REASON]" on the console and exits; the first one wins
# (a fail inside the cleanup after a pass does not change the result). A scenario that exits
# without calling any of them is reported as a failure by /init.

T=${VMTEST_NAME:?VMTEST_NAME not set}
DATA=/vm/data
RECOMPD=/usr/sbin/zram-recompd
RESULT=/tmp/vmtest.$T.result
WORK=/tmp/vmtest.$T
ZDEVS=
LOOPS=
mkdir -p "$WORK"

note() {
	echo "[$T] $*"
}

_result() {
	[ -e "$RESULT" ] && return 0
	echo "$1" >"$RESULT"
	echo "VMTEST $1"
}

pass() {
	_result "PASS $T"
	exit 0
}

fail() {
	_result "FAIL $T: $*"
	exit 1
}

skip() {
	_result "SKIP $T: $*"
	exit 0
}

# backing_loop SIZE: a sparse file of SIZE (truncate's units) in $WORK on a free loop device,
# its name in $L, detached at the end (_cleanup). The backing device of writeback tests.
backing_loop() {
	truncate -s "$1" "$WORK/backing.img" || fail "cannot create the backing file"
	L=$(losetup -f) || fail "no free loop device"
	losetup "$L" "$WORK/backing.img" || fail "losetup $L failed"
	LOOPS="$LOOPS $L"
}

# ext4_mount SIZE: an ext4 file system of SIZE (truncate's units) in an image in $WORK (the
# guest's tmpfs), formatted with the host's mke2fs, on a loop device, mounted at $MNT
# (= $WORK/mnt); unmounted and detached at the end. A real file system for a backing file
# (fallocate, no holes; zram-recompd refuses tmpfs).
MNT=
MOUNTS=
ext4_mount() {
	# by its path: busybox's sh runs its own mke2fs applet (no -t) for a bare name
	[ -x /usr/sbin/mke2fs ] || skip "mke2fs is not in the initramfs (e2fsprogs on the host)"
	grep -qw ext4 /proc/filesystems || fail "the kernel has no ext4 (kernel.fragment)"
	truncate -s "$1" "$WORK/ext4.img" || fail "cannot create the ext4 image"
	/usr/sbin/mke2fs -q -F -t ext4 -m 0 "$WORK/ext4.img" >"$WORK/mke2fs.out" 2>&1 ||
		fail "mke2fs failed: $(cat "$WORK/mke2fs.out")"
	_l=$(losetup -f) || fail "no free loop device"
	losetup "$_l" "$WORK/ext4.img" || fail "losetup $_l failed"
	LOOPS="$LOOPS $_l"
	MNT=$WORK/mnt
	mkdir -p "$MNT"
	mount -t ext4 "$_l" "$MNT" || fail "mount -t ext4 $_l $MNT failed"
	MOUNTS="$MNT $MOUNTS"
}

# free_bytes DIR: bytes available to root on DIR's file system (df -P, 1 KiB blocks, column 4
# is "available": with -m 0 the same as free).
free_bytes() {
	df -Pk "$1" | awk 'NR == 2 { print $4 * 1024 }'
}

# marked_pages MARKS PAGES N: N pages into PAGES, each a 64-byte random string (one per line
# in MARKS, made now, kept only there) followed by random bytes: what must not reach a
# backing store in clear text.
marked_pages() {
	: >"$1"
	: >"$2"
	_i=0
	while [ "$_i" -lt "$3" ]; do
		_m=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
		[ ${#_m} -eq 64 ] || fail "random string of ${#_m} characters"
		echo "$_m" >>"$1"
		{
			printf '%s' "$_m"
			head -c 4032 /dev/urandom
		} >>"$2"
		_i=$((_i + 1))
	done
}

# dm_of NAME: the dm-N block device named NAME (/sys/block/dm-*/dm/name), empty if none.
dm_of() {
	for _d in /sys/block/dm-*; do
		[ -r "$_d/dm/name" ] && [ "$(cat "$_d/dm/name")" = "$1" ] && echo "${_d##*/}"
	done
	return 0
}

# dm_devices: every dm-N the kernel has (space-separated; empty if none).
dm_devices() {
	for _d in /sys/block/dm-*; do
		[ -e "$_d" ] && printf '%s ' "${_d##*/}"
	done
	return 0
}

# loops_on FILE: loop devices whose backing file is FILE (/sys/block/loopN/loop/backing_file).
loops_on() {
	for _d in /sys/block/loop*; do
		[ -r "$_d/loop/backing_file" ] && [ "$(cat "$_d/loop/backing_file")" = "$1" ] &&
			printf '%s ' "${_d##*/}"
	done
	return 0
}

# BACKING_CONF: a configuration whose backing files the cleanup tears down (after the zram
# devices are removed, before the file systems are unmounted).
BACKING_CONF=

_cleanup() {
	[ "$SQUEEZE" != 1 ] || _squeeze_leftovers
	for d in $ZDEVS; do
		# hot_remove resets the device; it fails (EBUSY) while someone holds it open.
		echo "${d#zram}" >/sys/class/zram-control/hot_remove 2>/dev/null ||
			note "cleanup: hot_remove $d failed"
	done
	if [ -n "$BACKING_CONF" ]; then
		"$RECOMPD" --config "$BACKING_CONF" backing teardown >/dev/null 2>&1 ||
			note "cleanup: backing teardown failed"
	fi
	for m in $MOUNTS; do
		umount "$m" 2>/dev/null || note "cleanup: umount $m failed"
	done
	for l in $LOOPS; do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap _cleanup EXIT

need_recompd() {
	[ -x "$RECOMPD" ] || skip "zram-recompd was not built into the initramfs"
}

# zram_add: hot-adds an uninitialized device; sets Z (name, e.g. zram1) and ZID.
zram_add() {
	ZID=$(cat /sys/class/zram-control/hot_add) || fail "hot_add failed"
	Z=zram$ZID
	ZDEVS="$ZDEVS $Z"
	[ -e "/dev/$Z" ] || fail "/dev/$Z did not appear"
}

# zram_del DEV: hot-removes a device made by zram_add (it must not be open).
zram_del() {
	echo "${1#zram}" >/sys/class/zram-control/hot_remove || fail "hot_remove $1 failed"
	ZDEVS=$(echo " $ZDEVS " | sed "s/ $1 / /")
}

# zset DEV ATTR VALUE: write a sysfs attribute, failing the test on error.
zset() {
	echo "$3" >"/sys/block/$1/$2" || fail "echo '$3' > /sys/block/$1/$2 failed"
}

zget() {
	cat "/sys/block/$1/$2"
}

# ---- the running kernel: scenarios assert what this version does (zram-abi.md §1, §12) ----
KREL=$(uname -r)

# PAGE: the kernel's page size in bytes, from the auxiliary vector the kernel gives every
# process (AT_PAGESZ, type 6; 64-bit words on both test architectures): 4096 on x86-64,
# 16384 on the arm64 kernel (kernel-arm64.fragment). A zram slot holds one page, so every
# count of slots, mm_stat size and block_state index is in these units (kernel_features
# asserts zram's physical_block_size is the same). busybox has no getconf.
PAGE=$(od -An -tu8 -v /proc/self/auxv |
	awk '{ for (i = 1; i <= NF; i++) a[n++] = $i }
		END { for (i = 0; i + 1 < n; i += 2) if (a[i] == 6) { print a[i + 1]; exit } }')
case $PAGE in
4096 | 16384 | 65536) ;;
*) echo "VMTEST FAIL $T: no page size from /proc/self/auxv (got '$PAGE')"; exit 1 ;;
esac

# kver_ge MAJOR MINOR: the running kernel is MAJOR.MINOR or newer.
kver_ge() {
	_maj=${KREL%%.*}
	_min=${KREL#*.}
	_min=${_min%%[!0-9]*}
	[ "$_maj" -gt "$1" ] || { [ "$_maj" -eq "$1" ] && [ "$_min" -ge "$2" ]; }
}

# recomp_list DEV: recomp_algorithm as text, one "#P: list" line per priority. 6.17+ put runs
# of NUL bytes between and after the lines (zram-abi.md §12.3, asserted by kernel_abi): grep
# and sed would take them for the start of the next line. (The shell's $(...) drops NULs.)
recomp_list() {
	tr -d '\000' <"/sys/block/$1/recomp_algorithm"
}

# zwrite DEV ATTR VALUE: a sysfs write that may fail: WRC is its exit status, WERR the error
# text (e.g. "Invalid argument", "Device or resource busy"; empty on success).
zwrite() {
	WERR=$( (echo "$3" >"/sys/block/$1/$2") 2>&1)
	WRC=$?
	WERR=${WERR##*error: }
	note "echo '$3' > $2: ${WERR:-ok}"
}

# mm DEV FIELD: one mm_stat column by name (zram-abi.md §3; split on whitespace).
mm() {
	set -- "$1" "$2" $(cat "/sys/block/$1/mm_stat")
	case $2 in
	orig_data_size) echo "$3" ;;
	compr_data_size) echo "$4" ;;
	mem_used_total) echo "$5" ;;
	mem_limit) echo "$6" ;;
	mem_used_max) echo "$7" ;;
	same_pages) echo "$8" ;;
	pages_compacted) echo "$9" ;;
	huge_pages) shift 9; echo "$1" ;;
	huge_pages_since) shift 10; echo "$1" ;;
	*) fail "mm: unknown field $2" ;;
	esac
}

# bd_pages DEV FIELD: a bd_stat column (bd_count, bd_reads, bd_writes) in pages of $PAGE
# bytes: the kernel prints bd_stat in 4 KiB units whatever PAGE_SIZE is (6.12 and 7.3
# zram_drv.c, bd_stat_show: FOUR_K()), so at 16 KiB one page written counts 4 there.
bd_pages() {
	set -- "$1" "$2" $(cat "/sys/block/$1/bd_stat")
	case $2 in
	bd_count) echo $(($3 * 4096 / PAGE)) ;;
	bd_reads) echo $(($4 * 4096 / PAGE)) ;;
	bd_writes) echo $(($5 * 4096 / PAGE)) ;;
	*) fail "bd_pages: unknown field $2" ;;
	esac
}

# block_state DEV: the debugfs file, read with a big buffer (short reads end a line early,
# zram-abi.md §4).
block_state() {
	dd if="/sys/kernel/debug/zram/$1/block_state" bs=1M 2>/dev/null
}

# bs_count DEV LETTER [FIRST LAST]: slots whose flag column contains LETTER (s w h i r n),
# optionally only slot indexes FIRST..LAST.
bs_count() {
	block_state "$1" | awk -v f="$2" -v lo="${3:--1}" -v hi="${4:--1}" '
		(lo < 0 || ($1 >= lo && $1 <= hi)) && index($3, f) { n++ }
		END { print n + 0 }'
}

# bs_total DEV [FIRST LAST]: allocated slots.
bs_total() {
	block_state "$1" | awk -v lo="${2:--1}" -v hi="${3:--1}" '
		lo < 0 || ($1 >= lo && $1 <= hi) { n++ } END { print n + 0 }'
}

# load DEV FILE [SKIP COUNT [SEEK]]: write pages of $PAGE bytes (SKIP, COUNT, SEEK in pages) with
# O_DIRECT: no page cache copy, and the ac_time of each slot is the time of this write. Large
# blocks: zram splits them per page anyway, and fewer syscalls matter under emulation.
load() {
	dd if="$2" of="/dev/$1" bs=256K iflag=skip_bytes,count_bytes oflag=seek_bytes,direct \
		${3:+skip=$(($3 * PAGE))} ${4:+count=$(($4 * PAGE))} ${5:+seek=$(($5 * PAGE))} \
		conv=notrunc 2>/dev/null || fail "dd $2 to /dev/$1 failed"
}

# run_recompd OUTFILE ARGS...: runs zram-recompd, output (stdout+stderr) to OUTFILE and the
# console; sets RC.
run_recompd() {
	_out=$1
	shift
	note "zram-recompd $*"
	"$RECOMPD" "$@" >"$_out" 2>&1
	RC=$?
	sed "s/^/[$T]   | /" "$_out"
	note "exit code $RC"
}

# conf FILE LINES...: a config file with a [global] section.
conf() {
	_f=$1
	shift
	{
		echo "[global]"
		for l in "$@"; do
			echo "$l"
		done
	} >"$_f"
}

expect_eq() { # what actual expected
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# Seconds since boot with centiseconds, for timings.
now() {
	cut -d' ' -f1 /proc/uptime
}

# elapsed T0 T1: seconds between two now() values.
elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

# Number of whole pages ($PAGE bytes: 4 KiB pagegen pages taken 4 at a time at 16 KiB, in
# their order) in FILE.
pages_of() {
	echo $(($(wc -c <"$1") / PAGE))
}

# pass_note TEXT: pass, with a short note (a measurement) on the result line.
pass_note() {
	_result "PASS $T: $*"
	exit 0
}

# ---- daemon mode (scenarios daemon_*) ----
DPID=
DLOG=

# start_daemon LOG ARGS...: zram-recompd in daemon mode in the background, stdout and stderr
# to LOG; sets DPID. When the scenario exits, a daemon still running is killed and its log
# copied to the console before the devices are removed.
start_daemon() {
	DLOG=$1
	shift
	note "zram-recompd $* (daemon, log $DLOG)"
	"$RECOMPD" "$@" >"$DLOG" 2>&1 &
	DPID=$!
	trap '_daemon_end; _cleanup' EXIT
}

_daemon_end() {
	if [ -n "$DPID" ]; then
		kill -9 "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
		DPID=
	fi
	[ -n "$DLOG" ] && [ -f "$DLOG" ] && sed "s/^/[$T]   | /" "$DLOG"
	DLOG=
}

# daemon_alive: the daemon is running (not exited, not a zombie).
daemon_alive() {
	[ -n "$DPID" ] && [ -r "/proc/$DPID/stat" ] &&
		! sed 's/^.*) //' "/proc/$DPID/stat" | grep -q '^Z'
}

# stop_daemon [LIMIT]: SIGTERM, then wait for the exit (SIGKILL after LIMIT s, default 10).
# Sets RC (exit code; 137 when it had to be killed) and STOP_S (seconds from the signal to
# the exit, /proc/uptime resolution: 10 ms).
stop_daemon() {
	[ -n "$DPID" ] || fail "stop_daemon: no daemon running"
	_t0=$(now)
	kill -TERM "$DPID"
	(sleep "${1:-10}" && kill -9 "$DPID" 2>/dev/null) &
	_wd=$!
	wait "$DPID"
	RC=$?
	_t1=$(now)
	kill "$_wd" 2>/dev/null
	DPID=
	STOP_S=$(elapsed "$_t0" "$_t1")
	note "SIGTERM -> exit: $STOP_S s, exit code $RC"
}

# log_count REGEX: lines of the daemon log matching REGEX (extended).
log_count() {
	# The daemon's shell opens the log only after the fork: until then, 0 lines.
	[ -f "$DLOG" ] || { echo 0; return; }
	grep -cE "$1" "$DLOG"
}

# wait_line FILE REGEX SECONDS: until a line of FILE matches REGEX (1 when SECONDS pass).
wait_line() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 10)) ] && return 1
		usleep 100000
	done
}

# wait_log REGEX [N [SECONDS]]: waits until the daemon log has at least N (default 1) lines
# matching REGEX; returns 1 after SECONDS (default 30). Fails the scenario if the daemon died.
wait_log() {
	_i=0
	while [ "$(log_count "$1")" -lt "${2:-1}" ]; do
		daemon_alive || fail "the daemon exited while waiting for /$1/ in its log"
		_i=$((_i + 1))
		[ "$_i" -gt $((${3:-30} * 10)) ] && return 1
		usleep 100000
	done
	return 0
}

# state_field DEV KEY: a total from the daemon's state file ($ZRAM_RECOMPD_STATE_DIR/state).
state_field() {
	awk -v d="$1" -v k="$2=" '$1 == d {
		for (i = 2; i <= NF; i++)
			if (index($i, k) == 1) print substr($i, length(k) + 1) }' \
		"$ZRAM_RECOMPD_STATE_DIR/state" 2>/dev/null
}

# SQUEEZE=1: set by a scenario that squeezes memory on purpose with mlocked balloons. Its
# kernel log is judged by squeeze_traces at the end, or by _cleanup when it failed before.
SQUEEZE=

# _squeeze_causes FILE: the cause of each trace in the dmesg FILE, a line each: the nearest
# line before the trace that is not part of its header.
_squeeze_causes() {
	awk '
		/Call Trace/ {
			c = ""
			for (i = n; i > n - 8 && i > 0; i--) {
				if (l[i % 8] ~ /CPU: |Hardware name|Workqueue:|Tainted|Sched_ext|^\[[ 0-9.]*\] *$/)
					continue
				c = l[i % 8]
				break
			}
			print (c == "" ? "(no cause found)" : c)
		}
		{ n++; l[n % 8] = $0 }' "$1"
}

# _squeeze_judge: reads the ring buffer into $_kl and shows every trace with its context.
# Sets _other (a warning of another kind than a trace), _causes (each trace's cause) and
# _bad (the first cause the squeeze does not explain). The ring buffer is left as it is.
_squeeze_judge() {
	_kl=$WORK/dmesg.squeeze
	dmesg >"$_kl"
	grep -B 6 -A 14 'Call Trace' "$_kl" | head -n 80 | sed "s/^/[$T] dmesg: /"
	_other=$(grep -E 'WARNING:|BUG:|Oops|general protection|hung_task|soft lockup' "$_kl" |
		head -n 3)
	_causes=$(_squeeze_causes "$_kl")
	_bad=$(echo "$_causes" | grep -v -E '^$|page allocation (failure|stall)|invoked oom-killer' |
		head -n 1)
}

# squeeze_traces PIDS: judges the kernel log of a squeeze scenario (SQUEEZE=1) whose balloons
# are PIDS. Every trace is shown with its context, and each is named by the line that caused
# it. Accepted, as the kernel reporting the squeeze: "page allocation failure" (an order-0
# allocation of kswapd or the workload failing while zram stores a page; the page stays in
# RAM, and the scenario verified every page), "page allocation stall" (the same allocator
# report, for an allocation that waited) and the OOM killer taking one of the balloons. Any
# other trace or warning fails the scenario, with its cause in the reason (CI run of b7cbcfa
# on 7.3: "2 kernel traces, only 1 of them allocation failures", and nothing to tell what the
# other was), and stays in the ring buffer for /init to count. The squeeze's own traces are
# cleared once judged, also when the OOM killer took something else than a balloon: that
# fails the scenario (run.sh boots it once more), and left in the buffer they failed the
# boot's kernel_log too and the next squeeze scenario with the same victim (fresh clone at
# bb6b5ef, 7.3: adopt_refuse, then swap_short, for one OOM kill of swapload).
squeeze_traces() {
	SQUEEZE=judged
	_squeeze_judge
	[ -z "$_other" ] || fail "kernel warning: $_other"
	[ -z "$_bad" ] || fail "kernel trace not caused by the squeeze, after: $_bad"
	dmesg -c >/dev/null
	for _pid in $(sed -n 's/.*Out of memory: Killed process \([0-9]*\) .*/\1/p' "$_kl"); do
		case " $1 " in
		*" $_pid "*) ;;
		*) fail "the OOM killer took process $_pid, not a balloon:" \
			"$(grep -m 1 "Killed process $_pid " "$_kl")" ;;
		esac
	done
	[ -n "$_causes" ] || return 0
	note "$(echo "$_causes" | grep -c 'page allocation failure') allocation failure(s)," \
		"$(echo "$_causes" | grep -c 'page allocation stall') allocation stall(s)," \
		"$(echo "$_causes" | grep -c 'invoked oom-killer') OOM kill(s) of a balloon under" \
		"the squeeze (accepted)"
}

# _squeeze_leftovers: a squeeze scenario that failed before squeeze_traces already has its
# failure (and run.sh boots it once more); its squeeze's own traces are cleared here, as
# squeeze_traces would have, so that they do not fail the boot's kernel_log and the next
# squeeze scenario a second time. Anything else stays for /init to count. (Fresh clone at
# a4a6368, 7.3: kernel_log alone failed, "5 warning line(s)"; its output did not say from
# which scenario, and traces left this way would give that.)
_squeeze_leftovers() {
	_squeeze_judge
	[ -n "$_causes" ] || return 0
	if [ -z "$_other" ] && [ -z "$_bad" ]; then
		dmesg -c >/dev/null
		note "cleanup: $(echo "$_causes" | grep -c .) trace(s) of the squeeze cleared"
	else
		note "cleanup: kernel traces left for the boot's kernel_log: ${_other:-$_bad}"
	fi
}
