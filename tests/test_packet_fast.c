/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inline alloc and free paths of packets: the cache they use on an lcore, the pools
 * and threads that must not take them, the state a packet leaves them in after
 * references, and the thread's last pool going stale (another lcore id, a pool freed and
 * another created in its place).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/packet.h>

#include "dpk_test.h"
#include "dpk_test_lcore.h"

#define BUF   512u
#define HEAD  64u
#define COUNT 64u
#define CACHE 8u

static struct dpk_packet_pool *make(unsigned count, unsigned cache, unsigned flags)
{
	struct dpk_packet_pool_params prm = {
	        .count = count,
	        .buf_size = BUF,
	        .headroom = HEAD,
	        .uarea_size = 0,
	        .cache_size = cache,
	        .flags = flags,
	};
	struct dpk_packet_pool *pp = dpk_packet_pool_create(&prm);

	if (pp == NULL)
		dpk_test_fail(__FILE__, __LINE__, "dpk_packet_pool_create: %s", dpk_last_error());
	return pp;
}

static struct dpk_pool *pool_of(struct dpk_packet_pool *pp)
{
	return dpk_packet_pool_to_pool(pp);
}

/* The calling lcore's cache of @p pp. */
static struct dpk_pool_cache *own_cache(struct dpk_packet_pool *pp)
{
	return dpk_pool_default_cache(pool_of(pp), dpk_lcore_id());
}

static unsigned own_count(struct dpk_packet_pool *pp)
{
	return dpk_pool_cache_count(own_cache(pp));
}

static unsigned in_use(struct dpk_packet_pool *pp)
{
	return dpk_pool_in_use_count(pool_of(pp));
}

/* The state alloc promises, whatever the buffer went through before. */
static void expect_fresh(struct dpk_packet_pool *pp, struct dpk_packet *pkt, uint32_t len)
{
	/* White box: the word the inline free compares with the thread's last pool holds
	 * the pool's address alone, without the flag of a referenced packet. */
	EXPECT_TRUE(pkt->pool_tag == (uintptr_t)pp);
	EXPECT_TRUE(dpk_packet_pool(pkt) == pp);
	EXPECT_EQ(len, dpk_packet_len(pkt));
	EXPECT_EQ(len, dpk_packet_seg_len(pkt));
	EXPECT_EQ(HEAD, dpk_packet_headroom(pkt));
	EXPECT_EQ(BUF - HEAD - len, dpk_packet_tailroom(pkt));
	EXPECT_EQ(0, dpk_packet_flow_tag(pkt));
	EXPECT_FALSE(dpk_packet_has_ref(pkt));
	EXPECT_FALSE(dpk_packet_is_referencing(pkt));
}

/* One alloc takes one packet from the top of the lcore's cache and one free puts it back
 * there, also after the cache refilled from the ring and when it must flush to it. */
static void inline_paths_use_the_lcore_cache(void)
{
	struct dpk_packet_pool *pp;
	struct dpk_packet *pkts[3 * CACHE], *again;
	unsigned n;

	dpk_test_start_lcores("0", NULL);
	pp = make(COUNT, CACHE, 0);
	ASSERT_NOT_NULL(pp);
	pkts[0] = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkts[0]);
	EXPECT_EQ(CACHE, own_count(pp)); /* a refill of S + 1, one taken */
	/* White box: the first free makes the pool this thread's last one, which the later
	 * frees find. */
	dpk_packet_free(pkts[0]);
	EXPECT_TRUE(dpk__packet_last_pool == pp);
	pkts[0] = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkts[0]);
	for (unsigned i = 1; i < 3 * CACHE; i++) {
		n = own_count(pp);
		pkts[i] = dpk_packet_alloc(pp, 10 + i);
		ASSERT_NOT_NULL(pkts[i]);
		expect_fresh(pp, pkts[i], 10 + i);
		EXPECT_EQ(n == 0 ? CACHE : n - 1, own_count(pp));
	}
	/* LIFO: a packet freed is the next one allocated. */
	n = own_count(pp);
	dpk_packet_free(pkts[5]);
	EXPECT_EQ(n + 1, own_count(pp));
	again = dpk_packet_alloc(pp, 1);
	EXPECT_TRUE(again == pkts[5]);
	EXPECT_EQ(n, own_count(pp));
	pkts[5] = again;
	/* Frees up to the flush threshold (1.5 S), then one that flushes. */
	for (unsigned i = 0; i < 3 * CACHE; i++) {
		n = own_count(pp);
		dpk_packet_free(pkts[i]);
		EXPECT_EQ(n == CACHE + CACHE / 2 ? 1 : n + 1, own_count(pp));
	}
	EXPECT_EQ(0, in_use(pp));
	EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/* Bad arguments and an empty pool, on an lcore with a cache: the inline path hands them
 * to the checked code, which changes nothing. */
static void errors_on_an_lcore(void)
{
	struct dpk_packet_pool *pp;
	struct dpk_packet *pkts[16], *pkt;

	dpk_test_start_lcores("0", NULL);
	pp = make(16, CACHE, 0);
	ASSERT_NOT_NULL(pp);
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(NULL, 10));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(pp, BUF - HEAD + 1));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(pp, UINT32_MAX));
	ASSERT_EQ(EINVAL, errno);
	EXPECT_EQ(0, in_use(pp));
	pkt = dpk_packet_alloc(pp, BUF - HEAD);
	ASSERT_NOT_NULL(pkt);
	expect_fresh(pp, pkt, BUF - HEAD);
	dpk_packet_free(pkt);
	dpk_packet_free(NULL);
	/* All 16 are reachable from here (ring and own cache); the 17th is not. */
	for (unsigned i = 0; i < 16; i++) {
		pkts[i] = dpk_packet_alloc(pp, 0);
		ASSERT_NOT_NULL(pkts[i]);
	}
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(pp, 1));
	ASSERT_EQ(ENOENT, errno);
	for (unsigned i = 0; i < 16; i++)
		dpk_packet_free(pkts[i]);
	EXPECT_EQ(0, in_use(pp));
	EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/*
 * Buffers that were referenced, or made references, come back to the lcore's cache and
 * out of it as never-referenced packets, which then take the inline free again.
 */
static void referenced_buffers_come_back_fresh(void)
{
	struct dpk_packet_pool *pp;
	struct dpk_packet *pkt, *st, *ref, *ref2, *again[3];
	unsigned n;

	dpk_test_start_lcores("0", NULL);
	pp = make(COUNT, CACHE, 0);
	ASSERT_NOT_NULL(pp);
	for (unsigned round = 0; round < 4; round++) {
		pkt = dpk_packet_alloc(pp, 100);
		ASSERT_NOT_NULL(pkt);
		expect_fresh(pp, pkt, 100);
		st = dpk_packet_ref_static(pkt);
		ref = dpk_packet_ref(pkt, 10);
		ASSERT_NOT_NULL(ref);
		ref2 = dpk_packet_ref(ref, 20);
		ASSERT_NOT_NULL(ref2);
		/* Every handle still knows its pool, and none takes the inline free. */
		EXPECT_TRUE(pkt->pool_tag != (uintptr_t)pp);
		EXPECT_TRUE(ref->pool_tag != (uintptr_t)pp);
		EXPECT_TRUE(ref2->pool_tag != (uintptr_t)pp);
		EXPECT_TRUE(dpk_packet_pool(pkt) == pp);
		EXPECT_TRUE(dpk_packet_pool(ref) == pp);
		EXPECT_TRUE(dpk_packet_pool(ref2) == pp);
		EXPECT_EQ(3, in_use(pp));
		/* Drop them in a different order each round. */
		switch (round) {
		case 0:
			dpk_packet_free(st);
			dpk_packet_free(ref2);
			dpk_packet_free(ref);
			dpk_packet_free(pkt);
			break;
		case 1:
			dpk_packet_free(pkt);
			dpk_packet_free(ref);
			dpk_packet_free(st);
			dpk_packet_free(ref2);
			break;
		case 2: {
			struct dpk_packet *all[4] = {ref2, pkt, st, ref};

			dpk_packet_free_multi(all, 4);
			break;
		}
		default:
			dpk_packet_free(ref2);
			dpk_packet_free(pkt);
			dpk_packet_free(ref);
			EXPECT_EQ(1, in_use(pp));
			EXPECT_FALSE(dpk_packet_has_ref(st));
			EXPECT_EQ(0, dpk_packet_push_head(st, 1));
			dpk_packet_free(st);
			break;
		}
		EXPECT_EQ(0, in_use(pp));
		/* The three buffers, on top of the cache and allocated again together, are
		 * plain packets, and their frees land in the cache one by one. */
		for (unsigned i = 0; i < 3; i++) {
			again[i] = dpk_packet_alloc(pp, 50);
			ASSERT_NOT_NULL(again[i]);
			EXPECT_TRUE(again[i] == pkt || again[i] == ref || again[i] == ref2);
			expect_fresh(pp, again[i], 50);
		}
		for (unsigned i = 0; i < 3; i++) {
			n = own_count(pp);
			dpk_packet_free(again[i]);
			EXPECT_EQ(n + 1, own_count(pp));
		}
	}
	EXPECT_EQ(0, in_use(pp));
	EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/* A debug pool with per-lcore caches: every alloc and free, on an lcore too, is checked,
 * so a double free is refused and counted rather than cached twice. */
static void debug_pool_with_caches_is_checked(void)
{
	struct dpk_packet_pool *pp;
	struct dpk_pool_audit_report r;
	struct dpk_packet *a, *b;

	dpk_test_start_lcores("0", NULL);
	pp = make(COUNT, CACHE, DPK_POOL_F_DEBUG);
	ASSERT_NOT_NULL(pp);
	a = dpk_packet_alloc(pp, 10);
	b = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	/* b first: this thread's last pool is then the debug pool. */
	dpk_packet_free(b);
	EXPECT_TRUE(dpk__packet_last_pool == pp);
	dpk_packet_free(a);
	dpk_packet_free(a);
	EXPECT_EQ(0, in_use(pp));
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(pool_of(pp), &r, NULL, NULL));
	EXPECT_EQ(1, r.refused_puts);
	EXPECT_EQ(0, r.duplicates);
	EXPECT_EQ(0, r.corrupt_gets);
	/* The checked path used the lcore's cache all along. */
	EXPECT_GT(own_count(pp), 0);
	dpk_packet_pool_free(pp);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/* A pool without caches, used on an lcore: everything goes through the ring. */
static void pool_without_caches_on_an_lcore(void)
{
	struct dpk_packet_pool *pp;
	struct dpk_packet *pkts[8];

	dpk_test_start_lcores("0", NULL);
	pp = make(8, 0, 0);
	ASSERT_NOT_NULL(pp);
	ASSERT_NULL(own_cache(pp));
	for (unsigned i = 0; i < 8; i++) {
		pkts[i] = dpk_packet_alloc(pp, 1);
		ASSERT_NOT_NULL(pkts[i]);
		expect_fresh(pp, pkts[i], 1);
	}
	errno = 0;
	ASSERT_NULL(dpk_packet_alloc(pp, 1));
	ASSERT_EQ(ENOENT, errno);
	for (unsigned i = 0; i < 8; i++) {
		dpk_packet_free(pkts[i]);
		EXPECT_EQ(i + 1, dpk_pool_avail_count(pool_of(pp)));
	}
	EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/*
 * The thread's last pool stays while its lcore id changes: frees must use the cache of
 * the id the thread has now. Lcore 0, then no lcore (the ring), then lcore 1.
 */
static void frees_follow_the_lcore_id(void)
{
	struct dpk_packet_pool *pp;
	struct dpk_pool_cache *c0, *c1;
	struct dpk_packet *pkt;
	unsigned n0, n1, avail;
	int rc;

	dpk_test_start_lcores("0", NULL);
	pp = make(COUNT, CACHE, 0);
	ASSERT_NOT_NULL(pp);
	c0 = dpk_pool_default_cache(pool_of(pp), 0);
	c1 = dpk_pool_default_cache(pool_of(pp), 1);
	pkt = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkt);
	dpk_packet_free(pkt); /* the pool is this thread's last from here on */
	pkt = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkt);
	n0 = dpk_pool_cache_count(c0);
	ASSERT_EQ(0, dpk_lcore_fini());

	/* Not an lcore: to the ring, lcore 0's cache left alone. */
	avail = dpk_pool_avail_count(pool_of(pp));
	dpk_packet_free(pkt);
	EXPECT_EQ(n0, dpk_pool_cache_count(c0));
	EXPECT_EQ(avail + 1, dpk_pool_avail_count(pool_of(pp)));
	pkt = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkt);
	EXPECT_EQ(n0, dpk_pool_cache_count(c0));

	rc = dpk_lcore_init("1");
	if (rc == -ENODEV) {
		dpk_packet_free(pkt);
		dpk_packet_pool_free(pp);
		DPK_SKIP("CPU 1 is not available");
	}
	ASSERT_EQ(0, rc);
	ASSERT_EQ(1, dpk_lcore_id());
	n1 = dpk_pool_cache_count(c1);
	dpk_packet_free(pkt);
	EXPECT_EQ(n0, dpk_pool_cache_count(c0));
	EXPECT_EQ(n1 + 1, dpk_pool_cache_count(c1));
	pkt = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkt);
	EXPECT_EQ(n1, dpk_pool_cache_count(c1));
	dpk_packet_free(pkt);
	EXPECT_EQ(n0, dpk_pool_cache_count(c0));
	EXPECT_EQ(0, in_use(pp));
	EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), NULL, NULL, NULL));
	ASSERT_EQ(0, dpk_lcore_fini());
	dpk_packet_pool_free(pp);
}

/*
 * A pool with @p cache and @p flags, at @p where if some count in 2 cache..256 lets the
 * allocator hand out that block again (it does so for a request of the same size), else
 * of COUNT packets anywhere; its count in *@p count.
 */
static struct dpk_packet_pool *make_at(const void *where, unsigned cache, unsigned flags,
                                       unsigned *count)
{
	struct dpk_packet_pool *pp;

	for (unsigned n = 2 * cache; cache != 0 && n <= 256; n++) {
		pp = make(n, cache, flags);
		if (pp == NULL || (const void *)pp == where) {
			*count = n;
			return pp;
		}
		dpk_packet_pool_free(pp);
	}
	*count = COUNT;
	return make(COUNT, cache, flags);
}

/*
 * The thread's last pool is freed and other pools are created, at the same address when
 * the allocator allows (with another layout: other cache sizes and counts, a debug pool)
 * or elsewhere: their packets must go to their own caches, or through the checks.
 */
static void pools_created_where_the_last_one_was(void)
{
	static const struct {
		unsigned cache, flags;
	} next[] = {
	        {2 * CACHE, 0}, {CACHE, DPK_POOL_F_DEBUG}, {CACHE, 0}, {0, 0}, {CACHE / 2, 0},
	};
	struct dpk_packet_pool *pp;
	struct dpk_packet *pkt;
	unsigned same = 0, count;
	void *last;

	dpk_test_start_lcores("0", NULL);
	pp = make(COUNT, CACHE, 0);
	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < sizeof(next) / sizeof(next[0]); i++) {
		struct dpk_pool_audit_report r;
		unsigned n;

		pkt = dpk_packet_alloc(pp, 10);
		ASSERT_NOT_NULL(pkt);
		dpk_packet_free(pkt); /* pp is now this thread's last pool */
		last = pp;
		dpk_packet_pool_free(pp);
		pp = make_at(last, next[i].cache, next[i].flags, &count);
		ASSERT_NOT_NULL(pp);
		same += (void *)pp == last;

		pkt = dpk_packet_alloc(pp, 20);
		ASSERT_NOT_NULL(pkt);
		expect_fresh(pp, pkt, 20);
		n = next[i].cache ? own_count(pp) : 0;
		dpk_packet_free(pkt);
		if (next[i].cache)
			EXPECT_EQ(n + 1, own_count(pp));
		EXPECT_EQ(0, in_use(pp));
		EXPECT_EQ(count, dpk_pool_avail_count(pool_of(pp)));
		if (next[i].flags & DPK_POOL_F_DEBUG) {
			/* Checked: a second free is refused, not cached. */
			dpk_packet_free(pkt);
			EXPECT_EQ(-EBADMSG, dpk_pool_audit(pool_of(pp), &r, NULL, NULL));
			EXPECT_EQ(1, r.refused_puts);
		} else {
			EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), &r, NULL, NULL));
		}
		EXPECT_EQ(0, r.duplicates);
		EXPECT_EQ(0, r.foreign);
	}
	dpk_test_note("%u of %zu pools created at the address of the one just freed", same,
	              sizeof(next) / sizeof(next[0]));
	dpk_packet_pool_free(pp);
	ASSERT_EQ(0, dpk_lcore_fini());
}

struct thread_arg {
	struct dpk_packet_pool *pp;
	struct dpk_packet *pkts[4];
	unsigned lcore_id;
};

static void *free_on_plain_thread(void *arg)
{
	struct thread_arg *t = arg;

	t->lcore_id = dpk_lcore_id();
	for (unsigned i = 0; i < 4; i++)
		dpk_packet_free(t->pkts[i]);
	return NULL;
}

/* Packets freed by a thread that is not an lcore go to the ring, though their pool
 * becomes that thread's last one. */
static void frees_on_a_thread_that_is_not_an_lcore(void)
{
	struct dpk_packet_pool *pp;
	struct thread_arg t;
	pthread_t th;
	unsigned n, avail;

	dpk_test_start_lcores("0", NULL);
	pp = make(COUNT, CACHE, 0);
	ASSERT_NOT_NULL(pp);
	t.pp = pp;
	for (unsigned i = 0; i < 4; i++) {
		t.pkts[i] = dpk_packet_alloc(pp, 10);
		ASSERT_NOT_NULL(t.pkts[i]);
	}
	n = own_count(pp);
	avail = dpk_pool_avail_count(pool_of(pp));
	ASSERT_EQ(0, pthread_create(&th, NULL, free_on_plain_thread, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(DPK_LCORE_ANY, t.lcore_id);
	EXPECT_EQ(n, own_count(pp));
	EXPECT_EQ(avail + 4, dpk_pool_avail_count(pool_of(pp)));
	EXPECT_EQ(0, in_use(pp));
	EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
	ASSERT_EQ(0, dpk_lcore_fini());
}

struct remote_arg {
	struct dpk_packet *pkts[2];
	unsigned n;
	bool shared;      /* has_ref of the first handle, as the worker saw it */
	bool referencing; /* is_referencing of the first handle */
};

static int free_on_worker(void *arg)
{
	struct remote_arg *a = arg;

	a->shared = dpk_packet_has_ref(a->pkts[0]);
	a->referencing = dpk_packet_is_referencing(a->pkts[0]);
	for (unsigned i = 0; i < a->n; i++)
		dpk_packet_free(a->pkts[i]);
	return 0;
}

/*
 * References made on the main lcore and freed on a worker, before and after the main
 * lcore's own free: the buffers come back once, and the packets the main lcore still
 * holds become its own again.
 */
static void references_freed_on_another_lcore(void)
{
	struct dpk_packet_pool *pp;
	struct remote_arg a;
	struct dpk_packet *pkt, *ref;
	unsigned worker;

	dpk_test_start_lcores("0-1", "(0-1)@0");
	worker = dpk_lcore_id() == 0 ? 1 : 0;
	pp = make(COUNT, CACHE, 0);
	ASSERT_NOT_NULL(pp);
	for (unsigned round = 0; round < 4; round++) {
		pkt = dpk_packet_alloc(pp, 100);
		ASSERT_NOT_NULL(pkt);
		if (round % 2 == 0) {
			/* A static reference for the worker. */
			a.pkts[0] = dpk_packet_ref_static(pkt);
			a.n = 1;
		} else {
			/* A reference at an offset, and a static one of it. */
			ref = dpk_packet_ref(pkt, 30);
			ASSERT_NOT_NULL(ref);
			a.pkts[0] = ref;
			a.pkts[1] = dpk_packet_ref_static(ref);
			a.n = 2;
		}
		if (round >= 2) {
			/* The main lcore lets go first: the worker's free is the last. */
			dpk_packet_free(pkt);
			pkt = NULL;
		}
		ASSERT_EQ(0, dpk_lcore_launch(worker, free_on_worker, &a));
		ASSERT_EQ(0, dpk_lcore_wait(worker));
		/* Shared but in round 2, where the worker held the last hold. */
		EXPECT_EQ(round != 2, a.shared);
		EXPECT_EQ(round % 2 == 1, a.referencing);
		if (pkt != NULL) {
			EXPECT_EQ(1, in_use(pp));
			EXPECT_FALSE(dpk_packet_has_ref(pkt));
			EXPECT_EQ(0, dpk_packet_flow_tag_set(pkt, 5));
			dpk_packet_free(pkt);
		}
		EXPECT_EQ(0, in_use(pp));
	}
	/* Every buffer once: in the ring or in one of the two caches. */
	EXPECT_EQ(COUNT, dpk_pool_avail_count(pool_of(pp)));
	EXPECT_EQ(0, dpk_pool_audit(pool_of(pp), NULL, NULL, NULL));
	ASSERT_EQ(0, dpk_lcore_fini());
	dpk_packet_pool_free(pp);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(inline_paths_use_the_lcore_cache),
        DPK_TEST(errors_on_an_lcore),
        DPK_TEST(referenced_buffers_come_back_fresh),
        DPK_TEST(debug_pool_with_caches_is_checked),
        DPK_TEST(pool_without_caches_on_an_lcore),
        DPK_TEST(frees_follow_the_lcore_id),
        DPK_TEST(pools_created_where_the_last_one_was),
        DPK_TEST(frees_on_a_thread_that_is_not_an_lcore),
        DPK_TEST(references_freed_on_another_lcore),
};

DPK_TEST_MAIN(cases)
