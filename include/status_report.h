/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_STATUS_REPORT_H
#define ZRAM_RECOMPD_STATUS_REPORT_H

#include "config.h"
#include "state.h"
#include "zram.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * The report of the `status` command: what each device holds and can do, as text or one
 * JSON object, with the daemon's persisted totals (state.h) when st is not NULL.
 * The text has a writeback line for devs[i] only when it has a backing device or
 * writeback = yes in its configuration cfg: a kernel without CONFIG_ZRAM_WRITEBACK is no
 * news where nobody asked for writeback. The JSON always has the "writeback" member (null
 * without CONFIG_ZRAM_WRITEBACK). A device that runs other secondaries than cfg asks for
 * gets config_algos_note()'s sentence (text: "configuration:", JSON: algorithms_differ).
 */
void status_print(FILE *f, int root_fd, const struct kver *kv, const char *release,
		  const struct zram_dev *devs, unsigned n, bool json, const struct state *st,
		  const struct config *cfg);

#endif
