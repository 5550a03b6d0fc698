// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Configuration files: /etc/zram-recompd.conf and its drop-ins, parsed with inih.
 *
 * inih does the INI syntax; this file supplies the line reader (to count lines, strip
 * leading whitespace and catch over-long lines) and the key handler (validation). Every
 * error is recorded as one "FILE:LINE: message" string; nothing here logs.
 */
#include "config.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The kernel rejects threshold >= huge_class_size, which is below PAGE_SIZE (6.5+; 6.2-6.4:
 * >= PAGE_SIZE). huge_class_size is not exported, so we can only bound it by the 4 KiB page.
 */
#define THRESHOLD_MAX 4095u
#define BATCH_MAX (UINT64_C(1) << 32)
#define PASS_PAGES_MAX (UINT64_C(1) << 40)
#define AGE_LIMIT_SEC UINT64_C(31536000) /* one year */
/* zstd's lowest level is -131072 (ZSTD_minCLevel()); lz4's level is its acceleration. */
#define LEVEL_LIMIT 131072
#define VALUE_MAX 1024

static const char *const compact_names[] = {
	[COMPACT_AUTO] = "auto",
	[COMPACT_ALWAYS] = "always",
	[COMPACT_NEVER] = "never",
};

const char *compact_mode_name(enum compact_mode m)
{
	if ((unsigned)m >= ARRAY_SIZE(compact_names))
		return "unknown";
	return compact_names[m];
}

static void dev_config_init(struct dev_config *d)
{
	memset(d, 0, sizeof(*d));
	d->n_algos = 1;
	strcpy(d->algos[0], "zstd");
	d->n_passes = 3;
	d->passes[0] = PASS_HUGE_IDLE;
	d->passes[1] = PASS_IDLE;
	d->passes[2] = PASS_HUGE;
	d->threshold_bytes = 0;
	d->max_pages_per_batch = 2048;
	d->max_pages_per_pass = 131072;
	d->idle_age_min_sec = 1800;
	d->idle_age_max_sec = 14400;
	d->compact = COMPACT_AUTO;
	d->interval_sec = 300;
	d->backoff_max_sec = 3600;
	d->cold_idle_age_sec = 0;
	d->cold_priority = 2;
	d->pages_per_hour = 262144;
	d->cpu_share_max_percent = 5;
	d->cpu_share_pressure_percent = 50;
	d->psi_cpu_max_percent = 40;
	d->memory_stall_us = 150000;
	d->defer_on_battery = true;
	d->battery_psi_memory_percent = 10;
	d->compact_fragmentation_percent = 10;
	d->compact_min_saved_bytes = 0;
	d->advise_interval_sec = 86400;
	d->advise_samples = 1024;
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	dev_config_init(&c->global);
	c->devices_all = true;
}

/* Error collection shared by one config_load/config_load_file call. */
struct errsink {
	struct config_errors *errs; /* may be NULL */
	unsigned count;		    /* errors seen by this call, stored or not */
};

static void sink_add(struct errsink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sink_add(struct errsink *s, const char *fmt, ...)
{
	va_list ap;

	s->count++;
	if (!s->errs)
		return;
	if (s->errs->n >= CFG_MAX_ERRORS) {
		s->errs->dropped++;
		return;
	}
	va_start(ap, fmt);
	/* A message cut short by a very long path is still useful; truncation is fine. */
	(void)vsnprintf(s->errs->msg[s->errs->n], sizeof(s->errs->msg[0]), fmt, ap);
	va_end(ap);
	s->errs->n++;
}

static void sink_reset(struct errsink *s, struct config_errors *errs)
{
	s->errs = errs;
	s->count = 0;
	if (errs) {
		errs->n = 0;
		errs->dropped = 0;
	}
}

struct parse_ctx {
	struct config *c;
	struct errsink *sink;
	const char *path;
	unsigned file; /* index in load order, stored in cfg_origin */
	FILE *f;
	int read_errno;
	unsigned line;		   /* line most recently returned by the reader */
	bool expect_key;	   /* that line must produce a handler call */
	bool handled;		   /* ... and it did */
	unsigned syntax_line;	   /* first line reported as a syntax error */
	unsigned section_line;	   /* line of the current [section] header */
	unsigned section_err_line; /* header line already reported as bad */
};

static void line_err(struct parse_ctx *ctx, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void line_err(struct parse_ctx *ctx, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sink_add(ctx->sink, "%s:%u: %s", ctx->path, line, msg);
}

static void key_err(struct parse_ctx *ctx, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void key_err(struct parse_ctx *ctx, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sink_add(ctx->sink, "%s:%u: key '%s': %s", ctx->path, ctx->line, key, msg);
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

/* Section kinds: -1 invalid, 0 global, 1 device (id set). */
static int section_kind(const char *name, unsigned *ret_id)
{
	if (strcmp(name, "global") == 0)
		return 0;
	if (zram_name_to_id(name, ret_id) == 0)
		return 1;
	return -1;
}

static void section_bad(struct parse_ctx *ctx, const char *name)
{
	ctx->section_err_line = ctx->section_line;
	line_err(ctx, ctx->section_line, "unknown section [%s] (expected [global] or [zramN])",
		 name);
}

/* Called before the next line is read and after the last one: a key line inih rejected. */
static void finish_line(struct parse_ctx *ctx)
{
	if (ctx->expect_key && !ctx->handled) {
		if (!ctx->syntax_line)
			ctx->syntax_line = ctx->line;
		line_err(ctx, ctx->line,
			 "syntax error: expected [section], key = value or a comment");
	}
	ctx->expect_key = false;
	ctx->handled = false;
}

/* Look at a header line ("[...") as inih will see it, to report bad sections even when empty. */
static void check_header(struct parse_ctx *ctx, const char *p)
{
	const char *end = strchr(p, ']');
	char name[64];
	unsigned id;
	size_t n;

	if (!end) {
		if (!ctx->syntax_line)
			ctx->syntax_line = ctx->line;
		line_err(ctx, ctx->line, "section header without closing ']'");
		return;
	}
	ctx->section_line = ctx->line;
	n = (size_t)(end - (p + 1));
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, p + 1, n);
	name[n] = '\0';
	if (section_kind(name, &id) < 0)
		section_bad(ctx, name);
}

/*
 * fgets for inih. Leading whitespace is stripped so that an indented "key = value" is a key
 * and not a continuation of the previous value (inih's multi-line mode, which would
 * silently turn "  compact = never" into a second value of the key above).
 */
static char *reader(char *str, int num, void *stream)
{
	struct parse_ctx *ctx = stream;
	size_t len, skip = 0;
	const char *p;

	finish_line(ctx);
	if (num < 2)
		return NULL;
	errno = 0;
	if (!fgets(str, num, ctx->f)) {
		if (ferror(ctx->f))
			ctx->read_errno = errno ? errno : EIO;
		return NULL;
	}
	ctx->line++;
	len = strlen(str);
	if (len > 0 && str[len - 1] != '\n') {
		int ch = getc(ctx->f);

		if (ch != '\n' && ch != EOF) {
			while (ch != '\n' && ch != EOF)
				ch = getc(ctx->f);
			line_err(ctx, ctx->line, "line too long (more than %d characters)",
				 num - 1);
			str[0] = '\0';
			return str;
		}
	}
	while (is_blank(str[skip]))
		skip++;
	if (skip)
		memmove(str, str + skip, strlen(str + skip) + 1);

	p = str;
	/* inih skips a UTF-8 byte order mark on the first line. */
	if (ctx->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0) {
		p += 3;
		while (is_blank(*p))
			p++;
	}
	if (*p == '\0' || *p == ';' || *p == '#')
		return str;
	if (*p == '[') {
		check_header(ctx, p);
		return str;
	}
	ctx->expect_key = true;
	return str;
}

/* Keys of dev_config. */
struct key_def;
typedef int (*key_parser)(struct parse_ctx *ctx, const struct key_def *k, char *v,
			  struct dev_config *d);

struct key_def {
	const char *name;
	enum cfg_key bit;
	key_parser parse;
	/* numeric keys */
	size_t offset;
	size_t size;
	uint64_t min, max;
	const char *note;
};

static bool algo_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= CFG_ALGO_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

#define SEPS " \t"

static int parse_algos(struct parse_ctx *ctx, const struct key_def *k, char *v,
		       struct dev_config *d)
{
	char algos[CFG_MAX_ALGOS][CFG_ALGO_NAME_MAX];
	unsigned n = 0;
	bool auto_seen = false;
	char *save = NULL, *tok;

	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		if (strcmp(tok, "auto") == 0) {
			auto_seen = true;
			continue;
		}
		if (!algo_name_valid(tok)) {
			key_err(ctx, k->name,
				"'%s' is not a valid algorithm name ([a-z0-9-], at most %d "
				"characters)",
				tok, CFG_ALGO_NAME_MAX - 1);
			return -EINVAL;
		}
		if (n == CFG_MAX_ALGOS) {
			key_err(ctx, k->name,
				"more than %d algorithms (the kernel has priorities 1-%d)",
				CFG_MAX_ALGOS, CFG_MAX_ALGOS);
			return -EINVAL;
		}
		strcpy(algos[n++], tok);
	}
	if (auto_seen && n > 0) {
		key_err(ctx, k->name, "'auto' cannot be combined with algorithm names");
		return -EINVAL;
	}
	if (auto_seen) {
		/* The fallback when no advice applies; see advice_apply(). */
		n = 1;
		strcpy(algos[0], CFG_AUTO_FALLBACK);
	}
	if (n == 0) {
		key_err(ctx, k->name, "empty value (at least one algorithm is needed)");
		return -EINVAL;
	}
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

static int parse_params(struct parse_ctx *ctx, const struct key_def *k, char *v,
			struct dev_config *d)
{
	struct cfg_param params[CFG_MAX_PARAMS];
	unsigned n = 0;
	char *save = NULL, *tok;

	memset(params, 0, sizeof(params));
	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		struct cfg_param *p = &params[n];
		char *colon = strchr(tok, ':');
		char *eq;
		int r;

		if (n == CFG_MAX_PARAMS) {
			key_err(ctx, k->name, "more than %d tokens", CFG_MAX_PARAMS);
			return -EINVAL;
		}
		if (!colon || colon == tok || !(eq = strchr(colon + 1, '='))) {
			key_err(ctx, k->name, "'%s' is not NAME:level=N or P:level=N", tok);
			return -EINVAL;
		}
		*colon = '\0';
		*eq = '\0';
		if (strcmp(colon + 1, "level") != 0) {
			key_err(ctx, k->name,
				"'%s:%s=%s': unknown parameter '%s' (only level= is supported)",
				tok, colon + 1, eq + 1, colon + 1);
			return -EINVAL;
		}
		/* A single digit is a priority; anything else a name (e.g. the "842" backend). */
		if (tok[0] >= '0' && tok[0] <= '9' && tok[1] == '\0') {
			p->prio = (unsigned)(tok[0] - '0');
			if (p->prio < 1 || p->prio > CFG_MAX_ALGOS) {
				key_err(ctx, k->name,
					"'%s:level=%s': priority %u is out of range 1-%d", tok,
					eq + 1, p->prio, CFG_MAX_ALGOS);
				return -EINVAL;
			}
		} else if (algo_name_valid(tok)) {
			strcpy(p->algo, tok);
		} else {
			key_err(ctx, k->name, "'%s:level=%s': '%s' is not a valid algorithm name",
				tok, eq + 1, tok);
			return -EINVAL;
		}
		r = parse_level(eq + 1, &p->level);
		if (r == -ERANGE) {
			key_err(ctx, k->name, "'%s:level=%s': level is out of range %d to %d", tok,
				eq + 1, -LEVEL_LIMIT, LEVEL_LIMIT);
			return -EINVAL;
		}
		if (r < 0) {
			key_err(ctx, k->name, "'%s:level=%s': level is not an integer", tok,
				eq + 1);
			return -EINVAL;
		}
		n++;
	}
	/* An empty value clears the list (a device section can drop the global levels). */
	d->n_params = n;
	memcpy(d->params, params, sizeof(params));
	return 0;
}

static int parse_passes(struct parse_ctx *ctx, const struct key_def *k, char *v,
			struct dev_config *d)
{
	enum pass_type passes[CFG_MAX_PASSES];
	unsigned n = 0, seen = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		unsigned t;

		/* The kernel takes an unknown type= as "all slots": a typo must not get through. */
		for (t = 0; t < PASS_NR_TYPES; t++)
			if (strcmp(tok, pass_type_name((enum pass_type)t)) == 0)
				break;
		if (t == PASS_NR_TYPES) {
			key_err(ctx, k->name, "'%s' is not a pass type (huge_idle, idle, huge)",
				tok);
			return -EINVAL;
		}
		if (seen & (1u << t)) {
			key_err(ctx, k->name, "'%s' is listed twice", tok);
			return -EINVAL;
		}
		if (n == CFG_MAX_PASSES) {
			key_err(ctx, k->name, "more than %d passes", CFG_MAX_PASSES);
			return -EINVAL;
		}
		seen |= 1u << t;
		passes[n++] = (enum pass_type)t;
	}
	if (n == 0) {
		key_err(ctx, k->name, "empty value (at least one of huge_idle, idle, huge)");
		return -EINVAL;
	}
	d->n_passes = n;
	memcpy(d->passes, passes, n * sizeof(passes[0]));
	return 0;
}

static int parse_number(struct parse_ctx *ctx, const struct key_def *k, char *v,
			struct dev_config *d)
{
	char *field = (char *)d + k->offset;
	uint64_t n;
	int r;

	if (!*v) {
		key_err(ctx, k->name, "empty value");
		return -EINVAL;
	}
	r = parse_u64(v, &n);
	if (r == -EINVAL) {
		key_err(ctx, k->name, "'%s' is not a decimal number", v);
		return r;
	}
	if (r < 0 || n < k->min || n > k->max) {
		key_err(ctx, k->name, "'%s' is out of range %" PRIu64 "-%" PRIu64 "%s", v, k->min,
			k->max, k->note ? k->note : "");
		return -ERANGE;
	}
	if (k->size == sizeof(uint32_t)) {
		uint32_t n32 = (uint32_t)n;

		memcpy(field, &n32, sizeof(n32));
	} else {
		memcpy(field, &n, sizeof(n));
	}
	return 0;
}

static int parse_compact(struct parse_ctx *ctx, const struct key_def *k, char *v,
			 struct dev_config *d)
{
	for (unsigned m = 0; m < ARRAY_SIZE(compact_names); m++) {
		if (strcmp(v, compact_names[m]) == 0) {
			d->compact = (enum compact_mode)m;
			return 0;
		}
	}
	if (!*v)
		key_err(ctx, k->name, "empty value (auto, always or never)");
	else
		key_err(ctx, k->name, "'%s' is not one of auto, always, never", v);
	return -EINVAL;
}

static int parse_bool(struct parse_ctx *ctx, const struct key_def *k, char *v,
		      struct dev_config *d)
{
	if (strcmp(v, "yes") == 0 || strcmp(v, "true") == 0 || strcmp(v, "1") == 0) {
		d->defer_on_battery = true;
		return 0;
	}
	if (strcmp(v, "no") == 0 || strcmp(v, "false") == 0 || strcmp(v, "0") == 0) {
		d->defer_on_battery = false;
		return 0;
	}
	key_err(ctx, k->name, "'%s' is not one of yes, no", v);
	return -EINVAL;
}

#define NUM_KEY(n, b, f, lo, hi, nt)                                                               \
	{                                                                                          \
		.name = (n), .bit = (b), .parse = parse_number,                                    \
		.offset = offsetof(struct dev_config, f),                                          \
		.size = sizeof(((struct dev_config *)0)->f), .min = (lo), .max = (hi),             \
		.note = (nt)                                                                       \
	}

/* In the order --print-config and the shipped example list them. */
static const struct key_def key_defs[] = {
	{.name = "recompress-algorithms", .bit = CFG_K_ALGOS, .parse = parse_algos},
	{.name = "algorithm-params", .bit = CFG_K_PARAMS, .parse = parse_params},
	{.name = "passes", .bit = CFG_K_PASSES, .parse = parse_passes},
	NUM_KEY("threshold-bytes", CFG_K_THRESHOLD, threshold_bytes, 0, THRESHOLD_MAX,
		" (the kernel requires threshold < huge_class_size, which is below 4096)"),
	NUM_KEY("max-pages-per-batch", CFG_K_BATCH, max_pages_per_batch, 1, BATCH_MAX, NULL),
	NUM_KEY("max-pages-per-pass", CFG_K_PASS_PAGES, max_pages_per_pass, 0, PASS_PAGES_MAX,
		NULL),
	NUM_KEY("idle-age-min-sec", CFG_K_AGE_MIN, idle_age_min_sec, 0, AGE_LIMIT_SEC, NULL),
	NUM_KEY("idle-age-max-sec", CFG_K_AGE_MAX, idle_age_max_sec, 0, AGE_LIMIT_SEC, NULL),
	{.name = "compact", .bit = CFG_K_COMPACT, .parse = parse_compact},
	NUM_KEY("interval-sec", CFG_K_INTERVAL, interval_sec, 1, 86400, NULL),
	NUM_KEY("backoff-max-sec", CFG_K_BACKOFF_MAX, backoff_max_sec, 0, 604800, NULL),
	NUM_KEY("priority-huge-idle", CFG_K_PRIO_HUGE_IDLE, priority[PASS_HUGE_IDLE], 0, 3,
		" (0 = every secondary algorithm in order)"),
	NUM_KEY("priority-idle", CFG_K_PRIO_IDLE, priority[PASS_IDLE], 0, 3,
		" (0 = every secondary algorithm in order)"),
	NUM_KEY("priority-huge", CFG_K_PRIO_HUGE, priority[PASS_HUGE], 0, 3,
		" (0 = every secondary algorithm in order)"),
	NUM_KEY("cold-idle-age-sec", CFG_K_COLD_AGE, cold_idle_age_sec, 0, AGE_LIMIT_SEC, NULL),
	NUM_KEY("cold-priority", CFG_K_COLD_PRIO, cold_priority, 1, 3, NULL),
	NUM_KEY("pages-per-hour", CFG_K_PAGES_HOUR, pages_per_hour, 0, PASS_PAGES_MAX, NULL),
	NUM_KEY("cpu-share-max-percent", CFG_K_CPU_SHARE, cpu_share_max_percent, 0, 100, NULL),
	NUM_KEY("psi-cpu-max-percent", CFG_K_PSI_CPU, psi_cpu_max_percent, 0, 100, NULL),
	NUM_KEY("memory-stall-us", CFG_K_MEM_STALL, memory_stall_us, 0, 1000000,
		" (microseconds of memory stall per second; 0 = off)"),
	{.name = "defer-on-battery", .bit = CFG_K_BATTERY, .parse = parse_bool},
	NUM_KEY("battery-psi-memory-percent", CFG_K_BATTERY_PSI, battery_psi_memory_percent, 0,
		100, NULL),
	NUM_KEY("compact-fragmentation-percent", CFG_K_COMPACT_FRAG,
		compact_fragmentation_percent, 1, 100, NULL),
	NUM_KEY("compact-min-saved-bytes", CFG_K_COMPACT_SAVED, compact_min_saved_bytes, 0,
		UINT64_C(1) << 50, NULL),
	NUM_KEY("advise-interval-sec", CFG_K_ADVISE_INTERVAL, advise_interval_sec, 0, AGE_LIMIT_SEC,
		" (0 = never)"),
	NUM_KEY("advise-samples", CFG_K_ADVISE_SAMPLES, advise_samples, 1, 1048576, NULL),
	NUM_KEY("cpu-share-pressure-percent", CFG_K_CPU_SHARE_PRESSURE, cpu_share_pressure_percent, 0,
		100, " (the share under full memory pressure)"),
};

_Static_assert(ARRAY_SIZE(key_defs) == CFG_N_KEYS, "one key_defs row per enum cfg_key bit");

static unsigned key_index(enum cfg_key bit)
{
	return (unsigned)__builtin_ctz((unsigned)bit);
}

static int parse_devices(struct parse_ctx *ctx, char *v)
{
	struct config *c = ctx->c;
	unsigned ids[CFG_MAX_DEVICES];
	unsigned n = 0;
	bool all = false;
	char *save = NULL, *tok;

	for (tok = strtok_r(v, SEPS, &save); tok; tok = strtok_r(NULL, SEPS, &save)) {
		unsigned id;

		if (strcmp(tok, "all") == 0) {
			all = true;
			continue;
		}
		if (zram_name_to_id(tok, &id) < 0) {
			key_err(ctx, "devices", "'%s' is not a zram device name (zramN)", tok);
			return -EINVAL;
		}
		for (unsigned i = 0; i < n; i++) {
			if (ids[i] == id) {
				key_err(ctx, "devices", "'%s' is listed twice", tok);
				return -EINVAL;
			}
		}
		if (n == CFG_MAX_DEVICES) {
			key_err(ctx, "devices", "more than %d devices", CFG_MAX_DEVICES);
			return -EINVAL;
		}
		ids[n++] = id;
	}
	if (all && n > 0) {
		key_err(ctx, "devices", "'all' cannot be combined with device names");
		return -EINVAL;
	}
	if (!all && n == 0) {
		key_err(ctx, "devices", "empty value ('all' or a list of zramN names)");
		return -EINVAL;
	}
	c->devices_all = all;
	c->n_devices = n;
	memcpy(c->devices, ids, n * sizeof(ids[0]));
	return 0;
}

static struct dev_section *find_section(struct config *c, unsigned id)
{
	for (unsigned i = 0; i < c->n_sections; i++)
		if (c->sections[i].id == id)
			return &c->sections[i];
	return NULL;
}

static const struct dev_section *find_section_const(const struct config *c, unsigned id)
{
	for (unsigned i = 0; i < c->n_sections; i++)
		if (c->sections[i].id == id)
			return &c->sections[i];
	return NULL;
}

/* The dev_config a key in section goes to, or NULL (the problem is reported). */
static struct dev_config *section_target(struct parse_ctx *ctx, const char *section)
{
	struct config *c = ctx->c;
	struct dev_section *s;
	unsigned id = 0;
	int kind = section_kind(section, &id);

	if (kind == 0)
		return &c->global;
	if (kind < 0) {
		/* Normally reported by the reader already; once per header in any case. */
		if (ctx->section_err_line != ctx->section_line)
			section_bad(ctx, section);
		return NULL;
	}
	s = find_section(c, id);
	if (s)
		return &s->cfg;
	if (c->n_sections == CFG_MAX_DEVICES) {
		if (ctx->section_err_line != ctx->section_line) {
			ctx->section_err_line = ctx->section_line;
			line_err(ctx, ctx->section_line, "too many device sections (at most %d)",
				 CFG_MAX_DEVICES);
		}
		return NULL;
	}
	s = &c->sections[c->n_sections++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	return &s->cfg;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *ctx = user;
	struct dev_config *d;
	char v[VALUE_MAX];
	size_t len;
	char *hash;

	ctx->handled = true;
	if (!*section) {
		line_err(ctx, ctx->line,
			 "key '%s' is outside of any section (add [global] above it)", name);
		return 1;
	}
	d = section_target(ctx, section);
	if (!d)
		return 1;

	len = strlen(value);
	if (len >= sizeof(v)) {
		key_err(ctx, name, "value too long");
		return 1;
	}
	memcpy(v, value, len + 1);
	/* inih ends a value at " ;"; accept " #" as well, since no value contains '#'. */
	for (hash = strchr(v, '#'); hash; hash = strchr(hash + 1, '#')) {
		if (hash == v || hash[-1] == ' ' || hash[-1] == '\t') {
			*hash = '\0';
			break;
		}
	}
	len = strlen(v);
	while (len > 0 && is_blank(v[len - 1]))
		v[--len] = '\0';

	if (strcmp(name, "devices") == 0) {
		if (d != &ctx->c->global)
			line_err(ctx, ctx->line, "key 'devices' is only allowed in [global]");
		else
			(void)parse_devices(ctx, v);
		return 1;
	}
	if (strcmp(name, "metrics-file") == 0) {
		/* An absolute path chosen by the admin; written atomically by rename. */
		if (d != &ctx->c->global)
			line_err(ctx, ctx->line, "key 'metrics-file' is only allowed in [global]");
		else if (*v && v[0] != '/')
			key_err(ctx, name, "'%s' is not an absolute path", v);
		else if (strlen(v) >= sizeof(ctx->c->metrics_file))
			key_err(ctx, name, "path longer than %zu bytes",
				sizeof(ctx->c->metrics_file) - 1);
		else
			memcpy(ctx->c->metrics_file, v, strlen(v) + 1);
		return 1;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(key_defs); i++) {
		const struct key_def *k = &key_defs[i];

		if (strcmp(name, k->name) != 0)
			continue;
		if (k->parse(ctx, k, v, d) == 0) {
			d->set |= k->bit;
			d->origin[key_index(k->bit)] = (struct cfg_origin){ctx->file, ctx->line};
		}
		return 1;
	}
	line_err(ctx, ctx->line, "unknown key '%s' in section [%s]", name, section);
	/* Always "success" for inih: its error return would only repeat what we recorded. */
	return 1;
}

/*
 * Parse one file into c. Returns 0, -ENOENT when it does not exist (not recorded), or
 * -errno when it cannot be opened or read (recorded). Syntax and value errors are
 * recorded in the sink only.
 */
static int parse_file(struct config *c, const char *path, unsigned file, struct errsink *sink)
{
	struct parse_ctx ctx = {
		.c = c,
		.sink = sink,
		.path = path,
		.file = file,
	};
	struct stat st;
	int r;

	ctx.f = fopen(path, "re");
	if (!ctx.f) {
		r = -errno;
		if (r != -ENOENT)
			sink_add(sink, "%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fileno(ctx.f), &st) < 0) {
		r = -errno;
		sink_add(sink, "%s: cannot stat: %s", path, strerror(-r));
		fclose(ctx.f);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		sink_add(sink, "%s: is a directory", path);
		fclose(ctx.f);
		return -EISDIR;
	}

	r = ini_parse_stream(reader, &ctx, handler, &ctx);
	finish_line(&ctx);
	fclose(ctx.f);
	if (ctx.read_errno) {
		sink_add(sink, "%s: read error: %s", path, strerror(ctx.read_errno));
		return -ctx.read_errno;
	}
	if (r == -2) {
		sink_add(sink, "%s: out of memory", path);
		return -ENOMEM;
	}
	/*
	 * r > 0: inih's first bad line; report it unless the reader already did (it may see
	 * "[a ;]" as a bad name where inih sees a header cut short by a comment).
	 */
	if (r > 0 && (unsigned)r != ctx.syntax_line && (unsigned)r != ctx.section_err_line)
		line_err(&ctx, (unsigned)r, "syntax error");
	return 0;
}

/* Apply tokens left to right; tokens that do not resolve are skipped (validation reports). */
static void resolve_params(struct dev_config *d)
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

static void copy_key(struct dev_config *dst, const struct dev_config *src, enum cfg_key bit)
{
	switch (bit) {
	case CFG_K_ALGOS:
		dst->n_algos = src->n_algos;
		memcpy(dst->algos, src->algos, sizeof(dst->algos));
		dst->algos_auto = src->algos_auto;
		break;
	case CFG_K_PARAMS:
		dst->n_params = src->n_params;
		memcpy(dst->params, src->params, sizeof(dst->params));
		break;
	case CFG_K_PASSES:
		dst->n_passes = src->n_passes;
		memcpy(dst->passes, src->passes, sizeof(dst->passes));
		break;
	case CFG_K_THRESHOLD:
		dst->threshold_bytes = src->threshold_bytes;
		break;
	case CFG_K_BATCH:
		dst->max_pages_per_batch = src->max_pages_per_batch;
		break;
	case CFG_K_PASS_PAGES:
		dst->max_pages_per_pass = src->max_pages_per_pass;
		break;
	case CFG_K_AGE_MIN:
		dst->idle_age_min_sec = src->idle_age_min_sec;
		break;
	case CFG_K_AGE_MAX:
		dst->idle_age_max_sec = src->idle_age_max_sec;
		break;
	case CFG_K_COMPACT:
		dst->compact = src->compact;
		break;
	case CFG_K_BATTERY:
		dst->defer_on_battery = src->defer_on_battery;
		break;
	default: {
		/* plain numeric keys: copy the field by its table entry */
		const struct key_def *k = &key_defs[key_index(bit)];

		memcpy((char *)dst + k->offset, (const char *)src + k->offset, k->size);
		break;
	}
	}
	dst->origin[key_index(bit)] = src->origin[key_index(bit)];
}

void config_effective(const struct config *c, unsigned id, struct dev_config *ret)
{
	const struct dev_section *s = find_section_const(c, id);

	*ret = c->global;
	ret->set = 0;
	if (s) {
		for (unsigned i = 0; i < ARRAY_SIZE(key_defs); i++)
			if (s->cfg.set & key_defs[i].bit)
				copy_key(ret, &s->cfg, key_defs[i].bit);
		ret->set = s->cfg.set;
	}
	resolve_params(ret);
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

static void join_algos(const struct dev_config *d, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < d->n_algos && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? " " : "", d->algos[i]);
}

static void origin_err(struct errsink *sink, const char *const *paths, struct cfg_origin o,
		       const char *key, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void origin_err(struct errsink *sink, const char *const *paths, struct cfg_origin o,
		       const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o.line)
		sink_add(sink, "%s:%u: key '%s': %s", paths[o.file], o.line, key, msg);
	else
		sink_add(sink, "%s: %s", paths[0], msg);
}

static bool origin_after(struct cfg_origin a, struct cfg_origin b)
{
	return a.file > b.file || (a.file == b.file && a.line > b.line);
}

/* Cross-key checks of one section's effective configuration. */
static void validate_effective(const struct dev_config *eff, const char *label,
			       const char *const *paths, struct errsink *sink)
{
	struct cfg_origin po = eff->origin[key_index(CFG_K_PARAMS)];
	struct cfg_origin mino = eff->origin[key_index(CFG_K_AGE_MIN)];
	struct cfg_origin maxo = eff->origin[key_index(CFG_K_AGE_MAX)];
	char list[CFG_MAX_ALGOS * CFG_ALGO_NAME_MAX];

	join_algos(eff, list, sizeof(list));
	if (eff->algos_auto && eff->n_params > 0) {
		struct cfg_origin ao = eff->origin[key_index(CFG_K_ALGOS)];
		bool params_last = origin_after(po, ao);

		/* The advice brings its own levels; mixing them with ours has no meaning. */
		origin_err(sink, paths, params_last ? po : ao,
			   params_last ? "algorithm-params" : "recompress-algorithms",
			   "algorithm-params cannot be combined with recompress-algorithms = auto "
			   "in [%s] (the advice brings its own levels)",
			   label);
	}
	for (unsigned t = 0; !eff->algos_auto && t < eff->n_params; t++) {
		const struct cfg_param *p = &eff->params[t];
		bool found = false;

		if (p->prio) {
			if (p->prio > eff->n_algos)
				origin_err(sink, paths, po, "algorithm-params",
					   "priority %u is not configured: recompress-algorithms "
					   "(%s) of [%s] has %u algorithm%s",
					   p->prio, list, label, eff->n_algos,
					   eff->n_algos == 1 ? "" : "s");
			continue;
		}
		for (unsigned i = 0; i < eff->n_algos; i++)
			found = found || strcmp(p->algo, eff->algos[i]) == 0;
		if (!found)
			origin_err(sink, paths, po, "algorithm-params",
				   "'%s' is not in recompress-algorithms (%s) of [%s]", p->algo,
				   list, label);
	}

	if (eff->idle_age_max_sec != 0 && eff->idle_age_min_sec > eff->idle_age_max_sec) {
		bool min_last = origin_after(mino, maxo);

		origin_err(sink, paths, min_last ? mino : maxo,
			   min_last ? "idle-age-min-sec" : "idle-age-max-sec",
			   "idle-age-min-sec (%" PRIu64
			   ") is greater than idle-age-max-sec (%" PRIu64 ") in [%s]",
			   eff->idle_age_min_sec, eff->idle_age_max_sec, label);
	}
}

static void validate(struct config *c, const char *const *paths, struct errsink *sink)
{
	validate_effective(&c->global, "global", paths, sink);
	resolve_params(&c->global);
	for (unsigned i = 0; i < c->n_sections; i++) {
		struct dev_section *s = &c->sections[i];
		struct dev_config eff;
		char label[24];

		/* A section that changes none of the related keys repeats [global]'s result. */
		if (!(s->cfg.set & (CFG_K_ALGOS | CFG_K_PARAMS | CFG_K_AGE_MIN | CFG_K_AGE_MAX)))
			continue;
		config_effective(c, s->id, &eff);
		if (!(s->cfg.set & (CFG_K_ALGOS | CFG_K_PARAMS)))
			eff.n_params = 0; /* same as [global]: checked there */
		if (!(s->cfg.set & (CFG_K_AGE_MIN | CFG_K_AGE_MAX)))
			eff.idle_age_max_sec = 0;
		(void)snprintf(label, sizeof(label), "zram%u", s->id);
		validate_effective(&eff, label, paths, sink);
		if (s->cfg.set & CFG_K_PARAMS) {
			memcpy(s->cfg.has_level, eff.has_level, sizeof(eff.has_level));
			memcpy(s->cfg.level, eff.level, sizeof(eff.level));
		}
	}
}

int config_load_file(struct config *c, const char *path, struct config_errors *errs)
{
	struct errsink sink;
	const char *paths[1] = {path};
	int r;

	sink_reset(&sink, errs);
	r = parse_file(c, path, 0, &sink);
	if (r == -ENOENT)
		sink_add(&sink, "%s: cannot open: %s", path, strerror(ENOENT));
	validate(c, paths, &sink);
	if (r < 0)
		return r;
	return sink.count ? -EINVAL : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool dropin_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/*
 * Append "<dir>/<name>" for every *.conf regular file (or symlink to one) in dir, sorted.
 * A missing directory gives no files; other errors are recorded and returned.
 */
static int list_dropins(const char *dir, char ***paths, unsigned *n, struct errsink *sink)
{
	char **names = NULL;
	unsigned count = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			return 0;
		sink_add(sink, "%s: cannot open drop-in directory: %s", dir, strerror(-r));
		return r;
	}
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		sink_add(sink, "%s: cannot open drop-in directory: %s", dir, strerror(-r));
		return r;
	}
	for (;;) {
		struct stat st;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				r = -errno;
				sink_add(sink, "%s: cannot read drop-in directory: %s", dir,
					 strerror(-r));
			}
			break;
		}
		if (!dropin_name(de->d_name))
			continue;
		/* Follows symlinks: one to /dev/null masks a file of that name, as in systemd. */
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (count == cap) {
			unsigned ncap = cap ? 2 * cap : 16;
			char **nn = realloc(names, ncap * sizeof(*names));

			if (!nn) {
				r = -ENOMEM;
				break;
			}
			names = nn;
			cap = ncap;
		}
		if (asprintf(&names[count], "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		count++;
	}
	closedir(d);
	if (r == -ENOMEM)
		sink_add(sink, "%s: out of memory", dir);
	if (count)
		qsort(names, count, sizeof(*names), cmp_str);
	*paths = names;
	*n = count;
	return r;
}

int config_load(struct config *c, const char *main_path, const char *dropin_dir,
		struct config_errors *errs)
{
	struct errsink sink;
	char **dropins = NULL;
	const char **paths;
	unsigned n_dropins = 0;
	int r = 0, q;

	config_init(c);
	sink_reset(&sink, errs);
	if (dropin_dir) {
		q = list_dropins(dropin_dir, &dropins, &n_dropins, &sink);
		if (q < 0)
			r = q;
	}
	paths = calloc(n_dropins + 1, sizeof(*paths));
	if (!paths) {
		for (unsigned i = 0; i < n_dropins; i++)
			free(dropins[i]);
		free(dropins);
		sink_add(&sink, "%s: out of memory", main_path ? main_path : "configuration");
		return -ENOMEM;
	}
	/* File index 0 is the main file even when it is absent, so origins stay stable. */
	paths[0] = main_path ? main_path : "(none)";
	if (main_path) {
		q = parse_file(c, main_path, 0, &sink);
		if (q < 0 && q != -ENOENT && r == 0)
			r = q;
	}
	for (unsigned i = 0; i < n_dropins; i++) {
		paths[i + 1] = dropins[i];
		q = parse_file(c, dropins[i], i + 1, &sink);
		/* A file that vanished since the listing counts as absent. */
		if (q < 0 && q != -ENOENT && r == 0)
			r = q;
	}
	validate(c, paths, &sink);

	for (unsigned i = 0; i < n_dropins; i++)
		free(dropins[i]);
	free(dropins);
	free(paths);
	if (r < 0)
		return r;
	return sink.count ? -EINVAL : 0;
}

static void print_key(const struct dev_config *d, enum cfg_key bit, FILE *f)
{
	const struct key_def *k = &key_defs[key_index(bit)];

	fprintf(f, "%s =", k->name);
	switch (bit) {
	case CFG_K_ALGOS:
		if (d->algos_auto) {
			fputs(" auto", f);
			break;
		}
		for (unsigned i = 0; i < d->n_algos; i++)
			fprintf(f, " %s", d->algos[i]);
		break;
	case CFG_K_PARAMS:
		/* Resolved levels by priority: names would be ambiguous for "zstd zstd". */
		for (unsigned i = 0; i < d->n_algos; i++)
			if (d->has_level[i])
				fprintf(f, " %u:level=%d", i + 1, d->level[i]);
		break;
	case CFG_K_PASSES:
		for (unsigned i = 0; i < d->n_passes; i++)
			fprintf(f, " %s", pass_type_name(d->passes[i]));
		break;
	case CFG_K_THRESHOLD:
		fprintf(f, " %" PRIu32, d->threshold_bytes);
		break;
	case CFG_K_BATCH:
		fprintf(f, " %" PRIu64, d->max_pages_per_batch);
		break;
	case CFG_K_PASS_PAGES:
		fprintf(f, " %" PRIu64, d->max_pages_per_pass);
		break;
	case CFG_K_AGE_MIN:
		fprintf(f, " %" PRIu64, d->idle_age_min_sec);
		break;
	case CFG_K_AGE_MAX:
		fprintf(f, " %" PRIu64, d->idle_age_max_sec);
		break;
	case CFG_K_COMPACT:
		fprintf(f, " %s", compact_mode_name(d->compact));
		break;
	case CFG_K_BATTERY:
		fprintf(f, " %s", d->defer_on_battery ? "yes" : "no");
		break;
	default: {
		uint64_t v = 0;

		if (k->size == sizeof(uint32_t)) {
			uint32_t v32;

			memcpy(&v32, (const char *)d + k->offset, sizeof(v32));
			v = v32;
		} else {
			memcpy(&v, (const char *)d + k->offset, sizeof(v));
		}
		fprintf(f, " %" PRIu64, v);
		break;
	}
	}
	fputc('\n', f);
}

static int cmp_section(const void *a, const void *b)
{
	const struct dev_section *const *x = a, *const *y = b;

	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

void config_print(const struct config *c, FILE *f)
{
	const struct dev_section *sorted[CFG_MAX_DEVICES];
	struct dev_config eff = c->global;
	unsigned n = c->n_sections < CFG_MAX_DEVICES ? c->n_sections : CFG_MAX_DEVICES;

	resolve_params(&eff);
	fputs("[global]\ndevices =", f);
	if (c->devices_all)
		fputs(" all", f);
	for (unsigned i = 0; !c->devices_all && i < c->n_devices; i++)
		fprintf(f, " zram%u", c->devices[i]);
	fputc('\n', f);
	fprintf(f, "metrics-file =%s%s\n", *c->metrics_file ? " " : "", c->metrics_file);
	for (unsigned i = 0; i < ARRAY_SIZE(key_defs); i++)
		print_key(&eff, key_defs[i].bit, f);

	for (unsigned i = 0; i < n; i++)
		sorted[i] = &c->sections[i];
	qsort(sorted, n, sizeof(sorted[0]), cmp_section);
	for (unsigned i = 0; i < n; i++) {
		uint32_t keys = sorted[i]->cfg.set;

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
		for (unsigned k = 0; k < ARRAY_SIZE(key_defs); k++)
			if (keys & key_defs[k].bit)
				print_key(&eff, key_defs[k].bit, f);
	}
}
