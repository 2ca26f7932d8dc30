/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/ring.h - a bounded lock-free FIFO of fixed-size elements.
 *
 * A ring holds elements of esize bytes (a multiple of 4, at most DPK_RING_ESIZE_MAX) in
 * a power-of-two table of size slots, of which capacity = size - 1 are usable; with
 * DPK_RING_F_EXACT_SZ the table is rounded up and capacity is exactly what was asked.
 * Indices are free-running 32-bit counters masked by size - 1, so they wrap safely.
 *
 * Each side has a sync mode chosen at init: single (SP / SC) or multi (MP / MC). Calls
 * with the mode in their name use that mode whatever the ring's default; calls without
 * it use the ring's default. The single-side calls keep a private copy of the other
 * side's index and touch the shared cache line only when that copy says full or empty.
 *
 * Three kinds of call:
 *   bulk   all n elements or none; returns n or 0
 *   burst  as many as fit (or as are there), up to n; returns the count
 *   single one element; returns 0, -ENOBUFS (full) or -ENOENT (empty)
 * Bulk and burst calls with n = 0 return 0 and change nothing; a bulk call with n greater
 * than the capacity returns 0. Optional out-parameters report the free space left after
 * an enqueue or the elements left after a dequeue (NULL when not wanted).
 *
 * Concurrency (E = enqueue calls, D = dequeue calls, of the named mode):
 *
 *              | sp E | mp E | sc D | mc D | count etc. | reset, init
 *   sp E       |  no  |  no  | yes  | yes  |    yes     |  no
 *   mp E       |  no  | yes  | yes  | yes  |    yes     |  no
 *   sc D       | yes  | yes  |  no  |  no  |    yes     |  no
 *   mc D       | yes  | yes  |  no  | yes  |    yes     |  no
 *
 * "yes": may run at the same time on different threads. Counts read while other threads
 * move elements are a snapshot, exact only when the ring is quiet.
 *
 * MP/MC calls spin while an earlier caller of the same side finishes its copy; a caller
 * preempted there stalls its side (as in DPDK's MP/MC ring). Oversubscribed placements
 * therefore suit SP/SC rings better.
 */
#ifndef DPK_RING_H
#define DPK_RING_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <dpk/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default producer mode is single (SP). */
#define DPK_RING_F_SP_ENQ 0x1u
/** Default consumer mode is single (SC). */
#define DPK_RING_F_SC_DEQ 0x2u
/** Capacity is exactly the count asked for; the table is the next power of two above. */
#define DPK_RING_F_EXACT_SZ 0x4u

/** Largest element size in bytes. */
#define DPK_RING_ESIZE_MAX 512u
/** Largest table size (slots). */
#define DPK_RING_SIZE_MAX 0x80000000u

struct dpk_ring;

/**
 * Bytes needed for a ring of @p count elements of @p esize bytes with @p flags.
 * @retval >0      the size
 * @retval -EINVAL @p esize is 0, not a multiple of 4 or too large; @p count is 0, too large,
 *                 or (without DPK_RING_F_EXACT_SZ) 1 or not a power of two; unknown flags
 */
ssize_t dpk_ring_memsize(unsigned esize, unsigned count, unsigned flags);

/**
 * Initialise a ring in caller memory @p r of at least dpk_ring_memsize() bytes, aligned to
 * DPK_CACHE_LINE.
 * @retval 0       success
 * @retval -EINVAL bad arguments (as dpk_ring_memsize), @p r NULL or misaligned
 */
int dpk_ring_init(struct dpk_ring *r, unsigned esize, unsigned count, unsigned flags);

/** Allocate and initialise a ring; NULL with errno EINVAL or ENOMEM. */
struct dpk_ring *dpk_ring_create(unsigned esize, unsigned count, unsigned flags);

/** Free a ring from dpk_ring_create(); NULL is a no-op. */
void dpk_ring_free(struct dpk_ring *r);

/** Empty the ring. Not thread-safe: nothing else may use the ring meanwhile. */
void dpk_ring_reset(struct dpk_ring *r);

/** Print the ring's configuration and indices to @p f; 0 or -EINVAL if an argument is NULL. */
int dpk_ring_dump(FILE *f, const struct dpk_ring *r);

/* Queries, all inline. */
static inline unsigned dpk_ring_count(const struct dpk_ring *r);      /**< elements held */
static inline unsigned dpk_ring_free_count(const struct dpk_ring *r); /**< free slots */
static inline unsigned dpk_ring_capacity(const struct dpk_ring *r);   /**< usable slots */
static inline unsigned dpk_ring_size(const struct dpk_ring *r);       /**< table slots */
static inline unsigned dpk_ring_esize(const struct dpk_ring *r);      /**< element bytes */
static inline bool dpk_ring_empty(const struct dpk_ring *r);
static inline bool dpk_ring_full(const struct dpk_ring *r);
static inline bool dpk_ring_is_sp(const struct dpk_ring *r); /**< default producer is SP */
static inline bool dpk_ring_is_sc(const struct dpk_ring *r); /**< default consumer is SC */

/*
 * Enqueue @p n elements from @p objs (an array of n elements of esize bytes).
 * Bulk: returns n, or 0 when fewer than n slots are free (nothing enqueued).
 * Burst: returns the number enqueued, 0..n.
 * *free_space (if not NULL) is set to the free slots left after the call.
 */
static inline unsigned dpk_ring_sp_enqueue_bulk(struct dpk_ring *r, const void *objs, unsigned n,
                                                unsigned *free_space);
static inline unsigned dpk_ring_mp_enqueue_bulk(struct dpk_ring *r, const void *objs, unsigned n,
                                                unsigned *free_space);
static inline unsigned dpk_ring_enqueue_bulk(struct dpk_ring *r, const void *objs, unsigned n,
                                             unsigned *free_space);
static inline unsigned dpk_ring_sp_enqueue_burst(struct dpk_ring *r, const void *objs, unsigned n,
                                                 unsigned *free_space);
static inline unsigned dpk_ring_mp_enqueue_burst(struct dpk_ring *r, const void *objs, unsigned n,
                                                 unsigned *free_space);
static inline unsigned dpk_ring_enqueue_burst(struct dpk_ring *r, const void *objs, unsigned n,
                                              unsigned *free_space);

/*
 * Dequeue up to @p n elements into @p objs (room for n elements of esize bytes).
 * Bulk: returns n, or 0 when fewer than n are held (nothing dequeued).
 * Burst: returns the number dequeued, 0..n.
 * *available (if not NULL) is set to the elements left after the call.
 */
static inline unsigned dpk_ring_sc_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                unsigned *available);
static inline unsigned dpk_ring_mc_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                unsigned *available);
static inline unsigned dpk_ring_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                             unsigned *available);
static inline unsigned dpk_ring_sc_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                 unsigned *available);
static inline unsigned dpk_ring_mc_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                 unsigned *available);
static inline unsigned dpk_ring_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                              unsigned *available);

/*
 * One element. Enqueue: 0, or -ENOBUFS when full. Dequeue: 0, or -ENOENT when empty.
 */
static inline int dpk_ring_sp_enqueue(struct dpk_ring *r, const void *obj);
static inline int dpk_ring_mp_enqueue(struct dpk_ring *r, const void *obj);
static inline int dpk_ring_enqueue(struct dpk_ring *r, const void *obj);
static inline int dpk_ring_sc_dequeue(struct dpk_ring *r, void *obj);
static inline int dpk_ring_mc_dequeue(struct dpk_ring *r, void *obj);
static inline int dpk_ring_dequeue(struct dpk_ring *r, void *obj);

#include <dpk/impl/ring.h>

#ifdef __cplusplus
}
#endif

#endif /* DPK_RING_H */
