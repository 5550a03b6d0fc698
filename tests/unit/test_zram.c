// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsers, capability table and command builders of the zram layer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fakeroot.h"
#include "sysfs.h"
#include "util.h"
#include "host.h"
#include "zram.h"

#include <errno.h>
#include <string.h>

/* C-string wrappers for the length-taking parsers (the NUL tests below pass lengths). */
static int mm_str(const char *s, struct zram_mm_stat *m)
{
	return zram_parse_mm_stat(s, strlen(s), m);
}

static int fields_str(const char *s, uint64_t *v, unsigned n)
{
	return zram_parse_fields(s, strlen(s), v, n);
}

static int listing_str(const char *s, struct zram_recomp *r)
{
	return zram_parse_recomp_listing(s, strlen(s), r);
}

static void test_kver(void **state)
{
	struct kver v;

	(void)state;
	assert_int_equal(kver_parse("6.12.118-amd64\n", &v), 0);
	assert_int_equal(v.major, 6);
	assert_int_equal(v.minor, 12);
	assert_int_equal(v.sub, 118);
	assert_int_equal(kver_parse("7.0", &v), 0);
	assert_int_equal(v.major, 7);
	assert_int_equal(v.minor, 0);
	assert_int_equal(v.sub, 0);
	assert_int_equal(kver_parse("6.15.0-rc3+", &v), 0);
	assert_true(kver_ge(&v, 6, 15, 0));
	assert_false(kver_ge(&v, 6, 15, 1));
	assert_int_equal(kver_parse("6", &v), -EINVAL);
	assert_int_equal(kver_parse("linux", &v), -EINVAL);
	assert_int_equal(kver_parse("", &v), -EINVAL);
	v = (struct kver){ 6, 12, 0 };
	assert_true(kver_ge(&v, 6, 2, 0));
	assert_true(kver_ge(&v, 5, 99, 99));
	assert_false(kver_ge(&v, 6, 13, 0));
	assert_false(kver_ge(&v, 7, 0, 0));
}

static void test_mm_stat(void **state)
{
	struct zram_mm_stat m;

	(void)state;
	assert_int_equal(mm_str("109051904 42991616 45203456        0 45203456     1234"
					    "        5     1037     1037\n",
					    &m),
			 0);
	assert_int_equal(m.nfields, 9);
	assert_int_equal(m.v[MM_ORIG_DATA_SIZE], 109051904);
	assert_int_equal(m.v[MM_COMPR_DATA_SIZE], 42991616);
	assert_int_equal(m.v[MM_MEM_USED_TOTAL], 45203456);
	assert_int_equal(m.v[MM_SAME_PAGES], 1234);
	assert_int_equal(m.v[MM_PAGES_COMPACTED], 5);
	assert_int_equal(m.v[MM_HUGE_PAGES], 1037);
	/* Older kernels: fewer fields; the missing ones are 0. */
	assert_int_equal(mm_str("4096 100 8192 0 8192 0 0\n", &m), 0);
	assert_int_equal(m.nfields, 7);
	assert_int_equal(m.v[MM_HUGE_PAGES], 0);
	/* Future kernels: extra fields are ignored. */
	assert_int_equal(mm_str("1 2 3 4 5 6 7 8 9 10 11\n", &m), 0);
	assert_int_equal(m.v[MM_HUGE_PAGES_SINCE], 9);
	/* Values wider than the %8 columns. */
	assert_int_equal(mm_str("18446744073709551615 2 3\n", &m), 0);
	assert_true(m.v[0] == UINT64_MAX);
	assert_int_equal(mm_str("garbage\n", &m), -EINVAL);
	assert_int_equal(mm_str("1 2\n", &m), -EINVAL);
	assert_int_equal(mm_str("1 -2 3\n", &m), -EINVAL);
	assert_int_equal(mm_str("1 2 3\n4 5 6\n", &m), -EINVAL);
	assert_int_equal(mm_str("18446744073709551616 2 3\n", &m), -EINVAL);
	assert_int_equal(mm_str("", &m), -EINVAL);
}

static void test_fields(void **state)
{
	uint64_t v[4];

	(void)state;
	/* io_stat 6.4+: column 3 is a literal 0 */
	assert_int_equal(fields_str("       0        2 0     1234\n", v, 4), 0);
	assert_true(v[1] == 2 && v[2] == 0 && v[3] == 1234);
	/* bd_stat */
	assert_int_equal(fields_str("      12        3       15\n", v, 3), 0);
	assert_true(v[0] == 12 && v[2] == 15);
	assert_int_equal(fields_str("1 2\n", v, 3), -EINVAL);
	/* A newer kernel may add columns: the first n are used (bug: a 4th io_stat
	 * column used to make the whole device unreadable). */
	assert_int_equal(fields_str("1 2 3 4\n", v, 3), 0);
	assert_int_equal(v[2], 3);
	assert_int_equal(fields_str("1 x 3\n", v, 3), -EINVAL);
	assert_int_equal(fields_str("", v, 1), -EINVAL);
}

static void test_algo_list(void **state)
{
	const char *s = "lzo-rle lzo lz4 lz4hc [zstd] deflate 842 \n";
	struct zram_algo_list l;

	(void)state;
	assert_int_equal(zram_parse_algo_list(s, strlen(s), &l), 0);
	assert_int_equal(l.n, 7);
	assert_int_equal(l.selected, 4);
	assert_string_equal(l.name[l.selected], "zstd");
	assert_string_equal(l.name[6], "842");
	assert_true(zram_algo_list_has(&l, "deflate"));
	assert_false(zram_algo_list_has(&l, "brotli"));
	/* Crypto-era (<= 6.11) order with the selection appended. */
	s = "lzo [lzo-rle] lz4 lz4hc 842 zstd \n";
	assert_int_equal(zram_parse_algo_list(s, strlen(s), &l), 0);
	assert_string_equal(l.name[l.selected], "lzo-rle");
	s = "lzo lz4 \n";
	assert_int_equal(zram_parse_algo_list(s, strlen(s), &l), 0);
	assert_int_equal(l.selected, -1);
	s = "[lzo] [lz4] \n";
	assert_int_equal(zram_parse_algo_list(s, strlen(s), &l), -EINVAL);
	s = "[lzo \n";
	assert_int_equal(zram_parse_algo_list(s, strlen(s), &l), -EINVAL);
	s = "LZO \n";
	assert_int_equal(zram_parse_algo_list(s, strlen(s), &l), -EINVAL);
	s = "lzo] \n";
	assert_int_equal(zram_parse_algo_list(s, strlen(s), &l), -EINVAL);
}

static void test_recomp_listing(void **state)
{
	struct zram_recomp r;

	(void)state;
	assert_int_equal(listing_str("", &r), 0);
	assert_int_equal(r.count, 0);
	assert_int_equal(r.highest, 0);
	assert_false(r.gap);

	assert_int_equal(listing_str("#1: lzo-rle lzo lz4 lz4hc [zstd] deflate 842 \n"
						   "#2: lzo-rle lzo lz4 lz4hc zstd [deflate] 842 \n",
						   &r),
			 0);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.highest, 2);
	assert_false(r.gap);
	assert_string_equal(r.name[1], "zstd");
	assert_string_equal(r.name[2], "deflate");
	assert_int_equal(zram_recomp_find(&r, "deflate"), 2);
	assert_int_equal(zram_recomp_find(&r, "lz4"), 0);
	assert_int_equal(r.avail.n, 7);

	/* 6.15+ trap: only priority 2 configured. */
	assert_int_equal(listing_str("#2: lzo lz4 [zstd] \n", &r), 0);
	assert_true(r.gap);
	assert_int_equal(r.highest, 2);
	assert_int_equal(r.count, 1);
	assert_int_equal(listing_str("#1: [zstd] \n#3: [lz4hc] \n", &r), 0);
	assert_true(r.gap);

	assert_int_equal(listing_str("#4: [zstd] \n", &r), -EINVAL);
	assert_int_equal(listing_str("#0: [zstd] \n", &r), -EINVAL);
	assert_int_equal(listing_str("#2: [zstd] \n#1: [lz4] \n", &r), -EINVAL);
	assert_int_equal(listing_str("#1: [zstd] \n#1: [lz4] \n", &r), -EINVAL);
	assert_int_equal(listing_str("#1: zstd lz4 \n", &r), -EINVAL);
	assert_int_equal(listing_str("1: [zstd] \n", &r), -EINVAL);
	assert_int_equal(listing_str("#1:[zstd]\n", &r), -EINVAL);
	assert_int_equal(listing_str("garbage", &r), -EINVAL);
}

/*
 * recomp_algorithm as 6.17+ (7.3.4 measured) returns it: each "#P: " record is written at
 * the running size, which the kernel then advances by the absolute end offset again, so
 * NUL runs follow every record (ABI doc §12.3). Built here the way the kernel lays it out.
 */
static size_t nul_listing(char *buf, size_t size, const char *const *lists, unsigned n)
{
	size_t sz = 0;

	memset(buf, 0, size);
	for (unsigned p = 0; p < n; p++) {
		size_t at, l = strlen(lists[p]);

		sz += (size_t)snprintf(buf + sz, size - sz, "#%u: ", p + 1);
		at = sz;
		memcpy(buf + at, lists[p], l);
		sz += at + l; /* the kernel's "sz += zcomp_available_show(..., buf, sz)" */
	}
	return sz;
}

static void test_recomp_listing_nul(void **state)
{
	/* The exact 150 bytes read on 7.3.4 with zstd at 1 and deflate at 2. */
	static const char *const two[] = { "lzo-rle lzo lz4 lz4hc [zstd] deflate 842 \n",
					   "lzo-rle lzo lz4 lz4hc zstd [deflate] 842 \n" };
	static const char *const three[] = { "lz4 lz4hc [zstd] deflate \n",
					     "lz4 lz4hc zstd [deflate] \n",
					     "lz4 [lz4hc] zstd deflate \n" };
	struct zram_recomp r;
	char buf[4096];
	size_t len;

	(void)state;
	len = nul_listing(buf, sizeof(buf), two, 2);
	assert_int_equal(len, 150);
	assert_int_equal(buf[46], '\0'); /* four NULs after the first record */
	assert_int_equal(buf[50], '#');
	assert_int_equal(zram_parse_recomp_listing(buf, len, &r), 0);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.highest, 2);
	assert_false(r.gap);
	assert_string_equal(r.name[1], "zstd");
	assert_string_equal(r.name[2], "deflate");
	assert_int_equal(r.avail.n, 7);
	/* What a C-string reader saw: only the first priority. */
	assert_int_equal(listing_str(buf, &r), 0);
	assert_int_equal(r.count, 1);

	/* One secondary: 8 + L bytes (4 trailing NULs); Debian 7.3's backend set. */
	len = nul_listing(buf, sizeof(buf), three, 1);
	assert_int_equal(len, 8 + strlen(three[0]));
	assert_int_equal(zram_parse_recomp_listing(buf, len, &r), 0);
	assert_int_equal(r.count, 1);
	assert_string_equal(r.name[1], "zstd");

	/* Three: 56 + 4*L1 + 2*L2 + L3 bytes. */
	len = nul_listing(buf, sizeof(buf), three, 3);
	assert_int_equal(len, 56 + 4 * strlen(three[0]) + 2 * strlen(three[1]) + strlen(three[2]));
	assert_int_equal(zram_parse_recomp_listing(buf, len, &r), 0);
	assert_int_equal(r.count, 3);
	assert_string_equal(r.name[3], "lz4hc");

	/* Zero secondaries: 0 bytes; only NULs or whitespace: nothing configured either. */
	assert_int_equal(zram_parse_recomp_listing(buf, 0, &r), 0);
	assert_int_equal(r.count, 0);
	assert_int_equal(zram_parse_recomp_listing("\0\0\n \0", 5, &r), 0);
	assert_int_equal(r.count, 0);
	/* Missing trailing newline, CRLF, tabs, extra newlines. */
	assert_int_equal(listing_str("#1: lzo [zstd]", &r), 0);
	assert_int_equal(r.count, 1);
	assert_int_equal(listing_str("\n#1: lzo\t[zstd] \r\n\n#2: [lz4] \n\n", &r), 0);
	assert_int_equal(r.count, 2);
	/* Garbage between records is still refused. */
	assert_int_equal(zram_parse_recomp_listing("#1: [zstd] \n\0*#2: [lz4] \n", 25, &r), -EINVAL);
	assert_int_equal(zram_parse_recomp_listing("#1: [zstd] \0\0#1: [lz4] \n", 24, &r), -EINVAL);
}

static void test_nul_tolerant_readers(void **state)
{
	struct zram_mm_stat m;
	uint64_t v[3], u;

	(void)state;
	/* NUL padding, no newline, extra newlines. */
	assert_int_equal(zram_parse_mm_stat("4096 100 8192 0 8192 0 0\n\0\0\0", 28, &m), 0);
	assert_int_equal(m.nfields, 7);
	assert_int_equal(m.v[MM_MEM_USED_TOTAL], 8192);
	assert_int_equal(mm_str("4096 100 8192", &m), 0);
	assert_int_equal(mm_str("4096 100 8192\n\n", &m), 0);
	assert_int_equal(zram_parse_fields("1 2\0 3\n", 7, v, 3), 0);
	assert_int_equal(v[2], 3);
	assert_int_equal(parse_u64_text("1\n", 2, &u), 0);
	assert_int_equal(u, 1);
	assert_int_equal(parse_u64_text(" 42 \n\0\0", 7, &u), 0);
	assert_int_equal(u, 42);
	assert_int_equal(parse_u64_text("42", 2, &u), 0);
	assert_int_equal(parse_u64_text("4\0002", 3, &u), -EINVAL);
	assert_int_equal(parse_u64_text("\0\0", 2, &u), -EINVAL);
	assert_int_equal(parse_u64_text("", 0, &u), -EINVAL);
}

static void test_caps(void **state)
{
	struct zram_caps c;
	struct kver v;
	char why[8][256];
	unsigned n;

	(void)state;
	v = (struct kver){ 6, 2, 0 };
	zram_caps_derive(&c, &v, true, false, false, true, TRI_UNKNOWN);
	assert_true(c.multi_comp);
	assert_false(c.max_pages);
	assert_false(c.priority);
	assert_false(c.eagain);
	assert_false(c.prio_max_active);
	assert_true(c.threshold_pagesize);
	assert_int_equal(c.idle_age, TRI_UNKNOWN);
	n = zram_caps_explain(&c, &v, why, 8);
	assert_int_equal(n, 5);
	assert_non_null(strstr(why[0], "max_pages"));
	assert_non_null(strstr(why[0], "6.10"));

	v = (struct kver){ 6, 10, 3 };
	zram_caps_derive(&c, &v, true, false, true, true, TRI_NO);
	assert_true(c.max_pages);
	assert_false(c.priority);
	assert_int_equal(c.idle_age, TRI_YES); /* block_state implies ac-time tracking */

	v = (struct kver){ 6, 12, 0 };
	zram_caps_derive(&c, &v, true, true, false, true, TRI_NO);
	assert_true(c.priority);
	assert_false(c.eagain); /* 6.12.0 had no pp_in_progress */
	assert_int_equal(c.idle_age, TRI_NO);
	v = (struct kver){ 6, 12, 118 };
	zram_caps_derive(&c, &v, true, true, true, true, TRI_UNKNOWN);
	assert_true(c.eagain);
	assert_false(c.prio_max_active);
	n = zram_caps_explain(&c, &v, why, 8);
	assert_int_equal(n, 0);

	v = (struct kver){ 6, 15, 0 };
	zram_caps_derive(&c, &v, true, true, true, true, TRI_UNKNOWN);
	assert_true(c.prio_max_active);
	assert_true(c.eagain);
	v = (struct kver){ 7, 0, 0 };
	zram_caps_derive(&c, &v, true, true, true, true, TRI_UNKNOWN);
	assert_false(c.eagain); /* 7.0 blocks instead */
	assert_true(c.prio_max_active);

	/* No MULTI_COMP: nothing recompression-related, one explanation. */
	v = (struct kver){ 6, 18, 44 };
	zram_caps_derive(&c, &v, false, true, false, false, TRI_NO);
	assert_false(c.multi_comp);
	assert_false(c.max_pages);
	assert_false(c.eagain);
	n = zram_caps_explain(&c, &v, why, 8);
	assert_int_equal(n, 1);
	assert_non_null(strstr(why[0], "CONFIG_ZRAM_MULTI_COMP"));
	v = (struct kver){ 5, 15, 0 };
	n = zram_caps_explain(&c, &v, why, 8);
	assert_non_null(strstr(why[0], "6.2"));
}

static struct zram_dev dev_612(void)
{
	struct zram_dev d = { .id = 0, .name = "zram0", .initialized = true, .page_size = 4096 };
	struct kver v = { 6, 12, 118 };
	const char *s = "lzo-rle lzo lz4 lz4hc [zstd] deflate 842 \n";

	assert_int_equal(zram_parse_algo_list(s, strlen(s), &d.comp), 0);
	assert_int_equal(listing_str("#1: lzo [zstd] \n#2: lzo [deflate] \n", &d.recomp),
			 0);
	zram_caps_derive(&d.caps, &v, true, true, true, true, TRI_YES);
	return d;
}

static void test_pass_type_names(void **state)
{
	assert_string_equal(pass_type_name(PASS_HUGE_IDLE), "huge_idle");
	assert_string_equal(pass_type_name(PASS_IDLE), "idle");
	assert_string_equal(pass_type_name(PASS_HUGE), "huge");
	assert_string_equal(pass_type_name((enum pass_type)PASS_NR_TYPES), "unknown");
}

static void test_build_recompress(void **state)
{
	struct zram_dev d = dev_612();
	char buf[160];
	struct recompress_cmd c = { .type = PASS_IDLE };

	(void)state;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "type=idle");
	c = (struct recompress_cmd){ .type = PASS_HUGE_IDLE, .threshold = 3000, .max_pages = 2048 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "type=huge_idle threshold=3000 max_pages=2048");
	c = (struct recompress_cmd){ .type = PASS_HUGE, .algo = "deflate", .max_pages = 1 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "type=huge algo=deflate max_pages=1");
	c = (struct recompress_cmd){ .type = PASS_IDLE, .priority = 2 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "type=idle priority=2");

	/* Every rejected value, none of which the kernel would reject itself. */
	c = (struct recompress_cmd){ .type = (enum pass_type)7 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .threshold = 4096 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .algo = "lz4" };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .algo = "zstd max_pages=0" };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .priority = 3 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .priority = 4 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .max_pages = 2048 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, 10), -ENOBUFS);
	/* The threshold bound is the device's page size: 16 and 64 KiB pages take more. */
	c = (struct recompress_cmd){ .type = PASS_IDLE, .threshold = 4096 };
	d.page_size = 16384;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "type=idle threshold=4096");
	c.threshold = 16383;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), 0);
	c.threshold = 16384;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	d.page_size = 65536;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "type=idle threshold=16384");
	c.threshold = 65536;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	/* a device without a valid page size gets no command at all */
	c.threshold = 0;
	d.page_size = 0;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	d.page_size = 12288;
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EINVAL);
	d.page_size = 4096;

	/* Version gates: keys that older kernels would silently ignore. */
	struct kver v = { 6, 9, 0 };
	zram_caps_derive(&d.caps, &v, true, false, false, true, TRI_YES);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .max_pages = 2048 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EOPNOTSUPP);
	v = (struct kver){ 6, 11, 0 };
	zram_caps_derive(&d.caps, &v, true, false, false, true, TRI_YES);
	c = (struct recompress_cmd){ .type = PASS_IDLE, .priority = 1 };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EOPNOTSUPP);
	zram_caps_derive(&d.caps, &v, false, false, false, true, TRI_YES);
	c = (struct recompress_cmd){ .type = PASS_IDLE };
	assert_int_equal(zram_build_recompress(&d, &c, buf, sizeof(buf)), -EOPNOTSUPP);
}

static void test_build_other(void **state)
{
	struct zram_dev d = dev_612();
	char buf[64];

	(void)state;
	assert_int_equal(zram_build_idle(&d, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "all");
	assert_int_equal(zram_build_idle(&d, 3600, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3600");
	assert_int_equal(zram_build_idle(&d, 31536001, buf, sizeof(buf)), -ERANGE);
	d.caps.idle_age = TRI_NO;
	assert_int_equal(zram_build_idle(&d, 60, buf, sizeof(buf)), -EOPNOTSUPP);

	d.initialized = false;
	assert_int_equal(zram_build_recomp_algorithm(&d, "deflate", 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "algo=deflate priority=2");
	assert_int_equal(zram_build_recomp_algorithm(&d, "brotli", 1, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(zram_build_recomp_algorithm(&d, "zstd", 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(zram_build_recomp_algorithm(&d, "zstd", 4, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(zram_build_recomp_algorithm(&d, "zs td", 1, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(zram_build_algorithm_params(&d, 2, 9, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "priority=2 level=9");
	assert_int_equal(zram_build_algorithm_params(&d, 1, -5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "priority=1 level=-5");
	/* levels the backend refuses (7.3 checks them at disksize) */
	strcpy(d.recomp.name[2], "deflate");
	d.recomp.set[2] = true;
	assert_int_equal(zram_build_algorithm_params(&d, 2, 10, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(zram_build_algorithm_params(&d, 2, -1, buf, sizeof(buf)), 0);
	strcpy(d.recomp.name[2], "lz4hc");
	assert_int_equal(zram_build_algorithm_params(&d, 2, 17, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(zram_build_algorithm_params(&d, 2, 0, buf, sizeof(buf)), -ERANGE);
	strcpy(d.recomp.name[2], "zstd");
	assert_int_equal(zram_build_algorithm_params(&d, 2, 23, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(zram_build_algorithm_params(&d, 2, 19, buf, sizeof(buf)), 0);
	strcpy(d.recomp.name[2], "lzo-rle");
	assert_int_equal(zram_build_algorithm_params(&d, 2, 1, buf, sizeof(buf)), -EOPNOTSUPP);
	d.initialized = true; /* ABI pitfall 9: never after disksize */
	assert_int_equal(zram_build_algorithm_params(&d, 2, 9, buf, sizeof(buf)), -EBUSY);
}

/* algorithm_params with dict= (issue 28): zstd only, a plain absolute path, before disksize. */
static void test_build_params_dict(void **state)
{
	struct zram_dev d = dev_612();
	const char *p = "/run/credentials/zram-recompd-dict@zram0.service/zram0.zdict";
	char buf[320];

	(void)state;
	d.initialized = false;
	strcpy(d.recomp.name[2], "zstd");
	d.recomp.set[2] = true;
	assert_int_equal(zram_build_algorithm_params_dict(&d, 2, true, 9, p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "priority=2 level=9 dict=/run/credentials/"
				 "zram-recompd-dict@zram0.service/zram0.zdict");
	assert_int_equal(zram_build_algorithm_params_dict(&d, 2, false, 0, "/run/a.zdict", buf,
							  sizeof(buf)),
			 0);
	assert_string_equal(buf, "priority=2 dict=/run/a.zdict");
	/* neither: nothing to write */
	assert_int_equal(zram_build_algorithm_params_dict(&d, 2, false, 0, NULL, buf, sizeof(buf)),
			 -EINVAL);
	/* 7.3 refuses dict= for deflate, lzo, lzo-rle and 842 at disksize */
	strcpy(d.recomp.name[2], "deflate");
	assert_int_equal(zram_build_algorithm_params_dict(&d, 2, true, 9, "/run/a.zdict", buf,
							  sizeof(buf)),
			 -EOPNOTSUPP);
	strcpy(d.recomp.name[2], "zstd");
	/* paths next_arg() would split or unquote, relative or with . or .. components */
	assert_false(zram_dict_path_valid("run/a.zdict"));
	assert_false(zram_dict_path_valid("/run/a b.zdict"));
	assert_false(zram_dict_path_valid("/run/\"a\".zdict"));
	assert_false(zram_dict_path_valid("/run/../etc/shadow"));
	assert_false(zram_dict_path_valid("/run/./a"));
	assert_false(zram_dict_path_valid("/run//a"));
	assert_false(zram_dict_path_valid("/run/a/"));
	assert_false(zram_dict_path_valid("/run/a\n"));
	assert_true(zram_dict_path_valid("/run/..a/b..c/.d"));
	assert_int_equal(zram_build_algorithm_params_dict(&d, 2, true, 9, "/run/a b", buf,
							  sizeof(buf)),
			 -EINVAL);
	/* 6.11: no algorithm_params at all; and never after disksize */
	d.caps.algorithm_params = false;
	assert_int_equal(zram_build_algorithm_params_dict(&d, 2, true, 9, p, buf, sizeof(buf)),
			 -EOPNOTSUPP);
	d.caps.algorithm_params = true;
	d.initialized = true;
	assert_int_equal(zram_build_algorithm_params_dict(&d, 2, true, 9, p, buf, sizeof(buf)),
			 -EBUSY);
}

/* host_parse_meminfo: by length; NULs ending a line, no last newline, long lines. */
static void test_meminfo_parse(void **state)
{
	static const char nul[] = "MemTotal: 8 kB\0\0\nMemAvailable: 4 kB\n";
	static const char cut[] = "MemTotal: 8 kB\nMemAvailable: 4 kB";
	char big[400];
	uint64_t t = 0, a = 0;

	(void)state;
	assert_int_equal(host_parse_meminfo(nul, sizeof(nul) - 1, &t, &a), 0);
	assert_true(t == 8192 && a == 4096);
	assert_int_equal(host_parse_meminfo(cut, sizeof(cut) - 1, &t, &a), 0);
	assert_true(t == 8192 && a == 4096);
	/* Only the bytes given: "MemAvailable: 4" cut at "Mem" is no MemAvailable line. */
	assert_int_equal(host_parse_meminfo(cut, 18, &t, &a), -EINVAL);
	assert_int_equal(host_parse_meminfo("MemTotal: 0 kB\nMemAvailable: 0 kB\n", 34, &t, &a),
			 -EINVAL);
	assert_int_equal(host_parse_meminfo("", 0, &t, &a), -EINVAL);
	/* A line longer than any the kernel prints is skipped, and the next one still read. */
	memset(big, 'x', sizeof(big));
	memcpy(big, "MemTotal: 16 kB\n", 16);
	big[300] = '\n';
	memcpy(big + 301, "MemAvailable: 2 kB\n", 19);
	assert_int_equal(host_parse_meminfo(big, 320, &t, &a), 0);
	assert_true(t == 16384 && a == 2048);
	/* Saturated, never wrapped. */
	assert_int_equal(
		host_parse_meminfo("MemTotal: 18446744073709551615 kB\nMemAvailable: 1 kB\n", 53,
				   &t, &a),
		0);
	assert_true(t == UINT64_MAX);
}

static void test_probe_and_write(void **state)
{
	struct zram_dev d;
	struct kver v = { 6, 12, 118 };
	const char *attr = NULL;
	uint64_t total, avail;
	int root;

	(void)state;
	assert_int_equal(fr_setup(), 0);
	fr_write("proc/sys/kernel/osrelease", "6.12.118-amd64\n");
	fr_write("proc/meminfo", "MemTotal:        1000000 kB\nMemFree:  1 kB\n"
				 "MemAvailable:     250000 kB\n");
	fr_write("sys/devices/virtual/block/zram0/initstate", "1\n");
	fr_write("sys/devices/virtual/block/zram0/disksize", "1073741824\n");
	fr_write("sys/devices/virtual/block/zram0/comp_algorithm",
		 "[lzo-rle] lzo lz4 lz4hc zstd deflate 842 \n");
	fr_write("sys/devices/virtual/block/zram0/recomp_algorithm",
		 "#1: lzo-rle lzo lz4 lz4hc [zstd] deflate 842 \n");
	fr_write("sys/devices/virtual/block/zram0/recompress", "");
	fr_write("sys/devices/virtual/block/zram0/algorithm_params", "");
	fr_write("sys/devices/virtual/block/zram0/mm_stat", " 4096 100 8192 0 8192 0 0 0 0\n");
	fr_write("sys/devices/virtual/block/zram0/idle", "");
	fr_write("sys/devices/virtual/block/zram0/reset", "");
	/* an absolute link, resolved inside the root */
	char link[PATH_MAX];
	snprintf(link, sizeof(link), "%s/sys/block", fr_dir);
	(void)mkdir(link, 0755);
	snprintf(link, sizeof(link), "%s/sys/block/zram0", fr_dir);
	assert_int_equal(symlink("/sys/devices/virtual/block/zram0", link), 0);
	root = fr_open_root();
	assert_true(root >= 0);

	unsigned *ids = NULL;
	assert_int_equal(sysfs_list_zram(root, &ids), 1);
	assert_int_equal(ids[0], 0);
	free(ids);
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), 0);
	assert_true(d.initialized);
	assert_true(d.disksize == 1073741824ULL);
	assert_string_equal(zram_primary(&d), "lzo-rle");
	assert_string_equal(d.recomp.name[1], "zstd");
	assert_true(d.caps.multi_comp);
	assert_false(d.caps.block_state);
	assert_int_equal(d.mm.v[MM_MEM_USED_TOTAL], 8192);
	/* no queue/physical_block_size in this root: the page size of the kernel we run on */
	assert_int_equal(d.page_size, sysconf(_SC_PAGESIZE));
	/* zram's physical_block_size is PAGE_SIZE: 16 KiB on a Raspberry Pi 5 */
	fr_write("sys/devices/virtual/block/zram0/queue/physical_block_size", "16384\n");
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), 0);
	assert_int_equal(d.page_size, 16384);
	fr_write("sys/devices/virtual/block/zram0/queue/physical_block_size", "65536\n");
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), 0);
	assert_int_equal(d.page_size, 65536);
	/* not a page size: the probe fails, naming the attribute */
	fr_write("sys/devices/virtual/block/zram0/queue/physical_block_size", "512\n");
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), -EINVAL);
	assert_string_equal(attr, "queue/physical_block_size");
	fr_write("sys/devices/virtual/block/zram0/queue/physical_block_size", "12288\n");
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), -EINVAL);
	fr_write("sys/devices/virtual/block/zram0/queue/physical_block_size", "4096\n");
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), 0);
	assert_int_equal(d.page_size, 4096);
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 1, &d, &attr), -ENODEV);

	assert_int_equal(host_read_meminfo(root, &total, &avail), 0);
	assert_true(total == 1024000000ULL);
	assert_true(avail == 256000000ULL);

	/* Commands land as lines, in order; anything off the allowlist is refused. */
	assert_int_equal(zram_write(root, 0, "idle", "all"), 0);
	assert_int_equal(zram_write(root, 0, "recompress", "type=idle max_pages=2048"), 0);
	assert_int_equal(zram_write(root, 0, "recompress", "type=huge max_pages=2048"), 0);
	assert_string_equal(fr_read("sys/devices/virtual/block/zram0/recompress"),
			    "type=idle max_pages=2048\ntype=huge max_pages=2048\n");
	assert_string_equal(fr_read("sys/devices/virtual/block/zram0/idle"), "all\n");
	assert_int_equal(zram_write(root, 0, "reset", "1"), -EPERM);
	assert_int_equal(zram_write(root, 0, "disksize", "1G"), -EPERM);
	assert_string_equal(fr_read("sys/devices/virtual/block/zram0/reset"), "");
	assert_false(sysfs_write_allowed("sys/block/zram0/../zram1/recompress"));
	assert_false(sysfs_write_allowed("sys/block/zram00/recompress"));
	assert_false(sysfs_write_allowed("sys/block/loop0/recompress"));
	assert_false(sysfs_write_allowed("/sys/block/zram0/recompress"));
	assert_true(sysfs_write_allowed("sys/block/zram12/compact"));
	/* writeback gains exactly its own attributes */
	assert_true(sysfs_write_allowed("sys/block/zram0/writeback"));
	assert_true(sysfs_write_allowed("sys/block/zram0/writeback_limit"));
	assert_true(sysfs_write_allowed("sys/block/zram0/writeback_limit_enable"));
	assert_true(sysfs_write_allowed("sys/block/zram0/writeback_batch_size"));
	assert_true(sysfs_write_allowed("sys/block/zram0/backing_dev"));
	assert_true(sysfs_write_allowed("sys/block/zram0/compressed_writeback"));
	assert_false(sysfs_write_allowed("sys/block/zram0/bd_stat"));
	assert_false(sysfs_write_allowed("sys/block/zram0/mem_limit"));

	/* malformed attribute contents name the attribute */
	fr_write("sys/devices/virtual/block/zram0/mm_stat", "garbage\n");
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), -EINVAL);
	assert_string_equal(attr, "mm_stat");
	fr_write("sys/devices/virtual/block/zram0/mm_stat", "1 2 3 4 5 6 7 8 9\n");
	fr_write("sys/devices/virtual/block/zram0/recomp_algorithm", "#1: zstd\n");
	assert_int_equal(zram_probe(root, &v, TRI_UNKNOWN, 0, &d, &attr), -EINVAL);
	assert_string_equal(attr, "recomp_algorithm");
	close(root);
	fr_teardown();
}

static void test_kconfig(void **state)
{
	struct kver v = { 6, 12, 0 };
	int root;

	(void)state;
	assert_int_equal(fr_setup(), 0);
	root = fr_open_root();
	assert_int_equal(host_kconfig_idle_age(root, &v, "6.12.0"), TRI_UNKNOWN);
	fr_write("boot/config-6.12.0", "CONFIG_ZRAM=y\n# CONFIG_ZRAM_TRACK_ENTRY_ACTIME is not set\n");
	assert_int_equal(host_kconfig_idle_age(root, &v, "6.12.0"), TRI_NO);
	fr_write("boot/config-6.12.0", "CONFIG_ZRAM=m\nCONFIG_ZRAM_TRACK_ENTRY_ACTIME=y\n");
	assert_int_equal(host_kconfig_idle_age(root, &v, "6.12.0"), TRI_YES);
	fr_write("boot/config-6.12.0", "CONFIG_ZRAM=m\n");
	assert_int_equal(host_kconfig_idle_age(root, &v, "6.12.0"), TRI_NO);
	/* 6.2-6.7: MEMORY_TRACKING is the switch */
	v = (struct kver){ 6, 6, 0 };
	fr_write("boot/config-6.6.0", "CONFIG_ZRAM=m\nCONFIG_ZRAM_MEMORY_TRACKING=y\n");
	assert_int_equal(host_kconfig_idle_age(root, &v, "6.6.0"), TRI_YES);
	close(root);
	fr_teardown();
}

/* writeback by index: one page_index= per write before 6.16, ranges from 6.16, validated. */
/* The writeback index command for slot idx at page size ps: rc, and the text when 0. */
static void one_index(struct zram_dev *d, uint32_t ps, uint64_t idx, int rc, const char *want)
{
	struct wb_range r[] = {{idx, idx}};
	size_t pos = 0;
	uint64_t off = 0;
	char buf[64];

	d->page_size = ps;
	assert_int_equal(zram_build_writeback_index(d, r, 1, &pos, &off, buf, sizeof(buf)), rc);
	if (want)
		assert_string_equal(buf, want);
}

static void test_writeback_index_builder(void **state)
{
	struct zram_dev d = {.page_size = 4096};
	struct kver v612 = {6, 12, 0}, v73 = {7, 3, 4};
	struct wb_range r[] = {{0, 2}, {5, 5}, {9, 12}};
	size_t pos = 0;
	uint64_t off = 0;
	char buf[64];

	(void)state;
	d.disksize = 16 * 4096; /* 16 slots */
	zram_caps_derive(&d.caps, &v612, true, true, true, true, TRI_YES);
	assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, sizeof(buf)),
			 -ENODEV);
	strcpy(d.backing_dev, "/dev/loop0");
	/* 6.2-6.15: one index per write, every index of every range in order */
	{
		const char *want[] = {"page_index=0",  "page_index=1", "page_index=2",
				      "page_index=5",  "page_index=9", "page_index=10",
				      "page_index=11", "page_index=12"};

		for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
			assert_int_equal(
				zram_build_writeback_index(&d, r, 3, &pos, &off, buf, sizeof(buf)),
				0);
			assert_string_equal(buf, want[i]);
		}
		assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, sizeof(buf)),
				 -ENOENT);
	}
	/* 6.16+: several keys per write, as many as fit; a single slot is page_index= */
	zram_caps_derive(&d.caps, &v73, true, true, true, true, TRI_YES);
	pos = 0;
	off = 0;
	assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "page_indexes=0-2 page_index=5 page_indexes=9-12");
	assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, sizeof(buf)),
			 -ENOENT);
	pos = 0;
	assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, 30), 0);
	assert_string_equal(buf, "page_indexes=0-2 page_index=5");
	assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, 30), 0);
	assert_string_equal(buf, "page_indexes=9-12");
	assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, 30), -ENOENT);
	/* a key that does not fit at all */
	pos = 0;
	assert_int_equal(zram_build_writeback_index(&d, r, 3, &pos, &off, buf, 8), -ENOSPC);
	/* validated: past the device's slots, inverted, overlapping or out of order */
	{
		struct wb_range past[] = {{15, 16}}, inv[] = {{3, 2}}, order[] = {{4, 6}, {6, 8}};

		pos = 0;
		assert_int_equal(
			zram_build_writeback_index(&d, past, 1, &pos, &off, buf, sizeof(buf)),
			-ERANGE);
		pos = 0;
		assert_int_equal(
			zram_build_writeback_index(&d, inv, 1, &pos, &off, buf, sizeof(buf)),
			-ERANGE);
		pos = 0;
		assert_int_equal(
			zram_build_writeback_index(&d, order, 2, &pos, &off, buf, sizeof(buf)),
			-ERANGE);
		zram_caps_derive(&d.caps, &v612, true, true, true, true, TRI_YES);
		pos = 0;
		off = 0;
		assert_int_equal(
			zram_build_writeback_index(&d, past, 1, &pos, &off, buf, sizeof(buf)),
			-ERANGE);
	}
	/* The same disksize holds 4 slots of 16 KiB and 1 of 64 KiB: 4 is past the end. */
	one_index(&d, 16384, 3, 0, "page_index=3");
	one_index(&d, 16384, 4, -ERANGE, NULL);
	one_index(&d, 65536, 0, 0, "page_index=0");
	one_index(&d, 65536, 1, -ERANGE, NULL);
	one_index(&d, 0, 0, -EINVAL, NULL);
}

/* writeback commands: the syntax of each version, every value validated. */
static void test_writeback_builders(void **state)
{
	struct zram_dev d = { .page_size = 4096 };
	struct kver v62 = { 6, 2, 16 }, v616 = { 6, 16, 0 }, v73 = { 7, 3, 4 };
	char buf[160], back[128];

	(void)state;
	zram_caps_derive(&d.caps, &v62, true, false, true, false, TRI_YES);
	assert_int_equal(zram_build_writeback(&d, WB_IDLE, buf, sizeof(buf)), -EOPNOTSUPP);
	zram_caps_derive(&d.caps, &v62, true, false, true, true, TRI_YES);
	/* no backing device: nothing to write to */
	assert_int_equal(zram_build_writeback(&d, WB_IDLE, buf, sizeof(buf)), -ENODEV);
	strcpy(d.backing_dev, "/dev/loop0");
	/* 6.2-6.15: the bare word (sysfs_streq of the whole buffer) */
	assert_int_equal(zram_build_writeback(&d, WB_INCOMPRESSIBLE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "incompressible");
	assert_int_equal(zram_build_writeback(&d, WB_HUGE_IDLE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "huge_idle");
	assert_int_equal(zram_build_writeback(&d, (enum wb_type)4, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(zram_build_writeback(&d, (enum wb_type)-1, buf, sizeof(buf)), -EINVAL);
	/* 6.16+: type= */
	zram_caps_derive(&d.caps, &v616, true, true, true, true, TRI_YES);
	assert_int_equal(zram_build_writeback(&d, WB_HUGE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "type=huge");
	assert_int_equal(zram_build_writeback(&d, WB_IDLE, buf, 8), -ENOBUFS);
	assert_int_equal(zram_build_writeback_limit(&d, 2048, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2048");
	assert_int_equal(zram_build_writeback_limit(&d, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0");
	/* the limit counts 4 KiB units whatever the page size: pages x PAGE_SIZE / 4096,
	 * always whole pages (<= 6.18 another value wraps), saturating to whole pages */
	d.page_size = 16384;
	assert_int_equal(zram_build_writeback_limit(&d, 2048, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "8192");
	assert_int_equal(zram_build_writeback_limit(&d, UINT64_MAX, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "18446744073709551612");
	d.page_size = 65536;
	assert_int_equal(zram_build_writeback_limit(&d, 2048, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "32768");
	assert_int_equal(zram_build_writeback_limit(&d, UINT64_MAX, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "18446744073709551600");
	d.page_size = 0;
	assert_int_equal(zram_build_writeback_limit(&d, 1, buf, sizeof(buf)), -EINVAL);
	d.page_size = 4096;
	/* writeback_batch_size and compressed_writeback: by their files */
	assert_int_equal(zram_build_writeback_batch_size(&d, 64, buf, sizeof(buf)), -EOPNOTSUPP);
	assert_int_equal(zram_build_compressed_writeback(&d, true, buf, sizeof(buf)), -EOPNOTSUPP);
	zram_caps_derive(&d.caps, &v73, true, true, true, true, TRI_YES);
	d.caps.wb_batch_size = d.caps.compressed_wb = true;
	assert_int_equal(zram_build_writeback_batch_size(&d, 64, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "64");
	assert_int_equal(zram_build_writeback_batch_size(&d, 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(zram_build_writeback_batch_size(&d, UINT64_C(1) << 32, buf, sizeof(buf)),
			 -EINVAL);
	/* before disksize only */
	d.initialized = false;
	assert_int_equal(zram_build_compressed_writeback(&d, true, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1");
	assert_int_equal(zram_build_backing_dev(&d, "/dev/loop0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/dev/loop0");
	assert_int_equal(zram_build_backing_dev(&d, "/dev/../etc/shadow", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(zram_build_backing_dev(&d, "/dev/loop0\n/dev/sda", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(zram_build_backing_dev(&d, "/tmp/file", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(zram_build_backing_dev(&d, "/dev/", buf, sizeof(buf)), -EINVAL);
	assert_true(zram_blockdev_path_valid("/dev/disk/by-partlabel/zram-wb"));
	assert_true(zram_blockdev_path_valid("/dev/mapper/vg0-swap.wb"));
	assert_false(zram_blockdev_path_valid("/dev/mapper/"));
	assert_false(zram_blockdev_path_valid("/dev/./loop0"));
	assert_false(zram_blockdev_path_valid("/dev/lo op0"));
	d.initialized = true;
	assert_int_equal(zram_build_backing_dev(&d, "/dev/loop0", buf, sizeof(buf)), -EBUSY);
	assert_int_equal(zram_build_compressed_writeback(&d, true, buf, sizeof(buf)), -EBUSY);

	/* backing_dev read back: "none" is no device */
	assert_int_equal(zram_parse_backing_dev("none\n", 5, back, sizeof(back)), 0);
	assert_string_equal(back, "");
	assert_int_equal(zram_parse_backing_dev("/dev/loop7\n", 11, back, sizeof(back)), 0);
	assert_string_equal(back, "/dev/loop7");
	assert_int_equal(zram_parse_backing_dev("\n", 1, back, sizeof(back)), -EINVAL);
	assert_int_equal(zram_parse_backing_dev("/dev/a\0b\n", 9, back, sizeof(back)), -EINVAL);
}

/* The single-attribute readers advise uses: read, parsed, errors passed through. */
static void test_attribute_readers(void **state)
{
	struct zram_algo_list comp;
	struct zram_recomp rc;
	uint64_t v, bd[3];
	int root;

	(void)state;
	assert_int_equal(fr_setup(), 0);
	fr_write("sys/block/zram0/disksize", "268435456\n");
	fr_write("sys/block/zram0/comp_algorithm", "lzo [lzo-rle] zstd \n");
	fr_write("sys/block/zram0/recomp_algorithm", "#1: lzo [zstd] \n");
	fr_write("sys/block/zram0/bd_stat", "       3       10       20\n");
	root = fr_open_root();
	assert_true(root >= 0);

	assert_int_equal(zram_read_disksize(root, 0, &v), 0);
	assert_true(v == 268435456ULL);
	assert_int_equal(zram_read_comp_algorithm(root, 0, &comp), 0);
	assert_string_equal(comp.name[comp.selected], "lzo-rle");
	assert_int_equal(zram_read_recomp_algorithm(root, 0, &rc), 0);
	assert_int_equal(rc.count, 1);
	assert_string_equal(rc.name[1], "zstd");
	assert_int_equal(zram_read_bd_stat(root, 0, bd), 0);
	assert_true(bd[0] == 3 && bd[1] == 10 && bd[2] == 20);
	{
		/* bd_stat counts 4 KiB units: as pages of 16 and 64 KiB, 4 and 16 times fewer */
		struct zram_dev pd = { .id = 0, .page_size = 4096 };

		assert_int_equal(zram_read_bd_writes(root, &pd, &v), 0);
		assert_true(v == 20);
		pd.page_size = 16384;
		assert_int_equal(zram_read_bd_writes(root, &pd, &v), 0);
		assert_true(v == 5);
		pd.page_size = 65536;
		assert_int_equal(zram_read_bd_writes(root, &pd, &v), 0);
		assert_true(v == 1);
		/* writeback_limit likewise, rounded down to whole pages */
		fr_write("sys/block/zram0/writeback_limit", "39\n");
		assert_int_equal(zram_read_writeback_limit(root, &pd, &v), 0);
		assert_true(v == 2);
		pd.page_size = 16384;
		assert_int_equal(zram_read_writeback_limit(root, &pd, &v), 0);
		assert_true(v == 9);
		pd.page_size = 4096;
		assert_int_equal(zram_read_writeback_limit(root, &pd, &v), 0);
		assert_true(v == 39);
	}

	/* Missing attributes (no MULTI_COMP, no WRITEBACK, no device) are -ENOENT. */
	assert_int_equal(zram_read_disksize(root, 1, &v), -ENOENT);
	assert_int_equal(zram_read_comp_algorithm(root, 1, &comp), -ENOENT);
	assert_int_equal(zram_read_recomp_algorithm(root, 1, &rc), -ENOENT);
	assert_int_equal(zram_read_bd_stat(root, 1, bd), -ENOENT);
	/* Unparsable contents are -EINVAL. */
	fr_write("sys/block/zram0/disksize", "1G\n");
	assert_int_equal(zram_read_disksize(root, 0, &v), -EINVAL);
	fr_write("sys/block/zram0/comp_algorithm", "lzo [lzo-rle\n");
	assert_int_equal(zram_read_comp_algorithm(root, 0, &comp), -EINVAL);
	fr_write("sys/block/zram0/recomp_algorithm", "#1: zstd\n");
	assert_int_equal(zram_read_recomp_algorithm(root, 0, &rc), -EINVAL);
	fr_write("sys/block/zram0/bd_stat", "3 x 20\n");
	assert_int_equal(zram_read_bd_stat(root, 0, bd), -EINVAL);
	close(root);
	fr_teardown();
}

/* Slots of /dev/zramN: the page at slot * 4096, short past the end, errors as -errno. */
static void test_slot_reads(void **state)
{
	static char disk[3 * 4096 + 100];
	char page[4096];
	int root, fd;

	(void)state;
	assert_int_equal(fr_setup(), 0);
	for (size_t i = 0; i < sizeof(disk); i++)
		disk[i] = (char)('a' + i / 4096);
	fr_write("dev/zram0", "");
	{
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path), "%s/dev/zram0", fr_dir);
		f = fopen(path, "we");
		assert_non_null(f);
		assert_int_equal(fwrite(disk, 1, sizeof(disk), f), sizeof(disk));
		fclose(f);
	}
	root = fr_open_root();
	assert_int_equal(zram_open_slots(root, 0, &fd), 0);
	assert_int_equal(zram_read_slot(fd, 2, 4096, page), 4096);
	assert_true(page[0] == 'c' && page[4095] == 'c');
	assert_int_equal(zram_read_slot(fd, 0, 4096, page), 4096);
	assert_true(page[0] == 'a' && page[4095] == 'a');
	/* The partial page at the end, and nothing past it. */
	assert_int_equal(zram_read_slot(fd, 3, 4096, page), 100);
	assert_int_equal(zram_read_slot(fd, 4, 4096, page), 0);
	/* An offset past what off_t holds is refused, not wrapped. */
	assert_int_equal(zram_read_slot(fd, UINT64_MAX / 4096 + 1, 4096, page), -EINVAL);
	assert_int_equal(zram_read_slot(fd, UINT64_MAX / 4096, 4096, page), -EINVAL);
	/* 16 KiB pages: slot 0 holds the first four 4 KiB blocks, slot 1 the partial rest */
	{
		static char big[16384];

		assert_int_equal(zram_read_slot(fd, 0, 16384, big), 12388);
		assert_true(big[0] == 'a' && big[4096] == 'b' && big[12387] == 'd');
		assert_int_equal(zram_read_slot(fd, 1, 16384, big), 0);
		assert_int_equal(zram_read_slot(fd, 0, 12288, big), -EINVAL);
		assert_int_equal(zram_read_slot(fd, 0, 0, big), -EINVAL);
	}
	close(fd);
	assert_int_equal(zram_read_slot(fd, 0, 4096, page), -EBADF);
	assert_int_equal(zram_open_slots(root, 1, &fd), -ENOENT);
	close(root);
	fr_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kver),
		cmocka_unit_test(test_mm_stat),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_algo_list),
		cmocka_unit_test(test_recomp_listing),
		cmocka_unit_test(test_recomp_listing_nul),
		cmocka_unit_test(test_nul_tolerant_readers),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_pass_type_names),
		cmocka_unit_test(test_build_recompress),
		cmocka_unit_test(test_build_other),
		cmocka_unit_test(test_meminfo_parse),
		cmocka_unit_test(test_probe_and_write),
		cmocka_unit_test(test_kconfig),
		cmocka_unit_test(test_attribute_readers),
		cmocka_unit_test(test_build_params_dict),
		cmocka_unit_test(test_writeback_builders),
		cmocka_unit_test(test_writeback_index_builder),
		cmocka_unit_test(test_slot_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
