#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Cross-builds zram-recompd, its unit tests and test tools for ARCH (arm64 or armhf) into
# build-ARCH/ with Debian's cross compiler and a sysroot of the target's -dev packages
# (tests/cross/lib.sh: fetched into the cache, nothing installed but the compiler), with
# WERROR=1, and writes build-ARCH/run, which runs a target program under qemu-user:
#   build-arm64/run build-arm64/tests/test_util
# Usage: tests/cross/build.sh ARCH [MAKE ARGUMENT...]
# Prints "cross-build-ARCH: 1 passed, 0 failed" (or failed, or skipped with the reason when the
# compiler cannot be installed here) as its last line, for tests/check.sh.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
# shellcheck source=tests/cross/lib.sh
. "$TOP/tests/cross/lib.sh"

[ $# -ge 1 ] || vm_die "usage: tests/cross/build.sh ARCH (one of: $CROSS_ARCHES_KNOWN)"
ARCH=$1
shift
cross_arch_spec "$ARCH"
NAME=cross-build-$ARCH
BUILDDIR=build-$ARCH

if ! command -v "$CROSS_CC" >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; then
		"$TOP/tests/deps.sh" cross >&2 || {
			echo "$NAME: 0 passed, 1 failed (tests/deps.sh cross could not install $CROSS_CC)"
			exit 1
		}
	else
		echo "skipped: $CROSS_CC not installed and not root (tests/deps.sh cross installs it)"
		echo "$NAME: 0 passed, 0 failed, 1 skipped"
		exit 0
	fi
fi
# Network (once; the cache after): a failure is a failure, not a skip.
(cross_qemu "$ARCH" && cross_sysroot "$ARCH") || {
	echo "$NAME: 0 passed, 1 failed (no sysroot or qemu for $ARCH: see the messages above)"
	exit 1
}

# pkg-config of the host, reading only the sysroot's .pc files and prefixing their paths.
# MAKEFLAGS and make's other variables of a calling make must not reach this one.
t0=$(vm_now)
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	PKG_CONFIG_LIBDIR="$CROSS_SYSROOT/usr/lib/$CROSS_TRIPLET/pkgconfig:$CROSS_SYSROOT/usr/share/pkgconfig" \
	PKG_CONFIG_SYSROOT_DIR="$CROSS_SYSROOT" PKG_CONFIG_PATH= \
	make -j"${CROSS_JOBS:-2}" --no-print-directory BUILDDIR="$BUILDDIR" WERROR=1 \
	CC="$CROSS_CC --sysroot=$CROSS_SYSROOT" PKG_CONFIG=pkg-config "$@" all unit-bins tools >&2; then
	:
else
	echo "$NAME: 0 passed, 1 failed (make for $ARCH failed: see above)"
	exit 1
fi
# The runner: qemu-user running the sysroot's dynamic loader, which loads the program and the
# sysroot's libraries (tests/cross/lib.sh: why not qemu's -L).
LIBS=$CROSS_SYSROOT/lib/$CROSS_TRIPLET:$CROSS_SYSROOT/usr/lib/$CROSS_TRIPLET
cat >"$BUILDDIR/run.tmp" <<EOF
#!/bin/sh
# Written by tests/cross/build.sh: runs a $ARCH program under qemu-user with the sysroot.
exec '$CROSS_QEMU' '$CROSS_SYSROOT/lib/$CROSS_LDSO' --library-path '$LIBS' "\$@"
EOF
chmod 0755 "$BUILDDIR/run.tmp"
mv "$BUILDDIR/run.tmp" "$BUILDDIR/run"
# The build must be for the target: the runner says so through the program itself.
if ! "$BUILDDIR/run" "$BUILDDIR/zram-recompd" --version >"$BUILDDIR/run.out" 2>&1; then
	cat "$BUILDDIR/run.out"
	echo "$NAME: 0 passed, 1 failed ($BUILDDIR/zram-recompd --version under $CROSS_QEMU_NAME failed)"
	exit 1
fi
echo "built $BUILDDIR in $(($(vm_now) - t0)) s: $(file -b "$BUILDDIR/zram-recompd" 2>/dev/null | cut -d, -f1-2)"
echo "$NAME: 1 passed, 0 failed"
