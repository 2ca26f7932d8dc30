/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ck_ring suite: Concurrency Kit's ring (ck_ring.h) through the ring suite's own case
 * bodies (ring_cases.h), as the twins of its single-call cases: ck has no bulk or burst
 * calls, so the cases are
 *   spsc_single, mpmc_single   enqueue then dequeue of one element, one lcore
 *   spsc_pair_bulk n=1,        one element at a time from a producer lcore to a consumer
 *   mpmc_pair_bulk n=1         lcore (the ring suite's n=1 pair, whose calls move one each)
 * for 8- and 16-byte elements, through ck's typed interface (CK_RING_PROTOTYPE), which for
 * 8 bytes is the code of its pointer calls (ck_ring_enqueue_spsc() and the others). The
 * SPSC cases use ck_ring_{enqueue,dequeue}_spsc, the MPMC ones ck_ring_enqueue_mpmc and
 * ck_ring_dequeue_mpmc. A ck ring of 4096 slots holds 4095.
 *
 * Invariants are the ring suite's: what goes in comes out in order, and at teardown the
 * counts balance with ck_ring_size().
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>

#include <ck_ring.h>

#include "peers.h"
#include "ring_cases.h"

struct ckr_e8 {
	uint64_t w[1];
};
struct ckr_e16 {
	uint64_t w[2];
};
CK_RING_PROTOTYPE(ckr_e8, ckr_e8)
CK_RING_PROTOTYPE(ckr_e16, ckr_e16)

/* A ck ring and its slots, which follow it on a line of their own. */
struct ckr {
	struct ck_ring ring;
	_Alignas(64) unsigned char slots[];
};

static int ckr_setup(struct dpk_bench_run *run)
{
	const struct ring_arg *a = run->c->arg;
	size_t size = sizeof(struct ring_state) + run->nroles * sizeof(struct ring_role);
	struct ring_state *st;
	struct ckr *r;

	/* The same arena layout as the ring suite's, so the rings meet the same caches. */
	st = dpk_bench_alloc(run, size, 64);
	if (!st)
		return -ENOMEM;
	r = dpk_bench_alloc(run, sizeof(*r) + (size_t)RING_SLOTS * a->esize, 64);
	if (!r)
		return -ENOMEM;
	ck_ring_init(&r->ring, RING_SLOTS);
	st->use.r = r;
	st->use.esize = a->esize;
	st->a = a;
	st->words = a->esize / 8;
	run->state = st;
	return 0;
}

static void ckr_teardown(struct dpk_bench_run *run)
{
	struct ring_state *st = run->state;
	struct ckr *r = st->use.r;

	ring_check_balance(run, st, ck_ring_size(&r->ring));
}

#define CKR(u) ((struct ckr *)(u)->r)

/* One element in or out (0 on success, as the ring cases want); the element size is the
 * case's, known to the caller as a run-time value, as DPDK's elem calls take it. */
#define CKR_ONE(NAME, OP, MODE)                                                                    \
	static inline int NAME(const struct ring_use *u, uint64_t *p)                              \
	{                                                                                          \
		struct ckr *r = CKR(u);                                                            \
		bool ok = u->esize == 8                                                            \
		                  ? ck_ring_##OP##_##MODE##_ckr_e8(&r->ring, (void *)r->slots,     \
		                                                   (struct ckr_e8 *)(void *)p)     \
		                  : ck_ring_##OP##_##MODE##_ckr_e16(&r->ring, (void *)r->slots,    \
		                                                    (struct ckr_e16 *)(void *)p);  \
		return ok ? 0 : -1;                                                                \
	}

CKR_ONE(ckr_enq_spsc, enqueue, spsc)
CKR_ONE(ckr_deq_spsc, dequeue, spsc)
CKR_ONE(ckr_enq_mpmc, enqueue, mpmc)
CKR_ONE(ckr_deq_mpmc, dequeue, mpmc)

/* n elements in or out by single calls, as many as go (the pair moves one per call). */
#define CKR_MANY(NAME, ONE)                                                                        \
	static inline unsigned NAME(const struct ring_use *u, uint64_t *p, unsigned n)             \
	{                                                                                          \
		unsigned i;                                                                        \
		for (i = 0; i < n && ONE(u, p + (size_t)i * (u->esize / 8)) == 0; i++)             \
			;                                                                          \
		return i;                                                                          \
	}

CKR_MANY(ckr_enqn_spsc, ckr_enq_spsc)
CKR_MANY(ckr_deqn_spsc, ckr_deq_spsc)
CKR_MANY(ckr_enqn_mpmc, ckr_enq_mpmc)
CKR_MANY(ckr_deqn_mpmc, ckr_deq_mpmc)

#define SP1(u, p)    ckr_enq_spsc(u, p)
#define SC1(u, p)    ckr_deq_spsc(u, p)
#define SPN(u, p, n) ckr_enqn_spsc(u, p, n)
#define SCN(u, p, n) ckr_deqn_spsc(u, p, n)
#define MP1(u, p)    ckr_enq_mpmc(u, p)
#define MC1(u, p)    ckr_deq_mpmc(u, p)
#define MPN(u, p, n) ckr_enqn_mpmc(u, p, n)
#define MCN(u, p, n) ckr_deqn_mpmc(u, p, n)

/* RING_BODIES also makes bulk, burst and empty-dequeue bodies; ck has no such calls and
 * the table below has no such cases, so those bodies go unused. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
RING_BODIES(ckr, spsc, SP1, SC1, SPN, SCN, SPN, SCN)
RING_BODIES(ckr, mpmc, MP1, MC1, MPN, MCN, MPN, MCN)
#pragma GCC diagnostic pop

#define CKR_CASES(e)                                                                               \
	RING_CASE_SINGLE(ckr, ckr_setup, ckr_teardown, spsc, RING_SPSC, e),                        \
	        RING_CASE_SINGLE(ckr, ckr_setup, ckr_teardown, mpmc, RING_MPMC, e),                \
	        RING_CASE_PAIR(ckr, ckr_setup, ckr_teardown, spsc, RING_SPSC, e, 1),               \
	        RING_CASE_PAIR(ckr, ckr_setup, ckr_teardown, mpmc, RING_MPMC, e, 1)

static const struct dpk_bench_case ckr_cases[] = {
        CKR_CASES(8),
        CKR_CASES(16),
};

const struct dpk_bench_suite dpk_suite_ck_ring = {
        .name = "ck_ring",
        .desc = "Concurrency Kit " CK_VERSION " ck_ring through the ring suite's single-call "
                "cases",
        .cases = ckr_cases,
        .ncases = sizeof(ckr_cases) / sizeof(ckr_cases[0]),
        .default_on = false,
};
