/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet distributor's internals, shared by distributor.c (the distributor thread's
 * side: process, returns, flush) and distributor_worker.c (the workers' calls and the
 * counters). Never installed.
 *
 * Lines of a worker, each a 64-byte line alone on its line pair, each with word 0 and seven
 * slots: word 0 holds the first packet pointer, the slots the next ones, ended by a 0 slot
 * when fewer than eight. Packet pointers are at least 4-aligned, so the two low bits of
 * word 0 are free for flags.
 *   request lines rq[0] and rq[1] (worker to distributor): word 0 is 0 while the worker
 *     owns one. The worker writes its returns and F_REQ (asks for packets) or F_RET
 *     (leaves), so giving it to the distributor, which takes the returns in and writes 0
 *     back. Burst mode uses the two in turn; single mode only rq[0].
 *   hand-off line ho (distributor to worker, burst mode): word 0 is 0 while the
 *     distributor owns it. The distributor writes the packets of a hand-off (H_NONE: an
 *     empty one, from flush), so giving it to the worker, which copies them out and
 *     writes 0 back.
 * Burst mode: the distributor writes a worker's next full hand-off as soon as the worker
 * has copied the current one out, so a worker that asks again usually finds its packets
 * already there instead of waiting a round trip for them. Between two requests a worker
 * takes exactly one hand-off, so each request but a joining one completes the oldest
 * hand-off the distributor counts as outstanding, and at most two are: the one being
 * worked on and the one written ahead. The distributor writes ahead only once it has taken
 * in every request the worker posted before its last take (it reads ho, then rq: A4 then
 * A1); so whatever hand-off a worker holds, the request line its next request goes to
 * (the one before last) is free, and the worker never reads it to find out.
 * Single mode writes nothing ahead: with one packet per hand-off, the two more line
 * transfers a hand-off line costs weigh more than the wait they save
 * (docs/distributor.md). The hand-off comes back in rq[0] itself, over the request (flags
 * clear: the worker owns the line again; word 0 = 0: an empty hand-off), one line round
 * trip per hand-off, and the distributor clears the line only after a leave.
 * Each side writes the slots first and word 0 last, with a release store; the other side
 * reads word 0 with an acquire load and only then the slots.
 *
 * Memory orders, paired:
 *   R1 (release store of rq word 0 in post(), by request_pkt, get_pkt and return_pkt)
 *      pairs with A1 (acquire load of rq word 0 in service()): the returns in the slots,
 *      and all the worker did with the packets it hands back (and, burst mode, its R4 of
 *      the hand-off it took before), happen before the distributor reads the slots and
 *      hands those packets to the application.
 *   R2 (release store of ho word 0 in deliver(); single mode: of rq[0]) pairs with A2
 *      (acquire load of the same word in take()): the packet pointers in the slots, and
 *      whatever the application wrote into those packets before process(), happen before
 *      the worker reads them; in burst mode also the distributor's R3 of the request line
 *      the worker's next request goes to.
 *   R3 (release store of rq word 0 = 0 in take_request(); single mode: after a leave only)
 *      pairs with A3 (acquire loads in rq_free(), by a worker coming back after a leave):
 *      the distributor's reads of the returns, and its clearing of the hand-off line
 *      (relaxed, in reclaim()), happen before the worker writes its lines again.
 *   R4 (release store of ho word 0 = 0 in take(); burst mode) pairs with A4 (acquire load
 *      of ho word 0 in ho_check()): the worker's reads of the slots happen before the
 *      distributor writes the next hand-off into them.
 *   Counters and the published snapshot are relaxed: each has one writer, the distributor
 *   thread, which updates it with a load and a store; readers get a snapshot and read
 *   nothing through it.
 *
 * Distributor-side state of a worker (struct dworker, distributor thread only):
 *   D_OUT   not taking part
 *   D_BUSY  taking part, no request waiting: the worker has a hand-off (maybe empty), or
 *           one written ahead is on its way
 *   D_READY taking part, its request taken in, nothing outstanding: it waits for packets
 *   D_HELD  a request (or leave) seen whose returns have not been taken in yet: there was
 *           no room for them in the returns buffer
 * tags[0..15] are the tags of the packets of the outstanding hand-offs (a ring of two
 * blocks of eight from ho_head), tags[16..23] those of the backlog (a ring of 8 from
 * bl_head); valid[i] is all ones where tags[i] is in flight, 0 elsewhere, so that a match
 * is a short loop the compiler vectorises.
 *
 * Finding the worker of a tag: filter[] counts the packets in flight per hash of their tag
 * (bits 8..31) and remembers the worker that last got one (bits 0..7). A count of 0 means
 * the tag is not in flight; otherwise the hinted worker's tags are checked, then, if the
 * hint is wrong (another tag with the same hash moved it), every worker's. The table has
 * at least four buckets per packet that can be in flight. The filter is kept only while
 * no worker is sole: with exactly one worker taking part every packet goes to it, so the
 * table stays empty, and it is rebuilt from the tags in flight (valid[]) when that worker
 * stops being the only one.
 */
#ifndef DPK_DISTRIBUTOR_INT_H
#define DPK_DISTRIBUTOR_INT_H

#include <assert.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include <dpk/cycles.h>
#include <dpk/distributor.h>
#include <dpk/packet.h>

/* Per-worker structures are a line pair apart: Intel's adjacent-line prefetcher moves
 * aligned pairs of lines, and one worker's line must not drag another's along. */
#define LINE_PAIR (2 * DPK_CACHE_LINE)

#define BURST      DPK_DISTRIBUTOR_BURST_SIZE
#define BACKLOG    DPK_DISTRIBUTOR_BACKLOG
#define RETURNS    DPK_DISTRIBUTOR_RETURNS
#define WMAX       DPK_DISTRIBUTOR_WORKERS_MAX
#define PENDING    (WMAX * BACKLOG)
#define TAGS       (2 * BURST + BACKLOG) /* tags[] of a worker: two hand-offs, backlog */
#define BL_TAGS    (2 * BURST)           /* the backlog's first tag */
#define FILTER_MAX 8192u                 /* the power of two at or above WMAX * TAGS * 4 buckets */

#define F_REQ  ((uintptr_t)1) /* word 0: the worker asks for packets */
#define F_RET  ((uintptr_t)2) /* word 0: the worker leaves */
#define F_MASK (F_REQ | F_RET)
#define H_NONE ((uintptr_t)1) /* ho word 0: an empty hand-off */

#define NO_WORKER UINT_MAX
#define COUNT_ONE (1u << 8) /* one packet in a filter entry */

static_assert(_Alignof(struct dpk_packet) >= 4, "packet pointers need two free low bits");
static_assert(BURST == 8 && BACKLOG == 8, "the tag arrays are laid out for 8 + 8 + 8");
static_assert((RETURNS & (RETURNS - 1)) == 0, "the returns ring is a power of two");
static_assert(WMAX <= 64, "worker sets are 64-bit masks");
static_assert(WMAX <= 256, "filter hints are 8 bits");
static_assert(FILTER_MAX >= WMAX * TAGS * 4 && FILTER_MAX / 2 < WMAX * TAGS * 4 &&
                      (FILTER_MAX & (FILTER_MAX - 1)) == 0,
              "create() rounds the filter up to a power of two");

enum dstate { D_OUT, D_BUSY, D_READY, D_HELD };
enum wstate { W_OUT, W_REQUESTED, W_HOLDING };

/* A request or hand-off line of one worker (see the file comment). */
struct line {
	_Alignas(LINE_PAIR) _Atomic uintptr_t word0;
	uintptr_t slot[BURST - 1];
};
static_assert(sizeof(struct line) == LINE_PAIR, "one line per pair");

/* Worker-side state, written by the worker's thread only. */
struct wpriv {
	_Alignas(LINE_PAIR) enum wstate state;
	unsigned rq_next; /* the request line of the next request */
};

/* Distributor-side state of one worker, written by the distributor thread only. */
struct dworker {
	_Alignas(LINE_PAIR) uint32_t tags[TAGS];
	uint32_t valid[TAGS];
	struct dpk_packet *bl[BACKLOG]; /* backlog ring */
	uintptr_t word0;                /* rq word 0 as read, while D_HELD */
	enum dstate state;
	unsigned bl_head, bl_count;
	unsigned rq_next;           /* the request line the next request comes in */
	unsigned ho_head, ho_count; /* outstanding hand-offs: a ring of two blocks of tags */
	unsigned ho_len[2];         /* packets of each */
	bool ho_full;               /* the hand-off line holds a hand-off not seen taken */
	bool blocked;               /* returns waiting for room, already counted */
	_Atomic uint64_t handled, handoffs;
};

struct dpk_distributor {
	/* Set at create, read by every thread: alone on its line pair, so that the workers'
	 * reads never meet the distributor's writes. */
	unsigned nworkers;
	unsigned burst;        /* packets per hand-off: 1 or BURST */
	bool ahead;            /* hand-offs are written ahead (burst mode) */
	unsigned filter_shift; /* 32 - log2(filter size) */
	enum dpk_distributor_mode mode;
	uint64_t all_mask; /* one bit per worker id */
	bool owned;        /* dpk_distributor_create()'s memory, which free() gives back */

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

	struct line rq[WMAX][2]; /* request lines, used in turn */
	struct line ho[WMAX];    /* hand-off lines */
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

/* The line worker @p w's hand-offs come in: its hand-off line when they are written ahead
 * (burst mode), else its request line 0, which then carries both ways. */
static inline struct line *ho_line(struct dpk_distributor *d, unsigned w)
{
	return d->ahead ? &d->ho[w] : &d->rq[w][0];
}

#endif /* DPK_DISTRIBUTOR_INT_H */
