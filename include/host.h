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

/*
 * Register a PSI trigger: "some <stall_us> <window_us>" written to proc/pressure/<resource>
 * ("memory" or "cpu"). The fd signals EPOLLPRI when the stall is exceeded within a window.
 */
int host_psi_trigger(int root_fd, const char *resource, unsigned stall_us, unsigned window_us,
		     int *ret_fd);

/* Kernel release from <root>/proc/sys/kernel/osrelease. */
int host_read_kver(int root_fd, struct kver *ret, char *release, size_t size);

/*
 * TRACK_ENTRY_ACTIME (6.8+) or MEMORY_TRACKING (6.2-6.7) from /proc/config.gz or
 * /boot/config-<release>: TRI_YES/TRI_NO, TRI_UNKNOWN when neither is readable.
 */
enum tri host_kconfig_idle_age(int root_fd, const struct kver *kv, const char *release);
/* One zram option (e.g. "CONFIG_ZRAM_MULTI_COMP") from the same kernel config, the same way. */
enum tri host_kconfig(int root_fd, const char *release, const char *opt);

/*
 * Whether <root>/proc/swaps lists the block device path dev ("/dev/zram1") as swap in use:
 * 1 yes, 0 no, -errno when it cannot be read (-EFBIG beyond 64 KiB).
 */
int host_swap_has(int root_fd, const char *dev);
/* MemTotal and MemAvailable (bytes) from <root>/proc/meminfo. */
int host_read_meminfo(int root_fd, uint64_t *ret_total, uint64_t *ret_available);
/*
 * The parsing part of host_read_meminfo(): len bytes of meminfo text, read by length (NUL
 * bytes end a line's text, not the input). -EINVAL without both lines or with MemTotal 0.
 */
int host_parse_meminfo(const char *text, size_t len, uint64_t *ret_total, uint64_t *ret_available);

#endif
