/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_HOST_H
#define ZRAM_RECOMPD_HOST_H

/* What the daemon's policy needs to know about the machine (not about zram). */

#include "zram.h"

/*
 * PSI "some avg10" of proc/pressure/<resource> in percent x 100 (e.g. 12.34 -> 1234).
 * -ENOENT without PSI (CONFIG_PSI off or psi=0).
 */
int host_psi_some_avg10(int root_fd, const char *resource, int *ret_x100);

/* Parse the first line of a PSI file: "some avg10=1.23 avg60=... total=...". */
int host_parse_psi_some_avg10(const char *text, int *ret_x100);

/*
 * From sys/class/power_supply/ *: TRI_YES when there are mains supplies and none is
 * online (running on battery), TRI_NO when one is online or there are none at all
 * (a desktop or server without supplies is not on battery).
 */
enum tri host_on_battery(int root_fd);

#endif
