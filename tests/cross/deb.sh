#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package for ARCH (arm64 or armhf), cross-built as a porter would
# (dpkg-buildpackage -a ARCH with the nocheck profile: the unit tests of the cross build run
# in the cross tier, under qemu-user), and checked:
#   build      dpkg-buildpackage -a ARCH -b exits 0 and leaves
#              build-ARCH/deb/zram-recompd_VERSION_ARCH.deb
#   arch       its Architecture is ARCH and the program is an ELF for ARCH's machine
#   depends    dpkg-shlibdeps found libc6, libsystemd0, liblz4-1, libzstd1 in the sysroot
#              (not the test-only liblzo2, cmocka)
#   contents   the same file list as the host's package would have (the program, man pages,
#              units, drop-ins, configuration, completion)
#   hardening  PIE, full RELRO (BIND_NOW), fortified functions
#   lintian    lintian --fail-on error,warning on the .changes (with the package's overrides)
#   runs       the packaged program answers --version under qemu-user
# Nothing is installed: the Build-Depends are the sysroot's (tests/cross/lib.sh), so
# dpkg-buildpackage runs with -d (their check reads the machine's dpkg database), and three
# wrappers first in PATH point the build at the sysroot: TRIPLET-pkg-config (the sysroot's
# .pc files), and dpkg-shlibdeps with --admindir of the sysroot's dpkg database and -l of
# its library directories. CFLAGS and LDFLAGS get --sysroot through dpkg-buildflags'
# DEB_CFLAGS_APPEND and DEB_LDFLAGS_APPEND.
# Usage: tests/cross/deb.sh ARCH. Last line: "deb-ARCH: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
# shellcheck source=tests/cross/lib.sh
. "$TOP/tests/cross/lib.sh"

[ $# -eq 1 ] || vm_die "usage: tests/cross/deb.sh ARCH (one of: $CROSS_ARCHES_KNOWN)"
ARCH=$1
cross_arch_spec "$ARCH"
NAME=deb-$ARCH
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
	echo "$NAME: $P passed, $F failed"
	[ "$F" -eq 0 ]
	exit
}

for t in dpkg-buildpackage lintian git "$CROSS_CC"; do
	command -v "$t" >/dev/null 2>&1 || {
		bad setup "$t not found (tests/deps.sh deb cross)"
		summary
	}
done
(cross_qemu "$ARCH" && cross_sysroot "$ARCH") || {
	bad setup "no sysroot or qemu for $ARCH (see above)"
	summary
}

VERSION=$(sed -n 's/^VERSION := //p' Makefile)
DEB_DIR=$TOP/build-$ARCH/deb
SRC=$DEB_DIR/zram-recompd-$VERSION
DEB=$DEB_DIR/zram-recompd_${VERSION}_$ARCH.deb
CHANGES=$DEB_DIR/zram-recompd_${VERSION}_$ARCH.changes
WRAP=$DEB_DIR/bin
S=$CROSS_SYSROOT
LIBDIRS="$S/lib/$CROSS_TRIPLET $S/usr/lib/$CROSS_TRIPLET"

rm -rf -- "$DEB_DIR"
mkdir -p "$SRC" "$WRAP"
git ls-files -z | tar --null -T - -cf - | tar -C "$SRC" -xf -
cp -R etc/debian "$SRC/debian"
cat >"$WRAP/$CROSS_TRIPLET-pkg-config" <<EOF
#!/bin/sh
# tests/cross/deb.sh: the $ARCH sysroot's .pc files, their paths under the sysroot.
PKG_CONFIG_LIBDIR='$S/usr/lib/$CROSS_TRIPLET/pkgconfig:$S/usr/share/pkgconfig' \\
PKG_CONFIG_SYSROOT_DIR='$S' PKG_CONFIG_PATH= exec pkg-config "\$@"
EOF
cat >"$WRAP/dpkg-shlibdeps" <<EOF
#!/bin/sh
# tests/cross/deb.sh: the $ARCH sysroot's libraries and the packages they came from.
exec /usr/bin/dpkg-shlibdeps --admindir='$S/var/lib/dpkg' $(for d in $LIBDIRS; do printf -- "-l'%s' " "$d"; done)"\$@"
EOF
chmod 0755 "$WRAP"/*

# A clean environment as make deb's (Makefile DEB_ENV), plus the cross settings.
(cd "$SRC" && env -i PATH="$WRAP:$PATH" HOME="$HOME" \
	DEB_BUILD_OPTIONS="nocheck parallel=${CROSS_JOBS:-2}" DEB_BUILD_PROFILES="nocheck cross" \
	DEB_CFLAGS_APPEND="--sysroot=$S" DEB_LDFLAGS_APPEND="--sysroot=$S" CC="$CROSS_CC" \
	dpkg-buildpackage -us -uc -b -d -a "$ARCH") >"$DEB_DIR/build.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ -f "$DEB" ]; then
	ok "build ($DEB)"
else
	tail -n 40 "$DEB_DIR/build.log"
	bad build "dpkg-buildpackage -a $ARCH exited $rc"
	summary
fi

X=$DEB_DIR/root
dpkg-deb -x "$DEB" "$X"
B=$X/usr/sbin/zram-recompd
a=$(dpkg-deb -f "$DEB" Architecture)
m=$(readelf -h "$B" 2>/dev/null | sed -n 's/^ *Machine: *//p')
case $ARCH:$m in
arm64:AArch64 | armhf:ARM) ok "arch (Architecture $a, ELF machine $m)" ;;
*) bad arch "Architecture $a, ELF machine '$m'" ;;
esac
[ "$a" = "$ARCH" ] || bad arch "Architecture field '$a', expected $ARCH"

dep=$(dpkg-deb -f "$DEB" Depends)
missing=
for p in libc6 libsystemd0 liblz4-1 libzstd1; do
	echo "$dep" | grep -qE "(^|, )$p( |,|$)" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	bad depends "lacks$missing: $dep"
elif echo "$dep" | grep -qE 'lzo|cmocka'; then
	bad depends "a test-only library: $dep"
else
	ok "depends ($dep)"
fi

# The same files as the host's package: the list of `make install` into debian/, which does
# not depend on the architecture.
want="usr/sbin/zram-recompd usr/share/man/man8/zram-recompd.8.gz
usr/share/man/man5/zram-recompd.conf.5.gz usr/share/bash-completion/completions/zram-recompd
etc/zram-recompd.conf lib/systemd/system/zram-recompd.service
lib/systemd/system/zram-recompd-once.service lib/systemd/system/zram-recompd-once.timer
lib/systemd/system/zram-recompd-backing.service
lib/systemd/system/systemd-zram-setup@.service.d/zram-recompd.conf
lib/systemd/system/zramswap.service.d/zram-recompd.conf"
lack=
for f in $want; do
	[ -f "$X/$f" ] || lack="$lack $f"
done
if [ -z "$lack" ]; then
	ok "contents ($(echo "$want" | wc -w) files)"
else
	bad contents "missing:$lack"
fi

if ! readelf -h "$B" | grep -q 'Type:.*DYN'; then
	bad hardening "not PIE"
elif ! readelf -d "$B" | grep -q 'FLAGS.*BIND_NOW' || ! readelf -lW "$B" | grep -q GNU_RELRO; then
	bad hardening "no full RELRO (BIND_NOW)"
elif ! readelf -sW --dyn-syms "$B" | grep -q '__[a-z_]*_chk'; then
	bad hardening "no fortified function"
else
	ok "hardening (PIE, BIND_NOW, RELRO, _FORTIFY_SOURCE)"
fi

if lintian --fail-on error,warning --display-info "$CHANGES" >"$DEB_DIR/lintian.log" 2>&1; then
	ok "lintian ($(grep -c . "$DEB_DIR/lintian.log") lines of info/overrides)"
else
	cat "$DEB_DIR/lintian.log"
	bad lintian "errors or warnings on $CHANGES"
fi

LIBS=$S/lib/$CROSS_TRIPLET:$S/usr/lib/$CROSS_TRIPLET
if out=$("$CROSS_QEMU" "$S/lib/$CROSS_LDSO" --library-path "$LIBS" "$B" --version 2>&1) &&
	echo "$out" | grep -q "$VERSION"; then
	ok "runs ($(echo "$out" | head -n 1) under $CROSS_QEMU_NAME)"
else
	bad runs "$B --version: $out"
fi
summary
