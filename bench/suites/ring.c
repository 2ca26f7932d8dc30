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

static int dpk_setup(struct dpk_bench_run *run)
{
	const struct ring_arg *a = run->c->arg;
	unsigned flags = a->mode == RING_SPSC ? DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ : 0;
	size_t size = sizeof(struct ring_state) + run->nroles * sizeof(struct ring_role);
	ssize_t rsize = dpk_ring_memsize(a->esize, RING_SLOTS, flags);
	struct ring_state *st;
	int rc;

	if (rsize < 0)
		return (int)rsize;
	/* The harness's arena gives both the same addresses in every run (see bench.h). */
	st = dpk_bench_alloc(run, size, 64);
	if (!st)
		return -ENOMEM;
	st->use.r = dpk_bench_alloc(run, (size_t)rsize, 64);
	if (!st->use.r)
		return -ENOMEM;
	rc = dpk_ring_init(st->use.r, a->esize, RING_SLOTS, flags);
	if (rc)
		return rc;
	st->a = a;
	st->use.esize = a->esize;
	st->words = a->esize / 8;
	run->state = st;
	return 0;
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

RING_BODIES(dpk, spsc, SP1, SC1, SPB, SCB, SPS, SCS)
RING_BODIES(dpk, mpmc, MP1, MC1, MPB, MCB, MPS, MCS)
RING_ALL_BODY(dpk, MPB, MCB)

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
