#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the gzip'd cpio initramfs of a test VM.
#
# Usage: tests/vm/mkinitramfs.sh OUT.cpio.gz [tests|demo|systemd|systemd-zram-generator|
#                                              systemd-zram-tools]
#
# tests, demo (run.sh, demo.sh, the bench): busybox as PID 1.
#   Static busybox (applet links are made by /init), $BUILDDIR/zram-recompd and
#   $BUILDDIR/tools/swapload (the swap workload of swap_short), tests/vm/guest/*
#   as /init, /vm/lib.sh and /vm/adopt_lib.sh, tests/vm/scenarios/*.sh, and the page data in /vm/data:
#     pages.bin   VM_PAGES (default 8192 = 32 MiB) pagegen pages, seed VM_SEED (default 1),
#                 or the pages of CORPUS=file (plain or .zst, whole 4 KiB pages)
#     random.bin  256 random pages (pagegen --kind random): already-compressed data
#   and /vm/kselftest/zram: zram02.sh and zram_lib.sh of the kernel's own selftest, from the
#   source tree of the kernel booted (VM_KSRC, set by host-lib.sh's vm_kernel), for the
#   zram_selftest scenario; never copied into the repository.
#   /vm/mode says which of the two /init runs: the scenarios named in /vm/tests (VM_TESTS,
#   default every scenario; each limited to VM_SCENARIO_TIMEOUT s, default 120) or the demo.
#   VM_ARCH=arm64 (run.sh, for the 6.12-arm64 kernel): the same image for arm64, from
#   programs of that architecture: busybox (static), dash and GNU find from Debian's arm64
#   packages (tests/cross/lib.sh's cross_guest: fetched into the cache, unpacked with
#   dpkg-deb -x), zram-recompd and swapload of the cross build (VM_TARGET_BUILDDIR, default
#   build-arm64: tests/cross/build.sh arm64), each with the libraries its ELF header names
#   (readelf: the host's ldd cannot run an arm64 loader), taken from that userland or the
#   cross sysroot; the page data as for x86-64 (pagegen runs on the host). For the
#   autopkgtest scenario: the arm64 .deb of `make deb-cross ARCH=arm64`
#   (ZRAM_RECOMPD_DEB_ARM64, default VM_TARGET_BUILDDIR/deb/zram-recompd_VERSION_arm64.deb)
#   unpacked with dpkg-deb -x into /vm/pkg, "Package Version" in /vm/pkg.version, and the
#   package's debian/tests/fake-sysfs (etc/debian/tests) as /vm/autopkgtest/fake-sysfs; dash
#   and find in /vm/debian/bin. No strace, mke2fs or libcryptsetup (x86-64 programs of the
#   host): the scenarios that need them are not in the arm64 kernel's list (VM_ARM64_TESTS).
#
# systemd (run-systemd.sh): the host's systemd (Debian 12: systemd 252) as PID 1
#   (rdinit=/usr/lib/systemd/systemd), starting the driver unit zram-recompd-vmtest.service
#   (systemd.unit=). In a merged-/usr layout (/bin, /sbin, /lib, /lib64 are links into /usr):
#   - /usr/lib/systemd (without the generators, which only cost boot time here), /etc/systemd,
#     systemctl, journalctl, systemd-analyze;
#   - static busybox with its applet links (not init, halt, poweroff, reboot: the driver calls
#     `busybox reboot -f`), which also provides /bin/kill for the unit's ExecReload=;
#   - zram-recompd as its Debian package ships it (`make deb`; ZRAM_RECOMPD_DEB, default
#     $BUILDDIR/deb/zram-recompd_VERSION_ARCH.deb): the .deb's files unpacked into the image
#     (the program in /usr/sbin, the units and the zram-generator drop-in in
#     /lib/systemd/system, which is /usr/lib/systemd/system here, /etc/zram-recompd.conf,
#     man pages), its md5sums as /vm/package.md5sums and "Package Version" as /vm/package (the
#     driver checks the booted files against them); then tests/vm/systemd's zram-recompd.conf
#     over /etc/zram-recompd.conf and the drop-in vmtest-watchdog.conf (WatchdogSec=3s; the
#     systemd boot only, whose checks it is for);
#   - the driver: zram-recompd-vmtest.service running /vm/vmtest.sh and the watchdog check's
#     negative control vmtest-watchdog-control.service;
#   - passwd, group, os-release, a fixed machine-id; 16384 pagegen pages (seed VM_SEED) in
#     /vm/data/pages.bin;
#   - systemd-sysusers and systemd-tmpfiles-setup{,-dev} masked (their programs are not copied).
#
# systemd-zram-generator, systemd-zram-tools (run-systemd.sh's hook boots): the systemd image,
#   and a zram setup tool as Debian 12 ships it, with what its boot needs (vm_hook_debs in
#   host-lib.sh fetches the .debs into the cache once):
#   - the tool's package unpacked (dpkg-deb), its md5sums as /vm/hook.md5sums:
#     systemd-zram-generator (the generator in /usr/lib/systemd/system-generators, the only
#     generator in the image, and systemd-zram-setup@.service) with
#     systemd/zram-generator.conf as /etc/systemd/zram-generator.conf; or zram-tools
#     (/usr/sbin/zramswap, zramswap.service, enabled with `systemctl --root` from its
#     [Install] section) with systemd/zramswap.default as /etc/default/zramswap;
#   - udev (the package at the host's systemd version, and the host's /usr/lib/udev rules):
#     systemd activates a swap on /dev/zram0 only once udev announced the device;
#   - kmod (modprobe, for the tools and modprobe@.service), util-linux's mkswap, swapon,
#     swapoff, bash (zramswap is a bash script), systemd-detect-virt (the generator asks it);
#     the test kernel has zram built in, so /usr/lib/modules/VM_KERNEL_RELEASE has a
#     modules.builtin naming it, indexed by the host's depmod: modprobe zram then succeeds
#     as on a kernel with zram built in;
#   - zram-recompd.service enabled (`systemctl --root enable`, as the package's postinst
#     does); /etc/zram-recompd.conf with two secondaries (zstd deflate);
#   - the driver zram-recompd-hooktest.service (after multi-user.target) running
#     /vm/hooktest.sh (and /vm/dicttest.sh, systemd-creds), the tool's name in /vm/hook, and
#     tests/tools/swapload.
#
# systemd-backing (run-systemd.sh's backing boot): the systemd image with mke2fs, swapload,
#   systemd/backing.conf appended to /etc/zram-recompd.conf (writeback, and a [zram0] with an
#   encrypted backing file on the ext4 the driver mounts), and the driver
#   zram-recompd-backingtest.service running /vm/backingtest.sh; zram-recompd.service is
#   started by the driver, not enabled, without the 3 s watchdog drop-in (the unit's 60 s).
#   libcryptsetup.so.12 (which `backing setup` dlopens) is in every systemd image.
#
# Every program comes with the shared libraries ldd lists for it, at the same paths (the
# dynamic loader included). Environment: BUILDDIR (default build), ZRAM_RECOMPD_DEB (the
# systemd image's package), VM_KERNEL_RELEASE (the hook images' kernel release, uname -r).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
VM_DIR=$HERE
# shellcheck source=tests/vm/host-lib.sh
. "$HERE/host-lib.sh"

OUT=${1:?usage: mkinitramfs.sh OUT.cpio.gz [tests|demo|systemd|systemd-zram-generator|systemd-zram-tools|systemd-zram-tools-adopt|systemd-backing]}
MODE=${2:-tests}
case $MODE in
tests | demo | systemd | systemd-zram-generator | systemd-zram-tools | systemd-zram-tools-adopt | \
	systemd-backing) ;;
*) vm_die "unknown image '$MODE' (tests, demo, systemd, systemd-zram-generator, systemd-zram-tools, systemd-zram-tools-adopt or systemd-backing)" ;;
esac
BUILDDIR=${BUILDDIR:-build}
case $BUILDDIR in
/*) ;;
*) BUILDDIR=$TOP/$BUILDDIR ;;
esac
PAGEGEN=$BUILDDIR/tools/pagegen
RECOMPD=$BUILDDIR/zram-recompd

[ -x "$PAGEGEN" ] || vm_die "$PAGEGEN missing (run: make BUILDDIR=${BUILDDIR#"$TOP"/} tools)"
IARCH=${VM_ARCH:-x86_64}
case $IARCH in
x86_64)
	BUSYBOX=$(command -v busybox || true)
	[ -n "$BUSYBOX" ] || vm_die "busybox not found (apt-get install busybox-static)"
	;;
arm64)
	[ "$MODE" = tests ] || vm_die "VM_ARCH=arm64: only the tests image is made for arm64"
	# shellcheck source=tests/cross/lib.sh
	. "$TOP/tests/cross/lib.sh"
	cross_guest arm64
	cross_sysroot arm64
	BUSYBOX=$CROSS_GUEST/bin/busybox
	TBUILD=${VM_TARGET_BUILDDIR:-build-arm64}
	case $TBUILD in
	/*) ;;
	*) TBUILD=$TOP/$TBUILD ;;
	esac
	RECOMPD=$TBUILD/zram-recompd
	;;
*) vm_die "unknown VM_ARCH '$IARCH' (x86_64 or arm64)" ;;
esac

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/zram-recompd-initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# copy_libs FILE: every shared object ldd resolves for FILE, each at its own absolute path
# inside the image (so the loader path baked into the binary works).
copy_libs() {
	ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
}

# copy_libs_target FILE: for a program of another architecture (VM_ARCH=arm64), its ELF
# interpreter and every library its dynamic section names (NEEDED), recursively, from the
# VM userland (CROSS_GUEST) or the cross sysroot, at the same path in the image
# (/lib/TRIPLET, /usr/lib/TRIPLET: the loader's built-in search path, no ld.so.cache).
copy_libs_target() {
	_interp=$(readelf -lW "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	if [ -n "$_interp" ] && [ ! -e "$STAGE$_interp" ]; then
		for _r in "$CROSS_GUEST" "$CROSS_SYSROOT" ''; do
			[ -n "$_r" ] || vm_die "$1: interpreter $_interp not in $CROSS_GUEST or $CROSS_SYSROOT"
			[ -e "$_r$_interp" ] || continue
			mkdir -p "$STAGE$(dirname "$_interp")"
			cp -L "$_r$_interp" "$STAGE$_interp"
			break
		done
	fi
	for _n in $(readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		_found=
		for _d in "/lib/$CROSS_TRIPLET" "/usr/lib/$CROSS_TRIPLET"; do
			[ -e "$STAGE$_d/$_n" ] && _found=1
		done
		[ -z "$_found" ] || continue
		for _r in "$CROSS_GUEST" "$CROSS_SYSROOT"; do
			for _d in "/lib/$CROSS_TRIPLET" "/usr/lib/$CROSS_TRIPLET"; do
				[ -e "$_r$_d/$_n" ] || continue
				mkdir -p "$STAGE$_d"
				cp -L "$_r$_d/$_n" "$STAGE$_d/$_n"
				copy_libs_target "$STAGE$_d/$_n"
				_found=1
				break 2
			done
		done
		[ -n "$_found" ] || vm_die "$1 needs $_n: not in $CROSS_GUEST or $CROSS_SYSROOT"
	done
}

# copy_bin FILE [DEST]: a program (at DEST in the image, default its own path) and its
# libraries.
copy_bin() {
	dest=${2:-$1}
	mkdir -p "$STAGE$(dirname "$dest")"
	cp -L "$1" "$STAGE$dest"
	if [ "$IARCH" = x86_64 ]; then
		copy_libs "$1"
	else
		copy_libs_target "$STAGE$dest"
	fi
}

# copy_dlopened SONAME: a library a program loads with dlopen() (so ldd of the program does
# not list it), at the path the host's loader cache gives it, with its own ldd dependencies.
# zram-recompd's `backing setup` loads libcryptsetup.so.12 (the backing_file_* scenarios, the
# systemd VM); a host without it gets a warning, and those scenarios report the daemon's
# error for the missing library.
copy_dlopened() {
	_lib=$("$(command -v ldconfig || echo /sbin/ldconfig)" -p 2>/dev/null | awk -v n="$1" '$1 == n && /x86-64/ { print $NF; exit }')
	if [ -z "$_lib" ] || [ ! -e "$_lib" ]; then
		vm_log "warning: $1 not found on this machine (apt-get install libcryptsetup12)"
		return 0
	fi
	copy_bin "$_lib"
}

# busybox_image tests|demo: the image of run.sh, demo.sh and the bench.
busybox_image() {
	copy_bin "$BUSYBOX" /bin/busybox
	ln -s busybox "$STAGE/bin/sh"
	if [ -x "$RECOMPD" ]; then
		copy_bin "$RECOMPD" /usr/sbin/zram-recompd
	else
		vm_log "warning: $RECOMPD not built; scenarios that need it will be skipped"
	fi
	[ "$IARCH" = x86_64 ] || target_extras
	# the encrypted backing file: libcryptsetup (dlopen'd by `backing setup`) and mke2fs,
	# which formats the ext4 image holding the backing file (backing_file_* scenarios)
	[ "$IARCH" != x86_64 ] || copy_dlopened libcryptsetup.so.12
	MKE2FS=$(command -v mke2fs || echo /sbin/mke2fs)
	if [ "$IARCH" != x86_64 ]; then
		:
	elif [ -x "$MKE2FS" ]; then
		copy_bin "$MKE2FS" /usr/sbin/mke2fs
	else
		vm_log "warning: mke2fs not found (tests/deps.sh vm: e2fsprogs); backing_file_* will be skipped"
	fi
	# the swap workload of swap_short (the bench copies its own as well)
	_swapload=$BUILDDIR/tools/swapload
	[ "$IARCH" = x86_64 ] || _swapload=$TBUILD/tools/swapload
	if [ -x "$_swapload" ]; then
		copy_bin "$_swapload" /usr/bin/swapload
	fi

	mkdir -p "$STAGE/vm/scenarios" "$STAGE/vm/data" "$STAGE/dev" "$STAGE/proc" \
		"$STAGE/sys" "$STAGE/tmp"
	install -m 0755 "$HERE/guest/init" "$STAGE/init"
	cp "$HERE/guest/lib.sh" "$STAGE/vm/lib.sh"
	cp "$HERE/guest/adopt_lib.sh" "$STAGE/vm/adopt_lib.sh"
	cp "$HERE/guest/demo-guest.sh" "$STAGE/vm/demo-guest.sh"
	cp "$HERE"/scenarios/*.sh "$STAGE/vm/scenarios/"
	# The strace_allowlist scenario: strace with its libraries, and the strace tier's call set.
	STRACE=$(command -v strace || true)
	if [ "$IARCH" != x86_64 ]; then
		:
	elif [ -n "$STRACE" ]; then
		copy_bin "$STRACE" /usr/bin/strace
	else
		vm_log "warning: strace not found (tests/deps.sh test); strace_allowlist will be skipped"
	fi
	cp "$TOP/tests/strace/trace.set" "$STAGE/vm/trace.set"
	# The kernel's own zram selftest (scenario zram_selftest), from the source tree of the
	# kernel this image boots (VM_KSRC, set by vm_kernel): packed, never kept in the repository.
	_kst=${VM_KSRC:-}/tools/testing/selftests/zram
	if [ -n "${VM_KSRC:-}" ] && [ -r "$_kst/zram02.sh" ] && [ -r "$_kst/zram_lib.sh" ]; then
		mkdir -p "$STAGE/vm/kselftest/zram"
		cp "$_kst/zram02.sh" "$_kst/zram_lib.sh" "$STAGE/vm/kselftest/zram/"
	else
		vm_log "warning: no zram selftest under '${VM_KSRC:-}' (VM_KSRC); zram_selftest will fail"
	fi
	echo "$1" >"$STAGE/vm/mode"
	echo "${VM_SCENARIO_TIMEOUT:-120}" >"$STAGE/vm/scenario-timeout"

	if [ -n "${VM_TESTS:-}" ]; then
		tests=$VM_TESTS
	else
		tests=$(cd "$HERE/scenarios" && printf '%s\n' *.sh | sed 's/\.sh$//' | tr '\n' ' ')
	fi
	echo "$tests" >"$STAGE/vm/tests"

	if [ -n "${CORPUS:-}" ]; then
		[ -r "$CORPUS" ] || vm_die "CORPUS=$CORPUS is not readable"
		case $CORPUS in
		*.zst) zstd -q -dc "$CORPUS" >"$STAGE/vm/data/pages.bin" ;;
		*) cp "$CORPUS" "$STAGE/vm/data/pages.bin" ;;
		esac
		size=$(wc -c <"$STAGE/vm/data/pages.bin")
		if [ $((size % 4096)) -ne 0 ] || [ "$size" -eq 0 ]; then
			vm_die "CORPUS=$CORPUS: $size bytes is not a whole number of 4 KiB pages"
		fi
		echo "corpus $(basename "$CORPUS")" >"$STAGE/vm/data/source"
	else
		"$PAGEGEN" "${VM_PAGES:-8192}" "${VM_SEED:-1}" >"$STAGE/vm/data/pages.bin"
		echo "pagegen ${VM_PAGES:-8192} pages, seed ${VM_SEED:-1}" >"$STAGE/vm/data/source"
	fi
	"$PAGEGEN" --kind random 256 7 >"$STAGE/vm/data/random.bin"
	if [ "$1" = demo ]; then
		WHAT=demo
	else
		WHAT="tests:$tests"
		[ "$IARCH" = x86_64 ] || WHAT="$IARCH $WHAT"
	fi
}

# target_extras: what only the arm64 image has (see the top): dash and GNU find in
# /vm/debian/bin, and the arm64 package with its autopkgtest.
target_extras() {
	mkdir -p "$STAGE/vm/debian/bin"
	copy_bin "$CROSS_GUEST/bin/dash" /vm/debian/bin/dash
	copy_bin "$CROSS_GUEST/usr/bin/find" /vm/debian/bin/find
	_ver=$(sed -n 's/^VERSION := //p' "$TOP/Makefile")
	_deb=${ZRAM_RECOMPD_DEB_ARM64:-$TBUILD/deb/zram-recompd_${_ver}_arm64.deb}
	if [ ! -f "$_deb" ]; then
		vm_log "warning: $_deb missing (make deb-cross ARCH=arm64); autopkgtest will be skipped"
		return 0
	fi
	mkdir -p "$STAGE/vm/pkg" "$STAGE/vm/autopkgtest"
	dpkg-deb -x "$_deb" "$STAGE/vm/pkg" || vm_die "dpkg-deb -x $_deb failed"
	[ -x "$STAGE/vm/pkg/usr/sbin/zram-recompd" ] || vm_die "$_deb has no /usr/sbin/zram-recompd"
	copy_libs_target "$STAGE/vm/pkg/usr/sbin/zram-recompd"
	dpkg-deb -f "$_deb" Package Version Architecture | sed 's/^[A-Za-z]*: //' | tr '\n' ' ' |
		sed 's/ $/\n/' >"$STAGE/vm/pkg.version"
	install -m 0755 "$TOP/etc/debian/tests/fake-sysfs" "$STAGE/vm/autopkgtest/fake-sysfs"
}

# systemd_image: the image of run-systemd.sh.
systemd_image() {
	SD=$HERE/systemd
	version=$(sed -n 's/^VERSION := //p' "$TOP/Makefile")
	DEB=${ZRAM_RECOMPD_DEB:-$BUILDDIR/deb/zram-recompd_${version}_$(dpkg --print-architecture).deb}
	[ -f "$DEB" ] || vm_die "$DEB missing (run: make deb)"
	# A package older than the program is the tree of an earlier build: booted, it failed
	# systemd_sandbox for a worker thread that the sources name (run.sh run directly, the
	# .deb from before the change). make check-vm runs make deb first.
	[ -n "${ZRAM_RECOMPD_DEB:-}" ] || [ -z "$(find "$BUILDDIR/zram-recompd" -newer "$DEB")" ] ||
		vm_die "$DEB is older than $BUILDDIR/zram-recompd (run: make deb)"
	SYSTEMD=/usr/lib/systemd/systemd
	[ -x "$SYSTEMD" ] || vm_die "$SYSTEMD missing: the systemd VM test uses the host's systemd"
	for c in systemctl journalctl systemd-analyze; do
		command -v "$c" >/dev/null 2>&1 || vm_die "$c not found"
	done

	mkdir -p "$STAGE/usr/bin" "$STAGE/usr/sbin" "$STAGE/usr/lib" "$STAGE/usr/lib64" \
		"$STAGE/etc" "$STAGE/dev" "$STAGE/proc" "$STAGE/sys" "$STAGE/run" "$STAGE/tmp" \
		"$STAGE/var/lib" "$STAGE/var/tmp" "$STAGE/root" "$STAGE/vm/data"
	chmod 1777 "$STAGE/tmp" "$STAGE/var/tmp"
	for d in bin sbin lib lib64; do
		ln -s "usr/$d" "$STAGE/$d"
	done

	# systemd: its private directory (binaries, units, presets...), configuration, tools.
	cp -a /usr/lib/systemd "$STAGE/usr/lib/"
	rm -rf "$STAGE/usr/lib/systemd/system-generators" "$STAGE/usr/lib/systemd/user-generators"
	find "$STAGE/usr/lib/systemd" -type f -perm -u+x | while read -r f; do
		copy_libs "${f#"$STAGE"}"
	done
	[ -d /etc/systemd ] && cp -a /etc/systemd "$STAGE/etc/"
	# The host's enablement links (getty, networking, timers...) would only slow the boot.
	find "$STAGE/etc/systemd/system" -mindepth 1 -maxdepth 1 -name '*.wants' \
		-exec rm -rf {} + 2>/dev/null || true
	# Units whose programs (systemd-sysusers, systemd-tmpfiles) and data are not in the
	# image: masked, instead of failing at every boot.
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

	# zram-recompd as the Debian package ships it: the .deb's data archive unpacked into the
	# image. /lib and /sbin are links into /usr here and stay links (--keep-directory-symlink),
	# so the package's /lib/systemd/system lands in /usr/lib/systemd/system as on a
	# merged-/usr system. Its md5sums (paths relative to /) let the driver check that the files
	# systemd runs are the package's.
	dpkg-deb --fsys-tarfile "$DEB" | tar -C "$STAGE" --keep-directory-symlink -xf - ||
		vm_die "unpacking $DEB into the image failed"
	dpkg-deb --info "$DEB" md5sums >"$STAGE/vm/package.md5sums" ||
		vm_die "$DEB has no md5sums"
	dpkg-deb -f "$DEB" Package Version | sed 's/^[A-Za-z]*: //' | tr '\n' ' ' |
		sed 's/ $/\n/' >"$STAGE/vm/package"
	[ -x "$STAGE/usr/sbin/zram-recompd" ] || vm_die "$DEB has no /usr/sbin/zram-recompd"
	copy_libs "$STAGE/usr/sbin/zram-recompd"
	# zram-recompd-backing.service's `backing setup` dlopens it (the package Recommends it)
	copy_dlopened libcryptsetup.so.12
	U=$STAGE/usr/lib/systemd/system
	mkdir -p "$STAGE/etc/systemd/system/zram-recompd.service.d"
	cp "$SD/vmtest-watchdog.conf" "$STAGE/etc/systemd/system/zram-recompd.service.d/"
	cp "$SD/zram-recompd.conf" "$STAGE/etc/zram-recompd.conf"

	# The driver and its units.
	cp "$SD/zram-recompd-vmtest.service" "$SD/vmtest-watchdog-control.service" "$U/"
	install -m 0755 "$SD/vmtest.sh" "$STAGE/vm/vmtest.sh"
	cp "$SD/zram-recompd.conf" "$STAGE/vm/zram-recompd.conf"
	"$PAGEGEN" 16384 "${VM_SEED:-1}" >"$STAGE/vm/data/pages.bin"
	WHAT="systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'), $(cat "$STAGE/vm/package")"
}

# unpack_deb DEB: a package's files into the image; /lib, /sbin... stay links into /usr.
unpack_deb() {
	dpkg-deb --fsys-tarfile "$1" | tar -C "$STAGE" --keep-directory-symlink -xf - ||
		vm_die "unpacking $1 into the image failed"
}

# hook_image zram-generator|zram-tools: the systemd image plus the setup tool (see the top).
hook_image() {
	tool=$1
	rel=${VM_KERNEL_RELEASE:?is needed (uname -r of the test kernel, for modules.builtin)}
	debs=$(vm_hook_debs) || exit 1
	pkg=$tool
	[ "$tool" = zram-generator ] && pkg=systemd-zram-generator
	tooldeb=$(echo "$debs" | grep "/${pkg}_") || vm_die "no .deb of $pkg"
	udevdeb=$(echo "$debs" | grep '/udev_') || vm_die "no .deb of udev"
	[ -x "$BUILDDIR/tools/swapload" ] ||
		vm_die "$BUILDDIR/tools/swapload missing (run: make BUILDDIR=${BUILDDIR#"$TOP"/} tools)"

	# udev: the host's rules (systemd's 99-systemd.rules tags block devices for systemd),
	# then the package, its helpers and udevadm with their libraries.
	cp -a /usr/lib/udev "$STAGE/usr/lib/"
	unpack_deb "$udevdeb"
	copy_libs "$STAGE/usr/bin/udevadm"
	find "$STAGE/usr/lib/udev" -maxdepth 1 -type f -perm -u+x | while read -r f; do
		copy_libs "$f"
	done
	# Real tools in place of busybox's applets of the same name.
	for t in modprobe depmod mkswap swapon swapoff bash; do
		rm -f "$STAGE/usr/bin/$t" "$STAGE/usr/sbin/$t"
	done
	copy_bin "$(readlink -f "$(command -v modprobe || echo /sbin/modprobe)")" /usr/bin/kmod
	ln -s ../bin/kmod "$STAGE/usr/sbin/modprobe"
	for t in mkswap swapon swapoff; do
		copy_bin "$(command -v "$t" || echo "/sbin/$t")" "/usr/sbin/$t"
	done
	copy_bin /bin/bash /usr/bin/bash
	copy_bin "$(command -v systemd-detect-virt)" /usr/bin/systemd-detect-virt
	copy_bin "$BUILDDIR/tools/swapload" /usr/bin/swapload
	# zram is built into the test kernel: modules.builtin says so (the path it has in the
	# kernel tree), and depmod indexes it, so that modprobe zram succeeds.
	mkdir -p "$STAGE/usr/lib/modules/$rel"
	echo kernel/drivers/block/zram/zram.ko >"$STAGE/usr/lib/modules/$rel/modules.builtin"
	: >"$STAGE/usr/lib/modules/$rel/modules.order"
	depmod -b "$STAGE" "$rel" 2>/dev/null || vm_die "depmod for $rel failed"

	# The tool as Debian ships it, configured like an admin would.
	unpack_deb "$tooldeb"
	dpkg-deb --info "$tooldeb" md5sums >"$STAGE/vm/hook.md5sums" || vm_die "$tooldeb has no md5sums"
	dpkg-deb -f "$tooldeb" Package Version | sed 's/^[A-Za-z]*: //' | tr '\n' ' ' |
		sed 's/ $/\n/' >"$STAGE/vm/hook.package"
	echo "$tool" >"$STAGE/vm/hook"
	units="zram-recompd.service"
	if [ "$tool" = zram-generator ]; then
		[ -x "$STAGE/usr/lib/systemd/system-generators/zram-generator" ] ||
			vm_die "$tooldeb has no zram-generator"
		copy_libs "$STAGE/usr/lib/systemd/system-generators/zram-generator"
		cp "$SD/zram-generator.conf" "$STAGE/etc/systemd/zram-generator.conf"
	else
		mkdir -p "$STAGE/etc/default"
		cp "$SD/zramswap.default" "$STAGE/etc/default/zramswap"
		units="$units zramswap.service"
	fi
	# Enabled through their [Install] sections, as deb-systemd-helper does on a real system.
	# shellcheck disable=SC2086 # a word list
	systemctl --root="$STAGE" --quiet enable $units || vm_die "systemctl --root enable $units failed"
	# The daemon's configuration with two secondaries.
	sed 's/^recompress-algorithms = .*/recompress-algorithms = zstd deflate/' \
		"$SD/zram-recompd.conf" >"$STAGE/etc/zram-recompd.conf"
	# Parts of multi-user.target this image cannot run (no D-Bus, no getty): masked.
	for u in getty.target dbus.service dbus.socket systemd-logind.service; do
		ln -sf /dev/null "$STAGE/etc/systemd/system/$u"
	done
	cp "$SD/zram-recompd-hooktest.service" "$STAGE/usr/lib/systemd/system/"
	install -m 0755 "$SD/hooktest.sh" "$STAGE/vm/hooktest.sh"
	# the encrypted dictionary round trip (zram-generator boot): systemd-creds for the
	# package's zram-recompd-dict-save@.service
	install -m 0644 "$SD/dicttest.sh" "$STAGE/vm/dicttest.sh"
	copy_bin "$(command -v systemd-creds)" /usr/bin/systemd-creds
	udevver=${udevdeb##*/udev_}
	WHAT="$WHAT, $(cat "$STAGE/vm/hook.package"), udev ${udevver%_*}"
	# The unit's own WatchdogSec (60 s): only the systemd boot checks the watchdog, and with
	# both host cores busy a daemon under this boot's swap workload went over 3 s without a
	# ping once and was killed.
	rm -f "$STAGE/etc/systemd/system/zram-recompd.service.d/vmtest-watchdog.conf"
}

case $MODE in
systemd) systemd_image ;;
systemd-zram-generator | systemd-zram-tools)
	systemd_image
	hook_image "${MODE#systemd-}"
	;;
systemd-zram-tools-adopt)
	# zram-tools set zram0 up at a boot before zram-recompd was installed: its drop-in for
	# zramswap.service is masked (systemd/adopttest.sh). The daemon's own unit orders it
	# after zramswap.service.
	systemd_image
	hook_image zram-tools
	echo zram-tools-adopt >"$STAGE/vm/hook"
	mkdir -p "$STAGE/etc/systemd/system/zramswap.service.d"
	ln -s /dev/null "$STAGE/etc/systemd/system/zramswap.service.d/zram-recompd.conf"
	install -m 0644 "$SD/adopttest.sh" "$STAGE/vm/adopttest.sh"
	;;
systemd-backing)
	# The packaged units set up an encrypted backing file for zram0 (zram-recompd-backing.service,
	# pulled in by zram-recompd.service; systemd/backingtest.sh). Not enabled: the driver mounts the ext4 for the file
	# first, then starts it. mke2fs and swapload (the swap workload) from the host and the
	# build; /etc/zram-recompd.conf gets systemd/backing.conf's writeback and [zram0].
	systemd_image
	MKE2FS=$(command -v mke2fs || echo /sbin/mke2fs)
	[ -x "$MKE2FS" ] || vm_die "mke2fs not found (tests/deps.sh vm: e2fsprogs)"
	copy_bin "$MKE2FS" /usr/sbin/mke2fs
	[ -x "$BUILDDIR/tools/swapload" ] ||
		vm_die "$BUILDDIR/tools/swapload missing (run: make BUILDDIR=${BUILDDIR#"$TOP"/} tools)"
	copy_bin "$BUILDDIR/tools/swapload" /usr/bin/swapload
	cat "$SD/zram-recompd.conf" "$SD/backing.conf" >"$STAGE/etc/zram-recompd.conf"
	# The unit's own WatchdogSec (60 s), not the systemd boot's 3 s drop-in, which is there
	# for its watchdog checks: under this boot's memory squeeze, on a TCG CPU with the host's
	# cores busy, the daemon once went over 3 s without a ping and was killed (SIGABRT).
	rm -f "$STAGE/etc/systemd/system/zram-recompd.service.d/vmtest-watchdog.conf"
	cp "$SD/zram-recompd-backingtest.service" "$STAGE/usr/lib/systemd/system/"
	install -m 0755 "$SD/backingtest.sh" "$STAGE/vm/backingtest.sh"
	WHAT="$WHAT, backing file"
	;;
*) busybox_image "$MODE" ;;
esac

mkdir -p "$(dirname "$OUT")"
vm_cpio "$STAGE" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
vm_log "initramfs $OUT ($(($(wc -c <"$OUT") / 1024)) KiB, $WHAT)"
