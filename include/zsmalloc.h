/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_ZSMALLOC_H
#define ZRAM_RECOMPD_ZSMALLOC_H

/*
 * A model of the kernel's zsmalloc size classes for a PAGE_SIZE of 4 to 64 KiB (facts from
 * mm/zsmalloc.c of 6.12; unchanged in this respect from 6.3, when CONFIG_ZSMALLOC_CHAIN_SIZE
 * appeared, to 7.3). Used by `advise` to turn compressed object sizes into pool memory.
 *
 * Facts mirrored (figures for 4 KiB pages; every size follows PAGE_SIZE):
 *  - classes are 32 + i * delta bytes (ZS_MIN_ALLOC_SIZE 32 on 64-bit, delta =
 *    ZS_SIZE_CLASS_DELTA = PAGE_SIZE >> CLASS_BITS(8): 16 at 4 KiB, 64 at 16 KiB),
 *    i = 0 .. DIV_ROUND_UP(PAGE_SIZE - 32, delta) (255 classes at 4 KiB, 257 at 16 and
 *    64 KiB), the last one capped at PAGE_SIZE;
 *  - each class gets the zspage chain length 1..CONFIG_ZSMALLOC_CHAIN_SIZE (default 8) that
 *    wastes the least tail space (power-of-two sizes always 1);
 *  - adjacent classes with equal pages-per-zspage and objects-per-zspage are merged into
 *    the larger one (zs_create_pool walks from the top), so a lookup yields the index of
 *    the biggest class of the group;
 *  - zs_malloc() looks up size + ZS_HANDLE_SIZE (8): every non-huge object carries its
 *    handle in front of the payload (OBJ_ALLOCATED_TAG is stored in that word);
 *  - huge_class_size = (largest class that is not "one object per one page") - 7; an
 *    object of that size or more ends in the PAGE_SIZE class. With chain size 8 that is
 *    3632 - 7 = 3625 at 4 KiB (6.12.118 in qemu: recompress threshold=3625 is EINVAL, 3624
 *    is not), 14560 - 7 = 14553 at 16 KiB, 58144 - 7 = 58137 at 64 KiB (by the same formulas;
 *    not measured on a kernel).
 *  - mem_used_total is pages_allocated * PAGE_SIZE; after a full compaction every class
 *    holds ceil(objects / objs_per_zspage) zspages. On 6.12.118 this matched mem_used_total
 *    to the byte for 8104 corpus pages under six primaries and after recompression plus
 *    compaction.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZS_PAGE_SIZE_MIN 4096u
#define ZS_PAGE_SIZE_MAX 65536u
#define ZS_MIN_ALLOC_SIZE 32u	 /* MAX(32, chain << PAGE_SHIFT >> OBJ_INDEX_BITS(24 on x86-64)) */
#define ZS_CLASS_BITS 8u	 /* ZS_SIZE_CLASS_DELTA = PAGE_SIZE >> CLASS_BITS */
#define ZS_NR_CLASSES 257u	 /* the most: DIV_ROUND_UP(PAGE_SIZE - 32, delta) + 1 */
#define ZS_HANDLE_SIZE 8u	 /* sizeof(unsigned long) on 64-bit */
#define ZS_CHAIN_SIZE_DEFAULT 8u /* CONFIG_ZSMALLOC_CHAIN_SIZE default (range 4..16) */
#define ZS_CHAIN_SIZE_MIN 4u
#define ZS_CHAIN_SIZE_MAX 16u

struct zs_class {
	unsigned index;		   /* index of the (merged) class, 0..254 */
	unsigned size;		   /* chunk size in bytes, handle included */
	unsigned pages_per_zspage; /* 1..chain size */
	unsigned objs_per_zspage;
};

struct zs_model {
	unsigned page_size;
	unsigned chain_size;
	unsigned delta;			    /* ZS_SIZE_CLASS_DELTA */
	unsigned nclasses;		    /* ZS_SIZE_CLASSES of this page size */
	unsigned huge_class_size;	    /* compressed sizes >= this are stored as a page */
	unsigned nmerged;		    /* distinct classes after merging (119 for chain 8) */
	uint16_t map[ZS_NR_CLASSES];	    /* raw class index -> merged class index */
	struct zs_class cls[ZS_NR_CLASSES]; /* valid at merged indexes only */
};

/* Build the model for a chain size (4..16) and page size (a power of two, 4..64 KiB);
 * -EINVAL otherwise. */
int zs_model_init(struct zs_model *m, unsigned chain_size, unsigned page_size);

/* The 6.12 default (chain size 8) for page_size, built on first use; NULL for a page size
 * zs_model_init() refuses. */
const struct zs_model *zs_model_default(unsigned page_size);

/*
 * Class of a stored object of obj_size bytes (the zram object size, without the handle;
 * 0 is treated like 1, sizes above the page clamp to the last class like the kernel's
 * lookup).
 */
const struct zs_class *zs_class_of(const struct zs_model *m, size_t obj_size);

/* Default-model shorthand: huge_class_size for page_size (0 for an invalid page size). */
size_t zs_huge_class_size(unsigned page_size);

/*
 * Objects per class, indexed by merged class index. Counts are doubles so that sampled
 * figures can be scaled before the per-class rounding.
 */
struct zs_hist {
	double objs[ZS_NR_CLASSES];
};

void zs_hist_clear(struct zs_hist *h);
void zs_hist_add(const struct zs_model *m, struct zs_hist *h, size_t obj_size, double n);

/*
 * Pool memory after compaction: for each class ceil(objects / objs_per_zspage) zspages of
 * pages_per_zspage pages. Fractional counts (after scaling) are rounded to the nearest
 * object first.
 */
uint64_t zs_pool_bytes(const struct zs_model *m, const struct zs_hist *h);

#endif
