// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Configuration files: /etc/zram-recompd.conf and its drop-ins, parsed with inih.
 *
 * inih does the INI syntax; this file supplies the line reader (to count lines, strip
 * leading whitespace and catch over-long lines), the sections and the file order, and hands
 * each "key = value" to the key table (config.c). Every error is recorded as one
 * "FILE:LINE: message" string; nothing here logs.
 */
#include "config_internal.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VALUE_MAX 1024

void cfg_sink_add(struct cfg_sink *s, const char *fmt, ...)
{
	va_list ap;

	s->count++;
	if (!s->errs)
		return;
	if (s->errs->n >= CFG_MAX_ERRORS) {
		s->errs->dropped++;
		return;
	}
	va_start(ap, fmt);
	/* A message cut short by a very long path is still useful; truncation is fine. */
	(void)vsnprintf(s->errs->msg[s->errs->n], sizeof(s->errs->msg[0]), fmt, ap);
	va_end(ap);
	s->errs->n++;
}

static void sink_reset(struct cfg_sink *s, struct config_errors *errs)
{
	s->errs = errs;
	s->count = 0;
	if (errs) {
		errs->n = 0;
		errs->dropped = 0;
	}
}

struct parse_ctx {
	struct config *c;
	struct cfg_sink *sink;
	const char *path;
	unsigned file; /* index in load order, stored in cfg_origin */
	FILE *f;
	int read_errno;
	unsigned line;		   /* line most recently returned by the reader */
	bool expect_key;	   /* that line must produce a handler call */
	bool handled;		   /* ... and it did */
	unsigned syntax_line;	   /* first line reported as a syntax error */
	unsigned section_line;	   /* line of the current [section] header */
	unsigned section_err_line; /* header line already reported as bad */
};

static void line_err(struct parse_ctx *ctx, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void line_err(struct parse_ctx *ctx, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_sink_add(ctx->sink, "%s:%u: %s", ctx->path, line, msg);
}

static void key_err(struct parse_ctx *ctx, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void key_err(struct parse_ctx *ctx, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_sink_add(ctx->sink, "%s:%u: key '%s': %s", ctx->path, ctx->line, key, msg);
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

/* Section kinds: -1 invalid, 0 global, 1 device (id set). */
static int section_kind(const char *name, unsigned *ret_id)
{
	if (strcmp(name, "global") == 0)
		return 0;
	if (zram_name_to_id(name, ret_id) == 0)
		return 1;
	return -1;
}

static void section_bad(struct parse_ctx *ctx, const char *name)
{
	ctx->section_err_line = ctx->section_line;
	line_err(ctx, ctx->section_line, "unknown section [%s] (expected [global] or [zramN])",
		 name);
}

/* Called before the next line is read and after the last one: a key line inih rejected. */
static void finish_line(struct parse_ctx *ctx)
{
	if (ctx->expect_key && !ctx->handled) {
		if (!ctx->syntax_line)
			ctx->syntax_line = ctx->line;
		line_err(ctx, ctx->line,
			 "syntax error: expected [section], key = value or a comment");
	}
	ctx->expect_key = false;
	ctx->handled = false;
}

/* Look at a header line ("[...") as inih will see it, to report bad sections even when empty. */
static void check_header(struct parse_ctx *ctx, const char *p)
{
	const char *end = strchr(p, ']');
	char name[64];
	unsigned id;
	size_t n;

	if (!end) {
		if (!ctx->syntax_line)
			ctx->syntax_line = ctx->line;
		line_err(ctx, ctx->line, "section header without closing ']'");
		return;
	}
	ctx->section_line = ctx->line;
	n = (size_t)(end - (p + 1));
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, p + 1, n);
	name[n] = '\0';
	if (section_kind(name, &id) < 0)
		section_bad(ctx, name);
}

/*
 * fgets for inih. Leading whitespace is stripped so that an indented "key = value" is a key
 * and not a continuation of the previous value (inih's multi-line mode, which would
 * silently turn "  compact = never" into a second value of the key above).
 */
static char *reader(char *str, int num, void *stream)
{
	struct parse_ctx *ctx = stream;
	size_t len, skip = 0;
	const char *p;

	bool nul = false;
	int ch = EOF;

	finish_line(ctx);
	if (num < 2)
		return NULL;
	/*
	 * fgets() by hand: a NUL byte would end the string early, so that the line would
	 * look unterminated and the next one be swallowed as its overflow.
	 */
	errno = 0;
	len = 0;
	while (len < (size_t)num - 1 && (ch = getc(ctx->f)) != EOF) {
		str[len++] = (char)ch;
		nul |= ch == '\0';
		if (ch == '\n')
			break;
	}
	if (len == 0) {
		if (ferror(ctx->f))
			ctx->read_errno = errno ? errno : EIO;
		return NULL;
	}
	str[len] = '\0';
	ctx->line++;
	if (str[len - 1] != '\n' && ch != EOF) {
		ch = getc(ctx->f);
		if (ch != '\n' && ch != EOF) {
			while (ch != '\n' && ch != EOF)
				ch = getc(ctx->f);
			line_err(ctx, ctx->line, "line too long (more than %d characters)",
				 num - 1);
			str[0] = '\0';
			return str;
		}
	}
	if (nul) {
		line_err(ctx, ctx->line, "NUL byte in the line");
		str[0] = '\0';
		return str;
	}
	while (is_blank(str[skip]))
		skip++;
	if (skip)
		memmove(str, str + skip, strlen(str + skip) + 1);

	p = str;
	/* inih skips a UTF-8 byte order mark on the first line. */
	if (ctx->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0) {
		p += 3;
		while (is_blank(*p))
			p++;
	}
	if (*p == '\0' || *p == ';' || *p == '#')
		return str;
	if (*p == '[') {
		check_header(ctx, p);
		return str;
	}
	ctx->expect_key = true;
	return str;
}

/* The dev_config a key in section goes to, or NULL (the problem is reported). */
static struct dev_config *section_target(struct parse_ctx *ctx, const char *section)
{
	struct config *c = ctx->c;
	const struct dev_section *found;
	struct dev_section *s;
	unsigned id = 0;
	int kind = section_kind(section, &id);

	if (kind == 0)
		return &c->global;
	if (kind < 0) {
		/* Normally reported by the reader already; once per header in any case. */
		if (ctx->section_err_line != ctx->section_line)
			section_bad(ctx, section);
		return NULL;
	}
	found = cfg_find_section(c, id);
	if (found)
		return &c->sections[found - c->sections].cfg;
	if (c->n_sections == CFG_MAX_DEVICES) {
		if (ctx->section_err_line != ctx->section_line) {
			ctx->section_err_line = ctx->section_line;
			line_err(ctx, ctx->section_line, "too many device sections (at most %d)",
				 CFG_MAX_DEVICES);
		}
		return NULL;
	}
	s = &c->sections[c->n_sections++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	return &s->cfg;
}

/* The value as the key parsers see it, in v: without a trailing comment and blanks. */
static int clean_value(const char *value, char *v, size_t size)
{
	size_t len = strlen(value);
	char *hash;

	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(v, value, len + 1);
	/* inih ends a value at " ;"; accept " #" as well, since no value contains '#'. */
	for (hash = strchr(v, '#'); hash; hash = strchr(hash + 1, '#')) {
		if (hash == v || hash[-1] == ' ' || hash[-1] == '\t') {
			*hash = '\0';
			break;
		}
	}
	len = strlen(v);
	while (len > 0 && is_blank(v[len - 1]))
		v[--len] = '\0';
	return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *ctx = user;
	struct dev_config *d;
	char v[VALUE_MAX], why[CFG_ERR_MAX];
	int r;

	ctx->handled = true;
	if (!*section) {
		line_err(ctx, ctx->line,
			 "key '%s' is outside of any section (add [global] above it)", name);
		return 1;
	}
	d = section_target(ctx, section);
	if (!d)
		return 1;
	if (clean_value(value, v, sizeof(v)) < 0) {
		key_err(ctx, name, "value too long");
		return 1;
	}
	r = cfg_key_set(ctx->c, d, name, v, (struct cfg_origin){ctx->file, ctx->line}, why);
	if (r == -ENOENT)
		line_err(ctx, ctx->line, "unknown key '%s' in section [%s]", name, section);
	else if (r == -EPERM)
		line_err(ctx, ctx->line, "key '%s' is only allowed in [global]", name);
	else if (r < 0)
		key_err(ctx, name, "%s", why);
	/* Always "success" for inih: its error return would only repeat what we recorded. */
	return 1;
}

/*
 * Parse one file into c. Returns 0, -ENOENT when it does not exist (not recorded), or
 * -errno when it cannot be opened or read (recorded). Syntax and value errors are
 * recorded in the sink only.
 */
static int parse_file(struct config *c, const char *path, unsigned file, struct cfg_sink *sink)
{
	struct parse_ctx ctx = {
		.c = c,
		.sink = sink,
		.path = path,
		.file = file,
	};
	struct stat st;
	int fd, r;

	/* Non-blocking open: a FIFO would wait for a writer; only regular files are read. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			cfg_sink_add(sink, "%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		cfg_sink_add(sink, "%s: cannot stat: %s", path, strerror(-r));
		close(fd);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		cfg_sink_add(sink, "%s: is a directory", path);
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		cfg_sink_add(sink, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	ctx.f = fdopen(fd, "re");
	if (!ctx.f) {
		r = -errno;
		cfg_sink_add(sink, "%s: cannot open: %s", path, strerror(-r));
		close(fd);
		return r;
	}

	r = ini_parse_stream(reader, &ctx, handler, &ctx);
	finish_line(&ctx);
	fclose(ctx.f);
	if (ctx.read_errno) {
		cfg_sink_add(sink, "%s: read error: %s", path, strerror(ctx.read_errno));
		return -ctx.read_errno;
	}
	if (r == -2) {
		cfg_sink_add(sink, "%s: out of memory", path);
		return -ENOMEM;
	}
	/*
	 * r > 0: inih's first bad line; report it unless the reader already did (it may see
	 * "[a ;]" as a bad name where inih sees a header cut short by a comment).
	 */
	if (r > 0 && (unsigned)r != ctx.syntax_line && (unsigned)r != ctx.section_err_line)
		line_err(&ctx, (unsigned)r, "syntax error");
	return 0;
}

int config_load_file(struct config *c, const char *path, struct config_errors *errs)
{
	struct cfg_sink sink;
	const char *paths[1] = {path};
	int r;

	sink_reset(&sink, errs);
	r = parse_file(c, path, 0, &sink);
	if (r == -ENOENT)
		cfg_sink_add(&sink, "%s: cannot open: %s", path, strerror(ENOENT));
	cfg_validate(c, paths, &sink);
	if (r < 0)
		return r;
	return sink.count ? -EINVAL : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool dropin_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/*
 * Append "<dir>/<name>" for every *.conf regular file (or symlink to one) in dir, sorted.
 * A missing directory gives no files; other errors are recorded and returned.
 */
static int list_dropins(const char *dir, char ***paths, unsigned *n, struct cfg_sink *sink)
{
	char **names = NULL;
	unsigned count = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd, q = 0, r = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			return 0;
		cfg_sink_add(sink, "%s: cannot open drop-in directory: %s", dir, strerror(-r));
		return r;
	}
	r = dir_open_fd(fd, &d);
	if (r < 0) {
		cfg_sink_add(sink, "%s: cannot open drop-in directory: %s", dir, strerror(-r));
		return r;
	}
	while ((q = dir_next(d, &de)) > 0) {
		struct stat st;

		if (!dropin_name(de->d_name))
			continue;
		/* Follows symlinks: one to /dev/null masks a file of that name, as in systemd. */
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (count == cap) {
			unsigned ncap = cap ? 2 * cap : 16;
			char **nn = realloc(names, ncap * sizeof(*names));

			if (!nn) {
				r = -ENOMEM;
				break;
			}
			names = nn;
			cap = ncap;
		}
		if (asprintf(&names[count], "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		count++;
	}
	closedir(d);
	if (q < 0) {
		r = q;
		cfg_sink_add(sink, "%s: cannot read drop-in directory: %s", dir, strerror(-r));
	}
	if (r == -ENOMEM)
		cfg_sink_add(sink, "%s: out of memory", dir);
	if (count)
		qsort(names, count, sizeof(*names), cmp_str);
	*paths = names;
	*n = count;
	return r;
}

int config_load(struct config *c, const char *main_path, const char *dropin_dir,
		struct config_errors *errs)
{
	struct cfg_sink sink;
	char **dropins = NULL;
	const char **paths;
	unsigned n_dropins = 0;
	int r = 0, q;

	config_init(c);
	sink_reset(&sink, errs);
	if (dropin_dir) {
		q = list_dropins(dropin_dir, &dropins, &n_dropins, &sink);
		if (q < 0)
			r = q;
	}
	paths = calloc(n_dropins + 1, sizeof(*paths));
	if (!paths) {
		for (unsigned i = 0; i < n_dropins; i++)
			free(dropins[i]);
		free(dropins);
		cfg_sink_add(&sink, "%s: out of memory", main_path ? main_path : "configuration");
		return -ENOMEM;
	}
	/* File index 0 is the main file even when it is absent, so origins stay stable. */
	paths[0] = main_path ? main_path : "(none)";
	if (main_path) {
		q = parse_file(c, main_path, 0, &sink);
		if (q < 0 && q != -ENOENT && r == 0)
			r = q;
	}
	for (unsigned i = 0; i < n_dropins; i++) {
		paths[i + 1] = dropins[i];
		q = parse_file(c, dropins[i], i + 1, &sink);
		/* A file that vanished since the listing counts as absent. */
		if (q < 0 && q != -ENOENT && r == 0)
			r = q;
	}
	cfg_validate(c, paths, &sink);

	for (unsigned i = 0; i < n_dropins; i++)
		free(dropins[i]);
	free(dropins);
	free(paths);
	if (r < 0)
		return r;
	return sink.count ? -EINVAL : 0;
}
