/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_TEST_ADVISE_RUN_H
#define ZRAM_RECOMPD_TEST_ADVISE_RUN_H

/*
 * advise_main run in-process for the unit tests (header-only; include cmocka.h and
 * fakeroot.h first): its stdout and stderr land in out_buf and err_buf.
 */

#include "advise.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out_buf[65536], err_buf[8192];

static inline void advise_slurp(int fd, char *buf, size_t size)
{
	ssize_t n;

	(void)lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* advise_main with "advise" and the NULL-terminated args (at most 30). */
static inline int advise_run_args(int root_fd, const char *const *args)
{
	char *argv[32];
	int argc = 0, rc, o, e, so, se;

	argv[argc++] = strdup("advise");
	for (; *args && argc < 31; args++)
		argv[argc++] = strdup(*args);
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	o = open(tpath("stdout"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	e = open(tpath("stderr"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(o >= 0 && e >= 0);
	so = dup(1);
	se = dup(2);
	dup2(o, 1);
	dup2(e, 2);
	rc = advise_main(argc, argv, root_fd);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	advise_slurp(o, out_buf, sizeof(out_buf));
	advise_slurp(e, err_buf, sizeof(err_buf));
	close(o);
	close(e);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

#endif
