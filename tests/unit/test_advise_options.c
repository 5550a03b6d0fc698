// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/advise/options.c: adv_parse_opts() field by field, its defaults, the exit codes and
 * one-line messages of every usage error, spec lists, and the usage text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "advise_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err_buf[4096];
/* The last call's arguments: the options point into them until the next call. */
static char *argv[32];
static int argc;

/* adv_parse_opts() on "advise" plus a NULL-terminated list; stderr lands in err_buf. */
static int parse(struct adv_opts *o, ...)
{
	int rc, fd, saved;
	va_list ap;
	FILE *f = tmpfile();
	size_t n;

	assert_non_null(f);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	argc = 0;
	argv[argc++] = strdup("advise");
	va_start(ap, o);
	for (const char *a; (a = va_arg(ap, const char *)) && argc < 31;)
		argv[argc++] = strdup(a);
	va_end(ap);
	argv[argc] = NULL;
	fflush(stderr);
	fd = fileno(f);
	saved = dup(2);
	dup2(fd, 2);
	rc = adv_parse_opts(argc, argv, o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(err_buf, 1, sizeof(err_buf) - 1, f);
	err_buf[n] = '\0';
	fclose(f);
	return rc;
}

static void assert_spec(const struct adv_spec *s, const char *want)
{
	struct adv_spec w;

	assert_int_equal(comp_parse_spec(want, &w.algo, &w.level), 0);
	assert_int_equal(s->algo, w.algo);
	assert_int_equal(s->level, w.level);
}

static void test_defaults(void **state)
{
	struct adv_opts o;

	(void)state;
	assert_int_equal(parse(&o, "--input", "pages", NULL), 0);
	assert_string_equal(o.input, "pages");
	assert_null(o.device);
	assert_false(o.samples_set || o.seed_set || o.primary_set || o.chain_set);
	assert_false(o.json || o.save || o.quiet);
	assert_int_equal(o.threads, 0);
	assert_int_equal(o.threshold, 0);
	assert_int_equal(o.primary.level, COMP_LEVEL_DEFAULT);
	assert_int_equal(o.nchain, 0);
	/* The default candidates, in order. */
	assert_int_equal(o.ncand, 4);
	assert_spec(&o.cand[0], "lz4hc");
	assert_spec(&o.cand[1], "zstd");
	assert_spec(&o.cand[2], "zstd:9");
	assert_spec(&o.cand[3], "deflate");
	assert_string_equal(err_buf, "");
}

static void test_every_option(void **state)
{
	struct adv_opts o;

	(void)state;
	assert_int_equal(parse(&o, "--device", "zram3", "--samples", "0", "--primary", "zstd:1",
			       "--candidates", "lz4,deflate:9", "--chain", "zstd,lz4hc:4",
			       "--threshold", "1000", "--seed", "42", "--threads", "3", "--json",
			       "--save", NULL),
			 0);
	assert_string_equal(o.device, "zram3");
	assert_null(o.input);
	assert_true(o.samples_set);
	assert_int_equal(o.samples, 0);
	assert_true(o.primary_set);
	assert_spec(&o.primary, "zstd:1");
	assert_int_equal(o.ncand, 2);
	assert_spec(&o.cand[0], "lz4");
	assert_spec(&o.cand[1], "deflate:9");
	assert_true(o.chain_set);
	assert_int_equal(o.nchain, 2);
	assert_spec(&o.chain[1], "lz4hc:4");
	assert_int_equal(o.threshold, 1000);
	assert_true(o.seed_set);
	assert_int_equal(o.seed, 42);
	assert_int_equal(o.threads, 3);
	assert_true(o.json && o.save);
	/* A second call starts from scratch (getopt fully re-initialised). */
	assert_int_equal(parse(&o, "--input", "f", "--samples", "5", NULL), 0);
	assert_null(o.device);
	assert_int_equal(o.samples, 5);
	assert_false(o.json);
}

/* Every usage error: exit code 2 and exactly one line naming the problem. */
static void test_usage_errors(void **state)
{
	static const struct {
		const char *args[5];
		const char *msg;
	} bad[] = {
		{{"--input", "x", "--samples", "many"}, "--samples: not a number: 'many'"},
		{{"--input", "x", "--samples", "1048577"}, "--samples: at most 1048576"},
		{{"--input", "x", "--seed", "-1"}, "--seed: not a number: '-1'"},
		{{"--input", "x", "--threads", "0"}, "--threads: want 1 to 8: '0'"},
		{{"--input", "x", "--threads", "9"}, "--threads: want 1 to 8: '9'"},
		{{"--input", "x", "--threshold", "3625"},
		 "want bytes below huge_class_size (3625)"},
		{{"--input", "x", "--primary", "foo"}, "--primary: unknown algorithm 'foo'"},
		{{"--input", "x", "--primary", "lzo:3"}, "--primary: invalid level in 'lzo:3'"},
		{{"--input", "x", "--candidates", ""}, "--candidates: empty list"},
		{{"--input", "x", "--chain", "zstd,lz4,lz4hc,deflate"}, "--chain: at most 3"},
		{{"--input", "x", "--bogus"}, "unknown option '--bogus'"},
		{{"--input", "x", "--seed"}, "option '--seed' needs a value"},
		{{"--input", "x", "extra"}, "unexpected argument 'extra'"},
		{{"--json"}, "give exactly one of --device zramN or --input FILE"},
		{{"--input", "x", "--device", "zram0"}, "give exactly one of"},
		{{"--input", "x", "--save"}, "--save needs --device"},
	};
	struct adv_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const *a = bad[i].args;

		assert_int_equal(parse(&o, a[0], a[1], a[2], a[3], a[4], NULL), 2);
		if (!strstr(err_buf, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err_buf, bad[i].msg);
		assert_ptr_equal(strchr(err_buf, '\n'), err_buf + strlen(err_buf) - 1);
	}
}

static void test_spec_lists(void **state)
{
	struct adv_spec s[8];
	char longlist[300];
	unsigned n = 99;

	(void)state;
	assert_int_equal(adv_parse_spec_list("--x", "zstd,,deflate:1", s, 8, &n), 0);
	assert_int_equal(n, 2); /* empty items are skipped */
	assert_spec(&s[1], "deflate:1");
	assert_int_equal(adv_parse_spec_list("--x", "zstd,brotli", s, 8, &n), -ENOENT);
	assert_int_equal(adv_parse_spec_list("--x", "zstd:x", s, 8, &n), -EINVAL);
	assert_int_equal(adv_parse_spec_list("--x", "zstd,lz4", s, 1, &n), -E2BIG);
	memset(longlist, 'a', sizeof(longlist) - 1);
	longlist[sizeof(longlist) - 1] = '\0';
	assert_int_equal(adv_parse_spec_list("--x", longlist, s, 8, &n), -E2BIG);
	assert_int_equal(adv_parse_spec_list("--x", ",", s, 8, &n), -EINVAL);
	assert_int_equal(n, 2); /* untouched on error */
}

static void test_help(void **state)
{
	char buf[4096];
	struct adv_opts o;
	FILE *f = tmpfile();
	size_t n;

	(void)state;
	assert_non_null(f);
	adv_usage(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_true(strncmp(buf, "usage: zram-recompd advise --device zramN", 41) == 0);
	assert_non_null(strstr(buf, "defaults: --candidates " ADV_DEFAULT_CANDIDATES ";"));
	/* --help: 1 (stop, exit 0), before any check of the other options. */
	fflush(stdout);
	{
		int saved = dup(1), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		dup2(null, 1);
		assert_int_equal(parse(&o, "--help", NULL), 1);
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
		close(null);
	}
	assert_string_equal(err_buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),     cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_usage_errors), cmocka_unit_test(test_spec_lists),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
