/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ab.h - the verdicts of dpk-bench ab: two builds measured in one session, round by round
 * in turn on the same lcores, their rounds paired.
 *
 * Round q of a case ran in BASE and in NEW one after the other (in a random order per
 * pair), so what the machine did then (drift, a slow phase, the host moving the vCPUs)
 * fell on both alike. The unit of replication is the pair of rounds: each gives the ratio
 * new / base of the two rounds' medians: in core cycles where both rounds have them
 * (single-lcore cases), in ticks otherwise. A pair is of the two rounds' kept samples,
 * which the figures rest on; but a host slow for minutes can leave few rounds any kept
 * sample (docs/verdicts.md, "Paired rounds as run"), and then (dpk_bench_pair_as_run():
 * kept pairs fewer than DPK_AB_MIN_PAIRS or than half the pairs as run) a one-lcore case
 * is paired on its rounds as the machine ran them, the samples the speed witness set
 * aside as slow included (whole_p50 in the files): a slow phase falls on both rounds of a
 * pair. A pair as run whose
 * two witness medians lie apart (dpk_bench_witness_apart()) met the machine at two speeds
 * and is dropped. Pairs where either round was left out (no sample, or set aside for its
 * floor) are dropped, and so are pairs of a multi-lcore case whose two floors lie more
 * than DPK_CMP_FLOOR_MOVED apart (the host moved the lcores between the two rounds); a
 * multi-lcore pair's ratio is of ticks, its floors only checked. The figure is the median of
 * the paired ratios and its 95% interval the sign-test interval of that median (order
 * statistics of the binomial, dpk_stats_median_ci_ranks()), which needs no assumption on
 * the ratios' distribution.
 *
 * Pairing cannot remove what stays the same within a program's run and differs between
 * two (where its heap and its stack's frames fell, say): two runs of one build, paired,
 * differ by a ratio whose log has a standard deviation of about DPK_AB_PROCESS_SIGMA_*
 * (docs/verdicts.md, "ab, A/A"). The interval is widened by that term, in log space, each
 * half-width h becoming sqrt(h^2 + (1.96 sigma)^2), as compare's is for two runs.
 *
 * Nor can it remove what one pair of programs drew and another would not: ab runs each
 * build as several processes, a pair at a time (a "pair of processes": one of each build,
 * started afresh, each given time / processes per case), and pools their round pairs.
 * A case's figure and interval are over the pairs of every pair of processes; a verdict
 * further needs the median ratio of each pair of processes beyond the noise on the same
 * side (docs/verdicts.md, "Pairs of processes").
 *
 * Verdict: slower when the whole interval is above 1 + noise, faster when it is below
 * 1 - noise, and so each pair of processes' median ratio; within noise otherwise; no
 * verdict with fewer than DPK_AB_MIN_PAIRS pairs, nor where either build's rounds of a
 * multi-lcore case fell into regimes apart (a pair case that settles into one of several
 * states for a round: a ratio of two such rounds says which states they drew, not which
 * build is faster) unless every pair of rounds has its ratio beyond the noise on one
 * side. The gate fails on a case whose interval's lower bound, and each pair
 * of processes' median ratio, are above 1 + fail_above.
 */
#ifndef DPK_BENCH_AB_H
#define DPK_BENCH_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "compare.h"
#include "results.h"

#define DPK_AB_SCHEMA         "dpkit-bench-ab"
#define DPK_AB_SCHEMA_VERSION 1
/** Fewer paired rounds than this leave a case without a verdict (the sign-test interval
 *  needs six). */
#define DPK_AB_MIN_PAIRS 6
/** The default noise threshold. */
#define DPK_AB_NOISE 0.01
/** The between-program sigma by unit: core cycles, and ticks (over the floor or not). */
#define DPK_AB_PROCESS_SIGMA_CYCLES 0.005
#define DPK_AB_PROCESS_SIGMA_TICKS  0.044
/** Pairs of processes: the default, and the most. */
#define DPK_AB_PROCESSES     2
#define DPK_AB_PROCESSES_MAX 8

/** A case both builds ran. */
struct dpk_ab_case {
	const struct dpk_res_entry *base, *new; /**< the first pair of processes' */
	const struct dpk_res_entry *gbase[DPK_AB_PROCESSES_MAX], *gnew[DPK_AB_PROCESSES_MAX];
	size_t ngen;                      /**< pairs of processes that ran the case */
	double gen_p50[DPK_AB_PROCESSES_MAX]; /**< each pair of processes' median ratio */
	size_t gen_pairs[DPK_AB_PROCESSES_MAX];
	double base_p50, new_p50;         /**< geometric means of the processes' p50s */
	size_t pairs;       /**< paired rounds both kept */
	double *ratio;      /**< the pairs' ratios, in round order (NaN: a dropped pair) */
	size_t nratio;      /**< rounds paired, dropped ones included */
	double p50, lo, hi; /**< median paired ratio and its 95% interval */
	bool floors;        /**< both have round floors: the ratios are of ticks, and a pair
	                         whose floors lie apart is dropped */
	bool cycles;        /**< the ratios are of medians in core cycles */
	bool whole;         /**< of the rounds as run, slow samples included (one lcore, when
	                         too few rounds kept samples) */
	size_t speed_apart; /**< pairs dropped: the two rounds met the machine at different
	                         speeds (dpk_bench_witness_apart()) */
	bool has_verdict;   /**< enough pairs to judge */
	enum dpk_cmp_verdict verdict;
	bool gate_failed;
	bool unreplicated; /**< beyond the noise over all pairs, not in each pair of processes */
	char note[160];    /**< why no verdict, or "" */
};

struct dpk_ab_options {
	double noise;                /**< e.g. 0.01 */
	double fail_above;           /**< gate; negative: none */
	double process_sigma;        /**< between-program term; negative: by unit */
	const char *const *patterns; /**< globs selecting cases; none: all */
	unsigned npatterns;
};

struct dpk_ab_report {
	struct dpk_ab_case *c;
	size_t n;
	const char **only_base, **only_new; /**< ids one build has and the other not */
	size_t n_only_base, n_only_new;
	unsigned faster, slower, within, none;
	unsigned gate_failures;
	double geomean; /**< of the judged cases' ratios; NaN when none */
	double noise, fail_above;
	double process_sigma; /**< as given; negative: by unit */
	size_t processes;     /**< pairs of processes */
	unsigned unreplicated; /**< cases one pair of processes judged, another not */
};

/**
 * Pair the rounds of the cases in both @p base and @p new (one session of dpk-bench ab:
 * the same rounds of the same sets) and judge them. The report points into both files.
 * @retval 0 / -EINVAL (no case in both; @p err says so) / -ENOMEM
 */
int dpk_ab_compare(const struct dpk_results *base, const struct dpk_results *new,
                   const struct dpk_ab_options *o, struct dpk_ab_report *out, char *err,
                   size_t errlen);

/**
 * As dpk_ab_compare(), over @p n pairs of processes: base[g] and new[g] ran together, and
 * a case is judged when every pair has it (1 <= n <= DPK_AB_PROCESSES_MAX, else -EINVAL).
 */
int dpk_ab_compare_processes(const struct dpk_results *base, const struct dpk_results *new,
                             size_t n, const struct dpk_ab_options *o,
                             struct dpk_ab_report *out, char *err, size_t errlen);

void dpk_ab_report_free(struct dpk_ab_report *r);

/** The report as a table for people, with the line that says what the verdicts rest on. */
void dpk_ab_print(FILE *f, const char *base_name, const char *new_name,
                  const struct dpk_ab_report *r);

/** The report as JSON (schema dpkit-bench-ab v1): both files' paths, every case with its
 *  pairs. 0 or -EIO. */
int dpk_ab_write_json(FILE *f, const struct dpk_results *base, const struct dpk_results *new,
                      const struct dpk_ab_report *r, int exit_status);

/** The report as a comparison report (for the HTML page): the cases point into @p ab's
 *  files; free with dpk_cmp_report_free(). 0 or -ENOMEM. */
int dpk_ab_to_cmp(const struct dpk_ab_report *ab, struct dpk_cmp_report *out);

#endif /* DPK_BENCH_AB_H */
