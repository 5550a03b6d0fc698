/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_DICT_H
#define ZRAM_RECOMPD_DICT_H

/*
 * A zstd dictionary trained on the machine's own pages, for
 * `advise --dict`: a bounded part of advise's sample trains it (libzstd's ZDICT), the rest
 * of the sample (held out, never trained on) predicts the pool with and without it, and
 * it is recommended only where the saving net of its kernel memory clears a threshold.
 * docs/dictionary.md has the measurements behind every default here.
 *
 * A dictionary is made of fragments of the pages it was trained on, that is of process
 * memory. It stays in this process's memory (wiped before it is freed) unless the user
 * names a file for it (dict_write_file()). Storing it for a reboot (encrypted) and writing
 * it to a device (algorithm_params dict=) are not done here.
 *
 * Pure functions return -errno and do not log.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICT_CPARAMS_SMALL (128u * 1024u) /* see dict_default_size() */
#define DICT_SIZE_MIN 1024u
#define DICT_SIZE_MAX (1024u * 1024u)
#define DICT_TRAIN_PAGES_DEFAULT 4096u	 /* at most this many pages train it ... */
#define DICT_TRAIN_PAGES_MIN 16u	 /* ZDICT needs a few; fewer is refused */
#define DICT_TRAIN_BYTES_DEFAULT (16u << 20) /* ... and at most this many bytes of them */
#define DICT_TRAIN_BYTES_MAX (256u << 20)
#define DICT_HELDOUT_MIN 16u		 /* pages to predict on, at least */
#define DICT_THRESHOLD_DEFAULT 5u	 /* percent of the pool, net of kernel memory */
#define DICT_MAX_PRIO 4			 /* priority 0 (primary) to 3 */
#define DICT_MAX_VARIANTS (DICT_MAX_PRIO + 1)

struct dict_bounds {
	uint32_t dict_size;  /* the dictionary's capacity (ZDICT may return less) */
	uint64_t max_pages;  /* training pages, at most */
	uint64_t max_bytes;  /* training bytes, at most */
};

/*
 * How many of n sampled pages of page_size bytes train the dictionary: at most half of
 * them (the others are held out for the prediction), b->max_pages and b->max_bytes /
 * page_size. 0 when that leaves fewer than DICT_TRAIN_PAGES_MIN training or
 * DICT_HELDOUT_MIN held-out pages.
 */
size_t dict_train_count(size_t n, size_t page_size, const struct dict_bounds *b);

/*
 * The default dictionary size for pages of page_size bytes: 128 KiB less one page (124 KiB
 * for 4 KiB pages). The kernel sizes the CDict's tables with ZSTD_getCParams(level,
 * PAGE_SIZE, dictionary size), whose table for page + dictionary up to 128 KiB is the one
 * for small sources; one byte more quadruples the level-9 tables (1.16 to 4.17 MiB of kernel
 * memory, measured with libzstd 1.5.4). docs/dictionary.md has the sizes tried.
 */
uint32_t dict_default_size(size_t page_size);

/*
 * The held-out split: idx[0..n) is permuted (partial Fisher-Yates driven by below(arg, k),
 * uniform in [0, k)) so that idx[0..t) is a uniform random choice of t of the n indexes,
 * the training pages; idx[t..n) are the held-out ones, each index exactly once.
 */
void dict_split(size_t *idx, size_t n, size_t t, uint64_t (*below)(void *arg, uint64_t k),
		void *arg);

struct dict_trained {
	uint8_t *buf; /* the dictionary (ZDICT format: magic, id, entropy tables, content) */
	size_t size;
	uint32_t id;
	size_t pages;	     /* training pages */
	uint64_t bytes;	     /* training bytes */
	double cpu_seconds;  /* CPU time of this thread in the trainer */
	uint64_t mem_bound;  /* training sample + the trainer's own memory, at most */
	char trainer[64];    /* e.g. "fastcover k=1024 d=8 f=20" */
};

/*
 * Train on t pages of page_size bytes, page i at pages + idx[i] * page_size, into at most
 * cap bytes (DICT_SIZE_MIN..DICT_SIZE_MAX) with ZDICT's fastCover trainer (single thread,
 * fixed parameters: its CPU time grows linearly with the sample). The sample is copied
 * and wiped afterwards. -EINVAL bad arguments, -ENOMEM, -ENODATA when ZDICT cannot build a
 * dictionary from these pages (too few or too uniform). *ret is zeroed on error.
 */
int dict_train(const uint8_t *pages, const size_t *idx, size_t t, size_t page_size, uint32_t cap,
	       struct dict_trained *ret);
/* The buffer wiped (explicit_bzero) and freed; *d zeroed. */
void dict_trained_free(struct dict_trained *d);

/*
 * Kernel memory one priority holds for a dictionary of dict_size bytes at zstd level
 * level (6.12-7.3 zstd_setup_params()): the file's bytes as algorithm_params read them,
 * the CDict by reference with ZSTD_getCParams(level, PAGE_SIZE, dict_size) and the DDict
 * by reference, as libzstd estimates them. Per-CPU contexts are not counted.
 */
uint64_t dict_kernel_bytes(size_t dict_size, int level, size_t page_size);

/*
 * The dictionary into a new file at path (O_EXCL, O_NOFOLLOW, mode 0600): -EEXIST when
 * something is there, else -errno. The file holds fragments of process memory.
 */
int dict_write_file(const char *path, const struct dict_trained *d);

/* ---- the decision (pure) */

struct dict_variant {
	unsigned mask;	     /* bit p: priority p compresses with the dictionary */
	uint64_t mem_bytes;  /* predicted mem_used_total after compaction */
	uint64_t compr_bytes;
	uint64_t kernel_bytes; /* dict_kernel_bytes() of every priority in mask */
	int64_t saving;	       /* the pool without the dictionary minus mem_bytes */
	int64_t net;	       /* saving - kernel_bytes */
};

struct dict_decision {
	bool recommend;
	int best; /* index of the variant with the largest net saving, -1 none */
	char reason[256];
};

/*
 * Of n variants against a pool of base_mem bytes without a dictionary: the one with the
 * largest net saving (fewer priorities on a tie), recommended when that net saving is at
 * least threshold_pct percent of base_mem and positive. The reason says which priorities
 * and why, or why not, in one line. Fills each variant's saving and net first.
 */
void dict_decide(struct dict_variant *v, unsigned n, uint64_t base_mem, unsigned threshold_pct,
		 struct dict_decision *ret);

/* "1", "1,2" or "0" for a mask (priorities in order), into buf. */
void dict_mask_str(unsigned mask, char *buf, size_t size);

#endif
