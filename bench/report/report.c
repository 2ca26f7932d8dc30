/* SPDX-License-Identifier: BSD-3-Clause */
/* Table, JSON and CSV output of a dpk-bench run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "coreclock.h"
#include "json.h"
#include "report.h"
#include "witness.h"

#ifndef DPK_BUILD_TYPE
#define DPK_BUILD_TYPE "unknown"
#endif

/* The narrowest the table's label columns get: a longer label widens its column, for
 * every line of the block, rather than push the lines' other columns out of line. */
#define ENV_LABEL_WIDTH 24
#define CASE_WIDTH      36

/* Room for a case's label; the width is measured on the label as the rows print it. */
#define CASE_LABEL_MAX 96

const char *dpk_bench_status_name(enum dpk_bench_status s)
{
	switch (s) {
	case DPK_RESULT_OK:
		return "ok";
	case DPK_RESULT_FAILED:
		return "failed";
	case DPK_RESULT_SKIPPED:
		return "skipped";
	case DPK_RESULT_EMPTY:
		return "empty";
	}
	return "?";
}

void dpk_report_env(FILE *f, const struct dpk_env *env, const struct dpk_bench_clock *k)
{
	/* One width for the environment and the clock below it, which read as one list. */
	int w = ENV_LABEL_WIDTH;

	for (unsigned i = 0; i < env->count; i++)
		if ((int)strlen(env->item[i].label) > w)
			w = (int)strlen(env->item[i].label);
	fprintf(f, "environment\n");
	for (unsigned i = 0; i < env->count; i++) {
		const struct dpk_env_item *it = &env->item[i];
		fprintf(f, "  %-*s %-9s %s%s%s%s\n", w, it->label, dpk_verdict_name(it->verdict),
		        it->value[0] ? it->value : "-", it->detail[0] ? " (" : "", it->detail,
		        it->detail[0] ? ")" : "");
	}
	fprintf(f, "clock\n");
	fprintf(f, "  %-*s %.3f MHz from %s (20 ms check: %.3f MHz)\n", w, "counter", k->hz / 1e6,
	        k->source, k->hz_check / 1e6);
	fprintf(f, "  %-*s %.0f ticks median, %.0f min (subtracted from every sample)\n", w,
	        "fenced read pair", k->read_cost, k->read_cost_min);
	/* What the sample length answers to (dpk_bench_clock_check()): the smallest change
	 * between back-to-back reads, where that is larger than the changes' GCD. It bounds how
	 * finely two reads time anything, whether the counter moves in coarse steps (a guest's,
	 * scaled from the host's) or a read takes that long. Reads the counter bumped by one to
	 * keep them apart are named, as they are left out. */
	char bumped[96] = "";

	if (k->bumps)
		snprintf(bumped, sizeof(bumped),
		         "; %zu reads moved under a quarter of the median change, left out",
		         k->bumps);
	if (k->min_delta > k->granularity)
		fprintf(f,
		        "  %-*s %llu ticks (the smallest change between back-to-back reads; "
		        "the changes' GCD is %llu%s)\n",
		        w, "counter resolution", (unsigned long long)k->min_delta,
		        (unsigned long long)k->granularity, bumped);
	else
		fprintf(f,
		        "  %-*s %llu ticks (every change between two reads a multiple of it%s)\n",
		        w, "counter resolution", (unsigned long long)k->granularity, bumped);
	fprintf(f, "  %-*s %.0f ticks one lcore, %.0f ticks multi-lcore\n", w, "sample length",
	        k->target_single, k->target_multi);
	fprintf(f,
	        "  %-*s %.2f ticks per enqueue+dequeue pair (fastest of %u readings in %.2f "
	        "s)\n",
	        w, "speed witness", k->witness, k->witness_readings, k->witness_s);
	if (isfinite(k->mul_cycles))
		fprintf(f, "  %-*s %.2f cycles by a chain of adds (%u assumed): %s\n", w,
		        "core-clock multiply", k->mul_cycles, DPK_CORECLOCK_MUL_CYCLES,
		        k->cycles_on ? "figures in cycles on" : "figures in cycles off");
	else
		fprintf(f, "  %-*s %s\n", w, "core-clock multiply",
		        "- (no chain in this build, or it did not time): no figures in cycles");
}

/* The median of the witness log's readings, NaN when there are none. */
static double witness_p50(const struct dpk_bench_witness_log *w)
{
	double *c, m;

	if (!w->n || !(c = malloc(w->n * sizeof(*c))))
		return NAN;
	memcpy(c, w->v, w->n * sizeof(*c));
	m = dpk_stats_median(c, w->n);
	free(c);
	return m;
}

void dpk_report_coreclock(FILE *f, const struct dpk_bench_clock *clk,
                          const struct dpk_bench_result *res, size_t n)
{
	double *v;
	size_t k = 0;

	if (!clk->cycles_on) {
		if (isfinite(clk->mul_cycles))
			fprintf(f,
			        "core clock: not read; a multiply took %.2f cycles by a chain of "
			        "adds, not the %u the chain assumes: no figures in cycles\n",
			        clk->mul_cycles, DPK_CORECLOCK_MUL_CYCLES);
		else
			fprintf(f, "core clock: not read; this build has no multiply chain, or it "
			           "did not time: no figures in cycles\n");
		return;
	}
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		if (res[i].status == DPK_RESULT_OK && res[i].cycles.n && res[i].core_hz > 0)
			v[k++] = res[i].core_hz / 1e6;
	if (k) {
		dpk_stats_sort(v, k);
		fprintf(f,
		        "core clock: %.0f MHz median over %zu single-lcore results (%.0f-%.0f), "
		        "each from its median round's multiply chain; p50 cyc converts each "
		        "round's samples at that round's clock\n",
		        dpk_stats_quantile(v, k, 0.5), k, v[0], v[k - 1]);
	}
	free(v);
}

void dpk_report_witness(FILE *f, const struct dpk_bench_runner *r,
                        const struct dpk_bench_result *res, size_t n)
{
	const struct dpk_bench_witness_log *w = &r->witness;
	unsigned late = 0;

	if (!w->rounds)
		return;
	/* The reference first, and where it came from: it is what the samples were judged by
	 * (witness.h). */
	char from[128];

	if (w->ref_check && !w->n)
		snprintf(from, sizeof(from),
		         "the clock check's fastest reading: the run took none of its own");
	else if (w->ref_check)
		snprintf(from, sizeof(from),
		         "the clock check's fastest reading: the run's own, from %zu readings, was "
		         "over +%.0f%% of it",
		         w->n, DPK_WITNESS_LIMIT * 100.0);
	else if (w->n < DPK_WITNESS_REF_RANK)
		snprintf(from, sizeof(from), "the fastest of %zu readings", w->n);
	else
		snprintf(from, sizeof(from), "1 in %u from the fastest of %zu readings",
		         DPK_WITNESS_REF_RANK, w->n);
	fprintf(f,
	        "speed witness: reference %.2f ticks (%s), fastest %.2f, median %.2f; %zu of %zu "
	        "samples next to a slow timing (over +%.0f%%), %zu of them set aside; %u rounds, "
	        "%u of them extra\n",
	        w->ref, from, w->best, witness_p50(w), w->slow, w->samples,
	        DPK_WITNESS_LIMIT * 100.0, w->set_aside, w->rounds, w->extra);
	if (!w->slow_only_cases)
		return;
	fprintf(f,
	        "speed witness: %u case runs kept mostly samples the reference finds slow; "
	        "their figures may be slowed\n",
	        w->slow_only_cases);
	/* Those that kept their slow samples are marked in the table; the others were
	 * judged before the reference came down. */
	for (size_t i = 0; i < n; i++) {
		char params[64];

		if (!res[i].witness_slow_only || res[i].witness_kept_slow)
			continue;
		if (late++ == 0)
			fprintf(f, "  judged before the reference came down:");
		if (late > 8)
			continue;
		fprintf(f, " %s/%s", res[i].suite->name, res[i].c->name);
		if (dpk_bench_params_str(res[i].c, params, sizeof(params))[0])
			fprintf(f, " (%s)", params);
		if (r->opt.repeat > 1)
			fprintf(f, " [repeat %u]", res[i].repeat + 1);
	}
	if (late > 8)
		fprintf(f, " and %u more", late - 8);
	if (late)
		fprintf(f, "\n");
}

void dpk_report_placements(FILE *f, const struct dpk_bench_meta *m)
{
	const struct dpk_bench_runner *r = m->runner;
	char cpus[64];

	fprintf(f, "lcores\n  main %u on cpu %u; workers:", r->main_lcore,
	        dpk_lcore_cpu(r->main_lcore));
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct dpk_cpuset cs;
		dpk_lcore_cpus(r->workers[i], &cs);
		fprintf(f, " %u@%s", r->workers[i], dpk_cpulist_format(&cs, cpus, sizeof(cpus)));
	}
	fprintf(f, "\n");
	for (unsigned i = 0; i < m->nskips; i++)
		fprintf(f, "  placement %-8s skipped: %s\n",
		        dpk_placement_name(m->skips[i].placement), m->skips[i].reason);
}

/* The case column's label: the name, then the parameters. Returns @p buf. */
static const char *case_label(const struct dpk_bench_case *c, char *buf, size_t len)
{
	char params[64];

	dpk_bench_params_str(c, params, sizeof(params));
	snprintf(buf, len, "%s%s%s", c->name, params[0] ? " " : "", params);
	return buf;
}

int dpk_report_case_width(const struct dpk_bench_case *c, int width)
{
	char label[CASE_LABEL_MAX];
	int n = (int)strlen(case_label(c, label, sizeof(label)));

	if (width < CASE_WIDTH)
		width = CASE_WIDTH;
	return n > width ? n : width;
}

void dpk_report_suite_header(FILE *f, const struct dpk_bench_suite *s,
                             const struct dpk_bench_clock *k, int width)
{
	fprintf(f, "\n%s: %s\n", s->name, s->desc);
	fprintf(f,
	        "  figures in TSC ticks (%.2f MHz) per unit; ns and Mops/s at that rate; "
	        "p50 cyc in core cycles\n",
	        (double)k->hz / 1e6);
	fprintf(f, "  %-*s %-8s %-14s %9s %9s %9s %9s %9s %6s %9s %9s %9s  %s\n", width, "case",
	        "place", "unit", "p50", "min", "p90", "p99", "max", "cv%", "p50 cyc", "p50 ns",
	        "Mops/s", "samples");
}

static void num(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (v < 1e6)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* The rejected samples and why, " (19044 rejected: 181 gap, 18863 slow)": the reasons that
 * took any, in the order the rules run (each sample counts under the first that took it)
 * and under the names of the JSON "rejected" object and the CSV columns, so a row can be
 * matched to them. Nothing when every sample was kept. */
static void report_rejected(FILE *f, const struct dpk_bench_result *res)
{
	size_t rejected = res->samples - res->reject[0];
	const char *sep = ": ";

	if (!rejected)
		return;
	fprintf(f, " (%zu rejected", rejected);
	for (unsigned q = DPK_REJECT_NONE + 1; q < DPK_REJECT_COUNT; q++) {
		if (!res->reject[q])
			continue;
		fprintf(f, "%s%zu %s", sep, res->reject[q], dpk_reject_name(q));
		sep = ", ";
	}
	fputc(')', f);
}

void dpk_report_row(FILE *f, const struct dpk_bench_result *res, const struct dpk_bench_clock *k,
                    int width)
{
	char name[CASE_LABEL_MAX], a[7][24];
	const struct dpk_summary *t = &res->ticks;
	double ns_per_tick = 1e9 / (double)k->hz;

	case_label(res->c, name, sizeof(name));
	if (res->status != DPK_RESULT_OK) {
		fprintf(f, "  %-*s %-8s %-14s %s: %s\n", width, name,
		        dpk_placement_name(res->placement), dpk_bench_unit_name(res->c->unit),
		        res->status == DPK_RESULT_FAILED ? "FAILED"
		                                         : dpk_bench_status_name(res->status),
		        res->reason);
		return;
	}
	num(a[0], sizeof(a[0]), t->p50);
	num(a[1], sizeof(a[1]), t->min);
	num(a[2], sizeof(a[2]), t->p90);
	num(a[3], sizeof(a[3]), t->p99);
	num(a[4], sizeof(a[4]), t->max);
	num(a[5], sizeof(a[5]), t->p50 * ns_per_tick);
	num(a[6], sizeof(a[6]), res->cycles.n ? res->cycles.p50 : NAN);
	char mops[24];
	if (res->mops >= 0.1 || res->mops == 0)
		snprintf(mops, sizeof(mops), "%.1f", res->mops);
	else
		snprintf(mops, sizeof(mops), "%.2g", res->mops);
	fprintf(f, "  %-*s %-8s %-14s %9s %9s %9s %9s %9s %6.1f %9s %9s %9s  %zu", width, name,
	        dpk_placement_name(res->placement), dpk_bench_unit_name(res->c->unit), a[0], a[1],
	        a[2], a[3], a[4], t->cv * 100.0, a[6], a[5], mops, res->reject[0]);
	report_rejected(f, res);
	if (res->witness_kept_slow)
		fprintf(f, " [too few samples at full speed]");
	fprintf(f, "\n");
	if (res->interleaved) {
		if (res->ref_case == res->c && res->ref_suite == res->suite)
			fprintf(f, "      interleaved: reference of %u variants\n",
			        res->group_size);
		else if (res->pair_rounds)
			fprintf(f,
			        "      interleaved with %s/%s: x%.3f per round [%.3f..%.3f], %zu "
			        "rounds\n",
			        res->ref_suite->name, res->ref_case->name, res->pair_ratio.p50,
			        res->pair_ratio.p50_lo, res->pair_ratio.p50_hi, res->pair_rounds);
	}
	if (res->c->kind == DPK_BENCH_SINGLE)
		return;
	/* The role names take at least 10 columns, more when one is longer ("distributor"),
	 * so that the lines under one row stay in line. */
	int rw = 10;
	for (unsigned i = 0; i < res->nroles; i++)
		if (res->role[i].name && (int)strlen(res->role[i].name) > rw)
			rw = (int)strlen(res->role[i].name);
	for (unsigned i = 0; i < res->nroles; i++) {
		const struct dpk_bench_role_result *rr = &res->role[i];
		char rn[24];

		if (rr->name)
			snprintf(rn, sizeof(rn), "%s", rr->name);
		else
			snprintf(rn, sizeof(rn), "role %u", i);
		num(a[0], sizeof(a[0]), rr->ticks.p50);
		fprintf(f,
		        "      %-*s lcore %-3u cpu %-3u p50 %s ticks, %.3g Mops/s, %zu "
		        "samples%s\n",
		        rw, rn, rr->lcore, rr->cpu, a[0], rr->mops, rr->kept,
		        rr->counted ? "" : " (not counted)");
	}
	if (res->floor_rt > 0) {
		num(a[0], sizeof(a[0]), res->floor_rt);
		fprintf(f,
		        "      %-*s %s: x%.3g a cache-line round trip on this placement "
		        "(floor/pingpong p50 %s ticks)\n",
		        rw, "floor", dpk_bench_unit_name(res->c->unit),
		        res->ticks.p50 / res->floor_rt, a[0]);
	}
}

static void json_summary(struct dpk_json *j, const char *key, const struct dpk_summary *s,
                         double scale)
{
	dpk_json_object_begin(j, key);
	dpk_json_double(j, "min", s->min * scale);
	dpk_json_double(j, "p50", s->p50 * scale);
	dpk_json_double(j, "p90", s->p90 * scale);
	dpk_json_double(j, "p99", s->p99 * scale);
	dpk_json_double(j, "max", s->max * scale);
	dpk_json_double(j, "mean", s->mean * scale);
	dpk_json_double(j, "stddev", s->stddev * scale);
	dpk_json_double(j, "cv", s->cv);
	dpk_json_double(j, "p50_ci95_lo", s->p50_lo * scale);
	dpk_json_double(j, "p50_ci95_hi", s->p50_hi * scale);
	dpk_json_object_end(j);
}

int dpk_report_json(FILE *f, const struct dpk_bench_meta *m, const struct dpk_bench_result *res,
                    size_t n)
{
	const struct dpk_bench_runner *r = m->runner;
	const struct dpk_bench_clock *k = &r->clock;
	double ns_per_tick = 1e9 / (double)k->hz;
	struct dpk_json j;
	char buf[64];

	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	dpk_json_string(&j, "schema", DPK_BENCH_SCHEMA);
	dpk_json_int(&j, "schema_version", DPK_BENCH_SCHEMA_VERSION);
	dpk_json_string(&j, "started", m->started);
	dpk_json_double(&j, "wall_s", m->wall_s);
	dpk_json_string(&j, "command", m->command);

	dpk_json_object_begin(&j, "options");
	dpk_json_double(&j, "time_s", r->opt.time_s);
	dpk_json_double(&j, "warmup_s", r->opt.warmup_s);
	dpk_json_uint(&j, "rounds", r->opt.rounds);
	dpk_json_double(&j, "slow_limit", r->opt.slow_limit);
	dpk_json_int(&j, "repeat", r->opt.repeat);
	dpk_json_string(&j, "lcores", r->opt.lcores ? r->opt.lcores : "default");
	dpk_json_bool(&j, "raw", r->opt.raw);
	dpk_json_array_begin(&j, "placements");
	for (unsigned p = 0; p < DPK_PLACE_COUNT; p++)
		if (r->opt.placement_on[p])
			dpk_json_string(&j, NULL, dpk_placement_name(p));
	dpk_json_array_end(&j);
	dpk_json_object_end(&j);

	dpk_json_object_begin(&j, "clock");
	dpk_json_uint(&j, "tsc_hz", k->hz);
	dpk_json_string(&j, "tsc_source", k->source);
	dpk_json_double(&j, "tsc_hz_check", k->hz_check);
	dpk_json_double(&j, "read_cost_ticks", k->read_cost);
	dpk_json_double(&j, "read_cost_min_ticks", k->read_cost_min);
	dpk_json_uint(&j, "granularity_ticks", k->granularity);
	dpk_json_uint(&j, "min_delta_ticks", k->min_delta);
	dpk_json_uint(&j, "bumped_reads", k->bumps);
	dpk_json_double(&j, "sample_target_ticks_single", k->target_single);
	dpk_json_double(&j, "sample_target_ticks_multi", k->target_multi);
	dpk_json_double(&j, "witness_ticks", k->witness);
	dpk_json_uint(&j, "witness_readings", k->witness_readings);
	dpk_json_double(&j, "mul_cycles", k->mul_cycles);
	dpk_json_bool(&j, "cycles_on", k->cycles_on);
	dpk_json_object_end(&j);

	dpk_json_object_begin(&j, "witness");
	dpk_json_double(&j, "best_ticks", r->witness.best);
	dpk_json_double(&j, "p50_ticks", witness_p50(&r->witness));
	dpk_json_double(&j, "reference_ticks", r->witness.ref);
	dpk_json_uint(&j, "reference_rank", DPK_WITNESS_REF_RANK);
	dpk_json_uint(&j, "pairs", DPK_WITNESS_PAIRS);
	dpk_json_uint(&j, "warm_pairs", DPK_WITNESS_WARM_PAIRS);
	dpk_json_double(&j, "limit", DPK_WITNESS_LIMIT);
	dpk_json_uint(&j, "readings", r->witness.n);
	dpk_json_uint(&j, "samples", r->witness.samples);
	dpk_json_uint(&j, "slow_samples", r->witness.slow);
	dpk_json_uint(&j, "set_aside_samples", r->witness.set_aside);
	dpk_json_uint(&j, "rounds", r->witness.rounds);
	dpk_json_uint(&j, "extra_rounds", r->witness.extra);
	dpk_json_uint(&j, "slow_only_cases", r->witness.slow_only_cases);
	dpk_json_object_end(&j);

	dpk_json_array_begin(&j, "environment");
	for (unsigned i = 0; i < m->env->count; i++) {
		const struct dpk_env_item *it = &m->env->item[i];
		dpk_json_object_begin(&j, NULL);
		dpk_json_string(&j, "key", it->key);
		dpk_json_string(&j, "label", it->label);
		dpk_json_string(&j, "value", it->value);
		dpk_json_string(&j, "verdict", dpk_verdict_name(it->verdict));
		dpk_json_string(&j, "detail", it->detail);
		dpk_json_object_end(&j);
	}
	dpk_json_array_end(&j);

	dpk_json_object_begin(&j, "lcores");
	dpk_json_uint(&j, "main", r->main_lcore);
	dpk_json_array_begin(&j, "workers");
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct dpk_cpuset cs;
		dpk_lcore_cpus(r->workers[i], &cs);
		dpk_json_object_begin(&j, NULL);
		dpk_json_uint(&j, "lcore", r->workers[i]);
		dpk_json_string(&j, "cpus", dpk_cpulist_format(&cs, buf, sizeof(buf)));
		dpk_json_object_end(&j);
	}
	dpk_json_array_end(&j);
	dpk_json_array_begin(&j, "skipped_placements");
	for (unsigned i = 0; i < m->nskips; i++) {
		dpk_json_object_begin(&j, NULL);
		dpk_json_string(&j, "placement", dpk_placement_name(m->skips[i].placement));
		dpk_json_string(&j, "reason", m->skips[i].reason);
		dpk_json_object_end(&j);
	}
	dpk_json_array_end(&j);
	dpk_json_object_end(&j);

	dpk_json_array_begin(&j, "results");
	for (size_t i = 0; i < n; i++) {
		const struct dpk_bench_result *x = &res[i];
		dpk_json_object_begin(&j, NULL);
		dpk_json_string(&j, "suite", x->suite->name);
		dpk_json_string(&j, "case", x->c->name);
		dpk_json_object_begin(&j, "params");
		for (unsigned p = 0; p < DPK_BENCH_PARAMS_MAX && x->c->params[p].name; p++)
			dpk_json_int(&j, x->c->params[p].name, x->c->params[p].value);
		dpk_json_object_end(&j);
		dpk_json_string(&j, "placement", dpk_placement_name(x->placement));
		dpk_json_uint(&j, "repeat", x->repeat);
		dpk_json_string(&j, "description", x->c->desc);
		dpk_json_string(&j, "unit", dpk_bench_unit_name(x->c->unit));
		dpk_json_string(&j, "status", dpk_bench_status_name(x->status));
		if (x->status != DPK_RESULT_OK)
			dpk_json_string(&j, "reason", x->reason);
		dpk_json_double(&j, "elapsed_s", x->elapsed_s);
		if (x->status == DPK_RESULT_OK) {
			dpk_json_uint(&j, "batch_ops", x->batch_ops);
			dpk_json_uint(&j, "samples", x->samples);
			dpk_json_uint(&j, "kept", x->reject[0]);
			dpk_json_object_begin(&j, "rejected");
			for (unsigned q = 1; q < DPK_REJECT_COUNT; q++)
				dpk_json_uint(&j, dpk_reject_name(q), x->reject[q]);
			dpk_json_object_end(&j);
			json_summary(&j, "ticks", &x->ticks, 1.0);
			json_summary(&j, "ns", &x->ticks, ns_per_tick);
			if (x->cycles.n) {
				json_summary(&j, "cycles", &x->cycles, 1.0);
				dpk_json_uint(&j, "cycles_kept", x->cycles.n);
				dpk_json_double(&j, "core_mhz", x->core_hz / 1e6);
			}
			dpk_json_double(&j, "mops", x->mops);
			dpk_json_uint(&j, "code_layouts",
			              dpk_bench_code_layouts(x->c, x->placement));
			if (x->witness_slices) {
				dpk_json_uint(&j, "witness_slices", x->witness_slices);
				dpk_json_uint(&j, "witness_fast_samples", x->witness_fast);
				dpk_json_uint(&j, "witness_kept_rounds", x->witness_kept_rounds);
				dpk_json_bool(&j, "witness_slow_only", x->witness_slow_only);
			}
			if (x->interleaved) {
				char ref[160];
				snprintf(ref, sizeof(ref), "%s/%s", x->ref_suite->name,
				         x->ref_case->name);
				dpk_json_object_begin(&j, "interleaved");
				dpk_json_string(&j, "reference", ref);
				dpk_json_uint(&j, "group_size", x->group_size);
				dpk_json_uint(&j, "rounds", x->pair_rounds);
				dpk_json_double(&j, "ratio_p50", x->pair_ratio.p50);
				dpk_json_double(&j, "ratio_ci95_lo", x->pair_ratio.p50_lo);
				dpk_json_double(&j, "ratio_ci95_hi", x->pair_ratio.p50_hi);
				dpk_json_object_end(&j);
			}
			if (x->floor_rt > 0) {
				dpk_json_object_begin(&j, "floor");
				dpk_json_double(&j, "round_trip_ticks", x->floor_rt);
				dpk_json_double(&j, "ratio", x->ticks.p50 / x->floor_rt);
				dpk_json_object_end(&j);
			}
			dpk_json_array_begin(&j, "lcores");
			for (unsigned q = 0; q < x->nroles; q++) {
				const struct dpk_bench_role_result *rr = &x->role[q];
				dpk_json_object_begin(&j, NULL);
				dpk_json_uint(&j, "role", q);
				dpk_json_string(&j, "name", rr->name);
				dpk_json_uint(&j, "lcore", rr->lcore);
				dpk_json_uint(&j, "cpu", rr->cpu);
				dpk_json_bool(&j, "counted", rr->counted);
				dpk_json_uint(&j, "ops", rr->ops);
				dpk_json_double(&j, "window_s", rr->window_s);
				dpk_json_double(&j, "mops", rr->mops);
				dpk_json_uint(&j, "batch_ops", rr->batch_ops);
				dpk_json_uint(&j, "samples", rr->samples);
				dpk_json_uint(&j, "kept", rr->kept);
				json_summary(&j, "ticks", &rr->ticks, 1.0);
				dpk_json_object_end(&j);
			}
			dpk_json_array_end(&j);
			if (x->raw) {
				dpk_json_array_begin(&j, "raw_ticks");
				for (size_t q = 0; q < x->nraw; q++)
					dpk_json_double(&j, NULL, x->raw[q]);
				dpk_json_array_end(&j);
			}
			if (x->raw_cycles) {
				dpk_json_array_begin(&j, "raw_cycles");
				for (size_t q = 0; q < x->nraw_cycles; q++)
					dpk_json_double(&j, NULL, x->raw_cycles[q]);
				dpk_json_array_end(&j);
			}
		}
		dpk_json_object_end(&j);
	}
	dpk_json_array_end(&j);
	dpk_json_object_end(&j);
	return dpk_json_finish(&j);
}

static void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int dpk_report_csv(FILE *f, const struct dpk_bench_meta *m, const struct dpk_bench_result *res,
                   size_t n, bool raw)
{
	double ns_per_tick = 1e9 / (double)m->runner->clock.hz;
	char params[64];

	fprintf(f, "row,suite,case,params,placement,repeat,status,unit,samples,kept,"
	           "rejected_migration,rejected_ctx_switch,rejected_gap,rejected_slow,batch_ops,"
	           "min_ticks,p50_ticks,p90_ticks,p99_ticks,max_ticks,mean_ticks,stddev_ticks,cv,"
	           "p50_ns,mops,sample_index,sample_ticks,witness_slices,witness_fast_samples,"
	           "witness_slow_only,witness_kept_rounds,p50_cycles,core_mhz\n");
	for (size_t i = 0; i < n; i++) {
		const struct dpk_bench_result *x = &res[i];
		const struct dpk_summary *t = &x->ticks;

		dpk_bench_params_str(x->c, params, sizeof(params));
		fprintf(f, "case,%s,%s,", x->suite->name, x->c->name);
		csv_str(f, params);
		fprintf(f, ",%s,%u,%s,", dpk_placement_name(x->placement), x->repeat,
		        dpk_bench_status_name(x->status));
		csv_str(f, dpk_bench_unit_name(x->c->unit));
		if (x->status == DPK_RESULT_OK)
			fprintf(f,
			        ",%zu,%zu,%zu,%zu,%zu,%zu,%llu,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,"
			        "%.5f,%.4f,%.4f,,,",
			        x->samples, x->reject[0], x->reject[DPK_REJECT_MIGRATION],
			        x->reject[DPK_REJECT_CTX_SWITCH], x->reject[DPK_REJECT_GAP],
			        x->reject[DPK_REJECT_SLOW], (unsigned long long)x->batch_ops,
			        t->min, t->p50, t->p90, t->p99, t->max, t->mean, t->stddev, t->cv,
			        t->p50 * ns_per_tick, x->mops);
		else
			fprintf(f,
			        ",,,,,,,,,,,,,,,,,,,,"); /* 19 empty fields, then the witness's */
		if (x->status == DPK_RESULT_OK && x->witness_slices)
			fprintf(f, "%u,%zu,%d,%u,", x->witness_slices, x->witness_fast,
			        x->witness_slow_only, x->witness_kept_rounds);
		else
			fprintf(f, ",,,,");
		if (x->status == DPK_RESULT_OK && x->cycles.n)
			fprintf(f, "%.4f,%.1f\n", x->cycles.p50, x->core_hz / 1e6);
		else
			fprintf(f, ",\n");
		if (raw && x->raw) {
			for (size_t q = 0; q < x->nraw; q++) {
				fprintf(f, "sample,%s,%s,", x->suite->name, x->c->name);
				csv_str(f, params);
				fprintf(f, ",%s,%u,ok,", dpk_placement_name(x->placement),
				        x->repeat);
				csv_str(f, dpk_bench_unit_name(x->c->unit));
				fprintf(f, ",,,,,,,,,,,,,,,,,,%zu,%.4f,,,,,,\n", q, x->raw[q]);
			}
		}
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
