// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's page size, which every count of zram follows (include/zram.h), and the
 * stored pages themselves read by slot.
 */
#include "zram.h"

#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

bool zram_page_size_valid(uint64_t page_size)
{
	return page_size >= ZRAM_PAGE_SIZE_MIN && page_size <= ZRAM_PAGE_SIZE_MAX &&
	       (page_size & (page_size - 1)) == 0;
}

uint32_t zram_host_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	/* Linux always reports it; a value out of range stays out for the caller to refuse */
	return ps > 0 && (unsigned long)ps <= UINT32_MAX ? (uint32_t)ps : 0;
}

int zram_read_page_size(int root_fd, unsigned id, uint32_t *ret)
{
	char path[64];
	uint64_t v;
	int r = str_printf(path, sizeof(path), "sys/block/zram%u/queue/physical_block_size", id);

	if (r < 0)
		return r;
	r = sysfs_read_u64(root_fd, path, &v);
	if (r == -ENOENT)
		v = zram_host_page_size();
	else if (r < 0)
		return r;
	if (!zram_page_size_valid(v))
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

ssize_t zram_read_slot(int fd, uint64_t slot, uint32_t page_size, void *page)
{
	uint64_t off;
	size_t len;
	int r;

	if (!zram_page_size_valid(page_size) || slot > (UINT64_MAX >> 1) / page_size)
		return -EINVAL;
	off = slot * page_size;
	r = pread_full(fd, page, page_size, off, &len);
	if (r < 0)
		return r;
	if (len == page_size)
		(void)posix_fadvise(fd, (off_t)off, (off_t)page_size, POSIX_FADV_DONTNEED);
	return (ssize_t)len;
}
