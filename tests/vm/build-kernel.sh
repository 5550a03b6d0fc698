#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds (or fetches from the cache) the bzImage of one kernel of the VM test tier.
#
# Usage: build-kernel.sh [6.12|7.3|6.12-nomc|6.12-arm64] (default: the newest; the list is
# vm_kernel_spec in host-lib.sh; K-VARIANT adds kernel-VARIANT.fragment and is built from a
# copy of K's tree; K-arm64 is cross-built for arm64 with aarch64-linux-gnu-gcc (tests/deps.sh
# cross) in a tree of its own, and its image is the uncompressed arm64 Image, cached as
# Image-<source version>-arm64-<fragments sha256 prefix>). tinyconfig + tests/vm/kernel.fragment (+ kernel-K.fragment when it exists), from
# Debian's linux-source-K package: 6.12 installed with apt, 7.3 (not in Debian 12) downloaded
# from trixie-backports into the cache by vm_fetch_source without installing it. The result is
# cached as $VM_CACHE/bzImage-<source version>-<fragments sha256 prefix>, so a second run with
# the same inputs only prints that path. ZRAM_RECOMPD_VM_KERNEL=/path/bzImage skips all of
# this. The unpacked source and build tree (about 1.9 GB per kernel) stay in the cache for fast
# rebuilds after a fragment change; ZRAM_RECOMPD_VM_KEEP_TREE=0 deletes them after a successful
# build (for CI caches, which then only need the bzImage-* files).
# The last line on stdout is the bzImage path; everything else goes to stderr.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/host-lib.sh
. "$HERE/host-lib.sh"

# A given image stands for whichever kernel is asked for.
if [ -n "${ZRAM_RECOMPD_VM_KERNEL:-}" ]; then
	[ -r "$ZRAM_RECOMPD_VM_KERNEL" ] ||
		vm_die "ZRAM_RECOMPD_VM_KERNEL=$ZRAM_RECOMPD_VM_KERNEL is not readable"
	vm_log "using ZRAM_RECOMPD_VM_KERNEL=$ZRAM_RECOMPD_VM_KERNEL"
	echo "$ZRAM_RECOMPD_VM_KERNEL"
	exit 0
fi

K=${1:-$VM_KERNEL_NEWEST}
vm_kernel_spec "$K"
FRAGMENT=$HERE/kernel.fragment
# Options only one kernel series has (or needs under another name).
FRAGMENT_K=$HERE/kernel-$KBASE.fragment
[ -f "$FRAGMENT_K" ] || FRAGMENT_K=
# A variant (6.12-nomc): its fragment last; FRAGMENT_K stands for both from here on.
if [ -n "$KVARIANT" ]; then
	FRAGMENT_V=$HERE/kernel-$KVARIANT.fragment
	[ -f "$FRAGMENT_V" ] || vm_die "$FRAGMENT_V missing"
	FRAGMENT_K="${FRAGMENT_K:+$FRAGMENT_K }$FRAGMENT_V"
fi

# shellcheck disable=SC2086 # a word list
vm_apt_install $VM_KERNEL_BUILD_PKGS
# arm64: Debian's cross compiler (an amd64 program, like the cross tier's), the image `make
# Image` leaves in arch/arm64/boot.
KMAKE_ARCH=$KARCH KCROSS='' KTARGET=bzImage KIMAGE=arch/x86/boot/bzImage
if [ "$KARCH" = arm64 ]; then
	vm_apt_install gcc-aarch64-linux-gnu
	KCROSS=aarch64-linux-gnu- KTARGET=Image KIMAGE=arch/arm64/boot/Image
fi
if [ -z "$KSUITE" ]; then
	vm_apt_install "$KPKG"
	SRC_TAR=/usr/src/$KPKG.tar.xz
	[ -r "$SRC_TAR" ] || vm_die "$SRC_TAR missing although $KPKG is installed"
	src_ver=$(dpkg-query -W -f='${Version}' "$KPKG")
else
	# Fetched by vm_fetch_source below (after the cache lookup).
	SRC_TAR=
	src_ver=$KPIN
fi

# Cache key: the Debian package version (covers stable updates and Debian patches; it starts
# with the kernel version, so each kernel series keeps its own images) and the fragments'
# hash. With kernel.fragment alone the hash is the one of that file, as before per-kernel
# fragments existed.
src_ver=$(echo "$src_ver" | tr -c 'A-Za-z0-9.+\n-' '_')
# shellcheck disable=SC2086 # FRAGMENT_K: a word list (paths without spaces)
frag_sum=$(cat "$FRAGMENT" $FRAGMENT_K | sha256sum | cut -c1-12)
mkdir -p "$VM_CACHE"
IMAGE=$VM_CACHE/$KTARGET-$src_ver${KVARIANT:+-$KVARIANT}-$frag_sum

if [ -s "$IMAGE" ]; then
	vm_log "cached kernel: $IMAGE"
	echo "$IMAGE"
	exit 0
fi

# One build at a time (run.sh and demo.sh may race; two kernel builds on 2 cores only slow
# each other down); re-check the cache after the lock.
exec 9>"$VM_CACHE/build.lock"
flock 9
if [ -s "$IMAGE" ]; then
	vm_log "cached kernel (built concurrently): $IMAGE"
	echo "$IMAGE"
	exit 0
fi

SRC=$VM_CACHE/linux-$src_ver
OBJ=$VM_CACHE/kbuild-$src_ver${KVARIANT:+-$KVARIANT}
LOG=$VM_CACHE/kbuild-$src_ver${KVARIANT:+-$KVARIANT}.log
start=$(vm_now)
# A variant starts from a copy of its base kernel's build tree when there is one: kbuild
# then recompiles only what depends on the options that differ (for nomc: zram), not the
# whole kernel. A copy, not hard links: the compiler rewrites object files in place.
BASE_OBJ=$VM_CACHE/kbuild-$src_ver
# Not for another architecture (arm64): nothing of the x86 tree is of use there.
if [ -n "$KVARIANT" ] && [ "$KARCH" = x86_64 ] && [ ! -f "$OBJ/.config" ] &&
	[ -f "$BASE_OBJ/vmlinux" ]; then
	vm_log "copying the build tree of $KBASE for $K (incremental build)"
	rm -rf "$OBJ.tmp"
	cp -a "$BASE_OBJ" "$OBJ.tmp"
	# The tools' builds (objtool) record the tree's absolute path in their dependency files:
	# left as they are, objtool is rebuilt, and after it every object it checks (measured:
	# the whole kernel again). Point them at the copy; timestamps stay as copied.
	grep -rlF --include='*.cmd' --include='*.d' "$BASE_OBJ/" "$OBJ.tmp" |
		while IFS= read -r f; do
			sed -i "s|$BASE_OBJ/|$OBJ/|g" "$f" && touch -r "$BASE_OBJ/${f#"$OBJ.tmp/"}" "$f"
		done
	mv "$OBJ.tmp" "$OBJ"
fi

if [ ! -f "$SRC/Makefile" ]; then
	if [ -n "$KSUITE" ]; then
		vm_fetch_source "$K" "$SRC.dl"
		SRC_TAR=$SRC.dl/linux-source.tar.xz
	fi
	vm_log "unpacking $SRC_TAR"
	rm -rf "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "$SRC_TAR" -C "$SRC.tmp" --strip-components=1
	rm -rf "$SRC"
	mv "$SRC.tmp" "$SRC"
	# The downloaded tarball is not needed once unpacked (the tree is the cache).
	[ -z "$KSUITE" ] || rm -rf "$SRC.dl"
fi

# ARCH=x86_64, not the default x86: with ARCH=x86 the 64BIT option is a prompt and
# tinyconfig (allnoconfig underneath) would pick a 32-bit kernel. ARCH=arm64 with
# CROSS_COMPILE=aarch64-linux-gnu- for the arm64 kernel.
kmake() {
	make -C "$SRC" O="$OBJ" ARCH="$KMAKE_ARCH" ${KCROSS:+CROSS_COMPILE=$KCROSS} "$@"
}

mkdir -p "$OBJ"
: >"$LOG"
FRAG_NAMES=$(for f in $FRAGMENT_K; do printf ' + %s' "${f##*/}"; done)
vm_log "configuring $K (tinyconfig + kernel.fragment$FRAG_NAMES), log: $LOG"
kmake tinyconfig >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; vm_die "make tinyconfig failed"; }
# shellcheck disable=SC2086 # a word list
cat "$FRAGMENT" $FRAGMENT_K >>"$OBJ/.config"
kmake olddefconfig >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; vm_die "make olddefconfig failed"; }

# Every option the fragments ask for must have survived olddefconfig; an option set again
# by a later fragment (a variant's "# CONFIG_X is not set") counts with its last value.
# shellcheck disable=SC2086 # a word list
wanted=$(cat "$FRAGMENT" $FRAGMENT_K | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { o = $2 }
	o != "" { if (!(o in last)) ord[++n] = o; last[o] = $0; o = "" }
	END { for (i = 1; i <= n; i++) print last[ord[i]] }')
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
done <<EOF
$wanted
EOF
if [ -n "$bad" ]; then
	for b in $bad; do
		opt=${b%%=*}
		got=$(grep -E "^(# )?${opt}[= ]" "$OBJ/.config" || echo 'absent')
		vm_log "requested $b, got: $got"
	done
	vm_die "kernel config does not match kernel.fragment$FRAG_NAMES (missing dependency?)"
fi

vm_log "building $KTARGET ($KMAKE_ARCH) with -j$(nproc) (several minutes on 2 cores)"
kmake -j"$(nproc)" "$KTARGET" >>"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; vm_die "kernel build failed"; }
cp "$OBJ/$KIMAGE" "$IMAGE.tmp"
cp "$OBJ/.config" "$IMAGE.config"
mv "$IMAGE.tmp" "$IMAGE"
# Keep the two newest images of this kernel series and variant (other fragments, other
# uploads); the version in the name starts with the series ("bzImage-6.12.118-..."; no
# spaces), a variant's name has "-VARIANT-" after the version.
# shellcheck disable=SC2010
ls -1t "$VM_CACHE"/"$KTARGET"-"$KBASE".* 2>/dev/null | grep -v '\.config$' |
	if [ -n "$KVARIANT" ]; then grep -- "-$KVARIANT-"; else grep -v -- '-nomc-'; fi |
	tail -n +3 |
	while read -r old; do
		rm -f "$old" "$old.config"
	done
if [ "${ZRAM_RECOMPD_VM_KEEP_TREE:-1}" = 0 ]; then
	# The kernels built after this one: K-nomc is built from K's build tree (incremental),
	# every variant of KBASE from its source tree; whichever comes last removes them.
	later=" ${VM_KERNELS:-$VM_KERNELS_KNOWN} "
	later=${later#* "$K" }
	case " $later " in
	*" $K-nomc "*) vm_log "keeping the build tree of $K for $K-nomc" ;;
	*)
		rm -rf "$OBJ"
		[ "$KVARIANT" != nomc ] || rm -rf "$BASE_OBJ"
		;;
	esac
	case " $later " in
	*" $KBASE-"*) vm_log "keeping the source tree of $KBASE for its variants" ;;
	*) rm -rf "$SRC" ;;
	esac
fi
vm_log "built $IMAGE in $(($(vm_now) - start)) s"
echo "$IMAGE"
