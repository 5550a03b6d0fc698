/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_STATE_H
#define ZRAM_RECOMPD_STATE_H

/*
 * Cumulative per-device accounting, persisted across restarts in the state directory
 * (state_dir_path() below) and optionally exported as a Prometheus textfile
 * (node_exporter's textfile collector).
 * Both files are written atomically: temporary file in the same directory, fsync,
 * rename, fsync of the directory. A corrupt or foreign state file is reported to the
 * caller (-EBADMSG) and replaced on the next save; it is never fatal.
 */

#include "zram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATE_DIR_DEFAULT "/var/lib/zram-recompd" /* the units' StateDirectory=zram-recompd */
#define STATE_DIR_MAX 4096			  /* PATH_MAX */

/*
 * The state directory, the same for every command (the daemon, --once, status, advise
 * --save), so that each reads what the daemon writes: override when not empty, else the
 * first entry of systemd_dirs (a colon-separated list) when not empty, else
 * STATE_DIR_DEFAULT. Either argument may be NULL. Copies the path into buf; returns 0 or
 * -ENAMETOOLONG.
 */
int state_dir_resolve(const char *override, const char *systemd_dirs, char *buf, size_t size);

/*
 * state_dir_resolve() of $ZRAM_RECOMPD_STATE_DIR and $STATE_DIRECTORY (set by systemd from
 * StateDirectory=); both are ignored in secure execution.
 */
int state_dir_path(char *buf, size_t size);

/* Open directory dir (after creating it, mode 0755, when create): a descriptor or -errno. */
int state_dir_open(const char *dir, bool create);

struct dev_totals {
	char name[16];		 /* "zramN" */
	uint64_t passes;	 /* completed passes */
	uint64_t pages_attempted; /* sum of max_pages written (the kernel reports no count) */
	uint64_t bytes_saved;	 /* compr_data_size reductions, summed (never negative) */
	uint64_t mem_freed;	 /* mem_used_total reductions incl. compaction, summed */
	uint64_t incompressible; /* pages newly marked incompressible, summed */
	uint64_t kernel_ns;	 /* time inside recompress/compact/idle writes */
	uint64_t errors;	 /* passes that ended with an error */
	uint64_t last_pass_unix; /* wall-clock seconds of the last pass, 0 = never */
	/* writeback (version 2) */
	uint64_t wb_pages;	 /* pages written back by the passes, summed (pages of the
				  * device's page size, like every page count here) */
	uint64_t wb_day_left;	 /* bytes left of writeback-bytes-per-day ... */
	uint64_t wb_day_at;	 /* ... as of this wall-clock second; 0 = never used (full) */
};

/*
 * The day budget of t now (policy_wb_refill: rolling 24 h), brought up to date in t.
 * Returns the bytes left.
 */
uint64_t state_wb_day_left(struct dev_totals *t, uint64_t per_day, uint64_t now_unix);
/* A pass wrote back pages of page_size bytes: the totals and the day budget (after
 * state_wb_day_left). */
void state_wb_charge(struct dev_totals *t, uint64_t pages, uint32_t page_size, uint64_t per_day,
		     uint64_t now_unix);
/*
 * Before a pass's writeback: its whole budget (pages) taken from the day budget, to be saved
 * before the first write, so that a crash between the kernel's write and the save after the
 * pass cannot give the same bytes again to the next run. state_wb_settle after the pass:
 * what was not written goes back (never above per_day), what was is added to wb_pages.
 */
void state_wb_reserve(struct dev_totals *t, uint64_t pages, uint32_t page_size, uint64_t per_day,
		      uint64_t now_unix);
void state_wb_settle(struct dev_totals *t, uint64_t reserved, uint64_t pages, uint32_t page_size,
		     uint64_t per_day, uint64_t now_unix);

/* Entries in the order added; any number (grown as needed). Zeroed = empty. */
struct state {
	unsigned n, cap;
	struct dev_totals *dev;
};

/* Free the entries; s is empty (zeroed) after. */
void state_free(struct state *s);

/* A finished pass added to a device's totals (figures never negative). */
void state_add_pass(struct dev_totals *t, uint64_t pages, int64_t saved, int64_t freed,
		    uint64_t new_incompressible, uint64_t kernel_ns, bool error, uint64_t now_unix);

/*
 * Entry for name, created (zeroed) when missing; NULL (errno ENOMEM, or EINVAL for an invalid
 * name) when it cannot be. Creating one moves the others: a pointer is good until the next
 * state_get(), state_load() or state_free().
 */
struct dev_totals *state_get(struct state *s, const char *name);

/*
 * Load dir/state into s, whatever s held (entries of a table loaded before are not freed:
 * state_free() it first). Missing file: empty state, 0. Corrupt/foreign content: empty
 * state, -EBADMSG. Other errors: -errno (state left empty). Free the result with
 * state_free().
 */
int state_load(struct state *s, int dir_fd);

/* Atomically replace dir/state. */
int state_save(const struct state *s, int dir_fd);

/*
 * Atomically replace dir/name (mode 0644) the way state_save() does; for other files of
 * the state directory (advice_store.h). dir_fd may be O_PATH.
 */
int state_write_file(int dir_fd, const char *name, const char *data, size_t len);

/*
 * Remove the temporary files "<name>.tmpXXXXXX" that an atomic replace of dir/name left
 * behind when the process was killed between creating and renaming them (regular files
 * only). For the start of the single writer of those files: a temp file of a save under
 * way elsewhere would be removed too. Returns how many were removed, or -errno.
 */
int state_remove_stale_temps(int dir_fd, const char *name);

/*
 * Read dir/name whole (not following a symlink, not blocking on a FIFO): -ENOENT when
 * missing, -EISDIR for a directory, -EBADMSG for another non-regular file or more than
 * max bytes. *ret_buf is malloc'd (free it) and not NUL-terminated.
 */
int state_read_file(int dir_fd, const char *name, size_t max, char **ret_buf, size_t *ret_len);

/*
 * Write the Prometheus text exposition of s (plus the live gauges given per device, may
 * be NULL) atomically to path (absolute; the directory must exist).
 */
struct dev_live {
	char name[16];
	uint64_t orig_data_size, compr_data_size, mem_used_total, huge_pages;
	uint64_t page_size; /* the device's page size: the unit of the pages figures */
	uint64_t incompressible; /* from block_state; UINT64_MAX = unknown */
	uint64_t longest_write_ns; /* of the last pass; UINT64_MAX = no pass yet */
	uint64_t bd_count, bd_writes; /* bd_stat (writeback) in pages; UINT64_MAX = none */
};
int metrics_write(const char *path, const struct state *s, const struct dev_live *live,
		  unsigned n_live);
/*
 * A device's live figures from its mm_stat (incompressible: UINT64_MAX = unknown); the
 * caller sets longest_write_ns after a pass (UINT64_MAX until then).
 */
void dev_live_fill(struct dev_live *l, const struct zram_dev *d, uint64_t incompressible);
/*
 * The directory of an absolute metrics path into dir (PATH_MAX bytes), *ret_base its file
 * name ("/x" lives in "/"). -EINVAL for a relative path or one ending in "/", "." or "..".
 */
int metrics_split_path(const char *path, char *dir, const char **ret_base);

/* state_remove_stale_temps() for the metrics file at path (absolute). */
int metrics_remove_stale_temps(const char *path);

#endif
