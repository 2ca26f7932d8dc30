/* SPDX-License-Identifier: BSD-3-Clause */
/* compare.c - before/after verdicts from two results files (compare.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/bench.h>

#include "compare.h"
#include "stats.h"

const char *dpk_cmp_verdict_name(enum dpk_cmp_verdict v)
{
	switch (v) {
	case DPK_CMP_FASTER:
		return "faster";
	case DPK_CMP_SLOWER:
		return "slower";
	case DPK_CMP_WITHIN_NOISE:
		return "within noise";
	case DPK_CMP_NO_VERDICT:
		return "no verdict";
	}
	return "?";
}

const char *dpk_cmp_method_name(enum dpk_cmp_method m)
{
	switch (m) {
	case DPK_CMP_TEST:
		return "mann-whitney+bootstrap";
	case DPK_CMP_CI_ONLY:
		return "median-ci";
	case DPK_CMP_TOO_FEW:
		return "too-few-samples";
	case DPK_CMP_REPEATS:
		return "repeat-medians";
	case DPK_CMP_PAIRED:
		return "paired-rounds";
	case DPK_CMP_ROUNDS:
		return "round-medians";
	case DPK_CMP_PLACEMENT:
		return "placement-changed";
	}
	return "?";
}

const char *dpk_cmp_basis(const struct dpk_cmp_case *c)
{
	switch (c->method) {
	case DPK_CMP_REPEATS:
		return "repeats";
	case DPK_CMP_ROUNDS:
		return "rounds";
	case DPK_CMP_PAIRED:
		return "pairs";
	case DPK_CMP_PLACEMENT:
		return "floor moved";
	case DPK_CMP_TOO_FEW:
		return "too few";
	case DPK_CMP_TEST:
	case DPK_CMP_CI_ONLY:
		break;
	}
	return "one run";
}

const char *dpk_cmp_unit_name(enum dpk_cmp_unit u)
{
	switch (u) {
	case DPK_CMP_TICKS:
		return "ticks";
	case DPK_CMP_CYCLES:
		return "cycles";
	case DPK_CMP_PER_FLOOR:
		return "per floor";
	}
	return "?";
}

/* ---- one side of a case -------------------------------------------------------------- */

/* The unit both entries allow, as @p choice asks; -1 when --unit cycles or floor finds
 * none. A pair case is judged in ticks unless asked for per floor: within one placement
 * the floor moves by more than the case does (compare.h). */
static int case_unit(const struct dpk_res_entry *a, const struct dpk_res_entry *b,
                     enum dpk_cmp_unit_choice choice)
{
	const bool cyc = a->cycles.p50 > 0 && b->cycles.p50 > 0;

	if (choice == DPK_CMP_UNIT_CYCLES)
		return cyc ? DPK_CMP_CYCLES : -1;
	if (choice == DPK_CMP_UNIT_FLOOR)
		return a->floor_rt > 0 && b->floor_rt > 0 ? DPK_CMP_PER_FLOOR : -1;
	if (choice == DPK_CMP_UNIT_TICKS)
		return DPK_CMP_TICKS;
	if (cyc && (!a->round_p50 || a->round_cycles) && (!b->round_p50 || b->round_cycles))
		return DPK_CMP_CYCLES;
	return DPK_CMP_TICKS;
}

/* Entry @p e's figure in unit @p u. */
static double entry_value(const struct dpk_res_entry *e, enum dpk_cmp_unit u)
{
	switch (u) {
	case DPK_CMP_CYCLES:
		return e->cycles.p50;
	case DPK_CMP_PER_FLOOR:
		return e->ticks.p50 / e->floor_rt;
	case DPK_CMP_TICKS:
		break;
	}
	return e->ticks.p50;
}

/* Round @p q's figure of @p e in unit @p u; NaN when the round was left out. */
static double round_value(const struct dpk_res_entry *e, size_t q, enum dpk_cmp_unit u)
{
	const double m = e->round_p50[q];

	if (!isfinite(m))
		return NAN;
	if (u == DPK_CMP_CYCLES)
		return e->round_cycles ? e->round_cycles[q] : NAN;
	if (u == DPK_CMP_PER_FLOOR)
		return m / e->floor_rt;
	return m;
}

/* Append @p e's kept rounds in unit @p u to @p s->rounds. */
static int add_rounds(struct dpk_cmp_side *s, const struct dpk_res_entry *e, enum dpk_cmp_unit u)
{
	double *nr;

	if (!e->round_p50 || e->rounds_run == 0)
		return 0;
	nr = realloc(s->rounds, (s->nrounds + e->rounds_run) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	s->rounds = nr;
	for (size_t q = 0; q < e->rounds_run; q++) {
		double v = round_value(e, q, u);

		if (v > 0)
			s->rounds[s->nrounds++] = v;
	}
	return 0;
}

/* Append @p e's raw samples (ticks, or cycles for @p u cycles) to @p s->raw. */
static int add_raw(struct dpk_cmp_side *s, const struct dpk_res_entry *e, enum dpk_cmp_unit u,
                   bool *all_raw)
{
	const double *er = u == DPK_CMP_CYCLES ? e->raw_cycles : e->raw;
	const size_t ner = u == DPK_CMP_CYCLES ? e->nraw_cycles : e->nraw;
	double *nr;

	if (!er || ner == 0 || u == DPK_CMP_PER_FLOOR) {
		*all_raw = false;
		return 0;
	}
	nr = realloc(s->raw, (s->nraw + ner) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	s->raw = nr;
	memcpy(s->raw + s->nraw, er, ner * sizeof(*nr));
	s->nraw += ner;
	return 0;
}

/* Append @p e's kept rounds' floors to @p s->floors. */
static int add_floors(struct dpk_cmp_side *s, const struct dpk_res_entry *e)
{
	double *nf;

	if (!e->round_floor || e->rounds_run == 0)
		return 0;
	nf = realloc(s->floors, (s->nfloors + e->rounds_run) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	s->floors = nf;
	s->nfloors += dpk_cmp_round_floors(e, nf + s->nfloors);
	return 0;
}

/* Take repeat @p e into side @p s: its figure, interval, samples, rounds and floor. */
static int add_repeat(struct dpk_cmp_side *s, const struct dpk_res_entry *e, enum dpk_cmp_unit u,
                      double *floors, bool *all_raw)
{
	const struct dpk_res_summary *t = u == DPK_CMP_CYCLES ? &e->cycles : &e->ticks;
	const double scale = u == DPK_CMP_PER_FLOOR ? 1.0 / e->floor_rt : 1.0;
	const double kept =
	        u == DPK_CMP_CYCLES && !isnan(e->cycles_kept) ? e->cycles_kept : e->kept;
	double res = e->batch_ops > 0 && e->ticks.p50 > 0 ? 1.0 / (e->batch_ops * e->ticks.p50) : 0;

	if (s->nrep < DPK_CMP_REPEATS_MAX) {
		floors[s->nrep] = e->floor_rt;
		s->rep[s->nrep++] = entry_value(e, u);
	}
	s->repeats++;
	s->lo = fmin(s->lo, t->p50_lo * scale);
	s->hi = fmax(s->hi, t->p50_hi * scale);
	s->n += isnan(kept) ? 0 : kept;
	/* A counter step over the batch, as a share of the median; the file gives the step. */
	s->resolution = fmax(s->resolution, res);
	if (add_rounds(s, e, u) || add_raw(s, e, u, all_raw) || add_floors(s, e))
		return -ENOMEM;
	return 0;
}

/* Pool the repeats of case @p id of @p r into side @p s in unit @p u. -EAGAIN (with
 * @p why) when a repeat did not run ok. */
static int pool_side(const struct dpk_results *r, const char *id, const char *side,
                     enum dpk_cmp_unit u, struct dpk_cmp_side *s, char *why, size_t whylen)
{
	double floors[DPK_CMP_REPEATS_MAX];
	bool all_raw = true;

	memset(s, 0, sizeof(*s));
	s->lo = INFINITY;
	s->hi = -INFINITY;
	for (size_t i = 0; i < r->n; i++) {
		const struct dpk_res_entry *e = &r->e[i];

		if (strcmp(e->id, id) != 0)
			continue;
		if (!s->first)
			s->first = e;
		if (!e->ok) {
			snprintf(why, whylen, "%s in %s%s%s", e->status, side,
			         e->reason[0] ? ": " : "", e->reason);
			return -EAGAIN;
		}
		if (!(entry_value(e, u) > 0)) {
			snprintf(why, whylen, "no figures in %s in %s (repeat %u)",
			         u == DPK_CMP_CYCLES ? "cycles" : "ticks", side, e->repeat + 1);
			return -EAGAIN;
		}
		if (add_repeat(s, e, u, floors, &all_raw))
			return -ENOMEM;
	}
	s->resolution *= r->resolution;
	/* Each repeat's floor where they all have one, whatever the unit: a floor that moved
	 * between the files says the placement changed. */
	bool all_floors = s->nrep > 0;

	for (size_t k = 0; k < s->nrep; k++)
		all_floors = all_floors && floors[k] > 0;
	s->floor = all_floors ? dpk_stats_median(floors, s->nrep) : NAN;
	if (!all_raw || !s->nraw) {
		free(s->raw);
		s->raw = NULL;
		s->nraw = 0;
	}
	dpk_stats_sort(s->raw, s->nraw);
	dpk_stats_sort(s->rounds, s->nrounds);
	dpk_stats_sort(s->floors, s->nfloors);
	dpk_stats_sort(s->rep, s->nrep);
	s->p50 = s->nrounds ? dpk_cmp_median(s->rounds, s->nrounds)
	         : s->nraw  ? dpk_cmp_median(s->raw, s->nraw)
	                    : dpk_cmp_median(s->rep, s->nrep);
	if (!isfinite(s->lo) || !isfinite(s->hi))
		s->lo = s->hi = s->p50;
	return 0;
}

/* ---- judging ------------------------------------------------------------------------ */

/* The ratio new/base of sorted @p a and @p b, its bootstrap interval and p-value. False
 * when the bootstrap cannot run (a side empty or not positive). */
static bool test_sets(struct dpk_cmp_case *c, const double *a, size_t na, const double *b,
                      size_t nb, unsigned resamples, uint64_t seed)
{
	if (dpk_cmp_bootstrap_ratio(a, na, b, nb, resamples, seed ^ dpk_cmp_hash(c->base.first->id),
	                            0.95, &c->lo, &c->hi) != 0)
		return false;
	c->ratio = dpk_cmp_median(b, nb) / dpk_cmp_median(a, na);
	c->lo = fmin(c->lo, c->ratio);
	c->hi = fmax(c->hi, c->ratio);
	c->p = dpk_cmp_mann_whitney(a, na, b, nb, NULL);
	c->significant = c->p < DPK_CMP_ALPHA;
	return true;
}

/* Whether the case's own floor moved between the files beyond noise: the placement
 * changed. */
static bool floor_moved(const struct dpk_cmp_case *c)
{
	return dpk_cmp_floors_apart(c->base.floor, c->base.floors, c->base.nfloors, c->new.floor,
	                            c->new.floors, c->new.nfloors);
}

/* No test on rounds or repeats: the stored intervals, for the record, and no verdict. */
static void judge_within_run(struct dpk_cmp_case *c, const struct dpk_cmp_options *o,
                             unsigned resamples, uint64_t seed)
{
	const bool raw = c->base.nraw >= DPK_CMP_MIN_SAMPLES && c->new.nraw >= DPK_CMP_MIN_SAMPLES;

	c->verdict = DPK_CMP_NO_VERDICT;
	if (c->base.n < DPK_CMP_MIN_SAMPLES || c->new.n < DPK_CMP_MIN_SAMPLES) {
		c->method = DPK_CMP_TOO_FEW;
		snprintf(c->note, sizeof(c->note),
		         "too few samples to judge (base %.0f, new %.0f; at least %d each)",
		         c->base.n, c->new.n, DPK_CMP_MIN_SAMPLES);
		return;
	}
	if (raw &&
	    test_sets(c, c->base.raw, c->base.nraw, c->new.raw, c->new.nraw, resamples, seed)) {
		c->method = DPK_CMP_TEST;
	} else {
		c->method = DPK_CMP_CI_ONLY;
		c->lo = fmin(c->new.lo / c->base.hi, c->ratio);
		c->hi = fmax(c->new.hi / c->base.lo, c->ratio);
	}
	(void)o;
	snprintf(c->note, sizeof(c->note),
	         "no verdict: one run a side without rounds or repeats; the interval covers the "
	         "samples within each run, not what moves between runs");
}

/* Widen the interval of a ratio judged on one run a side by the between-run term: in log
 * space, each half-width h becomes sqrt(h^2 + (1.96 sigma)^2). */
static void widen_for_runs(struct dpk_cmp_case *c, double sigma)
{
	const double s = 1.96 * sigma, l = log(c->ratio);
	const double hl = l - log(c->lo), hh = log(c->hi) - l;

	c->lo = exp(l - sqrt(hl * hl + s * s));
	c->hi = exp(l + sqrt(hh * hh + s * s));
	c->significant = c->lo > 1.0 || c->hi < 1.0;
}

/* The interquartile range of the log of side @p s's rounds' medians (sorted); 0 with
 * fewer than four. */
static double rounds_log_iqr(const struct dpk_cmp_side *s)
{
	const size_t n = s->nrounds;

	if (!s->rounds || n < 4 || !(s->rounds[0] > 0))
		return 0;
	return log(s->rounds[(3 * n) / 4] / s->rounds[n / 4]);
}

/* The between-run term of case @p c, unless --run-sigma set one: the constant of its unit,
 * and outside core cycles at least what the spread of its rounds says (compare.h). */
static double run_sigma(const struct dpk_cmp_options *o, const struct dpk_cmp_case *c)
{
	double sb, sn;

	if (o->run_sigma >= 0)
		return o->run_sigma;
	if (c->unit == DPK_CMP_CYCLES)
		return DPK_CMP_RUN_SIGMA_CYCLES;
	sb = DPK_CMP_RUN_SIGMA_SPREAD * rounds_log_iqr(&c->base);
	sn = DPK_CMP_RUN_SIGMA_SPREAD * rounds_log_iqr(&c->new);
	return fmax(DPK_CMP_RUN_SIGMA_TICKS, sqrt(sb * sb + sn * sn));
}

static void judge(struct dpk_cmp_case *c, const struct dpk_cmp_options *o, unsigned resamples,
                  uint64_t seed)
{
	const double res = c->base.resolution + c->new.resolution;

	c->p = NAN;
	c->ratio = c->new.p50 / c->base.p50;
	c->lo = c->hi = c->ratio;
	c->significant = false;
	c->verdict = DPK_CMP_WITHIN_NOISE;
	if (c->base.nrep >= DPK_CMP_MIN_REPEATS &&
	    c->new.nrep >= DPK_CMP_MIN_REPEATS &&test_sets(c, c->base.rep, c->base.nrep, c->new.rep,
	                                                   c->new.nrep, resamples, seed)) {
		c->method = DPK_CMP_REPEATS;
		snprintf(c->note, sizeof(c->note), "judged on %u and %u repeats' medians",
		         c->base.nrep, c->new.nrep);
	} else if (c->base.nrounds >= DPK_CMP_MIN_ROUNDS &&
	           c->new.nrounds >= DPK_CMP_MIN_ROUNDS &&test_sets(
	                                     c, c->base.rounds, c->base.nrounds, c->new.rounds,
	                                     c->new.nrounds, resamples, seed)) {
		c->method = DPK_CMP_ROUNDS;
		widen_for_runs(c, run_sigma(o, c));
		snprintf(c->note, sizeof(c->note),
		         "judged on %zu and %zu rounds' medians, the interval widened by a "
		         "between-run sigma of %.1f%%",
		         c->base.nrounds, c->new.nrounds, run_sigma(o, c) * 100.0);
	} else {
		judge_within_run(c, o, resamples, seed);
	}
	/* The counter resolves a median to a step over the batch at best (compare.h). */
	c->lo *= 1.0 - res;
	c->hi *= 1.0 + res;
	if (floor_moved(c)) {
		c->method = DPK_CMP_PLACEMENT;
		c->verdict = DPK_CMP_NO_VERDICT;
		snprintf(c->note, sizeof(c->note),
		         "no verdict: the placement changed, the case's floor was %.1f ticks in "
		         "base "
		         "and %.1f in new",
		         c->base.floor, c->new.floor);
	}
	if (c->verdict == DPK_CMP_NO_VERDICT)
		return;
	if (c->significant && c->hi < 1.0 - o->noise)
		c->verdict = DPK_CMP_FASTER;
	else if (c->significant && c->lo > 1.0 + o->noise)
		c->verdict = DPK_CMP_SLOWER;
	c->gate_failed = o->fail_above >= 0 && c->significant && c->lo > 1.0 + o->fail_above;
}

/* ---- matching ----------------------------------------------------------------------- */

static bool selected(const struct dpk_cmp_options *o, const struct dpk_res_entry *e)
{
	return dpk_results_selected(o->patterns, o->npatterns, e);
}

/* Index of the first entry with @p id, or n. */
static size_t find_id(const struct dpk_results *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->e[i].id, id) == 0)
			return i;
	return r->n;
}

static bool first_of_id(const struct dpk_results *r, size_t i)
{
	return find_id(r, r->e[i].id) == i;
}

static int push_str(const char ***arr, size_t *n, const char *s)
{
	const char **na = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!na)
		return -ENOMEM;
	*arr = na;
	(*arr)[(*n)++] = s;
	return 0;
}

static void side_free(struct dpk_cmp_side *s)
{
	free(s->raw);
	free(s->rounds);
	free(s->floors);
	s->raw = s->rounds = s->floors = NULL;
}

static int skip(struct dpk_cmp_report *out, const char *id, const char *why)
{
	struct dpk_cmp_skip *ns = realloc(out->skip, (out->nskip + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	out->skip = ns;
	out->skip[out->nskip].id = id;
	snprintf(out->skip[out->nskip].reason, sizeof(out->skip[0].reason), "%s", why);
	out->nskip++;
	return 0;
}

/* Both sides of case @p id; -EAGAIN with @p why when it cannot be compared. */
static int make_case(const struct dpk_results *base, const struct dpk_results *new,
                     const struct dpk_cmp_options *o, const char *id, struct dpk_cmp_case *c,
                     char *why, size_t whylen)
{
	const struct dpk_res_entry *a = &base->e[find_id(base, id)], *b = &new->e[find_id(new, id)];
	int u = case_unit(a, b, o->unit), rc;

	memset(c, 0, sizeof(*c));
	if (u < 0 && o->unit == DPK_CMP_UNIT_FLOOR) {
		snprintf(why, whylen, "no floor of its own in %s (one-lcore cases never have one)",
		         a->floor_rt > 0 ? "new" : "base");
		return -EAGAIN;
	}
	if (u < 0) {
		snprintf(why, whylen, "no figures in cycles in %s",
		         isfinite(a->cycles.p50) ? "new" : "base");
		return -EAGAIN;
	}
	c->unit = (enum dpk_cmp_unit)u;
	rc = pool_side(base, id, "base", c->unit, &c->base, why, whylen);
	if (rc == 0)
		rc = pool_side(new, id, "new", c->unit, &c->new, why, whylen);
	if (rc == 0 && strcmp(c->base.first->unit, c->new.first->unit) != 0) {
		snprintf(why, whylen, "unit changed from \"%s\" to \"%s\"", c->base.first->unit,
		         c->new.first->unit);
		rc = -EAGAIN;
	}
	if (rc == 0 && !(c->base.p50 > 0 && c->new.p50 > 0)) {
		snprintf(why, whylen, "a median is not a positive number (base %g, new %g)",
		         c->base.p50, c->new.p50);
		rc = -EAGAIN;
	}
	if (rc) {
		side_free(&c->base);
		side_free(&c->new);
	}
	return rc;
}

/* The code layouts @p e's figures span: files from before the field measured one. */
static double code_layouts(const struct dpk_res_entry *e)
{
	return isnan(e->code_layouts) ? 1 : e->code_layouts;
}

/* Compare every selected case of base that new has; warn of differing code layouts. */
static int compare_cases(const struct dpk_results *base, const struct dpk_results *new,
                         const struct dpk_cmp_options *o, struct dpk_cmp_report *out)
{
	unsigned resamples = o->resamples ? o->resamples : DPK_CMP_RESAMPLES;
	uint64_t seed = o->seed ? o->seed : DPK_CMP_SEED;
	size_t layouts_differ = 0;
	const char *layouts_first = NULL;
	double lb = 1, ln = 1;

	for (size_t i = 0; i < base->n; i++) {
		const struct dpk_res_entry *e = &base->e[i];
		struct dpk_cmp_case c, *nc;
		char why[192];
		int rc;

		if (!selected(o, e) || !first_of_id(base, i))
			continue;
		if (find_id(new, e->id) == new->n) {
			if (push_str(&out->only_base, &out->n_only_base, e->id))
				return -ENOMEM;
			continue;
		}
		rc = make_case(base, new, o, e->id, &c, why, sizeof(why));
		if (rc == -EAGAIN && skip(out, e->id, why))
			return -ENOMEM;
		if (rc)
			continue;
		if (code_layouts(c.base.first) != code_layouts(c.new.first) && !layouts_differ++) {
			layouts_first = e->id;
			lb = code_layouts(c.base.first);
			ln = code_layouts(c.new.first);
		}
		judge(&c, o, resamples, seed);
		if (!(nc = realloc(out->c, (out->n + 1) * sizeof(*nc)))) {
			side_free(&c.base);
			side_free(&c.new);
			return -ENOMEM;
		}
		out->c = nc;
		out->c[out->n++] = c;
	}
	if (layouts_differ)
		dpk_cmp_warn(
		        out,
		        "%zu case%s measured over different numbers of code layouts (%s: %g in "
		        "base, %g in new): the ratios mix the code's change with the method's",
		        layouts_differ, layouts_differ == 1 ? "" : "s", layouts_first, lb, ln);
	return 0;
}

/* A pattern that selects nothing in either file is a mistake, said as such. */
static int check_patterns(const struct dpk_results *base, const struct dpk_results *new,
                          const struct dpk_cmp_options *o, char *err, size_t errlen)
{
	for (unsigned p = 0; p < o->npatterns; p++) {
		bool hit = false;

		for (size_t i = 0; i < base->n && !hit; i++)
			hit = dpk_results_match(o->patterns[p], &base->e[i]);
		for (size_t i = 0; i < new->n && !hit; i++)
			hit = dpk_results_match(o->patterns[p], &new->e[i]);
		if (!hit) {
			snprintf(err, errlen,
			         "--pattern '%s' selects no case in either file (patterns match "
			         "SUITE, SUITE/CASE or SUITE/CASE/PARAM:V/.../placement:P)",
			         o->patterns[p]);
			return -EINVAL;
		}
	}
	return 0;
}

static void tally(struct dpk_cmp_report *out)
{
	double logsum = 0;

	for (size_t i = 0; i < out->n; i++) {
		const struct dpk_cmp_case *c = &out->c[i];

		out->by_method[c->method]++;
		out->by_unit[c->unit]++;
		out->gate_failures += c->gate_failed;
		if (c->verdict == DPK_CMP_NO_VERDICT) {
			out->none++;
			continue;
		}
		logsum += log(c->ratio);
		out->ngeomean++;
		out->faster += c->verdict == DPK_CMP_FASTER;
		out->slower += c->verdict == DPK_CMP_SLOWER;
		out->within += c->verdict == DPK_CMP_WITHIN_NOISE;
	}
	out->geomean = out->ngeomean ? exp(logsum / (double)out->ngeomean) : NAN;
}

int dpk_compare(const struct dpk_results *base, const struct dpk_results *new,
                const struct dpk_cmp_options *o, struct dpk_cmp_report *out, char *err,
                size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->noise = o->noise;
	out->unit = o->unit;
	out->cycles = o->unit == DPK_CMP_UNIT_CYCLES;
	out->fail_above = o->fail_above;
	out->run_sigma = o->run_sigma;
	out->resamples = o->resamples ? o->resamples : DPK_CMP_RESAMPLES;
	if (check_patterns(base, new, o, err, errlen))
		return -EINVAL;
	dpk_cmp_env_warnings(out, base, new);
	if (compare_cases(base, new, o, out))
		goto nomem;
	for (size_t i = 0; i < new->n; i++) {
		const struct dpk_res_entry *e = &new->e[i];

		if (selected(o, e) && first_of_id(new, i) && find_id(base, e->id) == base->n &&
		    push_str(&out->only_new, &out->n_only_new, e->id))
			goto nomem;
	}
	if (out->n == 0 && out->nskip == 0) {
		snprintf(err, errlen,
		         "no case in common%s: base has %zu case%s, new has %zu (ids differ, "
		         "e.g. base \"%s\", new \"%s\")",
		         o->npatterns ? " among the selected ones" : "", out->n_only_base,
		         out->n_only_base == 1 ? "" : "s", out->n_only_new,
		         out->n_only_base ? out->only_base[0] : "-",
		         out->n_only_new ? out->only_new[0] : "-");
		dpk_cmp_report_free(out);
		return -EINVAL;
	}
	if (out->n == 0 && o->unit == DPK_CMP_UNIT_FLOOR) {
		/* As for cycles below: a gate that compared nothing must not pass. */
		snprintf(err, errlen,
		         "no case has a floor of its own in both files (%zu in common, "
		         "none compared: %s)",
		         out->nskip, out->nskip ? out->skip[0].reason : "-");
		dpk_cmp_report_free(out);
		return -EINVAL;
	}
	if (out->n == 0 && out->cycles) {
		/* A gate that compared nothing must not pass: say why instead. */
		snprintf(err, errlen,
		         "no case has figures in cycles in both files (%zu in common, none "
		         "compared: %s)",
		         out->nskip, out->nskip ? out->skip[0].reason : "-");
		dpk_cmp_report_free(out);
		return -EINVAL;
	}
	tally(out);
	return 0;
nomem:
	dpk_cmp_report_free(out);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void dpk_cmp_report_free(struct dpk_cmp_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		side_free(&r->c[i].base);
		side_free(&r->c[i].new);
	}
	free(r->c);
	free(r->only_base);
	free(r->only_new);
	free(r->skip);
	r->c = NULL;
	r->only_base = r->only_new = NULL;
	r->skip = NULL;
	r->n = r->n_only_base = r->n_only_new = r->nskip = 0;
}
