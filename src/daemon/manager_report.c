// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's account of a finished pass (manager_internal.h): what the policy learns from
 * it, and the log lines that are not the pass line itself (also what a reload cannot change
 * under the sandbox). manager.c calls this file, never the other way.
 */
#include "manager_internal.h"

#include "human.h"
#include "manager.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The outcome of an advice refresh (recompress-algorithms = auto). */
void manager_report_advice(struct mdev *md, const struct job *j)
{
	char chain[128], sv[HUMAN_LEN], pl[HUMAN_LEN];

	if (j->advise_r == 1) {
		(void)advice_format_chain(&j->advice, chain, sizeof(chain));
		log_info("%s: advice refreshed from %" PRIu64 " pages: %s (predicted to save %s of "
			 "%s); applied when the device is next set up",
			 md->dev.name, j->advice.samples, chain,
			 human_bytes(sv, sizeof(sv), j->advice.saving),
			 human_bytes(pl, sizeof(pl), j->advice.pool));
	} else if (j->advise_r == -EAGAIN) {
		log_debug("%s: advice refresh waits for %" PRIu64 " compressed pages", md->dev.name,
			  j->cfg.advise_samples);
	} else if (j->advise_r < 0) {
		/* Retried an interval later, not at every pass. */
		md->advise_retry_ns = sat_add_u64(now_monotonic_ns(),
						  sat_mul_u64(j->cfg.advise_interval_sec,
							      UINT64_C(1000000000)));
		log_warning("%s: recompress-algorithms = auto: advice refresh failed: %s (it reads "
			    "/dev/%s; retried in %s)",
			    md->dev.name, strerror(-j->advise_r), md->dev.name,
			    human_seconds(sv, sizeof(sv), j->cfg.advise_interval_sec));
	}
}

/* --verbose: the pass's step lines as --once prints them, one debug line each. */
void manager_log_steps(const struct device_report *rep)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	pass_print_report(f, rep);
	pass_print_cpu(f, rep);
	if (fclose(f) != 0) {
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_debug("%s", line);
	free(buf);
}

/* Pages read a second from before's read mark to now (policy_burst_churn saw a second at
 * least, and a mark, before either caller logs it). */
static long double read_rate(const struct policy_dev *before, const struct policy_reads *now,
			     uint64_t now_ns)
{
	return (long double)(now->pages_read - before->read_mark.pages_read) /
	       ((long double)(now_ns - before->read_mark_ns) / 1e9L);
}

void manager_log_burst(const struct mdev *md, const struct policy_dev *before,
		       const struct policy_outcome *o, bool burst_young)
{
	const struct policy_dev *pd = &md->pol;
	char age[HUMAN_LEN];

	if (pd->burst_churn && !before->burst_churn && (before->burst || burst_young))
		log_info("%s: pages read back fast (%.0Lf a second, %" PRIu64 " stored): half of "
			 "them within idle-age-min-sec (%s), so no burst age",
			 md->dev.name, read_rate(before, &o->reads, o->end_ns),
			 o->reads.pages_stored,
			 human_seconds(age, sizeof(age), md->cfg.idle_age_min_sec));
	if (pd->burst != before->burst)
		log_info("%s: %s", md->dev.name,
			 before->burst ? "burst over: the idle age is the configured one again"
				       : "burst of swap-out: under memory pressure, pages count as "
					 "idle after burst-idle-age-sec while passes save memory");
}

void manager_log_look(const struct mdev *md, const struct policy_dev *before,
		      const struct policy_snapshot *s)
{
	if (!md->pol.burst_looked || before->burst_looked)
		return;
	log_info("%s: pages read back fast since the last pass (%.0Lf a second, %" PRIu64
		 " stored): looking again for %llu s before the burst age",
		 md->dev.name, read_rate(before, &s->reads, s->now_ns), s->reads.pages_stored,
		 POLICY_BURST_LOOK_NS / 1000000000ULL);
}

void manager_reads(const struct zram_dev *d, uint64_t sectors, uint64_t orig_bytes,
		   struct policy_reads *ret)
{
	*ret = (struct policy_reads){0};
	if (d->page_size < 512)
		return;
	ret->known = true;
	ret->pages_read = sectors / (d->page_size / 512);
	ret->pages_stored = orig_bytes / d->page_size;
}

/* What the policy learns from a finished pass (policy_pass_done). */
void manager_job_outcome(const struct job *j, const struct pass_summary *sum,
			struct policy_outcome *o)
{
	const struct device_report *rep = &j->rep;

	*o = (struct policy_outcome){
		.end_ns = j->end_ns,
		.error = j->r < 0,
		.huge_ran = sum->huge_ran,
		.huge_progress = sum->huge_progress,
		.cold_ran = j->plan.cold && rep->n_passes > 0,
		.kernel_ns = sum->kernel_ns,
		.pages_charged = sum->pages,
		.saved = sum->saved,
		.content_sig = rep->after.v[MM_HUGE_PAGES_SINCE],
		.ripen_sec = rep->ripen_sec,
		.idle_age_sec = rep->idle_marked ? rep->idle_age_sec : 0,
		.burst_young = rep->burst_young,
		.burst_aged = j->plan.burst_aged,
		/* 6.2-6.14 (the scan skips them 6.15+, include/policy.h) */
		.walk_decompresses = !j->dev.caps.prio_max_active,
	};
}

/*
 * The sandbox was set up at start for the paths of then: a reload cannot widen it (nor drop
 * it). Say so once per reload instead of failing with EACCES at every pass unexplained.
 */
void manager_sandbox_reload_check(struct manager *m)
{
	struct sandbox_spec spec;
	char dir[PATH_MAX];
	const char *base;

	if (m->cfg.sandbox != m->sandbox_wanted && !m->opts->no_sandbox)
		log_warning("sandbox = %s takes effect when zram-recompd is restarted",
			    m->cfg.sandbox ? "yes" : "no");
	if (!m->sandboxed)
		return;
	sandbox_spec_init(&spec, m->root_fd, true, NULL, NULL, dir);
	(void)sandbox_spec_add_backing(&spec, &m->cfg);
	for (unsigned i = 0; i < spec.n_files; i++) {
		bool known = false;

		for (unsigned j = 0; j < m->sandbox_n_backing; j++)
			known |= strcmp(spec.files[i], m->sandbox_backing[j]) == 0;
		if (!known)
			log_warning("backing-device %s: not in the sandbox set up at start; restart "
				    "zram-recompd to write it to backing_dev",
				    spec.files[i]);
	}
	if (!*m->cfg.metrics_file)
		return;
	if (metrics_split_path(m->cfg.metrics_file, dir, &base) < 0 ||
	    strcmp(dir, m->sandbox_metrics_dir) != 0)
		log_warning("metrics-file %s: its directory is outside the sandbox set up at start "
			    "(%s%s); restart zram-recompd to write it there",
			    m->cfg.metrics_file,
			    *m->sandbox_metrics_dir ? "metrics directory " : "no metrics directory",
			    m->sandbox_metrics_dir);
}
