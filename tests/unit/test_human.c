// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * human.c: sizes (every unit boundary, one decimal, counts of 2^63 and above, negative
 * counts down to INT64_MIN), durations (each unit, the second unit dropped when zero, what
 * is below two units rounded down), percentages, the reading of a value written to an
 * attribute, and truncation into a small buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "human.h"

#include <string.h>

static void test_bytes(void **state)
{
	char b[HUMAN_LEN];

	(void)state;
	assert_string_equal(human_bytes(b, sizeof(b), 0), "0 B");
	assert_string_equal(human_bytes(b, sizeof(b), 1023), "1023 B");
	assert_string_equal(human_bytes(b, sizeof(b), 1024), "1.0 KiB");
	assert_string_equal(human_bytes(b, sizeof(b), 1536), "1.5 KiB");
	/* the unit follows the count, not the rounded figure */
	assert_string_equal(human_bytes(b, sizeof(b), 1048575), "1024.0 KiB");
	assert_string_equal(human_bytes(b, sizeof(b), 1048576), "1.0 MiB");
	/* status and advise print the same 30,300,000 bytes the same way */
	assert_string_equal(human_bytes(b, sizeof(b), 30300000), "28.9 MiB");
	assert_string_equal(human_bytes(b, sizeof(b), 57967000), "55.3 MiB");
	assert_string_equal(human_bytes(b, sizeof(b), UINT64_C(1) << 30), "1.0 GiB");
	/* one decimal in GiB too, as in every unit */
	assert_string_equal(human_bytes(b, sizeof(b), 1342177280), "1.2 GiB");
	assert_string_equal(human_bytes(b, sizeof(b), (UINT64_C(1) << 40) - 1), "1024.0 GiB");
	assert_string_equal(human_bytes(b, sizeof(b), UINT64_C(1) << 40), "1.0 TiB");
	assert_string_equal(human_bytes(b, sizeof(b), UINT64_C(3) << 39), "1.5 TiB");
	/* TiB is the largest unit; 2^63 and UINT64_MAX are large counts, not negative */
	assert_string_equal(human_bytes(b, sizeof(b), UINT64_C(1) << 63), "8388608.0 TiB");
	assert_string_equal(human_bytes(b, sizeof(b), UINT64_MAX), "16777216.0 TiB");
	assert_ptr_equal(human_bytes(b, sizeof(b), 5), b);
}

static void test_bytes_signed(void **state)
{
	char b[HUMAN_LEN];

	(void)state;
	assert_string_equal(human_bytes_signed(b, sizeof(b), 0), "0 B");
	assert_string_equal(human_bytes_signed(b, sizeof(b), -1), "-1 B");
	assert_string_equal(human_bytes_signed(b, sizeof(b), -1536), "-1.5 KiB");
	assert_string_equal(human_bytes_signed(b, sizeof(b), 1536), "1.5 KiB");
	assert_string_equal(human_bytes_signed(b, sizeof(b), -229376), "-224.0 KiB");
	assert_string_equal(human_bytes_signed(b, sizeof(b), INT64_MAX), "8388608.0 TiB");
	/* INT64_MIN has no positive int64_t counterpart */
	assert_string_equal(human_bytes_signed(b, sizeof(b), INT64_MIN), "-8388608.0 TiB");
}

static void test_duration(void **state)
{
	char b[HUMAN_LEN];

	(void)state;
	assert_string_equal(human_duration(b, sizeof(b), 0), "0 s");
	assert_string_equal(human_duration(b, sizeof(b), 1), "1 s");
	assert_string_equal(human_duration(b, sizeof(b), 59), "59 s");
	assert_string_equal(human_duration(b, sizeof(b), 60), "1 min");
	assert_string_equal(human_duration(b, sizeof(b), 90), "1 min 30 s");
	assert_string_equal(human_duration(b, sizeof(b), 3599), "59 min 59 s");
	assert_string_equal(human_duration(b, sizeof(b), 3600), "1 h");
	/* the default idle age: the dry-run's "'14400' to idle (4 h)" */
	assert_string_equal(human_duration(b, sizeof(b), 14400), "4 h");
	assert_string_equal(human_duration(b, sizeof(b), 5400), "1 h 30 min");
	/* below the two largest units: left out */
	assert_string_equal(human_duration(b, sizeof(b), 3601), "1 h");
	assert_string_equal(human_duration(b, sizeof(b), 3661), "1 h 1 min");
	assert_string_equal(human_duration(b, sizeof(b), 86399), "23 h 59 min");
	assert_string_equal(human_duration(b, sizeof(b), 86400), "1 d");
	assert_string_equal(human_duration(b, sizeof(b), 86400 + 59 * 60), "1 d");
	assert_string_equal(human_duration(b, sizeof(b), 2 * 86400 + 3 * 3600 + 7), "2 d 3 h");
	assert_string_equal(human_duration(b, sizeof(b), 604800), "7 d");
	assert_string_equal(human_duration(b, sizeof(b), UINT64_MAX), "213503982334601 d 7 h");
	assert_true(strlen(b) < HUMAN_LEN);
}

/* The raw count stays first (scripts compare it); the reading follows from a minute on. */
static void test_seconds(void **state)
{
	char b[HUMAN_LEN];

	(void)state;
	assert_string_equal(human_seconds(b, sizeof(b), 0), "0 s");
	assert_string_equal(human_seconds(b, sizeof(b), 59), "59 s");
	assert_string_equal(human_seconds(b, sizeof(b), 60), "60 s (1 min)");
	assert_string_equal(human_seconds(b, sizeof(b), 14400), "14400 s (4 h)");
	assert_string_equal(human_seconds(b, sizeof(b), 5400), "5400 s (1 h 30 min)");
	assert_string_equal(human_seconds(b, sizeof(b), UINT64_MAX),
			    "18446744073709551615 s (213503982334601 d 7 h)");
}

static void test_percent(void **state)
{
	char b[HUMAN_LEN];

	(void)state;
	assert_string_equal(human_percent(b, sizeof(b), 0, 100), "0.0%");
	assert_string_equal(human_percent(b, sizeof(b), 1, 8), "12.5%");
	assert_string_equal(human_percent(b, sizeof(b), 187, 1000), "18.7%");
	assert_string_equal(human_percent(b, sizeof(b), 3, 3), "100.0%");
	assert_string_equal(human_percent(b, sizeof(b), -13, 100), "-13.0%");
	/* no whole: no division by zero */
	assert_string_equal(human_percent(b, sizeof(b), 5, 0), "0.0%");
}

static void test_attr_note(void **state)
{
	char b[HUMAN_LEN];

	(void)state;
	assert_string_equal(human_attr_note(b, sizeof(b), "idle", "14400"), " (4 h)");
	assert_string_equal(human_attr_note(b, sizeof(b), "idle", "90"), " (1 min 30 s)");
	assert_string_equal(human_attr_note(b, sizeof(b), "idle", "all"), "");
	assert_string_equal(human_attr_note(b, sizeof(b), "disksize", "1073741824"), " (1.0 GiB)");
	/* writeback_limit counts 4 KiB units */
	assert_string_equal(human_attr_note(b, sizeof(b), "writeback_limit", "2048"), " (8.0 MiB)");
	assert_string_equal(human_attr_note(b, sizeof(b), "writeback_limit", "0"), " (0 B)");
	/* no unit, or not a plain number: nothing to add */
	assert_string_equal(human_attr_note(b, sizeof(b), "compact", "1"), "");
	assert_string_equal(human_attr_note(b, sizeof(b), "writeback_limit_enable", "1"), "");
	assert_string_equal(
		human_attr_note(b, sizeof(b), "recompress", "type=idle priority=1 max_pages=64"),
		"");
	assert_string_equal(human_attr_note(b, sizeof(b), "idle", "-5"), "");
	assert_string_equal(human_attr_note(b, sizeof(b), NULL, "5"), "");
}

/* A buffer too small truncates (snprintf) instead of overrunning. */
static void test_small_buffer(void **state)
{
	char b[8];

	(void)state;
	memset(b, 'x', sizeof(b));
	human_bytes(b, 4, 123456789);
	assert_string_equal(b, "117");
	assert_int_equal(b[4], 'x');
	memset(b, 'x', sizeof(b));
	human_duration(b, 4, 5400);
	assert_string_equal(b, "1 h");
	assert_int_equal(b[4], 'x');
	memset(b, 'x', sizeof(b));
	human_attr_note(b, 3, "idle", "14400");
	assert_string_equal(b, " (");
	assert_int_equal(b[3], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),	     cmocka_unit_test(test_bytes_signed),
		cmocka_unit_test(test_duration),     cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_percent),	     cmocka_unit_test(test_attr_note),
		cmocka_unit_test(test_small_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
