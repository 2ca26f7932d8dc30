/* SPDX-License-Identifier: BSD-3-Clause */
/* Google Benchmark JSON output of a dpk-bench run. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dpk/common.h>

#include "gbench.h"
#include "json.h"
#include "stats.h"

#ifndef DPK_BUILD_TYPE
#define DPK_BUILD_TYPE "unknown"
#endif

/* "SUITE/CASE/esize:8/n:32/placement:single" */
static void bench_name(const struct dpk_bench_result *x, char *buf, size_t len)
{
	size_t off;

	snprintf(buf, len, "%s/%s", x->suite->name, x->c->name);
	for (unsigned p = 0; p < DPK_BENCH_PARAMS_MAX && x->c->params[p].name; p++) {
		off = strlen(buf);
		snprintf(buf + off, len - off, "/%s:%ld", x->c->params[p].name,
		         x->c->params[p].value);
	}
	off = strlen(buf);
	snprintf(buf + off, len - off, "/placement:%s", dpk_placement_name(x->placement));
}

static bool same_instance(const struct dpk_bench_result *a, const struct dpk_bench_result *b)
{
	return a->suite == b->suite && a->c == b->c && a->placement == b->placement;
}

static bool same_family(const struct dpk_bench_result *a, const struct dpk_bench_result *b)
{
	return a->suite == b->suite && a->c == b->c;
}

/* Cache sizes as GB reports them, from cpu0's sysfs cache directories. */
static void json_caches(struct dpk_json *j)
{
	dpk_json_array_begin(j, "caches");
	for (unsigned i = 0; i < 16; i++) {
		char path[128], type[32] = "", size[32] = "", shared[256] = "";
		unsigned level = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%u/type", i);
		if (!(f = fopen(path, "r")))
			break;
		if (!fgets(type, sizeof(type), f))
			type[0] = '\0';
		fclose(f);
		type[strcspn(type, "\n")] = '\0';
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%u/level", i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%u", &level) != 1)
				level = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%u/size", i);
		if ((f = fopen(path, "r"))) {
			if (!fgets(size, sizeof(size), f))
				size[0] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof(path),
		         "/sys/devices/system/cpu/cpu0/cache/index%u/shared_cpu_list", i);
		if ((f = fopen(path, "r"))) {
			if (!fgets(shared, sizeof(shared), f))
				shared[0] = '\0';
			fclose(f);
		}
		char *end;
		unsigned long long bytes = strtoull(size, &end, 10);
		if (*end == 'K')
			bytes <<= 10;
		else if (*end == 'M')
			bytes <<= 20;
		else if (*end == 'G')
			bytes <<= 30;
		/* Count the CPUs in a list such as "0-3,8-11". */
		unsigned sharing = 0;
		for (char *p = shared; *p && *p != '\n';) {
			unsigned long a = strtoul(p, &end, 10), b = a;
			if (end == p)
				break;
			p = end;
			if (*p == '-') {
				b = strtoul(p + 1, &end, 10);
				p = end;
			}
			sharing += (unsigned)(b >= a ? b - a + 1 : 1);
			if (*p == ',')
				p++;
		}
		dpk_json_object_begin(j, NULL);
		dpk_json_string(j, "type", type);
		dpk_json_uint(j, "level", level);
		dpk_json_uint(j, "size", bytes);
		dpk_json_uint(j, "num_sharing", sharing);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
}

static void json_loadavg(struct dpk_json *j)
{
	double l[3] = {0, 0, 0};
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) != 3)
			l[0] = l[1] = l[2] = 0;
		fclose(f);
	}
	dpk_json_array_begin(j, "load_avg");
	for (int i = 0; i < 3; i++)
		dpk_json_double(j, NULL, l[i]);
	dpk_json_array_end(j);
}

static bool is_release(const char *bt)
{
	return strcmp(bt, "Release") == 0 || strcmp(bt, "RelWithDebInfo") == 0 ||
	       strcmp(bt, "MinSizeRel") == 0;
}

static void json_context(struct dpk_json *j, const struct dpk_bench_meta *m,
                         const struct dpk_bench_result *res, size_t n, const char *executable)
{
	const struct dpk_bench_clock *k = &m->runner->clock;
	const struct dpk_env_item *gov = dpk_env_find(m->env, "governor");
	char date[40], host[256], buf[512];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	/* GB writes ISO 8601 with a numeric offset; the run records UTC. */
	snprintf(date, sizeof(date), "%.19s+00:00", m->started);
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	dpk_json_object_begin(j, "context");
	dpk_json_string(j, "date", date);
	dpk_json_string(j, "host_name", host);
	dpk_json_string(j, "executable", executable ? executable : "dpk-bench");
	dpk_json_int(j, "num_cpus", ncpu > 0 ? ncpu : 0);
	dpk_json_int(j, "mhz_per_cpu", (int64_t)llround((double)k->hz / 1e6));
	/* As GB: enabled when a governor other than "performance" was seen. */
	dpk_json_bool(j, "cpu_scaling_enabled", gov && gov->verdict == DPK_VERDICT_DEGRADED);
	json_caches(j);
	json_loadavg(j);
	snprintf(buf, sizeof(buf), "dpkit %s (git %s)", dpk_version(), dpk_bench_git_rev);
	dpk_json_string(j, "library_version", buf);
	dpk_json_string(j, "library_build_type", is_release(DPK_BUILD_TYPE) ? "release" : "debug");
	dpk_json_int(j, "json_schema_version", 1);

	/* dpkit's own context: strings, as GB's --benchmark_context values are. */
	dpk_json_string(j, "dpkit_format", "gbench mapping of dpkit-bench v1");
	dpk_json_string(j, "dpkit_command", m->command);
	dpk_json_string(j, "dpkit_build_type", DPK_BUILD_TYPE);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)k->hz);
	dpk_json_string(j, "dpkit_tsc_hz", buf);
	dpk_json_string(j, "dpkit_tsc_source", k->source);
	snprintf(buf, sizeof(buf), "%.0f", k->read_cost);
	dpk_json_string(j, "dpkit_read_cost_ticks", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)k->granularity);
	dpk_json_string(j, "dpkit_granularity_ticks", buf);
	for (unsigned i = 0; i < m->env->count; i++) {
		const struct dpk_env_item *it = &m->env->item[i];
		char key[64];
		snprintf(key, sizeof(key), "dpkit_env_%s", it->key);
		dpk_json_string(j, key, it->value);
		snprintf(key, sizeof(key), "dpkit_env_%s_verdict", it->key);
		snprintf(buf, sizeof(buf), "%s%s%s", dpk_verdict_name(it->verdict),
		         it->detail[0] ? ": " : "", it->detail);
		dpk_json_string(j, key, buf);
	}
	/* Cases that did not run or broke an invariant: named here, since an entry without
	 * times would break compare.py. */
	buf[0] = '\0';
	for (size_t i = 0, off = 0; i < n; i++) {
		char name[256];
		int w;
		if (res[i].status == DPK_RESULT_OK)
			continue;
		bench_name(&res[i], name, sizeof(name));
		w = snprintf(buf + off, sizeof(buf) - off, "%s%s %s: %s", off ? "; " : "", name,
		             dpk_bench_status_name(res[i].status), res[i].reason);
		if (w < 0 || (size_t)w >= sizeof(buf) - off)
			break; /* the list is cut; the results table has every case */
		off += (size_t)w;
	}
	dpk_json_string(j, "dpkit_not_run", buf);
	dpk_json_object_end(j);
}

static void entry_head(struct dpk_json *j, const char *name, const char *run_name, unsigned family,
                       unsigned instance, const char *run_type, size_t reps)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "name", name);
	dpk_json_uint(j, "family_index", family);
	dpk_json_uint(j, "per_family_instance_index", instance);
	dpk_json_string(j, "run_name", run_name);
	dpk_json_string(j, "run_type", run_type);
	dpk_json_uint(j, "repetitions", reps);
}

static void aggregate(struct dpk_json *j, const char *run_name, unsigned family, unsigned instance,
                      size_t reps, unsigned threads, const char *agg, double value, size_t samples)
{
	char name[320];

	snprintf(name, sizeof(name), "%s_%s", run_name, agg);
	entry_head(j, name, run_name, family, instance, "aggregate", reps);
	dpk_json_uint(j, "threads", threads);
	dpk_json_string(j, "aggregate_name", agg);
	dpk_json_string(j, "aggregate_unit", strcmp(agg, "cv") == 0 ? "percentage" : "time");
	dpk_json_uint(j, "iterations", samples);
	dpk_json_double(j, "real_time", value);
	dpk_json_double(j, "cpu_time", value);
	dpk_json_string(j, "time_unit", "ns");
	dpk_json_object_end(j);
}

/* Number families (SUITE/CASE) and their instances (parameters and placement) in order of
 * first appearance, as GB numbers registrations. */
static void number_instances(const struct dpk_bench_result *res, size_t n, unsigned *fam,
                             unsigned *inst, unsigned *ninst)
{
	unsigned nfam = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (res[i].status != DPK_RESULT_OK)
			continue;
		for (k = 0; k < i; k++)
			if (res[k].status == DPK_RESULT_OK && same_instance(&res[k], &res[i]))
				break;
		if (k < i) {
			fam[i] = fam[k];
			inst[i] = inst[k];
			continue;
		}
		for (k = 0; k < i; k++)
			if (res[k].status == DPK_RESULT_OK && same_family(&res[k], &res[i]))
				break;
		fam[i] = k < i ? fam[k] : nfam++;
		inst[i] = ninst[fam[i]]++;
	}
}

/* The kept samples of every repeat of @p res[i]'s instance (its median where a repeat
 * kept none raw), sorted, in a new array of *fill; marks them in @p done. NULL: no memory. */
static double *pool_instance(const struct dpk_bench_result *res, size_t n, size_t i, bool *done,
                             size_t *fill)
{
	size_t total = 0;
	double *v;

	for (size_t k = i; k < n; k++)
		if (res[k].status == DPK_RESULT_OK && same_instance(&res[k], &res[i]))
			total += res[k].raw ? res[k].nraw : 1;
	if (!(v = malloc((total ? total : 1) * sizeof(*v))))
		return NULL;
	*fill = 0;
	for (size_t k = i; k < n; k++) {
		if (res[k].status != DPK_RESULT_OK || !same_instance(&res[k], &res[i]))
			continue;
		done[k] = true;
		if (res[k].raw) {
			memcpy(v + *fill, res[k].raw, res[k].nraw * sizeof(*v));
			*fill += res[k].nraw;
		} else {
			v[(*fill)++] = res[k].ticks.p50;
		}
	}
	dpk_stats_sort(v, *fill);
	return v;
}

/* The entries of one instance: a repetition per sample (evenly spaced order statistics
 * past DPK_GBENCH_ENTRIES_MAX), then mean, median, stddev and cv over every sample. */
static void instance_entries(struct dpk_json *j, const struct dpk_bench_result *x, unsigned fam,
                             unsigned inst, const double *v, size_t fill, double ns_per_tick)
{
	const unsigned threads = x->nroles ? x->nroles : 1;
	const size_t entries = fill < DPK_GBENCH_ENTRIES_MAX ? fill : DPK_GBENCH_ENTRIES_MAX;
	double mean = 0, var = 0, med;
	char name[320];

	bench_name(x, name, sizeof(name));
	for (size_t e = 0; e < entries; e++) {
		const size_t idx =
		        entries == fill
		                ? e
		                : (size_t)(((double)e + 0.5) * (double)fill / (double)entries);
		const double ns = v[idx] * ns_per_tick;

		entry_head(j, name, name, fam, inst, "iteration", entries);
		dpk_json_uint(j, "repetition_index", e);
		dpk_json_uint(j, "threads", threads);
		dpk_json_uint(j, "iterations", x->batch_ops ? x->batch_ops : 1);
		dpk_json_double(j, "real_time", ns);
		dpk_json_double(j, "cpu_time", ns);
		dpk_json_string(j, "time_unit", "ns");
		dpk_json_double(j, "tsc_ticks", v[idx]);
		dpk_json_object_end(j);
	}
	for (size_t e = 0; e < fill; e++)
		mean += v[e];
	mean /= (double)fill;
	for (size_t e = 0; e < fill; e++)
		var += (v[e] - mean) * (v[e] - mean);
	var = fill > 1 ? var / (double)(fill - 1) : 0.0;
	med = fill % 2 ? v[fill / 2] : (v[fill / 2 - 1] + v[fill / 2]) / 2.0;
	aggregate(j, name, fam, inst, entries, threads, "mean", mean * ns_per_tick, fill);
	aggregate(j, name, fam, inst, entries, threads, "median", med * ns_per_tick, fill);
	aggregate(j, name, fam, inst, entries, threads, "stddev", sqrt(var) * ns_per_tick, fill);
	aggregate(j, name, fam, inst, entries, threads, "cv", mean > 0 ? sqrt(var) / mean : 0.0,
	          fill);
}

int dpk_report_gbench(FILE *f, const struct dpk_bench_meta *m, const struct dpk_bench_result *res,
                      size_t n, const char *executable)
{
	const double ns_per_tick = 1e9 / (double)m->runner->clock.hz;
	unsigned *fam = calloc(n ? n : 1, sizeof(*fam)), *inst = calloc(n ? n : 1, sizeof(*inst));
	unsigned *ninst = calloc(n ? n : 1, sizeof(*ninst));
	bool *done = calloc(n ? n : 1, sizeof(*done));
	struct dpk_json j;
	int rc = 0;

	if (!fam || !inst || !ninst || !done) {
		rc = -ENOMEM;
		goto out;
	}
	number_instances(res, n, fam, inst, ninst);
	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	json_context(&j, m, res, n, executable);
	dpk_json_array_begin(&j, "benchmarks");
	for (size_t i = 0; i < n; i++) {
		size_t fill = 0;
		double *v;

		if (done[i] || res[i].status != DPK_RESULT_OK)
			continue;
		if (!(v = pool_instance(res, n, i, done, &fill))) {
			rc = -ENOMEM;
			break;
		}
		if (fill)
			instance_entries(&j, &res[i], fam[i], inst[i], v, fill, ns_per_tick);
		free(v);
	}
	dpk_json_array_end(&j);
	dpk_json_object_end(&j);
	if (dpk_json_finish(&j) && rc == 0)
		rc = -EIO;
out:
	free(fam);
	free(inst);
	free(ninst);
	free(done);
	return rc;
}
