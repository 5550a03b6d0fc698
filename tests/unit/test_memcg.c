// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memcg.c on a made-up sys/fs/cgroup: every cgroup with a numeric memory.max is visited with
 * its path and figures, at any depth; "max", no memory.max, files and links are not; no
 * memory.swap.current is "unknown"; no sys/fs/cgroup is -ENOENT, and a link in its place is
 * not followed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "memcg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static int root_fd;

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	(void)snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mk(const char *rel)
{
	char p[256];

	(void)snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state)
{
	(void)state;
	(void)snprintf(dir, sizeof(dir), "/tmp/test_memcg.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return root_fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	close(root_fd);
	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct seen {
	char lines[8][160];
	unsigned n;
};

static void visit(void *ctx, const struct memcg_info *c)
{
	struct seen *s = ctx;

	assert_true(s->n < 8);
	(void)snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %llu %llu %s", c->path,
		       (unsigned long long)c->max, (unsigned long long)c->current,
		       c->swap_known ? (char[24]){0} : "?");
	if (c->swap_known)
		(void)snprintf(s->lines[s->n - 1] + strlen(s->lines[s->n - 1]), 24, "%llu",
			       (unsigned long long)c->swap);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void test_walk(void **state)
{
	struct seen s = {0};

	(void)state;
	assert_int_equal(memcg_walk(root_fd, visit, &s), -ENOENT);
	mk("sys");
	mk("sys/fs");
	assert_int_equal(symlinkat("/sys/fs/cgroup", root_fd, "sys/fs/cgroup"), 0);
	/* O_NOFOLLOW|O_DIRECTORY on a link: ENOTDIR */
	assert_int_equal(memcg_walk(root_fd, visit, &s), -ENOTDIR);
	assert_int_equal(unlinkat(root_fd, "sys/fs/cgroup", 0), 0);
	mk("sys/fs/cgroup");
	put("sys/fs/cgroup/memory.stat", "anon 0\n"); /* the root: no limit */
	mk("sys/fs/cgroup/system.slice");
	put("sys/fs/cgroup/system.slice/memory.max", "max\n");
	put("sys/fs/cgroup/system.slice/memory.current", "5000\n");
	mk("sys/fs/cgroup/system.slice/db.service");
	put("sys/fs/cgroup/system.slice/db.service/memory.max", "104857600\n");
	put("sys/fs/cgroup/system.slice/db.service/memory.current", "52428800\n");
	put("sys/fs/cgroup/system.slice/db.service/memory.swap.current", "94371840\n");
	mk("sys/fs/cgroup/system.slice/db.service/inner");
	put("sys/fs/cgroup/system.slice/db.service/inner/memory.max", "4096\n");
	put("sys/fs/cgroup/system.slice/db.service/inner/memory.current", "0\n");
	mk("sys/fs/cgroup/nomem");
	mk("sys/fs/cgroup/user.slice");
	put("sys/fs/cgroup/user.slice/memory.max", "1000\n");
	put("sys/fs/cgroup/user.slice/memory.current", "bad\n");
	/* a link to a directory of limits elsewhere is not a cgroup */
	mk("elsewhere");
	put("elsewhere/memory.max", "1\n");
	put("elsewhere/memory.current", "1\n");
	assert_int_equal(symlinkat("../../../elsewhere", root_fd, "sys/fs/cgroup/link"), 0);
	assert_int_equal(memcg_walk(root_fd, visit, &s), 0);
	qsort(s.lines, s.n, sizeof(s.lines[0]), cmp);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.lines[0], "system.slice/db.service 104857600 52428800 94371840");
	assert_string_equal(s.lines[1], "system.slice/db.service/inner 4096 0 ?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
