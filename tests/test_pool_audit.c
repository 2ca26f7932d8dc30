/* SPDX-License-Identifier: BSD-3-Clause */
/* The object pool: its counts, the iterator, object indices, the audit and what the
 * debug build refuses. */
#include "pool_fixture.h"

static void counts_follow_gets_and_puts(void)
{
	struct dpk_pool *p = make(N, 8, 4, 0);
	struct dpk_pool_cache *c, *u;
	void *objs[N];

	ASSERT_NOT_NULL(p);
	c = dpk_pool_default_cache(p, 0);
	u = dpk_pool_cache_create(p, 4);
	ASSERT_NOT_NULL(u);
	ASSERT_TRUE(dpk_pool_full(p));
	ASSERT_FALSE(dpk_pool_empty(p));
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 3, c));
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs + 3, 2, u));
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs + 5, 10, NULL));
	ASSERT_EQ(15, dpk_pool_in_use_count(p));
	ASSERT_EQ(N - 15, dpk_pool_avail_count(p));
	ASSERT_FALSE(dpk_pool_full(p));
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs + 15, N - 15 - 4 - 4, NULL));
	ASSERT_EQ(8, dpk_pool_avail_count(p)); /* the two caches hold 4 + 4 */
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs + N - 8, 4, c));
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs + N - 4, 4, u));
	ASSERT_TRUE(dpk_pool_empty(p));
	ASSERT_EQ(N, dpk_pool_in_use_count(p));
	dpk_pool_generic_put(p, objs, 20, c);
	dpk_pool_generic_put(p, objs + 20, N - 20, u);
	ASSERT_TRUE(dpk_pool_full(p));
	dpk_pool_cache_free(u);
	ASSERT_TRUE(dpk_pool_full(p));
	dpk_pool_free(p);
}

struct iter_arg {
	unsigned visits[N];
	unsigned calls;
	bool bad;
};

static void count_visit(struct dpk_pool *p, void *obj, unsigned idx, void *arg)
{
	struct iter_arg *a = arg;

	a->calls++;
	if (idx >= N || dpk_pool_obj_index(p, obj) != (int)idx)
		a->bad = true;
	else
		a->visits[idx]++;
}

static void iterator_visits_every_object_once(void)
{
	struct dpk_pool *p = make(N, 24, 0, DPK_POOL_F_DEBUG);
	struct iter_arg a = {0};
	void *objs[5];

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 5, NULL)); /* free or not, all are visited */
	ASSERT_EQ(N, dpk_pool_obj_iter(p, count_visit, &a));
	ASSERT_EQ(N, a.calls);
	ASSERT_FALSE(a.bad);
	for (unsigned i = 0; i < N; i++)
		ASSERT_EQ(1, a.visits[i]);
	ASSERT_EQ(0, dpk_pool_obj_iter(p, NULL, NULL));
	ASSERT_EQ(0, dpk_pool_obj_iter(NULL, count_visit, &a));
	dpk_pool_generic_put(p, objs, 5, NULL);
	dpk_pool_free(p);
}

static void obj_index_rejects_foreign_pointers(void)
{
	struct dpk_pool *p = make(N, 24, 0, 0);
	void *obj;
	int x;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, dpk_pool_get(p, &obj));
	ASSERT_GE(dpk_pool_obj_index(p, obj), 0);
	ASSERT_EQ(-EINVAL, dpk_pool_obj_index(p, (char *)obj + 1));
	ASSERT_EQ(-EINVAL, dpk_pool_obj_index(p, &x));
	ASSERT_EQ(-EINVAL, dpk_pool_obj_index(p, NULL));
	ASSERT_EQ(-EINVAL, dpk_pool_obj_index(NULL, obj));
	ASSERT_EQ(-EINVAL, dpk_pool_obj_index(p, (char *)obj + 64 * N * 2));
	dpk_pool_put(p, obj);
	dpk_pool_free(p);
}

struct held {
	void *objs[N];
	unsigned n;
};

static void collect_held(struct dpk_pool *p, void *obj, unsigned idx, void *arg)
{
	struct held *h = arg;

	(void)p;
	(void)idx;
	if (h->n < N)
		h->objs[h->n++] = obj;
}

static void audit_counts_and_finds_lost_objects(unsigned flags)
{
	struct dpk_pool *p = make(N, 16, 4, flags);
	struct dpk_pool_audit_report r;
	struct held h = {0};
	void *objs[3];

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(-EINVAL, dpk_pool_audit(NULL, &r, NULL, NULL));
	ASSERT_EQ(0, dpk_pool_audit(p, &r, collect_held, &h));
	ASSERT_EQ(N, r.count);
	ASSERT_EQ(N, r.in_ring);
	ASSERT_EQ(0, r.in_use);
	ASSERT_EQ(0, h.n);

	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 3, dpk_pool_default_cache(p, 1)));
	dpk_pool_generic_put(p, objs, 2, dpk_pool_default_cache(p, 1));
	/* objs[2] is never given back: the audit names it. */
	ASSERT_EQ(0, dpk_pool_audit(p, &r, collect_held, &h));
	ASSERT_EQ(1, r.in_use);
	ASSERT_EQ(N - 1, r.in_ring + r.in_caches);
	ASSERT_EQ(4 + 2, r.in_caches);
	ASSERT_EQ(0, r.duplicates);
	ASSERT_EQ(1, h.n);
	ASSERT_TRUE(h.objs[0] == objs[2]);
	/* The audit puts the ring back as it found it. */
	ASSERT_EQ(N - 1, dpk_pool_avail_count(p));
	dpk_pool_put(p, objs[2]);
	ASSERT_EQ(0, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(0, r.in_use);
	dpk_pool_free(p);
}

static void audit_finds_lost_objects(void)
{
	audit_counts_and_finds_lost_objects(0);
}

static void audit_finds_lost_objects_debug(void)
{
	audit_counts_and_finds_lost_objects(DPK_POOL_F_DEBUG);
}

/* Without DPK_POOL_F_DEBUG a double put goes in twice; the audit still sees it. */
static void audit_finds_duplicates(void)
{
	struct dpk_pool *p = make(N, 16, 0, 0);
	struct dpk_pool_audit_report r;
	void *objs[2];

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 2, NULL));
	dpk_pool_put(p, objs[0]);
	dpk_pool_put(p, objs[0]);
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(1, r.duplicates);
	ASSERT_EQ(1, r.in_use);
	dpk_pool_free(p);
}

/*
 * A double put while every object is already free, on a plain pool: the pointer finds the
 * ring full, which only more puts than gets can cause. The put drops it and counts it, and
 * the audit reports it; before, it vanished and the audit passed. Each way a put reaches
 * the ring: the inline call without a cache, the out-of-line single put, a cache flush
 * and a put over a cache's flush threshold.
 */
static void audit_finds_puts_past_a_full_ring(void)
{
	struct dpk_pool *p = make(N, 16, 0, 0);
	struct dpk_pool_audit_report r;
	struct dpk_pool_cache *c;
	void *objs[2];

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, dpk_pool_get(p, objs));
	dpk_pool_put(p, objs[0]);
	ASSERT_EQ(0, dpk_pool_audit(p, &r, NULL, NULL));
	dpk_pool_put(p, objs[0]);
	ASSERT_TRUE(strstr(dpk_last_error(), "ring was full") != NULL);
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(N, r.in_ring);
	ASSERT_EQ(0, r.duplicates);
	ASSERT_EQ(0, r.in_use);
	ASSERT_EQ(1, r.excess_puts);
	dpk_pool_generic_put(p, objs, 1, NULL);
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(2, r.excess_puts);

	/* Through a cache the second copy waits in the cache, where the audit sees it. A
	 * flush then finds room for only some of the pointers: what fits goes in, the rest
	 * is dropped, a rightful object among them (the pool cannot tell which is which). */
	c = dpk_pool_cache_create(p, 4);
	ASSERT_NOT_NULL(c);
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 2, NULL));
	dpk_pool_generic_put(p, objs, 1, c);
	dpk_pool_generic_put(p, objs, 1, c);
	dpk_pool_generic_put(p, objs + 1, 1, c);
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(1, r.duplicates);
	ASSERT_EQ(2, r.excess_puts);
	dpk_pool_cache_flush(c);
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(N, r.in_ring);
	ASSERT_EQ(1, r.duplicates);
	ASSERT_EQ(1, r.in_use);
	ASSERT_EQ(3, r.excess_puts);

	/* A put over the threshold (6 for a cache of 4) flushes to a full ring: all six
	 * pointers are dropped, and the put's own object stays in the cache. */
	for (unsigned i = 0; i < 7; i++)
		dpk_pool_generic_put(p, objs, 1, c);
	ASSERT_EQ(1, dpk_pool_cache_count(c));
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(3 + 6, r.excess_puts);
	dpk_pool_cache_free(c);
	dpk_pool_free(p);
}

/* A debug pool refuses double and foreign puts, through the ring and through caches. */
static void debug_refuses_double_put(void)
{
	struct dpk_pool *p = make(N, 16, 4, DPK_POOL_F_DEBUG);
	struct dpk_pool_cache *caches[3];
	struct dpk_pool_audit_report r;
	void *objs[2];
	int x;

	ASSERT_NOT_NULL(p);
	caches[0] = NULL;
	caches[1] = dpk_pool_default_cache(p, 2);
	caches[2] = dpk_pool_cache_create(p, 8);
	ASSERT_NOT_NULL(caches[2]);
	for (unsigned i = 0; i < 3; i++) {
		struct dpk_pool_cache *c = caches[i];
		unsigned before;

		ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 2, c));
		dpk_pool_generic_put(p, objs, 1, c);
		before = dpk_pool_avail_count(p);
		dpk_pool_generic_put(p, objs, 1, c);
		ASSERT_EQ(before, dpk_pool_avail_count(p));
		ASSERT_TRUE(strstr(dpk_last_error(), "refused") != NULL);
		ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
		ASSERT_EQ(i + 1, r.refused_puts);
		ASSERT_EQ(0, r.duplicates);
		ASSERT_EQ(0, r.bad_state);
		ASSERT_EQ(1, r.in_use);
		dpk_pool_generic_put(p, objs + 1, 1, c);
	}
	/* Foreign pointers: another object's middle, and something else entirely. */
	ASSERT_EQ(0, dpk_pool_get(p, objs));
	dpk_pool_put(p, (char *)objs[0] + 4);
	dpk_pool_put(p, &x);
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(5, r.refused_puts);
	ASSERT_EQ(0, r.foreign);
	dpk_pool_put(p, objs[0]);
	dpk_pool_cache_free(caches[2]);
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	dpk_pool_free(p);
}

/* A cache passed with a pool it does not belong to is not used. */
static void check_foreign_cache_is_not_used(unsigned flags)
{
	struct dpk_pool *p = make(N, 16, 0, flags);
	struct dpk_pool *q = make(N, 16, 0, 0);
	struct dpk_pool_cache *qc;
	void *obj, *qobj;

	ASSERT_NOT_NULL(p);
	ASSERT_NOT_NULL(q);
	qc = dpk_pool_cache_create(q, 8);
	ASSERT_NOT_NULL(qc);
	/* Give qc something to hand out, so that a wrong fast path would show. */
	ASSERT_EQ(0, dpk_pool_generic_get(q, &qobj, 1, NULL));
	dpk_pool_generic_put(q, &qobj, 1, qc);
	ASSERT_EQ(1, dpk_pool_cache_count(qc));

	ASSERT_EQ(0, dpk_pool_generic_get(p, &obj, 1, qc));
	ASSERT_GE(dpk_pool_obj_index(p, obj), 0);
	ASSERT_EQ(1, dpk_pool_cache_count(qc));
	ASSERT_TRUE(strstr(dpk_last_error(), "cache of pool") != NULL);
	dpk_pool_generic_put(p, &obj, 1, qc);
	ASSERT_EQ(1, dpk_pool_cache_count(qc));
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	ASSERT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	ASSERT_EQ(0, dpk_pool_audit(q, NULL, NULL, NULL));
	dpk_pool_cache_free(qc);
	dpk_pool_free(p);
	dpk_pool_free(q);
}

static void foreign_cache_is_not_used(void)
{
	check_foreign_cache_is_not_used(0);
}

static void foreign_cache_is_not_used_debug(void)
{
	check_foreign_cache_is_not_used(DPK_POOL_F_DEBUG);
}

static void debug_finds_overwritten_state(void)
{
	struct dpk_pool *p = make(N, 16, 0, DPK_POOL_F_DEBUG);
	struct dpk_pool_audit_report r;
	void *obj;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, dpk_pool_get(p, &obj));
	/* A write before the object's start lands on its header. */
	memset((char *)obj - 4, 0, 4);
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(p, &r, NULL, NULL));
	ASSERT_EQ(1, r.bad_state);
	dpk_pool_put(p, obj); /* refused: the state is not "in use" */
	ASSERT_EQ(N - 1, dpk_pool_avail_count(p));
	dpk_pool_free(p);
}

static void single_producer_consumer_flags(void)
{
	struct dpk_pool *p = make(N, 8, 0, DPK_POOL_F_SP_PUT | DPK_POOL_F_SC_GET);
	void *objs[N];

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, dpk_pool_get_bulk(p, objs, N));
	dpk_pool_put_bulk(p, objs, N);
	ASSERT_TRUE(dpk_pool_full(p));
	dpk_pool_free(p);
}

static void dump_prints_counts(void)
{
	struct dpk_pool *p = make(N, 8, 0, 0);
	char buf[512] = {0};
	FILE *f = tmpfile();

	ASSERT_NOT_NULL(p);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(-EINVAL, dpk_pool_dump(NULL, p));
	ASSERT_EQ(-EINVAL, dpk_pool_dump(f, NULL));
	ASSERT_EQ(0, dpk_pool_dump(f, p));
	rewind(f);
	ASSERT_GT(fread(buf, 1, sizeof(buf) - 1, f), 0);
	ASSERT_TRUE(strstr(buf, "count=64") != NULL);
	ASSERT_TRUE(strstr(buf, "avail=64") != NULL);
	fclose(f);
	dpk_pool_free(p);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(counts_follow_gets_and_puts),
        DPK_TEST(iterator_visits_every_object_once),
        DPK_TEST(obj_index_rejects_foreign_pointers),
        DPK_TEST(audit_finds_lost_objects),
        DPK_TEST(audit_finds_lost_objects_debug),
        DPK_TEST(audit_finds_duplicates),
        DPK_TEST(audit_finds_puts_past_a_full_ring),
        DPK_TEST(debug_refuses_double_put),
        DPK_TEST(foreign_cache_is_not_used),
        DPK_TEST(foreign_cache_is_not_used_debug),
        DPK_TEST(debug_finds_overwritten_state),
        DPK_TEST(single_producer_consumer_flags),
        DPK_TEST(dump_prints_counts),
};

DPK_TEST_MAIN(cases)
