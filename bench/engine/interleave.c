/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * interleave.c - single-lcore variants of one question (--interleave): calibrated and
 * warmed up alone, then timed one batch of each in turn, and reported as paired ratios to
 * the group's first member.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "engine_int.h"

/* An interleaved group in progress. */
struct group {
	const struct dpk_bench_runner *r;
	unsigned k;
	struct dpk_bench_result *res;
	struct dpk_bench_ctl *runs;
	struct dpk_sample **samples;
	uint64_t *n;       /* batch size of each member */
	double *sum_ticks; /* ticks of each member's batches */
	bool *set_up;
	size_t rounds; /* rounds timed */
};

static void group_free(struct group *g)
{
	for (unsigned i = 0; g->samples && i < g->k; i++)
		free(g->samples[i]);
	free(g->samples);
	free(g->runs);
	free(g->n);
	free(g->sum_ticks);
	free(g->set_up);
}

static bool group_alloc(struct group *g, size_t cap)
{
	const unsigned k = g->k;
	bool ok;

	g->runs = calloc(k, sizeof(*g->runs));
	g->samples = calloc(k, sizeof(*g->samples));
	g->n = calloc(k, sizeof(*g->n));
	g->sum_ticks = calloc(k, sizeof(*g->sum_ticks));
	g->set_up = calloc(k, sizeof(*g->set_up));
	ok = g->runs && g->samples && g->n && g->sum_ticks && g->set_up;
	for (unsigned i = 0; ok && i < k; i++) {
		g->samples[i] = calloc(cap ? cap : 1, sizeof(struct dpk_sample));
		ok = g->samples[i] != NULL;
	}
	return ok;
}

/* Set up, calibrate and warm up each member alone. */
static bool group_prepare(struct group *g, const struct dpk_bench_case *const *cases)
{
	for (unsigned i = 0; i < g->k; i++) {
		dpk_bench_ctl_init(&g->runs[i], cases[i], DPK_PLACE_SINGLE, 1);
		if (!dpk_bench_ctl_setup(&g->runs[i], i, &g->res[i]))
			return false;
		g->set_up[i] = true;
		if (!dpk_bench_calibrate(g->r, &g->runs[i], &g->n[i]))
			return false;
	}
	return true;
}

/*
 * Rounds: one batch of each member, starting one member later every round, so every member
 * takes every position equally often, until k times the budget is spent. The slow-round
 * rule sees the group's time cut into dpk_bench_rounds_of() slices; a slice holds many of
 * these rounds, and the same slices for every member. The budget is for the rounds:
 * set-up, calibration and warm-up (slow under a sanitizer or on a loaded host) must not
 * eat it, or a group could end with no round at all.
 */
static void group_rounds(struct group *g, size_t cap)
{
	const uint64_t budget = (uint64_t)(g->r->opt.time_s * (double)g->r->clock.hz * g->k);
	const uint64_t slice = budget / dpk_bench_rounds_of(g->r) + 1;
	const uint64_t t_rounds = dpk_tsc();
	uint64_t now = t_rounds;

	while (now - t_rounds < budget && g->rounds < cap) {
		uint16_t part = (uint16_t)((now - t_rounds) / slice);

		for (unsigned j = 0; j < g->k; j++) {
			unsigned i = (unsigned)((g->rounds + j) % g->k);
			struct dpk_sample *s = &g->samples[i][g->rounds];
			double ticks;

			/* One offset for k rounds in a row: each variant takes it once in every
			 * position, so order and layout do not go together. */
			g->runs[i].stack_shift =
			        dpk_bench_stack_shift_of((unsigned)(g->rounds / g->k));
			if (dpk_bench_time_batch(&g->runs[i], 0, g->n[i], g->r->clock.read_cost, s,
			                         false, &ticks) < g->n[i] ||
			    dpk_bench_ctl_failed(&g->runs[i]))
				return;
			s->round = part;
			g->sum_ticks[i] += ticks;
		}
		g->rounds++;
		now = dpk_tsc();
	}
}

/* One slow-round decision for the group, from the reference's own rounds: deciding per
 * member would keep each member's luckiest stretches and bias the paired ratios. */
static void group_slow_parts(struct group *g, uint8_t *slow_part)
{
	if (g->res[0].status != DPK_RESULT_OK || !(g->r->opt.slow_limit > 0))
		return;
	dpk_stats_reject(g->samples[0], g->rounds, true, NULL);
	dpk_stats_reject_slow(g->samples[0], g->rounds, g->r->opt.slow_limit, NULL);
	for (size_t q = 0; q < g->rounds; q++)
		if (g->samples[0][q].reject == DPK_REJECT_SLOW)
			slow_part[g->samples[0][q].round] = 1;
}

/* A member that failed or was skipped stops the whole group: say so in the others'
 * results. */
static void group_stopped(struct group *g, const struct dpk_bench_suite *const *suites,
                          const struct dpk_bench_case *const *cases)
{
	for (unsigned i = 0; i < g->k; i++) {
		if (g->res[i].status != DPK_RESULT_OK || g->res[i].reject[0] != 0)
			continue;
		for (unsigned j = 0; j < g->k; j++)
			if (g->res[j].status == DPK_RESULT_FAILED ||
			    g->res[j].status == DPK_RESULT_SKIPPED) {
				g->res[i].status = DPK_RESULT_EMPTY;
				snprintf(g->res[i].reason, sizeof(g->res[i].reason),
				         "interleaved group stopped: %s/%s %s", suites[j]->name,
				         cases[j]->name,
				         g->res[j].status == DPK_RESULT_FAILED ? "failed"
				                                               : "skipped");
				break;
			}
	}
}

/* The counter's step as a share of member @p i's median batch: a batch is timed to a step
 * at best, so a ratio of two batches to the sum of both shares. */
static double batch_step(const struct group *g, unsigned i)
{
	const double t = (double)g->n[i] * g->res[i].ticks.p50;

	return t > 0 ? dpk_bench_counter_step(g->r) / t : 0;
}

/* Paired ratios to member 0 over rounds where both kept their sample (the reject marks
 * were set by the members' rejection passes). Many batches timed to the same counter steps
 * give many equal ratios, and order statistics alone a zero-wide interval: it is widened
 * to the ratio's resolution, a step of either batch. */
static void group_ratios(struct group *g)
{
	double *ratio = calloc(g->rounds ? g->rounds : 1, sizeof(double));

	for (unsigned i = 0; ratio && i < g->k; i++) {
		size_t m = 0;

		for (size_t q = 0; q < g->rounds; q++) {
			const struct dpk_sample *a = &g->samples[0][q], *b = &g->samples[i][q];

			if (a->reject == DPK_REJECT_NONE && b->reject == DPK_REJECT_NONE &&
			    a->ticks_per_op > 0)
				ratio[m++] = b->ticks_per_op / a->ticks_per_op;
		}
		g->res[i].pair_rounds = m;
		dpk_stats_summarise(ratio, m, &g->res[i].pair_ratio);
		if (i > 0 && m) { /* member 0 against itself is 1 exactly */
			struct dpk_summary *pr = &g->res[i].pair_ratio;
			const double q = batch_step(g, 0) + batch_step(g, i);

			pr->p50_lo = fmin(pr->p50_lo, pr->p50 * (1 - q));
			pr->p50_hi = fmax(pr->p50_hi, pr->p50 * (1 + q));
		}
	}
	free(ratio);
}

/* Judge the members and tear them down. */
static void group_finish(struct group *g, const struct dpk_bench_suite *const *suites,
                         const struct dpk_bench_case *const *cases, bool counted,
                         struct dpk_bench_switches cs0)
{
	uint8_t slow_part[DPK_BENCH_ROUNDS_MAX] = {0};
	const struct dpk_bench_slow_rounds parts = {slow_part, DPK_BENCH_ROUNDS_MAX};

	if (counted)
		dpk_stats_give_switches(g->samples, g->k, g->rounds,
		                        dpk_bench_switches_since(g->r, cs0));
	group_slow_parts(g, slow_part);
	for (unsigned i = 0; i < g->k; i++) {
		if (g->res[i].status == DPK_RESULT_OK)
			dpk_bench_finish_single(
			        g->r, cases[i], g->samples[i], g->rounds, g->n[i], g->sum_ticks[i],
			        (double)g->n[i] * (double)g->rounds, NULL, &parts, &g->res[i]);
		if (g->set_up[i])
			dpk_bench_ctl_teardown(&g->runs[i], &g->res[i]);
	}
	group_stopped(g, suites, cases);
	group_ratios(g);
}

void dpk_bench_run_interleaved(struct dpk_bench_runner *r,
                               const struct dpk_bench_suite *const *suites,
                               const struct dpk_bench_case *const *cases, unsigned k,
                               unsigned repeat, struct dpk_bench_result *res)
{
	const size_t cap = r->opt.max_samples;
	struct group g = {.r = r, .k = k, .res = res};
	struct dpk_bench_switches cs0 = {0, false};
	uint64_t t0 = dpk_tsc();
	bool counted = false;

	for (unsigned i = 0; i < k; i++) {
		dpk_bench_result_init(&res[i], suites[i], cases[i], DPK_PLACE_SINGLE, repeat);
		res[i].interleaved = true;
		res[i].ref_suite = suites[0];
		res[i].ref_case = cases[0];
		res[i].group_size = k;
	}
	if (!group_alloc(&g, cap)) {
		for (unsigned i = 0; i < k; i++)
			dpk_bench_result_fail(&res[i], "out of memory");
		group_free(&g);
		return;
	}
	if (group_prepare(&g, cases)) {
		/* Involuntary switches are counted around all the rounds (batch.c, settle). */
		cs0 = dpk_bench_switches_now(r);
		counted = true;
		for (unsigned i = 0; counted && i < k; i++)
			counted = dpk_bench_settle(&g.runs[i], g.n[i]);
		if (counted)
			group_rounds(&g, cap);
	}
	group_finish(&g, suites, cases, counted, cs0);
	for (unsigned i = 0; i < k; i++)
		res[i].elapsed_s = (double)(dpk_tsc() - t0) / (double)r->clock.hz / k;
	group_free(&g);
}
