/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_BACKING_H
#define ZRAM_RECOMPD_BACKING_H

/*
 * The backing device zram-recompd makes for a zram device before its disksize: a file it
 * creates and fully allocates (backing-file), attached through a loop device with direct
 * I/O, and dm-crypt over it (or over backing-device) with a key that exists only in the
 * kernel (backing-encryption). The stack of device zramN:
 *
 *   PATH  ->  /dev/loopM  ->  /dev/mapper/zram-recompd-zramN  ->  zramN's backing_dev
 *
 * `zram-recompd backing setup|teardown [zramN...]` (backing_cmd.c) runs it as root outside
 * the daemon's sandbox (zram-recompd-backing.service); `--once` on a device
 * not initialized yet (the setup tools' hooks) runs the same setup. The long-running daemon
 * never does (no CAP_SYS_ADMIN, DevicePolicy=closed): it says so once per device.
 *
 * Files by concern: backing_size.c (the size rule and the guard, pure), backing_file.c (the
 * file: path, filesystem, mark, allocation, the lock), backing_mount.c (a mount still to
 * come over the file's directory), loopdev.c (loop devices), dmcrypt.c (libcryptsetup,
 * loaded with dlopen at setup only), backing_stack.c (one device's setup and teardown,
 * undone in reverse on failure), backing_cmd.c (the subcommand, the --once hook, status).
 * Lower files return -errno with a reason in a caller's buffer; backing_stack.c logs.
 */

#include "config.h"
#include "zram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of `backing setup` when the free-space guard refused (zram-recompd(8)). */
#define BACKING_EXIT_GUARD 6

/*
 * The bounds of a backing-file-size given as a share of free space, ChromeOS's
 * (swap_management, zram_writeback.cc): at least 128 MiB, at most 6 GiB. An absolute size
 * is the admin's and only capped by the device's disksize when that is known.
 */
#define BACKING_SHARE_MIN (UINT64_C(128) << 20)
#define BACKING_SHARE_MAX (UINT64_C(6) << 30)
#define BACKING_ALIGN (UINT64_C(1) << 20) /* sizes are whole MiB */

#define BACKING_DM_PREFIX "zram-recompd-" /* dm name: zram-recompd-zramN */
#define BACKING_CIPHER "aes-xts-plain64"
#define BACKING_WHY_MAX 512
/*
 * The mark of a backing file this program made: a trusted.* extended attribute (only
 * CAP_SYS_ADMIN sets one) whose value names the file's own inode number.
 */
#define BACKING_MARK_XATTR "trusted.zram-recompd.backing"
/* Setups and teardowns take turns on this lock (relative to the root). */
#define BACKING_LOCK_DIR "run/zram-recompd"
#define BACKING_LOCK_FILE "backing.lock"

/* The filesystem a backing file goes to, in bytes (statfs: f_blocks, f_bavail). */
struct backing_fs {
	uint64_t total;
	uint64_t avail;
};

/* What the size rule decided. */
struct backing_size {
	uint64_t size;	     /* of the file (whole MiB) */
	uint64_t min_free;   /* what must stay free on the filesystem */
	uint64_t free_after; /* avail - size (saturating) */
};

/*
 * The size of a new backing file (pure): size as bytes, or its percent of fs->avail clamped
 * to [BACKING_SHARE_MIN, BACKING_SHARE_MAX]; then at most disksize (0: unknown), rounded
 * down to whole MiB. The guard: min_free as bytes, or its percent of fs->total, must stay
 * free after the file is allocated. Returns 0, or -ENOSPC when the guard refuses (ret holds
 * the figures either way), -EINVAL when the size comes out below 1 MiB.
 */
int backing_size_rule(const struct cfg_share *size, const struct cfg_share *min_free,
		      const struct backing_fs *fs, uint64_t disksize, struct backing_size *ret);

/* "zram-recompd-zramN" into buf. */
int backing_dm_name(unsigned id, char *buf, size_t size);

/* ---- backing_file.c ---- */

/*
 * Create the backing file at path (absolute; no component may be a symlink): its directory
 * must exist, be root's and not group- or world-writable, and be on a local disk
 * filesystem (backing_fs_check(); nor a filesystem on a zram device: zram_major, 0 when
 * unknown). An existing file there is replaced only when it carries our mark
 * (backing_file_marked(); its space counts as free); anything else is refused with -EPERM
 * and left as it was. The new file is marked before anything is written (a filesystem
 * without trusted xattrs: -EOPNOTSUPP, nothing left), mode 0600, allocated in full
 * (fallocate, or zeros where the filesystem has no fallocate) and refused if it has holes
 * afterwards. *ret_fd: the file, open O_RDWR. Returns 0; -ENOSPC when the guard refused;
 * -errno otherwise; why says the reason with the figures.
 */
int backing_file_create(const char *path, const struct dev_config *dc, unsigned zram_major,
			int *ret_fd, struct backing_size *ret, char why[BACKING_WHY_MAX]);

/*
 * Remove the backing file at path when it carries our mark and, ino not 0, is inode ino;
 * -ENOENT when there is none, -EPERM (why) when it is not ours, -ESTALE when it is another
 * of ours. Never follows a symlink.
 */
int backing_file_remove(const char *path, uint64_t ino, char why[BACKING_WHY_MAX]);

/* Whether path is a file carrying our mark: 0, -ENOENT, -EPERM (why), or -errno. */
int backing_file_ours(const char *path, char why[BACKING_WHY_MAX]);

/* Whether open fd is a regular file carrying our mark for its inode: 1, 0, or -errno. */
int backing_file_marked(int fd);

/*
 * Whether a filesystem (statfs f_type) may hold a backing file: 0 for the local disk
 * filesystems ext2/3/4, xfs, btrfs and f2fs; -EXDEV otherwise, why naming it (tmpfs and
 * ramfs are memory; NFS, SMB, FUSE, overlayfs, 9p, ceph and the like may need the network
 * or a user-space daemon to read a page back; an unknown one is refused too).
 */
int backing_fs_check(uint32_t magic, char why[BACKING_WHY_MAX]);

/*
 * Take the lock of setups and teardowns (BACKING_LOCK_DIR/BACKING_LOCK_FILE under root_fd,
 * made root's 0600 if missing): waits for it when wait, else -EWOULDBLOCK while another
 * holds it. Returns the fd that holds it (close it to release) or -errno (why).
 */
int backing_lock(int root_fd, bool wait, char why[BACKING_WHY_MAX]);

/*
 * Whether dir (absolute) is where the file will stay: -EAGAIN (why names the mount point)
 * when root's etc/fstab mounts a filesystem at dir or above it that
 * proc/self/mountinfo does not show mounted yet (the file would land on the filesystem
 * under it, hidden once it is mounted); 0 otherwise, also without an fstab. Entries with
 * noauto, swap and the root itself are not waited for.
 */
int backing_mount_pending(int root_fd, const char *dir, char why[BACKING_WHY_MAX]);

/* The major number of zram block devices from root's /proc/devices; 0 when not listed. */
unsigned backing_zram_major(int root_fd);

/* ---- loopdev.c ---- */

/*
 * Attach the open file fd (its path for lo_file_name) to a free loop device with direct
 * I/O and autoclear, 4096-byte logical blocks. name gets "loopM", *ret_fd the loop device,
 * open (autoclear detaches it when the last opener closes it: keep it open until dm-crypt
 * or zram holds it). *ret_dio: whether direct I/O was taken. Returns 0 or -errno (why).
 */
int loopdev_attach(int fd, const char *path, char name[32], int *ret_fd, bool *ret_dio,
		   char why[BACKING_WHY_MAX]);

/* Detach loop device name ("loopM") if it is still bound; 0 also when it was not. */
int loopdev_detach(const char *name);

/* The loop device ("loopM") whose backing file is path, from root's sysfs: 0 or -ENOENT. */
int loopdev_find(int root_fd, const char *path, char name[32]);

/* ---- dmcrypt.c ---- */

/*
 * Activate plain dm-crypt (BACKING_CIPHER, a 512-bit key from getrandom(), sector size
 * 4096 where the device and kernel take it, else 512) over device as dm name. The key is
 * erased right after activation and on every error path. Returns 0 or -errno (why names
 * a missing libcryptsetup.so.12).
 */
int dmcrypt_open(const char *device, const char *name, char why[BACKING_WHY_MAX]);

/* Deactivate dm name; -ENOENT when there is none. */
int dmcrypt_close(const char *name, char why[BACKING_WHY_MAX]);

/* The block device ("dm-N") of dm name from root's sysfs: 0 or -ENOENT. */
int dmcrypt_find(int root_fd, const char *name, char dm[32]);

/* ---- backing_stack.c ---- */

/*
 * Set up d's backing device as its configuration dc says (config_backing_by_setup()), on
 * the host (root_fd the process root). Only a device that is not initialized and has no
 * backing_dev yet; otherwise nothing (said at info level). On success d->backing_dev holds
 * what was written. Returns 0; -ENOSPC when the guard refused; -errno (logged once).
 */
int backing_setup_dev(int root_fd, struct zram_dev *d, const struct dev_config *dc);

/*
 * Take down what setup made for device id (dc: its configuration, for the file): dm-crypt,
 * the loop device, the file. Left in place, said so, when zramN is initialized with it as
 * backing_dev. Returns 0 (done, nothing of ours, or left in use) or -errno (logged).
 */
int backing_teardown_dev(int root_fd, unsigned id, const struct dev_config *dc);

/*
 * What d's backing device is, for status: "file PATH (SIZE, encrypted aes-xts-plain64,
 * /dev/mapper/zram-recompd-zramN)", "device /dev/X (encrypted ...)", or "plain device
 * (unencrypted)". Empty when d has none.
 */
void backing_describe(int root_fd, const struct zram_dev *d, char *buf, size_t size);

/* ---- backing_cmd.c ---- */

/* `zram-recompd backing setup|teardown [zramN...]` (argv[0] is "backing"): exit status. */
int backing_main(int argc, char **argv, int root_fd, const struct config *cfg);

/*
 * --once, before its sandbox: backing_setup_dev() for each of the n probed devices that
 * needs it; dry_run only says what it would do. Returns ret, or 1 (a device failed) or
 * BACKING_EXIT_GUARD when one did.
 */
int backing_once(int root_fd, const struct config *cfg, struct zram_dev *devs, unsigned n,
		 bool dry_run, int ret);

#endif
