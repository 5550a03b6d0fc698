// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Landlock sandbox (sandbox.c) on temporary trees. The rights per ABI version and the
 * spec are checked everywhere; the restriction itself needs a kernel with Landlock enabled
 * (skipped otherwise) and is applied in a forked child, which then tries each kind of write
 * and exits with the number of the first check that went wrong (0: all as expected).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "config.h"
#include "sandbox.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakeroot.h"

/* Values of the kernel ABI (older headers lack the later ones). */
#define RIGHT_REFER (1ULL << 13)
#define RIGHT_TRUNCATE (1ULL << 14)
#define RIGHT_IOCTL_DEV (1ULL << 15)

static int setup(void **state)
{
	return fr_setup();
}

static int teardown(void **state)
{
	fr_teardown();
	return 0;
}

static void test_handled_rights(void **state)
{
	const uint64_t reads = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
			       LANDLOCK_ACCESS_FS_READ_DIR | RIGHT_IOCTL_DEV;

	assert_int_equal(sandbox_handled_rights(0), 0);
	for (int abi = 1; abi <= 9; abi++) {
		uint64_t h = sandbox_handled_rights(abi);

		/* Writes of every kind are handled, reads never (they stay allowed). */
		assert_int_equal(h & reads, 0);
		assert_true(h & LANDLOCK_ACCESS_FS_WRITE_FILE);
		assert_true(h & LANDLOCK_ACCESS_FS_MAKE_REG);
		assert_true(h & LANDLOCK_ACCESS_FS_MAKE_DIR);
		assert_true(h & LANDLOCK_ACCESS_FS_MAKE_SYM);
		assert_true(h & LANDLOCK_ACCESS_FS_REMOVE_FILE);
		assert_true(h & LANDLOCK_ACCESS_FS_REMOVE_DIR);
		/* A right the kernel does not know yet makes the ruleset invalid (EINVAL). */
		assert_int_equal(!!(h & RIGHT_REFER), abi >= 2);
		assert_int_equal(!!(h & RIGHT_TRUNCATE), abi >= 3);
	}
}

/* The backing devices of a configuration: [global] and sections that set one, each once. */
static void test_spec_backing(void **state)
{
	static struct config cfg;
	struct sandbox_spec s;
	char mdir[PATH_MAX];

	config_init(&cfg);
	sandbox_spec_init(&s, 3, true, NULL, NULL, mdir);
	assert_int_equal(sandbox_spec_add_backing(&s, &cfg), 0);
	assert_int_equal(s.n_files, 0);
	strcpy(cfg.global.backing_device, "/dev/loop0");
	cfg.n_sections = cfg.cap_sections = 3;
	cfg.sections = calloc(3, sizeof(*cfg.sections));
	assert_non_null(cfg.sections);
	cfg.sections[0].cfg.set = CFG_K_BACKING_DEV;
	strcpy(cfg.sections[0].cfg.backing_device, "/dev/vdb1");
	cfg.sections[1].cfg.set = CFG_K_BACKING_DEV;
	strcpy(cfg.sections[1].cfg.backing_device, "/dev/loop0");
	/* A section that does not set it: its copy of the global value is not another one. */
	strcpy(cfg.sections[2].cfg.backing_device, "/dev/sdz");
	assert_int_equal(sandbox_spec_add_backing(&s, &cfg), 0);
	assert_int_equal(s.n_files, 2);
	assert_string_equal(s.files[0], "/dev/loop0");
	assert_string_equal(s.files[1], "/dev/vdb1");
	config_free(&cfg);
}

static void test_spec(void **state)
{
	struct sandbox_spec s;
	char mdir[PATH_MAX];

	sandbox_spec_init(&s, 7, true, "/var/lib/zr", "/run/node/zr.prom", mdir);
	assert_int_equal(s.root_fd, 7);
	assert_true(s.sysfs);
	assert_int_equal(s.n_dirs, 2);
	assert_string_equal(s.dirs[0], "/var/lib/zr");
	assert_string_equal(s.dirs[1], "/run/node");
	/* No state directory, no metrics file, a metrics file in "/". */
	sandbox_spec_init(&s, 3, false, "", "", mdir);
	assert_false(s.sysfs);
	assert_int_equal(s.n_dirs, 0);
	sandbox_spec_init(&s, 3, true, NULL, "/zr.prom", mdir);
	assert_int_equal(s.n_dirs, 1);
	assert_string_equal(s.dirs[0], "/");
}

/* The fake root: sys/block/zram0 links to ../devices/virtual/block/zram0, as in sysfs. */
static void make_tree(void)
{
	char link[PATH_MAX];

	fr_write("root/sys/devices/virtual/block/zram0/recompress", "");
	fr_write("root/sys/devices/virtual/block/loop0/x", "");
	fr_write("root/proc/pressure/memory", "");
	fr_write("root/etc/other", "");
	fr_write("state/state", "old\n");
	fr_write("metrics/zr.prom", "old\n");
	fr_write("outside/file", "keep\n");
	fr_write("dev/backing", "");
	fr_write("dev/other", "");
	snprintf(link, sizeof(link), "%s/root/sys/block", fr_dir);
	assert_int_equal(mkdir(link, 0755), 0);
	snprintf(link, sizeof(link), "%s/root/sys/block/zram0", fr_dir);
	assert_int_equal(symlink("../devices/virtual/block/zram0", link), 0);
}

/* fr_dir/rel; two calls in one expression get two buffers (rename). */
static const char *P(const char *rel)
{
	static char bufs[2][PATH_MAX];
	static unsigned n;
	char *b = bufs[n++ % 2];

	snprintf(b, PATH_MAX, "%s/%s", fr_dir, rel);
	return b;
}

/* 0 when open(rel, flags) succeeds (closed again), else -errno. */
static int try_open(const char *rel, int flags)
{
	int fd = open(P(rel), flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A sysfs-layer write, as the daemon makes it (relative to the root fd). */
static int try_attr(int root_fd, const char *relpath)
{
	return sysfs_write(root_fd, relpath, "type=idle");
}

/*
 * The child: sandboxed with the state and metrics directories; after the parent hot-adds
 * zram1 (through the pipes), every check in order. Returns the number of the failed check.
 */
static int child_checks(int root_fd, int ready_fd, int go_fd)
{
	char mdir[PATH_MAX], sdir[PATH_MAX], bdev[PATH_MAX], c = 0;
	struct sandbox_spec spec;
	struct sandbox_info info;
	int r;

	snprintf(sdir, sizeof(sdir), "%s/state", fr_dir);
	snprintf(bdev, sizeof(bdev), "%s/dev/backing", fr_dir);
	sandbox_spec_init(&spec, root_fd, true, sdir, P("metrics/zr.prom"), mdir);
	/* A backing device: the kernel opens it read-write as this process (backing_dev). */
	spec.files[spec.n_files++] = bdev;
	if (sandbox_apply(&spec, &info) != 0)
		return 1;
	/* zram0's directory (not its parent), two host dirs, one file. */
	if (info.n_rules != 4 || info.n_absent != 0 || info.abi < 1 || info.n_devs != 1)
		return 2;
	if (write(ready_fd, "r", 1) != 1 || read(go_fd, &c, 1) != 1)
		return 3;
	/* Allowed: zram0's attributes; not zram1's (added after the sandbox was set up),
	 * which sandbox_dev_covered tells, nor a loop device's beside them. */
	if (try_attr(root_fd, "sys/block/zram0/recompress") != 0)
		return 4;
	if (try_attr(root_fd, "sys/block/zram1/recompress") != -EACCES)
		return 5;
	if (sandbox_dev_covered(&info, root_fd, 0) != 1 ||
	    sandbox_dev_covered(&info, root_fd, 1) != 0 ||
	    sandbox_dev_covered(&info, root_fd, 2) != -ENOENT)
		return 19;
	if (try_open("root/sys/devices/virtual/block/loop0/x", O_WRONLY) != -EACCES)
		return 20;
	/* Allowed: a temp file created, renamed over the old one, a stale one removed. */
	if (try_open("state/state.tmpAAAAAA", O_WRONLY | O_CREAT | O_EXCL) != 0 ||
	    rename(P("state/state.tmpAAAAAA"), P("state/state")) != 0)
		return 6;
	if (try_open("metrics/zr.prom.tmpBBBBBB", O_WRONLY | O_CREAT | O_EXCL) != 0 ||
	    unlink(P("metrics/zr.prom.tmpBBBBBB")) != 0)
		return 7;
	/* Refused: writing or creating anywhere else, although root may (DAC allows it). */
	if (try_open("outside/file", O_WRONLY) != -EACCES)
		return 8;
	if (try_open("outside/new", O_WRONLY | O_CREAT | O_EXCL) != -EACCES)
		return 9;
	if (try_open("root/etc/other", O_WRONLY | O_APPEND) != -EACCES)
		return 10;
	/* proc/pressure: the PSI triggers must be opened before the sandbox. */
	if (try_open("root/proc/pressure/memory", O_RDWR) != -EACCES)
		return 11;
	/* Nor anything but regular files in the allowed directories. */
	r = mkdir(P("state/sub"), 0755) < 0 ? -errno : 0;
	if (r != -EACCES)
		return 12;
	r = symlink("state", P("state/link")) < 0 ? -errno : 0;
	if (r != -EACCES)
		return 13;
	/* sysfs: writing attributes only, not creating files there. */
	if (try_open("root/sys/devices/virtual/block/zram0/new", O_WRONLY | O_CREAT) != -EACCES)
		return 14;
	/* 6.2+ (ABI 3): truncation outside too. */
	if (info.abi >= 3 && truncate(P("outside/file"), 0) == 0)
		return 15;
	/* The backing device may be opened for writing, nothing beside it. */
	if (try_open("dev/backing", O_RDWR) != 0)
		return 17;
	if (try_open("dev/other", O_RDWR) != -EACCES)
		return 18;
	/* Reads stay allowed everywhere. */
	if (try_open("outside/file", O_RDONLY) != 0 || try_open("root/etc/other", O_RDONLY) != 0)
		return 16;
	return 0;
}

static void test_apply_confines_writes(void **state)
{
	int ready[2], go[2], root_fd, status;
	char c;
	pid_t pid;

	if (sandbox_abi() < 0)
		skip();
	make_tree();
	assert_int_equal(sysfs_open_root(P("root"), &root_fd), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		_exit(child_checks(root_fd, ready[1], go[0]));
	}
	/* Only the child holds these ends: a child that failed early gives EOF, not a hang. */
	close(ready[1]);
	close(go[0]);
	/* The child's sandbox is in place: hot-add zram1 as the kernel would. */
	if (read(ready[0], &c, 1) == 1) {
		char link[PATH_MAX];

		fr_write("root/sys/devices/virtual/block/zram1/recompress", "");
		snprintf(link, sizeof(link), "%s/root/sys/block/zram1", fr_dir);
		assert_int_equal(symlink("../devices/virtual/block/zram1", link), 0);
	}
	/* EPIPE when the child is gone already: its exit status says why. */
	(void)signal(SIGPIPE, SIG_IGN);
	(void)!write(go[1], "g", 1);
	close(ready[0]);
	close(go[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* What the child wrote where it could, and did not where it could not. */
	assert_string_equal(fr_read("root/sys/devices/virtual/block/zram0/recompress"), "type=idle");
	assert_string_equal(fr_read("root/sys/devices/virtual/block/zram1/recompress"), "");
	assert_string_equal(fr_read("root/sys/devices/virtual/block/loop0/x"), "");
	assert_string_equal(fr_read("outside/file"), "keep\n");
	assert_string_equal(fr_read("state/state"), "");
	close(root_fd);
}

/* --dry-run: no zram directory, no host directory: nothing at all may be written. */
static void test_apply_nothing(void **state)
{
	struct sandbox_spec spec;
	char mdir[PATH_MAX];
	int root_fd, status;
	pid_t pid;

	if (sandbox_abi() < 0)
		skip();
	make_tree();
	assert_int_equal(sysfs_open_root(P("root"), &root_fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sandbox_spec_init(&spec, root_fd, false, NULL, NULL, mdir);
		if (sandbox_apply(&spec, NULL) != 0)
			_exit(1);
		if (try_attr(root_fd, "sys/block/zram0/recompress") != -EACCES)
			_exit(2);
		if (try_open("state/x", O_WRONLY | O_CREAT) != -EACCES)
			_exit(3);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(fr_read("root/sys/devices/virtual/block/zram0/recompress"), "");
	close(root_fd);
}

/* A directory that does not exist gets no rule and is counted; the rest still applies. */
static void test_absent_dir(void **state)
{
	struct sandbox_spec spec;
	struct sandbox_info info;
	char mdir[PATH_MAX], sdir[PATH_MAX];
	int fds[2], root_fd, status;
	pid_t pid;

	if (sandbox_abi() < 0)
		skip();
	fr_write("root/proc/x", "");
	assert_int_equal(sysfs_open_root(P("root"), &root_fd), 0);
	snprintf(sdir, sizeof(sdir), "%s/no-such-state", fr_dir);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sandbox_spec_init(&spec, root_fd, true, sdir, NULL, mdir);
		if (sandbox_apply(&spec, &info) != 0)
			_exit(1);
		if (write(fds[1], &info, sizeof(info)) != (ssize_t)sizeof(info))
			_exit(2);
		/* Created later by someone else: still not writable. */
		_exit(mkdir(sdir, 0755) == 0 ? 3 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(read(fds[0], &info, sizeof(info)), (ssize_t)sizeof(info));
	/* No sys/block (no zram device, no rule), no state directory. */
	assert_int_equal(info.n_rules, 0);
	assert_int_equal(info.n_devs, 0);
	assert_int_equal(info.n_absent, 1);
	close(fds[0]);
	close(fds[1]);
	close(root_fd);
}

static void test_bad_spec(void **state)
{
	struct sandbox_spec spec = { .n_dirs = 1, .dirs = { "relative/dir" } };

	if (sandbox_abi() < 0)
		skip();
	/* Refused before anything is restricted (this process goes on unrestricted). */
	assert_int_equal(sandbox_apply(&spec, NULL), -EINVAL);
	spec.n_dirs = SANDBOX_MAX_DIRS + 1;
	assert_int_equal(sandbox_apply(&spec, NULL), -EINVAL);
	assert_int_equal(try_open("probe", O_WRONLY | O_CREAT), 0);
}

static void test_unavailable(void **state)
{
	assert_true(sandbox_unavailable(-ENOSYS));
	assert_true(sandbox_unavailable(-EOPNOTSUPP));
	assert_true(sandbox_unavailable(-EPERM));
	assert_false(sandbox_unavailable(-EINVAL));
	assert_false(sandbox_unavailable(-EACCES));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handled_rights),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_spec_backing),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test_setup_teardown(test_apply_confines_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_spec, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
