// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dm-crypt over a backing device (include/backing.h), through libcryptsetup. The library
 * is loaded with dlopen() by the setup and teardown steps only, never linked: the
 * long-running daemon then never maps libcryptsetup, libdevmapper and OpenSSL, and a
 * machine without the library (the package only Recommends it) runs everything else.
 *
 * Plain mode, no header on the device: nothing of the key is ever stored. The key (512
 * bits: AES-256 in XTS takes two 256-bit keys) comes from getrandom(), lives in one stack
 * buffer until the kernel has it, and is erased with explicit_bzero right after
 * activation and on every error path. It is never logged, printed or written anywhere, so
 * what zram wrote back is unreadable once the mapping is gone: at teardown, at a crash,
 * at power-off.
 */
#include "backing.h"

#include "sysfs.h"
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define LIBCRYPTSETUP "libcryptsetup.so.12"
#define KEY_BYTES 64

/* The functions used, resolved from the library: their types are the header's. */
struct lib {
	void *h;
	__typeof__(&crypt_init) init;
	__typeof__(&crypt_init_by_name) init_by_name;
	__typeof__(&crypt_format) format;
	__typeof__(&crypt_activate_by_volume_key) activate;
	__typeof__(&crypt_deactivate) deactivate;
	__typeof__(&crypt_free) free;
	__typeof__(&crypt_set_log_callback) set_log;
};

/* The library's last error message (its own wording, for our one line). */
static void on_log(int level, const char *msg, void *user)
{
	char *last = user;
	size_t n;

	if (level != CRYPT_LOG_ERROR || !msg)
		return;
	(void)snprintf(last, BACKING_WHY_MAX / 2, "%s", msg);
	n = strlen(last);
	while (n && last[n - 1] == '\n')
		last[--n] = '\0';
}

static int lib_open(struct lib *l, char *last, char why[BACKING_WHY_MAX])
{
	memset(l, 0, sizeof(*l));
	l->h = dlopen(LIBCRYPTSETUP, RTLD_NOW | RTLD_LOCAL);
	if (!l->h) {
		(void)snprintf(why, BACKING_WHY_MAX,
			       "dm-crypt needs " LIBCRYPTSETUP " (package libcryptsetup12): %s",
			       dlerror());
		return -ENOPKG;
	}
	*(void **)&l->init = dlsym(l->h, "crypt_init");
	*(void **)&l->init_by_name = dlsym(l->h, "crypt_init_by_name");
	*(void **)&l->format = dlsym(l->h, "crypt_format");
	*(void **)&l->activate = dlsym(l->h, "crypt_activate_by_volume_key");
	*(void **)&l->deactivate = dlsym(l->h, "crypt_deactivate");
	*(void **)&l->free = dlsym(l->h, "crypt_free");
	*(void **)&l->set_log = dlsym(l->h, "crypt_set_log_callback");
	if (!l->init || !l->init_by_name || !l->format || !l->activate || !l->deactivate ||
	    !l->free || !l->set_log) {
		(void)snprintf(why, BACKING_WHY_MAX,
			       LIBCRYPTSETUP " lacks a function it has had "
					     "since 2.0");
		dlclose(l->h);
		return -ENOPKG;
	}
	last[0] = '\0';
	l->set_log(NULL, on_log, last);
	return 0;
}

static void lib_close(struct lib *l)
{
	l->set_log(NULL, NULL, NULL);
	dlclose(l->h);
}

static int fill_key(char key[KEY_BYTES])
{
	size_t got = 0;

	while (got < KEY_BYTES) {
		ssize_t n = getrandom(key + got, KEY_BYTES - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	return 0;
}

/* Format (in memory: plain mode writes nothing) and activate with one sector size. */
static int activate(const struct lib *l, const char *device, const char *name,
		    const char key[KEY_BYTES], uint32_t sector)
{
	struct crypt_params_plain params = {.sector_size = sector};
	struct crypt_device *cd = NULL;
	int r = l->init(&cd, device);

	if (r == 0)
		r = l->format(cd, CRYPT_PLAIN, "aes", "xts-plain64", NULL, key, KEY_BYTES, &params);
	if (r == 0)
		r = l->activate(cd, name, key, KEY_BYTES, 0);
	if (cd)
		l->free(cd);
	return r;
}

int dmcrypt_open(const char *device, const char *name, char why[BACKING_WHY_MAX])
{
	char key[KEY_BYTES], last[BACKING_WHY_MAX / 2];
	struct lib l;
	int r = lib_open(&l, last, why);

	if (r < 0)
		return r;
	r = fill_key(key);
	if (r < 0) {
		explicit_bzero(key, sizeof(key));
		lib_close(&l);
		(void)snprintf(why, BACKING_WHY_MAX, "getrandom: %s", strerror(-r));
		return r;
	}
	/* 4096-byte sectors (the largest dm-crypt takes): 8 times fewer IVs and requests for
	 * zram's pages, 4 KiB or larger, which zram writes back whole; a device
	 * or kernel (before 4.12) that refuses them gets 512 */
	r = activate(&l, device, name, key, 4096);
	if (r < 0 && r != -EEXIST && r != -EBUSY)
		r = activate(&l, device, name, key, 512);
	explicit_bzero(key, sizeof(key));
	lib_close(&l);
	if (r < 0)
		(void)snprintf(why, BACKING_WHY_MAX, "dm-crypt %s over %s: %s%s%s", name, device,
			       strerror(-r), last[0] ? ": " : "", last);
	return r < 0 ? r : 0;
}

int dmcrypt_close(const char *name, char why[BACKING_WHY_MAX])
{
	char last[BACKING_WHY_MAX / 2];
	struct crypt_device *cd = NULL;
	struct lib l;
	int r = lib_open(&l, last, why);

	if (r < 0)
		return r;
	r = l.init_by_name(&cd, name);
	if (r == 0)
		r = l.deactivate(cd, name);
	if (cd)
		l.free(cd);
	lib_close(&l);
	if (r < 0 && r != -ENODEV && r != -ENOENT)
		(void)snprintf(why, BACKING_WHY_MAX, "dm-crypt %s: %s%s%s", name, strerror(-r),
			       last[0] ? ": " : "", last);
	return r == -ENODEV ? -ENOENT : r;
}

int dmcrypt_find(int root_fd, const char *name, char dm[32])
{
	char(*names)[64] = calloc(4096, sizeof(*names));
	int n, r = -ENOENT;

	if (!names)
		return -ENOMEM;
	n = sysfs_list_dir(root_fd, "sys/block", names, 4096);
	for (int i = 0; i < n && r == -ENOENT; i++) {
		char attr[96], buf[160];
		size_t len;

		if (strncmp(names[i], "dm-", 3) != 0)
			continue;
		(void)str_printf(attr, sizeof(attr), "sys/block/%s/dm/name", names[i]);
		if (sysfs_read(root_fd, attr, buf, sizeof(buf), &len) < 0)
			continue;
		while (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (strcmp(buf, name) == 0)
			r = str_printf(dm, 32, "%s", names[i]);
	}
	free(names);
	return r;
}
