/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The object pool: layout, the out-of-line get/put paths (cache misses and the checked
 * paths of debug pools), user caches, counts and the audit.
 *
 * Memory of a pool, every part starting on a cache line:
 *   struct dpk_pool | ring of count pointers | DPK_LCORE_MAX per-lcore caches | objects
 * The per-lcore caches are left out when the cache size is 0. In a debug pool each object
 * is preceded by a header padded to the object alignment, whose last four bytes are the
 * state word (struct obj_hdr).
 *
 * Cache headers and objects are kept apart in the L1 data cache. Per-lcore caches are
 * spaced by whole line pairs, so every cache header (the line holding len, read and
 * written by every cached get and put) starts on the even line of a pair, counted from
 * the first cache. The first cache-aligned object starts on an odd line: when the object
 * size is a whole number of line pairs (packet objects are), every object does, and none
 * shares an L1 set with any cache header. Sharing a set is costly on AMD Zen, whose L1 way
 * predictor tells lines apart by a hash of address bits 12-27 that pairs bit 15 with 20, 16 with 21
 * and so on: two lines of the same set whose addresses differ by, for instance, 0x108000 (bits 15
 * and 20) are told apart only when a carry breaks the pattern, and otherwise evict each
 * other's way entry on every access, an L1 miss each time. With the default packet pool
 * (2112-byte objects, caches of 256 spaced 0x1080 apart) that distance separated lcore
 * i's cache header from object 256 + 2 i; object 256 is the one on top of lcore 0's cache
 * after its first refill, so a loop of single gets and puts that touched it ran several
 * times slower whenever ASLR put the pool where the hashes met (docs/measured-2026-11-30.md,
 * "The pool's layout and the L1 way predictor").
 *
 * Memory orders, paired: L1 (acquire of the user-cache list lock in user_lock()) pairs
 * with U1 (its release in user_unlock()): the list as its last holder left it. Every other
 * atomic here is relaxed: cache lengths (written by the cache's one user, read as a
 * snapshot by counts), debug state words and misuse counts (checks; the ring and the caches
 * order the objects themselves).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/pool.h>

#include "internal.h"

#define POOL_FLAGS                                                                                 \
	(DPK_POOL_F_SP_PUT | DPK_POOL_F_SC_GET | DPK_POOL_F_NO_CACHE_ALIGN | DPK_POOL_F_DEBUG)

/* State words of debug pools. */
#define OBJ_FREE 0x46524545u /* "FREE": in the ring or a cache */
#define OBJ_USED 0x55534544u /* "USED": held by the application */

/*
 * Per-lcore caches are spaced by whole cache-line pairs: Intel's adjacent-line prefetcher
 * moves lines in aligned pairs, and one lcore's cache must not share a pair with the next
 * lcore's. (Exact when the pool's memory is aligned to the pair, as dpk_pool_create()
 * makes it.)
 */
#define LINE_PAIR (2 * DPK_CACHE_LINE)

/* Puts of a debug pool are checked and forwarded in chunks of this many objects. */
#define CHECK_CHUNK 64u

struct obj_hdr {
	_Atomic uint32_t state;
};

struct layout {
	size_t ring_off;
	size_t caches_off;
	size_t cache_stride;
	size_t objs_off;
	size_t hdr_size;
	size_t elt_size;
	size_t total;
	unsigned ring_flags;
};

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static unsigned flush_thresh(unsigned size)
{
	return size + size / 2;
}

static size_t cache_bytes(unsigned size)
{
	return align_up(offsetof(struct dpk_pool_cache, objs) + 2 * (size_t)size * sizeof(void *),
	                LINE_PAIR);
}

/* Compute where everything goes; -EINVAL with a message when the arguments are bad. */
static int pool_layout(unsigned count, size_t obj_size, unsigned cache_size, unsigned flags,
                       struct layout *l)
{
	size_t align = (flags & DPK_POOL_F_NO_CACHE_ALIGN) ? 8 : DPK_CACHE_LINE;
	ssize_t ring_size;

	if (flags & ~POOL_FLAGS) {
		dpk__set_error("pool: unknown flags 0x%x", flags & ~POOL_FLAGS);
		return -EINVAL;
	}
	if (count == 0 || count > DPK_POOL_COUNT_MAX) {
		dpk__set_error("pool: count %u is not in 1..%u", count, DPK_POOL_COUNT_MAX);
		return -EINVAL;
	}
	if (obj_size == 0 || obj_size > SIZE_MAX / 4) {
		dpk__set_error("pool: object size %zu is 0 or too large", obj_size);
		return -EINVAL;
	}
	if (cache_size > DPK_POOL_CACHE_MAX) {
		dpk__set_error("pool: cache size %u is above DPK_POOL_CACHE_MAX (%u)", cache_size,
		               DPK_POOL_CACHE_MAX);
		return -EINVAL;
	}
	if (flush_thresh(cache_size) > count) {
		dpk__set_error(
		        "pool: %u objects are too few for a cache of %u (flush threshold %u)",
		        count, cache_size, flush_thresh(cache_size));
		return -EINVAL;
	}
	l->ring_flags = DPK_RING_F_EXACT_SZ;
	if (flags & DPK_POOL_F_SP_PUT)
		l->ring_flags |= DPK_RING_F_SP_ENQ;
	if (flags & DPK_POOL_F_SC_GET)
		l->ring_flags |= DPK_RING_F_SC_DEQ;
	ring_size = dpk_ring_memsize(sizeof(void *), count, l->ring_flags);
	if (ring_size < 0) {
		dpk__set_error("pool: no ring of %u pointers", count);
		return -EINVAL;
	}
	l->hdr_size = (flags & DPK_POOL_F_DEBUG) ? align_up(sizeof(struct obj_hdr), align) : 0;
	l->elt_size = l->hdr_size + align_up(obj_size, align);
	l->ring_off = align_up(sizeof(struct dpk_pool), DPK_CACHE_LINE);
	l->caches_off = align_up(l->ring_off + (size_t)ring_size, LINE_PAIR);
	l->cache_stride = cache_size ? cache_bytes(cache_size) : 0;
	l->objs_off = align_up(l->caches_off + l->cache_stride * DPK_LCORE_MAX, DPK_CACHE_LINE);
	/* The first line of every object on the other line of a pair than the cache headers
	 * (see the file comment). */
	if (cache_size && align == DPK_CACHE_LINE &&
	    (l->objs_off + l->hdr_size - l->caches_off) % LINE_PAIR == 0)
		l->objs_off += DPK_CACHE_LINE;
	if (l->elt_size > ((size_t)PTRDIFF_MAX - l->objs_off) / count) {
		dpk__set_error("pool: %u objects of %zu bytes do not fit in memory", count,
		               obj_size);
		return -EINVAL;
	}
	l->total = l->objs_off + l->elt_size * count;
	return 0;
}

ssize_t dpk_pool_memsize(unsigned count, size_t obj_size, unsigned cache_size, unsigned flags)
{
	struct layout l;
	int rc = pool_layout(count, obj_size, cache_size, flags, &l);

	return rc < 0 ? rc : (ssize_t)l.total;
}

/* The state word sits right before the object, where an underrun lands first. */
static struct obj_hdr *obj_hdr(const struct dpk_pool *p, void *obj)
{
	(void)p;
	return (struct obj_hdr *)(void *)((unsigned char *)obj - sizeof(struct obj_hdr));
}

static void cache_setup(struct dpk_pool_cache *c, struct dpk_pool *p, unsigned size)
{
	atomic_init(&c->len, 0);
	c->size = size;
	c->thresh = flush_thresh(size);
	c->pool = p;
	c->fast = (p->flags & DPK_POOL_F_DEBUG) ? NULL : p;
	c->next = NULL;
}

int dpk_pool_init(struct dpk_pool *p, unsigned count, size_t obj_size, unsigned cache_size,
                  unsigned flags)
{
	struct layout l;
	void *batch[64];
	unsigned n = 0;
	int rc;

	if (p == NULL || (uintptr_t)p % DPK_CACHE_LINE) {
		dpk__set_error("pool: memory is NULL or not aligned to %d bytes", DPK_CACHE_LINE);
		return -EINVAL;
	}
	rc = pool_layout(count, obj_size, cache_size, flags, &l);
	if (rc < 0)
		return rc;

	memset(p, 0, sizeof(*p));
	p->ring = (struct dpk_ring *)(void *)((unsigned char *)p + l.ring_off);
	rc = dpk_ring_init(p->ring, sizeof(void *), count, l.ring_flags);
	if (rc < 0) {
		dpk__set_error("pool: ring init failed (%d)", rc);
		return rc;
	}
	p->flags = flags;
	p->cache_size = cache_size;
	p->count = count;
	p->hdr_size = (uint32_t)l.hdr_size;
	p->obj_size = obj_size;
	p->elt_size = l.elt_size;
	p->first = (unsigned char *)p + l.objs_off + l.hdr_size;
	p->cache_stride = l.cache_stride;
	if (cache_size) {
		p->lcore_caches = (unsigned char *)p + l.caches_off;
		for (unsigned id = 0; id < DPK_LCORE_MAX; id++)
			cache_setup(dpk_pool_default_cache(p, id), p, cache_size);
	}
	atomic_flag_clear(&p->user_lock);
	p->user_caches = NULL;
	atomic_init(&p->refused_puts, 0);
	atomic_init(&p->corrupt_gets, 0);
	atomic_init(&p->excess_puts, 0);
	p->owned = false;

	for (unsigned i = 0; i < count; i++) {
		void *obj = p->first + (size_t)i * l.elt_size;

		if (p->hdr_size)
			atomic_init(&obj_hdr(p, obj)->state, OBJ_FREE);
		batch[n++] = obj;
		if (n == 64 || i + 1 == count) {
			dpk_ring_enqueue_bulk(p->ring, batch, n, NULL);
			n = 0;
		}
	}
	return 0;
}

struct dpk_pool *dpk_pool_create(unsigned count, size_t obj_size, unsigned cache_size,
                                 unsigned flags)
{
	ssize_t size = dpk_pool_memsize(count, obj_size, cache_size, flags);
	struct dpk_pool *p;
	int rc;

	if (size < 0) {
		errno = (int)-size;
		return NULL;
	}
	p = aligned_alloc(LINE_PAIR, align_up((size_t)size, LINE_PAIR));
	if (p == NULL) {
		dpk__set_error("pool: cannot allocate %zd bytes", size);
		errno = ENOMEM;
		return NULL;
	}
	rc = dpk_pool_init(p, count, obj_size, cache_size, flags);
	if (rc < 0) {
		free(p);
		errno = -rc;
		return NULL;
	}
	p->owned = true;
	return p;
}

void dpk_pool_free(struct dpk_pool *p)
{
	if (p != NULL && p->owned)
		free(p);
}

/* Ring access in the ring's default mode, which the pool's flags chose. */
static int ring_get(struct dpk_pool *p, void **objs, unsigned n)
{
	return dpk_ring_dequeue_bulk(p->ring, objs, n, NULL) == n ? 0 : -ENOENT;
}

static void ring_put(struct dpk_pool *p, void *const *objs, unsigned n)
{
	dpk__pool_ring_enqueue(p, objs, n);
}

/*
 * The ring had no room for all of @p objs: more objects came back than were taken. What
 * fits now goes in, in order, and the rest is dropped and counted; the pool cannot tell
 * the extra pointers from rightful ones, so a rightful object may be among those dropped.
 */
void dpk__pool_ring_overflow(struct dpk_pool *p, void *const *objs, unsigned n)
{
	unsigned done = dpk_ring_enqueue_burst(p->ring, objs, n, NULL);

	if (done == n)
		return;
	/* Relaxed: a count for the audit, which runs on a quiet pool. */
	atomic_fetch_add_explicit(&p->excess_puts, n - done, memory_order_relaxed);
	dpk__set_error("pool %p: the ring was full: dropped %u of %u objects put (more puts "
	               "than gets: an object put twice, or a pointer not taken from the pool)",
	               (void *)p, n - done, n);
}

/* Get with the cache policy of <dpk/pool.h>, no checks. */
static int get_cached(struct dpk_pool *p, void **objs, unsigned n, struct dpk_pool_cache *c)
{
	uint32_t len, rest, fill;

	if (c == NULL || n > c->size)
		return ring_get(p, objs, n);
	len = atomic_load_explicit(&c->len, memory_order_relaxed);
	if (n > len) {
		/* Refill on top of what the cache holds: S plus what it lacks, so that S
		 * remain after this request. The array has room: len + S + n - len <= 2 S. */
		rest = n - len;
		fill = c->size + rest;
		if (dpk_ring_dequeue_bulk(p->ring, &c->objs[len], fill, NULL) == fill) {
			len += fill;
		} else {
			/* The ring is short: take the rest directly, the cache's objects after
			 * it, so that nothing is written to objs unless both are there. */
			if (ring_get(p, objs + len, rest) < 0)
				return -ENOENT;
			dpk__pool_copy(objs, c->objs, len);
			atomic_store_explicit(&c->len, 0, memory_order_relaxed);
			return 0;
		}
	}
	dpk__pool_copy(objs, &c->objs[len - n], n);
	atomic_store_explicit(&c->len, len - n, memory_order_relaxed);
	return 0;
}

/* Put with the cache policy of <dpk/pool.h>, no checks. */
static void put_cached(struct dpk_pool *p, void *const *objs, unsigned n, struct dpk_pool_cache *c)
{
	uint32_t len;

	if (c == NULL || n > c->size) {
		ring_put(p, objs, n);
		return;
	}
	len = atomic_load_explicit(&c->len, memory_order_relaxed);
	if (n > c->thresh - len) {
		/* Over the threshold: write everything back, keep the new objects. */
		ring_put(p, c->objs, len);
		len = 0;
	}
	dpk__pool_copy(&c->objs[len], objs, n);
	atomic_store_explicit(&c->len, len + n, memory_order_relaxed);
}

/* A cache passed with another pool is not used: the call goes to the ring. */
static struct dpk_pool_cache *checked_cache(struct dpk_pool *p, struct dpk_pool_cache *c)
{
	if (c != NULL && c->pool != p) {
		dpk__set_error("pool %p: given a cache of pool %p; using the ring", (void *)p,
		               (void *)c->pool);
		return NULL;
	}
	return c;
}

static int get_checked(struct dpk_pool *p, void **objs, unsigned n, struct dpk_pool_cache *c)
{
	int rc = get_cached(p, objs, n, c);

	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < n; i++) {
		/* Relaxed: the state is a check, the ring and the caches order the object. */
		uint32_t old = atomic_exchange_explicit(&obj_hdr(p, objs[i])->state, OBJ_USED,
		                                        memory_order_relaxed);
		if (old != OBJ_FREE) {
			atomic_fetch_add_explicit(&p->corrupt_gets, 1, memory_order_relaxed);
			dpk__set_error("pool %p: got object %p whose state is 0x%" PRIx32
			               ", not free",
			               (void *)p, objs[i], old);
		}
	}
	return 0;
}

/* Mark @p obj free; false (and counted) when it is foreign or not in use. */
static bool check_put(struct dpk_pool *p, void *obj)
{
	uint32_t old;

	if (dpk_pool_obj_index(p, obj) < 0) {
		atomic_fetch_add_explicit(&p->refused_puts, 1, memory_order_relaxed);
		dpk__set_error("pool %p: refused put of %p, not one of its objects", (void *)p,
		               obj);
		return false;
	}
	/* A compare-exchange: of two threads putting the same object only one wins, and a
	 * free (or overwritten) state word is left as it is. Relaxed: the state is a
	 * check, the ring and the caches order the object itself. */
	old = OBJ_USED;
	atomic_compare_exchange_strong_explicit(&obj_hdr(p, obj)->state, &old, OBJ_FREE,
	                                        memory_order_relaxed, memory_order_relaxed);
	if (old != OBJ_USED) {
		atomic_fetch_add_explicit(&p->refused_puts, 1, memory_order_relaxed);
		dpk__set_error("pool %p: refused put of %p, already free (state 0x%" PRIx32 ")",
		               (void *)p, obj, old);
		return false;
	}
	return true;
}

static void put_checked(struct dpk_pool *p, void *const *objs, unsigned n, struct dpk_pool_cache *c)
{
	void *ok[CHECK_CHUNK];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!check_put(p, objs[i]))
			continue;
		ok[k++] = objs[i];
		if (k == CHECK_CHUNK) {
			put_cached(p, ok, k, c);
			k = 0;
		}
	}
	if (k)
		put_cached(p, ok, k, c);
}

int dpk__pool_get_slow(struct dpk_pool *p, void **objs, unsigned n, struct dpk_pool_cache *c)
{
	c = checked_cache(p, c);
	if (p->flags & DPK_POOL_F_DEBUG)
		return get_checked(p, objs, n, c);
	return get_cached(p, objs, n, c);
}

void dpk__pool_put_slow(struct dpk_pool *p, void *const *objs, unsigned n, struct dpk_pool_cache *c)
{
	c = checked_cache(p, c);
	if (p->flags & DPK_POOL_F_DEBUG)
		put_checked(p, objs, n, c);
	else
		put_cached(p, objs, n, c);
}

void *dpk__pool_get1_slow(struct dpk_pool *p, struct dpk_pool_cache *c)
{
	void *obj;

	return dpk__pool_get_slow(p, &obj, 1, c) == 0 ? obj : NULL;
}

void dpk__pool_put1_slow(struct dpk_pool *p, void *obj, struct dpk_pool_cache *c)
{
	dpk__pool_put_slow(p, &obj, 1, c);
}

/* The user-cache list lock, held for a handful of pointer moves only. */
static void user_lock(const struct dpk_pool *cp)
{
	struct dpk_pool *p = (struct dpk_pool *)(uintptr_t)cp;

	/* L1: acquire, pairs with U1 in user_unlock(): the list as the last holder left it.
	 * The pause spaces the retries out while another thread holds the lock: each retry
	 * takes the lock's line exclusive, away from the holder, which needs it back to
	 * release, and a spin without a pause also starves a sibling hardware thread, which
	 * may be the holder. */
	while (atomic_flag_test_and_set_explicit(&p->user_lock, memory_order_acquire))
		dpk_pause();
}

static void user_unlock(const struct dpk_pool *cp)
{
	struct dpk_pool *p = (struct dpk_pool *)(uintptr_t)cp;

	/* U1: release, pairs with L1 in user_lock(). */
	atomic_flag_clear_explicit(&p->user_lock, memory_order_release);
}

struct dpk_pool_cache *dpk_pool_cache_create(struct dpk_pool *p, unsigned size)
{
	struct dpk_pool_cache *c;

	if (p == NULL || size == 0 || size > DPK_POOL_CACHE_MAX) {
		dpk__set_error("pool cache: pool is NULL or size %u not in 1..%u", size,
		               DPK_POOL_CACHE_MAX);
		errno = EINVAL;
		return NULL;
	}
	c = aligned_alloc(LINE_PAIR, cache_bytes(size));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	cache_setup(c, p, size);
	user_lock(p);
	c->next = p->user_caches;
	p->user_caches = c;
	user_unlock(p);
	return c;
}

void dpk_pool_cache_flush(struct dpk_pool_cache *c)
{
	if (c == NULL)
		return;
	ring_put(c->pool, c->objs, atomic_load_explicit(&c->len, memory_order_relaxed));
	atomic_store_explicit(&c->len, 0, memory_order_relaxed);
}

void dpk_pool_cache_free(struct dpk_pool_cache *c)
{
	struct dpk_pool *p;
	bool found = false;

	if (c == NULL)
		return;
	p = c->pool;
	user_lock(p);
	for (struct dpk_pool_cache **pp = &p->user_caches; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			found = true;
			break;
		}
	}
	user_unlock(p);
	if (!found) {
		/* A per-lcore cache lives inside the pool's memory. */
		dpk__set_error("pool cache %p: not from dpk_pool_cache_create(); left alone",
		               (void *)c);
		return;
	}
	dpk_pool_cache_flush(c);
	free(c);
}

unsigned dpk_pool_cache_count(const struct dpk_pool_cache *c)
{
	return c ? atomic_load_explicit(&c->len, memory_order_relaxed) : 0;
}

unsigned dpk_pool_count(const struct dpk_pool *p)
{
	return p->count;
}

unsigned dpk_pool_avail_count(const struct dpk_pool *p)
{
	uint64_t n = dpk_ring_count(p->ring);

	if (p->lcore_caches)
		for (unsigned id = 0; id < DPK_LCORE_MAX; id++)
			n += dpk_pool_cache_count(
			        dpk_pool_default_cache((struct dpk_pool *)(uintptr_t)p, id));
	user_lock(p);
	for (const struct dpk_pool_cache *c = p->user_caches; c; c = c->next)
		n += dpk_pool_cache_count(c);
	user_unlock(p);
	/* Objects moving between the ring and a cache may be seen in both. */
	return n > p->count ? p->count : (unsigned)n;
}

unsigned dpk_pool_in_use_count(const struct dpk_pool *p)
{
	return p->count - dpk_pool_avail_count(p);
}

bool dpk_pool_full(const struct dpk_pool *p)
{
	return dpk_pool_avail_count(p) == p->count;
}

bool dpk_pool_empty(const struct dpk_pool *p)
{
	return dpk_pool_avail_count(p) == 0;
}

size_t dpk_pool_obj_size(const struct dpk_pool *p)
{
	return p->obj_size;
}

unsigned dpk_pool_cache_size(const struct dpk_pool *p)
{
	return p->cache_size;
}

int dpk_pool_obj_index(const struct dpk_pool *p, const void *obj)
{
	uintptr_t a = (uintptr_t)obj, base;
	size_t off;

	if (p == NULL || obj == NULL)
		return -EINVAL;
	base = (uintptr_t)p->first;
	if (a < base)
		return -EINVAL;
	off = a - base;
	if (off % p->elt_size || off / p->elt_size >= p->count)
		return -EINVAL;
	return (int)(off / p->elt_size);
}

unsigned dpk_pool_obj_iter(struct dpk_pool *p, dpk_pool_obj_fn fn, void *arg)
{
	if (p == NULL || fn == NULL)
		return 0;
	for (unsigned i = 0; i < p->count; i++)
		fn(p, p->first + (size_t)i * p->elt_size, i, arg);
	return p->count;
}

struct audit {
	struct dpk_pool *p;
	struct dpk_pool_audit_report *r;
	unsigned char *seen;
};

/* One pointer found among the free objects. */
static void audit_free(struct audit *a, void *obj)
{
	int idx = dpk_pool_obj_index(a->p, obj);

	if (idx < 0) {
		a->r->foreign++;
		return;
	}
	if (a->seen[idx]) {
		a->r->duplicates++;
		return;
	}
	a->seen[idx] = 1;
	if (a->p->hdr_size &&
	    atomic_load_explicit(&obj_hdr(a->p, obj)->state, memory_order_relaxed) != OBJ_FREE)
		a->r->bad_state++;
}

static void audit_cache(struct audit *a, const struct dpk_pool_cache *c)
{
	uint32_t len = atomic_load_explicit(&c->len, memory_order_relaxed);

	a->r->in_caches += len;
	for (uint32_t i = 0; i < len; i++)
		audit_free(a, c->objs[i]);
}

int dpk_pool_audit(struct dpk_pool *p, struct dpk_pool_audit_report *report,
                   dpk_pool_obj_fn held_fn, void *arg)
{
	struct dpk_pool_audit_report local;
	struct audit a = {.p = p, .r = report ? report : &local};
	void **ring_objs;
	unsigned n;
	bool bad;

	if (p == NULL)
		return -EINVAL;
	memset(a.r, 0, sizeof(*a.r));
	a.r->count = p->count;
	a.seen = calloc(p->count, 1);
	ring_objs = calloc(p->count, sizeof(void *));
	if (a.seen == NULL || ring_objs == NULL) {
		free(a.seen);
		free(ring_objs);
		return -ENOMEM;
	}

	/* The ring cannot be read in place: take everything out and put it back in the
	 * same order. The pool is quiet, so nothing else sees it empty. */
	n = dpk_ring_dequeue_burst(p->ring, ring_objs, p->count, NULL);
	dpk_ring_enqueue_bulk(p->ring, ring_objs, n, NULL);
	a.r->in_ring = n;
	for (unsigned i = 0; i < n; i++)
		audit_free(&a, ring_objs[i]);
	free(ring_objs);

	for (unsigned id = 0; p->lcore_caches && id < DPK_LCORE_MAX; id++)
		audit_cache(&a, dpk_pool_default_cache(p, id));
	user_lock(p);
	for (const struct dpk_pool_cache *c = p->user_caches; c; c = c->next)
		audit_cache(&a, c);
	user_unlock(p);

	for (unsigned i = 0; i < p->count; i++) {
		void *obj = p->first + (size_t)i * p->elt_size;

		if (a.seen[i])
			continue;
		a.r->in_use++;
		if (p->hdr_size &&
		    atomic_load_explicit(&obj_hdr(p, obj)->state, memory_order_relaxed) != OBJ_USED)
			a.r->bad_state++;
		if (held_fn)
			held_fn(p, obj, i, arg);
	}
	free(a.seen);

	a.r->refused_puts = atomic_load_explicit(&p->refused_puts, memory_order_relaxed);
	a.r->corrupt_gets = atomic_load_explicit(&p->corrupt_gets, memory_order_relaxed);
	a.r->excess_puts = atomic_load_explicit(&p->excess_puts, memory_order_relaxed);
	bad = a.r->duplicates || a.r->foreign || a.r->bad_state || a.r->refused_puts ||
	      a.r->corrupt_gets || a.r->excess_puts;
	if (bad)
		dpk__set_error("pool %p: audit found %u duplicates, %u foreign pointers, %u bad "
		               "states, %" PRIu64 " refused puts, %" PRIu64
		               " corrupt gets, %" PRIu64 " excess puts",
		               (void *)p, a.r->duplicates, a.r->foreign, a.r->bad_state,
		               a.r->refused_puts, a.r->corrupt_gets, a.r->excess_puts);
	return bad ? -EBADMSG : 0;
}

int dpk_pool_dump(FILE *f, const struct dpk_pool *p)
{
	if (f == NULL || p == NULL)
		return -EINVAL;
	fprintf(f,
	        "pool %p: count=%u obj_size=%zu elt_size=%zu cache_size=%u flags=0x%x\n"
	        "  ring=%u avail=%u in_use=%u refused_puts=%" PRIu64 " corrupt_gets=%" PRIu64
	        " excess_puts=%" PRIu64 "\n",
	        (const void *)p, p->count, p->obj_size, p->elt_size, p->cache_size, p->flags,
	        dpk_ring_count(p->ring), dpk_pool_avail_count(p), dpk_pool_in_use_count(p),
	        atomic_load_explicit(&p->refused_puts, memory_order_relaxed),
	        atomic_load_explicit(&p->corrupt_gets, memory_order_relaxed),
	        atomic_load_explicit(&p->excess_puts, memory_order_relaxed));
	return 0;
}
