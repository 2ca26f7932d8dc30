/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet buffers: pools, alloc/free, the multi calls, room arithmetic, offsets, the flow
 * tag and the user area. */
#include "packet_fixture.h"

static void pool_create_rejects_bad_params(void)
{
	struct dpk_packet_pool_params prm;
	static const struct {
		unsigned count, buf, head, uarea, cache, flags;
	} bad[] = {
	        {0, BUF, HEAD, 0, 0, 0},                              /* no packets */
	        {COUNT, 0, 0, 0, 0, 0},                               /* no buffer */
	        {COUNT, BUF, BUF + 1, 0, 0, 0},                       /* headroom past it */
	        {COUNT, DPK_PACKET_BUF_SIZE_MAX + 1, 0, 0, 0, 0},     /* buffer too large */
	        {COUNT, BUF, HEAD, DPK_PACKET_UAREA_MAX + 1, 0, 0},   /* user area too large */
	        {COUNT, BUF, HEAD, 0, DPK_POOL_CACHE_MAX + 1, 0},     /* cache too large */
	        {COUNT, BUF, HEAD, 0, COUNT, 0},                      /* pool too small for it */
	        {COUNT, BUF, HEAD, 0, 0, 0x1000},                     /* unknown flag */
	        {COUNT, BUF, HEAD, 64, 0, DPK_POOL_F_NO_CACHE_ALIGN}, /* packets off lines */
	        {COUNT, BUF, HEAD, 64, 0, DPK_POOL_F_NO_CACHE_ALIGN | DPK_POOL_F_DEBUG},
	        {DPK_POOL_COUNT_MAX + 1u, BUF, HEAD, 0, 0, 0}, /* too many */
	};

	errno = 0;
	ASSERT_NULL(dpk_packet_pool_create(NULL));
	ASSERT_EQ(EINVAL, errno);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		prm.count = bad[i].count;
		prm.buf_size = bad[i].buf;
		prm.headroom = bad[i].head;
		prm.uarea_size = bad[i].uarea;
		prm.cache_size = bad[i].cache;
		prm.flags = bad[i].flags;
		errno = 0;
		EXPECT_NULL(dpk_packet_pool_create(&prm));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_TRUE(strlen(dpk_last_error()) > 0);
	}
	dpk_packet_pool_free(NULL);
}

/* Under every flag a packet pool takes, each packet's metadata and user area start on a
 * cache line, as the header promises for the user area. */
static void packets_start_on_cache_lines(void)
{
	static const unsigned flags[] = {0, DPK_POOL_F_DEBUG, DPK_POOL_F_SP_PUT | DPK_POOL_F_SC_GET,
	                                 DPK_POOL_F_DEBUG | DPK_POOL_F_SP_PUT};
	struct dpk_packet *pkts[COUNT];

	for (unsigned f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 40, 0, flags[f]);

		ASSERT_NOT_NULL(pp);
		for (unsigned i = 0; i < COUNT; i++) {
			pkts[i] = dpk_packet_alloc(pp, 1);
			ASSERT_NOT_NULL(pkts[i]);
			EXPECT_EQ(0, (uintptr_t)pkts[i] % DPK_CACHE_LINE);
			EXPECT_EQ(0, (uintptr_t)dpk_packet_uarea(pkts[i]) % DPK_CACHE_LINE);
		}
		dpk_packet_free_multi(pkts, COUNT);
		dpk_packet_pool_free(pp);
	}
}

static void pool_params(void)
{
	struct dpk_packet_pool_params prm;
	struct dpk_packet_pool *pp;

	dpk_packet_pool_params_init(&prm);
	ASSERT_EQ(DPK_PACKET_DEFAULT_COUNT, prm.count);
	ASSERT_EQ(DPK_PACKET_DEFAULT_BUF_SIZE, prm.buf_size);
	ASSERT_EQ(DPK_PACKET_DEFAULT_HEADROOM, prm.headroom);
	ASSERT_EQ(DPK_PACKET_DEFAULT_CACHE, prm.cache_size);
	ASSERT_EQ(0, prm.uarea_size);
	ASSERT_EQ(0, prm.flags);
	dpk_packet_pool_params_init(NULL);
	prm.uarea_size = 24;
	pp = dpk_packet_pool_create(&prm);
	ASSERT_NOT_NULL(pp);
	ASSERT_EQ(24, dpk_packet_pool_params(pp)->uarea_size);
	ASSERT_EQ(DPK_PACKET_DEFAULT_COUNT, dpk_pool_count(dpk_packet_pool_to_pool(pp)));
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

struct parity {
	struct dpk_pool *pool;
	unsigned visited, even;
};

/* Count the packets whose metadata is an even number of lines from some cache header. */
static void check_parity(struct dpk_pool *p, void *obj, unsigned idx, void *arg)
{
	struct parity *par = arg;

	(void)idx;
	par->visited++;
	for (unsigned id = 0; id < DPK_LCORE_MAX; id++) {
		intptr_t hdr = (intptr_t)dpk_pool_default_cache(p, id) / DPK_CACHE_LINE;

		if (((intptr_t)obj / DPK_CACHE_LINE - hdr) % 2 == 0) {
			par->even++;
			return;
		}
	}
}

static void metadata_stays_off_cache_header_lines(void)
{
	/* Buffer and user area sizes that make odd and even numbers of lines. */
	static const unsigned sizes[][2] = {{BUF, 0}, {2048, 0}, {2000, 24}, {100, 100}, {64, 0}};

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct dpk_packet_pool *pp = make(COUNT, sizes[i][0], 0, sizes[i][1], 4, 0);
		struct parity par = {0};

		ASSERT_NOT_NULL(pp);
		par.pool = dpk_packet_pool_to_pool(pp);
		EXPECT_EQ(COUNT, dpk_pool_obj_iter(par.pool, check_parity, &par));
		EXPECT_EQ(COUNT, par.visited);
		EXPECT_EQ(0, par.even);
		dpk_packet_pool_free(pp);
	}
}

static void alloc_and_free(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, 0);
	struct dpk_packet *pkt;

	ASSERT_NOT_NULL(pp);
	pkt = dpk_packet_alloc(pp, 100);
	ASSERT_NOT_NULL(pkt);
	ASSERT_EQ(100, dpk_packet_len(pkt));
	ASSERT_EQ(100, dpk_packet_seg_len(pkt));
	ASSERT_EQ(HEAD, dpk_packet_headroom(pkt));
	ASSERT_EQ(BUF - HEAD - 100, dpk_packet_tailroom(pkt));
	ASSERT_EQ(0, dpk_packet_flow_tag(pkt));
	ASSERT_TRUE(dpk_packet_pool(pkt) == pp);
	ASSERT_NULL(dpk_packet_uarea(pkt));
	ASSERT_FALSE(dpk_packet_has_ref(pkt));
	ASSERT_FALSE(dpk_packet_is_referencing(pkt));
	ASSERT_EQ(0, (uintptr_t)dpk_packet_data(pkt) % DPK_CACHE_LINE); /* HEAD is 64 */
	fill(pkt, 1);
	ASSERT_EQ(1, in_use(pp));
	dpk_packet_free(pkt);
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_free(NULL);

	/* The largest length, and one past it. */
	pkt = dpk_packet_alloc(pp, BUF - HEAD);
	ASSERT_NOT_NULL(pkt);
	ASSERT_EQ(0, dpk_packet_tailroom(pkt));
	fill(pkt, 2);
	dpk_packet_free(pkt);
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(pp, BUF - HEAD + 1));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(NULL, 10));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* A packet comes back reset, whatever the last user did to it. */
static void alloc_resets_metadata(void)
{
	struct dpk_packet_pool *pp = make(1, BUF, HEAD, 0, 0, 0);
	struct dpk_packet *pkt, *again;

	ASSERT_NOT_NULL(pp);
	pkt = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkt);
	ASSERT_EQ(0, dpk_packet_push_head(pkt, 20));
	ASSERT_EQ(0, dpk_packet_put_tail(pkt, 30));
	ASSERT_EQ(0, dpk_packet_flow_tag_set(pkt, 77));
	dpk_packet_free(pkt);
	again = dpk_packet_alloc(pp, 5);
	ASSERT_TRUE(again == pkt);
	ASSERT_EQ(5, dpk_packet_len(again));
	ASSERT_EQ(HEAD, dpk_packet_headroom(again));
	ASSERT_EQ(0, dpk_packet_flow_tag(again));
	dpk_packet_free(again);
	dpk_packet_pool_free(pp);
}

static void alloc_until_empty(void)
{
	struct dpk_packet_pool *pp = make(8, BUF, HEAD, 0, 0, 0);
	struct dpk_packet *pkts[8];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 8; i++) {
		pkts[i] = dpk_packet_alloc(pp, 1);
		ASSERT_NOT_NULL(pkts[i]);
	}
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(pp, 1));
	ASSERT_EQ(ENOENT, errno);
	dpk_packet_free_multi(pkts, 8);
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

/* Partial success is documented: alloc_multi returns what it could get. */
static void check_alloc_multi(unsigned cache)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, cache, 0);
	struct dpk_packet *pkts[COUNT + 8], *more[4];
	struct dpk_pool *p;
	unsigned char seen[COUNT] = {0};
	int n;

	ASSERT_NOT_NULL(pp);
	p = dpk_packet_pool_to_pool(pp);
	ASSERT_EQ(-EINVAL, dpk_packet_alloc_multi(NULL, 10, pkts, 4));
	ASSERT_EQ(-EINVAL, dpk_packet_alloc_multi(pp, 10, NULL, 4));
	ASSERT_EQ(-EINVAL, dpk_packet_alloc_multi(pp, BUF - HEAD + 1, pkts, 4));
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_packet_alloc_multi(pp, 10, pkts, 0));
	ASSERT_EQ(0, dpk_packet_alloc_multi(pp, 10, NULL, 0));

	ASSERT_EQ(4, dpk_packet_alloc_multi(pp, 10, pkts, 4));
	dpk_packet_free_multi(pkts, 4);
	n = dpk_packet_alloc_multi(pp, 33, pkts, COUNT + 8);
	ASSERT_EQ(COUNT, n);
	for (int i = 0; i < n; i++) {
		int idx = dpk_pool_obj_index(p, pkts[i]);

		ASSERT_GE(idx, 0);
		ASSERT_EQ(0, seen[idx]);
		seen[idx] = 1;
		ASSERT_EQ(33, dpk_packet_len(pkts[i]));
		ASSERT_EQ(HEAD, dpk_packet_headroom(pkts[i]));
		ASSERT_EQ(0, dpk_packet_flow_tag(pkts[i]));
	}
	ASSERT_EQ(0, dpk_packet_alloc_multi(pp, 10, more, 4));
	/* Five back: four, then the one left of a request for four. */
	dpk_packet_free_multi(pkts, 5);
	ASSERT_EQ(4, dpk_packet_alloc_multi(pp, 10, more, 4));
	ASSERT_EQ(1, dpk_packet_alloc_multi(pp, 10, pkts, 4));
	ASSERT_EQ(0, dpk_packet_alloc_multi(pp, 10, pkts + 1, 4));
	dpk_packet_free_multi(more, 4);
	dpk_packet_free(pkts[0]);
	dpk_packet_free_multi(pkts + 5, COUNT - 5);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

static void alloc_multi_partial(void)
{
	check_alloc_multi(0);
}

/* As an lcore with a cache of 8: what is reachable is the ring plus this lcore's cache,
 * and a short request is served from both. */
static void alloc_multi_partial_cached(void)
{
	int rc = dpk_lcore_init("0");

	if (rc == -ENODEV)
		DPK_SKIP("CPU 0 is not available");
	ASSERT_EQ(0, rc);
	check_alloc_multi(8);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/*
 * Single frees as an lcore with caches: each packet goes back to the cache of its own
 * pool, also when packets of two pools alternate (the free path remembers the last pool
 * of the thread), and once the thread is no longer an lcore, to the ring.
 */
static void single_frees_find_their_pool(void)
{
	struct dpk_packet_pool *a, *b;
	struct dpk_pool_cache *ca, *cb;
	struct dpk_packet *pa[8], *pb[8], *last;
	unsigned na, nb;
	int rc = dpk_lcore_init("0");

	if (rc == -ENODEV)
		DPK_SKIP("CPU 0 is not available");
	ASSERT_EQ(0, rc);
	a = make(COUNT, BUF, HEAD, 0, 8, 0);
	b = make(COUNT, 256, 0, 16, 8, 0);
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	ca = dpk_pool_default_cache(dpk_packet_pool_to_pool(a), dpk_lcore_id());
	cb = dpk_pool_default_cache(dpk_packet_pool_to_pool(b), dpk_lcore_id());
	ASSERT_NOT_NULL(ca);
	ASSERT_NOT_NULL(cb);
	for (unsigned i = 0; i < 8; i++) {
		pa[i] = dpk_packet_alloc(a, 10);
		pb[i] = dpk_packet_alloc(b, 20);
		ASSERT_NOT_NULL(pa[i]);
		ASSERT_NOT_NULL(pb[i]);
	}
	na = dpk_pool_cache_count(ca);
	nb = dpk_pool_cache_count(cb);
	for (unsigned i = 0; i < 8; i++) {
		dpk_packet_free(pa[i]); /* the last pool is b's, then a's */
		dpk_packet_free(pb[i]);
	}
	EXPECT_EQ(na + 8, dpk_pool_cache_count(ca));
	EXPECT_EQ(nb + 8, dpk_pool_cache_count(cb));
	/* Frees of one pool after allocs of the other. */
	for (unsigned i = 0; i < 4; i++) {
		pa[i] = dpk_packet_alloc(a, 10);
		ASSERT_NOT_NULL(pa[i]);
	}
	for (unsigned i = 0; i < 4; i++) {
		pb[i] = dpk_packet_alloc(b, 10);
		ASSERT_NOT_NULL(pb[i]);
	}
	for (unsigned i = 0; i < 4; i++)
		dpk_packet_free(pa[i]);
	for (unsigned i = 0; i < 4; i++)
		dpk_packet_free(pb[i]);
	EXPECT_EQ(na + 8, dpk_pool_cache_count(ca));
	EXPECT_EQ(nb + 8, dpk_pool_cache_count(cb));
	EXPECT_EQ(0, in_use(a));
	EXPECT_EQ(0, in_use(b));

	/* a is the thread's last pool (a free of one of its packets made it so); after fini
	 * the thread has no cache, and a free that finds a as its last pool uses none. */
	last = dpk_packet_alloc(a, 10);
	ASSERT_NOT_NULL(last);
	pa[0] = dpk_packet_alloc(a, 10);
	ASSERT_NOT_NULL(pa[0]);
	dpk_packet_free(pa[0]);
	na = dpk_pool_cache_count(ca);
	ASSERT_EQ(0, dpk_lcore_fini());
	dpk_packet_free(last);
	EXPECT_EQ(na, dpk_pool_cache_count(ca));
	EXPECT_EQ(0, in_use(a));
	EXPECT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(a), NULL, NULL, NULL));
	EXPECT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(b), NULL, NULL, NULL));
	dpk_packet_pool_free(a);
	dpk_packet_pool_free(b);
}

static void alloc_multi_partial_debug(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *pkts[COUNT];

	ASSERT_NOT_NULL(pp);
	ASSERT_EQ(COUNT, dpk_packet_alloc_multi(pp, 1, pkts, COUNT));
	ASSERT_EQ(0, dpk_packet_alloc_multi(pp, 1, pkts, 1));
	dpk_packet_free_multi(pkts, COUNT);
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* Five pools (more than free_multi groups at once), interleaved, with NULLs. */
static void free_multi_mixed_pools(void)
{
	enum { POOLS = 5, EACH = 40 };
	struct dpk_packet_pool *pps[POOLS];
	struct dpk_packet *pkts[POOLS * EACH + 3];
	unsigned n = 0;

	for (unsigned i = 0; i < POOLS; i++) {
		pps[i] = make(EACH, 128, 0, 0, 0, DPK_POOL_F_DEBUG);
		ASSERT_NOT_NULL(pps[i]);
	}
	for (unsigned j = 0; j < EACH; j++) {
		for (unsigned i = 0; i < POOLS; i++) {
			pkts[n] = dpk_packet_alloc(pps[i], 8);
			ASSERT_NOT_NULL(pkts[n]);
			n++;
		}
		if (j % 16 == 0)
			pkts[n++] = NULL;
	}
	for (unsigned i = 0; i < POOLS; i++)
		ASSERT_EQ(EACH, in_use(pps[i]));
	dpk_packet_free_multi(pkts, n);
	for (unsigned i = 0; i < POOLS; i++) {
		ASSERT_EQ(0, in_use(pps[i]));
		ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pps[i]), NULL, NULL, NULL));
		dpk_packet_pool_free(pps[i]);
	}
	dpk_packet_free_multi(NULL, 3);
	dpk_packet_free_multi(pkts, 0);
}

static void head_and_tail_room(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, 0);
	struct dpk_packet *pkt;
	unsigned char *d;

	ASSERT_NOT_NULL(pp);
	pkt = dpk_packet_alloc(pp, 100);
	ASSERT_NOT_NULL(pkt);
	d = dpk_packet_data(pkt);

	/* Head: push past the headroom fails and changes nothing. */
	ASSERT_EQ(-ENOSPC, dpk_packet_push_head(pkt, HEAD + 1));
	ASSERT_EQ(100, dpk_packet_len(pkt));
	ASSERT_TRUE(dpk_packet_data(pkt) == d);
	ASSERT_EQ(0, dpk_packet_push_head(pkt, 14));
	ASSERT_TRUE((unsigned char *)dpk_packet_data(pkt) == d - 14);
	ASSERT_EQ(114, dpk_packet_len(pkt));
	ASSERT_EQ(HEAD - 14, dpk_packet_headroom(pkt));
	ASSERT_EQ(0, dpk_packet_push_head(pkt, HEAD - 14));
	ASSERT_EQ(0, dpk_packet_headroom(pkt));
	ASSERT_EQ(-ENOSPC, dpk_packet_push_head(pkt, 1));
	ASSERT_EQ(0, dpk_packet_push_head(pkt, 0));
	ASSERT_EQ(-EINVAL, dpk_packet_pull_head(pkt, 100 + HEAD + 1));
	ASSERT_EQ(100 + HEAD, dpk_packet_len(pkt));
	ASSERT_EQ(0, dpk_packet_pull_head(pkt, HEAD));
	ASSERT_TRUE(dpk_packet_data(pkt) == d);
	ASSERT_EQ(HEAD, dpk_packet_headroom(pkt));

	/* Tail. */
	ASSERT_EQ(BUF - HEAD - 100, dpk_packet_tailroom(pkt));
	ASSERT_EQ(-ENOSPC, dpk_packet_put_tail(pkt, BUF - HEAD - 100 + 1));
	ASSERT_EQ(100, dpk_packet_len(pkt));
	ASSERT_EQ(0, dpk_packet_put_tail(pkt, BUF - HEAD - 100));
	ASSERT_EQ(0, dpk_packet_tailroom(pkt));
	ASSERT_EQ(BUF - HEAD, dpk_packet_len(pkt));
	fill(pkt, 3); /* every byte up to the end of the buffer is there */
	ASSERT_EQ(-ENOSPC, dpk_packet_put_tail(pkt, 1));
	ASSERT_EQ(-EINVAL, dpk_packet_trim_tail(pkt, BUF - HEAD + 1));
	ASSERT_EQ(0, dpk_packet_trim_tail(pkt, BUF - HEAD - 10));
	ASSERT_EQ(10, dpk_packet_len(pkt));
	ASSERT_EQ(BUF - HEAD - 10, dpk_packet_tailroom(pkt));

	/* Down to nothing and back. */
	ASSERT_EQ(0, dpk_packet_pull_head(pkt, 10));
	ASSERT_EQ(0, dpk_packet_len(pkt));
	ASSERT_EQ(HEAD + 10, dpk_packet_headroom(pkt));
	ASSERT_EQ(-EINVAL, dpk_packet_pull_head(pkt, 1));
	ASSERT_EQ(-EINVAL, dpk_packet_trim_tail(pkt, 1));
	ASSERT_EQ(0, dpk_packet_trim_tail(pkt, 0));
	ASSERT_EQ(HEAD + 10 + dpk_packet_tailroom(pkt), BUF);
	ASSERT_EQ(0, dpk_packet_put_tail(pkt, 5));
	ASSERT_EQ(5, dpk_packet_len(pkt));
	dpk_packet_free(pkt);

	/* A pool whose headroom is the whole buffer: only empty packets. */
	dpk_packet_pool_free(pp);
	pp = make(2, 64, 64, 0, 0, 0);
	ASSERT_NOT_NULL(pp);
	ASSERT_NULL(dpk_packet_alloc(pp, 1));
	pkt = dpk_packet_alloc(pp, 0);
	ASSERT_NOT_NULL(pkt);
	ASSERT_EQ(0, dpk_packet_tailroom(pkt));
	ASSERT_EQ(64, dpk_packet_headroom(pkt));
	dpk_packet_free(pkt);
	dpk_packet_pool_free(pp);
}

static void offset_and_read(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, 0);
	struct dpk_packet *pkt;
	unsigned char out[64];
	uint32_t seg = 0;
	unsigned char *p;

	ASSERT_NOT_NULL(pp);
	pkt = dpk_packet_alloc(pp, 50);
	ASSERT_NOT_NULL(pkt);
	fill(pkt, 10);
	p = dpk_packet_offset(pkt, 7, &seg);
	ASSERT_TRUE(p == (unsigned char *)dpk_packet_data(pkt) + 7);
	ASSERT_EQ(43, seg);
	ASSERT_EQ(17, *p);
	ASSERT_NOT_NULL(dpk_packet_offset(pkt, 49, NULL));
	ASSERT_NULL(dpk_packet_offset(pkt, 50, &seg));
	ASSERT_EQ(0, dpk_packet_read(pkt, 5, 45, out));
	for (unsigned i = 0; i < 45; i++)
		ASSERT_EQ((unsigned char)(15 + i), out[i]);
	ASSERT_EQ(0, dpk_packet_read(pkt, 50, 0, out));
	ASSERT_EQ(0, dpk_packet_read(pkt, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, dpk_packet_read(pkt, 5, 46, out));
	ASSERT_EQ(-EINVAL, dpk_packet_read(pkt, 51, 0, out));
	ASSERT_EQ(-EINVAL, dpk_packet_read(pkt, UINT32_MAX, 2, out));
	ASSERT_EQ(-EINVAL, dpk_packet_read(pkt, 0, 1, NULL));
	ASSERT_EQ(-EINVAL, dpk_packet_read(NULL, 0, 0, out));
	dpk_packet_free(pkt);
	dpk_packet_pool_free(pp);
}

static void flow_tag_and_user_area(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 40, 0, 0);
	struct dpk_packet *a, *b;
	unsigned char *ua, *ub;

	ASSERT_NOT_NULL(pp);
	a = dpk_packet_alloc(pp, BUF - HEAD);
	b = dpk_packet_alloc(pp, BUF - HEAD);
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(0, dpk_packet_flow_tag_set(a, 0xdeadbeef));
	ASSERT_EQ(0xdeadbeef, dpk_packet_flow_tag(a));
	ASSERT_EQ(0, dpk_packet_flow_tag(b));
	ua = dpk_packet_uarea(a);
	ub = dpk_packet_uarea(b);
	ASSERT_NOT_NULL(ua);
	ASSERT_NOT_NULL(ub);
	ASSERT_TRUE(ua != ub);
	ASSERT_EQ(0, (uintptr_t)ua % DPK_CACHE_LINE);
	/* The user area and the whole buffer are separate: write both, check both. */
	memset(ua, 0x11, 40);
	ASSERT_EQ(0, dpk_packet_push_head(a, HEAD));
	memset(dpk_packet_data(a), 0x22, BUF);
	for (unsigned i = 0; i < 40; i++)
		ASSERT_EQ(0x11, ua[i]);
	ASSERT_EQ(0xdeadbeef, dpk_packet_flow_tag(a));
	ASSERT_TRUE(dpk_packet_pool(a) == pp);
	dpk_packet_free(a);
	dpk_packet_free(b);
	dpk_packet_pool_free(pp);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(pool_create_rejects_bad_params),
        DPK_TEST(pool_params),
        DPK_TEST(packets_start_on_cache_lines),
        DPK_TEST(metadata_stays_off_cache_header_lines),
        DPK_TEST(alloc_and_free),
        DPK_TEST(alloc_resets_metadata),
        DPK_TEST(alloc_until_empty),
        DPK_TEST(alloc_multi_partial),
        DPK_TEST(alloc_multi_partial_cached),
        DPK_TEST(alloc_multi_partial_debug),
        DPK_TEST(single_frees_find_their_pool),
        DPK_TEST(free_multi_mixed_pools),
        DPK_TEST(head_and_tail_room),
        DPK_TEST(offset_and_read),
        DPK_TEST(flow_tag_and_user_area),
};

DPK_TEST_MAIN(cases)
