/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpdk_mempool suite: DPDK's mempool (rte_mempool.h, the default ring_mp_mc ops)
 * through the pool suite's cases, each with its twin's name, parameters and unit, on a pool
 * of the twin's size (4096 objects of 2 KiB):
 *
 *   get_put             the main lcore (EAL's main lcore) alone, with its per-lcore cache
 *                       (cache=512, RTE_MEMPOOL_CACHE_MAX_SIZE) or without (cache=0: every
 *                       call goes to the ring); rte_mempool_get_bulk/put_bulk, which look
 *                       the calling lcore's cache up on every call, as dpkit's do
 *   get_put_user_cache  the main lcore alone, through a cache of its own from
 *                       rte_mempool_cache_create() passed to rte_mempool_generic_get/put(),
 *                       on a pool without per-lcore caches
 *   shared_get_put      both lcores of a pair on one pool at once (dpkit's lcores, made
 *                       DPDK lcores the first time they run), each with its own per-lcore
 *                       cache or without any, on every pair placement
 * each with bulk 1, 4 and 32: one operation is one object got and put back, KEEP (128)
 * objects got in calls of `bulk`, then put back in calls of the same size. Mops/s of
 * shared_get_put is the sum over both lcores, DPDK mempool_perf's rate_persec / 1e6.
 *
 * Invariants: every get succeeds, and at teardown, the caches flushed, all 4096 objects are
 * back, none twice, none foreign (dpk_dpdk_pool_check(), in place of dpk_pool_audit()).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mempool.h>

#include "dpdk_eal.h"
#include "peers.h"

/* The pool suite's sizes (bench/suites/pool.c says why each is what it is). */
#define KEEP     128u
#define OBJ_SIZE 2048u
#define CACHE    512u
#define COUNT    4096u

static_assert(CACHE == RTE_MEMPOOL_CACHE_MAX_SIZE, "cache=512 is DPDK's largest cache");
/* A 22.11 cache holds up to 1.5 x its size between calls and size + bulk while it
 * refills; with KEEP more per role, two roles need far fewer than COUNT. */
static_assert(COUNT >= 2 * (2 * CACHE + KEEP), "the pool can run dry under two roles");
static_assert(KEEP % 32 == 0, "every bulk size divides KEEP");

struct pool_arg {
	unsigned cache; /* size of the cache in front of the ring, 0: none */
	bool user;      /* the cache is a user-owned one, not the per-lcore one */
	unsigned bulk;  /* objects per get and per put call */
};

/* One role's objects and cache, on lines of their own. */
struct pool_role {
	_Alignas(64) void *objs[KEEP];
	struct rte_mempool_cache *cache; /* user-owned cache, or NULL */
};

struct pool_state {
	struct rte_mempool *mp;
	const struct pool_arg *a;
	struct pool_role role[];
};

static void pool_free(struct pool_state *st, unsigned nroles)
{
	for (unsigned i = 0; i < nroles; i++)
		rte_mempool_cache_free(st->role[i].cache);
	rte_mempool_free(st->mp);
	free(st);
}

static int pool_setup(struct dpk_bench_run *run)
{
	const struct pool_arg *a = run->c->arg;
	size_t size = sizeof(struct pool_state) + run->nroles * sizeof(struct pool_role);
	char name[RTE_MEMPOOL_NAMESIZE];
	struct pool_state *st;
	int rc;

	if (!(st = dpk_dpdk_state(run, size, &rc)))
		return rc;
	st->a = a;
	dpk_dpdk_name(name, sizeof(name), "mp");
	st->mp = rte_mempool_create(name, COUNT, OBJ_SIZE, a->user ? 0 : a->cache, 0, NULL, NULL,
	                            NULL, NULL, SOCKET_ID_ANY, 0);
	for (unsigned i = 0; st->mp && a->user && i < run->nroles; i++)
		if (!(st->role[i].cache = rte_mempool_cache_create(a->cache, SOCKET_ID_ANY)))
			break;
	if (!st->mp || (a->user && !st->role[run->nroles - 1].cache)) {
		int err = rte_errno ? rte_errno : ENOMEM;

		pool_free(st, run->nroles);
		return -err;
	}
	run->state = st;
	return 0;
}

static void pool_teardown(struct dpk_bench_run *run)
{
	struct pool_state *st = run->state;

	for (unsigned i = 0; i < run->nroles; i++)
		if (st->role[i].cache)
			rte_mempool_cache_flush(st->role[i].cache, st->mp);
	dpk_dpdk_pool_check(run, st->mp, COUNT);
	pool_free(st, run->nroles);
}

/* Get @p n objects through the role's user cache when it has one, else through the
 * calling lcore's cache (the ring when the pool has none). */
static inline int role_get(struct pool_state *st, struct pool_role *pr, void **objs, unsigned n,
                           bool user)
{
	return user ? rte_mempool_generic_get(st->mp, objs, n, pr->cache)
	            : rte_mempool_get_bulk(st->mp, objs, n);
}

static inline void role_put(struct pool_state *st, struct pool_role *pr, void *const *objs,
                            unsigned n, bool user)
{
	if (user)
		rte_mempool_generic_put(st->mp, objs, n, pr->cache);
	else
		rte_mempool_put_bulk(st->mp, objs, n);
}

/* n / KEEP rounds of: KEEP objects got in calls of bulk, then put back in calls of bulk.
 * With @p poll the stop flag is read after every call, as the twin's pair does. */
static inline uint64_t get_put_rounds(struct dpk_bench_run *run, unsigned role, uint64_t n,
                                      bool user, bool poll)
{
	struct pool_state *st = run->state;
	struct pool_role *pr = &st->role[role];
	const unsigned b = st->a->bulk;

	for (uint64_t done = 0; done < n; done += KEEP) {
		for (unsigned i = 0; i < KEEP; i += b) {
			if (role_get(st, pr, &pr->objs[i], b, user) != 0) {
				dpk_bench_fail(run, "get of %u failed with %u objects held", b, i);
				role_put(st, pr, pr->objs, i, user);
				return done;
			}
			if (poll && dpk_bench_stopped(run)) {
				role_put(st, pr, pr->objs, i + b, user);
				return done;
			}
		}
		for (unsigned i = 0; i < KEEP; i += b) {
			role_put(st, pr, &pr->objs[i], b, user);
			if (poll && dpk_bench_stopped(run)) {
				role_put(st, pr, &pr->objs[i + b], KEEP - i - b, user);
				return done;
			}
		}
	}
	return n;
}

static uint64_t body_lcore_cache(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	return get_put_rounds(run, role, n, false, false);
}

static uint64_t body_user_cache(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	return get_put_rounds(run, role, n, true, false);
}

static uint64_t body_shared(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	return dpk_dpdk_role(run) ? get_put_rounds(run, role, n, false, true) : 0;
}

#define POOL_ARG(c, u, b) (&(const struct pool_arg){.cache = (c), .user = (u), .bulk = (b)})

#define POOL_CASE(nm, kind_, dsc, fn, c, u, b)                                                     \
	{                                                                                          \
		.name = nm, .desc = dsc, .kind = kind_, .unit = DPK_UNIT_OBJECT,                   \
		.params = {{"cache", c}, {"bulk", b}}, .ops_multiple = KEEP, .setup = pool_setup,  \
		.body = fn, .teardown = pool_teardown, .arg = POOL_ARG(c, u, b)                    \
	}

#define GET_PUT(c, b)                                                                              \
	POOL_CASE("get_put", DPK_BENCH_SINGLE,                                                     \
	          "rte_mempool get then put of one object (128 kept) by the main lcore, lcore "    \
	          "cache",                                                                         \
	          body_lcore_cache, c, false, b)

#define GET_PUT_USER(c, b)                                                                         \
	POOL_CASE("get_put_user_cache", DPK_BENCH_SINGLE,                                          \
	          "rte_mempool get then put of one object (128 kept) by the main lcore through a " \
	          "user-owned cache",                                                              \
	          body_user_cache, c, true, b)

#define SHARED_GET_PUT(c, b)                                                                       \
	POOL_CASE("shared_get_put", DPK_BENCH_PAIR,                                                \
	          "rte_mempool get then put of one object (128 kept) on each of two lcores "       \
	          "sharing the pool; Mops/s summed over both",                                     \
	          body_shared, c, false, b)

static const struct dpk_bench_case dpdk_mempool_cases[] = {
        GET_PUT(CACHE, 1),
        GET_PUT(CACHE, 4),
        GET_PUT(CACHE, 32),
        GET_PUT(0, 1),
        GET_PUT(0, 4),
        GET_PUT(0, 32),
        GET_PUT_USER(CACHE, 1),
        GET_PUT_USER(CACHE, 4),
        GET_PUT_USER(CACHE, 32),
        SHARED_GET_PUT(CACHE, 1),
        SHARED_GET_PUT(CACHE, 4),
        SHARED_GET_PUT(CACHE, 32),
        SHARED_GET_PUT(0, 1),
        SHARED_GET_PUT(0, 4),
        SHARED_GET_PUT(0, 32),
};

const struct dpk_bench_suite dpk_suite_dpdk_mempool = {
        .name = "dpdk_mempool",
        .desc = "DPDK mempool get+put through the pool suite's cases",
        .cases = dpdk_mempool_cases,
        .ncases = sizeof(dpdk_mempool_cases) / sizeof(dpdk_mempool_cases[0]),
        .default_on = false,
};
