// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Facts about the machine, not about zram: PSI averages and triggers, power supply, the
 * kernel release and configuration, meminfo. All reads go through the sysfs layer.
 */
#include "host.h"

#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int host_parse_psi_some_avg10(const char *text, int *ret_x100)
{
	unsigned whole, frac;
	char f[3] = { 0 };

	/* "some avg10=1.23 ..." : the kernel prints two decimals (LOAD_INT.LOAD_FRAC). */
	if (sscanf(text, "some avg10=%u.%2[0-9]", &whole, f) != 2 || whole > 100 || !f[0])
		return -EINVAL;
	frac = (unsigned)(f[0] - '0') * 10 + (f[1] ? (unsigned)(f[1] - '0') : 0);
	*ret_x100 = (int)(whole * 100 + frac);
	return 0;
}

int host_psi_some_avg10(int root_fd, const char *resource, int *ret_x100)
{
	char path[64], buf[512];
	int r;

	r = str_printf(path, sizeof(path), "proc/pressure/%s", resource);
	if (r < 0)
		return r;
	r = sysfs_read(root_fd, path, buf, sizeof(buf), NULL);
	if (r < 0)
		return r == -EOPNOTSUPP ? -ENOENT : r;
	return host_parse_psi_some_avg10(buf, ret_x100);
}

enum tri host_on_battery(int root_fd)
{
	char names[32][64];
	int n = sysfs_list_dir(root_fd, "sys/class/power_supply", names, 32);
	bool mains = false;

	for (int i = 0; i < n; i++) {
		char path[160], buf[64];
		uint64_t online;
		size_t len;

		if (str_printf(path, sizeof(path), "sys/class/power_supply/%s/type", names[i]) < 0)
			continue;
		if (sysfs_read(root_fd, path, buf, sizeof(buf), &len) < 0)
			continue;
		/* By length: trailing newline, whitespace or NUL padding are not the value. */
		while (len > 0 && (buf[len - 1] == '\0' || isspace((unsigned char)buf[len - 1])))
			len--;
		if (len != 5 || memcmp(buf, "Mains", 5) != 0)
			continue;
		mains = true;
		if (str_printf(path, sizeof(path), "sys/class/power_supply/%s/online", names[i]) < 0)
			continue;
		if (sysfs_read_u64(root_fd, path, &online) == 0 && online)
			return TRI_NO;
	}
	return mains ? TRI_YES : TRI_NO;
}

int host_psi_trigger(int root_fd, const char *resource, unsigned stall_us, unsigned window_us,
		     int *ret_fd)
{
	char cmd[64];
	ssize_t n;
	int fd, r;

	r = str_printf(cmd, sizeof(cmd), "some %u %u", stall_us, window_us);
	if (r < 0)
		return r;
	r = sysfs_open_pressure(root_fd, resource, &fd);
	if (r < 0)
		return r;
	/* The trigger string must include its NUL (psi_write copies len bytes). */
	n = write(fd, cmd, strlen(cmd) + 1);
	if (n < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int host_read_kver(int root_fd, struct kver *ret, char *release, size_t size)
{
	char buf[128];
	int r;

	r = sysfs_read(root_fd, "proc/sys/kernel/osrelease", buf, sizeof(buf), NULL);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	if (release && str_printf(release, size, "%s", buf) < 0)
		return -ENOBUFS;
	return kver_parse(buf, ret);
}

/* Look for "NAME=y" / "# NAME is not set" in kernel config text. */
static enum tri kconfig_lookup(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, name, n) == 0 && p[n] == '=')
			return (p[n + 1] == 'y' || p[n + 1] == 'm') ? TRI_YES : TRI_NO;
		if (strncmp(p, "# ", 2) == 0 && strncmp(p + 2, name, n) == 0 &&
		    strncmp(p + 2 + n, " is not set", 11) == 0)
			return TRI_NO;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return TRI_UNKNOWN;
}

/* Read up to 1 MiB of (optionally gzip'd) kernel config through the sysfs layer. */
static int read_kconfig(int root_fd, const char *relpath, bool gz, char **ret)
{
	const size_t cap = 1u << 20;
	char *text;
	size_t len = 0;
	int fd, r;

	r = sysfs_open_read(root_fd, relpath, &fd);
	if (r < 0)
		return r;
	text = malloc(cap + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	if (gz) {
		gzFile g = gzdopen(fd, "rb");
		int n;

		if (!g) {
			close(fd);
			free(text);
			return -ENOMEM;
		}
		while (len < cap && (n = gzread(g, text + len, (unsigned)(cap - len))) > 0)
			len += (size_t)n;
		gzclose(g);
	} else {
		/* What could be read counts, as with gzread: the options sought come early. */
		(void)read_full(fd, text, cap, &len);
		close(fd);
	}
	text[len] = '\0';
	*ret = text;
	return 0;
}

enum tri host_kconfig_idle_age(int root_fd, const struct kver *kv, const char *release)
{
	/* 6.8 split ac-time tracking out of MEMORY_TRACKING (which still selects it). */
	return host_kconfig(root_fd, release,
			    kver_ge(kv, 6, 8, 0) ? "CONFIG_ZRAM_TRACK_ENTRY_ACTIME"
						 : "CONFIG_ZRAM_MEMORY_TRACKING");
}

enum tri host_kconfig(int root_fd, const char *release, const char *opt)
{
	char path[160];
	char *text = NULL;
	enum tri t;

	if (read_kconfig(root_fd, "proc/config.gz", true, &text) < 0) {
		if (str_printf(path, sizeof(path), "boot/config-%s", release) < 0 ||
		    read_kconfig(root_fd, path, false, &text) < 0)
			return TRI_UNKNOWN;
	}
	t = kconfig_lookup(text, opt);
	/* An absent option in a readable config means it does not exist: not built. */
	if (t == TRI_UNKNOWN && kconfig_lookup(text, "CONFIG_ZRAM") != TRI_UNKNOWN)
		t = TRI_NO;
	free(text);
	return t;
}

struct meminfo_acc {
	uint64_t total, avail;
	bool have_t, have_a;
};

/* One line of n bytes (not NUL-terminated; NULs end it early). */
static void meminfo_line(struct meminfo_acc *a, const char *text, size_t n)
{
	unsigned long long kb;
	char line[128];

	/* The kernel's lines are about 30 bytes; a longer one is none of these two. */
	if (n >= sizeof(line))
		return;
	memcpy(line, text, n);
	line[n] = '\0';
	if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
		a->total = sat_mul_u64(kb, 1024);
		a->have_t = true;
	} else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
		a->avail = sat_mul_u64(kb, 1024);
		a->have_a = true;
	}
}

static int meminfo_result(const struct meminfo_acc *a, uint64_t *ret_total,
			  uint64_t *ret_available)
{
	if (!a->have_t || !a->have_a || a->total == 0)
		return -EINVAL;
	*ret_total = a->total;
	*ret_available = a->avail;
	return 0;
}

int host_parse_meminfo(const char *text, size_t len, uint64_t *ret_total, uint64_t *ret_available)
{
	struct meminfo_acc a = { 0 };

	for (size_t pos = 0; pos < len;) {
		const char *eol = memchr(text + pos, '\n', len - pos);
		size_t n = eol ? (size_t)(eol - (text + pos)) : len - pos;

		meminfo_line(&a, text + pos, n);
		pos += n + 1;
	}
	return meminfo_result(&a, ret_total, ret_available);
}

/*
 * Read line by line, whatever the file's size (machines with many NUMA nodes or hugepage
 * sizes exceed any fixed buffer); a line longer than the buffer is skipped whole.
 */
int host_swap_has(int root_fd, const char *dev)
{
	size_t n = strlen(dev), len;
	char *buf = malloc(64 * 1024);
	int r = buf ? sysfs_read(root_fd, "proc/swaps", buf, 64 * 1024, &len) : -ENOMEM;

	const char *l = buf;

	/* "Filename Type Size Used Priority", then one line per area, its path first */
	while (r == 0 && l && *l) {
		if (strncmp(l, dev, n) == 0 && (l[n] == ' ' || l[n] == '\t'))
			r = 1;
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	free(buf);
	return r;
}

int host_read_meminfo(int root_fd, uint64_t *ret_total, uint64_t *ret_available)
{
	struct meminfo_acc a = { 0 };
	char buf[1024];
	size_t have = 0, n;
	bool skipping = false, eof = false;
	int fd, r;

	r = sysfs_open_read(root_fd, "proc/meminfo", &fd);
	if (r < 0)
		return r;
	while (!eof) {
		char *line = buf, *nl;

		r = read_full(fd, buf + have, sizeof(buf) - 1 - have, &n);
		if (r < 0)
			break;
		eof = n < sizeof(buf) - 1 - have;
		have += n;
		buf[have] = '\0';
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			if (!skipping)
				meminfo_line(&a, line, (size_t)(nl - line));
			skipping = false;
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have + 1);
		if (have == sizeof(buf) - 1) {
			skipping = true; /* no newline in a full buffer */
			have = 0;
		}
	}
	close(fd);
	if (r < 0)
		return r;
	if (have && !skipping)
		meminfo_line(&a, buf, have); /* the last line, without its newline */
	return meminfo_result(&a, ret_total, ret_available);
}
