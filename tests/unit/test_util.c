// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/util.c: the JSON string escaper (moved here from the status report). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

static char *json_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	json_print_string(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* status --json carries kernel strings: quotes, backslashes and control bytes escaped. */
static void test_json_print_string(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"", "\"\""},
		{"zstd", "\"zstd\""},
		{"a\"b\\c", "\"a\\\"b\\\\c\""},
		{"tab\there\nnl\x1f", "\"tab\\u0009here\\u000anl\\u001f\""},
		{"\x7f\xc3\xa9", "\"\x7f\xc3\xa9\""}, /* DEL and UTF-8 pass through */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = json_of(cases[i].in);

		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_print_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
