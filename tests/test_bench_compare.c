/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk-bench compare: the statistics against reference values, the verdicts on synthetic
 * results with known shifts (tests/fixtures/results, written by generate.py from a fixed
 * seed), the no-raw fallback, pooling of repeats, environment warnings, patterns, and
 * every kind of bad input file.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "dpk_test.h"
#include "json_read.h"
#include "results.h"

#define FIX DPK_SOURCE_DIR "/tests/fixtures/results/"

static void load_ok(const char *name, struct dpk_results *r)
{
	char err[512];
	int rc = dpk_results_load(name, r, err, sizeof(err));

	if (rc)
		dpk_test_note("%s: %s", name, err);
	ASSERT_EQ(0, rc);
}

static const struct dpk_cmp_case *find_case(const struct dpk_cmp_report *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->c[i].base.first->id, id) == 0)
			return &r->c[i];
	return NULL;
}

static const struct dpk_cmp_options defaults = {.noise = 0.02, .fail_above = -1.0, .run_sigma = -1};

/* Reference p-values: scipy.stats.mannwhitneyu(a, b, alternative='two-sided',
 * method='asymptotic') with scipy 1.10.1. */
static void mann_whitney_matches_scipy(void)
{
	static const struct {
		double a[12], b[12];
		size_t na, nb;
		double p, u;
	} t[] = {
	        {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
	         {11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
	         10,
	         10,
	         0.00018267179110955002,
	         0.0},
	        {{1, 2, 2, 3, 3, 3, 4, 5},
	         {2, 3, 3, 4, 4, 5, 6, 6, 7},
	         8,
	         9,
	         0.062484795672341206,
	         16.5},
	        {{5, 5, 5, 5, 6}, {5, 5, 6, 6, 6, 7}, 5, 6, 0.1518733603052729, 7.5},
	        {{1.5, 2.5, 3.5, 10}, {1, 2, 3, 4, 5, 6, 7, 8}, 4, 8, 0.7989066696432698, 14.0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double u, p = dpk_cmp_mann_whitney(t[i].a, t[i].na, t[i].b, t[i].nb, &u);
		ASSERT_NEAR(p, t[i].p, 1e-12);
		ASSERT_NEAR(u, t[i].u, 1e-12);
	}
}

static void mann_whitney_edges(void)
{
	double same[] = {3, 3, 3, 3}, one[] = {1};

	ASSERT_NEAR(dpk_cmp_mann_whitney(same, 4, same, 4, NULL), 1.0, 0);
	ASSERT_TRUE(isnan(dpk_cmp_mann_whitney(same, 0, same, 4, NULL)));
	ASSERT_TRUE(isnan(dpk_cmp_mann_whitney(same, 4, one, 0, NULL)));
	/* p never exceeds 1, even with the continuity correction on equal samples. */
	ASSERT_LE_F(dpk_cmp_mann_whitney(one, 1, one, 1, NULL), 1.0);
	/* A NaN (sorted last) has no rank: no p-value, and no endless merge. */
	double with_nan[] = {1, 2, NAN};
	ASSERT_TRUE(isnan(dpk_cmp_mann_whitney(with_nan, 3, same, 4, NULL)));
	ASSERT_TRUE(isnan(dpk_cmp_mann_whitney(same, 4, with_nan, 3, NULL)));
}

static double *ramp(size_t n, double from, double step)
{
	double *v = malloc(n * sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		v[i] = from + step * (double)i;
	return v;
}

static void bootstrap_is_reproducible_and_covers(void)
{
	double *a = ramp(1001, 95.0, 0.01), *b = ramp(1001, 105.0, 0.011);
	double lo1, hi1, lo2, hi2, lo3, hi3;
	double truth;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	truth = dpk_cmp_median(b, 1001) / dpk_cmp_median(a, 1001);
	ASSERT_EQ(0, dpk_cmp_bootstrap_ratio(a, 1001, b, 1001, 2000, 42, 0.95, &lo1, &hi1));
	ASSERT_EQ(0, dpk_cmp_bootstrap_ratio(a, 1001, b, 1001, 2000, 42, 0.95, &lo2, &hi2));
	ASSERT_EQ(0, dpk_cmp_bootstrap_ratio(a, 1001, b, 1001, 2000, 43, 0.95, &lo3, &hi3));
	EXPECT_TRUE(lo1 == lo2 && hi1 == hi2);
	EXPECT_TRUE(lo1 != lo3 || hi1 != hi3);
	EXPECT_LT_F(lo1, truth);
	EXPECT_GT_F(hi1, truth);
	/* Medians of uniform ramps: the interval is about +-2 * 1.25 sd/sqrt(n) wide,
	 * roughly 0.4% here; anything far wider or narrower means a broken draw. */
	EXPECT_GT_F(hi1 - lo1, 0.001);
	EXPECT_LT_F(hi1 - lo1, 0.02);
	free(a);
	free(b);
}

static void bootstrap_rejects_bad_input(void)
{
	double z[] = {0, 0, 0}, v[] = {1, 2, 3}, lo, hi;

	EXPECT_EQ(-EINVAL, dpk_cmp_bootstrap_ratio(v, 0, v, 3, 100, 1, 0.95, &lo, &hi));
	EXPECT_EQ(-EINVAL, dpk_cmp_bootstrap_ratio(z, 3, v, 3, 100, 1, 0.95, &lo, &hi));
	EXPECT_EQ(-EINVAL, dpk_cmp_bootstrap_ratio(v, 3, v, 3, 1, 1, 0.95, &lo, &hi));
	EXPECT_EQ(-EINVAL, dpk_cmp_bootstrap_ratio(v, 3, v, 3, 100, 1, 1.5, &lo, &hi));
}

static void median_interpolates(void)
{
	double odd[] = {1, 2, 9}, even[] = {1, 2, 4, 9};

	ASSERT_NEAR(dpk_cmp_median(odd, 3), 2.0, 0);
	ASSERT_NEAR(dpk_cmp_median(even, 4), 3.0, 0);
	ASSERT_TRUE(isnan(dpk_cmp_median(even, 0)));
}

static void known_shifts_give_the_right_verdicts(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	struct dpk_cmp_options o = defaults;
	const struct dpk_cmp_case *c;
	char err[256];

	load_ok(FIX "base.json", &b);
	load_ok(FIX "new.json", &n);
	o.fail_above = 0.05;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));

	/* One-lcore cases are judged on their rounds, in core cycles. */
	ASSERT_NOT_NULL(c = find_case(&r, "synth/same/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_ROUNDS, c->method);
	EXPECT_EQ(DPK_CMP_CYCLES, c->unit);
	EXPECT_EQ_U(40, c->base.nrounds);
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, c->verdict);
	EXPECT_LT_F(c->lo, 1.0);
	EXPECT_GT_F(c->hi, 1.0);
	EXPECT_FALSE(c->gate_failed);

	/* +1%: inside the 2% threshold, the interval widened by the between-run sigma. */
	ASSERT_NOT_NULL(c = find_case(&r, "synth/shift1/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, c->verdict);
	EXPECT_LT_F(c->lo, 1.0);
	EXPECT_GT_F(c->ratio, 1.005);
	EXPECT_LT_F(c->ratio, 1.015);
	EXPECT_FALSE(c->gate_failed);

	ASSERT_NOT_NULL(c = find_case(&r, "synth/shift10/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_SLOWER, c->verdict);
	EXPECT_LT_F(c->p, 1e-6);
	EXPECT_GT_F(c->lo, 1.05);
	EXPECT_LT_F(c->hi, 1.15);
	EXPECT_TRUE(c->gate_failed);

	ASSERT_NOT_NULL(c = find_case(&r, "synth/faster10/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_FASTER, c->verdict);
	EXPECT_FALSE(c->gate_failed);

	/* A 5% shift drowned in 40% noise over 10 rounds of 4 samples decides nothing. */
	ASSERT_NOT_NULL(c = find_case(&r, "synth/noisy/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, c->verdict);
	EXPECT_TRUE(!c->significant || (c->lo < 1.02 && c->hi > 0.98));
	EXPECT_FALSE(c->gate_failed);

	/* The pair whose floor went from 160 to 798 ticks: the placement changed (in ticks,
	 * as every pair case is judged unless asked for per floor). */
	ASSERT_NOT_NULL(c = find_case(&r, "synth/moved/esize:8/n:32/placement:core"));
	EXPECT_EQ(DPK_CMP_PLACEMENT, c->method);
	EXPECT_EQ(DPK_CMP_TICKS, c->unit);
	EXPECT_EQ(DPK_CMP_NO_VERDICT, c->verdict);
	EXPECT_TRUE(strstr(c->note, "the placement changed") != NULL);
	EXPECT_FALSE(c->gate_failed);

	EXPECT_EQ(1, r.gate_failures);
	EXPECT_EQ(1, r.faster);
	EXPECT_EQ(1, r.slower);
	EXPECT_EQ(1, r.none);
	EXPECT_EQ(8, r.n);
	EXPECT_EQ(7, r.ngeomean);
	EXPECT_GT_F(r.geomean, 0.99);
	EXPECT_LT_F(r.geomean, 1.05);
	ASSERT_EQ(1, r.n_only_base);
	EXPECT_STREQ(r.only_base[0], "synth/gone/n:1/placement:single");
	ASSERT_EQ(1, r.n_only_new);
	EXPECT_STREQ(r.only_new[0], "synth/added/n:1/placement:single");
	ASSERT_EQ(1, r.nskip);
	EXPECT_TRUE(strstr(r.skip[0].reason, "failed in new") != NULL);
	EXPECT_TRUE(strstr(r.skip[0].reason, "dequeued 31 of 32") != NULL);
	EXPECT_EQ(0, r.nwarn);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static void thresholds_move_the_verdicts(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	struct dpk_cmp_options o = defaults;
	const struct dpk_cmp_case *c;
	char err[256];

	load_ok(FIX "base.json", &b);
	load_ok(FIX "new.json", &n);
	/* With a 0.5% threshold and no between-run term the +1% shift is slower, and a 0.5% gate
	 * catches it. */
	o.noise = 0.005;
	o.fail_above = 0.005;
	o.run_sigma = 0;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	ASSERT_NOT_NULL(c = find_case(&r, "synth/shift1/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_SLOWER, c->verdict);
	EXPECT_TRUE(c->gate_failed);
	EXPECT_EQ(2, r.gate_failures);
	dpk_cmp_report_free(&r);
	/* A 15% gate lets the +10% case through. */
	o.noise = 0.02;
	o.fail_above = 0.15;
	o.run_sigma = -1;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	EXPECT_EQ(0, r.gate_failures);
	EXPECT_EQ(1, r.slower);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static void repeats_are_pooled(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	const struct dpk_cmp_case *c;
	char err[256];

	load_ok(FIX "base.json", &b);
	load_ok(FIX "new.json", &n);
	ASSERT_EQ(0, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));
	ASSERT_NOT_NULL(c = find_case(&r, "synth/pair/esize:8/n:32/placement:core"));
	EXPECT_EQ(2, c->base.repeats);
	EXPECT_EQ(2, c->new.repeats);
	EXPECT_EQ_U(40, c->base.nrounds); /* twenty rounds a repeat */
	EXPECT_EQ(DPK_CMP_TICKS, c->unit);
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, c->verdict);
	EXPECT_GT_F(c->base.floor, 0.0); /* the floor is kept to tell a placement change */
	ASSERT_NOT_NULL(find_case(&r, "synth/pair/esize:8/n:32/placement:oversub"));
	dpk_cmp_report_free(&r);
	/* Asked for, per floor: only the cases with a floor of their own are compared. */
	struct dpk_cmp_options o = defaults;

	o.unit = DPK_CMP_UNIT_FLOOR;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	ASSERT_NOT_NULL(c = find_case(&r, "synth/pair/esize:8/n:32/placement:core"));
	EXPECT_EQ(DPK_CMP_PER_FLOOR, c->unit);
	EXPECT_TRUE(find_case(&r, "synth/pair/esize:8/n:32/placement:oversub") == NULL);
	EXPECT_GT(r.nskip, 0);
	EXPECT_TRUE(strstr(r.skip[0].reason, "no floor of its own") != NULL);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static void repeats_judge_drift_between_runs(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	const struct dpk_cmp_case *c;
	char err[256];

	load_ok(FIX "drift_base.json", &b);
	load_ok(FIX "drift_new.json", &n);
	ASSERT_EQ(0, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));

	/* No real change, 3% drift between runs: the pooled samples alone would call it a
	 * change; judged on the six repeats a side it is noise. */
	ASSERT_NOT_NULL(c = find_case(&r, "drift/none/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_REPEATS, c->method);
	EXPECT_EQ(6, c->base.nrep);
	EXPECT_EQ(6, c->new.nrep);
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, c->verdict);
	EXPECT_LT_F(dpk_cmp_mann_whitney(c->base.raw, c->base.nraw, c->new.raw, c->new.nraw, NULL),
	            0.05);
	EXPECT_LE_F(c->lo, 1.0);
	EXPECT_GE_F(c->hi, 1.0);

	/* A real +20% stands out of the drift. */
	ASSERT_NOT_NULL(c = find_case(&r, "drift/shift20/n:32/placement:single"));
	EXPECT_EQ(DPK_CMP_REPEATS, c->method);
	EXPECT_EQ(DPK_CMP_SLOWER, c->verdict);
	EXPECT_LT_F(c->p, 0.05);
	EXPECT_GT_F(c->lo, 1.05);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

/* Without raw samples the rounds decide as before; files without rounds (a dpk-bench from
 * before them), one run a side, get no verdict: their interval covers one run's samples. */
static void without_rounds_nothing_is_judged(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	struct dpk_cmp_options o = defaults;
	char err[256];

	load_ok(FIX "base_noraw.json", &b);
	load_ok(FIX "new_noraw.json", &n);
	o.fail_above = 0.05;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	EXPECT_EQ(DPK_CMP_SLOWER, find_case(&r, "synth/shift10/n:32/placement:single")->verdict);
	EXPECT_EQ(DPK_CMP_FASTER, find_case(&r, "synth/faster10/n:32/placement:single")->verdict);
	EXPECT_EQ(1, r.gate_failures);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);

	load_ok(FIX "old_base.json", &b);
	load_ok(FIX "old_new.json", &n);
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	for (size_t i = 0; i < r.n; i++) {
		const struct dpk_cmp_case *c = &r.c[i];

		EXPECT_EQ(DPK_CMP_NO_VERDICT, c->verdict);
		EXPECT_EQ(DPK_CMP_TICKS, c->unit);
		EXPECT_TRUE(c->method == DPK_CMP_TEST || c->method == DPK_CMP_TOO_FEW);
		EXPECT_TRUE(strstr(c->note, "no verdict: one run a side") != NULL ||
		            c->method == DPK_CMP_TOO_FEW);
		EXPECT_FALSE(c->gate_failed);
	}
	/* The figure and interval are there all the same: +10% and an interval around it. */
	const struct dpk_cmp_case *c = find_case(&r, "synth/shift10/n:32/placement:single");
	ASSERT_NOT_NULL(c);
	EXPECT_GT_F(c->ratio, 1.05);
	EXPECT_LT_F(c->lo, c->ratio);
	EXPECT_EQ(0, r.gate_failures);
	EXPECT_EQ(0, r.faster + r.slower + r.within);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

/* A median is known to a counter step over the batch at best: an interval of two medians
 * made of equal samples is not zero-wide. */
static void resolution_widens_the_interval(void)
{
	struct dpk_res_entry eb, en;
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	double rb[8], rn[8];
	char err[256];

	for (unsigned i = 0; i < 8; i++)
		rb[i] = rn[i] = 100.0;
	memset(&b, 0, sizeof(b));
	memset(&eb, 0, sizeof(eb));
	eb.suite = "s";
	eb.name = "c";
	eb.placement = eb.status = "ok";
	eb.unit = "per call";
	eb.reason = eb.desc = "";
	eb.ok = true;
	snprintf(eb.id, sizeof(eb.id), "s/c/placement:single");
	snprintf(eb.family, sizeof(eb.family), "s/c");
	eb.kept = 8;
	eb.batch_ops = 100; /* a step of 26 ticks over 100 operations: 0.26 of 100 ticks */
	eb.ticks.p50 = eb.ticks.p50_lo = eb.ticks.p50_hi = 100;
	eb.cycles.p50 = NAN;
	eb.floor_rt = NAN;
	eb.round_p50 = rb;
	eb.rounds_run = 8;
	eb.nrounds = 8;
	en = eb;
	en.round_p50 = rn;
	n = b;
	b.path = "b";
	n.path = "n";
	b.started = n.started = b.command = n.command = "";
	b.tsc_hz = n.tsc_hz = NAN;
	b.resolution = n.resolution = 26;
	b.e = &eb;
	b.n = 1;
	n.e = &en;
	n.n = 1;
	struct dpk_cmp_options o = defaults;
	o.run_sigma = 0;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	ASSERT_EQ(1, r.n);
	/* Eight rounds: under the ten a verdict on rounds needs, so within one run. */
	ASSERT_NEAR(1.0, r.c[0].ratio, 1e-12);
	EXPECT_LE_F(r.c[0].lo, 1.0 - 0.005);
	EXPECT_GE_F(r.c[0].hi, 1.0 + 0.005);
	dpk_cmp_report_free(&r);
}

/* One result "s/NAME" in ticks with the @p n (even, sorted) round medians @p rounds. */
static void entry_of(struct dpk_res_entry *e, const char *name, double *rounds, size_t n)
{
	memset(e, 0, sizeof(*e));
	e->suite = "s";
	e->name = name;
	e->placement = "single";
	e->status = "ok";
	e->unit = "per call";
	e->reason = e->desc = "";
	e->ok = true;
	snprintf(e->id, sizeof(e->id), "s/%s/placement:single", name);
	snprintf(e->family, sizeof(e->family), "s/%s", name);
	e->kept = 40 * n;
	e->batch_ops = 1000;
	e->ticks.p50 = e->ticks.p50_lo = e->ticks.p50_hi = (rounds[n / 2 - 1] + rounds[n / 2]) / 2;
	e->cycles.p50 = NAN;
	e->floor_rt = NAN;
	e->round_p50 = rounds;
	e->rounds_run = n;
	e->nrounds = n;
}

static void file_of(struct dpk_results *f, const char *path, struct dpk_res_entry *e, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->started = f->command = "";
	f->tsc_hz = NAN;
	f->resolution = 26;
	f->e = e;
	f->n = n;
}

/* A pair case 12% slower in ticks whose floor moved by 4% between the files, every round's
 * floor beside it: the placement changed, no verdict; on one floor, slower. */
static void a_floor_moved_beyond_noise_is_no_verdict(void)
{
	double tb[40], tn[40], fb[40], fn[40];
	struct dpk_res_entry eb, en;
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	char err[256];

	for (unsigned i = 0; i < 40; i++) {
		tb[i] = 100.0 + 0.05 * i;
		tn[i] = 1.12 * tb[i];
		fb[i] = 171.0 * (1.0 + 0.002 * (double)((i * 37u) % 21u) - 0.02);
		fn[i] = fb[i] * 178.0 / 171.0;
	}
	entry_of(&eb, "pair", tb, 40);
	entry_of(&en, "pair", tn, 40);
	eb.floor_rt = 171;
	en.floor_rt = 178;
	eb.round_floor = fb;
	en.round_floor = fn;
	file_of(&b, "b", &eb, 1);
	file_of(&n, "n", &en, 1);
	ASSERT_EQ(0, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));
	EXPECT_EQ(DPK_CMP_PLACEMENT, r.c[0].method);
	EXPECT_EQ(DPK_CMP_NO_VERDICT, r.c[0].verdict);
	EXPECT_TRUE(strstr(r.c[0].note, "the placement changed") != NULL);
	dpk_cmp_report_free(&r);
	en.floor_rt = 171;
	en.round_floor = fb;
	ASSERT_EQ(0, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));
	EXPECT_EQ(DPK_CMP_ROUNDS, r.c[0].method);
	EXPECT_EQ(DPK_CMP_SLOWER, r.c[0].verdict);
	dpk_cmp_report_free(&r);
}

/* Outside core cycles the between-run term grows with the spread of a case's rounds: a
 * +12% move of a case whose rounds sit tight is a verdict, the same move of a case whose
 * rounds spread over regimes (100 to 150) is not; --run-sigma puts back one term for all. */
static void spread_rounds_widen_the_run_term(void)
{
	double tb[40], tn[40], wb[40], wn[40];
	struct dpk_res_entry eb[2], en[2];
	struct dpk_results b, n;
	struct dpk_cmp_options o = defaults;
	struct dpk_cmp_report r;
	const struct dpk_cmp_case *tight, *wide;
	char err[256];

	for (unsigned i = 0; i < 40; i++) {
		tb[i] = 100.0 + 0.05 * i;
		wb[i] = i < 12 ? 100.0 + 0.1 * i : i < 28 ? 118.0 + 0.25 * (i - 12) : 150.0 + i;
		tn[i] = 1.12 * tb[i];
		wn[i] = 1.12 * wb[i];
	}
	entry_of(&eb[0], "tight", tb, 40);
	entry_of(&eb[1], "wide", wb, 40);
	entry_of(&en[0], "tight", tn, 40);
	entry_of(&en[1], "wide", wn, 40);
	file_of(&b, "b", eb, 2);
	file_of(&n, "n", en, 2);
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	ASSERT_NOT_NULL(tight = find_case(&r, "s/tight/placement:single"));
	ASSERT_NOT_NULL(wide = find_case(&r, "s/wide/placement:single"));
	EXPECT_EQ(DPK_CMP_ROUNDS, tight->method);
	EXPECT_EQ(DPK_CMP_ROUNDS, wide->method);
	ASSERT_NEAR(1.12, tight->ratio, 1e-9);
	ASSERT_NEAR(1.12, wide->ratio, 1e-9);
	EXPECT_EQ(DPK_CMP_SLOWER, tight->verdict);
	EXPECT_EQ(DPK_CMP_WITHIN_NOISE, wide->verdict);
	EXPECT_LT_F(wide->lo, 1.0);
	dpk_cmp_report_free(&r);

	o.run_sigma = DPK_CMP_RUN_SIGMA_TICKS;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	ASSERT_NOT_NULL(wide = find_case(&r, "s/wide/placement:single"));
	EXPECT_EQ(DPK_CMP_SLOWER, wide->verdict);
	dpk_cmp_report_free(&r);
}

static void too_few_samples_decide_nothing(void)
{
	struct dpk_res_entry eb, en;
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	double rb[] = {100, 101, 102}, rn[] = {150, 151, 152};
	char err[256];

	memset(&b, 0, sizeof(b));
	memset(&n, 0, sizeof(n));
	memset(&eb, 0, sizeof(eb));
	eb.suite = "s";
	eb.name = "c";
	eb.placement = eb.status = "ok";
	eb.unit = "per call";
	eb.reason = eb.desc = "";
	eb.ok = true;
	snprintf(eb.id, sizeof(eb.id), "s/c/placement:single");
	snprintf(eb.family, sizeof(eb.family), "s/c");
	eb.kept = 3;
	eb.ticks.p50 = eb.ticks.p50_lo = eb.ticks.p50_hi = 101;
	eb.raw = rb;
	eb.nraw = 3;
	en = eb;
	en.ticks.p50 = en.ticks.p50_lo = en.ticks.p50_hi = 151;
	en.raw = rn;
	b.path = "b";
	n.path = "n";
	b.started = n.started = b.command = n.command = "";
	b.tsc_hz = n.tsc_hz = NAN;
	b.e = &eb;
	b.n = 1;
	n.e = &en;
	n.n = 1;
	ASSERT_EQ(0, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(DPK_CMP_TOO_FEW, r.c[0].method);
	EXPECT_EQ(DPK_CMP_NO_VERDICT, r.c[0].verdict);
	EXPECT_TRUE(strstr(r.c[0].note, "too few samples") != NULL);
	dpk_cmp_report_free(&r);
}

static bool has_warning(const struct dpk_cmp_report *r, const char *needle)
{
	for (unsigned i = 0; i < r->nwarn; i++)
		if (strstr(r->warn[i], needle))
			return true;
	return false;
}

static void environment_differences_warn(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	char err[256];

	load_ok(FIX "base.json", &b);
	load_ok(FIX "env_other.json", &n);
	ASSERT_EQ(0, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));
	EXPECT_TRUE(has_warning(&r, "CPU model"));
	EXPECT_TRUE(has_warning(&r, "TSC frequency differs by +1.00%"));
	EXPECT_TRUE(has_warning(&r, "compiler flags"));
	EXPECT_TRUE(has_warning(&r, "build type"));
	EXPECT_TRUE(has_warning(&r, "lcores"));
	EXPECT_TRUE(has_warning(&r, "speculative store bypass mitigated in one run only: base "
	                            "\"thread vulnerable\", new \"thread force mitigated\""));
	EXPECT_FALSE(has_warning(&r, "placement"));
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static void patterns_select_cases(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	struct dpk_cmp_options o = defaults;
	const char *one[] = {"synth/same"}, *place[] = {"*/placement:oversub"},
	           *none[] = {"synth/same", "nosuch*"};
	char err[256];

	load_ok(FIX "base.json", &b);
	load_ok(FIX "new.json", &n);
	o.patterns = one;
	o.npatterns = 1;
	o.fail_above = 0.05;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	EXPECT_EQ(1, r.n);
	EXPECT_EQ(0, r.gate_failures); /* shift10 is not selected */
	EXPECT_EQ(0, r.n_only_base);
	dpk_cmp_report_free(&r);
	o.patterns = place;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	ASSERT_EQ(1, r.n);
	EXPECT_STREQ(r.c[0].base.first->placement, "oversub");
	dpk_cmp_report_free(&r);
	o.patterns = none;
	o.npatterns = 2;
	EXPECT_EQ(-EINVAL, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "'nosuch*' selects no case") != NULL);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static void nothing_in_common_is_an_error(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	char err[512];

	load_ok(FIX "base.json", &b);
	load_ok(FIX "disjoint.json", &n);
	EXPECT_EQ(-EINVAL, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "no case in common") != NULL);
	EXPECT_TRUE(strstr(err, "other/") != NULL);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static void bad_files_are_named_precisely(void)
{
	static const struct {
		const char *file;
		int rc;
		const char *needle;
	} t[] = {
	        {"bad/truncated.json", -EINVAL, "truncated"},
	        {"bad/syntax.json", -EINVAL, "line 4, column 3: expected ',' or '}'"},
	        {"bad/schema_name.json", -EINVAL, "schema is \"something-else\""},
	        {"bad/schema_version.json", -EINVAL, "schema_version 2 is not supported"},
	        {"bad/gbench.json", -EINVAL, "Google Benchmark"},
	        {"bad/empty.json", -EINVAL, "empty"},
	        {"bad/not_object.json", -EINVAL, "expected an object at the top level"},
	        {"bad/bad_field.json", -EINVAL,
	         "results[2].ticks.p50: expected a number, found a "
	         "string (line"},
	        {"bad/missing_case.json", -EINVAL, "results[1].case: missing"},
	        {"bad/binary.json", -EINVAL, "line 1, column 1"},
	        {"bad/no-such-file.json", -ENOENT, "No such file"},
	        {"bad", -EISDIR, "directory"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct dpk_results r;
		char path[512], err[512];
		int rc;

		snprintf(path, sizeof(path), FIX "%s", t[i].file);
		rc = dpk_results_load(path, &r, err, sizeof(err));
		dpk_results_free(&r);
		EXPECT_EQ(t[i].rc, rc);
		if (!strstr(err, t[i].needle))
			dpk_test_fail(__FILE__, __LINE__, "%s: \"%s\" lacks \"%s\"", t[i].file, err,
			              t[i].needle);
	}
}

static void json_output_reads_back(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	struct dpk_cmp_options o = defaults;
	struct dpk_jv doc;
	const struct dpk_jv *cases, *v;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	load_ok(FIX "base.json", &b);
	load_ok(FIX "new.json", &n);
	o.fail_above = 0.05;
	ASSERT_EQ(0, dpk_compare(&b, &n, &o, &r, err, sizeof(err)));
	f = open_memstream(&buf, &len);
	ASSERT_NOT_NULL(f);
	EXPECT_EQ(0, dpk_cmp_write_json(f, &b, &n, &r, 1));
	fclose(f);
	ASSERT_EQ(0, dpk_jv_parse(buf, len, &doc, err, sizeof(err)));
	EXPECT_STREQ(dpk_jv_get(&doc, "schema")->str.s, DPK_CMP_SCHEMA);
	cases = dpk_jv_get(&doc, "cases");
	ASSERT_TRUE(cases && cases->type == DPK_JV_ARRAY);
	EXPECT_EQ(8, cases->arr.n);
	v = dpk_jv_get(&cases->arr.v[2], "verdict");
	ASSERT_TRUE(v && v->type == DPK_JV_STRING);
	EXPECT_STREQ(v->str.s, "slower");
	v = dpk_jv_get(&cases->arr.v[2], "measured_in");
	ASSERT_TRUE(v && v->type == DPK_JV_STRING);
	EXPECT_STREQ(v->str.s, "cycles");
	v = dpk_jv_get(&cases->arr.v[2], "method");
	ASSERT_TRUE(v && v->type == DPK_JV_STRING);
	EXPECT_STREQ(v->str.s, "round-medians");
	v = dpk_jv_get(&doc, "exit_status");
	ASSERT_TRUE(v && v->type == DPK_JV_NUMBER);
	EXPECT_EQ(1, (int)v->num);
	dpk_jv_free(&doc);
	free(buf);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static void the_table_says_what_it_decided(void)
{
	struct dpk_results b, n;
	struct dpk_cmp_report r;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	load_ok(FIX "base_noraw.json", &b);
	load_ok(FIX "env_other.json", &n);
	ASSERT_EQ(0, dpk_compare(&b, &n, &defaults, &r, err, sizeof(err)));
	f = open_memstream(&buf, &len);
	ASSERT_NOT_NULL(f);
	dpk_cmp_print(f, &b, &n, &r);
	fclose(f);
	EXPECT_TRUE(strstr(buf, "warning: different CPU model") != NULL);
	EXPECT_TRUE(strstr(buf, "geometric mean") != NULL);
	EXPECT_TRUE(strstr(buf, "rounds      slower") != NULL);
	EXPECT_TRUE(
	        strstr(buf,
	               "verdicts rest on: 0 on the repeats' medians, 7 on the rounds' "
	               "medians (5 in core cycles, 3 in ticks, 0 over the case's own floor); 1 not "
	               "judged: the placement changed") != NULL);
	EXPECT_TRUE(strstr(buf, "sigma of 0.8% in core cycles, 4.4% in ticks") != NULL);
	EXPECT_TRUE(strstr(buf, "only in base (1)") != NULL);
	EXPECT_TRUE(strstr(buf, "not compared (1)") != NULL);
	free(buf);
	dpk_cmp_report_free(&r);
	dpk_results_free(&b);
	dpk_results_free(&n);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(mann_whitney_matches_scipy),
        DPK_TEST(mann_whitney_edges),
        DPK_TEST(bootstrap_is_reproducible_and_covers),
        DPK_TEST(bootstrap_rejects_bad_input),
        DPK_TEST(median_interpolates),
        DPK_TEST(known_shifts_give_the_right_verdicts),
        DPK_TEST(thresholds_move_the_verdicts),
        DPK_TEST(repeats_are_pooled),
        DPK_TEST(repeats_judge_drift_between_runs),
        DPK_TEST(without_rounds_nothing_is_judged),
        DPK_TEST(resolution_widens_the_interval),
        DPK_TEST(spread_rounds_widen_the_run_term),
        DPK_TEST(a_floor_moved_beyond_noise_is_no_verdict),
        DPK_TEST(too_few_samples_decide_nothing),
        DPK_TEST(environment_differences_warn),
        DPK_TEST(patterns_select_cases),
        DPK_TEST(nothing_in_common_is_an_error),
        DPK_TEST(bad_files_are_named_precisely),
        DPK_TEST(json_output_reads_back),
        DPK_TEST(the_table_says_what_it_decided),
};

DPK_TEST_MAIN(cases)
