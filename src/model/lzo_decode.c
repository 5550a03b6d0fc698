// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The LZO1X decoder (stream versions 0 and 1: lzo and lzo-rle) of include/compress.h,
 * written from the format description (Documentation/staging/lzo.rst), for the round
 * trip that checks the kernel-variant encoder in compress.c.
 */
#include "compress.h"

#include <errno.h>
#include <string.h>

#define LZO_MAX_IN (16u * 1024u) /* compress.c: pages of 4 to 16 KiB */
#define LZO_MIN_RUN 4u		 /* lzo-rle: MIN_ZERO_RUN_LENGTH */

struct lzo_in {
	const uint8_t *p;
	const uint8_t *end;
};

static int lzo_get(struct lzo_in *in, unsigned *ret)
{
	if (in->p >= in->end)
		return -EIO;
	*ret = *in->p++;
	return 0;
}

/* Extended length: zero bytes add 255 each, the first non-zero byte ends it. */
static int lzo_get_extra(struct lzo_in *in, size_t base, size_t *ret)
{
	size_t len = base;
	unsigned b;

	for (;;) {
		if (lzo_get(in, &b) < 0)
			return -EIO;
		if (b)
			break;
		len += 255;
		if (len > LZO_MAX_IN * 2)
			return -EIO;
	}
	*ret = len + b;
	return 0;
}

static int lzo_copy_lit(struct lzo_in *in, uint8_t **op, uint8_t *oend, size_t n)
{
	if ((size_t)(in->end - in->p) < n)
		return -EIO;
	if ((size_t)(oend - *op) < n)
		return -ENOBUFS;
	memcpy(*op, in->p, n);
	in->p += n;
	*op += n;
	return 0;
}

static int lzo_copy_match(uint8_t *out, uint8_t **op, uint8_t *oend, size_t dist, size_t n)
{
	uint8_t *o = *op;

	if (dist == 0 || dist > (size_t)(o - out))
		return -EIO;
	if ((size_t)(oend - o) < n)
		return -ENOBUFS;
	for (size_t i = 0; i < n; i++, o++)
		*o = *(o - dist); /* byte by byte: overlapping copies repeat the pattern */
	*op = o;
	return 0;
}

enum { LZO_M4_MATCH, LZO_M4_RUN, LZO_M4_END };

/*
 * An M4 instruction (16 <= t < 32): a far match (LZO_M4_MATCH: len, dist and the trailing
 * literal count s to apply), the end of the stream, or in lzo-rle (version 1) a zero run,
 * written out here with its trailing literals (LZO_M4_RUN).
 */
static int lzo_m4(struct lzo_in *in, unsigned t, unsigned version, uint8_t **op, uint8_t *oend,
		  size_t *len, size_t *dist, unsigned *s)
{
	unsigned lo, hi, x;
	int r;

	if ((r = lzo_get(in, &lo)) < 0 || (r = lzo_get(in, &hi)) < 0)
		return r;
	if (version && (t & 0xf8) == 0x18 && (lo & 0xfc) == 0xfc && hi == 0xff) {
		if ((r = lzo_get(in, &x)) < 0)
			return r;
		*len = (((size_t)x << 3) | (t & 7)) + LZO_MIN_RUN;
		if ((size_t)(oend - *op) < *len)
			return -ENOBUFS;
		memset(*op, 0, *len);
		*op += *len;
		*s = lo & 3;
		r = lzo_copy_lit(in, op, oend, *s);
		return r < 0 ? r : LZO_M4_RUN;
	}
	in->p -= 2;
	if (t & 7)
		*len = 2 + (t & 7);
	else if ((r = lzo_get_extra(in, 9, len)) < 0)
		return r;
	if ((r = lzo_get(in, &lo)) < 0 || (r = lzo_get(in, &hi)) < 0)
		return r;
	*dist = ((size_t)(t & 8) << 11) + ((lo | hi << 8) >> 2);
	if (*dist == 0)
		return LZO_M4_END;
	*dist += 0x4000;
	*s = lo & 3;
	return LZO_M4_MATCH;
}

int comp_lzo_decode(const uint8_t *src, size_t src_len, uint8_t *out, size_t out_cap,
		    size_t *ret_len)
{
	struct lzo_in in = {.p = src, .end = src + src_len};
	uint8_t *op = out, *const oend = out + out_cap;
	unsigned version = 0, t, state = 0;
	int r;

	if (src_len >= 5 && src[0] == 17) {
		version = src[1];
		in.p += 2;
	}
	if (in.p < in.end && in.p[0] > 17) {
		t = *in.p++ - 17u;
		if ((r = lzo_copy_lit(&in, &op, oend, t)) < 0)
			return r;
		state = t < 4 ? t : 4;
	}
	for (;;) {
		size_t len, dist;
		unsigned b, s;

		if ((r = lzo_get(&in, &t)) < 0)
			return r;
		if (t < 16) {
			if (state == 0) {
				/* Long literal run. */
				if (t)
					len = 3 + t;
				else if ((r = lzo_get_extra(&in, 18, &len)) < 0)
					return r;
				if ((r = lzo_copy_lit(&in, &op, oend, len)) < 0)
					return r;
				state = 4;
				continue;
			}
			if ((r = lzo_get(&in, &b)) < 0)
				return r;
			len = state < 4 ? 2 : 3;
			dist = ((size_t)b << 2) + ((t >> 2) & 3) + (state < 4 ? 1 : 2049);
			s = t & 3;
		} else if (t < 32) {
			r = lzo_m4(&in, t, version, &op, oend, &len, &dist, &s);
			if (r < 0)
				return r;
			if (r == LZO_M4_END)
				break;
			if (r == LZO_M4_RUN) {
				state = s;
				continue;
			}
		} else if (t < 64) {
			unsigned lo, hi;

			if (t & 31)
				len = 2 + (t & 31);
			else if ((r = lzo_get_extra(&in, 33, &len)) < 0)
				return r;
			if ((r = lzo_get(&in, &lo)) < 0 || (r = lzo_get(&in, &hi)) < 0)
				return r;
			dist = ((lo | hi << 8) >> 2) + 1;
			s = lo & 3;
		} else {
			if ((r = lzo_get(&in, &b)) < 0)
				return r;
			len = t < 128 ? 3 + ((t >> 5) & 1) : 5 + ((t >> 5) & 3);
			dist = ((size_t)b << 3) + ((t >> 2) & 7) + 1;
			s = t & 3;
		}
		if ((r = lzo_copy_match(out, &op, oend, dist, len)) < 0)
			return r;
		if ((r = lzo_copy_lit(&in, &op, oend, s)) < 0)
			return r;
		state = s;
	}
	if (in.p != in.end)
		return -EIO; /* trailing garbage: the kernel reports LZO_E_INPUT_NOT_CONSUMED */
	*ret_len = (size_t)(op - out);
	return 0;
}
