/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * service_fixture.h - what the service tests share (test_service.c,
 * test_service_lcores.c): a probe service that counts calls, tracks overlap and can hold a
 * caller inside, bounded waits for another thread (WAIT_MS, so that a starved thread fails
 * a case instead of hanging it), and a fresh service state per case.
 */
#ifndef DPK_TEST_SERVICE_FIXTURE_H
#define DPK_TEST_SERVICE_FIXTURE_H

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

static inline void probe_init(struct probe *p)
{
	memset(p, 0, sizeof(*p));
	atomic_init(&p->pair_wait_ms, WAIT_MS);
	atomic_init(&p->hold_lcore, DPK_LCORE_ANY);
}

static inline int probe_cb(void *arg)
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

static inline int idle_cb(void *arg)
{
	(void)arg;
	return -EAGAIN;
}

/* Register @p name over probe @p p, both run states on when @p run. */
static inline uint32_t reg(const char *name, struct probe *p, uint32_t caps, bool run)
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

static inline bool wait_flag(atomic_bool *flag)
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
static inline bool wait_holding(struct probe *p)
{
	uint64_t end = dpk_test_now_ms() + WAIT_MS;

	while (atomic_load(&p->holding) == 0)
		if (dpk_test_now_ms() > end)
			return false;
		else
			sched_yield();
	return true;
}

static inline bool wait_calls(struct probe *p, unsigned long n)
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
static inline bool wait_inactive(uint32_t id)
{
	uint64_t end = dpk_test_now_ms() + WAIT_MS;

	while (dpk_service_may_be_active(id))
		if (dpk_test_now_ms() > end)
			return false;
		else
			sched_yield();
	return true;
}

static inline void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Every case starts from an empty runtime. */
static inline void fresh(void)
{
	ASSERT_EQ(0, dpk_service_reset_all());
	ASSERT_EQ(0, dpk_service_count());
	ASSERT_EQ(0, dpk_service_lcore_count());
}

/* Lcores for the cases that need them: main lcore 0 and workers 1..3, lcores 0-1 on one
 * CPU and 2-3 on another when the process may use two CPUs, else all four on one. */
static bool lcores_up;

static inline void need_lcores(void)
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

#endif /* DPK_TEST_SERVICE_FIXTURE_H */
