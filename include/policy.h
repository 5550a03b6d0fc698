/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_POLICY_H
#define ZRAM_RECOMPD_POLICY_H

/*
 * Pure decisions: numbers in, decisions out. No I/O, no clocks read here, so every rule
 * is tested on struct literals (tests/unit/test_policy.c).
 */

#include "config.h"
#include "zram.h"

#include <stdbool.h>
#include <stdint.h>

/* One recompress type in a pass, optionally preceded by an idle mark. */
struct pass_step {
	enum pass_type type;
	unsigned priority;     /* recompress priority= (6.12+); 0 = every secondary in order */
	bool mark_idle;	       /* write the idle mark before this step */
	uint64_t idle_age_sec; /* 0 = "all" */
	/*
	 * Set by policy_expand_plan: this step continues the previous one at the next
	 * priority, for the pages that one tried and could not shrink. Its page budget is
	 * that count (the kernel cannot be told which pages they were).
	 */
	bool fallback;
};

/*
 * One writeback step: after the recompression steps, before compaction. The idle and
 * huge_idle modes select their slots by age from block_state (by_age) and write them back
 * by index: the kernel's IDLE flag cannot be trusted for an age (the recompression mark of
 * a shorter age stays on the slots it did not try, a later mark with a longer age never
 * clears it on 6.2-6.12.0, and a recompressed slot's ac_time is 0, "idle since boot").
 */
struct wb_step {
	enum wb_type type;
	bool by_age;
	uint64_t idle_age_sec; /* writeback-idle-age-sec; 0 = any known age */
};

/*
 * Slot selection of an idle / huge_idle writeback step, fed block_state's slots in index
 * order (policy_wb_select_slot). A slot is selected when it holds a compressed object
 * (not 's', not 'w'), is huge for huge_idle, and its last access (ac_time, CLOCK_BOOTTIME
 * seconds) is known and at least age_sec before now_sec. ac_time 0 is unknown, never old:
 * the kernel resets it when it frees the slot's object, which a successful recompression
 * does (6.2-7.3) until the next access. Selected slots are merged into inclusive ranges of
 * consecutive indexes (never across an index block_state did not list: a slot allocated
 * after the read would be written back with no age at all). At most cap slots are selected.
 */
struct wb_select {
	uint64_t now_sec;
	uint64_t age_sec;
	bool huge_only;
	uint64_t cap;
	struct wb_range *r;
	size_t n, alloc;
	uint64_t pages;	   /* selected */
	uint64_t young;	   /* candidates accessed less than age_sec ago */
	uint64_t unknown;  /* candidates with ac_time 0 (recompressed, not read since) */
	uint64_t over_cap; /* old enough, past the cap */
	int error;	   /* -ENOMEM: the ranges so far are kept, the rest not selected */
};

/* Whether a slot last accessed at ac_sec is at least age_sec old at now_sec (0: unknown). */
bool policy_wb_slot_old(uint64_t ac_sec, uint64_t now_sec, uint64_t age_sec);
void policy_wb_select_init(struct wb_select *s, uint64_t now_sec, uint64_t age_sec, bool huge_only,
			   uint64_t cap);
/* One block_state slot (a bs_slot_fn: arg is the struct wb_select). */
void policy_wb_select_slot(void *arg, uint64_t index, uint64_t ac_sec, unsigned flags);
void policy_wb_select_free(struct wb_select *s);

/*
 * When the pages too young for this pass's idle age will be old enough (daemon, under
 * memory pressure): a burst of swap-out (a program's memory pushed out at once) is worth a
 * pass as soon as it has aged into the idle window, not a whole interval later. Counts the
 * stored slots a later idle step could take (not same-filled, written back, idle,
 * recompressed or incompressible) last accessed less than age_sec ago, in buckets of the
 * seconds left until they are age_sec old.
 */
#define POLICY_RIPEN_BUCKETS 64
struct ripen {
	uint64_t now_sec, age_sec, width;
	uint64_t n;
	uint64_t bucket[POLICY_RIPEN_BUCKETS];
};
void policy_ripen_init(struct ripen *r, uint64_t now_sec, uint64_t age_sec);
/* One block_state slot (a bs_slot_fn: arg is the struct ripen). */
void policy_ripen_slot(void *arg, uint64_t index, uint64_t ac_sec, unsigned flags);
/*
 * Seconds until share_permille of the counted slots are old enough (an upper bound, at most
 * age_sec); UINT64_MAX when fewer than min_slots were counted.
 */
uint64_t policy_ripen_sec(const struct ripen *r, unsigned share_permille, uint64_t min_slots);

/*
 * A burst of swap-out: at least half of the stored pages (allocated slots) are younger than
 * the idle age (young, from block_state). The daemon under memory pressure, after idle
 * steps that found nothing old enough, then leaves the huge type (not idle-gated) to the
 * pass that comes when they have aged (struct ripen): what was just swapped out may come
 * back at once, and in the 6.12 swap bench's first minute that huge step cost 2.4 s of
 * CPU (four block_state reads among it) for 670 KiB, tried again seconds later anyway.
 */
bool policy_burst_young(uint64_t young, uint64_t allocated);

/*
 * Whether a recompress write of type t leaves the young pages (and their access times) as
 * the last block_state read found them. The idle-gated types try only slots with the idle
 * mark, which young slots do not have, and what they try does not become young: a write
 * leaves its access time as old as it was (0 after a recompression). So after such writes
 * the young count and the ripening ages of that read still answer (the huge step's young
 * check, the ripening probe) without a read of their own; "huge" also tries young slots.
 */
bool policy_write_keeps_young(enum pass_type t);

/* A cold step plus the configured types, each expanded into up to 3 priorities. */
#define PASS_MAX_STEPS ((CFG_MAX_PASSES + 1) * ZRAM_MAX_PRIO)

/* What one pass does; --once builds it from the configuration, the daemon's policy too. */
struct pass_plan {
	unsigned n_steps;
	struct pass_step steps[PASS_MAX_STEPS];
	uint32_t threshold;	      /* 0 = none */
	uint64_t batch_pages;	      /* max_pages per write (>= 1) */
	/*
	 * max-write-ms in ns: each write sized from the learnt cost per page to take about
	 * this long, never more than batch_pages (write_cost.h); 0 = fixed batch_pages.
	 */
	uint64_t max_write_ns;
	uint64_t pages_budget;	      /* per step; 0 = unlimited */
	uint64_t pages_total;	      /* for the whole pass (all steps); 0 = unlimited */
	enum compact_mode compact;
	unsigned compact_frag_permille; /* auto: compact at this fragmentation or more */
	uint64_t compact_min_saved;	/* auto: also when the pass saved this much (0 = off) */
	bool cold;			/* steps[0] is the daemon's cold tier */
	/*
	 * Duty cycle of the pass in per mille of wall time spent in kernel writes: 1000 =
	 * batches back to back; less while the CPU is busy (policy_pace_permille). The daemon
	 * may change it while the pass runs (pass_ctx.duty_permille). 0 is taken as 1000.
	 */
	unsigned duty_permille;
	/* Nice value of the daemon's worker thread for this pass (policy_worker_nice). */
	int worker_nice;
	/* Memory pressure when the pass was planned (policy_memory_pressure_permille). */
	unsigned mem_pressure_permille;
	/*
	 * The daemon under memory pressure: when its idle steps find nothing old enough but at
	 * least batch_pages stored pages are younger than the idle age, the pass reads when
	 * they will be old enough (struct ripen) for the next pass's time.
	 */
	bool ripen_probe;
	/* The idle mark uses burst-idle-age-sec, shorter than the age memory use gives
	 * (policy_burst_age). */
	bool burst_aged;
	/* Writeback (policy_plan_writeback): none when n_wb is 0 or the budget is. */
	unsigned n_wb;
	struct wb_step wb[WB_NR_TYPES];
	uint64_t wb_budget_pages; /* pages (of the device's size) for all writeback steps */
	uint64_t wb_batch_size;	  /* writeback_batch_size to write first; 0 = leave it */
};

/* What the kernel does with a recompress write, as far as the plan depends on it. */
struct policy_kernel {
	bool priority;	       /* priority= accepted (6.12+) */
	bool clears_idle;      /* every page tried loses its idle mark (6.12.y, 6.13+) */
	unsigned prio_set;     /* bit P set: priority P has an algorithm (1..3) */
};

/*
 * Make every write name its priority where the kernel accepts priority= (6.12+; on 7.1+
 * a write without it uses priority 1 only, there is no walk over the list any more). A
 * step with priority 0 ("every secondary in order") becomes one step per priority,
 * lowest first; steps 2.. are fallbacks: they get the pages the previous priority tried
 * and could not shrink as their budget, and an idle mark of the same age first where the
 * kernel cleared the marks of the pages it tried. Explicit priorities and kernels before
 * 6.12 (the kernel walks the list itself) are left as they are.
 */
void policy_expand_plan(const struct pass_plan *in, const struct policy_kernel *k,
			struct pass_plan *out);

/*
 * Whether a write at priority prio (0 = no priority= key) marks the pages it fails on
 * incompressible ('n'), by version: 6.2-6.11 always (the write tries every secondary);
 * 6.12-6.14 only when prio is the only secondary; 6.15-7.0 when prio is the highest
 * (prio_max reaches the last active one); 7.1+ when no priority above prio has an
 * algorithm. highest: the highest configured priority. Pages not marked are tried again
 * at every pass.
 */
bool policy_failures_marked(const struct zram_caps *c, unsigned prio, unsigned highest);

/*
 * Idle age from memory utilisation, as ChromeOS and Android do:
 *   age = min + (max - min) * e^(-5 * util),  util = 1 - MemAvailable / MemTotal
 * Full memory → ages near min (recompress sooner); empty memory → near max. Returns 0
 * ("all") when max is 0. Without meminfo (total == 0) the result is max.
 */
uint64_t policy_idle_age(uint64_t min_sec, uint64_t max_sec, uint64_t mem_total,
			 uint64_t mem_available);

/*
 * Whether a type=idle step is worth its walk. 6.2-6.14 decompress every recompressed slot
 * such a write meets before finding nothing to try at it (recompressed slots look idle to
 * every age mark: their ac_time is 0), about half the cost of a page tried (92 against
 * 195 us emulated on 6.12). Under a swap workload new idle pages trickle in while tens of
 * thousands stay recompressed, and a pass for a few hundred pages would decompress all
 * of them. So the step runs when the pages it can try (fresh) cost at least as much as
 * the walk: fresh >= walked / 2. Under memory pressure (mem_permille) memory freed now is
 * worth more than the CPU (the naive job's every-pass walk frees more right after a
 * burst), so the divisor grows in proportion, to 8 at full pressure: the
 * walk may cost up to about 4 times the pages tried. 6.15+ skip those slots in the scan
 * (walk_decompresses false): any fresh page is worth a write.
 */
#define POLICY_WALK_COST_DIVISOR 2
#define POLICY_WALK_COST_DIVISOR_PRESSED 8
bool policy_idle_walk_worth(uint64_t fresh, uint64_t walked, bool walk_decompresses,
			    unsigned mem_permille);

/*
 * The daemon's huge step pays its way (per device, across passes): huge pages are stored
 * uncompressed because the primary could not shrink them, the huge type is not idle-gated,
 * so each pass tries the pages just swapped out, and few shrink. In the burst bench (6.12,
 * one vCPU) each huge step spent about 0.3 s of CPU for 20-60 KiB, against 2.6-4.0 MiB for
 * the idle step's 2.4-3.2 s. After a huge step that saved less than 1/64 of the bytes it
 * tried, the next one waits 1, then 2, 4, up to 8 passes; one that pays ends the wait.
 * Returns the passes the next huge step waits; tried_bytes 0 (nothing tried) keeps last.
 */
#define POLICY_HUGE_PAYS_DIVISOR 64
#define POLICY_HUGE_WAIT_MAX 8
unsigned policy_huge_wait(unsigned last, uint64_t saved, uint64_t tried_bytes);

/*
 * The next write's batch around a recompress ENOMEM (the kernel could not allocate a new
 * object under memory pressure; the write stops there): halved after one, doubled back
 * towards full after each write that succeeds. Halving alone left a 6.12 catch-up at
 * 32-page writes after six ENOMEMs: 273 writes, each walking from slot 0 and decompressing
 * every recompressed slot it met (7.9 s of CPU for 4.6 MiB, one vCPU).
 */
uint64_t policy_enomem_batch(uint64_t batch, uint64_t full, bool enomem);

/*
 * A step whose failures the kernel marks ('n', policy_failures_marked), started with
 * candidates slots to try (block_state counts): every write that meets one shrinks it
 * ('r') or marks it, so the step has tried them all once its writes' max_pages add up to
 * the candidates; it goes on while charged < candidates. Under swap traffic mm_stat cannot
 * tell a write's progress, and asking block_state after each write made the kernel format
 * a line per slot each time: 4.5 s of the daemon's 9.5 s of CPU in the first minute after
 * a burst (6.12, 1 GiB device, one vCPU; docs/performance.md section 13).
 */
bool policy_marked_step_more(uint64_t charged, uint64_t candidates);

/*
 * Counts read before writes that tried at most tried pages (no idle mark since), as an
 * estimate of the counts now without another read: each page tried has left the fresh
 * counts at most once and joined 'r' at most once (recompressed slots are what an idle
 * walk meets). Swap-ins meanwhile make it an estimate; a wrong one costs a write, as the
 * read would have cost its formatting.
 */
struct bs_counts;
void policy_counts_after(struct bs_counts *c, uint64_t tried);

/*
 * Whether a pass that wrote, with no counts read after its last write at hand, reads
 * block_state at its end: only for its report (the 'r' and 'n' counts after the writes,
 * the pages newly marked incompressible); the next pass's first read has the counts. Under
 * memory pressure it does not: the read formats a line per stored slot, and in the burst
 * bench (docs/performance.md, section 13) it took 0.5-0.6 s of the daemon's 7.8 s of CPU
 * in the warmcold minute, on 6.12 and on 7.3.
 */
bool policy_end_read(bool mem_pressure);

/*
 * Whether an idle step goes ahead from estimated counts (policy_counts_after): fresh pages
 * are left and, where the walk decompresses (check_walk), they pay for it
 * (policy_idle_walk_worth). false: undecided, read block_state.
 */
bool policy_idle_go(uint64_t fresh, uint64_t walked, bool check_walk, bool walk_decompresses,
		    unsigned mem_permille);

/* Pool fragmentation in per mille: (mem_used_total - compr_data_size) / mem_used_total. */
unsigned policy_fragmentation_permille(const struct zram_mm_stat *mm);

/*
 * Compaction after the passes. auto: when the pass freed compressed data (saved at least
 * min_saved bytes; 0 = any saving), or when fragmentation is at least frag_permille.
 * Why not fragmentation alone: recompression frees objects all over the pool, and only
 * compaction returns the partly used zspages. How much that is depends on the kernel,
 * not on a fragmentation figure: measured on the same pages, 6.12 was at 21.5% before
 * compaction and freed 6.5 MB, 7.3 at 8.7% and still freed 1.07 MB (3.3% of the pool),
 * in milliseconds. A compaction that finds nothing costs a walk of the size classes.
 */
#define POLICY_COMPACT_FRAG_PERMILLE 100
bool policy_should_compact(enum compact_mode mode, const struct zram_mm_stat *after,
			   unsigned frag_permille, uint64_t saved, uint64_t min_saved);

/*
 * Compaction inside a step, after a write, under memory pressure (mem_permille > 0): when
 * the step's writes have saved, since the last compaction, at least 1/64 of the pool and
 * at least 1 MiB of compressed data. Recompression frees objects; only compaction gives
 * their partly used zspages back, and a pass compacts at its end, which right after a
 * burst comes 20-25 s of writes later (6.12, bench burst hot40: the compaction after one
 * 22 s step freed 13.5 MiB, in 16 ms). Under pressure that memory is what the workload is
 * swapping for. Not with compact = never.
 */
#define POLICY_STEP_COMPACT_MIN (1u << 20)
#define POLICY_STEP_COMPACT_SHARE 64
bool policy_compact_in_step(enum compact_mode mode, unsigned mem_permille, uint64_t saved_since,
			    uint64_t pool);

enum batch_verdict {
	BATCH_CONTINUE,
	BATCH_STOP_NO_PROGRESS,
	BATCH_STOP_BUDGET,
	BATCH_STOP_UNBATCHED, /* kernel without max_pages: one write did the whole pass */
};

struct batch_state {
	uint64_t pages_budget;	/* max-pages-per-pass; 0 = unlimited */
	uint64_t pages_charged; /* sum of max_pages written in this pass */
	bool batched;		/* max_pages= is used */
};

/*
 * After one batch: progress means compr_data_size or huge_pages went down while nothing
 * else wrote to the device (orig_data_size unchanged), or (marks_known: block_state was
 * read) more slots are marked recompressed or incompressible than before; the kernel
 * reports no count of its own. With other writers and no marks: policy_own_reduction of
 * compr_data_size is above 0.
 */
bool policy_batch_progress(const struct zram_mm_stat *before, const struct zram_mm_stat *after,
			   bool marks_known, uint64_t marks_before, uint64_t marks_after);
enum batch_verdict policy_batch_next(const struct batch_state *st, bool progress);

/*
 * Time-bounded writes (max-write-ms) are smaller than the fixed batch, and a run of pages
 * none of which reaches a smaller size class is common in real memory (pages of one kind
 * sit together). So a write without progress ends the step only once the writes since the
 * last progress add up to the fixed batch (batch pages), or when it ran out of candidates:
 * it took less than a quarter of what its pages cost at the learnt rate (ns_per_page; 0 =
 * nothing learnt yet: conclusive), unless block_state read after it shows fewer idle slots
 * than the read before (idle_dropped): every page a write tries loses its idle mark
 * (6.2-7.3), so the write found pages, only cheaper ones. Measured on 6.12, the cold tier
 * with a zstd dictionary (about 1 ms a page): a write of 79 pages in 22 ms that
 * shrank none ended the step after 939 of 4,200 pages, at the same place every pass.
 * True: go on as if it made progress.
 */
bool policy_batch_inconclusive(uint64_t noprog_pages, uint64_t batch, uint64_t pages,
			       uint64_t write_ns, uint64_t ns_per_page, bool idle_dropped);

/* The max_pages= for the next batch: min(batch, budget left), never 0 (0 means "nothing"). */
uint64_t policy_batch_pages(const struct batch_state *st, uint64_t max_pages_per_batch);

/*
 * The time bound of one write (max-write-ms, where it is applied: 6.2-6.12) under memory
 * pressure m (per mille): (1 + 7 m) x bound.
 * Each 6.2-6.12 write walks from slot 0 and is followed by an mm_stat read (and, without
 * progress there, a block_state read), so small writes cost the most where memory is
 * shortest; at full pressure the default 100 ms becomes 800 ms, still within the 1 s a
 * stop request may wait (such a write holds no lock a reader waits for before 7.0).
 * 0 stays 0 (no bound).
 */
#define POLICY_WRITE_BOUND_GROWTH 8
uint64_t policy_write_bound_ns(uint64_t bound_ns, unsigned mem_permille);

/* ---- daemon mode: when and how much ---- */

#define POLICY_CPU_WINDOW_NS (600ULL * 1000000000ULL) /* cpu-share-max-percent window */
#define POLICY_CPU_SLOTS 32
#define POLICY_SUSPEND_SLOTS 64
#define POLICY_PRESSURE_MIN_GAP_NS (30ULL * 1000000000ULL) /* passes at most this often on pressure */
#define POLICY_DEFER_RETRY_NS (60ULL * 1000000000ULL)

/*
 * How fast a device reads its contents back (policy_burst_churn): sectors read converted to
 * pages, against the pages stored (mm_stat orig_data_size).
 */
struct policy_reads {
	bool known;
	uint64_t pages_read; /* since the device was set up */
	uint64_t pages_stored;
};

/* Per-device state the manager keeps between decisions (all times CLOCK_MONOTONIC ns). */
struct policy_dev {
	uint64_t next_due_ns;
	uint64_t last_pass_end_ns; /* 0 = never */
	unsigned empty_passes;	   /* consecutive passes that saved nothing: backoff exponent */
	uint64_t tokens;	   /* pages-per-hour bucket (pages) */
	uint64_t tokens_at_ns;
	uint64_t started_ns;
	uint64_t last_cold_ns; /* last cold-tier step (0 = never) */
	struct {
		uint64_t end_ns, busy_ns;
	} cpu[POLICY_CPU_SLOTS]; /* recent passes' kernel-write time */
	unsigned cpu_n;
	struct {
		uint64_t mono_ns, suspended_ns;
	} susp[POLICY_SUSPEND_SLOTS]; /* (time, total suspended so far) samples */
	unsigned susp_n;
	bool huge_exhausted; /* the huge types met only incompressible pages ... */
	uint64_t huge_sig;   /* ... while the contents signature was this */
	bool burst; /* after a burst: passes under pressure mark with burst-idle-age-sec */
	bool burst_churn;	 /* the last look found the contents read back fast */
	bool burst_looked; /* this pass looked again (policy_burst_look) */
	struct policy_reads read_mark; /* at the last pass's end, for the read-back rate */
	uint64_t read_mark_ns;
};

struct policy_snapshot {
	uint64_t now_ns;       /* CLOCK_MONOTONIC */
	uint64_t suspended_ns; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC: time spent suspended */
	int psi_cpu_some_avg10_x100; /* percent x 100; -1 = no PSI */
	int psi_mem_some_avg10_x100;
	enum tri on_battery;
	uint64_t mem_total, mem_available;
	uint64_t content_sig; /* changes when new data lands (huge_pages_since) */
	unsigned n_secondaries;
	bool priority_supported; /* recompress priority= (6.12+); else per-type priorities
				  * and the cold tier are off */
	uint64_t wb_day_left;	 /* bytes left of writeback-bytes-per-day (policy_wb_refill) */
	uint32_t page_size;	 /* the device's (kernel's) page size: bytes to pages */
	struct policy_reads reads;
};

enum policy_verdict {
	POLICY_RUN,
	POLICY_WAIT,		/* not due yet */
	POLICY_DEFER_BATTERY,	/* on battery, no memory pressure */
	POLICY_DEFER_CPU_SHARE, /* kernel-write time over the window exceeds the share */
	POLICY_DEFER_BUDGET,	/* pages-per-hour bucket empty */
};

struct policy_decision {
	enum policy_verdict verdict;
	uint64_t wake_ns; /* when to decide again (monotonic) */
	struct pass_plan plan;
	uint64_t idle_age_sec; /* the warm age chosen (before suspend correction) */
};

const char *policy_verdict_name(enum policy_verdict v);

void policy_dev_init(struct policy_dev *pd, const struct dev_config *cfg, uint64_t now_ns);

/* Decide for one device. Updates only the token bucket refill and the suspend samples. */
void policy_decide(struct policy_dev *pd, const struct dev_config *cfg,
		   const struct policy_snapshot *s, struct policy_decision *ret);

/* Outcome of a pass, for backoff, budgets, the cold tier and incompressible skipping. */
struct policy_outcome {
	uint64_t end_ns;
	uint64_t kernel_ns;
	uint64_t pages_charged;
	int64_t saved; /* compr_data_size reduction */
	bool huge_ran, huge_progress; /* a huge/huge_idle step ran; did it make progress */
	bool cold_ran;
	uint64_t content_sig;
	bool error;
	/* seconds until the young pages are old enough (struct ripen); 0 or UINT64_MAX: unknown */
	uint64_t ripen_sec;
	uint64_t idle_age_sec; /* the age the pass marked with (0: none or "all") */
	bool burst_young;      /* its ripen probe found a burst (policy_burst_young) */
	bool burst_aged;       /* it marked with burst-idle-age-sec (pass_plan.burst_aged) */
	bool walk_decompresses; /* the kernel's idle walks decompress recompressed slots */
	struct policy_reads reads; /* as it ended */
};
void policy_pass_done(struct policy_dev *pd, const struct dev_config *cfg,
		      const struct policy_outcome *o);

/*
 * The warm idle age of a pass: burst-idle-age-sec instead of age while the device is in a
 * burst (policy_dev.burst), memory is under pressure and that age is the shorter. The
 * naive job that recompresses every stored page each pass frees more in the first minute
 * after a burst than one that waits the idle age (docs/performance.md, section 13): the
 * pages reclaim just swapped out are the ones it judged coldest, and a page that is hot
 * comes back within milliseconds, long before a few seconds have passed.
 */
uint64_t policy_burst_age(const struct policy_dev *pd, const struct dev_config *cfg,
			  const struct policy_snapshot *s, unsigned mem_permille, uint64_t age);

/*
 * Whether the device reads its contents back too fast for the burst age to pay: at the rate
 * of the reads since the last pass ended (over at least a second), it would read back half
 * as many pages as it stores within idle-age-min-sec. A page's recompression saves memory
 * while it stays and costs the secondary's decompression when it is read; where pages come
 * back within seconds (the burst bench's warmcold shape: about 9,000 swap-ins a second for
 * 60,000 stored pages) what reaches the burst age leaves soon after, and taking it cost the
 * workload up to a fifth of its speed and tripled its cold reads' p99 (docs/performance.md,
 * section 13). False when the rate is unknown. Every read counts, the advisor's samples of
 * the device (recompress-algorithms = auto) too, in the pass after each advice refresh.
 */
bool policy_burst_churn(const struct policy_dev *pd, const struct dev_config *cfg,
			const struct policy_reads *now, uint64_t now_ns);

/*
 * Before a pass in a burst under memory pressure that finds the pages read back fast since
 * the last pass (policy_burst_churn): look again over the next POLICY_BURST_LOOK_NS first.
 * Moves the read mark to now and returns true, once a pass (policy_burst_update clears
 * it). Right after a burst the hot part of what went out comes back at once: in the burst
 * bench's hot40 shape 5,000-10,000 pages a second over the first seconds, then a few
 * hundred, while warmcold's 11,000 a second go on. One rate since the last pass cannot tell
 * the two apart; a rate over the last seconds can (docs/performance.md, section 13).
 */
#define POLICY_BURST_LOOK_NS (2ULL * 1000000000ULL)
bool policy_burst_look(struct policy_dev *pd, const struct dev_config *cfg,
		       const struct policy_snapshot *s, unsigned mem_permille);

/*
 * After a pass (policy_pass_done): whether the device is in a burst now (policy_dev.burst)
 * and, when one began, the seconds to the first pass at the burst age (UINT64_MAX: none).
 * Where the kernel's idle walks decompress recompressed slots (6.2-6.14,
 * policy_idle_walk_worth), the burst is one pass: every later pass at the burst age walks
 * over what that pass recompressed (idle to any mark), and it reads no block_state to weigh
 * the walk (policy_pass_blind). In the burst bench (6.12, hot40) the second pass at the
 * burst age took 5.4 s of the one CPU for 1.4 MiB, after 12.5 s for 21.1 MiB in the first.
 */
uint64_t policy_burst_update(struct policy_dev *pd, const struct dev_config *cfg,
			     const struct policy_outcome *o);

/*
 * Whether a pass (its plan expanded, policy_expand_plan) goes without block_state: a pass
 * at the burst age whose every step the kernel marks failures of ('n',
 * policy_failures_marked), without fallbacks or a threshold. Each block_state read makes
 * the kernel format a line per stored slot: in the burst bench (6.12, warmcold) one read
 * a pass, 0.4-0.5 s of the one CPU, a tenth of a catch-up pass, for counts a burst pass
 * does not need: its idle mark takes nearly every stored page, and a step ends where a
 * write finds fewer pages than it asked for (write_cost_found_few) or by the candidates
 * policy_blind_candidates estimates. What it leaves unknown is which pages it marked
 * incompressible; the pass after the burst reads block_state again.
 */
bool policy_pass_blind(const struct pass_plan *plan, const struct zram_caps *caps,
		       unsigned highest);

/*
 * A step's candidates without block_state, from mm_stat: for an idle step every stored
 * page that is not same-filled, for a huge type the huge pages (an upper bound: some are
 * not idle, recompressed or incompressible; the step ends earlier where a write finds
 * few).
 */
uint64_t policy_blind_candidates(enum pass_type t, uint64_t stored, uint64_t same,
				 uint64_t huge);

/*
 * The plan of one pass, the daemon's and --once's alike: the configured types in order
 * with one idle mark before the first idle type (at the age memory use gives), each at
 * its configured priority where the kernel takes priority=, batch and budgets, the
 * compaction rule, and the duty cycle pressure allows. With the daemon's history (pd):
 * also the cold tier when due, the pages-per-hour bucket, the time suspended added to
 * the idle ages, and huge types left out while they met only incompressible pages.
 * --once passes pd = NULL. Returns the warm idle age chosen (before suspend correction).
 */
uint64_t policy_plan(const struct policy_dev *pd, const struct dev_config *cfg,
		     const struct policy_snapshot *s, struct pass_plan *plan);

/*
 * Pressure decides how much CPU recompression may take; memory pressure never lowers it.
 *
 * Memory pressure m, 0..1000 per mille, the larger of
 *   PSI memory some avg10 / 20%          (20% of the time stalled on memory = full), and
 *   (20% - MemAvailable/MemTotal) / 15%  (20% available = none, 5% or less = full).
 * The share of wall time kernel writes may take, per mille:
 *   share = base + (ceiling - base) * m / 1000,
 * base = cpu-share-max-percent, ceiling = cpu-share-pressure-percent (never below base).
 * It is the limit of the 600 s window (POLICY_DEFER_CPU_SHARE), and while the CPU is busy
 * (PSI cpu some avg10 above psi-cpu-max-percent) also the duty cycle of the running pass:
 * batches with pauses instead of no pass at all. A base of 0 (window off) paces at 5%.
 */
unsigned policy_memory_pressure_permille(const struct policy_snapshot *s);
/* compact = auto's fragmentation threshold for this pass (per mille; 0 = any) */
unsigned policy_compact_frag_permille(const struct dev_config *cfg,
				      const struct policy_snapshot *s);
unsigned policy_cpu_share_permille(const struct dev_config *cfg, const struct policy_snapshot *s);
unsigned policy_pace_permille(const struct dev_config *cfg, const struct policy_snapshot *s);

/*
 * The nice value of the daemon's worker thread (where the kernel work of a pass runs):
 * POLICY_WORKER_NICE without memory pressure, down to 0 at full memory pressure
 * (10 - 10 * m / 1000). At nice 10 a busy process of nice 0 on the same CPU leaves the
 * worker about a tenth of it, whatever the duty allows: measured in the 7.3 swap bench,
 * the catch-up's writes took 52 s of wall time instead of 29 s and ran into the measured
 * window. The duty cycle still bounds the share; nice only stops a busy CPU from taking
 * the rest. (The shipped unit's LimitNICE=+0 lets the thread go back to 0.)
 */
#define POLICY_WORKER_NICE 10
int policy_worker_nice(const struct policy_snapshot *s);

/*
 * What a write or a pass did to a pool figure (compr_data_size, mem_used_total), not what
 * other writers did meanwhile: swap-out stores pages (orig_data_size grows, the figure by
 * about the device's ratio), swap-in and discards free them; recompression leaves
 * orig_data_size as it is. own = (before - after) + (orig_after - orig_before) *
 * before / orig_before, never below 0.
 */
uint64_t policy_own_reduction(uint64_t before, uint64_t after, uint64_t orig_before,
			      uint64_t orig_after);

/*
 * Writeback budget. The day budget is a bucket of writeback-bytes-per-day bytes that
 * refills continuously over a rolling 24 h (per_day * elapsed / 86400), capped at
 * per_day, on the wall clock (unix seconds) because it is kept in the state file across
 * restarts and reboots. at_unix 0: never used, a full bucket. A clock that went back
 * refills nothing. Fractions of a byte accumulate (the time stays where it was). Returns
 * the bytes left now and sets *ret_at to the time they are as of.
 */
#define POLICY_WB_DAY_SEC 86400
uint64_t policy_wb_refill(uint64_t left, uint64_t at_unix, uint64_t now_unix, uint64_t per_day,
			  uint64_t *ret_at);

/* The pages a pass may write back: min(day left, per pass) / page_size, rounded down
 * (0 for a page_size of 0). */
uint64_t policy_wb_budget_pages(uint64_t day_left, uint64_t per_pass, uint32_t page_size);

/*
 * The writeback part of a pass: the configured types in order, the idle mark for the
 * idle types at writeback-idle-age-sec, and the budget from s->wb_day_left. Nothing when
 * writeback is off. Called by policy_plan.
 */
void policy_plan_writeback(const struct dev_config *cfg, const struct policy_snapshot *s,
			   struct pass_plan *plan);

/* Pause after a kernel write of write_ns at duty per mille (0 when not paced). */
uint64_t policy_pause_ns(uint64_t write_ns, unsigned duty_permille);

/* A PSI memory trigger fired: bring the next pass forward (a pass frees memory). */
void policy_memory_pressure(struct policy_dev *pd, uint64_t now_ns);

/* Time suspended within the last window_ns before now (from the samples). */
uint64_t policy_suspended_within(const struct policy_dev *pd, uint64_t now_ns,
				 uint64_t suspended_now_ns, uint64_t window_ns);

/* Kernel-write time of passes that ended within the CPU window before now. */
uint64_t policy_cpu_busy(const struct policy_dev *pd, uint64_t now_ns);

#endif
