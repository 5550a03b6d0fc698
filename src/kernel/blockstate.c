// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debugfs block_state parser.
 *
 * The kernel prints one line per allocated slot (6.2-6.19 "%12zd %12lld.%06lu %c%c%c%c%c%c\n",
 * 7.0 "%12zd %12u.%06d ..."), so until the index or the seconds outgrow 12 digits every line
 * is exactly 40 bytes:
 *
 *   0         1         2         3
 *   0123456789012345678901234567890123456789
 *   "     1048575       86400.123456 s.hirn\n"
 *    index       ' '  seconds  '.' usec ' ' flags '\n'
 *
 * A device of 32 GiB has 8 million slots (320 MB of text), and the daemon reads the file on
 * every pass, so the common case is checked with word-at-a-time (SWAR) tests at fixed offsets:
 * no per-byte branches, ~20 ALU operations per line. Anything that does not match exactly
 * (a wider field once the kernel's %12 widths overflow, or garbage) goes through the general
 * per-byte parser, which decides between "valid but unusual" and -EINVAL.
 */
#include "blockstate.h"

#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BS_LINE 40 /* bytes per line while both numbers fit in 12 columns */

/*
 * Read size for blockstate_read(): the kernel stops a read at the first line that does not
 * fit, and a buffer of 40 bytes or less reads as EOF, so read big; but the buffer is resident
 * while the daemon reads (a pass reads up to five times). 64 KiB = 1638 lines a read; the
 * reads cost the kernel per line, not per call (1 M slots: 1,600 reads of 64 KiB instead of
 * 400 of 256 KiB; measured in docs/performance.md section 10).
 */
#define BS_READ_SIZE (64u * 1024u)

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define LOW7 0x7f7f7f7f7f7f7f7fULL
#define SPACES (0x20 * ONES)
#define DIGIT_PAD 0x3030303000000000ULL /* '0000' in bytes 4..7 of a little-endian word */

/* Flag columns in order; bit k of a flag mask stands for letter k. */
static const char flag_letters[6] = {'s', 'w', 'h', 'i', 'r', 'n'};
enum { FL_SAME, FL_WB, FL_HUGE, FL_IDLE, FL_RECOMP, FL_INCOMP };

/* Word at offsets 32..39 with every flag set, and with none (little-endian byte order). */
#define FLAGS_SET 0x0a6e726968777320ULL /* " swhirn\n" */
#define FLAGS_DOT 0x0a2e2e2e2e2e2e20ULL /* " ......\n" */
/* High bit of each flag column's byte in that word: bytes 1..6. */
#define FLAG_COLUMNS 0x0080808080808000ULL
/* The high bit of flag column k (0 s, 1 w, 2 h, 3 i, 4 r, 5 n) in that word. */
#define COL(k) (0x80ULL << (8 * ((k) + 1)))
#define FRESH_MASK (COL(0) | COL(1) | COL(3) | COL(4) | COL(5))
/* huge_fresh: 'h' without s, w, r or n, idle or not */
#define HUGE_FRESH_MASK (COL(0) | COL(1) | COL(2) | COL(4) | COL(5))

static inline uint64_t load_le64(const char *s)
{
	uint64_t v;

	memcpy(&v, s, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint64_t load_le32(const char *s)
{
	uint32_t v;

	memcpy(&v, s, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

/* High bit of every byte of v that is zero; exact (no carry between bytes). */
static inline uint64_t zero_bytes(uint64_t v)
{
	return ~(((v & LOW7) + LOW7) | v) & HIGHS;
}

/* High bit of every byte of v that is not an ASCII digit. */
static inline uint64_t nondigit_bytes(uint64_t v)
{
	uint64_t d = v ^ (0x30 * ONES); /* digits become 0..9 */

	/* (d & 0x7f) + 0x76 reaches 0x80 exactly for d >= 10 and cannot carry out of the byte;
	 * d's own high bit catches bytes >= 0x80. */
	return (((d & LOW7) + (0x76 * ONES)) | d) & HIGHS;
}

/*
 * A 12-column right-aligned decimal field: 0..11 spaces, then at least one digit, nothing
 * else. lo = columns 0..7, hi = columns 8..11 in the low half with '0' padding above (the
 * padding can never be taken for the first digit: that case is rejected by k < 32).
 */
static inline bool field12_ok(uint64_t lo, uint64_t hi)
{
	uint64_t nonspace = ~zero_bytes(lo ^ SPACES) & HIGHS;
	unsigned k;

	if (nonspace) {
		/* Bit offset of the first non-space byte; all bytes from there must be digits. */
		k = (unsigned)__builtin_ctzll(nonspace) - 7;
		return !(nondigit_bytes(lo) >> k) && !nondigit_bytes(hi);
	}
	nonspace = ~zero_bytes(hi ^ SPACES) & HIGHS; /* never 0: the padding is '0' */
	k = (unsigned)__builtin_ctzll(nonspace) - 7;
	return k < 32 && !(nondigit_bytes(hi) >> k);
}

/*
 * Fast path for one 40-byte line at s (s[0..39] readable). Returns the zero-byte mask of
 * the flag word against FLAGS_SET (high bit of byte 1..6 = flag column set, bytes 0 and 7
 * always set), or 0 when the line does not have the exact 40-byte shape.
 */
static inline uint64_t fast_line(const char *s)
{
	uint64_t fw = load_le64(s + 32);
	uint64_t set = zero_bytes(fw ^ FLAGS_SET);
	uint64_t us;

	/* Every byte must match either pattern; that also checks s[32] == ' ', s[39] == '\n'. */
	if ((set | zero_bytes(fw ^ FLAGS_DOT)) != HIGHS)
		return 0;
	/* Columns 24..31: last seconds digit, '.', six microsecond digits. */
	us = load_le64(s + 24);
	if ((nondigit_bytes(us) & ~0x8000ULL) || ((us >> 8) & 0xff) != '.')
		return 0;
	if (s[12] != ' ')
		return 0;
	if (!field12_ok(load_le64(s), load_le32(s + 8) | DIGIT_PAD))
		return 0;
	if (!field12_ok(load_le64(s + 13), load_le32(s + 21) | DIGIT_PAD))
		return 0;
	return set;
}

/* Index of a line that passed fast_line(): leading spaces have (c & 0xf) == 0. */
static inline uint64_t fast_index(const char *s)
{
	uint64_t v = 0;

	for (int i = 0; i < 12; i++)
		v = v * 10 + ((unsigned char)s[i] & 0x0f);
	return v;
}

/* fast_line() mask → flag mask (bit FL_*). */
static inline unsigned fast_flags(uint64_t set)
{
	uint64_t m = (set & FLAG_COLUMNS) >> 15; /* column k's bit now at 8k */
	unsigned f = 0;

	for (int k = 0; k < 6; k++)
		f |= (unsigned)((m >> (8 * k)) & 1) << k;
	return f;
}

/* Room for bit in a growable bitmap: at least doubled, whole words, never past limit. */
static bool bitmap_grow(struct bs_bitmap *b, uint64_t bit)
{
	uint64_t want = bit + 1, old_words = b->nbits / 64 + (b->nbits % 64 != 0), n;
	uint64_t *w;

	if (bit >= b->limit || b->failed)
		return false;
	if (want < 2 * b->nbits)
		want = 2 * b->nbits;
	want = (want + 63) / 64 * 64;
	if (want > b->limit)
		want = b->limit;
	n = want / 64 + (want % 64 != 0);
	if (n > SIZE_MAX / sizeof(uint64_t) ||
	    !(w = realloc(b->words, (size_t)n * sizeof(uint64_t)))) {
		b->failed = true;
		return false;
	}
	memset(w + old_words, 0, (size_t)(n - old_words) * sizeof(uint64_t));
	b->words = w;
	b->nbits = want;
	return true;
}

static inline void bitmap_set(struct bs_bitmap *b, uint64_t bit)
{
	if (!b)
		return;
	if (bit >= b->nbits && !bitmap_grow(b, bit))
		return;
	b->words[bit / 64] |= 1ULL << (bit % 64);
}

static inline void track_incomp(struct bs_parser *p, uint64_t index)
{
	if (p->incomp_set)
		bs_set_add(p->incomp_set, index);
	if (p->incomp_ref && !bs_set_has(p->incomp_ref, &p->ref_cur, index))
		p->incomp_new++;
}

static void account(struct bs_parser *p, uint64_t index, uint64_t secs, unsigned flags)
{
	struct bs_counts *c = &p->counts;

	c->allocated++;
	c->same += (flags >> FL_SAME) & 1;
	c->written_back += (flags >> FL_WB) & 1;
	c->huge += (flags >> FL_HUGE) & 1;
	c->idle += (flags >> FL_IDLE) & 1;
	c->recompressed += (flags >> FL_RECOMP) & 1;
	c->incompressible += (flags >> FL_INCOMP) & 1;
	if ((flags & ((1u << FL_SAME) | (1u << FL_WB) | (1u << FL_IDLE) | (1u << FL_RECOMP) |
		      (1u << FL_INCOMP))) == (1u << FL_IDLE)) {
		c->idle_fresh++;
		c->huge_idle_fresh += (flags >> FL_HUGE) & 1;
	}
	if ((flags & ((1u << FL_SAME) | (1u << FL_WB) | (1u << FL_HUGE) | (1u << FL_RECOMP) |
		      (1u << FL_INCOMP))) == (1u << FL_HUGE))
		c->huge_fresh++;
	if (flags & (1u << FL_INCOMP))
		bitmap_set(p->incomp, index);
	if (flags & (1u << FL_RECOMP))
		bitmap_set(p->recomp, index);
	if (flags & (1u << FL_INCOMP))
		track_incomp(p, index);
	if (p->stored && !(flags & ((1u << FL_SAME) | (1u << FL_WB))))
		p->stored(p->stored_arg, index);
	if (p->slot)
		p->slot(p->slot_arg, index, secs, flags);
}

/* Words needed for nbits bits (nbits is bounded by what bs_bitmap_alloc() accepted). */
static inline size_t nwords(uint64_t nbits)
{
	return (size_t)(nbits / 64 + (nbits % 64 != 0));
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Right-aligned decimal field printed with "%12": 12 columns, or exactly as many digits when
 * the value needs more. Returns the index just past it, or 0 when malformed. *ret gets the
 * value when it fits in 64 bits (*overflow set otherwise).
 */
static size_t field(const char *s, size_t i, size_t len, uint64_t *ret, bool *overflow)
{
	size_t start = i, digits;
	uint64_t v = 0;

	*overflow = false;
	while (i < len && s[i] == ' ')
		i++;
	for (digits = 0; i < len && is_digit(s[i]); i++, digits++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			*overflow = true;
	}
	if (!digits || i - start != (digits > 12 ? digits : 12))
		return 0;
	*ret = v;
	return i;
}

/*
 * General parser for one line of len bytes (without its '\n'): the exact kernel format, but
 * with the index and seconds fields allowed to be wider than 12 columns (%12 is a minimum;
 * 13+ digit values widen the line).
 */
static int slow_line(struct bs_parser *p, const char *s, size_t len)
{
	uint64_t index, secs;
	unsigned flags = 0;
	bool overflow;
	size_t i;

	i = field(s, 0, len, &index, &overflow);
	if (!i || overflow || i >= len || s[i] != ' ')
		return -EINVAL;
	/* Seconds: only the slot callback uses them (an s64 always fits; saturate anyway). */
	i = field(s, i + 1, len, &secs, &overflow);
	if (!i || i >= len || s[i] != '.')
		return -EINVAL;
	if (overflow)
		secs = UINT64_MAX;
	i++;
	/* %06: always exactly six fraction digits (7.0: always "000000"). */
	if (len - i != 6 + 1 + 6)
		return -EINVAL;
	for (int k = 0; k < 6; k++, i++)
		if (!is_digit(s[i]))
			return -EINVAL;
	if (s[i++] != ' ')
		return -EINVAL;
	for (int k = 0; k < 6; k++, i++) {
		if (s[i] == flag_letters[k])
			flags |= 1u << k;
		else if (s[i] != '.')
			return -EINVAL;
	}
	account(p, index, secs, flags);
	return 0;
}

/* One complete line including its '\n' (len >= 1). */
static int one_line(struct bs_parser *p, const char *s, size_t len)
{
	uint64_t set;

	p->line++;
	if (len == BS_LINE && (set = fast_line(s))) {
		/* the seconds field (columns 13..24) has the index field's shape */
		account(p,
			(p->incomp || p->recomp || p->stored || p->slot || p->incomp_set ||
			 p->incomp_ref)
				? fast_index(s)
				: 0,
			p->slot ? fast_index(s + 13) : 0, fast_flags(set));
		return 0;
	}
	return slow_line(p, s, len - 1);
}

static void flush_lanes(struct bs_counts *c, uint64_t lanes)
{
	c->same += (lanes >> 8) & 0xff;
	c->written_back += (lanes >> 16) & 0xff;
	c->huge += (lanes >> 24) & 0xff;
	c->idle += (lanes >> 32) & 0xff;
	c->recompressed += (lanes >> 40) & 0xff;
	c->incompressible += (lanes >> 48) & 0xff;
}

/*
 * The hot loop: consume consecutive exact 40-byte lines from s and return how many bytes
 * were consumed; stops at the first line that needs the general parser. Counters live in
 * locals (buf is char *, so stores through p would otherwise be reloaded every line) and
 * the six flag counts are summed in byte lanes of one word, flushed every 255 lines.
 * With a stored-slot callback every line goes through one_line() instead: the callback is
 * advise's, which reads a few thousand pages afterwards, and the daemon's loop stays free
 * of it.
 */
static size_t fast_run(struct bs_parser *p, const char *s, size_t len)
{
	struct bs_bitmap *incomp = p->incomp, *recomp = p->recomp;
	/* Only parse the index when a bitmap wants it. */
	bool track = p->incomp_set || p->incomp_ref;
	uint64_t want = (incomp || track ? 0x80ULL << 48 : 0) | (recomp ? 0x80ULL << 40 : 0);
	const char *start = s, *end = s + len;
	uint64_t lanes = 0, lines = 0, fresh = 0, huge_idle_fresh = 0, huge_fresh = 0;
	unsigned in_lanes = 0;

	if (p->stored || p->slot)
		return 0;
	while (end - s >= BS_LINE) {
		uint64_t set = fast_line(s);

		if (!set)
			break;
		lanes += (set & FLAG_COLUMNS) >> 7;
		if ((set & FRESH_MASK) == COL(3)) {
			fresh++;
			huge_idle_fresh += (set >> (8 * 3 + 7)) & 1; /* column 2: h */
		}
		huge_fresh += (set & HUGE_FRESH_MASK) == COL(2);
		if (set & want) {
			uint64_t index = fast_index(s);

			if (set & (0x80ULL << 48)) {
				bitmap_set(incomp, index);
				if (track)
					track_incomp(p, index);
			}
			if (set & (0x80ULL << 40))
				bitmap_set(recomp, index);
		}
		s += BS_LINE;
		lines++;
		if (++in_lanes == 255) {
			flush_lanes(&p->counts, lanes);
			lanes = 0;
			in_lanes = 0;
		}
	}
	flush_lanes(&p->counts, lanes);
	p->counts.idle_fresh += fresh;
	p->counts.huge_idle_fresh += huge_idle_fresh;
	p->counts.huge_fresh += huge_fresh;
	p->counts.allocated += lines;
	p->line += lines;
	return (size_t)(s - start);
}

static int fail(struct bs_parser *p, int r)
{
	p->error = r;
	return r;
}

void bs_parser_init(struct bs_parser *p, struct bs_bitmap *incomp, struct bs_bitmap *recomp)
{
	memset(p, 0, sizeof(*p));
	p->incomp = incomp;
	p->recomp = recomp;
	/* Bitmaps describe this file only: a caller reusing them across reads must not see
	 * stale bits of slots that were freed or rewritten since. */
	if (incomp && incomp->words)
		memset(incomp->words, 0, nwords(incomp->nbits) * sizeof(uint64_t));
	if (recomp && recomp->words)
		memset(recomp->words, 0, nwords(recomp->nbits) * sizeof(uint64_t));
}

void bs_parser_track_incomp(struct bs_parser *p, struct bs_set *record,
			    const struct bs_set *before)
{
	if (record)
		bs_set_free(record);
	p->incomp_set = record;
	p->incomp_ref = before;
	memset(&p->ref_cur, 0, sizeof(p->ref_cur));
	p->incomp_new = 0;
}

void bs_parser_on_stored(struct bs_parser *p, bs_stored_fn *fn, void *arg)
{
	p->stored = fn;
	p->stored_arg = arg;
}

void bs_parser_on_slot(struct bs_parser *p, bs_slot_fn *fn, void *arg)
{
	p->slot = fn;
	p->slot_arg = arg;
}

int bs_parser_feed(struct bs_parser *p, const char *buf, size_t len)
{
	const char *nl;
	int r;

	if (p->error)
		return p->error;

	/* Complete a line left over from the previous chunk. */
	if (p->partial_len) {
		size_t room = sizeof(p->partial) - p->partial_len;
		size_t n = len < room ? len : room;

		nl = memchr(buf, '\n', n);
		if (!nl) {
			if (len >= room) {
				p->line++;
				return fail(p,
					    -EINVAL); /* longer than any line the kernel prints */
			}
			memcpy(p->partial + p->partial_len, buf, len);
			p->partial_len += len;
			return 0;
		}
		n = (size_t)(nl - buf) + 1;
		memcpy(p->partial + p->partial_len, buf, n);
		r = one_line(p, p->partial, p->partial_len + n);
		p->partial_len = 0;
		if (r < 0)
			return fail(p, r);
		buf += n;
		len -= n;
	}

	while (len) {
		size_t n = fast_run(p, buf, len), max;

		buf += n;
		len -= n;
		if (!len)
			break;
		/* An unusual line (or the start of one): find its end within the longest
		 * possible line. */
		max = len < sizeof(p->partial) ? len : sizeof(p->partial);
		nl = memchr(buf, '\n', max);
		if (!nl) {
			if (len >= sizeof(p->partial)) {
				p->line++;
				return fail(p, -EINVAL);
			}
			memcpy(p->partial, buf, len);
			p->partial_len = len;
			return 0;
		}
		n = (size_t)(nl - buf) + 1;
		r = one_line(p, buf, n);
		if (r < 0)
			return fail(p, r);
		buf += n;
		len -= n;
	}
	return 0;
}

int bs_parser_finish(struct bs_parser *p)
{
	if (p->error)
		return p->error;
	if (p->partial_len) {
		/* The kernel never ends a read inside a line: this file was cut short. */
		p->line++;
		return fail(p, -EINVAL);
	}
	return 0;
}

int blockstate_parse(const char *buf, size_t len, struct bs_counts *ret, struct bs_bitmap *incomp,
		     struct bs_bitmap *recomp)
{
	struct bs_parser p;
	int r;

	bs_parser_init(&p, incomp, recomp);
	r = bs_parser_feed(&p, buf, len);
	if (r == 0)
		r = bs_parser_finish(&p);
	if (r < 0)
		return r;
	if (ret)
		*ret = p.counts;
	return 0;
}

/* Read zramN's block_state into p, set up by the caller. */
static int read_into(int root_fd, unsigned id, struct bs_parser *p)
{
	char path[64];
	char *buf;
	int fd, r;

	r = str_printf(path, sizeof(path), "sys/kernel/debug/zram/zram%u/block_state", id);
	if (r < 0)
		return r;
	r = sysfs_open_read(root_fd, path, &fd);
	if (r < 0)
		return r;
	buf = malloc(BS_READ_SIZE);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf, BS_READ_SIZE);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* An uninitialized device fails the read with EINVAL (not a parse
			 * error): pass the read's errno through unchanged. */
			r = -errno;
			break;
		}
		if (n == 0) {
			r = bs_parser_finish(p);
			break;
		}
		r = bs_parser_feed(p, buf, (size_t)n);
		if (r < 0)
			break;
	}
	free(buf);
	close(fd);
	return r;
}

/* The read every blockstate_read*() shares once its parser is set up: the counts to ret. */
static int read_counts(int root_fd, unsigned id, struct bs_parser *p, struct bs_counts *ret)
{
	int r = read_into(root_fd, id, p);

	if (r < 0)
		return r;
	if (ret)
		*ret = p->counts;
	return 0;
}

int blockstate_read(int root_fd, unsigned id, struct bs_counts *ret, struct bs_bitmap *incomp,
		    struct bs_bitmap *recomp)
{
	struct bs_parser p;

	bs_parser_init(&p, incomp, recomp);
	return read_counts(root_fd, id, &p, ret);
}

int blockstate_read_incomp(int root_fd, unsigned id, struct bs_counts *ret, struct bs_set *record,
			   const struct bs_set *before, uint64_t *new_incomp)
{
	struct bs_parser p;
	int r;

	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, record, before);
	r = read_counts(root_fd, id, &p, ret);
	if (r == 0 && new_incomp)
		*new_incomp = p.incomp_new;
	return r;
}

int blockstate_read_incomp_slots(int root_fd, unsigned id, struct bs_counts *ret,
				 struct bs_set *record, bs_slot_fn *fn, void *arg)
{
	struct bs_parser p;

	bs_parser_init(&p, NULL, NULL);
	bs_parser_track_incomp(&p, record, NULL);
	bs_parser_on_slot(&p, fn, arg);
	return read_counts(root_fd, id, &p, ret);
}

int blockstate_read_stored(int root_fd, unsigned id, bs_stored_fn *fn, void *arg,
			   struct bs_counts *ret)
{
	struct bs_parser p;

	bs_parser_init(&p, NULL, NULL);
	bs_parser_on_stored(&p, fn, arg);
	return read_counts(root_fd, id, &p, ret);
}

int blockstate_read_slots(int root_fd, unsigned id, bs_slot_fn *fn, void *arg,
			  struct bs_counts *ret)
{
	struct bs_parser p;

	bs_parser_init(&p, NULL, NULL);
	bs_parser_on_slot(&p, fn, arg);
	return read_counts(root_fd, id, &p, ret);
}

void bs_bitmap_free(struct bs_bitmap *b)
{
	if (!b)
		return;
	free(b->words);
	memset(b, 0, sizeof(*b));
}

int bs_bitmap_alloc(struct bs_bitmap *b, uint64_t nbits)
{
	uint64_t n = nbits / 64 + (nbits % 64 != 0);

	memset(b, 0, sizeof(*b));
	if (!n)
		return 0;
	if (n > SIZE_MAX / sizeof(uint64_t))
		return -ENOMEM;
	b->words = calloc((size_t)n, sizeof(uint64_t));
	if (!b->words)
		return -ENOMEM;
	b->nbits = nbits;
	b->limit = nbits; /* fixed: never grows */
	return 0;
}

void bs_bitmap_init(struct bs_bitmap *b, uint64_t limit)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
}

bool bs_bitmap_test(const struct bs_bitmap *b, uint64_t bit)
{
	return b && bit < b->nbits && (b->words[bit / 64] >> (bit % 64)) & 1;
}

/* Word i of b, with bits at or past nbits masked off; 0 past the end or for NULL. */
static uint64_t bitmap_word(const struct bs_bitmap *b, size_t i)
{
	uint64_t w;

	if (!b || i >= nwords(b->nbits))
		return 0;
	w = b->words[i];
	if (i == b->nbits / 64) /* partial last word */
		w &= (1ULL << (b->nbits % 64)) - 1;
	return w;
}

uint64_t bs_bitmap_count(const struct bs_bitmap *b)
{
	uint64_t n = 0;

	if (!b)
		return 0;
	for (size_t i = 0; i < nwords(b->nbits); i++)
		n += (uint64_t)__builtin_popcountll(bitmap_word(b, i));
	return n;
}

uint64_t bs_bitmap_count_new(const struct bs_bitmap *before, const struct bs_bitmap *now)
{
	uint64_t n = 0;

	if (!now)
		return 0;
	for (size_t i = 0; i < nwords(now->nbits); i++)
		n += (uint64_t)__builtin_popcountll(bitmap_word(now, i) & ~bitmap_word(before, i));
	return n;
}

/* Bytes of a bitmap of s->limit bits. */
static uint64_t set_bitmap_bytes(const struct bs_set *s)
{
	return s->limit / 8 + (s->limit % 8 != 0);
}

void bs_set_init(struct bs_set *s, uint64_t limit)
{
	memset(s, 0, sizeof(*s));
	s->limit = limit;
}

void bs_set_free(struct bs_set *s)
{
	uint64_t limit = s->limit;

	free(s->buf);
	bs_set_init(s, limit);
}

size_t bs_set_bytes(const struct bs_set *s)
{
	return s->bitmap ? (size_t)set_bitmap_bytes(s) : s->cap;
}

/* Next gap of a list at *pos (< len); false for a truncated one (never written so). */
static bool gap_decode(const uint8_t *buf, size_t len, size_t *pos, uint64_t *gap)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *pos < len && shift < 64; shift += 7) {
		uint8_t b = buf[(*pos)++];

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*gap = v;
			return true;
		}
	}
	return false;
}

/* The list becomes the bitmap (when that is smaller, or for an index out of order). */
static void set_to_bitmap(struct bs_set *s)
{
	uint64_t bytes = set_bitmap_bytes(s), base = 0, gap;
	size_t pos = 0;
	uint8_t *b;

	if (bytes > SIZE_MAX || !(b = calloc(1, (size_t)bytes ? (size_t)bytes : 1))) {
		s->failed = true;
		return;
	}
	while (pos < s->len && gap_decode(s->buf, s->len, &pos, &gap)) {
		base += gap; /* < limit: only such indices were added */
		b[base / 8] |= (uint8_t)(1u << (base % 8));
		base++;
	}
	free(s->buf);
	s->buf = b;
	s->len = s->cap = 0;
	s->bitmap = true;
}

void bs_set_add(struct bs_set *s, uint64_t index)
{
	uint8_t enc[10];
	size_t n = 0;
	uint64_t gap;

	if (s->failed || index >= s->limit)
		return;
	if (!s->bitmap && s->next && index < s->next) {
		if (index == s->next - 1)
			return; /* the last one again */
		set_to_bitmap(s);
		if (s->failed)
			return;
	}
	if (!s->bitmap) {
		gap = index - s->next;
		do {
			enc[n] = (uint8_t)(gap & 0x7f);
			gap >>= 7;
			if (gap)
				enc[n] |= 0x80;
			n++;
		} while (gap);
		if (s->len + n > set_bitmap_bytes(s)) {
			set_to_bitmap(s);
			if (s->failed)
				return;
		} else {
			if (s->len + n > s->cap) {
				/* Doubling, but never past the bitmap's size. */
				uint64_t cap = s->cap ? 2 * (uint64_t)s->cap : 64;
				uint8_t *b;

				if (cap > set_bitmap_bytes(s))
					cap = set_bitmap_bytes(s);
				b = realloc(s->buf, (size_t)cap);
				if (!b) {
					s->failed = true;
					return;
				}
				s->buf = b;
				s->cap = (size_t)cap;
			}
			memcpy(s->buf + s->len, enc, n);
			s->len += n;
			s->next = index + 1;
			s->count++;
			return;
		}
	}
	if (!(s->buf[index / 8] & (1u << (index % 8)))) {
		s->buf[index / 8] |= (uint8_t)(1u << (index % 8));
		s->count++;
	}
}

bool bs_set_has(const struct bs_set *s, struct bs_set_cursor *c, uint64_t index)
{
	uint64_t gap;

	if (!s || !s->buf || index >= s->limit)
		return false;
	if (s->bitmap)
		return (s->buf[index / 8] >> (index % 8)) & 1;
	/* Members before the cursor are below the previous query: start over only when this
	 * one is lower still. */
	if (index < c->query)
		memset(c, 0, sizeof(*c));
	c->query = index;
	while (!c->have || c->cur < index) {
		if (c->pos >= s->len || !gap_decode(s->buf, s->len, &c->pos, &gap))
			return false;
		c->cur = c->base + gap;
		c->base = c->cur + 1;
		c->have = true;
	}
	return c->cur == index;
}
