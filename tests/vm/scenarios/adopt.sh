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
. /vm/lib.sh
SQUEEZE=1 # mlocked balloons: its allocation-failure traces are judged (squeeze_traces)
need_recompd

. /vm/adopt_lib.sh
RAM=112	   # MiB the balloons leave to the workload
EXTRA=128  # of which a second balloon holds this much, given back for plan B's margin
MIB=136
PRIO=7

slots_over() {
	[ "$(bs_total "$Z")" -gt "$1" ]
}

# after_adopt WHAT: the device is swap again as before, with the header and no extra device
after_adopt() {
	expect_swap_again "$1"
	expect_eq "$1: zram devices" "$(zram_list)" "$devs0"
	expect_eq "$1: disksize" "$(zget "$Z" disksize)" $((128 << 20))
	expect_eq "$1: primary" "$(sed 's/.*\[\([^]]*\)\].*/\1/' "/sys/block/$Z/comp_algorithm")" lzo-rle
}

t0=$(now)
avail=$(avail_mib)
[ "$avail" -gt $((RAM + EXTRA + 64)) ] || skip "only $avail MiB available"
squeeze
zram_add
swap_setup adoptlbl
workload
remember
expect_eq "recomp_algorithm before" "$(recomp_list "$Z")" ""
note "filled $MIB MiB in $(elapsed "$t0" "$(now)") s: /proc/swaps $Z size/prio $line0," \
	"used $(swap_used "$Z") KiB; mm_stat $(zget "$Z" mm_stat); header $hdr0"
swap_some

# 1. plan A, with the balloons gone
unsqueeze
conf "$WORK/a.conf" "recompress-algorithms = zstd"
t1=$(now)
run_recompd "$WORK/a.out" --config "$WORK/a.conf" adopt "$Z"
expect_eq "adopt (direct) exit code" "$RC" 0
grep -q "^$Z: plan: direct (swapoff first)" "$WORK/a.out" || fail "plan A was not chosen"
grep -q "^$Z: adopted" "$WORK/a.out" || fail "no 'adopted' line"
after_adopt "plan A"
expect_eq "recomp_algorithm after plan A" "$(secondaries "$Z")" "#1: [zstd] "
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
after_adopt "plan B"
expect_eq "recomp_algorithm after plan B" "$(secondaries "$Z")" "#1: [zstd] #2: [deflate] "
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
verify_pages 120
# the squeeze's allocation failures and OOM kills of a balloon are the kernel reporting it
squeeze_traces "$HOLDS"
pass_note "plans A and B, $r slots recompressed, $VERIFIED pages verified, $(elapsed "$t0" "$(now)") s"
