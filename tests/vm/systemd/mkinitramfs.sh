#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the initramfs of the systemd VM test (run-systemd.sh): the host's systemd (Debian 12:
# systemd 252) boots as PID 1 from it (rdinit=/usr/lib/systemd/systemd) and starts the test
# driver unit zram-recompd-vmtest.service (systemd.unit=).
#
# Usage: tests/vm/systemd/mkinitramfs.sh OUT.cpio.gz
# Contents, in a merged-/usr layout (/bin, /sbin, /lib, /lib64 are links into /usr):
#   - /usr/lib/systemd (without the generators, which only cost boot time here), /etc/systemd,
#     systemctl, journalctl, systemd-analyze, and every shared library ldd lists for them;
#   - static busybox with its applet links (not init, halt, poweroff, reboot: the driver calls
#     `busybox reboot -f`), which also provides /bin/kill for the unit's ExecReload=;
#   - $BUILDDIR/zram-recompd as /usr/sbin/zram-recompd, systemd/zram-recompd.service installed
#     as `make install` does (@SBINDIR@ = /usr/sbin, @SYSCONFDIR@ = /etc), /etc/zram-recompd.conf
#     for the test, and the drop-in vmtest-watchdog.conf (WatchdogSec=3s);
#   - the driver: zram-recompd-vmtest.service running /vm/vmtest.sh, and the watchdog check's
#     negative control vmtest-watchdog-control.service;
#   - passwd, group, os-release, a fixed machine-id; 16384 pagegen pages in /vm/data/pages.bin;
#   - systemd-sysusers and systemd-tmpfiles-setup{,-dev} masked (their programs are not copied).
# Environment: BUILDDIR (default build), VM_SEED (default 1).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
VMDIR=$(cd "$HERE/.." && pwd)
TOP=$(cd "$VMDIR/../.." && pwd)
. "$VMDIR/host-lib.sh"

OUT=${1:?usage: mkinitramfs.sh OUT.cpio.gz}
BUILDDIR=${BUILDDIR:-build}
case $BUILDDIR in
/*) ;;
*) BUILDDIR=$TOP/$BUILDDIR ;;
esac
PAGEGEN=$BUILDDIR/tools/pagegen
RECOMPD=$BUILDDIR/zram-recompd

[ -x "$RECOMPD" ] || vm_die "$RECOMPD missing (run: make)"
[ -x "$PAGEGEN" ] || vm_die "$PAGEGEN missing (run: make tools)"
SYSTEMD=/usr/lib/systemd/systemd
[ -x "$SYSTEMD" ] || vm_die "$SYSTEMD missing: the systemd VM test uses the host's systemd"
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] || vm_die "busybox not found (apt-get install busybox-static)"
for c in systemctl journalctl systemd-analyze; do
	command -v "$c" >/dev/null 2>&1 || vm_die "$c not found"
done

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/zram-recompd-sd-initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

mkdir -p "$STAGE/usr/bin" "$STAGE/usr/sbin" "$STAGE/usr/lib" "$STAGE/usr/lib64" "$STAGE/etc" \
	"$STAGE/dev" "$STAGE/proc" "$STAGE/sys" "$STAGE/run" "$STAGE/tmp" "$STAGE/var/lib" \
	"$STAGE/var/tmp" "$STAGE/root" "$STAGE/vm/data"
chmod 1777 "$STAGE/tmp" "$STAGE/var/tmp"
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$STAGE/$d"
done

# copy_libs FILE: every shared object ldd resolves for FILE, at its own path in the image.
copy_libs() {
	ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
}

# copy_bin FILE [DEST]: a program and its libraries.
copy_bin() {
	dest=${2:-$1}
	mkdir -p "$STAGE$(dirname "$dest")"
	cp -L "$1" "$STAGE$dest"
	copy_libs "$1"
}

# systemd: its private directory (binaries, units, presets...), configuration, tools.
cp -a /usr/lib/systemd "$STAGE/usr/lib/"
rm -rf "$STAGE/usr/lib/systemd/system-generators" "$STAGE/usr/lib/systemd/user-generators"
find "$STAGE/usr/lib/systemd" -type f -perm -u+x | while read -r f; do
	copy_libs "${f#"$STAGE"}"
done
[ -d /etc/systemd ] && cp -a /etc/systemd "$STAGE/etc/"
# The host's enablement links (getty, networking, timers...) would only slow the boot.
find "$STAGE/etc/systemd/system" -mindepth 1 -maxdepth 1 -name '*.wants' -exec rm -rf {} + \
	2>/dev/null || true
# Units whose programs (systemd-sysusers, systemd-tmpfiles) and data are not in the image:
# masked, instead of failing at every boot.
mkdir -p "$STAGE/etc/systemd/system"
for u in systemd-sysusers.service systemd-tmpfiles-setup.service \
	systemd-tmpfiles-setup-dev.service; do
	ln -sf /dev/null "$STAGE/etc/systemd/system/$u"
done
for c in systemctl journalctl systemd-analyze; do
	copy_bin "$(command -v "$c")" "/usr/bin/$c"
done

# busybox and its applets, where nothing else has the name.
copy_bin "$BUSYBOX" /usr/bin/busybox
"$BUSYBOX" --list | while read -r a; do
	case $a in
	busybox | init | linuxrc | halt | poweroff | reboot) continue ;;
	esac
	[ -e "$STAGE/usr/bin/$a" ] || [ -e "$STAGE/usr/sbin/$a" ] ||
		ln -s busybox "$STAGE/usr/bin/$a"
done

# Identity files systemd and the tools expect.
cp /etc/passwd /etc/group "$STAGE/etc/"
cp -L /usr/lib/os-release "$STAGE/usr/lib/os-release"
ln -s ../usr/lib/os-release "$STAGE/etc/os-release"
echo 5a9c0e7d3b8f41e2a6d4c1b09f7e2d35 >"$STAGE/etc/machine-id"
echo zram-recompd-vm >"$STAGE/etc/hostname"

# zram-recompd, its unit as `make install` writes it, and the test's configuration.
copy_bin "$RECOMPD" /usr/sbin/zram-recompd
U=$STAGE/usr/lib/systemd/system
sed -e 's|@SBINDIR@|/usr/sbin|g' -e 's|@SYSCONFDIR@|/etc|g' "$TOP/systemd/zram-recompd.service" \
	>"$U/zram-recompd.service"
mkdir -p "$STAGE/etc/systemd/system/zram-recompd.service.d"
cp "$HERE/vmtest-watchdog.conf" "$STAGE/etc/systemd/system/zram-recompd.service.d/"
cp "$HERE/zram-recompd.conf" "$STAGE/etc/zram-recompd.conf"
mkdir -p "$STAGE/etc/zram-recompd.conf.d"

# The driver.
cp "$HERE/zram-recompd-vmtest.service" "$HERE/vmtest-watchdog-control.service" "$U/"
install -m 0755 "$HERE/vmtest.sh" "$STAGE/vm/vmtest.sh"
cp "$HERE/zram-recompd.conf" "$STAGE/vm/zram-recompd.conf"
"$PAGEGEN" 16384 "${VM_SEED:-1}" >"$STAGE/vm/data/pages.bin"

mkdir -p "$(dirname "$OUT")"
(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
vm_log "initramfs $OUT ($(($(wc -c <"$OUT") / 1024)) KiB, systemd $(systemctl --version |
	sed -n '1s/^systemd \([0-9]*\).*/\1/p'))"
