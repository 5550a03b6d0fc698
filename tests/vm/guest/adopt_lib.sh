# SPDX-License-Identifier: GPL-2.0-or-later
# What the adopt scenarios share, sourced as /vm/adopt_lib.sh after /vm/lib.sh (and after
# need_recompd): swapload (the workload and its mlocked balloons), a zram swap device set up
# as the distribution tools do, the squeeze, the figures of /proc/swaps and the swap header,
# the final verification of every page, and one EXIT trap that ends all of it.
# The scenario sets MIB (the workload's pages), PRIO (the swap priority) and, to squeeze,
# RAM (MiB the balloons leave to the workload) and EXTRA (MiB of them given back later).
# Word splitting of the pid lists and of $(...) into "set --" is intended; line0, hdr0, devs0,
# avail, H1, H2 and VERIFIED are read by the scenarios.
# shellcheck disable=SC2034,SC2046,SC2086

SWAPLOAD=/usr/bin/swapload
[ -x "$SWAPLOAD" ] || skip "swapload missing from the initramfs (make tools)"

LPID=  # the workload
HOLDS= # every balloon, killed at the end
TOPS=  # the balloons that top up the squeeze

# adopt_end_more: a scenario's own teardown, run last by the EXIT trap (redefine it).
adopt_end_more() {
	:
}

# The EXIT trap: the workload and the balloons killed (their mlocked memory back), the daemon
# ended (no-op without one), the device taken out of swap and reset, the scenario's own
# teardown, then lib.sh's _cleanup.
_adopt_end() {
	for p in $LPID $HOLDS; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	_daemon_end
	if [ -n "${Z:-}" ]; then
		swapoff "/dev/$Z" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			echo 1 >"/sys/block/$Z/reset" 2>/dev/null && break
			usleep 100000
		done
	fi
	adopt_end_more
}
trap '_adopt_end; _cleanup' EXIT

# daemon_start LOG ARGS...: start_daemon, which sets its own EXIT trap: ours (which ends the
# daemon too) is put back after it, or the workload and the mlocked balloons outlive the
# scenario. Adopt scenarios call this, never start_daemon.
daemon_start() {
	start_daemon "$@"
	trap '_adopt_end; _cleanup' EXIT
}

# balloon MIB NAME: an mlocked balloon; its pid in $BPID (and in HOLDS, for the cleanup).
balloon() {
	"$SWAPLOAD" hold "$1" >"$WORK/$2.out" 2>&1 &
	BPID=$!
	HOLDS="$HOLDS $BPID"
	wait_line "$WORK/$2.out" "SWAPLOAD holding" 90 || fail "balloon $2 ($1 MiB) did not start"
}

# pop PID: a balloon gone, its memory back.
pop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

avail_mib() {
	awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo
}

# top_up NAME: balloons (NAME1, NAME2, ..., at most 4), a second apart, until MemAvailable is
# at most RAM + 16 MiB; their pids added to TOPS, the last MemAvailable in $avail. Memory an
# earlier scenario still held when MemAvailable was first read (a process or device being torn
# down) comes back later: once it left the squeeze too loose to refuse (7.3: 817 MiB after
# "holding"), once the workload unswapped (7.3: 608 KiB in swap).
top_up() {
	_n=0
	avail=$(avail_mib)
	while [ "$avail" -gt $((RAM + 16)) ] && [ "$_n" -lt 4 ]; do
		_n=$((_n + 1))
		balloon $((avail - RAM)) "$1$_n"
		TOPS="$TOPS $BPID"
		sleep 1
		avail=$(avail_mib)
	done
}

# squeeze: RAM MiB left to the workload, by a balloon of all but RAM + EXTRA MiB (pid in H1),
# one of EXTRA MiB (H2, given back for a plan's margin) and top_up's.
squeeze() {
	avail=$(avail_mib)
	balloon $((avail - RAM - EXTRA)) hold1
	H1=$BPID
	balloon $EXTRA hold2
	H2=$BPID
	sleep 1
	top_up top
}

# unsqueeze: the balloons of squeeze and swap_some gone.
unsqueeze() {
	pop "$H1"
	pop "$H2"
	for p in $TOPS; do
		pop "$p"
	done
}

# squeeze_more NAME COMMAND...: more balloons of 8 MiB (NAME.1, NAME.2, ..., at most 8) until
# COMMAND succeeds, a second apart; their pids are added to TOPS. The balloons are sized from
# MemAvailable, which leaves out what the kernel can still take without swapping (part of the
# page cache and of reclaimable slab, the low watermarks), and RAM is only 24 MiB short of the
# workload: on 7.3 adopt's squeeze left 33 or 275 slots in the device in some boots, 7,706 to
# 9,060 in others.
squeeze_more() {
	_name=$1
	shift
	_i=0
	while ! "$@" && [ "$_i" -lt 8 ]; do
		_i=$((_i + 1))
		balloon 8 "$_name.$_i"
		TOPS="$TOPS $BPID"
		sleep 1
	done
	[ "$_i" -eq 0 ] || note "$_name: $_i more balloon(s) of 8 MiB"
}

# swap_line DEV: "SIZE PRIO" of DEV in /proc/swaps (empty when not swap)
swap_line() {
	awk -v d="/dev/$1" '$1 == d { print $3, $5 }' /proc/swaps
}
# swap_used DEV: KiB of DEV in use as swap
swap_used() {
	awk -v d="/dev/$1" '$1 == d { print $4 }' /proc/swaps
}
swap_kib_over() {
	[ "$(swap_used "$Z")" -gt "$1" ]
}

# swap_some: more balloons until over 8 MiB of the workload are in swap; fails under 4 MiB.
swap_some() {
	squeeze_more top swap_kib_over 8192
	[ "$(swap_used "$Z")" -gt 4096 ] ||
		fail "only $(swap_used "$Z") KiB in swap: the workload did not swap"
}

# header DEV: the UUID and label of its swap header, in hex
header() {
	dd if="/dev/$1" bs=4096 count=1 2>/dev/null | dd bs=1 skip=1036 count=32 2>/dev/null |
		od -An -tx1 | tr -d ' \n'
}

zram_list() {
	ls -d /sys/block/zram* | tr '\n' ' '
}

# secondaries DEV: its recomp_algorithm as "#1: [zstd] #2: [deflate] " (the chosen ones)
secondaries() {
	recomp_list "$1" | sed 's/ .*\[/ [/; s/\].*/]/' | tr '\n' ' '
}

# swap_setup LABEL: the device Z (uninitialized) set up as the distribution tools do: lzo-rle
# primary, no secondary, 128 MiB, mkswap with the label, swapon with priority PRIO.
swap_setup() {
	zset "$Z" comp_algorithm lzo-rle
	zset "$Z" disksize 128M
	mkswap -L "$1" "/dev/$Z" >/dev/null 2>&1 || fail "mkswap /dev/$Z failed"
	"$SWAPLOAD" swapon "/dev/$Z" $PRIO || fail "swapon /dev/$Z with priority $PRIO failed"
}

# workload: swapload over MIB MiB of the page data (10% hot), its output in $W, its pid in
# LPID, once it has filled its memory.
workload() {
	W=$WORK/load.out
	"$SWAPLOAD" run "$DATA/pages.bin" "$MIB" 10 600 1 65536 0 1 >"$W" 2>&1 &
	LPID=$!
	wait_line "$W" "SWAPLOAD filled" 90 || fail "the workload did not fill its memory"
}

# remember: the device's /proc/swaps line, header and the zram devices, in line0, hdr0, devs0.
remember() {
	line0=$(swap_line "$Z")
	hdr0=$(header "$Z")
	devs0=$(zram_list)
}

# expect_swap_again WHAT: the device is swap again with its size, priority and header.
expect_swap_again() {
	expect_eq "$1: /proc/swaps size and priority" "$(swap_line "$Z")" "$line0"
	expect_eq "$1: header UUID and label" "$(header "$Z")" "$hdr0"
}

# verify_pages SECONDS: the workload reads back every page (swapload's verify: its index and
# the page file's bytes); fails unless all MIB MiB of them are intact. Sets VERIFIED.
verify_pages() {
	kill -USR1 "$LPID"
	wait_line "$W" "^SWAPLOAD verify" "$1" || fail "the workload's verification did not end"
	set -- $(sed -n 's/^SWAPLOAD verify pages \([0-9]*\) bad \([0-9]*\) first_bad \([0-9]*\)/\1 \2 \3/p' "$W")
	expect_eq "pages verified" "$1" $((MIB * 256))
	[ "$2" -eq 0 ] || fail "$2 of $1 pages read back wrong (the first: page $3)"
	VERIFIED=$1
}
