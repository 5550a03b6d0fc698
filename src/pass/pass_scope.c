// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How far a pass goes on a device (pass_execute): the whole plan, its writeback and
 * compaction only (no recompression possible: reach.h), or nothing. What a device cannot
 * do is said once by the caller (reach_log); here only what concerns this one pass.
 */
#include "pass.h"

#include "log.h"
#include "reach.h"

#include <errno.h>

/* A recompressible device whose secondary list the kernel would misuse. */
static enum pass_scope gap_scope(const struct zram_dev *d, struct device_report *rep)
{
	if (d->recomp.gap && d->caps.prio_max_active) {
		/* 6.15+: prio_max counts names, so the top priority is never tried and every
		 * scanned slot would be marked incompressible. */
		log_error("%s: recomp_algorithm has a priority gap (highest #%u, %u set): on "
			  "6.15+ every scanned page would be marked incompressible; "
			  "refusing to recompress (reset the device and configure "
			  "priorities contiguously from 1)",
			  d->name, d->recomp.highest, d->recomp.count);
		rep->error = -EINVAL;
		return PASS_NONE;
	}
	if (d->recomp.gap)
		log_warning("%s: recomp_algorithm has a priority gap (highest #%u, %u set); "
			    "harmless before 6.15 but breaks recompression on 6.15+",
			    d->name, d->recomp.highest, d->recomp.count);
	rep->skipped = false;
	return PASS_FULL;
}

enum pass_scope pass_scope(const struct zram_dev *d, const struct pass_plan *plan,
			   struct device_report *rep)
{
	struct reach r;

	rep->skipped = true;
	reach_of(d, plan->n_wb > 0, &r);
	if (r.recompress)
		return gap_scope(d, rep);
	if (r.writeback) {
		log_debug("%s: no recompression (%s): writeback and compaction only", d->name,
			  reach_why(r.limit));
		rep->skipped = false;
		return PASS_WB_ONLY;
	}
	/* Not an error: what the device cannot do was said (reach_log), and a device that is
	 * not initialized is configured before disksize (backing device, secondaries). */
	if (!d->initialized)
		log_info("%s: not initialized (no disksize yet): nothing to recompress", d->name);
	return PASS_NONE;
}
