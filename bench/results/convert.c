/* SPDX-License-Identifier: BSD-3-Clause */
/* Results files read back, written as Google Benchmark JSON, CSV, Markdown or dpkit JSON. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "json.h"
#include "stats.h"

/* ---- Google Benchmark JSON ---------------------------------------------------------- */

/* A number member of @p obj, or @p dflt. */
static double num_or(const struct dpk_jv *obj, const char *key, double dflt)
{
	const struct dpk_jv *v = dpk_jv_get(obj, key);

	return v && v->type == DPK_JV_NUMBER ? v->num : dflt;
}

/* "SUITE/CASE/esize:8/n:32/placement:single": the parameters in the file's order, as a
 * run's --format=gbench names its benchmarks. */
static void bench_name(const struct dpk_res_entry *e, char *buf, size_t len)
{
	const struct dpk_jv *params = dpk_jv_get(e->obj, "params");
	size_t off;

	snprintf(buf, len, "%s/%s", e->suite, e->name);
	for (size_t i = 0; params && i < params->obj.n; i++) {
		off = strlen(buf);
		snprintf(buf + off, len - off, "/%s:%.15g", params->obj.m[i].key,
		         params->obj.m[i].value.num);
	}
	off = strlen(buf);
	snprintf(buf + off, len - off, "/placement:%s", e->placement);
}

/* The three load averages of the environment's "load" item, zeros when it has none. */
static void json_loadavg(struct dpk_json *j, const struct dpk_results *r)
{
	const struct dpk_res_env *load = dpk_results_env(r, "load");
	double l[3] = {0, 0, 0};

	if (!load || sscanf(load->value, "%lf %lf %lf", &l[0], &l[1], &l[2]) != 3)
		l[0] = l[1] = l[2] = 0;
	dpk_json_array_begin(j, "load_avg");
	for (int i = 0; i < 3; i++)
		dpk_json_double(j, NULL, l[i]);
	dpk_json_array_end(j);
}

/* dpkit's own context: the run's record, its clock and environment, as strings. */
static void json_dpkit_context(struct dpk_json *j, const struct dpk_results *r)
{
	const struct dpk_jv *clock = dpk_jv_get(&r->doc, "clock");
	const struct dpk_res_env *bt = dpk_results_env(r, "build_type");
	char buf[512], key[80];

	dpk_json_string(j, "dpkit_format", "gbench mapping of dpkit-bench v1");
	dpk_json_string(j, "dpkit_converted_from", r->path);
	dpk_json_string(j, "dpkit_command", r->command);
	dpk_json_string(j, "dpkit_build_type", bt ? bt->value : "unknown");
	snprintf(buf, sizeof(buf), "%.0f", r->tsc_hz);
	dpk_json_string(j, "dpkit_tsc_hz", buf);
	dpk_json_string(j, "dpkit_tsc_source", r->tsc_source);
	snprintf(buf, sizeof(buf), "%.0f", num_or(clock, "read_cost_ticks", NAN));
	dpk_json_string(j, "dpkit_read_cost_ticks", buf);
	snprintf(buf, sizeof(buf), "%.0f", num_or(clock, "granularity_ticks", NAN));
	dpk_json_string(j, "dpkit_granularity_ticks", buf);
	for (size_t i = 0; i < r->nenv; i++) {
		const struct dpk_res_env *it = &r->env[i];

		snprintf(key, sizeof(key), "dpkit_env_%s", it->key);
		dpk_json_string(j, key, it->value);
		snprintf(key, sizeof(key), "dpkit_env_%s_verdict", it->key);
		snprintf(buf, sizeof(buf), "%s%s%s", it->verdict, it->detail[0] ? ": " : "",
		         it->detail);
		dpk_json_string(j, key, buf);
	}
}

/* The cases that did not run or broke an invariant: named in the context, since an entry
 * without times would break compare.py. */
static void json_not_run(struct dpk_json *j, const struct dpk_results *r)
{
	char buf[512] = "";

	for (size_t i = 0, off = 0; i < r->n; i++) {
		char name[320];
		int w;

		if (r->e[i].ok)
			continue;
		bench_name(&r->e[i], name, sizeof(name));
		w = snprintf(buf + off, sizeof(buf) - off, "%s%s %s: %s", off ? "; " : "", name,
		             r->e[i].status, r->e[i].reason);
		if (w < 0 || (size_t)w >= sizeof(buf) - off)
			break; /* the list is cut; the results file has every case */
		off += (size_t)w;
	}
	dpk_json_string(j, "dpkit_not_run", buf);
}

static void json_context(struct dpk_json *j, const struct dpk_results *r)
{
	const struct dpk_res_env *gov = dpk_results_env(r, "governor");
	const struct dpk_res_env *bt = dpk_results_env(r, "build_type");
	const struct dpk_res_env *lib = dpk_results_env(r, "dpkit");
	const bool release = bt && (strcmp(bt->value, "Release") == 0 ||
	                            strcmp(bt->value, "RelWithDebInfo") == 0 ||
	                            strcmp(bt->value, "MinSizeRel") == 0);
	char date[40], exe[256];

	/* GB writes ISO 8601 with a numeric offset; the run recorded UTC. */
	snprintf(date, sizeof(date), "%.19s+00:00", r->started);
	snprintf(exe, sizeof(exe), "%.*s", (int)strcspn(r->command, " "), r->command);
	dpk_json_object_begin(j, "context");
	dpk_json_string(j, "date", date);
	dpk_json_string(j, "host_name", "unknown"); /* results files do not record it */
	dpk_json_string(j, "executable", exe[0] ? exe : "dpk-bench");
	dpk_json_int(j, "num_cpus", 0); /* nor the machine's CPU count */
	dpk_json_int(j, "mhz_per_cpu", isfinite(r->tsc_hz) ? (int64_t)llround(r->tsc_hz / 1e6) : 0);
	dpk_json_bool(j, "cpu_scaling_enabled", gov && strcmp(gov->verdict, "degraded") == 0);
	dpk_json_array_begin(j, "caches");
	dpk_json_array_end(j);
	json_loadavg(j, r);
	dpk_json_string(j, "library_version", lib ? lib->value : "unknown");
	dpk_json_string(j, "library_build_type", release ? "release" : "debug");
	dpk_json_int(j, "json_schema_version", 1);
	json_dpkit_context(j, r);
	json_not_run(j, r);
	dpk_json_object_end(j);
}

/* What one benchmark's entries share. */
struct gb_bench {
	char name[320];
	unsigned family, instance, threads;
	size_t reps; /* its iteration entries */
};

static void entry_head(struct dpk_json *j, const struct gb_bench *b, const char *name,
                       const char *run_type)
{
	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "name", name);
	dpk_json_uint(j, "family_index", b->family);
	dpk_json_uint(j, "per_family_instance_index", b->instance);
	dpk_json_string(j, "run_name", b->name);
	dpk_json_string(j, "run_type", run_type);
	dpk_json_uint(j, "repetitions", b->reps);
	dpk_json_uint(j, "threads", b->threads);
}

static void aggregate(struct dpk_json *j, const struct gb_bench *b, const char *agg, double value,
                      size_t samples)
{
	char name[340];

	snprintf(name, sizeof(name), "%s_%s", b->name, agg);
	entry_head(j, b, name, "aggregate");
	dpk_json_string(j, "aggregate_name", agg);
	dpk_json_string(j, "aggregate_unit", strcmp(agg, "cv") == 0 ? "percentage" : "time");
	dpk_json_uint(j, "iterations", samples);
	dpk_json_double(j, "real_time", value);
	dpk_json_double(j, "cpu_time", value);
	dpk_json_string(j, "time_unit", "ns");
	dpk_json_object_end(j);
}

/* The iterations of @p b, from its sorted samples @p v[0..n) (ticks): all of them, or
 * evenly spaced order statistics past DPK_CNV_GBENCH_ENTRIES; then its aggregates. */
static void bench_entries(struct dpk_json *j, struct gb_bench *b, const double *v, size_t n,
                          double batch_ops, double ns_per_tick)
{
	double mean = 0, var = 0, med;

	b->reps = n < DPK_CNV_GBENCH_ENTRIES ? n : DPK_CNV_GBENCH_ENTRIES;
	for (size_t e = 0; e < b->reps; e++) {
		size_t idx = b->reps == n
		                     ? e
		                     : (size_t)(((double)e + 0.5) * (double)n / (double)b->reps);

		entry_head(j, b, b->name, "iteration");
		dpk_json_uint(j, "repetition_index", e);
		dpk_json_uint(j, "iterations", batch_ops >= 1 ? (uint64_t)batch_ops : 1);
		dpk_json_double(j, "real_time", v[idx] * ns_per_tick);
		dpk_json_double(j, "cpu_time", v[idx] * ns_per_tick);
		dpk_json_string(j, "time_unit", "ns");
		dpk_json_double(j, "tsc_ticks", v[idx]);
		dpk_json_object_end(j);
	}
	for (size_t e = 0; e < n; e++)
		mean += v[e];
	mean /= (double)n;
	for (size_t e = 0; e < n; e++)
		var += (v[e] - mean) * (v[e] - mean);
	var = n > 1 ? var / (double)(n - 1) : 0.0;
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	aggregate(j, b, "mean", mean * ns_per_tick, n);
	aggregate(j, b, "median", med * ns_per_tick, n);
	aggregate(j, b, "stddev", sqrt(var) * ns_per_tick, n);
	aggregate(j, b, "cv", mean > 0 ? sqrt(var) / mean : 0.0, n);
}

/* The kept samples of every ok repeat of the case of r->e[i] (its median where the file has
 * no raw samples), sorted, in a new array of *n; marks them in @p done. NULL: no memory. */
static double *pooled(const struct dpk_results *r, size_t i, bool *done, size_t *n)
{
	size_t total = 0, fill = 0;
	double *v;

	for (size_t k = i; k < r->n; k++)
		if (r->e[k].ok && strcmp(r->e[k].id, r->e[i].id) == 0)
			total += r->e[k].raw ? r->e[k].nraw : 1;
	if (!(v = malloc((total ? total : 1) * sizeof(*v))))
		return NULL;
	for (size_t k = i; k < r->n; k++) {
		const struct dpk_res_entry *e = &r->e[k];

		if (!e->ok || strcmp(e->id, r->e[i].id) != 0)
			continue;
		done[k] = true;
		if (e->raw) {
			memcpy(v + fill, e->raw, e->nraw * sizeof(*v));
			fill += e->nraw;
		} else {
			v[fill++] = e->ticks.p50;
		}
	}
	dpk_stats_sort(v, fill);
	*n = fill;
	return v;
}

/* Family (SUITE/CASE) and instance indexes of r->e[i], numbered in order of first
 * appearance as Google Benchmark numbers registrations. */
static void indexes(const struct dpk_results *r, size_t i, unsigned *nfam, unsigned *fam,
                    unsigned *ninst, struct gb_bench *b)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (r->e[k].ok && strcmp(r->e[k].family, r->e[i].family) == 0)
			break;
	fam[i] = k < i ? fam[k] : (*nfam)++;
	b->family = fam[i];
	b->instance = ninst[fam[i]]++;
}

int dpk_convert_gbench(FILE *f, const struct dpk_results *r)
{
	const double ns_per_tick = 1e9 / r->tsc_hz;
	const size_t n = r->n ? r->n : 1;
	unsigned *fam = calloc(n, sizeof(*fam)), *ninst = calloc(n, sizeof(*ninst)), nfam = 0;
	bool *done = calloc(n, sizeof(*done));
	struct dpk_json j;
	int rc = 0;

	if (!(isfinite(r->tsc_hz) && r->tsc_hz > 0))
		rc = -EINVAL;
	else if (!fam || !ninst || !done)
		rc = -ENOMEM;
	dpk_json_init(&j, f, true);
	if (rc == 0) {
		dpk_json_object_begin(&j, NULL);
		json_context(&j, r);
		dpk_json_array_begin(&j, "benchmarks");
	}
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		const struct dpk_res_entry *e = &r->e[i];
		struct gb_bench b = {.threads = e->nroles ? e->nroles : 1};
		size_t nv;
		double *v;

		if (done[i] || !e->ok)
			continue;
		if (!(v = pooled(r, i, done, &nv))) {
			rc = -ENOMEM;
			break;
		}
		indexes(r, i, &nfam, fam, ninst, &b);
		bench_name(e, b.name, sizeof(b.name));
		if (nv)
			bench_entries(&j, &b, v, nv, e->batch_ops, ns_per_tick);
		free(v);
	}
	if (rc == 0) {
		dpk_json_array_end(&j);
		dpk_json_object_end(&j);
		rc = dpk_json_finish(&j) ? -EIO : 0;
	}
	free(fam);
	free(ninst);
	free(done);
	return rc;
}

/* ---- CSV ----------------------------------------------------------------------------- */

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

/* @p s as a CSV field: as it is, as the run writes its names, unless it holds a comma, a
 * quote or a line break (a results file may name a case anything), then quoted. */
static void csv_name(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n"))
		csv_str(f, s);
	else
		fputs(s, f);
}

/* ",V" with @p prec decimals, or "," where the file has no figure. */
static void csv_num(FILE *f, int prec, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.*f", prec, v);
}

/* The figures of an ok result, from samples to mops, and the two empty sample columns. */
static void csv_figures(FILE *f, const struct dpk_results *r, const struct dpk_res_entry *e)
{
	const struct dpk_jv *rej = dpk_jv_get(e->obj, "rejected");
	const struct dpk_res_summary *t = &e->ticks;
	const double counts[] = {e->samples,
	                         e->kept,
	                         num_or(rej, "migration", NAN),
	                         num_or(rej, "ctx_switch", NAN),
	                         num_or(rej, "gap", NAN),
	                         num_or(rej, "slow", NAN),
	                         num_or(rej, "floor", NAN),
	                         num_or(rej, "alone", NAN),
	                         e->batch_ops};
	const double ticks[] = {t->min, t->p50, t->p90, t->p99, t->max, t->mean, t->stddev};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		csv_num(f, 0, counts[i]);
	for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++)
		csv_num(f, 4, ticks[i]);
	csv_num(f, 5, t->cv);
	csv_num(f, 4, isfinite(e->ns.p50) ? e->ns.p50 : t->p50 * 1e9 / r->tsc_hz);
	csv_num(f, 4, e->mops);
	fprintf(f, ",,,");
}

static void csv_row(FILE *f, const struct dpk_results *r, const struct dpk_res_entry *e)
{
	fputs("case,", f);
	csv_name(f, e->suite);
	fputc(',', f);
	csv_name(f, e->name);
	fputc(',', f);
	csv_str(f, e->params);
	fputc(',', f);
	csv_name(f, e->placement);
	fprintf(f, ",%u,", e->repeat);
	csv_name(f, e->status);
	fputc(',', f);
	csv_str(f, e->unit);
	if (e->ok)
		csv_figures(f, r, e);
	else
		fprintf(f, ",,,,,,,,,,,,,,,,,,,,,,"); /* 21 empty fields, then the witness's */
	if (e->ok && e->witness_slices > 0) {
		fprintf(f, "%.0f", e->witness_slices);
		csv_num(f, 0, e->witness_fast);
		fprintf(f, ",%d", e->witness_slow_only);
		csv_num(f, 0, e->witness_kept_rounds);
		fputc(',', f);
	} else {
		fprintf(f, ",,,,");
	}
	if (e->ok && isfinite(e->cycles.p50))
		fprintf(f, "%.4f,%.1f\n", e->cycles.p50, e->core_mhz);
	else
		fprintf(f, ",\n");
}

int dpk_convert_csv(FILE *f, const struct dpk_results *r)
{
	fprintf(f,
	        "row,suite,case,params,placement,repeat,status,unit,samples,kept,"
	        "rejected_migration,rejected_ctx_switch,rejected_gap,rejected_slow,rejected_floor,"
	        "rejected_alone,batch_ops,"
	        "min_ticks,p50_ticks,p90_ticks,p99_ticks,max_ticks,mean_ticks,stddev_ticks,cv,"
	        "p50_ns,mops,sample_index,sample_ticks,witness_slices,witness_fast_samples,"
	        "witness_slow_only,witness_kept_rounds,p50_cycles,core_mhz\n");
	for (size_t i = 0; i < r->n; i++)
		csv_row(f, r, &r->e[i]);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

/* ---- Markdown ------------------------------------------------------------------------ */

/* @p s in a table cell: '|' and '\\' escaped, or a name could end its cell. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* " | V" with @p prec decimals, or " | -" where the file has no figure. */
static void md_num(FILE *f, int prec, double v)
{
	if (isfinite(v))
		fprintf(f, " | %.*f", prec, v);
	else
		fputs(" | -", f);
}

/* "ring/spsc_burst esize=8 n=32" */
static void md_case(FILE *f, const char *suite, const char *name, const char *params)
{
	fputs("| ", f);
	md_text(f, suite);
	fputc('/', f);
	md_text(f, name);
	if (params[0]) {
		fputc(' ', f);
		md_text(f, params);
	}
}

int dpk_convert_markdown(FILE *f, const struct dpk_results *r)
{
	bool ns = true, repeats = false;

	for (size_t i = 0; i < r->n; i++) {
		ns &= !r->e[i].ok || isfinite(r->e[i].ns.p50);
		repeats |= r->e[i].repeat > 0;
	}
	fprintf(f, "| case |%s placement | unit | p50 (%s) | p90 | p99 | samples |\n",
	        repeats ? " repeat |" : "", ns ? "ns" : "ticks");
	fprintf(f, "|:--|%s:--|:--|--:|--:|--:|--:|\n", repeats ? "--:|" : "");
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_res_entry *e = &r->e[i];
		const struct dpk_res_summary *s = ns ? &e->ns : &e->ticks;

		md_case(f, e->suite, e->name, e->params);
		if (repeats)
			fprintf(f, " | %u", e->repeat + 1);
		fputs(" | ", f);
		md_text(f, e->placement);
		fputs(" | ", f);
		md_text(f, e->unit);
		if (e->ok) {
			md_num(f, 2, s->p50);
			md_num(f, 2, s->p90);
			md_num(f, 2, s->p99);
			md_num(f, 0, e->kept);
			fputs(" |\n", f);
		} else {
			fputs(" | ", f);
			md_text(f, e->status);
			fputs(" | | | |\n", f);
		}
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int dpk_convert_markdown_cmp(FILE *f, const struct dpk_cnv_cmp *c)
{
	fprintf(f, "base `");
	md_text(f, c->base_path);
	fprintf(f, "`, new `");
	md_text(f, c->new_path);
	fprintf(f,
	        "`: median per unit in each case's unit, ratio new/base (below 1 is faster), noise "
	        "threshold %.1f%%\n\n",
	        c->noise * 100.0);
	fprintf(f, "| case | placement | in | base p50 | new p50 | ratio | 95%% interval | verdict "
	           "|\n");
	fprintf(f, "|:--|:--|:--|--:|--:|--:|:--|:--|\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct dpk_cnv_case *x = &c->c[i];
		const bool mark = strcmp(x->verdict, "within noise") != 0;

		md_case(f, x->suite, x->name, x->params);
		fputs(" | ", f);
		md_text(f, x->placement);
		fputs(" | ", f);
		md_text(f, x->unit);
		fprintf(f, " | %.2f | %.2f | %.3f | %.3f to %.3f | %s", x->base, x->new, x->ratio,
		        x->lo, x->hi, mark ? "**" : "");
		md_text(f, x->verdict);
		fprintf(f, "%s |\n", mark ? "**" : "");
	}
	if (isfinite(c->geomean))
		fprintf(f,
		        "\nGeometric mean of the ratios %.3f over %zu cases: %u faster, %u slower, "
		        "%u within noise.\n",
		        c->geomean, c->ngeomean, c->faster, c->slower, c->within);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

/* ---- comparisons --------------------------------------------------------------------- */

int dpk_convert_cmp_report(const struct dpk_cmp_report *rep, const struct dpk_results *base,
                           const struct dpk_results *new, struct dpk_cnv_cmp *out)
{
	memset(out, 0, sizeof(*out));
	out->c = calloc(rep->n ? rep->n : 1, sizeof(*out->c));
	if (!out->c)
		return -ENOMEM;
	out->base_path = base->path;
	out->new_path = new->path;
	out->cycles = rep->cycles;
	out->noise = rep->noise;
	out->geomean = rep->geomean;
	out->ngeomean = rep->ngeomean;
	out->faster = rep->faster;
	out->slower = rep->slower;
	out->within = rep->within;
	for (size_t i = 0; i < rep->n; i++) {
		const struct dpk_cmp_case *c = &rep->c[i];
		const struct dpk_res_entry *e = c->base.first;

		out->c[out->n++] =
		        (struct dpk_cnv_case){.id = e->id,
		                              .suite = e->suite,
		                              .name = e->name,
		                              .params = e->params,
		                              .placement = e->placement,
		                              .unit = dpk_cmp_unit_name(c->unit),
		                              .base = c->base.p50,
		                              .new = c->new.p50,
		                              .ratio = c->ratio,
		                              .lo = c->lo,
		                              .hi = c->hi,
		                              .verdict = dpk_cmp_verdict_name(c->verdict)};
	}
	return 0;
}

void dpk_convert_cmp_free(struct dpk_cnv_cmp *c)
{
	free(c->c);
	memset(c, 0, sizeof(*c));
}

/* ---- a compare --json file ----------------------------------------------------------- */

/* Member @p key of @p obj as type @p t, or NULL with "PATH.KEY: ..." in @p err. */
static const struct dpk_jv *need(const struct dpk_jv *obj, const char *path, const char *key,
                                 enum dpk_jv_type t, char *err, size_t errlen)
{
	const struct dpk_jv *v = dpk_jv_get(obj, key);

	if (v && (v->type == t || (t == DPK_JV_NUMBER && v->type == DPK_JV_NULL)))
		return v;
	if (v)
		snprintf(err, errlen, "%s%s%s: expected %s, found %s", path, path[0] ? "." : "",
		         key, dpk_jv_type_name(t), dpk_jv_type_name(v->type));
	else
		snprintf(err, errlen, "%s%s%s: missing", path, path[0] ? "." : "", key);
	return NULL;
}

static double num_of(const struct dpk_jv *v)
{
	return v->type == DPK_JV_NUMBER ? v->num : NAN;
}

/* String member @p key of case object @p o, or NULL with a message. */
#define STR(key) need(o, path, key, DPK_JV_STRING, err, errlen)
/* Number member @p key of object @p obj (a case or one of its sides), or NULL. */
#define NUM(obj, where, key) need(obj, where, key, DPK_JV_NUMBER, err, errlen)

/* Case @p o (cases[@p i]) of a compare --json file into @p c; @p unit names the medians. */
static int cmp_case(const struct dpk_jv *o, size_t i, const char *unit, struct dpk_cnv_case *c,
                    char *err, size_t errlen)
{
	const struct dpk_jv *id, *suite, *name, *params, *place, *verdict, *ratio, *lo, *hi;
	const struct dpk_jv *base, *new, *b50, *n50;
	char path[32], bpath[48], npath[48];

	snprintf(path, sizeof(path), "cases[%zu]", i);
	snprintf(bpath, sizeof(bpath), "%s.base", path);
	snprintf(npath, sizeof(npath), "%s.new", path);
	if (o->type != DPK_JV_OBJECT) {
		snprintf(err, errlen, "%s: expected an object", path);
		return -EINVAL;
	}
	if (!(id = STR("id")) || !(suite = STR("suite")) || !(name = STR("case")) ||
	    !(params = STR("params")) || !(place = STR("placement")) ||
	    !(verdict = STR("verdict")) || !(ratio = NUM(o, path, "ratio")) ||
	    !(lo = NUM(o, path, "ratio_ci95_lo")) || !(hi = NUM(o, path, "ratio_ci95_hi")) ||
	    !(base = need(o, path, "base", DPK_JV_OBJECT, err, errlen)) ||
	    !(new = need(o, path, "new", DPK_JV_OBJECT, err, errlen)) ||
	    !(b50 = NUM(base, bpath, unit)) || !(n50 = NUM(new, npath, unit)))
		return -EINVAL;
	const struct dpk_jv *in = dpk_jv_get(o, "measured_in");

	*c = (struct dpk_cnv_case){.id = id->str.s,
	                           .unit = in && in->type == DPK_JV_STRING   ? in->str.s
	                                   : strcmp(unit, "p50_cycles") == 0 ? "cycles"
	                                                                     : "ticks",
	                           .suite = suite->str.s,
	                           .name = name->str.s,
	                           .params = params->str.s,
	                           .placement = place->str.s,
	                           .base = num_of(b50),
	                           .new = num_of(n50),
	                           .ratio = num_of(ratio),
	                           .lo = num_of(lo),
	                           .hi = num_of(hi),
	                           .verdict = verdict->str.s};
	return 0;
}

#undef STR
#undef NUM

/* The header of a compare --json file: schema, options, files, geometric mean. */
static int cmp_head(const struct dpk_jv *doc, struct dpk_cnv_cmp *out, char *err, size_t errlen)
{
	const struct dpk_jv *schema = dpk_jv_get(doc, "schema"), *opt, *geo;
	const struct dpk_jv *base = dpk_jv_get(doc, "base"), *new = dpk_jv_get(doc, "new");
	const char *unit;

	if (!schema || schema->type != DPK_JV_STRING ||
	    strcmp(schema->str.s, DPK_CMP_SCHEMA) != 0 ||
	    num_or(doc, "schema_version", 0) != DPK_CMP_SCHEMA_VERSION) {
		snprintf(err, errlen, "not a dpk-bench comparison (schema %s v%d)", DPK_CMP_SCHEMA,
		         DPK_CMP_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (!(opt = need(doc, "", "options", DPK_JV_OBJECT, err, errlen)) ||
	    !(geo = need(doc, "", "geomean", DPK_JV_OBJECT, err, errlen)))
		return -EINVAL;
	unit = dpk_jv_get(opt, "unit") && dpk_jv_get(opt, "unit")->type == DPK_JV_STRING
	               ? dpk_jv_get(opt, "unit")->str.s
	               : "ticks";
	out->cycles = strcmp(unit, "cycles") == 0;
	out->noise = num_or(opt, "noise", NAN);
	out->geomean = num_or(geo, "ratio", NAN);
	out->ngeomean = (size_t)num_or(geo, "cases", 0);
	out->faster = (unsigned)num_or(geo, "faster", 0);
	out->slower = (unsigned)num_or(geo, "slower", 0);
	out->within = (unsigned)num_or(geo, "within_noise", 0);
	out->base_path = base && dpk_jv_get(base, "path") ? dpk_jv_get(base, "path")->str.s : "?";
	out->new_path = new &&dpk_jv_get(new, "path") ? dpk_jv_get(new, "path")->str.s : "?";
	return 0;
}

int dpk_convert_cmp_json(const struct dpk_jv *doc, struct dpk_cnv_cmp *out, char *err,
                         size_t errlen)
{
	const struct dpk_jv *cases;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = cmp_head(doc, out, err, errlen)))
		return rc;
	if (!(cases = need(doc, "", "cases", DPK_JV_ARRAY, err, errlen)))
		return -EINVAL;
	out->c = calloc(cases->arr.n ? cases->arr.n : 1, sizeof(*out->c));
	if (!out->c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < cases->arr.n; i++) {
		const struct dpk_jv *b = dpk_jv_get(&cases->arr.v[i], "base");
		/* Each side's median is "p50", in the case's unit ("measured_in"); files from
		 * before units per case named it by the one unit of the whole comparison. */
		const char *key = b && dpk_jv_get(b, "p50") ? "p50"
		                  : out->cycles             ? "p50_cycles"
		                                            : "p50_ticks";

		rc = cmp_case(&cases->arr.v[i], i, key, &out->c[i], err, errlen);
		if (rc)
			return rc;
		out->n++;
	}
	return 0;
}

/* ---- dpkit JSON ---------------------------------------------------------------------- */

/* Whether result object @p o is still among @p r's results. */
static bool kept(const struct dpk_results *r, const struct dpk_jv *o)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].obj == o)
			return true;
	return false;
}

/* Value @p v under @p key (NULL in an array); with @p r, an array of which only the results
 * still in @p r are written. */
static void write_value(struct dpk_json *j, const char *key, const struct dpk_jv *v,
                        const struct dpk_results *r)
{
	switch (v->type) {
	case DPK_JV_NULL:
		dpk_json_null(j, key);
		break;
	case DPK_JV_BOOL:
		dpk_json_bool(j, key, v->b);
		break;
	case DPK_JV_NUMBER:
		/* Whole numbers as integers, as the writer of a run spells counts. */
		if (v->num == floor(v->num) && fabs(v->num) < 9007199254740992.0)
			dpk_json_int(j, key, (int64_t)v->num);
		else
			dpk_json_double(j, key, v->num);
		break;
	case DPK_JV_STRING:
		dpk_json_string(j, key, v->str.s);
		break;
	case DPK_JV_ARRAY:
		dpk_json_array_begin(j, key);
		for (size_t i = 0; i < v->arr.n; i++)
			if (!r || kept(r, &v->arr.v[i]))
				write_value(j, NULL, &v->arr.v[i], NULL);
		dpk_json_array_end(j);
		break;
	case DPK_JV_OBJECT:
		dpk_json_object_begin(j, key);
		for (size_t i = 0; i < v->obj.n; i++)
			write_value(j, v->obj.m[i].key, &v->obj.m[i].value, NULL);
		dpk_json_object_end(j);
		break;
	}
}

void dpk_convert_value(struct dpk_json *j, const char *key, const struct dpk_jv *v)
{
	write_value(j, key, v, NULL);
}

int dpk_convert_dpkit(FILE *f, const struct dpk_results *r)
{
	struct dpk_json j;

	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	for (size_t i = 0; i < r->doc.obj.n; i++) {
		const struct dpk_jv_member *m = &r->doc.obj.m[i];

		write_value(&j, m->key, &m->value, strcmp(m->key, "results") == 0 ? r : NULL);
	}
	dpk_json_object_end(&j);
	return dpk_json_finish(&j) ? -EIO : 0;
}
