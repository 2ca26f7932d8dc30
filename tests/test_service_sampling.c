/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service statistics by mode: every combination of statistics mode (off, every call timed,
 * one call in N timed) and locking (MT-safe, MT-unsafe with and without the try-lock) that
 * dpk_service_run_iter_on_app_lcore() can run, switched while the service is in use;
 * sampling against a model of which calls are timed and what each timed call stands for;
 * calls nested in callbacks that return -EAGAIN around timed ones; and reads made while a
 * thread keeps calling, which must never go backwards.
 *
 * No case asserts how long anything took: tick counts are only checked against bounds that
 * any correct accounting meets (spun at least so long, at most the whole run per weight).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/service.h>

#include "dpk_test.h"

/* Every case starts from an empty runtime. */
static void fresh(void)
{
	ASSERT_EQ(0, dpk_service_reset_all());
	ASSERT_EQ(0, dpk_service_count());
}

static uint32_t reg(const char *name, dpk_service_fn fn, void *arg, uint32_t caps)
{
	struct dpk_service_spec spec = {name, fn, arg, caps};
	uint32_t id = UINT32_MAX;

	ASSERT_EQ(0, dpk_service_register(&spec, &id));
	ASSERT_EQ(0, dpk_service_component_runstate_set(id, true));
	ASSERT_EQ(0, dpk_service_runstate_set(id, true));
	return id;
}

static void spin(uint64_t ticks)
{
	uint64_t t0 = dpk_tsc();

	while (dpk_tsc() - t0 < ticks)
		dpk_pause();
}

/* ---- Every mode and locking, switched while in use ---- */

/* A service that, at the outer level, runs itself once more with the try-lock. */
struct selfcall {
	uint32_t id;
	unsigned depth;
	unsigned long ran;        /* callbacks entered */
	unsigned long inner_ok;   /* inner calls that ran */
	unsigned long inner_busy; /* inner calls refused with -EBUSY */
	unsigned long inner_bad;  /* inner calls that returned anything else */
};

/* The outer call returns 0, the inner one -EAGAIN. */
static int selfcall_cb(void *arg)
{
	struct selfcall *c = arg;
	int rc;

	c->ran++;
	if (c->depth > 0)
		return -EAGAIN;
	c->depth = 1;
	rc = dpk_service_run_iter_on_app_lcore(c->id, true);
	c->depth = 0;
	c->inner_ok += rc == 0;
	c->inner_busy += rc == -EBUSY;
	c->inner_bad += rc != 0 && rc != -EBUSY;
	return 0;
}

static void modes_and_locking_count_exactly(void)
{
	static const struct {
		bool stats;
		uint32_t period;
	} phases[] = {{false, 1}, {true, 1}, {true, 4}, {false, 4},
	              {true, 3},  {true, 1}, {true, 64}};
	const unsigned outer = 24;

	for (unsigned k = 0; k < 2; k++) {
		bool mt_safe = k == 0;
		struct selfcall c;

		fresh();
		memset(&c, 0, sizeof(c));
		c.id = reg("selfcall", selfcall_cb, &c, mt_safe ? DPK_SERVICE_CAP_MT_SAFE : 0);
		for (unsigned p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
			struct dpk_service_stats a, b;
			unsigned long ran = c.ran, ok = c.inner_ok, busy = c.inner_busy;

			ASSERT_EQ(0, dpk_service_stats_enable(c.id, phases[p].stats));
			ASSERT_EQ(0, dpk_service_stats_sample_set(c.id, phases[p].period));
			ASSERT_EQ(0, dpk_service_stats_get(c.id, &a));
			/* Odd calls skip the try-lock: an MT-unsafe service's inner call then
			 * takes it; even calls hold it, so the inner call gets -EBUSY. */
			for (unsigned i = 0; i < outer; i++)
				ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(c.id, i % 2 == 0));
			ASSERT_EQ(0, dpk_service_stats_get(c.id, &b));
			ran = c.ran - ran;
			ok = c.inner_ok - ok;
			busy = c.inner_busy - busy;
			ASSERT_EQ(0, c.inner_bad);
			ASSERT_EQ(outer + ok, ran);
			ASSERT_EQ(mt_safe ? outer : outer / 2, ok);
			ASSERT_EQ(mt_safe ? 0 : outer / 2, busy);
			if (!phases[p].stats) {
				ASSERT_EQ_U(a.calls, b.calls);
				ASSERT_EQ_U(a.idle_calls, b.idle_calls);
				ASSERT_EQ_U(a.timed_calls, b.timed_calls);
				continue;
			}
			/* Refused calls are not counted; inner calls that ran were idle. */
			ASSERT_EQ(ran, b.calls - a.calls);
			ASSERT_EQ(ok, b.idle_calls - a.idle_calls);
			ASSERT_EQ(0, b.error_calls - a.error_calls);
			if (phases[p].period == 1) {
				ASSERT_EQ(outer, b.timed_calls - a.timed_calls);
			} else {
				/* Which calls are timed is the model case's business; here the
				 * timed calls are some of the charged ones. */
				ASSERT_LE(b.timed_calls - a.timed_calls, outer);
				ASSERT_TRUE(b.cycles_estimated);
			}
		}
	}
}

/* ---- Sampling against a model ---- */

/* A service that returns the results of a script, spinning in the calls it charges. */
struct script {
	const int *rc;
	unsigned next;
	uint64_t spin;
};

static int script_cb(void *arg)
{
	struct script *s = arg;
	int rc = s->rc[s->next++];

	if (rc != -EAGAIN)
		spin(s->spin);
	return rc;
}

/*
 * Which calls one thread times, and what each timed charged call stands for: the first
 * call is timed; a timed call (charged or idle) opens a window of the period set at that
 * moment, whose charged calls pass untimed; idle calls inside it do not count. A timed
 * charged call stands for itself and the charged calls left untimed since the previous one.
 */
static void sampling_follows_the_model(void)
{
	enum { CALLS = 3000 };
	static int rcs[CALLS];
	uint64_t seed = dpk_test_seed(), rng = seed;
	uint32_t period = 2 + (uint32_t)(dpk_test_rand(&rng) % 7), later = 2 + period % 5;
	unsigned timed = 0, since = 0, window = 1, pending = 0, covered = 0;
	unsigned long idle = 0, errors = 0;
	struct dpk_service_stats st;
	struct script s = {rcs, 0, 100};
	uint32_t id;

	fresh();
	for (unsigned i = 0; i < CALLS; i++) {
		uint64_t r = dpk_test_rand(&rng) % 10;
		rcs[i] = r < 3 ? -EAGAIN : r == 3 ? -EIO : r == 4 ? 7 : 0;
	}
	id = reg("model", script_cb, &s, DPK_SERVICE_CAP_MT_SAFE);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(id, period));
	uint64_t t0 = dpk_tsc();
	for (unsigned i = 0; i < CALLS; i++) {
		bool charged = rcs[i] != -EAGAIN;

		/* Half way the period changes: the open window keeps its length. */
		if (i == CALLS / 2)
			ASSERT_EQ(0, dpk_service_stats_sample_set(id, later));
		ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
		idle += !charged;
		errors += charged && rcs[i] != 0;
		if (since + 1 >= window) {
			since = 0;
			window = i < CALLS / 2 ? period : later;
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
	uint64_t elapsed = dpk_tsc() - t0;
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	dpk_test_note("periods %u then %u: timed %" PRIu64 " of %u charged, covering %u",
	              (unsigned)period, (unsigned)later, st.timed_calls, CALLS - (unsigned)idle,
	              covered);
	ASSERT_EQ(CALLS, st.calls);
	ASSERT_EQ(idle, st.idle_calls);
	ASSERT_EQ(errors, st.error_calls);
	ASSERT_EQ(timed, st.timed_calls);
	ASSERT_TRUE(st.cycles_estimated);
	/* Every charged call a timed one stands for spun at least s.spin ticks; no weight is
	 * more than the calls it stands for. */
	ASSERT_GE(st.cycles, (uint64_t)covered * s.spin);
	ASSERT_LE(st.cycles, (uint64_t)covered * elapsed);
}

/* With a period but only timed calls so far, the cycles are still exact. */
static void first_sampled_call_is_exact(void)
{
	static const int rcs[] = {0, -EAGAIN};
	struct script s = {rcs, 0, 100};
	struct dpk_service_stats st;
	uint32_t id;

	fresh();
	id = reg("first", script_cb, &s, DPK_SERVICE_CAP_MT_SAFE);
	ASSERT_EQ(0, dpk_service_stats_enable(id, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(id, 8));
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(1, st.calls);
	ASSERT_EQ(1, st.timed_calls);
	ASSERT_GE(st.cycles, s.spin);
	ASSERT_FALSE(st.cycles_estimated);
	/* The second call is left untimed (and is idle): from now on an estimate. */
	ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(id, true));
	ASSERT_EQ(0, dpk_service_stats_get(id, &st));
	ASSERT_EQ(2, st.calls);
	ASSERT_EQ(1, st.idle_calls);
	ASSERT_TRUE(st.cycles_estimated);
}

/* ---- Nested calls that return -EAGAIN around timed ones ---- */

/* A service that runs itself from inside, down to depth 2; each depth returns rc[depth]. */
struct nest {
	uint32_t id;
	unsigned depth;
	int rc[3];
	unsigned long ran, idle, errors;
};

static int nest_cb(void *arg)
{
	struct nest *n = arg;
	unsigned d = n->depth;
	int rc = n->rc[d];

	n->ran++;
	spin(50);
	if (d < 2) {
		n->depth = d + 1;
		if (dpk_service_run_iter_on_app_lcore(n->id, d == 0) != 0)
			n->errors += 1000; /* never expected: fails the count below */
		n->depth = d;
	}
	n->idle += rc == -EAGAIN;
	n->errors += rc != 0 && rc != -EAGAIN;
	return rc;
}

static void nested_idle_calls_around_timed_ones(void)
{
	static const int pattern[][3] = {
	        {-EAGAIN, -EAGAIN, 0}, {-EAGAIN, 0, 0},          {0, -EAGAIN, 0},
	        {-EIO, -EAGAIN, 0},    {-EAGAIN, -EAGAIN, -EIO}, {0, 0, -EAGAIN},
	};
	static const uint32_t periods[] = {2, 3, 5};

	for (unsigned p = 0; p < sizeof(periods) / sizeof(periods[0]); p++)
		for (unsigned q = 0; q < sizeof(pattern) / sizeof(pattern[0]); q++) {
			struct dpk_service_stats st;
			struct nest n;

			fresh();
			memset(&n, 0, sizeof(n));
			memcpy(n.rc, pattern[q], sizeof(n.rc));
			n.id = reg("nest", nest_cb, &n, DPK_SERVICE_CAP_MT_SAFE);
			ASSERT_EQ(0, dpk_service_stats_enable(n.id, true));
			ASSERT_EQ(0, dpk_service_stats_sample_set(n.id, periods[p]));
			uint64_t t0 = dpk_tsc();
			for (unsigned i = 0; i < 60; i++)
				ASSERT_EQ(0, dpk_service_run_iter_on_app_lcore(n.id, true));
			uint64_t elapsed = dpk_tsc() - t0;
			ASSERT_EQ(0, dpk_service_stats_get(n.id, &st));
			ASSERT_EQ(180, n.ran);
			ASSERT_EQ(n.ran, st.calls);
			ASSERT_EQ(n.idle, st.idle_calls);
			ASSERT_EQ(n.errors, st.error_calls);
			ASSERT_GE(st.timed_calls, 1);
			ASSERT_LE(st.timed_calls, n.ran - n.idle);
			ASSERT_TRUE(st.cycles_estimated);
			/* Weights add up to at most the calls made: no weight wrapped around. */
			ASSERT_LE(st.cycles, (uint64_t)n.ran * elapsed);
			ASSERT_GE(st.cycles, 50 * st.timed_calls);
		}
}

/* ---- Reads while a thread calls ---- */

struct hammer {
	uint32_t id;
	uint64_t rng;
	unsigned depth;
	atomic_bool stop;
	atomic_ulong ran, idle, errors;
};

/* Random results; one call in eight runs the service once more from inside. */
static int hammer_cb(void *arg)
{
	struct hammer *h = arg;
	uint64_t r = dpk_test_rand(&h->rng);
	int rc = r % 4 == 0 ? -EAGAIN : r % 16 == 1 ? -EIO : 0;

	atomic_fetch_add_explicit(&h->ran, 1, memory_order_relaxed);
	if (h->depth == 0 && r % 8 == 2) {
		h->depth = 1;
		if (dpk_service_run_iter_on_app_lcore(h->id, false) != 0)
			atomic_fetch_add_explicit(&h->errors, 1000, memory_order_relaxed);
		h->depth = 0;
	}
	if (rc == -EAGAIN)
		atomic_fetch_add_explicit(&h->idle, 1, memory_order_relaxed);
	else if (rc != 0)
		atomic_fetch_add_explicit(&h->errors, 1, memory_order_relaxed);
	return rc;
}

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;

	while (!atomic_load_explicit(&h->stop, memory_order_relaxed))
		if (dpk_service_run_iter_on_app_lcore(h->id, true) != 0)
			atomic_fetch_add_explicit(&h->errors, 1000, memory_order_relaxed);
	return NULL;
}

static void reads_never_go_backwards(void)
{
	static struct hammer h;
	uint64_t seed = dpk_test_seed(), rng = seed;
	uint32_t period = 2 + (uint32_t)(dpk_test_rand(&rng) % 15);
	struct dpk_service_stats prev = {0}, st;
	unsigned long reads = 0, backwards = 0;
	pthread_t t;

	fresh();
	memset(&h, 0, sizeof(h));
	h.rng = dpk_test_rand(&rng) | 1;
	h.id = reg("hammer", hammer_cb, &h, DPK_SERVICE_CAP_MT_SAFE);
	ASSERT_EQ(0, dpk_service_stats_enable(h.id, true));
	ASSERT_EQ(0, dpk_service_stats_sample_set(h.id, period));
	ASSERT_EQ(0, pthread_create(&t, NULL, hammer_main, &h));
	uint64_t end = dpk_test_now_ms() + dpk_test_stress_ms(300);
	do { /* at least one read, however late the first check comes */
		EXPECT_EQ(0, dpk_service_stats_get(h.id, &st));
		backwards += st.calls < prev.calls || st.idle_calls < prev.idle_calls ||
		             st.error_calls < prev.error_calls ||
		             st.timed_calls < prev.timed_calls || st.cycles < prev.cycles;
		prev = st;
		reads++;
	} while (dpk_test_now_ms() < end);
	atomic_store(&h.stop, true);
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, dpk_service_stats_get(h.id, &st));
	dpk_test_note("period %u: %lu reads while %" PRIu64 " calls were made", (unsigned)period,
	              reads, st.calls);
	ASSERT_EQ(0, backwards);
	ASSERT_GT(reads, 0);
	ASSERT_EQ(atomic_load(&h.ran), st.calls);
	ASSERT_EQ(atomic_load(&h.idle), st.idle_calls);
	ASSERT_EQ(atomic_load(&h.errors), st.error_calls);
	ASSERT_GE(st.calls, prev.calls);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(modes_and_locking_count_exactly), DPK_TEST(sampling_follows_the_model),
        DPK_TEST(first_sampled_call_is_exact),     DPK_TEST(nested_idle_calls_around_timed_ones),
        DPK_TEST(reads_never_go_backwards),
};

DPK_TEST_MAIN(cases)
