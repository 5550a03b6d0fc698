/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_FUZZ_H
#define ZRAM_RECOMPD_FUZZ_H

/*
 * Shared by the libFuzzer targets of tests/fuzz (README there). Each target defines
 * LLVMFuzzerTestOneInput(); a broken invariant is reported with FUZZ_CHECK(), which aborts,
 * so libFuzzer saves the input like any crash.
 */

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input as a C string (malloc'd; an embedded NUL ends it early, as for the parser). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static char fuzz_dir[4096];

/* Empty directory dfd (closed here): plain files and directories of them, any depth. */
static inline void fuzz_rm_contents(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		int sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			fuzz_rm_contents(sub);
			(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		}
	}
	closedir(d);
}

/* Remove the private directory at exit. */
static inline void fuzz_tmpdir_remove(void)
{
	int fd = open(fuzz_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	fuzz_rm_contents(fd);
	(void)rmdir(fuzz_dir);
}

/*
 * A private directory for targets that go through files: under $FUZZ_TMPDIR (tests/fuzz/run.sh
 * sets it), else /dev/shm (no disk behind fsync) or /tmp. Created once per process, removed
 * at exit.
 */
static inline const char *fuzz_tmpdir(void)
{
	const char *base = getenv("FUZZ_TMPDIR");

	if (fuzz_dir[0])
		return fuzz_dir;
	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	if (snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/zram-recompd-fuzz.XXXXXX", base) >=
		    (int)sizeof(fuzz_dir) ||
	    !mkdtemp(fuzz_dir)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fuzz_tmpdir_remove);
	return fuzz_dir;
}

/* Replace dir/name with data; aborts on failure (that would not be the code's fault). */
static inline void fuzz_write_file(int dir_fd, const char *name, const void *data, size_t size)
{
	int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) < 0) {
		perror("fuzz: write");
		abort();
	}
}

/* dir/name whole, malloc'd and NUL-terminated; aborts on failure. */
static inline char *fuzz_read_file(int dir_fd, const char *name, size_t *ret_len)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (!buf || fd < 0)
		abort();
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len == 1) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
	}
	if (n < 0)
		abort();
	close(fd);
	buf[len] = '\0';
	*ret_len = len;
	return buf;
}

#endif
