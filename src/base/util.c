// SPDX-License-Identifier: GPL-2.0-or-later
#include "util.h"

#include <ctype.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int parse_u64(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s || !*s || *s == '\n')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return -ERANGE;
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_u64_text(const char *s, size_t len, uint64_t *ret)
{
	char tok[32];
	size_t a = 0, b = len;

	/* sysfs text: surrounding whitespace and NUL padding are not part of the value. */
	while (a < b && (s[a] == '\0' || isspace((unsigned char)s[a])))
		a++;
	while (b > a && (s[b - 1] == '\0' || isspace((unsigned char)s[b - 1])))
		b--;
	if (b == a || b - a >= sizeof(tok) || memchr(s + a, '\0', b - a))
		return -EINVAL;
	memcpy(tok, s + a, b - a);
	tok[b - a] = '\0';
	return parse_u64(tok, ret);
}

unsigned str_edit_distance(const char *a, const char *b)
{
	unsigned row[STR_EDIT_MAX + 1];
	size_t lb = strlen(b);

	if (lb > STR_EDIT_MAX)
		return UINT_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	/* One row of the Levenshtein table at a time; diag is the cell above-left. */
	for (size_t i = 1; a[i - 1]; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

bool zram_name_valid(const char *name)
{
	size_t n;

	if (!name || strncmp(name, "zram", 4) != 0)
		return false;
	name += 4;
	n = strlen(name);
	if (n < 1 || n > 9)
		return false;
	if (n > 1 && name[0] == '0')
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

int zram_name_to_id(const char *name, unsigned *ret_id)
{
	uint64_t v;

	if (!zram_name_valid(name))
		return -EINVAL;
	if (parse_u64(name + 4, &v) < 0 || v > 999999999)
		return -EINVAL;
	*ret_id = (unsigned)v;
	return 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return sat_add_u64(sat_mul_u64((uint64_t)ts.tv_sec, 1000000000ULL), (uint64_t)ts.tv_nsec);
}

uint64_t now_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t now_boottime_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

uint64_t now_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

int str_printf(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENOBUFS;
	return 0;
}

/* pread when off is not -1, read otherwise: one loop for both. */
static int read_loop(int fd, void *buf, size_t len, int64_t off, size_t *ret_len)
{
	size_t got = 0;
	int r = 0;

	while (got < len) {
		char *at = (char *)buf + got;
		ssize_t n;

		if (off < 0)
			n = read(fd, at, len - got);
		else
			n = pread(fd, at, len - got, (off_t)off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	*ret_len = got;
	return r;
}

int read_full(int fd, void *buf, size_t len, size_t *ret_len)
{
	return read_loop(fd, buf, len, -1, ret_len);
}

int pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *ret_len)
{
	*ret_len = 0;
	if (off > (uint64_t)INT64_MAX - len)
		return -EINVAL;
	return read_loop(fd, buf, len, (int64_t)off, ret_len);
}

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void json_print_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	/* A signal cuts the wait short; callers check their stop flag. */
	(void)nanosleep(&ts, NULL);
}

int dir_open_fd(int fd, DIR **ret)
{
	DIR *d = fdopendir(fd);
	int r;

	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret = d;
	return 0;
}

int dir_next(DIR *d, struct dirent **ret)
{
	errno = 0;
	*ret = readdir(d);
	if (*ret)
		return 1;
	return errno ? -errno : 0;
}

int array_reserve(void **v, unsigned *cap, unsigned n, size_t size, unsigned first)
{
	unsigned want;
	void *p;

	if (n < *cap)
		return 0;
	want = *cap ? 2 * *cap : first;
	if (want <= *cap || want > UINT_MAX / 2)
		return -ENOMEM;
	p = reallocarray(*v, want, size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = want;
	return 0;
}

/* Length of the valid UTF-8 sequence at p (2-4), or 0 (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;

	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return n;
}

void str_escape_bytes(const char *in, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0;

	if (size == 0)
		return;
	while (*p) {
		size_t n = *p >= 0x80 ? utf8_len(p) : 1;
		bool esc = n == 0 || *p < 0x20 || *p == 0x7F;

		if (o + (esc ? 4 : n) >= size)
			break;
		if (esc) {
			(void)snprintf(out + o, size - o, "\\x%02x", *p);
			o += 4;
			p++;
		} else {
			memcpy(out + o, p, n);
			o += n;
			p += n;
		}
	}
	out[o] = '\0';
}
