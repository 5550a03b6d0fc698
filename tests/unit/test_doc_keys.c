// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The configuration keys as three places give them: the key table in src/config/config.c
 * (config_key_info: name, default, readers), zram-recompd.conf(5) and the shipped
 * etc/zram-recompd.conf. Every key, its default and what reads it (the daemon, --once,
 * `backing setup`) must be the same in all three, and neither document may name a key the
 * table does not have. The docs once said a key was read by the daemon only while --once
 * read it too; this is what keeps them from diverging again.
 *
 * The conventions the documents follow (and this test reads):
 * - zram-recompd.conf(5): each key is a .TP (or .TQ) entry whose heading line is
 *   `.B "key = ..."` or `.BI "key = " ...`; its paragraph has a source line starting with
 *   "Default: VALUE" (an optional " (note)" after VALUE; "empty" for an empty default) and
 *   one starting with "Read by: " and the readers, as readers_text() writes them.
 * - etc/zram-recompd.conf: each key once as `#key = VALUE ; READERS`.
 * Each comparison is also run on a broken copy, which it must reject.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 64

struct key {
	char name[48];
	char def[128];
	char readers[128];
	unsigned count; /* how often a document names it */
};

struct keyset {
	struct key k[MAX_KEYS];
	unsigned n;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t len;

	assert_non_null(f);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	len = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* The readers as the documents write them: "daemon, --once, backing setup" or a part. */
static void readers_text(unsigned r, char *buf, size_t size)
{
	static const char *const names[] = { "daemon", "--once", "backing setup" };
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < 3; i++)
		if (r & (1u << i))
			o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? ", " : "", names[i]);
}

static void table_keys(struct keyset *t)
{
	const char *name, *def;
	unsigned readers;

	memset(t, 0, sizeof(*t));
	while (config_key_info(t->n, &name, &def, &readers)) {
		struct key *k = &t->k[t->n++];

		assert_true(t->n < MAX_KEYS);
		snprintf(k->name, sizeof(k->name), "%s", name);
		snprintf(k->def, sizeof(k->def), "%s", def);
		assert_int_not_equal(readers, 0); /* every key says who reads it */
		readers_text(readers, k->readers, sizeof(k->readers));
	}
	assert_true(t->n >= 40);
}

/* Roff to plain text: \- \& \fX \e, quotes dropped; in place. */
static void unroff(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] == '-') {
			*w++ = '-';
			p++;
		} else if (p[0] == '\\' && p[1] == '&') {
			p++;
		} else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 2;
		} else if (p[0] == '\\' && p[1] == 'e') {
			*w++ = '\\';
			p++;
		} else if (*p != '"') {
			*w++ = *p;
		}
	}
	*w = '\0';
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = '\0';
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, n - i + 1);
}

static struct key *add_key(struct keyset *d, const char *name)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strcmp(d->k[i].name, name) == 0) {
			d->k[i].count++;
			return &d->k[i];
		}
	assert_true(d->n < MAX_KEYS);
	snprintf(d->k[d->n].name, sizeof(d->k[0].name), "%s", name);
	strcpy(d->k[d->n].def, "?");
	strcpy(d->k[d->n].readers, "?");
	d->k[d->n].count = 1;
	return &d->k[d->n++];
}

/* "key = ..." of a heading line (after .B/.BI), or false. */
static bool heading_key(const char *line, char *name, size_t size)
{
	char buf[256];
	size_t i = 0;

	if (strncmp(line, ".B ", 3) != 0 && strncmp(line, ".BI ", 4) != 0)
		return false;
	snprintf(buf, sizeof(buf), "%s", strchr(line, ' ') + 1);
	unroff(buf);
	while (buf[i] == '-' || (buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= '0' && buf[i] <= '9'))
		i++;
	if (i == 0 || strncmp(buf + i, " =", 2) != 0 || i >= size)
		return false;
	memcpy(name, buf, i);
	name[i] = '\0';
	return true;
}

/* The keys of zram-recompd.conf(5) with their Default: and Read by: lines. */
static void man_keys(const char *text, struct keyset *d)
{
	char *copy = strdup(text), *save = NULL, *line;
	struct key *cur[4];
	unsigned ncur = 0;
	bool heading = false;

	memset(d, 0, sizeof(*d));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[48], v[128];

		if (strcmp(line, ".TP") == 0 || strcmp(line, ".TQ") == 0) {
			if (strcmp(line, ".TP") == 0)
				ncur = 0;
			heading = true;
			continue;
		}
		if (heading) {
			heading = false;
			if (heading_key(line, name, sizeof(name)) && ncur < 4)
				cur[ncur++] = add_key(d, name);
			continue;
		}
		if (strncmp(line, ".SH", 3) == 0 || strncmp(line, ".SS", 3) == 0 ||
		    strncmp(line, ".PP", 3) == 0 || strncmp(line, ".P", 3) == 0) {
			ncur = 0;
			continue;
		}
		if (strncmp(line, "Default: ", 9) == 0) {
			snprintf(v, sizeof(v), "%s", line + 9);
			unroff(v);
			if (strstr(v, " ("))
				*strstr(v, " (") = '\0';
			trim(v);
			if (*v && v[strlen(v) - 1] == '.')
				v[strlen(v) - 1] = '\0';
			for (unsigned i = 0; i < ncur; i++)
				snprintf(cur[i]->def, sizeof(cur[i]->def), "%s",
					 strcmp(v, "empty") == 0 ? "" : v);
		} else if (strncmp(line, "Read by: ", 9) == 0) {
			snprintf(v, sizeof(v), "%s", line + 9);
			unroff(v);
			trim(v);
			if (*v && v[strlen(v) - 1] == '.')
				v[strlen(v) - 1] = '\0';
			for (unsigned i = 0; i < ncur; i++)
				snprintf(cur[i]->readers, sizeof(cur[i]->readers), "%s", v);
		}
	}
	free(copy);
}

/* The `#key = VALUE ; READERS` lines of etc/zram-recompd.conf. */
static void etc_keys(const char *text, struct keyset *d)
{
	char *copy = strdup(text), *save = NULL, *line;

	memset(d, 0, sizeof(*d));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[48], *eq, *semi;
		size_t i = 1;
		struct key *k;

		if (line[0] != '#' || strncmp(line, "#[", 2) == 0)
			continue;
		while (line[i] == '-' || (line[i] >= 'a' && line[i] <= 'z'))
			i++;
		eq = line + i;
		if (i == 1 || strncmp(eq, " =", 2) != 0 || i - 1 >= sizeof(name))
			continue;
		if (strstr(text, "\n#[zram") && line > copy + (strstr(text, "\n#[zram") - text))
			break; /* the example section at the end holds other values */
		memcpy(name, line + 1, i - 1);
		name[i - 1] = '\0';
		k = add_key(d, name);
		semi = strstr(eq + 2, " ;");
		if (semi) {
			*semi = '\0';
			snprintf(k->readers, sizeof(k->readers), "%s", semi + 2);
			trim(k->readers);
		}
		snprintf(k->def, sizeof(k->def), "%s", eq + 2);
		trim(k->def);
	}
	free(copy);
}

/* Mismatches of document d (called what) against the table t, each printed. */
static unsigned compare(const struct keyset *t, const struct keyset *d, const char *what)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < t->n; i++) {
		const struct key *k = &t->k[i], *o = NULL;

		for (unsigned j = 0; j < d->n; j++)
			if (strcmp(d->k[j].name, k->name) == 0)
				o = &d->k[j];
		if (!o) {
			print_message("%s: no entry for key '%s'\n", what, k->name);
			bad++;
			continue;
		}
		if (o->count != 1) {
			print_message("%s: key '%s' given %u times\n", what, k->name, o->count);
			bad++;
		}
		if (strcmp(o->def, k->def) != 0) {
			print_message("%s: key '%s': default '%s', the table's is '%s'\n", what,
				      k->name, o->def, k->def);
			bad++;
		}
		if (strcmp(o->readers, k->readers) != 0) {
			print_message("%s: key '%s': read by '%s', the table says '%s'\n", what,
				      k->name, o->readers, k->readers);
			bad++;
		}
	}
	for (unsigned j = 0; j < d->n; j++) {
		bool known = false;

		for (unsigned i = 0; i < t->n; i++)
			known |= strcmp(d->k[j].name, t->k[i].name) == 0;
		if (!known) {
			print_message("%s: key '%s' is not in the key table\n", what, d->k[j].name);
			bad++;
		}
	}
	return bad;
}

/* text with the first occurrence of from replaced by to (a broken copy). */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	assert_non_null(at);
	out = malloc(strlen(text) + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

static void test_man_page_keys(void **state)
{
	static struct keyset t, d;
	char *man = slurp("docs/zram-recompd.conf.5"), *broken;

	(void)state;
	table_keys(&t);
	man_keys(man, &d);
	assert_int_equal(compare(&t, &d, "zram-recompd.conf(5)"), 0);

	/* a reader changed, a default changed, a key left out: each is caught */
	broken = replaced(man, "Read by: daemon.\n", "Read by: daemon, \\-\\-once.\n");
	man_keys(broken, &d);
	assert_int_equal(compare(&t, &d, "broken copy (expected)"), 1);
	free(broken);
	broken = replaced(man, "Default: 300", "Default: 301");
	man_keys(broken, &d);
	assert_int_equal(compare(&t, &d, "broken copy (expected)"), 1);
	free(broken);
	broken = replaced(man, ".BI \"interval\\-sec = \"", ".BI \"interval\\-secs = \"");
	man_keys(broken, &d);
	assert_int_equal(compare(&t, &d, "broken copy (expected)"), 2);
	free(broken);
	free(man);
}

static void test_example_config_keys(void **state)
{
	static struct keyset t, d;
	char *etc = slurp("etc/zram-recompd.conf"), *broken;

	(void)state;
	table_keys(&t);
	etc_keys(etc, &d);
	assert_int_equal(compare(&t, &d, "etc/zram-recompd.conf"), 0);

	broken = replaced(etc, "#interval-sec = 300 ", "#interval-sec = 301 ");
	etc_keys(broken, &d);
	assert_int_equal(compare(&t, &d, "broken copy (expected)"), 1);
	free(broken);
	broken = replaced(etc, "; daemon\n", "; daemon, --once\n");
	etc_keys(broken, &d);
	assert_int_equal(compare(&t, &d, "broken copy (expected)"), 1);
	free(broken);
	free(etc);
}

/* A table that differs from both documents (the third of the three) is caught as well. */
static void test_table_change_caught(void **state)
{
	static struct keyset t, man, etc;
	char *m = slurp("docs/zram-recompd.conf.5"), *e = slurp("etc/zram-recompd.conf");

	(void)state;
	table_keys(&t);
	man_keys(m, &man);
	etc_keys(e, &etc);
	for (unsigned i = 0; i < t.n; i++)
		if (strcmp(t.k[i].name, "compact-fragmentation-percent") == 0)
			strcpy(t.k[i].readers, "daemon"); /* what the docs once said */
	assert_int_equal(compare(&t, &man, "table changed (expected)"), 1);
	assert_int_equal(compare(&t, &etc, "table changed (expected)"), 1);
	free(m);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_page_keys),
		cmocka_unit_test(test_example_config_keys),
		cmocka_unit_test(test_table_change_caught),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
