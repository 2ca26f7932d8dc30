/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compare.h - before/after comparison of two dpk-bench results files.
 *
 * Results are matched on suite, case, parameters and placement; the repeats of a case are
 * pooled. Per matched case the figure is the ratio new/base of the median per unit, and
 * what it is measured in is the case's: core cycles for single-lcore cases where both
 * files have them (the host's core clock moves a case's ticks from run to run, not its
 * cycles), ticks otherwise, multi-lcore cases included: within one placement the floor
 * (the cache-line round trip beside a case's rounds) moves between runs by more than the
 * case does, so a figure over it gave far more false A/A verdicts than ticks
 * (docs/verdicts.md, "Pair cases between runs"); a floor that moved beyond noise
 * (dpk_cmp_floors_apart()) says the placement changed instead. --unit ticks,
 * cycles or floor (each file's rounds over that file's median round floor) forces one.
 *
 * What a verdict rests on, best first:
 *   repeats  both files hold at least DPK_CMP_MIN_REPEATS repeats: a Mann-Whitney U test
 *            and a bootstrap interval of the ratio of the repeats' medians, so drift
 *            between runs widens the interval as it should;
 *   rounds   both files hold the case's rounds (at least DPK_CMP_MIN_ROUNDS kept): the
 *            same on the rounds' medians, which are spread over each run and each set up
 *            afresh, so drift within a run widens it; drift between the two runs cannot
 *            be seen in one run, so the interval is widened by a between-run term (the
 *            run sigma, in log space: half-width = sqrt(h^2 + (1.96 sigma)^2));
 *   none     a file without rounds or repeats (its interval covers one run's samples, not
 *            what moves between runs), too few samples, or a multi-lcore case whose floor
 *            moved beyond noise between the files, in whatever unit (the host put the
 *            lcores elsewhere: the placement changed, not necessarily the code).
 * Where the statistic can be computed the ratio and interval are given all the same.
 * Intervals include the counter's resolution: a median over batches of n operations is
 * known to a step of the counter over n at best.
 *
 * Verdict: faster when significant (p < 0.05) and the whole interval is below 1 - noise;
 * slower when significant and the whole interval is above 1 + noise; within noise
 * otherwise; no verdict for the "none" cases. The gate (--fail-above) fails on a case that
 * is significant with the interval's lower bound above 1 + fail_above.
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
#include "stats.h"

#define DPK_CMP_SCHEMA         "dpkit-bench-compare"
#define DPK_CMP_SCHEMA_VERSION 1
#define DPK_CMP_ALPHA          0.05
#define DPK_CMP_RESAMPLES      2000
#define DPK_CMP_SEED           0x6470b17ec0de5eedull
/** Fewer kept samples than this on a side leave no interval to judge by. */
#define DPK_CMP_MIN_SAMPLES 6
/** With at least this many repeats on both sides a case is judged on its repeats. */
#define DPK_CMP_MIN_REPEATS 3
/** With at least this many kept rounds on both sides a case is judged on its rounds. */
#define DPK_CMP_MIN_ROUNDS 10
/** A case's own floor that differs by more than this fraction between the files: the host
 *  put the lcores elsewhere, and the case gets no verdict. */
#define DPK_CMP_FLOOR_MOVED 0.5
/** Floors with their rounds' floors beside them moved by less than that but beyond noise
 *  too: a Mann-Whitney test of the two sets of round floors under this p-value, and
 *  medians more than DPK_STATS_FLOOR_STEP apart (stats.h). */
#define DPK_CMP_FLOOR_ALPHA 0.01
/** What moves between two runs and no interval from one run can see, as the standard
 *  deviation of the log of an A/A ratio, by the unit compared (docs/verdicts.md has the
 *  runs these come from); --run-sigma sets another. */
#define DPK_CMP_RUN_SIGMA_CYCLES 0.008
#define DPK_CMP_RUN_SIGMA_TICKS  0.044
/** Outside core cycles, a case whose rounds spread wide drifts more between runs than the
 *  constant: the mix of regimes a pair case's rounds fall into differs from process to
 *  process. Each side then adds DPK_CMP_RUN_SIGMA_SPREAD times the interquartile range of
 *  the log of its rounds' medians, and the run sigma is the larger of the constant and
 *  sqrt(side^2 + side^2) (docs/verdicts.md, "Pair cases between runs"). */
#define DPK_CMP_RUN_SIGMA_SPREAD 0.3
/** Repeats of one case a side keeps for that. */
#define DPK_CMP_REPEATS_MAX 64
/** In cycles, files whose core-clock multiply (clock.mul_cycles) differs by more than this
 *  fraction get a warning: their figures in cycles are then off from each other by it. */
#define DPK_CMP_MUL_CYCLES_DIFFER 0.02

enum dpk_cmp_verdict { DPK_CMP_WITHIN_NOISE, DPK_CMP_FASTER, DPK_CMP_SLOWER, DPK_CMP_NO_VERDICT };

enum dpk_cmp_method {
	DPK_CMP_TEST,      /**< Mann-Whitney U + bootstrap CI on raw samples */
	DPK_CMP_CI_ONLY,   /**< no raw samples: the stored median intervals */
	DPK_CMP_TOO_FEW,   /**< too few samples on a side to judge */
	DPK_CMP_REPEATS,   /**< Mann-Whitney U + bootstrap CI on the repeats' medians */
	DPK_CMP_PAIRED,    /**< dpk-bench ab: the sign-test interval of paired rounds' ratios */
	DPK_CMP_ROUNDS,    /**< Mann-Whitney U + bootstrap CI on the rounds' medians */
	DPK_CMP_PLACEMENT, /**< the floor moved between the files: no verdict */
};

/** What a case's figures are measured in. */
enum dpk_cmp_unit {
	DPK_CMP_TICKS,     /**< TSC ticks per unit */
	DPK_CMP_CYCLES,    /**< core cycles per unit */
	DPK_CMP_PER_FLOOR, /**< ticks per unit over the case's own floor */
};

/** How compare picks each case's unit. */
enum dpk_cmp_unit_choice {
	DPK_CMP_UNIT_AUTO,   /**< cycles where both have them, else ticks */
	DPK_CMP_UNIT_TICKS,  /**< ticks for every case */
	DPK_CMP_UNIT_CYCLES, /**< cycles, and cases without them skipped */
	DPK_CMP_UNIT_FLOOR,  /**< ticks over each file's floor, and cases without one skipped */
};

/** "faster", "slower", "within noise", "no verdict". */
const char *dpk_cmp_verdict_name(enum dpk_cmp_verdict v);

/** "mann-whitney+bootstrap", "median-ci", "too-few-samples", "repeat-medians",
 *  "paired-rounds", "round-medians", "placement-changed". */
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
	double *rounds; /**< the kept rounds' medians of every repeat, sorted; NULL: none */
	size_t nrounds;
	double floor;   /**< the median of its repeats' own floors, ticks; NaN: none */
	double *floors; /**< the kept rounds' floors of every repeat, sorted (nfloors; 0: none) */
	size_t nfloors;
	double resolution; /**< a counter step over the smallest batch, as a share of p50 */
};

/** A matched case. */
struct dpk_cmp_case {
	struct dpk_cmp_side base, new;
	enum dpk_cmp_unit unit;
	double ratio, lo, hi; /**< new/base and its 95% confidence interval */
	double p;             /**< two-sided p-value; NaN when no test ran */
	bool significant;
	enum dpk_cmp_method method;
	enum dpk_cmp_verdict verdict;
	bool gate_failed; /**< slower by more than the --fail-above threshold */
	char note[192];   /**< why no test ran, a unit change, ... ("" if nothing) */
};

/** What @p c was judged on, in a word or two for a table: "rounds", "repeats", "pairs",
 * "floor moved", "too few", "one run". */
const char *dpk_cmp_basis(const struct dpk_cmp_case *c);

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
	enum dpk_cmp_unit_choice unit;
	double run_sigma; /**< the between-run term (compare.h); negative: by unit */
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
	unsigned faster, slower, within, none;
	unsigned by_method[DPK_CMP_PLACEMENT + 1]; /**< cases judged by each method */
	unsigned by_unit[DPK_CMP_PER_FLOOR + 1];   /**< cases measured in each unit */
	unsigned gate_failures;
	double noise, fail_above;
	unsigned resamples;
	enum dpk_cmp_unit_choice unit;
	bool cycles;      /**< every case is in core cycles (--unit cycles) */
	double run_sigma; /**< as given (negative: by unit) */
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

/**
 * Whether two floors lie apart beyond noise: @p fa and @p fb (ticks) are the case's floor
 * in each file, @p a and @p b (sorted, @p na and @p nb of them) the floors of its kept
 * rounds there. With DPK_CMP_MIN_ROUNDS round floors on each side: the two sets differ
 * (Mann-Whitney, p < DPK_CMP_FLOOR_ALPHA) and their medians by more than
 * DPK_STATS_FLOOR_STEP; the floors alone otherwise: more than DPK_CMP_FLOOR_MOVED apart.
 * False when either floor is missing (not > 0).
 */
bool dpk_cmp_floors_apart(double fa, const double *a, size_t na, double fb, const double *b,
                          size_t nb);

/**
 * Whether a run's floor lies off @p m (ticks, the median floor of several runs) beyond
 * noise: @p f is the run's floor, @p v (sorted, @p n) its kept rounds' floors. With
 * DPK_CMP_MIN_ROUNDS of them: their median more than DPK_STATS_FLOOR_STEP off @p m and a
 * sign test of them against @p m under DPK_CMP_FLOOR_ALPHA; @p f alone otherwise: more
 * than DPK_CMP_FLOOR_MOVED off. False when @p f or @p m is missing (not > 0).
 */
bool dpk_cmp_floor_off(double f, const double *v, size_t n, double m);

/**
 * Append the floors of @p e's kept rounds (a finite median and a floor) to @p out, which
 * has room for e->rounds_run more; returns how many. 0 for a result without round floors.
 */
size_t dpk_cmp_round_floors(const struct dpk_res_entry *e, double *out);

/** Median of sorted @p v (linear interpolation); NaN when n == 0. */
double dpk_cmp_median(const double *v, size_t n);

/** FNV-1a of @p s: every case gets its own bootstrap stream. */
uint64_t dpk_cmp_hash(const char *s);

/** "ticks", "cycles", "per floor". */
const char *dpk_cmp_unit_name(enum dpk_cmp_unit u);

/* Shared by the comparison's files (compare.c, compare_env.c, compare_out.c). */
void dpk_cmp_warn(struct dpk_cmp_report *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
void dpk_cmp_env_warnings(struct dpk_cmp_report *r, const struct dpk_results *a,
                          const struct dpk_results *b);

#endif /* DPK_BENCH_COMPARE_H */
