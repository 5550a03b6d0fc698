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
