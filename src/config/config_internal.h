/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_CONFIG_INTERNAL_H
#define ZRAM_RECOMPD_CONFIG_INTERNAL_H

/*
 * Between the parts of the configuration module (include/config.h is its interface):
 * config_file.c reads files, lines and sections; config.c knows the keys; config_validate.c
 * holds the error sink and the cross-key checks run after the last file; config_backing.c
 * parses the backing file's values. Calls go one way: config_file.c -> config_validate.c
 * -> config.c -> config_backing.c. Not for other modules.
 */

#include "config.h"
#include "units.h"

#define CFG_LINE_MAX 4096 /* characters of a line, without its newline */
#define CFG_ERR_MAX 256	  /* one reason, without the "FILE:LINE: key 'NAME': " prefix */

/* The errors of one config_load() or config_load_file() call (config_validate.c). */
struct cfg_sink {
	struct config_errors *errs; /* may be NULL */
	unsigned count;		    /* errors seen by this call, stored or not */
};

void cfg_sink_add(struct cfg_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Set key name from value v (without comment and trailing blanks; parsed in place) in d,
 * which is c->global or the dev_config of a [zramN] section; at is where the line is.
 * Returns 0; -ENOENT for an unknown key; -EPERM for a [global]-only key in a device
 * section; -EXDEV for a [zramN]-only key in [global]; another -errno with the reason in why
 * (nothing is changed then).
 */
int cfg_key_set(struct config *c, struct dev_config *d, const char *name, char *v,
		struct cfg_origin at, char why[CFG_ERR_MAX]);

/*
 * Cross-key checks once every file is read; paths[i] is the name of file index i of
 * struct cfg_origin. Also resolves the algorithm-params levels of [global] and sections.
 */
void cfg_validate(struct config *c, const char *const *paths, struct cfg_sink *sink);

/* The [zramN] section of c, or NULL. */
const struct dev_section *cfg_find_section(const struct config *c, unsigned id);

/* Resolve the algorithm-params tokens of d into has_level/level, left to right; tokens that
 * do not resolve are skipped (cfg_validate() reports them). */
void cfg_resolve_params(struct dev_config *d);

/* Name of key i of the key table, in table order; NULL past the last. */
const char *cfg_key_name(size_t i);

/*
 * "; did you mean ...?" into out[size] for a recompress-algorithms value v written in
 * another syntax: commas, quotes, or NAME:LEVEL (config_hint.c); "" when none of those.
 */
void cfg_algos_hint(const char *v, char *out, size_t size);

/* The known key nearest to name (a typo, a missing "s"), or NULL when none is close. */
const char *cfg_nearest_key(const char *name);

/* The backing file's value kinds (config_backing.c): 0 or -errno with the reason in why. */
struct cfg_share_bounds {
	uint64_t min, max; /* of a size in bytes */
	const char *note;  /* said after the range of a size out of it, or NULL */
	uint32_t pct_min, pct_max;
};
/* An absolute path without ".", ".." or empty components (or ""), into field[size]. */
int cfg_parse_file(const char *v, char *field, size_t size, char why[CFG_ERR_MAX]);
/* A size (units.h) or "N%" into *field. */
int cfg_parse_share(char *v, struct cfg_share *field, const struct cfg_share_bounds *b,
		    char why[CFG_ERR_MAX]);
/* auto, or yes/true/on/1, no/false/off/0. */
int cfg_parse_enc(const char *v, enum backing_enc *field, char why[CFG_ERR_MAX]);
/* The value after "NAME =", with its leading space. */
void cfg_print_share(const struct cfg_share *sh, FILE *f);
void cfg_print_enc(const enum backing_enc *e, FILE *f);

/*
 * zstd-dictionary (config_dict.c), in the signature of config.c's kind table: base is a
 * struct dev_config; no, auto, yes, or priorities 1..3 ("2", "1 2").
 */
struct key_def;
int cfg_parse_dict(const struct key_def *k, char *v, void *base, char *why);
void cfg_print_dict(const struct key_def *k, const void *base, FILE *f);

/* origin[] index of an enum cfg_key bit. */
static inline unsigned cfg_key_index(uint64_t bit)
{
	return (unsigned)__builtin_ctzll((unsigned long long)bit);
}

/* Value v of key bit of d for a message: as units_format() writes it when the value was
 * written with a unit (64M, 4h) or is the default, else the plain number it was written as.
 * Into buf, returned. */
static inline const char *cfg_shown(char *buf, size_t size, const struct dev_config *d,
				    uint64_t bit, uint64_t v, enum unit u)
{
	bool human = (d->with_unit & bit) || !d->origin[cfg_key_index(bit)].line;

	return units_format(buf, size, v, human ? u : UNIT_NONE);
}

#endif
