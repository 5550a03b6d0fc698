#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd VM test: boots the test kernel (build-kernel.sh) under qemu TCG with the host's
# systemd as PID 1 (initramfs from systemd/mkinitramfs.sh; rdinit=/usr/lib/systemd/systemd,
# systemd.unit=zram-recompd-vmtest.service), where systemd/vmtest.sh checks the installed
# zram-recompd.service. Prints one "vm: PASS|FAIL|SKIP systemd_NAME[: detail]" line per check;
# a check without a result line (VM hung, crashed, driver died) is a failure, and so are kernel
# warnings (as systemd_kernel_log). run.sh runs this and counts the lines; alone, it ends with
# "vm-systemd: N passed, N failed, N skipped".
#
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
# In the order vmtest.sh runs them.
CHECKS="systemd_boot systemd_verify systemd_start systemd_sandbox systemd_status
	systemd_configure systemd_pass systemd_events systemd_watchdog systemd_reload
	systemd_reload_invalid systemd_stop systemd_security"

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
	n=$2
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
if ! KERNEL=$("$HERE/build-kernel.sh" | tail -n 1) || [ ! -r "$KERNEL" ]; then
	all FAIL "no test kernel (build-kernel.sh failed)"
	summary
fi
INITRD=$OUTDIR/systemd-initramfs.cpio.gz
if ! "$HERE/systemd/mkinitramfs.sh" "$INITRD"; then
	all FAIL "systemd/mkinitramfs.sh failed"
	summary
fi

stamp=$(date +%Y%m%d-%H%M%S)
LOG=$OUTDIR/systemd-console-$stamp.log
ls -1t "$OUTDIR"/systemd-console-*.log 2>/dev/null | tail -n +"${VM_KEEP_LOGS:-10}" |
	xargs -r rm -f
echo "vm: booting $KERNEL with systemd as PID 1 (TCG), console log $LOG" >&2
t0=$(vm_now)
# systemd.show_status=error: only failures on the console, between the driver's lines.
timeout -k 10 "$LIMIT" "$QEMU" -machine accel=tcg -cpu max -smp 2 -m 1536 \
	-nographic -no-reboot -kernel "$KERNEL" -initrd "$INITRD" \
	-append "console=ttyS0 panic=-1 quiet rdinit=/usr/lib/systemd/systemd \
systemd.unit=zram-recompd-vmtest.service systemd.show_status=error" </dev/null >"$LOG" 2>&1
rc=$?
echo "vm: systemd VM: qemu exited $rc after $(($(vm_now) - t0)) s" >&2
tr -d '\r' <"$LOG" >"$LOG.tmp" && mv "$LOG.tmp" "$LOG"
ln -sf "$(basename "$LOG")" "$OUTDIR/systemd-console.log"

done_seen=0
grep -q '^VMTEST DONE' "$LOG" && done_seen=1
[ "$done_seen" -eq 1 ] && [ "$rc" -ne 0 ] &&
	echo "vm: warning: the systemd VM finished but did not exit by itself (qemu $rc)" >&2
bad=0
for t in $CHECKS; do
	line=$(grep -E "^VMTEST (PASS|FAIL|SKIP) $t(:|\$)" "$LOG" | head -n 1)
	if [ -z "$line" ]; then
		if [ "$done_seen" -eq 1 ]; then
			result FAIL "$t" "no result line"
		elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			result FAIL "$t" \
				"VM timed out (VM_SYSTEMD_TIMEOUT=$LIMIT s) before it finished"
		else
			result FAIL "$t" "VM stopped (qemu exit $rc) before it finished"
		fi
		bad=1
		continue
	fi
	st=$(echo "$line" | cut -d' ' -f2)
	reason=$(echo "$line" | sed -nE "s/^VMTEST [A-Z]+ $t: //p")
	[ "$st" = FAIL ] && bad=1
	if [ -n "$reason" ]; then
		result "$st" "$t" "$reason"
	else
		result "$st" "$t"
	fi
done
# Kernel warnings, oopses or lockups in dmesg (the driver prints them as VMKERNEL lines).
if grep -q '^VMKERNEL ' "$LOG"; then
	result FAIL systemd_kernel_log "$(grep -c '^VMKERNEL ' "$LOG") warning line(s) in dmesg"
	grep '^VMKERNEL ' "$LOG" | head -n 20 >&2
	bad=1
fi
[ "$bad" -ne 0 ] && echo "vm: systemd console log: $LOG" >&2
summary
