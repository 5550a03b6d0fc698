// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A mount still to come over the backing file's directory (include/backing.h). The backing
 * unit runs before local-fs.target (after it would close a cycle through swap.target), so
 * a separate /var from /etc/fstab may not be mounted yet when it makes
 * /var/lib/zram-recompd/zram0.swap: the file would land on the root filesystem, hidden
 * once /var is mounted over it. Such a setup is refused; RequiresMountsFor= in a drop-in
 * orders the unit after that mount.
 */
#include "backing.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The octal escapes of fstab and mountinfo (\040 for a space) decoded in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* Trailing slashes off a path other than "/". */
static void trim_slashes(char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
}

/* Root-relative file relpath opened for reading lines, or NULL (errno). */
static FILE *open_lines(int root_fd, const char *relpath)
{
	int fd = openat(root_fd, relpath, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "re");
	if (!f)
		close(fd);
	return f;
}

/* Whether mp is a mount point in root's proc/self/mountinfo: 1, 0, or -errno. */
static int mounted(int root_fd, const char *mp)
{
	FILE *f = open_lines(root_fd, "proc/self/mountinfo");
	char *line = NULL, *save, *tok;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return -errno;
	while (!found && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ...: the fifth field */
		tok = strtok_r(line, " \t\n", &save);
		for (int i = 0; tok && i < 4; i++)
			tok = strtok_r(NULL, " \t\n", &save);
		if (!tok)
			continue;
		unescape(tok);
		trim_slashes(tok);
		found = strcmp(tok, mp) == 0;
	}
	free(line);
	fclose(f);
	return found;
}

/* Whether comma-separated opts holds the option want. */
static bool has_opt(const char *opts, const char *want)
{
	size_t n = strlen(want);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, want, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Whether mount point mp is dir or one of its parents. */
static bool covers(const char *mp, const char *dir)
{
	size_t n = strlen(mp);

	return strncmp(dir, mp, n) == 0 && (dir[n] == '/' || dir[n] == '\0');
}

/* The mount point of an fstab line that may cover dir and is waited for at boot, or NULL. */
static char *fstab_mp(char *line, const char *dir)
{
	char *save, *spec, *mp, *type, *opts;

	spec = strtok_r(line, " \t\n", &save);
	mp = strtok_r(NULL, " \t\n", &save);
	type = strtok_r(NULL, " \t\n", &save);
	opts = strtok_r(NULL, " \t\n", &save);
	if (!spec || spec[0] == '#' || !mp || mp[0] != '/' || !type || strcmp(type, "swap") == 0)
		return NULL;
	if (opts && has_opt(opts, "noauto"))
		return NULL;
	unescape(mp);
	trim_slashes(mp);
	return strcmp(mp, "/") != 0 && covers(mp, dir) ? mp : NULL;
}

int backing_mount_pending(int root_fd, const char *dir, char why[BACKING_WHY_MAX])
{
	FILE *f = open_lines(root_fd, "etc/fstab");
	char *line = NULL, *mp;
	size_t cap = 0;
	int r = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && getline(&line, &cap, f) > 0) {
		mp = fstab_mp(line, dir);
		if (!mp)
			continue;
		r = mounted(root_fd, mp);
		if (r < 0) {
			(void)snprintf(why, BACKING_WHY_MAX, "/proc/self/mountinfo: %s",
				       strerror(-r));
		} else if (r == 0) {
			(void)snprintf(why, BACKING_WHY_MAX,
				       "%s is in /etc/fstab but not mounted yet: the file would "
				       "land under it; add RequiresMountsFor=%s to "
				       "zram-recompd-backing.service in a drop-in",
				       mp, mp);
			r = -EAGAIN;
		} else {
			r = 0;
		}
	}
	free(line);
	fclose(f);
	return r;
}
