// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bsgen SLOTS SEED [--v70] [--counts]
 *
 * Prints a synthetic, deterministic debugfs block_state for a zram device of SLOTS slots, in
 * the kernel's exact format (6.2-6.19: "%12zd %12lld.%06lu %c%c%c%c%c%c\n"; with --v70 the
 * 7.0 form whose fraction is always ".000000"). Only allocated slots are printed, like the
 * kernel, so the file has fewer lines than SLOTS. --counts prints the expected flag totals
 * to stderr as "allocated=N same=N written_back=N huge=N idle=N recompressed=N
 * incompressible=N" so a test can compare a parser's result with the truth.
 *
 * The unit tests include this file with BSGEN_NO_MAIN defined to share the generator.
 *
 * The mix loosely follows a swap device that has been through a few recompression passes
 * (see zram-abi.md §4, §9): ~6% unallocated, ~6% same-filled, ~3% written back (time 0),
 * ~4% huge, ~40% idle, ~25% recompressed (time 0: the old object's free resets ac_time),
 * incompressible mostly on huge slots.
 */
#include "blockstate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct bsgen {
	uint64_t rng;
	uint64_t next_slot;
	uint64_t slots;
	uint64_t uptime; /* seconds */
	bool v70;
	struct bs_counts counts; /* of the lines produced so far */
	uint64_t last_index;	 /* slot of the last line */
	unsigned last_flags;	 /* its flags, bit k = "swhirn"[k] */
};

/* splitmix64: tiny, deterministic on every platform, good enough for a flag mix. */
static uint64_t bsgen_rand(struct bsgen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* True with probability permille/1000. */
static bool bsgen_chance(struct bsgen *g, unsigned permille)
{
	return bsgen_rand(g) % 1000 < permille;
}

static void bsgen_init(struct bsgen *g, uint64_t slots, uint64_t seed, bool v70)
{
	memset(g, 0, sizeof(*g));
	g->rng = seed;
	g->slots = slots;
	g->v70 = v70;
	/* Some days of uptime; 7.0's ac_time is u32 seconds, this stays far below that. */
	g->uptime = 200000 + bsgen_rand(g) % 400000;
}

/* Right-aligned decimal in at least width columns (wider when needed, like printf). */
static size_t bsgen_num(char *out, uint64_t v, size_t width, bool zero_pad)
{
	char tmp[24];
	size_t n = 0, len;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	len = n > width ? n : width;
	for (size_t i = 0; i < len - n; i++)
		out[i] = zero_pad ? '0' : ' ';
	for (size_t i = 0; i < n; i++)
		out[len - 1 - i] = tmp[i];
	return len;
}

/* One kernel-format line; out must hold 64 bytes. Returns its length. */
static size_t bsgen_format(char *out, uint64_t index, uint64_t secs, uint64_t usecs, unsigned flags)
{
	static const char letters[] = "swhirn";
	size_t n;

	n = bsgen_num(out, index, 12, false);
	out[n++] = ' ';
	n += bsgen_num(out + n, secs, 12, false);
	out[n++] = '.';
	n += bsgen_num(out + n, usecs, 6, true);
	out[n++] = ' ';
	for (int k = 0; k < 6; k++)
		out[n++] = (flags >> k) & 1 ? letters[k] : '.';
	out[n++] = '\n';
	return n;
}

static void bsgen_count(struct bs_counts *c, unsigned flags)
{
	c->allocated++;
	c->same += flags & 1;
	c->written_back += (flags >> 1) & 1;
	c->huge += (flags >> 2) & 1;
	c->idle += (flags >> 3) & 1;
	c->recompressed += (flags >> 4) & 1;
	c->incompressible += (flags >> 5) & 1;
}

/* Next line into out (64 bytes); returns its length, 0 after the last slot. */
static size_t bsgen_next(struct bsgen *g, char *out)
{
	enum { S = 1, W = 2, H = 4, I = 8, R = 16, N = 32 };
	uint64_t secs, usecs;
	unsigned flags = 0;
	bool time_zero = false;

	for (;;) {
		if (g->next_slot >= g->slots)
			return 0;
		if (!bsgen_chance(g, 60)) /* 94% allocated */
			break;
		g->next_slot++;
	}
	if (bsgen_chance(g, 60)) {
		flags = S;
		if (bsgen_chance(g, 500))
			flags |= I;
	} else if (bsgen_chance(g, 32)) {
		/* Written back: the zsmalloc object was freed, so ac_time reads 0 (≤6.19). */
		flags = W;
		time_zero = !g->v70 || bsgen_chance(g, 900);
		if (bsgen_chance(g, 300))
			flags |= I;
	} else {
		if (bsgen_chance(g, 42))
			flags |= H;
		if (bsgen_chance(g, 400))
			flags |= I;
		if (flags & H) {
			if (bsgen_chance(g, 450))
				flags |= N; /* already-compressed data stays huge */
		} else if (bsgen_chance(g, 260)) {
			flags |= R;
			time_zero = bsgen_chance(g, 800); /* not touched since recompression */
		} else if (bsgen_chance(g, 8)) {
			flags |= N;
		}
	}
	if (time_zero) {
		secs = 0;
		usecs = 0;
	} else {
		secs = g->uptime - bsgen_rand(g) % g->uptime;
		usecs = g->v70 ? 0 : bsgen_rand(g) % 1000000;
	}
	g->last_index = g->next_slot++;
	g->last_flags = flags;
	bsgen_count(&g->counts, flags);
	return bsgen_format(out, g->last_index, secs, usecs, flags);
}

#ifndef BSGEN_NO_MAIN
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int parse_arg_u64(const char *s, uint64_t *ret)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	bool v70 = false, counts = false;
	uint64_t slots, seed;
	const char *pos[2];
	struct bsgen g;
	size_t used = 0, n;
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--v70"))
			v70 = true;
		else if (!strcmp(argv[i], "--counts"))
			counts = true;
		else if (npos < 2 && argv[i][0] != '-')
			pos[npos++] = argv[i];
		else
			npos = 3;
	}
	if (npos != 2 || parse_arg_u64(pos[0], &slots) < 0 || parse_arg_u64(pos[1], &seed) < 0) {
		fprintf(stderr, "usage: bsgen SLOTS SEED [--v70] [--counts] > block_state\n");
		return 2;
	}
	bsgen_init(&g, slots, seed, v70);
	while ((n = bsgen_next(&g, buf + used))) {
		used += n;
		if (sizeof(buf) - used < 64) {
			if (fwrite(buf, 1, used, stdout) != used)
				goto fail;
			used = 0;
		}
	}
	if (fwrite(buf, 1, used, stdout) != used || fflush(stdout) != 0)
		goto fail;
	if (counts)
		fprintf(stderr,
			"allocated=%" PRIu64 " same=%" PRIu64 " written_back=%" PRIu64
			" huge=%" PRIu64 " idle=%" PRIu64 " recompressed=%" PRIu64
			" incompressible=%" PRIu64 "\n",
			g.counts.allocated, g.counts.same, g.counts.written_back, g.counts.huge,
			g.counts.idle, g.counts.recompressed, g.counts.incompressible);
	return 0;
fail:
	perror("bsgen: write");
	return 1;
}
#endif
