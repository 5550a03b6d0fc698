// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Configuration keys. One row of key_defs per key says everything about it: its name and
 * default, its kind (how a value parses and prints), the fields it owns and its scope,
 * which is also its merge rule: a device key lives in struct dev_config, [global] sets it
 * and a [zramN] section that sets it replaces the whole value; a [global]-only key lives in
 * struct config. Files, lines and sections are config_file.c's; here one value is parsed at
 * a time, and a rejected value comes back as one reason (config_file.c adds FILE:LINE).
 */
#include "config_internal.h"
#include "units.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * The kernel rejects threshold >= huge_class_size, which is below PAGE_SIZE (6.5+; 6.2-6.4:
 * >= PAGE_SIZE). huge_class_size is not exported, so the bound is the page size of the
 * running kernel (4 KiB on x86-64, 16 KiB on a Raspberry Pi 5; every zram device has it):
 * THRESHOLD_MAX is the largest page's, max_below_page lowers it to this kernel's.
 */
#define THRESHOLD_MAX 65535u
#define BATCH_MAX (UINT64_C(1) << 32)
#define PASS_PAGES_MAX (UINT64_C(1) << 40)
#define AGE_LIMIT_SEC UINT64_C(31536000) /* one year */
#define WB_BYTES_MAX (UINT64_C(1) << 50)
#define BACKING_FILE_MIN (UINT64_C(16) << 20) /* an absolute backing-file-size */
/* zstd's lowest level is -131072 (ZSTD_minCLevel()); lz4's level is its acceleration. */
#define LEVEL_LIMIT 131072
#define SEPS " \t"

_Static_assert(CFG_ALGO_NAME_MAX == ZRAM_ALGO_MAX, "algorithm names are checked by zram.c");

static const char *const compact_names[] = {
	[COMPACT_AUTO] = "auto",
	[COMPACT_ALWAYS] = "always",
	[COMPACT_NEVER] = "never",
	NULL,
};

const char *compact_mode_name(enum compact_mode m)
{
	if ((unsigned)m >= ARRAY_SIZE(compact_names) - 1)
		return "unknown";
	return compact_names[m];
}

enum key_kind {
	KIND_NUMBER,  /* unsigned number of unit in [min, max], a 32- or 64-bit field */
	KIND_BOOL,    /* yes/true/on/1 or no/false/off/0, a bool field */
	KIND_ENUM,    /* one of names[], stored as its index in an enum field */
	KIND_PATH,    /* an absolute path or "", a char array */
	KIND_ALGOS,   /* recompress-algorithms */
	KIND_PARAMS,  /* algorithm-params */
	KIND_PASSES,  /* passes */
	KIND_DEVICES, /* devices */
	KIND_WB_TYPES, /* writeback-types */
	KIND_BLOCKDEV, /* backing-device: a /dev path or "" */
	KIND_FILE,     /* backing-file: an absolute path without . or .. components, or "" */
	KIND_SHARE,    /* a size, or N% of a filesystem (struct cfg_share) */
	KIND_ENC,      /* auto, or yes/no as KIND_BOOL (enum backing_enc) */
	KIND_DICT,     /* zstd-dictionary (config_dict.c) */
};

enum key_scope {
	SCOPE_DEVICE, /* struct dev_config: [global], replaced per device by [zramN] */
	SCOPE_GLOBAL, /* struct config: [global] only */
};

struct key_def {
	const char *name;
	const char *def; /* the default, as a file would give it */
	enum key_kind kind;
	enum key_scope scope;
	uint64_t bit;	  /* SCOPE_DEVICE: dev_config.set bit; its number indexes origin[] */
	unsigned gkey;	  /* SCOPE_GLOBAL: enum cfg_global_key (config.global_origin[]) */
	/* The fields the key owns, adjacent, in dev_config or config (by scope). */
	size_t offset, size;
	uint64_t min, max;	  /* KIND_NUMBER */
	enum unit unit;		  /* KIND_NUMBER: what a plain number counts; suffixes allowed */
	const char *note;	  /* KIND_NUMBER: said after the range when a value is outside */
	const char *const *names; /* KIND_ENUM: NULL-terminated, in enum order */
	uint32_t pct_min, pct_max; /* KIND_SHARE: bounds of N% (min, max: of the bytes) */
	bool section_only;	  /* SCOPE_DEVICE, but not in [global]: one value per device */
	bool max_below_page;	  /* KIND_NUMBER: max is the running kernel's page size - 1 */
	unsigned readers;	  /* enum cfg_reader: what uses the key when it runs */
};

static int fail(char *why, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Record the reason a value is rejected; returns r. */
static int fail(char *why, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* A reason cut short by a very long value is still useful; truncation is fine. */
	(void)vsnprintf(why, CFG_ERR_MAX, fmt, ap);
	va_end(ap);
	return r;
}

static void *field_of(const struct key_def *k, void *base)
{
	return (char *)base + k->offset;
}

static const void *cfield_of(const struct key_def *k, const void *base)
{
	return (const char *)base + k->offset;
}

static void store_uint(void *field, size_t size, uint64_t v)
{
	uint32_t v32 = (uint32_t)v;

	if (size == sizeof(v32))
		memcpy(field, &v32, sizeof(v32));
	else
		memcpy(field, &v, sizeof(v));
}

static uint64_t load_uint(const void *field, size_t size)
{
	uint32_t v32;
	uint64_t v;

	if (size == sizeof(v32)) {
		memcpy(&v32, field, sizeof(v32));
		return v32;
	}
	memcpy(&v, field, sizeof(v));
	return v;
}

/* ---- parsers: value text (modified in place) into the key's fields ---- */

static int parse_number(const struct key_def *k, char *v, void *base, char *why)
{
	uint64_t n, max = k->max;
	int r;

	if (k->max_below_page && zram_page_size_valid(zram_host_page_size()))
		max = zram_host_page_size() - 1;
	if (!*v)
		return fail(why, -EINVAL, "empty value");
	r = units_parse(v, k->unit, &n);
	if (r == -EINVAL)
		return fail(why, r, "'%s' is not %s", v, units_hint(k->unit));
	if (r == -EDOM)
		return fail(why, -EINVAL, "'%s' is not a whole number of %s", v, units_name(k->unit));
	if (r < 0 || n < k->min || n > max) {
		char lo[UNITS_FMT_LEN], hi[UNITS_FMT_LEN]; /* in the value's units */
		enum unit u = v[strspn(v, "0123456789")] ? k->unit : UNIT_NONE;
		return fail(why, -ERANGE, "'%s' is out of range %s-%s%s", v,
			    units_format(lo, sizeof(lo), k->min, u),
			    units_format(hi, sizeof(hi), max, u), k->note ? k->note : "");
	}
	store_uint(field_of(k, base), k->size, n);
	return 0;
}

static int parse_bool(const struct key_def *k, char *v, void *base, char *why)
{
	bool *field = field_of(k, base);

	/* The words systemd takes for a boolean. */
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1")) {
		*field = true;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0")) {
		*field = false;
		return 0;
	}
	return fail(why, -EINVAL, "'%s' is not one of yes, no (or true, false, on, off, 1, 0)",
		    v);
}

/* names joined by ", ", the last one by last: "a, b or c". */
static const char *join_names(const char *const *names, const char *last, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; names[i] && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s",
					i == 0	       ? ""
					: names[i + 1] ? ", "
						       : last,
					names[i]);
	return buf;
}

static int parse_enum(const struct key_def *k, char *v, void *base, char *why)
{
	char list[128];

	for (unsigned i = 0; k->names[i]; i++) {
		if (strcmp(v, k->names[i]) == 0) {
			store_uint(field_of(k, base), k->size, i);
			return 0;
		}
	}
	if (!*v)
		return fail(why, -EINVAL, "empty value (%s)",
			    join_names(k->names, " or ", list, sizeof(list)));
	return fail(why, -EINVAL, "'%s' is not one of %s", v,
		    join_names(k->names, ", ", list, sizeof(list)));
}

/* An absolute path chosen by the admin (metrics-file: written atomically by rename). */
static int parse_path(const struct key_def *k, char *v, void *base, char *why)
{
	size_t len = strlen(v);

	if (*v && v[0] != '/')
		return fail(why, -EINVAL, "'%s' is not an absolute path", v);
	if (len >= k->size)
		return fail(why, -ENAMETOOLONG, "path longer than %zu bytes", k->size - 1);
	memcpy(field_of(k, base), v, len + 1);
	return 0;
}

static int parse_algos(const struct key_def *k, char *v, void *base, char *why)
{
	struct dev_config *d = base;
	char algos[CFG_MAX_ALGOS][CFG_ALGO_NAME_MAX];
	unsigned n = 0;
	bool auto_seen = false;
	char *save = NULL, *tok;

	memset(algos, 0, sizeof(algos));
	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		if (strcmp(tok, "auto") == 0) {
			auto_seen = true;
			continue;
		}
		if (!zram_algo_name_valid(tok))
			return fail(why, -EINVAL,
				    "'%s' is not a valid algorithm name ([a-z0-9-], at most %d "
				    "characters)",
				    tok, CFG_ALGO_NAME_MAX - 1);
		if (n == CFG_MAX_ALGOS)
			return fail(why, -EINVAL,
				    "more than %d algorithms (the kernel has priorities 1-%d)",
				    CFG_MAX_ALGOS, CFG_MAX_ALGOS);
		strcpy(algos[n++], tok);
	}
	if (auto_seen && n > 0)
		return fail(why, -EINVAL, "'auto' cannot be combined with algorithm names");
	if (auto_seen) {
		/* The fallback when no advice applies; see advice_apply(). */
		n = 1;
		strcpy(algos[0], CFG_AUTO_FALLBACK);
	}
	if (n == 0)
		return fail(why, -EINVAL, "empty value (at least one algorithm is needed)");
	d->n_algos = n;
	memcpy(d->algos, algos, sizeof(algos));
	d->algos_auto = auto_seen;
	return 0;
}

static int parse_level(const char *s, int *ret)
{
	bool neg = false;
	uint64_t v;
	int r;

	if (*s == '-') {
		neg = true;
		s++;
	}
	r = parse_u64(s, &v);
	if (r < 0)
		return r;
	if (v > LEVEL_LIMIT)
		return -ERANGE;
	*ret = neg ? -(int)v : (int)v;
	return 0;
}

/* One algorithm-params token, "NAME:level=N" or "P:level=N", into p. */
static int parse_param(char *tok, struct cfg_param *p, char *why)
{
	char *colon = strchr(tok, ':');
	char *eq;
	int r;

	if (!colon || colon == tok || !(eq = strchr(colon + 1, '=')))
		return fail(why, -EINVAL, "'%s' is not NAME:level=N or P:level=N", tok);
	*colon = '\0';
	*eq = '\0';
	if (strcmp(colon + 1, "level") != 0)
		return fail(why, -EINVAL,
			    "'%s:%s=%s': unknown parameter '%s' (only level= is supported)", tok,
			    colon + 1, eq + 1, colon + 1);
	/* A single digit is a priority; anything else a name (e.g. the "842" backend). */
	if (tok[0] >= '0' && tok[0] <= '9' && tok[1] == '\0') {
		p->prio = (unsigned)(tok[0] - '0');
		if (p->prio < 1 || p->prio > CFG_MAX_ALGOS)
			return fail(why, -EINVAL, "'%s:level=%s': priority %u is out of range 1-%d",
				    tok, eq + 1, p->prio, CFG_MAX_ALGOS);
	} else if (zram_algo_name_valid(tok)) {
		strcpy(p->algo, tok);
	} else {
		return fail(why, -EINVAL, "'%s:level=%s': '%s' is not a valid algorithm name", tok,
			    eq + 1, tok);
	}
	r = parse_level(eq + 1, &p->level);
	if (r == -ERANGE)
		return fail(why, -EINVAL, "'%s:level=%s': level is out of range %d to %d", tok,
			    eq + 1, -LEVEL_LIMIT, LEVEL_LIMIT);
	if (r < 0)
		return fail(why, -EINVAL, "'%s:level=%s': level is not an integer", tok, eq + 1);
	return 0;
}

static int parse_params(const struct key_def *k, char *v, void *base, char *why)
{
	struct dev_config *d = base;
	struct cfg_param params[CFG_MAX_PARAMS];
	unsigned n = 0;
	char *save = NULL, *tok;
	int r;

	memset(params, 0, sizeof(params));
	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		if (n == CFG_MAX_PARAMS)
			return fail(why, -EINVAL, "more than %d tokens", CFG_MAX_PARAMS);
		r = parse_param(tok, &params[n++], why);
		if (r < 0)
			return r;
	}
	/* An empty value clears the list (a device section can drop the global levels). */
	d->n_params = n;
	memcpy(d->params, params, sizeof(params));
	return 0;
}

static const char *pass_name(unsigned t)
{
	return pass_type_name((enum pass_type)t);
}

static const char *wb_name(unsigned t)
{
	return wb_type_name((enum wb_type)t);
}

/*
 * A list of distinct names out of name(0 .. nr - 1) (nr <= 32): their indexes in out, in
 * order, the count in *ret_n. kind and choices word the errors. The kernel takes an
 * unknown type= as "all slots": a typo must not get through.
 */
static int parse_name_list(char *v, const char *(*name)(unsigned), unsigned nr,
			   const char *kind, const char *choices, unsigned *out, unsigned *ret_n,
			   char *why)
{
	unsigned n = 0, seen = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		unsigned t;

		for (t = 0; t < nr; t++)
			if (strcmp(tok, name(t)) == 0)
				break;
		if (t == nr)
			return fail(why, -EINVAL, "'%s' is not a %s (%s)", tok, kind, choices);
		if (seen & (1u << t))
			return fail(why, -EINVAL, "'%s' is listed twice", tok);
		seen |= 1u << t;
		out[n++] = t; /* distinct, so n <= nr */
	}
	if (n == 0)
		return fail(why, -EINVAL, "empty value (at least one of %s)", choices);
	*ret_n = n;
	return 0;
}

static int parse_passes(const struct key_def *k, char *v, void *base, char *why)
{
	struct dev_config *d = base;
	unsigned t[PASS_NR_TYPES], n;
	int r = parse_name_list(v, pass_name, PASS_NR_TYPES, "pass type", "huge_idle, idle, huge",
				t, &n, why);

	if (r < 0)
		return r;
	_Static_assert(PASS_NR_TYPES <= CFG_MAX_PASSES, "every pass type fits passes[]");
	d->n_passes = n;
	for (unsigned i = 0; i < n; i++)
		d->passes[i] = (enum pass_type)t[i];
	return 0;
}

static int parse_devices(const struct key_def *k, char *v, void *base, char *why)
{
	struct config *c = base;
	/* any number (no device cap): a name takes at least 5 characters and a separator */
	unsigned *ids = calloc(strlen(v) / 5 + 1, sizeof(*ids)), n = 0;
	bool all = false;
	char *save = NULL, *tok;
	int r = ids ? 0 : fail(why, -ENOMEM, "out of memory");

	for (tok = strtok_r(v, SEPS, &save); tok && r == 0; tok = strtok_r(NULL, SEPS, &save)) {
		unsigned id;

		if (strcmp(tok, "all") == 0) {
			all = true;
			continue;
		}
		if (zram_name_to_id(tok, &id) < 0)
			r = fail(why, -EINVAL, "'%s' is not a zram device name (zramN)", tok);
		for (unsigned i = 0; i < n && r == 0; i++)
			if (ids[i] == id)
				r = fail(why, -EINVAL, "'%s' is listed twice", tok);
		if (r == 0)
			ids[n++] = id;
	}
	if (r == 0 && all && n > 0)
		r = fail(why, -EINVAL, "'all' cannot be combined with device names");
	if (r == 0 && !all && n == 0)
		r = fail(why, -EINVAL, "empty value ('all' or a list of zramN names)");
	/* nothing kept for 'all': config_init() (the default) then owns nothing */
	if (r < 0 || n == 0) {
		free(ids);
		ids = NULL;
	}
	if (r < 0)
		return r;
	free(c->devices);
	c->devices_all = all;
	c->n_devices = n;
	c->devices = ids;
	return 0;
}

static int parse_wb_types(const struct key_def *k, char *v, void *base, char *why)
{
	struct dev_config *d = base;
	unsigned t[WB_NR_TYPES], n;
	int r = parse_name_list(v, wb_name, WB_NR_TYPES, "writeback type",
				"incompressible, huge, huge_idle, idle", t, &n, why);

	if (r < 0)
		return r;
	d->n_wb_types = n;
	for (unsigned i = 0; i < n; i++)
		d->wb_types[i] = (enum wb_type)t[i];
	return 0;
}

/* backing-device: written to the kernel's backing_dev, which opens it (zram.c checks). */
static int parse_blockdev(const struct key_def *k, char *v, void *base, char *why)
{
	size_t len = strlen(v);

	if (len >= k->size)
		return fail(why, -ENAMETOOLONG, "path longer than %zu bytes", k->size - 1);
	if (*v && !zram_blockdev_path_valid(v))
		return fail(why, -EINVAL,
			    "'%s' is not a block device path: /dev/NAME, of letters, digits and "
			    "/_-.:+, without '.' or '..' components",
			    v);
	memset(field_of(k, base), 0, k->size);
	memcpy(field_of(k, base), v, len + 1);
	return 0;
}

/* The backing file's kinds (config_backing.c), in the table's signature. */
static int parse_file(const struct key_def *k, char *v, void *base, char *why)
{
	return cfg_parse_file(v, field_of(k, base), k->size, why);
}

static int parse_share(const struct key_def *k, char *v, void *base, char *why)
{
	const struct cfg_share_bounds b = {k->min, k->max, k->note, k->pct_min, k->pct_max};

	return cfg_parse_share(v, field_of(k, base), &b, why);
}

static int parse_enc(const struct key_def *k, char *v, void *base, char *why)
{
	return cfg_parse_enc(v, field_of(k, base), why);
}

/* ---- printers: the value after "NAME =", each token with its leading space ---- */

static void print_number(const struct key_def *k, const void *base, FILE *f)
{
	fprintf(f, " %" PRIu64, load_uint(cfield_of(k, base), k->size));
}

static void print_bool(const struct key_def *k, const void *base, FILE *f)
{
	fputs(*(const bool *)cfield_of(k, base) ? " yes" : " no", f);
}

static void print_enum(const struct key_def *k, const void *base, FILE *f)
{
	uint64_t v = load_uint(cfield_of(k, base), k->size);
	const char *name = "unknown";

	for (uint64_t i = 0; k->names[i]; i++)
		if (i == v)
			name = k->names[i];
	fprintf(f, " %s", name);
}

static void print_path(const struct key_def *k, const void *base, FILE *f)
{
	const char *path = cfield_of(k, base);

	if (*path)
		fprintf(f, " %s", path);
}

static void print_algos(const struct key_def *k, const void *base, FILE *f)
{
	const struct dev_config *d = base;

	if (d->algos_auto) {
		fputs(" auto", f);
		return;
	}
	for (unsigned i = 0; i < d->n_algos; i++)
		fprintf(f, " %s", d->algos[i]);
}

/* Resolved levels by priority: names would be ambiguous for "zstd zstd". */
static void print_params(const struct key_def *k, const void *base, FILE *f)
{
	const struct dev_config *d = base;

	for (unsigned i = 0; i < d->n_algos; i++)
		if (d->has_level[i])
			fprintf(f, " %u:level=%d", i + 1, d->level[i]);
}

static void print_passes(const struct key_def *k, const void *base, FILE *f)
{
	const struct dev_config *d = base;

	for (unsigned i = 0; i < d->n_passes; i++)
		fprintf(f, " %s", pass_type_name(d->passes[i]));
}

static void print_devices(const struct key_def *k, const void *base, FILE *f)
{
	const struct config *c = base;

	if (c->devices_all)
		fputs(" all", f);
	for (unsigned i = 0; !c->devices_all && i < c->n_devices; i++)
		fprintf(f, " zram%u", c->devices[i]);
}

static void print_wb_types(const struct key_def *k, const void *base, FILE *f)
{
	const struct dev_config *d = base;

	for (unsigned i = 0; i < d->n_wb_types; i++)
		fprintf(f, " %s", wb_type_name(d->wb_types[i]));
}

static void print_share(const struct key_def *k, const void *base, FILE *f)
{
	cfg_print_share(cfield_of(k, base), f);
}

static void print_enc(const struct key_def *k, const void *base, FILE *f)
{
	cfg_print_enc(cfield_of(k, base), f);
}

static const struct {
	int (*parse)(const struct key_def *k, char *v, void *base, char *why);
	void (*print)(const struct key_def *k, const void *base, FILE *f);
} kinds[] = {
	[KIND_NUMBER] = {parse_number, print_number},
	[KIND_BOOL] = {parse_bool, print_bool},
	[KIND_ENUM] = {parse_enum, print_enum},
	[KIND_PATH] = {parse_path, print_path},
	[KIND_ALGOS] = {parse_algos, print_algos},
	[KIND_PARAMS] = {parse_params, print_params},
	[KIND_PASSES] = {parse_passes, print_passes},
	[KIND_DEVICES] = {parse_devices, print_devices},
	[KIND_WB_TYPES] = {parse_wb_types, print_wb_types},
	[KIND_BLOCKDEV] = {parse_blockdev, print_path},
	[KIND_FILE] = {parse_file, print_path},
	[KIND_SHARE] = {parse_share, print_share},
	[KIND_ENC] = {parse_enc, print_enc},
	[KIND_DICT] = {cfg_parse_dict, cfg_print_dict},
};

/* ---- the table ---- */

/* The fields first..last of struct type, adjacent: what a key owns. */
#define SPAN(type, first, last)                                                                    \
	.offset = offsetof(type, first),                                                           \
	.size = offsetof(type, last) + sizeof(((type *)0)->last) - offsetof(type, first)
#define DEV(b, first, last) .scope = SCOPE_DEVICE, .bit = (b), SPAN(struct dev_config, first, last)
#define GLOBAL(g, first, last)                                                                     \
	.scope = SCOPE_GLOBAL, .gkey = (g), SPAN(struct config, first, last)
#define KEY(n, d, k, ...)                                                                          \
	{                                                                                          \
		.name = (n), .def = (d), .kind = (k), __VA_ARGS__                                  \
	}
#define NUM(n, d, b, f, lo, hi, nt, ...)                                                           \
	KEY(n, d, KIND_NUMBER, DEV(b, f, f), .min = (lo), .max = (hi), .note = (nt), __VA_ARGS__)
/* The unit of a NUM key: a plain number counts it; a suffix converts ("1G", "5min"). */
#define BYTES .unit = UNIT_BYTES
#define SECS .unit = UNIT_SEC
#define MSECS .unit = UNIT_MSEC
#define USECS .unit = UNIT_USEC
#define PRIO_NOTE " (0 = every secondary algorithm in order)"
/* Who reads a key (enum cfg_reader); the docs say the same (tests/unit/test_doc_keys.c). */
#define DAEMON .readers = CFG_READ_DAEMON
#define BOTH .readers = CFG_READ_DAEMON | CFG_READ_ONCE
#define SETUP_ONCE .readers = CFG_READ_ONCE | CFG_READ_SETUP
#define ALL3 .readers = CFG_READ_DAEMON | CFG_READ_ONCE | CFG_READ_SETUP

/*
 * In the order --print-config and the shipped example list them; etc/zram-recompd.conf and
 * zram-recompd.conf(5) document each key. A new device key also needs its field in struct
 * dev_config and the next enum cfg_key bit.
 */
static const struct key_def key_defs[] = {
	KEY("devices", "all", KIND_DEVICES, GLOBAL(CFG_G_DEVICES, devices_all, devices), BOTH),
	KEY("metrics-file", "", KIND_PATH, GLOBAL(CFG_G_METRICS_FILE, metrics_file, metrics_file),
	    BOTH),
	KEY("recompress-algorithms", "zstd", KIND_ALGOS, DEV(CFG_K_ALGOS, n_algos, algos_auto),
	    BOTH),
	KEY("algorithm-params", "", KIND_PARAMS, DEV(CFG_K_PARAMS, n_params, params), BOTH),
	KEY("passes", "huge_idle idle huge", KIND_PASSES, DEV(CFG_K_PASSES, n_passes, passes),
	    BOTH),
	NUM("threshold-bytes", "0", CFG_K_THRESHOLD, threshold_bytes, 0, THRESHOLD_MAX,
	    " (the kernel requires threshold < huge_class_size, which is below the page size)",
	    BYTES, BOTH, .max_below_page = true),
	NUM("max-pages-per-batch", "2048", CFG_K_BATCH, max_pages_per_batch, 1, BATCH_MAX, NULL,
	    BOTH),
	NUM("max-write-ms", "100", CFG_K_MAX_WRITE_MS, max_write_ms, 0, 60000,
	    " (0 = fixed batches of max-pages-per-batch)", MSECS, BOTH),
	NUM("max-pages-per-pass", "131072", CFG_K_PASS_PAGES, max_pages_per_pass, 0, PASS_PAGES_MAX,
	    NULL, BOTH),
	NUM("idle-age-min-sec", "1800", CFG_K_AGE_MIN, idle_age_min_sec, 0, AGE_LIMIT_SEC, NULL, SECS,
	    BOTH),
	NUM("idle-age-max-sec", "14400", CFG_K_AGE_MAX, idle_age_max_sec, 0, AGE_LIMIT_SEC, NULL, SECS,
	    BOTH),
	NUM("burst-idle-age-sec", "3", CFG_K_BURST_AGE, burst_idle_age_sec, 0, AGE_LIMIT_SEC,
	    " (0 = off)", SECS, DAEMON),
	KEY("compact", "auto", KIND_ENUM, DEV(CFG_K_COMPACT, compact, compact),
	    .names = compact_names, BOTH),
	NUM("interval-sec", "300", CFG_K_INTERVAL, interval_sec, 1, 86400, NULL, SECS, DAEMON),
	NUM("backoff-max-sec", "3600", CFG_K_BACKOFF_MAX, backoff_max_sec, 0, 604800, NULL, SECS,
	    DAEMON),
	NUM("priority-huge-idle", "0", CFG_K_PRIO_HUGE_IDLE, priority[PASS_HUGE_IDLE], 0, 3,
	    PRIO_NOTE, BOTH),
	NUM("priority-idle", "0", CFG_K_PRIO_IDLE, priority[PASS_IDLE], 0, 3, PRIO_NOTE, BOTH),
	NUM("priority-huge", "0", CFG_K_PRIO_HUGE, priority[PASS_HUGE], 0, 3, PRIO_NOTE, BOTH),
	NUM("cold-idle-age-sec", "0", CFG_K_COLD_AGE, cold_idle_age_sec, 0, AGE_LIMIT_SEC, NULL, SECS,
	    DAEMON),
	NUM("cold-priority", "2", CFG_K_COLD_PRIO, cold_priority, 1, 3, NULL, DAEMON),
	NUM("pages-per-hour", "262144", CFG_K_PAGES_HOUR, pages_per_hour, 0, PASS_PAGES_MAX, NULL,
	    DAEMON),
	NUM("cpu-share-max-percent", "5", CFG_K_CPU_SHARE, cpu_share_max_percent, 0, 100, NULL,
	    DAEMON),
	NUM("psi-cpu-max-percent", "40", CFG_K_PSI_CPU, psi_cpu_max_percent, 0, 100, NULL, DAEMON),
	NUM("memory-stall-us", "150000", CFG_K_MEM_STALL, memory_stall_us, 0, 1000000,
	    " (microseconds of memory stall per second; 0 = off)", USECS, DAEMON),
	KEY("defer-on-battery", "yes", KIND_BOOL,
	    DEV(CFG_K_BATTERY, defer_on_battery, defer_on_battery), DAEMON),
	NUM("battery-psi-memory-percent", "10", CFG_K_BATTERY_PSI, battery_psi_memory_percent, 0,
	    100, NULL, DAEMON),
	NUM("compact-fragmentation-percent", "10", CFG_K_COMPACT_FRAG,
	    compact_fragmentation_percent, 1, 100, NULL, BOTH),
	NUM("compact-min-saved-bytes", "0", CFG_K_COMPACT_SAVED, compact_min_saved_bytes, 0,
	    UINT64_C(1) << 50, NULL, BYTES, BOTH),
	NUM("advise-interval-sec", "86400", CFG_K_ADVISE_INTERVAL, advise_interval_sec, 0,
	    AGE_LIMIT_SEC, " (0 = never)", SECS, BOTH),
	NUM("advise-samples", "1024", CFG_K_ADVISE_SAMPLES, advise_samples, 1, 1048576, NULL, BOTH),
	NUM("cpu-share-pressure-percent", "100", CFG_K_CPU_SHARE_PRESSURE,
	    cpu_share_pressure_percent, 0, 100, " (the share under full memory pressure)", DAEMON),
	KEY("writeback", "no", KIND_BOOL, DEV(CFG_K_WB, writeback, writeback), BOTH),
	KEY("writeback-types", "incompressible huge_idle idle", KIND_WB_TYPES,
	    DEV(CFG_K_WB_TYPES, n_wb_types, wb_types), BOTH),
	NUM("writeback-idle-age-sec", "86400", CFG_K_WB_AGE, wb_idle_age_sec, 0, AGE_LIMIT_SEC,
	    " (0 = every page counts as idle)", SECS, BOTH),
	NUM("writeback-bytes-per-day", "1073741824", CFG_K_WB_DAY, wb_bytes_per_day, 4096,
	    WB_BYTES_MAX, " (at least the smallest page, 4 KiB)", BYTES, BOTH),
	NUM("writeback-bytes-per-pass", "134217728", CFG_K_WB_PASS, wb_bytes_per_pass, 4096,
	    WB_BYTES_MAX, " (at least the smallest page, 4 KiB)", BYTES, BOTH),
	NUM("writeback-batch-size", "0", CFG_K_WB_BATCH, wb_batch_size, 0, CFG_WB_BATCH_MAX,
	    " (0 = the kernel's default)", BOTH),
	KEY("backing-device", "", KIND_BLOCKDEV,
	    DEV(CFG_K_BACKING_DEV, backing_device, backing_device), ALL3),
	KEY("compressed-writeback", "no", KIND_BOOL,
	    DEV(CFG_K_COMPRESSED_WB, compressed_writeback, compressed_writeback), ALL3),
	/* backing.h: ChromeOS's rule (zram-recompd.conf(5) says why these defaults) */
	KEY("backing-file", "", KIND_FILE, DEV(CFG_K_BACKING_FILE, backing_file, backing_file),
	    .section_only = true, ALL3),
	KEY("backing-file-size", "15%", KIND_SHARE,
	    DEV(CFG_K_BACKING_FILE_SIZE, backing_file_size, backing_file_size),
	    .min = BACKING_FILE_MIN, .max = WB_BYTES_MAX, .unit = UNIT_BYTES, .pct_min = 1,
	    .pct_max = 100, .note = " (at least 16 MiB)", SETUP_ONCE),
	KEY("backing-file-min-free", "15%", KIND_SHARE,
	    DEV(CFG_K_BACKING_MIN_FREE, backing_min_free, backing_min_free), .min = 0,
	    .max = WB_BYTES_MAX, .unit = UNIT_BYTES, .pct_min = 0, .pct_max = 100, SETUP_ONCE),
	KEY("backing-encryption", "auto", KIND_ENC,
	    DEV(CFG_K_BACKING_ENC, backing_encryption, backing_encryption), ALL3),
	KEY("zstd-dictionary", "no", KIND_DICT, DEV(CFG_K_DICT, dict_use, dict_prios),
	    .readers = CFG_READ_ONCE),
	KEY("sandbox", "yes", KIND_BOOL, GLOBAL(CFG_G_SANDBOX, sandbox, sandbox), BOTH),
};

_Static_assert(ARRAY_SIZE(key_defs) == CFG_N_GLOBAL_KEYS + CFG_N_KEYS,
	       "one key_defs row per enum cfg_key bit, plus the [global]-only keys");

static unsigned key_index(uint64_t bit)
{
	return (unsigned)__builtin_ctzll((unsigned long long)bit);
}

static const struct key_def *find_key(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++)
		if (strcmp(name, key_defs[i].name) == 0)
			return &key_defs[i];
	return NULL;
}

const char *cfg_key_name(size_t i)
{
	return i < ARRAY_SIZE(key_defs) ? key_defs[i].name : NULL;
}

bool config_key_info(size_t i, const char **name, const char **def, unsigned *readers)
{
	if (i >= ARRAY_SIZE(key_defs))
		return false;
	*name = key_defs[i].name;
	*def = key_defs[i].def;
	*readers = key_defs[i].readers;
	return true;
}

/* Where key k of configuration c lives: c itself, or the dev_config d of c. */
static void *key_base(const struct key_def *k, struct config *c, struct dev_config *d)
{
	return k->scope == SCOPE_GLOBAL ? (void *)c : (void *)d;
}

void config_init(struct config *c)
{
	char v[64], why[CFG_ERR_MAX];

	memset(c, 0, sizeof(*c));
	/* Defaults take the path of a value in a file; the unit tests check each one. */
	for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++) {
		const struct key_def *k = &key_defs[i];

		(void)str_printf(v, sizeof(v), "%s", k->def);
		(void)kinds[k->kind].parse(k, v, key_base(k, c, &c->global), why);
	}
}

int cfg_key_set(struct config *c, struct dev_config *d, const char *name, char *v,
		struct cfg_origin at, char why[CFG_ERR_MAX])
{
	const struct key_def *k = find_key(name);
	bool with_unit = v[strspn(v, "0123456789")] != '\0';
	int r;

	if (!k)
		return -ENOENT;
	if (k->scope == SCOPE_GLOBAL && d != &c->global)
		return -EPERM;
	/* empty is its default there: --print-config's [global] loads again */
	if (k->section_only && d == &c->global && *v)
		return -EXDEV;
	r = kinds[k->kind].parse(k, v, key_base(k, c, d), why);
	if (r < 0)
		return r;
	if (k->scope == SCOPE_GLOBAL) {
		c->global_origin[k->gkey] = at;
		return 0;
	}
	d->set |= k->bit;
	d->origin[key_index(k->bit)] = at;
	d->with_unit = with_unit ? d->with_unit | k->bit : d->with_unit & ~k->bit;
	return 0;
}

/* ---- merging and printing ---- */

const struct dev_section *cfg_find_section(const struct config *c, unsigned id)
{
	for (unsigned i = 0; i < c->n_sections; i++)
		if (c->sections[i].id == id)
			return &c->sections[i];
	return NULL;
}

void cfg_resolve_params(struct dev_config *d)
{
	memset(d->has_level, 0, sizeof(d->has_level));
	memset(d->level, 0, sizeof(d->level));
	for (unsigned t = 0; t < d->n_params; t++) {
		const struct cfg_param *p = &d->params[t];

		for (unsigned i = 0; i < d->n_algos; i++) {
			if (p->prio ? p->prio == i + 1 : strcmp(p->algo, d->algos[i]) == 0) {
				d->has_level[i] = true;
				d->level[i] = p->level;
			}
		}
	}
}

void config_effective(const struct config *c, unsigned id, struct dev_config *ret)
{
	const struct dev_section *s = cfg_find_section(c, id);

	*ret = c->global;
	ret->set = 0;
	if (s) {
		/* The merge rule of a device key: the section's value replaces [global]'s whole. */
		for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++) {
			const struct key_def *k = &key_defs[i];

			if (k->scope != SCOPE_DEVICE || !(s->cfg.set & k->bit))
				continue;
			memcpy(field_of(k, ret), cfield_of(k, &s->cfg), k->size);
			ret->origin[key_index(k->bit)] = s->cfg.origin[key_index(k->bit)];
		}
		ret->set = s->cfg.set;
		ret->with_unit = (c->global.with_unit & ~s->cfg.set) | (s->cfg.with_unit & s->cfg.set);
	}
	cfg_resolve_params(ret);
}

bool config_device_selected(const struct config *c, unsigned id)
{
	if (c->devices_all)
		return true;
	for (unsigned i = 0; i < c->n_devices; i++)
		if (c->devices[i] == id)
			return true;
	return false;
}

static void print_key(const struct key_def *k, const void *base, FILE *f)
{
	fprintf(f, "%s =", k->name);
	kinds[k->kind].print(k, base, f);
	fputc('\n', f);
}

void config_print(const struct config *c, FILE *f)
{
	const struct dev_section **sorted = config_sorted_sections(c);
	struct dev_config eff = c->global;
	unsigned n = sorted ? c->n_sections : 0;

	cfg_resolve_params(&eff);
	fputs("[global]\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++) {
		const struct key_def *k = &key_defs[i];

		print_key(k, k->scope == SCOPE_GLOBAL ? (const void *)c : (const void *)&eff, f);
	}

	for (unsigned i = 0; i < n; i++) {
		uint64_t keys = sorted[i]->cfg.set;

		if (!keys)
			continue;
		/*
		 * Levels print by priority, so a section with its own algorithm list gets its
		 * own algorithm-params line: the inherited one would map to other priorities.
		 */
		if (keys & CFG_K_ALGOS)
			keys |= CFG_K_PARAMS;
		config_effective(c, sorted[i]->id, &eff);
		fprintf(f, "\n[zram%u]\n", sorted[i]->id);
		for (size_t k = 0; k < ARRAY_SIZE(key_defs); k++)
			if (key_defs[k].scope == SCOPE_DEVICE && (keys & key_defs[k].bit))
				print_key(&key_defs[k], &eff, f);
	}
	free(sorted);
}
