#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd VM test: boots a test kernel (build-kernel.sh K) under qemu TCG with the host's
# systemd as PID 1 (`mkinitramfs.sh OUT systemd`; rdinit=/usr/lib/systemd/systemd,
# systemd.unit=zram-recompd-vmtest.service), where systemd/vmtest.sh checks the installed
# zram-recompd.service as the Debian package ships it (the image holds the unpacked .deb of
# `make deb`: ZRAM_RECOMPD_DEB, default $BUILDDIR/deb/zram-recompd_VERSION_ARCH.deb). Then
# one hook boot per zram setup tool Debian 12 ships (`mkinitramfs.sh OUT systemd-TOOL`:
# the same image with the tool's real package, udev, and zram-recompd.service enabled;
# systemd.unit=zram-recompd-hooktest.service, after multi-user.target), where
# systemd/hooktest.sh checks that the package's drop-in for the tool configured zram0's
# secondaries at boot and that the daemon recompresses the swap device:
#   zram-generator  systemd-zram-generator 1.1.2 (generator, systemd-zram-setup@zram0)
#   zram-tools      zram-tools 0.3.3.1 (zramswap.service)
#   zram-tools-adopt  zram-tools set zram0 up before zram-recompd was installed (its drop-in
#                   masked): `zram-recompd adopt zram0` while a workload swaps, then the
#                   daemon's passes (systemd/adopttest.sh)
#   backing         the packaged zram-recompd-backing.service (pulled in by the daemon's unit)
#                   sets up an encrypted backing file for zram0; swap on it, the daemon writes
#                   back; stop, swapoff, reset, the backing unit's stop tears it down
#                   (systemd/backingtest.sh)
# VM_SYSTEMD_BOOTS selects the boots (default "base zram-generator zram-tools zram-tools-adopt
# backing"). Prints one
# "vm: PASS|FAIL|SKIP systemd_NAME [release][: detail]" line per check; a check without a
# result line (VM hung, crashed, driver died) is a failure, and so are kernel warnings (as
# systemd_kernel_log, systemd_zramgen_kernel_log, systemd_zramtools_kernel_log). run.sh runs
# this and counts the lines; alone, it ends with "vm-systemd: N passed, N failed, N skipped".
# The qemu runner and the console parser are host-lib.sh's (vm_run), shared with run.sh.
#
# Usage: run-systemd.sh [6.12|7.3] (default: the newest kernel).
# Environment: BUILDDIR (default build), ZRAM_RECOMPD_DEB, ZRAM_RECOMPD_VM_KERNEL, QEMU
# (default qemu-system-x86_64), VM_SYSTEMD_TIMEOUT (each VM, s, default 300), VM_KEEP_LOGS
# (default 10), VM_SYSTEMD_BOOTS.
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
CHECKS="systemd_boot systemd_package systemd_verify systemd_start
	systemd_sandbox systemd_protect systemd_status systemd_configure systemd_pass
	systemd_journal_fields systemd_events
	systemd_watchdog
	systemd_reload systemd_reload_invalid systemd_once_beside systemd_stop systemd_once_alone
	systemd_watchdog_long_pass
	systemd_hotadd_restart systemd_security"
# A kernel without CONFIG_ZRAM_MULTI_COMP: the units are skipped by ExecCondition=; only that.
case $K in
*-nomc) CHECKS="systemd_boot systemd_package systemd_verify systemd_condition" ;;
esac

BOOTS=${VM_SYSTEMD_BOOTS:-base zram-generator zram-tools zram-tools-adopt backing}
# The hook boots need recompression (the drop-ins write secondaries): not on a -nomc kernel.
case $K in
*-nomc) case " $BOOTS " in *" base "*) BOOTS=base ;; *) BOOTS= ;; esac ;;
esac
# hook_checks TOOL: the checks of hooktest.sh for TOOL's boot, in its order.
hook_checks() {
	case $1 in
	zram-generator) _t=zramgen ;;
	zram-tools) _t=zramtools ;;
	zram-tools-adopt)
		echo "systemd_zramadopt_before systemd_zramadopt_adopt systemd_zramadopt_pass"
		return
		;;
	backing)
		echo "systemd_backing_setup systemd_backing_writeback systemd_backing_teardown"
		return
		;;
	*) vm_die "unknown boot '$1' in VM_SYSTEMD_BOOTS (base zram-generator zram-tools zram-tools-adopt backing)" ;;
	esac
	echo "systemd_${_t}_package systemd_${_t}_setup systemd_${_t}_order systemd_${_t}_pass"
	# systemd/dicttest.sh: the encrypted dictionary's round trip, on zram-generator's boot
	[ "$_t" = zramgen ] &&
		echo "systemd_zramgen_dict_save systemd_zramgen_dict_load systemd_zramgen_dict_isolation"
	return 0
}
# boot_checks BOOT: the checks of one boot.
boot_checks() {
	if [ "$1" = base ]; then
		echo "$CHECKS"
	else
		hook_checks "$1"
	fi
}

# fail_all REASON: every check of every boot fails (the VMs could not run); then the summary.
fail_all() {
	for _b in $BOOTS; do
		# shellcheck disable=SC2046 # a word list
		vm_result_each FAIL "$1" $(boot_checks "$_b")
	done
	vm_summary vm-systemd
	exit 1
}
for b in $BOOTS; do
	boot_checks "$b" >/dev/null
done

# The host's systemd is what boots in the VM (a container may lack it: then it is installed,
# which does not make it PID 1 here).
vm_need_tools "$QEMU:qemu-system-x86" busybox:busybox-static cpio:cpio systemctl:systemd \
	/usr/lib/systemd/systemd:systemd
[ -z "$VM_MISSING" ] || fail_all "missing:$VM_MISSING"
vm_kernel "$K" || fail_all "no test kernel (build-kernel.sh $K failed)"
# The image is the host's systemd, an x86-64 program (run.sh runs no systemd VM on arm64).
[ "$VM_ARCH" = x86_64 ] || fail_all "kernel $K is $VM_ARCH: the systemd VM boots the host's x86-64 systemd"
# The hook images name the kernel's release (modules.builtin).
export VM_KERNEL_RELEASE="$VM_LABEL"

for b in $BOOTS; do
	checks=$(boot_checks "$b")
	if [ "$b" = base ]; then
		image=systemd name=systemd-console unit=zram-recompd-vmtest.service
		klog=systemd_kernel_log
	elif [ "$b" = backing ]; then
		image=systemd-backing name=systemd-backing-console unit=zram-recompd-backingtest.service
		klog=systemd_backing_kernel_log
	else
		image=systemd-$b name=systemd-$b-console unit=zram-recompd-hooktest.service
		klog=$(echo "$checks" | sed 's/ .*//; s/_[a-z]*$/_kernel_log/')
	fi
	INITRD=${VM_OUTDIR:-$HERE/out}/$image-initramfs.cpio.gz
	if ! "$HERE/mkinitramfs.sh" "$INITRD" "$image"; then
		# shellcheck disable=SC2086 # a word list
		vm_result_each FAIL "mkinitramfs.sh ($image image) failed" $checks
		continue
	fi
	# systemd.show_status=error: only failures on the console, between the driver's lines.
	# shellcheck disable=SC2086 # a word list
	vm_run "$name" "$K" "$VM_IMAGE" "$INITRD" "$LIMIT" VM_SYSTEMD_TIMEOUT "$klog" \
		"rdinit=/usr/lib/systemd/systemd systemd.unit=$unit systemd.show_status=error" \
		$checks
done
vm_summary vm-systemd
