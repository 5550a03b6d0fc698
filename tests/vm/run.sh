#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real-kernel test tier, once per kernel of VM_KERNELS (default: 6.12 and 7.3): boots the
# test kernel (build-kernel.sh K) under qemu TCG with an initramfs of busybox, zram-recompd and
# the scenarios (mkinitramfs.sh; all scenarios in one boot), parses the
# "VMTEST PASS|FAIL|SKIP name" lines from the serial console, runs the systemd VM test
# (run-systemd.sh K: systemd as PID 1, the installed unit; each of its checks counts as one
# test, name "systemd" in VM_TESTS selects them all) on the same kernel, and at the end the
# host scenario host_no_multicomp once. Every result line names its kernel:
# "vm: PASS|FAIL|SKIP name [release][: reason]". Last line: "vm: N passed, N failed, N skipped".
#
# Environment: BUILDDIR (default build), VM_KERNELS="6.12 7.3" (kernels to run on),
# VM_TESTS="name ..." (default: all; host_no_multicomp is a valid name too),
# ZRAM_RECOMPD_VM_KERNEL (one given bzImage instead, run once unless VM_KERNELS is set), CORPUS,
# VM_PAGES, VM_TIMEOUT (whole VM, s, default 480), VM_SCENARIO_TIMEOUT (each scenario, s,
# default 120), QEMU (default qemu-system-x86_64), VM_KEEP_LOGS (console logs kept per kernel,
# default 10).
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
export QEMU
HOST_TESTS="host_no_multicomp"

if [ -n "${VM_KERNELS:-}" ]; then
	KERNELS=$VM_KERNELS
elif [ -n "${ZRAM_RECOMPD_VM_KERNEL:-}" ]; then
	# build-kernel.sh returns the given image for any name; one run is enough.
	KERNELS=$VM_KERNEL_NEWEST
else
	KERNELS=$VM_KERNELS_KNOWN
fi

ALL_GUEST=$(cd "$HERE/scenarios" && ls *.sh | sed 's/\.sh$//' | tr '\n' ' ')
if [ -n "${VM_TESTS:-}" ]; then
	WANT=$VM_TESTS
else
	WANT="$ALL_GUEST $HOST_TESTS systemd"
fi
GUEST=
HOST=
SYSTEMD=
for t in $WANT; do
	[ "$t" = systemd ] && SYSTEMD=1 && continue
	case " $HOST_TESTS " in
	*" $t "*) HOST="$HOST $t" ;;
	*) GUEST="$GUEST $t" ;;
	esac
done

PASSED=0
FAILED=0
SKIPPED=0
KLABEL=
count() { # PASS|FAIL|SKIP
	case $1 in
	PASS) PASSED=$((PASSED + 1)) ;;
	FAIL) FAILED=$((FAILED + 1)) ;;
	SKIP) SKIPPED=$((SKIPPED + 1)) ;;
	esac
}
result() { # PASS|FAIL|SKIP name [reason]; the name carries the kernel being tested
	count "$1"
	st=$1
	n=$2${KLABEL:+ [$KLABEL]}
	shift 2
	if [ $# -gt 0 ]; then
		echo "vm: $st $n: $*"
	else
		echo "vm: $st $n"
	fi
}

summary() {
	echo "vm: $PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
	exit $?
}

stamp=$(date +%Y%m%d-%H%M%S)

# run_guest K IMAGE: the busybox VM with every selected scenario, in one boot.
run_guest() {
	[ -n "$GUEST" ] || return 0
	LOG=$OUTDIR/console-$1-$stamp.log
	# Keep the newest few console logs of this kernel only.
	ls -1t "$OUTDIR"/console-"$1"-*.log 2>/dev/null | tail -n +"${VM_KEEP_LOGS:-10}" |
		xargs -r rm -f
	INITRD=$OUTDIR/initramfs.cpio.gz
	if ! VM_TESTS="$GUEST" "$HERE/mkinitramfs.sh" "$INITRD" tests; then
		for t in $GUEST; do
			result FAIL "$t" "mkinitramfs.sh failed"
		done
		return
	fi
	echo "vm: booting $2 (TCG), console log $LOG" >&2
	vm_boot "$2" "$INITRD" "$LOG" "${VM_TIMEOUT:-480}"
	echo "vm: qemu exited $VM_RC after $VM_SECS s" >&2
	# console.log: the newest of any kernel; console-K.log: the newest of kernel K.
	ln -sf "$(basename "$LOG")" "$OUTDIR/console.log"
	ln -sf "$(basename "$LOG")" "$OUTDIR/console-$1.log"
	vm_results "$LOG" "VM_TIMEOUT=${VM_TIMEOUT:-480} s" kernel_log $GUEST
	grep '^VMTIME ' "$LOG" | sed "s/^VMTIME /vm: time [$KLABEL] /" >&2
	if [ "$VM_BAD" -ne 0 ]; then
		echo "vm: console log: $LOG" >&2
		grep -v '^VMKERNEL ' "$LOG" | grep -E 'Kernel panic|BUG:|Oops|WARNING:|Call Trace' |
			head -n 20 >&2
	fi
}

# run_systemd K: run-systemd.sh's "vm: PASS|FAIL|SKIP name [release][: reason]" lines count
# here (its own summary line does not); its messages go to stderr.
run_systemd() {
	[ -n "$SYSTEMD" ] || return 0
	n_sd=0
	"$HERE/run-systemd.sh" "$1" >"$OUTDIR/systemd-results-$1.txt"
	while IFS= read -r l; do
		case $l in
		"vm: PASS "* | "vm: FAIL "* | "vm: SKIP "*) ;;
		*) continue ;;
		esac
		count "$(echo "$l" | cut -d' ' -f2)"
		n_sd=$((n_sd + 1))
		echo "$l"
	done <"$OUTDIR/systemd-results-$1.txt"
	[ "$n_sd" -gt 0 ] || result FAIL systemd "run-systemd.sh reported no result"
}

# Host tools, installed with apt-get (as root) only when a command is missing.
missing=
if [ -n "$GUEST$SYSTEMD" ]; then
	for c in "$QEMU:qemu-system-x86" busybox:busybox-static cpio:cpio zstd:zstd; do
		command -v "${c%%:*}" >/dev/null 2>&1 || missing="$missing ${c#*:}"
	done
	[ -n "$missing" ] && (vm_apt_install $missing) && missing=
fi

for K in $KERNELS; do
	KLABEL=$K
	[ -n "$GUEST$SYSTEMD" ] || break
	if [ -n "$missing" ]; then
		for t in $GUEST; do
			result FAIL "$t" "missing:$missing"
		done
		[ -n "$SYSTEMD" ] && result FAIL systemd "missing:$missing"
		continue
	fi
	t0=$(vm_now)
	if ! IMAGE=$("$HERE/build-kernel.sh" "$K" | tail -n 1) || [ ! -r "$IMAGE" ]; then
		for t in $GUEST; do
			result FAIL "$t" "no test kernel (build-kernel.sh $K failed)"
		done
		[ -n "$SYSTEMD" ] && result FAIL systemd "no test kernel (build-kernel.sh $K failed)"
		continue
	fi
	rel=$(vm_kernel_release "$IMAGE")
	KLABEL=${rel:-$K}
	echo "vm: kernel $K: $KLABEL, $IMAGE ($(($(vm_now) - t0)) s to build or find)" >&2
	t0=$(vm_now)
	run_guest "$K" "$IMAGE"
	t1=$(vm_now)
	run_systemd "$K"
	echo "vm: kernel $KLABEL: busybox VM $((t1 - t0)) s, systemd VM $(($(vm_now) - t1)) s" >&2
done
KLABEL=
for t in $HOST; do
	out=$(VMTEST_NAME=$t sh "$HERE/host/$t.sh" 2>&1)
	line=$(echo "$out" | grep -E "^VMTEST (PASS|FAIL|SKIP) $t(:|\$)" | head -n 1)
	# Details only when it did not pass.
	case $line in
	"VMTEST PASS "*) ;;
	*) echo "$out" | grep -v '^VMTEST ' | sed "s/^/  /" >&2 ;;
	esac
	if [ -z "$line" ]; then
		result FAIL "$t" "host scenario printed no result"
		continue
	fi
	st=$(echo "$line" | cut -d' ' -f2)
	reason=$(echo "$line" | sed -nE "s/^VMTEST [A-Z]+ $t: //p")
	if [ -n "$reason" ]; then
		result "$st" "$t" "$reason"
	else
		result "$st" "$t"
	fi
done
summary
