// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The secondary algorithms and their levels, written before disksize (see include/pass.h,
 * pass_configure_algorithms): once a device is set up its list is fixed, so on an
 * initialized device this only compares and warns.
 */
#include "pass.h"

#include "config_check.h"
#include "dict_apply.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <string.h>

/* The names this kernel offers (comp_algorithm), "lzo-rle lzo lz4" ("?" when unread). */
static const char *offered(const struct zram_dev *d, char *buf, size_t size)
{
	size_t o = 0;

	(void)snprintf(buf, size, "?");
	for (unsigned i = 0; i < d->comp.n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? " " : "", d->comp.name[i]);
	return buf;
}

/*
 * Every command is built (and so validated) and every level checked before the first
 * write: names can only be removed by a reset, so a list that fails half way would leave
 * the device half-configured, and 7.3 rejects a bad level only at disksize, which then
 * resets every algorithm of the device.
 */
static int algorithms_validate(const struct zram_dev *d, const struct dev_config *cfg,
			       char cmds[CFG_MAX_ALGOS][128])
{
	char avail[ZRAM_MAX_AVAIL * (ZRAM_ALGO_MAX + 1)];

	for (unsigned i = 0; i < cfg->n_algos; i++) {
		int lo, hi, r = zram_build_recomp_algorithm(d, cfg->algos[i], i + 1, cmds[i], 128);

		if (r == -ENOENT) {
			log_error(
				"%s: recomp_algorithm: '%s' is not a compressor this kernel offers "
				"(comp_algorithm: %s); nothing written",
				d->name, cfg->algos[i], offered(d, avail, sizeof(avail)));
			return -EINVAL;
		}
		if (r < 0) {
			log_error(
				"%s: recomp_algorithm: cannot build command for '%s': %s; nothing "
				"written",
				d->name, cfg->algos[i], strerror(-r));
			return r;
		}
		if (!cfg->has_level[i])
			continue;
		r = zram_level_range(cfg->algos[i], &lo, &hi);
		if (r == -EOPNOTSUPP) {
			log_error("%s: algorithm_params: %s has no compression levels (7.3+ fails "
				  "disksize with EOPNOTSUPP); nothing written",
				  d->name, cfg->algos[i]);
			return -EINVAL;
		}
		if (r == 0 && (cfg->level[i] < lo || cfg->level[i] > hi)) {
			log_error(
				"%s: algorithm_params: level %d is out of range for %s (%d to %d; "
				"7.3+ fails disksize with EINVAL); nothing written",
				d->name, cfg->level[i], cfg->algos[i], lo, hi);
			return -EINVAL;
		}
	}
	return 0;
}

int pass_validate_algorithms(const struct zram_dev *d, const struct dev_config *cfg)
{
	char cmds[CFG_MAX_ALGOS][128];

	return algorithms_validate(d, cfg, cmds);
}

/*
 * The priorities (bit p) that get device d's dictionary, found and checked into f. Any
 * problem is said once and means no dictionary: swap setup never fails because of one.
 */
static unsigned dict_prepare(const struct pass_ctx *ctx, const struct zram_dev *d,
			     const struct dev_config *cfg, struct dict_found *f)
{
	char why[384], note[384];
	unsigned mask;
	int r;

	if (!ctx->apply_dict || cfg->dict_use == DICT_USE_NO)
		return 0;
	if (!d->caps.algorithm_params) {
		log_warning("%s: zstd-dictionary: algorithm_params needs Linux 6.12; configured "
			    "without a dictionary",
			    d->name);
		return 0;
	}
	r = dict_find(d->name, f, why, sizeof(why));
	if (r == -ENOENT) {
		log_notice("%s: zstd-dictionary: no %s%s in %s or the credentials directory; "
			   "configured without a dictionary",
			   d->name, d->name, DICT_EXT, dict_dir_path());
		return 0;
	}
	if (r < 0) {
		log_error("%s: zstd-dictionary: %s; configured without the dictionary", d->name,
			  why);
		return 0;
	}
	mask = dict_apply_mask(cfg, &f->pred, note, sizeof(note));
	if (note[0])
		log_notice("%s: zstd-dictionary %s: %s", d->name, f->path, note);
	return mask;
}

/* One priority's algorithm_params; with the dictionary first when asked, then without. */
static int write_params(const struct pass_ctx *ctx, const struct zram_dev *d,
			const struct dev_config *cfg, unsigned i, const char *dict)
{
	bool lvl = cfg->has_level[i];
	char cmd[128 + ZRAM_DICT_PATH_MAX];
	int r;

	if (dict) {
		r = zram_build_algorithm_params_dict(d, i + 1, lvl, cfg->level[i], dict, cmd,
						     sizeof(cmd));
		if (r == 0)
			r = pass_write(ctx, d, "algorithm_params", cmd, NULL, NULL);
		if (r == 0)
			return 1;
		/* set up by another tool meanwhile, or gone: the device's, not the file's */
		if (r == -EBUSY || r == -ENODEV)
			return pass_log_setup_error(ctx, d, "algorithm_params", cmd, r);
		/* the kernel reads the file now: -EINVAL (7.3: also -ENOENT ...) when it cannot
		 * (7.1+: the priority's parameters are reset by then); the level goes in again */
		log_error("%s: algorithm_params: dictionary %s at priority %u: %s; configured "
			  "without the dictionary",
			  d->name, dict, i + 1, strerror(-r));
	}
	if (!lvl)
		return 0;
	r = zram_build_algorithm_params(d, i + 1, cfg->level[i], cmd, sizeof(cmd));
	if (r == -EOPNOTSUPP) {
		log_warning("%s: algorithm_params needs Linux 6.12; level for %s ignored", d->name,
			    cfg->algos[i]);
		return 0;
	}
	if (r == 0)
		r = pass_write(ctx, d, "algorithm_params", cmd, NULL, NULL);
	if (r < 0)
		return pass_log_setup_error(ctx, d, "algorithm_params", cmd, r);
	return 0;
}

/* What status shows; a failure to record is no reason to fail the setup. */
static void dict_record(const struct pass_ctx *ctx, const struct zram_dev *d,
			const struct dev_config *cfg, const struct dict_found *f, unsigned applied)
{
	int r;

	if (ctx->dry_run || !ctx->apply_dict || cfg->dict_use == DICT_USE_NO)
		return;
	r = applied ? dict_record_write(d->name, f, applied) : dict_record_remove(d->name);
	if (r < 0)
		log_warning("%s: zstd-dictionary: cannot %s %s/%s%s: %s", d->name,
			    applied ? "write" : "remove", dict_dir_path(), d->name,
			    DICT_APPLIED_EXT, strerror(-r));
	else if (applied)
		log_info("%s: zstd dictionary %s (%llu bytes, id %u) at priority%s%s%s", d->name,
			 f->path, (unsigned long long)f->size, f->id, applied & 2 ? " 1" : "",
			 applied & 4 ? " 2" : "", applied & 8 ? " 3" : "");
}

/*
 * The levels (and dictionaries), per priority, after every algorithm (7.3+: an algorithm
 * write resets them; each write carries the priority's whole parameter set).
 */
static int write_levels(const struct pass_ctx *ctx, const struct zram_dev *d,
			const struct dev_config *cfg)
{
	struct dict_found f;
	unsigned mask = dict_prepare(ctx, d, cfg, &f), applied = 0;
	int r;

	for (unsigned i = 0; i < cfg->n_algos; i++) {
		bool want = mask & (1u << (i + 1));

		if (!cfg->has_level[i] && !want)
			continue;
		r = write_params(ctx, d, cfg, i, want ? f.path : NULL);
		if (r < 0)
			return r;
		if (r > 0)
			applied |= 1u << (i + 1);
	}
	dict_record(ctx, d, cfg, &f, applied);
	return 0;
}

int pass_configure_algorithms(const struct pass_ctx *ctx, struct zram_dev *d,
			      const struct dev_config *cfg, struct device_report *rep)
{
	char cmds[CFG_MAX_ALGOS][128], note[512];
	int r;

	if (!d->caps.multi_comp)
		return 0; /* no recomp_algorithm: said with its fix by the caller (reach_log) */
	if (d->initialized) {
		/* The list is fixed once disksize is set (-EBUSY); use what the kernel has.
		 * None at all is said with its fix by the caller (reach_log). */
		if (config_algos_note(cfg, d->name, &d->recomp, &d->comp, note, sizeof(note)))
			log_warning("%s: %s", d->name, note);
		/* A priority above them would quietly become "every secondary" (policy.c). */
		if (d->recomp.count && config_priority_note(cfg, d->recomp.count, d->caps.priority,
							    note, sizeof(note)))
			log_warning("%s: %s", d->name, note);
		return 0;
	}
	if (cfg->n_algos == 0)
		return 0;
	for (unsigned i = 0; i < cfg->n_algos; i++)
		if (strcmp(cfg->algos[i], zram_primary(d)) == 0)
			log_warning("%s: secondary algorithm %s is the primary too: recompressing "
				    "with it cannot win unless its level differs",
				    d->name, cfg->algos[i]);
	r = algorithms_validate(d, cfg, cmds);
	if (r < 0)
		return r;
	/* Contiguous from priority 1: with a gap 6.15+ mark every scanned slot incompressible
	 * (prio_max counts names). Order valid 6.12 to 7.3: every algorithm, then levels. */
	for (unsigned i = 0; i < cfg->n_algos; i++) {
		r = pass_write(ctx, d, "recomp_algorithm", cmds[i], NULL, NULL);
		if (r < 0)
			return pass_log_setup_error(ctx, d, "recomp_algorithm", cmds[i], r);
		if (!ctx->dry_run) {
			memcpy(d->recomp.name[i + 1], cfg->algos[i], ZRAM_ALGO_MAX);
			d->recomp.count += !d->recomp.set[i + 1];
			d->recomp.set[i + 1] = true;
			if (d->recomp.highest < i + 1)
				d->recomp.highest = i + 1;
		}
	}
	if (d->recomp.highest > cfg->n_algos)
		log_warning("%s: recomp_algorithm keeps priorities above %u from earlier writes "
			    "(only a reset removes them)",
			    d->name, cfg->n_algos);
	r = write_levels(ctx, d, cfg);
	if (r == 0)
		rep->algorithms_written = true;
	return r;
}
