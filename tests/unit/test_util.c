// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * util.c: the byte formatter (both unit styles, the unit boundaries, counts of 2^63 and
 * above, negative counts down to INT64_MIN).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util.h"

#include <string.h>

static void test_format_bytes_iec(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(format_bytes(b, sizeof(b), 0, BYTES_IEC), "0 B");
	assert_string_equal(format_bytes(b, sizeof(b), 1023, BYTES_IEC), "1023 B");
	assert_string_equal(format_bytes(b, sizeof(b), 1024, BYTES_IEC), "1.0 KiB");
	assert_string_equal(format_bytes(b, sizeof(b), 1536, BYTES_IEC), "1.5 KiB");
	assert_string_equal(format_bytes(b, sizeof(b), 1048575, BYTES_IEC), "1024.0 KiB");
	assert_string_equal(format_bytes(b, sizeof(b), 1048576, BYTES_IEC), "1.0 MiB");
	assert_string_equal(format_bytes(b, sizeof(b), 11219763, BYTES_IEC), "10.7 MiB");
	assert_string_equal(format_bytes(b, sizeof(b), 1073741824, BYTES_IEC), "1.00 GiB");
	assert_string_equal(format_bytes(b, sizeof(b), 1342177280, BYTES_IEC), "1.25 GiB");
	/* 2^63 and UINT64_MAX: as large positive counts, not as negative int64_t. */
	assert_string_equal(format_bytes(b, sizeof(b), UINT64_C(1) << 63, BYTES_IEC),
			    "8589934592.00 GiB");
	assert_string_equal(format_bytes(b, sizeof(b), UINT64_MAX, BYTES_IEC),
			    "17179869184.00 GiB");
	/* The return value is the buffer. */
	assert_ptr_equal(format_bytes(b, sizeof(b), 5, BYTES_IEC), b);
}

static void test_format_bytes_mb(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(format_bytes(b, sizeof(b), 0, BYTES_MB), "0.0 MB");
	assert_string_equal(format_bytes(b, sizeof(b), 49999, BYTES_MB), "0.0 MB");
	assert_string_equal(format_bytes(b, sizeof(b), 1234567, BYTES_MB), "1.2 MB");
	assert_string_equal(format_bytes(b, sizeof(b), 4747264, BYTES_MB), "4.7 MB");
	assert_string_equal(format_bytes(b, sizeof(b), UINT64_C(1) << 63, BYTES_MB),
			    "9223372036854.8 MB");
}

static void test_format_bytes_signed(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(format_bytes_signed(b, sizeof(b), 0, BYTES_IEC), "0 B");
	assert_string_equal(format_bytes_signed(b, sizeof(b), -1, BYTES_IEC), "-1 B");
	assert_string_equal(format_bytes_signed(b, sizeof(b), -1536, BYTES_IEC), "-1.5 KiB");
	assert_string_equal(format_bytes_signed(b, sizeof(b), 1536, BYTES_IEC), "1.5 KiB");
	assert_string_equal(format_bytes_signed(b, sizeof(b), INT64_MAX, BYTES_IEC),
			    "8589934592.00 GiB");
	/* INT64_MIN has no positive int64_t counterpart. */
	assert_string_equal(format_bytes_signed(b, sizeof(b), INT64_MIN, BYTES_IEC),
			    "-8589934592.00 GiB");
	assert_string_equal(format_bytes_signed(b, sizeof(b), -229376, BYTES_MB), "-0.2 MB");
}

/* A buffer too small truncates (snprintf) instead of overrunning. */
static void test_format_bytes_small_buffer(void **state)
{
	char b[8];

	(void)state;
	memset(b, 'x', sizeof(b));
	format_bytes(b, 4, 123456789, BYTES_IEC);
	assert_string_equal(b, "117");
	assert_int_equal(b[4], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_bytes_iec),
		cmocka_unit_test(test_format_bytes_mb),
		cmocka_unit_test(test_format_bytes_signed),
		cmocka_unit_test(test_format_bytes_small_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
