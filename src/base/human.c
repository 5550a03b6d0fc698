// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sizes, durations and percentages for people (include/human.h): one formatter for the log,
 * status, advise, pass reports and the dry-run, so the same 30,300,000 bytes read "28.9 MiB"
 * in all of them.
 */
#include "human.h"

#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *magnitude(char *buf, size_t size, const char *sign, uint64_t a)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;
	uint64_t div = 1024;

	if (a < 1024) {
		(void)snprintf(buf, size, "%s%" PRIu64 " B", sign, a);
		return buf;
	}
	/* the unit is chosen by the count: 1048575 stays "1024.0 KiB", never "1.0 MiB" */
	while (u + 1 < ARRAY_SIZE(unit) && a / div >= 1024) {
		div *= 1024;
		u++;
	}
	(void)snprintf(buf, size, "%s%.1f %s", sign, (double)a / (double)div, unit[u]);
	return buf;
}

const char *human_bytes(char *buf, size_t size, uint64_t bytes)
{
	return magnitude(buf, size, "", bytes);
}

const char *human_bytes_signed(char *buf, size_t size, int64_t bytes)
{
	/* Negated as unsigned: the magnitude of INT64_MIN does not fit in int64_t. */
	uint64_t a = bytes < 0 ? 0 - (uint64_t)bytes : (uint64_t)bytes;

	return magnitude(buf, size, bytes < 0 ? "-" : "", a);
}

const char *human_duration(char *buf, size_t size, uint64_t sec)
{
	static const struct {
		const char *name;
		uint64_t sec;
	} unit[] = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
	unsigned u = 0;
	uint64_t rest;

	while (u + 1 < ARRAY_SIZE(unit) && sec < unit[u].sec)
		u++;
	rest = sec % unit[u].sec;
	if (u + 1 < ARRAY_SIZE(unit) && rest >= unit[u + 1].sec)
		(void)snprintf(buf, size, "%" PRIu64 " %s %" PRIu64 " %s", sec / unit[u].sec,
			       unit[u].name, rest / unit[u + 1].sec, unit[u + 1].name);
	else
		(void)snprintf(buf, size, "%" PRIu64 " %s", sec / unit[u].sec, unit[u].name);
	return buf;
}

const char *human_seconds(char *buf, size_t size, uint64_t sec)
{
	char h[HUMAN_LEN];

	if (sec < 60)
		(void)snprintf(buf, size, "%" PRIu64 " s", sec);
	else
		(void)snprintf(buf, size, "%" PRIu64 " s (%s)", sec,
			       human_duration(h, sizeof(h), sec));
	return buf;
}

const char *human_percent(char *buf, size_t size, double part, double whole)
{
	(void)snprintf(buf, size, "%.1f%%", whole != 0.0 ? 100.0 * part / whole : 0.0);
	return buf;
}

const char *human_attr_note(char *buf, size_t size, const char *attr, const char *val)
{
	char h[HUMAN_LEN];
	uint64_t v;

	if (size)
		buf[0] = '\0';
	if (!attr || !val || parse_u64(val, &v) < 0)
		return buf;
	if (strcmp(attr, "idle") == 0) /* 6.2+: pages unused for more than v seconds */
		(void)snprintf(buf, size, " (%s)", human_duration(h, sizeof(h), v));
	else if (strcmp(attr, "disksize") == 0)
		(void)snprintf(buf, size, " (%s)", human_bytes(h, sizeof(h), v));
	/* writeback_limit counts 4 KiB units whatever PAGE_SIZE (6.2-7.3 zram_drv.c:
	 * 1UL << (PAGE_SHIFT - 12) per page; zram.h ZRAM_WB_UNIT, a floor above) */
	else if (strcmp(attr, "writeback_limit") == 0)
		(void)snprintf(buf, size, " (%s)", human_bytes(h, sizeof(h), sat_mul_u64(v, 4096)));
	return buf;
}
