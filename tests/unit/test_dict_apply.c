// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zstd-dictionary (issue 28, items 3 and 4; dict_apply.h): the checks a file must pass
 * before its path goes to the kernel, the prediction and record formats, which priorities
 * get it, and the files: found without following a symbolic link, only on tmpfs or ramfs,
 * written with mode 0600 through a temp file that never stays behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "dict_apply.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

static struct stat st_of(mode_t mode, uid_t uid, off_t size)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = mode;
	st.st_uid = uid;
	st.st_size = size;
	return st;
}

static void test_checks(void **state)
{
	char why[128];
	struct stat st;
	uint8_t h[8] = {0x37, 0xa4, 0x30, 0xec, 0x78, 0x56, 0x34, 0x12};
	uint32_t id = 0;

	(void)state;
	st = st_of(S_IFDIR | 0700, 0, 0);
	assert_int_equal(dict_check_dir(&st, 0, why, sizeof(why)), 0);
	st = st_of(S_IFDIR | 0755, 0, 0); /* readable is fine: the files are 0600 */
	assert_int_equal(dict_check_dir(&st, 0, why, sizeof(why)), 0);
	st = st_of(S_IFDIR | 0775, 0, 0);
	assert_int_equal(dict_check_dir(&st, 0, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "mode 0775: writable by group or others");
	st = st_of(S_IFDIR | 01777, 0, 0); /* /tmp-like */
	assert_int_equal(dict_check_dir(&st, 0, why, sizeof(why)), -EPERM);
	st = st_of(S_IFDIR | 0700, 1000, 0);
	assert_int_equal(dict_check_dir(&st, 0, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "owned by uid 1000, not 0");
	st = st_of(S_IFREG | 0600, 0, 0);
	assert_int_equal(dict_check_dir(&st, 0, why, sizeof(why)), -ENOTDIR);

	st = st_of(S_IFREG | 0600, 0, 126976);
	assert_int_equal(dict_check_file(&st, 0, why, sizeof(why)), 0);
	st = st_of(S_IFREG | 0400, 0, 1024); /* systemd's credentials: 0400 */
	assert_int_equal(dict_check_file(&st, 0, why, sizeof(why)), 0);
	st = st_of(S_IFREG | 0640, 0, 4096);
	assert_int_equal(dict_check_file(&st, 0, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "mode 0640: group or others may read it (0600 or stricter)");
	st = st_of(S_IFREG | 0600, 33, 4096);
	assert_int_equal(dict_check_file(&st, 0, why, sizeof(why)), -EPERM);
	st = st_of(S_IFIFO | 0600, 0, 4096);
	assert_int_equal(dict_check_file(&st, 0, why, sizeof(why)), -EINVAL);
	st = st_of(S_IFREG | 0600, 0, 1023);
	assert_int_equal(dict_check_file(&st, 0, why, sizeof(why)), -EFBIG);
	assert_string_equal(why, "1023 bytes (a dictionary has 1024 to 1048576)");
	st = st_of(S_IFREG | 0600, 0, 1048577);
	assert_int_equal(dict_check_file(&st, 0, why, sizeof(why)), -EFBIG);

	assert_int_equal(dict_check_header(h, sizeof(h), &id), 0);
	assert_int_equal(id, 0x12345678);
	assert_int_equal(dict_check_header(h, 7, &id), -EINVAL);
	h[3] = 0xed;
	assert_int_equal(dict_check_header(h, sizeof(h), &id), -EINVAL);

	assert_true(dict_fs_in_memory(0x01021994L));  /* tmpfs */
	assert_true(dict_fs_in_memory(0x858458f6L));  /* ramfs */
	assert_false(dict_fs_in_memory(0xEF53L));     /* ext4 */
	assert_false(dict_fs_in_memory(0x9123683EL)); /* btrfs */
}

static void test_pred_format(void **state)
{
	struct dict_pred p, q;
	char buf[DICT_LINE_MAX];

	(void)state;
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2 prio1=zstd:3 prio2=zstd:9 "
					 "net-percent=7.3\n",
					 &p),
			 0);
	assert_true(p.known && p.recommend);
	assert_int_equal(p.mask, 1u << 2);
	assert_true(p.zstd[1] && p.zstd[2] && !p.zstd[0] && !p.zstd[3]);
	assert_int_equal(p.level[1], 3);
	assert_int_equal(p.level[2], 9);
	assert_string_equal(p.net, "7.3");
	assert_int_equal(dict_pred_format(&p, buf, sizeof(buf)), 0);
	assert_string_equal(
		buf, "recommend=yes priorities=2 prio1=zstd:3 prio2=zstd:9 net-percent=7.3\n");
	assert_int_equal(dict_pred_parse(buf, &q), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	/* the predicted pool per stored byte, written back as read */
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2 prio2=zstd:9 net-percent=7.3 "
					 "pool-per-byte=0.3245",
					 &p),
			 0);
	assert_string_equal(p.per_byte, "0.3245");
	assert_int_equal(dict_pred_format(&p, buf, sizeof(buf)), 0);
	assert_string_equal(
		buf, "recommend=yes priorities=2 prio2=zstd:9 net-percent=7.3 pool-per-byte=0.3245\n");
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2 pool-per-byte=0.3x", &p),
			 -EINVAL);
	/* negative levels, several priorities, another algorithm at the primary */
	assert_int_equal(
		dict_pred_parse("recommend=no priorities=1,2 prio0=lzo-rle prio1=zstd:-5", &p), 0);
	assert_false(p.recommend);
	assert_int_equal(p.mask, 6u);
	assert_int_equal(p.level[1], -5);
	assert_false(p.zstd[0]);
	/* refused: unknown keys, missing keys, bad values, two lines, page-sized junk */
	assert_int_equal(dict_pred_parse("recommend=yes", &p), -EINVAL);
	assert_false(p.known);
	assert_int_equal(dict_pred_parse("priorities=2", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=maybe priorities=2", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=yes priorities=4", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2,2", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2 prio4=zstd:3", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2 prio1=zstd:x", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2 net-percent=7%", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=yes priorities=2 dict=/etc/shadow", &p),
			 -EINVAL);
	assert_int_equal(dict_pred_parse("recommend=yes\npriorities=2\n", &p), -EINVAL);
	assert_int_equal(dict_pred_parse("", &p), -EINVAL);
}

static void test_record_format(void **state)
{
	struct dict_record r;

	(void)state;
	assert_int_equal(dict_record_parse("applied=2 file=/run/zram-recompd/dict/zram0.zdict "
					   "bytes=126976 id=79084995 source=run recommend=yes "
					   "priorities=2 prio2=zstd:9 net-percent=7.5\n",
					   &r),
			 0);
	assert_int_equal(r.applied, 4u);
	assert_string_equal(r.file, "/run/zram-recompd/dict/zram0.zdict");
	assert_int_equal(r.bytes, 126976);
	assert_int_equal(r.id, 79084995);
	assert_false(r.credential);
	assert_true(r.pred.known && r.pred.recommend);
	assert_string_equal(r.pred.net, "7.5");
	assert_int_equal(dict_record_parse("applied=1,3 file=/run/c/zram1.zdict bytes=1024 id=1 "
					   "source=credential",
					   &r),
			 0);
	assert_int_equal(r.applied, 10u);
	assert_true(r.credential);
	assert_false(r.pred.known);
	assert_int_equal(dict_record_parse("applied= file=/a bytes=1 id=1 source=run", &r),
			 -EINVAL);
	assert_int_equal(dict_record_parse("applied=2 file=a bytes=1 id=1 source=run", &r),
			 -EINVAL);
	assert_int_equal(dict_record_parse("applied=2 bytes=1 id=1 source=run", &r), -EINVAL);
	assert_int_equal(dict_record_parse("applied=2 file=/a source=disk", &r), -EINVAL);
}

static struct dev_config cfg_of(enum dict_use use, unsigned prios, const char *a1, const char *a2,
				int l1, int l2)
{
	struct dev_config c;

	memset(&c, 0, sizeof(c));
	c.dict_use = use;
	c.dict_prios = prios;
	strcpy(c.algos[0], a1);
	c.n_algos = 1;
	if (a2) {
		strcpy(c.algos[1], a2);
		c.n_algos = 2;
	}
	c.has_level[0] = l1 != 0;
	c.level[0] = l1;
	c.has_level[1] = l2 != 0;
	c.level[1] = l2;
	return c;
}

static void test_mask(void **state)
{
	struct dict_pred p;
	struct dev_config c;
	char note[256];

	(void)state;
	assert_int_equal(
		dict_pred_parse("recommend=yes priorities=2 prio1=zstd:3 prio2=zstd:9", &p), 0);
	/* no: never, whatever the prediction */
	c = cfg_of(DICT_USE_NO, 0, "zstd", "zstd", 0, 9);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 0u);
	assert_string_equal(note, "");
	/* auto: the prediction's priority; the default level 3 counts as 3 */
	c = cfg_of(DICT_USE_AUTO, 0, "zstd", "zstd", 0, 9);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 4u);
	assert_string_equal(note, "");
	/* auto, the configuration moved on: another level, another algorithm */
	c = cfg_of(DICT_USE_AUTO, 0, "zstd", "zstd", 0, 19);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 0u);
	assert_string_equal(note,
			    "priority 2 was predicted at zstd level 9, the configuration has 19");
	c = cfg_of(DICT_USE_AUTO, 0, "zstd", "deflate", 0, 9);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 0u);
	assert_string_equal(note, "priority 2 does not hold zstd as predicted");
	c = cfg_of(DICT_USE_AUTO, 0, "zstd", NULL, 0, 0);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 0u);
	/* auto, not recommended, or no prediction: nothing, and why */
	p.recommend = false;
	c = cfg_of(DICT_USE_AUTO, 0, "zstd", "zstd", 0, 9);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 0u);
	assert_string_equal(note, "advise did not recommend it (net saving ?%): not applied");
	memset(&p, 0, sizeof(p));
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 0u);
	assert_string_equal(note,
			    "no prediction (advise --dict --dict-install writes one): not applied");
	/* the primary is never given one */
	assert_int_equal(
		dict_pred_parse("recommend=yes priorities=0,2 prio0=zstd:3 prio2=zstd:9", &p), 0);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 4u);
	assert_non_null(strstr(note, "the primary is not given one"));
	/* yes: every zstd secondary, quietly past the others */
	c = cfg_of(DICT_USE_PRIOS, DICT_PRIOS_ZSTD, "deflate", "zstd", 0, 0);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 4u);
	assert_string_equal(note, "");
	c = cfg_of(DICT_USE_PRIOS, DICT_PRIOS_ZSTD, "lz4", NULL, 0, 0);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 0u);
	assert_string_equal(note, "no secondary priority holds zstd: not applied");
	/* a list: those, whatever the prediction; one without zstd is said */
	memset(&p, 0, sizeof(p));
	c = cfg_of(DICT_USE_PRIOS, (1u << 1) | (1u << 3), "zstd", "zstd", 3, 9);
	assert_int_equal(dict_apply_mask(&c, &p, note, sizeof(note)), 2u);
	assert_string_equal(note, "priority 3 does not hold zstd");
}

/* A directory on tmpfs for the file tests, or NULL (then they are skipped). */
static char *shm_dir(void)
{
	char tmpl[] = "/dev/shm/zr-test-dict.XXXXXX", *d;
	struct statfs sf;

	if (statfs("/dev/shm", &sf) < 0 || !dict_fs_in_memory((long)sf.f_type))
		return NULL;
	d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

static void write_dict(const char *path, size_t size, mode_t mode)
{
	uint8_t *b = calloc(1, size);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_non_null(b);
	assert_true(fd >= 0);
	b[0] = 0x37, b[1] = 0xa4, b[2] = 0x30, b[3] = 0xec, b[4] = 7;
	assert_int_equal(write(fd, b, size), (ssize_t)size);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
	free(b);
}

static void rm_rf(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_files(void **state)
{
	char *base = shm_dir(), dir[256], path[300], why[256], line[DICT_LINE_MAX];
	struct dict_found f = {0};
	struct stat st;
	int fd;

	(void)state;
	if (!base) {
		skip();
		return; /* skip() is not noreturn to the compiler */
	}
	snprintf(dir, sizeof(dir), "%s/run/dict", base);
	setenv("ZRAM_RECOMPD_DICT_DIR", dir, 1);
	setenv("ZRAM_RECOMPD_CREDENTIALS_ROOT", base, 1);
	unsetenv("CREDENTIALS_DIRECTORY");
	/* nothing anywhere: -ENOENT, quietly */
	assert_int_equal(dict_find("zram0", &f, why, sizeof(why)), -ENOENT);
	/* made mode 0700, with its parents */
	fd = dict_dir_open(dir, true, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/zram0.zdict", dir);
	write_dict(path, 4096, 0600);
	assert_int_equal(dict_find("zram0", &f, why, sizeof(why)), 0);
	assert_string_equal(f.path, path);
	assert_int_equal(f.size, 4096);
	assert_int_equal(f.id, 7);
	assert_false(f.credential || f.pred.known);
	/* the record: mode 0600, read back, removed; no temp file left */
	assert_int_equal(dict_record_write("zram0", &f, 4u), 0);
	snprintf(path, sizeof(path), "%s/zram0.zdict.applied", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(dict_record_read("zram0", line, sizeof(line)), 0);
	assert_non_null(strstr(line, "applied=2 file="));
	snprintf(path, sizeof(path), "%s/.zram0.zdict.applied.tmp", dir);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(dict_record_remove("zram0"), 0);
	assert_int_equal(dict_record_read("zram0", line, sizeof(line)), -ENOENT);
	assert_int_equal(dict_record_remove("zram0"), 0); /* absent is fine */
	/* a symbolic link in the directory's path: refused, not followed */
	snprintf(path, sizeof(path), "%s/link", base);
	assert_int_equal(symlink("run/dict", path), 0);
	assert_true(dict_dir_open(path, false, why, sizeof(why)) < 0);
	assert_string_equal(why, "a symbolic link on the way");
	/* a file of others' reading: refused, with the file named */
	snprintf(path, sizeof(path), "%s/zram0.zdict", dir);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(dict_find("zram0", &f, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "/run/dict/zram0.zdict: mode 0644"));
	/* the unit's credentials are found when /run has none */
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/zram-recompd-dict@zram0.service", base);
	assert_int_equal(mkdir(path, 0500), 0);
	snprintf(path, sizeof(path), "%s/zram-recompd-dict@zram0.service/zram0.zdict", base);
	write_dict(path, 2048, 0400);
	assert_int_equal(dict_find("zram0", &f, why, sizeof(why)), 0);
	assert_true(f.credential);
	assert_string_equal(f.path, path);
	/* a device name that is not one: refused before any path is made of it */
	assert_int_equal(dict_find("zram0/../x", &f, why, sizeof(why)), -EINVAL);
	rm_rf(base);
	free(base);
}

/* A directory on persistent storage (the tests' /tmp or cwd) is refused for dictionaries. */
static void test_not_memory(void **state)
{
	char tmpl[] = "zr-test-dict-disk.XXXXXX", *d = mkdtemp(tmpl), abs[PATH_MAX], why[256];
	struct statfs sf;
	int fd;

	(void)state;
	assert_non_null(d);
	assert_non_null(realpath(d, abs));
	assert_int_equal(statfs(abs, &sf), 0);
	if (dict_fs_in_memory((long)sf.f_type)) {
		rmdir(d);
		skip();
	}
	assert_int_equal(chmod(abs, 0700), 0);
	fd = dict_dir_open(abs, false, why, sizeof(why));
	assert_int_equal(fd, -EXDEV);
	assert_non_null(strstr(why, "not on tmpfs or ramfs"));
	rmdir(abs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks),	      cmocka_unit_test(test_pred_format),
		cmocka_unit_test(test_record_format), cmocka_unit_test(test_mask),
		cmocka_unit_test(test_files),	      cmocka_unit_test(test_not_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
