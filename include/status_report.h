/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_STATUS_REPORT_H
#define ZRAM_RECOMPD_STATUS_REPORT_H

#include "state.h"
#include "zram.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * The report of the `status` command: what each device holds and can do, as text or one
 * JSON object, with the daemon's persisted totals (state.h) when st is not NULL.
 * The text has a writeback line for devs[i] only when it has a backing device or
 * conf[i].wb_configured (conf may be NULL): a kernel without CONFIG_ZRAM_WRITEBACK is no
 * news where nobody asked for writeback. The JSON always has the "writeback" member (null
 * without CONFIG_ZRAM_WRITEBACK).
 */
struct status_conf {
	bool wb_configured;   /* writeback = yes in the device's configuration */
	char algos_note[512]; /* config_algos_note(): its secondaries are not the configured */
};
void status_print(FILE *f, int root_fd, const struct kver *kv, const char *release,
		  const struct zram_dev *devs, unsigned n, bool json, const struct state *st,
		  const struct status_conf *conf);

#endif
