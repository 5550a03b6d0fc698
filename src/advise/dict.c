// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Training a zstd dictionary on sampled pages, what it costs the kernel, and whether it
 * pays (include/dict.h). No messages; the numbers behind the choices: docs/dictionary.md.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_estimateCDictSize_advanced() */
#define ZDICT_STATIC_LINKING_ONLY /* ZDICT_trainFromBuffer_fastCover() */
#include "dict.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zdict.h>
#include <zstd.h>

/*
 * fastCover with fixed parameters, not ZDICT_trainFromBuffer() (which tries several k and
 * so costs a multiple): segments of k = 256 bytes, d = 8-byte d-mers, a 2^20-entry
 * frequency table. On the dev corpus it did as well as the optimizing trainers for a
 * fifth to a thirtieth of their CPU time (docs/dictionary.md).
 */
#define DICT_K 256u
#define DICT_D 8u
#define DICT_F 20u
#define DICT_ACCEL 1u
/* The trainer's tables (4 + 2 bytes per entry) and finalization (entropy statistics). */
#define DICT_TRAINER_MEM ((6ull << DICT_F) + (4ull << 20))

size_t dict_train_count(size_t n, size_t page_size, const struct dict_bounds *b)
{
	size_t t = n / 2;

	if (page_size == 0)
		return 0;
	if (t > b->max_pages)
		t = (size_t)b->max_pages;
	if (t > b->max_bytes / page_size)
		t = (size_t)(b->max_bytes / page_size);
	if (t < DICT_TRAIN_PAGES_MIN || n - t < DICT_HELDOUT_MIN)
		return 0;
	return t;
}

uint32_t dict_default_size(size_t page_size)
{
	if (page_size + DICT_SIZE_MIN > DICT_CPARAMS_SMALL)
		return DICT_CPARAMS_SMALL / 2; /* 64 KiB pages: no small-source tables anyway */
	return (uint32_t)(DICT_CPARAMS_SMALL - page_size);
}

void dict_split(size_t *idx, size_t n, size_t t, uint64_t (*below)(void *arg, uint64_t k),
		void *arg)
{
	for (size_t i = 0; i < t && i + 1 < n; i++) {
		size_t j = i + (size_t)below(arg, n - i);
		size_t x = idx[i];

		idx[i] = idx[j];
		idx[j] = x;
	}
}

/* ZDICT over the gathered sample; 0 and the dictionary's size, or -ENODATA. */
static int run_zdict(uint8_t *dict, uint32_t cap, const uint8_t *sample, const size_t *sizes,
		     unsigned t, size_t *ret_size)
{
	ZDICT_fastCover_params_t p;
	size_t n;

	memset(&p, 0, sizeof(p));
	p.k = DICT_K;
	p.d = DICT_D;
	p.f = DICT_F;
	p.accel = DICT_ACCEL;
	p.nbThreads = 1;
	p.zParams.compressionLevel = 3; /* entropy statistics of zstd's default level */
	p.zParams.notificationLevel = 0;
	n = ZDICT_trainFromBuffer_fastCover(dict, cap, sample, sizes, t, p);
	if (ZDICT_isError(n) || n == 0)
		return -ENODATA;
	*ret_size = n;
	return 0;
}

int dict_train(const uint8_t *pages, const size_t *idx, size_t t, size_t page_size, uint32_t cap,
	       struct dict_trained *ret)
{
	uint8_t *sample = NULL;
	size_t *sizes = NULL;
	uint64_t t0;
	int r = -ENOMEM;

	memset(ret, 0, sizeof(*ret));
	if (!pages || !idx || t < DICT_TRAIN_PAGES_MIN || t > UINT32_MAX || page_size == 0 ||
	    cap < DICT_SIZE_MIN || cap > DICT_SIZE_MAX || t > SIZE_MAX / page_size)
		return -EINVAL;
	sample = malloc(t * page_size);
	sizes = calloc(t, sizeof(*sizes));
	ret->buf = malloc(cap);
	if (!sample || !sizes || !ret->buf)
		goto out;
	for (size_t i = 0; i < t; i++) {
		memcpy(sample + i * page_size, pages + idx[i] * page_size, page_size);
		sizes[i] = page_size;
	}
	t0 = now_thread_cpu_ns();
	r = run_zdict(ret->buf, cap, sample, sizes, (unsigned)t, &ret->size);
	ret->cpu_seconds = (double)(now_thread_cpu_ns() - t0) / 1e9;
	if (r < 0)
		goto out;
	ret->id = ZDICT_getDictID(ret->buf, ret->size);
	ret->pages = t;
	ret->bytes = (uint64_t)t * page_size;
	ret->mem_bound = ret->bytes + t * sizeof(size_t) + cap + DICT_TRAINER_MEM;
	snprintf(ret->trainer, sizeof(ret->trainer), "fastcover k=%u d=%u f=%u", DICT_K, DICT_D,
		 DICT_F);
out:
	if (sample)
		explicit_bzero(sample, t * page_size);
	free(sample);
	free(sizes);
	if (r < 0)
		dict_trained_free(ret);
	return r;
}

void dict_trained_free(struct dict_trained *d)
{
	if (d->buf)
		explicit_bzero(d->buf, d->size);
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

uint64_t dict_kernel_bytes(size_t dict_size, int level, size_t page_size)
{
	ZSTD_compressionParameters cp = ZSTD_getCParams(level, page_size, dict_size);

	return (uint64_t)dict_size + ZSTD_estimateCDictSize_advanced(dict_size, cp, ZSTD_dlm_byRef) +
	       ZSTD_estimateDDictSize(dict_size, ZSTD_dlm_byRef);
}

int dict_write_file(const char *path, const struct dict_trained *d)
{
	int fd, r;

	if (!d->buf || d->size == 0)
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0)
		return -errno;
	r = write_full(fd, d->buf, d->size);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		(void)unlink(path); /* no partial dictionary left behind */
	return r;
}

void dict_mask_str(unsigned mask, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (unsigned p = 0; p < DICT_MAX_PRIO && len < size; p++)
		if (mask & (1u << p))
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? "," : "", p);
}

void dict_decide(struct dict_variant *v, unsigned n, uint64_t base_mem, unsigned threshold_pct,
		 struct dict_decision *ret)
{
	char prios[16];
	double pct;

	memset(ret, 0, sizeof(*ret));
	ret->best = -1;
	for (unsigned i = 0; i < n; i++) {
		v[i].saving = (int64_t)base_mem - (int64_t)v[i].mem_bytes;
		v[i].net = v[i].saving - (int64_t)v[i].kernel_bytes;
		if (ret->best < 0 || v[i].net > v[ret->best].net ||
		    (v[i].net == v[ret->best].net &&
		     __builtin_popcount(v[i].mask) < __builtin_popcount(v[ret->best].mask)))
			ret->best = (int)i;
	}
	if (ret->best < 0) {
		snprintf(ret->reason, sizeof(ret->reason),
			 "no zstd priority in the chain: only zstd's dictionaries are modelled");
		return;
	}
	dict_mask_str(v[ret->best].mask, prios, sizeof(prios));
	pct = base_mem ? 100.0 * (double)v[ret->best].net / (double)base_mem : 0.0;
	ret->recommend = v[ret->best].net > 0 &&
			 (double)v[ret->best].net * 100.0 >= (double)threshold_pct * (double)base_mem;
	snprintf(ret->reason, sizeof(ret->reason),
		 ret->recommend ? "at priority %s it saves %.1f%% of the pool net of its kernel "
				  "memory (threshold %u%%)"
				: "the best, at priority %s, saves %.1f%% of the pool net of its kernel "
				  "memory: below the %u%% threshold",
		 prios, pct, threshold_pct);
}
