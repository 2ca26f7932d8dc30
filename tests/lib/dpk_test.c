/* SPDX-License-Identifier: BSD-3-Clause */
/* The test harness behind dpk_test.h: TAP 13, case isolation by longjmp. */
#define _GNU_SOURCE
#include "dpk_test.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static jmp_buf case_jmp;
static atomic_uint case_failures;
static bool case_skipped;
static const char *skip_reason;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

void dpk_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add_explicit(&case_failures, 1, memory_order_relaxed);
	pthread_mutex_lock(&out_lock);
	printf("# FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

void dpk_test_note(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

_Noreturn void dpk_test_abort_case(void)
{
	longjmp(case_jmp, 1);
}

_Noreturn void dpk_test_skip(const char *reason)
{
	case_skipped = true;
	skip_reason = reason;
	longjmp(case_jmp, 1);
}

uint64_t dpk_test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t dpk_test_seed(void)
{
	static uint64_t seed;
	static bool have;

	if (!have) {
		const char *env = getenv("DPK_TEST_SEED");
		struct timespec ts;

		if (env && *env) {
			seed = strtoull(env, NULL, 0);
		} else {
			clock_gettime(CLOCK_REALTIME, &ts);
			seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
		}
		if (seed == 0)
			seed = 1;
		have = true;
		dpk_test_note("seed: %" PRIu64 " (replay with DPK_TEST_SEED=%" PRIu64 ")", seed,
		              seed);
	}
	return seed;
}

uint64_t dpk_test_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15u;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1du;
}

unsigned dpk_test_stress_ms(unsigned dflt)
{
	const char *env = getenv("DPK_STRESS_MS");

	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 10);
		if (v > 0 && v < 3600000)
			return (unsigned)v;
	}
	return dflt;
}

static bool selected(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

/* Cleanup of the running case (dpk_test_on_end). */
static void (*case_end)(void);

/* The setjmp lives in its own frame so that no local of dpk_test_run() is live across the
 * longjmp that ends a case; otherwise GCC at -O1 and above warns (-Wclobbered) that the
 * case counters might be clobbered, which -Werror turns into a failed build. */
static void run_case(void (*fn)(void))
{
	if (setjmp(case_jmp) == 0)
		fn();
	if (case_end) {
		void (*end)(void) = case_end;
		case_end = NULL;
		end();
	}
}

void dpk_test_on_end(void (*fn)(void))
{
	case_end = fn;
}

int dpk_test_run(const struct dpk_test_case *cases, size_t n, int argc, char **argv)
{
	size_t planned = 0, failed = 0, skipped = 0, num = 0;

	for (size_t i = 0; i < n; i++)
		planned += selected(cases[i].name, argc, argv);
	printf("TAP version 13\n1..%zu\n", planned);
	fflush(stdout);
	for (size_t i = 0; i < n; i++) {
		if (!selected(cases[i].name, argc, argv))
			continue;
		num++;
		atomic_store(&case_failures, 0);
		case_skipped = false;
		skip_reason = NULL;
		run_case(cases[i].fn);
		if (atomic_load(&case_failures)) {
			failed++;
			printf("not ok %zu - %s\n", num, cases[i].name);
		} else if (case_skipped) {
			skipped++;
			printf("ok %zu - %s # SKIP %s\n", num, cases[i].name,
			       skip_reason ? skip_reason : "");
		} else {
			printf("ok %zu - %s\n", num, cases[i].name);
		}
		fflush(stdout);
	}
	printf("# %zu passed, %zu failed, %zu skipped\n", num - failed - skipped, failed, skipped);
	if (failed)
		return 1;
	if (num > 0 && skipped == num)
		return 77;
	return 0;
}
