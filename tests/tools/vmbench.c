// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmbench: timing helper for `make bench` inside the VM (the scripts in tests/bench/guest).
 * The guest has busybox only, whose clocks stop at centiseconds and whose shell pays a fork
 * per measurement; this tool times sysfs writes and process events in nanoseconds.
 *
 *   vmbench now                      CLOCK_MONOTONIC in ns
 *   vmbench sleepuntil NS            sleep until CLOCK_MONOTONIC reaches NS (absolute)
 *   vmbench write FILE STRING        one open+write+close; prints "NS ERRNO CPU_NS" (0 =
 *                                    success; CPU_NS: the process's CPU time in it)
 *   vmbench readloop FILE MS SECONDS read FILE every MS ms for SECONDS s or until SIGTERM,
 *                                    as a monitoring agent does; prints "reads N max_ns M
 *                                    over_1s K" at the end and whenever a read was the
 *                                    longest so far (the longest read: 7.0+ readers of
 *                                    mm_stat wait for a running recompress write)
 *   vmbench poolloop MS SECONDS      nr_zspages (/proc/vmstat) and the swap in use every MS
 *                                    ms for SECONDS s; prints "pool samples N mean_pages M
 *                                    mean_swap_kb S last_pages L", means weighted by the
 *                                    time each sample stood
 *   vmbench batches DEV STRING MAX   write STRING to /sys/block/DEV/recompress again and again,
 *                                    as zram-recompd does, while a write makes progress
 *                                    (compr_data_size or huge_pages fell, or block_state got
 *                                    new r/n marks), at most MAX times; one line per write
 *                                    "write NS COMPR HUGE", then "writes N total_ns T max_ns M"
 *   vmbench rewrite DEV FILE STRIDE  rewrite every STRIDE-th 4 KiB page of /dev/DEV (index 0,
 *                                    STRIDE, 2*STRIDE, ...) with the same page of FILE, with
 *                                    O_DIRECT (no page cache, like dd oflag=direct);
 *                                    prints "PAGES NS"
 *   vmbench term PID DEV TIMEOUT_S   wait until compr_data_size of DEV changes (a pass is
 *                                    running), send SIGTERM to PID, wait until PID has exited
 *                                    (gone or a zombie); prints "NS COMPR_BEFORE COMPR_AT_SIGNAL"
 *   vmbench termcpu PID TICKS TIMEOUT_S
 *                                    the same, but the signal goes out once the threads of
 *                                    PID have spent TICKS more clock ticks in the kernel
 *                                    (stime): a pass that changes nothing is running;
 *                                    prints "NS STIME_BEFORE STIME_AT_SIGNAL"
 *   vmbench termwrite PID ATTR MS TIMEOUT_S
 *                                    the same, but the signal goes out once PID has had a file
 *                                    named ATTR (e.g. recompress) open for MS milliseconds:
 *                                    zram-recompd holds it open only around one write;
 *                                    prints "NS MS_OPEN_AT_SIGNAL"
 *   vmbench run OUT PROG ARG...      run PROG (an absolute path, no shell) with stdout and
 *                                    stderr to the file OUT and wait for it; prints "NS EXIT
 *                                    UTIME_NS STIME_NS": wall time, exit code (128 + signal
 *                                    when killed), and the CPU of all its threads (wait4's
 *                                    rusage; busybox's shell can only give the ticks of all
 *                                    its children at once)
 *   vmbench proc PID                 the whole process (all threads): "utime_ticks stime_ticks
 *                                    voluntary_cs nonvoluntary_cs vmhwm_kb vmrss_kb threads
 *                                    rss_anon_kb rss_file_kb rss_shmem_kb uss_kb pss_kb"
 *                                    (USS = Private_Clean + Private_Dirty of smaps_rollup;
 *                                    0 0 without smaps_rollup)
 *
 * Exit status 0, 1 on failure (message on stderr), 2 on bad usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int parse_num(const char *s, uint64_t *ret)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ULL),
			      .tv_nsec = (long)(ns % 1000000000ULL)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Whole small file into buf (NUL-terminated); bytes read or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* One write as zram-recompd does it: open, write the string, close. Returns 0 or errno. */
static int timed_write(const char *path, const char *s, uint64_t *ret_ns)
{
	uint64_t t0 = now_ns();
	size_t len = strlen(s);
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		ssize_t w = write(fd, s, len);

		if (w < 0)
			err = errno;
		else if ((size_t)w != len)
			err = EIO;
		close(fd);
	}
	*ret_ns = now_ns() - t0;
	return err;
}

struct mm {
	uint64_t compr, huge;
};

static int read_mm(const char *dev, struct mm *m)
{
	char path[256], buf[512];
	uint64_t v[9] = {0};
	char *p = buf, *end;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/block/%s/mm_stat", dev);
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (int i = 0; i < 9; i++) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		v[i] = strtoull(p, &end, 10);
		p = end;
	}
	m->compr = v[1];
	m->huge = v[7];
	return 0;
}

/* Slots marked r or n in block_state (40-byte lines, flags at columns 33-38). */
static int read_marks(const char *dev, uint64_t *ret)
{
	static char buf[1 << 20];
	char path[256];
	uint64_t marks = 0;
	size_t have = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/zram/%s/block_state", dev);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		size_t i = 0;

		if (n < 0) {
			int r = -errno;

			close(fd);
			return r;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		for (char *nl; (nl = memchr(buf + i, '\n', have - i)); i = (size_t)(nl - buf) + 1) {
			size_t len = (size_t)(nl - (buf + i));

			/* the flag column is the last six characters of the line */
			if (len >= 6 && (buf[i + len - 2] == 'r' || buf[i + len - 1] == 'n'))
				marks++;
		}
		memmove(buf, buf + i, have - i);
		have -= i;
	}
	close(fd);
	*ret = marks;
	return 0;
}

static int cmd_batches(const char *dev, const char *cmd, uint64_t max)
{
	char path[256];
	uint64_t total = 0, worst = 0, writes = 0, marks = 0;
	bool have_marks = read_marks(dev, &marks) == 0;
	struct mm before, after;

	snprintf(path, sizeof(path), "/sys/block/%s/recompress", dev);
	if (read_mm(dev, &before) < 0) {
		fprintf(stderr, "vmbench: %s: cannot read mm_stat\n", dev);
		return 1;
	}
	while (writes < max) {
		uint64_t ns, m2;
		bool progress;
		int err = timed_write(path, cmd, &ns);

		if (err) {
			fprintf(stderr, "vmbench: write '%s' to %s: %s\n", cmd, path,
				strerror(err));
			return 1;
		}
		writes++;
		total += ns;
		if (ns > worst)
			worst = ns;
		if (read_mm(dev, &after) < 0)
			return 1;
		printf("write %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", ns, after.compr, after.huge);
		progress = after.compr < before.compr || after.huge < before.huge;
		if (!progress && have_marks && read_marks(dev, &m2) == 0) {
			progress = m2 != marks;
			marks = m2;
		}
		before = after;
		if (!progress)
			break;
	}
	printf("writes %" PRIu64 " total_ns %" PRIu64 " max_ns %" PRIu64 "\n", writes, total,
	       worst);
	return 0;
}

static int cmd_rewrite(const char *dev, const char *file, uint64_t stride)
{
	char path[256];
	void *page;
	uint64_t pages = 0, t0;
	int in, out;
	off_t size;

	if (stride == 0)
		return 2;
	if (posix_memalign(&page, PAGE, PAGE) != 0)
		return 1;
	snprintf(path, sizeof(path), "/dev/%s", dev);
	in = open(file, O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (in < 0 || out < 0) {
		fprintf(stderr, "vmbench: open %s or %s: %s\n", file, path, strerror(errno));
		return 1;
	}
	size = lseek(in, 0, SEEK_END);
	t0 = now_ns();
	for (uint64_t i = 0; (off_t)((i + 1) * PAGE) <= size; i += stride) {
		off_t off = (off_t)(i * PAGE);

		if (pread(in, page, PAGE, off) != PAGE || pwrite(out, page, PAGE, off) != PAGE) {
			fprintf(stderr, "vmbench: rewrite page %" PRIu64 ": %s\n", i,
				strerror(errno));
			return 1;
		}
		pages++;
	}
	printf("%" PRIu64 " %" PRIu64 "\n", pages, now_ns() - t0);
	close(in);
	close(out);
	free(page);
	return 0;
}

/* 'Z'ombie, 'X' dead, or gone: the process has exited. */
static bool exited(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return true;
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

static int cmd_term(pid_t pid, const char *dev, uint64_t timeout_s)
{
	uint64_t deadline = now_ns() + timeout_s * 1000000000ULL, t0;
	struct mm start, cur;

	if (read_mm(dev, &start) < 0)
		return 1;
	for (;;) {
		if (read_mm(dev, &cur) < 0)
			return 1;
		if (cur.compr != start.compr)
			break;
		if (exited(pid)) {
			fprintf(stderr, "vmbench: process %d exited before a pass started\n",
				(int)pid);
			return 1;
		}
		if (now_ns() > deadline) {
			fprintf(stderr, "vmbench: no pass started within %" PRIu64 " s\n",
				timeout_s);
			return 1;
		}
		sleep_ns(2000000);
	}
	t0 = now_ns();
	if (kill(pid, SIGTERM) < 0) {
		perror("vmbench: kill");
		return 1;
	}
	while (!exited(pid)) {
		if (now_ns() > deadline + 60000000000ULL) {
			fprintf(stderr, "vmbench: process %d still running 60 s after SIGTERM\n",
				(int)pid);
			return 1;
		}
		sleep_ns(1000000);
	}
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", now_ns() - t0, start.compr, cur.compr);
	return 0;
}

/* utime and stime of every thread of pid, in clock ticks; -errno when it is gone. */
static int proc_times(pid_t pid, uint64_t *ret_ut, uint64_t *ret_st)
{
	char path[128], buf[1024], *p;
	uint64_t ut = 0, st = 0;
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char tpath[512];
		unsigned long long u = 0, s = 0;

		if (de->d_name[0] == '.')
			continue;
		snprintf(tpath, sizeof(tpath), "/proc/%d/task/%s/stat", (int)pid, de->d_name);
		/* fields after the comm: state(3) ... utime(14) stime(15) */
		if (read_file(tpath, buf, sizeof(buf)) >= 0 && (p = strrchr(buf, ')')) &&
		    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &u,
			   &s) == 2) {
			ut += u;
			st += s;
		}
	}
	closedir(dir);
	*ret_ut = ut;
	*ret_st = st;
	return 0;
}

static int cmd_termcpu(pid_t pid, uint64_t ticks, uint64_t timeout_s)
{
	uint64_t deadline = now_ns() + timeout_s * 1000000000ULL, t0, ut, st0, st;

	if (proc_times(pid, &ut, &st0) < 0)
		return 1;
	for (;;) {
		if (exited(pid) || proc_times(pid, &ut, &st) < 0) {
			fprintf(stderr, "vmbench: process %d exited before a pass started\n",
				(int)pid);
			return 1;
		}
		if (st >= st0 + ticks)
			break;
		if (now_ns() > deadline) {
			fprintf(stderr, "vmbench: no kernel time within %" PRIu64 " s\n",
				timeout_s);
			return 1;
		}
		sleep_ns(2000000);
	}
	t0 = now_ns();
	if (kill(pid, SIGTERM) < 0) {
		perror("vmbench: kill");
		return 1;
	}
	while (!exited(pid)) {
		if (now_ns() > deadline + 60000000000ULL) {
			fprintf(stderr, "vmbench: process %d still running 60 s after SIGTERM\n",
				(int)pid);
			return 1;
		}
		sleep_ns(1000000);
	}
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", now_ns() - t0, st0, st);
	return 0;
}

/*
 * The fd of pid open on a file named attr, or -1. zram-recompd opens an attribute, writes
 * one command and closes it again, so an open "recompress" is a write in progress (the
 * writer's /proc/TID/syscall says only "running" while the kernel works for it).
 */
static int open_attr(pid_t pid, const char *attr)
{
	char path[64], link[512];
	struct dirent *de;
	int found = -1;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while (found < 0 && (de = readdir(dir))) {
		char fpath[512];
		const char *base;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fpath, sizeof(fpath), "/proc/%d/fd/%s", (int)pid, de->d_name);
		n = readlink(fpath, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		base = strrchr(link, '/');
		if (base && !strcmp(base + 1, attr))
			found = (int)strtol(de->d_name, NULL, 10);
	}
	closedir(dir);
	return found;
}

static volatile sig_atomic_t readloop_stop;

static void on_readloop_term(int sig)
{
	(void)sig;
	readloop_stop = 1;
}

static int cmd_readloop(const char *path, uint64_t ms, uint64_t seconds)
{
	struct sigaction sa = { .sa_handler = on_readloop_term };
	uint64_t end = now_ns() + seconds * 1000000000ULL, n = 0, worst = 0, over = 0;
	char buf[512];

	sigaction(SIGTERM, &sa, NULL);
	while (!readloop_stop && now_ns() < end) {
		struct timespec ts = { .tv_sec = (time_t)(ms / 1000),
				       .tv_nsec = (long)(ms % 1000) * 1000000L };
		uint64_t t0 = now_ns(), t;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				fprintf(stderr, "vmbench: read %s: %s\n", path, strerror(errno));
			close(fd);
		}
		t = now_ns() - t0;
		n++;
		if (t > 1000000000ULL)
			over++;
		if (t > worst) {
			/* at once: a reader still blocked when it is killed has said the rest */
			worst = t;
			printf("reads %" PRIu64 " max_ns %" PRIu64 " over_1s %" PRIu64 "\n", n, worst,
			       over);
			fflush(stdout);
		}
		nanosleep(&ts, NULL);
	}
	printf("reads %" PRIu64 " max_ns %" PRIu64 " over_1s %" PRIu64 "\n", n, worst, over);
	return 0;
}

/* nr_zspages (/proc/vmstat) and the swap in use in KiB (/proc/meminfo): no zram lock */
static int pool_sample(long long *pages, long long *swap_kb)
{
	static const char zs[] = "\nnr_zspages ", st[] = "\nSwapTotal:", sf[] = "\nSwapFree:";
	char buf[16384];
	const char *p, *t, *f;

	/* one read gets either file whole (seq_file fills the buffer) */
	if (read_file("/proc/vmstat", buf, sizeof(buf)) < 0 || !(p = strstr(buf, zs)))
		return -1;
	*pages = strtoll(p + sizeof(zs) - 1, NULL, 10);
	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0 || !(t = strstr(buf, st)) ||
	    !(f = strstr(buf, sf)))
		return -1;
	*swap_kb = strtoll(t + sizeof(st) - 1, NULL, 10) - strtoll(f + sizeof(sf) - 1, NULL, 10);
	return 0;
}

/*
 * The pool through a window: nr_zspages and the swap in use every MS ms for SECONDS s, each
 * sample weighted by the time it stood (a sample the scheduler delays counts for longer),
 * then "pool samples N mean_pages M mean_swap_kb S last_pages L".
 */
static int cmd_poolloop(uint64_t ms, uint64_t seconds)
{
	uint64_t t0 = now_ns(), end = t0 + seconds * 1000000000ULL, t = t0, n = 0;
	long double sum = 0, sum_swap = 0;
	long long v, sw;

	if (pool_sample(&v, &sw) < 0) {
		fprintf(stderr, "vmbench: no nr_zspages or swap figures in /proc\n");
		return 1;
	}
	while (t < end) {
		uint64_t next = t + ms * 1000000ULL, now;
		long long v2, sw2;

		if (next > end)
			next = end;
		now = now_ns();
		if (next > now)
			sleep_ns(next - now);
		now = now_ns();
		sum += (long double)v * (long double)(now - t);
		sum_swap += (long double)sw * (long double)(now - t);
		n++;
		t = now;
		if (pool_sample(&v2, &sw2) == 0) {
			v = v2;
			sw = sw2;
		}
	}
	printf("pool samples %" PRIu64 " mean_pages %.1Lf mean_swap_kb %.1Lf last_pages %lld\n", n,
	       sum / (long double)(t - t0), sum_swap / (long double)(t - t0), v);
	return 0;
}

static int cmd_termwrite(pid_t pid, const char *attr, uint64_t ms, uint64_t timeout_s)
{
	uint64_t deadline = now_ns() + timeout_s * 1000000000ULL, since = 0, t0;
	int fd, last = -1;

	for (;;) {
		if (exited(pid)) {
			fprintf(stderr, "vmbench: process %d exited first\n", (int)pid);
			return 1;
		}
		fd = open_attr(pid, attr);
		if (fd >= 0 && fd == last) {
			if (now_ns() - since >= ms * 1000000ULL)
				break;
		} else {
			since = now_ns();
		}
		last = fd;
		if (now_ns() > deadline) {
			fprintf(stderr,
				"vmbench: no write to %s of %" PRIu64 " ms within %" PRIu64 " s\n",
				attr, ms, timeout_s);
			return 1;
		}
		sleep_ns(1000000);
	}
	t0 = now_ns();
	if (kill(pid, SIGTERM) < 0) {
		perror("vmbench: kill");
		return 1;
	}
	while (!exited(pid)) {
		if (now_ns() > deadline + 60000000000ULL) {
			fprintf(stderr, "vmbench: process %d still running 60 s after SIGTERM\n",
				(int)pid);
			return 1;
		}
		sleep_ns(1000000);
	}
	printf("%" PRIu64 " %" PRIu64 "\n", now_ns() - t0, (uint64_t)((t0 - since) / 1000000U));
	return 0;
}

/* The value after "Key:" in a /proc status file, or 0. */
static uint64_t status_field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int cmd_proc(pid_t pid)
{
	char path[128], buf[4096];
	uint64_t ut = 0, st = 0, vcs = 0, ncs = 0, hwm, rss, anon, file, shmem, threads = 0;
	uint64_t uss = 0, pss = 0;
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0) {
		fprintf(stderr, "vmbench: no process %d\n", (int)pid);
		return 1;
	}
	hwm = status_field(buf, "VmHWM:");
	rss = status_field(buf, "VmRSS:");
	anon = status_field(buf, "RssAnon:");
	file = status_field(buf, "RssFile:");
	shmem = status_field(buf, "RssShmem:");
	/* Per-thread counters: the process-wide status line only counts the main thread's
	 * context switches, and the daemon's worker sleeps in its own thread. */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 1;
	while ((de = readdir(dir))) {
		char tpath[512];

		if (de->d_name[0] == '.')
			continue;
		threads++;
		snprintf(tpath, sizeof(tpath), "/proc/%d/task/%s/status", (int)pid, de->d_name);
		if (read_file(tpath, buf, sizeof(buf)) >= 0) {
			vcs += status_field(buf, "\nvoluntary_ctxt_switches:");
			ncs += status_field(buf, "nonvoluntary_ctxt_switches:");
		}
	}
	closedir(dir);
	if (proc_times(pid, &ut, &st) < 0)
		return 1;
	/*
	 * What the process costs the machine: USS (its private pages, what killing it frees)
	 * and PSS (shared pages divided among their users), from smaps_rollup (4.14+). VmHWM
	 * counts every shared library page in full.
	 */
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if (read_file(path, buf, sizeof(buf)) >= 0) {
		uss = status_field(buf, "\nPrivate_Clean:") + status_field(buf, "\nPrivate_Dirty:");
		pss = status_field(buf, "\nPss:");
	}
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	       " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       ut, st, vcs, ncs, hwm, rss, threads, anon, file, shmem, uss, pss);
	return 0;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ULL + (uint64_t)tv->tv_usec * 1000ULL;
}

/* The CPU a program costs, measured from outside (the bench's `--once` runs). */
static int cmd_run(const char *out, char **argv)
{
	struct rusage ru;
	uint64_t t0, t1;
	pid_t pid;
	int status, code, fd;

	if (argv[0][0] != '/') {
		fprintf(stderr, "vmbench run: %s: not an absolute path\n", argv[0]);
		return 2;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "vmbench run: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fflush(stdout);
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "vmbench run: fork: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	if (pid == 0) {
		if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		dprintf(2, "vmbench run: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "vmbench run: wait4: %s\n", strerror(errno));
			return 1;
		}
	}
	t1 = now_ns();
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("%" PRIu64 " %d %" PRIu64 " %" PRIu64 "\n", t1 - t0, code, tv_ns(&ru.ru_utime),
	       tv_ns(&ru.ru_stime));
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: vmbench now | sleepuntil NS | write FILE STRING |\n"
			"       readloop FILE MS SECONDS | poolloop MS SECONDS |\n"
			"       batches DEV STRING MAX | rewrite DEV FILE STRIDE |\n"
			"       term PID DEV TIMEOUT_S | termcpu PID TICKS TIMEOUT_S |\n"
			"       termwrite PID ATTR MS TIMEOUT_S | run OUT PROG ARG... |\n"
			"       proc PID\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t a, b;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "now") && argc == 2) {
		printf("%" PRIu64 "\n", now_ns());
		return 0;
	}
	if (!strcmp(argv[1], "sleepuntil") && argc == 3) {
		uint64_t now = now_ns();

		if (parse_num(argv[2], &a) < 0)
			return usage();
		if (a > now)
			sleep_ns(a - now);
		return 0;
	}
	if (!strcmp(argv[1], "write") && argc == 4) {
		uint64_t c0 = cpu_ns();
		int err = timed_write(argv[2], argv[3], &a);

		printf("%" PRIu64 " %d %" PRIu64 "\n", a, err, cpu_ns() - c0);
		return 0;
	}
	if (!strcmp(argv[1], "readloop") && argc == 5) {
		if (parse_num(argv[3], &a) < 0 || parse_num(argv[4], &b) < 0)
			return usage();
		return cmd_readloop(argv[2], a, b);
	}
	if (!strcmp(argv[1], "poolloop") && argc == 4) {
		if (parse_num(argv[2], &a) < 0 || parse_num(argv[3], &b) < 0 || a == 0)
			return usage();
		return cmd_poolloop(a, b);
	}
	if (!strcmp(argv[1], "batches") && argc == 5) {
		if (parse_num(argv[4], &a) < 0)
			return usage();
		return cmd_batches(argv[2], argv[3], a);
	}
	if (!strcmp(argv[1], "rewrite") && argc == 5) {
		if (parse_num(argv[4], &a) < 0)
			return usage();
		return cmd_rewrite(argv[2], argv[3], a);
	}
	if (!strcmp(argv[1], "term") && argc == 5) {
		if (parse_num(argv[2], &a) < 0 || parse_num(argv[4], &b) < 0)
			return usage();
		return cmd_term((pid_t)a, argv[3], b);
	}
	if (!strcmp(argv[1], "termcpu") && argc == 5) {
		uint64_t c;

		if (parse_num(argv[2], &a) < 0 || parse_num(argv[3], &b) < 0 ||
		    parse_num(argv[4], &c) < 0)
			return usage();
		return cmd_termcpu((pid_t)a, b, c);
	}
	if (!strcmp(argv[1], "termwrite") && argc == 6) {
		uint64_t c;

		if (parse_num(argv[2], &a) < 0 || parse_num(argv[4], &b) < 0 ||
		    parse_num(argv[5], &c) < 0)
			return usage();
		return cmd_termwrite((pid_t)a, argv[3], b, c);
	}
	if (!strcmp(argv[1], "run") && argc >= 4)
		return cmd_run(argv[2], argv + 3);
	if (!strcmp(argv[1], "proc") && argc == 3) {
		if (parse_num(argv[2], &a) < 0)
			return usage();
		return cmd_proc((pid_t)a);
	}
	return usage();
}
