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
