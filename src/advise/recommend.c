// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The advisor's recommendation (include/advise_internal.h): from the evaluated candidates,
 * the chain of secondaries that saves most pool memory (fewer algorithms and less CPU break
 * ties), whether that pays at all, a cheaper chain worth naming, and a threshold that keeps
 * most of the saving for clearly less CPU. Pure: no I/O.
 */
#include "advise_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define ADV_PAY_FRACTION 0.02	/* a saving below 2% of the pool does not pay */
#define ADV_TIE_FRACTION 0.005	/* savings within 0.5% of the pool are equal */
#define ADV_THRESHOLD_KEEP 0.95 /* a threshold must keep 95% of the saving */
#define ADV_THRESHOLD_CPU 0.75	/* ... for at most 75% of the CPU time */

int64_t adv_saving(const struct adv_eval *base, const struct adv_eval *x)
{
	return (int64_t)base->mem_bytes - (int64_t)x->mem_bytes;
}

/* Is a better than b: more saving beyond the tie band, else fewer algorithms, less CPU. */
static bool chain_better(const struct adv_chain_eval *a, const struct adv_chain_eval *b,
			 const struct adv_eval *base, double tie)
{
	double sa = (double)adv_saving(base, &a->ev), sb = (double)adv_saving(base, &b->ev);

	if (sa > sb + tie)
		return true;
	if (sb > sa + tie)
		return false;
	if (a->n != b->n)
		return a->n < b->n;
	return a->ev.cpu_seconds < b->ev.cpu_seconds;
}

/* Every chain evaluated so far, and the best of them. */
struct chain_search {
	const struct adv_engine *e;
	const struct adv_report *rp;
	unsigned threshold;
	double tie;
	struct adv_chain_eval *all;
	unsigned nall;
	struct adv_chain_eval best;
	bool have;
};

static void try_chain(struct chain_search *cs, struct adv_chain_eval *c)
{
	adv_evaluate(cs->e, c->spec, c->n, cs->threshold, cs->rp->scale, &c->ev);
	cs->all[cs->nall++] = *c;
	if (!cs->have || chain_better(c, &cs->best, &cs->rp->primary, cs->tie)) {
		cs->best = *c;
		cs->have = true;
	}
}

/* Singles and ordered pairs of candidates; then the best pair extended by a third. */
static void search_chains(struct chain_search *cs)
{
	const struct adv_report *rp = cs->rp;
	const struct adv_eval *base = &rp->primary;
	struct adv_chain_eval c, pair_best = {0};
	unsigned nc = rp->ncand;
	bool have_pair = false;

	for (unsigned i = 0; i < nc; i++) {
		for (unsigned j = 0; j <= nc; j++) {
			if (j == i)
				continue;
			c.n = j == nc ? 1 : 2;
			c.spec[0] = rp->cand_spec[i];
			if (j < nc) {
				c.spec[1] = rp->cand_spec[j];
				if (c.spec[1] == c.spec[0])
					continue;
			}
			try_chain(cs, &c);
			if (c.n == 2 && (!have_pair || adv_saving(base, &c.ev) >
							       adv_saving(base, &pair_best.ev))) {
				pair_best = c;
				have_pair = true;
			}
		}
	}
	for (unsigned k = 0; have_pair && k < nc; k++) {
		c = pair_best;
		c.spec[2] = rp->cand_spec[k];
		if (c.spec[2] == c.spec[0] || c.spec[2] == c.spec[1])
			continue;
		c.n = 3;
		try_chain(cs, &c);
	}
}

/* A chain that keeps 85% of the saving for at most half the CPU time is worth a line. */
static void pick_alternative(const struct chain_search *cs, struct adv_report *rp)
{
	const struct adv_eval *base = &rp->primary;
	const struct adv_chain_eval *best = &cs->best;

	for (unsigned i = 0; i < cs->nall; i++) {
		const struct adv_chain_eval *a = &cs->all[i];

		if ((double)adv_saving(base, &a->ev) < 0.85 * (double)adv_saving(base, &best->ev) ||
		    a->ev.cpu_seconds > 0.5 * best->ev.cpu_seconds)
			continue;
		if (!rp->have_alt || a->ev.cpu_seconds < rp->alt.ev.cpu_seconds ||
		    (a->ev.cpu_seconds == rp->alt.ev.cpu_seconds && a->n < rp->alt.n)) {
			rp->alt = *a;
			rp->have_alt = true;
		}
	}
}

/* Does a threshold pay? Thresholds 512 to 3072 on the best chain; 1024 kept for display. */
static void search_threshold(const struct adv_engine *e, struct adv_report *rp)
{
	const struct adv_eval *base = &rp->primary;
	const struct adv_chain_eval *best = &rp->best;

	for (unsigned t = 512; t < e->zs->huge_class_size && t <= 3072; t += 512) {
		struct adv_eval ev;

		adv_evaluate(e, best->spec, best->n, t, rp->scale, &ev);
		if (t == 1024) {
			rp->probe_thr = t;
			rp->probe = ev;
		}
		/*
		 * The relative slack keeps an exact tie (e.g. 24 of 32 pages attempted with one
		 * secondary: the same per-page cost on both sides) from being decided by the
		 * rounding of measured times.
		 */
		if ((double)adv_saving(base, &ev) >=
			    ADV_THRESHOLD_KEEP * (double)adv_saving(base, &best->ev) &&
		    ev.cpu_seconds <= ADV_THRESHOLD_CPU * best->ev.cpu_seconds * (1 + 1e-9) &&
		    (!rp->threshold || ev.cpu_seconds < rp->best_thr.cpu_seconds)) {
			rp->threshold = t;
			rp->best_thr = ev;
		}
	}
}

void adv_recommend(const struct adv_engine *e, unsigned threshold, struct adv_report *rp)
{
	const struct adv_eval *base = &rp->primary;
	unsigned nc = rp->ncand;
	struct chain_search cs = {.e = e,
				  .rp = rp,
				  .threshold = threshold,
				  .tie = ADV_TIE_FRACTION * (double)base->mem_bytes};
	int64_t save;

	/* Every chain evaluated, for the cheaper alternative: nc + nc(nc-1) + nc at most. */
	cs.all = calloc(nc * (nc + 1) + nc + 1, sizeof(*cs.all));
	if (!cs.all) {
		snprintf(rp->reason, sizeof(rp->reason), "out of memory");
		return;
	}
	search_chains(&cs);
	if (!cs.have) {
		snprintf(rp->reason, sizeof(rp->reason), "no candidate to evaluate");
		free(cs.all);
		return;
	}
	rp->best = cs.best;
	pick_alternative(&cs, rp);
	free(cs.all);
	save = adv_saving(base, &rp->best.ev);
	if (e->npages == 0 || save <= 0 ||
	    (double)save < ADV_PAY_FRACTION * (double)base->mem_bytes) {
		double pct = base->mem_bytes ? 100.0 * (double)save / (double)base->mem_bytes : 0.0;

		/* a loss is said as one: never "saves -0.2%" */
		snprintf(rp->reason, sizeof(rp->reason),
			 save < 0
				 ? "recompression will not pay for this data: the best chain "
				   "takes %.1f%% more of the pool (it would have to save %.0f%%)"
				 : "recompression will not pay for this data: the best chain saves "
				   "%.1f%% of the pool (less than %.0f%%)",
			 save < 0 ? -pct : pct, ADV_PAY_FRACTION * 100);
		return;
	}
	rp->pays = true;
	snprintf(rp->reason, sizeof(rp->reason), "%s",
		 rp->best.n == 1
			 ? "the best single secondary; a second one adds less than 0.5% of the pool"
			 : "a chain beats every single secondary by more than 0.5% of the pool");
	/* Only searched when the user did not fix one. */
	if (!threshold)
		search_threshold(e, rp);
}
