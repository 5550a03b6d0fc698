// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whether a dictionary file may be given to the kernel, and at which priorities
 * (dict_apply.h): the pure part. The files themselves: dict_apply_files.c.
 */
#include "dict_apply.h"

#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TMPFS_FS_MAGIC 0x01021994L
#define RAMFS_FS_MAGIC 0x858458f6L
#define ZSTD_DEFAULT_LEVEL 3 /* zstd_default_clevel(): a zstd priority without level= */

static int why_set(char *why, size_t size, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t size, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return r;
}

int dict_check_dir(const struct stat *st, uid_t owner, char *why, size_t why_size)
{
	if (!S_ISDIR(st->st_mode))
		return why_set(why, why_size, -ENOTDIR, "not a directory");
	if (st->st_uid != owner)
		return why_set(why, why_size, -EPERM, "owned by uid %u, not %u",
			       (unsigned)st->st_uid, (unsigned)owner);
	if (st->st_mode & 022)
		return why_set(why, why_size, -EPERM, "mode %04o: writable by group or others",
			       (unsigned)(st->st_mode & 07777));
	return 0;
}

bool dict_fs_in_memory(long f_type)
{
	/* 32 bits: a 32-bit long holds RAMFS_MAGIC (0x858458f6) as a negative number */
	uint32_t t = (uint32_t)f_type;

	return t == (uint32_t)TMPFS_FS_MAGIC || t == (uint32_t)RAMFS_FS_MAGIC;
}

int dict_check_file(const struct stat *st, uid_t owner, char *why, size_t why_size)
{
	if (!S_ISREG(st->st_mode))
		return why_set(why, why_size, -EINVAL, "not a regular file");
	if (st->st_uid != owner)
		return why_set(why, why_size, -EPERM, "owned by uid %u, not %u",
			       (unsigned)st->st_uid, (unsigned)owner);
	if (st->st_mode & 077)
		return why_set(why, why_size, -EPERM,
			       "mode %04o: group or others may read it (0600 or stricter)",
			       (unsigned)(st->st_mode & 07777));
	if (st->st_size < (off_t)DICT_FILE_MIN || st->st_size > (off_t)DICT_FILE_MAX)
		return why_set(why, why_size, -EFBIG, "%lld bytes (a dictionary has %u to %u)",
			       (long long)st->st_size, DICT_FILE_MIN, DICT_FILE_MAX);
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int dict_check_header(const uint8_t *h, size_t len, uint32_t *ret_id)
{
	/* ZDICT's format: magic, then the dictionary ID, both little endian. A raw-content
	 * file the kernel would take as well (ZSTD_dct_auto) is refused: advise never wrote
	 * it and nothing predicted it. */
	if (len < 8 || le32(h) != DICT_ZSTD_MAGIC)
		return -EINVAL;
	*ret_id = le32(h + 4);
	return 0;
}

/* "zstd:L" into p->zstd[prio], p->level[prio]; another algorithm name: not zstd. */
static int pred_algo(const char *v, unsigned prio, struct dict_pred *p)
{
	uint64_t u;
	bool neg = false;

	if (strncmp(v, "zstd:", 5) != 0) {
		if (!*v || strlen(v) >= CFG_ALGO_NAME_MAX)
			return -EINVAL;
		p->zstd[prio] = false;
		return 0;
	}
	v += 5;
	if (*v == '-') {
		neg = true;
		v++;
	}
	if (parse_u64(v, &u) < 0 || u > 131072)
		return -EINVAL;
	p->zstd[prio] = true;
	p->level[prio] = neg ? -(int)u : (int)u;
	return 0;
}

static int pred_mask(const char *v, unsigned *ret)
{
	unsigned m = 0;

	for (; *v; v++) {
		if (*v >= '0' && *v <= '3' && !(m & (1u << (*v - '0'))))
			m |= 1u << (*v - '0');
		else if (*v != ',')
			return -EINVAL;
	}
	*ret = m;
	return 0;
}

static int pred_net(const char *v, char *out, size_t size)
{
	size_t len = strlen(v);

	if (!len || len >= size || strspn(v, "-+0123456789.") != len)
		return -EINVAL;
	memcpy(out, v, len + 1);
	return 0;
}

static int pred_token(char *tok, struct dict_pred *p, unsigned *seen)
{
	char *eq = strchr(tok, '=');
	const char *v;

	if (!eq)
		return -EINVAL;
	*eq = '\0';
	v = eq + 1;
	if (strcmp(tok, "recommend") == 0) {
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
			return -EINVAL;
		p->recommend = strcmp(v, "yes") == 0;
		*seen |= 1;
		return 0;
	}
	if (strcmp(tok, "priorities") == 0) {
		*seen |= 2;
		return pred_mask(v, &p->mask);
	}
	if (strcmp(tok, "net-percent") == 0)
		return pred_net(v, p->net, sizeof(p->net));
	if (strcmp(tok, "pool-per-byte") == 0)
		return pred_net(v, p->per_byte, sizeof(p->per_byte));
	if (strncmp(tok, "prio", 4) == 0 && tok[4] >= '0' && tok[4] <= '3' && !tok[5])
		return pred_algo(v, (unsigned)(tok[4] - '0'), p);
	return -EINVAL;
}

/* One line (a trailing newline allowed) into buf: -EINVAL when too long or several. */
static int one_line(const char *text, char *buf, size_t size)
{
	size_t len = strlen(text);

	if (len >= size)
		return -EINVAL;
	memcpy(buf, text, len + 1);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return strchr(buf, '\n') ? -EINVAL : 0;
}

int dict_pred_parse(const char *text, struct dict_pred *ret)
{
	char buf[DICT_LINE_MAX], *save = NULL, *tok;
	unsigned seen = 0;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = one_line(text, buf, sizeof(buf));
	for (tok = r ? NULL : strtok_r(buf, " ", &save); tok && r == 0;
	     tok = strtok_r(NULL, " ", &save))
		r = pred_token(tok, ret, &seen);
	if (r == 0 && seen != 3)
		r = -EINVAL;
	if (r < 0) {
		memset(ret, 0, sizeof(*ret));
		return r;
	}
	ret->known = true;
	return 0;
}

int dict_pred_format(const struct dict_pred *p, char *buf, size_t size)
{
	size_t off;
	int r;

	r = str_printf(buf, size, "recommend=%s priorities=", p->recommend ? "yes" : "no");
	for (unsigned i = 0, n = 0; r == 0 && i < DICT_NPRIO; i++) {
		off = strlen(buf);
		if (p->mask & (1u << i))
			r = str_printf(buf + off, size - off, "%s%u", n++ ? "," : "", i);
	}
	for (unsigned i = 0; r == 0 && i < DICT_NPRIO; i++) {
		off = strlen(buf);
		if (p->zstd[i])
			r = str_printf(buf + off, size - off, " prio%u=zstd:%d", i, p->level[i]);
	}
	off = strlen(buf);
	if (r == 0 && p->net[0])
		r = str_printf(buf + off, size - off, " net-percent=%s", p->net);
	off = strlen(buf);
	if (r == 0 && p->per_byte[0])
		r = str_printf(buf + off, size - off, " pool-per-byte=%s", p->per_byte);
	off = strlen(buf);
	return r == 0 ? str_printf(buf + off, size - off, "\n") : r;
}

static int record_token(char *tok, struct dict_record *rec, unsigned *seen)
{
	char *eq = strchr(tok, '=');
	uint64_t v;

	if (!eq)
		return -EINVAL;
	*eq = '\0';
	if (strcmp(tok, "applied") == 0) {
		*seen |= 1;
		return pred_mask(eq + 1, &rec->applied);
	}
	if (strcmp(tok, "file") == 0) {
		*seen |= 2;
		if (!zram_dict_path_valid(eq + 1))
			return -EINVAL;
		return str_printf(rec->file, sizeof(rec->file), "%s", eq + 1);
	}
	if (strcmp(tok, "bytes") == 0 || strcmp(tok, "id") == 0) {
		if (parse_u64(eq + 1, &v) < 0 || v > UINT32_MAX)
			return -EINVAL;
		if (tok[0] == 'b')
			rec->bytes = v;
		else
			rec->id = (uint32_t)v;
		return 0;
	}
	if (strcmp(tok, "source") == 0) {
		rec->credential = strcmp(eq + 1, "credential") == 0;
		return rec->credential || strcmp(eq + 1, "run") == 0 ? 0 : -EINVAL;
	}
	*eq = '=';
	return 1; /* the prediction's */
}

int dict_record_parse(const char *line, struct dict_record *ret)
{
	char buf[DICT_LINE_MAX], pred[DICT_LINE_MAX] = "", *save = NULL, *tok;
	unsigned seen = 0;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = one_line(line, buf, sizeof(buf));
	for (tok = r ? NULL : strtok_r(buf, " ", &save); tok && r >= 0;
	     tok = strtok_r(NULL, " ", &save)) {
		r = record_token(tok, ret, &seen);
		if (r == 1 && strlen(pred) + strlen(tok) + 2 < sizeof(pred)) {
			strcat(pred, pred[0] ? " " : "");
			strcat(pred, tok);
		}
	}
	if (r >= 0 && (seen != 3 || !ret->applied))
		r = -EINVAL;
	if (r >= 0 && pred[0])
		r = dict_pred_parse(pred, &ret->pred);
	if (r < 0) {
		memset(ret, 0, sizeof(*ret));
		return r;
	}
	return 0;
}

static int cfg_zstd_level(const struct dev_config *cfg, unsigned p)
{
	return cfg->has_level[p - 1] ? cfg->level[p - 1] : ZSTD_DEFAULT_LEVEL;
}

static bool cfg_is_zstd(const struct dev_config *cfg, unsigned p)
{
	return p >= 1 && p <= cfg->n_algos && strcmp(cfg->algos[p - 1], "zstd") == 0;
}

static void note_add(char *note, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One more clause of a one-line note, after "; ". */
static void note_add(char *note, size_t size, const char *fmt, ...)
{
	size_t off = strlen(note);
	va_list ap;

	if (off && off + 2 < size) {
		memcpy(note + off, "; ", 3);
		off += 2;
	}
	if (off >= size)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(note + off, size - off, fmt, ap);
	va_end(ap);
}

/* auto: the prediction's priorities, where the configuration is what was predicted. */
static unsigned mask_auto(const struct dev_config *cfg, const struct dict_pred *pred, char *note,
			  size_t size)
{
	unsigned mask = 0;

	if (!pred->known) {
		(void)snprintf(note, size,
			       "no prediction (advise --dict --dict-install writes "
			       "one): not applied");
		return 0;
	}
	if (!pred->recommend) {
		(void)snprintf(note, size,
			       "advise did not recommend it (net saving %s%%): "
			       "not applied",
			       pred->net[0] ? pred->net : "?");
		return 0;
	}
	if (pred->mask & 1u)
		note_add(note, size,
			 "the primary is not given one (the setup tool writes its "
			 "comp_algorithm after --once; 7.3 then resets its parameters)");
	for (unsigned p = 1; p < DICT_NPRIO; p++) {
		if (!(pred->mask & (1u << p)))
			continue;
		if (!cfg_is_zstd(cfg, p) || !pred->zstd[p])
			note_add(note, size, "priority %u does not hold zstd as predicted", p);
		else if (cfg_zstd_level(cfg, p) != pred->level[p])
			note_add(note, size,
				 "priority %u was predicted at zstd level %d, the configuration "
				 "has %d",
				 p, pred->level[p], cfg_zstd_level(cfg, p));
		else
			mask |= 1u << p;
	}
	return mask;
}

unsigned dict_apply_mask(const struct dev_config *cfg, const struct dict_pred *pred, char *note,
			 size_t note_size)
{
	unsigned mask = 0;

	note[0] = '\0';
	if (cfg->dict_use == DICT_USE_NO)
		return 0;
	if (cfg->dict_use == DICT_USE_AUTO)
		return mask_auto(cfg, pred, note, note_size);
	for (unsigned p = 1; p < DICT_NPRIO; p++) {
		if (!(cfg->dict_prios & (1u << p)))
			continue;
		if (cfg_is_zstd(cfg, p))
			mask |= 1u << p;
		else if (cfg->dict_prios != DICT_PRIOS_ZSTD)
			note_add(note, note_size, "priority %u does not hold zstd", p);
	}
	if (!mask && !note[0])
		(void)snprintf(note, note_size, "no secondary priority holds zstd: not applied");
	return mask;
}
