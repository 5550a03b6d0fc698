// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Configuration files: zram-recompd.conf and its drop-ins along systemd's search path (or
 * one --config FILE), in INI syntax.
 *
 * This file finds the files (search path, masking, merge order), reads their lines (up to
 * CFG_LINE_MAX characters: a distribution's inih library is built with lines of 200 bytes,
 * too short for a long path or device list) and sections, and hands each "key = value" to
 * the key table (config.c). Every error is recorded as one "FILE:LINE: message" string;
 * nothing here logs.
 */
#include "config_internal.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void sink_reset(struct cfg_sink *s, struct config_errors *errs)
{
	s->errs = errs;
	s->count = 0;
	if (errs) {
		errs->n = 0;
		errs->dropped = 0;
		errs->n_warn = 0;
	}
}

struct parse_ctx {
	struct config *c;
	struct cfg_sink *sink;
	const char *path;
	unsigned file; /* index in load order, stored in cfg_origin */
	FILE *f;
	unsigned line; /* the line being parsed */
	bool in_section;
	bool ignore;		   /* the current section's keys are ignored (reported once) */
	struct dev_config *target; /* where the current section's keys go, once known */
	char section[64];	   /* the current section's name, for messages */
	unsigned section_line;	   /* its header line */
	struct seen *seen;	   /* the sections and keys of this file so far */
	unsigned n_seen, cap_seen;
};

/* A section header (key "") or a key of a section, and its last line in the file. */
struct seen {
	char section[64];
	char key[64];
	unsigned line;
};

static void line_err(struct parse_ctx *ctx, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A repeat in one file of section or key (""): the line of the previous one, now line; 0
 * for the first (or when the list is full: no warning rather than a wrong one).
 */
static unsigned seen_before(struct parse_ctx *ctx, const char *section, const char *key)
{
	struct seen *s;
	unsigned prev;
	void *v;

	for (unsigned i = 0; i < ctx->n_seen; i++) {
		s = &ctx->seen[i];
		if (strcmp(s->section, section) == 0 && strcmp(s->key, key) == 0) {
			prev = s->line;
			s->line = ctx->line;
			return prev;
		}
	}
	v = ctx->seen;
	if (strlen(key) >= sizeof(s->key) ||
	    array_reserve(&v, &ctx->cap_seen, ctx->n_seen, sizeof(*ctx->seen), 16) < 0)
		return 0;
	ctx->seen = v;
	s = &ctx->seen[ctx->n_seen++];
	(void)str_printf(s->section, sizeof(s->section), "%s", section);
	(void)str_printf(s->key, sizeof(s->key), "%s", key);
	s->line = ctx->line;
	return 0;
}

/* "FILE:LINE: warning: ..." of a repeat (not an error: the file loads). */
static void repeat_warn(struct parse_ctx *ctx, const char *key, unsigned prev)
{
	struct config_errors *e = ctx->sink->errs;
	char raw[512];

	if (!prev || !e || e->n_warn >= CFG_MAX_WARNINGS)
		return;
	if (*key)
		(void)str_printf(raw, sizeof(raw),
				 "%s:%u: warning: key '%s' again in [%s] (line %u set it too): "
				 "this later value wins",
				 ctx->path, ctx->line, key, ctx->section, prev);
	else
		(void)str_printf(raw, sizeof(raw),
				 "%s:%u: warning: section [%s] again (line %u started it too): "
				 "the two are merged, a later value of a key wins",
				 ctx->path, ctx->line, ctx->section, prev);
	str_escape_bytes(raw, e->warn[e->n_warn++], sizeof(e->warn[0]));
}

/* "FILE:LINE: prefix msg", the file's bytes escaped (str_escape_bytes): they are input. */
static void add_escaped(struct parse_ctx *ctx, unsigned line, const char *prefix, const char *msg)
{
	char raw[512], out[512];

	(void)str_printf(raw, sizeof(raw), "%s:%u: %s%s", ctx->path, line, prefix, msg);
	str_escape_bytes(raw, out, sizeof(out));
	cfg_sink_add(ctx->sink, "%s", out);
}

static void line_err(struct parse_ctx *ctx, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	add_escaped(ctx, line, "", msg);
}

static void key_err(struct parse_ctx *ctx, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void key_err(struct parse_ctx *ctx, const char *key, const char *fmt, ...)
{
	char msg[512], prefix[CFG_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)str_printf(prefix, sizeof(prefix), "key '%s': ", key);
	add_escaped(ctx, ctx->line, prefix, msg);
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

/* The dev_config of [zramN], created with its header line as origin; NULL when full. */
static struct dev_config *device_section(struct parse_ctx *ctx, unsigned id)
{
	struct config *c = ctx->c;
	const struct dev_section *found = cfg_find_section(c, id);
	struct dev_section *s;
	void *v;

	if (found)
		return &c->sections[found - c->sections].cfg;
	v = c->sections;
	if (array_reserve(&v, &c->cap_sections, c->n_sections, sizeof(*c->sections), 4) < 0) {
		line_err(ctx, ctx->section_line, "[zram%u]: out of memory", id);
		return NULL;
	}
	c->sections = v;
	s = &c->sections[c->n_sections++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->origin = (struct cfg_origin){ctx->file, ctx->section_line};
	return &s->cfg;
}

/*
 * A "[NAME]" line (p at '['). Only blanks or a comment may follow the ']'. A device
 * section is created at its first key, so that an empty [zramN] is no section at all.
 */
static void parse_header(struct parse_ctx *ctx, char *p)
{
	char *end = strchr(p, ']');
	const char *rest;
	size_t n;

	/* After a broken header its keys are ignored: they were meant for another section. */
	ctx->in_section = true;
	ctx->ignore = true;
	ctx->target = NULL;
	strcpy(ctx->section, "?");
	if (!end) {
		line_err(ctx, ctx->line, "section header without closing ']'");
		return;
	}
	for (rest = end + 1; *rest && is_blank(*rest); rest++)
		;
	if (*rest && *rest != ';' && *rest != '#') {
		line_err(ctx, ctx->line, "syntax error: text after the section header");
		return;
	}
	n = (size_t)(end - (p + 1));
	if (n >= sizeof(ctx->section))
		n = sizeof(ctx->section) - 1;
	memcpy(ctx->section, p + 1, n);
	ctx->section[n] = '\0';
	ctx->section_line = ctx->line;
	*end = '\0';
	ctx->ignore = section_kind(p + 1, &(unsigned){0}) < 0;
	if (ctx->ignore)
		line_err(ctx, ctx->line, "unknown section [%s] (expected [global] or [zramN])",
			 ctx->section);
	else
		repeat_warn(ctx, "", seen_before(ctx, ctx->section, ""));
}

/* The dev_config a key of the current section goes to, or NULL (reported, or ignored). */
static struct dev_config *section_target(struct parse_ctx *ctx)
{
	unsigned id = 0;
	int kind = section_kind(ctx->section, &id);

	if (ctx->target || ctx->ignore)
		return ctx->target;
	ctx->target = kind == 0 ? &ctx->c->global : device_section(ctx, id);
	ctx->ignore = !ctx->target; /* a full table: reported once per header */
	return ctx->target;
}

/*
 * The value as the key parsers see it, in place: without a trailing comment (";" or "#"
 * at its start or after a blank: no value contains them) and blanks.
 */
static void clean_value(char *v)
{
	size_t len;

	for (char *c = v; *c; c++) {
		if ((*c == ';' || *c == '#') && (c == v || c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			break;
		}
	}
	len = strlen(v);
	while (len > 0 && is_blank(v[len - 1]))
		v[--len] = '\0';
}

static void set_key(struct parse_ctx *ctx, const char *name, char *v)
{
	struct dev_config *d;
	char why[CFG_ERR_MAX], hint[CFG_ERR_MAX] = "";
	const char *near;
	int r;

	if (!ctx->in_section) {
		line_err(ctx, ctx->line,
			 "key '%s' is outside of any section (add [global] above it)", name);
		return;
	}
	d = section_target(ctx);
	if (!d)
		return;
	/* the value as written, for a hint: the key's parser splits it in place */
	if (strcmp(name, "recompress-algorithms") == 0)
		cfg_algos_hint(v, hint, sizeof(hint));
	r = cfg_key_set(ctx->c, d, name, v, (struct cfg_origin){ctx->file, ctx->line}, why);
	if (r == 0)
		repeat_warn(ctx, name, seen_before(ctx, ctx->section, name));
	else if (r == -ENOENT && (near = cfg_nearest_key(name)))
		line_err(ctx, ctx->line, "unknown key '%s' in section [%s]; did you mean '%s'?",
			 name, ctx->section, near);
	else if (r == -ENOENT)
		line_err(ctx, ctx->line, "unknown key '%s' in section [%s]", name, ctx->section);
	else if (r == -EPERM)
		line_err(ctx, ctx->line, "key '%s' is only allowed in [global]", name);
	else if (r == -EXDEV)
		line_err(ctx, ctx->line,
			 "key '%s' is only allowed in a device section ([zramN]): each device "
			 "needs its own file",
			 name);
	else if (r < 0)
		key_err(ctx, name, "%s%s", why, hint);
}

/*
 * One line, without its newline. Leading blanks never continue the previous value (as in
 * inih's multi-line mode, which would silently turn "  compact = never" into a second value
 * of the key above): an indented line stands alone. "key = value" or "key: value".
 */
static void parse_line(struct parse_ctx *ctx, char *p)
{
	char *key, *eq, *end, *v;

	while (is_blank(*p))
		p++;
	/* A UTF-8 byte order mark on the first line is skipped. */
	if (ctx->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0) {
		p += 3;
		while (is_blank(*p))
			p++;
	}
	if (*p == '\0' || *p == ';' || *p == '#')
		return;
	if (*p == '[') {
		parse_header(ctx, p);
		return;
	}
	key = p;
	eq = p + strcspn(p, "=:");
	if (!*eq) {
		line_err(ctx, ctx->line,
			 "syntax error: expected [section], key = value or a comment");
		return;
	}
	for (end = eq; end > key && is_blank(end[-1]); end--)
		;
	*end = '\0';
	for (v = eq + 1; *v && is_blank(*v); v++)
		;
	clean_value(v);
	set_key(ctx, key, v);
}

/*
 * The next line into buf (size CFG_LINE_MAX + 2), without its newline: 1, 0 at the end of
 * the file, or -errno. A longer line is skipped to its end and reported, and so is a line
 * with a NUL byte (which would end the string early); both come back empty.
 */
static int read_line(struct parse_ctx *ctx, char *buf)
{
	size_t len = 0;
	bool nul = false, any = false;
	int ch;

	errno = 0;
	while ((ch = getc(ctx->f)) != EOF && ch != '\n') {
		any = true;
		nul |= ch == '\0';
		if (len <= CFG_LINE_MAX)
			buf[len++] = (char)ch;
	}
	if (ch == EOF && ferror(ctx->f))
		return errno ? -errno : -EIO;
	if (ch == EOF && !any)
		return 0;
	ctx->line++;
	buf[len] = '\0';
	if (len > CFG_LINE_MAX) {
		/* A comment of any length is skipped: only a key's line is bounded. */
		const char *p = buf + strspn(buf, " \t\r\v\f");

		if (*p != ';' && *p != '#')
			line_err(ctx, ctx->line, "line too long (more than %d characters)",
				 CFG_LINE_MAX);
		buf[0] = '\0';
	} else if (nul) {
		line_err(ctx, ctx->line, "NUL byte in the line");
		buf[0] = '\0';
	}
	return 1;
}

/*
 * Parse one file into c. Returns 0, -ENOENT when it does not exist (not recorded), or
 * -errno when it cannot be opened or read (recorded). Syntax and value errors are
 * recorded in the sink only. Symlinks are followed, as systemd follows them for its own
 * configuration (config management and /etc/alternatives-style links are common): the
 * search path's directories are root's, not input.
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
	char *line;
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

	line = malloc(CFG_LINE_MAX + 2);
	if (!line) {
		fclose(ctx.f);
		cfg_sink_add(sink, "%s: out of memory", path);
		return -ENOMEM;
	}
	while ((r = read_line(&ctx, line)) > 0)
		parse_line(&ctx, line);
	free(line);
	free(ctx.seen);
	fclose(ctx.f);
	if (r < 0)
		cfg_sink_add(sink, "%s: read error: %s", path, strerror(-r));
	return r;
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

/* ---- the search path ---- */

int config_source_search(struct config_source *src, const char *root)
{
	/* systemd's order (systemd.unit(5)): the admin's, the runtime's, local, the vendor's. */
	static const char *const dirs[] = {"/etc", "/run", "/usr/local/lib", "/usr/lib"};
	const char *prefix = root ? root : "";
	size_t len = strlen(prefix);
	unsigned n = 0;

	/* "/x/" + "/etc" would print as "/x//etc" in every message. */
	while (len > 0 && prefix[len - 1] == '/')
		len--;
	memset(src, 0, sizeof(*src));
	/*
	 * A build with SYSCONFDIR=/usr/local/etc installs its file there: it is searched first,
	 * so that the installed file counts, and /etc keeps its place after it.
	 */
	if (strcmp(SYSCONFDIR, "/etc") != 0 &&
	    str_printf(src->dirs[n++], sizeof(src->dirs[0]), "%.*s%s", (int)len, prefix,
		       SYSCONFDIR) < 0)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (str_printf(src->dirs[n++], sizeof(src->dirs[0]), "%.*s%s", (int)len, prefix,
			       dirs[i]) < 0)
			return -ENAMETOOLONG;
	src->n_dirs = n;
	return 0;
}

void config_files_free(struct config_files *f)
{
	for (unsigned i = 0; i < f->n; i++)
		free(f->v[i].path);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

void config_files_print(const struct config_files *files, const char *prefix, FILE *f)
{
	static const char *const states[] = {
		[CFG_FILE_READ] = "read",
		[CFG_FILE_MASKED] = "masked",
		[CFG_FILE_OVERRIDDEN] = "overridden",
		[CFG_FILE_DANGLING] = "dangling",
		[CFG_FILE_NOT_FILE] = "skipped",
		[CFG_FILE_NOT_CONF] = "skipped",
	};
	static const char *const why[] = {
		[CFG_FILE_NOT_FILE] = " (not a regular file)",
		[CFG_FILE_NOT_CONF] = " (only *.conf names are read)",
	};
	bool any = false;

	for (unsigned i = 0; i < files->n; i++) {
		enum config_file_state s = files->v[i].state;

		fprintf(f, "%s%s %s%s\n", prefix, states[s], files->v[i].path,
			s < ARRAY_SIZE(why) && why[s] ? why[s] : "");
		any |= files->v[i].state == CFG_FILE_READ;
	}
	if (!any)
		fprintf(f, "%sno configuration file read: built-in defaults\n", prefix);
}

/* Takes path (freed on failure). Returns the entry's index, or -ENOMEM. */
static int files_add(struct config_files *f, char *path, enum config_file_state state)
{
	struct config_file *v;

	if (!path)
		return -ENOMEM;
	v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!v) {
		free(path);
		return -ENOMEM;
	}
	f->v = v;
	v[f->n].path = path;
	v[f->n].state = state;
	v[f->n].file = 0;
	return (int)f->n++;
}

static char *path_join(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

enum entry_kind {
	ENTRY_ABSENT,
	ENTRY_SKIP,	/* a drop-in's subdirectory, FIFO, socket or device: listed as skipped */
	ENTRY_FILE,	/* to read (a symlink is followed) */
	ENTRY_MASK,	/* a link to /dev/null or an empty file */
	ENTRY_DANGLING, /* a symlink that does not resolve: absent, but listed */
	ENTRY_NOT_CONF, /* a drop-in directory's entry without a *.conf name: listed as skipped */
};

/*
 * What name in directory dfd is, without following it, except to see whether a symlink
 * leads to /dev/null (systemd's masking convention, systemd.unit(5)). For the main file
 * (special) a directory or FIFO is a file to read, so that reading it reports why not.
 */
static enum entry_kind classify(int dfd, const char *name, bool special)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT || errno == ENOTDIR ? ENTRY_ABSENT : ENTRY_FILE;
	if (S_ISLNK(st.st_mode)) {
		/* systemd's conf-files logic drops a link that does not resolve: it must not
		 * hide the file of its name in a later directory */
		if (fstatat(dfd, name, &st, 0) < 0)
			return errno == ENOENT ? ENTRY_DANGLING : ENTRY_FILE;
		if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
			return ENTRY_MASK;
		return ENTRY_FILE;
	}
	if (S_ISREG(st.st_mode))
		return st.st_size == 0 ? ENTRY_MASK : ENTRY_FILE;
	return special ? ENTRY_FILE : ENTRY_SKIP;
}

/* A *.conf name found in one of the drop-in directories. */
struct dropin {
	char *path;	  /* <dir>/zram-recompd.conf.d/<name> */
	const char *name; /* in path */
	unsigned dir;	  /* index in the search path: the lowest counts */
	enum entry_kind kind;
};

struct dropins {
	struct dropin *v;
	unsigned n, cap;
};

static bool dropin_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

static int cmp_dropin(const void *a, const void *b)
{
	const struct dropin *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->dir < y->dir ? -1 : x->dir > y->dir;
}

/*
 * Add the *.conf entries of dir (index i) to list. A missing directory gives none; other
 * errors are recorded and returned.
 */
static int list_dropins(const char *dir, unsigned i, struct dropins *list, struct cfg_sink *sink)
{
	struct dirent *de;
	DIR *d;
	int fd, q, r = 0;

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
		enum entry_kind kind;
		struct dropin *e;

		/* hidden names (".", "..", an editor's swap file) are nobody's configuration */
		if (de->d_name[0] == '.')
			continue;
		kind = dropin_name(de->d_name) ? classify(dirfd(d), de->d_name, false)
					       : ENTRY_NOT_CONF;
		if (kind == ENTRY_ABSENT)
			continue;
		if (list->n == list->cap) {
			unsigned ncap = list->cap ? 2 * list->cap : 16;
			struct dropin *nv = realloc(list->v, ncap * sizeof(*nv));

			if (!nv) {
				r = -ENOMEM;
				break;
			}
			list->v = nv;
			list->cap = ncap;
		}
		e = &list->v[list->n];
		e->path = path_join(dir, de->d_name);
		if (!e->path) {
			r = -ENOMEM;
			break;
		}
		e->name = e->path + strlen(dir) + 1;
		e->dir = i;
		e->kind = kind;
		list->n++;
	}
	closedir(d);
	if (q < 0) {
		r = q;
		cfg_sink_add(sink, "%s: cannot read drop-in directory: %s", dir, strerror(-r));
	} else if (r == -ENOMEM) {
		cfg_sink_add(sink, "%s: out of memory", dir);
	}
	return r;
}

/* The files being loaded: what was found, and the names of the files read (origins). */
struct load {
	struct config *c;
	struct cfg_sink *sink;
	struct config_files found;
	const char **paths; /* index = struct cfg_origin.file; 0 = the main file */
	unsigned n_paths, cap_paths;
	int r; /* the first -errno other than -ENOENT */
};

static void load_fail(struct load *l, int r)
{
	if (r < 0 && r != -ENOENT && l->r == 0)
		l->r = r;
}

/*
 * Record path (taken) as found in state; read it when it is CFG_FILE_READ. Returns what
 * reading it returned (0 when not read).
 */
static int load_take(struct load *l, char *path, enum config_file_state state, bool is_main)
{
	int i = files_add(&l->found, path, state);
	unsigned file;

	int r;

	if (i < 0) {
		cfg_sink_add(l->sink, "configuration: out of memory");
		load_fail(l, i);
		return i;
	}
	if (state != CFG_FILE_READ)
		return 0;
	path = l->found.v[i].path;
	if (is_main) {
		file = 0;
	} else {
		if (l->n_paths == l->cap_paths) {
			unsigned ncap = 2 * l->cap_paths;
			const char **np = realloc(l->paths, ncap * sizeof(*np));

			if (!np) {
				cfg_sink_add(l->sink, "%s: out of memory", path);
				load_fail(l, -ENOMEM);
				return -ENOMEM;
			}
			l->paths = np;
			l->cap_paths = ncap;
		}
		file = l->n_paths++;
	}
	l->paths[file] = path;
	l->found.v[i].file = file;
	r = parse_file(l->c, path, file, l->sink);
	/* A file that vanished since it was listed counts as absent. */
	load_fail(l, r);
	return r;
}

/* The main file: the first directory that has one (a mask counts) wins. */
static void load_main(struct load *l, const struct config_source *src)
{
	bool found = false;

	for (unsigned i = 0; i < src->n_dirs; i++) {
		char *path = path_join(src->dirs[i], CFG_FILE_NAME);
		enum entry_kind kind;

		if (!path) {
			(void)load_take(l, NULL, CFG_FILE_READ, true);
			return;
		}
		kind = classify(AT_FDCWD, path, true);
		if (kind == ENTRY_ABSENT) {
			free(path);
			continue;
		}
		if (kind == ENTRY_DANGLING) {
			(void)load_take(l, path, CFG_FILE_DANGLING, true);
			continue;
		}
		(void)load_take(l, path,
				found		     ? CFG_FILE_OVERRIDDEN
				: kind == ENTRY_MASK ? CFG_FILE_MASKED
						     : CFG_FILE_READ,
				true);
		found = true;
	}
}

/* The drop-ins of every directory, merged by name; the earliest directory's counts. */
static void load_dropins(struct load *l, const struct config_source *src)
{
	struct dropins list = {0};

	for (unsigned i = 0; i < src->n_dirs; i++) {
		char *dir = path_join(src->dirs[i], CFG_DROPIN_DIR);

		if (!dir) {
			(void)load_take(l, NULL, CFG_FILE_READ, false);
			break;
		}
		load_fail(l, list_dropins(dir, i, &list, l->sink));
		free(dir);
	}
	if (list.n)
		qsort(list.v, list.n, sizeof(list.v[0]), cmp_dropin);
	for (unsigned i = 0, counted = 0; i < list.n; i++) {
		const struct dropin *e = &list.v[i];
		/* the first of a name that is not a dangling link counts */
		bool shadowed = counted > 0 && strcmp(e->name, list.v[counted - 1].name) == 0;

		if (e->kind == ENTRY_DANGLING || e->kind == ENTRY_SKIP ||
		    e->kind == ENTRY_NOT_CONF) {
			/* listed for --check-config; they hide nothing */
			(void)load_take(l, e->path,
					e->kind == ENTRY_DANGLING ? CFG_FILE_DANGLING
					: e->kind == ENTRY_SKIP	  ? CFG_FILE_NOT_FILE
								  : CFG_FILE_NOT_CONF,
					false);
			continue;
		}
		if (!shadowed)
			counted = i + 1;
		(void)load_take(l, e->path,
				shadowed		? CFG_FILE_OVERRIDDEN
				: e->kind == ENTRY_MASK ? CFG_FILE_MASKED
							: CFG_FILE_READ,
				false);
	}
	free(list.v);
}

int config_load(struct config *c, const struct config_source *src, struct config_files *files,
		struct config_errors *errs)
{
	struct cfg_sink sink;
	struct load l = {
		.c = c,
		.sink = &sink,
		.cap_paths = 16,
	};

	config_init(c);
	sink_reset(&sink, errs);
	if (files)
		*files = (struct config_files){0};
	l.paths = calloc(l.cap_paths, sizeof(*l.paths));
	if (!l.paths) {
		cfg_sink_add(&sink, "configuration: out of memory");
		return -ENOMEM;
	}
	/* File index 0 is the main file even when it is absent, so origins stay stable. */
	l.paths[0] = "(no main file)";
	l.n_paths = 1;
	if (src->file) {
		/* Given on the command line: it must exist; following a symlink is the admin's
		 * call. */
		if (load_take(&l, strdup(src->file), CFG_FILE_READ, true) == -ENOENT) {
			cfg_sink_add(&sink, "%s: cannot open: %s", src->file, strerror(ENOENT));
			l.r = -ENOENT;
			/* Not read after all. */
			free(l.found.v[--l.found.n].path);
		}
	} else {
		load_main(&l, src);
		load_dropins(&l, src);
	}
	cfg_validate(c, l.paths, &sink);
	free(l.paths);
	if (files)
		*files = l.found;
	else
		config_files_free(&l.found);
	if (l.r < 0)
		return l.r;
	return sink.count ? -EINVAL : 0;
}
