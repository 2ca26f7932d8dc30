/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet distributor.
 *
 * Hand-off line of a worker: word 0 and seven slots, one cache line. Word 0 holds the
 * first packet pointer (0: none) and, in its two low bits, the flags; the slots hold the
 * next pointers, ended by a 0 slot when fewer than eight. Packet pointers are at least
 * 4-aligned, so the flags never clash with a pointer. The line has one owner at a time:
 *   - flags clear: the worker owns it. It may be reading packets the distributor wrote,
 *     working on them, or not taking part. The distributor only reads word 0, to see a
 *     request come in.
 *   - F_REQ or F_RET set: the distributor owns it. It holds the worker's returns; F_REQ
 *     asks for packets, F_RET says the worker leaves. The worker only reads word 0, to
 *     see the answer come.
 * Each side writes the slots first and word 0 last, with a release store; the other side
 * reads word 0 with an acquire load and only then the slots.
 *
 * Memory orders, paired:
 *   R1 (release store of word 0 in post(), by request_pkt, get_pkt and return_pkt) pairs
 *      with A1 (acquire load of word 0 in service()): the returns in the slots, and all
 *      the worker did with the packets of its last hand-off, happen before the
 *      distributor reads the slots and hands those packets back to the application.
 *   R2 (release store of word 0 in deliver() and, after a leave, in service()) pairs with
 *      A2 (acquire loads of word 0 in poll_pkt, get_pkt and line_free()): the packet
 *      pointers in the slots, and whatever the application wrote into those packets
 *      before process(), happen before the worker reads them; after a leave, the
 *      distributor's reads of the returns happen before the worker writes the line again.
 *   Counters and the published snapshot are relaxed: each has one writer, the distributor
 *   thread, which updates it with a load and a store; readers get a snapshot and read
 *   nothing through it.
 *
 * Distributor-side state of a worker (struct dworker, distributor thread only):
 *   D_OUT   not taking part; the worker owns the line
 *   D_BUSY  taking part; the worker owns the line (it has a hand-off, maybe empty)
 *   D_READY taking part; the distributor owns the line (the worker waits for packets)
 *   D_HELD  the distributor owns the line and has not taken its returns in yet: there
 *           was no room for them in the returns buffer
 * tags[0..7] are the tags of the packets of the worker's current hand-off, tags[8..15]
 * those of its backlog (a ring of 8 from bl_head); valid[i] is all ones where tags[i]
 * is in flight, 0 elsewhere, so that a match is a short loop the compiler vectorises.
 *
 * Finding the worker of a tag: filter[] counts the packets in flight per hash of their tag
 * (bits 8..31) and remembers the worker that last got one (bits 0..7). A count of 0 means
 * the tag is not in flight; otherwise the hinted worker's tags are checked, then, if the
 * hint is wrong (another tag with the same hash moved it), every worker's. The table has
 * at least four buckets per packet that can be in flight.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/distributor.h>
#include <dpk/packet.h>

#include "internal.h"

/* Per-worker structures are a line pair apart: Intel's adjacent-line prefetcher moves
 * aligned pairs of lines, and one worker's line must not drag another's along. */
#define LINE_PAIR (2 * DPK_CACHE_LINE)

#define BURST      DPK_DISTRIBUTOR_BURST_SIZE
#define BACKLOG    DPK_DISTRIBUTOR_BACKLOG
#define RETURNS    DPK_DISTRIBUTOR_RETURNS
#define WMAX       DPK_DISTRIBUTOR_WORKERS_MAX
#define PENDING    (WMAX * BACKLOG)
#define FILTER_MAX (WMAX * (BURST + BACKLOG) * 4)

#define F_REQ  ((uintptr_t)1) /* word 0: the worker asks for packets */
#define F_RET  ((uintptr_t)2) /* word 0: the worker leaves */
#define F_MASK (F_REQ | F_RET)

#define NO_WORKER UINT_MAX
#define COUNT_ONE (1u << 8) /* one packet in a filter entry */

static_assert(_Alignof(struct dpk_packet) >= 4, "packet pointers need two free low bits");
static_assert(BURST == 8 && BACKLOG == 8, "the tag arrays are laid out for 8 + 8");
static_assert((RETURNS & (RETURNS - 1)) == 0, "the returns ring is a power of two");
static_assert(WMAX <= 64, "worker sets are 64-bit masks");
static_assert(WMAX <= 256, "filter hints are 8 bits");

enum dstate { D_OUT, D_BUSY, D_READY, D_HELD };
enum wstate { W_OUT, W_REQUESTED, W_HOLDING };

/* The shared hand-off line of one worker (see the file comment). */
struct line {
	_Alignas(LINE_PAIR) _Atomic uintptr_t word0;
	uintptr_t slot[BURST - 1];
};
static_assert(sizeof(struct line) == LINE_PAIR, "one line per pair");

/* Worker-side state, written by the worker's thread only. */
struct wpriv {
	_Alignas(LINE_PAIR) enum wstate state;
};

/* Distributor-side state of one worker, written by the distributor thread only. */
struct dworker {
	_Alignas(LINE_PAIR) uint32_t tags[BURST + BACKLOG];
	uint32_t valid[BURST + BACKLOG];
	struct dpk_packet *bl[BACKLOG]; /* backlog ring */
	uintptr_t word0;                /* word 0 as read, while D_HELD */
	enum dstate state;
	unsigned bl_head, bl_count;
	unsigned line_count; /* packets of the current hand-off */
	bool blocked;        /* returns waiting for room, already counted */
	_Atomic uint64_t handled, handoffs;
};

struct dpk_distributor {
	/* Set at create, read by every thread: alone on its line pair, so that the workers'
	 * reads never meet the distributor's writes. */
	unsigned nworkers;
	unsigned burst;        /* packets per hand-off: 1 or BURST */
	unsigned filter_shift; /* 32 - log2(filter size) */
	enum dpk_distributor_mode mode;
	uint64_t all_mask; /* one bit per worker id */

	/* Distributor thread only. */
	_Alignas(LINE_PAIR) uint64_t active_mask; /* taking part */
	uint64_t ready_mask;                      /* D_READY */
	uint64_t full_mask;                       /* backlog full */
	uint64_t held_mask;                       /* returns waiting for room */
	unsigned nactive;
	unsigned sole;   /* the one worker taking part, or NO_WORKER */
	unsigned cur;    /* burst mode: the backlog being filled; single: last chosen */
	unsigned leaves; /* leaves that sent backlog packets to pending */
	unsigned inflight;
	unsigned ret_head, ret_count;
	unsigned pend_head, pend_count;

	/* Counters and a snapshot for other threads (see the file comment). */
	_Alignas(LINE_PAIR) _Atomic uint64_t distributed, returned, returns_full;
	_Atomic uint64_t active_pub; /* active_mask */
	_Atomic unsigned inflight_pub, returns_pub, blocked_pub;

	struct line lines[WMAX];
	struct wpriv wpriv[WMAX];
	struct dworker dw[WMAX];
	_Alignas(DPK_CACHE_LINE) uint32_t filter[FILTER_MAX];
	struct dpk_packet *ret[RETURNS];
	struct dpk_packet *pending[PENDING]; /* ring: backlogs of workers that left */
};

/*
 * A wait step for the loops below: pause, and give the CPU away now and then, so a
 * distributor or worker sharing its CPU with the thread it waits for (an oversubscribed
 * placement) lets that thread run instead of burning its whole time slice.
 */
static inline void relax(unsigned *spins)
{
	if (++*spins % 1024 == 0)
		sched_yield();
	else
		dpk_pause();
}
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
	for (unsigned i = 0; i < BURST + BACKLOG; i++)
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

static void update_sole(struct dpk_distributor *d)
{
	d->sole = d->nactive == 1 ? lowest(d->active_mask) : NO_WORKER;
}

/* Put @p p (tag @p t) at the end of worker @p w's backlog, which has room. */
static inline void append(struct dpk_distributor *d, unsigned w, struct dpk_packet *p, uint32_t t)
{
	struct dworker *dw = &d->dw[w];
	unsigned pos = (dw->bl_head + dw->bl_count) & (BACKLOG - 1);
	uint32_t *b = bucket(d, t);

	dw->bl[pos] = p;
	dw->tags[BURST + pos] = t;
	dw->valid[BURST + pos] = UINT32_MAX;
	if (++dw->bl_count == BACKLOG)
		d->full_mask |= bit(w);
	*b = ((*b + COUNT_ONE) & ~0xffu) | w;
}

/* Hand worker @p w (D_READY) the next packets of its backlog, possibly none. */
static void deliver(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];
	struct line *l = &d->lines[w];
	unsigned k = dw->bl_count < d->burst ? dw->bl_count : d->burst;
	unsigned head = dw->bl_head;
	uintptr_t w0 = k ? (uintptr_t)dw->bl[head] : 0;

	for (unsigned i = 0; i < k; i++) {
		unsigned pos = (head + i) & (BACKLOG - 1);

		dw->tags[i] = dw->tags[BURST + pos];
		dw->valid[i] = UINT32_MAX;
		dw->valid[BURST + pos] = 0;
	}
	for (unsigned i = 1; i < k; i++)
		l->slot[i - 1] = (uintptr_t)dw->bl[(head + i) & (BACKLOG - 1)];
	if (k > 0 && k < BURST)
		l->slot[k - 1] = 0;
	dw->bl_head = (head + k) & (BACKLOG - 1);
	dw->bl_count -= k;
	dw->line_count = k;
	dw->state = D_BUSY;
	d->full_mask &= ~bit(w);
	d->ready_mask &= ~bit(w);
	bump(&dw->handled, k);
	bump(&dw->handoffs, 1);
	/* R2: pairs with A2 in poll_pkt() / get_pkt(); the slots and the packets are written. */
	atomic_store_explicit(&l->word0, w0, memory_order_release);
}

/* The packets of worker @p w's current hand-off are done. */
static void complete(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];

	for (unsigned i = 0; i < dw->line_count; i++) {
		*bucket(d, dw->tags[i]) -= COUNT_ONE;
		dw->valid[i] = 0;
	}
	d->inflight -= dw->line_count;
	dw->line_count = 0;
}

/* Worker @p w stops taking part; its backlog goes to the front of pending, in order. */
static void leave(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];
	unsigned k = dw->bl_count;

	dw->state = D_OUT;
	if (!(d->active_mask & bit(w)))
		return;
	d->active_mask &= ~bit(w);
	d->ready_mask &= ~bit(w);
	d->full_mask &= ~bit(w);
	d->nactive--;
	update_sole(d);
	if (k == 0)
		return;
	/* Pending packets are later than any packet in flight of the same flow, so the
	 * backlog (earlier packets of its flows) goes in front of them. */
	d->pend_head = (d->pend_head - k) & (PENDING - 1);
	for (unsigned i = 0; i < k; i++) {
		unsigned pos = (dw->bl_head + i) & (BACKLOG - 1);

		d->pending[(d->pend_head + i) & (PENDING - 1)] = dw->bl[pos];
		*bucket(d, dw->tags[BURST + pos]) -= COUNT_ONE;
		dw->valid[BURST + pos] = 0;
	}
	d->pend_count += k;
	dw->bl_head = 0;
	dw->bl_count = 0;
	d->leaves++;
}

static void join(struct dpk_distributor *d, unsigned w)
{
	d->active_mask |= bit(w);
	d->nactive++;
	update_sole(d);
}

/*
 * Look at worker @p w's line: take a request in (its returns, then the next hand-off from
 * the backlog) or a leave. Returns true when something changed.
 */
static bool service(struct dpk_distributor *d, unsigned w)
{
	struct dworker *dw = &d->dw[w];
	struct line *l = &d->lines[w];
	uintptr_t w0;
	unsigned k = 0;

	if (dw->state == D_READY)
		return false;
	if (dw->state != D_HELD) {
		/* A1: pairs with R1 in post(); the returns are in the slots and the worker is
		 * done with its last hand-off. */
		w0 = atomic_load_explicit(&l->word0, memory_order_acquire);
		if ((w0 & F_MASK) == 0)
			return false;
		dw->word0 = w0;
		dw->state = D_HELD;
	}
	w0 = dw->word0;
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
	if (k > 0) {
		unsigned tail = d->ret_head + d->ret_count;

		d->ret[tail & (RETURNS - 1)] = (struct dpk_packet *)(w0 & ~F_MASK);
		for (unsigned i = 1; i < k; i++)
			d->ret[(tail + i) & (RETURNS - 1)] = (struct dpk_packet *)l->slot[i - 1];
		d->ret_count += k;
		bump(&d->returned, k);
	}
	complete(d, w);
	if (w0 & F_RET) {
		leave(d, w);
		/* R2: pairs with A2 in line_free(); the returns have been read. */
		atomic_store_explicit(&l->word0, 0, memory_order_release);
		return true;
	}
	if (!(d->active_mask & bit(w)))
		join(d, w);
	dw->state = D_READY;
	d->ready_mask |= bit(w);
	if (dw->bl_count > 0)
		deliver(d, w);
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

struct dpk_distributor *dpk_distributor_create(unsigned workers, enum dpk_distributor_mode mode)
{
	struct dpk_distributor *d;
	unsigned buckets = 64;

	if (workers == 0 || workers > WMAX) {
		dpk__set_error("distributor: %u workers is not in 1..%u", workers, WMAX);
		errno = EINVAL;
		return NULL;
	}
	if (mode != DPK_DISTRIBUTOR_SINGLE && mode != DPK_DISTRIBUTOR_BURST) {
		dpk__set_error("distributor: unknown mode %d", (int)mode);
		errno = EINVAL;
		return NULL;
	}
	d = aligned_alloc(LINE_PAIR, (sizeof(*d) + LINE_PAIR - 1) / LINE_PAIR * LINE_PAIR);
	if (d == NULL) {
		dpk__set_error("distributor: cannot allocate %zu bytes", sizeof(*d));
		errno = ENOMEM;
		return NULL;
	}
	memset(d, 0, sizeof(*d));
	while (buckets < workers * (BURST + BACKLOG) * 4)
		buckets *= 2;
	d->nworkers = workers;
	d->mode = mode;
	d->burst = mode == DPK_DISTRIBUTOR_BURST ? BURST : 1;
	d->filter_shift = 32 - (unsigned)__builtin_ctz(buckets);
	d->all_mask = workers == 64 ? UINT64_MAX : bit(workers) - 1;
	d->sole = NO_WORKER;
	for (unsigned w = 0; w < workers; w++) {
		atomic_init(&d->lines[w].word0, 0);
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
	return d;
}

void dpk_distributor_free(struct dpk_distributor *d)
{
	free(d);
}

int dpk_distributor_process(struct dpk_distributor *d, struct dpk_packet *const *pkts, unsigned n)
{
	unsigned taken;

	if (d == NULL || (n > 0 && pkts == NULL) || n > INT_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (pkts[i] == NULL)
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

/* True when @p olds[0..n-1] is a valid list of packets to hand back. */
static bool olds_ok(struct dpk_packet *const *olds, unsigned n)
{
	if (n > BURST || (n > 0 && olds == NULL))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (olds[i] == NULL)
			return false;
	return true;
}

/* True when the worker owns its line (the distributor has taken in its last leave). */
static bool line_free(struct line *l)
{
	/* A2: pairs with R2 in service() after a leave; the returns were read. */
	return (atomic_load_explicit(&l->word0, memory_order_acquire) & F_MASK) == 0;
}

/* Write @p n returns and @p flag into the worker's line and give it to the distributor. */
static void post(struct line *l, struct dpk_packet *const *olds, unsigned n, uintptr_t flag)
{
	uintptr_t w0 = (n > 0 ? (uintptr_t)olds[0] : 0) | flag;

	for (unsigned i = 1; i < n; i++)
		l->slot[i - 1] = (uintptr_t)olds[i];
	if (n > 0 && n < BURST)
		l->slot[n - 1] = 0;
	/* R1: pairs with A1 in service(); the returns are in the slots. */
	atomic_store_explicit(&l->word0, w0, memory_order_release);
}

/* Copy the packets of an answered request (word 0 read as @p w0) into @p pkts. */
static int unpack(const struct line *l, uintptr_t w0, struct dpk_packet **pkts)
{
	unsigned k = 1;

	if (w0 == 0)
		return 0;
	pkts[0] = (struct dpk_packet *)w0;
	while (k < BURST && l->slot[k - 1] != 0) {
		pkts[k] = (struct dpk_packet *)l->slot[k - 1];
		k++;
	}
	return (int)k;
}

int dpk_distributor_request_pkt(struct dpk_distributor *d, unsigned w,
                                struct dpk_packet *const *oldpkts, unsigned nold)
{
	struct wpriv *wp;

	if (d == NULL || w >= d->nworkers || !olds_ok(oldpkts, nold))
		return -EINVAL;
	wp = &d->wpriv[w];
	if (wp->state == W_REQUESTED || (wp->state == W_OUT && !line_free(&d->lines[w])))
		return -EBUSY;
	post(&d->lines[w], oldpkts, nold, F_REQ);
	wp->state = W_REQUESTED;
	return 0;
}

int dpk_distributor_poll_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts)
{
	struct line *l;
	uintptr_t w0;

	if (d == NULL || w >= d->nworkers || pkts == NULL || d->wpriv[w].state != W_REQUESTED)
		return -EINVAL;
	l = &d->lines[w];
	/* A2: pairs with R2 in deliver(); the slots and the packets are written. */
	w0 = atomic_load_explicit(&l->word0, memory_order_acquire);
	if (w0 & F_MASK)
		return -EAGAIN;
	d->wpriv[w].state = W_HOLDING;
	return unpack(l, w0, pkts);
}

int dpk_distributor_get_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts,
                            struct dpk_packet *const *oldpkts, unsigned nold)
{
	struct wpriv *wp;
	struct line *l;
	uintptr_t w0;
	unsigned spins = 0;

	if (d == NULL || w >= d->nworkers || pkts == NULL || !olds_ok(oldpkts, nold))
		return -EINVAL;
	wp = &d->wpriv[w];
	l = &d->lines[w];
	if (wp->state == W_REQUESTED)
		return -EBUSY;
	if (wp->state == W_OUT)
		while (!line_free(l))
			relax(&spins);
	post(l, oldpkts, nold, F_REQ);
	wp->state = W_REQUESTED;
	/* A2: pairs with R2 in deliver(); the slots and the packets are written. */
	while ((w0 = atomic_load_explicit(&l->word0, memory_order_acquire)) & F_MASK)
		relax(&spins);
	wp->state = W_HOLDING;
	return unpack(l, w0, pkts);
}

int dpk_distributor_return_pkt(struct dpk_distributor *d, unsigned w,
                               struct dpk_packet *const *oldpkts, unsigned n)
{
	struct wpriv *wp;

	if (d == NULL || w >= d->nworkers || !olds_ok(oldpkts, n))
		return -EINVAL;
	wp = &d->wpriv[w];
	if (wp->state == W_REQUESTED)
		return -EBUSY;
	if (wp->state == W_OUT) {
		if (n == 0)
			return 0;
		if (!line_free(&d->lines[w]))
			return -EBUSY;
	}
	post(&d->lines[w], oldpkts, n, F_RET);
	wp->state = W_OUT;
	return 0;
}

int dpk_distributor_stats_get(const struct dpk_distributor *d, struct dpk_distributor_stats *st)
{
	uint64_t handoffs = 0;

	if (d == NULL || st == NULL)
		return -EINVAL;
	/* Relaxed loads: a snapshot of single-writer values (see the file comment). */
	for (unsigned w = 0; w < d->nworkers; w++)
		handoffs += atomic_load_explicit(&d->dw[w].handoffs, memory_order_relaxed);
	st->distributed = atomic_load_explicit(&d->distributed, memory_order_relaxed);
	st->returned = atomic_load_explicit(&d->returned, memory_order_relaxed);
	st->handoffs = handoffs;
	st->returns_full = atomic_load_explicit(&d->returns_full, memory_order_relaxed);
	st->in_flight = atomic_load_explicit(&d->inflight_pub, memory_order_relaxed);
	st->returns = atomic_load_explicit(&d->returns_pub, memory_order_relaxed);
	st->active_workers = (unsigned)__builtin_popcountll(
	        atomic_load_explicit(&d->active_pub, memory_order_relaxed));
	st->blocked_workers = atomic_load_explicit(&d->blocked_pub, memory_order_relaxed);
	return 0;
}

int dpk_distributor_worker_stats_get(const struct dpk_distributor *d, unsigned w,
                                     struct dpk_distributor_worker_stats *st)
{
	if (d == NULL || st == NULL || w >= d->nworkers)
		return -EINVAL;
	/* Relaxed loads: a snapshot of single-writer values (see the file comment). */
	st->handled = atomic_load_explicit(&d->dw[w].handled, memory_order_relaxed);
	st->handoffs = atomic_load_explicit(&d->dw[w].handoffs, memory_order_relaxed);
	st->active = (atomic_load_explicit(&d->active_pub, memory_order_relaxed) >> w) & 1;
	return 0;
}
