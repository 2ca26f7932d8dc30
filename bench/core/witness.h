/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * witness.h - a fixed reference workload that tells how fast the machine runs right now.
 *
 * On a shared host the same code runs at two speeds: on the development VM every ring
 * case slowed by 1.4-2.0x at once, with the counter rate unchanged, in phases
 * from tens of microseconds to tens of seconds long (a neighbour on the physical core, most
 * likely). A case's own figures cannot tell such a phase from a slower version of the code;
 * a workload that never changes can. The witness is a small SP/SC queue private to the
 * harness (not dpkit's ring, so that its speed does not move when dpkit's code does), called
 * out of line like real enqueue and dequeue calls. One timing is DPK_WITNESS_PAIRS
 * enqueue+dequeue pairs (about 0.3 us) after DPK_WITNESS_WARM_PAIRS untimed ones, so that
 * what the measured case left in the caches and branch predictors changes it little; the harness
 * takes one after every batch, so every sample has a timing on each side. A reading is the median
 * of DPK_WITNESS_TIMINGS timings in a row.
 */
#ifndef DPK_BENCH_WITNESS_H
#define DPK_BENCH_WITNESS_H

#include <stdbool.h>
#include <stddef.h>

/** Pairs per timing, timings per reading, and the readings the clock check takes at start:
 * at least DPK_WITNESS_CHECK_READINGS, for at least DPK_WITNESS_CHECK_S seconds. Sixteen
 * readings took 144-150 us on the development VM, and on a busy host the full-speed
 * stretches come and go within a few milliseconds: there sixteen readings in a row reached
 * full speed in none of 20 starts (16.1-20.7 ticks a pair, where runs reached 11.1-11.9),
 * readings for 0.1 s in 6 of 8 (11.1-12.6), and for 0.5 s in 7 of 10 (11.5-12.6). The
 * clock check's fastest reading is what tells a run slow from end to end
 * (DPK_WITNESS_REF_RANK); one that never reached full speed cannot. */
#define DPK_WITNESS_PAIRS          64u
#define DPK_WITNESS_TIMINGS        15u
#define DPK_WITNESS_CHECK_READINGS 16u
#define DPK_WITNESS_CHECK_S        0.5

/** Untimed pairs before each timing. With one, what the case before had left in the branch
 * predictors still showed: on the development VM of 2026-12-01 the median reading was 9.75
 * ticks a pair next to the service suite's batches and 10.56 next to the others', and
 * `make bench` set aside 28% of its samples as slow (reference 8.53). With eight, the
 * medians were 8.94-9.75 and `make bench` set aside 10.6% (reference 8.12, median 9.34);
 * a ring round took as many samples (72-74 thousand). */
#define DPK_WITNESS_WARM_PAIRS 8u

/**
 * A timing is slow when it is over the reference reading by more than this fraction. The
 * reference stands for the machine at full speed, in the place the timings are taken (after
 * a case's batch): the reading DPK_WITNESS_REF_RANK from the fastest of the run's readings.
 * Timings on the development VM fell in two groups with nothing between them, 1.00-1.20x
 * of the fastest reading at full speed and 1.35-2.0x in a slow phase; on another guest of
 * the same kind, against the reference, every one of the 40 one-lcore ring cases ran at
 * the same speed (within 0.5%) next to timings 1.0-1.3x of it and 1.08-1.9x slower next to
 * those of 1.4x and more. Two runs whose references differ by more than this met the
 * machine at different speeds (spread and compare say so).
 */
#define DPK_WITNESS_LIMIT 0.25

/**
 * The reference is the reading of this rank from the fastest, one in this many (the
 * fastest while there are fewer). A handful of readings run faster than full speed: with
 * one untimed pair before a timing, in three runs of eight ring cases (39144-39295 readings each),
 * 2-7 readings at the fastest (8.94-9.34 ticks a pair), the one in a thousand at 9.34-9.75, the
 * median at 10.56-10.97. Judged against the fastest reading, ten runs of the ring suite called
 * 28-78% of their samples slow, as the fastest happened to come, while their figures agreed
 * within 2.5%. Readings at the clock check, taken back to back rather than after a batch, run
 * faster still (8.1-9.75), so they stand in only for a run with no readings of its own, or whose
 * own reference is over the limit of theirs (a run slow from end to end).
 */
#define DPK_WITNESS_REF_RANK 1000u

/** The most a timing or reading may be and still count as full speed, against the
 * reference reading @p ref. */
static inline double dpk_bench_witness_limit(double ref)
{
	return ref * (1.0 + DPK_WITNESS_LIMIT);
}

/** A case's slow samples are set aside only if at least this many fast ones are left after
 * the other rejections; with fewer it keeps the slow ones. */
#define DPK_WITNESS_MIN_FAST 16u

/** One timing: TSC ticks per enqueue+dequeue pair over DPK_WITNESS_PAIRS pairs, the fenced
 * counter reads included. Starts on a 64-byte boundary, as do the queue calls it times. */
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
