// SPDX-License-Identifier: GPL-2.0-or-later
#include "manager.h"
#include "manager_internal.h"

#include "advice_store.h"
#include "advise.h"
#include "blockstate.h"
#include "devlock.h"
#include "host.h"
#include "human.h"
#include "log.h"
#include "reach.h"
#include "pass.h"
#include "policy.h"
#include "sandbox.h"
#include "state.h"
#include "sysfs.h"
#include "util.h"
#include "zram.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/netlink.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>


/* ---- worker ---- */

/*
 * The worker's nice value (caller holds mu).
 * Lowering it needs CAP_SYS_NICE or RLIMIT_NICE (the shipped unit: LimitNICE=+0); where
 * neither allows it the thread stays where it is, which is only slower.
 */
static void set_worker_nice(struct manager *m, int nice)
{
	pid_t tid = __atomic_load_n(&m->worker_tid, __ATOMIC_RELAXED);

	if (tid <= 0 || (m->worker_nice == nice && m->worker_nice_set))
		return;
	if (setpriority(PRIO_PROCESS, (id_t)tid, nice) == 0) {
		m->worker_nice = nice;
		m->worker_nice_set = true;
	}
}

/*
 * The event loop back at SCHED_OTHER and nice 0: the unit's Nice=10 and
 * CPUSchedulingPolicy=batch are meant for the kernel work, and the loop, which answers the
 * watchdog, signals and pressure triggers, does little. Left at them, it lost the CPU to
 * the worker (nice 0 at full memory pressure) and the workload: a 3 s watchdog expired
 * during a writeback pass in a loaded VM (7.3, the systemd VM's backing boot). Called after
 * the worker started, which keeps what the unit set; RLIMIT_NICE (LimitNICE=+0) allows
 * both without CAP_SYS_NICE. Linux applies both calls to the calling thread only.
 */
static int loop_priority(void)
{
	struct sched_param sp = {.sched_priority = 0};

	if (sched_getscheduler(0) == SCHED_BATCH && sched_setscheduler(0, SCHED_OTHER, &sp) < 0)
		return -errno;
	if (setpriority(PRIO_PROCESS, 0, 0) < 0)
		return -errno;
	return 0;
}

static void *worker_main(void *arg)
{
	struct manager *m = arg;

	/* Only the kernel work runs here, so only it gets the lower priority (the
	 * unit's Nice= applies to the event loop too). Per-thread nice on Linux; each job
	 * and each pressure change sets it from memory pressure (policy_worker_nice). */
	__atomic_store_n(&m->worker_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
	/* for top -H and ps -L: the thread whose CPU is the kernel work */
	(void)pthread_setname_np(pthread_self(), "recomp-worker");
	pthread_mutex_lock(&m->mu);
	set_worker_nice(m, POLICY_WORKER_NICE);
	pthread_mutex_unlock(&m->mu);
	for (;;) {
		struct job *j;
		struct pass_ctx ctx;

		pthread_mutex_lock(&m->mu);
		while (!m->queue && !m->quit)
			pthread_cond_wait(&m->cv, &m->mu);
		if (m->quit) {
			pthread_mutex_unlock(&m->mu);
			break;
		}
		j = m->queue;
		m->queue = j->next;
		if (!m->queue)
			m->queue_tail = &m->queue;
		j->next = NULL;
		__atomic_store_n(&m->stop_job, 0, __ATOMIC_RELAXED);
		m->running = j;
		__atomic_store_n(&m->duty_permille, j->plan.duty_permille ? j->plan.duty_permille : 1000,
				 __ATOMIC_RELAXED);
		set_worker_nice(m, j->plan.worker_nice);
		pthread_mutex_unlock(&m->mu);

		pass_ctx_init(&ctx, m->root_fd);
		ctx.stop = &m->stop_job;
		ctx.duty_permille = &m->duty_permille;
		ctx.state_fd = m->hist.dir_fd;
		j->start_ns = now_monotonic_ns();
		j->r = pass_execute(&ctx, &j->dev, &j->plan, &j->rep);
		j->end_ns = now_monotonic_ns();
		/*
		 * Reads advise-samples slots and compresses them: rare (advise-interval-sec),
		 * and not part of the pass's timing.
		 */
		if (j->advise && !__atomic_load_n(&m->stop_job, __ATOMIC_RELAXED))
			j->advise_r = advise_refresh(m->root_fd, m->hist.dir_fd, &j->dev, &j->cfg,
						     (uint64_t)time(NULL), &j->advice);
		devlock_release(&j->lock_fd); /* the device's kernel work is done */

#ifdef __GLIBC__
		/*
		 * Give back what the pass freed: the worker's malloc arena keeps freed chunks
		 * resident otherwise (measured on 1 M slots: USS 1.4 MiB between passes
		 * against 0.7 MiB before the first).
		 */
		(void)malloc_trim(0);
#endif
		pthread_mutex_lock(&m->mu);
		*m->done_tail = j;
		m->done_tail = &j->next;
		m->running = NULL;
		pthread_mutex_unlock(&m->mu);
		(void)eventfd_write(m->efd, 1);
	}
	return NULL;
}

static void enqueue(struct manager *m, struct job *j)
{
	pthread_mutex_lock(&m->mu);
	j->next = NULL;
	*m->queue_tail = j;
	m->queue_tail = &j->next;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

/* ---- status, accounting ---- */

static void notify_status(struct manager *m)
{
	char buf[1024] = "", note[512];
	size_t o = 0;
	uint64_t now = now_monotonic_ns();
	unsigned n = 0;

	for (unsigned i = 0; i < m->n_devs && o < sizeof(buf) - 96; i++) {
		struct mdev *md = m->devs[i];
		char saved[32], tag[128];
		struct reach r;

		if (!md->timer)
			continue;
		n++;
		/* Never a pass that will not run (reach.h): what it cannot do instead. */
		reach_of(&md->dev, md->cfg.writeback, &r);
		reach_tag(&r, md->dev.name, tag, sizeof(tag));
		if (!reach_pass(&r))
			(void)snprintf(buf + o, sizeof(buf) - o, "%s%s: %s", o ? "; " : "",
				       md->dev.name, tag);
		else if (md->has_last)
			(void)snprintf(
				buf + o, sizeof(buf) - o,
				"%s%s: last pass %" PRIu64 " s ago saved %s (longest write %" PRIu64
				" ms), next in %" PRIu64 " s",
				o ? "; " : "", md->dev.name,
				sat_sub_u64(now, md->last_end_ns) / UINT64_C(1000000000),
				human_bytes_signed(saved, sizeof(saved), md->last_saved),
				md->last_longest_write_ns / UINT64_C(1000000),
				sat_sub_u64(md->pol.next_due_ns, now) / UINT64_C(1000000000));
		else
			(void)snprintf(buf + o, sizeof(buf) - o,
				       "%s%s: first pass in %" PRIu64 " s", o ? "; " : "",
				       md->dev.name,
				       sat_sub_u64(md->pol.next_due_ns, now) / UINT64_C(1000000000));
		o = strlen(buf);
		if (reach_pass(&r) && !r.recompress)
			(void)snprintf(buf + o, sizeof(buf) - o, " (%s)", tag);
		o = strlen(buf);
		if (manager_algos_note(md, note, sizeof(note)))
			(void)snprintf(buf + o, sizeof(buf) - o, " (%s)", note);
		o = strlen(buf);
	}
	if (n == 0)
		(void)snprintf(buf, sizeof(buf), "no zram device to manage");
	(void)sd_notifyf(0, "STATUS=%s%s", m->cfg_note, buf);
}

static void write_outputs(struct manager *m)
{
	struct dev_live *live = NULL;
	unsigned n = 0;

	/* without memory for the live figures, the totals alone */
	if (*m->cfg.metrics_file)
		live = calloc(m->n_devs + 1, sizeof(*live));
	for (unsigned i = 0; i < m->n_devs && live; i++) {
		struct mdev *md = m->devs[i];

		if (!md->timer)
			continue;
		/* Never md->job: the worker may be filling it right now (queued or running). */
		dev_live_fill(&live[n], &md->dev,
			      md->has_last ? md->last_incompressible : UINT64_MAX);
		if (md->has_last)
			live[n].longest_write_ns = md->last_longest_write_ns;
		n++;
	}
	history_write(&m->hist, m->cfg.metrics_file, live, n);
	free(live);
}

static void finish_job(struct manager *m, struct job *j)
{
	struct mdev *md = j->md;
	const struct device_report *rep = &j->rep;
	struct policy_outcome o;
	struct pass_summary sum;
	char a[HUMAN_LEN], b[HUMAN_LEN], nx[HUMAN_LEN];
	struct policy_dev before;
	uint64_t sectors;
	bool had_last;

	md->busy = false;
	pass_summarize(rep, &sum);
	manager_job_outcome(j, &sum, &o);
	if (zram_read_sectors_read(m->root_fd, j->dev.id, &sectors) == 0)
		manager_reads(&j->dev, sectors, rep->after.v[MM_ORIG_DATA_SIZE], &o.reads);

	/* Totals first: a pass on a device removed meanwhile still happened. */
	history_add(&m->hist, j->dev.name, &sum, rep->new_incompressible, j->r < 0);
	if (rep->wb.planned || j->wb_reserved)
		history_wb_charge(&m->hist, j->dev.name, j->wb_reserved, sum.wb_pages,
				  j->dev.page_size, j->cfg.wb_bytes_per_day);
	md->job = NULL;
	if (!md->timer) {
		/* dropped while the job ran */
		free(j);
		manager_release_dev(md);
		return;
	}
	md->dev = j->dev;
	had_last = md->has_last;
	md->has_last = true;
	md->last_saved = sum.saved;
	md->last_end_ns = j->end_ns;
	/* a pass at the burst age reads no block_state: the last count stands */
	if (!rep->blind || !had_last)
		md->last_incompressible = pass_incompressible_now(rep);
	md->last_longest_write_ns = sum.max_write_ns;
	/* Only SIGTERM interrupts a pass now (CPU pressure paces it instead). */
	before = md->pol;
	policy_pass_done(&md->pol, &md->cfg, &o);
	if (j->advise)
		manager_report_advice(md, j);
	if (log_get_max_level() >= LOG_LVL_DEBUG)
		manager_log_steps(rep);
	log_pass(&(struct log_pass_fields){.device = md->dev.name,
					   .saved = sum.saved,
					   .freed = sum.freed,
					   .kernel_ns = sum.kernel_ns,
					   .longest_write_ns = sum.max_write_ns,
					   .failed = j->r < 0},
		 "%s: pass%s: %u step%s%s, saved %s, freed %s, %.3f s in kernel (longest write "
		 "%.3f s), %" PRIu64 " pages attempted, %" PRIu64 " written back%s; next in %s",
		 md->dev.name, sum.interrupted ? " (interrupted)" : "", rep->n_passes,
		 rep->n_passes == 1 ? "" : "s", o.cold_ran ? " (cold tier first)" : "",
		 human_bytes_signed(a, sizeof(a), sum.saved),
		 human_bytes_signed(b, sizeof(b), sum.freed), (double)sum.kernel_ns / 1e9,
		 (double)sum.max_write_ns / 1e9, sum.pages, sum.wb_pages,
		 j->r < 0 ? ", with errors" : "",
		 human_seconds(nx, sizeof(nx),
			       sat_sub_u64(md->pol.next_due_ns, now_monotonic_ns()) /
				       UINT64_C(1000000000)));
	/* what the pass found, after its line: the log reads in the order things happened */
	if (rep->ripen_sec && rep->ripen_sec != UINT64_MAX)
		log_info("%s: memory pressure: %" PRIu64 " pages are younger than the idle age of "
			 "%s, 90%% of them old enough in %s",
			 md->dev.name, rep->ripen_slots,
			 human_seconds(a, sizeof(a), rep->idle_age_sec),
			 human_seconds(nx, sizeof(nx), rep->ripen_sec));
	manager_log_burst(md, &before, &o, rep->burst_young);
	free(j);
	if (!m->stopping)
		manager_arm(md, md->pol.next_due_ns);
}

/*
 * The jobs the worker finished, then the state file, metrics and STATUS once for all of
 * them: with many devices due together a save per pass would rewrite (and fsync) a state
 * file of every device once per device.
 */
static void finish_jobs(struct manager *m, struct job *done)
{
	struct job *next;

	if (!done)
		return;
	for (; done; done = next) {
		next = done->next;
		finish_job(m, done);
	}
	write_outputs(m);
	notify_status(m);
}

static int on_done(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct job *done;
	eventfd_t v;

	(void)eventfd_read(fd, &v);
	pthread_mutex_lock(&m->mu);
	done = m->done;
	m->done = NULL;
	m->done_tail = &m->done;
	pthread_mutex_unlock(&m->mu);
	finish_jobs(m, done);
	return 0;
}

/* ---- decisions ---- */

static void snapshot(struct manager *m, struct mdev *md, struct policy_snapshot *s)
{
	uint64_t sectors;

	memset(s, 0, sizeof(*s));
	s->now_ns = now_monotonic_ns();
	s->suspended_ns = sat_sub_u64(now_boottime_ns(), s->now_ns);
	if (host_psi_some_avg10(m->root_fd, "cpu", &s->psi_cpu_some_avg10_x100) < 0)
		s->psi_cpu_some_avg10_x100 = -1;
	if (host_psi_some_avg10(m->root_fd, "memory", &s->psi_mem_some_avg10_x100) < 0)
		s->psi_mem_some_avg10_x100 = -1;
	s->on_battery = host_on_battery(m->root_fd);
	if (host_read_meminfo(m->root_fd, &s->mem_total, &s->mem_available) < 0)
		s->mem_total = s->mem_available = 0;
	s->content_sig = md->dev.mm.v[MM_HUGE_PAGES_SINCE];
	s->n_secondaries = md->dev.recomp.count;
	s->priority_supported = md->dev.caps.priority;
	s->page_size = md->dev.page_size;
	/* read here, not in every zram_probe: only the daemon's decisions use it */
	if (zram_read_sectors_read(m->root_fd, md->id, &sectors) == 0)
		manager_reads(&md->dev, sectors, md->dev.mm.v[MM_ORIG_DATA_SIZE], &s->reads);
	/* The day budget lives with the totals (state file): a restart does not reset it. */
	if (md->cfg.writeback) {
		bool persisted;

		s->wb_day_left = history_wb_day_left(&m->hist, md->dev.name,
						     md->cfg.wb_bytes_per_day,
						     md->cfg.wb_bytes_per_pass, &persisted);
	}
}

/* A pass due now, later, or not at all; a pass queued takes the lock *lk (devlock.h). */
static void tick(struct manager *m, unsigned id, int *lk)
{
	struct mdev *md;
	struct policy_snapshot s;
	struct policy_decision dec;
	struct policy_dev before;
	struct job *j;
	struct reach r;
	char nx[HUMAN_LEN];

	/* the rescan may drop (free) md: look it up again after */
	manager_rescan_dev(m, id);
	md = manager_find_dev(m, id);
	if (!md || !md->timer || md->busy)
		return;
	reach_of(&md->dev, md->cfg.writeback, &r);
	if (!reach_pass(&r)) {
		/* Nothing to do (said once: announce); look again an interval later. */
		md->pol.next_due_ns = sat_add_u64(now_monotonic_ns(),
						  sat_mul_u64(md->cfg.interval_sec, 1000000000ULL));
		manager_arm(md, md->pol.next_due_ns);
		notify_status(m);
		return;
	}
	snapshot(m, md, &s);
	before = md->pol;
	policy_decide(&md->pol, &md->cfg, &s, &dec);
	manager_log_look(md, &before, &s);
	if (dec.verdict != POLICY_RUN) {
		if (dec.verdict != md->last_verdict || dec.verdict != POLICY_WAIT)
			log_debug("%s: %s; next look in %s", md->dev.name,
				  policy_verdict_name(dec.verdict),
				  human_seconds(nx, sizeof(nx),
						sat_sub_u64(dec.wake_ns, s.now_ns) /
							UINT64_C(1000000000)));
		md->last_verdict = dec.verdict;
		md->pol.next_due_ns = dec.wake_ns > md->pol.next_due_ns ? dec.wake_ns
									  : md->pol.next_due_ns;
		manager_arm(md, dec.wake_ns);
		if (dec.verdict != POLICY_WAIT)
			notify_status(m);
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		log_warning("%s: out of memory for a pass; next look in %s", md->dev.name,
			    human_seconds(nx, sizeof(nx), md->cfg.interval_sec));
		md->pol.next_due_ns = sat_add_u64(s.now_ns,
						  sat_mul_u64(md->cfg.interval_sec, 1000000000ULL));
		manager_arm(md, md->pol.next_due_ns);
		return;
	}
	md->last_verdict = POLICY_RUN;
	j->md = md;
	j->dev = md->dev;
	j->plan = dec.plan;
	j->cfg = md->cfg;
	j->advise = md->cfg.algos_auto && md->cfg.advise_interval_sec > 0 &&
		    m->hist.dir_fd >= 0 && s.now_ns >= md->advise_retry_ns;
	/* the pass's writeback budget leaves the day budget (state file) before any write */
	if (dec.plan.n_wb && md->dev.caps.writeback && md->dev.backing_dev[0])
		j->wb_reserved = history_wb_reserve(&m->hist, md->dev.name,
						    dec.plan.wb_budget_pages, md->dev.page_size,
						    md->cfg.wb_bytes_per_day);
	j->lock_fd = *lk;
	*lk = -1;
	md->job = j;
	md->busy = true;
	enqueue(m, j);
}

/* A device's timer (manager_arm): the device probed and a pass decided under its lock. */
static int on_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct mdev *md = userdata;
	int lk;

	if (!manager_tick_locked(md, &lk))
		tick(md->m, md->id, &lk);
	devlock_release(&lk);
	return 0;
}

static void repace(struct manager *m, const char *why);

static int on_memory_pressure(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	uint64_t now = now_monotonic_ns();

	if (revents & EPOLLERR) {
		log_warning("PSI memory trigger failed; memory pressure no longer watched");
		return sd_event_source_set_enabled(s, SD_EVENT_OFF);
	}
	repace(m, "memory pressure");
	for (unsigned i = 0; i < m->n_devs; i++) {
		struct mdev *md = m->devs[i];
		uint64_t before;

		if (!md->timer || md->busy)
			continue;
		before = md->pol.next_due_ns;
		policy_memory_pressure(&md->pol, now);
		if (md->pol.next_due_ns != before) {
			log_debug("%s: memory pressure: next pass brought forward", md->dev.name);
			manager_arm(md, md->pol.next_due_ns);
		}
	}
	return 0;
}

/*
 * A pressure trigger fired: the running pass's duty cycle follows the pressure now, not only
 * at its next batch decision (policy_pace_permille: a busy CPU paces the pass, memory
 * pressure raises its share again). Host figures only: the device is not read here.
 */
static void repace(struct manager *m, const char *why)
{
	struct policy_snapshot s;
	struct job *j;
	unsigned old = 0, duty;
	int nice, old_nice = 0, new_nice = 0;
	bool changed = false;

	/*
	 * Only this thread (the event loop) enqueues jobs, so the job stays as it is after the
	 * lock is dropped; the host is read without holding the lock the worker waits on.
	 * Of the job only what the worker never writes is read (md, cfg); the device's name
	 * comes from md, which only this thread writes.
	 */
	pthread_mutex_lock(&m->mu);
	j = m->running;
	pthread_mutex_unlock(&m->mu);
	if (!j)
		return;
	snapshot(m, j->md, &s);
	duty = policy_pace_permille(&j->cfg, &s);
	nice = policy_worker_nice(&s);
	pthread_mutex_lock(&m->mu);
	if (m->running == j) {
		old = __atomic_exchange_n(&m->duty_permille, duty, __ATOMIC_RELAXED);
		old_nice = m->worker_nice;
		set_worker_nice(m, nice);
		new_nice = m->worker_nice;
		changed = duty != old || new_nice != old_nice;
	}
	pthread_mutex_unlock(&m->mu);
	/*
	 * Name the inputs, not only the trigger that fired: a memory trigger can find the CPU
	 * busy and lower the duty, which is then the CPU's doing (memory pressure only raises).
	 */
	if (changed) {
		unsigned mp = policy_memory_pressure_permille(&s);

		log_info("%s: %s trigger: CPU %s (PSI cpu some avg10 %d.%02d%%), memory pressure "
			 "%u.%u%%: the running pass now takes up to %u.%u%% of the time in kernel "
			 "writes at nice %d (was %u.%u%% at nice %d)",
			 j->md->dev.name, why, duty < 1000 ? "busy" : "not busy",
			 s.psi_cpu_some_avg10_x100 < 0 ? 0 : s.psi_cpu_some_avg10_x100 / 100,
			 s.psi_cpu_some_avg10_x100 < 0 ? 0 : s.psi_cpu_some_avg10_x100 % 100,
			 mp / 10, mp % 10, duty / 10, duty % 10, new_nice, old / 10, old % 10,
			 old_nice);
	}
}

static int on_cpu_pressure(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;

	if (revents & EPOLLERR)
		return sd_event_source_set_enabled(s, SD_EVENT_OFF);
	/* Pace the running pass instead of ending it (memory may be short right now). */
	repace(m, "CPU pressure");
	return 0;
}

/* ---- signals, reload ---- */

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;

	(void)sd_notify(0, "STOPPING=1");
	log_info("stopping (signal %u)", si->ssi_signo);
	m->stopping = true;
	__atomic_store_n(&m->stop_job, 1, __ATOMIC_RELAXED);
	return sd_event_exit(m->e, 0);
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;
	struct config next;
	struct config_errors errs = { 0 };
	struct config_files files;
	int r;

	(void)sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
			 now_monotonic_ns() / NS_PER_USEC);
	r = config_load(&next, m->opts->config_src, &files, &errs);
	for (unsigned i = 0; i < errs.n_warn; i++)
		log_warning("%s", errs.warn[i]);
	if (r < 0 || errs.n) {
		for (unsigned i = 0; i < errs.n; i++)
			log_error("%s", errs.msg[i]);
		log_error("reload: configuration invalid; keeping the previous one");
		config_free(&next);
	} else {
		config_free(&m->cfg);
		m->cfg = next; /* takes over what next owns */
		for (unsigned i = 0; i < m->n_devs; i++) {
			struct mdev *md = m->devs[i];
			uint64_t old_interval;

			old_interval = md->cfg.interval_sec;
			config_effective(&m->cfg, md->id, &md->cfg);
			if (md->cfg.interval_sec != old_interval && !md->busy && md->timer) {
				md->pol.next_due_ns = sat_add_u64(
					now_monotonic_ns(),
					sat_mul_u64(md->cfg.interval_sec, 1000000000ULL));
				manager_arm(md, md->pol.next_due_ns);
			}
		}
		log_info("configuration reloaded");
		manager_check_config(m, &files);
		manager_sandbox_reload_check(m);
		manager_rescan(m);
	}
	config_files_free(&files);
	(void)sd_notify(0, "READY=1");
	notify_status(m);
	return 0;
}

/* Signals, the watchdog and the worker's completion eventfd: without them no daemon. */
static int add_core_sources(struct manager *m)
{
	sigset_t ss;
	int r;

	/* Writes go to files and sockets only; never die of a closed pipe. */
	(void)signal(SIGPIPE, SIG_IGN);
	/* Block the signals before any thread exists: the worker inherits the mask. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0) {
		log_error("sigprocmask: %m");
		return -errno;
	}
	r = sd_event_default(&m->e);
	if (r < 0) {
		log_error("sd_event_default: %s", strerror(-r));
		return r;
	}
	if ((r = sd_event_add_signal(m->e, NULL, SIGTERM, on_term, m)) < 0 ||
	    (r = sd_event_add_signal(m->e, NULL, SIGINT, on_term, m)) < 0 ||
	    (r = sd_event_add_signal(m->e, NULL, SIGHUP, on_hup, m)) < 0) {
		log_error("signal sources: %s", strerror(-r));
		return r;
	}
	r = sd_event_set_watchdog(m->e, true);
	if (r < 0)
		log_warning("watchdog: %s", strerror(-r));
	m->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->efd < 0 || sd_event_add_io(m->e, NULL, m->efd, EPOLLIN, on_done, m) < 0) {
		log_error("eventfd: %m");
		return -EIO;
	}
	return 0;
}

/* PSI triggers and kernel uevents: the daemon works without them, less promptly. */
static void add_optional_sources(struct manager *m)
{
	int r;

	if (m->cfg.global.memory_stall_us) {
		/* A 2 s window: without CAP_SYS_RESOURCE (the unit grants no capabilities)
		 * the kernel accepts only windows that are multiples of 2 s. */
		r = host_psi_trigger(m->root_fd, "memory",
				      (unsigned)m->cfg.global.memory_stall_us * 2, 2000000,
				      &m->psi_mem_fd);
		if (r < 0)
			log_notice("PSI memory trigger unavailable (%s): passes follow their timers "
				   "only",
				   strerror(-r));
		else
			(void)sd_event_add_io(m->e, NULL, m->psi_mem_fd, EPOLLPRI, on_memory_pressure,
					      m);
	}
	if (m->cfg.global.psi_cpu_max_percent) {
		/* The same share as the avg10 limit, over a 2 s window (see above). */
		r = host_psi_trigger(m->root_fd, "cpu",
				      (unsigned)m->cfg.global.psi_cpu_max_percent * 20000, 2000000,
				      &m->psi_cpu_fd);
		if (r < 0)
			log_debug("PSI cpu trigger unavailable (%s)", strerror(-r));
		else
			(void)sd_event_add_io(m->e, NULL, m->psi_cpu_fd, EPOLLPRI, on_cpu_pressure,
					      m);
	}
	m->uevent_fd = manager_open_uevent();
	if (m->uevent_fd < 0)
		log_notice("kernel uevents unavailable (%s): devices are rescanned at each pass",
			   strerror(-m->uevent_fd));
	else
		(void)sd_event_add_io(m->e, NULL, m->uevent_fd, EPOLLIN, manager_on_uevent, m);
}

/*
 * Landlock (sandbox.h): from here on writes go only to the zram attributes, the state
 * directory and the metrics file's directory. Before the worker starts: a restriction
 * covers the calling thread and the threads it creates later. note gets the end of the
 * "running" line.
 */
static void apply_sandbox(struct manager *m, char *note, size_t size)
{
	struct sandbox_spec spec;
	int r;

	m->sandbox_wanted = m->cfg.sandbox;
	if (m->opts->no_sandbox || !m->cfg.sandbox) {
		(void)snprintf(note, size, "; not sandboxed (%s)",
			       m->opts->no_sandbox ? "--no-sandbox" : "sandbox = no");
		return;
	}
	sandbox_spec_init(&spec, m->root_fd, true, m->hist.dir_fd >= 0 ? m->hist.dir : NULL,
			  m->cfg.metrics_file, m->sandbox_metrics_dir);
	if (spec.n_dirs == 0 || spec.dirs[spec.n_dirs - 1] != m->sandbox_metrics_dir)
		m->sandbox_metrics_dir[0] = '\0';
	if (sandbox_spec_add_backing(&spec, &m->cfg))
		log_warning("sandbox: more than %d backing devices; writing backing_dev with the "
			    "others fails (EACCES)",
			    SANDBOX_MAX_FILES);
	/* Kept for reloads: spec.files point into m->cfg, which a reload replaces. */
	for (unsigned i = 0; i < spec.n_files; i++)
		(void)str_printf(m->sandbox_backing[i], sizeof(m->sandbox_backing[i]), "%s",
				 spec.files[i]);
	m->sandbox_n_backing = spec.n_files;
	r = sandbox_apply(&spec, &m->sandbox_info);
	if (r == 0) {
		m->sandboxed = true;
		(void)snprintf(note, size, "; writes confined by Landlock (ABI %d)",
			       m->sandbox_info.abi);
	} else if (sandbox_unavailable(r)) {
		(void)snprintf(note, size, "; not sandboxed (Landlock unavailable: %s)",
			       strerror(-r));
	} else {
		log_warning("sandbox: cannot restrict writes with Landlock: %s; going on without",
			    strerror(-r));
		(void)snprintf(note, size, "; not sandboxed");
	}
}

/* The running pass ends after its current batch; what it did is still accounted. */
static void stop_worker(struct manager *m)
{
	if (!m->worker_started)
		return;
	pthread_mutex_lock(&m->mu);
	m->quit = true;
	__atomic_store_n(&m->stop_job, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->worker, NULL);
	finish_jobs(m, m->done);
	m->done = NULL;
	m->done_tail = &m->done;
	/* Queued jobs never ran: their writeback reservations go back to the day budget. */
	for (struct job *j = m->queue, *next; j; j = next) {
		next = j->next;
		if (j->wb_reserved)
			history_wb_charge(&m->hist, j->dev.name, j->wb_reserved, 0,
					  j->dev.page_size, j->cfg.wb_bytes_per_day);
		devlock_release(&j->lock_fd);
		j->md->busy = false;
		j->md->job = NULL;
		free(j);
	}
	if (m->queue)
		write_outputs(m);
	m->queue = NULL;
	m->queue_tail = &m->queue;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Keep what passes allocate and free from staying resident between them (glibc). */
static void malloc_tune(void)
{
#ifdef __GLIBC__
	/*
	 * A fixed mmap threshold: block_state read buffers (256 KiB) and the pass's bitmaps
	 * (2 MiB each for 16 M slots) are mapped and unmapped with each pass. glibc's default
	 * raises the threshold after the first such free, and later ones then stay in the
	 * heap, resident, between passes.
	 */
	(void)mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	/*
	 * malloc_trim() after a pass gives back free chunks inside the worker's arena, but
	 * not its top: a thread arena only shrinks its top on a free that leaves it above the
	 * trim threshold (128 KiB by default), so what a pass freed last (its incompressible
	 * set, up to the mmap threshold) stayed resident: 96 KiB between passes on 1 M slots.
	 */
	(void)mallopt(M_TRIM_THRESHOLD, 16 * 1024);
	(void)mallopt(M_TOP_PAD, 0);
#endif
}

int manager_run(const struct manager_opts *opts, const struct config *cfg)
{
	static struct manager mgr;
	struct manager *m = &mgr;
	char note[96] = "";
	int r, ret = 1;

	malloc_tune();
	m->opts = opts;
	m->root_fd = opts->root_fd;
	m->on_dev_timer = on_timer;
	m->queue_tail = &m->queue;
	m->done_tail = &m->done;
	if (config_copy(&m->cfg, cfg) < 0) {
		log_error("out of memory");
		return 1;
	}
	m->efd = m->psi_mem_fd = m->psi_cpu_fd = m->uevent_fd = m->hist.dir_fd = -1;
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);

	r = host_read_kver(m->root_fd, &m->kv, m->release, sizeof(m->release));
	if (r < 0) {
		log_error("/proc/sys/kernel/osrelease: cannot read the kernel release: %s",
			  strerror(-r));
		return 1;
	}
	m->kconf = host_kconfig_idle_age(m->root_fd, &m->kv, m->release);
	history_open(&m->hist, m->cfg.metrics_file);
	if (add_core_sources(m) < 0)
		goto out;
	add_optional_sources(m);
	apply_sandbox(m, note, sizeof(note));
	r = pthread_create(&m->worker, NULL, worker_main, m);
	if (r != 0) {
		log_error("worker thread: %s", strerror(r));
		goto out;
	}
	m->worker_started = true;
	r = loop_priority();
	if (r < 0)
		log_debug("event loop: stays at the unit's priority: %s", strerror(-r));

	manager_check_config(m, opts->files);
	manager_rescan(m);
	log_info("zram-recompd %s running on Linux %s%s", VERSION, m->release, note);
	(void)sd_notify(0, "READY=1");
	notify_status(m);

	r = sd_event_loop(m->e);
	ret = r < 0 ? 1 : r;
out:
	stop_worker(m);
	while (m->n_devs)
		manager_release_dev(m->devs[m->n_devs - 1]);
	free(m->devs);
	m->devs = NULL;
	m->cap_devs = 0;
	config_free(&m->cfg);
	m->rescan_timer = sd_event_source_disable_unref(m->rescan_timer);
	m->e = sd_event_unref(m->e);
	close_fd(&m->efd);
	close_fd(&m->psi_mem_fd);
	close_fd(&m->psi_cpu_fd);
	close_fd(&m->uevent_fd);
	history_close(&m->hist);
	sandbox_info_free(&m->sandbox_info);
	return ret;
}
