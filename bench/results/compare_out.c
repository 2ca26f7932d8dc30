/* SPDX-License-Identifier: BSD-3-Clause */
/* compare_out.c - a comparison as a table for people and as JSON (compare.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "json.h"

static void fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p == 0)
		snprintf(buf, len, "<1e-300");
	else if (p >= 0.001)
		snprintf(buf, len, "%.3f", p);
	else
		snprintf(buf, len, "%.0e", p);
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (v < 1)
		snprintf(buf, len, "%.4f", v);
	else if (v < 1e5)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static void describe_file(FILE *f, const char *label, const struct dpk_results *r)
{
	const struct dpk_res_env *d = dpk_results_env(r, "dpkit");
	size_t rounds = 0, ok = 0;

	for (size_t i = 0; i < r->n; i++) {
		ok += r->e[i].ok;
		rounds += r->e[i].ok && r->e[i].round_p50;
	}
	fprintf(f, "%s %s (%s%s%s, %zu results, %s)\n", label, r->path,
	        r->started[0] ? r->started : "date unknown", d && d->value[0] ? ", dpkit " : "",
	        d && d->value[0] ? d->value : "", r->n,
	        rounds == ok && ok ? "with rounds"
	        : rounds           ? "some with rounds"
	                           : "no rounds");
}

/* Column widths of the case, params and placement columns. */
struct widths {
	int name, par, pl;
};

static struct widths widths_of(const struct dpk_cmp_report *r)
{
	struct widths w = {(int)strlen("case"), (int)strlen("params"), (int)strlen("place")};

	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_res_entry *e = r->c[i].base.first;
		int l = (int)strlen(e->family);

		w.name = l > w.name ? l : w.name;
		l = (int)strlen(e->params);
		w.par = l > w.par ? l : w.par;
		l = (int)strlen(e->placement);
		w.pl = l > w.pl ? l : w.pl;
	}
	w.name = w.name > 40 ? 40 : w.name;
	w.par = w.par > 24 ? 24 : w.par;
	return w;
}

static void print_rows(FILE *f, const struct dpk_cmp_report *r, struct widths w)
{
	fprintf(f, "%-*s  %-*s  %-*s %-9s %10s %10s  %6s  %-16s %8s  %8s  %-11s %s\n", w.name,
	        "case", w.par, "params", w.pl, "place", "unit", "base p50", "new p50", "ratio",
	        "95% interval", "change", "p", "judged on", "verdict");
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_cmp_case *c = &r->c[i];
		const struct dpk_res_entry *e = c->base.first;
		char b[24], n[24], p[16], ci[40];

		fmt_num(b, sizeof(b), c->base.p50);
		fmt_num(n, sizeof(n), c->new.p50);
		fmt_p(p, sizeof(p), c->p);
		snprintf(ci, sizeof(ci), "[%.3f, %.3f]", c->lo, c->hi);
		fprintf(f,
		        "%-*.*s  %-*.*s  %-*s %-9s %10s %10s  %6.3f  %-16s %+7.1f%%  %8s  %-11s "
		        "%s%s\n",
		        w.name, w.name, e->family, w.par, w.par, e->params, w.pl, e->placement,
		        dpk_cmp_unit_name(c->unit), b, n, c->ratio, ci, (c->ratio - 1.0) * 100.0, p,
		        dpk_cmp_basis(c), dpk_cmp_verdict_name(c->verdict),
		        c->gate_failed ? "  FAIL" : "");
	}
	if (r->ngeomean)
		fprintf(f, "%-*s  %-*s  %-*s %-9s %10s %10s  %6.3f  %-16s %+7.1f%%\n", w.name,
		        "geometric mean", w.par, "", w.pl, "", "", "", "", r->geomean, "",
		        (r->geomean - 1.0) * 100.0);
}

/* The line that says what the verdicts rest on, and the notes it needs. */
static void print_basis(FILE *f, const struct dpk_cmp_report *r)
{
	const unsigned *m = r->by_method;

	fprintf(f, "\n%zu cases: %u faster, %u slower, %u within noise, %u without a verdict\n",
	        r->n, r->faster, r->slower, r->within, r->none);
	fprintf(f,
	        "verdicts rest on: %u on the repeats' medians, %u on the rounds' medians "
	        "(%u in core cycles, %u in ticks, %u over the case's own floor)",
	        m[DPK_CMP_REPEATS], m[DPK_CMP_ROUNDS], r->by_unit[DPK_CMP_CYCLES],
	        r->by_unit[DPK_CMP_TICKS], r->by_unit[DPK_CMP_PER_FLOOR]);
	if (m[DPK_CMP_PLACEMENT])
		fprintf(f, "; %u not judged: the placement changed", m[DPK_CMP_PLACEMENT]);
	if (m[DPK_CMP_TEST] + m[DPK_CMP_CI_ONLY] + m[DPK_CMP_TOO_FEW])
		fprintf(f, "; %u not judged: one run a side without rounds, or too few samples",
		        m[DPK_CMP_TEST] + m[DPK_CMP_CI_ONLY] + m[DPK_CMP_TOO_FEW]);
	fprintf(f, "\n");
	if (m[DPK_CMP_ROUNDS] && r->run_sigma >= 0)
		fprintf(f,
		        "rounds: drift within each run is in the interval, and drift between the "
		        "two runs enters it as a\nbetween-run sigma of %.1f%% (--run-sigma); for "
		        "finer verdicts run both builds in one session with dpk-bench ab\n",
		        r->run_sigma * 100.0);
	else if (m[DPK_CMP_ROUNDS])
		fprintf(f,
		        "rounds: drift within each run is in the interval, and drift between the "
		        "two runs enters it as a\nbetween-run sigma of %.1f%% in core cycles, "
		        "%.1f%% in ticks, more where a case's rounds spread wide (%.1f\ntimes the "
		        "interquartile range of their logs, each side; --run-sigma sets one for "
		        "all); for finer verdicts\nrun both builds in one session with dpk-bench "
		        "ab\n",
		        DPK_CMP_RUN_SIGMA_CYCLES * 100.0, DPK_CMP_RUN_SIGMA_TICKS * 100.0,
		        DPK_CMP_RUN_SIGMA_SPREAD);
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].method == DPK_CMP_PLACEMENT || r->c[i].method == DPK_CMP_TEST ||
		    r->c[i].method == DPK_CMP_CI_ONLY || r->c[i].method == DPK_CMP_TOO_FEW)
			fprintf(f, "  %s: %s\n", r->c[i].base.first->id, r->c[i].note);
}

static void print_lists(FILE *f, const struct dpk_cmp_report *r)
{
	if (r->n_only_base) {
		fprintf(f, "\nonly in base (%zu):\n", r->n_only_base);
		for (size_t i = 0; i < r->n_only_base; i++)
			fprintf(f, "  %s\n", r->only_base[i]);
	}
	if (r->n_only_new) {
		fprintf(f, "\nonly in new (%zu):\n", r->n_only_new);
		for (size_t i = 0; i < r->n_only_new; i++)
			fprintf(f, "  %s\n", r->only_new[i]);
	}
	if (r->nskip) {
		fprintf(f, "\nnot compared (%zu):\n", r->nskip);
		for (size_t i = 0; i < r->nskip; i++)
			fprintf(f, "  %s: %s\n", r->skip[i].id, r->skip[i].reason);
	}
}

static void print_gate(FILE *f, const struct dpk_cmp_report *r)
{
	if (r->fail_above < 0)
		return;
	if (!r->gate_failures) {
		fprintf(f, "\ngate: passed, no case is slower by more than %.1f%%\n",
		        r->fail_above * 100.0);
		return;
	}
	fprintf(f, "\ngate: FAILED, %u case%s slower by more than %.1f%%:\n", r->gate_failures,
	        r->gate_failures == 1 ? "" : "s", r->fail_above * 100.0);
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].gate_failed)
			fprintf(f, "  %s  %+.1f%% (95%% interval from %+.1f%%)\n",
			        r->c[i].base.first->id, (r->c[i].ratio - 1) * 100,
			        (r->c[i].lo - 1) * 100);
}

void dpk_cmp_print(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                   const struct dpk_cmp_report *r)
{
	describe_file(f, "base:", base);
	describe_file(f, "new: ", new);
	for (unsigned i = 0; i < r->nwarn; i++)
		fprintf(f, "warning: %s\n", r->warn[i]);
	fprintf(f,
	        "ratio = new/base of the median per unit (below 1 is faster), in each case's unit "
	        "(core cycles for single-lcore\ncases, ticks otherwise; a pair whose floor moved "
	        "beyond noise is not judged); a verdict needs the 95%% interval\nof the ratio beyond "
	        "the noise threshold of %.1f%% (and p < %.2f where the repeats decide)\n\n",
	        r->noise * 100.0, DPK_CMP_ALPHA);
	print_rows(f, r, widths_of(r));
	print_basis(f, r);
	print_lists(f, r);
	print_gate(f, r);
}

static void json_side(struct dpk_json *j, const char *key, const struct dpk_cmp_side *s)
{
	dpk_json_object_begin(j, key);
	dpk_json_double(j, "p50", s->p50);
	dpk_json_double(j, "p50_ci95_lo", s->lo);
	dpk_json_double(j, "p50_ci95_hi", s->hi);
	dpk_json_double(j, "samples", s->n);
	dpk_json_uint(j, "repeats", s->repeats);
	dpk_json_uint(j, "rounds", s->nrounds);
	dpk_json_bool(j, "raw", s->raw != NULL);
	dpk_json_double(j, "floor_ticks", s->floor);
	dpk_json_object_end(j);
}

static void json_file(struct dpk_json *j, const char *key, const struct dpk_results *r)
{
	const struct dpk_res_env *d = dpk_results_env(r, "dpkit");

	dpk_json_object_begin(j, key);
	dpk_json_string(j, "path", r->path);
	dpk_json_string(j, "started", r->started);
	dpk_json_string(j, "dpkit", d ? d->value : "");
	dpk_json_uint(j, "results", r->n);
	dpk_json_object_end(j);
}

static void json_case(struct dpk_json *j, const struct dpk_cmp_case *c)
{
	const struct dpk_res_entry *e = c->base.first;

	dpk_json_object_begin(j, NULL);
	dpk_json_string(j, "id", e->id);
	dpk_json_string(j, "suite", e->suite);
	dpk_json_string(j, "case", e->name);
	dpk_json_string(j, "params", e->params);
	dpk_json_string(j, "placement", e->placement);
	dpk_json_string(j, "unit", e->unit);
	dpk_json_string(j, "measured_in", dpk_cmp_unit_name(c->unit));
	json_side(j, "base", &c->base);
	json_side(j, "new", &c->new);
	dpk_json_double(j, "ratio", c->ratio);
	dpk_json_double(j, "ratio_ci95_lo", c->lo);
	dpk_json_double(j, "ratio_ci95_hi", c->hi);
	if (isnan(c->p))
		dpk_json_null(j, "p_value");
	else
		dpk_json_double(j, "p_value", c->p);
	dpk_json_bool(j, "significant", c->significant);
	dpk_json_string(j, "method", dpk_cmp_method_name(c->method));
	dpk_json_string(j, "verdict", dpk_cmp_verdict_name(c->verdict));
	dpk_json_bool(j, "gate_failed", c->gate_failed);
	dpk_json_string(j, "note", c->note);
	dpk_json_object_end(j);
}

static void json_lists(struct dpk_json *j, const struct dpk_cmp_report *r)
{
	dpk_json_array_begin(j, "only_in_base");
	for (size_t i = 0; i < r->n_only_base; i++)
		dpk_json_string(j, NULL, r->only_base[i]);
	dpk_json_array_end(j);
	dpk_json_array_begin(j, "only_in_new");
	for (size_t i = 0; i < r->n_only_new; i++)
		dpk_json_string(j, NULL, r->only_new[i]);
	dpk_json_array_end(j);
	dpk_json_array_begin(j, "not_compared");
	for (size_t i = 0; i < r->nskip; i++) {
		dpk_json_object_begin(j, NULL);
		dpk_json_string(j, "id", r->skip[i].id);
		dpk_json_string(j, "reason", r->skip[i].reason);
		dpk_json_object_end(j);
	}
	dpk_json_array_end(j);
}

int dpk_cmp_write_json(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                       const struct dpk_cmp_report *r, int exit_status)
{
	struct dpk_json j;

	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	dpk_json_string(&j, "schema", DPK_CMP_SCHEMA);
	dpk_json_int(&j, "schema_version", DPK_CMP_SCHEMA_VERSION);
	json_file(&j, "base", base);
	json_file(&j, "new", new);
	dpk_json_object_begin(&j, "options");
	dpk_json_double(&j, "noise", r->noise);
	dpk_json_string(&j, "unit",
	                r->unit == DPK_CMP_UNIT_CYCLES  ? "cycles"
	                : r->unit == DPK_CMP_UNIT_TICKS ? "ticks"
	                : r->unit == DPK_CMP_UNIT_FLOOR ? "floor"
	                                                : "auto");
	if (r->fail_above >= 0)
		dpk_json_double(&j, "fail_above", r->fail_above);
	else
		dpk_json_null(&j, "fail_above");
	dpk_json_double(&j, "alpha", DPK_CMP_ALPHA);
	dpk_json_uint(&j, "bootstrap_resamples", r->resamples);
	dpk_json_object_end(&j);
	dpk_json_array_begin(&j, "warnings");
	for (unsigned i = 0; i < r->nwarn; i++)
		dpk_json_string(&j, NULL, r->warn[i]);
	dpk_json_array_end(&j);
	dpk_json_array_begin(&j, "cases");
	for (size_t i = 0; i < r->n; i++)
		json_case(&j, &r->c[i]);
	dpk_json_array_end(&j);
	dpk_json_object_begin(&j, "geomean");
	dpk_json_double(&j, "ratio", r->geomean);
	dpk_json_uint(&j, "cases", r->ngeomean);
	dpk_json_uint(&j, "faster", r->faster);
	dpk_json_uint(&j, "slower", r->slower);
	dpk_json_uint(&j, "within_noise", r->within);
	dpk_json_uint(&j, "no_verdict", r->none);
	dpk_json_object_end(&j);
	json_lists(&j, r);
	dpk_json_uint(&j, "gate_failures", r->gate_failures);
	dpk_json_int(&j, "exit_status", exit_status);
	dpk_json_object_end(&j);
	return dpk_json_finish(&j);
}
