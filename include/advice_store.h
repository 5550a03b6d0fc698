/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_ADVICE_STORE_H
#define ZRAM_RECOMPD_ADVICE_STORE_H

/*
 * The stored result of `advise` per device, for recompress-algorithms = auto: the advice
 * file, its place in the state directory, and the rule that turns it into a secondary list.
 * (The advisor that computes it is advise.h, src/advise/.)
 *
 * Secondary algorithms can only be set before disksize, when the device holds no data to
 * advise on. So the advice is computed on a device that holds data (by the daemon or --once
 * at most once per advise-interval-sec, or by `advise --device zramN --save`), stored in the
 * state directory as the file "advice", and applied the next time that device is set up
 * (normally the next boot). The file is written atomically like the state file (state.h).
 *
 * File format, version 1 (every line ends in '\n', single spaces):
 *
 *	zram-recompd-advice 1
 *	zram0 time=UNIX primary=lzo-rle chain=zstd:9,deflate pays=1 pool=N saving=N samples=N
 *
 * chain: the recommended secondaries in priority order, "name" or "name:level" (the level
 * only when it is not the kernel's default). pool: predicted pool bytes with the primary
 * alone; saving: predicted pool bytes saved by the chain after compaction (0 when it does
 * not save). Every key exactly once, in any order; a file with anything else is rejected
 * as a whole (-EBADMSG): advice is a cache, so ignoring it is always safe.
 */

#include "config.h"

#include <stdbool.h>
#include <stdint.h>

#define ADVICE_FILE "advice"

struct advice_entry {
	char name[16]; /* zramN */
	uint64_t time; /* wall-clock seconds when it was computed */
	char primary[CFG_ALGO_NAME_MAX];
	unsigned n; /* secondaries, 1..CFG_MAX_ALGOS */
	char algo[CFG_MAX_ALGOS][CFG_ALGO_NAME_MAX];
	bool has_level[CFG_MAX_ALGOS];
	int level[CFG_MAX_ALGOS];
	bool pays;	  /* the saving passed advise's 2% bar */
	uint64_t pool;	  /* predicted pool bytes, primary alone */
	uint64_t saving;  /* predicted pool bytes saved */
	uint64_t samples; /* compressed pages it was computed from */
};

/* Entries in the order added; any number (grown as needed). Zeroed = empty. */
struct advice_set {
	unsigned n, cap;
	struct advice_entry *dev;
};

/* Free the entries; s is empty (zeroed) after. */
void advice_free(struct advice_set *s);

/*
 * Load dir/advice into s, whatever s held (entries loaded before are not freed: advice_free()
 * it first). Missing file: empty set, 0. Corrupt or foreign: empty set, -EBADMSG. Other
 * errors: -errno (set left empty). Free the result with advice_free().
 */
int advice_load(struct advice_set *s, int dir_fd);

/* Atomically replace dir/advice (dir_fd may be O_PATH). -EINVAL for an invalid entry. */
int advice_save(const struct advice_set *s, int dir_fd);

/* The entry for name, or NULL. */
const struct advice_entry *advice_find(const struct advice_set *s, const char *name);

/*
 * Replace the entry of e->name or add it. -EINVAL invalid entry, -ENOMEM. Adding one moves
 * the others (pointers from advice_find() are stale).
 */
int advice_put(struct advice_set *s, const struct advice_entry *e);

/*
 * Load, put, save: one device's advice replaces its old one, the others are kept. A corrupt
 * file is replaced (its other entries are lost).
 */
int advice_update(int dir_fd, const struct advice_entry *e);

/* Chain as written in the file ("zstd:9,deflate"). -ENOBUFS when buf is too small. */
int advice_format_chain(const struct advice_entry *e, char *buf, size_t size);

enum advice_use {
	ADVICE_NOT_AUTO,      /* recompress-algorithms is a list: nothing to do */
	ADVICE_USED,	      /* the list (and levels) come from the advice */
	ADVICE_MISSING,	      /* no advice for this device: the fallback list */
	ADVICE_OTHER_PRIMARY, /* advice for another primary algorithm: the fallback list */
};

/*
 * Resolve recompress-algorithms = auto for a device whose primary algorithm is primary:
 * *ret is cfg with the secondary list and levels of a (may be NULL) when a matches the
 * primary, else cfg unchanged (its list is the fallback, CFG_AUTO_FALLBACK). Pure.
 */
enum advice_use advice_apply(const struct dev_config *cfg, const struct advice_entry *a,
			     const char *primary, struct dev_config *ret);

/*
 * advice_apply() with the advice for name loaded from dir_fd (-1: none). why gets one line
 * for the log ("advice of 2026-01-02 applied: zstd:9 (saves 3.4 MiB of 13.5 MiB)", "no
 * advice yet: zstd"). A file that cannot be read counts as no advice; its error is in why.
 */
enum advice_use advice_resolve(const struct dev_config *cfg, int dir_fd, const char *name,
			       const char *primary, struct dev_config *ret, char *why,
			       size_t why_size);

/*
 * Whether a refresh is due at wall-clock time now: auto, advise-interval-sec > 0, and the
 * stored advice (a, may be NULL) older than the interval or computed for another primary.
 */
bool advice_due(const struct dev_config *cfg, const struct advice_entry *a, const char *primary,
		uint64_t now);

#endif
