// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pass executor against a temporary tree, with sysfs_write wrapped (-Wl,--wrap) so
 * that a write can fail with a chosen errno or move mm_stat like a real kernel would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fakeroot.h"
#include "pass.h"
#include "sysfs.h"
#include "zram.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int __real_sysfs_write(int root_fd, const char *relpath, const char *data);
int __wrap_sysfs_write(int root_fd, const char *relpath, const char *data);

static struct {
	char log[8192];		/* "attr: data" lines of every attempted write */
	const char *fail_attr;	/* inject errno for writes to this attribute */
	int fail_errno;
	int fail_times;		/* how many writes fail (-1 = all) */
	int progress_batches;	/* recompress writes that shrink compr_data_size */
	uint64_t compr, used, huge;
	const char *remove_after; /* after a write to this attr, the device disappears */
} w;

static void write_mm(void)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64 " %" PRIu64 " 0 0 0 0 %" PRIu64 " 0\n",
		 (uint64_t)104857600, w.compr, w.used, w.huge);
	fr_write("sys/block/zram0/mm_stat", buf);
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
	if (strcmp(attr, "recompress") == 0 && w.progress_batches > 0) {
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

static void test_batches_until_no_progress(void **state)
{
	struct device_report rep = { 0 };

	(void)state;
	w.progress_batches = 3;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	/* 3 productive idle batches + 1 empty one, then 1 empty huge batch, then compact
	 * (fragmentation 43 MB used vs 37 MB compressed = 14%). */
	assert_string_equal(w.log, "idle: all\n"
				   "recompress: type=idle max_pages=2048\n"
				   "recompress: type=idle max_pages=2048\n"
				   "recompress: type=idle max_pages=2048\n"
				   "recompress: type=idle max_pages=2048\n"
				   "recompress: type=huge max_pages=2048\n"
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
			    "type=idle max_pages=2048\ntype=idle max_pages=2048\n"
			    "type=idle max_pages=2048\ntype=idle max_pages=2048\n"
			    "type=huge max_pages=2048\n");
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
				   "recompress: type=idle max_pages=2048\n"
				   "recompress: type=idle max_pages=2048\n"
				   "recompress: type=idle max_pages=904\n");
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
	assert_string_equal(w.log, "idle: all\nrecompress: type=huge max_pages=2048\n");
	assert_int_equal(rep.n_passes, 2);
	assert_int_equal(rep.passes[0].stop, STOP_NOTHING);
	assert_int_equal(rep.passes[0].commands, 0);
	/* one fresh idle slot: the step runs */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           0            0.000000 ...ir.\n"
		 "           1           17.000001 ...i..\n");
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle max_pages=2048\n"));
	/* two secondaries and no restriction: a recompressed slot may still try #2 */
	w.log[0] = '\0';
	fr_write("sys/kernel/debug/zram/zram0/block_state", "           0            0.000000 ...ir.\n");
	dev.recomp.count = 2;
	assert_int_equal(pass_run(&ctx, &dev, &cfg, &rep), 0);
	assert_non_null(strstr(w.log, "recompress: type=idle max_pages=2048\n"));
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
	assert_string_equal(fr_read("sys/block/zram0/recompress"), "type=idle max_pages=2048\n");
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
	assert_string_equal(fr_read("sys/block/zram0/recompress"), "type=huge max_pages=2048\n");
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
				   "recompress: type=idle threshold=4000 max_pages=2048\n");
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
	assert_string_equal(w.log, "idle: all\nrecompress: type=idle max_pages=2048\n");
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
	assert_non_null(strstr(out, "zram0: would write 'type=idle max_pages=2048' to recompress\n"));
	assert_non_null(strstr(out, "zram0: would write 'type=huge max_pages=2048' to recompress\n"));
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
		cmocka_unit_test_setup_teardown(test_total_budget_across_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_step_skipped_when_nothing_left, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_eagain_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eagain_exhausted_next_pass_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threshold_einval_continues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_age_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_age_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gap_refused_on_615, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configure_uninitialized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configure_initialized_differs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
