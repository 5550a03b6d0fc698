// SPDX-License-Identifier: GPL-2.0-or-later
/* --help and --version (include/version.h): the program's own texts, outside main.c's bound. */
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

void help_print(FILE *f)
{
	fprintf(f,
		"Usage: zram-recompd [OPTIONS]                 run the daemon (foreground)\n"
		"       zram-recompd [OPTIONS] --once [--dry-run] [--device zramN]...\n"
		"       zram-recompd [OPTIONS] status [--json] [--device zramN]...\n"
		"       zram-recompd [OPTIONS] advise [ADVISE OPTIONS]  (see zram-recompd(8))\n"
		"       zram-recompd [OPTIONS] adopt [--dry-run] [--via-temp] [--force] zramN\n"
		"       zram-recompd [OPTIONS] backing setup|teardown [zramN]...\n"
		"       zram-recompd [OPTIONS] --check-config | --print-config | can-run\n"
		"\n"
		"Drives zram recompression: marks idle pages, recompresses them with the\n"
		"secondary algorithms in bounded batches, compacts, and reports the savings.\n"
		"\n"
		"  --once            run one pass over each selected device and exit\n"
		"  --dry-run         with --once: print the commands, write nothing\n"
		"  --device zramN    only this device (repeatable; default: config 'devices')\n"
		"  status            show devices, savings, capabilities\n"
		"  --json            with status: JSON instead of text\n"
		"  adopt zramN       give an in-use swap device the configured secondaries\n"
		"                    (--dry-run: the figures and steps; see zram-recompd(8))\n"
		"  backing ...       create or remove the backing files of backing-file\n"
		"  --check-config    validate the configuration and exit\n"
		"  --print-config    print the effective configuration and exit\n"
		"  can-run           exit 0 if there is work for the daemon, 1 if not (ExecCondition=)\n"
		"  --config FILE     only this configuration file, no drop-ins (default:\n"
		"                    %s/zram-recompd.conf, /run, /usr/local/lib, /usr/lib\n"
		"                    and zram-recompd.conf.d/*.conf there; see zram-recompd.conf(5))\n"
		"  --sysroot DIR     root for /sys, /proc and /dev (env ZRAM_RECOMPD_SYSROOT)\n"
		"  --no-sandbox      daemon and --once: no Landlock restriction of writes\n"
		"  -v, --verbose     debug messages\n"
		"  -h, --help        this text\n"
		"      --version     print the version\n",
		SYSCONFDIR);
}
