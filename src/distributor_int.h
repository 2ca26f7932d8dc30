/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet distributor's internals, shared by distributor.c (the distributor thread's
 * side: process, returns, flush) and distributor_worker.c (the workers' calls and the
 * counters). Never installed.
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

#endif /* DPK_DISTRIBUTOR_INT_H */
