# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Fake-sysfs tests of what each kernel shape allows and of what a device cannot do (issue 24:
# src/policy/reach.c): the Ubuntu and Fedora profiles (build_version_root ubuntu|fedora, lib.sh),
# devices without a secondary algorithm with the fix for the setup tool found, the --once
# exit status 4 and `can-run` (ExecCondition= of the units). Sourced by run.sh, which
# provides run_test and the expect_* helpers.
# Tests run in subshells that set T and R on purpose.
# shellcheck disable=SC2030,SC2031

CAPS_NOMC="cannot recompress: this kernel lacks CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute)"

# The profiles' status, golden (text and JSON), like the version roots'.
run_test status-golden-ubuntu t_status_golden ubuntu
run_test status-golden-fedora t_status_golden fedora

# Ubuntu, writeback configured and a backing device set: --once writes back and compacts,
# and touches nothing else (no idle mark, no recompress: there is no such attribute); exit 0.
t_ubuntu_once_writeback() {
	build_version_root "$R" ubuntu
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	conf '[global]' 'writeback = yes'
	snap
	zro --once
	expect_rc 0
	expect_has "$T/err" "zram0: $CAPS_NOMC; writeback and compaction only"
	expect_not "$T/err" "warning"
	expect_changed "$(dp 0 writeback)" "$(dp 0 writeback_limit)" \
		"$(dp 0 writeback_limit_enable)" "$(dp 0 compact)"
	# by age (block_state): nothing old enough in the fake's ages; incompressible: the
	# kernel's own filter, one write
	expect_content "$(attr 0 writeback)" "incompressible"
	expect_content "$(attr 0 compact)" "1"
	expect_has "$T/out" "zram0: writeback: 0 pages (0 B) written back"
	expect_has "$T/out" "zram0: compact: freed"
	# status says the same
	zro status
	expect_rc 0
	expect_has "$T/out" "  recompression:  no: this kernel lacks CONFIG_ZRAM_MULTI_COMP"
	expect_has "$T/out" "  passes:         writeback and compaction only"
	expect_has "$T/out" "  backing device: /dev/loop0"
	expect_not "$T/out" "  fix:"
	zro status --json
	expect_json "$T/out"
	expect_has "$T/out" '"reach":{"recompress":false,"writeback":true,"limit":"no_multi_comp"'
	expect_has "$T/out" '"fix":null,"passes":"writeback and compaction only"}'
}
run_test ubuntu-once-writeback t_ubuntu_once_writeback

# Ubuntu as installed (no writeback configured): nothing possible, said once with the hint,
# nothing written, exit 4.
t_ubuntu_once_nothing() {
	build_version_root "$R" ubuntu
	conf '[global]'
	snap
	zro --once
	expect_rc 4
	expect_count "$T/err" "zram0: $CAPS_NOMC; nothing to do (writeback = yes with a backing device" 1
	expect_has "$T/err" "warning"
	expect_content "$T/out"
	expect_changed
	zro status
	expect_has "$T/out" "  passes:         nothing to do"
	expect_changed
}
run_test ubuntu-once-nothing t_ubuntu_once_nothing

# writeback = yes, but zram-config set the device up without a backing device: exit 4, named.
t_ubuntu_once_no_backing() {
	build_version_root "$R" ubuntu
	conf '[global]' 'writeback = yes'
	snap
	zro --once
	expect_rc 4
	expect_has "$T/err" "zram0: $CAPS_NOMC; nothing to do: writeback = yes, but the device has no backing device"
	expect_changed
}
run_test ubuntu-once-no-backing t_ubuntu_once_no_backing

# Ubuntu, a device not set up yet (zram-config's modprobe, before its disksize), writeback and
# a backing device configured: --once writes backing_dev (before disksize, as for the
# secondaries), says what the device will get, and exits 0: nothing wrong, nothing to pass.
t_ubuntu_once_uninitialized() {
	fr_new "$R" ubuntu
	fr_dev "$R" 6.8 0 multi=0 wb=1 init=0
	conf '[global]' 'writeback = yes' 'backing-device = /dev/loop7'
	snap
	zro --once
	expect_rc 0
	expect_has "$T/err" "zram0: $CAPS_NOMC; writeback and compaction only, once it is set up"
	# the one warning: a plain backing device keeps swapped memory in clear text (issue 25)
	expect_has "$T/err" "zram-recompd: warning: zram0: backing device /dev/loop7 is not encrypted: swapped memory is written to it in clear text and stays there across reboots (backing-encryption = yes: dm-crypt, which destroys its content)"
	[ "$(grep -c warning "$T/err")" = 1 ] || die "more warnings than the plain backing device's"
	expect_changed "$(dp 0 backing_dev)"
	expect_content "$(attr 0 backing_dev)" none /dev/loop7
	zro can-run
	expect_rc 0
	# without a backing device configured (or set): nothing will be possible
	printf 'none\n' >"$(attr 0 backing_dev)"
	conf '[global]' 'writeback = yes'
	zro --once
	expect_rc 4
}
run_test ubuntu-once-uninitialized t_ubuntu_once_uninitialized

# can-run (ExecCondition=): 1 with the reason where nothing is possible, 0 where writeback
# is; it never writes anything.
t_ubuntu_can_run() {
	build_version_root "$R" ubuntu
	conf '[global]'
	snap
	zro can-run
	expect_rc 1
	expect_has "$T/err" "zram0: $CAPS_NOMC; nothing to do"
	expect_has "$T/err" "can-run: no: nothing zram-recompd could do on this machine"
	conf '[global]' 'writeback = yes'
	zro can-run
	expect_rc 1
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	snap
	zro can-run
	expect_rc 0
	expect_has "$T/err" "can-run: yes: zram0: writeback and compaction only"
	# writeback only on zram1 ([zram1] section): zram0 has none, so no
	conf '[global]' '[zram1]' 'writeback = yes'
	zro can-run
	expect_rc 1
	expect_changed
}
run_test ubuntu-can-run t_ubuntu_can_run

# No device yet (zram-config has not run): the kernel config decides; unknown: start.
t_can_run_no_device() {
	fr_new "$R" ubuntu
	fr_kconfig "$R" boot 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_WRITEBACK=y' \
		'# CONFIG_ZRAM_MULTI_COMP is not set'
	conf '[global]'
	zro can-run
	expect_rc 1
	expect_has "$T/err" "can-run: no: no zram device yet, and this kernel lacks CONFIG_ZRAM_MULTI_COMP"
	conf '[global]' 'writeback = yes'
	zro can-run
	expect_rc 0
	expect_has "$T/err" "can-run: yes: no zram device yet"
	rm -rf "$R/boot"
	conf '[global]'
	zro can-run
	expect_rc 0
}
run_test can-run-no-device t_can_run_no_device

# Fedora with our drop-in: recompression and compaction, no writeback attribute touched.
t_fedora_once() {
	build_version_root "$R" fedora
	conf '[global]'
	snap
	zro --once
	expect_rc 0
	expect_not "$T/err" "cannot recompress"
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
	expect_content "$(attr 0 recompress)" 'type=huge_idle priority=1 max_pages=2048' \
		'type=idle priority=1 max_pages=2048' 'type=huge priority=1 max_pages=2048'
	# no ages (ACTIME off): all pages
	expect_content "$(attr 0 idle)" all
	zro can-run
	expect_rc 0
	expect_has "$T/err" "can-run: yes: zram0: recompression and compaction"
	zro status
	expect_not "$T/out" "recompression:"
	expect_not "$T/out" "fix:"
}
run_test fedora-once t_fedora_once

# fix_for TOOLS...: a Fedora-like root whose zram0 has no secondary, with the setup files
# named (generator, generator-dropin, zramswap, zramswap-dropin, zram-config) under usr/lib
# (or lib/ for a pre-merged-/usr Debian: lib:NAME).
fix_root() {
	local t u=usr/lib
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 recomp=""
	for t in "$@"; do
		case $t in lib:*) u=lib t=${t#lib:} ;; *) u=usr/lib ;; esac
		mkdir -p "$R/$u/systemd/system/zramswap.service.d" \
			"$R/$u/systemd/system/systemd-zram-setup@.service.d" "$R/$u/systemd/system-generators"
		case $t in
		generator) : >"$R/$u/systemd/system-generators/zram-generator" ;;
		generator-dropin) : >"$R/$u/systemd/system/systemd-zram-setup@.service.d/zram-recompd.conf" ;;
		zramswap) : >"$R/$u/systemd/system/zramswap.service" ;;
		zramswap-dropin) : >"$R/$u/systemd/system/zramswap.service.d/zram-recompd.conf" ;;
		zram-config) : >"$R/$u/systemd/system/zram-config.service" ;;
		esac
	done
}

ADOPT="fix: zram-recompd adopt zram0 (now, no reboot needed)"
NOSEC="zram0: cannot recompress: initialized without a secondary algorithm (the kernel takes them only before disksize)"

# t_fix_tool EXPECTED TOOLS...: --once exits 4, writes nothing, and names the fix for the
# tools found, once; status (text and JSON) gives the same fix; can-run says start (adopt can
# make it recompressible without a reboot).
t_fix_tool() {
	local want=$1
	shift
	fix_root "$@"
	conf '[global]'
	snap
	zro --once
	expect_rc 4
	expect_count "$T/err" "$NOSEC; $ADOPT; $want; nothing to do" 1
	expect_changed
	zro status
	expect_rc 0
	expect_has "$T/out" "  fix:            zram-recompd adopt zram0 (now, no reboot needed); $want"
	expect_has "$T/out" "  passes:         nothing to do"
	zro status --json
	expect_json "$T/out"
	expect_has "$T/out" '"limit":"no_secondary"'
	expect_has "$T/out" "\"fix\":\"zram-recompd adopt zram0 (now, no reboot needed); $want\""
	zro can-run
	expect_rc 0
	expect_has "$T/err" "can-run: yes: zram0: no pass until it is adopted"
	expect_changed
}
run_test fix-zram-generator t_fix_tool "at later boots the drop-in systemd-zram-setup@.service.d/zram-recompd.conf for zram-generator (install it)" generator
run_test fix-zram-generator-dropin t_fix_tool "at later boots the installed drop-in systemd-zram-setup@.service.d/zram-recompd.conf of zram-generator (if it did not apply: journalctl -b -u 'systemd-zram-setup@*')" generator generator-dropin
run_test fix-zram-tools t_fix_tool "at later boots the drop-in zramswap.service.d/zram-recompd.conf for zram-tools (install it)" zramswap
run_test fix-zram-tools-dropin-lib t_fix_tool "at later boots the installed drop-in zramswap.service.d/zram-recompd.conf of zram-tools (if it did not apply: journalctl -b -u zramswap)" lib:zramswap lib:zramswap-dropin
run_test fix-zram-config t_fix_tool "zram-config (Ubuntu) has no hook before disksize: adopt after it at each boot, or set zram up with zram-generator and its drop-in" zram-config
run_test fix-no-tool t_fix_tool "at later boots run zram-recompd --once --device zram0 before your setup writes disksize (zram-recompd(8), WHEN IT CANNOT RECOMPRESS)"

# A tool's unit file reached through a symlink that points outside the root is not found
# (resolved inside the root, never on the host).
t_fix_tool_escape() {
	fix_root
	mkdir -p "$R/usr/lib/systemd"
	ln -s /usr/lib/systemd/system "$R/usr/lib/systemd/system"
	ln -s /lib/systemd/system "$R/etc-system"
	conf '[global]'
	zro --once
	expect_rc 4
	expect_has "$T/err" "at later boots run zram-recompd --once --device zram0"
}
run_test fix-tool-symlink-escape t_fix_tool_escape

# One device without a secondary among recompressible ones: they get their pass, and the
# run exits 4 for the one it could do nothing with.
t_once_mixed_exit() {
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0
	fr_dev "$R" 6.12 1 recomp=""
	conf '[global]'
	snap
	zro --once
	expect_rc 4
	expect_changed "$(dp 0 idle)" "$(dp 0 recompress)" "$(dp 0 compact)"
	expect_count "$T/err" "zram1: cannot recompress" 1
	zro --once --device zram0
	expect_rc 0
}
run_test once-mixed-exit-4 t_once_mixed_exit

# Without a secondary but with writeback: writeback and compaction, the fix named; exit 0.
t_nosec_writeback() {
	fix_root zramswap
	rm -rf "$R/sys/devices/virtual/block/zram0" "$R/sys/block/zram0"
	fr_dev "$R" 6.12 0 recomp="" wb=1
	fr_blockstate "$R" 6.12 0
	printf '/dev/loop0\n' >"$(attr 0 backing_dev)"
	conf '[global]' 'writeback = yes' 'writeback-types = huge'
	snap
	zro --once
	expect_rc 0
	expect_has "$T/err" "$NOSEC; $ADOPT; at later boots the drop-in zramswap.service.d"
	expect_has "$T/err" "; writeback and compaction only"
	expect_not "$T/err" "differ from the configuration"
	expect_changed "$(dp 0 writeback)" "$(dp 0 writeback_limit)" \
		"$(dp 0 writeback_limit_enable)" "$(dp 0 compact)"
	expect_content "$(attr 0 writeback)" huge
}
run_test no-secondary-writeback t_nosec_writeback

# can-run: its usage, and a configuration error or a missing root lets the unit start (the
# daemon reports those itself, with its own exit status).
t_can_run_usage() {
	build_version_root "$R" ubuntu
	conf '[global]'
	zro can-run --device zram0
	expect_rc 2
	zro can-run --once
	expect_rc 2
	expect_has "$T/err" "choose one of"
	conf '[global]' 'no-such-key = 1'
	zro can-run
	expect_rc 0
	zr --sysroot "$T/absent" --config "$T/conf" can-run
	expect_rc 0
}
run_test can-run-usage t_can_run_usage
