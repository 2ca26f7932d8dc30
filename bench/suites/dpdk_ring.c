/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpdk_ring suite: DPDK's rte_ring (the elem API of the installed DPDK) run through
 * the very same case bodies and harness as dpkit's ring suite, so the two can be read
 * side by side from one run: `dpk-bench run ring dpdk_ring`. Built only when DPDK's
 * development files are found; rte_ring_init() on our own memory needs no EAL start-up.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "ring_cases.h"
#include "suites.h"

#ifndef DPK_DPDK_VERSION
#define DPK_DPDK_VERSION "(installed)"
#endif

/* The ring's flags for each mode of the cases. */
static const unsigned rte_flags[RING_NMODES] = {
        [RING_SPSC] = RING_F_SP_ENQ | RING_F_SC_DEQ,
        [RING_MPMC] = 0,
        [RING_RTS] = RING_F_MP_RTS_ENQ | RING_F_MC_RTS_DEQ,
        [RING_HTS] = RING_F_MP_HTS_ENQ | RING_F_MC_HTS_DEQ,
};

static const struct ring_fns rte_fns[RING_NMODES];

static int rte_setup(struct dpk_bench_run *run)
{
	const struct ring_arg *a = run->c->arg;
	size_t size = sizeof(struct ring_state) + run->nroles * sizeof(struct ring_role);
	ssize_t rsize = rte_ring_get_memsize_elem(a->esize, RING_SLOTS);
	struct ring_state *st;
	struct rte_ring *r;

	if (rsize < 0)
		return (int)rsize;
	/* The same arena layout as the ring suite's, so the two meet the same caches. */
	st = dpk_bench_alloc(run, size, 64);
	if (!st)
		return -ENOMEM;
	r = dpk_bench_alloc(run, (size_t)rsize, 64);
	if (!r)
		return -ENOMEM;
	if (rte_ring_init(r, "dpk-bench", RING_SLOTS, rte_flags[a->mode]) != 0)
		return -EINVAL;
	return ring_setup_state(run, st, r, rte_ring_get_capacity(r), rte_fns);
}

static void rte_teardown(struct dpk_bench_run *run)
{
	struct ring_state *st = run->state;

	ring_check_balance(run, st, rte_ring_count(st->use.r));
}

#define R(u)         ((struct rte_ring *)(u)->r)
#define SP1(u, p)    rte_ring_sp_enqueue_elem(R(u), p, (u)->esize)
#define SC1(u, p)    rte_ring_sc_dequeue_elem(R(u), p, (u)->esize)
#define SPB(u, p, n) rte_ring_sp_enqueue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define SCB(u, p, n) rte_ring_sc_dequeue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define SPS(u, p, n) rte_ring_sp_enqueue_burst_elem(R(u), p, (u)->esize, n, NULL)
#define SCS(u, p, n) rte_ring_sc_dequeue_burst_elem(R(u), p, (u)->esize, n, NULL)
#define MP1(u, p)    rte_ring_mp_enqueue_elem(R(u), p, (u)->esize)
#define MC1(u, p)    rte_ring_mc_dequeue_elem(R(u), p, (u)->esize)
#define MPB(u, p, n) rte_ring_mp_enqueue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define MCB(u, p, n) rte_ring_mc_dequeue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define MPS(u, p, n) rte_ring_mp_enqueue_burst_elem(R(u), p, (u)->esize, n, NULL)
#define MCS(u, p, n) rte_ring_mc_dequeue_burst_elem(R(u), p, (u)->esize, n, NULL)
#define RPB(u, p, n) rte_ring_mp_rts_enqueue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define RCB(u, p, n) rte_ring_mc_rts_dequeue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define RPS(u, p, n) rte_ring_mp_rts_enqueue_burst_elem(R(u), p, (u)->esize, n, NULL)
#define RCS(u, p, n) rte_ring_mc_rts_dequeue_burst_elem(R(u), p, (u)->esize, n, NULL)
#define HPB(u, p, n) rte_ring_mp_hts_enqueue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define HCB(u, p, n) rte_ring_mc_hts_dequeue_bulk_elem(R(u), p, (u)->esize, n, NULL)
#define HPS(u, p, n) rte_ring_mp_hts_enqueue_burst_elem(R(u), p, (u)->esize, n, NULL)
#define HCS(u, p, n) rte_ring_mc_hts_dequeue_burst_elem(R(u), p, (u)->esize, n, NULL)

/* Zero copy on the SP/SC ring: the spans handed on in the cases' own form (a start that
 * reserved nothing need not have written them). */
static inline unsigned rte_zc_spans(unsigned got, const struct rte_ring_zc_data *d,
                                    struct ring_zc *z)
{
	if (!got)
		return 0;
	z->p1 = d->ptr1;
	z->p2 = d->ptr2;
	z->n1 = d->n1;
	return got;
}

static inline unsigned rte_zc_enq_start(const struct ring_use *u, unsigned n, struct ring_zc *z)
{
	struct rte_ring_zc_data d;

	return rte_zc_spans(rte_ring_enqueue_zc_bulk_elem_start(R(u), u->esize, n, &d, NULL), &d,
	                    z);
}

static inline unsigned rte_zc_deq_start(const struct ring_use *u, unsigned n, struct ring_zc *z)
{
	struct rte_ring_zc_data d;

	return rte_zc_spans(rte_ring_dequeue_zc_bulk_elem_start(R(u), u->esize, n, &d, NULL), &d,
	                    z);
}

#define ZPS(u, n, z) rte_zc_enq_start(u, n, z)
#define ZPF(u, n)    rte_ring_enqueue_zc_elem_finish(R(u), n)
#define ZCS(u, n, z) rte_zc_deq_start(u, n, z)
#define ZCF(u, n)    rte_ring_dequeue_zc_elem_finish(R(u), n)

RING_IMPLEMENT(rte)

static const struct dpk_bench_case rte_cases[] = {
        RING_CASES(rte, rte_setup, rte_teardown),
};

const struct dpk_bench_suite dpk_suite_dpdk_ring = {
        .name = "dpdk_ring",
        .desc = "DPDK " DPK_DPDK_VERSION " rte_ring through the same cases as the ring suite",
        .cases = rte_cases,
        .ncases = sizeof(rte_cases) / sizeof(rte_cases[0]),
        .default_on = false,
};
