// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a struct config owns: its [zramN] sections and its `devices` list, any number of
 * each (no device cap), on the heap (config.h). config_file.c grows the sections, config.c
 * the list; here they are copied, freed and sorted.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void config_free(struct config *c)
{
	free(c->sections);
	free(c->devices);
	c->sections = NULL;
	c->devices = NULL;
	c->n_sections = c->cap_sections = c->n_devices = 0;
}

int config_copy(struct config *dst, const struct config *src)
{
	*dst = *src;
	dst->sections = NULL;
	dst->devices = NULL;
	dst->cap_sections = src->n_sections;
	if (src->n_sections) {
		dst->sections = reallocarray(NULL, src->n_sections, sizeof(*dst->sections));
		if (!dst->sections)
			goto fail;
		memcpy(dst->sections, src->sections, src->n_sections * sizeof(*dst->sections));
	}
	if (src->n_devices) {
		dst->devices = reallocarray(NULL, src->n_devices, sizeof(*dst->devices));
		if (!dst->devices)
			goto fail;
		memcpy(dst->devices, src->devices, src->n_devices * sizeof(*dst->devices));
	}
	return 0;
fail:
	config_free(dst);
	return -ENOMEM;
}

static int cmp_section(const void *a, const void *b)
{
	const struct dev_section *const *x = a, *const *y = b;

	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

const struct dev_section **config_sorted_sections(const struct config *c)
{
	const struct dev_section **v = calloc(c->n_sections + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (unsigned i = 0; i < c->n_sections; i++)
		v[i] = &c->sections[i];
	qsort(v, c->n_sections, sizeof(v[0]), cmp_section);
	return v;
}
