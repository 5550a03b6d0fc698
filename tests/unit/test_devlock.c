// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * devlock.c on a temporary root: the directories and the file it makes (modes, owner), the
 * modes' conflicts (shared with shared, exclusive with either), the bounded wait, and what
 * it refuses: a root without run/, a symbolic link on the way, a directory others may write.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "devlock.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct root {
	char path[64];
	int fd;
};

static int setup(void **state)
{
	static struct root r;

	(void)snprintf(r.path, sizeof(r.path), "/tmp/test_devlock.XXXXXX");
	if (!mkdtemp(r.path))
		return -1;
	r.fd = open(r.path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r.fd < 0 || mkdirat(r.fd, "run", 0755) < 0)
		return -1;
	*state = &r;
	return 0;
}

static int teardown(void **state)
{
	struct root *r = *state;
	char cmd[128];

	close(r->fd);
	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->path);
	return system(cmd) == 0 ? 0 : -1;
}

static mode_t mode_of(const struct root *r, const char *rel)
{
	struct stat st;

	assert_int_equal(fstatat(r->fd, rel, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(st.st_uid, geteuid());
	return st.st_mode;
}

static void test_modes_and_files(void **state)
{
	struct root *r = *state;
	int a, b, c;

	assert_int_equal(devlock_try(r->fd, 3, false, &a), 0);
	assert_true(a >= 0);
	assert_int_equal(mode_of(r, "run/zram-recompd"), S_IFDIR | 0700);
	assert_int_equal(mode_of(r, "run/zram-recompd/lock"), S_IFDIR | 0700);
	assert_int_equal(mode_of(r, "run/zram-recompd/lock/zram3"), S_IFREG | 0600);
	/* shared with shared; exclusive refused while any is held (one per open file) */
	assert_int_equal(devlock_try(r->fd, 3, false, &b), 0);
	assert_int_equal(devlock_try(r->fd, 3, true, &c), -EAGAIN);
	assert_int_equal(c, -1);
	devlock_release(&a);
	assert_int_equal(a, -1);
	assert_int_equal(devlock_try(r->fd, 3, true, &c), -EAGAIN);
	devlock_release(&b);
	assert_int_equal(devlock_try(r->fd, 3, true, &c), 0);
	/* held exclusively: neither mode, and another device's lock is another file */
	assert_int_equal(devlock_try(r->fd, 3, false, &a), -EAGAIN);
	assert_int_equal(devlock_try(r->fd, 4, true, &a), 0);
	devlock_release(&a);
	assert_int_equal(devlock_try(r->fd, DEVLOCK_ADOPT, true, &a), 0);
	assert_int_equal(mode_of(r, "run/zram-recompd/lock/adopt"), S_IFREG | 0600);
	devlock_release(&a);
	devlock_release(&c);
}

static void test_wait_bounded(void **state)
{
	struct root *r = *state;
	uint64_t t0;
	int a, b;

	assert_int_equal(devlock_try(r->fd, 5, true, &a), 0);
	t0 = now_monotonic_ns();
	assert_int_equal(devlock_wait(r->fd, 5, false, 300, &b), -EAGAIN);
	assert_true(now_monotonic_ns() - t0 >= 300000000ULL);
	assert_true(now_monotonic_ns() - t0 < 2000000000ULL);
	devlock_release(&a);
	assert_int_equal(devlock_wait(r->fd, 5, false, 300, &b), 0);
	devlock_release(&b);
}

static void test_refused(void **state)
{
	struct root *r = *state;
	char other[128];
	int a, root2;

	/* a file planted in the place of the lock, a link to elsewhere: not followed */
	assert_int_equal(devlock_try(r->fd, 6, true, &a), 0);
	devlock_release(&a);
	assert_int_equal(symlinkat("/etc/passwd", r->fd, "run/zram-recompd/lock/zram7"), 0);
	assert_int_equal(devlock_try(r->fd, 7, true, &a), -ELOOP);
	assert_int_equal(a, -1);
	/* a lock directory others may write proves nothing */
	assert_int_equal(fchmodat(r->fd, "run/zram-recompd/lock", 0777, 0), 0);
	assert_int_equal(devlock_try(r->fd, 6, true, &a), -EPERM);
	assert_int_equal(fchmodat(r->fd, "run/zram-recompd/lock", 0700, 0), 0);
	/* lock as a symbolic link to another directory */
	assert_int_equal(renameat(r->fd, "run/zram-recompd/lock", r->fd, "run/elsewhere"), 0);
	assert_int_equal(symlinkat("../elsewhere", r->fd, "run/zram-recompd/lock"), 0);
	/* O_NOFOLLOW|O_DIRECTORY on a link: ENOTDIR */
	assert_int_equal(devlock_try(r->fd, 6, true, &a), -ENOTDIR);
	/* no run/ beneath the root: nothing made there */
	(void)snprintf(other, sizeof(other), "%s/run/elsewhere", r->path);
	root2 = open(other, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(root2 >= 0);
	assert_int_equal(devlock_try(root2, 6, true, &a), -ENOENT);
	assert_int_equal(faccessat(root2, "zram-recompd", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	close(root2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes_and_files),
		cmocka_unit_test(test_wait_bounded),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
