/* SPDX-License-Identifier: BSD-3-Clause */
/* The counter: monotonic on one thread, a frequency that agrees with the wall clock. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <time.h>

#include <dpk/cycles.h>

#include "dpk_test.h"

static void tsc_is_monotonic_on_one_thread(void)
{
	uint64_t prev = dpk_tsc_begin();

	for (int i = 0; i < 100000; i++) {
		uint64_t a = dpk_tsc(), b = dpk_tsc_begin(), c = dpk_tsc_end();
		ASSERT_LE(prev, b);
		ASSERT_LE(b, c);
		(void)a;
		prev = c;
	}
}

static void tsc_advances(void)
{
	uint64_t a = dpk_tsc_begin();
	struct timespec ts = {0, 2000000};

	nanosleep(&ts, NULL);
	ASSERT_GT(dpk_tsc_end(), a);
}

static void end_cpu_reports_a_cpu(void)
{
	unsigned cpu = DPK_CPU_MAX + 1;
	cpu_set_t set;

	(void)dpk_tsc_end_cpu(&cpu);
	ASSERT_LT(cpu, DPK_CPU_MAX + 1);
	/* Pinned to one CPU, the reported CPU must be that one. */
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		DPK_SKIP("no affinity");
	int first = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			first = c;
			break;
		}
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	(void)dpk_tsc_end_cpu(&cpu);
	sched_setaffinity(0, sizeof(set), &set);
	ASSERT_EQ(first, cpu);
}

static void hz_is_stable_and_named(void)
{
	uint64_t hz = dpk_tsc_hz();

	ASSERT_GT(hz, 1000000u); /* every counter dpkit supports ticks above 1 MHz */
	ASSERT_EQ_U(hz, dpk_tsc_hz());
	enum dpk_tsc_source src = dpk_tsc_hz_source();
	const char *name = dpk_tsc_source_name(src);
	ASSERT_NOT_NULL(name);
	ASSERT_TRUE(strcmp(name, "unknown") != 0);
	dpk_test_note("counter %.6f MHz from %s", (double)hz / 1e6, name);
}

static void hz_agrees_with_wall_clock(void)
{
	/* Compare the counter against CLOCK_MONOTONIC over 50 ms of sleep. This checks a
	 * ratio of two clocks over one window, not the speed of any code: a wrong source
	 * (a CPUID value misread by 1000x, say) is off by far more than the 5% allowed. A
	 * preemption between the paired reads can skew one window, so five tries are made
	 * and one close agreement is enough. */
	double hz = (double)dpk_tsc_hz(), best = 1e300;

	for (int i = 0; i < 5; i++) {
		struct timespec a, b, ts = {0, 50000000};
		uint64_t c0, c1;

		clock_gettime(CLOCK_MONOTONIC, &a);
		c0 = dpk_tsc_begin();
		nanosleep(&ts, NULL);
		c1 = dpk_tsc_end();
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
		double err = (double)(c1 - c0) * 1e9 / ns / hz - 1.0;
		if (err < 0)
			err = -err;
		if (err < best)
			best = err;
	}
	dpk_test_note("best agreement with CLOCK_MONOTONIC: %.3f%%", best * 100);
	EXPECT_LT_F(best, 0.05);
}

static void calibrate_rejects_zero_window(void)
{
	ASSERT_EQ_U(0, dpk_tsc_calibrate(0));
	ASSERT_GT(dpk_tsc_calibrate(5), 0);
}

static void to_ns_uses_hz(void)
{
	double hz = (double)dpk_tsc_hz();
	ASSERT_NEAR(dpk_tsc_to_ns(hz), 1e9, 1.0);
	ASSERT_NEAR(dpk_tsc_to_ns(0), 0.0, 1e-9);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(tsc_is_monotonic_on_one_thread),
        DPK_TEST(tsc_advances),
        DPK_TEST(end_cpu_reports_a_cpu),
        DPK_TEST(hz_is_stable_and_named),
        DPK_TEST(hz_agrees_with_wall_clock),
        DPK_TEST(calibrate_rejects_zero_window),
        DPK_TEST(to_ns_uses_hz),
};

DPK_TEST_MAIN(cases)
