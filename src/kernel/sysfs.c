// SPDX-License-Identifier: GPL-2.0-or-later
#include "sysfs.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * RESOLVE_IN_ROOT makes "/" and ".." stop at root_fd, so an absolute symlink inside a fake
 * tree (or a hostile one) resolves inside it. /sys/block/zramN itself is a symlink into
 * /sys/devices/virtual/block, so symlinks must be followed, just never out of the root.
 * Magic links (/proc/self/fd/…) are never followed.
 */
/* Whether fd is the directory "/" resolves to in this process. */
static bool is_process_root(int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

bool sysfs_root_is_process_root(int root_fd)
{
	return is_process_root(root_fd);
}

#define OPENAT2_EAGAIN_TRIES 64

static int open_in_root(int root_fd, const char *relpath, int flags, int *ret_fd)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	unsigned again = 0;
	int fd;

	if (!relpath || !*relpath || relpath[0] == '/')
		return -EINVAL;
	/*
	 * EAGAIN: with RESOLVE_IN_ROOT the kernel could not rule out that a ".." escaped
	 * because a rename or mount somewhere in the system raced with the lookup (sysfs's
	 * block/zramN links are "../devices/..."); openat2(2) says to retry. Seen in the
	 * strace tier while other tests renamed their state files.
	 */
	do
		fd = (int)syscall(SYS_openat2, root_fd, relpath, &how, sizeof(how));
	while (fd < 0 && (errno == EINTR || (errno == EAGAIN && ++again <= OPENAT2_EAGAIN_TRIES)));
	if (fd < 0 && errno == ENOSYS) {
		/*
		 * Kernels before 5.6 have no openat2; they cannot recompress either, but
		 * `status` should still explain that. Plain openat() resolves absolute
		 * symlinks from the process's root: fine when that is the root, an escape
		 * from any other (a fake tree's link to a host file), so refused there.
		 */
		if (!is_process_root(root_fd))
			return -ENOSYS;
		do
			fd = openat(root_fd, relpath, flags | O_CLOEXEC);
		while (fd < 0 && errno == EINTR);
	}
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

int sysfs_open_root(const char *path, int *ret_fd)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

int sysfs_open_read(int root_fd, const char *relpath, int *ret_fd)
{
	return open_in_root(root_fd, relpath, O_RDONLY | O_NOCTTY, ret_fd);
}

int sysfs_read(int root_fd, const char *relpath, char *buf, size_t size, size_t *ret_len)
{
	size_t len = 0, more;
	int fd, r;
	char c;

	if (size < 2)
		return -EINVAL;
	r = sysfs_open_read(root_fd, relpath, &fd);
	if (r < 0)
		return r;
	r = read_full(fd, buf, size - 1, &len);
	/* Full buffer: only fine if the file ends exactly here. */
	if (r == 0 && len == size - 1) {
		r = read_full(fd, &c, 1, &more);
		if (r == 0 && more)
			r = -EFBIG;
	}
	close(fd);
	/* Terminated on every return, -EFBIG included: callers may look at what fit. */
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	return r < 0 ? r : 0;
}

int sysfs_read_u64(int root_fd, const char *relpath, uint64_t *ret)
{
	char buf[64];
	size_t len;
	int r;

	r = sysfs_read(root_fd, relpath, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return parse_u64_text(buf, len, ret);
}

int sysfs_open_dir_path(int root_fd, const char *relpath, int *ret_fd)
{
	return open_in_root(root_fd, relpath, O_PATH | O_DIRECTORY, ret_fd);
}

int sysfs_exists(int root_fd, const char *relpath)
{
	int fd, r;

	r = open_in_root(root_fd, relpath, O_PATH, &fd);
	if (r < 0)
		return r;
	close(fd);
	return 0;
}

static const char *const write_allowlist[] = {
	"recomp_algorithm", "algorithm_params", "recompress", "idle", "compact",
	/* writeback (CONFIG_ZRAM_WRITEBACK): the backing device before disksize, the
	 * kernel-enforced budget, the write itself */
	"backing_dev", "compressed_writeback", "writeback_limit_enable", "writeback_limit",
	"writeback_batch_size", "writeback",
};

/*
 * adopt (src/adopt_run.c) only, through sysfs_write_adopt(): setting a device up again after
 * its swapoff. reset empties it, comp_algorithm restores its primary, disksize and mem_limit
 * its size and limit; hot_remove (below) removes the temporary device adopt hot-added. The
 * daemon and --once never write these (sysfs_write refuses them).
 */
static const char *const adopt_allowlist[] = {
	"reset",
	"comp_algorithm",
	"disksize",
	"mem_limit",
};
#define HOT_REMOVE_PATH "sys/class/zram-control/hot_remove"

/* The device attribute relpath names ("sys/block/zramN/ATTR"), or NULL. */
static const char *zram_attr_of(const char *relpath)
{
	static const char prefix[] = "sys/block/";
	const char *dev, *slash;
	char name[16];

	if (!relpath || strncmp(relpath, prefix, sizeof(prefix) - 1) != 0)
		return NULL;
	dev = relpath + sizeof(prefix) - 1;
	slash = strchr(dev, '/');
	if (!slash || (size_t)(slash - dev) >= sizeof(name))
		return NULL;
	memcpy(name, dev, (size_t)(slash - dev));
	name[slash - dev] = '\0';
	return zram_name_valid(name) ? slash + 1 : NULL;
}

bool sysfs_adopt_write_allowed(const char *relpath)
{
	const char *attr = zram_attr_of(relpath);

	if (relpath && strcmp(relpath, HOT_REMOVE_PATH) == 0)
		return true;
	if (!attr)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(adopt_allowlist); i++)
		if (strcmp(attr, adopt_allowlist[i]) == 0)
			return true;
	return false;
}

bool sysfs_write_allowed(const char *relpath)
{
	const char *attr = zram_attr_of(relpath);

	if (!attr)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(write_allowlist); i++)
		if (strcmp(attr, write_allowlist[i]) == 0)
			return true;
	return false;
}

/* The write of both, once its path is allowed. */
static int write_attr(int root_fd, const char *relpath, const char *data)
{
	size_t len = strlen(data);
	ssize_t n;
	int fd, r;

	if (len == 0)
		return -EINVAL;
	r = open_in_root(root_fd, relpath, O_WRONLY | O_APPEND | O_NOCTTY, &fd);
	if (r < 0)
		return r;
	/* One write(2) per command: the kernel parses each write as a whole command, and
	 * a sysfs store is never restarted, so EINTR cannot happen half-way. */
	n = write(fd, data, len);
	r = n < 0 ? -errno : ((size_t)n != len ? -EIO : 0);
	if (close(fd) < 0 && r == 0 && errno != EINTR)
		r = -errno;
	return r;
}

int sysfs_write(int root_fd, const char *relpath, const char *data)
{
	if (!sysfs_write_allowed(relpath))
		return -EPERM;
	return write_attr(root_fd, relpath, data);
}

int sysfs_write_adopt(int root_fd, const char *relpath, const char *data)
{
	if (!sysfs_write_allowed(relpath) && !sysfs_adopt_write_allowed(relpath))
		return -EPERM;
	return write_attr(root_fd, relpath, data);
}

int sysfs_open_zram_dev_excl(int root_fd, unsigned id, int *ret_fd)
{
	char path[32];
	int r = str_printf(path, sizeof(path), "dev/zram%u", id);

	if (r < 0)
		return r;
	return open_in_root(root_fd, path, O_RDWR | O_EXCL | O_NOCTTY, ret_fd);
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

int sysfs_list_zram(int root_fd, unsigned **ret_ids)
{
	unsigned *ids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	r = open_in_root(root_fd, "sys/block", O_RDONLY | O_DIRECTORY, &fd);
	if (r < 0 || (r = dir_open_fd(fd, &d)) < 0)
		return r;
	while ((r = dir_next(d, &de)) > 0) {
		unsigned id;

		if (zram_name_to_id(de->d_name, &id) < 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			unsigned *nids = ncap > INT_MAX ? NULL : realloc(ids, ncap * sizeof(*ids));

			if (!nids) {
				r = -ENOMEM;
				break;
			}
			ids = nids;
			cap = ncap;
		}
		ids[n++] = id;
	}
	closedir(d);
	if (r < 0) {
		free(ids);
		return r;
	}
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_unsigned);
	*ret_ids = ids;
	return (int)n;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int sysfs_list_dir(int root_fd, const char *relpath, char (*names)[64], size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int fd, r;

	r = open_in_root(root_fd, relpath, O_RDONLY | O_DIRECTORY, &fd);
	if (r < 0 || (r = dir_open_fd(fd, &d)) < 0)
		return r;
	while ((r = dir_next(d, &de)) > 0) {
		if (n >= max) {
			r = 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strlen(de->d_name) >= 64)
			continue;
		strcpy(names[n++], de->d_name);
	}
	closedir(d);
	if (r < 0)
		return r;
	qsort(names, n, sizeof(names[0]), cmp_name);
	return (int)n;
}

int sysfs_open_pressure(int root_fd, const char *resource, int *ret_fd)
{
	char path[64];
	int r;

	if (strcmp(resource, "memory") != 0 && strcmp(resource, "cpu") != 0)
		return -EINVAL;
	r = str_printf(path, sizeof(path), "proc/pressure/%s", resource);
	if (r < 0)
		return r;
	return open_in_root(root_fd, path, O_RDWR | O_NONBLOCK, ret_fd);
}
