/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pool suite: what DPDK 22.11's mempool_perf_autotest measures, on dpkit's pool, in a
 * matrix that answers its questions in seconds instead of an hour.
 *
 * One operation is one object got and put back. Each role keeps KEEP objects (DPDK's
 * n_keep): it gets them in calls of `bulk` objects, then puts them back in calls of the
 * same size, which completes KEEP operations. The bulk size is a run-time value, as in
 * DPDK's constant_n=0 lines.
 *
 *   get_put             the main lcore alone, with its per-lcore cache (cache=512, DPDK's
 *                       largest and its cached configuration) or without (cache=0: every
 *                       call goes to the pool's MP/MC ring); dpk_pool_get_bulk/put_bulk
 *   get_put_user_cache  the main lcore alone, through a cache of its own from
 *                       dpk_pool_cache_create() passed to dpk_pool_generic_get/put(), on a
 *                       pool without per-lcore caches: the cost of carrying the cache
 *                       pointer instead of finding the lcore's cache on every call
 *   shared_get_put      both lcores of a pair on one pool at once, each with its own
 *                       per-lcore cache or without any (then both contend on the ring),
 *                       on every pair placement: DPDK's cores=2 lines
 * each with bulk 1, 4 and 32.
 *
 * Without caches on the oversub placement (two lcores on one CPU), each ring operation
 * that finds the other lcore's operation unfinished waits for it, and the other lcore
 * runs again only when the scheduler switches: the pair completes about one call per time
 * slice and the case usually ends empty. The bodies of shared_get_put read the stop flag
 * after every call, so such a case still ends on time.
 *
 * Next to DPDK 22.11: its rate_persec is objects per second, one get plus one put each,
 * summed over its cores, which is our Mops/s x 1e6 (for shared_get_put, too, Mops/s is the
 * sum over both lcores, while the tick figures are per object on one lcore). DPDK looks its
 * cache up once per run; dpk_pool_get_bulk() looks up the calling lcore's cache on every
 * call, as rte_mempool_get_bulk() does. DPDK's matrix adds bulk 8, unequal get and put
 * sizes, n_keep 32 and 512 and constant-n replays, four pool configurations and five
 * seconds per line; this one keeps the dimensions whose answers differ.
 *
 * Invariants: every get succeeds (the pool holds more objects than all roles can keep and
 * cache at once), and at teardown every object is back (dpk_pool_avail_count(), which
 * counts the caches, equals the pool's size) and dpk_pool_audit() finds no duplicate,
 * foreign or missing object.
 */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/pool.h>

#include "suites.h"

/* Objects each role gets before putting them back (DPDK's n_keep). */
#define KEEP 128u
/* Object size, as DPDK's MEMPOOL_ELT_SIZE; the objects' content is never touched. */
#define OBJ_SIZE 2048u
/* The cached configuration's cache size, DPDK's RTE_MEMPOOL_CACHE_MAX_SIZE. */
#define CACHE 512u
/* Objects in the pool. A cache holds at most 1.5 x its size between calls and 2 x while
 * it refills; a role holds KEEP more. Two roles need far fewer than this. */
#define COUNT 4096u

static_assert(COUNT >= 2 * (2 * CACHE + KEEP), "the pool can run dry under two roles");
static_assert(KEEP % 32 == 0, "every bulk size divides KEEP");
static_assert(KEEP == 128u, "the case descriptions say 128 kept");

struct pool_arg {
	unsigned cache; /* size of the cache in front of the ring, 0: none */
	bool user;      /* the cache is a user-owned one, not the per-lcore one */
	unsigned bulk;  /* objects per get and per put call */
};

/* One role's objects and cache, on lines of their own. */
struct pool_role {
	_Alignas(64) void *objs[KEEP];
	struct dpk_pool_cache *cache; /* user-owned cache, or NULL */
};

struct pool_state {
	struct dpk_pool *p;
	const struct pool_arg *a;
	struct pool_role role[];
};

static int pool_setup(struct dpk_bench_run *run)
{
	const struct pool_arg *a = run->c->arg;
	size_t size = sizeof(struct pool_state) + run->nroles * sizeof(struct pool_role);
	struct pool_state *st;
	int err;

	/* A single-lcore case runs on the main lcore; its per-lcore cache is used only if
	 * the caller is an lcore, so a figure from anywhere else would be the ring's. */
	if (run->c->kind == DPK_BENCH_SINGLE && dpk_lcore_id() == DPK_LCORE_ANY)
		dpk_bench_fail(run, "the main thread is not an lcore: it has no per-lcore cache");
	if (posix_memalign((void **)&st, 64, size) != 0)
		return -ENOMEM;
	memset(st, 0, size);
	st->a = a;
	st->p = dpk_pool_create(COUNT, OBJ_SIZE, a->user ? 0 : a->cache, 0);
	if (!st->p) {
		err = errno ? errno : ENOMEM;
		goto out_free_state;
	}
	for (unsigned i = 0; a->user && i < run->nroles; i++) {
		st->role[i].cache = dpk_pool_cache_create(st->p, a->cache);
		if (!st->role[i].cache) {
			err = errno ? errno : ENOMEM;
			goto out_free_pool;
		}
	}
	run->state = st;
	return 0;

out_free_pool:
	for (unsigned i = 0; i < run->nroles; i++)
		dpk_pool_cache_free(st->role[i].cache);
	dpk_pool_free(st->p);
out_free_state:
	free(st);
	return -err;
}

static void pool_teardown(struct dpk_bench_run *run)
{
	struct pool_state *st = run->state;
	struct dpk_pool_audit_report rep;
	unsigned avail = dpk_pool_avail_count(st->p);
	int rc = dpk_pool_audit(st->p, &rep, NULL, NULL);

	if (avail != COUNT)
		dpk_bench_fail(run, "%u of %u objects back in the pool at the end", avail, COUNT);
	else if (rc != 0 || rep.in_use || rep.duplicates || rep.foreign)
		dpk_bench_fail(run, "pool audit: %d, %u held, %u duplicated, %u foreign", rc,
		               rep.in_use, rep.duplicates, rep.foreign);
	for (unsigned i = 0; i < run->nroles; i++)
		dpk_pool_cache_free(st->role[i].cache);
	dpk_pool_free(st->p);
	free(st);
}

/* Get @p n objects into @p objs through the role's user cache when it has one, else
 * through the calling lcore's cache (the ring when the pool has none). */
static inline int role_get(struct pool_state *st, struct pool_role *pr, void **objs, unsigned n,
                           bool user)
{
	return user ? dpk_pool_generic_get(st->p, objs, n, pr->cache)
	            : dpk_pool_get_bulk(st->p, objs, n);
}

static inline void role_put(struct pool_state *st, struct pool_role *pr, void *const *objs,
                            unsigned n, bool user)
{
	if (user)
		dpk_pool_generic_put(st->p, objs, n, pr->cache);
	else
		dpk_pool_put_bulk(st->p, objs, n);
}

/*
 * n / KEEP rounds of: KEEP objects got in calls of bulk, then put back in calls of bulk.
 * With @p poll, the stop flag is read after every call and the role ends early with its
 * objects put back: in a pair without caches a ring operation can wait for the other lcore
 * to finish its own, for a whole time slice when the two share a CPU, so a batch must not
 * have to run to its end once the budget is spent.
 */
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
	return get_put_rounds(run, role, n, false, true);
}

#define POOL_ARG(c, u, b) (&(const struct pool_arg){.cache = (c), .user = (u), .bulk = (b)})

#define GET_PUT(c, b)                                                                              \
	{                                                                                          \
		.name = "get_put",                                                                 \
		.desc = "get then put of one object (128 kept) by the main lcore, lcore cache",    \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_OBJECT,                                 \
		.params = {{"cache", c}, {"bulk", b}}, .ops_multiple = KEEP, .setup = pool_setup,  \
		.body = body_lcore_cache, .teardown = pool_teardown, .arg = POOL_ARG(c, false, b)  \
	}

#define GET_PUT_USER(c, b)                                                                         \
	{                                                                                          \
		.name = "get_put_user_cache",                                                      \
		.desc = "get then put of one object (128 kept) by the main lcore through a "       \
		        "user-owned cache",                                                        \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_OBJECT,                                 \
		.params = {{"cache", c}, {"bulk", b}}, .ops_multiple = KEEP, .setup = pool_setup,  \
		.body = body_user_cache, .teardown = pool_teardown, .arg = POOL_ARG(c, true, b)    \
	}

#define SHARED_GET_PUT(c, b)                                                                       \
	{                                                                                          \
		.name = "shared_get_put",                                                          \
		.desc = "get then put of one object (128 kept) on each of two lcores sharing the " \
		        "pool; Mops/s summed over both",                                           \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_OBJECT,                                   \
		.params = {{"cache", c}, {"bulk", b}}, .ops_multiple = KEEP, .setup = pool_setup,  \
		.body = body_shared, .teardown = pool_teardown, .arg = POOL_ARG(c, false, b)       \
	}

static const struct dpk_bench_case pool_cases[] = {
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

const struct dpk_bench_suite dpk_suite_pool = {
        .name = "pool",
        .desc = "dpkit pool get+put: cache on/off, user cache, one lcore and lcore pairs "
                "(as DPDK mempool_perf)",
        .cases = pool_cases,
        .ncases = sizeof(pool_cases) / sizeof(pool_cases[0]),
        .default_on = true,
};
