/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_BLOCKSTATE_H
#define ZRAM_RECOMPD_BLOCKSTATE_H

/*
 * debugfs /sys/kernel/debug/zram/zramN/block_state (CONFIG_ZRAM_MEMORY_TRACKING).
 * One 40-byte line per allocated slot:
 *   6.2-6.19: "%12zd %12lld.%06lu %c%c%c%c%c%c\n"  (index, ac_time s.us, flags s w h i r n)
 *   7.0:      "%12zd %12u.%06d %c%c%c%c%c%c\n"     (u32 seconds, fraction always .000000)
 * A flag column holds its letter or '.'.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bs_counts {
	uint64_t allocated;	 /* lines */
	uint64_t same;		 /* 's' */
	uint64_t written_back;	 /* 'w' */
	uint64_t huge;		 /* 'h' */
	uint64_t idle;		 /* 'i' */
	uint64_t recompressed;	 /* 'r' */
	uint64_t incompressible; /* 'n' */
	/*
	 * Idle slots a recompress type=idle / huge_idle could still improve: 'i' without
	 * 'r', 'n', 's' or 'w' (and with 'h' for huge_idle). When these are 0, a pass of that
	 * type would only walk slots it cannot change (6.2-7.3: a recompressed slot's ac_time
	 * is 0, so it looks idle forever, and 6.2-6.14 decompress each before giving up).
	 */
	uint64_t idle_fresh;
	uint64_t huge_idle_fresh;
	/* slots a recompress type=huge could still improve: 'h' without 'r', 'n', 's', 'w' */
	uint64_t huge_fresh;
};

/*
 * One bit per slot index. nbits bits are allocated; a growable bitmap (bs_bitmap_init)
 * grows when a slot at or past nbits is set, up to limit bits, so that its size follows
 * the highest index block_state lists, not disksize (a 32 TiB disksize holding ten slots
 * needs one word, not 1 GiB). failed: a growth failed (-ENOMEM), bits are missing.
 */
struct bs_bitmap {
	uint64_t *words;
	uint64_t nbits;
	uint64_t limit;
	bool failed;
};

int bs_bitmap_alloc(struct bs_bitmap *b, uint64_t nbits); /* zeroed, fixed size; -ENOMEM */
/* Empty and growable up to limit bits (the slots the device has: disksize / page size). */
void bs_bitmap_init(struct bs_bitmap *b, uint64_t limit);
void bs_bitmap_free(struct bs_bitmap *b);
bool bs_bitmap_test(const struct bs_bitmap *b, uint64_t bit);
/* Number of bits set in now but not in before (bitmaps may differ in size). */
uint64_t bs_bitmap_count_new(const struct bs_bitmap *before, const struct bs_bitmap *now);
uint64_t bs_bitmap_count(const struct bs_bitmap *b);

/*
 * A set of slot indices, added in ascending order (block_state's order): LEB128-coded gaps
 * between consecutive indices while that is smaller than a bitmap of limit bits, else that
 * bitmap. A pass keeps the incompressible slots of its baseline in one, a few percent of the
 * slots at about a byte each, instead of a bitmap of every slot (128 KiB per 1 M slots), and
 * compares block_state at its end against it line by line (bs_parser_track_incomp()), so that
 * no second set is built. Never more than 1 bit per slot once settled, 2 while a list turns
 * into the bitmap. An index below the last one added (never from the kernel) turns the list
 * into the bitmap as well. failed: an allocation failed (-ENOMEM), indices are missing.
 */
struct bs_set {
	uint8_t *buf;	 /* the gap list, or the bitmap (bit i of byte i / 8) */
	size_t len, cap; /* list: bytes in use, bytes allocated */
	uint64_t limit;	 /* indices at or past it are not recorded (the device's slots) */
	uint64_t next;	 /* list: the last index added + 1 (0: empty) */
	uint64_t count;	 /* indices recorded */
	bool bitmap;
	bool failed;
};

/* Where bs_set_has() stopped: queries in ascending order walk the list once. */
struct bs_set_cursor {
	size_t pos;	/* list bytes decoded */
	uint64_t base;	/* the index a gap of 0 at pos would give */
	uint64_t cur;	/* the member decoded last (valid when have) */
	uint64_t query; /* the previous query */
	bool have;
};

void bs_set_init(struct bs_set *s, uint64_t limit); /* empty, nothing allocated */
void bs_set_free(struct bs_set *s);		     /* empty again, limit kept */
void bs_set_add(struct bs_set *s, uint64_t index);
bool bs_set_has(const struct bs_set *s, struct bs_set_cursor *c, uint64_t index);
/* Bytes allocated for it. */
size_t bs_set_bytes(const struct bs_set *s);

/*
 * Receives the index of every stored slot: one that holds a zsmalloc object, i.e. neither
 * same-filled ('s': no object) nor written back ('w': the object went to the backing device).
 * Called in file order, which is index order.
 */
typedef void bs_stored_fn(void *arg, uint64_t index);

/* Flag bits of a slot (bs_slot_fn): one per block_state column. */
enum {
	BS_SAME = 1u << 0,   /* 's' */
	BS_WB = 1u << 1,     /* 'w' */
	BS_HUGE = 1u << 2,   /* 'h' */
	BS_IDLE = 1u << 3,   /* 'i' */
	BS_RECOMP = 1u << 4, /* 'r' */
	BS_INCOMP = 1u << 5, /* 'n' */
};

/*
 * Receives every listed slot: its index, the whole seconds of its ac_time (CLOCK_BOOTTIME of
 * the last access; 0 after a slot free, i.e. after recompression or writeback; UINT64_MAX if
 * the field overflows 64 bits) and its BS_* flags. Called in index order.
 */
typedef void bs_slot_fn(void *arg, uint64_t index, uint64_t ac_sec, unsigned flags);

/*
 * Streaming parser: feed arbitrary chunks (lines may straddle chunk boundaries).
 * incomp/recomp, when non-NULL, get the bit of every 'n' / 'r' slot set (slots past
 * nbits, or past limit for a growable bitmap, are counted but not recorded).
 */
struct bs_parser {
	struct bs_counts counts;
	struct bs_bitmap *incomp;
	struct bs_bitmap *recomp;
	bs_stored_fn *stored; /* bs_parser_on_stored(); NULL = none */
	void *stored_arg;
	bs_slot_fn *slot; /* bs_parser_on_slot(); NULL = none */
	void *slot_arg;
	struct bs_set *incomp_set;	 /* bs_parser_track_incomp() */
	const struct bs_set *incomp_ref; /* the baseline to compare with */
	struct bs_set_cursor ref_cur;
	uint64_t incomp_new; /* 'n' slots not in incomp_ref */
	char partial[64];
	size_t partial_len;
	uint64_t line; /* lines seen, for error reports */
	int error;     /* first error (-EINVAL malformed line), sticky */
};

void bs_parser_init(struct bs_parser *p, struct bs_bitmap *incomp, struct bs_bitmap *recomp);
/* Have fn called for every stored slot from now on (after bs_parser_init()). */
void bs_parser_on_stored(struct bs_parser *p, bs_stored_fn *fn, void *arg);
/* Have fn called for every slot, with its ac_time and flags (after bs_parser_init()). */
void bs_parser_on_slot(struct bs_parser *p, bs_slot_fn *fn, void *arg);
/*
 * From now on (after bs_parser_init()): record every 'n' slot in record (emptied first), and
 * count in p->incomp_new the 'n' slots that are not in before. Either may be NULL.
 */
void bs_parser_track_incomp(struct bs_parser *p, struct bs_set *record,
			    const struct bs_set *before);
/* Returns 0 or -EINVAL (malformed line; the parser stops counting). */
int bs_parser_feed(struct bs_parser *p, const char *buf, size_t len);
/* End of input: a trailing partial line is an error. */
int bs_parser_finish(struct bs_parser *p);

/* Convenience: parse a whole buffer. */
int blockstate_parse(const char *buf, size_t len, struct bs_counts *ret, struct bs_bitmap *incomp,
		     struct bs_bitmap *recomp);

/*
 * Read zramN's block_state through the sysfs layer (root_fd-relative
 * sys/kernel/debug/zram/zramN/block_state) with large reads and parse it.
 * -ENOENT: no debugfs/block_state; -EACCES etc. as the open/read fails; -EINVAL malformed.
 */
int blockstate_read(int root_fd, unsigned id, struct bs_counts *ret, struct bs_bitmap *incomp,
		    struct bs_bitmap *recomp);

/*
 * blockstate_read() that records the 'n' slots in record and counts in *new_incomp (may be
 * NULL) those not in before, as bs_parser_track_incomp(). A record whose allocation failed
 * has failed set; the read itself still succeeds.
 */
int blockstate_read_incomp(int root_fd, unsigned id, struct bs_counts *ret, struct bs_set *record,
			   const struct bs_set *before, uint64_t *new_incomp);

/*
 * blockstate_read_incomp() without a baseline to compare with, and fn called for every slot
 * as blockstate_read_slots(): a pass's baseline that also gives the access times.
 */
int blockstate_read_incomp_slots(int root_fd, unsigned id, struct bs_counts *ret,
				 struct bs_set *record, bs_slot_fn *fn, void *arg);

/*
 * blockstate_read() for the slots that hold data (advise samples them): fn gets every stored
 * slot's index; ret (may be NULL) the counts. Errors as blockstate_read(); fn may have been
 * called for the lines before a malformed one.
 */
int blockstate_read_stored(int root_fd, unsigned id, bs_stored_fn *fn, void *arg,
			   struct bs_counts *ret);

/*
 * blockstate_read() with fn called for every slot (index, ac_time seconds, flags): the
 * writeback of idle and huge_idle pages selects by age from it. Errors as blockstate_read().
 */
int blockstate_read_slots(int root_fd, unsigned id, bs_slot_fn *fn, void *arg,
			  struct bs_counts *ret);

#endif
