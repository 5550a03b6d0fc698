#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A device is hot-removed while the daemon's pass on it runs (batches of 128 pages; the
# removal is sent as soon as compr_data_size starts falling). The kernel resets the device
# (after the batch running then) before deleting it, so the pass's next write or read fails.
# The daemon must survive, log that the device is no longer managed, exit 0 on SIGTERM, and
# not count the reset as a saving: the emptied mm_stat of a reset device is not what the
# pass saved. Bounds: lzo-rle -> zstd saves about a quarter of compr_data_size with these
# pages (zram-abi.md §9), so neither the pass's logged saving nor the state file's totals
# may reach half of what the device held.
. /vm/lib.sh
need_recompd

N=4096
zram_add
A=$Z
AID=$ZID
zset "$A" recomp_algorithm "algo=zstd priority=1"
zset "$A" disksize 64M
conf "$WORK/d.conf" "devices = $A" "recompress-algorithms = zstd" "passes = idle" \
	"interval-sec = 1" "idle-age-max-sec = 0" "max-pages-per-batch = 128" \
	"backoff-max-sec = 0" "cpu-share-max-percent = 0" "pages-per-hour = 0" \
	"psi-cpu-max-percent = 0" "memory-stall-us = 0" "defer-on-battery = no"
load "$A" "$DATA/pages.bin" 0 "$N" 0
c0=$(mm "$A" compr_data_size)
u0=$(mm "$A" mem_used_total)

export ZRAM_RECOMPD_STATE_DIR="$WORK/state"
start_daemon "$WORK/daemon.log" --config "$WORK/d.conf"
wait_log "running on Linux" 1 10 || fail "the daemon did not start"
i=0
while [ "$(mm "$A" compr_data_size)" -ge "$c0" ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "no pass started within 15 s"
	usleep 50000
done
c1=$(mm "$A" compr_data_size)
tries=0
until echo "$AID" >/sys/class/zram-control/hot_remove 2>"$WORK/rm.err"; do
	tries=$((tries + 1))
	[ $tries -ge 20 ] && fail "hot_remove $A failed 20 times: $(cat "$WORK/rm.err")"
	usleep 200000
done
ZDEVS=$(echo " $ZDEVS " | sed "s/ $A / /")
note "compr_data_size $c0 -> $c1 when $A was removed ($tries busy retries), mem_used_total $u0"
wait_log "^zram-recompd: $A: .*no longer managed" 1 10 ||
	fail "the daemon did not log that $A is no longer managed"
sleep 2
daemon_alive || fail "the daemon died after $A was removed"
before_stop=$(log_count "^zram-recompd: $A: pass")
stop_daemon
expect_eq "daemon exit code after SIGTERM" "$RC" 0
awk -v s="$STOP_S" 'BEGIN { exit !(s <= 1.0) }' || fail "SIGTERM -> exit took $STOP_S s (limit 1 s)"
[ "$before_stop" -le 1 ] || fail "$before_stop passes on $A: the removal did not meet the first"

# bytes TEXT: "12 B", "3.1 KiB", "-2.0 MiB"... as a byte count (rounded).
bytes() {
	echo "$1" | awk '{ m = 1; if ($2 == "KiB") m = 1024; if ($2 == "MiB") m = 1048576;
		if ($2 == "GiB") m = 1073741824; printf "%d\n", $1 * m }'
}
line=$(grep -E "^zram-recompd: $A: pass" "$DLOG" | tail -n 1)
note "pass line: ${line:-none}"
half=$((c0 / 2))
if [ -n "$line" ]; then
	saved=$(bytes "$(echo "$line" | sed -n 's/.*, saved \([^,]*\), freed.*/\1/p')")
	freed=$(bytes "$(echo "$line" | sed -n 's/.*, freed \([^,]*\), .*/\1/p')")
	[ "$saved" -lt "$half" ] ||
		fail "the pass that met the removal reports saved $saved bytes of $c0 (>= half):" \
			"the reset device's empty mm_stat was counted as savings"
	[ "$freed" -lt $((u0 / 2)) ] ||
		fail "the pass that met the removal reports freed $freed bytes of $u0 (>= half)"
fi
bs=$(state_field "$A" bytes_saved)
mf=$(state_field "$A" mem_freed)
note "state file: $(grep "^$A " "$ZRAM_RECOMPD_STATE_DIR/state" 2>/dev/null ||
	echo "no line for $A")"
[ -z "$bs" ] || [ "$bs" -lt "$half" ] ||
	fail "state file: $A bytes_saved=$bs of $c0 (>= half): the reset counted as savings"
[ -z "$mf" ] || [ "$mf" -lt $((u0 / 2)) ] ||
	fail "state file: $A mem_freed=$mf of $u0 (>= half): the reset counted as freed memory"
pass_note "removed during a pass ($c0 -> $c1), daemon alive, SIGTERM->exit $STOP_S s"
