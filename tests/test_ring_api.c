/* SPDX-License-Identifier: BSD-3-Clause */
/* The ring on one thread: the modes it reports, the head-tail distance, flags refused,
 * sizes, rings in caller memory and every error path, the copy at every offset, wrapping,
 * the cached indices and the layout of the two sides. */
#define _POSIX_C_SOURCE 200809L
#include "ring_modes.h"

static void sync_modes_reported(void)
{
	static const struct {
		unsigned flags;
		enum dpk_ring_sync prod, cons;
		const char *line;
	} want[] = {
	        {0, DPK_RING_SYNC_MT, DPK_RING_SYNC_MT, "MP/MC"},
	        {DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ, DPK_RING_SYNC_ST, DPK_RING_SYNC_ST,
	         "SP/SC"},
	        {RTS, DPK_RING_SYNC_MT_RTS, DPK_RING_SYNC_MT_RTS, "MP_RTS/MC_RTS"},
	        {HTS, DPK_RING_SYNC_MT_HTS, DPK_RING_SYNC_MT_HTS, "MP_HTS/MC_HTS"},
	        {DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_SC_DEQ, DPK_RING_SYNC_MT_RTS, DPK_RING_SYNC_ST,
	         "MP_RTS/SC"},
	        {DPK_RING_F_SP_ENQ | DPK_RING_F_MC_HTS_DEQ, DPK_RING_SYNC_ST, DPK_RING_SYNC_MT_HTS,
	         "SP/MC_HTS"},
	};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct dpk_ring *r = dpk_ring_create(8, SLOTS, want[i].flags);
		char *text = NULL;
		size_t len = 0;
		FILE *f;

		ASSERT_NOT_NULL(r);
		ASSERT_EQ(want[i].prod, dpk_ring_prod_sync(r));
		ASSERT_EQ(want[i].cons, dpk_ring_cons_sync(r));
		ASSERT_EQ(want[i].prod == DPK_RING_SYNC_ST, dpk_ring_is_sp(r));
		ASSERT_EQ(want[i].cons == DPK_RING_SYNC_ST, dpk_ring_is_sc(r));
		f = open_memstream(&text, &len);
		ASSERT_NOT_NULL(f);
		ASSERT_EQ(0, dpk_ring_dump(f, r));
		ASSERT_EQ(0, fclose(f));
		ASSERT_NOT_NULL(strstr(text, want[i].line));
		if (want[i].prod == DPK_RING_SYNC_MT_RTS)
			ASSERT_NOT_NULL(strstr(text, "prod: MP_RTS, head 0 (0 begun), tail 0 (0 "
			                             "finished), htd_max 7"));
		if (want[i].cons == DPK_RING_SYNC_MT_RTS)
			ASSERT_NOT_NULL(strstr(text, "cons: MC_RTS"));
		if (want[i].cons == DPK_RING_SYNC_MT_HTS)
			ASSERT_NOT_NULL(strstr(text, "cons: MC_HTS, head 0, tail 0"));
		free(text);
		dpk_ring_free(r);
	}
}

/* htd_max: capacity / 8 by default, settable up to the capacity, on RTS sides only. */
static void htd_max_set_and_get(void)
{
	struct dpk_ring *r = dpk_ring_create(8, 1000, DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_EXACT_SZ);
	struct dpk_ring *q = dpk_ring_create(8, SLOTS, DPK_RING_F_MC_RTS_DEQ);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_NOT_NULL(r);
	ASSERT_NOT_NULL(q);
	ASSERT_EQ(125, dpk_ring_prod_htd_max(r));
	ASSERT_EQ(0, dpk_ring_cons_htd_max(r));
	ASSERT_EQ(0, dpk_ring_prod_htd_max(q));
	ASSERT_EQ(7, dpk_ring_cons_htd_max(q));
	ASSERT_EQ(0, dpk_ring_set_prod_htd_max(r, 1000));
	ASSERT_EQ(1000, dpk_ring_prod_htd_max(r));
	ASSERT_EQ(0, dpk_ring_set_prod_htd_max(r, 0));
	ASSERT_EQ(0, dpk_ring_prod_htd_max(r));
	ASSERT_EQ(-EINVAL, dpk_ring_set_prod_htd_max(r, 1001));
	ASSERT_EQ(-EINVAL, dpk_ring_set_cons_htd_max(r, 1));
	ASSERT_EQ(-EINVAL, dpk_ring_set_prod_htd_max(q, 1));
	ASSERT_EQ(-EINVAL, dpk_ring_set_prod_htd_max(NULL, 1));
	ASSERT_EQ(-EINVAL, dpk_ring_set_cons_htd_max(NULL, 1));
	ASSERT_EQ(0, dpk_ring_prod_htd_max(r));
	ASSERT_EQ(0, dpk_ring_set_cons_htd_max(q, 63));
	ASSERT_EQ(63, dpk_ring_cons_htd_max(q));
	/* A reset keeps the setting. */
	dpk_ring_reset(q);
	ASSERT_EQ(63, dpk_ring_cons_htd_max(q));
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, dpk_ring_dump(f, q));
	ASSERT_EQ(0, fclose(f));
	ASSERT_NOT_NULL(strstr(text, "htd_max 63"));
	free(text);
	dpk_ring_free(r);
	dpk_ring_free(q);
}

/* Two modes for one side are refused by memsize, init and create alike. */
static void contradictory_flags_refused(void)
{
	static const unsigned bad[] = {
	        DPK_RING_F_SP_ENQ | DPK_RING_F_MP_RTS_ENQ,
	        DPK_RING_F_SP_ENQ | DPK_RING_F_MP_HTS_ENQ,
	        DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MP_HTS_ENQ,
	        DPK_RING_F_SP_ENQ | DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MP_HTS_ENQ,
	        DPK_RING_F_SC_DEQ | DPK_RING_F_MC_RTS_DEQ,
	        DPK_RING_F_SC_DEQ | DPK_RING_F_MC_HTS_DEQ,
	        DPK_RING_F_MC_RTS_DEQ | DPK_RING_F_MC_HTS_DEQ | DPK_RING_F_SP_ENQ,
	        RTS | DPK_RING_F_MC_HTS_DEQ,
	        HTS | DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_EXACT_SZ,
	};
	ssize_t bytes = dpk_ring_memsize(8, 64, 0);
	unsigned char *mem = alloc_lines((size_t)bytes), *copy = malloc((size_t)bytes);

	ASSERT_NOT_NULL(mem);
	ASSERT_NOT_NULL(copy);
	memset(mem, 0x5a, (size_t)bytes);
	memcpy(copy, mem, (size_t)bytes);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, dpk_ring_memsize(8, 64, bad[i]));
		EXPECT_EQ(-EINVAL, dpk_ring_init((struct dpk_ring *)mem, 8, 64, bad[i]));
		errno = 0;
		EXPECT_NULL(dpk_ring_create(8, 64, bad[i]));
		EXPECT_EQ(EINVAL, errno);
	}
	EXPECT_EQ(0, memcmp(mem, copy, (size_t)bytes));
	/* One mode per side, in any pairing, is accepted. */
	EXPECT_GT(dpk_ring_memsize(8, 64, DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MC_HTS_DEQ), 0);
	EXPECT_GT(dpk_ring_memsize(8, 64, DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_SC_DEQ), 0);
	free(mem);
	free(copy);
}

/* memsize: the size for good arguments, -EINVAL for each bad one. */
static void memsize_values(void)
{
	const ssize_t hdr = (ssize_t)sizeof(struct dpk_ring);

	ASSERT_EQ(0, hdr % DPK_CACHE_LINE);
	ASSERT_EQ(hdr + 1024 * 8, dpk_ring_memsize(8, 1024, 0));
	ASSERT_EQ(hdr + 1024 * 8, dpk_ring_memsize(8, 1000, DPK_RING_F_EXACT_SZ));
	ASSERT_EQ(hdr + 2048 * 8, dpk_ring_memsize(8, 1024, DPK_RING_F_EXACT_SZ));
	ASSERT_EQ(hdr + 2 * 4, dpk_ring_memsize(4, 2, 0));
	ASSERT_EQ(hdr + 2 * 512, dpk_ring_memsize(512, 1, DPK_RING_F_EXACT_SZ));
	if (sizeof(size_t) == 8) {
		ASSERT_EQ(hdr + (ssize_t)DPK_RING_SIZE_MAX * 4,
		          dpk_ring_memsize(4, DPK_RING_SIZE_MAX, 0));
		ASSERT_EQ(hdr + (ssize_t)DPK_RING_SIZE_MAX * 4,
		          dpk_ring_memsize(4, DPK_RING_SIZE_MAX - 1, DPK_RING_F_EXACT_SZ));
	}
}

static void memsize_rejects_bad_esize(void)
{
	static const unsigned bad[] = {0, 1, 2, 3, 6, 10, 129, DPK_RING_ESIZE_MAX + 4, 1024};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-EINVAL, dpk_ring_memsize(bad[i], 64, 0));
	ASSERT_NE('\0', dpk_last_error()[0]);
}

static void memsize_rejects_bad_count(void)
{
	static const unsigned bad[] = {0, 1, 3, 63, 65, 1000, 0x80000001u, 0xc0000000u, UINT32_MAX};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, bad[i], 0));
	ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, 0, DPK_RING_F_EXACT_SZ));
	ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, DPK_RING_SIZE_MAX, DPK_RING_F_EXACT_SZ));
	ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, UINT32_MAX, DPK_RING_F_EXACT_SZ));
}

static void memsize_rejects_unknown_flags(void)
{
	ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, 64, 0x80));
	ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, 64, DPK_RING_F_SP_ENQ | 0x100));
	ASSERT_EQ(-EINVAL, dpk_ring_memsize(8, 64, 0x80000000u));
}

/* init in caller memory: works when aligned, and bad arguments leave the memory alone. */
static void init_in_caller_memory(void)
{
	ssize_t bytes = dpk_ring_memsize(16, 32, 0);
	struct dpk_ring *r;
	unsigned char v[16], w[16];

	ASSERT_GT(bytes, 0);
	r = alloc_lines((size_t)bytes);
	ASSERT_NOT_NULL(r);
	ASSERT_EQ(0, dpk_ring_init(r, 16, 32, DPK_RING_F_SC_DEQ));
	ASSERT_EQ(31, dpk_ring_capacity(r));
	ASSERT_TRUE(dpk_ring_is_sc(r));
	ASSERT_FALSE(dpk_ring_is_sp(r));
	fill(v, 16, 42, 1);
	ASSERT_EQ(0, dpk_ring_enqueue(r, v));
	ASSERT_EQ(0, dpk_ring_dequeue(r, w));
	ASSERT_TRUE(holds(w, 16, 42, 1));
	free(r);
}

/* dpk_ring_free() of a ring in caller memory leaves that memory alone and says so: it
 * used to free() it, which glibc aborts on when it is not heap memory. */
static void free_of_caller_memory_is_a_no_op(void)
{
	static _Alignas(DPK_CACHE_LINE) unsigned char mem[4096];
	struct dpk_ring *r = (struct dpk_ring *)mem, *c;
	unsigned char v[8] = {1}, w[8];

	ASSERT_LE(dpk_ring_memsize(8, 16, 0), (ssize_t)sizeof(mem));
	ASSERT_EQ(0, dpk_ring_init(r, 8, 16, 0));
	dpk_ring_free(r);
	EXPECT_TRUE(strstr(dpk_last_error(), "caller's memory") != NULL);
	ASSERT_EQ(0, dpk_ring_enqueue(r, v)); /* still a ring */
	ASSERT_EQ(0, dpk_ring_dequeue(r, w));
	EXPECT_EQ(1, w[0]);
	/* A created ring is still freed (a leak would show under ASan). */
	c = dpk_ring_create(8, 16, 0);
	ASSERT_NOT_NULL(c);
	dpk_ring_free(c);
	dpk_ring_free(NULL);
}

static void init_rejects_bad_arguments(void)
{
	static const struct {
		unsigned esize, count, flags;
	} bad[] = {
	        {0, 64, 0},     {6, 64, 0},       {DPK_RING_ESIZE_MAX + 4, 64, 0},
	        {8, 0, 0},      {8, 100, 0},      {8, DPK_RING_SIZE_MAX, DPK_RING_F_EXACT_SZ},
	        {8, 64, 0x80u}, {8, 64, 0x1000u},
	};
	ssize_t bytes = dpk_ring_memsize(8, 64, 0);
	unsigned char *mem, *copy;

	ASSERT_GT(bytes, 0);
	mem = alloc_lines((size_t)bytes + DPK_CACHE_LINE);
	copy = malloc((size_t)bytes + DPK_CACHE_LINE);
	ASSERT_NOT_NULL(mem);
	ASSERT_NOT_NULL(copy);
	memset(mem, 0xa5, (size_t)bytes + DPK_CACHE_LINE);
	memcpy(copy, mem, (size_t)bytes + DPK_CACHE_LINE);

	ASSERT_EQ(-EINVAL, dpk_ring_init(NULL, 8, 64, 0));
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-EINVAL, dpk_ring_init((struct dpk_ring *)mem, bad[i].esize, bad[i].count,
		                                 bad[i].flags));
	/* Misaligned: 4, 8 and 32 bytes past a line boundary. */
	ASSERT_EQ(-EINVAL, dpk_ring_init((struct dpk_ring *)(mem + 4), 8, 64, 0));
	ASSERT_EQ(-EINVAL, dpk_ring_init((struct dpk_ring *)(mem + 8), 8, 64, 0));
	ASSERT_EQ(-EINVAL, dpk_ring_init((struct dpk_ring *)(mem + 32), 8, 64, 0));
	ASSERT_EQ(0, memcmp(mem, copy, (size_t)bytes + DPK_CACHE_LINE));
	free(mem);
	free(copy);
}

static void create_sets_errno(void)
{
	static const struct {
		unsigned esize, count, flags;
	} bad[] = {
	        {0, 64, 0},     {7, 64, 0}, {1024, 64, 0},
	        {8, 0, 0},      {8, 48, 0}, {8, DPK_RING_SIZE_MAX, DPK_RING_F_EXACT_SZ},
	        {8, 64, 0x80u},
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ASSERT_NULL(dpk_ring_create(bad[i].esize, bad[i].count, bad[i].flags));
		ASSERT_EQ(EINVAL, errno);
	}
	dpk_ring_free(NULL);
}

/*
 * Every copy shape: bulk calls of every count from 0 to the capacity, starting at every
 * slot of the table, so each count runs through the whole-block loop, every combination
 * of the 32-, 16-, 8- and 4-byte tails and every split point at the end of the table, in
 * both directions. Element sizes cover the specialised copies (8, 16), the other sizes
 * below 16 (4, 12) that single elements move in words, and larger ones. The single-thread
 * and multi-thread calls take turns, and the one-element calls are checked too.
 */
static void copy_shapes_every_offset(void)
{
	static const unsigned esizes[] = {4, 8, 12, 16, 20, 24, 40};
	const unsigned slots = 32;

	for (unsigned e = 0; e < sizeof(esizes) / sizeof(esizes[0]); e++) {
		const unsigned esize = esizes[e];
		struct dpk_ring *r = dpk_ring_create(esize, slots, 0);
		unsigned char *in = malloc((size_t)slots * esize);
		unsigned char *out = malloc((size_t)slots * esize);
		uint32_t seq = 0;

		ASSERT_NOT_NULL(r);
		ASSERT_NOT_NULL(in);
		ASSERT_NOT_NULL(out);
		for (uint32_t start = 0; start < slots; start++) {
			for (unsigned n = 0; n < slots; n++) {
				const bool st = (start + n) % 2 == 0;
				unsigned fs = ~0u, av = ~0u;

				dpk__ring_set_indices(r, start);
				fill(in, esize, seq, n);
				memset(out, 0, (size_t)slots * esize);
				ASSERT_EQ(n, st ? dpk_ring_sp_enqueue_bulk(r, in, n, &fs)
				                : dpk_ring_mp_enqueue_bulk(r, in, n, &fs));
				ASSERT_EQ(slots - 1 - n, fs);
				ASSERT_EQ(n, st ? dpk_ring_sc_dequeue_bulk(r, out, n, &av)
				                : dpk_ring_mc_dequeue_bulk(r, out, n, &av));
				ASSERT_EQ(0, av);
				ASSERT_TRUE(holds(out, esize, seq, n));
				seq += n;
			}
			/* One element at a time, through the end of the table. */
			dpk__ring_set_indices(r, start);
			fill(in, esize, seq, 2);
			ASSERT_EQ(0, dpk_ring_sp_enqueue(r, in));
			ASSERT_EQ(0, dpk_ring_mp_enqueue(r, in + esize));
			ASSERT_EQ(0, dpk_ring_sc_dequeue(r, out));
			ASSERT_EQ(0, dpk_ring_mc_dequeue(r, out + esize));
			ASSERT_TRUE(holds(out, esize, seq, 2));
			seq += 2;
		}
		free(in);
		free(out);
		dpk_ring_free(r);
	}
}

/*
 * Indices started just below 2^32 cross the wrap within the first lap; counts, the full
 * and empty tests and FIFO order hold across it, for both sync modes and an exact-size
 * ring whose capacity is not size - 1.
 */
static void wrap_indices(const struct mode *m, unsigned count, unsigned flags)
{
	static const uint32_t starts[] = {UINT32_MAX - 40, UINT32_MAX, 0x7fffffe0u};

	for (unsigned s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		struct dpk_ring *r = dpk_ring_create(8, count, flags);

		ASSERT_NOT_NULL(r);
		dpk__ring_set_indices(r, starts[s]);
		ASSERT_TRUE(dpk_ring_empty(r));
		ASSERT_EQ(dpk_ring_capacity(r), dpk_ring_free_count(r));
		run_traffic(r, m, 300, starts[s]);
		/* Several laps went by: the indices wrapped. */
		ASSERT_LT(((uint32_t)atomic_load(&r->prod.tail) - starts[s]), 0x80000000u);
		ASSERT_GT(((uint32_t)atomic_load(&r->prod.tail) - starts[s]), 4 * dpk_ring_size(r));
		dpk_ring_free(r);
	}
}

static void wrap_sp_sc(void)
{
	wrap_indices(&sp_bulk, SLOTS, 0);
	wrap_indices(&sp_burst, 100, DPK_RING_F_EXACT_SZ);
}

static void wrap_mp_mc(void)
{
	wrap_indices(&mp_burst, SLOTS, 0);
	wrap_indices(&mp_bulk, 100, DPK_RING_F_EXACT_SZ);
}

static void wrap_rts_hts(void)
{
	wrap_indices(&rts_burst, SLOTS, RTS);
	wrap_indices(&rts_bulk, 100, RTS | DPK_RING_F_EXACT_SZ);
	wrap_indices(&hts_bulk, SLOTS, HTS);
	wrap_indices(&hts_burst, 100, HTS | DPK_RING_F_EXACT_SZ);
	wrap_indices(&df_burst, SLOTS, DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_MC_RTS_DEQ);
}

/*
 * A cached copy of the other side's tail that is far behind (here by almost 2^31, as after
 * a long run of the other sync mode) only makes the single-thread calls reload: the
 * producer never overruns the consumer and the consumer never reads slots not yet
 * written, also across the index wrap.
 */
static void stale_cache_only_reloads(void)
{
	static const uint32_t lag[] = {1,         10,          SLOTS - 1,   SLOTS,
	                               SLOTS + 5, 0x40000000u, 0x7fffff00u, 0x7fffffffu};
	const uint32_t start = UINT32_MAX - 20;

	for (unsigned i = 0; i < sizeof(lag) / sizeof(lag[0]); i++) {
		struct dpk_ring *r = dpk_ring_create(8, SLOTS, 0);
		uint64_t buf[SLOTS + 8];
		unsigned fs, av;

		ASSERT_NOT_NULL(r);
		dpk__ring_set_indices(r, start);
		dpk__ring_set_cached(r, start - lag[i], start - lag[i]);
		/* Empty ring: the consumer finds nothing. */
		ASSERT_EQ(0, dpk_ring_sc_dequeue_burst(r, buf, 8, NULL));
		ASSERT_EQ(-ENOENT, dpk_ring_sc_dequeue(r, buf));
		/* The producer fills exactly to capacity, never past it. */
		dpk__ring_set_cached(r, start - lag[i], start - lag[i]);
		fill((unsigned char *)buf, 8, 0, SLOTS + 8);
		ASSERT_EQ(0, dpk_ring_sp_enqueue_bulk(r, buf, SLOTS, NULL));
		ASSERT_EQ(SLOTS - 1, dpk_ring_sp_enqueue_burst(r, buf, SLOTS + 8, &fs));
		ASSERT_EQ(0, fs);
		ASSERT_EQ(-ENOBUFS, dpk_ring_sp_enqueue(r, buf));
		ASSERT_EQ(SLOTS - 1, dpk_ring_count(r));
		/* Both copies stale again (still behind the real tails): the consumer gets
		 * exactly what was put in, then nothing. */
		dpk__ring_set_cached(r, start - lag[i], start - lag[i]);
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(SLOTS - 1, dpk_ring_sc_dequeue_burst(r, buf, SLOTS + 8, &av));
		ASSERT_EQ(0, av);
		ASSERT_TRUE(holds((unsigned char *)buf, 8, 0, SLOTS - 1));
		ASSERT_EQ(0, dpk_ring_sc_dequeue_bulk(r, buf, 1, NULL));
		ASSERT_TRUE(dpk_ring_empty(r));
		dpk_ring_free(r);
	}
}

/* Laps of mp/mc calls of 40 elements from the ring's present indices, checked in order. */
static void mp_mc_laps(struct dpk_ring *r, unsigned laps, uint32_t *seq, uint32_t *out)
{
	uint64_t buf[40];

	for (unsigned i = 0; i < laps; i++) {
		fill((unsigned char *)buf, 8, *seq, 40);
		ASSERT_EQ(40, dpk_ring_mp_enqueue_bulk(r, buf, 40, NULL));
		*seq += 40;
		ASSERT_EQ(40, dpk_ring_mc_dequeue_bulk(r, buf, 40, NULL));
		ASSERT_TRUE(holds((unsigned char *)buf, 8, *out, 40));
		*out += 40;
	}
}

/*
 * mp/mc calls move the heads without the single-thread paths seeing it, and refresh each
 * side's cached copy only when a head passes a multiple of 2^29: in between the copies
 * stay as the sp/sc calls left them, after the crossing they are within the capacity of
 * the heads, and sp/sc calls fill and drain the ring exactly either way.
 */
static void mode_switch_keeps_cache_close(void)
{
	const uint32_t every = 1u << 29, start = 3 * every - 4000;
	struct dpk_ring *r = dpk_ring_create(8, SLOTS, 0);
	uint64_t buf[SLOTS];
	uint32_t seq = 0, out = 0, pc, cc;

	ASSERT_NOT_NULL(r);
	dpk__ring_set_indices(r, start);
	/* sp/sc first, so their copies are set. */
	fill((unsigned char *)buf, 8, seq, 10);
	ASSERT_EQ(10, dpk_ring_sp_enqueue_bulk(r, buf, 10, NULL));
	seq += 10;
	ASSERT_EQ(10, dpk_ring_sc_dequeue_bulk(r, buf, 10, NULL));
	out += 10;
	pc = atomic_load(&r->prod.cached);
	cc = atomic_load(&r->cons.cached);
	/* 2000 elements in mp/mc mode, short of the multiple: the copies are left alone. */
	mp_mc_laps(r, 50, &seq, &out);
	ASSERT_EQ(pc, atomic_load(&r->prod.cached));
	ASSERT_EQ(cc, atomic_load(&r->cons.cached));
	ASSERT_LT(atomic_load(&r->prod.head) - pc, every);
	/* sp/sc with the copies 2000 behind: exactly the capacity fits, in order. */
	fill((unsigned char *)buf, 8, seq, SLOTS);
	ASSERT_EQ(SLOTS - 1, dpk_ring_sp_enqueue_burst(r, buf, SLOTS, NULL));
	ASSERT_EQ(-ENOBUFS, dpk_ring_sp_enqueue(r, buf));
	seq += SLOTS - 1;
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(SLOTS - 1, dpk_ring_sc_dequeue_burst(r, buf, SLOTS, NULL));
	ASSERT_TRUE(holds((unsigned char *)buf, 8, out, SLOTS - 1));
	out += SLOTS - 1;
	ASSERT_EQ(-ENOENT, dpk_ring_sc_dequeue(r, buf));
	/* Across 3 * 2^29: the call that passes it refreshes both copies. */
	mp_mc_laps(r, 100, &seq, &out);
	ASSERT_GT(atomic_load(&r->prod.head) - start, 4000 + 40);
	ASSERT_GE(atomic_load(&r->prod.cached) - start, 4000 - 40);
	ASSERT_GE(atomic_load(&r->cons.cached) - start, 4000);
	ASSERT_LT(atomic_load(&r->cons.cached) - start, 4000 + 40);
	fill((unsigned char *)buf, 8, seq, SLOTS);
	ASSERT_EQ(SLOTS - 1, dpk_ring_sp_enqueue_burst(r, buf, SLOTS, NULL));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(SLOTS - 1, dpk_ring_sc_dequeue_burst(r, buf, SLOTS, NULL));
	ASSERT_TRUE(holds((unsigned char *)buf, 8, out, SLOTS - 1));
	dpk_ring_free(r);
}

/* The layout promises of impl/ring.h, checked at run time as well. */
static void layout_separates_sides(void)
{
	struct dpk_ring *r = dpk_ring_create(8, 16, 0);
	uintptr_t base, prod, cons, table;

	ASSERT_NOT_NULL(r);
	base = (uintptr_t)r;
	prod = (uintptr_t)&r->prod;
	cons = (uintptr_t)&r->cons;
	table = (uintptr_t)dpk__ring_table(r);
	ASSERT_EQ(0, base % DPK_CACHE_LINE);
	ASSERT_EQ(0, prod % DPK_CACHE_LINE);
	ASSERT_EQ(0, cons % DPK_CACHE_LINE);
	ASSERT_EQ(0, table % DPK_CACHE_LINE);
	ASSERT_GE(cons - prod, 2 * DPK_CACHE_LINE);
	ASSERT_GE(table - cons, 2 * DPK_CACHE_LINE);
	dpk_ring_free(r);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(sync_modes_reported),
        DPK_TEST(htd_max_set_and_get),
        DPK_TEST(contradictory_flags_refused),
        DPK_TEST(memsize_values),
        DPK_TEST(memsize_rejects_bad_esize),
        DPK_TEST(memsize_rejects_bad_count),
        DPK_TEST(memsize_rejects_unknown_flags),
        DPK_TEST(init_in_caller_memory),
        DPK_TEST(init_rejects_bad_arguments),
        DPK_TEST(create_sets_errno),
        DPK_TEST(copy_shapes_every_offset),
        DPK_TEST(wrap_sp_sc),
        DPK_TEST(wrap_mp_mc),
        DPK_TEST(wrap_rts_hts),
        DPK_TEST(stale_cache_only_reloads),
        DPK_TEST(mode_switch_keeps_cache_close),
        DPK_TEST(layout_separates_sides),
        DPK_TEST(free_of_caller_memory_is_a_no_op),
};

DPK_TEST_MAIN(cases)
