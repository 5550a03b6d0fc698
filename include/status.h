/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_STATUS_H
#define ZRAM_RECOMPD_STATUS_H

#include "state.h"
#include "zram.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * `status`: what each device holds and can do, as text or one JSON object, with the
 * daemon's persisted totals when st is not NULL.
 */
void status_print(FILE *f, int root_fd, const struct kver *kv, const char *release,
		  const struct zram_dev *devs, unsigned n, bool json, const struct state *st);

#endif
