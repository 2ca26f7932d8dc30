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

static int rte_setup(struct dpk_bench_run *run)
{
	const struct ring_arg *a = run->c->arg;
	unsigned flags = a->mode == RING_SPSC ? RING_F_SP_ENQ | RING_F_SC_DEQ : 0;
	size_t size = sizeof(struct ring_state) + run->nroles * sizeof(struct ring_role);
	ssize_t rsize = rte_ring_get_memsize_elem(a->esize, RING_SLOTS);
	struct ring_state *st;

	if (rsize < 0)
		return (int)rsize;
	/* The same arena layout as the ring suite's, so the two meet the same caches. */
	st = dpk_bench_alloc(run, size, 64);
	if (!st)
		return -ENOMEM;
	st->use.r = dpk_bench_alloc(run, (size_t)rsize, 64);
	if (!st->use.r)
		return -ENOMEM;
	if (rte_ring_init(st->use.r, "dpk-bench", RING_SLOTS, flags) != 0)
		return -EINVAL;
	st->a = a;
	st->use.esize = a->esize;
	st->words = a->esize / 8;
	run->state = st;
	return 0;
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

RING_BODIES(rte, spsc, SP1, SC1, SPB, SCB, SPS, SCS)
RING_BODIES(rte, mpmc, MP1, MC1, MPB, MCB, MPS, MCS)
RING_ALL_BODY(rte, MPB, MCB)

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
