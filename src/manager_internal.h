/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_MANAGER_INTERNAL_H
#define ZRAM_RECOMPD_MANAGER_INTERNAL_H

/*
 * What manager.c (event loop, decisions, worker, signals) and manager_devices.c (finding,
 * probing and dropping devices, uevents) share. Not an interface: include/manager.h is.
 */

#include "config.h"
#include "history.h"
#include "sandbox.h"
#include "pass.h"
#include "policy.h"
#include "state.h"
#include "zram.h"
#include "advice_store.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <systemd/sd-event.h>

#define NS_PER_USEC UINT64_C(1000)

struct manager;

struct job {
	struct mdev *md;
	struct zram_dev dev;
	struct pass_plan plan;
	struct device_report rep;
	uint64_t start_ns, end_ns;
	int r;
	/* recompress-algorithms = auto: refresh the stored advice after the pass if due */
	bool advise;
	struct dev_config cfg; /* the device's configuration when queued (reload-safe copy) */
	int advise_r;	       /* advise_refresh(): 1 refreshed, 0 not due, -errno */
	struct advice_entry advice;
	uint64_t wb_reserved; /* writeback pages taken from the day budget before the pass */
};

/* One managed device. */
struct mdev {
	struct manager *m;
	bool used, busy;
	unsigned id;
	struct zram_dev dev;
	struct dev_config cfg;
	struct policy_dev pol;
	sd_event_source *timer;
	/*
	 * The single flight: at most one job per device exists. While it is queued or running
	 * (busy) the worker owns it: the event loop reads nothing of it; what outputs need
	 * from the last pass is copied below by finish_job().
	 */
	struct job job;
	bool has_last;
	int64_t last_saved;
	uint64_t last_end_ns;
	uint64_t last_incompressible; /* block_state 'n' pages after it; UINT64_MAX: unknown */
	uint64_t last_longest_write_ns; /* its longest recompress write */
	enum policy_verdict last_verdict;
	uint64_t advise_retry_ns; /* after a failed advice refresh: not before this */
	unsigned reach_said; /* what announce() said it can do (reach.h), + 1; 0: nothing yet */
};

struct manager {
	sd_event *e;
	const struct manager_opts *opts;
	int root_fd;
	struct config cfg;
	struct kver kv;
	char release[128];
	enum tri kconf;
	struct mdev devs[CFG_MAX_DEVICES];
	uint64_t used_mask; /* bit i: devs[i].used (mdev_in_use()) */

	/* worker thread: jobs in, finished jobs out through the eventfd */
	pthread_t worker;
	bool worker_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *queue[CFG_MAX_DEVICES];
	unsigned qlen;
	struct job *done[CFG_MAX_DEVICES];
	unsigned ndone;
	bool quit;
	int efd;
	/* set by SIGTERM (ends the daemon) or by CPU pressure (ends the current pass);
	 * __atomic accesses only: the event loop sets it while the worker reads it */
	volatile sig_atomic_t stop_job;
	/* duty cycle of the running pass (per mille), raised or lowered by pressure events;
	 * __atomic accesses (the worker reads it between writes) */
	volatile unsigned duty_permille;
	/* the worker's thread id (set once by the worker, __atomic) and its nice value now
	 * (under mu): the event loop renices it when memory pressure changes */
	pid_t worker_tid;
	int worker_nice;
	bool worker_nice_set;
	struct job *running; /* under mu: the job the worker runs, NULL when idle */
	bool stopping;

	int psi_mem_fd, psi_cpu_fd, uevent_fd;
	sd_event_source *rescan_timer; /* only while no device is managed */
	unsigned skipped_warned;       /* devices past CFG_MAX_DEVICES last warned about */
	struct history hist; /* totals and textfile; hist.dir_fd is read by the worker too */

	/* the Landlock sandbox set up at start (sandbox.h): fixed until the process ends */
	bool sandbox_wanted;		 /* sandbox = yes at start and no --no-sandbox */
	bool sandboxed;			 /* applied */
	char sandbox_metrics_dir[4096];	 /* the metrics directory it allows ("" none) */
	unsigned sandbox_n_backing;	 /* the backing devices it allows */
	char sandbox_backing[SANDBOX_MAX_FILES][CFG_PATH_MAX];
};

/* Arm (or re-arm) a device's timer for when_ns (monotonic). */
_Static_assert(CFG_MAX_DEVICES <= 64, "used_mask has a bit per device slot");

/*
 * Whether devs[i] is in use. Loops over the slots test this word instead of each slot's
 * used: a slot is 12 KiB, and the first read of a page of the (zeroed, static) manager made
 * it resident on the kernels measured: 64 pages, 256 KiB of USS for one device
 * (docs/performance.md, section 9).
 */
static inline bool mdev_in_use(const struct manager *m, unsigned i)
{
	return (m->used_mask >> i) & 1;
}

/* Slot md taken (used set) / given back (zeroed). */
static inline void mdev_claim(struct manager *m, struct mdev *md)
{
	md->m = m;
	md->used = true;
	m->used_mask |= UINT64_C(1) << (md - m->devs);
}

static inline void mdev_release(struct mdev *md)
{
	struct manager *m = md->m;

	memset(md, 0, sizeof(*md));
	if (m)
		m->used_mask &= ~(UINT64_C(1) << (md - m->devs));
}

void manager_arm(struct mdev *md, uint64_t when_ns);
int manager_on_timer(sd_event_source *src, uint64_t usec, void *userdata);
/* Find the zram devices now: new ones probed and set up, gone ones dropped. */
void manager_rescan(struct manager *m);
/* The uevent socket (NETLINK_KOBJECT_UEVENT), or -errno; its handler rescans. */
int manager_open_uevent(void);
int manager_on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata);

#endif
