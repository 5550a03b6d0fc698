// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The state directory, persisted per-device totals and the Prometheus textfile export.
 *
 * State file format, version 2 (every line ends in '\n', single spaces, nothing else):
 *
 *	zram-recompd-state 2
 *	zram0 passes=N pages_attempted=N bytes_saved=N mem_freed=N incompressible=N
 *	      kernel_ns=N errors=N last_pass_unix=N wb_pages=N wb_day_left=N
 *	      wb_day_at=N			(one line per device, wrapped here)
 *
 * Each version requires every one of its keys exactly once, in any order. Version 1 (the
 * same without the wb_ keys) is still read, its writeback figures 0 (a full day budget);
 * every save writes version 2. A reader that meets another
 * version, a foreign first line or anything it does not understand rejects the whole file
 * (-EBADMSG): totals are statistics, so starting from zero is always safe, while guessing
 * at half-understood numbers is not. A new field means a new version number.
 */
#include "state.h"
#include "policy.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_FILE "state"
#define STATE_MAGIC "zram-recompd-state"
#define STATE_VERSION 2
/*
 * A line is at most 274 bytes: 16 MiB holds 61,000 devices at that length, far more than
 * any machine runs (each zram device costs kernel memory); anything larger is not ours.
 */
#define STATE_MAX_SIZE (16 * 1024 * 1024)
#define NS_PER_SEC ((uint64_t)1000000000)

static const struct {
	const char *key;
	size_t off;
	unsigned since; /* the file version that added the key */
} state_keys[] = {
	{ "passes", offsetof(struct dev_totals, passes), 1 },
	{ "pages_attempted", offsetof(struct dev_totals, pages_attempted), 1 },
	{ "bytes_saved", offsetof(struct dev_totals, bytes_saved), 1 },
	{ "mem_freed", offsetof(struct dev_totals, mem_freed), 1 },
	{ "incompressible", offsetof(struct dev_totals, incompressible), 1 },
	{ "kernel_ns", offsetof(struct dev_totals, kernel_ns), 1 },
	{ "errors", offsetof(struct dev_totals, errors), 1 },
	{ "last_pass_unix", offsetof(struct dev_totals, last_pass_unix), 1 },
	{ "wb_pages", offsetof(struct dev_totals, wb_pages), 2 },
	{ "wb_day_left", offsetof(struct dev_totals, wb_day_left), 2 },
	{ "wb_day_at", offsetof(struct dev_totals, wb_day_at), 2 },
};

int state_dir_resolve(const char *override, const char *systemd_dirs, char *buf, size_t size)
{
	int r;

	if (override && *override)
		r = str_printf(buf, size, "%s", override);
	else if (systemd_dirs && *systemd_dirs && *systemd_dirs != ':')
		r = str_printf(buf, size, "%.*s", (int)strcspn(systemd_dirs, ":"), systemd_dirs);
	else
		r = str_printf(buf, size, "%s", STATE_DIR_DEFAULT);
	return r < 0 ? -ENAMETOOLONG : 0;
}

int state_dir_path(char *buf, size_t size)
{
	return state_dir_resolve(secure_getenv("ZRAM_RECOMPD_STATE_DIR"),
				 secure_getenv("STATE_DIRECTORY"), buf, size);
}

int state_dir_open(const char *dir, bool create)
{
	int fd;

	if (create && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static uint64_t *totals_field(struct dev_totals *d, size_t i)
{
	return (uint64_t *)((char *)d + state_keys[i].off);
}

static uint64_t totals_value(const struct dev_totals *d, size_t i)
{
	const uint64_t *p = (const uint64_t *)((const char *)d + state_keys[i].off);

	return *p;
}

/* Names are copied into char[16] and printed unescaped as Prometheus label values. */
static bool name_ok(const char *name)
{
	return zram_name_valid(name) && strlen(name) < sizeof(((struct dev_totals *)0)->name);
}

static struct dev_totals *state_find(struct state *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->dev[i].name, name) == 0)
			return &s->dev[i];
	return NULL;
}

void state_add_pass(struct dev_totals *t, uint64_t pages, int64_t saved, int64_t freed,
		    uint64_t new_incompressible, uint64_t kernel_ns, bool error, uint64_t now_unix)
{
	t->passes++;
	t->pages_attempted = sat_add_u64(t->pages_attempted, pages);
	t->bytes_saved = sat_add_u64(t->bytes_saved, saved > 0 ? (uint64_t)saved : 0);
	t->mem_freed = sat_add_u64(t->mem_freed, freed > 0 ? (uint64_t)freed : 0);
	t->incompressible = sat_add_u64(t->incompressible, new_incompressible);
	t->kernel_ns = sat_add_u64(t->kernel_ns, kernel_ns);
	t->errors += error;
	t->last_pass_unix = now_unix;
}

uint64_t state_wb_day_left(struct dev_totals *t, uint64_t per_day, uint64_t now_unix)
{
	uint64_t at;

	t->wb_day_left = policy_wb_refill(t->wb_day_left, t->wb_day_at, now_unix, per_day, &at);
	t->wb_day_at = at;
	return t->wb_day_left;
}

void state_wb_charge(struct dev_totals *t, uint64_t pages, uint32_t page_size, uint64_t per_day,
		     uint64_t now_unix)
{
	state_wb_settle(t, 0, pages, page_size, per_day, now_unix);
}

void state_wb_reserve(struct dev_totals *t, uint64_t pages, uint32_t page_size, uint64_t per_day,
		      uint64_t now_unix)
{
	(void)state_wb_day_left(t, per_day, now_unix);
	t->wb_day_left = sat_sub_u64(t->wb_day_left, sat_mul_u64(pages, page_size));
}

void state_wb_settle(struct dev_totals *t, uint64_t reserved, uint64_t pages, uint32_t page_size,
		     uint64_t per_day, uint64_t now_unix)
{
	(void)state_wb_day_left(t, per_day, now_unix);
	t->wb_pages = sat_add_u64(t->wb_pages, pages);
	if (pages > reserved) {
		/* more than reserved (not with the kernel's limit, but never trust that) */
		t->wb_day_left = sat_sub_u64(t->wb_day_left,
					     sat_mul_u64(pages - reserved, page_size));
		return;
	}
	t->wb_day_left = sat_add_u64(t->wb_day_left, sat_mul_u64(reserved - pages, page_size));
	if (t->wb_day_left > per_day)
		t->wb_day_left = per_day;
}

/* Room for one more entry; pointers into s->dev are stale after a growth. */
static int state_grow(struct state *s)
{
	void *v = s->dev;
	int r = array_reserve(&v, &s->cap, s->n, sizeof(*s->dev), 8);

	s->dev = v;
	return r;
}

void state_free(struct state *s)
{
	free(s->dev);
	memset(s, 0, sizeof(*s));
}

struct dev_totals *state_get(struct state *s, const char *name)
{
	struct dev_totals *d;

	if (!s || !name_ok(name)) {
		errno = EINVAL;
		return NULL;
	}
	d = state_find(s, name);
	if (d)
		return d;
	if (state_grow(s) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	d = &s->dev[s->n++];
	memset(d, 0, sizeof(*d));
	memcpy(d->name, name, strlen(name) + 1);
	return d;
}

/* Growable output buffer; the first failure sticks and is reported once at the end. */
struct obuf {
	char *p;
	size_t len, cap;
	int err;
};

static void obuf_printf(struct obuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void obuf_printf(struct obuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t cap;
	char *np;
	int n;

	if (b->err)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		cap = b->cap ? b->cap : 4096;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
}

/* Random suffix for temporary names; uniqueness is enforced by O_EXCL, not by this. */
static void random_suffix(char *out, size_t n)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned counter;
	unsigned char rnd[16];
	uint64_t mix;

	if (n > sizeof(rnd))
		n = sizeof(rnd);
	/* Without entropy (early boot, seccomp) fall back to a clock/pid/counter mix. */
	if (getrandom(rnd, n, GRND_NONBLOCK) != (ssize_t)n) {
		mix = now_monotonic_ns() ^ ((uint64_t)getpid() << 32) ^ ((uint64_t)++counter << 48);
		for (size_t i = 0; i < n; i++) {
			mix = mix * 6364136223846793005ULL + 1442695040888963407ULL;
			rnd[i] = (unsigned char)(mix >> 56);
		}
	}
	for (size_t i = 0; i < n; i++)
		out[i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
	out[n] = '\0';
}

/*
 * Replace dfd/name with data: temp file "<name>.tmpXXXXXX" in the same directory, fsync,
 * renameat, fsync of the directory. dfd must be a real (not O_PATH) directory fd, since
 * fsync needs one. A named temp file rather than O_TMPFILE: linkat() cannot replace an
 * existing name, and linking via /proc/self/fd would follow a magic link.
 * The temp name never ends in ".prom", so the textfile collector never sees a partial file.
 */
static int replace_file(int dfd, const char *name, const char *data, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	size_t base = strlen(name);
	int fd = -1, r;

	if (base == 0 || base + strlen(".tmpXXXXXX") > NAME_MAX)
		return -ENAMETOOLONG;
	for (int tries = 0;; tries++) {
		memcpy(tmp, name, base);
		memcpy(tmp + base, ".tmp", 4);
		random_suffix(tmp + base + 4, 6);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			break;
		if (errno != EEXIST || tries >= 100)
			return -errno;
	}

	/* The umask may have narrowed the mode; readers (node_exporter) need 0644. */
	if (fchmod(fd, mode) < 0) {
		r = -errno;
		goto fail;
	}
	r = write_full(fd, data, len); /* write(2): test_state_crash kills at each call */
	if (r < 0)
		goto fail;
	if (fsync(fd) < 0) {
		r = -errno;
		goto fail;
	}
	r = close(fd);
	fd = -1;
	if (r < 0) {
		r = -errno;
		goto fail;
	}
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = -errno;
		goto fail;
	}
	/* The new name is in place; a failure here means it may not survive a crash. */
	if (fsync(dfd) < 0)
		return -errno;
	return 0;

fail:
	if (fd >= 0)
		(void)close(fd);
	(void)unlinkat(dfd, tmp, 0);
	return r;
}

/* name is "<base>.tmp" and the 6 characters random_suffix() gives. */
static bool is_temp_of(const char *name, const char *base)
{
	size_t n = strlen(base);

	if (strncmp(name, base, n) != 0 || strncmp(name + n, ".tmp", 4) != 0 ||
	    strlen(name + n + 4) != 6)
		return false;
	for (const char *p = name + n + 4; *p; p++)
		if (!isalnum((unsigned char)*p))
			return false;
	return true;
}

int state_remove_stale_temps(int dir_fd, const char *base)
{
	struct dirent *de;
	int fd, q, r = 0, removed = 0;
	DIR *d;

	if (!*base || strchr(base, '/'))
		return -EINVAL;
	fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = dir_open_fd(fd, &d);
	if (r < 0)
		return r;
	while ((q = dir_next(d, &de)) > 0) {
		struct stat st;

		if (!is_temp_of(de->d_name, base))
			continue;
		/* Only what replace_file() creates: a regular file, never a link. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
		else if (errno != ENOENT && r == 0)
			r = -errno;
	}
	closedir(d);
	if (q < 0 && r == 0)
		r = q;
	return r < 0 ? r : removed;
}

static int state_check(const struct state *s)
{
	if (s->n > s->cap)
		return -EINVAL;
	for (unsigned i = 0; i < s->n; i++) {
		if (strnlen(s->dev[i].name, sizeof(s->dev[i].name)) == sizeof(s->dev[i].name) ||
		    !name_ok(s->dev[i].name))
			return -EINVAL;
		for (unsigned j = 0; j < i; j++)
			if (strcmp(s->dev[i].name, s->dev[j].name) == 0)
				return -EINVAL;
	}
	return 0;
}

/* Parse one device line (no '\n', NUL-terminated, no embedded NULs) of a version into d. */
static int parse_dev_line(char *line, unsigned version, struct dev_totals *d)
{
	bool seen[ARRAY_SIZE(state_keys)] = { false };
	char *tok, *next;

	memset(d, 0, sizeof(*d));
	next = strchr(line, ' ');
	if (!next)
		return -EBADMSG;
	*next++ = '\0';
	if (!name_ok(line))
		return -EBADMSG;
	memcpy(d->name, line, strlen(line) + 1);

	for (tok = next; tok; tok = next) {
		char *eq;
		size_t i;
		uint64_t v;

		next = strchr(tok, ' ');
		if (next)
			*next++ = '\0';
		eq = strchr(tok, '=');
		if (!eq)
			return -EBADMSG;
		*eq = '\0';
		for (i = 0; i < ARRAY_SIZE(state_keys); i++)
			if (state_keys[i].since <= version && strcmp(tok, state_keys[i].key) == 0)
				break;
		if (i == ARRAY_SIZE(state_keys) || seen[i])
			return -EBADMSG;
		if (parse_u64(eq + 1, &v) < 0)
			return -EBADMSG;
		seen[i] = true;
		*totals_field(d, i) = v;
	}
	for (size_t i = 0; i < ARRAY_SIZE(state_keys); i++)
		if (!seen[i] && state_keys[i].since <= version)
			return -EBADMSG;
	return 0;
}

static int parse_state(char *buf, size_t len, struct state *s)
{
	char *p = buf, *end = buf + len;
	unsigned version = 0;
	bool first = true;

	_Static_assert(STATE_VERSION == 2, "parse_state() understands versions 1 and 2");
	if (memchr(buf, '\0', len))
		return -EBADMSG;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		struct dev_totals d;
		int r;

		/* A missing final newline means the file was cut short. */
		if (!nl)
			return -EBADMSG;
		*nl = '\0';
		if (first) {
			if (strcmp(p, STATE_MAGIC " 1") == 0)
				version = 1;
			else if (strcmp(p, STATE_MAGIC " 2") == 0)
				version = 2;
			else
				return -EBADMSG;
			first = false;
		} else {
			r = parse_dev_line(p, version, &d);
			if (r < 0)
				return r;
			if (state_find(s, d.name))
				return -EBADMSG;
			if (state_grow(s) < 0)
				return -ENOMEM;
			s->dev[s->n++] = d;
		}
		p = nl + 1;
	}
	return first ? -EBADMSG : 0;
}

int state_read_file(int dir_fd, const char *name, size_t max, char **ret_buf, size_t *ret_len)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap;
	int fd, r = 0;

	*ret_buf = NULL;
	*ret_len = 0;
	/* O_NONBLOCK: a FIFO planted under the name must not hang the daemon in open(). */
	fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = S_ISDIR(st.st_mode) ? -EISDIR : -EBADMSG;
		goto out;
	}
	/*
	 * One byte more than allowed, to tell "exactly max" from "larger"; sized by the file
	 * (max may be large), growing should it grow while read.
	 */
	cap = (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1;
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t ncap = cap > (max + 1) / 2 ? max + 1 : 2 * cap;
			char *nb = realloc(buf, ncap);

			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			r = -EBADMSG;
			goto out;
		}
	}
out:
	(void)close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

int state_load(struct state *s, int dir_fd)
{
	char *buf;
	size_t len;
	int r;

	memset(s, 0, sizeof(*s));
	r = state_read_file(dir_fd, STATE_FILE, STATE_MAX_SIZE, &buf, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = parse_state(buf, len, s);
	if (r < 0)
		state_free(s);
	free(buf);
	return r;
}

int state_save(const struct state *s, int dir_fd)
{
	struct obuf b = { 0 };
	int dfd, r;

	r = state_check(s);
	if (r < 0)
		return r;
	obuf_printf(&b, "%s %d\n", STATE_MAGIC, STATE_VERSION);
	for (unsigned i = 0; i < s->n; i++) {
		obuf_printf(&b, "%s", s->dev[i].name);
		for (size_t k = 0; k < ARRAY_SIZE(state_keys); k++)
			obuf_printf(&b, " %s=%" PRIu64, state_keys[k].key,
				    totals_value(&s->dev[i], k));
		obuf_printf(&b, "\n");
	}
	if (b.err) {
		r = b.err;
		goto out;
	}
	/* dir_fd may be O_PATH (no fsync, no I/O); reopen the directory for real. */
	dfd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		goto out;
	}
	r = replace_file(dfd, STATE_FILE, b.p, b.len, 0644);
	(void)close(dfd);
out:
	free(b.p);
	return r;
}

int state_write_file(int dir_fd, const char *name, const char *data, size_t len)
{
	int dfd, r;

	/* dir_fd may be O_PATH (no fsync, no I/O); reopen the directory for real. */
	dfd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	r = replace_file(dfd, name, data, len, 0644);
	(void)close(dfd);
	return r;
}

/* Nanoseconds as exact decimal seconds, trailing zeros dropped: 1500000000 -> "1.5". */
static void print_seconds(struct obuf *b, uint64_t ns)
{
	char frac[10];
	int i;

	if (ns % NS_PER_SEC == 0) {
		obuf_printf(b, "%" PRIu64, ns / NS_PER_SEC);
		return;
	}
	(void)str_printf(frac, sizeof(frac), "%09" PRIu64, ns % NS_PER_SEC);
	for (i = 8; i > 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	obuf_printf(b, "%" PRIu64 ".%s", ns / NS_PER_SEC, frac);
}

/*
 * M_LIVE_OPT: UINT64_MAX means unknown and the sample is left out. M_TOTALS_WB: left out
 * while the device's day budget was never used (wb_day_at 0: writeback off), where 0 would
 * read as "budget spent".
 */
enum metric_src { M_TOTALS, M_TOTALS_WB, M_SECONDS, M_LIVE, M_LIVE_OPT, M_LIVE_SECONDS_OPT };

static const struct {
	const char *name;
	const char *type;
	const char *help;
	enum metric_src src;
	size_t off; /* into struct dev_totals or struct dev_live */
} metrics[] = {
	{ "zram_recompd_passes_total", "counter", "Completed recompression passes.", M_TOTALS,
	  offsetof(struct dev_totals, passes) },
	{ "zram_recompd_pages_attempted_total", "counter",
	  "Pages offered to recompress (sum of max_pages; the kernel reports no count).", M_TOTALS,
	  offsetof(struct dev_totals, pages_attempted) },
	{ "zram_recompd_saved_bytes_total", "counter",
	  "Reductions of compr_data_size across passes.", M_TOTALS,
	  offsetof(struct dev_totals, bytes_saved) },
	{ "zram_recompd_freed_bytes_total", "counter",
	  "Reductions of mem_used_total across passes, compaction included.", M_TOTALS,
	  offsetof(struct dev_totals, mem_freed) },
	{ "zram_recompd_incompressible_pages_total", "counter",
	  "Pages newly marked incompressible by passes.", M_TOTALS,
	  offsetof(struct dev_totals, incompressible) },
	{ "zram_recompd_kernel_seconds_total", "counter",
	  "Time spent in recompress, compact and idle writes.", M_SECONDS,
	  offsetof(struct dev_totals, kernel_ns) },
	{ "zram_recompd_errors_total", "counter", "Passes that ended with an error.", M_TOTALS,
	  offsetof(struct dev_totals, errors) },
	{ "zram_recompd_last_pass_timestamp_seconds", "gauge",
	  "Unix time of the last pass, 0 if none.", M_TOTALS,
	  offsetof(struct dev_totals, last_pass_unix) },
	{ "zram_recompd_writeback_pages_total", "counter",
	  "Pages written back to the backing device by passes.", M_TOTALS,
	  offsetof(struct dev_totals, wb_pages) },
	{ "zram_recompd_writeback_day_left_bytes", "gauge",
	  "Writeback day budget left at the last pass (refills over 24 h); no sample for a "
	  "device without writeback.",
	  M_TOTALS_WB, offsetof(struct dev_totals, wb_day_left) },
	{ "zram_recompd_orig_data_bytes", "gauge", "Uncompressed size of stored data (mm_stat).",
	  M_LIVE, offsetof(struct dev_live, orig_data_size) },
	{ "zram_recompd_compr_data_bytes", "gauge", "Compressed size of stored data (mm_stat).",
	  M_LIVE, offsetof(struct dev_live, compr_data_size) },
	{ "zram_recompd_mem_used_bytes", "gauge", "Memory used by the device (mm_stat).", M_LIVE,
	  offsetof(struct dev_live, mem_used_total) },
	{ "zram_recompd_huge_pages", "gauge", "Pages stored uncompressed (mm_stat).", M_LIVE,
	  offsetof(struct dev_live, huge_pages) },
	{ "zram_recompd_page_size_bytes", "gauge",
	  "The kernel's page size, the unit of every pages figure here.", M_LIVE,
	  offsetof(struct dev_live, page_size) },
	{ "zram_recompd_incompressible_pages", "gauge",
	  "Pages flagged incompressible (debugfs block_state).", M_LIVE_OPT,
	  offsetof(struct dev_live, incompressible) },
	{ "zram_recompd_last_pass_longest_write_seconds", "gauge",
	  "The longest single recompress write of the last pass (max-write-ms bounds it).",
	  M_LIVE_SECONDS_OPT, offsetof(struct dev_live, longest_write_ns) },
	{ "zram_recompd_backing_dev_pages", "gauge",
	  "Pages stored on the backing device (bd_stat bd_count).", M_LIVE_OPT,
	  offsetof(struct dev_live, bd_count) },
	{ "zram_recompd_backing_dev_writes_pages", "counter",
	  "Pages written to the backing device since setup (bd_stat bd_writes).",
	  M_LIVE_OPT, offsetof(struct dev_live, bd_writes) },
};

static uint64_t field_at(const void *base, size_t off)
{
	const uint64_t *p = (const uint64_t *)((const char *)base + off);

	return *p;
}

static int format_metrics(struct obuf *b, const struct state *s, const struct dev_live *live,
			  unsigned n_live)
{
	/* Which program wrote the file: dashboards tell versions apart by this label. */
	obuf_printf(b, "# HELP zram_recompd_build_info The zram-recompd version that wrote this file.\n"
		       "# TYPE zram_recompd_build_info gauge\n"
		       "zram_recompd_build_info{version=\"%s\"} 1\n",
		    VERSION);
	for (size_t m = 0; m < ARRAY_SIZE(metrics); m++) {
		bool is_live = metrics[m].src == M_LIVE || metrics[m].src == M_LIVE_OPT ||
			       metrics[m].src == M_LIVE_SECONDS_OPT;
		unsigned n = is_live ? n_live : s->n;

		obuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", metrics[m].name, metrics[m].help,
			    metrics[m].name, metrics[m].type);
		for (unsigned i = 0; i < n; i++) {
			const char *name = is_live ? live[i].name : s->dev[i].name;
			uint64_t v = is_live ? field_at(&live[i], metrics[m].off) :
					       field_at(&s->dev[i], metrics[m].off);

			/* block_state unavailable: no sample rather than a made-up number. */
			if ((metrics[m].src == M_LIVE_OPT || metrics[m].src == M_LIVE_SECONDS_OPT) &&
			    v == UINT64_MAX)
				continue;
			if (metrics[m].src == M_TOTALS_WB && s->dev[i].wb_day_at == 0)
				continue;
			obuf_printf(b, "%s{device=\"%s\"} ", metrics[m].name, name);
			if (metrics[m].src == M_SECONDS || metrics[m].src == M_LIVE_SECONDS_OPT)
				print_seconds(b, v);
			else
				obuf_printf(b, "%" PRIu64, v);
			obuf_printf(b, "\n");
		}
	}
	return b->err;
}

int metrics_split_path(const char *path, char *dir, const char **ret_base)
{
	const char *slash, *base;

	if (!path || path[0] != '/')
		return -EINVAL;
	slash = strrchr(path, '/');
	base = slash + 1;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EINVAL;
	if ((size_t)(slash - path) + 2 > PATH_MAX)
		return -ENAMETOOLONG;
	/* "/x" lives in "/"; "/a/b/x" in "/a/b". */
	memcpy(dir, path, slash == path ? 1 : (size_t)(slash - path));
	dir[slash == path ? 1 : (size_t)(slash - path)] = '\0';
	*ret_base = base;
	return 0;
}

int metrics_remove_stale_temps(const char *path)
{
	char dir[PATH_MAX];
	const char *base;
	int dfd, r;

	r = metrics_split_path(path, dir, &base);
	if (r < 0)
		return r;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	r = state_remove_stale_temps(dfd, base);
	close(dfd);
	return r;
}

int metrics_write(const char *path, const struct state *s, const struct dev_live *live,
		  unsigned n_live)
{
	char dir[PATH_MAX];
	const char *base;
	struct obuf b = { 0 };
	int dfd, r;

	if (!path || path[0] != '/' || !s || (n_live && !live))
		return -EINVAL;
	r = state_check(s);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < n_live; i++)
		if (strnlen(live[i].name, sizeof(live[i].name)) == sizeof(live[i].name) ||
		    !name_ok(live[i].name))
			return -EINVAL;

	r = metrics_split_path(path, dir, &base);
	if (r < 0)
		return r;
	r = format_metrics(&b, s, live, n_live);
	if (r < 0)
		goto out;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		goto out;
	}
	r = replace_file(dfd, base, b.p, b.len, 0644);
	(void)close(dfd);
out:
	free(b.p);
	return r;
}

void dev_live_fill(struct dev_live *l, const struct zram_dev *d, uint64_t incompressible)
{
	memset(l, 0, sizeof(*l));
	(void)str_printf(l->name, sizeof(l->name), "%s", d->name);
	l->orig_data_size = d->mm.v[MM_ORIG_DATA_SIZE];
	l->compr_data_size = d->mm.v[MM_COMPR_DATA_SIZE];
	l->mem_used_total = d->mm.v[MM_MEM_USED_TOTAL];
	l->huge_pages = d->mm.v[MM_HUGE_PAGES];
	l->incompressible = incompressible;
	l->longest_write_ns = UINT64_MAX;
	l->page_size = d->page_size;
	/* bd_stat counts 4 KiB units (zram.h, ZRAM_WB_UNIT): as pages like the others */
	l->bd_count = d->has_bd_stat ? zram_units_to_pages(d, d->bd_stat[0]) : UINT64_MAX;
	l->bd_writes = d->has_bd_stat ? zram_units_to_pages(d, d->bd_stat[2]) : UINT64_MAX;
}
