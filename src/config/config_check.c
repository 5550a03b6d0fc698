// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --check-config's checks beyond loading (include/config_check.h). Loading accepts any
 * plausible algorithm name and level, since a kernel may offer a backend this program
 * does not know; here a name is checked against the zram backends known to compress.c and
 * zram.c (and the running kernel's comp_algorithm, which wins), a level against its
 * backend's range (zram_level_range(), what 7.3 enforces at disksize), and every setting
 * that cannot take effect is named. Each rule looks at [global] and at each [zramN]
 * section that sets one of its keys (a section that does not repeats [global]'s result).
 */
#include "config_check_internal.h"

#include "compress.h"
#include "host.h"
#include "sysfs.h"
#include "units.h"
#include "util.h"
#include "zram.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void key_what(char *buf, size_t size, const char *key)
{
	(void)snprintf(buf, size, "key '%s'", key);
}

/* The later of the origins of two keys (where the conflict was completed). */
static struct cfg_origin later(const struct dev_config *d, uint64_t a, uint64_t b, const char **key,
			       const char *ka, const char *kb)
{
	struct cfg_origin oa = check_origin(d, a), ob = check_origin(d, b);
	bool b_later = ob.file > oa.file || (ob.file == oa.file && ob.line > oa.line);

	*key = b_later ? kb : ka;
	return b_later ? ob : oa;
}

/* ---- algorithm names and levels ---- */

/* The zram backends this program knows: compress.c's models, and 842 (not modelled). */
static bool backend_known(const char *name)
{
	enum comp_algo a;

	return comp_algo_from_name(name, &a) == 0 || strcmp(name, "842") == 0;
}

static void backend_list(char *buf, size_t size)
{
	size_t o = (size_t)snprintf(buf, size, "842");

	for (unsigned a = 0; a < COMP_NR_ALGOS && o < size; a++)
		o += (size_t)snprintf(buf + o, size - o, ", %s", comp_algo_name((enum comp_algo)a));
}

/* "; did you mean 'zstd'?" for a name at most 2 edits from a known backend, else "". */
static void backend_suggestion(const char *name, char *buf, size_t size)
{
	const char *best = NULL;
	unsigned best_d = 3;

	for (unsigned a = 0; a <= COMP_NR_ALGOS; a++) {
		const char *k = a < COMP_NR_ALGOS ? comp_algo_name((enum comp_algo)a) : "842";
		unsigned d = str_edit_distance(name, k);

		if (d < best_d && d < strlen(name)) {
			best_d = d;
			best = k;
		}
	}
	buf[0] = '\0';
	if (best)
		(void)snprintf(buf, size, "; did you mean '%s'?", best);
}

static void kernel_list(const struct check_machine *m, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < m->avail.n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? " " : "", m->avail.name[i]);
}

static void check_names(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	struct cfg_origin o = check_origin(d, CFG_K_ALGOS);
	char what[64], list[128], hint[64];

	if (!(s->set & CFG_K_ALGOS) || d->algos_auto)
		return;
	key_what(what, sizeof(what), "recompress-algorithms");
	/* The news that matters there, once: any list is unused (no recomp_algorithm). */
	if (ck->m && ck->m->no_multi_comp && !s->sec)
		check_report(ck, true, o, what,
			     "this kernel lacks CONFIG_ZRAM_MULTI_COMP (zram%u has no "
			     "recomp_algorithm): "
			     "nothing will be recompressed on this machine",
			     ck->m->no_multi_comp - 1);
	for (unsigned i = 0; i < d->n_algos; i++) {
		const char *name = d->algos[i];
		bool offered =
			ck->m && ck->m->have_avail && zram_algo_list_has(&ck->m->avail, name);

		if (!backend_known(name) && !offered) {
			backend_list(list, sizeof(list));
			backend_suggestion(name, hint, sizeof(hint));
			check_report(ck, false, o, what,
				     "'%s' is not a compression backend of zram (%s)%s", name, list,
				     hint);
		} else if (ck->m && ck->m->have_avail && !offered && !ck->m->no_multi_comp) {
			/* a backend of zram this kernel lacks: another kernel may have it */
			kernel_list(ck->m, list, sizeof(list));
			check_report(
				ck, true, o, what,
				"'%s' is not offered by this kernel (comp_algorithm: %s): a device "
				"set up with this list gets no secondary algorithm",
				name, list);
		}
	}
}

static void check_levels(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	struct cfg_origin o = check_origin(d, CFG_K_PARAMS);
	char what[64];

	if (!(s->set & (CFG_K_ALGOS | CFG_K_PARAMS)) || d->algos_auto || !d->n_params)
		return;
	key_what(what, sizeof(what), "algorithm-params");
	for (unsigned i = 0; i < d->n_algos; i++) {
		int lo, hi, r;

		if (!d->has_level[i])
			continue;
		r = zram_level_range(d->algos[i], &lo, &hi);
		if (r == -EOPNOTSUPP)
			check_report(ck, false, o, what,
				     "%s (priority %u) has no compression levels: Linux 7.3+ fails "
				     "disksize with EOPNOTSUPP and the device gets no secondary",
				     d->algos[i], i + 1);
		else if (r == 0 && (d->level[i] < lo || d->level[i] > hi))
			check_report(ck, false, o, what,
				     "level %d is out of range for %s (%d to %d): Linux 7.3+ fails "
				     "disksize with EINVAL and the device gets no secondary",
				     d->level[i], d->algos[i], lo, hi);
	}
}

/* ---- the configured secondaries against a device's ---- */

/* Whether cfg's list could be written to a device of this kernel (avail: its comp_algorithm;
 * NULL or empty: unknown): every name offered and every level within its backend's range. */
static bool algos_applicable(const struct dev_config *cfg, const struct zram_algo_list *avail)
{
	for (unsigned i = 0; i < cfg->n_algos; i++) {
		const char *name = cfg->algos[i];
		int lo, hi, r;

		if (avail && avail->n ? !zram_algo_list_has(avail, name) : !backend_known(name))
			return false;
		if (!cfg->has_level[i])
			continue;
		r = zram_level_range(name, &lo, &hi);
		if (r == -EOPNOTSUPP || (r == 0 && (cfg->level[i] < lo || cfg->level[i] > hi)))
			return false;
	}
	return true;
}

/* A device's secondaries by priority, "zstd deflate" ("#2 zstd" after a gap). */
static void have_list(const struct zram_recomp *have, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned p = 1; p <= ZRAM_MAX_PRIO && o < size; p++) {
		if (!have->set[p])
			continue;
		if (have->gap)
			o += (size_t)snprintf(buf + o, size - o, "%s#%u %s", o ? " " : "", p,
					      have->name[p]);
		else
			o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? " " : "",
					      have->name[p]);
	}
}

bool config_algos_note(const struct dev_config *cfg, const char *dev,
		       const struct zram_recomp *have, const struct zram_algo_list *avail,
		       char *buf, size_t size)
{
	char want[CFG_MAX_ALGOS * (CFG_ALGO_NAME_MAX + 1)], runs[128];
	bool differs = false;
	size_t o = 0;

	buf[0] = want[0] = '\0';
	if (cfg->algos_auto || !cfg->n_algos || !have->count || !algos_applicable(cfg, avail))
		return false;
	for (unsigned i = 0; i < CFG_MAX_ALGOS && i < ZRAM_MAX_PRIO; i++) {
		bool in_cfg = i < cfg->n_algos;

		differs |= in_cfg != have->set[i + 1] ||
			   (in_cfg && strcmp(cfg->algos[i], have->name[i + 1]) != 0);
		if (in_cfg && o < sizeof(want))
			o += (size_t)snprintf(want + o, sizeof(want) - o, "%s%s", i ? " " : "",
					      cfg->algos[i]);
	}
	if (!differs)
		return false;
	have_list(have, runs, sizeof(runs));
	(void)snprintf(buf, size,
		       "runs secondary algorithms '%s', not the configured '%s' (a device "
		       "keeps its list until it is set up again); fix: zram-recompd adopt %s",
		       runs, want, dev);
	return true;
}

/* ---- settings that cannot take effect ---- */

static void check_wb_budget(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	const char *key;
	struct cfg_origin o;
	char what[64], pass[UNITS_FMT_LEN], day[UNITS_FMT_LEN];

	if (!(s->set & (CFG_K_WB_DAY | CFG_K_WB_PASS)) ||
	    d->wb_bytes_per_pass <= d->wb_bytes_per_day)
		return;
	o = later(d, CFG_K_WB_DAY, CFG_K_WB_PASS, &key, "writeback-bytes-per-day",
		  "writeback-bytes-per-pass");
	key_what(what, sizeof(what), key);
	check_report(
		ck, true, o, what,
		"writeback-bytes-per-pass (%s) is above writeback-bytes-per-day (%s) in [%s]: "
		"a pass never writes more than the day's budget",
		cfg_shown(pass, sizeof(pass), d, CFG_K_WB_PASS, d->wb_bytes_per_pass, UNIT_BYTES),
		cfg_shown(day, sizeof(day), d, CFG_K_WB_DAY, d->wb_bytes_per_day, UNIT_BYTES),
		s->label);
}

static const char *const prio_keys[PASS_NR_TYPES] = {
	[PASS_HUGE_IDLE] = "priority-huge-idle",
	[PASS_IDLE] = "priority-idle",
	[PASS_HUGE] = "priority-huge",
};
static const uint64_t prio_bits[PASS_NR_TYPES] = {
	[PASS_HUGE_IDLE] = CFG_K_PRIO_HUGE_IDLE,
	[PASS_IDLE] = CFG_K_PRIO_IDLE,
	[PASS_HUGE] = CFG_K_PRIO_HUGE,
};

static void check_cold(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	struct cfg_origin o = check_origin(d, CFG_K_COLD_PRIO);
	const char *key = "cold-priority";
	char what[64];

	/* cold-priority without a cold tier is not reported: --print-config sets every key. */
	if (!(s->set & (CFG_K_ALGOS | CFG_K_COLD_PRIO | CFG_K_COLD_AGE)) || d->algos_auto ||
	    !d->cold_idle_age_sec || d->cold_priority <= d->n_algos)
		return;
	if (!o.line)
		o = later(d, CFG_K_COLD_AGE, CFG_K_ALGOS, &key, "cold-idle-age-sec",
			  "recompress-algorithms");
	key_what(what, sizeof(what), key);
	check_report(
		ck, true, o, what,
		"cold-priority = %u but recompress-algorithms of [%s] has %u algorithm%s: the cold "
		"tier never runs",
		d->cold_priority, s->label, d->n_algos, d->n_algos == 1 ? "" : "s");
}

static void check_priorities(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	char what[64];

	if (d->algos_auto)
		return;
	for (unsigned t = 0; t < PASS_NR_TYPES; t++) {
		struct cfg_origin o = check_origin(d, prio_bits[t]);

		if (!(s->set & (prio_bits[t] | CFG_K_ALGOS)) || d->priority[t] <= d->n_algos)
			continue;
		key_what(what, sizeof(what), prio_keys[t]);
		check_report(
			ck, true, o, what,
			"priority %u but recompress-algorithms of [%s] has %u algorithm%s: the %s "
			"pass uses every secondary instead",
			d->priority[t], s->label, d->n_algos, d->n_algos == 1 ? "" : "s",
			pass_type_name((enum pass_type)t));
	}
	check_cold(ck, s);
}

static const struct check_dev *machine_dev(const struct check_machine *m, unsigned id)
{
	for (unsigned i = 0; m && i < m->n; i++)
		if (m->devs[i].id == id)
			return &m->devs[i];
	return NULL;
}

/* Whether scope s decides device id's writeback settings. */
static bool scope_covers(const struct check *ck, const struct scope *s, unsigned id)
{
	const struct dev_section *sec = cfg_find_section(ck->c, id);

	if (!config_device_selected(ck->c, id))
		return false;
	if (s->sec)
		return s->sec->id == id;
	return !sec || !(sec->cfg.set & (CFG_K_WB | CFG_K_BACKING_DEV | CFG_K_BACKING_FILE));
}

static void check_backing(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	struct cfg_origin o = check_origin(d, CFG_K_WB);
	char what[64];

	if (!(s->set & (CFG_K_WB | CFG_K_BACKING_DEV)) || !d->writeback || d->backing_device[0] ||
	    d->backing_file[0])
		return;
	key_what(what, sizeof(what), "writeback");
	if (!ck->m || !ck->m->known) {
		check_report(
			ck, true, o, what,
			"yes without backing-device in [%s]: writeback runs only on a device whose "
			"zram setup gives it a backing device (zram-generator: writeback-device=)",
			s->label);
		return;
	}
	for (unsigned i = 0; i < ck->m->n; i++) {
		const struct check_dev *dev = &ck->m->devs[i];

		if (!dev->probed || !scope_covers(ck, s, dev->id))
			continue;
		if (!dev->writeback)
			check_report(ck, true, o, what,
				     "yes in [%s], but the kernel of zram%u has no "
				     "CONFIG_ZRAM_WRITEBACK",
				     s->label, dev->id);
		else if (!dev->backing)
			check_report(
				ck, true, o, what,
				"yes in [%s], but zram%u has no backing device and backing-device "
				"is "
				"not set: nothing can be written back",
				s->label, dev->id);
	}
}

/*
 * Swapped memory in clear text on a disk, where it outlives the process and the boot: a
 * plain backing-device (backing-encryption is no for one unless set), or backing-file with
 * backing-encryption = no. One warning per scope that sets either key.
 */
static void check_backing_plain(struct check *ck, const struct scope *s)
{
	const struct dev_config *d = s->eff;
	const char *key;
	struct cfg_origin o;
	char what[64];

	if (!(s->set & (CFG_K_BACKING_DEV | CFG_K_BACKING_FILE | CFG_K_BACKING_ENC)) ||
	    config_backing_encrypted(d) || (!d->backing_device[0] && !d->backing_file[0]))
		return;
	o = later(d, d->backing_file[0] ? CFG_K_BACKING_FILE : CFG_K_BACKING_DEV, CFG_K_BACKING_ENC,
		  &key, d->backing_file[0] ? "backing-file" : "backing-device",
		  "backing-encryption");
	key_what(what, sizeof(what), key);
	check_report(ck, true, o, what,
		     "%s in [%s] is not encrypted: swapped memory stays on it in clear text across "
		     "reboots; backing-encryption = yes wraps it in dm-crypt%s",
		     d->backing_file[0] ? d->backing_file : d->backing_device, s->label,
		     d->backing_file[0] ? "" : " (destroying its content)");
}

/* Initialized devices keep the kernel's secondaries: a priority above their count. */
static void check_kernel_secondaries(struct check *ck)
{
	char note[256], what[64];
	unsigned t;

	for (unsigned i = 0; ck->m && i < ck->m->n; i++) {
		const struct check_dev *dev = &ck->m->devs[i];
		struct dev_config eff;

		if (!dev->probed || !dev->initialized || !config_device_selected(ck->c, dev->id))
			continue;
		config_effective(ck->c, dev->id, &eff);
		/* What the configuration alone cannot honour is reported per section already,
		 * and so is a kernel without priority= (config_check_effect.c). */
		if (eff.algos_auto || dev->n_secondaries >= eff.n_algos || !dev->priority)
			continue;
		if (!config_priority_note(&eff, dev->n_secondaries, dev->priority, note,
					  sizeof(note)))
			continue;
		/* Where the first priority it cannot honour was set. */
		for (t = 0; t < PASS_NR_TYPES - 1; t++)
			if (eff.priority[t] > dev->n_secondaries)
				break;
		(void)snprintf(what, sizeof(what), "device zram%u", dev->id);
		check_report(ck, true, check_origin(&eff, prio_bits[t]), what,
			     "%s (its secondaries were set before disksize and stay until a reset)",
			     note);
	}
}

/* Set-up devices whose secondaries are not the configured ones: fixed until a reset. */
static void check_device_algos(struct check *ck)
{
	char note[512], what[64];

	for (unsigned i = 0; ck->m && i < ck->m->n; i++) {
		const struct check_dev *dev = &ck->m->devs[i];
		struct dev_config eff;

		if (!dev->probed || !dev->initialized || !dev->multi_comp ||
		    !config_device_selected(ck->c, dev->id))
			continue;
		config_effective(ck->c, dev->id, &eff);
		(void)snprintf(what, sizeof(what), "zram%u", dev->id);
		if (!config_algos_note(&eff, what, &dev->recomp,
				       ck->m->have_avail ? &ck->m->avail : NULL, note,
				       sizeof(note)))
			continue;
		(void)snprintf(what, sizeof(what), "device zram%u", dev->id);
		check_report(ck, true, check_origin(&eff, CFG_K_ALGOS), what, "%s", note);
	}
}

/* ---- devices and sections ---- */

static void present_list(const struct check_machine *m, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < m->n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%szram%u", i ? " " : "", m->devs[i].id);
}

static void check_sections(struct check *ck)
{
	const struct config *c = ck->c;
	char what[64], present[128];

	if (ck->m && ck->m->known)
		present_list(ck->m, present, sizeof(present));
	for (unsigned i = 0; i < c->n_sections; i++) {
		const struct dev_section *sec = &c->sections[i];

		(void)snprintf(what, sizeof(what), "section [zram%u]", sec->id);
		if (!config_device_selected(c, sec->id))
			check_report(ck, true, sec->origin, what,
				     "zram%u is not selected by 'devices': these settings are "
				     "never used",
				     sec->id);
		else if (ck->m && ck->m->known && !machine_dev(ck->m, sec->id))
			check_report(ck, true, sec->origin, what,
				     "no such device (present: %s); these settings wait for zram%u",
				     present, sec->id);
	}
}

static void check_devices(struct check *ck)
{
	const struct config *c = ck->c;
	char absent[128], present[128], what[64];
	size_t o = 0;
	unsigned n = 0;

	if (c->devices_all || !ck->m || !ck->m->known)
		return;
	absent[0] = '\0';
	for (unsigned i = 0; i < c->n_devices; i++) {
		if (machine_dev(ck->m, c->devices[i]))
			continue;
		n++;
		if (o < sizeof(absent))
			o += (size_t)snprintf(absent + o, sizeof(absent) - o, "%szram%u",
					      o ? " " : "", c->devices[i]);
	}
	if (!n)
		return;
	present_list(ck->m, present, sizeof(present));
	key_what(what, sizeof(what), "devices");
	check_report(ck, true, c->global_origin[CFG_G_DEVICES], what,
		     "%s: no such device%s (present: %s); managed when %s", absent,
		     n == 1 ? "" : "s", present, n == 1 ? "it appears" : "they appear");
}

static void check_scope(struct check *ck, const struct scope *s)
{
	check_names(ck, s);
	check_levels(ck, s);
	check_wb_budget(ck, s);
	check_priorities(ck, s);
	check_backing(ck, s);
	check_backing_plain(ck, s);
	check_effect_scope(ck, s);
}

/* fn on the global scope, then on each [zramN] section's effective configuration. */
static void each_scope(struct check *ck, void (*fn)(struct check *, const struct scope *))
{
	const struct config *c = ck->c;
	struct scope s = {.eff = &c->global, .label = "global", .set = UINT64_MAX};

	fn(ck, &s);
	for (unsigned i = 0; i < c->n_sections; i++) {
		struct dev_config eff;
		char label[24];

		config_effective(c, c->sections[i].id, &eff);
		(void)snprintf(label, sizeof(label), "zram%u", c->sections[i].id);
		s = (struct scope){.eff = &eff,
				   .label = label,
				   .set = c->sections[i].cfg.set,
				   .sec = &c->sections[i]};
		fn(ck, &s);
	}
}

void config_check(const struct config *c, const char *const *paths, unsigned n_paths,
		  const struct check_machine *m, struct config_errors *errs,
		  struct config_errors *warns)
{
	struct check ck = {.c = c, .paths = paths, .n_paths = n_paths, .m = m};

	memset(errs, 0, sizeof(*errs));
	memset(warns, 0, sizeof(*warns));
	ck.errs.errs = errs;
	ck.warns.errs = warns;
	each_scope(&ck, check_scope);
	check_kernel_secondaries(&ck);
	check_device_algos(&ck);
	check_sections(&ck);
	check_devices(&ck);
	check_effect_global(&ck);
}

/* ---- the machine ---- */

void config_check_machine_free(struct check_machine *m)
{
	free(m->devs);
	memset(m, 0, sizeof(*m));
}

int config_check_machine_read(int root_fd, struct check_machine *m)
{
	static struct zram_dev d; /* large (write costs); --check-config is single-threaded */
	unsigned *ids = NULL;
	struct kver kv;
	char release[128];
	enum tri kconf;
	bool have_kv;
	int n = sysfs_list_zram(root_fd, &ids);

	memset(m, 0, sizeof(*m));
	if (n == -ENOENT)
		n = 0;
	if (n <= 0)
		return n;
	m->devs = calloc((size_t)n, sizeof(*m->devs));
	if (!m->devs) {
		free(ids);
		return -ENOMEM;
	}
	have_kv = host_read_kver(root_fd, &kv, release, sizeof(release)) == 0;
	kconf = have_kv ? host_kconfig_idle_age(root_fd, &kv, release) : TRI_UNKNOWN;
	m->known = true;
	m->n = (unsigned)n;
	for (unsigned i = 0; i < m->n; i++) {
		struct check_dev *cd = &m->devs[i];
		const char *attr;

		cd->id = ids[i];
		if (!have_kv || zram_probe(root_fd, &kv, kconf, ids[i], &d, &attr) < 0)
			continue;
		cd->probed = true;
		cd->initialized = d.initialized;
		cd->writeback = d.caps.writeback;
		cd->backing = d.backing_dev[0] != '\0';
		cd->priority = d.caps.priority;
		cd->n_secondaries = d.recomp.count;
		cd->multi_comp = d.caps.multi_comp;
		cd->recomp = d.recomp;
		(void)snprintf(cd->primary, sizeof(cd->primary), "%s", zram_primary(&d));
		if (!m->have_caps) {
			m->have_caps = true;
			m->caps = d.caps;
			m->page_size = d.page_size;
			m->kv = kv;
			(void)snprintf(m->release, sizeof(m->release), "%s", release);
		}
		if (!m->no_multi_comp && !d.caps.multi_comp)
			m->no_multi_comp = ids[i] + 1;
		if (!m->have_avail && d.comp.n) {
			m->avail = d.comp;
			m->have_avail = true;
		}
	}
	free(ids);
	return 0;
}

/* ---- --check-config ---- */

static void print_errors(const struct config_errors *e, const char *what, FILE *err)
{
	for (unsigned i = 0; i < e->n; i++)
		fprintf(err, "%s\n", e->msg[i]);
	if (e->dropped)
		fprintf(err, "(%u more %s)\n", e->dropped, what);
}

/* The path of each file index of struct cfg_origin (free the array), or NULL. */
static const char **paths_of(const struct config_files *files, unsigned *n_paths)
{
	const char **paths = calloc((files ? files->n : 0) + 1, sizeof(*paths));

	*n_paths = 1;
	if (!paths)
		return NULL;
	paths[0] = "(no main file)";
	for (unsigned i = 0; files && i < files->n; i++) {
		if (files->v[i].state != CFG_FILE_READ || files->v[i].file > files->n)
			continue;
		paths[files->v[i].file] = files->v[i].path;
		if (files->v[i].file >= *n_paths)
			*n_paths = files->v[i].file + 1;
	}
	return paths;
}

unsigned config_check_algos(const struct config *c, const struct config_files *files, int root_fd,
			    struct config_errors *errs)
{
	static struct config_errors warns; /* what --check-config alone says */
	struct check_machine m = {0};
	struct scope s = {.eff = &c->global, .label = "global", .set = UINT64_MAX};
	struct check ck = {.c = c, .m = &m};
	const char **paths = paths_of(files, &ck.n_paths);

	memset(errs, 0, sizeof(*errs));
	if (!paths)
		return 0;
	ck.paths = paths;
	ck.errs.errs = errs;
	ck.warns.errs = &warns;
	if (root_fd < 0 || config_check_machine_read(root_fd, &m) < 0)
		ck.m = NULL;
	check_names(&ck, &s);
	check_levels(&ck, &s);
	for (unsigned i = 0; i < c->n_sections; i++) {
		struct dev_config eff;

		config_effective(c, c->sections[i].id, &eff);
		s = (struct scope){
			.eff = &eff, .set = c->sections[i].cfg.set, .sec = &c->sections[i]};
		check_names(&ck, &s);
		check_levels(&ck, &s);
	}
	config_check_machine_free(&m);
	free(paths);
	return errs->n + errs->dropped;
}

unsigned config_check_effect(const struct config *c, const struct config_files *files, int root_fd,
			     struct config_errors *warns)
{
	static struct config_errors errs; /* none: these checks only warn */
	struct check_machine m = {0};
	struct check ck = {.c = c, .m = &m, .daemon = true};
	const char **paths = paths_of(files, &ck.n_paths);

	memset(warns, 0, sizeof(*warns));
	if (!paths)
		return 0;
	ck.paths = paths;
	ck.errs.errs = &errs;
	ck.warns.errs = warns;
	if (root_fd < 0 || config_check_machine_read(root_fd, &m) < 0)
		ck.m = NULL;
	each_scope(&ck, check_effect_scope);
	config_check_machine_free(&m);
	free(paths);
	return warns->n + warns->dropped;
}

unsigned config_check_algos_print(const struct config *c, const struct config_files *files,
				  int root_fd, FILE *err)
{
	static struct config_errors errs;
	unsigned n = config_check_algos(c, files, root_fd, &errs);

	print_errors(&errs, "errors", err);
	return n;
}

int config_check_print(const struct config *c, const struct config_files *files,
		       const char *sysroot, unsigned load_warnings, FILE *out, FILE *err)
{
	static struct config_errors errs, warns;
	struct check_machine m = {0};
	unsigned n_paths, n_warn;
	const char **paths = paths_of(files, &n_paths);
	int root_fd = -1, r;

	if (!paths) {
		fprintf(err, "--check-config: out of memory\n");
		return -ENOMEM;
	}
	if (!sysroot)
		sysroot = "/";
	r = sysfs_open_root(sysroot, &root_fd);
	if (r == 0)
		r = config_check_machine_read(root_fd, &m);
	if (root_fd >= 0 && *c->metrics_file)
		m.metrics_dir = check_metrics_dir(root_fd, c->metrics_file);
	if (root_fd >= 0)
		close(root_fd);
	config_check(c, paths, n_paths, &m, &errs, &warns);
	free(paths);
	if (!m.known && (!c->devices_all || c->n_sections))
		fprintf(out, "device names not checked: no zram device under %s%s%s%s\n", sysroot,
			r < 0 ? " (" : "", r < 0 ? strerror(-r) : "", r < 0 ? ")" : "");
	config_check_machine_free(&m);
	print_errors(&errs, "errors", err);
	print_errors(&warns, "warnings", err);
	if (errs.n || errs.dropped)
		return -EINVAL;
	n_warn = warns.n + warns.dropped + load_warnings;
	if (n_warn)
		fprintf(out, "configuration OK, %u warning%s\n", n_warn, n_warn == 1 ? "" : "s");
	else
		fprintf(out, "configuration OK\n");
	return 0;
}

/* ---- run-time notes ---- */

unsigned config_priority_note(const struct dev_config *d, unsigned n_secondaries,
			      bool priority_supported, char *buf, size_t size)
{
	unsigned n = 0;
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned t = 0; t < PASS_NR_TYPES; t++) {
		if (!d->priority[t] || (priority_supported && d->priority[t] <= n_secondaries))
			continue;
		if (o < size)
			o += (size_t)snprintf(buf + o, size - o, "%s%s = %u", n ? ", " : "",
					      prio_keys[t], d->priority[t]);
		n++;
	}
	if (!n || o >= size)
		return n;
	if (!priority_supported)
		(void)snprintf(buf + o, size - o,
			       ": this kernel has no recompress priority= (Linux 6.12+); every "
			       "secondary is used instead");
	else
		(void)snprintf(buf + o, size - o,
			       ": the device has %u secondary algorithm%s; every secondary is used "
			       "instead",
			       n_secondaries, n_secondaries == 1 ? "" : "s");
	return n;
}

static bool is_present(const unsigned *present, unsigned n, unsigned id)
{
	for (unsigned i = 0; i < n; i++)
		if (present[i] == id)
			return true;
	return false;
}

unsigned config_absent_note(const struct config *c, const unsigned *present, unsigned n, char *buf,
			    size_t size)
{
	unsigned count = 0;
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; !c->devices_all && i < c->n_devices; i++) {
		if (is_present(present, n, c->devices[i]))
			continue;
		if (o < size)
			o += (size_t)snprintf(buf + o, size - o, "%szram%u (devices)",
					      count ? ", " : "", c->devices[i]);
		count++;
	}
	/* With a list, a selected section's device is in it: named above already. */
	for (unsigned i = 0; c->devices_all && i < c->n_sections; i++) {
		unsigned id = c->sections[i].id;

		if (is_present(present, n, id))
			continue;
		if (o < size)
			o += (size_t)snprintf(buf + o, size - o, "%szram%u ([zram%u])",
					      count ? ", " : "", id, id);
		count++;
	}
	return count;
}
