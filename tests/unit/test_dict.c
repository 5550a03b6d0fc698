// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * advise --dict (issue 28, items 1 and 2): the training bounds, the held-out split, the
 * zstd dictionary mirror, the prediction arithmetic, the threshold decision, the file
 * --dict-out writes, the options, and advise_main() end to end on pages generated here
 * (the corpus is not needed). "Vocabulary" pages are 256 words drawn from a fixed list of
 * random 16-byte words: one page repeats few of its words, so zstd alone does poorly,
 * while a dictionary that learnt the words finds a match for nearly every one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "advise_internal.h"
#include "dict.h"
#include "fakeroot.h"
#include "advise_pages.h" /* after fakeroot.h */
#include "advise_run.h"   /* after fakeroot.h */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zdict.h>

#define PS 4096u
#define NWORDS 256u
#define WORD 16u
#define ZDICT_MAGIC 0xEC30A437u

static uint8_t words[NWORDS][WORD];

static void make_words(void)
{
	uint64_t s = 0x5eed;

	for (unsigned i = 0; i < NWORDS; i++)
		for (unsigned j = 0; j < WORD; j++)
			words[i][j] = (uint8_t)gen_rng(&s);
}

/* A vocabulary page; seed picks the words. */
static void vocab_page(uint8_t *p, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;

	for (unsigned i = 0; i < PS / WORD; i++)
		memcpy(p + i * WORD, words[gen_rng(&s) % NWORDS], WORD);
}

static uint8_t *vocab_pages(size_t n, uint64_t seed0)
{
	uint8_t *p = malloc(n * PS);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		vocab_page(p + i * PS, seed0 + i);
	return p;
}

static int setup(void **state)
{
	(void)state;
	make_words();
	return fr_setup() < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	fr_teardown();
	return 0;
}

/* ------------------------------------------------------------ bounds and split */

static void test_train_count(void **state)
{
	struct dict_bounds b = {.dict_size = 65536, .max_pages = 4096,
				.max_bytes = 16u << 20};

	(void)state;
	assert_int_equal(dict_train_count(100, PS, &b), 50); /* half: the rest is held out */
	assert_int_equal(dict_train_count(101, PS, &b), 50);
	assert_int_equal(dict_train_count(32, PS, &b), 16);
	assert_int_equal(dict_train_count(31, PS, &b), 0); /* 15 < DICT_TRAIN_PAGES_MIN */
	assert_int_equal(dict_train_count(0, PS, &b), 0);
	assert_int_equal(dict_train_count(20000, PS, &b), 4096); /* max_pages */
	b.max_pages = 20;
	assert_int_equal(dict_train_count(100, PS, &b), 20);
	b.max_pages = 4096;
	b.max_bytes = 30 * PS + 1; /* bytes: 30 whole pages */
	assert_int_equal(dict_train_count(100, PS, &b), 30);
	assert_int_equal(dict_train_count(100, 16384, &b), 0); /* 7 pages of 16 KiB: too few */
	b.max_bytes = 16u << 20;
	assert_int_equal(dict_train_count(100000, 65536, &b), 256); /* 16 MiB of 64 KiB */
	assert_int_equal(dict_train_count(100, 0, &b), 0);
}

static uint64_t below(void *arg, uint64_t k)
{
	return adv_rng_below(arg, k);
}

static void test_split(void **state)
{
	enum { N = 40, T = 10, RUNS = 4000 };
	unsigned in_train[N] = {0};
	size_t idx[N], again[N];
	struct adv_rng g = {.state = 1}, g2 = {.state = 1};

	(void)state;
	for (int run = 0; run < RUNS; run++) {
		bool seen[N] = {false};

		for (size_t i = 0; i < N; i++)
			idx[i] = i;
		dict_split(idx, N, T, below, &g);
		for (size_t i = 0; i < N; i++) {
			assert_true(idx[i] < N);
			assert_false(seen[idx[i]]); /* a permutation: train and held out disjoint */
			seen[idx[i]] = true;
		}
		for (size_t i = 0; i < T; i++)
			in_train[idx[i]]++;
	}
	/* Uniform: each index trains in T/N = 1/4 of the runs (1000 +- 5 sigma, sigma 27). */
	for (size_t i = 0; i < N; i++)
		assert_true(in_train[i] > 860 && in_train[i] < 1140);
	/* The same seed picks the same pages. */
	for (size_t i = 0; i < N; i++)
		idx[i] = again[i] = i;
	dict_split(idx, N, T, below, &g2);
	g2.state = 1;
	dict_split(again, N, T, below, &g2);
	assert_memory_equal(idx, again, sizeof(idx));
}

/* ------------------------------------------------------------ training */

static void test_train(void **state)
{
	uint8_t *pages = vocab_pages(64, 1);
	size_t idx[64];
	struct dict_trained d;
	uint32_t magic;

	(void)state;
	for (size_t i = 0; i < 64; i++)
		idx[i] = 63 - i;
	assert_int_equal(dict_train(pages, idx, 32, PS, 8192, &d), 0);
	assert_non_null(d.buf);
	assert_true(d.size > 0 && d.size <= 8192);
	memcpy(&magic, d.buf, 4);
	assert_int_equal(magic, ZDICT_MAGIC);
	assert_int_equal(d.id, ZDICT_getDictID(d.buf, d.size));
	assert_int_equal(d.pages, 32);
	assert_int_equal(d.bytes, 32 * PS);
	assert_true(d.mem_bound >= d.bytes + 8192);
	assert_true(d.cpu_seconds >= 0 && d.cpu_seconds < 60);
	assert_non_null(strstr(d.trainer, "fastcover"));
	dict_trained_free(&d);
	assert_null(d.buf);
	assert_int_equal(d.size, 0);

	/* Bounds: too few pages, a capacity out of range, nothing to train on. */
	assert_int_equal(dict_train(pages, idx, DICT_TRAIN_PAGES_MIN - 1, PS, 8192, &d), -EINVAL);
	assert_int_equal(dict_train(pages, idx, 32, PS, DICT_SIZE_MIN - 1, &d), -EINVAL);
	assert_int_equal(dict_train(pages, idx, 32, PS, DICT_SIZE_MAX + 1, &d), -EINVAL);
	assert_int_equal(dict_train(NULL, idx, 32, PS, 8192, &d), -EINVAL);
	assert_null(d.buf);
	free(pages);
}

/* The mirror: with the dictionary the pages shrink, and only its DDict reads them back. */
static void test_ctx_dict(void **state)
{
	uint8_t *pages = vocab_pages(64, 100), out[COMP_DST_SIZE(PS)], back[PS];
	struct comp_ctx *plain = NULL, *with = NULL, *lz4 = NULL;
	size_t idx[64], a = 0, b = 0, n, m;
	struct dict_trained d;

	(void)state;
	for (size_t i = 0; i < 64; i++)
		idx[i] = i;
	assert_int_equal(dict_train(pages, idx, 32, PS, 8192, &d), 0);
	assert_int_equal(comp_ctx_new(COMP_ZSTD, 9, PS, &plain), 0);
	assert_int_equal(comp_ctx_new(COMP_ZSTD, 9, PS, &with), 0);
	assert_int_equal(comp_ctx_new(COMP_LZ4, COMP_LEVEL_DEFAULT, PS, &lz4), 0);
	assert_int_equal(comp_ctx_set_dict(lz4, d.buf, d.size), -EINVAL);
	assert_int_equal(comp_ctx_set_dict(with, NULL, 0), -EINVAL);
	assert_int_equal(comp_ctx_set_dict(with, d.buf, d.size), 0);
	assert_int_equal(comp_ctx_set_dict(with, d.buf, d.size), -EINVAL); /* once */
	for (size_t i = 32; i < 64; i++) { /* held out */
		assert_int_equal(comp_compress(plain, pages + i * PS, PS, out, sizeof(out), &n), 0);
		a += n;
		assert_int_equal(comp_compress(with, pages + i * PS, PS, out, sizeof(out), &n), 0);
		b += n;
		assert_int_equal(comp_decompress(with, out, n, back, PS, &m), 0);
		assert_int_equal(m, PS);
		assert_memory_equal(back, pages + i * PS, PS);
		assert_true(comp_decompress(plain, out, n, back, PS, &m) < 0);
	}
	assert_true(b * 2 < a); /* the words are in the dictionary */
	comp_ctx_free(plain);
	comp_ctx_free(with);
	comp_ctx_free(lz4);
	dict_trained_free(&d);
	free(pages);
}

static void test_kernel_bytes(void **state)
{
	uint64_t k3 = dict_kernel_bytes(65536, 3, PS), k9 = dict_kernel_bytes(65536, 9, PS);
	uint32_t def = dict_default_size(PS);

	(void)state;
	assert_int_equal(def, 124 * 1024);
	assert_int_equal(dict_default_size(16384), 112 * 1024);
	assert_int_equal(dict_default_size(65536), 64 * 1024);
	/* The default stays in zstd's small-source tables; one byte more does not. */
	assert_true(dict_kernel_bytes(def + 1, 9, PS) > 2 * dict_kernel_bytes(def, 9, PS));
	assert_true(dict_kernel_bytes(def, 9, PS) < k9 + def);
	assert_true(k3 > 65536); /* the file's bytes plus the CDict's and DDict's tables */
	assert_true(k9 > k3);	 /* level 9 searches larger tables */
	assert_true(dict_kernel_bytes(131072, 9, PS) > k9);
}

/* ------------------------------------------------------------ decision */

static void test_decide(void **state)
{
	struct dict_variant v[3];
	struct dict_decision dec;

	(void)state;
	memset(v, 0, sizeof(v));
	v[0] = (struct dict_variant){.mask = 1u << 1, .mem_bytes = 950000, .kernel_bytes = 10000};
	v[1] = (struct dict_variant){.mask = 1u << 2, .mem_bytes = 980000, .kernel_bytes = 10000};
	v[2] = (struct dict_variant){.mask = 6u, .mem_bytes = 940000, .kernel_bytes = 20000};
	dict_decide(v, 3, 1000000, 3, &dec);
	assert_int_equal(v[0].saving, 50000);
	assert_int_equal(v[0].net, 40000);
	assert_int_equal(v[1].net, 10000);
	assert_int_equal(v[2].saving, 60000);
	assert_int_equal(v[2].net, 40000);
	assert_int_equal(dec.best, 0); /* a tie on net: fewer priorities */
	assert_true(dec.recommend);	/* 4% >= 3% */
	assert_non_null(strstr(dec.reason, "priority 1 "));
	assert_non_null(strstr(dec.reason, "4.0%"));

	dict_decide(v, 3, 1000000, 5, &dec); /* 4% < 5% */
	assert_false(dec.recommend);
	assert_int_equal(dec.best, 0);
	assert_non_null(strstr(dec.reason, "below the 5% threshold"));

	/* Exactly at the threshold: recommended; one byte less: not. */
	v[0] = (struct dict_variant){.mask = 2u, .mem_bytes = 960000, .kernel_bytes = 10000};
	dict_decide(v, 1, 1000000, 3, &dec);
	assert_int_equal(v[0].net, 30000);
	assert_true(dec.recommend);
	v[0].kernel_bytes = 10001;
	dict_decide(v, 1, 1000000, 3, &dec);
	assert_false(dec.recommend);

	/* A saving eaten by the kernel's memory never pays, even at threshold 0. */
	v[0] = (struct dict_variant){.mask = 1u, .mem_bytes = 999000, .kernel_bytes = 2000};
	dict_decide(v, 1, 1000000, 0, &dec);
	assert_int_equal(v[0].net, -1000);
	assert_false(dec.recommend);
	assert_non_null(strstr(dec.reason, "priority 0,"));

	dict_decide(v, 0, 1000000, 3, &dec);
	assert_int_equal(dec.best, -1);
	assert_false(dec.recommend);
	assert_non_null(strstr(dec.reason, "no zstd priority"));
}

static void test_mask_str(void **state)
{
	char b[16];

	(void)state;
	dict_mask_str(1u, b, sizeof(b));
	assert_string_equal(b, "0");
	dict_mask_str(6u, b, sizeof(b));
	assert_string_equal(b, "1,2");
	dict_mask_str(15u, b, sizeof(b));
	assert_string_equal(b, "0,1,2,3");
	dict_mask_str(0u, b, sizeof(b));
	assert_string_equal(b, "");
}

/* ------------------------------------------------------------ the held-out prediction */

/*
 * Pages whose second half is random and unique to the page: a dictionary holds pieces of
 * its training pages' random halves, which helps nothing else. Were a training page among
 * the predicted ones, it would shrink by far more than the held-out pages do.
 */
static void unique_page(uint8_t *p, uint64_t seed)
{
	vocab_page(p, seed);
	gen_page(p + PS / 2, 1, seed + 1000); /* 4096 random bytes; the first 2048 used */
}

static void test_heldout_only(void **state)
{
	enum { N = 64 };
	static uint8_t page[PS * 2];
	struct adv_spec primary = {.algo = COMP_ZSTD, .level = 9};
	struct adv_opts eff = {.primary = primary, .nchain = 0};
	struct adv_source src = {.represented = N};
	struct adv_engine e;
	struct adv_dict_report dr;
	struct adv_rng g = {.state = 3};

	(void)state;
	eff.dict.on = true;
	eff.dict.size = 65536;
	eff.dict.threshold = 3;
	assert_int_equal(adv_engine_init(&e, zs_model_default(PS), &primary, 1, 1), 0);
	assert_int_equal(adv_engine_keep(&e, N), 0);
	for (unsigned i = 0; i < N; i++) {
		unique_page(page, i + 1);
		assert_int_equal(adv_engine_add_page(&e, page), 0);
	}
	assert_int_equal(adv_engine_flush(&e), 0);
	assert_int_equal(e.nkeep, N);
	assert_int_equal(adv_dict_predict(&eff, &g, &e, &src, &dr), 0);
	assert_true(dr.trained);
	assert_int_equal(dr.sampled, N);
	assert_int_equal(dr.d.pages, N / 2);
	assert_int_equal(dr.heldout, N / 2); /* every page once: trained or predicted */
	assert_true(dr.scale > 1.99 && dr.scale < 2.01);
	assert_int_equal(dr.nvar, 1);
	assert_int_equal(dr.var[0].mask, 1u);
	/* The vocabulary halves gain, the random halves do not: well under 40% saving. */
	assert_true(dr.var[0].saving < (int64_t)(dr.without.mem_bytes * 2 / 5));
	adv_dict_report_free(&dr);
	adv_engine_free(&e);
}

/* The chain's prediction on held-out vocabulary pages: each zstd priority, and both. */
static void test_predict_chain(void **state)
{
	enum { N = 160 };
	struct adv_spec specs[1] = {{.algo = COMP_LZO_RLE, .level = COMP_LEVEL_DEFAULT}};
	struct adv_opts eff = {.primary = specs[0], .nchain = 2};
	struct adv_source src = {.represented = 10 * N};
	uint8_t *pages = vocab_pages(N, 5000);
	struct adv_engine e;
	struct adv_dict_report dr;
	struct adv_rng g = {.state = 9};

	(void)state;
	eff.chain[0] = (struct adv_spec){.algo = COMP_ZSTD, .level = 9};
	eff.chain[1] = (struct adv_spec){.algo = COMP_LZ4, .level = COMP_LEVEL_DEFAULT};
	eff.dict = (struct adv_dict_opts){.on = true, .size = 16384, .threshold = 3};
	assert_int_equal(adv_engine_init(&e, zs_model_default(PS), specs, 1, 2), 0);
	assert_int_equal(adv_engine_keep(&e, N), 0);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(adv_engine_add_page(&e, pages + i * PS), 0);
	assert_int_equal(adv_engine_flush(&e), 0);
	assert_int_equal(adv_dict_predict(&eff, &g, &e, &src, &dr), 0);
	assert_true(dr.trained);
	assert_int_equal(dr.heldout, N - dr.d.pages);
	assert_true(dr.scale > 10.0 * N / (N - dr.d.pages) - 0.01);
	assert_int_equal(dr.nprio, 3);
	assert_int_equal(dr.nvar, 1); /* only priority 1 is zstd */
	assert_int_equal(dr.var[0].mask, 1u << 1);
	assert_int_equal(dr.kernel_bytes[0], 0);
	assert_int_equal(dr.kernel_bytes[2], 0);
	assert_int_equal(dr.var[0].kernel_bytes, dr.kernel_bytes[1]);
	assert_int_equal(dr.var[0].kernel_bytes, dict_kernel_bytes(dr.d.size, 9, PS));
	assert_int_equal(dr.var[0].saving,
			 (int64_t)dr.without.mem_bytes - (int64_t)dr.var[0].mem_bytes);
	assert_int_equal(dr.var[0].net, dr.var[0].saving - (int64_t)dr.var[0].kernel_bytes);
	assert_true(dr.var[0].mem_bytes < dr.without.mem_bytes);
	adv_dict_report_free(&dr);

	/* No zstd at all: not trained, and said why. */
	eff.chain[0] = (struct adv_spec){.algo = COMP_DEFLATE, .level = COMP_LEVEL_DEFAULT};
	assert_int_equal(adv_dict_predict(&eff, &g, &e, &src, &dr), 0);
	assert_false(dr.trained);
	assert_non_null(strstr(dr.why, "no zstd priority"));
	adv_dict_report_free(&dr);
	adv_engine_free(&e);
	free(pages);
}

/* ------------------------------------------------------------ the file */

static void test_write_file(void **state)
{
	struct dict_trained d = {0};
	uint8_t buf[64];
	struct stat st;
	char path[300];
	int fd;

	(void)state;
	d.buf = malloc(sizeof(buf));
	d.size = sizeof(buf);
	for (size_t i = 0; i < sizeof(buf); i++)
		d.buf[i] = (uint8_t)(i * 7);
	snprintf(path, sizeof(path), "%s/dict.bin", fr_dir);
	assert_int_equal(dict_write_file(path, &d), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 64);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(read(fd, buf, sizeof(buf)), 64);
	close(fd);
	assert_memory_equal(buf, d.buf, 64);
	assert_int_equal(dict_write_file(path, &d), -EEXIST); /* never replaced */
	snprintf(path, sizeof(path), "%s/link", fr_dir);
	assert_int_equal(symlink("dict-target", path), 0);
	assert_int_equal(dict_write_file(path, &d), -EEXIST); /* nor followed */
	snprintf(path, sizeof(path), "%s/dict-target", fr_dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/no/such/dir", fr_dir);
	assert_int_equal(dict_write_file(path, &d), -ENOENT);
	dict_trained_free(&d);
	assert_int_equal(dict_write_file(path, &d), -EINVAL);
}

/* ------------------------------------------------------------ options */

static int parse(struct adv_opts *o, ...)
{
	char *argv[16];
	int argc = 0, rc;
	va_list ap;

	argv[argc++] = strdup("advise");
	va_start(ap, o);
	for (const char *a; (a = va_arg(ap, const char *)) && argc < 15;)
		argv[argc++] = strdup(a);
	va_end(ap);
	argv[argc] = NULL;
	rc = adv_parse_opts(argc, argv, o);
	/* argv stays allocated: *o points into it (like main's argv) */
	return rc;
}

static void test_options(void **state)
{
	struct adv_opts o;

	(void)state;
	assert_int_equal(parse(&o, "--input", "f", NULL), 0);
	assert_false(o.dict.on);
	assert_int_equal(o.dict.threshold, DICT_THRESHOLD_DEFAULT);
	assert_false(o.samples_set); /* no --dict: every page of a file */

	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-size", "64K",
			       "--dict-train-pages", "500", "--dict-train-bytes", "2M",
			       "--dict-threshold", "5", "--dict-out", "x", NULL),
			 0);
	assert_true(o.dict.on);
	assert_int_equal(o.dict.size, 65536);
	assert_int_equal(o.dict.train_pages, 500);
	assert_int_equal(o.dict.train_bytes, 2u << 20);
	assert_int_equal(o.dict.threshold, 5);
	assert_string_equal(o.dict.out, "x");
	assert_true(o.samples_set); /* --dict bounds a file's sample */
	assert_int_equal(o.samples, ADV_DICT_FILE_SAMPLES);

	assert_int_equal(parse(&o, "--input", "f", "--dict-size", "64K", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-size", "512", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-size", "2M", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-size", "x", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-threshold", "101", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-train-pages", "15", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-train-bytes", "1G", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-out", "", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--samples", "0", NULL), 2);
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--page-size", "65536", "--samples",
			       "8192", NULL),
			 2); /* 512 MiB kept */
	assert_int_equal(parse(&o, "--input", "f", "--dict", "--dict-size", NULL), 2);
}

/* ------------------------------------------------------------ advise_main */

static int run_advise(const char *const *args)
{
	return advise_run_args(-1, args);
}

static void write_vocab_file(const char *rel, size_t n)
{
	uint8_t *pages = vocab_pages(n, 77);

	write_bytes(rel, pages, n * PS);
	free(pages);
}

static void test_main_json(void **state)
{
	char file[512], out[512];
	const char *args[] = {"--input", file,	      "--page-size", "4096", "--seed",
			      "1",	 "--chain",   "zstd:9",	     "--json", "--dict",
			      "--dict-size", "8K",    "--dict-out",  out,     NULL};
	uint32_t magic;
	struct stat st;
	int fd;

	(void)state;
	write_vocab_file("vocab.pages", 200);
	snprintf(file, sizeof(file), "%s", tpath("vocab.pages"));
	snprintf(out, sizeof(out), "%s", tpath("vocab.dict"));
	assert_int_equal(run_advise(args), 0);
	assert_string_equal(err_buf, "");
	assert_non_null(strstr(out_buf, ",\"dictionary\":{\"trained\":true,\"threshold_percent\":5,"
					"\"size\":"));
	assert_non_null(strstr(out_buf, "\"sampled_pages\":200,\"train_pages\":100,"
					"\"train_bytes\":409600,"));
	assert_non_null(strstr(out_buf, "\"heldout_pages\":100,\"scale\":2.0000,"));
	assert_non_null(strstr(out_buf, "\"variants\":[{\"priorities\":[{\"priority\":1,\"algo\":"
					"\"zstd\",\"level\":9}],"));
	assert_non_null(strstr(out_buf, "\"recommended\":true,\"priorities\":[{\"priority\":1,"));
	assert_non_null(strstr(out_buf, "\"file\":\""));
	assert_non_null(strstr(out_buf, "}}\n")); /* the object closes */
	/* The file: the dictionary, mode 0600. */
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(st.st_size > 0 && st.st_size <= 8192);
	fd = open(out, O_RDONLY | O_CLOEXEC);
	assert_int_equal(read(fd, &magic, 4), 4);
	close(fd);
	assert_int_equal(magic, ZDICT_MAGIC);

	/* Again: the file exists, a one-line error, exit 1, the file unchanged. */
	assert_int_equal(run_advise(args), 1);
	assert_non_null(strstr(err_buf, "--dict-out"));
	assert_non_null(strstr(err_buf, "File exists"));
	assert_non_null(strchr(err_buf, '\n'));
	assert_null(strchr(strchr(err_buf, '\n') + 1, '\n'));
}

static void test_main_text(void **state)
{
	char file[512];
	const char *args[] = {"--input", file, "--seed", "2", "--page-size", "4096", "--chain",
			      "zstd", "--dict", "--dict-size", "8K", "--dict-threshold", "100",
			      NULL};
	const char *few[] = {"--input", file, "--page-size", "4096", "--dict", "--samples", "20",
			     NULL};

	(void)state;
	write_vocab_file("vocab.pages", 100);
	snprintf(file, sizeof(file), "%s", tpath("vocab.pages"));
	assert_int_equal(run_advise(args), 0);
	assert_non_null(strstr(out_buf, "\ndictionary (--dict): "));
	assert_non_null(strstr(out_buf, "trained on 50 of 100 sampled pages"));
	assert_non_null(strstr(out_buf, "predicted on the other 50 pages (held out"));
	assert_non_null(strstr(out_buf, "  at priority 1 (zstd): mem_used_total "));
	assert_non_null(strstr(out_buf, "dictionary: not recommended: "));
	assert_non_null(strstr(out_buf, "below the 100% threshold"));
	assert_non_null(strstr(out_buf, "kept in memory only"));
	assert_int_equal(access(tpath("vocab.dict"), F_OK), -1); /* nothing written */

	/* A sample too small to split: said, not an error. */
	assert_int_equal(run_advise(few), 0);
	assert_non_null(strstr(out_buf, "dictionary (--dict): not trained: 20 sampled pages are "
					"too few"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_train_count),
		cmocka_unit_test(test_split),
		cmocka_unit_test_setup_teardown(test_train, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctx_dict, setup, teardown),
		cmocka_unit_test(test_kernel_bytes),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_mask_str),
		cmocka_unit_test_setup_teardown(test_heldout_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_predict_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file, setup, teardown),
		cmocka_unit_test(test_options),
		cmocka_unit_test_setup_teardown(test_main_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_main_text, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
