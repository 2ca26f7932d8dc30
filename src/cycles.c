/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter frequency: from the hardware where it says, else calibrated once. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
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

/* Tries per point of dpk_tsc_calibrate(). */
#define CALIBRATE_TRIES 5

/*
 * One point of the counter against the clock: a counter read between two clock reads,
 * timed at the middle of that bracket, the tightest of CALIBRATE_TRIES tries. A preemption
 * or an interrupt between the reads of one try widens its bracket, and that try is passed
 * over: a single try is off by as long as it was held up, and over a 20 ms window 1000 ppm
 * is 20 us.
 */
static bool clock_point(uint64_t *ns, uint64_t *tsc)
{
	uint64_t width = UINT64_MAX;

	for (unsigned i = 0; i < CALIBRATE_TRIES; i++) {
		uint64_t a = dpk__clock_ns();
		uint64_t c = dpk_tsc_begin();
		uint64_t b = dpk__clock_ns();

		if (a == 0 || b < a)
			return false;
		if (b - a < width) {
			width = b - a;
			*ns = a + (b - a) / 2;
			*tsc = c;
		}
	}
	return true;
}

uint64_t dpk_tsc_calibrate(unsigned ms)
{
	uint64_t t0 = 0, c0 = 0, t1 = 0, c1 = 0, want;

	if (ms == 0)
		return 0;
	want = (uint64_t)ms * 1000000u;
	if (!clock_point(&t0, &c0))
		return 0;
	/* Spin on the clock alone; the end point's reads all come after the window (a clock
	 * that fails reads 0, ends the spin, and fails the end point). */
	while (dpk__clock_ns() - t0 < want)
		;
	if (!clock_point(&t1, &c1))
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
