// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Compaction after a pass's steps (include/pass.h): the plan's rule applied to the
 * figures after them, or under --dry-run what the rule would do.
 */
#include "pass.h"
#include "pass_internal.h"

#include "human.h"
#include "policy.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>

/* --dry-run: what compaction would do (compact = always: the write; auto: its condition). */
static void print_compact_plan(const struct pass_ctx *ctx, const struct zram_dev *d,
			       const struct pass_plan *plan)
{
	char at_least[64] = "", h[HUMAN_LEN], want[HUMAN_LEN], now[HUMAN_LEN];

	if (plan->compact == COMPACT_ALWAYS) {
		(void)pass_write(ctx, d, "compact", "1", NULL, NULL);
		return;
	}
	if (plan->compact != COMPACT_AUTO)
		return;
	if (plan->compact_min_saved)
		(void)snprintf(at_least, sizeof(at_least), "at least %s of ",
			       human_bytes(h, sizeof(h), plan->compact_min_saved));
	fprintf(ctx->out,
		"%s: would write '1' to compact if the passes free %scompressed data, or if "
		"fragmentation after them is at least %s (now %s)\n",
		d->name, at_least,
		human_percent(want, sizeof(want), plan->compact_frag_permille, 1000),
		human_percent(now, sizeof(now), policy_fragmentation_permille(&d->mm), 1000));
}

int pass_compact_write(const struct pass_ctx *ctx, struct zram_dev *d, uint64_t *ns, int64_t *freed,
		       bool *reread)
{
	uint64_t before = d->mm.v[MM_MEM_USED_TOTAL];
	struct zram_mm_stat after;
	int r = pass_write(ctx, d, "compact", "1", ns, NULL);

	*reread = false;
	if (r < 0)
		return r;
	/* into a copy: a parse that fails half-way leaves d->mm as it was */
	if (zram_read_mm_stat(ctx->root_fd, d->id, &after) == 0) {
		d->mm = after;
		*reread = true;
		*freed += -delta_i64(before, after.v[MM_MEM_USED_TOTAL]);
	}
	return r;
}

/* Compaction after the steps, when the plan's rule says so. */
static void compact_after(const struct pass_ctx *ctx, struct zram_dev *d,
			  const struct pass_plan *plan, struct device_report *rep)
{
	int64_t saved = -delta_i64(rep->before.v[MM_COMPR_DATA_SIZE], d->mm.v[MM_COMPR_DATA_SIZE]);
	bool reread;
	int r;

	if (!policy_should_compact(plan->compact, &d->mm, plan->compact_frag_permille,
				   saved > 0 ? (uint64_t)saved : 0, plan->compact_min_saved))
		return;
	r = pass_compact_write(ctx, d, &rep->compact_ns, &rep->compact_freed, &reread);
	if (r == -ENOMEM) {
		/* back-pressure like a recompress ENOMEM: the next pass compacts */
		rep->compact_enomem = true;
	} else if (r < 0) {
		pass_log_write_error(ctx, d, "compact", "1", r, 0);
		if (!rep->error)
			rep->error = r;
	} else {
		rep->compacted = true;
	}
}

void pass_compact(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		  struct device_report *rep)
{
	if (ctx->dry_run)
		print_compact_plan(ctx, d, plan);
	else
		compact_after(ctx, d, plan, rep);
}
