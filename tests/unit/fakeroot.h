/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_TEST_FAKEROOT_H
#define ZRAM_RECOMPD_TEST_FAKEROOT_H

/* Temporary root trees for unit tests (header-only; each test binary includes it once). */

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fr_dir[256];

/* mkdir -p for the parent directories of rel, then write content to fr_dir/rel. */
static inline void fr_write(const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fr_dir, rel);
	for (char *p = path + strlen(fr_dir) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			(void)mkdir(path, 0755);
			*p = '/';
		}
	}
	f = fopen(path, "we");
	if (!f)
		abort();
	fputs(content, f);
	fclose(f);
}

/* Read fr_dir/rel into a static buffer ("" when missing). */
static inline const char *fr_read(const char *rel)
{
	static char buf[65536];
	char path[PATH_MAX];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fr_dir, rel);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline int fr_setup(void)
{
	snprintf(fr_dir, sizeof(fr_dir), "%s/zr-unit-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(fr_dir))
		return -1;
	return 0;
}

static inline int fr_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void fr_teardown(void)
{
	(void)nftw(fr_dir, fr_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline int fr_open_root(void)
{
	return open(fr_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

#endif
