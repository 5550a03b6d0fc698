// SPDX-License-Identifier: GPL-2.0-or-later
#include "pass.h"

#include "blockstate.h"
#include "log.h"
#include "policy.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

void pass_ctx_init(struct pass_ctx *ctx, int root_fd)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->root_fd = root_fd;
	ctx->out = stdout;
	ctx->eagain_retries = 5;
	ctx->eagain_delay_ms = 100;
}

static bool stop_requested(const struct pass_ctx *ctx)
{
	return ctx->stop && *ctx->stop;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	/* A signal cuts the wait short; the caller checks ctx->stop. */
	(void)nanosleep(&ts, NULL);
}

/*
 * Write one command, or print it in dry-run mode. EAGAIN (6.12.y, 6.13-6.19: a writeback
 * or another recompression holds the device's post-processing slot) is retried with a
 * doubling delay. ret_ns gets the time spent inside write() calls.
 */
static int write_cmd(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
		     const char *cmd, uint64_t *ret_ns, unsigned *ret_eagain)
{
	unsigned delay = ctx->eagain_delay_ms, tries = 0;
	int r;

	if (ctx->dry_run) {
		fprintf(ctx->out, "%s: would write '%s' to %s\n", d->name, cmd, attr);
		return 0;
	}
	for (;;) {
		uint64_t t0 = now_monotonic_ns();

		r = zram_write(ctx->root_fd, d->id, attr, cmd);
		if (ret_ns)
			*ret_ns = sat_add_u64(*ret_ns, sat_sub_u64(now_monotonic_ns(), t0));
		if (r != -EAGAIN || tries >= ctx->eagain_retries || stop_requested(ctx))
			return r;
		tries++;
		if (ret_eagain)
			(*ret_eagain)++;
		log_notice("%s: %s busy (EAGAIN: writeback or recompression already running), "
			   "retrying in %u ms (%u/%u)",
			   d->name, attr, delay, tries, ctx->eagain_retries);
		sleep_ms(delay);
		if (delay < 5000)
			delay *= 2;
	}
}

/* One line naming device, attribute and reason for a failed write. */
static void log_write_error(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
			    const char *cmd, int r, uint32_t threshold)
{
	bool init = true;

	switch (-r) {
	case EINVAL:
		if (strcmp(attr, "recompress") == 0 && threshold) {
			log_error("%s: recompress: kernel rejected threshold=%u (EINVAL): the "
				  "threshold must be below huge_class_size (3625 bytes on 6.12 x86_64 "
				  "with 4 KiB pages); lower threshold-bytes",
				  d->name, threshold);
			return;
		}
		if (zram_read_initstate(ctx->root_fd, d->id, &init) == 0 && !init) {
			log_error("%s: %s: device is not initialized (reset during the pass?) "
				  "(EINVAL)",
				  d->name, attr);
			return;
		}
		log_error("%s: %s: kernel rejected '%s' (EINVAL)", d->name, attr, cmd);
		return;
	case ENODEV:
	case ENOENT:
		log_error("%s: %s: device disappeared (hot-removed?): %s", d->name, attr,
			  strerror(-r));
		return;
	case EAGAIN:
		log_warning("%s: %s: still busy after %u retries (EAGAIN: writeback or "
			    "recompression running); try again later",
			    d->name, attr, ctx->eagain_retries);
		return;
	case ENOMEM:
		log_error("%s: %s: kernel out of memory for recompression (ENOMEM)", d->name,
			  attr);
		return;
	case EBUSY:
		log_error("%s: %s: device busy (EBUSY): '%s'", d->name, attr, cmd);
		return;
	case EROFS:
	case EACCES:
	case EPERM:
		log_error("%s: %s: not writable (%s); needs root, and under systemd "
			  "ProtectKernelTunables= must stay off",
			  d->name, attr, strerror(-r));
		return;
	default:
		log_error("%s: %s: write of '%s' failed: %s", d->name, attr, cmd, strerror(-r));
	}
}

int pass_configure_algorithms(const struct pass_ctx *ctx, struct zram_dev *d,
			      const struct dev_config *cfg, struct device_report *rep)
{
	char want[128] = "", have[128] = "", cmd[128];
	bool differs = false;
	int r;

	for (unsigned i = 0; i < cfg->n_algos; i++) {
		size_t o = strlen(want);
		(void)snprintf(want + o, sizeof(want) - o, "%s%s", i ? " " : "", cfg->algos[i]);
	}
	for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++) {
		size_t o = strlen(have);
		if (d->recomp.set[p])
			(void)snprintf(have + o, sizeof(have) - o, "%s#%u:%s", o ? " " : "", p,
				       d->recomp.name[p]);
	}
	for (unsigned i = 0; i < CFG_MAX_ALGOS; i++) {
		bool in_cfg = i < cfg->n_algos;
		unsigned p = i + 1;

		if (in_cfg != d->recomp.set[p] ||
		    (in_cfg && strcmp(cfg->algos[i], d->recomp.name[p]) != 0))
			differs = true;
	}

	if (d->initialized) {
		/* The list is fixed once disksize is set (-EBUSY); use what the kernel has. */
		if (differs && cfg->n_algos > 0)
			log_warning("%s: kernel secondary algorithms [%s] differ from the "
				    "configuration [%s]; using the kernel's (they can only be set "
				    "before disksize: run zram-recompd --once before zram setup)",
				    d->name, *have ? have : "none", want);
		return 0;
	}
	if (cfg->n_algos == 0)
		return 0;
	for (unsigned i = 0; i < cfg->n_algos; i++) {
		if (strcmp(cfg->algos[i], zram_primary(d)) == 0)
			log_warning("%s: secondary algorithm %s is the primary too: recompressing "
				    "with it cannot win unless its level differs",
				    d->name, cfg->algos[i]);
	}
	/*
	 * Contiguous from priority 1: a gap makes 6.15+ mark every scanned slot
	 * incompressible (ABI pitfall 2). Every command is built (and so validated) before
	 * the first write: names can only be removed by a reset, so a list that fails half
	 * way would leave the device half-configured.
	 */
	char cmds[CFG_MAX_ALGOS][128];
	for (unsigned i = 0; i < cfg->n_algos; i++) {
		r = zram_build_recomp_algorithm(d, cfg->algos[i], i + 1, cmds[i], sizeof(cmds[i]));
		if (r == -ENOENT) {
			log_error("%s: recomp_algorithm: '%s' is not a compressor this kernel offers "
				  "(available: see comp_algorithm); nothing written",
				  d->name, cfg->algos[i]);
			return -EINVAL;
		}
		if (r < 0) {
			log_error("%s: recomp_algorithm: cannot build command for '%s': %s; nothing "
				  "written",
				  d->name, cfg->algos[i], strerror(-r));
			return r;
		}
	}
	/*
	 * Levels are checked before anything is written too: 7.3 rejects a bad level only at
	 * disksize, which then resets every algorithm of the device (ABI doc §12.4).
	 */
	for (unsigned i = 0; i < cfg->n_algos; i++) {
		int lo, hi, k;

		if (!cfg->has_level[i])
			continue;
		k = zram_level_range(cfg->algos[i], &lo, &hi);
		if (k == -EOPNOTSUPP) {
			log_error("%s: algorithm_params: %s has no compression levels (7.3+ fails "
				  "disksize with EOPNOTSUPP); nothing written",
				  d->name, cfg->algos[i]);
			return -EINVAL;
		}
		if (k == 0 && (cfg->level[i] < lo || cfg->level[i] > hi)) {
			log_error("%s: algorithm_params: level %d is out of range for %s (%d to %d; "
				  "7.3+ fails disksize with EINVAL); nothing written",
				  d->name, cfg->level[i], cfg->algos[i], lo, hi);
			return -EINVAL;
		}
	}
	/* Order valid 6.12 to 7.3: every algorithm first, then the parameters per priority
	 * (7.3+: an algorithm write resets that priority's parameters). */
	for (unsigned i = 0; i < cfg->n_algos; i++) {
		r = write_cmd(ctx, d, "recomp_algorithm", cmds[i], NULL, NULL);
		if (r < 0) {
			log_write_error(ctx, d, "recomp_algorithm", cmds[i], r, 0);
			return r;
		}
		if (!ctx->dry_run) {
			memcpy(d->recomp.name[i + 1], cfg->algos[i], ZRAM_ALGO_MAX);
			if (!d->recomp.set[i + 1])
				d->recomp.count++;
			d->recomp.set[i + 1] = true;
			if (d->recomp.highest < i + 1)
				d->recomp.highest = i + 1;
		}
	}
	if (d->recomp.highest > cfg->n_algos)
		log_warning("%s: recomp_algorithm keeps priorities above %u from earlier writes "
			    "(only a reset removes them)",
			    d->name, cfg->n_algos);
	for (unsigned i = 0; i < cfg->n_algos; i++) {
		if (!cfg->has_level[i])
			continue;
		r = zram_build_algorithm_params(d, i + 1, cfg->level[i], cmd, sizeof(cmd));
		if (r == -EOPNOTSUPP) {
			log_warning("%s: algorithm_params needs Linux 6.12; level for %s ignored",
				    d->name, cfg->algos[i]);
			continue;
		}
		if (r < 0)
			return r;
		r = write_cmd(ctx, d, "algorithm_params", cmd, NULL, NULL);
		if (r < 0) {
			log_write_error(ctx, d, "algorithm_params", cmd, r, 0);
			return r;
		}
	}
	rep->algorithms_written = true;
	return 0;
}

/* Count of slots marked recompressed or incompressible (0 without block_state). */
static int read_marks(const struct pass_ctx *ctx, const struct zram_dev *d, uint64_t *ret)
{
	struct bs_counts c;
	int r;

	if (!d->caps.block_state) {
		*ret = 0;
		return 0;
	}
	r = blockstate_read(ctx->root_fd, d->id, &c, NULL, NULL);
	if (r < 0)
		return r;
	*ret = c.recompressed + c.incompressible;
	return 0;
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

		if (slept >= want || stop_requested(ctx))
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

static int run_one_type(const struct pass_ctx *ctx, struct zram_dev *d,
			const struct pass_plan *plan, const struct pass_step *step,
			struct pass_report *pr, uint64_t *marks, uint64_t total_left,
			uint64_t step_budget)
{
	struct batch_state st = {
		.pages_budget = plan->pages_budget,
		.batched = d->caps.max_pages,
	};

	if (plan->pages_total && (st.pages_budget == 0 || st.pages_budget > total_left))
		st.pages_budget = total_left;
	/* A fallback step: at most the pages the previous priority could not shrink. */
	if (step_budget && (st.pages_budget == 0 || st.pages_budget > step_budget))
		st.pages_budget = step_budget;
	enum pass_type type = step->type;
	struct zram_mm_stat start = d->mm;
	int r = 0;

	uint64_t batch = plan->batch_pages, last_write_ns = 0;
	unsigned enomem_row = 0;
	bool mm_fresh = false; /* d->mm was read right after the previous write, no pause since */

	memset(pr, 0, sizeof(*pr));
	pr->type = type;
	pr->priority = step->priority;
	pr->fallback = step->fallback;
	pr->unshrunk = UINT64_MAX;
	for (;;) {
		struct recompress_cmd c = {
			.type = type,
			.threshold = plan->threshold,
			.priority = step->priority,
		};
		struct zram_mm_stat before = d->mm, after;
		uint64_t marks_now, own;
		char cmd[160];
		bool progress;
		enum batch_verdict v;

		if (stop_requested(ctx)) {
			pr->stop = STOP_SIGNAL;
			break;
		}
		/* The pause for the previous write, only when another one follows. */
		if (last_write_ns) {
			uint64_t slept = pace(ctx, plan, last_write_ns);

			pr->paced_ns = sat_add_u64(pr->paced_ns, slept);
			mm_fresh = mm_fresh && slept == 0;
			last_write_ns = 0;
			if (stop_requested(ctx)) {
				pr->stop = STOP_SIGNAL;
				break;
			}
		}
		if (st.batched)
			c.max_pages = policy_batch_pages(&st, batch);
		r = zram_build_recompress(d, &c, cmd, sizeof(cmd));
		if (r < 0) {
			log_error("%s: recompress: invalid command for pass %s: %s", d->name,
				  pass_type_name(type), strerror(-r));
			pr->stop = STOP_ERROR;
			pr->error = r;
			break;
		}
		if (ctx->dry_run) {
			(void)write_cmd(ctx, d, "recompress", cmd, NULL, NULL);
			if (st.batched)
				fprintf(ctx->out,
					"%s:   (repeated while batches make progress, %s)\n",
					d->name,
					step->fallback ? "up to the pages the previous priority "
							 "could not shrink"
					: plan->pages_budget ? "up to max-pages-per-pass pages"
							     : "no page limit");
			break;
		}
		uint64_t k0 = pr->kernel_ns;

		/*
		 * Right before the write: after a pause other writers have moved it. Back to
		 * back, the reading taken after the previous write is as recent.
		 */
		if (!mm_fresh && zram_read_mm_stat(ctx->root_fd, d->id, &before) == 0)
			d->mm = before;
		mm_fresh = false;
		r = write_cmd(ctx, d, "recompress", cmd, &pr->kernel_ns, &pr->eagain);
		if (r == -ENOMEM && st.batched) {
			pr->enomem++;
			if (++enomem_row >= ENOMEM_TRIES) {
				pr->stop = STOP_ENOMEM;
				r = 0;
				break;
			}
			batch = batch > 1 ? batch / 2 : 1;
			sleep_ms(ENOMEM_DELAY_MS << (enomem_row - 1));
			continue;
		}
		if (r < 0) {
			log_write_error(ctx, d, "recompress", cmd, r, plan->threshold);
			pr->stop = STOP_ERROR;
			pr->error = r;
			break;
		}
		enomem_row = 0;
		pr->commands++;
		last_write_ns = sat_sub_u64(pr->kernel_ns, k0);
		st.pages_charged = sat_add_u64(st.pages_charged, c.max_pages);
		pr->pages_charged = st.pages_charged;

		r = zram_read_mm_stat(ctx->root_fd, d->id, &after);
		if (r < 0) {
			r = r == -ENOENT ? -ENODEV : r;
			log_write_error(ctx, d, "mm_stat", "", r, 0);
			pr->stop = STOP_ERROR;
			pr->error = r;
			break;
		}
		d->mm = after;
		mm_fresh = true;
		own = policy_own_reduction(before.v[MM_COMPR_DATA_SIZE], after.v[MM_COMPR_DATA_SIZE],
					   before.v[MM_ORIG_DATA_SIZE], after.v[MM_ORIG_DATA_SIZE]);
		pr->compr_saved = (int64_t)sat_add_u64((uint64_t)pr->compr_saved,
						       own > INT64_MAX ? INT64_MAX : own);
		progress = policy_batch_progress(&before, &after, 0, 0);
		/*
		 * Failed attempts change no mm_stat figure, and 6.13+ tries the largest
		 * objects first, so a batch of incompressible huge pages looks like "nothing
		 * left". Newly marked 'n' or 'r' slots in block_state are progress too. The
		 * count is only read when mm_stat shows nothing (a read walks every slot).
		 */
		if (!progress && st.batched && marks && read_marks(ctx, d, &marks_now) == 0) {
			/* After batches with mm_stat progress *marks is stale (lower): that
			 * costs at most one extra batch. */
			progress = policy_batch_progress(&before, &after, *marks, marks_now);
			*marks = marks_now;
		}
		v = policy_batch_next(&st, progress);
		if (v != BATCH_CONTINUE) {
			pr->stop = v == BATCH_STOP_NO_PROGRESS ? STOP_NO_PROGRESS
				   : v == BATCH_STOP_BUDGET  ? STOP_BUDGET
							     : STOP_UNBATCHED;
			break;
		}
	}
	if (pr->compr_saved < 0)
		pr->compr_saved = 0;
	pr->mem_freed = -delta_i64(start.v[MM_MEM_USED_TOTAL], d->mm.v[MM_MEM_USED_TOTAL]);
	pr->huge_delta = delta_i64(start.v[MM_HUGE_PAGES], d->mm.v[MM_HUGE_PAGES]);
	return pr->error;
}

static const char *stop_name(enum batch_stop s)
{
	switch (s) {
	case STOP_NONE:
		return "-";
	case STOP_NO_PROGRESS:
		return "no progress";
	case STOP_BUDGET:
		return "page budget spent";
	case STOP_UNBATCHED:
		return "single write (no max_pages before 6.10)";
	case STOP_ERROR:
		return "error";
	case STOP_SIGNAL:
		return "interrupted";
	case STOP_NOTHING:
		return "nothing left to improve (skipped)";
	case STOP_ENOMEM:
		return "memory too short for the kernel (ENOMEM), retried later";
	case STOP_UNCHANGED:
		return "nothing written since every candidate failed at every priority (skipped)";
	}
	return "?";
}

void pass_plan_from_config(const struct dev_config *cfg, uint64_t idle_age_sec,
			   struct pass_plan *ret)
{
	bool marked = false;

	memset(ret, 0, sizeof(*ret));
	for (unsigned i = 0; i < cfg->n_passes && i < PASS_MAX_STEPS; i++) {
		struct pass_step *s = &ret->steps[ret->n_steps++];

		s->type = cfg->passes[i];
		/* One mark before the first idle type: recompression clears IDLE on what it
		 * tried (6.13+, 6.12.y), and a second age-based mark would re-mark every slot
		 * just recompressed (their ac_time is 0, ABI pitfall 23). */
		if (!marked && (s->type == PASS_IDLE || s->type == PASS_HUGE_IDLE)) {
			s->mark_idle = true;
			s->idle_age_sec = idle_age_sec;
			marked = true;
		}
	}
	ret->threshold = cfg->threshold_bytes;
	ret->batch_pages = cfg->max_pages_per_batch;
	ret->pages_budget = cfg->max_pages_per_pass;
	ret->compact = cfg->compact;
	ret->compact_frag_permille = (unsigned)(cfg->compact_fragmentation_percent * 10);
	ret->compact_min_saved = cfg->compact_min_saved_bytes;
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
	r = write_cmd(ctx, d, "idle", cmd, &rep->idle_ns, NULL);
	if (r == -EINVAL && age && d->caps.idle_age == TRI_UNKNOWN) {
		bool init = false;

		/* The kernel takes only "all" without ac-time tracking (ABI §2.5). */
		if (zram_read_initstate(ctx->root_fd, d->id, &init) == 0 && init) {
			log_info("%s: kernel rejected an idle age (no ac-time tracking): marking "
				 "all pages idle",
				 d->name);
			d->caps.idle_age = TRI_NO;
			age = 0;
			(void)zram_build_idle(d, 0, cmd, sizeof(cmd));
			r = write_cmd(ctx, d, "idle", cmd, &rep->idle_ns, NULL);
		}
	}
	if (r < 0) {
		log_write_error(ctx, d, "idle", cmd, r, 0);
		return r;
	}
	if (age && d->caps.idle_age == TRI_UNKNOWN)
		d->caps.idle_age = TRI_YES;
	rep->idle_marked = true;
	rep->idle_age_sec = age;
	return 0;
}

static void read_bs(const struct pass_ctx *ctx, const struct zram_dev *d, struct bs_counts *c,
		    struct bs_bitmap *incomp, bool *ok)
{
	int r;

	*ok = false;
	if (!d->caps.block_state)
		return;
	r = blockstate_read(ctx->root_fd, d->id, c, incomp, NULL);
	if (r < 0) {
		log_warning("%s: block_state unreadable (%s); incompressible pages are estimated "
			    "from huge-page deltas",
			    d->name, strerror(-r));
		return;
	}
	*ok = true;
}

/*
 * Whether an idle-type step can only meet slots it cannot change. Recompressed slots
 * look idle forever (ac_time 0, ABI pitfall 23), and 6.2-6.14 decompress each of them
 * before finding nothing to try, in one write that max_pages does not bound (such slots
 * are not counted): measured in the bench as 41% of the daemon's kernel time. Only
 * decidable when no higher priority is left to try for a recompressed slot.
 */
static bool nothing_to_improve(const struct pass_ctx *ctx, const struct zram_dev *d,
			       const struct pass_step *step)
{
	struct bs_counts c;

	if (step->type != PASS_IDLE && step->type != PASS_HUGE_IDLE)
		return false;
	if (!(step->priority == 1 || (step->priority == 0 && d->recomp.count == 1)))
		return false;
	if (blockstate_read(ctx->root_fd, d->id, &c, NULL, NULL) < 0)
		return false;
	return (step->type == PASS_IDLE ? c.idle_fresh : c.huge_idle_fresh) == 0;
}

static bool step_idle_type(enum pass_type t)
{
	return t == PASS_IDLE || t == PASS_HUGE_IDLE;
}

/* Slots a step of this type could try at priority 1 (block_state counts). */
static uint64_t step_candidates(const struct bs_counts *c, enum pass_type t)
{
	switch (t) {
	case PASS_IDLE:
		return c->idle_fresh;
	case PASS_HUGE_IDLE:
		return c->huge_idle_fresh;
	case PASS_HUGE:
		return sat_sub_u64(c->huge, c->incompressible);
	}
	return 0;
}

/* The head of a chain whose candidates are no more than the last pass left: skip it. */
static bool chain_unchanged(const struct pass_ctx *ctx, const struct zram_dev *d,
			    const struct pass_step *step, uint64_t left)
{
	struct bs_counts c;

	if (!step_idle_type(step->type))
		return false;
	if (blockstate_read(ctx->root_fd, d->id, &c, NULL, NULL) < 0)
		return false;
	return step_candidates(&c, step->type) <= left;
}


/*
 * Pages a finished step tried and left as they were: at most what it could try (its
 * candidates, or the pages charged), minus those it shrank (new 'r') or gave up on (new
 * 'n'). A fallback step's candidates are not in block_state (slots already at a lower
 * priority show 'r' too), so its charge bounds it.
 */
static uint64_t step_unshrunk(const struct pass_report *pr, bool have_bs, const struct bs_counts *c0,
			      const struct bs_counts *c1)
{
	uint64_t tried = pr->pages_charged, done;

	if (!have_bs)
		return tried;
	if (!pr->fallback && pr->priority <= 1 && step_candidates(c0, pr->type) < tried)
		tried = step_candidates(c0, pr->type);
	done = sat_add_u64(sat_sub_u64(c1->recompressed, c0->recompressed),
			   sat_sub_u64(c1->incompressible, c0->incompressible));
	return sat_sub_u64(tried, done);
}

/* A step that is not written, with the reason, in the report. */
static void skip_step(struct device_report *rep, const struct pass_step *step, enum batch_stop why)
{
	struct pass_report *pr = &rep->passes[rep->n_passes++];

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
	struct pass_plan plan;

	pass_plan_from_config(cfg,
			      policy_idle_age(cfg->idle_age_min_sec, cfg->idle_age_max_sec,
					      ctx->mem_total, ctx->mem_available),
			      &plan);
	return pass_execute(ctx, d, &plan, rep);
}

int pass_execute(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		 struct device_report *rep)
{
	struct bs_bitmap inc_before = { 0 }, inc_after = { 0 };
	struct bs_counts bs0 = { 0 }, bs1 = { 0 };
	uint64_t nslots = d->disksize / ZRAM_PAGE_SIZE, marks = 0;
	bool bs_ok = false, bs_ok_after = false;
	uint64_t charged = 0, bd_before = UINT64_MAX;
	int64_t saved;
	int r = 0;

	bool algorithms_written = rep->algorithms_written;

	memset(rep, 0, sizeof(*rep));
	rep->algorithms_written = algorithms_written;
	memcpy(rep->name, d->name, sizeof(rep->name));
	rep->initialized = d->initialized;
	rep->before = rep->after = d->mm;
	if (!d->caps.multi_comp) {
		log_error("%s: recompression unsupported: kernel built without "
			  "CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute)",
			  d->name);
		rep->skipped = true;
		return rep->error = -EOPNOTSUPP;
	}
	if (!d->initialized) {
		log_info("%s: not initialized (no disksize yet): nothing to recompress", d->name);
		rep->skipped = true;
		return 0;
	}
	if (d->recomp.count == 0) {
		log_warning("%s: no secondary algorithm configured in the kernel; it can only be "
			    "set before disksize (recompress-algorithms, zram-recompd --once "
			    "before zram setup); skipping",
			    d->name);
		rep->skipped = true;
		return 0;
	}
	if (d->recomp.gap) {
		if (d->caps.prio_max_active) {
			/* 6.15+: prio_max counts names, so the top priority is never tried and
			 * every scanned slot would be marked incompressible (ABI pitfall 2). */
			log_error("%s: recomp_algorithm has a priority gap (highest #%u, %u set): on "
				  "6.15+ every scanned page would be marked incompressible; "
				  "refusing to recompress (reset the device and configure "
				  "priorities contiguously from 1)",
				  d->name, d->recomp.highest, d->recomp.count);
			rep->skipped = true;
			return rep->error = -EINVAL;
		}
		log_warning("%s: recomp_algorithm has a priority gap (highest #%u, %u set); "
			    "harmless before 6.15 but breaks recompression on 6.15+",
			    d->name, d->recomp.highest, d->recomp.count);
	}

	if (!ctx->dry_run && d->caps.writeback)
		(void)zram_read_bd_writes(ctx->root_fd, d->id, &bd_before);
	if (!ctx->dry_run && nslots && bs_bitmap_alloc(&inc_before, nslots) == 0)
		read_bs(ctx, d, &bs0, &inc_before, &bs_ok);
	if (bs_ok) {
		rep->incompressible_before = bs0.incompressible;
		rep->recompressed_before = bs0.recompressed;
		marks = bs0.incompressible + bs0.recompressed;
	}

	struct policy_kernel kern = {
		.priority = d->caps.priority,
		.clears_idle = d->caps.clears_idle,
	};
	struct pass_plan xp;
	uint64_t left = 0; /* pages the previous step left unshrunk (fallback budget) */
	/* the chain (a step and its fallbacks) under way: its head's counts and stop */
	struct bs_counts chain_c0 = { 0 };
	bool chain_measured = false, chain_complete = false;
	struct zram_memo memo = { 0 };
	uint64_t sig0 = 0;
	bool have_sig = !ctx->dry_run && zram_read_write_sig(ctx->root_fd, d->id, &sig0) == 0;
	bool memo_usable = have_sig && d->memo.write_sig == sig0;

	for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++)
		if (d->recomp.set[p])
			kern.prio_set |= 1u << p;
	/* One priority per write (6.12+): "every secondary" becomes a step per priority. */
	policy_expand_plan(plan, &kern, &xp);
	plan = &xp;
	for (unsigned i = 0; i < plan->n_steps && i < PASS_MAX_STEPS; i++) {
		const struct pass_step *step = &plan->steps[i];
		bool next_fallback = i + 1 < plan->n_steps && plan->steps[i + 1].fallback;
		bool measure, have_c0 = false;
		struct bs_counts c0, c1;
		struct pass_report *pr;

		if (step->fallback && !ctx->dry_run && left == 0) {
			/* The previous priority shrank (or gave up on) all it tried. */
			skip_step(rep, step, STOP_NOTHING);
			continue;
		}
		if (step->mark_idle) {
			r = mark_idle(ctx, d, step->idle_age_sec, rep);
			if (r < 0) {
				if (!rep->error)
					rep->error = r;
				if (is_fatal_for_device(r))
					goto out;
				continue;
			}
		}
		if (plan->pages_total && charged >= plan->pages_total)
			break; /* the pass's page budget is spent */
		if (!ctx->dry_run && bs_ok && !step->fallback && nothing_to_improve(ctx, d, step)) {
			skip_step(rep, step, STOP_NOTHING);
			left = 0;
			continue;
		}
		if (!step->fallback && memo_usable && bs_ok && d->memo.valid[step->type] &&
		    chain_unchanged(ctx, d, step, d->memo.left[step->type])) {
			skip_step(rep, step, STOP_UNCHANGED);
			left = 0;
			/* still true at the end of this pass if nothing is written meanwhile */
			memo.valid[step->type] = true;
			memo.left[step->type] = d->memo.left[step->type];
			continue;
		}
		/*
		 * What the step leaves unshrunk matters when a fallback follows, and when the
		 * kernel does not mark those pages (they are tried again next pass): measure
		 * it around the step (two block_state reads).
		 */
		measure = !ctx->dry_run &&
			  (next_fallback ||
			   !policy_failures_marked(&d->caps, step->priority, d->recomp.highest));
		if (measure && bs_ok)
			have_c0 = blockstate_read(ctx->root_fd, d->id, &c0, NULL, NULL) == 0;
		pr = &rep->passes[rep->n_passes++];
		r = run_one_type(ctx, d, plan, step, pr, bs_ok ? &marks : NULL,
				 sat_sub_u64(plan->pages_total, charged), step->fallback ? left : 0);
		charged = sat_add_u64(charged, pr->pages_charged);
		if (!step->fallback) {
			chain_measured = have_c0;
			chain_complete = pr->stop == STOP_NO_PROGRESS;
			if (have_c0)
				chain_c0 = c0;
		}
		if (measure) {
			bool have_c1 = have_c0 &&
				       blockstate_read(ctx->root_fd, d->id, &c1, NULL, NULL) == 0;

			pr->unshrunk = step_unshrunk(pr, have_c1, &c0, &c1);
			pr->unshrunk_retried = !next_fallback;
			left = pr->unshrunk;
			/*
			 * The chain ends here with its failures unmarked: remember how many
			 * candidates it left, for the next pass to tell whether anything new
			 * came (ABI: 6.12-6.14 never mark them with several secondaries).
			 */
			if (!next_fallback && have_c1 && chain_measured && chain_complete &&
			    pr->error == 0 && step_idle_type(step->type)) {
				memo.valid[step->type] = true;
				memo.left[step->type] = sat_sub_u64(
					step_candidates(&chain_c0, step->type),
					sat_add_u64(sat_sub_u64(c1.recompressed, chain_c0.recompressed),
						    sat_sub_u64(c1.incompressible,
								chain_c0.incompressible)));
			}
		} else {
			left = 0;
		}
		if (r < 0 && !rep->error)
			rep->error = r;
		if (r < 0 && is_fatal_for_device(r))
			goto out;
		if (r == -EINVAL && plan->threshold) {
			/* Every later step carries the same threshold: one error is enough. */
			log_notice("%s: skipping the remaining pass types (they would fail alike)",
				   d->name);
			break;
		}
		if (pr->stop == STOP_SIGNAL)
			goto out;
	}

	if (ctx->dry_run) {
		if (plan->compact == COMPACT_ALWAYS)
			(void)write_cmd(ctx, d, "compact", "1", NULL, NULL);
		else if (plan->compact == COMPACT_AUTO) {
			char at_least[64] = "";

			if (plan->compact_min_saved)
				(void)snprintf(at_least, sizeof(at_least), "at least %" PRIu64 " bytes of ",
					       plan->compact_min_saved);
			fprintf(ctx->out,
				"%s: would write '1' to compact if the passes free %scompressed "
				"data, or if fragmentation after them is at least %u.%u%% "
				"(now %u.%u%%)\n",
				d->name, at_least, plan->compact_frag_permille / 10,
				plan->compact_frag_permille % 10,
				policy_fragmentation_permille(&d->mm) / 10,
				policy_fragmentation_permille(&d->mm) % 10);
		}
		goto out;
	}
	saved = -delta_i64(rep->before.v[MM_COMPR_DATA_SIZE], d->mm.v[MM_COMPR_DATA_SIZE]);
	if (policy_should_compact(plan->compact, &d->mm, plan->compact_frag_permille,
				  saved > 0 ? (uint64_t)saved : 0, plan->compact_min_saved)) {
		struct zram_mm_stat before = d->mm;

		r = write_cmd(ctx, d, "compact", "1", &rep->compact_ns, NULL);
		if (r == -ENOMEM) {
			/* back-pressure like a recompress ENOMEM: the next pass compacts */
			rep->compact_enomem = true;
		} else if (r < 0) {
			log_write_error(ctx, d, "compact", "1", r, 0);
			if (!rep->error)
				rep->error = r;
		} else {
			rep->compacted = true;
			if (zram_read_mm_stat(ctx->root_fd, d->id, &d->mm) == 0)
				rep->compact_freed = -delta_i64(before.v[MM_MEM_USED_TOTAL],
								d->mm.v[MM_MEM_USED_TOTAL]);
		}
	}

out:
	if (!ctx->dry_run) {
		uint64_t bd_after, sig1;
		bool init = false;

		/* Valid only if nothing was written to the device while the pass ran. */
		if (have_sig && zram_read_write_sig(ctx->root_fd, d->id, &sig1) == 0 && sig1 == sig0) {
			memo.write_sig = sig0;
			d->memo = memo;
		} else {
			memset(&d->memo, 0, sizeof(d->memo));
		}

		/* A reset (hot_remove resets first) empties mm_stat: that is no saving. */
		if (zram_read_initstate(ctx->root_fd, d->id, &init) < 0 || !init) {
			rep->device_lost = true;
			rep->after = rep->before;
			goto done;
		}
		(void)zram_read_mm_stat(ctx->root_fd, d->id, &d->mm);
		/* A writeback during the pass moves mm_stat too; say so instead of
		 * crediting its savings to recompression. */
		if (d->caps.writeback && bd_before != UINT64_MAX &&
		    zram_read_bd_writes(ctx->root_fd, d->id, &bd_after) == 0)
			rep->written_back = sat_sub_u64(bd_after, bd_before);
		if (bs_ok && bs_bitmap_alloc(&inc_after, nslots) == 0)
			read_bs(ctx, d, &bs1, &inc_after, &bs_ok_after);
	}
	rep->after = d->mm;
	/* What this pass did, not what swap traffic did meanwhile (policy_own_reduction). */
	for (unsigned i = 0; i < rep->n_passes; i++)
		rep->saved_own = sat_add_u64(rep->saved_own, (uint64_t)rep->passes[i].compr_saved);
	rep->freed_own = policy_own_reduction(
		rep->before.v[MM_MEM_USED_TOTAL], rep->after.v[MM_MEM_USED_TOTAL],
		rep->before.v[MM_ORIG_DATA_SIZE], rep->after.v[MM_ORIG_DATA_SIZE]);
	rep->others_wrote = rep->before.v[MM_ORIG_DATA_SIZE] != rep->after.v[MM_ORIG_DATA_SIZE];
	if (bs_ok && bs_ok_after) {
		rep->have_block_state = true;
		rep->incompressible_after = bs1.incompressible;
		rep->recompressed_after = bs1.recompressed;
		rep->new_incompressible = bs_bitmap_count_new(&inc_before, &inc_after);
	}
done:
	bs_bitmap_free(&inc_before);
	bs_bitmap_free(&inc_after);
	return rep->error;
}

void pass_print_report(FILE *f, const struct device_report *rep)
{
	char a[32], b[32], c[32], e[32], g[32];

	if (rep->skipped || !rep->initialized)
		return;
	if (rep->device_lost) {
		fprintf(f, "%s: reset or removed during the pass; nothing is counted\n", rep->name);
		return;
	}
	if (rep->idle_marked) {
		if (rep->idle_age_sec)
			fprintf(f, "%s: idle: marked pages unused for more than %" PRIu64 " s\n",
				rep->name, rep->idle_age_sec);
		else
			fprintf(f, "%s: idle: marked all pages\n", rep->name);
	}
	for (unsigned i = 0; i < rep->n_passes; i++) {
		const struct pass_report *p = &rep->passes[i];

		char prio[16] = "";

		if (p->priority)
			(void)snprintf(prio, sizeof(prio), " #%u", p->priority);
		fprintf(f,
			"%s: pass %s%s: %u write%s, saved %s compressed, pool %s, huge pages %+" PRId64
			", %.3f s in kernel, stop: %s%s",
			rep->name, pass_type_name(p->type), prio, p->commands,
			p->commands == 1 ? "" : "s",
			format_bytes_signed(a, sizeof(a), p->compr_saved, BYTES_IEC),
			format_bytes_signed(b, sizeof(b), -p->mem_freed, BYTES_IEC), p->huge_delta,
			(double)p->kernel_ns / 1e9, stop_name(p->stop),
			p->eagain ? " (EAGAIN retries)" : "");
		if (p->paced_ns)
			fprintf(f, ", paced %.3f s", (double)p->paced_ns / 1e9);
		if (p->enomem)
			fprintf(f, ", %u ENOMEM (batch halved)", p->enomem);
		if (p->unshrunk != UINT64_MAX && p->stop != STOP_NOTHING)
			fprintf(f, ", %" PRIu64 " page%s not shrunk%s", p->unshrunk,
				p->unshrunk == 1 ? "" : "s",
				p->unshrunk_retried ? " (not marked incompressible at this priority: "
						      "tried again next pass)"
						    : " (next priority tries them)");
		fputc('\n', f);
	}
	if (rep->compact_enomem)
		fprintf(f, "%s: compact: ENOMEM, left to the next pass\n", rep->name);
	if (rep->compacted)
		fprintf(f, "%s: compact: freed %s in %.6f s\n", rep->name,
			format_bytes_signed(a, sizeof(a), rep->compact_freed, BYTES_IEC),
			(double)rep->compact_ns / 1e9);
	fprintf(f, "%s: total: compr_data_size %s -> %s, mem_used_total %s -> %s (freed %s)",
		rep->name, format_bytes(a, sizeof(a), rep->before.v[MM_COMPR_DATA_SIZE], BYTES_IEC),
		format_bytes(b, sizeof(b), rep->after.v[MM_COMPR_DATA_SIZE], BYTES_IEC),
		format_bytes(c, sizeof(c), rep->before.v[MM_MEM_USED_TOTAL], BYTES_IEC),
		format_bytes(e, sizeof(e), rep->after.v[MM_MEM_USED_TOTAL], BYTES_IEC),
		format_bytes_signed(g, sizeof(g),
				    -delta_i64(rep->before.v[MM_MEM_USED_TOTAL],
					       rep->after.v[MM_MEM_USED_TOTAL]),
				    BYTES_IEC));
	fprintf(f, ", huge pages %" PRIu64 " -> %" PRIu64, rep->before.v[MM_HUGE_PAGES],
		rep->after.v[MM_HUGE_PAGES]);
	if (rep->written_back)
		fprintf(f, ", %" PRIu64 " pages written back meanwhile (part of the change is "
			   "writeback's)",
			rep->written_back);
	if (rep->others_wrote)
		fprintf(f, ", other writers changed orig_data_size by %s: recompression saved %s, "
			   "freed %s",
			format_bytes_signed(a, sizeof(a),
					    delta_i64(rep->before.v[MM_ORIG_DATA_SIZE],
						      rep->after.v[MM_ORIG_DATA_SIZE]),
					    BYTES_IEC),
			format_bytes(b, sizeof(b), rep->saved_own, BYTES_IEC),
			format_bytes(c, sizeof(c), rep->freed_own, BYTES_IEC));
	if (rep->have_block_state)
		fprintf(f,
			", recompressed %" PRIu64 " -> %" PRIu64 ", incompressible %" PRIu64
			" -> %" PRIu64 " (%" PRIu64 " new)\n",
			rep->recompressed_before, rep->recompressed_after,
			rep->incompressible_before, rep->incompressible_after,
			rep->new_incompressible);
	else
		fprintf(f, " (no block_state: pages still huge after the passes may be "
			   "incompressible)\n");
}
