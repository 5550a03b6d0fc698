#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon's huge step (passes = huge: uncompressed slots of any age), lzo-rle primary, zstd
# secondary, a pass every 2 s. The device holds compressible pages (pages.bin) and then NH
# pages of random hexadecimal text (made here from /dev/urandom with od): 4 bits of entropy a
# byte, no repeats worth a match, so lzo-rle cannot shrink them (stored huge) while zstd's
# entropy coding halves them (measured with lzo1x-1 and zstd -3: 4116 and about 2140 bytes of
# a 4 KiB page, 16453 and about 8600 of a 16 KiB one). Asserted, after the first pass line
# that saved bytes:
#   - under a tenth of the hex slots are still huge (block_state `h`), huge_pages fell by at
#     least the hex slots recompressed (pages.bin's random pages stay huge), compr_data_size
#     fell;
#   - at least 9 in 10 of the hex slots carry `r`, and every `r` slot was huge before: the
#     huge step selects only huge slots (pages.bin's own huge pages may shrink too), and no
#     idle step ran;
#   - every page reads back as written (checksums);
#   - SIGTERM ends the daemon within 1 s with exit code 0; the state file counts bytes saved.
# Pages are the kernel's ($PAGE: 4 KiB on x86-64, 16 KiB on the arm64 kernel); NH and the
# compressible part are sized in bytes (1 MiB, 4 MiB), so both take as long on either.
. /vm/lib.sh
need_recompd

NH=$((1048576 / PAGE))
NC=$((4194304 / PAGE))
# hex text: two characters per random byte
head -c $((NH * PAGE / 2)) /dev/urandom | od -An -v -tx1 | tr -d ' \n' >"$WORK/hex.bin"
expect_eq "hex data bytes" "$(wc -c <"$WORK/hex.bin")" $((NH * PAGE))

zram_add
zset "$Z" recomp_algorithm "algo=zstd priority=1"
zset "$Z" disksize 32M
load "$Z" "$DATA/pages.bin" 0 "$NC" 0
load "$Z" "$WORK/hex.bin" 0 "$NH" "$NC"
dd if="/dev/$Z" bs="$PAGE" count=$((NC + NH)) 2>/dev/null | md5sum >"$WORK/sum0"
h0=$(mm "$Z" huge_pages)
c0=$(mm "$Z" compr_data_size)
hex_huge=$(bs_count "$Z" h "$NC" $((NC + NH - 1)))
note "data: $NC compressible pages, $NH hex pages of $PAGE bytes; huge_pages $h0" \
	"($hex_huge of them hex), mm_stat $(zget "$Z" mm_stat)"
# Every hex page is huge under lzo-rle (pages.bin has a few random, huge pages of its own).
expect_eq "huge hex slots before the daemon" "$hex_huge" "$NH"
expect_eq "recompressed slots before the daemon" "$(bs_count "$Z" r)" 0
block_state "$Z" | awk 'index($3, "h") { print $1 }' >"$WORK/huge0"

conf "$WORK/d.conf" "devices = $Z" "recompress-algorithms = zstd" "passes = huge" \
	"interval-sec = 2" "backoff-max-sec = 0" "cpu-share-max-percent = 0" \
	"pages-per-hour = 0" "psi-cpu-max-percent = 0" "memory-stall-us = 0" \
	"defer-on-battery = no"
run_recompd "$WORK/check.out" --config "$WORK/d.conf" --check-config
expect_eq "--check-config exit code" "$RC" 0
export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf"
wait_log "running on Linux" 1 10 || fail "the daemon did not start"
PASS_RE="^zram-recompd: $Z: pass"
wait_log "$PASS_RE.*saved [1-9]" 1 60 ||
	fail "no pass saved anything in 60 s ($(log_count "$PASS_RE") pass lines)"
# One more pass: a huge step with nothing left waits or saves nothing, and changes nothing.
n1=$(log_count "$PASS_RE")
wait_log "$PASS_RE" $((n1 + 1)) 20 || fail "no pass after the one that saved"
stop_daemon
stop=$STOP_S
expect_eq "daemon exit code after SIGTERM" "$RC" 0
awk -v s="$stop" 'BEGIN { exit !(s <= 1.0) }' || fail "SIGTERM -> exit took $stop s (limit 1 s)"

h1=$(mm "$Z" huge_pages)
c1=$(mm "$Z" compr_data_size)
hex_r=$(bs_count "$Z" r "$NC" $((NC + NH - 1)))
comp_r=$(bs_count "$Z" r 0 $((NC - 1)))
# r slots that were not huge before the daemon (none if only the huge step ran)
not_huge_r=$(block_state "$Z" | awk 'FNR == NR { h[$1] = 1; next }
	index($3, "r") && !($1 in h) { n++ } END { print n + 0 }' "$WORK/huge0" -)
hex_h=$(bs_count "$Z" h "$NC" $((NC + NH - 1)))
note "after: huge_pages $h0 -> $h1, compr_data_size $c0 -> $c1; hex slots: $hex_r of $NH" \
	"recompressed, $hex_h still huge; compressible slots recompressed: $comp_r"
[ $((hex_h * 10)) -lt "$NH" ] || fail "$hex_h of $NH hex slots are still huge"
[ "$h1" -le $((h0 - hex_r)) ] ||
	fail "huge_pages $h0 -> $h1, but $hex_r huge hex slots were recompressed"
[ "$c1" -lt "$c0" ] || fail "compr_data_size did not drop ($c0 -> $c1)"
[ $((hex_r * 10)) -ge $((NH * 9)) ] || fail "only $hex_r of $NH hex (huge) slots have r"
expect_eq "recompressed slots that were not huge (no idle step)" "$not_huge_r" 0
dd if="/dev/$Z" bs="$PAGE" count=$((NC + NH)) 2>/dev/null | md5sum >"$WORK/sum1"
cmp -s "$WORK/sum0" "$WORK/sum1" || fail "data read back differs after the huge step"
saved=$(state_field "$Z" bytes_saved)
[ "${saved:-0}" -gt 0 ] || fail "the state file counts no bytes saved (bytes_saved=${saved:-none})"
pass_note "huge_pages $h0 -> $h1, hex $hex_r/$NH recompressed, $PAGE-byte pages," \
	"saved $saved bytes, SIGTERM->exit $stop s"
