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
#include <stdbool.h>
#include <stdint.h>

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

/*
 * The summary line of a finished pass. Under systemd it goes to the journal with fields
 * (MESSAGE_ID, ZRAM_DEVICE, ZRAM_SAVED_BYTES, ZRAM_FREED_BYTES, ZRAM_KERNEL_SECONDS,
 * ZRAM_LONGEST_WRITE_SECONDS, ZRAM_PASS_RESULT), so that `journalctl -u zram-recompd ZRAM_DEVICE=zram0` finds a
 * device's passes; on a terminal it is the plain line.
 */
struct log_pass_fields {
	const char *device;
	int64_t saved, freed; /* bytes */
	uint64_t kernel_ns;
	uint64_t longest_write_ns; /* the longest single recompress write */
	bool failed; /* "pass failed" rather than "pass finished" */
};
#define LOG_MESSAGE_ID_PASS_FINISHED "259d1e18c4e64a0f9f3dfa58a4558ee4"
#define LOG_MESSAGE_ID_PASS_FAILED "e8f500946cae4105b920aae42e463f09"
void log_pass(const struct log_pass_fields *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_LVL_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
