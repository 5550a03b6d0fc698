// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The numeric attributes of a zram device, read by length: mm_stat (zram_parse_mm_stat) and
 * io_stat / bd_stat (zram_parse_fields, 4 and 3 columns). The input is the attribute's bytes
 * as read, NULs included. An mm_stat that parses is also n columns of numbers for every n up
 * to its field count, with the same values.
 */
#include "fuzz.h"

#include "zram.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct zram_mm_stat mm;
	uint64_t io[4], bd[3], f[MM_NR_FIELDS];
	int r, rio, rbd;

	r = zram_parse_mm_stat(s, size, &mm);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(mm.nfields >= 3 && mm.nfields <= MM_NR_FIELDS);
		FUZZ_CHECK(zram_parse_fields(s, size, f, mm.nfields) == 0);
		FUZZ_CHECK(memcmp(f, mm.v, mm.nfields * sizeof(f[0])) == 0);
	}
	rio = zram_parse_fields(s, size, io, 4);
	rbd = zram_parse_fields(s, size, bd, 3);
	FUZZ_CHECK(rio == 0 || rio == -EINVAL);
	FUZZ_CHECK(rbd == 0 || rbd == -EINVAL);
	/* Extra columns are ignored: four that parse are three that parse. */
	if (rio == 0) {
		FUZZ_CHECK(rbd == 0);
		FUZZ_CHECK(memcmp(io, bd, sizeof(bd)) == 0);
	}
	return 0;
}
