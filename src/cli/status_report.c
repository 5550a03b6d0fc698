// SPDX-License-Identifier: GPL-2.0-or-later
/* The `status` command's report (text or JSON); the totals it shows come from state.c. */
#include "status_report.h"

#include "backing.h"
#include "blockstate.h"
#include "config_check.h"
#include "dict_apply.h"
#include "human.h"
#include "pass.h"
#include "reach.h"
#include "util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Effective ratio: what the data would take uncompressed over the memory the pool uses. */
static double ratio(const struct zram_mm_stat *mm)
{
	if (mm->v[MM_MEM_USED_TOTAL] == 0)
		return 0.0;
	return (double)mm->v[MM_ORIG_DATA_SIZE] / (double)mm->v[MM_MEM_USED_TOTAL];
}

static const struct dev_totals *totals_of(const struct state *st, const char *name)
{
	for (unsigned i = 0; st && i < st->n; i++)
		if (strcmp(st->dev[i].name, name) == 0)
			return &st->dev[i];
	return NULL;
}

static void json_strings(FILE *f, char (*v)[256], unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_print_string(f, v[i]);
	}
}

/* mm_stat, io_stat and bd_stat as JSON members (the kernel's counters). */
static void json_counters(FILE *f, const struct zram_dev *d)
{
	fputs(",\"mm_stat\":{", f);
	for (unsigned i = 0; i < MM_NR_FIELDS; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", mm_field_name(i), d->mm.v[i]);
	fputs("},\"io_stat\":", f);
	if (d->has_io_stat)
		fprintf(f,
			"{\"failed_reads\":%" PRIu64 ",\"failed_writes\":%" PRIu64
			",\"invalid_io\":%" PRIu64 ",\"notify_free\":%" PRIu64 "}",
			d->io_stat[0], d->io_stat[1], d->io_stat[2], d->io_stat[3]);
	else
		fputs("null", f);
	fputs(",\"bd_stat\":", f);
	if (d->has_bd_stat)
		fprintf(f,
			"{\"bd_count\":%" PRIu64 ",\"bd_reads\":%" PRIu64 ",\"bd_writes\":%" PRIu64
			"}",
			d->bd_stat[0], d->bd_stat[1], d->bd_stat[2]);
	else
		fputs("null", f);
}

static void json_caps(FILE *f, const struct zram_caps *c)
{
	fprintf(f,
		",\"capabilities\":{\"multi_comp\":%s,\"max_pages\":%s,\"priority\":%s,"
		"\"algorithm_params\":%s,\"idle_age\":%s,\"block_state\":%s,"
		"\"eagain_on_concurrent\":%s,\"prio_max_active\":%s,\"writeback\":%s,"
		"\"clears_idle\":%s,\"concurrent_blocks\":%s,\"one_priority_per_write\":%s}",
		c->multi_comp ? "true" : "false", c->max_pages ? "true" : "false",
		c->priority ? "true" : "false", c->algorithm_params ? "true" : "false",
		c->idle_age == TRI_YES	? "true"
		: c->idle_age == TRI_NO ? "false"
					: "null",
		c->block_state ? "true" : "false", c->eagain ? "true" : "false",
		c->prio_max_active ? "true" : "false", c->writeback ? "true" : "false",
		c->clears_idle ? "true" : "false", c->blocking_pp ? "true" : "false",
		c->single_prio ? "true" : "false");
}

static void json_totals(FILE *f, const struct dev_totals *t)
{
	fputs(",\"totals\":", f);
	if (t)
		fprintf(f,
			"{\"passes\":%" PRIu64 ",\"pages_attempted\":%" PRIu64
			",\"bytes_saved\":%" PRIu64 ",\"mem_freed\":%" PRIu64
			",\"incompressible\":%" PRIu64
			",\"kernel_seconds\":%.3f,\"errors\":%" PRIu64
			",\"last_pass_unix\":%" PRIu64 ",\"writeback_pages\":%" PRIu64
			",\"writeback_day_left_bytes\":%" PRIu64
			",\"writeback_day_at_unix\":%" PRIu64 "}",
			t->passes, t->pages_attempted, t->bytes_saved, t->mem_freed,
			t->incompressible, (double)t->kernel_ns / 1e9, t->errors, t->last_pass_unix,
			t->wb_pages, t->wb_day_left, t->wb_day_at);
	else
		fputs("null", f);
}

/* Writeback: the backing device and what backs it (null without CONFIG_ZRAM_WRITEBACK). */
static void json_writeback(FILE *f, int root_fd, const struct zram_dev *d)
{
	char what[CFG_PATH_MAX + 128];

	fputs(",\"writeback\":", f);
	if (!d->caps.writeback) {
		fputs("null", f);
		return;
	}
	fputs("{\"backing_dev\":", f);
	if (d->backing_dev[0])
		json_print_string(f, d->backing_dev);
	else
		fputs("null", f);
	/* what backs it: our file and dm-crypt, or a plain device (backing.h) */
	backing_describe(root_fd, d, what, sizeof(what));
	fputs(",\"backing\":", f);
	if (what[0])
		json_print_string(f, what);
	else
		fputs("null", f);
	/* bd_stat is the device's "bd_stat" member (json_counters), by the kernel's names */
	/* idle and huge_idle select by the access times in block_state, or are skipped */
	fprintf(f, ",\"idle_by_age\":%s", d->caps.block_state ? "true" : "false");
	fputc('}', f);
}

/* What zram-recompd does with the device, why it cannot recompress, the fix (reach.h). */
static void json_reach(FILE *f, const struct zram_dev *d, const struct reach *r, unsigned tools)
{
	static const char *const limit[] = {
		[REACH_OK] = "none",
		[REACH_NO_MULTI_COMP] = "no_multi_comp",
		[REACH_NOT_INITIALIZED] = "not_initialized",
		[REACH_NO_SECONDARY] = "no_secondary",
	};
	char fix[512];

	reach_fix(d, r->limit, tools, fix, sizeof(fix));
	fprintf(f, ",\"reach\":{\"recompress\":%s,\"writeback\":%s,\"limit\":\"%s\",\"why\":",
		r->recompress ? "true" : "false", r->writeback ? "true" : "false", limit[r->limit]);
	if (r->limit == REACH_OK)
		fputs("null", f);
	else
		json_print_string(f, reach_why(r->limit));
	fputs(",\"fix\":", f);
	if (*fix)
		json_print_string(f, fix);
	else
		fputs("null", f);
	fputs(",\"passes\":", f);
	json_print_string(f, reach_does(r));
	fputc('}', f);
}

/* What --once or adopt last gave the device's kernel (dict_apply.h's record), if anything. */
static bool dict_of(const struct zram_dev *d, struct dict_record *rec)
{
	char line[DICT_LINE_MAX];

	return dict_record_read(d->name, line, sizeof(line)) == 0 &&
	       dict_record_parse(line, rec) == 0;
}

/*
 * The device's pool per byte of its non-same pages (mem_used_total / (orig_data_size - same
 * pages)), the measured side of the prediction's pool-per-byte; -1 when it has none.
 */
static double dict_measured_per_byte(const struct zram_dev *d)
{
	uint64_t same = sat_mul_u64(d->mm.v[MM_SAME_PAGES], d->page_size);
	uint64_t stored = sat_sub_u64(d->mm.v[MM_ORIG_DATA_SIZE], same);

	if (!d->initialized || stored == 0)
		return -1;
	return (double)d->mm.v[MM_MEM_USED_TOTAL] / (double)stored;
}

static void json_dict(FILE *f, const struct zram_dev *d)
{
	double measured = dict_measured_per_byte(d);
	struct dict_record rec;
	bool first = true;

	fputs(",\"dictionary\":", f);
	if (!dict_of(d, &rec)) {
		fputs("null", f);
		return;
	}
	fputs("{\"priorities\":[", f);
	for (unsigned p = 1; p < DICT_NPRIO; p++)
		if (rec.applied & (1u << p)) {
			fprintf(f, "%s%u", first ? "" : ",", p);
			first = false;
		}
	fputs("],\"file\":", f);
	json_print_string(f, rec.file);
	fprintf(f, ",\"bytes\":%" PRIu64 ",\"id\":%" PRIu32 ",\"source\":\"%s\",\"prediction\":",
		rec.bytes, rec.id, rec.credential ? "credential" : "run");
	if (rec.pred.known)
		fprintf(f, "{\"recommended\":%s,\"net_percent\":%s,\"pool_per_byte\":%s}",
			rec.pred.recommend ? "true" : "false",
			rec.pred.net[0] ? rec.pred.net : "null",
			rec.pred.per_byte[0] ? rec.pred.per_byte : "null");
	else
		fputs("null", f);
	if (measured >= 0)
		fprintf(f, ",\"measured_pool_per_byte\":%.4f", measured);
	else
		fputs(",\"measured_pool_per_byte\":null", f);
	fputc('}', f);
}

static void print_text_dict(FILE *f, const struct zram_dev *d)
{
	double measured = dict_measured_per_byte(d);
	struct dict_record rec;

	if (!dict_of(d, &rec))
		return;
	fprintf(f,
		"  dictionary:     zstd at priority%s%s%s, %s (%" PRIu64 " bytes, id %" PRIu32
		", %s)%s\n",
		rec.applied & 2 ? " 1" : "", rec.applied & 4 ? " 2" : "",
		rec.applied & 8 ? " 3" : "", rec.file, rec.bytes, rec.id,
		rec.credential ? "encrypted credential" : "memory only",
		d->initialized ? "" : "; applies at disksize");
	if (rec.pred.known)
		fprintf(f, "  prediction:     %s by advise --dict, net saving %s%% of the pool\n",
			rec.pred.recommend ? "recommended" : "not recommended",
			rec.pred.net[0] ? rec.pred.net : "?");
	/* the result: the pool per byte of the pages stored, predicted with it and now */
	if (rec.pred.known && rec.pred.per_byte[0] && measured >= 0)
		fprintf(f,
			"  result:         pool %.4f per stored byte now, %s predicted with it\n",
			measured, rec.pred.per_byte);
}

static void print_json_dev(FILE *f, int root_fd, const struct kver *kv, const struct zram_dev *d,
			   const struct dev_totals *t, const struct reach *r, unsigned tools,
			   const char *note)
{
	const struct zram_caps *c = &d->caps;
	char why[8][256], sem[8][256];
	unsigned nwhy = zram_caps_explain(c, kv, why, 8);
	unsigned nsem = zram_caps_semantics(c, sem, 8);
	struct bs_counts bs;
	bool first = true;

	fprintf(f,
		"{\"name\":\"%s\",\"initialized\":%s,\"disksize\":%" PRIu64
		",\"page_size\":%" PRIu32 ",\"primary\":",
		d->name, d->initialized ? "true" : "false", d->disksize, d->page_size);
	json_print_string(f, zram_primary(d));
	fputs(",\"recomp_algorithms\":[", f);
	for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++) {
		if (!d->recomp.set[p])
			continue;
		fprintf(f, "%s", first ? "" : ",");
		json_print_string(f, d->recomp.name[p]);
		first = false;
	}
	fprintf(f,
		"],\"priority_gap\":%s,\"algorithms_differ\":", d->recomp.gap ? "true" : "false");
	if (*note)
		json_print_string(f, note);
	else
		fputs("null", f);
	json_counters(f, d);
	fprintf(f, ",\"ratio\":%.2f,\"block_state\":", ratio(&d->mm));
	if (d->initialized && c->block_state &&
	    blockstate_read(root_fd, d->id, &bs, NULL, NULL) == 0)
		fprintf(f,
			"{\"allocated\":%" PRIu64 ",\"same\":%" PRIu64 ",\"written_back\":%" PRIu64
			",\"huge\":%" PRIu64 ",\"idle\":%" PRIu64 ",\"recompressed\":%" PRIu64
			",\"incompressible\":%" PRIu64 "}",
			bs.allocated, bs.same, bs.written_back, bs.huge, bs.idle, bs.recompressed,
			bs.incompressible);
	else
		fputs("null", f);
	json_writeback(f, root_fd, d);
	json_caps(f, c);
	fputs(",\"missing\":[", f);
	json_strings(f, why, nwhy);
	fputs("],\"semantics\":[", f);
	json_strings(f, sem, nsem);
	fputc(']', f);
	json_totals(f, t);
	json_reach(f, d, r, tools);
	json_dict(f, d);
	fputs("}", f);
}

/* The writeback line of the text status: why there is none, or the backing device. */
static void print_text_writeback(FILE *f, const struct zram_dev *d)
{
	if (!d->caps.writeback)
		fprintf(f, "  writeback:      unsupported (kernel built without "
			   "CONFIG_ZRAM_WRITEBACK)\n");
	else if (!d->backing_dev[0])
		fprintf(f, "  writeback:      no backing device (writeback steps are skipped)\n");
	else if (d->has_bd_stat)
		fprintf(f,
			"  backing device: %s: %" PRIu64 " pages stored, %" PRIu64
			" written, %" PRIu64 " read back\n",
			d->backing_dev, zram_units_to_pages(d, d->bd_stat[0]),
			zram_units_to_pages(d, d->bd_stat[2]),
			zram_units_to_pages(d, d->bd_stat[1]));
	if (d->caps.writeback && d->backing_dev[0] && !d->caps.block_state)
		fprintf(f, "  writeback ages: unknown (no debugfs block_state): idle and huge_idle "
			   "writeback are skipped\n");
}

/* A device that is not recompressed: why, the fix, and what its passes do (reach.h). */
static void print_text_reach(FILE *f, const struct zram_dev *d, const struct reach *r,
			     unsigned tools)
{
	char fix[512];

	if (r->limit == REACH_OK || r->limit == REACH_NOT_INITIALIZED)
		return;
	reach_fix(d, r->limit, tools, fix, sizeof(fix));
	fprintf(f, "  recompression:  no: %s\n", reach_why(r->limit));
	if (*fix)
		fprintf(f, "  fix:            %s\n", fix);
	fprintf(f, "  passes:         %s\n", reach_rest(d, r));
}

/* An initialized device's figures: data, pages, writeback, I/O errors, slots. */
static void print_text_data(FILE *f, int root_fd, const struct zram_dev *d, bool wb_shown)
{
	char a[32], b[32], e[32];
	struct bs_counts bs;

	fprintf(f, "  data:           orig %s, compr %s, mem_used %s, ratio %.2f\n",
		human_bytes(a, sizeof(a), d->mm.v[MM_ORIG_DATA_SIZE]),
		human_bytes(b, sizeof(b), d->mm.v[MM_COMPR_DATA_SIZE]),
		human_bytes(e, sizeof(e), d->mm.v[MM_MEM_USED_TOTAL]), ratio(&d->mm));
	fprintf(f, "  pages:          huge %" PRIu64 ", same %" PRIu64 ", compacted %" PRIu64 "\n",
		d->mm.v[MM_HUGE_PAGES], d->mm.v[MM_SAME_PAGES], d->mm.v[MM_PAGES_COMPACTED]);
	/* only where writeback is asked for or set up: no noise where it is not */
	if (wb_shown)
		print_text_writeback(f, d);
	if (d->has_io_stat && (d->io_stat[0] || d->io_stat[1]))
		fprintf(f,
			"  I/O errors:     %" PRIu64 " failed reads, %" PRIu64 " failed writes\n",
			d->io_stat[0], d->io_stat[1]);
	if (d->caps.block_state && blockstate_read(root_fd, d->id, &bs, NULL, NULL) == 0) {
		fprintf(f,
			"  slots:          allocated %" PRIu64 ", idle %" PRIu64 ", huge %" PRIu64
			", same %" PRIu64 ", written back %" PRIu64 "\n",
			bs.allocated, bs.idle, bs.huge, bs.same, bs.written_back);
		fprintf(f, "  recompressed:   %" PRIu64 " pages\n", bs.recompressed);
		fprintf(f, "  incompressible: %" PRIu64 " pages\n", bs.incompressible);
	} else {
		fprintf(f,
			"  incompressible: unknown (no block_state; %" PRIu64
			" huge pages are candidates)\n",
			d->mm.v[MM_HUGE_PAGES]);
	}
}

/*
 * The state file's totals: what the daemon's passes and --once runs (not --dry-run) did
 * to the device since the state file was made.
 */
static void print_text_totals(FILE *f, const struct dev_totals *t)
{
	char a[HUMAN_LEN], b[HUMAN_LEN], k[HUMAN_LEN], ago[HUMAN_LEN + 24] = "";
	time_t now = time(NULL);
	uint64_t since;

	if (!t)
		return;
	/* whole minutes from a minute on; a clock set back since reads "0 s ago" */
	if (t->last_pass_unix && now > 0) {
		since = (uint64_t)now > t->last_pass_unix ? (uint64_t)now - t->last_pass_unix : 0;
		since -= since >= 60 ? since % 60 : 0;
		(void)snprintf(ago, sizeof(ago), ", the last %s ago",
			       human_duration(k, sizeof(k), since));
	}
	/* below a minute with its tenths, as the pass lines give it; above in h and min */
	if (t->kernel_ns < UINT64_C(60000000000))
		(void)snprintf(k, sizeof(k), "%.1f s", (double)t->kernel_ns / 1e9);
	else
		human_duration(k, sizeof(k), t->kernel_ns / UINT64_C(1000000000));
	fprintf(f,
		"  totals:         %" PRIu64
		" pass%s (daemon and --once)%s, saved %s, freed %s, %" PRIu64
		" pages became incompressible, %s in kernel writes, %" PRIu64 " error(s)\n",
		t->passes, t->passes == 1 ? "" : "es", ago,
		human_bytes(a, sizeof(a), t->bytes_saved), human_bytes(b, sizeof(b), t->mem_freed),
		t->incompressible, k, t->errors);
	if (t->wb_pages || t->wb_day_at)
		fprintf(f,
			"  writeback:      %" PRIu64 " pages written back in all; day budget %s "
			"left at the last pass (refills over 24 h)\n",
			t->wb_pages, human_bytes(a, sizeof(a), t->wb_day_left));
}

static void print_text_dev(FILE *f, int root_fd, const struct kver *kv, const struct zram_dev *d,
			   const struct dev_totals *t, bool wb_shown, const struct reach *r,
			   unsigned tools, const char *note)
{
	const struct zram_caps *c = &d->caps;
	char why[8][256], sem[8][256], a[HUMAN_LEN], caps[160];
	unsigned nwhy = zram_caps_explain(c, kv, why, 8);
	unsigned nsem = zram_caps_semantics(c, sem, 8);

	fprintf(f, "%s: %s, disksize %s, %" PRIu32 " KiB pages\n", d->name,
		d->initialized ? "initialized" : "not initialized",
		human_bytes(a, sizeof(a), d->disksize), d->page_size / 1024);
	/* Without MULTI_COMP the recompression line says it (and before 6.2, zram_caps_explain). */
	if (!c->multi_comp && kver_ge(kv, 6, 2, 0))
		nwhy = 0;
	print_text_reach(f, d, r, tools);
	fprintf(f, "  primary:        %s\n", *zram_primary(d) ? zram_primary(d) : "?");
	if (c->multi_comp) {
		fprintf(f, "  secondary:     ");
		if (d->recomp.count == 0)
			fprintf(f, " none");
		for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++)
			if (d->recomp.set[p])
				fprintf(f, " #%u %s", p, d->recomp.name[p]);
		fprintf(f, "%s\n", d->recomp.gap ? " (priority gap!)" : "");
	}
	if (*note)
		fprintf(f, "  configuration:  %s\n", note);
	print_text_dict(f, d);
	if (d->initialized)
		print_text_data(f, root_fd, d, wb_shown);
	if (d->backing_dev[0]) {
		char what[CFG_PATH_MAX + 128];

		backing_describe(root_fd, d, what, sizeof(what));
		fprintf(f, "  backing:        %s\n", what);
	}
	/* none (6.1: no recompression at all) is said by the "missing:" lines, not an empty list */
	(void)str_printf(
		caps, sizeof(caps), "%s%s%s%s%s%s%s%s", c->multi_comp ? " multi_comp" : "",
		c->max_pages ? " max_pages" : "", c->priority ? " priority" : "",
		c->algorithm_params ? " algorithm_params" : "",
		c->idle_age == TRI_YES ? " idle_age" : "", c->block_state ? " block_state" : "",
		c->eagain ? " eagain_on_concurrent" : "", c->writeback ? " writeback" : "");
	if (*caps)
		fprintf(f, "  capabilities:  %s\n", caps);
	for (unsigned i = 0; i < nwhy; i++)
		fprintf(f, "  missing:        %s\n", why[i]);
	for (unsigned i = 0; i < nsem; i++)
		fprintf(f, "  kernel:         %s\n", sem[i]);
	print_text_totals(f, t);
}

/* What cfg asks of device d that status shows: writeback, and a list it does not run. */
static bool dev_conf(const struct config *cfg, const struct zram_dev *d, char *note, size_t size)
{
	struct dev_config dc;

	config_effective(cfg, d->id, &dc);
	note[0] = '\0';
	if (d->initialized && d->caps.multi_comp)
		(void)config_algos_note(&dc, d->name, &d->recomp, &d->comp, note, size);
	return dc.writeback;
}

void status_print(FILE *f, int root_fd, const struct kver *kv, const char *release,
		  const struct zram_dev *devs, unsigned n, bool json, const struct state *st,
		  const struct config *cfg)
{
	char note[512];
	unsigned tools = 0;
	struct reach r;
	struct stat stt;

	/* The setup tools only matter for a fix, and are looked up only then. */
	for (unsigned i = 0; i < n; i++) {
		reach_of(&devs[i], dev_conf(cfg, &devs[i], note, sizeof(note)), &r);
		if (r.limit == REACH_NO_SECONDARY) {
			tools = reach_setup_tools(root_fd);
			break;
		}
	}
	if (json) {
		fputs("{\"version\":", f);
		json_print_string(f, VERSION);
		fputs(",\"kernel\":", f);
		json_print_string(f, release);
		fputs(",\"devices\":[", f);
		for (unsigned i = 0; i < n; i++) {
			if (i)
				fputc(',', f);
			reach_of(&devs[i], dev_conf(cfg, &devs[i], note, sizeof(note)), &r);
			print_json_dev(f, root_fd, kv, &devs[i], totals_of(st, devs[i].name), &r,
				       tools, note);
		}
		fputs("]}\n", f);
		return;
	}
	fprintf(f, "kernel %s\n", release);
	/* systemd's RuntimeDirectory= of zram-recompd.service: there while the unit runs */
	if (fstatat(root_fd, "run/zram-recompd/daemon", &stt, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(stt.st_mode))
		fprintf(f, "daemon: running (zram-recompd.service)\n");
	else
		fprintf(f, "daemon: not running (passes only from --once or its timer)\n");
	for (unsigned i = 0; i < n; i++) {
		bool wb = dev_conf(cfg, &devs[i], note, sizeof(note));

		reach_of(&devs[i], wb, &r);
		print_text_dev(f, root_fd, kv, &devs[i], totals_of(st, devs[i].name),
			       devs[i].backing_dev[0] || wb, &r, tools, note);
	}
}
