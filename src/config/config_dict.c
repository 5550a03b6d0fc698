// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The value of zstd-dictionary (config_internal.h; the key is a row of config.c's table):
 * "no", "auto", "yes" (every secondary priority holding zstd), or the priorities 1..3 that
 * get the dictionary whatever advise predicted. dict_apply.c decides per device.
 */
#include "config_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SEPS " \t,"

static int dict_fail(char *why, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int dict_fail(char *why, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, CFG_ERR_MAX, fmt, ap);
	va_end(ap);
	return r;
}

static int parse_prios(char *v, unsigned *ret, char *why)
{
	char *save = NULL, *tok;
	unsigned mask = 0;

	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		unsigned p;

		if (strlen(tok) != 1 || tok[0] < '1' || tok[0] > '3')
			return dict_fail(
				why, -EINVAL,
				"'%s' is not no, auto, yes or a secondary priority 1-3 "
				"(the primary cannot take a dictionary here: the setup tool "
				"writes comp_algorithm after the hook, and 7.3 then resets "
				"its parameters)",
				tok);
		p = (unsigned)(tok[0] - '0');
		if (mask & (1u << p))
			return dict_fail(why, -EINVAL, "priority %s is listed twice", tok);
		mask |= 1u << p;
	}
	if (!mask)
		return dict_fail(why, -EINVAL, "empty value (no, auto, yes or priorities 1-3)");
	*ret = mask;
	return 0;
}

int cfg_parse_dict(const struct key_def *k, char *v, void *base, char *why)
{
	struct dev_config *d = base;
	unsigned prios = 0;
	enum dict_use use;
	int r;

	(void)k;
	if (strcmp(v, "no") == 0) {
		use = DICT_USE_NO;
	} else if (strcmp(v, "auto") == 0) {
		use = DICT_USE_AUTO;
	} else if (strcmp(v, "yes") == 0) {
		use = DICT_USE_PRIOS;
		prios = DICT_PRIOS_ZSTD;
	} else {
		r = parse_prios(v, &prios, why);
		if (r < 0)
			return r;
		use = DICT_USE_PRIOS;
	}
	d->dict_use = use;
	d->dict_prios = prios;
	return 0;
}

void cfg_print_dict(const struct key_def *k, const void *base, FILE *f)
{
	const struct dev_config *d = base;

	(void)k;
	if (d->dict_use == DICT_USE_NO) {
		fputs(" no", f);
	} else if (d->dict_use == DICT_USE_AUTO) {
		fputs(" auto", f);
	} else if (d->dict_prios == DICT_PRIOS_ZSTD) {
		fputs(" yes", f);
	} else {
		for (unsigned p = 1; p <= CFG_MAX_ALGOS; p++)
			if (d->dict_prios & (1u << p))
				fprintf(f, " %u", p);
	}
}
