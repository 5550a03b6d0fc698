// SPDX-License-Identifier: GPL-2.0-or-later
#include "write_cost.h"

#include "util.h"

uint64_t write_cost_pages(const struct write_cost *c, uint64_t bound_ns, uint64_t cap)
{
	uint64_t n, grow, floor;

	if (cap == 0)
		cap = 1;
	if (bound_ns == 0)
		return cap;
	if (c->samples == 0 || c->ns_per_page == 0) {
		n = WRITE_COST_FIRST_PAGES;
	} else {
		n = bound_ns > c->fixed_ns ? (bound_ns - c->fixed_ns) / c->ns_per_page : 0;
		if (c->fixed_known) {
			/* the walk at most a quarter of the write, whatever the bound */
			floor = sat_mul_u64(c->fixed_ns, WRITE_COST_WALK_SHARE - 1) / c->ns_per_page;
			if (n < floor)
				n = floor;
		} else if (n < c->max_pages / 2) {
			n = c->max_pages / 2; /* a second size, to tell the walk from the pages */
		}
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

/* The per-page part moved towards sample: fast up, slowly down, outliers clamped. */
static uint64_t smooth(uint64_t est, uint64_t sample)
{
	uint64_t lo = est / WRITE_COST_MAX_FALL, hi = sat_mul_u64(est, WRITE_COST_MAX_RISE);

	if (sample < lo)
		sample = lo;
	if (sample > hi)
		sample = hi;
	if (sample >= est)
		est = sat_add_u64(est, (sample - est + 1) / 2);
	else
		est -= (est - sample) / 8;
	return est ? est : 1;
}

/* Fixed and per-page parts through (n1, t1) and (n2, t2), n1 < n2: false if degenerate. */
static bool fit(uint64_t n1, uint64_t t1, uint64_t n2, uint64_t t2, uint64_t *fixed,
		uint64_t *per_page)
{
	uint64_t slope, at1;

	if (n1 == 0 || n2 / WRITE_COST_FIT_SPREAD < n1)
		return false;
	/* a larger write that took no longer: all of it is the walk */
	slope = t2 > t1 ? (t2 - t1) / (n2 - n1) : 0;
	if (slope == 0)
		slope = 1;
	at1 = sat_mul_u64(slope, n1);
	*fixed = t1 > at1 ? t1 - at1 : 0;
	*per_page = slope;
	return true;
}

void write_cost_learn(struct write_cost *c, uint64_t pages, uint64_t ns)
{
	uint64_t sample, fixed, per_page;
	bool fitted;

	if (pages == 0)
		return;
	if (pages > c->max_pages)
		c->max_pages = pages;
	c->samples = sat_add_u64(c->samples, 1);
	fitted = pages > c->last_pages
			 ? fit(c->last_pages, c->last_ns, pages, ns, &fixed, &per_page)
			 : fit(pages, ns, c->last_pages, c->last_ns, &fixed, &per_page);
	c->last_pages = pages;
	c->last_ns = ns;
	if (fitted) {
		if (c->fixed_known) {
			fixed = c->fixed_ns / 2 + fixed / 2;
			per_page = smooth(c->ns_per_page, per_page);
		}
		c->fixed_ns = fixed;
		c->ns_per_page = per_page ? per_page : 1;
		c->fixed_known = true;
		return;
	}
	/* per page beyond the fixed part, rounded up, at least 1 ns (0 means "unknown") */
	ns = ns > c->fixed_ns ? ns - c->fixed_ns : 0;
	sample = ns / pages + (ns % pages != 0);
	if (sample == 0)
		sample = 1;
	if (c->samples == 1 || c->ns_per_page == 0) {
		c->ns_per_page = sample;
		return;
	}
	c->ns_per_page = smooth(c->ns_per_page, sample);
}

bool write_cost_found_few(const struct write_cost *c, uint64_t pages, uint64_t ns)
{
	uint64_t expect;

	if (c->samples == 0 || c->ns_per_page == 0 || pages < WRITE_COST_FEW_MIN_PAGES)
		return false;
	expect = sat_mul_u64(pages, c->ns_per_page);
	if (expect < WRITE_COST_FEW_MIN_NS)
		return false;
	return sat_mul_u64(ns, 8) < expect;
}
