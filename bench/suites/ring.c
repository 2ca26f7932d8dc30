/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring suite: what DPDK 22.11's ring_perf_autotest measures, on dpkit's ring, with
 * the unit of every figure stated (the cases are described in ring_cases.h).
 *
 * Units next to DPDK 22.11: its single-lcore bulk/burst lines are per enqueue+dequeue
 * call pair of n elements (n times our per-element figure), and its two-lcore lines are
 * producer-side plus consumer-side cycles per element (about twice our consumer figure).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/ring.h>

#include "ring_cases.h"
#include "suites.h"

/* The ring's flags for each mode of the cases. */
static const unsigned dpk_flags[RING_NMODES] = {
        [RING_SPSC] = DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ,
        [RING_MPMC] = 0,
        [RING_RTS] = DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MC_RTS_DEQ,
        [RING_HTS] = DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_MC_HTS_DEQ,
};

static const struct ring_fns dpk_fns[RING_NMODES];

static int dpk_setup(struct dpk_bench_run *run)
{
	const struct ring_arg *a = run->c->arg;
	const unsigned flags = dpk_flags[a->mode];
	size_t size = sizeof(struct ring_state) + run->nroles * sizeof(struct ring_role);
	ssize_t rsize = dpk_ring_memsize(a->esize, RING_SLOTS, flags);
	struct ring_state *st;
	struct dpk_ring *r;
	int rc;

	if (rsize < 0)
		return (int)rsize;
	/* The harness's arena gives both the same addresses in every run (see bench.h). */
	st = dpk_bench_alloc(run, size, 64);
	if (!st)
		return -ENOMEM;
	r = dpk_bench_alloc(run, (size_t)rsize, 64);
	if (!r)
		return -ENOMEM;
	rc = dpk_ring_init(r, a->esize, RING_SLOTS, flags);
	if (rc)
		return rc;
	return ring_setup_state(run, st, r, dpk_ring_capacity(r), dpk_fns);
}

static void dpk_teardown(struct dpk_bench_run *run)
{
	struct ring_state *st = run->state;

	ring_check_balance(run, st, dpk_ring_count(st->use.r));
}

#define R(u)         ((struct dpk_ring *)(u)->r)
#define SP1(u, p)    dpk_ring_sp_enqueue(R(u), p)
#define SC1(u, p)    dpk_ring_sc_dequeue(R(u), p)
#define SPB(u, p, n) dpk_ring_sp_enqueue_bulk(R(u), p, n, NULL)
#define SCB(u, p, n) dpk_ring_sc_dequeue_bulk(R(u), p, n, NULL)
#define SPS(u, p, n) dpk_ring_sp_enqueue_burst(R(u), p, n, NULL)
#define SCS(u, p, n) dpk_ring_sc_dequeue_burst(R(u), p, n, NULL)
#define MP1(u, p)    dpk_ring_mp_enqueue(R(u), p)
#define MC1(u, p)    dpk_ring_mc_dequeue(R(u), p)
#define MPB(u, p, n) dpk_ring_mp_enqueue_bulk(R(u), p, n, NULL)
#define MCB(u, p, n) dpk_ring_mc_dequeue_bulk(R(u), p, n, NULL)
#define MPS(u, p, n) dpk_ring_mp_enqueue_burst(R(u), p, n, NULL)
#define MCS(u, p, n) dpk_ring_mc_dequeue_burst(R(u), p, n, NULL)
#define RPB(u, p, n) dpk_ring_mp_rts_enqueue_bulk(R(u), p, n, NULL)
#define RCB(u, p, n) dpk_ring_mc_rts_dequeue_bulk(R(u), p, n, NULL)
#define RPS(u, p, n) dpk_ring_mp_rts_enqueue_burst(R(u), p, n, NULL)
#define RCS(u, p, n) dpk_ring_mc_rts_dequeue_burst(R(u), p, n, NULL)
#define HPB(u, p, n) dpk_ring_mp_hts_enqueue_bulk(R(u), p, n, NULL)
#define HCB(u, p, n) dpk_ring_mc_hts_dequeue_bulk(R(u), p, n, NULL)
#define HPS(u, p, n) dpk_ring_mp_hts_enqueue_burst(R(u), p, n, NULL)
#define HCS(u, p, n) dpk_ring_mc_hts_dequeue_burst(R(u), p, n, NULL)

/* Zero copy on the SP/SC ring: the spans handed on in the cases' own form (a start that
 * reserved nothing need not have written them). */
static inline unsigned dpk_zc_spans(unsigned got, const struct dpk_ring_zc_data *d,
                                    struct ring_zc *z)
{
	if (!got)
		return 0;
	z->p1 = d->ptr1;
	z->p2 = d->ptr2;
	z->n1 = d->n1;
	return got;
}

static inline unsigned dpk_zc_enq_start(struct dpk_ring *r, unsigned n, struct ring_zc *z)
{
	struct dpk_ring_zc_data d;

	return dpk_zc_spans(dpk_ring_enqueue_zc_bulk_start(r, n, &d, NULL), &d, z);
}

static inline unsigned dpk_zc_deq_start(struct dpk_ring *r, unsigned n, struct ring_zc *z)
{
	struct dpk_ring_zc_data d;

	return dpk_zc_spans(dpk_ring_dequeue_zc_bulk_start(r, n, &d, NULL), &d, z);
}

#define ZPS(u, n, z) dpk_zc_enq_start(R(u), n, z)
#define ZPF(u, n)    (void)dpk_ring_enqueue_zc_finish(R(u), n)
#define ZCS(u, n, z) dpk_zc_deq_start(R(u), n, z)
#define ZCF(u, n)    (void)dpk_ring_dequeue_zc_finish(R(u), n)

RING_IMPLEMENT(dpk)

static const struct dpk_bench_case ring_cases[] = {
        RING_CASES(dpk, dpk_setup, dpk_teardown),
};

const struct dpk_bench_suite dpk_suite_ring = {
        .name = "ring",
        .desc = "dpkit ring enqueue/dequeue: one lcore, lcore pairs, all lcores (as DPDK "
                "ring_perf)",
        .cases = ring_cases,
        .ncases = sizeof(ring_cases) / sizeof(ring_cases[0]),
        .default_on = true,
};
