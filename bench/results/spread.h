/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spread.h - how well several runs of the same cases agree, from results files read back.
 *
 * A run is one repeat of one file: a file of five repeats and five files of one repeat both
 * give five runs. For every case that ran ok in every run (its first ok result in the first
 * run names it), the figure of a run is the case's median there, in ticks, in core cycles or
 * over the case's own floor, and the case's spread is (largest - smallest) / smallest over
 * the runs. Sets of k of the runs ask the same of every k-subset: in how many does every
 * case stay under the limit. A multi-lcore case's run whose floor (its cache-line round
 * trip) lies off the median of the case's floors over the runs beyond noise
 * (dpk_cmp_floor_off()) ran where the host had moved the lcores: it is marked, and in
 * ticks the spread leaves it out (while two or more runs remain), as its figure says where the
 * lcores were, not how the code does.
 *
 * Nothing here keeps global state; a spread may be computed on any thread.
 */
#ifndef DPK_BENCH_SPREAD_H
#define DPK_BENCH_SPREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "compare.h"
#include "results.h"
#include "stats.h"

/** The most runs a spread takes. */
#define DPK_SPREAD_RUNS_MAX 512
/** The most sets of k runs dpk_spread_sets() goes through. */
#define DPK_SPREAD_SETS_MAX 1000000.0
/** The most regimes a case's pooled rounds are cut into. */
#define DPK_SPREAD_REGIMES_MAX DPK_STATS_CLUSTERS_MAX
/** A run's median in a regime needs this many of its rounds there. */
#define DPK_SPREAD_REGIME_ROUNDS 3

/** One run: a file and one of its repeats. */
struct dpk_spread_run {
	const struct dpk_results *file;
	unsigned repeat;
};

/** What to take from the files. */
struct dpk_spread_options {
	double limit;                /**< the spread a case must stay under, e.g. 0.05 */
	bool cycles;                 /**< the medians in core cycles, not ticks */
	bool per_floor;              /**< the medians over the case's own floor, not ticks */
	const char *const *patterns; /**< globs selecting cases (dpk_results_selected); none: all */
	unsigned npatterns;
};

/** The spread of the cases that ran ok in every run. Matrices have a row of nruns per case. */
struct dpk_spread {
	struct dpk_spread_run *runs; /**< every distinct repeat of every file, in file order */
	unsigned nruns;
	size_t ncases;
	const char **id;   /**< [ncases] the case ids, in the first run's order */
	double *p50;       /**< [ncases * nruns] each run's median */
	bool *slow_only;   /**< [ncases * nruns] most of that median's kept samples were slow by
	                        its run's speed witness */
	double *slices;    /**< [ncases * nruns] the slices that median's samples came from; NaN
	                        where the file does not say */
	double *floor;     /**< [ncases * nruns] the case's floor in that run, ticks; NaN: none */
	bool *moved;       /**< [ncases * nruns] that floor lies off the case's median floor */
	unsigned *nmoved;  /**< [ncases] its runs marked moved */
	size_t with_moved; /**< cases with a run marked moved */
	double *spread;    /**< [ncases] (largest - smallest) / smallest, over the runs counted */
	unsigned *flagged; /**< [nruns] the medians of the run marked slow_only */
	size_t over;       /**< cases at or over the limit */
	size_t partial;    /**< selected cases left out: not ok (or without cycles) in every run */
	size_t worst;      /**< the case with the largest spread (the first on a tie) */
	double median;     /**< the median of the spreads */
	double limit;
	bool cycles, per_floor;
	/* Regimes (not in cycles): a multi-lcore case's rounds over their floors, pooled over
	 * the runs and cut as dpk_stats_regimes() cuts one run's; per regime, each run's median
	 * of its rounds there, in the spread's unit, and those medians' spread over the runs
	 * counted. A run's median is steady where the share of its rounds in each regime is;
	 * each regime's figure can be steady where that share is not. */
	unsigned *nregimes;      /**< [ncases] regimes found; 0: the rounds do not fall apart */
	double *regime_p50;      /**< [ncases * DPK_SPREAD_REGIMES_MAX * nruns] run q's median in
	                              regime k at [(c * MAX + k) * nruns + q]; NaN: fewer than
	                              DPK_SPREAD_REGIME_ROUNDS of its rounds there */
	unsigned *regime_rounds; /**< [the same] run q's rounds in regime k */
	double *regime_spread;   /**< [ncases * DPK_SPREAD_REGIMES_MAX] NaN: under two runs */
	size_t with_regimes;     /**< cases with regimes */
	size_t regimes_over;     /**< of those, the cases with a regime at or over the limit */
};

/** Whether run @p q of case @p c counts in its spread: not when its floor moved, in ticks,
 *  while two or more of the case's runs did not. */
bool dpk_spread_counts(const struct dpk_spread *s, size_t c, unsigned q);

/**
 * The spread of the @p nfiles results files @p files under @p o, into @p s (free it with
 * dpk_spread_free() whatever the result). The files must outlive @p s.
 * @retval 0 computed
 * @retval -EINVAL fewer than two runs; @p err says how many there are
 * @retval -E2BIG more than DPK_SPREAD_RUNS_MAX runs; @p err says so
 * @retval -ENOENT no selected case ran ok (with figures in cycles) in every run; @p err says so
 * @retval -ENOMEM out of memory
 */
int dpk_spread_compute(const struct dpk_results *files, unsigned nfiles,
                       const struct dpk_spread_options *o, struct dpk_spread *s, char *err,
                       size_t errlen);

void dpk_spread_free(struct dpk_spread *s);

/** The median of row @p c's floors over the runs, how many runs had one in @p nf; NaN when
 *  none did. (spread.c; for spread_regimes.c) */
double dpk__spread_floor_ref(const struct dpk_spread *s, size_t c, unsigned *nf);

/** Cut the pooled rounds of row @p c (its result in each run: @p ent) into regimes, into
 *  @p s; its nmoved must be set. 0 or -ENOMEM. (spread_regimes.c; for spread.c) */
int dpk__spread_regimes(struct dpk_spread *s, size_t c, const struct dpk_res_entry *const *ent);

/** The number of sets of @p k among @p n, as a double (it only bounds the work). */
double dpk_spread_choose(unsigned n, unsigned k);

/** Every set of k runs: how many keep every case under the limit, and per case how many it
 *  breaks. */
struct dpk_spread_sets {
	unsigned k;
	size_t good, total;
	size_t *miss; /**< [ncases] the sets in which the case is at or over the limit */
};

/**
 * Go through every set of @p k of the runs of @p s (in lexicographic order) into @p out
 * (free its miss with free()).
 * @retval 0 counted
 * @retval -EINVAL @p k below 2 or above the runs
 * @retval -E2BIG more than DPK_SPREAD_SETS_MAX sets
 * @retval -ENOMEM out of memory
 */
int dpk_spread_sets(const struct dpk_spread *s, unsigned k, struct dpk_spread_sets *out);

#endif /* DPK_BENCH_SPREAD_H */
