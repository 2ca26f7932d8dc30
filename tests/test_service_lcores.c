/* SPDX-License-Identifier: BSD-3-Clause */
/* Service cores on other threads: callers that are not lcores, unregistering while they
 * run, service lcores and their maps, MT-safe and MT-unsafe execution, quiescence and the
 * lcores' statistics. No case asserts how long anything took. */
#define _GNU_SOURCE
#include "service_fixture.h"

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
