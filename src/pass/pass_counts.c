// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A pass's block_state counts (include/pass_internal.h): read as rarely as the questions
 * allow, since each read makes the kernel format a line per slot, and the verdicts drawn
 * from them.
 */
#include "pass_internal.h"

#include "log.h"
#include "pass_cpu.h"
#include "policy.h"
#include "util.h"

#include <errno.h>
#include <string.h>

void pass_counts_set(struct pass_run *st, const struct bs_counts *c)
{
	st->cur = *c;
	st->cur_valid = true;
	st->cur_est = true;
	st->tried_since = 0;
	st->young_kept = true;
}

void pass_counts_tried(struct pass_run *st, uint64_t tried)
{
	st->tried_since = sat_add_u64(st->tried_since, tried);
}

void pass_counts_wrote(struct pass_run *st, enum pass_type t)
{
	st->cur_valid = false;
	st->wrote = true;
	if (!policy_write_keeps_young(t))
		st->young_kept = st->ages_read = false;
}

void pass_counts_forget(struct pass_run *st)
{
	st->cur_valid = false;
	st->cur_est = false;
	st->young_kept = st->ages_read = false;
}

bool pass_counts_now(const struct pass_ctx *ctx, const struct zram_dev *d, struct pass_run *st,
		     struct bs_counts *c)
{
	if (!st->bs_ok)
		return false;
	if (!st->cur_valid) {
		struct bs_counts n;
		uint64_t c0 = pass_cpu_now();
		int r = blockstate_read(ctx->root_fd, d->id, &n, NULL, NULL);

		(void)pass_cpu_add(PASS_CPU_BLOCK_STATE, c0);
		if (r < 0)
			return false;
		pass_counts_set(st, &n);
	}
	*c = st->cur;
	return true;
}

bool pass_counts_young(const struct pass_ctx *ctx, const struct zram_dev *d, struct pass_run *st,
		       struct bs_counts *c)
{
	if (st->bs_ok && st->young_kept) {
		*c = st->cur;
		return true;
	}
	return pass_counts_now(ctx, d, st, c);
}

bool pass_counts_est(const struct pass_run *st, struct bs_counts *c)
{
	if (!st->bs_ok || !(st->cur_valid || st->cur_est))
		return false;
	*c = st->cur;
	if (!st->cur_valid)
		policy_counts_after(c, st->tried_since);
	return true;
}

void pass_read_bs(const struct pass_ctx *ctx, const struct zram_dev *d, struct bs_counts *c,
		  struct bs_set *record, const struct bs_set *before, uint64_t *new_incomp,
		  struct ripen *ages, bool *ok)
{
	uint64_t c0;
	int r;

	*ok = false;
	if (!d->caps.block_state)
		return;
	c0 = pass_cpu_now();
	if (ages && record && !before)
		r = blockstate_read_incomp_slots(ctx->root_fd, d->id, c, record, policy_ripen_slot,
						 ages);
	else
		r = blockstate_read_incomp(ctx->root_fd, d->id, c, record, before, new_incomp);
	(void)pass_cpu_add(PASS_CPU_BLOCK_STATE, c0);
	if (r >= 0 && record && record->failed)
		r = -ENOMEM; /* the set could not grow to the slots listed */
	if (r < 0) {
		log_warning("%s: block_state unreadable (%s); incompressible pages are estimated "
			    "from huge-page deltas",
			    d->name, strerror(-r));
		return;
	}
	*ok = true;
}

/*
 * Whether an idle-type step is worth writing, from block_state after its idle mark.
 * STOP_NOTHING: it can only meet slots it cannot change. Recompressed slots look idle
 * forever (ac_time 0), and 6.2-6.14 decompress each of them before finding nothing to
 * try, in one write that max_pages does not bound (such slots are not counted): measured
 * in the bench as 41% of the daemon's kernel time. Only decidable when no higher priority
 * is left to try for a recompressed slot. STOP_WALK: on those kernels, too few new idle
 * pages to pay for that walk (policy_idle_walk_worth). STOP_NONE: write it. After the
 * pass's earlier steps wrote, counts estimated from the last read decide a go-ahead
 * (policy_idle_go); only a doubt is read.
 */
enum batch_stop pass_idle_verdict(const struct pass_ctx *ctx, const struct zram_dev *d,
				  const struct pass_step *step, struct pass_run *st,
				  unsigned mem_permille)
{
	bool top = step->priority == 1 || (step->priority == 0 && d->recomp.count == 1);
	bool walk = top && step->type == PASS_IDLE;
	struct bs_counts c;

	if (!pass_idle_type(step->type))
		return STOP_NONE;
	if (!st->cur_valid && pass_counts_est(st, &c) &&
	    policy_idle_go(pass_candidates(&c, step->type), c.recompressed, walk,
			   !d->caps.prio_max_active, mem_permille))
		return STOP_NONE;
	if (!pass_counts_now(ctx, d, st, &c))
		return STOP_NONE;
	if (top && pass_candidates(&c, step->type) == 0) {
		st->idle_nothing = true;
		return STOP_NOTHING;
	}
	/* 6.15+ skip slots already at the step's priority in their scan. */
	if (walk && !policy_idle_walk_worth(c.idle_fresh, c.recompressed, !d->caps.prio_max_active,
					    mem_permille))
		return STOP_WALK;
	return STOP_NONE;
}

bool pass_idle_type(enum pass_type t)
{
	return t == PASS_IDLE || t == PASS_HUGE_IDLE;
}

uint64_t pass_candidates(const struct bs_counts *c, enum pass_type t)
{
	switch (t) {
	case PASS_IDLE:
		return c->idle_fresh;
	case PASS_HUGE_IDLE:
		return c->huge_idle_fresh;
	case PASS_HUGE:
		return c->huge_fresh;
	}
	return 0;
}

/*
 * The head of a chain whose candidates are no more than the last pass left: skip it. More
 * candidates by the estimate after this pass's writes are not read again.
 */
bool pass_chain_unchanged(const struct pass_ctx *ctx, const struct zram_dev *d,
			  const struct pass_step *step, uint64_t left, struct pass_run *st)
{
	struct bs_counts c;

	if (!pass_idle_type(step->type))
		return false;
	if (!st->cur_valid && pass_counts_est(st, &c) && pass_candidates(&c, step->type) > left)
		return false;
	if (!pass_counts_now(ctx, d, st, &c))
		return false;
	return pass_candidates(&c, step->type) <= left;
}

/*
 * Pages a finished step tried and left as they were: at most what it could try (its
 * candidates, or the pages charged), minus those it shrank (new 'r') or gave up on (new
 * 'n'). A fallback step's candidates are not in block_state (slots already at a lower
 * priority show 'r' too), so its charge bounds it.
 */
uint64_t pass_step_unshrunk(const struct pass_report *pr, bool have_bs,
			    const struct bs_counts *c0, const struct bs_counts *c1)
{
	uint64_t tried = pr->pages_charged, done;

	if (!have_bs)
		return tried;
	if (!pr->fallback && pr->priority <= 1 && pass_candidates(c0, pr->type) < tried)
		tried = pass_candidates(c0, pr->type);
	done = sat_add_u64(sat_sub_u64(c1->recompressed, c0->recompressed),
			   sat_sub_u64(c1->incompressible, c0->incompressible));
	return sat_sub_u64(tried, done);
}
