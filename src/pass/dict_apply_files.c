// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dictionary files of dict_apply.h: found in the credentials directory or the
 * memory-backed directory, checked before their path goes to the kernel; the prediction
 * beside them; the record of what was applied. Every open resolves no symbolic link
 * (openat2 RESOLVE_NO_SYMLINKS) and every file is opened O_CLOEXEC.
 */
#include "dict_apply.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open2(int dir_fd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOCTTY),
		.resolve = resolve | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	do
		fd = (int)syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));
	while (fd < 0 && (errno == EINTR || errno == EAGAIN));
	return fd < 0 ? -errno : fd;
}

const char *dict_dir_path(void)
{
	const char *e = secure_getenv("ZRAM_RECOMPD_DICT_DIR");

	return e && *e ? e : DICT_DIR_DEFAULT;
}

/* mkdir -p dir, new components mode 0700; existing ones are not touched (no mkdir call). */
static int mkdir_p(const char *dir)
{
	char buf[ZRAM_DICT_PATH_MAX];
	size_t len = strlen(dir);
	struct stat st;

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, len + 1);
	for (char *s = buf + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;

		*s = '\0';
		if (lstat(buf, &st) < 0 &&
		    (errno != ENOENT || (mkdir(buf, 0700) < 0 && errno != EEXIST)))
			return -errno;
		if (!c)
			return 0;
		*s = c;
	}
}

int dict_dir_open(const char *dir, bool create, char *why, size_t why_size)
{
	struct statfs sf;
	struct stat st;
	int fd, r;

	why[0] = '\0';
	if (!zram_dict_path_valid(dir)) {
		(void)snprintf(why, why_size, "not a plain absolute path");
		return -EINVAL;
	}
	fd = open2(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd == -ENOENT && create) {
		r = mkdir_p(dir);
		if (r < 0) {
			(void)snprintf(why, why_size, "cannot create it: %s", strerror(-r));
			return r;
		}
		fd = open2(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
	}
	if (fd < 0) {
		(void)snprintf(why, why_size, "%s",
			       fd == -ELOOP ? "a symbolic link on the way" : strerror(-fd));
		return fd;
	}
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0) {
		r = -errno;
		(void)snprintf(why, why_size, "%s", strerror(-r));
	} else {
		r = dict_check_dir(&st, geteuid(), why, why_size);
	}
	if (r == 0 && !dict_fs_in_memory((long)sf.f_type)) {
		(void)snprintf(why, why_size,
			       "not on tmpfs or ramfs: a dictionary never goes to "
			       "persistent storage in clear text");
		r = -EXDEV;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* dir_fd/name as a file of ours (dict_check_file() but any size up to max). */
static int open_ours(int dir_fd, const char *name, struct stat *st, char *why, size_t why_size)
{
	int fd = open2(dir_fd, name, O_RDONLY | O_NONBLOCK, RESOLVE_BENEATH);

	if (fd < 0) {
		(void)snprintf(why, why_size, "%s",
			       fd == -ELOOP ? "a symbolic link" : strerror(-fd));
		return fd;
	}
	if (fstat(fd, st) < 0) {
		int r = -errno;

		(void)snprintf(why, why_size, "%s", strerror(-r));
		close(fd);
		return r;
	}
	return fd;
}

/* A small text file of ours (.pred, .applied) into buf, NUL-terminated. */
static int read_line_file(int dir_fd, const char *name, char *buf, size_t size)
{
	struct stat st;
	char why[128];
	size_t len = 0;
	int fd = open_ours(dir_fd, name, &st, why, sizeof(why)), r;

	if (fd < 0)
		return fd;
	r = S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077) &&
			    st.st_size < (off_t)size
		    ? 0
		    : -EPERM;
	if (r == 0)
		r = read_full(fd, buf, size - 1, &len);
	close(fd);
	buf[r == 0 ? len : 0] = '\0';
	return r;
}

/* The dictionary file name in dir_fd: checked, header read. */
static int check_dict_file(int dir_fd, const char *name, struct dict_found *ret, char *why,
			   size_t why_size)
{
	uint8_t h[8];
	struct stat st;
	size_t got = 0;
	int fd = open_ours(dir_fd, name, &st, why, why_size), r;

	if (fd < 0)
		return fd;
	r = dict_check_file(&st, geteuid(), why, why_size);
	if (r == 0) {
		r = read_full(fd, h, sizeof(h), &got);
		if (r < 0)
			(void)snprintf(why, why_size, "%s", strerror(-r));
	}
	if (r == 0 && dict_check_header(h, got, &ret->id) < 0) {
		(void)snprintf(why, why_size, "not a zstd dictionary (no magic 0x%08X)",
			       DICT_ZSTD_MAGIC);
		r = -EINVAL;
	}
	ret->size = (uint64_t)st.st_size;
	close(fd);
	return r;
}

/* Device dev's dictionary in dir: 0, -ENOENT (no directory or no file), -errno + why. */
static int find_in(const char *dir, const char *dev, bool cred, struct dict_found *ret, char *why,
		   size_t why_size)
{
	char name[64], line[DICT_LINE_MAX], w[192];
	int dfd, r;

	dfd = dict_dir_open(dir, false, w, sizeof(w));
	if (dfd == -ENOENT)
		return -ENOENT;
	if (dfd < 0) {
		(void)snprintf(why, why_size, "%s: %s", dir, w);
		return dfd;
	}
	(void)snprintf(name, sizeof(name), "%s%s", dev, DICT_EXT);
	r = check_dict_file(dfd, name, ret, w, sizeof(w));
	if (r == 0 && str_printf(ret->path, sizeof(ret->path), "%s/%s", dir, name) < 0)
		r = -ENAMETOOLONG;
	if (r == 0 && !zram_dict_path_valid(ret->path)) {
		(void)snprintf(w, sizeof(w), "not a plain absolute path");
		r = -EINVAL;
	}
	if (r < 0 && r != -ENOENT)
		(void)snprintf(why, why_size, "%s/%s: %s", dir, name, w);
	(void)snprintf(name, sizeof(name), "%s%s", dev, DICT_PRED_EXT);
	if (r == 0 && read_line_file(dfd, name, line, sizeof(line)) == 0 &&
	    dict_pred_parse(line, &ret->pred) < 0) {
		(void)snprintf(why, why_size, "%s/%s: not a prediction advise wrote", dir, name);
		r = -EINVAL;
	}
	ret->credential = cred;
	close(dfd);
	return r;
}

/* The directory of zram-recompd-dict@DEV.service's credentials (systemd: /run/credentials/UNIT). */
static int unit_creds_dir(const char *dev, char *buf, size_t size)
{
	const char *root = secure_getenv("ZRAM_RECOMPD_CREDENTIALS_ROOT");

	return str_printf(buf, size, "%s/zram-recompd-dict@%s.service",
			  root && *root ? root : "/run/credentials", dev);
}

int dict_find(const char *dev, struct dict_found *ret, char *why, size_t why_size)
{
	const char *cred = secure_getenv("CREDENTIALS_DIRECTORY");
	char unit_dir[ZRAM_DICT_PATH_MAX];
	int r;

	memset(ret, 0, sizeof(*ret));
	why[0] = '\0';
	if (!zram_name_valid(dev))
		return -EINVAL;
	/* the newest first: one advise --dict-install put in memory during this boot */
	r = find_in(dict_dir_path(), dev, false, ret, why, why_size);
	/* systemd's credentials directory of this unit (LoadCredentialEncrypted= on it) */
	if (r == -ENOENT && cred && *cred) {
		memset(ret, 0, sizeof(*ret));
		r = find_in(cred, dev, true, ret, why, why_size);
	}
	/* ... or of zram-recompd-dict@DEV.service, which decrypted the saved one at boot */
	if (r == -ENOENT && unit_creds_dir(dev, unit_dir, sizeof(unit_dir)) == 0) {
		memset(ret, 0, sizeof(*ret));
		r = find_in(unit_dir, dev, true, ret, why, why_size);
	}
	return r;
}

int dict_store(int dir_fd, const char *name, const void *buf, size_t len)
{
	char tmp[96];
	int fd, r;

	if (str_printf(tmp, sizeof(tmp), ".%s.tmp", name) < 0)
		return -ENAMETOOLONG;
	(void)unlinkat(dir_fd, tmp, 0); /* a stale one from an interrupted run */
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
		    0600);
	if (fd < 0)
		return -errno;
	r = write_full(fd, buf, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dir_fd, tmp, 0);
	return r;
}

int dict_record_write(const char *dev, const struct dict_found *f, unsigned mask)
{
	char name[64], line[DICT_LINE_MAX], pred[DICT_LINE_MAX] = "", why[192];
	size_t off;
	int dfd, r;

	if (!zram_name_valid(dev))
		return -EINVAL;
	if (f->pred.known && dict_pred_format(&f->pred, pred, sizeof(pred)) < 0)
		pred[0] = '\0';
	r = str_printf(line, sizeof(line), "applied=");
	for (unsigned p = 0, n = 0; r == 0 && p < DICT_NPRIO; p++) {
		off = strlen(line);
		if (mask & (1u << p))
			r = str_printf(line + off, sizeof(line) - off, "%s%u", n++ ? "," : "", p);
	}
	off = strlen(line);
	if (r == 0)
		r = str_printf(line + off, sizeof(line) - off,
			       " file=%s bytes=%llu id=%u source=%s%s%s", f->path,
			       (unsigned long long)f->size, f->id,
			       f->credential ? "credential" : "run", pred[0] ? " " : "",
			       pred[0] ? pred : "\n");
	if (r < 0)
		return r;
	dfd = dict_dir_open(dict_dir_path(), true, why, sizeof(why));
	if (dfd < 0)
		return dfd;
	(void)snprintf(name, sizeof(name), "%s%s", dev, DICT_APPLIED_EXT);
	r = dict_store(dfd, name, line, strlen(line));
	close(dfd);
	return r;
}

int dict_record_remove(const char *dev)
{
	char name[64], why[192];
	int dfd, r = 0;

	if (!zram_name_valid(dev))
		return -EINVAL;
	dfd = dict_dir_open(dict_dir_path(), false, why, sizeof(why));
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	(void)snprintf(name, sizeof(name), "%s%s", dev, DICT_APPLIED_EXT);
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		r = -errno;
	close(dfd);
	return r;
}

int dict_record_read(const char *dev, char *buf, size_t size)
{
	char name[64], why[192];
	int dfd, r;

	if (!zram_name_valid(dev) || size < 2)
		return -EINVAL;
	buf[0] = '\0';
	dfd = dict_dir_open(dict_dir_path(), false, why, sizeof(why));
	if (dfd < 0)
		return dfd;
	(void)snprintf(name, sizeof(name), "%s%s", dev, DICT_APPLIED_EXT);
	r = read_line_file(dfd, name, buf, size);
	close(dfd);
	return r;
}
