/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service cores under load: exact statistics with service lcores, an app-lcore caller, the
 * main lcore and a thread that is not an lcore all calling at once; resets racing the
 * writers; and quiescence, where a service's state is freed as soon as
 * dpk_service_may_be_active() says false while every kind of caller keeps trying to run it.
 *
 * Each case runs on two placements: "spread" (lcores 0-1 on one CPU, 2-3 on another) and
 * "oversub" (all four lcores and the extra thread on one CPU). Loops are bounded by
 * dpk_test_stress_ms(); the seed picks callback results and sample periods.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dpk/cycles.h>
#include <dpk/lcore.h>
#include <dpk/service.h>

#include "dpk_test.h"

#define WAIT_MS   20000u
#define STRESS_MS 400u

/* Callers besides the service lcores: main, lcore 3, one thread that is not an lcore. */
#define APP_CALLERS 3
/* Most calls that can be in flight at once: two service lcores and the app callers. */
#define IN_FLIGHT (2 + APP_CALLERS)

/* ---- Placement ---- */

enum layout { SPREAD, OVERSUB };

/* Bring lcores up as @p l asks (main 0, workers 1..3): on two CPUs the process may use, or
 * all on one. Skips when the process may use only one CPU and two are asked for. */
static void layout(enum layout l)
{
	cpu_set_t set;
	int a = -1, b = -1;
	char spec[64];

	ASSERT_EQ(0, dpk_service_reset_all());
	ASSERT_EQ(0, dpk_lcore_fini());
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
		if (CPU_ISSET(c, &set)) {
			if (a < 0)
				a = c;
			else
				b = c;
		}
	ASSERT_GE(a, 0);
	if (l == SPREAD && b < 0)
		DPK_SKIP("the process may use only one CPU");
	if (l == SPREAD)
		snprintf(spec, sizeof(spec), "(0-1)@%d,(2-3)@%d", a, b);
	else
		snprintf(spec, sizeof(spec), "(0-3)@%d", a);
	ASSERT_EQ(0, dpk_lcore_init(spec));
	dpk_test_note("lcores %s", spec);
}

/* ---- A service that counts what it does, independently of the runtime ---- */

struct counted {
	atomic_ulong made;     /* calls */
	atomic_ulong idle;     /* of which returned -EAGAIN */
	atomic_ulong errors;   /* of which returned something else than 0 */
	atomic_int inside;     /* callers inside now */
	atomic_ulong overlaps; /* MT-unsafe only: times a second caller was inside */
	atomic_ulong by_lcore[4];
	bool mt_safe;
	bool always_idle;
	uint64_t salt;
};

static int counted_cb(void *arg)
{
	struct counted *c = arg;
	unsigned long n = atomic_fetch_add_explicit(&c->made, 1, memory_order_relaxed);
	unsigned lcore = dpk_lcore_id();
	uint64_t h;
	int rc;

	if (!c->mt_safe && atomic_fetch_add(&c->inside, 1) != 0)
		atomic_fetch_add(&c->overlaps, 1);
	/* Service lcores 1 and 2 only run their loops here, so this counts loop calls. */
	if (lcore == 1 || lcore == 2)
		atomic_fetch_add_explicit(&c->by_lcore[lcore], 1, memory_order_relaxed);
	h = (n + c->salt) * 0x9e3779b97f4a7c15u;
	h ^= h >> 29;
	if (c->always_idle || h % 5 == 0)
		rc = -EAGAIN;
	else if (h % 7 == 0)
		rc = -EIO;
	else if (h % 11 == 0)
		rc = 1; /* positive: an error too */
	else
		rc = 0;
	if (rc == -EAGAIN)
		atomic_fetch_add_explicit(&c->idle, 1, memory_order_relaxed);
	else if (rc != 0)
		atomic_fetch_add_explicit(&c->errors, 1, memory_order_relaxed);
	if (!c->mt_safe)
		atomic_fetch_sub(&c->inside, 1);
	return rc;
}

/* An app caller (lcore 3 or a plain thread): cycles through ids until told to stop. */
struct app_caller {
	const uint32_t *ids;
	unsigned nids;
	atomic_bool stop;
	unsigned long ok, busy, off, bad;
};

static void app_calls(struct app_caller *a)
{
	for (unsigned i = 0; !atomic_load_explicit(&a->stop, memory_order_relaxed); i++) {
		int rc = dpk_service_run_iter_on_app_lcore(a->ids[i % a->nids], true);
		a->ok += rc == 0;
		a->busy += rc == -EBUSY;
		a->off += rc == -ENOEXEC;
		a->bad += rc != 0 && rc != -EBUSY && rc != -ENOEXEC;
	}
}

static int app_caller_lcore(void *arg)
{
	app_calls(arg);
	return 0;
}

static void *app_caller_thread(void *arg)
{
	app_calls(arg);
	return NULL;
}

static uint32_t reg_counted(const char *name, struct counted *c, uint64_t salt)
{
	struct dpk_service_spec spec = {name, counted_cb, c,
	                                c->mt_safe ? DPK_SERVICE_CAP_MT_SAFE : 0};
	uint32_t id;

	c->salt = salt;
	ASSERT_EQ(0, dpk_service_register(&spec, &id));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	return id;
}

/* Service lcores 1 and 2 with every id of @p ids mapped to both, then started. */
static void start_service_lcores(const uint32_t *ids, unsigned n)
{
	for (unsigned l = 1; l <= 2; l++) {
		ASSERT_EQ(0, dpk_service_lcore_add(l));
		for (unsigned i = 0; i < n; i++)
			ASSERT_EQ(0, dpk_service_map_lcore_set(ids[i], l, true));
	}
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_EQ(0, dpk_service_lcore_start(2));
}

/* App callers of @p ids: lcore 3 and a plain thread @p t. */
static void start_callers(struct app_caller *lc3, struct app_caller *th, pthread_t *t,
                          const uint32_t *ids, unsigned n)
{
	lc3->ids = th->ids = ids;
	lc3->nids = th->nids = n;
	ASSERT_EQ(0, dpk_lcore_launch(3, app_caller_lcore, lc3));
	if (pthread_create(t, NULL, app_caller_thread, th) != 0) {
		atomic_store(&lc3->stop, true);
		dpk_lcore_wait(3);
		ASSERT_TRUE(false);
	}
}

/* Stop the callers of start_callers() and service lcores 1 and 2. */
static void stop_all(struct app_caller *lc3, struct app_caller *th, pthread_t t)
{
	atomic_store(&lc3->stop, true);
	atomic_store(&th->stop, true);
	pthread_join(t, NULL);
	ASSERT_EQ(0, dpk_lcore_wait(3));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(1));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(2));
}

/* ---- Exact statistics ---- */

/* The estimate flags checked after a run need calls the sampling left untimed on both
 * service lcores; an lcore preempted for most of the run gets more time. */
static void wait_for_estimates(void)
{
	for (uint64_t until = dpk_test_now_ms() + WAIT_MS; dpk_test_now_ms() < until;) {
		uint64_t e1 = 0, e2 = 0;

		ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED,
		                                        &e1));
		ASSERT_EQ(0, dpk_service_lcore_attr_get(2, DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED,
		                                        &e2));
		if (e1 && e2)
			break;
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
}

/* Each of the four services' statistics against what its callback counted; ids[2] is
 * the sampled one, ids[3] the always-idle one. */
static void check_service_stats(const uint32_t *ids, struct counted *const *all, uint32_t period)
{
	for (unsigned i = 0; i < 4; i++) {
		struct counted *c = all[i];
		struct dpk_service_stats st;
		unsigned long made = atomic_load(&c->made), idl = atomic_load(&c->idle);

		ASSERT_EQ(0, dpk_service_stats_get(ids[i], &st));
		dpk_test_note("%-8s calls %" PRIu64 " idle %" PRIu64 " errors %" PRIu64
		              " timed %" PRIu64 " cycles %" PRIu64 "%s",
		              dpk_service_name(ids[i]), st.calls, st.idle_calls, st.error_calls,
		              st.timed_calls, st.cycles, st.cycles_estimated ? " (estimated)" : "");
		ASSERT_GT(made, 0);
		ASSERT_EQ(made, st.calls);
		ASSERT_EQ(idl, st.idle_calls);
		ASSERT_EQ(atomic_load(&c->errors), st.error_calls);
		if (ids[i] == ids[2]) {
			/* Each of the IN_FLIGHT callers' counter slots times a charged call at
			 * most once per `period` of its own charged calls, plus its first. */
			ASSERT_LE(st.timed_calls, (made - idl) / period + IN_FLIGHT);
			ASSERT_TRUE(st.cycles_estimated);
		} else {
			ASSERT_EQ(made - idl, st.timed_calls);
			ASSERT_FALSE(st.cycles_estimated);
		}
	}
	/* The always-idle service was never charged a tick. */
	struct dpk_service_stats st;
	ASSERT_EQ(0, dpk_service_stats_get(ids[3], &st));
	ASSERT_EQ(0, st.cycles);
	ASSERT_EQ(0, st.timed_calls);
}

/* Per service lcore: every call its loop made, exactly. */
static void check_lcore_calls(struct counted *const *all)
{
	for (unsigned lc = 1; lc <= 2; lc++) {
		uint64_t calls, est;
		unsigned long made = 0;

		for (unsigned i = 0; i < 4; i++)
			made += atomic_load(&all[i]->by_lcore[lc]);
		ASSERT_EQ(0, dpk_service_lcore_attr_get(lc, DPK_SERVICE_LCORE_ATTR_CALLS, &calls));
		ASSERT_EQ(0, dpk_service_lcore_attr_get(lc, DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED,
		                                        &est));
		ASSERT_EQ(made, calls);
		ASSERT_EQ(1, est); /* the sampled service ran there too */
	}
}

static void stats_exact(enum layout l)
{
	static struct counted safe, unsafe, sampled, idle;
	struct counted *all[] = {&safe, &unsafe, &sampled, &idle};
	uint32_t ids[4];
	struct app_caller lc3 = {0}, th = {0};
	pthread_t t;
	uint64_t seed = dpk_test_seed(), rng = seed;
	uint32_t period = 2 + (uint32_t)(dpk_test_rand(&rng) % 8);
	unsigned long main_ok = 0, main_other = 0;

	layout(l);
	for (unsigned i = 0; i < 4; i++)
		memset(all[i], 0, sizeof(*all[i]));
	safe.mt_safe = sampled.mt_safe = idle.mt_safe = true;
	idle.always_idle = true;
	ids[0] = reg_counted("safe", &safe, dpk_test_rand(&rng));
	ids[1] = reg_counted("unsafe", &unsafe, dpk_test_rand(&rng));
	ids[2] = reg_counted("sampled", &sampled, dpk_test_rand(&rng));
	ids[3] = reg_counted("idle", &idle, 0);
	ASSERT_EQ(0, dpk_service_stats_sample_set(ids[2], period));
	start_service_lcores(ids, 4);
	start_callers(&lc3, &th, &t, ids, 4);
	uint64_t end = dpk_test_now_ms() + dpk_test_stress_ms(STRESS_MS);
	for (unsigned i = 0; dpk_test_now_ms() < end; i++) {
		int rc = dpk_service_run_iter_on_app_lcore(ids[i % 4], true);
		main_ok += rc == 0;
		main_other += rc != 0 && rc != -EBUSY;
	}
	wait_for_estimates();
	stop_all(&lc3, &th, t);

	ASSERT_EQ(0, main_other + lc3.bad + lc3.off + th.bad + th.off);
	ASSERT_EQ(0, atomic_load(&unsafe.overlaps));
	check_service_stats(ids, all, period);
	check_lcore_calls(all);
	ASSERT_EQ(0, dpk_service_reset_all());
}

static void stats_exact_spread(void)
{
	stats_exact(SPREAD);
}

static void stats_exact_oversub(void)
{
	stats_exact(OVERSUB);
}

/* ---- Resets racing the writers ---- */

/* The made counts (all lcores, service lcore 1) just before and just after a reset. */
struct reset_marks {
	unsigned long s0, s1, l0, l1;
};

/* One reset, of the service's statistics (odd rounds) or of lcore 1's, then a read of
 * both; returns how many of the read's bounds failed, and notes them when @p note. */
static unsigned long reset_round(struct counted *c, uint32_t id, unsigned long round,
                                 struct reset_marks *m, bool note)
{
	struct dpk_service_stats st;
	uint64_t lcalls;
	unsigned long before, after, lb, la, bad = 0;

	/* A reset between s0 and s1: a read later may count every call made after s1,
	 * and at most the calls in flight at s0 besides those made after it. */
	m->s0 = atomic_load(&c->made);
	m->l0 = atomic_load(&c->by_lcore[1]);
	if (round % 2)
		dpk_service_attr_reset_all(id);
	else
		dpk_service_lcore_attr_reset_all(1);
	m->s1 = atomic_load(&c->made);
	m->l1 = atomic_load(&c->by_lcore[1]);
	for (int i = 0; i < 100; i++)
		dpk_pause();
	before = atomic_load(&c->made);
	lb = atomic_load(&c->by_lcore[1]);
	dpk_service_stats_get(id, &st);
	dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CALLS, &lcalls);
	after = atomic_load(&c->made);
	la = atomic_load(&c->by_lcore[1]);
	if (round % 2) {
		/* Lower bound: calls made after s1 and before `before`, but for those
		 * still in flight; upper: calls made after s0 by `after`, plus those in
		 * flight at s0. Never garbage, never negative. */
		bad += st.calls + IN_FLIGHT < before - m->s1;
		bad += st.calls > after - m->s0 + IN_FLIGHT;
		/* Idle calls are calls too, but read at another moment than `calls`. */
		bad += st.idle_calls > after - m->s0 + IN_FLIGHT;
	} else {
		bad += lcalls + 1 < lb - m->l1;
		bad += lcalls > la - m->l0 + 1;
	}
	if (bad && note)
		dpk_test_note("round %lu: s0 %lu s1 %lu before %lu after %lu calls %" PRIu64
		              " idle %" PRIu64 "; l0 %lu l1 %lu lb %lu la %lu lcalls %" PRIu64,
		              round, m->s0, m->s1, before, after, st.calls, st.idle_calls, m->l0,
		              m->l1, lb, la, lcalls);
	return bad;
}

/* Quiet after @p rounds resets, the last as @p m says: its bounds hold with nothing in
 * flight, and after one more reset the counts are exact again. */
static void check_after_resets(struct counted *c, uint32_t id, unsigned long rounds,
                               const struct reset_marks *m)
{
	struct dpk_service_stats st;
	uint64_t lcalls;
	unsigned long made = atomic_load(&c->made);

	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CALLS, &lcalls));
	if ((rounds - 1) % 2) {
		ASSERT_GE(st.calls, made - m->s1);
		ASSERT_LE(st.calls, made - m->s0 + IN_FLIGHT);
	} else {
		unsigned long lmade = atomic_load(&c->by_lcore[1]);
		ASSERT_GE(lcalls, lmade - m->l1);
		ASSERT_LE(lcalls, lmade - m->l0 + 1);
	}
	/* Later increments are never lost: after a quiet reset, counts are exact again. */
	ASSERT_EQ(0, dpk_service_attr_reset_all(id));
	unsigned long from = atomic_load(&c->made);
	for (int i = 0; i < 1000; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(atomic_load(&c->made) - from, st.calls);
	ASSERT_EQ(1000, st.calls);
}

static void reset_while_running(enum layout l)
{
	static struct counted c;
	uint32_t id;
	struct app_caller lc3 = {0}, th = {0};
	struct reset_marks m = {0};
	pthread_t t;
	uint64_t seed = dpk_test_seed();
	unsigned long rounds = 0, bad = 0;

	layout(l);
	memset(&c, 0, sizeof(c));
	c.mt_safe = true;
	id = reg_counted("reset", &c, seed);
	start_service_lcores(&id, 1);
	start_callers(&lc3, &th, &t, &id, 1);
	uint64_t end = dpk_test_now_ms() + dpk_test_stress_ms(STRESS_MS);
	while (dpk_test_now_ms() < end)
		bad += reset_round(&c, id, rounds++, &m, bad == 0);
	stop_all(&lc3, &th, t);
	dpk_test_note("%lu resets", rounds);
	ASSERT_EQ(0, bad);
	check_after_resets(&c, id, rounds, &m);
	ASSERT_EQ(0, dpk_service_reset_all());
}

static void reset_while_running_spread(void)
{
	reset_while_running(SPREAD);
}

static void reset_while_running_oversub(void)
{
	reset_while_running(OVERSUB);
}

/* ---- Quiesce, then free ---- */

#define LIVE 0x11ec0de5u
#define DEAD 0xdeadbeefu

struct qstate {
	atomic_uint magic;
	atomic_ulong hits;
};

static _Atomic(struct qstate *) qcur;
static atomic_ulong qviolations;
static atomic_ulong qhits;

static int quiesce_cb(void *arg)
{
	(void)arg;
	/* Q1: pairs with Q2 in quiesce_then_free(): a callback that starts after the run
	 * state went back on sees the new state. */
	struct qstate *s = atomic_load_explicit(&qcur, memory_order_acquire);

	if (atomic_load(&s->magic) != LIVE)
		atomic_fetch_add(&qviolations, 1);
	atomic_fetch_add_explicit(&s->hits, 1, memory_order_relaxed);
	for (int i = 0; i < 20; i++)
		dpk_pause();
	if (atomic_load(&s->magic) != LIVE)
		atomic_fetch_add(&qviolations, 1);
	atomic_fetch_add_explicit(&qhits, 1, memory_order_relaxed);
	return 0;
}

static void quiesce_then_free(enum layout l, bool mt_safe)
{
	struct dpk_service_spec spec = {"quiesce", quiesce_cb, NULL,
	                                mt_safe ? DPK_SERVICE_CAP_MT_SAFE : 0};
	struct app_caller lc3 = {0}, th = {0};
	struct qstate *s;
	pthread_t t;
	uint32_t id;
	uint64_t rng = dpk_test_seed();
	unsigned long rounds = 0, stuck = 0;

	layout(l);
	atomic_store(&qviolations, 0);
	atomic_store(&qhits, 0);
	s = calloc(1, sizeof(*s));
	ASSERT_NOT_NULL(s);
	atomic_store(&s->magic, LIVE);
	atomic_store(&qcur, s);
	ASSERT_EQ(0, dpk_service_register(&spec, &id));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_runstate_set(id, true));
	start_service_lcores(&id, 1);
	start_callers(&lc3, &th, &t, &id, 1);
	uint64_t end = dpk_test_now_ms() + dpk_test_stress_ms(STRESS_MS);
	while (dpk_test_now_ms() < end && !stuck) {
		bool comp = dpk_test_rand(&rng) & 1;
		uint64_t wait_end;

		/* Let some calls happen. */
		for (int i = 0; i < 200; i++)
			dpk_pause();
		if (comp)
			dpk_service_component_runstate_set(id, false);
		else
			dpk_service_runstate_set(id, false);
		wait_end = dpk_test_now_ms() + WAIT_MS;
		while (dpk_service_may_be_active(id))
			if (dpk_test_now_ms() > wait_end) {
				stuck = 1;
				break;
			}
		if (stuck)
			break;
		/* Nobody may be inside, and nobody can enter: free the state for real. */
		struct qstate *old = atomic_load(&qcur), *fresh = calloc(1, sizeof(*fresh));
		if (!fresh) {
			stuck = 2;
			break;
		}
		atomic_store(&fresh->magic, LIVE);
		atomic_store(&old->magic, DEAD);
		free(old);
		/* Q2: pairs with Q1 in quiesce_cb(). */
		atomic_store_explicit(&qcur, fresh, memory_order_release);
		if (comp)
			dpk_service_component_runstate_set(id, true);
		else
			dpk_service_runstate_set(id, true);
		rounds++;
	}
	atomic_store(&lc3.stop, true);
	atomic_store(&th.stop, true);
	pthread_join(t, NULL);
	ASSERT_EQ(0, dpk_lcore_wait(3));
	ASSERT_EQ(0, dpk_service_reset_all());
	free(atomic_load(&qcur));
	dpk_test_note("%lu quiesce rounds, %lu calls, app callers ok %lu/%lu", rounds,
	              atomic_load(&qhits), lc3.ok, th.ok);
	ASSERT_EQ(0, stuck);
	ASSERT_EQ(0, atomic_load(&qviolations));
	ASSERT_EQ(0, lc3.bad + th.bad);
	ASSERT_GT(rounds, 0);
	ASSERT_GT(atomic_load(&qhits), 0);
}

static void quiesce_then_free_mt_safe_spread(void)
{
	quiesce_then_free(SPREAD, true);
}

static void quiesce_then_free_mt_safe_oversub(void)
{
	quiesce_then_free(OVERSUB, true);
}

static void quiesce_then_free_mt_unsafe_spread(void)
{
	quiesce_then_free(SPREAD, false);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(stats_exact_spread),
        DPK_TEST(stats_exact_oversub),
        DPK_TEST(reset_while_running_spread),
        DPK_TEST(reset_while_running_oversub),
        DPK_TEST(quiesce_then_free_mt_safe_spread),
        DPK_TEST(quiesce_then_free_mt_safe_oversub),
        DPK_TEST(quiesce_then_free_mt_unsafe_spread),
};

DPK_TEST_MAIN(cases)
