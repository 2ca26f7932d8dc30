/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/impl/ring_peek.h - peek and zero-copy calls; included by <dpk/impl/ring.h> only.
 *
 * A start reserves indices of one side and a finish commits some of them. On an ST side
 * the start moves the private head and the finish publishes the tail, so head - tail is
 * the reservation outstanding; on an HTS side the start is an HTS reservation (the head
 * half of the tail word moves) and the finish the HTS store. Either way the finish can
 * tell how much was reserved and refuses a count above it.
 *
 * Memory-order labels (legend at the top of <dpk/impl/ring.h>): A1/A2 load the other
 * side's tail in an ST start when the side's cached copy of it falls short (or for an
 * exact report), as in the sp/sc calls, and in every HTS start; R1/R2 publish in the
 * finish; AR10 as in HTS. The loads of a
 * side's own head and tail in its finish are relaxed: the finishing thread is the one that
 * wrote them (ST), or holds the side so that no one else writes them (HTS).
 */
#ifndef DPK_RING_H
#error "include <dpk/ring.h>, not <dpk/impl/ring_peek.h>"
#endif

/* How a side takes a peek: as a single thread, under HTS, or not at all. */
enum dpk__ring_peek { DPK__RING_PEEK_NONE, DPK__RING_PEEK_ST, DPK__RING_PEEK_HTS };

DPK__RING_INLINE enum dpk__ring_peek dpk__ring_peek_kind(const struct dpk_ring *r, bool prod)
{
	if (r->flags & (prod ? DPK_RING_F_SP_ENQ : DPK_RING_F_SC_DEQ))
		return DPK__RING_PEEK_ST;
	if (r->flags & (prod ? DPK_RING_F_MP_HTS_ENQ : DPK_RING_F_MC_HTS_DEQ))
		return DPK__RING_PEEK_HTS;
	return DPK__RING_PEEK_NONE;
}

/*
 * ST reservation for a peek or zero copy: from the head (equal to the tail when nothing is
 * reserved), against the side's cached copy of the other side's tail while that shows
 * room for @p n, and a freshly loaded tail only when it does not, as the sp/sc calls do
 * (see dpk__ring_sp_enqueue_n(), also for why a stale copy is harmless): the copy and its
 * signed test are theirs, so the two kinds of call can take turns on a side. With
 * @p exact (the caller wants a report) the tail is loaded in any case, so that *room is
 * exact; without it *room is only what the copy showed.
 */
DPK__RING_INLINE unsigned dpk__ring_st_reserve(struct dpk_ring *r, bool prod, unsigned n, bool bulk,
                                               bool exact, uint32_t *head, uint32_t *room)
{
	struct dpk__ring_side *own = prod ? &r->prod : &r->cons;
	const struct dpk__ring_side *other = prod ? &r->cons : &r->prod;
	const uint32_t off = prod ? r->capacity : 0;
	const uint32_t h = atomic_load_explicit(&own->head, memory_order_relaxed);
	uint32_t t = atomic_load_explicit(&own->cached, memory_order_relaxed);
	const bool short_copy = (int64_t)(int32_t)(t + off - h) < (int64_t)n;
	unsigned m = n;

	/* Laid out as in sp enqueue and sc dequeue: a producer that keeps ahead finds its copy
	 * enough, a consumer that keeps up finds its copy used up on most calls. */
	if (exact || (prod ? __builtin_expect(short_copy, 0) : __builtin_expect(short_copy, 1))) {
		/* A1/A2: pairs with R1/R2 of the other side; the slots up to its tail are
		 * written (consumer) or done with (producer). */
		t = DPK__RING_TAIL(other, memory_order_acquire);
		m = dpk__ring_fit(n, t + off - h, bulk);
		atomic_store_explicit(&own->cached, t, memory_order_relaxed);
	}
	*room = t + off - h;
	atomic_store_explicit(&own->head, h + m, memory_order_relaxed);
	*head = h;
	return m;
}

/*
 * Start on the producer (@p prod) or consumer side: reserve up to @p n, report the room
 * left in *@p report. Returns the count with the first index in *head; 0 with errno EINVAL
 * on a side that takes no peek.
 */
DPK__RING_INLINE unsigned dpk__ring_peek_start(struct dpk_ring *r, bool prod, unsigned n, bool bulk,
                                               uint32_t *head, unsigned *report)
{
	struct dpk__ring_side *own = prod ? &r->prod : &r->cons;
	const struct dpk__ring_side *other = prod ? &r->cons : &r->prod;
	const uint32_t off = prod ? r->capacity : 0;
	uint32_t room;
	unsigned m;

	switch (dpk__ring_peek_kind(r, prod)) {
	case DPK__RING_PEEK_ST:
		m = dpk__ring_st_reserve(r, prod, n, bulk, report != NULL, head, &room);
		break;
	case DPK__RING_PEEK_HTS:
		m = dpk__ring_hts_reserve(own, other, off, n, bulk, head, &room);
		break;
	default:
		errno = EINVAL;
		return 0;
	}
	dpk__ring_report(report, room, m, r->capacity);
	return m;
}

/*
 * Finish on one side: commit @p n of the indices reserved, copying @p objs in first when
 * not NULL (an enqueue peek). 0, or -EINVAL (nothing changed) on a side that takes no
 * peek or for more than was reserved.
 */
DPK__RING_INLINE int dpk__ring_peek_finish(struct dpk_ring *r, bool prod, const void *objs,
                                           unsigned n)
{
	struct dpk__ring_side *own = prod ? &r->prod : &r->cons;
	const enum dpk__ring_peek kind = dpk__ring_peek_kind(r, prod);
	const uint64_t w = atomic_load_explicit(&own->tail, memory_order_relaxed);
	const uint32_t tail = DPK__RING_LO(w);
	uint32_t reserved;

	if (kind == DPK__RING_PEEK_NONE)
		return -EINVAL;
	reserved = kind == DPK__RING_PEEK_HTS
	                   ? DPK__RING_HI(w) - tail
	                   : atomic_load_explicit(&own->head, memory_order_relaxed) - tail;
	if (n > reserved)
		return -EINVAL;
	if (objs)
		dpk__ring_copy_in(r, tail, objs, n);
	if (kind == DPK__RING_PEEK_HTS) {
		dpk__ring_hts_finish(own, tail + n);
		return 0;
	}
	atomic_store_explicit(&own->head, tail + n, memory_order_relaxed);
	/* R1/R2: pairs with A1/A2 of the other side; the slots are written (or read). */
	atomic_store_explicit(&own->tail, (uint64_t)(tail + n), memory_order_release);
	return 0;
}

/* The spans of the @p m slots from index @p head on, in @p zcd (all 0 when m is 0). */
DPK__RING_INLINE void dpk__ring_zc_spans(struct dpk_ring *r, uint32_t head, unsigned m,
                                         struct dpk_ring_zc_data *zcd)
{
	const uint32_t idx = head & r->mask, first = r->size - idx;
	unsigned char *table = dpk__ring_table(r);

	zcd->ptr1 = m ? table + (size_t)idx * r->esize : NULL;
	zcd->n1 = m <= first ? m : first;
	zcd->ptr2 = m > first ? table : NULL;
	zcd->n2 = m - zcd->n1;
}

/* Peek. */

DPK__RING_INLINE unsigned dpk_ring_enqueue_bulk_start(struct dpk_ring *r, unsigned n,
                                                      unsigned *free_space)
{
	uint32_t head;

	return dpk__ring_peek_start(r, true, n, true, &head, free_space);
}

DPK__RING_INLINE unsigned dpk_ring_enqueue_burst_start(struct dpk_ring *r, unsigned n,
                                                       unsigned *free_space)
{
	uint32_t head;

	return dpk__ring_peek_start(r, true, n, false, &head, free_space);
}

DPK__RING_INLINE int dpk_ring_enqueue_finish(struct dpk_ring *r, const void *objs, unsigned n)
{
	if (n && !objs)
		return -EINVAL;
	return dpk__ring_peek_finish(r, true, objs, n);
}

/* Dequeue start: reserve, then copy out what was reserved (the slots stay in the ring). */
DPK__RING_INLINE unsigned dpk__ring_dequeue_start(struct dpk_ring *r, void *objs, unsigned n,
                                                  unsigned *available, bool bulk)
{
	uint32_t head = 0;
	unsigned m = dpk__ring_peek_start(r, false, n, bulk, &head, available);

	if (m)
		dpk__ring_copy_out(r, head, objs, m);
	return m;
}

DPK__RING_INLINE unsigned dpk_ring_dequeue_bulk_start(struct dpk_ring *r, void *objs, unsigned n,
                                                      unsigned *available)
{
	return dpk__ring_dequeue_start(r, objs, n, available, true);
}

DPK__RING_INLINE unsigned dpk_ring_dequeue_burst_start(struct dpk_ring *r, void *objs, unsigned n,
                                                       unsigned *available)
{
	return dpk__ring_dequeue_start(r, objs, n, available, false);
}

DPK__RING_INLINE int dpk_ring_dequeue_finish(struct dpk_ring *r, unsigned n)
{
	return dpk__ring_peek_finish(r, false, NULL, n);
}

/* Zero copy. */

DPK__RING_INLINE unsigned dpk__ring_zc_start(struct dpk_ring *r, bool prod, unsigned n,
                                             struct dpk_ring_zc_data *zcd, unsigned *report,
                                             bool bulk)
{
	uint32_t head = 0;
	unsigned m = dpk__ring_peek_start(r, prod, n, bulk, &head, report);

	dpk__ring_zc_spans(r, head, m, zcd);
	return m;
}

DPK__RING_INLINE unsigned dpk_ring_enqueue_zc_bulk_start(struct dpk_ring *r, unsigned n,
                                                         struct dpk_ring_zc_data *zcd,
                                                         unsigned *free_space)
{
	return dpk__ring_zc_start(r, true, n, zcd, free_space, true);
}

DPK__RING_INLINE unsigned dpk_ring_enqueue_zc_burst_start(struct dpk_ring *r, unsigned n,
                                                          struct dpk_ring_zc_data *zcd,
                                                          unsigned *free_space)
{
	return dpk__ring_zc_start(r, true, n, zcd, free_space, false);
}

DPK__RING_INLINE int dpk_ring_enqueue_zc_finish(struct dpk_ring *r, unsigned n)
{
	return dpk__ring_peek_finish(r, true, NULL, n);
}

DPK__RING_INLINE unsigned dpk_ring_dequeue_zc_bulk_start(struct dpk_ring *r, unsigned n,
                                                         struct dpk_ring_zc_data *zcd,
                                                         unsigned *available)
{
	return dpk__ring_zc_start(r, false, n, zcd, available, true);
}

DPK__RING_INLINE unsigned dpk_ring_dequeue_zc_burst_start(struct dpk_ring *r, unsigned n,
                                                          struct dpk_ring_zc_data *zcd,
                                                          unsigned *available)
{
	return dpk__ring_zc_start(r, false, n, zcd, available, false);
}

DPK__RING_INLINE int dpk_ring_dequeue_zc_finish(struct dpk_ring *r, unsigned n)
{
	return dpk__ring_peek_finish(r, false, NULL, n);
}
