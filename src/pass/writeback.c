// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writeback: the steps of a pass that send pages to the backing device (see
 * include/pass.h, pass_writeback), after the recompression steps and before compaction,
 * and the backing device set before disksize (pass_configure_writeback).
 *
 * The kernel enforces the budget itself: before each step writeback_limit gets the pages
 * the pass may still write (in the kernel's 4 KiB units: zram_build_writeback_limit) and
 * writeback_limit_enable is 1, so neither a crash of
 * the daemon nor a write that takes long can go past it. What a step wrote is bd_stat's
 * bd_writes after minus before (the kernel reports no count of its own). -EIO with the
 * limit at 0 is the kernel saying "budget spent" (it checks the limit per page, so some
 * pages may have gone first): not an error.
 *
 * What the device had is put back after the pass: writeback_limit_enable 0, or, when it
 * was 1, another writer's limit, which also caps the pass (it never writes more than that
 * limit had left) and gets back exactly what it had less what the pass wrote; and the
 * previous writeback_batch_size (6.19+) when writeback-batch-size changed it.
 */
#include "pass.h"

#include "blockstate.h"
#include "log.h"
#include "policy.h"
#include "sysfs.h"
#include "util.h"
#include "wb_hold.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

/* Write one validated command; a failure is logged here, once. */
static int wb_write(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
		    const char *cmd, uint64_t *ret_ns)
{
	int r = pass_write(ctx, d, attr, cmd, ret_ns, NULL);

	if (r < 0 && r != -EIO)
		pass_log_write_error(ctx, d, attr, cmd, r, 0);
	return r;
}

/* writeback_limit for pages of the device (written in the kernel's 4 KiB units). */
static int write_limit(const struct pass_ctx *ctx, const struct zram_dev *d, uint64_t pages)
{
	char cmd[32];
	int r = zram_build_writeback_limit(d, pages, cmd, sizeof(cmd));

	if (r < 0)
		return r;
	return wb_write(ctx, d, "writeback_limit", cmd, NULL);
}

/* Why a device gets no writeback at all; WB_RAN when it does. Logged here. */
static enum wb_skip wb_refused(const struct pass_ctx *ctx, const struct zram_dev *d,
			       const struct pass_plan *plan)
{
	if (!d->caps.writeback) {
		log_info("%s: writeback: kernel built without CONFIG_ZRAM_WRITEBACK; skipped",
			 d->name);
		return WB_SKIP_NO_KERNEL;
	}
	if (!d->backing_dev[0]) {
		log_info("%s: writeback: no backing device (backing_dev is none: set "
			 "backing-device, or zram-generator's writeback-device=, before "
			 "disksize); skipped",
			 d->name);
		return WB_SKIP_NO_BACKING;
	}
	if (plan->wb_budget_pages == 0) {
		log_info("%s: writeback: budget spent (writeback-bytes-per-day refills over 24 h); "
			 "skipped",
			 d->name);
		return WB_SKIP_BUDGET;
	}
	return WB_RAN;
}

/*
 * writeback_batch_size when configured (6.19+; before 6.19 the kernel has none). Returns
 * the value it had, to be put back after the pass, or 0 when it was not changed.
 */
static uint64_t wb_batch_set(const struct pass_ctx *ctx, const struct zram_dev *d,
			     const struct pass_plan *plan)
{
	char cmd[32], path[64];
	uint64_t was = 0;
	int r;

	if (!plan->wb_batch_size)
		return 0;
	r = zram_build_writeback_batch_size(d, plan->wb_batch_size, cmd, sizeof(cmd));
	if (r == -EOPNOTSUPP) {
		log_notice("%s: writeback-batch-size ignored: writeback_batch_size needs Linux 6.19",
			   d->name);
		return 0;
	}
	if (r < 0)
		return 0;
	if (ctx->dry_run) {
		(void)wb_write(ctx, d, "writeback_batch_size", cmd, NULL);
		return 0;
	}
	(void)str_printf(path, sizeof(path), "sys/block/%s/writeback_batch_size", d->name);
	if (sysfs_read_u64(ctx->root_fd, path, &was) < 0 || was == plan->wb_batch_size)
		return 0; /* unknown before: nothing to put back (nor to change, when equal) */
	return wb_write(ctx, d, "writeback_batch_size", cmd, NULL) == 0 ? was : 0;
}

/* writeback_batch_size as it was before the pass (wb_batch_set's return, 0: unchanged). */
static void wb_batch_restore(const struct pass_ctx *ctx, const struct zram_dev *d, uint64_t was)
{
	char cmd[32];

	if (was && zram_build_writeback_batch_size(d, was, cmd, sizeof(cmd)) == 0)
		(void)wb_write(ctx, d, "writeback_batch_size", cmd, NULL);
}

/*
 * One writeback write. Returns 0, 1 when the kernel said the budget is spent (-EIO at
 * writeback_limit 0: it checks per page, so some pages may have gone first), or -errno
 * (logged).
 */
static int wb_write_one(const struct pass_ctx *ctx, struct zram_dev *d, const char *cmd,
			struct wb_report *wr)
{
	uint64_t limit = 0;
	int r;

	if (ctx->dry_run)
		return pass_write(ctx, d, "writeback", cmd, NULL, NULL);
	r = pass_write(ctx, d, "writeback", cmd, &wr->kernel_ns, NULL);
	wr->writes++;
	if (r == -EIO && zram_read_writeback_limit(ctx->root_fd, d, &limit) == 0 &&
	    limit == 0)
		return 1;
	if (r < 0) {
		if (r == -ENODEV && d->backing_dev[0])
			log_error("%s: writeback: kernel has no backing device (ENODEV): was the "
				  "device reset?",
				  d->name);
		else
			pass_log_write_error(ctx, d, "writeback", cmd, r, 0);
	}
	return r;
}

/* bd_stat's write count into *ret; -errno logged. Dry runs read nothing. */
static int wb_bd_writes(const struct pass_ctx *ctx, const struct zram_dev *d, uint64_t *ret)
{
	int r;

	*ret = 0;
	if (ctx->dry_run)
		return 0;
	r = zram_read_bd_writes(ctx->root_fd, d, ret);
	if (r < 0)
		pass_log_write_error(ctx, d, "bd_stat", "", r, 0);
	return r;
}

/*
 * What went between two bd_stat reads (the kernel reports no count of its own), or what
 * the kernel took off writeback_limit (limit0 written before the step, lowered by each
 * page written), whichever is more. They agree, except after a reset meanwhile: it zeroes
 * bd_stat but not writeback_limit (zram-abi.md, pitfall 8), and the pages written before
 * it are on the disk all the same. (Another writer lowering the limit meanwhile makes it
 * count more than went: the safe side for a budget that spares flash.)
 */
static void wb_count(const struct pass_ctx *ctx, const struct zram_dev *d, uint64_t bd0,
		     uint64_t limit0, struct wb_report *wr)
{
	uint64_t bd1 = 0, limit1 = limit0, n;

	if (ctx->dry_run)
		return;
	n = zram_read_bd_writes(ctx->root_fd, d, &bd1) == 0 ? sat_sub_u64(bd1, bd0) : 0;
	if (zram_read_writeback_limit(ctx->root_fd, d, &limit1) == 0 &&
	    sat_sub_u64(limit0, limit1) > n)
		n = limit0 - limit1;
	wr->pages = sat_add_u64(wr->pages, n);
}

/* One write between bd_stat reads (limit0 set before it): wb_write_one(), wr->pages counted. */
static int wb_do_write(const struct pass_ctx *ctx, struct zram_dev *d, const char *cmd,
		       uint64_t limit0, struct wb_report *wr)
{
	uint64_t bd0;
	int r = wb_bd_writes(ctx, d, &bd0);

	if (r < 0)
		return r;
	r = wb_write_one(ctx, d, cmd, wr);
	wb_count(ctx, d, bd0, limit0, wr);
	return r;
}

/* How a step ended, from wb_do_write()'s result. */
static int wb_end(const struct pass_ctx *ctx, struct wb_report *wr, int r)
{
	if (r == 1) {
		wr->stop = WB_BUDGET;
		return 0;
	}
	if (r < 0) {
		wr->stop = WB_ERROR;
		return wr->error = r;
	}
	wr->stop = pass_stop_requested(ctx) ? WB_SIGNAL : WB_DONE;
	return 0;
}

/*
 * An idle or huge_idle step: the slots come from block_state by their ac_time (policy.h,
 * struct wb_select), never from the kernel's IDLE flag, and go by index. 6.16+: ranges,
 * several keys per write (1 KiB, well below PAGE_SIZE); 6.2-6.15: one page_index= per
 * write, so at most the budget left in writes (each a synchronous one-page write to the
 * backing device: about what the kernel's own mode spends per page, plus a syscall).
 */
static int wb_step_by_age(const struct pass_ctx *ctx, struct zram_dev *d,
			  const struct wb_step *step, uint64_t left, struct wb_report *wr)
{
	struct wb_select sel;
	uint64_t c0;
	size_t pos = 0;
	uint64_t off = 0, bd0 = 0;
	char cmd[ZRAM_CMD_MAX];
	bool limit_set;
	int r;

	if (!d->caps.block_state) {
		/* The kernel's own filter would take every slot the recompression mark (or
		 * any shorter mark) left idle, and recompressed slots look idle since boot. */
		if (!d->learnt.wb_no_ages_logged)
			log_notice(
				"%s: writeback idle/huge_idle skipped: page ages unknown without "
				"debugfs block_state (CONFIG_ZRAM_MEMORY_TRACKING, debugfs "
				"mounted), so writeback-idle-age-sec cannot be honoured",
				d->name);
		d->learnt.wb_no_ages_logged = true;
		wr->stop = WB_NO_AGES;
		return 0;
	}
	policy_wb_select_init(&sel, now_boottime_ns() / 1000000000u, step->idle_age_sec,
			      step->type == WB_HUGE_IDLE, left);
	c0 = pass_cpu_now();
	r = blockstate_read_slots(ctx->root_fd, d->id, policy_wb_select_slot, &sel, NULL);
	(void)pass_cpu_add(PASS_CPU_BLOCK_STATE, c0);
	wr->selected = sel.pages;
	wr->young = sel.young;
	wr->unknown = sel.unknown;
	wr->over_cap = sel.over_cap;
	if (r < 0 || sel.error) {
		log_warning("%s: writeback %s: block_state %s (%s); step skipped", d->name,
			    wb_type_name(step->type), r < 0 ? "unreadable" : "selection failed",
			    strerror(r < 0 ? -r : -sel.error));
		policy_wb_select_free(&sel);
		wr->stop = r == -ENODEV ? WB_ERROR : WB_NO_AGES;
		return wr->error = r == -ENODEV ? r : 0;
	}
	if (sel.n == 0) {
		policy_wb_select_free(&sel);
		wr->stop = WB_DONE;
		return 0;
	}
	/* The limit before the writes: the kernel stops at it whatever happens to us.
	 * bd_stat once around all of them (6.2-6.15 take one write per page). */
	r = write_limit(ctx, d, left);
	if (r == 0)
		r = wb_bd_writes(ctx, d, &bd0);
	limit_set = r == 0;
	while (r == 0 && !pass_stop_requested(ctx)) {
		r = zram_build_writeback_index(d, sel.r, sel.n, &pos, &off, cmd, sizeof(cmd));
		if (r == -ENOENT) {
			r = 0;
			break;
		}
		if (r < 0) {
			log_error("%s: writeback: invalid index command (%s)", d->name,
				  strerror(-r));
			break;
		}
		r = wb_write_one(ctx, d, cmd, wr);
	}
	if (limit_set)
		wb_count(ctx, d, bd0, left, wr);
	policy_wb_select_free(&sel);
	return wb_end(ctx, wr, r);
}

/*
 * One step: the limit, the write (idle types: wb_step_by_age). Returns 0 or -errno
 * (logged; fatal for the device when is_fatal).
 */
static int run_wb_step(const struct pass_ctx *ctx, struct zram_dev *d, const struct wb_step *step,
		       uint64_t left, struct wb_report *wr)
{
	char cmd[64];
	int r;

	memset(wr, 0, sizeof(*wr));
	wr->type = step->type;
	wr->by_age = step->by_age;
	wr->age_sec = step->idle_age_sec;
	if (step->by_age)
		return wb_step_by_age(ctx, d, step, left, wr);
	r = zram_build_writeback(d, step->type, cmd, sizeof(cmd));
	if (r < 0) {
		log_error("%s: writeback: invalid command for type %s: %s", d->name,
			  wb_type_name(step->type), strerror(-r));
		wr->stop = WB_ERROR;
		return wr->error = r;
	}
	/* The limit before the write: the kernel stops at it whatever happens to us. */
	r = write_limit(ctx, d, left);
	if (r == 0)
		r = wb_do_write(ctx, d, cmd, left, wr);
	return wb_end(ctx, wr, r);
}

/*
 * Before the pass: whether another writer's limit is on (writeback_limit_enable 1), and
 * what it has left, into w (limited, limit_pages). The limit is a u64 of 4 KiB units, read
 * as whole pages of the device (a remainder below one page cannot be written: <= 6.18 it
 * would wrap, 6.19+ rounds it away); one that cannot be read counts as 0 (nothing may be written), one that is off as none.
 */
static void wb_read_limit(const struct pass_ctx *ctx, const struct zram_dev *d,
			  struct wb_pass_report *w)
{
	char path[64];
	uint64_t enabled = 0;

	if (ctx->dry_run)
		return;
	(void)str_printf(path, sizeof(path), "sys/block/%s/writeback_limit_enable", d->name);
	if (sysfs_read_u64(ctx->root_fd, path, &enabled) < 0 || !enabled)
		return;
	w->limited = true;
	if (zram_read_writeback_limit(ctx->root_fd, d, &w->limit_pages) < 0)
		w->limit_pages = 0;
}

/*
 * A pass that ended without giving the limit back (the daemon crashed or was killed in it)
 * left its record: what the device had before that pass is what counts, not the limit it
 * left on. Another writer's limit then gets no more than the kernel shows now (what the
 * crashed pass wrote is unknown; never raise it). Logged here.
 */
static void wb_recover(const struct pass_ctx *ctx, const struct zram_dev *d,
		       struct wb_pass_report *w)
{
	bool limited = false;
	uint64_t limit = 0;

	if (ctx->dry_run || ctx->state_fd < 0 ||
	    wb_hold_load(ctx->state_fd, ctx->root_fd, d->name, &limited, &limit) <= 0)
		return;
	log_notice("%s: writeback: an earlier pass ended without giving writeback_limit back; "
		   "%s",
		   d->name,
		   limited ? "another writer's limit is kept" : "it is switched off after this pass");
	if (limited && w->limited && limit > w->limit_pages)
		limit = w->limit_pages;
	w->limited = limited;
	w->limit_pages = limited ? limit : 0;
}

/* The hold record before the limit goes on; a failure only costs the crash recovery. */
static void wb_hold(const struct pass_ctx *ctx, const struct zram_dev *d,
		    const struct wb_pass_report *w)
{
	int r;

	if (ctx->dry_run || ctx->state_fd < 0)
		return;
	r = wb_hold_save(ctx->state_fd, ctx->root_fd, d->name, w->limited, w->limit_pages);
	if (r < 0)
		log_warning("%s: writeback: cannot record the writeback_limit hold in the state "
			    "directory: %s (a crash in the pass would leave the limit on)",
			    d->name, strerror(-r));
}

static void wb_unhold(const struct pass_ctx *ctx, const struct zram_dev *d)
{
	if (!ctx->dry_run && ctx->state_fd >= 0)
		(void)wb_hold_clear(ctx->state_fd, d->name);
}

/*
 * After the pass: another writer's limit gets what it had less what the pass wrote, which
 * the kernel kept within it (never more than it had: the pass never raises a limit);
 * without one the limit goes off again.
 */
static void wb_restore(const struct pass_ctx *ctx, const struct zram_dev *d,
		       const struct wb_pass_report *w)
{
	if (ctx->dry_run)
		return;
	if (w->limited)
		(void)write_limit(ctx, d, sat_sub_u64(w->limit_pages, w->pages));
	else
		(void)wb_write(ctx, d, "writeback_limit_enable", "0", NULL);
}

/* The steps, each with what is left of the pass's budget and of another writer's limit. */
static void wb_steps(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		     struct device_report *rep)
{
	struct wb_pass_report *w = &rep->wb;
	int r;

	for (unsigned i = 0; i < plan->n_wb && i < WB_NR_TYPES; i++) {
		uint64_t left = sat_sub_u64(w->budget_pages, w->pages);
		struct wb_report *wr = &w->steps[w->n];

		if (w->limited && sat_sub_u64(w->limit_pages, w->pages) < left)
			left = sat_sub_u64(w->limit_pages, w->pages);
		if (left == 0 || pass_stop_requested(ctx))
			break;
		w->n++;
		r = run_wb_step(ctx, d, &plan->wb[i], left, wr);
		w->pages = sat_add_u64(w->pages, wr->pages);
		w->kernel_ns = sat_add_u64(w->kernel_ns, wr->kernel_ns);
		if (r < 0 && !rep->error)
			rep->error = r;
		if (r == -ENODEV || wr->stop == WB_BUDGET || wr->stop == WB_SIGNAL)
			break;
	}
}

void pass_writeback(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		    struct device_report *rep)
{
	struct wb_pass_report *w = &rep->wb;
	struct zram_mm_stat before = d->mm, after;
	uint64_t was_batch;
	int r;

	memset(w, 0, sizeof(*w));
	if (plan->n_wb == 0)
		return;
	w->planned = true;
	w->budget_pages = plan->wb_budget_pages;
	w->skip = wb_refused(ctx, d, plan);
	if (w->skip != WB_RAN)
		return;
	if (pass_stop_requested(ctx)) {
		w->skip = WB_SKIP_STOPPED;
		return;
	}
	wb_read_limit(ctx, d, w);
	wb_recover(ctx, d, w);
	if (w->limited && w->limit_pages == 0) {
		log_info("%s: writeback: writeback_limit_enable is 1 with writeback_limit 0 (another "
			 "writer's limit, kept); skipped",
			 d->name);
		w->skip = WB_SKIP_LIMIT;
		wb_unhold(ctx, d);
		return;
	}
	wb_hold(ctx, d, w);
	if (!ctx->dry_run && zram_read_mm_stat(ctx->root_fd, d->id, &before) == 0)
		d->mm = before;
	was_batch = wb_batch_set(ctx, d, plan);
	/* limit 0 first, then enable: never a moment with the limit on and a stale value
	 * (another writer's limit is on already: each step lowers it, never raises it) */
	r = w->limited ? 0 : write_limit(ctx, d, 0);
	if (r == 0 && !w->limited)
		r = wb_write(ctx, d, "writeback_limit_enable", "1", NULL);
	if (r < 0) {
		if (!rep->error)
			rep->error = r;
		w->skip = WB_SKIP_STOPPED;
		wb_restore(ctx, d, w);
		wb_unhold(ctx, d);
		wb_batch_restore(ctx, d, was_batch);
		return;
	}
	wb_steps(ctx, d, plan, rep);
	wb_restore(ctx, d, w);
	wb_unhold(ctx, d);
	wb_batch_restore(ctx, d, was_batch);
	if (ctx->dry_run)
		return;
	if (zram_read_mm_stat(ctx->root_fd, d->id, &after) == 0) {
		w->mem_freed = -delta_i64(before.v[MM_MEM_USED_TOTAL], after.v[MM_MEM_USED_TOTAL]);
		d->mm = after;
	}
	w->have_bd_stat = zram_read_bd_stat(ctx->root_fd, d->id, w->bd_stat) == 0;
	if (w->have_bd_stat) {
		/* the live figures (textfile, status) are the ones after the writeback */
		memcpy(d->bd_stat, w->bd_stat, sizeof(d->bd_stat));
		d->has_bd_stat = true;
	}
}

/*
 * Whether path a and path b (absolute, under the root) name the same device. The kernel
 * shows the path it opened, resolved (/dev/sdb1), where the configuration may name a
 * symlink to it (/dev/disk/by-id/..., /dev/mapper/...): the same block device (major:minor),
 * or the same file. Only stat()ed, never opened. Unresolvable: only the same text is.
 */
static bool same_backing(int root_fd, const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	if (a[0] != '/' || b[0] != '/' || fstatat(root_fd, a + 1, &sa, 0) < 0 ||
	    fstatat(root_fd, b + 1, &sb, 0) < 0)
		return false;
	if (S_ISBLK(sa.st_mode) || S_ISBLK(sb.st_mode))
		return S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode) && sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int pass_configure_writeback(const struct pass_ctx *ctx, struct zram_dev *d,
			     const struct dev_config *cfg)
{
	char cmd[160];
	int r;

	if (d->initialized || (!cfg->backing_device[0] && !cfg->compressed_writeback &&
				!cfg->backing_file[0]))
		return 0;
	if (config_backing_by_setup(cfg)) {
		/* a loop device or dm-crypt: `backing setup` (as root, outside the daemon's
		 * sandbox and device policy) makes it and writes compressed_writeback too;
		 * --once ran it before its sandbox (backing.h) */
		if (!d->backing_dev[0] && !d->learnt.backing_noted)
			log_notice("%s: not initialized; its %s is set up by 'zram-recompd backing "
				   "setup' (zram-recompd-backing.service) or the setup "
				   "tool's hook (--once), not by the daemon",
				   d->name,
				   cfg->backing_file[0] ? "backing-file" : "encrypted backing-device");
		d->learnt.backing_noted = true;
		return 0;
	}
	if (d->backing_dev[0]) {
		/* zram-generator's writeback-device= (or the admin, or we) came first: never
		 * fight it, and leave its compressed_writeback choice alone too. Said once per
		 * device (the daemon gets here at every rescan until disksize). */
		if (cfg->backing_device[0] && !d->learnt.backing_noted &&
		    !same_backing(ctx->root_fd, d->backing_dev, cfg->backing_device)) {
			log_notice("%s: backing_dev is already %s; backing-device = %s not applied",
				   d->name, d->backing_dev, cfg->backing_device);
			d->learnt.backing_noted = true;
		}
		return 0;
	}
	if (!d->caps.writeback) {
		log_warning("%s: backing-device/compressed-writeback ignored: kernel built without "
			    "CONFIG_ZRAM_WRITEBACK",
			    d->name);
		return 0;
	}
	if (cfg->compressed_writeback) {
		r = zram_build_compressed_writeback(d, true, cmd, sizeof(cmd));
		if (r == -EOPNOTSUPP) {
			log_notice("%s: compressed-writeback ignored: compressed_writeback needs "
				   "Linux 7.0",
				   d->name);
		} else if (r < 0) {
			log_error("%s: compressed_writeback: cannot build command: %s", d->name,
				  strerror(-r));
			return r;
		} else {
			r = pass_write(ctx, d, "compressed_writeback", cmd, NULL, NULL);
			if (r < 0)
				return pass_log_setup_error(ctx, d, "compressed_writeback", cmd,
							    r);
		}
	}
	if (!cfg->backing_device[0])
		return 0;
	r = zram_build_backing_dev(d, cfg->backing_device, cmd, sizeof(cmd));
	if (r < 0) {
		log_error("%s: backing_dev: invalid path '%s': %s", d->name, cfg->backing_device,
			  strerror(-r));
		return r;
	}
	r = pass_write(ctx, d, "backing_dev", cmd, NULL, NULL);
	if (r < 0)
		return pass_log_setup_error(ctx, d, "backing_dev", cmd, r);
	if (!ctx->dry_run) {
		(void)str_printf(d->backing_dev, sizeof(d->backing_dev), "%s", cfg->backing_device);
		log_warning("%s: backing device %s is not encrypted: swapped memory is written to "
			    "it in clear text and stays there across reboots (backing-encryption "
			    "= yes: dm-crypt, which destroys its content)",
			    d->name, cfg->backing_device);
	}
	return 0;
}
