// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sizes and durations in configuration values (include/units.h). Only the forms systemd
 * documents are taken (systemd.time(7), parse_size() with base 1024); "KB" and "month" are
 * not, since their sizes differ between tools.
 */
#include "units.h"

#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_FRAC_DIGITS 9 /* "0.000000001": more digits would not change a result here */

struct suffix {
	const char *name;
	uint64_t mult; /* in bytes, or in microseconds */
};

static const struct suffix size_suffixes[] = {
	{"B", 1},
	{"K", UINT64_C(1) << 10},
	{"KiB", UINT64_C(1) << 10},
	{"M", UINT64_C(1) << 20},
	{"MiB", UINT64_C(1) << 20},
	{"G", UINT64_C(1) << 30},
	{"GiB", UINT64_C(1) << 30},
	{"T", UINT64_C(1) << 40},
	{"TiB", UINT64_C(1) << 40},
	{"P", UINT64_C(1) << 50},
	{"PiB", UINT64_C(1) << 50},
};

#define USEC_PER_SEC UINT64_C(1000000)

static const struct suffix time_suffixes[] = {
	{"us", 1},
	{"usec", 1},
	{"ms", 1000},
	{"msec", 1000},
	{"s", USEC_PER_SEC},
	{"sec", USEC_PER_SEC},
	{"second", USEC_PER_SEC},
	{"seconds", USEC_PER_SEC},
	{"m", 60 * USEC_PER_SEC},
	{"min", 60 * USEC_PER_SEC},
	{"minute", 60 * USEC_PER_SEC},
	{"minutes", 60 * USEC_PER_SEC},
	{"h", 3600 * USEC_PER_SEC},
	{"hr", 3600 * USEC_PER_SEC},
	{"hour", 3600 * USEC_PER_SEC},
	{"hours", 3600 * USEC_PER_SEC},
	{"d", 86400 * USEC_PER_SEC},
	{"day", 86400 * USEC_PER_SEC},
	{"days", 86400 * USEC_PER_SEC},
	{"w", 604800 * USEC_PER_SEC},
	{"week", 604800 * USEC_PER_SEC},
	{"weeks", 604800 * USEC_PER_SEC},
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A number as written: whole part, fraction digits (as an integer) and their count. */
struct num {
	uint64_t whole, frac, frac_scale; /* frac / frac_scale is the fraction */
	bool has_frac;
};

/* "DIGITS[.DIGITS]" at *p; advances *p past it. */
static int scan_number(const char **p, struct num *n)
{
	const char *s = *p;
	unsigned nfrac = 0;

	memset(n, 0, sizeof(*n));
	n->frac_scale = 1;
	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++)
		if (__builtin_mul_overflow(n->whole, 10, &n->whole) ||
		    __builtin_add_overflow(n->whole, (uint64_t)(*s - '0'), &n->whole))
			return -ERANGE;
	if (*s == '.') {
		s++;
		n->has_frac = true;
		if (!is_digit(*s))
			return -EINVAL;
		for (; is_digit(*s); s++) {
			if (nfrac++ >= MAX_FRAC_DIGITS)
				continue; /* further digits cannot matter; ignored */
			n->frac = n->frac * 10 + (uint64_t)(*s - '0');
			n->frac_scale *= 10;
		}
	}
	*p = s;
	return 0;
}

/* n times mult: -ERANGE on overflow; *exact says whether no fraction was dropped. */
static int scale(const struct num *n, uint64_t mult, uint64_t *ret, bool *exact)
{
	/*
	 * frac * mult / frac_scale without a 128-bit product (32-bit targets have none): with
	 * mult = q * frac_scale + r, it is frac * q + frac * r / frac_scale, exactly. frac <
	 * frac_scale <= 10^9 < 2^30, so frac * r < 2^60 and frac * q <= mult <= 2^50.
	 */
	uint64_t q = mult / n->frac_scale, r = mult % n->frac_scale;
	uint64_t fr = n->frac * r;
	uint64_t whole, frac;

	if (__builtin_mul_overflow(n->whole, mult, &whole))
		return -ERANGE;
	frac = n->frac * q + fr / n->frac_scale;
	*exact = fr % n->frac_scale == 0;
	if (__builtin_add_overflow(whole, frac, ret))
		return -ERANGE;
	return 0;
}

/* The suffix at s of length len in table t, or NULL. */
static const struct suffix *find_suffix(const struct suffix *t, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].name) == len && strncmp(t[i].name, s, len) == 0)
			return &t[i];
	return NULL;
}

static size_t word_len(const char *s)
{
	size_t n = 0;

	while (s[n] && !is_blank(s[n]) && !is_digit(s[n]) && s[n] != '.')
		n++;
	return n;
}

static int parse_size(const char *s, uint64_t *ret)
{
	const struct suffix *sfx;
	struct num n;
	size_t len;
	bool exact;
	int r = scan_number(&s, &n);

	if (r < 0)
		return r;
	while (is_blank(*s))
		s++;
	len = word_len(s);
	if (s[len] != '\0')
		return -EINVAL;
	sfx = find_suffix(size_suffixes, ARRAY_SIZE(size_suffixes), s, len);
	if (len == 0 && !n.has_frac) {
		*ret = n.whole;
		return 0;
	}
	if (!sfx)
		return -EINVAL;
	/* Rounded down, as systemd does: "1.5K" is 1536, "0.1K" 102 bytes. */
	return scale(&n, sfx->mult, ret, &exact);
}

/* Parts "NUMBER UNIT" adding up, in microseconds; base is the key's unit in microseconds. */
static int parse_duration(const char *s, uint64_t base, uint64_t *ret)
{
	uint64_t total = 0;

	while (*s) {
		const struct suffix *sfx;
		uint64_t part;
		struct num n;
		size_t len;
		bool exact;
		int r = scan_number(&s, &n);

		if (r < 0)
			return r;
		while (is_blank(*s))
			s++;
		len = word_len(s);
		sfx = find_suffix(time_suffixes, ARRAY_SIZE(time_suffixes), s, len);
		if (!sfx)
			return -EINVAL; /* a bare number only as the whole value (see units_parse)
					 */
		s += len;
		while (is_blank(*s))
			s++;
		r = scale(&n, sfx->mult, &part, &exact);
		if (r < 0)
			return r;
		if (!exact)
			return -EDOM; /* below a microsecond */
		if (__builtin_add_overflow(total, part, &total))
			return -ERANGE;
	}
	if (total % base)
		return -EDOM;
	*ret = total / base;
	return 0;
}

int units_parse(const char *s, enum unit u, uint64_t *ret)
{
	static const uint64_t base_us[] = {
		[UNIT_SEC] = USEC_PER_SEC,
		[UNIT_MSEC] = 1000,
		[UNIT_USEC] = 1,
	};
	uint64_t v;
	int r;

	if (!s || !*s)
		return -EINVAL;
	/* A plain number keeps its meaning: the key's unit, exactly as before units existed. */
	r = parse_u64(s, &v);
	if (r != -EINVAL || u == UNIT_NONE) {
		if (r == 0)
			*ret = v;
		return r;
	}
	if (u == UNIT_BYTES)
		return parse_size(s, ret);
	if ((unsigned)u < ARRAY_SIZE(base_us) && base_us[u])
		return parse_duration(s, base_us[u], ret);
	return -EINVAL;
}

const char *units_hint(enum unit u)
{
	switch (u) {
	case UNIT_BYTES:
		return "a size (bytes, or a number with K, M, G or T, 1024-based: 64M, 1G)";
	case UNIT_SEC:
		return "a duration (seconds, or with ms, s, min, h or d: 90s, 5min, 1h 30min)";
	case UNIT_MSEC:
		return "a duration (milliseconds, or with us, ms or s: 250ms, 1s)";
	case UNIT_USEC:
		return "a duration (microseconds, or with us, ms or s: 150ms)";
	case UNIT_NONE:
		break;
	}
	return "a decimal number";
}

const char *units_name(enum unit u)
{
	switch (u) {
	case UNIT_BYTES:
		return "bytes";
	case UNIT_SEC:
		return "seconds";
	case UNIT_MSEC:
		return "milliseconds";
	case UNIT_USEC:
		return "microseconds";
	case UNIT_NONE:
		break;
	}
	return "";
}

/* The largest of these that divides a value exactly names it: 128M, not 134217728. */
static const struct suffix size_out[] = {
	{"P", UINT64_C(1) << 50}, {"T", UINT64_C(1) << 40}, {"G", UINT64_C(1) << 30},
	{"M", UINT64_C(1) << 20}, {"K", UINT64_C(1) << 10},
};
/* A duration in parts, largest first: 1d 12h, 1h 30min, 150ms. */
static const struct suffix time_out[] = {
	{"d", 86400 * USEC_PER_SEC},
	{"h", 3600 * USEC_PER_SEC},
	{"min", 60 * USEC_PER_SEC},
	{"s", USEC_PER_SEC},
	{"ms", 1000},
	{"us", 1},
};

static uint64_t unit_base(enum unit u)
{
	return u == UNIT_SEC ? USEC_PER_SEC : u == UNIT_MSEC ? 1000 : 1;
}

const char *units_format(char *buf, size_t size, uint64_t v, enum unit u)
{
	uint64_t us;
	size_t o = 0;

	(void)snprintf(buf, size, "%" PRIu64, v);
	if (!v || u == UNIT_NONE)
		return buf;
	if (u == UNIT_BYTES) {
		for (size_t i = 0; i < sizeof(size_out) / sizeof(size_out[0]); i++)
			if (v % size_out[i].mult == 0) {
				(void)snprintf(buf, size, "%" PRIu64 "%s", v / size_out[i].mult,
					       size_out[i].name);
				break;
			}
		return buf;
	}
	if (v > UINT64_MAX / unit_base(u))
		return buf;
	us = v * unit_base(u);
	for (size_t i = 0; i < sizeof(time_out) / sizeof(time_out[0]) && us && o < size; i++) {
		if (us < time_out[i].mult)
			continue;
		o += (size_t)snprintf(buf + o, size - o, "%s%" PRIu64 "%s", o ? " " : "",
				      us / time_out[i].mult, time_out[i].name);
		us %= time_out[i].mult;
	}
	return buf;
}
