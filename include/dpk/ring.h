/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/ring.h - a bounded lock-free FIFO of fixed-size elements.
 *
 * A ring holds elements of esize bytes (a multiple of 4, at most DPK_RING_ESIZE_MAX) in
 * a power-of-two table of size slots, of which capacity = size - 1 are usable; with
 * DPK_RING_F_EXACT_SZ the table is rounded up and capacity is exactly what was asked.
 * Indices are free-running 32-bit counters masked by size - 1, so they wrap safely.
 *
 * Each side has a sync mode chosen at init (DPK_RING_F_* flags; none means MP and MC):
 *   ST      single thread (sp / sc): no atomic read-modify-write at all
 *   MT      multi thread (mp / mc): reserve by CAS, then wait for earlier callers of the
 *           side to publish; a caller preempted between the two stalls the side
 *   MT_RTS  relaxed tail sync (mp_rts / mc_rts): the last caller to finish publishes for
 *           all, so no one waits for a preempted caller; the head runs at most htd_max
 *           past the tail (default capacity / 8)
 *   MT_HTS  head/tail sync (mp_hts / mc_hts): one caller of the side at a time, which
 *           makes peek and zero-copy calls safe from several threads
 * Calls with the mode in their name use that mode (the sp/mp and sc/mc calls are
 * interchangeable on ST and MT sides, whatever the default; the rts and hts calls belong
 * to sides created in that mode, and such a side takes no sp/mp/sc/mc call). Calls without
 * a mode use the ring's default. The single-thread calls keep a private copy of the other
 * side's index and touch the shared cache line only when that copy says full or empty.
 *
 * Kinds of call:
 *   bulk   all n elements or none; returns n or 0
 *   burst  as many as fit (or as are there), up to n; returns the count
 *   single one element; returns 0, -ENOBUFS (full) or -ENOENT (empty)
 *   peek   a start (bulk or burst) that reserves, and a finish that commits all, some or
 *          none of what was reserved; dequeue starts copy the elements out meanwhile
 *   zc     the same, but the caller reads or writes the ring's own slots, given as one or
 *          two spans (struct dpk_ring_zc_data), so no element is copied twice
 * Bulk and burst calls with n = 0 return 0 and change nothing; a bulk call with n greater
 * than the capacity returns 0. Optional out-parameters report the free space left after
 * an enqueue or the elements left after a dequeue (NULL when not wanted).
 *
 * Peek and zc calls exist only on the default mode of a side, and only on ST and MT_HTS
 * sides: on an MT or MT_RTS side a start returns 0 with errno EINVAL and a finish returns
 * -EINVAL, changing nothing. (Splitting an MT or RTS call would leave other callers'
 * reservations between its reservation and its commit.) Between a start and its finish the
 * thread that started holds the side: its finish must come before its next call on that
 * side, and on an ST side before anyone's.
 *
 * Concurrency. "E" are enqueue calls and "D" dequeue calls of the named mode; "pk" are
 * peek and zc calls, a start and its finish counting as one call that lasts from the one
 * to the other; "info" are count, free_count, empty, full and the other queries, dump and
 * the htd_max setters; "reset" is reset and init.
 *
 *              | sp E | mp E | rts E | hts E | pk E | any D | info | reset
 *   sp E       |  no  |  no  |   -   |   -   |  no  |  yes  | yes  |  no
 *   mp E       |  no  | yes  |   -   |   -   |  -   |  yes  | yes  |  no
 *   rts E      |  -   |  -   |  yes  |   -   |  -   |  yes  | yes  |  no
 *   hts E      |  -   |  -   |   -   |  yes  | yes  |  yes  | yes  |  no
 *   pk E (ST)  |  no  |  -   |   -   |   -   |  no  |  yes  | yes  |  no
 *   pk E (HTS) |  -   |  -   |   -   |  yes  | yes  |  yes  | yes  |  no
 *   info       | yes  | yes  |  yes  |  yes  | yes  |  yes  | yes  |  no
 *   reset      |  no  |  no  |  no   |  no   |  no  |  no   |  no  |  no
 *
 * The dequeue side is the mirror: read sc/mc/rts/hts D for sp/mp/rts/hts E, and "any E"
 * for "any D". "yes": may run at the same time on different threads. "no": may not; calls
 * of such a pair on one side may follow one another (ST and MT calls in either order).
 * "-": never on one side, whose mode admits only one of the two. Counts read while other
 * threads move elements are a snapshot, exact only when the ring is quiet.
 *
 * Guide to the modes, and peek and zc usage: docs/ring.md.
 */
#ifndef DPK_RING_H
#define DPK_RING_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <dpk/common.h>
#include <dpk/impl/compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default producer mode is single (SP). */
#define DPK_RING_F_SP_ENQ 0x1u
/** Default consumer mode is single (SC). */
#define DPK_RING_F_SC_DEQ 0x2u
/** Capacity is exactly the count asked for; the table is the next power of two above. */
#define DPK_RING_F_EXACT_SZ 0x4u
/** Default producer mode is MP with relaxed tail sync (RTS); excludes SP_ENQ, MP_HTS_ENQ. */
#define DPK_RING_F_MP_RTS_ENQ 0x8u
/** Default consumer mode is MC with relaxed tail sync (RTS); excludes SC_DEQ, MC_HTS_DEQ. */
#define DPK_RING_F_MC_RTS_DEQ 0x10u
/** Default producer mode is MP with head/tail sync (HTS); excludes SP_ENQ, MP_RTS_ENQ. */
#define DPK_RING_F_MP_HTS_ENQ 0x20u
/** Default consumer mode is MC with head/tail sync (HTS); excludes SC_DEQ, MC_RTS_DEQ. */
#define DPK_RING_F_MC_HTS_DEQ 0x40u

/** A side's sync mode (see the top of this file). */
enum dpk_ring_sync {
	DPK_RING_SYNC_ST,     /**< single thread: sp / sc */
	DPK_RING_SYNC_MT,     /**< multi thread: mp / mc */
	DPK_RING_SYNC_MT_RTS, /**< multi thread, relaxed tail sync: mp_rts / mc_rts */
	DPK_RING_SYNC_MT_HTS, /**< multi thread, head/tail sync: mp_hts / mc_hts */
};

/**
 * The slots a zero-copy start reserved: n1 slots from ptr1 on and, when the reservation
 * runs past the end of the table, n2 more from ptr2 (the table's first slot). Slots are
 * esize bytes apart. A start that reserved nothing sets every field to 0 or NULL.
 */
struct dpk_ring_zc_data {
	void *ptr1;  /**< the first slot reserved, or NULL */
	unsigned n1; /**< slots from ptr1 on */
	void *ptr2;  /**< the first slot of the table when the reservation wraps, else NULL */
	unsigned n2; /**< slots from ptr2 on */
};

/** Largest element size in bytes. */
#define DPK_RING_ESIZE_MAX 512u
/** Largest table size (slots). */
#define DPK_RING_SIZE_MAX 0x80000000u

struct dpk_ring;

/**
 * Bytes needed for a ring of @p count elements of @p esize bytes with @p flags.
 * @retval >0      the size
 * @retval -EINVAL @p esize is 0, not a multiple of 4 or too large; @p count is 0, too large,
 *                 or (without DPK_RING_F_EXACT_SZ) 1 or not a power of two; unknown flags,
 *                 or two modes for one side
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

/** Free a ring from dpk_ring_create(); NULL is a no-op, and so is a ring built by
 *  dpk_ring_init() (its memory is the caller's; dpk_last_error() says so). */
void dpk_ring_free(struct dpk_ring *r);

/** Empty the ring. Not thread-safe: nothing else may use the ring meanwhile. */
void dpk_ring_reset(struct dpk_ring *r);

/**
 * Print the ring's configuration, each side's mode (and htd_max for RTS) and indices to
 * @p f. The indices are a snapshot when other threads use the ring.
 * @retval 0       success
 * @retval -EINVAL @p f or @p r is NULL
 */
int dpk_ring_dump(FILE *f, const struct dpk_ring *r);

/**
 * Set how far the producers' head may run past their tail before a new RTS reservation
 * waits (the larger, the longer a preempted producer can hold back the tail; 0 makes the
 * producers take turns). May be called while the ring is in use.
 * @retval 0       success
 * @retval -EINVAL @p r is NULL, its producer side is not MT_RTS, or @p max is above the
 *                 capacity
 */
int dpk_ring_set_prod_htd_max(struct dpk_ring *r, unsigned max);

/**
 * Set the consumers' head-tail distance, as dpk_ring_set_prod_htd_max() does for producers.
 * @retval 0       success
 * @retval -EINVAL @p r is NULL, its consumer side is not MT_RTS, or @p max is above the
 *                 capacity
 */
int dpk_ring_set_cons_htd_max(struct dpk_ring *r, unsigned max);

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
static inline enum dpk_ring_sync dpk_ring_prod_sync(const struct dpk_ring *r); /**< producer mode */
static inline enum dpk_ring_sync dpk_ring_cons_sync(const struct dpk_ring *r); /**< consumer mode */
/** The RTS head-tail distance of each side (0 on a side that is not MT_RTS). */
static inline unsigned dpk_ring_prod_htd_max(const struct dpk_ring *r);
static inline unsigned dpk_ring_cons_htd_max(const struct dpk_ring *r);

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

/*
 * RTS and HTS: the same contracts as the mp and mc calls above, for a side created with
 * DPK_RING_F_MP_RTS_ENQ, DPK_RING_F_MC_RTS_DEQ, DPK_RING_F_MP_HTS_ENQ or
 * DPK_RING_F_MC_HTS_DEQ. On a side of another mode they are misuse (not checked, as the
 * mode-named calls test no flag): the side's indices are not where they look.
 */
static inline unsigned dpk_ring_mp_rts_enqueue_bulk(struct dpk_ring *r, const void *objs,
                                                    unsigned n, unsigned *free_space);
static inline unsigned dpk_ring_mp_rts_enqueue_burst(struct dpk_ring *r, const void *objs,
                                                     unsigned n, unsigned *free_space);
static inline int dpk_ring_mp_rts_enqueue(struct dpk_ring *r, const void *obj);
static inline unsigned dpk_ring_mc_rts_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                    unsigned *available);
static inline unsigned dpk_ring_mc_rts_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                     unsigned *available);
static inline int dpk_ring_mc_rts_dequeue(struct dpk_ring *r, void *obj);
static inline unsigned dpk_ring_mp_hts_enqueue_bulk(struct dpk_ring *r, const void *objs,
                                                    unsigned n, unsigned *free_space);
static inline unsigned dpk_ring_mp_hts_enqueue_burst(struct dpk_ring *r, const void *objs,
                                                     unsigned n, unsigned *free_space);
static inline int dpk_ring_mp_hts_enqueue(struct dpk_ring *r, const void *obj);
static inline unsigned dpk_ring_mc_hts_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                    unsigned *available);
static inline unsigned dpk_ring_mc_hts_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                     unsigned *available);
static inline int dpk_ring_mc_hts_dequeue(struct dpk_ring *r, void *obj);

/*
 * Peek and zero copy, in the ring's default mode, on ST and MT_HTS sides only. The names
 * are those of the one-step calls with the step added (_start, _finish) and, for zero
 * copy, _zc before the kind; the finish has no kind, as it commits a count the start
 * already settled. The modes have no names of their own here: a peek is an ST or an HTS
 * peek by what the side is, and is refused on the other sides.
 */

/**
 * Reserve @p n free slots (bulk: n or none; burst: up to n) for a later
 * dpk_ring_enqueue_finish(). *free_space (if not NULL) gets the free slots left beyond the
 * reservation.
 * @return the count reserved; 0 when nothing was (then no finish is needed)
 * @retval 0 with errno EINVAL: the producer side is MT or MT_RTS (nothing changed,
 *         *free_space not written)
 */
static inline unsigned dpk_ring_enqueue_bulk_start(struct dpk_ring *r, unsigned n,
                                                   unsigned *free_space);
/** As dpk_ring_enqueue_bulk_start(), reserving as many as fit up to @p n. */
static inline unsigned dpk_ring_enqueue_burst_start(struct dpk_ring *r, unsigned n,
                                                    unsigned *free_space);
/**
 * Copy @p n elements from @p objs into the first n slots reserved and publish them; the
 * rest of the reservation is given back.
 * @retval 0       success
 * @retval -EINVAL the producer side is MT or MT_RTS, @p n is above the count reserved, or
 *                 @p objs is NULL with @p n above 0 (nothing changed)
 */
static inline int dpk_ring_enqueue_finish(struct dpk_ring *r, const void *objs, unsigned n);

/**
 * Copy up to @p n elements (bulk: n or none) into @p objs without taking them; a later
 * dpk_ring_dequeue_finish() takes some or all of them. *available (if not NULL) gets the
 * elements held beyond those copied.
 * @return the count copied; 0 when none was (then no finish is needed)
 * @retval 0 with errno EINVAL: the consumer side is MC or MC_RTS (nothing changed)
 */
static inline unsigned dpk_ring_dequeue_bulk_start(struct dpk_ring *r, void *objs, unsigned n,
                                                   unsigned *available);
/** As dpk_ring_dequeue_bulk_start(), copying as many as there are up to @p n. */
static inline unsigned dpk_ring_dequeue_burst_start(struct dpk_ring *r, void *objs, unsigned n,
                                                    unsigned *available);
/**
 * Take the first @p n elements the start copied (0: take none, all stay in the ring).
 * @retval 0       success
 * @retval -EINVAL the consumer side is MC or MC_RTS, or @p n is above the count the start
 *                 returned (nothing changed)
 */
static inline int dpk_ring_dequeue_finish(struct dpk_ring *r, unsigned n);

/**
 * Reserve @p n free slots (bulk: n or none) and give them in @p zcd for the caller to
 * write; dpk_ring_enqueue_zc_finish() publishes them. *free_space as for the peek start.
 * @return the count reserved (0: nothing, and @p zcd all 0)
 * @retval 0 with errno EINVAL: the producer side is MT or MT_RTS (nothing changed)
 */
static inline unsigned dpk_ring_enqueue_zc_bulk_start(struct dpk_ring *r, unsigned n,
                                                      struct dpk_ring_zc_data *zcd,
                                                      unsigned *free_space);
/** As dpk_ring_enqueue_zc_bulk_start(), reserving as many as fit up to @p n. */
static inline unsigned dpk_ring_enqueue_zc_burst_start(struct dpk_ring *r, unsigned n,
                                                       struct dpk_ring_zc_data *zcd,
                                                       unsigned *free_space);
/**
 * Publish the first @p n slots the zc start gave (written by the caller); the rest of the
 * reservation is given back.
 * @retval 0       success
 * @retval -EINVAL the producer side is MT or MT_RTS, or @p n is above the count reserved
 */
static inline int dpk_ring_enqueue_zc_finish(struct dpk_ring *r, unsigned n);

/**
 * Give up to @p n held elements (bulk: n or none) in @p zcd for the caller to read in
 * place; dpk_ring_dequeue_zc_finish() takes some or all of them. *available as for the
 * peek start.
 * @return the count given (0: none, and @p zcd all 0)
 * @retval 0 with errno EINVAL: the consumer side is MC or MC_RTS (nothing changed)
 */
static inline unsigned dpk_ring_dequeue_zc_bulk_start(struct dpk_ring *r, unsigned n,
                                                      struct dpk_ring_zc_data *zcd,
                                                      unsigned *available);
/** As dpk_ring_dequeue_zc_bulk_start(), giving as many as there are up to @p n. */
static inline unsigned dpk_ring_dequeue_zc_burst_start(struct dpk_ring *r, unsigned n,
                                                       struct dpk_ring_zc_data *zcd,
                                                       unsigned *available);
/**
 * Take the first @p n elements the zc start gave; their slots may be reused at once.
 * @retval 0       success
 * @retval -EINVAL the consumer side is MC or MC_RTS, or @p n is above the count given
 */
static inline int dpk_ring_dequeue_zc_finish(struct dpk_ring *r, unsigned n);

#include <dpk/impl/ring.h>

#ifdef __cplusplus
}
#endif

#endif /* DPK_RING_H */
