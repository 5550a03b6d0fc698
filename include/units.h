/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_UNITS_H
#define ZRAM_RECOMPD_UNITS_H

/*
 * Numbers with units in configuration values, written as systemd and zram-generator write
 * them: sizes with binary suffixes (1K = 1024, as systemd's parse_size() with base 1024 and
 * zram-generator's zram-size), durations as one or more "NUMBER UNIT" parts that add up
 * ("1h 30min", as systemd.time(7)). A plain number keeps the meaning the key always had:
 * bytes, or the key's own time unit. Pure parsing; nothing here logs.
 */

#include <stddef.h>
#include <stdint.h>

enum unit {
	UNIT_NONE,  /* a plain count: decimal digits only */
	UNIT_BYTES, /* bytes; K, M, G, T, P (or KiB ... PiB); "B" for bytes */
	UNIT_SEC,   /* seconds; us, ms, s, min, h, d, w (and their long names) */
	UNIT_MSEC,  /* milliseconds; the same units */
	UNIT_USEC,  /* microseconds; the same units */
};

/*
 * Parse s (a whole value, no surrounding blanks) in unit u into *ret. A fraction is allowed
 * before a unit ("1.5G", "0.5h"); a size rounds down to whole bytes, a duration must come out
 * as a whole number of the key's unit. Returns 0, -EINVAL (not a number, or an unknown unit),
 * -ERANGE (does not fit 64 bits), -EDOM (a duration that is not a whole number of the key's
 * unit, e.g. "1500ms" for seconds).
 */
int units_parse(const char *s, enum unit u, uint64_t *ret);

/* What a value of unit u looks like, for error messages: "a size (bytes, or 64M, 1G)". */
const char *units_hint(enum unit u);

/* The key's unit as a word for messages: "bytes", "seconds" ...; "" for UNIT_NONE. */
const char *units_name(enum unit u);

/*
 * Value v of unit u as an admin writes it, and units_parse() reads it back: a size with the
 * largest suffix that divides it ("128M", "3700"), a duration in parts, largest first
 * ("4h", "1d 12h", "150ms"); a plain number for UNIT_NONE and 0. Into buf (UNITS_FMT_LEN
 * suffices), returned.
 */
#define UNITS_FMT_LEN 64
const char *units_format(char *buf, size_t size, uint64_t v, enum unit u);

#endif
