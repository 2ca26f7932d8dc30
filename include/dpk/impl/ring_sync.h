/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/impl/ring_sync.h - the RTS and HTS sync modes; included by <dpk/impl/ring.h> only.
 *
 * Both modes keep a side's indices in 64-bit words (see struct dpk__ring_side) so that
 * two numbers change in one CAS, and both are written once for either side: @p own is the
 * side that moves, @p other the side whose tail bounds it, and @p off is added to the
 * other side's tail to find the end of what @p own may reserve (the capacity for
 * producers, 0 for consumers).
 *
 * RTS, relaxed tail sync. The head word holds {head index, reservations begun}, the tail
 * word {tail index, reservations finished}. A reservation moves the head by CAS as MP/MC
 * does; a finisher counts itself into the tail word by CAS and, when it finds every
 * reservation the head word counts finished, moves the tail index to the head index. No
 * thread waits for an earlier one to finish, so a thread preempted between its
 * reservation and its finish delays the tail only until the last one in flight finishes;
 * to keep that delay bounded a reservation first waits while the head is more than
 * htd_max past the tail.
 *
 * HTS, head/tail sync. The tail word holds {tail index, head index}. A thread waits until
 * the two are equal (no one else is between reservation and finish), reserves by moving
 * the head half by CAS, copies, and finishes by storing {head, head}. The side is thus
 * fully serialised, which is what makes a peek safe on it: between its start and its
 * finish the reserving thread alone may touch the reserved slots or move the side.
 *
 * Memory-order labels (the legend of all of them is at the top of <dpk/impl/ring.h>):
 *   A1/A2  the other side's tail, loaded with acquire by every reservation here.
 *   R1/R2  the finish that moves the tail index: the RTS tail CAS, the HTS store.
 *   AR8    RTS head word: acquiring load and acq_rel CAS, among reservers of one side.
 *   AR9    RTS tail word: acquiring load and acq_rel CAS, among finishers of one side.
 *   AR10   HTS tail word: acquiring load and CAS by a reserver; pairs with the R1/R2
 *          store of the finisher before it.
 */
#ifndef DPK_RING_H
#error "include <dpk/ring.h>, not <dpk/impl/ring_sync.h>"
#endif

/* A request for @p n with @p room free: n, or for a bulk call 0, or for a burst room. */
DPK__RING_INLINE unsigned dpk__ring_fit(unsigned n, uint32_t room, bool bulk)
{
	if (__builtin_expect(n <= room, 1))
		return n;
	return bulk ? 0 : room;
}

/*
 * RTS reservation of up to @p n indices of @p own. Returns the count (0: nothing reserved)
 * with the first index in *head; *room is the room seen, for the caller's report.
 */
DPK__RING_INLINE unsigned dpk__ring_rts_reserve(struct dpk__ring_side *own,
                                                const struct dpk__ring_side *other, uint32_t off,
                                                unsigned n, bool bulk, uint32_t *head,
                                                uint32_t *room)
{
	/* Relaxed: any value is safe, it only bounds how far the head runs ahead. */
	const uint32_t max = atomic_load_explicit(&own->htd_max, memory_order_relaxed);
	uint64_t oh, nh;
	unsigned m;

	/* AR8: pairs with the CAS below in earlier reservers of this side; as AR5, a reserver
	 * that sees a head another one wrote also sees the other side's tail that one saw. */
	oh = atomic_load_explicit(&own->rts_head, memory_order_acquire);
	do {
		/* Relaxed: the tail index is only compared here, no slot is touched. A head
		 * loaded before the tail moved past it gives a huge distance: reload. */
		while (__builtin_expect(
		        DPK__RING_LO(oh) - DPK__RING_TAIL(own, memory_order_relaxed) > max, 0)) {
			dpk_pause();
			/* AR8 as above. */
			oh = atomic_load_explicit(&own->rts_head, memory_order_acquire);
		}
		/* A1/A2: pairs with R1/R2 of the other side; its slots are done with. AR8 keeps
		 * the head within reach of this tail, so the room does not wrap. */
		*room = DPK__RING_TAIL(other, memory_order_acquire) + off - DPK__RING_LO(oh);
		m = dpk__ring_fit(n, *room, bulk);
		if (m == 0)
			return 0;
		nh = DPK__RING_WORD(DPK__RING_LO(oh) + m, DPK__RING_HI(oh) + 1);
		/* AR8: release pairs with the acquiring loads in later reservers; acquire on
		 * failure pairs with the CAS that moved the head. */
	} while (!atomic_compare_exchange_weak_explicit(
	        &own->rts_head, &oh, nh, memory_order_acq_rel, memory_order_acquire));
	/* The CAS's result, unlike MP/MC and HTS: slots addressed before the CAS completes
	 * made the contended rts_pair_shared case slower (docs/ring.md, "2026-12-04: slots that
	 * wait for the CAS"). */
	*head = DPK__RING_LO(oh);
	return m;
}

/*
 * RTS finish: count one more reservation finished; the one that finds every reservation
 * of the head word finished moves the tail index to the head index.
 *
 * The head word loaded after an acquiring load of the tail word counts at least every
 * reservation whose finish that tail word counts (each finisher moved the head before its
 * release), so equal counts mean that every index before the head is finished.
 */
DPK__RING_INLINE void dpk__ring_rts_finish(struct dpk__ring_side *own)
{
	uint64_t ot, nt, h;
	uint32_t done;

	/* AR9: pairs with the CAS below in other finishers of this side. */
	ot = atomic_load_explicit(&own->tail, memory_order_acquire);
	do {
		/* Relaxed: AR9 already orders it after the reservations counted in ot. */
		h = atomic_load_explicit(&own->rts_head, memory_order_relaxed);
		done = DPK__RING_HI(ot) + 1;
		nt = DPK__RING_WORD(done == DPK__RING_HI(h) ? DPK__RING_LO(h) : DPK__RING_LO(ot),
		                    done);
		/* R1/R2: release pairs with A1/A2 of the other side, here and through every
		 * later CAS of this word (a release sequence): the slots of each finisher
		 * counted are written (or read). AR9: acquire, on success and failure, pairs
		 * with the CAS of the finisher before. */
	} while (!atomic_compare_exchange_weak_explicit(&own->tail, &ot, nt, memory_order_acq_rel,
	                                                memory_order_acquire));
}

/*
 * HTS reservation: wait until no one holds the side (head == tail), then move the head
 * half by CAS. Returns the count with the first index in *head; *room as for RTS.
 */
DPK__RING_INLINE unsigned dpk__ring_hts_reserve(struct dpk__ring_side *own,
                                                const struct dpk__ring_side *other, uint32_t off,
                                                unsigned n, bool bulk, uint32_t *head,
                                                uint32_t *room)
{
	uint64_t w, nw;
	uint32_t first;
	unsigned m;

	/* AR10: pairs with the R1/R2 store of the finisher before. */
	w = atomic_load_explicit(&own->tail, memory_order_acquire);
	do {
		while (__builtin_expect(DPK__RING_HI(w) != DPK__RING_LO(w), 0)) {
			dpk_pause();
			/* AR10 as above. */
			w = atomic_load_explicit(&own->tail, memory_order_acquire);
		}
		/* A1/A2 as in RTS; AR10 keeps the room from wrapping, as AR8 does. */
		*room = DPK__RING_TAIL(other, memory_order_acquire) + off - DPK__RING_LO(w);
		m = dpk__ring_fit(n, *room, bulk);
		if (m == 0)
			return 0;
		first = DPK__RING_LO(w);
		nw = DPK__RING_WORD(first, first + m);
		/* AR10: acquire (success and failure) as for the load. The CAS needs no release:
		 * it leaves the tail half alone, and the other side, acquiring the word it
		 * wrote, still synchronises with the finish store it continues. */
	} while (!atomic_compare_exchange_weak_explicit(&own->tail, &w, nw, memory_order_acquire,
	                                                memory_order_acquire));
	/* The head the CAS was given, not its result (see dpk__ring_mp_enqueue()). */
	*head = first;
	return m;
}

/* HTS finish: head and tail both move to @p end, which lets the next reserver in. */
DPK__RING_INLINE void dpk__ring_hts_finish(struct dpk__ring_side *own, uint32_t end)
{
	/* R1/R2: pairs with A1/A2 of the other side and AR10 of the next reserver. */
	atomic_store_explicit(&own->tail, DPK__RING_WORD(end, end), memory_order_release);
}

/* A report of @p room - @p m clamped to 0..capacity (see dpk__ring_clamp()). */
DPK__RING_INLINE void dpk__ring_report(unsigned *out, uint32_t room, unsigned m, uint32_t cap)
{
	if (out)
		*out = dpk__ring_clamp((int32_t)(room - m), cap);
}

DPK__RING_INLINE unsigned dpk__ring_rts_enqueue(struct dpk_ring *r, const void *objs, unsigned n,
                                                unsigned *free_space, bool bulk)
{
	uint32_t head = 0, room;
	unsigned m = dpk__ring_rts_reserve(&r->prod, &r->cons, r->capacity, n, bulk, &head, &room);

	if (m) {
		dpk__ring_copy_in(r, head, objs, m);
		dpk__ring_rts_finish(&r->prod);
	}
	dpk__ring_report(free_space, room, m, r->capacity);
	return m;
}

DPK__RING_INLINE unsigned dpk__ring_rts_dequeue(struct dpk_ring *r, void *objs, unsigned n,
                                                unsigned *available, bool bulk)
{
	uint32_t head = 0, room;
	unsigned m = dpk__ring_rts_reserve(&r->cons, &r->prod, 0, n, bulk, &head, &room);

	if (m) {
		dpk__ring_copy_out(r, head, objs, m);
		dpk__ring_rts_finish(&r->cons);
	}
	dpk__ring_report(available, room, m, r->capacity);
	return m;
}

DPK__RING_INLINE unsigned dpk__ring_hts_enqueue(struct dpk_ring *r, const void *objs, unsigned n,
                                                unsigned *free_space, bool bulk)
{
	uint32_t head = 0, room;
	unsigned m = dpk__ring_hts_reserve(&r->prod, &r->cons, r->capacity, n, bulk, &head, &room);

	if (m) {
		dpk__ring_copy_in(r, head, objs, m);
		dpk__ring_hts_finish(&r->prod, head + m);
	}
	dpk__ring_report(free_space, room, m, r->capacity);
	return m;
}

DPK__RING_INLINE unsigned dpk__ring_hts_dequeue(struct dpk_ring *r, void *objs, unsigned n,
                                                unsigned *available, bool bulk)
{
	uint32_t head = 0, room;
	unsigned m = dpk__ring_hts_reserve(&r->cons, &r->prod, 0, n, bulk, &head, &room);

	if (m) {
		dpk__ring_copy_out(r, head, objs, m);
		dpk__ring_hts_finish(&r->cons, head + m);
	}
	dpk__ring_report(available, room, m, r->capacity);
	return m;
}

/* The calls with the mode in their name. */

DPK__RING_INLINE unsigned dpk_ring_mp_rts_enqueue_bulk(struct dpk_ring *r, const void *objs,
                                                       unsigned n, unsigned *free_space)
{
	return dpk__ring_rts_enqueue(r, objs, n, free_space, true);
}

DPK__RING_INLINE unsigned dpk_ring_mp_rts_enqueue_burst(struct dpk_ring *r, const void *objs,
                                                        unsigned n, unsigned *free_space)
{
	return dpk__ring_rts_enqueue(r, objs, n, free_space, false);
}

DPK__RING_INLINE int dpk_ring_mp_rts_enqueue(struct dpk_ring *r, const void *obj)
{
	return dpk__ring_rts_enqueue(r, obj, 1, NULL, true) ? 0 : -ENOBUFS;
}

DPK__RING_INLINE unsigned dpk_ring_mc_rts_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                       unsigned *available)
{
	return dpk__ring_rts_dequeue(r, objs, n, available, true);
}

DPK__RING_INLINE unsigned dpk_ring_mc_rts_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                        unsigned *available)
{
	return dpk__ring_rts_dequeue(r, objs, n, available, false);
}

DPK__RING_INLINE int dpk_ring_mc_rts_dequeue(struct dpk_ring *r, void *obj)
{
	return dpk__ring_rts_dequeue(r, obj, 1, NULL, true) ? 0 : -ENOENT;
}

DPK__RING_INLINE unsigned dpk_ring_mp_hts_enqueue_bulk(struct dpk_ring *r, const void *objs,
                                                       unsigned n, unsigned *free_space)
{
	return dpk__ring_hts_enqueue(r, objs, n, free_space, true);
}

DPK__RING_INLINE unsigned dpk_ring_mp_hts_enqueue_burst(struct dpk_ring *r, const void *objs,
                                                        unsigned n, unsigned *free_space)
{
	return dpk__ring_hts_enqueue(r, objs, n, free_space, false);
}

DPK__RING_INLINE int dpk_ring_mp_hts_enqueue(struct dpk_ring *r, const void *obj)
{
	return dpk__ring_hts_enqueue(r, obj, 1, NULL, true) ? 0 : -ENOBUFS;
}

DPK__RING_INLINE unsigned dpk_ring_mc_hts_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                       unsigned *available)
{
	return dpk__ring_hts_dequeue(r, objs, n, available, true);
}

DPK__RING_INLINE unsigned dpk_ring_mc_hts_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                        unsigned *available)
{
	return dpk__ring_hts_dequeue(r, objs, n, available, false);
}

DPK__RING_INLINE int dpk_ring_mc_hts_dequeue(struct dpk_ring *r, void *obj)
{
	return dpk__ring_hts_dequeue(r, obj, 1, NULL, true) ? 0 : -ENOENT;
}
