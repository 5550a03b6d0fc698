#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo`, inside the VM: set up zram0 the way a distribution does (lzo-rle primary; zstd
# as secondary, written by zram-recompd --once before disksize), fill it with the test pages,
# run one zram-recompd pass and print a before/after table. Lines for the host start with
# "DEMO ".
VMTEST_NAME=demo
. /vm/lib.sh

out() {
	echo "DEMO $*"
}

[ -x "$RECOMPD" ] || { out "error: zram-recompd missing from the initramfs"; exit 1; }
Z=zram0
[ -e /sys/block/$Z ] || zram_add
conf "$WORK/demo.conf" "recompress-algorithms = zstd" "idle-age-max-sec = 0"
pages=$(pages_of "$DATA/pages.bin")

"$RECOMPD" --config "$WORK/demo.conf" --once --device $Z >"$WORK/setup.out" 2>&1 ||
	{ out "error: setup pass failed:"; sed 's/^/DEMO   /' "$WORK/setup.out"; exit 1; }
zset $Z disksize $((pages * 4096 + 64 * 1048576))
load $Z "$DATA/pages.bin"

# Reference: the same pages with zstd as the primary algorithm.
zram_add
R=$Z
Z=zram0
zset "$R" comp_algorithm zstd
zset "$R" disksize $((pages * 4096 + 64 * 1048576))
load "$R" "$DATA/pages.bin"

snap() { # prefix
	set -- "$1" $(zget $Z mm_stat)
	eval "$1_orig=$2 $1_compr=$3 $1_mem=$4"
	eval "$1_r=$(bs_count $Z r) $1_n=$(bs_count $Z n)"
}
snap b
t0=$(now)
"$RECOMPD" --config "$WORK/demo.conf" --once --device $Z >"$WORK/once.out" 2>&1
rc=$?
t1=$(now)
snap a
ref=$(mm "$R" mem_used_total)

mib() {
	awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'
}
ratio() {
	awk -v o="$1" -v m="$2" 'BEGIN { if (m > 0) printf "%.2fx", o / m; else print "-" }'
}
row() {
	out "$(printf '%-16s %14s %14s' "$1" "$2" "$3")"
}

out "data: $(cat "$DATA/source") ($(mib $((pages * 4096)))) on $Z, kernel $(uname -r)," \
	"lzo-rle primary, zstd secondary"
out "zram-recompd --once (exit code $rc):"
sed 's/^/DEMO   | /' "$WORK/once.out"
out ""
row "" before after
row orig_data "$(mib "$b_orig")" "$(mib "$a_orig")"
row compr_data "$(mib "$b_compr")" "$(mib "$a_compr")"
row mem_used "$(mib "$b_mem")" "$(mib "$a_mem")"
row ratio "$(ratio "$b_orig" "$b_mem")" "$(ratio "$a_orig" "$a_mem")"
row recompressed "$b_r" "$a_r"
row incompressible "$b_n" "$a_n"
row time "" "$(elapsed "$t0" "$t1") s"
out ""
out "ratio = orig_data / mem_used. For reference, the same pages with zstd as primary use" \
	"$(mib "$ref") ($(ratio "$b_orig" "$ref")); times are under qemu TCG emulation."
exit "$rc"
