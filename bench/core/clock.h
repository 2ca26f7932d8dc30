/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clock.h - the clock self-check a run starts with: the counter's frequency and where it
 * came from, what a fenced read pair costs, the counter's resolution, the sample lengths
 * that keep both under 1% of a sample, the core-clock chain's check (coreclock.h) and the
 * speed witness's readings at full speed (witness.h).
 */
#ifndef DPK_BENCH_CLOCK_H
#define DPK_BENCH_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What the clock self-check found. */
struct dpk_bench_clock {
	uint64_t hz;               /**< counter frequency */
	const char *source;        /**< where the frequency came from */
	double hz_check;           /**< a 20 ms calibration against CLOCK_MONOTONIC_RAW */
	double read_cost;          /**< median ticks of an empty fenced begin/end pair */
	double read_cost_min;      /**< smallest such pair */
	uint64_t granularity;      /**< GCD of the changes between back-to-back counter reads,
	                                bumps left out: the tick step */
	uint64_t min_delta;        /**< the smallest such change */
	size_t bumps;              /**< reads left out as bumps (dpk_bench_counter_resolution()) */
	double target_single;      /**< sample length for single-lcore cases, ticks */
	double target_multi;       /**< sample length for multi-lcore cases, ticks */
	double witness;            /**< fastest of the speed-witness readings at start (witness.h),
	                                ticks per pair */
	unsigned witness_readings; /**< how many: DPK_WITNESS_CHECK_READINGS or more */
	double witness_s;          /**< over how long, seconds: DPK_WITNESS_CHECK_S or more */
	double mul_cycles; /**< cycles a multiply of the core-clock chain took, against a chain
	                        of adds (coreclock.h); NAN where there is no chain */
	bool cycles_on;    /**< mul_cycles is what the chain assumes: single-lcore cases get
	                        figures in core cycles */
};

/**
 * The counter's resolution from @p n back-to-back reads @p reads: the GCD of the changes
 * between them (@p gcd, at least 1) and the smallest change (@p min_delta, 0 if none).
 * A change under a quarter of the median of the first 256 is a bump, not a step: a counter
 * that moves in steps and never reads the same twice adds one to a read that falls in the
 * last read's step. Such reads are skipped (the next change is taken from the read before
 * them) and counted in @p bumps.
 */
void dpk_bench_counter_resolution(const uint64_t *reads, size_t n, uint64_t *gcd,
                                  uint64_t *min_delta, size_t *bumps);

/** Set the sample targets of @p k from its hz, read_cost, granularity and min_delta: read
 * cost and resolution (the larger of granularity and min_delta) each under 1% of a
 * sample, and at least a floor in ns per kind of case. */
void dpk_bench_clock_targets(struct dpk_bench_clock *k);

/** Measure the clock, and set the sample targets by dpk_bench_clock_targets(); take
 * speed-witness readings for @p witness_s seconds (at least DPK_WITNESS_CHECK_READINGS). */
void dpk_bench_clock_check(struct dpk_bench_clock *k, double witness_s);

#endif /* DPK_BENCH_CLOCK_H */
