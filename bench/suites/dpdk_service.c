/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpdk_service suite: DPDK's service cores (rte_service.h) through the cases of the
 * service suite, each with its twin's name, group, parameters and unit, so that
 * `dpk-bench run service dpdk_service --interleave` times them in turn:
 *
 *   app_iter_stats_off/on  rte_service_run_iter_on_app_lcore() on the main lcore (EAL's
 *                          main lcore), per call, MT-safe and MT-unsafe (serialized, as
 *                          the twin is) services, statistics off and on
 *                          (rte_service_set_stats_enable(); DPDK has no sampled
 *                          statistics), callbacks that do nothing (work=0) or 64 dependent
 *                          additions (work=64), the twin's own callback
 *   lcore_loop             a service lcore's loop (EAL lcore 1) over 1, 8 and 64 mapped
 *                          services that do nothing, per iteration, timed by the main
 *                          lcore from the loop count rte_service_lcore_attr_get() gives;
 *                          EAL's service lcore is on a CPU of its own where the machine
 *                          has three, and the case refuses to run beside a running dpkit
 *                          service lcore on its CPU (interleaved with its twin on two)
 *   app_iter_two_lcores    an MT-safe service called from two lcores at once, statistics
 *                          on, per call; the two roles are dpkit's lcores registered with
 *                          DPDK
 *
 * Invariants: every call returns 0; the lcore loop advances; in the two-lcore case the
 * callback sees every call made. DPDK 22.11 counts a service's calls only on service
 * lcores (rte_service_attr_get() sums those), so the twin's check that the statistics
 * count every app-lcore call has no counterpart here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_launch.h>
#include <rte_memory.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include <dpk/cycles.h>
#include <dpk/lcore.h>
#include <dpk/service.h>

#include "dpdk_eal.h"
#include "suites.h"

/* DPDK 22.11's service slots (RTE_SERVICE_NUM_MAX, not in its public headers). */
#define SVC_MAX 64u

struct svc_arg {
	bool mt_safe;
	bool stats;
	unsigned work; /* dependent additions in the callback */
	unsigned nservices;
};

struct svc_state {
	uint32_t ids[SVC_MAX];
	unsigned nids;
	bool lcore_on;                 /* the service lcore was added */
	_Alignas(64) uint64_t made[2]; /* calls made, per role (each written by its role) */
	_Alignas(64) atomic_uint_fast64_t seen; /* calls the callback saw (two-lcore case) */
};

static int32_t cb_work(void *userdata)
{
	const struct svc_arg *a = userdata;
	uint64_t x = a->work;

	for (unsigned i = 0; i < a->work; i++)
		x = x * 3 + i;
	DPK_BENCH_KEEP(x);
	return 0;
}

static int32_t cb_count(void *userdata)
{
	struct svc_state *st = userdata;

	atomic_fetch_add_explicit(&st->seen, 1, memory_order_relaxed);
	return 0;
}

static int32_t cb_nothing(void *userdata)
{
	(void)userdata;
	return 0;
}

/* Register a service and set it running. 0 or a negative errno. */
static int svc_add(struct svc_state *st, rte_service_func fn, void *ud, bool mt_safe, bool stats)
{
	struct rte_service_spec spec = {.callback = fn,
	                                .callback_userdata = ud,
	                                .capabilities = mt_safe ? RTE_SERVICE_CAP_MT_SAFE : 0,
	                                .socket_id = SOCKET_ID_ANY};
	uint32_t id;
	int rc;

	dpk_dpdk_name(spec.name, sizeof(spec.name), "svc");
	if ((rc = rte_service_component_register(&spec, &id)))
		return rc;
	st->ids[st->nids++] = id;
	if ((rc = rte_service_component_runstate_set(id, 1)) ||
	    (rc = rte_service_runstate_set(id, 1)))
		return rc;
	return stats ? rte_service_set_stats_enable(id, 1) : 0;
}

static void svc_free(struct svc_state *st)
{
	if (st->lcore_on) {
		for (unsigned i = 0; i < st->nids; i++)
			rte_service_map_lcore_set(st->ids[i], DPK_DPDK_SERVICE_LCORE, 0);
		rte_service_lcore_stop(DPK_DPDK_SERVICE_LCORE);
		rte_eal_wait_lcore(DPK_DPDK_SERVICE_LCORE);
		rte_service_lcore_del(DPK_DPDK_SERVICE_LCORE);
	}
	for (unsigned i = 0; i < st->nids; i++) {
		rte_service_runstate_set(st->ids[i], 0);
		rte_service_component_runstate_set(st->ids[i], 0);
		rte_service_component_unregister(st->ids[i]);
	}
	free(st);
}

static void svc_teardown(struct dpk_bench_run *run)
{
	svc_free(run->state);
}

/* A set-up's end: @p rc 0 keeps @p st as the case's state, else it is freed. */
static int svc_done(struct dpk_bench_run *run, struct svc_state *st, int rc)
{
	if (rc) {
		svc_free(st);
		return rc;
	}
	run->state = st;
	return 0;
}

/* ---- run_iter_on_app_lcore ------------------------------------------------------- */

static int app_setup(struct dpk_bench_run *run)
{
	const struct svc_arg *a = run->c->arg;
	struct svc_state *st;
	int rc;

	if (!(st = dpk_dpdk_state(run, sizeof(*st), &rc)))
		return rc;
	return svc_done(run, st, svc_add(st, cb_work, (void *)a, a->mt_safe, a->stats));
}

/* Every call on one lcore; used by the one-lcore cases and by each role of the pair. */
static uint64_t body_app(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct svc_state *st = run->state;
	const uint32_t id = st->ids[0];

	if (!dpk_dpdk_role(run))
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		int rc = rte_service_run_iter_on_app_lcore(id, 1);
		if (rc != 0) {
			st->made[role] += i;
			dpk_bench_fail(run, "rte_service_run_iter_on_app_lcore returned %d", rc);
			return i;
		}
	}
	st->made[role] += n;
	return n;
}

/* ---- the service lcore loop ------------------------------------------------------ */

/*
 * Whether a dpkit service lcore spins on the CPU of EAL's: the service suite's lcore_loop
 * keeps one running from set-up to tear-down, and were one left running beside this case
 * (on a machine with two CPUs, where the two service lcores share one) each loop would run
 * only while the other is preempted. The case then fails saying so.
 */
static bool cpu_taken(struct dpk_bench_run *run)
{
	unsigned ids[DPK_LCORE_MAX];
	int n = dpk_service_lcore_list(ids, DPK_LCORE_MAX);

	for (int i = 0; i < n; i++)
		if (dpk_service_lcore_may_be_active(ids[i]) &&
		    dpk_lcore_cpu(ids[i]) == dpk_dpdk_svc_cpu) {
			dpk_bench_fail(run,
			               "dpkit's service lcore %u spins on CPU %u, as DPDK's "
			               "would: run this case apart from service/lcore_loop, not "
			               "interleaved with it",
			               ids[i], dpk_dpdk_svc_cpu);
			return true;
		}
	return false;
}

static int loop_setup(struct dpk_bench_run *run)
{
	const struct svc_arg *a = run->c->arg;
	struct svc_state *st;
	int rc = 0;

	if (!dpk_dpdk_ready(run) || cpu_taken(run))
		return -ENODEV;
	if (!(st = dpk_dpdk_state(run, sizeof(*st), &rc)))
		return rc;
	for (unsigned i = 0; !rc && i < a->nservices; i++)
		rc = svc_add(st, cb_nothing, NULL, true, false);
	if (!rc && !(rc = rte_service_lcore_add(DPK_DPDK_SERVICE_LCORE)))
		st->lcore_on = true;
	for (unsigned i = 0; !rc && i < st->nids; i++)
		rc = rte_service_map_lcore_set(st->ids[i], DPK_DPDK_SERVICE_LCORE, 1);
	if (!rc)
		rc = rte_service_lcore_start(DPK_DPDK_SERVICE_LCORE);
	return svc_done(run, st, rc);
}

static uint64_t lcore_loops(void)
{
	uint64_t v = 0;

	rte_service_lcore_attr_get(DPK_DPDK_SERVICE_LCORE, RTE_SERVICE_LCORE_ATTR_LOOPS, &v);
	return v;
}

/* Wait until the service lcore has run @p n more loops; the timed window is theirs. */
static uint64_t body_loop(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t start = lcore_loops(), seen = start, now, deadline = dpk_tsc() + dpk_tsc_hz();

	(void)role;
	while ((now = lcore_loops()) - start < n) {
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
	struct svc_state *st;
	int rc;

	if (!(st = dpk_dpdk_state(run, sizeof(*st), &rc)))
		return rc;
	atomic_init(&st->seen, 0);
	return svc_done(run, st, svc_add(st, cb_count, st, true, true));
}

static void two_teardown(struct dpk_bench_run *run)
{
	struct svc_state *st = run->state;
	uint64_t made = st->made[0] + st->made[1];
	uint64_t seen = atomic_load_explicit(&st->seen, memory_order_relaxed);

	if (seen != made)
		dpk_bench_fail(run, "calls made %llu, seen by the callback %llu",
		               (unsigned long long)made, (unsigned long long)seen);
	svc_free(st);
}

/* ---- the table ------------------------------------------------------------------- */

#define SARG(safe, s, w, k)                                                                        \
	(&(const struct svc_arg){.mt_safe = (safe), .stats = (s), .work = (w), .nservices = (k)})

#define APP(suffix, s, safe, w)                                                                    \
	{                                                                                          \
		.name = "app_iter_stats_" suffix, .group = "app_iter",                             \
		.desc = "rte_service_run_iter_on_app_lcore() of one service, statistics " suffix,  \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_CALL,                                   \
		.params = {{"mt_safe", safe}, {"work", w}}, .setup = app_setup, .body = body_app,  \
		.teardown = svc_teardown, .arg = SARG(safe, s, w, 1)                               \
	}

#define APP_STATS(safe, w) APP("off", false, safe, w), APP("on", true, safe, w)

#define LOOP(k)                                                                                    \
	{                                                                                          \
		.name = "lcore_loop",                                                              \
		.desc = "one loop of a DPDK service lcore over its mapped services",               \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ITERATION, .params = {{"services", k}}, \
		.ops_multiple = 1024, .setup = loop_setup, .body = body_loop,                      \
		.teardown = svc_teardown, .arg = SARG(true, false, 0, k)                           \
	}

_Static_assert(SVC_MAX >= 64, "lcore_loop maps 64 services");

static const struct dpk_bench_case dpdk_service_cases[] = {
        APP_STATS(1, 0),
        APP_STATS(0, 0),
        APP_STATS(1, 64),
        APP_STATS(0, 64),
        LOOP(1),
        LOOP(8),
        LOOP(64),
        {.name = "app_iter_two_lcores",
         .desc = "an MT-safe DPDK service called from two lcores at once, stats on",
         .kind = DPK_BENCH_PAIR,
         .unit = DPK_UNIT_CALL,
         .params = {{"mt_safe", 1}},
         .setup = two_setup,
         .body = body_app,
         .teardown = two_teardown},
};

const struct dpk_bench_suite dpk_suite_dpdk_service = {
        .name = "dpdk_service",
        .desc = "DPDK service cores through the service suite's cases",
        .cases = dpdk_service_cases,
        .ncases = sizeof(dpdk_service_cases) / sizeof(dpdk_service_cases[0]),
        .default_on = false,
};
