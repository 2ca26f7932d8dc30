/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON and CSV files of a dpk-bench run (report.h; fields documented in
 * docs/results-schema.md). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "json.h"
#include "report.h"
#include "witness.h"

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
	if (s->n)
		dpk_json_uint(j, "n", s->n);
	dpk_json_object_end(j);
}

static void json_options(struct dpk_json *j, const struct dpk_bench_options *o)
{
	dpk_json_object_begin(j, "options");
	dpk_json_double(j, "time_s", o->time_s);
	dpk_json_double(j, "warmup_s", o->warmup_s);
	dpk_json_uint(j, "rounds", o->rounds);
	dpk_json_double(j, "slow_limit", o->slow_limit);
	dpk_json_int(j, "repeat", o->repeat);
	dpk_json_string(j, "lcores", o->lcores ? o->lcores : "default");
	dpk_json_bool(j, "raw", o->raw);
	dpk_json_array_begin(j, "placements");
	for (unsigned p = 0; p < DPK_PLACE_COUNT; p++)
		if (o->placement_on[p])
			dpk_json_string(j, NULL, dpk_placement_name(p));
	dpk_json_array_end(j);
	dpk_json_object_end(j);
}

static void json_clock(struct dpk_json *j, const struct dpk_bench_clock *k)
{
	dpk_json_object_begin(j, "clock");
	dpk_json_uint(j, "tsc_hz", k->hz);
	dpk_json_string(j, "tsc_source", k->source);
	dpk_json_double(j, "tsc_hz_check", k->hz_check);
	dpk_json_double(j, "read_cost_ticks", k->read_cost);
	dpk_json_double(j, "read_cost_min_ticks", k->read_cost_min);
	dpk_json_uint(j, "granularity_ticks", k->granularity);
	dpk_json_uint(j, "min_delta_ticks", k->min_delta);
	dpk_json_uint(j, "bumped_reads", k->bumps);
	dpk_json_double(j, "sample_target_ticks_single", k->target_single);
	dpk_json_double(j, "sample_target_ticks_multi", k->target_multi);
	dpk_json_double(j, "witness_ticks", k->witness);
	dpk_json_uint(j, "witness_readings", k->witness_readings);
	dpk_json_double(j, "mul_cycles", k->mul_cycles);
	dpk_json_bool(j, "cycles_on", k->cycles_on);
	dpk_json_object_end(j);
}

static void json_witness(struct dpk_json *j, const struct dpk_bench_witness_log *w)
{
	dpk_json_object_begin(j, "witness");
	dpk_json_double(j, "best_ticks", w->best);
	dpk_json_double(j, "p50_ticks", dpk_report_witness_p50(w));
	dpk_json_double(j, "reference_ticks", w->ref);
	dpk_json_uint(j, "reference_rank", DPK_WITNESS_REF_RANK);
	dpk_json_uint(j, "pairs", DPK_WITNESS_PAIRS);
	dpk_json_uint(j, "warm_pairs", DPK_WITNESS_WARM_PAIRS);
	dpk_json_double(j, "limit", DPK_WITNESS_LIMIT);
	dpk_json_uint(j, "readings", w->n);
	dpk_json_uint(j, "samples", w->samples);
	dpk_json_uint(j, "slow_samples", w->slow);
	dpk_json_uint(j, "set_aside_samples", w->set_aside);
	dpk_json_uint(j, "rounds", w->rounds);
	dpk_json_uint(j, "extra_rounds", w->extra);
	dpk_json_uint(j, "slow_only_cases", w->slow_only_cases);
	dpk_json_object_end(j);
}

static void json_environment(struct dpk_json *j, const struct dpk_env *env)
{
	dpk_json_array_begin(j, "environment");
	for (unsigned i = 0; i < env->count; i++) {
		const struct dpk_env_item *it = &env->item[i];
		dpk_json_object_begin(j, NULL);
		dpk_json_string(j, "key", it->key);
		dpk_json_string(j, "label", it->label);
		dpk_json_string(j, "value", it->value);
		dpk_json_string(j, "verdict", dpk_verdict_name(it->verdict));
		dpk_json_string(j, "detail", it->detail);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
}

static void json_lcores(struct dpk_json *j, const struct dpk_bench_meta *m)
{
	const struct dpk_bench_runner *r = m->runner;
	char buf[64];

	dpk_json_object_begin(j, "lcores");
	dpk_json_uint(j, "main", r->main_lcore);
	dpk_json_array_begin(j, "workers");
	for (unsigned i = 0; i < r->nworkers; i++) {
		struct dpk_cpuset cs;
		dpk_lcore_cpus(r->workers[i], &cs);
		dpk_json_object_begin(j, NULL);
		dpk_json_uint(j, "lcore", r->workers[i]);
		dpk_json_string(j, "cpus", dpk_cpulist_format(&cs, buf, sizeof(buf)));
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
	dpk_json_array_begin(j, "skipped_placements");
	for (unsigned i = 0; i < m->nskips; i++) {
		dpk_json_object_begin(j, NULL);
		dpk_json_string(j, "placement", dpk_placement_name(m->skips[i].placement));
		dpk_json_string(j, "reason", m->skips[i].reason);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
	dpk_json_object_end(j);
}

/* One field of every round of @p x as an array named @p key (NaN: null). */
static void round_array(struct dpk_json *j, const char *key, const struct dpk_bench_result *x,
                        size_t field)
{
	dpk_json_array_begin(j, key);
	for (unsigned q = 0; q < x->nrounds; q++)
		dpk_json_double(j, NULL, *(const double *)((const char *)&x->rounds[q] + field));
	dpk_json_array_end(j);
}

/* The rounds as parallel arrays: median, floor, samples kept, set aside; one lcore, each
 * round as run, slow samples included. */
static void json_rounds(struct dpk_json *j, const struct dpk_bench_result *x)
{
	dpk_json_object_begin(j, "rounds");
	round_array(j, "p50", x, offsetof(struct dpk_bench_round, p50)); /* null: none kept */
	if (x->cycles.n)
		round_array(j, "p50_cycles", x, offsetof(struct dpk_bench_round, p50_cycles));
	dpk_json_array_begin(j, "kept");
	for (unsigned q = 0; q < x->nrounds; q++)
		dpk_json_uint(j, NULL, x->rounds[q].kept);
	dpk_json_array_end(j);
	if (x->whole_rounds) {
		round_array(j, "whole_p50", x, offsetof(struct dpk_bench_round, whole_p50));
		if (x->cycles.n)
			round_array(j, "whole_p50_cycles", x,
			            offsetof(struct dpk_bench_round, whole_p50_cycles));
		round_array(j, "whole_witness", x, offsetof(struct dpk_bench_round, whole_witness));
	}
	if (x->floor_ref > 0) {
		round_array(j, "floor", x, offsetof(struct dpk_bench_round, floor));
		dpk_json_array_begin(j, "set_aside");
		for (unsigned q = 0; q < x->nrounds; q++)
			dpk_json_bool(j, NULL, x->rounds[q].set_aside);
		dpk_json_array_end(j);
	}
	dpk_json_object_end(j);
	json_summary(j, "round_p50", &x->round_p50, 1.0);
}

static void json_floor(struct dpk_json *j, const struct dpk_bench_result *x)
{
	dpk_json_object_begin(j, "floor");
	dpk_json_double(j, "round_trip_ticks", x->floor_rt);
	dpk_json_double(j, "reference_ticks", x->floor_ref);
	dpk_json_double(j, "min_ticks", x->floor_min);
	dpk_json_double(j, "max_ticks", x->floor_max);
	dpk_json_uint(j, "set_aside_rounds", x->rounds_set_aside);
	dpk_json_double(j, "limit", DPK_BENCH_FLOOR_LIMIT);
	json_summary(j, "per_floor", &x->per_floor, 1.0);
	dpk_json_object_end(j);
}

static void json_regimes(struct dpk_json *j, const struct dpk_bench_result *x)
{
	dpk_json_array_begin(j, "regimes");
	for (unsigned c = 0; c < x->nclusters; c++) {
		dpk_json_object_begin(j, NULL);
		dpk_json_double(j, "p50_ticks", x->cluster[c].p50);
		if (x->cluster[c].per_floor > 0)
			dpk_json_double(j, "per_floor", x->cluster[c].per_floor);
		dpk_json_uint(j, "rounds", x->cluster[c].rounds);
		dpk_json_uint(j, "first_round", x->cluster[c].first);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
}

static void json_interleaved(struct dpk_json *j, const struct dpk_bench_result *x)
{
	char ref[160];

	snprintf(ref, sizeof(ref), "%s/%s", x->ref_suite->name, x->ref_case->name);
	dpk_json_object_begin(j, "interleaved");
	dpk_json_string(j, "reference", ref);
	dpk_json_uint(j, "group_size", x->group_size);
	dpk_json_uint(j, "rounds", x->pair_rounds);
	dpk_json_string(j, "unit", x->pair_cycles ? "cycles" : "ticks");
	dpk_json_bool(j, "as_run", x->pair_as_run);
	dpk_json_double(j, "ratio_p50", x->pair_ratio.p50);
	dpk_json_double(j, "ratio_ci95_lo", x->pair_ratio.p50_lo);
	dpk_json_double(j, "ratio_ci95_hi", x->pair_ratio.p50_hi);
	dpk_json_object_end(j);
}

static void json_roles(struct dpk_json *j, const struct dpk_bench_result *x)
{
	dpk_json_array_begin(j, "lcores");
	for (unsigned q = 0; q < x->nroles; q++) {
		const struct dpk_bench_role_result *rr = &x->role[q];
		dpk_json_object_begin(j, NULL);
		dpk_json_uint(j, "role", q);
		dpk_json_string(j, "name", rr->name);
		dpk_json_uint(j, "lcore", rr->lcore);
		dpk_json_uint(j, "cpu", rr->cpu);
		dpk_json_bool(j, "counted", rr->counted);
		dpk_json_uint(j, "ops", rr->ops);
		dpk_json_double(j, "window_s", rr->window_s);
		dpk_json_double(j, "mops", rr->mops);
		dpk_json_uint(j, "batch_ops", rr->batch_ops);
		dpk_json_uint(j, "samples", rr->samples);
		dpk_json_uint(j, "kept", rr->kept);
		json_summary(j, "ticks", &rr->ticks, 1.0);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
}

/* Raw samples to 6 significant digits, one line a series: each is a batch of thousands of
 * ticks over its operations, which a counter step of 2 to 30 ticks already bounds to 3 or
 * 4 digits; the digits past 6 would triple the file and carry nothing. */
static void json_raw(struct dpk_json *j, const char *key, const double *v, size_t n)
{
	dpk_json_numbers(j, key, v, n, 6);
}

/* The figures of a result that ran. */
static void json_figures(struct dpk_json *j, const struct dpk_bench_result *x, double ns_per_tick)
{
	dpk_json_uint(j, "batch_ops", x->batch_ops);
	dpk_json_uint(j, "samples", x->samples);
	dpk_json_uint(j, "kept", x->reject[0]);
	dpk_json_object_begin(j, "rejected");
	for (unsigned q = 1; q < DPK_REJECT_COUNT; q++)
		dpk_json_uint(j, dpk_reject_name(q), x->reject[q]);
	dpk_json_object_end(j);
	json_summary(j, "ticks", &x->ticks, 1.0);
	json_summary(j, "ns", &x->ticks, ns_per_tick);
	if (x->cycles.n) {
		json_summary(j, "cycles", &x->cycles, 1.0);
		dpk_json_uint(j, "cycles_kept", x->cycles.n);
		dpk_json_double(j, "core_mhz", x->core_hz / 1e6);
	}
	dpk_json_double(j, "mops", x->mops);
	dpk_json_uint(j, "code_layouts", dpk_bench_code_layouts(x->c, x->placement));
	if (x->witness_slices) {
		dpk_json_uint(j, "witness_slices", x->witness_slices);
		dpk_json_uint(j, "witness_fast_samples", x->witness_fast);
		dpk_json_uint(j, "witness_kept_rounds", x->witness_kept_rounds);
		dpk_json_bool(j, "witness_slow_only", x->witness_slow_only);
	}
	if (x->interleaved)
		json_interleaved(j, x);
	if (x->nrounds)
		json_rounds(j, x);
	if (x->floor_ref > 0)
		json_floor(j, x);
	else if (x->floor_untimed)
		dpk_json_bool(j, "floor_untimed", true);
	if (x->nclusters)
		json_regimes(j, x);
}

static void json_result(struct dpk_json *j, const struct dpk_bench_result *x, double ns_per_tick)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "suite", x->suite->name);
	dpk_json_string(j, "case", x->c->name);
	dpk_json_object_begin(j, "params");
	for (unsigned p = 0; p < DPK_BENCH_PARAMS_MAX && x->c->params[p].name; p++)
		dpk_json_int(j, x->c->params[p].name, x->c->params[p].value);
	dpk_json_object_end(j);
	dpk_json_string(j, "placement", dpk_placement_name(x->placement));
	dpk_json_uint(j, "repeat", x->repeat);
	dpk_json_string(j, "description", x->c->desc);
	dpk_json_string(j, "unit", dpk_bench_unit_name(x->c->unit));
	dpk_json_string(j, "status", dpk_bench_status_name(x->status));
	if (x->status != DPK_RESULT_OK)
		dpk_json_string(j, "reason", x->reason);
	dpk_json_double(j, "elapsed_s", x->elapsed_s);
	if (x->status == DPK_RESULT_OK) {
		json_figures(j, x, ns_per_tick);
		json_roles(j, x);
		if (x->raw)
			json_raw(j, "raw_ticks", x->raw, x->nraw);
		if (x->raw_cycles)
			json_raw(j, "raw_cycles", x->raw_cycles, x->nraw_cycles);
	}
	dpk_json_object_end(j);
}

int dpk_report_json(FILE *f, const struct dpk_bench_meta *m, const struct dpk_bench_result *res,
                    size_t n)
{
	return dpk_report_json_more(f, m, res, n, NULL, NULL);
}

int dpk_report_json_more(FILE *f, const struct dpk_bench_meta *m,
                         const struct dpk_bench_result *res, size_t n,
                         dpk_report_json_more_fn *more, void *ctx)
{
	const struct dpk_bench_runner *r = m->runner;
	const double ns_per_tick = 1e9 / (double)r->clock.hz;
	struct dpk_json j;

	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	dpk_json_string(&j, "schema", DPK_BENCH_SCHEMA);
	dpk_json_int(&j, "schema_version", DPK_BENCH_SCHEMA_VERSION);
	dpk_json_string(&j, "started", m->started);
	dpk_json_double(&j, "wall_s", m->wall_s);
	dpk_json_string(&j, "command", m->command);
	json_options(&j, &r->opt);
	json_clock(&j, &r->clock);
	json_witness(&j, &r->witness);
	json_environment(&j, m->env);
	json_lcores(&j, m);
	dpk_json_array_begin(&j, "results");
	for (size_t i = 0; i < n; i++)
		json_result(&j, &res[i], ns_per_tick);
	dpk_json_array_end(&j);
	if (more)
		more(&j, ctx);
	dpk_json_object_end(&j);
	return dpk_json_finish(&j);
}

/* ---- CSV ------------------------------------------------------------------------ */

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

	fprintf(f,
	        "row,suite,case,params,placement,repeat,status,unit,samples,kept,"
	        "rejected_migration,rejected_ctx_switch,rejected_gap,rejected_slow,rejected_floor,"
	        "rejected_alone,batch_ops,"
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
			        ",%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu,%llu,%.4f,%.4f,%.4f,%.4f,%.4f,%."
			        "4f,"
			        "%.4f,%.5f,%.4f,%.4f,,,",
			        x->samples, x->reject[0], x->reject[DPK_REJECT_MIGRATION],
			        x->reject[DPK_REJECT_CTX_SWITCH], x->reject[DPK_REJECT_GAP],
			        x->reject[DPK_REJECT_SLOW], x->reject[DPK_REJECT_FLOOR],
			        x->reject[DPK_REJECT_ALONE], (unsigned long long)x->batch_ops,
			        t->min, t->p50, t->p90, t->p99, t->max, t->mean, t->stddev, t->cv,
			        t->p50 * ns_per_tick, x->mops);
		else
			fprintf(f,
			        ",,,,,,,,,,,,,,,,,,,,,,"); /* 21 empty fields, then the witness's */
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
				fprintf(f, ",,,,,,,,,,,,,,,,,,,,%zu,%.4f,,,,,,\n", q, x->raw[q]);
			}
		}
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
