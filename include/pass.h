/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_PASS_H
#define ZRAM_RECOMPD_PASS_H

/*
 * One maintenance pass over one device: the idle mark, the configured recompress types
 * in max_pages batches, compaction, and the accounting of what it saved. `--once` runs
 * it directly; the daemon runs the same code in its worker thread. The kernel writes here
 * block (a recompress write returns when its whole batch is done), so this never runs on
 * an event loop. Errors are logged here, once, with device, attribute and reason: this is
 * the layer that knows what the write was for.
 */

#include "config.h"
#include "pass_cpu.h"
#include "policy.h"
#include "zram.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct bs_counts;

struct pass_ctx {
	int root_fd;
	bool dry_run;
	FILE *out;		       /* dry-run commands and reports (stdout) */
	unsigned eagain_retries;       /* per write; 6.12.y/6.13-6.19 concurrent writeback */
	unsigned eagain_delay_ms;      /* first retry delay, doubled each time */
	const volatile sig_atomic_t *stop; /* set asynchronously to end a pass early; may be NULL */
	/*
	 * Duty cycle per mille, changed by the daemon while the pass runs (CPU or memory
	 * pressure); NULL: the plan's. After each recompress write the pass pauses so that
	 * its writes take at most this share of the wall time.
	 */
	const volatile unsigned *duty_permille;
	uint64_t mem_total, mem_available; /* for the idle age; 0 = unknown */
	uint64_t wb_day_left; /* --once: bytes left of the writeback day budget (state file) */
	int state_fd; /* the state directory (writeback_limit hold, wb_hold.h); -1 none */
	/*
	 * --once and adopt: zstd-dictionary applies (dict_apply.h). The daemon leaves it off:
	 * its unit cannot write the record under /run (ProtectSystem=strict).
	 */
	bool apply_dict;
};

void pass_ctx_init(struct pass_ctx *ctx, int root_fd);


struct pass_report {
	enum pass_type type;
	unsigned priority;
	bool fallback;		/* continues the previous priority on what it left (policy.h) */
	/*
	 * Pages this step tried and could not shrink, when the kernel does not mark them
	 * incompressible at this priority (policy_failures_marked): the next priority's
	 * budget, or pages the next pass tries again. From block_state; without it an upper
	 * bound (the pages charged). UINT64_MAX = not measured.
	 */
	uint64_t unshrunk;
	bool unshrunk_retried; /* ... and no later step of this pass takes them */
	unsigned commands;	/* recompress writes that succeeded */
	unsigned eagain;	/* EAGAIN retries */
	unsigned enomem;	/* writes refused with ENOMEM (back-pressure, retried smaller) */
	uint64_t paced_ns;	/* pauses between writes (duty cycle) */
	uint64_t pages_charged; /* sum of max_pages written */
	int64_t compr_saved;	/* compr_data_size reduction by this step's writes, measured
				 * around each write, other writers' share taken out (>= 0) */
	int64_t mem_freed;	/* mem_used_total before - after (with the compactions below;
				 * the pass's own compaction comes later) */
	int64_t huge_delta;	/* huge_pages after - before */
	unsigned compactions;	 /* compactions between writes (policy_compact_in_step) */
	int64_t compact_freed;	 /* mem_used_total they freed */
	uint64_t kernel_ns;	/* time spent inside recompress writes */
	uint64_t max_write_ns;	/* the longest of them (max-write-ms bounds it) */
	enum batch_stop {
		STOP_NONE,
		STOP_NO_PROGRESS,
		STOP_BUDGET,
		STOP_UNBATCHED,
		STOP_ERROR,
		STOP_SIGNAL,
		STOP_NOTHING, /* block_state: no slot this type could still improve */
		STOP_UNCHANGED, /* nothing written since every candidate failed at every priority */
		STOP_ENOMEM,	/* the kernel kept refusing with ENOMEM: memory is short */
		STOP_WALK,	/* too few new idle pages to pay for the walk (6.2-6.14) */
		STOP_YOUNG, /* huge after a burst: its pages younger than the idle age */
		STOP_UNPAID, /* huge: the last one saved too little for its pages, waits */
	} stop;
	uint64_t pages_tried; /* at most this many pages tried: the charge, or fewer where
			       * failures are marked and the candidates were counted */
	int error; /* -errno of the write that failed, 0 */
};

/* One writeback step as it ran. */
struct wb_report {
	enum wb_type type;
	uint64_t pages;	    /* bd_stat bd_writes after - before (as pages); after a
			     * reset zeroed bd_stat, writeback_limit before - after */
	uint64_t kernel_ns; /* inside the writeback writes */
	enum wb_stop {
		WB_DONE,	 /* the write returned: every candidate within the limit went */
		WB_BUDGET,	 /* -EIO at writeback_limit 0, or nothing left before it: spent */
		WB_ERROR,
		WB_SIGNAL,
		WB_NO_AGES, /* idle/huge_idle without block_state: page ages unknown */
	} stop;
	int error;
	/* idle and huge_idle (by_age): what the block_state selection found */
	bool by_age;
	uint64_t age_sec;
	uint64_t selected; /* slots old enough, up to the budget left */
	uint64_t young;	   /* accessed less than age_sec ago */
	uint64_t unknown;  /* ac_time 0 (recompressed, not read since): age unknown */
	uint64_t over_cap; /* old enough, past the budget */
	unsigned writes;   /* writeback writes it took */
};

/* The writeback part of a pass (plan.n_wb > 0). */
struct wb_pass_report {
	bool planned;
	enum wb_skip {
		WB_RAN,
		WB_SKIP_NO_KERNEL,  /* no CONFIG_ZRAM_WRITEBACK */
		WB_SKIP_NO_BACKING, /* backing_dev is "none" */
		WB_SKIP_BUDGET,	    /* the day's (or the pass's) budget is spent */
		WB_SKIP_STOPPED,    /* a stop request or a fatal error before it */
		WB_SKIP_LIMIT,	    /* another writer's writeback_limit is 0 */
	} skip;
	unsigned n;
	struct wb_report steps[WB_NR_TYPES];
	uint64_t budget_pages; /* what the pass could write (plan.wb_budget_pages) */
	/* writeback_limit_enable was 1 before the pass: another writer's writeback_limit
	 * (whole pages left then) caps the pass, and gets back what is left of it */
	bool limited;
	uint64_t limit_pages;
	uint64_t pages;	       /* written by this pass's steps, summed */
	uint64_t kernel_ns;
	int64_t mem_freed;     /* mem_used_total before - after the writeback steps */
	uint64_t bd_stat[3];   /* after the steps (bd_count bd_reads bd_writes) */
	bool have_bd_stat;
};

struct device_report {
	char name[ZRAM_NAME_MAX];
	uint32_t page_size; /* the device's: page counts to bytes */
	bool initialized;
	bool skipped; /* nothing was attempted; reason logged */
	int error;    /* first error, 0 */

	bool algorithms_written; /* uninitialized device: secondary list applied */
	bool idle_marked;
	uint64_t idle_age_sec; /* 0 = "all" */
	/* pages younger than the idle age and when 90% are old enough (probe_ripening) */
	uint64_t ripen_slots;
	uint64_t ripen_sec; /* 0 or UINT64_MAX: not known */
	bool burst_young;   /* ... and they are at least half the stored pages */
	uint64_t idle_ns;

	unsigned n_passes;
	struct pass_report passes[PASS_MAX_STEPS];

	bool compacted;
	bool compact_enomem; /* compaction refused with ENOMEM (skipped, not an error) */
	int64_t compact_freed;
	uint64_t compact_ns;

	struct zram_mm_stat before, after;
	/* before -> after with other writers' share taken out (policy_own_reduction) */
	uint64_t saved_own, freed_own;
	bool others_wrote; /* orig_data_size changed during the pass */

	uint64_t written_back; /* bd_stat writes during the pass (pages), ours included */
	struct wb_pass_report wb;
	bool device_lost;      /* reset or removed during the pass: its figures mean nothing */

	bool have_block_state;
	bool blind; /* a pass at the burst age that read no block_state (policy_pass_blind) */
	uint64_t incompressible_before, incompressible_after;
	uint64_t new_incompressible;
	bool new_incompressible_lower; /* from the counts alone: a lower bound (pass_end_counts) */
	/* wrote under memory pressure, and no block_state read after (policy_end_read) */
	bool end_unread;
	uint64_t recompressed_before, recompressed_after;
	struct pass_cpu cpu; /* the thread's CPU in this pass, by kind (pass_cpu.h) */
};

/*
 * How far pass_execute goes on d (src/pass/pass_scope.c): PASS_NONE (rep->skipped; rep->error
 * when it is one), PASS_WB_ONLY (no recompression possible, reach.h: the plan's writeback
 * and compaction), PASS_FULL. The device's own limits are logged by the caller (reach_log).
 */
enum pass_scope { PASS_NONE, PASS_WB_ONLY, PASS_FULL };
enum pass_scope pass_scope(const struct zram_dev *d, const struct pass_plan *plan,
			   struct device_report *rep);

/*
 * Uninitialized device: write the configured secondary list ("algo=NAME priority=I",
 * contiguous from 1) and levels ("priority=I level=N"). Initialized device: compare the
 * kernel's list with the configuration and warn when they differ (the kernel's list is
 * used: it cannot change after disksize). Returns 0 or -errno (logged).
 */
int pass_configure_algorithms(const struct pass_ctx *ctx, struct zram_dev *d,
			      const struct dev_config *cfg, struct device_report *rep);

/*
 * Whether pass_configure_algorithms would accept cfg's list and levels for d (names this
 * kernel offers, levels in range), checked before anything is written; errors logged.
 * adopt checks this while the device still holds its pages.
 */
int pass_validate_algorithms(const struct zram_dev *d, const struct dev_config *cfg);

/*
 * Uninitialized device: compressed_writeback (7.0+) and backing_dev from the configuration,
 * before disksize like the secondary algorithms. A backing_dev already set (zram-generator's
 * writeback-device=) is kept. Returns 0 or -errno (logged).
 */
int pass_configure_writeback(const struct pass_ctx *ctx, struct zram_dev *d,
			     const struct dev_config *cfg);

/*
 * The writeback steps of a plan (plan->n_wb), after the recompression steps and before
 * compaction (pass_execute calls it): each bounded by writeback_limit (the budget left,
 * enforced by the kernel), measured by bd_stat. A device without CONFIG_ZRAM_WRITEBACK or
 * a backing device, or a spent budget, is skipped with a log line (rep->wb.skip), no error.
 */
void pass_writeback(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		    struct device_report *rep);

/*
 * Compaction after the steps when the plan's rule says so (compact = always, or auto and
 * the pass freed data or left the pool fragmented); under --dry-run, what it would do.
 */
void pass_compact(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		  struct device_report *rep);

/*
 * Stored pages neither idle, done nor given up (block_state counts); flags overlap ('i'
 * with 'r' or 'n'), so this undercounts, never overcounts.
 */
uint64_t pass_young_estimate(const struct bs_counts *c);

/*
 * The daemon under memory pressure, after a pass whose idle steps found nothing old enough
 * (idle_nothing, block_state readable): when at least a batch of stored pages is younger
 * than the idle age, when 90% of them will be old enough (rep->ripen_slots, ripen_sec).
 * Counts whose young pages are those now (young_known: *cur as read, or after idle-gated
 * writes only, policy_write_keeps_young) spare a quiet device the read, and with them the
 * access times the pass's baseline counted (ages, NULL: none, or no longer true); otherwise
 * the one read with access times gives the counts too (*cur, and *cur_valid set).
 */
void pass_probe_ripening(const struct pass_ctx *ctx, const struct zram_dev *d,
			 const struct pass_plan *plan, bool idle_nothing, const struct ripen *ages,
			 struct bs_counts *cur, bool young_known, bool *cur_valid,
			 struct device_report *rep);

/* A stop request (SIGTERM in the daemon) ends the pass after the running write. */
bool pass_stop_requested(const struct pass_ctx *ctx);

/*
 * Write one command to a device attribute (dry run: print it), EAGAIN retried with a
 * doubling delay; ret_ns gets the time inside write(). The caller logs a failure once,
 * with pass_log_write_error (threshold: the recompress threshold, for its EINVAL).
 */
int pass_write(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
	       const char *cmd, uint64_t *ret_ns, unsigned *ret_eagain);
void pass_log_write_error(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
			  const char *cmd, int r, uint32_t threshold);
/*
 * A write that configures an uninitialized device (before disksize) failed: logged once.
 * Another tool may be setting the same device up (zram-generator, zramswap, the kernel's
 * zram selftest): one that wrote disksize after our probe makes the write fail with EBUSY,
 * and one that hot-removed the device with ENOENT or ENODEV. Both are notices, never
 * errors; the daemon gives way (no reset, nothing of the other tool's rewritten). Returns
 * -EBUSY (set up meanwhile: probe it again and use it as it is), -ENODEV (gone), or
 * another -errno (logged as an error; an EBUSY of another cause becomes -EIO).
 */
int pass_log_setup_error(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
			 const char *cmd, int r);

/* Execute a plan on an initialized device. Returns 0 or the first -errno (logged). */
int pass_execute(const struct pass_ctx *ctx, struct zram_dev *d, const struct pass_plan *plan,
		 struct device_report *rep);

/*
 * --once, before it probes the devices: the lock "adopt" (devlock.h) shared, waiting up to
 * wait_ms for an adopt in progress, held until the process ends, so that no adopt starts
 * meanwhile. -EAGAIN (logged): an adopt still runs; 0 otherwise, also where no lock can be
 * taken (a root without run/, a read-only /run: logged at debug).
 */
int pass_once_lock(int root_fd, unsigned wait_ms);

/* --once: the daemon's plan (policy_plan) without its history, from ctx's meminfo, executed. */
int pass_run(const struct pass_ctx *ctx, struct zram_dev *d, const struct dev_config *cfg,
	     struct device_report *rep);

/*
 * What a finished pass amounts to, for the daemon's log line, its policy and the totals:
 * summed over the steps, saved and freed as this pass did them (not swap traffic), 0 for
 * a device reset or removed during the pass.
 */
struct pass_summary {
	uint64_t pages;	    /* pages charged (max_pages written) */
	uint64_t kernel_ns; /* recompress, idle and compact writes */
	uint64_t max_write_ns; /* the longest single recompress write */
	int64_t saved, freed;
	bool interrupted; /* a stop request ended a step */
	uint64_t wb_pages; /* pages written back by this pass (of the device's page size) */
	bool huge_ran, huge_progress;
};
void pass_summarize(const struct device_report *rep, struct pass_summary *s);
/*
 * The incompressible pages the pass last counted in block_state: after its writes, or at its
 * start when it read nothing after them (end_unread); UINT64_MAX when it read none.
 */
uint64_t pass_incompressible_now(const struct device_report *rep);

/* Human-readable report, one line per step. */
void pass_print_report(FILE *f, const struct device_report *rep);
/* One line: the pass's thread CPU by kind (pass_cpu.h); nothing when unmeasured. */
void pass_print_cpu(FILE *f, const struct device_report *rep);

#endif
