// SPDX-License-Identifier: GPL-2.0-or-later
#include "host.h"

#include "sysfs.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
