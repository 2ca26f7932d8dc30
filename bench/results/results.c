/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a dpk-bench results file back, with a named error for every shape problem. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "results.h"
#include "stats.h"
#include "witness.h"

#define SCHEMA         "dpkit-bench"
#define SCHEMA_VERSION 1

struct ctx {
	char *err;
	size_t errlen;
};

static int bad(struct ctx *c, const struct dpk_jv *at, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int bad(struct ctx *c, const struct dpk_jv *at, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	if (at && w >= 0 && (size_t)w < c->errlen)
		snprintf(c->err + w, c->errlen - (size_t)w, " (line %u, column %u)", at->line,
		         at->col);
	dpk_utf8_cut(c->err);
	return -EINVAL;
}

/* A member of the expected type; NULL (and an error) when missing or of another type,
 * unless @p optional and missing. */
static const struct dpk_jv *member(struct ctx *c, const struct dpk_jv *obj, const char *path,
                                   const char *key, enum dpk_jv_type t, bool optional, int *rc)
{
	const struct dpk_jv *v = dpk_jv_get(obj, key);

	if (!v) {
		if (!optional)
			*rc = bad(c, obj, "%s%s%s: missing", path, path[0] ? "." : "", key);
		return NULL;
	}
	if (v->type != t) {
		*rc = bad(c, v, "%s%s%s: expected %s, found %s", path, path[0] ? "." : "", key,
		          dpk_jv_type_name(t), dpk_jv_type_name(v->type));
		return NULL;
	}
	return v;
}

static const char *str_or(const struct dpk_jv *obj, const char *key, const char *dflt)
{
	const struct dpk_jv *v = dpk_jv_get(obj, key);
	return v && v->type == DPK_JV_STRING ? v->str.s : dflt;
}

/* A number member: NaN when null (the writer's spelling of a non-finite value) or, if
 * optional, missing. */
static int number(struct ctx *c, const struct dpk_jv *obj, const char *path, const char *key,
                  bool optional, double *out)
{
	const struct dpk_jv *v = dpk_jv_get(obj, key);

	*out = NAN;
	if (!v)
		return optional ? 0 : bad(c, obj, "%s.%s: missing", path, key);
	if (v->type == DPK_JV_NULL)
		return 0;
	if (v->type != DPK_JV_NUMBER)
		return bad(c, v, "%s.%s: expected a number, found %s", path, key,
		           dpk_jv_type_name(v->type));
	*out = v->num;
	return 0;
}

/* A number member that is a count, a rate or a figure: NaN when null or, if optional,
 * missing; a negative one is refused. */
static int nonneg(struct ctx *c, const struct dpk_jv *obj, const char *path, const char *key,
                  bool optional, double *out)
{
	int rc = number(c, obj, path, key, optional, out);

	if (rc == 0 && *out < 0)
		return bad(c, dpk_jv_get(obj, key), "%s.%s: %g is negative, not a count or figure",
		           path, key, *out);
	return rc;
}

/* The optional array of numbers @p key of result @p o, sorted, into @p out (NULL and 0 when
 * absent). */
static int raw_array(struct ctx *c, const struct dpk_jv *o, const char *path, const char *key,
                     double **out, size_t *n)
{
	const struct dpk_jv *v;
	int rc = 0;

	if (!(v = member(c, o, path, key, DPK_JV_ARRAY, true, &rc)))
		return rc;
	*out = malloc((v->arr.n ? v->arr.n : 1) * sizeof(double));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < v->arr.n; i++) {
		const struct dpk_jv *x = &v->arr.v[i];
		if (x->type != DPK_JV_NUMBER)
			return bad(c, x, "%s.%s[%zu]: expected a number, found %s", path, key, i,
			           dpk_jv_type_name(x->type));
		if (x->num < 0)
			return bad(c, x, "%s.%s[%zu]: %g is negative, not a sample", path, key, i,
			           x->num);
		(*out)[i] = x->num;
	}
	*n = v->arr.n;
	dpk_stats_sort(*out, *n);
	return 0;
}

static int summary(struct ctx *c, const struct dpk_jv *obj, const char *path,
                   struct dpk_res_summary *s)
{
	static const char *const keys[] = {"min",  "p50",    "p90", "p99",         "max",
	                                   "mean", "stddev", "cv",  "p50_ci95_lo", "p50_ci95_hi"};
	double *dst[] = {&s->min,  &s->p50,    &s->p90, &s->p99,    &s->max,
	                 &s->mean, &s->stddev, &s->cv,  &s->p50_lo, &s->p50_hi};
	int rc;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((rc = nonneg(c, obj, path, keys[i], false, dst[i])))
			return rc;
	return 0;
}

struct param {
	const char *name;
	double value;
};

/* Array member @p key of @p rounds, of @p n elements of @p type; NULL (with *rc 0) when
 * absent and optional. */
static const struct dpk_jv *round_array(struct ctx *c, const struct dpk_jv *rounds,
                                        const char *path, const char *key, size_t n, bool optional,
                                        int *rc)
{
	const struct dpk_jv *v = member(c, rounds, path, key, DPK_JV_ARRAY, optional, rc);

	if (v && v->arr.n != n) {
		*rc = bad(c, v, "%s.%s: %zu rounds, but %zu medians", path, key, v->arr.n, n);
		return NULL;
	}
	return v;
}

/* One round's median, floor and whether it was set aside, checked. */
static int round_at(struct ctx *c, const char *path, size_t q, const struct dpk_jv *p50,
                    const struct dpk_jv *kept, const struct dpk_jv *fl, const struct dpk_jv *aside,
                    double *m, double *f, bool *left_out)
{
	const struct dpk_jv *x = &p50->arr.v[q], *k = &kept->arr.v[q];

	if (k->type != DPK_JV_NUMBER || k->num < 0)
		return bad(c, k, "%s.kept[%zu]: expected a count", path, q);
	if (x->type != DPK_JV_NULL && (x->type != DPK_JV_NUMBER || !(x->num > 0)))
		return bad(c, x, "%s.p50[%zu]: expected a positive number or null", path, q);
	*m = x->type == DPK_JV_NUMBER ? x->num : NAN;
	*f = NAN;
	*left_out = k->num == 0 || isnan(*m);
	if (fl) {
		const struct dpk_jv *y = &fl->arr.v[q], *a = &aside->arr.v[q];

		if (y->type != DPK_JV_NUMBER || y->num < 0 || a->type != DPK_JV_BOOL)
			return bad(c, y, "%s.floor[%zu] or set_aside[%zu]: not a floor", path, q,
			           q);
		*f = y->num;
		*left_out |= a->b || !(y->num > 0);
	}
	return 0;
}

/* The optional array @p key of @p rd (@p n positive numbers or nulls) into a new array at
 * @p out, NaN for null; *out stays NULL when the file has none. */
static int number_array(struct ctx *c, const struct dpk_jv *rd, const char *path,
                        const char *key, size_t n, double **out)
{
	int rc = 0;
	const struct dpk_jv *a = round_array(c, rd, path, key, n, true, &rc);

	if (!a)
		return rc;
	if (!(*out = malloc((n ? n : 1) * sizeof(double))))
		return -ENOMEM;
	for (size_t q = 0; q < n; q++) {
		const struct dpk_jv *y = &a->arr.v[q];

		if (y->type != DPK_JV_NULL && (y->type != DPK_JV_NUMBER || !(y->num > 0)))
			return bad(c, y, "%s.%s[%zu]: expected a positive number or null", path,
			           key, q);
		(*out)[q] = y->type == DPK_JV_NUMBER ? y->num : NAN;
	}
	return 0;
}

/* The rounds of result @p o, kept ones only, and its own floor (both optional). */
static int load_rounds(struct ctx *c, const struct dpk_jv *o, const char *path,
                       struct dpk_res_entry *e)
{
	const struct dpk_jv *rd, *p50, *kept, *fl = NULL, *aside = NULL, *v;
	char sub[64];
	int rc = 0;

	snprintf(sub, sizeof(sub), "%s.rounds", path);
	if (!(rd = member(c, o, path, "rounds", DPK_JV_OBJECT, true, &rc)))
		return rc;
	if (!(p50 = member(c, rd, sub, "p50", DPK_JV_ARRAY, false, &rc)) ||
	    !(kept = round_array(c, rd, sub, "kept", p50->arr.n, false, &rc)))
		return rc;
	if ((fl = round_array(c, rd, sub, "floor", p50->arr.n, true, &rc)) &&
	    !(aside = round_array(c, rd, sub, "set_aside", p50->arr.n, false, &rc)))
		return rc;
	if (rc || (rc = number_array(c, rd, sub, "p50_cycles", p50->arr.n, &e->round_cycles)))
		return rc;
	e->round_p50 = malloc((p50->arr.n ? p50->arr.n : 1) * sizeof(double));
	e->round_floor = fl ? malloc((p50->arr.n ? p50->arr.n : 1) * sizeof(double)) : NULL;
	if (!e->round_p50 || (fl && !e->round_floor))
		return -ENOMEM;
	e->rounds_run = (unsigned)p50->arr.n;
	for (size_t q = 0; q < p50->arr.n; q++) {
		double m = NAN, f = NAN;
		bool out = true;

		if ((rc = round_at(c, sub, q, p50, kept, fl, aside, &m, &f, &out)))
			return rc;
		if (fl)
			e->round_floor[q] = f;
		e->round_p50[q] = out ? NAN : m;
		if (e->round_cycles && out)
			e->round_cycles[q] = NAN;
		e->nrounds += !out;
	}
	if ((rc = number_array(c, rd, sub, "whole_p50", p50->arr.n, &e->round_whole)) ||
	    (rc = number_array(c, rd, sub, "whole_p50_cycles", p50->arr.n, &e->round_whole_cycles)) ||
	    (rc = number_array(c, rd, sub, "whole_witness", p50->arr.n, &e->round_whole_wit)))
		return rc;
	v = dpk_jv_get(o, "regimes");
	e->nregimes = v && v->type == DPK_JV_ARRAY ? (unsigned)v->arr.n : 0;
	if (!(v = member(c, o, path, "floor", DPK_JV_OBJECT, true, &rc)))
		return rc;
	snprintf(sub, sizeof(sub), "%s.floor", path);
	double aside_n = NAN;
	if ((rc = number(c, v, sub, "round_trip_ticks", false, &e->floor_rt)) ||
	    (rc = number(c, v, sub, "min_ticks", true, &e->floor_min)) ||
	    (rc = number(c, v, sub, "max_ticks", true, &e->floor_max)) ||
	    (rc = number(c, v, sub, "set_aside_rounds", true, &aside_n)))
		return rc;
	e->floor_set_aside = isnan(aside_n) ? 0 : (unsigned)aside_n;
	return 0;
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct param *)a)->name, ((const struct param *)b)->name);
}

static void append(char *buf, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

/* The names of result @p o (suite, case, placement, status, unit), its repeat and texts. */
static int load_names(struct ctx *c, const struct dpk_jv *o, const char *path,
                      struct dpk_res_entry *e)
{
	static const char *const keys[] = {"suite", "case", "placement", "status", "unit"};
	const char **dst[] = {&e->suite, &e->name, &e->placement, &e->status, &e->unit};
	const struct dpk_jv *v;
	double rep;
	int rc = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!(v = member(c, o, path, keys[i], DPK_JV_STRING, false, &rc)))
			return rc;
		*dst[i] = v->str.s;
	}
	if (!e->suite[0] || !e->name[0])
		return bad(c, o, "%s: empty suite or case name", path);
	if ((rc = number(c, o, path, "repeat", true, &rep)))
		return rc;
	if (!isnan(rep) && (rep < 0 || rep > 1e6 || rep != floor(rep)))
		return bad(c, dpk_jv_get(o, "repeat"), "%s.repeat: %g is not a repeat index", path,
		           rep);
	e->repeat = isnan(rep) ? 0 : (unsigned)rep;
	e->desc = str_or(o, "description", "");
	e->reason = str_or(o, "reason", "");
	e->ok = strcmp(e->status, "ok") == 0;
	return 0;
}

/* The parameters of result @p o, as written and sorted by name into its id. */
static int load_params(struct ctx *c, const struct dpk_jv *o, const char *path,
                       struct dpk_res_entry *e)
{
	const struct dpk_jv *params;
	struct param ps[16];
	size_t np = 0;
	int rc = 0;

	if (!(params = member(c, o, path, "params", DPK_JV_OBJECT, false, &rc)))
		return rc;
	if (params->obj.n > sizeof(ps) / sizeof(ps[0]))
		return bad(c, params, "%s.params: more than %zu parameters", path,
		           sizeof(ps) / sizeof(ps[0]));
	e->params[0] = '\0';
	for (size_t i = 0; i < params->obj.n; i++) {
		const struct dpk_jv_member *m = &params->obj.m[i];
		if (m->value.type != DPK_JV_NUMBER)
			return bad(c, &m->value, "%s.params.%s: expected a number, found %s", path,
			           m->key, dpk_jv_type_name(m->value.type));
		ps[np].name = m->key;
		ps[np++].value = m->value.num;
		append(e->params, sizeof(e->params), "%s%s=%.15g", i ? " " : "", m->key,
		       m->value.num);
	}
	/* The id lists parameters by name, so it does not depend on their order. */
	qsort(ps, np, sizeof(ps[0]), cmp_param);
	snprintf(e->family, sizeof(e->family), "%s/%s", e->suite, e->name);
	snprintf(e->id, sizeof(e->id), "%s", e->family);
	for (size_t i = 0; i < np; i++)
		append(e->id, sizeof(e->id), "/%s:%.15g", ps[i].name, ps[i].value);
	append(e->id, sizeof(e->id), "/placement:%s", e->placement);
	/* Cut to their buffers, they end on a whole character. */
	dpk_utf8_cut(e->params);
	dpk_utf8_cut(e->family);
	dpk_utf8_cut(e->id);
	return 0;
}

/* The counts of ok result @p o, and what the speed witness said of it. */
static int load_counts(struct ctx *c, const struct dpk_jv *o, const char *path,
                       struct dpk_res_entry *e)
{
	const struct dpk_jv *v;
	int rc;

	if ((rc = nonneg(c, o, path, "kept", true, &e->kept)) ||
	    (rc = nonneg(c, o, path, "samples", true, &e->samples)) ||
	    (rc = nonneg(c, o, path, "batch_ops", true, &e->batch_ops)) ||
	    (rc = nonneg(c, o, path, "mops", true, &e->mops)) ||
	    (rc = nonneg(c, o, path, "witness_slices", true, &e->witness_slices)) ||
	    (rc = nonneg(c, o, path, "witness_fast_samples", true, &e->witness_fast)) ||
	    (rc = nonneg(c, o, path, "witness_kept_rounds", true, &e->witness_kept_rounds)) ||
	    (rc = nonneg(c, o, path, "code_layouts", true, &e->code_layouts)) ||
	    (isnan(e->witness_fast) &&
	     (rc = nonneg(c, o, path, "witness_fast_slices", true, &e->witness_fast))))
		return rc;
	v = dpk_jv_get(o, "witness_slow_only");
	if (v && v->type == DPK_JV_BOOL)
		e->witness_slow_only = v->b;
	else /* written before the final judgement: no fast sample (or slice, in files of
	      * the slice-judging witness) is the same verdict */
		e->witness_slow_only = e->witness_slices > 0 && e->witness_fast == 0;
	return 0;
}

/* Summary @p key of ok result @p o into @p s (*present says whether the file has it, when
 * it is optional). Every figure is at least 0; a median of 0 (a batch faster than the
 * counter's read, whose cost is taken off) is a figure, which compare does not divide by. */
static int load_summary(struct ctx *c, const struct dpk_jv *o, const char *path, const char *key,
                        bool *present, struct dpk_res_summary *s)
{
	int rc = 0;
	const struct dpk_jv *v = member(c, o, path, key, DPK_JV_OBJECT, present != NULL, &rc);
	char sub[64];

	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	snprintf(sub, sizeof(sub), "%s.%s", path, key);
	if ((rc = summary(c, v, sub, s)))
		return rc;
	if (!present && isnan(s->p50))
		return bad(c, dpk_jv_get(v, "p50"), "%s.p50: null in an ok result", sub);
	return 0;
}

/* The figures of ok result @p o: counts, summaries, lcores and raw samples. */
static int load_figures(struct ctx *c, const struct dpk_jv *o, const char *path,
                        struct dpk_res_entry *e)
{
	const struct dpk_jv *v;
	bool ns, cycles;
	int rc = 0;

	if ((rc = load_counts(c, o, path, e)) ||
	    (rc = load_summary(c, o, path, "ticks", NULL, &e->ticks)) ||
	    (rc = load_summary(c, o, path, "ns", &ns, &e->ns)) ||
	    (rc = load_summary(c, o, path, "cycles", &cycles, &e->cycles)))
		return rc;
	if (cycles && ((rc = nonneg(c, o, path, "core_mhz", true, &e->core_mhz)) ||
	               (rc = nonneg(c, o, path, "cycles_kept", true, &e->cycles_kept))))
		return rc;
	if ((v = member(c, o, path, "lcores", DPK_JV_ARRAY, true, &rc)))
		e->nroles = (unsigned)v->arr.n;
	else if (rc)
		return rc;
	if ((rc = raw_array(c, o, path, "raw_ticks", &e->raw, &e->nraw)) ||
	    (rc = raw_array(c, o, path, "raw_cycles", &e->raw_cycles, &e->nraw_cycles)))
		return rc;
	return 0;
}

static int load_entry(struct ctx *c, const struct dpk_jv *o, size_t idx, struct dpk_res_entry *e)
{
	const struct dpk_res_summary nan = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
	char path[48];
	int rc;

	snprintf(path, sizeof(path), "results[%zu]", idx);
	e->obj = o;
	e->kept = e->samples = e->batch_ops = e->mops = NAN;
	e->witness_slices = e->witness_fast = e->witness_kept_rounds = e->code_layouts = NAN;
	e->floor_rt = e->floor_min = e->floor_max = NAN;
	e->ticks = e->ns = e->cycles = nan;
	e->core_mhz = e->cycles_kept = NAN;
	if (o->type != DPK_JV_OBJECT)
		return bad(c, o, "%s: expected an object, found %s", path,
		           dpk_jv_type_name(o->type));
	if ((rc = load_names(c, o, path, e)) || (rc = load_params(c, o, path, e)))
		return rc;
	if (!e->ok)
		return 0;
	if ((rc = load_figures(c, o, path, e)))
		return rc;
	return load_rounds(c, o, path, e);
}

/* clock: the counter's frequency, which must be a positive number when the file has it,
 * its step and the core clock's multiply. */
static int meta_clock(struct ctx *c, struct dpk_results *r)
{
	const struct dpk_jv *v = dpk_jv_get(&r->doc, "clock"), *w;

	if (!v || v->type != DPK_JV_OBJECT)
		return 0;
	if ((w = dpk_jv_get(v, "tsc_hz"))) {
		if (w->type != DPK_JV_NUMBER)
			return bad(c, w, "clock.tsc_hz: expected a positive number of Hz, found %s",
			           dpk_jv_type_name(w->type));
		if (!(w->num > 0))
			return bad(c, w,
			           "clock.tsc_hz: %g is not a frequency (a positive number of "
			           "Hz)",
			           w->num);
		r->tsc_hz = w->num;
	}
	w = dpk_jv_get(v, "granularity_ticks");
	if (w && w->type == DPK_JV_NUMBER && w->num > 0)
		r->resolution = w->num;
	w = dpk_jv_get(v, "min_delta_ticks");
	if (w && w->type == DPK_JV_NUMBER && w->num > r->resolution)
		r->resolution = w->num;
	w = dpk_jv_get(v, "mul_cycles");
	if (w && w->type == DPK_JV_NUMBER && w->num > 0)
		r->mul_cycles = w->num;
	r->tsc_source = str_or(v, "tsc_source", "");
	return 0;
}

/* witness: its reference reading, when it is of this witness. */
static void meta_witness(struct dpk_results *r)
{
	const struct dpk_jv *v = dpk_jv_get(&r->doc, "witness"), *w, *pairs, *warm;
	bool same_warm;

	if (!v || v->type != DPK_JV_OBJECT)
		return;
	/* Readings of another witness (another number of pairs a timing, or of untimed pairs
	 * before it; a file without warm_pairs had one) are not comparable with this one's:
	 * such a file has no reading to compare. */
	pairs = dpk_jv_get(v, "pairs");
	warm = dpk_jv_get(v, "warm_pairs");
	same_warm = warm ? warm->type == DPK_JV_NUMBER && warm->num == DPK_WITNESS_WARM_PAIRS
	                 : DPK_WITNESS_WARM_PAIRS == 1;
	/* The reference the run judged by; a file from before it has only the fastest. */
	w = dpk_jv_get(v, "reference_ticks");
	r->witness_fastest = !w || w->type != DPK_JV_NUMBER;
	if (r->witness_fastest)
		w = dpk_jv_get(v, "best_ticks");
	if (w && w->type == DPK_JV_NUMBER && w->num > 0 && pairs && pairs->type == DPK_JV_NUMBER &&
	    pairs->num == DPK_WITNESS_PAIRS && same_warm)
		r->witness = w->num;
	w = dpk_jv_get(v, "slow_only_cases");
	if (w && w->type == DPK_JV_NUMBER && w->num > 0 && w->num < 1e9)
		r->witness_slow_only = (unsigned)w->num;
}

/* options and lcores, as a line each for the reports. */
static void meta_run(struct dpk_results *r)
{
	const struct dpk_jv *d = &r->doc, *v, *w;

	if ((v = dpk_jv_get(d, "options")) && v->type == DPK_JV_OBJECT) {
		w = dpk_jv_get(v, "raw");
		r->raw = w && w->type == DPK_JV_BOOL && w->b;
		w = dpk_jv_get(v, "placements");
		if (w && w->type == DPK_JV_ARRAY)
			for (size_t i = 0; i < w->arr.n; i++)
				if (w->arr.v[i].type == DPK_JV_STRING)
					append(r->placements, sizeof(r->placements), "%s%s",
					       r->placements[0] ? "," : "", w->arr.v[i].str.s);
	}
	if (!(v = dpk_jv_get(d, "lcores")) || v->type != DPK_JV_OBJECT)
		return;
	w = dpk_jv_get(v, "main");
	if (w && w->type == DPK_JV_NUMBER)
		append(r->lcores, sizeof(r->lcores), "main %.0f", w->num);
	w = dpk_jv_get(v, "workers");
	if (w && w->type == DPK_JV_ARRAY) {
		append(r->lcores, sizeof(r->lcores), "%sworkers", r->lcores[0] ? ", " : "");
		for (size_t i = 0; i < w->arr.n; i++) {
			const struct dpk_jv *l = dpk_jv_get(&w->arr.v[i], "lcore");
			append(r->lcores, sizeof(r->lcores), " %.0f@%s",
			       l && l->type == DPK_JV_NUMBER ? l->num : -1.0,
			       str_or(&w->arr.v[i], "cpus", "?"));
		}
	}
}

/* environment: its items, as the file has them. */
static int meta_env(struct dpk_results *r)
{
	const struct dpk_jv *v = dpk_jv_get(&r->doc, "environment");

	if (!v || v->type != DPK_JV_ARRAY || !v->arr.n)
		return 0;
	if (!(r->env = calloc(v->arr.n, sizeof(*r->env))))
		return -ENOMEM;
	for (size_t i = 0; i < v->arr.n; i++) {
		const struct dpk_jv *it = &v->arr.v[i];
		if (it->type != DPK_JV_OBJECT)
			continue;
		struct dpk_res_env *x = &r->env[r->nenv++];
		x->key = str_or(it, "key", "");
		x->label = str_or(it, "label", x->key);
		x->value = str_or(it, "value", "");
		x->verdict = str_or(it, "verdict", "unknown");
		x->detail = str_or(it, "detail", "");
	}
	return 0;
}

/* What the file says of its run; only a clock frequency that is none is refused. */
static int load_meta(struct ctx *c, struct dpk_results *r)
{
	int rc;

	r->started = str_or(&r->doc, "started", "");
	r->command = str_or(&r->doc, "command", "");
	r->tsc_source = "";
	rc = meta_clock(c, r);
	meta_witness(r);
	meta_run(r);
	dpk_utf8_cut(r->placements);
	dpk_utf8_cut(r->lcores);
	return rc ? rc : meta_env(r);
}

/* @p *s (of *len bytes, when @p len is not NULL) with every control character replaced by
 * U+FFFD; *s itself when it has none. */
static int printable_string(char **s, size_t *len)
{
	const char *p = *s;
	const size_t n = len ? *len : strlen(p);
	size_t ctl = 0, k, skip;
	char *out, *o;

	for (size_t i = 0; i < n; i += skip)
		ctl += dpk_utf8_control(p + i, dpk_utf8_seq(p + i, n - i, &skip));
	if (ctl == 0)
		return 0;
	if (!(o = out = malloc(n + 2 * ctl + 1)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i += skip) {
		k = dpk_utf8_seq(p + i, n - i, &skip);
		if (dpk_utf8_control(p + i, k)) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
		} else {
			memcpy(o, p + i, skip);
			o += skip;
		}
	}
	*o = '\0';
	free(*s);
	*s = out;
	if (len)
		*len = (size_t)(o - out);
	return 0;
}

/*
 * Every string of @p v (names included) made printable: a control character would reach
 * the terminal (and the pages) of every command that shows it, moving the cursor or
 * forging a line, so each is shown as U+FFFD.
 */
static int printable(struct dpk_jv *v)
{
	int rc = 0;

	if (v->type == DPK_JV_STRING)
		return printable_string(&v->str.s, &v->str.len);
	for (size_t i = 0; v->type == DPK_JV_ARRAY && i < v->arr.n && !rc; i++)
		rc = printable(&v->arr.v[i]);
	for (size_t i = 0; v->type == DPK_JV_OBJECT && i < v->obj.n && !rc; i++)
		if (!(rc = printable_string(&v->obj.m[i].key, NULL)))
			rc = printable(&v->obj.m[i].value);
	return rc;
}

/* The top level: an object of schema dpkit-bench, version 1. */
static int check_schema(struct ctx *c, const struct dpk_jv *doc)
{
	const struct dpk_jv *v;

	if (doc->type != DPK_JV_OBJECT)
		return bad(c, doc, "expected an object at the top level, found %s",
		           dpk_jv_type_name(doc->type));
	v = dpk_jv_get(doc, "schema");
	if (!v) {
		if (dpk_jv_get(doc, "benchmarks") && dpk_jv_get(doc, "context"))
			return bad(c, NULL,
			           "this is a Google Benchmark file (written with "
			           "--format=gbench?); use dpk-bench's own JSON");
		return bad(c, NULL, "no \"schema\" member: not a dpk-bench results file");
	}
	if (v->type != DPK_JV_STRING || strcmp(v->str.s, SCHEMA) != 0)
		return bad(c, v, "schema is %s%s%s, not \"%s\": not a dpk-bench results file",
		           v->type == DPK_JV_STRING ? "\"" : "",
		           v->type == DPK_JV_STRING ? v->str.s : dpk_jv_type_name(v->type),
		           v->type == DPK_JV_STRING ? "\"" : "", SCHEMA);
	v = dpk_jv_get(doc, "schema_version");
	if (!v || v->type != DPK_JV_NUMBER)
		return bad(c, v, "schema_version: %s, expected the number %d",
		           v ? dpk_jv_type_name(v->type) : "missing", SCHEMA_VERSION);
	if (v->num != SCHEMA_VERSION)
		return bad(c, v,
		           "schema_version %g is not supported (this dpk-bench reads version %d)",
		           v->num, SCHEMA_VERSION);
	return 0;
}

/* Every result of the file, checked. */
static int load_results(struct ctx *c, struct dpk_results *r)
{
	const struct dpk_jv *res;
	int rc = 0;

	if (!(res = member(c, &r->doc, "", "results", DPK_JV_ARRAY, false, &rc)))
		return rc;
	if (res->arr.n > DPK_RES_RESULTS_MAX)
		return bad(c, res, "results: %zu results, more than the %u a file may have",
		           res->arr.n, DPK_RES_RESULTS_MAX);
	if (!(r->e = calloc(res->arr.n ? res->arr.n : 1, sizeof(*r->e))))
		return -ENOMEM;
	for (size_t i = 0; i < res->arr.n && rc == 0; i++) {
		r->n = i + 1;
		rc = load_entry(c, &res->arr.v[i], i, &r->e[i]);
	}
	return rc;
}

int dpk_results_load(const char *path, struct dpk_results *r, char *err, size_t errlen)
{
	struct ctx c = {err, errlen};
	int rc;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->tsc_hz = NAN;
	r->mul_cycles = NAN;
	r->witness = NAN;
	if ((rc = dpk_jv_parse_file(path, &r->doc, err, errlen)))
		return rc;
	if (!(rc = printable(&r->doc)) && !(rc = check_schema(&c, &r->doc)) &&
	    !(rc = load_results(&c, r)))
		rc = load_meta(&c, r);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}

/* Free what result @p e owns. */
static void entry_free(struct dpk_res_entry *e)
{
	free(e->raw);
	free(e->raw_cycles);
	free(e->round_p50);
	free(e->round_cycles);
	free(e->round_floor);
	free(e->round_whole);
	free(e->round_whole_cycles);
	free(e->round_whole_wit);
}

void dpk_results_drop(struct dpk_results *r,
                      bool (*drop)(const struct dpk_res_entry *e, const void *ctx), const void *ctx)
{
	size_t kept = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (drop(&r->e[i], ctx))
			entry_free(&r->e[i]);
		else
			r->e[kept++] = r->e[i];
	}
	r->n = kept;
}

void dpk_results_free(struct dpk_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		entry_free(&r->e[i]);
	free(r->e);
	free(r->env);
	dpk_jv_free(&r->doc);
	r->e = NULL;
	r->env = NULL;
	r->n = r->nenv = 0;
}

const struct dpk_res_env *dpk_results_env(const struct dpk_results *r, const char *key)
{
	for (size_t i = 0; i < r->nenv; i++)
		if (strcmp(r->env[i].key, key) == 0)
			return &r->env[i];
	return NULL;
}

bool dpk_results_match(const char *pattern, const struct dpk_res_entry *e)
{
	return fnmatch(pattern, e->suite, 0) == 0 || fnmatch(pattern, e->family, 0) == 0 ||
	       fnmatch(pattern, e->id, 0) == 0;
}

bool dpk_results_selected(const char *const *patterns, unsigned n, const struct dpk_res_entry *e)
{
	if (n == 0)
		return true;
	for (unsigned i = 0; i < n; i++)
		if (dpk_results_match(patterns[i], e))
			return true;
	return false;
}
