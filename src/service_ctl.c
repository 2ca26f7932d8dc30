/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service cores, the control calls: registration, run states and flags, service lcores
 * (add, remove, start, stop) and the map, and the quiescence waits. They run under
 * dpk__service_ctl_lock, except the waits, which callbacks in flight may need the lock to
 * let finish. service_int.h has the full memory-order legend; the labels used in this
 * file:
 *   D1  the seq_cst clear of a service's flags (drain_begin()) or of a run state
 *       (flag_set()). Pairs with B1-B3 (service.c) through dpk__service_heavy_barrier().
 *   D2  the seq_cst clear of map bits (drain_begin(), dpk_service_map_lcore_set(), and the
 *       lcore calls on an lcore whose loop does not run). Pairs with B3 (service.c).
 *   E1  any_inside()'s seq_cst loads of the slots' marks. Pairs with A1 and C1/C3
 *       (service.c).
 *   E2  the same for dpk__service_shared_active[]. Pairs with A2 and C2 (service.c).
 *   Q1  dpk_service_may_be_active()'s seq_cst loads of the flags and a loop's map. Pairs
 *       with D1 and D2.
 *   P1  dpk_service_register()'s seq_cst store of the flags. Pairs with B1-B3 (service.c)
 *       and G1.
 *   P2  flag_set() setting a flag: publishes as P1.
 *   P3  dpk_service_stats_sample_set() setting F_SAMPLED. Pairs with B1-B3 (service.c).
 *   G1  the queries' acquire loads of the flags. Pairs with P1 and P2.
 *   W2  dpk_service_lcore_may_be_active()'s acquire load of loop_active. Pairs with W1 in
 *       dpk__service_lcore_loop() (service.c).
 * Clearing F_STATS or F_SAMPLED orders nothing and has no label; the other atomics here
 * are relaxed, as service_int.h says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/service.h>

#include "internal.h"
#include "service_int.h"

pthread_mutex_t dpk__service_ctl_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic unsigned dpk__service_n_registered;

/* ---- Quiescence ---- */

/* E: whether any thread is marked inside a service of @p bits (shared: service @p id). */
static bool any_inside(uint64_t bits, uint32_t id)
{
	for (unsigned i = 0; i < DPK_LCORE_MAX; i++)
		/* E1: pairs with A1 and C1/C3. */
		if (atomic_load_explicit(&dpk__service_lcore_slots[i].active,
		                         memory_order_seq_cst) &
		    bits)
			return true;
	for (unsigned i = 0; i < DPK_SERVICE_THREAD_SLOTS; i++)
		/* E1, for the thread slots. */
		if (atomic_load_explicit(&dpk__service_thread_slots[i].active,
		                         memory_order_seq_cst) &
		    bits)
			return true;
	if (id < DPK_SERVICE_MAX)
		/* E2: pairs with A2 and C2. */
		return atomic_load_explicit(&dpk__service_shared_active[id],
		                            memory_order_seq_cst) != 0;
	for (unsigned i = 0; i < DPK_SERVICE_MAX; i++)
		/* E2, for every service of @p bits. */
		if (((bits >> i) & 1) &&
		    atomic_load_explicit(&dpk__service_shared_active[i], memory_order_seq_cst) != 0)
			return true;
	return false;
}

/* After D: wait until no thread is inside a service of @p bits (no lock held). */
static void wait_quiet(uint64_t bits, uint32_t id)
{
	dpk__service_heavy_barrier();
	while (any_inside(bits, id))
		sched_yield();
}

bool dpk_service_may_be_active(uint32_t id)
{
	uint64_t bit;
	uint32_t f;

	if (id >= DPK_SERVICE_MAX)
		return false;
	dpk__service_init();
	bit = UINT64_C(1) << id;
	/* Q1: pairs with D1; the run state as the quiescer left it. */
	f = atomic_load_explicit(&dpk__services[id].flags, memory_order_seq_cst);
	if ((f & F_RUNNABLE) == F_RUNNABLE)
		for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
			/* A loop that has not returned may still start the service; W2's
			 * acquire is not needed here, only the value. Q1 for the map: pairs
			 * with D2. */
			if (atomic_load_explicit(&dpk__service_lcores[l].loop_active,
			                         memory_order_relaxed) &&
			    (atomic_load_explicit(&dpk__service_lcores[l].mapped,
			                          memory_order_seq_cst) &
			     bit))
				return true;
	dpk__service_heavy_barrier();
	return any_inside(bit, id);
}

/* ---- Registration ---- */

/* Start sampling afresh in @p c: its next sampled call is timed and weighs 1. */
static void sampling_clear(struct counters *c)
{
	uint64_t untimed = atomic_load_explicit(&c->untimed, memory_order_relaxed);

	atomic_store_explicit(&c->next, 0, memory_order_relaxed);
	atomic_store_explicit(&c->last,
	                      untimed - atomic_load_explicit(&c->uidle, memory_order_relaxed),
	                      memory_order_relaxed);
}

int dpk_service_register(const struct dpk_service_spec *spec, uint32_t *id)
{
	struct service *s = NULL;
	size_t len;
	uint32_t i;

	if (!spec || !id || !spec->name || !spec->callback) {
		dpk__set_error("service register: NULL spec, id, name or callback");
		return -EINVAL;
	}
	len = strnlen(spec->name, DPK_SERVICE_NAME_MAX);
	if (len == 0 || len >= DPK_SERVICE_NAME_MAX) {
		dpk__set_error("service register: name must be 1..%d bytes",
		               DPK_SERVICE_NAME_MAX - 1);
		return -EINVAL;
	}
	if (spec->capabilities & ~DPK_SERVICE_CAP_MT_SAFE) {
		dpk__set_error("service register: unknown capabilities 0x%x", spec->capabilities);
		return -EINVAL;
	}
	dpk__service_init();
	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (i = 0; i < DPK_SERVICE_MAX; i++)
		if (dpk__services[i].state == SVC_REGISTERED &&
		    strcmp(dpk__services[i].name, spec->name) == 0) {
			pthread_mutex_unlock(&dpk__service_ctl_lock);
			dpk__set_error("service register: name '%s' is taken", spec->name);
			return -EEXIST;
		}
	for (i = 0; i < DPK_SERVICE_MAX; i++)
		if (dpk__services[i].state == SVC_FREE) {
			s = &dpk__services[i];
			break;
		}
	if (!s) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		dpk__set_error("service register: all %d ids are in use", DPK_SERVICE_MAX);
		return -ENOSPC;
	}
	/* Nobody touches this id's counters now (an unregister waited for its callers), so
	 * the baseline is stable and sampling can start afresh in every slot. */
	memcpy(s->name, spec->name, len + 1);
	s->coff = (uint32_t)(offsetof(struct slot, svc) + i * sizeof(struct counters));
	s->callback = spec->callback;
	s->userdata = spec->userdata;
	atomic_store_explicit(&s->sample, 1, memory_order_relaxed);
	atomic_store_explicit(&s->lock, 0, memory_order_relaxed);
	dpk__service_set_handlers(s,
	                          (spec->capabilities & DPK_SERVICE_CAP_MT_SAFE) ? F_MT_SAFE : 0);
	dpk__service_sum(i, &s->base);
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		sampling_clear(&dpk__service_lcore_slots[l].svc[i]);
	for (unsigned t = 0; t < DPK_SERVICE_THREAD_SLOTS; t++)
		sampling_clear(&dpk__service_thread_slots[t].svc[i]);
	s->state = SVC_REGISTERED;
	atomic_fetch_add_explicit(&dpk__service_n_registered, 1, memory_order_relaxed);
	/* P1: publishes the fields above; pairs with B1/B2/B3 in the runners and G1. */
	atomic_store_explicit(
	        &s->flags,
	        F_REGISTERED | ((spec->capabilities & DPK_SERVICE_CAP_MT_SAFE) ? F_MT_SAFE : 0),
	        memory_order_seq_cst);
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	*id = i;
	return 0;
}

/* Start unregistering the services of @p bits (control lock held): clear their flags and
 * their map bits (D1, D2) so that no runner enters them any more. */
static void drain_begin(uint64_t bits)
{
	for (uint32_t i = 0; i < DPK_SERVICE_MAX; i++) {
		if (!((bits >> i) & 1))
			continue;
		dpk__services[i].state = SVC_DRAINING;
		/* D1: pairs with B1/B2/B3 through the barrier before E. */
		atomic_store_explicit(&dpk__services[i].flags, 0, memory_order_seq_cst);
		atomic_fetch_sub_explicit(&dpk__service_n_registered, 1, memory_order_relaxed);
	}
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		/* D2: pairs with B3. */
		atomic_fetch_and_explicit(&dpk__service_lcores[l].mapped, ~bits,
		                          memory_order_seq_cst);
}

static void drain_end(uint64_t bits)
{
	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (uint32_t i = 0; i < DPK_SERVICE_MAX; i++)
		if ((bits >> i) & 1)
			dpk__services[i].state = SVC_FREE;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
}

int dpk_service_unregister(uint32_t id)
{
	uint64_t bit;

	dpk__service_init();
	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (!registered(id)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EINVAL;
	}
	bit = UINT64_C(1) << id;
	if (dpk__service_self_inside(bit)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		dpk__set_error("service unregister: called from inside service %u", id);
		return -EBUSY;
	}
	drain_begin(bit);
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	/* Callbacks in flight may call control functions, so wait without the lock. */
	wait_quiet(bit, id);
	drain_end(bit);
	return 0;
}

unsigned dpk_service_count(void)
{
	return atomic_load_explicit(&dpk__service_n_registered, memory_order_relaxed);
}

int dpk_service_get_by_name(const char *name, uint32_t *id)
{
	int rc = -ENOENT;

	if (!name || !id)
		return -EINVAL;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (uint32_t i = 0; i < DPK_SERVICE_MAX; i++)
		if (dpk__services[i].state == SVC_REGISTERED &&
		    strcmp(dpk__services[i].name, name) == 0) {
			*id = i;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return rc;
}

const char *dpk_service_name(uint32_t id)
{
	const char *name;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	name = registered(id) ? dpk__services[id].name : NULL;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return name;
}

bool dpk_service_probe_capability(uint32_t id, uint32_t cap)
{
	uint32_t f, have = 0;

	if (id >= DPK_SERVICE_MAX)
		return false;
	/* G1: pairs with P1. */
	f = atomic_load_explicit(&dpk__services[id].flags, memory_order_acquire);
	if (!(f & F_REGISTERED))
		return false;
	if (f & F_MT_SAFE)
		have |= DPK_SERVICE_CAP_MT_SAFE;
	return (cap & ~have) == 0;
}

/* ---- Run states and flags ---- */

static int flag_set(uint32_t id, uint32_t flag, bool on)
{
	struct service *s;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	s = registered(id);
	if (s) {
		/* D1 when clearing a run state: pairs with B1/B2/B3 through the barrier before
		 * E; when setting, P2: publishes like P1. Clearing F_STATS orders nothing. */
		if (on)
			atomic_fetch_or_explicit(&s->flags, flag, memory_order_seq_cst);
		else
			atomic_fetch_and_explicit(&s->flags, ~flag, memory_order_seq_cst);
		dpk__service_set_handlers(s, atomic_load_explicit(&s->flags, memory_order_relaxed));
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return s ? 0 : -EINVAL;
}

int dpk_service_component_runstate_set(uint32_t id, bool run)
{
	return flag_set(id, F_COMP_RUN, run);
}

int dpk_service_runstate_set(uint32_t id, bool run)
{
	return flag_set(id, F_APP_RUN, run);
}

int dpk_service_runstate_get(uint32_t id)
{
	uint32_t f;

	if (id >= DPK_SERVICE_MAX)
		return -EINVAL;
	/* G1: pairs with P1 and P2. */
	f = atomic_load_explicit(&dpk__services[id].flags, memory_order_acquire);
	if (!(f & F_REGISTERED))
		return -EINVAL;
	return (f & F_RUNNABLE) == F_RUNNABLE;
}

int dpk_service_stats_enable(uint32_t id, bool on)
{
	return flag_set(id, F_STATS, on);
}

int dpk_service_stats_sample_set(uint32_t id, uint32_t n)
{
	struct service *s;

	if (n == 0)
		return -EINVAL;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	s = registered(id);
	if (s) {
		atomic_store_explicit(&s->sample, n, memory_order_relaxed);
		if (n > 1) {
			/* P3: pairs with B1/B2/B3: a runner that sees F_SAMPLED sees the period
			 * stored above. */
			atomic_fetch_or_explicit(&s->flags, F_SAMPLED, memory_order_seq_cst);
		} else {
			/* No label: a clear of F_SAMPLED orders nothing (see service_int.h). */
			atomic_fetch_and_explicit(&s->flags, ~F_SAMPLED, memory_order_seq_cst);
		}
		dpk__service_set_handlers(s, atomic_load_explicit(&s->flags, memory_order_relaxed));
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return s ? 0 : -EINVAL;
}

int dpk_service_stats_sample_get(uint32_t id, uint32_t *n)
{
	struct service *s;

	if (!n)
		return -EINVAL;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	s = registered(id);
	if (s)
		*n = atomic_load_explicit(&s->sample, memory_order_relaxed);
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return s ? 0 : -EINVAL;
}

/* ---- Service lcores ---- */

int dpk_service_lcore_add(unsigned lcore)
{
	int rc = 0;

	if (lcore >= DPK_LCORE_MAX || !dpk_lcore_is_enabled(lcore) || lcore == dpk_lcore_main()) {
		dpk__set_error("service lcore add: %u is not a worker lcore", lcore);
		return -EINVAL;
	}
	dpk__service_init();
	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (dpk__service_lcores[lcore].role != LC_NONE) {
		rc = -EALREADY;
	} else {
		/* D2: no loop runs on this lcore yet; dpk_lcore_launch() orders the store
		 * before its first load. */
		atomic_store_explicit(&dpk__service_lcores[lcore].mapped, 0, memory_order_seq_cst);
		dpk__service_lcores[lcore].role = LC_STOPPED;
		dpk__service_lcore_reset_base(lcore);
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return rc;
}

int dpk_service_lcore_remove(unsigned lcore)
{
	int rc = 0;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (!is_service_lcore(lcore))
		rc = -EINVAL;
	else if (dpk__service_lcores[lcore].role != LC_STOPPED)
		rc = -EBUSY;
	else {
		/* D2: the lcore is stopped, its loop returned (W1); a later start orders the
		 * store through dpk_lcore_launch(). */
		atomic_store_explicit(&dpk__service_lcores[lcore].mapped, 0, memory_order_seq_cst);
		dpk__service_lcores[lcore].role = LC_NONE;
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return rc;
}

/*
 * Whether the caller may start and stop service lcores: the main lcore, whose launches and
 * waits they are (or any thread while no lcores exist). From another thread a stop could
 * not wait for the loop, and would leave the lcore un-waited for the main lcore's next start.
 */
static bool on_main_lcore(const char *what)
{
	if (dpk_lcore_id() == dpk_lcore_main())
		return true;
	dpk__set_error("service %s: only the main lcore may", what);
	return false;
}

int dpk_service_lcore_start(unsigned lcore)
{
	struct lcore_ctl *lc;
	int rc;

	if (!on_main_lcore("lcore start"))
		return -EPERM;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (!is_service_lcore(lcore)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EINVAL;
	}
	lc = &dpk__service_lcores[lcore];
	if (lc->role != LC_STOPPED) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EALREADY;
	}
	/* dpk_lcore_launch() orders these stores before the loop's first loads. */
	atomic_store_explicit(&lc->run, 1, memory_order_relaxed);
	atomic_store_explicit(&lc->loop_active, 1, memory_order_relaxed);
	rc = dpk_lcore_launch(lcore, dpk__service_lcore_loop, lc);
	if (rc) {
		atomic_store_explicit(&lc->run, 0, memory_order_relaxed);
		atomic_store_explicit(&lc->loop_active, 0, memory_order_relaxed);
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		dpk__set_error("service lcore start: launch on lcore %u failed (%d)", lcore, rc);
		return rc == -EBUSY ? -EBUSY : -EINVAL;
	}
	lc->role = LC_RUNNING;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return 0;
}

/* Whether stopping @p lcore would leave a runnable service mapped to no started lcore. */
static bool only_runner(unsigned lcore)
{
	uint64_t todo =
	        atomic_load_explicit(&dpk__service_lcores[lcore].mapped, memory_order_relaxed);

	while (todo) {
		uint32_t id = (uint32_t)__builtin_ctzll(todo);
		uint32_t f = atomic_load_explicit(&dpk__services[id].flags, memory_order_relaxed);
		bool other = false;

		todo &= todo - 1;
		if ((f & F_RUNNABLE) != F_RUNNABLE)
			continue;
		for (unsigned l = 0; l < DPK_LCORE_MAX && !other; l++)
			other = l != lcore && dpk__service_lcores[l].role == LC_RUNNING &&
			        (atomic_load_explicit(&dpk__service_lcores[l].mapped,
			                              memory_order_relaxed) &
			         (UINT64_C(1) << id));
		if (!other)
			return true;
	}
	return false;
}

static int lcore_stop(unsigned lcore, bool force)
{
	if (!on_main_lcore("lcore stop"))
		return -EPERM;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (!is_service_lcore(lcore)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EINVAL;
	}
	if (dpk__service_lcores[lcore].role != LC_RUNNING) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EALREADY;
	}
	if (!force && only_runner(lcore)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		dpk__set_error("service lcore stop: lcore %u is the only one running a service",
		               lcore);
		return -EBUSY;
	}
	dpk__service_lcores[lcore].role = LC_STOPPING;
	atomic_store_explicit(&dpk__service_lcores[lcore].run, 0, memory_order_relaxed);
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	/* The loop's callbacks may take the control lock, so wait without it. */
	dpk_lcore_wait(lcore);
	pthread_mutex_lock(&dpk__service_ctl_lock);
	dpk__service_lcores[lcore].role = LC_STOPPED;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return 0;
}

int dpk_service_lcore_stop(unsigned lcore)
{
	return lcore_stop(lcore, false);
}

int dpk_service_lcore_stop_force(unsigned lcore)
{
	return lcore_stop(lcore, true);
}

int dpk_service_lcore_reset_all(void)
{
	bool stopping[DPK_LCORE_MAX] = {false};

	if (!on_main_lcore("lcore reset"))
		return -EPERM;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		if (dpk__service_lcores[l].role == LC_RUNNING) {
			dpk__service_lcores[l].role = LC_STOPPING;
			atomic_store_explicit(&dpk__service_lcores[l].run, 0, memory_order_relaxed);
			stopping[l] = true;
		}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		if (stopping[l])
			dpk_lcore_wait(l);
	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		if (dpk__service_lcores[l].role != LC_NONE) {
			/* D2: every loop has returned (dpk_lcore_wait() above). */
			atomic_store_explicit(&dpk__service_lcores[l].mapped, 0,
			                      memory_order_seq_cst);
			dpk__service_lcores[l].role = LC_NONE;
		}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return 0;
}

unsigned dpk_service_lcore_count(void)
{
	unsigned n = 0;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		n += dpk__service_lcores[l].role != LC_NONE;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return n;
}

int dpk_service_lcore_list(unsigned *out, unsigned n)
{
	unsigned count = 0;

	if (!out && n > 0)
		return -EINVAL;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		count += dpk__service_lcores[l].role != LC_NONE;
	if (count > n) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -ENOMEM;
	}
	count = 0;
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		if (dpk__service_lcores[l].role != LC_NONE)
			out[count++] = l;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return (int)count;
}

int dpk_service_lcore_count_services(unsigned lcore)
{
	int rc = -EINVAL;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (is_service_lcore(lcore))
		rc = __builtin_popcountll(atomic_load_explicit(&dpk__service_lcores[lcore].mapped,
		                                               memory_order_relaxed));
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return rc;
}

int dpk_service_lcore_services(unsigned lcore, uint32_t *ids, unsigned n)
{
	uint64_t mapped;
	int count = 0;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (!is_service_lcore(lcore) || (!ids && n > 0)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EINVAL;
	}
	mapped = atomic_load_explicit(&dpk__service_lcores[lcore].mapped, memory_order_relaxed);
	if ((unsigned)__builtin_popcountll(mapped) > n) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -ENOMEM;
	}
	while (mapped) {
		ids[count++] = (uint32_t)__builtin_ctzll(mapped);
		mapped &= mapped - 1;
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return count;
}

bool dpk_service_lcore_may_be_active(unsigned lcore)
{
	/* W2: pairs with W1 in dpk__service_lcore_loop(): after false, the loop's effects are
	 * visible. */
	return lcore < DPK_LCORE_MAX &&
	       atomic_load_explicit(&dpk__service_lcores[lcore].loop_active, memory_order_acquire);
}

int dpk_service_map_lcore_set(uint32_t id, unsigned lcore, bool on)
{
	uint64_t bit;
	int rc = 0;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (!registered(id) || !is_service_lcore(lcore)) {
		rc = -EINVAL;
	} else {
		bit = UINT64_C(1) << id;
		/* D2 when clearing: pairs with B3 through the barrier before E. Setting a bit
		 * needs no order of its own: the loop checks the flags (B3) before it runs. */
		if (on)
			atomic_fetch_or_explicit(&dpk__service_lcores[lcore].mapped, bit,
			                         memory_order_seq_cst);
		else
			atomic_fetch_and_explicit(&dpk__service_lcores[lcore].mapped, ~bit,
			                          memory_order_seq_cst);
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return rc;
}

int dpk_service_map_lcore_get(uint32_t id, unsigned lcore)
{
	int rc = -EINVAL;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (registered(id) && is_service_lcore(lcore))
		rc = (atomic_load_explicit(&dpk__service_lcores[lcore].mapped,
		                           memory_order_relaxed) >>
		      id) &
		     1;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return rc;
}

/* ---- Reset ---- */

int dpk_service_reset_all(void)
{
	uint64_t bits = 0;

	dpk__service_init();
	if (dpk__service_self_inside(~UINT64_C(0))) {
		dpk__set_error("service reset: called from inside a service");
		return -EBUSY;
	}
	if (dpk_service_lcore_reset_all())
		return -EPERM;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	for (uint32_t i = 0; i < DPK_SERVICE_MAX; i++)
		if (dpk__services[i].state == SVC_REGISTERED)
			bits |= UINT64_C(1) << i;
	drain_begin(bits);
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	wait_quiet(bits, DPK_SERVICE_MAX);
	drain_end(bits);
	return 0;
}
