#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: memory, CPU and latency of recompression policies on the real kernel, side by
# side, in one run (see tests/bench/README and docs/performance.md).
#
# 1. On this machine: block_state parser throughput (bsgen, bsparse, awk, grep), the daemon
#    on large fake devices (scale.sh; BENCH_SCALE=0 skips it) and the advisor's speed on the
#    page file.
# 2. In the VM of the real-kernel tier (tests/vm: the cached kernels, busybox initramfs, qemu
#    TCG): the guest scenarios in tests/bench/guest (static, latency, advise, churn,
#    overhead, swap, writeback, wbcrypt, large), each printing "BENCH key value" lines on the console. Every scenario runs on
#    the first kernel of BENCH_KERNELS (keys as they are); BENCH_OTHER_SCENARIOS (default
#    "static latency swap writeback") run on the others too, their keys prefixed with the kernel
#    ("k7_3.static.once.mem_used_total").
# 3. tests/bench/derive.awk adds ratios and the targets (met or missed), json.awk writes
#    tests/bench/results/latest.json, table.awk prints the markdown tables on stdout.
# The bench asserts nothing: it exits 0 when it could measure, 1 when the VM could not run.
#
# Environment: BENCH_KERNELS (default "6.12 7.3": tests/vm/build-kernel.sh versions),
# BUILDDIR (default build), CORPUS=file (page data, plain or .zst; default:
# pagegen output, VM_PAGES pages, default 8192), BENCH_SCENARIOS="static churn ..." (default
# all), BENCH_PARSE_SLOTS (default 8000000), ZRAM_RECOMPD_VM_KERNEL, VM_TIMEOUT (default
# 2700 s), BENCH_RESULTS (default tests/bench/results/latest.json), BENCH_ICOUNT (qemu -icount
# options, default shift=0,sleep=off; empty: no icount).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# host-lib.sh: the VM tier's qemu runner (vm_boot), console parser and image packer.
VM_DIR=$TOP/tests/vm
# shellcheck source=tests/vm/host-lib.sh
. "$VM_DIR/host-lib.sh"
cd "$TOP" || exit 1

BUILDDIR=${BUILDDIR:-build}
case $BUILDDIR in
/*) BD=$BUILDDIR ;;
*) BD=$TOP/$BUILDDIR ;;
esac
export BUILDDIR
OUT=$HERE/out
RESULTS=${BENCH_RESULTS:-$HERE/results/latest.json}
mkdir -p "$OUT" "$(dirname "$RESULTS")"
KV=$OUT/kv.txt
: >"$KV"
QEMU=${QEMU:-qemu-system-x86_64}
SLOTS=${BENCH_PARSE_SLOTS:-8000000}
SCENARIOS=${BENCH_SCENARIOS:-static latency advise churn overhead swap burst writeback wbcrypt large}
KERNELS=${BENCH_KERNELS:-6.12 7.3}
OTHER_SCENARIOS=${BENCH_OTHER_SCENARIOS:-static latency swap burst writeback}
# qemu -icount: the guest's clock counts instructions (shift=0: one per ns), so timings in the
# VM do not depend on the host's speed or load and repeat within 0.1%; both vCPUs share
# that clock. sleep=off skips idle time. BENCH_ICOUNT= (empty) times with the host's clock.
ICOUNT=${BENCH_ICOUNT-shift=0,sleep=off}

kv() { # key value...
	k=$1
	shift
	echo "$k $*" >>"$KV"
}

log() {
	echo "bench: $*" >&2
}

ns() {
	date +%s%N
}

# seconds T0 T1 (ns)
seconds() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", (b - a) / 1e9 }'
}

for f in "$BD/zram-recompd" "$BD/tools/pagegen" "$BD/tools/bsgen" "$BD/tools/bsparse" \
	"$BD/tools/vmbench" "$BD/tools/swapload"; do
	[ -x "$f" ] || vm_die "$f missing (run: make BUILDDIR=$BUILDDIR all tools)"
done

T_START=$(ns)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/zram-recompd-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

# ---- metadata ----
kv meta.date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
kv meta.git_commit "$(git rev-parse HEAD 2>/dev/null || echo unknown)"
# Read-only check (git status would refresh the index).
if git diff-index --quiet HEAD -- 2>/dev/null; then
	kv meta.git_dirty false
else
	kv meta.git_dirty true
fi
PAGES_FILE=$TMP/pages.bin
if [ -n "${CORPUS:-}" ]; then
	[ -r "$CORPUS" ] || vm_die "CORPUS=$CORPUS is not readable"
	case $CORPUS in
	*.zst) zstd -q -dc "$CORPUS" >"$PAGES_FILE" ;;
	*) cp "$CORPUS" "$PAGES_FILE" ;;
	esac
	kv meta.corpus "$(basename "$CORPUS")"
	meta=${CORPUS%.zst}
	meta=${meta%.bin}.json
	[ -r "$meta" ] && kv meta.corpus_description "$(tr -d '\n' <"$meta" |
		sed -n 's/.*"how": *"\([^"]*\)".*/\1/p')"
else
	"$BD/tools/pagegen" "${VM_PAGES:-8192}" "${VM_SEED:-1}" >"$PAGES_FILE"
	kv meta.corpus "pagegen ${VM_PAGES:-8192} pages seed ${VM_SEED:-1}"
fi
kv meta.corpus_pages $(($(wc -c <"$PAGES_FILE") / 4096))
kv meta.host_cpu "$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -n 1)"
kv meta.host_cpus "$(nproc)"
kv meta.host_load_1min "$(cut -d' ' -f1 /proc/loadavg)"
kv meta.vm "qemu TCG -cpu max -smp 2 -m 1536${ICOUNT:+ -icount $ICOUNT}"
if [ -n "$ICOUNT" ]; then
	kv meta.clock "guest instructions (icount $ICOUNT)"
else
	kv meta.clock "host wall clock"
fi

# ---- 5. parser, natively ----
log "parser: bsgen $SLOTS slots"
BS=$TMP/block_state
"$BD/tools/bsgen" "$SLOTS" 1 --counts >"$BS" 2>"$TMP/bsgen.counts"
kv parser.slots "$SLOTS"
if "$BD/tools/bsparse" "$BS" "$SLOTS" 5 >"$TMP/bsparse.out"; then
	while read -r k v; do
		kv "parser.bsparse.$k" "$v"
	done <"$TMP/bsparse.out"
	# The parser's counts must be bsgen's truth.
	want=$(tr ' ' '\n' <"$TMP/bsgen.counts" | sed 's/=/ /')
	ok=true
	echo "$want" | while read -r k v; do
		[ "$(awk -v k="$k" '$1 == k { print $2 }' "$TMP/bsparse.out")" = "$v" ] || exit 1
	done || ok=false
	kv parser.bsparse.counts_match_bsgen "$ok"
else
	log "bsparse failed"
fi
bytes=$(wc -c <"$BS")
kv parser.bytes "$bytes"
AWK=$(readlink -f "$(command -v awk)")
kv parser.awk.program "$(basename "$AWK")"
best=
for _ in 1 2; do
	t0=$(ns)
	awk '{ a++; f = $3
		if (substr(f, 1, 1) == "s") s++
		if (substr(f, 2, 1) == "w") w++
		if (substr(f, 3, 1) == "h") h++
		if (substr(f, 4, 1) == "i") i++
		if (substr(f, 5, 1) == "r") r++
		if (substr(f, 6, 1) == "n") n++ }
		END { print a + 0, s + 0, w + 0, h + 0, i + 0, r + 0, n + 0 }' "$BS" >"$TMP/awk.out"
	t=$(($(ns) - t0))
	[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
done
kv parser.awk.seconds "$(seconds 0 "$best")"
kv parser.awk.gbps "$(awk -v b="$bytes" -v t="$best" 'BEGIN { printf "%.3f", b / t }')"
kv parser.awk.counts "$(cat "$TMP/awk.out")"
best=
for _ in 1 2 3; do
	t0=$(ns)
	grep -c 'r.$' "$BS" >"$TMP/grep.out"
	t=$(($(ns) - t0))
	[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
done
kv parser.grep.seconds "$(seconds 0 "$best")"
kv parser.grep.gbps "$(awk -v b="$bytes" -v t="$best" 'BEGIN { printf "%.3f", b / t }')"
kv parser.grep.recompressed "$(cat "$TMP/grep.out")"
rm -f "$BS"

# ---- large devices, natively: the daemon on a fake /sys of 1-16 M slots, 1-32 devices ----
if [ "${BENCH_SCALE:-1}" = 1 ]; then
	log "scale: fake devices of 1, 4, 16 M slots and 8, 32 devices (tests/bench/scale.sh)"
	if BUILDDIR=$BD "$HERE/scale.sh" >"$TMP/scale.out"; then
		cat "$TMP/scale.out" >>"$KV"
	else
		log "scale.sh failed"
	fi
fi

# ---- 6. advisor speed, natively ----
case " $SCENARIOS " in
*" advise "*)
	if "$BD/zram-recompd" advise --help >/dev/null 2>&1; then
		t0=$(ns)
		if "$BD/zram-recompd" advise --input "$PAGES_FILE" --json >"$TMP/advise.json" \
			2>"$TMP/advise.err"; then
			t=$(($(ns) - t0))
			kv advise.native.wall_s "$(seconds 0 "$t")"
			p=$(sed -n 's/^{"pages":\([0-9]*\),.*/\1/p' "$TMP/advise.json")
			kv advise.native.pages "$p"
			kv advise.native.pages_per_s "$(awk -v p="$p" -v t="$t" \
				'BEGIN { printf "%.0f", p / (t / 1e9) }')"
		else
			log "advise --input failed: $(head -n 3 "$TMP/advise.err")"
		fi
	fi
	;;
esac

# ---- the VM ----
# run_vm KVER PREFIX SCENARIOS: one boot of kernel KVER running the scenarios; every key it
# measures gets PREFIX ("" for the first kernel).
run_vm() {
	kver=$1
	pre=$2
	scen=$3
	tag=${4:-}
	vm_need_tools "$QEMU:qemu-system-x86" busybox:busybox-static cpio:cpio zstd:zstd
	if [ -n "$VM_MISSING" ]; then
		log "missing:$VM_MISSING"
		return 1
	fi
	vm_kernel "$kver" || {
		log "no test kernel $kver"
		return 1
	}
	KERNEL=$VM_IMAGE
	tests=
	for s in $scen; do
		[ -f "$HERE/guest/bench_$s.sh" ] || vm_die "no scenario $s (tests/bench/guest)"
		tests="$tests bench_$s"
	done
	INITRD=$OUT/initramfs-$kver$tag.cpio.gz
	# The tier's image (busybox, zram-recompd and its libraries, /init, /vm/lib.sh, the page
	# data) with /vm/tests naming the bench scenarios, then a second archive appended with
	# the bench's own files: the kernel unpacks concatenated archives in order.
	VM_TESTS="$tests" VM_SCENARIO_TIMEOUT=${BENCH_SCENARIO_TIMEOUT:-900} \
		"$VM_DIR/mkinitramfs.sh" "$INITRD" tests || return 1
	st=$TMP/overlay-$kver$tag
	mkdir -p "$st/vm/scenarios" "$st/usr/bin"
	cp "$HERE"/guest/bench_*.sh "$st/vm/scenarios/"
	cp "$HERE/guest/benchlib.sh" "$st/vm/benchlib.sh"
	cp "$HERE/guest/swaplib.sh" "$st/vm/swaplib.sh"
	cp -L "$BD/tools/vmbench" "$st/usr/bin/vmbench"
	cp -L "$BD/tools/swapload" "$st/usr/bin/swapload"
	# Knobs of the guest scenarios (README, Variables), passed on as shell assignments.
	env | grep -E '^BENCH_(CHURN_[A-Z_]+|WBCRYPT_[A-Z_]+|SWAP_[A-Z_]+|BURST_[A-Z_]+|LARGE_[A-Z_]+|IDLE_WINDOW|LATENCY_REPS)=[0-9]+$' |
		sed 's/^/export /' >"$st/vm/bench.env"
	env | grep -E '^BENCH_BURST_(SHAPES|POLICIES)=[a-z0-9 ]+$' | sed "s/^\([A-Z_]*\)=\(.*\)/export \1='\2'/" >>"$st/vm/bench.env"
	# vmbench needs only libc, which the image already has for zram-recompd.
	vm_cpio "$st" >>"$INITRD"

	LOG=$OUT/console-$kver$tag.log
	log "booting $KERNEL (TCG); console log $LOG"
	t0=$(ns)
	if [ -n "$ICOUNT" ]; then
		vm_boot "$KERNEL" "$INITRD" "$LOG" "${VM_TIMEOUT:-2700}" "" -icount "$ICOUNT"
	else
		vm_boot "$KERNEL" "$INITRD" "$LOG" "${VM_TIMEOUT:-2700}"
	fi
	rc=$VM_RC
	log "qemu exited $rc after $(seconds "$t0" "$(ns)") s"
	kv "${pre}vm.seconds" "$(seconds "$t0" "$(ns)")"
	# Emulated timings stretch when the host is busy: its load before and after the VM.
	kv "${pre}meta.host_load_1min_after_vm" "$(cut -d' ' -f1 /proc/loadavg)"
	kv "${pre}meta.kernel" "$(sed -n 's/^VMINFO kernel \([^ ]*\) .*/\1/p' "$LOG" | head -n 1)"
	sed -n "s/^BENCH /$pre/p" "$LOG" >>"$KV"
	for t in $tests; do
		vm_test_result "$LOG" "$t"
		name=${t#bench_}
		if [ -z "$VM_ST" ]; then
			kv "${pre}vm.$name.result" FAIL
			kv "${pre}vm.$name.reason" "no result (VM stopped or timed out; qemu exit $rc)"
			continue
		fi
		kv "${pre}vm.$name.result" "$VM_ST"
		[ -n "$VM_REASON" ] && kv "${pre}vm.$name.reason" "$VM_REASON"
		kv "${pre}vm.$name.seconds" "$(sed -n "s/^VMTIME $t \([0-9.]*\) s/\1/p" "$LOG")"
	done
	warnings=$(vm_kernel_warnings "$LOG")
	kv "${pre}vm.kernel_warnings" "$warnings"
	[ "$warnings" -eq 0 ] || grep '^VMKERNEL ' "$LOG" | head -n 10 >&2
	grep -E '^VMTEST (FAIL|SKIP)' "$LOG" >&2
	return 0
}

# run_kernel KVER PREFIX SCENARIOS: the burst scenario in a boot of its own with
# BENCH_BURST_SMP (1) vCPUs (a one-CPU machine whose schedule repeats under -icount), the
# others in one boot with two.
run_kernel() {
	rest=
	burst=
	for s in $3; do
		case $s in
		burst) burst=1 ;;
		*) rest="$rest $s" ;;
		esac
	done
	rk=0
	if [ -n "${rest# }" ]; then
		run_vm "$1" "$2" "${rest# }" || rk=1
	fi
	if [ -n "$burst" ]; then
		VM_SMP=${BENCH_BURST_SMP:-1}
		kv "${2}meta.burst_vm_cpus" "$VM_SMP"
		BENCH_SCENARIO_TIMEOUT=${BENCH_BURST_TIMEOUT:-6000} VM_TIMEOUT=${BENCH_BURST_TIMEOUT:-6000} \
			run_vm "$1" "$2" burst -burst || rk=1
		VM_SMP=2
	fi
	return $rk
}

# BENCH_PARALLEL=1: the kernels' boots at once, each into a key file of its own, added to
# the others when all have ended. For one-vCPU boots (BENCH_SCENARIOS=burst): two of them
# share a 2-core host without slowing each other, and -icount keeps guest time apart from
# host speed; two-vCPU boots side by side would compete for the cores.
vm_ok=0
first=1
prefixes=
pids=
n=0
for k in $KERNELS; do
	if [ "$first" = 1 ]; then
		p=
		sc=$SCENARIOS
		first=0
	else
		p=k$(echo "$k" | tr -c '0-9\n' '_').
		prefixes="$prefixes $p"
		sc=$OTHER_SCENARIOS
	fi
	if [ "${BENCH_PARALLEL:-0}" = 1 ]; then
		n=$((n + 1))
		(
			KV=$OUT/kv.$n.txt
			: >"$KV"
			run_kernel "$k" "$p" "$sc"
		) &
		pids="$pids $!"
	else
		run_kernel "$k" "$p" "$sc" || vm_ok=1
	fi
done
for pid in $pids; do
	wait "$pid" || vm_ok=1
done
i=1
while [ "$i" -le "$n" ]; do
	cat "$OUT/kv.$i.txt" >>"$KV"
	rm -f "$OUT/kv.$i.txt"
	i=$((i + 1))
done
kv meta.kernel_prefixes "${prefixes# }"
kv meta.bench_wall_s "$(seconds "$T_START" "$(ns)")"

# BENCH_KEEP=1: the scenarios not run now keep their keys from the results file (keep.py;
# meta.kept.* name the run they come from), so that a run of one scenario adds to a full one.
# Kept first: a key measured now replaces a kept one.
DKV=$KV
if [ "${BENCH_KEEP:-0}" = 1 ] && [ -r "$RESULTS" ]; then
	DKV=$OUT/kv-kept.txt
	if python3 "$HERE/keep.py" "$RESULTS" "$SCENARIOS $OTHER_SCENARIOS" >"$DKV"; then
		cat "$KV" >>"$DKV"
		# the kernels of the kept keys too
		kp=$(sed -n 's/^meta\.kept\.kernel_prefixes //p' "$DKV")
		# shellcheck disable=SC2086 # word lists
		kp=$(printf '%s\n' $kp $prefixes | sort -u | tr '\n' ' ')
		echo "meta.kernel_prefixes ${kp% }" >>"$DKV"
	else
		log "keep.py could not read $RESULTS; nothing kept"
		DKV=$KV
	fi
fi

# Replace the results only when every step worked.
if awk -f "$HERE/derive.awk" "$DKV" >"$OUT/results.kv" &&
	awk -f "$HERE/json.awk" "$OUT/results.kv" >"$OUT/latest.json.tmp"; then
	mv "$OUT/latest.json.tmp" "$RESULTS"
else
	log "could not compute the results; $RESULTS left as it was"
	vm_ok=1
fi
awk -f "$HERE/table.awk" "$OUT/results.kv"
log "results: ${RESULTS#"$TOP"/}; console logs: ${OUT#"$TOP"/}/console-*.log"
exit "$vm_ok"
