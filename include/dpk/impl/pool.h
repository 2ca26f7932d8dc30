/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/impl/pool.h - the pool's layout and its inline get/put paths. The fields below are
 * private: read them only through the functions of <dpk/pool.h>.
 */
#ifndef DPK_POOL_H
#error "include <dpk/pool.h>, not <dpk/impl/pool.h>"
#endif

#include <errno.h>

/* A LIFO array of free objects in front of the ring. */
struct dpk_pool_cache {
	/* Objects held, objs[0 .. len-1], newest on top. Written only by the cache's user;
	 * atomic (relaxed) so that counts may read it from any thread. */
	DPK__ATOMIC(uint32_t) len;
	uint32_t size;         /* refill target S */
	uint32_t thresh;       /* flush threshold T = S + S / 2 */
	struct dpk_pool *pool; /* the pool whose objects this cache holds */
	/* The pool for which calls may take the inline path: pool, or NULL in a debug pool.
	 * One comparison then sends both debug pools and caches passed with the wrong pool
	 * to the out-of-line code. */
	struct dpk_pool *fast;
	struct dpk_pool_cache *next;               /* user caches: next in the pool's list */
	DPK__ALIGNAS(DPK_CACHE_LINE) void *objs[]; /* room for 2 S pointers */
};

struct dpk_pool {
	/* Read by the inline paths. */
	DPK__ALIGNAS(DPK_CACHE_LINE) struct dpk_ring *ring; /* the free objects behind the caches */
	unsigned char *lcore_caches; /* cache of lcore 0, or NULL without per-lcore caches */
	size_t cache_stride;         /* bytes from one lcore's cache to the next */
	uint32_t flags;              /* DPK_POOL_F_* */
	uint32_t cache_size;         /* per-lcore cache size S */
	/* Read by the out-of-line code. */
	uint32_t count;       /* objects */
	uint32_t hdr_size;    /* debug header before each object, 0 without one */
	size_t obj_size;      /* as given at create */
	size_t elt_size;      /* bytes from one object to the next */
	unsigned char *first; /* object 0 */
	/* Written now and then (user caches come and go, debug counters): off the line the
	 * inline paths read. */
	DPK__ALIGNAS(DPK_CACHE_LINE) atomic_flag user_lock; /* guards user_caches */
	struct dpk_pool_cache *user_caches;
	DPK__ATOMIC(uint64_t) refused_puts; /* debug pools: puts refused */
	DPK__ATOMIC(uint64_t) corrupt_gets; /* debug pools: gets of objects not marked free */
	DPK__ATOMIC(uint64_t) excess_puts;  /* pointers dropped by puts that found the ring full */
	bool owned;                         /* from dpk_pool_create(): dpk_pool_free() frees it */
};

/* The out-of-line paths: cache misses, cacheless calls of debug pools, checked calls. */
int dpk__pool_get_slow(struct dpk_pool *p, void **objs, unsigned n, struct dpk_pool_cache *c);
void dpk__pool_put_slow(struct dpk_pool *p, void *const *objs, unsigned n,
                        struct dpk_pool_cache *c);
/* The same for one object, passed by value: the object of a single get or put then stays
 * in a register on the inline path, where passing its address would keep it in memory. */
void *dpk__pool_get1_slow(struct dpk_pool *p, struct dpk_pool_cache *c);
void dpk__pool_put1_slow(struct dpk_pool *p, void *obj, struct dpk_pool_cache *c);
/* A put to the ring that found no room for all of @p objs: see "Misuse" in <dpk/pool.h>. */
void dpk__pool_ring_overflow(struct dpk_pool *p, void *const *objs, unsigned n);

static inline struct dpk_pool_cache *dpk_pool_default_cache(struct dpk_pool *p, unsigned lcore_id)
{
	if (p->lcore_caches == NULL || lcore_id >= DPK_LCORE_MAX)
		return NULL;
	return (struct dpk_pool_cache *)(void *)(p->lcore_caches +
	                                         (size_t)lcore_id * p->cache_stride);
}

/*
 * The cached paths are forced inline and the rest is not: left to itself, GCC keeps
 * dpk_pool_generic_get() out of line in a loop that calls it next to other code, because
 * the ring paths (forced inline in <dpk/impl/ring.h>) make it large, and the call then
 * costs more than the get: the object goes back through the stack, and the per-lcore
 * cache is looked up on both sides of the call.
 */
#define DPK__POOL_INLINE static inline __attribute__((always_inline))

/* The calls that pass no cache: the ring directly, unless the pool is a debug pool. Left
 * to the compiler, which may keep one copy out of line per file. */
static inline int dpk__pool_ring_get(struct dpk_pool *p, void **objs, unsigned n)
{
	if (p->flags & DPK_POOL_F_DEBUG)
		return dpk__pool_get_slow(p, objs, n, NULL);
	return dpk_ring_dequeue_bulk(p->ring, objs, n, NULL) == n ? 0 : -ENOENT;
}

/*
 * Every put that reaches the ring, checked or not, cached or not. The ring has room for
 * every object of the pool, so it is short of room only when more objects came back than
 * were taken: the test of the count the enqueue returns anyway is the whole cost of
 * noticing that.
 */
static inline void dpk__pool_ring_enqueue(struct dpk_pool *p, void *const *objs, unsigned n)
{
	if (__builtin_expect(dpk_ring_enqueue_bulk(p->ring, objs, n, NULL) != n, 0))
		dpk__pool_ring_overflow(p, objs, n);
}

static inline void dpk__pool_ring_put(struct dpk_pool *p, void *const *objs, unsigned n)
{
	if (p->flags & DPK_POOL_F_DEBUG) {
		dpk__pool_put_slow(p, objs, n, NULL);
		return;
	}
	dpk__pool_ring_enqueue(p, objs, n);
}

/*
 * Copy @p n object pointers between a cache and the caller's array (never the same memory).
 * From DPK__POOL_COPY_CALL pointers on, libc's memcpy, whose moves are as wide as the CPU
 * it runs on allows (chosen at run time), where the inline code is built for the baseline
 * ISA and moves 16 bytes at a time; below it, the call costs more than it saves, and the
 * copy is inline, 4 pointers a step and a tail of at most two steps, without a loop for the
 * tail. docs/measured-2026-12-01.md has the figures.
 */
#define DPK__POOL_COPY_CALL 16u

DPK__POOL_INLINE void dpk__pool_copy(void **__restrict dst, void *const *__restrict src, unsigned n)
{
	unsigned i = 0;

	if (n >= DPK__POOL_COPY_CALL) {
		/* The empty asm hides what the caller tells of n (a bound from the size of a
		 * local array, a constant): knowing it, GCC expands the memcpy into rep movsq,
		 * which takes longer to start than the call and the copy together. */
		__asm__("" : "+r"(n));
		__builtin_memcpy(dst, src, (size_t)n * sizeof(*dst));
		return;
	}
	/* Element by element, which the compiler merges into 16-byte moves, where a
	 * fixed-size memcpy would draw overflow warnings from callers whose n is a constant
	 * below its size. */
	for (; i + 4 <= n; i += 4) {
		dst[i] = src[i];
		dst[i + 1] = src[i + 1];
		dst[i + 2] = src[i + 2];
		dst[i + 3] = src[i + 3];
	}
	if (n & 2) {
		dst[i] = src[i];
		dst[i + 1] = src[i + 1];
		i += 2;
	}
	if (n & 1)
		dst[i] = src[i];
}

DPK__POOL_INLINE int dpk_pool_generic_get(struct dpk_pool *p, void **objs, unsigned n,
                                          struct dpk_pool_cache *cache)
{
	uint32_t len;

	if (__builtin_expect(cache == NULL, 0))
		return dpk__pool_ring_get(p, objs, n);
	/* Only this thread writes len: relaxed is enough, the load and the store carry no
	 * data between threads (counts read len as a snapshot). */
	len = atomic_load_explicit(&cache->len, memory_order_relaxed);
	if (__builtin_expect(n <= len && cache->fast == p, 1)) {
		dpk__pool_copy(objs, &cache->objs[len - n], n);
		atomic_store_explicit(&cache->len, len - n, memory_order_relaxed);
		return 0;
	}
	return dpk__pool_get_slow(p, objs, n, cache);
}

DPK__POOL_INLINE void dpk_pool_generic_put(struct dpk_pool *p, void *const *objs, unsigned n,
                                           struct dpk_pool_cache *cache)
{
	uint32_t len;

	if (__builtin_expect(cache == NULL, 0)) {
		dpk__pool_ring_put(p, objs, n);
		return;
	}
	/* Relaxed for the same reason as in dpk_pool_generic_get(). */
	len = atomic_load_explicit(&cache->len, memory_order_relaxed);
	/* len <= thresh always holds, so the subtraction cannot wrap. */
	if (__builtin_expect(n <= cache->thresh - len && cache->fast == p, 1)) {
		dpk__pool_copy(&cache->objs[len], objs, n);
		atomic_store_explicit(&cache->len, len + n, memory_order_relaxed);
		return;
	}
	dpk__pool_put_slow(p, objs, n, cache);
}

/* The calling thread's per-lcore cache; dpk_lcore_id() is not called when there is none. */
DPK__POOL_INLINE struct dpk_pool_cache *dpk__pool_own_cache(struct dpk_pool *p)
{
	return p->lcore_caches != NULL ? dpk_pool_default_cache(p, dpk_lcore_id()) : NULL;
}

/*
 * One object from the top of cache @p c, which the caller knows to be usable for its pool
 * (not NULL, not of a debug pool, not passed with another pool; or one with len and
 * thresh 0, on which both calls fail): true with *@p obj set, false when the cache is
 * empty. Nothing else is checked, and nothing is called, so that *@p obj may stay in a
 * register.
 */
DPK__POOL_INLINE bool dpk__pool_cache_get1(struct dpk_pool_cache *c, void **obj)
{
	/* Relaxed for the same reason as in dpk_pool_generic_get(). */
	uint32_t len = atomic_load_explicit(&c->len, memory_order_relaxed);

	if (__builtin_expect(len == 0, 0))
		return false;
	*obj = c->objs[len - 1];
	atomic_store_explicit(&c->len, len - 1, memory_order_relaxed);
	return true;
}

/* Push @p obj on cache @p c, usable as for dpk__pool_cache_get1(): false, and nothing
 * done, when the cache is at its flush threshold. */
DPK__POOL_INLINE bool dpk__pool_cache_put1(struct dpk_pool_cache *c, void *obj)
{
	/* Relaxed for the same reason as in dpk_pool_generic_get(). */
	uint32_t len = atomic_load_explicit(&c->len, memory_order_relaxed);

	if (__builtin_expect(len == c->thresh, 0))
		return false;
	c->objs[len] = obj;
	atomic_store_explicit(&c->len, len + 1, memory_order_relaxed);
	return true;
}

DPK__POOL_INLINE int dpk_pool_get(struct dpk_pool *p, void **obj)
{
	struct dpk_pool_cache *c = dpk__pool_own_cache(p);
	void *o;

	if (__builtin_expect(c != NULL && c->fast == p, 1) && dpk__pool_cache_get1(c, &o)) {
		*obj = o;
		return 0;
	}
	o = dpk__pool_get1_slow(p, c);
	if (o == NULL)
		return -ENOENT;
	*obj = o;
	return 0;
}

DPK__POOL_INLINE int dpk_pool_get_bulk(struct dpk_pool *p, void **objs, unsigned n)
{
	return dpk_pool_generic_get(p, objs, n, dpk__pool_own_cache(p));
}

DPK__POOL_INLINE void dpk_pool_put(struct dpk_pool *p, void *obj)
{
	struct dpk_pool_cache *c = dpk__pool_own_cache(p);

	if (__builtin_expect(c != NULL && c->fast == p, 1) && dpk__pool_cache_put1(c, obj))
		return;
	dpk__pool_put1_slow(p, obj, c);
}

DPK__POOL_INLINE void dpk_pool_put_bulk(struct dpk_pool *p, void *const *objs, unsigned n)
{
	dpk_pool_generic_put(p, objs, n, dpk__pool_own_cache(p));
}
