// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pagegen [--kind KIND] [--stats] PAGES SEED > file
 *
 * Writes PAGES deterministic 4 KiB pages that look like anonymous memory, for the VM tier and
 * `make demo`. The same PAGES, SEED and KIND always give the same bytes on every platform.
 *
 * Kinds (--kind, default "mix"):
 *   text     heap strings: English-like words (Zipf-distributed over a built-in list plus
 *            syllable-made rare words, numbers, punctuation) in malloc-like chunks
 *   code     program image: x86-64-like instruction streams, or pointer tables and ELF
 *            relocation records (monotonic addresses, repeated type words)
 *   records  arrays of structs: sequential ids, small ints, timestamps, heap pointers,
 *            short names, zero padding
 *   zero     all zero (zram stores it as a same-filled page, no memory)
 *   same     one repeated 64-bit word, e.g. 0xff.. (same-filled as well)
 *   random   uniformly random bytes: already-compressed data, stays huge and incompressible
 *
 * The mix, in runs of 1-16 pages of one kind like the regions of a real address space:
 *   text 28%, code 18%, records 33%, zero 12%, same 5%, random 4%; half of the text and
 *   records pages are only partly used (zero tail), like heap tops and stacks.
 * Measured with --stats (per-page lzo1x-1, the algorithm behind lzo-rle, and zstd level 3,
 * the kernel's default zstd level), 16384 pages, seeds 1-3: lzo 2.60-2.64x, zstd 3.36-3.43x
 * on compressed bytes (same-filled pages count as free, huge pages as 4096 bytes), 4.0-4.4%
 * huge pages. Per kind, lzo/zstd: text 2.1x/2.9x, code 1.6x/2.0x, records 3.3x/4.8x. Real
 * anonymous memory gave 2.66x/3.6x on compr_data_size with 3.9% huge pages (zram-abi.md §9,
 * 104 MiB). In zram, mem_used_total adds zsmalloc overhead on top (about 5%).
 *
 * --stats prints per-kind page counts, compressed sizes and ratios to stderr (pages still go to
 * stdout; redirect it to /dev/null when only the statistics are wanted).
 */
#include <errno.h>
#include <inttypes.h>
#include <lzo/lzo1x.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define PAGE 4096

/* Compressed sizes at or above this are stored uncompressed ("huge") by zram: zsmalloc's
 * huge_class_size with 4 KiB pages on x86-64, measured on 6.12.118 (recompress threshold=3624
 * accepted, 3625 rejected). Only used for the --stats estimate. */
#define HUGE_ESTIMATE 3625

enum kind { K_TEXT, K_CODE, K_RECORDS, K_ZERO, K_SAME, K_RANDOM, K_NR, K_MIX = K_NR };

static const char *const kind_names[K_NR] = {"text", "code", "records", "zero", "same", "random"};

/* Per-mille share of each kind in the mix; sums to 1000. */
static const unsigned mix_permille[K_NR] = {280, 180, 330, 120, 50, 40};

struct rng {
	uint64_t s;
};

/* splitmix64: tiny and identical everywhere. */
static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned below(struct rng *r, unsigned n)
{
	return (unsigned)(rnd(r) % n);
}

static bool chance(struct rng *r, unsigned permille)
{
	return below(r, 1000) < permille;
}

/* Common words first: the generator picks low indexes far more often (Zipf-like). */
// clang-format off
static const char *const words[] = {
	"the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with",
	"be", "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but",
	"have", "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her",
	"has", "there", "been", "if", "more", "when", "will", "would", "who", "so", "no", "she",
	"other", "its", "may", "these", "what", "them", "than", "some", "him", "time", "into",
	"only", "do", "could", "new", "about", "two", "then", "first", "also", "any", "like",
	"our", "such", "my", "over", "man", "me", "even", "most", "made", "after", "many",
	"must", "before", "through", "back", "years", "where", "much", "your", "way", "well",
	"down", "should", "because", "each", "just", "those", "people", "how", "too", "little",
	"state", "good", "very", "make", "world", "still", "own", "see", "men", "work", "long",
	"get", "here", "between", "both", "life", "being", "under", "never", "day", "same",
	"another", "know", "while", "last", "might", "great", "old", "year", "off", "come",
	"since", "against", "go", "came", "right", "used", "take", "three", "system", "file",
	"memory", "device", "page", "process", "value", "number", "error", "buffer", "request",
	"server", "client", "window", "thread", "table", "index", "record", "message", "user",
	"session", "config", "network", "packet", "kernel", "module", "function", "return",
	"string", "object", "pointer", "address", "length", "offset", "count", "option",
	"status", "result", "source", "target", "version", "package", "library", "document",
	"history", "country", "government", "company", "market", "public", "service", "water",
	"house", "school", "family", "question", "program", "problem", "point", "place",
	"group", "hand", "part", "case", "week", "order", "change", "account", "information",
	"development", "experience", "interest", "business", "children", "community",
	"education", "research", "evidence", "structure", "political", "national", "social",
	"important", "different", "following", "possible", "available", "particular",
	"including", "according", "therefore", "however", "although", "whether", "without",
};

// clang-format on
#define NWORDS (sizeof(words) / sizeof(words[0]))

// clang-format off
static const char *const syllables[] = {
	"ba", "con", "de", "ex", "fi", "gra", "hu", "in", "ka", "lo", "mar", "ne", "or",
	"pre", "qui", "re", "sta", "ti", "un", "ver", "wo", "xen", "yo", "zu", "tion", "ment",
	"ing", "ly", "er", "al", "ous", "ive", "ble", "ist", "ent", "ate",
};

// clang-format on
#define NSYL (sizeof(syllables) / sizeof(syllables[0]))

struct page {
	uint8_t b[PAGE];
	unsigned len;
};

static void put(struct page *p, const void *src, unsigned n)
{
	if (p->len >= PAGE)
		return;
	if (n > PAGE - p->len)
		n = PAGE - p->len;
	memcpy(p->b + p->len, src, n);
	p->len += n;
}

static void put8(struct page *p, uint8_t v)
{
	put(p, &v, 1);
}

/* Little-endian stores, independent of the host's byte order. */
static void putle(struct page *p, uint64_t v, unsigned n)
{
	uint8_t t[8];

	for (unsigned i = 0; i < n; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	put(p, t, n);
}

static void align(struct page *p, unsigned a, uint8_t fill)
{
	while (p->len % a && p->len < PAGE)
		put8(p, fill);
}

/* Zipf-ish rank: the minimum of several uniform draws favours small indexes. */
static unsigned zipf(struct rng *r, unsigned n)
{
	unsigned a = below(r, n), b = below(r, n), c = below(r, n), d = below(r, n);

	a = a < b ? a : b;
	c = c < d ? c : d;
	return a < c ? a : c;
}

static void put_word(struct page *p, struct rng *r, bool capital)
{
	char w[48];
	unsigned n = 0;

	if (chance(r, 50)) {
		/* Rare word made of syllables: the long tail real text has. */
		unsigned k = 2 + below(r, 3);

		for (unsigned i = 0; i < k; i++) {
			const char *s = syllables[below(r, NSYL)];

			while (*s && n < sizeof(w) - 1)
				w[n++] = *s++;
		}
	} else if (chance(r, 30)) {
		n = (unsigned)snprintf(w, sizeof(w), "%u", below(r, chance(r, 500) ? 100 : 100000));
	} else {
		const char *s = words[zipf(r, NWORDS)];

		while (*s && n < sizeof(w) - 1)
			w[n++] = *s++;
	}
	if (capital && w[0] >= 'a' && w[0] <= 'z')
		w[0] = (char)(w[0] - 'a' + 'A');
	put(p, w, n);
}

/* One sentence of 4-20 words. */
static void put_sentence(struct page *p, struct rng *r)
{
	unsigned n = 4 + below(r, 17);

	for (unsigned i = 0; i < n; i++) {
		put_word(p, r, i == 0);
		if (i + 1 < n) {
			if (chance(r, 70))
				put8(p, ',');
			put8(p, ' ');
		}
	}
	put(p, chance(r, 900) ? ". " : "? ", 2);
}

/*
 * Text: strings in malloc-like chunks (16-byte header: previous size, size|flags), each
 * NUL-terminated and padded to 16 bytes, sometimes a line of a log or a path instead of prose.
 */
static void gen_text(struct page *p, struct rng *r)
{
	while (p->len < PAGE) {
		unsigned start, size;

		align(p, 16, 0);
		start = p->len;
		putle(p, 0, 8);
		putle(p, 0, 8); /* size, patched below */
		/* Programs keep many copies of the same strings (keys, paths, names). */
		if (start >= 256 && chance(r, 250)) {
			unsigned from = 16 * below(r, start / 16 - 8), n = 16 + 16 * zipf(r, 12);

			if (from + n > start)
				n = start - from;
			put(p, p->b + from, n);
			continue;
		}
		switch (below(r, 10)) {
		case 0: {
			char l[64];
			int n = snprintf(l, sizeof(l), "2024-%02u-%02u %02u:%02u:%02u.%03u [%u] ",
					 1 + below(r, 12), 1 + below(r, 28), below(r, 24),
					 below(r, 60), below(r, 60), below(r, 1000),
					 100 + below(r, 30000));

			put(p, l, (unsigned)n);
			put_sentence(p, r);
			put8(p, '\n');
			break;
		}
		case 1:
			put(p, "/usr/", 5);
			for (unsigned i = 0, k = 1 + below(r, 4); i < k; i++) {
				put_word(p, r, false);
				put8(p, i + 1 < k ? '/' : '.');
			}
			if (chance(r, 500))
				put(p, "so", 2);
			else
				put(p, "conf", 4);
			break;
		default:
			for (unsigned i = 0, k = 1 + below(r, 6); i < k; i++)
				put_sentence(p, r);
			break;
		}
		put8(p, 0);
		align(p, 16, 0);
		size = p->len - start;
		if (start + 16 <= PAGE) {
			uint64_t v = size | 1; /* "previous chunk in use" bit */

			for (unsigned i = 0; i < 8; i++)
				p->b[start + 8 + i] = (uint8_t)(v >> (8 * i));
		}
	}
}

static const uint8_t regs[] = {0x45, 0x4d, 0x55, 0x5d, 0x75, 0x7d}; /* modrm [rbp+d8] */

/* A few x86-64 instructions, with the operand variety of compiled code. */
static void put_insn(struct page *p, struct rng *r, uint64_t here, uint64_t text_base)
{
	static const uint8_t jcc[] = {0x74, 0x75, 0x7e, 0x7f, 0x72, 0x73, 0xeb};
	uint8_t disp = (uint8_t)(0x100 - 8 * (1 + zipf(r, 8)));

	switch (zipf(r, 14)) {
	case 0: /* mov rax,[rbp-d] / mov [rbp-d],rdi */
		put8(p, 0x48);
		put8(p, chance(r, 500) ? 0x8b : 0x89);
		put8(p, regs[below(r, sizeof(regs))]);
		put8(p, disp);
		break;
	case 1: /* call rel32 into the same image */
		put8(p, 0xe8);
		putle(p, (uint32_t)(text_base + below(r, 0x40000) - here - 5), 4);
		break;
	case 2: /* test eax,eax; jcc rel8 */
		put8(p, 0x85);
		put8(p, 0xc0);
		put8(p, jcc[below(r, sizeof(jcc))]);
		put8(p, (uint8_t)(2 + below(r, 60)));
		break;
	case 3: /* lea rdi,[rip+rel32] (string or data) */
		put8(p, 0x48);
		put8(p, 0x8d);
		put8(p, chance(r, 500) ? 0x3d : 0x35);
		putle(p, (uint32_t)(0x200000 + below(r, 0x20000) - (here & 0xffff)), 4);
		break;
	case 4: /* mov esi,imm32 (small) */
		put8(p, 0xbe + (uint8_t)below(r, 2));
		putle(p, zipf(r, 256), 4);
		break;
	case 5: /* cmp eax,imm8 */
		put8(p, 0x83);
		put8(p, 0xf8);
		put8(p, (uint8_t)zipf(r, 64));
		break;
	case 6: /* xor eax,eax */
		put8(p, 0x31);
		put8(p, 0xc0);
		break;
	case 7: /* mov rax,[rip+rel32] (GOT) */
		put8(p, 0x48);
		put8(p, 0x8b);
		put8(p, 0x05);
		putle(p, (uint32_t)(0x3f0000 + 8 * below(r, 512) - (here & 0xfffff)), 4);
		break;
	case 8: /* mov dword [rbp-d],imm32 */
		put8(p, 0xc7);
		put8(p, 0x45);
		put8(p, disp);
		putle(p, zipf(r, 16), 4);
		break;
	case 9: /* mov rdi,rbx / mov rsi,r12 */
		put8(p, chance(r, 500) ? 0x48 : 0x4c);
		put8(p, 0x89);
		put8(p, (uint8_t)(0xc0 + below(r, 64)));
		break;
	case 10: /* add rsp,imm8 */
		put8(p, 0x48);
		put8(p, 0x83);
		put8(p, 0xc4);
		put8(p, (uint8_t)(8 * (1 + below(r, 8))));
		break;
	case 11: /* je rel32 */
		put8(p, 0x0f);
		put8(p, 0x84);
		putle(p, below(r, 0x400), 4);
		break;
	default: /* movzx eax, byte [rdi+d8] */
		put8(p, 0x0f);
		put8(p, 0xb6);
		put8(p, 0x47);
		put8(p, (uint8_t)below(r, 64));
		break;
	}
}

static void gen_code_text(struct page *p, struct rng *r, uint64_t base)
{
	while (p->len < PAGE) {
		unsigned n = 3 + zipf(r, 40);

		put8(p, 0x55);		   /* push rbp */
		put(p, "\x48\x89\xe5", 3); /* mov rbp,rsp */
		if (chance(r, 500))
			put(p, "\x41\x54\x53", 3); /* push r12; push rbx */
		put(p, "\x48\x83\xec", 3);
		put8(p, (uint8_t)(16 * (1 + below(r, 6))));
		for (unsigned i = 0; i < n; i++)
			put_insn(p, r, base + p->len, base & ~0xfffffULL);
		if (chance(r, 500))
			put(p, "\xc9\xc3", 2); /* leave; ret */
		else
			put(p, "\x5b\x41\x5c\x5d\xc3", 5); /* pop rbx; pop r12; pop rbp; ret */
		/* Padding between functions: multi-byte nops or int3 up to 16 bytes. */
		if (chance(r, 600)) {
			while (p->len % 16 && p->len < PAGE) {
				if (p->len % 16 <= 10 && chance(r, 800))
					put(p, "\x66\x0f\x1f\x44\x00\x00", 6);
				else
					put8(p, 0x90);
			}
		} else {
			align(p, 16, 0xcc);
		}
	}
}

/* .data.rel.ro / .rela.dyn / GOT-like: sorted pointers and ELF64 Rela entries. */
static void gen_code_tables(struct page *p, struct rng *r, uint64_t base)
{
	uint64_t off = base + 8 * below(r, 4096);
	uint64_t ptr = 0x555555554000ULL + (rnd(r) & 0xfffff0ULL);

	if (chance(r, 500)) {
		while (p->len < PAGE) { /* Elf64_Rela: r_offset, r_info, r_addend */
			off += 8 * (1 + (chance(r, 900) ? 0 : below(r, 64)));
			putle(p, off, 8);
			if (chance(r, 850))
				putle(p, 8, 8); /* R_X86_64_RELATIVE */
			else
				putle(p, ((uint64_t)zipf(r, 2000) << 32) | (chance(r, 500) ? 6 : 7),
				      8);
			ptr += 16 + 8 * zipf(r, 64);
			putle(p, ptr - 0x555555554000ULL, 8);
		}
	} else {
		while (p->len < PAGE) { /* vtables and pointer arrays, some NULLs */
			if (chance(r, 80)) {
				putle(p, 0, 8);
				continue;
			}
			ptr += 16 * (1 + zipf(r, 128));
			putle(p, ptr, 8);
		}
	}
}

static void gen_code(struct page *p, struct rng *r, uint64_t pageno)
{
	uint64_t base = 0x1000 * (pageno + 0x400);

	if (chance(r, 700))
		gen_code_text(p, r, base);
	else
		gen_code_tables(p, r, base);
}

/* Arrays of structs, one layout per page. */
static void gen_records(struct page *p, struct rng *r, uint64_t pageno)
{
	uint64_t id = 1000 + pageno * 100 + below(r, 50);
	uint64_t ts = 1700000000000000000ULL + (pageno << 32) + (rnd(r) & 0xffffffffULL);
	uint64_t heap = 0x55d4a0000000ULL + ((rnd(r) & 0xffffff) << 4);

	switch (below(r, 4)) {
	case 0: /* 32 bytes: u32 id, u16 type, u16 flags, u64 ts, u32 size, u32 refs, u64 ptr */
		while (p->len < PAGE) {
			putle(p, id++, 4);
			putle(p, zipf(r, 8), 2);
			putle(p, chance(r, 700) ? 0x1 : (uint16_t)below(r, 0x40), 2);
			ts += 1000 * (1 + zipf(r, 64));
			putle(p, ts, 8);
			putle(p, 16 * (1 + zipf(r, 256)), 4);
			putle(p, 1 + zipf(r, 3), 4);
			heap += 32 + 16 * zipf(r, 4);
			putle(p, chance(r, 100) ? 0 : heap, 8);
		}
		break;
	case 1: /* 48 bytes: u64 id, char name[16], i32 x, i32 y, double value, u64 zero */
		while (p->len < PAGE) {
			struct page n = {.len = 0};

			putle(p, id, 8);
			id += 1 + zipf(r, 3);
			put_word(&n, r, chance(r, 300));
			if (n.len > 15)
				n.len = 15;
			memset(n.b + n.len, 0, 16 - n.len);
			put(p, n.b, 16);
			putle(p, (uint32_t)(int32_t)(zipf(r, 2000) - 1000), 4);
			putle(p, zipf(r, 100), 4);
			{
				double d = (double)zipf(r, 10000) / 8.0;
				uint64_t bits;

				memcpy(&bits, &d, sizeof(bits));
				putle(p, bits, 8);
			}
			putle(p, 0, 8);
		}
		break;
	case 2: /* sparse counters: mostly zero u32s, some small values */
		while (p->len < PAGE)
			putle(p, chance(r, 650) ? 0 : zipf(r, chance(r, 900) ? 64 : 65536), 4);
		break;
	default: /* list nodes: next/prev pointers, key, value, state byte, padding */
		while (p->len < PAGE) {
			heap += 64;
			putle(p, heap + 64, 8);
			putle(p, heap - 64, 8);
			putle(p, id++, 8);
			putle(p, zipf(r, 4096), 8);
			put8(p, (uint8_t)zipf(r, 4));
			put(p, "\0\0\0\0\0\0\0", 7);
			putle(p, ts + 1000000ULL * below(r, 3600), 8);
			putle(p, 0, 8);
			putle(p, 0, 8);
		}
		break;
	}
}

static void gen_same(struct page *p, struct rng *r)
{
	static const uint64_t fills[] = {
		0xffffffffffffffffULL, 0xffffffffffffffffULL, 0x0101010101010101ULL,
		0x5a5a5a5a5a5a5a5aULL, 0x00000000deadbeefULL,
	};
	uint64_t v = fills[below(r, sizeof(fills) / sizeof(fills[0]))];

	while (p->len < PAGE)
		putle(p, v, 8);
}

static void gen_page(struct page *p, enum kind k, uint64_t seed, uint64_t pageno)
{
	/* Each page has its own stream, so a page depends only on (seed, kind, index). */
	struct rng r = {.s = seed * 0xd1342543de82ef95ULL + pageno * 0x2545f4914f6cdd1dULL +
			     (uint64_t)k};

	rnd(&r);
	p->len = 0;
	switch (k) {
	case K_TEXT:
		gen_text(p, &r);
		break;
	case K_CODE:
		gen_code(p, &r, pageno);
		break;
	case K_RECORDS:
		gen_records(p, &r, pageno);
		break;
	case K_ZERO:
		memset(p->b, 0, PAGE);
		p->len = PAGE;
		break;
	case K_SAME:
		gen_same(p, &r);
		break;
	default:
		while (p->len < PAGE)
			putle(p, rnd(&r), 8);
		break;
	}
	/* Heap tops, stacks and fresh arenas are only partly used: the rest stays zero. */
	if ((k == K_TEXT || k == K_RECORDS) && chance(&r, 500)) {
		unsigned cut = 16 * (32 + below(&r, 192));

		memset(p->b + cut, 0, PAGE - cut);
	}
}

static enum kind pick_kind(struct rng *r)
{
	unsigned x = below(r, 1000);

	for (unsigned k = 0; k < K_NR; k++) {
		if (x < mix_permille[k])
			return (enum kind)k;
		x -= mix_permille[k];
	}
	return K_TEXT;
}

struct stats {
	uint64_t pages, lzo, zstd, huge_lzo, huge_zstd;
};

static int compress_stats(struct stats *st, const struct page *p, void *wrk, uint8_t *out,
			  size_t outsz)
{
	lzo_uint lz = outsz;
	size_t zs;
	uint64_t fill;
	bool same = true;

	st->pages++;
	/* zram's same-page detection: one repeated unsigned long, stored in no memory. */
	memcpy(&fill, p->b, 8);
	for (unsigned i = 8; i < PAGE && same; i += 8)
		same = memcmp(p->b + i, &fill, 8) == 0;
	if (same)
		return 0;
	if (lzo1x_1_compress(p->b, PAGE, out, &lz, wrk) != LZO_E_OK)
		return -EIO;
	zs = ZSTD_compress(out + PAGE * 2, outsz - PAGE * 2, p->b, PAGE, 3);
	if (ZSTD_isError(zs))
		return -EIO;
	/* Huge pages are stored as whole pages. */
	if (lz >= HUGE_ESTIMATE) {
		lz = PAGE;
		st->huge_lzo++;
	}
	if (zs >= HUGE_ESTIMATE) {
		zs = PAGE;
		st->huge_zstd++;
	}
	st->lzo += lz;
	st->zstd += zs;
	return 0;
}

static void print_stats(const char *name, const struct stats *st)
{
	double orig = (double)st->pages * PAGE;

	fprintf(stderr,
		"%-8s %7" PRIu64 " pages  lzo %10" PRIu64 " (%5.2fx, %" PRIu64
		" huge)  zstd %10" PRIu64 " (%5.2fx, %" PRIu64 " huge)\n",
		name, st->pages, st->lzo, st->lzo ? orig / (double)st->lzo : 0.0, st->huge_lzo,
		st->zstd, st->zstd ? orig / (double)st->zstd : 0.0, st->huge_zstd);
}

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *b = buf;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: pagegen [--kind mix|text|code|records|zero|same|random] [--stats] "
			"PAGES SEED > file\n");
	return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return (errno || end == s || *end || *s == '-') ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	enum kind want = K_MIX;
	bool stats = false;
	const char *pos[2];
	unsigned npos = 0;
	uint64_t pages, seed, run_left = 0;
	enum kind cur = K_TEXT;
	struct rng mixr;
	struct stats st[K_NR + 1];
	static struct page pg;
	static uint64_t wrk[LZO1X_1_MEM_COMPRESS / 8 + 1];
	static uint8_t out[PAGE * 4];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stats")) {
			stats = true;
		} else if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
			const char *k = argv[++i];

			want = K_NR + 1;
			if (!strcmp(k, "mix"))
				want = K_MIX;
			for (unsigned j = 0; j < K_NR; j++)
				if (!strcmp(k, kind_names[j]))
					want = (enum kind)j;
			if (want > K_MIX) {
				fprintf(stderr, "pagegen: unknown kind '%s'\n", k);
				return usage();
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage();
		} else if (npos < 2) {
			pos[npos++] = argv[i];
		} else {
			return usage();
		}
	}
	if (npos != 2 || parse_u64(pos[0], &pages) || parse_u64(pos[1], &seed))
		return usage();
	if (stats && lzo_init() != LZO_E_OK) {
		fprintf(stderr, "pagegen: lzo_init failed\n");
		return 1;
	}
	memset(st, 0, sizeof(st));
	mixr.s = seed ^ 0x6a09e667f3bcc909ULL;
	for (uint64_t i = 0; i < pages; i++) {
		enum kind k = want;

		if (want == K_MIX) {
			if (!run_left) {
				cur = pick_kind(&mixr);
				run_left = 1 + zipf(&mixr, 16);
			}
			run_left--;
			k = cur;
		}
		gen_page(&pg, k, seed, i);
		if (write_all(STDOUT_FILENO, pg.b, PAGE)) {
			perror("pagegen: write");
			return 1;
		}
		if (stats && (compress_stats(&st[k], &pg, wrk, out, sizeof(out)) ||
			      compress_stats(&st[K_NR], &pg, wrk, out, sizeof(out)))) {
			fprintf(stderr, "pagegen: compression failed\n");
			return 1;
		}
	}
	if (stats) {
		for (unsigned k = 0; k < K_NR; k++)
			if (st[k].pages)
				print_stats(kind_names[k], &st[k]);
		print_stats("total", &st[K_NR]);
	}
	return 0;
}
