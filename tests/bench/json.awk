# SPDX-License-Identifier: GPL-2.0-or-later
# make bench: "a.b.c value" lines to one nested JSON object. Keys sharing a prefix are grouped
# in the order the prefix first appeared; a repeated key keeps its last value. Values that
# look like numbers, true, false or null are written bare, everything else as a string.

function ind(d) { return sprintf("%" (2 * d) "s", "") }

function jval(v) {
	if (v ~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ || v == "true" || v == "false" ||
	    v == "null")
		return v
	gsub(/\\/, "\\\\", v)
	gsub(/"/, "\\\"", v)
	gsub(/\t/, "\\t", v)
	return "\"" v "\""
}

{
	key = $1
	val = substr($0, length($1) + 2)
	if (key in seen) {
		V[seen[key]] = val
		next
	}
	n++
	seen[key] = n
	K[n] = key
	V[n] = val
	np = split(key, parts, ".")
	pre = ""
	sk = ""
	for (i = 1; i <= np; i++) {
		pre = i == 1 ? parts[i] : pre "." parts[i]
		if (!(pre in ord))
			ord[pre] = ++nord
		sk = sk sprintf("%06d", ord[pre])
	}
	SK[n] = sk
}

END {
	for (i = 1; i <= n; i++)
		idx[i] = i
	# insertion sort by the prefix-order key (a few hundred entries)
	for (i = 2; i <= n; i++) {
		x = idx[i]
		for (j = i - 1; j >= 1 && SK[idx[j]] > SK[x]; j--)
			idx[j + 1] = idx[j]
		idx[j + 1] = x
	}
	printf "{"
	prev_np = 0
	for (t = 1; t <= n; t++) {
		i = idx[t]
		np = split(K[i], c, ".")
		common = 0
		while (common < np - 1 && common < prev_np - 1 && c[common + 1] == pc[common + 1])
			common++
		for (d = prev_np - 1; d > common; d--) {
			printf "\n%s}", ind(d)
			cnt[d + 1] = 0
		}
		for (d = common + 1; d <= np - 1; d++) {
			if (cnt[d]++)
				printf ","
			printf "\n%s\"%s\": {", ind(d), c[d]
			cnt[d + 1] = 0
		}
		if (cnt[np]++)
			printf ","
		printf "\n%s\"%s\": %s", ind(np), c[np], jval(V[i])
		delete pc
		for (d = 1; d <= np; d++)
			pc[d] = c[d]
		prev_np = np
	}
	for (d = prev_np - 1; d >= 1; d--)
		printf "\n%s}", ind(d)
	printf "\n}\n"
}
