// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a pass reports: the summary the daemon logs and adds to its totals, the per-step
 * lines --once prints (see include/pass.h).
 */
#include "pass.h"

#include "human.h"
#include "util.h"

#include <inttypes.h>
#include <string.h>

void pass_summarize(const struct device_report *rep, struct pass_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->kernel_ns = sat_add_u64(sat_add_u64(rep->idle_ns, rep->compact_ns), rep->wb.kernel_ns);
	/* written back before a reset: on the disk all the same (the day budget counts it) */
	s->wb_pages = rep->wb.pages;
	if (!rep->device_lost) {
		s->saved = (int64_t)(rep->saved_own > INT64_MAX ? INT64_MAX : rep->saved_own);
		s->freed = (int64_t)(rep->freed_own > INT64_MAX ? INT64_MAX : rep->freed_own);
	}
	for (unsigned i = 0; i < rep->n_passes; i++) {
		const struct pass_report *p = &rep->passes[i];

		s->pages = sat_add_u64(s->pages, p->pages_charged);
		s->kernel_ns = sat_add_u64(s->kernel_ns, p->kernel_ns);
		if (p->max_write_ns > s->max_write_ns)
			s->max_write_ns = p->max_write_ns;
		s->interrupted |= p->stop == STOP_SIGNAL;
		/* a huge step waiting after one that saved little (STOP_UNPAID) did not run:
		 * it must not make the type look exhausted until new huge pages land */
		if ((p->type == PASS_HUGE || p->type == PASS_HUGE_IDLE) && p->stop != STOP_UNPAID) {
			s->huge_ran = true;
			/*
			 * huge_delta is the raw count: under swap traffic swap-ins lower it
			 * too, and a huge type kept "making progress" that way ran its steps
			 * (and their block_state reads) at every pass of the 6.12 swap bench.
			 * compr_saved is already this pass's own share.
			 */
			s->huge_progress |= p->compr_saved > 0 ||
					    (p->huge_delta < 0 && !rep->others_wrote);
		}
	}
}

static const char *stop_name(enum batch_stop s)
{
	switch (s) {
	case STOP_NONE:
		return "-";
	case STOP_NO_PROGRESS:
		return "no progress";
	case STOP_BUDGET:
		return "page budget spent";
	case STOP_UNBATCHED:
		return "single write (no max_pages before 6.10)";
	case STOP_ERROR:
		return "error";
	case STOP_SIGNAL:
		return "interrupted";
	case STOP_NOTHING:
		return "nothing left to improve (skipped)";
	case STOP_ENOMEM:
		return "memory too short for the kernel (ENOMEM), retried later";
	case STOP_WALK:
		return "too few new idle pages to pay for decompressing the recompressed ones "
		       "(skipped)";
	case STOP_UNCHANGED:
		return "nothing written since every candidate failed at every priority (skipped)";
	case STOP_YOUNG:
		return "most pages are younger than the idle age, left to the pass when they have "
		       "aged (skipped)";
	case STOP_UNPAID:
		return "the last huge step saved under 1/64 of the pages it tried; waiting a few "
		       "passes (skipped)";
	}
	return "?";
}

/* One line per step. */
static void print_step(FILE *f, const char *name, const struct pass_report *p)
{
	char a[32], b[32], prio[16] = "";

	if (p->priority)
		(void)snprintf(prio, sizeof(prio), " #%u", p->priority);
	fprintf(f,
		"%s: pass %s%s: %u write%s, saved %s compressed, pool %s, huge pages %+" PRId64
		", %.3f s in kernel",
		name, pass_type_name(p->type), prio, p->commands, p->commands == 1 ? "" : "s",
		human_bytes_signed(a, sizeof(a), p->compr_saved),
		human_bytes_signed(b, sizeof(b), -p->mem_freed), p->huge_delta,
		(double)p->kernel_ns / 1e9);
	/* what max-write-ms bounds: how long one write kept the device busy */
	if (p->commands)
		fprintf(f, " (longest write %.3f s)", (double)p->max_write_ns / 1e9);
	fprintf(f, ", stop: %s%s", stop_name(p->stop), p->eagain ? " (EAGAIN retries)" : "");
	if (p->paced_ns)
		fprintf(f, ", paced %.3f s", (double)p->paced_ns / 1e9);
	if (p->enomem)
		fprintf(f, ", %u ENOMEM (batch halved)", p->enomem);
	if (p->compactions)
		fprintf(f, ", compacted %u time%s between writes (freed %s)", p->compactions,
			p->compactions == 1 ? "" : "s",
			human_bytes_signed(a, sizeof(a), p->compact_freed));
	if (p->unshrunk != UINT64_MAX && p->stop != STOP_NOTHING)
		fprintf(f, ", %" PRIu64 " page%s not shrunk%s", p->unshrunk,
			p->unshrunk == 1 ? "" : "s",
			p->unshrunk_retried ? " (not marked incompressible at this priority: "
					      "tried again next pass)"
					    : " (next priority tries them)");
	fputc('\n', f);
}

static const char *wb_stop_name(enum wb_stop s)
{
	switch (s) {
	case WB_DONE:
		return "done";
	case WB_BUDGET:
		return "budget spent (writeback_limit reached)";
	case WB_ERROR:
		return "error";
	case WB_SIGNAL:
		return "interrupted";
	case WB_NO_AGES:
		return "skipped (no block_state: page ages unknown)";
	}
	return "?";
}

static const char *wb_skip_name(enum wb_skip s)
{
	switch (s) {
	case WB_RAN:
		return "-";
	case WB_SKIP_NO_KERNEL:
		return "kernel without CONFIG_ZRAM_WRITEBACK";
	case WB_SKIP_NO_BACKING:
		return "no backing device";
	case WB_SKIP_BUDGET:
		return "budget spent";
	case WB_SKIP_STOPPED:
		return "not reached";
	case WB_SKIP_LIMIT:
		return "another writer's writeback_limit is 0";
	}
	return "?";
}

/* The writeback steps: one line each, then what they amount to. */
static void print_writeback(FILE *f, const struct device_report *rep)
{
	const struct wb_pass_report *w = &rep->wb;
	char a[32], b[32], c[32], d[32], t[HUMAN_LEN];

	if (!w->planned)
		return;
	if (w->skip != WB_RAN) {
		fprintf(f, "%s: writeback: skipped: %s\n", rep->name, wb_skip_name(w->skip));
		return;
	}
	for (unsigned i = 0; i < w->n; i++) {
		const struct wb_report *s = &w->steps[i];

		fprintf(f, "%s: writeback %s: %" PRIu64 " pages (%s), %.3f s in kernel, stop: %s",
			rep->name, wb_type_name(s->type), s->pages,
			human_bytes(a, sizeof(a), sat_mul_u64(s->pages, rep->page_size)),
			(double)s->kernel_ns / 1e9, wb_stop_name(s->stop));
		if (s->by_age && s->stop != WB_NO_AGES)
			fprintf(f,
				"; by age >= %s: %" PRIu64 " selected (%u writes), %" PRIu64
				" younger, %" PRIu64 " of unknown age (recompressed), %" PRIu64
				" over the budget",
				human_seconds(t, sizeof(t), s->age_sec), s->selected, s->writes,
				s->young, s->unknown, s->over_cap);
		fputc('\n', f);
	}
	fprintf(f,
		"%s: writeback: %" PRIu64 " pages (%s) written back, pool %s, budget left %s of "
		"%s",
		rep->name, w->pages, human_bytes(a, sizeof(a), sat_mul_u64(w->pages, rep->page_size)),
		human_bytes_signed(b, sizeof(b), -w->mem_freed),
		human_bytes(c, sizeof(c), sat_mul_u64(sat_sub_u64(w->budget_pages, w->pages), rep->page_size)),
		human_bytes(d, sizeof(d), sat_mul_u64(w->budget_pages, rep->page_size)));
	if (w->limited)
		fprintf(f, ", within another writer's writeback_limit of %" PRIu64 " pages",
			w->limit_pages);
	if (w->have_bd_stat)
		fprintf(f, ", bd_stat %" PRIu64 " %" PRIu64 " %" PRIu64, w->bd_stat[0], w->bd_stat[1],
			w->bd_stat[2]);
	fputc('\n', f);
}

/* The pass's totals, and what other writers did meanwhile. */
static void print_totals(FILE *f, const struct device_report *rep)
{
	char a[32], b[32], c[32], e[32], g[32];

	fprintf(f, "%s: total: compr_data_size %s -> %s, mem_used_total %s -> %s (freed %s)",
		rep->name, human_bytes(a, sizeof(a), rep->before.v[MM_COMPR_DATA_SIZE]),
		human_bytes(b, sizeof(b), rep->after.v[MM_COMPR_DATA_SIZE]),
		human_bytes(c, sizeof(c), rep->before.v[MM_MEM_USED_TOTAL]),
		human_bytes(e, sizeof(e), rep->after.v[MM_MEM_USED_TOTAL]),
		human_bytes_signed(g, sizeof(g),
				   -delta_i64(rep->before.v[MM_MEM_USED_TOTAL],
					      rep->after.v[MM_MEM_USED_TOTAL])));
	fprintf(f, ", huge pages %" PRIu64 " -> %" PRIu64, rep->before.v[MM_HUGE_PAGES],
		rep->after.v[MM_HUGE_PAGES]);
	if (rep->written_back > rep->wb.pages)
		fprintf(f,
			", %" PRIu64 " pages written back meanwhile by another writer (part of the "
			"change is writeback's)",
			rep->written_back - rep->wb.pages);
	if (rep->wb.pages)
		fprintf(f, ", %" PRIu64 " pages written back by this pass", rep->wb.pages);
	if (rep->others_wrote)
		fprintf(f,
			", other writers changed orig_data_size by %s: recompression saved %s, "
			"freed %s",
			human_bytes_signed(a, sizeof(a),
					   delta_i64(rep->before.v[MM_ORIG_DATA_SIZE],
						     rep->after.v[MM_ORIG_DATA_SIZE])),
			human_bytes(b, sizeof(b), rep->saved_own),
			human_bytes(c, sizeof(c), rep->freed_own));
	if (rep->have_block_state)
		fprintf(f,
			", recompressed %" PRIu64 " -> %" PRIu64 ", incompressible %" PRIu64
			" -> %" PRIu64 " (%s%" PRIu64 " new)\n",
			rep->recompressed_before, rep->recompressed_after,
			rep->incompressible_before, rep->incompressible_after,
			rep->new_incompressible_lower ? "at least " : "", rep->new_incompressible);
	else if (rep->blind)
		fprintf(f, " (block_state not read: a pass at the burst age)\n");
	else if (rep->end_unread)
		fprintf(f, ", incompressible %" PRIu64 " before (block_state not read after the "
			   "writes: memory pressure)\n",
			rep->incompressible_before);
	else
		fprintf(f, " (no block_state: pages still huge after the passes may be "
			   "incompressible)\n");
}

void pass_print_report(FILE *f, const struct device_report *rep)
{
	char a[HUMAN_LEN];

	if (rep->skipped || !rep->initialized)
		return;
	if (rep->device_lost) {
		fprintf(f,
			"%s: reset or removed during the pass; nothing is counted but the %" PRIu64
			" pages written back before\n",
			rep->name, rep->wb.pages);
		return;
	}
	if (rep->idle_marked) {
		if (rep->idle_age_sec)
			fprintf(f, "%s: idle: marked pages unused for more than %s\n", rep->name,
				human_seconds(a, sizeof(a), rep->idle_age_sec));
		else
			fprintf(f, "%s: idle: marked all pages\n", rep->name);
	}
	for (unsigned i = 0; i < rep->n_passes; i++)
		print_step(f, rep->name, &rep->passes[i]);
	print_writeback(f, rep);
	if (rep->compact_enomem)
		fprintf(f, "%s: compact: ENOMEM, left to the next pass\n", rep->name);
	if (rep->compacted)
		fprintf(f, "%s: compact: freed %s in %.6f s\n", rep->name,
			human_bytes_signed(a, sizeof(a), rep->compact_freed),
			(double)rep->compact_ns / 1e9);
	print_totals(f, rep);
}

void pass_print_cpu(FILE *f, const struct device_report *rep)
{
	const struct pass_cpu *c = &rep->cpu;

	if (rep->skipped || !rep->initialized || (!c->user_ns && !c->sys_ns))
		return;
	fprintf(f,
		"%s: cpu: %.3f s (user %.3f s; kernel: recompress %.3f s, idle marks %.3f s, "
		"block_state %.3f s, compact %.3f s, writeback %.3f s, other %.3f s)\n",
		rep->name, (double)sat_add_u64(c->user_ns, c->sys_ns) / 1e9, (double)c->user_ns / 1e9,
		(double)c->ns[PASS_CPU_RECOMPRESS] / 1e9, (double)c->ns[PASS_CPU_IDLE] / 1e9,
		(double)c->ns[PASS_CPU_BLOCK_STATE] / 1e9, (double)c->ns[PASS_CPU_COMPACT] / 1e9,
		(double)c->ns[PASS_CPU_WRITEBACK] / 1e9, (double)pass_cpu_other_sys(c) / 1e9);
}

uint64_t pass_incompressible_now(const struct device_report *rep)
{
	if (rep->have_block_state)
		return rep->incompressible_after;
	return rep->end_unread ? rep->incompressible_before : UINT64_MAX;
}
