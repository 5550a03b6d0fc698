/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_SANDBOX_H
#define ZRAM_RECOMPD_SANDBOX_H

/*
 * Self-sandboxing with Landlock (Linux 5.13+, when the kernel has CONFIG_SECURITY_LANDLOCK
 * and "landlock" in its LSM list): after start-up the process restricts itself so that it
 * can write only beneath
 *   - the directory of each zram device present then (ROOT/sys/block/zramN followed
 *     through RESOLVE_IN_ROOT: /sys/devices/virtual/block/zramN), WRITE_FILE only; not
 *     their parent, which holds the loop, dm and md devices too. A device added later
 *     has no rule, and Landlock cannot add one: the daemon restarts for it
 *     (sandbox_dev_covered);
 *   - a few host directories (the state directory, the metrics file's directory): create,
 *     write, rename over and remove regular files there, nothing else;
 *   - the backing devices of the configuration (WRITE_FILE on the device node only).
 * Only write-type rights are handled, so reads (sysfs, procfs, debugfs block_state,
 * /dev/zramN for the advice) are not restricted. Descriptors opened before (the PSI
 * triggers, stdout, stderr) keep working. The restriction is irreversible and covers the
 * calling thread and every thread it creates afterwards: apply it before starting threads.
 * Nothing here logs; every function returns 0 or -errno.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SANDBOX_MAX_DIRS 4
#define SANDBOX_MAX_FILES 8

struct config;

struct sandbox_spec {
	int root_fd;	 /* the injected root ("/" or a fake tree) */
	bool sysfs;	 /* allow writing zram attributes (false: --dry-run writes nothing) */
	unsigned n_dirs; /* host directories (absolute paths) where files may be replaced */
	const char *dirs[SANDBOX_MAX_DIRS];
	/*
	 * Host files (absolute paths, symlinks followed) that may be opened for writing: the
	 * backing devices, which the kernel opens read-write as the writing process when
	 * backing_dev is written, so Landlock checks that open against this process.
	 */
	unsigned n_files;
	const char *files[SANDBOX_MAX_FILES];
};

/* A zram device directory with a rule: the inode the rule is on. */
struct sandbox_dev {
	unsigned id;
	dev_t st_dev;
	ino_t st_ino;
};

struct sandbox_info {
	int abi;	   /* the kernel's Landlock ABI version */
	unsigned n_rules;  /* directories with a rule */
	unsigned n_absent; /* directories of the spec that do not exist (no rule, no writes) */
	unsigned n_devs;   /* the zram devices with a rule, in devs (sandbox_info_free) */
	struct sandbox_dev *devs;
};

/*
 * The spec of zram-recompd: the zram directories of root_fd (unless !sysfs), the state
 * directory and the metrics file's directory (either NULL or "" for none; a metrics path
 * without a directory is left out). metrics_dir is the storage for the latter (PATH_MAX).
 * With sysfs and root_fd "/", first the device locks' directory (devlock.h), created where
 * missing (a fake root's gets no rule: lock files there must exist beforehand).
 */
void sandbox_spec_init(struct sandbox_spec *spec, int root_fd, bool sysfs, const char *state_dir,
		       const char *metrics_file, char *metrics_dir);

/*
 * When a device of cfg has zstd-dictionary set: creates the memory-backed dictionary
 * directory (dict_apply.h; mode 0700) and adds it to spec->dirs, for the record of what
 * was applied. Nothing when it is not a safe directory (the record then fails, said once).
 */
void sandbox_spec_add_dict(struct sandbox_spec *spec, const struct config *cfg);

/*
 * Adds the backing devices of cfg ([global] and every [zramN] that sets backing-device),
 * each once, to spec->files. Returns how many did not fit (SANDBOX_MAX_FILES).
 */
unsigned sandbox_spec_add_backing(struct sandbox_spec *spec, const struct config *cfg);

/*
 * The kernel's Landlock ABI version (>= 1), or -ENOSYS (kernel without Landlock),
 * -EOPNOTSUPP (built in but not enabled: not in lsm=), -EPERM (a seccomp filter, e.g. an
 * older unit's SystemCallFilter=, refuses the call).
 */
int sandbox_abi(void);

/*
 * Whether r (from sandbox_abi or sandbox_apply) means "no Landlock here" (ENOSYS,
 * EOPNOTSUPP, EPERM from a seccomp filter), not a failure.
 */
bool sandbox_unavailable(int r);

/* The write-type access rights handled at this ABI version (denied outside the rules). */
uint64_t sandbox_handled_rights(int abi);

/*
 * Builds the ruleset of spec and restricts the calling thread (sets no_new_privs first,
 * which Landlock requires without CAP_SYS_ADMIN). A directory that does not exist gets no
 * rule (counted in info->n_absent); any other failure leaves the process unrestricted and
 * returns -errno. info may be NULL; when not, free it with sandbox_info_free after a 0.
 */
int sandbox_apply(const struct sandbox_spec *spec, struct sandbox_info *info);

/*
 * Whether zram device id of root_fd can be written under the sandbox of info: 1 when its
 * directory is the one that got a rule, 0 when it has none (added, or removed and added
 * again, after sandbox_apply), -errno when it cannot be looked at (-ENOENT: gone).
 */
int sandbox_dev_covered(const struct sandbox_info *info, int root_fd, unsigned id);

void sandbox_info_free(struct sandbox_info *info);

#endif
