/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_HUMAN_H
#define ZRAM_RECOMPD_HUMAN_H

/*
 * Quantities for people, one way everywhere text is read by a person (the log, status,
 * advise, pass reports, the dry-run): sizes in IEC units with one decimal ("1.5 KiB",
 * "28.9 MiB", "1.0 GiB"), durations in the two largest whole units ("4 h", "1 h 30 min"),
 * percentages with one decimal ("12.3%"). A value written to the kernel is shown as written,
 * with its reading next to it ("'14400' to idle (4 h)"). JSON and metrics keep raw base
 * units (bytes, seconds) named in their keys; nothing here is for them. Pure: no I/O.
 *
 * Every function writes into buf (HUMAN_LEN bytes always suffice; a smaller buffer
 * truncates, as snprintf does) and returns buf.
 */

#include <stddef.h>
#include <stdint.h>

/* Room for any result: the longest is human_seconds(UINT64_MAX), 46 characters. */
#define HUMAN_LEN 48

/*
 * A byte count: "0 B" to "1023 B", then KiB, MiB, GiB and TiB (1024-based) with one
 * decimal, rounded to nearest ("1048575" is "1024.0 KiB": the unit changes at the count,
 * not at the rounded figure). Any uint64_t: 2^63 and above are large, not negative.
 */
const char *human_bytes(char *buf, size_t size, uint64_t bytes);

/* A signed byte count (savings, deltas): '-' before the magnitude, INT64_MIN included. */
const char *human_bytes_signed(char *buf, size_t size, int64_t bytes);

/*
 * A duration in seconds: "0 s", "45 s", "1 min 30 s", "4 h", "1 h 30 min", "2 d 3 h": the
 * largest unit (d, h, min, s) and the next one when it is not zero; what is below those
 * two is left out (rounded down), so "3601 s" reads "1 h".
 */
const char *human_duration(char *buf, size_t size, uint64_t sec);

/*
 * A count of seconds as the program states it, with its reading from a minute on: "45 s",
 * "14400 s (4 h)". For logs and reports whose raw figure scripts and admins compare.
 */
const char *human_seconds(char *buf, size_t size, uint64_t sec);

/* part of whole as a percentage with one decimal ("12.3%"); "0.0%" when whole is 0. */
const char *human_percent(char *buf, size_t size, double part, double whole);

/*
 * The reading of a value written to a zram attribute, to follow it in a dry-run or a
 * step: " (4 h)" for '14400' to idle (seconds, 6.2+), " (1.0 GiB)" for disksize (bytes),
 * " (8.0 MiB)" for writeback_limit (4 KiB units whatever the page size); "" for other attributes and for values
 * that are not a plain number ("all", commands with keys).
 */
const char *human_attr_note(char *buf, size_t size, const char *attr, const char *val);

#endif
