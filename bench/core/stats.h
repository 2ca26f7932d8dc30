/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stats.h - statistics over benchmark samples: order statistics, moments, a confidence
 * interval for the median, and the rejection of spoiled samples.
 *
 * A sample is the cost of one operation averaged over a timed batch, in TSC ticks, with
 * what the harness saw around it (CPU at the start and end, involuntary context switches
 * during the batch). Rejection happens here, so every suite gets the same rules.
 */
#ifndef DPK_BENCH_STATS_H
#define DPK_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Why a sample was dropped. */
enum dpk_reject {
	DPK_REJECT_NONE = 0,
	DPK_REJECT_MIGRATION,  /**< the CPU at the end of the batch differs from the start */
	DPK_REJECT_CTX_SWITCH, /**< the thread was preempted (involuntary switch) in the batch */
	DPK_REJECT_GAP,        /**< far slower than the run's median: an interrupt or steal */
	DPK_REJECT_SLOW,       /**< the machine was slow: the witness said so next to the batch,
	                            or its round's median is over the slow limit (see below) */
	DPK_REJECT_FLOOR,      /**< multi-lcore: its round's cache-line round trip was off the
	                            case's, the host had moved or crowded the lcores */
	DPK_REJECT_ALONE,      /**< multi-lcore, several roles counted: no other counted role
	                            was in a batch meanwhile (its CPU was taken from it), so the
	                            batch timed the block without the contention it is about */
	DPK_REJECT_COUNT
};

/** Short name of a rejection reason: "migration", "ctx_switch", "gap", "slow", "floor",
 *  "alone". */
const char *dpk_reject_name(enum dpk_reject r);

/** One timed batch. */
struct dpk_sample {
	double ticks_per_op; /**< batch ticks (timer overhead removed) / operations */
	uint32_t cpu_begin;  /**< CPU when the batch started */
	uint32_t cpu_end;    /**< CPU when it ended */
	uint32_t ivcsw;      /**< involuntary context switches during the batch (one lcore:
	                          1 when dpk_stats_give_switches() gave it one) */
	uint16_t round;      /**< the round (time slice) the batch ran in */
	uint8_t reject;      /**< enum dpk_reject, filled by dpk_stats_reject() */
	float wit;           /**< the slower speed-witness timing next to the batch (ticks per
	                          pair, witness.h); 0 when none was taken */
	float clk;           /**< the core clock timing after the batch (ticks for a chain,
	                          coreclock.h); 0 when none was taken */
};

/** A gap is a sample above this many times the median of the other samples. */
#define DPK_GAP_FACTOR 10.0

/** Most roles dpk_stats_alone() compares (as many as a multi-lcore case can have). */
#define DPK_STATS_ROLES_MAX 64

/**
 * Mark spoiled samples in @p s (n of them): migration first, then context switches, then
 * gaps (a sample more than DPK_GAP_FACTOR times the median of the samples not yet
 * rejected). When @p check_ctx_switch is false, ivcsw is ignored (multi-lcore cases on
 * oversubscribed CPUs are preempted by design). Counts per reason go to
 * @p counts[DPK_REJECT_COUNT] (counts[0] = samples kept; may be NULL). Returns the number
 * kept. Each sample's previous mark is cleared first, so a second call gives the same marks.
 *
 * The gap rule runs once: the median is taken over the samples that survived the first two
 * rules and is not recomputed after gaps are dropped, so a run with two modes far apart
 * cannot be eaten away one threshold at a time. A median of zero or less disables it, as
 * does running out of memory for the median of more than 256 samples.
 */
size_t dpk_stats_reject(struct dpk_sample *s, size_t n, bool check_ctx_switch,
                        size_t counts[DPK_REJECT_COUNT]);

/** A batch holds a context switch only if it took this many times its set's median: the
 * switch made it wait out another thread's run and the switch itself. */
#define DPK_SWITCH_FACTOR 1.5

/**
 * Give @p switches involuntary context switches, counted over a stretch of batches instead
 * of around each, to the batches they most likely landed in: in @p k sets of @p n samples
 * each (the variants of an interleaved group; k = 1 for one case), the samples with the
 * largest ticks_per_op against their own set's median, one switch each (ivcsw = 1), as long
 * as such a sample took over DPK_SWITCH_FACTOR times that median. Switches left over landed
 * between batches (in the harness's own bookkeeping) and mark nothing. Returns the samples
 * marked; 0 when out of memory.
 */
size_t dpk_stats_give_switches(struct dpk_sample *const *sets, unsigned k, size_t n,
                               uint32_t switches);

/** A round's median counts towards the reference only with this many kept samples. */
#define DPK_SLOW_MIN_SAMPLES 16

/** The reference round: sorted by median, the first at which the steady rounds so far hold
 * at least 1 / DPK_SLOW_REF_RANK of the steady rounds' kept samples (4: the lower
 * quartile). */
#define DPK_SLOW_REF_RANK 4

/** The rule sets nothing aside with fewer steady rounds than this. */
#define DPK_SLOW_MIN_ROUNDS 5

/**
 * The slow-round rule, applied after dpk_stats_reject() (and the speed witness's rule,
 * which sets aside the samples taken while the whole machine was slow). A case's samples
 * come in rounds: short time slices spread over a longer stretch of the run (the round
 * field, rounds stored one after another). On a shared host a case's own cost also moves
 * from round to round in ways no reference workload sees (a neighbour on the physical core
 * competing for what this case needs and the witness does not), and a median over every
 * round lands on whichever state dominated this time. So: take the median of each round's
 * kept samples; the rounds with DPK_SLOW_MIN_SAMPLES kept are steady; the reference is
 * their lower quartile weighted by kept samples (sorted by median, the first round at
 * which the rounds so far hold a quarter of the steady rounds' kept samples); mark every
 * kept sample of a round whose median exceeds the reference by more than @p limit (0.05 =
 * 5%) as DPK_REJECT_SLOW. What is left is the cost in the faster rounds of the run, and
 * the counts say how much was set aside.
 *
 * The reference is not the fastest round: that is the extreme of many noisy medians, one
 * lucky round, and runs judged against it disagree far more than runs judged against a
 * quartile. Each round also draws its own physical memory layout, which moves a round's
 * median by a few percent. Weighting by samples keeps a few short rounds that drew a fast
 * layout from setting the reference when a busy run leaves a case few full rounds, and with
 * fewer than DPK_SLOW_MIN_ROUNDS steady rounds the rule cannot tell a slow phase from a
 * slow layout, so it sets nothing aside (docs/method.md, "Slow rounds").
 *
 * Does nothing when @p limit <= 0 or when fewer than DPK_SLOW_MIN_ROUNDS rounds are
 * steady. Adds to @p counts (may be NULL), moving the marked samples from counts[0].
 * Returns the number of samples still kept.
 */
size_t dpk_stats_reject_slow(struct dpk_sample *s, size_t n, double limit,
                             size_t counts[DPK_REJECT_COUNT]);

/**
 * Mark every kept sample of @p s (n of them) whose witness timing (wit) is over @p limit as
 * DPK_REJECT_SLOW: a batch run while the machine was slow. Counts as dpk_stats_reject_slow().
 * Returns the samples still kept.
 */
size_t dpk_stats_mark_witness(struct dpk_sample *s, size_t n, double limit,
                              size_t counts[DPK_REJECT_COUNT]);

/**
 * Mark every kept sample of @p s (n of them) whose round r has r < @p nrounds and
 * @p slow[r] non-zero as DPK_REJECT_SLOW: the slow-round rule with the rounds decided
 * elsewhere (interleaved variants share the decision of their reference, so that no
 * variant's figures are selected on its own outcome). Counts as dpk_stats_reject_slow().
 */
size_t dpk_stats_mark_slow(struct dpk_sample *s, size_t n, const uint8_t *slow, size_t nrounds,
                           size_t counts[DPK_REJECT_COUNT]);

/** Summary of the kept values. All zero when n == 0. */
struct dpk_summary {
	size_t n; /**< values summarised */
	double min, p50, p90, p99, max;
	double mean, stddev;   /**< stddev is the sample standard deviation (n - 1) */
	double cv;             /**< stddev / mean, 0 when mean is 0 */
	double p50_lo, p50_hi; /**< a distribution-free 95% confidence interval of the median
	                          (order statistics from the binomial); equal to p50 when n < 6 */
};

/**
 * Summarise @p v (n values); sorts @p v in place. Percentiles interpolate linearly between
 * order statistics (type 7, as R and numpy's default).
 */
void dpk_stats_summarise(double *v, size_t n, struct dpk_summary *out);

/**
 * The 0-based ranks @p lo < @p hi in a sorted set of @p n values that bound a 95%
 * distribution-free confidence interval of the median: the median lies between the values
 * at those ranks with probability >= 0.95 (binomial(n, 1/2), symmetric ranks; exact up to
 * DPK_STATS_CI_EXACT_MAX values, the normal approximation above). The same ranks give the
 * sign-test interval of a median difference. False (and nothing written) when n < 6, where
 * no such pair exists.
 */
bool dpk_stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi);

/** Above this many values the median interval uses the normal approximation. */
#define DPK_STATS_CI_EXACT_MAX 1000

/** The q-quantile (0 <= q <= 1) of sorted @p v by linear interpolation; 0 if n == 0. */
double dpk_stats_quantile(const double *sorted, size_t n, double q);

/** Ascending sort of @p v (n doubles), NaN after every number; NULL or n < 2 leaves it be. */
void dpk_stats_sort(double *v, size_t n);

/** The value of rank @p k (0: the smallest) among the @p n numbers of @p v, which it
 * reorders (no NaN among them); 0 if k >= n. Takes time in proportion to n on average. */
double dpk_stats_select(double *v, size_t n, size_t k);

/** Copy the ticks per operation of the kept samples of @p s (n of them) into @p out, which
 * has room for as many as are kept, in the order the samples were taken. Returns how many
 * were copied. */
size_t dpk_stats_kept_ticks(const struct dpk_sample *s, size_t n, double *out);

/** Clock timings over this many times the median of a case's timings are left out of the
 * paces: an interrupt or a preemption inside the chain reads several times the median,
 * while the other timings lie within a few percent of it (docs/method.md, "Core cycles").
 * The median is the case's, not the round's: a round may keep a single sample. */
#define DPK_CORECLOCK_TRIM 1.25

/**
 * Copy the kept samples of @p s (n of them, rounds stored one after another, as for
 * dpk_stats_reject_slow()) into @p out in core cycles per operation, in the order the
 * samples were taken; returns how many were copied. A round's pace is the
 * mean of the clock timings (dpk_sample.clk) of its kept samples, those over
 * DPK_CORECLOCK_TRIM times the median of all of them left out, less @p read_cost (ticks);
 * its samples are multiplied by @p chain_cycles / pace, the core cycles per tick in that
 * round. A round without such a timing, or whose pace is not over @p read_cost and over 0,
 * is left out. When @p ratio_p50 is not NULL it gets the median core cycles per tick over
 * the rounds used (NaN when none). @p out has room for every kept sample.
 */
size_t dpk_stats_kept_cycles(const struct dpk_sample *s, size_t n, double chain_cycles,
                             double read_cost, double *out, double *ratio_p50);

/** The core cycles per tick of each round r < @p nrounds of @p s, by the pace
 *  dpk_stats_kept_cycles() takes: @p ratio[r], NaN for a round without one. With
 *  @p slow_too the pace is also taken from the samples set aside as DPK_REJECT_SLOW. */
void dpk_stats_round_ratios(const struct dpk_sample *s, size_t n, double chain_cycles,
                            double read_cost, unsigned nrounds, bool slow_too, double *ratio);

/**
 * Summarise the kept samples of @p s (n of them, in @p nrounds rounds) with every round
 * that kept any weighing the same: each sample weighs 1 / (kept samples of its round).
 * Quantiles are weighted (a sample at the middle of its weight, linear between), the mean
 * and standard deviation too; min and max are the samples'; the median's 95% interval is
 * that of a median of as many draws as rounds kept (stats_rounds.c says why).
 * @return false when out of memory (@p out zeroed)
 */
bool dpk_stats_summarise_rounds(const struct dpk_sample *s, size_t n, unsigned nrounds,
                                struct dpk_summary *out);

/** Sort @p v (n values) and return its median, as dpk_stats_quantile(v, n, 0.5). */
double dpk_stats_median(double *v, size_t n);

/**
 * The median of the kept samples of each round: for every round r < @p nrounds, @p p50[r]
 * (NaN when none is kept) and @p kept[r]. With @p slow_too, of the samples kept or set
 * aside as DPK_REJECT_SLOW: the round as the machine ran it, slow phase and all, which is
 * what a round run beside it in turn is to be paired with. The samples may come in any
 * order (several roles' one after another). Returns false when out of memory (nothing
 * written).
 */
bool dpk_stats_round_medians(const struct dpk_sample *s, size_t n, unsigned nrounds, bool slow_too,
                             double *p50, uint32_t *kept);

/** The median witness timing (dpk_sample.wit) of each round's samples kept or set aside as
 *  slow, those without a timing left out: @p p50[r], NaN for a round with none. How fast
 *  the machine ran that round. Returns false when out of memory (nothing written). */
bool dpk_stats_round_witness(const struct dpk_sample *s, size_t n, unsigned nrounds, double *p50);

/**
 * Which batches of role @p i ran alone: @p alone[j] is true when no batch of any other of
 * the @p nroles roles overlapped batch j of role @p i in time. @p spans[r] holds role r's
 * batches as @p ns[r] pairs of counter readings (begin, end), in time order.
 */
void dpk_stats_alone(const uint64_t *const *spans, const size_t *ns, unsigned nroles, unsigned i,
                     bool *alone);

/** Mark every kept sample i of @p s (n of them) with @p alone[i] true as
 *  DPK_REJECT_ALONE, moving its count in @p counts (if not NULL) from kept to that reason.
 *  Returns how many stay kept. */
size_t dpk_stats_mark_alone(struct dpk_sample *s, size_t n, const bool *alone,
                            size_t counts[DPK_REJECT_COUNT]);

/** Mark every kept sample of a round r with @p aside[r] non-zero (r < @p nrounds) as
 *  @p why; counts as dpk_stats_reject_slow(). Returns the samples still kept. */
size_t dpk_stats_mark_rounds(struct dpk_sample *s, size_t n, const bool *aside, unsigned nrounds,
                             enum dpk_reject why, size_t counts[DPK_REJECT_COUNT]);

/** Whether the larger of @p x and @p y is over @p r (a fraction: 0.02 = 2%) above the
 *  smaller: the test of every floor rule (a NaN on either side compares false). */
bool dpk_stats_apart(double x, double y, double r);

/** Two cache-line round trips (a multi-lcore case's floor) whose medians lie more than this
 *  apart, with their samples saying so, ran on two placements of the host's: a core pair
 *  a little further apart moves the floor by a few percent and pair cases by more
 *  (docs/compare.md, "Floors that moved a little"). */
#define DPK_STATS_FLOOR_STEP 0.02

/** Most clusters dpk_stats_clusters() finds. */
#define DPK_STATS_CLUSTERS_MAX 4

/** A cluster of values (dpk_stats_clusters()). */
struct dpk_stats_cluster {
	double lo, hi, p50; /**< its smallest, largest and median value */
	size_t n;           /**< values in it */
};

/**
 * Cut the @p n positive values of @p v into clusters apart: sorted, split where a value is
 * over @p gap (0.3 = 30%) above the one before it and each side keeps at least @p min_n
 * values, most first, up to @p max clusters in @p out, from the smallest up. Returns the
 * clusters found (1 when the values do not fall apart; 0 when n is 0 or out of memory).
 */
unsigned dpk_stats_clusters(const double *v, size_t n, double gap, size_t min_n,
                            struct dpk_stats_cluster *out, unsigned max);

/** Regimes: sorted round figures split where one is over the one before by more than this,
 *  each side keeping a tenth of the rounds and at least two. */
#define DPK_STATS_REGIME_GAP 0.3

/** The regimes of @p n round figures @p v: dpk_stats_clusters() with the rule above. */
unsigned dpk_stats_regimes(const double *v, size_t n, struct dpk_stats_cluster *out, unsigned max);

#endif /* DPK_BENCH_STATS_H */
