// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel release (kver_parse, of proc/sys/kernel/osrelease up to its newline). A
 * release that parses prints as "MAJOR.MINOR.SUB", which parses to the same version and
 * compares equal with kver_ge().
 */
#include "fuzz.h"

#include "zram.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct kver v, again;
	char text[64];
	int r;

	s[strcspn(s, "\n")] = '\0'; /* as host_read_kver() */
	r = kver_parse(s, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(v.major >= 1 && v.major <= 100000);
		FUZZ_CHECK(v.minor <= 100000 && v.sub <= 100000);
		snprintf(text, sizeof(text), "%u.%u.%u", v.major, v.minor, v.sub);
		FUZZ_CHECK(kver_parse(text, &again) == 0);
		FUZZ_CHECK(again.major == v.major && again.minor == v.minor && again.sub == v.sub);
		FUZZ_CHECK(kver_ge(&v, v.major, v.minor, v.sub));
		FUZZ_CHECK(!kver_ge(&v, v.major, v.minor, v.sub + 1));
	}
	free(s);
	return 0;
}
