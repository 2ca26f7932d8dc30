/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service cores: registration, run states, service lcores and maps, running on any thread,
 * MT-safe and MT-unsafe execution, quiescence, statistics and their error paths.
 *
 * Waits for another thread are bounded (WAIT_MS) so that a scheduler that starves a thread
 * makes a case fail instead of hang; no case asserts how long anything took.
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

/* Bound on waiting for another thread to get somewhere. */
#define WAIT_MS 20000u

/* ---- A probe service: counts calls, tracks overlap, can hold a caller inside ---- */

struct probe {
	atomic_ulong calls;       /* calls made, counted inside the callback */
	atomic_int inside;        /* threads inside now */
	atomic_int max_inside;    /* most threads seen inside at once */
	atomic_int rc;            /* what the callback returns */
	atomic_bool hold;         /* callers stay inside while set (bounded) */
	atomic_uint hold_lcore;   /* only this lcore holds; DPK_LCORE_ANY: every caller */
	atomic_bool want_pair;    /* callers stay inside until a second one arrives (bounded) */
	atomic_bool entered;      /* some caller got inside */
	atomic_int holding;       /* callers held inside by `hold` now */
	atomic_uint pair_wait_ms; /* bound of a want_pair wait per call */
	uint64_t spin_ticks;      /* busy work per call, in TSC ticks */
};

static void probe_init(struct probe *p)
{
	memset(p, 0, sizeof(*p));
	atomic_init(&p->pair_wait_ms, WAIT_MS);
	atomic_init(&p->hold_lcore, DPK_LCORE_ANY);
}

static int probe_cb(void *arg)
{
	struct probe *p = arg;
	int now = atomic_fetch_add(&p->inside, 1) + 1;
	int max = atomic_load(&p->max_inside);

	while (now > max && !atomic_compare_exchange_weak(&p->max_inside, &max, now))
		;
	atomic_fetch_add(&p->calls, 1);
	atomic_store(&p->entered, true);
	if (p->spin_ticks) {
		uint64_t t0 = dpk_tsc();
		while (dpk_tsc() - t0 < p->spin_ticks)
			dpk_pause();
	}
	unsigned hl = atomic_load(&p->hold_lcore);
	if (atomic_load(&p->hold) && (hl == DPK_LCORE_ANY || hl == dpk_lcore_id())) {
		uint64_t end = dpk_test_now_ms() + WAIT_MS;
		atomic_fetch_add(&p->holding, 1);
		while (atomic_load(&p->hold) && dpk_test_now_ms() < end)
			sched_yield();
		atomic_fetch_sub(&p->holding, 1);
	}
	if (atomic_load(&p->want_pair)) {
		uint64_t end = dpk_test_now_ms() + atomic_load(&p->pair_wait_ms);
		while (atomic_load(&p->inside) < 2 && atomic_load(&p->want_pair) &&
		       dpk_test_now_ms() < end)
			sched_yield();
	}
	atomic_fetch_sub(&p->inside, 1);
	return atomic_load(&p->rc);
}

static int idle_cb(void *arg)
{
	(void)arg;
	return -EAGAIN;
}

/* Register @p name over probe @p p, both run states on when @p run. */
static uint32_t reg(const char *name, struct probe *p, uint32_t caps, bool run)
{
	struct dpk_service_spec spec = {name, probe_cb, p, caps};
	uint32_t id = UINT32_MAX;

	ASSERT_EQ(0, dpk_service_register(&spec, &id));
	if (run) {
		ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
		ASSERT_EQ(0, dpk_service_runstate_set(id, true));
	}
	return id;
}

static bool wait_flag(atomic_bool *flag)
{
	uint64_t end = dpk_test_now_ms() + WAIT_MS;

	while (!atomic_load(flag))
		if (dpk_test_now_ms() > end)
			return false;
		else
			sched_yield();
	return true;
}

/* Wait until a caller is held inside @p p (bounded). */
static bool wait_holding(struct probe *p)
{
	uint64_t end = dpk_test_now_ms() + WAIT_MS;

	while (atomic_load(&p->holding) == 0)
		if (dpk_test_now_ms() > end)
			return false;
		else
			sched_yield();
	return true;
}

static bool wait_calls(struct probe *p, unsigned long n)
{
	uint64_t end = dpk_test_now_ms() + WAIT_MS;

	while (atomic_load(&p->calls) < n)
		if (dpk_test_now_ms() > end)
			return false;
		else
			sched_yield();
	return true;
}

/* Poll dpk_service_may_be_active() until it returns false (bounded). */
static bool wait_inactive(uint32_t id)
{
	uint64_t end = dpk_test_now_ms() + WAIT_MS;

	while (dpk_service_may_be_active(id))
		if (dpk_test_now_ms() > end)
			return false;
		else
			sched_yield();
	return true;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Every case starts from an empty runtime. */
static void fresh(void)
{
	ASSERT_EQ(0, dpk_service_reset_all());
	ASSERT_EQ(0, dpk_service_count());
	ASSERT_EQ(0, dpk_service_lcore_count());
}

/* Lcores for the cases that need them: main lcore 0 and workers 1..3, lcores 0-1 on one
 * CPU and 2-3 on another when the process may use two CPUs, else all four on one. */
static bool lcores_up;

static void need_lcores(void)
{
	cpu_set_t set;
	int a = -1, b = -1;
	char spec[64];

	fresh();
	if (lcores_up)
		return;
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
		if (CPU_ISSET(c, &set)) {
			if (a < 0)
				a = c;
			else
				b = c;
		}
	ASSERT_GE(a, 0);
	if (b >= 0)
		snprintf(spec, sizeof(spec), "(0-1)@%d,(2-3)@%d", a, b);
	else
		snprintf(spec, sizeof(spec), "(0-3)@%d", a);
	ASSERT_EQ(0, dpk_lcore_init(spec));
	dpk_test_note("lcores %s", spec);
	lcores_up = true;
}

/* ---- Registration and lookup ---- */

static void register_rejects_bad_input(void)
{
	struct probe p;
	char longname[DPK_SERVICE_NAME_MAX + 1];
	uint32_t id = 77;

	fresh();
	probe_init(&p);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[DPK_SERVICE_NAME_MAX] = '\0';
	struct dpk_service_spec ok = {"ok", probe_cb, &p, 0};
	struct dpk_service_spec bad = ok;

	ASSERT_EQ(-EINVAL, dpk_service_register(NULL, &id));
	ASSERT_EQ(-EINVAL, dpk_service_register(&ok, NULL));
	bad.name = NULL;
	ASSERT_EQ(-EINVAL, dpk_service_register(&bad, &id));
	bad.name = "";
	ASSERT_EQ(-EINVAL, dpk_service_register(&bad, &id));
	bad.name = longname; /* DPK_SERVICE_NAME_MAX bytes: one too many */
	ASSERT_EQ(-EINVAL, dpk_service_register(&bad, &id));
	longname[DPK_SERVICE_NAME_MAX - 1] = '\0'; /* the longest that fits */
	bad = ok;
	bad.callback = NULL;
	ASSERT_EQ(-EINVAL, dpk_service_register(&bad, &id));
	bad = ok;
	bad.capabilities = 0x80;
	ASSERT_EQ(-EINVAL, dpk_service_register(&bad, &id));
	ASSERT_EQ(77, id);
	ASSERT_EQ(0, dpk_service_count());

	bad = ok;
	bad.name = longname;
	ASSERT_EQ(0, dpk_service_register(&bad, &id));
	ASSERT_STREQ(longname, dpk_service_name(id));
	ASSERT_EQ(1, dpk_service_count());
}

static void register_rejects_taken_name(void)
{
	struct probe p;
	uint32_t a, b = 99;

	fresh();
	probe_init(&p);
	a = reg("dup", &p, 0, false);
	struct dpk_service_spec spec = {"dup", probe_cb, &p, DPK_SERVICE_CAP_MT_SAFE};
	ASSERT_EQ(-EEXIST, dpk_service_register(&spec, &b));
	ASSERT_EQ(99, b);
	ASSERT_EQ(1, dpk_service_count());
	/* Once unregistered the name is free again. */
	ASSERT_EQ(0, dpk_service_unregister(a));
	ASSERT_EQ(0, dpk_service_register(&spec, &b));
	ASSERT_TRUE(dpk_service_probe_capability(b, DPK_SERVICE_CAP_MT_SAFE));
}

static void register_until_full(void)
{
	struct probe p;
	char name[DPK_SERVICE_NAME_MAX];
	uint32_t id, ids[DPK_SERVICE_MAX];

	fresh();
	probe_init(&p);
	for (unsigned i = 0; i < DPK_SERVICE_MAX; i++) {
		snprintf(name, sizeof(name), "svc%u", i);
		ids[i] = reg(name, &p, 0, false);
		ASSERT_EQ(i, ids[i]); /* lowest free id first */
	}
	ASSERT_EQ(DPK_SERVICE_MAX, dpk_service_count());
	struct dpk_service_spec spec = {"one-more", probe_cb, &p, 0};
	ASSERT_EQ(-ENOSPC, dpk_service_register(&spec, &id));
	ASSERT_EQ(0, dpk_service_unregister(ids[17]));
	ASSERT_EQ(0, dpk_service_register(&spec, &id));
	ASSERT_EQ(17, id);
	ASSERT_EQ(-ENOSPC,
	          dpk_service_register(&(struct dpk_service_spec){"x", probe_cb, &p, 0}, &id));
}

static void lookup_by_name_and_id(void)
{
	struct probe p;
	uint32_t a, b, id = 55;

	fresh();
	probe_init(&p);
	a = reg("alpha", &p, 0, false);
	b = reg("beta", &p, DPK_SERVICE_CAP_MT_SAFE, false);
	ASSERT_EQ(0, dpk_service_get_by_name("beta", &id));
	ASSERT_EQ(b, id);
	ASSERT_EQ(0, dpk_service_get_by_name("alpha", &id));
	ASSERT_EQ(a, id);
	ASSERT_EQ(-ENOENT, dpk_service_get_by_name("gamma", &id));
	ASSERT_EQ(-EINVAL, dpk_service_get_by_name(NULL, &id));
	ASSERT_EQ(-EINVAL, dpk_service_get_by_name("alpha", NULL));
	ASSERT_STREQ("alpha", dpk_service_name(a));
	ASSERT_NULL(dpk_service_name(DPK_SERVICE_MAX));
	ASSERT_NULL(dpk_service_name(5));
	ASSERT_FALSE(dpk_service_probe_capability(a, DPK_SERVICE_CAP_MT_SAFE));
	ASSERT_TRUE(dpk_service_probe_capability(a, 0));
	ASSERT_TRUE(dpk_service_probe_capability(b, DPK_SERVICE_CAP_MT_SAFE));
	ASSERT_FALSE(dpk_service_probe_capability(b, 0x2));
	ASSERT_FALSE(dpk_service_probe_capability(9, 0));
	ASSERT_EQ(2, dpk_service_count());
	ASSERT_EQ(0, dpk_service_unregister(a));
	ASSERT_EQ(-ENOENT, dpk_service_get_by_name("alpha", &id));
	ASSERT_NULL(dpk_service_name(a));
	ASSERT_EQ(1, dpk_service_count());
}

static void unknown_ids_are_rejected(void)
{
	struct probe p;
	uint64_t v = 5;
	uint32_t n = 3;
	struct dpk_service_stats st;
	const uint32_t bad[] = {0, 3, DPK_SERVICE_MAX, UINT32_MAX};

	fresh();
	probe_init(&p);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t id = bad[i];
		ASSERT_EQ(-EINVAL, dpk_service_unregister(id));
		ASSERT_EQ(-EINVAL, dpk_service_runstate_set(id, true));
		ASSERT_EQ(-EINVAL, dpk_service_component_runstate_set(id, true));
		ASSERT_EQ(-EINVAL, dpk_service_runstate_get(id));
		ASSERT_EQ(-EINVAL, dpk_service_run_iter_on_app_lcore(id, true));
		ASSERT_EQ(-EINVAL, dpk_service_run_iter_on_app_lcore(id, false));
		ASSERT_FALSE(dpk_service_may_be_active(id));
		ASSERT_EQ(-EINVAL, dpk_service_stats_enable(id, true));
		ASSERT_EQ(-EINVAL, dpk_service_stats_sample_set(id, 4));
		ASSERT_EQ(-EINVAL, dpk_service_stats_sample_get(id, &n));
		ASSERT_EQ(-EINVAL, dpk_service_stats_get(id, &st));
		ASSERT_EQ(-EINVAL, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CALLS, &v));
		ASSERT_EQ(-EINVAL, dpk_service_attr_reset_all(id));
		ASSERT_EQ(-EINVAL, dpk_service_map_lcore_set(id, 1, true));
		ASSERT_EQ(-EINVAL, dpk_service_map_lcore_get(id, 1));
		if (id != DPK_SERVICE_ALL)
			ASSERT_EQ(-EINVAL, dpk_service_dump(stdout, id));
	}
	ASSERT_EQ(5, v);
	ASSERT_EQ(3, n);
	/* A registered id with bad other arguments. */
	uint32_t id = reg("s", &p, 0, true);
	ASSERT_EQ(-EINVAL, dpk_service_stats_sample_set(id, 0));
	ASSERT_EQ(-EINVAL, dpk_service_stats_sample_get(id, NULL));
	ASSERT_EQ(0, dpk_service_stats_sample_get(id, &n));
	ASSERT_EQ(1, n);
	ASSERT_EQ(-EINVAL, dpk_service_stats_get(id, NULL));
	ASSERT_EQ(-EINVAL, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CALLS, NULL));
	ASSERT_EQ(-EINVAL, dpk_service_attr_get(id, (enum dpk_service_attr)99, &v));
	ASSERT_EQ(-EINVAL, dpk_service_dump(NULL, id));
	ASSERT_EQ(5, v);
	/* Lcore calls on lcores that are not service lcores (none are). */
	ASSERT_EQ(-EINVAL, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_LOOPS, &v));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_attr_reset_all(1));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_remove(1));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_start(1));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_stop(1));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_stop_force(1));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_count_services(1));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_services(1, NULL, 0));
	ASSERT_EQ(-EINVAL, dpk_service_map_lcore_set(id, 1, true));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_add(DPK_LCORE_MAX));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_add(DPK_LCORE_ANY));
	ASSERT_FALSE(dpk_service_lcore_may_be_active(1));
	ASSERT_FALSE(dpk_service_lcore_may_be_active(DPK_LCORE_ANY));
	ASSERT_EQ(5, v);
}

/* ---- Run states and running on the calling thread ---- */

static void runstates_both_needed(void)
{
	struct probe p;
	uint32_t id;

	fresh();
	probe_init(&p);
	id = reg("rs", &p, DPK_SERVICE_CAP_MT_SAFE, false);
	ASSERT_EQ(0, dpk_service_runstate_get(id));
	ASSERT_EQ(-ENOEXEC, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_runstate_get(id));
	ASSERT_EQ(-ENOEXEC, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, false));
	ASSERT_EQ(0, dpk_service_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_runstate_get(id));
	ASSERT_EQ(-ENOEXEC, dpk_service_run_iter_on_app_lcore(id, false));
	ASSERT_EQ(0, atomic_load(&p.calls));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
	ASSERT_EQ(1, dpk_service_runstate_get(id));
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, false));
	ASSERT_EQ(2, atomic_load(&p.calls));
	/* The callback's own result does not change what run_iter returns. */
	atomic_store(&p.rc, -EIO);
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_runstate_set(id, false));
	ASSERT_EQ(-ENOEXEC, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(3, atomic_load(&p.calls));
	ASSERT_FALSE(dpk_service_may_be_active(id));
}

/* ---- Statistics on the calling thread ---- */

static void stats_count_calls_idle_errors(void)
{
	struct probe p;
	struct dpk_service_stats st;
	uint64_t v;
	uint32_t id;

	fresh();
	probe_init(&p);
	id = reg("st", &p, 0, true);
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(0, st.calls); /* off by default */
	ASSERT_EQ(0, st.cycles);

	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	for (int i = 0; i < 100; i++) {
		atomic_store(&p.rc, i % 4 == 0   ? -EAGAIN
		                    : i % 4 == 1 ? -ENOENT
		                    : i % 4 == 2 ? 3
		                                 : 0);
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, i & 1));
	}
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(100, st.calls);
	ASSERT_EQ(25, st.idle_calls);
	ASSERT_EQ(50, st.error_calls); /* -ENOENT and the positive 3 */
	ASSERT_EQ(75, st.timed_calls);
	ASSERT_FALSE(st.cycles_estimated);
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CALLS, &v));
	ASSERT_EQ(100, v);
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_IDLE_CALLS, &v));
	ASSERT_EQ(25, v);
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_ERROR_CALLS, &v));
	ASSERT_EQ(50, v);
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_TIMED_CALLS, &v));
	ASSERT_EQ(75, v);
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CYCLES, &v));
	ASSERT_EQ_U(st.cycles, v);
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CYCLES_ESTIMATED, &v));
	ASSERT_EQ(0, v);

	/* Off again: counts stay, nothing is added. */
	ASSERT_EQ(0, dpk_service_stats_enable(id, false));
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CALLS, &v));
	ASSERT_EQ(100, v);
	ASSERT_EQ(101 + 10, atomic_load(&p.calls));
}

static void idle_calls_are_not_charged(void)
{
	struct probe busy;
	struct dpk_service_stats st;
	uint32_t idle, work;
	const uint64_t spin = 2000;

	fresh();
	probe_init(&busy);
	busy.spin_ticks = spin;
	struct dpk_service_spec spec = {"idle", idle_cb, NULL, DPK_SERVICE_CAP_MT_SAFE};
	ASSERT_EQ(0, dpk_service_register(&spec, &idle));
	ASSERT_EQ(0, dpk_service_component_runstate_set(idle, true));
	ASSERT_EQ(0, dpk_service_runstate_set(idle, true));
	ASSERT_EQ(0, dpk_service_stats_enable(idle, true));
	work = reg("work", &busy, 0, true);
	ASSERT_EQ(0, dpk_service_stats_enable(work, true));
	for (int i = 0; i < 200; i++) {
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(idle, true));
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(work, true));
	}
	ASSERT_EQ(0, dpk_service_stats_get(idle, &st));
	ASSERT_EQ(200, st.calls);
	ASSERT_EQ(200, st.idle_calls);
	ASSERT_EQ(0, st.cycles);
	ASSERT_EQ(0, st.timed_calls);
	ASSERT_FALSE(st.cycles_estimated);
	/* Every charged call spun for at least `spin` ticks inside the timed window. */
	ASSERT_EQ(0, dpk_service_stats_get(work, &st));
	ASSERT_EQ(200, st.calls);
	ASSERT_EQ(200, st.timed_calls);
	ASSERT_GE(st.cycles, 200 * spin);
}

static void sampling_keeps_counts_exact(void)
{
	struct probe p;
	struct dpk_service_stats st;
	uint32_t id, n = 0;
	const uint64_t spin = 1000;
	const unsigned calls = 1000, period = 8;

	fresh();
	probe_init(&p);
	p.spin_ticks = spin;
	id = reg("sampled", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(id, period));
	ASSERT_EQ(0, dpk_service_stats_sample_get(id, &n));
	ASSERT_EQ(period, n);
	for (unsigned i = 0; i < calls; i++) {
		atomic_store(&p.rc, i % 10 == 9 ? -EAGAIN : i % 10 == 8 ? -EIO : 0);
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	}
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(calls, st.calls);
	ASSERT_EQ(calls / 10, st.idle_calls);
	ASSERT_EQ(calls / 10, st.error_calls);
	/* The thread times its first call, then lets period - 1 charged calls pass untimed
	 * before it times the next one. A timed charged call stands for itself and the untimed
	 * charged calls since the previous one (a timed call that was idle passes them on). */
	unsigned timed = 0, since = period - 1, pending = 0, covered = 0;
	for (unsigned i = 0; i < calls; i++) {
		bool charged = i % 10 != 9;
		if (since >= period - 1) {
			since = 0;
			if (charged) {
				timed++;
				covered += pending + 1;
				pending = 0;
			}
		} else if (charged) {
			since++;
			pending++;
		}
	}
	ASSERT_EQ(timed, st.timed_calls);
	ASSERT_TRUE(st.cycles_estimated);
	/* Every charged call that a timed one stands for spun at least `spin` ticks. */
	ASSERT_GE(st.cycles, (uint64_t)covered * spin);

	/* Back to every call timed: still estimated until a reset. */
	ASSERT_EQ(0, dpk_service_stats_sample_set(id, 1));
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_TRUE(st.cycles_estimated);
	ASSERT_EQ(0, dpk_service_attr_reset_all(id));
	atomic_store(&p.rc, 0);
	for (unsigned i = 0; i < 10; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(10, st.calls);
	ASSERT_EQ(10, st.timed_calls);
	ASSERT_FALSE(st.cycles_estimated);
	ASSERT_GE(st.cycles, 10 * spin);
}

/* A call picked for timing that returns -EAGAIN passes its window on to the next timed one. */
static void sampling_idle_timed_call_passes_its_weight_on(void)
{
	/* period 4: call 0 timed (idle), 1-3 untimed, 4 timed (idle), 5-7 untimed, 8 timed and
	 * charged: it stands for itself and the six untimed charged calls before it. */
	static const int rcs[] = {-EAGAIN, 0, -EIO, 0, -EAGAIN, 0, 0, 0, 0};
	const unsigned n = sizeof(rcs) / sizeof(rcs[0]);
	const uint64_t spin = 1000;
	struct dpk_service_stats st;
	struct probe p;
	uint32_t id;

	fresh();
	probe_init(&p);
	p.spin_ticks = spin;
	id = reg("weights", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(id, 4));
	for (unsigned i = 0; i < n; i++) {
		atomic_store(&p.rc, rcs[i]);
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
		ASSERT_EQ(0, dpk_service_stats_get(id, &st));
		ASSERT_EQ(i + 1, st.calls);
		/* Nothing is charged until the first timed charged call. */
		ASSERT_EQ(i == n - 1 ? 1 : 0, st.timed_calls);
		ASSERT_EQ(i == n - 1 ? 1 : 0, st.cycles != 0);
		/* Untimed charged calls make the figure an estimate at once. */
		ASSERT_EQ(i >= 1, st.cycles_estimated);
	}
	ASSERT_EQ(2, st.idle_calls);
	ASSERT_EQ(1, st.error_calls);
	ASSERT_GE(st.cycles, 7 * spin);
	/* The next window starts over: three untimed calls, then a timed one of weight 4. */
	atomic_store(&p.rc, 0);
	for (unsigned i = 0; i < 4; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(n + 4, st.calls);
	ASSERT_EQ(2, st.timed_calls);
	ASSERT_GE(st.cycles, 11 * spin);
}

/* A service whose callback runs a service again on the same thread. */
struct nest {
	uint32_t id;        /* the service to run from inside */
	atomic_uint depth;  /* current nesting */
	atomic_ulong calls; /* callbacks entered */
	atomic_int inner_rc;
	int rc; /* what the callback returns, by depth: 0 outermost */
};

static int nest_cb(void *arg)
{
	struct nest *n = arg;
	unsigned d = atomic_fetch_add(&n->depth, 1);

	atomic_fetch_add(&n->calls, 1);
	if (d < 2) {
		int rc = dpk_service_run_iter_on_app_lcore(n->id, d % 2 == 0);
		if (rc != 0)
			atomic_store(&n->inner_rc, rc);
	}
	atomic_fetch_sub(&n->depth, 1);
	return d == 1 ? -EAGAIN : 0;
}

static void nested_calls_are_counted(void)
{
	static const uint32_t periods[] = {1, 3};
	struct dpk_service_stats st;
	struct nest nest;
	uint32_t id;

	for (unsigned k = 0; k < 2; k++) {
		fresh();
		memset(&nest, 0, sizeof(nest));
		struct dpk_service_spec spec = {"nest", nest_cb, &nest, DPK_SERVICE_CAP_MT_SAFE};
		ASSERT_EQ(0, dpk_service_register(&spec, &id));
		nest.id = id;
		ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
		ASSERT_EQ(0, dpk_service_runstate_set(id, true));
		ASSERT_EQ(0, dpk_service_stats_enable(id, true));
		ASSERT_EQ(0, dpk_service_stats_sample_set(id, periods[k]));
		/* Each outer call makes two more inside: depth 0 and 2 charged, depth 1 idle. */
		for (unsigned i = 0; i < 50; i++)
			ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
		ASSERT_EQ(0, atomic_load(&nest.inner_rc));
		ASSERT_EQ(150, atomic_load(&nest.calls));
		ASSERT_EQ(0, dpk_service_stats_get(id, &st));
		ASSERT_EQ(150, st.calls);
		ASSERT_EQ(50, st.idle_calls);
		ASSERT_EQ(0, st.error_calls);
		if (periods[k] == 1) {
			ASSERT_EQ(100, st.timed_calls);
			ASSERT_FALSE(st.cycles_estimated);
		} else {
			ASSERT_LT(st.timed_calls, 100);
			ASSERT_TRUE(st.cycles_estimated);
		}
		/* The nested calls left no mark behind. */
		ASSERT_EQ(0, dpk_service_runstate_set(id, false));
		ASSERT_FALSE(dpk_service_may_be_active(id));
		ASSERT_EQ(0, dpk_service_unregister(id));
	}
}

static void attr_reset_restarts_from_zero(void)
{
	struct probe p;
	struct dpk_service_stats st;
	uint32_t id;

	fresh();
	probe_init(&p);
	id = reg("reset", &p, 0, true);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	for (int i = 0; i < 50; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_attr_reset_all(id));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(0, st.calls);
	ASSERT_EQ(0, st.cycles);
	ASSERT_EQ(0, st.timed_calls);
	atomic_store(&p.rc, -EAGAIN);
	for (int i = 0; i < 7; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(7, st.calls);
	ASSERT_EQ(7, st.idle_calls);
	ASSERT_EQ(0, st.cycles);
}

static void reregistered_id_starts_from_zero(void)
{
	struct probe p;
	struct dpk_service_stats st;
	uint32_t id, id2;

	fresh();
	probe_init(&p);
	id = reg("first", &p, 0, true);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(id, 16));
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_unregister(id));
	ASSERT_EQ(-EINVAL, dpk_service_run_iter_on_app_lcore(id, true));
	id2 = reg("second", &p, 0, true);
	ASSERT_EQ(id, id2);
	ASSERT_EQ(0, dpk_service_stats_get(id2, &st));
	ASSERT_EQ(0, st.calls);
	ASSERT_FALSE(st.cycles_estimated);
	/* Stats and sampling are back to their defaults: off, then every call timed. */
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id2, true));
	ASSERT_EQ(0, dpk_service_stats_get(id2, &st));
	ASSERT_EQ(0, st.calls);
	ASSERT_EQ(0, dpk_service_stats_enable(id2, true));
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id2, true));
	ASSERT_EQ(0, dpk_service_stats_get(id2, &st));
	ASSERT_EQ(1, st.calls);
	ASSERT_EQ(1, st.timed_calls);
	ASSERT_FALSE(st.cycles_estimated);
}

static void dump_lists_services(void)
{
	struct probe p;
	uint32_t a, b;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fresh();
	probe_init(&p);
	a = reg("dump-a", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	b = reg("dump-b", &p, 0, false);
	ASSERT_EQ(0, dpk_service_stats_enable(a, true));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(a, true));
	f = open_memstream(&buf, &len);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, dpk_service_dump(f, DPK_SERVICE_ALL));
	fclose(f);
	ASSERT_NOT_NULL(strstr(buf, "\"dump-a\""));
	ASSERT_NOT_NULL(strstr(buf, "\"dump-b\""));
	ASSERT_NOT_NULL(strstr(buf, "calls 3 "));
	ASSERT_NOT_NULL(strstr(buf, "mt-unsafe"));
	ASSERT_NOT_NULL(strstr(buf, "barrier "));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, dpk_service_dump(f, b));
	fclose(f);
	ASSERT_NULL(strstr(buf, "\"dump-a\""));
	ASSERT_NOT_NULL(strstr(buf, "\"dump-b\""));
	free(buf);
}

static void reset_all_empties_everything(void)
{
	struct probe p;
	uint32_t id;

	fresh();
	probe_init(&p);
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "r%d", i);
		id = reg(name, &p, 0, true);
	}
	ASSERT_EQ(5, dpk_service_count());
	ASSERT_EQ(0, dpk_service_reset_all());
	ASSERT_EQ(0, dpk_service_count());
	ASSERT_EQ(-EINVAL, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, reg("r0", &p, 0, false)); /* ids and names are free again */
}

/* ---- Threads that are not lcores ---- */

struct caller {
	pthread_t th;
	uint32_t id;
	unsigned calls;
	atomic_uint *done;    /* if set: count ourselves done here after the calls... */
	atomic_bool *release; /* ...then wait for this before exiting (bounded) */
	int busy;             /* run_iter results -EBUSY */
	int bad;              /* other results than 0 and -EBUSY */
};

static void *caller_main(void *arg)
{
	struct caller *c = arg;

	for (unsigned i = 0; i < c->calls; i++) {
		int rc = dpk_service_run_iter_on_app_lcore(c->id, true);
		c->busy += rc == -EBUSY;
		c->bad += rc != 0 && rc != -EBUSY;
	}
	if (c->done) {
		uint64_t end = dpk_test_now_ms() + WAIT_MS;
		atomic_fetch_add(c->done, 1);
		while (!atomic_load(c->release) && dpk_test_now_ms() < end)
			sched_yield();
	}
	return NULL;
}

static void exited_threads_keep_their_counts(void)
{
	struct probe p;
	struct caller c[3];
	uint64_t v;
	uint32_t id;

	fresh();
	probe_init(&p);
	id = reg("exit", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	/* One after the other, so later threads reuse the slot an earlier one gave back. */
	for (int i = 0; i < 3; i++) {
		c[i] = (struct caller){.id = id, .calls = 1000 * (unsigned)(i + 1)};
		ASSERT_EQ(0, pthread_create(&c[i].th, NULL, caller_main, &c[i]));
		ASSERT_EQ(0, pthread_join(c[i].th, NULL));
		ASSERT_EQ(0, c[i].bad);
		ASSERT_EQ(0, c[i].busy);
	}
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CALLS, &v));
	ASSERT_EQ(6000, v);
	ASSERT_EQ(6000, atomic_load(&p.calls));
}

static void threads_beyond_the_slots_are_counted(void)
{
	enum { N = DPK_SERVICE_THREAD_SLOTS + 6 };
	static struct caller c[N];
	atomic_uint done = 0;
	atomic_bool release = false;
	struct dpk_service_stats st;
	struct probe p, q;
	uint32_t safe, unsafe;
	int started = 0;

	fresh();
	probe_init(&p);
	probe_init(&q);
	safe = reg("many-safe", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	unsafe = reg("many-unsafe", &q, 0, true);
	ASSERT_EQ(0, dpk_service_stats_enable(safe, true));
	ASSERT_EQ(0, dpk_service_stats_enable(unsafe, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(safe, 3)); /* ignored by the shared slot */
	/* All threads stay alive until every one has made its calls, so the last ones find
	 * every slot taken and share the spare one. The main thread holds a slot too. */
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(safe, true));
	for (int i = 0; i < N; i++) {
		c[i] = (struct caller){.id = i % 2 ? unsafe : safe,
		                       .calls = 500,
		                       .done = &done,
		                       .release = &release};
		if (pthread_create(&c[i].th, NULL, caller_main, &c[i]) != 0)
			break;
		started++;
	}
	uint64_t end = dpk_test_now_ms() + WAIT_MS;
	while (atomic_load(&done) < (unsigned)started && dpk_test_now_ms() < end)
		sched_yield();
	atomic_store(&release, true);
	for (int i = 0; i < started; i++)
		pthread_join(c[i].th, NULL);
	ASSERT_EQ(N, started);
	unsigned long busy = 0;
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(0, c[i].bad);
		if (i % 2 == 0)
			ASSERT_EQ(0, c[i].busy);
		busy += (unsigned long)c[i].busy;
	}
	/* MT-unsafe calls that found the service taken returned -EBUSY and were not made. */
	ASSERT_EQ(0, dpk_service_stats_get(safe, &st));
	ASSERT_EQ(atomic_load(&p.calls), st.calls);
	ASSERT_EQ(1 + 500 * (N / 2), st.calls);
	ASSERT_EQ(0, dpk_service_stats_get(unsafe, &st));
	ASSERT_EQ(atomic_load(&q.calls), st.calls);
	ASSERT_EQ(500 * (N / 2) - busy, st.calls);
	ASSERT_EQ(1, atomic_load(&q.max_inside));
}

/* A thread inside a callback, held there until released. */
struct holder {
	pthread_t th;
	uint32_t id;
	int rc;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	h->rc = dpk_service_run_iter_on_app_lcore(h->id, true);
	return NULL;
}

static void may_be_active_sees_app_callers(void)
{
	struct probe p;
	struct holder h;
	uint32_t id;

	fresh();
	probe_init(&p);
	id = reg("held", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_FALSE(dpk_service_may_be_active(id)); /* runnable, but nothing maps or runs it */
	atomic_store(&p.hold, true);
	h = (struct holder){.id = id, .rc = 1};
	ASSERT_EQ(0, pthread_create(&h.th, NULL, holder_main, &h));
	bool in = wait_holding(&p);
	bool seen = dpk_service_may_be_active(id);
	/* Turning it off does not make the caller inside leave. */
	dpk_service_runstate_set(id, false);
	bool seen_off = dpk_service_may_be_active(id);
	atomic_store(&p.hold, false);
	pthread_join(h.th, NULL);
	ASSERT_TRUE(in);
	ASSERT_TRUE(seen);
	ASSERT_TRUE(seen_off);
	ASSERT_EQ(0, h.rc);
	ASSERT_FALSE(dpk_service_may_be_active(id));
}

static void unregister_waits_for_callers(void)
{
	struct probe p;
	struct holder h;
	uint32_t id;

	fresh();
	probe_init(&p);
	id = reg("drain", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	atomic_store(&p.want_pair, true);   /* the caller waits inside for a second one... */
	atomic_store(&p.pair_wait_ms, 200); /* ...that never comes, for 200 ms */
	h = (struct holder){.id = id, .rc = 1};
	ASSERT_EQ(0, pthread_create(&h.th, NULL, holder_main, &h));
	bool in = wait_flag(&p.entered);
	int rc = dpk_service_unregister(id);
	/* Unregister returned: the caller must have left the callback. */
	int inside = atomic_load(&p.inside);
	pthread_join(h.th, NULL);
	ASSERT_TRUE(in);
	ASSERT_EQ(0, rc);
	ASSERT_EQ(0, inside);
	ASSERT_EQ(0, h.rc);
	ASSERT_EQ(-EINVAL, dpk_service_run_iter_on_app_lcore(id, true));
}

static uint32_t self_id;
static atomic_int self_rc;

static int unregister_self_cb(void *arg)
{
	(void)arg;
	atomic_store(&self_rc, dpk_service_unregister(self_id));
	return 0;
}

static void unregister_from_own_callback_is_refused(void)
{
	struct dpk_service_spec spec = {"self", unregister_self_cb, NULL, 0};

	fresh();
	ASSERT_EQ(0, dpk_service_register(&spec, &self_id));
	ASSERT_EQ(0, dpk_service_component_runstate_set(self_id, true));
	ASSERT_EQ(0, dpk_service_runstate_set(self_id, true));
	atomic_store(&self_rc, 1);
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(self_id, true));
	ASSERT_EQ(-EBUSY, atomic_load(&self_rc));
	ASSERT_EQ(1, dpk_service_count());
	ASSERT_EQ(1, dpk_service_runstate_get(self_id));
	ASSERT_EQ(0, dpk_service_unregister(self_id));
}

/* ---- Service lcores ---- */

static void lcore_add_remove_rules(void)
{
	unsigned list[4] = {99, 99, 99, 99};

	need_lcores();
	ASSERT_EQ(-EINVAL, dpk_service_lcore_add(dpk_lcore_main()));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_add(5)); /* not an lcore */
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(-EALREADY, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(2, dpk_service_lcore_count());
	ASSERT_EQ(-ENOMEM, dpk_service_lcore_list(list, 1));
	ASSERT_EQ(99, list[0]);
	ASSERT_EQ(-EINVAL, dpk_service_lcore_list(NULL, 4));
	ASSERT_EQ(2, dpk_service_lcore_list(list, 4));
	ASSERT_EQ(1, list[0]);
	ASSERT_EQ(2, list[1]);
	ASSERT_EQ(0, dpk_service_lcore_count_services(1));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_remove(3));
	ASSERT_EQ(0, dpk_service_lcore_remove(2));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_remove(2));
	ASSERT_EQ(1, dpk_service_lcore_count());
	ASSERT_EQ(0, dpk_service_lcore_reset_all());
	ASSERT_EQ(0, dpk_service_lcore_count());
}

static void map_queries(void)
{
	struct probe p;
	uint32_t a, b, ids[4] = {99, 99, 99, 99};

	need_lcores();
	probe_init(&p);
	a = reg("map-a", &p, 0, false);
	b = reg("map-b", &p, 0, false);
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(-EINVAL, dpk_service_map_lcore_set(a, 3, true)); /* not a service lcore */
	ASSERT_EQ(-EINVAL, dpk_service_map_lcore_set(a, dpk_lcore_main(), true));
	ASSERT_EQ(-EINVAL, dpk_service_map_lcore_get(a, 3));
	ASSERT_EQ(0, dpk_service_map_lcore_get(a, 1));
	ASSERT_EQ(0, dpk_service_map_lcore_set(a, 1, true));
	ASSERT_EQ(0, dpk_service_map_lcore_set(a, 1, true)); /* no change */
	ASSERT_EQ(0, dpk_service_map_lcore_set(b, 1, true));
	ASSERT_EQ(0, dpk_service_map_lcore_set(b, 2, true));
	ASSERT_EQ(1, dpk_service_map_lcore_get(a, 1));
	ASSERT_EQ(0, dpk_service_map_lcore_get(a, 2));
	ASSERT_EQ(1, dpk_service_map_lcore_get(b, 2));
	ASSERT_EQ(2, dpk_service_lcore_count_services(1));
	ASSERT_EQ(1, dpk_service_lcore_count_services(2));
	ASSERT_EQ(-ENOMEM, dpk_service_lcore_services(1, ids, 1));
	ASSERT_EQ(99, ids[0]);
	ASSERT_EQ(-EINVAL, dpk_service_lcore_services(1, NULL, 2));
	ASSERT_EQ(2, dpk_service_lcore_services(1, ids, 4));
	ASSERT_EQ(a, ids[0]);
	ASSERT_EQ(b, ids[1]);
	ASSERT_EQ(0, dpk_service_map_lcore_set(a, 1, false));
	ASSERT_EQ(0, dpk_service_map_lcore_get(a, 1));
	ASSERT_EQ(1, dpk_service_lcore_count_services(1));
	/* Unregistering unmaps everywhere. */
	ASSERT_EQ(0, dpk_service_unregister(b));
	ASSERT_EQ(0, dpk_service_lcore_count_services(1));
	ASSERT_EQ(0, dpk_service_lcore_count_services(2));
	/* Removing a lcore drops its map; added again it starts empty. */
	ASSERT_EQ(0, dpk_service_map_lcore_set(a, 2, true));
	ASSERT_EQ(0, dpk_service_lcore_remove(2));
	ASSERT_EQ(-EINVAL, dpk_service_map_lcore_get(a, 2));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_map_lcore_get(a, 2));
}

static void lcore_start_stop_rules(void)
{
	struct probe p, q;
	uint32_t a, b;

	need_lcores();
	probe_init(&p);
	probe_init(&q);
	a = reg("ss-a", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	b = reg("ss-b", &q, 0, true);
	ASSERT_EQ(-EINVAL, dpk_service_lcore_start(1));
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(-EALREADY, dpk_service_lcore_stop(1));
	ASSERT_EQ(-EALREADY, dpk_service_lcore_stop_force(1));
	ASSERT_FALSE(dpk_service_lcore_may_be_active(1));
	ASSERT_EQ(0, dpk_service_map_lcore_set(a, 1, true));
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_TRUE(dpk_service_lcore_may_be_active(1));
	ASSERT_EQ(-EALREADY, dpk_service_lcore_start(1));
	ASSERT_EQ(-EBUSY, dpk_service_lcore_remove(1));
	ASSERT_TRUE(wait_calls(&p, 1));
	/* The only started lcore running a service that is on. */
	ASSERT_EQ(-EBUSY, dpk_service_lcore_stop(1));
	ASSERT_TRUE(dpk_service_lcore_may_be_active(1));
	/* With a second runner it may stop. */
	ASSERT_EQ(0, dpk_service_map_lcore_set(a, 2, true));
	ASSERT_EQ(-EBUSY, dpk_service_lcore_stop(1)); /* lcore 2 is not started */
	ASSERT_EQ(0, dpk_service_lcore_start(2));
	ASSERT_EQ(0, dpk_service_lcore_stop(1));
	ASSERT_FALSE(dpk_service_lcore_may_be_active(1));
	/* After stop returns, the lcore makes no more calls. */
	ASSERT_EQ(0, dpk_service_map_lcore_set(b, 1, true));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(2));
	unsigned long seen = atomic_load(&p.calls) + atomic_load(&q.calls);
	sleep_ms(20);
	ASSERT_EQ(seen, atomic_load(&p.calls) + atomic_load(&q.calls));
	/* Run state off: not "still running", so a plain stop is fine. */
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_TRUE(wait_calls(&q, 1));
	ASSERT_EQ(0, dpk_service_runstate_set(a, false));
	ASSERT_EQ(-EBUSY, dpk_service_lcore_stop(1)); /* b is still on */
	ASSERT_EQ(0, dpk_service_component_runstate_set(b, false));
	ASSERT_EQ(0, dpk_service_lcore_stop(1));
	ASSERT_EQ(0, dpk_service_lcore_remove(1));
	ASSERT_EQ(0, dpk_service_lcore_remove(2));
}

/* What the control calls return on a thread that is not the main lcore. */
struct foreign_try {
	int stop, stop_force, start, lcore_reset, reset;
};

static void try_control(struct foreign_try *t)
{
	t->stop = dpk_service_lcore_stop(1);
	t->stop_force = dpk_service_lcore_stop_force(1);
	t->start = dpk_service_lcore_start(2);
	t->lcore_reset = dpk_service_lcore_reset_all();
	t->reset = dpk_service_reset_all();
}

static void *foreign_main(void *arg)
{
	try_control(arg);
	return NULL;
}

/* A callback on service lcore 1 that tries the control calls once. */
static struct foreign_try from_cb;
static atomic_bool cb_tried;

static int control_cb(void *arg)
{
	(void)arg;
	if (!atomic_load(&cb_tried)) {
		try_control(&from_cb);
		atomic_store(&cb_tried, true);
	}
	return 0;
}

/* Each call refused; a full reset from inside a callback is refused for that first. */
static void expect_refused(const struct foreign_try *t, int reset_rc)
{
	EXPECT_EQ(-EPERM, t->stop);
	EXPECT_EQ(-EPERM, t->stop_force);
	EXPECT_EQ(-EPERM, t->start);
	EXPECT_EQ(-EPERM, t->lcore_reset);
	EXPECT_EQ(reset_rc, t->reset);
}

/* A stop from another thread returned 0 without waiting for the loop, which could still run
 * a callback, and left the lcore un-waited: the main lcore's next start got -EBUSY. */
static void lcore_control_is_main_only(void)
{
	struct dpk_service_spec spec = {"main-only", control_cb, NULL, DPK_SERVICE_CAP_MT_SAFE};
	struct foreign_try t;
	pthread_t th;
	uint32_t id;

	need_lcores();
	atomic_store(&cb_tried, false);
	ASSERT_EQ(0, dpk_service_register(&spec, &id));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 1, true));
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_TRUE(wait_flag(&cb_tried));
	expect_refused(&from_cb, -EBUSY);
	ASSERT_EQ(0, pthread_create(&th, NULL, foreign_main, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	expect_refused(&t, -EPERM);
	/* Nothing changed: lcore 1 still runs, lcore 2 is still stopped, both still here. */
	EXPECT_TRUE(dpk_service_lcore_may_be_active(1));
	EXPECT_FALSE(dpk_service_lcore_may_be_active(2));
	EXPECT_EQ(2, dpk_service_lcore_count());
	EXPECT_EQ(1, dpk_service_count());
	ASSERT_EQ(0, dpk_service_lcore_stop_force(1));
	EXPECT_FALSE(dpk_service_lcore_may_be_active(1));
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(1));
}

static atomic_bool plain_release;

static int plain_fn(void *arg)
{
	uint64_t end = dpk_test_now_ms() + WAIT_MS;

	(void)arg;
	while (!atomic_load(&plain_release) && dpk_test_now_ms() < end)
		sched_yield();
	return 7;
}

static void start_refused_while_lcore_busy(void)
{
	need_lcores();
	atomic_store(&plain_release, false);
	ASSERT_EQ(0, dpk_lcore_launch(3, plain_fn, NULL));
	ASSERT_EQ(0, dpk_service_lcore_add(3));
	int rc = dpk_service_lcore_start(3);
	bool active = dpk_service_lcore_may_be_active(3);
	atomic_store(&plain_release, true);
	int wrc = dpk_lcore_wait(3);
	ASSERT_EQ(-EBUSY, rc);
	ASSERT_FALSE(active);
	ASSERT_EQ(7, wrc);
	ASSERT_EQ(0, dpk_service_lcore_start(3));
	ASSERT_EQ(0, dpk_service_lcore_stop(3));
}

static void service_lcore_runs_mapped_services(void)
{
	struct probe p, q, r;
	struct dpk_service_stats st;
	uint64_t loops, calls, cycles, est;
	uint32_t a, b, c;

	need_lcores();
	probe_init(&p);
	probe_init(&q);
	probe_init(&r);
	p.spin_ticks = 500;
	a = reg("run-a", &p, 0, true);
	b = reg("run-b", &q, DPK_SERVICE_CAP_MT_SAFE, true);
	c = reg("run-c", &r, 0, true); /* not mapped: never runs */
	ASSERT_EQ(0, dpk_service_stats_enable(a, true));
	ASSERT_EQ(0, dpk_service_stats_enable(b, true));
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_map_lcore_set(a, 1, true));
	ASSERT_EQ(0, dpk_service_map_lcore_set(b, 1, true));
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_TRUE(wait_calls(&p, 1000));
	ASSERT_TRUE(wait_calls(&q, 1000));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(1));
	ASSERT_EQ(0, atomic_load(&r.calls));
	(void)c;
	ASSERT_EQ(0, dpk_service_stats_get(a, &st));
	ASSERT_EQ(atomic_load(&p.calls), st.calls);
	ASSERT_EQ(st.calls, st.timed_calls);
	ASSERT_GE(st.cycles, st.calls * 500);
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_LOOPS, &loops));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CALLS, &calls));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CYCLES, &cycles));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED, &est));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_attr_get(1, (enum dpk_service_lcore_attr)9, &est));
	ASSERT_EQ(-EINVAL, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_LOOPS, NULL));
	ASSERT_EQ(atomic_load(&p.calls) + atomic_load(&q.calls), calls);
	/* Each loop runs each mapped service at most once. */
	ASSERT_GE(loops, atomic_load(&p.calls));
	ASSERT_GE(loops, atomic_load(&q.calls));
	ASSERT_GE(cycles, st.cycles);
	ASSERT_EQ(0, est);
	ASSERT_EQ(0, dpk_service_lcore_attr_reset_all(1));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_LOOPS, &loops));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CALLS, &calls));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(1, DPK_SERVICE_LCORE_ATTR_CYCLES, &cycles));
	ASSERT_EQ(0, loops);
	ASSERT_EQ(0, calls);
	ASSERT_EQ(0, cycles);
	/* The per-service figures are not touched by the lcore reset. */
	ASSERT_EQ(0, dpk_service_attr_get(a, DPK_SERVICE_ATTR_CALLS, &calls));
	ASSERT_EQ(atomic_load(&p.calls), calls);
}

static void mt_safe_runs_concurrently(void)
{
	struct probe p;
	uint32_t id;

	need_lcores();
	probe_init(&p);
	atomic_store(&p.want_pair, true); /* each caller waits inside for a second one */
	id = reg("pair", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 1, true));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 2, true));
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_EQ(0, dpk_service_lcore_start(2));
	uint64_t end = dpk_test_now_ms() + WAIT_MS;
	while (atomic_load(&p.max_inside) < 2 && dpk_test_now_ms() < end)
		sched_yield();
	atomic_store(&p.want_pair, false);
	ASSERT_EQ(0, dpk_service_lcore_reset_all());
	ASSERT_GE(atomic_load(&p.max_inside), 2);
	ASSERT_EQ(0, atomic_load(&p.inside));
}

/* An app-lcore caller on worker lcore 3: calls run_iter until told to stop. */
struct app_caller {
	uint32_t id;
	atomic_bool stop;
	unsigned long ok, busy, other;
};

static int app_caller_fn(void *arg)
{
	struct app_caller *a = arg;

	while (!atomic_load_explicit(&a->stop, memory_order_relaxed)) {
		int rc = dpk_service_run_iter_on_app_lcore(a->id, true);
		if (rc == 0)
			a->ok++;
		else if (rc == -EBUSY)
			a->busy++;
		else
			a->other++;
	}
	return 0;
}

static void *app_caller_thread(void *arg)
{
	app_caller_fn(arg);
	return NULL;
}

static void mt_unsafe_never_concurrent(void)
{
	struct probe p;
	struct app_caller lc3 = {0}, th = {0};
	pthread_t t;
	uint32_t id;
	unsigned long main_ok = 0, main_busy = 0, main_other = 0;

	need_lcores();
	probe_init(&p);
	/* Each caller lingers inside (a little) hoping for company it must never get. */
	atomic_store(&p.want_pair, true);
	atomic_store(&p.pair_wait_ms, 1);
	id = reg("solo", &p, 0, true);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 1, true));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 2, true));
	lc3.id = th.id = id;
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_EQ(0, dpk_service_lcore_start(2));
	ASSERT_EQ(0, dpk_lcore_launch(3, app_caller_fn, &lc3));
	ASSERT_EQ(0, pthread_create(&t, NULL, app_caller_thread, &th));
	uint64_t end = dpk_test_now_ms() + dpk_test_stress_ms(300);
	while (dpk_test_now_ms() < end) {
		int rc = dpk_service_run_iter_on_app_lcore(id, true);
		main_ok += rc == 0;
		main_busy += rc == -EBUSY;
		main_other += rc != 0 && rc != -EBUSY;
	}
	atomic_store(&lc3.stop, true);
	atomic_store(&th.stop, true);
	pthread_join(t, NULL);
	dpk_lcore_wait(3);
	ASSERT_EQ(0, dpk_service_lcore_reset_all());
	ASSERT_EQ(1, atomic_load(&p.max_inside));
	ASSERT_EQ(0, main_other + lc3.other + th.other);
	uint64_t calls;
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CALLS, &calls));
	ASSERT_EQ(atomic_load(&p.calls), calls);
	dpk_test_note("calls %" PRIu64 ": main %lu (busy %lu), lcore 3 %lu (busy %lu), thread %lu "
	              "(busy %lu)",
	              calls, main_ok, main_busy, lc3.ok, lc3.busy, th.ok, th.busy);
}

static void app_caller_gets_busy_for_mt_unsafe(void)
{
	struct probe p, q;
	uint32_t unsafe, safe;

	need_lcores();
	probe_init(&p);
	probe_init(&q);
	atomic_store(&p.hold, true);
	atomic_store(&q.hold, true);
	atomic_store(&q.hold_lcore, 2); /* the main lcore's own call must not hold */
	unsafe = reg("busy-unsafe", &p, 0, true);
	safe = reg("busy-safe", &q, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_map_lcore_set(unsafe, 2, true));
	ASSERT_EQ(0, dpk_service_map_lcore_set(safe, 2, true));
	ASSERT_EQ(0, dpk_service_lcore_start(2));
	/* The lcore is held inside the MT-unsafe service first (lower id). */
	bool in = wait_holding(&p);
	int busy = dpk_service_run_iter_on_app_lcore(unsafe, true);
	unsigned long before = atomic_load(&p.calls);
	/* Release it; it goes on to hold inside the MT-safe one, where we join it. */
	atomic_store(&p.hold, false);
	bool in2 = wait_holding(&q);
	int safe_rc = dpk_service_run_iter_on_app_lcore(safe, true);
	int both = atomic_load(&q.max_inside);
	atomic_store(&q.hold, false);
	ASSERT_EQ(0, dpk_service_lcore_stop_force(2));
	ASSERT_TRUE(in);
	ASSERT_TRUE(in2);
	ASSERT_EQ(-EBUSY, busy);
	ASSERT_GE(before, 1);
	ASSERT_EQ(0, safe_rc);
	ASSERT_EQ(2, both);
	/* Nobody holds it now: the app caller runs it. */
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(unsafe, true));
}

static void may_be_active_lifecycle(void)
{
	struct probe p;
	uint32_t id;

	need_lcores();
	probe_init(&p);
	id = reg("life", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 1, true));
	ASSERT_FALSE(dpk_service_may_be_active(id)); /* mapped, lcore not started */
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_TRUE(dpk_service_may_be_active(id)); /* runnable on a started lcore */

	/* Held inside: still active after the run state goes off, until it leaves. */
	atomic_store(&p.hold, true);
	bool in = wait_holding(&p);
	ASSERT_EQ(0, dpk_service_runstate_set(id, false));
	bool held_active = dpk_service_may_be_active(id);
	atomic_store(&p.hold, false);
	ASSERT_TRUE(in);
	ASSERT_TRUE(held_active);
	ASSERT_TRUE(wait_inactive(id));
	unsigned long calls = atomic_load(&p.calls);
	sleep_ms(20);
	ASSERT_EQ(calls, atomic_load(&p.calls)); /* nothing entered after false */

	/* On again; then unmapping quiesces it. */
	ASSERT_EQ(0, dpk_service_runstate_set(id, true));
	ASSERT_TRUE(dpk_service_may_be_active(id));
	ASSERT_TRUE(wait_calls(&p, calls + 10));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 1, false));
	ASSERT_TRUE(wait_inactive(id));
	calls = atomic_load(&p.calls);
	sleep_ms(20);
	ASSERT_EQ(calls, atomic_load(&p.calls));

	/* Mapped again; stopping the lcore quiesces it at once. */
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 1, true));
	ASSERT_TRUE(wait_calls(&p, calls + 10));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(1));
	ASSERT_FALSE(dpk_service_may_be_active(id));

	/* Component run state off quiesces as well. */
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_TRUE(wait_calls(&p, atomic_load(&p.calls) + 10));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, false));
	ASSERT_TRUE(wait_inactive(id));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(1));
}

static void unregister_drains_service_lcores(void)
{
	struct probe p;
	uint32_t id;

	need_lcores();
	probe_init(&p);
	p.spin_ticks = 20000;
	id = reg("gone", &p, 0, true);
	ASSERT_EQ(0, dpk_service_lcore_add(1));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 1, true));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 2, true));
	ASSERT_EQ(0, dpk_service_lcore_start(1));
	ASSERT_EQ(0, dpk_service_lcore_start(2));
	ASSERT_TRUE(wait_calls(&p, 20));
	ASSERT_EQ(0, dpk_service_unregister(id));
	ASSERT_EQ(0, atomic_load(&p.inside));
	unsigned long calls = atomic_load(&p.calls);
	sleep_ms(20);
	ASSERT_EQ(calls, atomic_load(&p.calls));
	ASSERT_EQ(0, dpk_service_lcore_count_services(1));
	/* The lcores keep looping over nothing and stop normally. */
	ASSERT_EQ(0, dpk_service_lcore_stop(1));
	ASSERT_EQ(0, dpk_service_lcore_stop(2));
}

static void lcore_stats_estimated_with_sampling(void)
{
	struct probe p;
	uint64_t est, calls;
	uint32_t id;

	need_lcores();
	probe_init(&p);
	id = reg("lc-sample", &p, DPK_SERVICE_CAP_MT_SAFE, true);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(id, 5));
	ASSERT_EQ(0, dpk_service_lcore_add(2));
	ASSERT_EQ(0, dpk_service_map_lcore_set(id, 2, true));
	ASSERT_EQ(0, dpk_service_lcore_start(2));
	ASSERT_TRUE(wait_calls(&p, 100));
	ASSERT_EQ(0, dpk_service_lcore_stop_force(2));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(2, DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED, &est));
	ASSERT_EQ(0, dpk_service_lcore_attr_get(2, DPK_SERVICE_LCORE_ATTR_CALLS, &calls));
	ASSERT_EQ(1, est);
	ASSERT_EQ(atomic_load(&p.calls), calls);
	ASSERT_EQ(0, dpk_service_attr_get(id, DPK_SERVICE_ATTR_CYCLES_ESTIMATED, &est));
	ASSERT_EQ(1, est);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(register_rejects_bad_input),
        DPK_TEST(register_rejects_taken_name),
        DPK_TEST(register_until_full),
        DPK_TEST(lookup_by_name_and_id),
        DPK_TEST(unknown_ids_are_rejected),
        DPK_TEST(runstates_both_needed),
        DPK_TEST(stats_count_calls_idle_errors),
        DPK_TEST(idle_calls_are_not_charged),
        DPK_TEST(sampling_keeps_counts_exact),
        DPK_TEST(sampling_idle_timed_call_passes_its_weight_on),
        DPK_TEST(nested_calls_are_counted),
        DPK_TEST(attr_reset_restarts_from_zero),
        DPK_TEST(reregistered_id_starts_from_zero),
        DPK_TEST(dump_lists_services),
        DPK_TEST(reset_all_empties_everything),
        DPK_TEST(exited_threads_keep_their_counts),
        DPK_TEST(threads_beyond_the_slots_are_counted),
        DPK_TEST(may_be_active_sees_app_callers),
        DPK_TEST(unregister_waits_for_callers),
        DPK_TEST(unregister_from_own_callback_is_refused),
        DPK_TEST(lcore_add_remove_rules),
        DPK_TEST(map_queries),
        DPK_TEST(lcore_start_stop_rules),
        DPK_TEST(start_refused_while_lcore_busy),
        DPK_TEST(lcore_control_is_main_only),
        DPK_TEST(service_lcore_runs_mapped_services),
        DPK_TEST(mt_safe_runs_concurrently),
        DPK_TEST(mt_unsafe_never_concurrent),
        DPK_TEST(app_caller_gets_busy_for_mt_unsafe),
        DPK_TEST(may_be_active_lifecycle),
        DPK_TEST(unregister_drains_service_lcores),
        DPK_TEST(lcore_stats_estimated_with_sampling),
};

DPK_TEST_MAIN(cases)
