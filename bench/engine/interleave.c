/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * interleave.c - single-lcore variants of one question (--interleave): calibrated and
 * warmed up alone, then timed one batch of each in turn, and reported as paired ratios to
 * the group's first member.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "engine_int.h"

void dpk_bench_run_interleaved(struct dpk_bench_runner *r,
                               const struct dpk_bench_suite *const *suites,
                               const struct dpk_bench_case *const *cases, unsigned k,
                               unsigned repeat, struct dpk_bench_result *res)
{
	const double hz = (double)r->clock.hz;
	const uint64_t budget = (uint64_t)(r->opt.time_s * hz * k);
	size_t cap = r->opt.max_samples, rounds = 0;
	struct dpk_bench_ctl *runs = calloc(k, sizeof(*runs));
	struct dpk_sample **samples = calloc(k, sizeof(*samples));
	uint64_t *n = calloc(k, sizeof(*n)), t0 = dpk_tsc();
	double *sum_ticks = calloc(k, sizeof(double)), *ratio = NULL;
	bool ok = runs && samples && n && sum_ticks, *set_up = calloc(k, sizeof(bool));
	uint8_t slow_part[DPK_BENCH_ROUNDS_MAX] = {0};
	const struct dpk_bench_slow_rounds parts = {slow_part, DPK_BENCH_ROUNDS_MAX};
	struct dpk_bench_switches cs0 = {0, false};
	bool counting = false;

	for (unsigned i = 0; i < k; i++) {
		dpk_bench_result_init(&res[i], suites[i], cases[i], DPK_PLACE_SINGLE, repeat);
		res[i].interleaved = true;
		res[i].ref_suite = suites[0];
		res[i].ref_case = cases[0];
		res[i].group_size = k;
	}
	ok = ok && set_up;
	for (unsigned i = 0; ok && i < k; i++) {
		samples[i] = calloc(cap ? cap : 1, sizeof(struct dpk_sample));
		ok = samples[i] != NULL;
	}
	if (!ok) {
		for (unsigned i = 0; i < k; i++)
			dpk_bench_result_fail(&res[i], "out of memory");
		goto out_free;
	}
	/* Set up, calibrate and warm up each member alone. */
	for (unsigned i = 0; i < k; i++) {
		dpk_bench_ctl_init(&runs[i], cases[i], DPK_PLACE_SINGLE, 1);
		if (!dpk_bench_ctl_setup(&runs[i], i, &res[i]))
			goto out_teardown;
		set_up[i] = true;
		if (!dpk_bench_calibrate(r, &runs[i], &n[i]))
			goto out_teardown;
	}
	/* Rounds: one batch of each member, starting one member later every round, so every
	 * member takes every position equally often. */
	/* The slow-round rule sees the group's time cut into dpk_bench_rounds_of(r) slices; a slice
	 * holds many of these rounds, and the same slices for every member. */
	const uint64_t slice = budget / dpk_bench_rounds_of(r) + 1;
	/* Involuntary switches are counted around all the rounds (settle()). */
	cs0 = dpk_bench_switches_now(r);
	for (unsigned i = 0; i < k; i++)
		if (!dpk_bench_settle(&runs[i], n[i]))
			goto out_teardown;
	counting = true;
	/* The budget is for the rounds: set-up, calibration and warm-up (slow under a
	 * sanitizer or on a loaded host) must not eat it, or a group could end with no round
	 * at all. */
	const uint64_t t_rounds = dpk_tsc();
	uint64_t now = t_rounds;
	while (now - t_rounds < budget && rounds < cap) {
		uint16_t part = (uint16_t)((now - t_rounds) / slice);
		for (unsigned j = 0; j < k; j++) {
			unsigned i = (unsigned)((rounds + j) % k);
			double ticks;
			/* One offset for k rounds in a row: each variant takes it once in every
			 * position, so order and layout do not go together. */
			runs[i].stack_shift = dpk_bench_stack_shift_of((unsigned)(rounds / k));
			if (dpk_bench_time_batch(&runs[i], 0, n[i], r->clock.read_cost,
			                         &samples[i][rounds], false, &ticks) < n[i] ||
			    dpk_bench_ctl_failed(&runs[i]))
				goto out_teardown;
			samples[i][rounds].round = part;
			sum_ticks[i] += ticks;
		}
		rounds++;
		now = dpk_tsc();
	}

out_teardown:
	if (counting)
		dpk_stats_give_switches(samples, k, rounds, dpk_bench_switches_since(r, cs0));
	/* One slow-round decision for the group, from the reference's own rounds: deciding per
	 * member would keep each member's luckiest stretches and bias the paired ratios. */
	if (res[0].status == DPK_RESULT_OK && r->opt.slow_limit > 0) {
		dpk_stats_reject(samples[0], rounds, true, NULL);
		dpk_stats_reject_slow(samples[0], rounds, r->opt.slow_limit, NULL);
		for (size_t q = 0; q < rounds; q++)
			if (samples[0][q].reject == DPK_REJECT_SLOW)
				slow_part[samples[0][q].round] = 1;
	}
	for (unsigned i = 0; i < k; i++) {
		if (res[i].status == DPK_RESULT_OK)
			dpk_bench_finish_single(r, cases[i], samples[i], rounds, n[i], sum_ticks[i],
			                        (double)n[i] * (double)rounds, NULL, &parts,
			                        &res[i]);
		if (set_up[i])
			dpk_bench_ctl_teardown(&runs[i], &res[i]);
	}
	/* A member that failed stops the whole group: say so in the others' results. */
	for (unsigned i = 0; i < k; i++) {
		if (res[i].status == DPK_RESULT_OK && res[i].reject[0] == 0) {
			for (unsigned j = 0; j < k; j++)
				if (res[j].status == DPK_RESULT_FAILED) {
					res[i].status = DPK_RESULT_EMPTY;
					snprintf(res[i].reason, sizeof(res[i].reason),
					         "interleaved group stopped: %s/%s failed",
					         suites[j]->name, cases[j]->name);
					break;
				}
		}
	}
	/* Paired ratios to member 0 over rounds where both kept their sample (the reject
	 * marks were set by finish_single's rejection pass). */
	ratio = calloc(rounds ? rounds : 1, sizeof(double));
	for (unsigned i = 0; ratio && i < k; i++) {
		size_t m = 0;
		for (size_t q = 0; q < rounds; q++) {
			const struct dpk_sample *a = &samples[0][q], *b = &samples[i][q];
			if (a->reject == DPK_REJECT_NONE && b->reject == DPK_REJECT_NONE &&
			    a->ticks_per_op > 0)
				ratio[m++] = b->ticks_per_op / a->ticks_per_op;
		}
		res[i].pair_rounds = m;
		dpk_stats_summarise(ratio, m, &res[i].pair_ratio);
	}
	for (unsigned i = 0; i < k; i++)
		res[i].elapsed_s = (double)(dpk_tsc() - t0) / hz / k;

out_free:
	free(ratio);
	for (unsigned i = 0; samples && i < k; i++)
		free(samples[i]);
	free(samples);
	free(runs);
	free(n);
	free(sum_ticks);
	free(set_up);
}
