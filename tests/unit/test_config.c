// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/config/config.c: files are written to a fresh mkdtemp directory per test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "util.h"

static char tmpdir[64];
static char pathbuf[8][512];
static unsigned pathslot;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	strcpy(tmpdir, "/tmp/test_config.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Path of name inside the test directory (a few stay valid at once). */
static const char *tpath(const char *name)
{
	char *p = pathbuf[pathslot++ % ARRAY_SIZE(pathbuf)];

	snprintf(p, sizeof(pathbuf[0]), "%s/%s", tmpdir, name);
	return p;
}

static const char *write_file(const char *name, const char *content)
{
	const char *p = tpath(name);
	FILE *f = fopen(p, "we");

	assert_non_null(f);
	assert_int_equal(fputs(content, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* write_file() after mkdir -p of the directories in rel. */
static const char *put(const char *rel, const char *content)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	for (char *q = p + strlen(tmpdir) + 1; *q; q++) {
		if (*q == '/') {
			*q = '\0';
			(void)mkdir(p, 0755);
			*q = '/';
		}
	}
	return write_file(rel, content);
}

/* mkdir -p tmpdir/rel. */
static const char *mkdirs(const char *rel)
{
	char sub[256];
	const char *p;

	snprintf(sub, sizeof(sub), "%s/x", rel);
	put(sub, "");
	assert_int_equal(unlink(tpath(sub)), 0);
	p = tpath(rel);
	return p;
}

/* c emptied of what it owns (zeroed or loaded before): tests reuse one config many times. */
static struct config *fresh(struct config *c)
{
	config_free(c);
	return c;
}

/* config_init() of a c that is zeroed or was loaded before (its storage freed first). */
static void reinit(struct config *c)
{
	config_free(c);
	config_init(c);
}

/* Load the search path of a tree under tmpdir (as under ZRAM_RECOMPD_CONFIG_ROOT). */
static int load_tree(struct config *c, struct config_files *f, struct config_errors *e)
{
	static struct config_source src;

	assert_int_equal(config_source_search(&src, tmpdir), 0);
	return config_load(fresh(c), &src, f, e);
}

/* config_files_print() of f with every tmpdir removed from the paths; frees f. */
static char *files_str(struct config_files *f)
{
	static char out[4096];
	char *buf = NULL, *p, *q;
	size_t len = 0, n = strlen(tmpdir);
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	config_files_print(f, "", m);
	assert_int_equal(fclose(m), 0);
	config_files_free(f);
	for (p = buf, q = out; *p && q < out + sizeof(out) - 1;) {
		if (strncmp(p, tmpdir, n) == 0) {
			p += n;
			continue;
		}
		*q++ = *p++;
	}
	*q = '\0';
	free(buf);
	return out;
}

/* Load content as the single file "t.conf" on top of the defaults. */
static int load_str(struct config *c, struct config_errors *e, const char *content)
{
	reinit(c);
	return config_load_file(c, write_file("t.conf", content), e);
}

/* content must produce exactly one error: "<path of t.conf>:<suffix>". */
static void check_one_error(const char *content, const char *suffix)
{
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	assert_int_equal(load_str(&c, &e, content), -EINVAL);
	snprintf(want, sizeof(want), "%s:%s", tpath("t.conf"), suffix);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], want);
	config_free(&c);
}

/* Load "[global]\n<key> = <value>\n" and expect success. */
static void load_global_kv(struct config *c, const char *key, const char *value)
{
	struct config_errors e;
	char buf[512];
	int r;

	snprintf(buf, sizeof(buf), "[global]\n%s = %s\n", key, value);
	r = load_str(c, &e, buf);
	if (r != 0)
		fail_msg("'%s = %s': %s", key, value, e.n ? e.msg[0] : "?");
	assert_int_equal(e.n, 0);
}

/* "[global]\n<key> = <value>\n" must fail with "2: key '<key>': <reason>". */
static void check_global_kv_error(const char *key, const char *value, const char *reason)
{
	char buf[512], suffix[512];

	snprintf(buf, sizeof(buf), "[global]\n%s = %s\n", key, value);
	snprintf(suffix, sizeof(suffix), "2: key '%s': %s", key, reason);
	check_one_error(buf, suffix);
}

/* Values only: ignores set bits, origins and the raw algorithm-params tokens. */
static void assert_dev_equal(const struct dev_config *a, const struct dev_config *b)
{
	assert_int_equal(a->n_algos, b->n_algos);
	for (unsigned i = 0; i < a->n_algos; i++) {
		assert_string_equal(a->algos[i], b->algos[i]);
		assert_int_equal(a->has_level[i], b->has_level[i]);
		if (a->has_level[i])
			assert_int_equal(a->level[i], b->level[i]);
	}
	assert_int_equal(a->n_passes, b->n_passes);
	for (unsigned i = 0; i < a->n_passes; i++)
		assert_int_equal(a->passes[i], b->passes[i]);
	assert_int_equal(a->threshold_bytes, b->threshold_bytes);
	assert_int_equal(a->max_pages_per_batch, b->max_pages_per_batch);
	assert_int_equal(a->max_pages_per_pass, b->max_pages_per_pass);
	assert_int_equal(a->idle_age_min_sec, b->idle_age_min_sec);
	assert_int_equal(a->idle_age_max_sec, b->idle_age_max_sec);
	assert_int_equal(a->compact, b->compact);
	assert_int_equal(a->algos_auto, b->algos_auto);
	assert_int_equal(a->advise_interval_sec, b->advise_interval_sec);
	assert_int_equal(a->advise_samples, b->advise_samples);
	assert_int_equal(a->writeback, b->writeback);
	assert_int_equal(a->n_wb_types, b->n_wb_types);
	for (unsigned i = 0; i < a->n_wb_types; i++)
		assert_int_equal(a->wb_types[i], b->wb_types[i]);
	assert_int_equal(a->wb_idle_age_sec, b->wb_idle_age_sec);
	assert_int_equal(a->wb_bytes_per_day, b->wb_bytes_per_day);
	assert_int_equal(a->wb_bytes_per_pass, b->wb_bytes_per_pass);
	assert_int_equal(a->wb_batch_size, b->wb_batch_size);
	assert_string_equal(a->backing_device, b->backing_device);
	assert_int_equal(a->compressed_writeback, b->compressed_writeback);
	assert_int_equal(a->dict_use, b->dict_use);
	assert_int_equal(a->dict_prios, b->dict_prios);
}

static char *print_to_string(const struct config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	config_print(c, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_defaults(void **state)
{
	struct config c = { 0 };
	struct dev_config d;

	reinit(&c);
	assert_true(c.devices_all);
	assert_int_equal(c.n_devices, 0);
	assert_int_equal(c.n_sections, 0);
	assert_int_equal(c.global.n_algos, 1);
	assert_string_equal(c.global.algos[0], "zstd");
	assert_int_equal(c.global.n_params, 0);
	assert_false(c.global.has_level[0]);
	assert_int_equal(c.global.n_passes, 3);
	assert_int_equal(c.global.passes[0], PASS_HUGE_IDLE);
	assert_int_equal(c.global.passes[1], PASS_IDLE);
	assert_int_equal(c.global.passes[2], PASS_HUGE);
	assert_int_equal(c.global.threshold_bytes, 0);
	assert_int_equal(c.global.max_pages_per_batch, 2048);
	assert_int_equal(c.global.max_pages_per_pass, 131072);
	assert_int_equal(c.global.idle_age_min_sec, 1800);
	assert_int_equal(c.global.idle_age_max_sec, 14400);
	assert_int_equal(c.global.compact, COMPACT_AUTO);
	assert_int_equal(c.global.set, 0);

	assert_true(config_device_selected(&c, 0));
	assert_true(config_device_selected(&c, 7));
	config_effective(&c, 3, &d);
	assert_dev_equal(&d, &c.global);
	assert_int_equal(d.set, 0);
	config_free(&c);
}

static void test_names(void **state)
{
	assert_string_equal(compact_mode_name(COMPACT_AUTO), "auto");
	assert_string_equal(compact_mode_name(COMPACT_ALWAYS), "always");
	assert_string_equal(compact_mode_name(COMPACT_NEVER), "never");
}

static void test_missing_files_ok(void **state)
{
	struct config c = { 0 };
	struct config_errors e = {.n = 5};
	struct config_files f;

	/* An empty tree: no file anywhere on the search path is no error. */
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.dropped, 0);
	assert_int_equal(c.global.max_pages_per_batch, 2048);
	assert_true(c.devices_all);
	assert_int_equal(f.n, 0);
	assert_string_equal(files_str(&f), "no configuration file read: built-in defaults\n");
	/* NULL files and errs are accepted. */
	assert_int_equal(load_tree(&c, NULL, NULL), 0);
	config_free(&c);
}

static void test_load_file_missing(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	reinit(&c);
	assert_int_equal(config_load_file(&c, tpath("nope.conf"), &e), -ENOENT);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory",
		 tpath("nope.conf"));
	assert_string_equal(e.msg[0], want);
	config_free(&c);
}

static void test_every_key_valid(void **state)
{
	struct config c = { 0 };
	struct config_errors e;

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "devices = zram1 zram0\n"
				  "recompress-algorithms = zstd deflate\n"
				  "algorithm-params = zstd:level=9 2:level=6\n"
				  "passes = idle huge\n"
				  "threshold-bytes = 3000\n"
				  "max-pages-per-batch = 4096\n"
				  "max-pages-per-pass = 0\n"
				  "idle-age-min-sec = 60\n"
				  "idle-age-max-sec = 0\n"
				  "compact = never\n"),
			 0);
	assert_int_equal(e.n, 0);
	assert_false(c.devices_all);
	assert_int_equal(c.n_devices, 2);
	assert_int_equal(c.devices[0], 1);
	assert_int_equal(c.devices[1], 0);
	assert_int_equal(c.global.n_algos, 2);
	assert_string_equal(c.global.algos[0], "zstd");
	assert_string_equal(c.global.algos[1], "deflate");
	assert_true(c.global.has_level[0]);
	assert_int_equal(c.global.level[0], 9);
	assert_true(c.global.has_level[1]);
	assert_int_equal(c.global.level[1], 6);
	assert_int_equal(c.global.n_passes, 2);
	assert_int_equal(c.global.passes[0], PASS_IDLE);
	assert_int_equal(c.global.passes[1], PASS_HUGE);
	assert_int_equal(c.global.threshold_bytes, 3000);
	assert_int_equal(c.global.max_pages_per_batch, 4096);
	assert_int_equal(c.global.max_pages_per_pass, 0);
	assert_int_equal(c.global.idle_age_min_sec, 60);
	assert_int_equal(c.global.idle_age_max_sec, 0);
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	assert_int_equal(c.global.set, CFG_K_ALGOS | CFG_K_PARAMS | CFG_K_PASSES | CFG_K_THRESHOLD |
					       CFG_K_BATCH | CFG_K_PASS_PAGES | CFG_K_AGE_MIN |
					       CFG_K_AGE_MAX | CFG_K_COMPACT);
	/* Origins: file 0, the line each key was on. */
	assert_int_equal(c.global.origin[0].line, 3);
	assert_int_equal(c.global.origin[8].line, 11);
	assert_true(config_device_selected(&c, 0));
	assert_true(config_device_selected(&c, 1));
	assert_false(config_device_selected(&c, 2));
	config_free(&c);
}

static void test_algorithms_valid(void **state)
{
	struct config c = { 0 };

	load_global_kv(&c, "recompress-algorithms", "zstd zstd");
	assert_int_equal(c.global.n_algos, 2);
	assert_string_equal(c.global.algos[0], "zstd");
	assert_string_equal(c.global.algos[1], "zstd");

	load_global_kv(&c, "recompress-algorithms", "lzo-rle\t842   lz4hc");
	assert_int_equal(c.global.n_algos, 3);
	assert_string_equal(c.global.algos[0], "lzo-rle");
	assert_string_equal(c.global.algos[1], "842");
	assert_string_equal(c.global.algos[2], "lz4hc");

	/* 31 characters is the longest accepted name. */
	load_global_kv(&c, "recompress-algorithms", "abcdefghijklmnopqrstuvwxyz01234");
	assert_string_equal(c.global.algos[0], "abcdefghijklmnopqrstuvwxyz01234");
	config_free(&c);
}

static void test_algorithms_invalid(void **state)
{
	check_global_kv_error("recompress-algorithms", "",
			      "empty value (at least one algorithm is needed)");
	check_global_kv_error("recompress-algorithms", "zstd deflate lz4hc lz4",
			      "more than 3 algorithms (the kernel has priorities 1-3)");
	check_global_kv_error(
		"recompress-algorithms", "ZSTD",
		"'ZSTD' is not a valid algorithm name ([a-z0-9-], at most 31 characters)");
	check_global_kv_error("recompress-algorithms", "zstd,deflate",
			      "'zstd,deflate' is not a valid algorithm name ([a-z0-9-], at most 31 "
			      "characters); did you mean 'zstd deflate'? (names are separated by "
			      "blanks, no commas)");
	check_global_kv_error("recompress-algorithms", "abcdefghijklmnopqrstuvwxyz012345",
			      "'abcdefghijklmnopqrstuvwxyz012345' is not a valid algorithm name "
			      "([a-z0-9-], at most 31 characters)");
}

static void test_params_resolution(void **state)
{
	struct config c = { 0 };
	struct config_errors e;

	/* A name sets every priority holding it; a later token overrides an earlier one. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "algorithm-params = zstd:level=1 2:level=19\n"
				  "recompress-algorithms = zstd zstd\n"),
			 0);
	assert_true(c.global.has_level[0]);
	assert_int_equal(c.global.level[0], 1);
	assert_true(c.global.has_level[1]);
	assert_int_equal(c.global.level[1], 19);

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = zstd 842 lz4\n"
				  "algorithm-params = lz4:level=-5 842:level=0 zstd:level=-131072 "
				  "3:level=131072\n"),
			 0);
	assert_int_equal(c.global.level[0], -131072);
	assert_int_equal(c.global.level[1], 0);
	assert_true(c.global.has_level[1]);
	assert_int_equal(c.global.level[2], 131072);

	/* Only priority 2 gets a level. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = zstd deflate\n"
				  "algorithm-params = deflate:level=9\n"),
			 0);
	assert_false(c.global.has_level[0]);
	assert_true(c.global.has_level[1]);
	assert_int_equal(c.global.level[1], 9);
	assert_int_equal(c.global.n_params, 1);
	assert_int_equal(c.global.params[0].prio, 0);
	assert_string_equal(c.global.params[0].algo, "deflate");
	config_free(&c);
}

static void test_params_empty_clears(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config d;

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "algorithm-params = zstd:level=9\n"
				  "[zram0]\n"
				  "algorithm-params =\n"),
			 0);
	assert_true(c.global.has_level[0]);
	config_effective(&c, 0, &d);
	assert_int_equal(d.n_params, 0);
	assert_false(d.has_level[0]);
	assert_true(d.set & CFG_K_PARAMS);
	config_effective(&c, 1, &d);
	assert_true(d.has_level[0]);
	assert_int_equal(d.level[0], 9);
	config_free(&c);
}

static void test_params_syntax_errors(void **state)
{
	const char *k = "algorithm-params";

	check_global_kv_error(k, "zstd", "'zstd' is not NAME:level=N or P:level=N");
	check_global_kv_error(k, "zstd:level", "'zstd:level' is not NAME:level=N or P:level=N");
	check_global_kv_error(k, ":level=3", "':level=3' is not NAME:level=N or P:level=N");
	check_global_kv_error(k, "zstd:lvl=3",
			      "'zstd:lvl=3': unknown parameter 'lvl' (only level= is supported)");
	check_global_kv_error(k, "zstd:level=x", "'zstd:level=x': level is not an integer");
	check_global_kv_error(k, "zstd:level=", "'zstd:level=': level is not an integer");
	check_global_kv_error(k, "zstd:level=+3", "'zstd:level=+3': level is not an integer");
	check_global_kv_error(k, "zstd:level=--3", "'zstd:level=--3': level is not an integer");
	check_global_kv_error(k, "zstd:level=131073",
			      "'zstd:level=131073': level is out of range -131072 to 131072");
	check_global_kv_error(k, "zstd:level=-131073",
			      "'zstd:level=-131073': level is out of range -131072 to 131072");
	/* No overflow on huge magnitudes. */
	check_global_kv_error(
		k, "zstd:level=-99999999999999999999999",
		"'zstd:level=-99999999999999999999999': level is out of range -131072 "
		"to 131072");
	check_global_kv_error(k, "0:level=1", "'0:level=1': priority 0 is out of range 1-3");
	check_global_kv_error(k, "4:level=1", "'4:level=1': priority 4 is out of range 1-3");
	check_global_kv_error(k, "ZSTD:level=1",
			      "'ZSTD:level=1': 'ZSTD' is not a valid algorithm name");
	check_global_kv_error(k,
			      "1:level=1 1:level=2 1:level=3 1:level=4 1:level=5 1:level=6 "
			      "1:level=7",
			      "more than 6 tokens");
}

static void test_params_unknown_name(void **state)
{
	check_one_error(
		"[global]\n"
		"algorithm-params = deflate:level=9\n",
		"2: key 'algorithm-params': 'deflate' is not in recompress-algorithms (zstd) of "
		"[global]");
	check_one_error("[global]\n"
			"recompress-algorithms = zstd deflate\n"
			"algorithm-params = 3:level=9\n",
			"3: key 'algorithm-params': priority 3 is not configured: "
			"recompress-algorithms (zstd deflate) of [global] has 2 algorithms");
	check_one_error("[global]\n"
			"algorithm-params = 2:level=9\n",
			"2: key 'algorithm-params': priority 2 is not configured: "
			"recompress-algorithms (zstd) of [global] has 1 algorithm");
}

static void test_params_follow_section_algorithms(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config d;

	/* Inherited tokens resolve against the section's own list, by name. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "algorithm-params = zstd:level=9\n"
				  "[zram0]\n"
				  "recompress-algorithms = deflate zstd\n"),
			 0);
	config_effective(&c, 0, &d);
	assert_int_equal(d.n_algos, 2);
	assert_false(d.has_level[0]);
	assert_true(d.has_level[1]);
	assert_int_equal(d.level[1], 9);
	assert_int_equal(d.set, CFG_K_ALGOS);
	config_effective(&c, 1, &d);
	assert_true(d.has_level[0]);
	assert_int_equal(d.level[0], 9);

	/* A section's own tokens are stored resolved as well. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = zstd deflate\n"
				  "[zram4]\n"
				  "algorithm-params = deflate:level=7\n"),
			 0);
	assert_int_equal(c.n_sections, 1);
	assert_false(c.sections[0].cfg.has_level[0]);
	assert_true(c.sections[0].cfg.has_level[1]);
	assert_int_equal(c.sections[0].cfg.level[1], 7);
	assert_false(c.global.has_level[1]);

	/* The inherited name is missing from the section's list: [global]'s line, [zram3]. */
	check_one_error(
		"[global]\n"
		"recompress-algorithms = zstd deflate\n"
		"algorithm-params = deflate:level=9\n"
		"[zram3]\n"
		"recompress-algorithms = zstd\n",
		"3: key 'algorithm-params': 'deflate' is not in recompress-algorithms (zstd) of "
		"[zram3]");
	/* A section's own tokens resolve against the inherited list. */
	check_one_error("[global]\n"
			"[zram2]\n"
			"algorithm-params = 2:level=1\n",
			"3: key 'algorithm-params': priority 2 is not configured: "
			"recompress-algorithms (zstd) of [zram2] has 1 algorithm");
	config_free(&c);
}

static void test_passes(void **state)
{
	struct config c = { 0 };

	load_global_kv(&c, "passes", "huge");
	assert_int_equal(c.global.n_passes, 1);
	assert_int_equal(c.global.passes[0], PASS_HUGE);
	load_global_kv(&c, "passes", "huge idle huge_idle");
	assert_int_equal(c.global.n_passes, 3);
	assert_int_equal(c.global.passes[0], PASS_HUGE);
	assert_int_equal(c.global.passes[1], PASS_IDLE);
	assert_int_equal(c.global.passes[2], PASS_HUGE_IDLE);

	check_global_kv_error("passes", "idel",
			      "'idel' is not a pass type (huge_idle, idle, huge)");
	check_global_kv_error("passes", "idle idle", "'idle' is listed twice");
	check_global_kv_error("passes", "", "empty value (at least one of huge_idle, idle, huge)");
	check_global_kv_error("passes", "idle,huge",
			      "'idle,huge' is not a pass type (huge_idle, idle, huge)");
	check_global_kv_error("passes", "all", "'all' is not a pass type (huge_idle, idle, huge)");
	config_free(&c);
}

static void test_threshold(void **state)
{
	struct config c = { 0 };

	load_global_kv(&c, "threshold-bytes", "4095");
	assert_int_equal(c.global.threshold_bytes, 4095);
	load_global_kv(&c, "threshold-bytes", "010");
	assert_int_equal(c.global.threshold_bytes, 10);
	load_global_kv(&c, "threshold-bytes", "0");
	assert_int_equal(c.global.threshold_bytes, 0);
	assert_true(c.global.set & CFG_K_THRESHOLD);

	/* the bound is this kernel's page size: the figures below are those of 4 KiB pages */
	if (sysconf(_SC_PAGESIZE) != 4096)
		skip();
	check_global_kv_error("threshold-bytes", "4096",
			      "'4096' is out of range 0-4095 (the kernel requires threshold < "
			      "huge_class_size, which is below the page size)");
	check_global_kv_error(
		"threshold-bytes", "99999999999999999999999",
		"'99999999999999999999999' is out of range 0-4095 (the kernel requires "
		"threshold < huge_class_size, which is below the page size)");
#define NOT_SIZE "is not a size (bytes, or a number with K, M, G or T, 1024-based: 64M, 1G)"
	check_global_kv_error("threshold-bytes", "-1", "'-1' " NOT_SIZE);
	check_global_kv_error("threshold-bytes", "+1", "'+1' " NOT_SIZE);
	/* Binary suffixes as systemd's: K, not k; KiB too; never KB (1000 or 1024?). */
	check_global_kv_error("threshold-bytes", "2k", "'2k' " NOT_SIZE);
	check_global_kv_error("threshold-bytes", "2KB", "'2KB' " NOT_SIZE);
	check_global_kv_error("threshold-bytes", "0x10", "'0x10' " NOT_SIZE);
	check_global_kv_error("threshold-bytes", "1 2", "'1 2' " NOT_SIZE);
	check_global_kv_error("threshold-bytes", "1.5", "'1.5' " NOT_SIZE);
	check_global_kv_error("threshold-bytes", "4K",
			      "'4K' is out of range 0-4095 (the kernel requires threshold < "
			      "huge_class_size, which is below the page size)");
	check_global_kv_error("threshold-bytes", "", "empty value");
	load_global_kv(&c, "threshold-bytes", "3K");
	assert_int_equal(c.global.threshold_bytes, 3072);
	load_global_kv(&c, "threshold-bytes", "1.5KiB");
	assert_int_equal(c.global.threshold_bytes, 1536);
	load_global_kv(&c, "threshold-bytes", "2048B");
	assert_int_equal(c.global.threshold_bytes, 2048);
#undef NOT_SIZE
	config_free(&c);
}

static void test_batch_and_pass_pages(void **state)
{
	struct config c = { 0 };

	load_global_kv(&c, "max-pages-per-batch", "1");
	assert_int_equal(c.global.max_pages_per_batch, 1);
	load_global_kv(&c, "max-pages-per-batch", "4294967296");
	assert_int_equal(c.global.max_pages_per_batch, UINT64_C(4294967296));
	check_global_kv_error("max-pages-per-batch", "0", "'0' is out of range 1-4294967296");
	check_global_kv_error("max-pages-per-batch", "4294967297",
			      "'4294967297' is out of range 1-4294967296");

	load_global_kv(&c, "max-pages-per-pass", "0");
	assert_int_equal(c.global.max_pages_per_pass, 0);
	load_global_kv(&c, "max-pages-per-pass", "1099511627776");
	assert_int_equal(c.global.max_pages_per_pass, UINT64_C(1099511627776));
	check_global_kv_error("max-pages-per-pass", "1099511627777",
			      "'1099511627777' is out of range 0-1099511627776");
	check_global_kv_error("max-pages-per-pass", "1e6", "'1e6' is not a decimal number");
	config_free(&c);
}

static void test_idle_ages(void **state)
{
	struct config c = { 0 };

	load_global_kv(&c, "idle-age-min-sec", "0");
	assert_int_equal(c.global.idle_age_min_sec, 0);
	load_global_kv(&c, "idle-age-max-sec", "31536000");
	assert_int_equal(c.global.idle_age_max_sec, 31536000);
	check_global_kv_error("idle-age-min-sec", "31536001",
			      "'31536001' is out of range 0-31536000");
	check_global_kv_error("idle-age-max-sec", "31536001",
			      "'31536001' is out of range 0-31536000");
	check_global_kv_error("idle-age-max-sec", "1 hour ago",
			      "'1 hour ago' is not a duration (seconds, or with ms, s, min, h or d: "
			      "90s, 5min, 1h 30min)");
	check_global_kv_error("idle-age-max-sec", "1h 30", "'1h 30' is not a duration (seconds, "
			      "or with ms, s, min, h or d: 90s, 5min, 1h 30min)");
	check_global_kv_error("idle-age-min-sec", "1.0001s",
			      "'1.0001s' is not a whole number of seconds");
	check_global_kv_error("idle-age-max-sec", "366d", "'366d' is out of range 0-365d");
	load_global_kv(&c, "idle-age-max-sec", "1h");
	assert_int_equal(c.global.idle_age_max_sec, 3600);
	load_global_kv(&c, "idle-age-max-sec", "1h 30min 15s");
	assert_int_equal(c.global.idle_age_max_sec, 5415);
	load_global_kv(&c, "idle-age-max-sec", "1.5h");
	assert_int_equal(c.global.idle_age_max_sec, 5400);
	load_global_kv(&c, "idle-age-max-sec", "7200000ms");
	assert_int_equal(c.global.idle_age_max_sec, 7200);
	load_global_kv(&c, "idle-age-max-sec", "0");
	/* 31536000 > default max 14400, but max = 0 ("all") disables the check. */
	load_global_kv(&c, "idle-age-min-sec", "14400");
	assert_int_equal(c.global.idle_age_min_sec, 14400);
	config_free(&c);
}

static void test_compact(void **state)
{
	struct config c = { 0 };

	load_global_kv(&c, "compact", "always");
	assert_int_equal(c.global.compact, COMPACT_ALWAYS);
	load_global_kv(&c, "compact", "never");
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	load_global_kv(&c, "compact", "auto");
	assert_int_equal(c.global.compact, COMPACT_AUTO);
	check_global_kv_error("compact", "sometimes",
			      "'sometimes' is not one of auto, always, never");
	check_global_kv_error("compact", "Always", "'Always' is not one of auto, always, never");
	check_global_kv_error("compact", "", "empty value (auto, always or never)");
	config_free(&c);
}

static void test_age_min_greater_than_max(void **state)
{
	struct config c = { 0 };
	struct config_errors e;

	/* The key set last is named. */
	check_one_error("[global]\n"
			"idle-age-max-sec = 600\n"
			"idle-age-min-sec = 1200\n",
			"3: key 'idle-age-min-sec': idle-age-min-sec (1200) is greater than "
			"idle-age-max-sec (600) in [global]");
	check_one_error("[global]\n"
			"idle-age-min-sec = 20000\n",
			"2: key 'idle-age-min-sec': idle-age-min-sec (20000) is greater than "
			"idle-age-max-sec (4h) in [global]");
	/* A value is shown as it was written: with its unit, or plain. */
	check_one_error("[global]\n"
			"idle-age-max-sec = 1h 30min\n"
			"idle-age-min-sec = 100min\n",
			"3: key 'idle-age-min-sec': idle-age-min-sec (1h 40min) is greater than "
			"idle-age-max-sec (1h 30min) in [global]");
	check_one_error("[global]\n"
			"idle-age-min-sec = 100\n"
			"[zram1]\n"
			"idle-age-max-sec = 60\n",
			"4: key 'idle-age-max-sec': idle-age-min-sec (100) is greater than "
			"idle-age-max-sec (60) in [zram1]");
	/* Equal is fine, and so is max = 0. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "idle-age-min-sec = 600\n"
				  "idle-age-max-sec = 600\n"
				  "[zram0]\n"
				  "idle-age-min-sec = 90000\n"
				  "idle-age-max-sec = 0\n"),
			 0);
	config_free(&c);
}

static void test_age_check_after_all_files(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	/* The main file alone would be invalid; the drop-in fixes it: checked only at the end. */
	put("etc/zram-recompd.conf", "[global]\n\nidle-age-min-sec = 20000\n");
	put("usr/lib/zram-recompd.conf.d/10-max.conf", "[global]\nidle-age-max-sec = 30000\n");
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(c.global.idle_age_min_sec, 20000);
	assert_int_equal(c.global.idle_age_max_sec, 30000);

	/* Conflict across files: the later file's key is named, though on an earlier line. */
	write_file("usr/lib/zram-recompd.conf.d/10-max.conf",
		   "[global]\nidle-age-max-sec = 10000\n");
	assert_int_equal(load_tree(&c, NULL, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want),
		 "%s:2: key 'idle-age-max-sec': idle-age-min-sec (20000) is greater than "
		 "idle-age-max-sec (10000) in [global]",
		 tpath("usr/lib/zram-recompd.conf.d/10-max.conf"));
	assert_string_equal(e.msg[0], want);
	config_free(&c);
}

static void test_device_overrides(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config d;

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "passes = idle\n"
				  "compact = always\n"
				  "[zram0]\n"
				  "compact = never\n"
				  "max-pages-per-batch = 100\n"
				  "[zram2]\n"
				  "threshold-bytes = 2000\n"
				  "[zram0]\n"
				  "max-pages-per-batch = 200\n"
				  "[global]\n"
				  "passes = huge\n"),
			 0);
	assert_int_equal(c.n_sections, 2);

	config_effective(&c, 0, &d);
	assert_int_equal(d.compact, COMPACT_NEVER);
	assert_int_equal(d.max_pages_per_batch, 200); /* later line wins, sections merge */
	assert_int_equal(d.n_passes, 1);
	assert_int_equal(d.passes[0], PASS_HUGE); /* inherited from [global], last value */
	assert_int_equal(d.threshold_bytes, 0);
	assert_int_equal(d.set, CFG_K_COMPACT | CFG_K_BATCH);
	assert_int_equal(d.origin[4].line, 10);

	config_effective(&c, 2, &d);
	assert_int_equal(d.compact, COMPACT_ALWAYS);
	assert_int_equal(d.max_pages_per_batch, 2048);
	assert_int_equal(d.threshold_bytes, 2000);
	assert_int_equal(d.set, CFG_K_THRESHOLD);

	config_effective(&c, 1, &d);
	assert_int_equal(d.compact, COMPACT_ALWAYS);
	assert_int_equal(d.threshold_bytes, 0);
	assert_int_equal(d.set, 0);
	/* Sections do not change the device selection. */
	assert_true(config_device_selected(&c, 5));
	config_free(&c);
}

static void test_invalid_value_keeps_previous(void **state)
{
	struct config c = { 0 };
	struct config_errors e;

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "max-pages-per-batch = 77\n"
				  "max-pages-per-batch = 0\n"
				  "[zram0]\n"
				  "compact = bogus\n"),
			 -EINVAL);
	assert_int_equal(e.n, 2);
	assert_int_equal(c.global.max_pages_per_batch, 77);
	/* A section whose only key failed overrides nothing. */
	assert_int_equal(c.n_sections, 1);
	assert_int_equal(c.sections[0].cfg.set, 0);
	config_free(&c);
}

static void test_dropin_order(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_files f;
	struct dev_config d;

	put("etc/zram-recompd.conf", "[global]\nthreshold-bytes = 100\nmax-pages-per-batch = 10\n");
	/* Written in reverse order, so directory order is unlikely to be sorted by accident. */
	put("etc/zram-recompd.conf.d/20-b.conf",
	    "[global]\nmax-pages-per-batch = 30\n[zram0]\ncompact = never\n");
	put("etc/zram-recompd.conf.d/10-a.conf",
	    "[global]\nmax-pages-per-batch = 20\ncompact = always\n");
	/* Ignored: other suffixes, dotfiles, directories, FIFOs (listed as skipped, but for the
	 * dotfiles); a link to /dev/null masks. */
	put("etc/zram-recompd.conf.d/30-c.conf.bak", "[global]\nmax-pages-per-batch = 99\n");
	put("etc/zram-recompd.conf.d/README", "garbage\n");
	put("etc/zram-recompd.conf.d/.40-hidden.conf", "[global]\nmax-pages-per-batch = 98\n");
	put("etc/zram-recompd.conf.d/conf", "[global]\nmax-pages-per-batch = 97\n");
	assert_int_equal(mkdir(tpath("etc/zram-recompd.conf.d/50-dir.conf"), 0755), 0);
	assert_int_equal(mkfifo(tpath("etc/zram-recompd.conf.d/55-fifo.conf"), 0644), 0);
	assert_int_equal(symlink("/dev/null", tpath("etc/zram-recompd.conf.d/60-masked.conf")), 0);

	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(e.n, 0);
	assert_string_equal(
		files_str(&f),
		"read /etc/zram-recompd.conf\n"
		"read /etc/zram-recompd.conf.d/10-a.conf\n"
		"read /etc/zram-recompd.conf.d/20-b.conf\n"
		"skipped /etc/zram-recompd.conf.d/30-c.conf.bak (only *.conf names are read)\n"
		"skipped /etc/zram-recompd.conf.d/50-dir.conf (not a regular file)\n"
		"skipped /etc/zram-recompd.conf.d/55-fifo.conf (not a regular file)\n"
		"masked /etc/zram-recompd.conf.d/60-masked.conf\n"
		"skipped /etc/zram-recompd.conf.d/README (only *.conf names are read)\n"
		"skipped /etc/zram-recompd.conf.d/conf (only *.conf names are read)\n");
	assert_int_equal(c.global.threshold_bytes, 100);
	assert_int_equal(c.global.max_pages_per_batch, 30);
	assert_int_equal(c.global.compact, COMPACT_ALWAYS);
	config_effective(&c, 0, &d);
	assert_int_equal(d.compact, COMPACT_NEVER);
	/* Origins count files in load order: 0 main, 1 10-a, 2 20-b. */
	assert_int_equal(c.global.origin[4].file, 2);
	assert_int_equal(c.global.origin[4].line, 2);
	assert_int_equal(c.global.origin[3].file, 0);
	assert_int_equal(c.global.origin[8].file, 1);

	/* Drop-ins alone (no main file), and errors name the drop-in. */
	assert_int_equal(unlink(tpath("etc/zram-recompd.conf")), 0);
	put("etc/zram-recompd.conf.d/15-bad.conf", "[global]\ncompact = x\n");
	assert_int_equal(load_tree(&c, NULL, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	assert_non_null(strstr(e.msg[0], "/etc/zram-recompd.conf.d/15-bad.conf:2: key 'compact': "
					 "'x' is not one of"));
	assert_int_equal(c.global.threshold_bytes, 0);
	assert_int_equal(c.global.max_pages_per_batch, 30);
	config_free(&c);
}

static void test_dropin_many_sorted(void **state)
{
	static const char *const names[] = {"5.conf",  "10.conf",   "a.conf", "9.conf",
					    "B.conf",  "00-x.conf", "1.conf", "zz.conf",
					    "99.conf", "50.conf",   "Z.conf", "0.conf"};
	static const char *const dirs[] = {"etc", "run", "usr/local/lib", "usr/lib"};
	struct config c = { 0 };
	struct config_errors e;
	char rel[128], body[64];

	/*
	 * strcmp order: 0 00-x 1 10 5 50 9 99 B Z a zz; each sets its creation index. The
	 * files are spread over the four directories: the order is by name alone.
	 */
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(rel, sizeof(rel), "%s/zram-recompd.conf.d/%s", dirs[i % 4], names[i]);
		snprintf(body, sizeof(body), "[global]\nmax-pages-per-batch = %u\n", i + 1);
		put(rel, body);
	}
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 8); /* zz.conf */
	assert_int_equal(c.global.origin[4].file, ARRAY_SIZE(names));

	/* Uppercase sorts before lowercase, "9.conf" after "10.conf" and "99.conf". */
	assert_int_equal(unlink(tpath("usr/lib/zram-recompd.conf.d/zz.conf")), 0);
	assert_int_equal(unlink(tpath("usr/local/lib/zram-recompd.conf.d/a.conf")), 0);
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 11); /* Z.conf */
	assert_int_equal(unlink(tpath("usr/local/lib/zram-recompd.conf.d/Z.conf")), 0);
	assert_int_equal(unlink(tpath("etc/zram-recompd.conf.d/B.conf")), 0);
	assert_int_equal(unlink(tpath("etc/zram-recompd.conf.d/99.conf")), 0);
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 4); /* 9.conf */
	config_free(&c);
}

static void test_config_load_resets(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_source src = {.file = write_file("r.conf", "[global]\ncompact = never\n")};

	reinit(&c);
	c.global.max_pages_per_batch = 5;
	c.devices_all = false;
	assert_int_equal(config_load(fresh(&c), &src, NULL, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 2048);
	assert_true(c.devices_all);
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	c.global.max_pages_per_batch = 5;
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 2048);
	assert_int_equal(c.global.compact, COMPACT_AUTO);
	config_free(&c);
}

static void test_unreadable(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	/* A directory where the main file should be. */
	mkdirs("etc/zram-recompd.conf");
	assert_int_equal(load_tree(&c, NULL, &e), -EISDIR);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s: is a directory", tpath("etc/zram-recompd.conf"));
	assert_string_equal(e.msg[0], want);
	assert_int_equal(rmdir(tpath("etc/zram-recompd.conf")), 0);

	/* A file where the drop-in directory should be; the main file still loads. */
	put("run/zram-recompd.conf", "[global]\ncompact = never\n");
	put("usr/lib/zram-recompd.conf.d", "x\n");
	assert_int_equal(load_tree(&c, NULL, &e), -ENOTDIR);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s: cannot open drop-in directory: Not a directory",
		 tpath("usr/lib/zram-recompd.conf.d"));
	assert_string_equal(e.msg[0], want);
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	config_free(&c);
}

/* The search path: the four directories under the root, SYSCONFDIR first if not /etc. */
static void test_search_dirs(void **state)
{
	static const char *const want[] = {"/etc", "/run", "/usr/local/lib", "/usr/lib"};
	static struct config_source src;
	static char root[PATH_MAX + 8];
	char buf[PATH_MAX + 32];
	unsigned first = strcmp(SYSCONFDIR, "/etc") != 0;

	for (unsigned pass = 0; pass < 3; pass++) {
		/* NULL and "" are /; trailing slashes of a root do not double. */
		const char *r = pass == 0 ? NULL : pass == 1 ? "" : "/x/y//";
		const char *pre = pass == 2 ? "/x/y" : "";

		assert_int_equal(config_source_search(&src, r), 0);
		assert_null(src.file);
		assert_int_equal(src.n_dirs, first + 4);
		if (first) {
			snprintf(buf, sizeof(buf), "%s%s", pre, SYSCONFDIR);
			assert_string_equal(src.dirs[0], buf);
		}
		for (unsigned i = 0; i < 4; i++) {
			snprintf(buf, sizeof(buf), "%s%s", pre, want[i]);
			assert_string_equal(src.dirs[first + i], buf);
		}
	}
	memset(root, 'a', sizeof(root) - 1);
	root[0] = '/';
	assert_int_equal(config_source_search(&src, root), -ENAMETOOLONG);
}

/* The main file of the first directory that has one counts; the others are not read. */
static void test_search_first_found_wins(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_files f;

	/* Broken on purpose: reading it would be an error. */
	put("usr/lib/zram-recompd.conf", "[global]\ncompact = sometimes\n");
	put("usr/local/lib/zram-recompd.conf", "[global]\nmax-pages-per-batch = 5\n");
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 5);
	assert_string_equal(files_str(&f), "read /usr/local/lib/zram-recompd.conf\n"
					   "overridden /usr/lib/zram-recompd.conf\n");

	put("run/zram-recompd.conf", "[global]\nmax-pages-per-batch = 7\n");
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 7);

	put("etc/zram-recompd.conf", "[global]\ncompact = never\n");
	assert_int_equal(load_tree(&c, &f, &e), 0);
	/* Nothing of the others: the first file replaces them whole, it does not merge. */
	assert_int_equal(c.global.max_pages_per_batch, 2048);
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	assert_string_equal(files_str(&f), "read /etc/zram-recompd.conf\n"
					   "overridden /run/zram-recompd.conf\n"
					   "overridden /usr/local/lib/zram-recompd.conf\n"
					   "overridden /usr/lib/zram-recompd.conf\n");

	/* A main file linked to /dev/null, or empty, masks: the defaults, nothing else read. */
	assert_int_equal(unlink(tpath("etc/zram-recompd.conf")), 0);
	assert_int_equal(symlink("/dev/null", tpath("etc/zram-recompd.conf")), 0);
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 2048);
	assert_int_equal(c.global.compact, COMPACT_AUTO);
	assert_string_equal(files_str(&f), "masked /etc/zram-recompd.conf\n"
					   "overridden /run/zram-recompd.conf\n"
					   "overridden /usr/local/lib/zram-recompd.conf\n"
					   "overridden /usr/lib/zram-recompd.conf\n"
					   "no configuration file read: built-in defaults\n");
	assert_int_equal(unlink(tpath("etc/zram-recompd.conf")), 0);
	put("run/zram-recompd.conf", "");
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 2048);
	assert_string_equal(files_str(&f), "masked /run/zram-recompd.conf\n"
					   "overridden /usr/local/lib/zram-recompd.conf\n"
					   "overridden /usr/lib/zram-recompd.conf\n"
					   "no configuration file read: built-in defaults\n");
	config_free(&c);
}

/* Drop-ins of all four directories merge by name; later names override earlier ones. */
static void test_search_dropin_merge(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_files f;
	struct dev_config d;

	put("usr/lib/zram-recompd.conf", "[global]\ncompact = never\nmax-pages-per-batch = 1\n");
	put("usr/lib/zram-recompd.conf.d/10-vendor.conf",
	    "[global]\nmax-pages-per-batch = 10\n[zram0]\ninterval-sec = 60\n");
	put("run/zram-recompd.conf.d/20-runtime.conf", "[global]\nmax-pages-per-batch = 20\n");
	put("etc/zram-recompd.conf.d/15-admin.conf",
	    "[zram0]\ncompact = always\ninterval-sec = 30\n");
	put("usr/local/lib/zram-recompd.conf.d/05-local.conf", "[global]\nthreshold-bytes = 100\n");
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_string_equal(files_str(&f), "read /usr/lib/zram-recompd.conf\n"
					   "read /usr/local/lib/zram-recompd.conf.d/05-local.conf\n"
					   "read /usr/lib/zram-recompd.conf.d/10-vendor.conf\n"
					   "read /etc/zram-recompd.conf.d/15-admin.conf\n"
					   "read /run/zram-recompd.conf.d/20-runtime.conf\n");
	assert_int_equal(c.global.compact, COMPACT_NEVER);  /* main file */
	assert_int_equal(c.global.threshold_bytes, 100);    /* 05 */
	assert_int_equal(c.global.max_pages_per_batch, 20); /* 20 over 10 over main */
	assert_int_equal(c.global.origin[4].file, 4);	    /* 20-runtime.conf */
	config_effective(&c, 0, &d);
	assert_int_equal(d.compact, COMPACT_ALWAYS); /* [zram0] of 15 */
	assert_int_equal(d.interval_sec, 30);	     /* 15's [zram0] over 10's */
	assert_int_equal(d.origin[9].file, 3);
	config_effective(&c, 1, &d);
	assert_int_equal(d.compact, COMPACT_NEVER);
	assert_int_equal(d.interval_sec, 300);
	config_free(&c);
}

/* A drop-in in an earlier directory replaces the one of the same name in a later one. */
static void test_search_mask_by_name(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_files f;

	/* Broken on purpose: reading them would be an error. */
	put("usr/lib/zram-recompd.conf.d/50-x.conf", "[global]\ncompact = sometimes\n");
	put("run/zram-recompd.conf.d/50-x.conf", "[global]\npasses = idel\n");
	put("etc/zram-recompd.conf.d/50-x.conf", "[global]\nmax-pages-per-batch = 11\n");
	put("usr/lib/zram-recompd.conf.d/60-y.conf", "[global]\nidle-age-min-sec = 60\n");
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.global.max_pages_per_batch, 11);
	assert_int_equal(c.global.idle_age_min_sec, 60);
	assert_string_equal(files_str(&f), "read /etc/zram-recompd.conf.d/50-x.conf\n"
					   "overridden /run/zram-recompd.conf.d/50-x.conf\n"
					   "overridden /usr/lib/zram-recompd.conf.d/50-x.conf\n"
					   "read /usr/lib/zram-recompd.conf.d/60-y.conf\n");

	/* Without the /etc one, /run's counts (and is read: its error is reported). */
	assert_int_equal(unlink(tpath("etc/zram-recompd.conf.d/50-x.conf")), 0);
	assert_int_equal(load_tree(&c, NULL, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	assert_non_null(strstr(e.msg[0], "/run/zram-recompd.conf.d/50-x.conf:2: key 'passes'"));
	config_free(&c);
}

/* A link to /dev/null or an empty file masks a name: nothing of that name is read. */
static void test_search_mask_dev_null(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_files f;

	put("usr/lib/zram-recompd.conf.d/50-x.conf", "[global]\ncompact = sometimes\n");
	put("usr/lib/zram-recompd.conf.d/60-y.conf", "[global]\npasses = idel\n");
	put("usr/lib/zram-recompd.conf.d/70-z.conf", "[global]\nmax-pages-per-batch = 70\n");
	mkdirs("etc/zram-recompd.conf.d");
	assert_int_equal(symlink("/dev/null", tpath("etc/zram-recompd.conf.d/50-x.conf")), 0);
	put("run/zram-recompd.conf.d/60-y.conf", "");
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.global.compact, COMPACT_AUTO);
	assert_int_equal(c.global.max_pages_per_batch, 70);
	assert_string_equal(files_str(&f), "masked /etc/zram-recompd.conf.d/50-x.conf\n"
					   "overridden /usr/lib/zram-recompd.conf.d/50-x.conf\n"
					   "masked /run/zram-recompd.conf.d/60-y.conf\n"
					   "overridden /usr/lib/zram-recompd.conf.d/60-y.conf\n"
					   "read /usr/lib/zram-recompd.conf.d/70-z.conf\n");

	/* An /etc file of the name beats a mask in a later directory. */
	put("etc/zram-recompd.conf.d/60-y.conf", "[global]\nmax-pages-per-batch = 60\n");
	put("etc/zram-recompd.conf.d/70-z.conf", "[global]\ncompact = never\n");
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	/* 60 of /etc's 60-y over the mask in /run; /usr/lib's 70-z (70) is not read. */
	assert_int_equal(c.global.max_pages_per_batch, 60);
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	config_free(&c);
}

/*
 * A dangling symlink hides nothing (issue 25, item 7): systemd's conf-files logic drops a
 * link that does not resolve, so the file of that name in a later directory counts, for the
 * main file as for a drop-in. The link is listed as such, for the caller's warning.
 */
static void test_search_dangling_link(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_files f;

	put("usr/lib/zram-recompd.conf", "[global]\nmax-pages-per-batch = 9\n");
	put("usr/lib/zram-recompd.conf.d/50-x.conf", "[global]\nidle-age-min-sec = 50\n");
	mkdirs("etc/zram-recompd.conf.d");
	assert_int_equal(symlink("/nonexistent/main.conf", tpath("etc/zram-recompd.conf")), 0);
	assert_int_equal(symlink("/nonexistent/50-x.conf", tpath("etc/zram-recompd.conf.d/50-x.conf")),
			 0);
	assert_int_equal(load_tree(&c, &f, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.global.max_pages_per_batch, 9);
	assert_int_equal(c.global.idle_age_min_sec, 50);
	assert_string_equal(files_str(&f), "dangling /etc/zram-recompd.conf\n"
					   "read /usr/lib/zram-recompd.conf\n"
					   "dangling /etc/zram-recompd.conf.d/50-x.conf\n"
					   "read /usr/lib/zram-recompd.conf.d/50-x.conf\n");
	config_files_free(&f);
	config_free(&c);
}

/* A broken or unreadable drop-in is an error naming it, with its line. */
static void test_search_broken_dropin(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	put("etc/zram-recompd.conf", "[global]\nmax-pages-per-batch = 5\n");
	put("run/zram-recompd.conf.d/30-bad.conf", "[global]\n\ncompact = x\n");
	assert_int_equal(load_tree(&c, NULL, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s:3: key 'compact': 'x' is not one of auto, always, never",
		 tpath("run/zram-recompd.conf.d/30-bad.conf"));
	assert_string_equal(e.msg[0], want);
	/* What parsed is there (the caller decides: the daemon keeps its previous one). */
	assert_int_equal(c.global.max_pages_per_batch, 5);
	assert_int_equal(unlink(tpath("run/zram-recompd.conf.d/30-bad.conf")), 0);

	/* Symlinks on the search path are followed (as systemd does): a linked drop-in counts. */
	put("linked.conf", "[global]\nmax-pages-per-batch = 7\n");
	assert_int_equal(symlink(tpath("linked.conf"), tpath("run/zram-recompd.conf.d/40-link.conf")),
			 0);
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.global.max_pages_per_batch, 7);
	assert_int_equal(unlink(tpath("run/zram-recompd.conf.d/40-link.conf")), 0);

	/* A dangling one is absent, and a symlinked main file is read. */
	assert_int_equal(symlink("/nonexistent", tpath("run/zram-recompd.conf.d/40-link.conf")), 0);
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.global.max_pages_per_batch, 5);
	assert_int_equal(unlink(tpath("run/zram-recompd.conf.d/40-link.conf")), 0);
	assert_int_equal(rename(tpath("etc/zram-recompd.conf"), tpath("real.conf")), 0);
	assert_int_equal(symlink(tpath("real.conf"), tpath("etc/zram-recompd.conf")), 0);
	assert_int_equal(load_tree(&c, NULL, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.global.max_pages_per_batch, 5);
	assert_int_equal(unlink(tpath("etc/zram-recompd.conf")), 0);
	assert_int_equal(rename(tpath("real.conf"), tpath("etc/zram-recompd.conf")), 0);

	/* Unreadable (root reads it all the same: checked only as another user). */
	if (geteuid() != 0) {
		put("run/zram-recompd.conf.d/50-secret.conf", "[global]\n");
		assert_int_equal(chmod(tpath("run/zram-recompd.conf.d/50-secret.conf"), 0), 0);
		assert_int_equal(load_tree(&c, NULL, &e), -EACCES);
		snprintf(want, sizeof(want), "%s: cannot open: Permission denied",
			 tpath("run/zram-recompd.conf.d/50-secret.conf"));
		assert_int_equal(e.n, 1);
		assert_string_equal(e.msg[0], want);
	}
	config_free(&c);
}

/* --config FILE: that file only; neither FILE.d nor the search path. */
static void test_config_file_ignores_search(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct config_files f;
	struct config_source src = {0};
	char want[512];

	put("etc/zram-recompd.conf", "[global]\ncompact = never\n");
	put("etc/zram-recompd.conf.d/10-a.conf", "[global]\nthreshold-bytes = 100\n");
	put("only.conf.d/10-a.conf", "[global]\nthreshold-bytes = 200\n");
	src.file = put("only.conf", "[global]\nmax-pages-per-batch = 9\n");
	/* Even with the search path filled in: file wins. */
	assert_int_equal(config_source_search(&src, tmpdir), 0);
	src.file = tpath("only.conf");
	assert_int_equal(config_load(fresh(&c), &src, &f, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 9);
	assert_int_equal(c.global.threshold_bytes, 0);
	assert_int_equal(c.global.compact, COMPACT_AUTO);
	assert_string_equal(files_str(&f), "read /only.conf\n");

	/* A missing FILE is an error (the daemon keeps its previous configuration). */
	src.file = tpath("gone.conf");
	assert_int_equal(config_load(fresh(&c), &src, &f, &e), -ENOENT);
	assert_int_equal(f.n, 0);
	config_files_free(&f);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory",
		 tpath("gone.conf"));
	assert_string_equal(e.msg[0], want);

	/* A FILE given on the command line may be a symlink. */
	assert_int_equal(symlink(tpath("only.conf"), tpath("link.conf")), 0);
	src.file = tpath("link.conf");
	assert_int_equal(config_load(fresh(&c), &src, NULL, &e), 0);
	assert_int_equal(c.global.max_pages_per_batch, 9);
	config_free(&c);
}

static void test_unknown_section(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	check_one_error("[global]\n[foo]\nx = 1\ny = 2\n",
			"2: unknown section [foo] (expected [global] or [zramN])");
	check_one_error("[zram01]\ncompact = never\n",
			"1: unknown section [zram01] (expected [global] or [zramN])");
	check_one_error("[zramx]\n", "1: unknown section [zramx] (expected [global] or [zramN])");
	check_one_error("[Global]\n", "1: unknown section [Global] (expected [global] or [zramN])");
	check_one_error("[zram1234567890]\n",
			"1: unknown section [zram1234567890] (expected [global] or [zramN])");
	/* Keys of a bad section are ignored; the next good section applies again. */
	assert_int_equal(load_str(&c, &e, "[zram]\ncompact = never\n[global]\ncompact = always\n"),
			 -EINVAL);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s:1: unknown section [zram] (expected [global] or [zramN])",
		 tpath("t.conf"));
	assert_string_equal(e.msg[0], want);
	assert_int_equal(c.global.compact, COMPACT_ALWAYS);
	assert_int_equal(c.n_sections, 0);
	config_free(&c);
}

static void test_unknown_key(void **state)
{
	check_one_error("[global]\ncompat = never\n",
			"2: unknown key 'compat' in section [global]; did you mean 'compact'?");
	check_one_error("[global]\nrecompress-algorithm = zstd\n",
			"2: unknown key 'recompress-algorithm' in section [global]; did you mean "
			"'recompress-algorithms'?");
	/* The name without its unit: the one key it begins. */
	check_one_error("[zram7]\nthreshold = 10\n",
			"2: unknown key 'threshold' in section [zram7]; did you mean "
			"'threshold-bytes'?");
	check_one_error("[global]\nCompact = never\n",
			"2: unknown key 'Compact' in section [global]; did you mean 'compact'?");
	/* Nothing close, or two keys as close: no guess. */
	check_one_error("[global]\nfoo = 1\n", "2: unknown key 'foo' in section [global]");
	check_one_error("[global]\nidle-age = 1\n",
			"2: unknown key 'idle-age' in section [global]");
	check_one_error("[global]\n= 1\n", "2: unknown key '' in section [global]");
}

static void test_key_placement(void **state)
{
	check_one_error("compact = never\n[global]\n",
			"1: key 'compact' is outside of any section (add [global] above it)");
	check_one_error("[zram0]\ndevices = zram0\n",
			"2: key 'devices' is only allowed in [global]");
}

static void test_devices(void **state)
{
	struct config c = { 0 };

	load_global_kv(&c, "devices", "zram0 zram2 zram10");
	assert_false(c.devices_all);
	assert_int_equal(c.n_devices, 3);
	assert_true(config_device_selected(&c, 0));
	assert_false(config_device_selected(&c, 1));
	assert_true(config_device_selected(&c, 2));
	assert_true(config_device_selected(&c, 10));
	load_global_kv(&c, "devices", "all");
	assert_true(c.devices_all);
	assert_int_equal(c.n_devices, 0);

	check_global_kv_error("devices", "sda", "'sda' is not a zram device name (zramN)");
	check_global_kv_error("devices", "zram01", "'zram01' is not a zram device name (zramN)");
	check_global_kv_error("devices", "/dev/zram0",
			      "'/dev/zram0' is not a zram device name (zramN)");
	check_global_kv_error("devices", "zram0 zram0", "'zram0' is listed twice");
	check_global_kv_error("devices", "all zram0", "'all' cannot be combined with device names");
	check_global_kv_error("devices", "", "empty value ('all' or a list of zramN names)");
	config_free(&c);
}

static void test_devices_last_wins(void **state)
{
	struct config c = { 0 };
	struct config_errors e;

	/* A repeated key replaces the list; it does not add to it. */
	assert_int_equal(load_str(&c, &e, "[global]\ndevices = zram3 zram4\ndevices = zram5\n"), 0);
	assert_int_equal(c.n_devices, 1);
	assert_int_equal(c.devices[0], 5);
	assert_false(config_device_selected(&c, 3));
	config_free(&c);
}

/* No cap on sections (was 64): 200 [zramN] sections, each with its own value. */
static void test_many_sections(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config d;

	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fprintf(f, "[zram%d]\nmax-pages-per-batch = %d\n", i, 1000 + i);
	/* past the 64 of old, as long as a line may be (199 characters) */
	fprintf(f, "[global]\ndevices =");
	for (int i = 64; i < 200; i += 8)
		fprintf(f, " zram%d", i);
	fprintf(f, " zram198\n");
	fclose(f);
	assert_int_equal(load_str(&c, &e, buf), 0);
	assert_int_equal(c.n_sections, 200);
	assert_int_equal(c.n_devices, 18);
	config_effective(&c, 199, &d);
	assert_int_equal(d.max_pages_per_batch, 1199);
	config_effective(&c, 64, &d);
	assert_int_equal(d.max_pages_per_batch, 1064);
	assert_true(config_device_selected(&c, 198));
	assert_false(config_device_selected(&c, 199));
	config_free(&c);
	assert_null(c.sections);
	assert_int_equal(c.n_sections, 0);
	free(buf);
	config_free(&c);
}

static void test_syntax_errors(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	check_one_error("[global]\nnonsense\n",
			"2: syntax error: expected [section], key = value or a comment");
	check_one_error("[global]\n[zram0\ncompact = never\n",
			"2: section header without closing ']'");
	/* The keys after a broken header are ignored, not given to the section before. */
	assert_int_equal(load_str(&c, &e, "[global]\n[zram0] x\ncompact = never\n"), -EINVAL);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s:2: syntax error: text after the section header",
		 tpath("t.conf"));
	assert_string_equal(e.msg[0], want);
	assert_int_equal(c.global.compact, COMPACT_AUTO);
	assert_int_equal(c.n_sections, 0);
	/* A comment may follow. */
	assert_int_equal(load_str(&c, &e, "[zram0] ; the swap device\ncompact = never\n"), 0);
	assert_int_equal(c.n_sections, 1);
	/* " ;" inside the brackets is part of the name: one error, not two. */
	check_one_error("[global ;]\n",
			"1: unknown section [global ;] (expected [global] or [zramN])");
	/* A value may also be given after ':' (as inih did); a bare word is not a key. */
	check_one_error("[global]\ncompact: never\nzstd\n",
			"3: syntax error: expected [section], key = value or a comment");
	/* Every bad line is reported, and good lines around them still apply. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "oops\n"
				  "compact = never\n"
				  "again\n"),
			 -EINVAL);
	assert_int_equal(e.n, 2);
	snprintf(want, sizeof(want),
		 "%s:4: syntax error: expected [section], key = value or a comment",
		 tpath("t.conf"));
	assert_string_equal(e.msg[1], want);
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	config_free(&c);
}

static void test_crlf_comments_indent(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config d;

	assert_int_equal(load_str(&c, &e,
				  "\xEF\xBB\xBF# leading comment\r\n"
				  "; another comment\r\n"
				  "\r\n"
				  "[global]\r\n"
				  "  passes = idle\r\n"
				  "\tcompact = never ; inline comment\r\n"
				  "max-pages-per-batch = 512 # hash comment\r\n"
				  "recompress-algorithms = zstd deflate\t\r\n"
				  "   # indented comment\r\n"
				  "  [zram1]  \r\n"
				  "threshold-bytes=1024\r\n"),
			 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.global.n_passes, 1);
	assert_int_equal(c.global.passes[0], PASS_IDLE);
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	assert_int_equal(c.global.max_pages_per_batch, 512);
	assert_int_equal(c.global.n_algos, 2);
	assert_string_equal(c.global.algos[1], "deflate");
	config_effective(&c, 1, &d);
	assert_int_equal(d.threshold_bytes, 1024);
	config_free(&c);
}

/* A line of 4096 characters with a long path of metrics-file; comment text fills it. */
static void long_line(char *buf, size_t chars, const char *path)
{
	size_t n = (size_t)sprintf(buf, "metrics-file = %s ;", path);

	memset(buf + n, 'x', chars - n);
	buf[chars] = '\0';
}

static void test_line_too_long(void **state)
{
	static char buf[8192], line[4200], path[256];
	struct config c = { 0 };
	struct config_errors e;
	char want[512];

	/* metrics-file's longest path (255 bytes) on a line of exactly 4096 characters. */
	memset(path, 'p', 255);
	memcpy(path, "/run/", 5);
	path[255] = '\0';
	long_line(line, 4096, path);
	snprintf(buf, sizeof(buf), "[global]\n%s\ncompact = never\n", line);
	assert_int_equal(load_str(&c, &e, buf), 0);
	assert_string_equal(c.metrics_file, path);
	assert_int_equal(c.global_origin[CFG_G_METRICS_FILE].line, 2);

	/* One more: an error, the rest of the line is skipped, the next counts as line 3. */
	long_line(line, 4097, "/run/m.prom");
	snprintf(buf, sizeof(buf), "[global]\n%s\ncompact = never\n", line);
	assert_int_equal(load_str(&c, &e, buf), -EINVAL);
	assert_int_equal(e.n, 1);
	snprintf(want, sizeof(want), "%s:2: line too long (more than 4096 characters)",
		 tpath("t.conf"));
	assert_string_equal(e.msg[0], want);
	assert_string_equal(c.metrics_file, "");
	assert_int_equal(c.global.compact, COMPACT_NEVER);
	assert_int_equal(c.global.origin[8].line, 3);

	/* The same as the last line, without a newline. */
	snprintf(buf, sizeof(buf), "[global]\n%s", line);
	assert_int_equal(load_str(&c, &e, buf), -EINVAL);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], want);
	config_free(&c);
}

static void test_error_overflow(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct config c = { 0 };
	struct config_errors e;

	assert_non_null(f);
	fputs("[global]\n", f);
	for (int i = 0; i < CFG_MAX_ERRORS + 8; i++)
		fputs("bogus = 1\n", f);
	fclose(f);
	assert_int_equal(load_str(&c, &e, buf), -EINVAL);
	assert_int_equal(e.n, CFG_MAX_ERRORS);
	assert_int_equal(e.dropped, 8);
	free(buf);
	config_free(&c);
}

static void test_daemon_keys(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config eff;

	(void)state;
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "metrics-file = /run/node/zram.prom\n"
				  "interval-sec = 1\n"
				  "priority-huge = 2\n"
				  "cold-idle-age-sec = 21600\n"
				  "defer-on-battery = no\n"
				  "compact-min-saved-bytes = 0\n"
				  "[zram3]\n"
				  "interval-sec = 60\n"
				  "pages-per-hour = 0\n"),
			 0);
	assert_string_equal(c.metrics_file, "/run/node/zram.prom");
	config_effective(&c, 3, &eff);
	assert_int_equal(eff.interval_sec, 60);
	assert_int_equal(eff.pages_per_hour, 0);
	assert_int_equal(eff.priority[PASS_HUGE], 2);
	assert_int_equal(eff.priority[PASS_IDLE], 0);
	assert_int_equal(eff.cold_idle_age_sec, 21600);
	assert_false(eff.defer_on_battery);
	assert_int_equal(eff.compact_min_saved_bytes, 0);
	config_effective(&c, 0, &eff);
	assert_int_equal(eff.interval_sec, 1);
	assert_int_equal(eff.pages_per_hour, 262144);

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "interval-sec = 0\n"
				  "priority-idle = 4\n"
				  "defer-on-battery = maybe\n"
				  "metrics-file = relative.prom\n"
				  "cpu-share-max-percent = 101\n"
				  "[zram0]\n"
				  "metrics-file = /x\n"),
			 -EINVAL);
	assert_int_equal(e.n, 6);
	assert_non_null(strstr(e.msg[0], ":2: key 'interval-sec': '0' is out of range 1-86400"));
	assert_non_null(strstr(e.msg[1], ":3: key 'priority-idle': '4' is out of range 0-3"));
	assert_non_null(strstr(e.msg[2], ":4: key 'defer-on-battery': 'maybe' is not one of yes, no"));
	assert_non_null(strstr(e.msg[3], ":5: key 'metrics-file': 'relative.prom' is not an absolute"));
	assert_non_null(strstr(e.msg[4], ":6: key 'cpu-share-max-percent': '101' is out of range"));
	assert_non_null(strstr(e.msg[5], ":8: key 'metrics-file' is only allowed in [global]"));
	config_free(&c);
}

/* Writeback keys: per-device override, the types in order, the backing-device path rules. */
static void test_writeback_keys(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config eff;

	(void)state;
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "writeback = yes\n"
				  "writeback-bytes-per-day = 8388608\n"
				  "[zram2]\n"
				  "writeback-types = huge idle\n"
				  "backing-device = /dev/loop0\n"
				  "compressed-writeback = yes\n"),
			 0);
	config_effective(&c, 2, &eff);
	assert_true(eff.writeback);
	assert_int_equal(eff.wb_bytes_per_day, 8388608);
	assert_int_equal(eff.wb_bytes_per_pass, 134217728);
	assert_int_equal(eff.n_wb_types, 2);
	assert_int_equal(eff.wb_types[0], WB_HUGE);
	assert_int_equal(eff.wb_types[1], WB_IDLE);
	assert_string_equal(eff.backing_device, "/dev/loop0");
	assert_true(eff.compressed_writeback);
	config_effective(&c, 0, &eff);
	assert_int_equal(eff.n_wb_types, 3);
	assert_int_equal(eff.wb_types[0], WB_INCOMPRESSIBLE);
	assert_int_equal(eff.wb_types[1], WB_HUGE_IDLE);
	assert_int_equal(eff.wb_types[2], WB_IDLE);
	assert_int_equal(eff.wb_idle_age_sec, 86400);
	assert_string_equal(eff.backing_device, "");
	assert_false(eff.compressed_writeback);

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "writeback-types = incompressible idel\n"
				  "writeback-types =\n"
				  "backing-device = loop0\n"
				  "backing-device = /dev/\n"
				  "backing-device = /dev/loop0 x\n"
				  "backing-device = /dev//loop0\n"
				  "backing-device = /dev/./loop0\n"),
			 -EINVAL);
	assert_int_equal(e.n, 7);
	assert_non_null(strstr(e.msg[0], ":2: key 'writeback-types': 'idel' is not a writeback "
					 "type (incompressible, huge, huge_idle, idle)"));
	assert_non_null(strstr(e.msg[1], ":3: key 'writeback-types': empty value"));
	for (unsigned i = 2; i < 7; i++)
		assert_non_null(strstr(e.msg[i], "is not a block device path"));
	/* the rejected values left the defaults */
	assert_int_equal(c.global.n_wb_types, 3);
	assert_string_equal(c.global.backing_device, "");
	config_free(&c);
}

static void test_print_defaults(void **state)
{
	struct config c = { 0 };
	char *out;

	reinit(&c);
	out = print_to_string(&c);
	assert_string_equal(out, "[global]\n"
				 "devices = all\n"
				 "metrics-file =\n"
				 "recompress-algorithms = zstd\n"
				 "algorithm-params =\n"
				 "passes = huge_idle idle huge\n"
				 "threshold-bytes = 0\n"
				 "max-pages-per-batch = 2048\n"
				 "max-write-ms = 100\n"
				 "max-pages-per-pass = 131072\n"
				 "idle-age-min-sec = 1800\n"
				 "idle-age-max-sec = 14400\n"
				 "burst-idle-age-sec = 3\n"
				 "compact = auto\n"
				 "interval-sec = 300\n"
				 "backoff-max-sec = 3600\n"
				 "priority-huge-idle = 0\n"
				 "priority-idle = 0\n"
				 "priority-huge = 0\n"
				 "cold-idle-age-sec = 0\n"
				 "cold-priority = 2\n"
				 "pages-per-hour = 262144\n"
				 "cpu-share-max-percent = 5\n"
				 "psi-cpu-max-percent = 40\n"
				 "memory-stall-us = 150000\n"
				 "defer-on-battery = yes\n"
				 "battery-psi-memory-percent = 10\n"
				 "compact-fragmentation-percent = 10\n"
				 "compact-min-saved-bytes = 0\n"
				 "advise-interval-sec = 86400\n"
				 "advise-samples = 1024\n"
				 "cpu-share-pressure-percent = 100\n"
				 "writeback = no\n"
				 "writeback-types = incompressible huge_idle idle\n"
				 "writeback-idle-age-sec = 86400\n"
				 "writeback-bytes-per-day = 1073741824\n"
				 "writeback-bytes-per-pass = 134217728\n"
				 "writeback-batch-size = 0\n"
				 "backing-device =\n"
				 "compressed-writeback = no\n"
				 "backing-file =\n"
				 "backing-file-size = 15%\n"
				 "backing-file-min-free = 15%\n"
				 "backing-encryption = auto\n"
				 "zstd-dictionary = no\n"
				 "sandbox = yes\n");
	free(out);
	config_free(&c);
}

static void test_print_sections(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char *out;

	assert_int_equal(load_str(&c, &e,
				  "[zram5]\n"
				  "compact = never\n"
				  "[global]\n"
				  "devices = zram5 zram1\n"
				  "recompress-algorithms = zstd deflate\n"
				  "algorithm-params = deflate:level=9\n"
				  "[zram1]\n"
				  "recompress-algorithms = deflate\n"
				  "passes = idle\n"),
			 0);
	out = print_to_string(&c);
	assert_string_equal(out, "[global]\n"
				 "devices = zram5 zram1\n"
				 "metrics-file =\n"
				 "recompress-algorithms = zstd deflate\n"
				 "algorithm-params = 2:level=9\n"
				 "passes = huge_idle idle huge\n"
				 "threshold-bytes = 0\n"
				 "max-pages-per-batch = 2048\n"
				 "max-write-ms = 100\n"
				 "max-pages-per-pass = 131072\n"
				 "idle-age-min-sec = 1800\n"
				 "idle-age-max-sec = 14400\n"
				 "burst-idle-age-sec = 3\n"
				 "compact = auto\n"
				 "interval-sec = 300\n"
				 "backoff-max-sec = 3600\n"
				 "priority-huge-idle = 0\n"
				 "priority-idle = 0\n"
				 "priority-huge = 0\n"
				 "cold-idle-age-sec = 0\n"
				 "cold-priority = 2\n"
				 "pages-per-hour = 262144\n"
				 "cpu-share-max-percent = 5\n"
				 "psi-cpu-max-percent = 40\n"
				 "memory-stall-us = 150000\n"
				 "defer-on-battery = yes\n"
				 "battery-psi-memory-percent = 10\n"
				 "compact-fragmentation-percent = 10\n"
				 "compact-min-saved-bytes = 0\n"
				 "advise-interval-sec = 86400\n"
				 "advise-samples = 1024\n"
				 "cpu-share-pressure-percent = 100\n"
				 "writeback = no\n"
				 "writeback-types = incompressible huge_idle idle\n"
				 "writeback-idle-age-sec = 86400\n"
				 "writeback-bytes-per-day = 1073741824\n"
				 "writeback-bytes-per-pass = 134217728\n"
				 "writeback-batch-size = 0\n"
				 "backing-device =\n"
				 "compressed-writeback = no\n"
				 "backing-file =\n"
				 "backing-file-size = 15%\n"
				 "backing-file-min-free = 15%\n"
				 "backing-encryption = auto\n"
				 "zstd-dictionary = no\n"
				 "sandbox = yes\n"
				 "\n"
				 "[zram1]\n"
				 "recompress-algorithms = deflate\n"
				 "algorithm-params = 1:level=9\n"
				 "passes = idle\n"
				 "\n"
				 "[zram5]\n"
				 "compact = never\n");
	free(out);
	config_free(&c);
}

static void assert_configs_equal(const struct config *a, const struct config *b)
{
	struct dev_config da, db;

	assert_int_equal(a->devices_all, b->devices_all);
	assert_int_equal(a->n_devices, b->n_devices);
	for (unsigned i = 0; i < a->n_devices; i++)
		assert_int_equal(a->devices[i], b->devices[i]);
	assert_dev_equal(&a->global, &b->global);
	assert_int_equal(a->n_sections, b->n_sections);
	/* Every id present in either, plus one present in neither. */
	for (unsigned i = 0; i <= a->n_sections; i++) {
		unsigned id = i < a->n_sections ? a->sections[i].id : 999;

		config_effective(a, id, &da);
		config_effective(b, id, &db);
		assert_dev_equal(&da, &db);
	}
}

static void test_print_round_trip(void **state)
{
	struct config c = { 0 }, c2 = { 0 }, c3 = { 0 };
	struct config_errors e;
	char *out, *out2;

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "devices = zram0 zram3\n"
				  "recompress-algorithms = zstd zstd deflate\n"
				  "algorithm-params = zstd:level=1 2:level=19 deflate:level=-2\n"
				  "passes = idle huge_idle\n"
				  "threshold-bytes = 2048\n"
				  "max-pages-per-batch = 4294967296\n"
				  "max-pages-per-pass = 0\n"
				  "idle-age-min-sec = 0\n"
				  "idle-age-max-sec = 0\n"
				  "compact = always\n"
				  "[zram3]\n"
				  "recompress-algorithms = deflate zstd\n"
				  "idle-age-max-sec = 31536000\n"
				  "[zram0]\n"
				  "algorithm-params =\n"
				  "compact = never\n"
				  "[zram9]\n"
				  "passes = huge\n"
				  "max-pages-per-pass = 1099511627776\n"),
			 0);
	out = print_to_string(&c);
	reinit(&c2);
	assert_int_equal(config_load_file(&c2, write_file("printed.conf", out), &e), 0);
	assert_configs_equal(&c, &c2);
	/*
	 * zram3 resolved the inherited tokens against its own list: deflate (priority 1) -2;
	 * zstd (priority 2) first 1, then "2:level=19" overrides it.
	 */
	{
		struct dev_config d;

		config_effective(&c2, 3, &d);
		assert_int_equal(d.level[0], -2);
		assert_int_equal(d.level[1], 19);
	}
	/* Printing is a fixed point. */
	out2 = print_to_string(&c2);
	assert_string_equal(out, out2);
	/* And the defaults round-trip too. */
	reinit(&c);
	free(out);
	out = print_to_string(&c);
	assert_int_equal(load_str(&c3, &e, out), 0);
	assert_configs_equal(&c, &c3);
	free(out);
	free(out2);
	config_free(&c);
	config_free(&c2);
	config_free(&c3);
}

#define KEY(k, v, p, bad, why)                                                                     \
	{                                                                                          \
		k, v, p, bad, why, false, false                                                    \
	}
#define GLOBAL_KEY(k, v, p, bad, why)                                                              \
	{                                                                                          \
		k, v, p, bad, why, true, false                                                     \
	}
#define SECTION_KEY(k, v, p, bad, why)                                                             \
	{                                                                                          \
		k, v, p, bad, why, false, true                                                     \
	}
/*
 * One row per key, in --print-config order: a value other than the default, how it prints,
 * and a value the key rejects with its reason (NULL: none). Adding a key adds a row here.
 */
static const struct key_case {
	const char *key, *value, *printed;
	const char *bad, *reason;
	bool global_only;
	bool section_only; /* [zramN] only: refused in [global] */
} key_cases[] = {
	GLOBAL_KEY("devices", "zram2 zram0", "zram2 zram0", "zram",
		   "'zram' is not a zram device name (zramN)"),
	GLOBAL_KEY("metrics-file", "/run/m.prom", "/run/m.prom", "m.prom",
		   "'m.prom' is not an absolute path"),
	KEY("recompress-algorithms", "lz4  zstd", "lz4 zstd", "LZ4",
	    "'LZ4' is not a valid algorithm name ([a-z0-9-], at most 31 characters)"),
	KEY("algorithm-params", "zstd:level=-3", "1:level=-3", "zstd",
	    "'zstd' is not NAME:level=N or P:level=N"),
	KEY("passes", "huge idle", "huge idle", "idel",
	    "'idel' is not a pass type (huge_idle, idle, huge)"),
	KEY("threshold-bytes", "4095", "4095", "4096",
	    "'4096' is out of range 0-4095 (the kernel requires threshold < huge_class_size, which "
	    "is below the page size)"),
	KEY("max-pages-per-batch", "1", "1", "0", "'0' is out of range 1-4294967296"),
	KEY("max-write-ms", "1min", "60000", "60001",
	    "'60001' is out of range 0-60000 (0 = fixed batches of max-pages-per-batch)"),
	KEY("max-pages-per-pass", "1099511627776", "1099511627776", "x",
	    "'x' is not a decimal number"),
	KEY("idle-age-min-sec", "0", "0", "", "empty value"),
	KEY("idle-age-max-sec", "365d", "31536000", "31536001",
	    "'31536001' is out of range 0-31536000"),
	KEY("burst-idle-age-sec", "0", "0", "2.5s", "'2.5s' is not a whole number of seconds"),
	KEY("compact", "never", "never", "", "empty value (auto, always or never)"),
	KEY("interval-sec", "1d", "86400", "0", "'0' is out of range 1-86400"),
	KEY("backoff-max-sec", "1w", "604800", "604801", "'604801' is out of range 0-604800"),
	KEY("priority-huge-idle", "1", "1", "4",
	    "'4' is out of range 0-3 (0 = every secondary algorithm in order)"),
	KEY("priority-idle", "2", "2", NULL, NULL),
	KEY("priority-huge", "3", "3", NULL, NULL),
	KEY("cold-idle-age-sec", "23h 60min", "86400", "1500ms",
	    "'1500ms' is not a whole number of seconds"),
	KEY("cold-priority", "3", "3", "0", "'0' is out of range 1-3"),
	KEY("pages-per-hour", "0", "0", NULL, NULL),
	KEY("cpu-share-max-percent", "100", "100", "101", "'101' is out of range 0-100"),
	KEY("psi-cpu-max-percent", "0", "0", NULL, NULL),
	KEY("memory-stall-us", "1s", "1000000", "1000001",
	    "'1000001' is out of range 0-1000000 (microseconds of memory stall per second; 0 = "
	    "off)"),
	KEY("defer-on-battery", "false", "no", "",
	    "'' is not one of yes, no (or true, false, on, off, 1, 0)"),
	KEY("battery-psi-memory-percent", "100", "100", NULL, NULL),
	KEY("compact-fragmentation-percent", "1", "1", "0", "'0' is out of range 1-100"),
	KEY("compact-min-saved-bytes", "1P", "1125899906842624", "1125899906842625",
	    "'1125899906842625' is out of range 0-1125899906842624"),
	KEY("advise-interval-sec", "0", "0", "31536001",
	    "'31536001' is out of range 0-31536000 (0 = never)"),
	KEY("advise-samples", "1048576", "1048576", "0", "'0' is out of range 1-1048576"),
	KEY("cpu-share-pressure-percent", "0", "0", "101",
	    "'101' is out of range 0-100 (the share under full memory pressure)"),
	KEY("writeback", "yes", "yes", "maybe",
	    "'maybe' is not one of yes, no (or true, false, on, off, 1, 0)"),
	KEY("writeback-types", "idle  incompressible", "idle incompressible", "huge huge",
	    "'huge' is listed twice"),
	KEY("writeback-idle-age-sec", "0", "0", "31536001",
	    "'31536001' is out of range 0-31536000 (0 = every page counts as idle)"),
	KEY("writeback-bytes-per-day", "4K", "4096", "4095",
	    "'4095' is out of range 4096-1125899906842624 (at least the smallest page, 4 KiB)"),
	KEY("writeback-bytes-per-pass", "1024T", "1125899906842624", "0",
	    "'0' is out of range 4096-1125899906842624 (at least the smallest page, 4 KiB)"),
	KEY("writeback-batch-size", "512", "512", "513",
	    "'513' is out of range 0-512 (0 = the kernel's default)"),
	KEY("backing-device", "/dev/disk/by-partlabel/zram-wb", "/dev/disk/by-partlabel/zram-wb",
	    "/dev/../etc/passwd",
	    "'/dev/../etc/passwd' is not a block device path: /dev/NAME, of letters, digits and "
	    "/_-.:+, without '.' or '..' components"),
	KEY("compressed-writeback", "yes", "yes", "2",
	    "'2' is not one of yes, no (or true, false, on, off, 1, 0)"),
	SECTION_KEY("backing-file", "/var/lib/zram-recompd/zram1.swap",
		    "/var/lib/zram-recompd/zram1.swap", "/var/lib/../x",
		    "'/var/lib/../x' is not an absolute file path without '.', '..' or empty "
		    "components"),
	KEY("backing-file-size", "1G", "1073741824", "15M",
	    "'15M' is out of range 16M-1P (at least 16 MiB)"),
	KEY("backing-file-min-free", "20%", "20%", "101%", "'101%' is out of range 0%-100%"),
	KEY("backing-encryption", "no", "no", "maybe", "'maybe' is not one of auto, yes, no"),
	KEY("zstd-dictionary", "3,1", "1 3", "2 2", "priority 2 is listed twice"),
	GLOBAL_KEY("sandbox", "no", "no", "maybe",
	    "'maybe' is not one of yes, no (or true, false, on, off, 1, 0)"),
};

/* Load text, print it, load the print and print again: the two prints must be equal. */
static char *load_print_twice(const char *text)
{
	struct config c = { 0 }, c2 = { 0 };
	struct config_errors e;
	char *out, *out2;

	if (load_str(&c, &e, text) != 0)
		fail_msg("%s: %s", text, e.n ? e.msg[0] : "?");
	out = print_to_string(&c);
	reinit(&c2);
	if (config_load_file(&c2, write_file("printed.conf", out), &e) != 0)
		fail_msg("printed %s: %s", out, e.n ? e.msg[0] : "?");
	out2 = print_to_string(&c2);
	assert_string_equal(out, out2);
	assert_configs_equal(&c, &c2);
	free(out2);
	config_free(&c);
	config_free(&c2);
	return out;
}

/* Every key parses, prints, round-trips through print -> parse, and rejects a bad value. */
static void test_every_key_row(void **state)
{
	char text[512], want[512], *out, *defaults, *p;
	struct config c = { 0 };
	struct config_errors e;
	uint64_t bits = 0;
	unsigned lines = 0;

	/* The rows are exactly the keys --print-config lists, in its order. */
	reinit(&c);
	defaults = print_to_string(&c);
	p = strchr(defaults, '\n') + 1;
	for (; *p; p = strchr(p, '\n') + 1, lines++) {
		assert_true(lines < ARRAY_SIZE(key_cases));
		snprintf(want, sizeof(want), "%s =", key_cases[lines].key);
		assert_memory_equal(p, want, strlen(want));
	}
	assert_int_equal(lines, ARRAY_SIZE(key_cases));
	free(defaults);

	for (unsigned i = 0; i < ARRAY_SIZE(key_cases); i++) {
		const struct key_case *k = &key_cases[i];

		snprintf(text, sizeof(text), "[global]\n%s = %s\n", k->key, k->value);
		if (k->section_only) {
			snprintf(want, sizeof(want),
				 "2: key '%s' is only allowed in a device section ([zramN]): each "
				 "device needs its own file",
				 k->key);
			check_one_error(text, want);
			snprintf(text, sizeof(text), "[zram0]\n%s = %s\n", k->key, k->value);
		}
		out = load_print_twice(text);
		snprintf(want, sizeof(want), "\n%s = %s\n", k->key, k->printed);
		if (!strstr(out, want))
			fail_msg("%s: '%s' not in\n%s", k->key, want + 1, out);
		free(out);
		/* A device key sets its own bit, [global] or [zramN]; a global key none. */
		assert_int_equal(load_str(&c, &e, text), 0);
		if (k->section_only) {
			assert_int_equal(c.global.set, 0);
			assert_int_equal(__builtin_popcountll(c.sections[0].cfg.set), 1);
			bits |= c.sections[0].cfg.set;
		} else if (k->global_only) {
			assert_int_equal(c.global.set, 0);
		} else {
			assert_int_equal(__builtin_popcountll(c.global.set), 1);
			assert_int_equal(bits & c.global.set, 0);
			bits |= c.global.set;
		}

		snprintf(text, sizeof(text), "[zram1]\n%s = %s\n", k->key, k->value);
		if (k->global_only) {
			snprintf(want, sizeof(want), "2: key '%s' is only allowed in [global]",
				 k->key);
			check_one_error(text, want);
		} else {
			out = load_print_twice(text);
			snprintf(want, sizeof(want), "[zram1]\n%s = %s\n", k->key, k->printed);
			if (!strstr(out, want))
				fail_msg("%s: '%s' not in\n%s", k->key, want, out);
			free(out);
			assert_int_equal(load_str(&c, &e, text), 0);
			assert_int_equal(c.global.set, 0);
			assert_int_equal(c.sections[0].cfg.set & bits, c.sections[0].cfg.set);
		}

		if (k->bad && k->section_only) {
			char bad[256];

			snprintf(bad, sizeof(bad), "[zram1]\n%s = %s\n", k->key, k->bad);
			snprintf(want, sizeof(want), "2: key '%s': %s", k->key, k->reason);
			check_one_error(bad, want);
		} else if (k->bad) {
			check_global_kv_error(k->key, k->bad, k->reason);
			/* The rejected value leaves the default: the print is the defaults'. */
			snprintf(text, sizeof(text), "[global]\n%s = %s\n", k->key, k->bad);
			assert_int_equal(load_str(&c, &e, text), -EINVAL);
			out = print_to_string(&c);
			reinit(&c);
			defaults = print_to_string(&c);
			assert_string_equal(out, defaults);
			free(out);
			free(defaults);
		}
	}
	assert_int_equal(bits, (UINT64_C(1) << CFG_N_KEYS) - 1);
	config_free(&c);
}

/*
 * zram-recompd.conf(5): keys in bytes take sizes, keys in seconds, milliseconds and
 * microseconds take durations, and no other number key takes either.
 */
static void test_units_per_key(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	char text[256];

	for (unsigned i = 0; i < ARRAY_SIZE(key_cases); i++) {
		const char *k = key_cases[i].key, *v;
		size_t n = strlen(k);
		bool bytes = strstr(k, "-bytes") != NULL;
		bool secs = n > 4 && strcmp(k + n - 4, "-sec") == 0;
		bool ms = n > 3 && strcmp(k + n - 3, "-ms") == 0;
		bool us = n > 3 && strcmp(k + n - 3, "-us") == 0;

		/* Within every such key's range: threshold-bytes < 4096 <= the writeback budgets. */
		if (bytes)
			v = strstr(k, "writeback") ? "2M" : "2K";
		else
			v = secs ? "1h" : ms ? "2s" : us ? "2ms" : NULL;
		if (!v) {
			/* Any other number key: a suffix is never a number of it. */
			if (strspn(key_cases[i].value, "0123456789") != strlen(key_cases[i].value))
				continue;
			snprintf(text, sizeof(text), "[global]\n%s = 2K\n", k);
			if (load_str(&c, &e, text) != -EINVAL)
				fail_msg("%s = 2K loads", k);
			snprintf(text, sizeof(text), "[global]\n%s = 2min\n", k);
			if (load_str(&c, &e, text) != -EINVAL)
				fail_msg("%s = 2min loads", k);
			continue;
		}
		snprintf(text, sizeof(text), "[global]\n%s = %s\n", k, v);
		if (load_str(&c, &e, text) != 0)
			fail_msg("%s = %s: %s", k, v, e.n ? e.msg[0] : "?");
	}
	load_global_kv(&c, "threshold-bytes", "2K");
	assert_int_equal(c.global.threshold_bytes, 2048);
	load_global_kv(&c, "interval-sec", "2min");
	assert_int_equal(c.global.interval_sec, 120);
	load_global_kv(&c, "max-write-ms", "2s");
	assert_int_equal(c.global.max_write_ms, 2000);
	load_global_kv(&c, "memory-stall-us", "2ms");
	assert_int_equal(c.global.memory_stall_us, 2000);
	config_free(&c);
}

/* recompress-algorithms = auto and the advice keys (advice_store.h). */
static void test_auto_keys(void **state)
{
	struct config c = { 0 };
	struct config_errors e;
	struct dev_config eff;
	char *out;

	(void)state;
	reinit(&c);
	assert_false(c.global.algos_auto);
	assert_int_equal(c.global.advise_interval_sec, 86400);
	assert_int_equal(c.global.advise_samples, 1024);

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = auto\n"
				  "advise-interval-sec = 0\n"
				  "[zram2]\n"
				  "recompress-algorithms = zstd deflate\n"
				  "advise-samples = 4096\n"
				  "[zram3]\n"
				  "advise-interval-sec = 3600\n"),
			 0);
	/* auto keeps the fallback list, so code that ignores auto still sees zstd. */
	config_effective(&c, 0, &eff);
	assert_true(eff.algos_auto);
	assert_int_equal(eff.n_algos, 1);
	assert_string_equal(eff.algos[0], CFG_AUTO_FALLBACK);
	assert_int_equal(eff.advise_interval_sec, 0);
	assert_int_equal(eff.advise_samples, 1024);
	/* A section's own list switches auto off for that device... */
	config_effective(&c, 2, &eff);
	assert_false(eff.algos_auto);
	assert_int_equal(eff.n_algos, 2);
	assert_string_equal(eff.algos[1], "deflate");
	assert_int_equal(eff.advise_samples, 4096);
	/* ... and a section without one inherits auto. */
	config_effective(&c, 3, &eff);
	assert_true(eff.algos_auto);
	assert_int_equal(eff.advise_interval_sec, 3600);

	/* Printed as "auto", and the print loads back to the same. */
	out = print_to_string(&c);
	assert_non_null(strstr(out, "[global]\ndevices = all\nmetrics-file =\n"
				    "recompress-algorithms = auto\n"));
	assert_non_null(strstr(out, "advise-interval-sec = 0\nadvise-samples = 1024\n"));
	assert_non_null(strstr(out, "[zram2]\nrecompress-algorithms = zstd deflate\n"));
	{
		struct config c2 = { 0 };

		reinit(&c2);
		assert_int_equal(config_load_file(&c2, write_file("printed.conf", out), &e), 0);
		assert_configs_equal(&c, &c2);
		config_free(&c2);
	}
	free(out);

	/* A later list replaces auto; a later auto replaces a list. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = auto\n"
				  "recompress-algorithms = lz4hc\n"
				  "[zram1]\n"
				  "recompress-algorithms = deflate\n"
				  "recompress-algorithms = auto\n"),
			 0);
	assert_false(c.global.algos_auto);
	assert_string_equal(c.global.algos[0], "lz4hc");
	config_effective(&c, 1, &eff);
	assert_true(eff.algos_auto);
	assert_string_equal(eff.algos[0], "zstd");

	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = auto zstd\n"
				  "recompress-algorithms = zstd auto\n"
				  "advise-interval-sec = 31536001\n"
				  "advise-samples = 0\n"
				  "advise-samples = 1048577\n"
				  "advise-samples = many\n"),
			 -EINVAL);
	assert_int_equal(e.n, 6);
	assert_non_null(strstr(e.msg[0], ":2: key 'recompress-algorithms': 'auto' cannot be "
					 "combined with algorithm names"));
	assert_non_null(strstr(e.msg[1], ":3: key 'recompress-algorithms': 'auto' cannot"));
	assert_non_null(strstr(e.msg[2], ":4: key 'advise-interval-sec': '31536001' is out of "
					 "range 0-31536000 (0 = never)"));
	assert_non_null(strstr(e.msg[3], ":5: key 'advise-samples': '0' is out of range "
					 "1-1048576"));
	assert_non_null(strstr(e.msg[4], ":6: key 'advise-samples': '1048577' is out of range"));
	assert_non_null(strstr(e.msg[5], ":7: key 'advise-samples': 'many' is not a decimal"));
	/* The rejected values left the defaults in place. */
	assert_false(c.global.algos_auto);
	assert_int_equal(c.global.advise_samples, 1024);

	/* Levels come with the advice: algorithm-params next to auto is an error... */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = auto\n"
				  "algorithm-params = zstd:level=9\n"),
			 -EINVAL);
	assert_int_equal(e.n, 1);
	assert_non_null(strstr(e.msg[0], ":3: key 'algorithm-params': algorithm-params cannot be "
					 "combined with recompress-algorithms = auto in [global]"));
	/* ... also when inherited: the message points at the later of the two lines. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "algorithm-params = 1:level=9\n"
				  "[zram4]\n"
				  "recompress-algorithms = auto\n"),
			 -EINVAL);
	assert_int_equal(e.n, 1);
	assert_non_null(strstr(e.msg[0], ":4: key 'recompress-algorithms': algorithm-params "
					 "cannot be combined with recompress-algorithms = auto in "
					 "[zram4]"));
	/* An empty algorithm-params is fine. */
	assert_int_equal(load_str(&c, &e,
				  "[global]\n"
				  "recompress-algorithms = auto\n"
				  "algorithm-params =\n"),
			 0);
	config_free(&c);
}

static void test_shipped_example(void **state)
{
	struct config c = { 0 }, def = { 0 };
	struct config_errors e;

	/* etc/zram-recompd.conf shows every key at its default, commented out. */
	reinit(&c);
	assert_int_equal(config_load_file(&c, "etc/zram-recompd.conf", &e), 0);
	reinit(&def);
	assert_configs_equal(&c, &def);
	assert_int_equal(c.global.set, 0);
	assert_int_equal(c.n_sections, 0);
	config_free(&c);
	config_free(&def);
}

static void test_shipped_example_uncommented(void **state)
{
	char line[512], *buf = NULL;
	size_t len = 0;
	FILE *in = fopen("etc/zram-recompd.conf", "re");
	FILE *out = open_memstream(&buf, &len);
	struct config c = { 0 }, def = { 0 };
	struct config_errors e;

	/* Every "#key = value" line, uncommented, must parse and still equal the defaults. */
	assert_non_null(in);
	assert_non_null(out);
	fputs("[global]\n", out);
	while (fgets(line, sizeof(line), in)) {
		if (line[0] == '#' && line[1] != ' ' && line[1] != '#' && line[1] != '\n' &&
		    strchr(line, '=') && line[1] != '[')
			fputs(line + 1, out);
		if (strncmp(line, "#[zram", 6) == 0)
			break; /* the example section holds non-default values */
	}
	fclose(in);
	fclose(out);
	assert_int_equal(load_str(&c, &e, buf), 0);
	/* every key is in the example, so every bit is set */
	assert_int_equal(c.global.set, (UINT64_C(1) << CFG_N_KEYS) - 1);
	reinit(&def);
	assert_configs_equal(&c, &def);
	free(buf);
	config_free(&c);
	config_free(&def);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_files_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_file_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_key_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_algorithms_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_algorithms_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_resolution, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_empty_clears, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_syntax_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_unknown_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_follow_section_algorithms, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threshold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_and_pass_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_ages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_age_min_greater_than_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_age_check_after_all_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_overrides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_value_keeps_previous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_many_sorted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_load_resets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_first_found_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_dropin_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_mask_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_mask_dev_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_dangling_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_broken_dropin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_file_ignores_search, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_section, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_placement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices_last_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syntax_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crlf_comments_indent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_units_per_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_daemon_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writeback_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_key_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shipped_example, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shipped_example_uncommented, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
