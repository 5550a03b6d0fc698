// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Persisted totals and the Prometheus textfile: state_get table rules, save/load round
 * trip with the exact file text, strict rejection of every kind of corrupt file (and its
 * replacement by the next save), atomic replacement without leftovers, failure paths that
 * keep the old file, golden metrics output, and the state directory's resolution order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "state.h"
#include "util.h"
#include "fakeroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char keys_zero[] = " passes=0 pages_attempted=0 bytes_saved=0 mem_freed=0 "
				"incompressible=0 kernel_ns=0 errors=0 last_pass_unix=0 wb_pages=0 "
				"wb_day_left=0 wb_day_at=0\n";

/* The file text of fill_sample() below, byte for byte: the format is an interface. */
static const char sample_text[] =
	"zram-recompd-state 2\n"
	"zram0 passes=3 pages_attempted=1000 bytes_saved=4096 mem_freed=8192 incompressible=7 "
	"kernel_ns=1500000000 errors=1 last_pass_unix=1700000000 wb_pages=413 "
	"wb_day_left=1071050752 wb_day_at=1700000000\n"
	"zram12 passes=18446744073709551615 pages_attempted=18446744073709551615 "
	"bytes_saved=18446744073709551615 mem_freed=18446744073709551615 "
	"incompressible=18446744073709551615 kernel_ns=18446744073709551615 "
	"errors=18446744073709551615 last_pass_unix=18446744073709551615 "
	"wb_pages=18446744073709551615 wb_day_left=18446744073709551615 "
	"wb_day_at=18446744073709551615\n"
	"zram1 passes=0 pages_attempted=0 bytes_saved=0 mem_freed=0 incompressible=0 "
	"kernel_ns=0 errors=0 last_pass_unix=0 wb_pages=0 wb_day_left=0 wb_day_at=0\n";

static void fill_sample(struct state *s)
{
	struct dev_totals *d;

	memset(s, 0, sizeof(*s));
	d = state_get(s, "zram0");
	assert_non_null(d);
	*d = (struct dev_totals){ .name = "zram0", .passes = 3, .pages_attempted = 1000,
				  .bytes_saved = 4096, .mem_freed = 8192, .incompressible = 7,
				  .kernel_ns = 1500000000, .errors = 1,
				  .last_pass_unix = 1700000000, .wb_pages = 413,
				  .wb_day_left = 1071050752, .wb_day_at = 1700000000 };
	d = state_get(s, "zram12");
	assert_non_null(d);
	d->passes = d->pages_attempted = d->bytes_saved = d->mem_freed = UINT64_MAX;
	d->incompressible = d->kernel_ns = d->errors = d->last_pass_unix = UINT64_MAX;
	d->wb_pages = d->wb_day_left = d->wb_day_at = UINT64_MAX;
	assert_non_null(state_get(s, "zram1"));
	assert_int_equal(s->n, 3);
}

/* Something that is obviously not an empty state, to see load clear it. */
static void fill_junk(struct state *s)
{
	memset(s, 0xa5, sizeof(*s));
	s->n = 5;
}

/* The same entries in the same order (the tables themselves are different memory). */
static void assert_same(const struct state *a, const struct state *b)
{
	assert_int_equal(a->n, b->n);
	if (a->n)
		assert_memory_equal(a->dev, b->dev, a->n * sizeof(a->dev[0]));
}

static void assert_empty(const struct state *s)
{
	static const struct state zero;

	assert_int_equal(s->n, 0);
	assert_memory_equal(s, &zero, sizeof(zero));
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

static bool name_in(const char *name, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(name, *names) == 0)
			return true;
	return false;
}

/* The directory holds exactly the NULL-terminated list of names (no temp files). */
static void assert_dir_exactly(const char *rel, const char *const *names)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned found = 0, want = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", fr_dir, rel);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!name_in(de->d_name, names))
			fail_msg("unexpected file %s/%s", rel, de->d_name);
		found++;
	}
	closedir(d);
	while (names[want])
		want++;
	assert_int_equal(found, want);
}

static const char *const only_state[] = { "state", NULL };

static mode_t file_mode(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fr_dir, rel);
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode;
}

/*
 * Root ignores directory permissions through CAP_DAC_OVERRIDE; clear it from the effective
 * set (it stays permitted, so it can be raised again). Returns false when capabilities
 * cannot be changed here.
 */
static bool set_dac_override(bool on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	if (on)
		data[0].effective |= 1u << CAP_DAC_OVERRIDE;
	else
		data[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
	return syscall(SYS_capset, &hdr, data) == 0;
}

/* ---- state_get ---- */

static void test_get_creates_and_finds(void **arg)
{
	struct state s;
	struct dev_totals *a, *b;

	(void)arg;
	memset(&s, 0, sizeof(s));
	a = state_get(&s, "zram0");
	assert_non_null(a);
	assert_ptr_equal(a, &s.dev[0]);
	assert_int_equal(s.n, 1);
	assert_string_equal(a->name, "zram0");
	assert_int_equal(a->passes, 0);
	assert_int_equal(a->last_pass_unix, 0);
	a->passes = 9;

	b = state_get(&s, "zram10");
	assert_ptr_equal(b, &s.dev[1]);
	assert_int_equal(s.n, 2);
	assert_int_equal(b->passes, 0);

	/* Found again, not duplicated, value kept. */
	assert_ptr_equal(state_get(&s, "zram0"), a);
	assert_ptr_equal(state_get(&s, "zram10"), b);
	assert_int_equal(s.n, 2);
	assert_int_equal(a->passes, 9);
	/* "zram1" is a prefix of "zram10" but a different device. */
	assert_ptr_equal(state_get(&s, "zram1"), &s.dev[2]);
	assert_int_equal(s.n, 3);
	state_free(&s);
	assert_empty(&s);
}

static void test_get_new_entry_zeroed(void **arg)
{
	struct state s;
	struct dev_totals *d;

	(void)arg;
	memset(&s, 0, sizeof(s));
	/* Stale bytes in the unused slot must not leak into the new entry. */
	s.cap = 4;
	s.dev = malloc(s.cap * sizeof(s.dev[0]));
	assert_non_null(s.dev);
	memset(s.dev, 0xff, s.cap * sizeof(s.dev[0]));
	d = state_get(&s, "zram3");
	assert_ptr_equal(d, &s.dev[0]);
	assert_non_null(d);
	assert_string_equal(d->name, "zram3");
	for (size_t i = strlen("zram3"); i < sizeof(d->name); i++)
		assert_int_equal(d->name[i], 0);
	assert_int_equal(d->passes, 0);
	assert_int_equal(d->pages_attempted, 0);
	assert_int_equal(d->bytes_saved, 0);
	assert_int_equal(d->mem_freed, 0);
	assert_int_equal(d->incompressible, 0);
	assert_int_equal(d->kernel_ns, 0);
	assert_int_equal(d->errors, 0);
	assert_int_equal(d->last_pass_unix, 0);
	state_free(&s);
}

/* No cap (was 64): 200 devices, as zram-config makes on a 100-CPU server, and each kept. */
static void test_get_no_cap(void **arg)
{
	struct state s;
	char name[16];

	(void)arg;
	memset(&s, 0, sizeof(s));
	for (unsigned i = 0; i < 200; i++) {
		struct dev_totals *d;

		snprintf(name, sizeof(name), "zram%u", i);
		d = state_get(&s, name); /* before &s.dev[i]: the table may move */
		assert_ptr_equal(d, &s.dev[i]);
		d->passes = i + 1;
	}
	assert_int_equal(s.n, 200);
	assert_true(s.cap >= 200);
	for (unsigned i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "zram%u", i);
		assert_int_equal(state_get(&s, name)->passes, i + 1);
	}
	assert_int_equal(s.n, 200);
	state_free(&s);
}

static void test_get_invalid_names(void **arg)
{
	static const char *const bad[] = { "", "zram", "zram01", "zramx", "zram-1", "zram 1",
					   "sda", "ZRAM0", "zram0\n", "zram1234567890",
					   "xzram0" };
	struct state s;

	(void)arg;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		assert_null(state_get(&s, bad[i]));
		assert_int_equal(errno, EINVAL);
	}
	assert_null(state_get(&s, NULL));
	assert_int_equal(s.n, 0);
	/* The longest valid name fits. */
	assert_non_null(state_get(&s, "zram999999999"));
	assert_int_equal(s.n, 1);
	state_free(&s);
}

/* ---- save / load ---- */

static void test_round_trip(void **arg)
{
	struct state s, t;
	int root;

	(void)arg;
	fill_sample(&s);
	root = fr_open_root();
	assert_true(root >= 0);
	assert_int_equal(state_save(&s, root), 0);
	assert_string_equal(fr_read("state"), sample_text);
	assert_int_equal(file_mode("state") & 07777, 0644);

	fill_junk(&t);
	assert_int_equal(state_load(&t, root), 0);
	assert_int_equal(t.n, 3);
	assert_same(&t, &s);
	assert_string_equal(t.dev[1].name, "zram12");
	assert_true(t.dev[1].kernel_ns == UINT64_MAX);
	assert_int_equal(t.dev[0].last_pass_unix, 1700000000);

	/* Saving what was loaded gives the same bytes. */
	assert_int_equal(state_save(&t, root), 0);
	assert_string_equal(fr_read("state"), sample_text);
	assert_dir_exactly(".", only_state);
	state_free(&s);
	state_free(&t);
	close(root);
}

static void test_round_trip_empty_and_full(void **arg)
{
	struct state s, t;
	char name[16];
	int root;

	(void)arg;
	root = fr_open_root();
	memset(&s, 0, sizeof(s));
	assert_int_equal(state_save(&s, root), 0);
	assert_string_equal(fr_read("state"), "zram-recompd-state 2\n");
	fill_junk(&t);
	assert_int_equal(state_load(&t, root), 0);
	assert_empty(&t);

	for (unsigned i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "zram%u", 999999999 - i);
		state_get(&s, name)->passes = UINT64_MAX - i;
		s.dev[i].errors = i;
	}
	assert_int_equal(state_save(&s, root), 0);
	fill_junk(&t);
	assert_int_equal(state_load(&t, root), 0);
	assert_int_equal(t.n, 200);
	assert_same(&t, &s);
	state_free(&s);
	state_free(&t);
	close(root);
}

static void test_load_missing(void **arg)
{
	struct state s;
	int root;

	(void)arg;
	root = fr_open_root();
	fill_junk(&s);
	assert_int_equal(state_load(&s, root), 0);
	assert_empty(&s);
	close(root);
}

static void test_load_accepts_any_key_order(void **arg)
{
	struct state s;
	int root;

	(void)arg;
	fr_write("state", "zram-recompd-state 1\n"
			  "zram2 last_pass_unix=8 errors=7 kernel_ns=6 incompressible=5 "
			  "mem_freed=4 bytes_saved=3 pages_attempted=2 passes=1\n");
	root = fr_open_root();
	assert_int_equal(state_load(&s, root), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.dev[0].name, "zram2");
	assert_int_equal(s.dev[0].passes, 1);
	assert_int_equal(s.dev[0].pages_attempted, 2);
	assert_int_equal(s.dev[0].bytes_saved, 3);
	assert_int_equal(s.dev[0].mem_freed, 4);
	assert_int_equal(s.dev[0].incompressible, 5);
	assert_int_equal(s.dev[0].kernel_ns, 6);
	assert_int_equal(s.dev[0].errors, 7);
	assert_int_equal(s.dev[0].last_pass_unix, 8);
	state_free(&s);
	close(root);
}

/* Load content (length given, may hold NULs) and expect -EBADMSG, then a repairing save. */
static void check_corrupt(const char *what, const char *content, size_t len)
{
	char path[PATH_MAX];
	struct state s, t;
	FILE *f;
	int root;

	snprintf(path, sizeof(path), "%s/state", fr_dir);
	f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	assert_int_equal(fclose(f), 0);

	root = fr_open_root();
	fill_junk(&s);
	if (state_load(&s, root) != -EBADMSG)
		fail_msg("%s: not rejected with -EBADMSG", what);
	assert_empty(&s);

	/* The caller goes on with an empty state; the next save replaces the file. */
	fill_sample(&t);
	assert_int_equal(state_save(&t, root), 0);
	assert_string_equal(fr_read("state"), sample_text);
	assert_dir_exactly(".", only_state);
	fill_junk(&s);
	assert_int_equal(state_load(&s, root), 0);
	assert_same(&s, &t);
	state_free(&s);
	state_free(&t);
	close(root);
}

#define HDR "zram-recompd-state 1\n"
#define LINE(dev) dev " passes=1 pages_attempted=2 bytes_saved=3 mem_freed=4 " \
		  "incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n"

/* A version 1 file (before writeback) still loads: its day budgets are full (at 0). */
static void test_load_version1(void **arg)
{
	struct state s;
	int root;

	(void)arg;
	root = fr_open_root();
	fr_write("state", HDR LINE("zram3"));
	assert_int_equal(state_load(&s, root), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.dev[0].name, "zram3");
	assert_int_equal(s.dev[0].passes, 1);
	assert_int_equal(s.dev[0].last_pass_unix, 8);
	assert_int_equal(s.dev[0].wb_pages, 0);
	assert_int_equal(s.dev[0].wb_day_at, 0);
	/* never used: a full bucket */
	assert_int_equal(state_wb_day_left(&s.dev[0], 1 << 20, 1700000000), 1 << 20);
	/* saved as version 2 */
	assert_int_equal(state_save(&s, root), 0);
	assert_non_null(strstr(fr_read("state"), "zram-recompd-state 2\nzram3 passes=1 "));
	assert_non_null(strstr(fr_read("state"), " wb_pages=0 wb_day_left=1048576 "
						 "wb_day_at=1700000000\n"));
	state_free(&s);
	close(root);
}

/* The day budget: charged by what was written, refilled over a rolling 24 h. */
static void test_wb_day_budget(void **arg)
{
	struct dev_totals t = { .name = "zram0" };
	const uint64_t day = 8 << 20, t0 = 1700000000;

	(void)arg;
	assert_int_equal(state_wb_day_left(&t, day, t0), day);
	state_wb_charge(&t, 1536, 4096, day, t0); /* 6 MiB */
	assert_int_equal(t.wb_pages, 1536);
	assert_int_equal(t.wb_day_left, 2 << 20);
	/* a restart a minute later: 60/86400 of the day back, not the whole day */
	assert_int_equal(state_wb_day_left(&t, day, t0 + 60), (2 << 20) + day * 60 / 86400);
	/* 12 h later: half a day refilled */
	assert_int_equal(state_wb_day_left(&t, day, t0 + 43200 + 60),
			 (2 << 20) + day * 60 / 86400 + day / 2);
	/* a day later: full, never more */
	assert_int_equal(state_wb_day_left(&t, day, t0 + 3 * 86400), day);
	/* more written than left (another budget): 0, not a wrap */
	state_wb_charge(&t, 4096, 4096, day, t0 + 3 * 86400);
	assert_int_equal(t.wb_day_left, 0);
	assert_int_equal(t.wb_pages, 1536 + 4096);

	/* 16 KiB pages: 384 pages are the same 6 MiB */
	t = (struct dev_totals){ .name = "zram0" };
	assert_int_equal(state_wb_day_left(&t, day, t0), day);
	state_wb_charge(&t, 384, 16384, day, t0);
	assert_int_equal(t.wb_pages, 384);
	assert_int_equal(t.wb_day_left, 2 << 20);
	/* 64 KiB pages: 32 more are 2 MiB, all that was left */
	state_wb_charge(&t, 32, 65536, day, t0);
	assert_int_equal(t.wb_day_left, 0);
}

/*
 * The pass budget is reserved and saved before the writeback: a crash after the kernel's
 * write and before the save after the pass leaves the day budget charged by the whole pass
 * budget (never less than was written), and a pass that ends settles to what it wrote.
 */
static void wb_reserve_settle_at(uint32_t ps, uint64_t after_reserve)
{
	struct state s = { 0 }, crashed = { 0 };
	struct dev_totals *t;
	const uint64_t day = 64 << 20, t0 = 1700000000;
	int root;

	root = fr_open_root();
	assert_true(root >= 0);
	t = state_get(&s, "zram0");
	assert_non_null(t);
	state_wb_reserve(t, 32, ps, day, t0); /* 32 pages of the 64 MiB day */
	assert_int_equal(t->wb_day_left, after_reserve);
	assert_int_equal(t->wb_day_left, day - 32 * (uint64_t)ps);
	assert_int_equal(t->wb_pages, 0);
	assert_int_equal(state_save(&s, root), 0);
	/* the process dies here; the next one finds the reservation spent */
	assert_int_equal(state_load(&crashed, root), 0);
	assert_int_equal(crashed.dev[0].wb_day_left, after_reserve);
	assert_int_equal(state_wb_day_left(&crashed.dev[0], day, t0), after_reserve);

	/* the pass wrote 5 pages: 27 go back */
	state_wb_settle(t, 32, 5, ps, day, t0);
	assert_int_equal(t->wb_day_left, day - 5 * (uint64_t)ps);
	assert_int_equal(t->wb_pages, 5);
	/* settling never fills past the day's budget (a refill came meanwhile) */
	state_wb_reserve(t, 32, ps, day, t0);
	state_wb_settle(t, 32, 0, ps, day, t0 + 86400);
	assert_int_equal(t->wb_day_left, day);
	/* more written than reserved: the excess is charged too */
	state_wb_reserve(t, 4, ps, day, t0 + 86400);
	state_wb_settle(t, 4, 10, ps, day, t0 + 86400);
	assert_int_equal(t->wb_day_left, day - 10 * (uint64_t)ps);
	assert_int_equal(t->wb_pages, 15);
	/* state_wb_charge is a settle without a reservation */
	state_wb_charge(t, 6, ps, day, t0 + 86400);
	assert_int_equal(t->wb_day_left, day - 16 * (uint64_t)ps);
	state_free(&s);
	state_free(&crashed);
	close(root);
}

/* The same at the kernel's page sizes 4, 16 and 64 KiB: pages are of that size. */
static void test_wb_reserve_settle(void **arg)
{
	(void)arg;
	wb_reserve_settle_at(4096, 66977792);
	wb_reserve_settle_at(16384, 66584576);
	wb_reserve_settle_at(65536, 65011712);
}

static void test_load_corrupt(void **arg)
{
	static const struct {
		const char *what;
		const char *text;
	} cases[] = {
		{ "empty file", "" },
		{ "garbage", "\x7f" "ELF\x02\x01\x01 binary junk\n" },
		{ "text garbage", "hello world\n" },
		{ "wrong magic", "zram-recompd-stat 1\n" LINE("zram0") },
		{ "other program", "[zram0]\npasses=1\n" },
		{ "wrong version", "zram-recompd-state 3\n" LINE("zram0") },
		{ "version 2 without the wb keys", "zram-recompd-state 2\n" LINE("zram0") },
		{ "version 1 with a wb key", "zram-recompd-state 1\n"
			"zram0 passes=1 pages_attempted=2 bytes_saved=3 mem_freed=4 "
			"incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8 wb_pages=1\n" },
		{ "version 0", "zram-recompd-state 0\n" },
		{ "no version", "zram-recompd-state\n" },
		{ "header with trailing space", "zram-recompd-state 1 \n" },
		{ "header only, no newline", "zram-recompd-state 1" },
		{ "magic not first", LINE("zram0") HDR },
		{ "duplicate header", HDR HDR },
		{ "duplicate device", HDR LINE("zram0") LINE("zram1") LINE("zram0") },
		{ "non-numeric value", HDR "zram0 passes=1x pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n" },
		{ "negative value", HDR "zram0 passes=-1 pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n" },
		{ "empty value", HDR "zram0 passes= pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n" },
		{ "overflowing value", HDR "zram0 passes=18446744073709551616 pages_attempted=2 "
			"bytes_saved=3 mem_freed=4 incompressible=5 kernel_ns=6 errors=7 "
			"last_pass_unix=8\n" },
		{ "unknown key", HDR "zram0 passes=1 pages_attempted=2 bytes_saved=3 mem_freed=4 "
			"incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8 bogus=9\n" },
		{ "missing key", HDR "zram0 passes=1 pages_attempted=2 bytes_saved=3 mem_freed=4 "
			"incompressible=5 kernel_ns=6 errors=7\n" },
		{ "duplicate key", HDR "zram0 passes=1 passes=1 pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n" },
		{ "key without value", HDR "zram0 passes pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n" },
		{ "device only", HDR "zram0\n" },
		{ "invalid device", HDR LINE("sda") },
		{ "device with leading zero", HDR LINE("zram01") },
		{ "device too long", HDR LINE("zram1234567890") },
		{ "double space", HDR "zram0  passes=1 pages_attempted=2 bytes_saved=3 mem_freed=4 "
			"incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n" },
		{ "trailing space", HDR "zram0 passes=1 pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8 \n" },
		{ "tab separator", HDR "zram0\tpasses=1 pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n" },
		{ "CRLF", "zram-recompd-state 1\r\n" LINE("zram0") },
		{ "empty line", HDR LINE("zram0") "\n" LINE("zram1") },
		{ "comment line", HDR "# totals\n" LINE("zram0") },
		{ "truncated last line", HDR LINE("zram0") "zram1 passes=1 pages_att" },
		{ "missing final newline", HDR "zram0 passes=1 pages_attempted=2 bytes_saved=3 "
			"mem_freed=4 incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8" },
	};

	(void)arg;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_corrupt(cases[i].what, cases[i].text, strlen(cases[i].text));
}

static void test_load_corrupt_nul_byte(void **arg)
{
	/* As a C string the line ends at the NUL and would parse; the file must not. */
	static const char text[] = HDR "zram0 passes=1 pages_attempted=2 bytes_saved=3 mem_freed=4 "
				   "incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\0junk\n";

	(void)arg;
	check_corrupt("NUL byte", text, sizeof(text) - 1);
}

/* Append to a growing text; aborts the test on overflow. */
static void append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < size - len);
}

/* Any number of devices loads (the table had 64 entries once; a 65th made the file corrupt). */
static void test_load_many_devices(void **arg)
{
	static char text[65536];
	struct state s;
	int root;

	(void)arg;
	text[0] = '\0';
	append(text, sizeof(text), "zram-recompd-state 2\n");
	for (unsigned i = 0; i < 200; i++)
		append(text, sizeof(text), "zram%u%s", i, keys_zero);
	fr_write("state", text);
	root = fr_open_root();
	assert_int_equal(state_load(&s, root), 0);
	assert_int_equal(s.n, 200);
	assert_string_equal(s.dev[63].name, "zram63");
	assert_string_equal(s.dev[199].name, "zram199");
	state_free(&s);
	close(root);

	/* one device twice is still corrupt */
	append(text, sizeof(text), "zram%u%s", 7, keys_zero);
	check_corrupt("zram7 twice", text, strlen(text));
}

/*
 * Leading zeros are valid digits, so a legitimate-looking file can be padded to any size:
 * exactly 16 MiB loads, one byte more is rejected for its size alone.
 */
static void test_load_size_limit(void **arg)
{
	static const char head[] = HDR "zram0 passes=";
	static const char tail[] = "1 pages_attempted=2 bytes_saved=3 mem_freed=4 "
				   "incompressible=5 kernel_ns=6 errors=7 last_pass_unix=8\n";
	const size_t limit = 16 * 1024 * 1024;
	char *text = malloc(limit + 2);
	size_t zeros;
	struct state s;
	int root;

	(void)arg;
	assert_non_null(text);
	for (size_t total = limit; total <= limit + 1; total++) {
		zeros = total - (sizeof(head) - 1) - (sizeof(tail) - 1);
		memcpy(text, head, sizeof(head) - 1);
		memset(text + sizeof(head) - 1, '0', zeros);
		memcpy(text + sizeof(head) - 1 + zeros, tail, sizeof(tail));
		assert_int_equal(strlen(text), total);
		if (total == limit) {
			fr_write("state", text);
			root = fr_open_root();
			fill_junk(&s);
			assert_int_equal(state_load(&s, root), 0);
			assert_int_equal(s.n, 1);
			assert_int_equal(s.dev[0].passes, 1);
			assert_int_equal(s.dev[0].last_pass_unix, 8);
			state_free(&s);
			close(root);
		} else {
			check_corrupt("16 MiB + 1", text, total);
		}
	}
	free(text);
}

static void test_load_not_a_regular_file(void **arg)
{
	char path[PATH_MAX];
	struct state s;
	int root, fifo;

	(void)arg;
	root = fr_open_root();
	/* A symlink is never followed, even to a valid state file. */
	fr_write("real", sample_text);
	snprintf(path, sizeof(path), "%s/state", fr_dir);
	assert_int_equal(symlink("real", path), 0);
	fill_junk(&s);
	assert_int_equal(state_load(&s, root), -ELOOP);
	assert_empty(&s);
	assert_int_equal(unlink(path), 0);

	/* A FIFO must not block the load, and is rejected even when it offers valid text. */
	assert_int_equal(mkfifo(path, 0644), 0);
	fill_junk(&s);
	assert_int_equal(state_load(&s, root), -EBADMSG);
	assert_empty(&s);
	fifo = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	assert_true(fifo >= 0);
	assert_int_equal(write(fifo, sample_text, strlen(sample_text)), strlen(sample_text));
	fill_junk(&s);
	assert_int_equal(state_load(&s, root), -EBADMSG);
	assert_empty(&s);
	close(fifo);
	assert_int_equal(unlink(path), 0);

	assert_int_equal(mkdir(path, 0755), 0);
	fill_junk(&s);
	assert_int_equal(state_load(&s, root), -EISDIR);
	assert_empty(&s);

	/* A bad dir fd is an ordinary error, not a corrupt file. */
	fill_junk(&s);
	assert_int_equal(state_load(&s, -1), -EBADF);
	assert_empty(&s);
	close(root);
}

static void test_save_no_temp_left(void **arg)
{
	static const char *const names[] = { "state", "keep", NULL };
	struct state s;
	int root, rfd;

	(void)arg;
	fr_write("keep", "untouched\n");
	root = fr_open_root();
	fill_sample(&s);
	for (int i = 0; i < 5; i++) {
		s.dev[0].passes = (uint64_t)i;
		assert_int_equal(state_save(&s, root), 0);
		assert_dir_exactly(".", names);
	}
	assert_non_null(strstr(fr_read("state"), "zram0 passes=4 "));
	assert_string_equal(fr_read("keep"), "untouched\n");

	/* A plain O_RDONLY directory fd works as well as the O_PATH one. */
	rfd = open(fr_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(rfd >= 0);
	state_free(&s);
	fill_sample(&s);
	assert_int_equal(state_save(&s, rfd), 0);
	assert_string_equal(fr_read("state"), sample_text);
	assert_dir_exactly(".", names);
	close(rfd);
	close(root);
	state_free(&s);
}

static void test_save_mode_ignores_umask(void **arg)
{
	struct state s;
	mode_t old;
	int root;

	(void)arg;
	root = fr_open_root();
	fill_sample(&s);
	old = umask(077);
	assert_int_equal(state_save(&s, root), 0);
	umask(old);
	assert_int_equal(file_mode("state") & 07777, 0644);
	assert_true(S_ISREG(file_mode("state")));
	close(root);
	state_free(&s);
}

static void test_save_readonly_dir(void **arg)
{
	char dir[PATH_MAX];
	struct state s;
	int dfd, r;

	(void)arg;
	snprintf(dir, sizeof(dir), "%s/ro", fr_dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	fill_sample(&s);
	assert_int_equal(state_save(&s, dfd), 0);

	assert_int_equal(chmod(dir, 0555), 0);
	if (!set_dac_override(false)) {
		assert_int_equal(chmod(dir, 0755), 0);
		close(dfd);
		skip();
	}
	s.dev[0].passes = 1000;
	r = state_save(&s, dfd);
	assert_true(set_dac_override(true));
	assert_int_equal(chmod(dir, 0755), 0);

	assert_int_equal(r, -EACCES);
	assert_string_equal(fr_read("ro/state"), sample_text);
	assert_dir_exactly("ro", only_state);
	close(dfd);
	state_free(&s);
}

static void test_save_missing_dir(void **arg)
{
	char dir[PATH_MAX];
	struct state s;
	int dfd;

	(void)arg;
	snprintf(dir, sizeof(dir), "%s/gone", fr_dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(rmdir(dir), 0);
	fill_sample(&s);
	assert_int_equal(state_save(&s, dfd), -ENOENT);
	assert_int_equal(state_save(&s, -1), -EBADF);
	close(dfd);
	state_free(&s);
}

/* The rename step fails ("state" is a non-empty directory): the temp file must go. */
static void test_save_rename_fails(void **arg)
{
	static const char *const root_names[] = { "state", NULL };
	static const char *const sub_names[] = { "x", NULL };
	struct state s;
	int root;

	(void)arg;
	fr_write("state/x", "x\n");
	root = fr_open_root();
	fill_sample(&s);
	assert_int_equal(state_save(&s, root), -EISDIR);
	assert_dir_exactly(".", root_names);
	assert_dir_exactly("state", sub_names);
	assert_string_equal(fr_read("state/x"), "x\n");
	close(root);
	state_free(&s);
}

/* A symlink named "state" is replaced, never written through. */
static void test_save_replaces_symlink(void **arg)
{
	char path[PATH_MAX];
	struct state s;
	int root;

	(void)arg;
	fr_write("target", "precious\n");
	snprintf(path, sizeof(path), "%s/state", fr_dir);
	assert_int_equal(symlink("target", path), 0);
	root = fr_open_root();
	fill_sample(&s);
	assert_int_equal(state_save(&s, root), 0);
	assert_true(S_ISREG(file_mode("state")));
	assert_string_equal(fr_read("state"), sample_text);
	assert_string_equal(fr_read("target"), "precious\n");
	close(root);
	state_free(&s);
}

static void test_save_rejects_invalid_state(void **arg)
{
	struct state s;
	int root;

	(void)arg;
	root = fr_open_root();
	fill_sample(&s);
	assert_int_equal(state_save(&s, root), 0);

	state_free(&s);
	fill_sample(&s);
	strcpy(s.dev[1].name, "sda");
	assert_int_equal(state_save(&s, root), -EINVAL);
	state_free(&s);
	fill_sample(&s);
	strcpy(s.dev[2].name, "zram0");
	assert_int_equal(state_save(&s, root), -EINVAL);
	state_free(&s);
	fill_sample(&s);
	memset(s.dev[0].name, '7', sizeof(s.dev[0].name));
	assert_int_equal(state_save(&s, root), -EINVAL);
	state_free(&s);
	fill_sample(&s);
	s.n = s.cap + 1; /* more entries than the table holds */
	assert_int_equal(state_save(&s, root), -EINVAL);

	assert_string_equal(fr_read("state"), sample_text);
	assert_dir_exactly(".", only_state);
	state_free(&s);
	close(root);
}

/* ---- metrics ---- */

static const char metrics_golden[] =
	"# HELP zram_recompd_build_info The zram-recompd version that wrote this file.\n"
	"# TYPE zram_recompd_build_info gauge\n"
	"zram_recompd_build_info{version=\"" VERSION "\"} 1\n"
	"# HELP zram_recompd_passes_total Completed recompression passes.\n"
	"# TYPE zram_recompd_passes_total counter\n"
	"zram_recompd_passes_total{device=\"zram0\"} 3\n"
	"zram_recompd_passes_total{device=\"zram1\"} 1\n"
	"# HELP zram_recompd_pages_attempted_total Pages offered to recompress (sum of max_pages; "
	"the kernel reports no count).\n"
	"# TYPE zram_recompd_pages_attempted_total counter\n"
	"zram_recompd_pages_attempted_total{device=\"zram0\"} 1000\n"
	"zram_recompd_pages_attempted_total{device=\"zram1\"} 256\n"
	"# HELP zram_recompd_saved_bytes_total Reductions of compr_data_size across passes.\n"
	"# TYPE zram_recompd_saved_bytes_total counter\n"
	"zram_recompd_saved_bytes_total{device=\"zram0\"} 4096\n"
	"zram_recompd_saved_bytes_total{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_freed_bytes_total Reductions of mem_used_total across passes, "
	"compaction included.\n"
	"# TYPE zram_recompd_freed_bytes_total counter\n"
	"zram_recompd_freed_bytes_total{device=\"zram0\"} 8192\n"
	"zram_recompd_freed_bytes_total{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_incompressible_pages_total Pages newly marked incompressible by "
	"passes.\n"
	"# TYPE zram_recompd_incompressible_pages_total counter\n"
	"zram_recompd_incompressible_pages_total{device=\"zram0\"} 7\n"
	"zram_recompd_incompressible_pages_total{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_kernel_seconds_total Time spent in recompress, compact and idle "
	"writes.\n"
	"# TYPE zram_recompd_kernel_seconds_total counter\n"
	"zram_recompd_kernel_seconds_total{device=\"zram0\"} 1.5\n"
	"zram_recompd_kernel_seconds_total{device=\"zram1\"} 0.000000001\n"
	"# HELP zram_recompd_errors_total Passes that ended with an error.\n"
	"# TYPE zram_recompd_errors_total counter\n"
	"zram_recompd_errors_total{device=\"zram0\"} 1\n"
	"zram_recompd_errors_total{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_last_pass_timestamp_seconds Unix time of the last pass, 0 if none.\n"
	"# TYPE zram_recompd_last_pass_timestamp_seconds gauge\n"
	"zram_recompd_last_pass_timestamp_seconds{device=\"zram0\"} 1700000000\n"
	"zram_recompd_last_pass_timestamp_seconds{device=\"zram1\"} 1700000100\n"
	"# HELP zram_recompd_writeback_pages_total Pages written back to the backing device by "
	"passes.\n"
	"# TYPE zram_recompd_writeback_pages_total counter\n"
	"zram_recompd_writeback_pages_total{device=\"zram0\"} 413\n"
	"zram_recompd_writeback_pages_total{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_writeback_day_left_bytes Writeback day budget left at the last pass "
	"(refills over 24 h); no sample for a device without writeback.\n"
	"# TYPE zram_recompd_writeback_day_left_bytes gauge\n"
	/* zram1 never had writeback (wb_day_at 0): no sample, not a 0 that reads as spent */
	"zram_recompd_writeback_day_left_bytes{device=\"zram0\"} 1071050752\n"
	"# HELP zram_recompd_orig_data_bytes Uncompressed size of stored data (mm_stat).\n"
	"# TYPE zram_recompd_orig_data_bytes gauge\n"
	"zram_recompd_orig_data_bytes{device=\"zram0\"} 4194304\n"
	"zram_recompd_orig_data_bytes{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_compr_data_bytes Compressed size of stored data (mm_stat).\n"
	"# TYPE zram_recompd_compr_data_bytes gauge\n"
	"zram_recompd_compr_data_bytes{device=\"zram0\"} 1048576\n"
	"zram_recompd_compr_data_bytes{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_mem_used_bytes Memory used by the device (mm_stat).\n"
	"# TYPE zram_recompd_mem_used_bytes gauge\n"
	"zram_recompd_mem_used_bytes{device=\"zram0\"} 1200000\n"
	"zram_recompd_mem_used_bytes{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_huge_pages Pages stored uncompressed (mm_stat).\n"
	"# TYPE zram_recompd_huge_pages gauge\n"
	"zram_recompd_huge_pages{device=\"zram0\"} 12\n"
	"zram_recompd_huge_pages{device=\"zram1\"} 0\n"
	"# HELP zram_recompd_page_size_bytes The kernel's page size, the unit of every pages "
	"figure here.\n"
	"# TYPE zram_recompd_page_size_bytes gauge\n"
	"zram_recompd_page_size_bytes{device=\"zram0\"} 16384\n"
	"zram_recompd_page_size_bytes{device=\"zram1\"} 4096\n"
	"# HELP zram_recompd_incompressible_pages Pages flagged incompressible (debugfs "
	"block_state).\n"
	"# TYPE zram_recompd_incompressible_pages gauge\n"
	"zram_recompd_incompressible_pages{device=\"zram0\"} 5\n"
	"# HELP zram_recompd_last_pass_longest_write_seconds The longest single recompress write "
	"of the last pass (max-write-ms bounds it).\n"
	"# TYPE zram_recompd_last_pass_longest_write_seconds gauge\n"
	"zram_recompd_last_pass_longest_write_seconds{device=\"zram0\"} 0.087\n"

	"# HELP zram_recompd_backing_dev_pages Pages stored on the backing device (bd_stat "
	"bd_count).\n"
	"# TYPE zram_recompd_backing_dev_pages gauge\n"
	"zram_recompd_backing_dev_pages{device=\"zram0\"} 413\n"
	"# HELP zram_recompd_backing_dev_writes_pages Pages written to the backing device since "
	"setup (bd_stat bd_writes).\n"
	"# TYPE zram_recompd_backing_dev_writes_pages counter\n"
	"zram_recompd_backing_dev_writes_pages{device=\"zram0\"} 420\n";

static void metrics_sample(struct state *s, struct dev_live live[2])
{
	struct dev_totals *d;

	fill_sample(s);
	s->n = 1; /* zram0 only; zram12 and zram1 dropped */
	memset(&s->dev[1], 0, sizeof(s->dev[1]) * 2);
	d = state_get(s, "zram1");
	assert_ptr_equal(d, &s->dev[1]);
	d->passes = 1;
	d->pages_attempted = 256;
	d->kernel_ns = 1;
	d->last_pass_unix = 1700000100;
	live[0] = (struct dev_live){ .name = "zram0", .orig_data_size = 4194304,
				     .compr_data_size = 1048576, .mem_used_total = 1200000,
				     .huge_pages = 12, .incompressible = 5, .bd_count = 413,
				     .bd_writes = 420, .longest_write_ns = 87000000,
				     .page_size = 16384 };
	/* no block_state, no pass yet, no backing device: those samples are left out */
	live[1] = (struct dev_live){ .name = "zram1", .incompressible = UINT64_MAX, .page_size = 4096,
				     .longest_write_ns = UINT64_MAX, .bd_count = UINT64_MAX,
				     .bd_writes = UINT64_MAX };
}

/* The live figures of a device with 16 KiB pages: bd_stat's 4 KiB units become pages. */
static void test_live_fill_page_size(void **arg)
{
	struct zram_dev d = { .name = "zram0", .page_size = 16384, .has_bd_stat = true,
			      .bd_stat = { 40, 8, 400 } };
	struct dev_live l;

	(void)arg;
	d.mm.v[MM_HUGE_PAGES] = 7;
	dev_live_fill(&l, &d, 3);
	assert_int_equal(l.page_size, 16384);
	assert_int_equal(l.bd_count, 10);
	assert_int_equal(l.bd_writes, 100);
	assert_int_equal(l.huge_pages, 7);
	d.page_size = 65536;
	dev_live_fill(&l, &d, 3);
	assert_int_equal(l.bd_count, 2);
	assert_int_equal(l.bd_writes, 25);
	d.page_size = 4096;
	dev_live_fill(&l, &d, 3);
	assert_int_equal(l.bd_count, 40);
	assert_int_equal(l.bd_writes, 400);
	d.has_bd_stat = false;
	dev_live_fill(&l, &d, 3);
	assert_true(l.bd_count == UINT64_MAX && l.bd_writes == UINT64_MAX);
}

static void test_metrics_golden(void **arg)
{
	static const char *const names[] = { "zram-recompd.prom", NULL };
	struct dev_live live[2];
	char path[PATH_MAX];
	struct state s;
	const char *out;

	(void)arg;
	metrics_sample(&s, live);
	fr_write("textfile/.keep", "");
	snprintf(path, sizeof(path), "%s/textfile/.keep", fr_dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/textfile/zram-recompd.prom", fr_dir);
	assert_int_equal(metrics_write(path, &s, live, 2), 0);
	out = fr_read("textfile/zram-recompd.prom");
	assert_string_equal(out, metrics_golden);
	assert_int_equal(out[strlen(out) - 1], '\n');
	assert_int_equal(file_mode("textfile/zram-recompd.prom") & 07777, 0644);
	assert_dir_exactly("textfile", names);
	state_free(&s);
}

/* Replaced by rename, not rewritten in place: a hard link to the old file keeps old bytes. */
static void test_metrics_atomic_replace(void **arg)
{
	static const char *const names[] = { "m.prom", "old-link", NULL };
	char path[PATH_MAX], link_path[PATH_MAX];
	struct dev_live live[2];
	struct state s;

	(void)arg;
	metrics_sample(&s, live);
	fr_write("m.prom", "old\n");
	snprintf(path, sizeof(path), "%s/m.prom", fr_dir);
	snprintf(link_path, sizeof(link_path), "%s/old-link", fr_dir);
	assert_int_equal(link(path, link_path), 0);
	assert_int_equal(metrics_write(path, &s, live, 2), 0);
	assert_string_equal(fr_read("m.prom"), metrics_golden);
	assert_string_equal(fr_read("old-link"), "old\n");
	assert_dir_exactly(".", names);
	state_free(&s);
}

static void test_metrics_seconds_format(void **arg)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0" },
		{ 1, "0.000000001" },
		{ 10, "0.00000001" },
		{ 123456789, "0.123456789" },
		{ 1000000000, "1" },
		{ 1500000000, "1.5" },
		{ 2000000000, "2" },
		{ 3600000000001, "3600.000000001" },
		{ UINT64_MAX, "18446744073.709551615" },
	};
	char path[PATH_MAX], want[128], name[16];
	struct state s;
	const char *out;

	(void)arg;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(name, sizeof(name), "zram%zu", i);
		state_get(&s, name)->kernel_ns = cases[i].ns;
	}
	snprintf(path, sizeof(path), "%s/x.prom", fr_dir);
	assert_int_equal(metrics_write(path, &s, NULL, 0), 0);
	out = fr_read("x.prom");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(want, sizeof(want),
			 "\nzram_recompd_kernel_seconds_total{device=\"zram%zu\"} %s\n", i,
			 cases[i].text);
		if (!strstr(out, want))
			fail_msg("missing line: %s", want + 1);
	}
	state_free(&s);
}

/*
 * No devices at all: every family still has HELP and TYPE, no samples, final newline; the
 * build_info sample names the version.
 */
static void test_metrics_empty(void **arg)
{
	char path[PATH_MAX];
	struct state s;
	const char *out, *p;
	unsigned lines = 0;

	(void)arg;
	memset(&s, 0, sizeof(s));
	snprintf(path, sizeof(path), "%s/e.prom", fr_dir);
	assert_int_equal(metrics_write(path, &s, NULL, 0), 0);
	out = fr_read("e.prom");
	assert_true(strlen(out) > 0);
	assert_int_equal(out[strlen(out) - 1], '\n');
	p = strstr(out, "zram_recompd_build_info{version=\"" VERSION "\"} 1\n");
	assert_non_null(p);
	for (p = out; *p; p = strchr(p, '\n') + 1) {
		if (strncmp(p, "zram_recompd_build_info{", 24) == 0)
			continue;
		assert_true(strncmp(p, "# HELP ", 7) == 0 || strncmp(p, "# TYPE ", 7) == 0);
		lines++;
	}
	assert_int_equal(lines, 20 * 2);
	assert_null(strchr(strstr(out, "} 1\n") + 4, '{'));
}

static void test_metrics_errors(void **arg)
{
	static const char *const names[] = { "m.prom", NULL };
	struct dev_live live[2];
	char path[PATH_MAX], missing[PATH_MAX], slash[PATH_MAX];
	struct state s;

	(void)arg;
	metrics_sample(&s, live);
	fr_write("m.prom", "old\n");
	snprintf(path, sizeof(path), "%s/m.prom", fr_dir);

	assert_int_equal(metrics_write("m.prom", &s, live, 2), -EINVAL);
	assert_int_equal(metrics_write(NULL, &s, live, 2), -EINVAL);
	snprintf(slash, sizeof(slash), "%s/", fr_dir);
	assert_int_equal(metrics_write(slash, &s, live, 2), -EINVAL);
	assert_int_equal(metrics_write(path, &s, NULL, 2), -EINVAL);
	snprintf(missing, sizeof(missing), "%s/nodir/m.prom", fr_dir);
	assert_int_equal(metrics_write(missing, &s, live, 2), -ENOENT);

	strcpy(live[1].name, "zram\"1");
	assert_int_equal(metrics_write(path, &s, live, 2), -EINVAL);
	strcpy(live[1].name, "zram1");
	strcpy(s.dev[0].name, "loop0");
	assert_int_equal(metrics_write(path, &s, live, 2), -EINVAL);
	strcpy(s.dev[0].name, "zram0");

	/* A directory in the way of the final rename: the temp file is cleaned up. */
	snprintf(missing, sizeof(missing), "%s/dir.prom", fr_dir);
	assert_int_equal(mkdir(missing, 0755), 0);
	assert_int_equal(metrics_write(missing, &s, live, 2), -EISDIR);
	assert_int_equal(rmdir(missing), 0);

	assert_string_equal(fr_read("m.prom"), "old\n");
	assert_dir_exactly(".", names);
	state_free(&s);
}

static void test_metrics_readonly_dir(void **arg)
{
	static const char *const names[] = { "m.prom", NULL };
	struct dev_live live[2];
	char dir[PATH_MAX], path[PATH_MAX];
	struct state s;
	int r;

	(void)arg;
	metrics_sample(&s, live);
	fr_write("ro/m.prom", "old\n");
	snprintf(dir, sizeof(dir), "%s/ro", fr_dir);
	snprintf(path, sizeof(path), "%s/ro/m.prom", fr_dir);
	assert_int_equal(chmod(dir, 0555), 0);
	if (!set_dac_override(false)) {
		assert_int_equal(chmod(dir, 0755), 0);
		state_free(&s);
		skip();
	}
	r = metrics_write(path, &s, live, 2);
	assert_true(set_dac_override(true));
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(r, -EACCES);
	assert_string_equal(fr_read("ro/m.prom"), "old\n");
	assert_dir_exactly("ro", names);
	state_free(&s);
}


/* A pass adds to the totals; negative figures (other writers) add nothing, sums saturate. */
static void test_add_pass(void **state)
{
	struct dev_totals t = { .name = "zram0", .kernel_ns = UINT64_MAX - 5 };

	(void)state;
	state_add_pass(&t, 2048, 4096, -100, 3, 10, false, 1700000000);
	assert_int_equal(t.passes, 1);
	assert_int_equal(t.pages_attempted, 2048);
	assert_int_equal(t.bytes_saved, 4096);
	assert_int_equal(t.mem_freed, 0);
	assert_int_equal(t.incompressible, 3);
	assert_true(t.kernel_ns == UINT64_MAX);
	assert_int_equal(t.errors, 0);
	assert_int_equal(t.last_pass_unix, 1700000000);
	state_add_pass(&t, 1, -1, 8192, 0, 0, true, 1700000060);
	assert_int_equal(t.passes, 2);
	assert_int_equal(t.bytes_saved, 4096);
	assert_int_equal(t.mem_freed, 8192);
	assert_int_equal(t.errors, 1);
}

/* One order for every command: override, then systemd's first entry, then the default. */
static void test_dir_resolve(void **arg)
{
	char buf[64];

	(void)arg;
	assert_int_equal(state_dir_resolve(NULL, NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, STATE_DIR_DEFAULT);
	assert_int_equal(state_dir_resolve("", "", buf, sizeof(buf)), 0);
	assert_string_equal(buf, STATE_DIR_DEFAULT);
	assert_int_equal(state_dir_resolve("/o", "/s", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/o");
	assert_int_equal(state_dir_resolve("", "/s", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/s");
	assert_int_equal(state_dir_resolve(NULL, "/s1:/s2", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/s1");
	/* An empty first entry names no directory: the default, not "". */
	assert_int_equal(state_dir_resolve(NULL, ":/s2", buf, sizeof(buf)), 0);
	assert_string_equal(buf, STATE_DIR_DEFAULT);
	/* Too long is an error, never a shorter (other) directory. */
	assert_int_equal(state_dir_resolve("/abcd", NULL, buf, 5), -ENAMETOOLONG);
	assert_int_equal(state_dir_resolve("/abc", NULL, buf, 5), 0);
	assert_string_equal(buf, "/abc");
	assert_int_equal(state_dir_resolve(NULL, "/abcd:/x", buf, 5), -ENAMETOOLONG);
	assert_int_equal(state_dir_resolve(NULL, NULL, buf, sizeof(STATE_DIR_DEFAULT) - 1),
			 -ENAMETOOLONG);
}

/* state_dir_path() reads both variables, so status and --once find the daemon's files. */
static void test_dir_path_env(void **arg)
{
	char buf[STATE_DIR_MAX];

	(void)arg;
	assert_int_equal(unsetenv("ZRAM_RECOMPD_STATE_DIR"), 0);
	assert_int_equal(unsetenv("STATE_DIRECTORY"), 0);
	assert_int_equal(state_dir_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, STATE_DIR_DEFAULT);
	assert_int_equal(setenv("STATE_DIRECTORY", "/run/sd:/run/other", 1), 0);
	assert_int_equal(state_dir_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/run/sd");
	assert_int_equal(setenv("ZRAM_RECOMPD_STATE_DIR", "/tmp/zr", 1), 0);
	assert_int_equal(state_dir_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/tmp/zr");
	assert_int_equal(setenv("ZRAM_RECOMPD_STATE_DIR", "", 1), 0);
	assert_int_equal(state_dir_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/run/sd");
	assert_int_equal(unsetenv("ZRAM_RECOMPD_STATE_DIR"), 0);
	assert_int_equal(unsetenv("STATE_DIRECTORY"), 0);
}

static void test_dir_open(void **arg)
{
	char dir[PATH_MAX], file[PATH_MAX];
	int fd;

	(void)arg;
	snprintf(dir, sizeof(dir), "%s/sd", fr_dir);
	snprintf(file, sizeof(file), "%s/plain", fr_dir);
	assert_int_equal(state_dir_open(dir, false), -ENOENT);
	fd = state_dir_open(dir, true);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(close(fd), 0);
	assert_true(S_ISDIR(file_mode("sd")));
	/* Existing: opened again, with or without create. */
	fd = state_dir_open(dir, true);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	fd = state_dir_open(dir, false);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(state_dir_open(file, false), -ENOTDIR);
	assert_int_equal(state_dir_open(file, true), -ENOTDIR);
}

static bool exists(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fr_dir, rel);
	return lstat(path, &st) == 0;
}

/* Temp files of an interrupted save go at the next start; nothing else does (issue 11 #7). */
static void test_remove_stale_temps(void **arg)
{
	static const char *const removed[] = { "state.tmpAbC123", "state.tmp000000" };
	static const char *const kept[] = { "state", "state.tmpAbC12", "state.tmpAbC1234",
					    "state.tmpAb-123", "xstate.tmpAbC123",
					    "advice.tmpAbC123", "m.prom" };
	char path[PATH_MAX], target[PATH_MAX];
	int dfd;

	(void)arg;
	for (size_t i = 0; i < ARRAY_SIZE(removed); i++)
		fr_write(removed[i], "partial");
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		fr_write(kept[i], "keep");
	/* Never a directory or a link, even with the right name (and not the link's target). */
	snprintf(path, sizeof(path), "%s/state.tmpDir123", fr_dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/state.tmpLnk123", fr_dir);
	snprintf(target, sizeof(target), "%s/m.prom", fr_dir);
	assert_int_equal(symlink(target, path), 0);
	fr_write("m.prom.tmpQwE789", "partial");

	dfd = open(fr_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(state_remove_stale_temps(dfd, "state"), 2);
	assert_int_equal(state_remove_stale_temps(dfd, "state"), 0);
	assert_int_equal(state_remove_stale_temps(dfd, "a/b"), -EINVAL);
	close(dfd);
	for (size_t i = 0; i < ARRAY_SIZE(removed); i++)
		assert_false(exists(removed[i]));
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		assert_string_equal(fr_read(kept[i]), "keep");
	assert_true(S_ISDIR(file_mode("state.tmpDir123")));

	snprintf(path, sizeof(path), "%s/m.prom", fr_dir);
	assert_int_equal(metrics_remove_stale_temps(path), 1);
	assert_false(exists("m.prom.tmpQwE789"));
	assert_string_equal(fr_read("m.prom"), "keep");
	assert_int_equal(metrics_remove_stale_temps("relative/m.prom"), -EINVAL);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_creates_and_finds),
		cmocka_unit_test(test_add_pass),
		cmocka_unit_test(test_get_new_entry_zeroed),
		cmocka_unit_test(test_get_no_cap),
		cmocka_unit_test(test_get_invalid_names),
		T(test_round_trip),
		T(test_round_trip_empty_and_full),
		T(test_load_missing),
		T(test_load_accepts_any_key_order),
		T(test_load_version1),
		cmocka_unit_test(test_wb_day_budget),
		T(test_wb_reserve_settle),
		T(test_load_corrupt),
		T(test_load_corrupt_nul_byte),
		T(test_load_many_devices),
		T(test_load_size_limit),
		T(test_load_not_a_regular_file),
		T(test_save_no_temp_left),
		T(test_save_mode_ignores_umask),
		T(test_save_readonly_dir),
		T(test_save_missing_dir),
		T(test_save_rename_fails),
		T(test_save_replaces_symlink),
		T(test_save_rejects_invalid_state),
		T(test_live_fill_page_size),
		T(test_metrics_golden),
		T(test_metrics_atomic_replace),
		T(test_metrics_seconds_format),
		T(test_metrics_empty),
		T(test_metrics_errors),
		T(test_metrics_readonly_dir),
		cmocka_unit_test(test_dir_resolve),
		cmocka_unit_test(test_dir_path_env),
		T(test_dir_open),
		T(test_remove_stale_temps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
