#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What this kernel version does where zram's user-space ABI changed between the tier's
# kernels (zram-abi.md §12): each check asserts the running version's behaviour, so a new
# kernel that changes one of them fails here, where the cause is plain, rather than somewhere
# in a daemon scenario. zram-recompd is not involved.
#  1. recomp_algorithm read: 6.17+ returns NUL runs between and after the "#P:" lines
#     (size 24 + 2*L1 + L2 for two secondaries), older kernels the plain lines.
#  2. algorithm_params after disksize: 7.1+ -EBUSY, older kernels accept it (ignored).
#  3. recompress type=idel: 7.1+ -EINVAL, older kernels recompress every slot (mode 0).
#  4. recompress without priority= (zstd #1, deflate #2, incompressible pages): 7.1+ tries
#     priority 1 only and marks nothing incompressible (#1 is not the last secondary), then
#     priority=2 marks them all; older kernels try the whole chain and mark them at once.
. /vm/lib.sh

R=/sys/block
checks=

# ---- 1. recomp_algorithm layout ----
zram_add
A=$Z
zset "$A" recomp_algorithm "algo=zstd priority=1"
zset "$A" recomp_algorithm "algo=deflate priority=2"
want=$(printf '%s\n%s' '#1: lzo-rle lzo lz4 lz4hc [zstd] deflate 842 ' \
	'#2: lzo-rle lzo lz4 lz4hc zstd [deflate] 842 ')
expect_eq "recomp_algorithm text" "$(recomp_list "$A")" "$want"
bytes=$(wc -c <"$R/$A/recomp_algorithm")
text=$(recomp_list "$A" | wc -c)
l1=$(recomp_list "$A" | head -n 1 | wc -c) # "#1: " + L1 (the list with its "\n")
L1=$((l1 - 4))
L2=$((text - l1 - 4))
note "recomp_algorithm: $bytes bytes, $text of them text (L1 $L1, L2 $L2)"
if kver_ge 6 17; then
	expect_eq "recomp_algorithm bytes (6.17+: 24 + 2*L1 + L2)" "$bytes" $((24 + 2 * L1 + L2))
	expect_eq "non-NUL bytes in the 4 after line 1" \
		"$(dd if="$R/$A/recomp_algorithm" bs=1 skip="$l1" count=4 2>/dev/null |
			tr -d '\000' | wc -c)" 0
	expect_eq "line 2 at offset $((l1 + 4))" \
		"$(dd if="$R/$A/recomp_algorithm" bs=1 skip=$((l1 + 4)) count=4 2>/dev/null)" "#2: "
	checks="$checks, recomp_algorithm $bytes bytes with $((bytes - text)) NULs"
else
	expect_eq "recomp_algorithm bytes (no NULs before 6.17)" "$bytes" "$text"
	checks="$checks, recomp_algorithm without NULs"
fi

# ---- 2. algorithm_params after disksize ----
zset "$A" disksize 16M
zwrite "$A" algorithm_params "priority=1 level=9"
if kver_ge 7 1; then
	[ "$WRC" -ne 0 ] && [ "$WERR" = "Device or resource busy" ] ||
		fail "algorithm_params after disksize: '${WERR:-accepted}', expected EBUSY (7.1+)"
	checks="$checks, algorithm_params after disksize EBUSY"
else
	expect_eq "algorithm_params after disksize accepted (before 7.1)" "$WRC" 0
	checks="$checks, algorithm_params after disksize accepted"
fi

# ---- 3. type=idel ----
zram_add
B=$Z
zset "$B" recomp_algorithm "algo=zstd priority=1"
zset "$B" disksize 16M
load "$B" "$DATA/pages.bin" 0 256
# No slot is idle: only "every slot" (mode 0) can recompress anything.
zwrite "$B" recompress "type=idel priority=1"
r=$(bs_count "$B" r)
if kver_ge 7 1; then
	[ "$WRC" -ne 0 ] && [ "$WERR" = "Invalid argument" ] ||
		fail "recompress type=idel: '${WERR:-accepted}', expected EINVAL (7.1+)"
	expect_eq "slots recompressed by the rejected type=idel" "$r" 0
	checks="$checks, type=idel EINVAL"
else
	expect_eq "recompress type=idel accepted (before 7.1)" "$WRC" 0
	[ "$r" -gt 0 ] || fail "type=idel recompressed nothing (before 7.1 it means every slot)"
	checks="$checks, type=idel recompressed $r non-idle slots"
fi

# ---- 4. one priority per recompress write ----
N=$(pages_of "$DATA/random.bin")
zram_add
C=$Z
zset "$C" recomp_algorithm "algo=zstd priority=1"
zset "$C" recomp_algorithm "algo=deflate priority=2"
zset "$C" disksize 16M
load "$C" "$DATA/random.bin"
expect_eq "huge_pages" "$(mm "$C" huge_pages)" "$N"
zset "$C" recompress "type=huge"
n1=$(bs_count "$C" n)
if kver_ge 7 1; then
	expect_eq "slots marked n by type=huge without priority= (7.1+: #1 only)" "$n1" 0
	zset "$C" recompress "type=huge priority=2"
	expect_eq "slots marked n by type=huge priority=2 (the last secondary)" \
		"$(bs_count "$C" n)" "$N"
	checks="$checks, one priority per write (n: 0, then $N with priority=2)"
else
	expect_eq "slots marked n by type=huge (before 7.1: the whole chain)" "$n1" "$N"
	checks="$checks, whole chain per write (n: $N)"
fi
pass_note "$KREL:${checks#,}"
