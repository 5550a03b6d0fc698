# SPDX-License-Identifier: GPL-2.0-or-later
# The cross tier's toolchain and sysroots (tests/cross/README). Sourced by tests/cross/build.sh
# and tests/cross/deb.sh; POSIX sh. Needs TOP (the source tree) set by the caller.
#
# What runs where:
#   compiler  Debian's cross compilers gcc-aarch64-linux-gnu and gcc-arm-linux-gnueabihf,
#             installed like the other compilers (tests/deps.sh cross). They are host
#             programs (amd64); they bring only their own libc headers under /usr/TRIPLET,
#             and no foreign architecture is added to dpkg.
#   sysroot   the arm64 or armhf .debs of libc6-dev and of the libraries zram-recompd and its
#             tests link (CROSS_PKGS, with their dependencies), downloaded with a private apt
#             configuration (APT::Architecture=ARCH, an empty dpkg status, lists and cache in
#             the cache directory) and unpacked with dpkg-deb -x into
#             $VM_CACHE/cross/sysroot-ARCH: nothing is installed, the machine's apt and dpkg
#             configuration are not touched. A stamp file names what it holds; a second run
#             with the same list needs no network.
#   qemu      qemu-user (9.1 or later, see cross_qemu) of the host's architecture, downloaded
#             the same way and its static qemu-aarch64 and qemu-arm taken out of the .deb
#             into $VM_CACHE/cross/qemu: installing qemu-user-static would register binfmt
#             handlers (it changes what the machine runs). Programs run through the sysroot's
#             dynamic loader, `qemu-aarch64 SYSROOT/lib/ld-linux-aarch64.so.1 --library-path
#             SYSROOT/lib/...:SYSROOT/usr/lib/... PROGRAM`, not with qemu's -L SYSROOT: -L
#             makes every absolute path that exists in the sysroot (as "/" does) the sysroot's,
#             and the program walks paths from "/" component by component (openat2 without
#             RESOLVE_IN_ROOT, backing_file.c).
# shellcheck shell=sh

# shellcheck source=tests/vm/host-lib.sh
. "$TOP/tests/vm/host-lib.sh"

CROSS_CACHE=$VM_CACHE/cross
# The -dev packages of the build and test groups of tests/deps.sh, for the target.
CROSS_PKGS="libc6-dev libsystemd-dev liblz4-dev libzstd-dev liblzo2-dev zlib1g-dev
libcmocka-dev libcryptsetup-dev"
CROSS_ARCHES_KNOWN="arm64 armhf"

# cross_arch_spec ARCH: CROSS_TRIPLET (GNU triplet, the compiler's prefix), CROSS_QEMU_NAME,
# CROSS_LDSO (the dynamic loader's name in /lib).
cross_arch_spec() {
	case $1 in
	arm64)
		CROSS_TRIPLET=aarch64-linux-gnu CROSS_QEMU_NAME=qemu-aarch64
		CROSS_LDSO=ld-linux-aarch64.so.1
		;;
	armhf)
		CROSS_TRIPLET=arm-linux-gnueabihf CROSS_QEMU_NAME=qemu-arm
		CROSS_LDSO=ld-linux-armhf.so.3
		;;
	*) vm_die "unknown architecture '$1' (known: $CROSS_ARCHES_KNOWN)" ;;
	esac
	CROSS_ARCH=$1
	CROSS_SYSROOT=$CROSS_CACHE/sysroot-$1
	CROSS_QEMU=$CROSS_CACHE/qemu/$CROSS_QEMU_NAME
	CROSS_CC=$CROSS_TRIPLET-gcc
}

# The Debian release of this machine: its packages are the sysroot's.
cross_suite() {
	_s=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$_s" ] || vm_die "no VERSION_CODENAME in /etc/os-release (not Debian?)"
	echo "$_s"
}

# cross_apt DIR ARCH ARG...: apt-get with the private configuration in DIR for architecture
# ARCH and an empty dpkg status: it resolves the full dependency closure and installs nothing.
cross_apt() {
	_d=$1
	_a=$2
	shift 2
	vm_apt "$_d" -o APT::Architecture="$_a" -o APT::Architectures="$_a" \
		-o Dir::State::status="$_d/status" -o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts=/dev/null -o Dir::Etc::Trusted=/dev/null \
		-o Dir::Etc::TrustedParts=/dev/null "$@"
}

# cross_apt_prepare DIR ARCH [SUITE...]: sources (the machine's mirror, its release, -updates
# and the SUITEs, main), an empty status and the lists.
cross_apt_prepare() {
	_d=$1
	_a=$2
	shift 2
	_suite=$(cross_suite) || exit 1
	_keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$_keyring" ] || vm_die "$_keyring missing (apt-get install debian-archive-keyring)"
	_mirror=$(vm_debian_mirror) || exit 1
	mkdir -p "$_d/lists/partial" "$_d/cache/archives/partial"
	: >"$_d/status"
	for _s in "$_suite" "$_suite-updates" "$@"; do
		echo "deb [signed-by=$_keyring] $_mirror $_s main"
	done >"$_d/sources.list"
	vm_log "apt lists of $_suite for $_a from $_mirror (private, in $_d)"
	cross_apt "$_d" "$_a" update >&2 || vm_die "apt-get update ($_a) from $_mirror failed"
}

# The stamp of a sysroot: what it was made from (packages, release, this file's recipe).
cross_stamp_text() {
	printf 'arch=%s suite=%s pkgs=%s recipe=4\n' "$1" "$(cross_suite)" "$(echo $CROSS_PKGS)"
}

# cross_sysroot ARCH: CROSS_SYSROOT holds the target's libc and -dev packages (fetched once).
cross_sysroot() {
	cross_arch_spec "$1"
	_want=$(cross_stamp_text "$1") || exit 1
	if [ -f "$CROSS_SYSROOT/.stamp" ] && [ "$(cat "$CROSS_SYSROOT/.stamp")" = "$_want" ]; then
		return 0
	fi
	mkdir -p "$CROSS_CACHE"
	exec 8>"$CROSS_CACHE/$1.lock"
	flock 8
	if [ -f "$CROSS_SYSROOT/.stamp" ] && [ "$(cat "$CROSS_SYSROOT/.stamp")" = "$_want" ]; then
		return 0
	fi
	_ad=$CROSS_CACHE/apt-$1
	cross_apt_prepare "$_ad" "$1"
	rm -f "$_ad/cache/archives"/*.deb
	vm_log "downloading the $1 packages of:" $CROSS_PKGS
	# $CROSS_PKGS is a word list.
	# shellcheck disable=SC2086
	cross_apt "$_ad" "$1" install -y --download-only --no-install-recommends $CROSS_PKGS >&2 ||
		vm_die "apt-get could not download the $1 packages"
	rm -rf "$CROSS_SYSROOT.tmp"
	mkdir -p "$CROSS_SYSROOT.tmp"
	mkdir -p "$CROSS_SYSROOT.tmp/var/lib/dpkg/info"
	echo "$1" >"$CROSS_SYSROOT.tmp/var/lib/dpkg/arch"
	# the multiarch layout of info/ (PACKAGE:ARCH.list for Multi-Arch: same)
	echo 1 >"$CROSS_SYSROOT.tmp/var/lib/dpkg/info/format"
	for _deb in "$_ad/cache/archives"/*.deb; do
		dpkg-deb -x "$_deb" "$CROSS_SYSROOT.tmp" || vm_die "dpkg-deb -x $_deb failed"
		cross_admin_add "$CROSS_SYSROOT.tmp" "$_deb"
	done
	cross_fix_links "$CROSS_SYSROOT.tmp"
	# The unpacked tree is the cache; the .debs are not needed again.
	rm -rf "$_ad/cache" "$_ad/lists"
	echo "$_want" >"$CROSS_SYSROOT.tmp/.stamp"
	rm -rf "$CROSS_SYSROOT"
	mv "$CROSS_SYSROOT.tmp" "$CROSS_SYSROOT"
	vm_log "sysroot ready: $CROSS_SYSROOT"
}

# cross_admin_add SYSROOT DEB: DEB recorded as installed in SYSROOT/var/lib/dpkg, a dpkg
# database only for dpkg-shlibdeps --admindir (tests/cross/deb.sh): its status stanza, its
# shlibs and symbols files, and its file list with the paths as they are on this machine
# (SYSROOT/usr/lib/...: where dpkg-shlibdeps finds the libraries and asks dpkg-query
# --search who owns them). Nothing runs its maintainer scripts.
cross_admin_add() {
	_db=$1/var/lib/dpkg
	_p=$(dpkg-deb -f "$2" Package)
	_name=$_p
	[ "$(dpkg-deb -f "$2" Multi-Arch)" != same ] || _name=$_p:$(dpkg-deb -f "$2" Architecture)
	{
		dpkg-deb -f "$2" | awk '{ print } /^Package:/ { print "Status: install ok installed" }'
		echo
	} >>"$_db/status"
	rm -rf "$_db/ctrl.tmp"
	mkdir -p "$_db/ctrl.tmp"
	dpkg-deb -e "$2" "$_db/ctrl.tmp"
	for _f in shlibs symbols; do
		[ ! -f "$_db/ctrl.tmp/$_f" ] || mv "$_db/ctrl.tmp/$_f" "$_db/info/$_name.$_f"
	done
	rm -rf "$_db/ctrl.tmp"
	dpkg-deb --fsys-tarfile "$2" | tar -tf - | sed -e 's,^\./,/,' -e 's,/$,,' |
		awk -v r="$1" '$0 != "" && $0 != "/" { print r $0 }' |
		sed "s,^$1,$CROSS_SYSROOT," >"$_db/info/$_name.list"
}

# cross_fix_links DIR: absolute symbolic links made relative to DIR (the packages' links
# such as /lib/ld-linux-aarch64.so.1 or libfoo.so -> /lib/...: the compiler's --sysroot and
# qemu's -L would otherwise follow them into the host's own /lib).
cross_fix_links() {
	find "$1" -type l | while IFS= read -r _l; do
		_t=$(readlink "$_l")
		case $_t in
		/*)
			_rel=${_l#"$1"/}
			_up=$(echo "$_rel" | sed -e 's,[^/]*$,,' -e 's,[^/]*/,../,g')
			ln -sfn "${_up}${_t#/}" "$_l"
			;;
		esac
	done
}

# cross_qemu ARCH: CROSS_QEMU is the user-mode emulator for ARCH (fetched once). qemu-user
# 9.1 or later: the program opens every sysfs attribute with openat2(RESOLVE_BENEATH), which
# earlier qemu-user (Debian 12's is 7.2) answers with ENOSYS. Debian 12's backports and
# Debian 13 have 10.0, whose qemu-user package holds static binaries (no library of the
# host's needed).
CROSS_QEMU_MIN=9.1
cross_qemu() {
	cross_arch_spec "$1"
	[ -x "$CROSS_QEMU" ] && return 0
	mkdir -p "$CROSS_CACHE"
	exec 8>"$CROSS_CACHE/qemu.lock"
	flock 8
	[ -x "$CROSS_QEMU" ] && return 0
	_host=$(dpkg --print-architecture) || vm_die "dpkg --print-architecture failed"
	_suite=$(cross_suite) || exit 1
	_ad=$CROSS_CACHE/apt-host
	cross_apt_prepare "$_ad" "$_host" "$_suite-backports"
	rm -rf "$_ad/deb"
	mkdir -p "$_ad/deb"
	(cd "$_ad/deb" && { cross_apt "$_ad" "$_host" download "qemu-user/$_suite-backports" ||
		cross_apt "$_ad" "$_host" download qemu-user; } >&2) ||
		vm_die "cannot download qemu-user"
	rm -rf "$CROSS_CACHE/qemu.tmp"
	mkdir -p "$CROSS_CACHE/qemu.tmp"
	for _deb in "$_ad/deb"/*.deb; do
		dpkg-deb --fsys-tarfile "$_deb" | tar -C "$CROSS_CACHE/qemu.tmp" -xf - \
			./usr/bin/qemu-aarch64 ./usr/bin/qemu-arm ||
			vm_die "no qemu-aarch64, qemu-arm in $_deb"
	done
	_v=$("$CROSS_CACHE/qemu.tmp/usr/bin/qemu-aarch64" --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
	[ "$(printf '%s\n%s\n' "$CROSS_QEMU_MIN" "$_v" | sort -V | head -n 1)" = "$CROSS_QEMU_MIN" ] ||
		vm_die "qemu-user ${_v:-?} (from $(basename "$_deb")) is older than $CROSS_QEMU_MIN: no openat2"
	rm -rf "$CROSS_CACHE/qemu" "$_ad/deb" "$_ad/lists" "$_ad/cache"
	mv "$CROSS_CACHE/qemu.tmp/usr/bin" "$CROSS_CACHE/qemu"
	rm -rf "$CROSS_CACHE/qemu.tmp"
	vm_log "qemu-user $_v ready: $CROSS_CACHE/qemu"
}

# cross_make_env: the environment a cross build runs with (pkg-config of the sysroot).
cross_pkg_config_env() {
	echo "PKG_CONFIG_LIBDIR=$CROSS_SYSROOT/usr/lib/$CROSS_TRIPLET/pkgconfig:$CROSS_SYSROOT/usr/share/pkgconfig"
	echo "PKG_CONFIG_SYSROOT_DIR=$CROSS_SYSROOT"
}

# The userland of the arm64 VM's busybox image (tests/vm/mkinitramfs.sh, the 6.12-arm64
# kernel): busybox-static, and dash and findutils, the shell and the GNU find (find -printf)
# the package's autopkgtest runs with on a real system (both Essential there; busybox's
# find has no -printf, and its sh runs its own applets before any program in PATH).
CROSS_GUEST_PKGS="busybox-static dash findutils"

# cross_guest ARCH: CROSS_GUEST ($VM_CACHE/cross/guest-ARCH) holds CROSS_GUEST_PKGS of ARCH
# with their dependencies (libc6 ...), fetched and unpacked like the sysroot (a private apt
# configuration, dpkg-deb -x, nothing installed; a stamp names what it holds, later runs
# need no network).
cross_guest() {
	cross_arch_spec "$1"
	CROSS_GUEST=$CROSS_CACHE/guest-$1
	_want="arch=$1 suite=$(cross_suite) pkgs=$CROSS_GUEST_PKGS recipe=1" || exit 1
	if [ -f "$CROSS_GUEST/.stamp" ] && [ "$(cat "$CROSS_GUEST/.stamp")" = "$_want" ]; then
		return 0
	fi
	mkdir -p "$CROSS_CACHE"
	exec 8>"$CROSS_CACHE/guest-$1.lock"
	flock 8
	if [ -f "$CROSS_GUEST/.stamp" ] && [ "$(cat "$CROSS_GUEST/.stamp")" = "$_want" ]; then
		return 0
	fi
	_ad=$CROSS_CACHE/apt-guest-$1
	cross_apt_prepare "$_ad" "$1"
	rm -f "$_ad/cache/archives"/*.deb
	vm_log "downloading the $1 packages of: $CROSS_GUEST_PKGS"
	# A word list.
	# shellcheck disable=SC2086
	cross_apt "$_ad" "$1" install -y --download-only --no-install-recommends $CROSS_GUEST_PKGS >&2 ||
		vm_die "apt-get could not download the $1 packages of the VM's userland"
	rm -rf "$CROSS_GUEST.tmp"
	mkdir -p "$CROSS_GUEST.tmp"
	for _deb in "$_ad/cache/archives"/*.deb; do
		dpkg-deb -x "$_deb" "$CROSS_GUEST.tmp" || vm_die "dpkg-deb -x $_deb failed"
	done
	cross_fix_links "$CROSS_GUEST.tmp"
	rm -rf "$_ad/cache" "$_ad/lists"
	echo "$_want" >"$CROSS_GUEST.tmp/.stamp"
	rm -rf "$CROSS_GUEST"
	mv "$CROSS_GUEST.tmp" "$CROSS_GUEST"
	vm_log "VM userland ready: $CROSS_GUEST"
}
