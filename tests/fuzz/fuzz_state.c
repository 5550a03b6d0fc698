// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The state file (src/state/state.c). The input is the file's content. state_load() either
 * accepts it or rejects it whole (-EBADMSG, empty state). What it accepts must save, load
 * back to the same totals, and save to the same bytes again; the Prometheus textfile of
 * it must write as well.
 */
#include "fuzz.h"

#include "state.h"

#include <errno.h>

static struct state s, s2;
static int dir_fd = -1;
static char prom_path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_tmpdir();

	(void)argc;
	(void)argv;
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		abort();
	snprintf(prom_path, sizeof(prom_path), "%s/metrics.prom", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *saved, *saved2;
	size_t len, len2;
	int r;

	fuzz_write_file(dir_fd, "state", data, size);
	r = state_load(&s, dir_fd);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r < 0) {
		FUZZ_CHECK(s.n == 0 && !s.dev);
		return 0;
	}
	FUZZ_CHECK(s.n <= s.cap);
	for (unsigned i = 0; i < s.n; i++)
		FUZZ_CHECK(state_get(&s, s.dev[i].name) == &s.dev[i]);

	FUZZ_CHECK(state_save(&s, dir_fd) == 0);
	saved = fuzz_read_file(dir_fd, "state", &len);
	FUZZ_CHECK(state_load(&s2, dir_fd) == 0);
	FUZZ_CHECK(s.n == s2.n && (!s.n || memcmp(s.dev, s2.dev, s.n * sizeof(s.dev[0])) == 0));
	FUZZ_CHECK(state_save(&s2, dir_fd) == 0);
	saved2 = fuzz_read_file(dir_fd, "state", &len2);
	FUZZ_CHECK(len == len2 && memcmp(saved, saved2, len) == 0);
	free(saved);
	free(saved2);

	FUZZ_CHECK(metrics_write(prom_path, &s, NULL, 0) == 0);
	state_free(&s);
	state_free(&s2);
	return 0;
}
