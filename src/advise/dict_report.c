// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The --dict part of advise's output (include/advise_internal.h): the dictionary, what
 * training cost, the pool predicted on held-out pages with and without it per priority,
 * and the decision. The JSON member is documented in include/advise.h.
 */
#include "advise_internal.h"
#include "dict_apply.h"

#include "human.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>

/* "priority 1 (zstd:9)" or "priorities 0,1 (zstd, zstd:9)". */
static void variant_str(const struct adv_dict_report *dr, unsigned mask, char *buf, size_t size)
{
	char prios[16], s[32];
	size_t len;
	bool first = true;

	dict_mask_str(mask, prios, sizeof(prios));
	len = (size_t)snprintf(buf, size, "%s %s (", __builtin_popcount(mask) > 1 ? "priorities"
										  : "priority",
			       prios);
	for (unsigned p = 0; p < dr->nprio && len < size; p++) {
		if (!(mask & (1u << p)))
			continue;
		if (comp_format_spec(dr->prio[p].algo, dr->prio[p].level, s, sizeof(s)) < 0)
			snprintf(s, sizeof(s), "?");
		len += (size_t)snprintf(buf + len, size - len, "%s%s", first ? "" : ", ", s);
		first = false;
	}
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

static void text_trained(const struct adv_dict_report *dr)
{
	const struct dict_trained *d = &dr->d;
	char a[HUMAN_LEN], b[HUMAN_LEN];

	printf("\ndictionary (--dict): %zu bytes (id %" PRIu32 "), %s, trained on %zu of %zu "
	       "sampled pages (%s) in %.2f s CPU, memory at most %s\n",
	       d->size, d->id, d->trainer, d->pages, dr->sampled, human_bytes(a, sizeof(a), d->bytes),
	       d->cpu_seconds, human_bytes(b, sizeof(b), d->mem_bound));
	printf("  predicted on the other %zu pages (held out, never trained on), scaled x%.2f\n",
	       dr->heldout, dr->scale);
	printf("  without a dictionary: mem_used_total %s, compr_data_size %s\n",
	       human_bytes(a, sizeof(a), dr->without.mem_bytes),
	       human_bytes(b, sizeof(b), dr->without.compr_bytes));
}

static void text_variants(const struct adv_dict_report *dr)
{
	for (unsigned i = 0; i < dr->nvar; i++) {
		const struct dict_variant *v = &dr->var[i];
		char what[96], m[HUMAN_LEN], s[HUMAN_LEN], k[HUMAN_LEN], n[HUMAN_LEN];
		char sp[HUMAN_LEN], np[HUMAN_LEN];

		variant_str(dr, v->mask, what, sizeof(what));
		human_percent(sp, sizeof(sp), (double)v->saving, (double)dr->without.mem_bytes);
		human_percent(np, sizeof(np), (double)v->net, (double)dr->without.mem_bytes);
		printf("  at %s: mem_used_total %s, saves %s (%s), kernel memory %s, net %s (%s)\n",
		       what, human_bytes(m, sizeof(m), v->mem_bytes),
		       human_bytes_signed(s, sizeof(s), v->saving), sp,
		       human_bytes(k, sizeof(k), v->kernel_bytes),
		       human_bytes_signed(n, sizeof(n), v->net), np);
	}
}

void adv_dict_print_text(const struct adv_dict_report *dr)
{
	char what[96];

	if (!dr->trained) {
		printf("\ndictionary (--dict): not trained: %s\n", dr->why);
		return;
	}
	text_trained(dr);
	text_variants(dr);
	if (dr->dec.recommend) {
		variant_str(dr, dr->var[dr->dec.best].mask, what, sizeof(what));
		printf("dictionary: use it at %s: %s\n", what, dr->dec.reason);
	} else {
		printf("dictionary: not recommended: %s\n", dr->dec.reason);
	}
	if (dr->installed)
		printf("  installed for %s: %s/%s%s and its prediction (%s), mode 0600, in memory "
		       "only; --once and adopt apply it before disksize (zstd-dictionary)\n",
		       dr->installed, dict_dir_path(), dr->installed, DICT_EXT, DICT_PRED_EXT);
	if (dr->written)
		printf("  written to %s (mode 0600): it holds fragments of process memory; keep it "
		       "off persistent storage\n",
		       dr->written);
	else if (!dr->installed)
		printf("  kept in memory only and discarded on exit (--dict-out FILE writes it)\n");
}

/* [{"priority":1,"algo":"zstd","level":9},...] for the priorities of mask. */
static void json_prios(const struct adv_dict_report *dr, unsigned mask)
{
	bool first = true;

	printf("[");
	for (unsigned p = 0; p < dr->nprio; p++) {
		if (!(mask & (1u << p)))
			continue;
		printf("%s{\"priority\":%u,\"algo\":\"zstd\",\"level\":%d}", first ? "" : ",", p,
		       comp_effective_level(COMP_ZSTD, dr->prio[p].level));
		first = false;
	}
	printf("]");
}

static void json_trained(const struct adv_dict_report *dr)
{
	const struct dict_trained *d = &dr->d;

	printf(",\"size\":%zu,\"id\":%" PRIu32 ",\"trainer\":", d->size, d->id);
	json_print_string(stdout, d->trainer);
	printf(",\"sampled_pages\":%zu,\"train_pages\":%zu,\"train_bytes\":%" PRIu64
	       ",\"train_cpu_seconds\":%.3f,\"train_mem_bound_bytes\":%" PRIu64
	       ",\"heldout_pages\":%zu,\"scale\":%.4f",
	       dr->sampled, d->pages, d->bytes, d->cpu_seconds, d->mem_bound, dr->heldout,
	       dr->scale);
	printf(",\"without\":{\"mem_bytes\":%" PRIu64 ",\"compr_bytes\":%" PRIu64 "}",
	       dr->without.mem_bytes, dr->without.compr_bytes);
	printf(",\"variants\":[");
	for (unsigned i = 0; i < dr->nvar; i++) {
		const struct dict_variant *v = &dr->var[i];

		printf("%s{\"priorities\":", i ? "," : "");
		json_prios(dr, v->mask);
		printf(",\"mem_bytes\":%" PRIu64 ",\"compr_bytes\":%" PRIu64
		       ",\"kernel_bytes\":%" PRIu64 ",\"saving_bytes\":%" PRId64
		       ",\"net_saving_bytes\":%" PRId64 "}",
		       v->mem_bytes, v->compr_bytes, v->kernel_bytes, v->saving, v->net);
	}
	printf("],\"recommended\":%s,\"priorities\":", dr->dec.recommend ? "true" : "false");
	json_prios(dr, dr->dec.recommend ? dr->var[dr->dec.best].mask : 0);
	printf(",\"file\":");
	if (dr->written)
		json_print_string(stdout, dr->written);
	else
		printf("null");
}

void adv_dict_print_json(const struct adv_dict_report *dr)
{
	printf(",\"dictionary\":{\"trained\":%s,\"threshold_percent\":%u",
	       dr->trained ? "true" : "false", dr->threshold_pct);
	if (dr->trained)
		json_trained(dr);
	printf(",\"reason\":");
	json_print_string(stdout, dr->trained ? dr->dec.reason : dr->why);
	printf("}");
}
