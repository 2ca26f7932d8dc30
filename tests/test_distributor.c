/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet distributor: creation and every call's errors, one worker, several (flow
 * affinity and order), and workers leaving. Most cases drive the workers from the test
 * thread through the non-blocking request/poll calls, so what each worker receives is exact. */
#include "distributor_fixture.h"

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
	EXPECT_EQ(-EINVAL,
	          dpk_distributor_memsize(DPK_DISTRIBUTOR_WORKERS_MAX + 1, DPK_DISTRIBUTOR_BURST));
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
};

DPK_TEST_MAIN(cases)
