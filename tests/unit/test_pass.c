// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pass executor against a temporary tree, with sysfs_write wrapped so that a write can
 * fail with a chosen errno or move mm_stat like a real kernel would.
 *
 * Link: tests/unit/test_pass.ldflags adds -Wl,--wrap=sysfs_write, so every call to
 * sysfs_write from the library objects (pass.c, zram.c, ...) reaches __wrap_sysfs_write
 * below, which calls the real one as __real_sysfs_write (the Makefile's unit-test rule
 * explains the convention). Calls inside sysfs.c itself are not redirected. It also wraps
 * blockstate_read, only to count the reads a pass makes (each one makes the kernel format
 * a line per slot), and calloc and realloc, only to see the largest allocation a pass makes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fakeroot.h"
#include "pass.h"
#include "sysfs.h"
#include "util.h"
#include "zram.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <inttypes.h>
#include <string.h>

#include "blockstate.h"
#include "wb_hold.h"

int __real_sysfs_write(int root_fd, const char *relpath, const char *data);
int __wrap_sysfs_write(int root_fd, const char *relpath, const char *data);
int __real_blockstate_read(int root_fd, unsigned id, struct bs_counts *ret,
			   struct bs_bitmap *incomp, struct bs_bitmap *recomp);
int __wrap_blockstate_read(int root_fd, unsigned id, struct bs_counts *ret,
			   struct bs_bitmap *incomp, struct bs_bitmap *recomp);
int __real_blockstate_read_incomp(int root_fd, unsigned id, struct bs_counts *ret,
				  struct bs_set *record, const struct bs_set *before,
				  uint64_t *new_incomp);
int __wrap_blockstate_read_incomp(int root_fd, unsigned id, struct bs_counts *ret,
				  struct bs_set *record, const struct bs_set *before,
				  uint64_t *new_incomp);

int __real_blockstate_read_incomp_slots(int root_fd, unsigned id, struct bs_counts *ret,
					struct bs_set *record, bs_slot_fn *fn, void *arg);
int __wrap_blockstate_read_incomp_slots(int root_fd, unsigned id, struct bs_counts *ret,
					struct bs_set *record, bs_slot_fn *fn, void *arg);
int __real_blockstate_read_slots(int root_fd, unsigned id, bs_slot_fn *fn, void *arg,
				 struct bs_counts *ret);
int __wrap_blockstate_read_slots(int root_fd, unsigned id, bs_slot_fn *fn, void *arg,
				 struct bs_counts *ret);

static unsigned bs_reads;

/* The largest single calloc/realloc of the library since the last reset (bitmap sizes). */
static size_t max_alloc;

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
	if (size && n <= SIZE_MAX / size && n * size > max_alloc)
		max_alloc = n * size;
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	if (size > max_alloc)
		max_alloc = size;
	return __real_realloc(p, size);
}

int __wrap_blockstate_read(int root_fd, unsigned id, struct bs_counts *ret,
			   struct bs_bitmap *incomp, struct bs_bitmap *recomp)
{
	bs_reads++;
	return __real_blockstate_read(root_fd, id, ret, incomp, recomp);
}

int __wrap_blockstate_read_incomp(int root_fd, unsigned id, struct bs_counts *ret,
				  struct bs_set *record, const struct bs_set *before,
				  uint64_t *new_incomp)
{
	bs_reads++;
	return __real_blockstate_read_incomp(root_fd, id, ret, record, before, new_incomp);
}

int __wrap_blockstate_read_incomp_slots(int root_fd, unsigned id, struct bs_counts *ret,
					struct bs_set *record, bs_slot_fn *fn, void *arg)
{
	bs_reads++;
	return __real_blockstate_read_incomp_slots(root_fd, id, ret, record, fn, arg);
}

int __wrap_blockstate_read_slots(int root_fd, unsigned id, bs_slot_fn *fn, void *arg,
				 struct bs_counts *ret)
{
	bs_reads++;
	return __real_blockstate_read_slots(root_fd, id, fn, arg, ret);
}

static struct {
	char log[8192];		/* "attr: data" lines of every attempted write */
	const char *fail_attr;	/* inject errno for writes to this attribute */
	int fail_errno;
	int fail_times;		/* how many writes fail (-1 = all) */
	int progress_batches;	/* recompress writes that shrink compr_data_size */
	int failing_batches;	/* then writes that try their pages and shrink none */
	int progress_after_failing; /* then again writes that shrink */
	uint64_t compr, used, huge;
	const char *remove_after; /* after a write to this attr, the device disappears */
	const char *bs_after_prio1; /* block_state after a "priority=1" recompress write */
	uint64_t orig;		    /* orig_data_size (0: 100 MiB) */
	uint64_t other_pages;	    /* another writer stores this many pages per recompress */
	/* a recompress write that finds pages to try takes this long per max_pages; once
	 * none are left (no progress or failing batch) it returns at once, as the kernel's.
	 * The time passes on the clock the pass reads (skew_ns), not in a sleep: a
	 * loaded host's oversleeping made the bounded-write tests flaky. */
	uint64_t ns_per_page;
	uint64_t preempt_ns_per_page; /* ... and this much more on the wall (a busy CPU) */
	bool cheap_failing;	 /* failing batches return at once (their pages cheap to try) */
	int idle_left;		 /* > 0: block_state lists this many idle slots, one fewer after
				  * each failing batch (tried pages lose their mark) */
	uint64_t wb_candidates;	    /* pages a writeback write finds (the kernel's limit applies) */
	uint64_t wb_limit, wb_written;
	bool wb_reset;		    /* after a writeback write: the device is reset */
	int wb_hold_seen;	    /* writeback writes made while state/wb-hold.zram0 existed */
} w;

static void write_mm(void)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64 " %" PRIu64 " 0 0 0 0 %" PRIu64 " 0\n",
		 w.orig ? w.orig : (uint64_t)104857600, w.compr, w.used, w.huge);
	fr_write("sys/block/zram0/mm_stat", buf);
}

/* simulated kernel time, added to the real monotonic clock (never reset: it stays monotonic) */
static uint64_t skew_ns;
/* wall time that passes while the writer is preempted: on the monotonic clock only */
static uint64_t preempt_ns;

uint64_t __real_now_monotonic_ns(void);
uint64_t __wrap_now_monotonic_ns(void);
uint64_t __wrap_now_monotonic_ns(void)
{
	return __real_now_monotonic_ns() + skew_ns + preempt_ns;
}

/* The simulated kernel time is CPU time of the writing thread as well. */
uint64_t __real_now_thread_cpu_ns(void);
uint64_t __wrap_now_thread_cpu_ns(void);
uint64_t __wrap_now_thread_cpu_ns(void)
{
	return __real_now_thread_cpu_ns() + skew_ns;
}

/* block_state with N idle slots (0..N-1) and two recompressed ones after them */
static void bs_idle(int n)
{
	size_t cap = ((size_t)n + 2) * 40 + 1, o = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%12d           17.000001 ...i..\n", i);
	(void)snprintf(buf + o, cap - o,
		       "%12d           17.000001 ....r.\n%12d           17.000001 ....r.\n", n, n + 1);
	fr_write("sys/kernel/debug/zram/zram0/block_state", buf);
	free(buf);
}

int __wrap_sysfs_write(int root_fd, const char *relpath, const char *data)
{
	const char *attr = strrchr(relpath, '/') + 1;
	size_t o = strlen(w.log);

	snprintf(w.log + o, sizeof(w.log) - o, "%s: %s", attr, data);
	if (w.fail_attr && strcmp(attr, w.fail_attr) == 0 && w.fail_times != 0) {
		if (w.fail_times > 0)
			w.fail_times--;
		return -w.fail_errno;
	}
	if (w.remove_after && strcmp(attr, w.remove_after) == 0) {
		fr_teardown(); /* the whole device tree is gone */
		return 0;
	}
	if (strcmp(attr, "recompress") == 0 && w.ns_per_page &&
	    (w.progress_batches > 0 || (w.failing_batches > 0 && !w.cheap_failing))) {
		const char *mp = strstr(data, "max_pages=");
		uint64_t pages = mp ? strtoull(mp + 10, NULL, 10) : 0;

		skew_ns += pages * w.ns_per_page;
		preempt_ns += pages * w.preempt_ns_per_page;
	}
	if (strcmp(attr, "recompress") == 0 && w.other_pages) {
		/* swap-out during the write: pages at the device's ratio (4:1 here) */
		if (!w.orig)
			w.orig = 104857600;
		w.orig += w.other_pages * 4096;
		w.compr += w.other_pages * 1024;
		w.used += w.other_pages * 1100;
		write_mm();
	}
	if (strcmp(attr, "recompress") == 0 && w.progress_batches <= 0 && w.failing_batches > 0) {
		w.failing_batches--;
		if (w.idle_left > 0)
			bs_idle(--w.idle_left);
		if (w.failing_batches == 0 && w.progress_after_failing) {
			w.progress_batches = w.progress_after_failing;
			w.progress_after_failing = 0;
		}
	} else if (strcmp(attr, "recompress") == 0 && w.progress_batches > 0) {
		w.progress_batches--;
		w.compr -= 1000000;
		if (w.huge)
			w.huge--;
		write_mm();
	}
	if (strcmp(attr, "compact") == 0) {
		w.used = w.compr + w.compr / 20;
		write_mm();
	}
	if (strcmp(attr, "writeback_limit") == 0) {
		w.wb_limit = strtoull(data, NULL, 10);
		fr_write("sys/block/zram0/writeback_limit", data);
		return 0;
	}
	if (strcmp(attr, "writeback") == 0) {
		/* like the kernel: page by page until the candidates or the limit run out, each
		 * page freeing its 1000 compressed bytes; -EIO when the limit stopped it */
		uint64_t n = w.wb_candidates < w.wb_limit ? w.wb_candidates : w.wb_limit;
		char buf[64];

		w.wb_hold_seen += faccessat(root_fd, "state/wb-hold.zram0", F_OK, 0) == 0;
		if (strncmp(data, "page_index", 10) == 0) {
			/* by index: the slots named, every one a candidate */
			const char *p = data;
			uint64_t named = 0, lo, hi;

			while ((p = strstr(p, "page_index"))) {
				if (sscanf(p, "page_indexes=%" SCNu64 "-%" SCNu64, &lo, &hi) == 2)
					named += hi - lo + 1;
				else
					named++;
				p += 10;
			}
			w.wb_candidates = named;
			n = named < w.wb_limit ? named : w.wb_limit;
		}

		w.wb_candidates -= n;
		w.wb_limit -= n;
		w.wb_written += n;
		w.compr -= n * 1000;
		w.used -= n * 1000;
		write_mm();
		snprintf(buf, sizeof(buf), "0 0 %" PRIu64 "\n", w.wb_written);
		fr_write("sys/block/zram0/bd_stat", buf);
		snprintf(buf, sizeof(buf), "%" PRIu64 "\n", w.wb_limit);
		fr_write("sys/block/zram0/writeback_limit", buf);
		(void)__real_sysfs_write(root_fd, relpath, data);
		if (w.wb_reset) {
			/* what reset clears: bd_stat, the backing device; not writeback_limit */
			fr_write("sys/block/zram0/initstate", "0\n");
			fr_write("sys/block/zram0/bd_stat", "0 0 0\n");
			fr_write("sys/block/zram0/backing_dev", "none\n");
			w.wb_reset = false;
			return -ENODEV;
		}
		return w.wb_candidates && !w.wb_limit ? -EIO : 0;
	}
	if (strcmp(attr, "recompress") == 0 && w.bs_after_prio1 && strstr(data, "priority=1 "))
		fr_write("sys/kernel/debug/zram/zram0/block_state", w.bs_after_prio1);
	return __real_sysfs_write(root_fd, relpath, data);
}

static int root = -1;
static struct pass_ctx ctx;
static struct zram_dev dev;
static struct dev_config cfg;
static char out[8192];
static FILE *outf;

static int setup(void **state)
{
	struct kver v = { 6, 12, 118 };
	const char *attr;

	(void)state;
	memset(&w, 0, sizeof(w));
	if (fr_setup() < 0)
		return -1;
	fr_write("sys/block/zram0/initstate", "1\n");
	fr_write("sys/block/zram0/disksize", "1073741824\n");
	fr_write("sys/block/zram0/comp_algorithm", "[lzo-rle] lzo lz4 lz4hc zstd deflate 842 \n");
	fr_write("sys/block/zram0/recomp_algorithm", "#1: lzo-rle lzo lz4 lz4hc [zstd] \n");
	fr_write("sys/block/zram0/recompress", "");
	fr_write("sys/block/zram0/idle", "");
	fr_write("sys/block/zram0/compact", "");
	fr_write("sys/block/zram0/algorithm_params", "");
	w.compr = 40000000;
	w.used = 43000000;
	w.huge = 5;
	write_mm();
	root = fr_open_root();
	pass_ctx_init(&ctx, root);
	ctx.eagain_retries = 3;
	ctx.eagain_delay_ms = 1;
	memset(out, 0, sizeof(out));
	outf = fmemopen(out, sizeof(out) - 1, "w");
	ctx.out = outf;
	if (zram_probe(root, &v, TRI_YES, 0, &dev, &attr) < 0)
		return -1;
	config_init((struct config *)&(struct config){ 0 });
	cfg = (struct dev_config){
		.n_algos = 1,
		.algos = { "zstd" },
		.n_passes = 2,
		.passes = { PASS_IDLE, PASS_HUGE },
		.max_pages_per_batch = 2048,
		.max_pages_per_pass = 0,
		.idle_age_min_sec = 0,
		.idle_age_max_sec = 0,
		.compact = COMPACT_AUTO,
		.compact_fragmentation_percent = 10,
	};
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fclose(outf);
	close(root);
	fr_teardown();
	return 0;
}

/* The configuration most tests below use: one idle pass type, no compaction. */
static void cfg_idle_only(void)
{
	cfg.n_passes = 1;
	cfg.passes[0] = PASS_IDLE;
	cfg.compact = COMPACT_NEVER;
}

static void test_batches_until_no_progress(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	w.progress_batches = 3;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	/* 3 productive idle batches + 1 empty one, then 1 empty huge batch, then compact
	 * (fragmentation 43 MB used vs 37 MB compressed = 14%). */
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=huge priority=1 max_pages=2048\n"
				   "compact: 1\n");
	assert_int_equal(rep.n_passes, 2);
	assert_int_equal(rep.passes[0].commands, 4);
	assert_int_equal(rep.passes[0].stop, STOP_NO_PROGRESS);
	assert_true(rep.passes[0].compr_saved == 3000000);
	assert_true(rep.passes[0].huge_delta == -3);
	assert_int_equal(rep.passes[1].commands, 1);
	assert_true(rep.passes[1].compr_saved == 0);
	assert_true(rep.compacted);
	assert_true(rep.compact_freed == 43000000 - (37000000 + 37000000 / 20));
	assert_true(rep.after.v[MM_COMPR_DATA_SIZE] == 37000000);
	/* the real file saw exactly the same commands */
	assert_string_equal(fr_read("sys/block/zram0/recompress"),
			    "type=idle priority=1 max_pages=2048\ntype=idle priority=1 max_pages=2048\n"
			    "type=idle priority=1 max_pages=2048\ntype=idle priority=1 max_pages=2048\n"
			    "type=huge priority=1 max_pages=2048\n");
}

/* The max_pages= of the n-th recompress write in the log (0 = none). */
static uint64_t nth_max_pages(unsigned n)
{
	const char *p = w.log;

	for (unsigned i = 0; p; i++) {
		p = strstr(p, "recompress: ");
		if (!p)
			break;
		p += 12;
		if (i == n) {
			const char *mp = strstr(p, "max_pages=");

			return mp ? strtoull(mp + 10, NULL, 10) : 0;
		}
	}
	return 0;
}

/*
 * max-write-ms: the first write is small, the next ones are sized from the time it took,
 * growing at most 8 x per step and never above max-pages-per-batch; the longest write is
 * reported. Fast fake writes here: a bound of 60 s is never what limits them.
 */
static void test_write_bounded_growth(void **state)
{
	struct device_report rep = { 0 };
	struct pass_summary sum;

	(void)state;
	cfg_idle_only();
	cfg.max_write_ms = 60000;
	w.progress_batches = 4;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=64\n"
				   "recompress: type=idle priority=1 max_pages=512\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n");
	assert_int_equal(rep.passes[0].commands, 5);
	assert_true(rep.passes[0].max_write_ns > 0);
	assert_true(rep.passes[0].max_write_ns <= rep.passes[0].kernel_ns);
	pass_summarize(&rep, &sum);
	assert_true(sum.max_write_ns == rep.passes[0].max_write_ns);
	/* four writes made progress and taught the cost; the empty fifth did not */
	assert_true(dev.learnt.wcost[PASS_IDLE][1].samples == 4);
	assert_true(dev.learnt.wcost[PASS_IDLE][1].max_pages == 2048);
	/* the pass report names the longest write */
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "5 writes"));
	assert_non_null(strstr(out, " (longest write "));
}

/*
 * A slow kernel (200 us per page, as under the bench's emulation): the first write of 64
 * pages takes 12.8 ms, so the next ones take about 100 ms (500 pages) instead of 2048 pages
 * (410 ms). The next pass starts at the learnt size.
 */
static void test_write_bounded_slow_kernel(void **state)
{
	struct device_report rep = { 0 };
	uint64_t n;

	(void)state;
	cfg_idle_only();
	cfg.max_write_ms = 100;
	w.ns_per_page = 200000;
	w.progress_batches = 2;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(nth_max_pages(0) == 64);
	n = nth_max_pages(1);
	assert_true(n >= 400 && n <= 500);
	assert_true(nth_max_pages(2) <= 500);
	assert_int_equal(rep.passes[0].commands, 3);
	assert_true(rep.passes[0].max_write_ns >= 80000000ULL);
	/* the sleep's overshoot, a busy host: far below the 410 ms of a 2048 batch */
	assert_true(rep.passes[0].max_write_ns < 300000000ULL);

	/* the next pass (the daemon keeps dev) starts where this one ended */
	w.log[0] = '\0';
	w.progress_batches = 1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	n = nth_max_pages(0);
	assert_true(n >= 400 && n <= 500);
}

/*
 * A busy CPU preempts the writer between slots: each write takes 4 x its CPU time on the
 * wall. The batches are sized by the write's CPU (about 500 pages at 200 us a page), not
 * its wall time (125 pages: the first minute of the 6.12 swap bench shrank them to ~80);
 * the longest write reported is the wall time a reader or a stop request waits.
 */
static void test_write_bounded_cpu_not_wall(void **state)
{
	struct device_report rep = { 0 };
	uint64_t n;

	(void)state;
	cfg_idle_only();
	cfg.max_write_ms = 100;
	w.ns_per_page = 200000;
	w.preempt_ns_per_page = 600000;
	w.progress_batches = 2;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(nth_max_pages(0) == 64);
	n = nth_max_pages(1);
	assert_true(n >= 400 && n <= 500);
	assert_true(rep.passes[0].max_write_ns >= 4 * 80000000ULL);
	assert_true(rep.cpu.ns[PASS_CPU_RECOMPRESS] >= (64 + n) * 200000ULL);
}

/*
 * Memory pressure lengthens the bound (policy_write_bound_ns): at full pressure the 100 ms
 * become 800 ms, so after the 64-page probe and one step of growth the writes are the
 * fixed 2048-page batch instead of about 500 pages.
 */
static void test_write_bounded_pressure(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	cfg_idle_only();
	cfg.max_write_ms = 100;
	w.ns_per_page = 200000;
	w.progress_batches = 3;
	ctx.mem_total = 1000 * 4096;
	ctx.mem_available = 10 * 4096; /* 1% available: full pressure */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(nth_max_pages(0) == 64);
	assert_int_equal(nth_max_pages(1), 512); /* 8 x the largest measured */
	assert_int_equal(nth_max_pages(2), 2048);
}

/* Occurrences of NEEDLE in the write log. */
static unsigned count_lines(const char *log, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(log, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * Under memory pressure a step compacts between its writes once they have saved 1/64 of
 * the pool and at least 1 MiB since the last compaction (policy_compact_in_step): here
 * 1 MB a write, so after the second and the fourth. Without pressure, or with compact =
 * never, only the pass's end compacts; with a pool 64 x 10 MB, 4 MB of savings are not
 * enough.
 */
static void test_compact_between_writes(void **state)
{
	static const char pressed[] = "idle: all\n"
				      "recompress: type=idle priority=1 max_pages=2048\n"
				      "recompress: type=idle priority=1 max_pages=2048\n"
				      "compact: 1\n"
				      "recompress: type=idle priority=1 max_pages=2048\n"
				      "recompress: type=idle priority=1 max_pages=2048\n"
				      "compact: 1\n"
				      "recompress: type=idle priority=1 max_pages=2048\n"
				      "compact: 1\n";
	struct device_report rep = { 0 };

	(void)state;
	cfg_idle_only();
	cfg.compact = COMPACT_AUTO;
	w.progress_batches = 4;
	ctx.mem_total = 1000 * 4096;
	ctx.mem_available = 10 * 4096; /* full pressure */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, pressed);
	assert_int_equal(rep.passes[0].compactions, 2);
	/* 43 MB used -> 38 + 1.9 MB after the first, 36 + 1.8 MB after the second; the
	 * fake kernel's writes free nothing by themselves, so the step's pool change is theirs */
	assert_true(rep.passes[0].compact_freed == 43000000 - (36000000 + 36000000 / 20));
	assert_true(rep.passes[0].mem_freed == rep.passes[0].compact_freed);
	assert_true(rep.compacted); /* and the pass's end, as before */
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "compacted 2 times between writes"));

	/* no pressure: the end only */
	w.log[0] = '\0';
	ctx.mem_available = 900 * 4096;
	w.progress_batches = 4;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].compactions, 0);
	assert_int_equal(count_lines(w.log, "compact: 1"), 1);

	/* compact = never: none at all, pressure or not */
	w.log[0] = '\0';
	cfg.compact = COMPACT_NEVER;
	ctx.mem_available = 10 * 4096;
	w.progress_batches = 4;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(count_lines(w.log, "compact: 1"), 0);

	/* a pool of 640 MB: 4 MB saved is under 1/64 of it (10 MB) */
	w.log[0] = '\0';
	cfg.compact = COMPACT_AUTO;
	w.used = 640000000;
	write_mm();
	w.progress_batches = 4;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].compactions, 0);
	assert_int_equal(count_lines(w.log, "compact: 1"), 1);
}

/* Two secondaries on 6.12, the idle step at #1: its failures are not marked 'n'. */
static void failures_unmarked(void)
{
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0           17.000001 ...i..\n"
		 "           1           17.000001 ...i..\n"
		 "           2           17.000001 ...i..\n");
	dev.caps.block_state = true;
	strcpy(dev.recomp.name[2], "zstd");
	dev.recomp.set[2] = true;
	dev.recomp.count = 2;
	dev.recomp.highest = 2;
	cfg.priority[PASS_IDLE] = 1;
}

/* Time-bounded writes (200 us a page) in a step whose failures leave no mark. */
static void bounded_unmarked(void)
{
	cfg_idle_only();
	failures_unmarked();
	cfg.max_write_ms = 100;
	w.ns_per_page = 200000;
}

/* One productive write, then `failing` writes that shrink nothing, then `after` productive. */
static void failing_run(int failing, int after)
{
	w.progress_batches = 1;
	w.failing_batches = failing;
	w.progress_after_failing = after;
}

/*
 * A run of pages none of which shrinks (failures at a restricted priority are not marked)
 * does not end a step of bounded writes before the fixed batch's worth of pages has gone
 * without progress (6.12 bench: the cold tier stopped after 1,963 of 7,691 pages); a write
 * that finds nothing left (fast for its size) still ends it at once.
 */
static void test_write_bounded_failing_run(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	bounded_unmarked();
	failing_run(3, 1); /* about 500 pages each: 1,500 < 2048 */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	/* 64 pages (progress), 3 x ~500 without, ~500 with progress, one finding nothing */
	assert_int_equal(rep.passes[0].commands, 6);
	assert_int_equal(rep.passes[0].stop, STOP_NO_PROGRESS);
	assert_true(rep.passes[0].compr_saved == 2000000);

	/* without the second productive write: ~2,000 pages of failures, then the empty one */
	w.log[0] = '\0';
	failing_run(8, 0);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(rep.passes[0].commands <= 7);
	assert_true(rep.passes[0].commands >= 5);
	assert_true(rep.passes[0].compr_saved == 1000000);
	assert_true(w.failing_batches > 0); /* it stopped before trying all of them */

	/*
	 * failures marked (one secondary): the step ends once its writes could have tried
	 * every candidate counted after the idle mark (3 idle slots: the first write), with
	 * no block_state read after a write (policy_marked_step_more): baseline and end only
	 */
	w.log[0] = '\0';
	dev.recomp.set[2] = false;
	dev.recomp.count = 1;
	dev.recomp.highest = 1;
	w.progress_batches = 1;
	w.failing_batches = 3;
	w.progress_after_failing = 1;
	bs_reads = 0;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].commands, 1);
	assert_int_equal(rep.passes[0].stop, STOP_NO_PROGRESS);
	assert_true(rep.passes[0].compr_saved == 1000000);
	assert_int_equal(bs_reads, 2);
}

/*
 * One secondary (failures marked), 10,000 idle slots in block_state, and a first write that
 * finds them all: 410 ms of CPU for 2048 pages; the writes after it return at once.
 */
static void one_write_finds_all(void)
{
	dev.caps.block_state = true;
	dev.recomp.set[2] = false;
	dev.recomp.count = 1;
	dev.recomp.highest = 1;
	bs_idle(10000);
	w.ns_per_page = 200000;
	w.progress_batches = 1;
}

/*
 * Where failures are marked, a step goes by the candidates counted after its idle mark;
 * under swap traffic most of them can be gone (swapped in) by the time its writes reach
 * them. A write that took a fraction of its batch's learnt cost found almost nothing, and
 * walked past every slot: the step ends there instead of walking again until its writes
 * have covered the count (6.12 bench: 8-16 such writes of 0.022 s CPU a step).
 */
static void test_step_ends_when_write_finds_few(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	cfg_idle_only();
	cfg.max_write_ms = 0;
	cfg.priority[PASS_IDLE] = 1;
	one_write_finds_all();
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n");
	assert_int_equal(rep.passes[0].stop, STOP_NO_PROGRESS);
	assert_true(rep.passes[0].compr_saved == 1000000);

	/* writes that keep finding pages go on until they could have tried all 10,000 */
	w.log[0] = '\0';
	w.progress_batches = 100;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].commands, 5);
	assert_true(rep.passes[0].compr_saved == 5000000);
}

/* A daemon's plan: an idle step at priority 1 marked with age_sec, then a step of type t. */
static struct pass_plan idle_then(uint64_t age_sec, enum pass_type t)
{
	struct pass_plan plan = {
		.n_steps = 2,
		.steps = { { .type = PASS_IDLE, .mark_idle = true, .idle_age_sec = age_sec, .priority = 1 },
			   { .type = t, .priority = 1 } },
		.batch_pages = 2048,
		.compact = COMPACT_NEVER,
	};

	return plan;
}

/*
 * A pass at the burst age (policy_pass_blind: one secondary, its failures marked) reads no
 * block_state: its steps end where a write finds few pages, or by the candidates mm_stat
 * gives (stored pages less same-filled ones; huge pages for huge_idle). The same plan
 * outside a burst reads it as before.
 */
static void test_blind_pass_reads_no_block_state(void **state)
{
	struct device_report rep = { 0 };
	struct pass_plan plan = idle_then(3, PASS_HUGE_IDLE);

	(void)state;
	plan.mem_pressure_permille = 900;
	plan.burst_aged = true;
	one_write_finds_all();
	w.huge = 100;
	write_mm();
	dev.mm.v[MM_ORIG_DATA_SIZE] = 104857600; /* as the daemon read it before the pass */
	dev.mm.v[MM_HUGE_PAGES] = 100;
	bs_reads = 0;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(bs_reads, 0);
	assert_true(rep.blind);
	assert_false(rep.have_block_state);
	/* found few after one write; huge_idle: one write covers the 100 huge pages */
	assert_string_equal(w.log, "idle: 3\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=huge_idle priority=1 max_pages=2048\n");
	assert_int_equal(rep.passes[0].stop, STOP_NO_PROGRESS);
	assert_true(rep.passes[0].compr_saved == 1000000);
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "block_state not read: a pass at the burst age"));

	/* writes that keep finding pages go on until they could have tried every stored one */
	w.log[0] = '\0';
	w.progress_batches = 100;
	w.orig = 5000 * 4096;
	write_mm();
	dev.mm.v[MM_ORIG_DATA_SIZE] = w.orig;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(rep.passes[0].commands, 3); /* 3 x 2048 >= 5000 */
	assert_int_equal(bs_reads, 0);

	/* not in a burst: block_state as before (baseline and end) */
	plan.burst_aged = false;
	bs_idle(10000);
	w.log[0] = '\0';
	w.progress_batches = 1;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_false(rep.blind);
	assert_true(bs_reads > 0);

	/* two secondaries on this kernel: priority 1's failures are not marked, so it reads */
	plan.burst_aged = true;
	dev.recomp.set[2] = true;
	dev.recomp.count = 2;
	dev.recomp.highest = 2;
	bs_reads = 0;
	w.progress_batches = 1;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_false(rep.blind);
	assert_true(bs_reads > 0);
}

/* max-write-ms = 0: the fixed batches of max-pages-per-batch, whatever a write takes. */
static void test_write_unbounded(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	cfg_idle_only();
	cfg.max_write_ms = 0;
	cfg.max_pages_per_batch = 300;
	w.ns_per_page = 10000; /* 3 ms a write */
	w.progress_batches = 1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=300\n"
				   "recompress: type=idle priority=1 max_pages=300\n");
	assert_true(rep.passes[0].max_write_ns >= 3000000ULL);
}

static void test_budget(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	w.progress_batches = 100;
	cfg.max_pages_per_pass = 5000;
	cfg.n_passes = 1;
	cfg.compact = COMPACT_NEVER;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=904\n");
	assert_int_equal(rep.passes[0].stop, STOP_BUDGET);
	assert_true(rep.passes[0].pages_charged == 5000);
	assert_false(rep.compacted);
}

static void test_total_budget_across_steps(void **state)
{
	struct device_report rep = { 0 };
	struct pass_plan plan = {
		.n_steps = 2,
		.steps = { { .type = PASS_IDLE, .mark_idle = true, .priority = 1 },
			   { .type = PASS_HUGE } },
		.batch_pages = 2048,
		.pages_total = 3000,
		.compact = COMPACT_NEVER,
	};

	(void)state;
	w.progress_batches = 100;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	/* the daemon's pages-per-hour bucket bounds the pass, not each step */
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=952\n");
	assert_int_equal(rep.n_passes, 1);
	assert_int_equal(rep.passes[0].priority, 1);
}

/* Idle slots that are all recompressed already: the idle step is not written at all. */
/*
 * A 32 TiB disksize with a ten-line block_state (issue 11 #6): the incompressible bitmaps
 * follow the slots listed, not disksize (which asked for 1 GiB, and for 2^64-1 bytes
 * aborted under ASan), and the new incompressible page is still found.
 */
static void test_bitmaps_sized_by_block_state(void **state)
{
	static const char before[] = "           0            0.000000 ...i..\n"
				     "           1            0.000000 ...i..\n"
				     "           2            0.000000 ..hi.n\n"
				     "           3            0.000000 ...i..\n"
				     "           4            0.000000 ...i..\n"
				     "           5            0.000000 ...i..\n"
				     "           6            0.000000 ...i..\n"
				     "           7            0.000000 ...i..\n"
				     "           8            0.000000 ...i..\n"
				     "        1000            0.000000 ...i..\n";
	static const char after[] = "           0            0.000000 ...ir.\n"
				    "           1            0.000000 ...ir.\n"
				    "           2            0.000000 ..hi.n\n"
				    "           3            0.000000 ...ir.\n"
				    "           4            0.000000 ...ir.\n"
				    "           5            0.000000 ...ir.\n"
				    "           6            0.000000 ...ir.\n"
				    "           7            0.000000 ...ir.\n"
				    "           8            0.000000 ...ir.\n"
				    "        1000            0.000000 ...i.n\n";
	struct device_report rep = { 0 };

	(void)state;
	fr_write("sys/kernel/debug/zram/zram0/block_state", before);
	w.bs_after_prio1 = after;
	w.progress_batches = 1;
	dev.caps.block_state = true;
	dev.disksize = UINT64_C(32) << 40;
	cfg_idle_only();
	max_alloc = 0;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(max_alloc < 65536);
	assert_true(rep.have_block_state);
	assert_int_equal(rep.incompressible_before, 1);
	assert_int_equal(rep.incompressible_after, 2);
	assert_int_equal(rep.new_incompressible, 1);
	/* 2^64-1 bytes: the slot count is capped by the index type, nothing huge asked for */
	fr_write("sys/kernel/debug/zram/zram0/block_state", before);
	dev.disksize = UINT64_MAX;
	max_alloc = 0;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(max_alloc < 65536);
	assert_true(rep.have_block_state);
}

/*
 * A failing write that was cheap for its size ends the step as "nothing left" only when
 * the idle marks did not go down since the last block_state read: tried pages lose their
 * mark, so a cheap run of pages (6.12, the cold tier with a dictionary: 79 pages in 22 ms)
 * does not stop the step where pages are still untried.
 */
static void test_write_bounded_cheap_run(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	bounded_unmarked();
	w.cheap_failing = true;
	/* the idle marks go with each cheap write: past the run, to the second productive one */
	bs_idle(40);
	w.idle_left = 40;
	failing_run(3, 1);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].commands, 6);
	assert_true(rep.passes[0].compr_saved == 2000000);

	/* the same marks after each cheap write: the first one ends the step */
	w.log[0] = '\0';
	bs_idle(40);
	w.idle_left = 0;
	failing_run(3, 1);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].commands, 2);
	assert_true(rep.passes[0].compr_saved == 1000000);
	assert_int_equal(rep.passes[0].stop, STOP_NO_PROGRESS);
}

/*
 * Under memory pressure the pass's end takes the counts read after its last write instead
 * of reading block_state again for the new 'n' slots: one read less, and the new ones a
 * lower bound (here a slot that left 'n', swapped in, hides the one that came). Such a
 * read comes where failures are not marked (two secondaries, the step at #1). Where they
 * are, no read follows a write: without pressure the end's read is exact; under pressure
 * there is none (policy_end_read), and the report says so.
 */
static void test_end_counts_under_pressure(void **state)
{
	static const char before[] = "           0            0.000000 ...i..\n"
				     "           1            0.000000 ...i..\n"
				     "           2            0.000000 ..hi.n\n"
				     "           3            0.000000 ...i..\n";
	static const char after[] = "           0            0.000000 ...ir.\n"
				    "           1            0.000000 ...ir.\n"
				    "           3            0.000000 ...i.n\n";
	struct device_report rep = { 0 };
	unsigned calm;

	(void)state;
	cfg_idle_only();
	failures_unmarked();
	fr_write("sys/kernel/debug/zram/zram0/block_state", before);
	w.bs_after_prio1 = after;
	w.progress_batches = 1;
	bs_reads = 0;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	calm = bs_reads;
	assert_true(rep.have_block_state);
	assert_int_equal(rep.new_incompressible, 1); /* slot 3, from the set */
	assert_false(rep.new_incompressible_lower);

	fr_write("sys/kernel/debug/zram/zram0/block_state", before);
	w.progress_batches = 1;
	bs_reads = 0;
	ctx.mem_total = 1000 * 4096;
	ctx.mem_available = 10 * 4096; /* full pressure */
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(bs_reads, calm - 1);
	assert_true(rep.have_block_state);
	assert_true(rep.new_incompressible_lower);
	assert_int_equal(rep.incompressible_after, 1);
	assert_int_equal(rep.new_incompressible, 0); /* 1 - 1: a lower bound */
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "(at least 0 new)"));

	/* one secondary, failures marked, under pressure: the baseline only */
	dev.recomp.set[2] = false;
	dev.recomp.count = 1;
	dev.recomp.highest = 1;
	fr_write("sys/kernel/debug/zram/zram0/block_state", before);
	w.progress_batches = 1;
	bs_reads = 0;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(bs_reads, 1);
	assert_false(rep.have_block_state);
	assert_true(rep.end_unread);
	assert_int_equal(rep.new_incompressible, 0);
	assert_int_equal(rep.incompressible_before, 1);
	assert_int_equal(pass_incompressible_now(&rep), 1);
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, ", incompressible 1 before (block_state not read after the "
				    "writes: memory pressure)\n"));

	/* the same without pressure: baseline and end, the new 'n' slot counted exactly */
	ctx.mem_available = ctx.mem_total;
	fr_write("sys/kernel/debug/zram/zram0/block_state", before);
	w.progress_batches = 1;
	bs_reads = 0;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(bs_reads, 2);
	assert_true(rep.have_block_state);
	assert_false(rep.end_unread);
	assert_false(rep.new_incompressible_lower);
	assert_int_equal(rep.new_incompressible, 1);
	assert_int_equal(pass_incompressible_now(&rep), 1);
}

/*
 * After the huge_idle step wrote, the idle step's verdict comes from the baseline's counts
 * less what that step could have tried (policy_counts_after): no read between the steps
 * when fresh idle pages are clearly left; a read when the estimate leaves none.
 */
static void test_idle_verdict_estimated(void **state)
{
	static const char bs[] = "           0            0.000000 ..hi..\n"
				 "           1            0.000000 ...i..\n"
				 "           2            0.000000 ...i..\n"
				 "           3            0.000000 ...i..\n";
	static const char all_huge[] = "           0            0.000000 ..hi..\n"
				       "           1            0.000000 ..hi..\n";
	struct device_report rep = { 0 };

	(void)state;
	dev.caps.block_state = true;
	cfg.n_passes = 2;
	cfg.passes[0] = PASS_HUGE_IDLE;
	cfg.passes[1] = PASS_IDLE;
	cfg.compact = COMPACT_NEVER;
	fr_write("sys/kernel/debug/zram/zram0/block_state", bs);
	w.progress_batches = 2;
	bs_reads = 0;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.n_passes, 2);
	assert_int_equal(rep.passes[0].commands, 1);
	assert_int_equal(rep.passes[1].commands, 1); /* 3 fresh left by the estimate */
	assert_int_equal(bs_reads, 2);		      /* baseline and end */

	/* every fresh idle page was huge: the estimate leaves none, so block_state tells */
	fr_write("sys/kernel/debug/zram/zram0/block_state", all_huge);
	w.progress_batches = 2;
	bs_reads = 0;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(bs_reads, 3);
	assert_int_equal(rep.passes[0].commands, 1);
	/* the fake kernel leaves block_state as it was: 2 fresh, so the idle step runs */
	assert_int_equal(rep.passes[1].commands, 1);
}

/*
 * The daemon under memory pressure right after a burst: nothing idle yet, every stored page
 * younger than the idle age. The huge step (not idle-gated) waits for the pass that comes
 * when they have aged; without the ripening probe (--once, no pressure) it runs.
 */
static void test_huge_waits_after_burst(void **state)
{
	struct device_report rep = { 0 };
	struct pass_plan plan = idle_then(10, PASS_HUGE);

	(void)state;
	plan.ripen_probe = true;
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0          100.000001 ..h...\n"
		 "           1          100.000001 ......\n"
		 "           2          100.000001 ..h...\n"
		 "           3          100.000001 ......\n");
	dev.caps.block_state = true;
	w.progress_batches = 1;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(rep.n_passes, 2);
	assert_int_equal(rep.passes[0].stop, STOP_NOTHING);
	assert_int_equal(rep.passes[1].stop, STOP_YOUNG);
	assert_null(strstr(w.log, "recompress"));
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "left to the pass when they have aged"));

	plan.ripen_probe = false;
	w.log[0] = '\0';
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=huge priority=1"));
}

/* block_state of n slots used age seconds ago, each with the given flags */
static size_t bs_lines(char *buf, size_t size, size_t o, int first, int n, uint64_t age,
		       const char *flags)
{
	uint64_t now = now_boottime_ns() / 1000000000u;

	for (int i = first; i < first + n; i++)
		o += (size_t)snprintf(buf + o, size - o, "%12d %12" PRIu64 ".000001 %s\n", i,
				      age ? now - age : 0, flags);
	return o;
}

/*
 * A pass that may probe the ripening counts the access times in its baseline read: when
 * its idle step finds nothing old enough and nothing is written, the probe reads no more.
 */
static void test_probe_from_baseline(void **state)
{
	struct device_report rep = { 0 };
	struct pass_plan plan = {
		.n_steps = 1,
		.steps = { { .type = PASS_IDLE, .mark_idle = true, .idle_age_sec = 10, .priority = 1 } },
		.batch_pages = 2,
		.compact = COMPACT_NEVER,
		.ripen_probe = true,
		.mem_pressure_permille = 500,
	};
	char bs[4 * 41 + 1];

	(void)state;
	/* four stored pages used 2 s ago: none idle at 10 s, all 10 s old in 8 s */
	(void)bs_lines(bs, sizeof(bs), 0, 0, 4, 2, "......");
	fr_write("sys/kernel/debug/zram/zram0/block_state", bs);
	dev.caps.block_state = true;
	bs_reads = 0;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(rep.passes[0].stop, STOP_NOTHING);
	assert_null(strstr(w.log, "recompress"));
	assert_int_equal(bs_reads, 1); /* the baseline; the probe used its access times */
	assert_true(rep.ripen_slots == 4);
	assert_true(rep.ripen_sec >= 7 && rep.ripen_sec <= 9);
	assert_true(rep.burst_young);
}

/*
 * Idle-gated writes leave the young pages and their access times as the baseline read them
 * (policy_write_keeps_young): after one, the huge step's young check and the ripening probe
 * read nothing (the 7.3 burst bench's pass after the look read twice more, 0.39 s). After a
 * huge write, which may take young pages, the probe reads again.
 */
static void test_young_kept_after_idle_writes(void **state)
{
	struct device_report rep = { 0 };
	struct pass_plan plan = {
		.n_steps = 3,
		.steps = { { .type = PASS_HUGE_IDLE, .mark_idle = true, .idle_age_sec = 10,
			     .priority = 1 },
			   { .type = PASS_IDLE, .priority = 1 },
			   { .type = PASS_HUGE, .priority = 1 } },
		.batch_pages = 2,
		.compact = COMPACT_NEVER,
		.ripen_probe = true,
		.mem_pressure_permille = 500,
	};
	char bs[16 * 41 + 1];
	size_t o;

	(void)state;
	dev.caps.block_state = true;
	/* two old idle pages, eight young ones (used 2 s ago) */
	o = bs_lines(bs, sizeof(bs), 0, 0, 2, 100, "...i..");
	(void)bs_lines(bs, sizeof(bs), o, 2, 8, 2, "......");
	fr_write("sys/kernel/debug/zram/zram0/block_state", bs);
	w.progress_batches = 1;
	bs_reads = 0;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(rep.passes[0].stop, STOP_NOTHING);
	assert_int_equal(rep.passes[1].commands, 1);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1"));
	assert_int_equal(rep.passes[2].stop, STOP_YOUNG);
	assert_null(strstr(w.log, "type=huge "));
	assert_int_equal(bs_reads, 1); /* the baseline alone */
	assert_int_equal(rep.ripen_slots, 8);
	assert_true(rep.burst_young);

	/* six recompressed pages, four young (two of them huge): the huge step writes */
	plan.n_steps = 2;
	plan.steps[1] = plan.steps[2];
	o = bs_lines(bs, sizeof(bs), 0, 0, 6, 0, "....r.");
	o = bs_lines(bs, sizeof(bs), o, 6, 2, 2, "..h...");
	(void)bs_lines(bs, sizeof(bs), o, 8, 2, 2, "......");
	fr_write("sys/kernel/debug/zram/zram0/block_state", bs);
	w.log[0] = '\0';
	w.progress_batches = 1;
	bs_reads = 0;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(rep.passes[0].stop, STOP_NOTHING);
	assert_non_null(strstr(w.log, "recompress: type=huge priority=1"));
	assert_int_equal(bs_reads, 2); /* the baseline, and the probe's own */
	assert_int_equal(rep.ripen_slots, 4);
}

/*
 * A huge step that saved under 1/64 of what it tried makes the next ones wait 1, 2, 4 ...
 * passes (the device remembers); one that pays ends the wait (policy_huge_wait).
 */
static void test_huge_waits_when_unpaid(void **state)
{
	struct device_report rep = { 0 };
	struct pass_plan plan = {
		.n_steps = 1,
		.steps = { { .type = PASS_HUGE, .priority = 1 } },
		.batch_pages = 64,
		.compact = COMPACT_NEVER,
	};
	/* pass by pass: whether the huge step writes (1 run, 1 wait, 1 run, 2 waits, 1 run) */
	static const bool runs[] = { true, false, true, false, false, true };

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(runs); i++) {
		w.log[0] = '\0';
		w.progress_batches = 0; /* nothing saved */
		memset(&rep, 0, sizeof(rep));
		assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
		assert_int_equal(rep.n_passes, 1);
		if (runs[i]) {
			assert_non_null(strstr(w.log, "recompress: type=huge"));
		} else {
			assert_null(strstr(w.log, "recompress"));
			assert_int_equal(rep.passes[0].stop, STOP_UNPAID);
		}
	}
	assert_int_equal(dev.learnt.huge_wait, 4);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(rep.passes[0].stop, STOP_UNPAID);
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "saved under 1/64 of the pages it tried"));

	/* one that pays (the fake kernel saves 1 MB a write) ends the wait */
	dev.learnt.huge_wait_left = 0;
	w.progress_batches = 1;
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(dev.learnt.huge_wait, 0);
	w.log[0] = '\0';
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=huge"));
}

/*
 * A plan of as many steps as it can hold gives one report entry per step and never writes
 * past the report's array (issue 11 #11; ASan in the sanitizer build).
 */
static void test_report_bounded(void **state)
{
	static struct pass_plan plan;
	static struct device_report rep;

	(void)state;
	memset(&plan, 0, sizeof(plan));
	plan.n_steps = PASS_MAX_STEPS;
	for (unsigned i = 0; i < PASS_MAX_STEPS; i++)
		plan.steps[i] = (struct pass_step){ .type = PASS_HUGE, .priority = 1 };
	plan.batch_pages = 2048;
	plan.compact = COMPACT_NEVER;
	assert_true(ARRAY_SIZE(rep.passes) >= 1);
	assert_int_equal(pass_execute(&ctx, &dev, &plan, &rep), 0);
	assert_int_equal(rep.n_passes, PASS_MAX_STEPS < ARRAY_SIZE(rep.passes)
						? PASS_MAX_STEPS
						: ARRAY_SIZE(rep.passes));
}

static void test_idle_step_skipped_when_nothing_left(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0            0.000000 ...ir.\n"
		 "           1            0.000000 ...ir.\n"
		 "           2           17.000001 ..h..n\n");
	dev.caps.block_state = true;
	cfg.compact = COMPACT_NEVER;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\nrecompress: type=huge priority=1 max_pages=2048\n");
	assert_int_equal(rep.n_passes, 2);
	assert_int_equal(rep.passes[0].stop, STOP_NOTHING);
	assert_int_equal(rep.passes[0].commands, 0);
	/* one fresh idle slot: the step runs */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0            0.000000 ...ir.\n"
		 "           1           17.000001 ...i..\n");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1 max_pages=2048\n"));
	/*
	 * Two secondaries: #2 is a fallback for what #1 tried and could not shrink. #1 had
	 * nothing to try, so #2 has nothing either: a slot #1 shrank is not tried again.
	 */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state", "           0            0.000000 ...ir.\n");
	dev.recomp.count = 2;
	dev.recomp.highest = 2;
	dev.recomp.set[2] = true;
	strcpy(dev.recomp.name[2], "deflate");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\nrecompress: type=huge priority=1 max_pages=2048\n");
	assert_int_equal(rep.n_passes, 4);
	assert_int_equal(rep.passes[1].priority, 2);
	assert_true(rep.passes[1].fallback);
	assert_int_equal(rep.passes[1].stop, STOP_NOTHING);
}

/*
 * 6.2-6.14 decompress every recompressed slot a type=idle write meets: with one new idle
 * page among four recompressed ones the walk costs more than the page, and the step waits
 * until more pages turned idle; 6.15+ skip those slots in their scan and write it.
 */
static void test_idle_step_waits_for_walk_worth(void **state)
{
	static const char few[] = "           0            0.000000 ...ir.\n"
				  "           1            0.000000 ...ir.\n"
				  "           2            0.000000 ...ir.\n"
				  "           3            0.000000 ...ir.\n"
				  "           4           17.000001 ...i..\n";
	static const char ten[] = "           0            0.000000 ...ir.\n"
				  "           1            0.000000 ...ir.\n"
				  "           2            0.000000 ...ir.\n"
				  "           3            0.000000 ...ir.\n"
				  "           4            0.000000 ...ir.\n"
				  "           5            0.000000 ...ir.\n"
				  "           6            0.000000 ...ir.\n"
				  "           7            0.000000 ...ir.\n"
				  "           8            0.000000 ...ir.\n"
				  "           9            0.000000 ...ir.\n"
				  "          10           17.000001 ...i..\n";
	struct device_report rep = { 0 };

	(void)state;
	fr_write("sys/kernel/debug/zram/zram0/block_state", few);
	dev.caps.block_state = true;
	dev.caps.prio_max_active = false;
	cfg.compact = COMPACT_NEVER;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_null(strstr(w.log, "writeback: type=idle"));
	assert_int_equal(rep.passes[0].stop, STOP_WALK);
	assert_int_equal(rep.passes[0].commands, 0);
	/*
	 * Nothing written: one block_state read serves the baseline, both idle steps and the
	 * totals (the huge step writes, so its pass reads again).
	 */
	cfg.n_passes = 2;
	cfg.passes[0] = PASS_HUGE_IDLE;
	cfg.passes[1] = PASS_IDLE;
	bs_reads = 0;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.n_passes, 2);
	assert_int_equal(rep.passes[1].stop, STOP_WALK);
	assert_int_equal(bs_reads, 1);
	assert_true(rep.have_block_state);
	assert_int_equal(rep.recompressed_after, 4);
	/* a second new idle page pays for the walk */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0            0.000000 ...ir.\n"
		 "           1            0.000000 ...ir.\n"
		 "           2            0.000000 ...ir.\n"
		 "           3            0.000000 ...ir.\n"
		 "           4           17.000001 ...i..\n"
		 "           5           17.000001 ...i..\n");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1 max_pages=2048\n"));
	/* 6.15+: no walk over recompressed slots, one page is enough */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state", few);
	dev.caps.prio_max_active = true;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1 max_pages=2048\n"));
	/*
	 * 6.2-6.14 under memory pressure: one new idle page among ten recompressed ones is not
	 * worth the walk at half pressure (a fifth of them: 2) and is at full pressure (an
	 * eighth: 1).
	 */
	dev.caps.prio_max_active = false;
	ctx.mem_total = 1000 * 4096;
	ctx.mem_available = 125 * 4096; /* 12.5% available: m = 1/2 */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state", ten);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[1].stop, STOP_WALK);
	assert_null(strstr(w.log, "recompress: type=idle"));
	ctx.mem_available = 10 * 4096; /* 1%: full pressure */
	fr_write("sys/kernel/debug/zram/zram0/block_state", ten);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1 max_pages=2048\n"));
}

/*
 * 7.3 with zstd at #1 and deflate at #2: one write per priority. #1 takes the idle marks of
 * every page it tries and does not mark its failures 'n'; #2 re-marks idle and gets the
 * pages #1 tried and left unshrunk as its budget (largest first on 6.13+, so mostly them).
 */
static void test_one_priority_per_write_73(void **state)
{
	struct device_report rep = { 0 };
	struct kver v = { 7, 3, 4 };
	const char *attr;
	char buf[512];

	(void)state;
	fr_write("sys/block/zram0/comp_algorithm", "[lzo-rle] lzo lz4 lz4hc zstd deflate 842 \n");
	/* the NUL-padded listing of 7.3.4 */
	static const char l73[] = "#1: lzo-rle [zstd] deflate \n\0\0\0\0#2: lzo-rle zstd [deflate] \n"
				  "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
	char path[512];
	snprintf(path, sizeof(path), "%s/sys/block/zram0/recomp_algorithm", fr_dir);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, l73, sizeof(l73) - 1), (ssize_t)(sizeof(l73) - 1));
	close(fd);
	/* ten idle slots never recompressed, one huge */
	buf[0] = '\0';
	for (unsigned i = 0; i < 10; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%12u %12u.000000 ...i..\n", i,
			 100 + i);
	fr_write("sys/kernel/debug/zram/zram0/block_state", buf);
	/* after #1: six shrunk (r, ac_time 0), four tried and left (idle mark cleared) */
	w.bs_after_prio1 = "           0            0.000000 ....r.\n"
			   "           1            0.000000 ....r.\n"
			   "           2            0.000000 ....r.\n"
			   "           3            0.000000 ....r.\n"
			   "           4            0.000000 ....r.\n"
			   "           5            0.000000 ....r.\n"
			   "           6          106.000000 ......\n"
			   "           7          107.000000 ......\n"
			   "           8          108.000000 ......\n"
			   "           9          109.000000 ......\n";
	assert_int_equal(zram_probe(root, &v, TRI_YES, 0, &dev, &attr), 0);
	assert_int_equal(dev.recomp.count, 2);
	assert_true(dev.caps.single_prio);
	w.progress_batches = 1;
	cfg_idle_only();
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	/* batch 1 shrinks compr_data_size; batch 2 only marks (new 'r'), batch 3 nothing */
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "idle: all\n"
				   "recompress: type=idle priority=2 max_pages=4\n");
	assert_int_equal(rep.n_passes, 2);
	assert_int_equal(rep.passes[0].priority, 1);
	assert_int_equal(rep.passes[0].unshrunk, 4);
	assert_false(rep.passes[0].unshrunk_retried);
	assert_int_equal(rep.passes[1].priority, 2);
	assert_true(rep.passes[1].fallback);
	assert_int_equal(rep.passes[1].pages_charged, 4);
	/* #2 is the highest: its failures are marked 'n', nothing is left for next pass */
	assert_int_equal(rep.passes[1].unshrunk, UINT64_MAX);

	/* the report says what #1 left and where it went */
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "zram0: pass idle #1: 3 writes"));
	assert_non_null(strstr(out, "4 pages not shrunk (next priority tries them)"));
	assert_non_null(strstr(out, "zram0: pass idle #2: 1 write"));

	/* dry run: the exact per-priority writes */
	w.log[0] = '\0';
	out[0] = '\0';
	rewind(outf);
	ctx.dry_run = true;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	fflush(outf);
	assert_string_equal(w.log, "");
	assert_non_null(strstr(out, "would write 'type=idle priority=1 max_pages=2048' to recompress\n"));
	assert_non_null(strstr(out, "would write 'type=idle priority=2 max_pages=2048' to recompress\n"));
	assert_non_null(strstr(out, "up to the pages the previous priority could not shrink"));
	ctx.dry_run = false;
}

/*
 * 6.12.y with two secondaries: a write at one priority never marks the pages it fails on
 * (6.12-6.14 mark only when a write tried every secondary), so they would be decompressed
 * and tried again at every pass. The next pass skips the chain while nothing was written to
 * the device and its candidates are those the chain left.
 */
static void test_unmarked_failures_not_retried(void **state)
{
	struct device_report rep = { 0 };
	struct kver v = { 6, 12, 118 };
	const char *attr;

	(void)state;
	fr_write("sys/block/zram0/recomp_algorithm", "#1: lzo [zstd] \n#2: lzo [deflate] \n");
	fr_write("sys/block/zram0/stat", "     100 0 800 10 5000 0 40000 50 0 60 60 7 0 56 0 0 0\n");
	fr_write("sys/block/zram0/io_stat", "       0        0        0      120\n");
	/* three idle candidates, all incompressible: nothing changes in block_state */
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0           17.000001 ..hi..\n"
		 "           1           18.000001 ...i..\n"
		 "           2           19.000001 ...i..\n");
	assert_int_equal(zram_probe(root, &v, TRI_YES, 0, &dev, &attr), 0);
	assert_int_equal(dev.recomp.count, 2);
	cfg_idle_only();
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "idle: all\n"
				   "recompress: type=idle priority=2 max_pages=3\n");
	assert_int_equal(rep.passes[1].unshrunk, 3);
	assert_true(rep.passes[1].unshrunk_retried);
	assert_true(dev.learnt.memo.valid[PASS_IDLE]);
	assert_int_equal(dev.learnt.memo.left[PASS_IDLE], 3);

	/* nothing written since: the chain is skipped, only the idle mark is written */
	w.log[0] = '\0';
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\n");
	assert_int_equal(rep.passes[0].stop, STOP_UNCHANGED);
	assert_int_equal(rep.passes[1].stop, STOP_NOTHING);
	assert_true(dev.learnt.memo.valid[PASS_IDLE]);

	/* a page became idle that was not before: the chain runs again */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0           17.000001 ..hi..\n"
		 "           1           18.000001 ...i..\n"
		 "           2           19.000001 ...i..\n"
		 "           3           20.000001 ...i..\n");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1 max_pages=2048\n"));
	assert_int_equal(dev.learnt.memo.left[PASS_IDLE], 4);

	/* a write to the device (stat's write count moved): no skip either */
	w.log[0] = '\0';
	fr_write("sys/block/zram0/stat", "     100 0 800 10 5001 0 40008 50 0 60 60 7 0 56 0 0 0\n");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1 max_pages=2048\n"));

	/* --once (a fresh device model) knows nothing: the chain runs */
	w.log[0] = '\0';
	assert_int_equal(zram_probe(root, &v, TRI_YES, 0, &dev, &attr), 0);
	assert_false(dev.learnt.memo.valid[PASS_IDLE]);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle priority=1 max_pages=2048\n"));
}

/*
 * ENOMEM is back-pressure: the batch ends quietly, the next one is half as large; each
 * write that succeeds doubles it back (policy_enomem_batch).
 */
static void test_enomem_backpressure(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	cfg_idle_only();
	w.fail_attr = "recompress";
	w.fail_errno = ENOMEM;
	w.fail_times = 2;
	w.progress_batches = 1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle priority=1 max_pages=2048\n"
				   "recompress: type=idle priority=1 max_pages=1024\n"
				   "recompress: type=idle priority=1 max_pages=512\n"
				   "recompress: type=idle priority=1 max_pages=1024\n");
	assert_int_equal(rep.error, 0);
	assert_int_equal(rep.passes[0].enomem, 2);
	assert_int_equal(rep.passes[0].commands, 2);
	assert_int_equal(rep.passes[0].stop, STOP_NO_PROGRESS);

	/* refused every time: the step ends after four tries, still no error */
	w.log[0] = '\0';
	w.fail_times = -1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.error, 0);
	assert_int_equal(rep.passes[0].enomem, 4);
	assert_int_equal(rep.passes[0].stop, STOP_ENOMEM);
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "4 ENOMEM (batch halved)"));
	assert_non_null(strstr(out, "memory too short for the kernel (ENOMEM)"));

	/* compaction refused with ENOMEM: left to the next pass, not an error */
	w.log[0] = '\0';
	w.fail_attr = "compact";
	cfg.compact = COMPACT_ALWAYS;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(rep.compact_enomem);
	assert_false(rep.compacted);
}

/*
 * Honest accounting under churn: another writer stores pages during every write; the pass
 * reports what its writes did (1 MB less compressed data per progressing write), never a
 * negative saving caused by the other writer.
 */
static void test_accounting_under_churn(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	cfg_idle_only();
	w.orig = 40000000 * 4ULL; /* compr 40 MB: ratio 4:1 like the other writer's pages */
	write_mm();
	w.other_pages = 2000;	  /* 8 MB stored during each write, 2 MB compressed */
	w.progress_batches = 2;
	assert_int_equal(zram_read_mm_stat(root, 0, &dev.mm), 0);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	/* raw: compr_data_size grew by 3 x 2.048 MB - 2 MB */
	assert_true(rep.after.v[MM_COMPR_DATA_SIZE] > rep.before.v[MM_COMPR_DATA_SIZE]);
	/* own: the two progressing writes' 1 MB each, within the ratio's rounding */
	assert_true(rep.passes[0].compr_saved >= 1900000 && rep.passes[0].compr_saved <= 2100000);
	assert_int_equal(rep.saved_own, (uint64_t)rep.passes[0].compr_saved);
	assert_true(rep.others_wrote);
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "other writers changed orig_data_size by"));
	w.other_pages = 0;
	w.orig = 0;
}

/* The summary the daemon logs and adds to its totals. */
static void test_summarize(void **state)
{
	struct device_report rep = { .n_passes = 2, .idle_ns = 5, .compact_ns = 7,
				     .saved_own = 3000, .freed_own = 9000 };
	struct pass_summary s;

	(void)state;
	rep.passes[0] = (struct pass_report){ .type = PASS_IDLE, .pages_charged = 2048,
					      .kernel_ns = 100, .compr_saved = 3000 };
	rep.passes[1] = (struct pass_report){ .type = PASS_HUGE, .pages_charged = 16,
					      .kernel_ns = 10, .huge_delta = -2,
					      .stop = STOP_SIGNAL };
	pass_summarize(&rep, &s);
	assert_int_equal(s.pages, 2064);
	assert_int_equal(s.kernel_ns, 122);
	assert_int_equal(s.saved, 3000);
	assert_int_equal(s.freed, 9000);
	assert_true(s.interrupted);
	assert_true(s.huge_ran && s.huge_progress);
	/* fewer huge pages while another writer stored or freed pages: not the pass's doing */
	rep.others_wrote = true;
	pass_summarize(&rep, &s);
	assert_true(s.huge_ran && !s.huge_progress);
	rep.passes[1].compr_saved = 1;
	pass_summarize(&rep, &s);
	assert_true(s.huge_progress);
	rep.others_wrote = false;
	rep.device_lost = true; /* reset during the pass: its mm_stat says nothing */
	pass_summarize(&rep, &s);
	assert_int_equal(s.saved, 0);
	assert_int_equal(s.freed, 0);
}

/* Pacing: a duty below 1000 pauses between writes (not after the last one). */
static void test_paced_pass(void **state)
{
	struct device_report rep = { 0 };
	volatile unsigned duty = 1000;

	(void)state;
	cfg_idle_only();
	ctx.duty_permille = &duty;
	w.progress_batches = 2;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].commands, 3);
	assert_int_equal(rep.passes[0].paced_ns, 0);
	w.progress_batches = 2;
	duty = 10; /* 1%: every pause at least the 1 ms the sleep rounds up to */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].commands, 3);
	assert_true(rep.passes[0].paced_ns >= 2000000);
	ctx.duty_permille = NULL;
}

static void test_eagain_retried(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	w.fail_attr = "recompress";
	w.fail_errno = EAGAIN;
	w.fail_times = 2;
	cfg.n_passes = 1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.passes[0].eagain, 2);
	assert_int_equal(rep.passes[0].commands, 1);
	assert_string_equal(fr_read("sys/block/zram0/recompress"), "type=idle priority=1 max_pages=2048\n");
}

static void test_eagain_exhausted_next_pass_runs(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	w.fail_attr = "recompress";
	w.fail_errno = EAGAIN;
	w.fail_times = 4; /* 1 + 3 retries: the idle pass gives up, the huge pass works */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), -EAGAIN);
	assert_int_equal(rep.passes[0].stop, STOP_ERROR);
	assert_int_equal(rep.passes[0].error, -EAGAIN);
	assert_int_equal(rep.passes[1].commands, 1);
	assert_string_equal(fr_read("sys/block/zram0/recompress"), "type=huge priority=1 max_pages=2048\n");
}

static void test_threshold_einval_continues(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	cfg.threshold_bytes = 4000;
	w.fail_attr = "recompress";
	w.fail_errno = EINVAL;
	w.fail_times = -1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), -EINVAL);
	/* the later types would carry the same threshold: skipped after one error;
	 * compaction is still considered but the pool is only 7% fragmented */
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle threshold=4000 priority=1 max_pages=2048\n");
	assert_int_equal(rep.n_passes, 1);
	assert_int_equal(rep.passes[0].error, -EINVAL);
}

static void test_device_removed(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	w.remove_after = "idle";
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), -ENODEV);
	/* the first recompress write fails with ENOENT→ENODEV: nothing after it */
	assert_string_equal(w.log, "idle: all\nrecompress: type=idle priority=1 max_pages=2048\n");
	(void)fr_setup(); /* teardown removes a fresh dir */
}

static void test_idle_age_fallback(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	dev.caps.idle_age = TRI_UNKNOWN;
	cfg.idle_age_min_sec = 600;
	cfg.idle_age_max_sec = 600;
	cfg.n_passes = 1;
	w.fail_attr = "idle";
	w.fail_errno = EINVAL;
	w.fail_times = 1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(fr_read("sys/block/zram0/idle"), "all\n");
	assert_true(strncmp(w.log, "idle: 600\nidle: all\n", 20) == 0);
	assert_int_equal(dev.caps.idle_age, TRI_NO);
	assert_true(rep.idle_marked);
	assert_true(rep.idle_age_sec == 0);
}

static void test_idle_age_written(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	cfg.idle_age_min_sec = 600;
	cfg.idle_age_max_sec = 600;
	cfg.passes[0] = PASS_HUGE; /* no idle type: no idle mark at all */
	cfg.n_passes = 1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(fr_read("sys/block/zram0/idle"), "");
	cfg.passes[0] = PASS_HUGE_IDLE;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(fr_read("sys/block/zram0/idle"), "600\n");
}

static void test_dry_run_writes_nothing(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	ctx.dry_run = true;
	cfg.compact = COMPACT_ALWAYS;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	fflush(outf);
	assert_string_equal(w.log, "");
	assert_non_null(strstr(out, "zram0: would write 'all' to idle\n"));
	assert_non_null(strstr(out, "zram0: would write 'type=idle priority=1 max_pages=2048' to recompress\n"));
	assert_non_null(strstr(out, "zram0: would write 'type=huge priority=1 max_pages=2048' to recompress\n"));
	assert_non_null(strstr(out, "zram0: would write '1' to compact\n"));
}

static void test_gap_refused_on_615(void **state)
{
	struct device_report rep = { 0 };
	struct kver v = { 6, 15, 0 };
	const char *attr;

	(void)state;
	fr_write("sys/block/zram0/recomp_algorithm", "#2: lzo [zstd] \n");
	assert_int_equal(zram_probe(root, &v, TRI_YES, 0, &dev, &attr), 0);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), -EINVAL);
	assert_string_equal(w.log, "");
	v = (struct kver){ 6, 14, 0 };
	assert_int_equal(zram_probe(root, &v, TRI_YES, 0, &dev, &attr), 0);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle"));
}

/* stderr (the log) into a file from here to capture_end(), which returns what was logged. */
static int capture_fd = -1;
static char capture_buf[4096];

static void capture_start(void)
{
	char path[PATH_MAX];
	int fd;

	fflush(stderr);
	snprintf(path, sizeof(path), "%s/stderr.log", fr_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	capture_fd = dup(2);
	assert_true(capture_fd >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static const char *capture_end(void)
{
	fflush(stderr);
	assert_int_equal(dup2(capture_fd, 2), 2);
	close(capture_fd);
	capture_fd = -1;
	snprintf(capture_buf, sizeof(capture_buf), "%s", fr_read("stderr.log"));
	return capture_buf;
}

/*
 * zstd-dictionary (issue 28): the kernel reads the file when algorithm_params is written and
 * refuses what it cannot read (EINVAL; 7.1+ has reset the priority by then): one error
 * naming the device and the file, the same priority written again with its level only, and
 * the setup goes on (0). Found in a tmpfs directory; skipped where /dev/shm is none.
 */
static void test_configure_dict_refused_by_kernel(void **state)
{
	char dir[] = "/dev/shm/zr-test-pass-dict.XXXXXX", path[128], want[512], cmd[160];
	struct device_report rep = { 0 };
	static uint8_t b[2048] = { 0x37, 0xa4, 0x30, 0xec };
	const char *log;
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		skip();
	setenv("ZRAM_RECOMPD_DICT_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/zram0.zdict", dir);
	f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, sizeof(b), f), sizeof(b));
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
	dev.initialized = false;
	memset(&dev.recomp, 0, sizeof(dev.recomp));
	cfg.has_level[0] = true;
	cfg.level[0] = 9;
	cfg.dict_use = DICT_USE_PRIOS;
	cfg.dict_prios = DICT_PRIOS_ZSTD;
	ctx.apply_dict = true;
	w.fail_attr = "algorithm_params";
	w.fail_errno = EINVAL;
	w.fail_times = 1;
	capture_start();
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), 0);
	log = capture_end();
	snprintf(want, sizeof(want),
		 "recomp_algorithm: algo=zstd priority=1\n"
		 "algorithm_params: priority=1 level=9 dict=%s\n"
		 "algorithm_params: priority=1 level=9\n",
		 path);
	assert_string_equal(w.log, want);
	snprintf(want, sizeof(want),
		 "zram-recompd: error: zram0: algorithm_params: dictionary %s at priority 1: "
		 "Invalid argument; configured without the dictionary\n",
		 path);
	assert_string_equal(log, want);
	assert_true(rep.algorithms_written);
	/* nothing applied: no record */
	snprintf(path, sizeof(path), "%s/zram0.zdict.applied", dir);
	assert_int_equal(access(path, F_OK), -1);
	/* EBUSY is the device's (another tool's disksize), not the file's: no retry, -EBUSY */
	w.log[0] = '\0';
	w.fail_errno = EBUSY;
	w.fail_times = -1;
	memset(&dev.recomp, 0, sizeof(dev.recomp));
	capture_start();
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), -EBUSY);
	log = capture_end();
	assert_null(strstr(log, "configured without the dictionary"));
	snprintf(want, sizeof(want),
		 "recomp_algorithm: algo=zstd priority=1\n"
		 "algorithm_params: priority=1 level=9 dict=%s/zram0.zdict\n",
		 dir);
	assert_string_equal(w.log, want);
	unsetenv("ZRAM_RECOMPD_DICT_DIR");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Another tool (the kernel's zram selftest, zram-generator ...) wrote disksize between the
 * probe and the first setup write: EBUSY is a notice naming it, never an error, -EBUSY for
 * the caller to probe again, and nothing further is written (the other tool's setup stays).
 */
static void test_configure_ebusy_gives_way(void **state)
{
	struct device_report rep = { 0 };
	const char *log;

	(void)state;
	dev.initialized = false;
	memset(&dev.recomp, 0, sizeof(dev.recomp));
	cfg.n_algos = 2;
	strcpy(cfg.algos[1], "deflate");
	cfg.has_level[1] = true;
	cfg.level[1] = 9;
	w.fail_attr = "recomp_algorithm";
	w.fail_errno = EBUSY;
	w.fail_times = -1;
	capture_start();
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), -EBUSY);
	log = capture_end();
	assert_string_equal(w.log, "recomp_algorithm: algo=zstd priority=1\n");
	assert_string_equal(log, "zram-recompd: zram0: set up by another tool while being "
				 "configured (recomp_algorithm: EBUSY after its disksize); used as "
				 "that tool set it up, nothing rewritten\n");
	assert_false(rep.algorithms_written);
	assert_int_equal(dev.recomp.count, 0);

	/* hot-removed meanwhile: a notice too, -ENODEV */
	w.log[0] = '\0';
	w.fail_errno = ENOENT;
	capture_start();
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), -ENODEV);
	log = capture_end();
	assert_non_null(strstr(log, "zram-recompd: zram0: removed while being configured "
				    "(recomp_algorithm: No such device); not managed\n"));
	assert_null(strstr(log, "error"));

	/* backing_dev: EBUSY on a device still uninitialized is the backing device's (O_EXCL,
	 * open elsewhere): an error, and not -EBUSY (the caller must not take it for a setup) */
	cfg.n_algos = 0;
	strcpy(cfg.backing_device, "/dev/loop7");
	dev.caps.writeback = true;
	dev.backing_dev[0] = '\0';
	fr_write("sys/block/zram0/backing_dev", "none\n");
	fr_write("sys/block/zram0/initstate", "0\n");
	w.fail_attr = "backing_dev";
	w.fail_errno = EBUSY;
	capture_start();
	assert_int_equal(pass_configure_writeback(&ctx, &dev, &cfg), -EIO);
	log = capture_end();
	assert_non_null(strstr(log, "zram-recompd: error: zram0: backing_dev: device busy (EBUSY)"));
	/* ... while with the device initialized now, another tool set it up: a notice */
	fr_write("sys/block/zram0/initstate", "1\n");
	capture_start();
	assert_int_equal(pass_configure_writeback(&ctx, &dev, &cfg), -EBUSY);
	log = capture_end();
	assert_non_null(strstr(log, "zram0: set up by another tool while being configured "
				    "(backing_dev: EBUSY after its disksize)"));
	assert_null(strstr(log, "error"));
	assert_string_equal(dev.backing_dev, "");

	/* EPERM: the device cgroup of the unit refuses the kernel's open of the backing
	 * device (issue 25, item 3): the message names the device policy and who sets it */
	fr_write("sys/block/zram0/initstate", "0\n");
	w.fail_errno = EPERM;
	capture_start();
	assert_int_equal(pass_configure_writeback(&ctx, &dev, &cfg), -EPERM);
	log = capture_end();
	assert_non_null(strstr(log, "zram-recompd: error: zram0: backing_dev: the kernel may not "
				    "open '/dev/loop7' for this process (EPERM): under "
				    "zram-recompd.service the device policy (DevicePolicy=closed) "
				    "forbids it; 'zram-recompd backing setup'"));
	assert_null(strstr(log, "ProtectKernelTunables"));
	assert_string_equal(dev.backing_dev, "");

	/* backing-file: never written by this path (the daemon has no loop or dm-crypt); said
	 * once per device, nothing written */
	w.fail_attr = NULL;
	w.log[0] = '\0';
	cfg.backing_device[0] = '\0';
	strcpy(cfg.backing_file, "/var/lib/zram-recompd/zram0.swap");
	dev.learnt.backing_noted = false;
	capture_start();
	assert_int_equal(pass_configure_writeback(&ctx, &dev, &cfg), 0);
	assert_int_equal(pass_configure_writeback(&ctx, &dev, &cfg), 0);
	log = capture_end();
	assert_string_equal(w.log, "");
	assert_string_equal(log, "zram-recompd: zram0: not initialized; its backing-file is set up "
				 "by 'zram-recompd backing setup' (zram-recompd-backing.service) or "
				 "the setup tool's hook (--once), not by the daemon\n");
	/* an encrypted backing-device likewise: the plain device is never written */
	cfg.backing_file[0] = '\0';
	strcpy(cfg.backing_device, "/dev/sdb2");
	cfg.backing_encryption = BACKING_ENC_YES;
	dev.learnt.backing_noted = false;
	capture_start();
	assert_int_equal(pass_configure_writeback(&ctx, &dev, &cfg), 0);
	log = capture_end();
	assert_string_equal(w.log, "");
	assert_non_null(strstr(log, "its encrypted backing-device is set up by"));
}

static void test_configure_uninitialized(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	dev.initialized = false;
	memset(&dev.recomp, 0, sizeof(dev.recomp));
	cfg.n_algos = 2;
	strcpy(cfg.algos[1], "deflate");
	cfg.has_level[1] = true;
	cfg.level[1] = 9;
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "recomp_algorithm: algo=zstd priority=1\n"
				   "recomp_algorithm: algo=deflate priority=2\n"
				   "algorithm_params: priority=2 level=9\n");
	assert_true(rep.algorithms_written);
	assert_int_equal(dev.recomp.highest, 2);
	/* an unknown algorithm anywhere in the list is refused before anything is written */
	w.log[0] = '\0';
	strcpy(cfg.algos[1], "brotli");
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), -EINVAL);
	assert_string_equal(w.log, "");
	/* so is a level the backend refuses: 7.3 fails disksize and resets every algorithm */
	memset(&dev.recomp, 0, sizeof(dev.recomp));
	strcpy(cfg.algos[1], "deflate");
	cfg.level[1] = 10;
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), -EINVAL);
	assert_string_equal(w.log, "");
	/* two priorities of one algorithm with their own levels: all algorithms, then params */
	strcpy(cfg.algos[1], "zstd");
	cfg.has_level[0] = true;
	cfg.level[0] = 3;
	cfg.level[1] = 9;
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "recomp_algorithm: algo=zstd priority=1\n"
				   "recomp_algorithm: algo=zstd priority=2\n"
				   "algorithm_params: priority=1 level=3\n"
				   "algorithm_params: priority=2 level=9\n");
}

/* A device with a backing device and CONFIG_ZRAM_WRITEBACK, probed again. */
static void wb_device(const char *backing)
{
	struct kver v = { 7, 3, 4 };
	const char *attr;

	fr_write("sys/block/zram0/backing_dev", backing);
	fr_write("sys/block/zram0/writeback", "");
	fr_write("sys/block/zram0/writeback_limit", "0\n");
	fr_write("sys/block/zram0/writeback_limit_enable", "0\n");
	fr_write("sys/block/zram0/bd_stat", "0 0 0\n");
	assert_int_equal(zram_probe(root, &v, TRI_YES, 0, &dev, &attr), 0);
	assert_true(dev.caps.writeback);
	cfg_idle_only();
	cfg.writeback = true;
	cfg.n_wb_types = 2;
	cfg.wb_types[0] = WB_INCOMPRESSIBLE;
	cfg.wb_types[1] = WB_IDLE;
	cfg.wb_idle_age_sec = 86400;
	cfg.wb_bytes_per_day = 100 * 4096;
	cfg.wb_bytes_per_pass = 1 << 30;
}

/*
 * The budget is the kernel's: the limit written before each step is what is left, bd_stat
 * tells what went, and -EIO at limit 0 is "budget spent", not an error; the pool falls by
 * what was written back, and compaction comes after the writeback.
 */
static void test_writeback_budget_eio(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	wb_device("/dev/loop0\n");
	w.wb_candidates = 250; /* more than the 100 pages of the budget */
	cfg.compact = COMPACT_ALWAYS;
	ctx.wb_day_left = cfg.wb_bytes_per_day;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.error, 0);
	assert_true(rep.wb.planned);
	assert_int_equal(rep.wb.skip, WB_RAN);
	assert_int_equal(rep.wb.budget_pages, 100);
	/* the first step met the limit: the second one never ran */
	assert_int_equal(rep.wb.n, 1);
	assert_int_equal(rep.wb.steps[0].stop, WB_BUDGET);
	assert_int_equal(rep.wb.pages, 100);
	assert_int_equal(w.wb_written, 100);
	assert_int_equal(rep.wb.mem_freed, 100 * 1000);
	assert_int_equal(rep.written_back, 100);
	assert_true(rep.wb.have_bd_stat);
	assert_int_equal(rep.wb.bd_stat[2], 100);
	assert_non_null(strstr(w.log, "writeback_limit: 0\nwriteback_limit_enable: 1\n"
				      "writeback_limit: 100\nwriteback: type=incompressible\n"
				      "writeback_limit_enable: 0\ncompact: 1\n"));
	assert_null(strstr(w.log, "writeback: type=idle"));

	/* the next pass with 40 pages of candidates and a full budget: both steps run; the
	 * idle one has no block_state (no page ages): skipped, never the kernel's IDLE filter */
	w.log[0] = '\0';
	w.wb_candidates = 40;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.n, 2);
	assert_int_equal(rep.wb.steps[0].pages, 40);
	assert_int_equal(rep.wb.steps[0].stop, WB_DONE);
	assert_int_equal(rep.wb.steps[1].pages, 0);
	assert_int_equal(rep.wb.steps[1].stop, WB_NO_AGES);
	assert_non_null(strstr(w.log, "writeback_limit: 100\nwriteback: type=incompressible\n"
				      "writeback_limit_enable: 0\n"));
	assert_null(strstr(w.log, "idle: 86400"));
	assert_null(strstr(w.log, "writeback: type=idle"));
}

/*
 * idle / huge_idle by age from block_state: old slots by index (ranges on 6.16+), never
 * young, same, written back or recompressed (ac_time 0) ones; the budget caps the selection.
 */
static void test_writeback_by_age(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	wb_device("/dev/loop0\n");
	/* ac_time 1 s after boot is old for an age of 5 s; 4e9 is the future: young */
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0            1.000000 ......\n"
		 "           1            1.000000 ..h...\n"
		 "           2   4000000000.000000 ...i..\n"
		 "           3            0.000000 ...ir.\n"
		 "           4            1.000000 ..h..n\n"
		 "           5            1.000000 .....n\n"
		 "           6            0.000000 s..i..\n"
		 "           7            0.000000 .w.i..\n"
		 "           8            1.000000 ......\n");
	dev.caps.block_state = true;
	if (dev.disksize < 16 * 4096)
		dev.disksize = 16 * 4096;
	cfg.wb_types[0] = WB_HUGE_IDLE;
	cfg.wb_types[1] = WB_IDLE;
	cfg.wb_idle_age_sec = 5;
	ctx.wb_day_left = cfg.wb_bytes_per_day;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.error, 0);
	assert_int_equal(rep.wb.n, 2);
	/* huge_idle: 1 and 4 */
	assert_int_equal(rep.wb.steps[0].selected, 2);
	assert_int_equal(rep.wb.steps[0].unknown, 0);
	assert_int_equal(rep.wb.steps[0].pages, 2);
	/* idle (block_state not changed by the fake): 0, 1, 4, 5, 8; 2 young, 3 unknown */
	assert_int_equal(rep.wb.steps[1].selected, 5);
	assert_int_equal(rep.wb.steps[1].young, 1);
	assert_int_equal(rep.wb.steps[1].unknown, 1);
	assert_non_null(strstr(w.log,
			       "writeback_limit: 100\nwriteback: page_index=1 page_index=4\n"
			       "writeback_limit: 98\n"
			       "writeback: page_indexes=0-1 page_indexes=4-5 page_index=8\n"));
	assert_null(strstr(w.log, "writeback: type="));

	/* a budget of 3 pages: the selection stops at it */
	w.log[0] = '\0';
	w.wb_written = 0;
	fr_write("sys/block/zram0/bd_stat", "0 0 0\n");
	cfg.n_wb_types = 1;
	cfg.wb_types[0] = WB_IDLE;
	ctx.wb_day_left = 3 * 4096;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.steps[0].selected, 3);
	assert_int_equal(rep.wb.steps[0].over_cap, 2);
	assert_non_null(
		strstr(w.log, "writeback_limit: 3\nwriteback: page_indexes=0-1 page_index=4\n"));

	/* 400 old slots, every other index: 200 ranges do not fit in one write; each write
	 * stays within ZRAM_CMD_MAX and reaches the kernel whole (zram_write's own buffer) */
	{
		static char bs[400 * 41];
		size_t off = 0;

		for (unsigned i = 0; i < 400; i++)
			off += (size_t)snprintf(bs + off, sizeof(bs) - off, "%12u %12u.%06u %s\n",
						2 * i, 1u, 0u, i % 2 ? "......" : "..h...");
		fr_write("sys/kernel/debug/zram/zram0/block_state", bs);
		if (dev.disksize < 1024 * 4096)
			dev.disksize = 1024 * 4096;
		w.log[0] = '\0';
		w.wb_written = 0;
		fr_write("sys/block/zram0/bd_stat", "0 0 0\n");
		cfg.wb_bytes_per_day = 1000 * 4096;
		ctx.wb_day_left = cfg.wb_bytes_per_day;
		assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
		assert_int_equal(rep.error, 0);
		assert_int_equal(rep.wb.steps[0].selected, 400);
		assert_true(rep.wb.steps[0].writes > 1);
		assert_int_equal(rep.wb.steps[0].pages, 400);
		assert_int_equal(w.wb_written, 400);
		assert_non_null(strstr(w.log, "writeback: page_index=0 page_index=2 page_index=4 "));
		assert_non_null(strstr(w.log, " page_index=798\n"));
		cfg.wb_bytes_per_day = 100 * 4096;
		fr_write("sys/kernel/debug/zram/zram0/block_state",
			 "           0            1.000000 ......\n"
			 "           1            1.000000 ..h...\n"
			 "           2   4000000000.000000 ...i..\n"
			 "           3            0.000000 ...ir.\n"
			 "           4            1.000000 ..h..n\n"
			 "           5            1.000000 .....n\n"
			 "           6            0.000000 s..i..\n"
			 "           7            0.000000 .w.i..\n"
			 "           8            1.000000 ......\n");
	}

	/* 6.2-6.15: one page_index= per write */
	{
		struct kver v612 = {6, 12, 0};
		const char *attr;

		w.log[0] = '\0';
		assert_int_equal(zram_probe(root, &v612, TRI_YES, 0, &dev, &attr), 0);
		dev.caps.block_state = true;
		if (dev.disksize < 16 * 4096)
			dev.disksize = 16 * 4096;
		ctx.wb_day_left = cfg.wb_bytes_per_day;
		assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
		assert_int_equal(rep.wb.steps[0].writes, 5);
		assert_non_null(strstr(w.log, "writeback: page_index=0\nwriteback: page_index=1\n"
					      "writeback: page_index=4\nwriteback: page_index=5\n"
					      "writeback: page_index=8\n"));
	}
}

/* No backing device, or the budget spent: the steps are skipped, no error, nothing written. */
static void test_writeback_skipped(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	wb_device("none\n");
	w.wb_candidates = 10;
	ctx.wb_day_left = cfg.wb_bytes_per_day;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.skip, WB_SKIP_NO_BACKING);
	assert_null(strstr(w.log, "writeback"));
	wb_device("/dev/loop0\n");
	ctx.wb_day_left = 4095; /* less than a page */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.skip, WB_SKIP_BUDGET);
	assert_null(strstr(w.log, "writeback"));
	assert_int_equal(w.wb_written, 0);
	/* a real error is one */
	ctx.wb_day_left = 1 << 20;
	w.fail_attr = "writeback";
	w.fail_errno = ENOSPC;
	w.fail_times = -1;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), -ENOSPC);
	assert_int_equal(rep.wb.steps[0].stop, WB_ERROR);
}

/*
 * Another writer's limit (writeback_limit_enable 1 before the pass) caps the pass: the
 * step gets what is less, the budget or that limit, and the limit gets back exactly what
 * it had less what was written (issue 25, item 2). Its enable is never touched.
 */
static void test_writeback_admin_limit(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	wb_device("/dev/loop0\n");
	cfg.n_wb_types = 1;
	fr_write("sys/block/zram0/writeback_limit_enable", "1\n");
	fr_write("sys/block/zram0/writeback_limit", "5\n");
	w.wb_candidates = 250;
	ctx.wb_day_left = cfg.wb_bytes_per_day; /* 100 pages */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.skip, WB_RAN);
	assert_int_equal(w.wb_written, 5);
	assert_int_equal(rep.wb.pages, 5);
	assert_true(rep.wb.limited);
	assert_int_equal(rep.wb.limit_pages, 5);
	assert_non_null(strstr(w.log, "writeback_limit: 5\nwriteback: type=incompressible\n"
				      "writeback_limit: 0\n"));
	assert_null(strstr(w.log, "writeback_limit_enable"));
	assert_null(strstr(w.log, "writeback_limit: 100"));
	assert_string_equal(fr_read("sys/block/zram0/writeback_limit"), "0\n");

	/* spent: nothing written, and the 0 stays */
	w.log[0] = '\0';
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.skip, WB_SKIP_LIMIT);
	assert_null(strstr(w.log, "writeback"));
	assert_int_equal(w.wb_written, 5);

	/* a limit above the budget: the budget caps the step, the limit gets 300 - 100 */
	w.log[0] = '\0';
	fr_write("sys/block/zram0/writeback_limit", "300\n");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.pages, 100);
	assert_non_null(strstr(w.log, "writeback_limit: 100\nwriteback: type=incompressible\n"
				      "writeback_limit: 200\n"));
	assert_null(strstr(w.log, "writeback_limit_enable"));
	assert_string_equal(fr_read("sys/block/zram0/writeback_limit"), "200\n");
}

/*
 * A reset during the writeback (issue 25, item 5): bd_stat is zeroed, but the pages written
 * before it are on the disk. writeback_limit, which reset leaves alone, tells how many; the
 * summary charges them although nothing else of the pass counts.
 */
static void test_writeback_reset_charged(void **state)
{
	struct device_report rep = { 0 };
	struct pass_summary s;

	(void)state;
	wb_device("/dev/loop0\n");
	cfg.n_wb_types = 1;
	/* 7 pages written back before (bd_stat); a reset takes it below that */
	w.wb_written = 7;
	fr_write("sys/block/zram0/bd_stat", "0 0 7\n");
	w.wb_candidates = 30;
	w.wb_reset = true;
	ctx.wb_day_left = cfg.wb_bytes_per_day;
	(void)pass_run(&ctx, &dev, &cfg, &rep);
	assert_true(rep.device_lost);
	assert_int_equal(rep.wb.pages, 30);
	pass_summarize(&rep, &s);
	assert_int_equal(s.wb_pages, 30);
	assert_int_equal(s.saved, 0);
	pass_print_report(outf, &rep);
	fflush(outf);
	assert_non_null(strstr(out, "zram0: reset or removed during the pass; nothing is counted "
				    "but the 30 pages written back before\n"));
}

/*
 * writeback-batch-size (6.19+) is set for the pass and the device's previous value put back
 * after it (issue 25, item 4); the same value as the device's is not written at all.
 */
static void test_writeback_batch_size_restored(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	fr_write("sys/block/zram0/writeback_batch_size", "32\n");
	wb_device("/dev/loop0\n");
	assert_true(dev.caps.wb_batch_size);
	cfg.n_wb_types = 1;
	cfg.wb_batch_size = 64;
	w.wb_candidates = 10;
	ctx.wb_day_left = cfg.wb_bytes_per_day;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.pages, 10);
	assert_non_null(strstr(w.log, "writeback_batch_size: 64\nwriteback_limit: 0\n"));
	assert_non_null(strstr(w.log, "writeback: type=incompressible\n"
				      "writeback_limit_enable: 0\nwriteback_batch_size: 32\n"));
	/* the fake attribute keeps every write after the kernel's value */
	assert_string_equal(fr_read("sys/block/zram0/writeback_batch_size"), "32\n64\n32\n");

	w.log[0] = '\0';
	fr_write("sys/block/zram0/writeback_batch_size", "32\n");
	cfg.wb_batch_size = 32;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_null(strstr(w.log, "writeback_batch_size"));
}

/*
 * A pass that crashed with the limit on left writeback_limit_enable 1 and its own limit in
 * the kernel; its hold record (state directory) says what the device had before, and the
 * next pass goes by that, not by the leftover limit (issue 25, item 2: the crash case). The
 * record exists exactly while the limit is on; one of another boot is void.
 */
static void test_writeback_crash_hold(void **state)
{
	struct device_report rep = { 0 };
	bool limited = true;
	uint64_t limit = 1;

	(void)state;
	wb_device("/dev/loop0\n");
	cfg.n_wb_types = 1;
	fr_write("state/.keep", "");
	ctx.state_fd = openat(root, "state", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(ctx.state_fd >= 0);
	ctx.wb_day_left = cfg.wb_bytes_per_day; /* 100 pages */
	w.wb_candidates = 250;

	/* a normal pass: the record is there during the writes, gone after */
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_int_equal(rep.wb.pages, 100);
	assert_int_equal(w.wb_hold_seen, 1);
	assert_int_equal(faccessat(root, "state/wb-hold.zram0", F_OK, 0), -1);

	/* crashed with 9 of its limit left, the limit off before it: not another writer's */
	w.log[0] = '\0';
	fr_write("sys/block/zram0/writeback_limit_enable", "1\n");
	fr_write("sys/block/zram0/writeback_limit", "9\n");
	assert_int_equal(wb_hold_save(ctx.state_fd, root, "zram0", false, 0), 0);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_false(rep.wb.limited);
	assert_int_equal(rep.wb.pages, 100);
	assert_non_null(strstr(w.log, "writeback_limit: 100\nwriteback: type=incompressible\n"
				      "writeback_limit_enable: 0\n"));
	assert_int_equal(wb_hold_load(ctx.state_fd, root, "zram0", &limited, &limit), 0);

	/* crashed under another writer's limit of 50: no more than the kernel shows now (20) */
	w.log[0] = '\0';
	fr_write("sys/block/zram0/writeback_limit_enable", "1\n");
	fr_write("sys/block/zram0/writeback_limit", "20\n");
	assert_int_equal(wb_hold_save(ctx.state_fd, root, "zram0", true, 50), 0);
	assert_int_equal(wb_hold_load(ctx.state_fd, root, "zram0", &limited, &limit), 1);
	assert_true(limited);
	assert_int_equal(limit, 50);
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(rep.wb.limited);
	assert_int_equal(rep.wb.pages, 20);
	assert_non_null(strstr(w.log, "writeback_limit: 20\nwriteback: type=incompressible\n"
				      "writeback_limit: 0\n"));
	assert_null(strstr(w.log, "writeback_limit_enable"));

	/* a record of another boot is void (the kernel's values are new): removed */
	w.log[0] = '\0';
	fr_write("sys/block/zram0/writeback_limit", "4\n");
	fr_write("state/wb-hold.zram0", "zram-recompd-wb-hold 1 boot=0123-other limited=0 limit=0\n");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_true(rep.wb.limited);
	assert_int_equal(rep.wb.pages, 4);
	close(ctx.state_fd);
	ctx.state_fd = -1;
}

static void test_configure_initialized_differs(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	strcpy(cfg.algos[0], "deflate");
	assert_int_equal(pass_configure_algorithms(&ctx, &dev, &cfg, &rep), 0);
	assert_string_equal(w.log, "");
	assert_false(rep.algorithms_written);
	assert_string_equal(dev.recomp.name[1], "zstd"); /* the kernel's list stays */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_batches_until_no_progress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_bounded_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_bounded_slow_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_bounded_cpu_not_wall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_bounded_pressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compact_between_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_counts_under_pressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_young_kept_after_idle_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_verdict_estimated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_waits_when_unpaid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_waits_after_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_from_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_bounded_failing_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_bounded_cheap_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_ends_when_write_finds_few, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blind_pass_reads_no_block_state, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_write_unbounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_total_budget_across_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bitmaps_sized_by_block_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_step_skipped_when_nothing_left, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_idle_step_waits_for_walk_worth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_priority_per_write_73, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmarked_failures_not_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enomem_backpressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paced_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_accounting_under_churn, setup, teardown),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test_setup_teardown(test_eagain_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eagain_exhausted_next_pass_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threshold_einval_continues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_age_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_age_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gap_refused_on_615, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configure_uninitialized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configure_ebusy_gives_way, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configure_dict_refused_by_kernel, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_configure_initialized_differs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_budget_eio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_by_age, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_admin_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_reset_charged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_batch_size_restored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_crash_hold, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
