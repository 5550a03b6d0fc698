// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The size of a backing file and the free-space guard (include/backing.h), pure. The
 * numbers are ChromeOS's (swap_management, zram_writeback.cc): a file of 15% of the free
 * space, between 128 MiB and 6 GiB, and no writeback below 15% free. Saturating
 * arithmetic throughout: statfs figures of a huge filesystem must not wrap.
 */
#include "backing.h"

#include "util.h"

#include <errno.h>

/* pct percent of v, rounded down, without overflow for any 64-bit v. */
static uint64_t percent_of(uint64_t v, uint32_t pct)
{
	return v / 100 * pct + v % 100 * pct / 100;
}

int backing_size_rule(const struct cfg_share *size, const struct cfg_share *min_free,
		      const struct backing_fs *fs, uint64_t disksize, struct backing_size *ret)
{
	uint64_t want;

	if (size->percent) {
		want = percent_of(fs->avail, size->percent);
		if (want < BACKING_SHARE_MIN)
			want = BACKING_SHARE_MIN;
		if (want > BACKING_SHARE_MAX)
			want = BACKING_SHARE_MAX;
	} else {
		want = size->bytes;
	}
	/* more than disksize can never be written back: the rest would be wasted disk */
	if (disksize && want > disksize)
		want = disksize;
	want -= want % BACKING_ALIGN;
	ret->size = want;
	ret->min_free =
		min_free->percent ? percent_of(fs->total, min_free->percent) : min_free->bytes;
	ret->free_after = sat_sub_u64(fs->avail, want);
	if (want == 0)
		return -EINVAL;
	if (fs->avail < want || ret->free_after < ret->min_free)
		return -ENOSPC;
	return 0;
}

int backing_dm_name(unsigned id, char *buf, size_t size)
{
	return str_printf(buf, size, BACKING_DM_PREFIX "zram%u", id);
}
