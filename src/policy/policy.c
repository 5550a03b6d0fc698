// SPDX-License-Identifier: GPL-2.0-or-later
#include "policy.h"

#include "blockstate.h"

#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t policy_idle_age(uint64_t min_sec, uint64_t max_sec, uint64_t mem_total,
			 uint64_t mem_available)
{
	double util, age;
	uint64_t r;

	if (max_sec == 0)
		return 0;
	if (min_sec >= max_sec || mem_total == 0)
		return mem_total == 0 ? max_sec : min_sec;
	if (mem_available > mem_total)
		mem_available = mem_total;
	util = 1.0 - (double)mem_available / (double)mem_total;
	age = (double)min_sec + (double)(max_sec - min_sec) * exp(-5.0 * util);
	/* Round to whole seconds (the kernel takes seconds), then clamp in integers: a
	 * double cannot represent every u64, so the rounded value may land just outside. */
	if (age <= (double)min_sec)
		return min_sec;
	if (age >= (double)max_sec)
		return max_sec;
	r = (uint64_t)(age + 0.5);
	return r < min_sec ? min_sec : r > max_sec ? max_sec : r;
}

unsigned policy_fragmentation_permille(const struct zram_mm_stat *mm)
{
	uint64_t used = mm->v[MM_MEM_USED_TOTAL], compr = mm->v[MM_COMPR_DATA_SIZE];

	if (used == 0 || compr >= used)
		return 0;
	/* (used - compr) * 1000 / used without overflow for any u64 */
	return (unsigned)((double)(used - compr) * 1000.0 / (double)used);
}

bool policy_should_compact(enum compact_mode mode, const struct zram_mm_stat *after,
			   unsigned frag_permille, uint64_t saved, uint64_t min_saved)
{
	switch (mode) {
	case COMPACT_ALWAYS:
		return after->v[MM_MEM_USED_TOTAL] > 0;
	case COMPACT_NEVER:
		return false;
	case COMPACT_AUTO:
		if (after->v[MM_MEM_USED_TOTAL] == 0)
			return false;
		if (saved > 0 && saved >= min_saved)
			return true;
		return policy_fragmentation_permille(after) >= frag_permille;
	}
	return false;
}

bool policy_compact_in_step(enum compact_mode mode, unsigned mem_permille, uint64_t saved_since,
			    uint64_t pool)
{
	uint64_t want = pool / POLICY_STEP_COMPACT_SHARE;

	if (mode == COMPACT_NEVER || mem_permille == 0 || pool == 0)
		return false;
	if (want < POLICY_STEP_COMPACT_MIN)
		want = POLICY_STEP_COMPACT_MIN;
	return saved_since >= want;
}

void policy_expand_plan(const struct pass_plan *in, const struct policy_kernel *k,
			struct pass_plan *out)
{
	uint64_t last_age = 0;
	bool marked = false;

	*out = *in;
	out->n_steps = 0;
	for (unsigned i = 0; i < in->n_steps && i < PASS_MAX_STEPS; i++) {
		const struct pass_step *s = &in->steps[i];
		bool idle_type = s->type == PASS_IDLE || s->type == PASS_HUGE_IDLE;
		bool first = true;

		if (s->mark_idle) {
			last_age = s->idle_age_sec;
			marked = true;
		}
		if (!k->priority || s->priority != 0 || (k->prio_set & 0xeu) == 0) {
			if (out->n_steps < PASS_MAX_STEPS)
				out->steps[out->n_steps++] = *s;
			continue;
		}
		for (unsigned p = 1; p <= ZRAM_MAX_PRIO && out->n_steps < PASS_MAX_STEPS; p++) {
			struct pass_step *o;

			if (!(k->prio_set & (1u << p)))
				continue;
			o = &out->steps[out->n_steps++];
			*o = *s;
			o->priority = p;
			if (first) {
				first = false;
				continue;
			}
			o->fallback = true;
			/* The previous priority took the idle marks of what it tried. */
			o->mark_idle = idle_type && k->clears_idle && marked;
			o->idle_age_sec = last_age;
		}
	}
}

bool policy_failures_marked(const struct zram_caps *c, unsigned prio, unsigned highest)
{
	if (prio == 0 || !c->priority)
		return true; /* the write tries every secondary (6.2-7.0 without priority=) */
	if (c->single_prio || c->prio_max_active)
		return prio >= highest;
	return highest == 1; /* 6.12-6.14: only if this write tried every secondary */
}

bool policy_idle_walk_worth(uint64_t fresh, uint64_t walked, bool walk_decompresses,
			    unsigned mem_permille)
{
	uint64_t m = mem_permille > 1000 ? 1000 : mem_permille;
	uint64_t div_x1000 = POLICY_WALK_COST_DIVISOR * 1000 +
			     (POLICY_WALK_COST_DIVISOR_PRESSED - POLICY_WALK_COST_DIVISOR) * m;

	if (fresh == 0)
		return false;
	/* walked / divisor, in thousandths of the divisor (walked * 1000 could overflow) */
	return !walk_decompresses ||
	       fresh >= walked / div_x1000 * 1000 + walked % div_x1000 * 1000 / div_x1000;
}

unsigned policy_huge_wait(unsigned last, uint64_t saved, uint64_t tried_bytes)
{
	if (tried_bytes == 0)
		return last;
	if (saved >= tried_bytes / POLICY_HUGE_PAYS_DIVISOR)
		return 0;
	if (last == 0)
		return 1;
	return last >= POLICY_HUGE_WAIT_MAX / 2 ? POLICY_HUGE_WAIT_MAX : last * 2;
}

uint64_t policy_enomem_batch(uint64_t batch, uint64_t full, bool enomem)
{
	if (enomem)
		return batch > 1 ? batch / 2 : 1;
	if (batch >= full)
		return batch;
	batch = sat_mul_u64(batch ? batch : 1, 2);
	return batch > full ? full : batch;
}

bool policy_marked_step_more(uint64_t charged, uint64_t candidates)
{
	return charged < candidates;
}

void policy_counts_after(struct bs_counts *c, uint64_t tried)
{
	c->idle_fresh = sat_sub_u64(c->idle_fresh, tried);
	c->huge_idle_fresh = sat_sub_u64(c->huge_idle_fresh, tried);
	c->huge_fresh = sat_sub_u64(c->huge_fresh, tried);
	c->recompressed = sat_add_u64(c->recompressed, tried);
}

bool policy_end_read(bool mem_pressure)
{
	return !mem_pressure;
}

bool policy_idle_go(uint64_t fresh, uint64_t walked, bool check_walk, bool walk_decompresses,
		    unsigned mem_permille)
{
	if (fresh == 0)
		return false;
	return !check_walk || policy_idle_walk_worth(fresh, walked, walk_decompresses, mem_permille);
}

bool policy_batch_progress(const struct zram_mm_stat *before, const struct zram_mm_stat *after,
			   bool marks_known, uint64_t marks_before, uint64_t marks_after)
{
	/*
	 * Recompression leaves orig_data_size as it is; swap-in, swap-out and discards move
	 * it, and with it compr_data_size and huge_pages. Under such traffic a falling pool
	 * says nothing about the batch (measured: a step under a swap workload went on for
	 * 64 batches, 131,072 pages charged, because swap-ins kept shrinking the pool): new
	 * marks tell, or without block_state what is left after correcting for the traffic.
	 */
	bool quiet = after->v[MM_ORIG_DATA_SIZE] == before->v[MM_ORIG_DATA_SIZE];

	if (quiet && (after->v[MM_COMPR_DATA_SIZE] < before->v[MM_COMPR_DATA_SIZE] ||
		      after->v[MM_HUGE_PAGES] < before->v[MM_HUGE_PAGES]))
		return true;
	/* Freed slots take their marks along: only a rise is ours. */
	if (marks_known)
		return marks_after > marks_before;
	return !quiet && policy_own_reduction(before->v[MM_COMPR_DATA_SIZE],
					      after->v[MM_COMPR_DATA_SIZE],
					      before->v[MM_ORIG_DATA_SIZE],
					      after->v[MM_ORIG_DATA_SIZE]) > 0;
}

enum batch_verdict policy_batch_next(const struct batch_state *st, bool progress)
{
	if (!st->batched)
		return BATCH_STOP_UNBATCHED;
	if (!progress)
		return BATCH_STOP_NO_PROGRESS;
	if (st->pages_budget && st->pages_charged >= st->pages_budget)
		return BATCH_STOP_BUDGET;
	return BATCH_CONTINUE;
}

bool policy_batch_inconclusive(uint64_t noprog_pages, uint64_t batch, uint64_t pages,
			       uint64_t write_ns, uint64_t ns_per_page, bool idle_dropped)
{
	/* nothing learnt yet (no write of this kind shrank anything): as before, it ends */
	if (noprog_pages >= batch || ns_per_page == 0)
		return false;
	/* cheap for its size: the kernel found (almost) nothing left to try, unless idle
	 * marks went since the last read (tried pages lose theirs) */
	if (!idle_dropped &&
	    (long double)write_ns * 4.0L < (long double)pages * (long double)ns_per_page)
		return false;
	return true;
}

uint64_t policy_batch_pages(const struct batch_state *st, uint64_t max_pages_per_batch)
{
	uint64_t n = max_pages_per_batch ? max_pages_per_batch : 1;

	if (st->pages_budget) {
		uint64_t left = sat_sub_u64(st->pages_budget, st->pages_charged);

		if (left < n)
			n = left;
	}
	return n ? n : 1;
}

/* ---- daemon mode ---- */

#define NS_PER_SEC 1000000000ULL

uint64_t policy_write_bound_ns(uint64_t bound_ns, unsigned mem_permille)
{
	uint64_t m = mem_permille > 1000 ? 1000 : mem_permille;

	return sat_mul_u64(bound_ns / 1000, 1000 + (POLICY_WRITE_BOUND_GROWTH - 1) * m);
}

const char *policy_verdict_name(enum policy_verdict v)
{
	switch (v) {
	case POLICY_RUN:
		return "run";
	case POLICY_WAIT:
		return "not due";
	case POLICY_DEFER_BATTERY:
		return "deferred: on battery";
	case POLICY_DEFER_CPU_SHARE:
		return "deferred: CPU share spent";
	case POLICY_DEFER_BUDGET:
		return "deferred: page budget spent";
	}
	return "?";
}

void policy_dev_init(struct policy_dev *pd, const struct dev_config *cfg, uint64_t now_ns)
{
	memset(pd, 0, sizeof(*pd));
	pd->started_ns = now_ns;
	pd->next_due_ns = sat_add_u64(now_ns, sat_mul_u64(cfg->interval_sec, NS_PER_SEC));
	pd->tokens = cfg->pages_per_hour; /* a full bucket: the first pass may use an hour's worth */
	pd->tokens_at_ns = now_ns;
}

uint64_t policy_suspended_within(const struct policy_dev *pd, uint64_t now_ns,
				 uint64_t suspended_now_ns, uint64_t window_ns)
{
	uint64_t from = sat_sub_u64(now_ns, window_ns), base = UINT64_MAX;

	/* The newest sample at or before the window start; without one the oldest we have
	 * (suspends before the daemon started are unknown, so they do not count). */
	for (unsigned i = 0; i < pd->susp_n; i++) {
		if (pd->susp[i].mono_ns <= from)
			base = pd->susp[i].suspended_ns;
	}
	if (base == UINT64_MAX)
		base = pd->susp_n ? pd->susp[0].suspended_ns : suspended_now_ns;
	return sat_sub_u64(suspended_now_ns, base);
}

static void record_suspend(struct policy_dev *pd, uint64_t now_ns, uint64_t suspended_ns)
{
	if (pd->susp_n && pd->susp[pd->susp_n - 1].mono_ns >= now_ns)
		return;
	if (pd->susp_n == POLICY_SUSPEND_SLOTS) {
		/* Drop the second oldest: the oldest keeps the longest look-back. */
		memmove(&pd->susp[1], &pd->susp[2], (POLICY_SUSPEND_SLOTS - 2) * sizeof(pd->susp[0]));
		pd->susp_n--;
	}
	pd->susp[pd->susp_n].mono_ns = now_ns;
	pd->susp[pd->susp_n].suspended_ns = suspended_ns;
	pd->susp_n++;
}

uint64_t policy_cpu_busy(const struct policy_dev *pd, uint64_t now_ns)
{
	uint64_t from = sat_sub_u64(now_ns, POLICY_CPU_WINDOW_NS), busy = 0;

	for (unsigned i = 0; i < pd->cpu_n; i++)
		if (pd->cpu[i].end_ns > from)
			busy = sat_add_u64(busy, pd->cpu[i].busy_ns);
	return busy;
}

static void refill_tokens(struct policy_dev *pd, const struct dev_config *cfg, uint64_t now_ns)
{
	uint64_t elapsed, add;

	if (cfg->pages_per_hour == 0)
		return;
	if (now_ns <= pd->tokens_at_ns)
		return;
	elapsed = now_ns - pd->tokens_at_ns;
	/* pages_per_hour * elapsed / 1 h, without overflow for any input */
	add = (uint64_t)((long double)cfg->pages_per_hour * (long double)elapsed /
			 (long double)(3600ULL * NS_PER_SEC));
	if (add == 0)
		return; /* keep tokens_at_ns so that fractions accumulate */
	pd->tokens = sat_add_u64(pd->tokens, add);
	if (pd->tokens > cfg->pages_per_hour)
		pd->tokens = cfg->pages_per_hour;
	pd->tokens_at_ns = now_ns;
}

static uint64_t secs(uint64_t s)
{
	return sat_mul_u64(s, NS_PER_SEC);
}

/* max_pages per write: never 0, which the kernel reads as "no limit" (config checks >= 1). */
static uint64_t cfg_batch(const struct dev_config *cfg)
{
	return cfg->max_pages_per_batch ? cfg->max_pages_per_batch : 1;
}

void policy_decide(struct policy_dev *pd, const struct dev_config *cfg,
		   const struct policy_snapshot *s, struct policy_decision *ret)
{
	uint64_t now = s->now_ns, interval = secs(cfg->interval_sec);
	uint64_t batch = cfg_batch(cfg);
	struct pass_plan *plan = &ret->plan;

	memset(ret, 0, sizeof(*ret));
	record_suspend(pd, now, s->suspended_ns);
	refill_tokens(pd, cfg, now);

	if (now < pd->next_due_ns) {
		ret->verdict = POLICY_WAIT;
		ret->wake_ns = pd->next_due_ns;
		return;
	}
	/* A pass frees memory, so memory pressure overrides the battery rule. */
	if (s->on_battery == TRI_YES && cfg->defer_on_battery &&
	    !(s->psi_mem_some_avg10_x100 >= 0 &&
	      (uint64_t)s->psi_mem_some_avg10_x100 > cfg->battery_psi_memory_percent * 100)) {
		ret->verdict = POLICY_DEFER_BATTERY;
		ret->wake_ns = sat_add_u64(now, interval);
		return;
	}
	/*
	 * A busy CPU no longer defers the pass: it runs paced (plan.duty_permille), and the
	 * more memory is short the larger its share. The window limit rises with memory
	 * pressure the same way.
	 */
	if (cfg->cpu_share_max_percent &&
	    (long double)policy_cpu_busy(pd, now) * 1000.0L >=
		    (long double)policy_cpu_share_permille(cfg, s) * (long double)POLICY_CPU_WINDOW_NS) {
		ret->verdict = POLICY_DEFER_CPU_SHARE;
		ret->wake_ns = sat_add_u64(now, POLICY_DEFER_RETRY_NS);
		return;
	}
	if (cfg->pages_per_hour && pd->tokens < (batch < cfg->pages_per_hour ? batch
									    : cfg->pages_per_hour)) {
		uint64_t need = (batch < cfg->pages_per_hour ? batch : cfg->pages_per_hour) - pd->tokens;

		ret->verdict = POLICY_DEFER_BUDGET;
		/* time until the bucket holds one batch */
		ret->wake_ns = sat_add_u64(
			now, (uint64_t)((long double)need * (long double)(3600ULL * NS_PER_SEC) /
					(long double)cfg->pages_per_hour) +
				     1);
		return;
	}

	if (policy_burst_look(pd, cfg, s, policy_memory_pressure_permille(s))) {
		ret->verdict = POLICY_WAIT;
		ret->wake_ns = sat_add_u64(now, POLICY_BURST_LOOK_NS);
		return;
	}
	ret->verdict = POLICY_RUN;
	ret->wake_ns = sat_add_u64(now, interval);
	ret->idle_age_sec = policy_plan(pd, cfg, s, plan);
}

/*
 * The fragmentation at which compact = auto compacts: compact-fragmentation-percent,
 * lowered in proportion to memory pressure, down to any fragmentation at full pressure.
 * Compaction is the cheapest memory there is (milliseconds for the whole pool), and swap-ins
 * free objects all over it between passes: in the swap bench on 7.3 passes that saved
 * nothing left 1.2 MB (1.5% of the pool) that a compaction returns.
 */
unsigned policy_compact_frag_permille(const struct dev_config *cfg,
				      const struct policy_snapshot *s)
{
	uint64_t frag = (uint64_t)cfg->compact_fragmentation_percent * 10;

	if (frag > 1000)
		frag = 1000;
	return (unsigned)(frag * (1000 - policy_memory_pressure_permille(s)) / 1000);
}

/* An idle age as the kernel's CLOCK_BOOTTIME needs it (0 = "all" stays "all"). */
static uint64_t boottime_age(const struct policy_dev *pd, const struct policy_snapshot *s,
			     uint64_t age)
{
	/* ac_time runs on CLOCK_BOOTTIME: time suspended would make every page look idle,
	 * so it is added to the age. Without history (--once) nothing is known of it. */
	if (!pd || !age)
		return age;
	return sat_add_u64(age, policy_suspended_within(pd, s->now_ns, s->suspended_ns, secs(age)) /
					NS_PER_SEC);
}

/*
 * Cold tier first, at most once per cold age: its mark selects pages idle for hours; the
 * warm mark after it re-marks with the shorter age. Pages the warm tier recompressed have
 * ac_time 0 (they look idle since boot), so the cold tier takes them at its next run;
 * running it once per cold age bounds how soon that happens.
 */
static void plan_cold_tier(const struct policy_dev *pd, const struct dev_config *cfg,
			   const struct policy_snapshot *s, struct pass_plan *plan)
{
	struct pass_step *st;

	if (!pd || !cfg->cold_idle_age_sec || !s->priority_supported ||
	    s->n_secondaries < cfg->cold_priority ||
	    s->now_ns < sat_add_u64(pd->last_cold_ns ? pd->last_cold_ns : pd->started_ns,
				    secs(cfg->cold_idle_age_sec)))
		return;
	st = &plan->steps[plan->n_steps++];
	plan->cold = true;
	st->type = PASS_IDLE;
	st->priority = cfg->cold_priority;
	st->mark_idle = true;
	st->idle_age_sec = boottime_age(pd, s, cfg->cold_idle_age_sec);
}

uint64_t policy_plan(const struct policy_dev *pd, const struct dev_config *cfg,
		     const struct policy_snapshot *s, struct pass_plan *plan)
{
	uint64_t age = policy_idle_age(cfg->idle_age_min_sec, cfg->idle_age_max_sec, s->mem_total,
				       s->mem_available), burst_age;
	bool marked = false;

	memset(plan, 0, sizeof(*plan));
	plan->duty_permille = policy_pace_permille(cfg, s);
	plan->worker_nice = policy_worker_nice(s);
	plan->mem_pressure_permille = policy_memory_pressure_permille(s);
	plan->threshold = cfg->threshold_bytes;
	plan->batch_pages = cfg_batch(cfg);
	plan->max_write_ns = sat_mul_u64(cfg->max_write_ms, 1000000);
	plan->pages_budget = cfg->max_pages_per_pass;
	/* The bucket bounds the whole pass, not each step. */
	if (pd && cfg->pages_per_hour)
		plan->pages_total = pd->tokens;
	plan->compact = cfg->compact;
	plan->compact_frag_permille = policy_compact_frag_permille(cfg, s);
	plan->compact_min_saved = cfg->compact_min_saved_bytes;
	plan_cold_tier(pd, cfg, s, plan);
	burst_age = policy_burst_age(pd, cfg, s, plan->mem_pressure_permille, age);
	plan->burst_aged = burst_age != age;
	age = burst_age;
	for (unsigned i = 0; i < cfg->n_passes && plan->n_steps < PASS_MAX_STEPS; i++) {
		enum pass_type t = cfg->passes[i];
		unsigned prio = cfg->priority[t];
		struct pass_step *st;

		if ((t == PASS_HUGE || t == PASS_HUGE_IDLE) && pd && pd->huge_exhausted &&
		    pd->huge_sig == s->content_sig)
			continue; /* only incompressible pages there until new data lands */
		/*
		 * At the burst age the huge type (not idle-gated) would take the huge pages
		 * just swapped out, which the age leaves out of the idle types; huge_idle
		 * takes those old enough. Measured in the burst bench's catch-up: 0-38 KiB
		 * saved for 0.22-0.33 s of the one CPU a step (6.12 and 7.3, warmcold).
		 */
		if (t == PASS_HUGE && plan->burst_aged)
			continue;
		st = &plan->steps[plan->n_steps++];
		st->type = t;
		st->priority = s->priority_supported && prio <= s->n_secondaries ? prio : 0;
		/*
		 * One mark, before the first idle type: recompression clears IDLE on what it
		 * tried (6.13+, 6.12.y), and a second age-based mark would re-mark every slot
		 * just recompressed (their ac_time is 0).
		 */
		if (!marked && (t == PASS_IDLE || t == PASS_HUGE_IDLE)) {
			st->mark_idle = true;
			st->idle_age_sec = boottime_age(pd, s, age);
			marked = true;
		}
	}
	plan->ripen_probe = pd && marked && plan->mem_pressure_permille > 0;
	policy_plan_writeback(cfg, s, plan);
	return age;
}

uint64_t policy_wb_refill(uint64_t left, uint64_t at_unix, uint64_t now_unix, uint64_t per_day,
			  uint64_t *ret_at)
{
	uint64_t add;

	if (at_unix == 0 || left >= per_day) {
		/* never used, or full: nothing to refill, and no credit for the time it sat full */
		*ret_at = now_unix;
		return at_unix == 0 || left > per_day ? per_day : left;
	}
	if (now_unix <= at_unix) {
		*ret_at = now_unix < at_unix ? now_unix : at_unix;
		return left;
	}
	add = (uint64_t)((long double)per_day * (long double)(now_unix - at_unix) /
			 (long double)POLICY_WB_DAY_SEC);
	if (add == 0) {
		*ret_at = at_unix;
		return left;
	}
	*ret_at = now_unix;
	left = sat_add_u64(left, add);
	return left > per_day ? per_day : left;
}

uint64_t policy_wb_budget_pages(uint64_t day_left, uint64_t per_pass, uint32_t page_size)
{
	return page_size ? (day_left < per_pass ? day_left : per_pass) / page_size : 0;
}

void policy_plan_writeback(const struct dev_config *cfg, const struct policy_snapshot *s,
			   struct pass_plan *plan)
{
	plan->n_wb = 0;
	plan->wb_budget_pages = 0;
	if (!cfg->writeback)
		return;
	plan->wb_batch_size = cfg->wb_batch_size;
	plan->wb_budget_pages =
		policy_wb_budget_pages(s->wb_day_left, cfg->wb_bytes_per_pass, s->page_size);
	for (unsigned i = 0; i < cfg->n_wb_types && i < WB_NR_TYPES; i++) {
		struct wb_step *w = &plan->wb[plan->n_wb++];

		w->type = cfg->wb_types[i];
		w->by_age = wb_type_idle(w->type);
		w->idle_age_sec = w->by_age ? cfg->wb_idle_age_sec : 0;
	}
}

void policy_ripen_init(struct ripen *r, uint64_t now_sec, uint64_t age_sec)
{
	memset(r, 0, sizeof(*r));
	r->now_sec = now_sec;
	r->age_sec = age_sec;
	r->width = age_sec / POLICY_RIPEN_BUCKETS + (age_sec % POLICY_RIPEN_BUCKETS != 0);
}

void policy_ripen_slot(void *arg, uint64_t index, uint64_t ac_sec, unsigned flags)
{
	struct ripen *r = arg;
	uint64_t left, b;

	(void)index;
	if (flags & (BS_SAME | BS_WB | BS_IDLE | BS_RECOMP | BS_INCOMP))
		return;
	/* 0: freed and refilled (no age known); in the future: not comparable */
	if (r->width == 0 || ac_sec == 0 || ac_sec > r->now_sec || r->now_sec - ac_sec >= r->age_sec)
		return;
	left = r->age_sec - (r->now_sec - ac_sec); /* 1..age_sec */
	b = (left - 1) / r->width;
	r->bucket[b < POLICY_RIPEN_BUCKETS ? b : POLICY_RIPEN_BUCKETS - 1]++;
	r->n++;
}

uint64_t policy_ripen_sec(const struct ripen *r, unsigned share_permille, uint64_t min_slots)
{
	uint64_t want, sum = 0, t;

	if (r->n == 0 || r->n < min_slots)
		return UINT64_MAX;
	if (share_permille > 1000)
		share_permille = 1000;
	want = (uint64_t)(((long double)r->n * share_permille + 999.0L) / 1000.0L);
	if (want == 0)
		want = 1;
	for (unsigned b = 0; b < POLICY_RIPEN_BUCKETS; b++) {
		sum += r->bucket[b];
		if (sum >= want) {
			t = sat_mul_u64(b + 1, r->width);
			return t < r->age_sec ? t : r->age_sec;
		}
	}
	return r->age_sec;
}

void policy_pass_done(struct policy_dev *pd, const struct dev_config *cfg,
		      const struct policy_outcome *o)
{
	uint64_t interval = secs(cfg->interval_sec), wait = interval, ripe_sec;

	pd->last_pass_end_ns = o->end_ns;
	/* Refill up to now first, so that the time the bucket sat full is not credited. */
	refill_tokens(pd, cfg, o->end_ns);
	pd->tokens = sat_sub_u64(pd->tokens, o->pages_charged);
	if (pd->cpu_n == POLICY_CPU_SLOTS) {
		memmove(&pd->cpu[0], &pd->cpu[1], (POLICY_CPU_SLOTS - 1) * sizeof(pd->cpu[0]));
		pd->cpu_n--;
	}
	pd->cpu[pd->cpu_n].end_ns = o->end_ns;
	pd->cpu[pd->cpu_n].busy_ns = o->kernel_ns;
	pd->cpu_n++;
	if (o->cold_ran)
		pd->last_cold_ns = o->end_ns;
	if (o->huge_ran) {
		pd->huge_exhausted = !o->huge_progress;
		pd->huge_sig = o->content_sig;
	}
	if (o->saved > 0 || o->error) {
		pd->empty_passes = 0;
	} else {
		uint64_t cap = secs(cfg->backoff_max_sec);

		if (pd->empty_passes < 32)
			pd->empty_passes++;
		/* interval * 2^n, capped at backoff-max-sec (never below the interval) */
		wait = sat_mul_u64(interval, 1ULL << (pd->empty_passes < 20 ? pd->empty_passes : 20));
		if (cap < interval)
			cap = interval;
		if (wait > cap)
			wait = cap;
	}
	/*
	 * Pages too young for this pass will be old enough sooner than that (a burst of swap-out
	 * under memory pressure): the next pass then, at least a second later.
	 */
	ripe_sec = policy_burst_update(pd, cfg, o);
	if (ripe_sec == UINT64_MAX)
		ripe_sec = o->ripen_sec;
	if (ripe_sec != UINT64_MAX && ripe_sec != 0) {
		uint64_t ripe = secs(ripe_sec);

		if (ripe < NS_PER_SEC)
			ripe = NS_PER_SEC;
		if (ripe < wait)
			wait = ripe;
	}
	pd->next_due_ns = sat_add_u64(o->end_ns, wait);
}

static unsigned clamp_permille(long long v)
{
	return v < 0 ? 0 : v > 1000 ? 1000 : (unsigned)v;
}

unsigned policy_memory_pressure_permille(const struct policy_snapshot *s)
{
	unsigned psi = 0, avail = 0;

	if (s->psi_mem_some_avg10_x100 >= 0) /* 20.00% = 2000 -> 1000 */
		psi = clamp_permille((long long)s->psi_mem_some_avg10_x100 / 2);
	if (s->mem_total) {
		/* available share in per mille; 200 -> 0, 50 or less -> 1000 */
		long long a = (long long)((long double)(s->mem_available < s->mem_total
								? s->mem_available
								: s->mem_total) *
					  1000.0L / (long double)s->mem_total);

		avail = clamp_permille((200 - a) * 1000 / 150);
	}
	return psi > avail ? psi : avail;
}

unsigned policy_cpu_share_permille(const struct dev_config *cfg, const struct policy_snapshot *s)
{
	unsigned base = (unsigned)(cfg->cpu_share_max_percent > 100 ? 100 : cfg->cpu_share_max_percent) * 10;
	unsigned top = (unsigned)(cfg->cpu_share_pressure_percent > 100 ? 100
									  : cfg->cpu_share_pressure_percent) *
		       10;
	unsigned m = policy_memory_pressure_permille(s);

	if (base == 0)
		base = 50; /* the window limit is off; a busy CPU still gets a pace */
	if (top < base)
		top = base;
	return base + (top - base) * m / 1000;
}

unsigned policy_pace_permille(const struct dev_config *cfg, const struct policy_snapshot *s)
{
	bool busy = cfg->psi_cpu_max_percent && s->psi_cpu_some_avg10_x100 >= 0 &&
		    (uint64_t)s->psi_cpu_some_avg10_x100 > cfg->psi_cpu_max_percent * 100;

	return busy ? policy_cpu_share_permille(cfg, s) : 1000;
}

int policy_worker_nice(const struct policy_snapshot *s)
{
	unsigned m = policy_memory_pressure_permille(s);

	return POLICY_WORKER_NICE - (int)(m * POLICY_WORKER_NICE / 1000);
}

uint64_t policy_own_reduction(uint64_t before, uint64_t after, uint64_t orig_before,
			      uint64_t orig_after)
{
	long double own = (long double)before - (long double)after;

	if (orig_before && orig_after != orig_before)
		own += ((long double)orig_after - (long double)orig_before) * (long double)before /
		       (long double)orig_before;
	if (own <= 0)
		return 0;
	return own >= 1.8e19L ? UINT64_MAX : (uint64_t)(own + 0.5L);
}

uint64_t policy_pause_ns(uint64_t write_ns, unsigned duty_permille)
{
	if (duty_permille == 0 || duty_permille >= 1000)
		return 0;
	/* write / (write + pause) = duty */
	return (uint64_t)((long double)write_ns * (long double)(1000 - duty_permille) /
			  (long double)duty_permille);
}

void policy_memory_pressure(struct policy_dev *pd, uint64_t now_ns)
{
	uint64_t earliest = pd->last_pass_end_ns
				    ? sat_add_u64(pd->last_pass_end_ns, POLICY_PRESSURE_MIN_GAP_NS)
				    : now_ns;

	if (earliest < now_ns)
		earliest = now_ns;
	if (earliest < pd->next_due_ns) {
		pd->next_due_ns = earliest;
		pd->empty_passes = 0;
	}
}

bool policy_wb_slot_old(uint64_t ac_sec, uint64_t now_sec, uint64_t age_sec)
{
	/* ac_time in the future (a clock we cannot compare with) is not old either */
	return ac_sec != 0 && ac_sec <= now_sec && now_sec - ac_sec >= age_sec;
}

void policy_wb_select_init(struct wb_select *s, uint64_t now_sec, uint64_t age_sec, bool huge_only,
			   uint64_t cap)
{
	memset(s, 0, sizeof(*s));
	s->now_sec = now_sec;
	s->age_sec = age_sec;
	s->huge_only = huge_only;
	s->cap = cap;
}

void policy_wb_select_slot(void *arg, uint64_t index, uint64_t ac_sec, unsigned flags)
{
	struct wb_select *s = arg;
	struct wb_range *last = s->n ? &s->r[s->n - 1] : NULL;

	/* no object in RAM: nothing to write back (the kernel skips them too) */
	if (flags & (BS_SAME | BS_WB))
		return;
	if (s->huge_only && !(flags & BS_HUGE))
		return;
	if (ac_sec == 0) {
		s->unknown++;
		return;
	}
	if (!policy_wb_slot_old(ac_sec, s->now_sec, s->age_sec)) {
		s->young++;
		return;
	}
	if (s->pages >= s->cap || s->error) {
		s->over_cap++;
		return;
	}
	if (last && last->hi != UINT64_MAX && index == last->hi + 1) {
		last->hi = index;
		s->pages++;
		return;
	}
	if (last && index <= last->hi) {
		/* block_state lists each slot once, in index order: never merge backwards */
		s->error = -EINVAL;
		s->over_cap++;
		return;
	}
	if (s->n == s->alloc) {
		size_t n = s->alloc ? 2 * s->alloc : 64;
		struct wb_range *r =
			n < SIZE_MAX / sizeof(*r) ? realloc(s->r, n * sizeof(*r)) : NULL;

		if (!r) {
			s->error = -ENOMEM;
			s->over_cap++;
			return;
		}
		s->r = r;
		s->alloc = n;
	}
	s->r[s->n].lo = index;
	s->r[s->n].hi = index;
	s->n++;
	s->pages++;
}

void policy_wb_select_free(struct wb_select *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->alloc = 0;
}

bool policy_pass_blind(const struct pass_plan *plan, const struct zram_caps *caps,
		       unsigned highest)
{
	if (!plan->burst_aged || plan->threshold)
		return false;
	for (unsigned i = 0; i < plan->n_steps; i++) {
		const struct pass_step *s = &plan->steps[i];

		if (s->fallback || s->priority > 1 ||
		    !policy_failures_marked(caps, s->priority, highest))
			return false;
	}
	return true;
}

uint64_t policy_blind_candidates(enum pass_type t, uint64_t stored, uint64_t same,
				 uint64_t huge)
{
	if (t == PASS_IDLE)
		return stored > same ? stored - same : 0;
	return huge < stored ? huge : stored;
}
