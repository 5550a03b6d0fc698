/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_COMPRESS_H
#define ZRAM_RECOMPD_COMPRESS_H

/*
 * User-space mirrors of zram's compression backends (6.12+, drivers/block/zram/backend_*.c),
 * with the kernel's names and default parameters, for predicting object sizes:
 *
 *   lzo      LZO1X-1, own encoder of the kernel's variant (13-bit hash table, see compress.c)
 *   lzo-rle  the same with the kernel's zero-run extension (bitstream version 1)
 *   lz4      LZ4_compress_fast, level = acceleration, default 1 (LZ4_ACCELERATION_DEFAULT)
 *   lz4hc    LZ4_compress_HC, default level 9 (LZ4HC_DEFAULT_CLEVEL)
 *   zstd     one frame, parameters of ZSTD_getParams(level, PAGE_SIZE, 0) (content size written,
 *            no checksum), default level ZSTD_defaultCLevel() = 3
 *   deflate  raw deflate, window bits -11, memLevel 8 (the kernel's MAX_MEM_LEVEL), level
 *            Z_DEFAULT_COMPRESSION (= 6)
 *
 * A context compresses pages of one page size, the kernel's PAGE_SIZE (4 to 64 KiB; lzo and
 * lzo-rle up to 16 KiB, see compress.c). The kernel compresses into a 2 * PAGE_SIZE buffer,
 * so compression never fails for lack of room; COMP_DST_SIZE() mirrors that. 842 is not
 * modelled. No logging; -errno returns.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COMP_PAGE_SIZE_MIN 4096u
#define COMP_PAGE_SIZE_MAX 65536u
#define COMP_DST_SIZE(page_size) (2u * (page_size)) /* zcomp_strm: vzalloc(2 * PAGE_SIZE) */
#define COMP_LEVEL_DEFAULT INT_MIN	    /* like the kernel's ZCOMP_PARAM_NO_LEVEL */
#define COMP_NAME_MAX 16

enum comp_algo {
	COMP_LZO,
	COMP_LZO_RLE,
	COMP_LZ4,
	COMP_LZ4HC,
	COMP_ZSTD,
	COMP_DEFLATE,
	COMP_NR_ALGOS,
};

/* Kernel name ("lzo-rle"); NULL for an invalid value. */
const char *comp_algo_name(enum comp_algo a);
/* By kernel name; -ENOENT when unknown (842 included: not modelled). */
int comp_algo_from_name(const char *name, enum comp_algo *ret);
/* Whether algorithm_params level= means anything for it (the lzo backends ignore it). */
bool comp_algo_has_level(enum comp_algo a);
/* The level the kernel uses when none is set (0 for the lzo backends). */
int comp_default_level(enum comp_algo a);
/*
 * Level the backend effectively runs with: COMP_LEVEL_DEFAULT resolves to the default,
 * deflate -1 to 6, zstd 0 to 3, lz4 <= 0 to 1, lz4hc < 1 to 9 and > 12 to 12 (what the
 * libraries do with those values).
 */
int comp_effective_level(enum comp_algo a, int level);
/* -EINVAL when the kernel would refuse the level at disksize time (or it has no levels). */
int comp_level_check(enum comp_algo a, int level);

/*
 * "name" or "name:level", e.g. "zstd:9". -ENOENT unknown name, -EINVAL bad level syntax or
 * range, or a level on an algorithm without levels. ret_level is COMP_LEVEL_DEFAULT without
 * ":level".
 */
int comp_parse_spec(const char *spec, enum comp_algo *ret_algo, int *ret_level);
/* "zstd" or "zstd:9" (the level only when it differs from the default). */
int comp_format_spec(enum comp_algo a, int level, char *buf, size_t size);

/* One compressor instance with its work memory (like one zcomp stream). */
struct comp_ctx;

/*
 * A context for pages of page_size bytes (a power of two, COMP_PAGE_SIZE_MIN to _MAX):
 * -EINVAL for another size, -EOPNOTSUPP for lzo/lzo-rle above 16 KiB.
 */
int comp_ctx_new(enum comp_algo a, int level, size_t page_size, struct comp_ctx **ret);
void comp_ctx_free(struct comp_ctx *c);
enum comp_algo comp_ctx_algo(const struct comp_ctx *c);
int comp_ctx_level(const struct comp_ctx *c); /* effective level */
/*
 * A zstd dictionary for a zstd context, as 6.12+ algorithm_params dict= gives the backend:
 * compression with ZSTD_compress_usingCDict() on a CDict of ZSTD_getCParams(level,
 * page size, dictionary size), decompression with the DDict. Both refer to dict, which
 * must outlive the context. -EINVAL another algorithm, a dictionary already set, or one
 * libzstd refuses (or no memory for it).
 */
int comp_ctx_set_dict(struct comp_ctx *c, const void *dict, size_t size);

/*
 * Compress src (1..65536 bytes, lzo 1..16384; zram always passes one page) into dst. dst_cap
 * must be at least COMP_DST_SIZE(page size) for a page. Returns 0 and the compressed length, -ENOBUFS or -EIO.
 */
int comp_compress(struct comp_ctx *c, const void *src, size_t src_len, void *dst, size_t dst_cap,
		  size_t *ret_len);

/*
 * Decompress into dst (dst_cap bytes); *ret_len is the decompressed length. -EIO on a
 * corrupt stream, -ENOBUFS when the output does not fit.
 */
int comp_decompress(struct comp_ctx *c, const void *src, size_t src_len, void *dst, size_t dst_cap,
		    size_t *ret_len);

/*
 * zram's same-filled test: every machine word (unsigned long) of the page (page_size bytes)
 * equals the first. Such pages are stored without memory and counted in same_pages.
 */
bool comp_page_same_filled(const void *page, size_t page_size);

/* The kernel-variant LZO1X-1 encoder and the LZO decoder used above, exposed for tests. */
#define COMP_LZO_DICT_SIZE (1u << 13)
int comp_lzo_encode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *ret_len,
		    uint16_t *dict, bool rle);
int comp_lzo_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
		    size_t *ret_len);

#endif
