/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_HISTORY_H
#define ZRAM_RECOMPD_HISTORY_H

/*
 * What every pass leaves behind, for the daemon and --once alike: its figures added to the
 * totals in the state directory (state.h) and, when metrics-file is set, the Prometheus
 * textfile. One code path, so that `status` and node_exporter see a timer-driven --once
 * exactly as they see a daemon pass. Used by main and manager; like them it logs its own
 * warnings (nothing here is fatal: without a state directory the totals are not kept).
 */

#include "pass.h"
#include "state.h"

#include <stdbool.h>
#include <stdint.h>

struct history {
	struct state st;
	int dir_fd; /* -1 until history_open() succeeds: totals not kept */
	char dir[STATE_DIR_MAX]; /* the state directory's path, for messages */
};

/*
 * Open (create) the state directory, remove temporary files an interrupted save left
 * there and next to metrics_file (may be empty), and load the totals. Warns on failure.
 */
void history_open(struct history *h, const char *metrics_file);

/*
 * A finished pass of device name added to its totals (kept in memory also without a state
 * directory: the daemon's writeback day budget needs them).
 */
void history_add(struct history *h, const char *name, const struct pass_summary *sum,
		 uint64_t new_incompressible, bool failed);

/*
 * Before a pass's writeback: its budget (pages) reserved from the device's day budget and the
 * state file saved at once (state_wb_reserve: a crash during the pass cannot exceed the day's
 * cap). Returns the pages reserved (0: no table entry). After the pass, history_wb_charge
 * with what it reserved and what it wrote back.
 */
uint64_t history_wb_reserve(struct history *h, const char *name, uint64_t pages,
			    uint32_t page_size, uint64_t per_day);
/* Pages (of page_size bytes) a pass wrote back, charged to the device's rolling 24 h budget
 * of per_day bytes (reserved: what history_wb_reserve took for it, returned as far as
 * unused). */
void history_wb_charge(struct history *h, const char *name, uint64_t reserved, uint64_t pages,
		       uint32_t page_size, uint64_t per_day);

/*
 * The writeback day budget left for device name (bytes), per_pass when the table is full.
 * *persisted: false when there is no state directory, so what earlier runs wrote is
 * unknown (only this process's own passes are counted).
 */
uint64_t history_wb_day_left(struct history *h, const char *name, uint64_t per_day,
			     uint64_t per_pass, bool *persisted);

/* Save the totals and write metrics_file (when not empty) with the live figures given. */
void history_write(const struct history *h, const char *metrics_file,
		   const struct dev_live *live, unsigned n_live);

void history_close(struct history *h);

#endif
