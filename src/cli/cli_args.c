// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options every command reads (--config, --sysroot, --verbose) are taken after adopt
 * and backing too, as after status: they are moved in front of the subcommand, so that
 * main's parser sees them and the subcommand's parser never does.
 */
#include "cli_args.h"

#include <stdbool.h>
#include <string.h>

/* 1 for "--config"/"--sysroot" (the value is the next argument), 2 for "--config=F",
 * "--sysroot=R", "-v" and "--verbose", 0 for anything else. */
static int global_kind(const char *arg)
{
	static const char *const with_value[] = {"--config", "--sysroot"};

	for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++) {
		size_t n = strlen(with_value[i]);

		if (strcmp(arg, with_value[i]) == 0)
			return 1;
		if (strncmp(arg, with_value[i], n) == 0 && arg[n] == '=')
			return 2;
	}
	return strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0 ? 2 : 0;
}

int cli_hoist_globals(int argc, char **argv, int at)
{
	for (int i = at + 1; i < argc; i++) {
		int kind = global_kind(argv[i]);
		int n = kind == 1 ? 2 : 1;
		char *moved[2];

		if (strcmp(argv[i], "--") == 0)
			break;
		if (!kind || (kind == 1 && i + 1 >= argc))
			continue; /* a missing value: the subcommand's parser names it */
		moved[0] = argv[i];
		moved[1] = n == 2 ? argv[i + 1] : NULL;
		memmove(&argv[at + n], &argv[at], (size_t)(i - at) * sizeof(*argv));
		argv[at] = moved[0];
		if (n == 2)
			argv[at + 1] = moved[1];
		at += n;
		i += n - 1;
	}
	return at;
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}
