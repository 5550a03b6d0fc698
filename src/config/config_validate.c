// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the configuration module does with errors: the sink that collects them as
 * "FILE:LINE: message" strings, and the checks that need more than one key, run once after
 * the last file (a later file or section may still change either key). The key table is
 * config.c's; files and lines are config_file.c's.
 */
#include "config_internal.h"
#include "units.h"
#include "util.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

void cfg_sink_add(struct cfg_sink *s, const char *fmt, ...)
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

/*
 * The nearest key by edit distance, when it is close enough to be the one meant: at most 2
 * edits, and fewer than a third of the name (so that "foo" suggests nothing).
 */
const char *cfg_nearest_key(const char *name)
{
	const char *best = NULL, *k;
	size_t len = strlen(name);
	unsigned best_d = UINT_MAX;

	for (size_t i = 0; (k = cfg_key_name(i)); i++) {
		unsigned d = str_edit_distance(name, k);

		if (d < best_d) {
			best_d = d;
			best = k;
		}
	}
	if (best_d > 0 && best_d <= 2 && 3 * best_d <= len)
		return best;
	/* The name without its unit ("interval" for "interval-sec"): the one key it begins. */
	best = NULL;
	for (size_t i = 0; (k = cfg_key_name(i)); i++) {
		if (len == 0 || strncmp(k, name, len) != 0 || k[len] != '-')
			continue;
		if (best)
			return NULL; /* "idle-age": min or max, not ours to guess */
		best = k;
	}
	return best;
}

/* ---- cross-key checks, once every file is read ---- */

static void join_algos(const struct dev_config *d, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < d->n_algos && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? " " : "", d->algos[i]);
}

static void origin_err(struct cfg_sink *sink, const char *const *paths, struct cfg_origin o,
		       const char *key, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void origin_err(struct cfg_sink *sink, const char *const *paths, struct cfg_origin o,
		       const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o.line)
		cfg_sink_add(sink, "%s:%u: key '%s': %s", paths[o.file], o.line, key, msg);
	else
		cfg_sink_add(sink, "%s: %s", paths[0], msg);
}

static bool origin_after(struct cfg_origin a, struct cfg_origin b)
{
	return a.file > b.file || (a.file == b.file && a.line > b.line);
}

/* Cross-key checks of one section's effective configuration. */
static void validate_effective(const struct dev_config *eff, const char *label,
			       const char *const *paths, struct cfg_sink *sink)
{
	struct cfg_origin po = eff->origin[cfg_key_index(CFG_K_PARAMS)];
	struct cfg_origin mino = eff->origin[cfg_key_index(CFG_K_AGE_MIN)];
	struct cfg_origin maxo = eff->origin[cfg_key_index(CFG_K_AGE_MAX)];
	char list[CFG_MAX_ALGOS * CFG_ALGO_NAME_MAX];

	join_algos(eff, list, sizeof(list));
	if (eff->algos_auto && eff->n_params > 0) {
		struct cfg_origin ao = eff->origin[cfg_key_index(CFG_K_ALGOS)];
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
		char min[UNITS_FMT_LEN], max[UNITS_FMT_LEN];

		origin_err(sink, paths, min_last ? mino : maxo,
			   min_last ? "idle-age-min-sec" : "idle-age-max-sec",
			   "idle-age-min-sec (%s) is greater than idle-age-max-sec (%s) in [%s]",
			   cfg_shown(min, sizeof(min), eff, CFG_K_AGE_MIN, eff->idle_age_min_sec,
				     UNIT_SEC),
			   cfg_shown(max, sizeof(max), eff, CFG_K_AGE_MAX, eff->idle_age_max_sec,
				     UNIT_SEC),
			   label);
	}
}

/* One backing device per zram device: a file, or a block device, never both. */
static void validate_backing(const struct config *c, const struct dev_section *s,
			     const char *const *paths, struct cfg_sink *sink)
{
	struct dev_config eff;
	struct cfg_origin fo, bo;
	bool file_last;

	if (!(s->cfg.set & (CFG_K_BACKING_FILE | CFG_K_BACKING_DEV)))
		return;
	config_effective(c, s->id, &eff);
	if (!eff.backing_file[0] || !eff.backing_device[0])
		return;
	fo = eff.origin[cfg_key_index(CFG_K_BACKING_FILE)];
	bo = eff.origin[cfg_key_index(CFG_K_BACKING_DEV)];
	/* [global]'s backing-device has no origin in the section: the file's line is named */
	file_last = !(s->cfg.set & CFG_K_BACKING_DEV) || origin_after(fo, bo);
	origin_err(sink, paths, file_last ? fo : bo, file_last ? "backing-file" : "backing-device",
		   "backing-file and backing-device cannot both be set for zram%u (one backing "
		   "device each; an empty backing-device = in [zram%u] drops [global]'s)",
		   s->id, s->id);
}

void cfg_validate(struct config *c, const char *const *paths, struct cfg_sink *sink)
{
	validate_effective(&c->global, "global", paths, sink);
	cfg_resolve_params(&c->global);
	for (unsigned i = 0; i < c->n_sections; i++) {
		struct dev_section *s = &c->sections[i];
		struct dev_config eff;
		char label[24];

		validate_backing(c, s, paths, sink);
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
