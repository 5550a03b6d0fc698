// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * adopt, the steps (include/adopt.h): swapoff, reset, the device set up again with the
 * secondaries, a swap header, swapon at the old priority; for plan B the same around a
 * temporary hot-added device. Each step is printed before it runs (it can take a while:
 * swapoff reads every page back), and under --dry-run only printed.
 *
 * The swap header is written here, not by mkswap(8): its format is a stable kernel ABI of
 * one page (include/linux/swap.h, union swap_header, version 1 since Linux 2.2), while
 * running mkswap would make a root command depend on util-linux's path and version and add
 * an execve of a program from a root daemon's package for what is 40 bytes of fields. Writing
 * it ourselves also keeps the old header's UUID and label (fstab's UUID=/LABEL= keep
 * working), which mkswap would only do when told them.
 *
 * swapon(2) and swapoff(2) take a path: "/dev/zramN" from the validated name; adopt_main
 * allows a real run only on the root "/" (the unit tests wrap both calls, see
 * tests/unit/test_adopt.ldflags). Discard: /proc/swaps does not show whether the device was
 * swapped on with discard, so swapon here passes none; zram frees a slot's memory when swap
 * frees the slot without it (6.12: the block device's swap_slot_free_notify).
 */
#include "adopt.h"

#include "human.h"
#include "log.h"
#include "pass.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/swap.h>
#include <unistd.h>

/* A step: "NAME: TEXT", or "NAME: would TEXT" under --dry-run. */
static void __attribute__((format(printf, 3, 4)))
step(const struct adopt_job *j, const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(j->out, "%s: %s", name, j->dry_run ? "would " : "");
	va_start(ap, fmt);
	vfprintf(j->out, fmt, ap);
	va_end(ap);
	fputc('\n', j->out);
	fflush(j->out);
}

/* An attribute of device name (adopt's allowlist, sysfs.h); not logged. */
static int attr_write(const struct adopt_job *j, const char *name, const char *attr,
		      const char *val)
{
	char path[96], line[64], note[HUMAN_LEN];
	int r;

	if (j->dry_run) {
		fprintf(j->out, "%s: would write '%s' to %s%s\n", name, val, attr,
			human_attr_note(note, sizeof(note), attr, val));
		return 0;
	}
	r = str_printf(path, sizeof(path), "sys/block/%s/%s", name, attr);
	if (r == 0)
		r = str_printf(line, sizeof(line), "%s\n", val);
	return r < 0 ? r : sysfs_write_adopt(j->root_fd, path, line);
}

static int attr_set(const struct adopt_job *j, const char *name, const char *attr, const char *val)
{
	int r = attr_write(j, name, attr, val);

	if (r < 0)
		log_error("%s: %s: writing '%s' failed: %s", name, attr, val, strerror(-r));
	return r;
}

/*
 * Right after swapoff the device can still be open for a moment (udev's probe of the change
 * event swapoff causes): reset fails with EBUSY then, so it is tried again every 100 ms.
 */
static int reset_dev(const struct adopt_job *j, const char *name)
{
	unsigned tries = j->reset_tries ? j->reset_tries : 1;
	int r;

	for (unsigned i = 1;; i++) {
		r = attr_write(j, name, "reset", "1");
		if (r != -EBUSY || i >= tries)
			break;
		sleep_ms(100);
	}
	if (r < 0)
		log_error("%s: reset: %s%s", name, strerror(-r),
			  r == -EBUSY ? " (someone else holds the device open)" : "");
	return r;
}

static int swap_flags(int prio)
{
	return prio >= 0 ? SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK)
			 : 0;
}

static int swap_on(const struct adopt_job *j, const char *name)
{
	char path[32];
	int prio = j->swap.prio;

	if (str_printf(path, sizeof(path), "/dev/%s", name) < 0)
		return -ENAMETOOLONG;
	if (prio >= 0)
		step(j, name, "swapon %s with priority %d", path, prio);
	else
		/* the kernel takes only 0..32767 from user space; below 0 it counts down itself */
		step(j, name, "swapon %s without a priority (it had the automatic %d; the kernel "
			      "gives the next automatic one)",
		     path, prio);
	if (j->dry_run)
		return 0;
	if (swapon(path, swap_flags(prio)) < 0) {
		int r = -errno;

		log_error("%s: swapon %s: %s", name, path, strerror(-r));
		return r;
	}
	return 0;
}

/* swapoff: the kernel reads every page of the device back (into memory, or other swap). */
static int swap_off(const struct adopt_job *j, const char *name, const char *why)
{
	char path[32];

	if (str_printf(path, sizeof(path), "/dev/%s", name) < 0)
		return -ENAMETOOLONG;
	step(j, name, "swapoff %s (%s)", path, why);
	if (j->dry_run)
		return 0;
	if (swapoff(path) < 0) {
		int r = -errno;

		/* a failed swapoff puts the area back: no page is lost (mm/swapfile.c) */
		log_error("%s: swapoff %s: %s; the device stays in use as swap", name, path,
			  strerror(-r));
		return r;
	}
	return 0;
}

/*
 * The swap header of device d (its id), the size it was set up with. kept: the UUID is the
 * old header's (printed under --dry-run too; a new random one only when it is written).
 */
static int write_header(const struct adopt_job *j, const struct zram_dev *d, const uint8_t uuid[16],
			const uint8_t label[16], bool kept)
{
	uint64_t pages = j->dev.disksize / j->page_size;
	char u[37];
	void *page;
	int fd, r;

	adopt_format_uuid(uuid, u);
	step(j, d->name, "write a swap header to /dev/%s (last_page %" PRIu64 ", %s UUID%s%s)",
	     d->name, pages ? pages - 1 : 0, kept ? "the old" : "a new",
	     kept || !j->dry_run ? " " : "", kept || !j->dry_run ? u : "");
	if (j->dry_run)
		return 0;
	page = malloc(j->page_size);
	if (!page)
		return -ENOMEM;
	r = adopt_build_swap_header(page, j->page_size, j->dev.disksize, uuid, label);
	if (r == 0)
		r = sysfs_open_zram_dev_excl(j->root_fd, d->id, &fd);
	if (r == 0) {
		r = write_full(fd, page, j->page_size);
		if (r == 0 && fsync(fd) < 0)
			r = -errno;
		close(fd);
	}
	free(page);
	if (r < 0)
		log_error("%s: swap header on /dev/%s: %s", d->name, d->name, strerror(-r));
	return r;
}

/*
 * The device as it is after reset: probed again, or under --dry-run what the kernel would
 * show (6.11+ forget the secondary names at reset, 6.10 and older keep them).
 */
static int after_reset(const struct adopt_job *j, struct zram_dev *d, unsigned id)
{
	const char *attr = NULL;
	int r;

	if (j->dry_run) {
		*d = j->dev;
		d->initialized = false;
		d->disksize = 0;
		d->backing_dev[0] = '\0';
		if (kver_ge(&j->kv, 6, 11, 0)) {
			memset(d->recomp.name, 0, sizeof(d->recomp.name));
			memset(d->recomp.set, 0, sizeof(d->recomp.set));
			d->recomp.count = d->recomp.highest = 0;
			d->recomp.gap = false;
		}
		return 0;
	}
	r = zram_probe(j->root_fd, &j->kv, j->kconf, id, d, &attr);
	if (r < 0)
		log_error("zram%u: after reset: %s: %s", id, attr ? attr : "sysfs", strerror(-r));
	else if (d->initialized)
		r = -EBUSY; /* someone set it up between our reset and now */
	return r;
}

/*
 * Set device d (just reset) up again: the old primary; with secondaries the configured list
 * and levels; the old backing device (then the configured one, where it had none) and
 * mem_limit for the adopted device, not the temporary one; the old disksize; the header.
 */
static int setup_device(const struct adopt_job *j, struct zram_dev *d, bool secondaries,
			bool temp)
{
	struct pass_ctx ctx;
	static struct device_report rep;
	char buf[160];
	int r;

	pass_ctx_init(&ctx, j->root_fd);
	ctx.dry_run = j->dry_run;
	ctx.out = j->out;
	ctx.apply_dict = !temp; /* the device's own dictionary, not the temporary one's */
	r = attr_set(j, d->name, "comp_algorithm", zram_primary(&j->dev));
	if (r == 0 && secondaries)
		r = pass_configure_algorithms(&ctx, d, &j->cfg, &rep);
	if (r == 0 && !temp && j->backing_dev[0]) {
		r = zram_build_backing_dev(d, j->backing_dev, buf, sizeof(buf));
		if (r == 0)
			r = pass_write(&ctx, d, "backing_dev", buf, NULL, NULL);
		if (r < 0)
			pass_log_write_error(&ctx, d, "backing_dev", j->backing_dev, r, 0);
		else
			memcpy(d->backing_dev, j->backing_dev, sizeof(d->backing_dev));
	}
	if (r == 0 && !temp && secondaries)
		r = pass_configure_writeback(&ctx, d, &j->cfg);
	if (r == 0 && (r = str_printf(buf, sizeof(buf), "%" PRIu64, j->dev.disksize)) == 0)
		r = attr_set(j, d->name, "disksize", buf);
	if (r == 0 && !temp && j->mem_limit &&
	    (r = str_printf(buf, sizeof(buf), "%" PRIu64, j->mem_limit)) == 0)
		r = attr_set(j, d->name, "mem_limit", buf);
	if (r == 0 && temp) {
		uint8_t uuid[16], label[16] = { 0 };

		if (getrandom(uuid, sizeof(uuid), 0) != (ssize_t)sizeof(uuid))
			return -EIO;
		adopt_uuid_v4(uuid);
		r = write_header(j, d, uuid, label, false);
	} else if (r == 0) {
		r = write_header(j, d, j->uuid, j->label, j->uuid_kept);
	}
	return r;
}

/*
 * The old device, off swap: reset, set up with the secondaries, swapped on. Where the setup
 * fails, it is set up again as it was (no secondaries) and swapped on. *on: the device is in
 * use as swap again.
 */
static int reconfigure(const struct adopt_job *j, bool *on)
{
	const char *name = j->dev.name;
	struct zram_dev d;
	int r, r2;

	*on = false;
	r = reset_dev(j, name);
	if (r < 0) {
		/* not reset: its header and setup are intact */
		*on = swap_on(j, name) == 0;
		return r;
	}
	r = after_reset(j, &d, j->dev.id);
	if (r == 0)
		r = setup_device(j, &d, true, false);
	if (r < 0) {
		log_error("%s: setting it up with the secondary algorithms failed; setting it up "
			  "again as it was",
			  name);
		r2 = reset_dev(j, name);
		if (r2 == 0)
			r2 = after_reset(j, &d, j->dev.id);
		if (r2 == 0)
			r2 = setup_device(j, &d, false, false);
		if (r2 == 0)
			*on = swap_on(j, name) == 0;
		return r;
	}
	r = swap_on(j, name);
	*on = r == 0;
	return r;
}

static int run_direct(const struct adopt_job *j)
{
	bool on;
	int r = swap_off(j, j->dev.name, "its pages go back to memory and other swap");

	if (r < 0)
		return r;
	r = reconfigure(j, &on);
	if (r < 0 && !on)
		log_error("%s: is not in use as swap now; its pages were read back into memory "
			  "(nothing is lost); set it up by hand or reboot",
			  j->dev.name);
	return r;
}

/* A new device from sys/class/zram-control/hot_add (read-only under --dry-run). */
static int temp_add(const struct adopt_job *j, struct zram_dev *t)
{
	const char *attr = NULL;
	char buf[32];
	uint64_t id;
	int r;

	if (j->dry_run) {
		*t = j->dev;
		(void)str_printf(t->name, sizeof(t->name), "zram(new)");
		t->initialized = false;
		memset(&t->recomp.set, 0, sizeof(t->recomp.set));
		step(j, j->dev.name, "read sys/class/zram-control/hot_add: a temporary device, "
				     "zram(new) below");
		return 0;
	}
	r = sysfs_read(j->root_fd, "sys/class/zram-control/hot_add", buf, sizeof(buf), NULL);
	if (r == 0)
		r = parse_u64(buf, &id);
	if (r == 0 && id > 0xffffffu)
		r = -ERANGE;
	if (r == 0)
		r = zram_probe(j->root_fd, &j->kv, j->kconf, (unsigned)id, t, &attr);
	if (r < 0) {
		log_error("%s: a temporary device (sys/class/zram-control/hot_add): %s",
			  j->dev.name, strerror(-r));
		return r;
	}
	step(j, j->dev.name, "hot-added zram%u as the temporary device", t->id);
	return 0;
}

static void temp_remove(const struct adopt_job *j, const struct zram_dev *t)
{
	unsigned tries = j->reset_tries ? j->reset_tries : 1;
	char id[16];
	int r;

	step(j, t->name, "write its id to sys/class/zram-control/hot_remove");
	if (j->dry_run)
		return;
	(void)str_printf(id, sizeof(id), "%u\n", t->id);
	for (unsigned i = 1;; i++) {
		r = sysfs_write_adopt(j->root_fd, "sys/class/zram-control/hot_remove", id);
		if (r != -EBUSY || i >= tries)
			break;
		sleep_ms(100);
	}
	if (r < 0)
		log_warning("%s: hot_remove: %s; the empty temporary device is left behind",
			    t->name, strerror(-r));
}

static int run_via_temp(const struct adopt_job *j)
{
	struct zram_dev t;
	bool on;
	int r = temp_add(j, &t);

	if (r < 0)
		return r;
	r = setup_device(j, &t, false, true);
	if (r == 0)
		r = swap_on(j, t.name);
	if (r == 0)
		r = swap_off(j, j->dev.name, "its pages move to the temporary device");
	if (r < 0) {
		/* the old device is as it was; the temporary one goes again */
		(void)swap_off(j, t.name, "nothing changed on the adopted device");
		temp_remove(j, &t);
		return r;
	}
	if (!j->dry_run) {
		struct zram_mm_stat mm;

		if (zram_read_mm_stat(j->root_fd, t.id, &mm) == 0)
			fprintf(j->out, "%s: holds %" PRIu64 " pages (orig_data_size) after the swapoff "
					"of %s\n",
				t.name, mm.v[MM_ORIG_DATA_SIZE] / j->dev.page_size, j->dev.name);
	}
	r = reconfigure(j, &on);
	if (!on) {
		log_error("%s: is not in use as swap now; its pages stay on %s, which stays in "
			  "use as swap",
			  j->dev.name, t.name);
		return r < 0 ? r : -EIO;
	}
	if (swap_off(j, t.name, "its pages move back") < 0) {
		log_error("%s: its pages stay on %s (in use as swap); swapoff it later", j->dev.name,
			  t.name);
		return -EBUSY;
	}
	temp_remove(j, &t);
	return r;
}

int adopt_execute(struct adopt_job *j)
{
	switch (j->plan.kind) {
	case ADOPT_DIRECT:
		return run_direct(j);
	case ADOPT_VIA_TEMP:
		return run_via_temp(j);
	default:
		return -EINVAL;
	}
}
