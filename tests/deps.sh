#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian/Ubuntu packages a target needs, when missing: `make demo`, `make check`
# and `make bench` run this first, before anything compiles, so each works as the first
# command on a fresh machine (as root, or with sudo). Plain `make` and `make install` never
# call it (packagers build without network).
# Usage: tests/deps.sh [GROUP...]   groups: build, vm, test, fuzz, deb, cross (default: all =
# make deps)
#   build  compiler and the libraries zram-recompd links (libcryptsetup-dev: its header;
#          the library is loaded with dlopen when a backing file is set up)
#   vm     qemu (qemu-system-arm: qemu-system-aarch64 for the 6.12-arm64 kernel), busybox
#          and what building a test kernel takes (tests/vm; the arm64 kernel also needs the
#          cross group's gcc-aarch64-linux-gnu, which build-kernel.sh installs when missing)
#   test   cmocka, man, python3 and strace for the test tiers; Debian's 6.12 kernel source
#   fuzz   clang and libFuzzer (tests/fuzz: make fuzz, the fuzz tier of make check). On
#          Debian 12 clang is clang-14, whose libclang_rt.fuzzer-x86_64.a (and the ASan/UBSan
#          runtimes) come from libclang-rt-14-dev, which clang-14 only recommends: named
#          here through libclang-rt-dev, the version-less package of the default clang.
#   cross  Debian's cross compilers for arm64 and armhf (the cross tier, make cross,
#          make deb-cross): host programs with their own libc headers under /usr/TRIPLET.
#          The targets' libraries and qemu-user are not installed: tests/cross/lib.sh
#          fetches them into the cache.
#   deb    what `make deb` and the deb tier of make check use: dpkg-buildpackage
#          (dpkg-dev), debhelper, lintian, git (`git ls-files` stages the package's source).
#          No fakeroot: the package says Rules-Requires-Root: no. Its Build-Depends are
#          the build and test groups.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
#
# The VM tier's second kernel, 7.3, is not a Debian 12 package: tests/vm/build-kernel.sh
# downloads linux-source-7.3 from trixie-backports into its cache with apt-get and dpkg-deb
# (a private apt configuration, checked with debian-archive-keyring; nothing installed). It
# builds with the same tools as 6.12 (7.3 needs gcc >= 8.1, binutils >= 2.30; Debian 12 has 12.2
# and 2.40).
set -eu

BUILD="build-essential pkg-config libsystemd-dev liblz4-dev libzstd-dev liblzo2-dev zlib1g-dev
libcryptsetup-dev"
VM="qemu-system-x86 qemu-system-arm busybox-static zstd cpio xz-utils kmod bc bison flex libelf-dev libssl-dev
debian-archive-keyring e2fsprogs libcryptsetup12"
TEST="libcmocka-dev man-db groff-base python3 strace linux-source-6.12"
FUZZ="clang libclang-rt-dev"
DEB="dpkg-dev debhelper lintian git"
CROSS="gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf"

[ $# -gt 0 ] || set -- build vm test fuzz deb cross
PKGS=
for g in "$@"; do
	case $g in
	build) PKGS="$PKGS $BUILD" ;;
	vm) PKGS="$PKGS $VM" ;;
	test) PKGS="$PKGS $TEST" ;;
	fuzz) PKGS="$PKGS $FUZZ" ;;
	deb) PKGS="$PKGS $DEB" ;;
	cross) PKGS="$PKGS $CROSS" ;;
	*)
		echo "deps: unknown group '$g' (build, vm, test, fuzz, deb, cross)" >&2
		exit 2
		;;
	esac
done

missing=""
for p in $PKGS; do
	case " $missing " in *" $p "*) continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all packages present ($*)"
	exit 0
fi
echo "deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "deps: missing packages:$missing; run as root (or install sudo)" >&2
		exit 1
	}
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
