#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# zstd-dictionary (issue 28, item 3) on the real driver: a small dictionary trained here by
# `advise --dict --dict-install` on made-up pages; --once on an uninitialized device writes
# recomp_algorithm, then `algorithm_params priority=1 level=9 dict=PATH` (the kernel reads
# the file at that write and accepts it), before disksize (7.3 checks the parameters there).
# Then pages of the same kind, not trained on, are recompressed with it: smaller than on a
# device set up the same way without the dictionary, and they read back intact. After the
# device's reset, `backing teardown` (the hooks' ExecStopPost=) drops the record. adopt, on a
# swap device in use, applies it the same way.
. /vm/lib.sh
need_recompd

# made-up /proc-like text pages, alike in shape, different in numbers (seed: $1)
gen_pages() {
	awk -v seed="$1" -v n="$2" -v ps="$PAGE" 'BEGIN {
		srand(seed)
		split("bash sshd systemd journald cron nginx postgres python3 java node", comm, " ")
		split("libc.so.6 libm.so.6 libssl.so.3 libz.so.1 libpthread.so.0", lib, " ")
		for (p = 0; p < n; p++) {
			page = ""
			while (length(page) < ps) {
				i = int(rand() * 10) + 1
				j = int(rand() * 5) + 1
				page = page sprintf("pid=%d comm=%s state=S vm_rss=%d kB map=/usr/lib/x86_64-linux-gnu/%s fd=%d\n",
					int(rand() * 40000), comm[i], int(rand() * 900000), lib[j], int(rand() * 64))
			}
			printf "%s", substr(page, 1, ps)
		}
	}' >"$3"
}

npages=$((2 * 1024 * 1024 / PAGE))
gen_pages 1 "$npages" "$WORK/train.bin"
gen_pages 2 "$npages" "$WORK/data.bin"
[ "$(wc -c <"$WORK/data.bin")" -eq $((npages * PAGE)) ] || fail "page generator: wrong size"

# /tmp is the guest's tmpfs: a memory-backed dictionary directory
export ZRAM_RECOMPD_DICT_DIR="$WORK/dict"
zram_add
A=$Z
run_recompd "$WORK/advise.out" advise --input "$WORK/train.bin" --primary lzo-rle \
	--chain zstd:9 --dict --dict-size 16K --dict-install "$A" --seed 1 --threads 1
expect_eq "advise exit code" "$RC" 0
D=$ZRAM_RECOMPD_DICT_DIR/$A.zdict
[ -f "$D" ] || fail "advise --dict-install wrote no $D"
note "dictionary: $(wc -c <"$D") bytes; prediction: $(cat "$D.pred")"

# applied whatever the prediction ("1": this measures, auto would follow the prediction)
conf "$WORK/c.conf" "recompress-algorithms = zstd" "algorithm-params = zstd:level=9" \
	"zstd-dictionary = 1" "idle-age-max-sec = 0"
run_recompd "$WORK/dry.out" --config "$WORK/c.conf" --once --dry-run --device "$A"
expect_eq "--dry-run exit code" "$RC" 0
grep -qxF "$A: would write 'priority=1 level=9 dict=$D' to algorithm_params" "$WORK/dry.out" ||
	fail "--dry-run: no dict= command"
[ "$(grep -n "to recomp_algorithm" "$WORK/dry.out" | cut -d: -f1)" -lt \
	"$(grep -n "to algorithm_params" "$WORK/dry.out" | cut -d: -f1)" ] ||
	fail "--dry-run: algorithm_params before recomp_algorithm"

run_recompd "$WORK/setup.out" --config "$WORK/c.conf" --once --device "$A"
expect_eq "setup exit code" "$RC" 0
# (a) the kernel read the file and accepted the write (a refusal is an error, and the
# record would not be written)
if grep -q "error" "$WORK/setup.out"; then
	fail "setup: $(grep error "$WORK/setup.out" | head -n 1)"
fi
grep -q "$A: zstd dictionary $D (.*) at priority 1" "$WORK/setup.out" ||
	fail "setup did not say the dictionary was applied"
grep -q "^applied=1 file=$D " "$ZRAM_RECOMPD_DICT_DIR/$A.zdict.applied" ||
	fail "no record of the dictionary"
zset "$A" disksize 64M
load "$A" "$WORK/data.bin"

# the same without a dictionary
zram_add
B=$Z
conf "$WORK/n.conf" "recompress-algorithms = zstd" "algorithm-params = zstd:level=9" \
	"idle-age-max-sec = 0"
run_recompd "$WORK/nsetup.out" --config "$WORK/n.conf" --once --device "$B"
expect_eq "setup (no dictionary) exit code" "$RC" 0
zset "$B" disksize 64M
load "$B" "$WORK/data.bin"

# (b) recompression with it: every slot recompressed, smaller than without
run_recompd "$WORK/once.out" --config "$WORK/c.conf" --once --device "$A"
expect_eq "--once (dictionary) exit code" "$RC" 0
run_recompd "$WORK/nonce.out" --config "$WORK/n.conf" --once --device "$B"
expect_eq "--once (no dictionary) exit code" "$RC" 0
ca=$(mm "$A" compr_data_size)
cb=$(mm "$B" compr_data_size)
ra=$(bs_count "$A" r)
note "compr_data_size with the dictionary $ca, without $cb; recompressed slots $ra" \
	"(with), $(bs_count "$B" r) (without)"
[ "$ra" -gt 0 ] || fail "no slot recompressed with the dictionary"
[ "$ca" -lt "$cb" ] || fail "the dictionary did not shrink the pages ($ca >= $cb)"
dd if="/dev/$A" bs="$PAGE" count="$npages" 2>/dev/null | cmp -s - "$WORK/data.bin" ||
	fail "data read back from $A differs from what was written"

# adopt: a swap device in use, set up the distribution tools' way (lzo-rle, no secondary),
# is set up again with the secondary and the dictionary, and is swap again
zram_add
C=$Z
zset "$C" comp_algorithm lzo-rle
zset "$C" disksize 32M
mkswap "/dev/$C" >/dev/null 2>&1 || fail "mkswap /dev/$C failed"
/usr/bin/swapload swapon "/dev/$C" 5 || fail "swapon /dev/$C failed"
cp -p "$D" "$ZRAM_RECOMPD_DICT_DIR/$C.zdict"
cp -p "$D.pred" "$ZRAM_RECOMPD_DICT_DIR/$C.zdict.pred"
run_recompd "$WORK/adopt.out" --config "$WORK/c.conf" adopt "$C"
expect_eq "adopt exit code" "$RC" 0
grep -q "$C: zstd dictionary $ZRAM_RECOMPD_DICT_DIR/$C.zdict (.*) at priority 1" "$WORK/adopt.out" ||
	fail "adopt did not apply the dictionary"
grep -q "^applied=1 file=$ZRAM_RECOMPD_DICT_DIR/$C.zdict " "$ZRAM_RECOMPD_DICT_DIR/$C.zdict.applied" ||
	fail "adopt left no record of the dictionary"
grep -q "^/dev/$C " /proc/swaps || fail "/dev/$C is not swap again after adopt"
grep -q "zstd" "/sys/block/$C/recomp_algorithm" || fail "adopt: no zstd secondary on $C"
swapoff "/dev/$C" || fail "swapoff /dev/$C failed"
zset "$C" reset 1

# the device's reset, then the hook's ExecStopPost=: the record goes, the dictionary stays
zset "$A" reset 1
run_recompd "$WORK/teardown.out" --config "$WORK/c.conf" backing teardown "$A"
[ ! -e "$ZRAM_RECOMPD_DICT_DIR/$A.zdict.applied" ] || fail "backing teardown left the record"
[ -f "$D" ] || fail "backing teardown removed the dictionary"
pass
