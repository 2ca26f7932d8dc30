/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The distributor suite.
 *
 * Cache-line switch (DPDK distributor_perf's first test): one cache line bounced between
 * two lcores, one round trip per operation, per pair placement, written four ways so the
 * question of DPDK's 2019 thread ("__sync versus __atomic") is answered on this machine:
 *   clswitch_relaxed   C11 relaxed loads and stores
 *   clswitch_acqrel    C11 acquire loads, release stores
 *   clswitch_seqcst    C11 seq_cst loads and stores (a seq_cst store is a locked
 *                      exchange on x86)
 *   clswitch_sync      the legacy builtins: a plain spin, __sync_synchronize() after the
 *                      wait, __sync_lock_test_and_set() to write (full barriers); the spin
 *                      reads with a relaxed atomic load, the same plain load a volatile
 *                      read compiles to, so ThreadSanitizer can see the pairing
 * Role 0 writes 2k+1 and waits for 2k+2, role 1 waits for 2k+1 and writes 2k+2; a wait
 * that sees anything but the value it waits for or the one just before fails the case.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <dpk/cycles.h>

#include "suites.h"

struct clswitch {
	_Alignas(64) atomic_uint_fast64_t flag;
	_Alignas(64) uint64_t vflag;          /* for the __sync variant only */
	_Alignas(64) uint64_t rounds[2];      /* each written by its own role */
};

static int clswitch_setup(struct dpk_bench_run *run)
{
	struct clswitch *cs;

	if (posix_memalign((void **)&cs, 64, sizeof(*cs)) != 0)
		return -ENOMEM;
	atomic_init(&cs->flag, 0);
	cs->vflag = 0;
	cs->rounds[0] = cs->rounds[1] = 0;
	run->state = cs;
	return 0;
}

static void clswitch_teardown(struct dpk_bench_run *run)
{
	struct clswitch *cs = run->state;
	uint64_t a = cs->rounds[0], b = cs->rounds[1];

	/* One round trip may be in flight when the stop flag rises. */
	if ((a > b ? a - b : b - a) > 1)
		dpk_bench_fail(run, "sent %llu, answered %llu", (unsigned long long)a,
			       (unsigned long long)b);
	free(cs);
}

/*
 * One body per memory order, so the order is a constant in the loop. LOAD/STORE act on
 * cs; WAIT spins until LOAD gives the wanted value, polling stop.
 */
#define CLSWITCH_BODY(NAME, LOAD, STORE, AFTER_WAIT)                                          \
	static uint64_t NAME(struct dpk_bench_run *run, unsigned role, uint64_t n)            \
	{                                                                                       \
		struct clswitch *cs = run->state;                                               \
		uint64_t i;                                                                     \
		for (i = 0; i < n; i++) {                                                       \
			uint64_t k = cs->rounds[role], want, mine;                              \
			want = role == 0 ? k * 2 + 2 : k * 2 + 1;                               \
			mine = role == 0 ? k * 2 + 1 : k * 2 + 2;                               \
			if (role == 0)                                                          \
				STORE(cs, mine);                                                \
			for (;;) {                                                              \
				uint64_t v = LOAD(cs);                                          \
				if (v == want)                                                  \
					break;                                                  \
				if (v != want - 1) {                                            \
					dpk_bench_fail(run, "role %u saw %llu waiting for %llu",\
						       role, (unsigned long long)v,             \
						       (unsigned long long)want);               \
					return i;                                               \
				}                                                               \
				if (dpk_bench_stopped(run))                                     \
					return i;                                               \
				dpk_pause();                                                    \
			}                                                                       \
			AFTER_WAIT;                                                             \
			if (role == 1)                                                          \
				STORE(cs, mine);                                                \
			cs->rounds[role] = k + 1;                                               \
		}                                                                               \
		return n;                                                                       \
	}

/* relaxed: no ordering beyond the line itself; fine for a flag that carries no data */
#define LD_RLX(cs) atomic_load_explicit(&(cs)->flag, memory_order_relaxed)
#define ST_RLX(cs, v) atomic_store_explicit(&(cs)->flag, (v), memory_order_relaxed)
/* acquire/release: each acquire load pairs with the other role's release store */
#define LD_ACQ(cs) atomic_load_explicit(&(cs)->flag, memory_order_acquire)
#define ST_REL(cs, v) atomic_store_explicit(&(cs)->flag, (v), memory_order_release)
/* seq_cst: both in the single total order (stronger than the hand-off needs) */
#define LD_SC(cs) atomic_load_explicit(&(cs)->flag, memory_order_seq_cst)
#define ST_SC(cs, v) atomic_store_explicit(&(cs)->flag, (v), memory_order_seq_cst)
/* legacy: plain read, full barrier after the wait, locked exchange to write */
#define LD_VOL(cs) __atomic_load_n(&(cs)->vflag, __ATOMIC_RELAXED)
#define ST_SYNC(cs, v) ((void)__sync_lock_test_and_set(&(cs)->vflag, (v)))

CLSWITCH_BODY(body_cl_relaxed, LD_RLX, ST_RLX, (void)0)
CLSWITCH_BODY(body_cl_acqrel, LD_ACQ, ST_REL, (void)0)
CLSWITCH_BODY(body_cl_seqcst, LD_SC, ST_SC, (void)0)
CLSWITCH_BODY(body_cl_sync, LD_VOL, ST_SYNC, __sync_synchronize())

#define CLSWITCH(suffix, fn, what)                                                          \
	{.name = "clswitch_" suffix, .desc = "one cache-line round trip, " what,               \
	 .kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ROUND_TRIP, .counted_roles = 1,               \
	 .role_names = {"ping", "pong"}, .setup = clswitch_setup, .body = fn,                    \
	 .teardown = clswitch_teardown}

static const struct dpk_bench_case distributor_cases[] = {
	CLSWITCH("relaxed", body_cl_relaxed, "C11 relaxed"),
	CLSWITCH("acqrel", body_cl_acqrel, "C11 acquire/release"),
	CLSWITCH("seqcst", body_cl_seqcst, "C11 seq_cst"),
	CLSWITCH("sync", body_cl_sync, "legacy __sync builtins"),
};

const struct dpk_bench_suite dpk_suite_distributor = {
	.name = "distributor",
	.desc = "cache-line switch by memory order; distributor hand-off (DPDK distributor_perf)",
	.cases = distributor_cases,
	.ncases = sizeof(distributor_cases) / sizeof(distributor_cases[0]),
	.default_on = true,
};
