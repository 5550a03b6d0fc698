// SPDX-License-Identifier: GPL-2.0-or-later
/* The pure policy rules, table-driven on struct literals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "policy.h"
#include "util.h"

#include <math.h>

static void test_idle_age(void **state)
{
	static const struct {
		uint64_t min, max, total, avail, want;
	} t[] = {
		{ 1800, 14400, 1000, 1000, 14400 },  /* empty memory: max */
		{ 1800, 14400, 1000, 0, 1885 },	     /* full: min + 12600 * e^-5 = 1884.9 */
		{ 1800, 14400, 1000, 500, 2834 },    /* util .5: 1800 + 12600 * e^-2.5 = 2834.3 */
		{ 1800, 14400, 0, 0, 14400 },	     /* no meminfo: max */
		{ 3600, 0, 1000, 10, 0 },	     /* max 0 = "all" */
		{ 600, 600, 1000, 10, 600 },	     /* fixed age */
		{ 900, 600, 1000, 10, 900 },	     /* inverted range: min */
		{ 1800, 14400, 1000, 2000, 14400 },  /* MemAvailable > MemTotal: clamp */
		{ 0, UINT64_MAX / 2, 1, 1, UINT64_MAX / 2 }, /* huge: no overflow */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		uint64_t got = policy_idle_age(t[i].min, t[i].max, t[i].total, t[i].avail);

		if (t[i].max < (1ULL << 50))
			assert_int_equal(got, t[i].want);
		else
			assert_true(got >= t[i].want - 1024 && got <= t[i].max);
	}
}

static void test_fragmentation_and_compact(void **state)
{
	static const struct {
		uint64_t compr, used;
		unsigned permille;
		bool auto_compact;
	} t[] = {
		{ 41000000, 43100000, 48, false },  /* fresh lzo-rle pool (ABI §9.1) */
		{ 30300000, 37300000, 187, true },  /* after recompression, before compact */
		{ 30300000, 32060000, 54, false },  /* after compaction */
		{ 90, 100, 100, true },		    /* exactly at the limit */
		{ 0, 0, 0, false },		    /* empty device */
		{ 200, 100, 0, false },		    /* inconsistent read: no wrap */
		{ 0, UINT64_MAX, 1000, true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct zram_mm_stat mm = { .nfields = 9 };

		mm.v[MM_COMPR_DATA_SIZE] = t[i].compr;
		mm.v[MM_MEM_USED_TOTAL] = t[i].used;
		assert_int_equal(policy_fragmentation_permille(&mm), t[i].permille);
		assert_int_equal(policy_should_compact(COMPACT_AUTO, &mm, 100, 0, 0),
				 t[i].auto_compact);
		assert_false(policy_should_compact(COMPACT_NEVER, &mm, 100, 1 << 30, 1));
		assert_int_equal(policy_should_compact(COMPACT_ALWAYS, &mm, 100, 0, 0),
				 t[i].used > 0);
		/* the "saved enough" rule */
		assert_int_equal(policy_should_compact(COMPACT_AUTO, &mm, 100, 16 << 20, 16 << 20),
				 t[i].used > 0);
		assert_int_equal(policy_should_compact(COMPACT_AUTO, &mm, 100, (16 << 20) - 1,
						       16 << 20),
				 t[i].auto_compact);
		/* a configurable share */
		assert_int_equal(policy_should_compact(COMPACT_AUTO, &mm, 200, 0, 0),
				 policy_fragmentation_permille(&mm) >= 200 && t[i].used > 0);
	}
}

static void test_batch(void **state)
{
	struct zram_mm_stat a = { .nfields = 9 }, b;

	(void)state;
	a.v[MM_COMPR_DATA_SIZE] = 1000;
	a.v[MM_HUGE_PAGES] = 10;
	b = a;
	assert_false(policy_batch_progress(&a, &b, 5, 5));
	assert_true(policy_batch_progress(&a, &b, 5, 6)); /* new n/r marks */
	b.v[MM_COMPR_DATA_SIZE] = 999;
	assert_true(policy_batch_progress(&a, &b, 0, 0));
	b = a;
	b.v[MM_HUGE_PAGES] = 9;
	assert_true(policy_batch_progress(&a, &b, 0, 0));
	b = a;
	b.v[MM_COMPR_DATA_SIZE] = 2000; /* grew (new writes): not progress of ours */
	assert_false(policy_batch_progress(&a, &b, 0, 0));

	static const struct {
		struct batch_state st;
		bool progress;
		enum batch_verdict v;
		uint64_t next_pages;
	} t[] = {
		{ { 0, 2048, true }, true, BATCH_CONTINUE, 2048 },
		{ { 0, 2048, true }, false, BATCH_STOP_NO_PROGRESS, 2048 },
		{ { 4096, 2048, true }, true, BATCH_CONTINUE, 2048 },
		{ { 4096, 4096, true }, true, BATCH_STOP_BUDGET, 1 },
		{ { 3000, 2048, true }, true, BATCH_CONTINUE, 952 },
		{ { 3000, UINT64_MAX, true }, true, BATCH_STOP_BUDGET, 1 },
		{ { 0, UINT64_MAX, true }, true, BATCH_CONTINUE, 2048 },
		{ { 0, 0, false }, true, BATCH_STOP_UNBATCHED, 2048 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(policy_batch_next(&t[i].st, t[i].progress), t[i].v);
		assert_int_equal(policy_batch_pages(&t[i].st, 2048), t[i].next_pages);
	}
	/* a batch size of 0 would mean "nothing" to the kernel: never produced */
	struct batch_state z = { 0, 0, true };
	assert_int_equal(policy_batch_pages(&z, 0), 1);
}

static void test_saturating(void **state)
{
	(void)state;
	assert_true(sat_add_u64(UINT64_MAX, 1) == UINT64_MAX);
	assert_true(sat_sub_u64(1, 2) == 0);
	assert_true(sat_mul_u64(UINT64_MAX / 2, 3) == UINT64_MAX);
	assert_true(delta_i64(10, 3) == -7);
	assert_true(delta_i64(3, 10) == 7);
	assert_true(delta_i64(0, UINT64_MAX) == INT64_MAX);
	assert_true(delta_i64(UINT64_MAX, 0) == INT64_MIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_age),
		cmocka_unit_test(test_fragmentation_and_compact),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_saturating),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
