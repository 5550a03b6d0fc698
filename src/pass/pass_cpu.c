// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pass's CPU time by kind (include/pass_cpu.h). Thread-local: the worker thread runs
 * one pass at a time, and the event loop's own reads are not the pass's.
 */
#include "pass_cpu.h"

#include "util.h"

#include <string.h>
#include <sys/resource.h>

static _Thread_local struct pass_cpu tl_cpu;
static _Thread_local struct rusage tl_ru0;
static _Thread_local int tl_ru_ok;
static _Thread_local uint64_t tl_last;

uint64_t pass_cpu_now(void)
{
	return now_thread_cpu_ns();
}

uint64_t pass_cpu_add(enum pass_cpu_kind kind, uint64_t t0)
{
	uint64_t d = sat_sub_u64(pass_cpu_now(), t0);

	if (kind < PASS_CPU_NR)
		tl_cpu.ns[kind] = sat_add_u64(tl_cpu.ns[kind], d);
	tl_last = d;
	return d;
}

uint64_t pass_cpu_last_ns(void)
{
	return tl_last;
}

enum pass_cpu_kind pass_cpu_kind_of(const char *attr)
{
	if (strcmp(attr, "recompress") == 0)
		return PASS_CPU_RECOMPRESS;
	if (strcmp(attr, "idle") == 0)
		return PASS_CPU_IDLE;
	if (strcmp(attr, "compact") == 0)
		return PASS_CPU_COMPACT;
	return PASS_CPU_WRITEBACK;
}

void pass_cpu_begin(void)
{
	memset(&tl_cpu, 0, sizeof(tl_cpu));
	tl_ru_ok = getrusage(RUSAGE_THREAD, &tl_ru0) == 0;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return sat_add_u64(sat_mul_u64((uint64_t)tv->tv_sec, 1000000000u),
			   sat_mul_u64((uint64_t)tv->tv_usec, 1000u));
}

void pass_cpu_end(struct pass_cpu *out)
{
	struct rusage ru;

	*out = tl_cpu;
	out->user_ns = out->sys_ns = 0;
	if (tl_ru_ok && getrusage(RUSAGE_THREAD, &ru) == 0) {
		out->user_ns = sat_sub_u64(tv_ns(&ru.ru_utime), tv_ns(&tl_ru0.ru_utime));
		out->sys_ns = sat_sub_u64(tv_ns(&ru.ru_stime), tv_ns(&tl_ru0.ru_stime));
	}
}

uint64_t pass_cpu_other_sys(const struct pass_cpu *c)
{
	uint64_t parts = 0;

	for (unsigned i = 0; i < PASS_CPU_NR; i++)
		parts = sat_add_u64(parts, c->ns[i]);
	return sat_sub_u64(c->sys_ns, parts);
}
