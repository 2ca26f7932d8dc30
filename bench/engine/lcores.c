/* SPDX-License-Identifier: BSD-3-Clause */
/* lcores.c - the lcores a run uses, and which placements they offer. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

/*
 * The CPUs a default lcore set may use: the online ones this process may run on. A shell's
 * taskset or a container's cpuset narrows the affinity mask, and the user meant it: DPDK's
 * EAL takes its default cores from the same mask. Pinning may widen the mask under
 * taskset, which would then move the run onto CPUs the user kept it off; under a cpuset it
 * fails, and the run with it. A topology read from another tree (DPK_SYSFS_ROOT) describes
 * another machine, whose CPUs this process's mask says nothing about: there the online
 * CPUs stand.
 */
static void default_cpus(const struct dpk_topo *t, struct dpk_cpuset *out)
{
	const struct dpk_cpuset *on = dpk_topo_online(t);
	const char *root = dpk_topo_root(t);
	/* Sized for DPK_CPU_MAX: a fixed cpu_set_t holds 1024 CPUs, and the call fails
	 * outright on a kernel built for more. */
	size_t size = CPU_ALLOC_SIZE(DPK_CPU_MAX);
	cpu_set_t *mask = CPU_ALLOC(DPK_CPU_MAX);

	*out = *on;
	if (!mask)
		return;
	if ((strcmp(root, "/sys") == 0 || strcmp(root, "/sys/") == 0) &&
	    sched_getaffinity(0, size, mask) == 0) {
		for (unsigned c = 0; c < DPK_CPU_MAX; c++)
			if (!CPU_ISSET_S(c, size, mask))
				dpk_cpuset_clear(out, c);
		if (dpk_cpuset_first(out) >= DPK_CPU_MAX) /* no online CPU in the mask */
			*out = *on;
	}
	CPU_FREE(mask);
}

int dpk_bench_default_spec(const struct dpk_cpuset *cpus, char *buf, size_t len)
{
	unsigned cpu, first = dpk_cpuset_first(cpus), id = 0;
	size_t off = 0;
	int n;

	if (first >= DPK_CPU_MAX)
		return -ENODEV;
	/* main on the first CPU, a worker per CPU, one extra worker on the first CPU */
	n = snprintf(buf, len, "%u@%u", id++, first);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	off = (size_t)n;
	DPK_CPUSET_FOREACH(cpu, cpus)
	{
		if (id >= DPK_LCORE_MAX - 1)
			break;
		n = snprintf(buf + off, len - off, ",%u@%u", id++, cpu);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	n = snprintf(buf + off, len - off, ",%u@%u", id, first);
	if (n < 0 || (size_t)n >= len - off)
		return -ENOSPC;
	return 0;
}

int dpk_bench_lcore_spec(const char *spec, struct dpk_lcore_spec *out)
{
	const struct dpk_topo *t = dpk_topo_system();
	char buf[4096];
	int rc;

	if (!spec) {
		struct dpk_cpuset cpus;

		if (!t)
			return -ENODEV;
		default_cpus(t, &cpus);
		rc = dpk_bench_default_spec(&cpus, buf, sizeof(buf));
		if (rc)
			return rc;
		spec = buf;
	}
	rc = dpk_lcore_spec_parse(spec, out);
	if (rc)
		return rc;
	if (out->count < 1)
		return -EINVAL;
	return dpk_lcore_spec_check(out, t);
}

int dpk_bench_runner_init(struct dpk_bench_runner *r, const struct dpk_bench_options *o)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->opt = *o;
	rc = dpk_bench_lcore_spec(o->lcores, &r->spec);
	if (rc)
		return rc;
	rc = dpk_lcore_init_spec(&r->spec);
	if (rc)
		return rc;
	r->main_lcore = dpk_lcore_main();
	dpk_cpuset_zero(&r->cpus_used);
	for (unsigned i = 0; i < r->spec.count; i++) {
		const struct dpk_cpuset *cs = &r->spec.cpus[i];
		unsigned cpu;

		DPK_CPUSET_FOREACH(cpu, cs)
		dpk_cpuset_set(&r->cpus_used, cpu);
		if (r->spec.ids[i] == r->main_lcore)
			continue;
		unsigned w = r->nworkers++;
		r->workers[w] = r->spec.ids[i];
		r->worker_cpu[w] = dpk_cpuset_count(cs) == 1 ? dpk_cpuset_first(cs) : DPK_CPU_MAX;
		/* "all" takes one worker per distinct CPU set, so the extra oversub worker of
		 * the default spec does not turn "all" into an oversubscribed run. */
		r->all_member[w] = true;
		for (unsigned j = 0; j < w; j++)
			if (r->all_member[j]) {
				struct dpk_cpuset other;
				dpk_lcore_cpus(r->workers[j], &other);
				if (dpk_cpuset_equal(&other, cs))
					r->all_member[w] = false;
			}
	}
	dpk_bench_clock_check(&r->clock, r->opt.witness_check_s);
	r->witness.best = r->witness.check = r->clock.witness;
	r->witness_time = dpk_bench_witness_timing;
	return 0;
}

void dpk_bench_runner_fini(struct dpk_bench_runner *r)
{
	dpk_lcore_fini();
	r->nworkers = 0;
	dpk_bench_witness_log_free(&r->witness);
}

static bool machine_has_smt(const struct dpk_topo *t)
{
	const struct dpk_cpuset *on;
	struct dpk_cpu_info info;
	unsigned cpu;

	if (!t)
		return false;
	on = dpk_topo_online(t);
	DPK_CPUSET_FOREACH(cpu, on)
	if (dpk_topo_cpu(t, cpu, &info) == 0 && dpk_cpuset_count(&info.siblings) > 1)
		return true;
	return false;
}

bool dpk_bench_placement_available(const struct dpk_bench_runner *r, enum dpk_placement p,
                                   unsigned *a, unsigned *b, char *why, size_t whylen)
{
	const struct dpk_topo *t = dpk_topo_system();

	if (p == DPK_PLACE_SINGLE)
		return true;
	if (p == DPK_PLACE_ALL) {
		unsigned n = 0;
		for (unsigned i = 0; i < r->nworkers; i++)
			n += r->all_member[i];
		if (n >= 1)
			return true;
		snprintf(why, whylen, "no worker lcores");
		return false;
	}
	if (p >= DPK_PLACE_COUNT) {
		snprintf(why, whylen, "not a placement");
		return false;
	}
	for (unsigned i = 0; i < r->nworkers; i++) {
		for (unsigned j = i + 1; j < r->nworkers; j++) {
			unsigned ci = r->worker_cpu[i], cj = r->worker_cpu[j];
			if (ci >= DPK_CPU_MAX || cj >= DPK_CPU_MAX || !t)
				continue;
			if (dpk_topo_is_pair(t, p, ci, cj)) {
				*a = r->workers[i];
				*b = r->workers[j];
				return true;
			}
		}
	}
	switch (p) {
	case DPK_PLACE_SMT:
		snprintf(why, whylen, "no two worker lcores are SMT siblings%s",
		         machine_has_smt(t) ? "" : " (the machine has none)");
		break;
	case DPK_PLACE_CORE:
		snprintf(why, whylen, "no two worker lcores on different cores sharing an L3");
		break;
	case DPK_PLACE_LLC:
		snprintf(why, whylen, "no two worker lcores in different L3 domains (%u known)",
		         t ? dpk_topo_llc_count(t) : 0);
		break;
	case DPK_PLACE_NUMA:
		snprintf(why, whylen, "no two worker lcores on different NUMA nodes (%u known)",
		         t ? dpk_topo_numa_count(t) : 0);
		break;
	case DPK_PLACE_OVERSUB:
		snprintf(why, whylen, "no two worker lcores pinned to the same CPU");
		break;
	default:
		snprintf(why, whylen, "unavailable");
		break;
	}
	return false;
}
