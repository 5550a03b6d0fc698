// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The value kinds of the backing file's keys (config_internal.h; the keys are config.c's
 * table rows): backing-file's path, the sizes that may be a share of a filesystem
 * (backing-file-size, backing-file-min-free), backing-encryption's auto/yes/no.
 */
#include "config_internal.h"
#include "units.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

static int why_fail(char *why, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int why_fail(char *why, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, CFG_ERR_MAX, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * A file zram-recompd creates as root: absolute, no component "." or ".." or empty, no
 * control character (backing_file.c also opens it without following symlinks).
 */
int cfg_parse_file(const char *v, char *field, size_t size, char why[CFG_ERR_MAX])
{
	size_t len = strlen(v);
	const char *c = v;

	if (len >= size)
		return why_fail(why, -ENAMETOOLONG, "path longer than %zu bytes", size - 1);
	while (*v && *c == '/') {
		size_t n = strcspn(c + 1, "/");

		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			break;
		c += n + 1;
	}
	if (*v && *c)
		return why_fail(why, -EINVAL,
				"'%s' is not an absolute file path without '.', '..' or empty "
				"components",
				v);
	for (c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return why_fail(why, -EINVAL, "control character in path");
	memset(field, 0, size);
	memcpy(field, v, len + 1);
	return 0;
}

int cfg_parse_share(char *v, struct cfg_share *field, const struct cfg_share_bounds *b,
		    char why[CFG_ERR_MAX])
{
	struct cfg_share sh = {0};
	size_t len = strlen(v);
	uint64_t n;
	int r;

	if (len > 1 && v[len - 1] == '%') {
		v[len - 1] = '\0';
		if (parse_u64(v, &n) < 0)
			return why_fail(why, -EINVAL, "'%s%%' is not a whole percentage", v);
		if (n < b->pct_min || n > b->pct_max)
			return why_fail(why, -ERANGE,
					"'%s%%' is out of range %" PRIu32 "%%-%" PRIu32 "%%", v,
					b->pct_min, b->pct_max);
		sh.percent = (uint32_t)n;
	} else {
		if (!*v)
			return why_fail(why, -EINVAL, "empty value");
		r = units_parse(v, UNIT_BYTES, &n);
		if (r == -EINVAL)
			return why_fail(why, r, "'%s' is not %s or N%%", v, units_hint(UNIT_BYTES));
		if (r < 0 || n < b->min || n > b->max) {
			char lo[UNITS_FMT_LEN], hi[UNITS_FMT_LEN];
			enum unit u = v[strspn(v, "0123456789")] ? UNIT_BYTES : UNIT_NONE;

			return why_fail(why, -ERANGE, "'%s' is out of range %s-%s%s", v,
					units_format(lo, sizeof(lo), b->min, u),
					units_format(hi, sizeof(hi), b->max, u),
					b->note ? b->note : "");
		}
		sh.bytes = n;
	}
	*field = sh;
	return 0;
}

int cfg_parse_enc(const char *v, enum backing_enc *field, char why[CFG_ERR_MAX])
{
	if (strcmp(v, "auto") == 0)
		*field = BACKING_ENC_AUTO;
	else if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
		*field = BACKING_ENC_YES;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
		*field = BACKING_ENC_NO;
	else
		return why_fail(why, -EINVAL, "'%s' is not one of auto, yes, no", v);
	return 0;
}

void cfg_print_share(const struct cfg_share *sh, FILE *f)
{
	if (sh->percent)
		fprintf(f, " %" PRIu32 "%%", sh->percent);
	else
		fprintf(f, " %" PRIu64, sh->bytes);
}

void cfg_print_enc(const enum backing_enc *e, FILE *f)
{
	static const char *const names[] = {"auto", "yes", "no"};

	fprintf(f, " %s", (unsigned)*e < ARRAY_SIZE(names) ? names[*e] : "auto");
}
