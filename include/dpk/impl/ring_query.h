/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/impl/ring_query.h - the ring's queries (counts, sizes, modes); included by
 * <dpk/impl/ring.h> only. A7 is in the legend at the top of that file.
 */
#ifndef DPK_RING_H
#error "include <dpk/ring.h>, not <dpk/impl/ring_query.h>"
#endif

static inline unsigned dpk_ring_count(const struct dpk_ring *r)
{
	/* A7: pairs with R2 in dequeue, and keeps the prod.tail load below after this one:
	 * prod.tail only grows and is never behind cons.tail, so the difference is not
	 * negative. It can exceed the capacity if both tails moved between the two loads,
	 * hence the clamp. */
	uint32_t ctail = DPK__RING_TAIL(&r->cons, memory_order_acquire);
	/* Relaxed: only the value is wanted, no slot is read. */
	uint32_t ptail = DPK__RING_TAIL(&r->prod, memory_order_relaxed);

	return dpk__ring_clamp((int32_t)(ptail - ctail), r->capacity);
}

static inline unsigned dpk_ring_free_count(const struct dpk_ring *r)
{
	return r->capacity - dpk_ring_count(r);
}

static inline unsigned dpk_ring_capacity(const struct dpk_ring *r)
{
	return r->capacity;
}

static inline unsigned dpk_ring_size(const struct dpk_ring *r)
{
	return r->size;
}

static inline unsigned dpk_ring_esize(const struct dpk_ring *r)
{
	return r->esize;
}

static inline bool dpk_ring_empty(const struct dpk_ring *r)
{
	return dpk_ring_count(r) == 0;
}

static inline bool dpk_ring_full(const struct dpk_ring *r)
{
	return dpk_ring_count(r) == r->capacity;
}

static inline bool dpk_ring_is_sp(const struct dpk_ring *r)
{
	return (r->flags & DPK_RING_F_SP_ENQ) != 0;
}

static inline bool dpk_ring_is_sc(const struct dpk_ring *r)
{
	return (r->flags & DPK_RING_F_SC_DEQ) != 0;
}

static inline enum dpk_ring_sync dpk_ring_prod_sync(const struct dpk_ring *r)
{
	if (r->flags & DPK_RING_F_SP_ENQ)
		return DPK_RING_SYNC_ST;
	if (r->flags & DPK_RING_F_MP_RTS_ENQ)
		return DPK_RING_SYNC_MT_RTS;
	return (r->flags & DPK_RING_F_MP_HTS_ENQ) ? DPK_RING_SYNC_MT_HTS : DPK_RING_SYNC_MT;
}

static inline enum dpk_ring_sync dpk_ring_cons_sync(const struct dpk_ring *r)
{
	if (r->flags & DPK_RING_F_SC_DEQ)
		return DPK_RING_SYNC_ST;
	if (r->flags & DPK_RING_F_MC_RTS_DEQ)
		return DPK_RING_SYNC_MT_RTS;
	return (r->flags & DPK_RING_F_MC_HTS_DEQ) ? DPK_RING_SYNC_MT_HTS : DPK_RING_SYNC_MT;
}

static inline unsigned dpk_ring_prod_htd_max(const struct dpk_ring *r)
{
	return atomic_load_explicit(&r->prod.htd_max, memory_order_relaxed);
}

static inline unsigned dpk_ring_cons_htd_max(const struct dpk_ring *r)
{
	return atomic_load_explicit(&r->cons.htd_max, memory_order_relaxed);
}
