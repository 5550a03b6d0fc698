// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * comp_algorithm and recomp_algorithm listings (zram_parse_algo_list,
 * zram_parse_recomp_listing), read by length with the NUL runs of 6.17+. What parses must
 * hold only valid names, and a comp_algorithm list printed back the way the kernel prints it
 * must parse to the same list.
 */
#include "fuzz.h"

#include "zram.h"

#include <errno.h>

static void check_list(const struct zram_algo_list *l)
{
	FUZZ_CHECK(l->n <= ZRAM_MAX_AVAIL);
	FUZZ_CHECK(l->selected >= -1 && l->selected < (int)l->n);
	for (unsigned i = 0; i < l->n; i++) {
		FUZZ_CHECK(zram_algo_name_valid(l->name[i]));
		FUZZ_CHECK(zram_algo_list_has(l, l->name[i]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct zram_algo_list l, again;
	struct zram_recomp rc;
	char text[ZRAM_MAX_AVAIL * (ZRAM_ALGO_MAX + 3) + 2];
	size_t off = 0;
	int r;

	r = zram_parse_algo_list(s, size, &l);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		check_list(&l);
		/* "lzo-rle lzo [zstd] \n", as the kernel prints it */
		for (unsigned i = 0; i < l.n; i++)
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						(int)i == l.selected ? "[%s] " : "%s ", l.name[i]);
		off += (size_t)snprintf(text + off, sizeof(text) - off, "\n");
		FUZZ_CHECK(off < sizeof(text));
		FUZZ_CHECK(zram_parse_algo_list(text, off, &again) == 0);
		FUZZ_CHECK(again.n == l.n && again.selected == l.selected);
		FUZZ_CHECK(memcmp(again.name, l.name, sizeof(l.name[0]) * l.n) == 0);
	}

	r = zram_parse_recomp_listing(s, size, &rc);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		unsigned count = 0, highest = 0;

		for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++) {
			if (!rc.set[p])
				continue;
			count++;
			highest = p;
			FUZZ_CHECK(zram_algo_name_valid(rc.name[p]));
			/* found at p, or at a lower priority holding the same name */
			FUZZ_CHECK(zram_recomp_find(&rc, rc.name[p]) >= 1 &&
				   zram_recomp_find(&rc, rc.name[p]) <= p);
		}
		FUZZ_CHECK(!rc.set[0]);
		FUZZ_CHECK(count == rc.count && highest == rc.highest);
		FUZZ_CHECK(rc.gap == (rc.count != rc.highest));
		if (rc.count) {
			check_list(&rc.avail);
			FUZZ_CHECK(rc.avail.selected >= 0);
		}
	}
	return 0;
}
