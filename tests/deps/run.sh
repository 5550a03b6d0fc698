#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The first-command tier: `make demo`, `make check` and `make bench` must install what they
# need before anything compiles; plain `make` and `make install` must never install.
# In a copy of the tracked files (a clean clone of the working tree), with PATH stubs for
# dpkg-query (libsystemd-dev looks missing), apt-get, sudo and id that only record what they
# were asked, it checks
#   - `make -n T` for T in demo, check, bench: the dependency step comes before the first
#     compiler call;
#   - `make -n` and `make -n install`: no dependency step, no apt-get;
#   - tests/deps.sh itself, run for real against the stubs: it asks apt-get for exactly the
#     missing package, and only for the groups it was given.
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
for t in demo check bench; do
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
for t in all install; do
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
echo "deps: $P passed, $F failed"
[ "$F" -eq 0 ]
