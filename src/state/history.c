// SPDX-License-Identifier: GPL-2.0-or-later
#include "history.h"

#include "advice_store.h"
#include "log.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void remove_stale(int dir_fd, const char *dir, const char *name)
{
	int r = state_remove_stale_temps(dir_fd, name);

	if (r > 0)
		log_info("%s/%s: removed %d temporary file%s left by an interrupted save", dir,
			 name, r, r == 1 ? "" : "s");
	else if (r < 0)
		log_warning("%s: cannot remove temporary files of %s: %s", dir, name,
			    strerror(-r));
}

void history_open(struct history *h, const char *metrics_file)
{
	int r;

	h->dir_fd = -1;
	r = state_dir_path(h->dir, sizeof(h->dir));
	if (r == 0)
		r = state_dir_open(h->dir, true);
	if (r < 0) {
		log_warning("state directory %s: %s; totals are not kept",
			    r == -ENAMETOOLONG ? "(path too long)" : h->dir, strerror(-r));
	} else {
		h->dir_fd = r;
		/* Left by a save that a kill -9 or a crash cut short: nothing else writes here. */
		remove_stale(h->dir_fd, h->dir, "state");
		remove_stale(h->dir_fd, h->dir, ADVICE_FILE);
		r = state_load(&h->st, h->dir_fd);
		if (r == -EBADMSG)
			log_warning("%s/state: unreadable or foreign content; starting from zero, "
				    "it will be replaced",
				    h->dir);
		else if (r < 0 && r != -ENOENT)
			log_warning("%s/state: %s; starting from zero", h->dir, strerror(-r));
	}
	if (metrics_file && *metrics_file) {
		r = metrics_remove_stale_temps(metrics_file);
		if (r > 0)
			log_info("metrics-file %s: removed %d temporary file%s left by an "
				 "interrupted write",
				 metrics_file, r, r == 1 ? "" : "s");
		else if (r < 0 && r != -ENOENT)
			log_warning("metrics-file %s: cannot remove stale temporary files: %s",
				    metrics_file, strerror(-r));
	}
}

void history_add(struct history *h, const char *name, const struct pass_summary *sum,
		 uint64_t new_incompressible, bool failed)
{
	struct dev_totals *t = state_get(&h->st, name);

	if (t)
		state_add_pass(t, sum->pages, sum->saved, sum->freed, new_incompressible,
			       sum->kernel_ns, failed, (uint64_t)time(NULL));
}

uint64_t history_wb_reserve(struct history *h, const char *name, uint64_t pages,
			    uint32_t page_size, uint64_t per_day)
{
	struct dev_totals *t = state_get(&h->st, name);
	int r;

	if (!t || pages == 0)
		return 0;
	state_wb_reserve(t, pages, page_size, per_day, (uint64_t)time(NULL));
	if (h->dir_fd >= 0) {
		r = state_save(&h->st, h->dir_fd);
		if (r < 0)
			log_warning("%s/state: cannot save the writeback reservation: %s", h->dir,
				    strerror(-r));
	}
	return pages;
}

void history_wb_charge(struct history *h, const char *name, uint64_t reserved, uint64_t pages,
		       uint32_t page_size, uint64_t per_day)
{
	struct dev_totals *t = state_get(&h->st, name);

	if (t)
		state_wb_settle(t, reserved, pages, page_size, per_day, (uint64_t)time(NULL));
}

uint64_t history_wb_day_left(struct history *h, const char *name, uint64_t per_day,
			     uint64_t per_pass, bool *persisted)
{
	struct dev_totals *t = state_get(&h->st, name);

	*persisted = h->dir_fd >= 0;
	return t ? state_wb_day_left(t, per_day, (uint64_t)time(NULL)) : per_pass;
}

void history_write(const struct history *h, const char *metrics_file,
		   const struct dev_live *live, unsigned n_live)
{
	int r;

	if (h->dir_fd >= 0) {
		r = state_save(&h->st, h->dir_fd);
		if (r < 0)
			log_warning("%s/state: cannot save: %s", h->dir, strerror(-r));
	}
	if (metrics_file && *metrics_file) {
		r = metrics_write(metrics_file, &h->st, live, n_live);
		if (r < 0)
			log_warning("metrics-file %s: %s", metrics_file, strerror(-r));
	}
}

void history_close(struct history *h)
{
	if (h->dir_fd >= 0)
		close(h->dir_fd);
	h->dir_fd = -1;
	state_free(&h->st);
}
