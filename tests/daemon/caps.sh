# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Daemon tests of what each kernel shape allows (issue 24, src/policy/reach.c): the Ubuntu profile
# (no CONFIG_ZRAM_MULTI_COMP) with and without writeback, the Fedora profile, and a device
# without a secondary algorithm that is adopted while the daemon runs. The daemon says once
# what a device cannot do, with the fix, and never promises a pass it will not run: not in
# its log, not in sd_notify STATUS (notifysock.py plays the service manager). Sourced by
# run.sh (TESTS there lists the caps_* names).
# Tests run in subshells that set T and R on purpose.
# shellcheck disable=SC2030,SC2031

# notify_start: a notification socket for the next dstart ($T/notify.log gets the messages).
notify_start() {
	python3 "$HERE/notifysock.py" "$T/notify.sock" "$T/notify.log" "$T/notify.ready" \
		2>>"$T/notify.err" &
	echo $! >>"$T/pids"
	wait_for 20000 test -e "$T/notify.ready" ||
		die "notifysock.py did not start: $(oneline "$T/notify.err")"
	export NOTIFY_SOCKET=$T/notify.sock
}

# Ubuntu, writeback configured: a pass every interval with writeback and compaction only,
# the reason said once; STATUS says so too.
t_caps_ubuntu_writeback() {
	build_version_root "$R" ubuntu
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	conf "${BASE_CONF[@]}" "writeback = yes" "writeback-types = huge"
	notify_start
	dstart
	wait_for 8000 at_least 2 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "fewer than 2 passes in 8 s; stderr: $(oneline "$T/d.err")"
	dstop
	grep -qx 'zram-recompd: zram0: managed (initialized; writeback and compaction only), first pass in 1 s' \
		"$T/d.err" || die "no honest announcement: $(oneline "$T/d.err")"
	[ "$(count "$T/d.err" 'cannot recompress: this kernel lacks CONFIG_ZRAM_MULTI_COMP .*; writeback and compaction only$')" = 1 ] ||
		die "the reason not said exactly once: $(oneline "$T/d.err")"
	local n
	n=$(passes_logged zram0)
	[ "$(count "$(attr 0 writeback)" '^huge$')" = "$n" ] ||
		die "$n passes, writeback: $(oneline "$(attr 0 writeback)")"
	[ "$(count "$(attr 0 compact)" '^1$')" = "$n" ] ||
		die "$n passes, compact: $(oneline "$(attr 0 compact)")"
	[ ! -e "$(attr 0 recompress)" ] && [ ! -s "$(attr 0 idle)" ] ||
		die "idle marked: $(oneline "$(attr 0 idle)")"
	grep -q '^STATUS=zram0: .*(writeback and compaction only: kernel lacks CONFIG_ZRAM_MULTI_COMP)' \
		"$T/notify.log" || die "STATUS: $(grep STATUS "$T/notify.log" | tail -n 3 | tr '\n' '|')"
}

# Ubuntu as installed: no pass, no promise of one, the reason once (not at every tick).
t_caps_ubuntu_nothing() {
	build_version_root "$R" ubuntu
	conf "${BASE_CONF[@]}"
	snap_root
	notify_start
	dstart
	wait_for 5000 grep -q 'zram0: managed (initialized): no pass' "$T/d.err" ||
		die "no announcement: $(oneline "$T/d.err")"
	# several ticks of interval-sec = 1
	sleep $((4 * SLOW))
	dalive || die "daemon died; stderr: $(oneline "$T/d.err")"
	dstop
	[ "$(count "$T/d.err" 'warning: zram0: cannot recompress: this kernel lacks CONFIG_ZRAM_MULTI_COMP .*; nothing to do \(writeback = yes')" = 1 ] ||
		die "the reason not said exactly once: $(oneline "$T/d.err")"
	! grep -q 'first pass\|: pass:' "$T/d.err" || die "a pass promised or run: $(oneline "$T/d.err")"
	! grep -q 'first pass' "$T/notify.log" || die "STATUS promised a pass: $(oneline "$T/notify.log")"
	[ "$(count "$T/notify.log" '^STATUS=zram0: nothing to do: kernel lacks CONFIG_ZRAM_MULTI_COMP$')" -ge 2 ] ||
		die "STATUS: $(grep STATUS "$T/notify.log" | tail -n 3 | tr '\n' '|')"
	root_unchanged
}

# snap_root / root_unchanged: no file of the root changed.
snap_root() {
	fr_snapshot "$R" >"$T/before.snap"
}
root_unchanged() {
	fr_snapshot "$R" >"$T/after.snap"
	cmp -s "$T/before.snap" "$T/after.snap" ||
		die "changed: $(fr_changed "$T/before.snap" "$T/after.snap" | tr '\n' ' ')"
}

# Fedora: recompression and compaction, nothing of writeback.
t_caps_fedora() {
	build_version_root "$R" fedora
	conf "${BASE_CONF[@]}"
	dstart
	wait_for 8000 at_least 2 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "fewer than 2 passes in 8 s; stderr: $(oneline "$T/d.err")"
	dstop
	grep -q '^zram-recompd: zram0: managed (initialized), first pass in' "$T/d.err" ||
		die "announcement: $(oneline "$T/d.err")"
	! grep -q 'cannot recompress' "$T/d.err" || die "$(oneline "$T/d.err")"
	[ "$(head -n 1 "$(attr 0 recompress)")" = "type=huge_idle priority=1 max_pages=2048" ] ||
		die "recompress: $(oneline "$(attr 0 recompress)")"
	grep -qx all "$(attr 0 idle)" || die "idle: $(oneline "$(attr 0 idle)")"
}

# A device without a secondary (zram-tools found, its drop-in not): the fix once, STATUS
# says it, no pass; then adopt gives it one (here: the fake kernel's list changes) and the
# daemon says so and recompresses, without a restart.
t_caps_adopted() {
	local ra
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 recomp=""
	mkdir -p "$R/lib/systemd/system"
	: >"$R/lib/systemd/system/zramswap.service"
	ra=$(attr 0 recomp_algorithm)
	conf "${BASE_CONF[@]}"
	notify_start
	dstart
	wait_for 5000 grep -q 'zram0: managed (initialized): no pass' "$T/d.err" ||
		die "no announcement: $(oneline "$T/d.err")"
	sleep $((3 * SLOW))
	[ "$(count "$T/d.err" 'warning: zram0: cannot recompress: initialized without a secondary algorithm .*; fix: zram-recompd adopt zram0 \(now, no reboot needed\); at later boots the drop-in zramswap.service.d/zram-recompd.conf for zram-tools \(install it\); nothing to do$')" = 1 ] ||
		die "the fix not said exactly once: $(oneline "$T/d.err")"
	[ ! -s "$(attr 0 recompress)" ] && [ ! -s "$ra" ] || die "written before adopt"
	grep -q '^STATUS=zram0: cannot recompress: no secondary algorithm (zram-recompd adopt zram0)$' \
		"$T/notify.log" || die "STATUS: $(grep STATUS "$T/notify.log" | tail -n 2 | tr '\n' '|')"
	put "$ra" "#1: $(fr_algo_list "$VER" zstd)
"
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass after adopt; stderr: $(oneline "$T/d.err")"
	dstop
	grep -q '^zram-recompd: zram0: ready (initialized), first pass in' "$T/d.err" ||
		die "no announcement after adopt: $(oneline "$T/d.err")"
	grep -q '^type=idle priority=1 ' "$(attr 0 recompress)" ||
		die "recompress: $(oneline "$(attr 0 recompress)")"
	grep -q '^STATUS=zram0: last pass' "$T/notify.log" ||
		die "STATUS after the pass: $(grep STATUS "$T/notify.log" | tail -n 2 | tr '\n' '|')"
}

# A device that runs other secondaries than the configuration asks for: the journal says it
# once at start and once again after a reload (never at every pass), naming both lists and
# the command that applies the configured one; STATUS carries it while it lasts. A reload to
# the device's own list ends it.
t_caps_algos_differ() {
	local note="runs secondary algorithms 'zstd deflate', not the configured 'lz4hc' (a device keeps its list until it is set up again); fix: zram-recompd adopt zram0"
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 recomp="1:zstd 2:deflate"
	fr_blockstate "$R" "$VER" 0
	conf "${BASE_CONF[@]}" "recompress-algorithms = lz4hc"
	notify_start
	dstart
	wait_for 8000 at_least 3 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "fewer than 3 passes in 8 s; stderr: $(oneline "$T/d.err")"
	[ "$(grep -cxF "zram-recompd: warning: zram0: $note" "$T/d.err")" = 1 ] ||
		die "the difference not said exactly once: $(oneline "$T/d.err")"
	grep -F " ($note)" "$T/notify.log" | grep -qE '^STATUS=zram0: (first|last) pass ' ||
		die "STATUS: $(grep STATUS "$T/notify.log" | head -n 2 | tr '\n' '|')"
	dsig HUP
	wait_for 5000 grep -q '^zram-recompd: configuration reloaded$' "$T/d.err" ||
		die "no reload; stderr: $(oneline "$T/d.err")"
	wait_for 5000 at_least 2 "$T/d.err" "^zram-recompd: warning: zram0: runs secondary" ||
		die "not said again after the reload: $(oneline "$T/d.err")"
	conf "${BASE_CONF[@]}" "recompress-algorithms = zstd deflate"
	dsig HUP
	wait_for 5000 at_least 2 "$T/d.err" '^zram-recompd: configuration reloaded$' ||
		die "no second reload; stderr: $(oneline "$T/d.err")"
	sleep $((2 * SLOW))
	dstop
	[ "$(grep -cF "zram0: runs secondary" "$T/d.err")" = 2 ] ||
		die "said other than twice: $(oneline "$T/d.err")"
	grep '^STATUS=' "$T/notify.log" | tail -n 1 | grep -q '^STATUS=zram0: last pass' ||
		die "last STATUS: $(grep '^STATUS=' "$T/notify.log" | tail -n 1)"
	! grep '^STATUS=' "$T/notify.log" | tail -n 1 | grep -qF "runs secondary" ||
		die "STATUS still says it: $(grep '^STATUS=' "$T/notify.log" | tail -n 1)"
}

# While an adopt runs (it holds the lock 'adopt' exclusively) the daemon says nothing of a
# device's secondaries: a set-up device hot-added then (adopt's temporary one, zram1) gets
# no "fix: zram-recompd adopt" line, in the log or STATUS, not even after the release once
# it is gone. A device still there after the release (zram2) is decided again: said once.
t_adopt_algos_quiet() {
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0 recomp="1:lz4hc"
	conf "${BASE_CONF[@]}" "recompress-algorithms = lz4hc"
	notify_start
	# --no-sandbox: a device added later makes a sandboxed daemon restart
	dstart -a --no-sandbox
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass on zram0; stderr: $(oneline "$T/d.err")"
	hold_lock adopt
	fr_dev "$R" "$VER" 1 recomp="1:zstd 2:deflate" link=none
	ln -s ../devices/virtual/block/zram1 "$R/sys/block/zram1"
	fr_dev "$R" "$VER" 2 recomp="1:zstd" link=none
	ln -s ../devices/virtual/block/zram2 "$R/sys/block/zram2"
	# its "managed" line waits for the adopt's end too: its passes show it is picked up
	wait_for 6000 at_least 2 "$T/d.err" '^zram-recompd: zram1: pass:' ||
		die "no passes on zram1; stderr: $(oneline "$T/d.err")"
	! grep -q 'fix: zram-recompd adopt' "$T/d.err" ||
		die "said while adopt runs: $(grep 'fix: zram-recompd adopt' "$T/d.err" | head -n 1)"
	rm_dev 1
	wait_for 6000 grep -q '^zram-recompd: zram1: removed; no longer managed' "$T/d.err" ||
		die "zram1's removal not noticed; stderr: $(oneline "$T/d.err")"
	release_lock adopt
	wait_for 6000 grep -q '^zram-recompd: warning: zram2: runs secondary' "$T/d.err" ||
		die "zram2 not decided again after the release: $(oneline "$T/d.err")"
	sleep $((2 * SLOW))
	dstop
	! grep -q 'zram1: .*fix: zram-recompd adopt' "$T/d.err" ||
		die "said of zram1: $(grep 'zram1: .*fix: zram-recompd adopt' "$T/d.err" | head -n 1)"
	[ "$(grep -c 'fix: zram-recompd adopt' "$T/d.err")" = 1 ] ||
		die "zram2 not said exactly once: $(grep 'fix: zram-recompd adopt' "$T/d.err" | tr '\n' '|')"
	! grep '^STATUS=' "$T/notify.log" | grep -q 'zram1: [^;]*runs secondary' ||
		die "STATUS said it of zram1: $(grep -m 1 'zram1: [^;]*runs secondary' "$T/notify.log")"
	grep '^STATUS=' "$T/notify.log" | tail -n 1 | grep -q 'zram2: [^;]*runs secondary' ||
		die "last STATUS: $(grep '^STATUS=' "$T/notify.log" | tail -n 1)"
}

# While adopt runs, a device that cannot recompress (its temporary device, set up without
# secondaries) is not announced with a fix; one still there after the adopt is, once.
t_adopt_reach_quiet() {
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0
	conf "${BASE_CONF[@]}"
	dstart -a --no-sandbox
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass on zram0; stderr: $(oneline "$T/d.err")"
	hold_lock adopt
	fr_dev "$R" "$VER" 1 recomp="" link=none
	ln -s ../devices/virtual/block/zram1 "$R/sys/block/zram1"
	wait_for 8000 at_least 3 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no passes on zram0 while adopt runs; stderr: $(oneline "$T/d.err")"
	! grep -q 'zram1: cannot recompress' "$T/d.err" ||
		die "said while adopt runs: $(grep 'zram1: cannot recompress' "$T/d.err" | head -n 1)"
	release_lock adopt
	wait_for 8000 grep -q 'zram1: cannot recompress' "$T/d.err" ||
		die "not said after the adopt: $(oneline "$T/d.err")"
	sleep $((2 * SLOW))
	dstop
	[ "$(grep -c 'zram1: cannot recompress' "$T/d.err")" = 1 ] ||
		die "not said exactly once: $(grep 'zram1: cannot recompress' "$T/d.err" | tr '\n' '|')"
}

# A typo in the secondaries: the daemon keeps running with each device's list and says
# so, with FILE:LINE, at start and at reload, and in STATUS; an uninitialized device gets
# no list written. A reload that fixes it ends the error; a bad level is one again.
t_caps_algos_invalid() {
	local ra1
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0
	fr_blockstate "$R" "$VER" 0
	fr_dev "$R" "$VER" 1 init=0 recomp=""
	ra1=$(attr 1 recomp_algorithm)
	conf "${BASE_CONF[@]}" "recompress-algorithms = zsdt"
	local err1="zram-recompd: error: $T/conf:6: key 'recompress-algorithms': 'zsdt' is not a compression backend of zram (842, lzo, lzo-rle, lz4, lz4hc, zstd, deflate); did you mean 'zstd'?"
	local sum="zram-recompd: error: configuration: 1 error in the secondary algorithms (above): none is written to a device; each device keeps the ones it has (zram-recompd --check-config; then systemctl reload zram-recompd)"
	notify_start
	dstart
	wait_for 8000 at_least 2 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "fewer than 2 passes in 8 s; stderr: $(oneline "$T/d.err")"
	[ "$(grep -cxF "$err1" "$T/d.err")" = 1 ] && [ "$(grep -cxF "$sum" "$T/d.err")" = 1 ] ||
		die "the error not said exactly once: $(oneline "$T/d.err")"
	[ ! -s "$ra1" ] || die "zram1 got a list: $(oneline "$ra1")"
	grep -qF "STATUS=configuration error: $T/conf:6: key 'recompress-algorithms': 'zsdt' is not a compression backend of zram" \
		"$T/notify.log" || die "STATUS: $(grep STATUS "$T/notify.log" | tail -n 1)"
	dsig HUP
	wait_for 5000 at_least 2 "$T/d.err" "^zram-recompd: error: configuration: 1 error" ||
		die "not said again at the reload: $(oneline "$T/d.err")"
	conf "${BASE_CONF[@]}" "recompress-algorithms = zstd" "algorithm-params = zstd:level=99"
	dsig HUP
	wait_for 5000 grep -qxF "zram-recompd: error: $T/conf:7: key 'algorithm-params': level 99 is out of range for zstd (-131072 to 22): Linux 7.3+ fails disksize with EINVAL and the device gets no secondary" "$T/d.err" ||
		die "no error for the level: $(oneline "$T/d.err")"
	conf "${BASE_CONF[@]}" "recompress-algorithms = zstd"
	dsig HUP
	wait_for 5000 at_least 3 "$T/d.err" '^zram-recompd: configuration reloaded$' ||
		die "no third reload; stderr: $(oneline "$T/d.err")"
	wait_for 5000 test -s "$ra1" || die "zram1 got no list after the fix: $(oneline "$T/d.err")"
	dstop
	[ "$(count "$T/d.err" '^zram-recompd: error: configuration: 1 error')" = 3 ] ||
		die "summary lines: $(oneline "$T/d.err")"
	! grep '^STATUS=' "$T/notify.log" | tail -n 1 | grep -qF "configuration error" ||
		die "STATUS still says it: $(grep '^STATUS=' "$T/notify.log" | tail -n 1)"
}

# A setting that cannot take effect is said once at start and once at each reload, with
# FILE:LINE, as --check-config says it (without its "warning: ", which the log prefix gives).
t_caps_effect_said() {
	fr_new "$R" "$VER"
	fr_dev "$R" "$VER" 0
	fr_blockstate "$R" "$VER" 0
	conf "${BASE_CONF[@]}" "cpu-share-pressure-percent = 2"
	local want="zram-recompd: warning: $T/conf:6: key 'cpu-share-pressure-percent': cpu-share-pressure-percent (2%) is below cpu-share-max-percent (0%, off: a paced pass gets 5%) in [global]: the share under memory pressure is raised to 5%"
	dstart
	wait_for 8000 at_least 1 "$T/d.err" '^zram-recompd: zram0: pass:' ||
		die "no pass in 8 s; stderr: $(oneline "$T/d.err")"
	[ "$(grep -cxF "$want" "$T/d.err")" = 1 ] || die "not said once at start: $(oneline "$T/d.err")"
	dsig HUP
	wait_for 5000 grep -q '^zram-recompd: configuration reloaded$' "$T/d.err" ||
		die "no reload; stderr: $(oneline "$T/d.err")"
	dstop
	[ "$(grep -cxF "$want" "$T/d.err")" = 2 ] || die "not said again at the reload: $(oneline "$T/d.err")"
}
