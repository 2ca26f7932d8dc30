/* SPDX-License-Identifier: BSD-3-Clause */
/* The object pool: every call, its error paths, alignment and the cache policy. */
#include "pool_fixture.h"

static void memsize_rejects_bad_arguments(void)
{
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(0, 8, 0, 0));
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(DPK_POOL_COUNT_MAX + 1u, 8, 0, 0));
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(N, 0, 0, 0));
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(N, SIZE_MAX / 2, 0, 0));
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(4096, 8, DPK_POOL_CACHE_MAX + 1, 0));
	/* A cache of 512 flushes at 768: a pool of 767 objects is too small for it. */
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(767, 8, 512, 0));
	ASSERT_GT(dpk_pool_memsize(768, 8, 512, 0), 0);
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(N, 8, 0, 0x100));
	/* Objects times count past the address space. */
	ASSERT_EQ(-EINVAL, dpk_pool_memsize(DPK_POOL_COUNT_MAX, SIZE_MAX / 8, 0, 0));
	ASSERT_GT(dpk_pool_memsize(1, 1, 0, 0), 0);
	ASSERT_GT(dpk_pool_memsize(N, 8, 8, 0), dpk_pool_memsize(N, 8, 0, 0));
	ASSERT_GT(dpk_pool_memsize(N, 8, 0, DPK_POOL_F_DEBUG), dpk_pool_memsize(N, 8, 0, 0));
}

static void create_rejects_bad_arguments(void)
{
	errno = 0;
	ASSERT_NULL(dpk_pool_create(0, 8, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_TRUE(strlen(dpk_last_error()) > 0);
	errno = 0;
	ASSERT_NULL(dpk_pool_create(N, 0, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(dpk_pool_create(N, 8, N, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_TRUE(strstr(dpk_last_error(), "too few") != NULL);
	errno = 0;
	ASSERT_NULL(dpk_pool_create(N, 8, 0, 0x80));
	ASSERT_EQ(EINVAL, errno);
	dpk_pool_free(NULL);
}

static void init_on_caller_memory(void)
{
	ssize_t size = dpk_pool_memsize(N, 40, 4, 0);
	unsigned char *mem, *lo, *hi;
	struct dpk_pool *p;
	void *objs[N];

	ASSERT_GT(size, 0);
	mem = aligned_alloc(DPK_CACHE_LINE, ((size_t)size + 63) / 64 * 64 + 64);
	ASSERT_NOT_NULL(mem);
	ASSERT_EQ(-EINVAL, dpk_pool_init(NULL, N, 40, 4, 0));
	ASSERT_EQ(-EINVAL, dpk_pool_init((struct dpk_pool *)(void *)(mem + 8), N, 40, 4, 0));
	ASSERT_EQ(-EINVAL, dpk_pool_init((struct dpk_pool *)(void *)mem, N, 0, 4, 0));
	p = (struct dpk_pool *)(void *)mem;
	ASSERT_EQ(0, dpk_pool_init(p, N, 40, 4, 0));
	ASSERT_EQ(N, dpk_pool_count(p));
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	ASSERT_EQ(40, dpk_pool_obj_size(p));
	ASSERT_EQ(4, dpk_pool_cache_size(p));
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, N, NULL));
	lo = mem;
	hi = mem + size;
	for (unsigned i = 0; i < N; i++) {
		EXPECT_TRUE((unsigned char *)objs[i] >= lo && (unsigned char *)objs[i] + 40 <= hi);
		memset(objs[i], 0xa5, 40); /* the whole object is usable */
	}
	/* Not from dpk_pool_create(): free leaves the caller's memory alone. */
	dpk_pool_free(p);
	dpk_pool_generic_put(p, objs, N, NULL);
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	ASSERT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	free(mem);
}

static void objects_are_aligned(void)
{
	struct dpk_pool *p = make(N, 10, 0, 0);
	struct dpk_pool *q = make(N, 10, 0, DPK_POOL_F_NO_CACHE_ALIGN);
	struct dpk_pool *d = make(N, 10, 0, DPK_POOL_F_DEBUG);
	void *a[N], *b[N], *c[N];

	ASSERT_NOT_NULL(p);
	ASSERT_NOT_NULL(q);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(0, dpk_pool_generic_get(p, a, N, NULL));
	ASSERT_EQ(0, dpk_pool_generic_get(q, b, N, NULL));
	ASSERT_EQ(0, dpk_pool_generic_get(d, c, N, NULL));
	for (unsigned i = 0; i < N; i++) {
		EXPECT_EQ(0, (uintptr_t)a[i] % DPK_CACHE_LINE);
		EXPECT_EQ(0, (uintptr_t)b[i] % 8);
		EXPECT_EQ(0, (uintptr_t)c[i] % DPK_CACHE_LINE);
	}
	/* Objects come out of a fresh pool in address order. */
	ASSERT_EQ(64, (uintptr_t)a[1] - (uintptr_t)a[0]);
	ASSERT_EQ(16, (uintptr_t)b[1] - (uintptr_t)b[0]);
	ASSERT_EQ(128, (uintptr_t)c[1] - (uintptr_t)c[0]);
	dpk_pool_generic_put(p, a, N, NULL);
	dpk_pool_generic_put(q, b, N, NULL);
	dpk_pool_generic_put(d, c, N, NULL);
	dpk_pool_free(p);
	dpk_pool_free(q);
	dpk_pool_free(d);
}

/* The test thread is not an lcore: the plain calls go to the ring. */
/* Lines from one address to another, counted from a's line. */
static long lines_between(const void *a, const void *b)
{
	return (long)((intptr_t)b / DPK_CACHE_LINE - (intptr_t)a / DPK_CACHE_LINE);
}

static void objects_stay_off_cache_header_lines(void)
{
	/* Objects of 2, 4 and 33 lines (the last of odd size, as the default packet pool's
	 * were): the first object is on the odd line of a pair counted from every cache
	 * header, and so is every object when the size is a whole number of pairs. */
	static const size_t sizes[] = {128, 256, 2112};

	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct dpk_pool *p = make(64, sizes[s], 8, 0);
		void *first, *a[64];

		ASSERT_NOT_NULL(p);
		ASSERT_EQ(0, dpk_pool_generic_get(p, a, 64, NULL));
		first = a[0];
		for (unsigned id = 0; id < DPK_LCORE_MAX; id++) {
			const void *hdr = dpk_pool_default_cache(p, id);

			EXPECT_EQ(1, labs(lines_between(hdr, first)) % 2);
			for (unsigned i = 0; sizes[s] % (2 * DPK_CACHE_LINE) == 0 && i < 64; i++)
				EXPECT_EQ(1, labs(lines_between(hdr, a[i])) % 2);
		}
		dpk_pool_generic_put(p, a, 64, NULL);
		dpk_pool_free(p);
	}
}

static void get_put_without_lcore(void)
{
	struct dpk_pool *p = make(N, 32, 8, 0);
	void *objs[N], *extra = (void *)&extra;
	unsigned char seen[N] = {0};

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_id());
	for (unsigned i = 0; i < N; i++) {
		int idx;

		ASSERT_EQ(0, dpk_pool_get(p, &objs[i]));
		idx = dpk_pool_obj_index(p, objs[i]);
		ASSERT_GE(idx, 0);
		ASSERT_EQ(0, seen[idx]);
		seen[idx] = 1;
	}
	ASSERT_EQ(-ENOENT, dpk_pool_get(p, &extra));
	ASSERT_TRUE(extra == (void *)&extra);
	ASSERT_TRUE(dpk_pool_empty(p));
	ASSERT_EQ(N, dpk_pool_in_use_count(p));
	for (unsigned i = 0; i < N; i++)
		dpk_pool_put(p, objs[i]);
	ASSERT_TRUE(dpk_pool_full(p));
	ASSERT_EQ(0, dpk_pool_in_use_count(p));
	/* No per-lcore cache was touched. */
	for (unsigned id = 0; id < DPK_LCORE_MAX; id++)
		ASSERT_EQ(0, dpk_pool_cache_count(dpk_pool_default_cache(p, id)));
	dpk_pool_free(p);
}

static void bulk_is_all_or_nothing(void)
{
	struct dpk_pool *p = make(10, 16, 0, 0);
	void *objs[16], *more[16];

	ASSERT_NOT_NULL(p);
	for (unsigned i = 0; i < 16; i++)
		objs[i] = more[i] = NULL;
	ASSERT_EQ(-ENOENT, dpk_pool_get_bulk(p, objs, 11));
	for (unsigned i = 0; i < 16; i++)
		ASSERT_NULL(objs[i]);
	ASSERT_EQ(10, dpk_pool_avail_count(p));
	ASSERT_EQ(0, dpk_pool_get_bulk(p, objs, 0));
	ASSERT_EQ(0, dpk_pool_get_bulk(p, objs, 7));
	ASSERT_EQ(-ENOENT, dpk_pool_get_bulk(p, more, 4));
	ASSERT_NULL(more[0]);
	ASSERT_EQ(3, dpk_pool_avail_count(p));
	ASSERT_EQ(0, dpk_pool_get_bulk(p, more, 3));
	ASSERT_EQ(0, dpk_pool_avail_count(p));
	dpk_pool_put_bulk(p, objs, 7);
	dpk_pool_put_bulk(p, more, 3);
	dpk_pool_put_bulk(p, objs, 0);
	ASSERT_EQ(10, dpk_pool_avail_count(p));
	ASSERT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	dpk_pool_free(p);
}

static void default_cache_lookup(void)
{
	struct dpk_pool *p = make(N, 8, 4, 0), *q = make(N, 8, 0, 0);

	ASSERT_NOT_NULL(p);
	ASSERT_NOT_NULL(q);
	ASSERT_NULL(dpk_pool_default_cache(q, 0));
	ASSERT_NULL(dpk_pool_default_cache(p, DPK_LCORE_ANY));
	ASSERT_NULL(dpk_pool_default_cache(p, DPK_LCORE_MAX));
	ASSERT_NOT_NULL(dpk_pool_default_cache(p, 0));
	ASSERT_NOT_NULL(dpk_pool_default_cache(p, DPK_LCORE_MAX - 1));
	ASSERT_TRUE(dpk_pool_default_cache(p, 0) != dpk_pool_default_cache(p, 1));
	ASSERT_EQ(0, dpk_pool_cache_count(NULL));
	dpk_pool_free(p);
	dpk_pool_free(q);
}

/*
 * The documented policy, step by step, on a cache of S = 8 (threshold 12) in a pool of
 * 64. Objects taken straight from the ring feed the cache through puts.
 */
static void cache_policy(void)
{
	struct dpk_pool *p = make(N, 8, 8, 0);
	struct dpk_pool_cache *c;
	void *objs[N], *got[N], *none[4], *last;

	ASSERT_NOT_NULL(p);
	c = dpk_pool_default_cache(p, 3);
	ASSERT_NOT_NULL(c);

	/* A miss refills S plus the request: 9 leave the ring, 8 stay cached. */
	ASSERT_EQ(0, dpk_pool_generic_get(p, got, 1, c));
	ASSERT_EQ(8, dpk_pool_cache_count(c));
	ASSERT_EQ(N - 9, ring_count(p, c));
	ASSERT_EQ(N - 1, dpk_pool_avail_count(p));

	/* LIFO: the object put last comes out first. */
	dpk_pool_generic_put(p, got, 1, c);
	ASSERT_EQ(9, dpk_pool_cache_count(c));
	ASSERT_EQ(0, dpk_pool_generic_get(p, &last, 1, c));
	ASSERT_TRUE(last == got[0]);
	dpk_pool_generic_put(p, &last, 1, c);

	/* Puts fill up to the threshold of 12... */
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 4, NULL));
	dpk_pool_generic_put(p, objs, 3, c);
	ASSERT_EQ(12, dpk_pool_cache_count(c));
	/* ...and one more writes the 12 back and keeps the newcomer. */
	dpk_pool_generic_put(p, &objs[3], 1, c);
	ASSERT_EQ(1, dpk_pool_cache_count(c));
	ASSERT_EQ(N - 1, ring_count(p, c));

	/* A get bigger than S bypasses the cache... */
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 12, c));
	ASSERT_EQ(1, dpk_pool_cache_count(c));
	/* ...and so does a put bigger than S that does not fit under the threshold. */
	dpk_pool_generic_put(p, objs, 12, c);
	ASSERT_EQ(1, dpk_pool_cache_count(c));
	ASSERT_EQ(N - 1, ring_count(p, c));
	/* A put bigger than S that fits under it is cached like any other. */
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 9, NULL));
	dpk_pool_generic_put(p, objs, 9, c);
	ASSERT_EQ(10, dpk_pool_cache_count(c));
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 9, c));
	dpk_pool_generic_put(p, objs, 9, NULL);

	/* A get the cache covers takes only from it. */
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, 1, c));
	ASSERT_EQ(0, dpk_pool_cache_count(c));
	dpk_pool_generic_put(p, objs, 1, c);

	/* Ring too short for a refill: the rest comes straight from the ring. */
	ASSERT_EQ(0, dpk_pool_generic_get(p, objs, N - 1 - 3, NULL));
	ASSERT_EQ(3, ring_count(p, c));
	ASSERT_EQ(1, dpk_pool_cache_count(c));
	ASSERT_EQ(0, dpk_pool_generic_get(p, got, 4, c));
	ASSERT_EQ(0, dpk_pool_cache_count(c));
	ASSERT_EQ(0, ring_count(p, c));

	/* Nothing anywhere: -ENOENT, the output untouched. */
	none[0] = NULL;
	ASSERT_EQ(-ENOENT, dpk_pool_generic_get(p, none, 1, c));
	ASSERT_NULL(none[0]);
	/* Cache holds 2, ring 0: a get of 3 fails and leaves the cache as it was. */
	dpk_pool_generic_put(p, objs, 2, c);
	ASSERT_EQ(-ENOENT, dpk_pool_generic_get(p, none, 3, c));
	ASSERT_NULL(none[0]);
	ASSERT_EQ(2, dpk_pool_cache_count(c));

	dpk_pool_generic_put(p, &objs[2], N - 4 - 2, NULL);
	dpk_pool_generic_put(p, got, 4, NULL);
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	ASSERT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	dpk_pool_cache_flush(c);
	ASSERT_EQ(0, dpk_pool_cache_count(c));
	ASSERT_EQ(N, ring_count(p, c));
	dpk_pool_free(p);
}

/* The plain calls use the calling lcore's cache. */
static void lcore_uses_its_cache(void)
{
	struct dpk_pool *p;
	struct dpk_pool_cache *c;
	void *obj;

	dpk_test_start_lcores("0", NULL);
	p = make(N, 8, 8, 0);
	ASSERT_NOT_NULL(p);
	c = dpk_pool_default_cache(p, dpk_lcore_id());
	ASSERT_NOT_NULL(c);
	ASSERT_EQ(0, dpk_pool_get(p, &obj));
	EXPECT_EQ(8, dpk_pool_cache_count(c));
	dpk_pool_put(p, obj);
	EXPECT_EQ(9, dpk_pool_cache_count(c));
	EXPECT_EQ(N, dpk_pool_avail_count(p));
	EXPECT_EQ(0, dpk_pool_in_use_count(p));
	dpk_pool_cache_flush(c);
	EXPECT_EQ(N, ring_count(p, c));
	ASSERT_EQ(0, dpk_lcore_fini());
	dpk_pool_free(p);
}

/*
 * Single gets and puts on an lcore, through the inline cache paths and, when the cache
 * cannot serve, the out-of-line ones that take and give one object by value: a refill
 * when the cache is empty, a flush at the threshold, -ENOENT with the output untouched,
 * and the checks of a debug pool.
 */
static void single_calls_on_an_lcore(void)
{
	struct dpk_pool *p, *d;
	struct dpk_pool_cache *c;
	struct dpk_pool_audit_report r;
	void *objs[N], *none = NULL;
	unsigned got = 0;

	dpk_test_start_lcores("0", NULL);
	p = make(N, 8, 8, 0);
	ASSERT_NOT_NULL(p);
	c = dpk_pool_default_cache(p, dpk_lcore_id());
	ASSERT_NOT_NULL(c);
	/* A refill of S + 1, then S hits, then another refill. */
	ASSERT_EQ(0, dpk_pool_get(p, &objs[got++]));
	EXPECT_EQ(8, dpk_pool_cache_count(c));
	for (unsigned i = 0; i < 8; i++) {
		ASSERT_EQ(0, dpk_pool_get(p, &objs[got++]));
		EXPECT_EQ(7 - i, dpk_pool_cache_count(c));
	}
	ASSERT_EQ(0, dpk_pool_get(p, &objs[got++]));
	EXPECT_EQ(8, dpk_pool_cache_count(c));
	/* Everything else, then nothing. */
	while (got < N)
		ASSERT_EQ(0, dpk_pool_get(p, &objs[got++]));
	EXPECT_EQ(0, dpk_pool_avail_count(p));
	ASSERT_EQ(-ENOENT, dpk_pool_get(p, &none));
	ASSERT_NULL(none);
	/* Puts up to the threshold of 12, then one that writes the 12 back. */
	for (unsigned i = 0; i < 12; i++)
		dpk_pool_put(p, objs[--got]);
	EXPECT_EQ(12, dpk_pool_cache_count(c));
	EXPECT_EQ(0, ring_count(p, c));
	dpk_pool_put(p, objs[--got]);
	EXPECT_EQ(1, dpk_pool_cache_count(c));
	EXPECT_EQ(12, ring_count(p, c));
	while (got > 0)
		dpk_pool_put(p, objs[--got]);
	EXPECT_EQ(N, dpk_pool_avail_count(p));
	EXPECT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	dpk_pool_free(p);

	/* A debug pool with per-lcore caches: single calls are checked too. */
	d = make(N, 8, 8, DPK_POOL_F_DEBUG);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(0, dpk_pool_get(d, &objs[0]));
	ASSERT_EQ(0, dpk_pool_get(d, &objs[1]));
	dpk_pool_put(d, objs[0]);
	dpk_pool_put(d, objs[0]);
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(d, &r, NULL, NULL));
	EXPECT_EQ(1, r.refused_puts);
	EXPECT_EQ(0, r.duplicates);
	EXPECT_EQ(1, r.in_use);
	dpk_pool_put(d, objs[1]);
	EXPECT_EQ(N, dpk_pool_avail_count(d));
	EXPECT_GT(dpk_pool_cache_count(dpk_pool_default_cache(d, dpk_lcore_id())), 0);
	dpk_pool_free(d);
	ASSERT_EQ(0, dpk_lcore_fini());
}

struct user_arg {
	struct dpk_pool *p;
	struct dpk_pool_cache *c;
	int rc;
	unsigned held;
};

static void *user_thread(void *arg)
{
	struct user_arg *u = arg;
	void *objs[20];

	u->rc = dpk_pool_generic_get(u->p, objs, 20, u->c);
	if (u->rc == 0) {
		dpk_pool_generic_put(u->p, objs, 20, u->c);
		u->held = dpk_pool_cache_count(u->c);
	}
	return NULL;
}

static void user_cache(void)
{
	struct dpk_pool *p = make(N, 8, 0, 0);
	struct user_arg u = {0};
	pthread_t t;
	void *one;

	ASSERT_NOT_NULL(p);
	errno = 0;
	ASSERT_NULL(dpk_pool_cache_create(NULL, 8));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(dpk_pool_cache_create(p, 0));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(dpk_pool_cache_create(p, DPK_POOL_CACHE_MAX + 1));
	ASSERT_EQ(EINVAL, errno);

	u.p = p;
	u.c = dpk_pool_cache_create(p, 32);
	ASSERT_NOT_NULL(u.c);
	ASSERT_EQ(0, pthread_create(&t, NULL, user_thread, &u));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, u.rc);
	/* Refilled 32 + 20 and handed out 20; the 20 coming back did not fit under the
	 * threshold of 48, so the 32 went back to the ring and the 20 stayed. */
	ASSERT_EQ(20, u.held);
	/* Cached objects of user caches count as available. */
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	ASSERT_EQ(N - 20, ring_count(p, u.c));
	ASSERT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	dpk_pool_cache_flush(u.c);
	ASSERT_EQ(0, dpk_pool_cache_count(u.c));
	ASSERT_EQ(N, ring_count(p, u.c));

	/* Free flushes first. */
	ASSERT_EQ(0, pthread_create(&t, NULL, user_thread, &u));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_GT(dpk_pool_cache_count(u.c), 0);
	dpk_pool_cache_free(u.c);
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	dpk_pool_cache_free(NULL);
	dpk_pool_cache_flush(NULL);
	dpk_pool_free(p);

	/* A per-lcore cache is not freed (it is inside the pool), nor flushed. */
	p = make(N, 8, 4, 0);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, dpk_pool_generic_get(p, &one, 1, dpk_pool_default_cache(p, 5)));
	ASSERT_EQ(4, dpk_pool_cache_count(dpk_pool_default_cache(p, 5)));
	dpk_pool_cache_free(dpk_pool_default_cache(p, 5));
	ASSERT_TRUE(strstr(dpk_last_error(), "not from dpk_pool_cache_create") != NULL);
	ASSERT_EQ(4, dpk_pool_cache_count(dpk_pool_default_cache(p, 5)));
	dpk_pool_put(p, one);
	ASSERT_EQ(N, dpk_pool_avail_count(p));
	dpk_pool_free(p);
}

/* A put of n objects and a get of n give the same objects back in the same order (the
 * cache is a stack of arrays), for every n on both sides of the size from which the copy
 * is a memcpy call, and neither writes past the n it was given. */
static void cache_copies_every_size(void)
{
	enum { MAXN = 3 * DPK__POOL_COPY_CALL };
	struct dpk_pool *p = make(4 * MAXN, 8, 0, 0);
	struct dpk_pool_cache *c;
	void *objs[MAXN + 1], *back[MAXN + 1], *const guard = &objs;

	ASSERT_NOT_NULL(p);
	c = dpk_pool_cache_create(p, MAXN);
	ASSERT_NOT_NULL(c);
	for (unsigned n = 1; n <= MAXN; n++) {
		objs[n] = guard;
		back[n] = guard;
		ASSERT_EQ(0, dpk_pool_generic_get(p, objs, n, c));
		EXPECT_TRUE(objs[n] == guard);
		dpk_pool_generic_put(p, objs, n, c);
		ASSERT_EQ(0, dpk_pool_generic_get(p, back, n, c));
		EXPECT_TRUE(back[n] == guard);
		for (unsigned i = 0; i < n; i++)
			if (back[i] != objs[i]) {
				dpk_test_fail(__FILE__, __LINE__, "n %u: object %u differs", n, i);
				break;
			}
		dpk_pool_generic_put(p, back, n, c);
		EXPECT_EQ(0, dpk_pool_audit(p, NULL, NULL, NULL));
	}
	dpk_pool_cache_free(c);
	EXPECT_EQ(4 * MAXN, dpk_pool_avail_count(p));
	dpk_pool_free(p);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(memsize_rejects_bad_arguments),
        DPK_TEST(create_rejects_bad_arguments),
        DPK_TEST(init_on_caller_memory),
        DPK_TEST(objects_are_aligned),
        DPK_TEST(objects_stay_off_cache_header_lines),
        DPK_TEST(get_put_without_lcore),
        DPK_TEST(bulk_is_all_or_nothing),
        DPK_TEST(default_cache_lookup),
        DPK_TEST(cache_policy),
        DPK_TEST(lcore_uses_its_cache),
        DPK_TEST(single_calls_on_an_lcore),
        DPK_TEST(user_cache),
        DPK_TEST(cache_copies_every_size),
};

DPK_TEST_MAIN(cases)
