/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_MANAGER_INTERNAL_H
#define ZRAM_RECOMPD_MANAGER_INTERNAL_H

/*
 * What manager.c (event loop, decisions, worker, signals) and manager_devices.c (finding,
 * probing and dropping devices, uevents) share. Not an interface: include/manager.h is.
 * manager.c calls manager_devices.c, never the other way: a device's timer event reaches
 * manager.c through the handler in struct manager (on_dev_timer).
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
#include <systemd/sd-event.h>

#define NS_PER_USEC UINT64_C(1000)

struct manager;

/* A pass of one device, allocated when it is queued and freed when it is finished. */
struct job {
	struct job *next; /* in the queue or the done list (under mu) */
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
	int lock_fd; /* the device's lock (devlock.h), shared: closed by the worker after it */
};

/* One managed device (allocated when found, freed when dropped and its job is done). */
struct mdev {
	struct manager *m;
	bool busy; /* job queued or running */
	unsigned id;
	struct zram_dev dev;
	struct dev_config cfg;
	struct policy_dev pol;
	sd_event_source *timer;
	/*
	 * The single flight: at most one job per device exists. While it is queued or running
	 * (busy) the worker owns it: the event loop reads nothing of it; what outputs need
	 * from the last pass is copied below by finish_job(), which frees it. Allocated per
	 * pass, not kept: 8 KiB a device between passes otherwise (docs/performance.md).
	 */
	struct job *job;
	bool has_last;
	int64_t last_saved;
	uint64_t last_end_ns;
	uint64_t last_incompressible;	/* block_state 'n' pages after it; UINT64_MAX: unknown */
	uint64_t last_longest_write_ns; /* its longest recompress write */
	enum policy_verdict last_verdict;
	uint64_t advise_retry_ns; /* after a failed advice refresh: not before this */
	unsigned reach_said; /* what announce() said it can do (reach.h), + 1; 0: nothing yet */
	uint64_t algos_sig;  /* hash of the secondaries' note announce() logged; 0: none */
	unsigned lock_said;  /* "adopt holds the lock" logged: bit 0 its own, bit 1 "adopt" */
};

struct manager {
	sd_event *e;
	const struct manager_opts *opts;
	int root_fd;
	struct config cfg;
	struct kver kv;
	char release[128];
	enum tri kconf;
	/* the managed devices in numeric order (any number: zram's ids are the only limit) */
	struct mdev **devs;
	unsigned n_devs, cap_devs;

	/* worker thread: jobs in, finished jobs out through the eventfd */
	pthread_t worker;
	bool worker_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *queue, **queue_tail; /* FIFO linked by job.next */
	struct job *done, **done_tail;
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

	/*
	 * What a device's timer calls: manager.c's handler (a pass due, or not yet). The device
	 * list (manager_devices.c) arms the timers and hands them this handler; it never calls
	 * into manager.c, whose event it is.
	 */
	sd_event_time_handler_t on_dev_timer;
	int psi_mem_fd, psi_cpu_fd, uevent_fd;
	sd_event_source *rescan_timer; /* only while no device is managed */
	bool lock_unavail_said;	       /* the device locks cannot be taken: logged once */
	uint64_t absent_sig;	       /* hash of the absent devices last named; 0 none */
	/* Status=: the configuration's first error and "; ", or "" */
	char cfg_note[600];
	/* the secondaries' names or levels have errors: none is written to a device */
	bool algos_invalid;
	struct history hist; /* totals and textfile; hist.dir_fd is read by the worker too */

	/* the Landlock sandbox set up at start (sandbox.h): fixed until the process ends */
	bool sandbox_wanted;		  /* sandbox = yes at start and no --no-sandbox */
	bool sandboxed;			  /* applied */
	struct sandbox_info sandbox_info; /* the zram devices it has a rule for */
	bool restart;			  /* ending with MANAGER_EXIT_RESTART */
	char sandbox_metrics_dir[4096];	  /* the metrics directory it allows ("" none) */
	unsigned sandbox_n_backing;	  /* the backing devices it allows */
	char sandbox_backing[SANDBOX_MAX_FILES][CFG_PATH_MAX];
};

/* Arm (or re-arm) a device's timer for when_ns (monotonic). */
void manager_arm(struct mdev *md, uint64_t when_ns);
/* The managed device with this id, or NULL. */
struct mdev *manager_find_dev(struct manager *m, unsigned id);
/* Device md no longer managed: out of the list and freed (its job must be finished). */
void manager_release_dev(struct mdev *md);
/* Find the zram devices now: new ones probed and set up, gone ones dropped, all probed. */
void manager_rescan(struct manager *m);
/*
 * The same, but of the devices managed already only device id is probed again: for its
 * timer (probing every device at every device's tick costs devices squared).
 */
void manager_rescan_dev(struct manager *m, unsigned id);
/*
 * The device lock id names (devlock.h: a device's, or DEVLOCK_ADOPT), shared, without
 * waiting. -EAGAIN: adopt holds it (logged once per hold): leave the device alone this round.
 * Otherwise 0, with *ret_fd the lock, or -1 where none can be taken: then the daemon goes on
 * unlocked (logged once, at debug), as without adopt.
 */
int manager_lock_dev(struct mdev *md, unsigned id, int *ret_fd);
/* The device's timer: true when adopt holds its lock (the timer armed an interval later). */
bool manager_tick_locked(struct mdev *md, int *ret_fd);
/*
 * After a load (start, reload): the errors of the secondaries' names and levels
 * (config_check_algos), each logged with FILE:LINE, and what follows; m->cfg_note for
 * Status=; then each setting this kernel cannot honour (config_check_effect), a warning. What each
 * device runs against the configuration is said again after it.
 */
void manager_check_config(struct manager *m, const struct config_files *files);
/* Status=: device md runs other secondaries than configured, as logged (config_algos_note). */
bool manager_algos_note(const struct mdev *md, char *buf, size_t size);
/* manager_report.c: the outcome of an advice refresh (recompress-algorithms = auto) */
void manager_report_advice(struct mdev *md, const struct job *j);
/*
 * After a reload: what the sandbox set up at start does not allow of the new configuration
 * (a metrics directory, a backing device), said once instead of an EACCES at every pass.
 */
void manager_sandbox_reload_check(struct manager *m);
/* --verbose: the pass's step lines as --once prints them, one debug line each */
void manager_log_steps(const struct device_report *rep);
/* what the policy learns from a finished pass (policy_pass_done) */
void manager_job_outcome(const struct job *j, const struct pass_summary *sum,
			 struct policy_outcome *o);
/* after policy_pass_done: a burst begun or over, or kept off by fast reads (before: the
 * device's policy state before it) */
void manager_log_burst(const struct mdev *md, const struct policy_dev *before,
		       const struct policy_outcome *o, bool burst_young);
/* The first look again of a burst pass (policy_burst_look), with the rate that asked for it. */
void manager_log_look(const struct mdev *md, const struct policy_dev *before,
		      const struct policy_snapshot *s);
/* sectors read (zram stat) and orig_data_size as pages of d's page size */
void manager_reads(const struct zram_dev *d, uint64_t sectors, uint64_t orig_bytes,
		   struct policy_reads *ret);
/* The uevent socket (NETLINK_KOBJECT_UEVENT), or -errno; its handler rescans. */
int manager_open_uevent(void);
int manager_on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata);

#endif
