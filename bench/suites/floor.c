/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor suite: what the clock and the hardware cost before any dpkit code runs.
 *
 *   tsc_read      one plain counter read (dpk_tsc)
 *   tsc_pair      one fenced begin/end pair, the window every sample pays once
 *   pingpong      a cache line bounced between two lcores: one round trip is the
 *                 physical floor of any cross-core hand-off on that placement
 *
 * The ping-pong keeps its own invariant: after the run the two sides agree on the
 * number of round trips, give or take the one in flight when the stop flag rose (ping
 * may have sent it and not seen the answer, or not counted an answer it was about to see).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <dpk/cycles.h>

#include "suites.h"

static uint64_t body_tsc_read(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t acc = 0;

	(void)run;
	(void)role;
	for (uint64_t i = 0; i < n; i++)
		acc += dpk_tsc();
	DPK_BENCH_KEEP(acc);
	return n;
}

static uint64_t body_tsc_pair(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t acc = 0;

	(void)run;
	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = dpk_tsc_begin();
		acc += dpk_tsc_end() - a;
	}
	DPK_BENCH_KEEP(acc);
	return n;
}

struct pingpong {
	_Alignas(64) atomic_uint_fast64_t flag; /* odd: ping sent, even: pong answered */
	_Alignas(64) uint64_t ping_rounds;      /* ping's private count */
	_Alignas(64) uint64_t pong_rounds;      /* pong's private count */
};

static int pingpong_setup(struct dpk_bench_run *run)
{
	struct pingpong *pp;

	if (posix_memalign((void **)&pp, 64, sizeof(*pp)) != 0)
		return -ENOMEM;
	atomic_init(&pp->flag, 0);
	pp->ping_rounds = 0;
	pp->pong_rounds = 0;
	run->state = pp;
	return 0;
}

static void pingpong_teardown(struct dpk_bench_run *run)
{
	struct pingpong *pp = run->state;

	uint64_t a = pp->ping_rounds, b = pp->pong_rounds;

	if ((a > b ? a - b : b - a) > 1)
		dpk_bench_fail(run, "ping sent %llu, pong answered %llu",
		               (unsigned long long)pp->ping_rounds,
		               (unsigned long long)pp->pong_rounds);
	free(pp);
}

/*
 * Role 0 writes 2k+1 and waits for 2k+2; role 1 waits for 2k+1 and writes 2k+2. Each
 * store is a release and each wait an acquire load: R1 (ping's store) pairs with A2
 * (pong's load), R2 (pong's store) with A1 (ping's load), which is all a hand-off of
 * data through the line would need.
 */
static uint64_t body_pingpong(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pingpong *pp = run->state;
	uint64_t i;

	if (role == 0) {
		for (i = 0; i < n; i++) {
			uint64_t v = pp->ping_rounds * 2 + 1;
			/* R1 */
			atomic_store_explicit(&pp->flag, v, memory_order_release);
			/* A1 */
			while (atomic_load_explicit(&pp->flag, memory_order_acquire) != v + 1) {
				if (dpk_bench_stopped(run))
					return i;
				dpk_pause();
			}
			pp->ping_rounds++;
		}
	} else {
		for (i = 0; i < n; i++) {
			uint64_t v = pp->pong_rounds * 2 + 1;
			/* A2 */
			while (atomic_load_explicit(&pp->flag, memory_order_acquire) != v) {
				if (dpk_bench_stopped(run))
					return i;
				dpk_pause();
			}
			/* R2 */
			atomic_store_explicit(&pp->flag, v + 1, memory_order_release);
			pp->pong_rounds++;
		}
	}
	return n;
}

static const struct dpk_bench_case floor_cases[] = {
        {.name = "tsc_read",
         .desc = "one plain counter read",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_CALL,
         .body = body_tsc_read},
        {.name = "tsc_pair",
         .desc = "one fenced begin/end counter pair",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_CALL,
         .body = body_tsc_pair},
        {.name = "pingpong",
         .desc = "one cache-line round trip between two lcores",
         .kind = DPK_BENCH_PAIR,
         .unit = DPK_UNIT_ROUND_TRIP,
         .counted_roles = 1,
         .role_names = {"ping", "pong"},
         .setup = pingpong_setup,
         .body = body_pingpong,
         .teardown = pingpong_teardown},
};

const struct dpk_bench_suite dpk_suite_floor = {
        .name = "floor",
        .desc = "counter read cost and the cache-line round trip per placement",
        .cases = floor_cases,
        .ncases = sizeof(floor_cases) / sizeof(floor_cases[0]),
        .default_on = true,
};
