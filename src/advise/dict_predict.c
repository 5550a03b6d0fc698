// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `advise --dict` (include/advise_internal.h): the non-same pages of advise's sample are
 * split at random into a training part (at most half of them, and the dict.h bounds) and a
 * held-out part. The dictionary is trained on the first; a second engine compresses only
 * the held-out pages with the configured primary and chain, each zstd priority once
 * without and once with the dictionary, and the pool is predicted for the chain without a
 * dictionary and with it at each zstd priority (and at all of them). A page the dictionary
 * was trained on is never used to judge it: it would compress better than pages the
 * dictionary has not seen.
 */
#include "advise_internal.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

size_t adv_dict_keep_pages(const struct adv_opts *eff, uint32_t page_size)
{
	uint64_t n = eff->samples_set ? eff->samples : ADV_DEFAULT_DEVICE_SAMPLES;

	if (!eff->dict.on || n == 0 || page_size == 0 ||
	    n > ADV_DICT_SAMPLE_BYTES_MAX / page_size)
		return 0;
	return (size_t)n;
}

static uint64_t rng_below(void *arg, uint64_t k)
{
	return adv_rng_below(arg, k);
}

/* The priorities: the primary, then the chain. */
static void set_prios(const struct adv_opts *eff, const struct adv_engine *e,
		      struct adv_dict_report *dr)
{
	dr->nprio = 1 + eff->nchain;
	dr->prio[0] = eff->primary;
	for (unsigned i = 0; i < eff->nchain; i++)
		dr->prio[i + 1] = eff->chain[i];
	for (unsigned p = 0; p < dr->nprio; p++) {
		dr->prio[p].dict = false;
		if (dr->prio[p].algo == COMP_ZSTD && dr->d.size)
			dr->kernel_bytes[p] = dict_kernel_bytes(
				dr->d.size, comp_effective_level(COMP_ZSTD, dr->prio[p].level),
				e->page_size);
	}
}

static bool any_zstd(const struct adv_opts *eff)
{
	bool z = eff->primary.algo == COMP_ZSTD;

	for (unsigned i = 0; i < eff->nchain; i++)
		z = z || eff->chain[i].algo == COMP_ZSTD;
	return z;
}

/* Index of s in specs[0..*n), added when missing. */
static unsigned spec_index(struct adv_spec *specs, unsigned *n, const struct adv_spec *s)
{
	for (unsigned i = 0; i < *n; i++)
		if (adv_spec_equal(&specs[i], s))
			return i;
	specs[*n] = *s;
	return (*n)++;
}

/* Every variant: the chain with the dictionary at one zstd priority, then at all of them. */
static void set_variants(struct adv_dict_report *dr)
{
	unsigned all = 0;

	dr->nvar = 0;
	for (unsigned p = 0; p < dr->nprio; p++) {
		if (dr->prio[p].algo != COMP_ZSTD)
			continue;
		dr->var[dr->nvar++].mask = 1u << p;
		all |= 1u << p;
	}
	if (dr->nvar > 1)
		dr->var[dr->nvar++].mask = all;
	for (unsigned i = 0; i < dr->nvar; i++)
		for (unsigned p = 0; p < dr->nprio; p++)
			if (dr->var[i].mask & (1u << p))
				dr->var[i].kernel_bytes += dr->kernel_bytes[p];
}

struct held_engine {
	struct adv_engine e;
	unsigned plain[DICT_MAX_PRIO], with[DICT_MAX_PRIO]; /* spec index per priority */
};

/* The held-out pages compressed with every priority, with and without the dictionary. */
static int held_run(const struct adv_opts *eff, const struct adv_engine *e, const size_t *idx,
		    size_t t, struct adv_dict_report *dr, struct held_engine *h)
{
	struct adv_spec specs[ADV_MAX_SPECS];
	unsigned n = 0;
	int r;

	for (unsigned p = 0; p < dr->nprio; p++) {
		struct adv_spec s = dr->prio[p];

		h->plain[p] = spec_index(specs, &n, &s);
		s.dict = s.algo == COMP_ZSTD;
		h->with[p] = spec_index(specs, &n, &s);
	}
	r = adv_engine_init_dict(&h->e, e->zs, specs, n, eff->threads, dr->d.buf, dr->d.size);
	for (size_t i = t; r == 0 && i < e->nkeep; i++)
		r = adv_engine_add_page(&h->e, e->keep + idx[i] * e->page_size);
	if (r == 0)
		r = adv_engine_flush(&h->e);
	return r;
}

static void held_evaluate(const struct adv_opts *eff, const struct held_engine *h,
			  struct adv_dict_report *dr)
{
	unsigned chain[ADV_MAX_CHAIN];

	for (unsigned p = 1; p < dr->nprio; p++)
		chain[p - 1] = h->plain[p];
	adv_evaluate_with(&h->e, h->plain[0], chain, dr->nprio - 1, eff->threshold, dr->scale,
			  &dr->without);
	for (unsigned i = 0; i < dr->nvar; i++) {
		unsigned m = dr->var[i].mask;
		unsigned prim = m & 1u ? h->with[0] : h->plain[0];

		for (unsigned p = 1; p < dr->nprio; p++)
			chain[p - 1] = m & (1u << p) ? h->with[p] : h->plain[p];
		adv_evaluate_with(&h->e, prim, chain, dr->nprio - 1, eff->threshold, dr->scale,
				  &dr->var_ev[i]);
		dr->var[i].mem_bytes = dr->var_ev[i].mem_bytes;
		dr->var[i].compr_bytes = dr->var_ev[i].compr_bytes;
	}
	dict_decide(dr->var, dr->nvar, dr->without.mem_bytes, dr->threshold_pct, &dr->dec);
}

/* Train on idx[0..t); 0, 1 after logging, or -ENODATA (dr->why set). */
static int train(const struct adv_engine *e, const size_t *idx, size_t t,
		 struct adv_dict_report *dr)
{
	int r = dict_train(e->keep, idx, t, e->page_size, dr->bounds.dict_size, &dr->d);

	if (r == -ENODATA) {
		snprintf(dr->why, sizeof(dr->why),
			 "ZDICT could not build a dictionary from %zu training pages", t);
		return r;
	}
	if (r < 0) {
		log_error("advise: --dict: training failed: %s", strerror(-r));
		return 1;
	}
	return 0;
}

static int write_out(const struct adv_opts *eff, struct adv_dict_report *dr)
{
	int r;

	if (eff->dict.install && adv_dict_install(eff->dict.install, dr))
		return 1;
	if (!eff->dict.out)
		return 0;
	r = dict_write_file(eff->dict.out, &dr->d);
	if (r < 0) {
		log_error("advise: --dict-out '%s': %s", eff->dict.out, strerror(-r));
		return 1;
	}
	dr->written = eff->dict.out;
	return 0;
}

/* Train, predict, decide: dr->bounds and threshold_pct set; 0 or 1 after logging. */
static int dict_run(const struct adv_opts *eff, struct adv_rng *rng, const struct adv_engine *e,
		    const struct adv_source *src, struct adv_dict_report *dr)
{
	struct held_engine *h = NULL;
	size_t *idx = NULL, t;
	int rc = 1, r;

	t = dict_train_count(dr->sampled, e->page_size, &dr->bounds);
	if (t == 0) {
		snprintf(dr->why, sizeof(dr->why),
			 "%zu sampled pages are too few to train on and predict (want %u + %u)",
			 dr->sampled, DICT_TRAIN_PAGES_MIN, DICT_HELDOUT_MIN);
		return 0;
	}
	idx = calloc(dr->sampled, sizeof(*idx));
	h = calloc(1, sizeof(*h));
	if (!idx || !h) {
		log_error("advise: --dict: out of memory");
		goto out;
	}
	for (size_t i = 0; i < dr->sampled; i++)
		idx[i] = i;
	dict_split(idx, dr->sampled, t, rng_below, rng);
	r = train(e, idx, t, dr);
	if (r) {
		rc = r == -ENODATA ? 0 : r;
		goto out;
	}
	set_prios(eff, e, dr);
	set_variants(dr);
	r = held_run(eff, e, idx, t, dr, h);
	if (r < 0) {
		log_error("advise: --dict: %s", adv_engine_strerror(r));
		goto out;
	}
	dr->heldout = h->e.npages;
	dr->scale = dr->heldout ? (double)src->represented / (double)dr->heldout : 1.0;
	dr->represented_bytes = sat_mul_u64(src->represented, e->page_size);
	held_evaluate(eff, h, dr);
	dr->trained = true;
	rc = write_out(eff, dr);
out:
	if (h)
		adv_engine_free(&h->e);
	free(h);
	free(idx);
	return rc;
}

int adv_dict_predict(const struct adv_opts *eff, struct adv_rng *rng, const struct adv_engine *e,
		     const struct adv_source *src, struct adv_dict_report *dr)
{
	memset(dr, 0, sizeof(*dr));
	dr->bounds.dict_size = eff->dict.size ? eff->dict.size : dict_default_size(e->page_size);
	dr->bounds.max_pages = eff->dict.train_pages ? eff->dict.train_pages
						     : DICT_TRAIN_PAGES_DEFAULT;
	dr->bounds.max_bytes = eff->dict.train_bytes ? eff->dict.train_bytes
						     : DICT_TRAIN_BYTES_DEFAULT;
	dr->threshold_pct = eff->dict.threshold;
	dr->sampled = e->nkeep;
	set_prios(eff, e, dr);
	if (!any_zstd(eff)) {
		snprintf(dr->why, sizeof(dr->why),
			 "no zstd priority in the chain: only zstd's dictionaries are modelled");
		return 0;
	}
	return dict_run(eff, rng, e, src, dr);
}

void adv_dict_report_free(struct adv_dict_report *dr)
{
	dict_trained_free(&dr->d);
}
