#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd VM test: boots a test kernel (build-kernel.sh K) under qemu TCG with the host's
# systemd as PID 1 (`mkinitramfs.sh OUT systemd`; rdinit=/usr/lib/systemd/systemd,
# systemd.unit=zram-recompd-vmtest.service), where systemd/vmtest.sh checks the installed
# zram-recompd.service and zram-generator drop-in, as the Debian package ships them (the
# image holds the unpacked .deb of `make deb`: ZRAM_RECOMPD_DEB, default
# $BUILDDIR/deb/zram-recompd_VERSION_ARCH.deb). Prints one
# "vm: PASS|FAIL|SKIP systemd_NAME [release][: detail]" line per check; a check without a
# result line (VM hung, crashed, driver died) is a failure, and so are kernel warnings (as
# systemd_kernel_log). run.sh runs this and counts the lines; alone, it ends with
# "vm-systemd: N passed, N failed, N skipped". The qemu runner and the console parser are
# host-lib.sh's (vm_run), shared with run.sh.
#
# Usage: run-systemd.sh [6.12|7.3] (default: the newest kernel).
# Environment: BUILDDIR (default build), ZRAM_RECOMPD_DEB, ZRAM_RECOMPD_VM_KERNEL, QEMU
# (default qemu-system-x86_64), VM_SYSTEMD_TIMEOUT (whole VM, s, default 300), VM_KEEP_LOGS
# (default 10).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
VM_DIR=$HERE
# shellcheck source=tests/vm/host-lib.sh
. "$HERE/host-lib.sh"
cd "$TOP" || exit 1

BUILDDIR=${BUILDDIR:-build}
export BUILDDIR
QEMU=${QEMU:-qemu-system-x86_64}
LIMIT=${VM_SYSTEMD_TIMEOUT:-300}
K=${1:-$VM_KERNEL_NEWEST}
VM_LABEL=$K
# In the order vmtest.sh runs them.
CHECKS="systemd_boot systemd_package systemd_verify systemd_zram_setup systemd_start
	systemd_sandbox systemd_status systemd_configure systemd_pass systemd_journal_fields systemd_events
	systemd_watchdog
	systemd_reload systemd_reload_invalid systemd_stop systemd_watchdog_long_pass
	systemd_security"
# A kernel without CONFIG_ZRAM_MULTI_COMP: the units are skipped by ExecCondition=; only that.
case $K in
*-nomc) CHECKS="systemd_boot systemd_package systemd_verify systemd_condition" ;;
esac

# fail_all REASON: every check fails (the VM could not run); then the summary.
fail_all() {
	# shellcheck disable=SC2086 # a word list
	vm_result_each FAIL "$1" $CHECKS
	vm_summary vm-systemd
	exit 1
}

# The host's systemd is what boots in the VM (a container may lack it: then it is installed,
# which does not make it PID 1 here).
vm_need_tools "$QEMU:qemu-system-x86" busybox:busybox-static cpio:cpio systemctl:systemd \
	/usr/lib/systemd/systemd:systemd
[ -z "$VM_MISSING" ] || fail_all "missing:$VM_MISSING"
vm_kernel "$K" || fail_all "no test kernel (build-kernel.sh $K failed)"
INITRD=$HERE/out/systemd-initramfs.cpio.gz
"$HERE/mkinitramfs.sh" "$INITRD" systemd || fail_all "mkinitramfs.sh (systemd image) failed"

# systemd.show_status=error: only failures on the console, between the driver's lines.
# shellcheck disable=SC2086 # a word list
vm_run systemd-console "$K" "$VM_IMAGE" "$INITRD" "$LIMIT" VM_SYSTEMD_TIMEOUT \
	systemd_kernel_log "rdinit=/usr/lib/systemd/systemd \
systemd.unit=zram-recompd-vmtest.service systemd.show_status=error" $CHECKS
vm_summary vm-systemd
