#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The arm64 package's autopkgtest (debian/tests/fake-sysfs, from etc/debian/tests) on the
# arm64 kernel (6.12-arm64 only, VM_ARM64_ONLY in host-lib.sh): the .deb of `make deb-cross
# ARCH=arm64` unpacked with dpkg-deb -x into /vm/pkg by mkinitramfs.sh, run as the deb tier
# runs the amd64 one (ZRAM_RECOMPD_PKGROOT, DEB_VERSION), here by Debian's arm64 dash with
# GNU find first in PATH, as on an installed system (busybox's sh would run its own find,
# which has no -printf). Asserted: the packaged program is an arm64 ELF and the machine is
# aarch64 (no emulation of one architecture by another inside the guest), the summary line
# "autopkgtest: N passed, 0 failed" with N the script's own checks (its `ok NAME` calls), and
# the version check among them.
. /vm/lib.sh

PKG=/vm/pkg
APT=/vm/autopkgtest/fake-sysfs
[ -x /vm/debian/bin/dash ] && [ -x /vm/debian/bin/find ] ||
	fail "dash or GNU find missing from /vm/debian/bin (mkinitramfs.sh VM_ARCH=arm64)"
[ -x "$PKG/usr/sbin/zram-recompd" ] ||
	skip "no arm64 package in the image (make deb-cross ARCH=arm64, then run again)"
expect_eq "machine" "$(uname -m)" aarch64
# e_machine, 2 bytes at 18 of the ELF header (little-endian): 183 = EM_AARCH64
expect_eq "ELF machine of the packaged program" \
	"$(od -An -tu2 -j18 -N2 "$PKG/usr/sbin/zram-recompd" | tr -d ' ')" 183
set -- $(cat /vm/pkg.version)
note "package: $*"
expect_eq "package architecture" "${3:-}" arm64
ver=$2

want=$(grep -cE '^[[:space:]]*ok [a-z-]+$' "$APT")
[ "$want" -ge 4 ] || fail "only $want checks found in $APT"
PATH=/vm/debian/bin:$PATH ZRAM_RECOMPD_PKGROOT=$PKG DEB_VERSION=$ver \
	/vm/debian/bin/dash "$APT" >"$WORK/apt.out" 2>&1
rc=$?
sed "s/^/[$T]   | /" "$WORK/apt.out"
line=$(grep -E '^autopkgtest: [0-9]+ passed, [0-9]+ failed$' "$WORK/apt.out")
[ -n "$line" ] || fail "no summary line (exit code $rc)"
expect_eq "autopkgtest summary" "$line" "autopkgtest: $want passed, 0 failed"
expect_eq "autopkgtest exit code" "$rc" 0
grep -qx "PASS version" "$WORK/apt.out" || fail "the version check did not pass"
pass_note "$line ($ver arm64, $PAGE-byte pages)"
