/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of src/pass/ share about one pass under way: its block_state counts and
 * the questions they answer (src/pass/pass_counts.c). Not for other layers.
 */
#ifndef ZRAM_RECOMPD_PASS_INTERNAL_H
#define ZRAM_RECOMPD_PASS_INTERNAL_H

#include "blockstate.h"
#include "pass.h"

#include <stdbool.h>
#include <stdint.h>

/* What the steps of one pass share. */
struct pass_run {
	struct bs_set inc_before; /* 'n' slots of the baseline (the pass end compares) */
	struct bs_counts bs0;
	bool bs_ok;
	uint64_t marks;	  /* r + n slots, for batch progress */
	uint64_t charged; /* pages charged by all steps so far */
	uint64_t left;	  /* pages the previous step left unshrunk (fallback budget) */
	/* the chain (a step and its fallbacks) under way: its head's counts and stop */
	struct bs_counts chain_c0;
	bool chain_measured, chain_complete;
	struct zram_memo memo; /* what this pass learns, kept if nothing else wrote */
	uint64_t sig0;
	bool have_sig, memo_usable;
	uint64_t bd_before;
	/*
	 * block_state counts as they are now: read once and reused until something changes
	 * them (an idle mark, a recompress write); each read makes the kernel format a line
	 * per slot (measured about 0.17 s emulated for 70,000 slots on 6.12).
	 */
	struct bs_counts cur;
	bool cur_valid;
	/*
	 * cur after writes only (no idle mark since it was read), which tried at most
	 * tried_since pages: an estimate of the counts now (pass_counts_est).
	 */
	bool cur_est;
	uint64_t tried_since;
	/* cur's young pages (pass_young_estimate) are still those now: since it was read,
	 * only writes of idle-gated types (policy_write_keeps_young) and no idle mark (so
	 * cur_est holds too: only pass_counts_set sets it, and forget clears both) */
	bool young_kept;
	bool began; /* the baseline (bs0, inc_before) is read */
	bool blind; /* no block_state read in this pass (policy_pass_blind) */
	/*
	 * The baseline of a pass that may probe the ripening (pass_plan.ripen_probe) counts
	 * the access times in the same read: the probe then needs no read of its own while
	 * nothing was written (about 0.2 s of the one CPU on 6.12 in the burst bench).
	 */
	struct ripen ages;
	bool ages_read; /* ... and they still hold: cleared as young_kept is */
	bool wrote; /* a recompress write succeeded in this pass */
	bool idle_nothing; /* a priority-1 idle step found no idle page it could improve */
};

/* The counts now, from the last read when nothing changed them since, else read. */
bool pass_counts_now(const struct pass_ctx *ctx, const struct zram_dev *d, struct pass_run *st,
		     struct bs_counts *c);
/* The counts now without a read: exact, or estimated after writes (policy_counts_after). */
bool pass_counts_est(const struct pass_run *st, struct bs_counts *c);
/* cur was just read (or set from a read): exact, nothing tried since. */
void pass_counts_set(struct pass_run *st, const struct bs_counts *c);
/* A step of this pass tried at most tried pages. */
void pass_counts_tried(struct pass_run *st, uint64_t tried);
/* A recompress write of type t went through: cur is no longer exact. */
void pass_counts_wrote(struct pass_run *st, enum pass_type t);
/* Counts whose young pages are those now (young_kept), else read as pass_counts_now. */
bool pass_counts_young(const struct pass_ctx *ctx, const struct zram_dev *d, struct pass_run *st,
		       struct bs_counts *c);
/* An idle mark changed the counts: neither exact nor estimable. */
void pass_counts_forget(struct pass_run *st);

/*
 * block_state: the counts, and either records the 'n' slots (record) or counts those not in
 * before (*new_incomp). ages (with record only, may be NULL): every slot's access time
 * counted as the ripening probe does (policy_ripen_slot), in the same read.
 */
void pass_read_bs(const struct pass_ctx *ctx, const struct zram_dev *d, struct bs_counts *c,
		  struct bs_set *record, const struct bs_set *before, uint64_t *new_incomp,
		  struct ripen *ages, bool *ok);
enum batch_stop pass_idle_verdict(const struct pass_ctx *ctx, const struct zram_dev *d,
				  const struct pass_step *step, struct pass_run *st,
				  unsigned mem_permille);
bool pass_idle_type(enum pass_type t);
/*
 * One write of 1 to compact (pass_compact.c): the write's result (-errno as pass_write);
 * on success d->mm read again and *freed += what mem_used_total fell by (when it could be
 * read: *reread true).
 */
int pass_compact_write(const struct pass_ctx *ctx, struct zram_dev *d, uint64_t *ns, int64_t *freed,
		       bool *reread);
/* Slots a step of this type could try at priority 1 (block_state counts). */
uint64_t pass_candidates(const struct bs_counts *c, enum pass_type t);
bool pass_chain_unchanged(const struct pass_ctx *ctx, const struct zram_dev *d,
			  const struct pass_step *step, uint64_t left, struct pass_run *st);
uint64_t pass_step_unshrunk(const struct pass_report *pr, bool have_bs,
			    const struct bs_counts *c0, const struct bs_counts *c1);

#endif
