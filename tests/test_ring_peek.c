/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peek and zero-copy calls on one thread: against a model of the ring's contents, at the
 * end of the table, across the 32-bit wrap of the indices, at capacity, with a stale cached
 * copy of the other side's tail, and refused on the sides that take no peek.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/ring.h>

#include "dpk_ring_test.h"
#include "dpk_test.h"
#include "ring_test_hooks.h"

#define SLOTS 64u
#define MAX_N 24u

#define ST  (DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ)
#define HTS (DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_MC_HTS_DEQ)

/* What the model expects a start to reserve. */
static unsigned expect_start(bool bulk, unsigned n, unsigned room)
{
	if (bulk)
		return n <= room ? n : 0;
	return n < room ? n : room;
}

/* Check that @p zcd describes @p m slots from index @p head on. */
static void check_spans(struct dpk_ring *r, uint32_t head, unsigned m,
                        const struct dpk_ring_zc_data *zcd)
{
	unsigned char *table = (unsigned char *)(r + 1);
	const uint32_t idx = head & (dpk_ring_size(r) - 1);
	const unsigned first = dpk_ring_size(r) - idx;

	ASSERT_EQ(m, zcd->n1 + zcd->n2);
	if (m == 0) {
		ASSERT_NULL(zcd->ptr1);
		ASSERT_NULL(zcd->ptr2);
		return;
	}
	ASSERT_TRUE(zcd->ptr1 == table + (size_t)idx * dpk_ring_esize(r));
	ASSERT_EQ(m <= first ? m : first, zcd->n1);
	if (m > first)
		ASSERT_TRUE(zcd->ptr2 == table);
	else
		ASSERT_NULL(zcd->ptr2);
}

/* Write elements first.. into the spans of @p zcd, or check that they hold them. */
static bool zc_spans_io(const struct dpk_ring_zc_data *zcd, unsigned esize, uint32_t first,
                        unsigned n, bool write)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned char *slot =
		        i < zcd->n1 ? (unsigned char *)zcd->ptr1 + (size_t)i * esize
		                    : (unsigned char *)zcd->ptr2 + (size_t)(i - zcd->n1) * esize;
		if (write)
			dpk_ring_test_fill_elem(slot, esize, first + i);
		else if (!dpk_ring_test_is(slot, esize, first + i))
			return false;
	}
	return true;
}

/* The model: the ring holds sequences next_out .. next_in - 1. */
struct model {
	struct dpk_ring *r;
	unsigned char *buf;
	uint32_t next_in, next_out;
	uint64_t rng;
};

static unsigned held(const struct model *m)
{
	return m->next_in - m->next_out;
}

/* One enqueue by peek (zc false) or zero copy, committing a random part of it. */
static void enqueue_step(struct model *m, bool zc, bool bulk, unsigned n)
{
	const unsigned esize = dpk_ring_esize(m->r), cap = dpk_ring_capacity(m->r);
	const uint32_t head = m->next_in;
	struct dpk_ring_zc_data zcd;
	unsigned fs = ~0u, got, keep;

	if (zc)
		got = bulk ? dpk_ring_enqueue_zc_bulk_start(m->r, n, &zcd, &fs)
		           : dpk_ring_enqueue_zc_burst_start(m->r, n, &zcd, &fs);
	else
		got = bulk ? dpk_ring_enqueue_bulk_start(m->r, n, &fs)
		           : dpk_ring_enqueue_burst_start(m->r, n, &fs);
	ASSERT_EQ(expect_start(bulk, n, cap - held(m)), got);
	ASSERT_EQ(cap - held(m) - got, fs);
	/* Nothing is visible to the consumer before the finish. */
	ASSERT_EQ(held(m), dpk_ring_count(m->r));
	if (got == 0)
		return;
	keep = (unsigned)(dpk_test_rand(&m->rng) % (got + 1));
	if (dpk_test_rand(&m->rng) % 4 == 0)
		keep = got;
	ASSERT_EQ(-EINVAL, zc ? dpk_ring_enqueue_zc_finish(m->r, got + 1)
	                      : dpk_ring_enqueue_finish(m->r, m->buf, got + 1));
	if (zc) {
		check_spans(m->r, head, got, &zcd);
		zc_spans_io(&zcd, esize, head, keep, true);
		ASSERT_EQ(0, dpk_ring_enqueue_zc_finish(m->r, keep));
	} else {
		dpk_ring_test_fill(m->buf, esize, head, keep);
		ASSERT_EQ(0, dpk_ring_enqueue_finish(m->r, m->buf, keep));
	}
	m->next_in += keep;
	ASSERT_EQ(held(m), dpk_ring_count(m->r));
}

/* One dequeue by peek or zero copy, taking a random part of what it saw. */
static void dequeue_step(struct model *m, bool zc, bool bulk, unsigned n)
{
	const unsigned esize = dpk_ring_esize(m->r);
	struct dpk_ring_zc_data zcd;
	unsigned av = ~0u, got, take;

	if (zc)
		got = bulk ? dpk_ring_dequeue_zc_bulk_start(m->r, n, &zcd, &av)
		           : dpk_ring_dequeue_zc_burst_start(m->r, n, &zcd, &av);
	else
		got = bulk ? dpk_ring_dequeue_bulk_start(m->r, m->buf, n, &av)
		           : dpk_ring_dequeue_burst_start(m->r, m->buf, n, &av);
	ASSERT_EQ(expect_start(bulk, n, held(m)), got);
	ASSERT_EQ(held(m) - got, av);
	if (got == 0)
		return;
	if (zc) {
		check_spans(m->r, m->next_out, got, &zcd);
		ASSERT_TRUE(zc_spans_io(&zcd, esize, m->next_out, got, false));
	} else {
		ASSERT_TRUE(dpk_ring_test_holds(m->buf, esize, m->next_out, got));
	}
	take = (unsigned)(dpk_test_rand(&m->rng) % (got + 1));
	ASSERT_EQ(-EINVAL, zc ? dpk_ring_dequeue_zc_finish(m->r, got + 1)
	                      : dpk_ring_dequeue_finish(m->r, got + 1));
	ASSERT_EQ(0, zc ? dpk_ring_dequeue_zc_finish(m->r, take)
	                : dpk_ring_dequeue_finish(m->r, take));
	m->next_out += take;
	ASSERT_EQ(held(m), dpk_ring_count(m->r));
}

/* One ordinary call of the side's mode, so peeks and plain calls interleave. */
static void plain_step(struct model *m, bool enq, unsigned n)
{
	const unsigned esize = dpk_ring_esize(m->r), cap = dpk_ring_capacity(m->r);
	const bool hts = enq ? dpk_ring_prod_sync(m->r) == DPK_RING_SYNC_MT_HTS
	                     : dpk_ring_cons_sync(m->r) == DPK_RING_SYNC_MT_HTS;
	unsigned got;

	if (enq) {
		dpk_ring_test_fill(m->buf, esize, m->next_in, n);
		got = hts ? dpk_ring_mp_hts_enqueue_burst(m->r, m->buf, n, NULL)
		          : dpk_ring_sp_enqueue_burst(m->r, m->buf, n, NULL);
		ASSERT_EQ(expect_start(false, n, cap - held(m)), got);
		m->next_in += got;
		return;
	}
	got = hts ? dpk_ring_mc_hts_dequeue_burst(m->r, m->buf, n, NULL)
	          : dpk_ring_sc_dequeue_burst(m->r, m->buf, n, NULL);
	ASSERT_EQ(expect_start(false, n, held(m)), got);
	ASSERT_TRUE(dpk_ring_test_holds(m->buf, esize, m->next_out, got));
	m->next_out += got;
}

/*
 * Random peek, zero-copy and plain calls on @p r, filling and draining in phases so the
 * ring often reaches full and empty and the indices lap the table many times.
 */
static void run_peek_traffic(struct dpk_ring *r, uint32_t start, unsigned rounds, uint64_t seed)
{
	struct model m = {r, malloc((size_t)MAX_N * dpk_ring_esize(r)), start, start, seed};

	ASSERT_NOT_NULL(m.buf);
	for (unsigned round = 0; round < rounds; round++) {
		const bool filling = (round / 16) % 2 == 0;
		const unsigned kind = (unsigned)(dpk_test_rand(&m.rng) % 5);
		const bool bulk = dpk_test_rand(&m.rng) % 2;
		unsigned n = 1 + (unsigned)(dpk_test_rand(&m.rng) % (filling ? MAX_N : MAX_N / 2));

		if (kind == 4)
			plain_step(&m, true, n);
		else
			enqueue_step(&m, kind & 1, bulk, n);
		n = 1 + (unsigned)(dpk_test_rand(&m.rng) % (filling ? MAX_N / 2 : MAX_N));
		if (kind == 3)
			plain_step(&m, false, n);
		else
			dequeue_step(&m, kind & 2, !bulk, n);
	}
	while (held(&m))
		dequeue_step(&m, false, false, MAX_N);
	ASSERT_TRUE(dpk_ring_empty(r));
	free(m.buf);
}

static const unsigned peek_flags[] = {ST, HTS, DPK_RING_F_SP_ENQ | DPK_RING_F_MC_HTS_DEQ,
                                      DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_SC_DEQ,
                                      HTS | DPK_RING_F_EXACT_SZ};

/* Every side pairing that takes peeks, with element sizes from 4 to 68 bytes. */
static void model_traffic(void)
{
	for (unsigned f = 0; f < sizeof(peek_flags) / sizeof(peek_flags[0]); f++)
		for (unsigned esize = 4; esize <= 68; esize += 16) {
			struct dpk_ring *r =
			        dpk_ring_create(esize, f == 4 ? 50 : SLOTS, peek_flags[f]);

			ASSERT_NOT_NULL(r);
			run_peek_traffic(r, 0, 400, 31 * f + esize);
			dpk_ring_free(r);
		}
}

/* Across the 32-bit wrap of the indices, from several starting points below it. */
static void model_traffic_index_wrap(void)
{
	static const uint32_t starts[] = {UINT32_MAX - 40, UINT32_MAX, UINT32_MAX - SLOTS + 3};

	for (unsigned f = 0; f < sizeof(peek_flags) / sizeof(peek_flags[0]); f++)
		for (unsigned s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
			struct dpk_ring *r = dpk_ring_create(8, SLOTS, peek_flags[f]);

			ASSERT_NOT_NULL(r);
			dpk__ring_set_indices(r, starts[s]);
			run_peek_traffic(r, starts[s], 300, starts[s] + f);
			/* The run went past the wrap. */
			ASSERT_LT((uint32_t)atomic_load(&r->prod.tail), starts[s]);
			dpk_ring_free(r);
		}
}

/*
 * A reservation that runs past the end of the table comes as two spans, for every split
 * point, with the data intact on both sides of it, and also when the split coincides
 * with the 32-bit wrap of the indices.
 */
static void zc_spans_at_table_end(void)
{
	const unsigned slots = 16, esize = 12;

	for (unsigned f = 0; f < 2; f++)
		for (uint32_t base = 0; base < 2; base++)
			for (uint32_t idx = 0; idx < slots; idx++) {
				struct dpk_ring *r = dpk_ring_create(esize, slots, f ? HTS : ST);
				const uint32_t start = (base ? UINT32_MAX - slots + 1 : 0) + idx;
				const unsigned n = slots - 1;
				struct dpk_ring_zc_data zcd;

				ASSERT_NOT_NULL(r);
				dpk__ring_set_indices(r, start);
				ASSERT_EQ(n, dpk_ring_enqueue_zc_bulk_start(r, n, &zcd, NULL));
				check_spans(r, start, n, &zcd);
				ASSERT_EQ(idx <= 1 ? 0 : idx - 1, zcd.n2);
				zc_spans_io(&zcd, esize, 1000 + idx, n, true);
				ASSERT_EQ(0, dpk_ring_enqueue_zc_finish(r, n));
				ASSERT_TRUE(dpk_ring_full(r));
				ASSERT_EQ(n, dpk_ring_dequeue_zc_bulk_start(r, n, &zcd, NULL));
				check_spans(r, start, n, &zcd);
				ASSERT_TRUE(zc_spans_io(&zcd, esize, 1000 + idx, n, false));
				ASSERT_EQ(0, dpk_ring_dequeue_zc_finish(r, n));
				ASSERT_TRUE(dpk_ring_empty(r));
				dpk_ring_free(r);
			}
}

/* At capacity: a bulk start for one more than fits reserves nothing, a burst what fits. */
static void starts_at_capacity(void)
{
	for (unsigned f = 0; f < sizeof(peek_flags) / sizeof(peek_flags[0]); f++) {
		struct dpk_ring *r = dpk_ring_create(8, 100, peek_flags[f] | DPK_RING_F_EXACT_SZ);
		const unsigned cap = dpk_ring_capacity(r);
		struct dpk_ring_zc_data zcd;
		uint64_t buf[128];
		unsigned fs = ~0u, av = ~0u;

		ASSERT_NOT_NULL(r);
		ASSERT_EQ(0, dpk_ring_enqueue_bulk_start(r, cap + 1, &fs));
		ASSERT_EQ(cap, fs);
		ASSERT_EQ(0, dpk_ring_enqueue_zc_bulk_start(r, cap + 1, &zcd, &fs));
		ASSERT_NULL(zcd.ptr1);
		ASSERT_EQ(cap, dpk_ring_enqueue_burst_start(r, cap + 7, &fs));
		ASSERT_EQ(0, fs);
		dpk_ring_test_fill((unsigned char *)buf, 8, 0, cap);
		ASSERT_EQ(0, dpk_ring_enqueue_finish(r, buf, cap));
		ASSERT_TRUE(dpk_ring_full(r));
		ASSERT_EQ(0, dpk_ring_enqueue_zc_burst_start(r, 1, &zcd, &fs));
		ASSERT_EQ(0, fs);
		ASSERT_EQ(0, dpk_ring_dequeue_bulk_start(r, buf, cap + 1, &av));
		ASSERT_EQ(cap, av);
		ASSERT_EQ(cap, dpk_ring_dequeue_zc_burst_start(r, cap + 7, &zcd, &av));
		ASSERT_EQ(0, av);
		ASSERT_TRUE(zc_spans_io(&zcd, 8, 0, cap, false));
		/* Taking none leaves everything in place. */
		ASSERT_EQ(0, dpk_ring_dequeue_zc_finish(r, 0));
		ASSERT_TRUE(dpk_ring_full(r));
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(cap, dpk_ring_dequeue_bulk_start(r, buf, cap, &av));
		ASSERT_TRUE(dpk_ring_test_holds((unsigned char *)buf, 8, 0, cap));
		ASSERT_EQ(0, dpk_ring_dequeue_finish(r, cap));
		ASSERT_TRUE(dpk_ring_empty(r));
		dpk_ring_free(r);
	}
}

/*
 * On MP, MC and RTS sides every start returns 0 with errno EINVAL and every finish
 * -EINVAL, leaving the ring and the out-parameters as they were.
 */
static void refused_on_mt_and_rts_sides(void)
{
	static const unsigned flags[] = {0, DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MC_RTS_DEQ,
	                                 DPK_RING_F_MC_RTS_DEQ, DPK_RING_F_MP_RTS_ENQ};

	for (unsigned f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		struct dpk_ring *r = dpk_ring_create(8, SLOTS, flags[f]);
		struct dpk_ring_zc_data zcd = {(void *)1, 1, (void *)1, 1};
		uint64_t buf[4] = {1, 2, 3, 4};
		unsigned out = 12345;

		ASSERT_NOT_NULL(r);
		ASSERT_EQ(3, dpk_ring_enqueue_bulk(r, buf, 3, NULL));
		errno = 0;
		ASSERT_EQ(0, dpk_ring_enqueue_bulk_start(r, 1, &out));
		EXPECT_EQ(EINVAL, errno);
		errno = 0;
		ASSERT_EQ(0, dpk_ring_enqueue_burst_start(r, 1, &out));
		EXPECT_EQ(EINVAL, errno);
		errno = 0;
		ASSERT_EQ(0, dpk_ring_enqueue_zc_bulk_start(r, 1, &zcd, &out));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_NULL(zcd.ptr1);
		EXPECT_EQ(0, zcd.n1 + zcd.n2);
		errno = 0;
		ASSERT_EQ(0, dpk_ring_enqueue_zc_burst_start(r, 1, &zcd, &out));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-EINVAL, dpk_ring_enqueue_finish(r, buf, 0));
		EXPECT_EQ(-EINVAL, dpk_ring_enqueue_zc_finish(r, 0));
		errno = 0;
		ASSERT_EQ(0, dpk_ring_dequeue_bulk_start(r, buf, 1, &out));
		EXPECT_EQ(EINVAL, errno);
		errno = 0;
		ASSERT_EQ(0, dpk_ring_dequeue_burst_start(r, buf, 1, &out));
		EXPECT_EQ(EINVAL, errno);
		errno = 0;
		ASSERT_EQ(0, dpk_ring_dequeue_zc_bulk_start(r, 1, &zcd, &out));
		EXPECT_EQ(EINVAL, errno);
		errno = 0;
		ASSERT_EQ(0, dpk_ring_dequeue_zc_burst_start(r, 1, &zcd, &out));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-EINVAL, dpk_ring_dequeue_finish(r, 0));
		EXPECT_EQ(-EINVAL, dpk_ring_dequeue_zc_finish(r, 0));
		EXPECT_EQ(12345, out);
		EXPECT_EQ(1, buf[0]);
		/* The ring is as it was and still works. */
		ASSERT_EQ(3, dpk_ring_count(r));
		ASSERT_EQ(3, dpk_ring_dequeue_bulk(r, buf, 3, NULL));
		EXPECT_EQ(1, buf[0]);
		EXPECT_EQ(3, buf[2]);
		dpk_ring_free(r);
	}
}

/* A finish for more than was reserved, or without objects, changes nothing. */
static void bad_finish_changes_nothing(void)
{
	for (unsigned f = 0; f < 2; f++) {
		struct dpk_ring *r = dpk_ring_create(8, SLOTS, f ? HTS : ST);
		uint64_t buf[8] = {0};

		ASSERT_NOT_NULL(r);
		/* Nothing reserved: only a finish of 0 is accepted. */
		ASSERT_EQ(-EINVAL, dpk_ring_enqueue_finish(r, buf, 1));
		ASSERT_EQ(-EINVAL, dpk_ring_dequeue_finish(r, 1));
		ASSERT_EQ(0, dpk_ring_enqueue_zc_finish(r, 0));
		ASSERT_EQ(0, dpk_ring_dequeue_zc_finish(r, 0));
		ASSERT_EQ(4, dpk_ring_enqueue_bulk_start(r, 4, NULL));
		ASSERT_EQ(-EINVAL, dpk_ring_enqueue_finish(r, NULL, 2));
		ASSERT_EQ(-EINVAL, dpk_ring_enqueue_finish(r, buf, 5));
		ASSERT_EQ(0, dpk_ring_count(r));
		dpk_ring_test_fill((unsigned char *)buf, 8, 7, 2);
		ASSERT_EQ(0, dpk_ring_enqueue_finish(r, buf, 2));
		ASSERT_EQ(2, dpk_ring_count(r));
		/* The two slots not committed were given back: the next start gets them. */
		ASSERT_EQ(SLOTS - 3, dpk_ring_enqueue_burst_start(r, SLOTS, NULL));
		ASSERT_EQ(0, dpk_ring_enqueue_finish(r, buf, 0));
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(2, dpk_ring_dequeue_burst_start(r, buf, 8, NULL));
		ASSERT_EQ(-EINVAL, dpk_ring_dequeue_finish(r, 3));
		ASSERT_EQ(0, dpk_ring_dequeue_finish(r, 1));
		ASSERT_TRUE(dpk_ring_test_holds((unsigned char *)buf, 8, 7, 2));
		ASSERT_EQ(1, dpk_ring_count(r));
		ASSERT_EQ(1, dpk_ring_dequeue_burst(r, buf, 8, NULL));
		ASSERT_TRUE(dpk_ring_test_holds((unsigned char *)buf, 8, 8, 1));
		dpk_ring_free(r);
	}
}

/* n = 0 starts reserve nothing and need no finish. */
static void zero_n_starts(void)
{
	for (unsigned f = 0; f < 2; f++) {
		struct dpk_ring *r = dpk_ring_create(8, SLOTS, f ? HTS : ST);
		struct dpk_ring_zc_data zcd;
		uint64_t buf[2] = {5, 6};
		unsigned fs = 0, av = 1;

		ASSERT_NOT_NULL(r);
		ASSERT_EQ(0, dpk_ring_enqueue_bulk_start(r, 0, &fs));
		ASSERT_EQ(SLOTS - 1, fs);
		ASSERT_EQ(0, dpk_ring_enqueue_zc_burst_start(r, 0, &zcd, NULL));
		ASSERT_EQ(0, dpk_ring_dequeue_burst_start(r, buf, 0, &av));
		ASSERT_EQ(0, av);
		ASSERT_EQ(0, dpk_ring_dequeue_zc_bulk_start(r, 0, &zcd, NULL));
		/* The side is free: a plain call goes through. */
		ASSERT_EQ(2, dpk_ring_enqueue_bulk(r, buf, 2, NULL));
		ASSERT_EQ(2, dpk_ring_dequeue_bulk(r, buf, 2, NULL));
		dpk_ring_free(r);
	}
}

/*
 * An ST start trusts its side's cached copy of the other side's tail, as sp/sc calls do.
 * A copy far behind (here by up to almost 2^31, as after a long run of the other sync
 * mode) only makes the starts reload: on a ring the other side has moved under the copy, a
 * zero-copy or peek start never reserves more room or elements than there are, also
 * across the index wrap. Starts take no report here, which would load the tail anyway.
 */
static void stale_cache_starts_reload(void)
{
	static const uint32_t lag[] = {1,         10,          SLOTS - 1,   SLOTS,
	                               SLOTS + 5, 0x40000000u, 0x7fffff00u, 0x7fffffffu};
	const uint32_t start = UINT32_MAX - 20;

	for (unsigned i = 0; i < sizeof(lag) / sizeof(lag[0]); i++) {
		struct dpk_ring *r = dpk_ring_create(8, SLOTS, ST);
		struct dpk_ring_zc_data zcd;
		uint64_t buf[SLOTS + 8];

		ASSERT_NOT_NULL(r);
		dpk__ring_set_indices(r, start);
		dpk__ring_set_cached(r, start - lag[i], start - lag[i]);
		/* Empty ring: the consumer's starts find nothing. */
		ASSERT_EQ(0, dpk_ring_dequeue_zc_burst_start(r, 8, &zcd, NULL));
		ASSERT_EQ(0, dpk_ring_dequeue_burst_start(r, buf, 8, NULL));
		ASSERT_EQ(0, dpk_ring_dequeue_zc_bulk_start(r, 1, &zcd, NULL));
		/* The producer's starts reserve exactly the capacity, never more. */
		dpk__ring_set_cached(r, start - lag[i], start - lag[i]);
		ASSERT_EQ(0, dpk_ring_enqueue_zc_bulk_start(r, SLOTS, &zcd, NULL));
		ASSERT_EQ(SLOTS - 1, dpk_ring_enqueue_zc_burst_start(r, SLOTS + 8, &zcd, NULL));
		check_spans(r, start, SLOTS - 1, &zcd);
		ASSERT_TRUE(zc_spans_io(&zcd, 8, 0, SLOTS - 1, true));
		ASSERT_EQ(0, dpk_ring_enqueue_zc_finish(r, SLOTS - 1));
		ASSERT_EQ(0, dpk_ring_enqueue_burst_start(r, 1, NULL));
		ASSERT_EQ(SLOTS - 1, dpk_ring_count(r));
		/* Both copies stale again: the consumer reserves exactly what was put in. */
		dpk__ring_set_cached(r, start - lag[i], start - lag[i]);
		ASSERT_EQ(0, dpk_ring_dequeue_zc_bulk_start(r, SLOTS, &zcd, NULL));
		ASSERT_EQ(SLOTS - 1, dpk_ring_dequeue_zc_burst_start(r, SLOTS + 8, &zcd, NULL));
		ASSERT_TRUE(zc_spans_io(&zcd, 8, 0, SLOTS - 1, false));
		ASSERT_EQ(0, dpk_ring_dequeue_zc_finish(r, 0));
		dpk__ring_set_cached(r, start - lag[i], start - lag[i]);
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(SLOTS - 1, dpk_ring_dequeue_burst_start(r, buf, SLOTS + 8, NULL));
		ASSERT_TRUE(dpk_ring_test_holds((unsigned char *)buf, 8, 0, SLOTS - 1));
		ASSERT_EQ(0, dpk_ring_dequeue_finish(r, SLOTS - 1));
		ASSERT_EQ(0, dpk_ring_dequeue_zc_burst_start(r, 1, &zcd, NULL));
		ASSERT_TRUE(dpk_ring_empty(r));
		dpk_ring_free(r);
	}
}

/*
 * A start whose cached copy shows enough still reports the exact room: the other side
 * moved since the copy was taken, and the report counts that.
 */
static void trusted_cache_reports_exactly(void)
{
	struct dpk_ring *r = dpk_ring_create(8, SLOTS, ST);
	struct dpk_ring_zc_data zcd;
	uint64_t buf[SLOTS];
	unsigned fs = ~0u, av = ~0u;

	ASSERT_NOT_NULL(r);
	dpk_ring_test_fill((unsigned char *)buf, 8, 0, SLOTS);
	/* The producer's copy of cons.tail is from before the consumer took 40. */
	ASSERT_EQ(40, dpk_ring_sp_enqueue_bulk(r, buf, 40, NULL));
	ASSERT_EQ(40, dpk_ring_sc_dequeue_bulk(r, buf, 40, NULL));
	ASSERT_EQ(8, dpk_ring_enqueue_zc_bulk_start(r, 8, &zcd, &fs));
	ASSERT_EQ(SLOTS - 1 - 8, fs);
	ASSERT_TRUE(zc_spans_io(&zcd, 8, 40, 8, true));
	ASSERT_EQ(0, dpk_ring_enqueue_zc_finish(r, 8));
	/* The consumer's copy of prod.tail shows the 8; 20 more arrive after it is taken. */
	ASSERT_EQ(4, dpk_ring_dequeue_zc_bulk_start(r, 4, &zcd, NULL));
	ASSERT_EQ(0, dpk_ring_dequeue_zc_finish(r, 4));
	dpk_ring_test_fill((unsigned char *)buf, 8, 48, 20);
	ASSERT_EQ(20, dpk_ring_sp_enqueue_bulk(r, buf, 20, NULL));
	ASSERT_EQ(4, dpk_ring_dequeue_zc_bulk_start(r, 4, &zcd, &av));
	ASSERT_EQ(20, av);
	ASSERT_TRUE(zc_spans_io(&zcd, 8, 44, 4, false));
	ASSERT_EQ(0, dpk_ring_dequeue_zc_finish(r, 4));
	ASSERT_EQ(20, dpk_ring_dequeue_bulk_start(r, buf, 20, &av));
	ASSERT_EQ(0, av);
	ASSERT_TRUE(dpk_ring_test_holds((unsigned char *)buf, 8, 48, 20));
	ASSERT_EQ(0, dpk_ring_dequeue_finish(r, 20));
	dpk_ring_free(r);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(model_traffic),
        DPK_TEST(model_traffic_index_wrap),
        DPK_TEST(zc_spans_at_table_end),
        DPK_TEST(starts_at_capacity),
        DPK_TEST(refused_on_mt_and_rts_sides),
        DPK_TEST(bad_finish_changes_nothing),
        DPK_TEST(zero_n_starts),
        DPK_TEST(stale_cache_starts_reload),
        DPK_TEST(trusted_cache_reports_exactly),
};

DPK_TEST_MAIN(cases)
