// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The configuration loader and --print-config (config_file.c, config.c). The input is a
 * configuration file. Whatever it holds, loading, printing and the per-device lookups must
 * not fail badly; a file that loads without errors must print as a file that loads without
 * errors and prints the same again (the round trip --print-config promises). The input is
 * also loaded along a search path (config_load()): as an /etc drop-in that overrides a
 * /usr/lib one of the same name, behind a /usr/lib main file.
 */
#include "fuzz.h"

#include "config.h"

#include <errno.h>
#include <sys/stat.h>

static struct config c, c2;
static struct config_errors errs;
static struct config_files files;
static int dir_fd = -1;
static char in_path[4200], out_path[4200];
static struct config_source src;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_tmpdir();

	(void)argc;
	(void)argv;
	static const char *const dirs[] = {"etc", "etc/zram-recompd.conf.d", "usr", "usr/lib",
					   "usr/lib/zram-recompd.conf.d"};

	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		abort();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdirat(dir_fd, dirs[i], 0700) < 0)
			abort();
	snprintf(in_path, sizeof(in_path), "%s/in.conf", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.conf", dir);
	if (config_source_search(&src, dir) < 0)
		abort();
	/* The input becomes etc/zram-recompd.conf.d/50-in.conf, hiding usr/lib's 50-in.conf. */
	fuzz_write_file(dir_fd, "usr/lib/zram-recompd.conf", "[global]\ncompact = never\n", 25);
	/* Never read: a syntax error if it were. */
	fuzz_write_file(dir_fd, "usr/lib/zram-recompd.conf.d/50-in.conf", "[global]\nbogus\n",
			15);
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

	for (unsigned i = 0; i < cfg->n_sections; i++) {
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
		config_free(&c2);
	}
	free(text);
	config_free(&c);

	/* The same text as a drop-in after a main file; an empty one masks usr/lib's. */
	fuzz_write_file(dir_fd, "etc/zram-recompd.conf.d/50-in.conf", data, size);
	r = config_load(&c, &src, &files, &errs);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK(files.n == 3 && files.v[0].state == CFG_FILE_READ &&
		   files.v[1].state == (size ? CFG_FILE_READ : CFG_FILE_MASKED) &&
		   files.v[2].state == CFG_FILE_OVERRIDDEN);
	config_files_free(&files);
	lookups(&c);
	config_free(&c);
	return 0;
}
