#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real-kernel test tier: boots the test kernel (build-kernel.sh) under qemu TCG with an
# initramfs of busybox, zram-recompd and the scenarios (mkinitramfs.sh), parses the
# "VMTEST PASS|FAIL|SKIP name" lines from the serial console, then runs the host scenario
# host_no_multicomp. Last line: "vm: N passed, N failed, N skipped".
# The systemd VM test (run-systemd.sh: systemd as PID 1, the installed unit) runs in between;
# each of its checks counts as one test (name "systemd" in VM_TESTS selects them all).
#
# Environment: BUILDDIR (default build), VM_TESTS="name ..." (default: all; host_no_multicomp
# is a valid name too), ZRAM_RECOMPD_VM_KERNEL, CORPUS, VM_PAGES, VM_TIMEOUT (whole VM, s,
# default 480), VM_SCENARIO_TIMEOUT (each scenario, s, default 120), QEMU (default
# qemu-system-x86_64), VM_KEEP_LOGS (number of console logs kept, default 10).
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
HOST_TESTS="host_no_multicomp"

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

summary() {
	echo "vm: $PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
	exit $?
}

stamp=$(date +%Y%m%d-%H%M%S)
LOG=$OUTDIR/console-$stamp.log
# Keep the newest few console logs only.
ls -1t "$OUTDIR"/console-*.log 2>/dev/null | tail -n +"${VM_KEEP_LOGS:-10}" | xargs -r rm -f

run_guest() {
	[ -n "$GUEST" ] || return 0
	# Host tools, installed with apt-get (as root) only when a command is missing.
	missing=
	for c in "$QEMU:qemu-system-x86" busybox:busybox-static cpio:cpio zstd:zstd; do
		command -v "${c%%:*}" >/dev/null 2>&1 || missing="$missing ${c#*:}"
	done
	if [ -n "$missing" ] && ! (vm_apt_install $missing); then
		for t in $GUEST; do
			result FAIL "$t" "missing:$missing"
		done
		return
	fi
	if ! KERNEL=$("$HERE/build-kernel.sh" | tail -n 1) || [ ! -r "$KERNEL" ]; then
		for t in $GUEST; do
			result FAIL "$t" "no test kernel (build-kernel.sh failed)"
		done
		return
	fi
	INITRD=$OUTDIR/initramfs.cpio.gz
	if ! VM_TESTS="$GUEST" "$HERE/mkinitramfs.sh" "$INITRD" tests; then
		for t in $GUEST; do
			result FAIL "$t" "mkinitramfs.sh failed"
		done
		return
	fi

	echo "vm: booting $KERNEL (TCG), console log $LOG" >&2
	t0=$(vm_now)
	timeout -k 10 "${VM_TIMEOUT:-480}" "$QEMU" -machine accel=tcg -cpu max -smp 2 -m 1536 \
		-nographic -no-reboot -kernel "$KERNEL" -initrd "$INITRD" \
		-append "console=ttyS0 panic=-1 quiet" </dev/null >"$LOG" 2>&1
	rc=$?
	echo "vm: qemu exited $rc after $(($(vm_now) - t0)) s" >&2
	tr -d '\r' <"$LOG" >"$LOG.tmp" && mv "$LOG.tmp" "$LOG"
	ln -sf "$(basename "$LOG")" "$OUTDIR/console.log"

	done_seen=0
	grep -q '^VMTEST DONE' "$LOG" && done_seen=1
	[ "$done_seen" -eq 1 ] && [ "$rc" -ne 0 ] &&
		echo "vm: warning: the VM finished but did not exit by itself (qemu $rc)" >&2
	bad=0
	for t in $GUEST; do
		line=$(grep -E "^VMTEST (PASS|FAIL|SKIP) $t(:|\$)" "$LOG" | head -n 1)
		if [ -z "$line" ]; then
			if [ "$done_seen" -eq 1 ]; then
				result FAIL "$t" "no result line"
			elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
				result FAIL "$t" \
					"VM timed out (VM_TIMEOUT=${VM_TIMEOUT:-480} s) before it finished"
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
	# Kernel warnings, oopses or lockups during the run fail the tier (as "kernel_log").
	if grep -q '^VMKERNEL ' "$LOG"; then
		result FAIL kernel_log "$(grep -c '^VMKERNEL ' "$LOG") warning line(s) in dmesg"
		grep '^VMKERNEL ' "$LOG" | head -n 20 >&2
		bad=1
	fi
	grep '^VMTIME ' "$LOG" | sed 's/^VMTIME /vm: time /' >&2
	if [ "$bad" -ne 0 ]; then
		echo "vm: console log: $LOG" >&2
		grep -v '^VMKERNEL ' "$LOG" | grep -E 'Kernel panic|BUG:|Oops|WARNING:|Call Trace' |
			head -n 20 >&2
	fi
}

run_guest
if [ -n "$SYSTEMD" ]; then
	# Its "vm: PASS|FAIL|SKIP name[: reason]" lines count here (its own summary line does
	# not); its messages go to stderr.
	n_sd=0
	"$HERE/run-systemd.sh" >"$OUTDIR/systemd-results.txt"
	while IFS= read -r l; do
		case $l in
		"vm: PASS "* | "vm: FAIL "* | "vm: SKIP "*) ;;
		*) continue ;;
		esac
		st=$(echo "$l" | cut -d' ' -f2)
		n=$(echo "$l" | cut -d' ' -f3)
		n=${n%:}
		reason=$(echo "$l" | sed -nE "s/^vm: [A-Z]+ $n: //p")
		n_sd=$((n_sd + 1))
		if [ -n "$reason" ]; then
			result "$st" "$n" "$reason"
		else
			result "$st" "$n"
		fi
	done <"$OUTDIR/systemd-results.txt"
	[ "$n_sd" -gt 0 ] || result FAIL systemd "run-systemd.sh reported no result"
fi
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
