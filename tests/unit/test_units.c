// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/config/units.c (sizes and durations in configuration values) and
 * str_edit_distance() of src/base/util.c (the "did you mean" of an unknown key). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>

#include "units.h"
#include "util.h"

static uint64_t ok(const char *s, enum unit u)
{
	uint64_t v = 12345;
	int r = units_parse(s, u, &v);

	if (r != 0)
		fail_msg("'%s': %d", s, r);
	return v;
}

static void bad(const char *s, enum unit u, int want)
{
	uint64_t v = 12345;

	assert_int_equal(units_parse(s, u, &v), want);
	assert_int_equal(v, 12345); /* untouched */
}

static void test_plain_numbers(void **state)
{
	/* A plain number keeps its meaning in every unit, exactly as parse_u64 reads it. */
	for (enum unit u = UNIT_NONE; u <= UNIT_USEC; u++) {
		assert_int_equal(ok("0", u), 0);
		assert_int_equal(ok("007", u), 7);
		assert_int_equal(ok("18446744073709551615", u), UINT64_MAX);
		bad("18446744073709551616", u, -ERANGE);
		bad("", u, -EINVAL);
		bad("-1", u, -EINVAL);
		bad("+1", u, -EINVAL);
		bad(" 1", u, -EINVAL);
	}
	bad("1K", UNIT_NONE, -EINVAL);
	bad("1s", UNIT_NONE, -EINVAL);
}

static void test_sizes(void **state)
{
	assert_int_equal(ok("1K", UNIT_BYTES), 1024);
	assert_int_equal(ok("1KiB", UNIT_BYTES), 1024);
	assert_int_equal(ok("64M", UNIT_BYTES), 64 << 20);
	assert_int_equal(ok("64 MiB", UNIT_BYTES), 64 << 20);
	assert_int_equal(ok("1G", UNIT_BYTES), UINT64_C(1) << 30);
	assert_int_equal(ok("2T", UNIT_BYTES), UINT64_C(2) << 40);
	assert_int_equal(ok("1P", UNIT_BYTES), UINT64_C(1) << 50);
	assert_int_equal(ok("512B", UNIT_BYTES), 512);
	/* A fraction rounds down to whole bytes, as systemd's parse_size(). */
	assert_int_equal(ok("1.5G", UNIT_BYTES), UINT64_C(3) << 29);
	assert_int_equal(ok("0.1K", UNIT_BYTES), 102);
	assert_int_equal(ok("0.0000000001K", UNIT_BYTES), 0);
	assert_int_equal(ok("16383P", UNIT_BYTES), UINT64_C(16383) << 50);
	bad("16384P", UNIT_BYTES, -ERANGE);
	bad("1.5", UNIT_BYTES, -EINVAL); /* a fraction of a byte */
	bad("1k", UNIT_BYTES, -EINVAL);
	bad("1KB", UNIT_BYTES, -EINVAL);
	bad("1E", UNIT_BYTES, -EINVAL);
	bad("K", UNIT_BYTES, -EINVAL);
	bad("1.K", UNIT_BYTES, -EINVAL);
	bad(".5K", UNIT_BYTES, -EINVAL);
	bad("1K 1M", UNIT_BYTES, -EINVAL);
	bad("1s", UNIT_BYTES, -EINVAL);
}

static void test_durations(void **state)
{
	assert_int_equal(ok("90s", UNIT_SEC), 90);
	assert_int_equal(ok("5min", UNIT_SEC), 300);
	assert_int_equal(ok("5m", UNIT_SEC), 300);
	assert_int_equal(ok("1h", UNIT_SEC), 3600);
	assert_int_equal(ok("1d", UNIT_SEC), 86400);
	assert_int_equal(ok("1w", UNIT_SEC), 604800);
	assert_int_equal(ok("2 hours", UNIT_SEC), 7200);
	assert_int_equal(ok("1h 30min", UNIT_SEC), 5400);
	assert_int_equal(ok("1h30min", UNIT_SEC), 5400);
	assert_int_equal(ok("0.5h", UNIT_SEC), 1800);
	assert_int_equal(ok("3000ms", UNIT_SEC), 3);
	assert_int_equal(ok("1s", UNIT_MSEC), 1000);
	assert_int_equal(ok("250ms", UNIT_MSEC), 250);
	assert_int_equal(ok("1.5s", UNIT_MSEC), 1500);
	assert_int_equal(ok("150ms", UNIT_USEC), 150000);
	assert_int_equal(ok("10us", UNIT_USEC), 10);
	assert_int_equal(ok("1s", UNIT_USEC), 1000000);
	/* Not a whole number of the key's unit. */
	bad("1500ms", UNIT_SEC, -EDOM);
	bad("1us", UNIT_MSEC, -EDOM);
	bad("0.5us", UNIT_USEC, -EDOM);
	/* A bare number only as the whole value; no unknown or ambiguous units. */
	bad("1h 30", UNIT_SEC, -EINVAL);
	bad("1 month", UNIT_SEC, -EINVAL);
	bad("1y", UNIT_SEC, -EINVAL);
	bad("1H", UNIT_SEC, -EINVAL);
	bad("h", UNIT_SEC, -EINVAL);
	bad("1K", UNIT_SEC, -EINVAL);
	bad("-1s", UNIT_SEC, -EINVAL);
	bad("99999999999999w", UNIT_SEC, -ERANGE);
	bad("18446744073709551615us 1us", UNIT_USEC, -ERANGE);
}

/*
 * A fraction times its suffix is computed without a 128-bit product (32-bit targets have
 * none: units.c splits the multiplier by the fraction's scale). The largest fractions and
 * multipliers, checked against exact values (Python: 999999999 * 2**50 // 10**9).
 */
static void test_fraction_edges(void **state)
{
	assert_int_equal(ok("0.999999999P", UNIT_BYTES), UINT64_C(1125899905716724));
	assert_int_equal(ok("0.123456789P", UNIT_BYTES), UINT64_C(138999987234189));
	/* The 10th digit and later do not count (MAX_FRAC_DIGITS). */
	assert_int_equal(ok("0.9999999999P", UNIT_BYTES), UINT64_C(1125899905716724));
	/* The largest value with a fraction that fits: 16383 P plus the above. */
	assert_int_equal(ok("16383.999999999P", UNIT_BYTES), UINT64_C(18446744073708425716));
	assert_int_equal(ok("0.5P", UNIT_BYTES), UINT64_C(1) << 49);
	assert_int_equal(ok("0.000000001G", UNIT_BYTES), 1);
	assert_int_equal(ok("0.99999999w", UNIT_USEC), UINT64_C(604799993952));
	/* Exactness: 0.999999999 w is 604799999999999.4 us; 0.000001 s is 1 us. */
	bad("0.999999999w", UNIT_USEC, -EDOM);
	assert_int_equal(ok("0.000001s", UNIT_USEC), 1);
	bad("0.0000001s", UNIT_USEC, -EDOM);
	assert_int_equal(ok("0.000000005w", UNIT_USEC), 3024);
}

static void test_hints(void **state)
{
	assert_string_equal(units_name(UNIT_SEC), "seconds");
	assert_string_equal(units_name(UNIT_NONE), "");
	assert_string_equal(units_hint(UNIT_NONE), "a decimal number");
}

/* Values as an admin writes them, read back to the same number. */
static void test_format(void **state)
{
	static const struct {
		uint64_t v;
		enum unit u;
		const char *want;
	} cases[] = {
		{0, UNIT_BYTES, "0"},
		{3700, UNIT_BYTES, "3700"},
		{4096, UNIT_BYTES, "4K"},
		{UINT64_C(134217728), UNIT_BYTES, "128M"},
		{UINT64_C(1) << 30, UNIT_BYTES, "1G"},
		{(UINT64_C(1) << 30) + 1024, UNIT_BYTES, "1048577K"},
		{UINT64_C(1) << 50, UNIT_BYTES, "1P"},
		{14400, UNIT_SEC, "4h"},
		{129600, UNIT_SEC, "1d 12h"},
		{5400, UNIT_SEC, "1h 30min"},
		{31536000, UNIT_SEC, "365d"},
		{61, UNIT_SEC, "1min 1s"},
		{150000, UNIT_USEC, "150ms"},
		{1500, UNIT_MSEC, "1s 500ms"},
		{86400, UNIT_NONE, "86400"},
		{UINT64_MAX, UNIT_SEC, "18446744073709551615"},
	};
	char buf[UNITS_FMT_LEN];
	uint64_t back;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(units_format(buf, sizeof(buf), cases[i].v, cases[i].u),
				    cases[i].want);
		assert_int_equal(units_parse(buf, cases[i].u, &back), 0);
		assert_true(back == cases[i].v);
	}
}

static void test_edit_distance(void **state)
{
	assert_int_equal(str_edit_distance("", ""), 0);
	assert_int_equal(str_edit_distance("zstd", "zstd"), 0);
	assert_int_equal(str_edit_distance("zsdt", "zstd"), 2);
	assert_int_equal(str_edit_distance("compat", "compact"), 1);
	assert_int_equal(str_edit_distance("compactt", "compact"), 1);
	assert_int_equal(str_edit_distance("lz4", "lz4hc"), 2);
	assert_int_equal(str_edit_distance("", "abc"), 3);
	assert_int_equal(str_edit_distance("abc", ""), 3);
	assert_int_equal(str_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(
		str_edit_distance(
			"x", "0123456789012345678901234567890123456789012345678901234567890123"),
		UINT_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_numbers),  cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_fraction_edges), cmocka_unit_test(test_durations),
		cmocka_unit_test(test_hints),	       cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
