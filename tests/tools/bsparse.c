// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bsparse: throughput of the block_state parser for `make bench` (not a test).
 *
 *   build/tools/bsparse FILE SLOTS [REPEAT]
 *
 * FILE is a block_state file (bsgen output); SLOTS the device's slot count (bitmap size).
 * Each measurement runs REPEAT times (default 5) and the fastest run counts, so page faults
 * and cache warm-up of the first run do not:
 *   parse          blockstate_parse() over the file in memory, counts only
 *   parse_bitmaps  the same with the incompressible and recompressed bitmaps a pass keeps
 *   read           blockstate_read() as a pass calls it: 256 KiB reads from the file (page
 *                  cache) through a temporary root holding a hard link (or a copy) at
 *                  sys/kernel/debug/zram/zram0/block_state, with the incompressible bitmap
 * Output: "key value" lines (bytes, lines, the seven counts, and seconds and GB/s = 10^9
 * bytes per second for each measurement).
 */
#include "blockstate.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int load(const char *path, char **ret, size_t *ret_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t off = 0;
	char *buf = NULL;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n <= 0) {
			free(buf);
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		off += (size_t)n;
	}
	close(fd);
	*ret = buf;
	*ret_len = off;
	return 0;
}

/* tmp/sys/kernel/debug/zram/zram0/block_state -> FILE (hard link, else a copy). */
static int make_root(const char *file, const char *buf, size_t len, char *root, size_t size,
		     char *leaf, size_t leaf_size)
{
	static const char *const dirs[] = {"/sys", "/sys/kernel", "/sys/kernel/debug",
					   "/sys/kernel/debug/zram",
					   "/sys/kernel/debug/zram/zram0"};
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(root, size, "%s/bsparse.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -errno;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		if (mkdir(path, 0700) < 0)
			return -errno;
	}
	snprintf(leaf, leaf_size, "%s/sys/kernel/debug/zram/zram0/block_state", root);
	if (link(file, leaf) == 0)
		return 0;
	fd = open(leaf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n <= 0) {
			close(fd);
			return -EIO;
		}
		off += (size_t)n;
	}
	close(fd);
	return 0;
}

static void remove_root(const char *root, const char *leaf)
{
	static const char *const dirs[] = {"/sys/kernel/debug/zram/zram0",
					   "/sys/kernel/debug/zram",
					   "/sys/kernel/debug",
					   "/sys/kernel",
					   "/sys",
					   ""};
	char path[4096];

	(void)unlink(leaf);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		(void)rmdir(path);
	}
}

static void report(const char *name, uint64_t best_ns, size_t len)
{
	double s = (double)best_ns / 1e9;

	printf("%s_s %.6f\n%s_gbps %.3f\n", name, s, name, s > 0 ? (double)len / s / 1e9 : 0.0);
}

int main(int argc, char **argv)
{
	struct bs_bitmap inc = {0}, rec = {0};
	struct bs_counts c = {0}, c2;
	char root[4096], leaf[4200];
	uint64_t slots, repeat = 5, best;
	size_t len = 0;
	char *buf = NULL;
	int r, root_fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bsparse FILE SLOTS [REPEAT]\n");
		return 2;
	}
	slots = strtoull(argv[2], NULL, 10);
	if (argc == 4)
		repeat = strtoull(argv[3], NULL, 10);
	if (slots == 0 || repeat == 0) {
		fprintf(stderr, "bsparse: SLOTS and REPEAT must be positive\n");
		return 2;
	}
	r = load(argv[1], &buf, &len);
	if (r < 0) {
		fprintf(stderr, "bsparse: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	if (bs_bitmap_alloc(&inc, slots) < 0 || bs_bitmap_alloc(&rec, slots) < 0) {
		fprintf(stderr, "bsparse: out of memory\n");
		return 1;
	}

	best = UINT64_MAX;
	for (uint64_t i = 0; i < repeat; i++) {
		uint64_t t0 = now_ns(), t;

		r = blockstate_parse(buf, len, &c, NULL, NULL);
		t = now_ns() - t0;
		if (r < 0) {
			fprintf(stderr, "bsparse: parse error: %s\n", strerror(-r));
			return 1;
		}
		best = t < best ? t : best;
	}
	printf("bytes %zu\nlines %" PRIu64 "\n", len, c.allocated);
	printf("allocated %" PRIu64 "\nsame %" PRIu64 "\nwritten_back %" PRIu64 "\nhuge %" PRIu64
	       "\nidle %" PRIu64 "\nrecompressed %" PRIu64 "\nincompressible %" PRIu64 "\n",
	       c.allocated, c.same, c.written_back, c.huge, c.idle, c.recompressed,
	       c.incompressible);
	report("parse", best, len);

	best = UINT64_MAX;
	for (uint64_t i = 0; i < repeat; i++) {
		uint64_t t0 = now_ns(), t;

		r = blockstate_parse(buf, len, &c2, &inc, &rec);
		t = now_ns() - t0;
		if (r < 0 || memcmp(&c, &c2, sizeof(c)) != 0) {
			fprintf(stderr, "bsparse: parse with bitmaps differs\n");
			return 1;
		}
		best = t < best ? t : best;
	}
	report("parse_bitmaps", best, len);

	r = make_root(argv[1], buf, len, root, sizeof(root), leaf, sizeof(leaf));
	if (r == 0)
		r = sysfs_open_root(root, &root_fd);
	if (r < 0) {
		fprintf(stderr, "bsparse: temporary root: %s\n", strerror(-r));
		return 1;
	}
	best = UINT64_MAX;
	for (uint64_t i = 0; i < repeat; i++) {
		uint64_t t0 = now_ns(), t;

		r = blockstate_read(root_fd, 0, &c2, &inc, NULL);
		t = now_ns() - t0;
		if (r < 0 || memcmp(&c, &c2, sizeof(c)) != 0) {
			fprintf(stderr, "bsparse: blockstate_read: %s\n",
				r < 0 ? strerror(-r) : "counts differ");
			remove_root(root, leaf);
			return 1;
		}
		best = t < best ? t : best;
	}
	report("read", best, len);
	close(root_fd);
	remove_root(root, leaf);
	bs_bitmap_free(&inc);
	bs_bitmap_free(&rec);
	free(buf);
	return 0;
}
