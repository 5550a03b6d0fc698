/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_WB_HOLD_H
#define ZRAM_RECOMPD_WB_HOLD_H

/*
 * A pass's hold on a device's writeback_limit, recorded in the state directory while the
 * pass has the limit on (file "wb-hold.zramN"). The kernel keeps writeback_limit_enable
 * and writeback_limit across a crash of the daemon (and across a reset), so without this
 * record the next pass would take the limit a crashed pass left for another writer's and
 * stay within it for good. The record holds what the device had before the pass (another
 * writer's limit on, and what it had left) and the boot it belongs to: after a reboot the
 * kernel's values are new and the record is void.
 */

#include <stdbool.h>
#include <stdint.h>

/*
 * The record of device name (zramN) in directory dir_fd, for this boot (boot_id under
 * root_fd): 1 with *limited and *limit set, 0 without one (a record of another boot, or
 * one not understood, is removed), -errno.
 */
int wb_hold_load(int dir_fd, int root_fd, const char *name, bool *limited, uint64_t *limit);
/* (limit: whole pages of the device, as zram_read_writeback_limit() gives them; one boot
 * has one page size) */

/* Record what the device had before the pass (replacing the file whole). 0 or -errno. */
int wb_hold_save(int dir_fd, int root_fd, const char *name, bool limited, uint64_t limit);

/* The pass gave the limit back: the record goes. 0 (also when there was none) or -errno. */
int wb_hold_clear(int dir_fd, const char *name);

#endif
