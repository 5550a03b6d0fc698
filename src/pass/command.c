// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One command to a device attribute (see include/pass.h): written and timed, EAGAIN
 * retried, printed instead under --dry-run, and a failure explained in one line that names
 * the device, the attribute and the reason. Shared by the pass (pass.c) and the algorithm
 * setup (algorithms.c).
 */
#include "pass.h"

#include "human.h"
#include "log.h"
#include "pass_cpu.h"
#include "util.h"
#include "zsmalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

bool pass_stop_requested(const struct pass_ctx *ctx)
{
	/* Atomic: the daemon's event loop sets it while the worker runs the pass. */
	return ctx->stop && __atomic_load_n(ctx->stop, __ATOMIC_RELAXED);
}

/*
 * Write one command, or print it in dry-run mode. EAGAIN (6.12.y, 6.13-6.19: a writeback
 * or another recompression holds the device's post-processing slot) is retried with a
 * doubling delay. ret_ns gets the time spent inside write() calls.
 */
int pass_write(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
	       const char *cmd, uint64_t *ret_ns, unsigned *ret_eagain)
{
	unsigned delay = ctx->eagain_delay_ms, tries = 0;
	char note[HUMAN_LEN];
	int r;

	if (ctx->dry_run) {
		/* the value as written, its reading after it: '14400' to idle (4 h) */
		fprintf(ctx->out, "%s: would write '%s' to %s%s\n", d->name, cmd, attr,
			human_attr_note(note, sizeof(note), attr, cmd));
		return 0;
	}
	for (;;) {
		uint64_t t0 = now_monotonic_ns(), c0 = pass_cpu_now();

		r = zram_write(ctx->root_fd, d->id, attr, cmd);
		(void)pass_cpu_add(pass_cpu_kind_of(attr), c0);
		if (ret_ns)
			*ret_ns = sat_add_u64(*ret_ns, sat_sub_u64(now_monotonic_ns(), t0));
		if (r != -EAGAIN || tries >= ctx->eagain_retries || pass_stop_requested(ctx))
			return r;
		tries++;
		if (ret_eagain)
			(*ret_eagain)++;
		log_notice("%s: %s busy (EAGAIN: writeback or recompression already running), "
			   "retrying in %u ms (%u/%u)",
			   d->name, attr, delay, tries, ctx->eagain_retries);
		sleep_ms(delay);
		if (delay < 5000)
			delay *= 2;
	}
}

static bool attr_needs_init(const char *attr)
{
	return strcmp(attr, "recompress") == 0 || strcmp(attr, "idle") == 0 ||
	       strcmp(attr, "writeback") == 0 || strcmp(attr, "compact") == 0;
}

/* One line naming device, attribute and reason for a failed write. */
void pass_log_write_error(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
			    const char *cmd, int r, uint32_t threshold)
{
	bool init = true;

	switch (-r) {
	case EINVAL:
		if (strcmp(attr, "recompress") == 0 && threshold) {
			log_error("%s: recompress: kernel rejected threshold=%u (EINVAL): the "
				  "threshold must be below huge_class_size (%zu bytes with the default "
				  "zsmalloc chain and this kernel's %" PRIu32 "-byte pages); lower "
				  "threshold-bytes",
				  d->name, threshold, zs_huge_class_size(d->page_size), d->page_size);
			return;
		}
		/* only these need an initialized device; the others are written before disksize */
		if (attr_needs_init(attr) && zram_read_initstate(ctx->root_fd, d->id, &init) == 0 &&
		    !init) {
			log_error("%s: %s: device is not initialized (reset during the pass?) "
				  "(EINVAL)",
				  d->name, attr);
			return;
		}
		log_error("%s: %s: kernel rejected '%s' (EINVAL)", d->name, attr, cmd);
		return;
	case ENODEV:
	case ENOENT:
		log_error("%s: %s: device disappeared (hot-removed?): %s", d->name, attr,
			  strerror(-r));
		return;
	case EAGAIN:
		log_warning("%s: %s: still busy after %u retries (EAGAIN: writeback or "
			    "recompression running); try again later",
			    d->name, attr, ctx->eagain_retries);
		return;
	case ENOMEM:
		log_error("%s: %s: kernel out of memory for recompression (ENOMEM)", d->name,
			  attr);
		return;
	case EBUSY:
		log_error("%s: %s: device busy (EBUSY): '%s'", d->name, attr, cmd);
		return;
	case EPERM:
		/* the kernel opens the backing device as the writing process: the device
		 * cgroup (DevicePolicy=closed, DeviceAllow=block-zram r) refuses it */
		if (strcmp(attr, "backing_dev") == 0) {
			log_error("%s: backing_dev: the kernel may not open '%s' for this process "
				  "(EPERM): under zram-recompd.service the device policy "
				  "(DevicePolicy=closed) forbids it; 'zram-recompd backing setup' "
				  "(zram-recompd-backing.service) or the setup tool's hook (--once) "
				  "sets backing_dev instead",
				  d->name, cmd);
			return;
		}
		/* fall through */
	case EROFS:
	case EACCES:
		log_error("%s: %s: not writable (%s); needs root, a device added after the "
			  "start of the sandbox needs a restart, and under systemd /sys stays "
			  "writable only in ReadWritePaths=",
			  d->name, attr, strerror(-r));
		return;
	default:
		/* a writeback by index can be 1 KiB of keys: the reason must not be cut off */
		log_error("%s: %s: write failed: %s (%d): '%.120s%s'", d->name, attr, strerror(-r),
			  -r, cmd, strlen(cmd) > 120 ? "..." : "");
	}
}

int pass_log_setup_error(const struct pass_ctx *ctx, const struct zram_dev *d, const char *attr,
			 const char *cmd, int r)
{
	bool init = false;

	if (r == -ENODEV || r == -ENOENT) {
		log_notice("%s: removed while being configured (%s: %s); not managed", d->name,
			   attr, strerror(-r));
		return -ENODEV;
	}
	/*
	 * recomp_algorithm, algorithm_params (7.1+) and compressed_writeback are EBUSY only on
	 * an initialized device; backing_dev also when the backing device is open elsewhere
	 * (O_EXCL, 6.10+): that one is an error unless the device is initialized now.
	 */
	if (r == -EBUSY && (strcmp(attr, "backing_dev") != 0 ||
			    (zram_read_initstate(ctx->root_fd, d->id, &init) == 0 && init))) {
		log_notice("%s: set up by another tool while being configured (%s: EBUSY after its "
			   "disksize); used as that tool set it up, nothing rewritten",
			   d->name, attr);
		return -EBUSY;
	}
	pass_log_write_error(ctx, d, attr, cmd, r, 0);
	return r == -EBUSY ? -EIO : r;
}
