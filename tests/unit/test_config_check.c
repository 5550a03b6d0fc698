// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/config/config_check.c: --check-config's errors (algorithm names, levels per
 * backend, the running kernel's comp_algorithm) and warnings (settings that cannot take
 * effect), each with its FILE:LINE and key, against machines described by hand; and the
 * run-time notes of the daemon and --once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_check.h"
#include "util.h"

static char path[64];
static struct config c;
static struct config_errors errs, warns;

static int setup(void **state)
{
	int fd;

	strcpy(path, "/tmp/test_config_check.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	return unlink(path);
}

/* Load text (must load without errors) and run the checks against m. */
static void check(const char *text, const struct check_machine *m)
{
	const char *paths[1] = {path};
	struct config_errors le;
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	config_free(&c);
	config_init(&c);
	if (config_load_file(&c, path, &le) != 0)
		fail_msg("load: %s", le.n ? le.msg[0] : "?");
	config_check(&c, paths, 1, m, &errs, &warns);
}

/* e holds exactly the messages given (NULL-terminated), each "<path><suffix>". */
static void expect(const struct config_errors *e, ...)
{
	char want[512];
	const char *s;
	unsigned n = 0;
	va_list ap;

	va_start(ap, e);
	while ((s = va_arg(ap, const char *))) {
		snprintf(want, sizeof(want), "%s%s", path, s);
		if (n >= e->n)
			fail_msg("missing: %s", want);
		if (strcmp(e->msg[n], want) != 0)
			fail_msg("got  %s\nwant %s", e->msg[n], want);
		n++;
	}
	va_end(ap);
	for (unsigned i = n; i < e->n; i++)
		fail_msg("unexpected: %s", e->msg[i]);
	assert_int_equal(e->dropped, 0);
}

/* A machine with zram0 .. zram(n-1), probed: initialized, writeback without a backing
 * device, priority= supported, one secondary; comp_algorithm as given. */
static struct check_machine *machine(unsigned n, const char *avail)
{
	static struct check_dev devs[8];
	static struct check_machine m;

	memset(&m, 0, sizeof(m));
	memset(devs, 0, sizeof(devs));
	for (unsigned i = 0; i < n; i++)
		devs[i] = (struct check_dev){.id = i,
					     .probed = true,
					     .initialized = true,
					     .writeback = true,
					     .priority = true,
					     .n_secondaries = 1};
	m.known = n > 0;
	m.n = n;
	m.devs = devs;
	if (avail) {
		assert_int_equal(zram_parse_algo_list(avail, strlen(avail), &m.avail), 0);
		m.have_avail = true;
	}
	return &m;
}

static void test_clean(void **state)
{
	check("[global]\nrecompress-algorithms = zstd deflate\n"
	      "algorithm-params = zstd:level=19 deflate:level=9\n",
	      NULL);
	expect(&errs, NULL);
	expect(&warns, NULL);
	/* The defaults pass on a machine that offers zstd. */
	check("", machine(1, "lzo-rle [lzo] lz4 zstd"));
	expect(&errs, NULL);
	expect(&warns, NULL);
}

static void test_names(void **state)
{
	struct check_machine *m;

	check("[global]\nrecompress-algorithms = zsdt deflate\n", NULL);
	expect(&errs,
	       ":2: key 'recompress-algorithms': 'zsdt' is not a compression backend of zram "
	       "(842, lzo, lzo-rle, lz4, lz4hc, zstd, deflate); did you mean 'zstd'?",
	       NULL);
	/* Nothing near: no guess. */
	check("[global]\nrecompress-algorithms = brotli\n", NULL);
	expect(&errs,
	       ":2: key 'recompress-algorithms': 'brotli' is not a compression backend of zram "
	       "(842, lzo, lzo-rle, lz4, lz4hc, zstd, deflate)",
	       NULL);
	/* A backend the running kernel offers counts, known here or not. */
	check("[global]\nrecompress-algorithms = zstd newcomp\n",
	      machine(1, "lzo-rle [lzo] zstd newcomp"));
	expect(&errs, NULL);
	/* A known backend this kernel lacks: a warning (another kernel may have it), also
	 * for the default, which names no line and is never an error. */
	check("[zram0]\nrecompress-algorithms = deflate\n", machine(1, "[lzo-rle] lzo lz4"));
	expect(&errs, NULL);
	expect(&warns,
	       ": warning: key 'recompress-algorithms' (default): 'zstd' is not offered by this "
	       "kernel (comp_algorithm: lzo-rle lzo lz4): a device set up with this list gets no "
	       "secondary algorithm",
	       ":2: warning: key 'recompress-algorithms': 'deflate' is not offered by this kernel "
	       "(comp_algorithm: lzo-rle lzo lz4): a device set up with this list gets no "
	       "secondary algorithm",
	       NULL);
	/* Without CONFIG_ZRAM_MULTI_COMP no list is used: said once, instead of the names. */
	m = machine(2, "[lzo-rle] lzo lz4");
	m->no_multi_comp = 2;
	check("[zram0]\nrecompress-algorithms = deflate\n", m);
	expect(&errs, NULL);
	expect(&warns,
	       ": warning: key 'recompress-algorithms' (default): this kernel lacks "
	       "CONFIG_ZRAM_MULTI_COMP (zram1 has no recomp_algorithm): nothing will be "
	       "recompressed on this machine",
	       NULL);
	/* auto: the advice picks among what the kernel offers. */
	check("[global]\nrecompress-algorithms = auto\n", machine(1, "[lzo-rle] lzo"));
	expect(&errs, NULL);
}

static void test_levels(void **state)
{
	check("[global]\nrecompress-algorithms = zstd\nalgorithm-params = zstd:level=99\n", NULL);
	expect(&errs,
	       ":3: key 'algorithm-params': level 99 is out of range for zstd (-131072 to 22): "
	       "Linux 7.3+ fails disksize with EINVAL and the device gets no secondary",
	       NULL);
	check("[global]\nrecompress-algorithms = zstd lz4hc lzo\n"
	      "algorithm-params = zstd:level=-131072 2:level=16 3:level=1\n",
	      NULL);
	expect(&errs,
	       ":3: key 'algorithm-params': lzo (priority 3) has no compression levels: Linux "
	       "7.3+ fails disksize with EOPNOTSUPP and the device gets no secondary",
	       NULL);
	/* In a section: its own list, checked there; [global] is fine. */
	check("[global]\nalgorithm-params = zstd:level=3\n"
	      "[zram2]\nrecompress-algorithms = zstd deflate\nalgorithm-params = 2:level=10\n",
	      NULL);
	expect(&errs,
	       ":5: key 'algorithm-params': level 10 is out of range for deflate (-1 to 9): Linux "
	       "7.3+ fails disksize with EINVAL and the device gets no secondary",
	       NULL);
	/* deflate's -1 and lz4's acceleration are in range. */
	check("[global]\nrecompress-algorithms = deflate lz4\n"
	      "algorithm-params = deflate:level=-1 lz4:level=65537\n",
	      NULL);
	expect(&errs, NULL);
}

static void test_wb_budget(void **state)
{
	check("[global]\nwriteback-bytes-per-day = 64M\nwriteback-bytes-per-pass = 128M\n", NULL);
	expect(&warns,
	       ":3: warning: key 'writeback-bytes-per-pass': writeback-bytes-per-pass (128M) "
	       "is above writeback-bytes-per-day (64M) in [global]: a pass never writes more "
	       "than the day's budget",
	       NULL);
	expect(&errs, NULL);
	check("[global]\nwriteback-bytes-per-pass = 1G\nwriteback-bytes-per-day = 1G\n", NULL);
	expect(&warns, NULL);
	check("[zram1]\nwriteback-bytes-per-pass = 2G\n", NULL);
	expect(&warns,
	       ":2: warning: key 'writeback-bytes-per-pass': writeback-bytes-per-pass "
	       "(2G) is above writeback-bytes-per-day (1G) in [zram1]: a pass "
	       "never writes more than the day's budget",
	       NULL);
}

static void test_priorities(void **state)
{
	check("[global]\ncold-idle-age-sec = 1d\ncold-priority = 3\n", NULL);
	expect(&warns,
	       ":3: warning: key 'cold-priority': cold-priority = 3 but recompress-algorithms of "
	       "[global] has 1 algorithm: the cold tier never runs",
	       NULL);
	/* The default cold-priority (2): the line that turned the cold tier on is named. */
	check("[global]\ncold-idle-age-sec = 1d\n", NULL);
	expect(&warns,
	       ":2: warning: key 'cold-idle-age-sec': cold-priority = 2 but recompress-algorithms "
	       "of [global] has 1 algorithm: the cold tier never runs",
	       NULL);
	/* Without a cold tier, cold-priority is not used: --print-config lists every key. */
	check("[global]\ncold-priority = 3\n", NULL);
	expect(&warns, NULL);
	check("[global]\nrecompress-algorithms = zstd deflate\ncold-idle-age-sec = 1d\n"
	      "priority-idle = 2\npriority-huge = 3\n",
	      NULL);
	expect(&warns,
	       ":5: warning: key 'priority-huge': priority 3 but recompress-algorithms of "
	       "[global] has 2 algorithms: the huge pass uses every secondary instead",
	       NULL);
	/* A section with a shorter list. */
	check("[global]\nrecompress-algorithms = zstd deflate\npriority-idle = 2\n"
	      "[zram4]\nrecompress-algorithms = zstd\n",
	      NULL);
	expect(&warns,
	       ":3: warning: key 'priority-idle': priority 2 but recompress-algorithms of [zram4] "
	       "has 1 algorithm: the idle pass uses every secondary instead",
	       NULL);
	/* An initialized device keeps the kernel's secondaries. */
	check("[global]\nrecompress-algorithms = zstd deflate\npriority-idle = 2\n",
	      machine(1, "lzo-rle [lzo] zstd deflate"));
	expect(&warns,
	       ":3: warning: device zram0: priority-idle = 2: the device has 1 secondary "
	       "algorithm; every secondary is used instead (its secondaries were set before "
	       "disksize and stay until a reset)",
	       NULL);
}

static void test_backing(void **state)
{
	struct check_machine *m;

	check("[global]\nwriteback = yes\n", NULL);
	expect(&warns,
	       ":2: warning: key 'writeback': yes without backing-device in [global]: writeback "
	       "runs only on a device whose zram setup gives it a backing device (zram-generator: "
	       "writeback-device=)",
	       NULL);
	/* a plain backing device: the data stays in clear text (backing-encryption auto = no) */
	check("[global]\nwriteback = yes\nbacking-device = /dev/sdb2\n", NULL);
	expect(&warns,
	       ":3: warning: key 'backing-device': /dev/sdb2 in [global] is not encrypted: "
	       "swapped memory stays on it in clear text across reboots; backing-encryption = yes "
	       "wraps it in dm-crypt (destroying its content)",
	       NULL);
	check("[global]\nwriteback = yes\nbacking-device = /dev/sdb2\nbacking-encryption = yes\n",
	      NULL);
	expect(&warns, NULL);
	/* a backing file is a backing device (encrypted by default); without encryption: said */
	check("[zram0]\nwriteback = yes\nbacking-file = /var/lib/zram0.swap\n", NULL);
	expect(&warns, NULL);
	check("[zram0]\nwriteback = yes\nbacking-file = /var/lib/zram0.swap\n"
	      "backing-encryption = no\n",
	      NULL);
	expect(&warns,
	       ":4: warning: key 'backing-encryption': /var/lib/zram0.swap in [zram0] is not "
	       "encrypted: swapped memory stays on it in clear text across reboots; "
	       "backing-encryption = yes wraps it in dm-crypt",
	       NULL);
	/* a backing file nothing is written to (writeback = no, the default) */
	check("[zram0]\nbacking-file = /var/lib/zram0.swap\n", NULL);
	expect(&warns,
	       ":2: warning: key 'backing-file': backing-file /var/lib/zram0.swap in [zram0] with "
	       "writeback = no: the file is created and attached (backing-file-size) but nothing "
	       "is ever written to it",
	       NULL);
	m = machine(3, NULL);
	m->devs[1].backing = true;
	m->devs[2].writeback = false;
	check("[global]\nwriteback = yes\n", m);
	expect(&warns,
	       ":2: warning: key 'writeback': yes in [global], but zram0 has no backing device "
	       "and backing-device is not set: nothing can be written back",
	       ":2: warning: key 'writeback': yes in [global], but the kernel of zram2 has no "
	       "CONFIG_ZRAM_WRITEBACK",
	       NULL);
	/* A section decides for its device; [global] no longer covers it. */
	m = machine(2, NULL);
	check("[global]\nwriteback = yes\n[zram0]\nwriteback = no\n[zram1]\nwriteback = yes\n", m);
	expect(&warns,
	       ":6: warning: key 'writeback': yes in [zram1], but zram1 has no backing device and "
	       "backing-device is not set: nothing can be written back",
	       NULL);
	/* A section's backing-file is its backing device (set up before disksize): [global]'s
	 * writeback covers only zram0, which has none. */
	m = machine(2, NULL);
	check("[global]\nwriteback = yes\n[zram1]\nbacking-file = /var/lib/zram1.swap\n", m);
	expect(&warns,
	       ":2: warning: key 'writeback': yes in [global], but zram0 has no backing device "
	       "and backing-device is not set: nothing can be written back",
	       NULL);
}

static void test_devices_and_sections(void **state)
{
	check("[global]\ndevices = zram0 zram5 zram7\n[zram0]\ncompact = never\n",
	      machine(2, NULL));
	expect(&warns,
	       ":2: warning: key 'devices': zram5 zram7: no such devices (present: zram0 zram1); "
	       "managed when they appear",
	       NULL);
	check("[global]\n[zram99]\ncompact = never\n", machine(2, NULL));
	expect(&warns,
	       ":2: warning: section [zram99]: no such device (present: zram0 zram1); these "
	       "settings wait for zram99",
	       NULL);
	/* Not selected: a warning with or without a machine. */
	check("[global]\ndevices = zram0\n[zram1]\ncompact = never\n", NULL);
	expect(&warns,
	       ":3: warning: section [zram1]: zram1 is not selected by 'devices': these settings "
	       "are never used",
	       NULL);
	/* Nothing known of the machine: no device is called absent. */
	check("[global]\ndevices = zram5\n[zram5]\ncompact = never\n", machine(0, NULL));
	expect(&warns, NULL);
}

static void test_priority_note(void **state)
{
	struct dev_config d;
	char buf[256];

	config_free(&c);
	config_init(&c);
	d = c.global;
	assert_int_equal(config_priority_note(&d, 1, true, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	d.priority[PASS_IDLE] = 3;
	d.priority[PASS_HUGE] = 1;
	assert_int_equal(config_priority_note(&d, 1, true, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "priority-idle = 3: the device has 1 secondary algorithm; every "
				 "secondary is used instead");
	assert_int_equal(config_priority_note(&d, 3, false, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "priority-idle = 3, priority-huge = 1: this kernel has no "
				 "recompress priority= (Linux 6.12+); every secondary is used "
				 "instead");
	/* A short buffer stays a string. */
	assert_int_equal(config_priority_note(&d, 0, true, buf, 10), 2);
	assert_int_equal(strlen(buf), 9);
}

static void test_absent_note(void **state)
{
	static const unsigned present[] = {0, 1};
	char buf[256];

	check("[global]\ndevices = zram1 zram5\n", NULL);
	assert_int_equal(config_absent_note(&c, present, 2, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "zram5 (devices)");
	check("[global]\n[zram0]\ncompact = never\n[zram9]\ncompact = never\n", NULL);
	assert_int_equal(config_absent_note(&c, present, 2, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "zram9 ([zram9])");
	assert_int_equal(config_absent_note(&c, NULL, 0, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "zram0 ([zram0]), zram9 ([zram9])");
	check("[global]\n", NULL);
	assert_int_equal(config_absent_note(&c, NULL, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wb_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_priorities, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices_and_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_priority_note, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent_note, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
