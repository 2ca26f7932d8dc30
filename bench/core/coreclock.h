/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coreclock.h - the core clock against the counter, read without performance counters.
 *
 * The counter the harness reads (the TSC) runs at a fixed rate; the core does not, and a
 * host that moves its clock moves every case with it (docs/method.md, "Core cycles"). A
 * guest without a PMU has no cycle counter. A chain whose length in core cycles is known
 * gives the ratio instead: DPK_CORECLOCK_MULS dependent 64-bit multiplies take
 * DPK_CORECLOCK_MULS x DPK_CORECLOCK_MUL_CYCLES core cycles, whatever the clock, on the
 * x86-64 cores of the last decade (3 cycles each: Intel since Nehalem, AMD since Zen). The
 * harness times one chain after every batch of a single-lcore case run in rounds
 * (dpk_bench_run_rounds(); not in interleaved groups), next to the speed witness's timing,
 * and turns each round's kept samples into core cycles with that round's pace
 * (dpk_stats_kept_cycles()).
 *
 * The 3 cycles are checked once, at the clock check: a chain of DPK_CORECLOCK_ADDS
 * dependent register adds, one cycle each on every x86-64 core, is as many cycles as the
 * multiply chain, so the two take the same time at any clock when a multiply takes 3. Where
 * they do not (another core, an emulator), the harness gives no figures in cycles.
 */
#ifndef DPK_BENCH_CORECLOCK_H
#define DPK_BENCH_CORECLOCK_H

#include <stdbool.h>

/** Multiplies in a chain, and the core cycles each takes. */
#define DPK_CORECLOCK_MULS       256u
#define DPK_CORECLOCK_MUL_CYCLES 3u

/** Core cycles in one chain. */
#define DPK_CORECLOCK_CHAIN_CYCLES ((double)(DPK_CORECLOCK_MULS * DPK_CORECLOCK_MUL_CYCLES))

/** Adds in the checking chain: as many as the multiply chain's cycles, one cycle each. */
#define DPK_CORECLOCK_ADDS (DPK_CORECLOCK_MULS * DPK_CORECLOCK_MUL_CYCLES)

/** How far the measured multiply may lie from DPK_CORECLOCK_MUL_CYCLES, as a fraction. */
#define DPK_CORECLOCK_MUL_TOLERANCE 0.1

/** Timings of each chain a check takes, alternating; the clock check judges by the mean of
 * the middle half of each chain's. */
#define DPK_CORECLOCK_CHECK_TIMINGS 101u

/** Checks the clock check takes at most: it stops at the first that passes. */
#define DPK_CORECLOCK_CHECKS 5u

/**
 * One timing: TSC ticks for a chain of DPK_CORECLOCK_MULS dependent multiplies, the fenced
 * counter reads included (subtract the clock's read cost to get the chain's own time).
 * Returns 0 where the build has no chain (not x86-64): no figure in cycles then.
 */
double dpk_bench_coreclock_timing(void);

/**
 * One timing of the checking chain: TSC ticks for DPK_CORECLOCK_ADDS dependent adds, the
 * fenced counter reads included. Returns 0 where the build has no chain (not x86-64).
 */
double dpk_bench_coreclock_add_timing(void);

/**
 * Judge the multiply chain by the add chain: @p mul_ticks and @p add_ticks are a typical
 * timing of each (the clock check gives the mean of the middle half of its timings),
 * @p read_cost the fenced read pair's cost in ticks. Sets *@p mul_cycles to
 * the cycles one multiply took, taking an add as one (NAN when the add chain's time, less
 * the read cost, is not over 0, or when either timing is missing or not finite). Returns
 * true when that is within DPK_CORECLOCK_MUL_TOLERANCE of DPK_CORECLOCK_MUL_CYCLES: the
 * chain can stand for the core clock.
 */
bool dpk_bench_coreclock_judge(double mul_ticks, double add_ticks, double read_cost,
                               double *mul_cycles);

#endif /* DPK_BENCH_CORECLOCK_H */
