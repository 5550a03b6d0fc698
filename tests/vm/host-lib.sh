# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers shared by the host-side VM scripts (build-kernel.sh, mkinitramfs.sh, run.sh, demo.sh).
# Sourced, not executed. POSIX sh.

VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/zram-recompd

# Packages needed to build the test kernel from Debian's source package.
VM_KERNEL_PKGS="linux-source-6.12 bc bison flex libelf-dev libssl-dev cpio xz-utils build-essential"

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
