// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pages of a zram device for `advise --device` and advise_device() (include/advise_internal.h):
 * the device's primary, secondary list and counters through zram.h, a sample of the slots
 * that hold an object (block_state, through blockstate.h) or of all slots, and those slots'
 * pages read from /dev/zramN.
 */
#include "advise_internal.h"

#include "blockstate.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Slot indexes, reservoir-sampled to at most cap. */
struct slot_sample {
	struct adv_rng *rng;
	uint64_t *idx;
	uint64_t n, cap, seen;
};

/* bs_stored_fn: one stored slot from block_state. */
static void slot_offer(void *arg, uint64_t idx)
{
	struct slot_sample *s = arg;
	uint64_t pos = adv_reservoir_pos(s->rng, s->seen, s->cap);

	if (pos < s->cap)
		s->idx[pos] = idx;
	if (s->n < s->cap)
		s->n++;
	s->seen++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* --device zramN or /dev/zramN into di->id; 0 or the exit code 2. */
static int device_name(const struct adv_opts *o, struct adv_source *src, struct adv_dev_info *di)
{
	const char *name = o->device;

	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;
	if (!zram_name_valid(name) || zram_name_to_id(name, &di->id) < 0) {
		src->err = -EINVAL;
		adv_error(o, "advise: --device: not a zram device name: '%s'", o->device);
		return 2;
	}
	snprintf(src->name, sizeof(src->name), "zram%u", di->id);
	src->device = true;
	return 0;
}

/* An initialized device: its mm_stat and number of slots. */
static int device_state(const struct adv_opts *o, int root_fd, struct adv_source *src,
			struct adv_dev_info *di)
{
	uint64_t disksize;
	bool init;
	int r;

	r = zram_read_initstate(root_fd, di->id, &init);
	if (r == -ENOENT) {
		src->err = -ENODEV;
		adv_error(o, "advise: %s: no such device", src->name);
		return 1;
	}
	if (r < 0) {
		src->err = r;
		errno = -r;
		adv_error(o, "advise: %s: cannot read initstate: %m", src->name);
		return 1;
	}
	if (!init) {
		src->err = -ENODATA;
		adv_error(o, "advise: %s: device holds no data (not initialized)", src->name);
		return 1;
	}
	r = zram_read_mm_stat(root_fd, di->id, &src->now);
	if (r == 0)
		r = zram_read_disksize(root_fd, di->id, &disksize);
	if (r == 0)
		r = zram_read_page_size(root_fd, di->id, &src->page_size);
	if (r < 0) {
		src->err = r;
		errno = -r;
		adv_error(o, "advise: %s: cannot read mm_stat/disksize/page size: %m", src->name);
		return 1;
	}
	src->have_now = true;
	di->nslots = disksize / src->page_size;
	return 0;
}

/* The primary from comp_algorithm, into eff->primary. */
static int device_primary(const struct adv_opts *o, int root_fd, struct adv_opts *eff,
			  struct adv_source *src, const struct adv_dev_info *di)
{
	struct zram_algo_list comp;
	int r = zram_read_comp_algorithm(root_fd, di->id, &comp);

	if (r < 0 || comp.selected < 0) {
		src->err = r < 0 ? r : -EINVAL;
		adv_error(o, "advise: %s: cannot read comp_algorithm", src->name);
		return 1;
	}
	if (comp_parse_spec(comp.name[comp.selected], &eff->primary.algo, &eff->primary.level) <
	    0) {
		src->err = -EOPNOTSUPP;
		adv_error(o, "advise: %s: primary '%s' is not modelled; pass --primary", src->name,
			  comp.name[comp.selected]);
		return 1;
	}
	return 0;
}

/* The secondaries from recomp_algorithm into eff->chain; none there keeps eff's default. */
static int device_chain(const struct adv_opts *o, int root_fd, struct adv_opts *eff,
			struct adv_source *src, const struct adv_dev_info *di)
{
	struct zram_recomp list;

	/* Missing (no MULTI_COMP) or empty: keep the configuration default. */
	if (zram_read_recomp_algorithm(root_fd, di->id, &list) < 0 || list.count == 0)
		return 0;
	src->chain_from = "the device's recomp_algorithm";
	eff->nchain = 0;
	for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++) {
		struct adv_spec *sp = &eff->chain[eff->nchain];

		if (!list.set[p])
			continue;
		if (comp_parse_spec(list.name[p], &sp->algo, &sp->level) < 0) {
			src->err = -EOPNOTSUPP;
			adv_error(o, "advise: %s: secondary '%s' is not modelled; pass --chain",
				  src->name, list.name[p]);
			return 1;
		}
		eff->nchain++;
	}
	return 0;
}

int adv_device_config(const struct adv_opts *o, int root_fd, struct adv_opts *eff,
		      struct adv_source *src, struct adv_dev_info *di)
{
	uint64_t bd[3];
	int rc;

	rc = device_name(o, src, di);
	if (rc == 0)
		rc = device_state(o, root_fd, src, di);
	if (rc == 0 && !o->primary_set)
		rc = device_primary(o, root_fd, eff, src, di);
	if (rc == 0 && !o->chain_set)
		rc = device_chain(o, root_fd, eff, src, di);
	if (rc)
		return rc;

	/* Pages in zsmalloc: stored minus same-filled minus written back (bd_stat, if any:
	 * 4 KiB units, ZRAM_WB_UNIT). mm_stat's orig_data_size is bytes, same_pages pages. */
	src->pages = src->now.v[MM_ORIG_DATA_SIZE] / src->page_size;
	src->same_pages = src->now.v[MM_SAME_PAGES];
	if (zram_read_bd_stat(root_fd, di->id, bd) == 0)
		src->wb_pages = bd[0] / (src->page_size / ZRAM_WB_UNIT);
	di->stored = sat_sub_u64(sat_sub_u64(src->pages, src->same_pages), src->wb_pages);
	if (di->stored == 0) {
		src->err = -ENODATA;
		adv_error(o, "advise: %s: device holds no compressed pages", src->name);
		return 1;
	}
	return 0;
}

/* The slots to read, in index order: stored ones from block_state if it can be read. */
static void pick_slots(int root_fd, const struct adv_dev_info *di, struct slot_sample *ss,
		       struct adv_source *src)
{
	int r = blockstate_read_stored(root_fd, di->id, slot_offer, ss, NULL);

	if (r == 0 && ss->seen > 0) {
		src->block_state = true;
	} else {
		/* Selection sampling (Knuth's algorithm S): cap of nslots, in index order. */
		ss->n = 0;
		for (uint64_t t = 0; t < di->nslots && ss->n < ss->cap; t++)
			if (adv_rng_below(ss->rng, di->nslots - t) < ss->cap - ss->n)
				ss->idx[ss->n++] = t;
	}
	qsort(ss->idx, ss->n, sizeof(uint64_t), cmp_u64);
}

/* Read the picked slots into the engine; 0 or 1 (logged unless o->quiet). */
static int read_slots(const struct adv_opts *o, int fd, const struct slot_sample *ss, uint8_t *page,
		      struct adv_engine *e, struct adv_source *src)
{
	int r = 0;

	for (uint64_t i = 0; i < ss->n && r == 0; i++) {
		ssize_t n = zram_read_slot(fd, ss->idx[i], src->page_size, page);

		if (n != (ssize_t)src->page_size) {
			src->err = n < 0 ? (int)n : -EIO;
			errno = -src->err;
			if (n < 0)
				adv_error(o, "advise: %s: read of slot %" PRIu64 " failed: %m",
					  src->name, ss->idx[i]);
			else
				adv_error(o, "advise: %s: short read at slot %" PRIu64, src->name,
					  ss->idx[i]);
			return 1;
		}
		src->read++;
		r = adv_engine_add_page(e, page);
	}
	if (r == 0)
		r = adv_engine_flush(e);
	if (r < 0) {
		src->err = r;
		adv_error(o, "advise: %s: %s", src->name, adv_engine_strerror(r));
		return 1;
	}
	return 0;
}

int adv_device_sample(const struct adv_opts *o, int root_fd, struct adv_rng *rng,
		      const struct adv_dev_info *di, struct adv_engine *e, struct adv_source *src)
{
	uint64_t want = o->samples_set ? o->samples : ADV_DEFAULT_DEVICE_SAMPLES;
	struct slot_sample ss = {.rng = rng};
	uint8_t *page;
	int fd = -1, r, rc = 1;

	if (want == 0 || want > di->nslots)
		want = di->nslots;
	ss.cap = want;
	ss.idx = calloc(want ? want : 1, sizeof(uint64_t));
	page = aligned_alloc(src->page_size, src->page_size);
	if (!ss.idx || !page) {
		src->err = -ENOMEM;
		adv_error(o, "advise: out of memory");
		goto out;
	}
	pick_slots(root_fd, di, &ss, src);
	r = zram_open_slots(root_fd, di->id, &fd);
	if (r < 0) {
		src->err = r;
		errno = -r;
		adv_error(o, "advise: %s: cannot open /dev/%s: %m", src->name, src->name);
		goto out;
	}
	if (read_slots(o, fd, &ss, page, e, src))
		goto out;
	if (e->npages == 0) {
		src->err = -ENODATA;
		adv_error(o,
			  "advise: %s: no compressed page among %" PRIu64 " sampled slots; "
			  "try more --samples",
			  src->name, src->read);
		goto out;
	}
	src->represented = di->stored;
	src->sampled = e->npages;
	src->sampling = src->sampled != src->represented;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(page);
	free(ss.idx);
	return rc;
}
