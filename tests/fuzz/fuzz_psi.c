// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The first line of a PSI file (host_parse_psi_some_avg10: "some avg10=1.23 ..."). A value
 * that parses is 0..100.99 and prints back to the same value.
 */
#include "fuzz.h"

#include "host.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char text[64];
	int v, again, r;

	r = host_parse_psi_some_avg10(s, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(v >= 0 && v <= 10099);
		snprintf(text, sizeof(text), "some avg10=%d.%02d avg60=0.00 avg300=0.00 total=0\n",
			 v / 100, v % 100);
		FUZZ_CHECK(host_parse_psi_some_avg10(text, &again) == 0 && again == v);
	}
	free(s);
	return 0;
}
