// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `zram-recompd backing setup|teardown [zramN...]`, the --once hook's setup and the
 * `status` line of a backing device (include/backing.h). These run as root outside any
 * sandbox: zram-recompd-backing.service, the setup tools' drop-ins, or by
 * hand. Loop devices and dm-crypt act on this machine's /dev, so a --sysroot other than /
 * is refused (a fake tree cannot hold them).
 *
 * Exit status (zram-recompd(8)): 0 done or nothing to do, 1 a device failed, 2 usage or
 * configuration, 3 a named device does not exist, 6 the free-space guard refused.
 */
#include "backing.h"
#include "dict_apply.h"

#include "host.h"
#include "human.h"
#include "log.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

enum { B_OK = 0, B_FAIL = 1, B_USAGE = 2, B_NO_DEVICE = 3 };

/* The worse of two exit statuses: a failure outranks the guard's refusal. */
static int worse(int ret, int r)
{
	int code = r == -ENOSPC ? BACKING_EXIT_GUARD : r < 0 ? B_FAIL : B_OK;

	if (ret == B_FAIL || code == B_OK)
		return ret;
	return code == B_FAIL || ret == B_OK ? code : ret;
}

static void usage(FILE *f)
{
	fputs("Usage: zram-recompd backing setup [zramN...]\n"
	      "       zram-recompd backing teardown [zramN...]\n"
	      "Set up (before disksize) or take down the backing file and dm-crypt of the\n"
	      "devices whose section sets backing-file or backing-encryption = yes.\n",
	      f);
}

/* zramN of argv[from..] into ids (n of them). */
static int parse_ids(int argc, char **argv, unsigned *ids, unsigned *n)
{
	*n = 0;
	for (int i = 2; i < argc; i++) {
		unsigned id;

		if (zram_name_to_id(argv[i], &id) < 0) {
			log_error("backing: '%s' is not a zram device name (zramN)", argv[i]);
			return B_USAGE;
		}
		ids[(*n)++] = id;
	}
	return -1;
}

/* Setup of one device by id: probed first. */
static int setup_one(int root_fd, const struct kver *kv, const struct config *cfg, unsigned id,
		     bool named)
{
	static struct zram_dev d;
	struct dev_config dc;
	const char *attr = NULL;
	int r;

	config_effective(cfg, id, &dc);
	if (!config_backing_by_setup(&dc)) {
		if (named)
			log_info("zram%u: neither backing-file nor backing-encryption = yes in its "
				 "configuration; nothing to do",
				 id);
		return 0;
	}
	memset(&d, 0, sizeof(d));
	r = zram_probe(root_fd, kv, TRI_UNKNOWN, id, &d, &attr);
	if (r < 0) {
		log_error("zram%u: %s: %s", id, attr ? attr : "sysfs", strerror(-r));
		return r;
	}
	return backing_setup_dev(root_fd, &d, &dc);
}

static int cmd_setup(int root_fd, const struct config *cfg, const unsigned *ids, unsigned n,
		     const unsigned *present, unsigned np)
{
	char release[128];
	struct kver kv;
	int ret = B_OK, r;

	r = host_read_kver(root_fd, &kv, release, sizeof(release));
	if (r < 0) {
		log_error("/proc/sys/kernel/osrelease: %s", strerror(-r));
		return B_FAIL;
	}
	for (unsigned i = 0; i < n; i++) {
		bool found = false;

		for (unsigned j = 0; j < np; j++)
			found |= present[j] == ids[i];
		if (!found) {
			log_error("zram%u: no such device", ids[i]);
			return B_NO_DEVICE;
		}
	}
	for (unsigned i = 0; i < (n ? n : np); i++) {
		unsigned id = n ? ids[i] : present[i];

		if (!n && !config_device_selected(cfg, id))
			continue;
		ret = worse(ret, setup_one(root_fd, &kv, cfg, id, n > 0));
	}
	return ret;
}

/* Devices with a dm device of ours ("zram-recompd-zramN"), added to ids (max of them). */
static unsigned ours_in_dm(int root_fd, unsigned *ids, unsigned n, unsigned max)
{
	static char names[4096][64];
	int nn = sysfs_list_dir(root_fd, "sys/block", names, 4096);

	for (int i = 0; i < nn && n < max; i++) {
		char attr[96], buf[96];
		size_t len;
		unsigned id;

		if (strncmp(names[i], "dm-", 3) != 0)
			continue;
		(void)str_printf(attr, sizeof(attr), "sys/block/%s/dm/name", names[i]);
		if (sysfs_read(root_fd, attr, buf, sizeof(buf), &len) < 0)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (strncmp(buf, BACKING_DM_PREFIX, strlen(BACKING_DM_PREFIX)) == 0 &&
		    zram_name_to_id(buf + strlen(BACKING_DM_PREFIX), &id) == 0)
			ids[n++] = id;
	}
	return n;
}

/*
 * The setup hook's ExecStopPost= runs this after the tool's reset: the record of the
 * device's dictionary (dict_apply.h) describes parameters the reset freed. The dictionary
 * file itself stays in memory for the next setup of this boot (gone at reboot).
 */
static void dict_teardown(int root_fd, unsigned id, const struct dev_config *dc)
{
	char name[16];
	bool init = true;
	int r;

	if (dc->dict_use == DICT_USE_NO || zram_read_initstate(root_fd, id, &init) < 0 || init)
		return;
	(void)str_printf(name, sizeof(name), "zram%u", id);
	r = dict_record_remove(name);
	if (r < 0)
		log_warning("%s: zstd-dictionary: cannot remove %s/%s%s: %s", name,
			    dict_dir_path(), name, DICT_APPLIED_EXT, strerror(-r));
}

static int cmd_teardown(int root_fd, const struct config *cfg, unsigned *ids, unsigned n,
			unsigned max)
{
	int ret = B_OK;

	if (!n) {
		/* every device with a section that names a file, and every dm device of ours */
		for (unsigned i = 0; i < cfg->n_sections && n < max; i++)
			if (cfg->sections[i].cfg.backing_file[0])
				ids[n++] = cfg->sections[i].id;
		n = ours_in_dm(root_fd, ids, n, max);
	}
	for (unsigned i = 0; i < n; i++) {
		struct dev_config dc;
		bool dup = false;

		for (unsigned j = 0; j < i; j++)
			dup |= ids[j] == ids[i];
		if (dup)
			continue;
		config_effective(cfg, ids[i], &dc);
		ret = worse(ret, backing_teardown_dev(root_fd, ids[i], &dc));
		dict_teardown(root_fd, ids[i], &dc);
	}
	return ret;
}

int backing_main(int argc, char **argv, int root_fd, const struct config *cfg)
{
	unsigned *ids, *present = NULL, n = 0, max = (unsigned)argc + 4096;
	int np, r;

	/* --help anywhere ("backing setup --help" too): the usage, nothing else */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return B_OK;
		}
	}
	if (argc < 2 || (strcmp(argv[1], "setup") != 0 && strcmp(argv[1], "teardown") != 0)) {
		usage(stderr);
		return B_USAGE;
	}
	if (!sysfs_root_is_process_root(root_fd)) {
		log_error("backing: loop devices and dm-crypt act on this machine's /dev: not "
			  "with --sysroot; nothing changed");
		return B_USAGE;
	}
	ids = calloc(max, sizeof(*ids));
	if (!ids)
		return B_FAIL;
	r = parse_ids(argc, argv, ids, &n);
	if (r < 0 && strcmp(argv[1], "setup") == 0) {
		np = sysfs_list_zram(root_fd, &present);
		r = np < 0 ? (log_error("/sys/block: %s", strerror(-np)), B_FAIL)
			   : cmd_setup(root_fd, cfg, ids, n, present, (unsigned)np);
	} else if (r < 0) {
		r = cmd_teardown(root_fd, cfg, ids, n, max);
	}
	free(present);
	free(ids);
	return r;
}

int backing_once(int root_fd, const struct config *cfg, struct zram_dev *devs, unsigned n,
		 bool dry_run, int ret)
{
	for (unsigned i = 0; i < n; i++) {
		struct zram_dev *d = &devs[i];
		struct dev_config dc;
		char dm[64];

		config_effective(cfg, d->id, &dc);
		if (!config_backing_by_setup(&dc) || d->initialized || d->backing_dev[0])
			continue;
		(void)backing_dm_name(d->id, dm, sizeof(dm));
		if (dry_run) {
			printf("%s: would set up %s %s%s%s, then write backing_dev\n", d->name,
			       dc.backing_file[0] ? "backing-file" : "dm-crypt over",
			       dc.backing_file[0] ? dc.backing_file : dc.backing_device,
			       config_backing_encrypted(&dc) ? " as /dev/mapper/"
							     : " on a loop device",
			       config_backing_encrypted(&dc) ? dm : "");
			continue;
		}
		if (!sysfs_root_is_process_root(root_fd)) {
			log_error("%s: backing setup: loop devices and dm-crypt act on this "
				  "machine's "
				  "/dev: not with --sysroot; skipped",
				  d->name);
			ret = worse(ret, -EXDEV);
			continue;
		}
		ret = worse(ret, backing_setup_dev(root_fd, d, &dc));
	}
	return ret;
}

/* sys/dev/block/MAJ:MIN/REST of a block device into buf, without its newline. */
static int read_dev_attr(int root_fd, dev_t rdev, const char *rest, char *buf, size_t size)
{
	char attr[96];
	size_t len;
	int r;

	(void)str_printf(attr, sizeof(attr), "sys/dev/block/%u:%u/%s", major(rdev), minor(rdev),
			 rest);
	r = sysfs_read(root_fd, attr, buf, size, &len);
	if (r == 0)
		buf[strcspn(buf, "\n")] = '\0';
	return r;
}

/* The kernel's name of a block device ("loop3", "dm-0"): DEVNAME= of its uevent. */
static int dev_name(int root_fd, dev_t rdev, char name[32])
{
	char buf[512], *p;
	size_t len;
	char attr[96];

	(void)str_printf(attr, sizeof(attr), "sys/dev/block/%u:%u/uevent", major(rdev),
			 minor(rdev));
	if (sysfs_read(root_fd, attr, buf, sizeof(buf), &len) < 0 || !(p = strstr(buf, "DEVNAME=")))
		return -ENOENT;
	p += 8;
	p[strcspn(p, "\n")] = '\0';
	return strchr(p, '/') ? -EINVAL : str_printf(name, 32, "%s", p);
}

/* "file PATH (SIZE" of loop device name. */
static void describe_loop(int root_fd, const char *name, char *buf, size_t size)
{
	char attr[96], file[CFG_PATH_MAX + 16] = "?", sz[32];
	uint64_t sectors = 0;
	size_t len;

	(void)str_printf(attr, sizeof(attr), "sys/block/%s/loop/backing_file", name);
	if (sysfs_read(root_fd, attr, file, sizeof(file), &len) == 0)
		file[strcspn(file, "\n")] = '\0';
	(void)str_printf(attr, sizeof(attr), "sys/block/%s/size", name);
	(void)sysfs_read_u64(root_fd, attr, &sectors);
	(void)snprintf(buf, size, "file %s (%s, ", file,
		       human_bytes(sz, sizeof(sz), sat_mul_u64(sectors, 512)));
}

void backing_describe(int root_fd, const struct zram_dev *d, char *buf, size_t size)
{
	char dm[64], name[96], what[CFG_PATH_MAX + 64], slaves[64], slave[2][64], loop[32];
	struct stat st;

	buf[0] = '\0';
	if (!d->backing_dev[0])
		return;
	(void)backing_dm_name(d->id, dm, sizeof(dm));
	if (d->backing_dev[0] != '/' || fstatat(root_fd, d->backing_dev + 1, &st, 0) < 0 ||
	    !S_ISBLK(st.st_mode)) {
		(void)snprintf(buf, size, "plain device (unencrypted)");
		return;
	}
	if (read_dev_attr(root_fd, st.st_rdev, "dm/name", name, sizeof(name)) == 0 &&
	    strcmp(name, dm) == 0) {
		(void)str_printf(slaves, sizeof(slaves), "sys/dev/block/%u:%u/slaves",
				 major(st.st_rdev), minor(st.st_rdev));
		if (sysfs_list_dir(root_fd, slaves, slave, 2) < 1)
			strcpy(slave[0], "?");
		if (strncmp(slave[0], "loop", 4) == 0)
			describe_loop(root_fd, slave[0], what, sizeof(what));
		else
			(void)snprintf(what, sizeof(what), "device /dev/%s (", slave[0]);
		(void)snprintf(buf, size, "%sencrypted " BACKING_CIPHER ", /dev/mapper/%s)", what,
			       dm);
		return;
	}
	if (dev_name(root_fd, st.st_rdev, loop) == 0 && strncmp(loop, "loop", 4) == 0) {
		describe_loop(root_fd, loop, what, sizeof(what));
		(void)snprintf(buf, size, "%sunencrypted, /dev/%s)", what, loop);
		return;
	}
	(void)snprintf(buf, size, "plain device (unencrypted)");
}
