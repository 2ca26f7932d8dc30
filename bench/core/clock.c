/* SPDX-License-Identifier: BSD-3-Clause */
/* The clock self-check (clock.h). */
#include <math.h>
#include <string.h>

#include <dpk/cycles.h>

#include "clock.h"
#include "coreclock.h"
#include "stats.h"
#include "witness.h"

/* Samples are at least this many times the read cost and the tick step, so each of the
 * two stays under 1% of a sample. */
#define TARGET_FACTOR 100.0
/* ... and at least this long, so the per-sample bookkeeping around the window stays
 * small next to it. */
#define SINGLE_MIN_NS 2000.0
/* Multi-lcore samples are longer: a role's bookkeeping between batches (a getrusage
 * call, the sample store) stalls its partner, so it must be a small share of a batch. */
#define MULTI_MIN_NS 200000.0

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * The mean of the middle half of @p v (sorted in place). A chain timing comes in the
 * counter's steps, which can be a few percent of a chain, so two chains' medians can differ
 * by a step either way; the mean of many timings taken at every phase of the step resolves
 * finer, and leaving out each quarter at the ends keeps interrupts out (docs/method.md,
 * "Core cycles").
 */
static double middle_mean(double *v, size_t n)
{
	double sum = 0;
	size_t a = n / 4, b = n - n / 4;

	dpk_stats_sort(v, n);
	for (size_t i = a; i < b; i++)
		sum += v[i];
	return b > a ? sum / (double)(b - a) : NAN;
}

void dpk_bench_counter_resolution(const uint64_t *reads, size_t n, uint64_t *gcd,
                                  uint64_t *min_delta, size_t *bumps)
{
	enum { PROBE = 256 };
	double probe[PROBE];
	uint64_t g = 0, mind = UINT64_MAX, floor_change = 0, last;
	size_t np = 0, nb = 0;

	/* A typical change first: the median of the first few hundred, those of 1 left out, for
	 * a step never is 1 on a counter with bumps, which could be most reads of a fast loop. */
	for (size_t i = 1; i < n && i <= PROBE; i++)
		if (reads[i] - reads[i - 1] > 1)
			probe[np++] = (double)(reads[i] - reads[i - 1]);
	if (np)
		floor_change = (uint64_t)dpk_stats_select(probe, np, np / 2) / 4;

	/* A counter that moves in steps but must never read the same twice (AMD's, and a KVM
	 * guest's on it) returns one more than the last read when a read falls in the same
	 * step. Such a read is a bump, not a step: skipped, and the next change taken from the
	 * last read that was on a step. A change under a quarter of the median is a bump
	 * (docs/method.md, "Counter resolution"). */
	last = n ? reads[0] : 0;
	for (size_t i = 1; i < n; i++) {
		uint64_t d = reads[i] - last;

		if (d == 0)
			continue;
		if (d < floor_change) {
			nb++;
			continue;
		}
		last = reads[i];
		g = gcd64(g, d);
		if (d < mind)
			mind = d;
	}
	*gcd = g ? g : 1;
	*min_delta = mind == UINT64_MAX ? 0 : mind;
	*bumps = nb;
}

void dpk_bench_clock_targets(struct dpk_bench_clock *k)
{
	const double ns_per_tick = 1e9 / (double)k->hz;
	/* The counter's resolution: a counter scaled from a coarser one (a KVM guest's) has
	 * changes whose GCD is 1 while none is under the smallest, and where a read takes longer
	 * than a step, two reads resolve no finer (docs/method.md, "Counter resolution"). */
	const double step = (double)(k->min_delta > k->granularity ? k->min_delta : k->granularity);

	k->target_single = TARGET_FACTOR * (k->read_cost > step ? k->read_cost : step);
	if (k->target_single < SINGLE_MIN_NS / ns_per_tick)
		k->target_single = SINGLE_MIN_NS / ns_per_tick;
	k->target_multi = k->target_single;
	if (k->target_multi < MULTI_MIN_NS / ns_per_tick)
		k->target_multi = MULTI_MIN_NS / ns_per_tick;
}

void dpk_bench_clock_check(struct dpk_bench_clock *k, double witness_s)
{
	enum { N = 20001, RES_READS = 100000 };
	static double cost[N];
	static uint64_t res_reads[RES_READS];

	memset(k, 0, sizeof(*k));
	k->hz = dpk_tsc_hz();
	k->source = dpk_tsc_source_name(dpk_tsc_hz_source());
	k->hz_check = (double)dpk_tsc_calibrate(20);

	/* Cost of the window itself: an empty begin/end pair. */
	for (unsigned i = 0; i < N; i++) {
		uint64_t a = dpk_tsc_begin();
		uint64_t b = dpk_tsc_end();
		cost[i] = (double)(b - a);
	}
	dpk_stats_sort(cost, N);
	k->read_cost = cost[N / 2];
	k->read_cost_min = cost[0];

	/* The counter's resolution, from back-to-back reads (dpk_bench_counter_resolution()). */
	for (unsigned i = 0; i < RES_READS; i++)
		res_reads[i] = dpk_tsc();
	dpk_bench_counter_resolution(res_reads, RES_READS, &k->granularity, &k->min_delta,
	                             &k->bumps);

	dpk_bench_clock_targets(k);

	/* The core-clock chain's multiplies, judged against a chain of adds (coreclock.h).
	 * Taken in turn, so that a change of clock meets both chains alike. A neighbour that
	 * slows one chain's timings more than the other's can move one check by a few percent,
	 * so a check that fails is taken again, up to DPK_CORECLOCK_CHECKS times: a core whose
	 * multiply is not 3 cycles fails every one. */
	double mul[DPK_CORECLOCK_CHECK_TIMINGS], add[DPK_CORECLOCK_CHECK_TIMINGS];

	for (unsigned c = 0; c < DPK_CORECLOCK_CHECKS && !k->cycles_on; c++) {
		for (unsigned i = 0; i < DPK_CORECLOCK_CHECK_TIMINGS; i++) {
			mul[i] = dpk_bench_coreclock_timing();
			add[i] = dpk_bench_coreclock_add_timing();
		}
		k->cycles_on =
		        dpk_bench_coreclock_judge(middle_mean(mul, DPK_CORECLOCK_CHECK_TIMINGS),
		                                  middle_mean(add, DPK_CORECLOCK_CHECK_TIMINGS),
		                                  k->read_cost, &k->mul_cycles);
	}

	/* The witness's readings at the clock check: their fastest stands for full speed in a
	 * run that has no readings of its own, or whose own are slow by it (witness.h). */
	k->witness = INFINITY;
	const uint64_t t0 = dpk_tsc(),
	               span = (uint64_t)((witness_s > 0 ? witness_s : 0) * (double)k->hz);
	k->witness_readings = 0;
	while (k->witness_readings < DPK_WITNESS_CHECK_READINGS || dpk_tsc() - t0 < span) {
		double w = dpk_bench_witness();
		if (w < k->witness)
			k->witness = w;
		k->witness_readings++;
	}
	k->witness_s = (double)(dpk_tsc() - t0) / (double)k->hz;
}
