/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls and modes of ring_modes.h, and the random traffic checked against a model. */
#define _POSIX_C_SOURCE 200809L
#include "ring_modes.h"

static unsigned enq_single(struct dpk_ring *r, const void *objs, unsigned n, unsigned *fs,
                           int (*one)(struct dpk_ring *, const void *))
{
	const unsigned char *p = objs;
	unsigned i;

	for (i = 0; i < n; i++) {
		int rc = one(r, p + (size_t)i * dpk_ring_esize(r));
		if (rc != 0) {
			EXPECT_EQ(-ENOBUFS, rc);
			break;
		}
	}
	*fs = dpk_ring_free_count(r);
	return i;
}

static unsigned deq_single(struct dpk_ring *r, void *objs, unsigned n, unsigned *av,
                           int (*one)(struct dpk_ring *, void *))
{
	unsigned char *p = objs;
	unsigned i;

	for (i = 0; i < n; i++) {
		int rc = one(r, p + (size_t)i * dpk_ring_esize(r));
		if (rc != 0) {
			EXPECT_EQ(-ENOENT, rc);
			break;
		}
	}
	*av = dpk_ring_count(r);
	return i;
}

static unsigned sp_single(struct dpk_ring *r, const void *o, unsigned n, unsigned *fs)
{
	return enq_single(r, o, n, fs, dpk_ring_sp_enqueue);
}
static unsigned mp_single(struct dpk_ring *r, const void *o, unsigned n, unsigned *fs)
{
	return enq_single(r, o, n, fs, dpk_ring_mp_enqueue);
}
static unsigned dflt_enq_single(struct dpk_ring *r, const void *o, unsigned n, unsigned *fs)
{
	return enq_single(r, o, n, fs, dpk_ring_enqueue);
}
static unsigned sc_single(struct dpk_ring *r, void *o, unsigned n, unsigned *av)
{
	return deq_single(r, o, n, av, dpk_ring_sc_dequeue);
}
static unsigned mc_single(struct dpk_ring *r, void *o, unsigned n, unsigned *av)
{
	return deq_single(r, o, n, av, dpk_ring_mc_dequeue);
}
static unsigned dflt_deq_single(struct dpk_ring *r, void *o, unsigned n, unsigned *av)
{
	return deq_single(r, o, n, av, dpk_ring_dequeue);
}
static unsigned rts_single(struct dpk_ring *r, const void *o, unsigned n, unsigned *fs)
{
	return enq_single(r, o, n, fs, dpk_ring_mp_rts_enqueue);
}
static unsigned rts_deq_single(struct dpk_ring *r, void *o, unsigned n, unsigned *av)
{
	return deq_single(r, o, n, av, dpk_ring_mc_rts_dequeue);
}
static unsigned hts_single(struct dpk_ring *r, const void *o, unsigned n, unsigned *fs)
{
	return enq_single(r, o, n, fs, dpk_ring_mp_hts_enqueue);
}
static unsigned hts_deq_single(struct dpk_ring *r, void *o, unsigned n, unsigned *av)
{
	return deq_single(r, o, n, av, dpk_ring_mc_hts_dequeue);
}

const struct mode sp_bulk = {dpk_ring_sp_enqueue_bulk, dpk_ring_sc_dequeue_bulk, BULK};
const struct mode mp_bulk = {dpk_ring_mp_enqueue_bulk, dpk_ring_mc_dequeue_bulk, BULK};
const struct mode df_bulk = {dpk_ring_enqueue_bulk, dpk_ring_dequeue_bulk, BULK};
const struct mode sp_burst = {dpk_ring_sp_enqueue_burst, dpk_ring_sc_dequeue_burst, BURST};
const struct mode mp_burst = {dpk_ring_mp_enqueue_burst, dpk_ring_mc_dequeue_burst, BURST};
const struct mode df_burst = {dpk_ring_enqueue_burst, dpk_ring_dequeue_burst, BURST};
const struct mode sp_one = {sp_single, sc_single, SINGLE};
const struct mode mp_one = {mp_single, mc_single, SINGLE};
const struct mode df_one = {dflt_enq_single, dflt_deq_single, SINGLE};
const struct mode rts_bulk = {dpk_ring_mp_rts_enqueue_bulk, dpk_ring_mc_rts_dequeue_bulk, BULK};
const struct mode rts_burst = {dpk_ring_mp_rts_enqueue_burst, dpk_ring_mc_rts_dequeue_burst, BURST};
const struct mode rts_one = {rts_single, rts_deq_single, SINGLE};
const struct mode hts_bulk = {dpk_ring_mp_hts_enqueue_bulk, dpk_ring_mc_hts_dequeue_bulk, BULK};
const struct mode hts_burst = {dpk_ring_mp_hts_enqueue_burst, dpk_ring_mc_hts_dequeue_burst, BURST};
const struct mode hts_one = {hts_single, hts_deq_single, SINGLE};

static unsigned expect_moved(enum kind kind, unsigned n, unsigned room)
{
	if (kind == BULK)
		return n <= room ? n : 0;
	return n < room ? n : room;
}

/*
 * Random traffic through @p r with a model of its contents: every call returns what the
 * model says, reports the right free space or count, and the elements come out in order
 * with every byte intact. The phases alternate between filling and draining so the ring
 * often reaches full and empty, and the indices lap the table many times.
 */
void run_traffic(struct dpk_ring *r, const struct mode *m, unsigned rounds, uint64_t seed)
{
	const unsigned esize = dpk_ring_esize(r), cap = dpk_ring_capacity(r);
	unsigned char *in = malloc((size_t)MAX_N * esize), *out = malloc((size_t)MAX_N * esize);
	uint32_t next_in = 0, next_out = 0;
	unsigned held = dpk_ring_count(r);
	uint64_t rng = seed;

	ASSERT_NOT_NULL(in);
	ASSERT_NOT_NULL(out);
	ASSERT_EQ(0, held);
	for (unsigned round = 0; round < rounds; round++) {
		bool filling = (round / 16) % 2 == 0;
		unsigned n = 1 + (unsigned)(dpk_test_rand(&rng) % (filling ? MAX_N : MAX_N / 2));
		unsigned got, report = ~0u;

		fill(in, esize, next_in, n);
		got = m->enq(r, in, n, &report);
		ASSERT_EQ(expect_moved(m->kind, n, cap - held), got);
		held += got;
		next_in += got;
		ASSERT_EQ(cap - held, report);
		ASSERT_EQ(held, dpk_ring_count(r));

		n = 1 + (unsigned)(dpk_test_rand(&rng) % (filling ? MAX_N / 2 : MAX_N));
		memset(out, 0, (size_t)MAX_N * esize);
		report = ~0u;
		got = m->deq(r, out, n, &report);
		ASSERT_EQ(expect_moved(m->kind, n, held), got);
		ASSERT_TRUE(holds(out, esize, next_out, got));
		held -= got;
		next_out += got;
		ASSERT_EQ(held, report);
		ASSERT_EQ(held, dpk_ring_count(r));
	}
	while (held) {
		unsigned report, got = m->deq(r, out, held < MAX_N ? held : MAX_N, &report);
		ASSERT_GT(got, 0);
		ASSERT_TRUE(holds(out, esize, next_out, got));
		held -= got;
		next_out += got;
	}
	ASSERT_TRUE(dpk_ring_empty(r));
	ASSERT_EQ(next_in, next_out);
	free(in);
	free(out);
}

/* Every multiple of 4 from 4 to 128, and the largest size. */
static unsigned test_esize(unsigned i)
{
	return i < 32 ? 4 * (i + 1) : DPK_RING_ESIZE_MAX;
}
#define N_ESIZES 33u

void traffic_all_sizes(const struct mode *m, unsigned flags)
{
	for (unsigned i = 0; i < N_ESIZES; i++) {
		unsigned esize = test_esize(i);
		struct dpk_ring *r = dpk_ring_create(esize, SLOTS, flags);

		ASSERT_NOT_NULL(r);
		run_traffic(r, m, 200, 1000 + esize);
		dpk_ring_free(r);
	}
}

/* The default-mode calls, on rings of each default sync mode and some mixtures. */
void traffic_default_modes(const struct mode *m)
{
	static const unsigned flags[] = {
	        0,
	        DPK_RING_F_SP_ENQ,
	        DPK_RING_F_SC_DEQ,
	        DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ,
	        RTS,
	        HTS,
	        DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MC_HTS_DEQ,
	        DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_SC_DEQ,
	        DPK_RING_F_SP_ENQ | DPK_RING_F_MC_RTS_DEQ,
	};
	for (unsigned f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
		traffic_all_sizes(m, flags[f]);
}
