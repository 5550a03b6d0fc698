/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_VERSION_H
#define ZRAM_RECOMPD_VERSION_H

#include <stdio.h>

/* --version: this program's version and the libraries it runs with (src/cli/version.c). */
void version_print(FILE *f);
/* --help: usage and options. */
void help_print(FILE *f);

#endif
