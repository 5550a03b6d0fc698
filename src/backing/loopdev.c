// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loop devices for backing files (include/backing.h). LOOP_CONFIGURE (5.8+) binds the
 * file and sets direct I/O, autoclear and the block size in one step; before 5.8, or where
 * it is refused, LOOP_SET_FD, LOOP_SET_STATUS64, LOOP_SET_BLOCK_SIZE and LOOP_SET_DIRECT_IO
 * in turn. Direct I/O keeps zram's written-back pages out of the page cache (otherwise
 * every page written back would occupy RAM again until reclaimed). Another process may
 * take the loop device LOOP_CTL_GET_FREE gave between that call and ours: EBUSY, retried
 * with the next free one.
 */
#include "backing.h"

#include "sysfs.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define GET_FREE_TRIES 16
#define NODE_WAIT_TRIES 100 /* 10 ms each: devtmpfs makes the node as the device appears */
#define LOOP_BLOCK 4096

static int ioctl_retry(int fd, unsigned long req, unsigned long arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static int open_node(unsigned n, char name[32], int *ret_fd)
{
	char path[48];
	int fd = -1;

	(void)str_printf(name, 32, "loop%u", n);
	(void)str_printf(path, sizeof(path), "/dev/loop%u", n);
	for (unsigned i = 0; i < NODE_WAIT_TRIES; i++) {
		fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			break;
		(void)usleep(10000);
	}
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

/* Pre-5.8: the same in four steps. */
static int configure_old(int lfd, const struct loop_config *cfg)
{
	int r = ioctl_retry(lfd, LOOP_SET_FD, cfg->fd);

	if (r < 0)
		return r;
	r = ioctl_retry(lfd, LOOP_SET_STATUS64, (unsigned long)&cfg->info);
	if (r == 0)
		(void)ioctl_retry(lfd, LOOP_SET_BLOCK_SIZE, cfg->block_size);
	if (r == 0)
		(void)ioctl_retry(lfd, LOOP_SET_DIRECT_IO, 1);
	if (r < 0)
		(void)ioctl_retry(lfd, LOOP_CLR_FD, 0);
	return r;
}

static int configure(int lfd, int fd, const char *path)
{
	struct loop_config cfg;
	int r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (__u32)fd;
	cfg.block_size = LOOP_BLOCK;
	cfg.info.lo_flags = LO_FLAGS_DIRECT_IO | LO_FLAGS_AUTOCLEAR;
	(void)str_printf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", path);
	r = ioctl_retry(lfd, LOOP_CONFIGURE, (unsigned long)&cfg);
	/* ENOTTY/EINVAL: a kernel before 5.8 */
	if (r == -ENOTTY || r == -EINVAL)
		r = configure_old(lfd, &cfg);
	return r;
}

static bool dio_on(const char *name)
{
	char path[64];
	uint64_t v = 0;
	int root;

	(void)str_printf(path, sizeof(path), "sys/block/%s/loop/dio", name);
	if (sysfs_open_root("/", &root) < 0)
		return false;
	if (sysfs_read_u64(root, path, &v) < 0)
		v = 0;
	close(root);
	return v == 1;
}

int loopdev_attach(int fd, const char *path, char name[32], int *ret_fd, bool *ret_dio,
		   char why[BACKING_WHY_MAX])
{
	int ctl, lfd = -1, r = -EBUSY;

	ctl = open("/dev/loop-control", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (ctl < 0) {
		r = -errno;
		(void)snprintf(why, BACKING_WHY_MAX, "/dev/loop-control: %s", strerror(-r));
		return r;
	}
	for (unsigned i = 0; i < GET_FREE_TRIES && r == -EBUSY; i++) {
		int n = ioctl_retry(ctl, LOOP_CTL_GET_FREE, 0);

		if (n < 0) {
			r = n;
			break;
		}
		r = open_node((unsigned)n, name, &lfd);
		if (r < 0)
			break;
		r = configure(lfd, fd, path);
		if (r < 0) {
			close(lfd);
			lfd = -1;
		}
	}
	close(ctl);
	if (r < 0) {
		(void)snprintf(why, BACKING_WHY_MAX, "loop device: %s", strerror(-r));
		return r;
	}
	*ret_fd = lfd;
	*ret_dio = dio_on(name);
	return 0;
}

int loopdev_detach(const char *name)
{
	char path[48];
	int fd, r;

	if (strncmp(name, "loop", 4) != 0 || strchr(name, '/'))
		return -EINVAL;
	(void)str_printf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO ? 0 : -errno;
	r = ioctl_retry(fd, LOOP_CLR_FD, 0);
	close(fd);
	/* ENXIO: not bound (autoclear came first) */
	return r == -ENXIO ? 0 : r;
}

/* /sys/block/NAME/loop/backing_file is path (the kernel adds " (deleted)" after unlink). */
static bool backs(int root_fd, const char *name, const char *path)
{
	char attr[96], buf[CFG_PATH_MAX + 32];
	size_t len, plen = strlen(path);

	(void)str_printf(attr, sizeof(attr), "sys/block/%s/loop/backing_file", name);
	if (sysfs_read(root_fd, attr, buf, sizeof(buf), &len) < 0)
		return false;
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return strncmp(buf, path, plen) == 0 &&
	       (buf[plen] == '\0' || strcmp(buf + plen, " (deleted)") == 0);
}

int loopdev_find(int root_fd, const char *path, char name[32])
{
	char(*names)[64] = calloc(4096, sizeof(*names));
	int n, r = -ENOENT;

	if (!names)
		return -ENOMEM;
	n = sysfs_list_dir(root_fd, "sys/block", names, 4096);
	for (int i = 0; i < n && r == -ENOENT; i++)
		if (strncmp(names[i], "loop", 4) == 0 && backs(root_fd, names[i], path))
			r = str_printf(name, 32, "%s", names[i]);
	free(names);
	return r;
}
