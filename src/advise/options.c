// SPDX-License-Identifier: GPL-2.0-or-later
/* The command line of `zram-recompd advise` (include/advise_internal.h). */
#include "advise_internal.h"

#include "log.h"
#include "units.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void adv_usage(FILE *f)
{
	static const char *const lines[] = {
		"usage: zram-recompd advise --device zramN [--samples N] [options]",
		"       zram-recompd advise --input FILE [--samples N] [options]",
		"options: --primary ALGO[:LEVEL]  --candidates A[:L],B[:L],...  --chain A[:L],...",
		"         --threshold BYTES  --seed N  --threads N  --json  --save",
		"         --page-size BYTES (with --input)",
		"         --dict [--dict-size BYTES] [--dict-train-pages N] [--dict-train-bytes BYTES]",
		"                [--dict-threshold PERCENT] [--dict-out FILE] [--dict-install zramN]",
		"--dict trains a zstd dictionary on part of the sample and predicts the chain with",
		"and without it on the rest (docs/dictionary.md); it stays in memory unless",
		"--dict-out names a new file, which then holds fragments of process memory.",
		"--dict-install zramN puts it and the prediction in /run/zram-recompd/dict/ (memory),",
		"where --once and adopt find it (zstd-dictionary in zram-recompd.conf(5)).",
		"--save (with --device) stores the recommendation for recompress-algorithms = auto",
		"in the state directory's advice file (see zram-recompd(8), ADVISE and FILES).",
		"algorithms: lzo lzo-rle lz4 lz4hc zstd deflate; LEVEL is the acceleration for "
		"lz4,",
		"1-16 for lz4hc, a zstd level, -1..9 for deflate.",
		"defaults: --candidates " ADV_DEFAULT_CANDIDATES "; --samples 4096 slots of a",
		"device, every page of a file; --primary the device's comp_algorithm (lzo-rle for",
		"files); --chain the device's recomp_algorithm list (zstd when it has none);",
		"--threads one per CPU.",
		"FILE holds pages of --page-size bytes (default: this kernel's page size; 4 KiB",
		"pages in their order make one 16 KiB page of each 4), plain or zstd-compressed;",
		"a partial last page is ignored with a warning. A device's pages are its own.",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "%s\n", lines[i]);
}

static int parse_spec_opt(const char *what, const char *s, struct adv_spec *ret)
{
	int r = comp_parse_spec(s, &ret->algo, &ret->level);

	if (r == -ENOENT)
		log_error("advise: %s: unknown algorithm '%s' (known: lzo lzo-rle lz4 lz4hc zstd "
			  "deflate)",
			  what, s);
	else if (r < 0)
		log_error("advise: %s: invalid level in '%s'", what, s);
	return r;
}

int adv_parse_spec_list(const char *what, const char *list, struct adv_spec *out, unsigned max,
			unsigned *ret_n)
{
	char buf[256];
	char *save = NULL, *tok;
	unsigned n = 0;
	int r;

	if (strlen(list) >= sizeof(buf)) {
		log_error("advise: %s: list too long", what);
		return -E2BIG;
	}
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			log_error("advise: %s: at most %u algorithms", what, max);
			return -E2BIG;
		}
		r = parse_spec_opt(what, tok, &out[n]);
		if (r < 0)
			return r;
		n++;
	}
	if (n == 0) {
		log_error("advise: %s: empty list", what);
		return -EINVAL;
	}
	*ret_n = n;
	return 0;
}

enum {
	OPT_DEVICE = 0x100,
	OPT_INPUT,
	OPT_SAMPLES,
	OPT_PRIMARY,
	OPT_CANDIDATES,
	OPT_CHAIN,
	OPT_THRESHOLD,
	OPT_SEED,
	OPT_THREADS,
	OPT_SAVE,
	OPT_JSON,
	OPT_PAGE_SIZE,
	OPT_DICT,
	OPT_DICT_SIZE,
	OPT_DICT_TRAIN_PAGES,
	OPT_DICT_TRAIN_BYTES,
	OPT_DICT_THRESHOLD,
	OPT_DICT_OUT,
	OPT_DICT_INSTALL,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{"device", required_argument, NULL, OPT_DEVICE},
	{"input", required_argument, NULL, OPT_INPUT},
	{"samples", required_argument, NULL, OPT_SAMPLES},
	{"primary", required_argument, NULL, OPT_PRIMARY},
	{"candidates", required_argument, NULL, OPT_CANDIDATES},
	{"chain", required_argument, NULL, OPT_CHAIN},
	{"threshold", required_argument, NULL, OPT_THRESHOLD},
	{"seed", required_argument, NULL, OPT_SEED},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"save", no_argument, NULL, OPT_SAVE},
	{"json", no_argument, NULL, OPT_JSON},
	{"page-size", required_argument, NULL, OPT_PAGE_SIZE},
	{"dict", no_argument, NULL, OPT_DICT},
	{"dict-size", required_argument, NULL, OPT_DICT_SIZE},
	{"dict-train-pages", required_argument, NULL, OPT_DICT_TRAIN_PAGES},
	{"dict-train-bytes", required_argument, NULL, OPT_DICT_TRAIN_BYTES},
	{"dict-threshold", required_argument, NULL, OPT_DICT_THRESHOLD},
	{"dict-out", required_argument, NULL, OPT_DICT_OUT},
	{"dict-install", required_argument, NULL, OPT_DICT_INSTALL},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

/* A --dict-* value: bytes (with K/M suffixes) or a count in [min, max]; 0 or 2 logged. */
static int dict_value(const char *what, const char *arg, enum unit u, uint64_t min, uint64_t max,
		      uint64_t *ret)
{
	if (units_parse(arg, u, ret) < 0 || *ret < min || *ret > max) {
		log_error("advise: %s: want %s from %" PRIu64 " to %" PRIu64 ": '%s'", what,
			  u == UNIT_BYTES ? "bytes" : "a number", min, max, arg);
		return 2;
	}
	return 0;
}

/* The --dict options; 0, 2 after logging, or -1 for another option. */
static int take_dict_opt(int c, const char *arg, struct adv_dict_opts *d)
{
	uint64_t v = 0;
	int r = -1;

	if (c != OPT_DICT)
		d->any_set = true;
	switch (c) {
	case OPT_DICT:
		d->on = true;
		return 0;
	case OPT_DICT_SIZE:
		r = dict_value("--dict-size", arg, UNIT_BYTES, DICT_SIZE_MIN, DICT_SIZE_MAX, &v);
		d->size = (uint32_t)v;
		return r;
	case OPT_DICT_TRAIN_PAGES:
		r = dict_value("--dict-train-pages", arg, UNIT_NONE, DICT_TRAIN_PAGES_MIN,
			       ADV_MAX_SAMPLES, &v);
		d->train_pages = v;
		return r;
	case OPT_DICT_TRAIN_BYTES:
		r = dict_value("--dict-train-bytes", arg, UNIT_BYTES, 64 * 1024,
			       DICT_TRAIN_BYTES_MAX, &v);
		d->train_bytes = v;
		return r;
	case OPT_DICT_THRESHOLD:
		r = dict_value("--dict-threshold", arg, UNIT_NONE, 0, 100, &v);
		d->threshold = (unsigned)v;
		return r;
	case OPT_DICT_OUT:
		if (arg[0] == '\0') {
			log_error("advise: --dict-out: empty file name");
			return 2;
		}
		d->out = arg;
		return 0;
	case OPT_DICT_INSTALL:
		if (!zram_name_valid(arg)) {
			log_error("advise: --dict-install: '%s' is not a zram device name (zramN)",
				  arg);
			return 2;
		}
		d->install = arg;
		return 0;
	}
	return -1;
}

/* One option and its value; 0, 2 after logging a usage error, or -1 for no such option. */
static int take_opt(int c, const char *arg, struct adv_opts *o)
{
	uint64_t v;
	int r;

	switch (c) {
	case OPT_DEVICE:
		o->device = arg;
		return 0;
	case OPT_INPUT:
		o->input = arg;
		return 0;
	case OPT_SAMPLES:
		if (parse_u64(arg, &v) < 0) {
			log_error("advise: --samples: not a number: '%s'", arg);
			return 2;
		}
		o->samples = v;
		o->samples_set = true;
		return 0;
	case OPT_PRIMARY:
		r = parse_spec_opt("--primary", arg, &o->primary);
		o->primary_set = true;
		return r < 0 ? 2 : 0;
	case OPT_CANDIDATES:
		r = adv_parse_spec_list("--candidates", arg, o->cand, ADV_MAX_CANDIDATES,
					&o->ncand);
		return r < 0 ? 2 : 0;
	case OPT_CHAIN:
		r = adv_parse_spec_list("--chain", arg, o->chain, ADV_MAX_CHAIN, &o->nchain);
		o->chain_set = true;
		return r < 0 ? 2 : 0;
	case OPT_THRESHOLD:
		/* checked against huge_class_size once the page size is known */
		if (parse_u64(arg, &v) < 0 || v >= ZS_PAGE_SIZE_MAX) {
			log_error("advise: --threshold: want bytes below huge_class_size: '%s'",
				  arg);
			return 2;
		}
		o->threshold = (unsigned)v;
		o->threshold_arg = arg;
		return 0;
	case OPT_PAGE_SIZE:
		if (parse_u64(arg, &v) < 0 || !zram_page_size_valid(v)) {
			log_error("advise: --page-size: want a power of two from %u to %u: '%s'",
				  ZRAM_PAGE_SIZE_MIN, ZRAM_PAGE_SIZE_MAX, arg);
			return 2;
		}
		o->page_size = (uint32_t)v;
		return 0;
	case OPT_SEED:
		if (parse_u64(arg, &v) < 0) {
			log_error("advise: --seed: not a number: '%s'", arg);
			return 2;
		}
		o->seed = v;
		o->seed_set = true;
		return 0;
	case OPT_THREADS:
		if (parse_u64(arg, &v) < 0 || v < 1 || v > ADV_MAX_THREADS) {
			log_error("advise: --threads: want 1 to %d: '%s'", ADV_MAX_THREADS, arg);
			return 2;
		}
		o->threads = (unsigned)v;
		return 0;
	case OPT_SAVE:
		o->save = true;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	}
	return take_dict_opt(c, arg, &o->dict);
}

int adv_check_threshold(const struct adv_opts *o, uint32_t page_size)
{
	size_t huge = zs_huge_class_size(page_size);

	/* The kernel refuses threshold >= huge_class_size with -EINVAL (6.5+). */
	if (huge == 0) {
		adv_error(o, "advise: page size %u is not modelled", page_size);
		return -EINVAL;
	}
	if (o->threshold >= huge) {
		adv_error(o, "advise: --threshold: want bytes below huge_class_size (%zu%s): '%s'",
			  huge, page_size == ZRAM_PAGE_SIZE_MIN ? "" : " with these pages",
			  o->threshold_arg ? o->threshold_arg : "?");
		return -EINVAL;
	}
	return 0;
}

/* --dict keeps its sample in memory: it must be bounded. 0 or 2 after logging. */
static int check_dict_opts(struct adv_opts *o)
{
	if (o->dict.any_set && !o->dict.on) {
		log_error("advise: --dict-size, --dict-train-*, --dict-threshold, --dict-out and "
			  "--dict-install need --dict");
		return 2;
	}
	if (!o->dict.on)
		return 0;
	if (o->input && !o->samples_set) {
		o->samples = ADV_DICT_FILE_SAMPLES;
		o->samples_set = true;
	}
	if (o->samples_set && o->samples == 0) {
		log_error("advise: --dict needs a bounded sample: --samples N, not 0");
		return 2;
	}
	/* A device's page size is checked when it is known (adv_dict_keep_pages()). */
	if (o->input && o->samples > ADV_DICT_SAMPLE_BYTES_MAX / o->page_size) {
		log_error("advise: --dict: --samples %" PRIu64 " of %u bytes is more than %u MiB",
			  o->samples, o->page_size, ADV_DICT_SAMPLE_BYTES_MAX >> 20);
		return 2;
	}
	return 0;
}

/* The combination of options; 0 or 2 after logging. */
static int check_opts(struct adv_opts *o)
{
	if (!o->device == !o->input) {
		log_error("advise: give exactly one of --device zramN or --input FILE");
		return 2;
	}
	if (o->save && !o->device) {
		log_error("advise: --save needs --device (advice is kept per device)");
		return 2;
	}
	if (o->page_size && o->device) {
		log_error("advise: --page-size is for --input: a device's pages are the kernel's");
		return 2;
	}
	if (o->input && !o->page_size)
		o->page_size = zram_host_page_size();
	if (o->input && adv_check_threshold(o, o->page_size) < 0)
		return 2;
	if (o->samples > ADV_MAX_SAMPLES) {
		log_error("advise: --samples: at most %u", ADV_MAX_SAMPLES);
		return 2;
	}
	if (check_dict_opts(o))
		return 2;
	if (o->ncand == 0 && adv_parse_spec_list("--candidates", ADV_DEFAULT_CANDIDATES, o->cand,
						 ADV_MAX_CANDIDATES, &o->ncand) < 0)
		return 2;
	return 0;
}

int adv_parse_opts(int argc, char **argv, struct adv_opts *o)
{
	int c, r;

	memset(o, 0, sizeof(*o));
	o->primary.level = COMP_LEVEL_DEFAULT;
	o->dict.threshold = DICT_THRESHOLD_DEFAULT;
	optind = 0; /* full re-initialisation: main may have used getopt already */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", long_opts, NULL)) != -1) {
		if (c == OPT_HELP) {
			adv_usage(stdout);
			return 1;
		}
		r = take_opt(c, optarg, o);
		if (r > 0)
			return r;
		if (r == 0)
			continue;
		if (optopt >= OPT_DEVICE && optopt <= OPT_HELP)
			log_error("advise: option '%s' needs a value", argv[optind - 1]);
		else
			log_error("advise: unknown option '%s'", argv[optind - 1]);
		return 2;
	}
	if (optind < argc) {
		log_error("advise: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return check_opts(o);
}
