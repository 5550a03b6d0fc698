#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo`: on a Debian/Ubuntu machine, as root, installs what is missing, builds (or
# reuses) the test kernel, boots it under qemu TCG and shows what one zram-recompd pass does
# to a zram device set up like a distribution's (lzo-rle primary, zstd secondary), as a
# before/after table on stdout. The kernel is cached: a second run takes seconds plus the
# VM's run time.
# Usage: demo.sh [6.12|7.3] (`make demo KERNEL=6.12`; default: the newest kernel, 7.3).
# Environment: BUILDDIR (default build), CORPUS=file (pages to use instead of pagegen's),
# VM_PAGES (pagegen pages, default 16384 = 64 MiB), ZRAM_RECOMPD_VM_KERNEL, VM_TIMEOUT.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/vm/host-lib.sh
. "$HERE/host-lib.sh"
cd "$TOP"

BUILDDIR=${BUILDDIR:-build}
export BUILDDIR
K=${1:-$VM_KERNEL_NEWEST}
vm_kernel_spec "$K" # an unknown name fails here, before any build

vm_apt_install qemu-system-x86 busybox-static zstd cpio
if [ ! -x "$BUILDDIR/zram-recompd" ] || [ ! -x "$BUILDDIR/tools/pagegen" ]; then
	# Run directly rather than through `make demo`: build first.
	vm_apt_install build-essential pkg-config libsystemd-dev liblz4-dev libzstd-dev \
		liblzo2-dev zlib1g-dev
	make -s BUILDDIR="$BUILDDIR" all tools >&2
fi

KERNEL=$("$HERE/build-kernel.sh" "$K" | tail -n 1)
OUTDIR=$HERE/out
mkdir -p "$OUTDIR"
INITRD=$OUTDIR/demo-initramfs.cpio.gz
LOG=$OUTDIR/demo-console.log
VM_PAGES=${VM_PAGES:-16384} "$HERE/mkinitramfs.sh" "$INITRD" demo

vm_log "booting the VM ($(vm_kernel_release "$KERNEL"), qemu TCG, no KVM); console log $LOG"
vm_boot "$KERNEL" "$INITRD" "$LOG" "${VM_TIMEOUT:-480}"
rc=$VM_RC
vm_log "VM finished in $VM_SECS s"

if ! grep -q '^DEMO ' "$LOG"; then
	tail -n 30 "$LOG" >&2
	vm_die "the demo printed nothing (qemu exit $rc); see $LOG"
fi
sed -n 's/^DEMO //p' "$LOG"
grep -q '^VMTEST DONE' "$LOG" || vm_die "the VM did not finish cleanly (qemu exit $rc); see $LOG"
