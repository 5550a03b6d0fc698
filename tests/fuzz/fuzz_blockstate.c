// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debugfs block_state (src/kernel/blockstate.c). The input is the file's text. It is parsed whole
 * (blockstate_parse), fed in chunks of pseudo-random sizes (derived from the input, so a
 * saved crash replays), once more with a stored-slot callback (which takes every line
 * through the per-line parser instead of the 40-byte fast path), and the results must agree:
 * return value, counts, lines seen and both bitmaps. Bitmaps are 1000 bits, not a multiple of
 * 64, so that slots past the end are exercised too. The incompressible set of a pass
 * (bs_parser_track_incomp: a gap list that turns into a bitmap when dense or out of order)
 * must hold exactly the bitmap's bits, and comparing the input against its own set must
 * agree however it is chunked.
 */
#include "fuzz.h"

#include "blockstate.h"

#include <errno.h>

#define NBITS 1000

struct result {
	int r;
	struct bs_counts counts;
	uint64_t lines;
	struct bs_bitmap incomp, recomp;
	uint64_t stored, stored_sum; /* callback calls and a hash of their indexes */
	uint64_t slots, slot_sum;     /* slot callback calls, hash of index, seconds, flags */
};

static struct result res[4];

static void on_stored(void *arg, uint64_t index)
{
	struct result *x = arg;

	x->stored++;
	x->stored_sum = x->stored_sum * 1000003u + index;
}

static void on_slot(void *arg, uint64_t index, uint64_t sec, unsigned flags)
{
	struct result *x = arg;

	FUZZ_CHECK(flags < 64);
	x->slots++;
	x->slot_sum = ((x->slot_sum * 1000003u + index) * 1000003u + sec) * 64u + flags;
}

/* xorshift64: chunk sizes from a seed taken from the input. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* max_chunk 0: the whole input in one feed. */
static void run(struct result *x, const char *buf, size_t len, size_t max_chunk, uint64_t seed,
		bool stored, bool slot)
{
	struct bs_parser p;
	size_t off = 0;
	int r = 0;

	x->stored = x->stored_sum = 0;
	x->slots = x->slot_sum = 0;
	bs_parser_init(&p, &x->incomp, &x->recomp);
	if (stored)
		bs_parser_on_stored(&p, on_stored, x);
	if (slot)
		bs_parser_on_slot(&p, on_slot, x);
	while (off < len && r == 0) {
		size_t n = max_chunk ? 1 + next(&seed) % max_chunk : len;

		if (n > len - off)
			n = len - off;
		r = bs_parser_feed(&p, buf + off, n);
		FUZZ_CHECK(r == 0 || r == -EINVAL);
		off += n;
	}
	if (r == 0)
		r = bs_parser_finish(&p);
	/* The error is sticky. */
	FUZZ_CHECK(r == 0 || bs_parser_feed(&p, "x", 1) == r);
	x->r = r;
	x->counts = p.counts;
	x->lines = p.line;
}

/* A parse that records the 'n' slots in record and counts those not in ref. */
static int run_track(const char *buf, size_t len, size_t max_chunk, uint64_t seed,
		     struct bs_set *record, const struct bs_set *ref, struct bs_counts *counts,
		     uint64_t *fresh)
{
	struct bs_parser p;
	size_t off = 0;
	int r = 0;

	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, record, ref);
	while (off < len && r == 0) {
		size_t n = max_chunk ? 1 + next(&seed) % max_chunk : len;

		if (n > len - off)
			n = len - off;
		r = bs_parser_feed(&p, buf + off, n);
		off += n;
	}
	if (r == 0)
		r = bs_parser_finish(&p);
	*counts = p.counts;
	*fresh = p.incomp_new;
	return r;
}

static void check_set(const char *buf, size_t size, uint64_t seed)
{
	struct bs_set set, again;
	struct bs_set_cursor cur = { 0 };
	struct bs_counts c, c2;
	uint64_t fresh, fresh2;
	int r;

	bs_set_init(&set, NBITS);
	bs_set_init(&again, NBITS);
	r = run_track(buf, size, 0, 0, &set, NULL, &c, &fresh);
	FUZZ_CHECK(r == res[0].r);
	FUZZ_CHECK(fresh == 0); /* no reference: nothing counted */
	FUZZ_CHECK(!set.failed);
	FUZZ_CHECK(bs_set_bytes(&set) <= NBITS / 8 + 1);
	if (r == 0) {
		FUZZ_CHECK(memcmp(&c, &res[0].counts, sizeof(c)) == 0);
		FUZZ_CHECK(set.count == bs_bitmap_count(&res[0].incomp));
		for (uint64_t i = 0; i < NBITS; i++)
			FUZZ_CHECK(bs_set_has(&set, &cur, i) == bs_bitmap_test(&res[0].incomp, i));
		FUZZ_CHECK(!bs_set_has(&set, &cur, NBITS));
	}
	/* Chunked, against its own set, recording again: the same everywhere. */
	r = run_track(buf, size, 53, seed, &again, &set, &c2, &fresh);
	FUZZ_CHECK(r == res[0].r);
	if (r == 0) {
		FUZZ_CHECK(again.count == set.count);
		FUZZ_CHECK(fresh <= c2.incompressible - set.count);
		r = run_track(buf, size, 0, 0, NULL, &again, &c2, &fresh2);
		FUZZ_CHECK(r == 0 && fresh2 == fresh);
	}
	bs_set_free(&set);
	bs_set_free(&again);
}

static bool same_bitmap(const struct bs_bitmap *a, const struct bs_bitmap *b)
{
	return a->nbits == b->nbits && memcmp(a->words, b->words, (NBITS + 63) / 64 * 8) == 0;
}

static void check_same(const struct result *a, const struct result *b)
{
	FUZZ_CHECK(a->r == b->r);
	FUZZ_CHECK(memcmp(&a->counts, &b->counts, sizeof(a->counts)) == 0);
	FUZZ_CHECK(a->lines == b->lines);
	FUZZ_CHECK(same_bitmap(&a->incomp, &b->incomp));
	FUZZ_CHECK(same_bitmap(&a->recomp, &b->recomp));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	for (size_t i = 0; i < 4; i++)
		if (bs_bitmap_alloc(&res[i].incomp, NBITS) < 0 ||
		    bs_bitmap_alloc(&res[i].recomp, NBITS) < 0)
			abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct bs_bitmap inc, rec;
	struct bs_counts whole;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int r;

	for (size_t i = 0; i < size && i < 64; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ULL;
	seed |= 1;

	run(&res[0], buf, size, 0, 0, false, true);
	run(&res[1], buf, size, 7, seed, false, true);
	run(&res[2], buf, size, 97, seed, false, false);
	run(&res[3], buf, size, 41, seed, true, false);
	for (size_t i = 1; i < 4; i++)
		check_same(&res[0], &res[i]);
	/* The slot callback: every line once, the same (index, seconds, flags) however the
	 * input is chunked (fast and slow path agree). */
	if (res[0].r == 0)
		FUZZ_CHECK(res[0].slots == res[0].counts.allocated);
	FUZZ_CHECK(res[0].r != 0 ||
		   (res[1].slots == res[0].slots && res[1].slot_sum == res[0].slot_sum));
	check_set(buf, size, seed);

	/* The callback sees every slot that holds data, in file order, once. */
	if (res[3].r == 0) {
		const struct bs_counts *c = &res[3].counts;

		FUZZ_CHECK(res[3].stored <= c->allocated);
		FUZZ_CHECK(c->allocated - res[3].stored <= c->same + c->written_back);
	}
	if (res[0].r == 0) {
		const struct bs_counts *c = &res[0].counts;

		FUZZ_CHECK(c->allocated == res[0].lines);
		FUZZ_CHECK(c->idle_fresh <= c->idle && c->huge_idle_fresh <= c->idle_fresh);
		FUZZ_CHECK(c->huge_idle_fresh <= c->huge);
		FUZZ_CHECK(bs_bitmap_count(&res[0].incomp) <= c->incompressible);
		FUZZ_CHECK(bs_bitmap_count(&res[0].recomp) <= c->recompressed);
	}

	/* The convenience wrapper, without bitmaps and with fresh ones, agrees as well. */
	r = blockstate_parse(buf, size, &whole, NULL, NULL);
	FUZZ_CHECK(r == res[0].r);
	if (r == 0)
		FUZZ_CHECK(memcmp(&whole, &res[0].counts, sizeof(whole)) == 0);
	if (bs_bitmap_alloc(&inc, 64) < 0 || bs_bitmap_alloc(&rec, 1) < 0)
		abort();
	r = blockstate_parse(buf, size, &whole, &inc, &rec);
	FUZZ_CHECK(r == res[0].r);
	for (uint64_t i = 0; r == 0 && i < 64; i++)
		FUZZ_CHECK(bs_bitmap_test(&inc, i) == bs_bitmap_test(&res[0].incomp, i));
	FUZZ_CHECK(r != 0 || bs_bitmap_test(&rec, 0) == bs_bitmap_test(&res[0].recomp, 0));
	bs_bitmap_free(&inc);
	bs_bitmap_free(&rec);
	return 0;
}
