/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coreclock.h - the core clock against the counter, read without performance counters.
 *
 * The counter the harness reads (the TSC) runs at a fixed rate; the core does not. On the
 * development VM a chain of dependent multiplies ran 2-3% slower in some stretches than
 * in others, for tens of seconds at a time, and every ring case moved with it: over twelve
 * back-to-back ring runs the chain's pace and the run's median slowdown correlated at 0.97.
 * A guest there has no PMU, and so no cycle counter. A chain whose length in core cycles
 * is known gives the ratio instead: DPK_CORECLOCK_MULS dependent 64-bit multiplies take
 * DPK_CORECLOCK_MULS x DPK_CORECLOCK_MUL_CYCLES core cycles, whatever the clock, on the
 * x86-64 cores of the last decade (3 cycles each: Intel since Nehalem, AMD since Zen). The
 * harness times one chain after every batch of a single-lcore case run in rounds
 * (dpk_bench_run_rounds(); not in interleaved groups), next to the speed witness's timing,
 * and turns each round's kept samples into core cycles with that round's pace
 * (dpk_stats_kept_cycles()).
 */
#ifndef DPK_BENCH_CORECLOCK_H
#define DPK_BENCH_CORECLOCK_H

/** Multiplies in a chain, and the core cycles each takes. */
#define DPK_CORECLOCK_MULS       256u
#define DPK_CORECLOCK_MUL_CYCLES 3u

/** Core cycles in one chain. */
#define DPK_CORECLOCK_CHAIN_CYCLES ((double)(DPK_CORECLOCK_MULS * DPK_CORECLOCK_MUL_CYCLES))

/**
 * One timing: TSC ticks for a chain of DPK_CORECLOCK_MULS dependent multiplies, the fenced
 * counter reads included (subtract the clock's read cost to get the chain's own time).
 * Returns 0 where the build has no chain (not x86-64): no figure in cycles then.
 */
double dpk_bench_coreclock_timing(void);

#endif /* DPK_BENCH_CORECLOCK_H */
