// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * util.c: read_full()/pread_full() (reads that come in pieces, end of file, errors with the
 * bytes read so far) and the JSON string escaper. The byte formatter is in test_human.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A pipe delivers what was written in pieces: read_full() keeps reading to len or EOF. */
static void test_read_full_pieces(void **state)
{
	char buf[16];
	size_t n = 99;
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(write(p[1], "abc", 3), 3);
	assert_int_equal(write(p[1], "defgh", 5), 5);
	assert_int_equal(read_full(p[0], buf, 6, &n), 0);
	assert_int_equal(n, 6);
	assert_memory_equal(buf, "abcdef", 6);
	close(p[1]);
	/* Fewer bytes than asked: the end of the file. */
	assert_int_equal(read_full(p[0], buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(buf, "gh", 2);
	assert_int_equal(read_full(p[0], buf, sizeof(buf), &n), 0);
	assert_int_equal(n, 0);
	close(p[0]);
	/* An error is -errno, with nothing read. */
	assert_int_equal(read_full(p[0], buf, sizeof(buf), &n), -EBADF);
	assert_int_equal(n, 0);
}

static void test_pread_full(void **state)
{
	char path[] = "/tmp/test_util.XXXXXX", buf[8];
	size_t n = 99;
	int fd;

	(void)state;
	fd = mkostemp(path, O_CLOEXEC);
	assert_true(fd >= 0);
	(void)unlink(path);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	assert_int_equal(pread_full(fd, buf, 4, 3, &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "3456", 4);
	/* The file position is not used or moved. */
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 10);
	assert_int_equal(pread_full(fd, buf, 8, 7, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pread_full(fd, buf, 8, 10, &n), 0);
	assert_int_equal(n, 0);
	/* Offsets off_t cannot hold are refused before the call. */
	assert_int_equal(pread_full(fd, buf, 8, UINT64_MAX, &n), -EINVAL);
	assert_int_equal(n, 0);
	assert_int_equal(pread_full(fd, buf, 8, (uint64_t)INT64_MAX - 7, &n), -EINVAL);
	close(fd);
	assert_int_equal(pread_full(fd, buf, 8, 0, &n), -EBADF);
}

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

/* array_reserve: room for one more, first size when empty, doubled when full. */
static void test_array_reserve(void **state)
{
	void *v = NULL;
	unsigned cap = 0, n;

	(void)state;
	assert_int_equal(array_reserve(&v, &cap, 0, sizeof(int), 4), 0);
	assert_non_null(v);
	assert_int_equal(cap, 4);
	for (n = 0; n < 4; n++)
		((int *)v)[n] = (int)n;
	/* not full: nothing changes */
	assert_int_equal(array_reserve(&v, &cap, 3, sizeof(int), 4), 0);
	assert_int_equal(cap, 4);
	/* full: doubled, the contents kept */
	assert_int_equal(array_reserve(&v, &cap, 4, sizeof(int), 4), 0);
	assert_int_equal(cap, 8);
	for (n = 0; n < 4; n++)
		assert_int_equal(((int *)v)[n], (int)n);
	/* past what an unsigned count can double to: refused, array kept */
	cap = UINT_MAX / 2 + 1;
	assert_int_equal(array_reserve(&v, &cap, cap, sizeof(int), 4), -ENOMEM);
	assert_int_equal(cap, UINT_MAX / 2 + 1);
	free(v);
}

/*
 * mul_u64_hi: the high half of a 64x64 product without __int128 (armhf has none). Edge cases
 * with known results, every power of two (a * 2^k >> 64 is a >> (64 - k)), and, where the
 * compiler has __int128, a pseudo-random sweep against it.
 */
static void test_mul_u64_hi(void **state)
{
	const uint64_t a = UINT64_C(0x9e3779b97f4a7c15);

	assert_int_equal(mul_u64_hi(0, UINT64_MAX), 0);
	assert_int_equal(mul_u64_hi(UINT64_MAX, 1), 0);
	assert_int_equal(mul_u64_hi(UINT64_MAX, UINT64_MAX), UINT64_MAX - 1);
	assert_int_equal(mul_u64_hi(UINT64_C(1) << 32, UINT64_C(1) << 32), 1);
	assert_int_equal(mul_u64_hi(UINT64_C(1) << 63, 2), 1);
	assert_int_equal(mul_u64_hi(UINT64_MAX, UINT64_C(1) << 32), UINT32_MAX);
	/* (2^33 - 1)^2 = 2^66 - 2^34 + 1: the middle column's carries reach the high half. */
	assert_int_equal(mul_u64_hi(UINT64_C(0x1ffffffff), UINT64_C(0x1ffffffff)), 3);
	/* 0xffffffff * 0xffffffff twice in the middle column: (2^64-1)(2^32+1) >> 64 = 2^32. */
	assert_int_equal(mul_u64_hi(UINT64_MAX, UINT64_C(0x100000001)), UINT64_C(0x100000000));
	for (unsigned k = 1; k < 64; k++)
		assert_int_equal(mul_u64_hi(a, UINT64_C(1) << k), a >> (64 - k));
#ifdef __SIZEOF_INT128__
	uint64_t x = 1, y = 7;

	for (int i = 0; i < 100000; i++) {
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		y ^= y << 13, y ^= y >> 7, y ^= y << 17;
		assert_int_equal(mul_u64_hi(x, y), (uint64_t)(((unsigned __int128)x * y) >> 64));
	}
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_full_pieces),
		cmocka_unit_test(test_pread_full),
		cmocka_unit_test(test_json_print_string),
		cmocka_unit_test(test_array_reserve),
		cmocka_unit_test(test_mul_u64_hi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
