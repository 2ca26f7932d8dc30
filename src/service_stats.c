/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service cores, the statistics reads: sums of the slots' counters against the baselines
 * of the last reset, the attributes of services and service lcores, and the dump. They run
 * under dpk__service_ctl_lock. No label of the memory-order legend (service_int.h) is used
 * here: every atomic in this file is a relaxed load of a counter, the flags, a map, the
 * sample period, the registered count or the barrier mode, read as a snapshot while the
 * runners go on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <dpk/service.h>

#include "service_int.h"

/* ---- Statistics reads ---- */

static void totals_add(struct totals *sum, const struct counters *c)
{
	sum->idle += atomic_load_explicit(&c->idle, memory_order_relaxed);
	sum->uidle += atomic_load_explicit(&c->uidle, memory_order_relaxed);
	sum->timed += atomic_load_explicit(&c->timed, memory_order_relaxed);
	sum->untimed += atomic_load_explicit(&c->untimed, memory_order_relaxed);
	sum->errors += atomic_load_explicit(&c->errors, memory_order_relaxed);
	sum->cycles += atomic_load_explicit(&c->cycles, memory_order_relaxed);
}

void dpk__service_sum(uint32_t id, struct totals *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned i = 0; i < DPK_LCORE_MAX; i++)
		totals_add(sum, &dpk__service_lcore_slots[i].svc[id]);
	for (unsigned i = 0; i < DPK_SERVICE_THREAD_SLOTS; i++)
		totals_add(sum, &dpk__service_thread_slots[i].svc[id]);
	totals_add(sum, &dpk__service_shared_slot.svc[id]);
}

static void sum_lcore(unsigned lcore, struct totals *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned i = 0; i < DPK_SERVICE_MAX; i++)
		totals_add(sum, &dpk__service_lcore_slots[lcore].svc[i]);
}

/* Counters only grow, and a later read under the control lock sees at least what the baseline
 * read saw, so the differences never go below zero. */
static void stats_since(const struct totals *now, const struct totals *base,
                        struct dpk_service_stats *out)
{
	uint64_t untimed = now->untimed - base->untimed, idle = now->idle - base->idle;

	out->idle_calls = idle + (now->uidle - base->uidle);
	out->timed_calls = now->timed - base->timed;
	out->calls = idle + out->timed_calls + untimed;
	out->error_calls = now->errors - base->errors;
	out->cycles = now->cycles - base->cycles;
	/* Only calls the sampling left untimed move untimed, so a read racing the writers
	 * cannot turn an exact figure into an "estimated" one. */
	out->cycles_estimated = untimed != 0;
}

void dpk__service_lcore_reset_base(unsigned lcore)
{
	sum_lcore(lcore, &dpk__service_lcores[lcore].base);
	dpk__service_lcores[lcore].base_loops =
	        atomic_load_explicit(&dpk__service_lcore_slots[lcore].loops, memory_order_relaxed);
}

int dpk_service_stats_get(uint32_t id, struct dpk_service_stats *out)
{
	struct service *s;
	struct totals now;

	if (!out)
		return -EINVAL;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	s = registered(id);
	if (s) {
		dpk__service_sum(id, &now);
		stats_since(&now, &s->base, out);
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return s ? 0 : -EINVAL;
}

int dpk_service_attr_get(uint32_t id, enum dpk_service_attr attr, uint64_t *value)
{
	struct dpk_service_stats st;
	int rc;

	if (!value || (unsigned)attr > DPK_SERVICE_ATTR_CYCLES_ESTIMATED)
		return -EINVAL;
	rc = dpk_service_stats_get(id, &st);
	if (rc)
		return rc;
	switch (attr) {
	case DPK_SERVICE_ATTR_CALLS:
		*value = st.calls;
		break;
	case DPK_SERVICE_ATTR_IDLE_CALLS:
		*value = st.idle_calls;
		break;
	case DPK_SERVICE_ATTR_ERROR_CALLS:
		*value = st.error_calls;
		break;
	case DPK_SERVICE_ATTR_CYCLES:
		*value = st.cycles;
		break;
	case DPK_SERVICE_ATTR_TIMED_CALLS:
		*value = st.timed_calls;
		break;
	case DPK_SERVICE_ATTR_CYCLES_ESTIMATED:
		*value = st.cycles_estimated;
		break;
	}
	return 0;
}

int dpk_service_attr_reset_all(uint32_t id)
{
	struct service *s;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	s = registered(id);
	if (s) {
		/* The writers' counters are left alone: later reads subtract this baseline. */
		dpk__service_sum(id, &s->base);
	}
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return s ? 0 : -EINVAL;
}

/* Statistics of service lcore @p lcore since its last reset (control lock held). */
static void lcore_stats(unsigned lcore, struct dpk_service_stats *st, uint64_t *loops)
{
	struct totals now;

	sum_lcore(lcore, &now);
	stats_since(&now, &dpk__service_lcores[lcore].base, st);
	*loops =
	        atomic_load_explicit(&dpk__service_lcore_slots[lcore].loops, memory_order_relaxed) -
	        dpk__service_lcores[lcore].base_loops;
}

int dpk_service_lcore_attr_get(unsigned lcore, enum dpk_service_lcore_attr attr, uint64_t *value)
{
	struct dpk_service_stats st;
	uint64_t loops;

	if (!value || (unsigned)attr > DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED)
		return -EINVAL;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (!is_service_lcore(lcore)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EINVAL;
	}
	lcore_stats(lcore, &st, &loops);
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	switch (attr) {
	case DPK_SERVICE_LCORE_ATTR_LOOPS:
		*value = loops;
		break;
	case DPK_SERVICE_LCORE_ATTR_CALLS:
		*value = st.calls;
		break;
	case DPK_SERVICE_LCORE_ATTR_CYCLES:
		*value = st.cycles;
		break;
	case DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED:
		*value = st.cycles_estimated;
		break;
	}
	return 0;
}

int dpk_service_lcore_attr_reset_all(unsigned lcore)
{
	int rc = 0;

	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (is_service_lcore(lcore))
		dpk__service_lcore_reset_base(lcore);
	else
		rc = -EINVAL;
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return rc;
}

/* ---- Dump ---- */

static void dump_service(FILE *f, uint32_t id)
{
	struct service *s = &dpk__services[id];
	uint32_t fl = atomic_load_explicit(&s->flags, memory_order_relaxed);
	struct dpk_service_stats st;
	struct totals now;
	uint64_t charged;
	bool first = true;

	dpk__service_sum(id, &now);
	stats_since(&now, &s->base, &st);
	charged = st.calls > st.idle_calls ? st.calls - st.idle_calls : 0;
	fprintf(f, "  service %u \"%s\": %s, component %s, app %s, stats %s, sample %u, lcores", id,
	        s->name, (fl & F_MT_SAFE) ? "mt-safe" : "mt-unsafe",
	        (fl & F_COMP_RUN) ? "on" : "off", (fl & F_APP_RUN) ? "on" : "off",
	        (fl & F_STATS) ? "on" : "off",
	        atomic_load_explicit(&s->sample, memory_order_relaxed));
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		if (dpk__service_lcores[l].role != LC_NONE &&
		    ((atomic_load_explicit(&dpk__service_lcores[l].mapped, memory_order_relaxed) >>
		      id) &
		     1)) {
			fprintf(f, "%s%u", first ? " " : ",", l);
			first = false;
		}
	fprintf(f, "%s\n", first ? " none" : "");
	fprintf(f,
	        "    calls %" PRIu64 " idle %" PRIu64 " errors %" PRIu64 " cycles %" PRIu64
	        " (%s, %" PRIu64 " timed) avg %.1f cycles/charged call\n",
	        st.calls, st.idle_calls, st.error_calls, st.cycles,
	        st.cycles_estimated ? "estimated" : "exact", st.timed_calls,
	        charged ? (double)st.cycles / (double)charged : 0.0);
}

static void dump_lcore(FILE *f, unsigned l)
{
	static const char *const role[] = {"none", "stopped", "running", "stopping"};
	uint64_t mapped =
	        atomic_load_explicit(&dpk__service_lcores[l].mapped, memory_order_relaxed);
	struct dpk_service_stats st;
	uint64_t loops;

	lcore_stats(l, &st, &loops);
	fprintf(f, "  lcore %u: %s, services", l, role[dpk__service_lcores[l].role]);
	if (!mapped)
		fprintf(f, " none");
	for (bool first = true; mapped; first = false) {
		fprintf(f, "%s%d", first ? " " : ",", __builtin_ctzll(mapped));
		mapped &= mapped - 1;
	}
	fprintf(f, "\n    loops %" PRIu64 " calls %" PRIu64 " cycles %" PRIu64 " (%s)\n", loops,
	        st.calls, st.cycles, st.cycles_estimated ? "estimated" : "exact");
}

int dpk_service_dump(FILE *f, uint32_t id)
{
	unsigned nlc = 0;

	if (!f)
		return -EINVAL;
	pthread_mutex_lock(&dpk__service_ctl_lock);
	if (id != DPK_SERVICE_ALL && !registered(id)) {
		pthread_mutex_unlock(&dpk__service_ctl_lock);
		return -EINVAL;
	}
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		nlc += dpk__service_lcores[l].role != LC_NONE;
	fprintf(f, "service cores: %u services, %u service lcores, barrier %s\n",
	        atomic_load_explicit(&dpk__service_n_registered, memory_order_relaxed), nlc,
	        atomic_load_explicit(&dpk__service_barrier_mode, memory_order_relaxed) ==
	                        BARRIER_MEMBARRIER
	                ? "membarrier"
	                : "seq_cst");
	for (uint32_t i = 0; i < DPK_SERVICE_MAX; i++)
		if ((id == DPK_SERVICE_ALL || id == i) && dpk__services[i].state == SVC_REGISTERED)
			dump_service(f, i);
	for (unsigned l = 0; l < DPK_LCORE_MAX; l++)
		if (dpk__service_lcores[l].role != LC_NONE)
			dump_lcore(f, l);
	pthread_mutex_unlock(&dpk__service_ctl_lock);
	return 0;
}
