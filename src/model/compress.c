// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User-space mirrors of zram's compression backends (see include/compress.h).
 *
 * Accuracy, measured on a 6.12.118 kernel (qemu) with the 8874 pages of the shared corpus,
 * as the per-page growth of compr_data_size: lzo, lzo-rle, zstd (levels 3 and 9) and
 * deflate match on every page; lz4 differs on 1.4% of the pages by at most 6 bytes (pool
 * memory identical); lz4hc (liblz4 1.9.4 vs the kernel's older LZ4HC) on 33% of the pages,
 * 0.08% fewer bytes and 0.5% less pool memory than the kernel, so lz4hc predictions are
 * slightly optimistic.
 *
 * lz4, lz4hc, zstd and deflate call the system libraries with the parameters the 6.12
 * backends use. lzo and lzo-rle use an encoder written here, because liblzo2's lzo1x_1 uses
 * a 14-bit dictionary and has no zero-run variant, so its sizes differ from the kernel's.
 * The encoder follows the LZO1X stream format (Documentation/staging/lzo.rst) and these
 * facts about the kernel's LZO1X-1 compressor (lib/lzo/lzo1x_compress.c, 6.12, x86-64):
 *  - 8192-entry table of 16-bit positions, hash ((le32 * 0x1824429d) >> 19) & 0x1fff,
 *    cleared per call; a candidate matches only if its 4 bytes equal the current 4 bytes;
 *  - the scan starts at offset 5 and, after a miss, advances 1 + (literals pending / 32);
 *  - the scan stops 20 bytes before the end; the rest is emitted as literals; inputs under
 *    32 bytes are not scanned at all;
 *  - a match is extended in 8-byte steps and stops growing (without the final partial
 *    word) once it reaches the 20-byte tail;
 *  - lzo-rle (bitstream version 1): the stream starts with 17, 1; 4+ zero bytes at the scan
 *    position become a run (up to 2051 bytes, not beyond the tail) encoded as the M4
 *    instruction with distance 0xbfff plus one length byte; runs do not enter the table.
 * Only inputs up to 16 KiB are accepted (pages of 4, 8 and 16 KiB), so every match distance
 * fits the M2/M3 forms and the M4 long-distance form is never needed; larger pages would
 * need it and the kernel's 48 KiB chunks (lzo1x_1_compress), which are not mirrored.
 * The LZO decoder that checks the round trip is in lzo_decode.c.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_getParams(): the kernel's zstd_get_params() */
#include "compress.h"

#include <errno.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define LZO_MAX_IN (16u * 1024u)
#define LZO_TAIL 20u		 /* the scan stops this many bytes before the end */
#define LZO_MIN_RUN 4u		 /* MIN_ZERO_RUN_LENGTH */
#define LZO_MAX_RUN (2047u + 4u) /* MAX_ZERO_RUN_LENGTH */
#define LZO_HASH_MUL 0x1824429du
#define LZO_M2_MAX_LEN 8u
#define LZO_M2_MAX_OFF 0x0800u
#define LZO_M3_MAX_LEN 33u

#define DEFLATE_WINBITS 11  /* DEFLATE_DEF_WINBITS, raw (negative) */
#define DEFLATE_MEMLEVEL 8  /* the kernel's MAX_MEM_LEVEL; user-space zlib's is 9 */
#define LZ4HC_KERNEL_MAX 16 /* the kernel's LZ4HC_MAX_CLEVEL (user-space liblz4: 12) */

static const char *const algo_names[COMP_NR_ALGOS] = {
	[COMP_LZO] = "lzo",	[COMP_LZO_RLE] = "lzo-rle", [COMP_LZ4] = "lz4",
	[COMP_LZ4HC] = "lz4hc", [COMP_ZSTD] = "zstd",	    [COMP_DEFLATE] = "deflate",
};

const char *comp_algo_name(enum comp_algo a)
{
	return (unsigned)a < COMP_NR_ALGOS ? algo_names[a] : NULL;
}

int comp_algo_from_name(const char *name, enum comp_algo *ret)
{
	for (unsigned i = 0; i < COMP_NR_ALGOS; i++) {
		if (strcmp(name, algo_names[i]) == 0) {
			*ret = (enum comp_algo)i;
			return 0;
		}
	}
	return -ENOENT;
}

bool comp_algo_has_level(enum comp_algo a)
{
	return a != COMP_LZO && a != COMP_LZO_RLE;
}

int comp_default_level(enum comp_algo a)
{
	switch (a) {
	case COMP_LZ4:
		return 1; /* LZ4_ACCELERATION_DEFAULT */
	case COMP_LZ4HC:
		return 9; /* LZ4HC_DEFAULT_CLEVEL */
	case COMP_ZSTD:
		return ZSTD_defaultCLevel(); /* zstd_default_clevel() */
	case COMP_DEFLATE:
		return 6; /* Z_DEFAULT_COMPRESSION as zlib resolves it */
	default:
		return 0;
	}
}

int comp_effective_level(enum comp_algo a, int level)
{
	if (level == COMP_LEVEL_DEFAULT || !comp_algo_has_level(a))
		return comp_default_level(a);
	switch (a) {
	case COMP_LZ4:
		return level < 1 ? 1 : level;
	case COMP_LZ4HC:
		if (level < 1)
			return 9;
		return level > LZ4HC_KERNEL_MAX ? LZ4HC_KERNEL_MAX : level;
	case COMP_ZSTD:
		if (level == 0)
			return ZSTD_defaultCLevel();
		if (level > ZSTD_maxCLevel())
			return ZSTD_maxCLevel();
		return level < ZSTD_minCLevel() ? ZSTD_minCLevel() : level;
	case COMP_DEFLATE:
		return level == -1 ? 6 : level;
	default:
		return level;
	}
}

int comp_level_check(enum comp_algo a, int level)
{
	if (level == COMP_LEVEL_DEFAULT)
		return 0;
	if (!comp_algo_has_level(a))
		return -EINVAL; /* the lzo backends ignore level=; refuse rather than mislead */
	if (a == COMP_DEFLATE && (level < -1 || level > 9))
		return -EINVAL; /* zlib_deflateInit2 fails, disksize returns -EINVAL */
	return 0;
}

int comp_parse_spec(const char *spec, enum comp_algo *ret_algo, int *ret_level)
{
	char name[COMP_NAME_MAX];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	enum comp_algo a;
	int level = COMP_LEVEL_DEFAULT;
	int r;

	if (n == 0 || n >= sizeof(name))
		return -ENOENT;
	memcpy(name, spec, n);
	name[n] = '\0';
	r = comp_algo_from_name(name, &a);
	if (r < 0)
		return r;
	if (colon) {
		const char *p = colon + 1;
		char *end;
		long v;

		if (*p == '\0')
			return -EINVAL;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || *end != '\0' || end == p || v < INT_MIN + 1 || v > INT_MAX)
			return -EINVAL;
		level = (int)v;
		r = comp_level_check(a, level);
		if (r < 0)
			return r;
	}
	*ret_algo = a;
	*ret_level = level;
	return 0;
}

int comp_format_spec(enum comp_algo a, int level, char *buf, size_t size)
{
	int eff = comp_effective_level(a, level);
	int n;

	if (!comp_algo_has_level(a) || eff == comp_default_level(a))
		n = snprintf(buf, size, "%s", comp_algo_name(a));
	else
		n = snprintf(buf, size, "%s:%d", comp_algo_name(a), eff);
	return n < 0 || (size_t)n >= size ? -ENOBUFS : 0;
}

/* ---- LZO1X-1, the kernel's variant (own implementation; facts in the header comment) ---- */

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t load_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Index of the first differing byte in a little-endian XOR of two 8-byte words. */
static inline unsigned first_diff_byte(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (unsigned)__builtin_ctzll(x) / 8;
#else
	return (unsigned)__builtin_clzll(x) / 8;
#endif
}

struct lzo_out {
	uint8_t *p;
	uint8_t *end;
	uint8_t *data_start; /* first byte after the version header */
	int state_back;	     /* where the next 1..3 literal count is ORed in, relative to p */
};

static int lzo_put(struct lzo_out *o, uint8_t b)
{
	if (o->p >= o->end)
		return -ENOBUFS;
	*o->p++ = b;
	return 0;
}

/* Length beyond what the opcode holds: a zero byte per 255, then the remainder. */
static int lzo_put_extra(struct lzo_out *o, size_t rest)
{
	while (rest > 255) {
		if (lzo_put(o, 0) < 0)
			return -ENOBUFS;
		rest -= 255;
	}
	return lzo_put(o, (uint8_t)rest);
}

/*
 * A literal run of n > 0 bytes. 1..3 literals ride in the low two bits of the previous
 * instruction; 4..18 take one opcode byte (n - 3); longer runs use 0 plus the extra-length
 * bytes for n - 18. first: the stream has no instruction yet (the 17 + n form is allowed).
 */
static int lzo_put_literals(struct lzo_out *o, const uint8_t *lit, size_t n, bool first)
{
	int r = 0;

	if (first && n <= 238)
		r = lzo_put(o, (uint8_t)(17 + n));
	else if (n <= 3 && o->p == o->data_start)
		return -EINVAL; /* no instruction to carry them: cannot happen (scan starts at 5) */
	else if (n <= 3)
		o->p[o->state_back] |= (uint8_t)n;
	else if (n <= 18)
		r = lzo_put(o, (uint8_t)(n - 3));
	else if ((r = lzo_put(o, 0)) == 0)
		r = lzo_put_extra(o, n - 18);
	if (r < 0)
		return r;
	if ((size_t)(o->end - o->p) < n)
		return -ENOBUFS;
	memcpy(o->p, lit, n);
	o->p += n;
	return 0;
}

static int lzo_put_match(struct lzo_out *o, size_t len, size_t dist)
{
	size_t d = dist - 1;
	int r;

	if (len <= LZO_M2_MAX_LEN && dist <= LZO_M2_MAX_OFF) {
		/* M2: 1LLDDDSS or 01LDDDSS, then the distance bits above the low 3. */
		if ((r = lzo_put(o, (uint8_t)(((len - 1) << 5) | ((d & 7) << 2)))) < 0)
			return r;
		r = lzo_put(o, (uint8_t)(d >> 3));
	} else {
		/* M3: 001LLLLL [extra], then LE16 distance-1 shifted left by 2 (state bits). */
		if (len <= LZO_M3_MAX_LEN) {
			r = lzo_put(o, (uint8_t)(32 | (len - 2)));
		} else if ((r = lzo_put(o, 32)) == 0) {
			r = lzo_put_extra(o, len - LZO_M3_MAX_LEN);
		}
		if (r < 0 || (r = lzo_put(o, (uint8_t)(d << 2))) < 0)
			return r;
		r = lzo_put(o, (uint8_t)(d >> 6));
	}
	o->state_back = -2;
	return r;
}

static int lzo_put_zero_run(struct lzo_out *o, size_t run)
{
	size_t v = run - LZO_MIN_RUN;
	int r;

	/* M4 marker with the high distance bit set (0x18), distance 0xbfff, length byte. */
	if ((r = lzo_put(o, (uint8_t)(0x18 | (v & 7)))) < 0 || (r = lzo_put(o, 0xfc)) < 0 ||
	    (r = lzo_put(o, 0xff)) < 0 || (r = lzo_put(o, (uint8_t)(v >> 3))) < 0)
		return r;
	o->state_back = -3; /* literal count goes into the 0xfc byte */
	return 0;
}

/* Match length at ip against ref, 4 bytes already equal, limit as the kernel's x86-64 path. */
static size_t lzo_match_len(const uint8_t *ip, const uint8_t *ref, const uint8_t *scan_end)
{
	size_t len = 4;

	for (;;) {
		uint64_t x = load_u64(ip + len) ^ load_u64(ref + len);

		if (x)
			return len + first_diff_byte(x);
		len += 8;
		if (ip + len >= scan_end)
			return len;
	}
}

/* Length of the zero run at ip (its first 4 bytes are zero), at most LZO_MAX_RUN. */
static size_t lzo_zero_run(const uint8_t *ip, const uint8_t *scan_end)
{
	const uint8_t *limit = ip + LZO_MAX_RUN + 1;
	const uint8_t *z = ip + 4;

	if (limit > scan_end)
		limit = scan_end;
	/* The first non-zero byte before limit, a word at a time. */
	while (z + 8 <= limit && load_u64(z) == 0)
		z += 8;
	while (z < limit && *z == 0)
		z++;
	return (size_t)(z - ip) > LZO_MAX_RUN ? LZO_MAX_RUN : (size_t)(z - ip);
}

/*
 * The match search over in (the kernel's chunk loop): literals, matches and (lzo-rle)
 * zero runs go to o; *lit ends at the first byte not yet emitted.
 */
static int lzo_scan(struct lzo_out *o, const uint8_t *in, size_t in_len, uint16_t *dict, bool rle,
		    const uint8_t **lit)
{
	const uint8_t *const scan_end = in + in_len - LZO_TAIL;
	const uint8_t *ip = in + 4;
	bool hit = false;
	int r;

	memset(dict, 0, COMP_LZO_DICT_SIZE * sizeof(*dict));
	for (;;) {
		const uint8_t *ref = NULL;
		size_t run = 0;
		uint32_t dv;

		if (!hit)
			ip += 1 + ((size_t)(ip - *lit) >> 5);
		hit = false;
		if (ip >= scan_end)
			return 0;
		dv = load_le32(ip);
		if (dv == 0 && rle) {
			run = lzo_zero_run(ip, scan_end);
		} else {
			unsigned h = ((dv * LZO_HASH_MUL) >> (32 - 13)) & (COMP_LZO_DICT_SIZE - 1);

			ref = in + dict[h];
			dict[h] = (uint16_t)(ip - in);
			if (load_le32(ref) != dv)
				continue;
		}
		if (ip > *lit && (r = lzo_put_literals(o, *lit, (size_t)(ip - *lit), false)) < 0)
			return r;
		if (run) {
			r = lzo_put_zero_run(o, run);
			ip += run;
		} else {
			size_t len = lzo_match_len(ip, ref, scan_end);

			r = lzo_put_match(o, len, (size_t)(ip - ref));
			ip += len;
		}
		if (r < 0)
			return r;
		*lit = ip;
		hit = true; /* the next probe is right after the match or run */
	}
}

int comp_lzo_encode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *ret_len,
		    uint16_t *dict, bool rle)
{
	struct lzo_out o = {.p = out, .end = out + out_cap, .state_back = -2};
	const uint8_t *const in_end = in + in_len;
	const uint8_t *lit = in; /* start of the pending literals */
	int r;

	if (in_len == 0 || in_len > LZO_MAX_IN)
		return -EINVAL;
	if (rle) {
		if ((r = lzo_put(&o, 17)) < 0 || (r = lzo_put(&o, 1)) < 0)
			return r;
	}
	o.data_start = o.p;
	/*
	 * The kernel's chunk loop only scans when len > 20 and len / 32 > 0 (its pointer
	 * overflow guard is also true for short inputs), so inputs under 32 bytes are literals.
	 */
	if (in_len > LZO_TAIL && in_len >= 32 && (r = lzo_scan(&o, in, in_len, dict, rle, &lit)) < 0)
		return r;
	if (in_end > lit) {
		r = lzo_put_literals(&o, lit, (size_t)(in_end - lit), o.p == o.data_start);
		if (r < 0)
			return r;
	}
	/* End of stream: M4 with distance 0. */
	if ((r = lzo_put(&o, 16 | 1)) < 0 || (r = lzo_put(&o, 0)) < 0 || (r = lzo_put(&o, 0)) < 0)
		return r;
	*ret_len = (size_t)(o.p - out);
	return 0;
}

/* ---- contexts ---- */

struct comp_ctx {
	enum comp_algo algo;
	int level; /* effective */
	union {
		uint16_t *lzo_dict;
		void *lz4_state;
		struct {
			ZSTD_CCtx *cctx;
			ZSTD_DCtx *dctx;
			ZSTD_parameters params;
			ZSTD_CDict *cdict; /* comp_ctx_set_dict() */
			ZSTD_DDict *ddict;
			size_t page_size;
		} zstd;
		struct {
			z_stream def;
			z_stream inf;
			bool def_ok, inf_ok;
		} zlib;
	} u;
};

int comp_ctx_new(enum comp_algo a, int level, size_t page_size, struct comp_ctx **ret)
{
	struct comp_ctx *c;
	int r = -ENOMEM;

	if ((unsigned)a >= COMP_NR_ALGOS || page_size < COMP_PAGE_SIZE_MIN ||
	    page_size > COMP_PAGE_SIZE_MAX || (page_size & (page_size - 1)))
		return -EINVAL;
	if ((a == COMP_LZO || a == COMP_LZO_RLE) && page_size > LZO_MAX_IN)
		return -EOPNOTSUPP;
	if ((r = comp_level_check(a, level)) < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->algo = a;
	c->level = comp_effective_level(a, level);
	r = -ENOMEM;

	switch (a) {
	case COMP_LZO:
	case COMP_LZO_RLE:
		c->u.lzo_dict = calloc(COMP_LZO_DICT_SIZE, sizeof(uint16_t));
		if (!c->u.lzo_dict)
			goto fail;
		break;
	case COMP_LZ4:
		c->u.lz4_state = malloc((size_t)LZ4_sizeofState());
		if (!c->u.lz4_state)
			goto fail;
		break;
	case COMP_LZ4HC:
		c->u.lz4_state = malloc((size_t)LZ4_sizeofStateHC());
		if (!c->u.lz4_state)
			goto fail;
		break;
	case COMP_ZSTD:
		c->u.zstd.cctx = ZSTD_createCCtx();
		c->u.zstd.dctx = ZSTD_createDCtx();
		if (!c->u.zstd.cctx || !c->u.zstd.dctx)
			goto fail;
		/* zstd_get_params(level, PAGE_SIZE) (6.12-7.3 backend_zstd.c): parameters
		 * tuned for a source of one page. */
		c->u.zstd.params = ZSTD_getParams(c->level, page_size, 0);
		c->u.zstd.page_size = page_size;
		break;
	case COMP_DEFLATE:
		if (deflateInit2(&c->u.zlib.def, c->level, Z_DEFLATED, -DEFLATE_WINBITS,
				 DEFLATE_MEMLEVEL, Z_DEFAULT_STRATEGY) != Z_OK) {
			r = -EINVAL;
			goto fail;
		}
		c->u.zlib.def_ok = true;
		if (inflateInit2(&c->u.zlib.inf, -DEFLATE_WINBITS) != Z_OK)
			goto fail;
		c->u.zlib.inf_ok = true;
		break;
	default:
		r = -EINVAL;
		goto fail;
	}
	*ret = c;
	return 0;
fail:
	comp_ctx_free(c);
	return r;
}

void comp_ctx_free(struct comp_ctx *c)
{
	if (!c)
		return;
	switch (c->algo) {
	case COMP_LZO:
	case COMP_LZO_RLE:
		free(c->u.lzo_dict);
		break;
	case COMP_LZ4:
	case COMP_LZ4HC:
		free(c->u.lz4_state);
		break;
	case COMP_ZSTD:
		ZSTD_freeCCtx(c->u.zstd.cctx);
		ZSTD_freeDCtx(c->u.zstd.dctx);
		ZSTD_freeCDict(c->u.zstd.cdict);
		ZSTD_freeDDict(c->u.zstd.ddict);
		break;
	case COMP_DEFLATE:
		if (c->u.zlib.def_ok)
			deflateEnd(&c->u.zlib.def);
		if (c->u.zlib.inf_ok)
			inflateEnd(&c->u.zlib.inf);
		break;
	default:
		break;
	}
	free(c);
}

enum comp_algo comp_ctx_algo(const struct comp_ctx *c)
{
	return c->algo;
}

int comp_ctx_level(const struct comp_ctx *c)
{
	return c->level;
}

int comp_ctx_set_dict(struct comp_ctx *c, const void *dict, size_t size)
{
	if (c->algo != COMP_ZSTD || !dict || size == 0 || c->u.zstd.cdict)
		return -EINVAL;
	/* 6.12-7.3 backend_zstd.c zstd_setup_params(): both by reference, the compression
	 * parameters of ZSTD_getCParams(level, PAGE_SIZE, dictionary size). */
	c->u.zstd.cdict = ZSTD_createCDict_advanced(
		dict, size, ZSTD_dlm_byRef, ZSTD_dct_auto,
		ZSTD_getCParams(c->level, c->u.zstd.page_size, size), ZSTD_defaultCMem);
	c->u.zstd.ddict = ZSTD_createDDict_byReference(dict, size);
	if (c->u.zstd.cdict && c->u.zstd.ddict)
		return 0;
	ZSTD_freeCDict(c->u.zstd.cdict);
	ZSTD_freeDDict(c->u.zstd.ddict);
	c->u.zstd.cdict = NULL;
	c->u.zstd.ddict = NULL;
	return -EINVAL;
}

/* The kernel's zstd_compress_cctx(): reset, pledge the size, set every parameter, compress2. */
static int zstd_compress_page(struct comp_ctx *c, const void *src, size_t len, void *dst,
			      size_t cap, size_t *ret_len)
{
	ZSTD_CCtx *cc = c->u.zstd.cctx;
	const ZSTD_parameters *p = &c->u.zstd.params;
	const struct {
		ZSTD_cParameter key;
		int value;
	} set[] = {
		{ZSTD_c_windowLog, (int)p->cParams.windowLog},
		{ZSTD_c_hashLog, (int)p->cParams.hashLog},
		{ZSTD_c_chainLog, (int)p->cParams.chainLog},
		{ZSTD_c_searchLog, (int)p->cParams.searchLog},
		{ZSTD_c_minMatch, (int)p->cParams.minMatch},
		{ZSTD_c_targetLength, (int)p->cParams.targetLength},
		{ZSTD_c_strategy, (int)p->cParams.strategy},
		{ZSTD_c_contentSizeFlag, p->fParams.contentSizeFlag},
		{ZSTD_c_checksumFlag, p->fParams.checksumFlag},
		{ZSTD_c_dictIDFlag, !p->fParams.noDictIDFlag},
	};
	size_t n;

	/* With a dictionary: zstd_compress_using_cdict() (6.12-7.3). */
	if (c->u.zstd.cdict) {
		n = ZSTD_compress_usingCDict(cc, dst, cap, src, len, c->u.zstd.cdict);
		goto out;
	}
	if (ZSTD_isError(ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cc, len)))
		return -EIO;
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		if (ZSTD_isError(ZSTD_CCtx_setParameter(cc, set[i].key, set[i].value)))
			return -EIO;
	n = ZSTD_compress2(cc, dst, cap, src, len);
out:
	if (ZSTD_isError(n))
		return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ? -ENOBUFS : -EIO;
	*ret_len = n;
	return 0;
}

static int deflate_page(struct comp_ctx *c, const void *src, size_t len, void *dst, size_t cap,
			size_t *ret_len)
{
	z_stream *z = &c->u.zlib.def;
	int zr;

	if (deflateReset(z) != Z_OK)
		return -EIO;
	z->next_in = (Bytef *)(uintptr_t)src; /* zlib's API is not const-correct */
	z->avail_in = (uInt)len;
	z->next_out = dst;
	z->avail_out = (uInt)cap;
	zr = deflate(z, Z_FINISH);
	if (zr != Z_STREAM_END)
		return zr == Z_OK || zr == Z_BUF_ERROR ? -ENOBUFS : -EIO;
	*ret_len = z->total_out;
	return 0;
}

int comp_compress(struct comp_ctx *c, const void *src, size_t src_len, void *dst, size_t dst_cap,
		  size_t *ret_len)
{
	int n;

	if (src_len == 0 || src_len > COMP_PAGE_SIZE_MAX || dst_cap > INT32_MAX)
		return -EINVAL;
	switch (c->algo) {
	case COMP_LZO:
	case COMP_LZO_RLE:
		return comp_lzo_encode(src, src_len, dst, dst_cap, ret_len, c->u.lzo_dict,
				       c->algo == COMP_LZO_RLE);
	case COMP_LZ4:
		n = LZ4_compress_fast_extState(c->u.lz4_state, src, dst, (int)src_len, (int)dst_cap,
					       c->level);
		break;
	case COMP_LZ4HC:
		n = LZ4_compress_HC_extStateHC(c->u.lz4_state, src, dst, (int)src_len, (int)dst_cap,
					       c->level);
		break;
	case COMP_ZSTD:
		return zstd_compress_page(c, src, src_len, dst, dst_cap, ret_len);
	case COMP_DEFLATE:
		return deflate_page(c, src, src_len, dst, dst_cap, ret_len);
	default:
		return -EINVAL;
	}
	if (n <= 0)
		return -ENOBUFS; /* LZ4 returns 0 only when dst is too small */
	*ret_len = (size_t)n;
	return 0;
}

int comp_decompress(struct comp_ctx *c, const void *src, size_t src_len, void *dst, size_t dst_cap,
		    size_t *ret_len)
{
	size_t n;
	int zr, k;

	if (dst_cap > INT32_MAX || src_len > INT32_MAX)
		return -EINVAL;
	switch (c->algo) {
	case COMP_LZO:
	case COMP_LZO_RLE:
		return comp_lzo_decode(src, src_len, dst, dst_cap, ret_len);
	case COMP_LZ4:
	case COMP_LZ4HC:
		k = LZ4_decompress_safe(src, dst, (int)src_len, (int)dst_cap);
		if (k < 0)
			return -EIO;
		*ret_len = (size_t)k;
		return 0;
	case COMP_ZSTD:
		n = c->u.zstd.ddict ? ZSTD_decompress_usingDDict(c->u.zstd.dctx, dst, dst_cap, src,
								 src_len, c->u.zstd.ddict)
				    : ZSTD_decompressDCtx(c->u.zstd.dctx, dst, dst_cap, src, src_len);
		if (ZSTD_isError(n))
			return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ? -ENOBUFS
										   : -EIO;
		*ret_len = n;
		return 0;
	case COMP_DEFLATE: {
		z_stream *z = &c->u.zlib.inf;

		if (inflateReset(z) != Z_OK)
			return -EIO;
		z->next_in = (Bytef *)(uintptr_t)src;
		z->avail_in = (uInt)src_len;
		z->next_out = dst;
		z->avail_out = (uInt)dst_cap;
		zr = inflate(z, Z_FINISH);
		if (zr != Z_STREAM_END)
			return zr == Z_BUF_ERROR && z->avail_out == 0 ? -ENOBUFS : -EIO;
		*ret_len = z->total_out;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

bool comp_page_same_filled(const void *page, size_t page_size)
{
	unsigned long first, w;
	const unsigned char *p = page;

	/* Word-wise like page_same_filled(); memcpy keeps unaligned buffers legal. */
	memcpy(&first, p, sizeof(first));
	for (size_t off = sizeof(w); off < page_size; off += sizeof(w)) {
		memcpy(&w, p + off, sizeof(w));
		if (w != first)
			return false;
	}
	return true;
}
