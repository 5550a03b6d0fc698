// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `zram-recompd adopt zramN` (include/adopt.h): its options, the device and the figures the
 * plan is chosen from, the verdict; the steps are src/adopt_exec.c.
 *
 * Not sandboxed (unlike --once and the daemon, src/sandbox.c): swapon(2) and swapoff(2) are
 * not file writes Landlock could confine, and what adopt writes is the device node, its
 * attributes and zram-control's hot_remove, a set as wide as the zram rules already are. It
 * runs once, by hand, and every write goes through sysfs_write_adopt's allowlist.
 */
#include "adopt.h"

#include "advice_store.h"
#include "devlock.h"
#include "host.h"
#include "human.h"
#include "log.h"
#include "memcg.h"
#include "pass.h"
#include "state.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* zram-recompd(8), EXIT STATUS (the same numbers as main.c's). */
enum {
	RC_OK = 0,
	RC_RUNTIME = 1,
	RC_USAGE = 2,
	RC_NO_DEVICE = 3,
	RC_UNSUPPORTED = 4,
};

struct adopt_opts {
	bool dry_run, via_temp, force;
	unsigned id;
};

static void adopt_usage(FILE *f)
{
	fprintf(f,
		"Usage: zram-recompd [OPTIONS] adopt [--dry-run] [--via-temp] [--force] zramN\n"
		"\n"
		"Gives zramN, a zram device in use as swap, the configured recompress-algorithms\n"
		"and algorithm-params, which the kernel takes only before disksize: swapoff,\n"
		"reset, set up again (same primary, disksize, mem_limit, backing device, swap\n"
		"priority, UUID and label), swapon. Where memory cannot take its pages meanwhile, a\n"
		"temporary zram device holds them; where neither is safe it refuses (exit 5) and\n"
		"shows the figures.\n"
		"\n"
		"  --dry-run    print the figures and every step, change nothing\n"
		"  --via-temp   only through a temporary device (refuse when that is not safe)\n"
		"  --force      also when the device already has the configured secondaries\n"
		"               (the levels cannot be read back from the kernel)\n"
		"  -h, --help   this text\n");
}

/* Returns -1 to go on, or an exit status. */
static int parse_opts(int argc, char **argv, struct adopt_opts *o)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "via-temp", no_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	opterr = 0;
	optind = 1; /* argv[0] is "adopt" */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->dry_run = true;
			break;
		case 't':
			o->via_temp = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'h':
			adopt_usage(stdout);
			return RC_OK;
		default:
			log_error("adopt: unknown or incomplete option '%s'; see adopt --help",
				  argv[optind - 1]);
			return RC_USAGE;
		}
	}
	if (optind != argc - 1) {
		log_error("adopt: name one device (adopt zramN); see adopt --help");
		return RC_USAGE;
	}
	if (zram_name_to_id(argv[optind], &o->id) < 0) {
		log_error("adopt: '%s' is not a zram device name (zramN)", argv[optind]);
		return RC_USAGE;
	}
	return -1;
}

/* What a plan lacks to be safe: needed + margin - available (0 when it is safe). */
static uint64_t short_by(const struct adopt_check *c)
{
	uint64_t want = sat_add_u64(c->needed, c->margin);

	return want > c->available ? want - c->available : 0;
}

/*
 * After a refusal, one line with what the admin can do, from the figures: free memory for
 * the temporary device's plan, add swap elsewhere or free memory for the direct one, room
 * in the memory cgroup that holds it back, or leave out --via-temp.
 */
static void print_next_step(const struct adopt_job *j, bool via_temp)
{
	const struct adopt_plan *p = &j->plan;
	char a[HUMAN_LEN], b[HUMAN_LEN], line[512] = "";
	size_t o = 0;

	if (via_temp && p->direct.ok && p->memcg.ok) {
		log_info("%s: next: leave out --via-temp (the direct plan is safe)", j->dev.name);
		return;
	}
	if (j->fig.can_hot_add && !p->via_temp.ok)
		(void)str_printf(line, sizeof(line), "free %s of memory (for the temporary device)",
				 human_bytes(a, sizeof(a), short_by(&p->via_temp)));
	o = strlen(line);
	if (!via_temp && !p->direct.ok)
		(void)str_printf(line + o, sizeof(line) - o,
				 "%sadd %s of other swap (swapon a file or partition) or free as "
				 "much memory (for the direct plan)",
				 o ? ", or " : "", human_bytes(b, sizeof(b), short_by(&p->direct)));
	else if (!via_temp && !p->memcg.ok && j->fig.memcg_name[0])
		(void)str_printf(line + o, sizeof(line) - o,
				 "%sraise memory.max of %s by %s (for the direct plan)",
				 o ? ", or " : "", j->fig.memcg_name,
				 human_bytes(b, sizeof(b), short_by(&p->memcg)));
	if (line[0])
		log_info("%s: next: %s; then adopt again", j->dev.name, line);
}

static int probe_device(struct adopt_job *j, unsigned id)
{
	char release[128], path[32];
	const char *attr = NULL;
	int r = host_read_kver(j->root_fd, &j->kv, release, sizeof(release));

	if (r < 0) {
		log_error("/proc/sys/kernel/osrelease: cannot read the kernel release: %s",
			  strerror(-r));
		return RC_RUNTIME;
	}
	j->kconf = host_kconfig_idle_age(j->root_fd, &j->kv, release);
	(void)str_printf(path, sizeof(path), "sys/block/zram%u", id);
	r = sysfs_exists(j->root_fd, path);
	if (r == 0)
		r = zram_probe(j->root_fd, &j->kv, j->kconf, id, &j->dev, &attr);
	if ((r == -ENOENT && !attr) || r == -ENODEV) {
		log_error("zram%u: no such device", id);
		return RC_NO_DEVICE;
	}
	if (r < 0) {
		log_error("zram%u: %s: %s", id, attr ? attr : "sysfs", strerror(-r));
		return RC_RUNTIME;
	}
	if (!j->dev.caps.multi_comp) {
		log_error("%s: this kernel lacks CONFIG_ZRAM_MULTI_COMP: there are no secondary "
			  "algorithms to give it",
			  j->dev.name);
		return RC_UNSUPPORTED;
	}
	if (!j->dev.initialized) {
		log_error("%s: not set up (disksize 0), so nothing to adopt: zram-recompd --once "
			  "or the daemon writes the secondaries before its setup",
			  j->dev.name);
		return RC_RUNTIME;
	}
	return -1;
}

/* The configured list for the device (auto: the stored advice, as --once resolves it). */
static int resolve_config(struct adopt_job *j, const struct config *cfg, bool force)
{
	const struct zram_recomp *k = &j->dev.recomp;
	bool same;

	config_effective(cfg, j->dev.id, &j->cfg);
	if (j->cfg.algos_auto) {
		struct dev_config out;
		char dir[STATE_DIR_MAX], why[256];
		int dfd = state_dir_path(dir, sizeof(dir)) == 0 ? state_dir_open(dir, false) : -1;

		(void)advice_resolve(&j->cfg, dfd, j->dev.name, zram_primary(&j->dev), &out, why,
				     sizeof(why));
		if (dfd >= 0)
			close(dfd);
		log_info("%s: %s", j->dev.name, why);
		j->cfg = out;
	}
	if (j->cfg.n_algos == 0) {
		log_error("%s: no recompress-algorithms configured for it: nothing to adopt",
			  j->dev.name);
		return RC_USAGE;
	}
	same = k->count == j->cfg.n_algos;
	for (unsigned i = 0; same && i < j->cfg.n_algos; i++)
		same = k->set[i + 1] && strcmp(k->name[i + 1], j->cfg.algos[i]) == 0;
	if (same && !force) {
		printf("%s: already has the configured secondary algorithms; nothing to do (--force "
		       "sets it up again, for changed algorithm-params)\n",
		       j->dev.name);
		return RC_OK;
	}
	/* every name and level is checked now, while the device still holds its pages */
	if (pass_validate_algorithms(&j->dev, &j->cfg) < 0)
		return RC_USAGE;
	return -1;
}

/* Its /proc/swaps line, and the free space of the other swap areas (zram ones excepted). */
static int read_swaps(struct adopt_job *j)
{
	static char buf[16384];
	struct swap_entry e[SWAPS_MAX];
	bool found = false;
	size_t len;
	int n, r = sysfs_read(j->root_fd, "proc/swaps", buf, sizeof(buf), &len);

	if (r < 0) {
		log_error("/proc/swaps: %s", strerror(-r));
		return RC_RUNTIME;
	}
	n = adopt_parse_swaps(buf, len, e, SWAPS_MAX);
	if (n < 0) {
		log_error("/proc/swaps: malformed contents");
		return RC_RUNTIME;
	}
	for (int i = 0; i < n; i++) {
		if (e[i].is_zram && e[i].zram_id == j->dev.id) {
			j->swap = e[i];
			found = true;
		} else if (!e[i].is_zram) {
			j->fig.other_swap_free = sat_add_u64(j->fig.other_swap_free,
							     sat_sub_u64(e[i].size, e[i].used));
		}
	}
	if (!found) {
		log_error("%s: not in use as swap (/proc/swaps): adopt takes swap devices only",
			  j->dev.name);
		return RC_RUNTIME;
	}
	j->fig.swap_used = j->swap.used;
	return -1;
}

/* The old header's UUID and label, kept; a new UUID where there is none to keep. */
static void old_header(struct adopt_job *j)
{
	void *page = malloc(j->page_size);
	size_t len = 0;
	int fd, r = page ? zram_open_slots(j->root_fd, j->dev.id, &fd) : -ENOMEM;

	if (r == 0) {
		r = pread_full(fd, page, j->page_size, 0, &len);
		close(fd);
	}
	if (r == 0 && len == j->page_size &&
	    adopt_parse_swap_header(page, j->page_size, j->uuid, j->label) == 0) {
		j->uuid_kept = true;
	} else {
		memset(j->label, 0, sizeof(j->label));
		if (getrandom(j->uuid, sizeof(j->uuid), 0) != (ssize_t)sizeof(j->uuid))
			memset(j->uuid, 0, sizeof(j->uuid)); /* mkswap -U nil: still valid */
		adopt_uuid_v4(j->uuid);
	}
	free(page);
}

/*
 * memcg_walk's visitor: keep the cgroup with the least room left after what swapoff may
 * charge it (its memory.swap.current, at most the device's swap use; all of that where the
 * kernel does not count swap per cgroup) and adopt_memcg_margin().
 */
static void pick_memcg(void *ctx, const struct memcg_info *c)
{
	struct adopt_figures *f = ctx;
	uint64_t cap = f->swap_used;
	uint64_t charged = c->swap_known && c->swap < cap ? c->swap : cap;
	uint64_t room = sat_sub_u64(c->max, c->current);
	uint64_t need = sat_add_u64(charged, adopt_memcg_margin(charged));
	uint64_t need_kept = sat_add_u64(f->memcg_swap, adopt_memcg_margin(f->memcg_swap));

	/* room - need below the kept one's, without signed arithmetic */
	if (!charged ||
	    (f->memcg_name[0] && sat_add_u64(room, need_kept) >= sat_add_u64(f->memcg_room, need)))
		return;
	(void)snprintf(f->memcg_name, sizeof(f->memcg_name), "%.*s",
		       (int)sizeof(f->memcg_name) - 1, c->path);
	f->memcg_swap = charged;
	f->memcg_room = room;
}

static int gather(struct adopt_job *j, const struct adopt_opts *o, const struct config *cfg)
{
	uint64_t total;
	int r = probe_device(j, o->id);

	if (r >= 0)
		return r;
	r = resolve_config(j, cfg, o->force);
	if (r >= 0)
		return r;
	r = read_swaps(j);
	if (r >= 0)
		return r;
	r = host_read_meminfo(j->root_fd, &total, &j->fig.mem_available);
	if (r < 0) {
		log_error("/proc/meminfo: %s", strerror(-r));
		return RC_RUNTIME;
	}
	j->fig.pool = j->dev.mm.v[MM_MEM_USED_TOTAL];
	j->mem_limit = j->dev.mm.nfields > MM_MEM_LIMIT ? j->dev.mm.v[MM_MEM_LIMIT] : 0;
	if (j->dev.has_bd_stat)
		/* bd_stat counts 4 KiB units whatever the page size (zram.h, ZRAM_WB_UNIT) */
		j->fig.written_back = sat_mul_u64(j->dev.bd_stat[0], ZRAM_WB_UNIT);
	memcpy(j->backing_dev, j->dev.backing_dev, sizeof(j->backing_dev));
	j->fig.can_hot_add = sysfs_exists(j->root_fd, "sys/class/zram-control/hot_add") == 0;
	r = memcg_walk(j->root_fd, pick_memcg, &j->fig);
	if (r < 0 && r != -ENOENT) {
		log_warning("/sys/fs/cgroup: %s: the memory cgroups' limits are unknown",
			    strerror(-r));
		j->fig.memcg_unknown = true;
	}
	/* swapon finds the header's magic at the end of the kernel's first page */
	j->page_size = j->dev.page_size;
	old_header(j);
	return -1;
}

/* The values written to disksize and mem_limit as written, each with its reading. */
static void print_plan(const struct adopt_job *j)
{
	char u[37], ds[HUMAN_LEN], ml[HUMAN_LEN];

	adopt_format_uuid(j->uuid, u);
	printf("%s: plan: %s; keeps primary %s, disksize %" PRIu64 " (%s), mem_limit %" PRIu64
	       " (%s), backing device %s, swap priority %d, %s%s\n",
	       j->dev.name,
	       j->plan.kind == ADOPT_DIRECT ? "direct (swapoff first)"
					    : "through a temporary zram device",
	       zram_primary(&j->dev), j->dev.disksize, human_bytes(ds, sizeof(ds), j->dev.disksize),
	       j->mem_limit, j->mem_limit ? human_bytes(ml, sizeof(ml), j->mem_limit) : "none",
	       j->backing_dev[0] ? j->backing_dev : "none", j->swap.prio,
	       j->uuid_kept ? "the header's UUID " : "a new UUID", j->uuid_kept ? u : "");
}

/* How long adopt waits for a pass in progress (the daemon's, --once's) to end. */
#define LOCK_WAIT_MS 60000u

/*
 * The lock "adopt", then the device's (devlock.h), exclusive, for the whole run: the daemon
 * and --once then run no pass on the device and set up neither it nor a temporary device
 * (an adopt that fails leaves them alone as well). Returns -1 to go on (locked, or where no
 * lock can be taken, unlocked: said), or an exit status.
 */
static int take_locks(int root_fd, unsigned id, int lk[2])
{
	unsigned which = DEVLOCK_ADOPT;
	char name[16];
	int r = devlock_try(root_fd, which, true, &lk[0]);

	if (r == -EAGAIN)
		printf("zram%u: waiting for another adopt to end (at most %u s)\n", id,
		       LOCK_WAIT_MS / 1000);
	if (r == -EAGAIN)
		r = devlock_wait(root_fd, which, true, LOCK_WAIT_MS, &lk[0]);
	if (r == 0 && (r = devlock_try(root_fd, which = id, true, &lk[1])) == -EAGAIN) {
		printf("zram%u: waiting for the pass in progress on it to end (at most %u s)\n", id,
		       LOCK_WAIT_MS / 1000);
		r = devlock_wait(root_fd, id, true, LOCK_WAIT_MS, &lk[1]);
	}
	fflush(stdout);
	devlock_name(which, name, sizeof(name));
	if (r == -EAGAIN) {
		devlock_release(&lk[0]);
		log_error("zram%u: /%s/%s still held after %u s (%s); nothing changed: try again",
			  id, DEVLOCK_DIR, name, LOCK_WAIT_MS / 1000,
			  which == id ? "a pass of the daemon or --once" : "another adopt");
		return RC_RUNTIME;
	}
	if (r < 0)
		log_warning(
			"zram%u: /%s/%s: %s: the daemon and --once are not kept off it meanwhile",
			id, DEVLOCK_DIR, name, strerror(-r));
	return -1;
}

int adopt_main(int argc, char **argv, int root_fd, const struct config *cfg)
{
	static struct adopt_job j;
	struct adopt_opts o = { 0 };
	int lk[2] = { -1, -1 }; /* held until the process ends */
	int r = parse_opts(argc, argv, &o);

	if (r >= 0)
		return r;
	/* another root: refused below unless --dry-run (no lock in a fake tree) */
	if (!o.dry_run && sysfs_root_is_process_root(root_fd) &&
	    (r = take_locks(root_fd, o.id, lk)) >= 0)
		return r;
	memset(&j, 0, sizeof(j));
	j.root_fd = root_fd;
	j.dry_run = o.dry_run;
	j.out = stdout;
	j.reset_tries = 50;
	r = gather(&j, &o, cfg);
	if (r >= 0)
		return r;
	adopt_decide(&j.fig, o.via_temp, &j.plan);
	adopt_print_figures(stdout, j.dev.name, &j.fig, &j.plan);
	if (j.plan.kind == ADOPT_REFUSE) {
		fflush(stdout);
		log_error("%s: adopt refused: %s; nothing changed", j.dev.name,
			  o.via_temp ? "a temporary device is not safe (--via-temp)"
				     : "neither plan leaves the margin free");
		print_next_step(&j, o.via_temp);
		return ADOPT_EXIT_REFUSED;
	}
	print_plan(&j);
	if (!o.dry_run && !sysfs_root_is_process_root(root_fd)) {
		fflush(stdout);
		log_error("adopt: swapon(2) and swapoff(2) act on this machine's /dev: another "
			  "--sysroot only with --dry-run; nothing changed");
		return RC_USAGE;
	}
	r = adopt_execute(&j);
	fflush(stdout);
	if (r == 0 && !j.dry_run)
		printf("%s: adopted: in use as swap again, with the configured secondary "
		       "algorithms\n",
		       j.dev.name);
	if (j.signal)
		return 128 + j.signal; /* zram-recompd(8), EXIT STATUS */
	return r < 0 ? RC_RUNTIME : RC_OK;
}
