// SPDX-License-Identifier: GPL-2.0-or-later
#include "zram.h"

#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const pass_names[PASS_NR_TYPES] = {
	[PASS_HUGE_IDLE] = "huge_idle",
	[PASS_IDLE] = "idle",
	[PASS_HUGE] = "huge",
};

const char *pass_type_name(enum pass_type t)
{
	if ((unsigned)t >= ARRAY_SIZE(pass_names))
		return "unknown";
	return pass_names[t];
}

static const char *const wb_names[WB_NR_TYPES] = {
	[WB_INCOMPRESSIBLE] = "incompressible",
	[WB_HUGE] = "huge",
	[WB_HUGE_IDLE] = "huge_idle",
	[WB_IDLE] = "idle",
};

const char *wb_type_name(enum wb_type t)
{
	if ((unsigned)t >= ARRAY_SIZE(wb_names))
		return "unknown";
	return wb_names[t];
}

bool wb_type_idle(enum wb_type t)
{
	return t == WB_IDLE || t == WB_HUGE_IDLE;
}

int kver_parse(const char *s, struct kver *ret)
{
	unsigned long v[3] = { 0, 0, 0 };
	const char *p = s;
	int i;

	for (i = 0; i < 3; i++) {
		char *end;

		if (!isdigit((unsigned char)*p))
			break;
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || v[i] > 100000)
			return -EINVAL;
		p = end;
		if (*p != '.')
			break;
		p++;
	}
	/* At least "MAJOR.MINOR"; "6" alone or "x.y" is not a release. */
	if (i < 1 || v[0] == 0)
		return -EINVAL;
	ret->major = (unsigned)v[0];
	ret->minor = (unsigned)v[1];
	ret->sub = (unsigned)v[2];
	return 0;
}

bool kver_ge(const struct kver *v, unsigned major, unsigned minor, unsigned sub)
{
	if (v->major != major)
		return v->major > major;
	if (v->minor != minor)
		return v->minor > minor;
	return v->sub >= sub;
}

static const char *const mm_names[MM_NR_FIELDS] = {
	"orig_data_size", "compr_data_size", "mem_used_total", "mem_limit",	   "mem_used_max",
	"same_pages",	  "pages_compacted", "huge_pages",     "huge_pages_since",
};

const char *mm_field_name(enum mm_field f)
{
	return (unsigned)f < MM_NR_FIELDS ? mm_names[f] : "?";
}

/*
 * sysfs text is read by length, never as a C string: 6.17+ pads recomp_algorithm with NUL
 * bytes inside and after its text (kernel bug, still in 7.3.4), and a reader that stops
 * at the first NUL loses every priority after the first. NULs, tabs, CR and newlines all
 * count as separators here.
 */
static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\v' ||
	       c == '\f';
}

/*
 * Next whitespace-separated token of s[*pos..len) into tok (size bytes, NUL-terminated).
 * Returns its length, 0 at the end, -EINVAL when it does not fit.
 */
static int next_token(const char *s, size_t len, size_t *pos, char *tok, size_t size)
{
	size_t i = *pos, n = 0;

	while (i < len && is_sep(s[i]))
		i++;
	while (i < len && !is_sep(s[i])) {
		if (n + 1 >= size)
			return -EINVAL;
		tok[n++] = s[i++];
	}
	tok[n] = '\0';
	*pos = i;
	return (int)n;
}

int zram_parse_mm_stat(const char *s, size_t len, struct zram_mm_stat *ret)
{
	struct zram_mm_stat m = { 0 };
	size_t pos = 0;

	/* One line: a second line of numbers would be a format we do not know. */
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\n')
			continue;
		for (size_t k = i + 1; k < len; k++)
			if (!is_sep(s[k]))
				return -EINVAL;
		break;
	}
	for (;;) {
		char tok[32];
		uint64_t v;
		int r = next_token(s, len, &pos, tok, sizeof(tok));

		if (r < 0)
			return r;
		if (r == 0)
			break;
		/* mem_limit and friends are printed as %8ld on some versions: still >= 0. */
		if (parse_u64(tok, &v) < 0)
			return -EINVAL;
		if (m.nfields < MM_NR_FIELDS)
			m.v[m.nfields] = v;
		m.nfields++;
	}
	/* Every kernel since 4.7 prints at least 7 fields; 3 are the minimum we use. */
	if (m.nfields < 3)
		return -EINVAL;
	if (m.nfields > MM_NR_FIELDS)
		m.nfields = MM_NR_FIELDS;
	*ret = m;
	return 0;
}

bool zram_algo_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= ZRAM_ALGO_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) &&
		    name[i] != '-')
			return false;
	return true;
}

int zram_parse_algo_list(const char *line, size_t len, struct zram_algo_list *ret)
{
	struct zram_algo_list l = { .selected = -1 };
	size_t i = 0;

	while (i < len) {
		char name[ZRAM_ALGO_MAX];
		bool bracket = false;
		size_t n = 0;

		if (is_sep(line[i])) {
			i++;
			continue;
		}
		if (line[i] == '[') {
			bracket = true;
			i++;
		}
		while (i < len && !is_sep(line[i]) && line[i] != ']' && line[i] != '[') {
			if (n + 1 >= sizeof(name))
				return -EINVAL;
			name[n++] = line[i++];
		}
		name[n] = '\0';
		if (bracket) {
			if (i >= len || line[i] != ']' || l.selected >= 0)
				return -EINVAL;
			i++;
		} else if (i < len && line[i] == ']') {
			return -EINVAL;
		}
		if (!zram_algo_name_valid(name) || l.n >= ZRAM_MAX_AVAIL)
			return -EINVAL;
		if (bracket)
			l.selected = (int)l.n;
		memcpy(l.name[l.n++], name, n + 1);
	}
	*ret = l;
	return 0;
}

bool zram_algo_list_has(const struct zram_algo_list *l, const char *name)
{
	for (unsigned i = 0; i < l->n; i++)
		if (strcmp(l->name[i], name) == 0)
			return true;
	return false;
}

int zram_parse_recomp_listing(const char *s, size_t len, struct zram_recomp *ret)
{
	struct zram_recomp r = { 0 };
	unsigned last = 0;
	size_t i = 0;

	/*
	 * Records are "#P: <list>" and end at the next '#' (names never contain one) or at
	 * the end: 6.2-6.16 separate them with '\n', 6.17+ with '\n' plus NUL runs.
	 */
	for (;;) {
		struct zram_algo_list l;
		size_t start, end;
		unsigned prio;

		while (i < len && is_sep(s[i]))
			i++;
		if (i >= len)
			break;
		if (len - i < 4 || s[i] != '#' || s[i + 1] < '1' || s[i + 1] > '3' ||
		    s[i + 2] != ':' || s[i + 3] != ' ')
			return -EINVAL;
		prio = (unsigned)(s[i + 1] - '0');
		if (prio <= last)
			return -EINVAL;
		start = i + 4;
		end = start;
		while (end < len && s[end] != '#')
			end++;
		if (zram_parse_algo_list(s + start, end - start, &l) < 0 || l.selected < 0)
			return -EINVAL;
		memcpy(r.name[prio], l.name[l.selected], sizeof(r.name[prio]));
		r.set[prio] = true;
		r.count++;
		r.highest = prio;
		if (last == 0)
			r.avail = l;
		last = prio;
		i = end;
	}
	r.gap = r.count != r.highest;
	*ret = r;
	return 0;
}

unsigned zram_recomp_find(const struct zram_recomp *r, const char *name)
{
	for (unsigned p = 1; p <= ZRAM_MAX_PRIO; p++)
		if (r->set[p] && strcmp(r->name[p], name) == 0)
			return p;
	return 0;
}

const char *zram_primary(const struct zram_dev *d)
{
	return d->comp.selected >= 0 ? d->comp.name[d->comp.selected] : "";
}

void zram_caps_derive(struct zram_caps *ret, const struct kver *kv, bool has_recomp_files,
		      bool has_algorithm_params, bool has_block_state, bool has_writeback,
		      enum tri config_idle_age)
{
	struct zram_caps c = { 0 };

	c.multi_comp = has_recomp_files;
	/* recompress ignores unknown keys without an error (max_pages= before 6.10,
	 * priority= before 6.12), so a successful write proves nothing: key on the version. */
	c.max_pages = c.multi_comp && kver_ge(kv, 6, 10, 0);
	c.priority = c.multi_comp && kver_ge(kv, 6, 12, 0);
	c.algorithm_params = has_algorithm_params;
	c.block_state = has_block_state;
	c.writeback = has_writeback;
	/* block_state needs MEMORY_TRACKING, which selects TRACK_ENTRY_ACTIME on 6.8+ and is
	 * itself the ac-time switch on 6.2-6.7: either way ages work. */
	if (has_block_state)
		c.idle_age = TRI_YES;
	else
		c.idle_age = config_idle_age;
	/* 6.13-6.19 and the 6.12.y backports return -EAGAIN; 7.0 blocks instead. */
	c.eagain = c.multi_comp && kver_ge(kv, 6, 12, 1) && !kver_ge(kv, 7, 0, 0);
	c.prio_max_active = c.multi_comp && kver_ge(kv, 6, 15, 0);
	c.threshold_pagesize = !kver_ge(kv, 6, 5, 0);
	/* "zram: clear IDLE flag after recompression": 6.13, backported to 6.12.y. */
	c.clears_idle = c.multi_comp && kver_ge(kv, 6, 12, 1);
	/* 6.13: "zram: rework recompress target selection strategy": every write scans all
	 * slots and allocates an entry per candidate before max_pages bounds anything. */
	c.walk_all = c.multi_comp && kver_ge(kv, 6, 13, 0);
	/* 7.0: dev_lock taken for writing by recompress and writeback (no -EAGAIN). */
	c.blocking_pp = c.multi_comp && kver_ge(kv, 7, 0, 0);
	/* 7.1: "remove chained recompression" and the INCOMPRESSIBLE rule with it. */
	c.single_prio = c.multi_comp && kver_ge(kv, 7, 1, 0);
	/* 7.1, queued for 7.0.10: "do not permit params change after init". */
	c.params_busy = c.algorithm_params && kver_ge(kv, 7, 0, 10);
	/* 7.3: __comp_algorithm_store ends with comp_params_reset(). */
	c.params_reset_on_algo = c.algorithm_params && kver_ge(kv, 7, 3, 0);
	/* 6.16: writeback_store parses key=value pairs ("type=", "page_index(es)="); a bare
	 * word still works there, but type= is the documented form from then on. */
	c.wb_type_key = has_writeback && kver_ge(kv, 6, 16, 0);
	*ret = c;
}

unsigned zram_caps_semantics(const struct zram_caps *c, char out[][256], unsigned max)
{
	unsigned n = 0;

#define SAY(...)                                                                                   \
	do {                                                                                       \
		if (n < max)                                                                       \
			(void)snprintf(out[n++], 256, __VA_ARGS__);                                \
	} while (0)
	if (!c->multi_comp)
		return 0;
	if (c->single_prio)
		SAY("one priority per write (7.1+): each secondary is tried by its own write; "
		    "pages a lower priority fails on are not marked incompressible");
	else if (c->priority)
		SAY("one write walks every secondary unless priority= is given (6.12-7.0); "
		    "zram-recompd writes one priority at a time");
	else
		SAY("one write walks every secondary in order (6.2-6.11; no priority=)");
	if (c->blocking_pp)
		SAY("concurrent passes block (7.0+): a recompress write holds the device lock, "
		    "readers of mm_stat and a second pass wait until it returns");
	else if (c->eagain)
		SAY("concurrent passes fail with EAGAIN (6.12.y, 6.13-6.19): retried");
	if (c->clears_idle)
		SAY("recompression clears the idle mark of every page it tries (6.12.y, 6.13+): "
		    "idle is marked again before the next priority");
	if (c->params_reset_on_algo)
		SAY("an algorithm write resets that priority's parameters (7.3+): parameters "
		    "are written after all algorithms");
#undef SAY
	return n;
}

unsigned zram_caps_explain(const struct zram_caps *c, const struct kver *kv, char out[][256],
			   unsigned max)
{
	unsigned n = 0;

#define EXPLAIN(...)                                                                               \
	do {                                                                                       \
		if (n < max)                                                                       \
			(void)snprintf(out[n++], 256, __VA_ARGS__);                                \
	} while (0)
	if (!c->multi_comp) {
		if (!kver_ge(kv, 6, 2, 0))
			EXPLAIN("recompression needs Linux 6.2 or later with CONFIG_ZRAM_MULTI_COMP "
				"(this kernel is %u.%u)",
				kv->major, kv->minor);
		else
			EXPLAIN("recompression unsupported: kernel built without "
				"CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute)");
		return n;
	}
	if (!c->max_pages)
		EXPLAIN("no batching: recompress max_pages= needs Linux 6.10, so each pass is one "
			"unbounded write");
	if (!c->priority)
		EXPLAIN("no per-pass algorithm priority: recompress priority= needs Linux 6.12");
	if (!c->algorithm_params)
		EXPLAIN("no compression levels: algorithm_params needs Linux 6.12");
	if (c->idle_age == TRI_NO)
		EXPLAIN("no idle ages: kernel built without CONFIG_ZRAM_TRACK_ENTRY_ACTIME "
			"(6.8+) or CONFIG_ZRAM_MEMORY_TRACKING, so pages are marked idle with 'all'");
	else if (c->idle_age == TRI_UNKNOWN)
		EXPLAIN("idle-age support unknown (no block_state, no readable kernel config): "
			"an age is tried first and 'all' used if the kernel rejects it");
	/* debugfs is mode 0700: without root the kernel is not to blame */
	if (!c->block_state && (c->block_state_err == -EACCES || c->block_state_err == -EPERM))
		EXPLAIN("no per-slot state shown: debugfs block_state is not readable by this user "
			"(%s); run as root to see it",
			strerror(-c->block_state_err));
	else if (!c->block_state)
		EXPLAIN("no per-slot state: debugfs block_state needs CONFIG_ZRAM_MEMORY_TRACKING "
			"and debugfs mounted at /sys/kernel/debug; incompressible pages are "
			"estimated from huge-page deltas");
#undef EXPLAIN
	return n;
}

static int dev_path(char *buf, size_t size, unsigned id, const char *attr)
{
	return str_printf(buf, size, "sys/block/zram%u/%s", id, attr);
}

int zram_read_mm_stat(int root_fd, unsigned id, struct zram_mm_stat *ret)
{
	char path[64], buf[512];
	size_t len;
	int r;

	r = dev_path(path, sizeof(path), id, "mm_stat");
	if (r < 0)
		return r;
	r = sysfs_read(root_fd, path, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return zram_parse_mm_stat(buf, len, ret);
}

int zram_parse_fields(const char *s, size_t len, uint64_t *ret, unsigned n)
{
	size_t pos = 0;

	for (unsigned i = 0; i < n; i++) {
		char tok[32];
		int r = next_token(s, len, &pos, tok, sizeof(tok));

		if (r <= 0 || parse_u64(tok, &ret[i]) < 0)
			return -EINVAL;
	}
	return 0; /* later kernels may add columns: extra fields are ignored */
}

/* The first n decimal fields of sys/block/zramN/<attr>, read by length. */
static int read_dev_fields(int root_fd, unsigned id, const char *attr, uint64_t *v, unsigned n)
{
	char path[64], buf[512];
	size_t len;
	int r;

	r = dev_path(path, sizeof(path), id, attr);
	if (r < 0)
		return r;
	r = sysfs_read(root_fd, path, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return zram_parse_fields(buf, len, v, n);
}

int zram_read_bd_stat(int root_fd, unsigned id, uint64_t ret[3])
{
	return read_dev_fields(root_fd, id, "bd_stat", ret, 3);
}

int zram_read_bd_writes(int root_fd, const struct zram_dev *d, uint64_t *ret_pages)
{
	uint64_t v[3];
	int r = zram_read_bd_stat(root_fd, d->id, v);

	if (r < 0)
		return r;
	*ret_pages = zram_units_to_pages(d, v[2]);
	return 0;
}

int zram_read_disksize(int root_fd, unsigned id, uint64_t *ret)
{
	char path[64];
	int r = dev_path(path, sizeof(path), id, "disksize");

	return r < 0 ? r : sysfs_read_u64(root_fd, path, ret);
}

/* A whole attribute read by length (6.17+ NUL padding: the parsers take the count). */
static int read_dev_text(int root_fd, unsigned id, const char *attr, char *buf, size_t size,
			 size_t *ret_len)
{
	char path[64];
	int r = dev_path(path, sizeof(path), id, attr);

	return r < 0 ? r : sysfs_read(root_fd, path, buf, size, ret_len);
}

int zram_read_comp_algorithm(int root_fd, unsigned id, struct zram_algo_list *ret)
{
	char buf[4096];
	size_t len;
	int r = read_dev_text(root_fd, id, "comp_algorithm", buf, sizeof(buf), &len);

	return r < 0 ? r : zram_parse_algo_list(buf, len, ret);
}

int zram_read_recomp_algorithm(int root_fd, unsigned id, struct zram_recomp *ret)
{
	char buf[4096];
	size_t len;
	int r = read_dev_text(root_fd, id, "recomp_algorithm", buf, sizeof(buf), &len);

	return r < 0 ? r : zram_parse_recomp_listing(buf, len, ret);
}

int zram_open_slots(int root_fd, unsigned id, int *ret_fd)
{
	char path[32];
	int r = str_printf(path, sizeof(path), "dev/zram%u", id);

	if (r == 0)
		r = sysfs_open_read(root_fd, path, ret_fd);
	if (r == 0)
		(void)posix_fadvise(*ret_fd, 0, 0, POSIX_FADV_RANDOM);
	return r;
}

int zram_read_write_sig(int root_fd, unsigned id, uint64_t *ret)
{
	uint64_t st[12] = { 0 }, io[4];
	int r;

	/* 11 fields before 4.18, then discards (12-15), then flushes (5.5+). */
	r = read_dev_fields(root_fd, id, "stat", st, 12);
	if (r == -EINVAL)
		r = read_dev_fields(root_fd, id, "stat", st, 11);
	if (r < 0)
		return r;
	r = read_dev_fields(root_fd, id, "io_stat", io, 4);
	if (r < 0)
		return r;
	*ret = sat_add_u64(sat_add_u64(st[4], st[11]), io[3]);
	return 0;
}

int zram_read_sectors_read(int root_fd, unsigned id, uint64_t *ret)
{
	uint64_t st[3];
	int r = read_dev_fields(root_fd, id, "stat", st, 3);

	if (r == 0)
		*ret = st[2];
	return r;
}

int zram_read_initstate(int root_fd, unsigned id, bool *ret)
{
	char path[64];
	uint64_t v;
	int r;

	r = dev_path(path, sizeof(path), id, "initstate");
	if (r < 0)
		return r;
	r = sysfs_read_u64(root_fd, path, &v);
	if (r < 0)
		return r;
	if (v > 1)
		return -EINVAL;
	*ret = v == 1;
	return 0;
}

static bool attr_exists(int root_fd, unsigned id, const char *attr)
{
	char path[96];

	if (dev_path(path, sizeof(path), id, attr) < 0)
		return false;
	return sysfs_exists(root_fd, path) == 0;
}

/* A device that vanished between two reads (hot_remove) shows up as ENOENT. */
static int gone(int r)
{
	return r == -ENOENT ? -ENODEV : r;
}

/*
 * What zram_probe reads only where the device has it: the optional statistics (a device
 * without them is still usable) and the backing device.
 */
static int probe_optional(int root_fd, unsigned id, struct zram_dev *d, const char **ret_attr)
{
	char path[96], buf[4096];
	size_t len;
	int r;

	(void)dev_path(path, sizeof(path), id, "io_stat");
	if (sysfs_read(root_fd, path, buf, sizeof(buf), &len) == 0) {
		*ret_attr = "io_stat";
		if (zram_parse_fields(buf, len, d->io_stat, 4) < 0)
			return -EINVAL;
		d->has_io_stat = true;
	}
	(void)dev_path(path, sizeof(path), id, "bd_stat");
	if (sysfs_read(root_fd, path, buf, sizeof(buf), &len) == 0) {
		*ret_attr = "bd_stat";
		if (zram_parse_fields(buf, len, d->bd_stat, 3) < 0)
			return -EINVAL;
		d->has_bd_stat = true;
	}

	if (attr_exists(root_fd, id, "backing_dev")) {
		(void)dev_path(path, sizeof(path), id, "backing_dev");
		*ret_attr = "backing_dev";
		r = sysfs_read(root_fd, path, buf, sizeof(buf), &len);
		if (r < 0)
			return gone(r);
		r = zram_parse_backing_dev(buf, len, d->backing_dev, sizeof(d->backing_dev));
		if (r < 0)
			return r;
	}
	return 0;
}

int zram_probe(int root_fd, const struct kver *kv, enum tri config_idle_age, unsigned id,
	       struct zram_dev *ret, const char **ret_attr)
{
	struct zram_dev d = { .id = id };
	char path[96];
	int r;

	*ret_attr = NULL;
	(void)snprintf(d.name, sizeof(d.name), "zram%u", id);
	r = dev_path(path, sizeof(path), id, "");
	if (r < 0)
		return r;
	/* Only its absence means the device is gone: EACCES and the like are reported. */
	r = sysfs_exists(root_fd, path);
	if (r < 0)
		return gone(r);

	*ret_attr = "initstate";
	r = zram_read_initstate(root_fd, id, &d.initialized);
	if (r < 0)
		return gone(r);
	*ret_attr = "disksize";
	r = zram_read_disksize(root_fd, id, &d.disksize);
	if (r < 0)
		return gone(r);
	*ret_attr = "queue/physical_block_size";
	r = zram_read_page_size(root_fd, id, &d.page_size);
	if (r < 0)
		return gone(r);

	*ret_attr = "comp_algorithm";
	r = zram_read_comp_algorithm(root_fd, id, &d.comp);
	if (r < 0)
		return gone(r);

	*ret_attr = "mm_stat";
	r = zram_read_mm_stat(root_fd, id, &d.mm);
	if (r < 0)
		return gone(r);

	r = probe_optional(root_fd, id, &d, ret_attr);
	if (r < 0)
		return r;

	*ret_attr = "recomp_algorithm";
	bool recomp_files = attr_exists(root_fd, id, "recomp_algorithm") &&
			    attr_exists(root_fd, id, "recompress");
	if (recomp_files) {
		r = zram_read_recomp_algorithm(root_fd, id, &d.recomp);
		if (r < 0)
			return gone(r);
	}

	char bs[96];
	(void)str_printf(bs, sizeof(bs), "sys/kernel/debug/zram/zram%u/block_state", id);
	*ret_attr = NULL;
	int bs_r = sysfs_exists(root_fd, bs);
	zram_caps_derive(&d.caps, kv, recomp_files, attr_exists(root_fd, id, "algorithm_params"),
			 bs_r == 0, attr_exists(root_fd, id, "backing_dev"), config_idle_age);
	d.caps.block_state_err = bs_r;
	/* 6.19+ and 7.0+: keyed on the files, which exist exactly with CONFIG_ZRAM_WRITEBACK. */
	d.caps.wb_batch_size = d.caps.writeback && attr_exists(root_fd, id, "writeback_batch_size");
	d.caps.compressed_wb = d.caps.writeback && attr_exists(root_fd, id, "compressed_writeback");
	*ret = d;
	return 0;
}

int zram_parse_backing_dev(const char *s, size_t len, char *ret, size_t size)
{
	size_t n = len;

	while (n > 0 && is_sep(s[n - 1]))
		n--;
	if (n == 0 || n >= size || memchr(s, '\0', n))
		return -EINVAL;
	if (n == 4 && memcmp(s, "none", 4) == 0) {
		ret[0] = '\0';
		return 0;
	}
	memcpy(ret, s, n);
	ret[n] = '\0';
	return 0;
}

int zram_read_writeback_limit(int root_fd, const struct zram_dev *d, uint64_t *ret_pages)
{
	char path[64];
	uint64_t units;
	int r = dev_path(path, sizeof(path), d->id, "writeback_limit");

	if (r == 0)
		r = sysfs_read_u64(root_fd, path, &units);
	if (r == 0)
		*ret_pages = zram_units_to_pages(d, units);
	return r;
}

int zram_write(int root_fd, unsigned id, const char *attr, const char *cmd)
{
	char path[96], line[ZRAM_CMD_MAX + 2];
	int r;

	r = dev_path(path, sizeof(path), id, attr);
	if (r < 0)
		return r;
	r = str_printf(line, sizeof(line), "%s\n", cmd);
	if (r < 0)
		return r;
	r = sysfs_write(root_fd, path, line);
	/* Every attribute written here exists while the device does (callers check the
	 * capability first), so a missing file means the device was hot-removed. */
	return r == -ENOENT ? -ENODEV : r;
}
