/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_MEMCG_H
#define ZRAM_RECOMPD_MEMCG_H

/*
 * Memory cgroups (v2, the unified hierarchy at sys/fs/cgroup beneath the root fd): the
 * figures of each cgroup with a memory limit (src/kernel/memcg.c). Every directory and file
 * is opened from the root fd down, one name at a time, O_NOFOLLOW|O_CLOEXEC. Functions
 * return 0 or -errno and never log.
 */

#include <stdbool.h>
#include <stdint.h>

/* One cgroup with a finite memory.max (bytes). */
struct memcg_info {
	const char *path; /* relative to sys/fs/cgroup, "system.slice/foo.service" */
	uint64_t max, current;
	uint64_t swap;	 /* memory.swap.current: of every swap area, not per device */
	bool swap_known; /* false: no memory.swap.current (swap accounting off) */
};

/* Walked at most this deep and this many cgroups: -E2BIG beyond. */
#define MEMCG_DEPTH_MAX 32
#define MEMCG_COUNT_MAX 65536u

/*
 * Call visit for every cgroup below sys/fs/cgroup (the root cgroup has no limit) whose
 * memory.max is a number. -ENOENT: no sys/fs/cgroup; 0 also where the memory controller
 * is nowhere enabled (no cgroup with memory.max). A cgroup removed during the walk is left
 * out.
 */
int memcg_walk(int root_fd, void (*visit)(void *ctx, const struct memcg_info *c), void *ctx);

#endif
