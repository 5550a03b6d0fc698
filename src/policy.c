// SPDX-License-Identifier: GPL-2.0-or-later
#include "policy.h"

#include "util.h"

#include <math.h>

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
		if (min_saved && saved >= min_saved)
			return true;
		return policy_fragmentation_permille(after) >= frag_permille;
	}
	return false;
}

bool policy_batch_progress(const struct zram_mm_stat *before, const struct zram_mm_stat *after,
			   uint64_t marks_before, uint64_t marks_after)
{
	if (after->v[MM_COMPR_DATA_SIZE] < before->v[MM_COMPR_DATA_SIZE])
		return true;
	if (after->v[MM_HUGE_PAGES] < before->v[MM_HUGE_PAGES])
		return true;
	return marks_after != marks_before;
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
