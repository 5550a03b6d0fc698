// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reach.c: what zram-recompd can do with a device by kernel shape and setup (recompression,
 * writeback and compaction only, nothing), whether --once and can-run count it as work, the
 * STATUS tags, and the fix per setup tool. The setup tools are looked up in a temporary
 * directory used as the root (read only, relative to its fd).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "config.h"
#include "reach.h"
#include "sysfs.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct zram_dev dev(bool multi, bool init, unsigned nsec, bool wb, const char *bd)
{
	struct zram_dev d;

	memset(&d, 0, sizeof(d));
	strcpy(d.name, "zram3");
	d.id = 3;
	d.caps.multi_comp = multi;
	d.caps.writeback = wb;
	d.initialized = init;
	d.recomp.count = nsec;
	strcpy(d.backing_dev, bd);
	return d;
}

static void test_reach_shapes(void **state)
{
	struct zram_dev d;
	struct reach r;

	(void)state;
	/* Debian/CachyOS: everything */
	d = dev(true, true, 1, true, "/dev/loop0");
	reach_of(&d, true, &r);
	assert_int_equal(r.limit, REACH_OK);
	assert_true(r.recompress && r.writeback && reach_pass(&r));
	assert_string_equal(reach_does(&r), "recompression, writeback and compaction");
	/* Fedora: no WRITEBACK */
	d = dev(true, true, 1, false, "");
	reach_of(&d, true, &r);
	assert_true(r.recompress && !r.writeback);
	assert_string_equal(reach_does(&r), "recompression and compaction");
	/* Ubuntu with writeback and a backing device: writeback and compaction only */
	d = dev(false, true, 0, true, "/dev/loop0");
	reach_of(&d, true, &r);
	assert_int_equal(r.limit, REACH_NO_MULTI_COMP);
	assert_true(!r.recompress && r.writeback && reach_pass(&r));
	assert_string_equal(reach_does(&r), "writeback and compaction only");
	/* ... not configured, or no backing device: nothing */
	reach_of(&d, false, &r);
	assert_false(reach_pass(&r));
	d = dev(false, true, 0, true, "");
	reach_of(&d, true, &r);
	assert_false(reach_pass(&r));
	assert_string_equal(reach_rest(&d, &r),
			    "nothing to do: writeback = yes, but the device has no backing device");
	/* MULTI_COMP, initialized without a secondary */
	d = dev(true, true, 0, true, "");
	reach_of(&d, false, &r);
	assert_int_equal(r.limit, REACH_NO_SECONDARY);
	assert_false(reach_pass(&r));
	/* not initialized: no pass yet */
	d = dev(true, false, 0, true, "");
	reach_of(&d, false, &r);
	assert_int_equal(r.limit, REACH_NOT_INITIALIZED);
	assert_false(reach_pass(&r));
	assert_string_equal(reach_does(&r), "waits for the zram setup");
}

static void test_reach_workable(void **state)
{
	static struct config cfg;
	struct zram_dev d;

	(void)state;
	config_init(&cfg);
	d = dev(true, false, 0, false, ""); /* secondaries written before disksize */
	assert_true(reach_workable(&cfg, &d));
	d = dev(true, true, 0, false, ""); /* only adopt helps: --once exits 4 */
	assert_false(reach_workable(&cfg, &d));
	d = dev(false, false, 0, true, "");
	assert_false(reach_workable(&cfg, &d));
	cfg.global.writeback = true;
	assert_false(reach_workable(&cfg, &d)); /* no backing device will come */
	strcpy(cfg.global.backing_device, "/dev/loop0");
	assert_true(reach_workable(&cfg, &d)); /* written before disksize */
	d = dev(false, true, 0, true, "/dev/loop0");
	assert_true(reach_workable(&cfg, &d));
}

static void test_reach_tag(void **state)
{
	struct zram_dev d;
	struct reach r;
	char b[160];

	(void)state;
	d = dev(true, true, 1, false, "");
	reach_of(&d, false, &r);
	reach_tag(&r, d.name, b, sizeof(b));
	assert_string_equal(b, "");
	d = dev(true, true, 0, false, "");
	reach_of(&d, false, &r);
	reach_tag(&r, d.name, b, sizeof(b));
	assert_string_equal(b,
			    "cannot recompress: no secondary algorithm (zram-recompd adopt zram3)");
	d = dev(false, true, 0, true, "/dev/loop0");
	reach_of(&d, true, &r);
	reach_tag(&r, d.name, b, sizeof(b));
	assert_string_equal(b,
			    "writeback and compaction only: kernel lacks CONFIG_ZRAM_MULTI_COMP");
	reach_of(&d, false, &r);
	reach_tag(&r, d.name, b, sizeof(b));
	assert_string_equal(b, "nothing to do: kernel lacks CONFIG_ZRAM_MULTI_COMP");
	/* a short buffer is cut, never overrun */
	reach_tag(&r, d.name, b, 8);
	assert_int_equal(strlen(b), 7);
}

static char root[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void touch(const char *rel)
{
	char p[256], *s;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		(void)mkdir(p, 0755);
		*s = '/';
	}
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static void test_reach_fix(void **state)
{
	struct zram_dev d = dev(true, true, 0, false, "");
	char fix[512];
	unsigned t;
	int fd;

	(void)state;
	strcpy(root, "/tmp/zr-reach.XXXXXX");
	assert_non_null(mkdtemp(root));
	assert_int_equal(sysfs_open_root(root, &fd), 0);
	assert_int_equal(reach_setup_tools(fd), 0);
	reach_fix(&d, REACH_NO_MULTI_COMP, 0, fix, sizeof(fix));
	assert_string_equal(fix, ""); /* only a new kernel helps: said by the reason */
	reach_fix(&d, REACH_NO_SECONDARY, 0, fix, sizeof(fix));
	assert_non_null(strstr(fix, "zram-recompd adopt zram3 (now, no reboot needed); "));
	assert_non_null(strstr(fix, "zram-recompd --once --device zram3 before"));
	touch("lib/systemd/system/zramswap.service");
	touch("usr/lib/systemd/system-generators/zram-generator");
	touch("etc/systemd/system/systemd-zram-setup@.service.d/zram-recompd.conf");
	t = reach_setup_tools(fd);
	assert_int_equal(t, SETUP_ZRAM_TOOLS | SETUP_ZRAM_GENERATOR | SETUP_GENERATOR_DROPIN);
	reach_fix(&d, REACH_NO_SECONDARY, t, fix, sizeof(fix));
	assert_non_null(strstr(fix, "the installed drop-in systemd-zram-setup@.service.d/"));
	assert_non_null(strstr(fix,
			       "the drop-in zramswap.service.d/zram-recompd.conf for zram-tools "
			       "(install it)"));
	assert_null(strstr(fix, "--once --device"));
	touch("usr/lib/systemd/system/zram-config.service");
	assert_true(reach_setup_tools(fd) & SETUP_ZRAM_CONFIG);
	/* a short buffer: cut, NUL-terminated */
	reach_fix(&d, REACH_NO_SECONDARY, t, fix, 20);
	assert_int_equal(strlen(fix), 19);
	close(fd);
	assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reach_shapes),
		cmocka_unit_test(test_reach_workable),
		cmocka_unit_test(test_reach_tag),
		cmocka_unit_test(test_reach_fix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
