// SPDX-License-Identifier: GPL-2.0-or-later
/* The pure policy rules, table-driven on struct literals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "blockstate.h"
#include "policy.h"
#include "util.h"
#include "write_cost.h"

#include <errno.h>
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
		/* 0 = any saving: the 7.3 case (8.7% fragmentation, 10.2 MiB saved) compacts */
		assert_int_equal(policy_should_compact(COMPACT_AUTO, &mm, 100, 1, 0), t[i].used > 0);
	}
	/* The 7.3.4 measurement: recompression left 8.7% fragmentation. */
	struct zram_mm_stat m73 = { .nfields = 9 };

	m73.v[MM_COMPR_DATA_SIZE] = 30290000;
	m73.v[MM_MEM_USED_TOTAL] = 33177600;
	assert_int_equal(policy_fragmentation_permille(&m73), 87);
	assert_false(policy_should_compact(COMPACT_AUTO, &m73, 100, 0, 0));
	assert_true(policy_should_compact(COMPACT_AUTO, &m73, 100, 10695475, 0));
	assert_false(policy_should_compact(COMPACT_AUTO, &m73, 100, 10695475, 16 << 20));
}

static const struct pass_step *find_step(const struct pass_plan *p, enum pass_type t,
					 unsigned prio)
{
	for (unsigned i = 0; i < p->n_steps; i++)
		if (p->steps[i].type == t && p->steps[i].priority == prio)
			return &p->steps[i];
	return NULL;
}

/* One priority per write: the expansion of "every secondary" by kernel version. */
static void test_expand_plan(void **state)
{
	struct pass_plan in = {
		.n_steps = 3,
		.steps = { { .type = PASS_HUGE_IDLE, .mark_idle = true, .idle_age_sec = 3600 },
			   { .type = PASS_IDLE },
			   { .type = PASS_HUGE } },
		.batch_pages = 2048,
	};
	struct policy_kernel k612y = { .priority = true, .clears_idle = true, .prio_set = 0x6 };
	struct policy_kernel k6120 = { .priority = true, .clears_idle = false, .prio_set = 0x6 };
	struct policy_kernel k611 = { .priority = false, .clears_idle = false, .prio_set = 0x6 };
	struct pass_plan out;
	const struct pass_step *st;

	(void)state;
	/* 6.12.y/7.x, two secondaries: 3 types x 2 priorities, lowest first */
	policy_expand_plan(&in, &k612y, &out);
	assert_int_equal(out.n_steps, 6);
	assert_int_equal(out.batch_pages, 2048);
	for (unsigned i = 0; i < out.n_steps; i++) {
		assert_int_equal(out.steps[i].priority, i % 2 + 1);
		assert_int_equal(out.steps[i].fallback, i % 2 == 1);
		assert_int_equal(out.steps[i].type, in.steps[i / 2].type);
	}
	/* the first keeps its mark; #2 of an idle type re-marks with the same age */
	assert_true(out.steps[0].mark_idle);
	assert_true(out.steps[1].mark_idle);
	assert_int_equal(out.steps[1].idle_age_sec, 3600);
	assert_false(out.steps[2].mark_idle); /* idle #1: the earlier mark still holds */
	assert_true(out.steps[3].mark_idle);
	assert_int_equal(out.steps[3].idle_age_sec, 3600);
	st = find_step(&out, PASS_HUGE, 2);
	assert_non_null(st);
	assert_false(st->mark_idle); /* huge does not filter on idle */

	/* 6.12.0: recompression keeps the idle marks, no re-mark */
	policy_expand_plan(&in, &k6120, &out);
	assert_int_equal(out.n_steps, 6);
	assert_false(out.steps[1].mark_idle);
	assert_false(out.steps[3].mark_idle);

	/* 6.2-6.11: the kernel walks the list itself; nothing changes */
	policy_expand_plan(&in, &k611, &out);
	assert_int_equal(out.n_steps, 3);
	assert_int_equal(out.steps[1].priority, 0);

	/* one secondary: one step each, priority 1, no fallback */
	k612y.prio_set = 0x2;
	policy_expand_plan(&in, &k612y, &out);
	assert_int_equal(out.n_steps, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(out.steps[i].priority, 1);
		assert_false(out.steps[i].fallback);
	}

	/* an explicit priority is kept as it is; a gap uses the priorities that exist */
	in.steps[1].priority = 2;
	k612y.prio_set = 0xe;
	policy_expand_plan(&in, &k612y, &out);
	assert_int_equal(out.n_steps, 7);
	assert_non_null(find_step(&out, PASS_IDLE, 2));
	assert_null(find_step(&out, PASS_IDLE, 1));
	k612y.prio_set = 0x4; /* only #2 (a 6.2-6.14 device; 6.15+ refuses gaps) */
	policy_expand_plan(&in, &k612y, &out);
	assert_int_equal(out.n_steps, 3);
	assert_int_equal(out.steps[0].priority, 2);
	assert_false(out.steps[0].fallback);

	/* never more steps than fit */
	struct pass_plan big = { .n_steps = PASS_MAX_STEPS };
	k612y.prio_set = 0xe;
	policy_expand_plan(&big, &k612y, &out);
	assert_int_equal(out.n_steps, PASS_MAX_STEPS);
}

/* Which writes mark the pages they fail on incompressible, by version. */
static void test_failures_marked(void **state)
{
	struct zram_caps c611 = { .multi_comp = true }, c614, c615, c70, c73;
	struct kver v;

	(void)state;
	v = (struct kver){ 6, 14, 0 };
	zram_caps_derive(&c614, &v, true, true, true, true, TRI_YES);
	v = (struct kver){ 6, 15, 0 };
	zram_caps_derive(&c615, &v, true, true, true, true, TRI_YES);
	v = (struct kver){ 7, 0, 0 };
	zram_caps_derive(&c70, &v, true, true, true, true, TRI_YES);
	v = (struct kver){ 7, 3, 4 };
	zram_caps_derive(&c73, &v, true, true, true, true, TRI_YES);
	assert_true(policy_failures_marked(&c611, 0, 2));
	assert_true(policy_failures_marked(&c614, 1, 1));
	assert_false(policy_failures_marked(&c614, 2, 2)); /* only one of two tried */
	assert_false(policy_failures_marked(&c614, 1, 2));
	assert_true(policy_failures_marked(&c615, 2, 2));
	assert_false(policy_failures_marked(&c615, 1, 2));
	assert_true(policy_failures_marked(&c70, 0, 2)); /* chained write, 7.0 */
	assert_false(policy_failures_marked(&c73, 1, 2));
	assert_true(policy_failures_marked(&c73, 2, 2));
	assert_true(policy_failures_marked(&c73, 1, 1));
	assert_true(c73.single_prio && c73.blocking_pp && c73.clears_idle);
	assert_false(c70.single_prio);
	assert_true(c70.blocking_pp);
	assert_false(c614.blocking_pp);
}

/*
 * Passes at the burst age go without block_state where every step's failures are marked
 * (policy_pass_blind); their candidates come from mm_stat (policy_blind_candidates).
 */
static void test_pass_blind(void **state)
{
	struct zram_caps c612, c73;
	struct pass_plan p = {
		.n_steps = 3,
		.steps = { { .type = PASS_HUGE_IDLE, .mark_idle = true, .priority = 1 },
			   { .type = PASS_IDLE, .priority = 1 },
			   { .type = PASS_HUGE, .priority = 1 } },
		.burst_aged = true,
	};
	struct kver v = { 6, 12, 118 };

	(void)state;
	zram_caps_derive(&c612, &v, true, true, true, true, TRI_YES);
	v = (struct kver){ 7, 3, 4 };
	zram_caps_derive(&c73, &v, true, true, true, true, TRI_YES);
	/* one secondary: every failure marked */
	assert_true(policy_pass_blind(&p, &c612, 1));
	assert_true(policy_pass_blind(&p, &c73, 1));
	/* two secondaries: priority 1's failures are not marked (6.12, and 7.3 with #2 set) */
	assert_false(policy_pass_blind(&p, &c612, 2));
	assert_false(policy_pass_blind(&p, &c73, 2));
	/* not at the burst age, with a threshold, or with a fallback: block_state as before */
	p.burst_aged = false;
	assert_false(policy_pass_blind(&p, &c612, 1));
	p.burst_aged = true;
	p.threshold = 1000;
	assert_false(policy_pass_blind(&p, &c612, 1));
	p.threshold = 0;
	p.steps[2].fallback = true;
	assert_false(policy_pass_blind(&p, &c612, 1));
	p.steps[2].fallback = false;
	p.steps[1].priority = 2; /* the cold tier's priority */
	assert_false(policy_pass_blind(&p, &c73, 2));

	/* idle: stored less same-filled; huge types: the huge pages, at most the stored */
	assert_int_equal(policy_blind_candidates(PASS_IDLE, 1000, 40, 7), 960);
	assert_int_equal(policy_blind_candidates(PASS_IDLE, 10, 40, 7), 0);
	assert_int_equal(policy_blind_candidates(PASS_HUGE_IDLE, 1000, 40, 7), 7);
	assert_int_equal(policy_blind_candidates(PASS_HUGE, 1000, 40, 7), 7);
	assert_int_equal(policy_blind_candidates(PASS_HUGE, 5, 0, 7), 5);
}

/* Compaction between a step's writes: under pressure only, 1 MiB and 1/64 of the pool. */
static void test_compact_in_step(void **state)
{
	(void)state;
	/* no pressure, compact = never, or an empty pool: never */
	assert_false(policy_compact_in_step(COMPACT_AUTO, 0, 1u << 30, 100u << 20));
	assert_false(policy_compact_in_step(COMPACT_NEVER, 1000, 1u << 30, 100u << 20));
	assert_false(policy_compact_in_step(COMPACT_AUTO, 1000, 1u << 30, 0));
	/* a 32 MiB pool: 1/64 is 512 KiB, so the 1 MiB floor decides */
	assert_false(policy_compact_in_step(COMPACT_AUTO, 1, (1u << 20) - 1, 32u << 20));
	assert_true(policy_compact_in_step(COMPACT_AUTO, 1, 1u << 20, 32u << 20));
	assert_true(policy_compact_in_step(COMPACT_ALWAYS, 500, 1u << 20, 32u << 20));
	/* a 1 GiB pool: 16 MiB */
	assert_false(policy_compact_in_step(COMPACT_AUTO, 1000, (16u << 20) - 1, 1u << 30));
	assert_true(policy_compact_in_step(COMPACT_AUTO, 1000, 16u << 20, 1u << 30));
	/* no overflow at the top */
	assert_true(policy_compact_in_step(COMPACT_AUTO, 1000, UINT64_MAX, UINT64_MAX));
	assert_false(policy_compact_in_step(COMPACT_AUTO, 1000, UINT64_MAX / 65, UINT64_MAX));
}

static void test_idle_walk_worth(void **state)
{
	(void)state;
	assert_false(policy_idle_walk_worth(0, 0, true, 0));
	assert_false(policy_idle_walk_worth(0, 10, false, 0));
	assert_true(policy_idle_walk_worth(1, 0, true, 0));
	/* 6.2-6.14: the walk decompresses every recompressed slot, at half a page's cost */
	assert_true(policy_idle_walk_worth(500, 1000, true, 0));
	assert_true(policy_idle_walk_worth(500, 1001, true, 0));
	assert_false(policy_idle_walk_worth(499, 1000, true, 0));
	assert_false(policy_idle_walk_worth(800, 55000, true, 0));
	/* 6.15+: those slots are skipped in the scan */
	assert_true(policy_idle_walk_worth(1, 55000, false, 0));
	/* memory pressure: the divisor grows from 2 to 8 in proportion (5 at half) */
	assert_false(policy_idle_walk_worth(1999, 10000, true, 500));
	assert_true(policy_idle_walk_worth(2000, 10000, true, 500));
	assert_false(policy_idle_walk_worth(1249, 10000, true, 1000));
	assert_true(policy_idle_walk_worth(1250, 10000, true, 1000));
	assert_true(policy_idle_walk_worth(1250, 10000, true, 5000)); /* clamped to full */
	assert_false(policy_idle_walk_worth(1249, 10000, true, 5000));
	/* the 6.12 burst's fourth pass: about 4,000 fresh against 12,000 recompressed */
	assert_false(policy_idle_walk_worth(4000, 12000, true, 0));
	assert_true(policy_idle_walk_worth(4000, 12000, true, 1000));
	/* no overflow near the top */
	assert_true(policy_idle_walk_worth(UINT64_MAX / 8 + 1, UINT64_MAX, true, 1000));
	assert_false(policy_idle_walk_worth(UINT64_MAX / 8 - 1, UINT64_MAX, true, 1000));
}

/* The huge step's wait: 0 while it pays, then 1, 2, 4, 8 passes, 0 again once it pays. */
static void test_huge_wait(void **state)
{
	(void)state;
	assert_int_equal(policy_huge_wait(0, 0, 0), 0);		/* nothing tried: as it was */
	assert_int_equal(policy_huge_wait(4, 0, 0), 4);
	assert_int_equal(policy_huge_wait(0, 64 * 1024, 4096 * 1024), 0); /* 1/64: pays */
	assert_int_equal(policy_huge_wait(0, 64 * 1024 - 1, 4096 * 1024), 1);
	assert_int_equal(policy_huge_wait(1, 0, 4096), 2);
	assert_int_equal(policy_huge_wait(2, 0, 4096), 4);
	assert_int_equal(policy_huge_wait(4, 0, 4096), 8);
	assert_int_equal(policy_huge_wait(8, 0, 4096), 8); /* never past POLICY_HUGE_WAIT_MAX */
	assert_int_equal(policy_huge_wait(8, 1 << 20, 4096), 0);
	/* the burst bench's huge step: 31.8 KiB saved of about 2,500 pages tried */
	assert_int_equal(policy_huge_wait(0, 32563, 2500ULL * 4096), 1);
}

/* ENOMEM halves the next write's batch; each write that succeeds doubles it back. */
static void test_enomem_batch(void **state)
{
	uint64_t b = 2048;

	(void)state;
	for (int i = 0; i < 6; i++)
		b = policy_enomem_batch(b, 2048, true);
	assert_int_equal(b, 32);
	b = policy_enomem_batch(b, 2048, false);
	assert_int_equal(b, 64);
	for (int i = 0; i < 4; i++)
		b = policy_enomem_batch(b, 2048, false);
	assert_int_equal(b, 1024);
	b = policy_enomem_batch(b, 2048, false);
	assert_int_equal(b, 2048);
	assert_int_equal(policy_enomem_batch(b, 2048, false), 2048); /* never past full */
	assert_int_equal(policy_enomem_batch(1, 2048, true), 1);     /* never below one page */
	assert_int_equal(policy_enomem_batch(1500, 2048, false), 2048);
	assert_int_equal(policy_enomem_batch(4096, 2048, false), 4096); /* not shrunk either */
}

/*
 * Failures marked: a step goes on while its writes' max_pages are fewer than the
 * candidates counted at its start; a step of none writes nothing more after its first.
 */
static void test_marked_step_more(void **state)
{
	(void)state;
	assert_true(policy_marked_step_more(0, 1));
	assert_true(policy_marked_step_more(2047, 2048));
	assert_false(policy_marked_step_more(2048, 2048));
	assert_false(policy_marked_step_more(4096, 3000));
	assert_false(policy_marked_step_more(64, 0));
	assert_true(policy_marked_step_more(0, UINT64_MAX));
}

/*
 * Counts after writes that tried at most N pages: the fresh counts fall by N (never below
 * 0), 'r' (what an idle walk meets) rises by N (saturating); the rest is as read.
 */
static void test_counts_after(void **state)
{
	struct bs_counts c = { .allocated = 100, .huge = 30, .idle = 60, .recompressed = 10,
			       .incompressible = 5, .idle_fresh = 45, .huge_idle_fresh = 20,
			       .huge_fresh = 25 };

	(void)state;
	policy_counts_after(&c, 20);
	assert_int_equal(c.idle_fresh, 25);
	assert_int_equal(c.huge_idle_fresh, 0);
	assert_int_equal(c.huge_fresh, 5);
	assert_int_equal(c.recompressed, 30);
	assert_int_equal(c.allocated, 100);
	assert_int_equal(c.incompressible, 5);
	policy_counts_after(&c, UINT64_MAX);
	assert_int_equal(c.idle_fresh, 0);
	assert_true(c.recompressed == UINT64_MAX);
	c = (struct bs_counts){ .idle_fresh = 7, .recompressed = 3 };
	policy_counts_after(&c, 0);
	assert_int_equal(c.idle_fresh, 7);
	assert_int_equal(c.recompressed, 3);
}

/* A pass's end reads block_state for its report only without memory pressure. */
static void test_end_read(void **state)
{
	(void)state;
	assert_true(policy_end_read(false));
	assert_false(policy_end_read(true));
}

/*
 * An idle step's go-ahead from estimated counts: fresh pages left and, where the walk
 * decompresses, enough of them for it; otherwise undecided (the caller reads).
 */
static void test_idle_go(void **state)
{
	(void)state;
	assert_false(policy_idle_go(0, 0, false, true, 0));
	assert_false(policy_idle_go(0, 0, true, false, 0));
	assert_true(policy_idle_go(1, 100000, false, true, 0)); /* huge_idle: no walk check */
	assert_true(policy_idle_go(500, 1000, true, true, 0));
	assert_false(policy_idle_go(499, 1000, true, true, 0));
	assert_true(policy_idle_go(1, 100000, true, false, 0)); /* 6.15+: no decompressing walk */
	/* under full memory pressure the walk may cost more */
	assert_true(policy_idle_go(125, 1000, true, true, 1000));
	assert_false(policy_idle_go(124, 1000, true, true, 1000));
}

/* 6.2-6.12 under memory pressure: max-write-ms grows to (1 + 7m) x, 0 (no bound) stays 0. */
static void test_write_bound(void **state)
{
	const uint64_t ms = 1000000;

	(void)state;
	assert_true(policy_write_bound_ns(100 * ms, 0) == 100 * ms);
	assert_true(policy_write_bound_ns(100 * ms, 500) == 450 * ms);
	assert_true(policy_write_bound_ns(100 * ms, 1000) == 800 * ms);
	assert_true(policy_write_bound_ns(100 * ms, 4000) == 800 * ms); /* m clamped */
	assert_true(policy_write_bound_ns(0, 1000) == 0);
	assert_true(policy_write_bound_ns(UINT64_MAX, 1000) == UINT64_MAX); /* saturates */
	for (unsigned m = 0; m < 1000; m += 100)
		assert_true(policy_write_bound_ns(100 * ms, m + 100) > policy_write_bound_ns(100 * ms, m));
}

/* A burst: at least half of the stored pages younger than the idle age. */
static void test_burst_young(void **state)
{
	(void)state;
	assert_true(policy_burst_young(50, 100));
	assert_true(policy_burst_young(51, 101)); /* half rounded up */
	assert_false(policy_burst_young(50, 101));
	assert_false(policy_burst_young(49, 100));
	assert_true(policy_burst_young(100, 100));
	assert_false(policy_burst_young(0, 0)); /* an empty device is no burst */
	assert_true(policy_burst_young(1, 1));
	assert_true(policy_burst_young(UINT64_MAX / 2 + 1, UINT64_MAX));
}

/* Only the idle-gated types leave the young pages as they were read (pass_counts_young). */
static void test_write_keeps_young(void **state)
{
	(void)state;
	assert_true(policy_write_keeps_young(PASS_IDLE));
	assert_true(policy_write_keeps_young(PASS_HUGE_IDLE));
	assert_false(policy_write_keeps_young(PASS_HUGE)); /* tries young huge pages too */
}

static void test_batch(void **state)
{
	struct zram_mm_stat a = { .nfields = 9 }, b;

	(void)state;
	a.v[MM_COMPR_DATA_SIZE] = 1000;
	a.v[MM_HUGE_PAGES] = 10;
	b = a;
	assert_false(policy_batch_progress(&a, &b, true, 5, 5));
	assert_true(policy_batch_progress(&a, &b, true, 5, 6)); /* new n/r marks */
	b.v[MM_COMPR_DATA_SIZE] = 999;
	assert_true(policy_batch_progress(&a, &b, false, 0, 0));
	b = a;
	b.v[MM_HUGE_PAGES] = 9;
	assert_true(policy_batch_progress(&a, &b, false, 0, 0));
	b = a;
	b.v[MM_COMPR_DATA_SIZE] = 2000; /* grew (new writes): not progress of ours */
	assert_false(policy_batch_progress(&a, &b, false, 0, 0));
	/* Swap traffic meanwhile (orig_data_size moved): a smaller pool is not ours ... */
	a.v[MM_ORIG_DATA_SIZE] = 40960;
	b = a;
	b.v[MM_ORIG_DATA_SIZE] = 36864;
	b.v[MM_COMPR_DATA_SIZE] = 600;
	b.v[MM_HUGE_PAGES] = 9;
	assert_false(policy_batch_progress(&a, &b, true, 5, 5));
	/* ... new marks are; marks lost with freed slots are not. */
	assert_true(policy_batch_progress(&a, &b, true, 5, 7));
	assert_false(policy_batch_progress(&a, &b, true, 5, 4));
	/* no block_state: what is left of the fall after the traffic's share (1:10 here) */
	a.v[MM_COMPR_DATA_SIZE] = 4096;
	b.v[MM_COMPR_DATA_SIZE] = 3686; /* 10 pages out, 410 bytes less: theirs */
	assert_false(policy_batch_progress(&a, &b, false, 0, 0));
	b.v[MM_COMPR_DATA_SIZE] = 3000; /* 686 less: 276 ours */
	assert_true(policy_batch_progress(&a, &b, false, 0, 0));

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
	/* bounded writes without progress: inconclusive until a fixed batch's worth ... */
	assert_true(policy_batch_inconclusive(500, 2048, 500, 100000000, 200000, false));
	assert_true(policy_batch_inconclusive(2047, 2048, 500, 100000000, 200000, false));
	assert_false(policy_batch_inconclusive(2048, 2048, 500, 100000000, 200000, false));
	/* ... unless the write was cheap for its pages (nothing left to try) ... */
	assert_false(policy_batch_inconclusive(500, 2048, 500, 24000000, 200000, false));
	assert_true(policy_batch_inconclusive(500, 2048, 500, 25000000, 200000, false));
	/* ... or nothing is learnt yet */
	assert_false(policy_batch_inconclusive(64, 2048, 64, 12800000, 0, false));
	assert_false(policy_batch_inconclusive(0, 0, 1, 1, 1, false));
	/* cheap for its size, but idle marks went since the last read: it found pages */
	assert_true(policy_batch_inconclusive(500, 2048, 500, 24000000, 200000, true));
	assert_true(policy_batch_inconclusive(79, 2048, 79, 22000000, 1200000, true));
	assert_false(policy_batch_inconclusive(79, 2048, 79, 22000000, 1200000, false));
	/* the fixed batch of pages without progress still ends it, and nothing learnt too */
	assert_false(policy_batch_inconclusive(2048, 2048, 79, 22000000, 1200000, true));
	assert_false(policy_batch_inconclusive(79, 2048, 79, 22000000, 0, true));
	assert_true(policy_batch_inconclusive(1, UINT64_MAX, 1, UINT64_MAX, UINT64_MAX, false));
}

/* max-write-ms: the first batch, sizing from the learnt rate, and its caps. */
static void test_write_cost_sizing(void **state)
{
	struct write_cost c = { 0 };

	(void)state;
	/* nothing learnt: a small first batch, never above the cap, never 0 */
	assert_int_equal(write_cost_pages(&c, 100000000, 2048), WRITE_COST_FIRST_PAGES);
	assert_int_equal(write_cost_pages(&c, 100000000, 16), 16);
	assert_int_equal(write_cost_pages(&c, 100000000, 0), 1);
	/* bound 0 (max-write-ms = 0): the fixed batch */
	assert_int_equal(write_cost_pages(&c, 0, 2048), 2048);
	/* 64 pages in 12.8 ms: 200 us per page, so 100 ms is 500 pages */
	write_cost_learn(&c, 64, 64 * 200000);
	assert_true(c.ns_per_page == 200000);
	assert_int_equal(write_cost_pages(&c, 100000000, 2048), 500);
	/* 250 ms would be 1250 pages: 8 x the 64 measured at most */
	assert_int_equal(write_cost_pages(&c, 250000000, 2048), 64 * WRITE_COST_GROWTH);
	assert_int_equal(write_cost_pages(&c, 100000000, 300), 300);
	/* a CPU so slow that one page takes longer than the bound: half the batch once, to
	 * tell a fixed part from the pages; none (the time halved too), so one page per write */
	c = (struct write_cost){ 0 };
	write_cost_learn(&c, 64, 64ULL * 500000000ULL);
	assert_int_equal(write_cost_pages(&c, 100000000, 2048), 32);
	write_cost_learn(&c, 32, 32ULL * 500000000ULL);
	assert_true(c.fixed_known && c.fixed_ns == 0);
	assert_int_equal(write_cost_pages(&c, 100000000, 2048), 1);
	/* a fast CPU: growth is limited to 8 x the largest batch measured, then the cap */
	c = (struct write_cost){ 0 };
	write_cost_learn(&c, 64, 64 * 6000);
	assert_int_equal(write_cost_pages(&c, 100000000, 1u << 20), 64 * WRITE_COST_GROWTH);
	write_cost_learn(&c, 512, 512 * 6000);
	assert_int_equal(write_cost_pages(&c, 100000000, 1u << 20), 4096);
	assert_int_equal(write_cost_pages(&c, 100000000, 2048), 2048);
	write_cost_learn(&c, 4096, 4096 * 6000);
	assert_int_equal(write_cost_pages(&c, 100000000, 1u << 20), 100000000 / 6000);
	/* pages 0 teaches nothing */
	write_cost_learn(&c, 0, 123456789);
	assert_true(c.ns_per_page == 6000);
	assert_true(c.samples == 3);
}

/*
 * A write that found (almost) nothing to try: the figures of a step on 6.12 in the first
 * minute after a burst (64, 512, 2048 pages at about 0.23 ms each, then 2048-page writes
 * of 0.022 s CPU, the walk alone). Writes too short to tell and nothing learnt never count.
 */
static void test_write_cost_found_few(void **state)
{
	struct write_cost c = { 0 };

	(void)state;
	assert_false(write_cost_found_few(&c, 2048, 1));
	write_cost_learn(&c, 64, 15000000);
	write_cost_learn(&c, 512, 121000000);
	write_cost_learn(&c, 2048, 472000000);
	assert_true(c.ns_per_page > 200000 && c.ns_per_page < 260000);
	/* the walk alone, and a write that tried about 100 pages */
	assert_true(write_cost_found_few(&c, 2048, 22000000));
	assert_true(write_cost_found_few(&c, 2048, 45000000));
	/* a quarter of its batch, a full one, and one slowed by the walk: not few */
	assert_false(write_cost_found_few(&c, 2048, 22000000 + 512 * 230000));
	assert_false(write_cost_found_few(&c, 2048, 472000000));
	assert_false(write_cost_found_few(&c, 2048, 900000000));
	/* a 64-page write expected to take 15 ms: an empty walk (22 ms) is no sign */
	assert_false(write_cost_found_few(&c, 64, 22000000));
	/* fewer than 256 pages (a batch of cheap pages looks empty), or expected to take
	 * under WRITE_COST_FEW_MIN_NS: too short to tell */
	assert_false(write_cost_found_few(&c, 255, 0));
	assert_true(write_cost_found_few(&c, 256, 0));
	assert_false(write_cost_found_few(&c, 0, 0));
	c.ns_per_page = WRITE_COST_FEW_MIN_NS / 256 - 1;
	assert_false(write_cost_found_few(&c, 256, 0));
	assert_true(write_cost_found_few(&c, 257, 0));
	/* fake devices: writes of microseconds whatever their size never look empty */
	c = (struct write_cost){ 0 };
	write_cost_learn(&c, 64, 20000);
	write_cost_learn(&c, 512, 21000);
	write_cost_learn(&c, 2048, 20000);
	assert_false(write_cost_found_few(&c, 2048, 1000));
	assert_false(write_cost_found_few(&c, UINT64_MAX, UINT64_MAX));
}

/* Slower samples are adopted fast, faster ones slowly; outliers are clamped. */
static void test_write_cost_learning(void **state)
{
	struct write_cost c = { 0 };

	(void)state;
	write_cost_learn(&c, 100, 100 * 1000);
	assert_true(c.ns_per_page == 1000);
	/* slower: half way at once */
	write_cost_learn(&c, 100, 100 * 3000);
	assert_true(c.ns_per_page == 2000);
	/* an outlier 100 x slower (a preempted write) counts as 4 x at most */
	write_cost_learn(&c, 100, 100 * 200000);
	assert_true(c.ns_per_page == 2000 + (8000 - 2000) / 2);
	/* faster: an eighth of the way; a write that tried almost nothing (1 ns per page)
	 * counts as est / 8 at most */
	write_cost_learn(&c, 100, 100);
	assert_true(c.ns_per_page == 5000 - (5000 - 625) / 8);
	/* several fast writes in a row do bring it down */
	for (int i = 0; i < 60; i++)
		write_cost_learn(&c, 100, 100 * 1000);
	assert_true(c.ns_per_page >= 1000 && c.ns_per_page < 1100);
	/* per page rounded up, never 0 */
	c = (struct write_cost){ 0 };
	write_cost_learn(&c, 2048, 1);
	assert_true(c.ns_per_page == 1);
	/* 3 pages took longer than 2048: the walk is all of it */
	write_cost_learn(&c, 3, 10);
	assert_true(c.fixed_known && c.ns_per_page == 1 && c.fixed_ns == 7);
}

/*
 * A fixed part per write (6.13+/7.x walk every slot first): 0.5 s of walk and 0.44 ms per
 * page, against a 100 ms bound. Sized as all-per-page the batches would shrink to a dozen
 * pages, each paying the walk; instead half a batch tells the parts apart, and the walk is
 * kept to a quarter of a write (the bound cannot be met: the longest write shows it).
 */
static void test_write_cost_fixed_part(void **state)
{
	struct write_cost c = { 0 };
	const uint64_t walk = 500000000, page = 440000, bound = 100000000;

	(void)state;
	assert_int_equal(write_cost_pages(&c, bound, 2048), 64);
	write_cost_learn(&c, 64, walk + 64 * page);
	assert_false(c.fixed_known);
	assert_int_equal(write_cost_pages(&c, bound, 2048), 32);
	write_cost_learn(&c, 32, walk + 32 * page);
	assert_true(c.fixed_known);
	assert_true(c.fixed_ns == walk && c.ns_per_page == page);
	/* 3 x walk / page = 3409 pages: growth-limited to 8 x 64, then the cap */
	assert_int_equal(write_cost_pages(&c, bound, 2048), 512);
	write_cost_learn(&c, 512, walk + 512 * page);
	assert_true(c.fixed_ns == walk && c.ns_per_page == page);
	assert_int_equal(write_cost_pages(&c, bound, 2048), 2048);
	assert_int_equal(write_cost_pages(&c, bound, 1u << 20), 3 * walk / page);
	/* a small walk under a generous bound: the bound decides */
	c = (struct write_cost){ 0 };
	write_cost_learn(&c, 64, 10000000 + 64 * 100000);
	write_cost_learn(&c, 512, 10000000 + 512 * 100000);
	assert_true(c.fixed_ns == 10000000 && c.ns_per_page == 100000);
	assert_int_equal(write_cost_pages(&c, 250000000, 1u << 20), (250000000 - 10000000) / 100000);
}

/* Saturating arithmetic at the edges: no wrap to a tiny estimate or a huge batch. */
static void test_write_cost_saturating(void **state)
{
	struct write_cost c = { 0 };

	(void)state;
	write_cost_learn(&c, 1, UINT64_MAX);
	assert_true(c.ns_per_page == UINT64_MAX);
	write_cost_learn(&c, 1, UINT64_MAX);
	assert_true(c.ns_per_page == UINT64_MAX);
	assert_int_equal(write_cost_pages(&c, 100000000, 2048), 1);
	assert_int_equal(write_cost_pages(&c, UINT64_MAX, 2048), 1);
	c = (struct write_cost){ .ns_per_page = 1, .max_pages = UINT64_MAX, .samples = UINT64_MAX };
	assert_true(write_cost_pages(&c, UINT64_MAX, UINT64_MAX) == UINT64_MAX);
	write_cost_learn(&c, UINT64_MAX, UINT64_MAX);
	assert_true(c.samples == UINT64_MAX);
	assert_true(c.ns_per_page == 1);
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

#define S(x) ((uint64_t)(x) * 1000000000ULL)

static struct dev_config daemon_cfg(void)
{
	struct dev_config c = {
		.n_algos = 2,
		.algos = { "zstd", "deflate" },
		.n_passes = 3,
		.passes = { PASS_HUGE_IDLE, PASS_IDLE, PASS_HUGE },
		.max_pages_per_batch = 2048,
		.max_pages_per_pass = 131072,
		.idle_age_min_sec = 1800,
		.idle_age_max_sec = 14400,
		.compact = COMPACT_AUTO,
		.interval_sec = 300,
		.backoff_max_sec = 3600,
		.cold_priority = 2,
		.pages_per_hour = 262144,
		.cpu_share_max_percent = 5,
		.cpu_share_pressure_percent = 100,
		.psi_cpu_max_percent = 40,
		.defer_on_battery = true,
		.battery_psi_memory_percent = 10,
		.compact_fragmentation_percent = 10,
		.compact_min_saved_bytes = 16 << 20,
	};
	return c;
}

static struct policy_snapshot snap(uint64_t now)
{
	struct policy_snapshot s = {
		.now_ns = now,
		.psi_cpu_some_avg10_x100 = 0,
		.psi_mem_some_avg10_x100 = 0,
		.on_battery = TRI_NO,
		.mem_total = 1000,
		.mem_available = 1000,
		.n_secondaries = 2,
		.priority_supported = true,
		.page_size = 4096,
	};
	return s;
}

static void test_daemon_due_and_plan(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_decision d;
	struct policy_snapshot s;

	(void)state;
	policy_dev_init(&pd, &c, S(100));
	s = snap(S(399));
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_WAIT);
	assert_true(d.wake_ns == S(400));
	s = snap(S(400));
	c.priority[PASS_HUGE] = 2;
	c.priority[PASS_IDLE] = 3; /* more than the device has: all secondaries */
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_int_equal(d.plan.n_steps, 3);
	assert_int_equal(d.plan.steps[0].type, PASS_HUGE_IDLE);
	assert_true(d.plan.steps[0].mark_idle);
	assert_true(d.plan.steps[0].idle_age_sec == 14400); /* util 0: max */
	assert_false(d.plan.steps[1].mark_idle);
	assert_int_equal(d.plan.steps[1].priority, 0);
	assert_int_equal(d.plan.steps[2].type, PASS_HUGE);
	assert_int_equal(d.plan.steps[2].priority, 2);
	assert_true(d.plan.pages_budget == 131072);
	assert_true(d.plan.batch_pages == 2048);
	assert_int_equal(d.plan.compact_frag_permille, 100);
	assert_true(d.plan.compact_min_saved == 16 << 20);
}

static void test_daemon_suspend_correction(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_decision d;
	struct policy_snapshot s;

	(void)state;
	c.idle_age_min_sec = c.idle_age_max_sec = 3600;
	c.interval_sec = 1;
	policy_dev_init(&pd, &c, S(0));
	s = snap(S(1));
	policy_decide(&pd, &c, &s, &d); /* sample: nothing suspended yet */
	assert_true(d.plan.steps[0].idle_age_sec == 3600);
	/* 2 h suspended, then awake: the window reaches back before the suspend */
	s = snap(S(1000));
	s.suspended_ns = S(7200);
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_true(d.plan.steps[0].idle_age_sec == 3600 + 7200);
	/* an hour and more later the suspend left the window */
	s = snap(S(1000 + 4000));
	s.suspended_ns = S(7200);
	policy_decide(&pd, &c, &s, &d);
	assert_true(d.plan.steps[0].idle_age_sec == 3600);
	/* "all" stays "all" */
	c.idle_age_max_sec = 0;
	s = snap(S(6000));
	s.suspended_ns = S(9000);
	policy_decide(&pd, &c, &s, &d);
	assert_true(d.plan.steps[0].idle_age_sec == 0);
}

static void test_daemon_gates(void **state)
{
	static const struct {
		enum tri battery;
		int cpu, mem;
		uint64_t busy_ns;
		enum policy_verdict want;
		unsigned duty; /* of a pass that runs */
	} t[] = {
		{ TRI_NO, 0, 0, 0, POLICY_RUN, 1000 },
		{ TRI_YES, 0, 0, 0, POLICY_DEFER_BATTERY, 0 },
		{ TRI_YES, 0, 1000, 0, POLICY_DEFER_BATTERY, 0 }, /* 10.00% is not above 10 */
		{ TRI_YES, 0, 1001, 0, POLICY_RUN, 1000 },	  /* memory pressure wins */
		{ TRI_YES, 0, -1, 0, POLICY_DEFER_BATTERY, 0 },	  /* no PSI */
		{ TRI_UNKNOWN, 0, 0, 0, POLICY_RUN, 1000 },
		{ TRI_NO, 4000, 0, 0, POLICY_RUN, 1000 }, /* at the limit */
		/* a busy CPU paces the pass (5%) instead of deferring it */
		{ TRI_NO, 4001, 0, 0, POLICY_RUN, 50 },
		/* ... and memory pressure raises the pace: 10% stalled = half way to 100% */
		{ TRI_NO, 4001, 1000, 0, POLICY_RUN, 525 },
		{ TRI_NO, -1, 0, 0, POLICY_RUN, 1000 },
		{ TRI_NO, 0, 0, S(29), POLICY_RUN, 1000 }, /* 29 s of 600 s < 5% */
		{ TRI_NO, 0, 0, S(30), POLICY_DEFER_CPU_SHARE, 0 },
		/* under memory pressure the window allows more: 30 s < 52.5% of 600 s */
		{ TRI_NO, 0, 1000, S(30), POLICY_RUN, 1000 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct dev_config c = daemon_cfg();
		struct policy_dev pd;
		struct policy_decision d;
		struct policy_snapshot s;

		policy_dev_init(&pd, &c, 0);
		pd.next_due_ns = S(1000);
		if (t[i].busy_ns) {
			struct policy_outcome o = { .end_ns = S(900), .kernel_ns = t[i].busy_ns,
						    .saved = 1 };
			policy_pass_done(&pd, &c, &o);
			pd.next_due_ns = S(1000);
		}
		s = snap(S(1000));
		s.on_battery = t[i].battery;
		s.psi_cpu_some_avg10_x100 = t[i].cpu;
		s.psi_mem_some_avg10_x100 = t[i].mem;
		policy_decide(&pd, &c, &s, &d);
		assert_int_equal(d.verdict, t[i].want);
		if (t[i].want != POLICY_RUN)
			assert_true(d.wake_ns > S(1000));
		else
			assert_int_equal(d.plan.duty_permille, t[i].duty);
	}
	/* the CPU window slides: 30 s busy at t=900 s no longer counts at t=1501 s */
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_outcome o = { .end_ns = S(900), .kernel_ns = S(30), .saved = 1 };
	policy_dev_init(&pd, &c, 0);
	policy_pass_done(&pd, &c, &o);
	assert_true(policy_cpu_busy(&pd, S(1499)) == S(30));
	assert_true(policy_cpu_busy(&pd, S(1501)) == 0);
}

/*
 * Pace, not stop: the share of time in kernel writes for the four combinations of a busy
 * CPU and short memory, as docs/policy.md (CPU pressure) tabulates it, and that no memory
 * input ever lowers it.
 */
static void test_pressure_pace(void **state)
{
	static const struct {
		const char *what;
		int cpu, mem;	       /* PSI some avg10 x100 */
		uint64_t avail;	       /* MemAvailable of MemTotal 1000 */
		unsigned m, share, pace; /* per mille */
		int nice;		 /* of the worker thread */
		unsigned frag;		 /* compact = auto's threshold, per mille (10% set) */
	} t[] = {
		{ "neither", 500, 0, 1000, 0, 50, 1000, 10, 100 },
		{ "CPU busy", 8000, 0, 1000, 0, 50, 50, 10, 100 },
		{ "memory short (PSI 20%)", 500, 2000, 1000, 1000, 1000, 1000, 0, 0 },
		{ "memory short (5% available)", 500, 0, 50, 1000, 1000, 1000, 0, 0 },
		{ "both", 8000, 2000, 50, 1000, 1000, 1000, 0, 0 },
		{ "CPU busy, memory half short (PSI 10%)", 8000, 1000, 1000, 500, 525, 525, 5, 50 },
		{ "CPU busy, 12.5% available", 8000, 0, 125, 500, 525, 525, 5, 50 },
		{ "CPU busy, 20% available (not short yet)", 8000, 0, 200, 0, 50, 50, 10, 100 },
		{ "no PSI, no meminfo", -1, -1, 0, 0, 50, 1000, 10, 100 },
	};
	struct dev_config c = daemon_cfg();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct policy_snapshot s = snap(S(1));

		s.psi_cpu_some_avg10_x100 = t[i].cpu;
		s.psi_mem_some_avg10_x100 = t[i].mem;
		s.mem_available = t[i].avail;
		if (t[i].cpu < 0)
			s.mem_total = s.mem_available = 0;
		print_message("%s\n", t[i].what);
		assert_int_equal(policy_memory_pressure_permille(&s), t[i].m);
		assert_int_equal(policy_cpu_share_permille(&c, &s), t[i].share);
		assert_int_equal(policy_pace_permille(&c, &s), t[i].pace);
		assert_int_equal(policy_worker_nice(&s), t[i].nice);
		assert_int_equal(policy_compact_frag_permille(&c, &s), t[i].frag);
	}
	/* monotonic: more memory pressure never gives a smaller share or pace */
	for (int cpu = 0; cpu <= 10000; cpu += 5000) {
		unsigned last = 0;

		for (int mem = 0; mem <= 3000; mem += 100) {
			for (uint64_t avail = 1000;; avail -= 50) {
				struct policy_snapshot s = snap(S(1));
				unsigned p;

				s.psi_cpu_some_avg10_x100 = cpu;
				s.psi_mem_some_avg10_x100 = mem;
				s.mem_available = avail;
				p = policy_pace_permille(&c, &s);
				if (avail == 1000)
					assert_true(p >= last);
				last = avail == 1000 ? p : last;
				if (avail == 0)
					break;
			}
		}
	}
	/* more memory pressure never gives the worker a higher nice value (less CPU) */
	for (int mem = 0, last = POLICY_WORKER_NICE; mem <= 3000; mem += 100) {
		struct policy_snapshot s = snap(S(1));
		int n;

		s.psi_mem_some_avg10_x100 = mem;
		n = policy_worker_nice(&s);
		assert_true(n <= last && n >= 0);
		last = n;
	}
	/*
	 * Compaction under memory pressure: the 7.3 swap bench's device after passes that
	 * saved nothing (5.3% of the pool not compressed data) is left as it is without
	 * pressure and compacted at full pressure; the threshold never rises with pressure.
	 */
	{
		struct zram_mm_stat mm = { 0 };
		struct policy_snapshot q = snap(S(1));
		unsigned last = 1000;

		mm.v[MM_COMPR_DATA_SIZE] = 74522172;
		mm.v[MM_MEM_USED_TOTAL] = 78688256;
		assert_false(policy_should_compact(COMPACT_AUTO, &mm, policy_compact_frag_permille(&c, &q),
						   0, 0));
		q.mem_available = 30;
		assert_true(policy_should_compact(COMPACT_AUTO, &mm, policy_compact_frag_permille(&c, &q),
						  0, 0));
		for (uint64_t avail = 1000;; avail -= 10) {
			unsigned f;

			q.mem_available = avail;
			f = policy_compact_frag_permille(&c, &q);
			assert_true(f <= last && f <= 100);
			last = f;
			if (avail == 0)
				break;
		}
		c.compact_fragmentation_percent = 100;
		q.mem_available = 1000;
		assert_int_equal(policy_compact_frag_permille(&c, &q), 1000);
		c.compact_fragmentation_percent = 10;
	}
	/* a ceiling below the base is the base; a base of 0 still paces at 5% */
	c.cpu_share_pressure_percent = 1;
	struct policy_snapshot s = snap(S(1));
	s.psi_cpu_some_avg10_x100 = 8000;
	s.psi_mem_some_avg10_x100 = 3000;
	assert_int_equal(policy_pace_permille(&c, &s), 50);
	c.cpu_share_max_percent = 0;
	c.cpu_share_pressure_percent = 0;
	assert_int_equal(policy_pace_permille(&c, &s), 50);
	c.psi_cpu_max_percent = 0; /* pacing off */
	assert_int_equal(policy_pace_permille(&c, &s), 1000);
	/* what a write did, without other writers: 60 saved while another stored 400 */
	assert_int_equal(policy_own_reduction(1000, 900, 10000, 10000), 100);
	assert_int_equal(policy_own_reduction(1000, 980, 10000, 10400), 60);
	assert_int_equal(policy_own_reduction(1000, 1100, 10000, 10400), 0); /* never < 0 */
	assert_int_equal(policy_own_reduction(1000, 900, 10000, 9000), 0);   /* others freed */
	assert_int_equal(policy_own_reduction(1000, 800, 0, 0), 200);
	/* the pause keeps the writes at the duty's share */
	assert_int_equal(policy_pause_ns(100, 1000), 0);
	assert_int_equal(policy_pause_ns(100, 0), 0);
	assert_int_equal(policy_pause_ns(100, 50), 1900);
	assert_int_equal(policy_pause_ns(300000000, 500), 300000000);
}

static void test_daemon_tokens(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_decision d;
	struct policy_snapshot s;
	struct policy_outcome o = { .end_ns = S(10), .pages_charged = 262144 - 1000, .saved = 1 };

	(void)state;
	c.interval_sec = 1;
	policy_dev_init(&pd, &c, 0);
	assert_true(pd.tokens == 262144);
	policy_pass_done(&pd, &c, &o); /* 1000 pages left */
	s = snap(S(11));
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_DEFER_BUDGET);
	/* 1 s refilled 72 pages; 976 more at 262144/h take 976 * 3600 / 262144 = 13.4 s */
	assert_true(pd.tokens == 1072);
	assert_true(d.wake_ns > S(11 + 13) && d.wake_ns <= S(11 + 14));
	s = snap(d.wake_ns);
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_true(d.plan.pages_total >= 2048 && d.plan.pages_total < 2100);
	assert_true(d.plan.pages_budget == 131072);
	/* unlimited */
	c.pages_per_hour = 0;
	pd.tokens = 0;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_true(d.plan.pages_total == 0);
	/* a bucket smaller than one batch: wait for the bucket, not for a whole batch */
	c.pages_per_hour = 1000;
	pd.tokens = 400;
	pd.tokens_at_ns = s.now_ns;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_DEFER_BUDGET);
	/* 600 pages at 1000/h: 2160 s */
	assert_true(d.wake_ns > s.now_ns + S(2159) && d.wake_ns <= s.now_ns + S(2161));
	/* the bucket never exceeds an hour's worth */
	c.pages_per_hour = 100;
	pd.tokens = 0;
	pd.tokens_at_ns = 0;
	s = snap(S(100000));
	policy_decide(&pd, &c, &s, &d);
	assert_true(pd.tokens == 100);
}

static void test_daemon_backoff_and_pressure(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_outcome o = { .end_ns = S(1000) };
	static const uint64_t want[] = { 600, 1200, 2400, 3600, 3600 };

	(void)state;
	policy_dev_init(&pd, &c, 0);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		policy_pass_done(&pd, &c, &o);
		assert_true(pd.next_due_ns == S(1000) + S(want[i]));
	}
	o.saved = 4096;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == S(1300));
	assert_int_equal(pd.empty_passes, 0);
	/* pressure: not sooner than 30 s after the last pass, and never later */
	policy_memory_pressure(&pd, S(1010));
	assert_true(pd.next_due_ns == S(1030));
	policy_memory_pressure(&pd, S(1100));
	assert_true(pd.next_due_ns == S(1030));
	/* backoff 0 = none; saturation with absurd intervals */
	c.backoff_max_sec = 0;
	o.saved = 0;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == S(1300));
	c.interval_sec = UINT64_MAX / 2;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == UINT64_MAX);
}

/*
 * A burst of swap-out under memory pressure: the pages too young for the idle age, and when
 * 90% of them are old enough; the next pass comes then when that is sooner than its time.
 */
static void test_ripen(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_outcome o = { .end_ns = S(1000) };
	struct policy_decision d;
	struct policy_snapshot s;
	struct ripen r;

	(void)state;
	policy_ripen_init(&r, 1000, 10); /* 1 s buckets */
	policy_ripen_slot(&r, 0, 995, 0);		 /* old enough in 5 s */
	policy_ripen_slot(&r, 1, 991, BS_HUGE);	 /* in 1 s */
	policy_ripen_slot(&r, 2, 999, 0);		 /* in 9 s */
	policy_ripen_slot(&r, 3, 995, BS_IDLE);	 /* marked: this pass's business */
	policy_ripen_slot(&r, 4, 995, BS_RECOMP);	 /* done */
	policy_ripen_slot(&r, 5, 995, BS_INCOMP);	 /* given up */
	policy_ripen_slot(&r, 6, 995, BS_SAME);
	policy_ripen_slot(&r, 7, 995, BS_WB);
	policy_ripen_slot(&r, 8, 0, 0);		 /* recompressed, not read since: no age */
	policy_ripen_slot(&r, 9, 990, 0);		 /* already 10 s old */
	policy_ripen_slot(&r, 10, 1001, 0);		 /* in the future */
	assert_true(r.n == 3);
	assert_true(policy_ripen_sec(&r, 900, 1) == 9);
	assert_true(policy_ripen_sec(&r, 500, 1) == 5);
	assert_true(policy_ripen_sec(&r, 300, 1) == 1);
	assert_true(policy_ripen_sec(&r, 900, 4) == UINT64_MAX); /* fewer than a batch */
	/* an hour in 57 s buckets: the bound is the bucket's end, never past the age */
	policy_ripen_init(&r, 100000, 3600);
	policy_ripen_slot(&r, 0, 100000, 0);	/* just accessed: 3600 s */
	policy_ripen_slot(&r, 1, 100000 - 3599, 0); /* 1 s */
	assert_true(policy_ripen_sec(&r, 500, 1) == 57);
	assert_true(policy_ripen_sec(&r, 900, 1) == 3600);
	/* age "all": nothing is too young */
	policy_ripen_init(&r, 1000, 0);
	policy_ripen_slot(&r, 0, 999, 0);
	assert_true(policy_ripen_sec(&r, 900, 0) == UINT64_MAX);

	/* the next pass: at the ripening when sooner than the interval or the backoff */
	policy_dev_init(&pd, &c, 0);
	o.ripen_sec = 7;
	policy_pass_done(&pd, &c, &o); /* saved nothing: backoff 600 s */
	assert_true(pd.next_due_ns == S(1007));
	o.saved = 4096;
	o.ripen_sec = 400; /* later than the interval */
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == S(1300));
	o.ripen_sec = UINT64_MAX;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == S(1300));
	o.ripen_sec = 0;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == S(1300));

	/* probed only by the daemon, under memory pressure, with an idle mark */
	policy_dev_init(&pd, &c, 0);
	s = snap(S(400));
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_false(d.plan.ripen_probe);
	pd.next_due_ns = 0;
	s.mem_available = 100; /* 10%: m = 0.667 */
	policy_decide(&pd, &c, &s, &d);
	assert_true(d.plan.ripen_probe);
	assert_int_equal(d.plan.mem_pressure_permille, 666);
	c.n_passes = 1;
	c.passes[0] = PASS_HUGE; /* no idle type, no mark */
	pd.next_due_ns = 0;
	policy_decide(&pd, &c, &s, &d);
	assert_false(d.plan.ripen_probe);
	c.passes[0] = PASS_IDLE;
	(void)policy_plan(NULL, &c, &s, &d.plan); /* --once: never */
	assert_false(d.plan.ripen_probe);
}

/* the burst bench's daemon: interval and idle age 10 s, burst-idle-age-sec 3 */
static struct dev_config burst_cfg(void)
{
	struct dev_config c = daemon_cfg();

	c.idle_age_min_sec = c.idle_age_max_sec = 10;
	c.interval_sec = 10;
	c.burst_idle_age_sec = 3;
	return c;
}

/*
 * After a burst (a pass at the ordinary age whose probe found most stored pages young), the
 * passes under memory pressure mark with burst-idle-age-sec, the first one as soon as 90%
 * of the young pages are that old, until one saves nothing; without pressure, with the key
 * at 0 or not below the age, never.
 */
static void test_burst_age(void **state)
{
	struct dev_config c = burst_cfg();
	struct policy_dev pd;
	struct policy_outcome o = { .end_ns = S(1000), .idle_age_sec = 10 };
	struct policy_decision d;
	struct policy_snapshot s;

	(void)state;
	policy_dev_init(&pd, &c, 0);
	/* a probe with no burst (young, but not half the stored pages): the ripening only */
	o.ripen_sec = 9;
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
	assert_true(pd.next_due_ns == S(1009));
	/* a burst: 90% of the young pages 10 s old in 9 s, 3 s old in 2 s */
	o.burst_young = true;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.burst);
	assert_true(pd.next_due_ns == S(1002));
	/* ... at once when that is past (never sooner than a second); the key's age unknown */
	o.ripen_sec = 5;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == S(1001));
	o.ripen_sec = UINT64_MAX;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.next_due_ns == S(1003));

	/* the next pass marks with 3 s under pressure, 10 s without */
	s = snap(S(1003));
	s.mem_available = 100;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_true(d.plan.burst_aged);
	assert_true(d.plan.steps[0].mark_idle);
	assert_true(d.plan.steps[0].idle_age_sec == 3);
	assert_true(d.idle_age_sec == 3);
	/* the huge type (not idle-gated) waits for the passes after the burst */
	assert_int_equal(d.plan.n_steps, c.n_passes - 1);
	for (unsigned i = 0; i < d.plan.n_steps; i++)
		assert_int_not_equal(d.plan.steps[i].type, PASS_HUGE);
	assert_true(policy_burst_age(&pd, &c, &s, 0, 10) == 10);
	assert_true(policy_burst_age(&pd, &c, &s, 1, 10) == 3);
	assert_true(policy_burst_age(&pd, &c, &s, 1, 2) == 2); /* never longer */
	assert_true(policy_burst_age(&pd, &c, &s, 1, 0) == 0); /* "all" stays */
	assert_true(policy_burst_age(NULL, &c, &s, 1000, 10) == 10); /* --once */
	s.mem_available = 1000;
	pd.next_due_ns = 0;
	policy_decide(&pd, &c, &s, &d);
	assert_false(d.plan.burst_aged);
	assert_true(d.plan.steps[0].idle_age_sec == 10);
	assert_int_equal(d.plan.n_steps, c.n_passes);
	assert_int_equal(d.plan.steps[c.n_passes - 1].type, PASS_HUGE);

	/* lasts while the passes at the burst age save, ends with the first that does not */
	o = (struct policy_outcome){ .end_ns = S(2000), .idle_age_sec = 3, .burst_aged = true,
				     .saved = 4096, .ripen_sec = UINT64_MAX };
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.burst);
	assert_true(pd.next_due_ns == S(2010));
	o.saved = 0;
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
	/* 6.2-6.14 (the walk decompresses what the pass recompressed): over after one pass */
	pd.burst = true;
	o.saved = 4096;
	o.walk_decompresses = true;
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
	/* ... or with a pass at the ordinary age (no pressure) whose probe finds no burst */
	pd.burst = true;
	o = (struct policy_outcome){ .end_ns = S(3000), .idle_age_sec = 10, .saved = 4096 };
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
	/* key 0 (off) or not shorter than the age: no burst */
	o.burst_young = true;
	c.burst_idle_age_sec = 0;
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
	c.burst_idle_age_sec = 10;
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
}

/*
 * The burst age is left out while the device reads its contents back fast: at the rate since
 * the last pass ended, half the stored pages within idle-age-min-sec (10 s here).
 */
static void test_burst_churn(void **state)
{
	struct dev_config c = burst_cfg();
	struct policy_dev pd;
	struct policy_reads slow = { .known = true, .pages_read = 1000, .pages_stored = 60000 };
	struct policy_outcome o = { .end_ns = S(1000), .idle_age_sec = 10, .burst_young = true,
				    .ripen_sec = 9, .reads = slow };
	struct policy_decision d;
	struct policy_snapshot s;

	(void)state;
	policy_dev_init(&pd, &c, 0);
	/* the first pass: no earlier mark, so no rate; the burst begins as without reads */
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.burst);
	assert_false(pd.burst_churn);
	assert_true(pd.read_mark_ns == S(1000) && pd.read_mark.pages_read == 1000);

	/* 2 s later: 2,999 pages read, 1,499.5 a second, 14,995 in 10 s: under 30,000 */
	s = snap(S(1002));
	s.mem_available = 100;
	s.reads = (struct policy_reads){ .known = true, .pages_read = 3999, .pages_stored = 60000 };
	assert_false(policy_burst_churn(&pd, &c, &s.reads, s.now_ns));
	policy_decide(&pd, &c, &s, &d);
	assert_true(d.plan.burst_aged);
	assert_true(d.plan.steps[0].idle_age_sec == 3);
	/* 6,000 in 2 s: 30,000 in 10 s, half the stored pages: the ordinary age, once the
	 * pass has looked again (test_burst_look) */
	s.reads.pages_read = 7000;
	assert_true(policy_burst_churn(&pd, &c, &s.reads, s.now_ns));
	pd.burst_looked = true;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_false(d.plan.burst_aged);
	assert_true(d.plan.steps[0].idle_age_sec == 10);
	assert_int_equal(d.plan.n_steps, c.n_passes); /* the huge type too */
	/* the age counts: with 30 s, a third as fast is enough */
	c.idle_age_min_sec = 30;
	s.reads.pages_read = 3000;
	assert_true(policy_burst_churn(&pd, &c, &s.reads, s.now_ns));
	s.reads.pages_read = 2999;
	assert_false(policy_burst_churn(&pd, &c, &s.reads, s.now_ns));
	c.idle_age_min_sec = 10;
	/* unknown: under a second since the mark, no reads, a counter gone back, nothing stored */
	s.reads.pages_read = 7000;
	assert_false(policy_burst_churn(&pd, &c, &s.reads, S(1000) + 999999999ULL));
	assert_true(policy_burst_churn(&pd, &c, &s.reads, S(1001)));
	s.reads.known = false;
	assert_false(policy_burst_churn(&pd, &c, &s.reads, s.now_ns));
	s.reads = (struct policy_reads){ .known = true, .pages_read = 999, .pages_stored = 60000 };
	assert_false(policy_burst_churn(&pd, &c, &s.reads, s.now_ns));
	s.reads = (struct policy_reads){ .known = true, .pages_read = 7000 };
	assert_false(policy_burst_churn(&pd, &c, &s.reads, s.now_ns));
	assert_false(policy_burst_churn(NULL, &c, &slow, s.now_ns));

	/* the pass ran at the ordinary age and found a burst again, but the reads were fast:
	 * no burst, and the next pass when the young pages have aged, not 2 s later */
	o = (struct policy_outcome){ .end_ns = S(1003), .idle_age_sec = 10, .burst_young = true,
				     .ripen_sec = 9, .saved = 4096 };
	o.reads = (struct policy_reads){ .known = true, .pages_read = 10000, .pages_stored = 60000 };
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
	assert_true(pd.burst_churn);
	assert_true(pd.next_due_ns == S(1012));
	assert_true(pd.read_mark_ns == S(1003) && pd.read_mark.pages_read == 10000);
	/* reads slow again: a burst begins */
	o.end_ns = S(1013);
	o.reads.pages_read = 10100;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.burst);
	assert_false(pd.burst_churn);
	/* a pass at the burst age that saved, but the reads went fast meanwhile: over */
	o = (struct policy_outcome){ .end_ns = S(1023), .idle_age_sec = 3, .burst_aged = true,
				     .saved = 4096, .ripen_sec = UINT64_MAX };
	o.reads = (struct policy_reads){ .known = true, .pages_read = 40100, .pages_stored = 60000 };
	policy_pass_done(&pd, &c, &o);
	assert_false(pd.burst);
	assert_true(pd.burst_churn);
	/* a pass without the counter keeps the last mark */
	o.end_ns = S(1033);
	o.reads.known = false;
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.read_mark_ns == S(1023) && pd.read_mark.pages_read == 40100);
	assert_false(pd.burst_churn);
}

/*
 * A pass in a burst that finds the reads fast since the last pass looks again over the next
 * 2 s before it gives up the burst age: the hot part of a burst comes back at once, then
 * the reads slow down (the burst bench's hot40), or they go on (warmcold).
 */
static void test_burst_look(void **state)
{
	struct dev_config c = burst_cfg();
	struct policy_dev pd;
	struct policy_outcome o = { .end_ns = S(1000), .idle_age_sec = 10, .burst_young = true,
				    .ripen_sec = 9 };
	struct policy_decision d;
	struct policy_snapshot s;

	(void)state;
	policy_dev_init(&pd, &c, 0);
	o.reads = (struct policy_reads){ .known = true, .pages_read = 1000, .pages_stored = 60000 };
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.burst);
	assert_false(pd.burst_looked);

	/* 3,000 a second since the pass: wait 2 s, the rate counted from now */
	s = snap(S(1002));
	s.mem_available = 100;
	s.reads = (struct policy_reads){ .known = true, .pages_read = 7000, .pages_stored = 60000 };
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_WAIT);
	assert_true(d.wake_ns == S(1004));
	assert_true(pd.burst_looked);
	assert_true(pd.read_mark_ns == S(1002) && pd.read_mark.pages_read == 7000);
	assert_true(pd.burst);
	/* 2 s later 200 a second: the burst age after all */
	s.now_ns = S(1004);
	s.reads.pages_read = 7400;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_true(d.plan.burst_aged);
	assert_true(d.plan.steps[0].idle_age_sec == 3);
	/* still 3,000 a second: the ordinary age, and no second look in one pass */
	s.reads.pages_read = 13000;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_false(d.plan.burst_aged);
	assert_true(d.plan.steps[0].idle_age_sec == 10);
	assert_true(pd.read_mark_ns == S(1002) && pd.read_mark.pages_read == 7000);

	/* the pass's end clears the look: the next pass may look again */
	o = (struct policy_outcome){ .end_ns = S(1010), .idle_age_sec = 3, .burst_aged = true,
				     .saved = 4096, .ripen_sec = UINT64_MAX };
	o.reads = (struct policy_reads){ .known = true, .pages_read = 7500, .pages_stored = 60000 };
	policy_pass_done(&pd, &c, &o);
	assert_true(pd.burst);
	assert_false(pd.burst_looked);
	s.now_ns = S(1020);
	s.reads.pages_read = 37500;
	pd.next_due_ns = 0;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_WAIT);
	assert_true(d.wake_ns == S(1022));
	pd.burst_looked = false;
	pd.read_mark_ns = S(1010);
	pd.read_mark.pages_read = 7500;

	/* no look without memory pressure, out of a burst, with the key 0, or slow reads */
	s.mem_available = 1000;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_false(pd.burst_looked);
	s.mem_available = 100;
	pd.burst = false;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_false(pd.burst_looked);
	pd.burst = true;
	c.burst_idle_age_sec = 0;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_false(pd.burst_looked);
	c.burst_idle_age_sec = 3;
	s.reads.pages_read = 8000;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_true(d.plan.burst_aged);
	assert_false(pd.burst_looked);
	assert_false(policy_burst_look(NULL, &c, &s, 1000));
}

static void test_daemon_incompressible_skip(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_decision d;
	struct policy_snapshot s = snap(S(400));
	struct policy_outcome o = { .end_ns = S(400), .huge_ran = true, .huge_progress = false,
				    .content_sig = 77 };

	(void)state;
	policy_dev_init(&pd, &c, 0);
	policy_pass_done(&pd, &c, &o);
	s = snap(S(1000));
	s.content_sig = 77;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_int_equal(d.plan.n_steps, 1); /* only idle */
	assert_int_equal(d.plan.steps[0].type, PASS_IDLE);
	assert_true(d.plan.steps[0].mark_idle);
	s.content_sig = 78; /* new huge pages landed */
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 3);
	/* progress clears the mark */
	o.huge_progress = true;
	policy_pass_done(&pd, &c, &o);
	s.content_sig = 77;
	s.now_ns = S(2000);
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 3);
}

/* --once plans like the daemon, without what needs history. */
static void test_plan_once(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_decision d;
	struct policy_snapshot s = snap(S(7200));
	struct pass_plan once;

	(void)state;
	c.cold_idle_age_sec = 3600;
	c.priority[PASS_HUGE] = 2;
	policy_dev_init(&pd, &c, 0);
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.verdict, POLICY_RUN);
	assert_true(d.plan.cold);
	assert_int_equal(policy_plan(NULL, &c, &s, &once), d.idle_age_sec);
	assert_false(once.cold); /* the cold tier is due only by the daemon's clock */
	assert_int_equal(once.n_steps, d.plan.n_steps - 1);
	for (unsigned i = 0; i < once.n_steps; i++) {
		assert_int_equal(once.steps[i].type, d.plan.steps[i + 1].type);
		assert_int_equal(once.steps[i].priority, d.plan.steps[i + 1].priority);
		assert_int_equal(once.steps[i].mark_idle, d.plan.steps[i + 1].mark_idle);
	}
	assert_int_equal(once.steps[2].priority, 2); /* per-type priorities apply to both */
	assert_int_equal(once.pages_total, 0);	      /* no pages-per-hour bucket */
	assert_true(d.plan.pages_total > 0);
	assert_true(once.batch_pages == d.plan.batch_pages);
	assert_int_equal(once.duty_permille, d.plan.duty_permille);
}

/* The writeback part of the plan: types in order, idle marks, min(day left, per pass). */
static void test_plan_writeback(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_snapshot s = snap(S(7200));
	struct pass_plan p;

	(void)state;
	c.writeback = false;
	s.wb_day_left = 1 << 30;
	(void)policy_plan(NULL, &c, &s, &p);
	assert_int_equal(p.n_wb, 0);
	c.writeback = true;
	c.n_wb_types = 3;
	c.wb_types[0] = WB_INCOMPRESSIBLE;
	c.wb_types[1] = WB_HUGE_IDLE;
	c.wb_types[2] = WB_HUGE;
	c.wb_idle_age_sec = 3600;
	c.wb_bytes_per_pass = 128 << 20;
	c.wb_bytes_per_day = 1 << 30;
	(void)policy_plan(NULL, &c, &s, &p);
	assert_int_equal(p.n_wb, 3);
	assert_int_equal(p.wb[0].type, WB_INCOMPRESSIBLE);
	assert_false(p.wb[0].by_age);
	assert_int_equal(p.wb[1].type, WB_HUGE_IDLE);
	assert_true(p.wb[1].by_age);
	assert_int_equal(p.wb[1].idle_age_sec, 3600);
	assert_false(p.wb[2].by_age);
	assert_int_equal(p.wb_budget_pages, (128 << 20) / 4096); /* the pass cap */
	s.wb_day_left = 10 * 4096 + 4095;
	(void)policy_plan(NULL, &c, &s, &p);
	assert_int_equal(p.wb_budget_pages, 10); /* what is left today, whole pages */
	/* pages of the device's size: 16 KiB (Raspberry Pi 5) and 64 KiB */
	s.page_size = 16384;
	(void)policy_plan(NULL, &c, &s, &p);
	assert_int_equal(p.wb_budget_pages, 2);
	s.wb_day_left = 1 << 30;
	(void)policy_plan(NULL, &c, &s, &p);
	assert_int_equal(p.wb_budget_pages, 8192);
	s.page_size = 65536;
	(void)policy_plan(NULL, &c, &s, &p);
	assert_int_equal(p.wb_budget_pages, 2048);
	s.page_size = 4096;
	s.wb_day_left = 0;
	(void)policy_plan(NULL, &c, &s, &p);
	assert_int_equal(p.wb_budget_pages, 0);
}

/* The day budget refills over a rolling 24 h, never above the day, never by a clock jump. */
static void test_wb_refill(void **state)
{
	uint64_t at;

	(void)state;
	assert_int_equal(policy_wb_refill(0, 0, 1000, 86400, &at), 86400); /* never used */
	assert_int_equal(at, 1000);
	assert_int_equal(policy_wb_refill(0, 1000, 1000 + 3600, 86400, &at), 3600);
	assert_int_equal(at, 1000 + 3600);
	assert_int_equal(policy_wb_refill(100, 1000, 1000 + 86400 * 2, 86400, &at), 86400);
	/* fractions accumulate: a tiny day budget still refills */
	assert_int_equal(policy_wb_refill(0, 1000, 1001, 4096, &at), 0);
	assert_int_equal(at, 1000);
	assert_int_equal(policy_wb_refill(0, 1000, 1000 + 43200, 4096, &at), 2048);
	/* clock went back: nothing refilled, the time follows the clock */
	assert_int_equal(policy_wb_refill(5, 5000, 4000, 86400, &at), 5);
	assert_int_equal(at, 4000);
	/* the day budget was lowered: capped */
	assert_int_equal(policy_wb_refill(1 << 20, 1000, 2000, 4096, &at), 4096);
	assert_int_equal(policy_wb_budget_pages(UINT64_MAX, UINT64_MAX, 4096), UINT64_MAX / 4096);
	/* pages of the device's size: 16 and 64 KiB pages take 4 and 16 times fewer */
	assert_int_equal(policy_wb_budget_pages(1 << 30, 128 << 20, 4096), 32768);
	assert_int_equal(policy_wb_budget_pages(1 << 30, 128 << 20, 16384), 8192);
	assert_int_equal(policy_wb_budget_pages(1 << 30, 128 << 20, 65536), 2048);
	/* the day's rest is smaller: it counts, rounded down to whole pages */
	assert_int_equal(policy_wb_budget_pages(100000, 128 << 20, 4096), 24);
	assert_int_equal(policy_wb_budget_pages(100000, 128 << 20, 16384), 6);
	assert_int_equal(policy_wb_budget_pages(100000, 128 << 20, 65536), 1);
	assert_int_equal(policy_wb_budget_pages(16383, 128 << 20, 16384), 0);
	assert_int_equal(policy_wb_budget_pages(1 << 30, 128 << 20, 0), 0);
}

static void test_daemon_cold_tier(void **state)
{
	struct dev_config c = daemon_cfg();
	struct policy_dev pd;
	struct policy_decision d;
	struct policy_snapshot s;
	struct policy_outcome o = { .cold_ran = true, .saved = 1 };

	(void)state;
	c.cold_idle_age_sec = 3600;
	policy_dev_init(&pd, &c, 0);
	s = snap(S(400));
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 3); /* not an hour since start */
	s = snap(S(3600));
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 4);
	assert_true(d.plan.cold);
	assert_int_equal(d.plan.steps[0].type, PASS_IDLE);
	assert_int_equal(d.plan.steps[0].priority, 2);
	assert_true(d.plan.steps[0].mark_idle);
	assert_true(d.plan.steps[0].idle_age_sec == 3600);
	assert_true(d.plan.steps[1].mark_idle); /* the warm mark follows */
	o.end_ns = S(3700);
	policy_pass_done(&pd, &c, &o);
	s = snap(S(7000));
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 3);
	s = snap(S(7300));
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 4);
	/* one secondary only: no cold tier */
	s.n_secondaries = 1;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 3);
	/* before 6.12 (no priority=): no cold tier, no per-type priorities */
	s.n_secondaries = 2;
	s.priority_supported = false;
	c.priority[PASS_HUGE] = 2;
	policy_decide(&pd, &c, &s, &d);
	assert_int_equal(d.plan.n_steps, 3);
	assert_false(d.plan.cold);
	assert_int_equal(d.plan.steps[2].priority, 0);
}

/*
 * Writeback by age: only slots with a known ac_time at least the age old; same, written
 * back, recompressed-and-not-read (ac_time 0) and young slots never; ranges of consecutive
 * indexes only, capped at the budget.
 */
static void test_wb_select(void **state)
{
	struct wb_select s;

	(void)state;
	/* now 100000 s after boot, age 3600: old = ac_time <= 96400 */
	assert_true(policy_wb_slot_old(96400, 100000, 3600));
	assert_false(policy_wb_slot_old(96401, 100000, 3600));
	assert_false(policy_wb_slot_old(0, 100000, 3600)); /* unknown */
	assert_false(policy_wb_slot_old(0, 100000, 0));
	assert_false(policy_wb_slot_old(100001, 100000, 0)); /* in the future */
	assert_true(policy_wb_slot_old(100000, 100000, 0));
	assert_false(policy_wb_slot_old(1, 100, 3600)); /* age longer than the uptime */

	policy_wb_select_init(&s, 100000, 3600, false, 100);
	policy_wb_select_slot(&s, 0, 50, 0);			  /* old */
	policy_wb_select_slot(&s, 1, 96400, BS_HUGE);		  /* old, merges */
	policy_wb_select_slot(&s, 2, 90000, BS_INCOMP | BS_IDLE); /* old, merges */
	policy_wb_select_slot(&s, 3, 99999, BS_IDLE);		  /* young (IDLE flag ignored) */
	policy_wb_select_slot(&s, 4, 10, 0);			  /* old, new range */
	policy_wb_select_slot(&s, 5, 0, BS_RECOMP | BS_IDLE);	  /* unknown age */
	policy_wb_select_slot(&s, 6, 10, 0);			  /* old */
	policy_wb_select_slot(&s, 7, 10, BS_SAME);		  /* no object */
	policy_wb_select_slot(&s, 8, 10, BS_WB);		  /* on the disk already */
	policy_wb_select_slot(&s, 9, 10, 0);			  /* old, new range */
	policy_wb_select_slot(&s, 11, 10, BS_RECOMP);		  /* read since: known age */
	policy_wb_select_slot(&s, 12, 0, 0);			  /* ac_time 0 */
	assert_int_equal(s.error, 0);
	assert_int_equal(s.pages, 7);
	assert_int_equal(s.young, 1);
	assert_int_equal(s.unknown, 2);
	assert_int_equal(s.over_cap, 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.r[0].lo, 0);
	assert_int_equal(s.r[0].hi, 2);
	assert_int_equal(s.r[1].lo, 4);
	assert_int_equal(s.r[1].hi, 4);
	assert_int_equal(s.r[2].lo, 6);
	assert_int_equal(s.r[2].hi, 6);
	assert_int_equal(s.r[3].lo, 9); /* 7 and 8 in between: never merged across */
	assert_int_equal(s.r[3].hi, 9);
	assert_int_equal(s.r[4].lo, 11); /* 10 not listed: not merged across either */
	assert_int_equal(s.r[4].hi, 11);
	policy_wb_select_free(&s);
	assert_null(s.r);

	/* huge_idle: huge slots only; the cap */
	policy_wb_select_init(&s, 100000, 0, true, 2);
	policy_wb_select_slot(&s, 0, 5, 0);
	policy_wb_select_slot(&s, 1, 5, BS_HUGE);
	policy_wb_select_slot(&s, 2, 5, BS_HUGE | BS_INCOMP);
	policy_wb_select_slot(&s, 3, 5, BS_HUGE);
	policy_wb_select_slot(&s, 4, 0, BS_HUGE | BS_RECOMP);
	assert_int_equal(s.pages, 2);
	assert_int_equal(s.over_cap, 1);
	assert_int_equal(s.unknown, 1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].lo, 1);
	assert_int_equal(s.r[0].hi, 2);
	policy_wb_select_free(&s);

	/* out of order input is refused, not merged backwards */
	policy_wb_select_init(&s, 100000, 0, false, 10);
	policy_wb_select_slot(&s, 5, 5, 0);
	policy_wb_select_slot(&s, 3, 5, 0);
	assert_int_equal(s.error, -EINVAL);
	assert_int_equal(s.pages, 1);
	policy_wb_select_free(&s);

	/* many ranges: the array grows */
	policy_wb_select_init(&s, 100000, 0, false, 100000);
	for (uint64_t i = 0; i < 2000; i += 2)
		policy_wb_select_slot(&s, i, 5, 0);
	assert_int_equal(s.n, 1000);
	assert_int_equal(s.r[999].lo, 1998);
	policy_wb_select_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_age),
		cmocka_unit_test(test_fragmentation_and_compact),
		cmocka_unit_test(test_expand_plan),
		cmocka_unit_test(test_failures_marked),
		cmocka_unit_test(test_idle_walk_worth),
		cmocka_unit_test(test_compact_in_step),
		cmocka_unit_test(test_enomem_batch),
		cmocka_unit_test(test_huge_wait),
		cmocka_unit_test(test_marked_step_more),
		cmocka_unit_test(test_counts_after),
		cmocka_unit_test(test_end_read),
		cmocka_unit_test(test_idle_go),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_write_bound),
		cmocka_unit_test(test_burst_young),
		cmocka_unit_test(test_write_keeps_young),
		cmocka_unit_test(test_write_cost_sizing),
		cmocka_unit_test(test_write_cost_learning),
		cmocka_unit_test(test_write_cost_found_few),
		cmocka_unit_test(test_write_cost_fixed_part),
		cmocka_unit_test(test_write_cost_saturating),
		cmocka_unit_test(test_saturating),
		cmocka_unit_test(test_daemon_due_and_plan),
		cmocka_unit_test(test_daemon_suspend_correction),
		cmocka_unit_test(test_daemon_gates),
		cmocka_unit_test(test_pressure_pace),
		cmocka_unit_test(test_daemon_tokens),
		cmocka_unit_test(test_daemon_backoff_and_pressure),
		cmocka_unit_test(test_ripen),
		cmocka_unit_test(test_burst_age),
		cmocka_unit_test(test_burst_churn),
		cmocka_unit_test(test_burst_look),
		cmocka_unit_test(test_pass_blind),
		cmocka_unit_test(test_daemon_incompressible_skip),
		cmocka_unit_test(test_plan_once),
		cmocka_unit_test(test_plan_writeback),
		cmocka_unit_test(test_wb_select),
		cmocka_unit_test(test_wb_refill),
		cmocka_unit_test(test_daemon_cold_tier),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
