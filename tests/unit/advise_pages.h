/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_TEST_ADVISE_PAGES_H
#define ZRAM_RECOMPD_TEST_ADVISE_PAGES_H

/*
 * Test pages and a fake device for the advisor's unit tests (header-only, like fakeroot.h;
 * include cmocka.h and fakeroot.h first): deterministic text, random, sparse and zero pages,
 * the standard mixed set, and zram0 holding it under fr_dir.
 */

#include "compress.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static inline uint64_t gen_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* kind 0 text, 1 random, 2 sparse, 3 zero (same-filled) */
static inline void gen_page(uint8_t *p, unsigned kind, uint64_t seed)
{
	static const char *const words[] = {"zram ", "page ", "slot ",	"compress ", "the ",
					    "idle ", "huge ", "class ", "pool ",     "\n"};
	uint64_t s = seed * 2654435761u + 1;
	size_t i = 0;

	switch (kind) {
	case 0:
		while (i < 4096) {
			const char *w = words[gen_rng(&s) % 10];

			for (; *w && i < 4096; w++)
				p[i++] = (uint8_t)*w;
		}
		break;
	case 1:
		for (i = 0; i < 4096; i++)
			p[i] = (uint8_t)gen_rng(&s);
		break;
	case 2:
		memset(p, 0, 4096);
		for (i = 0; i < 40; i++)
			p[gen_rng(&s) % 4096] = (uint8_t)(gen_rng(&s) | 1);
		break;
	default:
		memset(p, 0, 4096);
		break;
	}
}

static char path_buf[512] __attribute__((unused));

static inline const char *tpath(const char *rel)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", fr_dir, rel);
	return path_buf;
}

static inline void write_bytes(const char *rel, const void *data, size_t len)
{
	int fd = open(tpath(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* The standard mixed file: 16 text, 8 random, 8 sparse, 8 zero pages, interleaved. */
#define MIX_PAGES 40
static uint8_t mix[MIX_PAGES][4096] __attribute__((unused));

static inline void make_mix(void)
{
	for (unsigned i = 0; i < MIX_PAGES; i++) {
		unsigned kind = i % 5 < 2 ? 0 : i % 5 - 1; /* 0 0 1 2 3 */

		gen_page(mix[i], kind, i + 1);
	}
}

/* zram0 with the mixed pages in the first slots of a 64-slot disk. */
static inline void make_device(const char *comp, const char *recomp, bool with_block_state)
{
	static uint8_t disk[64][4096];
	char mm[256], line[64];
	unsigned same = 0;

	memset(disk, 0, sizeof(disk));
	memcpy(disk, mix, sizeof(mix));
	for (int i = 0; i < MIX_PAGES; i++)
		same += comp_page_same_filled(mix[i], 4096);
	fr_write("sys/block/zram0/initstate", "1\n");
	fr_write("sys/block/zram0/disksize", "262144\n");
	fr_write("sys/block/zram0/comp_algorithm", comp);
	fr_write("sys/block/zram0/recomp_algorithm", recomp);
	snprintf(mm, sizeof(mm), "%8u %8u %8u %8u %8u %8u %8u %8u %8u\n", MIX_PAGES * 4096, 50000,
		 65536, 0, 65536, same, 0, 8, 8);
	fr_write("sys/block/zram0/mm_stat", mm);
	fr_write("dev/zram0", "");
	write_bytes("dev/zram0", disk, sizeof(disk));
	if (with_block_state) {
		static char bs[MIX_PAGES * 41 + 1];
		size_t len = 0;

		for (int i = 0; i < MIX_PAGES; i++) {
			bool s = comp_page_same_filled(mix[i], 4096);

			snprintf(line, sizeof(line), "%12d %12d.%06d %c.%c...\n", i, 1000 + i, 0,
				 s ? 's' : '.', (!s && i % 5 == 2) ? 'h' : '.');
			memcpy(bs + len, line, strlen(line) + 1);
			len += strlen(line);
		}
		fr_write("sys/kernel/debug/zram/zram0/block_state", bs);
	} else {
		(void)unlink(tpath("sys/kernel/debug/zram/zram0/block_state"));
	}
}

#endif
