/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.h - the harness engine: the suite API of <dpk/bench.h> (run state, failures,
 * the case arena), lcores and placements, the batch timing method, single-lcore cases in
 * rounds, interleaved groups and multi-lcore cases. Files: run.c (run state and arena),
 * lcores.c (lcores and placements), batch.c (one batch, sizing, warm-up), samples.c
 * (from samples to a result), rounds.c, interleave.c, multi.c, floor.c.
 */
#ifndef DPK_BENCH_ENGINE_H
#define DPK_BENCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dpk/bench.h>
#include <dpk/lcore.h>

#include "clock.h"
#include "stats.h"
#include "witness.h"

/** Options of a run. */
struct dpk_bench_options {
	double time_s;      /**< measurement budget per case, seconds */
	double warmup_s;    /**< warm-up per case, seconds (also bounds batch sizing) */
	unsigned repeat;    /**< times to run the whole plan */
	const char *lcores; /**< lcore spec; NULL: one lcore per online CPU + one extra */
	bool placement_on[DPK_PLACE_COUNT]; /**< placements to run */
	/** Every pair case on oversub, not only those with DPK_BENCH_ON_OVERSUB: the
	 *  placements were named and oversub among them. */
	bool oversub_every;
	bool raw;                           /**< keep every sample in the results */
	size_t max_samples;                 /**< sample cap per case and role */
	unsigned rounds;   /**< time slices of a single-lcore case (dpk_bench_run_rounds) */
	double slow_limit; /**< slow-round limit (0.05 = 5%), 0 = off; see dpk_stats_reject_slow */
	double witness_check_s; /**< the clock check's speed-witness readings go on this long
	                             (at least DPK_WITNESS_CHECK_READINGS of them) */
};

/** Most rounds (a sample's round is 16 bits). */
#define DPK_BENCH_ROUNDS_MAX 1000
/** Shortest slice: with a shorter --time, a case runs in fewer rounds than opt.rounds. */
#define DPK_BENCH_SLICE_MIN_S 0.005

/** Defaults: 0.2 s per case in 40 rounds, 0.03 s warm-up, slow limit 5%, every placement,
 * 1 repeat, DPK_WITNESS_CHECK_S of witness readings at the clock check. */
void dpk_bench_options_default(struct dpk_bench_options *o);

/** Per-role figures of a multi-lcore case. */
struct dpk_bench_role_result {
	unsigned lcore, cpu;
	const char *name;
	bool counted;
	uint64_t ops;       /**< operations completed in the measurement window */
	double window_s;    /**< length of that window */
	double mops;        /**< ops / window, millions per second */
	uint64_t batch_ops; /**< operations per sample (one lcore: the last slice's size) */
	size_t samples, kept;
	struct dpk_summary ticks; /**< per operation, kept samples */
};

/** How a case ended. Only FAILED (a broken invariant, a setup error) fails the run. */
enum dpk_bench_status {
	DPK_RESULT_OK,      /**< samples taken */
	DPK_RESULT_FAILED,  /**< an invariant broke or the case could not be set up */
	DPK_RESULT_SKIPPED, /**< the placement is not available */
	DPK_RESULT_EMPTY,   /**< it ran, but no sample completed within the time budget */
};

/** A round whose floor is over the reference (the lower quartile of the case's round
 *  floors) by more than this is set aside (docs/method.md, "The floor"). */
#define DPK_BENCH_FLOOR_LIMIT 0.5

/** Whether two cache-line round trips @p a and @p b (ticks; 0: none) lie more than
 *  DPK_BENCH_FLOOR_LIMIT apart, the larger over the smaller: the host moved or crowded the
 *  lcores between them, and a pair's figure follows the round trip. False without both. */
static inline bool dpk_bench_floors_apart(double a, double b)
{
	return a > 0 && b > 0 && (a > b ? a / b : b / a) > 1 + DPK_BENCH_FLOOR_LIMIT;
}

/** The fewest paired rounds that give an interleaved ratio a 95% interval: the fewest
 *  values with a distribution-free interval of their median. */
#define DPK_BENCH_PAIR_ROUNDS_MIN 6

/** One round of a case. */
struct dpk_bench_round {
	double p50;        /**< median of its kept samples (ticks per unit); NaN: none kept */
	double p50_cycles; /**< the same in core cycles at the round's pace; NaN: none */
	double floor;      /**< the larger of its two floor brackets, ticks; 0: none */
	uint32_t kept;     /**< samples kept */
	bool set_aside;    /**< its floor was off the case's (multi-lcore): left out */
	/* Single-lcore rounds (whole_rounds): the round as the machine ran it, its samples
	 * set aside as slow included, which a pairing with a round run beside it wants (both
	 * ran in the same phase of the host). */
	double whole_p50;        /**< median, ticks per unit; NaN: none */
	double whole_p50_cycles; /**< the same in core cycles; NaN: none */
	uint32_t whole;          /**< its samples kept or set aside as slow */
	double whole_witness;    /**< their median witness timing (ticks per pair): how fast
	                              the machine ran; NaN: none */
};

/** Most regimes a case's rounds are reported in. */
#define DPK_BENCH_CLUSTERS_MAX 4

/** A regime: kept rounds whose medians lie together, apart from the others'. */
struct dpk_bench_cluster {
	double p50;       /**< median of its rounds' medians, ticks */
	double per_floor; /**< the same over their floors (0: no floors) */
	unsigned rounds;  /**< rounds in it */
	unsigned first;   /**< the first of them */
};

/** The outcome of one case on one placement. */
struct dpk_bench_result {
	const struct dpk_bench_suite *suite;
	const struct dpk_bench_case *c;
	enum dpk_placement placement;
	unsigned repeat;
	enum dpk_bench_status status;
	char reason[256]; /**< failure or skip reason */
	unsigned nroles;
	struct dpk_bench_role_result role[DPK_BENCH_ROLES_MAX];
	uint64_t batch_ops;              /**< operations per sample (single: the last slice's, as
	                                      later warm-ups may grow it) or median over roles */
	size_t samples;                  /**< samples taken (counted roles) */
	size_t reject[DPK_REJECT_COUNT]; /**< [0] kept, then per reason (counted roles) */
	struct dpk_summary ticks;        /**< per operation over kept samples of counted roles */
	struct dpk_summary cycles;       /**< per operation in core cycles (coreclock.h), over the
	                                      kept samples of rounds with clock timings; n == 0
	                                      where there are none (multi-lcore cases, builds
	                                      without the chain) */
	double core_hz;                  /**< the core clock by the median round's pace (0: none) */
	double mops;                     /**< aggregate throughput, millions of ops per second */
	double elapsed_s;                /**< wall time of the case including warm-up */
	double *raw;                     /**< kept samples (ticks per op) when options.raw */
	size_t nraw;
	double *raw_cycles; /**< with raw: the kept samples in core cycles, where cycles.n */
	size_t nraw_cycles;
	/* Interleaved runs (--interleave): the paired comparison with the group's first
	 * member, round by round (interleave.c), in core cycles where both have them, else in
	 * ticks. */
	bool interleaved;
	const struct dpk_bench_suite *ref_suite; /**< the group's first member */
	const struct dpk_bench_case *ref_case;
	unsigned group_size;
	size_t pair_rounds;            /**< rounds paired */
	/* pair_ratio's interval is NaN from fewer rounds than DPK_BENCH_PAIR_ROUNDS_MIN */
	bool pair_cycles;              /**< the ratios are of core cycles (else of ticks) */
	bool pair_as_run;              /**< of the rounds as run, slow samples included: too few
	                                    rounds kept samples (else of the kept samples) */
	struct dpk_summary pair_ratio; /**< this member / the reference, per round */
	/* Run in rounds (dpk_bench_run_rounds): its slices, and its samples the speed witness
	 * found fast (both 0 otherwise). */
	unsigned witness_slices;
	size_t witness_fast;
	unsigned witness_kept_rounds; /**< of the slices, those the kept samples came from: a
	                                   figure from few of them rests on a short stretch of
	                                   the run */
	bool witness_kept_slow;       /**< fewer than DPK_WITNESS_MIN_FAST fast samples were left
	                                   after the other rejections: the slow ones were kept */
	double witness_kept_p50;      /**< median witness timing next to the kept samples (NaN:
	                                   none) */
	bool witness_slow_only;       /**< by the run's final reference reading, most kept samples
	                                   were slow (set by dpk_bench_witness_finish) */
	/* Rounds: every case runs in rounds (time slices spread over its set's run, each set
	 * up afresh); the median of each, and for multi-lcore cases the floor beside it. */
	struct dpk_bench_round *rounds; /**< one per round run, in order; NULL: none */
	bool whole_rounds;              /**< the rounds' whole_ fields are filled */
	unsigned nrounds;
	unsigned rounds_set_aside;    /**< rounds whose floor moved off the case's (multi-lcore) */
	struct dpk_summary round_p50; /**< over the kept rounds' medians (the rounds' spread) */
	/* The floor: a cache-line round trip on the case's own lcores, taken before and after
	 * each round of a multi-lcore case on two CPUs (0 elsewhere). */
	double floor_rt;              /**< median round floor of the kept rounds, ticks */
	double floor_ref;             /**< the reference the rounds were judged by */
	double floor_min, floor_max;  /**< round floors over every round */
	bool floor_untimed; /**< on two CPUs, yet no round's bracket timed a round trip */
	struct dpk_summary per_floor; /**< kept rounds' medians over their own floors */
	/* Regimes: the kept rounds' medians (or ratios to their floors) in clusters apart. */
	unsigned nclusters; /**< 0 or 1: one regime */
	struct dpk_bench_cluster cluster[DPK_BENCH_CLUSTERS_MAX];
};

/** The engine's state for a run. */
struct dpk_bench_runner {
	struct dpk_bench_options opt;
	struct dpk_bench_clock clock;
	struct dpk_lcore_spec spec;
	unsigned main_lcore;
	unsigned nworkers;
	unsigned workers[DPK_LCORE_MAX];    /**< worker lcore ids */
	unsigned worker_cpu[DPK_LCORE_MAX]; /**< their single CPU, or DPK_CPU_MAX if several */
	bool all_member[DPK_LCORE_MAX];     /**< worker takes part in "all" (one per CPU set) */
	struct dpk_cpuset cpus_used;
	struct dpk_bench_witness_log witness;
	double (*witness_time)(void); /**< dpk_bench_witness_timing; tests put scripted timings
	                                   here */
	double (*floor_script)(unsigned round, unsigned bracket); /**< NULL: the floor brackets'
	                                  own timings; tests script round floors here */
	uint32_t (*switches)(void); /**< NULL: the thread's involuntary context switches from
	                                 getrusage(), read around each one-lcore slice and
	                                 interleaved group; tests put a scripted count here */
};

/**
 * Write the default lcore spec over CPU set @p cpus into @p buf of @p len bytes: the main
 * lcore on the first CPU of the set, one worker on every CPU of it, and one more worker on
 * the first CPU so the oversub placement exists: "0@0,1@0,2@1,3@0" for CPUs 0 and 1.
 * @retval 0 / -ENODEV (empty set) / -ENOSPC (@p buf too small)
 */
int dpk_bench_default_spec(const struct dpk_cpuset *cpus, char *buf, size_t len);

/**
 * Parse @p spec (NULL: the default) into @p out. The default is dpk_bench_default_spec()
 * over the online CPUs that this process's affinity mask allows (all online CPUs when the
 * topology comes from another sysfs tree, DPK_SYSFS_ROOT).
 * @retval 0 / -EINVAL (bad spec) / -ENODEV (CPU missing or offline); message in
 *         dpk_last_error() / -ENOSPC (a default spec over DPK_LCORE_MAX lcores outgrew its
 *         buffer, which their count rules out)
 */
int dpk_bench_lcore_spec(const char *spec, struct dpk_lcore_spec *out);

/** Start lcores and check the clock. 0 or -errno (see dpk_lcore_init). */
int dpk_bench_runner_init(struct dpk_bench_runner *r, const struct dpk_bench_options *o);

/** Stop the lcores. */
void dpk_bench_runner_fini(struct dpk_bench_runner *r);

/**
 * Whether placement @p p can run; when not, @p why says so. For pair placements *a, *b
 * receive the worker lcores used.
 */
bool dpk_bench_placement_available(const struct dpk_bench_runner *r, enum dpk_placement p,
                                   unsigned *a, unsigned *b, char *why, size_t whylen);

/** Run case @p c of @p s on placement @p p; fills @p res (free with _result_free). A
 * single-lcore case runs as dpk_bench_run_rounds() with k = 1. */
void dpk_bench_run_case(struct dpk_bench_runner *r, const struct dpk_bench_suite *s,
                        const struct dpk_bench_case *c, enum dpk_placement p, unsigned repeat,
                        struct dpk_bench_result *res);

/** Called by dpk_bench_run_rounds() before each round (0-based) for a progress line. */
typedef void (*dpk_bench_round_fn)(void *ctx, unsigned round, unsigned rounds);

struct dpk_bench_item;

/**
 * Run the @p k multi-lcore cases @p items (one suite's, all on one placement) in rounds:
 * each round gives every case in turn (the order rotating) one slice of time_s / rounds
 * (fewer, longer rounds on oversub), set up afresh and, where its roles 0 and 1 are on two
 * CPUs, bracketed by a cache-line round trip on those lcores (the floor). The first round
 * warms up for warmup_s and learns the batch sizes; later rounds warm up for warmup_s /
 * rounds. A round whose floor is off the case's (DPK_BENCH_FLOOR_LIMIT over the lower
 * quartile of its round floors) is set aside, its samples counted as "floor"; the figure
 * rests on the other rounds, and rounds in clusters apart are reported as regimes.
 * Fills res[0..k-1]; @p progress may be NULL.
 */
void dpk_bench_run_multi_rounds(struct dpk_bench_runner *r, const struct dpk_bench_item *items,
                                unsigned k, unsigned repeat, struct dpk_bench_result *res,
                                dpk_bench_round_fn progress, void *ctx);

/**
 * Run the @p k single-lcore cases cases[i] of suites[i] in rounds: each round gives every
 * case in turn (the order rotating) one slice of time_s / rounds: set up, a warm-up of
 * warmup_s / rounds (the first slice calibrates the batch and warms up fully; a later one
 * grows batches that fall short of the sample target, never shrinks them), the count of
 * involuntary switches read and one untimed batch, timed batches, the count read again
 * (dpk_stats_give_switches()), tear down. Each case's samples so span the whole stretch of the k
 * cases instead of one block of it, and the slow-round rule (dpk_stats_reject_slow) can tell a slow
 * phase of the machine from the case's own cost (given DPK_SLOW_MIN_ROUNDS rounds with enough
 * kept samples; with fewer it sets nothing aside). The number of rounds is opt.rounds, fewer
 * if slices would be shorter than DPK_BENCH_SLICE_MIN_S.
 *
 * The speed witness (witness.h) is timed after the warm-up and after every batch, so each
 * sample has a timing on both sides, and the timings of a slice make readings; a sample is
 * slow when the slower of its two is over the reference reading (dpk_bench_witness_ref()
 * of the readings so far) by more than DPK_WITNESS_LIMIT. With the slow-round rule on
 * (opt.slow_limit > 0) slow samples are set aside as DPK_REJECT_SLOW before the rule looks
 * at the case's own round medians, and while some case has fewer fast samples than an
 * eighth of what its planned rounds took, more rounds run, up to twice the planned number.
 * A slow phase so costs samples and time rather than figures. A case left with fewer than
 * DPK_WITNESS_MIN_FAST fast samples (after the other rejections) keeps its slow ones
 * (witness_kept_slow). The samples are judged when the last round ends, by the reference
 * then (stored in r->witness.ref); a later call does not judge them again. The readings
 * and counts add up in r->witness over calls.
 * Fills res[0..k-1]; @p progress may be NULL (it is told the planned number of rounds;
 * extra rounds come after it).
 */
void dpk_bench_run_rounds(struct dpk_bench_runner *r, const struct dpk_bench_suite *const *suites,
                          const struct dpk_bench_case *const *cases, unsigned k, unsigned repeat,
                          struct dpk_bench_result *res, dpk_bench_round_fn progress, void *ctx);

/**
 * Judge the results of a run once more, by the run's final reference reading (stored in
 * r->witness.ref): set witness_slow_only on each result run in rounds whose kept samples
 * are mostly slow by it, and on those that kept their slow samples for want of fast ones
 * (those judged before the reference came down are the others), and count them in
 * r->witness.slow_only_cases, which is returned.
 */
unsigned dpk_bench_witness_finish(struct dpk_bench_runner *r, struct dpk_bench_result *res,
                                  size_t n);

/**
 * Run the @p k single-lcore cases cases[i] of suites[i] interleaved: in the same rounds, as
 * dpk_bench_run_rounds() runs a set (one slice of each member per round, set up afresh,
 * the order rotating each round). Fills res[0..k-1], each with its own statistics and the
 * ratio to member 0 round by round (pair_rounds 0 when either did not run).
 */
void dpk_bench_run_interleaved(struct dpk_bench_runner *r,
                               const struct dpk_bench_suite *const *suites,
                               const struct dpk_bench_case *const *cases, unsigned k,
                               unsigned repeat, struct dpk_bench_result *res);

/**
 * Run the @p k multi-lcore cases items[i] (one kind, one placement) interleaved: as one set
 * in rounds (dpk_bench_run_multi_rounds()), each slice set up afresh beside its own floor.
 * Fills res[0..k-1] as dpk_bench_run_interleaved() does, the ratios in ticks over the rounds
 * both kept and neither set aside, leaving out those whose two floors lie over
 * DPK_BENCH_FLOOR_LIMIT apart.
 */
void dpk_bench_run_interleaved_multi(struct dpk_bench_runner *r, const struct dpk_bench_item *items,
                                     unsigned k, unsigned repeat, struct dpk_bench_result *res);

/** The interleave key of case @p c: its group (or name) and its params. */
char *dpk_bench_group_key(const struct dpk_bench_case *c, char *buf, size_t len);

void dpk_bench_result_free(struct dpk_bench_result *res);

/** "esize=8 n=32" for the case's parameters into @p buf. */
char *dpk_bench_params_str(const struct dpk_bench_case *c, char *buf, size_t len);

/**
 * How many code layouts the figures of case @p c on placement @p p span: on the single
 * placement, the distinct offsets of its copies (4 where the compiler could place them, 1
 * where every copy landed at offset 0); otherwise, or without copies, 1.
 */
unsigned dpk_bench_code_layouts(const struct dpk_bench_case *c, enum dpk_placement p);

/**
 * Check NULL-terminated @p suites as dpk_bench_main() promises (<dpk/bench.h>): names,
 * bodies, kinds, units, layouts, duplicates. The first fault goes to @p err.
 * @retval 0 / -EINVAL
 */
int dpk_bench_suites_check(const struct dpk_bench_suite *const *suites, char *err, size_t errlen);

/* ---- sets: cases in rounds, a step at a time (set.c) ------------------------------ */

/**
 * Cases that run in rounds together: one suite's single-lcore cases, or its multi-lcore
 * cases on one placement. dpk_bench_run_rounds() and dpk_bench_run_multi_rounds() run a
 * whole set; a set opened here runs a round when its caller says, so two builds can take
 * turns round by round (dpk-bench ab).
 */
struct dpk_bench_set;

/** Open the set of the @p k cases @p items (all single-lcore, or all multi-lcore on one
 *  placement) for repeat @p repeat, into @p res[0..k), which dpk_bench_set_close() fills.
 *  NULL when out of memory (the results say so). */
struct dpk_bench_set *dpk_bench_set_open(struct dpk_bench_runner *r,
                                         const struct dpk_bench_item *items, unsigned k,
                                         unsigned repeat, struct dpk_bench_result *res);

/** The rounds planned. */
unsigned dpk_bench_set_planned(const struct dpk_bench_set *set);

/** The number of rounds a single-lcore case's budget is cut into (opt.rounds, fewer when
 *  slices would be shorter than DPK_BENCH_SLICE_MIN_S). */
unsigned dpk_bench_rounds_of(const struct dpk_bench_runner *r);

/** The rounds a set of multi-lcore cases on placement @p p plans (single-lcore sets plan
 *  dpk_bench_rounds_of()). */
unsigned dpk_bench_multi_rounds_of(const struct dpk_bench_runner *r, enum dpk_placement p);

/** Whether round @p q should run: a planned one, or for single-lcore cases with the slow
 *  rules on, an extra one while a case lacks fast samples (at most as many again). */
bool dpk_bench_set_wants(const struct dpk_bench_set *set, unsigned q);

/** Run round @p q, one slice of every live case in turn. False when no case is live. */
bool dpk_bench_set_round(struct dpk_bench_set *set, unsigned q);

/** Judge the rounds run, fill the results and free @p set (NULL: nothing). */
void dpk_bench_set_close(struct dpk_bench_set *set);

/* ---- a run's plan (plan.c) --------------------------------------------------------- */

/** One case on one placement: an item of a run's plan. */
struct dpk_bench_item {
	const struct dpk_bench_suite *s;
	const struct dpk_bench_case *c;
	enum dpk_placement p;
};

/** Whether case @p c of suite @p s is selected (the command line's patterns). */
typedef bool (*dpk_bench_select_fn)(void *ctx, const struct dpk_bench_suite *s,
                                    const struct dpk_bench_case *c);

/** The cases a run times, suite by suite in the order of the suites given, each case on
 *  every enabled placement that fits its kind and that the lcores offer. */
struct dpk_bench_plan {
	struct dpk_bench_item *item;
	size_t n;
	size_t *leader;  /**< with interleave, the plan index of each item's group's first
	                      member (the item's own when it has no group) */
	bool interleave; /**< the members of a group (one kind, one placement) run interleaved */
};

/**
 * Make the plan of the cases of NULL-terminated @p suites that @p sel selects (with
 * @p ctx), on the placements r->opt enables and the runner's lcores offer.
 * @retval 0 / -ENOMEM / -ENOENT (nothing to run; the plan is empty)
 */
int dpk_bench_plan_make(struct dpk_bench_plan *plan, const struct dpk_bench_runner *r,
                        const struct dpk_bench_suite *const *suites, dpk_bench_select_fn sel,
                        void *ctx, bool interleave);

void dpk_bench_plan_free(struct dpk_bench_plan *plan);

/** Whether plan item @p i belongs to an interleaved group of two or more. */
bool dpk_bench_plan_grouped(const struct dpk_bench_plan *plan, size_t i);

/** Where a plan's run is, for a progress line. */
struct dpk_bench_progress {
	size_t done, total; /**< case runs finished and planned (repeats included) */
	const char *what;   /**< what runs now: "ring: 40 single-lcore cases", ... */
	unsigned round;     /**< the round running (0-based), when rounds > 0 */
	unsigned rounds;    /**< planned rounds; 0: not in rounds */
};

/** What a plan's run tells its caller as it goes; any member may be NULL. */
struct dpk_bench_plan_hooks {
	void *ctx;
	/** Items plan[first..end) of one suite start to report in repeat @p rep. */
	void (*suite)(void *ctx, const struct dpk_bench_plan *plan, size_t first, size_t end,
	              unsigned rep);
	/** The result of plan item @p i is ready; called in plan order. */
	void (*result)(void *ctx, const struct dpk_bench_plan *plan, size_t i,
	               const struct dpk_bench_result *res);
	/** Something starts to run; @p p is NULL once it has ended. */
	void (*progress)(void *ctx, const struct dpk_bench_progress *p);
};

/**
 * Run @p plan @p repeats times into @p res (repeats * plan->n results, repeat by repeat):
 * each suite's single-lcore cases in rounds (dpk_bench_run_rounds), with interleave its
 * groups together (dpk_bench_run_interleaved), the others case by case; then judge the
 * witness (dpk_bench_witness_finish) and link the floors (dpk_bench_link_floor).
 * @retval 0 / -ENOMEM (results so far are filled; the others are failed)
 */
int dpk_bench_plan_run(struct dpk_bench_runner *r, const struct dpk_bench_plan *plan,
                       unsigned repeats, struct dpk_bench_result *res,
                       const struct dpk_bench_plan_hooks *h);

#endif /* DPK_BENCH_ENGINE_H */
