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

#include "dict_apply.h"
#include "human.h"
#include "log.h"
#include "pass.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* How a device is set up after its reset: each a fallback of the one before. */
enum setup_mode {
	SETUP_NEW,    /* the configured secondaries, the old backing device */
	SETUP_AS_WAS, /* no secondaries, the old backing device */
	SETUP_BARE,   /* no secondaries, no backing device */
	SETUP_NONE,   /* not set up: not swap */
};

/* Where the adopted device ends. */
struct outcome {
	bool on;	      /* in use as swap */
	bool reset;	      /* was reset (its old setup is gone) */
	enum setup_mode mode; /* how it was set up last */
};

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

/* Held back during adopt: the stop signals, and the terminal's job control. */
static const int held_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU };
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "SIGQUIT";
	}
}

/* A stop signal that is pending (held back), or 0. */
static int stop_pending(void)
{
	sigset_t p;

	if (sigpending(&p) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (sigismember(&p, stop_signals[i]) == 1)
			return stop_signals[i];
	return 0;
}

/* Before a step that changes the device: a stop signal means stop here, nothing changed. */
static bool stop_before(const struct adopt_job *j, const char *before)
{
	int sig = stop_pending();

	if (sig)
		log_error("%s: %s arrived before %s: stopped, nothing changed", j->dev.name,
			  sig_name(sig), before);
	return sig != 0;
}

/* The stop signals held back, taken (not delivered: they would end adopt unreported). */
static int take_stop_signal(const struct adopt_job *j)
{
	static const struct timespec zero = { 0, 0 };
	sigset_t set;
	int sig, first = 0;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&set, stop_signals[i]);
	while ((sig = sigtimedwait(&set, NULL, &zero)) > 0)
		if (!first)
			first = sig;
	if (first)
		log_warning("%s: %s arrived during adopt; held back until the state above "
			    "(exit status %d)",
			    j->dev.name, sig_name(first), 128 + first);
	return first;
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
		step(j, name,
		     "swapon %s without a priority (it had the automatic %d; the kernel "
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

		/* a failed swapoff puts the area back: no page is lost (mm/swapfile.c);
		 * EINVAL: it was not (or no longer) swap */
		if (r == -EINVAL)
			log_error("%s: swapoff %s: not in use as swap (EINVAL)", name, path);
		else
			log_error("%s: swapoff %s: %s; it stays in use as swap", name, path,
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
 * compressed_writeback (7.0+) before backing_dev: on as it was, or as configured for the
 * setup with the secondaries. The kernel keeps it (and writeback_batch_size,
 * writeback_limit and writeback_limit_enable) across reset today; written all the same, so
 * that what the device had is what it gets whatever reset does.
 */
static int restore_compressed_wb(const struct pass_ctx *ctx, const struct adopt_job *j,
				 struct zram_dev *d, enum setup_mode m)
{
	char cmd[16];
	int r;

	if (!(j->wb_compressed == 1 || (m == SETUP_NEW && j->cfg.compressed_writeback)))
		return 0;
	if (zram_build_compressed_writeback(d, true, cmd, sizeof(cmd)) < 0)
		return 0; /* before 7.0: no such attribute, nothing to restore */
	r = pass_write(ctx, d, "compressed_writeback", cmd, NULL, NULL);
	if (r < 0)
		pass_log_write_error(ctx, d, "compressed_writeback", cmd, r, 0);
	return r;
}

/* The old backing device, and its compressed_writeback, again (not for SETUP_BARE). */
static int restore_backing(const struct pass_ctx *ctx, const struct adopt_job *j,
			   struct zram_dev *d, enum setup_mode m)
{
	char buf[160];
	int r = restore_compressed_wb(ctx, j, d, m);

	if (r < 0)
		return r;
	r = zram_build_backing_dev(d, j->backing_dev, buf, sizeof(buf));
	if (r == 0)
		r = pass_write(ctx, d, "backing_dev", buf, NULL, NULL);
	if (r < 0)
		pass_log_write_error(ctx, d, "backing_dev", j->backing_dev, r, 0);
	else
		memcpy(d->backing_dev, j->backing_dev, sizeof(d->backing_dev));
	return r;
}

/*
 * Set device d (just reset) up again in mode m: the old primary; for SETUP_NEW the
 * configured list and levels; the old backing device (for SETUP_NEW the configured one,
 * where it had none) and mem_limit for the adopted device, not the temporary one; the old
 * disksize; the header.
 */
static int setup_device(const struct adopt_job *j, struct zram_dev *d, enum setup_mode m, bool temp)
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
	if (r == 0 && m == SETUP_NEW && !temp)
		r = pass_configure_algorithms(&ctx, d, &j->cfg, &rep);
	if (r == 0 && !temp && m != SETUP_BARE && j->backing_dev[0])
		r = restore_backing(&ctx, j, d, m);
	if (r == 0 && !temp && m == SETUP_NEW)
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

/* Say which fallback comes, before it runs. */
static void say_fallback(const struct adopt_job *j, enum setup_mode m)
{
	if (m == SETUP_AS_WAS)
		log_error("%s: setting it up with the secondary algorithms failed; setting it up "
			  "again as it was (without them)",
			  j->dev.name);
	else
		log_error("%s: setting it up again as it was failed; setting it up without its "
			  "backing device %s (the swapoff read every page back from it: none is "
			  "lost)",
			  j->dev.name, j->backing_dev);
}

/* One setup of the adopted device in mode m (reset first unless first), and swapon. */
static int setup_and_swapon(const struct adopt_job *j, enum setup_mode m, bool first)
{
	struct zram_dev d;
	int r = first ? 0 : reset_dev(j, j->dev.name);

	if (r == 0)
		r = after_reset(j, &d, j->dev.id);
	if (r == 0)
		r = setup_device(j, &d, m, false);
	if (r == 0)
		r = swap_on(j, j->dev.name);
	return r;
}

/* A record of a dictionary the device does not run (set up without secondaries) goes. */
static void dict_record_drop(const struct adopt_job *j)
{
	int r;

	if (j->dry_run)
		return;
	r = dict_record_remove(j->dev.name);
	if (r < 0)
		log_warning("%s: zstd-dictionary: cannot remove %s/%s%s: %s", j->dev.name,
			    dict_dir_path(), j->dev.name, DICT_APPLIED_EXT, strerror(-r));
}

/*
 * The old device, off swap: reset, set up with the secondaries, swapped on; where that
 * fails, each fallback of enum setup_mode in turn. Returns the first failure (0: none).
 */
static int reconfigure(const struct adopt_job *j, struct outcome *o)
{
	const char *name = j->dev.name;
	int r, r2;

	memset(o, 0, sizeof(*o));
	o->mode = SETUP_NONE;
	r = reset_dev(j, name);
	if (r < 0) {
		/* not reset: its header and setup are intact */
		o->on = swap_on(j, name) == 0;
		if (o->on)
			fprintf(j->out, "%s: in use as swap again, as it was (not reset)\n", name);
		return r;
	}
	o->reset = true;
	for (enum setup_mode m = SETUP_NEW; m < SETUP_NONE; m++) {
		if (m == SETUP_BARE && !j->backing_dev[0])
			break; /* as it was is without one */
		if (m != SETUP_NEW)
			say_fallback(j, m);
		r2 = setup_and_swapon(j, m, m == SETUP_NEW);
		if (r2 == 0) {
			o->on = true;
			o->mode = m;
			break;
		}
		if (r == 0)
			r = r2;
		if (r2 == -ENODEV || r2 == -ENOENT)
			break; /* gone */
	}
	if (o->mode == SETUP_AS_WAS)
		fprintf(j->out,
			"%s: in use as swap again, as it was: without the configured "
			"secondary algorithms\n",
			name);
	else if (o->mode == SETUP_BARE)
		fprintf(j->out,
			"%s: set up without its backing device %s: in use as swap "
			"again, nothing is written back until it has one again\n",
			name, j->backing_dev);
	/* reset: no dictionary but the one SETUP_NEW gave it (and recorded) */
	if (o->mode != SETUP_NEW || j->cfg.dict_use == DICT_USE_NO)
		dict_record_drop(j);
	return r;
}

/* How the adopted device is, off swap: for the line that says so. */
static const char *off_state(const struct adopt_job *j, const struct outcome *o)
{
	bool init = false;

	if (!o->reset)
		return ""; /* as it was, its swapon failed */
	if (!j->dry_run && zram_read_initstate(j->root_fd, j->dev.id, &init) == 0 && init)
		return " (set up, not swapped on)";
	return " and not set up";
}

/* A label mkswap -L can take as one shell word: [A-Za-z0-9._-], 1 to 16 bytes. */
static bool label_plain(const uint8_t label[16])
{
	size_t n = strnlen((const char *)label, 16);

	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
			    label[i]))
			return false;
	return n > 0;
}

/* The commands that set the adopted device up and swap it on, for a recovery line. */
static void recovery_cmds(const struct adopt_job *j, char *buf, size_t size)
{
	const char *n = j->dev.name;
	char u[37], lbl[32] = "", sw[48];

	adopt_format_uuid(j->uuid, u);
	if (label_plain(j->label))
		(void)str_printf(lbl, sizeof(lbl), " -L %.16s", (const char *)j->label);
	if (j->swap.prio >= 0)
		(void)str_printf(sw, sizeof(sw), "swapon -p %d /dev/%s", j->swap.prio, n);
	else
		(void)str_printf(sw, sizeof(sw), "swapon /dev/%s", n);
	(void)str_printf(buf, size,
			 "echo 1 > /sys/block/%s/reset; echo %s > /sys/block/%s/comp_algorithm; "
			 "echo %" PRIu64 " > /sys/block/%s/disksize; mkswap -U %s%s /dev/%s; %s",
			 n, zram_primary(&j->dev), n, j->dev.disksize, n, u, lbl, n, sw);
}

static int run_direct(struct adopt_job *j)
{
	struct outcome o;
	char cmds[512];
	int r;

	if (stop_before(j, "the swapoff"))
		return -EINTR;
	r = swap_off(j, j->dev.name, "its pages go back to memory and other swap");
	if (r < 0)
		return r;
	r = reconfigure(j, &o);
	if (!o.on) {
		recovery_cmds(j, cmds, sizeof(cmds));
		log_error("%s: is not in use as swap now%s; its pages were read back into memory "
			  "(none is lost); to set it up and swap it on: %s",
			  j->dev.name, off_state(j, &o), cmds);
	}
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
		step(j, j->dev.name,
		     "read sys/class/zram-control/hot_add: a temporary device, "
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

/* The emptied temporary device goes (its swapoff succeeded, or it never was swap). */
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
		log_warning("%s: hot_remove: %s; the temporary device, empty, is left behind "
			    "(echo %u > /sys/class/zram-control/hot_remove)",
			    t->name, strerror(-r), t->id);
}

/* The temporary device holds pages and stays swap: say what finishes the job. */
static void temp_kept(const struct adopt_job *j, const struct zram_dev *t, const char *state)
{
	log_error("%s: %s; its pages stay on %s, which stays in use as swap; later: swapoff "
		  "/dev/%s; echo %u > /sys/class/zram-control/hot_remove",
		  j->dev.name, state, t->name, t->name, t->id);
}

/* Before the old device's swapoff: the temporary device set up and swapped on. */
static int temp_start(const struct adopt_job *j, struct zram_dev *t)
{
	int r = setup_device(j, t, SETUP_AS_WAS, true);

	if (r == 0)
		r = swap_on(j, t->name);
	if (r < 0) {
		/* never swap, so empty: the adopted device is untouched */
		fprintf(j->out, "%s: not changed; the temporary device %s goes again\n",
			j->dev.name, t->name);
		temp_remove(j, t);
	}
	return r;
}

static int run_via_temp(struct adopt_job *j)
{
	struct zram_dev t;
	struct outcome o;
	char cmds[512];
	int r = temp_add(j, &t);

	if (r < 0)
		return r;
	r = temp_start(j, &t);
	if (r < 0)
		return r;
	r = stop_before(j, "the swapoff") ? -EINTR : 0;
	if (r == 0)
		r = swap_off(j, j->dev.name, "its pages move to the temporary device");
	if (r < 0) {
		/* the old device is still swap, as it was; pages it gave away move back */
		if (swap_off(j, t.name,
			     "the adopted device stays as it was; pages it moved "
			     "there move back") < 0)
			temp_kept(j, &t, "in use as swap, as it was, not changed");
		else
			temp_remove(j, &t);
		return r;
	}
	if (!j->dry_run) {
		struct zram_mm_stat mm;

		if (zram_read_mm_stat(j->root_fd, t.id, &mm) == 0)
			fprintf(j->out,
				"%s: holds %" PRIu64 " pages (orig_data_size) after the swapoff "
				"of %s\n",
				t.name, mm.v[MM_ORIG_DATA_SIZE] / j->dev.page_size, j->dev.name);
	}
	r = reconfigure(j, &o);
	if (!o.on) {
		recovery_cmds(j, cmds, sizeof(cmds));
		log_error("%s: is not in use as swap now%s; to set it up and swap it on: %s",
			  j->dev.name, off_state(j, &o), cmds);
		temp_kept(j, &t, "not in use as swap now");
		return r < 0 ? r : -EIO;
	}
	if (swap_off(j, t.name, "its pages move back") < 0) {
		temp_kept(j, &t, "in use as swap again, but its pages did not all move back");
		return -EBUSY;
	}
	temp_remove(j, &t);
	return r;
}

/*
 * The backing device this device's backing_dev names, held open (O_RDONLY) from before
 * the swapoff until backing_dev is written again: a loop device set to autoclear (losetup
 * --autoclear; `backing setup` with backing-encryption = no) detaches when its last opener
 * closes it, and zram's reset is that close, after which backing_dev cannot name it again.
 * Only the kernel's own path of it, and only /dev/loopN, /dev/dm-N or /dev/mapper/NAME,
 * opened inside the root; kept only when it is that: a loop or device-mapper block device
 * (sys/dev/block/MAJ:MIN/loop or /dm). Returns the fd or -1.
 */
static int hold_backing(const struct adopt_job *j)
{
	const char *p = j->backing_dev, *kind = NULL;
	char sys[64];
	struct stat st;
	int fd = -1, r;

	if (strncmp(p, "/dev/loop", 9) == 0 && p[9] && strspn(p + 9, "0123456789") == strlen(p + 9))
		kind = "loop";
	else if (strncmp(p, "/dev/dm-", 8) == 0 && p[8] &&
		 strspn(p + 8, "0123456789") == strlen(p + 8))
		kind = "dm";
	else if (strncmp(p, "/dev/mapper/", 12) == 0 && p[12] && p[12] != '.' &&
		 !strchr(p + 12, '/'))
		kind = "dm"; /* a name: dm's symlink to ../dm-N is followed inside the root */
	if (!kind)
		return -1; /* a disk or partition: no autoclear to guard against */
	step(j, j->dev.name,
	     "hold %s open until backing_dev names it again (a loop device set "
	     "to autoclear would go with the reset)",
	     p);
	if (j->dry_run)
		return -1;
	r = sysfs_open_read(j->root_fd, p + 1, &fd);
	if (r == 0 && fstat(fd, &st) < 0)
		r = -errno;
	if (r == 0 && !S_ISBLK(st.st_mode))
		r = -ENOTBLK;
	if (r == 0)
		r = str_printf(sys, sizeof(sys), "sys/dev/block/%u:%u/%s", major(st.st_rdev),
			       minor(st.st_rdev), kind);
	if (r == 0)
		r = sysfs_exists(j->root_fd, sys);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		log_warning("%s: cannot hold its backing device %s open: %s; if it goes with the "
			    "reset, the device is set up without it",
			    j->dev.name, p, strerror(-r));
		return -1;
	}
	return fd;
}

/* compressed_writeback (7.0+) as it is now, for restore_compressed_wb; -1: unknown. */
static void read_wb_config(struct adopt_job *j)
{
	char path[64];
	uint64_t v;

	j->wb_compressed = -1;
	if (!j->dev.caps.compressed_wb || !j->backing_dev[0] ||
	    str_printf(path, sizeof(path), "sys/block/%s/compressed_writeback", j->dev.name) < 0 ||
	    sysfs_read_u64(j->root_fd, path, &v) < 0)
		return;
	j->wb_compressed = v ? 1 : 0;
}

int adopt_execute(struct adopt_job *j)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t held, old;
	int hold, r;

	/* held back until the device is swap again; adopt_main reports them */
	sigemptyset(&held);
	for (size_t i = 0; i < sizeof(held_signals) / sizeof(held_signals[0]); i++)
		sigaddset(&held, held_signals[i]);
	(void)sigprocmask(SIG_BLOCK, &held, &old);
	/* a dead terminal or pipe on stdout: writes fail, adopt goes on */
	(void)sigaction(SIGPIPE, &ign, NULL);
	read_wb_config(j);
	hold = j->backing_dev[0] ? hold_backing(j) : -1;
	switch (j->plan.kind) {
	case ADOPT_DIRECT:
		r = run_direct(j);
		break;
	case ADOPT_VIA_TEMP:
		r = run_via_temp(j);
		break;
	default:
		r = -EINVAL;
	}
	if (hold >= 0)
		close(hold);
	j->signal = take_stop_signal(j);
	(void)sigprocmask(SIG_SETMASK, &old, NULL); /* a held SIGTSTP stops it only now */
	return r;
}
