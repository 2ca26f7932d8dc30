/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/pool.h - a pool of fixed-size objects with per-lcore caches.
 *
 * A pool holds count objects of obj_size bytes carved out of one block of memory. Free
 * objects live in a dpkit ring of pointers (MP/MC by default; SP/SC per side by flag) and,
 * in front of it, in caches: one per lcore id, indexed by dpk_lcore_id(), sized at create
 * (0 disables them), and any number of user-owned caches for threads that are not lcores.
 * A thread that is not an lcore and passes no cache works on the ring directly.
 *
 * Objects start on a cache-line boundary unless DPK_POOL_F_NO_CACHE_ALIGN is given (then
 * on a multiple of 8 bytes). Their content is never touched by the pool, except under
 * DPK_POOL_F_DEBUG, which adds a hidden header in front of each object.
 *
 * Get is all or nothing: it hands out n objects or returns -ENOENT and hands out none.
 * Put returns nothing and never fails for objects taken from the pool. A cache passed
 * with a pool it does not belong to is not used: the call goes to the ring, and
 * dpk_last_error() says so.
 *
 * Cache policy (as DPDK 22.11's mempool cache). A cache of size S is a LIFO array with
 * room for 2 S pointers and a flush threshold T = S + S / 2:
 *   - get n: when the cache holds at least n objects, the n most recently put are taken
 *     from its top. Otherwise, if n <= S, the cache gives what it holds and refills from
 *     the ring with S plus the rest of the request in one bulk dequeue, keeping S; if the
 *     ring cannot give that many, the rest is dequeued directly, and if even that fails
 *     the cache is left as it was and the call returns -ENOENT. A request with n > S
 *     bypasses the cache.
 *   - put n: when the objects fit under T they are pushed on top of the cache. Otherwise,
 *     if n <= S, everything the cache holds is written back to the ring in one bulk
 *     enqueue and the n objects become the cache's content; a put with n > S goes to the
 *     ring directly.
 * The cached paths are inline: a bounds check, a copy of n pointers and a store of the
 * new length. Per-lcore caches are made for every id below DPK_LCORE_MAX, whether or not
 * it is an lcore: about DPK_LCORE_MAX * 16 S bytes (1 MiB for S = 512). Objects sitting
 * in the caches of other lcores are not reachable from this one, so a get can fail while
 * dpk_pool_avail_count() is not zero.
 *
 * Misuse: a put of an object that is not held (put twice), or of a pointer that is not
 * an object of the pool (foreign), and use of an object after its put.
 *   - A plain pool checks nothing on its paths but one thing that costs a compare there:
 *     a put that reaches the ring (no cache, a cache flush, a put of more than the cache
 *     size, dpk_pool_cache_flush()) and finds no room for all its pointers. The ring has
 *     room for every object, so only more puts than gets leave it short: what fits goes
 *     in, the rest is dropped and counted (excess_puts of dpk_pool_audit()), and
 *     dpk_last_error() says so. The pool cannot tell the extra pointers from rightful
 *     ones, so a rightful object may be among those dropped, and is then lost. Any other
 *     double or foreign put is taken in: its pointer waits in the ring or a cache, where
 *     dpk_pool_audit() finds it (as a duplicate or a foreign pointer), until a get hands
 *     it out; then two holders share one object, or a holder gets memory that is not the
 *     pool's, and nothing notices.
 *   - A pool created with DPK_POOL_F_DEBUG (in any build mode) gives each object a header
 *     holding a state word, and every get and put goes through checked, out-of-line code:
 *     a double or foreign put is refused (the pointer is not taken in), counted and
 *     reported by dpk_last_error(); a get that finds an object not marked free (its
 *     header overwritten) counts it.
 *   - No pool sees an object used after its put, except a debug pool when a write hit the
 *     state word, right before the object (bad_state in the audit, corrupt_gets after a
 *     get). The objects are carved out of one allocation, so AddressSanitizer does not
 *     see it either.
 *
 * Concurrency ("cache" = a per-lcore cache or a user cache):
 *
 *   call                            may run at the same time as
 *   get / put (all forms)           any other get / put, with three limits: a cache is
 *                                   used by one thread at a time (an lcore's own cache by
 *                                   that lcore); with DPK_POOL_F_SC_GET one thread at a
 *                                   time may take from the ring (cache refills and cacheless
 *                                   gets included); with DPK_POOL_F_SP_PUT one thread at a
 *                                   time may put to the ring (cache flushes included)
 *   counts, obj_index, obj_iter,    anything; counts are a snapshot while objects move
 *   dump
 *   default_cache                   anything
 *   cache_create                    anything but free
 *   cache_flush / cache_free        get / put through other caches; not with a get / put
 *                                   through the same cache
 *   audit                           nothing else on the pool
 *   init, create, free              nothing else on the pool
 */
#ifndef DPK_POOL_H
#define DPK_POOL_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <dpk/common.h>
#include <dpk/impl/compat.h>
#include <dpk/lcore.h>
#include <dpk/ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Only one thread at a time puts objects back to the ring (single-producer ring). */
#define DPK_POOL_F_SP_PUT 0x1u
/** Only one thread at a time takes objects from the ring (single-consumer ring). */
#define DPK_POOL_F_SC_GET 0x2u
/** Align objects to 8 bytes instead of a cache line. */
#define DPK_POOL_F_NO_CACHE_ALIGN 0x4u
/** Check every get and put against a per-object state word (see the file comment). */
#define DPK_POOL_F_DEBUG 0x8u

/** Largest cache size, per-lcore or user-owned. */
#define DPK_POOL_CACHE_MAX 512u

/** Largest object count (the ring's largest exact capacity). */
#define DPK_POOL_COUNT_MAX 0x7fffffffu

struct dpk_pool;
struct dpk_pool_cache;

/** Called by dpk_pool_obj_iter() and dpk_pool_audit() for one object, with its index. */
typedef void (*dpk_pool_obj_fn)(struct dpk_pool *p, void *obj, unsigned idx, void *arg);

/** What dpk_pool_audit() found: the free pointers (those in the ring and the caches) as
 * they are now, and the pool's counts of misuse since init. */
struct dpk_pool_audit_report {
	unsigned count;        /**< objects in the pool */
	unsigned in_ring;      /**< pointers found in the ring */
	unsigned in_caches;    /**< pointers found in per-lcore and user caches */
	unsigned in_use;       /**< objects found in neither: held by the application, or
	                            lost (a put that never came, a dropped pointer) */
	unsigned duplicates;   /**< free pointers to an object already found among them
	                            (each extra copy counts) */
	unsigned foreign;      /**< free pointers that are not objects of this pool */
	unsigned bad_state;    /**< debug pools: state word disagrees with where it was found */
	uint64_t refused_puts; /**< debug pools: puts refused since init (double or foreign) */
	uint64_t corrupt_gets; /**< debug pools: gets that found an object not marked free */
	uint64_t excess_puts;  /**< all pools: pointers dropped since init by puts that found
	                            the ring full (more puts than gets) */
};

/**
 * Bytes needed for a pool of @p count objects of @p obj_size bytes, a per-lcore cache of
 * @p cache_size objects (0: none), and @p flags.
 * @retval >0      the size
 * @retval -EINVAL @p count is 0 or above DPK_POOL_COUNT_MAX; @p obj_size is 0 or so large
 *                 that the size overflows; @p cache_size is above DPK_POOL_CACHE_MAX or
 *                 its flush threshold (1.5 x @p cache_size) exceeds @p count (the pool
 *                 is too small for its caches); unknown flags
 */
ssize_t dpk_pool_memsize(unsigned count, size_t obj_size, unsigned cache_size, unsigned flags);

/**
 * Build a pool in caller memory @p p of at least dpk_pool_memsize() bytes, aligned to
 * DPK_CACHE_LINE. Every object starts free, in the ring, in address order. The memory
 * stays the caller's: there is nothing to free afterwards except user caches.
 * @retval 0       success
 * @retval -EINVAL bad arguments (as dpk_pool_memsize()), @p p NULL or misaligned
 */
int dpk_pool_init(struct dpk_pool *p, unsigned count, size_t obj_size, unsigned cache_size,
                  unsigned flags);

/**
 * Allocate and build a pool (see dpk_pool_init()).
 * @return the pool, or NULL with errno EINVAL (bad arguments, as dpk_pool_memsize()) or
 *         ENOMEM
 */
struct dpk_pool *dpk_pool_create(unsigned count, size_t obj_size, unsigned cache_size,
                                 unsigned flags);

/**
 * Free a pool from dpk_pool_create(); NULL is a no-op, and so is a pool built by
 * dpk_pool_init() (its memory is the caller's). Its user caches must have been freed
 * before, and no object may be used afterwards.
 */
void dpk_pool_free(struct dpk_pool *p);

/** The per-lcore cache of lcore @p lcore_id, or NULL when the pool has no per-lcore
 * caches or @p lcore_id is not below DPK_LCORE_MAX (DPK_LCORE_ANY included). */
static inline struct dpk_pool_cache *dpk_pool_default_cache(struct dpk_pool *p, unsigned lcore_id);

/**
 * Take @p n objects into @p objs through cache @p cache (NULL: the ring directly).
 * All or nothing; n = 0 succeeds and does nothing.
 * @retval 0       @p objs[0..n-1] are set
 * @retval -ENOENT not enough objects reachable; @p objs is not written, the pool unchanged
 */
static inline int dpk_pool_generic_get(struct dpk_pool *p, void **objs, unsigned n,
                                       struct dpk_pool_cache *cache);

/** Give back @p n objects through cache @p cache (NULL: the ring directly). */
static inline void dpk_pool_generic_put(struct dpk_pool *p, void *const *objs, unsigned n,
                                        struct dpk_pool_cache *cache);

/**
 * Take one object through the calling lcore's cache (the ring when there is none).
 * @retval 0       *@p obj is set
 * @retval -ENOENT no object reachable; *@p obj is not written
 */
static inline int dpk_pool_get(struct dpk_pool *p, void **obj);

/**
 * Take @p n objects through the calling lcore's cache, all or nothing.
 * @retval 0       @p objs[0..n-1] are set
 * @retval -ENOENT not enough objects reachable; nothing taken
 */
static inline int dpk_pool_get_bulk(struct dpk_pool *p, void **objs, unsigned n);

/** Give back one object through the calling lcore's cache. */
static inline void dpk_pool_put(struct dpk_pool *p, void *obj);

/** Give back @p n objects through the calling lcore's cache. */
static inline void dpk_pool_put_bulk(struct dpk_pool *p, void *const *objs, unsigned n);

/**
 * Create a user-owned cache of @p size objects for pool @p p, for a thread that is not an
 * lcore (or one that wants a second cache). Pass it to dpk_pool_generic_get/put() of
 * @p p only. The objects it holds count as available.
 * @return the cache, or NULL with errno EINVAL (@p p NULL, @p size 0 or above
 *         DPK_POOL_CACHE_MAX) or ENOMEM
 */
struct dpk_pool_cache *dpk_pool_cache_create(struct dpk_pool *p, unsigned size);

/** Write every object held by @p cache back to its pool's ring; NULL is a no-op. Works on
 * per-lcore caches too (from their lcore, or while that lcore makes no pool call). */
void dpk_pool_cache_flush(struct dpk_pool_cache *cache);

/** Flush and free a cache from dpk_pool_cache_create(); NULL is a no-op, and so is a
 * per-lcore cache (dpk_last_error() says so). */
void dpk_pool_cache_free(struct dpk_pool_cache *cache);

/** Number of objects the cache holds now; 0 for NULL. */
unsigned dpk_pool_cache_count(const struct dpk_pool_cache *cache);

/** Number of objects in the pool. */
unsigned dpk_pool_count(const struct dpk_pool *p);

/** Objects not held by the application: in the ring plus in every cache. */
unsigned dpk_pool_avail_count(const struct dpk_pool *p);

/** Objects held by the application: count - avail_count. */
unsigned dpk_pool_in_use_count(const struct dpk_pool *p);

/** True when every object is available. */
bool dpk_pool_full(const struct dpk_pool *p);

/** True when no object is available. */
bool dpk_pool_empty(const struct dpk_pool *p);

/** Size of an object in bytes, as given at create. */
size_t dpk_pool_obj_size(const struct dpk_pool *p);

/** Per-lcore cache size, as given at create. */
unsigned dpk_pool_cache_size(const struct dpk_pool *p);

/**
 * Index 0..count-1 of object @p obj, in address order.
 * @retval >=0     the index
 * @retval -EINVAL @p obj is not the start of an object of @p p (or an argument is NULL)
 */
int dpk_pool_obj_index(const struct dpk_pool *p, const void *obj);

/**
 * Call @p fn(p, obj, idx, @p arg) once for every object of the pool, free or not, in
 * address order.
 * @return the number of objects visited (0 when @p p or @p fn is NULL)
 */
unsigned dpk_pool_obj_iter(struct dpk_pool *p, dpk_pool_obj_fn fn, void *arg);

/**
 * Check the pool's bookkeeping: every pointer in the ring and the caches must be a
 * distinct object of the pool; in debug pools every such object must be marked free and
 * every other one marked in use. Objects found in neither are counted in
 * @p report->in_use and, when @p held_fn is not NULL, passed to it, which is how lost
 * objects are found once the application believes all are back: the audit cannot tell a
 * held object from a lost one. It sees misuse only through what is left of it: a double
 * or foreign put whose pointer is still free, the misuse counts since init, and in debug
 * pools the state words. A plain pool keeps no trace of a double put whose extra pointer
 * a get has handed out again, or of a use after put; see "Misuse" at the top.
 * The pool must be quiet (no other call on it) while this runs.
 * @param report filled in (may be NULL)
 * @retval 0        no defect found
 * @retval -EBADMSG a defect: a duplicate, a foreign pointer, a state word that disagrees,
 *                  a pointer dropped from a full ring, or (debug pools) a refused put or
 *                  a corrupt get since init
 * @retval -EINVAL  @p p is NULL
 * @retval -ENOMEM  no memory for the check
 */
int dpk_pool_audit(struct dpk_pool *p, struct dpk_pool_audit_report *report,
                   dpk_pool_obj_fn held_fn, void *arg);

/**
 * Print the pool's configuration and counts to @p f.
 * @retval 0       success
 * @retval -EINVAL an argument is NULL
 */
int dpk_pool_dump(FILE *f, const struct dpk_pool *p);

#include <dpk/impl/pool.h>

#ifdef __cplusplus
}
#endif

#endif /* DPK_POOL_H */
