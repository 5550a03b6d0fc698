// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram-recompd advise: predicts what recompression would save (see include/advise.h).
 *
 * Pipeline: pages (sampled from /dev/zramN, or from a page file) -> every spec compresses
 * every non-same page (sizes kept per page) -> for each candidate and chain, zram's
 * per-slot decision picks the stored size -> the zsmalloc model gives pool memory after
 * compaction. Sampled figures are scaled to the pages they represent.
 */
#include "advise_internal.h"

#include "advice_store.h"
#include "blockstate.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* ================================================================ decision model and engine */

/* ---------------------------------------------------------------- decision model */

unsigned adv_stored_len(const struct zs_model *m, unsigned comp_len)
{
	return comp_len >= m->huge_class_size ? ZS_PAGE_SIZE : comp_len;
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
	return a->algo == b->algo &&
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
	int r;

	memset(e, 0, sizeof(*e));
	if (nspecs == 0 || nspecs > ADV_MAX_SPECS)
		return -EINVAL;
	if (nthreads == 0)
		nthreads = default_threads();
	if (nthreads > ADV_MAX_THREADS)
		nthreads = ADV_MAX_THREADS;
	e->zs = zs;
	e->verify = true;
	e->pending = malloc((size_t)ADV_BATCH_PAGES * COMP_PAGE_SIZE);
	if (!e->pending)
		return -ENOMEM;
	for (unsigned i = 0; i < nspecs; i++) {
		e->spec[i] = specs[i];
		e->nspecs = i + 1;
		for (unsigned t = 0; t < nthreads; t++) {
			r = comp_ctx_new(specs[i].algo, specs[i].level, &e->ctx[t][i]);
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
	e->sizes = NULL;
	e->pending = NULL;
	e->nspecs = e->nthreads = 0;
	e->npages = e->cap = e->npending = 0;
}

int adv_engine_add_page(struct adv_engine *e, const void *page)
{
	if (comp_page_same_filled(page)) {
		e->same_pages++;
		return 0;
	}
	memcpy(e->pending + e->npending * COMP_PAGE_SIZE, page, COMP_PAGE_SIZE);
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
	uint8_t *out; /* ADV_CHUNK_PAGES compressed results */
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
	uint8_t back[COMP_PAGE_SIZE];
	uint64_t t0, t1;
	int r;

	t0 = thread_cpu_ns();
	for (size_t i = 0; i < n; i++) {
		size_t len;

		r = comp_compress(c, e->pending + (first + i) * COMP_PAGE_SIZE, COMP_PAGE_SIZE,
				  w->out + i * COMP_DST_SIZE, COMP_DST_SIZE, &len);
		if (r < 0)
			return r;
		row[i * e->nspecs + s] = (uint16_t)len;
	}
	t1 = thread_cpu_ns();
	w->comp_ns[s] += t1 - t0;
	if (!e->verify)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t back_len;

		r = comp_decompress(c, w->out + i * COMP_DST_SIZE, row[i * e->nspecs + s], back,
				    sizeof(back), &back_len);
		if (r < 0 || back_len != COMP_PAGE_SIZE ||
		    memcmp(back, e->pending + (first + i) * COMP_PAGE_SIZE, COMP_PAGE_SIZE) != 0)
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
		w[t].out = malloc((size_t)ADV_CHUNK_PAGES * COMP_DST_SIZE);
		if (!w[t].out) {
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
	return (double)e->npages * COMP_PAGE_SIZE * 1e3 / (double)e->comp_ns[spec];
}

double adv_decompress_mb_s(const struct adv_engine *e, unsigned spec)
{
	if (spec >= e->nspecs || e->decomp_ns[spec] == 0)
		return 0.0;
	return (double)e->npages * COMP_PAGE_SIZE * 1e3 / (double)e->decomp_ns[spec];
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
	const struct zs_model *m = e->zs;
	double compr = 0, huge = 0, improved = 0, incomp = 0, miss = 0, attempted = 0, cpu_ns = 0;
	double dec_ns = avg_ns(e->decomp_ns[0], e->npages);
	struct zs_hist *h = calloc(1, sizeof(*h));
	unsigned new_len[ADV_MAX_CHAIN];

	memset(ret, 0, sizeof(*ret));
	if (!h)
		return; /* cannot happen in practice; all-zero figures are visibly wrong */
	if (n > ADV_MAX_CHAIN)
		n = ADV_MAX_CHAIN;
	for (size_t p = 0; p < e->npages; p++) {
		const uint16_t *row = e->sizes + p * e->nspecs;
		unsigned stored = adv_stored_len(m, row[0]);
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
		if (stored == ZS_PAGE_SIZE)
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

/* ================================================================ options */

void adv_usage(FILE *f)
{
	static const char *const lines[] = {
		"usage: zram-recompd advise --device zramN [--samples N] [options]",
		"       zram-recompd advise --input FILE [--samples N] [options]",
		"options: --primary ALGO[:LEVEL]  --candidates A[:L],B[:L],...  --chain A[:L],...",
		"         --threshold BYTES  --seed N  --threads N  --json  --save",
		"--save (with --device) stores the recommendation for recompress-algorithms = auto",
		"in $ZRAM_RECOMPD_STATE_DIR/advice (default /var/lib/zram-recompd).",
		"algorithms: lzo lzo-rle lz4 lz4hc zstd deflate; LEVEL is the acceleration for "
		"lz4,",
		"1-16 for lz4hc, a zstd level, -1..9 for deflate.",
		"defaults: --candidates " ADV_DEFAULT_CANDIDATES "; --samples 4096 slots of a",
		"device, every page of a file; --primary the device's comp_algorithm (lzo-rle for",
		"files); --chain the device's recomp_algorithm list (zstd when it has none);",
		"--threads one per CPU.",
		"FILE holds 4096-byte pages, plain or zstd-compressed; a partial last page is",
		"ignored with a warning.",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "%s\n", lines[i]);
}

static int parse_spec_opt(const char *what, const char *s, struct adv_spec *ret)
{
	int r = comp_parse_spec(s, &ret->algo, &ret->level);

	if (r == -ENOENT)
		log_error("advise: %s: unknown algorithm '%s' (known: lzo lzo-rle lz4 lz4hc zstd "
			  "deflate)",
			  what, s);
	else if (r < 0)
		log_error("advise: %s: invalid level in '%s'", what, s);
	return r;
}

int adv_parse_spec_list(const char *what, const char *list, struct adv_spec *out, unsigned max,
			unsigned *ret_n)
{
	char buf[256];
	char *save = NULL, *tok;
	unsigned n = 0;
	int r;

	if (strlen(list) >= sizeof(buf)) {
		log_error("advise: %s: list too long", what);
		return -E2BIG;
	}
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			log_error("advise: %s: at most %u algorithms", what, max);
			return -E2BIG;
		}
		r = parse_spec_opt(what, tok, &out[n]);
		if (r < 0)
			return r;
		n++;
	}
	if (n == 0) {
		log_error("advise: %s: empty list", what);
		return -EINVAL;
	}
	*ret_n = n;
	return 0;
}

enum {
	OPT_DEVICE = 0x100,
	OPT_INPUT,
	OPT_SAMPLES,
	OPT_PRIMARY,
	OPT_CANDIDATES,
	OPT_CHAIN,
	OPT_THRESHOLD,
	OPT_SEED,
	OPT_THREADS,
	OPT_SAVE,
	OPT_JSON,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{"device", required_argument, NULL, OPT_DEVICE},
	{"input", required_argument, NULL, OPT_INPUT},
	{"samples", required_argument, NULL, OPT_SAMPLES},
	{"primary", required_argument, NULL, OPT_PRIMARY},
	{"candidates", required_argument, NULL, OPT_CANDIDATES},
	{"chain", required_argument, NULL, OPT_CHAIN},
	{"threshold", required_argument, NULL, OPT_THRESHOLD},
	{"seed", required_argument, NULL, OPT_SEED},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"save", no_argument, NULL, OPT_SAVE},
	{"json", no_argument, NULL, OPT_JSON},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

/* One option and its value; 0, 2 after logging a usage error, or -1 for no such option. */
static int take_opt(int c, const char *arg, struct adv_opts *o)
{
	uint64_t v;
	int r;

	switch (c) {
	case OPT_DEVICE:
		o->device = arg;
		return 0;
	case OPT_INPUT:
		o->input = arg;
		return 0;
	case OPT_SAMPLES:
		if (parse_u64(arg, &v) < 0) {
			log_error("advise: --samples: not a number: '%s'", arg);
			return 2;
		}
		o->samples = v;
		o->samples_set = true;
		return 0;
	case OPT_PRIMARY:
		r = parse_spec_opt("--primary", arg, &o->primary);
		o->primary_set = true;
		return r < 0 ? 2 : 0;
	case OPT_CANDIDATES:
		r = adv_parse_spec_list("--candidates", arg, o->cand, ADV_MAX_CANDIDATES,
					&o->ncand);
		return r < 0 ? 2 : 0;
	case OPT_CHAIN:
		r = adv_parse_spec_list("--chain", arg, o->chain, ADV_MAX_CHAIN, &o->nchain);
		o->chain_set = true;
		return r < 0 ? 2 : 0;
	case OPT_THRESHOLD:
		/* The kernel refuses threshold >= huge_class_size with -EINVAL (6.5+). */
		if (parse_u64(arg, &v) < 0 || v >= zs_huge_class_size()) {
			log_error(
				"advise: --threshold: want bytes below huge_class_size (%zu): '%s'",
				zs_huge_class_size(), arg);
			return 2;
		}
		o->threshold = (unsigned)v;
		return 0;
	case OPT_SEED:
		if (parse_u64(arg, &v) < 0) {
			log_error("advise: --seed: not a number: '%s'", arg);
			return 2;
		}
		o->seed = v;
		o->seed_set = true;
		return 0;
	case OPT_THREADS:
		if (parse_u64(arg, &v) < 0 || v < 1 || v > ADV_MAX_THREADS) {
			log_error("advise: --threads: want 1 to %d: '%s'", ADV_MAX_THREADS, arg);
			return 2;
		}
		o->threads = (unsigned)v;
		return 0;
	case OPT_SAVE:
		o->save = true;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	}
	return -1;
}

/* The combination of options; 0 or 2 after logging. */
static int check_opts(struct adv_opts *o)
{
	if (!o->device == !o->input) {
		log_error("advise: give exactly one of --device zramN or --input FILE");
		return 2;
	}
	if (o->save && !o->device) {
		log_error("advise: --save needs --device (advice is kept per device)");
		return 2;
	}
	if (o->samples > ADV_MAX_SAMPLES) {
		log_error("advise: --samples: at most %u", ADV_MAX_SAMPLES);
		return 2;
	}
	if (o->ncand == 0 && adv_parse_spec_list("--candidates", ADV_DEFAULT_CANDIDATES, o->cand,
						 ADV_MAX_CANDIDATES, &o->ncand) < 0)
		return 2;
	return 0;
}

int adv_parse_opts(int argc, char **argv, struct adv_opts *o)
{
	int c, r;

	memset(o, 0, sizeof(*o));
	o->primary.level = COMP_LEVEL_DEFAULT;
	optind = 0; /* full re-initialisation: main may have used getopt already */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", long_opts, NULL)) != -1) {
		if (c == OPT_HELP) {
			adv_usage(stdout);
			return 1;
		}
		r = take_opt(c, optarg, o);
		if (r > 0)
			return r;
		if (r == 0)
			continue;
		if (optopt >= OPT_DEVICE && optopt <= OPT_HELP)
			log_error("advise: option '%s' needs a value", argv[optind - 1]);
		else
			log_error("advise: unknown option '%s'", argv[optind - 1]);
		return 2;
	}
	if (optind < argc) {
		log_error("advise: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return check_opts(o);
}

/* ================================================================ page file */

#define ZSTD_MAGIC_LE 0xfd2fb528u
#define READ_CHUNK (128u * 1024u)

struct reservoir {
	uint8_t *pages;
	uint64_t cap;  /* pages */
	uint64_t seen; /* non-same pages offered */
};

struct file_reader {
	const char *path;
	struct adv_engine *e;
	struct adv_source *src;
	struct adv_rng *rng;
	struct reservoir res;
	uint8_t page[COMP_PAGE_SIZE];
	size_t fill;
	ZSTD_DStream *zs; /* NULL: plain pages */
	uint8_t *zout;
	size_t zret; /* the last ZSTD_decompressStream() result: 0 at the end of a frame */
};

/* A whole page: counted, and compressed now or kept in the reservoir. */
static int file_take_page(struct file_reader *fr)
{
	struct reservoir *res = &fr->res;
	uint64_t pos;

	fr->src->pages++;
	if (comp_page_same_filled(fr->page)) {
		fr->src->same_pages++;
		return 0;
	}
	if (!res->pages)
		return adv_engine_add_page(fr->e, fr->page);
	pos = adv_reservoir_pos(fr->rng, res->seen, res->cap);
	if (pos < res->cap)
		memcpy(res->pages + pos * COMP_PAGE_SIZE, fr->page, COMP_PAGE_SIZE);
	res->seen++;
	return 0;
}

/* Bytes of page data, cut into pages; an engine error is logged. */
static int file_feed(struct file_reader *fr, const uint8_t *buf, size_t len)
{
	while (len) {
		size_t n = COMP_PAGE_SIZE - fr->fill;
		int r;

		if (n > len)
			n = len;
		memcpy(fr->page + fr->fill, buf, n);
		fr->fill += n;
		buf += n;
		len -= n;
		if (fr->fill == COMP_PAGE_SIZE) {
			fr->fill = 0;
			r = file_take_page(fr);
			if (r < 0) {
				log_error("advise: '%s': %s", fr->path, adv_engine_strerror(r));
				return r;
			}
		}
	}
	return 0;
}

static bool is_zstd(const uint8_t *in, size_t n)
{
	return n >= 4 && ((uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 |
			  (uint32_t)in[3] << 24) == ZSTD_MAGIC_LE;
}

static int zstd_start(struct file_reader *fr)
{
	fr->zs = ZSTD_createDStream();
	fr->zout = malloc(ZSTD_DStreamOutSize());
	if (!fr->zs || !fr->zout) {
		log_error("advise: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Decompress what ib holds (an empty ib drains the decoder: one output buffer at most). */
static int zstd_step(struct file_reader *fr, ZSTD_inBuffer *ib, size_t *ret_out)
{
	ZSTD_outBuffer ob = {fr->zout, ZSTD_DStreamOutSize(), 0};

	fr->zret = ZSTD_decompressStream(fr->zs, &ob, ib);
	if (ZSTD_isError(fr->zret)) {
		log_error("advise: '%s': zstd: %s", fr->path, ZSTD_getErrorName(fr->zret));
		return -EINVAL;
	}
	*ret_out = ob.pos;
	return file_feed(fr, fr->zout, ob.pos);
}

/* One chunk of the file; the first one decides whether the file is a zstd stream. */
static int feed_chunk(struct file_reader *fr, const uint8_t *in, size_t n, bool first)
{
	ZSTD_inBuffer ib = {in, n, 0};
	size_t out;
	int r = 0;

	if (first && is_zstd(in, n) && zstd_start(fr) < 0)
		return -ENOMEM;
	if (!fr->zs)
		return file_feed(fr, in, n);
	while (ib.pos < ib.size && r == 0)
		r = zstd_step(fr, &ib, &out);
	return r;
}

/* What the decoder still holds after the last input byte; a stream cut short is an error. */
static int zstd_drain(struct file_reader *fr)
{
	static const uint8_t none;
	size_t out;
	int r;

	while (fr->zs && fr->zret != 0) {
		ZSTD_inBuffer ib = {&none, 0, 0};

		r = zstd_step(fr, &ib, &out);
		if (r < 0)
			return r;
		if (out == 0) {
			log_error("advise: '%s': truncated zstd stream", fr->path);
			return -EINVAL;
		}
	}
	return 0;
}

static int read_pages(struct file_reader *fr, int fd, uint8_t *in)
{
	bool first = true;
	size_t n;
	int r;

	for (;;) {
		r = read_full(fd, in, READ_CHUNK, &n);
		if (r < 0) {
			errno = -r;
			log_error("advise: cannot read '%s': %m", fr->path);
			return r;
		}
		if (n == 0)
			return zstd_drain(fr);
		r = feed_chunk(fr, in, n, first);
		if (r < 0)
			return r;
		first = false;
	}
}

/* After the last byte: the partial page, the reservoir into the engine, the counts. */
static int finish_pages(struct file_reader *fr)
{
	struct adv_source *src = fr->src;
	uint64_t k = fr->res.seen < fr->res.cap ? fr->res.seen : fr->res.cap;
	int r = 0;

	src->trailing = fr->fill;
	if (src->pages == 0) {
		log_error("advise: '%s': no pages (%s)", fr->path,
			  fr->fill ? "shorter than one 4096-byte page" : "empty");
		return -ENODATA;
	}
	if (fr->fill)
		log_warning(
			"advise: '%s': ignoring %zu trailing bytes (not a whole 4096-byte page)",
			fr->path, fr->fill);
	for (uint64_t i = 0; fr->res.pages && i < k && r == 0; i++)
		r = adv_engine_add_page(fr->e, fr->res.pages + i * COMP_PAGE_SIZE);
	if (r == 0)
		r = adv_engine_flush(fr->e);
	if (r < 0) {
		log_error("advise: '%s': %s", fr->path, adv_engine_strerror(r));
		return r;
	}
	src->read = src->pages;
	src->represented = src->pages - src->same_pages;
	src->sampled = fr->e->npages;
	src->sampling = src->sampled != src->represented;
	return 0;
}

static int reader_init(struct file_reader *fr, const struct adv_opts *o)
{
	if (!o->samples_set || o->samples == 0)
		return 0;
	fr->res.cap = o->samples;
	fr->res.pages = malloc(o->samples * COMP_PAGE_SIZE);
	if (!fr->res.pages) {
		log_error("advise: cannot hold %" PRIu64 " sample pages in memory", o->samples);
		return -ENOMEM;
	}
	return 0;
}

int adv_read_file(const struct adv_opts *o, struct adv_rng *rng, struct adv_engine *e,
		  struct adv_source *src)
{
	struct file_reader *fr = calloc(1, sizeof(*fr));
	uint8_t *in = malloc(READ_CHUNK);
	int fd = -1, r = -ENOMEM;

	snprintf(src->name, sizeof(src->name), "%s", o->input);
	if (!fr || !in) {
		log_error("advise: out of memory");
		goto out;
	}
	*fr = (struct file_reader){.path = o->input, .e = e, .src = src, .rng = rng};
	r = reader_init(fr, o);
	if (r < 0)
		goto out;
	fd = open(o->input, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		log_error("advise: cannot open '%s': %m", o->input);
		goto out;
	}
	r = read_pages(fr, fd, in);
	if (r == 0)
		r = finish_pages(fr);
out:
	if (fd >= 0)
		close(fd);
	if (fr) {
		ZSTD_freeDStream(fr->zs);
		free(fr->zout);
		free(fr->res.pages);
	}
	free(fr);
	free(in);
	return r < 0 ? 1 : 0;
}

/* ================================================================ device */

/* Slot indexes, reservoir-sampled to at most cap. */
struct slot_sample {
	struct adv_rng *rng;
	uint64_t *idx;
	uint64_t n, cap, seen;
};

/* bs_stored_fn: one stored slot from block_state. */
static void slot_offer(void *arg, uint64_t idx)
{
	struct slot_sample *s = arg;
	uint64_t pos = adv_reservoir_pos(s->rng, s->seen, s->cap);

	if (pos < s->cap)
		s->idx[pos] = idx;
	if (s->n < s->cap)
		s->n++;
	s->seen++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* --device zramN or /dev/zramN into di->id; 0 or the exit code 2. */
static int device_name(const struct adv_opts *o, struct adv_source *src, struct adv_dev_info *di)
{
	const char *name = o->device;

	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;
	if (!zram_name_valid(name) || zram_name_to_id(name, &di->id) < 0) {
		src->err = -EINVAL;
		adv_error(o, "advise: --device: not a zram device name: '%s'", o->device);
		return 2;
	}
	snprintf(src->name, sizeof(src->name), "zram%u", di->id);
	src->device = true;
	return 0;
}

/* An initialized device: its mm_stat and number of slots. */
static int device_state(const struct adv_opts *o, int root_fd, struct adv_source *src,
			struct adv_dev_info *di)
{
	uint64_t disksize;
	bool init;
	int r;

	r = zram_read_initstate(root_fd, di->id, &init);
	if (r == -ENOENT) {
		src->err = -ENODEV;
		adv_error(o, "advise: %s: no such device", src->name);
		return 1;
	}
	if (r < 0) {
		src->err = r;
		errno = -r;
		adv_error(o, "advise: %s: cannot read initstate: %m", src->name);
		return 1;
	}
	if (!init) {
		src->err = -ENODATA;
		adv_error(o, "advise: %s: device holds no data (not initialized)", src->name);
		return 1;
	}
	r = zram_read_mm_stat(root_fd, di->id, &src->now);
	if (r == 0)
		r = zram_read_disksize(root_fd, di->id, &disksize);
	if (r < 0) {
		src->err = r;
		errno = -r;
		adv_error(o, "advise: %s: cannot read mm_stat/disksize: %m", src->name);
		return 1;
	}
	src->have_now = true;
	di->nslots = disksize / COMP_PAGE_SIZE;
	return 0;
}

/* The primary from comp_algorithm, into eff->primary. */
static int device_primary(const struct adv_opts *o, int root_fd, struct adv_opts *eff,
			  struct adv_source *src, const struct adv_dev_info *di)
{
	struct zram_algo_list comp;
	int r = zram_read_comp_algorithm(root_fd, di->id, &comp);

	if (r < 0 || comp.selected < 0) {
		src->err = r < 0 ? r : -EINVAL;
		adv_error(o, "advise: %s: cannot read comp_algorithm", src->name);
		return 1;
	}
	if (comp_parse_spec(comp.name[comp.selected], &eff->primary.algo, &eff->primary.level) <
	    0) {
		src->err = -EOPNOTSUPP;
		adv_error(o, "advise: %s: primary '%s' is not modelled; pass --primary", src->name,
			  comp.name[comp.selected]);
		return 1;
	}
	return 0;
}

/* The secondaries from recomp_algorithm into eff->chain; none there keeps eff's default. */
static int device_chain(const struct adv_opts *o, int root_fd, struct adv_opts *eff,
			struct adv_source *src, const struct adv_dev_info *di)
{
	struct zram_recomp list;

	/* Missing (no MULTI_COMP) or empty: keep the configuration default. */
	if (zram_read_recomp_algorithm(root_fd, di->id, &list) < 0 || list.count == 0)
		return 0;
	src->chain_from = "the device's recomp_algorithm";
	eff->nchain = 0;
	for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++) {
		struct adv_spec *sp = &eff->chain[eff->nchain];

		if (!list.set[p])
			continue;
		if (comp_parse_spec(list.name[p], &sp->algo, &sp->level) < 0) {
			src->err = -EOPNOTSUPP;
			adv_error(o, "advise: %s: secondary '%s' is not modelled; pass --chain",
				  src->name, list.name[p]);
			return 1;
		}
		eff->nchain++;
	}
	return 0;
}

int adv_device_config(const struct adv_opts *o, int root_fd, struct adv_opts *eff,
		      struct adv_source *src, struct adv_dev_info *di)
{
	uint64_t bd[3];
	int rc;

	rc = device_name(o, src, di);
	if (rc == 0)
		rc = device_state(o, root_fd, src, di);
	if (rc == 0 && !o->primary_set)
		rc = device_primary(o, root_fd, eff, src, di);
	if (rc == 0 && !o->chain_set)
		rc = device_chain(o, root_fd, eff, src, di);
	if (rc)
		return rc;

	/* Pages in zsmalloc: stored minus same-filled minus written back (bd_stat, if any). */
	src->pages = src->now.v[MM_ORIG_DATA_SIZE] / COMP_PAGE_SIZE;
	src->same_pages = src->now.v[MM_SAME_PAGES];
	if (zram_read_bd_stat(root_fd, di->id, bd) == 0)
		src->wb_pages = bd[0];
	di->stored = sat_sub_u64(sat_sub_u64(src->pages, src->same_pages), src->wb_pages);
	if (di->stored == 0) {
		src->err = -ENODATA;
		adv_error(o, "advise: %s: device holds no compressed pages", src->name);
		return 1;
	}
	return 0;
}

/* The slots to read, in index order: stored ones from block_state if it can be read. */
static void pick_slots(int root_fd, const struct adv_dev_info *di, struct slot_sample *ss,
		       struct adv_source *src)
{
	int r = blockstate_read_stored(root_fd, di->id, slot_offer, ss, NULL);

	if (r == 0 && ss->seen > 0) {
		src->block_state = true;
	} else {
		/* Selection sampling (Knuth's algorithm S): cap of nslots, in index order. */
		ss->n = 0;
		for (uint64_t t = 0; t < di->nslots && ss->n < ss->cap; t++)
			if (adv_rng_below(ss->rng, di->nslots - t) < ss->cap - ss->n)
				ss->idx[ss->n++] = t;
	}
	qsort(ss->idx, ss->n, sizeof(uint64_t), cmp_u64);
}

/* Read the picked slots into the engine; 0 or 1 (logged unless o->quiet). */
static int read_slots(const struct adv_opts *o, int fd, const struct slot_sample *ss, uint8_t *page,
		      struct adv_engine *e, struct adv_source *src)
{
	int r = 0;

	for (uint64_t i = 0; i < ss->n && r == 0; i++) {
		ssize_t n = zram_read_slot(fd, ss->idx[i], page);

		if (n != (ssize_t)COMP_PAGE_SIZE) {
			src->err = n < 0 ? (int)n : -EIO;
			errno = -src->err;
			if (n < 0)
				adv_error(o, "advise: %s: read of slot %" PRIu64 " failed: %m",
					  src->name, ss->idx[i]);
			else
				adv_error(o, "advise: %s: short read at slot %" PRIu64, src->name,
					  ss->idx[i]);
			return 1;
		}
		src->read++;
		r = adv_engine_add_page(e, page);
	}
	if (r == 0)
		r = adv_engine_flush(e);
	if (r < 0) {
		src->err = r;
		adv_error(o, "advise: %s: %s", src->name, adv_engine_strerror(r));
		return 1;
	}
	return 0;
}

int adv_device_sample(const struct adv_opts *o, int root_fd, struct adv_rng *rng,
		      const struct adv_dev_info *di, struct adv_engine *e, struct adv_source *src)
{
	uint64_t want = o->samples_set ? o->samples : ADV_DEFAULT_DEVICE_SAMPLES;
	struct slot_sample ss = {.rng = rng};
	uint8_t *page;
	int fd = -1, r, rc = 1;

	if (want == 0 || want > di->nslots)
		want = di->nslots;
	ss.cap = want;
	ss.idx = calloc(want ? want : 1, sizeof(uint64_t));
	page = aligned_alloc(COMP_PAGE_SIZE, COMP_PAGE_SIZE);
	if (!ss.idx || !page) {
		src->err = -ENOMEM;
		adv_error(o, "advise: out of memory");
		goto out;
	}
	pick_slots(root_fd, di, &ss, src);
	r = zram_open_slots(root_fd, di->id, &fd);
	if (r < 0) {
		src->err = r;
		errno = -r;
		adv_error(o, "advise: %s: cannot open /dev/%s: %m", src->name, src->name);
		goto out;
	}
	if (read_slots(o, fd, &ss, page, e, src))
		goto out;
	if (e->npages == 0) {
		src->err = -ENODATA;
		adv_error(o,
			  "advise: %s: no compressed page among %" PRIu64 " sampled slots; "
			  "try more --samples",
			  src->name, src->read);
		goto out;
	}
	src->represented = di->stored;
	src->sampled = e->npages;
	src->sampling = src->sampled != src->represented;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(page);
	free(ss.idx);
	return rc;
}

/* ================================================================ recommendation */

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
		snprintf(rp->reason, sizeof(rp->reason),
			 "recompression will not pay for this data: the best chain saves %.1f%% of "
			 "the pool (less than %.0f%%)",
			 base->mem_bytes ? 100.0 * (double)save / (double)base->mem_bytes : 0.0,
			 ADV_PAY_FRACTION * 100);
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

/* ================================================================ report */

static void spec_str(const struct adv_engine *e, unsigned s, char *buf, size_t size)
{
	if (comp_format_spec(e->spec[s].algo, e->spec[s].level, buf, size) < 0)
		snprintf(buf, size, "?");
}

/* A level is only named when it is not the kernel's default. */
static bool level_given(const struct adv_spec *s)
{
	return comp_algo_has_level(s->algo) &&
	       comp_effective_level(s->algo, s->level) != comp_default_level(s->algo);
}

static void print_saving(const struct adv_eval *base, const struct adv_eval *x)
{
	char h[32];
	int64_t v = adv_saving(base, x);
	double s = (double)v;

	/* The sign is printed apart: '+' is more memory, '-' a saving. */
	format_bytes(h, sizeof(h), v < 0 ? 0 - (uint64_t)v : (uint64_t)v, BYTES_MB);
	printf("  %s%s (%4.1f%%)",
	       s < 0   ? "+"
	       : s > 0 ? "-"
		       : " ",
	       h, base->mem_bytes ? 100.0 * s / (double)base->mem_bytes : 0.0);
}

static void chain_str(const struct adv_engine *e, const struct adv_chain_eval *c, char *buf,
		      size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n && len < size; i++) {
		char s[32];

		spec_str(e, c->spec[i], s, sizeof(s));
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", s);
	}
	if (c->n == 0)
		snprintf(buf, size, "(none)");
}

/* "recompress-algorithms = zstd deflate" and "algorithm-params = 2:level=9" lines. */
static void config_lines(const struct adv_engine *e, const struct adv_chain_eval *c, char *algos,
			 size_t asize, char *params, size_t psize)
{
	size_t la = 0, lp = 0;

	algos[0] = params[0] = '\0';
	for (unsigned i = 0; i < c->n; i++) {
		const struct adv_spec *s = &e->spec[c->spec[i]];

		if (la < asize)
			la += (size_t)snprintf(algos + la, asize - la, "%s%s", i ? " " : "",
					       comp_algo_name(s->algo));
		if (level_given(s) && lp < psize)
			lp += (size_t)snprintf(params + lp, psize - lp, "%s%u:level=%d",
					       lp ? " " : "", i + 1,
					       comp_effective_level(s->algo, s->level));
	}
}

/* ---------------------------------------------------------------- text */

/* What was read, and what the figures stand for. */
static void text_source(const struct adv_source *src, const struct adv_opts *o,
			const struct adv_report *rp)
{
	if (src->device)
		printf("%s: %" PRIu64 " pages stored, %" PRIu64 " same-filled, %" PRIu64
		       " written back\n",
		       src->name, src->pages, src->same_pages, src->wb_pages);
	else
		printf("%s: %" PRIu64 " pages, %" PRIu64 " same-filled\n", src->name, src->pages,
		       src->same_pages);
	if (src->sampling)
		printf("sampled %" PRIu64 " compressed pages%s (%" PRIu64
		       " read); figures are scaled "
		       "to the %" PRIu64 " compressed pages of the %s (x%.2f)\n",
		       src->sampled,
		       src->block_state ? " among the stored slots of block_state" : "", src->read,
		       src->represented, src->device ? "device" : "file", rp->scale);
	if (src->device)
		printf("note: reading a slot marks it accessed (clears its idle mark)\n");
	if (src->device && !o->chain_set)
		printf("note: secondary levels are not readable (algorithm_params is write-only); "
		       "kernel defaults assumed\n");
	if (o->threshold)
		printf("threshold: %u bytes\n", o->threshold);
}

/* The primary's prediction, and the device's figures now. */
static void text_primary(const struct adv_engine *e, const struct adv_source *src,
			 const struct adv_report *rp)
{
	char s[64], h1[32], h2[32];

	spec_str(e, 0, s, sizeof(s));
	printf("primary %s: compr_data_size %s, mem_used_total after compaction %s, %" PRIu64
	       " huge pages\n",
	       s, format_bytes(h1, sizeof(h1), rp->primary.compr_bytes, BYTES_MB),
	       format_bytes(h2, sizeof(h2), rp->primary.mem_bytes, BYTES_MB),
	       rp->primary.huge_pages);
	if (src->device && src->have_now)
		printf("  device now: compr_data_size %s, mem_used_total %s, %" PRIu64
		       " huge pages\n",
		       format_bytes(h1, sizeof(h1), src->now.v[MM_COMPR_DATA_SIZE], BYTES_MB),
		       format_bytes(h2, sizeof(h2), src->now.v[MM_MEM_USED_TOTAL], BYTES_MB),
		       src->now.v[MM_HUGE_PAGES]);
}

/* One row per candidate alone, the primary first. */
static void text_table(const struct adv_engine *e, const struct adv_report *rp)
{
	char s[64];

	spec_str(e, 0, s, sizeof(s));
	printf("\n%-18s %14s %14s %18s %10s %10s %10s %11s\n", "candidate", "compr_bytes",
	       "mem_bytes", "mem saving", "improved", "incompr.", "comp MB/s", "decomp MB/s");
	printf("%-18s %14" PRIu64 " %14" PRIu64 " %18s %10s %10s %10.1f %11.1f\n", s,
	       rp->primary.compr_bytes, rp->primary.mem_bytes, "(primary)", "-", "-",
	       adv_compress_mb_s(e, 0), adv_decompress_mb_s(e, 0));
	for (unsigned i = 0; i < rp->ncand; i++) {
		const struct adv_eval *ev = &rp->cand[i];

		spec_str(e, rp->cand_spec[i], s, sizeof(s));
		printf("%-18s %14" PRIu64 " %14" PRIu64, s, ev->compr_bytes, ev->mem_bytes);
		print_saving(&rp->primary, ev);
		printf(" %10" PRIu64 " %10" PRIu64 " %10.1f %11.1f\n", ev->improved,
		       ev->incompressible, adv_compress_mb_s(e, rp->cand_spec[i]),
		       adv_decompress_mb_s(e, rp->cand_spec[i]));
	}
}

/* The chain the device (or --chain, or the configuration default) would use. */
static void text_chain(const struct adv_engine *e, const struct adv_source *src,
		       const struct adv_opts *o, const struct adv_report *rp)
{
	char ch[128];

	chain_str(e, &rp->chain, ch, sizeof(ch));
	printf("\nchain %s (%s): compr_bytes %" PRIu64 ", mem_bytes %" PRIu64, ch,
	       o->chain_set	 ? "--chain"
	       : src->chain_from ? src->chain_from
				 : "configuration default",
	       rp->chain.ev.compr_bytes, rp->chain.ev.mem_bytes);
	print_saving(&rp->primary, &rp->chain.ev);
	printf(", %" PRIu64 " improved, %" PRIu64 " incompressible, ~%.1f s CPU\n",
	       rp->chain.ev.improved, rp->chain.ev.incompressible, rp->chain.ev.cpu_seconds);
}

/* The recommended chain as kernel commands and as configuration lines. */
static void text_apply(const struct adv_engine *e, const struct adv_report *rp)
{
	char algos[128], params[128];

	for (unsigned i = 0; i < rp->best.n; i++) {
		const struct adv_spec *sp = &e->spec[rp->best.spec[i]];

		printf("  echo 'algo=%s priority=%u' > recomp_algorithm", comp_algo_name(sp->algo),
		       i + 1);
		if (level_given(sp))
			printf("; echo 'priority=%u level=%d' > algorithm_params", i + 1,
			       comp_effective_level(sp->algo, sp->level));
		printf("\n");
	}
	config_lines(e, &rp->best, algos, sizeof(algos), params, sizeof(params));
	printf("  config: recompress-algorithms = %s\n", algos);
	if (params[0])
		printf("          algorithm-params = %s\n", params);
}

static double cpu_percent(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* The given threshold, the one that pays, or what 1024 would do. */
static void text_threshold(const struct adv_opts *o, const struct adv_report *rp)
{
	int64_t best = adv_saving(&rp->primary, &rp->best.ev);
	char h[32];

	if (o->threshold) {
		printf("  threshold %u as given\n", o->threshold);
	} else if (rp->threshold) {
		format_bytes_signed(h, sizeof(h), adv_saving(&rp->primary, &rp->best_thr),
				    BYTES_MB);
		printf("  threshold-bytes = %u pays: keeps %s of the saving for %.0f%% of the CPU "
		       "time\n",
		       rp->threshold, h,
		       cpu_percent(rp->best_thr.cpu_seconds, rp->best.ev.cpu_seconds));
	} else if (rp->probe_thr) {
		double keep =
			best ? 100.0 * (double)adv_saving(&rp->primary, &rp->probe) / (double)best
			     : 0.0;

		printf("  no threshold: threshold=%u would keep %.0f%% of the saving for %.0f%% of "
		       "the CPU time\n",
		       rp->probe_thr, keep,
		       cpu_percent(rp->probe.cpu_seconds, rp->best.ev.cpu_seconds));
	}
}

static void text_recommendation(const struct adv_engine *e, const struct adv_opts *o,
				const struct adv_report *rp)
{
	int64_t save = adv_saving(&rp->primary, &rp->best.ev);
	char h[32], ch[128];

	printf("\nrecommendation: ");
	if (!rp->pays) {
		printf("%s\n", rp->reason);
		return;
	}
	chain_str(e, &rp->best, ch, sizeof(ch));
	printf("secondaries %s (%s); saves %s (%.1f%%) of pool memory after compaction, ~%.1f s "
	       "CPU\n",
	       ch, rp->reason, format_bytes_signed(h, sizeof(h), save, BYTES_MB),
	       100.0 * (double)save / (double)rp->primary.mem_bytes, rp->best.ev.cpu_seconds);
	text_apply(e, rp);
	if (rp->have_alt) {
		chain_str(e, &rp->alt, ch, sizeof(ch));
		format_bytes_signed(h, sizeof(h), adv_saving(&rp->primary, &rp->alt.ev), BYTES_MB);
		printf("  cheaper: %s saves %s for %.0f%% of the CPU time\n", ch, h,
		       cpu_percent(rp->alt.ev.cpu_seconds, rp->best.ev.cpu_seconds));
	}
	printf("  priorities must be contiguous from 1 (6.15+ marks every slot incompressible "
	       "after a gap)\n");
	text_threshold(o, rp);
	printf("  compact after recompressing: until then the freed space stays in partly used "
	       "zspages\n");
}

void adv_print_text(const struct adv_engine *e, const struct adv_source *src,
		    const struct adv_opts *o, const struct adv_report *rp)
{
	text_source(src, o, rp);
	text_primary(e, src, rp);
	text_table(e, rp);
	text_chain(e, src, o, rp);
	text_recommendation(e, o, rp);
}

/* ---------------------------------------------------------------- JSON */

static void json_level(const struct adv_spec *s)
{
	if (comp_algo_has_level(s->algo))
		printf("%d", comp_effective_level(s->algo, s->level));
	else
		printf("null");
}

static void json_candidates(const struct adv_engine *e, const struct adv_report *rp)
{
	for (unsigned i = 0; i < rp->ncand; i++) {
		unsigned sp = rp->cand_spec[i];
		const struct adv_eval *ev = &rp->cand[i];

		printf("%s{\"algo\":", i ? "," : "");
		json_print_string(stdout, comp_algo_name(e->spec[sp].algo));
		printf(",\"level\":");
		json_level(&e->spec[sp]);
		printf(",\"compr_bytes\":%" PRIu64 ",\"mem_bytes\":%" PRIu64
		       ",\"pages_improved\":%" PRIu64 ",\"pages_incompressible\":%" PRIu64
		       ",\"compress_mb_s\":%.1f,\"decompress_mb_s\":%.1f}",
		       ev->compr_bytes, ev->mem_bytes, ev->improved, ev->incompressible,
		       adv_compress_mb_s(e, sp), adv_decompress_mb_s(e, sp));
	}
}

/* [{"priority":1,"algo":"zstd","level":3},...] */
static void json_secondaries(const struct adv_engine *e, const struct adv_chain_eval *c)
{
	printf("[");
	for (unsigned i = 0; i < c->n; i++) {
		const struct adv_spec *sp = &e->spec[c->spec[i]];

		printf("%s{\"priority\":%u,\"algo\":", i ? "," : "", i + 1);
		json_print_string(stdout, comp_algo_name(sp->algo));
		printf(",\"level\":");
		json_level(sp);
		printf("}");
	}
	printf("]");
}

/* The "recommendation" object's members after "secondaries" and before "sampled_pages". */
static void json_recommended(const struct adv_engine *e, const struct adv_opts *o,
			     const struct adv_report *rp)
{
	char algos[128], params[128];

	printf(",\"threshold\":%u,", o->threshold ? o->threshold : rp->threshold);
	printf("\"mem_saving_bytes\":%" PRId64 ",\"compr_saving_bytes\":%" PRId64,
	       rp->pays ? adv_saving(&rp->primary, &rp->best.ev) : 0,
	       rp->pays ? (int64_t)rp->primary.compr_bytes - (int64_t)rp->best.ev.compr_bytes : 0);
	printf(",\"cpu_seconds\":%.2f", rp->pays ? rp->best.ev.cpu_seconds : 0.0);
	if (!rp->pays)
		return;
	config_lines(e, &rp->best, algos, sizeof(algos), params, sizeof(params));
	printf(",\"config\":{\"recompress-algorithms\":");
	json_print_string(stdout, algos);
	printf(",\"algorithm-params\":");
	json_print_string(stdout, params);
	printf("}");
	if (rp->have_alt) {
		printf(",\"alternative\":{\"secondaries\":");
		json_secondaries(e, &rp->alt);
		printf(",\"mem_saving_bytes\":%" PRId64 ",\"cpu_seconds\":%.2f}",
		       adv_saving(&rp->primary, &rp->alt.ev), rp->alt.ev.cpu_seconds);
	}
}

void adv_print_json(const struct adv_engine *e, const struct adv_source *src,
		    const struct adv_opts *o, const struct adv_report *rp)
{
	static const struct adv_chain_eval none;
	char s[64];

	printf("{\"pages\":%" PRIu64 ",\"same_pages\":%" PRIu64 ",\"primary\":{\"algo\":",
	       src->pages, src->same_pages);
	json_print_string(stdout, comp_algo_name(e->spec[0].algo));
	printf(",\"compr_bytes\":%" PRIu64 ",\"mem_bytes\":%" PRIu64 "},\"candidates\":[",
	       rp->primary.compr_bytes, rp->primary.mem_bytes);
	json_candidates(e, rp);
	printf("],\"chain\":{\"algos\":[");
	for (unsigned i = 0; i < rp->chain.n; i++) {
		spec_str(e, rp->chain.spec[i], s, sizeof(s));
		printf("%s", i ? "," : "");
		json_print_string(stdout, s);
	}
	printf("],\"compr_bytes\":%" PRIu64 ",\"mem_bytes\":%" PRIu64 "},",
	       rp->chain.ev.compr_bytes, rp->chain.ev.mem_bytes);
	printf("\"recommendation\":{\"pays\":%s,\"secondaries\":", rp->pays ? "true" : "false");
	json_secondaries(e, rp->pays ? &rp->best : &none);
	json_recommended(e, o, rp);
	printf(",\"sampled_pages\":%" PRIu64 ",\"scaled\":%s,\"reason\":", src->sampled,
	       src->sampling ? "true" : "false");
	json_print_string(stdout, rp->reason);
	printf("}}\n");
}

/* ================================================================ main */

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
	run->e = NULL;
	run->rp = NULL;
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
	r = adv_engine_init(run->e, zs_model_default(), specs, nspecs, o->threads);
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
	if (o->device) {
		rc = adv_device_config(o, root_fd, &run->eff, &run->src, &di);
		if (rc)
			return rc;
	}
	rc = run_engine(o, run);
	if (rc)
		return rc;
	rc = o->device ? adv_device_sample(o, root_fd, &run->rng, &di, run->e, &run->src)
		       : adv_read_file(o, &run->rng, run->e, &run->src);
	if (rc)
		return rc;
	run_report(run->e, o->threshold, &run->src, run->rp);
	return 0;
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

/* The state directory: $ZRAM_RECOMPD_STATE_DIR, else the daemon's default. */
static int open_state_dir(const char **ret_path)
{
	const char *dir = secure_getenv("ZRAM_RECOMPD_STATE_DIR");
	int fd;

	if (!dir || !*dir)
		dir = "/var/lib/zram-recompd";
	*ret_path = dir;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
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
	struct advice_set *set;
	uint64_t compressed;
	bool due;
	int r;

	if (dir_fd < 0)
		return -EBADF;
	set = malloc(sizeof(*set));
	if (!set)
		return -ENOMEM;
	r = advice_load(set, dir_fd);
	/* Unreadable or corrupt advice is as good as none: replace it. */
	due = advice_due(cfg, r == 0 ? advice_find(set, d->name) : NULL, zram_primary(d), now);
	free(set);
	if (!due)
		return 0;
	/* A sample of a nearly empty device (just after boot) would be a poor basis. */
	compressed =
		sat_sub_u64(d->mm.v[MM_ORIG_DATA_SIZE] / COMP_PAGE_SIZE, d->mm.v[MM_SAME_PAGES]);
	if (!d->initialized || compressed < cfg->advise_samples)
		return -EAGAIN;
	r = advise_device(root_fd, d->id, cfg->advise_samples, 1, ret);
	if (r == 0)
		r = advice_update(dir_fd, ret);
	return r < 0 ? r : 1;
}
