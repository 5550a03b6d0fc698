// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram-recompd: argv, configuration, and the one-shot and status commands. The daemon's
 * event loop lives in manager.c; everything here runs once and exits.
 */
#include "adopt.h"
#include "advice_store.h"
#include "advise.h"
#include "backing.h"
#include "cli_args.h"
#include "config.h"
#include "config_check.h"
#include "history.h"
#include "human.h"
#include "log.h"
#include "manager.h"
#include "pass.h"
#include "reach.h"
#include "sandbox.h"
#include "state.h"
#include "status_report.h"
#include "sysfs.h"
#include "util.h"
#include "host.h"
#include "version.h"
#include "zram.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Documented in zram-recompd(8), EXIT STATUS. */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_NO_DEVICE = 3,
	EXIT_UNSUPPORTED = 4,
};

struct args {
	const char *config;
	const char *sysroot;
	bool once, dry_run, check_config, print_config, status, json, no_sandbox, can_run;
	unsigned n_devices;
	unsigned *devices; /* --device, any number */
};

enum {
	OPT_ONCE = 0x100,
	OPT_DRY_RUN,
	OPT_DEVICE,
	OPT_CHECK_CONFIG,
	OPT_PRINT_CONFIG,
	OPT_CONFIG,
	OPT_SYSROOT,
	OPT_JSON,
	OPT_VERSION,
	OPT_NO_SANDBOX,
};

static const struct option long_opts[] = {
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
	{ "print-config", no_argument, NULL, OPT_PRINT_CONFIG },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
};

/*
 * Whether arg is a long option that takes the next argument as its value: "--config" or
 * any abbreviation getopt_long() accepts ("--conf"), but not "--config=FILE".
 */
static bool takes_next_arg(const char *arg)
{
	const struct option *found = NULL;
	size_t len;
	int matches = 0;

	if (strncmp(arg, "--", 2) != 0 || !arg[2] || strchr(arg, '='))
		return false;
	arg += 2;
	len = strlen(arg);
	for (const struct option *o = long_opts; o->name; o++) {
		if (strncmp(o->name, arg, len) != 0)
			continue;
		if (strlen(o->name) == len)
			return o->has_arg == required_argument; /* exact match wins */
		found = o;
		matches++;
	}
	return matches == 1 && found->has_arg == required_argument;
}

/* Index of the advise, adopt or backing subcommand in argv (0: none); it takes the rest. */
static int find_advise(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "advise") == 0 || strcmp(argv[i], "adopt") == 0 ||
		    strcmp(argv[i], "backing") == 0)
			return i;
		/* the value of an option is not a subcommand */
		if (takes_next_arg(argv[i]))
			i++;
	}
	return 0;
}

/* --device NAME. Returns -1 to continue, or an exit code. */
static int add_device(struct args *a, const char *name)
{
	unsigned id, *v;

	if (zram_name_to_id(name, &id) < 0) {
		log_error("--device: '%s' is not a zram device name (zramN)", name);
		return EXIT_USAGE;
	}
	/* the same device twice is one device: one pass each */
	for (unsigned i = 0; i < a->n_devices; i++)
		if (a->devices[i] == id)
			return -1;
	v = reallocarray(a->devices, a->n_devices + 1, sizeof(*v));
	if (!v) {
		log_error("--device: out of memory");
		return EXIT_RUNTIME;
	}
	a->devices = v;
	a->devices[a->n_devices++] = id;
	return -1;
}

/* One option of getopt_long(). Returns -1 to continue, or an exit code. */
static int take_option(struct args *a, int c, char **argv)
{
	switch (c) {
	case OPT_ONCE:
		a->once = true;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case OPT_DEVICE:
		return add_device(a, optarg);
	case OPT_CHECK_CONFIG:
		a->check_config = true;
		break;
	case OPT_PRINT_CONFIG:
		a->print_config = true;
		break;
	case OPT_CONFIG:
		a->config = optarg;
		break;
	case OPT_SYSROOT:
		a->sysroot = optarg;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_NO_SANDBOX:
		a->no_sandbox = true;
		break;
	case 'v':
		log_set_max_level(LOG_LVL_DEBUG);
		break;
	case 'h':
		help_print(stdout);
		return EXIT_OK;
	case OPT_VERSION:
		version_print(stdout);
		return EXIT_OK;
	case '?':
	default:
		/* A long option's optopt is its value (OPT_*), not a character: name it. */
		if (optopt > 0 && optopt < 0x100 && isprint(optopt))
			log_error("unknown or incomplete option '-%c'; see --help", optopt);
		else
			log_error("unknown or incomplete option '%s'; see --help",
				  argv[optind - 1]);
		return EXIT_USAGE;
	}
	return -1;
}

/* Options that do not go together. Returns -1 when they do, or EXIT_USAGE. */
static int check_modes(const struct args *a, bool advise)
{
	int modes = a->once + a->status + a->check_config + a->print_config + advise + a->can_run;

	if (modes > 1) {
		log_error("choose one of --once, status, advise, can-run, --check-config, "
			  "--print-config");
		return EXIT_USAGE;
	}
	if (a->dry_run && !a->once) {
		log_error("--dry-run goes with --once");
		return EXIT_USAGE;
	}
	if (a->json && !a->status) {
		log_error("--json goes with status");
		return EXIT_USAGE;
	}
	if (a->n_devices && (modes == 0 || a->check_config || a->print_config || a->can_run)) {
		log_error("--device goes with --once or status (the daemon uses 'devices')");
		return EXIT_USAGE;
	}
	return -1;
}

/* Returns -1 to continue, or an exit code. *advise_at gets the index of "advise". */
static int parse_args(int argc, char **argv, struct args *a, int *advise_at)
{
	int c, r;

	*advise_at = find_advise(argc, argv);
	if (*advise_at && strcmp(argv[*advise_at], "advise") != 0)
		*advise_at = cli_hoist_globals(argc, argv, *advise_at);
	if (*advise_at)
		argc = *advise_at; /* "advise" hands the rest of the line to its own parser */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", long_opts, NULL)) != -1) {
		r = take_option(a, c, argv);
		if (r >= 0)
			return r;
	}
	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], "status") == 0 && !a->status) {
			a->status = true;
			continue;
		}
		if (strcmp(argv[i], "can-run") == 0 && !a->can_run) {
			a->can_run = true;
			continue;
		}
		log_error("unexpected argument '%s'; see --help", argv[i]);
		return EXIT_USAGE;
	}
	return check_modes(a, *advise_at > 0);
}

static struct config_source config_src;
/* The files it was loaded from: FILE:LINE in the daemon's and --once's checks. */
static struct config_files loaded_files;

/* What the configuration was read from, for messages: FILE, or the files of the search path. */
static const char *config_label(void)
{
	return config_src.file ? config_src.file : CFG_FILE_NAME " (search path)";
}

/*
 * The configuration: --config FILE (which must exist: -ENOENT, named) or the search path
 * (under $ZRAM_RECOMPD_CONFIG_ROOT; nothing there: the defaults). quiet: errors are not
 * printed (status warns in one line). list: the files found go to stdout, as lines
 * "PREFIXread PATH" (--check-config; "# " for --print-config, whose output stays a
 * configuration file).
 */
static int load_config(const struct args *a, struct config *cfg, bool report_ok, bool quiet,
		       const char *list)
{
	struct config_errors errs = { 0 };
	struct config_files files;
	struct stat stt;
	int r;

	config_init(cfg);
	if (a->config) {
		config_src.file = a->config;
		if (stat(a->config, &stt) < 0 && errno == ENOENT) {
			if (!quiet)
				log_error("%s: no such configuration file", a->config);
			return -ENOENT;
		}
	} else if (config_source_search(&config_src,
					secure_getenv("ZRAM_RECOMPD_CONFIG_ROOT")) < 0) {
		log_error("ZRAM_RECOMPD_CONFIG_ROOT: path too long");
		return -ENAMETOOLONG;
	}
	r = config_load(cfg, &config_src, &files, &errs);
	if (list) {
		if (*list)
			printf("%sEffective configuration (zram-recompd --print-config) from:\n", list);
		config_files_print(&files, list, stdout);
		fflush(stdout);
	}
	for (unsigned i = 0; i < files.n; i++)
		if (files.v[i].state == CFG_FILE_READ)
			log_debug("configuration file %s", files.v[i].path);
		else if (files.v[i].state == CFG_FILE_DANGLING && !quiet)
			log_warning("%s: dangling symlink ignored", files.v[i].path);
	for (unsigned i = 0; i < errs.n_warn && !quiet; i++)
		fprintf(stderr, "%s\n", errs.warn[i]);
	for (unsigned i = 0; i < errs.n && !quiet; i++)
		fprintf(stderr, "%s\n", errs.msg[i]);
	if (errs.dropped && !quiet)
		fprintf(stderr, "(%u more errors)\n", errs.dropped);
	if ((r < 0 || errs.n) && !errs.n && !quiet)
		log_error("%s: %s", config_label(), strerror(-r));
	/* --check-config: the backends' names and levels, and what this machine allows */
	if (report_ok && r == 0 && !errs.n)
		r = config_check_print(cfg, &files,
				       a->sysroot ? a->sysroot : secure_getenv("ZRAM_RECOMPD_SYSROOT"),
				       errs.n_warn, stdout, stderr);
	config_files_free(&loaded_files);
	loaded_files = files;
	return r < 0 || errs.n ? (r < 0 ? r : -EINVAL) : 0;
}

/*
 * An empty root is refused, not taken as "/": `--sysroot "$DIR"` with DIR unset would
 * otherwise act on the host. Returns -1 when the root is usable, or EXIT_USAGE.
 */
static int check_sysroot(const struct args *a)
{
	const char *env = secure_getenv("ZRAM_RECOMPD_SYSROOT");

	if (a->sysroot && !*a->sysroot) {
		log_error("--sysroot: empty directory name (use --sysroot / for the host)");
		return EXIT_USAGE;
	}
	if (!a->sysroot && env && !*env) {
		log_error("ZRAM_RECOMPD_SYSROOT is set but empty (unset it for the host)");
		return EXIT_USAGE;
	}
	/* The same for the configuration's search path (a test's fake tree). */
	env = secure_getenv("ZRAM_RECOMPD_CONFIG_ROOT");
	if (env && !*env) {
		log_error("ZRAM_RECOMPD_CONFIG_ROOT is set but empty (unset it for /)");
		return EXIT_USAGE;
	}
	return -1;
}

static int open_root(const struct args *a, int *root_fd)
{
	const char *root = a->sysroot ? a->sysroot : secure_getenv("ZRAM_RECOMPD_SYSROOT");
	int r;

	if (!root)
		root = "/";
	r = sysfs_open_root(root, root_fd);
	if (r < 0)
		log_error("sysroot %s: %s", root, strerror(-r));
	return r;
}

/* Devices to act on (*ret_ids: free it): --device wins over the config's `devices`. */
static int select_devices(int root_fd, const struct args *a, const struct config *cfg,
			  unsigned **ret_ids, unsigned *n)
{
	unsigned *present = NULL, *ids;
	int np = sysfs_list_zram(root_fd, &present);
	char why[256];
	int ret = -1;

	*n = 0;
	*ret_ids = NULL;
	if (np == -ENOENT)
		np = 0;
	if (np < 0) {
		log_error("/sys/block: %s", strerror(-np));
		return EXIT_RUNTIME;
	}
	if (np == 0) {
		log_error("no zram device found (load the module: modprobe zram, or set up "
			  "zram-generator)");
		return EXIT_NO_DEVICE;
	}
	if (a->n_devices) {
		ids = *ret_ids = calloc(a->n_devices, sizeof(*ids));
		if (!ids)
			ret = EXIT_RUNTIME;
		for (unsigned i = 0; i < a->n_devices && ret < 0; i++) {
			bool found = false;

			for (int j = 0; j < np; j++)
				found |= present[j] == a->devices[i];
			if (!found) {
				log_error("zram%u: no such device", a->devices[i]);
				ret = EXIT_NO_DEVICE;
			} else {
				ids[(*n)++] = a->devices[i];
			}
		}
		free(present);
		return ret;
	}
	if (config_absent_note(cfg, present, (unsigned)np, why, sizeof(why)))
		log_warning("%s: no such device", why);
	/* All the selected ones, in numeric order (zram2 before zram10): kept in place. */
	for (int j = 0; j < np; j++)
		if (config_device_selected(cfg, present[j]))
			present[(*n)++] = present[j];
	*ret_ids = present;
	if (*n == 0) {
		log_error("none of the zram devices present is selected by 'devices'");
		return EXIT_NO_DEVICE;
	}
	return -1;
}

static void log_probe_error(unsigned id, int r, const char *attr)
{
	if (r == -ENODEV)
		log_error("zram%u: device disappeared while reading it, skipping", id);
	else if (r == -EINVAL && attr)
		log_error("zram%u: %s: malformed contents, skipping the device", id, attr);
	else
		log_error("zram%u: %s: %s, skipping the device", id, attr ? attr : "sysfs",
			  strerror(-r));
}

/* The daemon's state directory (its totals, the advice of recompress-algorithms = auto). */
static int open_state_dir(bool create, const char **ret_path)
{
	static char dir[STATE_DIR_MAX];
	int r = state_dir_path(dir, sizeof(dir));

	*ret_path = dir;
	return r < 0 ? r : state_dir_open(dir, create);
}

/*
 * recompress-algorithms = auto before the pass. Uninitialized device: the stored advice (or
 * the fallback) becomes the list to write. Initialized device: its list was fixed at setup;
 * there is nothing to compare it with, so the comparison is switched off (n_algos 0).
 */
static void resolve_auto(const struct zram_dev *d, struct dev_config *dc, int dir_fd)
{
	struct dev_config out;
	char why[256];

	if (d->initialized) {
		dc->n_algos = 0;
		return;
	}
	(void)advice_resolve(dc, dir_fd, d->name, zram_primary(d), &out, why, sizeof(why));
	log_info("%s: %s", d->name, why);
	*dc = out;
}

/* recompress-algorithms = auto after the pass: refresh the stored advice when it is due. */
static void refresh_advice(int root_fd, const struct zram_dev *d, const struct dev_config *dc,
			   int *dir_fd)
{
	struct advice_entry a;
	const char *dir = NULL;
	char chain[128], sv[HUMAN_LEN], pl[HUMAN_LEN];
	int r;

	if (*dir_fd < 0) {
		*dir_fd = open_state_dir(true, &dir);
		if (*dir_fd < 0) {
			log_warning("%s: recompress-algorithms = auto: state directory %s: %s; "
				    "advice not refreshed",
				    d->name, dir, strerror(-*dir_fd));
			return;
		}
	}
	r = advise_refresh(root_fd, *dir_fd, d, dc, (uint64_t)time(NULL), &a);
	if (r == 0)
		return;
	if (r == -EAGAIN) {
		log_debug("%s: advice refresh waits for %" PRIu64 " compressed pages", d->name,
			  dc->advise_samples);
		return;
	}
	if (r < 0) {
		log_warning("%s: recompress-algorithms = auto: advice refresh failed: %s (it "
			    "reads /dev/%s and the state directory)",
			    d->name, strerror(-r), d->name);
		return;
	}
	(void)advice_format_chain(&a, chain, sizeof(chain));
	log_info("%s: advice refreshed from %" PRIu64 " pages: %s (predicted to save %s of %s); "
		 "applied when the device is next set up",
		 d->name, a.samples, chain, human_bytes(sv, sizeof(sv), a.saving),
		 human_bytes(pl, sizeof(pl), a.pool));
}

/* The daemon: foreground, systemd style (no forking). */
static int run_daemon(const struct args *a, struct config *cfg)
{
	struct manager_opts mo = { 0 };
	int root_fd, r;

	if (load_config(a, cfg, false, false, NULL) < 0)
		return EXIT_USAGE;
	if (open_root(a, &root_fd) < 0)
		return EXIT_RUNTIME;
	mo.config_src = &config_src;
	mo.files = &loaded_files;
	mo.root_fd = root_fd;
	mo.no_sandbox = a->no_sandbox;
	r = manager_run(&mo, cfg);
	close(root_fd);
	return r;
}

/* What --once and status work on: the kernel and the selected devices, probed. */
struct probed {
	int root_fd;
	struct kver kv;
	char release[128];
	struct zram_dev *devs; /* ndev of them */
	unsigned ndev, unsupported;
};

/* -1: probed (p->root_fd open); otherwise the exit status (nothing left open). */
static int probe_all(const struct args *a, const struct config *cfg, struct probed *p, int *ret)
{
	unsigned *ids = NULL, n = 0;
	enum tri kconf;
	int r;

	if (open_root(a, &p->root_fd) < 0)
		return EXIT_RUNTIME;
	r = host_read_kver(p->root_fd, &p->kv, p->release, sizeof(p->release));
	if (r < 0) {
		log_error("/proc/sys/kernel/osrelease: cannot read the kernel release: %s",
			  strerror(-r));
		close(p->root_fd);
		return EXIT_RUNTIME;
	}
	r = select_devices(p->root_fd, a, cfg, &ids, &n);
	if (r < 0 && !(p->devs = calloc(n, sizeof(*p->devs)))) {
		log_error("out of memory for %u devices", n);
		r = EXIT_RUNTIME;
	}
	/* devices to work on: no adopt starts on them until --once ends (pass.h) */
	if (r < 0 && a->once && !a->dry_run && pass_once_lock(p->root_fd, 10000) < 0) {
		free(p->devs);
		p->devs = NULL;
		r = EXIT_RUNTIME;
	}
	if (r >= 0) {
		free(ids);
		close(p->root_fd);
		return r;
	}
	kconf = host_kconfig_idle_age(p->root_fd, &p->kv, p->release);
	for (unsigned i = 0; i < n; i++) {
		const char *attr = NULL;

		r = zram_probe(p->root_fd, &p->kv, kconf, ids[i], &p->devs[p->ndev], &attr);
		if (r < 0) {
			log_probe_error(ids[i], r, attr);
			*ret = EXIT_RUNTIME;
			continue;
		}
		if (a->once && !a->n_devices &&
		    reach_skip_foreign(p->root_fd, cfg, &p->devs[p->ndev]))
			continue; /* not swap, nothing to do: not a failure of --once */
		p->unsupported += !reach_workable(cfg, &p->devs[p->ndev]);
		p->ndev++;
	}
	free(ids);
	return -1;
}

/* status: the devices, with the daemon's totals (read-only; absent is not an error). */
static void run_status(const struct args *a, const struct config *cfg, const struct probed *p)
{
	static struct state st;
	const struct state *stp = NULL;
	const char *dir;
	int dfd = open_state_dir(false, &dir);

	if (dfd >= 0) {
		if (state_load(&st, dfd) == 0 && st.n)
			stp = &st;
		close(dfd);
	}
	status_print(stdout, p->root_fd, &p->kv, p->release, p->devs, p->ndev, a->json, stp, cfg);
	state_free(&st);
}

/* The totals and the textfile a --once run keeps, as a daemon pass does (not --dry-run). */
struct once_history {
	struct history h;
	struct dev_live *live; /* one per device probed (NULL without memory: none) */
	unsigned n_live; /* devices that had a pass: nothing to keep without one */
	bool opened;	 /* at the first pass (or writeback budget): none, nothing touched */
};

static void once_history_open(struct once_history *oh, const struct config *cfg)
{
	if (!oh->opened)
		history_open(&oh->h, cfg->metrics_file);
	oh->opened = true;
}

/*
 * The writeback day budget left for device d (the state file; rolling 24 h). Without a
 * state directory a run cannot know what earlier runs wrote: the pass budget only.
 */
static uint64_t once_wb_day_left(const struct pass_ctx *ctx, struct once_history *oh,
				 const struct config *cfg, const struct zram_dev *d,
				 const struct dev_config *dc)
{
	bool persisted;
	uint64_t left;

	if (ctx->dry_run || !dc->writeback || !d->initialized)
		return dc->wb_bytes_per_day;
	once_history_open(oh, cfg);
	left = history_wb_day_left(&oh->h, d->name, dc->wb_bytes_per_day, dc->wb_bytes_per_pass,
				   &persisted);
	if (!persisted) {
		log_warning("%s: writeback: no state directory: the day budget of earlier runs is "
			    "unknown; at most writeback-bytes-per-pass",
			    d->name);
		return dc->wb_bytes_per_pass;
	}
	return left;
}

/* --once on one device: algorithms before disksize, the daemon's pass, the report. */
static int once_device(const struct pass_ctx *ctx0, struct zram_dev *d, const struct config *cfg,
		       int *adv_fd, struct once_history *oh, struct device_report *rep_out,
		       uint64_t *wb_reserved)
{
	struct pass_ctx c = *ctx0, *ctx = &c;
	struct device_report rep;
	struct dev_config dc;
	struct reach reach;
	const char *adv_dir = NULL;
	int r;

	memset(&rep, 0, sizeof(rep));
	config_effective(cfg, d->id, &dc);
	reach_of(d, dc.writeback, &reach);
	reach_log(ctx->root_fd, d, &reach); /* what it cannot do, with the fix */
	if (!reach_workable(cfg, d))
		return 0; /* counted by run_once: exit 4 */
	if (dc.algos_auto) {
		if (*adv_fd < 0 && !d->initialized)
			*adv_fd = open_state_dir(false, &adv_dir);
		resolve_auto(d, &dc, *adv_fd);
	}
	/* -EBUSY: another tool set it up meanwhile (a notice): used as it is by the next run */
	r = pass_configure_algorithms(ctx, d, &dc, &rep);
	if (r < 0)
		return r == -EBUSY ? 0 : r;
	/* the backing device before disksize too, like the algorithms */
	r = pass_configure_writeback(ctx, d, &dc);
	if (r < 0)
		return r == -EBUSY ? 0 : r;
	c.wb_day_left = once_wb_day_left(ctx, oh, cfg, d, &dc);
	c.state_fd = oh->h.dir_fd;
	/* the pass's writeback budget leaves the day budget (state file) before any write */
	if (!ctx->dry_run && dc.writeback && d->initialized && d->caps.writeback &&
	    d->backing_dev[0])
		*wb_reserved = history_wb_reserve(
			&oh->h, d->name,
			policy_wb_budget_pages(c.wb_day_left, dc.wb_bytes_per_pass, d->page_size),
			d->page_size, dc.wb_bytes_per_day);
	r = pass_run(ctx, d, &dc, &rep);
	if (!ctx->dry_run) {
		pass_print_report(stdout, &rep);
		if (log_get_max_level() >= LOG_LVL_DEBUG)
			pass_print_cpu(stdout, &rep);
	}
	fflush(stdout);
	if (dc.algos_auto && d->initialized && !ctx->dry_run)
		refresh_advice(ctx->root_fd, d, &dc, adv_fd);
	*rep_out = rep;
	return r;
}

/* One device's pass: its totals and writeback budget (history.h) and its live figures. */
static void once_history_add(struct once_history *oh, const struct config *cfg,
			     const struct zram_dev *d, const struct device_report *rep, int r,
			     uint64_t wb_reserved)
{
	struct pass_summary sum;
	struct dev_config dc;

	config_effective(cfg, d->id, &dc);
	if (rep->skipped || !rep->initialized) {
		/* no pass after all: the reservation goes back */
		if (wb_reserved)
			history_wb_charge(&oh->h, d->name, wb_reserved, 0, d->page_size,
					  dc.wb_bytes_per_day);
		return;
	}
	once_history_open(oh, cfg);
	pass_summarize(rep, &sum);
	history_add(&oh->h, d->name, &sum, rep->new_incompressible, r < 0);
	if (rep->wb.planned || wb_reserved)
		history_wb_charge(&oh->h, d->name, wb_reserved, sum.wb_pages, d->page_size,
				  dc.wb_bytes_per_day);
	if (oh->live) {
		dev_live_fill(&oh->live[oh->n_live], d, pass_incompressible_now(rep));
		oh->live[oh->n_live++].longest_write_ns = sum.max_write_ns;
	}
}

/*
 * --once from here on writes only zram attributes, the state directory's files and the
 * metrics file (sandbox.h); --dry-run nothing at all. The state directory must exist for its
 * rule: it is created now when a pass can run (an initialized device with recompression),
 * as history_open would after that pass, and not otherwise.
 */
static void once_sandbox(const struct args *a, const struct config *cfg, const struct probed *p)
{
	static char state_dir[STATE_DIR_MAX], metrics_dir[PATH_MAX];
	struct sandbox_spec spec;
	struct sandbox_info info;
	bool pass_can_run = false;
	int r;

	if (a->no_sandbox || !cfg->sandbox) {
		log_debug("sandbox: off (%s)", a->no_sandbox ? "--no-sandbox" : "sandbox = no");
		return;
	}
	for (unsigned i = 0; i < p->ndev; i++)
		pass_can_run |= p->devs[i].initialized && reach_workable(cfg, &p->devs[i]);
	if (a->dry_run) {
		sandbox_spec_init(&spec, p->root_fd, false, NULL, NULL, metrics_dir);
	} else {
		if (state_dir_path(state_dir, sizeof(state_dir)) < 0)
			state_dir[0] = '\0';
		if (pass_can_run && state_dir[0]) {
			r = state_dir_open(state_dir, true);
			if (r >= 0)
				close(r);
		}
		sandbox_spec_init(&spec, p->root_fd, true, state_dir, cfg->metrics_file,
				  metrics_dir);
		if (sandbox_spec_add_backing(&spec, cfg))
			log_warning("sandbox: more than %d backing devices; writing backing_dev "
				    "with the others fails (EACCES)",
				    SANDBOX_MAX_FILES);
		sandbox_spec_add_dict(&spec, cfg);
	}
	r = sandbox_apply(&spec, &info);
	if (sandbox_unavailable(r))
		log_debug("sandbox: Landlock unavailable (%s); writes are not restricted",
			  strerror(-r));
	else if (r < 0)
		log_warning("sandbox: cannot restrict writes with Landlock: %s; going on without",
			    strerror(-r));
	else
		log_debug("sandbox: Landlock ABI %d: %s (%u directories, %u absent)", info.abi,
			  a->dry_run ? "no writes allowed (--dry-run)"
				     : "writes allowed only to zram attributes, backing devices and "
				       "in the state and metrics directories",
			  info.n_rules, info.n_absent);
	if (r == 0)
		sandbox_info_free(&info);
}

static int run_once(const struct args *a, const struct config *cfg, struct probed *p, int ret)
{
	static struct once_history oh;
	struct pass_ctx ctx;
	int adv_fd = -EBADF;

	pass_ctx_init(&ctx, p->root_fd);
	ctx.dry_run = a->dry_run;
	ctx.apply_dict = true; /* zstd-dictionary (dict_apply.h) */
	if (host_read_meminfo(p->root_fd, &ctx.mem_total, &ctx.mem_available) < 0)
		log_debug("/proc/meminfo unreadable: idle age falls back to idle-age-max-sec");
	oh.h.dir_fd = -1;
	oh.live = calloc(p->ndev + 1, sizeof(*oh.live));
	for (unsigned i = 0; i < p->ndev; i++) {
		struct device_report rep = { 0 };
		uint64_t wb_reserved = 0;
		int r = once_device(&ctx, &p->devs[i], cfg, &adv_fd, &oh, &rep, &wb_reserved);

		if (r < 0)
			ret = EXIT_RUNTIME;
		if (!ctx.dry_run)
			once_history_add(&oh, cfg, &p->devs[i], &rep, r, wb_reserved);
	}
	if (oh.opened) {
		history_write(&oh.h, cfg->metrics_file, oh.live, oh.n_live);
		history_close(&oh.h);
	}
	free(oh.live);
	if (adv_fd >= 0)
		close(adv_fd);
	if (p->unsupported)
		return EXIT_UNSUPPORTED; /* a device it can do nothing with: named, with the fix */
	return ret;
}

static int run(const struct args *a)
{
	static struct config cfg;
	static struct probed p;
	int r, ret = EXIT_OK;

	if (!a->check_config && !a->print_config && !a->once && !a->status && !a->can_run)
		return run_daemon(a, &cfg);
	if (a->can_run) {
		/* ExecCondition=: a configuration error or a missing root is the daemon's to say */
		if (load_config(a, &cfg, false, true, NULL) < 0 || open_root(a, &r) < 0)
			return EXIT_OK;
		return reach_can_run(r, &cfg);
	}
	if (a->check_config || a->print_config || a->once) {
		r = load_config(a, &cfg, a->check_config, false,
				a->check_config	  ? ""
				: a->print_config ? "# "
						  : NULL);
		if (a->check_config) /* a missing --config file fails the check too */
			return r < 0 ? EXIT_RUNTIME : EXIT_OK;
		if (r < 0)
			return EXIT_USAGE;
		if (a->print_config) {
			config_print(&cfg, stdout);
			return EXIT_OK;
		}
	} else if (load_config(a, &cfg, false, true, NULL) < 0) {
		/* status still reports the devices, with a one-line warning. */
		log_warning("%s: the configuration is not valid (zram-recompd --check-config "
			    "lists why); status uses the defaults",
			    config_label());
		config_free(&cfg);
		config_init(&cfg);
	}
	r = probe_all(a, &cfg, &p, &ret);
	if (r >= 0)
		return r;
	if (a->status) {
		run_status(a, &cfg, &p);
	} else if (config_check_algos_print(&cfg, &loaded_files, p.root_fd, stderr)) {
		ret = EXIT_USAGE; /* before any write: the setup hook's "-" would hide a failure */
	} else {
		/* before the sandbox: /dev/loop-control, dm-crypt and the file are outside it */
		ret = backing_once(p.root_fd, &cfg, p.devs, p.ndev, a->dry_run, ret);
		once_sandbox(a, &cfg, &p);
		ret = run_once(a, &cfg, &p, ret);
	}
	close(p.root_fd);
	return ret;
}

/* adopt (src/adopt_run.c): the configuration's secondaries for an in-use swap device;
 * backing (src/backing_cmd.c): the backing file and dm-crypt, outside any sandbox. */
static int run_adopt(const struct args *a, int argc, char **argv)
{
	static struct config cfg;
	int root_fd = -1, r;
	bool help = cli_wants_help(argc, argv); /* the usage needs no configuration or root */

	if (!help && load_config(a, &cfg, false, false, NULL) < 0)
		return EXIT_USAGE;
	if (!help && open_root(a, &root_fd) < 0)
		return EXIT_RUNTIME;
	r = strcmp(argv[0], "backing") == 0 ? backing_main(argc, argv, root_fd, &cfg)
					    : adopt_main(argc, argv, root_fd, &cfg);
	if (root_fd >= 0)
		close(root_fd);
	return r;
}

int main(int argc, char **argv)
{
	static struct args a; /* static: what it points to stays reachable to the end */
	int advise_at, r;

	log_setup();
	r = parse_args(argc, argv, &a, &advise_at);
	if (r >= 0)
		return r;
	r = check_sysroot(&a);
	if (r >= 0)
		return r;
	if (advise_at && strcmp(argv[advise_at], "advise") != 0)
		return run_adopt(&a, argc - advise_at, argv + advise_at);
	if (advise_at) {
		int root_fd;

		if (open_root(&a, &root_fd) < 0)
			return EXIT_RUNTIME;
		r = advise_main(argc - advise_at, argv + advise_at, root_fd);
		close(root_fd);
		return r;
	}
	return run(&a);
}
