# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Small things an admin meets first (sourced by run.sh): each test asserts the exact lines
# and exit status.

# A comment of any length is skipped; a key's line stays bounded.
t_small_long_comment() {
	local pad
	pad=$(printf '%*s' 5000 '' | tr ' ' x)
	conf '[global]' "# $pad" "  ; $pad" 'compact = never'
	zr --config "$T/conf" --check-config
	expect_rc 0
	expect_content "$T/out" "read $T/conf" "configuration OK"
	expect_content "$T/err"
	zr --config "$T/conf" --print-config
	expect_has "$T/out" "compact = never"
}
run_test small-long-comment t_small_long_comment

# Booleans take what systemd takes: yes/no, true/false, on/off, 1/0.
t_small_bool_on_off() {
	conf '[global]' 'writeback = on' 'defer-on-battery = off' 'sandbox = on' \
		'[zram0]' 'backing-encryption = off'
	zr --config "$T/conf" --print-config
	expect_rc 0
	expect_has "$T/out" "writeback = yes"
	expect_has "$T/out" "defer-on-battery = no"
	expect_has "$T/out" "backing-encryption = no"
	conf '[global]' 'writeback = maybe'
	zr --config "$T/conf" --check-config
	expect_rc "$CHECK_CONFIG_ERROR_RC"
	expect_content "$T/err" \
		"$T/conf:2: key 'writeback': 'maybe' is not one of yes, no (or true, false, on, off, 1, 0)"
}
run_test small-bool-on-off t_small_bool_on_off

# Text status says whether the daemon runs, when the last pass was, and "1 pass".
t_small_status_daemon() {
	build_version_root "$R" 6.12
	fr_dev "$R" 6.12 1
	mkdir "$T/state"
	printf '%s\n' 'zram-recompd-state 1' \
		"zram0 passes=1 pages_attempted=1 bytes_saved=1024 mem_freed=0 incompressible=0 kernel_ns=0 errors=0 last_pass_unix=$(($(date +%s) - 750))" \
		>"$T/state/state"
	conf '[global]'
	ZRAM_RECOMPD_STATE_DIR=$T/state zro status
	expect_rc 0
	expect_count "$T/out" "daemon: not running (passes only from --once or its timer)" 1
	expect_count "$T/out" "  totals:         1 pass (daemon and --once), the last 12 min ago, saved 1.0 KiB, freed 0 B, 0 pages became incompressible, 0.0 s in kernel writes, 0 error(s)" 1
	sed -n 2p "$T/out" | grep -q '^daemon: ' || die "the daemon line is not the second line"
	mkdir -p "$R/run/zram-recompd/daemon"
	ZRAM_RECOMPD_STATE_DIR=$T/state zro status
	expect_rc 0
	expect_count "$T/out" "daemon: running (zram-recompd.service)" 1
}
run_test small-status-daemon t_small_status_daemon

# --check-config on a --config FILE that does not exist fails the check (exit 1, as
# zram-recompd(8) says), naming it.
t_small_check_config_missing() {
	zr --config "$T/missing.conf" --check-config
	expect_rc 1
	expect_content "$T/out"
	expect_content "$T/err" "zram-recompd: error: $T/missing.conf: no such configuration file"
	sed -n '/^\.B \\-\\-check\\-config$/,/^\.TP/p' "$HERE/../../docs/zram-recompd.8" |
		grep -q '^Exit 0 (warnings allowed) or 1 (errors; also a$' ||
		die "zram-recompd(8) --check-config does not give 1 for a missing --config FILE"
}
run_test small-check-config-missing t_small_check_config_missing

# Every exit status the code has is in zram-recompd(8)'s EXIT STATUS and in the README's,
# and the numbers in the headers are the documented ones.
t_small_exit_statuses() {
	local top=$HERE/../.. s
	grep -q '^#define ADOPT_EXIT_REFUSED 5$' "$top/include/adopt.h" || die "adopt.h: refused is not 5"
	grep -q '^#define BACKING_EXIT_GUARD 6$' "$top/include/backing.h" || die "backing.h: guard is not 6"
	grep -q '^#define MANAGER_EXIT_RESTART 75$' "$top/include/manager.h" || die "manager.h: restart is not 75"
	sed -n '/^\.SH EXIT STATUS/,/^\.SH KERNEL/p' "$top/docs/zram-recompd.8" >"$T/man"
	sed -n '/^## Exit status/,/^## /p' "$top/README.md" | tr '\n' ' ' >"$T/readme"
	for s in 0 1 2 3 4 5 6 75 128+N; do
		grep -qx "\.B $s" "$T/man" || die "zram-recompd(8) EXIT STATUS lacks $s"
		grep -Eq "(^|[;(] ?)$s |^## Exit status +$s " "$T/readme" ||
			grep -q "; $s " "$T/readme" || die "README's exit statuses lack $s"
	done
}
run_test small-exit-statuses t_small_exit_statuses

# The options every command reads go after adopt and backing too, as after status; and
# `backing setup --help` prints the usage.
t_small_global_after_sub() {
	adopt_root 6.12
	fr_dev "$R" 6.12 0 recomp="1:zstd" link=none
	conf '[global]' 'recompress-algorithms = zstd'
	snap
	zr adopt --dry-run zram0 --sysroot "$R" --config "$T/conf"
	expect_rc 0
	expect_content "$T/out" \
		"zram0: already has the configured secondary algorithms; nothing to do (--force sets it up again, for changed algorithm-params)"
	expect_content "$T/err"
	zr --sysroot "$R" adopt --config="$T/conf" --dry-run zram0
	expect_rc 0
	expect_has "$T/out" "zram0: already has the configured secondary algorithms"
	# the file named after the subcommand is the one read
	conf '[global]' 'recompress-algoritms = zstd'
	zr --sysroot "$R" adopt --dry-run zram0 --config "$T/conf"
	expect_rc 2
	expect_has "$T/err" "$T/conf:2: unknown key 'recompress-algoritms' in section [global]; did you mean 'recompress-algorithms'?"
	zr --sysroot "$R" backing teardown zram0 --config "$T/conf"
	expect_rc 2
	expect_has "$T/err" "$T/conf:2: unknown key 'recompress-algoritms'"
	conf '[global]'
	zr backing setup --help --sysroot "$R" --config "$T/conf"
	expect_rc 0
	expect_content "$T/err"
	expect_has "$T/out" "Usage: zram-recompd backing setup [zramN...]"
	zr backing teardown zram0 -h
	expect_rc 0
	expect_has "$T/out" "Usage: zram-recompd backing setup [zramN...]"
	expect_changed
}
run_test small-global-after-subcommand t_small_global_after_sub

# Bytes that are not UTF-8, and control characters, are escaped in messages, never echoed
# raw; valid UTF-8 stays as it is.
t_small_escape_bytes() {
	printf '[global]\ncompact = n\377v\033[31m\nwriteback = j\303\244\n' >"$T/conf"
	zr --config "$T/conf" --check-config
	expect_rc 1
	expect_content "$T/err" \
		"$T/conf:2: key 'compact': 'n\\xffv\\x1b[31m' is not one of auto, always, never" \
		"$T/conf:3: key 'writeback': 'jä' is not one of yes, no (or true, false, on, off, 1, 0)"
	fr_new "$R" 6.12
	zr --sysroot "$R" --config /dev/null --once --device "zr$(printf '\351')m0"
	expect_rc 2
	expect_content "$T/err" "zram-recompd: error: --device: 'zr\\xe9m0' is not a zram device name (zramN)"
}
run_test small-escape-bytes t_small_escape_bytes

# zram-recompd(8) says that the daemon's unit stays inactive when zram is loaded after boot,
# and what to do; the unit's condition is the one it describes.
t_small_man_late_zram() {
	local top=$HERE/../..
	grep -q '^ConditionPathExists=/sys/class/zram-control$' "$top/systemd/zram-recompd.service" ||
		die "zram-recompd.service: no condition on /sys/class/zram-control"
	sed -n '/^\.SH SYSTEMD/,/^\.SH WORKING/p' "$top/docs/zram-recompd.8" | tr '\n' ' ' >"$T/man"
	expect_has "$T/man" "when zram is loaded later (modprobe by hand, a setup tool started later), the unit stays inactive; start it then with .BR \"systemctl start zram\\-recompd\""
}
run_test small-man-late-zram t_small_man_late_zram

# recompress-algorithms written with commas, quotes or a level: the error says the syntax.
t_small_algo_hints() {
	local pre="$T/conf:2: key 'recompress-algorithms':"
	local bad="is not a valid algorithm name ([a-z0-9-], at most 31 characters)"
	conf '[global]' 'recompress-algorithms = zstd, deflate'
	zr --config "$T/conf" --check-config
	expect_rc 1
	expect_content "$T/err" "$pre 'zstd,' $bad; did you mean 'zstd deflate'? (names are separated by blanks, no commas)"
	conf '[global]' 'recompress-algorithms = zstd:9'
	zr --config "$T/conf" --check-config
	expect_rc 1
	expect_content "$T/err" "$pre 'zstd:9' $bad; did you mean recompress-algorithms = zstd and algorithm-params = zstd:level=9? (a level goes in algorithm-params)"
	conf '[global]' 'recompress-algorithms = "zstd"'
	zr --config "$T/conf" --check-config
	expect_rc 1
	expect_content "$T/err" "$pre '\"zstd\"' $bad; did you mean 'zstd'? (values take no quotes)"
	# the daemon's and --once's reading says the same
	fr_new "$R" 6.12
	zr --sysroot "$R" --config "$T/conf" --once
	expect_rc 2
	expect_has "$T/err" "did you mean 'zstd'? (values take no quotes)"
}
run_test small-algo-hints t_small_algo_hints

# 6.1 (no recompression at all): status has no empty "capabilities:" line; "missing:" says why.
t_small_caps_61() {
	build_version_root "$R" 6.1
	fr_dev "$R" 6.1 0 multi=0
	conf '[global]'
	zro status
	expect_rc 0
	expect_not "$T/out" "capabilities:"
	expect_count "$T/out" "  missing:        recompression needs Linux 6.2 or later with CONFIG_ZRAM_MULTI_COMP (this kernel is 6.1)" 1
	zro status --device zram0
	expect_rc 0
	expect_not "$T/out" "capabilities:"
}
run_test small-capabilities-6.1 t_small_caps_61

# adopt's refusal says what would let it run: here --via-temp without a temporary device
# (no zram-control/hot_add) while the direct plan is safe.
t_small_adopt_next() {
	adopt_root 6.12
	rm "$R/sys/class/zram-control/hot_add"
	snap
	zro adopt --dry-run --via-temp zram0
	expect_rc 5
	expect_content "$T/err" \
		"zram-recompd: error: zram0: adopt refused: a temporary device is not safe (--via-temp); nothing changed" \
		"zram-recompd: zram0: next: leave out --via-temp (the direct plan is safe)"
	expect_changed
}
run_test small-adopt-next-step t_small_adopt_next

# can-run with writeback = yes on a kernel without CONFIG_ZRAM_WRITEBACK (nor MULTI_COMP):
# the reason names both, set up or not.
t_small_can_run_wb() {
	local why="zram0: cannot recompress: this kernel lacks CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute); nothing to do: writeback = yes, but this kernel lacks CONFIG_ZRAM_WRITEBACK (no backing_dev attribute)"
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 multi=0 wb=0
	conf '[global]' 'writeback = yes'
	snap
	zro can-run
	expect_rc 1
	expect_content "$T/err" "zram-recompd: warning: $why" \
		"zram-recompd: can-run: no: nothing zram-recompd could do on this machine (see above); the unit is skipped"
	fr_dev "$R" 6.12 0 multi=0 wb=0 init=0
	snap
	zro can-run
	expect_rc 1
	expect_count "$T/err" "$why" 1
	expect_changed
}
run_test small-can-run-writeback t_small_can_run_wb

# --check-config lists the drop-in directory's entries it skips, with the reason; hidden
# names are nobody's configuration and stay unlisted.
t_small_dropins_skipped() {
	local d=$T/cfgroot/etc/zram-recompd.conf.d
	mkdir -p "$d/40-dir.conf"
	printf '[global]\ncompact = never\n' >"$d/10-a.conf"
	printf '[global]\ncompact = always\n' >"$d/20-b.conf.dpkg-old"
	printf 'x\n' >"$d/.20-b.conf.swp"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/cfgroot zr --check-config
	expect_rc 0
	expect_content "$T/out" \
		"read $d/10-a.conf" \
		"skipped $d/20-b.conf.dpkg-old (only *.conf names are read)" \
		"skipped $d/40-dir.conf (not a regular file)" \
		"configuration OK"
	expect_content "$T/err"
}
run_test small-dropins-skipped t_small_dropins_skipped

# A key or section repeated in one file loads (the later value wins, as in systemd) with a
# warning naming the earlier line; across files a drop-in overriding the main file says
# nothing.
t_small_duplicates() {
	conf '[global]' 'compact = never' '[zram0]' 'compact = always' '[global]' \
		'compact = auto' 'compact = always'
	zr --config "$T/conf" --check-config
	expect_rc 0
	expect_content "$T/err" \
		"$T/conf:5: warning: section [global] again (line 1 started it too): the two are merged, a later value of a key wins" \
		"$T/conf:6: warning: key 'compact' again in [global] (line 2 set it too): this later value wins" \
		"$T/conf:7: warning: key 'compact' again in [global] (line 6 set it too): this later value wins"
	expect_has "$T/out" "configuration OK, 3 warnings"
	zr --config "$T/conf" --print-config
	expect_rc 0
	expect_has "$T/out" "compact = always"
	# --once says it too, then runs
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	zro --once --dry-run
	expect_rc 0
	expect_count "$T/err" "warning: key 'compact' again in [global]" 2
	# a drop-in overriding the main file: no warning
	local d=$T/cfgroot/etc
	mkdir -p "$d/zram-recompd.conf.d"
	printf '[global]\ncompact = never\n' >"$d/zram-recompd.conf"
	printf '[global]\ncompact = always\n' >"$d/zram-recompd.conf.d/10-a.conf"
	ZRAM_RECOMPD_CONFIG_ROOT=$T/cfgroot zr --check-config
	expect_rc 0
	expect_content "$T/err"
}
run_test small-duplicates t_small_duplicates
