// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Landlock self-sandbox (see sandbox.h). glibc has no wrappers for the three system calls;
 * the constants below that older <linux/landlock.h> (Debian 12: ABI 2) lack are the
 * kernel's ABI numbers.
 */
#include "sandbox.h"

#include "config.h"
#include "devlock.h"
#include "dict_apply.h"
#include "state.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The same numbers on every architecture (the unified syscall table, 5.13+). */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
/* ABI 2 (5.19+). */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
/* ABI 3 (6.2+): truncate(2), ftruncate(2) of files opened after, open(O_TRUNC). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

/* ABI 1: every right that creates, removes or writes something. */
#define WRITE_RIGHTS_ABI1                                                                      \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                       \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |                       \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                           \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |                         \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* sysfs attributes: opened O_WRONLY|O_APPEND, never created, removed or truncated. */
#define RIGHTS_SYSFS LANDLOCK_ACCESS_FS_WRITE_FILE
/*
 * The state and metrics directories: a temp file created (O_EXCL), written, renamed over
 * the old file in the same directory (no REFER: the file stays in its directory), stale
 * temp files unlinked; TRUNCATE for an O_TRUNC the C library might add.
 */
#define RIGHTS_FILES                                                                           \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG |                         \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)

void sandbox_spec_init(struct sandbox_spec *spec, int root_fd, bool sysfs, const char *state_dir,
		       const char *metrics_file, char *metrics_dir)
{
	const char *base;
	int fd;

	memset(spec, 0, sizeof(*spec));
	spec->root_fd = root_fd;
	spec->sysfs = sysfs;
	/* the daemon makes a device's lock file (devlock.h) at its first tick: the directory now */
	if (sysfs && sysfs_root_is_process_root(root_fd) &&
	    devlock_dir_open(root_fd, true, &fd) == 0) {
		close(fd);
		spec->dirs[spec->n_dirs++] = "/" DEVLOCK_DIR;
	}
	if (state_dir && *state_dir)
		spec->dirs[spec->n_dirs++] = state_dir;
	if (metrics_file && *metrics_file && metrics_split_path(metrics_file, metrics_dir, &base) == 0)
		spec->dirs[spec->n_dirs++] = metrics_dir;
}

static void add_file(struct sandbox_spec *spec, const char *path, unsigned *dropped)
{
	if (!*path)
		return;
	for (unsigned i = 0; i < spec->n_files; i++)
		if (strcmp(spec->files[i], path) == 0)
			return;
	if (spec->n_files < SANDBOX_MAX_FILES)
		spec->files[spec->n_files++] = path;
	else
		(*dropped)++;
}

unsigned sandbox_spec_add_backing(struct sandbox_spec *spec, const struct config *cfg)
{
	unsigned dropped = 0;

	add_file(spec, cfg->global.backing_device, &dropped);
	for (unsigned i = 0; i < cfg->n_sections; i++)
		if (cfg->sections[i].cfg.set & CFG_K_BACKING_DEV)
			add_file(spec, cfg->sections[i].cfg.backing_device, &dropped);
	return dropped;
}

void sandbox_spec_add_dict(struct sandbox_spec *spec, const struct config *cfg)
{
	bool any = cfg->global.dict_use != DICT_USE_NO;
	char why[192];
	int fd;

	for (unsigned i = 0; i < cfg->n_sections; i++)
		any |= cfg->sections[i].cfg.dict_use != DICT_USE_NO;
	if (!any || spec->n_dirs >= SANDBOX_MAX_DIRS)
		return;
	fd = dict_dir_open(dict_dir_path(), true, why, sizeof(why));
	if (fd < 0)
		return;
	close(fd);
	spec->dirs[spec->n_dirs++] = dict_dir_path();
}

int sandbox_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (v < 0)
		return -errno;
	return v > 0 && v < 1000 ? (int)v : -EPROTO;
}

bool sandbox_unavailable(int r)
{
	/* EPERM: a seccomp filter refuses the system call (the kernel itself never does). */
	return r == -ENOSYS || r == -EOPNOTSUPP || r == -EPERM;
}

uint64_t sandbox_handled_rights(int abi)
{
	uint64_t rights = WRITE_RIGHTS_ABI1;

	if (abi < 1)
		return 0;
	/* 5.19+: without REFER handled, ABI 1 denies every cross-directory rename anyway. */
	if (abi >= 2)
		rights |= LANDLOCK_ACCESS_FS_REFER;
	/* 6.2+. Later rights (IOCTL_DEV at 6.10, network, scopes) are not write-type. */
	if (abi >= 3)
		rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return rights;
}

/* A rule for the directory fd: rights limited to what the ruleset handles. */
static int add_rule(int ruleset, int dir_fd, uint64_t rights, uint64_t handled)
{
	struct landlock_path_beneath_attr pb = {
		.allowed_access = rights & handled,
		.parent_fd = dir_fd,
	};

	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		return -errno;
	return 0;
}

/* The directory of zram device id in root_fd (sys/block/zramN, its link followed). */
static int open_dev_dir(int root_fd, unsigned id, int *fd)
{
	char path[64];
	int r = str_printf(path, sizeof(path), "sys/block/zram%u", id);

	return r < 0 ? r : sysfs_open_dir_path(root_fd, path, fd);
}

/* A rule for zram device id's directory, its inode kept in info->devs; absent: none. */
static int add_dev_dir(int ruleset, int root_fd, unsigned id, uint64_t handled,
		       struct sandbox_info *info)
{
	struct sandbox_dev *d = &info->devs[info->n_devs];
	struct stat st;
	int fd, r = open_dev_dir(root_fd, id, &fd);

	if (r == -ENOENT || r == -ENOTDIR) {
		info->n_absent++;
		return 0;
	}
	if (r < 0)
		return r;
	r = fstat(fd, &st) < 0 ? -errno : add_rule(ruleset, fd, RIGHTS_SYSFS, handled);
	close(fd);
	if (r < 0)
		return r;
	info->n_rules++;
	*d = (struct sandbox_dev){ .id = id, .st_dev = st.st_dev, .st_ino = st.st_ino };
	info->n_devs++;
	return 0;
}

/*
 * Each present zram device's own directory, wherever its sys/block link points inside the
 * root; not sys/devices/virtual/block, which holds loop, dm and md devices as well.
 */
static int add_sysfs(int ruleset, int root_fd, uint64_t handled, struct sandbox_info *info)
{
	unsigned *ids = NULL;
	int n, r = 0;

	n = sysfs_list_zram(root_fd, &ids);
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return n;
	info->devs = n ? calloc((size_t)n, sizeof(*info->devs)) : NULL;
	if (n && !info->devs)
		r = -ENOMEM;
	for (int i = 0; i < n && r == 0; i++)
		r = add_dev_dir(ruleset, root_fd, ids[i], handled, info);
	free(ids);
	return r;
}

int sandbox_dev_covered(const struct sandbox_info *info, int root_fd, unsigned id)
{
	struct stat st;
	int fd, r = open_dev_dir(root_fd, id, &fd);

	if (r < 0)
		return r;
	r = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	for (unsigned i = 0; r == 0 && i < info->n_devs; i++)
		if (info->devs[i].id == id)
			return info->devs[i].st_dev == st.st_dev &&
			       info->devs[i].st_ino == st.st_ino;
	return r;
}

void sandbox_info_free(struct sandbox_info *info)
{
	free(info->devs);
	info->devs = NULL;
	info->n_devs = 0;
}

/* A host directory (rights: RIGHTS_FILES) or, with !is_dir, a file (WRITE_FILE only). */
static int add_host_path(int ruleset, const char *path, bool is_dir, uint64_t handled,
			 struct sandbox_info *info)
{
	int fd, r;

	if (!path || path[0] != '/')
		return -EINVAL;
	fd = open(path, O_PATH | O_CLOEXEC | (is_dir ? O_DIRECTORY : 0));
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			info->n_absent++;
			return 0;
		}
		return -errno;
	}
	r = add_rule(ruleset, fd, is_dir ? RIGHTS_FILES : LANDLOCK_ACCESS_FS_WRITE_FILE, handled);
	close(fd);
	info->n_rules += r == 0;
	return r;
}

int sandbox_apply(const struct sandbox_spec *spec, struct sandbox_info *info_out)
{
	struct landlock_ruleset_attr attr = { 0 };
	struct sandbox_info info = { 0 };
	int ruleset, r;

	if (!spec || spec->n_dirs > SANDBOX_MAX_DIRS || spec->n_files > SANDBOX_MAX_FILES)
		return -EINVAL;
	r = sandbox_abi();
	if (r < 0)
		return r;
	info.abi = r;
	attr.handled_access_fs = sandbox_handled_rights(info.abi);
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return -errno;
	r = spec->sysfs ? add_sysfs(ruleset, spec->root_fd, attr.handled_access_fs, &info) : 0;
	for (unsigned i = 0; i < spec->n_dirs && r == 0; i++)
		r = add_host_path(ruleset, spec->dirs[i], true, attr.handled_access_fs, &info);
	for (unsigned i = 0; i < spec->n_files && r == 0; i++)
		r = add_host_path(ruleset, spec->files[i], false, attr.handled_access_fs, &info);
	/* Landlock needs no_new_privs without CAP_SYS_ADMIN; this program executes nothing. */
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = -errno;
	if (r == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		r = -errno;
	close(ruleset);
	if (r == 0 && info_out)
		*info_out = info;
	else
		sandbox_info_free(&info);
	return r;
}
