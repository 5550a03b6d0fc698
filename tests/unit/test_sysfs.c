// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sysfs layer and the host reads on top of it, on temporary trees, with the kernel's
 * failures injected: openat2 missing (ENOSYS) or refusing one path (EACCES), a directory
 * read failing (getdents EIO), files larger than the buffer, more than 64 devices.
 *
 * Link: tests/unit/test_sysfs.ldflags adds -Wl,--wrap=syscall -Wl,--wrap=readdir (and
 * readdir64, its name on 32-bit targets), so the
 * library's syscall(SYS_openat2, ...) and readdir() calls reach __wrap_syscall and
 * __wrap_readdir below, which fail them as a test asks and otherwise pass them on (the
 * Makefile's unit-test rule explains the convention).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "host.h"
#include "sysfs.h"
#include "util.h"
#include "zram.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fakeroot.h"

static struct {
	bool openat2_enosys;	 /* every openat2 fails with ENOSYS */
	const char *eacces_path; /* openat2 of this relative path fails with EACCES */
	bool readdir_eio;	 /* readdir fails with EIO */
	unsigned openat2_eagain; /* this many openat2 calls fail with EAGAIN first */
	unsigned openat2_calls;
} inj;

long __real_syscall(long number, ...);
long __wrap_syscall(long number, ...);
struct dirent *__real_readdir(DIR *d);
struct dirent *__wrap_readdir(DIR *d);

long __wrap_syscall(long number, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_openat2) {
		inj.openat2_calls++;
		if (inj.openat2_enosys) {
			errno = ENOSYS;
			return -1;
		}
		if (inj.openat2_eagain) {
			inj.openat2_eagain--;
			errno = EAGAIN;
			return -1;
		}
		if (inj.eacces_path && strcmp((const char *)a[1], inj.eacces_path) == 0) {
			errno = EACCES;
			return -1;
		}
	}
	return __real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

struct dirent *__wrap_readdir(DIR *d)
{
	if (inj.readdir_eio) {
		errno = EIO;
		return NULL;
	}
	return __real_readdir(d);
}

/*
 * 32-bit targets with the Makefile's _FILE_OFFSET_BITS=64 (armhf): <dirent.h> turns readdir
 * into readdir64, wrapped as well (the .ldflags). Unused on 64-bit targets.
 */
struct dirent64 *__real_readdir64(DIR *d);
struct dirent64 *__wrap_readdir64(DIR *d);

struct dirent64 *__wrap_readdir64(DIR *d)
{
	if (inj.readdir_eio) {
		errno = EIO;
		return NULL;
	}
	return __real_readdir64(d);
}

static int setup(void **state)
{
	(void)state;
	memset(&inj, 0, sizeof(inj));
	return fr_setup();
}

static int teardown(void **state)
{
	(void)state;
	memset(&inj, 0, sizeof(inj));
	fr_teardown();
	return 0;
}

/* A file that does not fit: -EFBIG, and the buffer is a terminated string all the same. */
static void test_read_efbig_terminated(void **state)
{
	char big[300], buf[64];
	size_t len = 0;
	int root;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fr_write("f", big);
	root = fr_open_root();
	memset(buf, 'y', sizeof(buf));
	assert_int_equal(sysfs_read(root, "f", buf, sizeof(buf), &len), -EFBIG);
	assert_int_equal(len, sizeof(buf) - 1);
	assert_int_equal(buf[sizeof(buf) - 1], '\0');
	/* exactly full is not too big */
	big[sizeof(buf) - 1] = '\0';
	fr_write("g", big);
	assert_int_equal(sysfs_read(root, "g", buf, sizeof(buf), &len), 0);
	close(root);
}

/*
 * /proc/meminfo beyond any fixed buffer (9.6 KiB and 64 KiB: many NUMA or hugepage lines):
 * read by length, every line seen, and MemAvailable after the first 8 KiB still found.
 */
static void test_meminfo_large(void **state)
{
	static char text[70000];
	uint64_t total = 0, avail = 0;
	size_t o = 0;
	int root;

	(void)state;
	for (size_t want = 9800; want <= 65536; want = want * 7) {
		o = (size_t)snprintf(text, sizeof(text), "MemTotal:        1000000 kB\n");
		for (unsigned i = 0; o < want; i++)
			o += (size_t)snprintf(text + o, sizeof(text) - o,
					      "Padding%05u:     %8u kB\n", i, i);
		/* past 8 KiB, so a truncated read would miss it */
		(void)snprintf(text + o, sizeof(text) - o, "MemAvailable:     250000 kB\n");
		fr_write("proc/meminfo", text);
		root = fr_open_root();
		total = avail = 0;
		assert_int_equal(host_read_meminfo(root, &total, &avail), 0);
		assert_true(total == 1024000000ULL);
		assert_true(avail == 256000000ULL);
		close(root);
	}
}

/* A line cut by the end of the file is still a line; no MemAvailable is an error. */
static void test_meminfo_errors(void **state)
{
	uint64_t total, avail;
	int root;

	(void)state;
	fr_write("proc/meminfo", "MemTotal:        1000000 kB\nMemAvailable:     250000 kB");
	root = fr_open_root();
	assert_int_equal(host_read_meminfo(root, &total, &avail), 0);
	assert_true(avail == 256000000ULL);
	fr_write("proc/meminfo", "MemTotal:        1000000 kB\n");
	assert_int_equal(host_read_meminfo(root, &total, &avail), -EINVAL);
	close(root);
}

/* 70 devices, created in an order readdir does not sort: all listed, in numeric order. */
static void test_list_zram_many(void **state)
{
	unsigned *ids = NULL;
	char rel[64];
	int root, n;

	(void)state;
	for (unsigned i = 0; i < 70; i++) {
		snprintf(rel, sizeof(rel), "sys/block/zram%u/initstate", (i * 37) % 70);
		fr_write(rel, "0\n");
	}
	fr_write("sys/block/loop0/size", "0\n");
	fr_write("sys/block/zram07/size", "0\n"); /* not a zram name */
	root = fr_open_root();
	n = sysfs_list_zram(root, &ids);
	assert_int_equal(n, 70);
	for (int i = 0; i < n; i++)
		assert_int_equal(ids[i], (unsigned)i);
	free(ids);
	close(root);
}

/* A failed directory read is that error, not an empty list ("no zram device"). */
static void test_list_zram_eio(void **state)
{
	char names[4][64];
	unsigned *ids = NULL;
	int root;

	(void)state;
	fr_write("sys/block/zram0/initstate", "0\n");
	root = fr_open_root();
	inj.readdir_eio = true;
	assert_int_equal(sysfs_list_zram(root, &ids), -EIO);
	assert_int_equal(sysfs_list_dir(root, "sys/block", names, 4), -EIO);
	inj.readdir_eio = false;
	assert_int_equal(sysfs_list_zram(root, &ids), 1);
	free(ids);
	close(root);
}

/* A device directory that cannot be opened is that error, not "the device disappeared". */
static void test_probe_eacces(void **state)
{
	struct kver v = { 6, 12, 0 };
	struct zram_dev d;
	const char *attr = NULL;
	int root;

	(void)state;
	fr_write("sys/block/zram0/initstate", "1\n");
	root = fr_open_root();
	inj.eacces_path = "sys/block/zram0/";
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), -EACCES);
	inj.eacces_path = "sys/block/zram0/initstate";
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), -EACCES);
	assert_string_equal(attr, "initstate");
	inj.eacces_path = NULL;
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 1, &d, &attr), -ENODEV);
	close(root);
}

/*
 * Optional statistics with more columns than this version knows (a later kernel's) do not
 * cost the device (issue 11 #8, fixed before in zram_parse_fields; this is the probe).
 */
static void test_probe_extra_columns(void **state)
{
	struct kver v = { 6, 12, 0 };
	struct zram_dev d;
	const char *attr = NULL;
	int root;

	(void)state;
	fr_write("sys/block/zram0/initstate", "1\n");
	fr_write("sys/block/zram0/disksize", "1073741824\n");
	fr_write("sys/block/zram0/comp_algorithm", "[lzo-rle] lzo lz4 zstd \n");
	fr_write("sys/block/zram0/mm_stat", " 4096 100 8192 0 8192 0 0 0 0\n");
	fr_write("sys/block/zram0/io_stat", "       0        2 0     1234       77\n");
	fr_write("sys/block/zram0/bd_stat", "      12        3       15        9\n");
	root = fr_open_root();
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), 0);
	assert_true(d.has_io_stat && d.has_bd_stat);
	assert_true(d.io_stat[3] == 1234);
	assert_true(d.bd_stat[2] == 15);
	close(root);
}

/*
 * Without openat2 (ENOSYS, before Linux 5.6) nothing may resolve outside a root that is
 * not "/": an absolute symlink in the fake tree must not reach the host file it names.
 */
/*
 * openat2 EAGAIN (a rename or mount raced with a RESOLVE_IN_ROOT lookup through "..") is
 * retried, not reported: seen as "sysfs: Resource temporarily unavailable, skipping the
 * device" while other processes renamed files.
 */
static void test_openat2_eagain_retried(void **state)
{
	char buf[64];
	int root;

	(void)state;
	fr_write("sys/devices/virtual/block/zram0/initstate", "1\n");
	root = fr_open_root();
	inj.openat2_eagain = 3;
	inj.openat2_calls = 0;
	assert_int_equal(sysfs_read(root, "sys/devices/virtual/block/zram0/initstate", buf,
				    sizeof(buf), NULL),
			 0);
	assert_string_equal(buf, "1\n");
	assert_int_equal(inj.openat2_calls, 4);
	/* a lookup that never settles ends with EAGAIN rather than spinning */
	inj.openat2_eagain = 1000;
	assert_int_equal(sysfs_read(root, "sys/devices/virtual/block/zram0/initstate", buf,
				    sizeof(buf), NULL),
			 -EAGAIN);
	inj.openat2_eagain = 0;
	close(root);
}

static void test_enosys_no_escape(void **state)
{
	char outside[PATH_MAX], link[PATH_MAX], buf[64];
	int root, host_root, r;

	(void)state;
	fr_write("outside", "untouched\n");
	fr_write("sys/devices/virtual/block/zram0/mm_stat", "1 2 3\n");
	fr_write("sys/devices/virtual/block/zram0/initstate", "1\n");
	snprintf(outside, sizeof(outside), "%s/outside", fr_dir);
	snprintf(link, sizeof(link), "%s/sys/block", fr_dir);
	(void)mkdir(link, 0755);
	snprintf(link, sizeof(link), "%s/sys/block/zram0", fr_dir);
	assert_int_equal(symlink("/sys/devices/virtual/block/zram0", link), 0);
	snprintf(link, sizeof(link), "%s/sys/devices/virtual/block/zram0/recompress", fr_dir);
	assert_int_equal(symlink(outside, link), 0);
	root = fr_open_root();

	/* with openat2 the link resolves inside the root, where nothing is */
	assert_int_equal(sysfs_write(root, "sys/block/zram0/recompress", "type=huge"), -ENOENT);
	assert_string_equal(fr_read("outside"), "untouched\n");

	inj.openat2_enosys = true;
	r = sysfs_write(root, "sys/block/zram0/recompress", "type=huge");
	assert_true(r < 0);
	assert_string_equal(fr_read("outside"), "untouched\n");
	r = sysfs_read(root, "sys/block/zram0/initstate", buf, sizeof(buf), NULL);
	assert_true(r < 0);
	assert_true(inj.openat2_calls > 0);

	/* The host's own root has nothing to escape from: plain openat() is fine there. */
	host_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(host_root >= 0);
	snprintf(link, sizeof(link), "%s/sys/devices/virtual/block/zram0/mm_stat", fr_dir + 1);
	assert_int_equal(sysfs_read(host_root, link, buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "1 2 3\n");
	close(host_root);
	close(root);
}

/*
 * zram-recompd(8) SECURITY names exactly what the allowlists allow, so that the page a
 * reviewer reads cannot drift from the code again (it once said "exactly five attributes"
 * while eleven were allowed). Its paragraphs: the one with "refuse any other path" lists the
 * daemon's and --once's attributes (sysfs_write_allowed), the one starting ".B adopt" what
 * adopt adds (sysfs_adopt_write_allowed), the one with "No command writes" attributes no
 * allowlist has. Every zram attribute of 6.2 .. 7.3 is asked about.
 */
static const char *const zram_attrs[] = {
	"disksize", "initstate", "reset", "mem_limit", "mem_used_max", "idle", "max_comp_streams",
	"comp_algorithm", "compact", "io_stat", "mm_stat", "debug_stat", "bd_stat", "stat",
	"backing_dev", "writeback", "writeback_limit", "writeback_limit_enable",
	"writeback_batch_size", "compressed_writeback", "recomp_algorithm", "recompress",
	"algorithm_params",
};

/* zram_attrs as the char[][32] that listed() takes. */
static char (*zram_attrs_buf(void))[32]
{
	static char buf[ARRAY_SIZE(zram_attrs)][32];

	for (size_t i = 0; i < ARRAY_SIZE(zram_attrs); i++)
		snprintf(buf[i], sizeof(buf[i]), "%s", zram_attrs[i]);
	return buf;
}

/*
 * The italic names (.I/.IR/.BI first words, without "\\%") between p and stop, appended to
 * names[n..max).
 */
static unsigned italic_names(const char *p, const char *stop, char names[][32], unsigned n,
			     unsigned max)
{
	while ((p = strstr(p, "\n.I")) && p < stop) {
		char w[32];
		size_t i = 0;

		p += 3;
		if (*p == 'R')
			p++;
		if (*p != ' ')
			continue;
		p++;
		if (strncmp(p, "\\%", 2) == 0)
			p += 2;
		while (i < sizeof(w) - 1 && (p[i] == '_' || (p[i] >= 'a' && p[i] <= 'z')))
			i++;
		memcpy(w, p, i);
		w[i] = '\0';
		if (i && n < max)
			strcpy(names[n++], w);
	}
	return n;
}

/* The italic names (.I/.IR/.BI first words, without "\%") of the paragraph holding key. */
static unsigned man_names(const char *man, const char *key, char names[][32], unsigned max)
{
	const char *sec = strstr(man, "\n.SH SECURITY\n"), *end, *k, *p, *pend;
	unsigned n = 0;

	assert_non_null(sec);
	end = strstr(sec + 1, "\n.SH ");
	k = strstr(sec, key);
	assert_non_null(k);
	assert_true(!end || k < end);
	for (p = k; p > sec && strncmp(p, "\n.PP\n", 5) != 0; p--)
		;
	pend = strstr(k, "\n.PP\n");
	if (!pend || (end && pend > end))
		pend = end;
	return italic_names(p, pend, names, n, max);
}

static bool listed(char names[][32], unsigned n, const char *a)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(names[i], a) == 0)
			return true;
	return false;
}

static void test_man_security_lists_allowlist(void **state)
{
	static char man[1 << 20];
	char daemon[40][32], adopt[40][32], never[40][32], path[96];
	FILE *f = fopen("docs/zram-recompd.8", "re");
	size_t len;
	unsigned nd, na, nn;

	(void)state;
	assert_non_null(f);
	len = fread(man, 1, sizeof(man) - 1, f);
	fclose(f);
	man[len] = '\0';
	nd = man_names(man, "refuse any other path", daemon, 40);
	na = man_names(man, "\n.B adopt\n", adopt, 40);
	nn = man_names(man, "No command writes", never, 40);
	for (size_t i = 0; i < ARRAY_SIZE(zram_attrs); i++) {
		const char *a = zram_attrs[i];
		bool d, ad;

		snprintf(path, sizeof(path), "sys/block/zram0/%s", a);
		d = sysfs_write_allowed(path);
		ad = sysfs_adopt_write_allowed(path);
		if (d != listed(daemon, nd, a))
			fail_msg("%s: allowed %d, in SECURITY's daemon list %d", a, d,
				 listed(daemon, nd, a));
		if (ad != listed(adopt, na, a))
			fail_msg("%s: adopt-allowed %d, in SECURITY's adopt list %d", a, ad,
				 listed(adopt, na, a));
		if (listed(never, nn, a) && (d || ad))
			fail_msg("%s: SECURITY says no command writes it, but it is allowed", a);
	}
	/* the controls: hot_remove for adopt only, hot_add never */
	assert_true(sysfs_adopt_write_allowed("sys/class/zram-control/hot_remove"));
	assert_true(listed(adopt, na, "hot_remove"));
	assert_false(sysfs_write_allowed("sys/class/zram-control/hot_remove"));
	assert_false(sysfs_adopt_write_allowed("sys/class/zram-control/hot_add"));
	assert_true(listed(never, nn, "hot_add"));
	/* nothing listed that is not an attribute asked about above */
	for (unsigned i = 0; i < nd; i++) {
		snprintf(path, sizeof(path), "sys/block/zram0/%.31s", daemon[i]);
		if (!sysfs_write_allowed(path))
			fail_msg("SECURITY lists %s for the daemon, which may not write it", daemon[i]);
	}
}

/*
 * FILES names the attributes of /sys/block/zramN/ in three lists, each up to the next
 * ".br" or ".TP": "Read:", "Written by the daemon and --once:" (exactly
 * sysfs_write_allowed's zram attributes) and "Also written by adopt:" (exactly what
 * sysfs_adopt_write_allowed adds). Every attribute read must be one the sources name.
 */
static unsigned files_names(const char *man, const char *marker, char names[][32], unsigned max)
{
	const char *sec = strstr(man, "\n.SH FILES\n"), *end, *p, *stop;
	unsigned n = 0;

	assert_non_null(sec);
	end = strstr(sec + 1, "\n.SH ");
	p = strstr(sec, marker);
	if (!p || (end && p > end))
		fail_msg("FILES has no \"%s\"", marker);
	stop = p + strlen(marker);
	while (*stop && strncmp(stop, "\n.br\n", 5) != 0 && strncmp(stop, "\n.TP\n", 5) != 0)
		stop++;
	return italic_names(p, stop, names, n, max);
}

/* Whether some file of src/ names attribute a as a string ("a" or ".../a"). */
static bool src_names(const char *a)
{
	static const char *const files[] = {
		"src/kernel/zram.c", "src/pass/writeback.c", "src/adopt/adopt_exec.c",
		"src/pass/algorithms.c", "src/pass/pass.c", "src/pass/wb_hold.c",
	};
	static char buf[1 << 18];
	char q1[40], q2[40];

	snprintf(q1, sizeof(q1), "\"%.31s\"", a);
	snprintf(q2, sizeof(q2), "/%.31s\"", a);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		FILE *f = fopen(files[i], "re");
		size_t len;

		/* A file moved or renamed must fail here, not make every name look unread. */
		if (!f)
			fail_msg("%s: %m (moved? update this list)", files[i]);
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		if (strstr(buf, q1) || strstr(buf, q2))
			return true;
	}
	return false;
}

static void test_man_files_lists_allowlist(void **state)
{
	static char man[1 << 20];
	char rd[40][32], wr[40][32], ad[40][32], path[96];
	FILE *f = fopen("docs/zram-recompd.8", "re");
	unsigned nr, nw, na;
	size_t len;

	(void)state;
	assert_non_null(f);
	len = fread(man, 1, sizeof(man) - 1, f);
	fclose(f);
	man[len] = '\0';
	nr = files_names(man, "\nRead:\n", rd, 40);
	nw = files_names(man, "\nWritten by the daemon and \\-\\-once:\n", wr, 40);
	na = files_names(man, "\nAlso written by adopt:\n", ad, 40);
	assert_true(nr > 5 && nw > 5 && na > 0);
	for (size_t i = 0; i < ARRAY_SIZE(zram_attrs); i++) {
		const char *a = zram_attrs[i];
		bool d, o;

		snprintf(path, sizeof(path), "sys/block/zram0/%s", a);
		d = sysfs_write_allowed(path);
		o = sysfs_adopt_write_allowed(path);
		if (d != listed(wr, nw, a))
			fail_msg("%s: allowed %d, in FILES' written list %d", a, d, listed(wr, nw, a));
		if ((o && !d) != listed(ad, na, a))
			fail_msg("%s: adopt-only %d, in FILES' adopt list %d", a, o && !d,
				 listed(ad, na, a));
	}
	for (unsigned i = 0; i < nw; i++)
		if (!listed(zram_attrs_buf(), ARRAY_SIZE(zram_attrs), wr[i]))
			fail_msg("FILES lists %s as written, which is no zram attribute", wr[i]);
	for (unsigned i = 0; i < na; i++)
		if (!listed(zram_attrs_buf(), ARRAY_SIZE(zram_attrs), ad[i]))
			fail_msg("FILES lists %s as written by adopt, which is no zram attribute",
				 ad[i]);
	for (unsigned i = 0; i < nr; i++) {
		if (!listed(zram_attrs_buf(), ARRAY_SIZE(zram_attrs), rd[i]))
			fail_msg("FILES lists %s as read, which is no zram attribute", rd[i]);
		if (!src_names(rd[i]))
			fail_msg("FILES lists %s as read, which no source file names", rd[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_efbig_terminated, setup, teardown),
		cmocka_unit_test(test_man_security_lists_allowlist),
		cmocka_unit_test(test_man_files_lists_allowlist),
		cmocka_unit_test_setup_teardown(test_meminfo_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meminfo_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_zram_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_zram_eio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_eacces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_extra_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_openat2_eagain_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enosys_no_escape, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
