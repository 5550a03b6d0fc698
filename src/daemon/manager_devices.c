// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's devices: finding zram devices (at start, on uevents, on a retry timer
 * while none is managed), probing and setting up new ones, dropping removed ones.
 */
#include "manager_internal.h"
#include "config_check.h"

#include "devlock.h"
#include "human.h"
#include "log.h"
#include "reach.h"
#include "sysfs.h"
#include "util.h"
#include "manager.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

/* Index of the first managed device whose id is not below id (devs ascend by id). */
static unsigned dev_index(const struct manager *m, unsigned id)
{
	unsigned lo = 0, hi = m->n_devs;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (m->devs[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct mdev *manager_find_dev(struct manager *m, unsigned id)
{
	unsigned i = dev_index(m, id);

	return i < m->n_devs && m->devs[i]->id == id ? m->devs[i] : NULL;
}

void manager_release_dev(struct mdev *md)
{
	struct manager *m = md->m;
	unsigned i = dev_index(m, md->id);

	if (i < m->n_devs && m->devs[i] == md) {
		memmove(&m->devs[i], &m->devs[i + 1], (m->n_devs - i - 1) * sizeof(m->devs[0]));
		m->n_devs--;
	}
	md->timer = sd_event_source_disable_unref(md->timer);
	free(md->job);
	free(md);
}

void manager_arm(struct mdev *md, uint64_t when_ns)
{
	uint64_t usec = when_ns / NS_PER_USEC;
	int r;

	if (!md->timer) {
		r = sd_event_add_time(md->m->e, &md->timer, CLOCK_MONOTONIC, usec,
				      1000000 /* 1 s accuracy: let the kernel batch wake-ups */,
				      md->m->on_dev_timer, md);
		if (r < 0) {
			log_error("%s: cannot add timer: %s", md->dev.name, strerror(-r));
			return;
		}
		(void)sd_event_source_set_description(md->timer, md->dev.name);
		return;
	}
	(void)sd_event_source_set_time(md->timer, usec);
	(void)sd_event_source_set_enabled(md->timer, SD_EVENT_ONESHOT);
}

static void drop_dev(struct mdev *md, const char *why)
{
	log_info("%s: %s; no longer managed", md->dev.name, why);
	md->timer = sd_event_source_disable_unref(md->timer);
	if (md->busy) {
		/* The worker still owns md->job: keep the device until it reports back. */
		return;
	}
	manager_release_dev(md);
}

int manager_lock_dev(struct mdev *md, unsigned id, int *ret_fd)
{
	char name[16];
	int r = devlock_try(md->m->root_fd, id, false, ret_fd);
	unsigned bit = id == md->id ? 1u : 2u;

	devlock_name(id, name, sizeof(name));
	if (r == -EAGAIN) {
		if (!(md->lock_said & bit))
			log_info("%s: adopt holds the lock /%s/%s: left alone until it is done",
				 md->dev.name, DEVLOCK_DIR, name);
		else
			log_debug("%s: adopt still holds the lock /%s/%s", md->dev.name,
				  DEVLOCK_DIR, name);
		md->lock_said |= bit;
		return r;
	}
	if (r < 0 && !md->m->lock_unavail_said)
		log_debug("/%s/%s: %s: devices are not locked against adopt", DEVLOCK_DIR, name,
			  strerror(-r));
	md->m->lock_unavail_said |= r < 0;
	if (r == 0 && (md->lock_said & bit) && bit == 1)
		log_info("%s: lock released: passes resume", md->dev.name);
	if (r == 0)
		md->lock_said &= ~bit;
	return 0;
}

bool manager_tick_locked(struct mdev *md, int *ret_fd)
{
	if (manager_lock_dev(md, md->id, ret_fd) != -EAGAIN)
		return false;
	md->pol.next_due_ns =
		sat_add_u64(now_monotonic_ns(), sat_mul_u64(md->cfg.interval_sec, 1000000000ULL));
	manager_arm(md, md->pol.next_due_ns);
	return true;
}

/* A device whose size, primary or initstate changed was reset and set up anew. */
static bool same_setup(const struct zram_dev *a, const struct zram_dev *b)
{
	return a->initialized == b->initialized && a->disksize == b->disksize &&
	       strcmp(zram_primary(a), zram_primary(b)) == 0;
}

/*
 * Before disksize, like the algorithms: the backing device (one already set is kept) and the
 * secondary list, unless the device has one (set by another tool: never re-written). Quick
 * writes, before zram setup sets disksize: fine on the loop. -EBUSY: another tool set the
 * device up meanwhile (pass_log_setup_error: a notice); -ENODEV: it is gone.
 */
static int configure_dev(struct manager *m, struct mdev *md)
{
	const struct zram_dev *d = &md->dev;
	struct pass_ctx ctx;
	int r;

	pass_ctx_init(&ctx, m->root_fd);
	if (md->cfg.backing_device[0] || md->cfg.backing_file[0] || md->cfg.compressed_writeback) {
		bool had = d->backing_dev[0];

		r = pass_configure_writeback(&ctx, &md->dev, &md->cfg);
		if (r == -EBUSY || r == -ENODEV)
			return r;
		if (r == 0 && d->backing_dev[0] && !had)
			log_info("%s: not initialized; backing device %s configured", d->name,
				 d->backing_dev);
	}
	if (d->caps.multi_comp && md->cfg.n_algos && d->recomp.count == 0 && !m->algos_invalid) {
		struct device_report rep = {0};
		struct dev_config dc;
		char why[256];

		/* recompress-algorithms = auto: the stored advice, or the fallback list. */
		if (advice_resolve(&md->cfg, m->hist.dir_fd, d->name, zram_primary(d), &dc, why,
				   sizeof(why)) != ADVICE_NOT_AUTO)
			log_info("%s: %s", d->name, why);
		r = pass_configure_algorithms(&ctx, &md->dev, &dc, &rep);
		if (r == -EBUSY || r == -ENODEV)
			return r;
		if (r == 0 && rep.algorithms_written)
			log_info("%s: not initialized; secondary algorithms configured", d->name);
	}
	return 0;
}

/* What configure_dev may write to an uninitialized device: the only reason to lock it. */
static bool setup_due(const struct mdev *md)
{
	return md->cfg.backing_device[0] || md->cfg.backing_file[0] ||
	       md->cfg.compressed_writeback ||
	       (md->dev.caps.multi_comp && md->cfg.n_algos && md->dev.recomp.count == 0);
}

/* Probe one device; configure it while it is uninitialized. */
static int refresh_dev(struct manager *m, struct mdev *md, bool is_new)
{
	struct zram_dev d;
	const char *attr = NULL;
	int r, lk, la;

	r = zram_probe(m->root_fd, &m->kv, m->kconf, md->id, &d, &attr);
	if (r < 0)
		return r;
	if (!is_new && !same_setup(&md->dev, &d)) {
		log_info("%s: re-initialized (disksize %" PRIu64 ", primary %s); starting over",
			 d.name, d.disksize, zram_primary(&d));
		policy_dev_init(&md->pol, &md->cfg, now_monotonic_ns());
	} else if (!is_new) {
		/* what the passes learnt (memo, write costs, huge wait, notices logged) */
		d.learnt = md->dev.learnt;
	}
	md->dev = d;
	if (d.initialized || !setup_due(md))
		return 0;
	/* reset and set up again by adopt, or its temporary device: adopt's alone */
	if (manager_lock_dev(md, md->id, &lk) == -EAGAIN)
		return 0;
	if (manager_lock_dev(md, DEVLOCK_ADOPT, &la) == -EAGAIN) {
		devlock_release(&lk);
		return 0;
	}
	r = configure_dev(m, md);
	devlock_release(&la);
	devlock_release(&lk);
	if (r != -EBUSY)
		return r;
	/*
	 * Another tool wrote disksize between the probe and our write: it set the device up,
	 * and the device is used as that tool left it. Probe it again now (or learn it is
	 * gone: a tool that tests zram removes its devices quickly).
	 */
	r = zram_probe(m->root_fd, &m->kv, m->kconf, md->id, &d, &attr);
	if (r < 0)
		return r;
	md->dev = d;
	if (!is_new)
		policy_dev_init(&md->pol, &md->cfg, now_monotonic_ns());
	return 0;
}

static int on_rescan(sd_event_source *s, uint64_t usec, void *userdata);

/*
 * Devices are rescanned at every device tick and on kernel uevents. With no device to
 * tick, a device that appears without a uevent (none is sent when one is re-initialized;
 * netlink may be unavailable) would go unnoticed: poll at the interval then, and only then.
 */
static void arm_rescan(struct manager *m)
{
	uint64_t when;
	bool any = false;

	for (unsigned i = 0; i < m->n_devs && !any; i++)
		any = m->devs[i]->timer;
	if (any || m->stopping) {
		if (m->rescan_timer)
			(void)sd_event_source_set_enabled(m->rescan_timer, SD_EVENT_OFF);
		return;
	}
	when = sat_add_u64(now_monotonic_ns(),
			   sat_mul_u64(m->cfg.global.interval_sec, UINT64_C(1000000000))) /
	       NS_PER_USEC;
	if (!m->rescan_timer) {
		if (sd_event_add_time(m->e, &m->rescan_timer, CLOCK_MONOTONIC, when, 1000000,
				      on_rescan, m) >= 0)
			(void)sd_event_source_set_description(m->rescan_timer, "rescan");
		return;
	}
	(void)sd_event_source_set_time(m->rescan_timer, when);
	(void)sd_event_source_set_enabled(m->rescan_timer, SD_EVENT_ONESHOT);
}

static int cmp_id(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Drop the managed devices that are gone or no longer selected (ids: sorted). */
static void drop_gone(struct manager *m, const unsigned *ids, int n)
{
	/* downwards: a device dropped leaves the list, the ones below keep their place */
	for (unsigned i = m->n_devs; i-- > 0;) {
		struct mdev *md = m->devs[i];

		if (!md->timer)
			continue;
		if (!n || !bsearch(&md->id, ids, (size_t)n, sizeof(*ids), cmp_id))
			drop_dev(md, "removed");
		else if (!config_device_selected(&m->cfg, md->id))
			drop_dev(md, "not selected by 'devices' any more");
	}
}

/* A new device for id, set up and in the list at its place; NULL without memory. */
static struct mdev *new_dev(struct manager *m, unsigned id, uint64_t now)
{
	void *v = m->devs;
	struct mdev *md;
	unsigned i;

	if (array_reserve(&v, &m->cap_devs, m->n_devs, sizeof(*m->devs), 8) < 0)
		return NULL;
	m->devs = v;
	md = calloc(1, sizeof(*md));
	if (!md)
		return NULL;
	md->m = m;
	md->id = id;
	(void)snprintf(md->dev.name, sizeof(md->dev.name), "zram%u", id);
	config_effective(&m->cfg, id, &md->cfg);
	policy_dev_init(&md->pol, &md->cfg, now);
	i = dev_index(m, id);
	memmove(&m->devs[i + 1], &m->devs[i], (m->n_devs - i) * sizeof(m->devs[0]));
	m->devs[i] = md;
	m->n_devs++;
	return md;
}

void manager_check_config(struct manager *m, const struct config_files *files)
{
	static struct config_errors errs; /* the event loop's only */
	unsigned n = config_check_algos(&m->cfg, files, m->root_fd, &errs);

	m->cfg_note[0] = '\0';
	for (unsigned i = 0; i < errs.n; i++)
		log_error("%s", errs.msg[i]);
	if (n)
		log_error("configuration: %u error%s in the secondary algorithms (above): none is "
			  "written to a device; each device keeps the ones it has (zram-recompd "
			  "--check-config; then systemctl reload zram-recompd)",
			  n, n == 1 ? "" : "s");
	if (errs.n)
		(void)snprintf(m->cfg_note, sizeof(m->cfg_note), "configuration error: %s; ",
			       errs.msg[0]);
	/* What cannot take effect on this kernel, once per load (--check-config lists it too). */
	(void)config_check_effect(&m->cfg, files, m->root_fd, &errs);
	for (unsigned i = 0; i < errs.n; i++)
		log_warning("%s", errs.msg[i]);
	for (unsigned i = 0; i < m->n_devs; i++)
		m->devs[i]->algos_sig = 0;
	m->algos_invalid = n > 0;
}

static bool algos_note(const struct mdev *md, char *buf, size_t size)
{
	const struct zram_dev *d = &md->dev;

	return d->initialized && d->caps.multi_comp &&
	       config_algos_note(&md->cfg, d->name, &d->recomp, &d->comp, buf, size);
}

static uint64_t note_sig(const char *note)
{
	uint64_t sig = 0;

	for (const char *p = note; *p; p++) /* FNV-1a */
		sig = (sig ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
	return sig;
}

bool manager_algos_note(const struct mdev *md, char *buf, size_t size)
{
	return md->algos_sig && algos_note(md, buf, size) && note_sig(buf) == md->algos_sig;
}

/* Whether an adopt runs now: it holds the lock "adopt" exclusively (devlock.h). */
static bool adopt_running(const struct manager *m)
{
	int fd;
	int r = devlock_try(m->root_fd, DEVLOCK_ADOPT, false, &fd);

	devlock_release(&fd);
	return r == -EAGAIN;
}

/* Whether an adopt runs, asked of the lock at most once per announce: *cache is -1 first. */
static bool adopting(const struct mdev *md, int *cache)
{
	if (*cache < 0)
		*cache = adopt_running(md->m);
	return *cache;
}

/*
 * A set-up device whose secondaries are not the configured ones (config_algos_note): said
 * once, with the fix, and again when it changes or after a load (which clears algos_sig).
 * Not while an adopt runs: its temporary device, and its own device between reset and
 * setup, are not the admin's to fix; decided again at a later tick, once adopt is over.
 */
static void note_algos(struct mdev *md, int *adopt_cache)
{
	char note[512];
	uint64_t sig = algos_note(md, note, sizeof(note)) ? note_sig(note) : 0;

	if (sig && sig != md->algos_sig && adopting(md, adopt_cache))
		return;
	if (sig && sig != md->algos_sig)
		log_warning("%s: %s", md->dev.name, note);
	md->algos_sig = sig;
}

/*
 * A device just managed, or whose reach changed (reach.h; adopt re-initialized it): what
 * passes it gets, what it cannot do with the fix, and when its cold tier cannot run. Only
 * a pass that will run is promised.
 */
static void announce(struct mdev *md, bool is_new)
{
	char note[256], first[HUMAN_LEN];
	struct reach r;
	unsigned said;
	int adopt_cache = -1;

	note_algos(md, &adopt_cache);
	/* adopt's temporary device, and its own device between reset and setup, are not the
	 * admin's to fix: said at a later tick, once adopt is over */
	if (adopting(md, &adopt_cache)) {
		md->reach_said = 0;
		return;
	}
	reach_of(&md->dev, md->cfg.writeback, &r);
	said = 1 + (unsigned)r.limit * 2 + r.writeback;
	if (!is_new && said == md->reach_said)
		return;
	md->reach_said = said;
	reach_log(md->m->root_fd, &md->dev, &r);
	if (reach_pass(&r))
		log_info("%s: %s (initialized%s), first pass in %s", md->dev.name,
			 is_new ? "managed" : "ready",
			 r.recompress ? "" : "; writeback and compaction only",
			 /* rounded up: never "in 0 s" for a pass a second away */
			 human_seconds(
				 first, sizeof(first),
				 sat_add_u64(sat_sub_u64(md->pol.next_due_ns, now_monotonic_ns()),
					     UINT64_C(999999999)) /
					 UINT64_C(1000000000)));
	else if (r.limit == REACH_NOT_INITIALIZED)
		log_info("%s: managed (not initialized): passes start once zram setup gives it "
			 "a disksize",
			 md->dev.name);
	else
		log_info("%s: managed (%s): no pass; watched for a new setup", md->dev.name,
			 md->dev.initialized ? "initialized" : "not initialized");
	if (!r.recompress)
		return;
	if (md->cfg.cold_idle_age_sec &&
	    (!md->dev.caps.priority || md->dev.recomp.count < md->cfg.cold_priority))
		log_notice("%s: cold tier off: it needs recompress priority= (Linux 6.12+) and at "
			   "least %u secondary algorithms (the device has %u)",
			   md->dev.name, md->cfg.cold_priority, md->dev.recomp.count);
	if (md->dev.recomp.count && config_priority_note(&md->cfg, md->dev.recomp.count,
							 md->dev.caps.priority, note, sizeof(note)))
		log_warning("%s: %s", md->dev.name, note);
}

/* The devices the configuration names that are not there: once per change of the list. */
static void note_absent(struct manager *m, const unsigned *ids, int n)
{
	char note[256];
	uint64_t sig = 0;

	if (config_absent_note(&m->cfg, ids, (unsigned)n, note, sizeof(note)))
		for (const char *p = note; *p; p++) /* FNV-1a */
			sig = (sig ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
	if (sig && sig != m->absent_sig)
		log_notice("%s: no such device; managed when it appears", note);
	m->absent_sig = sig;
}

/* Why a device could not be read when found: a notice when it went away meanwhile. */
static void log_unreadable(unsigned id, int r)
{
	if (r == -ENODEV || r == -ENOENT)
		log_notice("zram%u: removed while being probed (hot_remove by another tool?); "
			   "ignoring it",
			   id);
	else
		log_warning("zram%u: cannot read the device (%s), ignoring", id, strerror(-r));
}

/*
 * Whether device id has no rule in the sandbox set up at start (hot-added, or removed and
 * added again, since): Landlock cannot add one, so the daemon ends with its state saved
 * and MANAGER_EXIT_RESTART, which the unit restarts it on. Returns 1 (ending), 0 (covered,
 * or not sandboxed), or -1 while an adopt runs: its temporary device comes and goes with
 * it, and is no reason to restart; the device is looked at again at a later rescan.
 */
static int restart_for(struct manager *m, unsigned id)
{
	if (!m->sandboxed || m->restart)
		return m->restart;
	/* gone (-ENOENT) or unreadable: the probe says so */
	if (sandbox_dev_covered(&m->sandbox_info, m->root_fd, id) != 0)
		return 0;
	if (adopt_running(m)) {
		log_debug("zram%u: appeared while adopt runs: left alone until it is done", id);
		return -1;
	}
	log_notice("zram%u: appeared after the sandbox was set up, which cannot be widened; "
		   "exiting with status %d to be restarted with it",
		   id, MANAGER_EXIT_RESTART);
	m->restart = true;
	m->stopping = true;
	__atomic_store_n(&m->stop_job, 1, __ATOMIC_RELAXED);
	(void)sd_notify(0, "STOPPING=1");
	(void)sd_event_exit(m->e, MANAGER_EXIT_RESTART);
	return 1;
}

/* The devices now: new ones probed and set up, gone ones dropped, and the existing ones
 * probed again: all of them, or only the one of id *only. */
static void rescan(struct manager *m, const unsigned *only)
{
	unsigned *ids = NULL;
	int n = sysfs_list_zram(m->root_fd, &ids);
	uint64_t now = now_monotonic_ns();

	if (n == -ENOENT)
		n = 0;
	if (n < 0) {
		/* Not "every device is gone": keep what is managed and look again later. */
		log_warning("/sys/block: cannot list the zram devices: %s", strerror(-n));
		arm_rescan(m);
		return;
	}
	drop_gone(m, ids, n);
	/* ids ascend (zram2 before zram10): every device is managed, in numeric order */
	note_absent(m, ids, n);
	for (int k = 0; k < n; k++) {
		struct mdev *md = manager_find_dev(m, ids[k]);
		bool is_new = !md;
		int r;

		if (!config_device_selected(&m->cfg, ids[k]))
			continue;
		/* a tick looks at its own device only: a device added again sends uevents */
		if (is_new || !only || *only == ids[k]) {
			int rs = restart_for(m, ids[k]);

			if (rs > 0)
				break;
			if (rs < 0)
				continue;
		}
		if (md && !md->timer)
			continue; /* dropped, waiting for its job */
		if (!md && !(md = new_dev(m, ids[k], now))) {
			log_warning("zram%u: out of memory; not managed", ids[k]);
			continue;
		}
		/*
		 * Never probe a device whose pass runs: from 7.0 a recompress write holds the
		 * device lock exclusively and mm_stat, comp_algorithm ... would block the event
		 * loop (and the watchdog) until it returns. Its figures come with the job.
		 */
		if (md->busy || (!is_new && only && *only != ids[k]))
			continue;
		r = refresh_dev(m, md, is_new);
		if (r < 0 && is_new) {
			log_unreadable(ids[k], r);
			manager_release_dev(md);
		} else if (r >= 0 && is_new) {
			announce(md, true);
			manager_arm(md, md->pol.next_due_ns);
		} else if (r >= 0) {
			announce(md, false);
		}
	}
	free(ids);
	arm_rescan(m);
}

void manager_rescan(struct manager *m)
{
	rescan(m, NULL);
}

void manager_rescan_dev(struct manager *m, unsigned id)
{
	rescan(m, &id);
}

static int on_rescan(sd_event_source *s, uint64_t usec, void *userdata)
{
	manager_rescan(userdata);
	return 0;
}

/* Kernel uevents: any add/remove/change of a zram block device triggers a rescan. */
int manager_on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	char buf[8192];
	bool zram = false;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		/* header "ACTION@DEVPATH"; only the header is looked at */
		if (strstr(buf, "/block/zram"))
			zram = true;
	}
	if (zram)
		manager_rescan(m);
	return 0;
}

int manager_open_uevent(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1 /* kernel */};
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}
