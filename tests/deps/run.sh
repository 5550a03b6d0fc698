#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The first-command and Makefile tier: `make demo`, `make check`, `make bench` and `make fuzz`
# must install what they need before anything compiles; plain `make` and `make install` must
# never install packages; `make install` installs every file it is meant to, or fails.
# In a copy of the tracked files (a clean clone of the working tree), with PATH stubs for
# dpkg-query (libsystemd-dev looks missing), apt-get, sudo and id that only record what they
# were asked, it checks
#   - `make -n T` for T in demo, check, bench, fuzz: the dependency step comes before the
#     first compiler call;
#   - `make -n`, `make -n install` and `make -n deb`: no dependency step, no apt-get;
#   - tests/deps.sh itself, run for real against the stubs: it asks apt-get for exactly the
#     missing package, and only for the groups it was given;
#   - `make install DESTDIR=...` for real (with a stub compiler: what is checked is the
#     install rule, not the build): exactly the expected files, modes and substituted paths,
#     among them every tracked file under systemd/ (the zram-generator and zram-tools
#     drop-ins included); a second install keeps an edited configuration; without the
#     zram-generator drop-in it fails, naming it, and installs nothing;
#   - `make clean` removes the BUILDDIR it is given; every target that names no file is
#     .PHONY.
# Last line: "deps: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
P=0
F=0
ok() {
	P=$((P + 1))
	echo "PASS $1"
}
bad() {
	F=$((F + 1))
	echo "FAIL $1: $2"
}

T=$(mktemp -d "${TMPDIR:-/tmp}/zram-recompd-deps.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
CLONE=$T/clone
mkdir -p "$CLONE" "$T/bin"
(cd "$TOP" && git ls-files -z | cpio -0 -pdm --quiet "$CLONE") || {
	echo "deps: 0 passed, 1 failed"
	exit 1
}

# Stubs: a Debian machine without libsystemd-dev; installs are recorded, not done.
cat >"$T/bin/dpkg-query" <<'EOS'
#!/bin/sh
for a; do pkg=$a; done
case $pkg in
libsystemd-dev) echo "dpkg-query: no packages found matching $pkg" >&2; exit 1 ;;
*) printf 'install ok installed' ;;
esac
EOS
cat >"$T/bin/apt-get" <<'EOS'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
EOS
cat >"$T/bin/sudo" <<'EOS'
#!/bin/sh
echo "sudo $*" >>"$STUB_LOG"
exec "$@"
EOS
cat >"$T/bin/id" <<'EOS'
#!/bin/sh
echo 1000
EOS
chmod +x "$T/bin/"*
export STUB_LOG="$T/stub.log"
SPATH=$T/bin:$PATH

# first_line FILE REGEX: number of the first line matching, 0 when none.
first_line() {
	n=$(grep -nE "$2" "$1" | head -n 1 | cut -d: -f1)
	echo "${n:-0}"
}

CC_RE='(^|[ /])(cc|gcc|clang)( |$)'
for t in demo check bench fuzz; do
	(cd "$CLONE" && PATH=$SPATH make -n "$t" >"$T/$t.out" 2>"$T/$t.err")
	d=$(first_line "$T/$t.out" 'tests/deps\.sh')
	c=$(first_line "$T/$t.out" "$CC_RE")
	if [ "$d" -eq 0 ]; then
		bad "make-n-$t" "no dependency step in: $(head -c 300 "$T/$t.out" | tr '\n' '|')"
	elif [ "$c" -eq 0 ]; then
		bad "make-n-$t" "no compiler call at all (the check proves nothing)"
	elif [ "$d" -lt "$c" ]; then
		ok "make-n-$t (dependency step on line $d, first compiler call on line $c)"
	else
		bad "make-n-$t" "compiler call on line $c before the dependency step on line $d"
	fi
done
for t in all install deb; do
	(cd "$CLONE" && PATH=$SPATH make -n $t DESTDIR="$T/dest" >"$T/$t.out" 2>"$T/$t.err")
	if grep -qE 'tests/deps\.sh|apt-get' "$T/$t.out"; then
		bad "make-n-$t" "installs packages: $(grep -E 'deps|apt-get' "$T/$t.out" | head -n 2)"
	elif [ "$(first_line "$T/$t.out" "$CC_RE")" -eq 0 ] && [ "$t" = all ]; then
		bad "make-n-$t" "no compiler call (the check proves nothing)"
	else
		ok "make-n-$t (never installs)"
	fi
done

# deps.sh for real, against the stubs: not root, so through sudo; only the missing package.
: >"$STUB_LOG"
if (cd "$CLONE" && PATH=$SPATH sh tests/deps.sh build >"$T/deps.out" 2>&1) &&
	grep -q 'apt-get install -y -qq --no-install-recommends  *libsystemd-dev$' "$STUB_LOG" &&
	grep -q '^sudo apt-get update' "$STUB_LOG"; then
	ok "deps-installs-missing (sudo apt-get install libsystemd-dev)"
else
	bad "deps-installs-missing" "log: $(tr '\n' '|' <"$STUB_LOG"); out: $(tr '\n' '|' <"$T/deps.out")"
fi
: >"$STUB_LOG"
if (cd "$CLONE" && PATH=$SPATH sh tests/deps.sh test >"$T/deps.out" 2>&1) && [ ! -s "$STUB_LOG" ]; then
	ok "deps-group-test (libsystemd-dev is not in it: nothing installed)"
else
	bad "deps-group-test" "log: $(tr '\n' '|' <"$STUB_LOG")"
fi
if (cd "$CLONE" && PATH=$SPATH sh tests/deps.sh bogus >"$T/deps.out" 2>&1); then
	bad "deps-unknown-group" "exit 0"
else
	ok "deps-unknown-group (refused)"
fi

# ---- make install ----
# A compiler stub that only creates its -o output: the install rule gets a "program" to
# install without a real build (this tier runs before and without one).
cat >"$T/bin/stubcc" <<'EOS'
#!/bin/sh
out=
while [ $# -gt 0 ]; do
	[ "$1" = -o ] && [ $# -gt 1 ] && out=$2
	shift
done
[ -n "$out" ] || exit 0
mkdir -p "$(dirname "$out")"
printf '#!/bin/sh\necho stub\n' >"$out"
chmod 0755 "$out"
EOS
chmod +x "$T/bin/stubcc"
UNITDIR=/usr/lib/systemd/system
# install_into DEST [MAKE ARGS...]: `make install` of the clone into DEST; output in
# $T/install.out.
install_into() {
	d=$1
	shift
	(cd "$CLONE" && make install CC="$T/bin/stubcc" DESTDIR="$d" PREFIX=/usr/local \
		SYSCONFDIR=/etc SYSTEMDUNITDIR=$UNITDIR \
		BASHCOMPDIR=/usr/local/share/bash-completion/completions "$@") >"$T/install.out" 2>&1
}
# What must be installed (mode, path below DESTDIR); the units: every tracked file under
# systemd/, at the same path below the unit directory.
{
	echo "755 usr/local/sbin/zram-recompd"
	echo "644 usr/local/share/man/man8/zram-recompd.8"
	echo "644 usr/local/share/man/man5/zram-recompd.conf.5"
	echo "644 usr/local/share/bash-completion/completions/zram-recompd"
	echo "644 etc/zram-recompd.conf"
	(cd "$TOP" && git ls-files systemd) | sed "s,^systemd/,644 ${UNITDIR#/}/,"
} | LC_ALL=C sort >"$T/install.want"
DEST=$T/dest-install
if ! install_into "$DEST"; then
	bad "install" "make install failed: $(tail -n 5 "$T/install.out" | tr '\n' '|')"
else
	(cd "$DEST" && find . -type f -exec stat -c '%a %n' {} +) | sed 's, \./, ,' |
		LC_ALL=C sort >"$T/install.got"
	dropin="${UNITDIR#/}/systemd-zram-setup@.service.d/zram-recompd.conf"
	zdropin="${UNITDIR#/}/zramswap.service.d/zram-recompd.conf"
	if ! grep -q " $dropin\$" "$T/install.want"; then
		bad "install-files" "the zram-generator drop-in is not a tracked file under systemd/"
	elif ! grep -q " $zdropin\$" "$T/install.want"; then
		bad "install-files" "the zram-tools drop-in is not a tracked file under systemd/"
	elif ! cmp -s "$T/install.want" "$T/install.got"; then
		bad "install-files" "installed (+) vs expected (-): $(diff "$T/install.want" \
			"$T/install.got" | grep '^[<>]' | tr '\n' '|')"
	elif [ ! -d "$DEST/etc/zram-recompd.conf.d" ]; then
		bad "install-files" "no /etc/zram-recompd.conf.d directory"
	else
		ok "install-files ($(wc -l <"$T/install.want") files, both drop-ins included)"
	fi
	# @SBINDIR@ and @SYSCONFDIR@ replaced everywhere; the drop-in runs the installed program
	# before zram-generator's ExecStart=.
	left=$(grep -rl '@[A-Z]*DIR@' "$DEST" 2>/dev/null | sed "s,^$DEST/,," | tr '\n' ' ')
	if [ -n "$left" ]; then
		bad "install-substituted" "placeholders left in: $left"
	elif ! grep -qx 'ExecStartPre=-/usr/local/sbin/zram-recompd --once --device %i' \
		"$DEST/$dropin"; then
		bad "install-substituted" "drop-in: $(grep -v '^#' "$DEST/$dropin" | tr '\n' '|')"
	elif ! grep -qx 'ExecStartPre=-/usr/local/sbin/zram-recompd --once --device zram0' \
		"$DEST/$zdropin"; then
		bad "install-substituted" "zramswap drop-in: $(grep -v '^#' "$DEST/$zdropin" |
			tr '\n' '|')"
	elif ! grep -qx 'ExecStopPost=-/usr/local/sbin/zram-recompd backing teardown %i' \
		"$DEST/$dropin"; then
		bad "install-substituted" "drop-in without backing teardown"
	elif ! grep -qx 'ExecStart=/usr/local/sbin/zram-recompd' \
		"$DEST/$UNITDIR/zram-recompd.service" ||
		! grep -qx 'ExecStart=/usr/local/sbin/zram-recompd backing setup' \
			"$DEST/$UNITDIR/zram-recompd-backing.service"; then
		bad "install-substituted" "zram-recompd.service: $(grep '^ExecStart=' \
			"$DEST/$UNITDIR/zram-recompd.service")"
	else
		ok "install-substituted (drop-ins: ExecStartPre=-/usr/local/sbin/zram-recompd --once --device %i, zram0)"
	fi
	# An administrator's configuration survives a second install.
	echo "# edited" >>"$DEST/etc/zram-recompd.conf"
	if install_into "$DEST" && tail -n 1 "$DEST/etc/zram-recompd.conf" | grep -qx '# edited'; then
		ok "install-keeps-config"
	else
		bad "install-keeps-config" "$(tail -n 3 "$T/install.out" | tr '\n' '|')"
	fi
fi
# A file it is meant to install is missing: make stops before installing anything.
DROPIN=$CLONE/systemd/systemd-zram-setup@.service.d/zram-recompd.conf
DEST=$T/dest-missing
if [ ! -e "$DROPIN" ]; then
	bad "install-missing-fails" "no drop-in in the tree to take away"
elif mv "$DROPIN" "$T/dropin.saved" && install_into "$DEST"; then
	bad "install-missing-fails" "exit 0 without the drop-in"
elif ! grep -q 'systemd-zram-setup@.service.d/zram-recompd.conf' "$T/install.out"; then
	bad "install-missing-fails" "failed without naming the file: $(tail -n 3 "$T/install.out" |
		tr '\n' '|')"
elif [ -e "$DEST" ]; then
	bad "install-missing-fails" "installed something before failing: $(cd "$DEST" && find . |
		head -n 5 | tr '\n' ' ')"
else
	ok "install-missing-fails (names the drop-in, installs nothing)"
fi
[ -e "$T/dropin.saved" ] && mv "$T/dropin.saved" "$DROPIN"

# ---- clean, .PHONY ----
mkdir -p "$T/bd/obj" "$CLONE/build-san"
if (cd "$CLONE" && make clean BUILDDIR="$T/bd" >"$T/clean.out" 2>&1) && [ ! -e "$T/bd" ] &&
	[ ! -e "$CLONE/build-san" ]; then
	ok "clean-builddir (removes BUILDDIR=$T/bd and build-san)"
else
	left=
	for d in "$T/bd" "$CLONE/build-san"; do
		[ -e "$d" ] && left="$left $d"
	done
	bad "clean-builddir" "left:$left $(tr '\n' '|' <"$T/clean.out")"
fi
# Every explicit target without a slash or variable in its name names no file: it must be
# among the prerequisites of .PHONY in make's own database (all .PHONY lines merged).
targets=$(sed -nE 's/^([a-z][a-z0-9-]*):([^=]|$).*/\1/p' "$CLONE/Makefile" | LC_ALL=C sort -u)
phony=$( (cd "$CLONE" && make -pq CC="$T/bin/stubcc" 2>/dev/null) | sed -n 's/^\.PHONY: //p')
notphony=
n=0
for t in $targets; do
	n=$((n + 1))
	case " $phony " in
	*" $t "*) ;;
	*) notphony="$notphony $t" ;;
	esac
done
if [ "$n" -eq 0 ] || [ -z "$phony" ]; then
	bad "phony" "no targets or no .PHONY found (the check proves nothing)"
elif [ -n "$notphony" ]; then
	bad "phony" "not .PHONY:$notphony"
else
	ok "phony ($n targets: $(echo "$targets" | tr '\n' ' ' | sed 's/ $//'))"
fi
# Distribution build flags (issue 13): the build takes CPPFLAGS/CFLAGS/LDFLAGS from the
# environment or the command line and adds to them, never redefines _FORTIFY_SOURCE that
# the caller set, and passes with -Werror under Debian's dpkg-buildflags and with
# _FORTIFY_SOURCE=3 (Fedora, Arch, Ubuntu 24.04+). A real build of the daemon, in the clone.
buildflags() { # NAME [make arguments...]
	name=$1
	shift
	if (cd "$CLONE" && make -s BUILDDIR="$T/bf-$name" WERROR=1 "$@" "$T/bf-$name/zram-recompd") \
		>"$T/bf-$name.out" 2>&1 && [ -x "$T/bf-$name/zram-recompd" ]; then
		ok "buildflags-$name"
	else
		bad "buildflags-$name" "$(head -n 3 "$T/bf-$name.out" | tr '\n' '|')"
	fi
}
buildflags fortify3 CPPFLAGS=-D_FORTIFY_SOURCE=3
if command -v dpkg-buildflags >/dev/null 2>&1; then
	(
		eval "$(dpkg-buildflags --export=sh)"
		# shellcheck disable=SC2030 # only this subshell's counters would change
		buildflags dpkg
	) | tee "$T/bf-dpkg.result"
	if grep -q '^PASS' "$T/bf-dpkg.result"; then P=$((P + 1)); else F=$((F + 1)); fi
	# The flags reached the compiler: dpkg's -ffile-prefix-map is in the command.
	if (cd "$CLONE" && eval "$(dpkg-buildflags --export=sh)" &&
		make -n BUILDDIR="$T/bf-n" "$T/bf-n/obj/base/util.o") 2>/dev/null |
		grep -q -- '-ffile-prefix-map'; then
		ok "buildflags-dpkg-reach-compiler"
	else
		bad "buildflags-dpkg-reach-compiler" "dpkg-buildflags' CFLAGS are not in the compile command"
	fi
fi
echo "deps: $P passed, $F failed"
[ "$F" -eq 0 ]
