#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages that building and `make check` need, when missing.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
set -eu

# The VM tier's second kernel, 7.3, is not a Debian 12 package: tests/vm/build-kernel.sh
# downloads linux-source-7.3 from trixie-backports into its cache with apt-get and dpkg-deb
# (a private apt configuration, checked with debian-archive-keyring; nothing installed). It
# builds with the same tools as 6.12 (7.3 needs gcc >= 8.1, binutils >= 2.30; Debian 12 has 12.2
# and 2.40).
PKGS="build-essential pkg-config libsystemd-dev liblz4-dev libzstd-dev liblzo2-dev
zlib1g-dev libinih-dev libcmocka-dev man-db groff-base zstd python3
qemu-system-x86 busybox-static linux-source-6.12 bc bison flex libelf-dev libssl-dev
cpio xz-utils kmod debian-archive-keyring"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi
echo "deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
