#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real-kernel test tier, once per kernel of VM_KERNELS (default: 6.12 and 7.3): boots the
# test kernel (build-kernel.sh K) under qemu TCG with an initramfs of busybox, zram-recompd and
# the scenarios (mkinitramfs.sh; all scenarios in one boot), parses the
# "VMTEST PASS|FAIL|SKIP name" lines from the serial console, runs the systemd VM test
# (run-systemd.sh K: systemd as PID 1, the installed unit, then one boot each with Debian's
# zram-generator and zram-tools; each of its checks counts as one test; "systemd" in
# VM_TESTS selects every boot, systemd_base, systemd_zram_generator, systemd_zram_tools,
# systemd_zram_tools_adopt, systemd_backing one)
# on the same kernel, and at the end the
# host scenario host_no_multicomp once. Every result line names its kernel:
# "vm: PASS|FAIL|SKIP name [release][: reason]". Last line: "vm: N passed, N failed, N skipped".
# Booting, console logs and the parsing of the VMTEST lines are host-lib.sh's (vm_run), shared
# with run-systemd.sh.
#
# Environment: BUILDDIR (default build), VM_KERNELS="6.12 7.3 6.12-nomc 6.12-arm64" (kernels
# to run on; 6.12-nomc, without CONFIG_ZRAM_MULTI_COMP, runs only the nomc_* scenarios and, of
# the systemd VM, the check that the units are skipped; 6.12-arm64, arm64 with 16 KiB pages
# under qemu-system-aarch64, only the scenarios of VM_ARM64_TESTS in host-lib.sh and no
# systemd VM (the host's systemd is an x86-64 program), with the programs of
# VM_TARGET_BUILDDIR, default build-arm64: tests/cross/build.sh arm64, make deb-cross),
# VM_TESTS="name ..." (default: all; host_no_multicomp is a valid name too),
# ZRAM_RECOMPD_VM_KERNEL (one given bzImage instead, run once unless VM_KERNELS is set), CORPUS,
# VM_PAGES, VM_TIMEOUT (whole VM, s, default 900: the scenarios' own times add up to
# 468-480 s on a 2-core host, 2026-12-06), VM_SCENARIO_TIMEOUT (each scenario, s,
# default 120), QEMU (default qemu-system-x86_64), VM_OUTDIR (images, logs and results; default
# tests/vm/out: runs side by side each need their own), VM_KEEP_LOGS (console logs kept per kernel,
# default 10).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
VM_DIR=$HERE
# shellcheck source=tests/vm/host-lib.sh
. "$HERE/host-lib.sh"
cd "$TOP" || exit 1

BUILDDIR=${BUILDDIR:-build}
export BUILDDIR
OUTDIR=${VM_OUTDIR:-$HERE/out}
mkdir -p "$OUTDIR"
QEMU=${QEMU:-qemu-system-x86_64}
export QEMU
VM_TIMEOUT=${VM_TIMEOUT:-900}
HOST_TESTS="host_no_multicomp"

if [ -n "${VM_KERNELS:-}" ]; then
	KERNELS=$VM_KERNELS
elif [ -n "${ZRAM_RECOMPD_VM_KERNEL:-}" ]; then
	# build-kernel.sh returns the given image for any name; one run is enough.
	KERNELS=$VM_KERNEL_NEWEST
else
	KERNELS=$VM_KERNELS_KNOWN
fi

ALL_GUEST=$(cd "$HERE/scenarios" && printf '%s\n' *.sh | sed 's/\.sh$//' | tr '\n' ' ')
if [ -n "${VM_TESTS:-}" ]; then
	WANT=$VM_TESTS
else
	WANT="$ALL_GUEST $HOST_TESTS systemd"
fi
GUEST=
HOST=
SYSTEMD=
# "systemd" selects every boot of the systemd VM test; systemd_base, systemd_zram_generator
# systemd_zram_tools, systemd_zram_tools_adopt and systemd_backing one of them (run-systemd.sh,
# VM_SYSTEMD_BOOTS).
SYSTEMD_BOOTS=
for t in $WANT; do
	case $t in
	systemd) SYSTEMD_BOOTS="base zram-generator zram-tools zram-tools-adopt backing" ;;
	systemd_base) SYSTEMD_BOOTS="$SYSTEMD_BOOTS base" ;;
	systemd_zram_generator) SYSTEMD_BOOTS="$SYSTEMD_BOOTS zram-generator" ;;
	systemd_zram_tools) SYSTEMD_BOOTS="$SYSTEMD_BOOTS zram-tools" ;;
	systemd_zram_tools_adopt) SYSTEMD_BOOTS="$SYSTEMD_BOOTS zram-tools-adopt" ;;
	systemd_backing) SYSTEMD_BOOTS="$SYSTEMD_BOOTS backing" ;;
	esac
	case $t in systemd | systemd_base | systemd_zram_generator | systemd_zram_tools | \
		systemd_zram_tools_adopt | systemd_backing)
		SYSTEMD=1
		continue
		;;
	esac
	case " $HOST_TESTS " in
	*" $t "*) HOST="$HOST $t" ;;
	*) GUEST="$GUEST $t" ;;
	esac
done

# run_guest K: the busybox VM with every selected scenario, in one boot.
run_guest() {
	[ -n "$GUEST" ] || return 0
	INITRD=$OUTDIR/initramfs.cpio.gz
	if ! VM_TESTS="$GUEST" VM_KSRC="${VM_KSRC:-}" VM_ARCH="${VM_ARCH:-x86_64}" \
		"$HERE/mkinitramfs.sh" "$INITRD" tests; then
		# shellcheck disable=SC2086 # a word list
		vm_result_each FAIL "mkinitramfs.sh failed" $GUEST
		return
	fi
	# console-K-*.log; console-K.log: the newest of kernel K; console.log: of any kernel.
	_res=$OUTDIR/guest-results-$1.txt
	# shellcheck disable=SC2086 # a word list
	vm_run console "$1" "$VM_IMAGE" "$INITRD" "$VM_TIMEOUT" VM_TIMEOUT kernel_log "" \
		$GUEST >"$_res"
	retry_guest "$1" "$_res"
	trace_checks "$1"
}

# retry_guest K RESULTS: scenarios that failed in the boot of all (at most VM_RETRY_MAX, 3)
# run once more, alone, in a boot of their own. Several of them squeeze memory with a
# balloon, and on a loaded host the guest's reclaim timing differs from run to run (CI run
# of 88a6351: 1 of 130 failed, the next runs passed). The first failure stays in the output
# as a "vm: RETRY" line, not counted; the second boot's result is the one that counts. More
# failures than that are not timing: they are reported as they are.
retry_guest() {
	_again=
	_n=0
	while IFS= read -r _l; do
		case $_l in
		"vm: FAIL kernel_log "*) ;;
		"vm: FAIL "*)
			_again="$_again $(echo "$_l" | cut -d' ' -f3)"
			_n=$((_n + 1))
			;;
		esac
	done <"$2"
	if [ "$_n" -eq 0 ] || [ "$_n" -gt "${VM_RETRY_MAX:-3}" ]; then
		cat "$2"
		return
	fi
	VM_FAILED=$((VM_FAILED - _n))
	while IFS= read -r _l; do
		case $_l in
		"vm: FAIL kernel_log "*) echo "$_l" ;;
		"vm: FAIL "*) echo "vm: RETRY ${_l#vm: FAIL }" ;;
		*) echo "$_l" ;;
		esac
	done <"$2"
	if ! VM_TESTS="${_again# }" VM_KSRC="${VM_KSRC:-}" VM_ARCH="${VM_ARCH:-x86_64}" \
		"$HERE/mkinitramfs.sh" "$INITRD" tests >/dev/null; then
		# shellcheck disable=SC2086 # a word list
		vm_result_each FAIL "mkinitramfs.sh failed (retry)" $_again
		return
	fi
	_first_log=$VM_LOG
	# shellcheck disable=SC2086 # a word list
	vm_run console-retry "$1" "$VM_IMAGE" "$INITRD" "$VM_TIMEOUT" VM_TIMEOUT \
		kernel_log_retry "" $_again
	# trace_checks reads the log of the boot that ran strace_allowlist last
	case " $_again " in *" strace_allowlist "*) ;; *) VM_LOG=$_first_log ;; esac
}

# trace_checks K: the strace_allowlist scenario printed its traces (VMTRACE lines); each is
# checked here with the strace tier's checker, on the real root "/": written only the
# allowlisted zram attributes, proc/pressure (PSI triggers), the state directory's files and
# the metrics file, and read nothing outside /sys, /proc, /dev, /boot, the libraries and the
# configuration. One result per trace: strace_allowlist_once, strace_allowlist_daemon.
trace_checks() {
	case " $GUEST " in *" strace_allowlist "*) ;; *) return 0 ;; esac
	vm_test_result "$VM_LOG" strace_allowlist
	for _name in strace_allowlist_once strace_allowlist_daemon; do
		# A trace printed before the scenario failed is still checked; none is missing
		# only when the scenario passed (its failure or skip is reported already).
		grep -q "^VMTRACE BEGIN $_name " "$VM_LOG" || [ "$VM_ST" = PASS ] || continue
		check_vm_trace "$1" "$_name"
	done
}

# check_vm_trace K NAME: the block "VMTRACE BEGIN NAME state=DIR metrics=FILE conf=FILE" ...
# "VMTRACE END NAME" of the console log, checked; the trace is kept in out/trace-K-NAME.txt.
check_vm_trace() {
	_f=$OUTDIR/trace-$1-$2.txt
	_hdr=$(grep -m1 "^VMTRACE BEGIN $2 " "$VM_LOG")
	if [ -z "$_hdr" ]; then
		vm_result FAIL "$2" "no trace in the console log"
		return
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		vm_result SKIP "$2" "python3 missing (tests/deps.sh test)"
		return
	fi
	awk -v n="$2" '$0 == "VMTRACE END " n { on = 0 }
		on { sub(/^VMTRACE /, ""); print }
		index($0, "VMTRACE BEGIN " n " ") == 1 { on = 1 }' "$VM_LOG" >"$_f"
	_st='' _me='' _cf=''
	for _w in $_hdr; do
		case $_w in
		state=*) _st=${_w#state=} ;;
		metrics=*) _me=${_w#metrics=} ;;
		conf=*) _cf=${_w#conf=} ;;
		esac
	done
	if ! python3 "$TOP/tests/strace/check_trace.py" "$_f" --root / --root-read sys \
		--root-read proc --root-read dev --root-read boot --state "$_st" --metrics "$_me" \
		--read "$_cf" --writes "$_f.writes" >"$_f.violations" 2>&1; then
		vm_result FAIL "$2" "$(head -n 3 "$_f.violations" | tr '\n' ' ' | cut -c1-600)"
		return
	fi
	# What a pass writes must be there: a trace of nothing would pass the check vacuously.
	for _want in 'root:sys/block/zram[0-9]+/recompress' 'root:sys/block/zram[0-9]+/idle' \
		'state:state' "metrics:${_me##*/}"; do
		if ! grep -qxE "$_want" "$_f.writes"; then
			vm_result FAIL "$2" "no write of $_want in the trace ($(tr '\n' ' ' <"$_f.writes"))"
			return
		fi
	done
	vm_result PASS "$2" "$(grep -c . "$_f") calls; written: $(tr '\n' ' ' <"$_f.writes")"
}

# run_systemd K: run-systemd.sh's "vm: PASS|FAIL|SKIP name [release][: reason]" lines count
# here (its own summary line does not); its messages go to stderr.
run_systemd() {
	[ -n "$SYSTEMD" ] || return 0
	n_sd=0
	VM_SYSTEMD_BOOTS=$SYSTEMD_BOOTS "$HERE/run-systemd.sh" "$1" >"$OUTDIR/systemd-results-$1.txt"
	while IFS= read -r l; do
		case $l in
		"vm: PASS "* | "vm: FAIL "* | "vm: SKIP "*) ;;
		*) continue ;;
		esac
		vm_count "$(echo "$l" | cut -d' ' -f2)"
		n_sd=$((n_sd + 1))
		echo "$l"
	done <"$OUTDIR/systemd-results-$1.txt"
	[ "$n_sd" -gt 0 ] || vm_result FAIL systemd "run-systemd.sh reported no result"
}

# arm64_build: the arm64 programs of the 6.12-arm64 image (mkinitramfs.sh, VM_ARCH=arm64):
# the cross build in build-arm64 (tests/cross/build.sh: an incremental make, a few seconds
# when the cross tier of make check has just built it) and its package (tests/cross/deb.sh,
# only when the .deb is missing or older than the program), unless VM_TARGET_BUILDDIR names
# a build to use as it is. Its messages go to stderr; a failure leaves the scenarios to
# report what is missing.
arm64_build() {
	[ -z "${VM_TARGET_BUILDDIR:-}" ] || return 0
	tests/cross/build.sh arm64 >&2 || return 0
	case " $GUEST " in *" autopkgtest "*) ;; *) return 0 ;; esac
	_ver=$(sed -n 's/^VERSION := //p' Makefile)
	_deb=build-arm64/deb/zram-recompd_${_ver}_arm64.deb
	[ -f "$_deb" ] && [ -z "$(find build-arm64/zram-recompd -newer "$_deb")" ] && return 0
	tests/cross/deb.sh arm64 >&2 || true
}

# fail_kernel REASON: every test of this kernel fails (its VMs cannot run).
fail_kernel() {
	# shellcheck disable=SC2086 # a word list
	vm_result_each FAIL "$1" $GUEST
	[ -z "$SYSTEMD" ] || vm_result FAIL systemd "$1"
}

# Host tools, installed with apt-get (as root) only when a command is missing.
VM_MISSING=
if [ -n "$GUEST$SYSTEMD" ]; then
	vm_need_tools "$QEMU:qemu-system-x86" busybox:busybox-static cpio:cpio zstd:zstd
	case " $KERNELS " in
	*-arm64" "*)
		MISSING_X86=$VM_MISSING
		vm_need_tools "${QEMU_AARCH64:-qemu-system-aarch64}:qemu-system-arm" readelf:binutils
		VM_MISSING="$MISSING_X86$VM_MISSING"
		;;
	esac
fi

# The nomc_* scenarios need a kernel without CONFIG_ZRAM_MULTI_COMP (6.12-nomc), which runs
# only them (the others need recompression); its systemd VM checks only that the units are
# skipped (run-systemd.sh).
# The arm64 kernel runs only VM_ARM64_TESTS (host-lib.sh), and no systemd VM; the scenarios
# of VM_ARM64_ONLY (the arm64 package's autopkgtest) run only there.
ALL_SEL=$GUEST
ALL_SYSTEMD=$SYSTEMD
ARM64_TESTS=$(echo "$VM_ARM64_TESTS" | tr '\n' ' ')
for K in $KERNELS; do
	VM_LABEL=$K
	GUEST=
	SYSTEMD=$ALL_SYSTEMD
	for t in $ALL_SEL; do
		case $K in
		*-nomc) case $t in nomc_*) GUEST="$GUEST $t" ;; esac ;;
		*-arm64)
			case " $ARM64_TESTS " in *" $t "*) GUEST="$GUEST $t" ;; esac
			SYSTEMD=
			;;
		*)
			case " $VM_ARM64_ONLY " in *" $t "*) continue ;; esac
			case $t in nomc_*) ;; *) GUEST="$GUEST $t" ;; esac
			;;
		esac
	done
	[ -n "$GUEST$SYSTEMD" ] || continue
	if [ -n "$VM_MISSING" ]; then
		fail_kernel "missing:$VM_MISSING"
		continue
	fi
	t0=$(vm_now)
	if ! vm_kernel "$K"; then
		fail_kernel "no test kernel (build-kernel.sh $K failed)"
		continue
	fi
	echo "vm: kernel $K: $VM_LABEL, $VM_IMAGE ($(($(vm_now) - t0)) s to build or find)" >&2
	t0=$(vm_now)
	[ "$VM_ARCH" != arm64 ] || [ -z "$GUEST" ] || arm64_build
	run_guest "$K"
	t1=$(vm_now)
	run_systemd "$K"
	echo "vm: kernel $VM_LABEL: busybox VM $((t1 - t0)) s, systemd VM $(($(vm_now) - t1)) s" >&2
done
VM_LABEL=
for t in $HOST; do
	VMTEST_NAME=$t sh "$HERE/host/$t.sh" >"$OUTDIR/host-$t.log" 2>&1
	vm_test_result "$OUTDIR/host-$t.log" "$t"
	# Details only when it did not pass.
	[ "$VM_ST" = PASS ] || grep -v '^VMTEST ' "$OUTDIR/host-$t.log" | sed "s/^/  /" >&2
	if [ -z "$VM_ST" ]; then
		vm_result FAIL "$t" "host scenario printed no result"
	elif [ -n "$VM_REASON" ]; then
		vm_result "$VM_ST" "$t" "$VM_REASON"
	else
		vm_result "$VM_ST" "$t"
	fi
done
vm_summary vm
