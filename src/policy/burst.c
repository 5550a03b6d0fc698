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

uint64_t policy_burst_age(const struct policy_dev *pd, const struct dev_config *cfg,
			  unsigned mem_permille, uint64_t age)
{
	/* age 0 is "all": every page is a candidate already */
	if (!pd || !pd->burst || mem_permille == 0 || age == 0 || cfg->burst_idle_age_sec == 0)
		return age;
	return cfg->burst_idle_age_sec < age ? cfg->burst_idle_age_sec : age;
}

/*
 * A burst begins when a pass at the ordinary age finds one (its ripen probe), and lasts
 * while the passes at the burst age save memory: one that saves nothing, or a pass at the
 * ordinary age (the pressure was gone) that finds no burst, ends it. The first pass at
 * the burst age comes when 90% of the young pages are that old: ripen_sec counted the
 * time to the ordinary age, which they reach age - burst age seconds later.
 */
uint64_t policy_burst_update(struct policy_dev *pd, const struct dev_config *cfg,
			     const struct policy_outcome *o)
{
	uint64_t b = cfg->burst_idle_age_sec, ahead;

	if (o->burst_aged) {
		pd->burst = o->saved > 0 && !o->error;
		return UINT64_MAX;
	}
	pd->burst = o->burst_young && b != 0 && b < o->idle_age_sec;
	if (!pd->burst)
		return UINT64_MAX;
	ahead = o->idle_age_sec - b;
	if (o->ripen_sec == 0 || o->ripen_sec == UINT64_MAX)
		return b;
	return o->ripen_sec > ahead ? o->ripen_sec - ahead : 1;
}
