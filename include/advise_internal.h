/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_ADVISE_INTERNAL_H
#define ZRAM_RECOMPD_ADVISE_INTERNAL_H

/*
 * What the files of src/advise/ share with each other and with their unit tests; the rest
 * of the daemon uses advise.h. One run of `zram-recompd advise`, file by file:
 *
 *   options.c        the command line -> struct adv_opts
 *   source_device.c  the device's configuration and counters; sampled slots of /dev/zramN
 *   source_file.c    the pages of a page file (plain or zstd), reservoir-sampled
 *   engine.c         every spec compresses every page; zram's per-slot decision; the pool
 *                    predicted for a chain (advise.h)
 *   recommend.c      the best chain, a cheaper alternative and a threshold
 *   dict.c           --dict: a zstd dictionary trained, its cost, the decision (dict.h)
 *   dict_predict.c   --dict: the pool with and without it, on held-out pages
 *   dict_report.c    --dict: its part of the text and JSON output
 *   report.c         the text and JSON output
 *   advise.c         the run from options to report; --save, advise_device(), the refresh
 *
 * Functions that print or log say so; the others return -errno and stay silent.
 */

#include "advise.h"
#include "dict.h"
#include "log.h"
#include "util.h"
#include "zram.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define ADV_DEFAULT_DEVICE_SAMPLES 4096u
#define ADV_MAX_SAMPLES (1u << 20) /* file reservoir: 4 GiB of pages at most */
#define ADV_DEFAULT_CANDIDATES "lz4hc,zstd,zstd:9,deflate"
#define ADV_DICT_FILE_SAMPLES 8192u /* --dict on a file without --samples */
#define ADV_DICT_SAMPLE_BYTES_MAX (256u << 20) /* --dict keeps the sample: at most this */

/* --dict and its options (dict.h has the defaults). */
struct adv_dict_opts {
	bool on;
	uint32_t size;	      /* --dict-size */
	uint64_t train_pages; /* --dict-train-pages */
	uint64_t train_bytes; /* --dict-train-bytes */
	unsigned threshold;   /* --dict-threshold, percent */
	const char *out;      /* --dict-out FILE, or NULL: the dictionary stays in memory */
	const char *install;  /* --dict-install zramN: into dict_apply.h's directory */
	bool any_set;	      /* a --dict-* option was given */
};

struct adv_opts {
	const char *device;
	const char *input;
	uint64_t samples; /* 0 = all */
	bool samples_set;
	bool json;
	bool primary_set, chain_set;
	uint64_t seed;
	bool seed_set;
	unsigned threads; /* 0 = one per CPU */
	bool quiet;	  /* advise_device(): no messages, errors in adv_source.err */
	bool save;	  /* --save: store the recommendation (advice_store.h) */
	unsigned threshold;
	const char *threshold_arg; /* as given, for messages */
	uint32_t page_size; /* --page-size, else (--input) the kernel's; a device's own */
	struct adv_spec primary;
	unsigned ncand;
	struct adv_spec cand[ADV_MAX_CANDIDATES];
	unsigned nchain;
	struct adv_spec chain[ADV_MAX_CHAIN];
	struct adv_dict_opts dict;
};

/* ---- options.c */

void adv_usage(FILE *f);
/*
 * The command line (argv[0] is "advise") into *o, with the default candidates when none
 * are given. 0 ok, 1 --help shown, 2 usage error (logged).
 */
int adv_parse_opts(int argc, char **argv, struct adv_opts *o);
/*
 * Comma-separated specs ("zstd:9,deflate") into out[max]; what names the option in messages.
 * -EINVAL/-ENOENT (logged) or -E2BIG.
 */
int adv_parse_spec_list(const char *what, const char *list, struct adv_spec *out, unsigned max,
			unsigned *ret_n);

/*
 * o->threshold below huge_class_size of page_size (zsmalloc.h); -EINVAL (logged unless
 * o->quiet) otherwise, or for a page size that is not modelled.
 */
int adv_check_threshold(const struct adv_opts *o, uint32_t page_size);

/* ---- sampling (sources) */

/*
 * splitmix64: small, and good enough to pick sample positions. One generator per run, seeded
 * from --seed, so a seeded run picks the same pages every time.
 */
struct adv_rng {
	uint64_t state;
};

static inline uint64_t adv_rng_next(struct adv_rng *g)
{
	uint64_t z = (g->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n): the high half of next * n (Lemire's multiply-shift, without rejection). */
static inline uint64_t adv_rng_below(struct adv_rng *g, uint64_t n)
{
	return n ? mul_u64_hi(adv_rng_next(g), n) : 0;
}

/*
 * Reservoir sampling (algorithm R): where item number seen (0-based) goes in a reservoir of
 * cap items, or cap when it is not kept.
 */
static inline uint64_t adv_reservoir_pos(struct adv_rng *g, uint64_t seen, uint64_t cap)
{
	uint64_t j;

	if (seen < cap)
		return seen;
	j = adv_rng_below(g, seen + 1);
	return j < cap ? j : cap;
}

/* What the pages represent: totals of the whole source, and what was sampled. */
struct adv_source {
	char name[64];
	bool device;
	uint32_t page_size;   /* of the pages: the device's, or --page-size for a file */
	uint64_t pages;	      /* pages the source holds (stored pages for a device) */
	uint64_t same_pages;  /* same-filled among them */
	uint64_t represented; /* compressed (non-same) pages the sample stands for */
	uint64_t sampled;     /* non-same pages compressed */
	uint64_t read;	      /* pages read */
	bool sampling;
	bool block_state; /* device: sample drawn from block_state's stored slots */
	bool have_now;	  /* device: current mm_stat known */
	struct zram_mm_stat now;
	uint64_t wb_pages;
	uint64_t trailing; /* file: bytes after the last whole page */
	const char *chain_from;
	int err; /* -errno of a failure, for advise_device() */
};

/* Errors of the device path, which advise_device() runs without messages. */
#define adv_error(o, ...)                                                                          \
	do {                                                                                       \
		if (!(o)->quiet)                                                                   \
			log_error(__VA_ARGS__);                                                    \
	} while (0)

/* ---- source_file.c */

/*
 * Every page of o->input into the engine, or a reservoir of o->samples of them. Returns 0,
 * or the exit code 1 after logging.
 */
int adv_read_file(const struct adv_opts *o, struct adv_rng *rng, struct adv_engine *e,
		  struct adv_source *src);

/* ---- source_device.c */

struct adv_dev_info {
	unsigned id;
	uint64_t nslots;
	uint64_t stored; /* objects in zsmalloc */
};

/*
 * The device's configuration and counters into src and di; eff->primary and eff->chain
 * from the device unless o gives them. Returns 0 or an exit code (logged unless o->quiet;
 * src->err holds -errno).
 */
int adv_device_config(const struct adv_opts *o, int root_fd, struct adv_opts *eff,
		      struct adv_source *src, struct adv_dev_info *di);
/*
 * Sample slots of /dev/zramN into the engine: stored slots from block_state when it is
 * readable, else any slots. Errors as adv_device_config().
 */
int adv_device_sample(const struct adv_opts *o, int root_fd, struct adv_rng *rng,
		      const struct adv_dev_info *di, struct adv_engine *e, struct adv_source *src);

/* ---- engine.c */

/* Same algorithm and effective level. */
bool adv_spec_equal(const struct adv_spec *a, const struct adv_spec *b);
/* An engine error for a message: the mirror bug for -EIO, else strerror(). */
const char *adv_engine_strerror(int r);

/* ---- recommend.c */

struct adv_chain_eval {
	unsigned n;
	unsigned spec[ADV_MAX_CHAIN];
	struct adv_eval ev;
};

struct adv_report {
	double scale;
	struct adv_eval primary;
	unsigned ncand;
	unsigned cand_spec[ADV_MAX_CANDIDATES];
	struct adv_eval cand[ADV_MAX_CANDIDATES];
	struct adv_chain_eval chain;
	/* recommendation */
	bool pays;
	struct adv_chain_eval best;
	unsigned threshold; /* recommended (0 = none) */
	struct adv_eval best_thr;
	unsigned probe_thr; /* a threshold shown for comparison */
	struct adv_eval probe;
	bool have_alt;
	struct adv_chain_eval alt; /* cheaper chain with >= 85% of the best saving */
	char reason[256];
	const struct adv_dict_report *dict; /* --dict, else NULL */
};

/* Pool bytes x saves against base (negative: x needs more). */
int64_t adv_saving(const struct adv_eval *base, const struct adv_eval *x);
/*
 * The recommendation from rp's candidates (rp->primary, cand_spec and scale set): best,
 * pays, alt, reason, and a threshold search when threshold (the user's) is 0.
 */
void adv_recommend(const struct adv_engine *e, unsigned threshold, struct adv_report *rp);

/* ---- dict_predict.c */

/* What --dict found: the dictionary, and the pool with and without it per priority. */
struct adv_dict_report {
	bool trained;	 /* a dictionary was trained and predicted on held-out pages */
	char why[256];	 /* when not trained: why not */
	struct dict_trained d;
	struct dict_bounds bounds;
	size_t sampled;	 /* non-same pages kept from the sample */
	size_t heldout;	 /* of them, predicted on (never trained on) */
	double scale;	 /* pages represented per held-out page */
	uint64_t represented_bytes; /* the non-same pages represented, in bytes */
	unsigned nprio;	 /* 1 (the primary) + the chain's secondaries */
	struct adv_spec prio[DICT_MAX_PRIO];
	uint64_t kernel_bytes[DICT_MAX_PRIO]; /* a zstd priority's cost with the dictionary */
	struct adv_eval without;	      /* the chain without a dictionary, held-out pages */
	unsigned nvar;
	struct dict_variant var[DICT_MAX_VARIANTS];
	struct adv_eval var_ev[DICT_MAX_VARIANTS];
	struct dict_decision dec;
	unsigned threshold_pct;
	const char *written; /* --dict-out: the file written */
	const char *installed; /* --dict-install: the device whose files were written */
};

/*
 * Number of pages e should keep for --dict (adv_engine_keep()) with eff's sample: 0 when
 * the sample is unbounded (checked by the options).
 */
size_t adv_dict_keep_pages(const struct adv_opts *eff, uint32_t page_size);
/*
 * --dict after the main run: train on a part of e's kept pages (dict_train_count(),
 * dict_split() with rng), predict eff's primary and chain with and without it on the other
 * part, decide, and write --dict-out. A sample too small or a chain without zstd is not
 * an error (dr->why says so). Returns 0 or the exit code 1 after logging.
 */
int adv_dict_predict(const struct adv_opts *eff, struct adv_rng *rng, const struct adv_engine *e,
		     const struct adv_source *src, struct adv_dict_report *dr);
void adv_dict_report_free(struct adv_dict_report *dr);
/*
 * --dict-install: dr's dictionary and prediction as dev's in dict_apply.h's directory
 * (dict_install.c). 0, or the exit code 1 after logging.
 */
int adv_dict_install(const char *dev, struct adv_dict_report *dr);

/* ---- dict_report.c: to stdout, from report.c when rp->dict is set */

void adv_dict_print_text(const struct adv_dict_report *dr);
/* The "dictionary" member of advise's JSON object, with its leading comma. */
void adv_dict_print_json(const struct adv_dict_report *dr);

/* ---- report.c: to stdout */

void adv_print_text(const struct adv_engine *e, const struct adv_source *src,
		    const struct adv_opts *o, const struct adv_report *rp);
void adv_print_json(const struct adv_engine *e, const struct adv_source *src,
		    const struct adv_opts *o, const struct adv_report *rp);

#endif
