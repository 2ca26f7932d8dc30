/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compare.h - before/after comparison of two dpk-bench results files.
 *
 * Results are matched on suite, case, parameters and placement; the repeats of a case are
 * pooled. Per matched case the figure is the ratio new/base of the median ticks per unit.
 *
 * With raw samples on both sides (runs made with --raw) the p-value comes from a
 * two-sided Mann-Whitney U test (normal approximation, tie and continuity corrections,
 * as scipy.stats.mannwhitneyu's asymptotic method), and the 95% confidence interval of
 * the ratio of medians from a percentile bootstrap: each replicate draws the median of a
 * resample of each side exactly, as the order statistic F^-1(B) with B ~ Beta(k, n+1-k),
 * k = ceil(n/2), from a fixed seed per case so the output is reproducible. Without raw
 * samples no test is possible; the verdict then rests on the 95% intervals of the medians
 * stored in the files (ratio interval [new_lo/base_hi, new_hi/base_lo], "significant"
 * when the two intervals do not overlap), and the case is labelled so.
 *
 * Run-to-run drift: samples within one run are not independent of the run (frequency,
 * page and cache placement, neighbours), so a sample-level test judges only the noise
 * within a run and can call drift between two runs a change. When both files hold at
 * least DPK_CMP_MIN_REPEATS repeats of a case (--repeat N), the case is judged on its
 * repeats instead: the figure is the median of the repeats' medians, the p-value a
 * Mann-Whitney U test on the repeats' medians, and the interval a bootstrap of those,
 * so drift between runs widens it as it should. With three repeats a side no test can
 * reach p < 0.05 (the smallest two-sided p is 0.1); five a side can.
 *
 * Verdict: faster when significant (p < 0.05) and the whole interval is below
 * 1 - noise; slower when significant and the whole interval is above 1 + noise; within
 * noise otherwise. The gate (--fail-above) fails on a case that is significant with the
 * interval's lower bound above 1 + fail_above.
 *
 * Nothing here keeps global state; a report may be built on any thread.
 */
#ifndef DPK_BENCH_COMPARE_H
#define DPK_BENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results.h"

#define DPK_CMP_SCHEMA         "dpkit-bench-compare"
#define DPK_CMP_SCHEMA_VERSION 1
#define DPK_CMP_ALPHA          0.05
#define DPK_CMP_RESAMPLES      2000
#define DPK_CMP_SEED           0x6470b17ec0de5eedull
/** Fewer kept samples than this on a side leave no interval to judge by. */
#define DPK_CMP_MIN_SAMPLES 6
/** With at least this many repeats on both sides a case is judged on its repeats. */
#define DPK_CMP_MIN_REPEATS 3
/** Repeats of one case a side keeps for that. */
#define DPK_CMP_REPEATS_MAX 64
/** In cycles, files whose core-clock multiply (clock.mul_cycles) differs by more than this
 *  fraction get a warning: their figures in cycles are then off from each other by it. */
#define DPK_CMP_MUL_CYCLES_DIFFER 0.02

enum dpk_cmp_verdict { DPK_CMP_WITHIN_NOISE, DPK_CMP_FASTER, DPK_CMP_SLOWER, DPK_CMP_NO_VERDICT };

enum dpk_cmp_method {
	DPK_CMP_TEST,    /**< Mann-Whitney U + bootstrap CI on raw samples */
	DPK_CMP_CI_ONLY, /**< no raw samples: the stored median intervals */
	DPK_CMP_TOO_FEW, /**< too few samples on a side to judge */
	DPK_CMP_REPEATS, /**< Mann-Whitney U + bootstrap CI on the repeats' medians */
	DPK_CMP_PAIRED,  /**< dpk-bench ab: the sign-test interval of paired rounds' ratios */
};

/** "faster", "slower", "within noise", "no verdict". */
const char *dpk_cmp_verdict_name(enum dpk_cmp_verdict v);

/** "mann-whitney+bootstrap", "median-ci", "too-few-samples", "repeat-medians",
 *  "paired-rounds". */
const char *dpk_cmp_method_name(enum dpk_cmp_method m);

/** One side of a matched case, repeats pooled. */
struct dpk_cmp_side {
	const struct dpk_res_entry *first; /**< the first result of the case in the file */
	unsigned repeats;                  /**< results pooled */
	double p50;                        /**< median ticks (or core cycles) per unit */
	double lo, hi;                     /**< its 95% confidence interval */
	double n;                          /**< samples (raw, or kept per the file) */
	double *raw;                       /**< pooled raw samples, sorted; NULL without */
	size_t nraw;
	double rep[DPK_CMP_REPEATS_MAX]; /**< each repeat's median, sorted */
	unsigned nrep;
};

/** A matched case. */
struct dpk_cmp_case {
	struct dpk_cmp_side base, new;
	double ratio, lo, hi; /**< new/base and its 95% confidence interval */
	double p;             /**< two-sided p-value; NaN when no test ran */
	bool significant;
	enum dpk_cmp_method method;
	enum dpk_cmp_verdict verdict;
	bool gate_failed; /**< slower by more than the --fail-above threshold */
	char note[192];   /**< why no test ran, a unit change, ... ("" if nothing) */
};

/** A case that is in both files but could not be compared, and why. */
struct dpk_cmp_skip {
	const char *id;
	char reason[192];
};

#define DPK_CMP_WARN_MAX 16

struct dpk_cmp_options {
	double noise;                /**< relative threshold, e.g. 0.02 */
	double fail_above;           /**< relative gate, e.g. 0.05; negative: no gate */
	const char *const *patterns; /**< globs selecting cases; none: all */
	unsigned npatterns;
	unsigned resamples; /**< bootstrap replicates; 0: DPK_CMP_RESAMPLES */
	uint64_t seed;      /**< 0: DPK_CMP_SEED */
	bool cycles;        /**< compare the figures in core cycles (cycles, raw_cycles): cases
	                         without them on a side are skipped */
};

struct dpk_cmp_report {
	struct dpk_cmp_case *c;
	size_t n;
	const char **only_base, **only_new; /**< ids only one side has (selected ones) */
	size_t n_only_base, n_only_new;
	struct dpk_cmp_skip *skip;
	size_t nskip;
	char warn[DPK_CMP_WARN_MAX][256]; /**< the runs differ in environment */
	unsigned nwarn;
	double geomean; /**< of the ratios of compared cases; NaN when none */
	size_t ngeomean;
	unsigned faster, slower, within;
	unsigned gate_failures;
	double noise, fail_above;
	unsigned resamples;
	bool cycles; /**< the figures are core cycles, not ticks */
};

/**
 * Compare @p base with @p new. The report points into both; keep them until
 * dpk_cmp_report_free().
 * @retval 0 compared (some cases may still be skipped)
 * @retval -EINVAL a pattern selects nothing in either file, or no case is in both; @p err
 *         says which
 * @retval -ENOMEM out of memory
 */
int dpk_compare(const struct dpk_results *base, const struct dpk_results *new,
                const struct dpk_cmp_options *o, struct dpk_cmp_report *out, char *err,
                size_t errlen);

void dpk_cmp_report_free(struct dpk_cmp_report *r);

/** Print the comparison as a table for people. */
void dpk_cmp_print(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                   const struct dpk_cmp_report *r);

/** Write the comparison as JSON (schema dpkit-bench-compare v1). 0 or -EIO. */
int dpk_cmp_write_json(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                       const struct dpk_cmp_report *r, int exit_status);

/* Statistics, exposed for the tests. */

/**
 * Two-sided p-value of the Mann-Whitney U test of @p a against @p b, both sorted
 * ascending: normal approximation with tie correction and continuity correction. 1 when
 * every value is equal; NaN when a side is empty. *u_out (if not NULL) receives U of @p a.
 */
double dpk_cmp_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u_out);

/**
 * Percentile bootstrap interval (level @p conf, e.g. 0.95) of median(@p b) / median(@p a),
 * both sorted ascending and positive, from @p resamples replicates seeded by @p seed.
 * @retval 0 / -EINVAL (empty side, zero median) / -ENOMEM
 */
int dpk_cmp_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb,
                            unsigned resamples, uint64_t seed, double conf, double *lo, double *hi);

/** Median of sorted @p v (linear interpolation); NaN when n == 0. */
double dpk_cmp_median(const double *v, size_t n);

#endif /* DPK_BENCH_COMPARE_H */
