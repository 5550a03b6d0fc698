#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `zram-recompd adopt` on a zram swap device in use by a running workload, set up the way the
# distribution tools do it (lzo-rle primary, no secondary, mkswap with a label, swapon with
# priority 7), both plans:
#   1. plenty of memory (the balloons gone): plan A, direct (swapoff, reset, setup, swapon);
#      the device gets zstd;
#   2. memory squeezed again, then 128 MiB given back: --via-temp, plan B (a hot-added
#      temporary device takes the pages, the device is set up again, the pages move back);
#      the device gets zstd and deflate;
#   3. squeezed again (its pages go back to the device) and a --once pass recompresses them.
# Asserted after each adoption: recomp_algorithm lists the configured secondaries, the device is
# swap again at priority 7 with its size, the header keeps its UUID and label, no other zram
# device is left; after the pass: block_state has `r` slots; at the end every page the workload
# reads back is intact (swapload's verify: its index and the page file's bytes), through
# swapoff, reset, the temporary device, swap-in and recompression.
# vm-timeout: 240
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC2046,SC2086
. /vm/lib.sh
SQUEEZE=1 # mlocked balloons: its allocation-failure traces are judged (squeeze_traces)
need_recompd

SWAPLOAD=/usr/bin/swapload
[ -x "$SWAPLOAD" ] || skip "swapload missing from the initramfs (make tools)"
RAM=112	   # MiB the balloons leave to the workload
EXTRA=128  # of which a second balloon holds this much, given back for plan B's margin
MIB=136
PRIO=7

LPID=
HOLDS=
_adopt_end() {
	for p in $LPID $HOLDS; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "${Z:-}" ] || return 0
	swapoff "/dev/$Z" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		echo 1 >"/sys/block/$Z/reset" 2>/dev/null && break
		usleep 100000
	done
}
trap '_adopt_end; _cleanup' EXIT

# balloon MIB NAME: an mlocked balloon; its pid in $BPID (and in HOLDS, for the cleanup).
balloon() {
	"$SWAPLOAD" hold "$1" >"$WORK/$2.out" 2>&1 &
	BPID=$!
	HOLDS="$HOLDS $BPID"
	wait_line "$WORK/$2.out" "SWAPLOAD holding" 90 || fail "balloon $2 ($1 MiB) did not start"
}

# squeeze_more NAME COMMAND...: more balloons of 8 MiB (NAME.1, NAME.2, ..., at most 8) until
# COMMAND succeeds, a second apart; their pids are added to TOPS (and, as every balloon's, to
# HOLDS: killed at the end). The balloons are sized from MemAvailable, which leaves out what
# the kernel can still take without swapping (part of the page cache and of reclaimable slab,
# the low watermarks), and the squeeze is only 24 MiB short of the workload: on 7.3 the same
# squeeze left 33 or 275 slots in the device in some boots, 7,706 to 9,060 in others.
squeeze_more() {
	_name=$1
	shift
	_i=0
	while ! "$@" && [ "$_i" -lt 8 ]; do
		_i=$((_i + 1))
		balloon 8 "$_name.$_i"
		TOPS="$TOPS $BPID" # the fill's go with the top-ups before plan A
		sleep 1
	done
	[ "$_i" -eq 0 ] || note "$_name: $_i more balloon(s) of 8 MiB"
}

swap_kib_over() {
	[ "$(swap_used "$Z")" -gt "$1" ]
}

slots_over() {
	[ "$(bs_total "$Z")" -gt "$1" ]
}

pop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

avail_mib() {
	awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo
}

# swap_line DEV: "SIZE PRIO" of DEV in /proc/swaps (empty when not swap)
swap_line() {
	awk -v d="/dev/$1" '$1 == d { print $3, $5 }' /proc/swaps
}
swap_used() {
	awk -v d="/dev/$1" '$1 == d { print $4 }' /proc/swaps
}

# header DEV: the UUID and label of its swap header, in hex
header() {
	dd if="/dev/$1" bs=4096 count=1 2>/dev/null | dd bs=1 skip=1036 count=32 2>/dev/null |
		od -An -tx1 | tr -d ' \n'
}

zram_list() {
	ls -d /sys/block/zram* | tr '\n' ' '
}

# after_adopt OUT WHAT: the device is swap again as before, with the header and no extra device
after_adopt() {
	expect_eq "$2: /proc/swaps size and priority" "$(swap_line "$Z")" "$line0"
	expect_eq "$2: header UUID and label" "$(header "$Z")" "$hdr0"
	expect_eq "$2: zram devices" "$(zram_list)" "$devs0"
	expect_eq "$2: disksize" "$(zget "$Z" disksize)" $((128 << 20))
	expect_eq "$2: primary" "$(sed 's/.*\[\([^]]*\)\].*/\1/' "/sys/block/$Z/comp_algorithm")" lzo-rle
}

t0=$(now)
avail=$(avail_mib)
[ "$avail" -gt $((RAM + EXTRA + 64)) ] || skip "only $avail MiB available"
balloon $((avail - RAM - EXTRA)) hold1
H1=$BPID
balloon $EXTRA hold2
H2=$BPID
# Topped up until RAM MiB are left (as adopt_refuse): memory an earlier scenario gave back
# after MemAvailable was read once left the workload unswapped on 7.3 (608 KiB in swap).
TOPS=
n=0
sleep 1
avail=$(avail_mib)
while [ "$avail" -gt $((RAM + 16)) ] && [ "$n" -lt 4 ]; do
	n=$((n + 1))
	balloon $((avail - RAM)) top$n
	TOPS="$TOPS $BPID"
	sleep 1
	avail=$(avail_mib)
done

zram_add
zset "$Z" comp_algorithm lzo-rle
zset "$Z" disksize 128M
mkswap -L adoptlbl "/dev/$Z" >/dev/null 2>&1 || fail "mkswap /dev/$Z failed"
"$SWAPLOAD" swapon "/dev/$Z" $PRIO || fail "swapon /dev/$Z with priority $PRIO failed"

W=$WORK/load.out
"$SWAPLOAD" run "$DATA/pages.bin" "$MIB" 10 600 1 65536 0 1 >"$W" 2>&1 &
LPID=$!
wait_line "$W" "SWAPLOAD filled" 90 || fail "the workload did not fill its memory"
line0=$(swap_line "$Z")
hdr0=$(header "$Z")
devs0=$(zram_list)
expect_eq "recomp_algorithm before" "$(recomp_list "$Z")" ""
note "filled $MIB MiB in $(elapsed "$t0" "$(now)") s: /proc/swaps $Z size/prio $line0," \
	"used $(swap_used "$Z") KiB; mm_stat $(zget "$Z" mm_stat); header $hdr0"
squeeze_more top swap_kib_over 8192
[ "$(swap_used "$Z")" -gt 4096 ] || fail "only $(swap_used "$Z") KiB in swap: the workload did not swap"

# 1. plan A, with the balloons gone
pop "$H1"
pop "$H2"
for p in $TOPS; do
	pop "$p"
done
conf "$WORK/a.conf" "recompress-algorithms = zstd"
t1=$(now)
run_recompd "$WORK/a.out" --config "$WORK/a.conf" adopt "$Z"
expect_eq "adopt (direct) exit code" "$RC" 0
grep -q "^$Z: plan: direct (swapoff first)" "$WORK/a.out" || fail "plan A was not chosen"
grep -q "^$Z: adopted" "$WORK/a.out" || fail "no 'adopted' line"
after_adopt "$WORK/a.out" "plan A"
expect_eq "recomp_algorithm after plan A" "$(recomp_list "$Z" | sed 's/ .*\[/ [/; s/\].*/]/')" "#1: [zstd]"
kill -0 "$LPID" || fail "the workload died during plan A"
note "plan A in $(elapsed "$t1" "$(now)") s; used $(swap_used "$Z") KiB"

# 2. squeezed again (the workload's cold pages go to the device), then EXTRA given back
# MemAvailable now leaves out the workload, which is all in memory after plan A
avail=$(avail_mib)
balloon $((avail + MIB - RAM - EXTRA)) hold3
balloon $EXTRA hold4
H4=$BPID
sleep 2
note "squeezed: used $(swap_used "$Z") KiB, mm_stat $(zget "$Z" mm_stat)"
pop "$H4"
conf "$WORK/b.conf" "recompress-algorithms = zstd deflate" "algorithm-params = deflate:level=9"
t1=$(now)
run_recompd "$WORK/b.out" --config "$WORK/b.conf" adopt --via-temp "$Z"
expect_eq "adopt --via-temp exit code" "$RC" 0
grep -q "^$Z: plan: through a temporary zram device" "$WORK/b.out" || fail "plan B was not taken"
grep -q "^$Z: hot-added zram[0-9]* as the temporary device" "$WORK/b.out" ||
	fail "no temporary device was hot-added"
after_adopt "$WORK/b.out" "plan B"
expect_eq "recomp_algorithm after plan B" \
	"$(recomp_list "$Z" | sed 's/ .*\[/ [/; s/\].*/]/' | tr '\n' ' ')" "#1: [zstd] #2: [deflate] "
kill -0 "$LPID" || fail "the workload died during plan B"
held=$(sed -n 's/^zram[0-9]*: holds \([0-9]*\) pages (orig_data_size) after the swapoff.*/\1/p' "$WORK/b.out")
[ -n "$held" ] || fail "no figure of what the temporary device held"
note "plan B in $(elapsed "$t1" "$(now)") s; the temporary device held $held pages; used" \
	"$(swap_used "$Z") KiB"

# 3. squeezed again, then one --once pass over the device
balloon $EXTRA hold5
sleep 2
squeeze_more hold5 slots_over 2000
stored=$(bs_total "$Z")
note "squeezed: $stored slots, mm_stat $(zget "$Z" mm_stat)"
[ "$stored" -gt 1000 ] || fail "only $stored slots in $Z after the squeeze"
# idle pages, at most 4096 of them: enough to see them recompressed, and quick on 7.x, where
# every recompress write walks all slots
conf "$WORK/c.conf" "recompress-algorithms = zstd deflate" "algorithm-params = deflate:level=9" \
	"idle-age-max-sec = 0" "passes = idle" "max-pages-per-pass = 4096"
run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$Z"
expect_eq "--once exit code" "$RC" 0
r=$(bs_count "$Z" r)
# compr_data_size itself moves with the workload's swapping during the pass: the steps' own
# figures are measured around each write, the other writers' share taken out (pass.h)
saved=$(sed -n 's/^.*: pass idle #[0-9]*: .*, saved \([0-9.]* [KMG]*i*B\) compressed,.*/\1/p' \
	"$WORK/once.out" | grep -v '^0 B$' | tr '\n' ' ')
note "after --once: $r of $(bs_total "$Z") slots recompressed; idle steps saved ${saved:-nothing}"
[ "$r" -gt 0 ] || fail "no slot has the r flag after --once"
[ -n "$saved" ] || fail "no idle step of the pass saved anything: $(grep ': pass ' "$WORK/once.out")"

# every page of the workload, through all of it
kill -USR1 "$LPID"
wait_line "$W" "^SWAPLOAD verify" 120 || fail "the workload's verification did not end"
set -- $(sed -n 's/^SWAPLOAD verify pages \([0-9]*\) bad \([0-9]*\) first_bad \([0-9]*\)/\1 \2 \3/p' "$W")
expect_eq "pages verified" "$1" $((MIB * 256))
[ "$2" -eq 0 ] || fail "$2 of $1 pages read back wrong (the first: page $3)"
# the squeeze's allocation failures and OOM kills of a balloon are the kernel reporting it
squeeze_traces "$HOLDS"
pass_note "plans A and B, $r slots recompressed, $1 pages verified, $(elapsed "$t0" "$(now)") s"
