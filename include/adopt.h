/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_ADOPT_H
#define ZRAM_RECOMPD_ADOPT_H

/*
 * `zram-recompd adopt zramN`: give a zram swap device that is already in use the configured
 * secondary algorithms and levels, which the kernel accepts only before disksize, without a
 * reboot and without losing a page. The device is emptied with swapoff(2), reset, set up
 * again (same primary, disksize, mem_limit, backing device; the new secondaries) and swapped
 * on again with its priority; where memory cannot take its pages during the swapoff, a
 * temporary hot-added zram device takes them meanwhile; where neither is safe it refuses.
 *
 * This file: the pure parts (src/adopt/adopt.c): /proc/swaps parsing, the decision between
 * the plans from the figures, and the swap header. The execution is src/adopt/adopt_run.c.
 */

#include "config.h"
#include "zram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of a refusal (zram-recompd(8), EXIT STATUS). */
#define ADOPT_EXIT_REFUSED 5

/* One line of /proc/swaps. Sizes in bytes (the file counts KiB). */
struct swap_entry {
	char path[128];
	bool is_zram; /* /dev/zramN */
	unsigned zram_id;
	uint64_t size, used;
	int prio;
};

#define SWAPS_MAX 32

/*
 * /proc/swaps text (len bytes): every line after the header, up to max; paths with
 * characters the kernel escapes (octal \040 ...) are kept as written. Returns the count or
 * -EINVAL for a line that is not "PATH TYPE SIZE USED PRIO".
 */
int adopt_parse_swaps(const char *text, size_t len, struct swap_entry *ret, unsigned max);

/* What the decision takes (bytes unless said otherwise). */
struct adopt_figures {
	uint64_t swap_used;	  /* the device's Used in /proc/swaps: what swapoff brings in */
	uint64_t pool;		  /* mm_stat mem_used_total: the pages' memory, compressed */
	uint64_t written_back;	  /* bd_stat bd_count: pages on the backing device, in bytes */
	uint64_t mem_available;	  /* /proc/meminfo MemAvailable */
	uint64_t other_swap_free; /* free space on the other active swap areas, zram excepted */
	bool can_hot_add;	  /* sys/class/zram-control/hot_add exists */
	/*
	 * The memory cgroup (v2) with the least room for its pages in swap (memcg.h). swapoff
	 * reads every page back and charges it to the cgroup that swapped it out (6.12:
	 * mm/swapfile.c unuse_pte_range -> swapin_readahead -> mem_cgroup_swapin_charge_folio),
	 * and a cgroup at its memory.max reclaims or OOM-kills inside itself, whatever
	 * MemAvailable says. memcg_swap: its memory.swap.current, of every swap area (the kernel
	 * counts per cgroup, not per device), at most swap_used; memcg_room: memory.max less
	 * memory.current. memcg_name "": no such cgroup (none limited with pages in swap, or no
	 * cgroup v2 memory controller); memcg_unknown: the cgroups could not be read.
	 */
	char memcg_name[96];
	uint64_t memcg_swap, memcg_room;
	bool memcg_unknown;
};

enum adopt_kind {
	ADOPT_DIRECT,	/* plan A: swapoff, reconfigure, swapon */
	ADOPT_VIA_TEMP, /* plan B: through a temporary zram device */
	ADOPT_REFUSE,
};

/* One plan's arithmetic: it is safe when available >= needed + margin. */
struct adopt_check {
	uint64_t needed, margin, available;
	bool ok;
};

struct adopt_plan {
	enum adopt_kind kind;
	struct adopt_check direct, via_temp;
	struct adopt_check memcg; /* the direct plan's cgroup: ok when none (memcg_name "") */
};

/* The fixed part of the margin: see adopt_margin(). */
#define ADOPT_MARGIN_FIXED (64ull << 20)

/*
 * The margin kept free above what a plan needs: a quarter of it plus 64 MiB. MemAvailable is
 * the kernel's estimate, not a promise: part of the page cache and slab it counts may not be
 * reclaimable, and the workloads keep allocating while swapoff runs (it takes seconds per
 * 100 MiB). 64 MiB is about the kernel's own reserve (min_free_kbytes, which it sizes as
 * 4 * sqrt(lowmem KiB): 64 MiB at 256 GiB of RAM), that no allocation of ours may eat into.
 * Saturating.
 */
uint64_t adopt_margin(uint64_t needed);

/* The fixed part of a cgroup's margin: see adopt_memcg_margin(). */
#define ADOPT_MEMCG_MARGIN_FIXED (16ull << 20)

/*
 * The margin a cgroup keeps below its memory.max above what swapoff charges it: a quarter
 * of it plus 16 MiB, as its tasks keep allocating while swapoff runs (a cgroup's limit has
 * no reserve of its own: at the limit it reclaims, then kills). Saturating.
 */
uint64_t adopt_memcg_margin(uint64_t charged);

/*
 * Choose the plan. Plan A (direct) needs the device's swapped pages uncompressed in
 * MemAvailable plus the free space of the other swap areas (zram ones excepted: their free
 * space is paid from the same memory), and, in the memory cgroup with the least room, its
 * pages in swap plus adopt_memcg_margin() below its memory.max (none when the cgroups
 * could not be read: memcg_unknown). Plan B takes no such figure: the pages swapoff charges
 * to a cgroup at its limit are swapped out again by the cgroup's own reclaim, to the
 * temporary device, so they stay in swap. Plan B (through a temporary device) needs the pages
 * compressed once more, in MemAvailable alone: the pool's memory, plus what the backing device
 * holds (it comes back into memory; its compressed size is unknown, so counted uncompressed),
 * as the old pool may stay allocated until its device is reset. force_temp: plan B or
 * nothing (tests, and an admin who wants the swap never to leave zram).
 */
void adopt_decide(const struct adopt_figures *f, bool force_temp, struct adopt_plan *ret);

/*
 * A swap header (version 1, as mkswap(8) writes it and the kernel reads it: union swap_header
 * of include/linux/swap.h) for a device of size bytes, into page (page_size bytes): bootbits
 * zeroed, version 1, last_page = size / page_size - 1, no bad pages, uuid and label (16 bytes
 * each), "SWAPSPACE2" in the last 10 bytes. -EINVAL when size holds fewer than 2 pages, more
 * than 2^32 pages, or page_size is not a power of two from 4096 to 65536.
 */
int adopt_build_swap_header(void *page, size_t page_size, uint64_t size, const uint8_t uuid[16],
			    const uint8_t label[16]);
/*
 * The uuid and label of a version 1 swap header, to keep them (fstab's UUID=, LABEL=).
 * -EINVAL when page is no such header.
 */
int adopt_parse_swap_header(const void *page, size_t page_size, uint8_t uuid[16],
			    uint8_t label[16]);
/* Turn 16 random bytes into a version 4 UUID (RFC 9562: version and variant bits). */
void adopt_uuid_v4(uint8_t uuid[16]);
/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (37 bytes with the NUL). */
void adopt_format_uuid(const uint8_t uuid[16], char out[37]);

/* The figures and the verdict, one line each, prefixed "NAME: " (stdout, and refusals). */
void adopt_print_figures(FILE *f, const char *name, const struct adopt_figures *fig,
			 const struct adopt_plan *p);

/*
 * One adoption, gathered by adopt_main (src/adopt/adopt_run.c) and carried out by adopt_execute
 * (src/adopt/adopt_exec.c; the unit tests call it on a fake root with swapon/swapoff wrapped).
 */
struct adopt_job {
	int root_fd;
	bool dry_run;
	FILE *out; /* the steps, "NAME: STEP" ("NAME: would STEP" under --dry-run) */
	struct kver kv;
	enum tri kconf;		/* host_kconfig_idle_age, for the probes after reset */
	struct zram_dev dev;	/* as probed before anything changed */
	struct dev_config cfg;	/* the device's effective configuration, auto resolved */
	struct swap_entry swap; /* its /proc/swaps line: the priority swapon restores */
	struct adopt_figures fig;
	struct adopt_plan plan;
	uint64_t mem_limit;    /* mm_stat mem_limit (bytes; 0 none): written again after reset */
	char backing_dev[128]; /* "" none; kept: written again before disksize */
	uint8_t uuid[16], label[16]; /* of the header: the old one's, or a new UUID */
	bool uuid_kept;
	size_t page_size;
	unsigned reset_tries; /* EBUSY right after swapoff: tries 100 ms apart (50) */
	int wb_compressed;    /* compressed_writeback before (7.0+): 0, 1, -1 unknown */
	int signal;	      /* set by adopt_execute: a stop signal it held back, or 0 */
};

/*
 * Carry out job->plan.kind (ADOPT_DIRECT or ADOPT_VIA_TEMP). Every step is printed to
 * job->out; under dry_run nothing is written. Returns 0, or -errno after logging what
 * failed and where the device's pages are.
 *
 * The invariant: a device that was swap before is swap after it (or the temporary device
 * holding its pages is), whatever fails; a state where it is not is said in one line with
 * the commands that finish the job. Fallbacks, in turn: set up as it was (no secondaries),
 * then without its backing device (after the swapoff no page is on it).
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT (and the terminal's stop signals) are held back for
 * the whole run, SIGPIPE ignored (a dropped SSH session): one that arrives before the first
 * swapoff stops it there with nothing changed, later ones once the device is swap again;
 * job->signal names it (adopt exits 128 + its number).
 */
int adopt_execute(struct adopt_job *job);

/* `zram-recompd [OPTIONS] adopt [--dry-run] [--via-temp] zramN` (argv[0] is "adopt"). */
int adopt_main(int argc, char **argv, int root_fd, const struct config *cfg);

#endif
