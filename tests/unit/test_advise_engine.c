// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/advise/engine.c: the per-slot decision on synthetic sizes, the evaluation on a
 * hand-built engine, the threaded engine against one thread, spec identity and speeds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "advise_internal.h"
#include "fakeroot.h"
#include "advise_pages.h" /* after fakeroot.h */

#include <errno.h>
#include <string.h>

/* ------------------------------------------------------------ decision model */

static void test_decide(void **state)
{
	const struct zs_model *m = zs_model_default(4096);
	unsigned w = 99;

	(void)state;
	/* 3000 lives in the 3072 class; 2990 too (same class: no progress). */
	assert_int_equal(adv_decide(m, 3000, (unsigned[]){2990}, 1, 0, &w), ADV_INCOMPRESSIBLE);
	/* Fewer bytes in the same class are not enough; one class lower is. */
	assert_int_equal(zs_class_of(m, 2990)->index, zs_class_of(m, 3000)->index);
	assert_int_equal(adv_decide(m, 3000, (unsigned[]){2000}, 1, 0, &w), ADV_IMPROVED);
	assert_int_equal(w, 0);
	/* Priority order: the first winner stops the chain, later ones are not tried. */
	assert_int_equal(adv_decide(m, 3000, (unsigned[]){2990, 1000, 500}, 3, 0, &w),
			 ADV_IMPROVED);
	assert_int_equal(w, 1);
	assert_int_equal(adv_decide(m, 3000, (unsigned[]){2500, 100}, 2, 0, &w), ADV_IMPROVED);
	assert_int_equal(w, 0);
	/* A larger result never wins. */
	assert_int_equal(adv_decide(m, 1000, (unsigned[]){4100, 1500}, 2, 0, &w),
			 ADV_INCOMPRESSIBLE);
	/* Threshold: old below it is skipped without an attempt. */
	assert_int_equal(adv_decide(m, 2000, (unsigned[]){100}, 1, 2500, &w), ADV_SKIPPED);
	/* old >= threshold, smaller class but new >= threshold: a miss, not 'n' (6.2-6.14). */
	assert_int_equal(adv_decide(m, 3000, (unsigned[]){2600}, 1, 2500, &w), ADV_THRESHOLD_MISS);
	/* ... but when the last one is not in a smaller class, it is marked. */
	assert_int_equal(adv_decide(m, 3000, (unsigned[]){2600, 2995}, 2, 2500, &w),
			 ADV_INCOMPRESSIBLE);
	assert_int_equal(adv_decide(m, 3000, (unsigned[]){2600, 2400}, 2, 2500, &w), ADV_IMPROVED);
	assert_int_equal(w, 1);
	/* Huge slots (stored as 4096): anything below huge_class_size wins. */
	assert_int_equal(adv_decide(m, 4096, (unsigned[]){3624}, 1, 0, &w), ADV_IMPROVED);
	assert_int_equal(adv_decide(m, 4096, (unsigned[]){3625}, 1, 0, &w), ADV_INCOMPRESSIBLE);
	/* No secondary at all. */
	assert_int_equal(adv_decide(m, 3000, NULL, 0, 0, &w), ADV_SKIPPED);

	assert_int_equal(adv_stored_len(m, 3624), 3624);
	assert_int_equal(adv_stored_len(m, 3625), 4096);
	assert_int_equal(adv_stored_len(m, 4110), 4096);
}

/* adv_evaluate() on a hand-filled engine: exact counts, bytes, pool memory and scaling. */
static void test_evaluate(void **state)
{
	const struct zs_model *m = zs_model_default(4096);
	uint16_t sizes[] = {
		/* primary, A, B */
		3000, 2000, 1000, /* A wins (3072 -> 2048 class) */
		4000, 3700, 3000, /* primary huge (4096); A huge too, B wins */
		500,  495,  100,  /* A same class; B wins */
		200,  300,  400,  /* nobody wins */
	};
	struct adv_engine e;
	struct adv_eval ev;
	struct zs_hist h;
	unsigned ab[] = {1, 2}, a[] = {1};

	(void)state;
	memset(&e, 0, sizeof(e));
	e.zs = m;
	e.nspecs = 3;
	e.npages = 4;
	e.sizes = sizes;
	e.comp_ns[1] = 4000; /* 1000 ns per page */
	e.comp_ns[2] = 8000;
	e.decomp_ns[0] = 400;

	adv_evaluate(&e, NULL, 0, 0, 1.0, &ev);
	assert_int_equal(ev.compr_bytes, 3000 + 4096 + 500 + 200);
	assert_int_equal(ev.huge_pages, 1);
	assert_int_equal(ev.improved + ev.incompressible + ev.attempted, 0);
	zs_hist_clear(&h);
	zs_hist_add(m, &h, 3000, 1);
	zs_hist_add(m, &h, 4096, 1);
	zs_hist_add(m, &h, 500, 1);
	zs_hist_add(m, &h, 200, 1);
	assert_int_equal(ev.mem_bytes, zs_pool_bytes(m, &h));

	adv_evaluate(&e, a, 1, 0, 1.0, &ev);
	assert_int_equal(ev.compr_bytes, 2000 + 4096 + 500 + 200);
	assert_int_equal(ev.improved, 1);
	assert_int_equal(ev.incompressible, 3);
	assert_int_equal(ev.attempted, 4);

	adv_evaluate(&e, ab, 2, 0, 1.0, &ev);
	assert_int_equal(ev.compr_bytes, 2000 + 3000 + 100 + 200);
	assert_int_equal(ev.improved, 3);
	assert_int_equal(ev.incompressible, 1);
	assert_int_equal(ev.huge_pages, 0);
	/* CPU: 4 decompressions (100 ns) + A on all 4 (1000 ns) + B on the 3 A lost (2000 ns). */
	assert_true(ev.cpu_seconds > 10399e-9 && ev.cpu_seconds < 10401e-9);
	zs_hist_clear(&h);
	zs_hist_add(m, &h, 2000, 1);
	zs_hist_add(m, &h, 3000, 1);
	zs_hist_add(m, &h, 100, 1);
	zs_hist_add(m, &h, 200, 1);
	assert_int_equal(ev.mem_bytes, zs_pool_bytes(m, &h));

	/* Scaling: every figure times 1000, memory from the scaled histogram. */
	adv_evaluate(&e, ab, 2, 0, 1000.0, &ev);
	assert_int_equal(ev.compr_bytes, 1000 * (2000 + 3000 + 100 + 200));
	assert_int_equal(ev.improved, 3000);
	assert_int_equal(ev.incompressible, 1000);
	zs_hist_clear(&h);
	zs_hist_add(m, &h, 2000, 1000);
	zs_hist_add(m, &h, 3000, 1000);
	zs_hist_add(m, &h, 100, 1000);
	zs_hist_add(m, &h, 200, 1000);
	assert_int_equal(ev.mem_bytes, zs_pool_bytes(m, &h));

	/*
	 * Threshold 1000: the 500 and 200 slots are skipped (not attempted). The 3000 slot: A
	 * (2000) and B (1000) reach smaller classes but not below 1000; the huge slot: B (3000)
	 * likewise. Both are misses, not marked incompressible, and keep their objects.
	 */
	adv_evaluate(&e, ab, 2, 1000, 1.0, &ev);
	assert_int_equal(ev.attempted, 2);
	assert_int_equal(ev.improved, 0);
	assert_int_equal(ev.threshold_miss, 2);
	assert_int_equal(ev.incompressible, 0);
	assert_int_equal(ev.compr_bytes, 3000 + 4096 + 500 + 200);
	/* Threshold 2500: the 3000 slot now wins with A (2000 < 2500); the huge one still misses.
	 */
	adv_evaluate(&e, ab, 2, 2500, 1.0, &ev);
	assert_int_equal(ev.improved, 1);
	assert_int_equal(ev.compr_bytes, 2000 + 4096 + 500 + 200);
}

/*
 * The threaded engine gives the same size table as one thread, in page order, across
 * several batches (a partial last one included), and counts same-filled pages apart.
 */
static void test_engine_threads(void **state)
{
	const struct adv_spec specs[] = {
		{COMP_LZO_RLE, COMP_LEVEL_DEFAULT, false},
		{COMP_ZSTD, COMP_LEVEL_DEFAULT, false},
		{COMP_LZ4, COMP_LEVEL_DEFAULT, false},
		{COMP_DEFLATE, 1, false},
	};
	const unsigned n = ADV_BATCH_PAGES * 2 + 77;
	struct adv_engine e1, e3;
	static uint8_t page[4096], dst[COMP_DST_SIZE(4096)];
	unsigned same = 0;

	(void)state;
	assert_int_equal(adv_engine_init(&e1, zs_model_default(4096), specs, 4, 1), 0);
	assert_int_equal(adv_engine_init(&e3, zs_model_default(4096), specs, 4, 3), 0);
	assert_int_equal(e1.nthreads, 1);
	assert_int_equal(e3.nthreads, 3);
	for (unsigned i = 0; i < n; i++) {
		gen_page(page, i % 7 == 3 ? 3 : i % 3, i + 1);
		same += i % 7 == 3;
		assert_int_equal(adv_engine_add_page(&e1, page), 0);
		assert_int_equal(adv_engine_add_page(&e3, page), 0);
	}
	/* Full batches are compressed as they fill; the rest waits for the flush. */
	assert_int_equal(e1.npages % ADV_BATCH_PAGES, 0);
	assert_int_equal(adv_engine_flush(&e1), 0);
	assert_int_equal(adv_engine_flush(&e3), 0);
	assert_int_equal(adv_engine_flush(&e3), 0); /* nothing queued: no change */
	assert_int_equal(e1.same_pages, same);
	assert_int_equal(e3.same_pages, same);
	assert_int_equal(e1.npages, n - same);
	assert_int_equal(e3.npages, n - same);
	assert_memory_equal(e1.sizes, e3.sizes, e1.npages * 4 * sizeof(uint16_t));
	/* Row order is page order: spot-check the last non-same page against a direct call. */
	{
		struct comp_ctx *c = NULL;
		size_t len = 0;
		unsigned last = n - 1;

		while (last % 7 == 3)
			last--;
		gen_page(page, last % 3, last + 1);
		assert_int_equal(comp_ctx_new(COMP_DEFLATE, 1, 4096, &c), 0);
		assert_int_equal(comp_compress(c, page, 4096, dst, sizeof(dst), &len), 0);
		assert_int_equal(e3.sizes[(e3.npages - 1) * 4 + 3], len);
		comp_ctx_free(c);
	}
	for (unsigned s = 0; s < 4; s++) {
		assert_true(e3.comp_ns[s] > 0);
		assert_true(e3.decomp_ns[s] > 0);
	}
	adv_engine_free(&e1);
	adv_engine_free(&e3);
	/* Bad counts. */
	assert_int_equal(adv_engine_init(&e1, zs_model_default(4096), specs, 0, 1), -EINVAL);
	assert_int_equal(adv_engine_init(&e1, zs_model_default(4096), specs, ADV_MAX_SPECS + 1, 1),
			 -EINVAL);
}

/* Specs are equal by effective level: zstd and zstd:3 are one spec, zstd:9 another. */
static void test_spec_identity(void **state)
{
	const struct adv_spec specs[] = {
		{COMP_LZO_RLE, COMP_LEVEL_DEFAULT, false},
		{COMP_ZSTD, COMP_LEVEL_DEFAULT, false},
		{COMP_ZSTD, 9, false},
	};
	struct adv_spec s = { 0 }; /* comp_parse_spec sets algo and level only */
	struct adv_engine e;

	(void)state;
	assert_int_equal(comp_parse_spec("zstd:3", &s.algo, &s.level), 0);
	assert_true(adv_spec_equal(&specs[1], &s));
	assert_false(adv_spec_equal(&specs[2], &s));
	assert_false(adv_spec_equal(&specs[0], &s));
	assert_int_equal(adv_engine_init(&e, zs_model_default(4096), specs, 3, 1), 0);
	assert_int_equal(adv_engine_find(&e, &s), 1);
	s.level = 9;
	assert_int_equal(adv_engine_find(&e, &s), 2);
	s.algo = COMP_LZ4;
	assert_int_equal(adv_engine_find(&e, &s), -1);
	/* Nothing compressed yet: no speed to report. */
	assert_true(adv_compress_mb_s(&e, 0) == 0.0);
	assert_true(adv_decompress_mb_s(&e, 1) == 0.0);
	assert_true(adv_compress_mb_s(&e, 7) == 0.0); /* no such spec */
	adv_engine_free(&e);
	assert_string_equal(adv_engine_strerror(-EIO),
			    "a compressor mirror failed its round trip (bug)");
	assert_string_equal(adv_engine_strerror(-ENOMEM), strerror(ENOMEM));
}

/* Speeds are page bytes per CPU time, in 10^6 bytes per second. */
static void test_speeds(void **state)
{
	struct adv_engine e;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.page_size = 4096;
	e.nspecs = 2;
	e.npages = 1000;	    /* 4096000 bytes */
	e.comp_ns[1] = 2000000;	    /* 2 ms: 2048 MB/s */
	e.decomp_ns[1] = 409600000; /* 409.6 ms: 10 MB/s */
	assert_true(adv_compress_mb_s(&e, 1) > 2047.99 && adv_compress_mb_s(&e, 1) < 2048.01);
	assert_true(adv_decompress_mb_s(&e, 1) > 9.99 && adv_decompress_mb_s(&e, 1) < 10.01);
	assert_true(adv_compress_mb_s(&e, 0) == 0.0);
	/* 16 KiB pages: the same CPU time for four times the bytes */
	e.page_size = 16384;
	assert_true(adv_compress_mb_s(&e, 1) > 8191.99 && adv_compress_mb_s(&e, 1) < 8192.01);
	assert_true(adv_decompress_mb_s(&e, 1) > 39.99 && adv_decompress_mb_s(&e, 1) < 40.01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),	       cmocka_unit_test(test_evaluate),
		cmocka_unit_test(test_engine_threads), cmocka_unit_test(test_spec_identity),
		cmocka_unit_test(test_speeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
