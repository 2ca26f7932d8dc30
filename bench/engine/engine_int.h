/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_int.h - what the engine's files share and nothing outside the engine sees: the
 * harness's side of a running case, the case arena, one timed batch, and the steps from
 * samples to a result.
 */
#ifndef DPK_BENCH_ENGINE_INT_H
#define DPK_BENCH_ENGINE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* Sizes that decide how a single-lcore slice's warm-up regrows its batches (rewarm()). */
#define DPK_BENCH_REWARM_KEPT       64u
#define DPK_BENCH_REWARM_GROW_BELOW 0.9
#define DPK_BENCH_REWARM_GROW_MAX   16.0 /* growth at one warm-up at most */

/** A running case: what the case sees (first, so a pointer to it is a pointer to this),
 *  then the harness's own state. */
struct dpk_bench_ctl {
	struct dpk_bench_run run;
	atomic_bool failed;            /**< an invariant broke */
	atomic_bool fail_ready;        /**< fail_msg is complete */
	atomic_uint woken;             /**< futex word: 1 once a failure has woken the main lcore */
	char fail_msg[256];            /**< the first failure's message */
	unsigned char *arena;          /**< see dpk_bench_alloc() */
	size_t arena_size, arena_used; /**< what dpk_bench_alloc() may hand out, and has */
	unsigned arena_round;          /**< the round the arena is mapped for, set before set-up */
	bool arena_pooled;             /**< a window onto the pool of frames (arena.c) */
	bool arena_pinned;             /**< the arena sits at its fixed address */
	unsigned stack_shift; /**< moves the next timed batch's stack within its page (batch.c) */
};

static inline struct dpk_bench_ctl *dpk_bench_ctl_of(struct dpk_bench_run *run)
{
	return (struct dpk_bench_ctl *)(void *)run;
}

/** Ready @p x to run case @p c on placement @p p with @p nroles roles: nothing failed or
 *  stopped yet, no state, no arena. */
void dpk_bench_ctl_init(struct dpk_bench_ctl *x, const struct dpk_bench_case *c,
                        enum dpk_placement p, unsigned nroles);

/** Whether the case has failed (any role called dpk_bench_fail()). */
bool dpk_bench_ctl_failed(struct dpk_bench_ctl *x);

/** Raise the stop flag the bodies poll. */
void dpk_bench_ctl_stop(struct dpk_bench_ctl *x);

/** The failure message (the roles must have been joined). */
const char *dpk_bench_ctl_fail_message(struct dpk_bench_ctl *x);

/** Where round @p q's arena starts its allocations within their page: a multiple of 64
 *  below 4096, any 64 rounds in a row taking each once (arena.c). */
size_t dpk_bench_arena_shift_of(unsigned q);

/** The page of the pool of frames round @p q's arena starts at (arena.c). */
unsigned dpk_bench_arena_page_of(unsigned q);

/** Map the arena for round x->arena_round at its fixed address (arena.c). */
void dpk_bench_arena_map(struct dpk_bench_ctl *x);
void dpk_bench_arena_unmap(struct dpk_bench_ctl *x);

/** The arena's top page, zeroed, for the harness's own lines in the round (the floor
 *  bracket's); NULL without an arena. */
void *dpk_bench_arena_harness_page(struct dpk_bench_ctl *x);

/** Set up case @p x->run.c in a fresh arena; on failure @p res says why (and the arena is
 *  unmapped). One case is set up at a time. */
bool dpk_bench_ctl_setup(struct dpk_bench_ctl *x, struct dpk_bench_result *res);

/** Tear case @p x down and unmap its arena; a failure recorded meanwhile goes to @p res.
 *  False when the case failed. */
bool dpk_bench_ctl_teardown(struct dpk_bench_ctl *x, struct dpk_bench_result *res);

/** A result with its identity filled in and status ok. */
void dpk_bench_result_init(struct dpk_bench_result *res, const struct dpk_bench_suite *s,
                           const struct dpk_bench_case *c, enum dpk_placement p, unsigned repeat);

/** Mark @p res failed with a reason. */
void dpk_bench_result_fail(struct dpk_bench_result *res, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* ---- one batch (batch.c) ---------------------------------------------------------- */

/** A reading of the calling thread's involuntary switches; ok false when it failed. */
struct dpk_bench_switches {
	uint32_t n;
	bool ok;
};

/** The switch count as the runner reads it (tests script it through r->switches). */
struct dpk_bench_switches dpk_bench_switches_now(const struct dpk_bench_runner *r);

/** Switches since @p before; none unless both readings worked. */
uint32_t dpk_bench_switches_since(const struct dpk_bench_runner *r,
                                  struct dpk_bench_switches before);

/** The stack offset of the @p i-th batch of a sequence (see time_batch() in batch.c). */
unsigned dpk_bench_stack_shift_of(unsigned i);

/** What @p x's batches come in multiples of (ops_multiple, times the layouts shared). */
unsigned dpk_bench_batch_multiple(const struct dpk_bench_ctl *x);

/** @p n rounded up to a multiple of @p mult (and at least one of it). */
uint64_t dpk_bench_round_ops(uint64_t n, unsigned mult);

/**
 * Time one batch of @p n operations of @p role at the stack offset x->stack_shift: fills
 * @p s (when not NULL) and *@p ticks_out, and returns the operations completed. A body
 * that returns more than @p n fails the case. With @p want_ctx the batch's own involuntary
 * switches are counted around it.
 */
uint64_t dpk_bench_time_batch(struct dpk_bench_ctl *x, unsigned role, uint64_t n, double overhead,
                              struct dpk_sample *s, bool want_ctx, double *ticks_out);

/** One untimed batch of @p n after the switch count was read (batch.c says why); false
 *  when the case failed or stopped. */
bool dpk_bench_settle(struct dpk_bench_ctl *x, uint64_t n);

/** Size a single-lcore batch and warm up at that size; false when the case failed. */
bool dpk_bench_calibrate(const struct dpk_bench_runner *r, struct dpk_bench_ctl *x,
                         uint64_t *n_out);

/** Warm a fresh set-up up again for @p warm ticks at batch size *@p n, which may grow. */
bool dpk_bench_rewarm(const struct dpk_bench_runner *r, struct dpk_bench_ctl *x, uint64_t *n,
                      uint64_t warm);

/* ---- from samples to a result (samples.c) ----------------------------------------- */

/** The speed witness's rule for one set of samples: the limit a timing next to a fast
 *  sample may reach, and what became of it. */
struct dpk_bench_witness_rule {
	double limit;
	size_t set_aside; /**< samples the rule set aside */
	bool kept_slow;   /**< too few fast samples: the slow ones were kept */
};

/**
 * Summarise the kept samples of a set into @p sum, adding the rejection counts to
 * @p reject. With @p slow_limit > 0 the witness rule @p wit (when not NULL) sets slow
 * samples aside first, then the slow-round rule runs on what is left, by the set's own
 * round medians. With @p keep_out the kept samples, in the order taken, are returned too.
 * False when out of memory.
 */
bool dpk_bench_summarise(struct dpk_sample *s, size_t n, bool check_ctx, double slow_limit,
                         struct dpk_bench_witness_rule *wit, size_t *reject,
                         struct dpk_summary *sum, double **keep_out, size_t *nkeep_out);

/** Fill a single-lcore result from its samples (rejection, summary, core cycles, rates). */
void dpk_bench_finish_single(const struct dpk_bench_runner *r, const struct dpk_bench_case *c,
                             struct dpk_sample *samples, size_t ns, uint64_t n, double sum_ticks,
                             double sum_ops, struct dpk_bench_witness_rule *wit,
                             struct dpk_bench_result *res);

/** Find the regimes of a case's kept rounds (those not @p aside; NULL: all): their medians,
 *  or with @p floors their medians over their floors, in clusters apart. */
void dpk_bench_regimes(const struct dpk_bench_round *rounds, unsigned nr, const bool *aside,
                       bool floors, struct dpk_bench_result *res);

/** The rounds of a single-lcore result from its judged samples @p s: each round's median
 *  and kept samples, their summary and regimes (nothing when out of memory). */
void dpk_bench_single_rounds(const struct dpk_bench_runner *r, const struct dpk_sample *s, size_t n,
                             unsigned nrounds, struct dpk_bench_result *res);

/** The smallest change the counter makes between two reads, in ticks: its resolution. */
double dpk_bench_counter_step(const struct dpk_bench_runner *r);

/** Widen the median's interval of @p sum to a counter step over @p batch operations at
 *  least: the counter resolves no finer. */
void dpk_bench_widen_by_step(const struct dpk_bench_runner *r, uint64_t batch,
                             struct dpk_summary *sum);

/** Mark @p res empty: it ran, but no sample completed within @p time_s. */
void dpk_bench_result_empty(struct dpk_bench_result *res, double time_s);

/* ---- sets: cases in rounds (set.c, rounds.c, multiset.c) --------------------------- */

struct round_case;
struct dpk_bench_mcase;

/** Cases that run in rounds together (engine.h). */
struct dpk_bench_set {
	struct dpk_bench_runner *r;
	struct dpk_bench_item *items; /**< a copy of the caller's */
	unsigned k, repeat;
	struct dpk_bench_result *res; /**< the caller's, k of them */
	bool multi;                   /**< multi-lcore cases on one placement */
	unsigned planned, most;       /**< rounds planned, and at most with extra ones */
	unsigned ran;                 /**< rounds run */
	struct round_case *rc;        /**< single-lcore: the cases */
	struct dpk_bench_mcase *mc;   /**< multi-lcore: the cases */
	double slice_s, warm_s;       /**< multi-lcore: a later round's measure and warm-up */
};

/* The single-lcore sets' steps (rounds.c) and the multi-lcore ones' (multiset.c). */
bool dpk_bench_single_open(struct dpk_bench_set *set);
bool dpk_bench_single_wants(const struct dpk_bench_set *set, unsigned q);
bool dpk_bench_single_round(struct dpk_bench_set *set, unsigned q);
void dpk_bench_single_close(struct dpk_bench_set *set);
bool dpk_bench_multi_open(struct dpk_bench_set *set);
bool dpk_bench_multi_round(struct dpk_bench_set *set, unsigned q);
void dpk_bench_multi_close(struct dpk_bench_set *set);

/* ---- multi-lcore cases in rounds (multi.c, multiset.c) --------------------------------- */

/* Shortest slice of a multi-lcore case on oversub: two lcores on one CPU move only at the
 * scheduler's switches, a few milliseconds apart. */
#define DPK_BENCH_OVERSUB_SLICE_MIN_S 0.05

/* A floor bracket: this many untimed round trips, then batches of this many, at most this
 * many batches, and for at most this long (docs/method.md, "The floor"). */
#define DPK_BENCH_FLOOR_SKIP    256u
#define DPK_BENCH_FLOOR_TRIPS   32u
#define DPK_BENCH_FLOOR_BATCHES 64u
#define DPK_BENCH_FLOOR_MAX_S   0.002

/** One role of a multi-lcore case, across its rounds. */
struct dpk_bench_mrole {
	struct dpk_sample *samples; /**< every round's, in order; round in each */
	size_t ns, cap;
	uint64_t batch;   /**< operations per batch, learnt in the first round */
	uint64_t *ops;    /**< per round: operations completed in its window */
	uint64_t *window; /**< per round: ticks of its measurement window */
	uint64_t *span;   /**< per sample: the counter when its batch began and ended (2 each) */
};

/** A multi-lcore case of a set, across its rounds. */
struct dpk_bench_mcase {
	const struct dpk_bench_suite *s;
	const struct dpk_bench_case *c;
	enum dpk_placement placement;
	unsigned nroles;
	unsigned lcores[DPK_BENCH_ROLES_MAX];
	bool floors;     /**< roles 0 and 1 are on two CPUs: each round is bracketed */
	unsigned slices; /**< rounds run */
	bool live;
	uint64_t spent;                 /**< ticks of its slices, set-up and tear-down included */
	struct dpk_bench_round *rounds; /**< per round run */
	struct dpk_bench_mrole role[DPK_BENCH_ROLES_MAX];
};

/** Fill result @p res from the rounds of case @p mc: the rejection rules per role and for
 *  the counted roles pooled, the floor rule, per-round medians, the floor, regimes. */
void dpk_bench_finish_multi(const struct dpk_bench_runner *r, struct dpk_bench_mcase *mc,
                            struct dpk_bench_result *res);

/**
 * Run round @p q of case @p mc: set it up afresh, start its roles, bracket the round with
 * the floor (when mc->floors), warm up for @p warm_s (the first round learns the batch
 * size), measure for @p slice_s, bracket again, join, tear down. The round's floor goes
 * to @p out. False once the case is over (failed: @p res says why).
 */
bool dpk_bench_multi_slice(const struct dpk_bench_runner *r, struct dpk_bench_mcase *mc, unsigned q,
                           double warm_s, double slice_s, struct dpk_bench_round *out,
                           struct dpk_bench_result *res);

#endif /* DPK_BENCH_ENGINE_INT_H */
