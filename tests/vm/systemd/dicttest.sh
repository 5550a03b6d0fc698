#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The encrypted dictionary round trip (issue 28, item 4), run by hooktest.sh at the end of the
# zram-generator boot, with systemd 252 as PID 1 and the package's units:
#   systemd_zramgen_dict_save      advise --dict-install puts a dictionary trained here (on the
#                                  image's generated pages) in /run/zram-recompd/dict/;
#                                  zram-recompd-dict-save@zram0.service encrypts it with
#                                  systemd-creds into /var/lib/zram-recompd/dict/: the .cred
#                                  files are mode 0600 and hold none of the dictionary's
#                                  text, and no file under /var, /etc or /root holds it
#   systemd_zramgen_dict_load      zram-recompd-dict@zram0.service decrypts them
#                                  (LoadCredentialEncrypted=) into its credentials directory,
#                                  byte for byte; with /run's copy gone, the setup unit's hook
#                                  (restarted) gives zram0 the dictionary from there
#                                  (algorithm_params dict=, the record says source=credential)
#                                  and the device is swap again
#   systemd_zramgen_dict_isolation a .cred that cannot be decrypted fails only
#                                  zram-recompd-dict@zram0.service: the setup unit still sets
#                                  zram0 up, without the dictionary
# Sourced by hooktest.sh: uses its res, say, jlog, D, S, DATA.
RD=/run/zram-recompd/dict
VD=/var/lib/zram-recompd/dict
DU=zram-recompd-dict@$D.service
CD=/run/credentials/$DU

# the device set up again by its setup unit, as at boot (ExecStop resets it, the swap unit
# goes with it)
resetup() {
	systemctl stop "$S" >/dev/null 2>&1
	systemctl start "$S" >/dev/null 2>&1
}

W=/run/dicttest # memory: what this test keeps of the plaintext
mkdir -p -m 0700 "$W"

# printable runs of the dictionary's content, 20 bytes and longer (ZDICT puts it last)
frags() {
	tail -c 2000 "$1" >"$W/tail"
	strings -n 20 "$W/tail" | head -n 5
}

# has FILE: FILE holds one of the fragments (busybox grep stops a line at a NUL byte: the
# NULs become line ends first)
has() {
	tr '\000' '\n' <"$1" | grep -qF -f "$W/frags"
}

# files where a program writes what is kept (here on the initramfs, standing for the disk)
# holding one of the fragments
plaintext_files() {
	find /var /etc /root -xdev -type f 2>/dev/null | while read -r f; do
		has "$f" && echo "$f"
	done
}

dict_save() {
	zram-recompd advise --input "$DATA" --chain zstd:9 --dict --dict-size 16K \
		--dict-install "$D" --seed 1 --threads 1 >"$W/advise.out" 2>&1 ||
		return 1
	[ -f "$RD/$D.zdict" ] || return 1
	cp "$RD/$D.zdict" "$W/plain.zdict"
	frags "$W/plain.zdict" >"$W/frags"
	[ -s "$W/frags" ] || { say "no text in the dictionary's content"; return 1; }
	# The image's /var/lib is the initramfs, a temporary file system, and the VM has no TPM2:
	# systemd-creds' default key (auto) then has none ("TPM2 not available and host key
	# located on temporary file system", systemd 252; on a real system /var/lib persists).
	# The package's two lines, with --with-key=host added, and nothing else changed:
	mkdir -p /run/systemd/system/zram-recompd-dict-save@.service.d
	{
		echo "[Service]"
		echo "ExecStart="
		sed -n 's|^ExecStart=/usr/bin/systemd-creds encrypt |&--with-key=host |p' \
			/usr/lib/systemd/system/zram-recompd-dict-save@.service
	} >/run/systemd/system/zram-recompd-dict-save@.service.d/vm-host-key.conf
	[ "$(grep -c -- '--with-key=host' \
		/run/systemd/system/zram-recompd-dict-save@.service.d/vm-host-key.conf)" = 2 ] ||
		{ say "the package's ExecStart= lines changed"; return 1; }
	systemctl daemon-reload
	systemctl start "zram-recompd-dict-save@$D.service" || return 1
	for f in "$VD/$D.zdict.cred" "$VD/$D.zdict.pred.cred"; do
		[ "$(stat -c %a "$f" 2>/dev/null)" = 600 ] || { say "$f: mode $(stat -c %a "$f")"; return 1; }
	done
	say "saved: $(ls -l "$VD" | tail -n +2 | tr -s ' ' | tr '\n' ';')"
	# the test itself: the fragments are in /run's copy
	has "$RD/$D.zdict" || { say "fragments not found in the plaintext"; return 1; }
	# neither in the ciphertext nor anywhere on what would be disk
	if has "$VD/$D.zdict.cred" || plaintext_files | grep -q .; then
		say "plaintext in: $(plaintext_files | head -n 3 | tr '\n' ' ')"
		return 1
	fi
	return 0
}

dict_load() {
	systemctl start "$DU" || return 1
	cmp -s "$CD/$D.zdict" "$W/plain.zdict" || { say "decrypted copy differs"; return 1; }
	say "credentials: $(stat -f -c %T "$CD") $(ls -l "$CD" | tail -n +2 | tr -s ' ' | tr '\n' ';')"
	rm -f "$RD/$D.zdict" "$RD/$D.zdict.pred"
	mkdir -p /etc/zram-recompd.conf.d
	printf '[global]\nzstd-dictionary = yes\n' >/etc/zram-recompd.conf.d/dict.conf
	resetup
	say "record: $(cat "$RD/$D.zdict.applied" 2>/dev/null)"
	grep -q "^applied=1 file=$CD/$D.zdict .* source=credential" "$RD/$D.zdict.applied" ||
		return 1
	systemctl -q is-active "$S" || return 1
	[ "$(cat "/sys/block/$D/initstate")" = 1 ] || return 1
	! jlog "$S" | grep -q "error"
}

dict_isolation() {
	systemctl stop "$DU"
	echo "not a credential" >"$VD/$D.zdict.cred"
	systemctl start "$DU" >/dev/null 2>&1 && { say "$DU started with a bad credential"; return 1; }
	systemctl -q is-failed "$DU" || return 1
	resetup
	systemctl -q is-active "$S" || { say "$S: $(systemctl is-active "$S")"; return 1; }
	[ "$(cat "/sys/block/$D/initstate")" = 1 ] || return 1
	[ ! -e "$RD/$D.zdict.applied" ] || { say "a record without a dictionary"; return 1; }
	jlog "$S" | grep -q "zstd-dictionary: no $D.zdict" || return 1
}

if dict_save; then
	res PASS dict_save "encrypted by systemd-creds, $(wc -c <"$VD/$D.zdict.cred") bytes;" \
		"none of its text in them or under /var, /etc, /root"
	if dict_load; then
		res PASS dict_load "applied from $CD at the hook's setup"
	else
		res FAIL dict_load "$(jlog "$DU" | tail -n 3 | tr '\n' ' ') $(jlog "$S" | tail -n 4 |
			tr '\n' ' ')"
	fi
	if dict_isolation; then
		res PASS dict_isolation "$DU failed, $S set $D up without a dictionary"
	else
		res FAIL dict_isolation "$(jlog "$S" | tail -n 4 | tr '\n' ' ')"
	fi
else
	res FAIL dict_save "$(tail -n 1 "$W/advise.out" | tr '\n' ' ')" \
		"$(jlog "zram-recompd-dict-save@$D.service" | tail -n 6 | tr '\n' ' ')"
	res SKIP dict_load "nothing saved"
	res SKIP dict_isolation "nothing saved"
fi
rm -f /etc/zram-recompd.conf.d/dict.conf
rm -rf "$W"
