/* SPDX-License-Identifier: BSD-3-Clause */
/* Harness statistics: percentiles, moments, the median's interval and sample rejection. */
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

/* n clean samples of @p ticks on CPU 1. */
static void clean(struct dpk_sample *s, size_t n, double ticks)
{
	for (size_t i = 0; i < n; i++) {
		s[i].ticks_per_op = ticks + (double)(i % 3); /* a little spread */
		s[i].cpu_begin = s[i].cpu_end = 1;
		s[i].ivcsw = 0;
		s[i].round = 0;
		s[i].reject = 0xee; /* stale mark: must be cleared */
	}
}

static void reject_counts_each_reason(void)
{
	struct dpk_sample s[40];
	size_t counts[DPK_REJECT_COUNT];

	clean(s, 40, 100.0);
	s[3].cpu_end = 2;             /* one migration */
	s[7].ivcsw = 1;               /* one context switch */
	s[11].ticks_per_op = 10000.0; /* one gap, 100 x the median */
	s[12].ticks_per_op = 900.0;   /* 9 x: slow but kept */
	ASSERT_EQ_U(37, dpk_stats_reject(s, 40, true, counts));
	ASSERT_EQ_U(37, counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_CTX_SWITCH]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_GAP]);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[3].reject);
	ASSERT_EQ(DPK_REJECT_CTX_SWITCH, s[7].reject);
	ASSERT_EQ(DPK_REJECT_GAP, s[11].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[12].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);

	/* A second call gives the same marks. */
	ASSERT_EQ_U(37, dpk_stats_reject(s, 40, true, NULL));
	ASSERT_EQ(DPK_REJECT_GAP, s[11].reject);
}

static void reject_ignores_ctx_switch_when_disabled(void)
{
	struct dpk_sample s[20];
	size_t counts[DPK_REJECT_COUNT];

	clean(s, 20, 50.0);
	s[2].ivcsw = 3;
	s[9].ivcsw = 1;
	ASSERT_EQ_U(20, dpk_stats_reject(s, 20, false, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_CTX_SWITCH]);
	ASSERT_EQ(DPK_REJECT_NONE, s[2].reject);
	ASSERT_EQ_U(18, dpk_stats_reject(s, 20, true, counts));
	ASSERT_EQ_U(2, counts[DPK_REJECT_CTX_SWITCH]);
}

static void switches_go_to_the_longest_batches_of_each_set(void)
{
	struct dpk_sample a[10], b[10];
	struct dpk_sample *const one[1] = {a}, *const two[2] = {a, b};

	clean(a, 10, 50.0); /* 50 51 52 50 51 52 ...: median 51 */
	a[4].ticks_per_op = 400.0;
	a[6].ticks_per_op = 300.0;
	a[8].ticks_per_op = 70.0; /* 1.37 x the median: not long enough to hold a switch */
	ASSERT_EQ_U(0, dpk_stats_give_switches(one, 1, 10, 0));
	ASSERT_EQ_U(1, dpk_stats_give_switches(one, 1, 10, 1));
	EXPECT_EQ_U(1, a[4].ivcsw);
	EXPECT_EQ_U(0, a[6].ivcsw);
	/* Two more: one goes to the 300, the other finds no batch and marks nothing. */
	ASSERT_EQ_U(1, dpk_stats_give_switches(one, 1, 10, 2));
	EXPECT_EQ_U(1, a[6].ivcsw);
	EXPECT_EQ_U(0, a[8].ivcsw);
	for (size_t i = 0; i < 10; i++)
		EXPECT_EQ_U(i == 4 || i == 6, a[i].ivcsw);

	/* Across sets each batch is judged against its own set's median: 300 in a set around
	 * 1000 is not long, 90 in a set around 51 is. */
	clean(a, 10, 50.0);
	clean(b, 10, 1000.0);
	a[3].ticks_per_op = 90.0;
	b[5].ticks_per_op = 1800.0;
	b[7].ticks_per_op = 300.0;
	ASSERT_EQ_U(2, dpk_stats_give_switches(two, 2, 10, 5));
	EXPECT_EQ_U(1, a[3].ivcsw);
	EXPECT_EQ_U(1, b[5].ivcsw);
	EXPECT_EQ_U(0, b[7].ivcsw);
	ASSERT_EQ_U(0, dpk_stats_give_switches(two, 2, 0, 5));
	/* One switch: 90 against 51 (x1.76) outranks 1700 against 1001 (x1.70). */
	clean(a, 10, 50.0);
	clean(b, 10, 1000.0);
	a[3].ticks_per_op = 90.0;
	b[5].ticks_per_op = 1700.0;
	ASSERT_EQ_U(1, dpk_stats_give_switches(two, 2, 10, 1));
	EXPECT_EQ_U(1, a[3].ivcsw);
	EXPECT_EQ_U(0, b[5].ivcsw);
}

static void reject_keeps_uniformly_slow_set(void)
{
	struct dpk_sample s[30];
	size_t counts[DPK_REJECT_COUNT];

	clean(s, 30, 1e6);
	ASSERT_EQ_U(30, dpk_stats_reject(s, 30, true, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_GAP] + counts[DPK_REJECT_MIGRATION] +
	                       counts[DPK_REJECT_CTX_SWITCH]);

	/* Two modes 20x apart with equal weight: the median sits between, nothing is a gap. */
	for (size_t i = 0; i < 30; i++)
		s[i].ticks_per_op = i % 2 ? 20.0 : 1.0;
	ASSERT_EQ_U(30, dpk_stats_reject(s, 30, true, counts));
}

static void reject_gap_median_skips_rejected_samples(void)
{
	struct dpk_sample s[11];
	size_t counts[DPK_REJECT_COUNT];

	/* Six migrated samples at 1000 would put the median of all at 1000; the median of the
	 * five kept is 11, so the 500 is a gap. A migrated sample that was also preempted is
	 * counted once, as a migration. */
	clean(s, 11, 10.0);
	for (size_t i = 0; i < 6; i++) {
		s[i].ticks_per_op = 1000.0;
		s[i].cpu_end = 0;
		s[i].ivcsw = 1;
	}
	s[10].ticks_per_op = 500.0;
	ASSERT_EQ_U(4, dpk_stats_reject(s, 11, true, counts));
	ASSERT_EQ_U(6, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ_U(0, counts[DPK_REJECT_CTX_SWITCH]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_GAP]);
	ASSERT_EQ(DPK_REJECT_GAP, s[10].reject);
}

static void reject_edge_inputs(void)
{
	struct dpk_sample s[300];
	size_t counts[DPK_REJECT_COUNT];

	memset(counts, 0xff, sizeof(counts));
	ASSERT_EQ_U(0, dpk_stats_reject(s, 0, true, counts));
	for (size_t i = 0; i < DPK_REJECT_COUNT; i++)
		ASSERT_EQ_U(0, counts[i]);
	ASSERT_EQ_U(0, dpk_stats_reject(NULL, 5, true, counts));

	/* A median of 0 cannot scale a threshold: no gaps. */
	clean(s, 10, 0.0);
	for (size_t i = 0; i < 10; i++)
		s[i].ticks_per_op = i == 9 ? 5.0 : 0.0;
	ASSERT_EQ_U(10, dpk_stats_reject(s, 10, true, counts));

	/* More samples than the stack buffer for the median. */
	clean(s, 300, 20.0);
	s[299].ticks_per_op = 5000.0;
	ASSERT_EQ_U(299, dpk_stats_reject(s, 300, true, counts));
	ASSERT_EQ(DPK_REJECT_GAP, s[299].reject);
}

/* Round @p q of @p per samples starting at s[q * per], around @p ticks. */
static void round_of(struct dpk_sample *s, unsigned q, size_t per, double ticks)
{
	clean(s + q * per, per, ticks);
	for (size_t i = 0; i < per; i++)
		s[q * per + i].round = (uint16_t)q;
}

static void slow_rounds_are_set_aside(void)
{
	enum { PER = 40, N = 5 * PER };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Round medians 101, 201, 105, 111, 103; the reference is 103 (the second of five
	 * rounds), so 105 (+2%) stays at a 5% limit and 111 (+8%) is slow. */
	round_of(s, 0, PER, 100.0);
	round_of(s, 1, PER, 200.0);
	round_of(s, 2, PER, 104.0);
	round_of(s, 3, PER, 110.0);
	round_of(s, 4, PER, 102.0);
	s[PER + 5].cpu_end = 9; /* a migration inside a slow round stays a migration */
	ASSERT_EQ_U(N - 1, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(3 * PER, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(3 * PER, counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(2 * PER - 1, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(1, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[PER].reject);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[PER + 5].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * PER + 7].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[3 * PER + 7].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[4 * PER + 7].reject);

	/* A wider limit keeps the +8% round; the first rule clears the marks again. */
	ASSERT_EQ_U(N - 1, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ(DPK_REJECT_NONE, s[PER].reject);
	ASSERT_EQ_U(4 * PER, dpk_stats_reject_slow(s, N, 0.2, NULL));
	ASSERT_EQ(DPK_REJECT_NONE, s[3 * PER].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[PER + 1].reject);
}

static void slow_reference_is_the_lower_quartile(void)
{
	enum { PER = 30, R = 9, N = R * PER };
	static const double cost[R] = {107, 139, 80, 103, 124, 112, 100, 130, 118};
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Nine steady rounds of equal length; their medians in order are 81, 101, 104 (the
	 * reference: the first three hold a quarter of the samples), 108, 113, 119, 125, 131,
	 * 140. One lucky round at 81 does not make
	 * the others slow: the rounds up to 109.2 (5% over 104) stay, and the lucky one too,
	 * for it is faster. A reference one rank off would keep three rounds or five. */
	for (unsigned q = 0; q < R; q++)
		round_of(s, q, PER, cost[q]);
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(4 * PER, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(5 * PER, counts[DPK_REJECT_SLOW]);
	for (unsigned q = 0; q < R; q++)
		EXPECT_EQ(cost[q] < 108 ? DPK_REJECT_NONE : DPK_REJECT_SLOW, s[q * PER + 3].reject);

	/* Eight equal rounds, medians 101, 105, 109, ...: the first two hold exactly a
	 * quarter, so the second is the reference (limit 110.25) and 109 stays; the third as
	 * reference would keep 113 too. */
	for (unsigned q = 0; q < 8; q++)
		round_of(s, q, PER, 100.0 + 4.0 * q);
	ASSERT_EQ_U(8 * PER, dpk_stats_reject(s, 8 * PER, true, counts));
	ASSERT_EQ_U(3 * PER, dpk_stats_reject_slow(s, 8 * PER, 0.05, counts));
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * PER].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[3 * PER].reject);
}

/* Rounds of the lengths @p len[] one after another from s[0], round q around @p ticks[q];
 * returns the samples written. */
static size_t rounds_of_lengths(struct dpk_sample *s, const size_t *len, const double *ticks,
                                unsigned r)
{
	size_t at = 0;

	for (unsigned q = 0; q < r; q++) {
		clean(s + at, len[q], ticks[q]);
		for (size_t i = 0; i < len[q]; i++)
			s[at + i].round = (uint16_t)q;
		at += len[q];
	}
	return at;
}

static void slow_reference_is_weighted_by_samples(void)
{
	enum { R = 8, SHORT = 20, FULL = 200, N = 2 * SHORT + 6 * FULL };
	static const size_t len[R] = {SHORT, FULL, FULL, SHORT, FULL, FULL, FULL, FULL};
	static const double cost[R] = {90, 100, 101, 90, 102, 106, 107, 130};
	static struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Two short fast rounds (medians 91) among six full ones (medians 101, 102, 103, 107,
	 * 108, 131). By round count the lower quartile would be 91 and every full round slow;
	 * by samples the rounds up to 102 hold a quarter, so 102 is the reference (limit
	 * 107.1): 107 stays, 108 and 131 are slow. A reference one round off either way, 101
	 * or 103, would judge 107 or 108 the other way. */
	ASSERT_EQ_U(N, rounds_of_lengths(s, len, cost, R));
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(N - 2 * FULL, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(2 * FULL, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[SHORT].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * SHORT + 3 * FULL].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[2 * SHORT + 4 * FULL].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[N - 1].reject);
}

static void slow_reference_needs_enough_samples(void)
{
	enum { R = 6, PER = 40, SHORT = DPK_SLOW_MIN_SAMPLES - 1, N = 5 * PER + SHORT };
	static const size_t len[R] = {PER, PER, PER, PER, PER, SHORT};
	static const double cost[R] = {100, 106, 107, 108, 130, 50};
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* A short round at half the cost cannot be the reference (too few samples for a
	 * steady median); it is judged against the reference like any round, and kept. Were
	 * it steady, the reference would be 101, not 107, and 107-109 would be slow too. */
	ASSERT_EQ_U(N, rounds_of_lengths(s, len, cost, R));
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(4 * PER + SHORT, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(PER, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ(DPK_REJECT_NONE, s[0].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[PER].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[4 * PER].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[N - 1].reject);
}

static void slow_rule_needs_five_steady_rounds(void)
{
	enum { R = 5, PER = 40, N = R * PER };
	static const size_t len[R] = {PER, PER, PER, PER, DPK_SLOW_MIN_SAMPLES - 1};
	static const double cost[R] = {100, 100, 100, 200, 100};
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];
	size_t n = rounds_of_lengths(s, len, cost, R);

	/* Four steady rounds and a short one: a round at twice the cost stays, for so few
	 * rounds cannot tell a slow phase from a slow memory layout. */
	ASSERT_EQ_U(n, dpk_stats_reject(s, n, true, counts));
	ASSERT_EQ_U(n, dpk_stats_reject_slow(s, n, 0.05, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_SLOW]);

	/* A fifth steady round makes it judge. */
	clean(s + n, PER - (DPK_SLOW_MIN_SAMPLES - 1), 100.0);
	for (size_t i = n; i < N; i++)
		s[i].round = R - 1;
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(N - PER, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ(DPK_REJECT_SLOW, s[3 * PER].reject);
}

static void slow_rule_does_nothing_without_rounds_or_limit(void)
{
	enum { PER = 30, R = 5, N = R * PER };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	/* Five steady rounds, one at three times the cost: off, nothing is set aside. */
	for (unsigned q = 0; q < R; q++)
		round_of(s, q, PER, q == 2 ? 300.0 : 100.0);
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(N, dpk_stats_reject_slow(s, N, 0.0, counts)); /* off */
	ASSERT_EQ_U(N, dpk_stats_reject_slow(s, N, -1.0, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(N - PER, dpk_stats_reject_slow(s, N, 0.05, counts)); /* on: it is slow */
	ASSERT_EQ_U(PER, counts[DPK_REJECT_SLOW]);

	/* One round: nothing to compare with. */
	ASSERT_EQ_U(N, dpk_stats_reject(s, N, true, counts));
	for (size_t i = 0; i < N; i++)
		s[i].round = 3;
	ASSERT_EQ_U(N, dpk_stats_reject_slow(s, N, 0.05, counts));
	ASSERT_EQ_U(0, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(0, dpk_stats_reject_slow(NULL, 10, 0.05, counts));
	ASSERT_EQ_U(0, dpk_stats_reject_slow(s, 0, 0.05, counts));
}

static void slow_marks_given_rounds(void)
{
	enum { PER = 20, N = 3 * PER };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];
	const uint8_t slow[2] = {0, 1}; /* round 1 slow; round 2 is past the table: kept */

	round_of(s, 0, PER, 100.0);
	round_of(s, 1, PER, 100.0); /* as fast as round 0: marked all the same */
	round_of(s, 2, PER, 300.0);
	s[PER + 3].cpu_end = 7;
	ASSERT_EQ_U(N - 1, dpk_stats_reject(s, N, true, counts));
	ASSERT_EQ_U(2 * PER, dpk_stats_mark_slow(s, N, slow, 2, counts));
	ASSERT_EQ_U(2 * PER, counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(PER - 1, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[PER + 3].reject);
	ASSERT_EQ(DPK_REJECT_SLOW, s[PER].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[2 * PER].reject);
	ASSERT_EQ_U(2 * PER, dpk_stats_mark_slow(s, N, NULL, 0, NULL));
}

static void witness_marks_slow_samples(void)
{
	enum { N = 40 };
	struct dpk_sample s[N];
	size_t counts[DPK_REJECT_COUNT];

	round_of(s, 0, N, 100.0);
	for (unsigned i = 0; i < N; i++)
		s[i].wit = i % 4 == 0 ? 20.0f : i % 4 == 1 ? 12.5f : 10.0f;
	s[2].cpu_end = 7; /* migrated: stays a migration, not counted as slow */
	s[4].cpu_end = 7; /* migrated and slow: the first rule has it */
	ASSERT_EQ_U(N - 2, dpk_stats_reject(s, N, true, counts));
	/* Over the limit: the 20s. At the limit (12.5) is not over it. */
	ASSERT_EQ_U(N - 2 - (N / 4 - 1), dpk_stats_mark_witness(s, N, 12.5, counts));
	ASSERT_EQ_U(N - 2 - (N / 4 - 1), counts[DPK_REJECT_NONE]);
	ASSERT_EQ_U(N / 4 - 1, counts[DPK_REJECT_SLOW]);
	ASSERT_EQ_U(2, counts[DPK_REJECT_MIGRATION]);
	ASSERT_EQ(DPK_REJECT_SLOW, s[0].reject);
	ASSERT_EQ(DPK_REJECT_NONE, s[1].reject);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[2].reject);
	ASSERT_EQ(DPK_REJECT_MIGRATION, s[4].reject);
	/* Again, with no counts and a limit nothing is over: the same samples stay kept. */
	ASSERT_EQ_U(N - 2 - (N / 4 - 1), dpk_stats_mark_witness(s, N, 1e9, NULL));
	ASSERT_EQ_U(0, dpk_stats_mark_witness(NULL, 5, 12.5, NULL));
}

static void kept_ticks_keep_their_order(void)
{
	enum { N = 6 };
	struct dpk_sample s[N];
	const double ticks[N] = {5, 3, 9, 1, 7, 2};
	double out[N];

	clean(s, N, 0);
	for (unsigned i = 0; i < N; i++) {
		s[i].ticks_per_op = ticks[i];
		s[i].reject = DPK_REJECT_NONE;
	}
	s[1].reject = DPK_REJECT_GAP;
	s[4].reject = DPK_REJECT_SLOW;
	ASSERT_EQ_U(4, dpk_stats_kept_ticks(s, N, out));
	ASSERT_NEAR(5, out[0], 0);
	ASSERT_NEAR(9, out[1], 0);
	ASSERT_NEAR(1, out[2], 0);
	ASSERT_NEAR(2, out[3], 0);
	ASSERT_EQ_U(0, dpk_stats_kept_ticks(s, 0, out));
}

/* @p n kept samples, the i-th of @p ticks per op in round @p round[i] with clock timing
 * @p clk[i] (0: none taken); rounds are stored one after another. */
static void cycles_samples(struct dpk_sample *s, size_t n, const double *ticks,
                           const unsigned *round, const float *clk)
{
	clean(s, n, 0);
	for (size_t i = 0; i < n; i++) {
		s[i].ticks_per_op = ticks[i];
		s[i].round = (uint16_t)round[i];
		s[i].reject = DPK_REJECT_NONE;
		s[i].wit = 0;
		s[i].clk = clk[i];
	}
}

static void cycles_convert_round_by_round(void)
{
	enum { N = 7 };
	/* Read cost 10. Round 0 at a pace of 100 ticks a chain of 600 cycles (6 cycles a
	 * tick), round 1 at 120 (5 a tick); sample 5 is rejected, so neither its value nor its
	 * timing counts; round 2 has no timing, so its sample is left out. */
	const double ticks[N] = {2.0, 3.0, 1.0, 4.0, 5.0, 1000.0, 7.0};
	const unsigned round[N] = {0, 0, 0, 1, 1, 1, 2};
	const float clk[N] = {110, 110, 110, 130, 130, 5000, 0};
	struct dpk_sample s[N];
	double out[N], ratio;

	cycles_samples(s, N, ticks, round, clk);
	s[5].reject = DPK_REJECT_GAP;
	/* The samples come back in the order taken. */
	ASSERT_EQ_U(5, dpk_stats_kept_cycles(s, N, 600.0, 10.0, out, &ratio));
	ASSERT_NEAR(12.0, out[0], 1e-9);
	ASSERT_NEAR(18.0, out[1], 1e-9);
	ASSERT_NEAR(6.0, out[2], 1e-9);
	ASSERT_NEAR(20.0, out[3], 1e-9);
	ASSERT_NEAR(25.0, out[4], 1e-9);
	/* The median of two rounds' ratios, 6 and 5. */
	ASSERT_NEAR(5.5, ratio, 1e-9);
	/* The ratio is optional. */
	ASSERT_EQ_U(5, dpk_stats_kept_cycles(s, N, 600.0, 10.0, out, NULL));
}

/* A round as the machine ran it: its kept samples and those set aside as slow, never one
 * dropped for another reason; and the witness timings next to them. */
static void rounds_as_run_take_the_slow_samples(void)
{
	enum { N = 6, Q = 3 };
	const double ticks[N] = {1.0, 2.0, 9.0, 4.0, 6.0, 100.0};
	const unsigned round[N] = {0, 0, 0, 1, 1, 1};
	const float clk[N] = {110, 110, 110, 130, 130, 130};
	const float wit[N] = {8, 8, 20, 30, 10, 40};
	struct dpk_sample s[N];
	double p50[Q], ratio[Q];
	uint32_t count[Q];

	cycles_samples(s, N, ticks, round, clk);
	for (size_t i = 0; i < N; i++)
		s[i].wit = wit[i];
	s[2].reject = s[3].reject = s[4].reject = DPK_REJECT_SLOW;
	s[5].reject = DPK_REJECT_GAP;
	ASSERT_TRUE(dpk_stats_round_medians(s, N, Q, false, p50, count));
	ASSERT_NEAR(1.5, p50[0], 1e-12);
	EXPECT_TRUE(isnan(p50[1]) && isnan(p50[2]));
	EXPECT_EQ_U(2, count[0]);
	EXPECT_EQ_U(0, count[1]);
	ASSERT_TRUE(dpk_stats_round_medians(s, N, Q, true, p50, count));
	ASSERT_NEAR(2.0, p50[0], 1e-12);
	ASSERT_NEAR(5.0, p50[1], 1e-12);
	EXPECT_TRUE(isnan(p50[2]));
	EXPECT_EQ_U(3, count[0]);
	EXPECT_EQ_U(2, count[1]);
	EXPECT_EQ_U(0, count[2]);
	ASSERT_TRUE(dpk_stats_round_witness(s, N, Q, p50));
	ASSERT_NEAR(8.0, p50[0], 1e-12);
	ASSERT_NEAR(20.0, p50[1], 1e-12); /* 30 and 10; the gap's 40 left out */
	EXPECT_TRUE(isnan(p50[2]));
	/* Round 1 has a pace only from its slow samples: 600 cycles over 130 - 10 ticks. */
	dpk_stats_round_ratios(s, N, 600.0, 10.0, Q, false, ratio);
	ASSERT_NEAR(6.0, ratio[0], 1e-9);
	EXPECT_TRUE(isnan(ratio[1]));
	dpk_stats_round_ratios(s, N, 600.0, 10.0, Q, true, ratio);
	ASSERT_NEAR(6.0, ratio[0], 1e-9);
	ASSERT_NEAR(5.0, ratio[1], 1e-9);
	EXPECT_TRUE(isnan(ratio[2]));
}

static void cycles_trim_the_round_outliers(void)
{
	enum { N = 7 };
	struct dpk_sample s[N];
	const float clk[N] = {100, 100, 125, 100, 5000, 126, 100};
	const double ticks[N] = {1, 1, 1, 1, 1, 1, 1};
	const unsigned round[N] = {0};
	double out[N], ratio;

	/* Median timing 100, cut at 125: the 125 counts, the 126 and the 5000 do not; the
	 * pace is the mean of four 100s and the 125, 105, less no read cost. */
	cycles_samples(s, N, ticks, round, clk);
	ASSERT_EQ_U(N, dpk_stats_kept_cycles(s, N, 420.0, 0.0, out, &ratio));
	ASSERT_NEAR(4.0, ratio, 1e-9);
	for (unsigned i = 0; i < N; i++)
		ASSERT_NEAR(4.0, out[i], 1e-9);
}

static void cycles_trim_by_the_case_median(void)
{
	enum { N = 5 };
	/* Round 2 kept one sample, and its chain was interrupted: the round's own median would
	 * keep that timing, the case's (110) leaves it out, and the round with it. */
	const double ticks[N] = {1, 1, 1, 1, 1};
	const unsigned round[N] = {0, 0, 1, 1, 2};
	const float clk[N] = {110, 110, 110, 110, 5000};
	struct dpk_sample s[N];
	double out[N], ratio;

	cycles_samples(s, N, ticks, round, clk);
	ASSERT_EQ_U(4, dpk_stats_kept_cycles(s, N, 600.0, 10.0, out, &ratio));
	for (unsigned i = 0; i < 4; i++)
		ASSERT_NEAR(6.0, out[i], 1e-9);
	ASSERT_NEAR(6.0, ratio, 1e-9);
}

static void cycles_need_a_positive_pace(void)
{
	enum { N = 5 };
	/* Round 0's timings are all read cost (a chain folded away would read so): no pace,
	 * no figures; round 1's are fine, and 60 is the case's median. */
	const double ticks[N] = {1, 1, 2, 2, 2};
	const unsigned round[N] = {0, 0, 1, 1, 1};
	const float clk[N] = {10, 9, 60, 60, 60};
	struct dpk_sample s[N];
	double out[N], ratio = 1;

	cycles_samples(s, N, ticks, round, clk);
	ASSERT_EQ_U(3, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, &ratio));
	ASSERT_NEAR(4.0, out[0], 1e-9);
	ASSERT_NEAR(2.0, ratio, 1e-9);
	/* A pace of 15 over a read cost of 10 passes; one of 8 (a timing of 18) does not. */
	s[0].clk = s[1].clk = 25;
	ASSERT_EQ_U(5, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, NULL));
	s[0].clk = s[1].clk = 18;
	ASSERT_EQ_U(3, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, NULL));
	/* No timing at all, nothing kept, or no samples: nothing, and no ratio. */
	for (unsigned i = 0; i < N; i++)
		s[i].clk = 0;
	ratio = 1;
	EXPECT_EQ_U(0, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, &ratio));
	EXPECT_TRUE(isnan(ratio));
	for (unsigned i = 0; i < N; i++) {
		s[i].clk = 60;
		s[i].reject = DPK_REJECT_SLOW;
	}
	ratio = 1;
	EXPECT_EQ_U(0, dpk_stats_kept_cycles(s, N, 100.0, 10.0, out, &ratio));
	EXPECT_TRUE(isnan(ratio));
	EXPECT_EQ_U(0, dpk_stats_kept_cycles(s, 0, 100.0, 10.0, out, NULL));
}

static void reject_names(void)
{
	ASSERT_STREQ("none", dpk_reject_name(DPK_REJECT_NONE));
	ASSERT_STREQ("migration", dpk_reject_name(DPK_REJECT_MIGRATION));
	ASSERT_STREQ("ctx_switch", dpk_reject_name(DPK_REJECT_CTX_SWITCH));
	ASSERT_STREQ("gap", dpk_reject_name(DPK_REJECT_GAP));
	ASSERT_STREQ("slow", dpk_reject_name(DPK_REJECT_SLOW));
	ASSERT_STREQ("floor", dpk_reject_name(DPK_REJECT_FLOOR));
	ASSERT_STREQ("alone", dpk_reject_name(DPK_REJECT_ALONE));
	ASSERT_STREQ("invalid", dpk_reject_name(DPK_REJECT_COUNT));
}

/* A batch is alone when no other role's batch overlaps it, touching ends included; the
 * mark then moves a kept sample's count to "alone" and leaves rejected ones alone. */
/* Rounds weigh the same whatever their sample counts: one fast round of 100 samples at 5
 * ticks and two slow ones of 25 at 20 and 21 give the slow median the pooled samples
 * miss; rejected samples count for nothing; with equal rounds it is the pooled median. */
static void round_summary_weighs_rounds_alike(void)
{
	struct dpk_sample s[160];
	struct dpk_summary sum, pooled;
	double v[160];
	size_t n = 0, k;

	memset(s, 0, sizeof(s));
	for (unsigned i = 0; i < 100; i++, n++) {
		s[n].ticks_per_op = 5.0 + 0.001 * i;
		s[n].round = 0;
	}
	for (unsigned i = 0; i < 25; i++, n++) {
		s[n].ticks_per_op = 20.0 + 0.001 * i;
		s[n].round = 1;
	}
	for (unsigned i = 0; i < 25; i++, n++) {
		s[n].ticks_per_op = 21.0 + 0.001 * i;
		s[n].round = 2;
	}
	for (unsigned i = 0; i < 10; i++, n++) { /* set aside: no weight */
		s[n].ticks_per_op = 1.0;
		s[n].round = 3;
		s[n].reject = DPK_REJECT_FLOOR;
	}
	ASSERT_TRUE(dpk_stats_summarise_rounds(s, n, 4, &sum));
	k = dpk_stats_kept_ticks(s, n, v);
	dpk_stats_summarise(v, k, &pooled);
	EXPECT_EQ(150, sum.n);
	EXPECT_LT_F(pooled.p50, 6.0); /* the fast round outvotes the others */
	EXPECT_GE_F(sum.p50, 20.0);
	EXPECT_LE_F(sum.p50, 21.0);
	ASSERT_NEAR(5.0, sum.min, 1e-12);
	ASSERT_NEAR(21.024, sum.max, 1e-9);
	/* The mean: a third of each round's. */
	ASSERT_NEAR((5.0495 + 20.012 + 21.012) / 3, sum.mean, 1e-9);
	EXPECT_TRUE(sum.min <= sum.p50 && sum.p50 <= sum.p90 && sum.p90 <= sum.p99 &&
	            sum.p99 <= sum.max);
	/* Three rounds drawn, too few for ranks that cover 95%: the interval is their span. */
	EXPECT_EQ(sum.min, sum.p50_lo);
	EXPECT_EQ(sum.max, sum.p50_hi);

	/* Equal rounds, an odd count: the weighted median is the pooled one, and with twelve
	 * rounds its interval lies inside their span. */
	n = 0;
	for (unsigned r = 0; r < 12; r++)
		for (unsigned i = 0; i < 7; i++, n++) {
			s[n].ticks_per_op = 10.0 * (r + 1) + i;
			s[n].round = (uint16_t)r;
			s[n].reject = DPK_REJECT_NONE;
		}
	ASSERT_TRUE(dpk_stats_summarise_rounds(s, n, 12, &sum));
	k = dpk_stats_kept_ticks(s, n, v);
	dpk_stats_summarise(v, k, &pooled);
	ASSERT_NEAR(pooled.p50, sum.p50, 1e-12);
	EXPECT_GT_F(sum.p50_lo, sum.min);
	EXPECT_LT_F(sum.p50_hi, sum.max);
	EXPECT_LT_F(sum.p50_lo, sum.p50);
	EXPECT_GT_F(sum.p50_hi, sum.p50);
	ASSERT_NEAR(pooled.mean, sum.mean, 1e-9);
	ASSERT_NEAR(pooled.stddev, sum.stddev, 1e-9);

	/* Nothing kept: an empty summary. */
	for (size_t i = 0; i < n; i++)
		s[i].reject = DPK_REJECT_GAP;
	ASSERT_TRUE(dpk_stats_summarise_rounds(s, n, 12, &sum));
	EXPECT_EQ(0, sum.n);
}

static void alone_batches_are_found_and_marked(void)
{
	/* role 0: [0,10] [10,20] [30,40] [50,60] [100,110]; role 1: [5,12] [40,45];
	 * role 2: [58,70] */
	static const uint64_t r0[] = {0, 10, 10, 20, 30, 40, 50, 60, 100, 110};
	static const uint64_t r1[] = {5, 12, 40, 45};
	static const uint64_t r2[] = {58, 70};
	const uint64_t *const spans[] = {r0, r1, r2};
	const size_t ns[] = {5, 2, 1};
	bool alone[5], one[2];
	struct dpk_sample s[5] = {{.ticks_per_op = 1}, {.ticks_per_op = 1}, {.ticks_per_op = 1},
	                          {.ticks_per_op = 1}, {.ticks_per_op = 1}};
	size_t counts[DPK_REJECT_COUNT] = {[DPK_REJECT_NONE] = 4, [DPK_REJECT_GAP] = 1};

	dpk_stats_alone(spans, ns, 3, 0, alone);
	EXPECT_FALSE(alone[0]); /* overlaps [5,12] */
	EXPECT_FALSE(alone[1]); /* overlaps [5,12] */
	EXPECT_FALSE(alone[2]); /* touches [40,45] at 40 */
	EXPECT_FALSE(alone[3]); /* overlaps role 2's [58,70] */
	EXPECT_TRUE(alone[4]);  /* nobody after 70 */
	dpk_stats_alone(spans, ns, 3, 1, one);
	EXPECT_FALSE(one[0]);
	EXPECT_FALSE(one[1]);
	/* With role 0 alone: every batch of role 1 is alone. */
	dpk_stats_alone(spans + 1, ns + 1, 1, 0, one);
	EXPECT_TRUE(one[0] && one[1]);

	s[4].reject = DPK_REJECT_GAP; /* already taken: stays "gap" */
	alone[0] = true;
	EXPECT_EQ(3, dpk_stats_mark_alone(s, 5, alone, counts));
	EXPECT_EQ(DPK_REJECT_ALONE, s[0].reject);
	EXPECT_EQ(DPK_REJECT_GAP, s[4].reject);
	EXPECT_EQ(3, counts[DPK_REJECT_NONE]);
	EXPECT_EQ(1, counts[DPK_REJECT_ALONE]);
	EXPECT_EQ(1, counts[DPK_REJECT_GAP]);
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
        DPK_TEST(reject_counts_each_reason),
        DPK_TEST(reject_ignores_ctx_switch_when_disabled),
        DPK_TEST(switches_go_to_the_longest_batches_of_each_set),
        DPK_TEST(reject_keeps_uniformly_slow_set),
        DPK_TEST(reject_gap_median_skips_rejected_samples),
        DPK_TEST(reject_edge_inputs),
        DPK_TEST(cycles_convert_round_by_round),
        DPK_TEST(rounds_as_run_take_the_slow_samples),
        DPK_TEST(cycles_trim_the_round_outliers),
        DPK_TEST(cycles_trim_by_the_case_median),
        DPK_TEST(cycles_need_a_positive_pace),
        DPK_TEST(slow_rounds_are_set_aside),
        DPK_TEST(slow_reference_is_the_lower_quartile),
        DPK_TEST(slow_reference_is_weighted_by_samples),
        DPK_TEST(slow_reference_needs_enough_samples),
        DPK_TEST(slow_rule_needs_five_steady_rounds),
        DPK_TEST(slow_rule_does_nothing_without_rounds_or_limit),
        DPK_TEST(slow_marks_given_rounds),
        DPK_TEST(witness_marks_slow_samples),
        DPK_TEST(kept_ticks_keep_their_order),
        DPK_TEST(reject_names),
        DPK_TEST(alone_batches_are_found_and_marked),
        DPK_TEST(round_summary_weighs_rounds_alike),
};

DPK_TEST_MAIN(cases)
