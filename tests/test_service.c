/* SPDX-License-Identifier: BSD-3-Clause */
/* Service cores on the calling thread: registration and lookup, run states, and the
 * statistics with their sampling, resets and dump. No case asserts how long anything took. */
#define _GNU_SOURCE
#include "service_fixture.h"

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
};

DPK_TEST_MAIN(cases)
