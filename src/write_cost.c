// SPDX-License-Identifier: GPL-2.0-or-later
#include "write_cost.h"

#include "util.h"

uint64_t write_cost_pages(const struct write_cost *c, uint64_t bound_ns, uint64_t cap)
{
	uint64_t n, grow;

	if (cap == 0)
		cap = 1;
	if (bound_ns == 0)
		return cap;
	if (c->samples == 0 || c->ns_per_page == 0) {
		n = WRITE_COST_FIRST_PAGES;
	} else {
		n = bound_ns / c->ns_per_page;
		grow = sat_mul_u64(c->max_pages > WRITE_COST_FIRST_PAGES ? c->max_pages
									: WRITE_COST_FIRST_PAGES,
				   WRITE_COST_GROWTH);
		if (n > grow)
			n = grow;
	}
	if (n > cap)
		n = cap;
	return n ? n : 1;
}

void write_cost_learn(struct write_cost *c, uint64_t pages, uint64_t ns)
{
	uint64_t sample, est = c->ns_per_page, lo, hi;

	if (pages == 0)
		return;
	/* per page, rounded up, at least 1 ns (0 means "unknown") */
	sample = ns / pages + (ns % pages != 0);
	if (sample == 0)
		sample = 1;
	if (pages > c->max_pages)
		c->max_pages = pages;
	c->samples = sat_add_u64(c->samples, 1);
	if (c->samples == 1 || est == 0) {
		c->ns_per_page = sample;
		return;
	}
	lo = est / WRITE_COST_MAX_FALL;
	hi = sat_mul_u64(est, WRITE_COST_MAX_RISE);
	if (sample < lo)
		sample = lo;
	if (sample > hi)
		sample = hi;
	if (sample >= est)
		est = sat_add_u64(est, (sample - est + 1) / 2);
	else
		est -= (est - sample) / 8;
	c->ns_per_page = est ? est : 1;
}
