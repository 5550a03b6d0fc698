#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `zram-recompd adopt` refuses when neither plan is safe: a zram swap device in use by a
# running workload, with memory squeezed by a balloon (as swap_short), so that MemAvailable holds
# neither the swapped pages (plan A) nor their compressed copy (plan B) with the margin.
# Asserted: exit status 5, the figures printed (stored, both plans' needed + margin and
# available), nothing changed (still swap with its size and priority, the same header, no
# secondary, no new zram device, still initialized), --dry-run refuses the same way, and every
# page of the workload is intact.
# Word splitting of $(...) into "set --" is intended.
# shellcheck disable=SC2046,SC2086
. /vm/lib.sh
SQUEEZE=1 # mlocked balloons: its allocation-failure traces are judged (squeeze_traces)
need_recompd

SWAPLOAD=/usr/bin/swapload
[ -x "$SWAPLOAD" ] || skip "swapload missing from the initramfs (make tools)"
RAM=112
MIB=136

LPID=
HOLDPID=
_refuse_end() {
	for p in $LPID $HOLDPID; do
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
trap '_refuse_end; _cleanup' EXIT

swap_line() {
	awk -v d="/dev/$1" '$1 == d { print $3, $5 }' /proc/swaps
}

state() {
	echo "swaps $(swap_line "$Z") init $(zget "$Z" initstate) size $(zget "$Z" disksize)" \
		"comp $(zget "$Z" comp_algorithm) recomp [$(recomp_list "$Z")]" \
		"header $(dd if="/dev/$Z" bs=4096 count=1 2>/dev/null | md5sum | cut -c1-32)" \
		"devs $(ls -d /sys/block/zram* | tr '\n' ' ')"
}

avail_mib() {
	awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo
}
avail=$(avail_mib)
[ "$avail" -gt $((RAM + 64)) ] || skip "only $avail MiB available"
# The balloon is topped up until RAM MiB are left: memory an earlier scenario still held when
# MemAvailable was first read (a process or device being torn down) comes back later, and
# once left the squeeze too loose to refuse (seen once on 7.3: 817 MiB after "holding").
n=0
while [ "$avail" -gt $((RAM + 16)) ] && [ "$n" -lt 4 ]; do
	n=$((n + 1))
	"$SWAPLOAD" hold $((avail - RAM)) >"$WORK/hold.$n.out" &
	HOLDPID="$HOLDPID $!"
	wait_line "$WORK/hold.$n.out" "SWAPLOAD holding" 90 || fail "balloon $n did not start"
	sleep 1
	avail=$(avail_mib)
done
[ "$avail" -le $((RAM + 16)) ] || fail "MemAvailable still $avail MiB after $n balloons"

zram_add
zset "$Z" comp_algorithm lzo-rle
zset "$Z" disksize 128M
mkswap "/dev/$Z" >/dev/null 2>&1 || fail "mkswap /dev/$Z failed"
swapon "/dev/$Z" || fail "swapon /dev/$Z failed"

W=$WORK/load.out
"$SWAPLOAD" run "$DATA/pages.bin" "$MIB" 10 600 1 65536 0 1 >"$W" 2>&1 &
LPID=$!
wait_line "$W" "SWAPLOAD filled" 90 || fail "the workload did not fill its memory"
before=$(state)
note "before: $before; MemAvailable $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) kB"

conf "$WORK/a.conf" "recompress-algorithms = zstd"
run_recompd "$WORK/dry.out" --config "$WORK/a.conf" adopt --dry-run "$Z"
expect_eq "adopt --dry-run exit code" "$RC" 5
run_recompd "$WORK/a.out" --config "$WORK/a.conf" adopt "$Z"
expect_eq "adopt exit code" "$RC" 5
grep -q "^$Z: stored: [0-9.]* [KMG]iB in swap, [0-9.]* [KMG]\{0,1\}i\{0,1\}B of memory compressed" "$WORK/a.out" ||
	fail "no 'stored' line"
grep -q "^$Z: direct (swapoff first, pages uncompressed): needed .* + margin .*, available .*: not safe$" "$WORK/a.out" ||
	fail "no 'not safe' figures for plan A"
grep -q "^$Z: through a temporary zram device (pages compressed): needed .* + margin .*, available .*: not safe$" "$WORK/a.out" ||
	fail "no 'not safe' figures for plan B"
grep -q "error: $Z: adopt refused: neither plan leaves the margin free; nothing changed" "$WORK/a.out" ||
	fail "no refusal line"
grep -q "would swapoff\|would write" "$WORK/dry.out" && fail "--dry-run printed steps although refused"
after=$(state)
expect_eq "device state after the refusal" "$after" "$before"

kill -USR1 "$LPID"
wait_line "$W" "^SWAPLOAD verify" 120 || fail "the workload's verification did not end"
set -- $(sed -n 's/^SWAPLOAD verify pages \([0-9]*\) bad \([0-9]*\) first_bad \([0-9]*\)/\1 \2 \3/p' "$W")
expect_eq "pages verified" "$1" $((MIB * 256))
[ "$2" -eq 0 ] || fail "$2 of $1 pages read back wrong (the first: page $3)"
squeeze_traces "$HOLDPID"
pass_note "refused with $(sed -n "s/^$Z: stored: //p" "$WORK/a.out" | cut -d, -f1); $1 pages verified"
