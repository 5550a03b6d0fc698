// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Crash consistency of state_save(): a forked child saves a new state over an old one and is
 * killed with SIGKILL just before its Nth file system call of the save, for every N from the
 * first call to one past the last. After each kill, what the next start does
 * (state_remove_stale_temps(), then state_load()) must find exactly the old file before the
 * rename and exactly the new one from the rename on, never a torn or empty one, and no temp
 * file may stay.
 *
 * Link: tests/unit/test_state_crash.ldflags wraps openat (and openat64, its name on 32-bit
 * targets), fchmod, write, fsync, close and renameat (-Wl,--wrap, see the Makefile). Every call of those from the library objects
 * reaches __wrap_X below, which counts it while the child is armed and raises SIGKILL at the
 * chosen one; unarmed (the parent, cmocka), the wrappers only pass the call on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "state.h"
#include "fakeroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int __real_openat(int dfd, const char *path, int flags, ...);
int __real_fchmod(int fd, mode_t mode);
ssize_t __real_write(int fd, const void *buf, size_t len);
int __real_fsync(int fd);
int __real_close(int fd);
int __real_renameat(int olddfd, const char *oldpath, int newdfd, const char *newpath);
int __wrap_openat(int dfd, const char *path, int flags, ...);
int __wrap_fchmod(int fd, mode_t mode);
ssize_t __wrap_write(int fd, const void *buf, size_t len);
int __wrap_fsync(int fd);
int __wrap_close(int fd);
int __wrap_renameat(int olddfd, const char *oldpath, int newdfd, const char *newpath);

/* In the child only: count calls, die at kill_at (0: never), log their names. */
static bool armed;
static unsigned steps, kill_at;
static char step_log[512];

static void step(const char *name)
{
	if (!armed)
		return;
	steps++;
	if (steps == kill_at)
		raise(SIGKILL);
	if (strlen(step_log) + strlen(name) + 2 < sizeof(step_log)) {
		strcat(step_log, name);
		strcat(step_log, " ");
	}
}

int __wrap_openat(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	step("openat");
	return __real_openat(dfd, path, flags, mode);
}

/*
 * 32-bit targets with the Makefile's _FILE_OFFSET_BITS=64 (armhf): <fcntl.h> turns the
 * library's openat into openat64, wrapped as well (the .ldflags) and logged as "openat". On
 * 64-bit targets nothing calls openat64 and this wrapper stays unused.
 */
int __real_openat64(int dfd, const char *path, int flags, ...);
int __wrap_openat64(int dfd, const char *path, int flags, ...);

int __wrap_openat64(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	step("openat");
	return __real_openat64(dfd, path, flags, mode);
}

int __wrap_fchmod(int fd, mode_t mode)
{
	step("fchmod");
	return __real_fchmod(fd, mode);
}

ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	step("write");
	return __real_write(fd, buf, len);
}

int __wrap_fsync(int fd)
{
	step("fsync");
	return __real_fsync(fd);
}

int __wrap_close(int fd)
{
	step("close");
	return __real_close(fd);
}

int __wrap_renameat(int olddfd, const char *oldpath, int newdfd, const char *newpath)
{
	step("renameat");
	return __real_renameat(olddfd, oldpath, newdfd, newpath);
}

static int setup(void **arg)
{
	(void)arg;
	return fr_setup();
}

static int teardown(void **arg)
{
	(void)arg;
	fr_teardown();
	return 0;
}

static void fill(struct state *s, uint64_t passes, unsigned ndev)
{
	char name[16];

	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < ndev; i++) {
		struct dev_totals *d;

		snprintf(name, sizeof(name), "zram%u", i);
		d = state_get(s, name);
		assert_non_null(d);
		d->passes = passes + i;
		d->pages_attempted = passes * 1000 + i;
		d->bytes_saved = passes * 4096;
		d->last_pass_unix = 1700000000 + passes;
	}
}

/* Files of the directory whose name starts with "state.tmp". */
static unsigned count_temps(void)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(fr_dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, "state.tmp", 9) == 0)
			n++;
	closedir(d);
	return n;
}

/*
 * Fork a child that saves s over the directory's state and is killed at its kill_at-th step
 * (0: not at all). Returns 1 when it was killed, 0 when the save completed; the step names
 * the child went through are copied to log (when completed).
 */
static int save_in_child(const struct state *s, int root, unsigned at, char *log, size_t size)
{
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int r;

		__real_close(pfd[0]);
		kill_at = at;
		steps = 0;
		step_log[0] = '\0';
		armed = true;
		r = state_save(s, root);
		armed = false;
		if (__real_write(pfd[1], step_log, strlen(step_log)) < 0)
			_exit(3);
		_exit(r == 0 ? 0 : 2);
	}
	__real_close(pfd[1]);
	n = read(pfd[0], log, size - 1);
	log[n > 0 ? n : 0] = '\0';
	__real_close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status)) {
		assert_int_equal(WTERMSIG(status), SIGKILL);
		return 1;
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return 0;
}

static void test_kill_at_every_step(void **arg)
{
	struct state old_s, new_s, loaded;
	char *old_text, *new_text, log[512];
	unsigned nsteps = 0, rename_at = 0, kills = 0, left_temp = 0;
	int root;

	(void)arg;
	root = fr_open_root();
	fill(&new_s, 20, 6);
	assert_int_equal(state_save(&new_s, root), 0);
	new_text = strdup(fr_read("state"));
	fill(&old_s, 10, 3);
	assert_int_equal(state_save(&old_s, root), 0);
	old_text = strdup(fr_read("state"));
	assert_non_null(old_text);
	assert_non_null(new_text);
	assert_string_not_equal(old_text, new_text);

	/* The steps of one save, unkilled: the order replace_file() documents. */
	assert_int_equal(save_in_child(&new_s, root, 0, log, sizeof(log)), 0);
	assert_string_equal(fr_read("state"), new_text);
	assert_string_equal(log, "openat openat fchmod write fsync close renameat fsync close ");
	for (char *p = log; *p; p = strchr(p, ' ') + 1) {
		nsteps++;
		if (strncmp(p, "renameat ", 9) == 0)
			rename_at = nsteps;
	}
	assert_int_equal(nsteps, 9);

	for (unsigned at = 1; at <= nsteps + 1; at++) {
		unsigned temps;
		int removed;

		assert_int_equal(state_save(&old_s, root), 0);
		assert_string_equal(fr_read("state"), old_text);
		kills += (unsigned)save_in_child(&new_s, root, at, log, sizeof(log));

		/* The next start: stale temps go, then the state is read. */
		temps = count_temps();
		assert_in_range(temps, 0, 1);
		left_temp += temps;
		removed = state_remove_stale_temps(root, "state");
		assert_int_equal(removed, (int)temps);
		assert_int_equal(count_temps(), 0);
		assert_int_equal(state_load(&loaded, root), 0);
		if (at <= rename_at) {
			if (strcmp(fr_read("state"), old_text) != 0)
				fail_msg("killed at step %u (before the rename): not the old file", at);
			assert_int_equal(loaded.n, 3);
			assert_int_equal(loaded.dev[0].passes, 10);
		} else {
			if (strcmp(fr_read("state"), new_text) != 0)
				fail_msg("killed at step %u (after the rename): not the new file", at);
			assert_int_equal(loaded.n, 6);
			assert_int_equal(loaded.dev[5].passes, 25);
		}
		state_free(&loaded);
	}
	/* Every step but the one past the last was a kill; a temp file was left between the
	 * temp file's creation (step 2) and the rename. */
	assert_int_equal(kills, nsteps);
	assert_int_equal(left_temp, rename_at - 2);
	free(old_text);
	free(new_text);
	state_free(&old_s);
	state_free(&new_s);
	__real_close(root);
}

/* A kill before the first save ever completes leaves no state file: the next start begins
 * from zero, without a warning about corrupt content (state_load returns 0, not -EBADMSG). */
static void test_kill_first_save(void **arg)
{
	struct state new_s, loaded;
	char log[512];
	int root;

	(void)arg;
	root = fr_open_root();
	fill(&new_s, 5, 2);
	for (unsigned at = 1; at <= 7; at++) {
		assert_int_equal(save_in_child(&new_s, root, at, log, sizeof(log)), 1);
		assert_true(state_remove_stale_temps(root, "state") >= 0);
		assert_int_equal(count_temps(), 0);
		assert_int_equal(state_load(&loaded, root), 0);
		assert_int_equal(loaded.n, 0);
	}
	state_free(&new_s);
	__real_close(root);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_kill_at_every_step),
		T(test_kill_first_save),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
