/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_TEST_ADOPT_FAKE_H
#define ZRAM_RECOMPD_TEST_ADOPT_FAKE_H

/*
 * The fake kernel of the adopt tests (test_adopt.c, test_adopt_fail.c; header-only, each
 * includes it once): their .ldflags wrap swapon and swapoff (no real swap area is touched:
 * the calls are recorded, a device's swap state is kept, and they can be made to fail),
 * sysfs_write_adopt and sysfs_write (reset clears initstate, disksize sets it, a reset of a
 * device in use as swap is EBUSY, every write is recorded, chosen writes fail) and log_msg
 * (the lines logged, to assert).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "adopt.h"
#include "fakeroot.h"
#include "log.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/swap.h>
#include <unistd.h>

static uint32_t u32_at(const uint8_t *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* ---- the fake kernel ---- */

static char calls[16384];     /* one line per swap call or write */
static char logs[8192];	      /* the lines logged (log_msg wrapped) */
static const char *fail_attr; /* this suffix of a write path fails ... */
static int fail_errno;
static unsigned fail_times; /* ... this many times */
static int swapoff_errno, swapon_errno;
static unsigned swapoff_fail_times = 1000; /* how many swapoff calls fail with swapoff_errno */
static unsigned ncalls, fail_nth;	   /* the fail_nth call (1-based; 0 none) fails with ... */
static int fail_nth_errno;
static bool swap_on_state[4]; /* /dev/zramN in use as swap */
static bool reset_while_on;   /* a reset reached a device in use as swap */
static int raise_at_swapoff;  /* a signal the first swapoff raises, or 0 */
static bool wb_attrs;	      /* fake_dev makes the writeback attributes (7.0+) */

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...)
{
	size_t o = strlen(calls);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(calls + o, sizeof(calls) - o, fmt, ap);
	va_end(ap);
}

void __wrap_log_msg(enum log_level lvl, const char *fmt, ...);
void __wrap_log_msg(enum log_level lvl, const char *fmt, ...)
{
	size_t o = strlen(logs);
	va_list ap;

	(void)lvl;
	va_start(ap, fmt);
	vsnprintf(logs + o, sizeof(logs) - o, fmt, ap);
	va_end(ap);
	o = strlen(logs);
	if (o + 1 < sizeof(logs))
		strcpy(logs + o, "\n");
}

/* The injected failure of the fail_nth call, if this is it. */
static bool nth_fails(void)
{
	return ++ncalls == fail_nth;
}

static unsigned dev_index(const char *path)
{
	unsigned id = 99;

	(void)sscanf(path, "/dev/zram%u", &id);
	return id;
}

int __wrap_swapon(const char *path, int flags);
int __wrap_swapon(const char *path, int flags)
{
	unsigned id = dev_index(path);
	char init[64];

	record("swapon %s %#x\n", path, (unsigned)flags);
	if (nth_fails()) {
		errno = fail_nth_errno;
		return -1;
	}
	if (swapon_errno) {
		errno = swapon_errno;
		return -1;
	}
	snprintf(init, sizeof(init), "sys/block/zram%u/initstate", id);
	if (id >= 4 || strcmp(fr_read(init), "1\n") != 0 || swap_on_state[id]) {
		errno = id < 4 && swap_on_state[id] ? EBUSY : EINVAL;
		return -1;
	}
	swap_on_state[id] = true;
	return 0;
}

int __wrap_swapoff(const char *path);
int __wrap_swapoff(const char *path)
{
	unsigned id = dev_index(path);

	record("swapoff %s\n", path);
	if (raise_at_swapoff) {
		int sig = raise_at_swapoff;

		raise_at_swapoff = 0;
		raise(sig); /* held back by adopt: pending, not delivered */
	}
	if (nth_fails()) {
		errno = fail_nth_errno;
		return -1;
	}
	if (swapoff_errno && swapoff_fail_times) {
		swapoff_fail_times--;
		errno = swapoff_errno;
		return -1;
	}
	if (id >= 4 || !swap_on_state[id]) {
		errno = EINVAL;
		return -1;
	}
	swap_on_state[id] = false;
	return 0;
}

static void fake_dev(unsigned id, bool init)
{
	char p[64];

#define F(attr, text)                                                                              \
	do {                                                                                       \
		snprintf(p, sizeof(p), "sys/block/zram%u/" attr, id);                              \
		fr_write(p, text);                                                                 \
	} while (0)
	F("initstate", init ? "1\n" : "0\n");
	F("disksize", init ? "1073741824\n" : "0\n");
	F("comp_algorithm", "[lzo-rle] lzo lz4 lz4hc zstd deflate 842 \n");
	F("recomp_algorithm", "");
	F("recompress", "");
	F("idle", "");
	F("compact", "");
	F("algorithm_params", "");
	F("mm_stat",
	  init ? "104857600 30000000 36000000 0 40000000 12 0 3 3\n" : "0 0 0 0 0 0 0 0 0\n");
	if (wb_attrs) {
		/* 7.0+: reset closes the backing device; compressed_writeback stays */
		F("backing_dev", "none\n");
		F("writeback", "");
		F("writeback_limit", "0\n");
		F("writeback_limit_enable", "0\n");
		F("bd_stat", "       0        0        0\n");
		snprintf(p, sizeof(p), "sys/block/zram%u/compressed_writeback", id);
		if (!fr_read(p)[0])
			fr_write(p, "0\n");
	}
#undef F
	snprintf(p, sizeof(p), "dev/zram%u", id);
	fr_write(p, "");
}

/* A write that fails here as chosen, or 0 to go on. */
static int write_fails(const char *relpath)
{
	size_t n = strlen(relpath), fl = fail_attr ? strlen(fail_attr) : 0;

	if (nth_fails())
		return -fail_nth_errno;
	if (fail_attr && fail_times && n >= fl && strcmp(relpath + n - fl, fail_attr) == 0) {
		fail_times--;
		return -fail_errno;
	}
	return 0;
}

/* The pass's writes (recomp_algorithm, algorithm_params, backing_dev ...): recorded. */
int __real_sysfs_write(int root_fd, const char *relpath, const char *data);
int __wrap_sysfs_write(int root_fd, const char *relpath, const char *data);
int __wrap_sysfs_write(int root_fd, const char *relpath, const char *data)
{
	int r;

	record("%s=%s", relpath, data); /* data ends in '\n' */
	if (!sysfs_write_allowed(relpath))
		return -EPERM;
	r = write_fails(relpath);
	if (r < 0)
		return r;
	r = __real_sysfs_write(root_fd, relpath, data);
	/* backing_dev and compressed_writeback read back what was written last */
	if (r == 0 && (strstr(relpath, "/backing_dev") || strstr(relpath, "/compressed_writeback")))
		fr_write(relpath, data);
	return r;
}

int __real_sysfs_write_adopt(int root_fd, const char *relpath, const char *data);
int __wrap_sysfs_write_adopt(int root_fd, const char *relpath, const char *data);
int __wrap_sysfs_write_adopt(int root_fd, const char *relpath, const char *data)
{
	unsigned id;
	char dir[48];
	int r;

	record("%s=%s", relpath, data); /* data ends in '\n' */
	if (!sysfs_write_allowed(relpath) && !sysfs_adopt_write_allowed(relpath))
		return -EPERM;
	r = write_fails(relpath);
	if (r < 0)
		return r;
	if (sscanf(relpath, "sys/block/zram%u/", &id) != 1)
		return 0;
	snprintf(dir, sizeof(dir), "sys/block/zram%u", id);
	if (strstr(relpath, "/reset")) {
		if (id < 4 && swap_on_state[id]) {
			reset_while_on = true;
			return -EBUSY; /* open: the kernel refuses */
		}
		fake_dev(id, false); /* 6.11+: the secondary names are gone too */
	} else if (strstr(relpath, "/disksize")) {
		char p[64];

		snprintf(p, sizeof(p), "%s/initstate", dir);
		fr_write(p, "1\n");
		snprintf(p, sizeof(p), "%s/disksize", dir);
		fr_write(p, data);
	}
	return 0;
}

/* ---- the steps, on a fake root ---- */

static struct adopt_job job;
static char out[8192];
static FILE *outf;

static int setup(void **state)
{
	const char *attr;

	(void)state;
	if (fr_setup() < 0)
		return -1;
	calls[0] = logs[0] = '\0';
	fail_attr = NULL;
	fail_times = 0;
	swapoff_errno = swapon_errno = 0;
	swapoff_fail_times = 1000;
	ncalls = fail_nth = 0;
	memset(swap_on_state, 0, sizeof(swap_on_state));
	swap_on_state[0] = true;
	reset_while_on = false;
	raise_at_swapoff = 0;
	wb_attrs = false;
	fake_dev(0, true);
	fr_write("sys/class/zram-control/hot_add", "1\n");
	memset(&job, 0, sizeof(job));
	job.root_fd = fr_open_root();
	job.kv = (struct kver){6, 12, 118};
	job.kconf = TRI_YES;
	if (zram_probe(job.root_fd, &job.kv, job.kconf, 0, &job.dev, &attr) < 0)
		return -1;
	job.cfg.n_algos = 2;
	strcpy(job.cfg.algos[0], "zstd");
	strcpy(job.cfg.algos[1], "deflate");
	job.cfg.has_level[0] = true;
	job.cfg.level[0] = 9;
	job.swap.prio = 100;
	job.page_size = 4096;
	for (int i = 0; i < 16; i++)
		job.uuid[i] = (uint8_t)i;
	memcpy(job.label, "mylabel", 8);
	job.uuid_kept = true;
	job.reset_tries = 3;
	memset(out, 0, sizeof(out));
	outf = fmemopen(out, sizeof(out) - 1, "w");
	job.out = outf;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fclose(outf);
	close(job.root_fd);
	fr_teardown();
	return 0;
}

/* The header written to dev/zramN carries the kept UUID and label and the device's size. */
static void assert_header(const char *dev)
{
	char path[PATH_MAX];
	static uint8_t page[4096];
	uint8_t u[16], l[16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fr_dir, dev);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(fread(page, 1, sizeof(page), f), 4096);
	fclose(f);
	assert_int_equal(adopt_parse_swap_header(page, 4096, u, l), 0);
	assert_int_equal(u32_at(page, 1028), 262143);
	if (strcmp(dev, "dev/zram0") == 0) {
		assert_memory_equal(u, job.uuid, 16);
		assert_memory_equal(l, "mylabel", 8);
	}
}

#endif
