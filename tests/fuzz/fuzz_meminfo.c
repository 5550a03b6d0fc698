// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proc/meminfo (host_parse_meminfo, by length). What parses has a MemTotal above 0, and
 * the same text with a NUL-padded tail or without its bytes past the input gives the same.
 */
#include "fuzz.h"

#include "host.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t total, avail, t2, a2;
	char *padded;
	int r;

	r = host_parse_meminfo((const char *)data, size, &total, &avail);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0)
		FUZZ_CHECK(total > 0);
	/* "\n\0\0\0" after the text: one more empty line and a line of NULs, nothing new. */
	padded = malloc(size + 4);
	if (!padded)
		abort();
	memcpy(padded, data, size);
	memcpy(padded + size, "\n\0\0\0", 4);
	FUZZ_CHECK(host_parse_meminfo(padded, size + 4, &t2, &a2) == r);
	FUZZ_CHECK(r != 0 || (t2 == total && a2 == avail));
	free(padded);
	return 0;
}
