# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/fakesys/run.sh: zstd-dictionary (issue 28, items 3 and 4; dict_apply.h).
# The exact algorithm_params commands on uninitialized 6.12 and 7.3 devices (dict= after
# every recomp_algorithm, in one write with the priority's level), nothing on an initialized
# device, a refused file leaving the device configured without it, the prediction of
# advise --dict-install deciding `auto`, the credentials directory, status, and that every
# file written for a dictionary is in memory (tmpfs), mode 0600, and the record goes at
# teardown. The dictionaries are trained here, by advise, on pages made here.
# shellcheck disable=SC2030,SC2031

# tmpfs for the dictionary directories (advise and --once refuse any other filesystem).
DSHM=
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	DSHM=$(mktemp -d /dev/shm/zr-fakesys-dict.XXXXXX) || DSHM=
fi
trap 'rm -rf "$TMP" ${DSHM:+"$DSHM"}' EXIT

# 512 pages of 4 KiB of made-up /proc-like text: records alike in shape, differing in
# numbers and names, which a dictionary learns.
dict_pages() {
	awk 'BEGIN {
		srand(28)
		split("bash sshd systemd journald cron nginx postgres python3 java node", comm, " ")
		split("libc.so.6 libm.so.6 libssl.so.3 libz.so.1 libpthread.so.0", lib, " ")
		for (p = 0; p < 512; p++) {
			page = ""
			while (length(page) < 4096) {
				i = int(rand() * 10) + 1
				j = int(rand() * 5) + 1
				page = page sprintf("pid=%d comm=%s state=S vm_rss=%d kB map=/usr/lib/x86_64-linux-gnu/%s fd=%d\n",
					int(rand() * 40000), comm[i], int(rand() * 900000), lib[j], int(rand() * 64))
			}
			printf "%s", substr(page, 1, 4096)
		}
	}' >"$1"
}

# The shared dictionary of every test: trained once, by advise, into $DSHM/src.
DICT_SRC=
if [ -n "$DSHM" ]; then
	dict_pages "$DSHM/pages"
	if ZRAM_RECOMPD_DICT_DIR=$DSHM/src timeout 120 ${RUNNER:+"$RUNNER"} "$BIN" --sysroot "$DSHM" advise \
		--input "$DSHM/pages" --chain zstd:9 --dict --dict-size 16K --dict-install zram0 \
		--seed 1 --threads 1 >"$DSHM/advise.out" 2>&1 && [ -s "$DSHM/src/zram0.zdict" ]; then
		DICT_SRC=$DSHM/src
	fi
	rm -f "$DSHM/pages"
fi

# dict_dir DIR: a dictionary directory as advise makes it (mode 0700), with zram0's
# dictionary (mode 0600) and no prediction.
dict_dir() {
	mkdir -p -m 0700 "$1"
	cp "$DICT_SRC/zram0.zdict" "$1/zram0.zdict"
	chmod 0600 "$1/zram0.zdict"
}

# dict_pred TEXT: the prediction beside the dictionary of $D/dict, mode 0600 as advise writes it
dict_pred() {
	printf '%s\n' "$1" >"$D/dict/zram0.zdict.pred"
	chmod 0600 "$D/dict/zram0.zdict.pred"
}

dict_need() {
	[ -n "$DSHM" ] || skip_test "no tmpfs at /dev/shm"
	[ -n "$DICT_SRC" ] || die "advise --dict-install failed: $(tr '\n' '|' <"$DSHM/advise.out" | cut -c1-300)"
	D=$DSHM/$1
	export ZRAM_RECOMPD_DICT_DIR=$D/dict
}

# advise --dict-install: both files in a new directory of mode 0700, mode 0600 each, the
# prediction in the format --once reads; refused on a filesystem that is not memory.
t_dict_install() {
	dict_need install
	[ "$(stat -c %a "$DICT_SRC")" = 700 ] || die "directory mode $(stat -c %a "$DICT_SRC")"
	for f in zram0.zdict zram0.zdict.pred; do
		[ "$(stat -c %a "$DICT_SRC/$f")" = 600 ] || die "$f: mode $(stat -c %a "$DICT_SRC/$f")"
	done
	[ "$(ls -A "$DICT_SRC" | wc -l)" = 2 ] || die "files: $(ls -A "$DICT_SRC" | tr '\n' ' ')"
	# ZDICT's magic, little endian
	[ "$(od -An -tx1 -N4 "$DICT_SRC/zram0.zdict" | tr -d ' ')" = 37a430ec ] ||
		die "not a zstd dictionary"
	grep -Eqx 'recommend=(yes|no) priorities=[0-9,]* prio1=zstd:9( net-percent=-?[0-9.]+)? pool-per-byte=[0-9.]+' \
		"$DICT_SRC/zram0.zdict.pred" || die "prediction: $(oneline "$DICT_SRC/zram0.zdict.pred")"
	expect_has "$DSHM/advise.out" "installed for zram0: $DICT_SRC/zram0.zdict"
	# not memory-backed ($T is on the test's filesystem; skipped where that is tmpfs too)
	[ "$(stat -f -c %T "$T")" != tmpfs ] || return 0
	dict_pages "$T/pages"
	ZRAM_RECOMPD_DICT_DIR=$T/dict zr --sysroot "$T" advise --input "$T/pages" --chain zstd:9 --dict \
		--dict-size 16K --dict-install zram0 --seed 1 --threads 1
	expect_rc 1
	expect_has "$T/err" "advise: --dict-install: $T/dict: not on tmpfs or ramfs"
	[ -z "$(ls -A "$T/dict")" ] || die "left in $T/dict: $(ls -A "$T/dict" | tr '\n' ' ')"
}
run_test dict-install t_dict_install

# The exact sequence (--dry-run prints it in order), then the writes: dict= goes with
# priority 2's level, after both recomp_algorithm writes (7.3 resets a priority's
# parameters when its algorithm is written); the record of what was applied; status.
t_dict_apply() {
	local ver=$1 path
	dict_need "apply-$ver"
	dict_dir "$D/dict"
	path=$D/dict/zram0.zdict
	fr_new "$R" "$ver"
	fr_dev "$R" "$ver" 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = zstd zstd' 'algorithm-params = 1:level=3 2:level=9' \
		'zstd-dictionary = 2'
	snap
	zro --once --dry-run --device zram0
	expect_rc 0
	expect_content "$T/out" \
		"zram0: would write 'algo=zstd priority=1' to recomp_algorithm" \
		"zram0: would write 'algo=zstd priority=2' to recomp_algorithm" \
		"zram0: would write 'priority=1 level=3' to algorithm_params" \
		"zram0: would write 'priority=2 level=9 dict=$path' to algorithm_params"
	expect_changed
	[ ! -e "$D/dict/zram0.zdict.applied" ] || die "--dry-run wrote the record"
	zro --once --device zram0
	expect_rc 0
	expect_content "$(attr 0 recomp_algorithm)" 'algo=zstd priority=1' 'algo=zstd priority=2'
	expect_content "$(attr 0 algorithm_params)" 'priority=1 level=3' \
		"priority=2 level=9 dict=$path"
	expect_changed "$(dp 0 recomp_algorithm)" "$(dp 0 algorithm_params)"
	expect_not "$T/err" "error"
	grep -Eqx "applied=2 file=$path bytes=[0-9]+ id=[0-9]+ source=run" \
		"$D/dict/zram0.zdict.applied" || die "record: $(oneline "$D/dict/zram0.zdict.applied")"
	[ "$(stat -c %a "$D/dict/zram0.zdict.applied")" = 600 ] || die "record mode"
	# status: a fresh root (the fake attributes now hold the commands, not the kernel's text)
	fr_new "$R" "$ver"
	fr_dev "$R" "$ver" 0 init=0 recomp="1:zstd 2:zstd"
	zro status --device zram0
	expect_rc 0
	expect_has "$T/out" "  dictionary:     zstd at priority 2, $path ("
	expect_has "$T/out" "memory only); applies at disksize"
	zro status --json --device zram0
	grep -q "\"dictionary\":{\"priorities\":\\[2\\],\"file\":\"$path\"" "$T/out" ||
		die "status --json: $(grep -o '"dictionary":[^}]*' "$T/out")"
	# The next setup without the dictionary (here: its file gone) drops the record. (The
	# setup hook's ExecStopPost=, `backing teardown zramN`, drops it after the tool's reset:
	# the VM tier, as backing refuses --sysroot.)
	rm "$path"
	fr_new "$R" "$ver"
	fr_dev "$R" "$ver" 0 init=0 recomp=""
	zro --once --device zram0
	expect_rc 0
	expect_has "$T/err" "zram0: zstd-dictionary: no zram0.zdict in $D/dict or the credentials"
	expect_content "$(attr 0 algorithm_params)" 'priority=1 level=3' 'priority=2 level=9'
	[ ! -e "$D/dict/zram0.zdict.applied" ] || die "the record outlived its dictionary"
	zro status --device zram0
	expect_not "$T/out" "dictionary:"
}
run_test dict-apply-6.12 t_dict_apply 6.12
run_test dict-apply-7.3 t_dict_apply 7.3

# An initialized device: its parameters are fixed (6.12-7.0 free a dictionary still in use,
# 7.0.10+ EBUSY): nothing is written, no record.
t_dict_initialized() {
	dict_need initialized
	dict_dir "$D/dict"
	build_version_root "$R" 7.3
	conf '[global]' 'zstd-dictionary = yes'
	snap
	zro --once --device zram0
	expect_rc 0
	fr_snapshot "$R" >"$T/.after"
	fr_changed "$T/.before" "$T/.after" >"$T/.changed"
	expect_not "$T/.changed" "algorithm_params"
	expect_not "$T/.changed" "recomp_algorithm"
	[ ! -e "$D/dict/zram0.zdict.applied" ] || die "a record for an initialized device"
}
run_test dict-initialized t_dict_initialized

# A file that may not go to the kernel: one error naming the device and the file, and the
# device set up without the dictionary (its level still written), exit 0.
t_dict_refused() {
	local ver=$1 how=$2 f
	dict_need "refused-$how"
	dict_dir "$D/dict"
	f=$D/dict/zram0.zdict
	case $how in
	mode) chmod 0644 "$f" ;;
	symlink)
		mv "$f" "$D/dict/other"
		ln -s other "$f"
		;;
	magic) head -c 4096 /dev/zero >"$f" ;;
	small) head -c 100 "$DICT_SRC/zram0.zdict" >"$f" ;;
	dirmode) chmod 0777 "$D/dict" ;;
	esac
	fr_new "$R" "$ver"
	fr_dev "$R" "$ver" 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = zstd' 'algorithm-params = zstd:level=9' \
		'zstd-dictionary = yes'
	zro --once --device zram0
	expect_rc 0
	expect_count "$T/err" "error" 1
	case $how in
	mode) expect_has "$T/err" "zram0: zstd-dictionary: $f: mode 0644: group or others may read it" ;;
	symlink) expect_has "$T/err" "zram0: zstd-dictionary: $f: a symbolic link" ;;
	magic) expect_has "$T/err" "zram0: zstd-dictionary: $f: not a zstd dictionary" ;;
	small) expect_has "$T/err" "zram0: zstd-dictionary: $f: 100 bytes" ;;
	dirmode) expect_has "$T/err" "zram0: zstd-dictionary: $D/dict: mode 0777: writable by group or others" ;;
	esac
	expect_has "$T/err" "configured without the dictionary"
	expect_content "$(attr 0 recomp_algorithm)" 'algo=zstd priority=1'
	expect_content "$(attr 0 algorithm_params)" 'priority=1 level=9'
	[ ! -e "$D/dict/zram0.zdict.applied" ] || die "a record of a refused dictionary"
}
for how in mode symlink magic small dirmode; do
	run_test "dict-refused-$how-7.3" t_dict_refused 7.3 "$how"
done
run_test dict-refused-mode-6.12 t_dict_refused 6.12 mode

# auto: the prediction decides. Not recommended: nothing; recommended at 2 with the
# configured level: applied; recommended at a level the configuration no longer has: not.
t_dict_auto() {
	local name=$1 pred=$2 want=$3 path
	dict_need "auto-$name"
	dict_dir "$D/dict"
	path=$D/dict/zram0.zdict
	[ -z "$pred" ] || dict_pred "$pred"
	fr_new "$R" 7.3
	fr_dev "$R" 7.3 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = zstd zstd' 'algorithm-params = 1:level=3 2:level=9' \
		'zstd-dictionary = auto'
	zro --once --device zram0
	expect_rc 0
	expect_not "$T/err" "error"
	case $want in
	applied)
		expect_content "$(attr 0 algorithm_params)" 'priority=1 level=3' \
			"priority=2 level=9 dict=$path"
		grep -q "^applied=2 .* recommend=yes priorities=2 prio1=zstd:3 prio2=zstd:9 net-percent=7.5$" \
			"$D/dict/zram0.zdict.applied" || die "record: $(oneline "$D/dict/zram0.zdict.applied")"
		;;
	*)
		expect_content "$(attr 0 algorithm_params)" 'priority=1 level=3' 'priority=2 level=9'
		expect_has "$T/err" "$want"
		[ ! -e "$D/dict/zram0.zdict.applied" ] || die "a record, nothing applied"
		;;
	esac
}
run_test dict-auto-recommended t_dict_auto rec \
	'recommend=yes priorities=2 prio1=zstd:3 prio2=zstd:9 net-percent=7.5' applied
run_test dict-auto-not-recommended t_dict_auto notrec \
	'recommend=no priorities=2 prio2=zstd:9 net-percent=-2.5' \
	"advise did not recommend it (net saving -2.5%): not applied"
run_test dict-auto-other-level t_dict_auto level \
	'recommend=yes priorities=2 prio2=zstd:19 net-percent=9.1' \
	"priority 2 was predicted at zstd level 19, the configuration has 9"
run_test dict-auto-no-prediction t_dict_auto nopred '' \
	"no prediction (advise --dict --dict-install writes one): not applied"

# The credentials directory (LoadCredentialEncrypted= decrypts into it): found when /run's
# has none, recorded as such; a non-zstd priority never gets it.
t_dict_credential() {
	local path
	dict_need credential
	dict_dir "$D/creds"
	chmod 0500 "$D/creds"
	chmod 0400 "$D/creds/zram0.zdict"
	path=$D/creds/zram0.zdict
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = deflate zstd' 'zstd-dictionary = 1 2'
	CREDENTIALS_DIRECTORY=$D/creds zro --once --device zram0
	expect_rc 0
	expect_has "$T/err" "zram0: zstd-dictionary $path: priority 1 does not hold zstd"
	expect_content "$(attr 0 algorithm_params)" "priority=2 dict=$path"
	grep -q "^applied=2 file=$path .* source=credential$" "$D/dict/zram0.zdict.applied" ||
		die "record: $(oneline "$D/dict/zram0.zdict.applied")"
	# where the saved one is decrypted at boot: zram-recompd-dict@zram0.service's
	mkdir -p "$D/root/zram-recompd-dict@zram0.service"
	mv "$D/creds/zram0.zdict" "$D/root/zram-recompd-dict@zram0.service/"
	chmod 0500 "$D/root/zram-recompd-dict@zram0.service"
	fr_new "$R" 6.12
	fr_dev "$R" 6.12 0 init=0 recomp=""
	ZRAM_RECOMPD_CREDENTIALS_ROOT=$D/root zro --once --device zram0
	expect_rc 0
	expect_content "$(attr 0 algorithm_params)" \
		"priority=2 dict=$D/root/zram-recompd-dict@zram0.service/zram0.zdict"
}
run_test dict-credential t_dict_credential

# The result in status once the device is set up: the pool per stored byte advise predicted
# with the dictionary, next to the device's own now (mem_used_total / (orig_data_size -
# same pages)); in JSON too.
t_dict_result() {
	local want pred
	dict_need result
	dict_dir "$D/dict"
	dict_pred "$(cat "$DICT_SRC/zram0.zdict.pred")"
	fr_new "$R" 7.3
	fr_dev "$R" 7.3 0 init=0 recomp=""
	conf '[global]' 'recompress-algorithms = zstd' 'algorithm-params = 1:level=9' \
		'zstd-dictionary = 1'
	zro --once --device zram0
	expect_rc 0
	# initialized, with the mm_stat of FR_MM_FRAG
	fr_new "$R" 7.3
	fr_dev "$R" 7.3 0 recomp="1:zstd"
	zro status --device zram0
	expect_rc 0
	want=$(awk 'BEGIN { printf "%.4f", 37300000 / (104857600 - 120 * 4096) }')
	pred=$(sed -n 's/.* pool-per-byte=\([0-9.]*\).*/\1/p' "$DICT_SRC/zram0.zdict.pred")
	[ -n "$pred" ] || die "no pool-per-byte in the prediction"
	expect_has "$T/out" "  result:         pool $want per stored byte now, $pred predicted with it"
	zro status --json --device zram0
	grep -q "\"pool_per_byte\":$pred},\"measured_pool_per_byte\":$want}" "$T/out" ||
		die "status --json: $(grep -o '"dictionary":.*' "$T/out" | cut -c1-300)"
}
run_test dict-result t_dict_result

# Privacy: after every dictionary test, each file under the dictionary directories is on
# tmpfs with mode 0600 or stricter, and none was written anywhere else (every test's $T,
# on the test filesystem, holds no dictionary file).
t_dict_privacy() {
	local bad frag
	[ -n "$DSHM" ] || skip_test "no tmpfs at /dev/shm"
	# what the program wrote: advise's two files, --once's records
	bad=$(find "$DSHM" -type f \( -path "$DICT_SRC/*" -o -name '*.applied' \) -perm /077 \
		2>/dev/null | head -n 3)
	[ -z "$bad" ] || die "readable by others: $bad"
	[ "$(stat -f -c %T "$DSHM")" = tmpfs ] || die "not tmpfs"
	bad=$(find "$TMP" -name '*.zdict*' 2>/dev/null | head -n 3)
	[ -z "$bad" ] || die "dictionary files outside memory: $bad"
	# a run of text from the dictionary's content (its end: ZDICT puts the content last)
	frag=$(tail -c 400 "$DICT_SRC/zram0.zdict" | tr -c '[:print:]' '\n' | awk 'length >= 20' |
		head -n 1)
	[ -n "$frag" ] || die "no text in the dictionary's content"
	bad=$(grep -rlF -- "$frag" "$TMP" 2>/dev/null | head -n 3)
	[ -z "$bad" ] || die "dictionary content in: $bad"
}
run_test dict-privacy t_dict_privacy
