# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers shared by the host-side VM scripts (build-kernel.sh, mkinitramfs.sh, run.sh, demo.sh).
# Sourced, not executed. POSIX sh.

VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/zram-recompd

# Packages needed to build a test kernel from Debian's source package (the source package
# itself comes from vm_kernel_spec).
VM_KERNEL_BUILD_PKGS="bc bison flex libelf-dev libssl-dev cpio xz-utils build-essential"

# The kernels of the VM tier, oldest first; VM_KERNELS selects some of them (default: all).
VM_KERNELS_KNOWN="6.12 7.3"
VM_KERNEL_NEWEST=7.3

# vm_kernel_spec K: sets KPKG (Debian package with the source tarball), KPIN (its version;
# empty: whatever version apt installs) and KSUITE (empty: installed with apt from the
# machine's own sources; else fetched from that suite of the machine's Debian mirror into the
# cache, without installing it, see vm_fetch_source). A newer upload or kernel is a change of
# this table only.
vm_kernel_spec() {
	case $1 in
	6.12)
		# Debian 12's own kernel series: installed like any build dependency.
		KPKG=linux-source-6.12 KPIN= KSUITE=
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

# vm_fetch_source K DIR: puts KPKG's source tarball (version KPIN, from suite KSUITE) into
# DIR/linux-source.tar.xz without touching the machine's apt configuration or package
# database: a private sources list, lists and cache under $VM_CACHE/apt, the machine's Debian
# mirror and the system's archive keyring, `apt-get download` (no install, no root needed)
# and only the tarball taken out of the .deb. Call vm_kernel_spec K first.
vm_fetch_source() {
	_dir=$2
	_apt=$VM_CACHE/apt
	_keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$_keyring" ] || vm_die "$_keyring missing (apt-get install debian-archive-keyring)"
	_mirror=$(vm_debian_mirror) || exit 1
	mkdir -p "$_apt/lists/partial" "$_apt/cache/archives/partial" "$_apt/deb"
	echo "deb [signed-by=$_keyring] $_mirror $KSUITE main" >"$_apt/sources.list"
	# Only this list; no translations; as root apt would otherwise drop to the _apt user,
	# which may not write to a cache under /root.
	set -- -o Dir::Etc::SourceList="$_apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$_apt/lists" -o Dir::Cache="$_apt/cache" \
		-o Acquire::Languages=none -o APT::Sandbox::User="$(id -un)" -q
	vm_log "fetching $KPKG=$KPIN from $_mirror $KSUITE (private apt lists in $_apt)"
	apt-get "$@" update >&2 || vm_die "apt-get update of $KSUITE from $_mirror failed"
	rm -f "$_apt/deb"/*.deb
	if ! (cd "$_apt/deb" && apt-get "$@" download "$KPKG=$KPIN" >&2); then
		vm_log "versions of $KPKG in $KSUITE:"
		apt-cache "$@" madison "$KPKG" >&2 || true
		vm_die "cannot download $KPKG=$KPIN (a newer upload? update vm_kernel_spec in tests/vm/host-lib.sh)"
	fi
	_deb=$(ls "$_apt/deb"/*.deb | head -n 1)
	_tar=./usr/src/$KPKG.tar.xz
	mkdir -p "$_dir"
	dpkg-deb --fsys-tarfile "$_deb" | tar -xO "$_tar" >"$_dir/linux-source.tar.xz.tmp" ||
		vm_die "no $_tar in $_deb"
	mv "$_dir/linux-source.tar.xz.tmp" "$_dir/linux-source.tar.xz"
	rm -f "$_deb"
}

# vm_kernel_release BZIMAGE: the kernel's release (uname -r), read from the bzImage's setup
# header (boot protocol: kernel_version at 0x20e is an offset from 0x200 of a NUL-terminated
# string "RELEASE (builder) #1 ..."). Empty when the file is not a bzImage.
vm_kernel_release() {
	_o=$(od -An -tu2 -j526 -N2 "$1" 2>/dev/null | tr -d ' ')
	[ -n "$_o" ] && [ "$_o" -gt 0 ] || return 0
	dd if="$1" bs=1 skip=$((_o + 512)) count=64 2>/dev/null | tr '\0' '\n' | head -n 1 |
		cut -d' ' -f1
}

# vm_boot KERNEL INITRD LOG LIMIT [APPEND]: boots under qemu TCG (no KVM needed: pure
# emulation) with the serial console in LOG (carriage returns removed), killed after LIMIT
# seconds. -no-reboot: the guests end with `reboot -f`, which then ends qemu. Sets VM_RC
# (qemu's exit code; 124/137 = killed by the limit) and VM_SECS. Never fails (set -e callers).
vm_boot() {
	_t0=$(vm_now)
	VM_RC=0
	timeout -k 10 "$4" "${QEMU:-qemu-system-x86_64}" -machine accel=tcg -cpu max -smp 2 \
		-m 1536 -nographic -no-reboot -kernel "$1" -initrd "$2" \
		-append "console=ttyS0 panic=-1 quiet${5:+ $5}" </dev/null >"$3" 2>&1 || VM_RC=$?
	VM_SECS=$(($(vm_now) - _t0))
	tr -d '\r' <"$3" >"$3.tmp" && mv "$3.tmp" "$3"
	return 0
}

# vm_results LOG LIMIT_NAME KERNEL_LOG_NAME NAME...: one `result PASS|FAIL|SKIP NAME [REASON]`
# call (the caller's function) per NAME from the guest's "VMTEST PASS|FAIL|SKIP NAME[: REASON]"
# lines in LOG after vm_boot. A name without a line failed: the VM finished without it, was
# killed at the limit (LIMIT_NAME names the variable to raise) or stopped. Kernel warnings
# (VMKERNEL lines, printed by the guest from dmesg) are one more failure, KERNEL_LOG_NAME.
# Sets VM_BAD=1 when anything failed.
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
		_line=$(grep -E "^VMTEST (PASS|FAIL|SKIP) $_t(:|\$)" "$_log" | head -n 1)
		if [ -z "$_line" ]; then
			if [ "$_done" -eq 1 ]; then
				result FAIL "$_t" "no result line"
			elif [ "$VM_RC" -eq 124 ] || [ "$VM_RC" -eq 137 ]; then
				result FAIL "$_t" "VM timed out ($_limit) before it finished"
			else
				result FAIL "$_t" "VM stopped (qemu exit $VM_RC) before it finished"
			fi
			VM_BAD=1
			continue
		fi
		_st=$(echo "$_line" | cut -d' ' -f2)
		_reason=$(echo "$_line" | sed -nE "s/^VMTEST [A-Z]+ $_t: //p")
		[ "$_st" = FAIL ] && VM_BAD=1
		if [ -n "$_reason" ]; then
			result "$_st" "$_t" "$_reason"
		else
			result "$_st" "$_t"
		fi
	done
	if grep -q '^VMKERNEL ' "$_log"; then
		result FAIL "$_klog" "$(grep -c '^VMKERNEL ' "$_log") warning line(s) in dmesg"
		grep '^VMKERNEL ' "$_log" | head -n 20 >&2
		VM_BAD=1
	fi
	return 0
}
