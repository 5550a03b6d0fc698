// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * advice_store.c: the advice file (exact bytes written, round trip, every kind of corruption
 * rejected as a whole, update keeping the other devices), and the rules of
 * recompress-algorithms = auto (apply, resolve with its log line, due).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "advice_store.h"
#include "fakeroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int setup(void **state)
{
	(void)state;
	return fr_setup();
}

static int teardown(void **state)
{
	(void)state;
	fr_teardown();
	return 0;
}

static int dir_fd(void)
{
	int fd = open(fr_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static const char *tpath_advice(void)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/advice", fr_dir);
	return p;
}

/* Files in the test directory: the atomic write leaves nothing but "advice". */
static unsigned dir_entries(void)
{
	DIR *d = opendir(fr_dir);
	struct dirent *de;
	unsigned n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static struct advice_entry entry(const char *name, const char *primary)
{
	struct advice_entry e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.primary, sizeof(e.primary), "%s", primary);
	e.time = 1767225600; /* 2026-01-01 00:00:00 UTC */
	e.n = 2;
	strcpy(e.algo[0], "zstd");
	e.has_level[0] = true;
	e.level[0] = 9;
	strcpy(e.algo[1], "deflate");
	e.pays = true;
	e.pool = 14196736;
	e.saving = 3514368;
	e.samples = 1024;
	return e;
}

static void test_save_load(void **state)
{
	struct advice_set s, t;
	struct advice_entry a = entry("zram0", "lzo-rle"), b = entry("zram12", "lz4");
	const struct advice_entry *f;
	int fd = dir_fd();
	struct stat st;

	(void)state;
	memset(&s, 0, sizeof(s));
	b.n = 1;
	b.level[0] = -5;
	b.pays = false;
	b.saving = 0;
	assert_int_equal(advice_put(&s, &a), 0);
	assert_int_equal(advice_put(&s, &b), 0);
	assert_int_equal(advice_save(&s, fd), 0);
	assert_string_equal(fr_read("advice"),
			    "zram-recompd-advice 1\n"
			    "zram0 time=1767225600 primary=lzo-rle chain=zstd:9,deflate pays=1 "
			    "pool=14196736 saving=3514368 samples=1024\n"
			    "zram12 time=1767225600 primary=lz4 chain=zstd:-5 pays=0 pool=14196736 "
			    "saving=0 samples=1024\n");
	assert_int_equal(stat(tpath_advice(), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	assert_int_equal(advice_load(&t, fd), 0);
	assert_int_equal(t.n, 2);
	f = advice_find(&t, "zram12");
	assert_non_null(f);
	assert_string_equal(f->primary, "lz4");
	assert_int_equal(f->n, 1);
	assert_true(f->has_level[0]);
	assert_int_equal(f->level[0], -5);
	assert_false(f->pays);
	f = advice_find(&t, "zram0");
	assert_non_null(f);
	assert_memory_equal(f, &a, sizeof(a));
	assert_null(advice_find(&t, "zram1"));

	/* Replacing one device keeps the other; the replaced one has its new values. */
	a.n = 1;
	a.has_level[0] = false;
	a.time = 1767312000;
	assert_int_equal(advice_update(fd, &a), 0);
	advice_free(&t);
	assert_int_equal(advice_load(&t, fd), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(advice_find(&t, "zram0")->n, 1);
	assert_false(advice_find(&t, "zram0")->has_level[0]);
	assert_int_equal(advice_find(&t, "zram0")->time, 1767312000);
	assert_int_equal(advice_find(&t, "zram12")->level[0], -5);
	/* No temporary file is left behind. */
	assert_int_equal(dir_entries(), 1);
	advice_free(&s);
	advice_free(&t);
	close(fd);
}

static void test_missing_and_corrupt(void **state)
{
	static const char *const bad[] = {
		"",
		"zram-recompd-advice 2\n",
		"zram-recompd-state 1\n",
		"zram-recompd-advice 1", /* no final newline */
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=zstd pays=1 pool=1 "
		"saving=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=zstd pays=1 pool=1 saving=1 "
		"samples=1 extra=1\n",
		"zram-recompd-advice 1\nzram0 time=1 time=1 primary=lz4 chain=zstd pays=1 pool=1 "
		"saving=1 samples=1\n",
		"zram-recompd-advice 1\nsda time=1 primary=lz4 chain=zstd pays=1 pool=1 saving=1 "
		"samples=1\n",
		"zram-recompd-advice 1\nzram0 time=-1 primary=lz4 chain=zstd pays=1 pool=1 "
		"saving=1 "
		"samples=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=LZ4 chain=zstd pays=1 pool=1 saving=1 "
		"samples=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain= pays=1 pool=1 saving=1 "
		"samples=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=a,b,c,d pays=1 pool=1 "
		"saving=1 samples=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=zstd:x pays=1 pool=1 "
		"saving=1 samples=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=zstd:131073 pays=1 pool=1 "
		"saving=1 samples=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=zstd pays=2 pool=1 saving=1 "
		"samples=1\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=zstd pays=1 pool=1 saving=1 "
		"samples=1\nzram0 time=1 primary=lz4 chain=zstd pays=1 pool=1 saving=1 samples=1\n",
		"zram-recompd-advice 1\nzram0\n",
		"zram-recompd-advice 1\nzram0 time=1 primary=lz4 chain=zstd pays=1 pool=1 saving=1 "
		" "
		"samples=1\n", /* double space: an empty key */
	};
	struct advice_set s;
	int fd = dir_fd();

	(void)state;
	/* Missing: empty, no error. */
	s.n = 7;
	assert_int_equal(advice_load(&s, fd), 0);
	assert_int_equal(s.n, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fr_write("advice", bad[i]);
		s.n = 7;
		assert_int_equal(advice_load(&s, fd), -EBADMSG);
		assert_int_equal(s.n, 0);
	}
	/* A valid minimal line, to show the bad ones differ only in what they break. */
	fr_write("advice", "zram-recompd-advice 1\nzram0 samples=1 time=1 primary=lz4 chain=zstd "
			   "pays=1 pool=1 saving=1\n");
	assert_int_equal(advice_load(&s, fd), 0);
	assert_int_equal(s.n, 1);
	advice_free(&s);
	/* NUL bytes, oversized files (over 16 MiB) and non-regular files are not advice. */
	{
		size_t size = 16 * 1024 * 1024 + 1;
		char *big = malloc(size + 1);
		int f;

		assert_non_null(big);
		memset(big, 'x', size);
		big[size] = '\0';
		fr_write("advice", big);
		free(big);
		assert_int_equal(advice_load(&s, fd), -EBADMSG);
		assert_int_equal(unlink(tpath_advice()), 0);
		assert_int_equal(mkfifo(tpath_advice(), 0600), 0);
		assert_int_equal(advice_load(&s, fd), -EBADMSG);
		assert_int_equal(unlink(tpath_advice()), 0);
		f = open(tpath_advice(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(f >= 0);
		assert_int_equal(write(f, "zram-recompd-advice 1\n\0\n", 24), 24);
		close(f);
		assert_int_equal(advice_load(&s, fd), -EBADMSG);
		assert_int_equal(unlink(tpath_advice()), 0);
		assert_int_equal(mkdir(tpath_advice(), 0755), 0);
		assert_int_equal(advice_load(&s, fd), -EISDIR);
		assert_int_equal(rmdir(tpath_advice()), 0);
	}
	/* A corrupt file is replaced by an update (losing what it held). */
	fr_write("advice", "garbage\n");
	{
		struct advice_entry a = entry("zram3", "zstd");

		assert_int_equal(advice_update(fd, &a), 0);
		assert_int_equal(advice_load(&s, fd), 0);
		assert_int_equal(s.n, 1);
		assert_string_equal(s.dev[0].name, "zram3");
		advice_free(&s);
	}
	close(fd);
}

static void test_invalid_entries(void **state)
{
	struct advice_set s;
	struct advice_entry e;
	int fd = dir_fd();

	(void)state;
	memset(&s, 0, sizeof(s));
	e = entry("zram0", "lzo-rle");
	e.n = 0;
	assert_int_equal(advice_put(&s, &e), -EINVAL);
	e.n = 4;
	assert_int_equal(advice_put(&s, &e), -EINVAL);
	e = entry("sda", "lzo-rle");
	assert_int_equal(advice_put(&s, &e), -EINVAL);
	e = entry("zram0", "lzo rle");
	assert_int_equal(advice_put(&s, &e), -EINVAL);
	e = entry("zram0", "lzo-rle");
	strcpy(e.algo[1], "");
	assert_int_equal(advice_put(&s, &e), -EINVAL);
	e = entry("zram0", "lzo-rle");
	e.level[0] = 200000;
	assert_int_equal(advice_put(&s, &e), -EINVAL);
	assert_int_equal(s.n, 0);
	/* No cap: 200 devices (zram-config makes one per CPU), saved and loaded back. */
	for (unsigned i = 0; i < 200; i++) {
		char n[16];

		snprintf(n, sizeof(n), "zram%u", i);
		e = entry(n, "lz4");
		assert_int_equal(advice_put(&s, &e), 0);
	}
	e = entry("zram5", "zstd"); /* replacing still works */
	assert_int_equal(advice_put(&s, &e), 0);
	assert_int_equal(s.n, 200);
	assert_string_equal(advice_find(&s, "zram5")->primary, "zstd");
	assert_int_equal(advice_save(&s, fd), 0);
	{
		struct advice_set t;

		assert_int_equal(advice_load(&t, fd), 0);
		assert_int_equal(t.n, 200);
		assert_string_equal(advice_find(&t, "zram199")->primary, "lz4");
		assert_string_equal(advice_find(&t, "zram5")->primary, "zstd");
		advice_free(&t);
	}
	assert_int_equal(unlink(tpath_advice()), 0);
	/* A set with an invalid entry is not written at all. */
	s.n = 1;
	strcpy(s.dev[0].primary, "");
	assert_int_equal(advice_save(&s, fd), -EINVAL);
	assert_int_equal(access(tpath_advice(), F_OK), -1);
	advice_free(&s);
	close(fd);
}

static void test_format_chain(void **state)
{
	struct advice_entry e = entry("zram0", "lz4");
	char buf[64];

	(void)state;
	assert_int_equal(advice_format_chain(&e, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "zstd:9,deflate");
	assert_int_equal(advice_format_chain(&e, buf, 8), -ENOBUFS);
	assert_int_equal(advice_format_chain(&e, buf, 0), -ENOBUFS);
}

static struct dev_config auto_cfg(void)
{
	struct config c;

	config_init(&c);
	c.global.algos_auto = true;
	return c.global;
}

static void test_apply(void **state)
{
	struct advice_entry a = entry("zram0", "lzo-rle");
	struct dev_config cfg = auto_cfg(), out, plain;
	struct config c;

	(void)state;
	/* Not auto: the configuration as it is, whatever the advice. */
	config_init(&c);
	plain = c.global;
	assert_int_equal(advice_apply(&plain, &a, "lzo-rle", &out), ADVICE_NOT_AUTO);
	assert_memory_equal(&out, &plain, sizeof(out));

	/* No advice: the fallback list. */
	assert_int_equal(advice_apply(&cfg, NULL, "lzo-rle", &out), ADVICE_MISSING);
	assert_int_equal(out.n_algos, 1);
	assert_string_equal(out.algos[0], "zstd");
	assert_false(out.has_level[0]);

	/* Advice for another primary: the fallback list. */
	assert_int_equal(advice_apply(&cfg, &a, "lz4", &out), ADVICE_OTHER_PRIMARY);
	assert_int_equal(out.n_algos, 1);
	assert_string_equal(out.algos[0], "zstd");
	assert_int_equal(advice_apply(&cfg, &a, NULL, &out), ADVICE_OTHER_PRIMARY);

	/* Matching advice: its list and levels, priority order kept; other keys untouched. */
	cfg.threshold_bytes = 1024;
	assert_int_equal(advice_apply(&cfg, &a, "lzo-rle", &out), ADVICE_USED);
	assert_int_equal(out.n_algos, 2);
	assert_string_equal(out.algos[0], "zstd");
	assert_string_equal(out.algos[1], "deflate");
	assert_true(out.has_level[0]);
	assert_int_equal(out.level[0], 9);
	assert_false(out.has_level[1]);
	assert_int_equal(out.threshold_bytes, 1024);
	assert_true(out.algos_auto);
	assert_int_equal(out.n_params, 0);
}

static void test_resolve(void **state)
{
	struct advice_entry a = entry("zram0", "lzo-rle");
	struct dev_config cfg = auto_cfg(), out;
	struct advice_set s;
	char why[256];
	int fd = dir_fd();

	(void)state;
	assert_int_equal(advice_resolve(&cfg, fd, "zram0", "lzo-rle", &out, why, sizeof(why)),
			 ADVICE_MISSING);
	assert_string_equal(why, "recompress-algorithms = auto: no advice for zram0 yet; using "
				 "zstd");
	assert_int_equal(advice_resolve(&cfg, -1, "zram0", "lzo-rle", &out, why, sizeof(why)),
			 ADVICE_MISSING);
	assert_string_equal(why, "recompress-algorithms = auto: no advice for zram0 yet; using "
				 "zstd");

	memset(&s, 0, sizeof(s));
	assert_int_equal(advice_put(&s, &a), 0);
	assert_int_equal(advice_save(&s, fd), 0);
	advice_free(&s);
	assert_int_equal(advice_resolve(&cfg, fd, "zram0", "lzo-rle", &out, why, sizeof(why)),
			 ADVICE_USED);
	assert_string_equal(why, "recompress-algorithms = auto: advice of 2026-01-01 UTC applied: "
				 "zstd:9,deflate (predicted to save 3.4 MiB of 13.5 MiB, from 1024 "
				 "pages)");
	assert_int_equal(out.n_algos, 2);
	assert_int_equal(advice_resolve(&cfg, fd, "zram0", "zstd", &out, why, sizeof(why)),
			 ADVICE_OTHER_PRIMARY);
	assert_string_equal(why, "recompress-algorithms = auto: the stored advice was computed "
				 "for primary lzo-rle, not zstd; using zstd");
	assert_int_equal(advice_resolve(&cfg, fd, "zram1", "lzo-rle", &out, why, sizeof(why)),
			 ADVICE_MISSING);

	/* Advice that does not pay is still the best chain found; the line says so. */
	a.pays = false;
	a.saving = 100000;
	assert_int_equal(advice_update(fd, &a), 0);
	assert_int_equal(advice_resolve(&cfg, fd, "zram0", "lzo-rle", &out, why, sizeof(why)),
			 ADVICE_USED);
	assert_non_null(strstr(why, "(predicted to save 97.7 KiB of 13.5 MiB, below the 2% that "
				    "pays, from 1024 pages)"));

	/* Corrupt file: the fallback, and the reason. */
	fr_write("advice", "nonsense\n");
	assert_int_equal(advice_resolve(&cfg, fd, "zram0", "lzo-rle", &out, why, sizeof(why)),
			 ADVICE_MISSING);
	assert_non_null(strstr(why, "advice file unreadable (Bad message); using zstd"));
	assert_int_equal(out.n_algos, 1);

	/* Not auto: no line. */
	{
		struct config c;

		config_init(&c);
		why[0] = 'x';
		assert_int_equal(
			advice_resolve(&c.global, fd, "zram0", "lzo-rle", &out, why, sizeof(why)),
			ADVICE_NOT_AUTO);
		assert_string_equal(why, "");
	}
	close(fd);
}

static void test_due(void **state)
{
	struct advice_entry a = entry("zram0", "lzo-rle");
	struct dev_config cfg = auto_cfg();
	struct config c;

	(void)state;
	/* default interval: one day */
	assert_true(advice_due(&cfg, NULL, "lzo-rle", a.time));
	assert_false(advice_due(&cfg, &a, "lzo-rle", a.time));
	assert_false(advice_due(&cfg, &a, "lzo-rle", a.time + 86399));
	assert_true(advice_due(&cfg, &a, "lzo-rle", a.time + 86400));
	/* another primary now: the old advice is useless */
	assert_true(advice_due(&cfg, &a, "zstd", a.time + 1));
	/* a clock set back */
	assert_true(advice_due(&cfg, &a, "lzo-rle", a.time - 1));
	/* 0 = never; not auto = never */
	cfg.advise_interval_sec = 0;
	assert_false(advice_due(&cfg, NULL, "lzo-rle", a.time));
	config_init(&c);
	assert_false(advice_due(&c.global, NULL, "lzo-rle", a.time));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_save_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_entries, setup, teardown),
		cmocka_unit_test(test_format_chain),
		cmocka_unit_test(test_apply),
		cmocka_unit_test_setup_teardown(test_resolve, setup, teardown),
		cmocka_unit_test(test_due),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
