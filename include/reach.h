/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_REACH_H
#define ZRAM_RECOMPD_REACH_H
/*
 * What zram-recompd can do with a device on this kernel and setup, and, where it cannot
 * recompress, why and the fix: the one place the daemon, --once, status and the unit's
 * ExecCondition= (can-run) take it from, so that they say the same and the daemon never
 * promises a pass it will not run.
 *
 * Kernel shapes: Ubuntu builds zram without CONFIG_ZRAM_MULTI_COMP but with
 * WRITEBACK and ACTIME: writeback and compaction only, when writeback is configured.
 * Fedora has MULTI_COMP without WRITEBACK: recompression and compaction.
 */
#include "config.h"
#include "zram.h"

#include <stdbool.h>
#include <stddef.h>

/* Why a device is not recompressed (REACH_OK: it is). */
enum reach_limit {
	REACH_OK,
	REACH_NO_MULTI_COMP,   /* no recomp_algorithm attribute: kernel-wide, until a new kernel */
	REACH_NOT_INITIALIZED, /* no disksize yet: the secondaries are written before it */
	REACH_NO_SECONDARY,    /* initialized without one: fixed only by a reset (adopt) */
};

struct reach {
	enum reach_limit limit;
	bool recompress; /* a pass recompresses (limit == REACH_OK) */
	/* a pass writes back: writeback = yes, CONFIG_ZRAM_WRITEBACK, backing_dev set, initialized
	 */
	bool writeback;
	bool wb_configured; /* writeback = yes for the device */
};

/* Pure: d as probed, wb_configured = its writeback key. */
void reach_of(const struct zram_dev *d, bool wb_configured, struct reach *r);

/* Whether a pass runs at all (recompression, or writeback with compaction). */
bool reach_pass(const struct reach *r);

/*
 * Whether zram-recompd has anything to do with d (its configuration from cfg), now or once
 * it is set up: a pass runs, or
 * it is not initialized and either recompression or a configured backing device (written
 * before disksize) will be possible. False: --once exits 4, can-run skips the unit.
 */
bool reach_workable(const struct config *cfg, const struct zram_dev *d);

/* The setup tools found under the root (unit files and generators; read-only). */
enum {
	SETUP_ZRAM_GENERATOR = 1u << 0,
	SETUP_ZRAM_TOOLS = 1u << 1,	  /* Debian's zramswap.service */
	SETUP_ZRAM_CONFIG = 1u << 2,	  /* Ubuntu's zram-config.service */
	SETUP_GENERATOR_DROPIN = 1u << 3, /* systemd-zram-setup@.service.d/zram-recompd.conf */
	SETUP_ZRAMSWAP_DROPIN = 1u << 4,  /* zramswap.service.d/zram-recompd.conf */
};
unsigned reach_setup_tools(int root_fd);

/* The reason, one phrase ("this kernel lacks CONFIG_ZRAM_MULTI_COMP ..."); "" for REACH_OK. */
const char *reach_why(enum reach_limit limit);

/*
 * The fix for d, one line without the reason: the adopt command and, for later boots, the
 * drop-in of each setup tool found under root_fd (tools: reach_setup_tools()). "" when
 * there is none to give (REACH_OK, REACH_NOT_INITIALIZED) or nothing but a new kernel helps.
 */
void reach_fix(const struct zram_dev *d, enum reach_limit limit, unsigned tools, char *buf,
	       size_t size);

/* What a pass does: "recompression", "writeback and compaction only", "none" ... */
const char *reach_does(const struct reach *r);
/* The same for people: where nothing runs, what would ("nothing to do (writeback = yes ..."). */
const char *reach_rest(const struct zram_dev *d, const struct reach *r);

/*
 * For sd_notify STATUS: "" for a device that recompresses, else a short tag, e.g.
 * "cannot recompress: no secondary algorithm (zram-recompd adopt zram0)".
 */
void reach_tag(const struct reach *r, const char *name, char *buf, size_t size);

/*
 * Log what d cannot do and the fix, in one line: a warning when no pass runs, a notice when
 * writeback and compaction still do; nothing when it recompresses or waits for its setup.
 * The caller says it once (the daemon: when the device is found or its reach changes).
 */
void reach_log(int root_fd, const struct zram_dev *d, const struct reach *r);

/*
 * zram-recompd can-run, the units' ExecCondition=: 0 when the daemon has or may get work
 * (a kernel with CONFIG_ZRAM_MULTI_COMP, a device with writeback, no device yet, or a check
 * that could not be made), 1 when nothing is possible on this machine; the reason is
 * logged either way. Closes root_fd.
 */
int reach_can_run(int root_fd, const struct config *cfg);

/*
 * --once with devices = all: a set-up device that is not swap (/proc/swaps; a file system on
 * zram, say) and with which nothing can be done is not this program's to fix: a notice says
 * so and the device is skipped (true), not a failure. Swap, or /proc/swaps unreadable: false.
 */
bool reach_skip_foreign(int root_fd, const struct config *cfg, const struct zram_dev *d);

#endif
