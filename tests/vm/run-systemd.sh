#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd VM test: boots a test kernel (build-kernel.sh K) under qemu TCG with the host's
# systemd as PID 1 (initramfs from systemd/mkinitramfs.sh; rdinit=/usr/lib/systemd/systemd,
# systemd.unit=zram-recompd-vmtest.service), where systemd/vmtest.sh checks the installed
# zram-recompd.service. Prints one "vm: PASS|FAIL|SKIP systemd_NAME [release][: detail]" line
# per check;
# a check without a result line (VM hung, crashed, driver died) is a failure, and so are kernel
# warnings (as systemd_kernel_log). run.sh runs this and counts the lines; alone, it ends with
# "vm-systemd: N passed, N failed, N skipped".
#
# Usage: run-systemd.sh [6.12|7.3] (default: the newest kernel).
# Environment: BUILDDIR (default build), ZRAM_RECOMPD_VM_KERNEL, QEMU (default
# qemu-system-x86_64), VM_SYSTEMD_TIMEOUT (whole VM, s, default 300), VM_KEEP_LOGS (default 10).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
. "$HERE/host-lib.sh"
cd "$TOP" || exit 1

BUILDDIR=${BUILDDIR:-build}
export BUILDDIR
OUTDIR=$HERE/out
mkdir -p "$OUTDIR"
QEMU=${QEMU:-qemu-system-x86_64}
LIMIT=${VM_SYSTEMD_TIMEOUT:-300}
K=${1:-$VM_KERNEL_NEWEST}
KLABEL=$K
# In the order vmtest.sh runs them.
CHECKS="systemd_boot systemd_verify systemd_start systemd_sandbox systemd_status
	systemd_configure systemd_pass systemd_events systemd_watchdog systemd_reload
	systemd_reload_invalid systemd_stop systemd_watchdog_long_pass systemd_security"

PASSED=0
FAILED=0
SKIPPED=0
result() { # PASS|FAIL|SKIP name [reason]
	case $1 in
	PASS) PASSED=$((PASSED + 1)) ;;
	FAIL) FAILED=$((FAILED + 1)) ;;
	SKIP) SKIPPED=$((SKIPPED + 1)) ;;
	esac
	st=$1
	n="$2 [$KLABEL]"
	shift 2
	if [ $# -gt 0 ]; then
		echo "vm: $st $n: $*"
	else
		echo "vm: $st $n"
	fi
}

all() { # PASS|FAIL|SKIP reason: every check gets the same result
	for c in $CHECKS; do
		result "$1" "$c" "$2"
	done
}

summary() {
	echo "vm-systemd: $PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
	exit $?
}

# The host's systemd is what boots in the VM (a container may lack it: then it is installed,
# which does not make it PID 1 here).
missing=
for c in "$QEMU:qemu-system-x86" busybox:busybox-static cpio:cpio systemctl:systemd \
	/usr/lib/systemd/systemd:systemd; do
	command -v "${c%%:*}" >/dev/null 2>&1 || missing="$missing ${c#*:}"
done
if [ -n "$missing" ] && ! (vm_apt_install $missing); then
	all FAIL "missing:$missing"
	summary
fi
if ! KERNEL=$("$HERE/build-kernel.sh" "$K" | tail -n 1) || [ ! -r "$KERNEL" ]; then
	all FAIL "no test kernel (build-kernel.sh $K failed)"
	summary
fi
rel=$(vm_kernel_release "$KERNEL")
KLABEL=${rel:-$K}
INITRD=$OUTDIR/systemd-initramfs.cpio.gz
if ! "$HERE/systemd/mkinitramfs.sh" "$INITRD"; then
	all FAIL "systemd/mkinitramfs.sh failed"
	summary
fi

stamp=$(date +%Y%m%d-%H%M%S)
LOG=$OUTDIR/systemd-console-$K-$stamp.log
ls -1t "$OUTDIR"/systemd-console-"$K"-*.log 2>/dev/null | tail -n +"${VM_KEEP_LOGS:-10}" |
	xargs -r rm -f
echo "vm: booting $KERNEL with systemd as PID 1 (TCG), console log $LOG" >&2
# systemd.show_status=error: only failures on the console, between the driver's lines.
vm_boot "$KERNEL" "$INITRD" "$LOG" "$LIMIT" "rdinit=/usr/lib/systemd/systemd \
systemd.unit=zram-recompd-vmtest.service systemd.show_status=error"
echo "vm: systemd VM: qemu exited $VM_RC after $VM_SECS s" >&2
ln -sf "$(basename "$LOG")" "$OUTDIR/systemd-console.log"
ln -sf "$(basename "$LOG")" "$OUTDIR/systemd-console-$K.log"
vm_results "$LOG" "VM_SYSTEMD_TIMEOUT=$LIMIT s" systemd_kernel_log $CHECKS
[ "$VM_BAD" -ne 0 ] && echo "vm: systemd console log: $LOG" >&2
summary
