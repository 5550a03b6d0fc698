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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_full_pieces),
		cmocka_unit_test(test_pread_full),
		cmocka_unit_test(test_json_print_string),
		cmocka_unit_test(test_array_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
