// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line: parse_args() of src/cli/main.c (static there, so this file includes
 * main.c with its main() renamed; the product code stays as it is) and, after an "advise"
 * argument, the advise options (adv_parse_opts). The input is the arguments after argv[0],
 * separated by NUL bytes (at most 64). Nothing is run: only the parsing, its messages and
 * its exit codes. A parse that continues (-1) leaves a consistent selection behind.
 */
#include "fuzz.h"

#define main zram_recompd_main
int main(int argc, char **argv);
#include "../../src/cli/main.c"
#undef main

#include "advise_internal.h"

#include <fcntl.h>

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)argc;
	(void)argv;
	/* --help and --version print to stdout: not the fuzzer's output. */
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		abort();
	close(fd);
	return 0;
}

/* Forget getopt's position in the previous input's argv (freed by now). */
static void getopt_reset(void)
{
	static char arg0[] = "x";
	static char *dummy[] = {arg0, NULL};

	optind = 0;
	opterr = 0;
	(void)getopt_long(1, dummy, "", long_opts, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[MAX_ARGS + 2], arg0[] = "zram-recompd";
	struct args a = {0};
	int argc = 1, advise_at, r;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = arg0;
	for (size_t off = 0; off <= size && argc <= MAX_ARGS;) {
		argv[argc++] = copy + off;
		off += strlen(copy + off) + 1;
	}
	if (size == 0)
		argc = 1;
	argv[argc] = NULL;

	/* Messages of rejected arguments would flood the fuzzer's output: errors only, and -v
	 * (debug) is reset for the next input. */
	log_set_max_level((enum log_level)0);
	getopt_reset();
	r = parse_args(argc, argv, &a, &advise_at);
	FUZZ_CHECK(r == -1 || r == EXIT_OK || r == EXIT_USAGE);
	FUZZ_CHECK(advise_at >= 0 && advise_at < argc);
	if (r == -1) {
		FUZZ_CHECK(a.once + a.status + a.check_config + a.print_config + (advise_at > 0) <=
			   1);
		FUZZ_CHECK(!a.dry_run || a.once);
		FUZZ_CHECK(!a.json || a.status);
		for (unsigned i = 0; i < a.n_devices; i++)
			for (unsigned j = 0; j < i; j++)
				FUZZ_CHECK(a.devices[i] != a.devices[j]);
		if (advise_at) {
			struct adv_opts o;

			log_set_max_level((enum log_level)0);
			r = adv_parse_opts(argc - advise_at, argv + advise_at, &o);
			FUZZ_CHECK(r >= 0 && r <= 2);
		}
	}
	free(a.devices);
	free(copy);
	return 0;
}
