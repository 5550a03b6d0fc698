#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package tier (etc/debian/README.source): builds the package with `make deb`
# (the files git tracks, dpkg-buildpackage -us -uc -b, lintian) and checks what it produced,
# without installing anything on this machine:
#   build        make deb exits 0 and leaves build/deb/zram-recompd_VERSION_ARCH.deb
#   clean-env    WERROR=1 and SANITIZE=1 given to make deb do not reach the package's build
#   lintian      lintian on the binary and the source .changes: no error and no warning
#   lintian-overrides  each override in etc/debian/*lintian-overrides right after a comment
#   version      the package's version is the Makefile's VERSION
#   depends      libsystemd0, liblz4-1, libzstd1 (shlibs), not the test-only liblzo2, cmocka
#   contents     the program, both man pages, the bash completion, the three units, the
#                zram-generator and zram-tools drop-ins, the configuration and its drop-in
#                directory, at their Debian paths (dpkg-deb -c)
#   conffiles    the control file conffiles lists /etc/zram-recompd.conf (and nothing else)
#   units        ExecStart=, ExecCondition= (can-run) and the drop-ins' ExecStartPre= name
#                /usr/sbin/zram-recompd
#                (no @SBINDIR@ left)
#   enablement   postinst enables and starts zram-recompd.service, never the once timer
#   hardening    the program is PIE, full RELRO (BIND_NOW), uses fortified functions
#   nocheck      debian/rules runs the unit tier in dh_auto_test, nothing with nocheck
#   autopkgtest  debian/tests/control names only executable scripts, and its fake-sysfs
#                test passes against `dpkg-deb -x` of the .deb (its checks are counted)
# Last line: "deb: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
BUILDDIR=${BUILDDIR:-build}
P=0
F=0
ok() {
	P=$((P + 1))
	echo "PASS $1"
}
bad() {
	F=$((F + 1))
	echo "FAIL $1: $2"
}
summary() {
	echo "deb: $P passed, $F failed"
	[ "$F" -eq 0 ]
	exit
}

T=$(mktemp -d "${TMPDIR:-/tmp}/zr-deb.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

VERSION=$(sed -n 's/^VERSION := //p' Makefile)
ARCH=$(dpkg --print-architecture 2>/dev/null)
DEB_DIR=$BUILDDIR/deb
DEB=$DEB_DIR/zram-recompd_${VERSION}_$ARCH.deb
CHANGES=$DEB_DIR/zram-recompd_${VERSION}_$ARCH.changes
SRC_CHANGES=$DEB_DIR/zram-recompd_${VERSION}_source.changes
SRC=$DEB_DIR/zram-recompd-$VERSION

# WERROR=1 and SANITIZE=1 on purpose: make passes its command line's variables to every
# recipe, and the package's own build must see none of them (clean-env below).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s deb BUILDDIR="$BUILDDIR" WERROR=1 SANITIZE=1 \
	>"$T/make.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ -f "$DEB" ]; then
	ok "build ($DEB)"
else
	tail -n 30 "$T/make.log"
	bad build "make deb exited $rc; $DEB $([ -f "$DEB" ] && echo exists || echo missing)"
	[ -f "$DEB" ] || summary
fi
ncc=$(grep -cE '^(cc|gcc) .* -c -o build/obj/cli/main\.o ' "$T/make.log")
leak=$(grep -E '^(cc|gcc) ' "$T/make.log" | grep -oE -- ' -Werror( |$)|-fsanitize=[a-z,]*' |
	sort -u | tr '\n' ' ')
if [ "$ncc" -ne 1 ]; then
	bad clean-env "$ncc compiler calls for build/obj/cli/main.o in the log (expected 1)"
elif [ -n "$leak" ]; then
	bad clean-env "make's command line reached the package build: $leak"
else
	ok "clean-env (WERROR=1 SANITIZE=1 given to make deb: no -Werror, no -fsanitize)"
fi

# --show-overrides: the overridden tags are listed (O:), which also shows that lintian did
# check the package (a run that checked nothing would print nothing at all).
lintian --display-info --show-overrides "$CHANGES" "$SRC_CHANGES" >"$T/lintian.out" 2>"$T/lintian.err"
lrc=$?
tags=$(grep -E '^[EW]: ' "$T/lintian.out")
if [ -n "$tags" ]; then
	bad lintian "$(echo "$tags" | tr '\n' '|')"
elif [ "$lrc" -ne 0 ]; then
	bad lintian "exit $lrc: $(tr '\n' '|' <"$T/lintian.err")"
elif ! grep -q '^O: zram-recompd: ' "$T/lintian.out"; then
	bad lintian "no overridden tag shown: lintian checked nothing? $(tr '\n' '|' <"$T/lintian.out")"
else
	ok "lintian (no error or warning; $(grep -c '^I: ' "$T/lintian.out") info, $(grep -c '^O: ' "$T/lintian.out") overridden)"
fi
uncommented=$(for f in etc/debian/*lintian-overrides etc/debian/source/lintian-overrides; do
	[ -f "$f" ] || continue
	# A comment right before every override line (a blank line or another override in
	# between does not count).
	awk -v f="$f" '/^#/ { c = 1; next } /^[[:space:]]*$/ { c = 0; next }
		{ if (!c) print f ":" NR; c = 0 }' "$f"
done)
if [ -n "$uncommented" ]; then
	bad lintian-overrides "without a justifying comment: $uncommented"
else
	ok "lintian-overrides (each justified by a comment)"
fi

v=$(dpkg-deb -f "$DEB" Version)
if [ "$v" = "$VERSION" ]; then
	ok "version ($v)"
else
	bad version "package $v, Makefile $VERSION"
fi

# ${shlibs:Depends} from what the program links: its libraries, never the test-only ones
# (liblzo2, cmocka: Build-Depends <!nocheck>).
dep=$(dpkg-deb -f "$DEB" Depends)
if echo "$dep" | grep -q 'libsystemd0' && echo "$dep" | grep -q 'liblz4-1' &&
	echo "$dep" | grep -q 'libzstd1' && ! echo "$dep" | grep -qE 'liblzo2|libcmocka'; then
	ok "depends ($dep)"
else
	bad depends "'$dep'"
fi
# libcryptsetup is loaded with dlopen for dm-crypt (backing-encryption): recommended, never
# a dependency (the daemon does not link it).
rec=$(dpkg-deb -f "$DEB" Recommends)
if echo "$rec" | grep -q 'libcryptsetup12' && ! echo "$dep" | grep -q 'libcryptsetup'; then
	ok "recommends ($rec)"
else
	bad recommends "'$rec' (depends '$dep')"
fi

dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' >"$T/files"
missing=
for f in /usr/sbin/zram-recompd /usr/share/man/man8/zram-recompd.8.gz \
	/usr/share/man/man5/zram-recompd.conf.5.gz \
	/usr/share/bash-completion/completions/zram-recompd \
	/lib/systemd/system/zram-recompd.service /lib/systemd/system/zram-recompd-once.service \
	/lib/systemd/system/zram-recompd-backing.service \
	/lib/systemd/system/zram-recompd-once.timer \
	/lib/systemd/system/zram-recompd-dict@.service \
	/lib/systemd/system/zram-recompd-dict-save@.service \
	/lib/systemd/system/systemd-zram-setup@.service.d/zram-recompd.conf \
	/lib/systemd/system/zramswap.service.d/zram-recompd.conf \
	/etc/zram-recompd.conf /etc/zram-recompd.conf.d /usr/share/doc/zram-recompd/copyright; do
	grep -qxF "$f" "$T/files" || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "contents ($(wc -l <"$T/files") entries)"
else
	bad contents "missing:$missing"
fi

mkdir "$T/ctl" "$T/root"
dpkg-deb -e "$DEB" "$T/ctl"
dpkg-deb -x "$DEB" "$T/root"
if [ "$(cat "$T/ctl/conffiles" 2>/dev/null)" = /etc/zram-recompd.conf ]; then
	ok "conffiles (/etc/zram-recompd.conf)"
else
	bad conffiles "$(tr '\n' ' ' <"$T/ctl/conffiles" 2>/dev/null || echo 'no conffiles')"
fi

U=$T/root/lib/systemd/system
if grep -qx 'ExecStart=/usr/sbin/zram-recompd' "$U/zram-recompd.service" &&
	grep -qx 'ExecStart=/usr/sbin/zram-recompd --once' "$U/zram-recompd-once.service" &&
	grep -qx 'ExecCondition=/usr/sbin/zram-recompd can-run' "$U/zram-recompd.service" &&
	grep -qx 'ExecCondition=/usr/sbin/zram-recompd can-run' "$U/zram-recompd-once.service" &&
	grep -qx 'ConditionPathExists=!/run/zram-recompd/daemon' "$U/zram-recompd-once.service" &&
	! grep -q '^ExecCondition=/bin/sh' "$U/zram-recompd-once.service" &&
	grep -qx 'RuntimeDirectory=zram-recompd/daemon' "$U/zram-recompd.service" &&
	grep -qx 'RuntimeDirectoryPreserve=restart' "$U/zram-recompd.service" &&
	! grep -q '^RuntimeDirectory=.*lock' "$U/zram-recompd.service" &&
	grep -qx 'RuntimeDirectoryPreserve=yes' "$U/zram-recompd-once.service" &&
	! grep -q '^Conflicts=zram-recompd' "$U/zram-recompd-once.service" &&
	grep -qx 'ExecStartPre=-/usr/sbin/zram-recompd --once --device %i' \
		"$U/systemd-zram-setup@.service.d/zram-recompd.conf" &&
	grep -qx 'ExecStartPre=-/usr/sbin/zram-recompd --once --device zram0' \
		"$U/zramswap.service.d/zram-recompd.conf" &&
	grep -qx 'ExecStart=/usr/sbin/zram-recompd backing setup' \
		"$U/zram-recompd-backing.service" &&
	grep -qx 'ExecStop=/usr/sbin/zram-recompd backing teardown' \
		"$U/zram-recompd-backing.service" &&
	grep -qx 'Wants=zram-recompd-backing.service' "$U/zram-recompd.service" &&
	! grep -q 'zram-recompd backing\|^DeviceAllow=.*loop' "$U/zram-recompd.service" &&
	grep -qx 'ExecStopPost=-/usr/sbin/zram-recompd backing teardown %i' \
		"$U/systemd-zram-setup@.service.d/zram-recompd.conf" &&
	grep -qx 'ExecStopPost=-/usr/sbin/zram-recompd backing teardown zram0' \
		"$U/zramswap.service.d/zram-recompd.conf" &&
	! grep -rq '@[A-Z]*@' "$U"; then
	ok "units (/usr/sbin/zram-recompd)"
else
	bad units "$(grep -rh 'Exec\|@[A-Z]*@' "$U" | tr '\n' '|')"
fi

pi=$T/ctl/postinst
if grep -q "deb-systemd-helper enable 'zram-recompd.service'" "$pi" &&
	grep -q "deb-systemd-invoke \$_dh_action 'zram-recompd.service'" "$pi" &&
	grep -q "zram-recompd-once.timer" "$pi" &&
	! grep -B3 "deb-systemd-helper enable 'zram-recompd-once.timer'" "$pi" |
		grep -q "was-enabled defaults to true" &&
	! grep -q "deb-systemd-invoke .*zram-recompd-once" "$pi"; then
	ok "enablement (the daemon enabled and started, the timer neither)"
else
	bad enablement "$(grep -E 'deb-systemd-(helper|invoke)' "$pi" | tr '\n' '|')"
fi

B=$T/root/usr/sbin/zram-recompd
if ! readelf -h "$B" 2>/dev/null | grep -q 'Type: *DYN'; then
	bad hardening "not PIE"
elif ! readelf -d "$B" | grep -q 'FLAGS.*BIND_NOW' || ! readelf -lW "$B" | grep -q GNU_RELRO; then
	bad hardening "no full RELRO (BIND_NOW)"
elif ! readelf --dyn-syms -W "$B" | grep -q '__[a-z]*_chk'; then
	bad hardening "no fortified function (_FORTIFY_SOURCE)"
else
	ok "hardening (PIE, full RELRO, fortified functions)"
fi

# make -n runs the recursive $(MAKE) line too: only the first line is debian/rules' own.
with=$(cd "$SRC" && env -u MAKEFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS= make -s -n -f debian/rules \
	override_dh_auto_test 2>&1 | head -n 1)
without=$(cd "$SRC" && env -u MAKEFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS=nocheck make -s -n \
	-f debian/rules override_dh_auto_test 2>&1 | head -n 1)
if echo "$with" | grep -qE '^make .*check-unit' && ! echo "$with" | grep -qE ' check( |$)' &&
	! echo "$without" | grep -qE 'check-unit|^dh '; then
	ok "nocheck (dh_auto_test runs check-unit, nocheck nothing)"
else
	bad nocheck "with tests: '$with'; with nocheck: '$without'"
fi

notexec=
for t in $(sed -n 's/^Tests: *//p' etc/debian/tests/control | tr ',' ' '); do
	[ -x "etc/debian/tests/$t" ] || notexec="$notexec $t"
done
if [ -n "$notexec" ]; then
	bad autopkgtest-control "not executable:$notexec"
fi
ZRAM_RECOMPD_PKGROOT=$T/root DEB_VERSION=$v sh etc/debian/tests/fake-sysfs >"$T/apt.out" 2>&1
cat "$T/apt.out"
line=$(grep -E '^autopkgtest: [0-9]+ passed, [0-9]+ failed$' "$T/apt.out")
if [ -z "$line" ]; then
	bad autopkgtest "no summary line"
else
	P=$((P + $(echo "$line" | sed -E 's/^autopkgtest: ([0-9]+) passed.*/\1/')))
	F=$((F + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
fi
summary
