// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The advisory locks of devlock.h. Every component is opened with O_NOFOLLOW from the root
 * fd down (no path from input takes part), so a symbolic link planted on the way is refused
 * (ELOOP), and every descriptor is O_CLOEXEC.
 */
#include "devlock.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

void devlock_name(unsigned id, char *out, size_t size)
{
	if (id == DEVLOCK_ADOPT)
		(void)snprintf(out, size, "adopt");
	else
		(void)snprintf(out, size, "zram%u", id);
}

/* A directory of ours that nobody else may write: else a lock in it proves nothing. */
static int check_ours(int fd, mode_t type)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((st.st_mode & S_IFMT) != type || st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

/* name beneath dir_fd as a directory; with create, made 0700 where missing. */
static int open_sub(int dir_fd, const char *name, bool create, bool check, int *ret_fd)
{
	int fd = openat(dir_fd, name, DIR_FLAGS);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dir_fd, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(dir_fd, name, DIR_FLAGS);
	}
	if (fd < 0)
		return -errno;
	if (check) {
		int r = check_ours(fd, S_IFDIR);

		if (r < 0) {
			close(fd);
			return r;
		}
	}
	*ret_fd = fd;
	return 0;
}

int devlock_dir_open(int root_fd, bool create, int *ret_fd)
{
	int run = -1, zr = -1, r;

	/* run/ is the system's (created by it; root's, 0755): opened, never made */
	r = open_sub(root_fd, "run", false, false, &run);
	if (r < 0)
		return r;
	r = open_sub(run, "zram-recompd", create, true, &zr);
	close(run);
	if (r < 0)
		return r;
	r = open_sub(zr, "lock", create, true, ret_fd);
	close(zr);
	return r;
}

int devlock_try(int root_fd, unsigned id, bool exclusive, int *ret_fd)
{
	char name[16];
	int dir, fd, r;

	*ret_fd = -1;
	r = devlock_dir_open(root_fd, true, &dir);
	if (r < 0)
		return r;
	devlock_name(id, name, sizeof(name));
	/* O_RDONLY is enough for flock(2); O_NONBLOCK: a FIFO in its place cannot block us */
	fd = openat(dir, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		    0600);
	r = fd < 0 ? -errno : 0;
	close(dir);
	if (r == 0)
		r = check_ours(fd, S_IFREG);
	while (r == 0 && flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0)
		if (errno != EINTR)
			r = errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int devlock_wait(int root_fd, unsigned id, bool exclusive, unsigned wait_ms, int *ret_fd)
{
	uint64_t end = sat_add_u64(now_monotonic_ns(), sat_mul_u64(wait_ms, 1000000ULL));
	int r;

	while ((r = devlock_try(root_fd, id, exclusive, ret_fd)) == -EAGAIN &&
	       now_monotonic_ns() < end)
		sleep_ms(100);
	return r;
}

void devlock_release(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
