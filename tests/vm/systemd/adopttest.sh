# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by hooktest.sh in the zram-tools-adopt boot (its functions and variables). The
# README's promise, as a user meets it: Debian 12 with zram-tools already running swap on
# zram0, then zram-recompd's package installed (here: unpacked and its daemon enabled, with
# the package's zramswap drop-in masked, since at that boot the package was not there yet),
# and at most three commands from there to the first recompression pass:
#   1. apt install ./zram-recompd_*.deb    (done by the image: the daemon runs)
#   2. zram-recompd adopt zram0
#   3. zram-recompd status
# Checks:
#   systemd_zramadopt_before  zram0 is zram-tools' swap without secondaries; the daemon runs
#                             and does not promise a pass on it; `status` names the fix
#                             (`zram-recompd adopt zram0`)
#   systemd_zramadopt_adopt   with a workload's pages in zram0 (swapload, squeezed by a
#                             balloon), `zram-recompd adopt zram0` exits 0; zram0 is swap again
#                             at zram-tools' priority and size, with #1 zstd #2 deflate
#   systemd_zramadopt_pass    squeezed again, the running daemon's passes recompress zram0
#                             (block_state `r` slots, a pass line that saved bytes, `status`
#                             shows it), no error in its journal, and every page the workload
#                             reads back is intact (swapload's verify)
# shellcheck shell=sh disable=SC2154 # T, D, U, DATA, MIB come from hooktest.sh

# balloon MIB NAME: an mlocked balloon, its pid in BPID
balloon() {
	swapload hold "$1" >"/tmp/$2.out" 2>&1 &
	BPID=$!
	HOLDS="$HOLDS $BPID"
	wait_file "/tmp/$2.out" "SWAPLOAD holding" 90 || say "balloon $2 ($1 MiB) did not start"
}

avail_mib() {
	awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo
}

swap_line() { # DEV: "SIZE PRIO" in /proc/swaps
	awk -v d="/dev/$1" '$1 == d { print $3, $5 }' /proc/swaps
}

adopt_main() {
	# Less room than hooktest's RAM: the workload must be in zram0 when it is adopted, and
	# with 112 MiB the kernel found file pages to reclaim instead (208 KiB swapped, measured).
	RAM=72
	HOLDS=
	LPID=
	ust=$(systemctl show -p ActiveState --value "$U")/$(systemctl show -p SubState --value "$U")
	sst=$(systemctl show -p ActiveState --value zramswap.service)
	line0=$(swap_line "$D")
	alg=$(recomp "$D")
	st0=$(zram-recompd status 2>&1)
	dlog=$(jlog "$U")
	say "zramswap.service $sst; $U $ust; /proc/swaps $D '$line0'; recomp_algorithm '$alg'"
	echo "$st0" | sed "s/^/[$T] status before: /"
	echo "$dlog" | grep "^$D:" | sed "s/^/[$T] daemon: /"
	if [ "$sst" = active ] && [ "$ust" = active/running ] && [ -n "$line0" ] &&
		[ "${line0#* }" = 100 ] && [ -z "$alg" ] &&
		echo "$st0" | grep -q "zram-recompd adopt $D" &&
		! echo "$dlog" | grep -q "^$D: managed (initialized), first pass in"; then
		res PASS before "zram-tools' $D is swap ($line0) without secondaries; the daemon" \
			"runs, promises no pass on it, and status names 'zram-recompd adopt $D'"
	else
		res FAIL before "zramswap $sst, $U $ust, swaps '$line0', recomp_algorithm '$alg'," \
			"status: $(echo "$st0" | grep "$D" | head -n 3 | tr '\n' '|')," \
			"daemon: $(echo "$dlog" | grep "^$D:" | head -n 2 | tr '\n' '|')"
	fi

	# A workload whose cold pages sit in zram0 when the admin adopts it.
	avail=$(avail_mib)
	balloon $((avail - RAM)) hold1
	H1=$BPID
	swapload run "$DATA" "$MIB" 10 600 1 65536 0 1 >/tmp/load.out 2>&1 &
	LPID=$!
	if ! wait_file /tmp/load.out "SWAPLOAD filled" 120; then
		res FAIL adopt "the workload did not fill its memory: $(tail -n 2 /tmp/load.out |
			tr '\n' ' ')"
		res FAIL pass "no workload"
		return
	fi
	used=$(awk -v d="/dev/$D" '$1 == d { print $4 }' /proc/swaps)
	say "balloon $((avail - RAM)) MiB ($(head -n 1 /tmp/hold1.out)), filled $MIB MiB: $D holds" \
		"$used KiB of swap; mm_stat $(cat "/sys/block/$D/mm_stat"); $(grep -E \
		'^(MemAvailable|MemFree|Shmem|Mlocked):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	# The balloon goes: memory holds the pages again (adopt picks its plan by the figures).
	kill "$H1" 2>/dev/null
	wait "$H1" 2>/dev/null
	zram-recompd adopt "$D" >/tmp/adopt.out 2>&1
	arc=$?
	sed "s/^/[$T] adopt: /" /tmp/adopt.out
	line1=$(swap_line "$D")
	alg=$(recomp "$D")
	# the workload's pages were in zram0 when it was adopted (at least 16 MiB of them)
	if [ "$arc" -eq 0 ] && [ "${used:-0}" -ge 16384 ] && [ "$line1" = "$line0" ] &&
		[ "$alg" = "#1 zstd #2 deflate" ] &&
		[ "$(cat "/sys/block/$D/disksize")" = "$WANT_SIZE" ] && kill -0 "$LPID" 2>/dev/null; then
		res PASS adopt "zram-recompd adopt $D (exit 0, $used KiB in swap before):" \
			"swap again ($line1), recomp_algorithm $alg; $(grep "^$D: plan:" /tmp/adopt.out)"
	else
		res FAIL adopt "exit $arc, swaps '$line1' (was '$line0'), recomp_algorithm '$alg'," \
			"workload $(kill -0 "$LPID" 2>/dev/null && echo alive || echo gone):" \
			"$(tail -n 3 /tmp/adopt.out | tr '\n' '|')"
	fi

	# Squeezed again: the cold pages go back to zram0, which the daemon now recompresses.
	nsaved=$(jlog "$U" | grep -cE "^$D: pass: .*saved [1-9]")
	balloon $(($(avail_mib) + MIB - RAM)) hold2
	i=0
	while [ $i -lt 90 ] &&
		[ "$(jlog "$U" | grep -cE "^$D: pass: .*saved [1-9]")" -le "$nsaved" ]; do
		sleep 1
		i=$((i + 1))
	done
	# shellcheck disable=SC2046 # two numbers
	set -- $(dd if="/sys/kernel/debug/zram/$D/block_state" bs=1M 2>/dev/null |
		awk '!index($3, "s") { stored++ } index($3, "r") { r++ }
		END { print r + 0, stored + 0 }')
	r=$1 stored=$2
	line=$(jlog "$U" | grep -E "^$D: pass: .*saved [1-9]" | tail -n +$((nsaved + 1)) | head -n 1)
	st1=$(zram-recompd status 2>&1)
	src=$?
	echo "$st1" | sed "s/^/[$T] status after: /"
	errs=$(journalctl -q --no-pager -o cat -u "$U" -p err | grep -v '^$')
	kill -USR1 "$LPID" 2>/dev/null
	wait_file /tmp/load.out "^SWAPLOAD verify" 120
	# shellcheck disable=SC2046 # three numbers
	set -- $(sed -n 's/^SWAPLOAD verify pages \([0-9]*\) bad \([0-9]*\) first_bad \([0-9]*\)/\1 \2 \3/p' \
		/tmp/load.out)
	vpages=${1:-0} vbad=${2:-?}
	say "after adopt: $r of $stored slots recompressed; first saving pass: ${line:-none};" \
		"verified $vpages pages, $vbad bad"
	if [ "$stored" -ge 1000 ] && [ "$r" -gt 0 ] && [ -n "$line" ] && [ "$src" -eq 0 ] &&
		[ -z "$errs" ] &&
		[ "$vpages" -eq $((MIB * 256)) ] && [ "$vbad" = 0 ]; then
		res PASS pass "the daemon recompressed $r of $stored slots of the adopted $D" \
			"($line); $vpages pages read back intact"
	else
		res FAIL pass "$r of $stored slots recompressed, saving pass '${line:-none}'," \
			"status exit $src, verified $vpages pages with $vbad bad, errors:" \
			"$(echo "$errs" | head -n 2 | tr '\n' ' ')"
	fi
	for p in $LPID $HOLDS; do
		kill -9 "$p" 2>/dev/null
	done
}
