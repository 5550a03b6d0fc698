// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debugfs block_state parser: golden 6.2-6.19 and 7.0 lines, every flag combination, lines
 * split across feeds at every offset, malformed input, bitmaps, the stored-slot callback,
 * blockstate_read() and blockstate_read_stored() on a temporary tree, and agreement with the
 * tests/tools/bsgen generator.
 *
 * Link: tests/unit/test_blockstate.ldflags adds -Wl,--wrap=read, so every read(2) call of
 * the library objects and of this file reaches __wrap_read below, which emulates debugfs
 * block_state's whole-line reads for that file and passes other reads on to __real_read
 * (the Makefile's unit-test rule explains the convention; libc's own internal reads, as in
 * stdio, are not redirected).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "blockstate.h"
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Share the generator with the tool instead of keeping a second copy. */
#define BSGEN_NO_MAIN
#include "../tools/bsgen.c"

/* 6.2-6.19: "%12zd %12lld.%06lu %c%c%c%c%c%c\n". */
static const char golden_v62[] = "           0        12345.678901 s..i..\n"
				 "           1       987654.000001 ..h..n\n"
				 "           7            0.000000 ....r.\n"
				 "          42          100.500000 .w.i..\n"
				 "     8388607     12345678.999999 ..hir.\n"
				 "999999999999 999999999999.123456 ......\n";

/* 7.0: "%12zd %12u.%06d ...": u32 seconds, fraction always 000000. */
static const char golden_v70[] = "           3       482494.000000 ...i..\n"
				 "           4            0.000000 ...ir.\n"
				 "          10   4294967295.000000 ..h..n\n"
				 "          11       100000.000000 .wh.r.\n";

/* Index and seconds wider than %12 (13 digits): the line is 42 bytes, slow path. */
static const char wide_line[] = "1234567890123 1234567890123.000000 ....r.\n";

/* Every line of a golden text must be exactly 40 bytes, or the test data itself is wrong. */
static void assert_40_byte_lines(const char *s)
{
	const char *nl;

	while ((nl = strchr(s, '\n'))) {
		assert_int_equal(nl - s + 1, 40);
		s = nl + 1;
	}
	assert_int_equal(*s, '\0');
}

static void assert_counts(const struct bs_counts *c, uint64_t allocated, uint64_t same, uint64_t wb,
			  uint64_t huge, uint64_t idle, uint64_t recomp, uint64_t incomp)
{
	assert_int_equal(c->allocated, allocated);
	assert_int_equal(c->same, same);
	assert_int_equal(c->written_back, wb);
	assert_int_equal(c->huge, huge);
	assert_int_equal(c->idle, idle);
	assert_int_equal(c->recompressed, recomp);
	assert_int_equal(c->incompressible, incomp);
}

static void assert_counts_equal(const struct bs_counts *a, const struct bs_counts *b)
{
	assert_counts(a, b->allocated, b->same, b->written_back, b->huge, b->idle, b->recompressed,
		      b->incompressible);
}

static void assert_bitmaps_equal(const struct bs_bitmap *a, const struct bs_bitmap *b)
{
	assert_int_equal(a->nbits, b->nbits);
	for (uint64_t i = 0; i < a->nbits; i++)
		if (bs_bitmap_test(a, i) != bs_bitmap_test(b, i))
			fail_msg("bit %" PRIu64 " differs", i);
}

static int parse_str(const char *s, struct bs_counts *c)
{
	return blockstate_parse(s, strlen(s), c, NULL, NULL);
}

static void test_golden_v62(void **state)
{
	struct bs_bitmap in, re;
	struct bs_counts c;

	assert_40_byte_lines(golden_v62);
	assert_int_equal(bs_bitmap_alloc(&in, 8388608), 0);
	assert_int_equal(bs_bitmap_alloc(&re, 8388608), 0);
	assert_int_equal(blockstate_parse(golden_v62, strlen(golden_v62), &c, &in, &re), 0);
	assert_counts(&c, 6, 1, 1, 2, 3, 2, 1);
	assert_int_equal(bs_bitmap_count(&in), 1);
	assert_true(bs_bitmap_test(&in, 1));
	assert_int_equal(bs_bitmap_count(&re), 2);
	assert_true(bs_bitmap_test(&re, 7));
	assert_true(bs_bitmap_test(&re, 8388607));
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

static void test_golden_v70(void **state)
{
	struct bs_bitmap in, re;
	struct bs_counts c;

	assert_40_byte_lines(golden_v70);
	assert_int_equal(bs_bitmap_alloc(&in, 16), 0);
	assert_int_equal(bs_bitmap_alloc(&re, 16), 0);
	assert_int_equal(blockstate_parse(golden_v70, strlen(golden_v70), &c, &in, &re), 0);
	assert_counts(&c, 4, 0, 1, 2, 2, 2, 1);
	assert_int_equal(bs_bitmap_count(&in), 1);
	assert_true(bs_bitmap_test(&in, 10));
	assert_int_equal(bs_bitmap_count(&re), 2);
	assert_true(bs_bitmap_test(&re, 4));
	assert_true(bs_bitmap_test(&re, 11));
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

/* The slot callback: every line's index, ac_time seconds and flags, fast and slow path. */
struct slot_log {
	uint64_t index[8], sec[8];
	unsigned flags[8];
	unsigned n;
};

static void log_slot(void *arg, uint64_t index, uint64_t sec, unsigned flags)
{
	struct slot_log *l = arg;

	assert_true(l->n < 8);
	l->index[l->n] = index;
	l->sec[l->n] = sec;
	l->flags[l->n++] = flags;
}

static void test_slot_callback(void **state)
{
	struct slot_log l = {0};
	struct bs_parser p;

	bs_parser_init(&p, NULL, NULL);
	bs_parser_on_slot(&p, log_slot, &l);
	assert_int_equal(bs_parser_feed(&p, golden_v62, strlen(golden_v62)), 0);
	assert_int_equal(bs_parser_feed(&p, wide_line, strlen(wide_line)), 0);
	assert_int_equal(bs_parser_finish(&p), 0);
	assert_int_equal(l.n, 7);
	assert_int_equal(l.index[0], 0);
	assert_int_equal(l.sec[0], 12345);
	assert_int_equal(l.flags[0], BS_SAME | BS_IDLE);
	assert_int_equal(l.index[1], 1);
	assert_int_equal(l.sec[1], 987654);
	assert_int_equal(l.flags[1], BS_HUGE | BS_INCOMP);
	assert_int_equal(l.sec[2], 0); /* recompressed: ac_time reset */
	assert_int_equal(l.flags[2], BS_RECOMP);
	assert_int_equal(l.flags[3], BS_WB | BS_IDLE);
	assert_int_equal(l.index[4], 8388607);
	assert_int_equal(l.sec[4], 12345678);
	assert_int_equal(l.flags[4], BS_HUGE | BS_IDLE | BS_RECOMP);
	assert_int_equal(l.index[5], 999999999999ULL);
	assert_int_equal(l.sec[5], 999999999999ULL);
	assert_int_equal(l.flags[5], 0);
	/* the slow path (42-byte line) */
	assert_int_equal(l.index[6], 1234567890123ULL);
	assert_int_equal(l.sec[6], 1234567890123ULL);
	assert_int_equal(l.flags[6], BS_RECOMP);
	/* 7.0: u32 seconds */
	memset(&l, 0, sizeof(l));
	bs_parser_init(&p, NULL, NULL);
	bs_parser_on_slot(&p, log_slot, &l);
	assert_int_equal(bs_parser_feed(&p, golden_v70, strlen(golden_v70)), 0);
	assert_int_equal(bs_parser_finish(&p), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.sec[0], 482494);
	assert_int_equal(l.sec[2], 4294967295ULL);
	assert_int_equal(p.counts.allocated, 4);
	assert_int_equal(p.counts.recompressed, 2);
}

/* All 64 combinations of the six flag columns, formatted with the kernel's printf format. */
static void test_every_flag_combination(void **state)
{
	static const char letters[] = "swhirn";
	char text[64 * 40 + 1], *p = text;
	struct bs_bitmap in, re;
	struct bs_counts c;

	for (unsigned f = 0; f < 64; f++) {
		char fl[7];

		for (int k = 0; k < 6; k++)
			fl[k] = (f >> k) & 1 ? letters[k] : '.';
		fl[6] = '\0';
		p += sprintf(p, "%12u %12u.%06u %s\n", f * 3, 1000 + f, f * 7, fl);
	}
	assert_40_byte_lines(text);
	assert_int_equal(bs_bitmap_alloc(&in, 192), 0);
	assert_int_equal(bs_bitmap_alloc(&re, 192), 0);
	assert_int_equal(blockstate_parse(text, strlen(text), &c, &in, &re), 0);
	assert_counts(&c, 64, 32, 32, 32, 32, 32, 32);
	for (unsigned f = 0; f < 64; f++) {
		assert_int_equal(bs_bitmap_test(&in, f * 3), (f >> 5) & 1);
		assert_int_equal(bs_bitmap_test(&re, f * 3), (f >> 4) & 1);
		assert_false(bs_bitmap_test(&in, f * 3 + 1));
		assert_false(bs_bitmap_test(&re, f * 3 + 2));
	}
	assert_int_equal(bs_bitmap_count(&in), 32);
	assert_int_equal(bs_bitmap_count(&re), 32);
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

/* The fast path computes the index from 12 columns: check every digit count 1..8. */
static void test_index_every_width(void **state)
{
	static const uint64_t idx[] = {0,	9,	 10,	   99,	     100,     999,
				       1000,	9999,	 10000,	   99999,    100000,  999999,
				       1000000, 9999999, 10000000, 12345678, 16777215};
	char text[sizeof(idx) / sizeof(idx[0]) * 40 + 1], *p = text;
	struct bs_bitmap in;
	struct bs_counts c;

	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		p += sprintf(p, "%12" PRIu64 " %12u.%06u .....n\n", idx[i], 5u, 0u);
	assert_40_byte_lines(text);
	assert_int_equal(bs_bitmap_alloc(&in, 16777216), 0);
	assert_int_equal(blockstate_parse(text, strlen(text), &c, &in, NULL), 0);
	assert_int_equal(c.incompressible, sizeof(idx) / sizeof(idx[0]));
	assert_int_equal(bs_bitmap_count(&in), sizeof(idx) / sizeof(idx[0]));
	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		assert_true(bs_bitmap_test(&in, idx[i]));
	bs_bitmap_free(&in);
}

/* Slots past the bitmap are counted but not recorded (and do not crash). */
static void test_bitmap_shorter_than_index(void **state)
{
	char text[4 * 40 + 1];
	struct bs_bitmap in, re;
	struct bs_counts c;

	snprintf(text, sizeof(text),
		 "%12u %12u.%06u %s\n%12u %12u.%06u %s\n%12u %12u.%06u %s\n"
		 "%12u %12u.%06u %s\n",
		 5, 10, 0, "....rn", 63, 10, 0, ".....n", 64, 10, 0, "....rn", 1000000, 10, 0,
		 "....r.");
	assert_40_byte_lines(text);
	assert_int_equal(bs_bitmap_alloc(&in, 64), 0);
	assert_int_equal(bs_bitmap_alloc(&re, 64), 0);
	assert_int_equal(blockstate_parse(text, strlen(text), &c, &in, &re), 0);
	assert_counts(&c, 4, 0, 0, 0, 0, 3, 3);
	assert_int_equal(bs_bitmap_count(&in), 2);
	assert_true(bs_bitmap_test(&in, 5));
	assert_true(bs_bitmap_test(&in, 63));
	assert_false(bs_bitmap_test(&in, 64));
	assert_int_equal(bs_bitmap_count(&re), 1);
	assert_true(bs_bitmap_test(&re, 5));
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

/* One bitmap for both, and only one of the two. */
static void test_single_bitmap(void **state)
{
	struct bs_bitmap re;
	struct bs_counts c;

	assert_int_equal(bs_bitmap_alloc(&re, 16), 0);
	assert_int_equal(blockstate_parse(golden_v70, strlen(golden_v70), &c, NULL, &re), 0);
	assert_int_equal(bs_bitmap_count(&re), 2);
	assert_true(bs_bitmap_test(&re, 4));
	assert_true(bs_bitmap_test(&re, 11));
	assert_false(bs_bitmap_test(&re, 10)); /* the 'n' slot */
	bs_bitmap_free(&re);
}

/* A reused bitmap must describe the new file only. */
static void test_init_clears_bitmaps(void **state)
{
	struct bs_bitmap in, re;
	struct bs_counts c;

	assert_int_equal(bs_bitmap_alloc(&in, 16), 0);
	assert_int_equal(bs_bitmap_alloc(&re, 16), 0);
	for (uint64_t i = 0; i < 16; i++) {
		in.words[0] |= 1ULL << i;
		re.words[0] |= 1ULL << i;
	}
	assert_int_equal(blockstate_parse(golden_v70, strlen(golden_v70), &c, &in, &re), 0);
	assert_int_equal(bs_bitmap_count(&in), 1);
	assert_int_equal(bs_bitmap_count(&re), 2);
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

static void test_wide_fields(void **state)
{
	/* Wide seconds with a small index: the slow path must compute the index too. */
	const char *text = "          17 1234567890123.000001 ....r.\n";
	struct bs_bitmap re;
	struct bs_counts c;

	assert_int_equal(parse_str(wide_line, &c), 0);
	assert_counts(&c, 1, 0, 0, 0, 0, 1, 0);

	assert_int_equal(bs_bitmap_alloc(&re, 64), 0);
	assert_int_equal(blockstate_parse(text, strlen(text), &c, NULL, &re), 0);
	assert_counts(&c, 1, 0, 0, 0, 0, 1, 0);
	assert_int_equal(bs_bitmap_count(&re), 1);
	assert_true(bs_bitmap_test(&re, 17));
	bs_bitmap_free(&re);

	/* The largest %zd and %lld values (19 digits). */
	assert_int_equal(parse_str("9223372036854775807 9223372036854775807.999999 s.....\n", &c),
			 0);
	assert_counts(&c, 1, 1, 0, 0, 0, 0, 0);
}

/*
 * Malformed lines are built by editing one valid 40-byte line, so each case differs from
 * accepted input in exactly the way it claims:
 *   columns 0-11 index, 12 ' ', 13-24 seconds, 25 '.', 26-31 usec, 32 ' ', 33-38 flags, 39 '\n'
 */
static char base_line[41];

static int base_setup(void **state)
{
	snprintf(base_line, sizeof(base_line), "%12u %12u.%06u %s\n", 1u, 5u, 0u, "......");
	return strlen(base_line) == 40 ? 0 : -1;
}

/* Parse base_line with del bytes at `at` replaced by ins; also run it through the slow
 * path by prefixing a valid wide line, which must not change the verdict. */
static int parse_edit(size_t at, size_t del, const char *ins)
{
	char line[128], two[256];
	struct bs_counts c;
	int r, r2;

	snprintf(line, sizeof(line), "%.*s%s%s", (int)at, base_line, ins, base_line + at + del);
	r = parse_str(line, &c);
	if (r == 0)
		assert_int_equal(c.allocated, 1);
	snprintf(two, sizeof(two), "%s%s", wide_line, line);
	r2 = parse_str(two, &c);
	assert_int_equal(r, r2);
	return r;
}

static void test_base_line_is_valid(void **state)
{
	struct bs_counts c;

	assert_int_equal(parse_str(base_line, &c), 0);
	assert_counts(&c, 1, 0, 0, 0, 0, 0, 0);
	assert_int_equal(parse_edit(0, 0, ""), 0);
	assert_int_equal(parse_edit(33, 1, "s"), 0);
	assert_int_equal(parse_edit(38, 1, "n"), 0);
}

static void test_bad_widths(void **state)
{
	struct bs_counts c;

	/* 11-column index or seconds: the kernel always pads to 12. */
	assert_int_equal(parse_edit(0, 1, ""), -EINVAL);
	assert_int_equal(parse_edit(13, 1, ""), -EINVAL);
	/* Padded to 13 columns although 12 would do. */
	assert_int_equal(parse_edit(0, 0, " "), -EINVAL);
	assert_int_equal(parse_edit(13, 0, " "), -EINVAL);
	/* Fraction of 5 or 7 digits. */
	assert_int_equal(parse_edit(26, 1, ""), -EINVAL);
	assert_int_equal(parse_edit(26, 0, "0"), -EINVAL);
	/* Index beyond 64 bits (the largest %zd is 19 digits). */
	assert_int_equal(parse_str("18446744073709551616            5.000000 ......\n", &c),
			 -EINVAL);
}

static void test_bad_flag_letter(void **state)
{
	assert_int_equal(parse_edit(33, 1, "x"), -EINVAL);
	assert_int_equal(parse_edit(33, 1, "S"), -EINVAL);
	assert_int_equal(parse_edit(35, 1, " "), -EINVAL);
	assert_int_equal(parse_edit(36, 1, "\0"), -EINVAL); /* NUL ends the string: short */
	/* A valid letter in the wrong column. */
	assert_int_equal(parse_edit(33, 1, "w"), -EINVAL);
	assert_int_equal(parse_edit(38, 1, "r"), -EINVAL);
	assert_int_equal(parse_edit(34, 1, "s"), -EINVAL);
	/* Every column with its own letter is fine. */
	assert_int_equal(parse_edit(33, 6, "swhirn"), 0);
}

static void test_short_and_truncated_lines(void **state)
{
	assert_int_equal(parse_edit(38, 1, ""), -EINVAL);  /* five flags */
	assert_int_equal(parse_edit(38, 0, "."), -EINVAL); /* seven flags */
	assert_int_equal(parse_edit(32, 7, ""), -EINVAL);  /* no flags */
	assert_int_equal(parse_edit(25, 14, ""), -EINVAL); /* no fraction */
	assert_int_equal(parse_edit(12, 27, ""), -EINVAL); /* index only */
	assert_int_equal(parse_edit(0, 39, ""), -EINVAL);  /* empty line */
}

static void test_bad_separators(void **state)
{
	assert_int_equal(parse_edit(25, 1, ","), -EINVAL);
	assert_int_equal(parse_edit(12, 1, "\t"), -EINVAL);
	assert_int_equal(parse_edit(32, 1, "0"), -EINVAL);
	assert_int_equal(parse_edit(31, 1, " "), -EINVAL);  /* "5.00000  ......" */
	assert_int_equal(parse_edit(39, 0, "\r"), -EINVAL); /* CRLF */
	assert_int_equal(parse_edit(39, 0, " "), -EINVAL);  /* trailing space */
	assert_int_equal(parse_edit(0, 0, "\n"), -EINVAL);  /* empty line first */
}

static void test_non_digit_fields(void **state)
{
	assert_int_equal(parse_edit(11, 1, "a"), -EINVAL);
	assert_int_equal(parse_edit(10, 1, "a"), -EINVAL);    /* "a1" */
	assert_int_equal(parse_edit(10, 1, "-"), -EINVAL);    /* "-1" */
	assert_int_equal(parse_edit(11, 1, " "), -EINVAL);    /* all spaces */
	assert_int_equal(parse_edit(6, 1, "1"), -EINVAL);     /* "1     1" */
	assert_int_equal(parse_edit(11, 1, "\xb1"), -EINVAL); /* high byte */
	assert_int_equal(parse_edit(23, 1, "x"), -EINVAL);
	assert_int_equal(parse_edit(23, 1, "-"), -EINVAL);
	assert_int_equal(parse_edit(24, 1, " "), -EINVAL); /* seconds all spaces */
	assert_int_equal(parse_edit(16, 1, "7"), -EINVAL); /* "7      5" */
	assert_int_equal(parse_edit(28, 1, "a"), -EINVAL); /* fraction */
	assert_int_equal(parse_edit(31, 1, "/"), -EINVAL);
	assert_int_equal(parse_edit(26, 1, ":"), -EINVAL);
	/* Controls: digits in the same places are fine. */
	assert_int_equal(parse_edit(0, 12, "123456789012"), 0);
	assert_int_equal(parse_edit(13, 12, "123456789012"), 0);
	assert_int_equal(parse_edit(26, 6, "999999"), 0);
}

/* Systematically: a non-digit, non-flag byte in any column of the line is rejected. */
static void test_every_column_checked(void **state)
{
	static const char bad[] = {'x', '/', ':', '\x80', '\xb0', '\t'};

	for (size_t col = 0; col < 40; col++) {
		for (size_t b = 0; b < sizeof(bad); b++) {
			char ins[2] = {bad[b], '\0'};

			if (parse_edit(col, 1, ins) != -EINVAL)
				fail_msg("column %zu byte 0x%02x accepted", col,
					 (unsigned char)bad[b]);
		}
	}
}

/* Long runs of the same flags: the fast path sums flags in byte-wide lanes. */
static void test_many_identical_lines(void **state)
{
	const size_t nlines = 1000;
	char *text = malloc(nlines * 40 + 1), *p = text;
	struct bs_bitmap in;
	struct bs_counts c;

	assert_non_null(text);
	for (size_t i = 0; i < nlines; i++)
		p += sprintf(p, "%12zu %12u.%06u %s\n", i, 3u, 0u, i < 600 ? "swhirn" : "sw.irn");
	assert_int_equal(bs_bitmap_alloc(&in, nlines), 0);
	assert_int_equal(blockstate_parse(text, (size_t)(p - text), &c, &in, NULL), 0);
	assert_counts(&c, 1000, 1000, 1000, 600, 1000, 1000, 1000);
	assert_int_equal(bs_bitmap_count(&in), 1000);
	free(text);
	bs_bitmap_free(&in);
}

static void test_missing_final_newline(void **state)
{
	char text[80];
	struct bs_parser p;

	snprintf(text, sizeof(text), "%s%.39s", base_line, golden_v70); /* 2nd line has no \n */
	bs_parser_init(&p, NULL, NULL);
	assert_int_equal(bs_parser_feed(&p, text, strlen(text)), 0);
	assert_int_equal(p.counts.allocated, 1);
	assert_int_equal(bs_parser_finish(&p), -EINVAL);
	assert_int_equal(p.error, -EINVAL);
	assert_int_equal(p.line, 2);
	assert_int_equal(p.counts.idle, 0); /* the cut line was not counted */
	/* Through the convenience wrapper, which must not fill *ret on error. */
	struct bs_counts c = {.allocated = 77};

	assert_int_equal(blockstate_parse(text, strlen(text), &c, NULL, NULL), -EINVAL);
	assert_int_equal(c.allocated, 77);
}

static void test_error_is_sticky(void **state)
{
	const char *good = base_line;
	char bad[41];
	struct bs_parser p;

	strcpy(bad, base_line);
	bad[35] = 'x';
	bs_parser_init(&p, NULL, NULL);
	assert_int_equal(bs_parser_feed(&p, good, strlen(good)), 0);
	assert_int_equal(bs_parser_feed(&p, bad, strlen(bad)), -EINVAL);
	assert_int_equal(p.line, 2);
	assert_int_equal(bs_parser_feed(&p, good, strlen(good)), -EINVAL);
	assert_int_equal(bs_parser_finish(&p), -EINVAL);
	assert_int_equal(p.counts.allocated, 1);
	assert_int_equal(p.line, 2);
}

static void test_line_too_long(void **state)
{
	char text[200];
	struct bs_parser p;
	struct bs_counts c;

	memset(text, ' ', sizeof(text));
	text[sizeof(text) - 1] = '\n';
	assert_int_equal(blockstate_parse(text, sizeof(text), &c, NULL, NULL), -EINVAL);
	/* A no-newline run fed in small pieces must fail too, not grow without bound. */
	bs_parser_init(&p, NULL, NULL);
	int r = 0;

	for (int i = 0; i < 20 && r == 0; i++)
		r = bs_parser_feed(&p, "1111111111", 10);
	assert_int_equal(r, -EINVAL);
}

static void test_empty_input(void **state)
{
	struct bs_counts c = {.allocated = 5, .idle = 5};
	struct bs_bitmap in;
	struct bs_parser p;

	assert_int_equal(bs_bitmap_alloc(&in, 10), 0);
	assert_int_equal(blockstate_parse("", 0, &c, &in, NULL), 0);
	assert_counts(&c, 0, 0, 0, 0, 0, 0, 0);
	assert_int_equal(bs_bitmap_count(&in), 0);
	bs_parser_init(&p, NULL, NULL);
	assert_int_equal(bs_parser_feed(&p, "", 0), 0);
	assert_int_equal(bs_parser_finish(&p), 0);
	assert_int_equal(p.line, 0);
	bs_bitmap_free(&in);
}

/* Golden 6.2 + a wide line + golden 7.0, as one text. */
static char *mixed_text(size_t *ret_len)
{
	size_t len = strlen(golden_v62) + strlen(wide_line) + strlen(golden_v70);
	char *s = malloc(len + 1);

	assert_non_null(s);
	strcpy(s, golden_v62);
	strcat(s, wide_line);
	strcat(s, golden_v70);
	*ret_len = len;
	return s;
}

/* A split anywhere (every offset 1..39 of every line, and more) gives the same result. */
static void test_split_at_every_offset(void **state)
{
	struct bs_bitmap ref_in, ref_re, in, re;
	struct bs_counts ref;
	size_t len;
	char *text = mixed_text(&len);

	assert_int_equal(bs_bitmap_alloc(&ref_in, 8388608), 0);
	assert_int_equal(bs_bitmap_alloc(&ref_re, 8388608), 0);
	assert_int_equal(bs_bitmap_alloc(&in, 8388608), 0);
	assert_int_equal(bs_bitmap_alloc(&re, 8388608), 0);
	assert_int_equal(blockstate_parse(text, len, &ref, &ref_in, &ref_re), 0);
	assert_counts(&ref, 11, 1, 2, 4, 5, 5, 2);

	for (size_t off = 1; off < len; off++) {
		struct bs_parser p;

		bs_parser_init(&p, &in, &re);
		assert_int_equal(bs_parser_feed(&p, text, off), 0);
		assert_int_equal(bs_parser_feed(&p, text + off, len - off), 0);
		assert_int_equal(bs_parser_finish(&p), 0);
		assert_counts_equal(&p.counts, &ref);
		assert_int_equal(p.line, 11);
		assert_int_equal(bs_bitmap_count_new(&ref_in, &in), 0);
		assert_int_equal(bs_bitmap_count_new(&in, &ref_in), 0);
		assert_int_equal(bs_bitmap_count_new(&ref_re, &re), 0);
		assert_int_equal(bs_bitmap_count_new(&re, &ref_re), 0);
	}
	/* Two splits inside the same line: the partial buffer grows over three feeds. */
	for (size_t a = 1; a < 40; a++) {
		for (size_t b = a + 1; b < 40; b++) {
			struct bs_parser p;

			bs_parser_init(&p, NULL, NULL);
			assert_int_equal(bs_parser_feed(&p, text, a), 0);
			assert_int_equal(bs_parser_feed(&p, text + a, b - a), 0);
			assert_int_equal(bs_parser_feed(&p, text + b, len - b), 0);
			assert_int_equal(bs_parser_finish(&p), 0);
			assert_counts_equal(&p.counts, &ref);
		}
	}
	free(text);
	bs_bitmap_free(&ref_in);
	bs_bitmap_free(&ref_re);
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

/* Fixed-size chunks of every size 1..81 (byte by byte included). */
static void test_chunked_feeds(void **state)
{
	struct bs_counts ref;
	size_t len;
	char *text = mixed_text(&len);

	assert_int_equal(blockstate_parse(text, len, &ref, NULL, NULL), 0);
	for (size_t chunk = 1; chunk <= 81; chunk++) {
		struct bs_parser p;

		bs_parser_init(&p, NULL, NULL);
		for (size_t off = 0; off < len; off += chunk) {
			size_t n = len - off < chunk ? len - off : chunk;

			assert_int_equal(bs_parser_feed(&p, text + off, n), 0);
		}
		assert_int_equal(bs_parser_finish(&p), 0);
		assert_counts_equal(&p.counts, &ref);
	}
	free(text);
}

/* A malformed line that straddles two feeds is still caught. */
static void test_split_malformed_line(void **state)
{
	char text[81];
	size_t len;

	snprintf(text, sizeof(text), "%s%s", base_line, base_line);
	text[40 + 35] = 'Q';
	len = strlen(text);
	for (size_t off = 41; off < len; off++) {
		struct bs_parser p;
		int r;

		bs_parser_init(&p, NULL, NULL);
		r = bs_parser_feed(&p, text, off);
		assert_int_equal(r, 0);
		r = bs_parser_feed(&p, text + off, len - off);
		assert_int_equal(r, -EINVAL);
		assert_int_equal(p.counts.allocated, 1);
		assert_int_equal(p.line, 2);
	}
}

static void test_bitmap_alloc_sizes(void **state)
{
	static const uint64_t sizes[] = {0, 1, 63, 64, 65, 128, 1000};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t n = sizes[i];
		struct bs_bitmap b;

		assert_int_equal(bs_bitmap_alloc(&b, n), 0);
		assert_int_equal(b.nbits, n);
		assert_int_equal(bs_bitmap_count(&b), 0);
		for (uint64_t bit = 0; bit < n; bit++)
			assert_false(bs_bitmap_test(&b, bit));
		assert_false(bs_bitmap_test(&b, n));
		assert_false(bs_bitmap_test(&b, UINT64_MAX));
		if (n) {
			b.words[(n - 1) / 64] |= 1ULL << ((n - 1) % 64);
			b.words[0] |= 1;
			assert_true(bs_bitmap_test(&b, n - 1));
			assert_true(bs_bitmap_test(&b, 0));
			assert_int_equal(bs_bitmap_count(&b), n == 1 ? 1 : 2);
		}
		if (n % 64) {
			/* A stray bit past nbits in the last word is ignored. */
			b.words[n / 64] |= 1ULL << 63;
			assert_false(bs_bitmap_test(&b, n / 64 * 64 + 63));
			assert_int_equal(bs_bitmap_count(&b), n == 1 ? 1 : 2);
			assert_int_equal(bs_bitmap_count_new(NULL, &b), n == 1 ? 1 : 2);
		}
		bs_bitmap_free(&b);
		assert_null(b.words);
		assert_int_equal(b.nbits, 0);
	}
	assert_int_equal(bs_bitmap_count(NULL), 0);
	assert_false(bs_bitmap_test(NULL, 0));
	bs_bitmap_free(NULL);
}

static void set_bit(struct bs_bitmap *b, uint64_t bit)
{
	assert_true(bit < b->nbits);
	b->words[bit / 64] |= 1ULL << (bit % 64);
}

static void test_bitmap_count_new(void **state)
{
	struct bs_bitmap before, now, big;

	assert_int_equal(bs_bitmap_alloc(&before, 100), 0);
	assert_int_equal(bs_bitmap_alloc(&now, 100), 0);
	assert_int_equal(bs_bitmap_alloc(&big, 300), 0);
	set_bit(&before, 3);
	set_bit(&before, 64);
	set_bit(&before, 99);
	set_bit(&now, 3);  /* old */
	set_bit(&now, 4);  /* new */
	set_bit(&now, 65); /* new */
	set_bit(&now, 99); /* old */
	assert_int_equal(bs_bitmap_count_new(&before, &now), 2);
	assert_int_equal(bs_bitmap_count_new(&now, &before), 1); /* 64 only in before */
	assert_int_equal(bs_bitmap_count_new(&now, &now), 0);
	assert_int_equal(bs_bitmap_count_new(NULL, &now), 4);
	assert_int_equal(bs_bitmap_count_new(&now, NULL), 0);

	/* Different sizes: bits past the smaller bitmap count as new / are ignored. */
	set_bit(&big, 3);
	set_bit(&big, 150);
	set_bit(&big, 299);
	assert_int_equal(bs_bitmap_count_new(&before, &big), 2); /* 150, 299 */
	assert_int_equal(bs_bitmap_count_new(&big, &before), 2); /* 64, 99 */
	assert_int_equal(bs_bitmap_count_new(&big, &now), 3);	 /* 4, 65, 99 */

	bs_bitmap_free(&before);
	bs_bitmap_free(&now);
	bs_bitmap_free(&big);
}

/*
 * A growable bitmap (issue 11 #6) follows the highest index block_state lists, not the
 * device's slot count: 32 TiB of disksize with a few low slots takes one word, not 1 GiB.
 * Past the limit (what the device can hold) nothing is recorded, and the fast and the
 * general path (a wide line) agree.
 */
static void test_bitmap_grows_on_demand(void **state)
{
	const uint64_t slots_32t = (UINT64_C(32) << 40) / 4096;
	const char small[] = "           1            0.000000 ..h..n\n"
			     "          11            0.000000 ....r.\n";
	const char far[] = "     8388607            0.000000 .....n\n"
			   "1234567890123 1234567890123.000000 .....n\n";
	struct bs_bitmap in, re;
	struct bs_parser p;
	struct bs_counts c;

	(void)state;
	bs_bitmap_init(&in, slots_32t);
	bs_bitmap_init(&re, slots_32t);
	assert_int_equal(blockstate_parse(small, strlen(small), &c, &in, &re), 0);
	assert_true(in.nbits <= 64 && re.nbits <= 64);
	assert_true(bs_bitmap_test(&in, 1));
	assert_true(bs_bitmap_test(&re, 11));
	assert_int_equal(bs_bitmap_count(&in), 1);
	/* a far slot grows it to that index; one past the limit is counted, not recorded */
	bs_bitmap_free(&in);
	bs_bitmap_init(&in, 8388608);
	assert_int_equal(blockstate_parse(far, strlen(far), &c, &in, NULL), 0);
	assert_int_equal(c.incompressible, 2);
	assert_int_equal(in.nbits, 8388608);
	assert_true(bs_bitmap_test(&in, 8388607));
	assert_int_equal(bs_bitmap_count(&in), 1);
	assert_false(in.failed);
	/* growth keeps the bits set before it (one file fed in two parts) */
	bs_bitmap_free(&in);
	bs_bitmap_init(&in, slots_32t);
	bs_parser_init(&p, &in, NULL);
	assert_int_equal(bs_parser_feed(&p, golden_v62, 80), 0);
	assert_int_equal(bs_parser_feed(&p, far, 40), 0);
	assert_int_equal(bs_parser_finish(&p), 0);
	assert_true(bs_bitmap_test(&in, 1));
	assert_true(bs_bitmap_test(&in, 8388607));
	assert_int_equal(bs_bitmap_count(&in), 2);
	assert_true(in.nbits < 2 * 8388608);
	/* a fixed bitmap does not grow */
	bs_bitmap_free(&in);
	assert_int_equal(bs_bitmap_alloc(&in, 8), 0);
	assert_int_equal(blockstate_parse(small, strlen(small), &c, &in, NULL), 0);
	assert_int_equal(in.nbits, 8);
	assert_int_equal(bs_bitmap_count(&in), 1);
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

/* Generated text parses to exactly the counts and bits the generator produced. */
static void check_generator(bool v70, uint64_t slots, uint64_t seed)
{
	struct bs_bitmap in, re, want_in, want_re;
	size_t cap = (size_t)slots * 40 + 64, len = 0, n;
	char *text = malloc(cap);
	struct bsgen g;
	struct bs_counts c;

	assert_non_null(text);
	assert_int_equal(bs_bitmap_alloc(&in, slots), 0);
	assert_int_equal(bs_bitmap_alloc(&re, slots), 0);
	assert_int_equal(bs_bitmap_alloc(&want_in, slots), 0);
	assert_int_equal(bs_bitmap_alloc(&want_re, slots), 0);
	bsgen_init(&g, slots, seed, v70);
	while ((n = bsgen_next(&g, text + len))) {
		assert_int_equal(n, 40);
		if (v70)
			assert_memory_equal(text + len + 25, ".000000 ", 8);
		if (g.last_flags & 32)
			set_bit(&want_in, g.last_index);
		if (g.last_flags & 16)
			set_bit(&want_re, g.last_index);
		len += n;
		assert_true(len + 64 <= cap);
	}
	assert_true(g.counts.allocated > slots * 9 / 10);
	assert_true(g.counts.allocated < slots);
	/* The mix is not degenerate: every flag occurs. */
	assert_true(g.counts.same && g.counts.written_back && g.counts.huge && g.counts.idle &&
		    g.counts.recompressed && g.counts.incompressible);

	assert_int_equal(blockstate_parse(text, len, &c, &in, &re), 0);
	assert_counts_equal(&c, &g.counts);
	assert_bitmaps_equal(&in, &want_in);
	assert_bitmaps_equal(&re, &want_re);
	free(text);
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
	bs_bitmap_free(&want_in);
	bs_bitmap_free(&want_re);
}

static void test_generator_v62(void **state)
{
	check_generator(false, 100000, 42);
}

static void test_generator_v70(void **state)
{
	check_generator(true, 100000, 7);
}

/* bsgen's hand-rolled formatter against the kernel's printf format, wide values included. */
static void test_generator_format(void **state)
{
	static const uint64_t vals[] = {0, 1, 999999999999ULL, 1000000000000ULL, UINT64_MAX / 2};
	char a[128], b[128];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
			size_t n = bsgen_format(a, vals[i], vals[j], 123, 0x2d);
			int m = snprintf(b, sizeof(b), "%12" PRIu64 " %12" PRIu64 ".%06u %s\n",
					 vals[i], vals[j], 123u, "s.hi.n");

			assert_int_equal(n, m);
			assert_memory_equal(a, b, n);
		}
	}
}

/* ---- stored slots (the callback advise samples from) ---- */

struct stored_list {
	uint64_t idx[64];
	unsigned n;
	uint64_t calls; /* also past the 64 kept */
	uint64_t last;
	bool ordered; /* every index larger than the one before */
};

static void stored_add(void *arg, uint64_t index)
{
	struct stored_list *l = arg;

	if (l->calls && index <= l->last)
		l->ordered = false;
	l->last = index;
	if (l->n < 64)
		l->idx[l->n++] = index;
	l->calls++;
}

static void stored_init(struct stored_list *l)
{
	memset(l, 0, sizeof(*l));
	l->ordered = true;
}

/* Same-filled ('s') and written-back ('w') slots hold no object; every other slot is
 * reported, from the fast path, the general path (a wide line) and across feeds. */
static void test_stored_slots(void **state)
{
	static const uint64_t want[] = {1, 7, 8388607, 999999999999ULL, 1234567890123ULL};
	char text[sizeof(golden_v62) + sizeof(wide_line)];
	size_t len;

	(void)state;
	snprintf(text, sizeof(text), "%s%s", golden_v62, wide_line);
	len = strlen(text);
	for (size_t off = 0; off <= len; off++) {
		struct stored_list l;
		struct bs_parser p;

		stored_init(&l);
		bs_parser_init(&p, NULL, NULL);
		bs_parser_on_stored(&p, stored_add, &l);
		assert_int_equal(bs_parser_feed(&p, text, off), 0);
		assert_int_equal(bs_parser_feed(&p, text + off, len - off), 0);
		assert_int_equal(bs_parser_finish(&p), 0);
		assert_int_equal(l.n, 5);
		assert_memory_equal(l.idx, want, sizeof(want));
		/* The counts do not depend on the callback. */
		assert_counts(&p.counts, 7, 1, 1, 2, 3, 3, 1);
	}
}

/* A stored slot may carry any other flag (h, i, r, n); only s and w exclude it. */
static void test_stored_flag_combinations(void **state)
{
	char line[64];

	(void)state;
	for (unsigned f = 0; f < 64; f++) {
		struct stored_list l;
		struct bs_parser p;

		snprintf(line, sizeof(line), "%12u %12u.%06u %c%c%c%c%c%c\n", f, 5u, 0u,
			 f & 1 ? 's' : '.', f & 2 ? 'w' : '.', f & 4 ? 'h' : '.', f & 8 ? 'i' : '.',
			 f & 16 ? 'r' : '.', f & 32 ? 'n' : '.');
		stored_init(&l);
		bs_parser_init(&p, NULL, NULL);
		bs_parser_on_stored(&p, stored_add, &l);
		assert_int_equal(bs_parser_feed(&p, line, strlen(line)), 0);
		assert_int_equal(bs_parser_finish(&p), 0);
		assert_int_equal(l.calls, (f & 3) ? 0 : 1);
		if (l.calls)
			assert_int_equal(l.idx[0], f);
	}
}

/* ---- blockstate_read() on a temporary tree ---- */

struct tree {
	char root[64];
	int root_fd;
};

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	strcpy(t->root, "/tmp/test_blockstate.XXXXXX");
	if (!mkdtemp(t->root) || sysfs_open_root(t->root, &t->root_fd) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int tree_setup_base(void **state)
{
	return base_setup(state) ?: tree_setup(state);
}

static void rm_rf_at(int dfd, const char *name);

static int tree_teardown(void **state)
{
	struct tree *t = *state;

	close(t->root_fd);
	rm_rf_at(AT_FDCWD, t->root);
	free(t);
	return 0;
}

/* Remove a test tree (only what the tests create: directories and regular files). */
static void rm_rf_at(int dfd, const char *name)
{
	char path[512];
	static const char *const sub[] = {"sys/kernel/debug/zram/zram0/block_state/x",
					  "sys/kernel/debug/zram/zram0/block_state",
					  "sys/kernel/debug/zram/zram0",
					  "sys/kernel/debug/zram",
					  "sys/kernel/debug",
					  "sys/kernel",
					  "sys"};

	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", name, sub[i]);
		if (unlinkat(dfd, path, 0) < 0)
			(void)unlinkat(dfd, path, AT_REMOVEDIR);
	}
	(void)unlinkat(dfd, name, AT_REMOVEDIR);
}

static void mkdirs(const char *root)
{
	static const char *const dirs[] = {"sys", "sys/kernel", "sys/kernel/debug",
					   "sys/kernel/debug/zram", "sys/kernel/debug/zram/zram0"};
	char path[512];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
	}
}

static void write_block_state(const struct tree *t, const char *data, size_t len)
{
	char path[512];
	FILE *f;

	mkdirs(t->root);
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/zram/zram0/block_state", t->root);
	f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_read_tree(void **state)
{
	struct tree *t = *state;
	struct bs_bitmap in, re;
	struct bs_counts c;

	write_block_state(t, golden_v62, strlen(golden_v62));
	assert_int_equal(bs_bitmap_alloc(&in, 8388608), 0);
	assert_int_equal(bs_bitmap_alloc(&re, 8388608), 0);
	assert_int_equal(blockstate_read(t->root_fd, 0, &c, &in, &re), 0);
	assert_counts(&c, 6, 1, 1, 2, 3, 2, 1);
	assert_true(bs_bitmap_test(&in, 1));
	assert_true(bs_bitmap_test(&re, 7));
	assert_true(bs_bitmap_test(&re, 8388607));
	assert_int_equal(bs_bitmap_count(&in) + bs_bitmap_count(&re), 3);
	bs_bitmap_free(&in);
	bs_bitmap_free(&re);
}

/* Bigger than the 256 KiB read buffer, and 262144 is not a multiple of 40: lines straddle. */
static void test_read_large(void **state)
{
	struct tree *t = *state;
	const uint64_t slots = 30000;
	size_t len = 0, n;
	char *text = malloc(slots * 40 + 64);
	struct bs_bitmap re;
	struct bsgen g;
	struct bs_counts c;

	assert_non_null(text);
	bsgen_init(&g, slots, 99, false);
	while ((n = bsgen_next(&g, text + len)))
		len += n;
	assert_true(len > 3 * 256 * 1024);
	write_block_state(t, text, len);
	assert_int_equal(bs_bitmap_alloc(&re, slots), 0);
	assert_int_equal(blockstate_read(t->root_fd, 0, &c, NULL, &re), 0);
	assert_counts_equal(&c, &g.counts);
	assert_int_equal(bs_bitmap_count(&re), g.counts.recompressed);
	free(text);
	bs_bitmap_free(&re);
}

static void test_read_missing(void **state)
{
	struct tree *t = *state;
	struct bs_counts c = {.allocated = 9};

	/* No debugfs at all. */
	assert_int_equal(blockstate_read(t->root_fd, 0, &c, NULL, NULL), -ENOENT);
	/* debugfs with zram0 only. */
	write_block_state(t, golden_v70, strlen(golden_v70));
	assert_int_equal(blockstate_read(t->root_fd, 1, &c, NULL, NULL), -ENOENT);
	assert_int_equal(c.allocated, 9);
	assert_int_equal(blockstate_read(t->root_fd, 0, &c, NULL, NULL), 0);
	assert_int_equal(c.allocated, 4);
}

/* A failing read(2) passes its errno through (the kernel's EINVAL on an uninitialized
 * device is the real case; a directory gives EISDIR). */
static void test_read_error_errno(void **state)
{
	struct tree *t = *state;
	char path[512];

	mkdirs(t->root);
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/zram/zram0/block_state", t->root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(blockstate_read(t->root_fd, 0, NULL, NULL, NULL), -EISDIR);
}

static void test_read_malformed(void **state)
{
	struct tree *t = *state;
	char text[80];
	struct bs_counts c = {.allocated = 3};

	snprintf(text, sizeof(text), "%s%.39s", base_line, base_line); /* cut short */
	write_block_state(t, text, strlen(text));
	assert_int_equal(blockstate_read(t->root_fd, 0, &c, NULL, NULL), -EINVAL);
	assert_int_equal(c.allocated, 3);
	/* Empty file: a device with nothing allocated. */
	write_block_state(t, "", 0);
	assert_int_equal(blockstate_read(t->root_fd, 0, &c, NULL, NULL), 0);
	assert_int_equal(c.allocated, 0);
}

/*
 * ---- The kernel's read semantics, emulated (tests/unit/test_blockstate.ldflags wraps read) --
 *
 * debugfs block_state returns whole lines only; a line that does not fit (with room for the
 * terminating NUL of its snprintf) ends the read, so a buffer of 40 bytes or less reads as
 * EOF. Reads of other files pass through.
 */
ssize_t __real_read(int fd, void *buf, size_t count);
ssize_t __wrap_read(int fd, void *buf, size_t count);

static struct {
	bool active;
	int eintr;	/* fail this many reads with EINTR first */
	int fail_errno; /* then fail every read with this errno (0: none) */
	size_t calls;
	size_t min_count;
} fk;

static bool is_block_state(int fd)
{
	char link[64], target[512];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return n >= 12 && !strcmp(target + n - 12, "/block_state");
}

ssize_t __wrap_read(int fd, void *buf, size_t count)
{
	off_t pos;
	ssize_t n;
	size_t used = 0;

	if (!fk.active || !is_block_state(fd))
		return __real_read(fd, buf, count);
	fk.calls++;
	if (count < fk.min_count)
		fk.min_count = count;
	if (fk.eintr > 0) {
		fk.eintr--;
		errno = EINTR;
		return -1;
	}
	if (fk.fail_errno) {
		errno = fk.fail_errno;
		return -1;
	}
	pos = lseek(fd, 0, SEEK_CUR);
	n = pread(fd, buf, count, pos);
	if (n <= 0)
		return n;
	/* Keep only whole lines that leave one byte free. */
	for (size_t i = 0; i < (size_t)n && i + 1 < count; i++)
		if (((char *)buf)[i] == '\n')
			used = i + 1;
	memset((char *)buf + used, 0xaa, (size_t)n - used);
	lseek(fd, pos + (off_t)used, SEEK_SET);
	return (ssize_t)used;
}

static void fake_kernel(int eintr, int fail_errno)
{
	memset(&fk, 0, sizeof(fk));
	fk.active = true;
	fk.eintr = eintr;
	fk.fail_errno = fail_errno;
	fk.min_count = SIZE_MAX;
}

/* The emulation itself: 40-byte reads see EOF, 41-byte reads get one line. */
static void test_fake_kernel_semantics(void **state)
{
	struct tree *t = *state;
	char path[512], buf[128];
	int fd;

	write_block_state(t, golden_v70, strlen(golden_v70));
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/zram/zram0/block_state", t->root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	fake_kernel(0, 0);
	assert_int_equal(read(fd, buf, 40), 0);
	assert_int_equal(read(fd, buf, 41), 40);
	assert_memory_equal(buf, golden_v70, 40);
	assert_int_equal(read(fd, buf, 100), 80);
	assert_memory_equal(buf, golden_v70 + 40, 80);
	fk.active = false;
	close(fd);
}

/* blockstate_read() against kernel-style reads: big buffers, EINTR retried. */
static void test_read_kernel_style(void **state)
{
	struct tree *t = *state;
	const uint64_t slots = 20000;
	size_t len = 0, n;
	char *text = malloc(slots * 40 + 64);
	struct bsgen g;
	struct bs_counts c;
	int r;

	assert_non_null(text);
	bsgen_init(&g, slots, 5, true);
	while ((n = bsgen_next(&g, text + len)))
		len += n;
	write_block_state(t, text, len);

	fake_kernel(3, 0);
	r = blockstate_read(t->root_fd, 0, &c, NULL, NULL);
	fk.active = false;
	assert_int_equal(r, 0);
	assert_counts_equal(&c, &g.counts);
	/* 64 KiB reads (the buffer is resident while the daemon reads): 1638 lines each */
	assert_true(fk.min_count >= 64 * 1024);
	/* 3 EINTRs, ceil(len / whole lines per read) data reads, one EOF read. */
	assert_int_equal(fk.calls, 3 + (len + 1638 * 40 - 1) / (1638 * 40) + 1);
	free(text);
}

/* blockstate_read_stored(): every stored slot of a large file, in order, and the counts. */
static void test_read_stored(void **state)
{
	struct tree *t = *state;
	const uint64_t slots = 30000;
	size_t len = 0, n;
	char *text = malloc(slots * 40 + 64);
	struct stored_list l;
	struct bsgen g;
	struct bs_counts c;
	uint64_t want = 0;

	assert_non_null(text);
	bsgen_init(&g, slots, 11, false);
	while ((n = bsgen_next(&g, text + len)))
		len += n;
	/* Independent count: the s and w columns of each line. */
	for (size_t i = 0; i < len; i += 40)
		want += text[i + 33] != 's' && text[i + 34] != 'w';
	write_block_state(t, text, len);
	stored_init(&l);
	assert_int_equal(blockstate_read_stored(t->root_fd, 0, stored_add, &l, &c), 0);
	assert_counts_equal(&c, &g.counts);
	assert_int_equal(l.calls, want);
	assert_true(l.ordered);
	assert_true(want > 0 && want < c.allocated);
	/* Missing file: nothing reported. */
	stored_init(&l);
	assert_int_equal(blockstate_read_stored(t->root_fd, 1, stored_add, &l, NULL), -ENOENT);
	assert_int_equal(l.calls, 0);
	/* A malformed line stops the read with -EINVAL after the lines before it. */
	write_block_state(t, "           3       482494.000000 ...i..\nbad\n", 44);
	stored_init(&l);
	assert_int_equal(blockstate_read_stored(t->root_fd, 0, stored_add, &l, NULL), -EINVAL);
	assert_int_equal(l.calls, 1);
	free(text);
}

/* An uninitialized device fails the read itself: that errno comes back, not a parse error. */
static void test_read_errno_passthrough(void **state)
{
	struct tree *t = *state;
	struct bs_counts c = {.allocated = 1};
	int r;

	write_block_state(t, golden_v62, strlen(golden_v62));
	fake_kernel(0, EINVAL);
	r = blockstate_read(t->root_fd, 0, &c, NULL, NULL);
	fk.active = false;
	assert_int_equal(r, -EINVAL);
	fake_kernel(1, EIO);
	r = blockstate_read(t->root_fd, 0, &c, NULL, NULL);
	fk.active = false;
	assert_int_equal(r, -EIO);
	assert_int_equal(fk.calls, 2);
	assert_int_equal(c.allocated, 1);
}

/* Idle slots a recompress could still improve, on the fast and the general path. */
static void test_idle_fresh(void **state)
{
	/* fast path: exact 40-byte lines */
	const char *text = "           0           12.000001 ...i..\n" /* fresh */
			   "           1           12.000001 ..hi..\n" /* fresh, huge */
			   "           2            0.000000 ...ir.\n" /* recompressed */
			   "           3           12.000001 ..hi.n\n" /* incompressible */
			   "           4           12.000001 s..i..\n" /* same */
			   "           5           12.000001 .w.i..\n" /* written back */
			   "           6           12.000001 ......\n"  /* not idle */
			   "           7           12.000001 ..h...\n"; /* huge, not idle */
	/* general path: an index wider than 12 digits */
	const char *wide = "1234567890123           12.000001 ..hi..\n";
	struct bs_counts c;

	(void)state;
	assert_int_equal(blockstate_parse(text, strlen(text), &c, NULL, NULL), 0);
	assert_int_equal(c.idle, 6);
	assert_int_equal(c.idle_fresh, 2);
	assert_int_equal(c.huge_idle_fresh, 1);
	assert_int_equal(c.huge_fresh, 2); /* slots 1 and 7; 3 is 'n' */
	assert_int_equal(blockstate_parse(wide, strlen(wide), &c, NULL, NULL), 0);
	assert_int_equal(c.idle_fresh, 1);
	assert_int_equal(c.huge_idle_fresh, 1);
	assert_int_equal(c.huge_fresh, 1);
}

static void count_stored(void *arg, uint64_t index)
{
	(void)index;
	(*(size_t *)arg)++;
}

/* Every member of s, in ascending order with one cursor, and nothing else below limit. */
static void assert_set_is(const struct bs_set *s, const bool *member, uint64_t limit)
{
	struct bs_set_cursor cur = { 0 };
	uint64_t n = 0;

	for (uint64_t i = 0; i < limit; i++) {
		if (bs_set_has(s, &cur, i) != member[i])
			fail_msg("index %" PRIu64 ": %d, want %d", i, !member[i], member[i]);
		n += member[i];
	}
	assert_int_equal(s->count, n);
}

/*
 * A sparse set (the incompressible slots: a few percent) is a list of gaps, about a byte
 * each, not a bitmap of every slot; a dense one turns into that bitmap as soon as the list
 * would be larger, and never holds more than 2 bits per slot, even while it turns.
 */
static void test_set_sparse_and_dense(void **state)
{
	const uint64_t limit = 1 << 20;
	bool *member = calloc(limit, sizeof(bool));
	struct bs_set s;

	(void)state;
	assert_non_null(member);
	bs_set_init(&s, limit);
	assert_int_equal(bs_set_bytes(&s), 0);
	for (uint64_t i = 5; i < limit; i += 33) {
		bs_set_add(&s, i);
		member[i] = true;
	}
	assert_false(s.bitmap);
	assert_false(s.failed);
	/* 31,775 members with gaps of 32: one byte each, against 128 KiB of bitmap */
	assert_int_equal(s.len, s.count);
	assert_true(bs_set_bytes(&s) <= 2 * s.count);
	assert_true(bs_set_bytes(&s) < limit / 8 / 2);
	assert_set_is(&s, member, limit);
	/* the same index again is no new member */
	bs_set_add(&s, limit - 1 - (limit - 1 - 5) % 33);
	assert_false(s.bitmap);
	assert_int_equal(s.count, (limit - 5 + 32) / 33);
	/* indices at or past the limit are not recorded */
	bs_set_add(&s, limit);
	bs_set_add(&s, UINT64_MAX);
	assert_int_equal(s.count, (limit - 5 + 32) / 33);
	bs_set_free(&s);
	assert_int_equal(bs_set_bytes(&s), 0);
	assert_int_equal(s.limit, limit);

	/* Dense: every slot; bounded all along, a bitmap at the end. */
	memset(member, 0, limit * sizeof(bool));
	for (uint64_t i = 0; i < limit; i++) {
		bs_set_add(&s, i);
		member[i] = true;
		if (bs_set_bytes(&s) > limit / 8)
			fail_msg("%zu bytes after %" PRIu64 " members", bs_set_bytes(&s), i + 1);
	}
	assert_true(s.bitmap);
	assert_int_equal(bs_set_bytes(&s), limit / 8);
	assert_set_is(&s, member, limit);
	bs_set_free(&s);
	assert_false(s.bitmap);
	free(member);
}

/*
 * Indices out of order (never from the kernel) turn the list into a bitmap with every
 * member kept; queries out of order restart the list walk; large gaps take up to ten bytes.
 */
static void test_set_order_and_gaps(void **state)
{
	const uint64_t far[] = { 0, 1, 127, 128, 16383, 16384, UINT64_C(1) << 40,
				 (UINT64_C(1) << 63) + 5, UINT64_MAX - 1 };
	struct bs_set_cursor cur = { 0 };
	struct bs_set s;

	(void)state;
	bs_set_init(&s, UINT64_MAX);
	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++)
		bs_set_add(&s, far[i]);
	assert_false(s.bitmap); /* a bitmap of 2^64 bits is never the smaller */
	assert_int_equal(s.count, 9);
	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		/* one below is a member only for 1 (after 0) and 128 (after 127) */
		if (far[i] > 0)
			assert_int_equal(bs_set_has(&s, &cur, far[i] - 1),
					 far[i] == 1 || far[i] == 128 || far[i] == 16384);
		assert_true(bs_set_has(&s, &cur, far[i]));
	}
	/* backwards: the walk starts over */
	assert_true(bs_set_has(&s, &cur, 127));
	assert_false(bs_set_has(&s, &cur, 126));
	assert_true(bs_set_has(&s, &cur, 1));
	assert_false(bs_set_has(&s, &cur, 2));
	assert_true(bs_set_has(&s, &cur, UINT64_C(1) << 40));
	assert_false(bs_set_has(&s, &cur, UINT64_MAX));
	bs_set_free(&s);

	bs_set_init(&s, 1000);
	bs_set_add(&s, 10);
	bs_set_add(&s, 700);
	bs_set_add(&s, 5); /* out of order */
	assert_true(s.bitmap);
	assert_int_equal(bs_set_bytes(&s), 125);
	assert_int_equal(s.count, 3);
	bs_set_add(&s, 700);
	bs_set_add(&s, 999);
	assert_int_equal(s.count, 4);
	memset(&cur, 0, sizeof(cur));
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(bs_set_has(&s, &cur, i), i == 5 || i == 10 || i == 700 || i == 999);
	assert_false(bs_set_has(&s, &cur, 1000));
	assert_false(bs_set_has(NULL, &cur, 5));
	bs_set_free(&s);
}

/*
 * The pass end: the 'n' slots of a second block_state that were not 'n' in the first,
 * counted while parsing it against the first's set, in chunks and through the fast and the
 * general path, are exactly what two bitmaps give.
 */
static void test_track_incomp_against_bitmaps(void **state)
{
	const uint64_t slots = 50000;
	char *a = malloc(slots * 40 + 64), *b = malloc(slots * 40 + 64);
	size_t alen = 0, blen = 0, n;
	struct bs_bitmap ia, ib;
	struct bs_parser p;
	struct bs_set set;
	struct bsgen g;
	uint64_t want;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	bsgen_init(&g, slots, 7, false);
	while ((n = bsgen_next(&g, a + alen)))
		alen += n;
	bsgen_init(&g, slots, 8, false);
	while ((n = bsgen_next(&g, b + blen)))
		blen += n;
	assert_int_equal(bs_bitmap_alloc(&ia, slots), 0);
	assert_int_equal(bs_bitmap_alloc(&ib, slots), 0);
	assert_int_equal(blockstate_parse(a, alen, NULL, &ia, NULL), 0);
	assert_int_equal(blockstate_parse(b, blen, NULL, &ib, NULL), 0);
	want = bs_bitmap_count_new(&ia, &ib);
	assert_true(want > 100);
	assert_true(bs_bitmap_count_new(&ib, &ia) > 100);

	bs_set_init(&set, slots);
	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, &set, NULL);
	for (size_t off = 0; off < alen; off += 4093)
		assert_int_equal(bs_parser_feed(&p, a + off, alen - off < 4093 ? alen - off : 4093),
				 0);
	assert_int_equal(bs_parser_finish(&p), 0);
	assert_int_equal(set.count, bs_bitmap_count(&ia));
	assert_int_equal(set.count, p.counts.incompressible);
	assert_false(set.bitmap);
	assert_true(bs_set_bytes(&set) < slots / 8 / 2);
	for (uint64_t i = 0; i < slots; i++) {
		struct bs_set_cursor c = { 0 };

		if (bs_set_has(&set, &c, i) != bs_bitmap_test(&ia, i))
			fail_msg("slot %" PRIu64, i);
	}

	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, NULL, &set);
	for (size_t off = 0; off < blen; off += 997)
		assert_int_equal(bs_parser_feed(&p, b + off, blen - off < 997 ? blen - off : 997),
				 0);
	assert_int_equal(bs_parser_finish(&p), 0);
	assert_int_equal(p.incomp_new, want);
	/* against itself: nothing new */
	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, NULL, &set);
	assert_int_equal(bs_parser_feed(&p, a, alen), 0);
	assert_int_equal(p.incomp_new, 0);
	/* the general path (a stored-slot callback takes every line there) agrees */
	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, NULL, &set);
	bs_parser_on_stored(&p, count_stored, &n);
	assert_int_equal(bs_parser_feed(&p, b, blen), 0);
	assert_int_equal(p.incomp_new, want);
	/* recording again empties the set first */
	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, &set, NULL);
	assert_int_equal(bs_parser_feed(&p, b, blen), 0);
	assert_int_equal(set.count, bs_bitmap_count(&ib));
	bs_set_free(&set);
	bs_bitmap_free(&ia);
	bs_bitmap_free(&ib);
	free(a);
	free(b);
}

/* blockstate_read_incomp(): the same through the file, in 64 KiB reads. */
static void test_read_incomp(void **state)
{
	struct tree *t = *state;
	const char before[] = "           1            0.000000 ..h..n\n"
			      "           3            0.000000 .....n\n"
			      "          11            0.000000 ....r.\n";
	const char after[] = "           1            0.000000 ..h..n\n"
			     "           2            0.000000 .....n\n"
			     "          11            0.000000 .....n\n"
			     "          12            0.000000 ....r.\n";
	struct bs_counts c;
	struct bs_set set;
	uint64_t fresh = 99;

	bs_set_init(&set, 100);
	write_block_state(t, before, strlen(before));
	assert_int_equal(blockstate_read_incomp(t->root_fd, 0, &c, &set, NULL, NULL), 0);
	assert_int_equal(c.incompressible, 2);
	assert_int_equal(set.count, 2);
	write_block_state(t, after, strlen(after));
	assert_int_equal(blockstate_read_incomp(t->root_fd, 0, &c, NULL, &set, &fresh), 0);
	assert_int_equal(c.incompressible, 3);
	assert_int_equal(fresh, 2); /* 2 and 11; 3 is gone, 1 was there */
	bs_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_fresh),
		cmocka_unit_test(test_golden_v62),
		cmocka_unit_test(test_golden_v70),
		cmocka_unit_test(test_slot_callback),
		cmocka_unit_test(test_every_flag_combination),
		cmocka_unit_test(test_index_every_width),
		cmocka_unit_test(test_bitmap_shorter_than_index),
		cmocka_unit_test(test_single_bitmap),
		cmocka_unit_test(test_init_clears_bitmaps),
		cmocka_unit_test(test_wide_fields),
		cmocka_unit_test_setup(test_base_line_is_valid, base_setup),
		cmocka_unit_test_setup(test_bad_widths, base_setup),
		cmocka_unit_test_setup(test_bad_flag_letter, base_setup),
		cmocka_unit_test_setup(test_short_and_truncated_lines, base_setup),
		cmocka_unit_test_setup(test_bad_separators, base_setup),
		cmocka_unit_test_setup(test_non_digit_fields, base_setup),
		cmocka_unit_test_setup(test_every_column_checked, base_setup),
		cmocka_unit_test(test_many_identical_lines),
		cmocka_unit_test_setup(test_missing_final_newline, base_setup),
		cmocka_unit_test_setup(test_error_is_sticky, base_setup),
		cmocka_unit_test(test_line_too_long),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_split_at_every_offset),
		cmocka_unit_test(test_chunked_feeds),
		cmocka_unit_test_setup(test_split_malformed_line, base_setup),
		cmocka_unit_test(test_bitmap_alloc_sizes),
		cmocka_unit_test(test_bitmap_count_new),
		cmocka_unit_test(test_bitmap_grows_on_demand),
		cmocka_unit_test(test_set_sparse_and_dense),
		cmocka_unit_test(test_set_order_and_gaps),
		cmocka_unit_test(test_track_incomp_against_bitmaps),
		cmocka_unit_test(test_generator_v62),
		cmocka_unit_test(test_generator_v70),
		cmocka_unit_test(test_generator_format),
		cmocka_unit_test(test_stored_slots),
		cmocka_unit_test(test_stored_flag_combinations),
		cmocka_unit_test_setup_teardown(test_read_tree, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_large, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_missing, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_error_errno, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_malformed, tree_setup_base,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_fake_kernel_semantics, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_kernel_style, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_stored, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_incomp, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_read_errno_passthrough, tree_setup,
						tree_teardown),
	};

	return cmocka_run_group_tests_name("blockstate", tests, NULL, NULL);
}
