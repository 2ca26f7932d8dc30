/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk_test.h - the test harness: each test program is a table of cases run in order,
 * reporting TAP version 13 on stdout.
 *
 *   static void ring_init_rejects_zero(void) { ASSERT_EQ(-EINVAL, dpk_ring_init(...)); }
 *   static const struct dpk_test_case cases[] = { DPK_TEST(ring_init_rejects_zero), };
 *   DPK_TEST_MAIN(cases)
 *
 * Integer comparisons (ASSERT_EQ, _LT, ...) compare as intmax_t, _U variants as uintmax_t,
 * _F variants as double. ASSERT_* ends the current case on failure (only from the thread running
 * the case); EXPECT_* records the failure and goes on (from any thread). DPK_SKIP() ends the case
 * as skipped. The program exits 0 when every case passed or was skipped, 1 on any failure, and 77
 * (CTest's skip code) when every case was skipped.
 *
 * Arguments: a case name (or several) runs only those cases.
 * Environment: DPK_TEST_SEED fixes the seed of dpk_test_seed(); DPK_STRESS_MS sets
 * dpk_test_stress_ms().
 */
#ifndef DPK_TEST_H
#define DPK_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct dpk_test_case {
	const char *name;
	void (*fn)(void);
};

#define DPK_TEST(fn)                                                                               \
	{                                                                                          \
#fn, fn                                                                            \
	}

int dpk_test_run(const struct dpk_test_case *cases, size_t n, int argc, char **argv);

#define DPK_TEST_MAIN(table)                                                                       \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		return dpk_test_run(table, sizeof(table) / sizeof((table)[0]), argc, argv);        \
	}

/* Record a failure at file:line with a printf-style message; thread-safe. */
void dpk_test_fail(const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* End the running case (after dpk_test_fail or dpk_test_skip); never returns. */
_Noreturn void dpk_test_abort_case(void);
/* Mark the running case skipped with @p reason and end it; never returns. */
_Noreturn void dpk_test_skip(const char *reason);
/* Call @p fn when the running case ends, however it ends (passed, failed by an ASSERT,
 * skipped): cleanup later cases depend on, such as stopping lcores. One per case; a second
 * call replaces the first; main thread only. */
void dpk_test_on_end(void (*fn)(void));
/* A TAP diagnostic line ("# ..."), thread-safe. */
void dpk_test_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The seed for randomised tests: DPK_TEST_SEED or one from the clock; printed once. */
uint64_t dpk_test_seed(void);
/* A small fast PRNG (xorshift64*) for tests. */
uint64_t dpk_test_rand(uint64_t *state);
/* How long a stress loop should run, in ms: DPK_STRESS_MS or @p dflt. */
unsigned dpk_test_stress_ms(unsigned dflt);
/* Monotonic milliseconds. */
uint64_t dpk_test_now_ms(void);

#define DPK__CHECK(cond, fatal, ...)                                                               \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			dpk_test_fail(__FILE__, __LINE__, __VA_ARGS__);                            \
			if (fatal)                                                                 \
				dpk_test_abort_case();                                             \
		}                                                                                  \
	} while (0)

#define DPK__CMP(a, op, b, fatal)                                                                  \
	do {                                                                                       \
		intmax_t dpk__a = (intmax_t)(a), dpk__b = (intmax_t)(b);                           \
		DPK__CHECK(dpk__a op dpk__b, fatal, "%s %s %s: %jd vs %jd", #a, #op, #b, dpk__a,   \
		           dpk__b);                                                                \
	} while (0)

#define DPK__CMPU(a, op, b, fatal)                                                                 \
	do {                                                                                       \
		uintmax_t dpk__a = (uintmax_t)(a), dpk__b = (uintmax_t)(b);                        \
		DPK__CHECK(dpk__a op dpk__b, fatal, "%s %s %s: %ju vs %ju", #a, #op, #b, dpk__a,   \
		           dpk__b);                                                                \
	} while (0)

#define DPK__CMPF(a, op, b, fatal)                                                                 \
	do {                                                                                       \
		double dpk__a = (double)(a), dpk__b = (double)(b);                                 \
		DPK__CHECK(dpk__a op dpk__b, fatal, "%s %s %s: %g vs %g", #a, #op, #b, dpk__a,     \
		           dpk__b);                                                                \
	} while (0)

#define DPK__STR(a, b, want, fatal)                                                                \
	do {                                                                                       \
		const char *dpk__a = (a), *dpk__b = (b);                                           \
		bool dpk__eq = dpk__a && dpk__b && strcmp(dpk__a, dpk__b) == 0;                    \
		DPK__CHECK(dpk__eq == (want), fatal, "%s %s %s: \"%s\" vs \"%s\"", #a,             \
		           (want) ? "==" : "!=", #b, dpk__a ? dpk__a : "(null)",                   \
		           dpk__b ? dpk__b : "(null)");                                            \
	} while (0)

#define ASSERT_TRUE(c)     DPK__CHECK((c), 1, "expected true: %s", #c)
#define ASSERT_FALSE(c)    DPK__CHECK(!(c), 1, "expected false: %s", #c)
#define ASSERT_EQ(a, b)    DPK__CMP(a, ==, b, 1)
#define ASSERT_NE(a, b)    DPK__CMP(a, !=, b, 1)
#define ASSERT_LT(a, b)    DPK__CMP(a, <, b, 1)
#define ASSERT_LE(a, b)    DPK__CMP(a, <=, b, 1)
#define ASSERT_GT(a, b)    DPK__CMP(a, >, b, 1)
#define ASSERT_GE(a, b)    DPK__CMP(a, >=, b, 1)
#define ASSERT_EQ_U(a, b)  DPK__CMPU(a, ==, b, 1)
#define ASSERT_STREQ(a, b) DPK__STR(a, b, true, 1)
#define ASSERT_LT_F(a, b)  DPK__CMPF(a, <, b, 1)
#define ASSERT_LE_F(a, b)  DPK__CMPF(a, <=, b, 1)
#define ASSERT_GT_F(a, b)  DPK__CMPF(a, >, b, 1)
#define ASSERT_GE_F(a, b)  DPK__CMPF(a, >=, b, 1)
#define ASSERT_NULL(p)     DPK__CHECK((p) == NULL, 1, "expected NULL: %s", #p)
#define ASSERT_NOT_NULL(p) DPK__CHECK((p) != NULL, 1, "expected non-NULL: %s", #p)
#define ASSERT_NEAR(a, b, eps)                                                                     \
	DPK__CHECK(((a) - (b)) <= (eps) && ((b) - (a)) <= (eps), 1, "%s ~ %s: %g vs %g", #a, #b,   \
	           (double)(a), (double)(b))

#define EXPECT_TRUE(c)     DPK__CHECK((c), 0, "expected true: %s", #c)
#define EXPECT_FALSE(c)    DPK__CHECK(!(c), 0, "expected false: %s", #c)
#define EXPECT_EQ(a, b)    DPK__CMP(a, ==, b, 0)
#define EXPECT_NE(a, b)    DPK__CMP(a, !=, b, 0)
#define EXPECT_LT(a, b)    DPK__CMP(a, <, b, 0)
#define EXPECT_LE(a, b)    DPK__CMP(a, <=, b, 0)
#define EXPECT_GT(a, b)    DPK__CMP(a, >, b, 0)
#define EXPECT_GE(a, b)    DPK__CMP(a, >=, b, 0)
#define EXPECT_EQ_U(a, b)  DPK__CMPU(a, ==, b, 0)
#define EXPECT_STREQ(a, b) DPK__STR(a, b, true, 0)
#define EXPECT_LT_F(a, b)  DPK__CMPF(a, <, b, 0)
#define EXPECT_LE_F(a, b)  DPK__CMPF(a, <=, b, 0)
#define EXPECT_GT_F(a, b)  DPK__CMPF(a, >, b, 0)
#define EXPECT_GE_F(a, b)  DPK__CMPF(a, >=, b, 0)
#define EXPECT_NULL(p)     DPK__CHECK((p) == NULL, 0, "expected NULL: %s", #p)
#define EXPECT_NOT_NULL(p) DPK__CHECK((p) != NULL, 0, "expected non-NULL: %s", #p)

#define DPK_SKIP(reason) dpk_test_skip(reason)

#endif /* DPK_TEST_H */
