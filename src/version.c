// SPDX-License-Identifier: GPL-2.0-or-later
/* --version (include/version.h), moved out of main.c to keep that file within its bound. */
#include "version.h"

#include <dlfcn.h>
#include <limits.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <zlib.h>
#include <zstd.h>

/*
 * The version, and the libraries this process runs with (not those it was built
 * against): what a bug report needs. libsystemd has no version call; the file the dynamic
 * linker loaded names it (libsystemd.so.0.35.0 is systemd 252). The LZO1X encoder is this
 * program's own, so no liblzo2.
 */
void version_print(FILE *f)
{
	char path[PATH_MAX];
	const char *sd = "unknown";
	Dl_info info;

	if (dladdr((void *)sd_event_new, &info) && info.dli_fname &&
	    realpath(info.dli_fname, path)) {
		const char *base = strrchr(path, '/');

		sd = base ? base + 1 : path;
	}
	fprintf(f, "zram-recompd %s\n", VERSION);
	fprintf(f, "liblz4 %s, libzstd %s, zlib %s, libsystemd %s\n", LZ4_versionString(),
		ZSTD_versionString(), zlibVersion(), sd);
}
