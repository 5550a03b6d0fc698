/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_UTIL_H
#define ZRAM_RECOMPD_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Saturating arithmetic: budgets and clocks never wrap (ChromeOS's unsigned max(a - b, 0) did). */
/*
 * Room for one more element in a growing array *v of *cap elements of size bytes, n of
 * them in use: doubled (first when empty) when full. -ENOMEM leaves *v and *cap as they
 * were. Pointers into the array are stale after a growth.
 */
int array_reserve(void **v, unsigned *cap, unsigned n, size_t size, unsigned first);

static inline uint64_t sat_add_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t sat_sub_u64(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static inline uint64_t sat_mul_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/*
 * The high 64 bits of the 128-bit product a * b, exactly. Portable (no __int128, which 32-bit
 * targets such as armhf do not have): four 32x32->64 partial products, the carries of the
 * middle column summed in 64 bits (each term below 2^32, so the sum cannot wrap).
 */
static inline uint64_t mul_u64_hi(uint64_t a, uint64_t b)
{
	uint64_t alo = a & UINT32_MAX, ahi = a >> 32;
	uint64_t blo = b & UINT32_MAX, bhi = b >> 32;
	uint64_t ll = alo * blo, lh = alo * bhi, hl = ahi * blo, hh = ahi * bhi;
	uint64_t mid = (ll >> 32) + (lh & UINT32_MAX) + (hl & UINT32_MAX);

	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* Signed difference b - a of two counters, clamped to the int64_t range. */
static inline int64_t delta_i64(uint64_t before, uint64_t after)
{
	if (after >= before)
		return after - before > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(after - before);
	return before - after > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(before - after);
}

/*
 * Strict decimal parse of a whole string (optional trailing '\n'): no sign, no
 * leading/trailing garbage, no empty string, no overflow. Returns 0 or -EINVAL/-ERANGE.
 */
int parse_u64(const char *s, uint64_t *ret);

/*
 * parse_u64 of sysfs text read by length: leading/trailing whitespace and NUL bytes are
 * ignored, nothing else may surround the number.
 */
int parse_u64_text(const char *s, size_t len, uint64_t *ret);

/*
 * Edit (Levenshtein) distance between a and b: insertions, deletions and substitutions that
 * turn one into the other. For suggesting a name: b at most STR_EDIT_MAX characters
 * (UINT_MAX otherwise); a of any length.
 */
#define STR_EDIT_MAX 63
unsigned str_edit_distance(const char *a, const char *b);

/* True when name is "zram" followed by 1-9 decimal digits without a leading zero (zram0 ok). */
bool zram_name_valid(const char *name);

/* Parse "zramN" into N; -EINVAL when the name is not valid. */
int zram_name_to_id(const char *name, unsigned *ret_id);

/* Sleep ms milliseconds; a signal ends it early. */
void sleep_ms(unsigned ms);

/* Monotonic and boottime clocks in nanoseconds. */
uint64_t now_monotonic_ns(void);
/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), ns; 0 if unreadable. */
uint64_t now_thread_cpu_ns(void);
uint64_t now_boottime_ns(void);

/*
 * read(2) until len bytes or end of file, retrying EINTR: 0 or -errno, with *ret_len the
 * bytes read (also on error). Not for debugfs block_state, where a short read is not the end
 * (blockstate.h).
 */
int read_full(int fd, void *buf, size_t len, size_t *ret_len);
/* The same with pread(2) from offset off. */
int pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *ret_len);
/* write(2) of all len bytes, retrying EINTR: 0 or -errno (-EIO: wrote 0). */
int write_full(int fd, const void *buf, size_t len);

/*
 * A directory stream on fd (which it then owns; closed on failure too): 0 or -errno. The
 * stream's entries with dir_next: 1 and *ret set, 0 at the end, -errno when the directory
 * cannot be read (readdir() returns NULL for both; errno tells them apart).
 */
int dir_open_fd(int fd, DIR **ret);
int dir_next(DIR *d, struct dirent **ret);

/* snprintf that reports truncation: returns 0, or -ENOBUFS when out was too small. */
int str_printf(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* s as a JSON string literal: quotes, backslash and control characters escaped. */
void json_print_string(FILE *f, const char *s);

/*
 * in into out[size] for a message line: each byte that is not part of valid UTF-8, and
 * each control character, as "\xNN" (input such as a file's bytes is never echoed raw to a
 * terminal or the journal); cut short, never mid-character or mid-escape, when out is full.
 */
void str_escape_bytes(const char *in, char *out, size_t size);

#endif
