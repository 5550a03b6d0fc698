// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The backing file (backing_size.c, backing_file.c, loopdev.c, dmcrypt.c). The size rule
 * and the guard are pure. The file is created for real in a directory on a disk
 * filesystem (/var/tmp, or BACKING_TEST_DIR; skipped with the reason when that is tmpfs or
 * this is not root, which the checks require), and refused on /dev/shm (tmpfs). The loop
 * device is attached for real where /dev/loop-control works, and dm-crypt where
 * /dev/mapper/control exists and libcryptsetup.so.12 loads: otherwise those tests say why
 * and are skipped. Nothing is faked: a skipped step is not a passed one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "backing.h"
#include "config.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

static const struct cfg_share pct15 = {.percent = 15};

/* openat2 fails with ENOSYS while set, as under systemd's RestrictSUIDSGID= (the backing
 * unit): tests/unit/test_backing.ldflags wraps syscall() */
static bool openat2_enosys;

long __real_syscall(long number, ...);
long __wrap_syscall(long number, ...);

long __wrap_syscall(long number, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_openat2 && openat2_enosys) {
		errno = ENOSYS;
		return -1;
	}
	return __real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* fsetxattr fails with EOPNOTSUPP while set, as on a filesystem without trusted xattrs
 * (test_backing.ldflags wraps it) */
static bool fsetxattr_eopnotsupp;

int __real_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
int __wrap_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);

int __wrap_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)
{
	if (fsetxattr_eopnotsupp) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return __real_fsetxattr(fd, name, value, size, flags);
}

static void test_size_rule_share(void **state)
{
	struct backing_fs fs = {.total = 100 * GiB, .avail = 10 * GiB};
	struct backing_size bs;

	/* 15% of 10 GiB free = 1.5 GiB; 15 GiB must stay free of 100: 8.5 GiB left is less */
	assert_int_equal(backing_size_rule(&pct15, &pct15, &fs, 0, &bs), -ENOSPC);
	assert_int_equal(bs.size, 1536 * MiB);
	assert_int_equal(bs.min_free, 15 * GiB);
	assert_int_equal(bs.free_after, 10 * GiB - 1536 * MiB);
	/* 60 GiB free: 9 GiB, capped at 6 GiB; 54 GiB stays free */
	fs.avail = 60 * GiB;
	assert_int_equal(backing_size_rule(&pct15, &pct15, &fs, 0, &bs), 0);
	assert_int_equal(bs.size, 6 * GiB);
	assert_int_equal(bs.free_after, 54 * GiB);
	/* 500 MiB free on a 1 GiB disk: 75 MiB, raised to 128 MiB; 372 MiB >= 153.6 MiB */
	fs = (struct backing_fs){.total = GiB, .avail = 500 * MiB};
	assert_int_equal(backing_size_rule(&pct15, &pct15, &fs, 0, &bs), 0);
	assert_int_equal(bs.size, 128 * MiB);
	/* the disksize caps it (never more than can be written back), whole MiB */
	fs.avail = 60 * GiB;
	fs.total = 100 * GiB;
	assert_int_equal(backing_size_rule(&pct15, &pct15, &fs, 300 * MiB + 4096, &bs), 0);
	assert_int_equal(bs.size, 300 * MiB);
}

static void test_size_rule_bytes(void **state)
{
	struct cfg_share size = {.bytes = 64 * MiB + 123}, free0 = {.bytes = 0};
	struct cfg_share free_b = {.bytes = 10 * GiB};
	struct backing_fs fs = {.total = 100 * GiB, .avail = 10 * GiB};
	struct backing_size bs;

	/* an absolute size is the admin's: no 128 MiB floor, rounded down to whole MiB */
	assert_int_equal(backing_size_rule(&size, &free0, &fs, 0, &bs), 0);
	assert_int_equal(bs.size, 64 * MiB);
	/* min-free in bytes: 10 GiB - 64 MiB left is below 10 GiB */
	assert_int_equal(backing_size_rule(&size, &free_b, &fs, 0, &bs), -ENOSPC);
	assert_int_equal(bs.min_free, 10 * GiB);
	/* more than is free: refused, free_after saturates at 0 */
	size.bytes = 20 * GiB;
	assert_int_equal(backing_size_rule(&size, &free0, &fs, 0, &bs), -ENOSPC);
	assert_int_equal(bs.free_after, 0);
	/* a disksize below 1 MiB leaves nothing */
	assert_int_equal(backing_size_rule(&size, &free0, &fs, 4096, &bs), -EINVAL);
}

/* Figures of a huge filesystem must not wrap (percent of UINT64_MAX). */
static void test_size_rule_saturating(void **state)
{
	struct backing_fs fs = {.total = UINT64_MAX, .avail = UINT64_MAX};
	struct cfg_share all = {.percent = 100}, half = {.percent = 50};
	struct backing_size bs;

	assert_int_equal(backing_size_rule(&pct15, &half, &fs, 0, &bs), 0);
	assert_int_equal(bs.size, 6 * GiB);
	assert_true(bs.min_free > UINT64_MAX / 2 - 100 && bs.min_free <= UINT64_MAX / 2 + 1);
	assert_int_equal(bs.free_after, UINT64_MAX - 6 * GiB);
	/* 100% of the size must stay free: never possible */
	assert_int_equal(backing_size_rule(&pct15, &all, &fs, 0, &bs), -ENOSPC);
	assert_int_equal(bs.min_free, UINT64_MAX);
}

static void test_dm_name(void **state)
{
	char buf[64];

	assert_int_equal(backing_dm_name(12, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "zram-recompd-zram12");
	assert_int_equal(backing_dm_name(0, buf, 8), -ENOBUFS);
}

static char dir[256];

/* A root-owned 0755 directory on a disk filesystem, or skip with the reason. */
static int file_setup(void **state)
{
	const char *base = getenv("BACKING_TEST_DIR");
	struct statfs sf;

	if (!base)
		base = "/var/tmp";
	snprintf(dir, sizeof(dir), "%s/zram-recompd-backing.XXXXXX", base);
	/* f_type: a signed int on 32-bit ARM, where RAMFS_MAGIC does not fit
	 * (src/backing/backing_file.c) */
	if (geteuid() != 0 || !mkdtemp(dir) || statfs(dir, &sf) < 0 ||
	    (uint32_t)sf.f_type == TMPFS_MAGIC || (uint32_t)sf.f_type == RAMFS_MAGIC) {
		if (dir[0] && strstr(dir, "XXXXXX") == NULL)
			rmdir(dir);
		dir[0] = '\0';
		return 0;
	}
	chmod(dir, 0755);
	return 0;
}

static int file_teardown(void **state)
{
	char cmd[300];

	if (!dir[0])
		return 0;
	/* the test's own directory only (its name came from mkdtemp) */
	snprintf(cmd, sizeof(cmd), "%s/f", dir);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/link", dir);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/sub/f", dir);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/sub", dir);
	rmdir(cmd);
	snprintf(cmd, sizeof(cmd), "%s/sublink", dir);
	unlink(cmd);
	rmdir(dir);
	return 0;
}

#define NEED_DIR()                                                                                 \
	do {                                                                                       \
		if (!dir[0]) {                                                                     \
			print_message("skipped: needs root and a disk filesystem under "           \
				      "/var/tmp (or BACKING_TEST_DIR)\n");                         \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

static void dev_cfg(struct dev_config *dc, const char *path, uint64_t size)
{
	memset(dc, 0, sizeof(*dc));
	snprintf(dc->backing_file, sizeof(dc->backing_file), "%.127s", path);
	dc->backing_file_size.bytes = size;
	dc->backing_min_free.bytes = 0;
}

/* The mark's value at path into buf (terminated): its length, or -1. */
static ssize_t mark_of(const char *path, char *buf, size_t size)
{
	ssize_t n = getxattr(path, BACKING_MARK_XATTR, buf, size - 1);

	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

static void test_file_created(void **state)
{
	char path[300], why[BACKING_WHY_MAX], val[128], want[128];
	struct backing_size bs;
	struct dev_config dc;
	struct stat st;
	int fd;

	NEED_DIR();
	snprintf(path, sizeof(path), "%s/f", dir);
	dev_cfg(&dc, path, 16 * MiB);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), 0);
	assert_int_equal(bs.size, 16 * MiB);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_size, 16 * MiB);
	/* no holes: every byte has its block */
	assert_true((uint64_t)st.st_blocks * 512 >= 16 * MiB);

	/* marked as ours: the attribute names this very inode */
	assert_true(mark_of(path, val, sizeof(val)) > 0);
	snprintf(want, sizeof(want), "zram-recompd backing-file ino=%llu",
		 (unsigned long long)st.st_ino);
	assert_string_equal(val, want);

	/* ours: replaced by the next setup (a new inode, the new size) */
	dc.backing_file_size.bytes = 17 * MiB;
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), 0);
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 17 * MiB);

	/* owner and mode do not matter, the mark does: ours after a chmod, removed */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(backing_file_remove(path, 0, why), 0);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(backing_file_remove(path, 0, why), -ENOENT);
}

/* sha-less checksum of a file's bytes (FNV-1a) and its size, for "left byte for byte". */
static uint64_t sum_of(const char *path, off_t *size)
{
	uint64_t h = 1469598103934665603ULL;
	unsigned char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*size = 0;
	assert_true(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
		*size += n;
	}
	close(fd);
	return h;
}

/* A root-owned 0600 file at path holding size bytes of a pattern (a swap file, a key). */
static void admin_file(const char *path, size_t size)
{
	char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	for (size_t off = 0; off < size; off += sizeof(buf)) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)((off + i) * 7 + 3);
		assert_int_equal(write(fd, buf, sizeof(buf)), sizeof(buf));
	}
	assert_int_equal(fchmod(fd, 0600), 0);
	close(fd);
}

/*
 * A file zram-recompd did not make (root's, 0600, one link, allocated: what mkswap asks of a
 * swap file) is never replaced nor removed, and the refusal names it; nor a copy of one of
 * ours with its attribute (cp -a), which is another inode.
 */
static void test_file_not_ours(void **state)
{
	char path[300], why[BACKING_WHY_MAX], val[128];
	struct backing_size bs;
	struct dev_config dc;
	struct stat st0, st;
	uint64_t sum0;
	off_t size0, size;
	int fd = -1;

	NEED_DIR();
	snprintf(path, sizeof(path), "%s/f", dir);
	admin_file(path, 2 * MiB);
	assert_int_equal(stat(path, &st0), 0);
	sum0 = sum_of(path, &size0);
	dev_cfg(&dc, path, 16 * MiB);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -EPERM);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(why, path));
	assert_non_null(strstr(why, "not a file zram-recompd made"));
	assert_null(strchr(why, '\n'));
	assert_int_equal(backing_file_remove(path, 0, why), -EPERM);
	assert_non_null(strstr(why, path));
	assert_int_equal(backing_file_ours(path, why), -EPERM);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_ino, st0.st_ino);
	assert_int_equal(sum_of(path, &size), sum0);
	assert_int_equal(size, size0);
	assert_int_equal(mark_of(path, val, sizeof(val)), -1);

	/* a forged mark naming another inode (a cp -a of ours) passes no better */
	snprintf(val, sizeof(val), "zram-recompd backing-file ino=%llu",
		 (unsigned long long)st0.st_ino + 1);
	assert_int_equal(setxattr(path, BACKING_MARK_XATTR, val, strlen(val), 0), 0);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -EPERM);
	assert_int_equal(backing_file_remove(path, 0, why), -EPERM);
	assert_int_equal(sum_of(path, &size), sum0);
	assert_int_equal(unlink(path), 0);

	/* one of ours, but not the inode this setup made: -ESTALE, left */
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), 0);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(backing_file_remove(path, (uint64_t)st.st_ino + 1, why), -ESTALE);
	assert_int_equal(backing_file_remove(path, (uint64_t)st.st_ino, why), 0);
}

/* A filesystem that cannot hold the mark: refused with its name, no unmarked file left. */
static void test_file_mark_unsupported(void **state)
{
	char path[300], why[BACKING_WHY_MAX];
	struct backing_size bs;
	struct dev_config dc;
	struct statfs sf;
	int fd = -1;

	NEED_DIR();
	snprintf(path, sizeof(path), "%s/f", dir);
	dev_cfg(&dc, path, 16 * MiB);
	fsetxattr_eopnotsupp = true;
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -EOPNOTSUPP);
	fsetxattr_eopnotsupp = false;
	assert_int_equal(fd, -1);
	assert_int_equal(access(path, F_OK), -1);
	assert_non_null(strstr(why, "cannot mark the file as ours on "));
	assert_non_null(strstr(why, "nothing created"));
	assert_int_equal(statfs(dir, &sf), 0);
	if ((uint32_t)sf.f_type == EXT4_SUPER_MAGIC)
		assert_non_null(
			strstr(why, "as ours on ext2/3/4 (no trusted.zram-recompd.backing"));
}

/* Without openat2 (ENOSYS): the same refusals, by walking the path one component at a time. */
static void test_file_without_openat2(void **state)
{
	char path[300], link[300], why[BACKING_WHY_MAX];
	struct backing_size bs;
	struct dev_config dc;
	struct stat st;
	int fd = -1;

	NEED_DIR();
	openat2_enosys = true;
	snprintf(path, sizeof(path), "%s/sub2", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(link, sizeof(link), "%s/sub2link", dir);
	assert_int_equal(symlink(path, link), 0);
	snprintf(path, sizeof(path), "%s/sub2link/f", dir);
	dev_cfg(&dc, path, 16 * MiB);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -ELOOP);
	assert_non_null(strstr(why, "a component is a symlink"));
	snprintf(path, sizeof(path), "%s/sub2/../sub2/f", dir);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -EINVAL);
	snprintf(path, sizeof(path), "%s/none/f", dir);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -ENOENT);
	/* and a good path still works */
	snprintf(path, sizeof(path), "%s/sub2/f", dir);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), 0);
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 16 * MiB);
	assert_int_equal(backing_file_remove(path, 0, why), 0);
	openat2_enosys = false;
}

static void test_file_refusals(void **state)
{
	char path[300], link[300], why[BACKING_WHY_MAX];
	struct backing_size bs;
	struct dev_config dc;
	struct stat st;
	int fd = -1;

	NEED_DIR();
	/* a symlink at the path: never followed, nothing created behind it */
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	dev_cfg(&dc, link, 16 * MiB);
	assert_int_equal(backing_file_create(link, &dc, 0, &fd, &bs, why), -ELOOP);
	assert_non_null(strstr(why, "is a symlink (not followed)"));
	assert_int_equal(stat(path, &st), -1);

	/* a symlink among the directories */
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(link, sizeof(link), "%s/sublink", dir);
	assert_int_equal(symlink(path, link), 0);
	snprintf(path, sizeof(path), "%s/sublink/f", dir);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -ELOOP);
	assert_non_null(strstr(why, "a component is a symlink"));

	/* a group-writable directory */
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(chmod(path, 0775), 0);
	snprintf(path, sizeof(path), "%s/sub/f", dir);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -EPERM);
	assert_non_null(strstr(why, "must be root's and not group- or world-writable"));
	assert_int_equal(stat(path, &st), -1);

	/* a missing directory */
	snprintf(path, sizeof(path), "%s/none/f", dir);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -ENOENT);

	/* the guard: all of the filesystem must stay free */
	snprintf(path, sizeof(path), "%s/f", dir);
	dc.backing_min_free.percent = 100;
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), -ENOSPC);
	assert_non_null(strstr(why, "free-space guard: a 16.0 MiB file would leave "));
	assert_non_null(strstr(why, "below backing-file-min-free"));
	assert_int_equal(stat(path, &st), -1);

	/* the filesystem on "a zram device": its major given as ours */
	dc.backing_min_free.percent = 0;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(backing_file_create(path, &dc, major(st.st_dev), &fd, &bs, why),
			 major(st.st_dev) ? -EXDEV : 0);
	if (fd >= 0)
		close(fd);
	(void)unlink(path);
}

static void test_file_tmpfs(void **state)
{
	char d[] = "/dev/shm/zram-recompd-backing.XXXXXX", path[64], why[BACKING_WHY_MAX];
	struct backing_size bs;
	struct dev_config dc;
	struct statfs sf;
	int fd;

	if (geteuid() != 0 || statfs("/dev/shm", &sf) < 0 || sf.f_type != TMPFS_MAGIC ||
	    !mkdtemp(d)) {
		print_message("skipped: needs root and /dev/shm on tmpfs\n");
		skip();
	}
	/* a directory that passes the owner and mode checks: only the filesystem refuses */
	assert_int_equal(chmod(d, 0755), 0);
	snprintf(path, sizeof(path), "%s/f", d);
	dev_cfg(&dc, path, 16 * MiB);
	assert_int_equal(backing_file_create(dc.backing_file, &dc, 0, &fd, &bs, why), -EXDEV);
	assert_string_equal(why, "on tmpfs: that is memory, not disk");
	assert_int_equal(access(dc.backing_file, F_OK), -1);
	rmdir(d);
}

/* The allowlist: local disk filesystems pass, memory and remote or user-space ones do not. */
static void test_fs_check(void **state)
{
	static const uint32_t ok[] = {EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC,
				      F2FS_SUPER_MAGIC};
	static const struct {
		uint32_t magic;
		const char *says;
	} no[] = {
		{NFS_SUPER_MAGIC, "on nfs (f_type 0x00006969)"},
		{CIFS_SUPER_MAGIC, "on cifs (f_type 0xff534d42)"},
		{SMB2_SUPER_MAGIC, "on smb2"},
		{SMB_SUPER_MAGIC, "on smb "},
		{FUSE_SUPER_MAGIC, "on fuse"},
		{OVERLAYFS_SUPER_MAGIC, "on overlayfs"},
		{V9FS_MAGIC, "on 9p"},
		{CEPH_SUPER_MAGIC, "on ceph"},
		{0x12345678, "on a filesystem of type 0x12345678"},
	};
	char why[BACKING_WHY_MAX];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_int_equal(backing_fs_check(ok[i], why), 0);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		assert_int_equal(backing_fs_check(no[i].magic, why), -EXDEV);
		assert_non_null(strstr(why, no[i].says));
		assert_non_null(strstr(why, "only ext2/3/4, xfs, btrfs and f2fs are accepted"));
	}
	assert_int_equal(backing_fs_check(TMPFS_MAGIC, why), -EXDEV);
	assert_string_equal(why, "on tmpfs: that is memory, not disk");
}

/*
 * For real: a directory on overlayfs (over tmpfs, in a mount namespace of a child) is
 * refused, nothing made there; the child's exit status carries backing_file_create's.
 */
static void test_file_overlay(void **state)
{
	char base[300], m[320], path[340], why[BACKING_WHY_MAX], opts[1100];
	struct backing_size bs;
	struct dev_config dc;
	int status, fd = -1;
	pid_t pid;

	NEED_DIR();
	snprintf(base, sizeof(base), "%s/ov", dir);
	snprintf(m, sizeof(m), "%s/m", base);
	snprintf(path, sizeof(path), "%s/f", m);
	assert_int_equal(mkdir(base, 0755), 0);
	assert_int_equal(mkdir(m, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char l[320], u[320], w[320];

		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("t", base, "tmpfs", 0, "mode=0755") < 0)
			_exit(100);
		snprintf(l, sizeof(l), "%s/l", base);
		snprintf(u, sizeof(u), "%s/u", base);
		snprintf(w, sizeof(w), "%s/w", base);
		if (mkdir(l, 0755) < 0 || mkdir(u, 0755) < 0 || mkdir(w, 0755) < 0 ||
		    mkdir(m, 0755) < 0)
			_exit(100);
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", l, u, w);
		if (mount("o", m, "overlay", 0, opts) < 0)
			_exit(100);
		dev_cfg(&dc, path, 16 * MiB);
		if (backing_file_create(path, &dc, 0, &fd, &bs, why) == -EXDEV &&
		    strstr(why, "on overlayfs") && access(path, F_OK) < 0)
			_exit(0);
		fprintf(stderr, "overlay: %s\n", why);
		_exit(1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	rmdir(m);
	rmdir(base);
	if (WEXITSTATUS(status) == 100) {
		print_message("skipped: no mount namespace or overlayfs here\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A fake root for the lock and the mount check, with run/ and etc/ and proc/self/. */
static char froot[64];

static int froot_fd(void)
{
	char p[128];
	int fd;

	snprintf(froot, sizeof(froot), "/tmp/zram-recompd-froot.XXXXXX");
	assert_non_null(mkdtemp(froot));
	assert_int_equal(chmod(froot, 0755), 0);
	for (const char *const *d = (const char *const[]){"run", "etc", "proc", "proc/self", NULL};
	     *d; d++) {
		snprintf(p, sizeof(p), "%s/%s", froot, *d);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	assert_int_equal(sysfs_open_root(froot, &fd), 0);
	return fd;
}

static void froot_put(const char *rel, const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", froot, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void froot_rm(int fd)
{
	static const char *const rel[] = {"run/zram-recompd/backing.lock",
					  "run/zram-recompd",
					  "etc/fstab",
					  "proc/self/mountinfo",
					  "proc/self",
					  "proc",
					  "etc",
					  "run",
					  ""};
	char p[128];

	close(fd);
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", froot, rel[i]);
		if (unlink(p) < 0)
			rmdir(p);
	}
}

/*
 * Setups and teardowns take turns: while a child holds the lock, another taker without
 * waiting gets -EWOULDBLOCK and a waiting one gets it only once the child let go.
 */
static void test_lock(void **state)
{
	int root = froot_fd(), go[2], fd;
	char why[BACKING_WHY_MAX], c, p[128];
	struct stat st;
	pid_t pid;

	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char w[BACKING_WHY_MAX];
		int l = backing_lock(root, true, w);

		if (l < 0 || write(go[1], "L", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		/* the parent must still be waiting: it writes nothing until it holds the lock */
		_exit(write(go[1], "U", 1) == 1 ? 0 : 1);
	}
	close(go[1]);
	assert_int_equal(read(go[0], &c, 1), 1);
	assert_int_equal(c, 'L');
	assert_int_equal(backing_lock(root, false, why), -EWOULDBLOCK);
	fd = backing_lock(root, true, why);
	assert_true(fd >= 0);
	/* the child's "U" came before the lock was ours: it is there without waiting */
	assert_int_equal(fcntl(go[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(read(go[0], &c, 1), 1);
	assert_int_equal(c, 'U');
	close(go[0]);
	waitpid(pid, NULL, 0);
	snprintf(p, sizeof(p), "%s/run/zram-recompd/backing.lock", froot);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	close(fd);
	/* a lock directory others may write is refused */
	snprintf(p, sizeof(p), "%s/run/zram-recompd", froot);
	assert_int_equal(chmod(p, 0777), 0);
	assert_int_equal(backing_lock(root, false, why), -EPERM);
	assert_non_null(strstr(why, "must be root's"));
	assert_int_equal(chmod(p, 0755), 0);
	froot_rm(root);
}

/* /var in fstab but not mounted yet: a file under it is refused; mounted, or noauto: fine. */
static void test_mount_pending(void **state)
{
	int root = froot_fd();
	char why[BACKING_WHY_MAX];

	/* no fstab: nothing to wait for */
	assert_int_equal(backing_mount_pending(root, "/var/lib/zram-recompd", why), 0);
	froot_put("etc/fstab", "# comment\n"
			       "UUID=1 / ext4 defaults 0 1\n"
			       "UUID=2 /var/ ext4 defaults,nofail 0 2\n"
			       "UUID=3 /srv\\040x xfs defaults 0 2\n"
			       "UUID=4 /mnt/usb ext4 noauto 0 0\n"
			       "/swapfile none swap sw 0 0\n");
	froot_put("proc/self/mountinfo", "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
					 "23 22 0:5 / /dev rw - devtmpfs udev rw\n");
	assert_int_equal(backing_mount_pending(root, "/var/lib/zram-recompd", why), -EAGAIN);
	assert_string_equal(why, "/var is in /etc/fstab but not mounted yet: the file would land "
				 "under it; add RequiresMountsFor=/var to "
				 "zram-recompd-backing.service in a drop-in");
	assert_int_equal(backing_mount_pending(root, "/var", why), -EAGAIN);
	/* not a parent: /variable, /srv (its mount point is "/srv x"), noauto, the root */
	assert_int_equal(backing_mount_pending(root, "/variable/z", why), 0);
	assert_int_equal(backing_mount_pending(root, "/srv/z", why), 0);
	assert_int_equal(backing_mount_pending(root, "/srv x/z", why), -EAGAIN);
	assert_int_equal(backing_mount_pending(root, "/mnt/usb", why), 0);
	assert_int_equal(backing_mount_pending(root, "/opt", why), 0);
	/* once mounted: fine */
	froot_put("proc/self/mountinfo", "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
					 "24 22 8:2 / /var rw,relatime - ext4 /dev/sda2 rw\n"
					 "25 22 8:3 / /srv\\040x rw - xfs /dev/sda3 rw\n");
	assert_int_equal(backing_mount_pending(root, "/var/lib/zram-recompd", why), 0);
	assert_int_equal(backing_mount_pending(root, "/srv x/z", why), 0);
	froot_rm(root);
}

static void test_zram_major(void **state)
{
	char root[] = "/tmp/zram-recompd-major.XXXXXX", p[300];
	FILE *f;
	int fd;

	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/proc", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/proc/devices", root);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("Character devices:\n  1 mem\n253 zram\n\nBlock devices:\n  7 loop\n251 zram\n"
	      "253 device-mapper\n",
	      f);
	fclose(f);
	assert_int_equal(sysfs_open_root(root, &fd), 0);
	/* the block major, not a character device of the same name */
	assert_int_equal(backing_zram_major(fd), 251);
	close(fd);
	unlink(p);
	snprintf(p, sizeof(p), "%s/proc", root);
	rmdir(p);
	rmdir(root);
}

/* The sysfs attribute of loop device name, without its newline ("" when unreadable). */
static const char *loop_attr(const char *name, const char *attr)
{
	static char buf[512];
	char path[128];
	size_t len = 0;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "sys/block/%s/loop/%s", name, attr);
	if (sysfs_open_root("/", &fd) == 0) {
		if (sysfs_read(fd, path, buf, sizeof(buf), &len) < 0)
			buf[0] = '\0';
		close(fd);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void test_loop_attach(void **state)
{
	char path[300], why[BACKING_WHY_MAX], name[32], found[32];
	struct backing_size bs;
	struct dev_config dc;
	bool dio = false;
	int fd, lfd, root;

	NEED_DIR();
	if (access("/dev/loop-control", W_OK) < 0) {
		print_message("skipped: /dev/loop-control: %s\n", strerror(errno));
		skip();
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	dev_cfg(&dc, path, 16 * MiB);
	assert_int_equal(backing_file_create(path, &dc, 0, &fd, &bs, why), 0);
	if (loopdev_attach(fd, path, name, &lfd, &dio, why) < 0) {
		close(fd);
		print_message("skipped: %s\n", why);
		skip();
	}
	close(fd);
	assert_string_equal(loop_attr(name, "backing_file"), path);
	assert_string_equal(loop_attr(name, "autoclear"), "1");
	assert_string_equal(loop_attr(name, "dio"), dio ? "1" : "0");
	print_message("%s: direct I/O %s\n", name, dio ? "on" : "refused by the filesystem");
	assert_int_equal(sysfs_open_root("/", &root), 0);
	assert_int_equal(loopdev_find(root, path, found), 0);
	assert_string_equal(found, name);
	/* what teardown does: detach (the kernel marks it; autoclear at the last close) */
	assert_int_equal(loopdev_detach(name), 0);
	close(lfd);
	for (int i = 0; i < 100 && loopdev_find(root, path, found) == 0; i++)
		usleep(10000);
	assert_int_equal(loopdev_find(root, path, found), -ENOENT);
	close(root);
	assert_int_equal(backing_file_remove(path, 0, why), 0);
}

static void test_dmcrypt(void **state)
{
	char why[BACKING_WHY_MAX];

	if (access("/dev/mapper/control", W_OK) < 0) {
		print_message("skipped: /dev/mapper/control: %s (no device-mapper here; the VM "
			      "tier runs dm-crypt)\n",
			      strerror(errno));
		skip();
	}
	/* a name that cannot exist: closing it is -ENOENT, not an error */
	assert_int_equal(dmcrypt_close("zram-recompd-test-none", why), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_rule_share),
		cmocka_unit_test(test_size_rule_bytes),
		cmocka_unit_test(test_size_rule_saturating),
		cmocka_unit_test(test_dm_name),
		cmocka_unit_test_setup_teardown(test_file_created, file_setup, file_teardown),
		cmocka_unit_test_setup_teardown(test_file_not_ours, file_setup, file_teardown),
		cmocka_unit_test_setup_teardown(test_file_mark_unsupported, file_setup,
						file_teardown),
		cmocka_unit_test_setup_teardown(test_file_refusals, file_setup, file_teardown),
		cmocka_unit_test_setup_teardown(test_file_without_openat2, file_setup,
						file_teardown),
		cmocka_unit_test(test_file_tmpfs),
		cmocka_unit_test(test_fs_check),
		cmocka_unit_test_setup_teardown(test_file_overlay, file_setup, file_teardown),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_mount_pending),
		cmocka_unit_test(test_zram_major),
		cmocka_unit_test_setup_teardown(test_loop_attach, file_setup, file_teardown),
		cmocka_unit_test(test_dmcrypt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
