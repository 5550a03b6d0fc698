// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * swapload: a swap workload for `make bench` inside the VM (tests/bench/guest/bench_swap.sh).
 *
 *   swapload hold MIB
 *       mlock MIB MiB of anonymous memory and wait for SIGTERM: the guest has less RAM for
 *       the workload (the test kernel has no memory cgroups to limit it otherwise).
 *   swapload run FILE MIB HOT_PERCENT SECONDS SEED [COLD_EVERY [WARMUP [VERIFY]]]
 *       fill MIB MiB of anonymous memory with the 4 KiB pages of FILE (cyclically; the page
 *       index in the first 8 bytes, so that no two pages are equal), print "SWAPLOAD filled
 *       NS", then for SECONDS keep the first HOT_PERCENT of the pages busy (read a word,
 *       write a byte of a random hot page: one operation) and after every COLD_EVERY
 *       operations (default 256) read one random cold page, timing that access (a swap-in
 *       when the page is in zram). With WARMUP, the same loop runs WARMUP seconds first
 *       and prints "SWAPLOAD warmup ops N seconds S ops_per_s R"; every 10 s of either
 *       phase prints "SWAPLOAD window PHASE T ops_per_s R".
 *       Then print
 *         "SWAPLOAD ops N seconds S ops_per_s R cold_reads K cold_p50_us A cold_p99_us B"
 *       and wait for SIGTERM with the memory still held, so that the pool can be measured.
 *       With VERIFY 1 (the check tier's swap_short scenario), after that line: one line
 *       "SWAPLOAD hotslot OFFSET" per hot page that is swapped out (its swap offset, from
 *       /proc/self/pagemap: the zram slot index; pages of the kernel's size here, 4 KiB ones
 *       everywhere else), "SWAPLOAD hotslots N", then, on SIGUSR1,
 *       every page is compared with FILE (its index in the first 8 bytes; the bytes the hot
 *       loop increments, 128..191, skipped for hot pages) and
 *         "SWAPLOAD verify pages N bad M first_bad I"
 *       is printed before waiting for SIGTERM.
 *
 *   swapload swapon DEVICE PRIORITY
 *       swapon(2) with SWAP_FLAG_PREFER and PRIORITY (0..32767): busybox's swapon has no -p,
 *       and the setup tools swap zram on with a priority (zram-tools 100, zram-generator 100).
 *
 * A SIGUSR1 during the hot loop ends it early (the adopt scenario verifies while adopting).
 *
 * Time is CLOCK_MONOTONIC (under qemu -icount: emulated instructions). Same SEED, same
 * sequence of pages. Exit 0, 1 on failure (message on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define MAX_SAMPLES 200000u

static volatile sig_atomic_t stop, go;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rng(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static int parse(const char *s, unsigned long long max, unsigned long long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || *end || end == s || *ret > max ? -1 : 0;
}

static void wait_term(void)
{
	while (!stop)
		pause();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int hold(unsigned long long mib)
{
	size_t len = (size_t)mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mlock(p, len) < 0) {
		perror("swapload: hold");
		return 1;
	}
	memset(p, 1, len);
	printf("SWAPLOAD holding %llu MiB\n", mib);
	fflush(stdout);
	wait_term();
	return 0;
}

struct load {
	unsigned char *mem;
	size_t pages, hot;
	unsigned long long cold_every;
	uint64_t rng, sum;
	uint64_t samples[MAX_SAMPLES];
	uint64_t nsamp;
};

/*
 * Run the hot loop for SECONDS: returns the operations done, *ns the time taken. Every 10 s
 * prints "SWAPLOAD window PHASE T ops_per_s R" (throughput over time). Cold-read latencies
 * are kept when record is set.
 */
static uint64_t phase(struct load *l, const char *name, unsigned long long seconds, bool record,
		      uint64_t *ns)
{
	uint64_t t0 = now_ns(), end = t0 + seconds * 1000000000ull, win = t0, win_ops = 0;
	uint64_t ops = 0;

	while (!stop && !go) {
		uint64_t t;

		for (unsigned long long k = 0; k < l->cold_every; k++) {
			unsigned char *p = l->mem + (rng(&l->rng) % l->hot) * PAGE;
			uint64_t w;

			memcpy(&w, p + 64, sizeof(w));
			l->sum += w;
			p[128 + (ops & 63)]++;
			ops++;
		}
		{
			unsigned char *p =
				l->mem + (l->hot + rng(&l->rng) % (l->pages - l->hot)) * PAGE;
			uint64_t a = now_ns();

			l->sum += *(volatile unsigned char *)(p + 256);
			if (record && l->nsamp < MAX_SAMPLES)
				l->samples[l->nsamp++] = now_ns() - a;
		}
		t = now_ns();
		if (t - win >= 10000000000ull) {
			printf("SWAPLOAD window %s %.0f ops_per_s %.0f\n", name,
			       (double)(win - t0) / 1e9, (double)(ops - win_ops) / ((double)(t - win) / 1e9));
			fflush(stdout);
			win = t;
			win_ops = ops;
		}
		if (t >= end)
			break;
	}
	*ns = now_ns() - t0;
	return ops;
}

/* The swap offsets of the hot pages that are swapped out, one line each. pagemap has one
 * entry per page of the kernel's size (16 KiB on the arm64 test kernel: four of the
 * workload's 4 KiB pages share it, and a zram slot), so the hot region is walked in those. */
static void hot_slots(const struct load *l)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long kpage = sysconf(_SC_PAGESIZE);
	size_t kp = kpage > 0 ? (size_t)kpage : PAGE;
	uintptr_t first = (uintptr_t)l->mem / kp;
	size_t kpages = (l->hot * PAGE + kp - 1) / kp;
	uint64_t n = 0;

	if (fd < 0) {
		perror("swapload: /proc/self/pagemap");
		return;
	}
	for (size_t i = 0; i < kpages; i++) {
		uint64_t e;

		if (pread(fd, &e, sizeof(e), (off_t)((first + i) * sizeof(e))) != sizeof(e))
			break;
		/* bit 62: swapped; bits 0-4 the swap type, 5-54 the offset (proc(5)) */
		if ((e >> 62) & 1) {
			printf("SWAPLOAD hotslot %llu\n",
			       (unsigned long long)((e >> 5) & ((1ull << 50) - 1)));
			n++;
		}
	}
	close(fd);
	printf("SWAPLOAD hotslots %llu\n", (unsigned long long)n);
	fflush(stdout);
}

/* Every page against the file: what went through zram (and recompression) came back. */
static void verify(const struct load *l, int fd, size_t nfile)
{
	unsigned char want[PAGE];
	uint64_t bad = 0, first_bad = 0;

	for (size_t i = 0; i < l->pages; i++) {
		const unsigned char *p = l->mem + i * PAGE;
		uint64_t idx = i;
		bool ok;

		if (pread(fd, want, PAGE, (off_t)((i % nfile) * PAGE)) != (ssize_t)PAGE) {
			perror("swapload: read");
			bad++;
			continue;
		}
		memcpy(want, &idx, sizeof(idx));
		if (i < l->hot)
			ok = memcmp(p, want, 128) == 0 &&
			     memcmp(p + 192, want + 192, PAGE - 192) == 0;
		else
			ok = memcmp(p, want, PAGE) == 0;
		if (!ok && !bad++)
			first_bad = i;
	}
	printf("SWAPLOAD verify pages %llu bad %llu first_bad %llu\n",
	       (unsigned long long)l->pages, (unsigned long long)bad,
	       (unsigned long long)first_bad);
	fflush(stdout);
}

static int run(const char *file, unsigned long long mib, unsigned long long hot_pct,
	       unsigned long long seconds, uint64_t seed, unsigned long long cold_every,
	       unsigned long long warmup, bool check)
{
	size_t pages = (size_t)(mib << 20) / PAGE, nfile;
	struct load *l = calloc(1, sizeof(*l));
	uint64_t t0, ns, ops;
	off_t fsize;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (fsize = lseek(fd, 0, SEEK_END)) < (off_t)PAGE || !l) {
		fprintf(stderr, "swapload: %s: no pages\n", file);
		return 1;
	}
	nfile = (size_t)fsize / PAGE;
	l->pages = pages;
	l->hot = pages * hot_pct / 100;
	l->cold_every = cold_every;
	l->rng = seed ? seed : 1;
	if (l->hot == 0 || l->hot >= pages) {
		fprintf(stderr, "swapload: hot share leaves no hot or no cold pages\n");
		return 2;
	}
	l->mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (l->mem == MAP_FAILED) {
		perror("swapload: mmap");
		return 1;
	}
	t0 = now_ns();
	for (size_t i = 0; i < pages; i++) {
		uint64_t idx = i;

		if (pread(fd, l->mem + i * PAGE, PAGE, (off_t)((i % nfile) * PAGE)) != (ssize_t)PAGE) {
			perror("swapload: read");
			return 1;
		}
		memcpy(l->mem + i * PAGE, &idx, sizeof(idx));
	}
	if (!check)
		close(fd);
	printf("SWAPLOAD filled %llu\n", (unsigned long long)(now_ns() - t0));
	fflush(stdout);

	if (warmup) {
		ops = phase(l, "warmup", warmup, false, &ns);
		printf("SWAPLOAD warmup ops %llu seconds %.3f ops_per_s %.0f\n",
		       (unsigned long long)ops, (double)ns / 1e9, (double)ops / ((double)ns / 1e9));
		fflush(stdout);
	}
	ops = phase(l, "measured", seconds, true, &ns);
	qsort(l->samples, l->nsamp, sizeof(l->samples[0]), cmp_u64);
	printf("SWAPLOAD ops %llu seconds %.3f ops_per_s %.0f cold_reads %llu cold_p50_us %.1f "
	       "cold_p99_us %.1f check %llu\n",
	       (unsigned long long)ops, (double)ns / 1e9, (double)ops / ((double)ns / 1e9),
	       (unsigned long long)l->nsamp,
	       l->nsamp ? (double)l->samples[l->nsamp / 2] / 1e3 : 0.0,
	       l->nsamp ? (double)l->samples[l->nsamp * 99 / 100] / 1e3 : 0.0,
	       (unsigned long long)(l->sum & 1));
	fflush(stdout);
	if (check) {
		hot_slots(l);
		while (!go && !stop)
			pause();
		if (!stop)
			verify(l, fd, nfile);
		close(fd);
	}
	free(l);
	wait_term();
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long mib, hot, secs, seed, cold_every = 256, warmup = 0, check = 0;

	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGUSR1, on_usr1);
	if (argc == 3 && strcmp(argv[1], "hold") == 0 && parse(argv[2], 1ull << 20, &mib) == 0)
		return hold(mib);
	if (argc == 4 && strcmp(argv[1], "swapon") == 0 && parse(argv[3], 32767, &hot) == 0) {
		if (swapon(argv[2], SWAP_FLAG_PREFER | ((int)hot & SWAP_FLAG_PRIO_MASK)) < 0) {
			perror("swapload: swapon");
			return 1;
		}
		return 0;
	}
	if (argc >= 7 && argc <= 10 && strcmp(argv[1], "run") == 0 &&
	    parse(argv[3], 1ull << 20, &mib) == 0 && parse(argv[4], 99, &hot) == 0 &&
	    parse(argv[5], 86400, &secs) == 0 && parse(argv[6], UINT64_MAX, &seed) == 0 &&
	    (argc < 8 || (parse(argv[7], 1ull << 32, &cold_every) == 0 && cold_every > 0)) &&
	    (argc < 9 || parse(argv[8], 86400, &warmup) == 0) &&
	    (argc < 10 || parse(argv[9], 1, &check) == 0))
		return run(argv[2], mib, hot, secs, seed, cold_every, warmup, check);
	fprintf(stderr, "usage: swapload hold MIB | swapload run FILE MIB HOT_PERCENT SECONDS SEED "
			"[COLD_EVERY [WARMUP [VERIFY]]] | swapload swapon DEVICE PRIORITY\n");
	return 2;
}
