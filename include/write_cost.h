/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_WRITE_COST_H
#define ZRAM_RECOMPD_WRITE_COST_H

/*
 * Time-bounded recompress writes (max-write-ms). A recompress write runs entirely in the
 * writer's context and cannot be interrupted; from 7.0 it also holds the device lock, so
 * every reader of mm_stat waits for it. Its length is max_pages times the kernel's cost
 * per page, which depends on the CPU, the algorithm and the data: measured 250 us per page
 * emulated (6.12 and 7.3, zstd over lzo-rle) against about 6 us natively. So the cost is
 * learnt from the daemon's own writes, per device, type and priority, and the next batch is
 * sized to take about the bound. Pure: numbers in, numbers out (tests/unit/test_policy.c).
 *
 * A write costs a fixed part plus a part per page: 6.13+ (buckets) and 7.x walk every slot
 * of the device before trying max_pages of them, so on a large device the walk alone can
 * exceed the bound (measured on 7.3 under the swap bench: about 0.5 s emulated for 65,000
 * slots; batches sized as if all of it were per page shrank to a few pages, and a pass spent
 * 9 s of kernel time on 3,392 pages). Two samples of clearly different sizes separate the
 * two parts; while the fixed part is unknown and the bound would shrink the batch, the next
 * write is half the size to find out. When the fixed part is large against the bound, a write
 * is sized so that the walk is at most a quarter of it (WRITE_COST_WALK_SHARE): the bound is
 * then exceeded, visibly (the longest write is reported), rather than the walk repeated for
 * a handful of pages each time.
 */

#include <stdbool.h>
#include <stdint.h>

/*
 * First write of a type and priority whose cost is unknown: small, so that even a slow
 * CPU (1 ms per page) stays within a 100 ms bound.
 */
#define WRITE_COST_FIRST_PAGES 64
/* A batch grows at most this much over the largest batch measured so far. */
#define WRITE_COST_GROWTH 8
/*
 * One sample moves the estimate by at most these factors: a write preempted for a while
 * (or one that met a walk max_pages does not bound, 6.2-6.14) does not collapse the batch
 * size, one that found few pages does not inflate it. Several in a row still get there.
 */
#define WRITE_COST_MAX_RISE 4
#define WRITE_COST_MAX_FALL 8
/* The fixed part is at most 1 / WRITE_COST_WALK_SHARE of a write (of its per-page part x 3). */
#define WRITE_COST_WALK_SHARE 4
/* Two samples separate the fixed part only if their sizes differ by this factor at least. */
#define WRITE_COST_FIT_SPREAD 2

/*
 * A write expected to take less than this CPU time, or of fewer pages, tells nothing by
 * its time: pages differ in cost (zstd is several times faster on a nearly empty page or
 * an incompressible one than on a typical one), and a small batch can hold only cheap ones.
 */
#define WRITE_COST_FEW_MIN_NS 4000000u
#define WRITE_COST_FEW_MIN_PAGES 256u

/* The learnt cost of one (device, type, priority). Zeroed = nothing learnt yet. */
struct write_cost {
	uint64_t ns_per_page; /* per-page part, >= 1 once samples > 0 */
	uint64_t fixed_ns;    /* fixed part of a write (the walk), valid when fixed_known */
	uint64_t last_pages, last_ns; /* the previous sample, for the two-point fit */
	uint64_t max_pages;	      /* largest batch measured */
	uint64_t samples;
	bool fixed_known;
};

/*
 * The max_pages of the next write: about bound_ns of kernel time at the learnt cost
 * (fixed part + pages x per-page part), at least enough pages that the fixed part is a
 * quarter of the write, WRITE_COST_FIRST_PAGES while nothing is learnt, half the largest
 * batch while the fixed part is unknown and the bound would shrink the batch, at most
 * WRITE_COST_GROWTH times the largest batch measured, never above cap and never 0.
 * bound_ns 0 (max-write-ms = 0): cap, the fixed batches of max-pages-per-batch.
 */
uint64_t write_cost_pages(const struct write_cost *c, uint64_t bound_ns, uint64_t cap);

/*
 * A write of pages (max_pages) took ns. With the previous sample of a size
 * WRITE_COST_FIT_SPREAD times apart, the two parts are fitted through both points (and
 * averaged with what was known). Otherwise the per-page part is learnt from what the write
 * took beyond the fixed part: it rises quickly (half way to a slower
 * sample: the bound matters more than throughput) and falls slowly (an eighth of the way:
 * a write that ran out of candidates early looks cheap per page), each sample first
 * clamped to [estimate / WRITE_COST_MAX_FALL, estimate * WRITE_COST_MAX_RISE].
 * pages 0 is ignored.
 */
void write_cost_learn(struct write_cost *c, uint64_t pages, uint64_t ns);

/*
 * A write of max_pages pages took ns of CPU: whether it found fewer than an eighth of them
 * to try, by the learnt per-page cost (the walk only makes a write look busier). Such a
 * write walked past every slot, so nothing is left for its step: where the kernel marks
 * failures, the step's candidates counted at its start were swapped in meanwhile, and the
 * writes that counted on them each cost a walk for nothing (measured on 6.12 in the first
 * minute after a burst: 8-16 writes of 0.022 s CPU at the end of each step). False while
 * less than WRITE_COST_FEW_MIN_NS is expected of the write, or it had fewer than
 * WRITE_COST_FEW_MIN_PAGES pages: too short to tell.
 */
bool write_cost_found_few(const struct write_cost *c, uint64_t pages, uint64_t ns);

#endif
