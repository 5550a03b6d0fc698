// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * adopt: /proc/swaps parsing, the plan from the figures (margins, boundaries, forced plan B,
 * no hot_add), the swap header, the adopt allowlist, and the steps of both plans on a fake
 * root (tests/unit/adopt_fake.h: swapon, swapoff and the writes wrapped, see
 * test_adopt.ldflags and the Makefile's unit-test rule for the --wrap convention). The
 * failures and interruptions of the steps: test_adopt_fail.c.
 */
#include "adopt_fake.h"

#define MiB (1024ull * 1024)

/* ---- /proc/swaps ---- */

static const char swaps_text[] =
	"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	"/dev/zram0                              partition\t4194300\t\t102400\t\t100\n"
	"/swapfile                               file\t\t2097148\t\t1024\t\t-2\n"
	"/dev/zram12                             partition\t1048572\t\t0\t\t5\n";

static void test_parse_swaps(void **state)
{
	struct swap_entry e[4];

	(void)state;
	assert_int_equal(adopt_parse_swaps(swaps_text, sizeof(swaps_text) - 1, e, 4), 3);
	assert_string_equal(e[0].path, "/dev/zram0");
	assert_true(e[0].is_zram);
	assert_int_equal(e[0].zram_id, 0);
	assert_int_equal(e[0].size, 4194300ull * 1024);
	assert_int_equal(e[0].used, 102400ull * 1024);
	assert_int_equal(e[0].prio, 100);
	assert_false(e[1].is_zram);
	assert_int_equal(e[1].prio, -2);
	assert_true(e[2].is_zram);
	assert_int_equal(e[2].zram_id, 12);
	/* the header alone: no swap areas */
	assert_int_equal(adopt_parse_swaps(swaps_text, 39, e, 4), 0);
	assert_int_equal(adopt_parse_swaps(swaps_text, 44, e, 4), -EINVAL); /* "/dev/" */
	/* at most max lines */
	assert_int_equal(adopt_parse_swaps(swaps_text, sizeof(swaps_text) - 1, e, 1), 1);
}

static void test_parse_swaps_bad(void **state)
{
	struct swap_entry e[4];
	static const char no_header[] = "/dev/zram0 partition 4 0 1\n";
	static const char short_line[] =
		"Filename Type Size Used Priority\n/dev/zram0 partition 4 0\n";
	static const char bad_num[] =
		"Filename Type Size Used Priority\n/dev/zram0 partition 4 x 1\n";
	static const char zramx[] =
		"Filename Type Size Used Priority\n/dev/zram0x partition 4 0 1\n";

	(void)state;
	assert_int_equal(adopt_parse_swaps(no_header, sizeof(no_header) - 1, e, 4), -EINVAL);
	assert_int_equal(adopt_parse_swaps("", 0, e, 4), -EINVAL);
	assert_int_equal(adopt_parse_swaps(short_line, sizeof(short_line) - 1, e, 4), -EINVAL);
	assert_int_equal(adopt_parse_swaps(bad_num, sizeof(bad_num) - 1, e, 4), -EINVAL);
	assert_int_equal(adopt_parse_swaps(zramx, sizeof(zramx) - 1, e, 4), 1);
	assert_false(e[0].is_zram); /* not a zram name: other swap */
}

/* ---- the plan ---- */

static void test_margin(void **state)
{
	(void)state;
	assert_int_equal(adopt_margin(0), 64 * MiB);
	assert_int_equal(adopt_margin(400 * MiB), 164 * MiB);
	assert_int_equal(adopt_margin(UINT64_MAX), UINT64_MAX / 4 + 64 * MiB);
}

static void test_decide_saturates(void **state)
{
	struct adopt_figures f = {
		.swap_used = UINT64_MAX,
		.pool = UINT64_MAX - 1,
		.mem_available = UINT64_MAX,
		.other_swap_free = UINT64_MAX,
		.can_hot_add = true,
	};
	struct adopt_plan p;

	(void)state;
	/* needed + margin saturates at UINT64_MAX, so is not below it: safe, not wrapped */
	adopt_decide(&f, false, &p);
	assert_int_equal(p.direct.available, UINT64_MAX);
	assert_true(p.direct.ok);
	f.mem_available = UINT64_MAX - 1;
	f.other_swap_free = 0;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_REFUSE);
}

static void test_decide_direct(void **state)
{
	struct adopt_figures f = {
		.swap_used = 400 * MiB,
		.pool = 120 * MiB,
		.mem_available = 564 * MiB,
		.can_hot_add = true,
	};
	struct adopt_plan p;

	(void)state;
	/* exactly needed + margin (400 + 164) is enough */
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_DIRECT);
	assert_int_equal(p.direct.needed, 400 * MiB);
	assert_int_equal(p.direct.margin, 164 * MiB);
	assert_int_equal(p.direct.available, 564 * MiB);
	assert_true(p.direct.ok);
	assert_int_equal(p.via_temp.needed, 120 * MiB);
	assert_int_equal(p.via_temp.margin, 94 * MiB);
	assert_true(p.via_temp.ok);
	/* --via-temp takes plan B although A is safe */
	adopt_decide(&f, true, &p);
	assert_int_equal(p.kind, ADOPT_VIA_TEMP);
}

static void test_decide_other_swap(void **state)
{
	/* 1 byte short in memory; other (non-zram) swap makes up for it */
	struct adopt_figures f = {
		.swap_used = 400 * MiB,
		.pool = 500 * MiB,
		.mem_available = 564 * MiB - 1,
		.can_hot_add = true,
	};
	struct adopt_plan p;

	(void)state;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_REFUSE);
	assert_false(p.direct.ok);
	assert_false(p.via_temp.ok);
	f.other_swap_free = 1;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_DIRECT);
	assert_int_equal(p.direct.available, 564 * MiB);
	/* other swap does not count for plan B (the pages must fit compressed in memory) */
	assert_int_equal(p.via_temp.available, 564 * MiB - 1);
}

static void test_decide_via_temp(void **state)
{
	/* 1 GiB swapped, 300 MiB pool, 500 MiB available: A needs 1024 + 320, B 300 + 139 */
	struct adopt_figures f = {
		.swap_used = 1024 * MiB,
		.pool = 300 * MiB,
		.mem_available = 500 * MiB,
		.can_hot_add = true,
	};
	struct adopt_plan p;

	(void)state;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_VIA_TEMP);
	assert_false(p.direct.ok);
	assert_int_equal(p.via_temp.needed, 300 * MiB);
	assert_int_equal(p.via_temp.margin, 75 * MiB + 64 * MiB);
	/* what the backing device holds comes back into memory: counted in plan B */
	f.written_back = 100 * MiB;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.via_temp.needed, 400 * MiB);
	assert_int_equal(p.kind, ADOPT_REFUSE); /* 400 + 164 > 500 */
	/* no hot_add: no plan B */
	f.written_back = 0;
	f.can_hot_add = false;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_REFUSE);
	adopt_decide(&f, true, &p);
	assert_int_equal(p.kind, ADOPT_REFUSE);
}

/*
 * A memory cgroup that cannot take back its swapped pages under its memory.max: plan A
 * would charge them to it (reclaim, then its OOM killer) whatever MemAvailable says, so
 * plan B, whose temporary device the cgroup's reclaim swaps them out to again.
 */
static void test_decide_memcg(void **state)
{
	struct adopt_figures f = {
		.swap_used = 400 * MiB,
		.pool = 120 * MiB,
		.mem_available = 8192 * MiB,
		.can_hot_add = true,
		.memcg_name = "system.slice/db.service",
		.memcg_swap = 200 * MiB,
		.memcg_room = 266 * MiB, /* exactly 200 + 50 + 16 */
	};
	struct adopt_plan p;

	(void)state;
	assert_int_equal(adopt_memcg_margin(200 * MiB), 66 * MiB);
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_DIRECT);
	assert_true(p.memcg.ok);
	assert_int_equal(p.memcg.needed, 200 * MiB);
	assert_int_equal(p.memcg.margin, 66 * MiB);
	assert_int_equal(p.memcg.available, 266 * MiB);
	f.memcg_room--;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_VIA_TEMP);
	assert_false(p.memcg.ok);
	assert_true(p.direct.ok); /* memory alone would do */
	/* without plan B: refused, not plan A */
	f.can_hot_add = false;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_REFUSE);
	/* cgroups that could not be read: no plan A either */
	f.can_hot_add = true;
	f.memcg_name[0] = '\0';
	f.memcg_unknown = true;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_VIA_TEMP);
	/* no limited cgroup with pages in swap: the cgroups do not count */
	f.memcg_unknown = false;
	adopt_decide(&f, false, &p);
	assert_int_equal(p.kind, ADOPT_DIRECT);
	assert_true(p.memcg.ok);
	/* saturating: a room of UINT64_MAX is enough for UINT64_MAX - 1 */
	strcpy(f.memcg_name, "a");
	f.memcg_swap = UINT64_MAX - 1;
	f.memcg_room = UINT64_MAX;
	adopt_decide(&f, false, &p);
	assert_true(p.memcg.ok);
}

static void test_print_figures_memcg(void **state)
{
	struct adopt_figures f = {
		.swap_used = 400 * MiB,
		.pool = 120 * MiB,
		.mem_available = 8192 * MiB,
		.can_hot_add = true,
		.memcg_name = "system.slice/db.service",
		.memcg_swap = 200 * MiB,
		.memcg_room = 100 * MiB,
	};
	struct adopt_plan p;
	char buf[2048] = "";
	FILE *o = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	adopt_decide(&f, false, &p);
	adopt_print_figures(o, "zram0", &f, &p);
	f.memcg_name[0] = '\0';
	f.memcg_unknown = true;
	adopt_decide(&f, false, &p);
	adopt_print_figures(o, "zram0", &f, &p);
	fclose(o);
	assert_string_equal(
		buf,
		"zram0: stored: 400.0 MiB in swap, 120.0 MiB of memory compressed (mm_stat "
		"mem_used_total)\n"
		"zram0: memory cgroup system.slice/db.service (the least room; swapoff charges it): "
		"needed 200.0 MiB + margin 66.0 MiB, available 100.0 MiB (memory.max - "
		"memory.current; needed: its memory.swap.current): not safe\n"
		"zram0: direct (swapoff first, pages uncompressed): needed 400.0 MiB + margin 164.0 "
		"MiB, available 8.0 GiB (MemAvailable 8.0 GiB + other swap free 0 B): safe\n"
		"zram0: through a temporary zram device (pages compressed): needed 120.0 MiB + "
		"margin 94.0 MiB, available 8.0 GiB (MemAvailable): safe\n"
		"zram0: stored: 400.0 MiB in swap, 120.0 MiB of memory compressed (mm_stat "
		"mem_used_total)\n"
		"zram0: memory cgroups: not read: the direct plan is not taken\n"
		"zram0: direct (swapoff first, pages uncompressed): needed 400.0 MiB + margin 164.0 "
		"MiB, available 8.0 GiB (MemAvailable 8.0 GiB + other swap free 0 B): safe\n"
		"zram0: through a temporary zram device (pages compressed): needed 120.0 MiB + "
		"margin 94.0 MiB, available 8.0 GiB (MemAvailable): safe\n");
}

static void test_print_figures(void **state)
{
	struct adopt_figures f = {
		.swap_used = 1024 * MiB,
		.pool = 300 * MiB,
		.mem_available = 500 * MiB,
		.other_swap_free = 0,
		.can_hot_add = true,
	};
	struct adopt_plan p;
	char buf[2048] = "";
	FILE *o = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	adopt_decide(&f, false, &p);
	adopt_print_figures(o, "zram3", &f, &p);
	fclose(o);
	assert_string_equal(
		buf,
		"zram3: stored: 1.0 GiB in swap, 300.0 MiB of memory compressed (mm_stat "
		"mem_used_total)\n"
		"zram3: direct (swapoff first, pages uncompressed): needed 1.0 GiB + margin 320.0 "
		"MiB, available 500.0 MiB (MemAvailable 500.0 MiB + other swap free 0 B): not "
		"safe\n"
		"zram3: through a temporary zram device (pages compressed): needed 300.0 MiB + "
		"margin 139.0 MiB, available 500.0 MiB (MemAvailable): safe\n");
}

/* ---- the swap header ---- */

static void test_header(void **state)
{
	static uint8_t page[16384];
	uint8_t uuid[16], label[16] = "swaplabel", u2[16], l2[16];
	char text[37];

	(void)state;
	for (int i = 0; i < 16; i++)
		uuid[i] = (uint8_t)(0xf0 + i);
	memset(page, 0xaa, sizeof(page));
	assert_int_equal(adopt_build_swap_header(page, 4096, 1073741824, uuid, label), 0);
	for (int i = 0; i < 1024; i++)
		assert_int_equal(page[i], 0);	      /* bootbits zeroed */
	assert_int_equal(u32_at(page, 1024), 1);      /* version */
	assert_int_equal(u32_at(page, 1028), 262143); /* last_page */
	assert_int_equal(u32_at(page, 1032), 0);      /* nr_badpages */
	assert_memory_equal(page + 1036, uuid, 16);
	assert_memory_equal(page + 1052, label, 16);
	assert_memory_equal(page + 4096 - 10, "SWAPSPACE2", 10);
	assert_int_equal(page[4096 - 11], 0);
	assert_int_equal(page[4096], 0xaa); /* one page only */
	assert_int_equal(adopt_parse_swap_header(page, 4096, u2, l2), 0);
	assert_memory_equal(u2, uuid, 16);
	assert_memory_equal(l2, label, 16);
	/* 16 KiB pages: last_page counts them, the magic ends that page */
	assert_int_equal(adopt_build_swap_header(page, 16384, 1073741824 + 5000, uuid, label), 0);
	assert_int_equal(u32_at(page, 1028), 65535);
	assert_memory_equal(page + 16384 - 10, "SWAPSPACE2", 10);
	/* too small, bad page size, more pages than a u32 */
	assert_int_equal(adopt_build_swap_header(page, 4096, 8191, uuid, label), -EINVAL);
	assert_int_equal(adopt_build_swap_header(page, 4097, 1 << 20, uuid, label), -EINVAL);
	assert_int_equal(adopt_build_swap_header(page, 2048, 1 << 20, uuid, label), -EINVAL);
	assert_int_equal(
		adopt_build_swap_header(page, 4096, (1ull << 32) * 4096 + 4096, uuid, label),
		-EINVAL);
	assert_int_equal(adopt_build_swap_header(page, 4096, (1ull << 32) * 4096, uuid, label), 0);
	assert_int_equal(u32_at(page, 1028), UINT32_MAX);
	/* not a header: wrong magic, version 2 */
	assert_int_equal(adopt_build_swap_header(page, 4096, 1 << 20, uuid, label), 0);
	page[1024] = 2;
	assert_int_equal(adopt_parse_swap_header(page, 4096, u2, l2), -EINVAL);
	page[1024] = 1;
	page[4095] = '1';
	assert_int_equal(adopt_parse_swap_header(page, 4096, u2, l2), -EINVAL);
	/* UUID version 4 bits and text */
	adopt_uuid_v4(uuid);
	assert_int_equal(uuid[6] >> 4, 4);
	assert_int_equal(uuid[8] >> 6, 2);
	adopt_format_uuid(uuid, text);
	assert_string_equal(text, "f0f1f2f3-f4f5-46f7-b8f9-fafbfcfdfeff");
}

static void test_allowlist(void **state)
{
	(void)state;
	assert_false(sysfs_write_allowed("sys/block/zram0/reset"));
	assert_false(sysfs_write_allowed("sys/block/zram0/disksize"));
	assert_false(sysfs_write_allowed("sys/class/zram-control/hot_remove"));
	assert_true(sysfs_adopt_write_allowed("sys/block/zram0/reset"));
	assert_true(sysfs_adopt_write_allowed("sys/block/zram10/comp_algorithm"));
	assert_true(sysfs_adopt_write_allowed("sys/block/zram0/disksize"));
	assert_true(sysfs_adopt_write_allowed("sys/block/zram0/mem_limit"));
	assert_true(sysfs_adopt_write_allowed("sys/class/zram-control/hot_remove"));
	assert_false(sysfs_adopt_write_allowed("sys/class/zram-control/hot_add"));
	assert_false(sysfs_adopt_write_allowed("sys/block/sda/reset"));
	assert_false(sysfs_adopt_write_allowed("sys/block/zram0/../sda/reset"));
	assert_false(sysfs_adopt_write_allowed("sys/block/zram0/mem_used_max"));
	assert_int_equal(sysfs_write(-1, "sys/block/zram0/reset", "1\n"), -EPERM);
	assert_int_equal(__real_sysfs_write_adopt(-1, "sys/block/zram0/idle/../reset", "1\n"),
			 -EPERM);
}

static void test_direct(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	assert_int_equal(adopt_execute(&job), 0);
	assert_string_equal(calls, "swapoff /dev/zram0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/recomp_algorithm=algo=zstd priority=1\n"
				   "sys/block/zram0/recomp_algorithm=algo=deflate priority=2\n"
				   "sys/block/zram0/algorithm_params=priority=1 level=9\n"
				   "sys/block/zram0/disksize=1073741824\n"
				   "swapon /dev/zram0 0x8064\n");
	/* the secondaries and the level, through the daemon's own path (sysfs_write) */
	assert_string_equal(fr_read("sys/block/zram0/recomp_algorithm"),
			    "algo=zstd priority=1\nalgo=deflate priority=2\n");
	assert_string_equal(fr_read("sys/block/zram0/algorithm_params"), "priority=1 level=9\n");
	assert_header("dev/zram0");
}

static void test_direct_negative_prio_mem_limit(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	job.swap.prio = -2;
	job.mem_limit = 536870912;
	assert_int_equal(adopt_execute(&job), 0);
	assert_string_equal(calls, "swapoff /dev/zram0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/recomp_algorithm=algo=zstd priority=1\n"
				   "sys/block/zram0/recomp_algorithm=algo=deflate priority=2\n"
				   "sys/block/zram0/algorithm_params=priority=1 level=9\n"
				   "sys/block/zram0/disksize=1073741824\n"
				   "sys/block/zram0/mem_limit=536870912\n"
				   "swapon /dev/zram0 0\n");
	assert_non_null(strstr(out, "without a priority (it had the automatic -2"));
}

static void test_direct_swapoff_fails(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	swapoff_errno = ENOMEM;
	assert_int_equal(adopt_execute(&job), -ENOMEM);
	assert_string_equal(calls, "swapoff /dev/zram0\n"); /* nothing else touched */
	assert_string_equal(fr_read("sys/block/zram0/initstate"), "1\n");
}

static void test_direct_reset_busy_then_ok(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	fail_attr = "/reset";
	fail_errno = EBUSY;
	fail_times = 2;
	assert_int_equal(adopt_execute(&job), 0);
	assert_string_equal(calls, "swapoff /dev/zram0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/recomp_algorithm=algo=zstd priority=1\n"
				   "sys/block/zram0/recomp_algorithm=algo=deflate priority=2\n"
				   "sys/block/zram0/algorithm_params=priority=1 level=9\n"
				   "sys/block/zram0/disksize=1073741824\n"
				   "swapon /dev/zram0 0x8064\n");
}

static void test_direct_reset_busy_gives_up(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	fail_attr = "/reset";
	fail_errno = EBUSY;
	fail_times = 10;
	/* never reset: its header and setup are intact, so it goes back on as it was */
	assert_int_equal(adopt_execute(&job), -EBUSY);
	assert_string_equal(calls, "swapoff /dev/zram0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/reset=1\n"
				   "swapon /dev/zram0 0x8064\n");
}

static void test_direct_setup_fails_restores(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_DIRECT;
	fail_attr = "/disksize";
	fail_errno = EINVAL;
	fail_times = 1;
	assert_int_equal(adopt_execute(&job), -EINVAL);
	/* set up again as it was: no secondaries this time, swapped on */
	assert_string_equal(calls, "swapoff /dev/zram0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/recomp_algorithm=algo=zstd priority=1\n"
				   "sys/block/zram0/recomp_algorithm=algo=deflate priority=2\n"
				   "sys/block/zram0/algorithm_params=priority=1 level=9\n"
				   "sys/block/zram0/disksize=1073741824\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/disksize=1073741824\n"
				   "swapon /dev/zram0 0x8064\n");
	assert_string_equal(fr_read("sys/block/zram0/recomp_algorithm"), "");
	assert_header("dev/zram0");
}

static void test_via_temp(void **state)
{
	(void)state;
	fake_dev(1, false);
	job.plan.kind = ADOPT_VIA_TEMP;
	assert_int_equal(adopt_execute(&job), 0);
	assert_string_equal(calls, "sys/block/zram1/comp_algorithm=lzo-rle\n"
				   "sys/block/zram1/disksize=1073741824\n"
				   "swapon /dev/zram1 0x8064\n"
				   "swapoff /dev/zram0\n"
				   "sys/block/zram0/reset=1\n"
				   "sys/block/zram0/comp_algorithm=lzo-rle\n"
				   "sys/block/zram0/recomp_algorithm=algo=zstd priority=1\n"
				   "sys/block/zram0/recomp_algorithm=algo=deflate priority=2\n"
				   "sys/block/zram0/algorithm_params=priority=1 level=9\n"
				   "sys/block/zram0/disksize=1073741824\n"
				   "swapon /dev/zram0 0x8064\n"
				   "swapoff /dev/zram1\n"
				   "sys/class/zram-control/hot_remove=1\n");
	/* the temporary device never gets secondaries */
	assert_string_equal(fr_read("sys/block/zram1/recomp_algorithm"), "");
	assert_string_equal(fr_read("sys/block/zram0/recomp_algorithm"),
			    "algo=zstd priority=1\nalgo=deflate priority=2\n");
	assert_header("dev/zram1");
	assert_header("dev/zram0");
	assert_non_null(strstr(out, "zram0: hot-added zram1 as the temporary device\n"));
}

static void test_via_temp_swapoff_fails(void **state)
{
	(void)state;
	fake_dev(1, false);
	job.plan.kind = ADOPT_VIA_TEMP;
	swapoff_errno = EINTR;
	swapoff_fail_times = 1; /* the old device's; the temporary one's goes through */
	assert_int_equal(adopt_execute(&job), -EINTR);
	/* the old device is untouched; the temporary one goes again */
	assert_string_equal(calls, "sys/block/zram1/comp_algorithm=lzo-rle\n"
				   "sys/block/zram1/disksize=1073741824\n"
				   "swapon /dev/zram1 0x8064\n"
				   "swapoff /dev/zram0\n"
				   "swapoff /dev/zram1\n"
				   "sys/class/zram-control/hot_remove=1\n");
	assert_string_equal(fr_read("sys/block/zram0/initstate"), "1\n");
}

static void test_dry_run_writes_nothing(void **state)
{
	(void)state;
	job.plan.kind = ADOPT_VIA_TEMP;
	job.dry_run = true;
	assert_int_equal(adopt_execute(&job), 0);
	assert_string_equal(calls, "");
	assert_string_equal(fr_read("dev/zram0"), "");
	assert_string_equal(fr_read("sys/block/zram0/recomp_algorithm"), "");
	fflush(outf);
	assert_non_null(strstr(out, "zram0: would write 'algo=deflate priority=2' to "
				    "recomp_algorithm\n"));
	assert_non_null(strstr(out, "zram(new): would write its id to "
				    "sys/class/zram-control/hot_remove\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_swaps),
		cmocka_unit_test(test_parse_swaps_bad),
		cmocka_unit_test(test_margin),
		cmocka_unit_test(test_decide_saturates),
		cmocka_unit_test(test_decide_direct),
		cmocka_unit_test(test_decide_other_swap),
		cmocka_unit_test(test_decide_via_temp),
		cmocka_unit_test(test_decide_memcg),
		cmocka_unit_test(test_print_figures),
		cmocka_unit_test(test_print_figures_memcg),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_allowlist),
		cmocka_unit_test_setup_teardown(test_direct, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_negative_prio_mem_limit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_direct_swapoff_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_reset_busy_then_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_reset_busy_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_setup_fails_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_via_temp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_via_temp_swapoff_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_writes_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
