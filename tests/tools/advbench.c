// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * advbench: benchmark of `zram-recompd advise` (not a test).
 *
 *   build/tools/advbench [--samples N] PAGEFILE      (4 KiB pages, plain or .zst)
 *
 * 1. Per algorithm: compress and decompress every non-same page of the file, pages per
 *    second and MB/s on this CPU, plus the compression ratio.
 * 2. advise end to end, each in a child process (wall time and that child's peak RSS):
 *    a fake device (a temporary root holding sys/block/zram0, block_state and dev/zram0
 *    made of the file's pages) sampled with --samples N (default 4096) and the four default
 *    candidates, once with --threads 1 and once with the default (one thread per CPU); the
 *    file sampled the same way; the whole file.
 */
#include "advise.h"
#include "compress.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

static uint8_t *pages;
static size_t npages;

static int load(const char *path)
{
	FILE *f = fopen(path, "rbe");
	uint8_t *raw = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return -errno;
	for (;;) {
		if (len == cap) {
			uint8_t *p;

			cap = cap ? cap * 2 : 1 << 20;
			p = realloc(raw, cap);
			if (!p) {
				fclose(f);
				free(raw);
				return -ENOMEM;
			}
			raw = p;
		}
		n = fread(raw + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	if (len >= 4 && raw[0] == 0x28 && raw[1] == 0xb5 && raw[2] == 0x2f && raw[3] == 0xfd) {
		unsigned long long size = ZSTD_getFrameContentSize(raw, len);
		size_t got;

		if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) {
			free(raw);
			return -EINVAL;
		}
		pages = malloc(size ? size : 1);
		if (!pages) {
			free(raw);
			return -ENOMEM;
		}
		got = ZSTD_decompress(pages, size, raw, len);
		free(raw);
		if (ZSTD_isError(got))
			return -EINVAL;
		len = got;
	} else {
		pages = raw;
	}
	npages = len / 4096u;
	return npages ? 0 : -EINVAL;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void bench_algorithms(void)
{
	static const char *const specs[] = {"lzo-rle", "lzo",	 "lz4",	    "lz4hc",
					    "zstd",    "zstd:9", "deflate", "deflate:9"};
	static uint8_t back[4096u];
	uint8_t *store = malloc(npages * COMP_DST_SIZE(4096));
	uint16_t *len = calloc(npages, sizeof(*len));

	if (!store || !len) {
		fprintf(stderr, "advbench: out of memory\n");
		goto out;
	}
	printf("%-10s %12s %10s %12s %11s %7s\n", "algorithm", "comp pages/s", "comp MB/s",
	       "decomp pg/s", "decomp MB/s", "ratio");
	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		struct comp_ctx *c = NULL;
		enum comp_algo a;
		uint64_t t0, tc, td, out = 0;
		size_t n = 0;
		int level;

		if (comp_parse_spec(specs[s], &a, &level) < 0 || comp_ctx_new(a, level, 4096, &c) < 0)
			continue;
		t0 = now_monotonic_ns();
		for (size_t i = 0; i < npages; i++) {
			const uint8_t *p = pages + i * 4096u;
			size_t l = 0;

			len[i] = 0;
			if (comp_page_same_filled(p, 4096))
				continue;
			if (comp_compress(c, p, 4096u, store + i * COMP_DST_SIZE(4096),
					  COMP_DST_SIZE(4096), &l) < 0)
				break;
			len[i] = (uint16_t)l;
			out += l;
			n++;
		}
		tc = now_monotonic_ns() - t0;
		t0 = now_monotonic_ns();
		for (size_t i = 0; i < npages; i++) {
			size_t bl = 0;

			if (len[i] && comp_decompress(c, store + i * COMP_DST_SIZE(4096), len[i], back,
						      sizeof(back), &bl) < 0)
				fprintf(stderr, "advbench: %s: page %zu does not decompress\n",
					specs[s], i);
		}
		td = now_monotonic_ns() - t0;
		comp_ctx_free(c);
		printf("%-10s %12.0f %10.1f %12.0f %11.1f %7.3f\n", specs[s], (double)n / secs(tc),
		       (double)n * 4096u / 1e6 / secs(tc), (double)n / secs(td),
		       (double)n * 4096u / 1e6 / secs(td),
		       out ? (double)n * 4096u / (double)out : 0.0);
	}
out:
	free(store);
	free(len);
}

/* What advise uses by default: one thread per CPU it may run on (at most 8). */
static unsigned ncpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > ADV_MAX_THREADS ? ADV_MAX_THREADS : (unsigned)n;
}

/* Resident set of this process now (what a forked child starts with), in MB. */
static double rss_now_mb(void)
{
	char line[256];
	double kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lf", &kb) == 1)
			break;
	fclose(f);
	return kb / 1024.0;
}

/* ---- fake device ---- */

static char root_dir[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int write_file(const char *rel, const void *data, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root_dir, rel);
	for (char *p = path + strlen(root_dir) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			(void)mkdir(path, 0755);
			*p = '/';
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

static int make_fake_device(void)
{
	char buf[256], *bs;
	size_t same = 0, bl = 0;
	int r;

	snprintf(root_dir, sizeof(root_dir), "%s/advbench-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root_dir))
		return -errno;
	bs = malloc(npages * 41 + 1);
	if (!bs)
		return -ENOMEM;
	for (size_t i = 0; i < npages; i++) {
		bool s = comp_page_same_filled(pages + i * 4096u, 4096);

		same += s;
		bl += (size_t)snprintf(bs + bl, 42, "%12zu %12zu.%06u %c.....\n", i, 1000 + i, 0u,
				       s ? 's' : '.');
	}
	r = write_file("sys/kernel/debug/zram/zram0/block_state", bs, bl);
	free(bs);
	if (r < 0)
		return r;
	snprintf(buf, sizeof(buf), "%zu %zu %zu 0 0 %zu 0 0 0\n", npages * 4096u,
		 npages * 4096u / 3, npages * 4096u / 3, same);
	if ((r = write_file("sys/block/zram0/mm_stat", buf, strlen(buf))) < 0 ||
	    (r = write_file("sys/block/zram0/initstate", "1\n", 2)) < 0)
		return r;
	snprintf(buf, sizeof(buf), "%zu\n", npages * 4096u);
	if ((r = write_file("sys/block/zram0/disksize", buf, strlen(buf))) < 0)
		return r;
	snprintf(buf, sizeof(buf), "lzo [lzo-rle] lz4 lz4hc zstd deflate \n");
	if ((r = write_file("sys/block/zram0/comp_algorithm", buf, strlen(buf))) < 0)
		return r;
	snprintf(buf, sizeof(buf), "#1: lzo lzo-rle lz4 lz4hc [zstd] deflate \n");
	if ((r = write_file("sys/block/zram0/recomp_algorithm", buf, strlen(buf))) < 0)
		return r;
	return write_file("dev/zram0", pages, npages * 4096u);
}

/* Run advise in a child with stdout discarded; wall time and the child's peak RSS. */
static void run_child(const char *label, char **argv, int argc, int root_fd)
{
	uint64_t t0 = now_monotonic_ns(), t1;
	struct rusage ru;
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (devnull >= 0)
			dup2(devnull, 1);
		_exit(advise_main(argc, argv, root_fd));
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return;
	}
	t1 = now_monotonic_ns();
	printf("%-58s exit %d, wall %6.3f s, peak RSS %6.1f MB\n", label,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1, secs(t1 - t0),
	       (double)ru.ru_maxrss / 1024.0);
}

int main(int argc, char **argv)
{
	char *file = NULL, *samples = (char[]){"4096"};
	char label[160];
	int root_fd = -1, r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
			samples = argv[++i];
		else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else {
			fprintf(stderr, "usage: advbench [--samples N] PAGEFILE\n");
			return 2;
		}
	}
	if (!file) {
		fprintf(stderr, "usage: advbench [--samples N] PAGEFILE\n");
		return 2;
	}
	r = load(file);
	if (r < 0) {
		fprintf(stderr, "advbench: cannot load %s: %s\n", file, strerror(-r));
		return 1;
	}
	printf("advbench: %zu pages from %s\n\n", npages, file);
	bench_algorithms();
	printf("\n");

	r = make_fake_device();
	if (r == 0)
		r = sysfs_open_root(root_dir, &root_fd);
	/* The children inherit what is resident here: drop the pages first. */
	free(pages);
	pages = NULL;
	printf("(each advise run is a child process; it inherits %.1f MB resident)\n",
	       rss_now_mb());
	if (r < 0) {
		fprintf(stderr, "advbench: cannot build the fake device: %s\n", strerror(-r));
	} else {
		char *a[] = {(char[]){"advise"},
			     (char[]){"--device"},
			     (char[]){"zram0"},
			     (char[]){"--samples"},
			     samples,
			     (char[]){"--seed"},
			     (char[]){"1"},
			     NULL};

		char *a1[] = {(char[]){"advise"},
			      (char[]){"--device"},
			      (char[]){"zram0"},
			      (char[]){"--samples"},
			      samples,
			      (char[]){"--seed"},
			      (char[]){"1"},
			      (char[]){"--threads"},
			      (char[]){"1"},
			      NULL};

		snprintf(label, sizeof(label),
			 "advise --device (fake, block_state) --samples %s --threads 1", samples);
		run_child(label, a1, 9, root_fd);
		snprintf(label, sizeof(label),
			 "advise --device (fake, block_state) --samples %s (%u threads)", samples,
			 ncpus());
		run_child(label, a, 7, root_fd);
		close(root_fd);
	}
	{
		char *a[] = {(char[]){"advise"},
			     (char[]){"--input"},
			     file,
			     (char[]){"--samples"},
			     samples,
			     (char[]){"--seed"},
			     (char[]){"1"},
			     NULL};

		snprintf(label, sizeof(label), "advise --input --samples %s", samples);
		run_child(label, a, 7, -1);
	}
	{
		char *a[] = {(char[]){"advise"}, (char[]){"--input"}, file, NULL};

		snprintf(label, sizeof(label), "advise --input (all %zu pages)", npages);
		run_child(label, a, 3, -1);
	}
	if (root_dir[0])
		(void)nftw(root_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
