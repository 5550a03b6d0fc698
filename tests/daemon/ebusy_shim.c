// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for the daemon tier (test another_tool_sets_up): plays another tool that
 * writes disksize between the daemon's probe of an uninitialized device and its first setup
 * write. A write(2) to a file whose path ends in "/recomp_algorithm", while the file
 * $ZR_SHIM_ARM exists, first "initializes" the device as the other tool would (disksize and
 * initstate in the same directory of the fake tree), then fails with EBUSY as the kernel
 * does on an initialized device. Each such attempt is appended to $ZR_SHIM_LOG. Every other
 * write goes through. Test code only, never part of the product.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Replace dir/name by text (stdio: its own writes do not come back here). */
static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.shim", path);
	f = fopen(tmp, "we");
	if (!f)
		return;
	fputs(text, f);
	if (fclose(f) == 0)
		(void)rename(tmp, path);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);
	const char *arm = getenv("ZR_SHIM_ARM"), *log = getenv("ZR_SHIM_LOG");
	char link[64], path[PATH_MAX];
	ssize_t n;

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (!arm || access(arm, F_OK) != 0)
		return real(fd, buf, len);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return real(fd, buf, len);
	path[n] = '\0';
	n = (ssize_t)strlen(path);
	if (n < 17 || strcmp(path + n - 17, "/recomp_algorithm") != 0)
		return real(fd, buf, len);
	path[n - 17] = '\0';
	put(path, "disksize", "1073741824\n");
	put(path, "initstate", "1\n");
	if (log) {
		FILE *f = fopen(log, "ae");

		if (f) {
			fprintf(f, "%s EBUSY %.*s", path, (int)len, (const char *)buf);
			fclose(f);
		}
	}
	errno = EBUSY;
	return -1;
}
