// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's pass after a burst of swap-out (include/pass.h): how many stored pages are
 * still younger than the idle age, and when they will be old enough.
 */
#include "pass.h"

#include "blockstate.h"
#include "pass_cpu.h"
#include "policy.h"
#include "util.h"

/* Stored pages neither idle, done nor given up; flags overlap ('i' with 'r' or 'n'), so this
 * undercounts, never overcounts. */
uint64_t pass_young_estimate(const struct bs_counts *c)
{
	uint64_t young = sat_sub_u64(c->allocated, c->same);

	young = sat_sub_u64(young, c->written_back);
	young = sat_sub_u64(young, c->idle);
	young = sat_sub_u64(young, c->recompressed);
	return sat_sub_u64(young, c->incompressible);
}

/*
 * The daemon under memory pressure, after a pass whose idle steps found nothing old enough:
 * when at least a batch of stored pages is younger than the idle age (estimated from the
 * counts), when 90% of them will be old enough. Counts whose young pages still hold spare a
 * quiet device the read, and with the baseline's access times the probe reads nothing;
 * otherwise the one read with access times gives the counts too.
 */
void pass_probe_ripening(const struct pass_ctx *ctx, const struct zram_dev *d,
			 const struct pass_plan *plan, bool idle_nothing, const struct ripen *ages,
			 struct bs_counts *cur, bool young_known, bool *cur_valid,
			 struct device_report *rep)
{
	struct bs_counts c;
	struct ripen r;
	uint64_t c0;
	int rd;

	if (!plan->ripen_probe || !idle_nothing || !rep->idle_marked || !rep->idle_age_sec)
		return;
	if (young_known && pass_young_estimate(cur) < plan->batch_pages)
		return;
	if (ages && young_known) {
		/* the baseline's access times; what was written since left them (and cur's
		 * young pages) as they were, though not cur's other counts */
		r = *ages;
		c = *cur;
	} else {
		policy_ripen_init(&r, now_boottime_ns() / 1000000000u, rep->idle_age_sec);
		c0 = pass_cpu_now();
		rd = blockstate_read_slots(ctx->root_fd, d->id, policy_ripen_slot, &r, &c);
		(void)pass_cpu_add(PASS_CPU_BLOCK_STATE, c0);
		if (rd < 0)
			return;
		*cur = c;
		*cur_valid = true;
	}
	if (pass_young_estimate(&c) < plan->batch_pages)
		return;
	rep->burst_young = policy_burst_young(pass_young_estimate(&c), c.allocated);
	rep->ripen_slots = r.n;
	rep->ripen_sec = policy_ripen_sec(&r, 900, plan->batch_pages);
}

