/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_ADVISE_H
#define ZRAM_RECOMPD_ADVISE_H

/*
 * `zram-recompd advise`: predicts what recompression would save, by compressing sample
 * pages with user-space mirrors of the kernel's backends (compress.h), applying zram's
 * per-slot decision (6.12 zram_recompress(): a secondary wins only with a strictly smaller
 * zsmalloc size class, and below the threshold when one is set; priorities are tried in
 * order and the first win stops) and pricing the result with the zsmalloc model
 * (zsmalloc.h) as pool memory after compaction. On 6.12.118 (qemu, 8874 corpus pages,
 * lzo-rle primary) the predicted compr_data_size and mem_used_total after
 * "recompress" + "compact" with zstd, and with zstd then deflate, equalled the kernel's.
 *
 * The engine below is exposed for the unit tests and tests/tools/advbench.c. The code is in
 * src/advise/, one file per concern; include/advise_internal.h is what those files share.
 */

#include "compress.h"
#include "zsmalloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Entry point for "zram-recompd advise ARGS...": argv[0] is "advise". Results go to stdout,
 * one-line errors to stderr through log.h. root_fd is the root for sys/block/zramN,
 * sys/kernel/debug/zram/zramN/block_state and dev/zramN (unused with --input). Returns the
 * exit code: 0 success, 1 runtime error (no such device or file, no data, read error),
 * 2 usage error (unknown option or algorithm, bad number).
 *
 * --json prints one object:
 *   {"pages": stored pages (device: orig_data_size / its page size; file: whole pages),
 *    "same_pages": same-filled among them,
 *    "primary": {"algo", "compr_bytes", "mem_bytes"},
 *    "candidates": [{"algo", "level" (null for lzo/lzo-rle), "compr_bytes", "mem_bytes",
 *                    "pages_improved", "pages_incompressible", "compress_mb_s",
 *                    "decompress_mb_s"}],
 *    "chain": {"algos": ["zstd", "zstd:9", ...], "compr_bytes", "mem_bytes"},
 *    "recommendation": {"pays", "secondaries": [{"priority", "algo", "level"}], "threshold",
 *                       "mem_saving_bytes", "compr_saving_bytes", "cpu_seconds",
 *                       "config": {...} (when it pays), "alternative": {...} (optional),
 *                       "sampled_pages", "scaled", "reason"},
 *    "dictionary": only with --dict (docs/dictionary.md):
 *      {"trained", "threshold_percent", "reason", and when trained: "size", "id", "trainer",
 *       "sampled_pages", "train_pages", "train_bytes", "train_cpu_seconds",
 *       "train_mem_bound_bytes", "heldout_pages", "scale",
 *       "without": {"mem_bytes", "compr_bytes"},
 *       "variants": [{"priorities": [{"priority", "algo", "level"}], "mem_bytes",
 *                     "compr_bytes", "kernel_bytes", "saving_bytes", "net_saving_bytes"}],
 *       "recommended", "priorities" (of the recommended variant, else []),
 *       "file" (--dict-out, else null)}}
 * compr_bytes is the predicted compr_data_size after recompressing every stored page with
 * that candidate alone (the primary's object kept where it does not win), mem_bytes the
 * predicted mem_used_total after compaction. With sampling every figure is scaled to the
 * pages of the device or file ("scaled": true).
 *
 * With --dict the figures of "dictionary" are predicted on held-out pages only: the part of
 * the sample the dictionary was not trained on, scaled to the device or file.
 *
 * Reading /dev/zramN marks the sampled slots accessed (their idle mark is cleared). A page
 * file whose size is not a multiple of the page size is used up to its last whole page, with a
 * warning; an incomplete zstd stream is an error.
 */
int advise_main(int argc, char **argv, int root_fd);

struct advice_entry;

/*
 * The advisor on device zram<id> without any output, for recompress-algorithms = auto:
 * samples slots (0 = every stored slot), the default candidates, the device's primary,
 * threads as --threads (0 = one per CPU). Fills *ret with the recommended chain. Reads the
 * sampled slots (their idle marks are cleared). 0, or -ENODEV (no such device), -ENODATA
 * (not initialized, no compressed page), -EOPNOTSUPP (primary not modelled), -errno of a
 * read, -ENOMEM.
 */
int advise_device(int root_fd, unsigned id, uint64_t samples, unsigned threads,
		  struct advice_entry *ret);

struct dev_config;
struct zram_dev;

/*
 * The periodic refresh of recompress-algorithms = auto (daemon and --once, on an
 * initialized device d whose mm_stat is current): when advice_due() says so, advise_device()
 * with cfg->advise_samples slots on one thread, and the result stored in dir_fd's advice
 * file (*ret is what was stored). Returns 1 refreshed, 0 not due, -EAGAIN too little data
 * yet (fewer compressed pages than advise-samples), or -errno. No messages.
 */
int advise_refresh(int root_fd, int dir_fd, const struct zram_dev *d, const struct dev_config *cfg,
		   uint64_t now, struct advice_entry *ret);

#define ADV_MAX_SPECS 16 /* primary + candidates + chain, deduplicated */
#define ADV_MAX_CANDIDATES 8
#define ADV_MAX_CHAIN 3 /* secondary priorities 1..3 */

struct adv_spec {
	enum comp_algo algo;
	int level; /* as requested; COMP_LEVEL_DEFAULT = the kernel's default */
	bool dict; /* zstd with the engine's dictionary (adv_engine_init_dict()) */
};

/* Outcome of one slot under zram's recompression decision (6.12 zram_recompress()). */
enum adv_outcome {
	ADV_SKIPPED,	    /* old size < threshold: not attempted, not counted */
	ADV_IMPROVED,	    /* a secondary reached a strictly smaller class (and < threshold) */
	ADV_INCOMPRESSIBLE, /* every secondary tried, the last one not in a smaller class: 'n' */
	ADV_THRESHOLD_MISS, /* the last one reached a smaller class but not below the threshold:
			     * 6.2-6.14 leave the slot unmarked (6.15+ would mark it 'n') */
};

/*
 * old_len: the stored object size (PAGE_SIZE for a huge slot); new_len: the secondaries'
 * raw compressed sizes in priority order. On ADV_IMPROVED *ret_winner is the index into
 * new_len of the first winning secondary.
 */
enum adv_outcome adv_decide(const struct zs_model *m, unsigned old_len, const unsigned *new_len,
			    unsigned n, unsigned threshold, unsigned *ret_winner);

/* Size zram stores for a primary result: PAGE_SIZE when it reaches huge_class_size. */
unsigned adv_stored_len(const struct zs_model *m, unsigned comp_len);

/*
 * Per-page compressed sizes for every spec, plus timing. spec[0] is the primary.
 *
 * Pages are queued by adv_engine_add_page() and compressed in batches of ADV_BATCH_PAGES by
 * up to nthreads threads (the caller's included), each with its own compressor contexts.
 * Work is split into (spec, chunk of pages) jobs; every job writes its own cells of the
 * size table, so the sizes do not depend on the thread count or on scheduling. Timings
 * are CPU time of the thread that ran the job (CLOCK_THREAD_CPUTIME_ID), so they stay
 * per-algorithm figures when threads share cores.
 */
#define ADV_MAX_THREADS 8
#define ADV_BATCH_PAGES 512u

struct adv_engine {
	const struct zs_model *zs;
	size_t page_size; /* zs->page_size: the pages compressed */
	unsigned nspecs;
	unsigned nthreads; /* 1..ADV_MAX_THREADS */
	struct adv_spec spec[ADV_MAX_SPECS];
	struct comp_ctx *ctx[ADV_MAX_THREADS][ADV_MAX_SPECS];
	uint64_t comp_ns[ADV_MAX_SPECS];
	uint64_t decomp_ns[ADV_MAX_SPECS];
	uint64_t same_pages; /* same-filled pages offered to adv_engine_add_page() */
	size_t npages;	     /* non-same pages whose sizes are known (flushed) */
	size_t cap;
	uint16_t *sizes;  /* npages * nspecs raw compressed sizes */
	uint8_t *pending; /* ADV_BATCH_PAGES pages waiting for the next flush */
	size_t npending;
	bool verify; /* decompress and compare every result (default true) */
	const void *dict; /* adv_engine_init_dict(): the specs' dictionary, not owned */
	size_t dict_size;
	uint8_t *keep; /* adv_engine_keep(): copies of the first keep_cap non-same pages */
	size_t nkeep, keep_cap;
};

/*
 * nthreads 0 = one per CPU this process may run on; the count is capped at the number of
 * specs and ADV_MAX_THREADS. Pages are zs's page size. -EINVAL bad spec, count or no zs,
 * -EOPNOTSUPP a spec not modelled at that page size, -ENOMEM; the contexts are created here.
 */
int adv_engine_init(struct adv_engine *e, const struct zs_model *zs, const struct adv_spec *specs,
		    unsigned nspecs, unsigned nthreads);
/* The same, with a zstd dictionary for the specs that ask for it (dict must outlive e). */
int adv_engine_init_dict(struct adv_engine *e, const struct zs_model *zs,
			 const struct adv_spec *specs, unsigned nspecs, unsigned nthreads,
			 const void *dict, size_t dict_size);
/*
 * Keep a copy of the first cap non-same pages added from now on (in e->keep, e->nkeep of
 * them), for training a dictionary; freed (wiped) with the engine. -ENOMEM, -EINVAL.
 */
int adv_engine_keep(struct adv_engine *e, size_t cap);
void adv_engine_free(struct adv_engine *e);
/*
 * One page of e->page_size bytes: same-filled pages are only counted; others are queued and compressed
 * with every spec when the batch is full. -EIO when a round trip does not reproduce a page
 * (a mirror bug), -ENOMEM, or a thread creation error.
 */
int adv_engine_add_page(struct adv_engine *e, const void *page);
/* Compress what is queued; call before reading npages/sizes. Errors as above. */
int adv_engine_flush(struct adv_engine *e);
/* Index of an equal spec (same algorithm and effective level), or -1. */
int adv_engine_find(const struct adv_engine *e, const struct adv_spec *s);

/* Speeds on this CPU in MB/s (10^6 bytes of page data per second); 0 when unmeasured. */
double adv_compress_mb_s(const struct adv_engine *e, unsigned spec);
double adv_decompress_mb_s(const struct adv_engine *e, unsigned spec);

struct adv_eval {
	uint64_t compr_bytes; /* predicted compr_data_size */
	uint64_t mem_bytes;   /* predicted mem_used_total after compaction */
	uint64_t huge_pages;
	uint64_t improved;
	uint64_t incompressible;
	uint64_t threshold_miss;
	uint64_t attempted;
	double cpu_seconds; /* estimated recompression time: decompress + each tried secondary */
};

/*
 * Predict the pool after recompressing every stored page with the chain (spec indexes in
 * priority order; n = 0 evaluates the primary alone). Every figure is multiplied by scale
 * (stored pages represented per sampled page) before rounding.
 */
void adv_evaluate(const struct adv_engine *e, const unsigned *chain, unsigned n, unsigned threshold,
		  double scale, struct adv_eval *ret);
/* The same with spec primary as the primary's stored sizes (adv_evaluate: spec 0). */
void adv_evaluate_with(const struct adv_engine *e, unsigned primary, const unsigned *chain,
		       unsigned n, unsigned threshold, double scale, struct adv_eval *ret);

#endif
