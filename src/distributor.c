/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet distributor, the distributor thread's side: placing packets, taking requests
 * and returns in, flush. The hand-off protocol and its memory orders are described in
 * distributor_int.h; the labels this file uses:
 *   A1  acquire load of rq word 0 in service(); pairs with R1 in post()
 *   R2  release store of ho word 0 (single mode: rq[0]) in deliver(); pairs with A2 in take()
 *   R3  release store of rq word 0 = 0 in take_request(); pairs with A3 in rq_free()
 *   A4  acquire load of ho word 0 in ho_check(); pairs with R4 in take()
 *   (post(), take() and rq_free() are in distributor_worker.c)
 *   Counters and the snapshot are relaxed, single writer (see distributor_int.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "distributor_int.h"
#include "internal.h"

_Static_assert(DPK_DISTRIBUTOR_ALIGN == LINE_PAIR, "the alignment init asks for is a line pair");

static void bump(_Atomic uint64_t *c, uint64_t n)
{
	/* Relaxed, single writer: see the file comment. */
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
	                      memory_order_relaxed);
}

static void publish(struct dpk_distributor *d)
{
	/* Relaxed snapshot: see the file comment. */
	atomic_store_explicit(&d->inflight_pub, d->inflight, memory_order_relaxed);
	atomic_store_explicit(&d->returns_pub, d->ret_count, memory_order_relaxed);
	atomic_store_explicit(&d->blocked_pub, (unsigned)__builtin_popcountll(d->held_mask),
	                      memory_order_relaxed);
	atomic_store_explicit(&d->active_pub, d->active_mask, memory_order_relaxed);
}

static inline uint64_t bit(unsigned w)
{
	return UINT64_C(1) << w;
}

static inline unsigned lowest(uint64_t m)
{
	return (unsigned)__builtin_ctzll(m);
}

/* The first member of the non-empty set @p m after @p after, wrapping around. */
static inline unsigned next_in(uint64_t m, unsigned after)
{
	unsigned s = (after + 1) & 63;
	uint64_t r = s ? (m >> s) | (m << (64 - s)) : m;

	return (s + lowest(r)) & 63;
}

static inline uint32_t *bucket(struct dpk_distributor *d, uint32_t tag)
{
	return &d->filter[(tag * UINT32_C(0x9e3779b1)) >> d->filter_shift];
}

/* True when tag @p t is in flight on @p dw. */
static inline bool holds(const struct dworker *dw, uint32_t t)
{
	uint32_t acc = 0;

	/* Kept a loop: GCC at -O3 would otherwise unroll it fully before its vectoriser
	 * runs, and leave sixteen scalar compares. */
#pragma GCC unroll 1
	for (unsigned i = 0; i < TAGS; i++)
		acc |= dw->valid[i] & (0u - (uint32_t)(dw->tags[i] == t));
	return acc != 0;
}

/* The worker tag @p t is in flight on, or NO_WORKER. */
static unsigned owner(struct dpk_distributor *d, uint32_t t)
{
	uint32_t e = *bucket(d, t);
	unsigned hint = e & 0xffu;

	if (e < COUNT_ONE)
		return NO_WORKER;
	if (holds(&d->dw[hint], t))
		return hint;
	for (uint64_t m = d->all_mask & ~bit(hint); m; m &= m - 1)
		if (holds(&d->dw[lowest(m)], t))
			return lowest(m);
	return NO_WORKER;
}

/* Count tag @p t, now in flight on worker @p w, in the filter, while the filter is kept. */
static inline void filter_add(struct dpk_distributor *d, uint32_t t, unsigned w)
{
	uint32_t *b;

	if (d->sole != NO_WORKER)
		return;
	b = bucket(d, t);
	*b = ((*b + COUNT_ONE) & ~0xffu) | w;
}

/* Tag @p t, counted while in flight, is no longer, while the filter is kept. */
static inline void filter_del(struct dpk_distributor *d, uint32_t t)
{
	if (d->sole == NO_WORKER)
		*bucket(d, t) -= COUNT_ONE;
}

/* After a join or a leave: the sole worker, and the filter emptied or rebuilt to match. */
static void update_sole(struct dpk_distributor *d)
{
	unsigned was = d->sole;

	d->sole = d->nactive == 1 ? lowest(d->active_mask) : NO_WORKER;
	if (was == NO_WORKER && d->sole != NO_WORKER) {
		memset(d->filter, 0, sizeof(d->filter[0]) << (32 - d->filter_shift));
	} else if (was != NO_WORKER && d->sole == NO_WORKER) {
		for (uint64_t m = d->all_mask; m; m &= m - 1) {
			const struct dworker *dw = &d->dw[lowest(m)];

			for (unsigned i = 0; i < TAGS; i++)
				if (dw->valid[i])
					filter_add(d, dw->tags[i], lowest(m));
		}
	}
}

/* Put @p p (tag @p t) at the end of worker @p w's backlog, which has room. */
static inline void append(struct dpk_distributor *d, unsigned w, struct dpk_packet *p, uint32_t t)
{
	struct dworker *dw = &d->dw[w];
	unsigned pos = (dw->bl_head + dw->bl_count) & (BACKLOG - 1);

	dw->bl[pos] = p;
	dw->tags[BL_TAGS + pos] = t;
	dw->valid[BL_TAGS + pos] = UINT32_MAX;
	if (++dw->bl_count == BACKLOG)
		d->full_mask |= bit(w);
	filter_add(d, t, w);
}

/*
 * Write worker @p w's next hand-off, the next packets of its backlog (possibly none), into
 * its hand-off line. The line is free (!ho_full) and fewer than two hand-offs are
 * outstanding: the caller checked.
 */
static void deliver(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];
	struct line *l = ho_line(d, w);
	unsigned k = dw->bl_count < d->burst ? dw->bl_count : d->burst;
	unsigned head = dw->bl_head;
	unsigned b = (dw->ho_head + dw->ho_count) & 1;
	uintptr_t w0 = k ? (uintptr_t)dw->bl[head] : d->ahead ? H_NONE : 0;

	assert(!dw->ho_full && dw->ho_count < 2);
	for (unsigned i = 0; i < k; i++) {
		unsigned pos = (head + i) & (BACKLOG - 1);

		dw->tags[b * BURST + i] = dw->tags[BL_TAGS + pos];
		dw->valid[b * BURST + i] = UINT32_MAX;
		dw->valid[BL_TAGS + pos] = 0;
	}
	for (unsigned i = 1; i < k; i++)
		l->slot[i - 1] = (uintptr_t)dw->bl[(head + i) & (BACKLOG - 1)];
	if (k > 0 && k < BURST)
		l->slot[k - 1] = 0;
	dw->bl_head = (head + k) & (BACKLOG - 1);
	dw->bl_count -= k;
	dw->ho_len[b] = k;
	dw->ho_count++;
	dw->ho_full = d->ahead; /* single mode: the request line, the worker's again */
	dw->state = D_BUSY;
	d->full_mask &= ~bit(w);
	d->ready_mask &= ~bit(w);
	bump(&dw->handled, k);
	bump(&dw->handoffs, 1);
	/* R2: pairs with A2 in take(); the slots and the packets are written. */
	atomic_store_explicit(&l->word0, w0, memory_order_release);
}

/* The packets of worker @p w's oldest outstanding hand-off, if any, are done. */
static void complete(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];
	unsigned b = dw->ho_head;

	if (dw->ho_count == 0)
		return;
	for (unsigned i = 0; i < dw->ho_len[b]; i++) {
		filter_del(d, dw->tags[b * BURST + i]);
		dw->valid[b * BURST + i] = 0;
	}
	d->inflight -= dw->ho_len[b];
	dw->ho_len[b] = 0;
	dw->ho_head = b ^ 1;
	dw->ho_count--;
}

/* Note whether worker @p w has copied its hand-off out of its hand-off line. */
static void ho_check(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];

	/* A4: pairs with R4 in take(); the worker has read the slots. */
	if (dw->ho_full && atomic_load_explicit(&d->ho[w].word0, memory_order_acquire) == 0)
		dw->ho_full = false;
}

/*
 * Take back, into @p back in order, what worker @p w (leaving) will not see: the hand-off
 * written ahead that it never took, then its backlog. Returns their number.
 */
static unsigned reclaim(struct dpk_distributor *d, unsigned w, struct dpk_packet **back)
{
	struct dworker *dw = &d->dw[w];
	struct line *l = &d->ho[w];
	unsigned k = 0, b = dw->ho_head;

	for (unsigned i = 0; dw->ho_count > 0 && i < dw->ho_len[b]; i++) {
		/* The distributor's own writes: the worker never took this hand-off. */
		back[k++] = (struct dpk_packet *)(i == 0 ? atomic_load_explicit(
		                                                   &l->word0, memory_order_relaxed)
		                                         : l->slot[i - 1]);
		filter_del(d, dw->tags[b * BURST + i]);
		dw->valid[b * BURST + i] = 0;
	}
	if (dw->ho_count > 0) {
		/* It never reached the worker: its counts go (adding the negation, mod 2^64). */
		bump(&dw->handled, (uint64_t)0 - k);
		bump(&dw->handoffs, UINT64_MAX);
	}
	dw->ho_len[b] = 0;
	dw->ho_head = dw->ho_count = 0;
	/* Relaxed: R3, after it, orders it before the worker's next look at the line. */
	if (d->ahead)
		atomic_store_explicit(&l->word0, 0, memory_order_relaxed);
	dw->ho_full = false;
	for (unsigned i = 0; i < dw->bl_count; i++) {
		unsigned pos = (dw->bl_head + i) & (BACKLOG - 1);

		back[k++] = dw->bl[pos];
		filter_del(d, dw->tags[BL_TAGS + pos]);
		dw->valid[BL_TAGS + pos] = 0;
	}
	dw->bl_head = 0;
	dw->bl_count = 0;
	return k;
}

/* Worker @p w stops taking part; what it will not see goes to the front of pending. */
static void leave(struct dpk_distributor *d, unsigned w)
{
	struct dpk_packet *back[BURST + BACKLOG];
	unsigned k;

	d->dw[w].state = D_OUT;
	if (!(d->active_mask & bit(w)))
		return;
	d->active_mask &= ~bit(w);
	d->ready_mask &= ~bit(w);
	d->full_mask &= ~bit(w);
	d->nactive--;
	update_sole(d);
	k = reclaim(d, w, back);
	if (k == 0)
		return;
	/* Pending packets are later than any packet in flight of the same flow, so these
	 * (earlier packets of their flows) go in front of them. */
	d->pend_head = (d->pend_head - k) & (PENDING - 1);
	for (unsigned i = 0; i < k; i++)
		d->pending[(d->pend_head + i) & (PENDING - 1)] = back[i];
	d->pend_count += k;
	d->leaves++;
}

static void join(struct dpk_distributor *d, unsigned w)
{
	d->active_mask |= bit(w);
	d->nactive++;
	update_sole(d);
}

/* Move the returns of worker @p w's request (word 0 of request line @p l read as @p w0)
 * into the returns buffer. False, taking nothing, when they find no room. */
static bool take_returns(struct dpk_distributor *d, unsigned w, const struct line *l, uintptr_t w0)
{
	struct dworker *dw = &d->dw[w];
	unsigned k = 0, tail = d->ret_head + d->ret_count;

	if (w0 & ~F_MASK) {
		k = 1;
		while (k < BURST && l->slot[k - 1] != 0)
			k++;
	}
	if (RETURNS - d->ret_count < k) {
		if (!dw->blocked) {
			dw->blocked = true;
			d->held_mask |= bit(w);
			bump(&d->returns_full, 1);
		}
		return false;
	}
	if (dw->blocked) {
		dw->blocked = false;
		d->held_mask &= ~bit(w);
	}
	if (k == 0)
		return true;
	d->ret[tail & (RETURNS - 1)] = (struct dpk_packet *)(w0 & ~F_MASK);
	for (unsigned i = 1; i < k; i++)
		d->ret[(tail + i) & (RETURNS - 1)] = (struct dpk_packet *)l->slot[i - 1];
	d->ret_count += k;
	bump(&d->returned, k);
	return true;
}

/* Take worker @p w's request or leave in (D_HELD). False when its returns find no room. */
static bool take_request(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];
	struct line *l = &d->rq[w][dw->rq_next];
	uintptr_t w0 = dw->word0;

	if (!take_returns(d, w, l, w0))
		return false;
	complete(d, w);
	/* R3: pairs with A3 in rq_free() (a worker coming back after a leave); the returns
	 * are read (after a leave, the hand-off line is cleared). For a worker taking part,
	 * R2 of every later hand-off orders it before the worker's next use of this line. */
	if (w0 & F_RET) {
		leave(d, w);
		dw->rq_next = 0;
		atomic_store_explicit(&l->word0, 0, memory_order_release);
		return true;
	}
	if (d->ahead) { /* single mode: the hand-off overwrites the request */
		atomic_store_explicit(&l->word0, 0, memory_order_release);
		dw->rq_next ^= 1;
	}
	if (!(d->active_mask & bit(w)))
		join(d, w);
	/* The worker took its last hand-off before it asked, and A1 made its R4 visible: with
	 * none written ahead, the line is free without a look. */
	if (dw->ho_count == 0)
		dw->ho_full = false;
	else
		ho_check(d, w);
	dw->state = D_BUSY;
	if (dw->ho_count == 0) {
		assert(!dw->ho_full);
		dw->state = D_READY;
		d->ready_mask |= bit(w);
		if (dw->bl_count > 0)
			deliver(d, w);
	}
	return true;
}

/*
 * Write worker @p w's next full hand-off ahead, if its hand-off line is free. True if it
 * did. Called only once the requests the worker posted before it last took a hand-off
 * are taken in (see service()): so whichever hand-off a worker holds, the request line
 * its next request goes to is free.
 */
static bool prefill(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];

	if (!d->ahead || dw->state != D_BUSY || dw->bl_count < d->burst || dw->ho_count >= 2)
		return false;
	ho_check(d, w);
	if (dw->ho_full)
		return false;
	deliver(d, w);
	return true;
}

/*
 * Look at worker @p w's lines: take a request or a leave in (its returns, then the next
 * hand-off from the backlog), and write a full hand-off ahead where the hand-off line is
 * free. Returns true when something changed.
 */
static bool service(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];
	uintptr_t w0;

	if (dw->state == D_READY)
		return false;
	if (dw->state != D_HELD) {
		/* The hand-off line first: once it is seen free, the request the worker posted
		 * before taking the hand-off is visible to the load below (A4 then A1). */
		if (d->ahead)
			ho_check(d, w);
		/* A1: pairs with R1 in post(); the returns are in the slots and the worker is
		 * done with the hand-off it took before. */
		w0 = atomic_load_explicit(&d->rq[w][dw->rq_next].word0, memory_order_acquire);
		if ((w0 & F_MASK) == 0)
			return prefill(d, w);
		dw->word0 = w0;
		dw->state = D_HELD;
	}
	if (!take_request(d, w))
		return false;
	(void)prefill(d, w);
	return true;
}

/* Take in every worker's news and hand out the backlogs of waiting workers. */
static bool service_all(struct dpk_distributor *d)
{
	bool progress = false;

	for (uint64_t m = d->all_mask & ~d->ready_mask; m; m &= m - 1)
		progress |= service(d, lowest(m));
	for (uint64_t m = d->ready_mask; m; m &= m - 1) {
		unsigned w = lowest(m);

		if (d->dw[w].bl_count > 0) {
			deliver(d, w);
			progress = true;
		}
	}
	return progress;
}

/* A worker for a packet whose flow is not in flight, or NO_WORKER. */
static unsigned pick_new(struct dpk_distributor *d)
{
	uint64_t room = d->active_mask & ~d->full_mask;
	uint64_t ready = room & d->ready_mask;
	unsigned c = d->cur;

	if (ready & bit(c))
		return c;
	if (ready) {
		d->cur = next_in(ready, c);
		return d->cur;
	}
	if (d->mode == DPK_DISTRIBUTOR_SINGLE)
		return NO_WORKER;
	if (room & bit(c))
		return c;
	if (!room)
		return NO_WORKER;
	d->cur = next_in(room, c);
	return d->cur;
}

/*
 * Place one packet. Returns false, placing nothing, when it cannot without waiting, or
 * when a worker left meanwhile (its backlog went to pending, ahead of this packet).
 */
static bool place(struct dpk_distributor *d, struct dpk_packet *p)
{
	uint32_t t = dpk_packet_flow_tag(p);
	unsigned leaves = d->leaves;
	struct dworker *dw;
	unsigned w;

	for (;;) {
		w = d->sole;
		if (w == NO_WORKER) {
			w = owner(d, t);
			if (w == NO_WORKER)
				w = pick_new(d);
			if (w == NO_WORKER)
				return false;
		}
		dw = &d->dw[w];
		if (dw->bl_count < BACKLOG)
			break;
		/* Full backlog: hand it out if the worker asks, then look again. */
		if (dw->state == D_READY)
			deliver(d, w);
		else if (!service(d, w))
			return false;
		if (d->leaves != leaves || d->dw[w].bl_count == BACKLOG)
			return false;
	}
	append(d, w, p, t);
	if (dw->state == D_READY && dw->bl_count >= d->burst)
		deliver(d, w);
	return true;
}

/* Place pending packets, oldest first. True when none is left. */
static bool drain_pending(struct dpk_distributor *d)
{
	while (d->pend_count > 0) {
		if (!place(d, d->pending[d->pend_head]))
			return false;
		d->pend_head = (d->pend_head + 1) & (PENDING - 1);
		d->pend_count--;
	}
	return true;
}

/* Place what can be placed of @p pkts, then service the workers, while anything moves. */
static unsigned run(struct dpk_distributor *d, struct dpk_packet *const *pkts, unsigned n)
{
	unsigned taken = 0;

	for (;;) {
		if (drain_pending(d)) {
			while (taken < n && place(d, pkts[taken])) {
				taken++;
				d->inflight++;
			}
		}
		if (!service_all(d))
			break;
		if (taken == n && d->pend_count == 0)
			break;
	}
	return taken;
}

ssize_t dpk_distributor_memsize(unsigned workers, enum dpk_distributor_mode mode)
{
	if (workers == 0 || workers > WMAX) {
		dpk__set_error("distributor: %u workers is not in 1..%u", workers, WMAX);
		return -EINVAL;
	}
	if (mode != DPK_DISTRIBUTOR_SINGLE && mode != DPK_DISTRIBUTOR_BURST) {
		dpk__set_error("distributor: unknown mode %d", (int)mode);
		return -EINVAL;
	}
	return (ssize_t)((sizeof(struct dpk_distributor) + LINE_PAIR - 1) / LINE_PAIR * LINE_PAIR);
}

struct dpk_distributor *dpk_distributor_create(unsigned workers, enum dpk_distributor_mode mode)
{
	const ssize_t size = dpk_distributor_memsize(workers, mode);
	struct dpk_distributor *d;

	if (size < 0) {
		errno = (int)-size;
		return NULL;
	}
	d = aligned_alloc(LINE_PAIR, (size_t)size);
	if (d == NULL) {
		dpk__set_error("distributor: cannot allocate %zd bytes", size);
		errno = ENOMEM;
		return NULL;
	}
	(void)dpk_distributor_init(d, workers, mode);
	d->owned = true;
	return d;
}

int dpk_distributor_init(struct dpk_distributor *d, unsigned workers,
                         enum dpk_distributor_mode mode)
{
	const ssize_t size = dpk_distributor_memsize(workers, mode);
	unsigned buckets = 64;

	if (size < 0)
		return (int)size;
	if (d == NULL || (uintptr_t)d % LINE_PAIR != 0) {
		dpk__set_error("distributor init: memory %p is not aligned to %u bytes", (void *)d,
		               LINE_PAIR);
		return -EINVAL;
	}
	memset(d, 0, sizeof(*d));
	while (buckets < workers * TAGS * 4)
		buckets *= 2;
	d->nworkers = workers;
	d->mode = mode;
	d->burst = mode == DPK_DISTRIBUTOR_BURST ? BURST : 1;
	d->ahead = mode == DPK_DISTRIBUTOR_BURST;
	d->filter_shift = 32 - (unsigned)__builtin_ctz(buckets);
	d->all_mask = workers == 64 ? UINT64_MAX : bit(workers) - 1;
	d->sole = NO_WORKER;
	for (unsigned w = 0; w < workers; w++) {
		atomic_init(&d->rq[w][0].word0, 0);
		atomic_init(&d->rq[w][1].word0, 0);
		atomic_init(&d->ho[w].word0, 0);
		d->wpriv[w].state = W_OUT;
		d->dw[w].state = D_OUT;
		atomic_init(&d->dw[w].handled, 0);
		atomic_init(&d->dw[w].handoffs, 0);
	}
	atomic_init(&d->distributed, 0);
	atomic_init(&d->returned, 0);
	atomic_init(&d->returns_full, 0);
	atomic_init(&d->active_pub, 0);
	atomic_init(&d->inflight_pub, 0);
	atomic_init(&d->returns_pub, 0);
	atomic_init(&d->blocked_pub, 0);
	return 0;
}

void dpk_distributor_free(struct dpk_distributor *d)
{
	if (d && !d->owned) {
		dpk__set_error("distributor free: %p is in the caller's memory "
		               "(dpk_distributor_init()); left alone",
		               (void *)d);
		return;
	}
	free(d);
}

int dpk_distributor_process(struct dpk_distributor *d, struct dpk_packet *const *pkts, unsigned n)
{
	unsigned taken;
	bool bad = false;

	if (d == NULL || (n > 0 && pkts == NULL) || n > INT_MAX)
		return -EINVAL;
	/* No early exit: the loop vectorises, and a caller offering the same waiting packets
	 * call after call pays a few cycles for the check, not one branch per packet. */
	for (unsigned i = 0; i < n; i++)
		bad |= pkts[i] == NULL;
	if (bad)
		return -EINVAL;
	taken = run(d, pkts, n);
	bump(&d->distributed, taken);
	publish(d);
	return (int)taken;
}

int dpk_distributor_returned_pkts(struct dpk_distributor *d, struct dpk_packet **pkts, unsigned max)
{
	unsigned k, first;

	if (d == NULL || (max > 0 && pkts == NULL))
		return -EINVAL;
	k = max < d->ret_count ? max : d->ret_count;
	if (k == 0)
		return 0;
	first = RETURNS - d->ret_head < k ? RETURNS - d->ret_head : k;
	memcpy(pkts, &d->ret[d->ret_head], first * sizeof(*pkts));
	memcpy(pkts + first, &d->ret[0], (k - first) * sizeof(*pkts));
	d->ret_head = (d->ret_head + k) & (RETURNS - 1);
	d->ret_count -= k;
	publish(d);
	return (int)k;
}

int dpk_distributor_flush(struct dpk_distributor *d)
{
	unsigned start, spins = 0;
	int rc;

	if (d == NULL)
		return -EINVAL;
	start = d->inflight;
	for (;;) {
		run(d, NULL, 0);
		if (d->held_mask) {
			rc = -ENOBUFS;
			goto out;
		}
		if (d->inflight == 0 && d->ready_mask == d->active_mask)
			break;
		if (d->active_mask == 0) {
			rc = -ENODEV;
			goto out;
		}
		relax(&spins);
	}
	/* Everything is back and every worker waits: wake each with an empty hand-off. */
	for (uint64_t m = d->ready_mask; m; m &= m - 1)
		deliver(d, lowest(m));
	rc = (int)start;
out:
	publish(d);
	return rc;
}

int dpk_distributor_clear_returns(struct dpk_distributor *d)
{
	unsigned k;

	if (d == NULL)
		return -EINVAL;
	k = d->ret_count;
	d->ret_head = 0;
	d->ret_count = 0;
	publish(d);
	return (int)k;
}

bool dpk_distributor_returns_blocked(const struct dpk_distributor *d)
{
	return d != NULL && d->held_mask != 0;
}
