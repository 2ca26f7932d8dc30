/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a user gets from <dpk/ring.h>: the public calls, and not the library's test hooks.
 * The hooks' names are taken here for objects of another type, which does not compile
 * while an installed header declares them as functions.
 */
#include <dpk/ring.h>

#include "dpk_test.h"

static int dpk__ring_set_indices = 1;
static int dpk__ring_set_cached = 2;

static void hooks_not_declared(void)
{
	EXPECT_EQ(3, dpk__ring_set_indices + dpk__ring_set_cached);
}

static void public_calls_work(void)
{
	struct dpk_ring *r = dpk_ring_create(8, 16, 0);
	uint64_t v = 42, w = 0;

	ASSERT_NOT_NULL(r);
	ASSERT_EQ(0, dpk_ring_enqueue(r, &v));
	ASSERT_EQ(0, dpk_ring_dequeue(r, &w));
	ASSERT_EQ(42, w);
	dpk_ring_free(r);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(hooks_not_declared),
        DPK_TEST(public_calls_work),
};

DPK_TEST_MAIN(cases)
