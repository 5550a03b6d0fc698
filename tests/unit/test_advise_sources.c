// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/advise/source_file.c and source_device.c: what a page source fills in (the totals
 * the sample stands for, what was read and compressed), reservoir and slot sampling with a
 * seeded generator, the device's configuration read through the zram layer, and the -errno
 * each failure leaves for advise_device().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "advise_internal.h"
#include "fakeroot.h"
#include "advise_pages.h" /* after fakeroot.h */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static const struct adv_spec specs[] = {
	{COMP_LZO_RLE, COMP_LEVEL_DEFAULT, false},
	{COMP_ZSTD, COMP_LEVEL_DEFAULT, false},
};

static int setup(void **state)
{
	(void)state;
	if (fr_setup() < 0)
		return -1;
	make_mix();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fr_teardown();
	return 0;
}

static void engine(struct adv_engine *e)
{
	assert_int_equal(adv_engine_init(e, zs_model_default(4096), specs, 2, 1), 0);
}

/* adv_read_file() on fr_dir/rel with --samples (0: every page) and --seed. */
static int read_file(const char *rel, uint64_t samples, uint64_t seed, struct adv_engine *e,
		     struct adv_source *src)
{
	struct adv_opts o = {.input = tpath(rel), .samples = samples, .samples_set = samples > 0};
	struct adv_rng rng = {seed};

	memset(src, 0, sizeof(*src));
	engine(e);
	return adv_read_file(&o, &rng, e, src);
}

static void test_file_every_page(void **state)
{
	struct adv_engine e;
	struct adv_source src;

	(void)state;
	write_bytes("mix.pages", mix, sizeof(mix));
	assert_int_equal(read_file("mix.pages", 0, 1, &e, &src), 0);
	assert_false(src.device);
	assert_int_equal(src.pages, MIX_PAGES);
	assert_int_equal(src.same_pages, MIX_PAGES / 5);
	assert_int_equal(src.read, MIX_PAGES);
	assert_int_equal(src.represented, MIX_PAGES - MIX_PAGES / 5);
	assert_int_equal(src.sampled, e.npages);
	assert_int_equal(e.npages, src.represented);
	assert_false(src.sampling);
	assert_int_equal(src.trailing, 0);
	assert_non_null(strstr(src.name, "mix.pages"));
	adv_engine_free(&e);
}

/* A zstd stream gives exactly the sizes of the plain file. */
static void test_file_zstd(void **state)
{
	size_t cap = ZSTD_compressBound(sizeof(mix)), n;
	void *z = malloc(cap);
	struct adv_engine a, b;
	struct adv_source sa, sb;

	(void)state;
	assert_non_null(z);
	n = ZSTD_compress(z, cap, mix, sizeof(mix), 1);
	assert_false(ZSTD_isError(n));
	write_bytes("mix.pages", mix, sizeof(mix));
	write_bytes("mix.zst", z, n);
	assert_int_equal(read_file("mix.pages", 0, 1, &a, &sa), 0);
	assert_int_equal(read_file("mix.zst", 0, 1, &b, &sb), 0);
	assert_int_equal(sa.pages, sb.pages);
	assert_int_equal(a.npages, b.npages);
	assert_memory_equal(a.sizes, b.sizes, a.npages * 2 * sizeof(uint16_t));
	adv_engine_free(&a);
	adv_engine_free(&b);
	/* Cut short: an error (exit code 1), not a shorter file. */
	write_bytes("cut.zst", z, n - 10);
	assert_int_equal(read_file("cut.zst", 0, 1, &a, &sa), 1);
	adv_engine_free(&a);
	free(z);
}

/* The reservoir: --samples pages of the non-same ones, the same pages for the same seed. */
static void test_file_reservoir(void **state)
{
	struct adv_engine a, b;
	struct adv_source sa, sb;
	bool differ = false;

	(void)state;
	write_bytes("mix.pages", mix, sizeof(mix));
	assert_int_equal(read_file("mix.pages", 5, 77, &a, &sa), 0);
	assert_int_equal(read_file("mix.pages", 5, 77, &b, &sb), 0);
	assert_int_equal(sa.sampled, 5);
	assert_int_equal(sa.represented, 32);
	assert_int_equal(sa.read, MIX_PAGES);
	assert_true(sa.sampling);
	assert_memory_equal(a.sizes, b.sizes, 5 * 2 * sizeof(uint16_t));
	adv_engine_free(&b);
	/* Another seed picks other pages (for these seeds). */
	for (uint64_t seed = 1; seed < 20 && !differ; seed++) {
		assert_int_equal(read_file("mix.pages", 5, seed, &b, &sb), 0);
		differ = memcmp(a.sizes, b.sizes, 5 * 2 * sizeof(uint16_t)) != 0;
		adv_engine_free(&b);
	}
	assert_true(differ);
	adv_engine_free(&a);
	/* More samples than pages: every page, nothing scaled. */
	assert_int_equal(read_file("mix.pages", 1000, 3, &a, &sa), 0);
	assert_int_equal(sa.sampled, 32);
	assert_false(sa.sampling);
	adv_engine_free(&a);
}

static void test_file_errors(void **state)
{
	static uint8_t buf[2 * 4096 + 7];
	struct adv_engine e;
	struct adv_source src;

	(void)state;
	memcpy(buf, mix, sizeof(buf));
	write_bytes("trunc.pages", buf, sizeof(buf));
	assert_int_equal(read_file("trunc.pages", 0, 1, &e, &src), 0);
	assert_int_equal(src.pages, 2);
	assert_int_equal(src.trailing, 7);
	adv_engine_free(&e);
	write_bytes("empty.pages", "", 0);
	assert_int_equal(read_file("empty.pages", 0, 1, &e, &src), 1);
	adv_engine_free(&e);
	write_bytes("short.pages", buf, 100);
	assert_int_equal(read_file("short.pages", 0, 1, &e, &src), 1);
	adv_engine_free(&e);
	assert_int_equal(read_file("missing.pages", 0, 1, &e, &src), 1);
	adv_engine_free(&e);
}

/* ---------------------------------------------------------------- devices */

static int config(const struct adv_opts *o, struct adv_opts *eff, struct adv_source *src,
		  struct adv_dev_info *di)
{
	int root = fr_open_root(), rc;

	assert_true(root >= 0);
	memset(src, 0, sizeof(*src));
	memset(di, 0, sizeof(*di));
	*eff = *o;
	rc = adv_device_config(o, root, eff, src, di);
	close(root);
	return rc;
}

static void test_device_config(void **state)
{
	struct adv_opts o = {.device = "/dev/zram0", .quiet = true}, eff;
	struct adv_source src;
	struct adv_dev_info di;

	(void)state;
	make_device("lzo [lz4] zstd deflate \n",
		    "#1: lzo lz4 [zstd] deflate \n#3: lzo lz4 zstd [deflate] \n", true);
	fr_write("sys/block/zram0/bd_stat", "3 10 20\n");
	assert_int_equal(config(&o, &eff, &src, &di), 0);
	assert_string_equal(src.name, "zram0");
	assert_true(src.device && src.have_now);
	assert_int_equal(di.id, 0);
	assert_int_equal(di.nslots, 64);
	assert_int_equal(src.pages, MIX_PAGES);
	assert_int_equal(src.same_pages, MIX_PAGES / 5);
	assert_int_equal(src.wb_pages, 3);
	assert_int_equal(di.stored, MIX_PAGES - MIX_PAGES / 5 - 3);
	assert_int_equal(eff.primary.algo, COMP_LZ4);
	/* The device's secondaries, in priority order (a gap closes up). */
	assert_int_equal(eff.nchain, 2);
	assert_int_equal(eff.chain[0].algo, COMP_ZSTD);
	assert_int_equal(eff.chain[1].algo, COMP_DEFLATE);
	assert_string_equal(src.chain_from, "the device's recomp_algorithm");

	/* Given on the command line: the device's are not read. */
	o.primary_set = o.chain_set = true;
	o.primary.algo = COMP_ZSTD;
	fr_write("sys/block/zram0/comp_algorithm", "lzo [842] \n");
	fr_write("sys/block/zram0/recomp_algorithm", "#1: [842] \n");
	assert_int_equal(config(&o, &eff, &src, &di), 0);
	assert_int_equal(eff.primary.algo, COMP_ZSTD);
	assert_null(src.chain_from);
}

/*
 * Pages of the kernel's size (issue 26): a file of 4 KiB corpus pages read as 16 KiB pages
 * is 4 consecutive ones each, in their order; 64 KiB leaves a partial page. A device's page
 * size is its queue/physical_block_size: slots, stored pages and bd_stat follow it.
 */
static void test_page_sizes(void **state)
{
	static const unsigned ps[] = {4096, 16384, 65536};
	/* lzo and lzo-rle are mirrored up to 16 KiB pages only */
	static const struct adv_spec sp[] = {{COMP_LZ4, COMP_LEVEL_DEFAULT, false},
					     {COMP_ZSTD, COMP_LEVEL_DEFAULT, false}};
	static uint8_t out[COMP_DST_SIZE(16384)];
	struct adv_opts o = {.device = "zram0", .quiet = true}, eff;
	struct adv_dev_info di;
	struct adv_engine e;
	struct adv_source src;
	struct comp_ctx *c;
	size_t len;

	(void)state;
	write_bytes("mix.pages", mix, sizeof(mix));
	for (size_t i = 0; i < 3; i++) {
		struct adv_opts fo = {.input = tpath("mix.pages"), .page_size = ps[i]};
		struct adv_rng rng = {1};
		uint64_t same = 0;

		for (size_t p = 0; p < sizeof(mix) / ps[i]; p++)
			same += comp_page_same_filled((const uint8_t *)mix + p * ps[i], ps[i]);
		memset(&src, 0, sizeof(src));
		assert_int_equal(adv_engine_init(&e, zs_model_default(ps[i]), sp, 2, 1), 0);
		assert_int_equal(e.page_size, ps[i]);
		assert_int_equal(adv_read_file(&fo, &rng, &e, &src), 0);
		assert_int_equal(src.pages, sizeof(mix) / ps[i]);
		assert_int_equal(src.same_pages, same);
		assert_int_equal(e.npages, src.pages - same);
		assert_int_equal(src.trailing, sizeof(mix) % ps[i]);
		if (ps[i] == 16384) {
			/* 40 pages of 4 KiB are 10 of 16 KiB; the first is pages 0-3 as one */
			assert_int_equal(src.pages, 10);
			assert_int_equal(comp_ctx_new(COMP_ZSTD, COMP_LEVEL_DEFAULT, 16384, &c), 0);
			assert_int_equal(comp_compress(c, mix, 16384, out, sizeof(out), &len), 0);
			comp_ctx_free(c);
			if (!same)
				assert_int_equal(e.sizes[1], len);
		}
		if (ps[i] == 65536)
			assert_int_equal(src.trailing, 32768);
		adv_engine_free(&e);
	}
	assert_int_equal(adv_engine_init(&e, zs_model_default(65536), specs, 2, 1), -EOPNOTSUPP);
	assert_int_equal(adv_engine_init(&e, zs_model_default(16384), specs, 2, 1), 0);
	adv_engine_free(&e);
	assert_int_equal(adv_engine_init(&e, NULL, specs, 2, 1), -EINVAL);

	/* a device with 16 KiB pages */
	make_device("lzo [lz4] zstd deflate \n", "#1: lzo lz4 [zstd] deflate \n", true);
	fr_write("sys/block/zram0/bd_stat", "7 10 20\n"); /* 4 KiB units: 1 whole page */
	fr_write("sys/block/zram0/queue/physical_block_size", "16384\n");
	assert_int_equal(config(&o, &eff, &src, &di), 0);
	assert_int_equal(src.page_size, 16384);
	assert_int_equal(di.nslots, 16);
	assert_int_equal(src.pages, MIX_PAGES / 4);
	assert_int_equal(src.wb_pages, 1);
	assert_int_equal(di.stored, MIX_PAGES / 4 - MIX_PAGES / 5 - 1);
	/* --threshold is checked against that page size's huge_class_size */
	o.threshold = 14552;
	assert_int_equal(adv_check_threshold(&o, 16384), 0);
	o.threshold = 14553;
	assert_int_equal(adv_check_threshold(&o, 16384), -EINVAL);
	assert_int_equal(adv_check_threshold(&o, 65536), 0);
	o.threshold = 3625;
	assert_int_equal(adv_check_threshold(&o, 4096), -EINVAL);
	assert_int_equal(adv_check_threshold(&o, 12288), -EINVAL);
}

/* Each failure: its exit code and the -errno advise_device() returns; quiet means silent. */
static void test_device_config_errors(void **state)
{
	struct adv_opts o = {.device = "zram0", .quiet = true}, eff;
	struct adv_source src;
	struct adv_dev_info di;

	(void)state;
	make_device("lzo [lzo-rle] \n", "", true);
	o.device = "sda";
	assert_int_equal(config(&o, &eff, &src, &di), 2);
	assert_int_equal(src.err, -EINVAL);
	o.device = "zram9";
	assert_int_equal(config(&o, &eff, &src, &di), 1);
	assert_int_equal(src.err, -ENODEV);
	o.device = "zram0";
	fr_write("sys/block/zram0/initstate", "0\n");
	assert_int_equal(config(&o, &eff, &src, &di), 1);
	assert_int_equal(src.err, -ENODATA);
	fr_write("sys/block/zram0/initstate", "1\n");
	fr_write("sys/block/zram0/comp_algorithm", "lzo [842] \n");
	assert_int_equal(config(&o, &eff, &src, &di), 1);
	assert_int_equal(src.err, -EOPNOTSUPP);
	fr_write("sys/block/zram0/comp_algorithm", "lzo lzo-rle \n"); /* none selected */
	assert_int_equal(config(&o, &eff, &src, &di), 1);
	assert_int_equal(src.err, -EINVAL);
	fr_write("sys/block/zram0/comp_algorithm", "lzo [lzo-rle] \n");
	fr_write("sys/block/zram0/recomp_algorithm", "#1: lzo [842] \n");
	assert_int_equal(config(&o, &eff, &src, &di), 1);
	assert_int_equal(src.err, -EOPNOTSUPP);
	/* A listing that does not parse is no listing: the default chain stays. */
	fr_write("sys/block/zram0/recomp_algorithm", "#1: zstd\n");
	assert_int_equal(config(&o, &eff, &src, &di), 0);
	assert_null(src.chain_from);
	fr_write("sys/block/zram0/mm_stat", "16384 0 0 0 0 4 0 0 0\n");
	assert_int_equal(config(&o, &eff, &src, &di), 1);
	assert_int_equal(src.err, -ENODATA);
	(void)unlink(tpath("sys/block/zram0/disksize"));
	assert_int_equal(config(&o, &eff, &src, &di), 1);
	assert_int_equal(src.err, -ENOENT);
}

/* adv_device_config() then adv_device_sample() with --samples (0: every slot) and a seed. */
static int sample(uint64_t samples, uint64_t seed, struct adv_engine *e, struct adv_source *src)
{
	struct adv_opts o = {.device = "zram0", .quiet = true, .samples_set = true};
	struct adv_opts eff;
	struct adv_rng rng = {seed};
	struct adv_dev_info di;
	int root, rc;

	o.samples = samples;
	rc = config(&o, &eff, src, &di);
	if (rc)
		return rc;
	engine(e);
	root = fr_open_root();
	rc = adv_device_sample(&o, root, &rng, &di, e, src);
	close(root);
	return rc;
}

static void test_device_sample(void **state)
{
	struct adv_engine a, b;
	struct adv_source sa, sb;

	(void)state;
	/* block_state lists the 40 written slots; the 8 same-filled ones hold no object. */
	make_device("lzo [lzo-rle] \n", "", true);
	assert_int_equal(sample(0, 1, &a, &sa), 0);
	assert_true(sa.block_state);
	assert_int_equal(sa.read, 32);
	assert_int_equal(sa.sampled, 32);
	assert_int_equal(sa.represented, 32);
	assert_false(sa.sampling);
	adv_engine_free(&a);
	/* A sample of them: the same slots for the same seed. */
	assert_int_equal(sample(6, 5, &a, &sa), 0);
	assert_int_equal(sample(6, 5, &b, &sb), 0);
	assert_int_equal(sa.read, 6);
	assert_true(sa.sampling);
	assert_memory_equal(a.sizes, b.sizes, a.npages * 2 * sizeof(uint16_t));
	adv_engine_free(&a);
	adv_engine_free(&b);
	/* Without block_state: any of the 64 slots, zero ones only counted as same-filled. */
	make_device("lzo [lzo-rle] \n", "", false);
	assert_int_equal(sample(0, 1, &a, &sa), 0);
	assert_false(sa.block_state);
	assert_int_equal(sa.read, 64);
	assert_int_equal(a.npages, 32);
	assert_int_equal(a.same_pages, 32);
	adv_engine_free(&a);
}

static void test_device_sample_errors(void **state)
{
	static uint8_t half[32 * 4096];
	struct adv_engine e;
	struct adv_source src;

	(void)state;
	/* The disk is shorter than disksize says: a short read is -EIO. */
	make_device("lzo [lzo-rle] \n", "", false);
	write_bytes("dev/zram0", half, sizeof(half) - 1);
	assert_int_equal(sample(0, 1, &e, &src), 1);
	assert_int_equal(src.err, -EIO);
	adv_engine_free(&e);
	/* Only zero pages where block_state says data is: nothing to compress. */
	write_bytes("dev/zram0", half, sizeof(half));
	fr_write("sys/kernel/debug/zram/zram0/block_state",
		 "           1         1000.000000 ......\n");
	assert_int_equal(sample(0, 1, &e, &src), 1);
	assert_int_equal(src.err, -ENODATA);
	adv_engine_free(&e);
	(void)unlink(tpath("dev/zram0"));
	assert_int_equal(sample(0, 1, &e, &src), 1);
	assert_int_equal(src.err, -ENOENT);
	adv_engine_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_every_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_zstd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_reservoir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_config_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_sample_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
