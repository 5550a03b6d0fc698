// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The advisor's output on stdout (include/advise_internal.h): the text report, with the
 * commands and configuration lines that apply the recommendation, and the JSON object
 * documented in include/advise.h.
 */
#include "advise_internal.h"

#include "human.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void spec_str(const struct adv_engine *e, unsigned s, char *buf, size_t size)
{
	if (comp_format_spec(e->spec[s].algo, e->spec[s].level, buf, size) < 0)
		snprintf(buf, size, "?");
}

/* A level is only named when it is not the kernel's default. */
static bool level_given(const struct adv_spec *s)
{
	return comp_algo_has_level(s->algo) &&
	       comp_effective_level(s->algo, s->level) != comp_default_level(s->algo);
}

/* The saving of x over base, its sign and size right-aligned in width characters. */
static void print_saving(const struct adv_eval *base, const struct adv_eval *x, int width)
{
	char h[HUMAN_LEN], m[HUMAN_LEN + 1], p[HUMAN_LEN];
	int64_t v = adv_saving(base, x);

	/* A saving, as the column says: positive, and a loss negative, bytes and share alike. */
	human_bytes(h, sizeof(h), v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	(void)snprintf(m, sizeof(m), "%s%s", v < 0 ? "-" : "", h);
	human_percent(p, sizeof(p), (double)v, (double)base->mem_bytes);
	printf("%*s (%s%s)", width, m, strlen(p) < 5 ? " " : "", p);
}

static void chain_str(const struct adv_engine *e, const struct adv_chain_eval *c, char *buf,
		      size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n && len < size; i++) {
		char s[32];

		spec_str(e, c->spec[i], s, sizeof(s));
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", s);
	}
	if (c->n == 0)
		snprintf(buf, size, "(none)");
}

/* "recompress-algorithms = zstd deflate" and "algorithm-params = 2:level=9" lines. */
static void config_lines(const struct adv_engine *e, const struct adv_chain_eval *c, char *algos,
			 size_t asize, char *params, size_t psize)
{
	size_t la = 0, lp = 0;

	algos[0] = params[0] = '\0';
	for (unsigned i = 0; i < c->n; i++) {
		const struct adv_spec *s = &e->spec[c->spec[i]];

		if (la < asize)
			la += (size_t)snprintf(algos + la, asize - la, "%s%s", i ? " " : "",
					       comp_algo_name(s->algo));
		if (level_given(s) && lp < psize)
			lp += (size_t)snprintf(params + lp, psize - lp, "%s%u:level=%d",
					       lp ? " " : "", i + 1,
					       comp_effective_level(s->algo, s->level));
	}
}

/* ---------------------------------------------------------------- text */

/* What was read, and what the figures stand for. */
static void text_source(const struct adv_source *src, const struct adv_opts *o,
			const struct adv_report *rp)
{
	if (src->device)
		printf("%s: %" PRIu64 " pages stored, %" PRIu64 " same-filled, %" PRIu64
		       " written back\n",
		       src->name, src->pages, src->same_pages, src->wb_pages);
	else
		printf("%s: %" PRIu64 " pages, %" PRIu64 " same-filled\n", src->name, src->pages,
		       src->same_pages);
	if (src->sampling)
		printf("sampled %" PRIu64 " compressed pages%s (%" PRIu64
		       " read); figures are scaled "
		       "to the %" PRIu64 " compressed pages of the %s (x%.2f)\n",
		       src->sampled,
		       src->block_state ? " among the stored slots of block_state" : "", src->read,
		       src->represented, src->device ? "device" : "file", rp->scale);
	if (src->device)
		printf("note: reading a slot marks it accessed (clears its idle mark)\n");
	if (src->device && !o->chain_set)
		printf("note: secondary levels are not readable (algorithm_params is write-only); "
		       "kernel defaults assumed\n");
	if (o->threshold)
		printf("threshold: %u bytes\n", o->threshold);
}

/* The primary's prediction, and the device's figures now. */
static void text_primary(const struct adv_engine *e, const struct adv_source *src,
			 const struct adv_report *rp)
{
	char s[64], h1[32], h2[32];

	spec_str(e, 0, s, sizeof(s));
	printf("primary %s: compr_data_size %s, mem_used_total after compaction %s, %" PRIu64
	       " huge pages\n",
	       s, human_bytes(h1, sizeof(h1), rp->primary.compr_bytes),
	       human_bytes(h2, sizeof(h2), rp->primary.mem_bytes), rp->primary.huge_pages);
	if (src->device && src->have_now)
		printf("  device now: compr_data_size %s, mem_used_total %s, %" PRIu64
		       " huge pages\n",
		       human_bytes(h1, sizeof(h1), src->now.v[MM_COMPR_DATA_SIZE]),
		       human_bytes(h2, sizeof(h2), src->now.v[MM_MEM_USED_TOTAL]),
		       src->now.v[MM_HUGE_PAGES]);
}

/* MB/s (10^6 bytes, as the JSON's compress_mb_s) in MiB/s, the unit of every size shown. */
static double mib_s(double mb_s)
{
	return mb_s * 1e6 / 1048576.0;
}

/* One row per candidate alone, the primary first: sizes and speeds in IEC units. */
static void text_table(const struct adv_engine *e, const struct adv_report *rp)
{
	char s[64], c[HUMAN_LEN], m[HUMAN_LEN];

	spec_str(e, 0, s, sizeof(s));
	printf("\n%-18s %15s %15s %19s %10s %10s %11s %12s\n", "candidate", "compr_data_size",
	       "mem_used_total", "mem saving", "improved", "incompr.", "comp MiB/s",
	       "decomp MiB/s");
	printf("%-18s %15s %15s %19s %10s %10s %11.1f %12.1f\n", s,
	       human_bytes(c, sizeof(c), rp->primary.compr_bytes),
	       human_bytes(m, sizeof(m), rp->primary.mem_bytes), "(primary)", "-", "-",
	       mib_s(adv_compress_mb_s(e, 0)), mib_s(adv_decompress_mb_s(e, 0)));
	for (unsigned i = 0; i < rp->ncand; i++) {
		const struct adv_eval *ev = &rp->cand[i];

		spec_str(e, rp->cand_spec[i], s, sizeof(s));
		printf("%-18s %15s %15s", s, human_bytes(c, sizeof(c), ev->compr_bytes),
		       human_bytes(m, sizeof(m), ev->mem_bytes));
		printf(" ");
		print_saving(&rp->primary, ev, 11);
		printf(" %10" PRIu64 " %10" PRIu64 " %11.1f %12.1f\n", ev->improved,
		       ev->incompressible, mib_s(adv_compress_mb_s(e, rp->cand_spec[i])),
		       mib_s(adv_decompress_mb_s(e, rp->cand_spec[i])));
	}
}

/* The chain the device (or --chain, or the configuration default) would use. */
static void text_chain(const struct adv_engine *e, const struct adv_source *src,
		       const struct adv_opts *o, const struct adv_report *rp)
{
	char ch[128], c[HUMAN_LEN], m[HUMAN_LEN];
	int64_t save;

	chain_str(e, &rp->chain, ch, sizeof(ch));
	printf("\nchain %s (%s): compr_data_size %s, mem_used_total %s", ch,
	       o->chain_set	 ? "--chain"
	       : src->chain_from ? src->chain_from
				 : "configuration default",
	       human_bytes(c, sizeof(c), rp->chain.ev.compr_bytes),
	       human_bytes(m, sizeof(m), rp->chain.ev.mem_bytes));
	save = adv_saving(&rp->primary, &rp->chain.ev);
	human_bytes(c, sizeof(c), save < 0 ? 0 - (uint64_t)save : (uint64_t)save);
	human_percent(m, sizeof(m), save < 0 ? -(double)save : (double)save,
		      (double)rp->primary.mem_bytes);
	printf(", %s %s (%s)%s", save < 0 ? "takes" : "saves", c, m, save < 0 ? " more" : "");
	printf(", %" PRIu64 " improved, %" PRIu64 " incompressible, ~%.1f s CPU\n",
	       rp->chain.ev.improved, rp->chain.ev.incompressible, rp->chain.ev.cpu_seconds);
}

/* The recommended chain as kernel commands and as configuration lines. */
static void text_apply(const struct adv_engine *e, const struct adv_report *rp)
{
	char algos[128], params[128];

	for (unsigned i = 0; i < rp->best.n; i++) {
		const struct adv_spec *sp = &e->spec[rp->best.spec[i]];

		printf("  echo 'algo=%s priority=%u' > recomp_algorithm", comp_algo_name(sp->algo),
		       i + 1);
		if (level_given(sp))
			printf("; echo 'priority=%u level=%d' > algorithm_params", i + 1,
			       comp_effective_level(sp->algo, sp->level));
		printf("\n");
	}
	config_lines(e, &rp->best, algos, sizeof(algos), params, sizeof(params));
	printf("  config: recompress-algorithms = %s\n", algos);
	if (params[0])
		printf("          algorithm-params = %s\n", params);
}

/* The given threshold, the one that pays, or what 1024 would do. */
static void text_threshold(const struct adv_opts *o, const struct adv_report *rp)
{
	int64_t best = adv_saving(&rp->primary, &rp->best.ev);
	char h[HUMAN_LEN], p[HUMAN_LEN], k[HUMAN_LEN];

	if (o->threshold) {
		printf("  threshold %u as given\n", o->threshold);
	} else if (rp->threshold) {
		human_bytes_signed(h, sizeof(h), adv_saving(&rp->primary, &rp->best_thr));
		printf("  threshold-bytes = %u pays: keeps %s of the saving for %s of the CPU "
		       "time\n",
		       rp->threshold, h,
		       human_percent(p, sizeof(p), rp->best_thr.cpu_seconds,
				     rp->best.ev.cpu_seconds));
	} else if (rp->probe_thr) {
		human_percent(k, sizeof(k), (double)adv_saving(&rp->primary, &rp->probe),
			      (double)best);
		printf("  no threshold: threshold=%u would keep %s of the saving for %s of "
		       "the CPU time\n",
		       rp->probe_thr, k,
		       human_percent(p, sizeof(p), rp->probe.cpu_seconds, rp->best.ev.cpu_seconds));
	}
}

static void text_recommendation(const struct adv_engine *e, const struct adv_opts *o,
				const struct adv_report *rp)
{
	int64_t save = adv_saving(&rp->primary, &rp->best.ev);
	char h[HUMAN_LEN], p[HUMAN_LEN], ch[128];

	printf("\nrecommendation: ");
	if (!rp->pays) {
		printf("%s\n", rp->reason);
		return;
	}
	chain_str(e, &rp->best, ch, sizeof(ch));
	printf("secondaries %s (%s); saves %s (%s) of pool memory after compaction, ~%.1f s "
	       "CPU\n",
	       ch, rp->reason, human_bytes_signed(h, sizeof(h), save),
	       human_percent(p, sizeof(p), (double)save, (double)rp->primary.mem_bytes),
	       rp->best.ev.cpu_seconds);
	text_apply(e, rp);
	if (rp->have_alt) {
		chain_str(e, &rp->alt, ch, sizeof(ch));
		human_bytes_signed(h, sizeof(h), adv_saving(&rp->primary, &rp->alt.ev));
		printf("  cheaper: %s saves %s for %s of the CPU time\n", ch, h,
		       human_percent(p, sizeof(p), rp->alt.ev.cpu_seconds,
				     rp->best.ev.cpu_seconds));
	}
	printf("  priorities must be contiguous from 1 (6.15+ marks every slot incompressible "
	       "after a gap)\n");
	text_threshold(o, rp);
	printf("  compact after recompressing: until then the freed space stays in partly used "
	       "zspages\n");
}

void adv_print_text(const struct adv_engine *e, const struct adv_source *src,
		    const struct adv_opts *o, const struct adv_report *rp)
{
	text_source(src, o, rp);
	text_primary(e, src, rp);
	text_table(e, rp);
	text_chain(e, src, o, rp);
	text_recommendation(e, o, rp);
	if (rp->dict)
		adv_dict_print_text(rp->dict);
}

/* ---------------------------------------------------------------- JSON */

static void json_level(const struct adv_spec *s)
{
	if (comp_algo_has_level(s->algo))
		printf("%d", comp_effective_level(s->algo, s->level));
	else
		printf("null");
}

static void json_candidates(const struct adv_engine *e, const struct adv_report *rp)
{
	for (unsigned i = 0; i < rp->ncand; i++) {
		unsigned sp = rp->cand_spec[i];
		const struct adv_eval *ev = &rp->cand[i];

		printf("%s{\"algo\":", i ? "," : "");
		json_print_string(stdout, comp_algo_name(e->spec[sp].algo));
		printf(",\"level\":");
		json_level(&e->spec[sp]);
		printf(",\"compr_bytes\":%" PRIu64 ",\"mem_bytes\":%" PRIu64
		       ",\"pages_improved\":%" PRIu64 ",\"pages_incompressible\":%" PRIu64
		       ",\"compress_mb_s\":%.1f,\"decompress_mb_s\":%.1f}",
		       ev->compr_bytes, ev->mem_bytes, ev->improved, ev->incompressible,
		       adv_compress_mb_s(e, sp), adv_decompress_mb_s(e, sp));
	}
}

/* [{"priority":1,"algo":"zstd","level":3},...] */
static void json_secondaries(const struct adv_engine *e, const struct adv_chain_eval *c)
{
	printf("[");
	for (unsigned i = 0; i < c->n; i++) {
		const struct adv_spec *sp = &e->spec[c->spec[i]];

		printf("%s{\"priority\":%u,\"algo\":", i ? "," : "", i + 1);
		json_print_string(stdout, comp_algo_name(sp->algo));
		printf(",\"level\":");
		json_level(sp);
		printf("}");
	}
	printf("]");
}

/* The "recommendation" object's members after "secondaries" and before "sampled_pages". */
static void json_recommended(const struct adv_engine *e, const struct adv_opts *o,
			     const struct adv_report *rp)
{
	char algos[128], params[128];

	printf(",\"threshold\":%u,", o->threshold ? o->threshold : rp->threshold);
	printf("\"mem_saving_bytes\":%" PRId64 ",\"compr_saving_bytes\":%" PRId64,
	       rp->pays ? adv_saving(&rp->primary, &rp->best.ev) : 0,
	       rp->pays ? (int64_t)rp->primary.compr_bytes - (int64_t)rp->best.ev.compr_bytes : 0);
	printf(",\"cpu_seconds\":%.2f", rp->pays ? rp->best.ev.cpu_seconds : 0.0);
	if (!rp->pays)
		return;
	config_lines(e, &rp->best, algos, sizeof(algos), params, sizeof(params));
	printf(",\"config\":{\"recompress-algorithms\":");
	json_print_string(stdout, algos);
	printf(",\"algorithm-params\":");
	json_print_string(stdout, params);
	printf("}");
	if (rp->have_alt) {
		printf(",\"alternative\":{\"secondaries\":");
		json_secondaries(e, &rp->alt);
		printf(",\"mem_saving_bytes\":%" PRId64 ",\"cpu_seconds\":%.2f}",
		       adv_saving(&rp->primary, &rp->alt.ev), rp->alt.ev.cpu_seconds);
	}
}

void adv_print_json(const struct adv_engine *e, const struct adv_source *src,
		    const struct adv_opts *o, const struct adv_report *rp)
{
	static const struct adv_chain_eval none;
	char s[64];

	printf("{\"pages\":%" PRIu64 ",\"same_pages\":%" PRIu64 ",\"primary\":{\"algo\":",
	       src->pages, src->same_pages);
	json_print_string(stdout, comp_algo_name(e->spec[0].algo));
	printf(",\"compr_bytes\":%" PRIu64 ",\"mem_bytes\":%" PRIu64 "},\"candidates\":[",
	       rp->primary.compr_bytes, rp->primary.mem_bytes);
	json_candidates(e, rp);
	printf("],\"chain\":{\"algos\":[");
	for (unsigned i = 0; i < rp->chain.n; i++) {
		spec_str(e, rp->chain.spec[i], s, sizeof(s));
		printf("%s", i ? "," : "");
		json_print_string(stdout, s);
	}
	printf("],\"compr_bytes\":%" PRIu64 ",\"mem_bytes\":%" PRIu64 "},",
	       rp->chain.ev.compr_bytes, rp->chain.ev.mem_bytes);
	printf("\"recommendation\":{\"pays\":%s,\"secondaries\":", rp->pays ? "true" : "false");
	json_secondaries(e, rp->pays ? &rp->best : &none);
	json_recommended(e, o, rp);
	printf(",\"sampled_pages\":%" PRIu64 ",\"scaled\":%s,\"reason\":", src->sampled,
	       src->sampling ? "true" : "false");
	json_print_string(stdout, rp->reason);
	printf("}");
	if (rp->dict)
		adv_dict_print_json(rp->dict);
	printf("}\n");
}
