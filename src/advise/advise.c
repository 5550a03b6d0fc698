// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram-recompd advise: predicts what recompression would save (see include/advise.h).
 *
 * Pipeline: pages (sampled from /dev/zramN, or from a page file) -> every spec compresses
 * every non-same page (sizes kept per page) -> for each candidate and chain, zram's
 * per-slot decision picks the stored size -> the zsmalloc model gives pool memory after
 * compaction. Sampled figures are scaled to the pages they represent. This file runs those
 * steps (include/advise_internal.h says where each lives) and keeps the result as advice.
 */
#include "advise_internal.h"

#include "advice_store.h"
#include "log.h"
#include "state.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The configuration default of recompress-algorithms. */
#define ADV_DEFAULT_CHAIN "zstd"
#define ADV_FILE_DEFAULT_PRIMARY "lzo-rle" /* the kernel's CONFIG_ZRAM_DEF_COMP default */

/* One advisor run: the engine filled and the report computed. */
struct adv_run {
	struct adv_opts eff;
	struct adv_source src;
	struct adv_rng rng;
	struct adv_engine *e;
	struct adv_report *rp;
	struct adv_dict_report *dr; /* --dict */
};

static void rng_seed(struct adv_rng *g, const struct adv_opts *o)
{
	uint64_t s;

	if (o->seed_set)
		s = o->seed;
	else if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = now_monotonic_ns();
	g->state = s;
}

/* Deduplicated spec table: [0] primary, then candidates and chain. */
static void add_spec(struct adv_spec *specs, unsigned *n, const struct adv_spec *s, unsigned *ret)
{
	for (unsigned i = 0; i < *n; i++) {
		if (adv_spec_equal(&specs[i], s)) {
			*ret = i;
			return;
		}
	}
	/* 1 + ADV_MAX_CANDIDATES + ADV_MAX_CHAIN <= ADV_MAX_SPECS: always room. */
	specs[*n] = *s;
	*ret = (*n)++;
}

static void build_specs(const struct adv_opts *o, struct adv_spec *specs, unsigned *nspecs,
			struct adv_report *rp)
{
	unsigned idx;

	*nspecs = 0;
	add_spec(specs, nspecs, &o->primary, &idx);
	rp->ncand = o->ncand;
	for (unsigned i = 0; i < o->ncand; i++)
		add_spec(specs, nspecs, &o->cand[i], &rp->cand_spec[i]);
	rp->chain.n = o->nchain;
	for (unsigned i = 0; i < o->nchain; i++)
		add_spec(specs, nspecs, &o->chain[i], &rp->chain.spec[i]);
}

static void run_free(struct adv_run *run)
{
	if (run->e) {
		adv_engine_free(run->e);
		free(run->e);
	}
	free(run->rp);
	if (run->dr)
		adv_dict_report_free(run->dr);
	free(run->dr);
	run->e = NULL;
	run->rp = NULL;
	run->dr = NULL;
}

/* --dict: the engine keeps the sampled pages to train on. 0 or the exit code (logged). */
static int dict_keep(const struct adv_opts *o, struct adv_run *run)
{
	size_t n = adv_dict_keep_pages(&run->eff, run->src.page_size);
	int r;

	if (!o->dict.on)
		return 0;
	if (n == 0) {
		log_error("advise: --dict: a sample of %" PRIu64 " pages of %u bytes is more than "
			  "%u MiB; use fewer --samples",
			  o->samples_set ? o->samples : ADV_DEFAULT_DEVICE_SAMPLES,
			  run->src.page_size, ADV_DICT_SAMPLE_BYTES_MAX >> 20);
		return 2;
	}
	run->dr = calloc(1, sizeof(*run->dr));
	r = run->dr ? adv_engine_keep(run->e, n) : -ENOMEM;
	if (r < 0) {
		log_error("advise: --dict: cannot keep %zu sample pages: %s", n, strerror(-r));
		return 1;
	}
	return 0;
}

/* The report and the engine with its compressors for run->eff. */
static int run_engine(const struct adv_opts *o, struct adv_run *run)
{
	struct adv_spec specs[ADV_MAX_SPECS];
	unsigned nspecs = 0;
	int r;

	run->rp = calloc(1, sizeof(*run->rp));
	run->e = calloc(1, sizeof(*run->e));
	if (!run->rp || !run->e) {
		run->src.err = -ENOMEM;
		adv_error(o, "advise: out of memory");
		return 1;
	}
	build_specs(&run->eff, specs, &nspecs, run->rp);
	r = adv_engine_init(run->e, zs_model_default(run->src.page_size), specs, nspecs,
			    o->threads);
	if (r < 0) {
		free(run->e);
		run->e = NULL;
		run->src.err = r;
		adv_error(o, "advise: cannot set up the compressors: %s", strerror(-r));
		return 1;
	}
	return 0;
}

/* Every candidate and the chain evaluated, then the recommendation. */
static void run_report(const struct adv_engine *e, unsigned threshold, const struct adv_source *src,
		       struct adv_report *rp)
{
	rp->scale = e->npages ? (double)src->represented / (double)e->npages : 1.0;
	adv_evaluate(e, NULL, 0, 0, rp->scale, &rp->primary);
	for (unsigned i = 0; i < rp->ncand; i++)
		adv_evaluate(e, &rp->cand_spec[i], 1, threshold, rp->scale, &rp->cand[i]);
	adv_evaluate(e, rp->chain.spec, rp->chain.n, threshold, rp->scale, &rp->chain.ev);
	if (e->npages == 0)
		snprintf(rp->reason, sizeof(rp->reason),
			 "nothing to recompress: every page is same-filled");
	else
		adv_recommend(e, threshold, rp);
}

/* Returns 0 or an exit code (logged unless o->quiet; run->src.err holds -errno). */
static int advise_run(const struct adv_opts *o, int root_fd, struct adv_run *run)
{
	struct adv_dev_info di = {0};
	int rc;

	memset(run, 0, sizeof(*run));
	rng_seed(&run->rng, o);
	run->eff = *o;
	if (!o->chain_set) {
		run->eff.nchain = 1;
		(void)comp_parse_spec(ADV_DEFAULT_CHAIN, &run->eff.chain[0].algo,
				      &run->eff.chain[0].level);
	}
	if (!o->primary_set)
		(void)comp_parse_spec(ADV_FILE_DEFAULT_PRIMARY, &run->eff.primary.algo,
				      &run->eff.primary.level);
	run->src.page_size = o->page_size;
	if (o->device) {
		rc = adv_device_config(o, root_fd, &run->eff, &run->src, &di);
		if (rc)
			return rc;
		if (adv_check_threshold(o, run->src.page_size) < 0) {
			run->src.err = -EINVAL;
			return 2;
		}
	}
	rc = run_engine(o, run);
	if (rc == 0)
		rc = dict_keep(o, run);
	if (rc)
		return rc;
	rc = o->device ? adv_device_sample(o, root_fd, &run->rng, &di, run->e, &run->src)
		       : adv_read_file(o, &run->rng, run->e, &run->src);
	if (rc)
		return rc;
	run_report(run->e, o->threshold, &run->src, run->rp);
	if (!run->dr)
		return 0;
	run->rp->dict = run->dr;
	return adv_dict_predict(&run->eff, &run->rng, run->e, &run->src, run->dr);
}

/* The recommendation as stored advice; -ENODATA when there is none (no page compressed). */
static int run_to_advice(const struct adv_run *run, struct advice_entry *ret)
{
	const struct adv_engine *e = run->e;
	const struct adv_report *rp = run->rp;
	int64_t save;

	memset(ret, 0, sizeof(*ret));
	if (!e || !rp || e->npages == 0 || rp->best.n == 0)
		return -ENODATA;
	if (str_printf(ret->name, sizeof(ret->name), "%s", run->src.name) < 0)
		return -EINVAL; /* not a device name: advice is per device */
	ret->time = (uint64_t)time(NULL);
	snprintf(ret->primary, sizeof(ret->primary), "%s", comp_algo_name(e->spec[0].algo));
	ret->n = rp->best.n;
	for (unsigned i = 0; i < rp->best.n; i++) {
		const struct adv_spec *sp = &e->spec[rp->best.spec[i]];
		int eff = comp_effective_level(sp->algo, sp->level);

		snprintf(ret->algo[i], sizeof(ret->algo[i]), "%s", comp_algo_name(sp->algo));
		/* Like the config lines advise prints: a level only when it is not the default. */
		if (comp_algo_has_level(sp->algo) && eff != comp_default_level(sp->algo)) {
			ret->has_level[i] = true;
			ret->level[i] = eff;
		}
	}
	ret->pays = rp->pays;
	ret->pool = rp->primary.mem_bytes;
	save = adv_saving(&rp->primary, &rp->best.ev);
	ret->saving = save > 0 ? (uint64_t)save : 0;
	ret->samples = run->src.sampled;
	return 0;
}

/* The daemon's state directory (state.h), created when missing. */
static int open_state_dir(const char **ret_path)
{
	static char dir[STATE_DIR_MAX];
	int r = state_dir_path(dir, sizeof(dir));

	*ret_path = dir;
	return r < 0 ? r : state_dir_open(dir, true);
}

static int save_advice(const struct adv_run *run)
{
	struct advice_entry a;
	const char *dir = NULL;
	char chain[128];
	int fd, r;

	r = run_to_advice(run, &a);
	if (r < 0) {
		log_error("advise: --save: no recommendation to store (%s)", run->rp->reason);
		return 1;
	}
	fd = open_state_dir(&dir);
	if (fd < 0) {
		log_error("advise: --save: state directory %s: %s", dir, strerror(-fd));
		return 1;
	}
	r = advice_update(fd, &a);
	close(fd);
	if (r < 0) {
		log_error("advise: --save: %s/%s: %s", dir, ADVICE_FILE, strerror(-r));
		return 1;
	}
	(void)advice_format_chain(&a, chain, sizeof(chain));
	/* stderr: stdout stays the report (and valid JSON with --json). */
	log_info("advise: saved %s for %s (primary %s) to %s/%s; recompress-algorithms = auto "
		 "applies it when the device is next set up",
		 chain, a.name, a.primary, dir, ADVICE_FILE);
	return 0;
}

int advise_main(int argc, char **argv, int root_fd)
{
	struct adv_run run;
	struct adv_opts o;
	int rc;

	rc = adv_parse_opts(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	rc = advise_run(&o, root_fd, &run);
	if (rc == 0) {
		if (o.json)
			adv_print_json(run.e, &run.src, &o, run.rp);
		else
			adv_print_text(run.e, &run.src, &o, run.rp);
		fflush(stdout);
		if (o.save)
			rc = save_advice(&run);
	}
	run_free(&run);
	return rc;
}

int advise_device(int root_fd, unsigned id, uint64_t samples, unsigned threads,
		  struct advice_entry *ret)
{
	struct adv_opts o;
	struct adv_run run;
	char name[16];
	int rc, r;

	memset(&o, 0, sizeof(o));
	if (str_printf(name, sizeof(name), "zram%u", id) < 0)
		return -EINVAL;
	o.device = name;
	o.quiet = true;
	o.samples = samples;
	o.samples_set = true;
	o.threads = threads;
	o.primary.level = COMP_LEVEL_DEFAULT;
	/* The recommendation does not depend on the device's own chain: do not read it. */
	o.chain_set = true;
	o.nchain = 1;
	(void)comp_parse_spec(ADV_DEFAULT_CHAIN, &o.chain[0].algo, &o.chain[0].level);
	if (adv_parse_spec_list("--candidates", ADV_DEFAULT_CANDIDATES, o.cand, ADV_MAX_CANDIDATES,
				&o.ncand) < 0)
		return -EINVAL;
	rc = advise_run(&o, root_fd, &run);
	if (rc)
		r = run.src.err < 0 ? run.src.err : -EIO;
	else
		r = run_to_advice(&run, ret);
	run_free(&run);
	return r;
}

int advise_refresh(int root_fd, int dir_fd, const struct zram_dev *d, const struct dev_config *cfg,
		   uint64_t now, struct advice_entry *ret)
{
	struct advice_set set;
	uint64_t compressed;
	bool due;
	int r;

	if (dir_fd < 0)
		return -EBADF;
	r = advice_load(&set, dir_fd);
	/* Unreadable or corrupt advice is as good as none: replace it. */
	due = advice_due(cfg, r == 0 ? advice_find(&set, d->name) : NULL, zram_primary(d), now);
	advice_free(&set);
	if (!due)
		return 0;
	/* A sample of a nearly empty device (just after boot) would be a poor basis. */
	compressed = d->page_size ? sat_sub_u64(d->mm.v[MM_ORIG_DATA_SIZE] / d->page_size,
						d->mm.v[MM_SAME_PAGES])
				  : 0;
	if (!d->initialized || compressed < cfg->advise_samples)
		return -EAGAIN;
	r = advise_device(root_fd, d->id, cfg->advise_samples, 1, ret);
	if (r == 0)
		r = advice_update(dir_fd, ret);
	return r < 0 ? r : 1;
}
