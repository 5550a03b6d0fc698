// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The backing file (include/backing.h): where it may go, its size, its allocation. It is
 * created by root from a path in the configuration, so no component of that path is
 * followed through a symlink (openat2 RESOLVE_NO_SYMLINKS for the directory, O_NOFOLLOW
 * for the file), the directory must be root's and writable by nobody else (else another
 * user could swap the file for a link between our checks), and the file is never one we
 * did not make: an existing one is replaced only when it looks like ours.
 *
 * Memory-backed filesystems are refused: writing zram's pages to tmpfs or ramfs, or to a
 * filesystem on a zram device, moves them from RAM to RAM (or swap) at a cost. A file with
 * holes is refused too: the first writeback would allocate on the disk, which may then be
 * full, and loop direct I/O over holes goes through the filesystem's slow path.
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
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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
		if (n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
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

/* A disk filesystem, with its figures. */
static int check_fs(int dfd, unsigned zram_major, struct backing_fs *fs, char why[BACKING_WHY_MAX])
{
	struct statfs sf;
	struct stat st;
	uint32_t magic;

	if (fstatfs(dfd, &sf) < 0 || fstat(dfd, &st) < 0)
		return why_set(why, -errno, "statfs: %s", strerror(errno));
	/* f_type is a signed int on 32-bit ARM (RAMFS_MAGIC, 0x858458f6, is negative there),
	 * a long elsewhere: the magic numbers are 32 bits. */
	magic = (uint32_t)sf.f_type;
	if (magic == TMPFS_MAGIC || magic == RAMFS_MAGIC)
		return why_set(why, -EXDEV, "on %s: that is memory, not disk",
			       magic == TMPFS_MAGIC ? "tmpfs" : "ramfs");
	if (zram_major && major(st.st_dev) == zram_major)
		return why_set(why, -EXDEV,
			       "on a filesystem on a zram device (zram%u): that is "
			       "memory, not disk",
			       minor(st.st_dev));
	fs->total = sat_mul_u64((uint64_t)sf.f_blocks, (uint64_t)sf.f_frsize);
	fs->avail = sat_mul_u64((uint64_t)sf.f_bavail, (uint64_t)sf.f_frsize);
	return 0;
}

/* Whether st is a file this program made: regular, root's, 0600, one link. */
static int ours(const struct stat *st, const char *path, char why[BACKING_WHY_MAX])
{
	if (!S_ISREG(st->st_mode))
		return why_set(why, -EPERM, "%s exists and is not a regular file", path);
	if (st->st_uid != 0 || (st->st_mode & 07777) != 0600 || st->st_nlink != 1)
		return why_set(why, -EPERM,
			       "%s exists and is not ours (owner %u, mode %04o, %u links; "
			       "expected root, 0600, 1): remove it or name another file",
			       path, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
			       (unsigned)st->st_nlink);
	return 0;
}

/* The existing entry base in dfd: ours, open (caller closes), or -ENOENT. */
static int open_existing(int dfd, const char *base, const char *path, int *ret_fd, struct stat *st,
			 char why[BACKING_WHY_MAX])
{
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int r;

	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0 && errno == ELOOP)
		return why_set(why, -ELOOP, "%s is a symlink (not followed)", path);
	if (fd < 0)
		return why_set(why, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, st) < 0) {
		r = why_set(why, -errno, "%s: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	r = ours(st, path, why);
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
	r = open_existing(dfd, base, path, &fd, &st, why);
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
	/* ours, from an earlier boot: its content is gone with its key (or stale) */
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
	/* a umask cannot widen 0600, but an inherited ACL default could: set it exactly */
	if (fchmod(fd, 0600) < 0 || fchown(fd, 0, 0) < 0)
		r = why_set(why, -errno, "%s: %s", path, strerror(errno));
	if (r == 0)
		r = allocate(fd, ret->size, why);
	if (r < 0) {
		close(fd);
		(void)unlinkat(dfd, base, 0);
		close(dfd);
		return r;
	}
	close(dfd);
	*ret_fd = fd;
	return 0;
}

int backing_file_remove(const char *path, char why[BACKING_WHY_MAX])
{
	const char *base;
	struct stat st;
	int dfd, fd, r;

	r = open_parent(path, &dfd, &base, why);
	if (r == -ENOENT)
		return -ENOENT;
	if (r < 0)
		return r;
	r = open_existing(dfd, base, path, &fd, &st, why);
	if (r == 0) {
		close(fd);
		if (unlinkat(dfd, base, 0) < 0)
			r = why_set(why, -errno, "%s: %s", path, strerror(errno));
	}
	close(dfd);
	return r;
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
