// SPDX-License-Identifier: GPL-2.0-or-later
#include "log.h"
#include "util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

static enum log_level max_level = LOG_LVL_INFO;
static int to_journal = -1;

void log_set_max_level(enum log_level lvl)
{
	max_level = lvl;
}

enum log_level log_get_max_level(void)
{
	return max_level;
}

/* $JOURNAL_STREAM is "DEV:INO" of the journal socket; compare it with stderr (sd-daemon(3)). */
static int stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_setup(void)
{
	to_journal = stderr_is_journal();
}

static const char *level_name(enum log_level lvl)
{
	switch (lvl) {
	case LOG_LVL_ERR:
		return "error";
	case LOG_LVL_WARNING:
		return "warning";
	case LOG_LVL_NOTICE:
		return "notice";
	case LOG_LVL_INFO:
		return "info";
	case LOG_LVL_DEBUG:
		return "debug";
	}
	return "log";
}

/* The line for stderr: sd-daemon priority prefix under systemd, program name otherwise. */
static void emit(enum log_level lvl, const char *buf)
{
	/* One fprintf per line keeps lines whole when several threads log. */
	if (to_journal)
		fprintf(stderr, "<%d>%s\n", (int)lvl, buf);
	else if (lvl == LOG_LVL_INFO || lvl == LOG_LVL_NOTICE)
		fprintf(stderr, "zram-recompd: %s\n", buf);
	else
		fprintf(stderr, "zram-recompd: %s: %s\n", level_name(lvl), buf);
}

/* Whether lvl is logged at all (and the journal test done once). */
static bool wanted(enum log_level lvl)
{
	if (lvl > max_level)
		return false;
	if (to_journal < 0)
		log_setup();
	return true;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	int saved = errno;
	char raw[1024], buf[1024];
	va_list ap;

	if (wanted(lvl)) {
		va_start(ap, fmt);
		errno = saved; /* so that %m works */
		(void)vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		str_escape_bytes(raw, buf, sizeof(buf));
		emit(lvl, buf);
	}
	errno = saved;
}

void log_pass(const struct log_pass_fields *f, const char *fmt, ...)
{
	int saved = errno;
	enum log_level lvl = f->failed ? LOG_LVL_WARNING : LOG_LVL_INFO;
	char raw[1024], buf[1024];
	va_list ap;

	if (!wanted(lvl))
		return;
	va_start(ap, fmt);
	(void)vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	str_escape_bytes(raw, buf, sizeof(buf));
	/* The journal's native protocol; if it refuses, the stream line still tells. */
	if (!to_journal ||
	    sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%d", (int)lvl, "MESSAGE_ID=%s",
			    f->failed ? LOG_MESSAGE_ID_PASS_FAILED : LOG_MESSAGE_ID_PASS_FINISHED,
			    "SYSLOG_IDENTIFIER=zram-recompd", "ZRAM_DEVICE=%s", f->device,
			    "ZRAM_SAVED_BYTES=%" PRId64, f->saved, "ZRAM_FREED_BYTES=%" PRId64,
			    f->freed, "ZRAM_KERNEL_SECONDS=%.3f", (double)f->kernel_ns / 1e9,
			    "ZRAM_LONGEST_WRITE_SECONDS=%.3f", (double)f->longest_write_ns / 1e9,
			    "ZRAM_PASS_RESULT=%s", f->failed ? "failed" : "finished", NULL) < 0)
		emit(lvl, buf);
	errno = saved;
}
