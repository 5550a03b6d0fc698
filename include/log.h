/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_LOG_H
#define ZRAM_RECOMPD_LOG_H

/*
 * Logging for the upper layers only (main, manager, pass reporting). Lower layers
 * (sysfs, zram, blockstate, config parsers) return -errno and let the caller log once
 * with context.
 *
 * Under systemd (stderr is the journal, $JOURNAL_STREAM matches) every line gets an
 * sd-daemon "<N>" priority prefix; on a terminal it is plain "zram-recompd: level: msg".
 * The helpers keep errno unchanged, so "%m" and the caller's errno survive a log call.
 */

#include <errno.h>

enum log_level {
	LOG_LVL_ERR = 3,
	LOG_LVL_WARNING = 4,
	LOG_LVL_NOTICE = 5,
	LOG_LVL_INFO = 6,
	LOG_LVL_DEBUG = 7,
};

/* Messages above this level are dropped. Default LOG_LVL_INFO; -v raises it to DEBUG. */
void log_set_max_level(enum log_level lvl);
enum log_level log_get_max_level(void);

/* Re-evaluate whether stderr is the journal (call after fds are set up). */
void log_setup(void);

void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_LVL_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
