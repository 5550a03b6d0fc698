#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The house's bounds (docs/architecture.md, Layers), checked on the tree and its objects:
#   lines      every file in src/ at most 900 lines
#   functions  every function in src/ at most 80 lines (from its first line to its closing
#              brace in column 0, kernel style)
#   folders    every .c in a known layer folder, src/LAYER/, none loose in src/
#   includes   no #include reaches a layer above the including file's (a header of include/
#              belongs to the layer of the .c of its name: zram.h to src/kernel/zram.c, or
#              of NAME_*.c: backing.h to src/backing/; NAME_internal.h to NAME's)
#   calls      no object calls a function or uses data that a layer above defines (nm: the
#              undefined symbols of each object against the defined ones of every other)
#   circles    no two files call each other, directly or round a longer circle
# Then a self-test: the same checks on a small made-up tree with one fault of each kind,
# each of which must be reported (a check that cannot fail is no check).
# Usage: tests/house/run.sh [BUILDDIR]  (default build; needs its objects: make all)
# Prints "house: N passed, N failed"; exit 1 on any failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILDDIR=${1:-${BUILDDIR:-build}}
NM=${NM:-nm}
CC=${CC:-cc}

# The layers, lowest first: each may use only its own and those before it.
LAYERS="base model kernel config policy pass state advise backing adopt daemon cli"
MAX_LINES=900
MAX_FUNC=80

P=0
F=0
ok() { P=$((P + 1)); echo "PASS $1"; }
bad() { F=$((F + 1)); echo "FAIL $1: $2"; }

# check ROOT OBJDIR OUT: writes every violation found to OUT, one per line.
check() {
	root=$1
	objdir=$2
	out=$3
	: >"$out"
	rank=0
	: >"$out.rank"
	for l in $LAYERS; do
		echo "$l $rank" >>"$out.rank"
		rank=$((rank + 1))
	done
	for f in "$root"/src/*.c "$root"/src/*.h; do
		[ -e "$f" ] && echo "folders ${f#"$root"/}: not in a layer folder" >>"$out"
	done
	: >"$out.files"
	for d in "$root"/src/*/; do
		l=$(basename "$d")
		grep -q "^$l " "$out.rank" || echo "folders src/$l: no such layer ($LAYERS)" >>"$out"
		for f in "$d"*.c "$d"*.h; do
			[ -e "$f" ] && echo "$l ${f#"$root"/}" >>"$out.files"
		done
	done
	# lines and functions, in one pass over every file
	# shellcheck disable=SC2046 # the source tree's paths have no blanks
	awk -v root="$root/" -v maxl="$MAX_LINES" -v max="$MAX_FUNC" '
		FNR == 1 { if (f != "" && lines > maxl) over(); f = substr(FILENAME, length(root) + 1); start = 0 }
		{ lines = FNR }
		/^[a-zA-Z].*\(/ && !/;[ \t]*$/ { start = FNR; name = $0 }
		/^}/ && start {
			n = FNR - start + 1
			if (n > max)
				printf "functions %s:%d: %d lines (at most %d): %s\n", f, start, n, max, name
			start = 0
		}
		function over() { printf "lines %s: %d lines (at most %d)\n", f, lines, maxl }
		END { if (f != "" && lines > maxl) over() }' \
		$(awk -v r="$root/" '{ print r $2 }' "$out.files") >>"$out"
	# includes: the layer of every header of include/, by the .c of its name
	(cd "$root/include" 2>/dev/null && ls -- *.h 2>/dev/null) >"$out.hnames"
	awk -v rankf="$out.rank" -v filesf="$out.files" -v root="$root/" '
		BEGIN {
			while ((getline line < rankf) > 0) { split(line, a, " "); rank[a[1]] = a[2] }
			while ((getline line < filesf) > 0) {
				split(line, a, " "); lay[a[2]] = a[1]; nf++; file[nf] = a[2]
				n = split(a[2], p, "/"); c = p[n]
				if (c ~ /\.h$/) local[a[2]] = 1
				if (c !~ /\.c$/) continue
				sub(/\.c$/, "", c); byname[c] = a[1]
				for (k = 1; k < length(c); k++)
					if (substr(c, k, 1) == "_" && !((substr(c, 1, k - 1)) in byprefix))
						byprefix[substr(c, 1, k - 1)] = a[1]
			}
		}
		{
			b = $0; sub(/\.h$/, "", b); base = b; sub(/_internal$/, "", base)
			if (base in byname) hl[$0] = byname[base]
			else if (base in byprefix) hl[$0] = byprefix[base]
			else { printf "includes include/%s: no src/*/%s.c or %s_*.c gives its layer\n", $0, base, base; next }
			lay["include/" $0] = hl[$0]; nf++; file[nf] = "include/" $0
		}
		END {
			for (i = 1; i <= nf; i++) {
				f = file[i]; dir = f; sub(/\/[^\/]*$/, "", dir)
				while ((getline line < (root f)) > 0) {
					if (line !~ /^#include "/) continue
					inc = line; sub(/^#include "/, "", inc); sub(/".*/, "", inc)
					if (f !~ /^include\// && ((dir "/" inc) in local)) continue
					if (!(inc in hl)) { printf "includes %s: \"%s\" is no header of include/ or beside it\n", f, inc; continue }
					if (rank[hl[inc]] > rank[lay[f]])
						printf "includes %s (%s) includes %s (%s, a layer above)\n", f, lay[f], inc, hl[inc]
				}
				close(root f)
			}
		}' "$out.hnames" >>"$out"
	# calls: FILE SYMBOL per defined (D) and undefined (U) global symbol
	# (one nm for all objects: nm -P -A prints "OBJECT: NAME TYPE ...")
	: >"$out.objs"
	while read -r l f; do
		case $f in *.c) ;; *) continue ;; esac
		o=$objdir/${f#src/}
		o=${o%.c}.o
		if [ -e "$o" ]; then
			echo "$o $l ${f#src/}" >>"$out.objs"
		else
			echo "calls $o: missing (build first: make all)" >>"$out"
		fi
	done <"$out.files"
	: >"$out.syms"
	if [ -s "$out.objs" ]; then
		# shellcheck disable=SC2046 # object paths have no blanks (the source tree's names)
		"$NM" -P -A $(awk '{ print $1 }' "$out.objs") | awk -v objsf="$out.objs" '
			BEGIN { while ((getline line < objsf) > 0) { split(line, a, " "); src[a[1] ":"] = a[3]; lay[a[1] ":"] = a[2] } }
			$3 == "U" { print "U", src[$1], lay[$1], $2; next }
			$3 ~ /^[A-Z]$/ { print "D", src[$1], lay[$1], $2 }' >"$out.syms"
	fi
	awk -v rankf="$out.rank" -v edges="$out.edges" '
		BEGIN { while ((getline line < rankf) > 0) { split(line, a, " "); rank[a[1]] = a[2] } }
		$1 == "D" { def[$4] = $2; lay[$2] = $3; next }
		$1 == "U" { use[++n] = $2 " " $3 " " $4 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], u, " ")
				if (!(u[3] in def) || def[u[3]] == u[1])
					continue
				to = def[u[3]]
				if (rank[lay[to]] > rank[u[2]])
					printf "calls %s (%s) uses %s of %s (%s, a layer above)\n", u[1], u[2], u[3], to, lay[to]
				e = u[1] " " to
				if (!(e in seen)) { seen[e] = 1; print e > edges }
			}
		}' "$out.syms" >>"$out"
	touch "$out.edges"
	# circles: strip files that call no file left until none can go; what stays is on a circle
	# or calls into one, and each circle is named by the files left that call each other.
	awk '
		{ out[$1] = out[$1] " " $2; node[$1] = 1; node[$2] = 1; e[$1, $2] = 1 }
		END {
			do {
				changed = 0
				for (v in node) {
					if (gone[v]) continue
					k = split(out[v], w, " "); live = 0
					for (j = 1; j <= k; j++) if (!gone[w[j]]) live = 1
					if (!live) { gone[v] = 1; changed = 1 }
				}
			} while (changed)
			# what calls into a circle without being on it: strip what nothing left calls
			do {
				changed = 0
				for (v in node) {
					if (gone[v]) continue
					called = 0
					for (u in node) if (!gone[u] && e[u, v]) called = 1
					if (!called) { gone[v] = 1; changed = 1 }
				}
			} while (changed)
			for (v in node) if (!gone[v]) {
				k = split(out[v], w, " "); s = ""
				for (j = 1; j <= k; j++) if (!gone[w[j]]) s = s " " w[j]
				printf "circles %s calls%s, which call it back\n", v, s
			}
		}' "$out.edges" | sort >>"$out"
}

# report KIND OUT: one PASS or FAIL per kind of check.
report() {
	for k in lines functions folders includes calls circles; do
		if grep -q "^$k " "$2"; then
			bad "$1$k" "$(grep "^$k " "$2" | sed "s/^$k //" | head -n 20 | tr '\n' ';')"
		else
			ok "$1$k"
		fi
	done
}

T=$(mktemp -d "${TMPDIR:-/tmp}/house.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

check . "$BUILDDIR/obj" "$T/tree"
report "" "$T/tree"

# The self-test: a made-up tree with one fault of each kind.
S=$T/fake
mkdir -p "$S/src/base" "$S/src/cli" "$S/src/kernel" "$S/include" "$S/obj/base" "$S/obj/cli" \
	"$S/obj/kernel"
printf 'int a(void);\nint b(void);\nint up(void);\n' >"$S/include/a.h"
printf '#include "a.h"\n' >"$S/include/b.h"
printf '#include "a.h"\n' >"$S/include/up.h"
# base/a.c and base/b.c call each other (a circle); base/b.c calls up() of cli/ (a call
# upward) and includes cli's header (an include upward).
printf '#include "a.h"\nint a(void)\n{\n\treturn b();\n}\n' >"$S/src/base/a.c"
printf '#include "up.h"\nint b(void)\n{\n\treturn a() + up();\n}\n' >"$S/src/base/b.c"
printf '#include "a.h"\nint up(void)\n{\n\treturn 1;\n}\n' >"$S/src/cli/up.c"
# kernel/long.c: one function of 81 lines and the file of 901.
{
	printf 'int lng(void);\nint lng(void)\n{\n\tint x = 0;\n'
	i=0
	while [ $i -lt 76 ]; do echo "	x++;"; i=$((i + 1)); done
	printf '\treturn x;\n}\n'
	while [ $i -lt 895 ]; do echo "/* */"; i=$((i + 1)); done
} >"$S/src/kernel/long.c"
printf 'int loose;\n' >"$S/src/loose.c"
for f in base/a base/b cli/up kernel/long; do
	"$CC" -I"$S/include" -c -o "$S/obj/$f.o" "$S/src/$f.c" || bad self-test-build "$f.c"
done
check "$S" "$S/obj" "$T/fake.out"
for want in "lines src/kernel/long.c: 901 lines" "functions src/kernel/long.c:2: 81 lines" \
	"folders src/loose.c" "includes src/base/b.c (base) includes up.h (cli" \
	"calls base/b.c (base) uses up of cli/up.c" "circles base/a.c calls base/b.c" \
	"circles base/b.c calls base/a.c"; do
	if grep -qF "$want" "$T/fake.out"; then
		ok "self-test: $want"
	else
		bad "self-test" "not reported: $want"
	fi
done
# and nothing else: kernel/long.c is on no circle, cli/up.c calls nothing above it
if [ "$(wc -l <"$T/fake.out")" -eq 7 ]; then
	ok "self-test: nothing else reported"
else
	bad "self-test" "reported more: $(tr '\n' ';' <"$T/fake.out")"
fi

echo "house: $P passed, $F failed"
[ "$F" -eq 0 ]
