// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon after a burst of swap-out (include/policy.h): when a burst begins and ends,
 * the idle age its passes mark with, and when the first of them is due. Pure, like policy.c.
 */
#include "policy.h"

#include <stdint.h>

bool policy_burst_young(uint64_t young, uint64_t allocated)
{
	return young > 0 && young >= allocated - allocated / 2;
}

bool policy_write_keeps_young(enum pass_type t)
{
	return t == PASS_IDLE || t == PASS_HUGE_IDLE;
}

bool policy_burst_churn(const struct policy_dev *pd, const struct dev_config *cfg,
			const struct policy_reads *now, uint64_t now_ns)
{
	uint64_t span_ns, reads;

	if (!pd || !now->known || !pd->read_mark.known || now->pages_stored == 0 ||
	    now->pages_read < pd->read_mark.pages_read || now_ns < pd->read_mark_ns)
		return false; /* unknown, or the device was set up again */
	span_ns = now_ns - pd->read_mark_ns;
	if (span_ns < 1000000000ULL)
		return false; /* too short to tell */
	reads = now->pages_read - pd->read_mark.pages_read;
	/* reads / span * age >= stored / 2, without overflow at any count */
	return 2.0L * (long double)reads * (long double)cfg->idle_age_min_sec * 1e9L >=
	       (long double)now->pages_stored * (long double)span_ns;
}

bool policy_burst_look(struct policy_dev *pd, const struct dev_config *cfg,
		       const struct policy_snapshot *s, unsigned mem_permille)
{
	if (!pd || !pd->burst || pd->burst_looked || mem_permille == 0 ||
	    cfg->burst_idle_age_sec == 0 || !policy_burst_churn(pd, cfg, &s->reads, s->now_ns))
		return false;
	/* the rate from here on decides (policy_burst_age, and the pass's end) */
	pd->read_mark = s->reads;
	pd->read_mark_ns = s->now_ns;
	pd->burst_looked = true;
	return true;
}

uint64_t policy_burst_age(const struct policy_dev *pd, const struct dev_config *cfg,
			  const struct policy_snapshot *s, unsigned mem_permille, uint64_t age)
{
	/* age 0 is "all": every page is a candidate already */
	if (!pd || !pd->burst || mem_permille == 0 || age == 0 || cfg->burst_idle_age_sec == 0)
		return age;
	if (policy_burst_churn(pd, cfg, &s->reads, s->now_ns))
		return age;
	return cfg->burst_idle_age_sec < age ? cfg->burst_idle_age_sec : age;
}

/*
 * A burst begins when a pass at the ordinary age finds one (its ripen probe), and lasts
 * while the passes at the burst age save memory: one that saves nothing, or a pass at the
 * ordinary age (the pressure was gone) that finds no burst, ends it; 6.2-6.14 end it after
 * its first pass (include/policy.h). Neither begins nor lasts while the device reads its
 * contents back fast (policy_burst_churn). The first pass at the burst age comes when 90%
 * of the young pages are that old: ripen_sec counted the time to the ordinary age, which
 * they reach age - burst age seconds later.
 */
uint64_t policy_burst_update(struct policy_dev *pd, const struct dev_config *cfg,
			     const struct policy_outcome *o)
{
	uint64_t b = cfg->burst_idle_age_sec, ahead;

	pd->burst_churn = policy_burst_churn(pd, cfg, &o->reads, o->end_ns);
	pd->burst_looked = false;
	if (o->reads.known) {
		pd->read_mark = o->reads;
		pd->read_mark_ns = o->end_ns;
	}
	if (o->burst_aged) {
		pd->burst = o->saved > 0 && !o->error && !pd->burst_churn && !o->walk_decompresses;
		return UINT64_MAX;
	}
	pd->burst = o->burst_young && b != 0 && b < o->idle_age_sec && !pd->burst_churn;
	if (!pd->burst)
		return UINT64_MAX;
	ahead = o->idle_age_sec - b;
	if (o->ripen_sec == 0 || o->ripen_sec == UINT64_MAX)
		return b;
	return o->ripen_sec > ahead ? o->ripen_sec - ahead : 1;
}
