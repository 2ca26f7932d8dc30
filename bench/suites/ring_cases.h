/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_cases.h - the ring cases, written once and instantiated per ring implementation,
 * so dpkit's ring and a reference ring (DPDK's rte_ring) run the very same bodies under
 * the same harness.
 *
 * An implementation defines its operations under the names RING_IMPLEMENT() lists (each
 * takes a struct ring_use pointer, a buffer and, for bulk and burst, a count; bulk and
 * burst return the count moved, single returns 0 on success; ring_cases_zc.h describes the
 * zero-copy ones), expands RING_IMPLEMENT(prefix) for its bodies, and RING_CASES(prefix,
 * setup, teardown) in its table. Its setup allocates the ring with the flags of the case's
 * mode and hands the rest to ring_setup_state().
 *
 * Cases here (one operation = one element enqueued and dequeued, unless stated):
 *   M_single           single-element calls, one lcore
 *   M_bulk / M_burst   n in {1, 8, 32, 128}, one lcore
 *   M_empty_dequeue    bulk dequeue of 8 from an empty ring; one operation = one call
 *   M_pair_bulk        producer lcore -> consumer lcore, n in {1, 8, 32, 128}; figure =
 *                      the consumer's cost per element received
 *   mpmc_all_bulk      every worker bulk-enqueues then bulk-dequeues one shared ring
 * each for 8- and 16-byte elements; the RTS and HTS modes, calls as users make them, the
 * pair regimes and zero copy are in the headers named above.
 *
 * In the one-lcore bodies n (the elements per call) comes from the case's argument at run
 * time and the ring's calls are inlined into the loop; ring_cases_user.h has the calls
 * made through function pointers.
 *
 * Invariants checked while timing: bulk calls return n, an empty dequeue returns 0, the
 * first and last element of every call carry the expected sequence number, and at
 * teardown the counts balance.
 */
#ifndef DPK_BENCH_RING_CASES_H
#define DPK_BENCH_RING_CASES_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <dpk/cycles.h>

#include <dpk/bench.h>

#define RING_SLOTS 4096u
#define RING_NMAX  128u

/* The sync mode of both sides: SP/SC, MP/MC, RTS or HTS. */
enum ring_mode { RING_SPSC, RING_MPMC, RING_RTS, RING_HTS, RING_NMODES };
enum ring_op { RING_OP_SINGLE, RING_OP_BULK, RING_OP_BURST, RING_OP_EMPTY };

struct ring_arg {
	enum ring_mode mode;
	enum ring_op op;
	unsigned esize; /* 8 to 128 */
	unsigned n;     /* elements per call */
	unsigned fill;  /* elements enqueued at setup: 0, or RING_FILL_FULL or _HALF */
};

/* Prefills: as many whole calls of n as the capacity (or half of it) holds. */
#define RING_FILL_FULL 1u
#define RING_FILL_HALF 2u

/*
 * Calls as users make them (ring_cases_user.h): through a pointer to a wrapper the
 * compiler cannot inline, with the count known only at run time. Each implementation
 * gives one set per mode, for 8-byte elements.
 */
typedef unsigned (*ring_enq_fn)(void *r, const void *objs, unsigned n);
typedef unsigned (*ring_deq_fn)(void *r, void *objs, unsigned n);

struct ring_fns {
	ring_enq_fn enq_bulk, enq_burst;
	ring_deq_fn deq_bulk, deq_burst;
};

/* One role's private buffers, on their own cache lines. */
struct ring_role {
	_Alignas(64) uint64_t in[RING_NMAX * 2];
	uint64_t out[RING_NMAX * 2];
	uint64_t seq; /* next sequence to send or expect */
	uint64_t enq; /* elements enqueued by this role */
	uint64_t deq; /* elements dequeued by this role */
};

/*
 * What the operations read: the implementation's ring and the element size. A body copies
 * it into a local. The ring's copies store through pointers the compiler must assume alias
 * anything, so fields read through the state, and a sequence number kept in it, would be
 * loaded again after every call: a store-to-load chain of the harness's own in every
 * operation's timing. Copied into locals (and, in the one-lcore bodies, the sequence kept
 * in one), they stay in registers. The multi-lcore bodies keep their counts (and the pair
 * its sequence) in the role, updated once per call of n elements, where a cross-core
 * hand-off dwarfs them. The operations take a pointer to the copy; its address goes
 * nowhere else.
 */
struct ring_use {
	void *r;        /* the implementation's ring */
	unsigned esize; /* bytes per element */
};

struct ring_state {
	struct ring_use use;
	const struct ring_arg *a;
	unsigned words;             /* 64-bit words per element */
	const struct ring_fns *fns; /* the calls of the case's mode, out of line */
	/* Elements the consumer of a hand-off case has taken, which the producer waits for:
	 * on a line pair of its own, allocated after the ring so that the state and the ring
	 * lie where they did before it was added. */
	uint64_t *taken;
	struct ring_role role[];
};

/* The roles start where they did before the state grew, on the line after the fields. */
_Static_assert(offsetof(struct ring_state, role) == 64, "the state's fields fill one line");

/*
 * Stamp the first and last element of a call with their sequence numbers; one store when
 * they are one element. Two stores to one word just before the call reads it put a
 * store-forwarding hazard of the harness's own into every call of one element, which can
 * outweigh the call and weigh on two rings unalike (docs/ring.md, "2026-12-02: one element
 * on a Zen 2 guest").
 */
static inline void ring_stamp(uint64_t *buf, unsigned words, unsigned n, uint64_t seq)
{
	buf[0] = seq;
	if (n > 1)
		buf[(size_t)(n - 1) * words] = seq + n - 1;
}

static inline int ring_check(const uint64_t *buf, unsigned words, unsigned n, uint64_t seq)
{
	return buf[0] == seq && buf[(size_t)(n - 1) * words] == seq + n - 1;
}

/* Teardown check shared by every ring implementation: what was enqueued and not dequeued
 * is what the ring still holds (@p left, read from the implementation). */
static inline void ring_check_balance(struct dpk_bench_run *run, const struct ring_state *st,
                                      unsigned left)
{
	uint64_t enq = 0, deq = 0;

	for (unsigned i = 0; i < run->nroles; i++) {
		enq += st->role[i].enq;
		deq += st->role[i].deq;
	}
	if (enq - deq != left)
		dpk_bench_fail(run, "elements enqueued %llu - dequeued %llu != %u left in the ring",
		               (unsigned long long)enq, (unsigned long long)deq, left);
}

/*
 * The set-up every implementation shares, after it has made the ring @p r of @p cap
 * usable slots: the state's fields, the calls of the mode from @p fns (indexed by mode),
 * and the prefill the case asks for, made of single elements numbered from 0 through the
 * out-of-line bulk call. Returns 0 or -errno.
 */
static inline int ring_setup_state(struct dpk_bench_run *run, struct ring_state *st, void *r,
                                   unsigned cap, const struct ring_fns *fns)
{
	const struct ring_arg *a = run->c->arg;
	struct ring_role *prod = &st->role[0];
	unsigned fill = 0;

	st->use.r = r;
	st->use.esize = a->esize;
	st->a = a;
	st->words = a->esize / 8;
	st->fns = &fns[a->mode];
	st->taken = dpk_bench_alloc(run, 128, 128);
	if (!st->taken)
		return -ENOMEM;
	if (a->fill == RING_FILL_FULL)
		fill = cap / a->n * a->n;
	else if (a->fill == RING_FILL_HALF)
		fill = cap / 2 / a->n * a->n;
	/* The wrappers move 8-byte elements. */
	if (fill && a->esize != 8)
		return -EINVAL;
	for (unsigned i = 0; i < fill; i++) {
		prod->in[0] = i;
		if (st->fns->enq_bulk(r, prod->in, 1) != 1)
			return -ENOSPC;
	}
	prod->seq = prod->enq = fill;
	run->state = st;
	return 0;
}

/* Wait while @p cond holds, polling stop: returns from the body with @p done if it is
 * raised. */
#define RING_WAIT_WHILE(run, cond, done)                                                           \
	while (cond) {                                                                             \
		if (dpk_bench_stopped(run))                                                        \
			return done;                                                               \
		dpk_pause();                                                                       \
	}

/* Fail the case and return @p done from the body unless @p ok: the consumer's elements did
 * not carry the numbers from rr->seq on. */
#define RING_RECEIVED_OR_FAIL(run, rr, ok, done)                                                   \
	if (!(ok)) {                                                                               \
		dpk_bench_fail(run, "consumer expected %llu, got %llu",                            \
		               (unsigned long long)(rr)->seq, (unsigned long long)(rr)->out[0]);   \
		return done;                                                                       \
	}

/* Enqueue then dequeue n elements a call of b at a time (bulk or burst calls). */
#define RING_CALLS_BODY(NAME, L, ENQ, DEQ, WHAT)                                                   \
	DPK_BENCH_CODE_AT(L)                                                                       \
	static uint64_t NAME##_##L(struct dpk_bench_run *run, unsigned role, uint64_t n)           \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		const unsigned b = st->a->n, w = st->words;                                        \
		uint64_t seq = rr->seq, i;                                                         \
		for (i = 0; i < n; i += b) {                                                       \
			ring_stamp(rr->in, w, b, seq);                                             \
			if (ENQ(&u, rr->in, b) != b || DEQ(&u, rr->out, b) != b ||                 \
			    !ring_check(rr->out, w, b, seq)) {                                     \
				dpk_bench_fail(run, WHAT " of %u at %llu not moved intact", b,     \
				               (unsigned long long)seq);                           \
				break;                                                             \
			}                                                                          \
			seq += b;                                                                  \
		}                                                                                  \
		rr->seq = seq;                                                                     \
		rr->enq += i;                                                                      \
		rr->deq += i;                                                                      \
		return i;                                                                          \
	}

/* Pair: role 0 produces, role 1 consumes, n a call (bulk calls, as the case's n); both poll
 * stop while blocked. */
#define RING_PAIR_BODY(NAME, ENQB, DEQB)                                                           \
	static uint64_t NAME(struct dpk_bench_run *run, unsigned role, uint64_t n)                 \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		const unsigned b = st->a->n, w = st->words;                                        \
		uint64_t done = 0;                                                                 \
		if (role == 0) {                                                                   \
			while (done < n) {                                                         \
				ring_stamp(rr->in, w, b, rr->seq);                                 \
				RING_WAIT_WHILE(run, ENQB(&u, rr->in, b) == 0, done)               \
				rr->seq += b;                                                      \
				rr->enq += b;                                                      \
				done += b;                                                         \
			}                                                                          \
		} else {                                                                           \
			while (done < n) {                                                         \
				RING_WAIT_WHILE(run, DEQB(&u, rr->out, b) == 0, done)              \
				RING_RECEIVED_OR_FAIL(run, rr, ring_check(rr->out, w, b, rr->seq), \
				                      done)                                        \
				rr->seq += b;                                                      \
				rr->deq += b;                                                      \
				done += b;                                                         \
			}                                                                          \
		}                                                                                  \
		return done;                                                                       \
	}

/* The one-lcore bodies of one mode at code offset L (see DPK_BENCH_CODE_AT()). */
#define RING_ONE_LCORE_BODIES(P, M, L, ENQ1, DEQ1, ENQB, DEQB, ENQS, DEQS)                         \
	DPK_BENCH_CODE_AT(L)                                                                       \
	static uint64_t P##_##M##_single_##L(struct dpk_bench_run *run, unsigned role, uint64_t n) \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		uint64_t seq = rr->seq, i;                                                         \
		for (i = 0; i < n; i++) {                                                          \
			rr->in[0] = seq;                                                           \
			if (ENQ1(&u, rr->in) != 0 || DEQ1(&u, rr->out) != 0 ||                     \
			    rr->out[0] != seq) {                                                   \
				dpk_bench_fail(run, "single element %llu lost or changed",         \
				               (unsigned long long)seq);                           \
				break;                                                             \
			}                                                                          \
			seq++;                                                                     \
		}                                                                                  \
		rr->seq = seq;                                                                     \
		rr->enq += i;                                                                      \
		rr->deq += i;                                                                      \
		return i;                                                                          \
	}                                                                                          \
	RING_CALLS_BODY(P##_##M##_bulk, L, ENQB, DEQB, "bulk")                                     \
	RING_CALLS_BODY(P##_##M##_burst, L, ENQS, DEQS, "burst")                                   \
	DPK_BENCH_CODE_AT(L)                                                                       \
	static uint64_t P##_##M##_empty_##L(struct dpk_bench_run *run, unsigned role, uint64_t n)  \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		const unsigned b = st->a->n;                                                       \
		unsigned got = 0;                                                                  \
		for (uint64_t i = 0; i < n; i++)                                                   \
			got |= DEQB(&u, rr->out, b);                                               \
		if (got) {                                                                         \
			dpk_bench_fail(run, "dequeue from an empty ring returned elements");       \
			return 0;                                                                  \
		}                                                                                  \
		return n;                                                                          \
	}

/* Bodies for one mode. ENQ1/DEQ1(u, buf) -> 0 on success; ENQB/DEQB/ENQS/DEQS(u, buf, n)
 * -> count moved; u points to a struct ring_use. The one-lcore bodies come at every code
 * offset; the pair's roles run on lcores of their own, where a cross-core hand-off, not
 * the fetch of a short loop, sets the pace. */
#define RING_BODIES(P, M, ENQ1, DEQ1, ENQB, DEQB, ENQS, DEQS)                                      \
	RING_ONE_LCORE_BODIES(P, M, 0, ENQ1, DEQ1, ENQB, DEQB, ENQS, DEQS)                         \
	RING_ONE_LCORE_BODIES(P, M, 16, ENQ1, DEQ1, ENQB, DEQB, ENQS, DEQS)                        \
	RING_ONE_LCORE_BODIES(P, M, 32, ENQ1, DEQ1, ENQB, DEQB, ENQS, DEQS)                        \
	RING_ONE_LCORE_BODIES(P, M, 48, ENQ1, DEQ1, ENQB, DEQB, ENQS, DEQS)                        \
	RING_PAIR_BODY(P##_##M##_pair, ENQB, DEQB)

/* Every role enqueues a bulk then dequeues a bulk on the one shared ring. The elements it
 * gets back may be another role's, so only counts are checked. The stop flag is polled
 * between calls too: where two roles share a CPU a call can wait inside the ring for the
 * other's publication until the scheduler runs it, and a batch sized while the ring ran
 * freely would then outlast its slice many times over (docs/peers.md, "2026-12-03, later"). */
#define RING_SHARED_BODY(NAME, ENQB, DEQB)                                                         \
	static uint64_t NAME(struct dpk_bench_run *run, unsigned role, uint64_t n)                 \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		const unsigned b = st->a->n;                                                       \
		uint64_t done = 0;                                                                 \
		while (done < n && !dpk_bench_stopped(run)) {                                      \
			RING_WAIT_WHILE(run, ENQB(&u, rr->in, b) == 0, done)                       \
			rr->enq += b;                                                              \
			RING_WAIT_WHILE(run, DEQB(&u, rr->out, b) == 0, done)                      \
			rr->deq += b;                                                              \
			done += b;                                                                 \
		}                                                                                  \
		return done;                                                                       \
	}

/* All lcores on the MP/MC ring. */
#define RING_ALL_BODY(P, ENQB, DEQB) RING_SHARED_BODY(P##_mpmc_all, ENQB, DEQB)

/* Bulk or burst calls of one mode (ENQ, DEQ) at every code offset. */
#define RING_CALLS_LAYOUTS(NAME, ENQ, DEQ, WHAT)                                                   \
	RING_CALLS_BODY(NAME, 0, ENQ, DEQ, WHAT)                                                   \
	RING_CALLS_BODY(NAME, 16, ENQ, DEQ, WHAT)                                                  \
	RING_CALLS_BODY(NAME, 32, ENQ, DEQ, WHAT)                                                  \
	RING_CALLS_BODY(NAME, 48, ENQ, DEQ, WHAT)

#define RING_ARG(m, o, e, nn) RING_ARG_FILL(m, o, e, nn, 0)
#define RING_ARG_FILL(m, o, e, nn, f)                                                              \
	(&(const struct ring_arg){.mode = (m), .op = (o), .esize = (e), .n = (nn), .fill = (f)})

/* A one-lcore case's body at every code offset, the first also as its plain body. */
#define RING_LAYOUTS(NAME) .body = NAME##_0, .layouts = {NAME##_0, NAME##_16, NAME##_32, NAME##_48}

#define RING_CASE_SINGLE(P, SU, TD, m, M, e)                                                       \
	{                                                                                          \
		.name = #m "_single", .desc = "enqueue then dequeue of one element, single calls", \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ELEMENT, .params = {{"esize", e}},      \
		.setup = SU, RING_LAYOUTS(P##_##m##_single), .teardown = TD,                       \
		.arg = RING_ARG(M, RING_OP_SINGLE, e, 1)                                           \
	}

#define RING_CASE_CALLS(P, SU, TD, m, M, op, OP, e, nn)                                            \
	{                                                                                          \
		.name = #m "_" #op, .desc = "enqueue then dequeue of n elements, " #op " calls",   \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ELEMENT,                                \
		.params = {{"esize", e}, {"n", nn}}, .ops_multiple = nn, .setup = SU,              \
		RING_LAYOUTS(P##_##m##_##op), .teardown = TD, .arg = RING_ARG(M, OP, e, nn)        \
	}

#define RING_CASE_EMPTY(P, SU, TD, m, M, e)                                                        \
	{                                                                                          \
		.name = #m "_empty_dequeue", .desc = "bulk dequeue of 8 from an empty ring",       \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_CALL,                                   \
		.params = {{"esize", e}, {"n", 8}}, .setup = SU, RING_LAYOUTS(P##_##m##_empty),    \
		.teardown = TD, .arg = RING_ARG(M, RING_OP_EMPTY, e, 8)                            \
	}

#define RING_CASE_PAIR(P, SU, TD, m, M, e, nn)                                                     \
	{                                                                                          \
		.name = #m "_pair_bulk",                                                           \
		.desc = "elements handed from a producer to a consumer lcore",                     \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT,                                  \
		.params = {{"esize", e}, {"n", nn}}, .ops_multiple = nn, .counted_roles = 2,       \
		.role_names = {"producer", "consumer"}, .setup = SU, .body = P##_##m##_pair,       \
		.teardown = TD, .arg = RING_ARG(M, RING_OP_BULK, e, nn)                            \
	}

#define RING_CASE_ALL(P, SU, TD, e, nn)                                                            \
	{                                                                                          \
		.name = "mpmc_all_bulk",                                                           \
		.desc = "bulk enqueue then dequeue by every worker lcore", .kind = DPK_BENCH_ALL,  \
		.unit = DPK_UNIT_ELEMENT, .params = {{"esize", e}, {"n", nn}}, .ops_multiple = nn, \
		.setup = SU, .body = P##_mpmc_all, .teardown = TD,                                 \
		.arg = RING_ARG(RING_MPMC, RING_OP_BULK, e, nn)                                    \
	}

#define RING_CASES_ONE_LCORE(P, SU, TD, m, M, e)                                                   \
	RING_CASE_SINGLE(P, SU, TD, m, M, e),                                                      \
	        RING_CASE_CALLS(P, SU, TD, m, M, bulk, RING_OP_BULK, e, 1),                        \
	        RING_CASE_CALLS(P, SU, TD, m, M, bulk, RING_OP_BULK, e, 8),                        \
	        RING_CASE_CALLS(P, SU, TD, m, M, bulk, RING_OP_BULK, e, 32),                       \
	        RING_CASE_CALLS(P, SU, TD, m, M, bulk, RING_OP_BULK, e, 128),                      \
	        RING_CASE_CALLS(P, SU, TD, m, M, burst, RING_OP_BURST, e, 1),                      \
	        RING_CASE_CALLS(P, SU, TD, m, M, burst, RING_OP_BURST, e, 8),                      \
	        RING_CASE_CALLS(P, SU, TD, m, M, burst, RING_OP_BURST, e, 32),                     \
	        RING_CASE_CALLS(P, SU, TD, m, M, burst, RING_OP_BURST, e, 128),                    \
	        RING_CASE_EMPTY(P, SU, TD, m, M, e)

#define RING_CASES_PAIR(P, SU, TD, m, M, e)                                                        \
	RING_CASE_PAIR(P, SU, TD, m, M, e, 1), RING_CASE_PAIR(P, SU, TD, m, M, e, 8),              \
	        RING_CASE_PAIR(P, SU, TD, m, M, e, 32), RING_CASE_PAIR(P, SU, TD, m, M, e, 128)

#include "ring_cases_sync.h"
#include "ring_cases_user.h"
#include "ring_cases_zc.h"

/*
 * Every body and wrapper of an implementation with prefix P, made of the operations it
 * defines before expanding this: SP1 SC1 SPB SCB SPS SCS (SP/SC: single, bulk, burst),
 * MP1 MC1 MPB MCB MPS MCS (MP/MC), RPB RCB RPS RCS (RTS bulk and burst), HPB HCB HPS HCS
 * (HTS) and ZPS ZPF ZCS ZCF (zero copy on the SP/SC ring).
 */
#define RING_IMPLEMENT(P)                                                                          \
	RING_BODIES(P, spsc, SP1, SC1, SPB, SCB, SPS, SCS)                                         \
	RING_BODIES(P, mpmc, MP1, MC1, MPB, MCB, MPS, MCS)                                         \
	RING_ALL_BODY(P, MPB, MCB)                                                                 \
	RING_SYNC_BODIES(P, rts, RPB, RCB, RPS, RCS)                                               \
	RING_SYNC_BODIES(P, hts, HPB, HCB, HPS, HCS)                                               \
	RING_SHARED_BODY(P##_mpmc_shared, MPB, MCB)                                                \
	RING_FNS(P, spsc, SPB, SCB, SPS, SCS)                                                      \
	RING_FNS(P, mpmc, MPB, MCB, MPS, MCS)                                                      \
	RING_FNS(P, rts, RPB, RCB, RPS, RCS)                                                       \
	RING_FNS(P, hts, HPB, HCB, HPS, HCS)                                                       \
	RING_FNS_TABLE(P)                                                                          \
	RING_USER_BODIES(P, spsc, SPB, SCB)                                                        \
	RING_USER_BODIES(P, mpmc, MPB, MCB)                                                        \
	RING_ZC_BODIES(P, ZPS, ZPF, ZCS, ZCF, SPB, SCB)

/* The whole table, for an implementation with prefix P. */
#define RING_CASES(P, SU, TD)                                                                      \
	RING_CASES_ONE_LCORE(P, SU, TD, spsc, RING_SPSC, 8),                                       \
	        RING_CASES_ONE_LCORE(P, SU, TD, mpmc, RING_MPMC, 8),                               \
	        RING_CASES_ONE_LCORE(P, SU, TD, spsc, RING_SPSC, 16),                              \
	        RING_CASES_ONE_LCORE(P, SU, TD, mpmc, RING_MPMC, 16),                              \
	        RING_CASES_PAIR(P, SU, TD, spsc, RING_SPSC, 8),                                    \
	        RING_CASES_PAIR(P, SU, TD, mpmc, RING_MPMC, 8),                                    \
	        RING_CASES_PAIR(P, SU, TD, spsc, RING_SPSC, 16),                                   \
	        RING_CASES_PAIR(P, SU, TD, mpmc, RING_MPMC, 16), RING_CASE_ALL(P, SU, TD, 8, 8),   \
	        RING_CASE_ALL(P, SU, TD, 8, 32), RING_CASE_ALL(P, SU, TD, 16, 8),                  \
	        RING_CASE_ALL(P, SU, TD, 16, 32), RING_CASES_SYNC(P, SU, TD),                      \
	        RING_CASES_USER(P, SU, TD), RING_CASES_ZC(P, SU, TD)

#endif /* DPK_BENCH_RING_CASES_H */
