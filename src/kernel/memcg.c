// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory cgroups' figures of memcg.h. */
#include "memcg.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define PATH_LEN 512

struct walk {
	void (*visit)(void *ctx, const struct memcg_info *c);
	void *ctx;
	unsigned count;
	char path[PATH_LEN];
};

/* A cgroup file's number; "max" is UINT64_MAX. */
static int read_value(int dir_fd, const char *name, uint64_t *ret)
{
	char buf[32];
	size_t len;
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = read_full(fd, buf, sizeof(buf) - 1, &len);
	close(fd);
	if (r < 0)
		return r;
	buf[len] = '\0';
	if (strcmp(buf, "max\n") == 0 || strcmp(buf, "max") == 0) {
		*ret = UINT64_MAX;
		return 0;
	}
	return parse_u64_text(buf, len, ret);
}

static void visit_one(struct walk *w, int fd)
{
	struct memcg_info c = {.path = w->path};

	if (read_value(fd, "memory.max", &c.max) < 0 || c.max == UINT64_MAX ||
	    read_value(fd, "memory.current", &c.current) < 0)
		return;
	c.swap_known = read_value(fd, "memory.swap.current", &c.swap) == 0;
	w->visit(w->ctx, &c);
}

static int walk_dir(struct walk *w, int fd, size_t plen, unsigned depth)
{
	DIR *d;
	struct dirent *e;
	int r = 0, dfd = dup(fd);

	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (r == 0 && (errno = 0, e = readdir(d))) {
		size_t n = strlen(e->d_name);
		int sub;

		/* cgroupfs fills d_type; a cgroup is a directory, every file is not */
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0)
			continue;
		if (depth >= MEMCG_DEPTH_MAX || ++w->count > MEMCG_COUNT_MAX ||
		    plen + n + 2 > sizeof(w->path)) {
			r = -E2BIG;
			break;
		}
		sub = openat(fd, e->d_name, DIR_FLAGS);
		if (sub < 0) {
			r = errno == ENOENT ? 0 : -errno; /* removed meanwhile */
			continue;
		}
		(void)snprintf(w->path + plen, sizeof(w->path) - plen, "%s%s", plen ? "/" : "",
			       e->d_name);
		visit_one(w, sub);
		r = walk_dir(w, sub, plen + n + (plen ? 1 : 0), depth + 1);
		w->path[plen] = '\0';
		close(sub);
	}
	if (r == 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

int memcg_walk(int root_fd, void (*visit)(void *ctx, const struct memcg_info *c), void *ctx)
{
	static const char *const comps[] = {"sys", "fs", "cgroup"};
	struct walk w = {.visit = visit, .ctx = ctx};
	int fd = root_fd, r;

	for (unsigned i = 0; i < 3; i++) {
		int next = openat(fd, comps[i], DIR_FLAGS);

		r = -errno;
		if (fd != root_fd)
			close(fd);
		if (next < 0)
			return r;
		fd = next;
	}
	r = walk_dir(&w, fd, 0, 0);
	close(fd);
	return r;
}
