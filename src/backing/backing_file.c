// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The backing file (include/backing.h): where it may go, its size, its allocation. It is
 * created by root from a path in the configuration, so no component of that path is
 * followed through a symlink (openat2 RESOLVE_NO_SYMLINKS for the directory, O_NOFOLLOW
 * for the file), the directory must be root's and writable by nobody else (else another
 * user could swap the file for a link between our checks), and the file is never one we
 * did not make: an existing one is replaced or removed only when it carries our mark.
 *
 * The mark is the extended attribute BACKING_MARK_XATTR, set on the new file before any
 * data is written, whose value names the file's inode number: trusted.* needs
 * CAP_SYS_ADMIN, so no other user can forge it, and a copy (cp -a keeps xattrs) is another
 * inode, which the value does not name. Owner, mode and links prove nothing: a swap file
 * or a key file has the same.
 *
 * Only local disk filesystems are accepted (an allowlist, so that an unknown one is
 * refused): writing zram's pages to tmpfs or ramfs, or to a filesystem on a zram device,
 * moves them from RAM to RAM (or swap) at a cost, and reading one back from NFS, SMB, FUSE
 * or overlayfs may need the network or a user-space daemon that is itself swapped out. A
 * file with holes is refused too: the first writeback would allocate on the disk, which
 * may then be full, and loop direct I/O over holes goes through the filesystem's slow path.
 */
#include "backing.h"

#include "human.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define ZERO_CHUNK (UINT64_C(1) << 20)

static int why_set(char why[BACKING_WHY_MAX], int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int why_set(char why[BACKING_WHY_MAX], int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, BACKING_WHY_MAX, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * dir opened O_PATH one component at a time, none of them a symlink: what openat2's
 * RESOLVE_NO_SYMLINKS does, for where openat2 fails with ENOSYS. systemd's
 * RestrictSUIDSGID= (zram-recompd-backing.service) makes it so, since it cannot look into
 * openat2's mode. "." and ".." components are refused. Returns the fd or -errno.
 */
static int open_dir_nofollow(const char *dir)
{
	char comp[NAME_MAX + 1];
	const char *p = dir;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (*p) {
		size_t n = strcspn(p, "/");
		struct stat st = {0};
		int nfd;

		if (n == 0) {
			p++;
			continue;
		}
		if (n > NAME_MAX || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			return -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		/* O_PATH | O_NOFOLLOW opens a symlink itself: fstat tells */
		nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (nfd < 0)
			return -errno;
		if (fstat(nfd, &st) < 0 || !S_ISDIR(st.st_mode)) {
			int e = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;

			close(nfd);
			return -e;
		}
		fd = nfd;
	}
	return fd;
}

/*
 * The directory of path, opened O_PATH without following any symlink on the way, after
 * the checks; *ret_base points at the file name inside path.
 */
static int open_parent(const char *path, int *ret_fd, const char **ret_base,
		       char why[BACKING_WHY_MAX])
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *slash = strrchr(path, '/');
	char dir[CFG_PATH_MAX];
	struct stat st;
	int fd;

	if (path[0] != '/' || !slash || !slash[1] || (size_t)(slash - path) >= sizeof(dir))
		return why_set(why, -EINVAL, "'%s' is not an absolute file path", path);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash == path ? 1 : slash - path] = '\0';
	if (slash == path)
		dir[0] = '/';
	do
		fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	while (fd < 0 && (errno == EINTR || errno == EAGAIN));
	if (fd < 0 && errno == ENOSYS) {
		fd = open_dir_nofollow(dir);
		if (fd < 0)
			errno = -fd;
	}
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP)
			return why_set(why, -ELOOP,
				       "directory %s: a component is a symlink (not "
				       "followed)",
				       dir);
		return why_set(why, -e, "directory %s: %s", dir, strerror(e));
	}
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return why_set(why, -EPERM,
			       "directory %s must be root's and not group- or world-writable "
			       "(owner %u, mode %04o)",
			       dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	*ret_fd = fd;
	*ret_base = slash + 1;
	return 0;
}

/* Local disk filesystems: the allowlist (f_type, statfs(2)). */
static const struct {
	uint32_t magic;
	const char *name;
} disk_fs[] = {
	{EXT4_SUPER_MAGIC, "ext2/3/4"},
	{XFS_SUPER_MAGIC, "xfs"},
	{BTRFS_SUPER_MAGIC, "btrfs"},
	{F2FS_SUPER_MAGIC, "f2fs"},
};

/* Names of refused filesystems an admin may meet, for the message. */
static const struct {
	uint32_t magic;
	const char *name;
} other_fs[] = {
	{TMPFS_MAGIC, "tmpfs"},	      {RAMFS_MAGIC, "ramfs"},
	{NFS_SUPER_MAGIC, "nfs"},     {SMB_SUPER_MAGIC, "smb"},
	{CIFS_SUPER_MAGIC, "cifs"},   {SMB2_SUPER_MAGIC, "smb2"},
	{FUSE_SUPER_MAGIC, "fuse"},   {OVERLAYFS_SUPER_MAGIC, "overlayfs"},
	{V9FS_MAGIC, "9p"},	      {CEPH_SUPER_MAGIC, "ceph"},
	{AFS_SUPER_MAGIC, "afs"},     {AFS_FS_MAGIC, "afs"},
	{CODA_SUPER_MAGIC, "coda"},   {ECRYPTFS_SUPER_MAGIC, "ecryptfs"},
	{SQUASHFS_MAGIC, "squashfs"}, {0x2fc12fc1, "zfs"},
	{0xca451a4e, "bcachefs"},     {0x4d44, "vfat"},
	{0x2011bab0, "exfat"},
};

int backing_fs_check(uint32_t magic, char why[BACKING_WHY_MAX])
{
	const char *name = NULL;

	for (size_t i = 0; i < sizeof(disk_fs) / sizeof(disk_fs[0]); i++)
		if (disk_fs[i].magic == magic)
			return 0;
	if (magic == TMPFS_MAGIC || magic == RAMFS_MAGIC)
		return why_set(why, -EXDEV, "on %s: that is memory, not disk",
			       magic == TMPFS_MAGIC ? "tmpfs" : "ramfs");
	for (size_t i = 0; i < sizeof(other_fs) / sizeof(other_fs[0]) && !name; i++)
		if (other_fs[i].magic == magic)
			name = other_fs[i].name;
	return why_set(why, -EXDEV,
		       "on %s%s%08x%s: only ext2/3/4, xfs, btrfs and f2fs are accepted (reading a "
		       "page back must need no network and no user-space daemon)",
		       name ? name : "a filesystem of type 0x", name ? " (f_type 0x" : "", magic,
		       name ? ")" : "");
}

/* A disk filesystem, with its figures. */
static int check_fs(int dfd, unsigned zram_major, struct backing_fs *fs, char why[BACKING_WHY_MAX])
{
	struct statfs sf;
	struct stat st;
	int r;

	if (fstatfs(dfd, &sf) < 0 || fstat(dfd, &st) < 0)
		return why_set(why, -errno, "statfs: %s", strerror(errno));
	/* f_type is a signed int on 32-bit ARM (RAMFS_MAGIC, 0x858458f6, is negative there),
	 * a long elsewhere: the magic numbers are 32 bits. */
	r = backing_fs_check((uint32_t)sf.f_type, why);
	if (r < 0)
		return r;
	if (zram_major && major(st.st_dev) == zram_major)
		return why_set(why, -EXDEV,
			       "on a filesystem on a zram device (zram%u): that is "
			       "memory, not disk",
			       minor(st.st_dev));
	fs->total = sat_mul_u64((uint64_t)sf.f_blocks, (uint64_t)sf.f_frsize);
	fs->avail = sat_mul_u64((uint64_t)sf.f_bavail, (uint64_t)sf.f_frsize);
	return 0;
}

/* The mark's value for inode ino (the attribute BACKING_MARK_XATTR). */
static int mark_value(uint64_t ino, char buf[64])
{
	return str_printf(buf, 64, "zram-recompd backing-file ino=%llu", (unsigned long long)ino);
}

int backing_file_marked(int fd)
{
	char want[64], got[64];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	(void)mark_value((uint64_t)st.st_ino, want);
	n = fgetxattr(fd, BACKING_MARK_XATTR, got, sizeof(got));
	if (n < 0)
		return errno == ENODATA || errno == EOPNOTSUPP || errno == ERANGE ? 0 : -errno;
	return (size_t)n == strlen(want) && memcmp(got, want, (size_t)n) == 0;
}

/* Mark fd (just created, still empty) as ours; why names the filesystem that cannot. */
static int mark(int fd, const char *path, char why[BACKING_WHY_MAX])
{
	char val[64];
	struct statfs sf;
	struct stat st;
	int e;

	if (fstat(fd, &st) < 0)
		return why_set(why, -errno, "%s: %s", path, strerror(errno));
	(void)mark_value((uint64_t)st.st_ino, val);
	if (fsetxattr(fd, BACKING_MARK_XATTR, val, strlen(val), XATTR_CREATE) == 0)
		return 0;
	e = errno;
	if (e != EOPNOTSUPP)
		return why_set(why, -e,
			       "%s: cannot mark the file as ours (" BACKING_MARK_XATTR "): %s",
			       path, strerror(e));
	if (fstatfs(fd, &sf) < 0)
		sf.f_type = 0;
	for (size_t i = 0; i < sizeof(disk_fs) / sizeof(disk_fs[0]); i++)
		if (disk_fs[i].magic == (uint32_t)sf.f_type)
			return why_set(
				why, -e,
				"%s: cannot mark the file as ours on %s (no " BACKING_MARK_XATTR
				" there): nothing created",
				path, disk_fs[i].name);
	return why_set(why, -e,
		       "%s: cannot mark the file as ours on this filesystem: nothing "
		       "created",
		       path);
}

/*
 * The existing entry base in dfd, opened O_RDONLY (caller closes) when it is a regular file
 * carrying our mark, and (ino not 0) inode ino; -ENOENT when there is none; -EPERM (why)
 * when it is not ours. A non-regular entry is never opened for reading (a device's open
 * may act).
 */
static int open_existing(int dfd, const char *base, const char *path, uint64_t ino, int *ret_fd,
			 struct stat *st, char why[BACKING_WHY_MAX])
{
	int pfd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd, r;
	struct stat pst;

	if (pfd < 0)
		return errno == ENOENT ? -ENOENT
				       : why_set(why, -errno, "%s: %s", path, strerror(errno));
	r = fstat(pfd, &pst) < 0 ? -errno : 0;
	close(pfd);
	if (r < 0)
		return why_set(why, r, "%s: %s", path, strerror(-r));
	if (S_ISLNK(pst.st_mode))
		return why_set(why, -ELOOP, "%s is a symlink (not followed)", path);
	if (!S_ISREG(pst.st_mode))
		return why_set(why, -EPERM, "%s exists and is not a regular file", path);
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return why_set(why, -errno, "%s: %s", path, strerror(errno));
	r = fstat(fd, st) < 0 ? -errno : backing_file_marked(fd);
	if (r == 1 && ino && (uint64_t)st->st_ino != ino)
		r = why_set(why, -ESTALE, "%s is no longer the file this setup made", path);
	else if (r == 0)
		r = why_set(why, -EPERM,
			    "%s exists and is not a file zram-recompd made (no " BACKING_MARK_XATTR
			    " mark): left alone; remove it yourself or name another backing-file",
			    path);
	else if (r < 0)
		r = why_set(why, r, "%s: %s", path, strerror(-r));
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* Every block of fd's size allocated: fallocate, or zeros where it has none. */
static int allocate(int fd, uint64_t size, char why[BACKING_WHY_MAX])
{
	static const char zeros[4096];
	uint64_t off;
	struct stat st;
	int r;

	do
		r = fallocate(fd, 0, 0, (off_t)size);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno != EOPNOTSUPP)
		return why_set(why, -errno, "fallocate: %s", strerror(errno));
	for (off = 0; r < 0 && off < size; off += sizeof(zeros)) {
		ssize_t n = pwrite(fd, zeros, sizeof(zeros), (off_t)off);

		if (n < 0 && errno == EINTR) {
			off -= sizeof(zeros);
			continue;
		}
		if (n != (ssize_t)sizeof(zeros))
			return why_set(why, n < 0 ? -errno : -EIO, "writing zeros: %s",
				       n < 0 ? strerror(errno) : "short write");
	}
	if (fsync(fd) < 0)
		return why_set(why, -errno, "fsync: %s", strerror(errno));
	if (fstat(fd, &st) < 0)
		return why_set(why, -errno, "fstat: %s", strerror(errno));
	if ((uint64_t)st.st_size != size || sat_mul_u64((uint64_t)st.st_blocks, 512) < size)
		return why_set(why, -EIO,
			       "the file has holes after allocation (%llu of %llu bytes on disk)",
			       (unsigned long long)st.st_blocks * 512, (unsigned long long)size);
	return 0;
}

/* The refusal of the guard, with the figures. */
static int guard_why(const struct backing_size *bs, const struct backing_fs *fs,
		     char why[BACKING_WHY_MAX])
{
	char a[32], b[32], c[32], t[32];

	return why_set(
		why, -ENOSPC,
		"free-space guard: a %s file would leave %s free of %s, below "
		"backing-file-min-free (%s); nothing created",
		human_bytes(a, sizeof(a), bs->size), human_bytes(b, sizeof(b), bs->free_after),
		human_bytes(t, sizeof(t), fs->total), human_bytes(c, sizeof(c), bs->min_free));
}

/* Size the new file by the rule (an existing one of ours counts as free space). */
static int plan_size(int dfd, const char *base, const char *path, const struct dev_config *dc,
		     unsigned zram_major, struct backing_size *bs, char why[BACKING_WHY_MAX])
{
	struct backing_fs fs;
	struct stat st;
	int fd, r;

	r = check_fs(dfd, zram_major, &fs, why);
	if (r < 0)
		return r;
	r = open_existing(dfd, base, path, 0, &fd, &st, why);
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == 0) {
		close(fd);
		fs.avail = sat_add_u64(fs.avail, sat_mul_u64((uint64_t)st.st_blocks, 512));
	}
	r = backing_size_rule(&dc->backing_file_size, &dc->backing_min_free, &fs, 0, bs);
	if (r == -ENOSPC)
		return guard_why(bs, &fs, why);
	if (r < 0)
		return why_set(why, r, "backing-file-size comes out below 1 MiB");
	return 0;
}

int backing_file_create(const char *path, const struct dev_config *dc, unsigned zram_major,
			int *ret_fd, struct backing_size *ret, char why[BACKING_WHY_MAX])
{
	const char *base;
	int dfd, fd, r;

	r = open_parent(path, &dfd, &base, why);
	if (r < 0)
		return r;
	r = plan_size(dfd, base, path, dc, zram_major, ret, why);
	/* ours (marked), from an earlier boot: its content is gone with its key (or stale) */
	if (r == 0 && unlinkat(dfd, base, 0) < 0 && errno != ENOENT)
		r = why_set(why, -errno, "%s: cannot remove the old file: %s", path,
			    strerror(errno));
	if (r < 0) {
		close(dfd);
		return r;
	}
	fd = openat(dfd, base, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = why_set(why, -errno, "%s: cannot create: %s", path, strerror(errno));
		close(dfd);
		return r;
	}
	/* marked before anything else: a file left by a crash from here on is ours */
	r = mark(fd, path, why);
	/* a umask cannot widen 0600, but an inherited ACL default could: set it exactly */
	if (r == 0 && (fchmod(fd, 0600) < 0 || fchown(fd, 0, 0) < 0))
		r = why_set(why, -errno, "%s: %s", path, strerror(errno));
	if (r == 0)
		r = allocate(fd, ret->size, why);
	if (r < 0) {
		close(fd);
		(void)unlinkat(dfd, base, 0); /* O_EXCL: the name is the file we made */
		close(dfd);
		return r;
	}
	close(dfd);
	*ret_fd = fd;
	return 0;
}

int backing_file_remove(const char *path, uint64_t ino, char why[BACKING_WHY_MAX])
{
	const char *base;
	struct stat st;
	int dfd, fd, r;

	r = open_parent(path, &dfd, &base, why);
	if (r == -ENOENT)
		return -ENOENT;
	if (r < 0)
		return r;
	r = open_existing(dfd, base, path, ino, &fd, &st, why);
	if (r == 0) {
		close(fd);
		if (unlinkat(dfd, base, 0) < 0)
			r = why_set(why, -errno, "%s: %s", path, strerror(errno));
	}
	close(dfd);
	return r;
}

int backing_file_ours(const char *path, char why[BACKING_WHY_MAX])
{
	const char *base;
	struct stat st;
	int dfd, fd, r;

	r = open_parent(path, &dfd, &base, why);
	if (r < 0)
		return r;
	r = open_existing(dfd, base, path, 0, &fd, &st, why);
	if (r == 0)
		close(fd);
	close(dfd);
	return r;
}

int backing_lock(int root_fd, bool wait, char why[BACKING_WHY_MAX])
{
	struct stat st;
	int dfd, fd, r = 0;

	if (mkdirat(root_fd, BACKING_LOCK_DIR, 0755) < 0 && errno != EEXIST)
		return why_set(why, -errno, "/" BACKING_LOCK_DIR ": %s", strerror(errno));
	dfd = openat(root_fd, BACKING_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return why_set(why, -errno, "/" BACKING_LOCK_DIR ": %s", strerror(errno));
	/* a lock anyone could hold would let them stop every setup */
	if (fstat(dfd, &st) < 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
		r = why_set(why, -EPERM,
			    "/" BACKING_LOCK_DIR " must be root's and not group- or "
			    "world-writable");
	fd = r < 0 ? -1
		   : openat(dfd, BACKING_LOCK_FILE,
			    O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	close(dfd);
	if (r < 0)
		return r;
	if (fd < 0)
		return why_set(why, -errno, "/" BACKING_LOCK_DIR "/" BACKING_LOCK_FILE ": %s",
			       strerror(errno));
	while ((r = flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
		;
	if (r < 0) {
		r = -errno;
		close(fd);
		return r == -EWOULDBLOCK
			       ? r
			       : why_set(why, r, "/" BACKING_LOCK_DIR "/" BACKING_LOCK_FILE ": %s",
					 strerror(-r));
	}
	return fd;
}

unsigned backing_zram_major(int root_fd)
{
	char buf[8192], *line, *save = NULL;
	bool block = false;
	size_t len;

	if (sysfs_read(root_fd, "proc/devices", buf, sizeof(buf), &len) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned maj;
		char name[32];

		if (strncmp(line, "Block devices:", 14) == 0)
			block = true;
		else if (block && sscanf(line, "%u %31s", &maj, name) == 2 &&
			 strcmp(name, "zram") == 0)
			return maj;
	}
	return 0;
}
