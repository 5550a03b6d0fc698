// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * advise end to end: advise_main() on page files and fake devices (JSON parsed and checked
 * for its exact fields, figures recomputed independently from the compressors), every usage
 * and input error, --save, advise_device() and the periodic refresh. The parts are tested
 * one by one in test_advise_{engine,options,sources,report}.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "advice_store.h"
#include "advise.h"
#include "config.h"
#include "fakeroot.h"
#include "advise_pages.h" /* after fakeroot.h */
#include "advise_run.h"   /* after fakeroot.h */
#include "zram.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* ------------------------------------------------------------ a small JSON parser */

enum jtype { J_OBJ, J_ARR, J_STR, J_NUM, J_BOOL, J_NULL };

struct jnode {
	enum jtype type;
	char key[48];
	char str[256];
	double num;
	bool b;
	int first, next; /* children and siblings, -1 = none */
};

static struct jnode jt[1024];
static int jcount;
static const char *jp;

static void jws(void)
{
	while (*jp == ' ' || *jp == '\n' || *jp == '\t' || *jp == '\r')
		jp++;
}

static int jparse(void);

static int jstring(char *out, size_t size)
{
	size_t n = 0;

	if (*jp != '"')
		return -1;
	jp++;
	while (*jp && *jp != '"') {
		char c = *jp++;

		if (c == '\\') {
			c = *jp++;
			if (c == 'u') {
				jp += 4;
				c = '?';
			} else if (c != '"' && c != '\\' && c != '/') {
				return -1;
			}
		} else if ((unsigned char)c < 0x20) {
			return -1;
		}
		if (n + 1 < size)
			out[n++] = c;
	}
	if (*jp != '"')
		return -1;
	jp++;
	out[n] = '\0';
	return 0;
}

static int jlist(int self, char close, bool keyed)
{
	int prev = -1;

	jp++;
	jws();
	if (*jp == close) {
		jp++;
		return self;
	}
	for (;;) {
		char key[48] = "";
		int child;

		jws();
		if (keyed) {
			if (jstring(key, sizeof(key)) < 0)
				return -1;
			jws();
			if (*jp++ != ':')
				return -1;
		}
		child = jparse();
		if (child < 0)
			return -1;
		snprintf(jt[child].key, sizeof(jt[child].key), "%s", key);
		if (prev < 0)
			jt[self].first = child;
		else
			jt[prev].next = child;
		prev = child;
		jws();
		if (*jp == ',') {
			jp++;
			continue;
		}
		if (*jp++ != close)
			return -1;
		return self;
	}
}

static int jparse(void)
{
	int self;
	char *end;

	jws();
	if (jcount >= (int)(sizeof(jt) / sizeof(jt[0])))
		return -1;
	self = jcount++;
	memset(&jt[self], 0, sizeof(jt[self]));
	jt[self].first = jt[self].next = -1;
	switch (*jp) {
	case '{':
		jt[self].type = J_OBJ;
		return jlist(self, '}', true);
	case '[':
		jt[self].type = J_ARR;
		return jlist(self, ']', false);
	case '"':
		jt[self].type = J_STR;
		return jstring(jt[self].str, sizeof(jt[self].str)) < 0 ? -1 : self;
	case 't':
	case 'f':
		jt[self].type = J_BOOL;
		jt[self].b = *jp == 't';
		if (strncmp(jp, jt[self].b ? "true" : "false", jt[self].b ? 4 : 5) != 0)
			return -1;
		jp += jt[self].b ? 4 : 5;
		return self;
	case 'n':
		jt[self].type = J_NULL;
		if (strncmp(jp, "null", 4) != 0)
			return -1;
		jp += 4;
		return self;
	default:
		jt[self].type = J_NUM;
		jt[self].num = strtod(jp, &end);
		if (end == jp)
			return -1;
		jp = end;
		return self;
	}
}

/* Parse a whole document; the root node index (0) or -1. */
static int json_parse(const char *s)
{
	int root;

	jcount = 0;
	jp = s;
	root = jparse();
	if (root < 0)
		return -1;
	jws();
	return *jp == '\0' ? root : -1;
}

static int jget(int obj, const char *key)
{
	for (int c = jt[obj].first; c >= 0; c = jt[c].next)
		if (strcmp(jt[c].key, key) == 0)
			return c;
	return -1;
}

static int jat(int arr, int i)
{
	int c = jt[arr].first;

	while (c >= 0 && i-- > 0)
		c = jt[c].next;
	return c;
}

static int jlen(int n)
{
	int k = 0;

	for (int c = jt[n].first; c >= 0; c = jt[c].next)
		k++;
	return k;
}

/* The object has exactly these keys, in this order. */
static void assert_keys(int obj, const char *const *keys, int n)
{
	int c = jt[obj].first;

	assert_int_equal(jt[obj].type, J_OBJ);
	for (int i = 0; i < n; i++) {
		assert_true(c >= 0);
		assert_string_equal(jt[c].key, keys[i]);
		c = jt[c].next;
	}
	assert_int_equal(c, -1);
}

static double jnum(int obj, const char *key)
{
	int c = jget(obj, key);

	assert_true(c >= 0);
	assert_int_equal(jt[c].type, J_NUM);
	return jt[c].num;
}

/* ------------------------------------------------------------ helpers */

/* Run advise_main with a NULL-terminated argument list; stdout/stderr land in the buffers. */
static int run_advise(int root_fd, ...)
{
	const char *args[31];
	int n = 0;
	va_list ap;

	va_start(ap, root_fd);
	for (;;) {
		const char *a = va_arg(ap, const char *);

		if (!a || n == 30)
			break;
		args[n++] = a;
	}
	va_end(ap);
	args[n] = NULL;
	return advise_run_args(root_fd, args);
}

static int setup(void **state)
{
	(void)state;
	if (fr_setup() < 0)
		return -1;
	make_mix();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fr_teardown();
	return 0;
}

/* Independent recomputation: primary stored sizes and one candidate's decision. */
struct expect {
	uint64_t primary_compr, cand_compr, improved, incompressible;
	struct zs_hist hp, hc;
};

static void expect_compute(const uint8_t (*pages)[4096], unsigned n, enum comp_algo pa, int pl,
			   enum comp_algo ca, int cl, struct expect *x)
{
	const struct zs_model *m = zs_model_default(4096);
	struct comp_ctx *p = NULL, *c = NULL;
	static uint8_t dst[COMP_DST_SIZE(4096)];

	memset(x, 0, sizeof(*x));
	assert_int_equal(comp_ctx_new(pa, pl, 4096, &p), 0);
	assert_int_equal(comp_ctx_new(ca, cl, 4096, &c), 0);
	for (unsigned i = 0; i < n; i++) {
		size_t lp = 0, lc = 0;
		unsigned stored;

		if (comp_page_same_filled(pages[i], 4096))
			continue;
		assert_int_equal(comp_compress(p, pages[i], 4096, dst, sizeof(dst), &lp), 0);
		assert_int_equal(comp_compress(c, pages[i], 4096, dst, sizeof(dst), &lc), 0);
		stored = lp >= m->huge_class_size ? 4096 : (unsigned)lp;
		x->primary_compr += stored;
		zs_hist_add(m, &x->hp, stored, 1);
		/* The rule under test, written out: strictly smaller class wins. */
		if (zs_class_of(m, lc)->index < zs_class_of(m, stored)->index) {
			x->cand_compr += lc;
			x->improved++;
			zs_hist_add(m, &x->hc, lc, 1);
		} else {
			x->cand_compr += stored;
			x->incompressible++;
			zs_hist_add(m, &x->hc, stored, 1);
		}
	}
	comp_ctx_free(p);
	comp_ctx_free(c);
}

/* advise_main with one thread and with four prints the same figures. */
static void strip_speeds(char *s)
{
	static const char *const keys[] = {
		"\"compress_mb_s\":", "\"decompress_mb_s\":", "\"cpu_seconds\":"};

	for (size_t k = 0; k < 3; k++) {
		for (char *p = strstr(s, keys[k]); p; p = strstr(p + 1, keys[k])) {
			char *v = p + strlen(keys[k]), *end = v;

			while ((*end >= '0' && *end <= '9') || *end == '.')
				end++;
			memmove(v, end, strlen(end) + 1);
		}
	}
}

/* ------------------------------------------------------------ advise_main: files */

static const char *const top_keys[] = {"pages",	     "same_pages", "primary",
				       "candidates", "chain",	   "recommendation"};
static const char *const primary_keys[] = {"algo", "compr_bytes", "mem_bytes"};
static const char *const cand_keys[] = {"algo",		 "level",	   "compr_bytes",
					"mem_bytes",	 "pages_improved", "pages_incompressible",
					"compress_mb_s", "decompress_mb_s"};
static const char *const chain_keys[] = {"algos", "compr_bytes", "mem_bytes"};

static void test_json_file(void **state)
{
	const struct zs_model *m = zs_model_default(4096);
	struct expect x;
	int root, prim, cands, c, chain, rec;

	(void)state;
	write_bytes("mix.pages", mix, sizeof(mix));
	assert_int_equal(run_advise(-1, "--input", tpath("mix.pages"), "--json", "--candidates",
				    "zstd,lz4,deflate:9", "--chain", "zstd,deflate", NULL),
			 0);
	root = json_parse(out_buf);
	assert_int_equal(root, 0);
	assert_keys(root, top_keys, 6);
	assert_int_equal(jnum(root, "pages"), MIX_PAGES);
	assert_int_equal(jnum(root, "same_pages"), MIX_PAGES / 5);

	/* Primary: lzo-rle by default for files, figures recomputed here. */
	expect_compute(mix, MIX_PAGES, COMP_LZO_RLE, COMP_LEVEL_DEFAULT, COMP_ZSTD,
		       COMP_LEVEL_DEFAULT, &x);
	prim = jget(root, "primary");
	assert_keys(prim, primary_keys, 3);
	assert_string_equal(jt[jget(prim, "algo")].str, "lzo-rle");
	assert_int_equal(jnum(prim, "compr_bytes"), x.primary_compr);
	assert_int_equal(jnum(prim, "mem_bytes"), zs_pool_bytes(m, &x.hp));

	cands = jget(root, "candidates");
	assert_int_equal(jt[cands].type, J_ARR);
	assert_int_equal(jlen(cands), 3);
	for (int i = 0; i < 3; i++)
		assert_keys(jat(cands, i), cand_keys, 8);
	c = jat(cands, 0);
	assert_string_equal(jt[jget(c, "algo")].str, "zstd");
	assert_int_equal(jnum(c, "level"), 3);
	assert_int_equal(jnum(c, "compr_bytes"), x.cand_compr);
	assert_int_equal(jnum(c, "mem_bytes"), zs_pool_bytes(m, &x.hc));
	assert_int_equal(jnum(c, "pages_improved"), x.improved);
	assert_int_equal(jnum(c, "pages_incompressible"), x.incompressible);
	assert_true(jnum(c, "compress_mb_s") > 0);
	assert_true(jnum(c, "decompress_mb_s") > 0);
	/* The 8 random pages are huge for lzo-rle and stay huge for zstd. */
	assert_int_equal(x.incompressible, 8);
	assert_int_equal(x.improved, 24);
	assert_int_equal(jnum(jat(cands, 2), "level"), 9);
	assert_string_equal(jt[jget(jat(cands, 1), "algo")].str, "lz4");

	chain = jget(root, "chain");
	assert_keys(chain, chain_keys, 3);
	assert_int_equal(jlen(jget(chain, "algos")), 2);
	assert_string_equal(jt[jat(jget(chain, "algos"), 0)].str, "zstd");
	assert_string_equal(jt[jat(jget(chain, "algos"), 1)].str, "deflate");
	/* zstd first: the chain is at least as good as zstd alone. */
	assert_true(jnum(chain, "compr_bytes") <= x.cand_compr);

	rec = jget(root, "recommendation");
	assert_int_equal(jt[rec].type, J_OBJ);
	assert_int_equal(jt[jget(rec, "pays")].type, J_BOOL);
	assert_true(jt[jget(rec, "pays")].b);
	assert_true(jlen(jget(rec, "secondaries")) >= 1);
	assert_int_equal(jnum(jat(jget(rec, "secondaries"), 0), "priority"), 1);
	assert_true(jnum(rec, "mem_saving_bytes") > 0);
	assert_int_equal(jnum(rec, "sampled_pages"), MIX_PAGES - MIX_PAGES / 5);
	assert_false(jt[jget(rec, "scaled")].b);
	assert_string_equal(err_buf, "");
}

static void test_threads_same_output(void **state)
{
	static char one[65536];

	(void)state;
	write_bytes("mix.pages", mix, sizeof(mix));
	/*
	 * One candidate: with several, ties between chains are broken by measured CPU time
	 * and the "alternative" depends on it, so the text could differ without a bug.
	 */
	assert_int_equal(run_advise(-1, "--input", tpath("mix.pages"), "--json", "--threads", "1",
				    "--candidates", "zstd", "--chain", "lz4hc,deflate:9", NULL),
			 0);
	memcpy(one, out_buf, sizeof(one));
	assert_int_equal(run_advise(-1, "--input", tpath("mix.pages"), "--json", "--threads", "4",
				    "--candidates", "zstd", "--chain", "lz4hc,deflate:9", NULL),
			 0);
	assert_int_equal(json_parse(out_buf), 0);
	strip_speeds(one);
	strip_speeds(out_buf);
	assert_string_equal(one, out_buf);
	assert_int_equal(run_advise(-1, "--input", "x", "--threads", "0", NULL), 2);
	assert_non_null(strstr(err_buf, "--threads: want 1 to 8"));
	assert_int_equal(run_advise(-1, "--input", "x", "--threads", "9", NULL), 2);
}

/* lzo and lzo-rle have no level: JSON null. --primary with a level is honoured. */
static void test_json_levels_and_primary(void **state)
{
	struct expect x;
	int root, cands;

	(void)state;
	write_bytes("mix.pages", mix, sizeof(mix));
	assert_int_equal(run_advise(-1, "--input", tpath("mix.pages"), "--json", "--primary",
				    "zstd:1", "--candidates", "lzo,lz4hc:4", NULL),
			 0);
	root = json_parse(out_buf);
	assert_int_equal(root, 0);
	assert_string_equal(jt[jget(jget(root, "primary"), "algo")].str, "zstd");
	expect_compute(mix, MIX_PAGES, COMP_ZSTD, 1, COMP_LZO, COMP_LEVEL_DEFAULT, &x);
	assert_int_equal(jnum(jget(root, "primary"), "compr_bytes"), x.primary_compr);
	cands = jget(root, "candidates");
	assert_int_equal(jt[jget(jat(cands, 0), "level")].type, J_NULL);
	assert_int_equal(jnum(jat(cands, 1), "level"), 4);
	/* lzo never beats zstd:1 here: every page stays. */
	assert_int_equal(jnum(jat(cands, 0), "compr_bytes"), x.primary_compr);
	/* Default chain for a file: zstd (the configuration default). */
	assert_string_equal(jt[jat(jget(jget(root, "chain"), "algos"), 0)].str, "zstd");
}

/* A .zst page file gives exactly the figures of the plain file. */
static void test_zst_input(void **state)
{
	size_t cap = ZSTD_compressBound(sizeof(mix)), n;
	void *z = malloc(cap);
	char plain[65536];
	int root, r1, r2;

	(void)state;
	assert_non_null(z);
	n = ZSTD_compress(z, cap, mix, sizeof(mix), 3);
	assert_false(ZSTD_isError(n));
	write_bytes("mix.pages", mix, sizeof(mix));
	write_bytes("mix.bin", z, n); /* detected by magic, not by name */
	assert_int_equal(run_advise(-1, "--input", tpath("mix.pages"), "--json", NULL), 0);
	memcpy(plain, out_buf, sizeof(plain));
	assert_int_equal(run_advise(-1, "--input", tpath("mix.bin"), "--json", NULL), 0);
	assert_int_equal(json_parse(plain), 0);
	r1 = jget(0, "primary");
	{
		double pc = jnum(r1, "compr_bytes"), pm = jnum(r1, "mem_bytes");
		double cc = jnum(jat(jget(0, "candidates"), 3), "compr_bytes");

		root = json_parse(out_buf);
		assert_int_equal(root, 0);
		r2 = jget(root, "primary");
		assert_int_equal(jnum(r2, "compr_bytes"), pc);
		assert_int_equal(jnum(r2, "mem_bytes"), pm);
		assert_int_equal(jnum(jat(jget(root, "candidates"), 3), "compr_bytes"), cc);
		assert_int_equal(jnum(root, "pages"), MIX_PAGES);
	}

	/* The same stream cut short: an error, not a silently shorter file. */
	write_bytes("cut.zst", z, n / 2);
	assert_int_equal(run_advise(-1, "--input", tpath("cut.zst"), NULL), 1);
	assert_non_null(strstr(err_buf, "truncated zstd stream"));
	assert_string_equal(out_buf, "");
	free(z);
}

/* Truncated page file: whole pages are used, the tail is reported. */
static void test_truncated_file(void **state)
{
	static uint8_t buf[10 * 4096 + 100];

	(void)state;
	memcpy(buf, mix, sizeof(buf));
	write_bytes("trunc.pages", buf, sizeof(buf));
	assert_int_equal(run_advise(-1, "--input", tpath("trunc.pages"), "--json", NULL), 0);
	assert_int_equal(json_parse(out_buf), 0);
	assert_int_equal(jnum(0, "pages"), 10);
	assert_non_null(strstr(err_buf, "ignoring 100 trailing bytes"));
	assert_null(strchr(strchr(err_buf, '\n') + 1, '\n')); /* exactly one line */

	write_bytes("short.pages", buf, 100);
	assert_int_equal(run_advise(-1, "--input", tpath("short.pages"), NULL), 1);
	assert_non_null(strstr(err_buf, "shorter than one 4096-byte page"));
}

static void test_bad_files(void **state)
{
	(void)state;
	write_bytes("empty.pages", "", 0);
	assert_int_equal(run_advise(-1, "--input", tpath("empty.pages"), NULL), 1);
	assert_non_null(strstr(err_buf, "no pages (empty)"));
	assert_string_equal(out_buf, "");

	assert_int_equal(run_advise(-1, "--input", tpath("missing.pages"), NULL), 1);
	assert_non_null(strstr(err_buf, "cannot open"));
	assert_non_null(strstr(err_buf, "No such file or directory"));
	assert_string_equal(out_buf, "");

	/* A directory is not a page file. */
	assert_int_equal(run_advise(-1, "--input", fr_dir, NULL), 1);
	assert_non_null(strstr(err_buf, "cannot read"));
}

/* Only same-filled pages: a valid answer, nothing to recompress. */
static void test_all_same(void **state)
{
	static uint8_t z[4][4096];
	int rec;

	(void)state;
	memset(z, 0x5a, sizeof(z));
	write_bytes("same.pages", z, sizeof(z));
	assert_int_equal(run_advise(-1, "--input", tpath("same.pages"), "--json", NULL), 0);
	assert_int_equal(json_parse(out_buf), 0);
	assert_int_equal(jnum(0, "pages"), 4);
	assert_int_equal(jnum(0, "same_pages"), 4);
	assert_int_equal(jnum(jget(0, "primary"), "compr_bytes"), 0);
	assert_int_equal(jnum(jget(0, "primary"), "mem_bytes"), 0);
	rec = jget(0, "recommendation");
	assert_false(jt[jget(rec, "pays")].b);
	assert_non_null(strstr(jt[jget(rec, "reason")].str, "same-filled"));
}

/* Sampling: --samples N reads every page but compresses N, and scales to the file. */
static void test_sampling_scales(void **state)
{
	static uint8_t f[80][4096];
	struct expect x;
	int rec;

	(void)state;
	for (int i = 0; i < 80; i++)
		gen_page(f[i], i < 64 ? 0 : 3, 1); /* 64 identical text pages, 16 zero pages */
	write_bytes("ident.pages", f, sizeof(f));
	assert_int_equal(run_advise(-1, "--input", tpath("ident.pages"), "--json", "--samples", "8",
				    "--seed", "7", NULL),
			 0);
	assert_int_equal(json_parse(out_buf), 0);
	assert_int_equal(jnum(0, "pages"), 80);
	assert_int_equal(jnum(0, "same_pages"), 16);
	expect_compute(f, 80, COMP_LZO_RLE, COMP_LEVEL_DEFAULT, COMP_ZSTD, COMP_LEVEL_DEFAULT, &x);
	/* Identical pages: 8 samples scaled by 64/8 give the exact totals. */
	assert_int_equal(jnum(jget(0, "primary"), "compr_bytes"), x.primary_compr);
	assert_int_equal(jnum(jget(0, "primary"), "mem_bytes"),
			 zs_pool_bytes(zs_model_default(4096), &x.hp));
	assert_int_equal(jnum(jat(jget(0, "candidates"), 1), "pages_improved"), 64);
	rec = jget(0, "recommendation");
	assert_int_equal(jnum(rec, "sampled_pages"), 8);
	assert_true(jt[jget(rec, "scaled")].b);

	/* Text output says that it scaled. */
	assert_int_equal(run_advise(-1, "--input", tpath("ident.pages"), "--samples", "8", NULL),
			 0);
	assert_non_null(strstr(out_buf, "sampled 8 compressed pages"));
	assert_non_null(strstr(out_buf, "scaled"));
}

/* Random pages: nothing beats a huge slot; text pages: recompression pays. */
static void test_recommendation(void **state)
{
	static uint8_t f[32][4096];
	int rec;

	(void)state;
	for (int i = 0; i < 32; i++)
		gen_page(f[i], 1, (uint64_t)i + 100);
	write_bytes("random.pages", f, sizeof(f));
	assert_int_equal(run_advise(-1, "--input", tpath("random.pages"), "--json", NULL), 0);
	assert_int_equal(json_parse(out_buf), 0);
	rec = jget(0, "recommendation");
	assert_false(jt[jget(rec, "pays")].b);
	assert_int_equal(jlen(jget(rec, "secondaries")), 0);
	assert_non_null(strstr(jt[jget(rec, "reason")].str, "will not pay"));
	assert_int_equal(jnum(jat(jget(0, "candidates"), 0), "pages_incompressible"), 32);

	assert_int_equal(run_advise(-1, "--input", tpath("random.pages"), NULL), 0);
	assert_non_null(strstr(out_buf, "recommendation: recompression will not pay"));

	write_bytes("mix.pages", mix, sizeof(mix));
	assert_int_equal(run_advise(-1, "--input", tpath("mix.pages"), NULL), 0);
	assert_non_null(strstr(out_buf, "candidate"));
	assert_non_null(strstr(out_buf, "recommendation: secondaries "));
	assert_non_null(strstr(out_buf, "priority=1' > recomp_algorithm"));
	assert_non_null(strstr(out_buf, "compact"));
}

/* --threshold: valid below huge_class_size, shown and applied. */
static void test_threshold(void **state)
{
	int c;

	(void)state;
	write_bytes("mix.pages", mix, sizeof(mix));
	assert_int_equal(run_advise(-1, "--input", tpath("mix.pages"), "--json", "--candidates",
				    "zstd", "--threshold", "3600", NULL),
			 0);
	assert_int_equal(json_parse(out_buf), 0);
	c = jat(jget(0, "candidates"), 0);
	/* Only huge (4096) slots are at or above 3600; random pages stay huge: nothing wins. */
	assert_int_equal(jnum(c, "pages_improved"), 0);
	assert_int_equal(jnum(jget(0, "recommendation"), "threshold"), 3600);
}

static void test_usage_errors(void **state)
{
	static const char *const bad[][6] = {
		{"--input", "x", "--candidates", "zstd,brotli", NULL},
		{"--input", "x", "--candidates", "842", NULL},
		{"--input", "x", "--primary", "foo", NULL},
		{"--input", "x", "--chain", "zstd,lz4,lz4hc,deflate", NULL},
		{"--input", "x", "--chain", "zstd:abc", NULL},
		{"--input", "x", "--candidates", "", NULL},
		{"--input", "x", "--threshold", "3625", NULL},
		{"--input", "x", "--threshold", "-1", NULL},
		{"--input", "x", "--samples", "many", NULL},
		{"--input", "x", "--samples", "99999999", NULL},
		{"--input", "x", "--seed", "", NULL},
		{"--input", "x", "--bogus", NULL},
		{"--input", "x", "extra", NULL},
		{"--input", NULL},
		{"--json", NULL},
		{"--input", "x", "--device", "zram0", NULL},
		{"--device", "sda", NULL},
		{"--input", "x", "--primary", "lzo:3", NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const *a = bad[i];

		assert_int_equal(run_advise(-1, a[0], a[1], a[2], a[3], a[4], NULL), 2);
		assert_string_equal(out_buf, "");
		/* One line on stderr. */
		assert_true(strlen(err_buf) > 0);
		assert_ptr_equal(strchr(err_buf, '\n'), err_buf + strlen(err_buf) - 1);
	}
	assert_int_equal(run_advise(-1, "--input", "x", "--candidates", "zstd,brotli", NULL), 2);
	assert_non_null(strstr(err_buf, "unknown algorithm 'brotli'"));

	assert_int_equal(run_advise(-1, "--help", NULL), 0);
	assert_non_null(strstr(out_buf, "usage: zram-recompd advise"));
}

/* ------------------------------------------------------------ advise_main: devices */

static void test_device(void **state)
{
	struct expect x;
	int root_fd, root, chain;

	(void)state;
	make_device("lzo lzo-rle [lz4] lz4hc zstd deflate \n",
		    "#1: lzo lzo-rle lz4 lz4hc [zstd] deflate \n"
		    "#2: lzo lzo-rle lz4 lz4hc zstd [deflate] \n",
		    true);
	root_fd = fr_open_root();
	assert_true(root_fd >= 0);
	/* --samples 0: every stored slot listed in block_state is read, nothing is scaled. */
	assert_int_equal(run_advise(root_fd, "--device", "zram0", "--json", "--samples", "0", NULL),
			 0);
	root = json_parse(out_buf);
	assert_int_equal(root, 0);
	assert_keys(root, top_keys, 6);
	assert_int_equal(jnum(root, "pages"), MIX_PAGES);
	assert_int_equal(jnum(root, "same_pages"), MIX_PAGES / 5);
	assert_string_equal(jt[jget(jget(root, "primary"), "algo")].str, "lz4");
	expect_compute(mix, MIX_PAGES, COMP_LZ4, COMP_LEVEL_DEFAULT, COMP_ZSTD, COMP_LEVEL_DEFAULT,
		       &x);
	assert_int_equal(jnum(jget(root, "primary"), "compr_bytes"), x.primary_compr);
	chain = jget(root, "chain");
	assert_int_equal(jlen(jget(chain, "algos")), 2);
	assert_string_equal(jt[jat(jget(chain, "algos"), 0)].str, "zstd");
	assert_string_equal(jt[jat(jget(chain, "algos"), 1)].str, "deflate");
	assert_false(jt[jget(jget(root, "recommendation"), "scaled")].b);
	assert_int_equal(jnum(jget(root, "recommendation"), "sampled_pages"), 32);

	/* /dev/zram0 spelled out works too; text mode notes the side effect of reading. */
	assert_int_equal(run_advise(root_fd, "--device", "/dev/zram0", NULL), 0);
	assert_non_null(strstr(out_buf, "zram0: 40 pages stored, 8 same-filled"));
	assert_non_null(strstr(out_buf, "marks it accessed"));
	close(root_fd);
}

/* Without block_state: random slots of the whole disk, zero slots skipped, scaled. */
static void test_device_no_block_state(void **state)
{
	int root_fd, rec;

	(void)state;
	make_device("lzo [lzo-rle] zstd \n", "", false);
	root_fd = fr_open_root();
	assert_int_equal(run_advise(root_fd, "--device", "zram0", "--json", "--samples", "16",
				    "--seed", "3", NULL),
			 0);
	assert_int_equal(json_parse(out_buf), 0);
	assert_string_equal(jt[jget(jget(0, "primary"), "algo")].str, "lzo-rle");
	/* No secondary configured on the device: the configuration default, zstd. */
	assert_int_equal(jlen(jget(jget(0, "chain"), "algos")), 1);
	rec = jget(0, "recommendation");
	assert_true(jnum(rec, "sampled_pages") >= 1 && jnum(rec, "sampled_pages") <= 16);
	assert_true(jt[jget(rec, "scaled")].b);
	close(root_fd);
}

static void test_device_errors(void **state)
{
	int root_fd;

	(void)state;
	make_device("lzo [lzo-rle] zstd \n", "", true);
	root_fd = fr_open_root();

	assert_int_equal(run_advise(root_fd, "--device", "zram7", NULL), 1);
	assert_non_null(strstr(err_buf, "zram7: no such device"));

	fr_write("sys/block/zram0/initstate", "0\n");
	assert_int_equal(run_advise(root_fd, "--device", "zram0", NULL), 1);
	assert_non_null(strstr(err_buf, "not initialized"));

	/* Initialized but empty (every stored page same-filled, or none at all). */
	fr_write("sys/block/zram0/initstate", "1\n");
	fr_write("sys/block/zram0/mm_stat", "0 0 0 0 0 0 0 0 0\n");
	assert_int_equal(run_advise(root_fd, "--device", "zram0", NULL), 1);
	assert_non_null(strstr(err_buf, "no compressed pages"));
	fr_write("sys/block/zram0/mm_stat", "16384 0 0 0 0 4 0 0 0\n");
	assert_int_equal(run_advise(root_fd, "--device", "zram0", NULL), 1);

	/* A primary the mirrors do not cover. */
	make_device("lzo [842] \n", "", true);
	assert_int_equal(run_advise(root_fd, "--device", "zram0", NULL), 1);
	assert_non_null(strstr(err_buf, "'842' is not modelled"));
	/* ... which --primary overrides. */
	assert_int_equal(run_advise(root_fd, "--device", "zram0", "--primary", "lzo", NULL), 0);

	/* mm_stat claims data but block_state lists only same-filled slots and disk is zero. */
	make_device("lzo [lzo-rle] \n", "", false);
	write_bytes("dev/zram0", "", 0);
	{
		static uint8_t zero[64 * 4096];

		write_bytes("dev/zram0", zero, sizeof(zero));
	}
	assert_int_equal(run_advise(root_fd, "--device", "zram0", "--samples", "8", NULL), 1);
	assert_non_null(strstr(err_buf, "no compressed page among 8 sampled slots"));

	/* Unreadable device node (missing). */
	make_device("lzo [lzo-rle] \n", "", false);
	(void)unlink(tpath("dev/zram0"));
	assert_int_equal(run_advise(root_fd, "--device", "zram0", NULL), 1);
	assert_non_null(strstr(err_buf, "cannot open /dev/zram0"));
	close(root_fd);
}

/* ------------------------------------------------------------ stored advice */

static void set_state_dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", fr_dir, rel);
	assert_int_equal(setenv("ZRAM_RECOMPD_STATE_DIR", p, 1), 0);
}

static int open_rel_dir(const char *rel)
{
	int fd = open(tpath(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

/* --save stores exactly the recommendation the report shows. */
static void test_save(void **state)
{
	struct advice_set set;
	const struct advice_entry *a;
	int root_fd, rec, sec, fd;

	(void)state;
	make_device("lzo lzo-rle [lz4] lz4hc zstd deflate \n", "", true);
	root_fd = fr_open_root();
	set_state_dir("state"); /* created by --save */
	assert_int_equal(run_advise(root_fd, "--device", "zram0", "--json", "--samples", "0",
				    "--save", NULL),
			 0);
	assert_int_equal(json_parse(out_buf), 0); /* stdout is still just the JSON */
	assert_non_null(strstr(err_buf, "advise: saved "));
	assert_non_null(strstr(err_buf, " for zram0 (primary lz4) to "));
	rec = jget(0, "recommendation");
	assert_true(jt[jget(rec, "pays")].b);

	fd = open_rel_dir("state");
	assert_int_equal(advice_load(&set, fd), 0);
	close(fd);
	assert_int_equal(set.n, 1);
	a = advice_find(&set, "zram0");
	assert_non_null(a);
	assert_string_equal(a->primary, "lz4");
	sec = jget(rec, "secondaries");
	assert_int_equal(a->n, jlen(sec));
	for (unsigned i = 0; i < a->n; i++) {
		int x = jat(sec, (int)i), lv = jget(x, "level");
		enum comp_algo alg;

		assert_string_equal(a->algo[i], jt[jget(x, "algo")].str);
		assert_int_equal(comp_algo_from_name(a->algo[i], &alg), 0);
		/* A level is stored only when it is not the kernel's default. */
		if (jt[lv].type == J_NUM && (int)jt[lv].num != comp_default_level(alg)) {
			assert_true(a->has_level[i]);
			assert_int_equal(a->level[i], (int)jt[lv].num);
		} else {
			assert_false(a->has_level[i]);
		}
	}
	assert_true(a->pays);
	assert_int_equal(a->pool, jnum(jget(0, "primary"), "mem_bytes"));
	assert_int_equal(a->saving, jnum(rec, "mem_saving_bytes"));
	assert_int_equal(a->samples, 32);
	assert_true(a->time > 1700000000);
	advice_free(&set);

	/* --save needs a device; an unusable state directory is an error (exit 1). */
	assert_int_equal(run_advise(-1, "--input", "x", "--save", NULL), 2);
	assert_non_null(strstr(err_buf, "--save needs --device"));
	fr_write("notadir", "x");
	set_state_dir("notadir");
	assert_int_equal(run_advise(root_fd, "--device", "zram0", "--save", NULL), 1);
	assert_non_null(strstr(err_buf, "--save: state directory"));
	assert_non_null(strstr(out_buf, "recommendation:")); /* the report came first */
	unsetenv("ZRAM_RECOMPD_STATE_DIR");
	close(root_fd);
}

static void fill_dev(struct zram_dev *d, const char *primary)
{
	memset(d, 0, sizeof(*d));
	d->id = 0;
	strcpy(d->name, "zram0");
	d->initialized = true;
	d->comp.n = 1;
	d->comp.selected = 0;
	strcpy(d->comp.name[0], primary);
	d->page_size = 4096;
	d->mm.v[MM_ORIG_DATA_SIZE] = MIX_PAGES * 4096;
	d->mm.v[MM_SAME_PAGES] = MIX_PAGES / 5;
}

/* The periodic refresh: due rules, the data bar, the file written, errors returned. */
static void test_refresh(void **state)
{
	struct advice_entry a, b;
	struct advice_set set;
	struct zram_dev d;
	struct dev_config cfg;
	struct config c;
	int root_fd, fd;
	uint64_t t;

	(void)state;
	make_device("lzo [lzo-rle] zstd \n", "", true);
	root_fd = fr_open_root();
	assert_int_equal(mkdir(tpath("state"), 0755), 0);
	fd = open_rel_dir("state");
	config_init(&c);
	cfg = c.global;
	cfg.algos_auto = true;
	cfg.advise_samples = 16;
	fill_dev(&d, "lzo-rle");

	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, 2000000000, &a), 1);
	assert_string_equal(a.name, "zram0");
	assert_string_equal(a.primary, "lzo-rle");
	assert_int_equal(a.samples, 16);
	assert_true(a.n >= 1);
	t = a.time;
	assert_int_equal(advice_load(&set, fd), 0);
	assert_int_equal(set.n, 1);
	assert_memory_equal(advice_find(&set, "zram0"), &a, sizeof(a));
	advice_free(&set);
	/* Fresh: not due (the stored time counts, not the now given before). */
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t + 10, &b), 0);
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t + 86400, &b), 1);
	/* Another primary makes it due at once. */
	fill_dev(&d, "lz4");
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, b.time, &b), 1);
	assert_string_equal(b.primary, "lzo-rle"); /* what the device says, not the struct */
	fill_dev(&d, "lzo-rle");
	/* Too little data for the sample: wait (nothing written). */
	cfg.advise_samples = 1000;
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t + 10 * 86400, &b), -EAGAIN);
	d.initialized = false;
	cfg.advise_samples = 16;
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t + 10 * 86400, &b), -EAGAIN);
	d.initialized = true;
	/* Not auto, or interval 0: never. */
	cfg.advise_interval_sec = 0;
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t + 10 * 86400, &b), 0);
	cfg.advise_interval_sec = 86400;
	cfg.algos_auto = false;
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t + 10 * 86400, &b), 0);
	cfg.algos_auto = true;
	/* Errors of the device come back as -errno, without a message. */
	d.id = 7;
	strcpy(d.name, "zram7");
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t, &b), -ENODEV);
	d.id = 0;
	strcpy(d.name, "zram0");
	(void)unlink(tpath("dev/zram0"));
	assert_int_equal(advise_refresh(root_fd, fd, &d, &cfg, t + 10 * 86400, &b), -ENOENT);
	assert_int_equal(advise_refresh(root_fd, -1, &d, &cfg, t + 10 * 86400, &b), -EBADF);
	close(fd);
	close(root_fd);
}

/* advise_device() on a device that is not initialized or lacks a modelled primary. */
static void test_advise_device_errors(void **state)
{
	struct advice_entry a;
	int root_fd;

	(void)state;
	make_device("lzo [842] \n", "", true);
	root_fd = fr_open_root();
	assert_int_equal(advise_device(root_fd, 0, 16, 1, &a), -EOPNOTSUPP);
	fr_write("sys/block/zram0/initstate", "0\n");
	assert_int_equal(advise_device(root_fd, 0, 16, 1, &a), -ENODATA);
	make_device("lzo [lzo-rle] \n", "", true);
	assert_int_equal(advise_device(root_fd, 0, 0, 2, &a), 0);
	assert_int_equal(a.samples, 32);
	close(root_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_threads_same_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_levels_and_primary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zst_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_same, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampling_scales, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recommendation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threshold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_no_block_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_advise_device_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
