// SPDX-License-Identifier: GPL-2.0-or-later
#include "pass.h"
#include "pass_internal.h"

#include "blockstate.h"
#include "log.h"
#include "pass_cpu.h"
#include "policy.h"
#include "util.h"
#include "write_cost.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

void pass_ctx_init(struct pass_ctx *ctx, int root_fd)
{
	*ctx = (struct pass_ctx){ .root_fd = root_fd, .out = stdout, .eagain_retries = 5,
				  .eagain_delay_ms = 100, .state_fd = -1 };
}

/* ENOMEM is not among them: it is back-pressure (run_one_type). */
static bool is_fatal_for_device(int r)
{
	return r == -ENODEV || r == -ENOENT || r == -EROFS || r == -EACCES || r == -EPERM;
}

static unsigned duty_now(const struct pass_ctx *ctx, const struct pass_plan *plan)
{
	unsigned v = ctx->duty_permille ? __atomic_load_n(ctx->duty_permille, __ATOMIC_RELAXED)
					: plan->duty_permille;

	return v == 0 || v > 1000 ? 1000 : v;
}

/*
 * Pause after a write of write_ns so that writes take at most the duty's share of the wall
 * time; in slices, so that a stop request or a raised duty (memory pressure) is seen soon.
 */
static uint64_t pace(const struct pass_ctx *ctx, const struct pass_plan *plan, uint64_t write_ns)
{
	uint64_t t0 = now_monotonic_ns(), slept = 0;

	for (;;) {
		uint64_t want = policy_pause_ns(write_ns, duty_now(ctx, plan)), step;

		if (slept >= want || pass_stop_requested(ctx))
			break;
		step = want - slept;
		if (step > 100000000ULL)
			step = 100000000ULL;
		sleep_ms((unsigned)((step + 999999) / 1000000));
		slept = sat_sub_u64(now_monotonic_ns(), t0);
	}
	return slept;
}

/*
 * ENOMEM from a recompress write: the kernel could not allocate the new object (6.15+:
 * GFP_NOIO; before, no direct reclaim). Memory is short, which is when recompression
 * matters most, so it is back-pressure, not an error: the batch ends, the next one is
 * half as large, after a doubling delay; after this many in a row the step ends quietly.
 */
#define ENOMEM_TRIES 4
#define ENOMEM_DELAY_MS 100

/* The batches of one step. */
struct batches {
	struct batch_state st;
	uint64_t batch;		/* max_pages of the next write (halved on ENOMEM) */
	uint64_t last_write_ns; /* the write to pace for, 0 = none pending */
	uint64_t last_pages;	/* its max_pages */
	uint64_t last_cpu_ns;	/* its CPU time (the thread's; 0 = unknown) */
	struct write_cost *cost; /* the learnt cost of this type and priority (max-write-ms) */
	unsigned enomem_row;
	uint64_t batch_full; /* the step's batch before any ENOMEM halved it */
	bool mm_fresh; /* d->mm was read right after the previous write, no pause since */
	/* writes sized by max-write-ms (smaller than the fixed batch) whose failures leave
	 * no mark: a write without progress may still have tried pages */
	bool bounded;
	uint64_t noprog_pages; /* pages of the writes since the last one with progress */
	/* where failures are marked: the candidates at the step's start (policy_marked_step_more) */
	uint64_t cand;
	bool cand_known;
	/* 'i' slots at the last block_state reading in this step (policy_batch_inconclusive) */
	uint64_t idle_prev;
	bool idle_known;
	int64_t saved_at_compact; /* pr->compr_saved at the step's last compaction */
	bool compact_off;	  /* a compaction between writes failed: the pass's own one says why */
};

enum { BATCH_WRITTEN, BATCH_RETRY, BATCH_DONE };

/* --dry-run: the first write of a step and how it would go on. */
static void print_dry_batches(const struct pass_ctx *ctx, const struct zram_dev *d,
			      const struct pass_plan *plan, const struct pass_step *step,
			      const struct batches *b, const char *cmd)
{
	const char *limit = step->fallback	? "up to the pages the previous priority could not shrink"
			    : plan->pages_budget ? "up to max-pages-per-pass pages"
						 : "no page limit";

	(void)pass_write(ctx, d, "recompress", cmd, NULL, NULL);
	if (b->st.batched && plan->max_write_ns && !d->caps.walk_all)
		fprintf(ctx->out,
			"%s:   (repeated while batches make progress, each sized to take "
			"about %" PRIu64 " ms at the cost per page measured, at most %" PRIu64
			" pages; %s)\n",
			d->name, plan->max_write_ns / 1000000, b->batch, limit);
	else if (b->st.batched)
		fprintf(ctx->out, "%s:   (repeated while batches make progress, %s)\n", d->name,
			limit);
}

/* A write refused with ENOMEM: BATCH_RETRY smaller and later, or BATCH_DONE after ENOMEM_TRIES. */
static int batch_enomem(struct pass_report *pr, struct batches *b)
{
	pr->enomem++;
	if (++b->enomem_row >= ENOMEM_TRIES) {
		pr->stop = STOP_ENOMEM;
		return BATCH_DONE;
	}
	b->batch = policy_enomem_batch(b->batch, b->batch_full, true);
	sleep_ms(ENOMEM_DELAY_MS << (b->enomem_row - 1));
	return BATCH_RETRY;
}

/*
 * The pause owed for the previous write, then one recompress write: BATCH_WRITTEN,
 * BATCH_RETRY (ENOMEM absorbed: smaller and later), BATCH_DONE (pr->stop says why; also
 * after the dry-run print), or -errno (logged; pr->stop = STOP_ERROR).
 */
static int write_batch(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		       const struct pass_step *step, struct pass_report *pr, struct batches *b,
		       struct zram_mm_stat *before)
{
	struct recompress_cmd c = {
		.type = step->type, .threshold = plan->threshold, .priority = step->priority
	};
	uint64_t k0 = pr->kernel_ns, slept;
	char cmd[160];
	int r;

	if (b->last_write_ns) {
		slept = pace(ctx, plan, b->last_write_ns);
		pr->paced_ns = sat_add_u64(pr->paced_ns, slept);
		b->mm_fresh = b->mm_fresh && slept == 0;
		b->last_write_ns = 0;
	}
	if (pass_stop_requested(ctx)) {
		pr->stop = STOP_SIGNAL;
		return BATCH_DONE;
	}
	/*
	 * 6.13+: a write first scans every slot and allocates an entry per candidate (under
	 * memory pressure, with GFP_NOIO), whatever max_pages; shorter writes repeat that.
	 * Measured under the 7.3 swap bench: writes sized to 100 ms spent 99 s in the kernel
	 * on 30,093 pages, 2048-page writes 30 s on 77,824. There max-write-ms is not applied.
	 */
	if (b->st.batched)
		c.max_pages = policy_batch_pages(
			&b->st,
			write_cost_pages(b->cost,
					 d->caps.walk_all ? 0
							  : policy_write_bound_ns(plan->max_write_ns,
										  plan->mem_pressure_permille),
					 b->batch));
	r = zram_build_recompress(d, &c, cmd, sizeof(cmd));
	if (r < 0) {
		log_error("%s: recompress: invalid command for pass %s: %s", d->name,
			  pass_type_name(step->type), strerror(-r));
		pr->stop = STOP_ERROR;
		return pr->error = r;
	}
	if (ctx->dry_run) {
		print_dry_batches(ctx, d, plan, step, b, cmd);
		return BATCH_DONE;
	}
	/*
	 * Right before the write: after a pause other writers have moved it. Back to back,
	 * the reading taken after the previous write is as recent.
	 */
	if (!b->mm_fresh && zram_read_mm_stat(ctx->root_fd, d->id, before) == 0)
		d->mm = *before;
	b->mm_fresh = false;
	r = pass_write(ctx, d, "recompress", cmd, &pr->kernel_ns, &pr->eagain);
	if (r == -ENOMEM && b->st.batched)
		return batch_enomem(pr, b);
	if (r < 0) {
		pass_log_write_error(ctx, d, "recompress", cmd, r, plan->threshold);
		pr->stop = STOP_ERROR;
		return pr->error = r;
	}
	b->enomem_row = 0;
	b->batch = policy_enomem_batch(b->batch, b->batch_full, false);
	pr->commands++;
	b->last_write_ns = sat_sub_u64(pr->kernel_ns, k0);
	b->last_cpu_ns = pass_cpu_last_ns();
	b->last_pages = c.max_pages;
	if (b->last_write_ns > pr->max_write_ns)
		pr->max_write_ns = b->last_write_ns;
	b->st.pages_charged = sat_add_u64(b->st.pages_charged, c.max_pages);
	pr->pages_charged = b->st.pages_charged;
	return BATCH_WRITTEN;
}

/*
 * After a write: what it saved (other writers' share taken out) and whether another
 * follows. BATCH_WRITTEN: go on; BATCH_DONE: pr->stop says why; -errno: mm_stat is gone.
 */
static int batch_outcome(const struct pass_ctx *ctx, struct zram_dev *d, struct pass_report *pr,
			 struct batches *b, const struct zram_mm_stat *before, struct pass_run *st)
{
	struct zram_mm_stat after;
	struct bs_counts c;
	uint64_t own;
	enum batch_verdict v;
	bool progress, idle_dropped = false;
	int r = zram_read_mm_stat(ctx->root_fd, d->id, &after);

	if (r < 0) {
		r = r == -ENOENT ? -ENODEV : r;
		pass_log_write_error(ctx, d, "mm_stat", "", r, 0);
		pr->stop = STOP_ERROR;
		return pr->error = r;
	}
	d->mm = after;
	b->mm_fresh = true;
	own = policy_own_reduction(before->v[MM_COMPR_DATA_SIZE], after.v[MM_COMPR_DATA_SIZE],
				   before->v[MM_ORIG_DATA_SIZE], after.v[MM_ORIG_DATA_SIZE]);
	pr->compr_saved = (int64_t)sat_add_u64((uint64_t)pr->compr_saved,
					       own > INT64_MAX ? INT64_MAX : own);
	progress = policy_batch_progress(before, &after, false, 0, 0);
	/*
	 * Failed attempts change no mm_stat figure, and 6.13+ tries the largest objects
	 * first, so a batch of incompressible huge pages looks like "nothing left"; under
	 * swap traffic only what is left after the traffic's share counts. Newly marked 'n'
	 * or 'r' slots in block_state tell then (a read makes the kernel format every slot,
	 * so only then; a batch that saved only by the traffic's noise costs one more
	 * batch). After batches with mm_stat progress st->marks is stale (lower): that costs
	 * at most one extra batch. The read serves the step's measuring too (counts_now).
	 */
	if (b->cand_known) {
		/* CPU time only: a write preempted on a busy CPU is not one that found much */
		progress = policy_marked_step_more(pr->pages_charged, b->cand) &&
			   !(b->last_cpu_ns &&
			     write_cost_found_few(b->cost, b->last_pages, b->last_cpu_ns));
	} else if (!progress && b->st.batched && pass_counts_now(ctx, d, st, &c)) {
		progress = policy_batch_progress(before, &after, true, st->marks,
						 c.recompressed + c.incompressible);
		st->marks = c.recompressed + c.incompressible;
		idle_dropped = b->idle_known && c.idle < b->idle_prev;
		b->idle_prev = c.idle;
		b->idle_known = true;
	}
	/*
	 * Only a write that did something teaches the cost per page: one that found nothing
	 * to try returns after the walk alone, and would make the next batches too large.
	 * The cost is the write's CPU time, not its wall time: a busy CPU preempts the
	 * kernel's walk between slots, and learnt as cost that shrank the batches (on 6.12
	 * in the swap bench's first minute, to about 80 pages), repeating the walk from slot
	 * 0 and the reads after each write for fewer pages each time.
	 */
	if (progress && b->st.batched)
		write_cost_learn(b->cost, b->last_pages,
				 b->last_cpu_ns ? b->last_cpu_ns : b->last_write_ns);
	/*
	 * A short write that shrank nothing says less than a full batch that shrank nothing:
	 * measured on 6.12, the cold tier (zstd 9 over zstd 3, few pages reach a smaller class,
	 * and failures at a restricted priority are not marked) ended after 1,963 pages on a
	 * run of unshrinkable pages, where 2048-page batches went through all 7,691.
	 */
	b->noprog_pages = progress ? 0 : sat_add_u64(b->noprog_pages, b->last_pages);
	if (!progress && b->bounded &&
	    policy_batch_inconclusive(b->noprog_pages, b->batch, b->last_pages, b->last_write_ns,
				      b->cost->samples ? b->cost->ns_per_page : 0, idle_dropped))
		progress = true;
	/* --verbose: each write, for the rules above to be checked against a real kernel */
	log_debug("%s: pass %s #%u: write of %" PRIu64 " pages: %.3f s (CPU %.3f s), saved %" PRIu64
		  " B, %s", d->name, pass_type_name(pr->type), pr->priority, b->last_pages,
		  (double)b->last_write_ns / 1e9, (double)b->last_cpu_ns / 1e9, own,
		  progress ? "progress" : "no progress");
	v = policy_batch_next(&b->st, progress);
	if (v == BATCH_CONTINUE)
		return BATCH_WRITTEN;
	pr->stop = v == BATCH_STOP_NO_PROGRESS ? STOP_NO_PROGRESS
		   : v == BATCH_STOP_BUDGET    ? STOP_BUDGET
					       : STOP_UNBATCHED;
	return BATCH_DONE;
}

/*
 * Under memory pressure, after a write: compaction when the step's writes have saved
 * enough since the last one (policy_compact_in_step), so that the memory they free goes
 * back to the workload now, not at the pass's end. ENOMEM or another refusal ends it for
 * the step; the pass's compaction at its end reports a lasting error.
 */
static void step_compact(const struct pass_ctx *ctx, struct zram_dev *d,
			 const struct pass_plan *plan, struct pass_report *pr, struct batches *b)
{
	int64_t since = pr->compr_saved - b->saved_at_compact;
	bool reread;

	if (b->compact_off || since <= 0 ||
	    !policy_compact_in_step(plan->compact, plan->mem_pressure_permille, (uint64_t)since,
				    d->mm.v[MM_MEM_USED_TOTAL]))
		return;
	b->saved_at_compact = pr->compr_saved;
	if (pass_compact_write(ctx, d, NULL, &pr->compact_freed, &reread) < 0) {
		b->compact_off = true;
		return;
	}
	pr->compactions++;
	b->mm_fresh = reread;
}

/*
 * Where failures are marked, the step ends when it has had the chance to try every
 * candidate counted at the last read (more, not fewer: pages the pass's earlier steps
 * took are counted too, so pages swapped out since are the next pass's): no read.
 * Not with a threshold: the kernel passes over smaller pages without a mark. A pass
 * without block_state (policy_pass_blind) counts them from mm_stat.
 */
static void step_candidates(const struct pass_ctx *ctx, const struct zram_dev *d,
			    const struct pass_plan *plan, const struct pass_step *step,
			    const struct pass_run *st, struct batches *b)
{
	if (!ctx->dry_run && b->st.batched && !step->fallback && step->priority <= 1 &&
	    !plan->threshold && (st->cur_valid || st->cur_est) && st->bs_ok &&
	    policy_failures_marked(&d->caps, step->priority, d->recomp.highest)) {
		b->cand = pass_candidates(&st->cur, step->type);
		b->cand_known = true;
	}
	if (!ctx->dry_run && b->st.batched && st->blind) {
		uint64_t stored = d->page_size ? d->mm.v[MM_ORIG_DATA_SIZE] / d->page_size : 0;

		b->cand = policy_blind_candidates(step->type, stored, d->mm.v[MM_SAME_PAGES],
						  d->mm.v[MM_HUGE_PAGES]);
		b->cand_known = true;
	}
}

/*
 * One step: recompress writes of at most batch_pages until a batch makes no progress or
 * the budget is spent (the pass's pages left, and for a fallback what the previous
 * priority left unshrunk).
 */
static int run_one_type(const struct pass_ctx *ctx, struct zram_dev *d,
			const struct pass_plan *plan, const struct pass_step *step,
			struct pass_report *pr, struct pass_run *st, uint64_t total_left,
			uint64_t step_budget)
{
	struct batches b = {
		.st = { .pages_budget = plan->pages_budget, .batched = d->caps.max_pages },
		.batch = plan->batch_pages,
		.cost = &d->learnt.wcost[step->type][step->priority <= ZRAM_MAX_PRIO ? step->priority : 0],
		/*
		 * Where failures are marked 'n', a write that tried pages always shows
		 * progress (shrunk or marked): no progress means it found nothing, and that
		 * is conclusive. Measured: applied there too, the 6.12 swap bench's later
		 * passes went on through 2048 pages of a few new idle ones, with a
		 * block_state read after each write (throughput 0.885 x instead of 0.991 x).
		 */
		.bounded = plan->max_write_ns && !d->caps.walk_all && st->bs_ok &&
			   !policy_failures_marked(&d->caps, step->priority, d->recomp.highest),
	};
	struct zram_mm_stat start = d->mm;
	int r;

	/*
	 * 6.13+: every write scans the device and allocates an entry per candidate first, but
	 * its batch stays max-pages-per-batch under memory pressure too, where the write holds
	 * the device lock readers wait for. Measured (burst bench, 7.3, hot40, 166503e):
	 * eight larger writes a step instead of 2048-page ones took 5% less CPU a page, but
	 * more pages early, so more CPU in the minute (17.2-17.8 s against 15.4-15.7 s), a
	 * slower workload, no more memory freed, and mm_stat readers waited 4.8 s, not 1.8 s.
	 */
	step_candidates(ctx, d, plan, step, st, &b);
	if (st->cur_valid) {
		b.idle_prev = st->cur.idle;
		b.idle_known = true;
	}
	b.batch_full = b.batch;
	if (plan->pages_total && (b.st.pages_budget == 0 || b.st.pages_budget > total_left))
		b.st.pages_budget = total_left;
	if (step_budget && (b.st.pages_budget == 0 || b.st.pages_budget > step_budget))
		b.st.pages_budget = step_budget;
	memset(pr, 0, sizeof(*pr));
	pr->type = step->type;
	pr->priority = step->priority;
	pr->fallback = step->fallback;
	pr->unshrunk = UINT64_MAX;
	do {
		struct zram_mm_stat before = d->mm;

		r = write_batch(ctx, d, plan, step, pr, &b, &before);
		if (r == BATCH_WRITTEN) {
			/* block_state changed: the next question reads it again */
			pass_counts_wrote(st, step->type);
			r = batch_outcome(ctx, d, pr, &b, &before, st);
			if (r == BATCH_WRITTEN)
				step_compact(ctx, d, plan, pr, &b);
		}
	} while (r == BATCH_WRITTEN || r == BATCH_RETRY);
	if (pr->compr_saved < 0)
		pr->compr_saved = 0;
	pr->mem_freed = -delta_i64(start.v[MM_MEM_USED_TOTAL], d->mm.v[MM_MEM_USED_TOTAL]);
	pr->huge_delta = delta_i64(start.v[MM_HUGE_PAGES], d->mm.v[MM_HUGE_PAGES]);
	pr->pages_tried = b.cand_known && b.cand < pr->pages_charged ? b.cand : pr->pages_charged;
	pass_counts_tried(st, pr->pages_tried);
	return pr->error;
}

static int mark_idle(const struct pass_ctx *ctx, struct zram_dev *d, uint64_t age,
		     struct device_report *rep)
{
	char cmd[32];
	int r;

	if (age && d->caps.idle_age == TRI_NO) {
		/* Without ac-time tracking only "all" exists; a user-run pass accepts that. */
		log_info("%s: kernel has no idle ages (no CONFIG_ZRAM_TRACK_ENTRY_ACTIME): "
			 "marking all pages idle",
			 d->name);
		age = 0;
	}
	r = zram_build_idle(d, age, cmd, sizeof(cmd));
	if (r < 0) {
		log_error("%s: idle: cannot build command for age %" PRIu64 " s: %s", d->name, age,
			  strerror(-r));
		return r;
	}
	r = pass_write(ctx, d, "idle", cmd, &rep->idle_ns, NULL);
	if (r == -EINVAL && age && d->caps.idle_age == TRI_UNKNOWN) {
		bool init = false;

		/* Without ac-time tracking (CONFIG_ZRAM_TRACK_ENTRY_ACTIME 6.8+,
		 * CONFIG_ZRAM_MEMORY_TRACKING 6.2-6.7) idle accepts only "all": EINVAL. */
		if (zram_read_initstate(ctx->root_fd, d->id, &init) == 0 && init) {
			log_info("%s: kernel rejected an idle age (no ac-time tracking): marking "
				 "all pages idle",
				 d->name);
			d->caps.idle_age = TRI_NO;
			age = 0;
			(void)zram_build_idle(d, 0, cmd, sizeof(cmd));
			r = pass_write(ctx, d, "idle", cmd, &rep->idle_ns, NULL);
		}
	}
	if (r < 0) {
		pass_log_write_error(ctx, d, "idle", cmd, r, 0);
		return r;
	}
	if (age && d->caps.idle_age == TRI_UNKNOWN)
		d->caps.idle_age = TRI_YES;
	rep->idle_marked = true;
	rep->idle_age_sec = age;
	return 0;
}

/*
 * The report's entry for the next step, or NULL when all are in use: the array is bounded
 * by its own size, not by the plan's step count (PASS_MAX_STEPS may grow past it).
 */
static struct pass_report *next_report(struct device_report *rep)
{
	if (rep->n_passes >= ARRAY_SIZE(rep->passes))
		return NULL;
	return &rep->passes[rep->n_passes++];
}

/* A step that is not written, with the reason, in the report. */
static void skip_step(struct device_report *rep, const struct pass_step *step, enum batch_stop why)
{
	struct pass_report *pr = next_report(rep);

	if (!pr)
		return;
	memset(pr, 0, sizeof(*pr));
	pr->type = step->type;
	pr->priority = step->priority;
	pr->fallback = step->fallback;
	pr->unshrunk = UINT64_MAX;
	pr->stop = why;
}

int pass_run(const struct pass_ctx *ctx, struct zram_dev *d, const struct dev_config *cfg,
	     struct device_report *rep)
{
	/* The daemon's plan without its history: no cold tier, bucket or pressure. */
	struct policy_snapshot s = {
		.psi_cpu_some_avg10_x100 = -1,
		.psi_mem_some_avg10_x100 = -1,
		.mem_total = ctx->mem_total,
		.mem_available = ctx->mem_available,
		.n_secondaries = d->recomp.count,
		.priority_supported = d->caps.priority,
		.wb_day_left = ctx->wb_day_left,
		.page_size = d->page_size,
	};
	struct pass_plan plan;

	(void)policy_plan(NULL, cfg, &s, &plan);
	return pass_execute(ctx, d, &plan, rep);
}

/* Before the first step: bd_stat and the write signature as they are. */
static void pass_run_begin(const struct pass_ctx *ctx, const struct zram_dev *d, struct pass_run *st)
{
	memset(st, 0, sizeof(*st));
	st->bd_before = UINT64_MAX;
	if (ctx->dry_run)
		return;
	if (d->caps.writeback)
		(void)zram_read_bd_writes(ctx->root_fd, d, &st->bd_before);
	st->have_sig = zram_read_write_sig(ctx->root_fd, d->id, &st->sig0) == 0;
	st->memo_usable = st->have_sig && d->learnt.memo.write_sig == st->sig0;
}

/*
 * block_state before the first write, read after the first idle mark (which changes no
 * r or n flag), so that the first step's verdict needs no read of its own.
 */
static void pass_run_baseline(const struct pass_ctx *ctx, const struct zram_dev *d,
			      const struct pass_plan *plan, struct pass_run *st,
			      struct device_report *rep)
{
	uint64_t nslots = d->page_size ? d->disksize / d->page_size : 0;
	bool ages = plan->ripen_probe && rep->idle_marked && rep->idle_age_sec;

	if (st->began || ctx->dry_run)
		return;
	st->began = true;
	/* Sized by the slots block_state lists, up to the device's (never from disksize). */
	bs_set_init(&st->inc_before, nslots);
	if (ages)
		policy_ripen_init(&st->ages, now_boottime_ns() / 1000000000u, rep->idle_age_sec);
	if (nslots && !st->blind)
		pass_read_bs(ctx, d, &st->bs0, &st->inc_before, NULL, NULL, ages ? &st->ages : NULL,
			     &st->bs_ok);
	if (!st->bs_ok)
		return;
	st->ages_read = ages;
	rep->incompressible_before = st->bs0.incompressible;
	rep->recompressed_before = st->bs0.recompressed;
	st->marks = st->bs0.incompressible + st->bs0.recompressed;
	pass_counts_set(st, &st->bs0);
}

/*
 * Whether the head of a chain is left out before anything is written for it (recorded in
 * the report): an idle step with nothing (worth) trying, or a chain whose candidates are
 * no more than those it left last time while nothing was written.
 */
static bool step_left_out(const struct pass_ctx *ctx, struct zram_dev *d,
			  const struct pass_plan *plan, const struct pass_step *step,
			  struct pass_run *st, struct device_report *rep)
{
	enum batch_stop why;
	struct bs_counts c;

	if (ctx->dry_run || step->fallback)
		return false;
	if (step->type == PASS_HUGE && d->learnt.huge_wait_left) {
		d->learnt.huge_wait_left--;
		skip_step(rep, step, STOP_UNPAID);
		return true;
	}
	if (!st->bs_ok)
		return false;
	why = pass_idle_verdict(ctx, d, step, st, plan->mem_pressure_permille);
	if (why == STOP_NONE && step->type == PASS_HUGE && plan->ripen_probe && st->idle_nothing &&
	    pass_counts_young(ctx, d, st, &c) &&
	    policy_burst_young(pass_young_estimate(&c), c.allocated))
		why = STOP_YOUNG;
	if (why == STOP_NONE && st->memo_usable && d->learnt.memo.valid[step->type] &&
	    pass_chain_unchanged(ctx, d, step, d->learnt.memo.left[step->type], st)) {
		why = STOP_UNCHANGED;
		/* still true at the end of this pass if nothing is written meanwhile */
		st->memo.valid[step->type] = true;
		st->memo.left[step->type] = d->learnt.memo.left[step->type];
	}
	if (why == STOP_NONE)
		return false;
	skip_step(rep, step, why);
	st->left = 0;
	return true;
}

/*
 * After a measured step: what it left unshrunk (the next priority's budget), and where the
 * chain ends with its failures unmarked, how many candidates it left, for the next pass to
 * tell whether anything new came (6.12-6.14 never mark them with several secondaries).
 */
static void step_measured(const struct pass_ctx *ctx, const struct zram_dev *d,
			  const struct pass_step *step, bool last_of_chain, bool have_c0,
			  const struct bs_counts *c0, struct pass_report *pr, struct pass_run *st)
{
	struct bs_counts c1;
	bool have_c1 = have_c0 && pass_counts_now(ctx, d, st, &c1);

	pr->unshrunk = pass_step_unshrunk(pr, have_c1, c0, &c1);
	pr->unshrunk_retried = last_of_chain;
	st->left = pr->unshrunk;
	if (!last_of_chain || !have_c1 || !st->chain_measured || !st->chain_complete ||
	    pr->error != 0 || !pass_idle_type(step->type))
		return;
	st->memo.valid[step->type] = true;
	st->memo.left[step->type] = sat_sub_u64(
		pass_candidates(&st->chain_c0, step->type),
		sat_add_u64(sat_sub_u64(c1.recompressed, st->chain_c0.recompressed),
			    sat_sub_u64(c1.incompressible, st->chain_c0.incompressible)));
}

/*
 * One step: STEP_NEXT, STEP_LAST (the pass ends with compaction), STEP_STOPPED (a stop
 * request: end now), or -errno fatal for the device.
 */
enum { STEP_NEXT, STEP_LAST, STEP_STOPPED };

static int pass_step(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		     unsigned i, struct pass_run *st, struct device_report *rep)
{
	const struct pass_step *step = &plan->steps[i];
	bool last_of_chain = !(i + 1 < plan->n_steps && plan->steps[i + 1].fallback);
	bool measure, have_c0 = false;
	struct pass_report *pr;
	struct bs_counts c0;
	int r;

	if (rep->n_passes >= ARRAY_SIZE(rep->passes))
		return STEP_LAST; /* no entry left to account for another step */
	if (step->fallback && !ctx->dry_run && st->left == 0) {
		/* The previous priority shrank (or gave up on) all it tried. */
		skip_step(rep, step, STOP_NOTHING);
		return STEP_NEXT;
	}
	if (step->mark_idle) {
		r = mark_idle(ctx, d, step->idle_age_sec, rep);
		pass_counts_forget(st);
		if (r < 0) {
			if (!rep->error)
				rep->error = r;
			return is_fatal_for_device(r) ? r : STEP_NEXT;
		}
	}
	pass_run_baseline(ctx, d, plan, st, rep);
	if (plan->pages_total && st->charged >= plan->pages_total)
		return STEP_LAST; /* the pass's page budget is spent */
	if (step_left_out(ctx, d, plan, step, st, rep))
		return STEP_NEXT;
	/*
	 * What the step leaves unshrunk matters when a fallback follows, and when the kernel
	 * does not mark those pages (they are tried again next pass): measure it around the
	 * step (two block_state reads).
	 */
	measure = !ctx->dry_run &&
		  (!last_of_chain ||
		   !policy_failures_marked(&d->caps, step->priority, d->recomp.highest));
	if (measure)
		have_c0 = pass_counts_now(ctx, d, st, &c0);
	pr = next_report(rep); /* not NULL: checked above, one entry per step */
	r = run_one_type(ctx, d, plan, step, pr, st, sat_sub_u64(plan->pages_total, st->charged),
			 step->fallback ? st->left : 0);
	st->charged = sat_add_u64(st->charged, pr->pages_charged);
	if (step->type == PASS_HUGE && !step->fallback && pr->error == 0) {
		/* what it saved for what it tried decides when the next one runs */
		d->learnt.huge_wait = policy_huge_wait(d->learnt.huge_wait, (uint64_t)pr->compr_saved,
						sat_mul_u64(pr->pages_tried, d->page_size));
		d->learnt.huge_wait_left = d->learnt.huge_wait;
	}
	if (!step->fallback) {
		st->chain_measured = have_c0;
		st->chain_complete = pr->stop == STOP_NO_PROGRESS;
		if (have_c0)
			st->chain_c0 = c0;
	}
	if (measure)
		step_measured(ctx, d, step, last_of_chain, have_c0, &c0, pr, st);
	else
		st->left = 0;
	if (r < 0 && !rep->error)
		rep->error = r;
	if (r < 0 && is_fatal_for_device(r))
		return r;
	if (r == -EINVAL && plan->threshold) {
		/* Every later step carries the same threshold: one error is enough. */
		log_notice("%s: skipping the remaining pass types (they would fail alike)", d->name);
		return STEP_LAST;
	}
	return pr->stop == STOP_SIGNAL ? STEP_STOPPED : STEP_NEXT;
}

/*
 * The 'r' and 'n' counts after the pass's writes, for its report (policy_end_read): true
 * when bs1 and *new_incomp hold them. Under memory pressure the counts read after the last
 * write (a write without progress is followed by one) are the counts now, and slots that
 * left 'n' meanwhile (swapped in) make the difference a lower bound; without such counts
 * nothing is read (rep->end_unread), and the next pass's first read has them.
 */
static bool pass_end_counts(const struct pass_ctx *ctx, const struct zram_dev *d,
			    struct pass_run *st, bool plan_pressure, struct device_report *rep,
			    struct bs_counts *bs1, uint64_t *new_incomp)
{
	bool ok = false;

	if (!st->bs_ok || !st->wrote)
		return false;
	if (plan_pressure && st->cur_valid) {
		*bs1 = st->cur;
		*new_incomp = sat_sub_u64(bs1->incompressible, st->bs0.incompressible);
		rep->new_incompressible_lower = true;
		return true;
	}
	if (!policy_end_read(plan_pressure)) {
		rep->end_unread = true;
		return false;
	}
	pass_read_bs(ctx, d, bs1, NULL, &st->inc_before, new_incomp, NULL, &ok);
	return ok;
}

/*
 * After the pass: keep what it learnt if nothing else wrote meanwhile, read the device's
 * figures, and account for what this pass did, not what swap traffic or a writeback did
 * meanwhile (policy_own_reduction, bd_stat).
 */
static void pass_run_end(const struct pass_ctx *ctx, struct zram_dev *d, struct pass_run *st,
			 bool plan_pressure, struct device_report *rep)
{
	struct bs_counts bs1;
	uint64_t new_incomp = 0;
	bool bs_ok_after = false, init = false;
	uint64_t bd_after, sig1;

	if (!ctx->dry_run) {
		if (st->have_sig && zram_read_write_sig(ctx->root_fd, d->id, &sig1) == 0 &&
		    sig1 == st->sig0) {
			st->memo.write_sig = st->sig0;
			d->learnt.memo = st->memo;
		} else {
			memset(&d->learnt.memo, 0, sizeof(d->learnt.memo));
		}
		/* A reset (hot_remove resets first) empties mm_stat: that is no saving. */
		if (zram_read_initstate(ctx->root_fd, d->id, &init) < 0 || !init) {
			rep->device_lost = true;
			rep->after = rep->before;
			goto done;
		}
		(void)zram_read_mm_stat(ctx->root_fd, d->id, &d->mm);
		if (d->caps.writeback && st->bd_before != UINT64_MAX &&
		    zram_read_bd_writes(ctx->root_fd, d, &bd_after) == 0)
			rep->written_back = sat_sub_u64(bd_after, st->bd_before);
		bs_ok_after = pass_end_counts(ctx, d, st, plan_pressure, rep, &bs1, &new_incomp);
	}
	rep->after = d->mm;
	for (unsigned i = 0; i < rep->n_passes; i++)
		rep->saved_own = sat_add_u64(rep->saved_own, (uint64_t)rep->passes[i].compr_saved);
	rep->freed_own = policy_own_reduction(
		rep->before.v[MM_MEM_USED_TOTAL], rep->after.v[MM_MEM_USED_TOTAL],
		rep->before.v[MM_ORIG_DATA_SIZE], rep->after.v[MM_ORIG_DATA_SIZE]);
	rep->others_wrote = rep->before.v[MM_ORIG_DATA_SIZE] != rep->after.v[MM_ORIG_DATA_SIZE];
	if (st->bs_ok && bs_ok_after) {
		rep->have_block_state = true;
		rep->incompressible_after = bs1.incompressible;
		rep->recompressed_after = bs1.recompressed;
		rep->new_incompressible = new_incomp;
	} else if (st->bs_ok && !st->wrote) {
		/* Only recompress writes set 'n' or 'r': nothing new, no second read. */
		const struct bs_counts *c = st->cur_valid ? &st->cur : &st->bs0;

		rep->have_block_state = true;
		rep->incompressible_after = c->incompressible;
		rep->recompressed_after = c->recompressed;
	}
done:
	bs_set_free(&st->inc_before);
}

int pass_execute(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		 struct device_report *rep)
{
	bool algorithms_written = rep->algorithms_written;
	struct policy_kernel kern = {
		.priority = d->caps.priority,
		.clears_idle = d->caps.clears_idle,
	};
	enum pass_scope scope;
	struct pass_plan xp;
	struct pass_run st;
	int r = 0;

	memset(rep, 0, sizeof(*rep));
	rep->algorithms_written = algorithms_written;
	memcpy(rep->name, d->name, sizeof(rep->name));
	rep->page_size = d->page_size;
	rep->initialized = d->initialized;
	rep->before = rep->after = d->mm;
	scope = pass_scope(d, plan, rep);
	if (scope == PASS_NONE)
		return rep->error;

	pass_cpu_begin();
	pass_run_begin(ctx, d, &st);
	for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++)
		if (d->recomp.set[p])
			kern.prio_set |= 1u << p;
	/* One priority per write (6.12+): "every secondary" becomes a step per priority. */
	policy_expand_plan(plan, &kern, &xp);
	st.blind = rep->blind =
		!ctx->dry_run && policy_pass_blind(&xp, &d->caps, d->recomp.highest);
	if (scope == PASS_WB_ONLY)
		xp.n_steps = 0; /* no recompression here (reach.h): writeback and compaction */
	for (unsigned i = 0; i < xp.n_steps && i < PASS_MAX_STEPS && r == STEP_NEXT; i++)
		r = pass_step(ctx, d, &xp, i, &st, rep);
	if (r == STEP_NEXT || r == STEP_LAST) {
		pass_writeback(ctx, d, &xp, rep); /* after recompression, before compaction */
		pass_compact(ctx, d, &xp, rep);
	}
	if (!ctx->dry_run && r != STEP_STOPPED)
		pass_probe_ripening(ctx, d, &xp, st.idle_nothing && st.bs_ok,
				    st.ages_read ? &st.ages : NULL, &st.cur,
				    st.young_kept, &st.cur_valid, rep);
	pass_run_end(ctx, d, &st, xp.mem_pressure_permille > 0, rep);
	pass_cpu_end(&rep->cpu);
	return rep->error;
}
