// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What zram-recompd can do with a device, why it cannot recompress it and the fix
 * (include/reach.h), and `can-run`, the units' ExecCondition=.
 */
#include "reach.h"

#include "host.h"
#include "log.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void reach_of(const struct zram_dev *d, bool wb_configured, struct reach *r)
{
	memset(r, 0, sizeof(*r));
	r->wb_configured = wb_configured;
	if (!d->caps.multi_comp)
		r->limit = REACH_NO_MULTI_COMP;
	else if (!d->initialized)
		r->limit = REACH_NOT_INITIALIZED;
	else if (d->recomp.count == 0)
		r->limit = REACH_NO_SECONDARY;
	r->recompress = r->limit == REACH_OK;
	r->writeback = wb_configured && d->initialized && d->caps.writeback && d->backing_dev[0];
}

bool reach_pass(const struct reach *r)
{
	return r->recompress || r->writeback;
}

bool reach_workable(const struct config *cfg, const struct zram_dev *d)
{
	struct dev_config dc;
	struct reach r;

	config_effective(cfg, d->id, &dc);
	reach_of(d, dc.writeback, &r);
	if (reach_pass(&r))
		return true;
	if (d->initialized)
		return false;
	/* before disksize: the secondaries, or the backing device, are written then */
	return d->caps.multi_comp ||
	       (dc.writeback && d->caps.writeback &&
		(dc.backing_device[0] || dc.backing_file[0] || d->backing_dev[0]));
}

/* Unit files: an admin's copy (/etc), the package's (/usr/lib; /lib before merged /usr). */
static const char *const unit_dirs[] = {"etc/systemd/system", "usr/lib/systemd/system",
					"lib/systemd/system"};

static bool unit_present(int root_fd, const char *name)
{
	char path[128];

	for (size_t i = 0; i < ARRAY_SIZE(unit_dirs); i++)
		if (str_printf(path, sizeof(path), "%s/%s", unit_dirs[i], name) == 0 &&
		    sysfs_exists(root_fd, path) == 0)
			return true;
	return false;
}

unsigned reach_setup_tools(int root_fd)
{
	unsigned t = 0;

	/* Read-only existence checks of fixed paths, resolved inside the root (sysfs.h). */
	if (sysfs_exists(root_fd, "usr/lib/systemd/system-generators/zram-generator") == 0 ||
	    sysfs_exists(root_fd, "lib/systemd/system-generators/zram-generator") == 0 ||
	    unit_present(root_fd, "systemd-zram-setup@.service"))
		t |= SETUP_ZRAM_GENERATOR;
	if (unit_present(root_fd, "zramswap.service"))
		t |= SETUP_ZRAM_TOOLS;
	if (unit_present(root_fd, "zram-config.service"))
		t |= SETUP_ZRAM_CONFIG;
	if (unit_present(root_fd, "systemd-zram-setup@.service.d/zram-recompd.conf"))
		t |= SETUP_GENERATOR_DROPIN;
	if (unit_present(root_fd, "zramswap.service.d/zram-recompd.conf"))
		t |= SETUP_ZRAMSWAP_DROPIN;
	return t;
}

const char *reach_why(enum reach_limit limit)
{
	switch (limit) {
	case REACH_NO_MULTI_COMP:
		return "this kernel lacks CONFIG_ZRAM_MULTI_COMP (no recomp_algorithm attribute)";
	case REACH_NO_SECONDARY:
		return "initialized without a secondary algorithm (the kernel takes them only "
		       "before disksize)";
	case REACH_NOT_INITIALIZED:
		return "not initialized yet";
	case REACH_OK:
		break;
	}
	return "";
}

/* Appends "; " (after the first) and the text; truncation only shortens the line. */
static void add(char *buf, size_t size, const char *text)
{
	size_t o = strlen(buf);

	if (o + 1 < size)
		(void)str_printf(buf + o, size - o, "%s%s", o ? "; " : "", text);
}

void reach_fix(const struct zram_dev *d, enum reach_limit limit, unsigned tools, char *buf,
	       size_t size)
{
	char adopt[96];

	if (size)
		buf[0] = '\0';
	if (limit != REACH_NO_SECONDARY || size == 0)
		return;
	(void)str_printf(adopt, sizeof(adopt), "zram-recompd adopt %s (now, no reboot needed)",
			 d->name);
	add(buf, size, adopt);
	if (tools & SETUP_ZRAM_GENERATOR)
		add(buf, size,
		    tools & SETUP_GENERATOR_DROPIN
			    ? "at later boots the installed drop-in systemd-zram-setup@.service.d/"
			      "zram-recompd.conf of zram-generator (if it did not apply: "
			      "journalctl -b -u 'systemd-zram-setup@*')"
			    : "at later boots the drop-in systemd-zram-setup@.service.d/"
			      "zram-recompd.conf for zram-generator (install it)");
	if (tools & SETUP_ZRAM_TOOLS)
		add(buf, size,
		    tools & SETUP_ZRAMSWAP_DROPIN
			    ? "at later boots the installed drop-in zramswap.service.d/"
			      "zram-recompd.conf of zram-tools (if it did not apply: journalctl -b "
			      "-u zramswap)"
			    : "at later boots the drop-in zramswap.service.d/zram-recompd.conf for "
			      "zram-tools (install it)");
	if (tools & SETUP_ZRAM_CONFIG)
		add(buf, size,
		    "zram-config (Ubuntu) has no hook before disksize: adopt after it at each "
		    "boot, or set zram up with zram-generator and its drop-in");
	if (!(tools & (SETUP_ZRAM_GENERATOR | SETUP_ZRAM_TOOLS | SETUP_ZRAM_CONFIG))) {
		char once[200];

		(void)str_printf(
			once, sizeof(once),
			"at later boots run zram-recompd --once --device %s before your "
			"setup writes disksize (zram-recompd(8), WHEN IT CANNOT RECOMPRESS)",
			d->name);
		add(buf, size, once);
	}
}

const char *reach_does(const struct reach *r)
{
	if (r->recompress)
		return r->writeback ? "recompression, writeback and compaction"
				    : "recompression and compaction";
	if (r->writeback)
		return "writeback and compaction only";
	if (r->limit == REACH_NOT_INITIALIZED)
		return "waits for the zram setup";
	return "none";
}

void reach_tag(const struct reach *r, const char *name, char *buf, size_t size)
{
	const char *mc = "kernel lacks CONFIG_ZRAM_MULTI_COMP";

	switch (r->limit) {
	case REACH_OK:
		(void)str_printf(buf, size, "%s", "");
		break;
	case REACH_NOT_INITIALIZED:
		(void)str_printf(buf, size, "waiting for the zram setup");
		break;
	case REACH_NO_MULTI_COMP:
		(void)str_printf(buf, size, "%s: %s",
				 r->writeback ? "writeback and compaction only" : "nothing to do",
				 mc);
		break;
	case REACH_NO_SECONDARY:
		(void)str_printf(
			buf, size, "%s: no secondary algorithm (zram-recompd adopt %s)",
			r->writeback ? "writeback and compaction only" : "cannot recompress", name);
		break;
	}
}

const char *reach_rest(const struct zram_dev *d, const struct reach *r)
{
	if (r->recompress)
		return reach_does(r);
	if (r->writeback)
		return "writeback and compaction only";
	if (r->wb_configured && !d->caps.writeback)
		return "nothing to do: writeback = yes, but this kernel lacks "
		       "CONFIG_ZRAM_WRITEBACK (no backing_dev attribute)";
	if (!d->initialized)
		return r->wb_configured && d->caps.writeback
			       ? "writeback and compaction only, once it is set up"
			       : "nothing to do";
	if (r->wb_configured && d->caps.writeback && !d->backing_dev[0])
		return "nothing to do: writeback = yes, but the device has no backing device";
	if (!r->wb_configured && d->caps.writeback && r->limit == REACH_NO_MULTI_COMP)
		return "nothing to do (writeback = yes with a backing device would write idle "
		       "pages back: zram-recompd.conf(5))";
	return "nothing to do";
}

void reach_log(int root_fd, const struct zram_dev *d, const struct reach *r)
{
	char fix[512];

	if (r->limit == REACH_OK || r->limit == REACH_NOT_INITIALIZED)
		return;
	reach_fix(d, r->limit, reach_setup_tools(root_fd), fix, sizeof(fix));
	/* a warning only where nothing will run, now or once the device is set up */
	log_msg(r->writeback || (!d->initialized && r->wb_configured && d->caps.writeback)
			? LOG_LVL_NOTICE
			: LOG_LVL_WARNING,
		"%s: cannot recompress: %s%s%s; %s", d->name, reach_why(r->limit),
		*fix ? "; fix: " : "", fix, reach_rest(d, r));
}

bool reach_skip_foreign(int root_fd, const struct config *cfg, const struct zram_dev *d)
{
	struct dev_config dc;
	struct reach r;
	char dev[32];

	if (!cfg->devices_all || !d->initialized || reach_workable(cfg, d) ||
	    str_printf(dev, sizeof(dev), "/dev/%s", d->name) < 0 ||
	    host_swap_has(root_fd, dev) != 0)
		return false;
	config_effective(cfg, d->id, &dc);
	reach_of(d, dc.writeback, &r);
	log_notice("%s: not swap (/proc/swaps; a file system or other use of its own) and %s: "
		   "skipped",
		   d->name, reach_why(r.limit));
	return true;
}

/* can-run with no device to look at: the kernel config says, if readable. */
static int can_run_without_device(int root_fd, const struct config *cfg)
{
	struct kver kv;
	char release[128];
	enum tri mc = TRI_UNKNOWN, wb = TRI_UNKNOWN;
	bool wb_wanted = cfg->global.writeback;

	for (unsigned i = 0; i < cfg->n_sections; i++)
		wb_wanted |= cfg->sections[i].cfg.writeback;
	if (host_read_kver(root_fd, &kv, release, sizeof(release)) == 0) {
		mc = host_kconfig(root_fd, release, "CONFIG_ZRAM_MULTI_COMP");
		wb = host_kconfig(root_fd, release, "CONFIG_ZRAM_WRITEBACK");
	}
	if (mc == TRI_NO && (!wb_wanted || wb == TRI_NO)) {
		log_notice("can-run: no: no zram device yet, and this kernel lacks "
			   "CONFIG_ZRAM_MULTI_COMP (kernel config)%s",
			   wb_wanted ? " and CONFIG_ZRAM_WRITEBACK"
				     : "; writeback is not configured");
		return 1;
	}
	log_info("can-run: yes: no zram device yet; the daemon picks them up when they come");
	return 0;
}

/* One device's verdict: 1 it has work, 0 not, -errno unreadable (skipped). */
static int device_can(int root_fd, const struct kver *kv, enum tri kconf, const struct config *cfg,
		      unsigned id, struct zram_dev *d)
{
	struct dev_config dc;
	struct reach r;
	const char *attr = NULL;
	int ret = zram_probe(root_fd, kv, kconf, id, d, &attr);

	if (ret < 0)
		return ret;
	config_effective(cfg, id, &dc);
	reach_of(d, dc.writeback, &r);
	/* with CONFIG_ZRAM_MULTI_COMP, adopt makes any device recompressible: keep watch */
	if (reach_workable(cfg, d)) {
		log_info("can-run: yes: %s: %s", d->name, reach_does(&r));
		return 1;
	}
	if (d->caps.multi_comp) {
		log_info("can-run: yes: %s: no pass until it is adopted (zram-recompd adopt %s); "
			 "the kernel has CONFIG_ZRAM_MULTI_COMP",
			 d->name, d->name);
		return 1;
	}
	reach_log(root_fd, d, &r);
	return 0;
}

int reach_can_run(int root_fd, const struct config *cfg)
{
	struct zram_dev *d = malloc(sizeof(*d));
	unsigned *ids = NULL, n_sel = 0;
	struct kver kv;
	char release[128];
	enum tri kconf;
	int n, ret = 1;

	n = sysfs_list_zram(root_fd, &ids);
	if (n == -ENOENT)
		n = 0;
	if (!d || n < 0 || host_read_kver(root_fd, &kv, release, sizeof(release)) < 0) {
		/* The check itself failed: the daemon starts and says what is wrong. */
		log_warning("can-run: yes: cannot look at the zram devices (%s)",
			    strerror(!d	     ? ENOMEM
				     : n < 0 ? -n
					     : EIO));
		ret = 0;
		goto out;
	}
	kconf = host_kconfig_idle_age(root_fd, &kv, release);
	for (int k = 0; k < n && ret; k++) {
		int r;

		if (!config_device_selected(cfg, ids[k]))
			continue;
		n_sel++;
		r = device_can(root_fd, &kv, kconf, cfg, ids[k], d);
		if (r < 0 && r != -ENODEV)
			log_warning("can-run: yes: zram%u: cannot read the device (%s)", ids[k],
				    strerror(-r));
		if (r == 1 || (r < 0 && r != -ENODEV))
			ret = 0; /* unreadable: not a reason to keep the daemon from starting */
	}
	if (n_sel == 0)
		ret = can_run_without_device(root_fd, cfg);
	else if (ret)
		log_notice("can-run: no: nothing zram-recompd could do on this machine (see "
			   "above); the unit is skipped");
out:
	free(ids);
	free(d);
	close(root_fd);
	return ret;
}
