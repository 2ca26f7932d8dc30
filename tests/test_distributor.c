/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet distributor: every call and its errors, both modes, one worker and several,
 * flow affinity and order, leaving and rejoining, flush and clear_returns, a full returns
 * buffer, two distributors at once, and a seeded single-threaded random run checked
 * against a model. Most cases drive the workers from the test thread through the
 * non-blocking request/poll calls, so what each worker receives is exact; the threaded
 * cases use get_pkt().
 */
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

static struct dpk_packet_pool *make_pool(void)
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
static struct dpk_packet *mk(struct dpk_packet_pool *pp, uint32_t tag, uint32_t id)
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

static uint32_t id_of(const struct dpk_packet *p)
{
	uint32_t id;

	memcpy(&id, dpk_packet_data(p), sizeof(id));
	return id;
}

static unsigned in_use(struct dpk_packet_pool *pp)
{
	return dpk_pool_in_use_count(dpk_packet_pool_to_pool(pp));
}

static struct dpk_distributor *make(unsigned workers, enum dpk_distributor_mode mode)
{
	struct dpk_distributor *d = dpk_distributor_create(workers, mode);

	if (d == NULL) {
		dpk_test_fail(__FILE__, __LINE__, "create(%u, %d): %s", workers, (int)mode,
		              dpk_last_error());
		dpk_test_abort_case();
	}
	return d;
}

static struct dpk_distributor_stats stats(const struct dpk_distributor *d)
{
	struct dpk_distributor_stats st;

	if (dpk_distributor_stats_get(d, &st) != 0)
		dpk_test_fail(__FILE__, __LINE__, "stats_get failed");
	return st;
}

static struct dpk_distributor_worker_stats wstats(const struct dpk_distributor *d, unsigned w)
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
static unsigned drain_returns(struct dpk_distributor *d, struct dpk_packet **out, unsigned max)
{
	unsigned n = 0;
	int k;

	while ((k = dpk_distributor_returned_pkts(d, out + n, max - n)) > 0)
		n += (unsigned)k;
	return n;
}

/* ---- creation ---------------------------------------------------------------------- */

static void create_rejects_bad_arguments(void)
{
	static const struct {
		unsigned workers;
		int mode;
	} bad[] = {
	        {0, DPK_DISTRIBUTOR_BURST},
	        {DPK_DISTRIBUTOR_WORKERS_MAX + 1, DPK_DISTRIBUTOR_BURST},
	        {UINT_MAX, DPK_DISTRIBUTOR_SINGLE},
	        {4, 2},
	        {4, -1},
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ASSERT_NULL(dpk_distributor_create(bad[i].workers,
		                                   (enum dpk_distributor_mode)bad[i].mode));
		ASSERT_EQ(EINVAL, errno);
		ASSERT_TRUE(dpk_last_error()[0] != '\0');
	}
}

static void create_and_free(void)
{
	static const unsigned counts[] = {1, 2, 63, DPK_DISTRIBUTOR_WORKERS_MAX};

	for (int mode = 0; mode < 2; mode++) {
		for (unsigned i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			struct dpk_distributor *d =
			        make(counts[i], (enum dpk_distributor_mode)mode);
			struct dpk_distributor_stats st = stats(d);
			struct dpk_distributor_worker_stats ws = wstats(d, counts[i] - 1);

			EXPECT_EQ(0, st.distributed);
			EXPECT_EQ(0, st.returned);
			EXPECT_EQ(0, st.handoffs);
			EXPECT_EQ(0, st.returns_full);
			EXPECT_EQ(0, st.in_flight);
			EXPECT_EQ(0, st.returns);
			EXPECT_EQ(0, st.active_workers);
			EXPECT_EQ(0, st.blocked_workers);
			EXPECT_EQ(0, ws.handled);
			EXPECT_EQ(0, ws.handoffs);
			EXPECT_FALSE(ws.active);
			EXPECT_FALSE(dpk_distributor_returns_blocked(d));
			dpk_distributor_free(d);
		}
	}
	dpk_distributor_free(NULL);
}

/* A distributor and its packet pool built in the caller's memory (first filled with
 * garbage: init must not count on zeroed memory) work as created ones do, and free()
 * leaves them to their owner. */
static void init_in_caller_memory(void)
{
	struct dpk_packet_pool_params prm = {.count = 64, .buf_size = 64, .cache_size = 0};
	const ssize_t dsize = dpk_distributor_memsize(2, DPK_DISTRIBUTOR_BURST);
	const ssize_t psize = dpk_packet_pool_memsize(&prm);
	struct dpk_packet *pkts[8], *got[8];
	struct dpk_distributor *d;
	struct dpk_packet_pool *pp;

	ASSERT_TRUE(dsize > 0 && dsize % DPK_DISTRIBUTOR_ALIGN == 0);
	ASSERT_TRUE(psize > 0 && psize % DPK_PACKET_POOL_ALIGN == 0);
	ASSERT_NOT_NULL(d = aligned_alloc(DPK_DISTRIBUTOR_ALIGN, (size_t)dsize));
	ASSERT_NOT_NULL(pp = aligned_alloc(DPK_PACKET_POOL_ALIGN, (size_t)psize));
	memset(d, 0xa5, (size_t)dsize);
	memset(pp, 0xa5, (size_t)psize);
	ASSERT_EQ(0, dpk_distributor_init(d, 2, DPK_DISTRIBUTOR_BURST));
	ASSERT_EQ(0, dpk_packet_pool_init(pp, &prm));
	EXPECT_EQ(0, stats(d).in_flight);
	EXPECT_EQ(0, in_use(pp));

	for (unsigned i = 0; i < 8; i++)
		ASSERT_NOT_NULL(pkts[i] = mk(pp, 7, i));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(8, dpk_distributor_process(d, pkts, 8));
	ASSERT_EQ(8, dpk_distributor_poll_pkt(d, 1, got));
	ASSERT_IDS(got, 8, 0);
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 1, got, 8));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(8, drain_returns(d, got, 8));
	ASSERT_IDS(got, 8, 0);
	EXPECT_EQ(8, stats(d).distributed);
	EXPECT_EQ(8, wstats(d, 1).handled);
	for (unsigned i = 0; i < 8; i++)
		dpk_packet_free(got[i]);
	EXPECT_EQ(0, in_use(pp));

	/* The memory is the caller's: free() says so and leaves it working. */
	dpk_distributor_free(d);
	EXPECT_TRUE(strstr(dpk_last_error(), "caller's memory") != NULL);
	EXPECT_EQ(8, stats(d).distributed);
	dpk_packet_pool_free(pp);
	EXPECT_TRUE(strstr(dpk_last_error(), "caller's memory") != NULL);
	ASSERT_NOT_NULL(pkts[0] = dpk_packet_alloc(pp, 8));
	dpk_packet_free(pkts[0]);
	free(d);
	free(pp);
}

/* Bad arguments to memsize and init get -EINVAL, and init leaves the memory as it was. */
static void init_rejects_bad_arguments(void)
{
	struct dpk_packet_pool_params prm = {.count = 64, .buf_size = 64, .cache_size = 0};
	struct dpk_packet_pool_params bad = prm;
	const ssize_t dsize = dpk_distributor_memsize(4, DPK_DISTRIBUTOR_SINGLE);
	unsigned char *mem, copy[256];

	EXPECT_EQ(-EINVAL, dpk_distributor_memsize(0, DPK_DISTRIBUTOR_BURST));
	EXPECT_EQ(-EINVAL, dpk_distributor_memsize(DPK_DISTRIBUTOR_WORKERS_MAX + 1,
	                                           DPK_DISTRIBUTOR_BURST));
	EXPECT_EQ(-EINVAL, dpk_distributor_memsize(4, (enum dpk_distributor_mode)2));
	EXPECT_EQ(-EINVAL, dpk_packet_pool_memsize(NULL));
	bad.headroom = bad.buf_size + 1;
	EXPECT_EQ(-EINVAL, dpk_packet_pool_memsize(&bad));
	EXPECT_TRUE(strstr(dpk_last_error(), "headroom") != NULL);
	bad = prm;
	bad.count = 0;
	EXPECT_EQ(-EINVAL, dpk_packet_pool_memsize(&bad));

	ASSERT_TRUE(dsize > 0);
	ASSERT_NOT_NULL(mem = aligned_alloc(DPK_DISTRIBUTOR_ALIGN, (size_t)dsize + 256));
	memset(mem, 0x5a, (size_t)dsize + 256);
	memcpy(copy, mem + 64, sizeof(copy));
	EXPECT_EQ(-EINVAL, dpk_distributor_init(NULL, 4, DPK_DISTRIBUTOR_SINGLE));
	EXPECT_EQ(-EINVAL, dpk_distributor_init((void *)(mem + 64), 4, DPK_DISTRIBUTOR_SINGLE));
	EXPECT_TRUE(strstr(dpk_last_error(), "aligned") != NULL);
	EXPECT_EQ(-EINVAL, dpk_distributor_init((void *)mem, 0, DPK_DISTRIBUTOR_SINGLE));
	EXPECT_EQ(-EINVAL, dpk_packet_pool_init(NULL, &prm));
	EXPECT_EQ(-EINVAL, dpk_packet_pool_init((void *)(mem + 64), &prm));
	EXPECT_EQ(-EINVAL, dpk_packet_pool_init((void *)mem, &bad));
	EXPECT_EQ(0, memcmp(copy, mem + 64, sizeof(copy)));
	for (size_t i = 0; i < 64; i++)
		EXPECT_EQ(0x5a, mem[i]);
	free(mem);
}

/* ---- errors -------------------------------------------------------------------------- */

static void distributor_calls_reject_bad_input(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(2, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *pkts[3], *out[8];
	struct dpk_distributor_stats st;
	struct dpk_distributor_worker_stats ws;

	ASSERT_NOT_NULL(pp);
	pkts[0] = mk(pp, 1, 0);
	pkts[1] = NULL;
	pkts[2] = mk(pp, 3, 2);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));

	ASSERT_EQ(-EINVAL, dpk_distributor_process(NULL, pkts, 1));
	ASSERT_EQ(-EINVAL, dpk_distributor_process(d, NULL, 1));
	ASSERT_EQ(-EINVAL, dpk_distributor_process(d, pkts, 3)); /* a NULL entry */
	ASSERT_EQ(-EINVAL, dpk_distributor_process(d, pkts, (unsigned)INT_MAX + 1));
	ASSERT_EQ(-EINVAL, dpk_distributor_returned_pkts(NULL, out, 8));
	ASSERT_EQ(-EINVAL, dpk_distributor_returned_pkts(d, NULL, 1));
	ASSERT_EQ(-EINVAL, dpk_distributor_flush(NULL));
	ASSERT_EQ(-EINVAL, dpk_distributor_clear_returns(NULL));
	ASSERT_FALSE(dpk_distributor_returns_blocked(NULL));
	ASSERT_EQ(-EINVAL, dpk_distributor_stats_get(NULL, &st));
	ASSERT_EQ(-EINVAL, dpk_distributor_stats_get(d, NULL));
	ASSERT_EQ(-EINVAL, dpk_distributor_worker_stats_get(NULL, 0, &ws));
	ASSERT_EQ(-EINVAL, dpk_distributor_worker_stats_get(d, 2, &ws));
	ASSERT_EQ(-EINVAL, dpk_distributor_worker_stats_get(d, 0, NULL));

	/* Nothing was taken, and the worker's request was not even looked at. */
	st = stats(d);
	ASSERT_EQ(0, st.distributed);
	ASSERT_EQ(0, st.in_flight);
	ASSERT_EQ(0, st.active_workers);
	ASSERT_EQ(-EAGAIN, dpk_distributor_poll_pkt(d, 0, out));

	/* The empty calls are fine. */
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_returned_pkts(d, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_clear_returns(d));
	ASSERT_EQ(1, stats(d).active_workers); /* process(NULL, 0) took the request in */

	/* The good packets go through. */
	ASSERT_EQ(1, dpk_distributor_process(d, pkts, 1));
	ASSERT_EQ(1, dpk_distributor_poll_pkt(d, 0, out));
	ASSERT_TRUE(out[0] == pkts[0]);
	dpk_packet_free(pkts[0]);
	dpk_packet_free(pkts[2]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

static void worker_calls_reject_bad_input(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(3, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *good[9], *holed[2], *out[8];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 9; i++)
		good[i] = mk(pp, i, i);
	holed[0] = good[0];
	holed[1] = NULL;

	/* Bad worker ids. */
	ASSERT_EQ(-EINVAL, dpk_distributor_request_pkt(d, 3, NULL, 0));
	ASSERT_EQ(-EINVAL, dpk_distributor_request_pkt(d, UINT_MAX, NULL, 0));
	ASSERT_EQ(-EINVAL, dpk_distributor_poll_pkt(d, 3, out));
	ASSERT_EQ(-EINVAL, dpk_distributor_get_pkt(d, 3, out, NULL, 0));
	ASSERT_EQ(-EINVAL, dpk_distributor_return_pkt(d, 3, NULL, 0));
	/* NULL distributor. */
	ASSERT_EQ(-EINVAL, dpk_distributor_request_pkt(NULL, 0, NULL, 0));
	ASSERT_EQ(-EINVAL, dpk_distributor_poll_pkt(NULL, 0, out));
	ASSERT_EQ(-EINVAL, dpk_distributor_get_pkt(NULL, 0, out, NULL, 0));
	ASSERT_EQ(-EINVAL, dpk_distributor_return_pkt(NULL, 0, NULL, 0));
	/* Bad arrays and counts. */
	ASSERT_EQ(-EINVAL, dpk_distributor_request_pkt(d, 0, NULL, 1));
	ASSERT_EQ(-EINVAL, dpk_distributor_request_pkt(d, 0, good, 9));
	ASSERT_EQ(-EINVAL, dpk_distributor_request_pkt(d, 0, holed, 2));
	ASSERT_EQ(-EINVAL, dpk_distributor_get_pkt(d, 0, NULL, NULL, 0));
	ASSERT_EQ(-EINVAL, dpk_distributor_get_pkt(d, 0, out, NULL, 1));
	ASSERT_EQ(-EINVAL, dpk_distributor_get_pkt(d, 0, out, good, 9));
	ASSERT_EQ(-EINVAL, dpk_distributor_get_pkt(d, 0, out, holed, 2));
	ASSERT_EQ(-EINVAL, dpk_distributor_return_pkt(d, 0, NULL, 1));
	ASSERT_EQ(-EINVAL, dpk_distributor_return_pkt(d, 0, good, 9));
	ASSERT_EQ(-EINVAL, dpk_distributor_return_pkt(d, 0, holed, 2));
	ASSERT_EQ(-EINVAL, dpk_distributor_poll_pkt(d, 0, NULL));

	/* None of it reached the distributor. */
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(0, stats(d).active_workers);
	ASSERT_EQ(0, stats(d).returns);

	/* Calls made in the wrong state. */
	ASSERT_EQ(-EINVAL, dpk_distributor_poll_pkt(d, 0, out)); /* nothing requested */
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(-EBUSY, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(-EBUSY, dpk_distributor_get_pkt(d, 0, out, NULL, 0));
	ASSERT_EQ(-EBUSY, dpk_distributor_return_pkt(d, 0, good, 1));
	ASSERT_EQ(-EBUSY, dpk_distributor_return_pkt(d, 0, NULL, 0));
	ASSERT_EQ(-EAGAIN, dpk_distributor_poll_pkt(d, 0, out));
	/* The request still stands, with no returns in it. */
	ASSERT_EQ(2, dpk_distributor_process(d, good, 2));
	ASSERT_EQ(2, dpk_distributor_poll_pkt(d, 0, out));
	ASSERT_EQ(0, stats(d).returns);
	ASSERT_EQ(-EINVAL, dpk_distributor_poll_pkt(d, 0, out)); /* answered already */

	for (unsigned i = 0; i < 9; i++)
		dpk_packet_free(good[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* ---- one worker ---------------------------------------------------------------------- */

static void burst_one_worker_keeps_order(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(1, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *pkts[20], *got[8], *ret[32];
	struct dpk_distributor_stats st;
	struct dpk_distributor_worker_stats ws;

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 20; i++)
		pkts[i] = mk(pp, 100 + i % 3, i);

	/* No worker takes part yet: nothing can be taken. */
	ASSERT_EQ(0, dpk_distributor_process(d, pkts, 20));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	/* Eight go out at once, eight wait in the backlog, the rest stay with the caller. */
	ASSERT_EQ(16, dpk_distributor_process(d, pkts, 20));
	ASSERT_EQ(16, stats(d).in_flight);
	ASSERT_EQ(8, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_IDS(got, 8, 0);
	/* The worker has copied its hand-off out: the next one (the backlog) is written ahead,
	 * which makes room for the rest. */
	ASSERT_EQ(4, dpk_distributor_process(d, pkts + 16, 4));
	ASSERT_EQ(20, stats(d).in_flight);

	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 8));
	ASSERT_EQ(8, dpk_distributor_poll_pkt(d, 0, got)); /* there already */
	ASSERT_IDS(got, 8, 8);
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(8, dpk_distributor_returned_pkts(d, ret, 32));
	ASSERT_IDS(ret, 8, 0);

	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 8));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(4, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_IDS(got, 4, 16);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 4));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(-EAGAIN, dpk_distributor_poll_pkt(d, 0, got)); /* nothing left for it */
	ASSERT_EQ(12, dpk_distributor_returned_pkts(d, ret, 32));
	ASSERT_IDS(ret, 12, 8);
	ASSERT_EQ(0, dpk_distributor_returned_pkts(d, ret, 32));

	st = stats(d);
	ASSERT_EQ(20, st.distributed);
	ASSERT_EQ(20, st.returned);
	ASSERT_EQ(3, st.handoffs);
	ASSERT_EQ(0, st.in_flight);
	ASSERT_EQ(0, st.returns);
	ASSERT_EQ(1, st.active_workers);
	ws = wstats(d, 0);
	ASSERT_EQ(20, ws.handled);
	ASSERT_EQ(3, ws.handoffs);
	ASSERT_TRUE(ws.active);

	for (unsigned i = 0; i < 20; i++)
		dpk_packet_free(pkts[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

static void single_one_worker_hands_one_at_a_time(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(1, DPK_DISTRIBUTOR_SINGLE);
	struct dpk_packet *pkts[12], *got[1], *ret[16];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 12; i++)
		pkts[i] = mk(pp, i, i);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	/* One on the worker and a full backlog of eight. */
	ASSERT_EQ(9, dpk_distributor_process(d, pkts, 12));
	ASSERT_EQ(1, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(0, id_of(got[0]));
	for (unsigned i = 1; i < 12; i++) {
		ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 1));
		if (i >= 9)
			ASSERT_EQ(1, dpk_distributor_process(d, pkts + i, 1));
		else
			ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
		ASSERT_EQ(1, dpk_distributor_poll_pkt(d, 0, got));
		ASSERT_EQ(i, id_of(got[0]));
	}
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 1));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(12, drain_returns(d, ret, 16));
	ASSERT_IDS(ret, 12, 0);
	ASSERT_EQ(12, stats(d).handoffs);
	ASSERT_EQ(0, stats(d).in_flight);

	for (unsigned i = 0; i < 12; i++)
		dpk_packet_free(pkts[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* ---- several workers ----------------------------------------------------------------- */

static void burst_fills_one_waiting_worker_then_the_next(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(2, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *pkts[16], *got[8];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 16; i++)
		pkts[i] = mk(pp, 1000 + i, i);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(16, dpk_distributor_process(d, pkts, 16));
	ASSERT_EQ(8, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_IDS(got, 8, 0);
	ASSERT_EQ(8, dpk_distributor_poll_pkt(d, 1, got));
	ASSERT_IDS(got, 8, 8);
	ASSERT_EQ(8, wstats(d, 0).handled);
	ASSERT_EQ(8, wstats(d, 1).handled);
	ASSERT_EQ(2, stats(d).active_workers);

	for (unsigned i = 0; i < 16; i++)
		dpk_packet_free(pkts[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

static void burst_keeps_a_flow_on_its_worker(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(2, DPK_DISTRIBUTOR_BURST);
	enum { A = 7, B = 8, C = 9 };
	struct dpk_packet *first[3], *mixed[4], *got[8], *ret[16];
	int n;

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 3; i++)
		first[i] = mk(pp, A, i);
	mixed[0] = mk(pp, A, 3);
	mixed[1] = mk(pp, B, 4);
	mixed[2] = mk(pp, A, 5);
	mixed[3] = mk(pp, C, 6);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(3, dpk_distributor_process(d, first, 3));
	ASSERT_EQ(3, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_IDS(got, 3, 0);

	/* Flow A is in flight on worker 0: its packets wait for it, although worker 1 is
	 * idle; the new flows go to worker 1. */
	ASSERT_EQ(4, dpk_distributor_process(d, mixed, 4));
	ASSERT_EQ(2, dpk_distributor_poll_pkt(d, 1, got));
	ASSERT_EQ(4, id_of(got[0]));
	ASSERT_EQ(6, id_of(got[1]));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, got, 2));

	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, first, 3));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(2, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(3, id_of(got[0]));
	ASSERT_EQ(5, id_of(got[1]));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 2));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	n = (int)drain_returns(d, ret, 16);
	ASSERT_EQ(7, n);
	/* Per flow, the returns are in order: A's ids 0, 1, 2, 3, 5. */
	{
		uint32_t last_a = 0;
		int seen_a = 0;

		for (int i = 0; i < n; i++) {
			if (dpk_packet_flow_tag(ret[i]) != A)
				continue;
			if (seen_a++)
				ASSERT_GT(id_of(ret[i]), last_a);
			last_a = id_of(ret[i]);
		}
		ASSERT_EQ(5, seen_a);
	}

	for (unsigned i = 0; i < 3; i++)
		dpk_packet_free(first[i]);
	for (unsigned i = 0; i < 4; i++)
		dpk_packet_free(mixed[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* While one worker takes part the distributor keeps no flow table; a second worker joining
 * must still find the first one's flows in flight on it. */
static void burst_flow_stays_when_a_second_worker_joins(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(2, DPK_DISTRIBUTOR_BURST);
	enum { A = 7, B = 8 };
	struct dpk_packet *first[3], *mixed[2], *got[8], *ret[8];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 3; i++)
		first[i] = mk(pp, A, i);
	mixed[0] = mk(pp, A, 3);
	mixed[1] = mk(pp, B, 4);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(3, dpk_distributor_process(d, first, 3));
	ASSERT_EQ(3, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0)); /* worker 1 joins */
	ASSERT_EQ(2u, stats(d).active_workers);

	/* A is in flight on worker 0: its packet waits for it; B goes to worker 1. */
	ASSERT_EQ(2, dpk_distributor_process(d, mixed, 2));
	ASSERT_EQ(1, dpk_distributor_poll_pkt(d, 1, got));
	ASSERT_EQ(4, id_of(got[0]));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, first, 3));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(1, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(3, id_of(got[0]));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 1));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, &mixed[1], 1));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(5u, drain_returns(d, ret, 8));

	for (unsigned i = 0; i < 3; i++)
		dpk_packet_free(first[i]);
	for (unsigned i = 0; i < 2; i++)
		dpk_packet_free(mixed[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

static void single_keeps_a_flow_and_waits_for_a_worker(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(2, DPK_DISTRIBUTOR_SINGLE);
	enum { A = 70, B = 80, C = 90 };
	struct dpk_packet *pkts[3], *c, *got[1];
	unsigned wa = NONE, wb = NONE;

	ASSERT_NOT_NULL(pp);
	pkts[0] = mk(pp, A, 0);
	pkts[1] = mk(pp, A, 1);
	pkts[2] = mk(pp, B, 2);
	c = mk(pp, C, 3);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(3, dpk_distributor_process(d, pkts, 3));
	for (unsigned w = 0; w < 2; w++) {
		ASSERT_EQ(1, dpk_distributor_poll_pkt(d, w, got));
		if (id_of(got[0]) == 0)
			wa = w;
		else if (id_of(got[0]) == 2)
			wb = w;
	}
	ASSERT_TRUE(wa != NONE && wb != NONE);

	/* Both workers are busy: a new flow waits with the caller. */
	ASSERT_EQ(0, dpk_distributor_process(d, &c, 1));

	/* Worker b asks first, but the second A packet waits for worker a. */
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, wb, got, 1));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(-EAGAIN, dpk_distributor_poll_pkt(d, wb, got));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, wa, pkts, 1));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(1, dpk_distributor_poll_pkt(d, wa, got));
	ASSERT_EQ(1, id_of(got[0]));
	/* Now the new flow goes to the waiting worker. */
	ASSERT_EQ(1, dpk_distributor_process(d, &c, 1));
	ASSERT_EQ(1, dpk_distributor_poll_pkt(d, wb, got));
	ASSERT_EQ(3, id_of(got[0]));

	for (unsigned i = 0; i < 3; i++)
		dpk_packet_free(pkts[i]);
	dpk_packet_free(c);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

static void sixty_four_workers(void)
{
	struct dpk_packet_pool *pp = make_pool();
	const unsigned nw = DPK_DISTRIBUTOR_WORKERS_MAX;
	struct dpk_packet **pkts = calloc(nw * 8, sizeof(*pkts));
	struct dpk_packet *got[8];

	ASSERT_NOT_NULL(pp);
	ASSERT_NOT_NULL(pkts);
	for (unsigned i = 0; i < nw * 8; i++)
		pkts[i] = mk(pp, i * 2654435761u, i);
	for (int mode = 0; mode < 2; mode++) {
		struct dpk_distributor *d = make(nw, (enum dpk_distributor_mode)mode);
		unsigned per = mode == DPK_DISTRIBUTOR_BURST ? 8 : 1;
		unsigned seen = 0;

		for (unsigned w = 0; w < nw; w++)
			ASSERT_EQ(0, dpk_distributor_request_pkt(d, w, NULL, 0));
		ASSERT_EQ((int)(nw * per), dpk_distributor_process(d, pkts, nw * 8));
		ASSERT_EQ(nw, stats(d).active_workers);
		for (unsigned w = 0; w < nw; w++) {
			int n = dpk_distributor_poll_pkt(d, w, got);

			ASSERT_EQ((int)per, n);
			for (int i = 0; i < n; i++)
				ASSERT_EQ(id_of(got[i]) / per, w);
			seen += (unsigned)n;
			ASSERT_EQ(per, wstats(d, w).handled);
		}
		ASSERT_EQ(nw * per, seen);
		dpk_distributor_free(d);
	}
	for (unsigned i = 0; i < nw * 8; i++)
		dpk_packet_free(pkts[i]);
	free(pkts);
	dpk_packet_pool_free(pp);
}

/* ---- leaving --------------------------------------------------------------------------- */

static void leaving_worker_backlog_goes_to_another(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(2, DPK_DISTRIBUTOR_BURST);
	enum { A = 5, X = 6, Y = 7 };
	struct dpk_packet *a[5], *xy[2], *got[8], *held[8], *ret[16];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 5; i++)
		a[i] = mk(pp, A, i);
	xy[0] = mk(pp, X, 10);
	xy[1] = mk(pp, Y, 11);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(3, dpk_distributor_process(d, a, 3));
	ASSERT_EQ(3, dpk_distributor_poll_pkt(d, 0, held));
	ASSERT_EQ(2, dpk_distributor_process(d, a + 3, 2)); /* behind the first three */
	ASSERT_EQ(-EAGAIN, dpk_distributor_poll_pkt(d, 1, got));

	/* Worker 0 leaves: its returns come back and its backlog goes to worker 1. */
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 0, held, 3));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(2, dpk_distributor_poll_pkt(d, 1, got));
	ASSERT_IDS(got, 2, 3);
	ASSERT_EQ(3, dpk_distributor_returned_pkts(d, ret, 16));
	ASSERT_IDS(ret, 3, 0);
	ASSERT_EQ(1, stats(d).active_workers);
	ASSERT_FALSE(wstats(d, 0).active);
	ASSERT_TRUE(wstats(d, 1).active);
	ASSERT_EQ(-EINVAL, dpk_distributor_poll_pkt(d, 0, got)); /* it asked for nothing */
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 0, NULL, 0)); /* out already: no-op */

	/* Worker 0 gets nothing more; new flows go to worker 1. */
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, got, 2));
	ASSERT_EQ(2, dpk_distributor_process(d, xy, 2));
	ASSERT_EQ(2, dpk_distributor_poll_pkt(d, 1, got));
	ASSERT_IDS(got, 2, 10);
	ASSERT_EQ(3, wstats(d, 0).handled);
	ASSERT_EQ(4, wstats(d, 1).handled);

	/* It comes back by asking again. */
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_TRUE(wstats(d, 0).active);
	ASSERT_EQ(2, stats(d).active_workers);

	for (unsigned i = 0; i < 5; i++)
		dpk_packet_free(a[i]);
	dpk_packet_free(xy[0]);
	dpk_packet_free(xy[1]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

static void last_worker_leaving_keeps_its_backlog(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(1, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *pkts[12], *got[8], *ret[16];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 12; i++)
		pkts[i] = mk(pp, i % 2, i);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(12, dpk_distributor_process(d, pkts, 12));
	ASSERT_EQ(8, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 0, got, 8));
	/* The four left in its backlog have nowhere to go. */
	ASSERT_EQ(-ENODEV, dpk_distributor_flush(d));
	ASSERT_EQ(4, stats(d).in_flight);
	ASSERT_EQ(0, stats(d).active_workers);
	ASSERT_EQ(8, dpk_distributor_returned_pkts(d, ret, 16));
	ASSERT_IDS(ret, 8, 0);
	/* New packets wait behind them. */
	ASSERT_EQ(0, dpk_distributor_process(d, pkts, 1));

	/* The worker comes back and gets them, in order. */
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(4, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_IDS(got, 4, 8);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 4));
	ASSERT_EQ(4, dpk_distributor_flush(d));            /* four were in flight */
	ASSERT_EQ(0, dpk_distributor_poll_pkt(d, 0, got)); /* the flush's empty hand-off */
	ASSERT_EQ(4, dpk_distributor_returned_pkts(d, ret, 16));
	ASSERT_IDS(ret, 4, 8);
	ASSERT_EQ(0, stats(d).in_flight);

	for (unsigned i = 0; i < 12; i++)
		dpk_packet_free(pkts[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

static void return_pkt_from_a_worker_not_taking_part(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(2, DPK_DISTRIBUTOR_SINGLE);
	struct dpk_packet *p = mk(pp, 1, 42), *got[1];

	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 1, &p, 1));
	/* Until the distributor has taken it in, the line is not the worker's. */
	ASSERT_EQ(-EBUSY, dpk_distributor_return_pkt(d, 1, &p, 1));
	ASSERT_EQ(-EBUSY, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(1, dpk_distributor_returned_pkts(d, got, 1));
	ASSERT_TRUE(got[0] == p);
	ASSERT_EQ(0, stats(d).active_workers);
	ASSERT_EQ(1, stats(d).returned);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 1, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(1, stats(d).active_workers);

	dpk_packet_free(p);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* ---- flush, returns ---------------------------------------------------------------- */

static void flush_wakes_waiting_workers(void)
{
	struct dpk_distributor *d = make(3, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *got[8];

	ASSERT_EQ(0, dpk_distributor_flush(d)); /* nobody takes part */
	ASSERT_EQ(0, stats(d).handoffs);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 2, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_flush(d));
	ASSERT_EQ(0, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(0, dpk_distributor_poll_pkt(d, 2, got));
	ASSERT_EQ(2, stats(d).handoffs);
	ASSERT_EQ(2, stats(d).active_workers);
	/* After the empty hand-off the workers may leave. */
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 2, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(0, stats(d).active_workers);
	dpk_distributor_free(d);
}

static void clear_returns_drops_them(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(1, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *pkts[5], *got[8];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 5; i++)
		pkts[i] = mk(pp, i, i);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(5, dpk_distributor_process(d, pkts, 5));
	ASSERT_EQ(5, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 5));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(5, stats(d).returns);
	ASSERT_EQ(5, dpk_distributor_clear_returns(d));
	ASSERT_EQ(0, stats(d).returns);
	ASSERT_EQ(0, dpk_distributor_returned_pkts(d, got, 8));
	ASSERT_EQ(0, dpk_distributor_clear_returns(d));
	ASSERT_EQ(5, stats(d).returned); /* they were returned, then dropped */

	for (unsigned i = 0; i < 5; i++)
		dpk_packet_free(pkts[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* One worker (id 0) working and the returns read, while process() sends the rest of
 * @p total from @p sent on, until nothing is in flight; returns the count read in all. */
static unsigned work_and_read_all(struct dpk_distributor *d, struct dpk_packet **pkts,
                                  unsigned sent, struct dpk_packet **back, unsigned nback,
                                  unsigned total)
{
	struct dpk_packet *got[8];
	int n;

	while (nback < total) {
		unsigned before = nback;

		n = dpk_distributor_process(d, pkts + sent, total - sent);
		ASSERT_GE(n, 0);
		sent += (unsigned)n;
		n = dpk_distributor_poll_pkt(d, 0, got);
		if (n > 0) {
			ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, (unsigned)n));
		} else {
			ASSERT_EQ(-EAGAIN, n);
		}
		if (sent == total && stats(d).in_flight > 0)
			ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
		n = dpk_distributor_returned_pkts(d, back + nback, total - nback);
		ASSERT_GE(n, 0);
		nback += (unsigned)n;
		ASSERT_TRUE(nback > before || n == 0);
		if (sent == total && stats(d).in_flight == 0 && stats(d).returns == 0)
			break;
	}
	return nback;
}

/*
 * Fill the returns buffer without reading it: the worker's next returns wait in its line
 * (reported, flush refuses with -ENOBUFS), and once the buffer is read every packet comes
 * back exactly once, in order.
 */
static void full_returns_wait_and_nothing_is_lost(void)
{
	const unsigned total = DPK_DISTRIBUTOR_RETURNS + 64;
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(1, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet **pkts = calloc(total, sizeof(*pkts));
	struct dpk_packet **back = calloc(total, sizeof(*back));
	struct dpk_packet *got[8];
	struct dpk_distributor_stats st;
	unsigned sent = 0, nback = 0;
	int n;

	ASSERT_NOT_NULL(pp);
	ASSERT_NOT_NULL(pkts);
	ASSERT_NOT_NULL(back);
	for (unsigned i = 0; i < total; i++)
		pkts[i] = mk(pp, i % 5, i);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));

	/* Feed and work without reading returns until the worker stops getting answers. */
	for (;;) {
		n = dpk_distributor_process(d, pkts + sent, total - sent);
		ASSERT_GE(n, 0);
		sent += (unsigned)n;
		n = dpk_distributor_poll_pkt(d, 0, got);
		if (n == -EAGAIN)
			break;
		ASSERT_GT(n, 0);
		ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, (unsigned)n));
	}
	st = stats(d);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS, st.returns);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS, st.returned);
	ASSERT_EQ(1, st.returns_full);
	ASSERT_EQ(1, st.blocked_workers);
	ASSERT_TRUE(dpk_distributor_returns_blocked(d));
	/* The waiting request's hand-off (8) and a full backlog (8) are in flight. */
	ASSERT_EQ(16, st.in_flight);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS + 16, sent);
	ASSERT_EQ(0, dpk_distributor_process(d, pkts + sent, total - sent));
	ASSERT_EQ(-ENOBUFS, dpk_distributor_flush(d));
	ASSERT_EQ(1, stats(d).returns_full); /* counted once per waiting request */
	ASSERT_EQ(-EAGAIN, dpk_distributor_poll_pkt(d, 0, got));

	/* Read a little: the waiting returns go in, and the worker is answered. */
	n = dpk_distributor_returned_pkts(d, back, 8);
	ASSERT_EQ(8, n);
	nback += 8;
	ASSERT_TRUE(dpk_distributor_returns_blocked(d)); /* until process() looks again */
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_FALSE(dpk_distributor_returns_blocked(d));
	ASSERT_EQ(0, stats(d).blocked_workers);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS, stats(d).returns);

	/* Now read everything while the rest goes through. */
	nback = work_and_read_all(d, pkts, sent, back, nback, total);
	ASSERT_EQ(total, nback);
	ASSERT_IDS(back, total, 0);
	st = stats(d);
	ASSERT_EQ(total, st.distributed);
	ASSERT_EQ(total, st.returned);
	ASSERT_EQ(1, st.returns_full);
	ASSERT_EQ(0, st.in_flight);
	ASSERT_EQ(0, dpk_distributor_flush(d));

	for (unsigned i = 0; i < total; i++)
		dpk_packet_free(pkts[i]);
	ASSERT_EQ(0, in_use(pp));
	free(pkts);
	free(back);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* ---- two distributors ---------------------------------------------------------------- */

#define SCRIPT_ROUNDS 40
#define SCRIPT_BATCH  6

/* A scripted run, one round per call, recording which worker got each packet. */
struct script {
	struct dpk_distributor *d;
	struct dpk_packet_pool *pp;
	uint32_t base; /* ids of this run start here */
	uint32_t next; /* next id, relative to base */
	struct dpk_packet *unsent[2 * SCRIPT_ROUNDS * SCRIPT_BATCH];
	unsigned nunsent;
	struct dpk_packet *held[2][8];
	int nheld[2];
	uint8_t who[2 * SCRIPT_ROUNDS * SCRIPT_BATCH]; /* worker + 1 per id */
};

static void script_round(struct script *s, unsigned round)
{
	struct dpk_packet *out[16];
	int n;

	for (unsigned i = 0; i < SCRIPT_BATCH; i++) {
		uint32_t id = s->next++;

		s->unsent[s->nunsent++] = mk(s->pp, (id * 7 + round) % 29, s->base + id);
	}
	n = dpk_distributor_process(s->d, s->unsent, s->nunsent);
	EXPECT_GE(n, 0);
	if (n > 0) {
		memmove(s->unsent, s->unsent + n, (s->nunsent - (unsigned)n) * sizeof(*s->unsent));
		s->nunsent -= (unsigned)n;
	}
	for (unsigned w = 0; w < 2; w++) {
		if (s->nheld[w] >= 0 && (round + w) % 3 != 0) {
			EXPECT_EQ(0, dpk_distributor_request_pkt(s->d, w, s->held[w],
			                                         (unsigned)s->nheld[w]));
			s->nheld[w] = -1;
		}
		if (s->nheld[w] < 0) {
			n = dpk_distributor_poll_pkt(s->d, w, s->held[w]);
			if (n >= 0) {
				s->nheld[w] = n;
				for (int i = 0; i < n; i++) {
					uint32_t id = id_of(s->held[w][i]);

					if (id < s->base || id >= s->base + s->next) {
						dpk_test_fail(__FILE__, __LINE__,
						              "id %u is not of this distributor",
						              id);
						continue;
					}
					s->who[id - s->base] = (uint8_t)(w + 1);
				}
			}
		}
	}
	while ((n = dpk_distributor_returned_pkts(s->d, out, 16)) > 0)
		for (int i = 0; i < n; i++) {
			uint32_t id = id_of(out[i]);

			EXPECT_TRUE(id >= s->base && id < s->base + s->next);
			dpk_packet_free(out[i]);
		}
}

static void script_start(struct script *s, struct dpk_packet_pool *pp, uint32_t base)
{
	memset(s, 0, sizeof(*s));
	s->d = make(2, DPK_DISTRIBUTOR_BURST);
	s->pp = pp;
	s->base = base;
	s->nheld[0] = s->nheld[1] = 0;
}

/* Send the rest and work until every packet is back (and freed). */
static void script_end(struct script *s)
{
	struct dpk_packet *out[16];
	unsigned guard = 0;
	int n;

	while (s->nunsent > 0 || stats(s->d).in_flight > 0) {
		if (++guard > 100000) {
			dpk_test_fail(__FILE__, __LINE__, "script does not drain");
			break;
		}
		n = dpk_distributor_process(s->d, s->unsent, s->nunsent);
		if (n > 0) {
			memmove(s->unsent, s->unsent + n,
			        (s->nunsent - (unsigned)n) * sizeof(*s->unsent));
			s->nunsent -= (unsigned)n;
		}
		for (unsigned w = 0; w < 2; w++) {
			if (s->nheld[w] >= 0) {
				EXPECT_EQ(0, dpk_distributor_request_pkt(s->d, w, s->held[w],
				                                         (unsigned)s->nheld[w]));
				s->nheld[w] = -1;
			} else {
				s->nheld[w] = dpk_distributor_poll_pkt(s->d, w, s->held[w]);
				if (s->nheld[w] == -EAGAIN)
					s->nheld[w] = -1;
			}
		}
		while ((n = dpk_distributor_returned_pkts(s->d, out, 16)) > 0)
			for (int i = 0; i < n; i++)
				dpk_packet_free(out[i]);
	}
	EXPECT_EQ(s->next, stats(s->d).returned);
	dpk_distributor_free(s->d);
}

/* Two distributors driven in turns make exactly the choices one makes alone: no state
 * (such as a round-robin cursor) is shared, and no packet crosses over. */
static void two_distributors_do_not_interfere(void)
{
	struct dpk_packet_pool *pp = make_pool();
	static struct script alone, one, two;

	ASSERT_NOT_NULL(pp);
	script_start(&alone, pp, 0);
	for (unsigned r = 0; r < SCRIPT_ROUNDS; r++)
		script_round(&alone, r);
	script_start(&one, pp, 0);
	script_start(&two, pp, 100000);
	for (unsigned r = 0; r < SCRIPT_ROUNDS; r++) {
		script_round(&one, r);
		script_round(&two, r);
		script_round(&two, r); /* the other one moves on in between */
	}
	for (unsigned i = 0; i < SCRIPT_ROUNDS * SCRIPT_BATCH; i++)
		ASSERT_EQ(alone.who[i], one.who[i]);
	ASSERT_GT(stats(one.d).distributed, 0);
	ASSERT_GT(wstats(one.d, 0).handled, 0);
	ASSERT_GT(wstats(one.d, 1).handled, 0);
	script_end(&alone);
	script_end(&one);
	script_end(&two);
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

/* ---- threads ------------------------------------------------------------------------- */

#define T_DISTS   2
#define T_WORKERS 2
#define T_PACKETS 1200u
#define T_FLOWS   13u

struct tworker {
	struct dpk_distributor *d;
	unsigned w;
	uint32_t dist_id;
	atomic_bool *stop;
	unsigned received;
};

/* Ask for packets: worker 0 blocks in get_pkt(), the others request and poll, yielding
 * the CPU while they wait (the test runs more threads than there are CPUs). */
static int tworker_get(struct tworker *t, struct dpk_packet **pkts, unsigned nold)
{
	int n;

	if (t->w == 0)
		return dpk_distributor_get_pkt(t->d, t->w, pkts, pkts, nold);
	n = dpk_distributor_request_pkt(t->d, t->w, pkts, nold);
	if (n < 0)
		return n;
	while ((n = dpk_distributor_poll_pkt(t->d, t->w, pkts)) == -EAGAIN)
		sched_yield();
	return n;
}

static void *tworker_main(void *arg)
{
	struct tworker *t = arg;
	struct dpk_packet *pkts[8];
	int n = 0;

	for (;;) {
		n = tworker_get(t, pkts, (unsigned)n);
		EXPECT_GE(n, 0);
		if (n < 0)
			break;
		for (int i = 0; i < n; i++)
			EXPECT_EQ(t->dist_id, id_of(pkts[i]) >> 24);
		t->received += (unsigned)n;
		/* The stop flag is set before the flush that ends in empty hand-offs. */
		if (n == 0 && atomic_load_explicit(t->stop, memory_order_relaxed))
			break;
	}
	EXPECT_EQ(0, dpk_distributor_return_pkt(t->d, t->w, NULL, 0));
	return NULL;
}

/* Per distributor: packets sent and what came back. */
struct tdist {
	struct dpk_distributor *d;
	struct dpk_packet **pkts;
	unsigned sent, back;
	uint32_t last[T_FLOWS]; /* last id returned per flow, + 1 */
};

static void tdist_collect(struct tdist *t, uint32_t dist_id)
{
	struct dpk_packet *out[64];
	int n;

	while ((n = dpk_distributor_returned_pkts(t->d, out, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t id = id_of(out[i]);
			uint32_t flow = dpk_packet_flow_tag(out[i]);

			EXPECT_EQ(dist_id, id >> 24);
			if (flow >= T_FLOWS) {
				EXPECT_LT(flow, T_FLOWS);
				continue;
			}
			EXPECT_GT(id + 1, t->last[flow]); /* per-flow order, no duplicate */
			t->last[flow] = id + 1;
			dpk_packet_free(out[i]);
		}
		t->back += (unsigned)n;
	}
}

/*
 * Two distributors at once, each with two worker threads blocking in get_pkt(), driven by
 * this thread in turns; then flush, stop and leave. Every packet comes back once, to its
 * own distributor, in per-flow order.
 */
static void threads_two_distributors_get_pkt_and_flush(void)
{
	struct dpk_packet_pool *pp = make_pool();
	static struct tdist td[T_DISTS];
	static struct tworker tw[T_DISTS][T_WORKERS];
	pthread_t th[T_DISTS][T_WORKERS];
	atomic_bool stop;
	bool more = true;

	ASSERT_NOT_NULL(pp);
	atomic_init(&stop, false);
	memset(td, 0, sizeof(td));
	for (unsigned k = 0; k < T_DISTS; k++) {
		td[k].d = make(T_WORKERS, k == 0 ? DPK_DISTRIBUTOR_BURST : DPK_DISTRIBUTOR_SINGLE);
		td[k].pkts = calloc(T_PACKETS, sizeof(struct dpk_packet *));
		ASSERT_NOT_NULL(td[k].pkts);
		for (unsigned w = 0; w < T_WORKERS; w++) {
			tw[k][w] = (struct tworker){td[k].d, w, k + 1, &stop, 0};
			ASSERT_EQ(0, pthread_create(&th[k][w], NULL, tworker_main, &tw[k][w]));
		}
	}
	/* Packets are made as they are sent, so the pool never runs dry. */
	while (more) {
		more = false;
		for (unsigned k = 0; k < T_DISTS; k++) {
			struct tdist *t = &td[k];
			unsigned upto = t->sent + 16 < T_PACKETS ? t->sent + 16 : T_PACKETS;
			int n;

			for (unsigned i = t->sent; i < upto; i++)
				if (t->pkts[i] == NULL)
					t->pkts[i] = mk(pp, i % T_FLOWS, (k + 1) << 24 | i);
			n = dpk_distributor_process(t->d, t->pkts + t->sent, upto - t->sent);
			ASSERT_GE(n, 0);
			t->sent += (unsigned)n;
			tdist_collect(t, k + 1);
			more |= t->sent < T_PACKETS;
		}
	}
	atomic_store_explicit(&stop, true, memory_order_relaxed);
	for (unsigned k = 0; k < T_DISTS; k++) {
		int rc;

		do {
			rc = dpk_distributor_flush(td[k].d);
			tdist_collect(&td[k], k + 1);
		} while (rc == -ENOBUFS);
		ASSERT_GE(rc, 0);
	}
	for (unsigned k = 0; k < T_DISTS; k++) {
		/* Take the workers' leaves in; a worker that joined late gets another flush. */
		while (stats(td[k].d).active_workers > 0) {
			ASSERT_GE(dpk_distributor_flush(td[k].d), 0);
			tdist_collect(&td[k], k + 1);
		}
		for (unsigned w = 0; w < T_WORKERS; w++)
			pthread_join(th[k][w], NULL);
		ASSERT_EQ(0, dpk_distributor_process(td[k].d, NULL, 0));
		tdist_collect(&td[k], k + 1);
		ASSERT_EQ(T_PACKETS, td[k].back);
		ASSERT_EQ(T_PACKETS, tw[k][0].received + tw[k][1].received);
		ASSERT_EQ(T_PACKETS, stats(td[k].d).returned);
		ASSERT_EQ(0, stats(td[k].d).in_flight);
		free(td[k].pkts);
		dpk_distributor_free(td[k].d);
	}
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

/* ---- a random run against a model ---------------------------------------------------- */

#define M_WORKERS 5u
#define M_FLOWS   40u
#define M_STEPS   48000u
#define M_PHASE   8000u /* steps reading returns, then as many not reading them */
#define M_MAXPKT  30000u

struct model {
	struct dpk_distributor *d;
	struct dpk_packet_pool *pp;
	uint64_t rng;
	uint32_t next_seq[M_FLOWS];  /* per flow: next sequence number to send */
	uint32_t next_ret[M_FLOWS];  /* per flow: next sequence number to come back */
	uint32_t last_recv[M_FLOWS]; /* per flow: last sequence a worker got, + 1 */
	unsigned owner[M_FLOWS];     /* worker holding the flow, or NONE */
	unsigned owner_count[M_FLOWS];
	struct dpk_packet *unsent[64];
	unsigned nunsent;
	enum { M_OUT, M_REQ, M_HOLD } st[M_WORKERS];
	struct dpk_packet *held[M_WORKERS][8];
	unsigned nheld[M_WORKERS];
	unsigned made, back;
};

static uint32_t seq_of(const struct dpk_packet *p)
{
	return id_of(p);
}

static void model_hold(struct model *m, unsigned w, int n)
{
	m->st[w] = M_HOLD;
	m->nheld[w] = (unsigned)n;
	for (int i = 0; i < n; i++) {
		uint32_t f = dpk_packet_flow_tag(m->held[w][i]);
		uint32_t s = seq_of(m->held[w][i]);

		if (m->owner[f] != NONE && m->owner[f] != w)
			dpk_test_fail(__FILE__, __LINE__, "flow %u on workers %u and %u", f,
			              m->owner[f], w);
		m->owner[f] = w;
		m->owner_count[f]++;
		if (s + 1 <= m->last_recv[f])
			dpk_test_fail(__FILE__, __LINE__, "flow %u: got %u after %u", f, s,
			              m->last_recv[f] - 1);
		m->last_recv[f] = s + 1;
	}
}

static void model_release(struct model *m, unsigned w)
{
	for (unsigned i = 0; i < m->nheld[w]; i++) {
		uint32_t f = dpk_packet_flow_tag(m->held[w][i]);

		if (--m->owner_count[f] == 0)
			m->owner[f] = NONE;
	}
}

static void model_collect(struct model *m)
{
	struct dpk_packet *out[32];
	int n;

	while ((n = dpk_distributor_returned_pkts(m->d, out, 32)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t f = dpk_packet_flow_tag(out[i]);
			uint32_t s = seq_of(out[i]);

			if (s != m->next_ret[f])
				dpk_test_fail(__FILE__, __LINE__,
				              "flow %u: returned %u, expected %u", f, s,
				              m->next_ret[f]);
			m->next_ret[f] = s + 1;
			dpk_packet_free(out[i]);
		}
		m->back += (unsigned)n;
	}
}

static void model_send(struct model *m, unsigned k)
{
	int n;

	while (k-- > 0 && m->nunsent < 64 && m->made < M_MAXPKT) {
		uint64_t x = dpk_test_rand(&m->rng);
		/* Skewed: a quarter of the packets are of flow 0 or 1. */
		uint32_t f = (x & 3) == 0 ? (uint32_t)(x >> 8) % 2 : (uint32_t)(x >> 8) % M_FLOWS;

		m->unsent[m->nunsent++] = mk(m->pp, f, m->next_seq[f]++);
		m->made++;
	}
	n = dpk_distributor_process(m->d, m->unsent, m->nunsent);
	if (n < 0) {
		EXPECT_GE(n, 0);
		return;
	}
	memmove(m->unsent, m->unsent + n, (m->nunsent - (unsigned)n) * sizeof(*m->unsent));
	m->nunsent -= (unsigned)n;
}

static void model_worker_step(struct model *m, unsigned w, uint64_t x)
{
	int n;

	switch (m->st[w]) {
	case M_OUT:
		if (x % 4 == 0 && dpk_distributor_request_pkt(m->d, w, NULL, 0) == 0)
			m->st[w] = M_REQ;
		break;
	case M_REQ:
		n = dpk_distributor_poll_pkt(m->d, w, m->held[w]);
		if (n >= 0)
			model_hold(m, w, n);
		else
			EXPECT_EQ(-EAGAIN, n);
		break;
	case M_HOLD:
		model_release(m, w);
		if (x % 16 == 0) {
			EXPECT_EQ(0, dpk_distributor_return_pkt(m->d, w, m->held[w], m->nheld[w]));
			m->st[w] = M_OUT;
		} else {
			EXPECT_EQ(0, dpk_distributor_request_pkt(m->d, w, m->held[w], m->nheld[w]));
			m->st[w] = M_REQ;
		}
		m->nheld[w] = 0;
		break;
	}
}

/* Drain: every worker takes part and hands back what it holds. */
static void model_drain_step(struct model *m, unsigned w)
{
	int n;

	switch (m->st[w]) {
	case M_OUT:
		if (dpk_distributor_request_pkt(m->d, w, NULL, 0) == 0)
			m->st[w] = M_REQ;
		break;
	case M_REQ:
		n = dpk_distributor_poll_pkt(m->d, w, m->held[w]);
		if (n >= 0)
			model_hold(m, w, n);
		break;
	case M_HOLD:
		model_release(m, w);
		EXPECT_EQ(0, dpk_distributor_request_pkt(m->d, w, m->held[w], m->nheld[w]));
		m->st[w] = M_REQ;
		m->nheld[w] = 0;
		break;
	}
}

static void model_run(enum dpk_distributor_mode mode)
{
	static struct model m;
	unsigned guard = 0;

	memset(&m, 0, sizeof(m));
	m.pp = make_pool();
	ASSERT_NOT_NULL(m.pp);
	m.d = make(M_WORKERS, mode);
	m.rng = dpk_test_seed() ^ (uint64_t)mode;
	for (unsigned f = 0; f < M_FLOWS; f++)
		m.owner[f] = NONE;
	for (unsigned step = 0; step < M_STEPS; step++) {
		uint64_t x = dpk_test_rand(&m.rng);

		switch (x % 8) {
		case 0:
		case 1:
			model_send(&m, (unsigned)(x >> 8) % 13);
			break;
		case 2:
			/* Returns are read now and then in one phase, never in the next, so
			 * the buffer fills up and workers wait for room. */
			if ((step / M_PHASE) % 2 == 0 && (x >> 8) % 8 == 0)
				model_collect(&m);
			break;
		default:
			model_worker_step(&m, (unsigned)(x >> 8) % M_WORKERS, x >> 16);
			break;
		}
	}
	/* Drain: every worker joins and works until everything is back. */
	while (m.back < m.made) {
		ASSERT_LT(guard++, 1000000u);
		model_send(&m, 0);
		for (unsigned w = 0; w < M_WORKERS; w++)
			model_drain_step(&m, w);
		model_collect(&m);
	}
	ASSERT_EQ(0, m.nunsent);
	ASSERT_EQ(0, stats(m.d).in_flight);
	ASSERT_EQ(m.made, stats(m.d).distributed);
	ASSERT_EQ(m.made, stats(m.d).returned);
	for (unsigned f = 0; f < M_FLOWS; f++)
		ASSERT_EQ(m.next_seq[f], m.next_ret[f]);
	ASSERT_EQ(0, in_use(m.pp));
	ASSERT_GT(stats(m.d).returns_full, 0);
	dpk_test_note("%s: %u packets, %" PRIu64 " hand-offs, returns full %" PRIu64 " times",
	              mode == DPK_DISTRIBUTOR_BURST ? "burst" : "single", m.made,
	              stats(m.d).handoffs, stats(m.d).returns_full);
	dpk_distributor_free(m.d);
	dpk_packet_pool_free(m.pp);
}

static void model_burst(void)
{
	model_run(DPK_DISTRIBUTOR_BURST);
}

static void model_single(void)
{
	model_run(DPK_DISTRIBUTOR_SINGLE);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(create_rejects_bad_arguments),
        DPK_TEST(create_and_free),
        DPK_TEST(init_in_caller_memory),
        DPK_TEST(init_rejects_bad_arguments),
        DPK_TEST(distributor_calls_reject_bad_input),
        DPK_TEST(worker_calls_reject_bad_input),
        DPK_TEST(burst_one_worker_keeps_order),
        DPK_TEST(single_one_worker_hands_one_at_a_time),
        DPK_TEST(burst_fills_one_waiting_worker_then_the_next),
        DPK_TEST(burst_keeps_a_flow_on_its_worker),
        DPK_TEST(burst_flow_stays_when_a_second_worker_joins),
        DPK_TEST(single_keeps_a_flow_and_waits_for_a_worker),
        DPK_TEST(sixty_four_workers),
        DPK_TEST(leaving_worker_backlog_goes_to_another),
        DPK_TEST(last_worker_leaving_keeps_its_backlog),
        DPK_TEST(return_pkt_from_a_worker_not_taking_part),
        DPK_TEST(flush_wakes_waiting_workers),
        DPK_TEST(clear_returns_drops_them),
        DPK_TEST(full_returns_wait_and_nothing_is_lost),
        DPK_TEST(two_distributors_do_not_interfere),
        DPK_TEST(threads_two_distributors_get_pkt_and_flush),
        DPK_TEST(model_burst),
        DPK_TEST(model_single),
};

DPK_TEST_MAIN(cases)
