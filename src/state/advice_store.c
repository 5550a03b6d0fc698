// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stored advice for recompress-algorithms = auto (see include/advice_store.h): file format,
 * atomic storage in the state directory, and the rule that turns it into a secondary list.
 * Nothing here logs.
 */
#include "advice_store.h"
#include "human.h"
#include "state.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ADVICE_MAGIC "zram-recompd-advice"
#define ADVICE_VERSION 1
/* Lines of at most ~250 bytes: 64,000 devices; anything larger is not ours (state.c). */
#define ADVICE_MAX_SIZE (16 * 1024 * 1024)
#define LEVEL_LIMIT 131072 /* as config.c: zstd's lowest level is -131072 */

static bool name_ok(const char *name)
{
	return zram_name_valid(name) && strlen(name) < sizeof(((struct advice_entry *)0)->name);
}

/* Kernel backend names: [a-z0-9-], like config.c accepts for recompress-algorithms. */
static bool algo_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= CFG_ALGO_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

static int entry_check(const struct advice_entry *e)
{
	if (strnlen(e->name, sizeof(e->name)) == sizeof(e->name) || !name_ok(e->name) ||
	    strnlen(e->primary, sizeof(e->primary)) == sizeof(e->primary) || !algo_ok(e->primary) ||
	    e->n < 1 || e->n > CFG_MAX_ALGOS)
		return -EINVAL;
	for (unsigned i = 0; i < e->n; i++) {
		if (strnlen(e->algo[i], sizeof(e->algo[i])) == sizeof(e->algo[i]) ||
		    !algo_ok(e->algo[i]))
			return -EINVAL;
		if (e->has_level[i] && (e->level[i] > LEVEL_LIMIT || e->level[i] < -LEVEL_LIMIT))
			return -EINVAL;
	}
	return 0;
}

static int find_index(const struct advice_set *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->dev[i].name, name) == 0)
			return (int)i;
	return -1;
}

const struct advice_entry *advice_find(const struct advice_set *s, const char *name)
{
	int i = find_index(s, name);

	return i < 0 ? NULL : &s->dev[i];
}

/* Room for one more entry. */
static int set_grow(struct advice_set *s)
{
	void *v = s->dev;
	int r = array_reserve(&v, &s->cap, s->n, sizeof(*s->dev), 4);

	s->dev = v;
	return r;
}

void advice_free(struct advice_set *s)
{
	free(s->dev);
	memset(s, 0, sizeof(*s));
}

int advice_put(struct advice_set *s, const struct advice_entry *e)
{
	int i = find_index(s, e->name);
	struct advice_entry *slot = i < 0 ? NULL : &s->dev[i];

	if (entry_check(e) < 0)
		return -EINVAL;
	if (!slot) {
		if (set_grow(s) < 0)
			return -ENOMEM;
		slot = &s->dev[s->n++];
	}
	*slot = *e;
	return 0;
}

int advice_format_chain(const struct advice_entry *e, char *buf, size_t size)
{
	size_t off = 0;
	int r = 0;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	for (unsigned i = 0; i < e->n && r == 0; i++) {
		if (e->has_level[i])
			r = str_printf(buf + off, size - off, "%s%s:%d", i ? "," : "", e->algo[i],
				       e->level[i]);
		else
			r = str_printf(buf + off, size - off, "%s%s", i ? "," : "", e->algo[i]);
		off += strlen(buf + off);
	}
	return r;
}

/* "name" or "name:level" into slot i. */
static int parse_spec(char *tok, struct advice_entry *e, unsigned i)
{
	char *colon = strchr(tok, ':');
	uint64_t v;
	bool neg = false;

	if (colon) {
		const char *num = colon + 1;

		*colon = '\0';
		if (*num == '-') {
			neg = true;
			num++;
		}
		if (parse_u64(num, &v) < 0 || v > LEVEL_LIMIT)
			return -EBADMSG;
		e->has_level[i] = true;
		e->level[i] = neg ? -(int)v : (int)v;
	}
	if (!algo_ok(tok))
		return -EBADMSG;
	memcpy(e->algo[i], tok, strlen(tok) + 1);
	return 0;
}

static int parse_chain(char *v, struct advice_entry *e)
{
	char *save = NULL, *tok;

	e->n = 0;
	for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (e->n == CFG_MAX_ALGOS || parse_spec(tok, e, e->n) < 0)
			return -EBADMSG;
		e->n++;
	}
	return e->n ? 0 : -EBADMSG;
}

enum { K_TIME, K_PRIMARY, K_CHAIN, K_PAYS, K_POOL, K_SAVING, K_SAMPLES, K_NR };
static const char *const keys[K_NR] = {
	[K_TIME] = "time", [K_PRIMARY] = "primary", [K_CHAIN] = "chain",     [K_PAYS] = "pays",
	[K_POOL] = "pool", [K_SAVING] = "saving",   [K_SAMPLES] = "samples",
};

/* One device line (NUL-terminated, no '\n') into e. */
static int parse_line(char *line, struct advice_entry *e)
{
	bool seen[K_NR] = {false};
	char *tok, *next;

	memset(e, 0, sizeof(*e));
	next = strchr(line, ' ');
	if (!next)
		return -EBADMSG;
	*next++ = '\0';
	if (!name_ok(line))
		return -EBADMSG;
	memcpy(e->name, line, strlen(line) + 1);
	for (tok = next; tok; tok = next) {
		char *eq;
		uint64_t v = 0;
		unsigned k;

		next = strchr(tok, ' ');
		if (next)
			*next++ = '\0';
		eq = strchr(tok, '=');
		if (!eq)
			return -EBADMSG;
		*eq++ = '\0';
		for (k = 0; k < K_NR; k++)
			if (strcmp(tok, keys[k]) == 0)
				break;
		if (k == K_NR || seen[k])
			return -EBADMSG;
		seen[k] = true;
		if (k == K_PRIMARY) {
			if (!algo_ok(eq))
				return -EBADMSG;
			memcpy(e->primary, eq, strlen(eq) + 1);
			continue;
		}
		if (k == K_CHAIN) {
			if (parse_chain(eq, e) < 0)
				return -EBADMSG;
			continue;
		}
		if (parse_u64(eq, &v) < 0)
			return -EBADMSG;
		switch (k) {
		case K_TIME:
			e->time = v;
			break;
		case K_PAYS:
			if (v > 1)
				return -EBADMSG;
			e->pays = v == 1;
			break;
		case K_POOL:
			e->pool = v;
			break;
		case K_SAVING:
			e->saving = v;
			break;
		default:
			e->samples = v;
			break;
		}
	}
	for (unsigned k = 0; k < K_NR; k++)
		if (!seen[k])
			return -EBADMSG;
	return 0;
}

static int parse_file(char *buf, size_t len, struct advice_set *s)
{
	static const char header[] = ADVICE_MAGIC " 1";
	char *p = buf, *end = buf + len;
	bool first = true;

	_Static_assert(ADVICE_VERSION == 1, "parse_file() understands version 1 only");
	if (memchr(buf, '\0', len))
		return -EBADMSG;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		struct advice_entry e;

		if (!nl)
			return -EBADMSG; /* cut short */
		*nl = '\0';
		if (first) {
			if (strcmp(p, header) != 0)
				return -EBADMSG;
			first = false;
		} else {
			if (parse_line(p, &e) < 0 || advice_find(s, e.name))
				return -EBADMSG;
			if (set_grow(s) < 0)
				return -ENOMEM;
			s->dev[s->n++] = e;
		}
		p = nl + 1;
	}
	return first ? -EBADMSG : 0;
}

int advice_load(struct advice_set *s, int dir_fd)
{
	char *buf;
	size_t len;
	int r;

	memset(s, 0, sizeof(*s));
	r = state_read_file(dir_fd, ADVICE_FILE, ADVICE_MAX_SIZE, &buf, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = parse_file(buf, len, s);
	if (r < 0)
		advice_free(s);
	free(buf);
	return r;
}

int advice_save(const struct advice_set *s, int dir_fd)
{
	char *buf;
	size_t off = 0, cap = 64 + (size_t)s->n * 512;
	int r = 0;

	if (s->n > s->cap)
		return -EINVAL;
	for (unsigned i = 0; i < s->n; i++) {
		if (entry_check(&s->dev[i]) < 0)
			return -EINVAL;
		for (unsigned j = 0; j < i; j++)
			if (strcmp(s->dev[i].name, s->dev[j].name) == 0)
				return -EINVAL;
	}
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	r = str_printf(buf, cap, "%s %d\n", ADVICE_MAGIC, ADVICE_VERSION);
	off = strlen(buf);
	for (unsigned i = 0; i < s->n && r == 0; i++) {
		const struct advice_entry *e = &s->dev[i];
		char chain[CFG_MAX_ALGOS * (CFG_ALGO_NAME_MAX + 12)];

		r = advice_format_chain(e, chain, sizeof(chain));
		if (r == 0)
			r = str_printf(buf + off, cap - off,
				       "%s time=%" PRIu64
				       " primary=%s chain=%s pays=%d pool=%" PRIu64
				       " saving=%" PRIu64 " samples=%" PRIu64 "\n",
				       e->name, e->time, e->primary, chain, e->pays ? 1 : 0,
				       e->pool, e->saving, e->samples);
		off += strlen(buf + off);
	}
	if (r == 0)
		r = state_write_file(dir_fd, ADVICE_FILE, buf, off);
	free(buf);
	return r;
}

int advice_update(int dir_fd, const struct advice_entry *e)
{
	struct advice_set s;
	int r;

	r = advice_load(&s, dir_fd);
	if (r < 0 && r != -EBADMSG)
		goto out;
	r = advice_put(&s, e);
	if (r == 0)
		r = advice_save(&s, dir_fd);
out:
	advice_free(&s);
	return r;
}

enum advice_use advice_apply(const struct dev_config *cfg, const struct advice_entry *a,
			     const char *primary, struct dev_config *ret)
{
	*ret = *cfg;
	if (!cfg->algos_auto)
		return ADVICE_NOT_AUTO;
	if (!a || a->n == 0 || a->n > CFG_MAX_ALGOS)
		return ADVICE_MISSING;
	/* A chain chosen for lzo-rle data says nothing about what beats zstd, and so on. */
	if (!primary || strcmp(a->primary, primary) != 0)
		return ADVICE_OTHER_PRIMARY;
	memset(ret->algos, 0, sizeof(ret->algos));
	memset(ret->has_level, 0, sizeof(ret->has_level));
	memset(ret->level, 0, sizeof(ret->level));
	ret->n_algos = a->n;
	for (unsigned i = 0; i < a->n; i++) {
		memcpy(ret->algos[i], a->algo[i], sizeof(ret->algos[i]));
		ret->has_level[i] = a->has_level[i];
		ret->level[i] = a->level[i];
	}
	ret->n_params = 0; /* the levels are resolved above; no tokens to re-resolve */
	return ADVICE_USED;
}

static void fallback_list(const struct dev_config *cfg, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < cfg->n_algos && off < size; i++) {
		(void)snprintf(buf + off, size - off, "%s%s", i ? " " : "", cfg->algos[i]);
		off += strlen(buf + off);
	}
}

enum advice_use advice_resolve(const struct dev_config *cfg, int dir_fd, const char *name,
			       const char *primary, struct dev_config *ret, char *why,
			       size_t why_size)
{
	struct advice_set s = { 0 };
	const struct advice_entry *a = NULL;
	char fb[CFG_MAX_ALGOS * CFG_ALGO_NAME_MAX], chain[CFG_MAX_ALGOS * (CFG_ALGO_NAME_MAX + 12)];
	enum advice_use u;
	int r = 0;

	if (why_size)
		why[0] = '\0';
	if (!cfg->algos_auto) {
		*ret = *cfg;
		return ADVICE_NOT_AUTO;
	}
	if (dir_fd >= 0) {
		r = advice_load(&s, dir_fd);
		if (r == 0)
			a = advice_find(&s, name);
	} else {
		r = -EBADF;
	}
	u = advice_apply(cfg, a, primary, ret);
	fallback_list(cfg, fb, sizeof(fb));
	switch (u) {
	case ADVICE_USED: {
		char day[16] = "?", sv[HUMAN_LEN], pl[HUMAN_LEN];
		time_t t = (time_t)a->time;
		struct tm tm;

		if (gmtime_r(&t, &tm))
			(void)strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		(void)advice_format_chain(a, chain, sizeof(chain));
		(void)snprintf(why, why_size,
			       "recompress-algorithms = auto: advice of %s UTC applied: %s "
			       "(predicted to save %s of %s%s, from %" PRIu64 " pages)",
			       day, chain, human_bytes(sv, sizeof(sv), a->saving),
			       human_bytes(pl, sizeof(pl), a->pool),
			       a->pays ? "" : ", below the 2% that pays", a->samples);
		break;
	}
	case ADVICE_OTHER_PRIMARY:
		(void)snprintf(why, why_size,
			       "recompress-algorithms = auto: the stored advice was computed for "
			       "primary %s, not %s; using %s",
			       a->primary, primary ? primary : "(unknown)", fb);
		break;
	default:
		if (r < 0 && r != -EBADF)
			(void)snprintf(why, why_size,
				       "recompress-algorithms = auto: advice file unreadable (%s); "
				       "using %s",
				       strerror(-r), fb);
		else
			(void)snprintf(
				why, why_size,
				"recompress-algorithms = auto: no advice for %s yet; using %s",
				name, fb);
		break;
	}
	advice_free(&s);
	return u;
}

bool advice_due(const struct dev_config *cfg, const struct advice_entry *a, const char *primary,
		uint64_t now)
{
	if (!cfg->algos_auto || cfg->advise_interval_sec == 0)
		return false;
	if (!a || !primary || strcmp(a->primary, primary) != 0)
		return true;
	/* A clock set back (time < stored) counts as due, not as "fresh for years". */
	return now < a->time || now - a->time >= cfg->advise_interval_sec;
}
