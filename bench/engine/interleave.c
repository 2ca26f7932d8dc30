/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * interleave.c - variants of one question (--interleave): run in the same rounds, one slice
 * of each in turn, and reported as paired ratios to the group's first member, round by
 * round. Multi-lcore variants run as a multi-lcore set on one placement (multiset.c), each
 * slice bracketed by its own floor, and pair in ticks.
 *
 * A round gives each member a slice of its own (set up, warmed up, then timed for the
 * slice), as `run` does for any set: the pair of slices in one round shares the host's
 * moment, and a member never times a batch right after another member's. Alternating
 * single batches instead leaves each batch to start on the other member's branch history
 * and cache lines, which slowed both members and not by the same factor (docs/method.md,
 * "Interleaved groups").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_int.h"
#include "witness.h"

/* Round @p q's figure of @p res in core cycles (@p cycles) or ticks: its kept samples'
 * median or, with @p whole, the round as the machine ran it (whole_p50); NaN when it has
 * no such sample. */
static double round_value(const struct dpk_bench_result *res, unsigned q, bool cycles, bool whole)
{
	const struct dpk_bench_round *rd = &res->rounds[q];

	if (whole)
		return !rd->whole ? NAN : cycles ? rd->whole_p50_cycles : rd->whole_p50;
	return !rd->kept ? NAN : cycles ? rd->p50_cycles : rd->p50;
}

/* The ratios of @p m's rounds to @p ref's into @p ratio: their kept samples' medians, or
 * with @p whole the rounds as run, leaving out the pairs whose witness medians lie apart
 * (the machine changed speed between the two slices). Returns how many. */
static size_t ratios_of(const struct dpk_bench_result *ref, const struct dpk_bench_result *m,
                        unsigned n, bool cycles, bool whole, double *ratio)
{
	size_t k = 0;

	for (unsigned q = 0; q < n; q++) {
		const double a = round_value(ref, q, cycles, whole),
		             b = round_value(m, q, cycles, whole);

		if (a > 0 && b > 0 &&
		    !(whole && dpk_bench_witness_apart(ref->rounds[q].whole_witness,
		                                       m->rounds[q].whole_witness)))
			ratio[k++] = b / a;
	}
	return k;
}

/* The counter's step as a share of one batch of @p res: a round's median is timed to a
 * step of its batches at best, so a ratio of two to the sum of both shares. */
static double batch_step(const struct dpk_bench_runner *r, const struct dpk_bench_result *res)
{
	const double t = (double)res->batch_ops * res->ticks.p50;

	return t > 0 ? dpk_bench_counter_step(r) / t : 0;
}

/*
 * The ratio of member @p m to member @p ref, round by round, in core cycles where both have
 * them (the clock may change between two slices), else in ticks: over the rounds in which
 * both kept samples, which are the rounds the members' own figures rest on; or, when those
 * are fewer than DPK_BENCH_PAIR_ROUNDS_MIN or than half the rounds both ran, over the rounds
 * as run (pair_as_run: the host slowed most of them). Its median and 95% interval (order
 * statistics), the interval widened to the ratio's resolution; no interval (NaN) from fewer
 * than DPK_BENCH_PAIR_ROUNDS_MIN rounds. Nothing when either did not run.
 */
static void pair_ratio(const struct dpk_bench_runner *r, const struct dpk_bench_result *ref,
                       struct dpk_bench_result *m)
{
	const unsigned n = ref->nrounds < m->nrounds ? ref->nrounds : m->nrounds;
	const bool cycles = ref->cycles.n > 0 && m->cycles.n > 0;
	double *ratio = malloc((n ? n : 1) * sizeof(*ratio));
	size_t k, kept;

	m->pair_rounds = 0;
	if (!ratio || ref->status != DPK_RESULT_OK || m->status != DPK_RESULT_OK ||
	    !ref->whole_rounds || !m->whole_rounds) {
		free(ratio);
		return;
	}
	kept = ratios_of(ref, m, n, cycles, false, ratio);
	k = ratios_of(ref, m, n, cycles, true, ratio);
	m->pair_as_run = dpk_bench_pair_as_run(kept, k, DPK_BENCH_PAIR_ROUNDS_MIN);
	if (!m->pair_as_run)
		k = ratios_of(ref, m, n, cycles, false, ratio);
	m->pair_rounds = k;
	m->pair_cycles = cycles;
	dpk_stats_summarise(ratio, k, &m->pair_ratio);
	if (k < DPK_BENCH_PAIR_ROUNDS_MIN && m != ref) {
		m->pair_ratio.p50_lo = m->pair_ratio.p50_hi = NAN;
	} else if (k && m != ref) { /* the reference against itself is 1 exactly */
		struct dpk_summary *pr = &m->pair_ratio;
		const double s = batch_step(r, ref) + batch_step(r, m);

		pr->p50_lo = fmin(pr->p50_lo, pr->p50 * (1 - s));
		pr->p50_hi = fmax(pr->p50_hi, pr->p50 * (1 + s));
	}
	free(ratio);
}

/*
 * The ratio of multi-lcore member @p m to member @p ref, round by round, in ticks: over the
 * rounds both kept and neither set aside, but for those whose two floors lie apart. Its
 * median and 95% interval, none (NaN) from fewer than DPK_BENCH_PAIR_ROUNDS_MIN rounds.
 */
static void multi_pair_ratio(const struct dpk_bench_result *ref, struct dpk_bench_result *m)
{
	const unsigned n = ref->nrounds < m->nrounds ? ref->nrounds : m->nrounds;
	double ratio[DPK_BENCH_ROUNDS_MAX];
	size_t k = 0;

	m->pair_rounds = 0;
	m->pair_cycles = m->pair_as_run = false;
	if (ref->status != DPK_RESULT_OK || m->status != DPK_RESULT_OK || !ref->rounds ||
	    !m->rounds)
		return;
	for (unsigned q = 0; q < n && q < DPK_BENCH_ROUNDS_MAX; q++) {
		const struct dpk_bench_round *a = &ref->rounds[q], *b = &m->rounds[q];

		if (a->kept && b->kept && !a->set_aside && !b->set_aside && a->p50 > 0 &&
		    b->p50 > 0 && !dpk_bench_floors_apart(a->floor, b->floor))
			ratio[k++] = b->p50 / a->p50;
	}
	m->pair_rounds = k;
	dpk_stats_summarise(ratio, k, &m->pair_ratio);
	if (k < DPK_BENCH_PAIR_ROUNDS_MIN && m != ref)
		m->pair_ratio.p50_lo = m->pair_ratio.p50_hi = NAN;
}

void dpk_bench_run_interleaved_multi(struct dpk_bench_runner *r, const struct dpk_bench_item *items,
                                     unsigned k, unsigned repeat, struct dpk_bench_result *res)
{
	dpk_bench_run_multi_rounds(r, items, k, repeat, res, NULL, NULL);
	for (unsigned i = 0; i < k; i++) {
		res[i].interleaved = true;
		res[i].ref_suite = items[0].s;
		res[i].ref_case = items[0].c;
		res[i].group_size = k;
		multi_pair_ratio(&res[0], &res[i]);
	}
}

void dpk_bench_run_interleaved(struct dpk_bench_runner *r,
                               const struct dpk_bench_suite *const *suites,
                               const struct dpk_bench_case *const *cases, unsigned k,
                               unsigned repeat, struct dpk_bench_result *res)
{
	dpk_bench_run_rounds(r, suites, cases, k, repeat, res, NULL, NULL);
	for (unsigned i = 0; i < k; i++) {
		res[i].interleaved = true;
		res[i].ref_suite = suites[0];
		res[i].ref_case = cases[0];
		res[i].group_size = k;
		pair_ratio(r, &res[0], &res[i]);
	}
}
