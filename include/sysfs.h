/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_SYSFS_H
#define ZRAM_RECOMPD_SYSFS_H

/*
 * All file I/O on kernel files goes through here, relative to an injected root
 * directory fd ("/" in production, a fake tree in tests: --sysroot or
 * $ZRAM_RECOMPD_SYSROOT). Paths are relative ("sys/block/zram0/mm_stat") and are
 * resolved with openat2(RESOLVE_IN_ROOT), so even an absolute symlink inside a fake
 * root cannot escape it. Without openat2 (ENOSYS, Linux before 5.6) only the process's
 * own root is usable (plain openat); any other root gives -ENOSYS, as nothing would keep
 * its symlinks inside it. Every function returns 0 or -errno and never logs.
 *
 * Writes are allowed only to sys/block/zramN/{recomp_algorithm, algorithm_params,
 * recompress, idle, compact} and, for writeback, {backing_dev, compressed_writeback,
 * writeback_limit_enable, writeback_limit, writeback_batch_size, writeback}; anything else
 * is refused with -EPERM before open(). The adopt command alone may write a few more
 * (sysfs_write_adopt).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open a root directory (O_PATH|O_DIRECTORY|O_CLOEXEC). */
int sysfs_open_root(const char *path, int *ret_fd);

/* Whether root_fd is the directory "/" of this process (not a fake tree). */
bool sysfs_root_is_process_root(int root_fd);

/* Open a file for reading (O_RDONLY|O_CLOEXEC). Caller closes. */
int sysfs_open_read(int root_fd, const char *relpath, int *ret_fd);

/*
 * Read a whole small file into buf (NUL-terminated). -EFBIG if it does not fit,
 * ret_len may be NULL.
 */
int sysfs_read(int root_fd, const char *relpath, char *buf, size_t size, size_t *ret_len);

/* Read a decimal u64 file ("%llu\n"). */
int sysfs_read_u64(int root_fd, const char *relpath, uint64_t *ret);

/*
 * Open a directory as an O_PATH descriptor (for a Landlock rule: it reads and writes
 * nothing itself), symlinks followed inside the root. Caller closes.
 */
int sysfs_open_dir_path(int root_fd, const char *relpath, int *ret_fd);

/* 0 when the path exists, -ENOENT when not, other -errno on failure. */
int sysfs_exists(int root_fd, const char *relpath);

/* True when relpath is a permitted write target (the allowlist). */
bool sysfs_write_allowed(const char *relpath);

/*
 * Write the whole command string with a single write(2) (O_WRONLY|O_APPEND|O_CLOEXEC).
 * A short write is -EIO. O_APPEND is ignored by sysfs attributes and makes a fake tree
 * record each command as a line, so tests can check the exact sequence.
 */
int sysfs_write(int root_fd, const char *relpath, const char *data);

/*
 * adopt only (src/adopt/adopt_run.c): sysfs_write's allowlist plus sys/block/zramN/{reset,
 * comp_algorithm, disksize, mem_limit} and sys/class/zram-control/hot_remove, the writes
 * that set a device up again after its swapoff. Anything else is -EPERM before open().
 */
bool sysfs_adopt_write_allowed(const char *relpath);
int sysfs_write_adopt(int root_fd, const char *relpath, const char *data);

/*
 * Open dev/zramN under the root O_RDWR|O_EXCL|O_CLOEXEC (adopt writes its swap header):
 * O_EXCL on a block device fails with EBUSY while it is swapped on or mounted, so a header
 * never lands on a device in use.
 */
int sysfs_open_zram_dev_excl(int root_fd, unsigned id, int *ret_fd);

/*
 * List every zram device id present under sys/block (names matching zram[0-9]+), sorted
 * ascending (numeric order, not readdir's). Returns the count (>= 0) with *ret_ids a
 * malloc'ed array the caller frees (NULL when the count is 0), or -errno: a failed
 * directory read (getdents EIO) is an error, not the end of the list.
 */
int sysfs_list_zram(int root_fd, unsigned **ret_ids);

/*
 * Names of the entries of a directory (no "." / ".."), sorted; at most max names of up to
 * 63 bytes (longer ones are skipped). Returns the count or -errno (a failed read too).
 */
int sysfs_list_dir(int root_fd, const char *relpath, char (*names)[64], size_t max);

/*
 * Open proc/pressure/<resource> ("memory" or "cpu") read-write, non-blocking, for a PSI
 * trigger (host_psi_trigger): the only file opened for writing outside the zram
 * allowlist, and its path is fixed.
 */
int sysfs_open_pressure(int root_fd, const char *resource, int *ret_fd);

#endif
