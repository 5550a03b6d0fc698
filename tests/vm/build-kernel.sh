#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds (or fetches from the cache) the bzImage used by the VM test tier.
#
# tinyconfig + tests/vm/kernel.fragment, from Debian's linux-source-6.12 package. The result is
# cached as $VM_CACHE/bzImage-<source version>-<fragment sha256 prefix>, so a second run with the
# same inputs only prints that path. ZRAM_RECOMPD_VM_KERNEL=/path/bzImage skips all of this.
# The unpacked source and build tree (about 1.9 GB) stay in the cache for fast rebuilds after a
# fragment change; ZRAM_RECOMPD_VM_KEEP_TREE=0 deletes them after a successful build (for CI
# caches, which then only need the bzImage-* files).
# The last line on stdout is the bzImage path; everything else goes to stderr.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/host-lib.sh"

FRAGMENT=$HERE/kernel.fragment
SRC_PKG=linux-source-6.12
SRC_TAR=/usr/src/linux-source-6.12.tar.xz

if [ -n "${ZRAM_RECOMPD_VM_KERNEL:-}" ]; then
	[ -r "$ZRAM_RECOMPD_VM_KERNEL" ] ||
		vm_die "ZRAM_RECOMPD_VM_KERNEL=$ZRAM_RECOMPD_VM_KERNEL is not readable"
	vm_log "using ZRAM_RECOMPD_VM_KERNEL=$ZRAM_RECOMPD_VM_KERNEL"
	echo "$ZRAM_RECOMPD_VM_KERNEL"
	exit 0
fi

vm_apt_install $VM_KERNEL_PKGS
[ -r "$SRC_TAR" ] || vm_die "$SRC_TAR missing although $SRC_PKG is installed"

# Cache key: the Debian package version (covers stable updates and Debian patches) and the
# fragment's hash.
src_ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" | tr -c 'A-Za-z0-9.+\n-' '_')
frag_sum=$(sha256sum "$FRAGMENT" | cut -c1-12)
mkdir -p "$VM_CACHE"
IMAGE=$VM_CACHE/bzImage-$src_ver-$frag_sum

if [ -s "$IMAGE" ]; then
	vm_log "cached kernel: $IMAGE"
	echo "$IMAGE"
	exit 0
fi

# One build at a time (run.sh and demo.sh may race); re-check the cache after the lock.
exec 9>"$VM_CACHE/build.lock"
flock 9
if [ -s "$IMAGE" ]; then
	vm_log "cached kernel (built concurrently): $IMAGE"
	echo "$IMAGE"
	exit 0
fi

SRC=$VM_CACHE/linux-$src_ver
OBJ=$VM_CACHE/kbuild-$src_ver
LOG=$VM_CACHE/kbuild-$src_ver.log
start=$(vm_now)

if [ ! -f "$SRC/Makefile" ]; then
	vm_log "unpacking $SRC_TAR"
	rm -rf "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "$SRC_TAR" -C "$SRC.tmp" --strip-components=1
	rm -rf "$SRC"
	mv "$SRC.tmp" "$SRC"
fi

# ARCH=x86_64, not the default x86: with ARCH=x86 the 64BIT option is a prompt and
# tinyconfig (allnoconfig underneath) would pick a 32-bit kernel.
kmake() {
	make -C "$SRC" O="$OBJ" ARCH=x86_64 "$@"
}

mkdir -p "$OBJ"
: >"$LOG"
vm_log "configuring (tinyconfig + $(basename "$FRAGMENT")), log: $LOG"
kmake tinyconfig >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; vm_die "make tinyconfig failed"; }
cat "$FRAGMENT" >>"$OBJ/.config"
kmake olddefconfig >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; vm_die "make olddefconfig failed"; }

# Every option the fragment asks for must have survived olddefconfig.
bad=
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qx -- "$line" "$OBJ/.config" || bad="$bad $line"
		;;
	'# CONFIG_'*' is not set')
		opt=${line#\# }
		opt=${opt%% *}
		grep -q "^$opt=" "$OBJ/.config" && bad="$bad $line"
		;;
	esac
done <"$FRAGMENT"
if [ -n "$bad" ]; then
	for b in $bad; do
		opt=${b%%=*}
		got=$(grep -E "^(# )?${opt}[= ]" "$OBJ/.config" || echo 'absent')
		vm_log "requested $b, got: $got"
	done
	vm_die "kernel config does not match $FRAGMENT (missing dependency?)"
fi

vm_log "building bzImage with -j$(nproc) (several minutes on 2 cores)"
kmake -j"$(nproc)" bzImage >>"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; vm_die "kernel build failed"; }
cp "$OBJ/arch/x86/boot/bzImage" "$IMAGE.tmp"
cp "$OBJ/.config" "$IMAGE.config"
mv "$IMAGE.tmp" "$IMAGE"
# Keep the three newest kernels (other fragments, other source versions).
ls -1t "$VM_CACHE"/bzImage-* 2>/dev/null | grep -v '\.config$' | tail -n +4 |
	while read -r old; do
		rm -f "$old" "$old.config"
	done
if [ "${ZRAM_RECOMPD_VM_KEEP_TREE:-1}" = 0 ]; then
	rm -rf "$SRC" "$OBJ"
fi
vm_log "built $IMAGE in $(($(vm_now) - start)) s"
echo "$IMAGE"
