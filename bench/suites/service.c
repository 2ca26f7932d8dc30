/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service suite: what one service call costs the caller, and what the statistics add.
 *
 *   tsc_pair             two plain counter reads: the least that timing one call costs,
 *                        here beside the results it explains
 *   app_iter_stats_*     dpk_service_run_iter_on_app_lcore() on the main lcore, per call,
 *                        for MT-safe and MT-unsafe services, with statistics off, on
 *                        (every call timed: exact cycles) and on with one call in 16, 64
 *                        or 128 timed (exact counts, estimated cycles: the periods
 *                        dpk/service.h quotes); with a callback that does nothing
 *                        (work=0) and one that does a fixed small amount of work (work=64
 *                        dependent additions), so the framework's own cost shows on its
 *                        own. The stats variants share a group, so --interleave times
 *                        them in the same rounds and reports each as a ratio to stats
 *                        off; tsc_pair in the same run is what a timed call adds, so one
 *                        in N adds about tsc_pair / N.
 *   lcore_loop           a service lcore's loop, per iteration, with 1, 8 and 64 mapped
 *                        services that do nothing: the main lcore times how long the
 *                        service lcore (on another CPU where there is one) takes to run
 *                        n more loops
 *   app_iter_two_lcores  one service called from two lcores at once, statistics on, per
 *                        call: MT-safe, and MT-unsafe behind its try-lock (a call finds
 *                        it busy or runs it), the latter on oversub as well, where the
 *                        lock's holder is preempted with the lock held
 *
 * Invariants: every call returns 0 (or -EBUSY, MT-unsafe from two lcores); with statistics
 * on, the calls the service counted equal the calls that ran (the two-lcore case fails
 * otherwise), and an MT-unsafe callback never runs twice at once; the lcore loop
 * advances.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/lcore.h>
#include <dpk/service.h>

#include "suites.h"

struct svc_arg {
	bool mt_safe;
	uint32_t stats; /* 0 off, 1 every call timed, N one in N timed */
	unsigned work;  /* dependent additions in the callback */
	unsigned nservices;
};

struct svc_state {
	uint32_t ids[DPK_SERVICE_MAX];
	unsigned nids;
	unsigned lcore;                /* service lcore of lcore_loop, or DPK_LCORE_ANY */
	_Alignas(64) uint64_t made[2]; /* calls made, per role (each written by its role) */
	_Alignas(64) uint64_t busy[2]; /* calls that found the MT-unsafe service busy, per role */
	_Alignas(64) atomic_uint_fast64_t seen; /* calls the callback saw (two-lcore case) */
	atomic_uint inside;  /* callbacks running now (MT-unsafe two-lcore case) */
	atomic_bool overlap; /* two were running at once */
	uint64_t sink;
};

static int cb_work(void *userdata)
{
	const struct svc_arg *a = userdata;
	uint64_t x = a->work;

	for (unsigned i = 0; i < a->work; i++)
		x = x * 3 + i;
	DPK_BENCH_KEEP(x);
	return 0;
}

static int cb_count(void *userdata)
{
	struct svc_state *st = userdata;

	atomic_fetch_add_explicit(&st->seen, 1, memory_order_relaxed);
	return 0;
}

/* The MT-unsafe service's callback: it counts itself in and out, and two in at once break
 * the exclusion its try-lock promises. Relaxed suffices: the count is one variable, whose
 * read-modify-writes the try-lock's own acquire and release order between callers. */
static int cb_exclusive(void *userdata)
{
	struct svc_state *st = userdata;

	if (atomic_fetch_add_explicit(&st->inside, 1, memory_order_relaxed) != 0)
		atomic_store_explicit(&st->overlap, true, memory_order_relaxed);
	atomic_fetch_add_explicit(&st->seen, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&st->inside, 1, memory_order_relaxed);
	return 0;
}

static int svc_add(struct svc_state *st, const char *name, dpk_service_fn fn, void *ud,
                   bool mt_safe, uint32_t stats)
{
	struct dpk_service_spec spec = {.name = name,
	                                .callback = fn,
	                                .userdata = ud,
	                                .capabilities = mt_safe ? DPK_SERVICE_CAP_MT_SAFE : 0};
	uint32_t id;
	int rc = dpk_service_register(&spec, &id);

	if (rc)
		return rc;
	st->ids[st->nids++] = id;
	if ((rc = dpk_service_component_runstate_set(id, true)) ||
	    (rc = dpk_service_runstate_set(id, true)))
		return rc;
	if (stats) {
		if ((rc = dpk_service_stats_enable(id, true)) ||
		    (rc = dpk_service_stats_sample_set(id, stats)))
			return rc;
	}
	return 0;
}

static void svc_teardown(struct dpk_bench_run *run)
{
	struct svc_state *st = run->state;

	if (st->lcore != DPK_LCORE_ANY) {
		dpk_service_lcore_stop_force(st->lcore);
		dpk_service_lcore_remove(st->lcore);
	}
	for (unsigned i = 0; i < st->nids; i++)
		dpk_service_unregister(st->ids[i]);
	free(st);
}

static struct svc_state *svc_alloc(void)
{
	struct svc_state *st;

	if (posix_memalign((void **)&st, 64, sizeof(*st)) != 0)
		return NULL;
	memset(st, 0, sizeof(*st));
	st->lcore = DPK_LCORE_ANY;
	atomic_init(&st->seen, 0);
	atomic_init(&st->inside, 0);
	atomic_init(&st->overlap, false);
	return st;
}

/* ---- floor ---------------------------------------------------------------------- */

static uint64_t body_tsc_pair(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t acc = 0;

	(void)run;
	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t0 = dpk_tsc();
		acc += dpk_tsc() - t0;
	}
	DPK_BENCH_KEEP(acc);
	return n;
}

/* ---- run_iter_on_app_lcore ------------------------------------------------------- */

static int app_setup(struct dpk_bench_run *run)
{
	const struct svc_arg *a = run->c->arg;
	struct svc_state *st = svc_alloc();
	int rc;

	if (!st)
		return -ENOMEM;
	run->state = st;
	char name[DPK_SERVICE_NAME_MAX];

	/* Unique per case: no case relies on another's tear-down having freed its name. */
	snprintf(name, sizeof(name), "%s-%d-%u", run->c->name, a->mt_safe, a->work);
	rc = svc_add(st, name, cb_work, (void *)a, a->mt_safe, a->stats);
	if (rc) {
		svc_teardown(run);
		run->state = NULL;
	}
	return rc;
}

static void app_teardown(struct dpk_bench_run *run)
{
	const struct svc_arg *a = run->c->arg;
	struct svc_state *st = run->state;
	uint64_t calls = 0;

	if (a->stats && dpk_service_attr_get(st->ids[0], DPK_SERVICE_ATTR_CALLS, &calls) == 0 &&
	    calls != st->made[0])
		dpk_bench_fail(run, "the service counted %llu calls, %llu were made",
		               (unsigned long long)calls, (unsigned long long)st->made[0]);
	svc_teardown(run);
}

static uint64_t body_app(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct svc_state *st = run->state;
	const uint32_t id = st->ids[0];
	const bool mt_safe = ((const struct svc_arg *)run->c->arg)->mt_safe;

	for (uint64_t i = 0; i < n; i++) {
		int rc = dpk_service_run_iter_on_app_lcore(id, true);

		if (rc == -EBUSY && !mt_safe) {
			st->busy[role]++;
		} else if (rc != 0) {
			dpk_bench_fail(run, "run_iter_on_app_lcore returned %d", rc);
			st->made[role] += i;
			return i;
		}
	}
	st->made[role] += n;
	return n;
}

/* ---- the service lcore loop ------------------------------------------------------ */

static int cb_nothing(void *userdata)
{
	(void)userdata;
	return 0;
}

/* A worker lcore on another CPU than the main lcore if there is one, else any worker. */
static unsigned pick_service_lcore(void)
{
	unsigned id, any = DPK_LCORE_ANY, main_cpu = dpk_lcore_cpu(dpk_lcore_main());

	DPK_LCORE_FOREACH_WORKER(id)
	{
		if (dpk_lcore_cpu(id) != main_cpu)
			return id;
		if (any == DPK_LCORE_ANY)
			any = id;
	}
	return any;
}

static int loop_setup(struct dpk_bench_run *run)
{
	const struct svc_arg *a = run->c->arg;
	struct svc_state *st = svc_alloc();
	unsigned lcore = pick_service_lcore();
	char name[DPK_SERVICE_NAME_MAX];
	int rc;

	if (!st)
		return -ENOMEM;
	if (lcore == DPK_LCORE_ANY) {
		free(st);
		return -ENODEV; /* needs a worker lcore */
	}
	run->state = st;
	for (unsigned i = 0; i < a->nservices; i++) {
		snprintf(name, sizeof(name), "dpk-bench-loop-%u", i);
		if ((rc = svc_add(st, name, cb_nothing, NULL, true, 0)))
			goto out_fail;
	}
	if ((rc = dpk_service_lcore_add(lcore)))
		goto out_fail;
	st->lcore = lcore;
	for (unsigned i = 0; i < st->nids; i++)
		if ((rc = dpk_service_map_lcore_set(st->ids[i], lcore, true)))
			goto out_fail;
	if ((rc = dpk_service_lcore_start(lcore)))
		goto out_fail;
	return 0;

out_fail:
	svc_teardown(run);
	run->state = NULL;
	return rc;
}

static uint64_t lcore_loops(struct svc_state *st)
{
	uint64_t v = 0;

	dpk_service_lcore_attr_get(st->lcore, DPK_SERVICE_LCORE_ATTR_LOOPS, &v);
	return v;
}

/* Wait until the service lcore has run @p n more loops; the timed window is theirs. */
static uint64_t body_loop(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct svc_state *st = run->state;
	uint64_t start = lcore_loops(st), seen = start, now, deadline = dpk_tsc() + dpk_tsc_hz();

	(void)role;
	while ((now = lcore_loops(st)) - start < n) {
		/* Read the counter sparingly: each read pulls the service lcore's line. */
		for (int i = 0; i < 64; i++)
			dpk_pause();
		if (now != seen) { /* a loop ran: the second starts again */
			seen = now;
			deadline = dpk_tsc() + dpk_tsc_hz();
		} else if (dpk_tsc() > deadline) {
			dpk_bench_fail(run, "the service lcore ran no loop for a second");
			return 0;
		}
	}
	return n;
}

/* ---- two lcores at once ---------------------------------------------------------- */

static int two_setup(struct dpk_bench_run *run)
{
	const struct svc_arg *a = run->c->arg;
	struct svc_state *st = svc_alloc();
	int rc;

	if (!st)
		return -ENOMEM;
	run->state = st;
	rc = svc_add(st, "dpk-bench-two", a->mt_safe ? cb_count : cb_exclusive, st, a->mt_safe, 1);
	if (rc) {
		svc_teardown(run);
		run->state = NULL;
	}
	return rc;
}

static void two_teardown(struct dpk_bench_run *run)
{
	struct svc_state *st = run->state;
	uint64_t calls = 0, made = st->made[0] + st->made[1] - st->busy[0] - st->busy[1];
	uint64_t seen = atomic_load_explicit(&st->seen, memory_order_relaxed);

	if (dpk_service_attr_get(st->ids[0], DPK_SERVICE_ATTR_CALLS, &calls) != 0)
		dpk_bench_fail(run, "cannot read the call count");
	else if (calls != made || seen != made)
		dpk_bench_fail(run, "calls that ran %llu, seen by the callback %llu, counted %llu",
		               (unsigned long long)made, (unsigned long long)seen,
		               (unsigned long long)calls);
	else if (atomic_load_explicit(&st->overlap, memory_order_relaxed))
		dpk_bench_fail(run, "the MT-unsafe service ran on two lcores at once");
	svc_teardown(run);
}

static uint64_t body_two(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct svc_state *st = run->state;
	const uint32_t id = st->ids[0];
	const bool mt_safe = ((const struct svc_arg *)run->c->arg)->mt_safe;

	for (uint64_t i = 0; i < n; i++) {
		int rc = dpk_service_run_iter_on_app_lcore(id, true);

		if (rc == -EBUSY && !mt_safe) {
			st->busy[role]++;
		} else if (rc != 0) {
			st->made[role] += i;
			dpk_bench_fail(run, "run_iter_on_app_lcore returned %d", rc);
			return i;
		}
	}
	st->made[role] += n;
	return n;
}

/* ---- the table ------------------------------------------------------------------- */

#define SARG(safe, s, w, k)                                                                        \
	(&(const struct svc_arg){.mt_safe = (safe), .stats = (s), .work = (w), .nservices = (k)})

#define APP(suffix, s, safe, w)                                                                    \
	{                                                                                          \
		.name = "app_iter_" suffix, .group = "app_iter",                                   \
		.desc = "dpk_service_run_iter_on_app_lcore() of one service, statistics " suffix,  \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_CALL,                                   \
		.params = {{"mt_safe", safe}, {"work", w}}, .setup = app_setup, .body = body_app,  \
		.teardown = app_teardown, .arg = SARG(safe, s, w, 1)                               \
	}

_Static_assert(DPK_SERVICE_STATS_SAMPLE_CHEAP == 128,
               "stats_1in128 times the sample period dpk/service.h recommends");

#define APP_STATS(safe, w)                                                                         \
	APP("stats_off", 0, safe, w), APP("stats_on", 1, safe, w),                                 \
	        APP("stats_1in16", 16, safe, w), APP("stats_1in64", 64, safe, w),                  \
	        APP("stats_1in128", 128, safe, w)

#define TWO(safe)                                                                                  \
	{                                                                                          \
		.name = "app_iter_two_lcores",                                                     \
		.desc = "one service called from two lcores at once, "                             \
		        "stats on",                                                                \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_CALL, .params = {{"mt_safe", safe}},      \
		.setup = two_setup, .body = body_two, .teardown = two_teardown,                    \
		.arg = SARG(safe, 1, 0, 1), .flags = (safe) ? 0u : DPK_BENCH_ON_OVERSUB            \
	}

#define LOOP(k)                                                                                    \
	{                                                                                          \
		.name = "lcore_loop",                                                              \
		.desc = "one loop of a service lcore over its mapped services",                    \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ITERATION, .params = {{"services", k}}, \
		.ops_multiple = 1024, .setup = loop_setup, .body = body_loop,                      \
		.teardown = svc_teardown, .arg = SARG(true, 0, 0, k)                               \
	}

static const struct dpk_bench_case service_cases[] = {
        {.name = "tsc_pair",
         .desc = "two plain counter reads (the cost of timing a call)",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_CALL,
         .body = body_tsc_pair},
        APP_STATS(1, 0),
        APP_STATS(0, 0),
        APP_STATS(1, 64),
        APP_STATS(0, 64),
        LOOP(1),
        LOOP(8),
        LOOP(64),
        TWO(1),
        TWO(0),
};

const struct dpk_bench_suite dpk_suite_service = {
        .name = "service",
        .desc = "service calls on an app lcore and service-lcore loops (DPDK service_perf)",
        .cases = service_cases,
        .ncases = sizeof(service_cases) / sizeof(service_cases[0]),
        .default_on = true,
};
