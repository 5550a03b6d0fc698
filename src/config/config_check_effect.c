// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --check-config: settings that load but cannot take effect on this machine or as written
 * (config_check_internal.h). Each is a warning that names the key's FILE:LINE and says what
 * happens instead. Kernel-wide facts (config options, version, page size) come from the
 * first probed device; without one nothing here is said of the kernel.
 */
#include "config_check_internal.h"

#include "sysfs.h"
#include "units.h"
#include "zsmalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* "FILE:LINE: [warning: ]WHAT: message"; WHAT is "key 'NAME'" or "section [zramN]". */
void check_report(struct check *ck, bool warn, struct cfg_origin o, const char *what,
		  const char *fmt, ...)
{
	const char *path = o.file < ck->n_paths ? ck->paths[o.file] : "(configuration)";
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!o.line) /* a built-in default: no line set it */
		cfg_sink_add(warn ? &ck->warns : &ck->errs, "%s: %s%s (default): %s", path,
			     warn && !ck->daemon ? "warning: " : "", what, msg);
	else
		cfg_sink_add(warn ? &ck->warns : &ck->errs, "%s:%u: %s%s: %s", path, o.line,
			     warn && !ck->daemon ? "warning: " : "", what, msg);
}

/* Whether scope s sets key bit on a line of its own (not a built-in default). */
static bool wrote(const struct scope *s, uint64_t bit)
{
	return (s->set & bit) && check_origin(s->eff, bit).line;
}

static void warn_key(struct check *ck, const struct scope *s, uint64_t bit, const char *key,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void warn_key(struct check *ck, const struct scope *s, uint64_t bit, const char *key,
		     const char *fmt, ...)
{
	char what[64], msg[384];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)snprintf(what, sizeof(what), "key '%s'", key);
	check_report(ck, true, check_origin(s->eff, bit), what, "%s", msg);
}

static const struct check_machine *kernel_of(const struct check *ck)
{
	return ck->m && ck->m->have_caps ? ck->m : NULL;
}

/* Writeback asked for, with a backing device or file, on a kernel that cannot write back. */
static void check_wb_kernel(struct check *ck, const struct scope *s)
{
	const struct check_machine *m = kernel_of(ck);
	const struct dev_config *d = s->eff;
	const char *key = "writeback";
	uint64_t bit = CFG_K_WB;

	if (!m || m->caps.writeback || !d->writeback ||
	    (!d->backing_device[0] && !d->backing_file[0]) ||
	    !(s->set & (CFG_K_WB | CFG_K_BACKING_DEV | CFG_K_BACKING_FILE)))
		return;
	if (!check_origin(d, bit).line) {
		bit = d->backing_file[0] ? CFG_K_BACKING_FILE : CFG_K_BACKING_DEV;
		key = d->backing_file[0] ? "backing-file" : "backing-device";
	}
	warn_key(ck, s, bit, key,
		 "writeback = yes with %s %s in [%s], but this kernel (%s) has no "
		 "CONFIG_ZRAM_WRITEBACK: no backing device can be set and nothing is written back",
		 d->backing_file[0] ? "backing-file" : "backing-device",
		 d->backing_file[0] ? d->backing_file : d->backing_device, s->label, m->release);
}

static const char *const prio_key[PASS_NR_TYPES] = {
	[PASS_HUGE_IDLE] = "priority-huge-idle",
	[PASS_IDLE] = "priority-idle",
	[PASS_HUGE] = "priority-huge",
};
static const uint64_t prio_bit[PASS_NR_TYPES] = {
	[PASS_HUGE_IDLE] = CFG_K_PRIO_HUGE_IDLE,
	[PASS_IDLE] = CFG_K_PRIO_IDLE,
	[PASS_HUGE] = CFG_K_PRIO_HUGE,
};

/* Before 6.12 recompress has no priority=: a step runs every secondary, no cold tier. */
static void check_prio_kernel(struct check *ck, const struct scope *s)
{
	const struct check_machine *m = kernel_of(ck);
	const struct dev_config *d = s->eff;

	if (!m || m->caps.priority || ck->daemon) /* the daemon notes it per device */
		return;
	for (unsigned t = 0; t < PASS_NR_TYPES; t++)
		if (d->priority[t] && wrote(s, prio_bit[t]))
			warn_key(ck, s, prio_bit[t], prio_key[t],
				 "priority %u, but this kernel (%s) has no recompress priority= "
				 "(Linux 6.12+): the %s pass uses every secondary in order instead",
				 d->priority[t], m->release, pass_type_name((enum pass_type)t));
	if (d->cold_idle_age_sec && wrote(s, CFG_K_COLD_AGE))
		warn_key(ck, s, CFG_K_COLD_AGE, "cold-idle-age-sec",
			 "this kernel (%s) has no recompress priority= (Linux 6.12+): the cold "
			 "tier never runs",
			 m->release);
}

/* Keys of attributes or write options that a newer kernel brought. */
static void check_newer_kernel(struct check *ck, const struct scope *s)
{
	const struct check_machine *m = kernel_of(ck);
	const struct dev_config *d = s->eff;

	if (!m)
		return;
	if (!m->caps.algorithm_params && d->n_params && wrote(s, CFG_K_PARAMS))
		warn_key(ck, s, CFG_K_PARAMS, "algorithm-params",
			 "needs Linux 6.12+ (algorithm_params), this kernel is %s: ignored, the "
			 "secondaries use their default levels",
			 m->release);
	if (!m->caps.max_pages && wrote(s, CFG_K_BATCH))
		warn_key(ck, s, CFG_K_BATCH, "max-pages-per-batch",
			 "needs Linux 6.10+ (recompress max_pages=), this kernel is %s: ignored, "
			 "one recompress write does a whole step",
			 m->release);
	if (!m->caps.wb_batch_size && d->wb_batch_size && wrote(s, CFG_K_WB_BATCH))
		warn_key(ck, s, CFG_K_WB_BATCH, "writeback-batch-size",
			 "needs Linux 6.19+ (writeback_batch_size), this kernel is %s: ignored",
			 m->release);
	if (!m->caps.compressed_wb && d->compressed_writeback && wrote(s, CFG_K_COMPRESSED_WB))
		warn_key(ck, s, CFG_K_COMPRESSED_WB, "compressed-writeback",
			 "needs Linux 7.0+ (compressed_writeback), this kernel is %s: ignored, "
			 "pages are written back decompressed",
			 m->release);
}

/* Without access times (TRACK_ENTRY_ACTIME 6.8+, MEMORY_TRACKING before) "idle N" is "all". */
static void check_idle_age(struct check *ck, const struct scope *s)
{
	const struct check_machine *m = kernel_of(ck);
	const struct dev_config *d = s->eff;
	const char *opt;

	if (!m || m->caps.idle_age != TRI_NO)
		return;
	opt = kver_ge(&m->kv, 6, 8, 0) ? "CONFIG_ZRAM_TRACK_ENTRY_ACTIME"
				       : "CONFIG_ZRAM_MEMORY_TRACKING";
	if (d->idle_age_max_sec && wrote(s, CFG_K_AGE_MAX))
		warn_key(ck, s, CFG_K_AGE_MAX, "idle-age-max-sec",
			 "this kernel (%s) has no %s, so zram keeps no access times: every page "
			 "is marked idle at once, whatever its age",
			 m->release, opt);
	else if (d->idle_age_min_sec && wrote(s, CFG_K_AGE_MIN))
		warn_key(ck, s, CFG_K_AGE_MIN, "idle-age-min-sec",
			 "this kernel (%s) has no %s, so zram keeps no access times: every page "
			 "is marked idle at once, whatever its age",
			 m->release, opt);
}

/* 6.5+: recompress refuses threshold >= huge_class_size (zsmalloc.h), below the page size. */
static void check_threshold(struct check *ck, const struct scope *s)
{
	const struct check_machine *m = kernel_of(ck);
	const struct dev_config *d = s->eff;
	size_t huge;

	if (!m || !kver_ge(&m->kv, 6, 5, 0) || !wrote(s, CFG_K_THRESHOLD))
		return;
	huge = zs_huge_class_size(m->page_size);
	if (!huge || d->threshold_bytes < huge)
		return;
	warn_key(ck, s, CFG_K_THRESHOLD, "threshold-bytes",
		 "%" PRIu32 " is not below this kernel's huge_class_size (%zu with %" PRIu32
		 " KiB pages): every recompress write with it fails with EINVAL",
		 d->threshold_bytes, huge, m->page_size / 1024);
}

/* The daemon reads these from [global] only: a [zramN] line is never used. */
static void check_global_only(struct check *ck, const struct scope *s)
{
	char v[UNITS_FMT_LEN];

	if (!s->sec || !(s->set & CFG_K_MEM_STALL))
		return;
	warn_key(ck, s, CFG_K_MEM_STALL, "memory-stall-us",
		 "the memory pressure trigger is system-wide and set from [global] "
		 "(memory-stall-us = %s): this line in [%s] is never used",
		 cfg_shown(v, sizeof(v), &ck->c->global, CFG_K_MEM_STALL,
			   ck->c->global.memory_stall_us, UNIT_USEC),
		 s->label);
}

/* policy.c: the share under pressure is never below the share at rest (5% when that is off). */
static void check_cpu_share(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	uint64_t base = d->cpu_share_max_percent ? d->cpu_share_max_percent : 5;
	const char *key;
	struct cfg_origin o, ob;
	uint64_t bit;

	if (!(s->set & (CFG_K_CPU_SHARE | CFG_K_CPU_SHARE_PRESSURE)) ||
	    d->cpu_share_pressure_percent >= base)
		return;
	o = check_origin(d, CFG_K_CPU_SHARE_PRESSURE);
	ob = check_origin(d, CFG_K_CPU_SHARE);
	bit = CFG_K_CPU_SHARE_PRESSURE;
	key = "cpu-share-pressure-percent";
	if (!o.line || (ob.line && (ob.file > o.file || (ob.file == o.file && ob.line > o.line)))) {
		bit = CFG_K_CPU_SHARE;
		key = "cpu-share-max-percent";
	}
	warn_key(ck, s, bit, key,
		 "cpu-share-pressure-percent (%" PRIu64 "%%) is below cpu-share-max-percent "
		 "(%" PRIu64 "%%%s) in [%s]: the share under memory pressure is raised to %" PRIu64
		 "%%",
		 d->cpu_share_pressure_percent, d->cpu_share_max_percent,
		 d->cpu_share_max_percent ? "" : ", off: a paced pass gets 5%", s->label, base);
}

/* A backing file is created (backing setup) but nothing is ever written to it. */
static void check_backing_unused(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	uint64_t bit = CFG_K_WB;
	const char *key = "writeback";

	if (!d->backing_file[0] || d->writeback || !(s->set & (CFG_K_BACKING_FILE | CFG_K_WB)))
		return;
	if (!check_origin(d, CFG_K_WB).line || !(s->set & CFG_K_WB)) {
		bit = CFG_K_BACKING_FILE;
		key = "backing-file";
	}
	warn_key(ck, s, bit, key,
		 "backing-file %s in [%s] with writeback = no: the file is created and attached "
		 "(backing-file-size) but nothing is ever written to it",
		 d->backing_file, s->label);
}

static bool algos_have(const struct dev_config *d, const char *name)
{
	for (unsigned i = 0; i < d->n_algos; i++)
		if (strcmp(d->algos[i], name) == 0)
			return true;
	return false;
}

/* A dictionary is loaded for zstd secondaries only. */
static void check_dict(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	const char *key = "zstd-dictionary";
	uint64_t bit = CFG_K_DICT;

	if (d->dict_use == DICT_USE_NO || d->algos_auto || algos_have(d, "zstd") ||
	    !(s->set & (CFG_K_DICT | CFG_K_ALGOS)))
		return;
	if (!check_origin(d, CFG_K_DICT).line) {
		bit = CFG_K_ALGOS;
		key = "recompress-algorithms";
	}
	warn_key(ck, s, bit, key,
		 "zstd-dictionary is on but recompress-algorithms of [%s] has no zstd: no "
		 "dictionary is used",
		 s->label);
}

/* Whether scope s decides the secondaries of device id. */
static bool covers_algos(const struct check *ck, const struct scope *s, unsigned id)
{
	const struct dev_section *sec = cfg_find_section(ck->c, id);

	if (!config_device_selected(ck->c, id))
		return false;
	if (s->sec)
		return s->sec->id == id;
	return !sec || !(sec->cfg.set & CFG_K_ALGOS);
}

/* Recompressing with the primary algorithm (at its level) gains nothing. */
static void check_same_as_primary(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;

	if (!ck->m || d->algos_auto || !(s->set & CFG_K_ALGOS))
		return;
	for (unsigned i = 0; i < ck->m->n; i++) {
		const struct check_dev *dev = &ck->m->devs[i];

		if (!dev->probed || !dev->primary[0] || !covers_algos(ck, s, dev->id) ||
		    !algos_have(d, dev->primary) || d->n_params)
			continue;
		warn_key(ck, s, CFG_K_ALGOS, "recompress-algorithms",
			 "%s is also the primary algorithm of zram%u: recompressing with it at "
			 "the same level gains nothing",
			 dev->primary, dev->id);
	}
}

void check_effect_scope(struct check *ck, const struct scope *s)
{
	check_wb_kernel(ck, s);
	check_prio_kernel(ck, s);
	check_newer_kernel(ck, s);
	check_idle_age(ck, s);
	check_threshold(ck, s);
	check_global_only(ck, s);
	check_cpu_share(ck, s);
	check_backing_unused(ck, s);
	check_dict(ck, s);
	check_same_as_primary(ck, s);
}

/* zram-recompd.service has PrivateTmp=yes: its /tmp and /var/tmp are its own. */
void check_effect_global(struct check *ck)
{
	const struct config *c = ck->c;
	const char *p = c->metrics_file;
	char what[64];

	if (!*p)
		return;
	(void)snprintf(what, sizeof(what), "key 'metrics-file'");
	if (strncmp(p, "/tmp/", 5) == 0 || strncmp(p, "/var/tmp/", 9) == 0)
		check_report(ck, true, c->global_origin[CFG_G_METRICS_FILE], what,
			     "%s: zram-recompd.service has PrivateTmp=yes, so the daemon writes "
			     "it into a /tmp of its own that nothing else sees",
			     p);
	else if (ck->m && ck->m->metrics_dir < 0)
		check_report(ck, true, c->global_origin[CFG_G_METRICS_FILE], what,
			     "%s: its directory cannot be opened (%s): the daemon writes no "
			     "metrics until it exists",
			     p, strerror(-ck->m->metrics_dir));
}

int check_metrics_dir(int root_fd, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, r;

	if (path[0] != '/' || !slash || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	if (slash == path)
		return 1;
	memcpy(dir, path + 1, (size_t)(slash - path) - 1);
	dir[slash - path - 1] = '\0';
	r = sysfs_open_dir_path(root_fd, dir, &fd);
	if (r < 0)
		return r;
	close(fd);
	return 1;
}
