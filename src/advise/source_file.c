// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pages of a page file for `advise --input` (include/advise_internal.h): pages of the
 * engine's page size (--page-size, else the kernel's; consecutive 4 KiB pages of a corpus
 * make one larger page, in their order), plain or one zstd stream (recognised by its magic number, not by the name), every page
 * compressed or a reservoir sample of --samples of them.
 */
#include "advise_internal.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define ZSTD_MAGIC_LE 0xfd2fb528u
#define READ_CHUNK (128u * 1024u)

struct reservoir {
	uint8_t *pages;
	uint64_t cap;  /* pages */
	uint64_t seen; /* non-same pages offered */
};

struct file_reader {
	const char *path;
	struct adv_engine *e;
	struct adv_source *src;
	struct adv_rng *rng;
	struct reservoir res;
	uint8_t page[COMP_PAGE_SIZE_MAX];
	size_t ps; /* page size: e->page_size */
	size_t fill;
	ZSTD_DStream *zs; /* NULL: plain pages */
	uint8_t *zout;
	size_t zret; /* the last ZSTD_decompressStream() result: 0 at the end of a frame */
};

/* A whole page: counted, and compressed now or kept in the reservoir. */
static int file_take_page(struct file_reader *fr)
{
	struct reservoir *res = &fr->res;
	uint64_t pos;

	fr->src->pages++;
	if (comp_page_same_filled(fr->page, fr->ps)) {
		fr->src->same_pages++;
		return 0;
	}
	if (!res->pages)
		return adv_engine_add_page(fr->e, fr->page);
	pos = adv_reservoir_pos(fr->rng, res->seen, res->cap);
	if (pos < res->cap)
		memcpy(res->pages + pos * fr->ps, fr->page, fr->ps);
	res->seen++;
	return 0;
}

/* Bytes of page data, cut into pages; an engine error is logged. */
static int file_feed(struct file_reader *fr, const uint8_t *buf, size_t len)
{
	while (len) {
		size_t n = fr->ps - fr->fill;
		int r;

		if (n > len)
			n = len;
		memcpy(fr->page + fr->fill, buf, n);
		fr->fill += n;
		buf += n;
		len -= n;
		if (fr->fill == fr->ps) {
			fr->fill = 0;
			r = file_take_page(fr);
			if (r < 0) {
				log_error("advise: '%s': %s", fr->path, adv_engine_strerror(r));
				return r;
			}
		}
	}
	return 0;
}

static bool is_zstd(const uint8_t *in, size_t n)
{
	return n >= 4 && ((uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 |
			  (uint32_t)in[3] << 24) == ZSTD_MAGIC_LE;
}

static int zstd_start(struct file_reader *fr)
{
	fr->zs = ZSTD_createDStream();
	fr->zout = malloc(ZSTD_DStreamOutSize());
	if (!fr->zs || !fr->zout) {
		log_error("advise: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Decompress what ib holds (an empty ib drains the decoder: one output buffer at most). */
static int zstd_step(struct file_reader *fr, ZSTD_inBuffer *ib, size_t *ret_out)
{
	ZSTD_outBuffer ob = {fr->zout, ZSTD_DStreamOutSize(), 0};

	fr->zret = ZSTD_decompressStream(fr->zs, &ob, ib);
	if (ZSTD_isError(fr->zret)) {
		log_error("advise: '%s': zstd: %s", fr->path, ZSTD_getErrorName(fr->zret));
		return -EINVAL;
	}
	*ret_out = ob.pos;
	return file_feed(fr, fr->zout, ob.pos);
}

/* One chunk of the file; the first one decides whether the file is a zstd stream. */
static int feed_chunk(struct file_reader *fr, const uint8_t *in, size_t n, bool first)
{
	ZSTD_inBuffer ib = {in, n, 0};
	size_t out;
	int r = 0;

	if (first && is_zstd(in, n) && zstd_start(fr) < 0)
		return -ENOMEM;
	if (!fr->zs)
		return file_feed(fr, in, n);
	while (ib.pos < ib.size && r == 0)
		r = zstd_step(fr, &ib, &out);
	return r;
}

/* What the decoder still holds after the last input byte; a stream cut short is an error. */
static int zstd_drain(struct file_reader *fr)
{
	static const uint8_t none;
	size_t out;
	int r;

	while (fr->zs && fr->zret != 0) {
		ZSTD_inBuffer ib = {&none, 0, 0};

		r = zstd_step(fr, &ib, &out);
		if (r < 0)
			return r;
		if (out == 0) {
			log_error("advise: '%s': truncated zstd stream", fr->path);
			return -EINVAL;
		}
	}
	return 0;
}

static int read_pages(struct file_reader *fr, int fd, uint8_t *in)
{
	bool first = true;
	size_t n;
	int r;

	for (;;) {
		r = read_full(fd, in, READ_CHUNK, &n);
		if (r < 0) {
			errno = -r;
			log_error("advise: cannot read '%s': %m", fr->path);
			return r;
		}
		if (n == 0)
			return zstd_drain(fr);
		r = feed_chunk(fr, in, n, first);
		if (r < 0)
			return r;
		first = false;
	}
}

/* After the last byte: the partial page, the reservoir into the engine, the counts. */
static int finish_pages(struct file_reader *fr)
{
	struct adv_source *src = fr->src;
	uint64_t k = fr->res.seen < fr->res.cap ? fr->res.seen : fr->res.cap;
	int r = 0;

	src->trailing = fr->fill;
	if (src->pages == 0) {
		if (fr->fill)
			log_error("advise: '%s': no pages (shorter than one %zu-byte page)",
				  fr->path, fr->ps);
		else
			log_error("advise: '%s': no pages (empty)", fr->path);
		return -ENODATA;
	}
	if (fr->fill)
		log_warning("advise: '%s': ignoring %zu trailing bytes (not a whole %zu-byte page)",
			    fr->path, fr->fill, fr->ps);
	for (uint64_t i = 0; fr->res.pages && i < k && r == 0; i++)
		r = adv_engine_add_page(fr->e, fr->res.pages + i * fr->ps);
	if (r == 0)
		r = adv_engine_flush(fr->e);
	if (r < 0) {
		log_error("advise: '%s': %s", fr->path, adv_engine_strerror(r));
		return r;
	}
	src->read = src->pages;
	src->represented = src->pages - src->same_pages;
	src->sampled = fr->e->npages;
	src->sampling = src->sampled != src->represented;
	return 0;
}

static int reader_init(struct file_reader *fr, const struct adv_opts *o)
{
	if (!o->samples_set || o->samples == 0)
		return 0;
	fr->res.cap = o->samples;
	fr->res.pages = o->samples <= SIZE_MAX / fr->ps ? malloc(o->samples * fr->ps) : NULL;
	if (!fr->res.pages) {
		log_error("advise: cannot hold %" PRIu64 " sample pages in memory", o->samples);
		return -ENOMEM;
	}
	return 0;
}

int adv_read_file(const struct adv_opts *o, struct adv_rng *rng, struct adv_engine *e,
		  struct adv_source *src)
{
	struct file_reader *fr = calloc(1, sizeof(*fr));
	uint8_t *in = malloc(READ_CHUNK);
	int fd = -1, r = -ENOMEM;

	snprintf(src->name, sizeof(src->name), "%s", o->input);
	if (!fr || !in) {
		log_error("advise: out of memory");
		goto out;
	}
	*fr = (struct file_reader){
		.path = o->input, .e = e, .src = src, .rng = rng, .ps = e->page_size};
	r = reader_init(fr, o);
	if (r < 0)
		goto out;
	fd = open(o->input, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		log_error("advise: cannot open '%s': %m", o->input);
		goto out;
	}
	r = read_pages(fr, fd, in);
	if (r == 0)
		r = finish_pages(fr);
out:
	if (fd >= 0)
		close(fd);
	if (fr) {
		ZSTD_freeDStream(fr->zs);
		free(fr->zout);
		free(fr->res.pages);
	}
	free(fr);
	free(in);
	return r < 0 ? 1 : 0;
}
