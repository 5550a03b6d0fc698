// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * adopt when a step fails or a signal comes (tests/unit/adopt_fake.h's fake kernel): a
 * device that was swap before is swap after (or the temporary device holding its pages is),
 * the fallbacks in turn, the messages word for word, the backing device's settings and the
 * dictionary record as the device runs, and the stop signals held back.
 */
#include "adopt_fake.h"

#include "dict_apply.h"

#include <sys/stat.h>

/* zram0 on a backing device (7.3, compressed_writeback as cwb says), as the kernel shows. */
static void with_backing(const char *cwb)
{
	const char *attr;

	wb_attrs = true;
	job.kv = (struct kver){7, 3, 0};
	fr_write("sys/block/zram0/compressed_writeback", cwb);
	fake_dev(0, true);
	fr_write("sys/block/zram0/backing_dev", "/dev/loop0\n");
	assert_int_equal(zram_probe(job.root_fd, &job.kv, job.kconf, 0, &job.dev, &attr), 0);
	assert_true(job.dev.caps.compressed_wb);
	assert_string_equal(job.dev.backing_dev, "/dev/loop0");
	strcpy(job.backing_dev, "/dev/loop0");
}

/*
 * The loop device went with the reset (autoclear): backing_dev is EINVAL from then on. Set
 * up as it was fails the same way; then without the backing device, and swap again.
 */
static void test_direct_backing_gone(void **state)
{
	(void)state;
	with_backing("0\n");
	job.plan.kind = ADOPT_DIRECT;
	fail_attr = "/backing_dev";
	fail_errno = EINVAL;
	fail_times = 100;
	assert_int_equal(adopt_execute(&job), -EINVAL);
	assert_string_equal(calls, "swapoff /dev/zram0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/recomp_algorithm=algo=zstd priority=1\n"
				   "sys/block/zram0/recomp_algorithm=algo=deflate priority=2\n"
				   "sys/block/zram0/algorithm_params=priority=1 level=9\n"
				   "sys/block/zram0/backing_dev=/dev/loop0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/backing_dev=/dev/loop0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/disksize=1073741824\n"
				   "swapon /dev/zram0 0x8064\n");
	assert_true(swap_on_state[0]);
	assert_string_equal(fr_read("sys/block/zram0/initstate"), "1\n");
	assert_string_equal(fr_read("sys/block/zram0/disksize"), "1073741824\n");
	assert_string_equal(fr_read("sys/block/zram0/backing_dev"), "none\n");
	assert_header("dev/zram0");
	assert_string_equal(
		logs, "zram0: cannot hold its backing device /dev/loop0 open: No such file or "
		      "directory; if it goes with the reset, the device is set up without it\n"
		      "zram0: backing_dev: kernel rejected '/dev/loop0' (EINVAL)\n"
		      "zram0: setting it up with the secondary algorithms failed; setting it up "
		      "again as it was (without them)\n"
		      "zram0: backing_dev: kernel rejected '/dev/loop0' (EINVAL)\n"
		      "zram0: setting it up again as it was failed; setting it up without its "
		      "backing device /dev/loop0 (the swapoff read every page back from it: none "
		      "is lost)\n");
	fflush(outf);
	assert_non_null(strstr(out, "zram0: hold /dev/loop0 open until backing_dev names it "
				    "again (a loop device set to autoclear would go with the "
				    "reset)\n"));
	assert_non_null(strstr(out, "zram0: set up without its backing device /dev/loop0: in use "
				    "as swap again, nothing is written back until it has one "
				    "again\n"));
	assert_false(reset_while_on);
}

/* The same through a temporary device: zram0 ends swap, the temporary one goes. */
static void test_via_temp_backing_gone(void **state)
{
	(void)state;
	with_backing("0\n");
	fake_dev(1, false);
	job.plan.kind = ADOPT_VIA_TEMP;
	fail_attr = "zram0/backing_dev";
	fail_errno = EINVAL;
	fail_times = 100;
	assert_int_equal(adopt_execute(&job), -EINVAL);
	assert_true(swap_on_state[0]);
	assert_false(swap_on_state[1]);
	assert_string_equal(fr_read("sys/block/zram0/disksize"), "1073741824\n");
	assert_non_null(strstr(calls, "swapon /dev/zram0 0x8064\n"
				      "swapoff /dev/zram1\n"
				      "sys/class/zram-control/hot_remove=1\n"));
	assert_non_null(strstr(logs, "setting it up without its backing device /dev/loop0"));
	assert_false(reset_while_on);
}

/* Nothing sets zram0 up again: off swap, said with the commands that finish the job. */
static void test_direct_nothing_works(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	fail_attr = "zram0/disksize";
	fail_errno = ENOMEM;
	fail_times = 100;
	assert_int_equal(adopt_execute(&job), -ENOMEM);
	assert_false(swap_on_state[0]);
	assert_string_equal(
		logs, "zram0: disksize: writing '1073741824' failed: Cannot allocate memory\n"
		      "zram0: setting it up with the secondary algorithms failed; setting it up "
		      "again as it was (without them)\n"
		      "zram0: disksize: writing '1073741824' failed: Cannot allocate memory\n"
		      "zram0: is not in use as swap now and not set up; its pages were read back "
		      "into memory (none is lost); to set it up and swap it on: echo 1 > "
		      "/sys/block/zram0/reset; echo lzo-rle > /sys/block/zram0/comp_algorithm; "
		      "echo 1073741824 > /sys/block/zram0/disksize; mkswap -U "
		      "00010203-0405-0607-0809-0a0b0c0d0e0f -L mylabel /dev/zram0; swapon -p 100 "
		      "/dev/zram0\n");
}

/* swapon refused every time: set up, not swap, and the line says which. */
static void test_direct_swapon_refused(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	swapon_errno = EPERM;
	assert_int_equal(adopt_execute(&job), -EPERM);
	assert_false(swap_on_state[0]);
	assert_string_equal(fr_read("sys/block/zram0/initstate"), "1\n");
	assert_non_null(strstr(logs, "zram0: is not in use as swap now (set up, not swapped on); "
				     "its pages were read back into memory (none is lost); to set "
				     "it up and swap it on: echo 1 > /sys/block/zram0/reset;"));
}

/* Through a temporary device: its pages stay there, and it stays swap. */
static void test_via_temp_nothing_works(void **state)
{
	(void)state;
	fake_dev(1, false);
	job.plan.kind = ADOPT_VIA_TEMP;
	job.swap.prio = -2;
	fail_attr = "zram0/disksize";
	fail_errno = ENOMEM;
	fail_times = 100;
	assert_int_equal(adopt_execute(&job), -ENOMEM);
	assert_false(swap_on_state[0]);
	assert_true(swap_on_state[1]);
	assert_null(strstr(calls, "hot_remove"));
	assert_non_null(strstr(
		logs, "zram0: is not in use as swap now and not set up; to set it up and swap it "
		      "on: echo 1 > /sys/block/zram0/reset; echo lzo-rle > "
		      "/sys/block/zram0/comp_algorithm; echo 1073741824 > "
		      "/sys/block/zram0/disksize; mkswap -U 00010203-0405-0607-0809-0a0b0c0d0e0f "
		      "-L mylabel /dev/zram0; swapon /dev/zram0\n"
		      "zram0: not in use as swap now; its pages stay on zram1, which stays in use "
		      "as swap; later: swapoff /dev/zram1; echo 1 > "
		      "/sys/class/zram-control/hot_remove\n"));
	assert_false(reset_while_on);
}

/* The temporary device cannot be swapped on: never swap, so no swapoff of it, removed. */
static void test_via_temp_temp_swapon_fails(void **state)
{
	(void)state;
	fake_dev(1, false);
	job.plan.kind = ADOPT_VIA_TEMP;
	swapon_errno = EPERM;
	assert_int_equal(adopt_execute(&job), -EPERM);
	assert_string_equal(calls, "sys/block/zram1/comp_algorithm=lzo-rle\n"
				   "sys/block/zram1/disksize=1073741824\n"
				   "swapon /dev/zram1 0x8064\n"
				   "sys/class/zram-control/hot_remove=1\n");
	assert_true(swap_on_state[0]);
	assert_string_equal(logs, "zram1: swapon /dev/zram1: Operation not permitted\n");
	fflush(outf);
	assert_non_null(strstr(out, "zram0: not changed; the temporary device zram1 goes "
				    "again\n"));
}

/* The old device's swapoff fails, and so does the temporary one's: both stay swap. */
static void test_via_temp_both_swapoffs_fail(void **state)
{
	(void)state;
	fake_dev(1, false);
	job.plan.kind = ADOPT_VIA_TEMP;
	swapoff_errno = ENOMEM;
	assert_int_equal(adopt_execute(&job), -ENOMEM);
	assert_true(swap_on_state[0]);
	assert_true(swap_on_state[1]);
	assert_null(strstr(calls, "hot_remove"));
	assert_string_equal(
		logs, "zram0: swapoff /dev/zram0: Cannot allocate memory; it stays in use as swap\n"
		      "zram1: swapoff /dev/zram1: Cannot allocate memory; it stays in use as swap\n"
		      "zram0: in use as swap, as it was, not changed; its pages stay on zram1, "
		      "which stays in use as swap; later: swapoff /dev/zram1; echo 1 > "
		      "/sys/class/zram-control/hot_remove\n");
}

/* An EINVAL before disksize is the kernel refusing the value, not a reset device. */
static void test_einval_before_disksize(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	fail_attr = "/recomp_algorithm";
	fail_errno = EINVAL;
	fail_times = 1;
	assert_int_equal(adopt_execute(&job), -EINVAL);
	assert_true(swap_on_state[0]);
	assert_string_equal(logs, "zram0: recomp_algorithm: kernel rejected 'algo=zstd "
				  "priority=1' (EINVAL)\n"
				  "zram0: setting it up with the secondary algorithms failed; "
				  "setting it up again as it was (without them)\n");
	fflush(outf);
	assert_non_null(strstr(out, "zram0: in use as swap again, as it was: without the "
				    "configured secondary algorithms\n"));
}

/* compressed_writeback (7.0+) as it was, before backing_dev; --dry-run shows it too. */
static void test_compressed_writeback_restored(void **state)
{
	(void)state;
	with_backing("1\n");
	job.plan.kind = ADOPT_DIRECT;
	fr_write("dev/loop0", "");
	assert_int_equal(adopt_execute(&job), 0);
	assert_non_null(strstr(calls, "sys/block/zram0/algorithm_params=priority=1 level=9\n"
				      "sys/block/zram0/compressed_writeback=1\n"
				      "sys/block/zram0/backing_dev=/dev/loop0\n"
				      "sys/block/zram0/disksize=1073741824\n"));
	assert_string_equal(fr_read("sys/block/zram0/compressed_writeback"), "1\n");
	assert_string_equal(fr_read("sys/block/zram0/backing_dev"), "/dev/loop0\n");
	assert_true(swap_on_state[0]);
	/* dev/loop0 of the fake root is no block device: not held, and said */
	assert_string_equal(logs, "zram0: cannot hold its backing device /dev/loop0 open: Block "
				  "device required; if it goes with the reset, the device is set "
				  "up without it\n");
}

/* Off before, compressed-writeback = yes configured: on after; shown under --dry-run. */
static void test_compressed_writeback_configured_dry_run(void **state)
{
	(void)state;
	with_backing("0\n");
	job.cfg.compressed_writeback = true;
	job.plan.kind = ADOPT_DIRECT;
	job.dry_run = true;
	assert_int_equal(adopt_execute(&job), 0);
	assert_string_equal(calls, "");
	fflush(outf);
	assert_non_null(strstr(out, "zram0: would write 'priority=1 level=9' to algorithm_params\n"
				    "zram0: would write '1' to compressed_writeback\n"
				    "zram0: would write '/dev/loop0' to backing_dev\n"));
	assert_string_equal(logs, "");
}

/* Only the kernel's path of a loop or device-mapper device is held; no other path. */
static void test_hold_paths(void **state)
{
	static const struct {
		const char *path;
		bool held;
	} c[] = {
		{ "/dev/loop0", true },
		{ "/dev/loop12", true },
		{ "/dev/dm-3", true },
		{ "/dev/mapper/zram-recompd-zram0", true },
		{ "/dev/sdb1", false },
		{ "/dev/loop", false },
		{ "/dev/loop1x", false },
		{ "/dev/dm-", false },
		{ "/dev/mapper/../sda", false },
		{ "/dev/mapper/.x", false },
		{ "/dev/mapper/", false },
		{ "/srv/swap.img", false },
	};

	(void)state;
	with_backing("0\n");
	job.plan.kind = ADOPT_DIRECT;
	job.dry_run = true;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		rewind(outf);
		memset(out, 0, sizeof(out));
		strcpy(job.backing_dev, c[i].path);
		(void)adopt_execute(&job); /* some are no path backing_dev takes: EINVAL */
		fflush(outf);
		if (!!strstr(out, ": would hold ") != c[i].held)
			fail_msg("%s: %s", c[i].path, out);
	}
}

/* A dictionary at priority 1, recorded; the setup with it fails: the record goes. */
static void test_dict_record_follows_fallback(void **state)
{
	char base[] = "/dev/shm/zr-test-adopt.XXXXXX", dir[256], path[320], cmd[300];
	uint8_t b[4096] = { 0x37, 0xa4, 0x30, 0xec, 7 };
	int fd;

	(void)state;
	if (!mkdtemp(base)) {
		skip();
		return;
	}
	snprintf(dir, sizeof(dir), "%s/dict", base);
	assert_int_equal(mkdir(dir, 0700), 0);
	setenv("ZRAM_RECOMPD_DICT_DIR", dir, 1);
	setenv("ZRAM_RECOMPD_CREDENTIALS_ROOT", base, 1);
	unsetenv("CREDENTIALS_DIRECTORY");
	snprintf(path, sizeof(path), "%s/zram0.zdict", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_int_equal(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	close(fd);
	job.cfg.dict_use = DICT_USE_PRIOS;
	job.cfg.dict_prios = 1u << 1;
	job.plan.kind = ADOPT_DIRECT;
	fail_attr = "/disksize";
	fail_errno = EIO;
	fail_times = 1;
	assert_int_equal(adopt_execute(&job), -EIO);
	assert_true(swap_on_state[0]);
	/* the first setup gave the kernel the dictionary, and recorded it */
	assert_non_null(strstr(calls, " dict="));
	assert_non_null(strstr(logs, "zram0: zstd dictionary "));
	/* the device runs without secondaries now: no record says otherwise */
	snprintf(path, sizeof(path), "%s/zram0.zdict.applied", dir);
	assert_int_equal(access(path, F_OK), -1);
	unsetenv("ZRAM_RECOMPD_DICT_DIR");
	unsetenv("ZRAM_RECOMPD_CREDENTIALS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

/* zstd-dictionary = no now: the device runs none after its reset, its old record goes. */
static void test_dict_record_dict_no(void **state)
{
	char base[] = "/dev/shm/zr-test-adopt.XXXXXX", dir[256], path[320], cmd[300];

	(void)state;
	if (!mkdtemp(base)) {
		skip();
		return;
	}
	snprintf(dir, sizeof(dir), "%s/dict", base);
	assert_int_equal(mkdir(dir, 0700), 0);
	setenv("ZRAM_RECOMPD_DICT_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/zram0.zdict.applied", dir);
	{
		FILE *f = fopen(path, "we");

		assert_non_null(f);
		fputs("applied=1 file=/run/zram-recompd/dict/zram0.zdict bytes=4096 id=7 source=run\n",
		      f);
		fclose(f);
	}
	job.cfg.dict_use = DICT_USE_NO;
	job.plan.kind = ADOPT_DIRECT;
	assert_int_equal(adopt_execute(&job), 0);
	assert_true(swap_on_state[0]);
	assert_int_equal(access(path, F_OK), -1);
	unsetenv("ZRAM_RECOMPD_DICT_DIR");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

/* SIGTERM during the swapoff: held back, the device swap again, then said. */
static void test_sigterm_during_swapoff(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	raise_at_swapoff = SIGTERM;
	assert_int_equal(adopt_execute(&job), 0);
	assert_int_equal(job.signal, SIGTERM);
	assert_true(swap_on_state[0]);
	assert_string_equal(fr_read("sys/block/zram0/recomp_algorithm"),
			    "algo=zstd priority=1\nalgo=deflate priority=2\n");
	assert_string_equal(logs, "zram0: SIGTERM arrived during adopt; held back until the "
				  "state above (exit status 143)\n");
}

/* SIGHUP (a dropped SSH session) during the reset's retries, through a temporary device. */
static void test_sighup_via_temp(void **state)
{
	(void)state;
	fake_dev(1, false);
	job.plan.kind = ADOPT_VIA_TEMP;
	raise_at_swapoff = SIGHUP; /* the temporary device's swapon came before */
	fail_attr = "zram0/reset";
	fail_errno = EBUSY;
	fail_times = 2;
	assert_int_equal(adopt_execute(&job), 0);
	assert_int_equal(job.signal, SIGHUP);
	assert_true(swap_on_state[0]);
	assert_false(swap_on_state[1]);
	assert_non_null(strstr(calls, "sys/class/zram-control/hot_remove=1\n"));
	assert_string_equal(logs, "zram0: SIGHUP arrived during adopt; held back until the "
				  "state above (exit status 129)\n");
}

/* Its output to a pipe nobody reads any more (a dropped SSH session): adopt goes on. */
static void test_output_gone(void **state)
{
	int p[2];
	FILE *gone;

	(void)state;
	signal(SIGPIPE, SIG_DFL); /* as a shell starts it (earlier runs here ignored it) */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	gone = fdopen(p[1], "w");
	assert_non_null(gone);
	job.out = gone;
	job.plan.kind = ADOPT_VIA_TEMP;
	fake_dev(1, false);
	assert_int_equal(adopt_execute(&job), 0); /* no SIGPIPE ended it */
	fclose(gone);
	job.out = outf;
	assert_true(swap_on_state[0]);
	assert_false(swap_on_state[1]);
	assert_string_equal(fr_read("sys/block/zram0/recomp_algorithm"),
			    "algo=zstd priority=1\nalgo=deflate priority=2\n");
}

/* A stop signal already there before the first swapoff: nothing changed. */
static void test_signal_before_swapoff(void **state)
{
	sigset_t set, old;

	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	raise(SIGINT);
	assert_int_equal(adopt_execute(&job), -EINTR);
	sigprocmask(SIG_SETMASK, &old, NULL);
	assert_int_equal(job.signal, SIGINT);
	assert_string_equal(calls, "");
	assert_true(swap_on_state[0]);
	assert_string_equal(logs, "zram0: SIGINT arrived before the swapoff: stopped, nothing "
				  "changed\n"
				  "zram0: SIGINT arrived during adopt; held back until the state "
				  "above (exit status 130)\n");
}

/*
 * The invariant: each call of a whole run (every write and swap call; with a backing device
 * and compressed_writeback, both plans) fails in turn, once, with errno e. Afterwards zram0
 * is swap, or the temporary device holding its pages is and says so; no device in use as
 * swap was reset.
 */
static void invariant(enum adopt_kind kind, int e)
{
	unsigned total;

	with_backing("1\n");
	fake_dev(1, false);
	job.plan.kind = kind;
	assert_int_equal(adopt_execute(&job), 0);
	total = ncalls;
	assert_true(total >= 10);
	for (unsigned n = 1; n <= total; n++) {
		teardown(NULL);
		assert_int_equal(setup(NULL), 0);
		with_backing("1\n");
		fake_dev(1, false);
		job.plan.kind = kind;
		fail_nth = n;
		fail_nth_errno = e;
		(void)adopt_execute(&job);
		if (!swap_on_state[0]) {
			print_message("call %u of %u failing (errno %d): %s", n, total, e, calls);
			assert_true(kind == ADOPT_VIA_TEMP && swap_on_state[1]);
			assert_non_null(strstr(logs, "its pages stay on zram1, which stays in use "
						     "as swap"));
		}
		if (swap_on_state[1])
			assert_non_null(strstr(logs, "its pages stay on zram1"));
		assert_false(reset_while_on);
	}
}

static void test_invariant_direct(void **state)
{
	(void)state;
	invariant(ADOPT_DIRECT, EIO);
	invariant(ADOPT_DIRECT, EINVAL);
	invariant(ADOPT_DIRECT, EBUSY);
}

static void test_invariant_via_temp(void **state)
{
	(void)state;
	invariant(ADOPT_VIA_TEMP, EIO);
	invariant(ADOPT_VIA_TEMP, EINVAL);
	invariant(ADOPT_VIA_TEMP, EBUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_direct_backing_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_via_temp_backing_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_nothing_works, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_swapon_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_via_temp_nothing_works, setup, teardown),
		cmocka_unit_test_setup_teardown(test_via_temp_temp_swapon_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_via_temp_both_swapoffs_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_einval_before_disksize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compressed_writeback_restored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_compressed_writeback_configured_dry_run, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hold_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dict_record_follows_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dict_record_dict_no, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigterm_during_swapoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sighup_via_temp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_before_swapoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_output_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invariant_direct, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invariant_via_temp, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
