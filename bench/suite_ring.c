/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring suite: what DPDK 22.11's ring_perf_autotest measures, with the unit of every
 * figure stated.
 *
 * One lcore: single-element, bulk and burst enqueue-then-dequeue with n in {1, 8, 32, 128},
 * and dequeue from an empty ring, for SP/SC and MP/MC, 8- and 16-byte elements. One
 * operation is one element enqueued and dequeued (DPDK 22.11 prints the same work per
 * enqueue+dequeue call pair, i.e. n times our figure).
 *
 * Two lcores (every pair placement): a producer bulk-enqueues and a consumer
 * bulk-dequeues; the figure is the consumer's cost per element received, which in a
 * steady pipeline is the hand-off cost (DPDK 22.11 prints producer-side plus
 * consumer-side cycles per element, about twice this).
 *
 * All lcores: every worker bulk-enqueues then bulk-dequeues on one MP/MC ring, as DPDK's
 * "all worker nodes" test; the figure is per element per lcore and the throughput is
 * the sum.
 *
 * Invariants checked while timing: every call moves what it must (bulk returns n, the
 * empty dequeue returns 0), elements come back in order (first and last element of every
 * call carry the expected sequence number), and at teardown the counts balance.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/ring.h>

#include "suites.h"

#define RING_SLOTS 4096u
#define NMAX 128u

enum ring_mode { SPSC, MPMC };
enum ring_op { OP_SINGLE, OP_BULK, OP_BURST, OP_EMPTY };

struct ring_arg {
	enum ring_mode mode;
	enum ring_op op;
	unsigned esize; /* 8 or 16 */
	unsigned n;     /* elements per call */
};

/* One role's private buffers, on its own cache lines. */
struct ring_role {
	_Alignas(64) uint64_t in[NMAX * 2];
	uint64_t out[NMAX * 2];
	uint64_t seq;   /* next sequence to send or expect */
	uint64_t enq;   /* elements enqueued by this role */
	uint64_t deq;   /* elements dequeued by this role */
};

struct ring_state {
	struct dpk_ring *r;
	const struct ring_arg *a;
	unsigned words; /* 64-bit words per element */
	struct ring_role role[];
};

static int ring_setup(struct dpk_bench_run *run)
{
	const struct ring_arg *a = run->c->arg;
	unsigned flags = a->mode == SPSC ? DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ : 0;
	struct ring_state *st;

	if (posix_memalign((void **)&st, 64,
			   sizeof(*st) + run->nroles * sizeof(struct ring_role)) != 0)
		return -ENOMEM;
	memset(st, 0, sizeof(*st) + run->nroles * sizeof(struct ring_role));
	st->r = dpk_ring_create(a->esize, RING_SLOTS, flags);
	if (!st->r) {
		int err = errno;
		free(st);
		return -err;
	}
	st->a = a;
	st->words = a->esize / 8;
	run->state = st;
	return 0;
}

static void ring_teardown(struct dpk_bench_run *run)
{
	struct ring_state *st = run->state;
	uint64_t enq = 0, deq = 0;

	for (unsigned i = 0; i < run->nroles; i++) {
		enq += st->role[i].enq;
		deq += st->role[i].deq;
	}
	if (enq - deq != dpk_ring_count(st->r))
		dpk_bench_fail(run, "elements enqueued %llu - dequeued %llu != %u left in the ring",
			       (unsigned long long)enq, (unsigned long long)deq,
			       dpk_ring_count(st->r));
	dpk_ring_free(st->r);
	free(st);
}

/* Stamp the first and last element of a call with their sequence numbers. */
static inline void stamp(uint64_t *buf, unsigned words, unsigned n, uint64_t seq)
{
	buf[0] = seq;
	buf[(size_t)(n - 1) * words] = seq + n - 1;
}

static inline bool check(const uint64_t *buf, unsigned words, unsigned n, uint64_t seq)
{
	return buf[0] == seq && buf[(size_t)(n - 1) * words] == seq + n - 1;
}

/*
 * Single-lcore bodies, one per (mode, op), so the mode is fixed at compile time as in a
 * real application. Each returns the elements moved.
 */
#define SINGLE_BODIES(M, ENQ1, DEQ1, ENQB, DEQB, ENQS, DEQS)                                  \
	static uint64_t body_##M##_single(struct dpk_bench_run *run, unsigned role, uint64_t n) \
	{                                                                                       \
		struct ring_state *st = run->state;                                             \
		struct ring_role *rr = &st->role[role];                                         \
		for (uint64_t i = 0; i < n; i++) {                                              \
			rr->in[0] = rr->seq;                                                    \
			if (ENQ1(st->r, rr->in) != 0 || DEQ1(st->r, rr->out) != 0 ||            \
			    rr->out[0] != rr->seq) {                                            \
				dpk_bench_fail(run, "single element %llu lost or changed",      \
					       (unsigned long long)rr->seq);                    \
				return i;                                                       \
			}                                                                       \
			rr->seq++;                                                              \
		}                                                                               \
		rr->enq += n;                                                                   \
		rr->deq += n;                                                                   \
		return n;                                                                       \
	}                                                                                       \
	static uint64_t body_##M##_bulk(struct dpk_bench_run *run, unsigned role, uint64_t n)   \
	{                                                                                       \
		struct ring_state *st = run->state;                                             \
		struct ring_role *rr = &st->role[role];                                         \
		const unsigned b = st->a->n, w = st->words;                                     \
		for (uint64_t i = 0; i < n; i += b) {                                           \
			stamp(rr->in, w, b, rr->seq);                                           \
			if (ENQB(st->r, rr->in, b, NULL) != b ||                                \
			    DEQB(st->r, rr->out, b, NULL) != b || !check(rr->out, w, b, rr->seq)) { \
				dpk_bench_fail(run, "bulk of %u at %llu not moved intact", b,   \
					       (unsigned long long)rr->seq);                    \
				return i;                                                       \
			}                                                                       \
			rr->seq += b;                                                           \
		}                                                                               \
		rr->enq += n;                                                                   \
		rr->deq += n;                                                                   \
		return n;                                                                       \
	}                                                                                       \
	static uint64_t body_##M##_burst(struct dpk_bench_run *run, unsigned role, uint64_t n)  \
	{                                                                                       \
		struct ring_state *st = run->state;                                             \
		struct ring_role *rr = &st->role[role];                                         \
		const unsigned b = st->a->n, w = st->words;                                     \
		for (uint64_t i = 0; i < n; i += b) {                                           \
			stamp(rr->in, w, b, rr->seq);                                           \
			if (ENQS(st->r, rr->in, b, NULL) != b ||                                \
			    DEQS(st->r, rr->out, b, NULL) != b || !check(rr->out, w, b, rr->seq)) { \
				dpk_bench_fail(run, "burst of %u at %llu not moved intact", b,  \
					       (unsigned long long)rr->seq);                    \
				return i;                                                       \
			}                                                                       \
			rr->seq += b;                                                           \
		}                                                                               \
		rr->enq += n;                                                                   \
		rr->deq += n;                                                                   \
		return n;                                                                       \
	}                                                                                       \
	static uint64_t body_##M##_empty(struct dpk_bench_run *run, unsigned role, uint64_t n)  \
	{                                                                                       \
		struct ring_state *st = run->state;                                             \
		struct ring_role *rr = &st->role[role];                                         \
		unsigned got = 0;                                                               \
		for (uint64_t i = 0; i < n; i++)                                                \
			got |= DEQB(st->r, rr->out, st->a->n, NULL);                            \
		if (got) {                                                                      \
			dpk_bench_fail(run, "dequeue from an empty ring returned elements");    \
			return 0;                                                               \
		}                                                                               \
		return n;                                                                       \
	}                                                                                       \
	/* Pair: role 0 produces, role 1 consumes; both wait (polling stop) when blocked. */   \
	static uint64_t body_##M##_pair(struct dpk_bench_run *run, unsigned role, uint64_t n)   \
	{                                                                                       \
		struct ring_state *st = run->state;                                             \
		struct ring_role *rr = &st->role[role];                                         \
		const unsigned b = st->a->n, w = st->words;                                     \
		uint64_t done = 0;                                                              \
		if (role == 0) {                                                                \
			while (done < n) {                                                      \
				stamp(rr->in, w, b, rr->seq);                                   \
				while (ENQB(st->r, rr->in, b, NULL) == 0) {                     \
					if (dpk_bench_stopped(run))                             \
						goto out;                                       \
					dpk_pause();                                            \
				}                                                               \
				rr->seq += b;                                                   \
				rr->enq += b;                                                   \
				done += b;                                                      \
			}                                                                       \
		} else {                                                                        \
			while (done < n) {                                                      \
				while (DEQB(st->r, rr->out, b, NULL) == 0) {                    \
					if (dpk_bench_stopped(run))                             \
						goto out;                                       \
					dpk_pause();                                            \
				}                                                               \
				if (!check(rr->out, w, b, rr->seq)) {                           \
					dpk_bench_fail(run, "consumer expected %llu, got %llu", \
						       (unsigned long long)rr->seq,             \
						       (unsigned long long)rr->out[0]);         \
					goto out;                                               \
				}                                                               \
				rr->seq += b;                                                   \
				rr->deq += b;                                                   \
				done += b;                                                      \
			}                                                                       \
		}                                                                               \
	out:                                                                                    \
		return done;                                                                    \
	}

SINGLE_BODIES(spsc, dpk_ring_sp_enqueue, dpk_ring_sc_dequeue, dpk_ring_sp_enqueue_bulk,
	      dpk_ring_sc_dequeue_bulk, dpk_ring_sp_enqueue_burst, dpk_ring_sc_dequeue_burst)
SINGLE_BODIES(mpmc, dpk_ring_mp_enqueue, dpk_ring_mc_dequeue, dpk_ring_mp_enqueue_bulk,
	      dpk_ring_mc_dequeue_bulk, dpk_ring_mp_enqueue_burst, dpk_ring_mc_dequeue_burst)

/* All lcores: each enqueues a bulk then dequeues a bulk on the shared MP/MC ring. The
 * elements it gets back may be another lcore's, so only counts are checked. */
static uint64_t body_mpmc_all(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct ring_state *st = run->state;
	struct ring_role *rr = &st->role[role];
	const unsigned b = st->a->n;
	uint64_t done = 0;

	while (done < n) {
		while (dpk_ring_mp_enqueue_bulk(st->r, rr->in, b, NULL) == 0) {
			if (dpk_bench_stopped(run))
				return done;
			dpk_pause();
		}
		rr->enq += b;
		while (dpk_ring_mc_dequeue_bulk(st->r, rr->out, b, NULL) == 0) {
			if (dpk_bench_stopped(run))
				return done;
			dpk_pause();
		}
		rr->deq += b;
		done += b;
	}
	return done;
}

#define ARG(m, o, e, nn) (&(const struct ring_arg){.mode = (m), .op = (o), .esize = (e), .n = (nn)})

#define CASE_SINGLE(m, M, e)                                                                  \
	{.name = #m "_single", .desc = "enqueue then dequeue of one element, single calls",   \
	 .kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ELEMENT, .params = {{"esize", e}},         \
	 .setup = ring_setup, .body = body_##m##_single, .teardown = ring_teardown,            \
	 .arg = ARG(M, OP_SINGLE, e, 1)}

#define CASE_CALLS(m, M, op, OP, e, nn)                                                       \
	{.name = #m "_" #op, .desc = "enqueue then dequeue of n elements, " #op " calls",     \
	 .kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ELEMENT,                                   \
	 .params = {{"esize", e}, {"n", nn}}, .ops_multiple = nn, .setup = ring_setup,         \
	 .body = body_##m##_##op, .teardown = ring_teardown, .arg = ARG(M, OP, e, nn)}

#define CASE_EMPTY(m, M, e)                                                                   \
	{.name = #m "_empty_dequeue", .desc = "bulk dequeue of 8 from an empty ring",          \
	 .kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_CALL, .params = {{"esize", e}, {"n", 8}},  \
	 .setup = ring_setup, .body = body_##m##_empty, .teardown = ring_teardown,             \
	 .arg = ARG(M, OP_EMPTY, e, 8)}

#define CASE_PAIR(m, M, e, nn)                                                                \
	{.name = #m "_pair_bulk", .desc = "elements handed from a producer to a consumer lcore", \
	 .kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT, .params = {{"esize", e}, {"n", nn}}, \
	 .ops_multiple = nn, .counted_roles = 2, .role_names = {"producer", "consumer"},        \
	 .setup = ring_setup, .body = body_##m##_pair, .teardown = ring_teardown,              \
	 .arg = ARG(M, OP_BULK, e, nn)}

#define CASE_ALL(e, nn)                                                                       \
	{.name = "mpmc_all_bulk", .desc = "bulk enqueue then dequeue by every worker lcore",   \
	 .kind = DPK_BENCH_ALL, .unit = DPK_UNIT_ELEMENT, .params = {{"esize", e}, {"n", nn}},  \
	 .ops_multiple = nn, .setup = ring_setup, .body = body_mpmc_all,                        \
	 .teardown = ring_teardown, .arg = ARG(MPMC, OP_BULK, e, nn)}

#define CASES_ONE_LCORE(m, M, e)                                                              \
	CASE_SINGLE(m, M, e), CASE_CALLS(m, M, bulk, OP_BULK, e, 1),                          \
		CASE_CALLS(m, M, bulk, OP_BULK, e, 8), CASE_CALLS(m, M, bulk, OP_BULK, e, 32),  \
		CASE_CALLS(m, M, bulk, OP_BULK, e, 128), CASE_CALLS(m, M, burst, OP_BURST, e, 1), \
		CASE_CALLS(m, M, burst, OP_BURST, e, 8), CASE_CALLS(m, M, burst, OP_BURST, e, 32), \
		CASE_CALLS(m, M, burst, OP_BURST, e, 128), CASE_EMPTY(m, M, e)

#define CASES_PAIR(m, M, e)                                                                   \
	CASE_PAIR(m, M, e, 1), CASE_PAIR(m, M, e, 8), CASE_PAIR(m, M, e, 32), CASE_PAIR(m, M, e, 128)

static const struct dpk_bench_case ring_cases[] = {
	CASES_ONE_LCORE(spsc, SPSC, 8),
	CASES_ONE_LCORE(mpmc, MPMC, 8),
	CASES_ONE_LCORE(spsc, SPSC, 16),
	CASES_ONE_LCORE(mpmc, MPMC, 16),
	CASES_PAIR(spsc, SPSC, 8),
	CASES_PAIR(mpmc, MPMC, 8),
	CASES_PAIR(spsc, SPSC, 16),
	CASES_PAIR(mpmc, MPMC, 16),
	CASE_ALL(8, 8),
	CASE_ALL(8, 32),
	CASE_ALL(16, 8),
	CASE_ALL(16, 32),
};

const struct dpk_bench_suite dpk_suite_ring = {
	.name = "ring",
	.desc = "ring enqueue/dequeue: one lcore, lcore pairs, all lcores (DPDK ring_perf)",
	.cases = ring_cases,
	.ncases = sizeof(ring_cases) / sizeof(ring_cases[0]),
	.default_on = true,
};
