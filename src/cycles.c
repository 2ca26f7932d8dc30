/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter frequency: from the hardware where it says, else calibrated once. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <dpk/cycles.h>

#include "internal.h"

uint64_t dpk__clock_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

unsigned dpk__cpu_now(void)
{
	int c = sched_getcpu();

	return c < 0 ? DPK_CPU_MAX : (unsigned)c;
}

uint64_t dpk_tsc_calibrate(unsigned ms)
{
	uint64_t t0, c0, t1, c1, want;

	if (ms == 0)
		return 0;
	want = (uint64_t)ms * 1000000u;
	/* Bracket each counter read by two clock reads and keep the tighter bracket, so a
	 * preemption between the reads cannot skew the start or end point much. */
	t0 = dpk__clock_ns();
	c0 = dpk_tsc_begin();
	if (t0 == 0)
		return 0;
	do {
		t1 = dpk__clock_ns();
		c1 = dpk_tsc_end();
	} while (t1 - t0 < want);
	if (t1 == t0)
		return 0;
	return (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0) + 0.5);
}

static pthread_once_t hz_once = PTHREAD_ONCE_INIT;
static uint64_t hz_value;
static enum dpk_tsc_source hz_source;

static void hz_find(void)
{
	struct dpk__tsc_arch_hz arch;
	uint64_t best[5];
	unsigned n = 0;

	if (dpk__tsc_arch_hz(&arch) && arch.hz > 0) {
		hz_value = arch.hz;
		hz_source = (enum dpk_tsc_source)arch.src;
		return;
	}
	/* Median of five 10 ms windows resists a preemption in one of them. */
	for (unsigned i = 0; i < 5; i++) {
		uint64_t v = dpk_tsc_calibrate(10);
		if (v)
			best[n++] = v;
	}
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && best[j - 1] > best[j]; j--) {
			uint64_t t = best[j];
			best[j] = best[j - 1];
			best[j - 1] = t;
		}
	hz_value = n ? best[n / 2] : 1000000000u;
	hz_source = DPK_TSC_SRC_CALIBRATED;
}

uint64_t dpk_tsc_hz(void)
{
	pthread_once(&hz_once, hz_find);
	return hz_value;
}

enum dpk_tsc_source dpk_tsc_hz_source(void)
{
	pthread_once(&hz_once, hz_find);
	return hz_source;
}

const char *dpk_tsc_source_name(enum dpk_tsc_source src)
{
	switch (src) {
	case DPK_TSC_SRC_CPUID:
		return "cpuid";
	case DPK_TSC_SRC_CNTFRQ:
		return "cntfrq";
	case DPK_TSC_SRC_CALIBRATED:
		return "calibrated";
	case DPK_TSC_SRC_NANOSECONDS:
		return "clock_gettime";
	}
	return "unknown";
}

double dpk_tsc_to_ns(double ticks)
{
	return ticks * 1e9 / (double)dpk_tsc_hz();
}
