/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * witness.h - a fixed reference workload that tells how fast the machine runs right now.
 *
 * On a shared host the same code can run at two speeds for seconds at a time: on the
 * development VM every ring case slowed by 1.4-1.9x at once, in the same rounds, with the
 * counter rate unchanged. A case's own figures cannot tell such a phase from a slower
 * version of the code; a workload that never changes can. The witness is a small SP/SC
 * queue private to the harness (not dpkit's ring, so that its speed does not move when
 * dpkit's code does), called out of line like real enqueue and dequeue calls: one timing is
 * 256 enqueue+dequeue pairs, a witness reading the median of 15 timings (about 20 us).
 */
#ifndef DPK_BENCH_WITNESS_H
#define DPK_BENCH_WITNESS_H

/** Pairs per timing and timings per reading. */
#define DPK_WITNESS_PAIRS   256u
#define DPK_WITNESS_TIMINGS 15u

/**
 * A slice is slow when a reading next to it is over the fastest reading so far by more than
 * this fraction. The slow phases seen are 40% and more; readings in a steady phase vary
 * by about 5% (the counter's coarse step is about 1% of a timing).
 */
#define DPK_WITNESS_LIMIT 0.20

/** One reading: TSC ticks per enqueue+dequeue pair, median of DPK_WITNESS_TIMINGS. */
double dpk_bench_witness(void);

#endif /* DPK_BENCH_WITNESS_H */
