/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU sets, the version and the per-thread error message. */
#include <pthread.h>

#include <dpk/common.h>

#include "dpk_test.h"

static void cpuset_set_clear_count(void)
{
	struct dpk_cpuset s;
	unsigned c, n = 0;

	dpk_cpuset_zero(&s);
	ASSERT_EQ(0, dpk_cpuset_count(&s));
	ASSERT_EQ(DPK_CPU_MAX, dpk_cpuset_first(&s));
	dpk_cpuset_set(&s, 0);
	dpk_cpuset_set(&s, 63);
	dpk_cpuset_set(&s, 64);
	dpk_cpuset_set(&s, DPK_CPU_MAX - 1);
	dpk_cpuset_set(&s, DPK_CPU_MAX); /* out of range: ignored */
	ASSERT_EQ(4, dpk_cpuset_count(&s));
	ASSERT_TRUE(dpk_cpuset_isset(&s, 63));
	ASSERT_FALSE(dpk_cpuset_isset(&s, 62));
	ASSERT_FALSE(dpk_cpuset_isset(&s, DPK_CPU_MAX));
	ASSERT_EQ(0, dpk_cpuset_first(&s));
	ASSERT_EQ(63, dpk_cpuset_next(&s, 0));
	ASSERT_EQ(64, dpk_cpuset_next(&s, 63));
	ASSERT_EQ(DPK_CPU_MAX - 1, dpk_cpuset_next(&s, 64));
	ASSERT_EQ(DPK_CPU_MAX, dpk_cpuset_next(&s, DPK_CPU_MAX - 1));
	DPK_CPUSET_FOREACH(c, &s)
	n++;
	ASSERT_EQ(4, n);
	dpk_cpuset_clear(&s, 63);
	ASSERT_FALSE(dpk_cpuset_isset(&s, 63));
	ASSERT_EQ(3, dpk_cpuset_count(&s));
}

static void cpuset_equal(void)
{
	struct dpk_cpuset a, b;

	dpk_cpuset_zero(&a);
	dpk_cpuset_zero(&b);
	ASSERT_TRUE(dpk_cpuset_equal(&a, &b));
	dpk_cpuset_set(&a, 700);
	ASSERT_FALSE(dpk_cpuset_equal(&a, &b));
	dpk_cpuset_set(&b, 700);
	ASSERT_TRUE(dpk_cpuset_equal(&a, &b));
}

static void version_matches_macros(void)
{
	ASSERT_STREQ(DPK_VERSION_STRING, dpk_version());
}

static void *read_error(void *arg)
{
	*(const char **)arg = dpk_last_error();
	return NULL;
}

static void last_error_starts_empty_per_thread(void)
{
	const char *msg = NULL;
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, read_error, &msg));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_NOT_NULL(msg);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(cpuset_set_clear_count),
        DPK_TEST(cpuset_equal),
        DPK_TEST(version_matches_macros),
        DPK_TEST(last_error_starts_empty_per_thread),
};

DPK_TEST_MAIN(cases)
