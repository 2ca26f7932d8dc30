/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pool_fixture.h - what the pool's tests share (test_pool.c, test_pool_audit.c): a pool
 * made or the case failed, and the objects its ring holds.
 */
#ifndef DPK_TEST_POOL_FIXTURE_H
#define DPK_TEST_POOL_FIXTURE_H

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/pool.h>

#include "dpk_test.h"
#include "dpk_test_lcore.h"

#define N 64

static inline struct dpk_pool *make(unsigned count, size_t size, unsigned cache, unsigned flags)
{
	struct dpk_pool *p = dpk_pool_create(count, size, cache, flags);

	if (p == NULL)
		dpk_test_fail(__FILE__, __LINE__, "dpk_pool_create(%u, %zu, %u, 0x%x): %s", count,
		              size, cache, flags, dpk_last_error());
	return p;
}

/* Objects in the ring: what is available minus what the one cache in play holds. */
static inline unsigned ring_count(const struct dpk_pool *p, const struct dpk_pool_cache *c)
{
	return dpk_pool_avail_count(p) - dpk_pool_cache_count(c);
}

#endif /* DPK_TEST_POOL_FIXTURE_H */
