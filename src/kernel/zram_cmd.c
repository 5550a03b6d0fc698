// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The validated command builders of zram.h: each turns a request into the exact text one
 * attribute accepts on this device's kernel, or refuses it (-EOPNOTSUPP, -ERANGE, -EINVAL,
 * -EBUSY) before anything is written. The device model, parsers and readers: zram.c.
 */
#include "zram.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int zram_build_recompress(const struct zram_dev *d, const struct recompress_cmd *c, char *buf,
			  size_t size)
{
	const char *type;
	size_t off;
	int r;

	if (!d->caps.multi_comp)
		return -EOPNOTSUPP;
	switch (c->type) {
	case PASS_HUGE_IDLE:
	case PASS_IDLE:
	case PASS_HUGE:
		type = pass_type_name(c->type);
		break;
	default:
		return -EINVAL;
	}
	/* 6.5+: threshold must be below huge_class_size (not exported, < PAGE_SIZE);
	 * 6.2-6.4: below PAGE_SIZE. Values in between are the kernel's to reject. */
	if (!zram_page_size_valid(d->page_size) || c->threshold >= d->page_size)
		return -EINVAL;
	if (c->max_pages && !d->caps.max_pages)
		return -EOPNOTSUPP;
	if (c->priority && !d->caps.priority)
		return -EOPNOTSUPP;
	if (c->priority && (c->priority > ZRAM_MAX_PRIO || !d->recomp.set[c->priority]))
		return -EINVAL;
	if (c->algo && (!zram_algo_name_valid(c->algo) || !zram_recomp_find(&d->recomp, c->algo)))
		return -EINVAL;

	r = str_printf(buf, size, "type=%s", type);
	if (r < 0)
		return r;
	off = strlen(buf);
	if (c->threshold) {
		r = str_printf(buf + off, size - off, " threshold=%u", c->threshold);
		if (r < 0)
			return r;
		off += strlen(buf + off);
	}
	if (c->algo) {
		r = str_printf(buf + off, size - off, " algo=%s", c->algo);
		if (r < 0)
			return r;
		off += strlen(buf + off);
	}
	if (c->priority) {
		r = str_printf(buf + off, size - off, " priority=%u", c->priority);
		if (r < 0)
			return r;
		off += strlen(buf + off);
	}
	if (c->max_pages) {
		r = str_printf(buf + off, size - off, " max_pages=%llu",
			       (unsigned long long)c->max_pages);
		if (r < 0)
			return r;
	}
	return 0;
}

int zram_build_recomp_algorithm(const struct zram_dev *d, const char *name, unsigned prio,
				char *buf, size_t size)
{
	if (!d->caps.multi_comp)
		return -EOPNOTSUPP;
	if (!zram_algo_name_valid(name) || prio < 1 || prio > ZRAM_MAX_PRIO)
		return -EINVAL;
	/* 6.12+ lists every backend that can be selected; 6.2-6.11 accept any crypto name. */
	if (d->caps.algorithm_params && d->comp.n > 0 && !zram_algo_list_has(&d->comp, name))
		return -ENOENT;
	return str_printf(buf, size, "algo=%s priority=%u", name, prio);
}

/*
 * A path the kernel reads for dict= (kernel_read_file_from_path, in the writer's mount
 * namespace): absolute, of letters, digits and "/_-.:@+" only (next_arg() would split at a
 * blank and unquote), no "." or ".." component, no "//".
 */
bool zram_dict_path_valid(const char *path)
{
	size_t len = path ? strlen(path) : 0;

	if (len < 2 || len >= ZRAM_DICT_PATH_MAX || path[0] != '/' || path[len - 1] == '/')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (!isalnum(c) && !strchr("/_-.:@+", c))
			return false;
		if (c == '/' && (path[i + 1] == '/' ||
				 (path[i + 1] == '.' && (path[i + 2] == '/' || !path[i + 2] ||
							 (path[i + 2] == '.' &&
							  (path[i + 3] == '/' || !path[i + 3]))))))
			return false;
	}
	return true;
}

int zram_build_algorithm_params_dict(const struct zram_dev *d, unsigned prio, bool has_level,
				     int level, const char *dict, char *buf, size_t size)
{
	size_t off;
	int r;

	if (!d->caps.algorithm_params)
		return -EOPNOTSUPP;
	/* 6.12-7.0: algorithm_params has no init check, and a write on an initialized
	 * device frees the zstd dictionary a running backend still uses (7.1+: EBUSY).
	 * Only ever before disksize. */
	if (d->initialized)
		return -EBUSY;
	if (prio < 1 || prio > ZRAM_MAX_PRIO || (!has_level && !dict))
		return -EINVAL;
	/* 7.3 checks levels only when disksize creates the backends, and a failed disksize
	 * resets every algorithm: refuse what the backend would refuse, on every version. */
	if (has_level && d->recomp.set[prio]) {
		int lo, hi;

		r = zram_level_range(d->recomp.name[prio], &lo, &hi);
		if (r == -EOPNOTSUPP)
			return r;
		if (r == 0 && (level < lo || level > hi))
			return -ERANGE;
	}
	/* 7.3 fails disksize with EOPNOTSUPP for dict= on deflate, lzo, lzo-rle and 842;
	 * only zstd's dictionaries are predicted (advise --dict): zstd only. (A --dry-run
	 * has not written the name: the caller checked its configuration.) */
	if (dict && d->recomp.set[prio] && strcmp(d->recomp.name[prio], "zstd") != 0)
		return -EOPNOTSUPP;
	if (dict && !zram_dict_path_valid(dict))
		return -EINVAL;
	r = str_printf(buf, size, "priority=%u", prio);
	off = r == 0 ? strlen(buf) : 0;
	if (r == 0 && has_level) {
		r = str_printf(buf + off, size - off, " level=%d", level);
		off += r == 0 ? strlen(buf + off) : 0;
	}
	if (r == 0 && dict)
		r = str_printf(buf + off, size - off, " dict=%s", dict);
	return r;
}

int zram_build_algorithm_params(const struct zram_dev *d, unsigned prio, int level, char *buf,
				size_t size)
{
	return zram_build_algorithm_params_dict(d, prio, true, level, NULL, buf, size);
}

int zram_level_range(const char *algo, int *ret_min, int *ret_max)
{
	/* The backends' own checks (7.3 backend_*.c setup_params, at disksize). */
	static const struct {
		const char *name;
		int min, max;
	} t[] = {
		{ "zstd", -131072, 22 }, /* zstd_min_clevel() .. zstd_max_clevel() */
		{ "deflate", -1, 9 },	 /* Z_DEFAULT_COMPRESSION .. Z_BEST_COMPRESSION */
		{ "lz4", 1, INT_MAX },	 /* the acceleration */
		{ "lz4hc", 1, 16 },	 /* LZ4HC_MAX_CLEVEL */
		{ "lzo", 0, -1 },	 /* no levels: -EOPNOTSUPP */
		{ "lzo-rle", 0, -1 },
		{ "842", 0, -1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		if (strcmp(algo, t[i].name) != 0)
			continue;
		*ret_min = t[i].min;
		*ret_max = t[i].max;
		return t[i].min <= t[i].max ? 0 : -EOPNOTSUPP;
	}
	return -ENOENT;
}

int zram_build_writeback(const struct zram_dev *d, enum wb_type t, char *buf, size_t size)
{
	if (!d->caps.writeback)
		return -EOPNOTSUPP;
	if ((unsigned)t >= WB_NR_TYPES)
		return -EINVAL;
	if (!d->backing_dev[0])
		return -ENODEV;
	/* 6.2-6.15 compare the whole buffer with the mode names (sysfs_streq); 6.16+ parse
	 * key=value pairs, and type= scans the whole device and ends the parsing. */
	if (d->caps.wb_type_key)
		return str_printf(buf, size, "type=%s", wb_type_name(t));
	return str_printf(buf, size, "%s", wb_type_name(t));
}

/* r[i] is a range the device has, after r[i - 1]. */
static bool wb_range_ok(const struct zram_dev *d, const struct wb_range *r, size_t i)
{
	/* the kernel's nr_pages: disksize >> PAGE_SHIFT (6.2-7.3 zram_drv.c) */
	uint64_t nr_pages = d->disksize / d->page_size;

	if (r[i].lo > r[i].hi || r[i].hi >= nr_pages)
		return false;
	return i == 0 || r[i].lo > r[i - 1].hi;
}

int zram_build_writeback_index(const struct zram_dev *d, const struct wb_range *r, size_t n,
			       size_t *pos, uint64_t *off, char *buf, size_t size)
{
	size_t used = 0;
	int k;

	if (!d->caps.writeback)
		return -EOPNOTSUPP;
	if (!d->backing_dev[0])
		return -ENODEV;
	if (!zram_page_size_valid(d->page_size))
		return -EINVAL;
	if (*pos >= n)
		return -ENOENT;
	if (!d->caps.wb_type_key) {
		/* 6.2-6.15: "page_index=N" and nothing else (kstrtol on the rest of the buffer) */
		if (!wb_range_ok(d, r, *pos) || *off > r[*pos].hi - r[*pos].lo)
			return -ERANGE;
		k = str_printf(buf, size, "page_index=%llu",
			       (unsigned long long)(r[*pos].lo + *off));
		if (k < 0)
			return k;
		if (r[*pos].lo + *off == r[*pos].hi) {
			(*pos)++;
			*off = 0;
		} else {
			(*off)++;
		}
		return 0;
	}
	/* 6.16+: several keys, each scanned as it is parsed; no type= (it ends the parsing
	 * and would scan the whole device) */
	for (; *pos < n; (*pos)++, *off = 0) {
		uint64_t lo, hi = r[*pos].hi;
		char key[64];

		if (!wb_range_ok(d, r, *pos) || *off > hi - r[*pos].lo)
			return -ERANGE;
		lo = r[*pos].lo + *off;
		if (lo == hi)
			k = str_printf(key, sizeof(key), "%spage_index=%llu", used ? " " : "",
				       (unsigned long long)lo);
		else
			k = str_printf(key, sizeof(key), "%spage_indexes=%llu-%llu",
				       used ? " " : "", (unsigned long long)lo,
				       (unsigned long long)hi);
		if (k < 0)
			return k;
		if (used + strlen(key) + 1 > size)
			break;
		memcpy(buf + used, key, strlen(key) + 1);
		used += strlen(key);
	}
	return used ? 0 : -ENOSPC;
}

int zram_build_writeback_limit(const struct zram_dev *d, uint64_t pages, char *buf, size_t size)
{
	uint64_t units;

	if (!d->caps.writeback)
		return -EOPNOTSUPP;
	if (!zram_page_size_valid(d->page_size))
		return -EINVAL;
	/* The limit counts 4 KiB units, and each page written back takes PAGE_SIZE / 4096
	 * of them (6.2-7.3 zram_drv.c: bd_wb_limit -= 1UL << (PAGE_SHIFT - 12)). <= 6.18 a
	 * limit that is not a multiple of that wraps (ABI pitfall 20; 6.19+ rounds down):
	 * whole pages never do, and a saturated limit is rounded down to whole pages too. */
	units = sat_mul_u64(pages, zram_units_per_page(d));
	units -= units % zram_units_per_page(d);
	return str_printf(buf, size, "%llu", (unsigned long long)units);
}

int zram_build_writeback_batch_size(const struct zram_dev *d, uint64_t n, char *buf, size_t size)
{
	if (!d->caps.wb_batch_size)
		return -EOPNOTSUPP;
	if (n < 1 || n > UINT32_MAX)
		return -EINVAL;
	return str_printf(buf, size, "%llu", (unsigned long long)n);
}

bool zram_blockdev_path_valid(const char *path)
{
	size_t len = strlen(path);

	if (len <= 5 || len >= 128 || strncmp(path, "/dev/", 5) != 0)
		return false;
	for (const char *p = path; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/_-.:+", *p))
			return false;
	for (const char *p = path + 4; p; p = strchr(p + 1, '/')) {
		size_t c = strcspn(p + 1, "/");

		if (c == 0 || (c == 1 && p[1] == '.') || (c == 2 && p[1] == '.' && p[2] == '.'))
			return false;
	}
	return true;
}

int zram_build_backing_dev(const struct zram_dev *d, const char *path, char *buf, size_t size)
{
	if (!d->caps.writeback)
		return -EOPNOTSUPP;
	if (d->initialized)
		return -EBUSY; /* the kernel: -EBUSY after disksize */
	if (!zram_blockdev_path_valid(path))
		return -EINVAL;
	return str_printf(buf, size, "%s", path);
}

int zram_build_compressed_writeback(const struct zram_dev *d, bool on, char *buf, size_t size)
{
	if (!d->caps.compressed_wb)
		return -EOPNOTSUPP;
	if (d->initialized)
		return -EBUSY;
	return str_printf(buf, size, "%s", on ? "1" : "0");
}

int zram_build_idle(const struct zram_dev *d, uint64_t age_sec, char *buf, size_t size)
{
	if (age_sec == 0)
		return str_printf(buf, size, "all");
	if (d->caps.idle_age == TRI_NO)
		return -EOPNOTSUPP;
	/* 7.0 parses a u32; <= 6.19 multiplies by 1e9 in u64. One year is far below both. */
	if (age_sec > 31536000)
		return -ERANGE;
	return str_printf(buf, size, "%llu", (unsigned long long)age_sec);
}
