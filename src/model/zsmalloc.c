// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zsmalloc size-class model (see include/zsmalloc.h for the kernel facts it mirrors).
 * Written from the formulas in mm/zsmalloc.c of 6.12; no kernel code is used.
 */
#include "zsmalloc.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

/* Chain length with the least unused tail; the first (shortest) wins a tie. */
static unsigned chain_length(unsigned class_size, unsigned max_chain, unsigned page_size)
{
	unsigned best = 1, best_waste = ~0u;

	if ((class_size & (class_size - 1)) == 0)
		return 1;
	for (unsigned n = 1; n <= max_chain; n++) {
		unsigned waste = (n * page_size) % class_size;

		if (waste < best_waste) {
			best_waste = waste;
			best = n;
		}
	}
	return best;
}

int zs_model_init(struct zs_model *m, unsigned chain_size, unsigned page_size)
{
	const struct zs_class *prev = NULL;

	if (chain_size < ZS_CHAIN_SIZE_MIN || chain_size > ZS_CHAIN_SIZE_MAX ||
	    page_size < ZS_PAGE_SIZE_MIN || page_size > ZS_PAGE_SIZE_MAX ||
	    (page_size & (page_size - 1)))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->chain_size = chain_size;
	m->page_size = page_size;
	m->delta = page_size >> ZS_CLASS_BITS;
	m->nclasses = (page_size - ZS_MIN_ALLOC_SIZE + m->delta - 1) / m->delta + 1;

	/* Top-down like zs_create_pool(): a merged group is named after its largest size. */
	for (int i = (int)m->nclasses - 1; i >= 0; i--) {
		unsigned size = ZS_MIN_ALLOC_SIZE + (unsigned)i * m->delta;
		unsigned ppz, opz;

		if (size > page_size)
			size = page_size;
		ppz = chain_length(size, chain_size, page_size);
		opz = ppz * page_size / size;

		/* The first class from the top that is not "one object in one page". */
		if (ppz != 1 && opz != 1 && !m->huge_class_size)
			m->huge_class_size = size - (ZS_HANDLE_SIZE - 1);

		if (prev && prev->pages_per_zspage == ppz && prev->objs_per_zspage == opz) {
			m->map[i] = (uint16_t)prev->index;
			continue;
		}
		m->cls[i] = (struct zs_class){
			.index = (unsigned)i,
			.size = size,
			.pages_per_zspage = ppz,
			.objs_per_zspage = opz,
		};
		m->map[i] = (uint16_t)i;
		m->nmerged++;
		prev = &m->cls[i];
	}
	return 0;
}

/* One default model per page size 4, 8, 16, 32 and 64 KiB (index log2(size) - 12). */
#define ZS_NR_PAGE_SIZES 5
static struct zs_model default_model[ZS_NR_PAGE_SIZES];
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void default_init(void)
{
	for (unsigned i = 0; i < ZS_NR_PAGE_SIZES; i++)
		(void)zs_model_init(&default_model[i], ZS_CHAIN_SIZE_DEFAULT,
				    ZS_PAGE_SIZE_MIN << i);
}

const struct zs_model *zs_model_default(unsigned page_size)
{
	for (unsigned i = 0; i < ZS_NR_PAGE_SIZES; i++) {
		if (page_size == ZS_PAGE_SIZE_MIN << i) {
			pthread_once(&default_once, default_init);
			return &default_model[i];
		}
	}
	return NULL;
}

/* Raw index as get_size_class_index() computes it for the looked-up size. */
static unsigned raw_index(const struct zs_model *m, size_t lookup_size)
{
	size_t idx = 0;

	if (lookup_size > ZS_MIN_ALLOC_SIZE)
		idx = (lookup_size - ZS_MIN_ALLOC_SIZE + m->delta - 1) / m->delta;
	return idx < m->nclasses - 1 ? (unsigned)idx : m->nclasses - 1;
}

const struct zs_class *zs_class_of(const struct zs_model *m, size_t obj_size)
{
	if (obj_size == 0)
		obj_size = 1;
	/* Objects at or above huge_class_size are stored whole (zram writes PAGE_SIZE). */
	if (obj_size > m->page_size)
		obj_size = m->page_size;
	return &m->cls[m->map[raw_index(m, obj_size + ZS_HANDLE_SIZE)]];
}

size_t zs_huge_class_size(unsigned page_size)
{
	const struct zs_model *m = zs_model_default(page_size);

	return m ? m->huge_class_size : 0;
}

void zs_hist_clear(struct zs_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void zs_hist_add(const struct zs_model *m, struct zs_hist *h, size_t obj_size, double n)
{
	h->objs[zs_class_of(m, obj_size)->index] += n;
}

uint64_t zs_pool_bytes(const struct zs_model *m, const struct zs_hist *h)
{
	uint64_t pages = 0;

	for (unsigned i = 0; i < m->nclasses; i++) {
		const struct zs_class *c = &m->cls[i];
		uint64_t objs, zspages;

		if (h->objs[i] <= 0.0 || c->objs_per_zspage == 0)
			continue;
		objs = (uint64_t)llround(h->objs[i]);
		zspages = (objs + c->objs_per_zspage - 1) / c->objs_per_zspage;
		pages += zspages * c->pages_per_zspage;
	}
	return pages * m->page_size;
}
