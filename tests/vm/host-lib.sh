# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers shared by the host-side VM scripts: build-kernel.sh, mkinitramfs.sh, run.sh,
# run-systemd.sh, demo.sh and the bench's tests/bench/run.sh. Sourced, not executed. POSIX sh.
# vm_kernel and vm_run need VM_DIR, the absolute path of tests/vm, set by the caller.
# shellcheck shell=sh

VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/zram-recompd

# Packages needed to build a test kernel from Debian's source package (the source package
# itself comes from vm_kernel_spec).
# shellcheck disable=SC2034 # used by build-kernel.sh
VM_KERNEL_BUILD_PKGS="bc bison flex libelf-dev libssl-dev cpio xz-utils build-essential"

# The kernels of the VM tier, oldest first; VM_KERNELS selects some of them (default: all).
# 6.12-nomc is 6.12 without CONFIG_ZRAM_MULTI_COMP (kernel-nomc.fragment), like Ubuntu's
# kernels: built incrementally from 6.12's tree; it runs only the nomc_* scenarios.
# 6.12-arm64 is 6.12 for arm64 with 16 KiB pages (kernel-arm64.fragment, issue 26), cross-built
# and booted with qemu-system-aarch64 -M virt; it runs the scenarios of VM_ARM64_TESTS.
VM_KERNELS_KNOWN="6.12 7.3 6.12-nomc 6.12-arm64"
# The busybox scenarios of the arm64 kernel: those of issue 26 (one pass, the daemon's idle
# and huge passes, writeback, the kernel's ABI, incompressible pages, the swap squeeze) and
# the package's autopkgtest; the others need the host's x86 programs (strace, mke2fs,
# libcryptsetup) or repeat what these show at a page size that does not matter to them.
# shellcheck disable=SC2034 # used by run.sh
VM_ARM64_TESTS="kernel_features kernel_abi once_recompress idle_age incompressible
writeback_once daemon_hot_set daemon_huge swap_short autopkgtest"
# Scenarios that run on the arm64 kernel only: the arm64 package's autopkgtest (the x86-64
# package's runs in the deb tier, tests/deb/run.sh).
# shellcheck disable=SC2034 # used by run.sh
VM_ARM64_ONLY="autopkgtest"
# shellcheck disable=SC2034 # used by the scripts that source this file
VM_KERNEL_NEWEST=7.3

# vm_kernel_spec K: sets KPKG (Debian package with the source tarball), KPIN (its version;
# empty: whatever version apt installs) and KSUITE (empty: installed with apt from the
# machine's own sources; else fetched from that suite of the machine's Debian mirror into the
# cache, without installing it, see vm_fetch_source). A newer upload or kernel is a change of
# this table only.
vm_kernel_spec() {
	# K-VARIANT: kernel K with kernel-VARIANT.fragment after its own (KBASE, KVARIANT)
	KBASE=${1%%-*}
	KVARIANT=
	[ "$KBASE" = "$1" ] || KVARIANT=${1#*-}
	# KARCH: the kernel's architecture (make ARCH=, the image, the qemu that boots it).
	KARCH=x86_64
	case $KVARIANT in
	'' | nomc) ;;
	arm64) KARCH=arm64 ;;
	*) vm_die "unknown kernel variant '$KVARIANT' of $KBASE (known: nomc, arm64)" ;;
	esac
	case $KBASE in
	6.12)
		# Debian 12's own kernel series: installed like any build dependency.
		KPKG=linux-source-6.12 KPIN='' KSUITE=''
		;;
	7.3)
		# Not in Debian 12: the newest kernel Debian packages, from Debian 13's backports.
		KPKG=linux-source-7.3 KPIN=7.3.4-1~bpo13+1 KSUITE=trixie-backports
		;;
	*)
		vm_die "unknown kernel '$1' (known: $VM_KERNELS_KNOWN)"
		;;
	esac
}

vm_log() {
	echo "${0##*/}: $*" >&2
}

vm_die() {
	vm_log "error: $*"
	exit 1
}

vm_pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# vm_apt_install PKG...: install the packages that are missing (Debian/Ubuntu, as root).
vm_apt_install() {
	missing=
	for p in "$@"; do
		vm_pkg_installed "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	command -v apt-get >/dev/null 2>&1 ||
		vm_die "missing packages:$missing (no apt-get here: install them by hand)"
	[ "$(id -u)" -eq 0 ] || vm_die "missing packages:$missing (run as root to install them)"
	vm_log "installing:$missing"
	# $missing is a word list.
	# shellcheck disable=SC2086
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		$missing >&2; then
		apt-get update >&2 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			$missing >&2 || vm_die "apt-get install$missing failed"
	fi
}

# Monotonic-enough seconds for timing reports.
vm_now() {
	date +%s
}

# vm_debian_mirror: the first Debian archive URI (path ending in /debian, so not
# debian-security or a snapshot) named by the machine's own apt sources, one-line
# (sources.list, *.list) or deb822 (*.sources, "URIs:"), without a trailing slash. The
# repository names no mirror: whatever this machine is allowed to reach is used.
# ZRAM_RECOMPD_DEBIAN_MIRROR=URI overrides it.
vm_debian_mirror() {
	if [ -n "${ZRAM_RECOMPD_DEBIAN_MIRROR:-}" ]; then
		echo "${ZRAM_RECOMPD_DEBIAN_MIRROR%/}"
		return 0
	fi
	_m=$(
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] || continue
			# deb [opts] URI suite components: the URI is the first word after the
			# options.
			sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
				awk '$1 == "deb" || $1 == "deb-src" { print $2 }'
		done
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			# A stanza with "Enabled: no" does not count.
			awk '
				/^[ \t]*#/ { next }
				/^[ \t]*$/ { if (!off) printf "%s", uris; uris = ""; off = 0; next }
				tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
				tolower($1) == "uris:" { for (i = 2; i <= NF; i++) uris = uris $i "\n" }
				END { if (!off) printf "%s", uris }' "$f"
		done | sed 's,/*$,,' | grep -E '^(https?|ftp)://[^ ]*/debian$' | head -n 1
	)
	[ -n "$_m" ] || vm_die "no Debian mirror (a URI ending in /debian) in /etc/apt/sources.list or /etc/apt/sources.list.d/*.list, *.sources; set ZRAM_RECOMPD_DEBIAN_MIRROR=http://HOST/debian"
	echo "$_m"
}

# vm_apt DIR ARG...: apt-get ARG... with the private configuration in DIR (vm_apt_update):
# only DIR/sources.list, its lists and cache in DIR, no translations; as root apt would
# otherwise drop to the _apt user, which may not write to a cache under /root.
vm_apt() {
	_ad=$1
	shift
	apt-get -o Dir::Etc::SourceList="$_ad/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$_ad/lists" -o Dir::Cache="$_ad/cache" \
		-o Acquire::Languages=none -o APT::Sandbox::User="$(id -un)" -q "$@"
}

# vm_apt_update DIR SUITE...: a private apt configuration in DIR for the machine's Debian
# mirror (vm_debian_mirror), main, the given suites, verified with the system's archive
# keyring, and its lists fetched. Touches neither the machine's apt configuration nor its
# package database; needs no root. Then `vm_apt DIR download PKG=VERSION` fetches .debs
# into the current directory.
vm_apt_update() {
	_ad=$1
	shift
	_keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$_keyring" ] || vm_die "$_keyring missing (apt-get install debian-archive-keyring)"
	_mirror=$(vm_debian_mirror) || exit 1
	mkdir -p "$_ad/lists/partial" "$_ad/cache/archives/partial"
	for _suite in "$@"; do
		echo "deb [signed-by=$_keyring] $_mirror $_suite main"
	done >"$_ad/sources.list"
	vm_log "apt lists of $* from $_mirror (private, in $_ad)"
	vm_apt "$_ad" update >&2 || vm_die "apt-get update of $* from $_mirror failed"
}

# vm_fetch_source K DIR: puts KPKG's source tarball (version KPIN, from suite KSUITE) into
# DIR/linux-source.tar.xz without touching the machine's apt configuration or package
# database: private lists and cache under $VM_CACHE/apt (vm_apt_update), `apt-get download`
# (no install, no root needed) and only the tarball taken out of the .deb. Call
# vm_kernel_spec K first.
vm_fetch_source() {
	_dir=$2
	_apt=$VM_CACHE/apt
	vm_apt_update "$_apt" "$KSUITE"
	mkdir -p "$_apt/deb"
	rm -f "$_apt/deb"/*.deb
	vm_log "fetching $KPKG=$KPIN"
	if ! (cd "$_apt/deb" && vm_apt "$_apt" download "$KPKG=$KPIN" >&2); then
		vm_log "versions of $KPKG in $KSUITE:"
		vm_apt "$_apt" madison "$KPKG" >&2 || true
		vm_die "cannot download $KPKG=$KPIN (a newer upload? update vm_kernel_spec in tests/vm/host-lib.sh)"
	fi
	for _deb in "$_apt/deb"/*.deb; do
		break
	done
	_tar=./usr/src/$KPKG.tar.xz
	mkdir -p "$_dir"
	dpkg-deb --fsys-tarfile "$_deb" | tar -xO "$_tar" >"$_dir/linux-source.tar.xz.tmp" ||
		vm_die "no $_tar in $_deb"
	mv "$_dir/linux-source.tar.xz.tmp" "$_dir/linux-source.tar.xz"
	rm -f "$_deb"
}

# The zram setup tools of the systemd VM's hook boots (run-systemd.sh), as Debian 12 ships
# them, and udev, which the generator's swap unit needs (systemd waits for dev-zram0.device,
# which only udev announces): PACKAGE=VERSION from bookworm. udev's version is the one of
# the host's systemd, which boots in the VM (udevadm links systemd's private library).
# A newer upload is a change here.
VM_HOOK_DEBS="systemd-zram-generator=1.1.2-2+b2 zram-tools=0.3.3.1-1.1"
VM_HOOK_SUITE=bookworm

# vm_hook_debs: prints the paths of the .debs of VM_HOOK_DEBS and udev (at the host's
# systemd version), fetched once into $VM_CACHE/debs with a private apt configuration
# (vm_apt_update, lists in $VM_CACHE/apt-bookworm) and kept there: later runs need no
# network.
vm_hook_debs() {
	_sdver=$(dpkg-query -W -f='${Version}' systemd 2>/dev/null) ||
		vm_die "systemd is not installed (dpkg-query): the systemd VM boots the host's"
	_want="$VM_HOOK_DEBS udev=$_sdver"
	_dd=$VM_CACHE/debs
	mkdir -p "$_dd"
	_missing=
	for _pv in $_want; do
		# apt-get download names the file PACKAGE_VERSION_ARCH.deb, ':' as %3a.
		_v=$(echo "${_pv#*=}" | sed 's/:/%3a/')
		set -- "$_dd/${_pv%%=*}_${_v}"_*.deb
		[ -f "$1" ] || _missing="$_missing $_pv"
	done
	if [ -n "$_missing" ]; then
		_apt=$VM_CACHE/apt-$VM_HOOK_SUITE
		vm_apt_update "$_apt" "$VM_HOOK_SUITE" "$VM_HOOK_SUITE-updates"
		vm_log "fetching$_missing into $_dd"
		# A word list.
		# shellcheck disable=SC2086
		if ! (cd "$_dd" && vm_apt "$_apt" download $_missing >&2); then
			for _pv in $_missing; do
				vm_apt "$_apt" madison "${_pv%%=*}" >&2 || true
			done
			vm_die "cannot download$_missing (a newer upload? update VM_HOOK_DEBS in tests/vm/host-lib.sh; udev must match the host's systemd $_sdver)"
		fi
	fi
	for _pv in $_want; do
		_v=$(echo "${_pv#*=}" | sed 's/:/%3a/')
		set -- "$_dd/${_pv%%=*}_${_v}"_*.deb
		[ -f "$1" ] || vm_die "${_pv%%=*}: no $1 after the download"
		echo "$1"
	done
}

# vm_kernel_release BZIMAGE: the kernel's release (uname -r), read from the bzImage's setup
# header (boot protocol: kernel_version at 0x20e is an offset from 0x200 of a NUL-terminated
# string "RELEASE (builder) #1 ..."). An arm64 Image (magic "ARM" 0x64 at 0x38) is not
# compressed: its banner "Linux version RELEASE (builder) ..." is in it as it is. Empty when
# the file is neither.
vm_kernel_release() {
	if [ "$(dd if="$1" bs=1 skip=56 count=4 2>/dev/null | od -An -tx1 | tr -d ' ')" = 41524d64 ]; then
		grep -a -o -m 1 'Linux version [^ ]*' "$1" | head -n 1 | cut -d' ' -f3
		return 0
	fi
	_o=$(od -An -tu2 -j526 -N2 "$1" 2>/dev/null | tr -d ' ')
	[ -n "$_o" ] && [ "$_o" -gt 0 ] || return 0
	dd if="$1" bs=1 skip=$((_o + 512)) count=64 2>/dev/null | tr '\0' '\n' | head -n 1 |
		cut -d' ' -f1
}

# ---- results ----
# Every runner reports "vm: PASS|FAIL|SKIP NAME [LABEL][: REASON]" lines (LABEL: the kernel
# the result is for, VM_LABEL; none for host tests) and counts them here.
VM_PASSED=0
VM_FAILED=0
VM_SKIPPED=0
VM_LABEL=

# vm_count PASS|FAIL|SKIP: counts one result.
vm_count() {
	case $1 in
	PASS) VM_PASSED=$((VM_PASSED + 1)) ;;
	FAIL) VM_FAILED=$((VM_FAILED + 1)) ;;
	SKIP) VM_SKIPPED=$((VM_SKIPPED + 1)) ;;
	esac
}

# vm_result PASS|FAIL|SKIP NAME [REASON...]: prints and counts one result.
vm_result() {
	vm_count "$1"
	_st=$1
	_n=$2${VM_LABEL:+ [$VM_LABEL]}
	shift 2
	if [ $# -gt 0 ]; then
		echo "vm: $_st $_n: $*"
	else
		echo "vm: $_st $_n"
	fi
}

# vm_result_each PASS|FAIL|SKIP REASON NAME...: the same result for every NAME (a VM that
# could not even start fails every test it was to run).
vm_result_each() {
	_st=$1
	_why=$2
	shift 2
	for _t in "$@"; do
		vm_result "$_st" "$_t" "$_why"
	done
}

# vm_summary TIER: the closing line "TIER: N passed, N failed, N skipped"; fails when
# anything failed.
vm_summary() {
	echo "$1: $VM_PASSED passed, $VM_FAILED failed, $VM_SKIPPED skipped"
	[ "$VM_FAILED" -eq 0 ]
}

# ---- what a VM run needs ----
# vm_need_tools CMD:PACKAGE...: installs (as root, vm_apt_install) the packages of the
# commands (names or absolute paths) that are missing. VM_MISSING: the packages still
# missing afterwards, empty when everything is there.
vm_need_tools() {
	VM_MISSING=
	for _c in "$@"; do
		command -v "${_c%%:*}" >/dev/null 2>&1 || VM_MISSING="$VM_MISSING ${_c#*:}"
	done
	# A word list on purpose; vm_die in the subshell only ends the attempt.
	# shellcheck disable=SC2086
	[ -n "$VM_MISSING" ] && (vm_apt_install $VM_MISSING) && VM_MISSING=
	return 0
}

# vm_kernel K: the bzImage (arm64: Image) of test kernel K (build-kernel.sh: built once, then
# cached) in VM_IMAGE, its release (uname -r, read from the image; K when unreadable) in
# VM_LABEL, and its architecture in VM_ARCH (x86_64 or arm64: which qemu boots it, vm_boot;
# which programs its initramfs holds, mkinitramfs.sh). Fails when there is no image. Needs
# VM_DIR (tests/vm, absolute), set by the caller.
vm_kernel() {
	VM_IMAGE=$("${VM_DIR:?}/build-kernel.sh" "$1" | tail -n 1) && [ -r "$VM_IMAGE" ] ||
		return 1
	vm_kernel_spec "$1"
	VM_ARCH=$KARCH
	_rel=$(vm_kernel_release "$VM_IMAGE")
	VM_LABEL=${_rel:-$1}
	# 6.12-arm64 has 6.12's release: its results say "[6.12.118-arm64]".
	[ "$KARCH" = x86_64 ] || [ -z "$_rel" ] || VM_LABEL=$_rel-$KARCH
	# The source tree build-kernel.sh unpacked (bzImage-<source version>[-<variant>]-<fragments
	# sum>): mkinitramfs.sh takes the kernel's zram selftest scripts from it.
	_v=${VM_IMAGE##*/}
	_v=${_v#*Image-}
	_v=${_v%-*}
	VM_KSRC=$(dirname "$VM_IMAGE")/linux-${_v%"${KVARIANT:+-$KVARIANT}"}
}

# ---- the qemu runner ----
# vm_boot KERNEL INITRD LOG LIMIT [APPEND [QEMU_OPTION...]]: boots under qemu TCG (no KVM
# needed: pure emulation; -cpu max -smp 2 (VM_SMP) -m 1536) with the serial console in LOG (carriage
# returns removed), killed after LIMIT seconds. APPEND is added to the kernel command line,
# QEMU_OPTIONs to qemu's (the bench's -icount). -no-reboot: the guests end with
# `reboot -f`, which then ends qemu. Sets VM_RC (qemu's exit code; 124/137 = killed by the
# limit) and VM_SECS. Never fails (set -e callers).
# no_timer_check: under TCG on a loaded host the kernel's early check that the 8254 timer
# reaches the IO-APIC can miss its window and panic ("IO-APIC + timer doesn't work", seen
# once in a 7.3 systemd boot); the check tests real hardware wiring, which qemu has.
vm_boot() {
	_kernel=$1
	_initrd=$2
	_log=$3
	_limit=$4
	_append=${5:-}
	if [ $# -ge 5 ]; then
		shift 5
	else
		shift $#
	fi
	_t0=$(vm_now)
	VM_RC=0
	# arm64 (VM_ARCH, set by vm_kernel): qemu's virt board (-M virt: GIC, PL011 UART as
	# ttyAMA0, PSCI for the reboot), described to the kernel by a device tree; -cpu max has
	# the 16 KiB granule. QEMU_AARCH64 overrides the emulator as QEMU does for x86-64.
	if [ "${VM_ARCH:-x86_64}" = arm64 ]; then
		_qemu=${QEMU_AARCH64:-qemu-system-aarch64} _machine=virt,accel=tcg
		_console="console=ttyAMA0 panic=-1 quiet"
	else
		_qemu=${QEMU:-qemu-system-x86_64} _machine=accel=tcg
		_console="console=ttyS0 panic=-1 quiet no_timer_check"
	fi
	timeout -k 10 "$_limit" "$_qemu" -machine "$_machine" -cpu max -smp "${VM_SMP:-2}" \
		-m 1536 "$@" -nographic -no-reboot -kernel "$_kernel" -initrd "$_initrd" \
		-append "$_console${_append:+ $_append}" </dev/null >"$_log" 2>&1 ||
		VM_RC=$?
	VM_SECS=$(($(vm_now) - _t0))
	tr -d '\r' <"$_log" >"$_log.tmp" && mv "$_log.tmp" "$_log"
	return 0
}

# vm_run NAME K KERNEL INITRD LIMIT LIMIT_VAR KERNEL_LOG_NAME APPEND TEST...: the runner of
# the test VMs: boots KERNEL with INITRD (vm_boot; LIMIT seconds, LIMIT_VAR the variable
# that sets it, named when the limit killed the VM; APPEND for the kernel command line) with
# the console in $VM_DIR/out/NAME-K-<time>.log (the newest VM_KEEP_LOGS, default 10, kept;
# NAME-K.log and NAME.log point at the newest), then one vm_result per TEST and for
# kernel warnings (vm_results). The guest's VMTIME lines and, when something failed, the log's
# path and the kernel's own error lines go to stderr. VM_LOG: the console log.
vm_run() {
	_name=$1
	_k=$2
	_kernel=$3
	_initrd=$4
	_limit=$5
	_limitvar=$6
	_klog=$7
	_append=$8
	shift 8
	_out=${VM_OUTDIR:-${VM_DIR:?}/out}
	mkdir -p "$_out"
	# Keep the newest few console logs of this VM and kernel only (names without spaces).
	# shellcheck disable=SC2012
	ls -1t "$_out/$_name-$_k"-*.log 2>/dev/null | tail -n +"${VM_KEEP_LOGS:-10}" |
		xargs -r rm -f
	VM_LOG=$_out/$_name-$_k-$(date +%Y%m%d-%H%M%S).log
	echo "vm: booting $_kernel (TCG${_append:+; $_append}), console log $VM_LOG" >&2
	vm_boot "$_kernel" "$_initrd" "$VM_LOG" "$_limit" "$_append"
	echo "vm: $_name [$VM_LABEL]: qemu exited $VM_RC after $VM_SECS s" >&2
	ln -sf "$(basename "$VM_LOG")" "$_out/$_name.log"
	ln -sf "$(basename "$VM_LOG")" "$_out/$_name-$_k.log"
	vm_results "$VM_LOG" "$_limitvar=$_limit s" "$_klog" "$@"
	grep '^VMTIME ' "$VM_LOG" | sed "s/^VMTIME /vm: time [$VM_LABEL] /" >&2
	if [ "$VM_BAD" -ne 0 ]; then
		echo "vm: console log: $VM_LOG" >&2
		grep -v '^VMKERNEL ' "$VM_LOG" | grep -E 'Kernel panic|BUG:|Oops|WARNING:|Call Trace' |
			head -n 20 >&2
	fi
	return 0
}

# ---- the console parser ----
# The guests print "VMTEST PASS|FAIL|SKIP NAME[: REASON]" per test, VMKERNEL lines for
# kernel warnings in dmesg, "VMTEST DONE" at the end.

# vm_test_result LOG NAME: NAME's first VMTEST line in LOG: VM_ST (PASS, FAIL or SKIP; empty
# when there is no line) and VM_REASON (empty when none).
vm_test_result() {
	_line=$(grep -E "^VMTEST (PASS|FAIL|SKIP) $2(:|\$)" "$1" | head -n 1)
	VM_ST=$(echo "$_line" | cut -s -d' ' -f2)
	VM_REASON=$(echo "$_line" | sed -nE "s/^VMTEST [A-Z]+ $2: //p")
}

# vm_kernel_warnings LOG: the number of VMKERNEL lines in LOG.
vm_kernel_warnings() {
	_n=$(grep -c '^VMKERNEL ' "$1" 2>/dev/null)
	echo "${_n:-0}"
}

# vm_results LOG LIMIT_TEXT KERNEL_LOG_NAME NAME...: one vm_result per NAME from LOG after
# vm_boot. A name without a line failed: the VM finished without it, was killed at the limit
# (LIMIT_TEXT says which limit, e.g. "VM_TIMEOUT=900 s") or stopped. Kernel warnings are one
# more failure, KERNEL_LOG_NAME. Sets VM_BAD=1 when anything failed.
vm_results() {
	_log=$1
	_limit=$2
	_klog=$3
	shift 3
	VM_BAD=0
	_done=0
	grep -q '^VMTEST DONE' "$_log" && _done=1
	[ "$_done" -eq 1 ] && [ "$VM_RC" -ne 0 ] &&
		vm_log "warning: the VM finished but did not exit by itself (qemu $VM_RC)"
	for _t in "$@"; do
		vm_test_result "$_log" "$_t"
		if [ -z "$VM_ST" ]; then
			if [ "$_done" -eq 1 ]; then
				vm_result FAIL "$_t" "no result line"
			elif [ "$VM_RC" -eq 124 ] || [ "$VM_RC" -eq 137 ]; then
				vm_result FAIL "$_t" "VM timed out ($_limit) before it finished"
			else
				vm_result FAIL "$_t" "VM stopped (qemu exit $VM_RC) before it finished"
			fi
			VM_BAD=1
			continue
		fi
		[ "$VM_ST" = FAIL ] && VM_BAD=1
		if [ -n "$VM_REASON" ]; then
			vm_result "$VM_ST" "$_t" "$VM_REASON"
		else
			vm_result "$VM_ST" "$_t"
		fi
	done
	_w=$(vm_kernel_warnings "$_log")
	if [ "$_w" -gt 0 ]; then
		_by=$(sed -n 's/^VMKWARN \([a-z0-9_]*\) \([0-9]*\)$/\1 \2,/p' "$_log" | tr '\n' ' ')
		vm_result FAIL "$_klog" "$_w warning line(s) in dmesg${_by:+ (left after: ${_by%, })}"
		grep '^VMKERNEL ' "$_log" | head -n 20 >&2
		VM_BAD=1
	fi
	return 0
}

# vm_cpio DIR: DIR's tree as a gzip'd newc cpio archive on stdout. -R 0:0: root-owned files
# even when built by another user. gzip -1: the images are mostly page data, and the guest
# unpacks them under emulation. The kernel unpacks concatenated archives in order, so a
# second one appended to an image adds or replaces files (the bench's overlay).
vm_cpio() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1
}
