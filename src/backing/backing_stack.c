// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One zram device's backing stack (include/backing.h): the file, the loop device over it,
 * dm-crypt over that (or over backing-device), then backing_dev. Each step that fails
 * undoes the earlier ones in reverse order, so a failed setup leaves nothing attached.
 * Teardown takes the same stack down from the top, but never while zramN is initialized
 * with it as backing_dev: pages may be on it, and zram holds it open anyway.
 *
 * The stack is found again from the kernel, not from a record of ours: the dm device by
 * its name (zram-recompd-zramN, /sys/block/dm-X/dm/name), the loop device below it by
 * /sys/block/dm-X/slaves, or by the configured file (/sys/block/loopM/loop/backing_file).
 */
#include "backing.h"

#include "devlock.h"
#include "human.h"
#include "log.h"
#include "pass.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* How long a setup or teardown waits for an adopt in progress (--once waits as long). */
#define BACKING_ADOPT_WAIT_MS 10000u

/* What setup made so far, for the undo. */
struct stack {
	char dm[64], loop[32], target[CFG_PATH_MAX];
	uint64_t ino; /* of the file made */
	int loop_fd;
	bool file, crypt;
};

static void undo(struct stack *s, const char *name, const struct dev_config *dc)
{
	char why[BACKING_WHY_MAX];

	if (s->crypt && dmcrypt_close(s->dm, why) < 0)
		log_warning("%s: undo: %s", name, why);
	if (s->loop_fd >= 0) {
		(void)loopdev_detach(s->loop);
		close(s->loop_fd);
		s->loop_fd = -1;
	}
	if (s->file && backing_file_remove(dc->backing_file, s->ino, why) < 0)
		log_warning("%s: undo: %s", name, why);
}

/* The file and the loop device over it: s->target is the loop device. */
static int make_file_loop(int root_fd, const char *name, const struct dev_config *dc,
			  struct stack *s)
{
	char why[BACKING_WHY_MAX], sz[32], fr[32], dir[CFG_PATH_MAX];
	struct backing_size bs;
	struct stat st;
	bool dio = false;
	int fd, r;

	if (loopdev_find(root_fd, dc->backing_file, s->loop) == 0) {
		log_error("%s: backing-file %s is still attached to /dev/%s: run "
			  "'zram-recompd backing teardown %s' first",
			  name, dc->backing_file, s->loop, name);
		return -EBUSY;
	}
	r = str_printf(dir, sizeof(dir), "%s", dc->backing_file);
	if (r == 0 && strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if (r == 0)
		r = backing_mount_pending(root_fd, dir[0] ? dir : "/", why);
	if (r == 0)
		r = backing_file_create(dc->backing_file, dc, backing_zram_major(root_fd), &fd, &bs,
					why);
	if (r < 0) {
		log_error("%s: backing-file %s: %s", name, dc->backing_file, why);
		return r;
	}
	s->file = true;
	s->ino = fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0;
	log_info("%s: backing-file %s: %s allocated, %s left free", name, dc->backing_file,
		 human_bytes(sz, sizeof(sz), bs.size), human_bytes(fr, sizeof(fr), bs.free_after));
	r = loopdev_attach(fd, dc->backing_file, s->loop, &s->loop_fd, &dio, why);
	close(fd);
	if (r < 0) {
		log_error("%s: backing-file %s: %s", name, dc->backing_file, why);
		return r;
	}
	if (!dio)
		log_notice("%s: /dev/%s: no direct I/O on the filesystem of %s: written-back "
			   "pages pass through the page cache",
			   name, s->loop, dc->backing_file);
	return str_printf(s->target, sizeof(s->target), "/dev/%s", s->loop);
}

/* compressed_writeback (7.0+) when configured, then backing_dev = s->target. */
static int write_backing(int root_fd, struct zram_dev *d, const struct dev_config *dc,
			 const struct stack *s)
{
	struct pass_ctx ctx;
	char cmd[CFG_PATH_MAX + 8];
	int r;

	pass_ctx_init(&ctx, root_fd);
	if (dc->compressed_writeback &&
	    zram_build_compressed_writeback(d, true, cmd, sizeof(cmd)) == 0) {
		r = pass_write(&ctx, d, "compressed_writeback", cmd, NULL, NULL);
		if (r < 0)
			return pass_log_setup_error(&ctx, d, "compressed_writeback", cmd, r);
	}
	r = zram_build_backing_dev(d, s->target, cmd, sizeof(cmd));
	if (r < 0) {
		log_error("%s: backing_dev: invalid path '%s': %s", d->name, s->target,
			  strerror(-r));
		return r;
	}
	r = pass_write(&ctx, d, "backing_dev", cmd, NULL, NULL);
	if (r < 0)
		return pass_log_setup_error(&ctx, d, "backing_dev", cmd, r);
	return str_printf(d->backing_dev, sizeof(d->backing_dev), "%s", s->target);
}

/* Why d gets no setup now (said once, here), or NULL. */
static const char *not_now(int root_fd, const struct zram_dev *d, const char *dm)
{
	char x[32];

	if (d->initialized)
		return "initialized: a backing device is set up only before disksize; "
		       "nothing done";
	if (!d->caps.writeback)
		return "kernel built without CONFIG_ZRAM_WRITEBACK: no backing device; "
		       "nothing done";
	if (d->backing_dev[0])
		return "already has a backing device; nothing set up";
	if (dmcrypt_find(root_fd, dm, x) == 0)
		return "";
	return NULL;
}

/* zramN's state read again under the lock: another setup may have run since the probe. */
static void refresh(int root_fd, struct zram_dev *d)
{
	char path[64], buf[sizeof(d->backing_dev) + 8];
	size_t len;
	bool init;

	if (zram_read_initstate(root_fd, d->id, &init) == 0)
		d->initialized = init;
	(void)str_printf(path, sizeof(path), "sys/block/zram%u/backing_dev", d->id);
	if (sysfs_read(root_fd, path, buf, sizeof(buf), &len) < 0)
		return;
	buf[strcspn(buf, "\n")] = '\0';
	if (strcmp(buf, "none") != 0)
		(void)str_printf(d->backing_dev, sizeof(d->backing_dev), "%s", buf);
}

/*
 * The lock of setups and teardowns (backing_lock()): the backing unit, the setup tools'
 * hooks of other devices and a teardown may run at once, and each one's undo or teardown
 * removes by the configured names. Then the lock "adopt" shared (devlock.h), as --once
 * holds it: an adopt that reset the device keeps its backing device for the setup after,
 * which a setup or teardown between the two would replace or take down. Says so when it
 * waits. Returns 0 (locks[] to release_locks()) or -errno (logged).
 */
static int take_locks(int root_fd, const char *name, int locks[2])
{
	char why[BACKING_WHY_MAX];
	int r;

	locks[0] = backing_lock(root_fd, false, why);
	if (locks[0] == -EWOULDBLOCK) {
		log_info("%s: waiting for another backing setup or teardown (/" BACKING_LOCK_DIR
			 "/" BACKING_LOCK_FILE ")",
			 name);
		locks[0] = backing_lock(root_fd, true, why);
	}
	if (locks[0] < 0) {
		log_error("%s: backing: %s", name, why);
		return locks[0];
	}
	locks[1] = -1;
	r = devlock_wait(root_fd, DEVLOCK_ADOPT, false, BACKING_ADOPT_WAIT_MS, &locks[1]);
	if (r == -EAGAIN) {
		log_error("%s: /" DEVLOCK_DIR "/adopt: held for %u s: an adopt is running; "
			  "nothing done",
			  name, BACKING_ADOPT_WAIT_MS / 1000);
		close(locks[0]);
		return -EBUSY;
	}
	if (r < 0)
		log_debug("%s: /" DEVLOCK_DIR "/adopt: %s: not locked against adopt", name,
			  strerror(-r));
	return 0;
}

static void release_locks(int locks[2])
{
	devlock_release(&locks[1]);
	close(locks[0]);
}

static int setup_locked(int root_fd, struct zram_dev *d, const struct dev_config *dc)
{
	struct stack s = {.loop_fd = -1};
	char why[BACKING_WHY_MAX];
	const char *no;
	int r;

	refresh(root_fd, d);
	(void)backing_dm_name(d->id, s.dm, sizeof(s.dm));
	no = not_now(root_fd, d, s.dm);
	if (no && !*no) {
		log_error("%s: dm device %s exists (left by an earlier setup): run 'zram-recompd "
			  "backing teardown %s' first",
			  d->name, s.dm, d->name);
		return -EEXIST;
	}
	if (no) {
		log_info("%s: %s%s%s", d->name, no, d->backing_dev[0] ? ": " : "", d->backing_dev);
		return 0;
	}
	r = dc->backing_file[0] ? make_file_loop(root_fd, d->name, dc, &s)
				: str_printf(s.target, sizeof(s.target), "%s", dc->backing_device);
	if (r == 0 && config_backing_encrypted(dc)) {
		r = dmcrypt_open(s.target, s.dm, why);
		if (r < 0)
			log_error("%s: %s", d->name, why);
		s.crypt = r == 0;
		if (r == 0)
			r = str_printf(s.target, sizeof(s.target), "/dev/mapper/%s", s.dm);
	}
	if (r == 0)
		r = write_backing(root_fd, d, dc, &s);
	if (r < 0) {
		undo(&s, d->name, dc);
		return r;
	}
	/* zram (or dm-crypt) holds the loop device now: autoclear detaches it after them */
	if (s.loop_fd >= 0)
		close(s.loop_fd);
	if (s.crypt)
		log_notice("%s: backing device %s: dm-crypt " BACKING_CIPHER " over %s%s", d->name,
			   s.target, dc->backing_file[0] ? dc->backing_file : dc->backing_device,
			   dc->backing_file[0] ? "" : " (its former content is gone)");
	else
		log_warning("%s: backing device %s over %s is not encrypted: swapped memory is "
			    "written to it in clear text and stays there across reboots "
			    "(backing-encryption = yes)",
			    d->name, s.target, dc->backing_file);
	return 0;
}

int backing_setup_dev(int root_fd, struct zram_dev *d, const struct dev_config *dc)
{
	int locks[2], r;

	if (!config_backing_by_setup(dc))
		return 0;
	r = take_locks(root_fd, d->name, locks);
	if (r < 0)
		return r;
	r = setup_locked(root_fd, d, dc);
	release_locks(locks);
	return r;
}

/* sys/block/NAME/dev as a dev_t. */
static int devnum_of(int root_fd, const char *name, dev_t *ret)
{
	char path[96], buf[32];
	unsigned ma, mi;
	size_t len;
	int r;

	(void)str_printf(path, sizeof(path), "sys/block/%s/dev", name);
	r = sysfs_read(root_fd, path, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	if (sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -EINVAL;
	*ret = makedev(ma, mi);
	return 0;
}

/* The loop device under dm-X (its slaves), or -ENOENT. */
static int loop_under(int root_fd, const char *dm, char loop[32])
{
	char path[64], names[4][64];
	int n;

	(void)str_printf(path, sizeof(path), "sys/block/%s/slaves", dm);
	n = sysfs_list_dir(root_fd, path, names, 4);
	for (int i = 0; i < n; i++)
		if (strncmp(names[i], "loop", 4) == 0)
			return str_printf(loop, 32, "%s", names[i]);
	return -ENOENT;
}

/* Whether loop is the loop device on file (our backing file), by its backing_file. */
static bool loop_is_ours(int root_fd, const char *file, const char *loop)
{
	char found[32];

	return file[0] && loopdev_find(root_fd, file, found) == 0 && strcmp(found, loop) == 0;
}

/*
 * Whether zramN still uses top (the top of our stack) as backing_dev: 1 initialized with
 * it, 0 no, -1 not initialized but holding it (setup done, disksize never written).
 */
static int zram_holds(int root_fd, unsigned id, const char *top)
{
	char path[64], buf[CFG_PATH_MAX + 8];
	struct stat st;
	dev_t want = 0;
	bool init = false, known, same;
	size_t len;

	(void)str_printf(path, sizeof(path), "sys/block/zram%u/backing_dev", id);
	if (!top[0] || sysfs_read(root_fd, path, buf, sizeof(buf), &len) < 0)
		return 0;
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strcmp(buf, "none") == 0 || buf[0] != '/')
		return 0;
	/* what the kernel shows is the resolved path it opened (/dev/dm-0 for a link) */
	known = devnum_of(root_fd, top, &want) == 0 && fstatat(root_fd, buf + 1, &st, 0) == 0;
	same = known && S_ISBLK(st.st_mode) && st.st_rdev == want;
	if (known && !same)
		return 0;
	(void)zram_read_initstate(root_fd, id, &init);
	/* unknown: left alone when initialized, not reset otherwise */
	return init ? 1 : same ? -1 : 0;
}

/* Release ours from zramN that was never initialized: its reset frees backing_dev. */
static int release_uninit(int root_fd, unsigned id)
{
	char path[48];

	(void)str_printf(path, sizeof(path), "sys/block/zram%u/reset", id);
	return sysfs_write_adopt(root_fd, path, "1");
}

static int teardown_locked(int root_fd, unsigned id, const struct dev_config *dc)
{
	char dm[64], dmdev[32] = "", loop[32] = "", why[BACKING_WHY_MAX];
	const char *file = dc ? dc->backing_file : "";
	int held, r = 0, rr;

	(void)backing_dm_name(id, dm, sizeof(dm));
	if (dmcrypt_find(root_fd, dm, dmdev) < 0)
		dmdev[0] = '\0';
	if (dmdev[0] ? loop_under(root_fd, dmdev, loop) < 0
		     : !file[0] || loopdev_find(root_fd, file, loop) < 0)
		loop[0] = '\0';
	/* a loop device on a file we did not make is the admin's, whatever its path */
	if (!dmdev[0] && loop[0] && backing_file_ours(file, why) < 0) {
		log_notice("zram%u: /dev/%s is on %s, a file zram-recompd did not make: left "
			   "attached",
			   id, loop, file);
		loop[0] = '\0';
	}
	held = zram_holds(root_fd, id, dmdev[0] ? dmdev : loop);
	if (held > 0) {
		log_notice("zram%u: initialized with its backing device on /dev/%s: left in place "
			   "(pages may be on it); swapoff and reset zram%u, then tear down",
			   id, dmdev[0] ? dmdev : loop, id);
		return 0;
	}
	/* the loop device is ours only on the configured file; one the admin named as
	 * backing-device (dm-crypt over it) stays attached */
	if (dmdev[0] && loop[0] && !loop_is_ours(root_fd, file, loop))
		loop[0] = '\0';
	if (held < 0 && (rr = release_uninit(root_fd, id)) < 0)
		log_warning("zram%u: reset (to release its backing device): %s", id, strerror(-rr));
	if (dmdev[0] && (rr = dmcrypt_close(dm, why)) < 0 && rr != -ENOENT) {
		log_error("zram%u: %s", id, why);
		r = rr;
	}
	/* autoclear detached the loop device when dm-crypt let go of it; this is for one
	 * without dm-crypt, or an older kernel that defers it */
	if (loop[0] && r == 0 && (rr = loopdev_detach(loop)) < 0) {
		log_error("zram%u: /dev/%s: cannot detach: %s", id, loop, strerror(-rr));
		r = rr;
	}
	if (file[0] && r == 0) {
		rr = backing_file_remove(file, 0, why);
		if (rr == 0)
			log_info("zram%u: backing-file %s removed", id, file);
		else if (rr == -EPERM)
			log_notice("zram%u: backing-file %s", id, why);
		else if (rr != -ENOENT)
			log_error("zram%u: backing-file %s: %s", id, file, why);
		if (rr != -ENOENT && rr != -EPERM)
			r = rr;
	}
	if (r == 0 && (dmdev[0] || loop[0]))
		log_info("zram%u: backing stack taken down (%s%s%s)", id, dmdev[0] ? dm : "",
			 dmdev[0] && loop[0] ? ", /dev/"
			 : loop[0]	     ? "/dev/"
					     : "",
			 loop);
	return r;
}

int backing_teardown_dev(int root_fd, unsigned id, const struct dev_config *dc)
{
	char name[16];
	int locks[2], r;

	(void)str_printf(name, sizeof(name), "zram%u", id);
	r = take_locks(root_fd, name, locks);
	if (r < 0)
		return r;
	r = teardown_locked(root_fd, id, dc);
	release_locks(locks);
	return r;
}
