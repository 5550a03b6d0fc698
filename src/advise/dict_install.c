// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * advise --dict-install zramN: the trained dictionary and its prediction into the
 * memory-backed directory of dict_apply.h, where --once and adopt look for them. The
 * directory is made (mode 0700) and checked like the reader checks it: a real directory of
 * root, writable by nobody else, on tmpfs or ramfs, so that the dictionary (fragments of
 * process memory) never reaches persistent storage in clear text.
 */
#include "advise_internal.h"
#include "dict_apply.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The prediction as dict_pred_parse() reads it. */
static void pred_of(const struct adv_dict_report *dr, struct dict_pred *p)
{
	const struct dict_variant *best = dr->dec.best >= 0 ? &dr->var[dr->dec.best] : NULL;

	memset(p, 0, sizeof(*p));
	p->known = true;
	p->recommend = dr->dec.recommend;
	p->mask = best ? best->mask : 0;
	for (unsigned i = 0; i < dr->nprio && i < DICT_NPRIO; i++) {
		if (dr->prio[i].algo != COMP_ZSTD)
			continue;
		p->zstd[i] = true;
		p->level[i] = comp_effective_level(COMP_ZSTD, dr->prio[i].level);
	}
	if (best && dr->without.mem_bytes)
		(void)snprintf(p->net, sizeof(p->net), "%.1f",
			       100.0 * (double)best->net / (double)dr->without.mem_bytes);
	if (best && dr->represented_bytes)
		(void)snprintf(p->per_byte, sizeof(p->per_byte), "%.4f",
			       (double)best->mem_bytes / (double)dr->represented_bytes);
}

int adv_dict_install(const char *dev, struct adv_dict_report *dr)
{
	char name[64], line[DICT_LINE_MAX], why[192];
	const char *dir = dict_dir_path();
	struct dict_pred p;
	int dfd, r;

	dfd = dict_dir_open(dir, true, why, sizeof(why));
	if (dfd < 0) {
		log_error("advise: --dict-install: %s: %s; nothing installed", dir, why);
		return 1;
	}
	pred_of(dr, &p);
	r = dict_pred_format(&p, line, sizeof(line));
	/* the prediction first: a dictionary is never there without the one it was made with */
	(void)snprintf(name, sizeof(name), "%s%s", dev, DICT_PRED_EXT);
	if (r == 0)
		r = dict_store(dfd, name, line, strlen(line));
	if (r == 0) {
		(void)snprintf(name, sizeof(name), "%s%s", dev, DICT_EXT);
		r = dict_store(dfd, name, dr->d.buf, dr->d.size);
	}
	close(dfd);
	if (r < 0) {
		log_error("advise: --dict-install: %s/%s: %s", dir, name, strerror(-r));
		return 1;
	}
	dr->installed = dev;
	return 0;
}
