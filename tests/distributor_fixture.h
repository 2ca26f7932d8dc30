/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * distributor_fixture.h - what the distributor's tests share (test_distributor.c,
 * test_distributor_runs.c): a packet pool, packets numbered and tagged, a distributor
 * made or the case failed, its statistics, and its returns drained.
 */
#ifndef DPK_TEST_DISTRIBUTOR_FIXTURE_H
#define DPK_TEST_DISTRIBUTOR_FIXTURE_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/distributor.h>
#include <dpk/packet.h>

#include "dpk_test.h"

#define POOL_COUNT 2048u
#define NONE       UINT32_MAX

static inline struct dpk_packet_pool *make_pool(void)
{
	struct dpk_packet_pool_params prm = {
	        .count = POOL_COUNT,
	        .buf_size = 64,
	        .headroom = 0,
	        .uarea_size = 0,
	        .cache_size = 0,
	        .flags = 0,
	};
	struct dpk_packet_pool *pp = dpk_packet_pool_create(&prm);

	if (pp == NULL)
		dpk_test_fail(__FILE__, __LINE__, "packet pool: %s", dpk_last_error());
	return pp;
}

/* A packet of flow @p tag whose data holds @p id. */
static inline struct dpk_packet *mk(struct dpk_packet_pool *pp, uint32_t tag, uint32_t id)
{
	struct dpk_packet *p = dpk_packet_alloc(pp, sizeof(id));

	if (p == NULL) {
		dpk_test_fail(__FILE__, __LINE__, "no packet for id %u", id);
		dpk_test_abort_case();
	}
	dpk_packet_flow_tag_set(p, tag);
	memcpy(dpk_packet_data(p), &id, sizeof(id));
	return p;
}

static inline uint32_t id_of(const struct dpk_packet *p)
{
	uint32_t id;

	memcpy(&id, dpk_packet_data(p), sizeof(id));
	return id;
}

static inline unsigned in_use(struct dpk_packet_pool *pp)
{
	return dpk_pool_in_use_count(dpk_packet_pool_to_pool(pp));
}

static inline struct dpk_distributor *make(unsigned workers, enum dpk_distributor_mode mode)
{
	struct dpk_distributor *d = dpk_distributor_create(workers, mode);

	if (d == NULL) {
		dpk_test_fail(__FILE__, __LINE__, "create(%u, %d): %s", workers, (int)mode,
		              dpk_last_error());
		dpk_test_abort_case();
	}
	return d;
}

static inline struct dpk_distributor_stats stats(const struct dpk_distributor *d)
{
	struct dpk_distributor_stats st;

	if (dpk_distributor_stats_get(d, &st) != 0)
		dpk_test_fail(__FILE__, __LINE__, "stats_get failed");
	return st;
}

static inline struct dpk_distributor_worker_stats wstats(const struct dpk_distributor *d,
                                                         unsigned w)
{
	struct dpk_distributor_worker_stats st;

	if (dpk_distributor_worker_stats_get(d, w, &st) != 0)
		dpk_test_fail(__FILE__, __LINE__, "worker_stats_get(%u) failed", w);
	return st;
}

/* Assert that @p pkts[0..n-1] carry ids first, first + 1, ... */
#define ASSERT_IDS(pkts, n, first)                                                                 \
	do {                                                                                       \
		for (unsigned ids_i_ = 0; ids_i_ < (unsigned)(n); ids_i_++)                        \
			ASSERT_EQ((first) + ids_i_, id_of((pkts)[ids_i_]));                        \
	} while (0)

/* Read every return of @p d into @p out (room for @p max); their number. */
static inline unsigned drain_returns(struct dpk_distributor *d, struct dpk_packet **out,
                                     unsigned max)
{
	unsigned n = 0;
	int k;

	while ((k = dpk_distributor_returned_pkts(d, out + n, max - n)) > 0)
		n += (unsigned)k;
	return n;
}

#endif /* DPK_TEST_DISTRIBUTOR_FIXTURE_H */
