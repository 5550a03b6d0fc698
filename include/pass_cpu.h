/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_PASS_CPU_H
#define ZRAM_RECOMPD_PASS_CPU_H

/*
 * Where a pass's CPU goes: the CPU time of the thread that runs the pass (the daemon's
 * worker, or --once's only thread), by what it was spent on. Wall time is what a write
 * makes a reader or SIGTERM wait; CPU time is what it takes from the workload. On a busy
 * machine the two part: a recompress write preempted by the workload (the kernel's walk
 * reschedules between slots) takes longer on the wall for the same work. Measured with
 * CLOCK_THREAD_CPUTIME_ID around each kernel write and block_state read; the rest (mm_stat
 * reads, the daemon's own computing, reclaim the kernel did for the thread's allocations)
 * is the pass's thread CPU (RUSAGE_THREAD) less those parts.
 */

#include <stdint.h>

enum pass_cpu_kind {
	PASS_CPU_RECOMPRESS,
	PASS_CPU_IDLE, /* idle marks */
	PASS_CPU_BLOCK_STATE,
	PASS_CPU_COMPACT,
	PASS_CPU_WRITEBACK, /* writeback and its limit, batch size */
	PASS_CPU_NR,
};

struct pass_cpu {
	uint64_t ns[PASS_CPU_NR];
	uint64_t user_ns, sys_ns; /* the whole pass (RUSAGE_THREAD); 0 when unreadable */
};

/* The calling thread's CPU time now (ns; 0 if the clock cannot be read). */
uint64_t pass_cpu_now(void);
/* Add the thread's CPU since t0 (a pass_cpu_now value) to kind; returns that delta. */
uint64_t pass_cpu_add(enum pass_cpu_kind kind, uint64_t t0);
/* The delta of the last pass_cpu_add on this thread (one write's CPU). */
uint64_t pass_cpu_last_ns(void);
/* The kind of a write to this attribute (recompress, idle, compact, writeback ...). */
enum pass_cpu_kind pass_cpu_kind_of(const char *attr);
/* Start counting for one pass on this thread (the previous counts are dropped). */
void pass_cpu_begin(void);
/* The counts since pass_cpu_begin on this thread. */
void pass_cpu_end(struct pass_cpu *out);
/* CPU the thread spent in the kernel outside the measured parts (sys - parts, >= 0). */
uint64_t pass_cpu_other_sys(const struct pass_cpu *c);

#endif
