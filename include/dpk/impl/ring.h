/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/impl/ring.h - the ring's layout and its inline fast paths; included by <dpk/ring.h>
 * only.
 *
 * Indices. Each side has a head (the next index it will reserve), a tail (every index
 * before it is finished and visible to the other side) and a cached copy of the other
 * side's tail. Indices run freely over 32 bits and are masked by size - 1 to find a slot.
 * The producer owns the slots from prod.tail up to cons.tail + capacity; the consumer owns
 * the slots from cons.tail up to prod.tail.
 *
 * The RTS and HTS modes (<dpk/impl/ring_sync.h>) keep more in each side's 64-bit words;
 * in every mode the low half of the tail word is the tail index, which is all the other
 * side reads. Peek and zero-copy calls (<dpk/impl/ring_peek.h>) split a call of an ST or
 * HTS side in two.
 *
 * Memory orders. Every acquire and release, here and in the two headers above, carries a
 * label:
 *   R1  release of prod.tail's index (sp, mp and peek finish stores, the RTS finish CAS,
 *       the HTS finish store): the slots written before it are visible to whoever
 *       acquires the new tail (A1, A3).
 *   R2  the same for cons.tail (dequeues): the slots read before it are done with, so a
 *       producer that acquires the new tail (A2, A4) may overwrite them.
 *   A1  load-acquire of prod.tail by a consumer; pairs with R1. In sc dequeue and an ST
 *       peek or zc start it reloads the side's cached copy, only when that falls short
 *       or an exact report is asked for.
 *   A2  load-acquire of cons.tail by a producer; pairs with R2; in sp enqueue and an ST
 *       start, the same reload.
 *   A3  mp enqueue waiting for its turn (prod.tail == its old head); pairs with R1 of the
 *       producer before it, so that producer's slot writes are ordered before this one's
 *       R1 and a consumer acquiring the later tail sees both.
 *   A4  mc dequeue waiting for its turn (cons.tail == its old head); pairs with R2 of the
 *       consumer before it, the same chain for slot reads.
 *   AR5 load-acquire of prod.head and the acq_rel CAS on it (mp enqueue). A producer that
 *       reads the head another producer wrote also sees at least the cons.tail that one
 *       saw, so head - cons.tail never exceeds the capacity in its computation. A plain
 *       fence between relaxed loads does not give this under RCpc (Arm LDAPR), which is
 *       how DPDK's C11 ring came to compute a negative free count.
 *   AR6 the same for cons.head and prod.tail (mc dequeue).
 *   A7  load-acquire of cons.tail in dpk_ring_count(); pairs with R2 and orders the
 *       prod.tail load after it.
 *   AR8 RTS head word: load-acquire and the acq_rel CAS that moves it, among the reservers
 *       of one side; what AR5 and AR6 give MP/MC.
 *   AR9 RTS tail word: load-acquire and the acq_rel CAS of a finisher, among the
 *       finishers of one side, so that the head word it loads next counts at least every
 *       reservation whose finish the tail word counts.
 *   AR10 HTS tail word: load-acquire and the acquiring CAS of a reserver; pairs with the
 *       R1/R2 store of the finisher before it, whose slot work is thus ordered before this
 *       reserver's, and keeps the room from wrapping as AR5 does.
 * The cached copies carry no order of their own: each is written and read by one side
 * (its sp/sc calls, ST peek and zc starts and mp/mc publications), and every value in one
 * was loaded with A1 or A2 by that side, so the slots a trusted copy covers were acquired
 * then (calls of the other mode, or on other threads, are ordered before by whatever
 * separates them in time).
 */
#ifndef DPK_RING_H
#error "include <dpk/ring.h>, not <dpk/impl/ring.h>"
#endif

#include <errno.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <dpk/cycles.h>

/*
 * Intel's adjacent-line prefetcher fetches cache lines in aligned pairs. A line owned by
 * one core must not share a pair with a line written by another, or each prefetch of the
 * neighbour steals it; so the hot lines sit one pair apart with an unused line beside each.
 */
#define DPK__RING_PAIR (2 * DPK_CACHE_LINE)

/*
 * One side's indices, all on one cache line. The cached copy of the other side's tail
 * shares the line with the published tail on purpose: in a single-producer,
 * single-consumer hand-off each side writes only its own line, and the other side reads
 * that line only when its cached copy says full (producer) or empty (consumer). A hand-off
 * therefore moves at most one line each way, the fewest possible, and the private fields
 * cost nothing extra: the side must own its line anyway to publish the tail, and reading
 * its own head and cache from a line the other side holds shared is a hit.
 */
struct dpk__ring_side {
	DPK__ATOMIC(uint32_t) head;   /* ST, MT: next index to reserve (MT: by CAS) */
	DPK__ATOMIC(uint32_t) cached; /* ST, MT: a recent value of the other side's tail */
	/*
	 * The tail word, the only field the other side reads. Its low half is the tail index:
	 * every index before it is finished. Its high half belongs to the side's sync mode: 0
	 * (ST, MT), the count of finished reservations (RTS), or the head index (HTS, which
	 * moves head and tail in one word).
	 */
	DPK__ATOMIC(uint64_t) tail;
	DPK__ATOMIC(uint64_t)
	rts_head; /* RTS: low half the head index, high half the reservations */
	DPK__ATOMIC(uint32_t) htd_max; /* RTS: a reservation waits while head - tail is above it */
};

struct dpk_ring {
	/* Fixed at init, read by both sides, never written while the ring is in use. */
	uint32_t size;     /* table slots, a power of two */
	uint32_t mask;     /* size - 1 */
	uint32_t capacity; /* usable slots: size - 1, or the count asked for (EXACT_SZ) */
	uint32_t esize;    /* element bytes, a multiple of 4 */
	uint32_t flags;    /* DPK_RING_F_* given at init */
	DPK__ALIGNAS(DPK_CACHE_LINE) unsigned char guard0[DPK_CACHE_LINE];
	DPK__ALIGNAS(DPK_CACHE_LINE) struct dpk__ring_side prod; /* written by producers only */
	DPK__ALIGNAS(DPK_CACHE_LINE) unsigned char guard1[DPK_CACHE_LINE];
	DPK__ALIGNAS(DPK_CACHE_LINE) struct dpk__ring_side cons; /* written by consumers only */
	DPK__ALIGNAS(DPK_CACHE_LINE) unsigned char guard2[DPK_CACHE_LINE];
	/* The element table follows, size * esize bytes from sizeof(struct dpk_ring). */
};

DPK__STATIC_ASSERT(sizeof(struct dpk__ring_side) <= DPK_CACHE_LINE, "a side fits one line");
DPK__STATIC_ASSERT(ATOMIC_LLONG_LOCK_FREE == 2, "the 64-bit index words need lock-free atomics");
DPK__STATIC_ASSERT(offsetof(struct dpk_ring, prod) % DPK__RING_PAIR == 0, "prod starts a pair");
DPK__STATIC_ASSERT(offsetof(struct dpk_ring, cons) % DPK__RING_PAIR == 0, "cons starts a pair");
DPK__STATIC_ASSERT(offsetof(struct dpk_ring, prod) >= DPK__RING_PAIR,
                   "the read-only fields and prod do not share a line pair");
DPK__STATIC_ASSERT(offsetof(struct dpk_ring, cons) >=
                           offsetof(struct dpk_ring, prod) + DPK__RING_PAIR,
                   "prod and cons do not share a line or a line pair");
DPK__STATIC_ASSERT(sizeof(struct dpk_ring) >= offsetof(struct dpk_ring, cons) + DPK__RING_PAIR,
                   "cons and the table do not share a line or a line pair");
DPK__STATIC_ASSERT(sizeof(struct dpk_ring) % DPK__RING_PAIR == 0,
                   "the table starts on its own line pair");

/*
 * Every data-path function, the public calls included, is forced inline: left to itself
 * GCC keeps a call such as dpk_ring_sc_dequeue_bulk() out of line in a loop body that
 * already inlines another one, and the call then costs more than the dequeue.
 */
#define DPK__RING_INLINE static inline __attribute__((always_inline))

/*
 * The tail index of side @p s: the low half of its tail word, loaded with order @p mo (a
 * macro, so that the order is a constant at every optimisation level).
 */
#define DPK__RING_TAIL(s, mo) ((uint32_t)atomic_load_explicit(&(s)->tail, (mo)))

/* The halves of a 64-bit index word, and a word made of two halves. */
#define DPK__RING_LO(w)        ((uint32_t)(w))
#define DPK__RING_HI(w)        ((uint32_t)((w) >> 32))
#define DPK__RING_WORD(lo, hi) ((uint64_t)(hi) << 32 | (uint32_t)(lo))

/*
 * A condition that holds about as often as not; it only steers the code layout. Used for
 * "too few to dequeue" (for a bulk call, nothing is dequeued; a burst decides inside it
 * between nothing and fewer): GCC then lays out a caller's polling loop with that case as
 * the loop's single branch back to its top, where an unlikely hint would put it out of
 * line and cost two taken branches per poll of an empty ring.
 */
#if defined(__has_builtin)
#if __has_builtin(__builtin_expect_with_probability)
#define DPK__RING_OFTEN(x) __builtin_expect_with_probability((x), 1, 0.6)
#endif
#endif
#ifndef DPK__RING_OFTEN
#define DPK__RING_OFTEN(x) (x)
#endif

DPK__RING_INLINE unsigned char *dpk__ring_table(struct dpk_ring *r)
{
	return (unsigned char *)(r + 1);
}

/*
 * The element size is known only at run time, so the compiler expands the copies below for
 * the sizes a ring does not have as well, and with a small caller object in view (one
 * uint64_t, say) GCC warns that those dead branches read or write past it
 * (-Warray-bounds, -Wstringop-overflow, -Wmaybe-uninitialized) in the user's build. The
 * warnings are turned off for these functions alone. (An empty asm that hid the pointer's
 * origin did the same, but the hidden pointer was hoisted out of a caller's loop and held a
 * register there, which slowed the calls: docs/ring.md.)
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/*
 * Copy 16 bytes. With @p split (and SSE2) they are read as two 8-byte halves and written
 * as one 16-byte store. Callers fill arrays of 8-byte elements (pointers, mostly) with
 * 8-byte stores, often just before the call, and store-to-load forwarding only serves a
 * load that lies within one store: a 16-byte load over two recent 8-byte stores waits
 * until they reach the cache, stalling the pipeline once per call. Reading in halves
 * avoids that for one more load and a shuffle; the table side, written and read by the
 * ring alone, keeps whole 16-byte moves.
 */
DPK__RING_INLINE void dpk__ring_copy16(unsigned char *dst, const unsigned char *src, bool split)
{
#ifdef __SSE2__
	if (split) {
		const __m128i lo = _mm_loadl_epi64((const __m128i *)(const void *)src);
		const __m128d v =
		        _mm_loadh_pd(_mm_castsi128_pd(lo), (const double *)(const void *)(src + 8));

		_mm_storeu_si128((__m128i *)(void *)dst, _mm_castpd_si128(v));
		return;
	}
#endif
	(void)split;
	memcpy(dst, src, 16);
}

/*
 * Copy @p bytes (a multiple of 4) between the table and the caller's array: 64 bytes per
 * iteration, then a 32-, 16-, 8- and 4-byte tail; @p split as in dpk__ring_copy16().
 * memcpy of a constant size compiles to unaligned loads and stores, so caller arrays need
 * no alignment and no library call is made. Four 16-byte moves per iteration keep the
 * loop bound by its stores rather than by its own overhead, wherever the compiler places
 * it. The tails are laid out as unlikely: bulk sizes are mostly multiples of 4 elements,
 * and with the element size a constant (see dpk__ring_copy_in()) the tails that cannot
 * occur fold away.
 */
DPK__RING_INLINE void dpk__ring_copy(unsigned char *dst, const unsigned char *src, size_t bytes,
                                     bool split)
{
	const unsigned char *const end = src + (bytes & ~(size_t)63);

	for (; src != end; src += 64, dst += 64) {
		dpk__ring_copy16(dst, src, split);
		dpk__ring_copy16(dst + 16, src + 16, split);
		dpk__ring_copy16(dst + 32, src + 32, split);
		dpk__ring_copy16(dst + 48, src + 48, split);
	}
	if (__builtin_expect(bytes & 32, 0)) {
		dpk__ring_copy16(dst, src, split);
		dpk__ring_copy16(dst + 16, src + 16, split);
		dst += 32;
		src += 32;
	}
	if (__builtin_expect(bytes & 16, 0)) {
		dpk__ring_copy16(dst, src, split);
		dst += 16;
		src += 16;
	}
	if (__builtin_expect(bytes & 8, 0)) {
		memcpy(dst, src, 8);
		dst += 8;
		src += 8;
	}
	if (__builtin_expect(bytes & 4, 0))
		memcpy(dst, src, 4);
}

/*
 * Copy one element of fewer than 16 bytes (4, 8 or 12) in 8-byte words and a 4-byte tail.
 * A lone element of 16 bytes goes through dpk__ring_copy16() instead: callers build single
 * elements with stores of 8 bytes or less just before the call, so the caller's side is read
 * in halves, while the table side takes one 16-byte move, which beat two 8-byte ones for a
 * one-element MP/MC call (docs/ring.md).
 */
DPK__RING_INLINE void dpk__ring_copy_one(unsigned char *dst, const unsigned char *src,
                                         uint32_t esize)
{
	uint32_t i = 0;

	for (; i + 8 <= esize; i += 8)
		memcpy(dst + i, src + i, 8);
	if (esize & 4)
		memcpy(dst + i, src + i, 4);
}

/*
 * Copy @p n elements of @p esize bytes into (@p in) or out of the slots from index
 * @p head on, in two parts when they run past the end of the table. The callers pass
 * esize as a constant for the common sizes, so the slot address is a shift and the copy
 * a fixed sequence of loads and stores. Arrays of 8-byte elements are read from the
 * caller in 8-byte halves (see dpk__ring_copy16()); arrays of 16-byte and larger elements
 * are read whole, as they are usually written. A lone element is read in words of 8 bytes
 * at most (see dpk__ring_copy_one()).
 */
DPK__RING_INLINE void dpk__ring_move(struct dpk_ring *r, uint32_t head, unsigned char *objs,
                                     unsigned n, uint32_t esize, bool in)
{
	const uint32_t mask = r->mask, idx = head & mask;
	unsigned char *table = dpk__ring_table(r);
	unsigned char *slot = table + (size_t)idx * esize;
	unsigned char *dst = in ? slot : objs;
	const unsigned char *src = in ? objs : slot;
	const bool split = in && esize == 8;

	/* One element, the commonest call, never wraps (idx <= mask). */
	if (n == 1) {
		if (esize == 16)
			dpk__ring_copy16(dst, src, in);
		else if (esize < 16)
			dpk__ring_copy_one(dst, src, esize);
		else
			dpk__ring_copy(dst, src, esize, false);
		return;
	}
	/* idx <= mask < 2^31 and n <= capacity < 2^31, so this does not overflow; n = 0
	 * copies nothing. */
	if (__builtin_expect(idx + n <= mask + 1, 1)) {
		dpk__ring_copy(dst, src, (size_t)n * esize, split);
	} else {
		const size_t first = (size_t)(mask + 1 - idx) * esize;
		const size_t rest = (size_t)n * esize - first;

		if (in) {
			dpk__ring_copy(slot, objs, first, split);
			dpk__ring_copy(table, objs + first, rest, split);
		} else {
			dpk__ring_copy(objs, slot, first, false);
			dpk__ring_copy(objs + first, table, rest, false);
		}
	}
}

/*
 * Copy @p n elements from @p objs into the slots from index @p head on. Copying in only
 * reads the caller's array; one routine serves both directions. The element sizes with a
 * copy of their own are tested in order of use: 8 bytes (pointers) falls through, 16
 * bytes costs one taken branch, other sizes are laid out of line.
 */
DPK__RING_INLINE void dpk__ring_copy_in(struct dpk_ring *r, uint32_t head, const void *objs,
                                        unsigned n)
{
	unsigned char *src = (unsigned char *)(uintptr_t)objs;

	if (__builtin_expect(r->esize == 8, 1))
		dpk__ring_move(r, head, src, n, 8, true);
	else if (__builtin_expect(r->esize == 16, 1))
		dpk__ring_move(r, head, src, n, 16, true);
	else
		dpk__ring_move(r, head, src, n, r->esize, true);
}

/* Copy @p n elements from the slots from index @p head on into @p objs. */
DPK__RING_INLINE void dpk__ring_copy_out(struct dpk_ring *r, uint32_t head, void *objs, unsigned n)
{
	unsigned char *dst = (unsigned char *)objs;

	if (__builtin_expect(r->esize == 8, 1))
		dpk__ring_move(r, head, dst, n, 8, false);
	else if (__builtin_expect(r->esize == 16, 1))
		dpk__ring_move(r, head, dst, n, 16, false);
	else
		dpk__ring_move(r, head, dst, n, r->esize, false);
}

/*
 * The sp/sc copy of @p m of the @p n elements asked for; a bulk call, and any call of one
 * element, moves all @p n or none. A burst's count may have been cut, so the full count
 * gets a copy of its own: inlined in a loop that asks for the same n every time, that copy
 * keeps what it derives from n out of the loop, as a bulk call's does. The mp/mc calls
 * copy their count as it comes: there the extra test cost more than it gave
 * (docs/ring.md, "2026-12-03: bursts that ask for the same n").
 */
DPK__RING_INLINE void dpk__ring_copy_in_of(struct dpk_ring *r, uint32_t head, const void *objs,
                                           unsigned n, unsigned m, bool bulk)
{
	if (bulk || (__builtin_constant_p(n) && n == 1) || m == n)
		dpk__ring_copy_in(r, head, objs, n);
	else
		dpk__ring_copy_in(r, head, objs, m);
}

/* dpk__ring_copy_in_of() the other way. */
DPK__RING_INLINE void dpk__ring_copy_out_of(struct dpk_ring *r, uint32_t head, void *objs,
                                            unsigned n, unsigned m, bool bulk)
{
	if (bulk || (__builtin_constant_p(n) && n == 1) || m == n)
		dpk__ring_copy_out(r, head, objs, n);
	else
		dpk__ring_copy_out(r, head, objs, m);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/*
 * @p room limited to 0..@p cap for a report. With a head loaded before other callers moved
 * both sides, a failed mp/mc call can compute a room outside that range; the CAS would
 * have caught it had the call gone on.
 */
DPK__RING_INLINE unsigned dpk__ring_clamp(int32_t room, uint32_t cap)
{
	if (room < 0)
		return 0;
	return (uint32_t)room > cap ? cap : (unsigned)room;
}

/*
 * Single producer. No CAS: this thread alone moves prod.head and prod.tail. It trusts its
 * cached copy of cons.tail while that shows room for @p n, and loads cons.tail only when
 * it does not. While the consumer keeps up, the consumer's line is then read about once
 * per capacity's worth of elements instead of on every call.
 *
 * The copy may be stale, and not only by being behind: calls of the other sync mode
 * (allowed one after another, not at the same time) move the head without this call
 * seeing it. Two things keep a stale copy harmless. The room is computed as a signed
 * 32-bit difference, so a copy that the head has run past gives a negative room and
 * causes a reload where an unsigned difference would wrap to a huge room and overrun the
 * consumer; this is exact while the room so computed lies above -2^31, that is while the
 * copy is less than capacity + 2^31 behind the head. And the mp/mc calls refresh the copy
 * of their side often enough to keep it well within that however long the ring ran in the
 * other mode (dpk__ring_refresh_due()). A freshly loaded tail needs none of this: the room
 * it gives is exact, 0..capacity.
 *
 * A call that moves nothing stores nothing; the copy it loaded is dropped, as the next
 * call that finds the copy short loads the tail again anyway.
 */
DPK__RING_INLINE unsigned dpk__ring_sp_enqueue_n(struct dpk_ring *r, const void *objs, unsigned n,
                                                 unsigned *free_space, bool bulk)
{
	const uint32_t cap = r->capacity;
	const uint32_t head = atomic_load_explicit(&r->prod.head, memory_order_relaxed);
	uint32_t ctail = atomic_load_explicit(&r->prod.cached, memory_order_relaxed);
	unsigned m = n;
	bool fresh = false;

	if (__builtin_expect((int64_t)(int32_t)(ctail + cap - head) < (int64_t)n, 0)) {
		/* A2: pairs with R2 in dequeue; the consumer is done with the slots we reuse. */
		ctail = DPK__RING_TAIL(&r->cons, memory_order_acquire);
		fresh = true;
		const uint32_t room = ctail + cap - head;
		if (__builtin_expect(room < n, 0)) {
			if (bulk || room == 0) {
				m = 0;
				goto out;
			}
			m = room;
		}
		atomic_store_explicit(&r->prod.cached, ctail, memory_order_relaxed);
	}
	dpk__ring_copy_in_of(r, head, objs, n, m, bulk);
	/* The head is kept equal to the tail for later mp calls and for dump. */
	atomic_store_explicit(&r->prod.head, head + m, memory_order_relaxed);
	/* R1: pairs with A1 in dequeue and A3 in mp enqueue; the slots are written. */
	atomic_store_explicit(&r->prod.tail, head + m, memory_order_release);
out:
	if (free_space) {
		/* An exact figure, not the cached one: reload unless this call just did. */
		if (!fresh) /* A2 as above. */
			ctail = DPK__RING_TAIL(&r->cons, memory_order_acquire);
		*free_space = ctail + cap - (head + m);
	}
	return m;
}

/*
 * Single consumer: the mirror of dpk__ring_sp_enqueue(), with the same reasoning for its
 * cached copy of prod.tail. The layout differs: a consumer that keeps up finds its copy
 * used up on most calls, so the reload is laid out in line, and polls of an idle ring find
 * nothing as often as calls find elements (see DPK__RING_OFTEN).
 */
DPK__RING_INLINE unsigned dpk__ring_sc_dequeue_n(struct dpk_ring *r, void *objs, unsigned n,
                                                 unsigned *available, bool bulk)
{
	const uint32_t head = atomic_load_explicit(&r->cons.head, memory_order_relaxed);
	uint32_t ptail = atomic_load_explicit(&r->cons.cached, memory_order_relaxed);
	unsigned m = n;
	bool fresh = false;

	if (__builtin_expect((int64_t)(int32_t)(ptail - head) < (int64_t)n, 1)) {
		/* A1: pairs with R1 in enqueue; the slots up to the tail are written. */
		ptail = DPK__RING_TAIL(&r->prod, memory_order_acquire);
		fresh = true;
		const uint32_t avail = ptail - head;
		/* A burst's clamp is tested only inside the short branch, as in sp enqueue, so
		 * a reload that finds enough pays no test for it. */
		if (DPK__RING_OFTEN(avail < n)) {
			if (bulk || avail == 0) {
				m = 0;
				goto out;
			}
			m = avail; /* a burst takes what there is */
		}
		atomic_store_explicit(&r->cons.cached, ptail, memory_order_relaxed);
	}
	dpk__ring_copy_out_of(r, head, objs, n, m, bulk);
	atomic_store_explicit(&r->cons.head, head + m, memory_order_relaxed);
	/* R2: pairs with A2 in enqueue and A4 in mc dequeue; the slots are read. */
	atomic_store_explicit(&r->cons.tail, head + m, memory_order_release);
out:
	if (available) {
		if (!fresh) /* A1 as above. */
			ptail = DPK__RING_TAIL(&r->prod, memory_order_acquire);
		*available = ptail - (head + m);
	}
	return m;
}

/*
 * The single-thread calls as made. With n a constant the path above is inlined for it; with
 * n known only at run time, a call of one element takes a copy of the path made for n = 1,
 * which needs none of the registers the general copy loop does: without it the compiler
 * saves and restores those on every call, one element or not.
 */
DPK__RING_INLINE unsigned dpk__ring_sp_enqueue(struct dpk_ring *r, const void *objs, unsigned n,
                                               unsigned *free_space, bool bulk)
{
	if (!__builtin_constant_p(n) && n == 1)
		return dpk__ring_sp_enqueue_n(r, objs, 1, free_space, bulk);
	return dpk__ring_sp_enqueue_n(r, objs, n, free_space, bulk);
}

DPK__RING_INLINE unsigned dpk__ring_sc_dequeue(struct dpk_ring *r, void *objs, unsigned n,
                                               unsigned *available, bool bulk)
{
	if (!__builtin_constant_p(n) && n == 1)
		return dpk__ring_sc_dequeue_n(r, objs, 1, available, bulk);
	return dpk__ring_sc_dequeue_n(r, objs, n, available, bulk);
}

/*
 * Whether an mp/mc call whose head moved by @p m to @p next refreshes its side's cached copy
 * for the sp/sc calls: when the head passed a multiple of 2^29. A refresh on every call
 * was a measurable part of a one-lcore MP/MC call (docs/ring.md, "2026-12-02: one element
 * on a Zen 2 guest"). Since the copy last covered the head (an sp/sc call or a refresh
 * left room >= 0, or elements >= 0, by it), the head has moved less than 2^29 without a
 * refresh, so the producer's copy is less than capacity + 2^29 behind the head and the
 * consumer's less than 2^29: the signed tests of the sp/sc calls stay exact. The refresh is
 * made under the call's turn, so the copies still advance in index order.
 */
#define DPK__RING_REFRESH_EVERY (1u << 29)

DPK__RING_INLINE bool dpk__ring_refresh_due(uint32_t next, unsigned m)
{
	return __builtin_expect((next & (DPK__RING_REFRESH_EVERY - 1)) < m, 0);
}

/*
 * Multi producer: reserve [head, head + n) by CAS on prod.head, copy, wait until every
 * earlier reservation is published (prod.tail == head), then publish. cons.tail is loaded
 * on every call, as the cached copy is not shared between producers.
 *
 * A failed C11 CAS writes the current head back into `head` (DPDK measured this
 * write-back semantic as a 15-30% cost on x86 against a CAS that only returns a flag).
 * Here the loop needs that value anyway and uses it instead of loading the head again,
 * and `head` is a local that stays in a register, so the write-back is a register move.
 *
 * The copy and the wait use `first`, the head the successful CAS was given, not `head`:
 * the compiler takes that from the CAS's result, so every slot access waited for the CAS,
 * and a hand-off between two lcores paid the slots' miss after the head's instead of
 * beside it (docs/ring.md, "2026-12-04: slots that wait for the CAS").
 */
DPK__RING_INLINE unsigned dpk__ring_mp_enqueue(struct dpk_ring *r, const void *objs, unsigned n,
                                               unsigned *free_space, bool bulk)
{
	const uint32_t cap = r->capacity;
	uint32_t head, first, next, ctail, room;
	unsigned m;

	/* AR5: pairs with the CAS below in earlier producers; see the top of this file. */
	head = atomic_load_explicit(&r->prod.head, memory_order_acquire);
	do {
		/* A2: pairs with R2 in dequeue; the consumer is done with the slots we reuse. */
		ctail = DPK__RING_TAIL(&r->cons, memory_order_acquire);
		/* AR5 keeps head - ctail within the capacity, so this does not wrap. */
		room = ctail + cap - head;
		m = n;
		if (__builtin_expect(m > room, 0))
			m = bulk ? 0 : room;
		if (__builtin_expect(m == 0, 0)) {
			if (free_space)
				*free_space = dpk__ring_clamp((int32_t)room, cap);
			return 0;
		}
		first = head;
		next = head + m;
		/* AR5: release pairs with the acquiring loads of the head in later producers;
		 * acquire on failure pairs with the CAS that moved the head. */
	} while (!atomic_compare_exchange_weak_explicit(
	        &r->prod.head, &head, next, memory_order_acq_rel, memory_order_acquire));

	dpk__ring_copy_in(r, first, objs, m);

	/* A3: pairs with R1 of the producer that reserved just before us. */
	while (__builtin_expect(DPK__RING_TAIL(&r->prod, memory_order_acquire) != first, 0))
		dpk_pause();
	if (dpk__ring_refresh_due(next, m))
		atomic_store_explicit(&r->prod.cached, ctail, memory_order_relaxed);
	/* R1: pairs with A1 in dequeue and A3 in later producers; the slots are written. */
	atomic_store_explicit(&r->prod.tail, next, memory_order_release);
	if (free_space)
		*free_space = room - m;
	return m;
}

/* Multi consumer: the mirror of dpk__ring_mp_enqueue(). */
DPK__RING_INLINE unsigned dpk__ring_mc_dequeue(struct dpk_ring *r, void *objs, unsigned n,
                                               unsigned *available, bool bulk)
{
	uint32_t head, first, next, ptail, room;
	unsigned m;

	/* AR6: pairs with the CAS below in earlier consumers; see the top of this file. */
	head = atomic_load_explicit(&r->cons.head, memory_order_acquire);
	do {
		/* A1: pairs with R1 in enqueue; the slots up to the tail are written. */
		ptail = DPK__RING_TAIL(&r->prod, memory_order_acquire);
		/* AR6 keeps the head at or before ptail, so this does not wrap. */
		room = ptail - head;
		m = n <= room ? n : bulk ? 0 : room;
		/* Polls of an empty ring are the common case of a failing call, and a
		 * moving call pays a CAS anyway, so the failure is laid out in line. */
		if (__builtin_expect(m == 0, 1)) {
			if (available)
				*available = dpk__ring_clamp((int32_t)room, r->capacity);
			return 0;
		}
		first = head;
		next = head + m;
		/* AR6: as AR5 in dpk__ring_mp_enqueue(). */
	} while (!atomic_compare_exchange_weak_explicit(
	        &r->cons.head, &head, next, memory_order_acq_rel, memory_order_acquire));

	dpk__ring_copy_out(r, first, objs, m);

	/* A4: pairs with R2 of the consumer that reserved just before us. */
	while (__builtin_expect(DPK__RING_TAIL(&r->cons, memory_order_acquire) != first, 0))
		dpk_pause();
	if (dpk__ring_refresh_due(next, m))
		atomic_store_explicit(&r->cons.cached, ptail, memory_order_relaxed);
	/* R2: pairs with A2 in enqueue and A4 in later consumers; the slots are read. */
	atomic_store_explicit(&r->cons.tail, next, memory_order_release);
	if (available)
		*available = room - m;
	return m;
}

#include <dpk/impl/ring_query.h>

/*
 * The default-mode calls on an RTS or HTS side: out of line, in the library, so that a
 * default-mode call site inlines the ST and MT paths only (as many programs use no other)
 * and pays one test, predicted not taken, for the two new modes.
 */
#define DPK__RING_F_PROD_SYNC (DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MP_HTS_ENQ)
#define DPK__RING_F_CONS_SYNC (DPK_RING_F_MC_RTS_DEQ | DPK_RING_F_MC_HTS_DEQ)
unsigned dpk__ring_enqueue_sync(struct dpk_ring *r, const void *objs, unsigned n,
                                unsigned *free_space, bool bulk);
unsigned dpk__ring_dequeue_sync(struct dpk_ring *r, void *objs, unsigned n, unsigned *available,
                                bool bulk);

/* Enqueue. */

DPK__RING_INLINE unsigned dpk_ring_sp_enqueue_bulk(struct dpk_ring *r, const void *objs, unsigned n,
                                                   unsigned *free_space)
{
	return dpk__ring_sp_enqueue(r, objs, n, free_space, true);
}

DPK__RING_INLINE unsigned dpk_ring_mp_enqueue_bulk(struct dpk_ring *r, const void *objs, unsigned n,
                                                   unsigned *free_space)
{
	return dpk__ring_mp_enqueue(r, objs, n, free_space, true);
}

DPK__RING_INLINE unsigned dpk_ring_enqueue_bulk(struct dpk_ring *r, const void *objs, unsigned n,
                                                unsigned *free_space)
{
	if (r->flags & DPK_RING_F_SP_ENQ)
		return dpk__ring_sp_enqueue(r, objs, n, free_space, true);
	if (__builtin_expect(!(r->flags & DPK__RING_F_PROD_SYNC), 1))
		return dpk__ring_mp_enqueue(r, objs, n, free_space, true);
	return dpk__ring_enqueue_sync(r, objs, n, free_space, true);
}

DPK__RING_INLINE unsigned dpk_ring_sp_enqueue_burst(struct dpk_ring *r, const void *objs,
                                                    unsigned n, unsigned *free_space)
{
	return dpk__ring_sp_enqueue(r, objs, n, free_space, false);
}

DPK__RING_INLINE unsigned dpk_ring_mp_enqueue_burst(struct dpk_ring *r, const void *objs,
                                                    unsigned n, unsigned *free_space)
{
	return dpk__ring_mp_enqueue(r, objs, n, free_space, false);
}

DPK__RING_INLINE unsigned dpk_ring_enqueue_burst(struct dpk_ring *r, const void *objs, unsigned n,
                                                 unsigned *free_space)
{
	if (r->flags & DPK_RING_F_SP_ENQ)
		return dpk__ring_sp_enqueue(r, objs, n, free_space, false);
	if (__builtin_expect(!(r->flags & DPK__RING_F_PROD_SYNC), 1))
		return dpk__ring_mp_enqueue(r, objs, n, free_space, false);
	return dpk__ring_enqueue_sync(r, objs, n, free_space, false);
}

/* Dequeue. */

DPK__RING_INLINE unsigned dpk_ring_sc_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                   unsigned *available)
{
	return dpk__ring_sc_dequeue(r, objs, n, available, true);
}

DPK__RING_INLINE unsigned dpk_ring_mc_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                   unsigned *available)
{
	return dpk__ring_mc_dequeue(r, objs, n, available, true);
}

DPK__RING_INLINE unsigned dpk_ring_dequeue_bulk(struct dpk_ring *r, void *objs, unsigned n,
                                                unsigned *available)
{
	if (r->flags & DPK_RING_F_SC_DEQ)
		return dpk__ring_sc_dequeue(r, objs, n, available, true);
	if (__builtin_expect(!(r->flags & DPK__RING_F_CONS_SYNC), 1))
		return dpk__ring_mc_dequeue(r, objs, n, available, true);
	return dpk__ring_dequeue_sync(r, objs, n, available, true);
}

DPK__RING_INLINE unsigned dpk_ring_sc_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                    unsigned *available)
{
	return dpk__ring_sc_dequeue(r, objs, n, available, false);
}

DPK__RING_INLINE unsigned dpk_ring_mc_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                    unsigned *available)
{
	return dpk__ring_mc_dequeue(r, objs, n, available, false);
}

DPK__RING_INLINE unsigned dpk_ring_dequeue_burst(struct dpk_ring *r, void *objs, unsigned n,
                                                 unsigned *available)
{
	if (r->flags & DPK_RING_F_SC_DEQ)
		return dpk__ring_sc_dequeue(r, objs, n, available, false);
	if (__builtin_expect(!(r->flags & DPK__RING_F_CONS_SYNC), 1))
		return dpk__ring_mc_dequeue(r, objs, n, available, false);
	return dpk__ring_dequeue_sync(r, objs, n, available, false);
}

/* One element. */

DPK__RING_INLINE int dpk_ring_sp_enqueue(struct dpk_ring *r, const void *obj)
{
	return dpk__ring_sp_enqueue(r, obj, 1, NULL, true) ? 0 : -ENOBUFS;
}

DPK__RING_INLINE int dpk_ring_mp_enqueue(struct dpk_ring *r, const void *obj)
{
	return dpk__ring_mp_enqueue(r, obj, 1, NULL, true) ? 0 : -ENOBUFS;
}

DPK__RING_INLINE int dpk_ring_enqueue(struct dpk_ring *r, const void *obj)
{
	return dpk_ring_enqueue_bulk(r, obj, 1, NULL) ? 0 : -ENOBUFS;
}

DPK__RING_INLINE int dpk_ring_sc_dequeue(struct dpk_ring *r, void *obj)
{
	return dpk__ring_sc_dequeue(r, obj, 1, NULL, true) ? 0 : -ENOENT;
}

DPK__RING_INLINE int dpk_ring_mc_dequeue(struct dpk_ring *r, void *obj)
{
	return dpk__ring_mc_dequeue(r, obj, 1, NULL, true) ? 0 : -ENOENT;
}

DPK__RING_INLINE int dpk_ring_dequeue(struct dpk_ring *r, void *obj)
{
	return dpk_ring_dequeue_bulk(r, obj, 1, NULL) ? 0 : -ENOENT;
}

#include <dpk/impl/ring_sync.h>

#include <dpk/impl/ring_peek.h>
