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

_cleanup() {
	for d in $ZDEVS; do
		# hot_remove resets the device; it fails (EBUSY) while someone holds it open.
		echo "${d#zram}" >/sys/class/zram-control/hot_remove 2>/dev/null ||
			note "cleanup: hot_remove $d failed"
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

# load DEV FILE [SKIP COUNT [SEEK]]: write 4 KiB pages (SKIP, COUNT, SEEK in pages) with
# O_DIRECT: no page cache copy, and the ac_time of each slot is the time of this write. Large
# blocks: zram splits them per page anyway, and fewer syscalls matter under emulation.
load() {
	dd if="$2" of="/dev/$1" bs=256K iflag=skip_bytes,count_bytes oflag=seek_bytes,direct \
		${3:+skip=$(($3 * 4096))} ${4:+count=$(($4 * 4096))} ${5:+seek=$(($5 * 4096))} \
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

# Number of 4 KiB pages in FILE.
pages_of() {
	echo $(($(wc -c <"$1") / 4096))
}
