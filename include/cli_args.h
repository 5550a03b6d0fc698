/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_CLI_ARGS_H
#define ZRAM_RECOMPD_CLI_ARGS_H

#include <stdbool.h>

/*
 * argv[at] is the subcommand adopt or backing: moves every --config F, --config=F,
 * --sysroot R, --sysroot=R, -v and --verbose after it (up to a "--") in front of it, in
 * their order, and returns the subcommand's new index (src/cli/cli_args.c).
 */
int cli_hoist_globals(int argc, char **argv, int at);

/* Whether argv[1..] (up to a "--") asks for --help or -h: the subcommand prints its usage. */
bool cli_wants_help(int argc, char **argv);

#endif
