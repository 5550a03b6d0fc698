// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The configuration loader and --print-config (config_file.c, config.c). The input is a
 * configuration file. Whatever it holds, loading, printing and the per-device lookups must
 * not fail badly; a file that loads without errors must print as a file that loads without
 * errors and prints the same again (the round trip --print-config promises). The input is
 * also loaded as a drop-in behind it, through config_load().
 */
#include "fuzz.h"

#include "config.h"

#include <errno.h>
#include <sys/stat.h>

static struct config c, c2;
static struct config_errors errs;
static int dir_fd = -1;
static char in_path[4200], out_path[4200], main_path[4200], dropins[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_tmpdir();

	(void)argc;
	(void)argv;
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0 || mkdirat(dir_fd, "main.conf.d", 0700) < 0)
		abort();
	snprintf(in_path, sizeof(in_path), "%s/in.conf", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.conf", dir);
	snprintf(main_path, sizeof(main_path), "%s/main.conf", dir);
	snprintf(dropins, sizeof(dropins), "%s/main.conf.d", dir);
	/* main file: "[global]\ncompact = never\n"; the input is main.conf.d/50-in.conf */
	fuzz_write_file(dir_fd, "main.conf", "[global]\ncompact = never\n", 25);
	return 0;
}

/* --print-config of cfg, as a malloc'd string. */
static char *print(const struct config *cfg, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();
	config_print(cfg, f);
	if (fclose(f) != 0)
		abort();
	return text;
}

static void lookups(const struct config *cfg)
{
	struct dev_config d;

	for (unsigned i = 0; i < cfg->n_sections && i < CFG_MAX_DEVICES; i++) {
		config_effective(cfg, cfg->sections[i].id, &d);
		(void)config_device_selected(cfg, cfg->sections[i].id);
	}
	config_effective(cfg, 0, &d);
	FUZZ_CHECK(d.max_pages_per_batch >= 1);
	FUZZ_CHECK(d.n_algos <= CFG_MAX_ALGOS && d.n_passes <= CFG_MAX_PASSES);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *text2;
	size_t len, len2;
	int r;

	fuzz_write_file(dir_fd, "in.conf", data, size);
	config_init(&c);
	r = config_load_file(&c, in_path, &errs);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK((r == 0) == (errs.n == 0 && errs.dropped == 0));
	FUZZ_CHECK(errs.n <= CFG_MAX_ERRORS);
	for (unsigned i = 0; i < errs.n; i++)
		FUZZ_CHECK(memchr(errs.msg[i], '\0', sizeof(errs.msg[i])) != NULL);
	lookups(&c);
	text = print(&c, &len);

	if (r == 0) {
		fuzz_write_file(dir_fd, "out.conf", text, len);
		config_init(&c2);
		r = config_load_file(&c2, out_path, &errs);
		if (r != 0) {
			fprintf(stderr, "printed configuration does not load:\n%s---\n%s\n", text,
				errs.n ? errs.msg[0] : "(no message)");
			abort();
		}
		text2 = print(&c2, &len2);
		if (len != len2 || memcmp(text, text2, len) != 0) {
			fprintf(stderr, "print, load, print differs:\n%s---\n%s", text, text2);
			abort();
		}
		free(text2);
	}
	free(text);

	/* The same text as a drop-in after a main file. */
	fuzz_write_file(dir_fd, "main.conf.d/50-in.conf", data, size);
	r = config_load(&c, main_path, dropins, &errs);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	lookups(&c);
	return 0;
}
