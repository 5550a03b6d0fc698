// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The writeback_limit hold record (include/wb_hold.h). One line, written whole through a
 * temporary file and a rename:
 *
 *	zram-recompd-wb-hold 1 boot=BOOT_ID limited=0|1 limit=N
 *
 * BOOT_ID is /proc/sys/kernel/random/boot_id ("-" where it cannot be read). No fsync: the
 * record only matters while the kernel's values live, which a power loss ends as well.
 */
#include "wb_hold.h"

#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WB_HOLD_MAGIC "zram-recompd-wb-hold 1"

static int hold_name(const char *name, const char *suffix, char *buf, size_t size)
{
	if (!zram_name_valid(name))
		return -EINVAL;
	return str_printf(buf, size, "wb-hold.%s%s", name, suffix) < 0 ? -ENAMETOOLONG : 0;
}

/* This boot's id: 36 characters of [0-9a-f-], or "-" when it cannot be read. */
static void boot_id(int root_fd, char *buf, size_t size)
{
	char raw[64];
	size_t len = 0;

	if (sysfs_read(root_fd, "proc/sys/kernel/random/boot_id", raw, sizeof(raw), &len) < 0)
		len = 0;
	while (len && (raw[len - 1] == '\n' || raw[len - 1] == ' '))
		len--;
	raw[len] = '\0';
	if (len == 0 || len >= size || strspn(raw, "0123456789abcdef-") != len)
		(void)str_printf(buf, size, "-");
	else
		(void)str_printf(buf, size, "%s", raw);
}

int wb_hold_load(int dir_fd, int root_fd, const char *name, bool *limited, uint64_t *limit)
{
	char file[64], buf[160], boot[40], rboot[40], lim[24];
	unsigned en;
	size_t len;
	int fd, r, n = -1;

	r = hold_name(name, "", file, sizeof(file));
	if (r < 0)
		return r;
	fd = openat(dir_fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = read_full(fd, buf, sizeof(buf) - 1, &len);
	close(fd);
	if (r < 0)
		return r;
	buf[len] = '\0';
	boot_id(root_fd, boot, sizeof(boot));
	if (sscanf(buf, WB_HOLD_MAGIC " boot=%39s limited=%u limit=%23[0-9]%n", rboot, &en, lim,
		   &n) != 3 ||
	    n < 0 || strcmp(buf + n, "\n") != 0 || en > 1 || parse_u64(lim, limit) < 0 ||
	    strcmp(rboot, boot) != 0) {
		/* another boot's (the kernel's values are new), or not ours to understand */
		(void)wb_hold_clear(dir_fd, name);
		return 0;
	}
	*limited = en;
	return 1;
}

int wb_hold_save(int dir_fd, int root_fd, const char *name, bool limited, uint64_t limit)
{
	char file[64], tmp[64], boot[40], line[160];
	int fd, r, len;

	r = hold_name(name, "", file, sizeof(file));
	if (r == 0)
		r = hold_name(name, ".tmp", tmp, sizeof(tmp));
	if (r < 0)
		return r;
	boot_id(root_fd, boot, sizeof(boot));
	len = snprintf(line, sizeof(line), WB_HOLD_MAGIC " boot=%s limited=%d limit=%" PRIu64 "\n",
		       boot, limited ? 1 : 0, limited ? limit : 0);
	if (len < 0 || (size_t)len >= sizeof(line))
		return -ENAMETOOLONG;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = write(fd, line, (size_t)len) == len ? 0 : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dir_fd, tmp, dir_fd, file) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dir_fd, tmp, 0);
	return r;
}

int wb_hold_clear(int dir_fd, const char *name)
{
	char file[64];
	int r = hold_name(name, "", file, sizeof(file));

	if (r < 0)
		return r;
	return unlinkat(dir_fd, file, 0) < 0 && errno != ENOENT ? -errno : 0;
}
