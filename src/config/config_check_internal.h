/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_CONFIG_CHECK_INTERNAL_H
#define ZRAM_RECOMPD_CONFIG_CHECK_INTERNAL_H

/*
 * Between the parts of --check-config's checks: config_check.c (names, levels, priorities,
 * backing, devices, sections; the entry points) and config_check_effect.c (settings this
 * machine's kernel, page size or unit cannot honour). Not for other modules.
 */

#include "config_check.h"
#include "config_internal.h"

struct check {
	const struct config *c;
	const char *const *paths;
	unsigned n_paths;
	const struct check_machine *m; /* NULL: nothing known */
	struct cfg_sink errs, warns;
	bool daemon; /* config_check_effect(): warnings without "warning: ", run-time notes left out
		      */
};

/* One scope: [global], or a [zramN] section's effective settings. */
struct scope {
	const struct dev_config *eff;
	const char *label;	       /* "global", "zram3" */
	uint64_t set;		       /* the keys the scope sets itself: every key for [global] */
	const struct dev_section *sec; /* NULL for [global] */
};

/* "FILE:LINE: [warning: ]WHAT: message"; WHAT is "key 'NAME'" or "section [zramN]". */
void check_report(struct check *ck, bool warn, struct cfg_origin o, const char *what,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static inline struct cfg_origin check_origin(const struct dev_config *d, uint64_t bit)
{
	return d->origin[cfg_key_index(bit)];
}

/* The settings of scope s that this machine cannot honour, as warnings. */
void check_effect_scope(struct check *ck, const struct scope *s);
/* The same for [global]-only keys (metrics-file). */
void check_effect_global(struct check *ck);
/* For check_machine.metrics_dir: 1 when the directory of absolute path opens under root_fd
 * (symlinks followed inside it), else -errno. */
int check_metrics_dir(int root_fd, const char *path);

#endif
