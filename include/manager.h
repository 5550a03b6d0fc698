/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_MANAGER_H
#define ZRAM_RECOMPD_MANAGER_H

/*
 * The daemon: an sd-event loop with a timer per device, signals (TERM/INT exit, HUP
 * reload), PSI trigger fds, kernel uevents for zram devices coming and going, the
 * systemd watchdog and sd_notify; the blocking kernel writes run in one worker thread.
 */

#include "config.h"

#include <stdbool.h>

struct manager_opts {
	/* What SIGHUP reloads: the same file, or the same search path, as at the start. */
	const struct config_source *config_src;
	const struct config_files *files; /* what was loaded at start: FILE:LINE in errors */
	int root_fd; /* sysfs root */
	bool no_sandbox; /* --no-sandbox: no Landlock even with sandbox = yes */
};

/*
 * The daemon's exit code when a zram device appeared that its Landlock sandbox, set up at
 * start, has no rule for: its state saved, it asks to be started again (EX_TEMPFAIL; the
 * unit's RestartForceExitStatus=).
 */
#define MANAGER_EXIT_RESTART 75

/*
 * Runs until SIGTERM/SIGINT (0) or a device that needs a restart (MANAGER_EXIT_RESTART).
 * Takes the already-loaded configuration. Returns an exit code.
 */
int manager_run(const struct manager_opts *opts, const struct config *cfg);

#endif
