/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Object pool under concurrent gets and puts from more lcores than CPUs, with and without
 * caches, plus plain threads (one with a user cache, one on the ring). Every object held
 * is marked in a per-object flag and stamped with its holder; after the run every object
 * must be back exactly once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/pool.h>
#include <dpk/ring.h>

#include "dpk_test.h"
#include "dpk_test_lcore.h"

#define COUNT      768u /* small enough that holders and caches run it dry */
#define OBJ_SIZE   64u
#define MAX_HOLD   96u
#define MAX_BULK   40u /* above the small cache size, so bypasses happen too */
#define FREE_STAMP UINT64_C(0xf4eef4eef4eef4ee)

struct run {
	struct dpk_pool *p;
	_Atomic unsigned char held[COUNT];
	uint64_t seed;
	uint64_t deadline_ms;
	_Atomic uint64_t gets, puts, misses;
};

/* A holder's stamp in the first word of an object. */
static uint64_t stamp_of(unsigned who, uint64_t seq)
{
	return (uint64_t)(who + 1) << 48 | seq;
}

static void take(struct run *r, void *obj, uint64_t stamp)
{
	int idx = dpk_pool_obj_index(r->p, obj);
	uint64_t *w = obj;

	if (idx < 0) {
		EXPECT_GE(idx, 0);
		return;
	}
	if (atomic_exchange_explicit(&r->held[idx], 1, memory_order_relaxed) != 0)
		dpk_test_fail(__FILE__, __LINE__, "object %d handed out while held", idx);
	if (*w != FREE_STAMP)
		dpk_test_fail(__FILE__, __LINE__, "object %d: stamp %#llx, not free", idx,
		              (unsigned long long)*w);
	*w = stamp;
}

static void give(struct run *r, void *obj, uint64_t stamp)
{
	int idx = dpk_pool_obj_index(r->p, obj);
	uint64_t *w = obj;

	if (*w != stamp)
		dpk_test_fail(__FILE__, __LINE__, "object %d: stamp %#llx changed while held", idx,
		              (unsigned long long)*w);
	*w = FREE_STAMP;
	if (idx >= 0 && atomic_exchange_explicit(&r->held[idx], 0, memory_order_relaxed) != 1)
		dpk_test_fail(__FILE__, __LINE__, "object %d given back but not held", idx);
}

/*
 * Random gets and puts until the deadline through @p cache (NULL: the calling thread's
 * default, which is the ring for a plain thread). Objects are stamped per get.
 */
static void churn(struct run *r, unsigned who, struct dpk_pool_cache *cache, bool use_default)
{
	uint64_t rng = r->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (who + 1));
	void *mine[MAX_HOLD];
	uint64_t stamps[MAX_HOLD];
	unsigned n = 0;
	uint64_t seq = 0, gets = 0, puts = 0, misses = 0;

	while (dpk_test_now_ms() < r->deadline_ms) {
		uint64_t x = dpk_test_rand(&rng);
		bool get = n == 0 || (n < MAX_HOLD && (x & 1));

		if (get) {
			unsigned room = MAX_HOLD - n;
			unsigned k = 1 + (unsigned)(x >> 8) % (room < MAX_BULK ? room : MAX_BULK);
			int rc = use_default ? dpk_pool_get_bulk(r->p, mine + n, k)
			                     : dpk_pool_generic_get(r->p, mine + n, k, cache);

			if (rc == -ENOENT) {
				misses++;
				continue;
			}
			EXPECT_EQ(0, rc);
			for (unsigned i = 0; i < k; i++) {
				stamps[n + i] = stamp_of(who, seq++);
				take(r, mine[n + i], stamps[n + i]);
			}
			n += k;
			gets += k;
		} else {
			unsigned k = 1 + (unsigned)(x >> 8) % (n < MAX_BULK ? n : MAX_BULK);

			n -= k;
			for (unsigned i = 0; i < k; i++)
				give(r, mine[n + i], stamps[n + i]);
			if (use_default)
				dpk_pool_put_bulk(r->p, mine + n, k);
			else
				dpk_pool_generic_put(r->p, mine + n, k, cache);
			puts += k;
		}
	}
	for (unsigned i = 0; i < n; i++)
		give(r, mine[i], stamps[i]);
	if (use_default)
		dpk_pool_put_bulk(r->p, mine, n);
	else
		dpk_pool_generic_put(r->p, mine, n, cache);
	atomic_fetch_add_explicit(&r->gets, gets, memory_order_relaxed);
	atomic_fetch_add_explicit(&r->puts, puts + n, memory_order_relaxed);
	atomic_fetch_add_explicit(&r->misses, misses, memory_order_relaxed);
}

static int lcore_main(void *arg)
{
	struct run *r = arg;

	/* Half the lcores use their default cache, half go to the ring explicitly. */
	churn(r, dpk_lcore_id(), NULL, dpk_lcore_id() % 2 == 0);
	return 0;
}

struct plain {
	struct run *r;
	struct dpk_pool_cache *cache;
	unsigned who;
};

static void *plain_main(void *arg)
{
	struct plain *t = arg;

	churn(t->r, t->who, t->cache, t->cache == NULL);
	return NULL;
}

static void fill_free(struct dpk_pool *p, void *obj, unsigned idx, void *arg)
{
	(void)p;
	(void)idx;
	(void)arg;
	*(uint64_t *)obj = FREE_STAMP;
}

/* After a run: every object back exactly once, and the counts agree. */
static void check_all_back(struct run *r)
{
	struct dpk_pool_audit_report rep;
	unsigned char seen[COUNT] = {0};
	void **all = malloc(COUNT * sizeof(void *));
	void *extra;
	unsigned id;

	ASSERT_NOT_NULL(all);
	for (unsigned i = 0; i < COUNT; i++)
		EXPECT_EQ(0, atomic_load(&r->held[i]));
	ASSERT_EQ(COUNT, dpk_pool_avail_count(r->p));
	EXPECT_EQ(0, dpk_pool_audit(r->p, &rep, NULL, NULL));
	EXPECT_EQ(0, rep.in_use);
	EXPECT_EQ(0, rep.duplicates);
	/* No put found the ring full: with every object put once, it always has room. */
	EXPECT_EQ(0, rep.excess_puts);
	/* Drain the lcore caches into the ring and take everything out of it. */
	for (id = 0; id < DPK_LCORE_MAX; id++)
		dpk_pool_cache_flush(dpk_pool_default_cache(r->p, id));
	ASSERT_EQ(0, dpk_pool_generic_get(r->p, all, COUNT, NULL));
	ASSERT_EQ(-ENOENT, dpk_pool_generic_get(r->p, &extra, 1, NULL));
	for (unsigned i = 0; i < COUNT; i++) {
		int idx = dpk_pool_obj_index(r->p, all[i]);

		ASSERT_GE(idx, 0);
		ASSERT_EQ(0, seen[idx]);
		seen[idx] = 1;
		ASSERT_TRUE(*(uint64_t *)all[i] == FREE_STAMP);
	}
	dpk_pool_generic_put(r->p, all, COUNT, NULL);
	free(all);
	dpk_test_note("gets %llu puts %llu misses %llu", (unsigned long long)atomic_load(&r->gets),
	              (unsigned long long)atomic_load(&r->puts),
	              (unsigned long long)atomic_load(&r->misses));
	EXPECT_EQ(atomic_load(&r->gets), atomic_load(&r->puts));
	EXPECT_GT(atomic_load(&r->gets), 0);
}

static void run_mixed(unsigned cache_size, unsigned flags)
{
	struct run *r = calloc(1, sizeof(*r));
	struct plain t[2];
	pthread_t th[2];

	ASSERT_NOT_NULL(r);
	r->p = dpk_pool_create(COUNT, OBJ_SIZE, cache_size, flags);
	ASSERT_NOT_NULL(r->p);
	dpk_pool_obj_iter(r->p, fill_free, NULL);
	r->seed = dpk_test_seed();
	dpk_test_start_lcores("(0-3)@0,(4-7)@1", "(0-7)@0"); /* 8 lcores on 2 CPUs, or on 1 */
	r->deadline_ms = dpk_test_now_ms() + dpk_test_stress_ms(400);

	/* Two plain threads: one with a user cache, one on the ring. */
	t[0] = (struct plain){r, dpk_pool_cache_create(r->p, 24), 200};
	t[1] = (struct plain){r, NULL, 201};
	ASSERT_NOT_NULL(t[0].cache);
	for (unsigned i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, plain_main, &t[i]));
	ASSERT_EQ(0, dpk_lcore_launch_all(lcore_main, r, true));
	EXPECT_EQ(0, dpk_lcore_wait_all());
	for (unsigned i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	dpk_pool_cache_free(t[0].cache);
	check_all_back(r);
	EXPECT_EQ(0, dpk_lcore_fini());
	dpk_pool_free(r->p);
	free(r);
}

static void mixed_no_cache(void)
{
	run_mixed(0, 0);
}

static void mixed_small_cache(void)
{
	run_mixed(16, 0);
}

static void mixed_large_cache(void)
{
	run_mixed(256, 0);
}

static void mixed_debug(void)
{
	run_mixed(16, DPK_POOL_F_DEBUG);
}

/*
 * A single-consumer, single-producer pool: one lcore gets (cache refills included) and
 * hands objects through a ring to another that puts them back (cache flushes included).
 */
struct spsc {
	struct run *r;
	struct dpk_ring *link;
	_Atomic bool done;
};

static int spsc_getter(void *arg)
{
	struct spsc *s = arg;
	uint64_t rng = s->r->seed, seq = 0;
	void *objs[MAX_BULK];

	while (dpk_test_now_ms() < s->r->deadline_ms) {
		unsigned k = 1 + (unsigned)(dpk_test_rand(&rng) % MAX_BULK);

		if (dpk_ring_free_count(s->link) < k || dpk_pool_get_bulk(s->r->p, objs, k) != 0) {
			atomic_fetch_add_explicit(&s->r->misses, 1, memory_order_relaxed);
			continue;
		}
		for (unsigned i = 0; i < k; i++)
			take(s->r, objs[i], stamp_of(0, seq++));
		/* Sole producer on the link, and the room was checked above. */
		EXPECT_EQ(k, dpk_ring_sp_enqueue_bulk(s->link, objs, k, NULL));
		atomic_fetch_add_explicit(&s->r->gets, k, memory_order_relaxed);
	}
	/* D1: release, pairs with D2 in spsc_putter(): the last objects are in the link. */
	atomic_store_explicit(&s->done, true, memory_order_release);
	return 0;
}

static int spsc_putter(void *arg)
{
	struct spsc *s = arg;
	uint64_t seq = 0;
	void *objs[MAX_BULK];

	for (;;) {
		/* D2: acquire, pairs with D1; read before the dequeue so none is missed. */
		bool done = atomic_load_explicit(&s->done, memory_order_acquire);
		unsigned k = dpk_ring_sc_dequeue_burst(s->link, objs, MAX_BULK, NULL);

		for (unsigned i = 0; i < k; i++)
			give(s->r, objs[i], stamp_of(0, seq++));
		dpk_pool_put_bulk(s->r->p, objs, k);
		atomic_fetch_add_explicit(&s->r->puts, k, memory_order_relaxed);
		if (k == 0 && done)
			break;
	}
	return 0;
}

static void run_spsc(unsigned cache_size)
{
	struct run *r = calloc(1, sizeof(*r));
	struct spsc s;
	unsigned worker, id;

	ASSERT_NOT_NULL(r);
	r->p = dpk_pool_create(COUNT, OBJ_SIZE, cache_size, DPK_POOL_F_SP_PUT | DPK_POOL_F_SC_GET);
	ASSERT_NOT_NULL(r->p);
	dpk_pool_obj_iter(r->p, fill_free, NULL);
	r->seed = dpk_test_seed();
	s.r = r;
	s.link = dpk_ring_create(sizeof(void *), 1024, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
	ASSERT_NOT_NULL(s.link);
	atomic_init(&s.done, false);
	dpk_test_start_lcores("(0-3)@0,(4-7)@1", "(0-7)@0"); /* 8 lcores on 2 CPUs, or on 1 */
	/* The last worker: on the other CPU when there are two. */
	worker = DPK_LCORE_ANY;
	DPK_LCORE_FOREACH_WORKER(id)
	worker = id;
	ASSERT_NE(DPK_LCORE_ANY, worker);
	r->deadline_ms = dpk_test_now_ms() + dpk_test_stress_ms(300);
	ASSERT_EQ(0, dpk_lcore_launch(worker, spsc_putter, &s));
	spsc_getter(&s);
	EXPECT_EQ(0, dpk_lcore_wait(worker));
	EXPECT_EQ(0, dpk_ring_count(s.link));
	check_all_back(r);
	EXPECT_EQ(0, dpk_lcore_fini());
	dpk_ring_free(s.link);
	dpk_pool_free(r->p);
	free(r);
}

static void spsc_no_cache(void)
{
	run_spsc(0);
}

static void spsc_cache(void)
{
	run_spsc(32);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(mixed_no_cache), DPK_TEST(mixed_small_cache), DPK_TEST(mixed_large_cache),
        DPK_TEST(mixed_debug),    DPK_TEST(spsc_no_cache),     DPK_TEST(spsc_cache),
};

DPK_TEST_MAIN(cases)
