/* SPDX-License-Identifier: BSD-3-Clause */
/* The ring on one thread: every call and sync mode in FIFO order, capacities, full and
 * empty edges, the counts and queries, reset and dump. */
#define _POSIX_C_SOURCE 200809L
#include "ring_modes.h"

static void fifo_sp_sc_bulk(void)
{
	traffic_all_sizes(&sp_bulk, 0);
}
static void fifo_sp_sc_burst(void)
{
	traffic_all_sizes(&sp_burst, 0);
}
static void fifo_sp_sc_single(void)
{
	traffic_all_sizes(&sp_one, 0);
}
static void fifo_mp_mc_bulk(void)
{
	traffic_all_sizes(&mp_bulk, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
}
static void fifo_mp_mc_burst(void)
{
	traffic_all_sizes(&mp_burst, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
}
static void fifo_mp_mc_single(void)
{
	traffic_all_sizes(&mp_one, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
}
static void fifo_rts_bulk(void)
{
	traffic_all_sizes(&rts_bulk, RTS);
}
static void fifo_rts_burst(void)
{
	traffic_all_sizes(&rts_burst, RTS);
}
static void fifo_rts_single(void)
{
	traffic_all_sizes(&rts_one, RTS);
}
static void fifo_hts_bulk(void)
{
	traffic_all_sizes(&hts_bulk, HTS);
}
static void fifo_hts_burst(void)
{
	traffic_all_sizes(&hts_burst, HTS);
}
static void fifo_hts_single(void)
{
	traffic_all_sizes(&hts_one, HTS);
}

/* RTS with every head-tail distance from none to the capacity keeps one FIFO. */
static void fifo_rts_htd_max(void)
{
	static const unsigned max[] = {0, 1, 7, 62, 63};

	for (unsigned i = 0; i < sizeof(max) / sizeof(max[0]); i++) {
		struct dpk_ring *r = dpk_ring_create(8, SLOTS, RTS);

		ASSERT_NOT_NULL(r);
		ASSERT_EQ(0, dpk_ring_set_prod_htd_max(r, max[i]));
		ASSERT_EQ(0, dpk_ring_set_cons_htd_max(r, max[i]));
		run_traffic(r, i % 2 ? &rts_bulk : &rts_burst, 300, 77 + i);
		dpk_ring_free(r);
	}
}

static void fifo_default_bulk(void)
{
	traffic_default_modes(&df_bulk);
}
static void fifo_default_burst(void)
{
	traffic_default_modes(&df_burst);
}
static void fifo_default_single(void)
{
	traffic_default_modes(&df_one);
}

/* Calls of different modes one after another on one ring keep one FIFO. */
static void fifo_modes_interleaved(void)
{
	struct dpk_ring *r = dpk_ring_create(16, SLOTS, 0);
	unsigned char in[8 * 16], out[8 * 16];
	uint32_t next_in = 0, next_out = 0;

	ASSERT_NOT_NULL(r);
	for (unsigned round = 0; round < 300; round++) {
		unsigned n = 1 + round % 8, got, av;

		fill(in, 16, next_in, n);
		switch (round % 3) {
		case 0:
			got = dpk_ring_sp_enqueue_bulk(r, in, n, NULL);
			break;
		case 1:
			got = dpk_ring_mp_enqueue_burst(r, in, n, NULL);
			break;
		default:
			got = dpk_ring_enqueue_bulk(r, in, n, NULL);
			break;
		}
		ASSERT_EQ(n, got);
		next_in += n;
		n = 1 + (round * 7) % 8;
		got = (round % 2) ? dpk_ring_sc_dequeue_burst(r, out, n, &av)
		                  : dpk_ring_mc_dequeue_burst(r, out, n, &av);
		ASSERT_TRUE(holds(out, 16, next_out, got));
		next_out += got;
		ASSERT_EQ(next_in - next_out, av);
	}
	dpk_ring_free(r);
}

/* Capacity is size - 1 for a power-of-two count, exactly the count with EXACT_SZ. */
static void capacity_power_of_two(void)
{
	struct dpk_ring *r = dpk_ring_create(8, 16, 0);
	uint64_t v[16] = {0};

	ASSERT_NOT_NULL(r);
	ASSERT_EQ(16, dpk_ring_size(r));
	ASSERT_EQ(15, dpk_ring_capacity(r));
	ASSERT_EQ(15, dpk_ring_sp_enqueue_burst(r, v, 16, NULL));
	ASSERT_TRUE(dpk_ring_full(r));
	dpk_ring_free(r);
}

static void capacity_exact(void)
{
	static const struct {
		unsigned count, size;
	} want[] = {{1, 2}, {3, 4}, {4, 8}, {100, 128}, {1000, 1024}, {1024, 2048}};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct dpk_ring *r = dpk_ring_create(4, want[i].count, DPK_RING_F_EXACT_SZ);
		uint32_t v = 7;
		unsigned n = 0;

		ASSERT_NOT_NULL(r);
		ASSERT_EQ(want[i].size, dpk_ring_size(r));
		ASSERT_EQ(want[i].count, dpk_ring_capacity(r));
		while (dpk_ring_mp_enqueue(r, &v) == 0)
			n++;
		ASSERT_EQ(want[i].count, n);
		ASSERT_TRUE(dpk_ring_full(r));
		ASSERT_EQ(0, dpk_ring_free_count(r));
		dpk_ring_free(r);
	}
}

/*
 * A count of 1 is a power of two, but its table of one slot would hold nothing: refused
 * without DPK_RING_F_EXACT_SZ, and with it a ring of capacity 1.
 */
static void count_one_needs_exact_size(void)
{
	ssize_t bytes = dpk_ring_memsize(8, 64, 0);
	struct dpk_ring *r;
	unsigned char *mem;
	uint64_t v = 1;

	ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, 1, 0));
	errno = 0;
	ASSERT_NULL(dpk_ring_create(8, 1, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NE('\0', dpk_last_error()[0]);
	mem = alloc_lines((size_t)bytes);
	ASSERT_NOT_NULL(mem);
	ASSERT_EQ(-EINVAL, dpk_ring_init((struct dpk_ring *)mem, 8, 1, 0));
	free(mem);

	r = dpk_ring_create(8, 1, DPK_RING_F_EXACT_SZ);
	ASSERT_NOT_NULL(r);
	ASSERT_EQ(1, dpk_ring_capacity(r));
	ASSERT_EQ(0, dpk_ring_sp_enqueue(r, &v));
	ASSERT_TRUE(dpk_ring_full(r));
	ASSERT_EQ(-ENOBUFS, dpk_ring_mp_enqueue(r, &v));
	ASSERT_EQ(0, dpk_ring_dequeue(r, &v));
	ASSERT_EQ(-ENOENT, dpk_ring_dequeue(r, &v));
	dpk_ring_free(r);
}

/* At the full and empty edges every kind of call fails or moves nothing, in both modes. */
static void full_and_empty_edges(void)
{
	for (int mp = 0; mp < 2; mp++) {
		struct dpk_ring *r =
		        dpk_ring_create(8, SLOTS, mp ? 0 : DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
		uint64_t buf[SLOTS];
		unsigned fs, av;

		ASSERT_NOT_NULL(r);
		ASSERT_TRUE(dpk_ring_empty(r));
		ASSERT_FALSE(dpk_ring_full(r));
		ASSERT_EQ(-ENOENT, dpk_ring_sc_dequeue(r, buf));
		ASSERT_EQ(-ENOENT, dpk_ring_mc_dequeue(r, buf));
		ASSERT_EQ(-ENOENT, dpk_ring_dequeue(r, buf));
		ASSERT_EQ(0, dpk_ring_dequeue_bulk(r, buf, 1, &av));
		ASSERT_EQ(0, av);
		ASSERT_EQ(0, dpk_ring_dequeue_burst(r, buf, 8, &av));
		ASSERT_EQ(0, av);

		fill((unsigned char *)buf, 8, 0, SLOTS);
		ASSERT_EQ(SLOTS - 1, dpk_ring_enqueue_bulk(r, buf, SLOTS - 1, &fs));
		ASSERT_EQ(0, fs);
		ASSERT_TRUE(dpk_ring_full(r));
		ASSERT_FALSE(dpk_ring_empty(r));
		ASSERT_EQ(SLOTS - 1, dpk_ring_count(r));
		ASSERT_EQ(-ENOBUFS, dpk_ring_sp_enqueue(r, buf));
		ASSERT_EQ(-ENOBUFS, dpk_ring_mp_enqueue(r, buf));
		ASSERT_EQ(-ENOBUFS, dpk_ring_enqueue(r, buf));
		ASSERT_EQ(0, dpk_ring_sp_enqueue_bulk(r, buf, 1, &fs));
		ASSERT_EQ(0, fs);
		ASSERT_EQ(0, dpk_ring_mp_enqueue_burst(r, buf, 1, &fs));
		ASSERT_EQ(0, fs);
		ASSERT_EQ(SLOTS - 1, dpk_ring_count(r));

		/* One out makes room for exactly one. */
		ASSERT_EQ(0, dpk_ring_dequeue(r, buf));
		ASSERT_EQ(1, dpk_ring_enqueue_burst(r, buf, 5, &fs));
		ASSERT_EQ(0, fs);
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(SLOTS - 1, dpk_ring_dequeue_burst(r, buf, SLOTS, &av));
		ASSERT_EQ(0, av);
		ASSERT_TRUE(holds((unsigned char *)buf, 8, 1, SLOTS - 2));
		ASSERT_TRUE(dpk_ring_empty(r));
		dpk_ring_free(r);
	}
}

/* n = 0 returns 0 and changes nothing, in every mode, on an empty and a partly full ring. */
static void zero_n_moves_nothing(void)
{
	struct dpk_ring *r = dpk_ring_create(8, SLOTS, 0);
	uint64_t buf[4] = {1, 2, 3, 4};
	unsigned fs = ~0u, av = ~0u;

	ASSERT_NOT_NULL(r);
	for (int round = 0; round < 2; round++) {
		unsigned held = dpk_ring_count(r);

		ASSERT_EQ(0, dpk_ring_sp_enqueue_bulk(r, buf, 0, &fs));
		ASSERT_EQ(SLOTS - 1 - held, fs);
		ASSERT_EQ(0, dpk_ring_mp_enqueue_bulk(r, buf, 0, &fs));
		ASSERT_EQ(SLOTS - 1 - held, fs);
		ASSERT_EQ(0, dpk_ring_enqueue_bulk(r, buf, 0, NULL));
		ASSERT_EQ(0, dpk_ring_sp_enqueue_burst(r, buf, 0, NULL));
		ASSERT_EQ(0, dpk_ring_mp_enqueue_burst(r, buf, 0, NULL));
		ASSERT_EQ(0, dpk_ring_enqueue_burst(r, buf, 0, NULL));
		ASSERT_EQ(0, dpk_ring_sc_dequeue_bulk(r, buf, 0, &av));
		ASSERT_EQ(held, av);
		ASSERT_EQ(0, dpk_ring_mc_dequeue_bulk(r, buf, 0, &av));
		ASSERT_EQ(held, av);
		ASSERT_EQ(0, dpk_ring_dequeue_bulk(r, buf, 0, NULL));
		ASSERT_EQ(0, dpk_ring_sc_dequeue_burst(r, buf, 0, NULL));
		ASSERT_EQ(0, dpk_ring_mc_dequeue_burst(r, buf, 0, NULL));
		ASSERT_EQ(0, dpk_ring_dequeue_burst(r, buf, 0, NULL));
		ASSERT_EQ(held, dpk_ring_count(r));
		ASSERT_EQ(4, dpk_ring_mp_enqueue_bulk(r, buf, 4, NULL));
	}
	/* The ring still works, in order, after all those empty calls. */
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(4, dpk_ring_mc_dequeue_bulk(r, buf, 4, NULL));
	ASSERT_EQ(1, buf[0]);
	ASSERT_EQ(4, buf[3]);
	dpk_ring_free(r);
}

/* A bulk call for more than the capacity moves nothing; a burst moves what fits. */
static void bulk_over_capacity_returns_zero(void)
{
	struct dpk_ring *r = dpk_ring_create(8, 16, 0);
	uint64_t buf[32] = {0};
	unsigned fs, av;

	ASSERT_NOT_NULL(r);
	ASSERT_EQ(0, dpk_ring_sp_enqueue_bulk(r, buf, 16, &fs));
	ASSERT_EQ(15, fs);
	ASSERT_EQ(0, dpk_ring_mp_enqueue_bulk(r, buf, 16, &fs));
	ASSERT_EQ(15, fs);
	ASSERT_EQ(0, dpk_ring_enqueue_bulk(r, buf, UINT32_MAX, NULL));
	ASSERT_EQ(0, dpk_ring_mp_enqueue_bulk(r, buf, 0x80000000u, NULL));
	ASSERT_TRUE(dpk_ring_empty(r));
	ASSERT_EQ(15, dpk_ring_mp_enqueue_burst(r, buf, 32, &fs));
	ASSERT_EQ(0, fs);
	ASSERT_EQ(0, dpk_ring_sc_dequeue_bulk(r, buf, 16, &av));
	ASSERT_EQ(15, av);
	ASSERT_EQ(0, dpk_ring_mc_dequeue_bulk(r, buf, 16, &av));
	ASSERT_EQ(15, av);
	ASSERT_EQ(0, dpk_ring_dequeue_bulk(r, buf, UINT32_MAX, NULL));
	ASSERT_EQ(15, dpk_ring_count(r));
	ASSERT_EQ(15, dpk_ring_sc_dequeue_burst(r, buf, 32, &av));
	ASSERT_EQ(0, av);
	dpk_ring_free(r);
}

/*
 * The out-parameters are exact in a quiet ring, also on the single-thread paths, whose
 * cached copy of the other side's tail lags after the other side moved.
 */
static void out_params_exact(void)
{
	struct dpk_ring *r = dpk_ring_create(8, SLOTS, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
	uint64_t buf[8] = {0};
	unsigned fs = 0, av = 0;

	ASSERT_NOT_NULL(r);
	ASSERT_EQ(5, dpk_ring_sp_enqueue_bulk(r, buf, 5, &fs));
	ASSERT_EQ(58, fs);
	ASSERT_EQ(5, dpk_ring_sc_dequeue_bulk(r, buf, 5, &av));
	ASSERT_EQ(0, av);
	/* The producer's copy still says 0 dequeued; the report must not. */
	ASSERT_EQ(1, dpk_ring_sp_enqueue_burst(r, buf, 1, &fs));
	ASSERT_EQ(62, fs);
	ASSERT_EQ(3, dpk_ring_mp_enqueue_bulk(r, buf, 3, &fs));
	ASSERT_EQ(59, fs);
	ASSERT_EQ(2, dpk_ring_enqueue_burst(r, buf, 2, &fs));
	ASSERT_EQ(57, fs);
	ASSERT_EQ(1, dpk_ring_sc_dequeue_bulk(r, buf, 1, &av));
	ASSERT_EQ(5, av);
	ASSERT_EQ(2, dpk_ring_mc_dequeue_burst(r, buf, 2, &av));
	ASSERT_EQ(3, av);
	ASSERT_EQ(3, dpk_ring_dequeue_burst(r, buf, 8, &av));
	ASSERT_EQ(0, av);
	/* Failed calls report too. */
	ASSERT_EQ(0, dpk_ring_sc_dequeue_bulk(r, buf, 1, &av));
	ASSERT_EQ(0, av);
	ASSERT_EQ(0, dpk_ring_mc_dequeue_burst(r, buf, 1, &av));
	ASSERT_EQ(0, av);
	dpk_ring_free(r);
}

/* Queries agree with each other and with the flags given. */
static void queries(void)
{
	static const unsigned flags[] = {0, DPK_RING_F_SP_ENQ, DPK_RING_F_SC_DEQ,
	                                 DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ |
	                                         DPK_RING_F_EXACT_SZ};

	for (unsigned f = 0; f < 4; f++) {
		struct dpk_ring *r = dpk_ring_create(12, 32, flags[f]);
		unsigned char buf[12 * 10] = {0};
		unsigned cap;

		ASSERT_NOT_NULL(r);
		cap = dpk_ring_capacity(r);
		ASSERT_EQ((flags[f] & DPK_RING_F_EXACT_SZ) ? 32 : 31, cap);
		ASSERT_EQ((flags[f] & DPK_RING_F_EXACT_SZ) ? 64 : 32, dpk_ring_size(r));
		ASSERT_EQ(12, dpk_ring_esize(r));
		ASSERT_EQ((flags[f] & DPK_RING_F_SP_ENQ) != 0, dpk_ring_is_sp(r));
		ASSERT_EQ((flags[f] & DPK_RING_F_SC_DEQ) != 0, dpk_ring_is_sc(r));
		ASSERT_EQ(0, dpk_ring_count(r));
		ASSERT_EQ(cap, dpk_ring_free_count(r));
		ASSERT_EQ(10, dpk_ring_enqueue_bulk(r, buf, 10, NULL));
		ASSERT_EQ(10, dpk_ring_count(r));
		ASSERT_EQ(cap - 10, dpk_ring_free_count(r));
		ASSERT_FALSE(dpk_ring_empty(r));
		ASSERT_FALSE(dpk_ring_full(r));
		dpk_ring_free(r);
	}
}

/* Reset empties the ring and puts every index back to 0. */
static void reset_empties(void)
{
	struct dpk_ring *r = dpk_ring_create(8, SLOTS, 0);
	uint64_t buf[10];

	ASSERT_NOT_NULL(r);
	fill((unsigned char *)buf, 8, 0, 10);
	ASSERT_EQ(10, dpk_ring_enqueue_bulk(r, buf, 10, NULL));
	ASSERT_EQ(3, dpk_ring_dequeue_bulk(r, buf, 3, NULL));
	dpk_ring_reset(r);
	ASSERT_EQ(0, dpk_ring_count(r));
	ASSERT_TRUE(dpk_ring_empty(r));
	ASSERT_EQ(0, atomic_load(&r->prod.head));
	ASSERT_EQ(0, (uint32_t)atomic_load(&r->cons.tail));
	ASSERT_EQ(-ENOENT, dpk_ring_sc_dequeue(r, buf));
	fill((unsigned char *)buf, 8, 100, 10);
	ASSERT_EQ(10, dpk_ring_sp_enqueue_bulk(r, buf, 10, NULL));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(10, dpk_ring_sc_dequeue_burst(r, buf, 10, NULL));
	ASSERT_TRUE(holds((unsigned char *)buf, 8, 100, 10));
	dpk_ring_free(r);
}

/* dump prints the configuration and the indices, and rejects NULL. */
static void dump_output(void)
{
	struct dpk_ring *r = dpk_ring_create(8, 16, DPK_RING_F_SP_ENQ);
	uint64_t buf[3] = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_NOT_NULL(r);
	ASSERT_EQ(3, dpk_ring_enqueue_bulk(r, buf, 3, NULL));
	ASSERT_EQ(1, dpk_ring_dequeue_bulk(r, buf, 1, NULL));
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, dpk_ring_dump(f, r));
	ASSERT_EQ(0, fclose(f));
	ASSERT_NOT_NULL(text);
	ASSERT_NOT_NULL(strstr(text, "SP/MC"));
	ASSERT_NOT_NULL(strstr(text, "esize 8, size 16, capacity 15"));
	ASSERT_NOT_NULL(strstr(text, "used 2, free 13"));
	ASSERT_NOT_NULL(strstr(text, "prod: SP, head 3, tail 3, cached cons.tail"));
	ASSERT_NOT_NULL(strstr(text, "cons: MC, head 1, tail 1, cached prod.tail"));
	free(text);
	ASSERT_EQ(-EINVAL, dpk_ring_dump(NULL, r));
	ASSERT_EQ(-EINVAL, dpk_ring_dump(stdout, NULL));
	dpk_ring_free(r);
}

/* Each side's mode, as the queries and dump report it, with RTS's htd_max. */

static const struct dpk_test_case cases[] = {
        DPK_TEST(fifo_sp_sc_bulk),
        DPK_TEST(fifo_sp_sc_burst),
        DPK_TEST(fifo_sp_sc_single),
        DPK_TEST(fifo_mp_mc_bulk),
        DPK_TEST(fifo_mp_mc_burst),
        DPK_TEST(fifo_mp_mc_single),
        DPK_TEST(fifo_rts_bulk),
        DPK_TEST(fifo_rts_burst),
        DPK_TEST(fifo_rts_single),
        DPK_TEST(fifo_hts_bulk),
        DPK_TEST(fifo_hts_burst),
        DPK_TEST(fifo_hts_single),
        DPK_TEST(fifo_rts_htd_max),
        DPK_TEST(fifo_default_bulk),
        DPK_TEST(fifo_default_burst),
        DPK_TEST(fifo_default_single),
        DPK_TEST(fifo_modes_interleaved),
        DPK_TEST(capacity_power_of_two),
        DPK_TEST(capacity_exact),
        DPK_TEST(count_one_needs_exact_size),
        DPK_TEST(full_and_empty_edges),
        DPK_TEST(zero_n_moves_nothing),
        DPK_TEST(bulk_over_capacity_returns_zero),
        DPK_TEST(out_params_exact),
        DPK_TEST(queries),
        DPK_TEST(reset_empties),
        DPK_TEST(dump_output),
};

DPK_TEST_MAIN(cases)
