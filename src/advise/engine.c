// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The advisor's engine (include/advise.h): zram's per-slot recompression decision, every
 * spec compressing every sampled page on up to ADV_MAX_THREADS threads, and the pool
 * predicted for a chain with the zsmalloc model. No I/O, no messages.
 */
#include "advise_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- decision model */

unsigned adv_stored_len(const struct zs_model *m, unsigned comp_len)
{
	return comp_len >= m->huge_class_size ? m->page_size : comp_len;
}

enum adv_outcome adv_decide(const struct zs_model *m, unsigned old_len, const unsigned *new_len,
			    unsigned n, unsigned threshold, unsigned *ret_winner)
{
	unsigned old_class, new_class = 0;

	/* "Do not recompress objects that are already small enough": no attempt at all. */
	if (threshold && old_len < threshold)
		return ADV_SKIPPED;
	old_class = zs_class_of(m, old_len)->index;
	for (unsigned i = 0; i < n; i++) {
		new_class = zs_class_of(m, new_len[i])->index;
		if (new_class >= old_class || (threshold && new_len[i] >= threshold))
			continue; /* no progress with this priority: try the next one */
		if (ret_winner)
			*ret_winner = i;
		return ADV_IMPROVED;
	}
	if (n == 0)
		return ADV_SKIPPED;
	/* 6.2-6.14 judge the last attempt: smaller class but above threshold is not 'n'. */
	return new_class >= old_class ? ADV_INCOMPRESSIBLE : ADV_THRESHOLD_MISS;
}

/* ---------------------------------------------------------------- engine */

bool adv_spec_equal(const struct adv_spec *a, const struct adv_spec *b)
{
	return a->algo == b->algo && a->dict == b->dict &&
	       comp_effective_level(a->algo, a->level) == comp_effective_level(b->algo, b->level);
}

const char *adv_engine_strerror(int r)
{
	return r == -EIO ? "a compressor mirror failed its round trip (bug)" : strerror(-r);
}

int adv_engine_find(const struct adv_engine *e, const struct adv_spec *s)
{
	for (unsigned i = 0; i < e->nspecs; i++)
		if (adv_spec_equal(&e->spec[i], s))
			return (int)i;
	return -1;
}

/* Pages per job: small enough to balance the threads, large enough to amortise the clock. */
#define ADV_CHUNK_PAGES 32u

static unsigned default_threads(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : (unsigned)n;
}

int adv_engine_init(struct adv_engine *e, const struct zs_model *zs, const struct adv_spec *specs,
		    unsigned nspecs, unsigned nthreads)
{
	return adv_engine_init_dict(e, zs, specs, nspecs, nthreads, NULL, 0);
}

/* One spec's context, with the dictionary when the spec asks for it. */
static int spec_ctx(const struct adv_engine *e, const struct adv_spec *s, struct comp_ctx **ret)
{
	int r = comp_ctx_new(s->algo, s->level, e->page_size, ret);

	if (r < 0 || !s->dict)
		return r;
	r = e->dict ? comp_ctx_set_dict(*ret, e->dict, e->dict_size) : -EINVAL;
	if (r < 0) {
		comp_ctx_free(*ret);
		*ret = NULL;
	}
	return r;
}

int adv_engine_init_dict(struct adv_engine *e, const struct zs_model *zs,
			 const struct adv_spec *specs, unsigned nspecs, unsigned nthreads,
			 const void *dict, size_t dict_size)
{
	int r;

	memset(e, 0, sizeof(*e));
	e->dict = dict;
	e->dict_size = dict_size;
	if (nspecs == 0 || nspecs > ADV_MAX_SPECS)
		return -EINVAL;
	if (nthreads == 0)
		nthreads = default_threads();
	if (nthreads > ADV_MAX_THREADS)
		nthreads = ADV_MAX_THREADS;
	if (!zs)
		return -EINVAL;
	e->zs = zs;
	e->page_size = zs->page_size;
	e->verify = true;
	e->pending = malloc((size_t)ADV_BATCH_PAGES * e->page_size);
	if (!e->pending)
		return -ENOMEM;
	for (unsigned i = 0; i < nspecs; i++) {
		e->spec[i] = specs[i];
		e->nspecs = i + 1;
		for (unsigned t = 0; t < nthreads; t++) {
			r = spec_ctx(e, &specs[i], &e->ctx[t][i]);
			if (r < 0) {
				e->nthreads = nthreads;
				adv_engine_free(e);
				return r;
			}
		}
	}
	e->nthreads = nthreads;
	return 0;
}

void adv_engine_free(struct adv_engine *e)
{
	for (unsigned t = 0; t < e->nthreads; t++)
		for (unsigned i = 0; i < e->nspecs; i++)
			comp_ctx_free(e->ctx[t][i]);
	free(e->sizes);
	free(e->pending);
	if (e->keep)
		explicit_bzero(e->keep, e->keep_cap * e->page_size); /* process memory */
	free(e->keep);
	e->sizes = NULL;
	e->pending = NULL;
	e->keep = NULL;
	e->nkeep = e->keep_cap = 0;
	e->nspecs = e->nthreads = 0;
	e->npages = e->cap = e->npending = 0;
}

int adv_engine_keep(struct adv_engine *e, size_t cap)
{
	if (e->keep || cap == 0 || cap > SIZE_MAX / e->page_size)
		return -EINVAL;
	e->keep = malloc(cap * e->page_size);
	if (!e->keep)
		return -ENOMEM;
	e->keep_cap = cap;
	e->nkeep = 0;
	return 0;
}

int adv_engine_add_page(struct adv_engine *e, const void *page)
{
	if (comp_page_same_filled(page, e->page_size)) {
		e->same_pages++;
		return 0;
	}
	if (e->nkeep < e->keep_cap)
		memcpy(e->keep + e->nkeep++ * e->page_size, page, e->page_size);
	memcpy(e->pending + e->npending * e->page_size, page, e->page_size);
	if (++e->npending < ADV_BATCH_PAGES)
		return 0;
	return adv_engine_flush(e);
}

/* One thread's share of a flush: it takes (chunk, spec) jobs until none is left. */
struct adv_worker {
	struct adv_engine *e;
	unsigned tid;
	unsigned *next; /* shared job counter */
	unsigned njobs;
	int *failed;  /* shared: first error, stops the others */
	uint8_t *out;  /* ADV_CHUNK_PAGES compressed results */
	uint8_t *back; /* one page decompressed */
	uint64_t comp_ns[ADV_MAX_SPECS];
	uint64_t decomp_ns[ADV_MAX_SPECS];
	pthread_t th;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static int run_job(struct adv_worker *w, unsigned job)
{
	struct adv_engine *e = w->e;
	unsigned s = job % e->nspecs;
	size_t first = (size_t)(job / e->nspecs) * ADV_CHUNK_PAGES;
	size_t n = e->npending - first < ADV_CHUNK_PAGES ? e->npending - first : ADV_CHUNK_PAGES;
	struct comp_ctx *c = w->e->ctx[w->tid][s];
	uint16_t *row = e->sizes + (e->npages + first) * e->nspecs;
	const size_t ps = e->page_size, dst = COMP_DST_SIZE(e->page_size);
	size_t len[ADV_CHUNK_PAGES];
	uint64_t t0, t1;
	int r;

	t0 = thread_cpu_ns();
	for (size_t i = 0; i < n; i++) {
		r = comp_compress(c, e->pending + (first + i) * ps, ps, w->out + i * dst, dst,
				  &len[i]);
		if (r < 0)
			return r;
		/* 64 KiB pages can compress to more than 16 bits; every size from
		 * huge_class_size (< PAGE_SIZE) up is stored as a page alike. */
		row[i * e->nspecs + s] = (uint16_t)(len[i] < UINT16_MAX ? len[i] : UINT16_MAX);
	}
	t1 = thread_cpu_ns();
	w->comp_ns[s] += t1 - t0;
	if (!e->verify)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t back_len;

		r = comp_decompress(c, w->out + i * dst, len[i], w->back, ps, &back_len);
		if (r < 0 || back_len != ps ||
		    memcmp(w->back, e->pending + (first + i) * ps, ps) != 0)
			return -EIO;
	}
	w->decomp_ns[s] += thread_cpu_ns() - t1;
	return 0;
}

static void *worker_run(void *arg)
{
	struct adv_worker *w = arg;

	for (;;) {
		unsigned job = __atomic_fetch_add(w->next, 1, __ATOMIC_RELAXED);
		int r;

		if (job >= w->njobs || __atomic_load_n(w->failed, __ATOMIC_RELAXED))
			break;
		r = run_job(w, job);
		if (r < 0) {
			int zero = 0;

			(void)__atomic_compare_exchange_n(w->failed, &zero, r, false,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

int adv_engine_flush(struct adv_engine *e)
{
	struct adv_worker w[ADV_MAX_THREADS];
	bool started[ADV_MAX_THREADS] = {false};
	size_t chunks = (e->npending + ADV_CHUNK_PAGES - 1) / ADV_CHUNK_PAGES;
	unsigned next = 0, nthreads = e->nthreads;
	int failed = 0;

	if (e->npending == 0)
		return 0;
	if (e->npages + e->npending > e->cap) {
		size_t ncap = e->cap ? e->cap : 1024;
		uint16_t *n;

		while (ncap < e->npages + e->npending)
			ncap *= 2;
		n = reallocarray(e->sizes, ncap * e->nspecs, sizeof(uint16_t));
		if (!n)
			return -ENOMEM;
		e->sizes = n;
		e->cap = ncap;
	}
	if (nthreads > chunks * e->nspecs)
		nthreads = (unsigned)(chunks * e->nspecs);
	memset(w, 0, sizeof(w));
	for (unsigned t = 0; t < nthreads; t++) {
		w[t] = (struct adv_worker){.e = e,
					   .tid = t,
					   .next = &next,
					   .njobs = (unsigned)(chunks * e->nspecs),
					   .failed = &failed};
		w[t].out = malloc((size_t)ADV_CHUNK_PAGES * COMP_DST_SIZE(e->page_size));
		w[t].back = malloc(e->page_size);
		if (!w[t].out || !w[t].back) {
			free(w[t].out);
			free(w[t].back);
			w[t].out = w[t].back = NULL;
			failed = -ENOMEM;
			nthreads = t;
			break;
		}
	}
	/* Thread 0 is the caller; a thread that cannot be created leaves its share to others. */
	for (unsigned t = 1; t < nthreads && !failed; t++)
		started[t] = pthread_create(&w[t].th, NULL, worker_run, &w[t]) == 0;
	if (!failed && nthreads > 0)
		(void)worker_run(&w[0]);
	for (unsigned t = 0; t < ADV_MAX_THREADS; t++) {
		if (started[t])
			(void)pthread_join(w[t].th, NULL);
		for (unsigned s = 0; s < e->nspecs; s++) {
			e->comp_ns[s] += w[t].comp_ns[s];
			e->decomp_ns[s] += w[t].decomp_ns[s];
		}
		free(w[t].out);
		free(w[t].back);
	}
	if (failed)
		return failed;
	e->npages += e->npending;
	e->npending = 0;
	return 0;
}

double adv_compress_mb_s(const struct adv_engine *e, unsigned spec)
{
	if (spec >= e->nspecs || e->comp_ns[spec] == 0)
		return 0.0;
	return (double)e->npages * e->page_size * 1e3 / (double)e->comp_ns[spec];
}

double adv_decompress_mb_s(const struct adv_engine *e, unsigned spec)
{
	if (spec >= e->nspecs || e->decomp_ns[spec] == 0)
		return 0.0;
	return (double)e->npages * e->page_size * 1e3 / (double)e->decomp_ns[spec];
}

static double avg_ns(uint64_t total, size_t n)
{
	return n ? (double)total / (double)n : 0.0;
}

static uint64_t scaled(double v, double scale)
{
	return (uint64_t)llround(v * scale);
}

void adv_evaluate(const struct adv_engine *e, const unsigned *chain, unsigned n, unsigned threshold,
		  double scale, struct adv_eval *ret)
{
	adv_evaluate_with(e, 0, chain, n, threshold, scale, ret);
}

void adv_evaluate_with(const struct adv_engine *e, unsigned primary, const unsigned *chain,
		       unsigned n, unsigned threshold, double scale, struct adv_eval *ret)
{
	const struct zs_model *m = e->zs;
	double compr = 0, huge = 0, improved = 0, incomp = 0, miss = 0, attempted = 0, cpu_ns = 0;
	double dec_ns = avg_ns(e->decomp_ns[primary], e->npages);
	struct zs_hist *h = calloc(1, sizeof(*h));
	unsigned new_len[ADV_MAX_CHAIN];

	memset(ret, 0, sizeof(*ret));
	if (!h || primary >= e->nspecs) {
		free(h);
		return; /* cannot happen in practice; all-zero figures are visibly wrong */
	}
	if (n > ADV_MAX_CHAIN)
		n = ADV_MAX_CHAIN;
	for (size_t p = 0; p < e->npages; p++) {
		const uint16_t *row = e->sizes + p * e->nspecs;
		unsigned stored = adv_stored_len(m, row[primary]);
		unsigned win = 0;
		enum adv_outcome o;

		for (unsigned i = 0; i < n; i++)
			new_len[i] = row[chain[i]];
		o = adv_decide(m, stored, new_len, n, threshold, &win);
		switch (o) {
		case ADV_IMPROVED:
			stored = new_len[win]; /* the kernel stores the new size as is */
			improved++;
			attempted++;
			cpu_ns += dec_ns;
			for (unsigned i = 0; i <= win; i++)
				cpu_ns += avg_ns(e->comp_ns[chain[i]], e->npages);
			break;
		case ADV_INCOMPRESSIBLE:
		case ADV_THRESHOLD_MISS:
			if (o == ADV_INCOMPRESSIBLE)
				incomp++;
			else
				miss++;
			attempted++;
			cpu_ns += dec_ns;
			for (unsigned i = 0; i < n; i++)
				cpu_ns += avg_ns(e->comp_ns[chain[i]], e->npages);
			break;
		case ADV_SKIPPED:
			break;
		}
		if (stored == m->page_size)
			huge++;
		compr += stored;
		h->objs[zs_class_of(m, stored)->index] += scale;
	}
	ret->compr_bytes = scaled(compr, scale);
	ret->mem_bytes = zs_pool_bytes(m, h);
	ret->huge_pages = scaled(huge, scale);
	ret->improved = scaled(improved, scale);
	ret->incompressible = scaled(incomp, scale);
	ret->threshold_miss = scaled(miss, scale);
	ret->attempted = scaled(attempted, scale);
	ret->cpu_seconds = cpu_ns * scale / 1e9;
	free(h);
}
