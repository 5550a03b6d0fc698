// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * adopt, the pure parts (include/adopt.h): /proc/swaps, the choice of plan, the swap header.
 * No I/O here but the printing of figures to a stream the caller gives.
 */
#include "adopt.h"

#include "human.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One field of a /proc/swaps line: [*p, end) without blanks; *p moves past it. */
static size_t next_field(const char **p, const char *end, const char **ret)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*ret = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*p = s;
	return (size_t)(s - *ret);
}

static int field_u64_kib(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v;
	int r = parse_u64_text(s, n, &v);

	if (r < 0)
		return r;
	if (v > UINT64_MAX / 1024)
		return -ERANGE;
	*ret = v * 1024;
	return 0;
}

static int field_int(const char *s, size_t n, int *ret)
{
	bool neg = n > 0 && s[0] == '-';
	uint64_t v;
	int r = parse_u64_text(s + neg, n - neg, &v);

	if (r < 0)
		return r;
	if (v > INT_MAX)
		return -ERANGE;
	*ret = neg ? -(int)v : (int)v;
	return 0;
}

/* "PATH TYPE SIZE USED PRIO" (6.2 to 7.3: seq_printf with tabs and padding). */
static int parse_swap_line(const char *s, const char *end, struct swap_entry *e)
{
	const char *f[5];
	size_t n[5];
	unsigned id;

	memset(e, 0, sizeof(*e));
	for (int i = 0; i < 5; i++) {
		n[i] = next_field(&s, end, &f[i]);
		if (!n[i])
			return -EINVAL;
	}
	if (n[0] >= sizeof(e->path))
		return -EINVAL;
	memcpy(e->path, f[0], n[0]);
	e->path[n[0]] = '\0';
	if (field_u64_kib(f[2], n[2], &e->size) < 0 || field_u64_kib(f[3], n[3], &e->used) < 0 ||
	    field_int(f[4], n[4], &e->prio) < 0)
		return -EINVAL;
	if (strncmp(e->path, "/dev/", 5) == 0 && zram_name_to_id(e->path + 5, &id) == 0) {
		e->is_zram = true;
		e->zram_id = id;
	}
	return 0;
}

int adopt_parse_swaps(const char *text, size_t len, struct swap_entry *ret, unsigned max)
{
	const char *p = text, *end = text + len;
	unsigned n = 0;
	bool header = true;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (header) {
			/* "Filename Type Size Used Priority" */
			if (le - p < 8 || strncmp(p, "Filename", 8) != 0)
				return -EINVAL;
			header = false;
		} else if (le > p) {
			if (n >= max)
				break;
			if (parse_swap_line(p, le, &ret[n]) < 0)
				return -EINVAL;
			n++;
		}
		p = nl ? nl + 1 : end;
	}
	return header ? -EINVAL : (int)n;
}

uint64_t adopt_margin(uint64_t needed)
{
	return sat_add_u64(needed / 4, ADOPT_MARGIN_FIXED);
}

static void check(struct adopt_check *c, uint64_t needed, uint64_t available)
{
	c->needed = needed;
	c->margin = adopt_margin(needed);
	c->available = available;
	c->ok = available >= sat_add_u64(needed, c->margin);
}

uint64_t adopt_memcg_margin(uint64_t charged)
{
	return sat_add_u64(charged / 4, ADOPT_MEMCG_MARGIN_FIXED);
}

void adopt_decide(const struct adopt_figures *f, bool force_temp, struct adopt_plan *ret)
{
	memset(ret, 0, sizeof(*ret));
	check(&ret->direct, f->swap_used, sat_add_u64(f->mem_available, f->other_swap_free));
	ret->memcg.ok = !f->memcg_unknown;
	if (f->memcg_name[0]) {
		ret->memcg.needed = f->memcg_swap;
		ret->memcg.margin = adopt_memcg_margin(f->memcg_swap);
		ret->memcg.available = f->memcg_room;
		ret->memcg.ok &= f->memcg_room >= sat_add_u64(f->memcg_swap, ret->memcg.margin);
	}
	check(&ret->via_temp, sat_add_u64(f->pool, f->written_back), f->mem_available);
	/* without hot_add (zram built without it is not possible since 4.2, but a sandbox may
	 * hide the class) there is no temporary device */
	ret->via_temp.ok &= f->can_hot_add;
	if (ret->direct.ok && ret->memcg.ok && !force_temp)
		ret->kind = ADOPT_DIRECT;
	else if (ret->via_temp.ok)
		ret->kind = ADOPT_VIA_TEMP;
	else
		ret->kind = ADOPT_REFUSE;
}

/*
 * Offsets in the first page (union swap_header, version 1; the same on every architecture:
 * __u32 fields, native byte order): 1024 bytes of boot bits, then version, last_page,
 * nr_badpages (u32 each), uuid[16], volume label[16], and the magic in the page's last 10
 * bytes. These are facts of a stable kernel ABI, written here field by field.
 */
enum {
	SWH_VERSION = 1024,
	SWH_LAST_PAGE = 1028,
	SWH_NR_BADPAGES = 1032,
	SWH_UUID = 1036,
	SWH_LABEL = 1052,
	SWH_MAGIC_LEN = 10,
};
static const char swap_magic[SWH_MAGIC_LEN] = { 'S', 'W', 'A', 'P', 'S', 'P', 'A', 'C', 'E', '2' };

static bool page_size_valid(size_t ps)
{
	return ps >= 4096 && ps <= 65536 && (ps & (ps - 1)) == 0;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v)); /* native byte order, as the kernel reads it */
}

int adopt_build_swap_header(void *page, size_t page_size, uint64_t size, const uint8_t uuid[16],
			    const uint8_t label[16])
{
	uint8_t *b = page;
	uint64_t pages;

	if (!page_size_valid(page_size))
		return -EINVAL;
	pages = size / page_size;
	/* the header takes page 0: a swap area of one page holds nothing (the kernel: "Empty
	 * swap-file"); last_page is a u32 */
	if (pages < 2 || pages - 1 > UINT32_MAX)
		return -EINVAL;
	memset(b, 0, page_size);
	put_u32(b + SWH_VERSION, 1);
	put_u32(b + SWH_LAST_PAGE, (uint32_t)(pages - 1));
	put_u32(b + SWH_NR_BADPAGES, 0);
	memcpy(b + SWH_UUID, uuid, 16);
	memcpy(b + SWH_LABEL, label, 16);
	memcpy(b + page_size - SWH_MAGIC_LEN, swap_magic, SWH_MAGIC_LEN);
	return 0;
}

int adopt_parse_swap_header(const void *page, size_t page_size, uint8_t uuid[16],
			    uint8_t label[16])
{
	const uint8_t *b = page;
	uint32_t version;

	if (!page_size_valid(page_size) ||
	    memcmp(b + page_size - SWH_MAGIC_LEN, swap_magic, SWH_MAGIC_LEN) != 0)
		return -EINVAL;
	memcpy(&version, b + SWH_VERSION, sizeof(version));
	if (version != 1)
		return -EINVAL;
	memcpy(uuid, b + SWH_UUID, 16);
	memcpy(label, b + SWH_LABEL, 16);
	return 0;
}

void adopt_uuid_v4(uint8_t uuid[16])
{
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

void adopt_format_uuid(const uint8_t u[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[u[i] >> 4];
		out[o++] = hex[u[i] & 15];
	}
	out[o] = '\0';
}

static void print_check(FILE *f, const char *name, const char *what, const struct adopt_check *c,
			const char *avail_what)
{
	char n[32], m[32], a[32];

	fprintf(f, "%s: %s: needed %s + margin %s, available %s (%s): %s\n", name, what,
		human_bytes(n, sizeof(n), c->needed), human_bytes(m, sizeof(m), c->margin),
		human_bytes(a, sizeof(a), c->available), avail_what, c->ok ? "safe" : "not safe");
}

void adopt_print_figures(FILE *f, const char *name, const struct adopt_figures *fig,
			 const struct adopt_plan *p)
{
	char s[32], pool[32], wb[32], ma[32], os[32], avail[96], cg[160];

	fprintf(f, "%s: stored: %s in swap, %s of memory compressed (mm_stat mem_used_total)", name,
		human_bytes(s, sizeof(s), fig->swap_used),
		human_bytes(pool, sizeof(pool), fig->pool));
	if (fig->written_back)
		fprintf(f, ", %s on the backing device",
			human_bytes(wb, sizeof(wb), fig->written_back));
	fputc('\n', f);
	(void)snprintf(avail, sizeof(avail), "MemAvailable %s + other swap free %s",
		       human_bytes(ma, sizeof(ma), fig->mem_available),
		       human_bytes(os, sizeof(os), fig->other_swap_free));
	(void)snprintf(cg, sizeof(cg), "memory cgroup %s (the least room; swapoff charges it)",
		       fig->memcg_name);
	if (fig->memcg_unknown)
		fprintf(f, "%s: memory cgroups: not read: the direct plan is not taken\n", name);
	else if (fig->memcg_name[0])
		print_check(f, name, cg, &p->memcg,
			    "memory.max - memory.current; needed: its memory.swap.current");
	print_check(f, name, "direct (swapoff first, pages uncompressed)", &p->direct, avail);
	print_check(f, name, "through a temporary zram device (pages compressed)", &p->via_temp,
		    fig->can_hot_add ? "MemAvailable" : "no sys/class/zram-control/hot_add");
}
