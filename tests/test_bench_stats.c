/* SPDX-License-Identifier: BSD-3-Clause */
/* Harness statistics: percentiles, moments, the median's interval, sorting with NaN. */
#include <math.h>
#include <string.h>

#include "dpk_test.h"
#include "stats.h"

#define EPS          1e-12
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Values, and the type-7 percentiles worked out by hand: h = (n - 1) q. */
struct quantile_case {
	const char *name;
	double v[8];
	size_t n;
	double p50, p90, p99;
};

static const struct quantile_case quantile_cases[] = {
        {"one value", {5}, 1, 5, 5, 5},
        /* h = 0.5, 0.9, 0.99 between 1 and 3 */
        {"two values", {3, 1}, 2, 2, 2.8, 2.98},
        /* odd: h = 2 exactly, 3.6 -> 4 + 0.6, 3.96 -> 4 + 0.96 */
        {"odd n", {5, 3, 1, 4, 2}, 5, 3, 4.6, 4.96},
        /* even: h = 1.5 -> 25, 2.7 -> 30 + 0.7 * 10, 2.97 -> 39.7 */
        {"even n", {40, 10, 30, 20}, 4, 25, 37, 39.7},
        /* duplicates: h = 1.5 inside the run of 2s, 2.7 -> 2 + 0.7 * 5, 2.97 -> 2 + 0.97 * 5 */
        {"duplicates", {7, 2, 2, 2}, 4, 2, 5.5, 6.85},
        {"all equal", {9, 9, 9, 9, 9, 9}, 6, 9, 9, 9},
};

static void percentiles_match_hand_values(void)
{
	for (size_t i = 0; i < ARRAY_LEN(quantile_cases); i++) {
		const struct quantile_case *qc = &quantile_cases[i];
		struct dpk_summary s;
		double v[8];

		memcpy(v, qc->v, sizeof(v));
		dpk_stats_summarise(v, qc->n, &s);
		dpk_test_note("%s", qc->name);
		ASSERT_EQ_U(qc->n, s.n);
		ASSERT_NEAR(qc->p50, s.p50, EPS);
		ASSERT_NEAR(qc->p90, s.p90, EPS);
		ASSERT_NEAR(qc->p99, s.p99, EPS);
		for (size_t k = 1; k < qc->n; k++)
			ASSERT_LE_F(v[k - 1], v[k]); /* sorted in place */
		ASSERT_NEAR(v[0], s.min, 0);
		ASSERT_NEAR(v[qc->n - 1], s.max, 0);
	}
}

static void quantile_edges(void)
{
	const double v[] = {1, 2, 3, 4};

	ASSERT_NEAR(0.0, dpk_stats_quantile(v, 0, 0.5), 0);
	ASSERT_NEAR(0.0, dpk_stats_quantile(NULL, 4, 0.5), 0);
	ASSERT_NEAR(1.0, dpk_stats_quantile(v, 4, 0.0), 0);
	ASSERT_NEAR(4.0, dpk_stats_quantile(v, 4, 1.0), 0);
	ASSERT_NEAR(1.0, dpk_stats_quantile(v, 4, -0.5), 0); /* clamped */
	ASSERT_NEAR(4.0, dpk_stats_quantile(v, 4, 7.0), 0);
	ASSERT_NEAR(1.0, dpk_stats_quantile(v, 4, NAN), 0);
	ASSERT_NEAR(2.5, dpk_stats_quantile(v, 4, 0.5), EPS);
	ASSERT_NEAR(1.3, dpk_stats_quantile(v, 4, 0.1), EPS);
}

static void median_sorts_in_place(void)
{
	double v[] = {4, 1, 3, 2, 9};

	ASSERT_NEAR(3.0, dpk_stats_median(v, 5), 0);
	for (unsigned i = 1; i < 5; i++)
		ASSERT_LE_F(v[i - 1], v[i]);
	ASSERT_NEAR(2.5, dpk_stats_median(v, 4), EPS); /* 1 2 3 4 */
	ASSERT_NEAR(0.0, dpk_stats_median(v, 0), 0);
}

/* Selection agrees with sorting at every rank, on data with many equal values (witness
 * readings come in a few dozen distinct values) and on distinct ones. */
static void select_matches_sort(void)
{
	uint64_t st = dpk_test_seed() ^ 0x5851f42d4c957f2dull;
	double v[300], sorted[300], work[300];

	for (unsigned trial = 0; trial < 40; trial++) {
		const size_t n = 1 + (size_t)(dpk_test_rand(&st) % ARRAY_LEN(v));
		const unsigned distinct = trial % 2 ? 5 : 1000000;

		for (size_t i = 0; i < n; i++)
			v[i] = sorted[i] = (double)(dpk_test_rand(&st) % distinct) / 4.0;
		dpk_stats_sort(sorted, n);
		for (size_t k = 0; k < n; k++) {
			memcpy(work, v, n * sizeof(*v));
			ASSERT_NEAR(sorted[k], dpk_stats_select(work, n, k), 0);
		}
	}
	/* Sorted, reversed and all-equal inputs; a rank past the end gives 0. */
	for (size_t i = 0; i < 100; i++)
		v[i] = (double)i;
	ASSERT_NEAR(0.0, dpk_stats_select(v, 100, 0), 0);
	ASSERT_NEAR(99.0, dpk_stats_select(v, 100, 99), 0);
	for (size_t i = 0; i < 100; i++)
		v[i] = (double)(100 - i);
	ASSERT_NEAR(51.0, dpk_stats_select(v, 100, 50), 0);
	for (size_t i = 0; i < 100; i++)
		v[i] = 7.5;
	ASSERT_NEAR(7.5, dpk_stats_select(v, 100, 37), 0);
	ASSERT_NEAR(0.0, dpk_stats_select(v, 100, 100), 0);
	ASSERT_NEAR(0.0, dpk_stats_select(NULL, 0, 0), 0);
}

static void moments_of_known_set(void)
{
	/* Mean 5, sum of squared deviations 32: sample stddev sqrt(32 / 7). */
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	double sd = sqrt(32.0 / 7.0);
	struct dpk_summary s;

	dpk_stats_summarise(v, ARRAY_LEN(v), &s);
	ASSERT_NEAR(5.0, s.mean, EPS);
	ASSERT_NEAR(sd, s.stddev, EPS);
	ASSERT_NEAR(sd / 5.0, s.cv, EPS);
	ASSERT_NEAR(2.0, s.min, 0);
	ASSERT_NEAR(9.0, s.max, 0);
	ASSERT_NEAR(4.5, s.p50, EPS);
}

static void moments_small_and_zero_mean(void)
{
	double one[] = {42};
	double sym[] = {1, -1};
	struct dpk_summary s;

	dpk_stats_summarise(one, 1, &s);
	ASSERT_NEAR(42.0, s.mean, 0);
	ASSERT_NEAR(0.0, s.stddev, 0); /* n < 2 */
	ASSERT_NEAR(0.0, s.cv, 0);
	ASSERT_NEAR(42.0, s.p50_lo, 0);
	ASSERT_NEAR(42.0, s.p50_hi, 0);

	dpk_stats_summarise(sym, 2, &s);
	ASSERT_NEAR(0.0, s.mean, 0);
	ASSERT_NEAR(sqrt(2.0), s.stddev, EPS);
	ASSERT_NEAR(0.0, s.cv, 0); /* mean 0: no ratio */
}

static void summary_of_nothing_is_zero(void)
{
	struct dpk_summary s;
	double v[1] = {3};

	memset(&s, 0xff, sizeof(s));
	dpk_stats_summarise(v, 0, &s);
	ASSERT_EQ_U(0, s.n);
	ASSERT_NEAR(0.0, s.min, 0);
	ASSERT_NEAR(0.0, s.p50, 0);
	ASSERT_NEAR(0.0, s.max, 0);
	ASSERT_NEAR(0.0, s.mean, 0);
	ASSERT_NEAR(0.0, s.stddev, 0);
	ASSERT_NEAR(0.0, s.p50_lo, 0);
	ASSERT_NEAR(0.0, s.p50_hi, 0);
	memset(&s, 0xff, sizeof(s));
	dpk_stats_summarise(NULL, 5, &s);
	ASSERT_EQ_U(0, s.n);
}

/*
 * 0-based ranks from the exact binomial, checked by hand (and against the published tables
 * for n = 20 and 100: ranks 6..15 and 40..61, 1-based). Coverage in the comment.
 */
struct rank_case {
	size_t n, lo, hi;
};

static const struct rank_case rank_cases[] = {
        {6, 0, 5},     /* 1 - 2/64 = 96.9% */
        {7, 0, 6},     /* 98.4% */
        {10, 1, 8},    /* 1 - 2 * 11/1024 = 97.9% */
        {20, 5, 14},   /* 95.9% */
        {50, 17, 32},  /* 96.7% */
        {100, 39, 60}, /* 96.5% */
        {101, 40, 60}, /* 95.4% */
        {1000, 468, 531},
        /* Past DPK_STATS_CI_EXACT_MAX: floor(1001/2 - 1.96 sqrt(1001)/2) = 469, 1-based. */
        {1001, 468, 532},
};

static void median_ci_ranks_match_binomial(void)
{
	size_t lo = 77, hi = 77;

	/* The last row must take the normal approximation. */
	ASSERT_EQ(1000, DPK_STATS_CI_EXACT_MAX);
	for (size_t n = 0; n < 6; n++) {
		ASSERT_FALSE(dpk_stats_median_ci_ranks(n, &lo, &hi));
		ASSERT_EQ_U(77, lo);
	}
	for (size_t i = 0; i < ARRAY_LEN(rank_cases); i++) {
		const struct rank_case *rc = &rank_cases[i];

		ASSERT_TRUE(dpk_stats_median_ci_ranks(rc->n, &lo, &hi));
		dpk_test_note("n = %zu: ranks %zu..%zu", rc->n, lo, hi);
		ASSERT_EQ_U(rc->lo, lo);
		ASSERT_EQ_U(rc->hi, hi);
	}
}

static void median_ci_on_uniform_data(void)
{
	uint64_t seed = dpk_test_seed(), st = seed;
	double v[101];
	struct dpk_summary s;

	/* 1..101 shuffled: the median is 51 and the ranks 40..60 hold 41 and 61. */
	for (size_t i = 0; i < ARRAY_LEN(v); i++)
		v[i] = (double)(i + 1);
	for (size_t i = ARRAY_LEN(v) - 1; i > 0; i--) {
		size_t k = (size_t)(dpk_test_rand(&st) % (i + 1));
		double t = v[i];

		v[i] = v[k];
		v[k] = t;
	}
	dpk_stats_summarise(v, ARRAY_LEN(v), &s);
	ASSERT_NEAR(51.0, s.p50, 0);
	ASSERT_NEAR(41.0, s.p50_lo, 0);
	ASSERT_NEAR(61.0, s.p50_hi, 0);
	ASSERT_NEAR(s.p50 - s.p50_lo, s.p50_hi - s.p50, 0);

	/* Even n on a uniform grid: the interval is symmetric about the interpolated median. */
	for (size_t i = 0; i < 20; i++)
		v[i] = (double)(20 - i);
	dpk_stats_summarise(v, 20, &s);
	ASSERT_NEAR(10.5, s.p50, EPS);
	ASSERT_NEAR(6.0, s.p50_lo, 0);
	ASSERT_NEAR(15.0, s.p50_hi, 0);
	ASSERT_NEAR(s.p50 - s.p50_lo, s.p50_hi - s.p50, EPS);

	/* Below 6 values there is no interval: both ends are the median. */
	dpk_stats_summarise(v, 5, &s);
	ASSERT_NEAR(s.p50, s.p50_lo, 0);
	ASSERT_NEAR(s.p50, s.p50_hi, 0);
}

static void median_ci_contains_median_on_random_data(void)
{
	uint64_t st = dpk_test_seed() ^ 0x9e3779b97f4a7c15ull;
	double v[500];

	for (size_t n = 6; n <= ARRAY_LEN(v); n += 37) {
		struct dpk_summary s;

		for (size_t i = 0; i < n; i++)
			v[i] = (double)(dpk_test_rand(&st) % 1000) / 7.0;
		dpk_stats_summarise(v, n, &s);
		ASSERT_LE_F(s.min, s.p50_lo);
		ASSERT_LE_F(s.p50_lo, s.p50);
		ASSERT_LE_F(s.p50, s.p50_hi);
		ASSERT_LE_F(s.p50_hi, s.max);
	}
}

static void sort_puts_nan_last(void)
{
	double v[] = {3, NAN, -1, 2, NAN, 0};

	dpk_stats_sort(v, ARRAY_LEN(v));
	ASSERT_NEAR(-1.0, v[0], 0);
	ASSERT_NEAR(0.0, v[1], 0);
	ASSERT_NEAR(2.0, v[2], 0);
	ASSERT_NEAR(3.0, v[3], 0);
	ASSERT_TRUE(isnan(v[4]) && isnan(v[5]));
	dpk_stats_sort(NULL, 3); /* no-op */
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(percentiles_match_hand_values),
        DPK_TEST(quantile_edges),
        DPK_TEST(median_sorts_in_place),
        DPK_TEST(select_matches_sort),
        DPK_TEST(moments_of_known_set),
        DPK_TEST(moments_small_and_zero_mean),
        DPK_TEST(summary_of_nothing_is_zero),
        DPK_TEST(median_ci_ranks_match_binomial),
        DPK_TEST(median_ci_on_uniform_data),
        DPK_TEST(median_ci_contains_median_on_random_data),
        DPK_TEST(sort_puts_nan_last),
};

DPK_TEST_MAIN(cases)
