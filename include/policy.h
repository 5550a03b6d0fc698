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

/*
 * Idle age from memory utilisation, as ChromeOS and Android do:
 *   age = min + (max - min) * e^(-5 * util),  util = 1 - MemAvailable / MemTotal
 * Full memory → ages near min (recompress sooner); empty memory → near max. Returns 0
 * ("all") when max is 0. Without meminfo (total == 0) the result is max.
 */
uint64_t policy_idle_age(uint64_t min_sec, uint64_t max_sec, uint64_t mem_total,
			 uint64_t mem_available);

/* Pool fragmentation in per mille: (mem_used_total - compr_data_size) / mem_used_total. */
unsigned policy_fragmentation_permille(const struct zram_mm_stat *mm);

/*
 * Compaction after the passes. auto: when fragmentation is at least frag_permille
 * (default POLICY_COMPACT_FRAG_PERMILLE), or when the pass saved at least min_saved bytes
 * of compressed data (min_saved 0 = that rule off). Measured: a fresh lzo-rle pool is at ~50 per mille from
 * size-class rounding alone; after recompression it was 190, after compaction 55).
 */
#define POLICY_COMPACT_FRAG_PERMILLE 100
bool policy_should_compact(enum compact_mode mode, const struct zram_mm_stat *after,
			   unsigned frag_permille, uint64_t saved, uint64_t min_saved);

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
 * After one batch: progress means compr_data_size or huge_pages went down, or (when
 * block_state is read) slots got newly marked recompressed or incompressible; the
 * kernel reports no count of its own.
 */
bool policy_batch_progress(const struct zram_mm_stat *before, const struct zram_mm_stat *after,
			   uint64_t marks_before, uint64_t marks_after);
enum batch_verdict policy_batch_next(const struct batch_state *st, bool progress);

/* The max_pages= for the next batch: min(batch, budget left), never 0 (0 means "nothing"). */
uint64_t policy_batch_pages(const struct batch_state *st, uint64_t max_pages_per_batch);

#endif
