#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the gzip'd cpio initramfs for the VM tier.
#
# Usage: tests/vm/mkinitramfs.sh OUT.cpio.gz [tests|demo]
# Contents: static busybox (applet links are made by /init), $BUILDDIR/zram-recompd with the
# shared libraries ldd lists (same paths, dynamic loader included), tests/vm/guest/* as /init
# and /vm/lib.sh, tests/vm/scenarios/*.sh, and the page data in /vm/data:
#   pages.bin   VM_PAGES (default 8192 = 32 MiB) pagegen pages, seed VM_SEED (default 1),
#               or the pages of CORPUS=file (plain or .zst, whole 4 KiB pages)
#   random.bin  256 random pages (pagegen --kind random): already-compressed data
# Environment: BUILDDIR (default build), VM_TESTS (names written to /vm/tests; default: every
# scenario with a guest script), CORPUS, VM_PAGES, VM_SEED, VM_SCENARIO_TIMEOUT (s, default 120).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
. "$HERE/host-lib.sh"

OUT=${1:?usage: mkinitramfs.sh OUT.cpio.gz [tests|demo]}
MODE=${2:-tests}
BUILDDIR=${BUILDDIR:-build}
case $BUILDDIR in
/*) ;;
*) BUILDDIR=$TOP/$BUILDDIR ;;
esac
PAGEGEN=$BUILDDIR/tools/pagegen
RECOMPD=$BUILDDIR/zram-recompd

[ -x "$PAGEGEN" ] || vm_die "$PAGEGEN missing (run: make BUILDDIR=${BUILDDIR#"$TOP"/} tools)"
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] || vm_die "busybox not found (apt-get install busybox-static)"

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/zram-recompd-initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# copy_with_libs BINARY DEST: the binary and every shared object ldd resolves for it, each at
# its own absolute path inside the image (so the loader path baked into the binary works).
copy_with_libs() {
	mkdir -p "$STAGE$(dirname "$2")"
	cp -L "$1" "$STAGE$2"
	ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
}

copy_with_libs "$BUSYBOX" /bin/busybox
ln -s busybox "$STAGE/bin/sh"
if [ -x "$RECOMPD" ]; then
	copy_with_libs "$RECOMPD" /usr/sbin/zram-recompd
else
	vm_log "warning: $RECOMPD not built; scenarios that need it will be skipped"
fi

mkdir -p "$STAGE/vm/scenarios" "$STAGE/vm/data" "$STAGE/dev" "$STAGE/proc" "$STAGE/sys" \
	"$STAGE/tmp"
install -m 0755 "$HERE/guest/init" "$STAGE/init"
cp "$HERE/guest/lib.sh" "$STAGE/vm/lib.sh"
[ -f "$HERE/guest/demo-guest.sh" ] && cp "$HERE/guest/demo-guest.sh" "$STAGE/vm/demo-guest.sh"
cp "$HERE"/scenarios/*.sh "$STAGE/vm/scenarios/"
echo "$MODE" >"$STAGE/vm/mode"
echo "${VM_SCENARIO_TIMEOUT:-120}" >"$STAGE/vm/scenario-timeout"

if [ -n "${VM_TESTS:-}" ]; then
	tests=$VM_TESTS
else
	tests=$(cd "$HERE/scenarios" && ls *.sh | sed 's/\.sh$//' | tr '\n' ' ')
fi
echo "$tests" >"$STAGE/vm/tests"

if [ -n "${CORPUS:-}" ]; then
	[ -r "$CORPUS" ] || vm_die "CORPUS=$CORPUS is not readable"
	case $CORPUS in
	*.zst) zstd -q -dc "$CORPUS" >"$STAGE/vm/data/pages.bin" ;;
	*) cp "$CORPUS" "$STAGE/vm/data/pages.bin" ;;
	esac
	size=$(wc -c <"$STAGE/vm/data/pages.bin")
	[ $((size % 4096)) -eq 0 ] && [ "$size" -gt 0 ] ||
		vm_die "CORPUS=$CORPUS: $size bytes is not a whole number of 4 KiB pages"
	echo "corpus $(basename "$CORPUS")" >"$STAGE/vm/data/source"
else
	"$PAGEGEN" "${VM_PAGES:-8192}" "${VM_SEED:-1}" >"$STAGE/vm/data/pages.bin"
	echo "pagegen ${VM_PAGES:-8192} pages, seed ${VM_SEED:-1}" >"$STAGE/vm/data/source"
fi
"$PAGEGEN" --kind random 256 7 >"$STAGE/vm/data/random.bin"

mkdir -p "$(dirname "$OUT")"
# -R 0:0: root-owned files even when built by another user. gzip -1: the image is mostly page
# data, and the guest unpacks it under emulation.
(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
if [ "$MODE" = demo ]; then
	vm_log "initramfs $OUT ($(($(wc -c <"$OUT") / 1024)) KiB, demo)"
else
	vm_log "initramfs $OUT ($(($(wc -c <"$OUT") / 1024)) KiB, tests:$tests)"
fi
