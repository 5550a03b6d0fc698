// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zsmalloc size-class model. Expected values were computed from the formulas of
 * mm/zsmalloc.c (6.12) by a separate script. Checked on a real 6.12.118 kernel (qemu, chain
 * size 8) with /work/shared/corpus/dev.pages.zst, 8104 non-same pages written one by one:
 *  - huge_class_size 3625: recompress threshold=3625 gives EINVAL, 3624 is accepted, and
 *    every page the mirrors compress to >= 3625 bytes added exactly 4096 to compr_data_size;
 *  - pool memory: zs_pool_bytes() of the stored sizes equalled mem_used_total exactly for
 *    lzo-rle, lzo, lz4, zstd, zstd:9 and deflate primaries (sequential writes, before and
 *    after compaction) and after recompressing lzo-rle -> zstd (-> deflate) plus compaction.
 * Individual lookups below (merged groups, chain sizes 4 and 16) are computed only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "zsmalloc.h"

#include <errno.h>
#include <string.h>

static void test_default_model(void **state)
{
	const struct zs_model *m = zs_model_default(4096);

	(void)state;
	assert_int_equal(m->chain_size, 8);
	assert_int_equal(m->huge_class_size, 3625);
	assert_int_equal(zs_huge_class_size(4096), 3625);
	assert_int_equal(m->nmerged, 119);
	assert_ptr_equal(zs_model_default(4096), m);
}

static void test_chain_sizes(void **state)
{
	struct zs_model m;

	(void)state;
	assert_int_equal(zs_model_init(&m, 4, 4096), 0);
	assert_int_equal(m.huge_class_size, 3257);
	assert_int_equal(m.nmerged, 69);
	assert_int_equal(zs_model_init(&m, 16, 4096), 0);
	assert_int_equal(m.huge_class_size, 3833);
	assert_int_equal(m.nmerged, 192);
	assert_int_equal(zs_model_init(&m, 3, 4096), -EINVAL);
	assert_int_equal(zs_model_init(&m, 17, 4096), -EINVAL);
}

static void test_class_of(void **state)
{
	static const struct {
		size_t obj;
		unsigned index, size, ppz, opz;
	} t[] = {
		{0, 0, 32, 1, 128},			       /* 0 is looked up like 1 */
		{1, 0, 32, 1, 128},	  {24, 0, 32, 1, 128}, /* 24 + 8-byte handle = 32 */
		{25, 1, 48, 3, 256},	  {40, 1, 48, 3, 256},	    {56, 2, 64, 1, 64},
		{100, 5, 112, 7, 256},	  {1000, 62, 1024, 1, 4},   {2000, 126, 2048, 1, 2},
		{2712, 168, 2720, 2, 3},  {2713, 177, 2864, 7, 10}, /* merged group 169..177 */
		{2856, 177, 2864, 7, 10}, {3000, 190, 3072, 3, 4},  {3500, 222, 3584, 7, 8},
		{3624, 225, 3632, 8, 9}, /* largest non-huge */
		{3625, 254, 4096, 1, 1}, /* huge_class_size */
		{4000, 254, 4096, 1, 1},  {4096, 254, 4096, 1, 1},  {8192, 254, 4096, 1, 1},
	};
	const struct zs_model *m = zs_model_default(4096);

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const struct zs_class *c = zs_class_of(m, t[i].obj);

		assert_int_equal(c->index, t[i].index);
		assert_int_equal(c->size, t[i].size);
		assert_int_equal(c->pages_per_zspage, t[i].ppz);
		assert_int_equal(c->objs_per_zspage, t[i].opz);
	}
}

/* Properties that hold for every size: monotonic, fits, huge boundary exact. */
static void class_invariants_at(unsigned ps)
{
	const struct zs_model *m = zs_model_default(ps);
	unsigned prev = 0;

	assert_non_null(m);
	for (size_t n = 1; n <= ps; n++) {
		const struct zs_class *c = zs_class_of(m, n);

		assert_true(c->index >= prev);
		prev = c->index;
		if (n < m->huge_class_size) {
			assert_true(c->size >= n + ZS_HANDLE_SIZE);
			assert_true(c->objs_per_zspage > 1);
			assert_true(c->pages_per_zspage <= m->chain_size);
		} else {
			assert_int_equal(c->index, m->nclasses - 1);
			assert_int_equal(c->size, ps);
			assert_int_equal(c->objs_per_zspage, 1);
		}
		/* A class wastes less than one object per zspage. */
		assert_true(c->pages_per_zspage * ps - c->objs_per_zspage * c->size < c->size);
	}
}

static void test_class_invariants(void **state)
{
	(void)state;
	class_invariants_at(4096);
	class_invariants_at(16384);
	class_invariants_at(65536);
}

/*
 * The classes follow PAGE_SIZE (delta = PAGE_SIZE >> 8, up to PAGE_SIZE): figures of the
 * kernel's formulas for 4, 16 and 64 KiB pages with the default chain of 8.
 */
static void test_page_sizes(void **state)
{
	static const struct {
		unsigned ps, delta, nclasses, huge, nmerged, big_size, pool_1000x100;
	} t[] = {
		{4096, 16, 255, 3625, 119, 3632, 25 * 4096},	/* 4 per page */
		{16384, 64, 257, 14553, 121, 14560, 4 * 2 * 16384}, /* 31 per 2 pages */
		{65536, 256, 257, 58137, 123, 58144, 2 * 65536},    /* 62 per page */
	};
	struct zs_model m;
	struct zs_hist h;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const struct zs_model *d = zs_model_default(t[i].ps);

		assert_non_null(d);
		assert_int_equal(d->page_size, t[i].ps);
		assert_int_equal(d->delta, t[i].delta);
		assert_int_equal(d->nclasses, t[i].nclasses);
		assert_int_equal(d->huge_class_size, t[i].huge);
		assert_int_equal(zs_huge_class_size(t[i].ps), t[i].huge);
		assert_int_equal(d->nmerged, t[i].nmerged);
		/* the largest non-huge class holds 9 objects in 8 pages at every size */
		assert_int_equal(zs_class_of(d, t[i].huge - 1)->size, t[i].big_size);
		assert_int_equal(zs_class_of(d, t[i].huge - 1)->pages_per_zspage, 8);
		assert_int_equal(zs_class_of(d, t[i].huge - 1)->objs_per_zspage, 9);
		zs_hist_clear(&h);
		zs_hist_add(d, &h, 1000, 100);
		assert_int_equal(zs_pool_bytes(d, &h), t[i].pool_1000x100);
		/* a huge object takes one whole page of that size */
		zs_hist_clear(&h);
		zs_hist_add(d, &h, t[i].huge, 1);
		assert_int_equal(zs_pool_bytes(d, &h), t[i].ps);
	}
	/* 8 and 32 KiB are page sizes too; nothing else is */
	assert_int_equal(zs_huge_class_size(8192), 7257);
	assert_int_equal(zs_huge_class_size(32768), 29081);
	assert_null(zs_model_default(12288));
	assert_int_equal(zs_huge_class_size(2048), 0);
	assert_int_equal(zs_huge_class_size(131072), 0);
	assert_int_equal(zs_model_init(&m, 8, 12288), -EINVAL);
	assert_int_equal(zs_model_init(&m, 8, 0), -EINVAL);
}

static void test_pool_bytes(void **state)
{
	const struct zs_model *m = zs_model_default(4096);
	struct zs_hist h;

	(void)state;
	zs_hist_clear(&h);
	assert_int_equal(zs_pool_bytes(m, &h), 0);
	/* 10 objects in the 3632 class (9 per 8-page zspage): 2 zspages = 16 pages. */
	zs_hist_add(m, &h, 3624, 10);
	assert_int_equal(zs_pool_bytes(m, &h), 16 * 4096);
	/* One huge object: one page. */
	zs_hist_add(m, &h, 4096, 1);
	assert_int_equal(zs_pool_bytes(m, &h), 17 * 4096);
	/* 128 objects of 24 bytes fill one page; the 129th needs another. */
	zs_hist_clear(&h);
	zs_hist_add(m, &h, 24, 128);
	assert_int_equal(zs_pool_bytes(m, &h), 4096);
	zs_hist_add(m, &h, 1, 1);
	assert_int_equal(zs_pool_bytes(m, &h), 2 * 4096);
	/* Merged sizes share zspages: 2713 and 2856 both live in the 2864 class (10 per 7). */
	zs_hist_clear(&h);
	zs_hist_add(m, &h, 2713, 5);
	zs_hist_add(m, &h, 2856, 5);
	assert_int_equal(zs_pool_bytes(m, &h), 7 * 4096);
	/* Scaled counts round to the nearest object before the per-class ceiling. */
	zs_hist_clear(&h);
	zs_hist_add(m, &h, 1000, 4.4); /* 4 objects of the 1024 class: one page */
	assert_int_equal(zs_pool_bytes(m, &h), 4096);
	zs_hist_add(m, &h, 1000, 0.2); /* 4.6 -> 5: two pages */
	assert_int_equal(zs_pool_bytes(m, &h), 2 * 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_model), cmocka_unit_test(test_chain_sizes),
		cmocka_unit_test(test_class_of),      cmocka_unit_test(test_class_invariants),
		cmocka_unit_test(test_page_sizes),    cmocka_unit_test(test_pool_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
