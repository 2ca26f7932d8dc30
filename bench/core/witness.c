/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * witness.c - the speed witness: a private single-threaded queue timed in fixed bursts.
 *
 * Only the calling thread touches the queue, so plain loads and stores suffice. The calls
 * stay out of line (noinline, and noipa where GCC has it), so they keep the call, return
 * and branch traffic of a real queue call and the compiler cannot see that each value read
 * back is the one just written; the empty asm statements with a memory clobber keep the
 * slot store and load in place even if it could.
 *
 * The witness must run at one speed in every build, and where a short loop and its calls
 * fall against the 64-byte fetch lines sets that speed (bench.h, "Code layout"): a change
 * to code the witness never runs can move its functions against those lines, and its
 * readings with them. So each starts a page of its own (DPK_BENCH_HOT_CODE, hotcode.h:
 * which also keeps its place beside the bodies it runs between; docs/method.md, "The speed
 * witness").
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "hotcode.h"
#include "stats.h"
#include "witness.h"

#if defined(__GNUC__) && !defined(__clang__)
#define WITNESS_CALL __attribute__((noinline, noipa)) DPK_BENCH_HOT_CODE
#else
#define WITNESS_CALL __attribute__((noinline)) DPK_BENCH_HOT_CODE
#endif

/* The queue never holds more than one element: eight slots fill one cache line, so a timing
 * touches the same three data lines every time. */
#define SLOTS 8u

struct witness_queue {
	_Alignas(64) uint64_t head; /* next slot to write */
	uint64_t tail_seen;         /* the producer's copy of tail */
	_Alignas(64) uint64_t tail; /* next slot to read */
	uint64_t head_seen;         /* the consumer's copy of head */
	_Alignas(64) uint64_t slot[SLOTS];
};

static _Thread_local struct witness_queue wq;
static _Thread_local uint64_t wseq;

WITNESS_CALL static int witness_enqueue(struct witness_queue *q, uint64_t v)
{
	uint64_t h = q->head;

	if (h - q->tail_seen >= SLOTS) {
		q->tail_seen = q->tail;
		if (h - q->tail_seen >= SLOTS)
			return -1;
	}
	q->slot[h % SLOTS] = v;
	__asm__ volatile("" ::: "memory");
	q->head = h + 1;
	return 0;
}

WITNESS_CALL static int witness_dequeue(struct witness_queue *q, uint64_t *v)
{
	uint64_t t = q->tail;

	if (t == q->head_seen) {
		q->head_seen = q->head;
		if (t == q->head_seen)
			return -1;
	}
	__asm__ volatile("" ::: "memory");
	*v = q->slot[t % SLOTS];
	q->tail = t + 1;
	return 0;
}

/* One enqueue+dequeue pair; a broken witness would time something else, so it stops the
 * program rather than mislead. Never fails: one element in a queue of eight. */
static inline void witness_pair(uint64_t *v)
{
	if (witness_enqueue(&wq, wseq) || witness_dequeue(&wq, v) || *v != wseq)
		abort();
	wseq++;
}

DPK_BENCH_HOT_CODE double dpk_bench_witness_timing(void)
{
	uint64_t v = 0, t0;

	/* Untimed: bring the queue's lines, the code and its branch history back. */
	for (unsigned i = 0; i < DPK_WITNESS_WARM_PAIRS; i++)
		witness_pair(&v);
	t0 = dpk_tsc_begin();
	for (unsigned i = 0; i < DPK_WITNESS_PAIRS; i++)
		witness_pair(&v);
	return (double)(dpk_tsc_end() - t0) / DPK_WITNESS_PAIRS;
}

double dpk_bench_witness(void)
{
	double t[DPK_WITNESS_TIMINGS];

	for (unsigned i = 0; i < DPK_WITNESS_TIMINGS; i++)
		t[i] = dpk_bench_witness_timing();
	/* The runner makes its readings from timings the same way. */
	return dpk_stats_median(t, DPK_WITNESS_TIMINGS);
}

/* ---- the log of a run's readings ------------------------------------------------ */

bool dpk_bench_witness_note(struct dpk_bench_witness_log *log, double w)
{
	if (log->n == log->cap) {
		size_t cap = log->cap ? 2 * log->cap : 256;
		double *v = realloc(log->v, cap * sizeof(*v));

		if (!v)
			return false;
		log->v = v;
		log->cap = cap;
	}
	log->v[log->n++] = w;
	if (w < log->best)
		log->best = w;
	return true;
}

bool dpk_bench_witness_add(struct dpk_bench_witness_block *b, struct dpk_bench_witness_log *log,
                           double w)
{
	b->t[b->n++] = w;
	if (b->n < DPK_WITNESS_TIMINGS)
		return true;
	b->n = 0;
	return dpk_bench_witness_note(log, dpk_stats_median(b->t, DPK_WITNESS_TIMINGS));
}

double dpk_bench_witness_ref(const struct dpk_bench_witness_log *log, bool *from_check)
{
	const double check = log->check > 0 ? log->check : INFINITY;
	double *c, ref;

	if (from_check)
		*from_check = true;
	/* The clock check's readings, taken back to back, run faster than readings taken
	 * after a case's batches, so they stand in only for a run that has none of its own
	 * (docs/method.md, "The speed witness"). */
	if (!log->n)
		return check;
	c = malloc(log->n * sizeof(*c));
	if (!c) { /* out of memory: the fastest reading, as judged before there was a rank */
		if (from_check)
			*from_check = !(log->best > 0);
		return log->best > 0 ? log->best : check;
	}
	memcpy(c, log->v, log->n * sizeof(*c));
	ref = dpk_stats_select(c, log->n, log->n / DPK_WITNESS_REF_RANK);
	free(c);
	if (from_check)
		*from_check = false;
	return ref;
}

void dpk_bench_witness_log_free(struct dpk_bench_witness_log *log)
{
	free(log->v);
	memset(log, 0, sizeof(*log));
}
