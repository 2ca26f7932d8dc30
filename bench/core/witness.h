/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * witness.h - a fixed reference workload that tells how fast the machine runs right now.
 *
 * On a shared host the same code runs at more than one speed, in phases of the whole
 * machine, while the counter's rate stays the same. A case's own figures cannot tell such a
 * phase from a slower version of the code; a workload that never changes can. The witness
 * is a small SP/SC queue private to the harness (not dpkit's ring, so that its speed does
 * not move when dpkit's code does), called out of line like real enqueue and dequeue calls.
 * One timing is DPK_WITNESS_PAIRS enqueue+dequeue pairs after DPK_WITNESS_WARM_PAIRS untimed
 * ones, so that what the measured case left in the caches and branch predictors changes it
 * little; the harness takes one after every batch, so every sample has a timing on each
 * side. A reading is the median of DPK_WITNESS_TIMINGS timings in a row. The measurements
 * behind each constant below are in docs/method.md, "The speed witness".
 */
#ifndef DPK_BENCH_WITNESS_H
#define DPK_BENCH_WITNESS_H

#include <stdbool.h>
#include <stddef.h>

/** Pairs per timing, timings per reading, and the readings the clock check takes at start:
 * at least DPK_WITNESS_CHECK_READINGS, for at least DPK_WITNESS_CHECK_S seconds. On a busy
 * host full-speed stretches come and go within milliseconds, so a few readings in a row
 * may all miss one; half a second of them seldom does. The clock check's fastest reading
 * stands in as the reference for a run that takes none of its own (DPK_WITNESS_REF_RANK). */
#define DPK_WITNESS_PAIRS          64u
#define DPK_WITNESS_TIMINGS        15u
#define DPK_WITNESS_CHECK_READINGS 16u
#define DPK_WITNESS_CHECK_S        0.5

/** Untimed pairs before each timing: enough to bring the queue's lines and branch history
 * back, so that the witness reads alike next to every suite's batches; with one, what the
 * case before had left in the branch predictors still showed. */
#define DPK_WITNESS_WARM_PAIRS 8u

/**
 * A timing is slow when it is over the reference reading by more than this fraction. The
 * reference stands for the machine at full speed, in the place the timings are taken (after
 * a case's batch): the reading DPK_WITNESS_REF_RANK from the fastest of the run's readings.
 * The limit sits in the gap between the timings taken at full speed and those taken in a
 * slow phase, below the point from which the cases themselves run slower. Two runs whose
 * references differ by more than this met the machine at different speeds (spread and
 * compare say so).
 */
#define DPK_WITNESS_LIMIT 0.25

/**
 * The reference is the reading of this rank from the fastest, one in this many (the
 * fastest while there are fewer). A handful of readings run faster than full speed, and
 * judged against the fastest the share of samples called slow follows how fast that one
 * reading happened to come, not the machine. Readings at the clock check, taken back to
 * back rather than after a batch, run faster still, so they stand in only for a run with
 * no readings of its own.
 */
#define DPK_WITNESS_REF_RANK 1000u

/** The most a timing or reading may be and still count as full speed, against the
 * reference reading @p ref. */
static inline double dpk_bench_witness_limit(double ref)
{
	return ref * (1.0 + DPK_WITNESS_LIMIT);
}

/** Whether two rounds met the machine at different speeds: their median witness timings
 * @p a and @p b (ticks per pair; one not above 0 or NaN: unknown, not apart) differ by more
 * than DPK_WITNESS_LIMIT. A ratio of two such rounds measures the host, not the code. */
static inline bool dpk_bench_witness_apart(double a, double b)
{
	return a > 0 && b > 0 && (a > b ? a / b : b / a) > 1.0 + DPK_WITNESS_LIMIT;
}

/** Whether two cases' rounds are to be paired as run (slow samples included) rather than on
 * their kept samples: when @p kept pairs of rounds both kept samples, fewer than @p least
 * (the fewest that give an interval) or than half the @p as_run pairs of the rounds as run.
 * The host then slowed most rounds, and pairing kept samples alone would lose them. */
static inline bool dpk_bench_pair_as_run(size_t kept, size_t as_run, size_t least)
{
	return kept < least || 2 * kept < as_run;
}

/** A case's slow samples are set aside only if at least this many fast ones are left after
 * the other rejections; with fewer it keeps the slow ones. */
#define DPK_WITNESS_MIN_FAST 16u

/** One timing: TSC ticks per enqueue+dequeue pair over DPK_WITNESS_PAIRS pairs, the fenced
 * counter reads included. Starts a page of its own, as do the queue calls it times. */
double dpk_bench_witness_timing(void);

/** One reading: the median of DPK_WITNESS_TIMINGS timings. */
double dpk_bench_witness(void);

/** What the speed witness saw over the rounds of a run (dpk_bench_run_rounds). */
struct dpk_bench_witness_log {
	double best;    /**< fastest reading, the clock check's included; ticks */
	double check;   /**< the clock check's fastest reading (INFINITY or 0: none) */
	double ref;     /**< the reference (dpk_bench_witness_ref()) when last judged */
	bool ref_check; /**< it was the clock check's reading */
	double *v;      /**< readings: medians of DPK_WITNESS_TIMINGS timings in a row in a slice */
	size_t n, cap;
	size_t samples;   /**< samples judged */
	size_t slow;      /**< of them next to a timing over dpk_bench_witness_limit() of the
	                       reference as it was when their call of dpk_bench_run_rounds ended */
	size_t set_aside; /**< of the slow ones, those the witness set aside (not those another
	                       rule had rejected, nor those kept for want of fast ones) */
	unsigned rounds;  /**< rounds run, over every call */
	unsigned extra;   /**< of them beyond the planned rounds, for want of fast samples */
	unsigned slow_only_cases; /**< results with witness_slow_only (dpk_bench_witness_finish) */
};

/** Timings in a row within one slice, made into a reading once there are
 *  DPK_WITNESS_TIMINGS of them. */
struct dpk_bench_witness_block {
	double t[DPK_WITNESS_TIMINGS];
	unsigned n;
};

/** Note reading @p w in @p log (and its fastest); false when out of memory. */
bool dpk_bench_witness_note(struct dpk_bench_witness_log *log, double w);

/** Add timing @p w to block @p b; a full block becomes a reading in @p log (its median).
 *  False when out of memory. */
bool dpk_bench_witness_add(struct dpk_bench_witness_block *b, struct dpk_bench_witness_log *log,
                           double w);

/**
 * The speed witness's reference reading for @p log: the reading DPK_WITNESS_REF_RANK from
 * the fastest of its readings (the fastest while it has fewer), or log->check while it has
 * none; @p from_check (when not NULL) tells which. Out of
 * memory for a copy of the readings, the fastest reading (log->best); INFINITY when there
 * is no reading at all.
 */
double dpk_bench_witness_ref(const struct dpk_bench_witness_log *log, bool *from_check);

/** Free the readings of @p log and zero it. */
void dpk_bench_witness_log_free(struct dpk_bench_witness_log *log);

#endif /* DPK_BENCH_WITNESS_H */
