// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Did-you-mean hints for a recompress-algorithms value written in another syntax: commas
 * between the names, quotes around them, or a level after a colon (which belongs in
 * algorithm-params).
 */
#include "config_internal.h"
#include "util.h"

#include <string.h>

/* v without the characters of drop, runs of blanks made one: "zstd, deflate" -> "zstd deflate". */
static void strip(const char *v, const char *drop, char *out, size_t size)
{
	size_t o = 0;

	for (; *v && o + 1 < size; v++) {
		char ch = strchr(drop, *v) ? ' ' : *v;

		if (ch == ' ' && (o == 0 || out[o - 1] == ' '))
			continue;
		out[o++] = ch;
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

void cfg_algos_hint(const char *v, char *out, size_t size)
{
	char fixed[128], *colon;

	out[0] = '\0';
	if (strpbrk(v, "\"'")) {
		strip(v, "\"'", fixed, sizeof(fixed));
		(void)str_printf(out, size, "; did you mean '%s'? (values take no quotes)", fixed);
	} else if (strchr(v, ',')) {
		strip(v, ",", fixed, sizeof(fixed));
		(void)str_printf(out, size,
				 "; did you mean '%s'? (names are separated by blanks, no commas)",
				 fixed);
	} else if ((colon = strchr(v, ':')) && !strchr(v, ' ') && colon > v &&
		   (size_t)(colon - v) < sizeof(fixed)) {
		const char *level = strncmp(colon + 1, "level=", 6) == 0 ? colon + 7 : colon + 1;

		memcpy(fixed, v, (size_t)(colon - v));
		fixed[colon - v] = '\0';
		(void)str_printf(out, size,
				 "; did you mean recompress-algorithms = %s and algorithm-params = "
				 "%s:level=%s? (a level goes in algorithm-params)",
				 fixed, fixed, level);
	}
}
