/* SPDX-License-Identifier: BSD-3-Clause */
/* samples.c - from a case's samples to its result: the rejection rules, the summary, the
 * figures in core cycles and the rates. */
#define _GNU_SOURCE
#include <sched.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>

#include "coreclock.h"
#include "engine_int.h"

/* Set aside, as dpk_stats_mark_witness(), the kept samples of @p s next to a timing over
 * @p w->limit, unless fewer than DPK_WITNESS_MIN_FAST kept samples are fast: then all stay
 * and w->kept_slow says so. Returns the samples still kept. */
static size_t apply_witness(struct dpk_sample *s, size_t n, size_t kept,
                            struct dpk_bench_witness_rule *w, size_t counts[DPK_REJECT_COUNT])
{
	size_t fast = 0, before = counts[DPK_REJECT_SLOW];

	for (size_t i = 0; i < n; i++)
		fast += s[i].reject == DPK_REJECT_NONE && s[i].wit <= w->limit;
	w->kept_slow = fast < DPK_WITNESS_MIN_FAST;
	if (w->kept_slow)
		return kept;
	kept = dpk_stats_mark_witness(s, n, w->limit, counts);
	w->set_aside = counts[DPK_REJECT_SLOW] - before;
	return kept;
}

bool dpk_bench_summarise(struct dpk_sample *s, size_t n, bool check_ctx, double slow_limit,
                         struct dpk_bench_witness_rule *wit, size_t *reject,
                         struct dpk_summary *sum, double **keep_out, size_t *nkeep_out)
{
	size_t counts[DPK_REJECT_COUNT] = {0};
	size_t kept = dpk_stats_reject(s, n, check_ctx, counts);

	if (slow_limit > 0 && wit)
		kept = apply_witness(s, n, kept, wit, counts);
	if (slow_limit > 0)
		kept = dpk_stats_reject_slow(s, n, slow_limit, counts);
	double *v = malloc((kept ? kept : 1) * sizeof(double));
	size_t k;

	for (unsigned i = 0; i < DPK_REJECT_COUNT; i++)
		reject[i] += counts[i];
	if (!v) {
		memset(sum, 0, sizeof(*sum));
		return false;
	}
	k = dpk_stats_kept_ticks(s, n, v);
	if (keep_out) {
		/* The raw samples stay in the order they were taken (a drift over the run shows
		 * in them); the summary sorts a copy. */
		double *sorted = malloc((k ? k : 1) * sizeof(double));

		*keep_out = v;
		*nkeep_out = k;
		if (!sorted) {
			memset(sum, 0, sizeof(*sum));
			return false;
		}
		memcpy(sorted, v, k * sizeof(double));
		v = sorted;
	}
	dpk_stats_summarise(v, k, sum);
	free(v);
	return true;
}

/* The number of rounds a single-lcore case's budget is cut into: opt.rounds, fewer when
 * slices would be shorter than DPK_BENCH_SLICE_MIN_S (a round's median must be steady). */
unsigned dpk_bench_rounds_of(const struct dpk_bench_runner *r)
{
	double most = r->opt.time_s / DPK_BENCH_SLICE_MIN_S;
	unsigned q = r->opt.rounds;

	if (q > DPK_BENCH_ROUNDS_MAX)
		q = DPK_BENCH_ROUNDS_MAX;
	if ((double)q > most)
		q = (unsigned)most;
	return q < 1 ? 1 : q;
}

/* The kept samples of a single-lcore case in core cycles, where they have clock timings
 * (coreclock.h): res->cycles, and res->core_hz from the median round's pace. @p res is as
 * result_init() left those fields (none: cycles.n 0). */
static void summarise_cycles(const struct dpk_bench_runner *r, struct dpk_sample *samples,
                             size_t ns, struct dpk_bench_result *res)
{
	double *v = malloc((res->reject[0] ? res->reject[0] : 1) * sizeof(double)), ratio;
	size_t k = v ? dpk_stats_kept_cycles(samples, ns, DPK_CORECLOCK_CHAIN_CYCLES,
	                                     r->clock.read_cost, v, &ratio)
	             : 0;

	if (k && r->opt.raw) {
		/* In the order taken, as raw; the summary sorts v. */
		res->raw_cycles = malloc(k * sizeof(double));
		if (res->raw_cycles) {
			memcpy(res->raw_cycles, v, k * sizeof(double));
			res->nraw_cycles = k;
		}
	}
	if (k) {
		dpk_stats_summarise(v, k, &res->cycles);
		res->core_hz = ratio * (double)r->clock.hz;
	}
	free(v);
}

/* Fill a single-lcore result from its samples (rejection, summary, rates). */
void dpk_bench_finish_single(const struct dpk_bench_runner *r, const struct dpk_bench_case *c,
                             struct dpk_sample *samples, size_t ns, uint64_t n, double sum_ticks,
                             double sum_ops, struct dpk_bench_witness_rule *wit,
                             struct dpk_bench_result *res)
{
	const double hz = (double)r->clock.hz;

	res->nroles = 1;
	res->role[0].lcore = dpk_lcore_id();
	res->role[0].cpu = (unsigned)sched_getcpu();
	res->role[0].name = c->role_names[0] ? c->role_names[0] : "main";
	res->role[0].counted = true;
	res->batch_ops = n;
	res->samples = ns;
	res->role[0].batch_ops = n;
	res->role[0].samples = ns;
	if (!dpk_bench_summarise(samples, ns, true, r->opt.slow_limit, wit, res->reject,
	                         &res->ticks, r->opt.raw ? &res->raw : NULL, &res->nraw)) {
		dpk_bench_result_fail(res, "out of memory");
		return;
	}
	dpk_bench_widen_by_step(r, n, &res->ticks);
	res->role[0].kept = res->reject[0];
	res->role[0].ticks = res->ticks;
	summarise_cycles(r, samples, ns, res);
	res->role[0].ops = (uint64_t)sum_ops;
	res->role[0].window_s = sum_ticks / hz;
	/* The median rate: one preempted batch must not drag the throughput figure the way
	 * it drags a mean (multi-lcore cases count completed operations instead). */
	res->mops = res->ticks.p50 > 0 ? hz / res->ticks.p50 / 1e6 : 0;
	res->role[0].mops = res->mops;
}

void dpk_bench_regimes(const struct dpk_bench_round *rounds, unsigned nr, const bool *aside,
                       bool floors, struct dpk_bench_result *res)
{
	struct dpk_stats_cluster cl[DPK_BENCH_CLUSTERS_MAX];
	double v[DPK_BENCH_ROUNDS_MAX], t[DPK_BENCH_ROUNDS_MAX];
	unsigned n = 0, nc;

	for (unsigned q = 0; q < nr; q++)
		if ((!aside || !aside[q]) && rounds[q].kept && (!floors || rounds[q].floor > 0))
			v[n++] = floors ? rounds[q].p50 / rounds[q].floor : rounds[q].p50;
	nc = dpk_stats_regimes(v, n, cl, DPK_BENCH_CLUSTERS_MAX);
	res->nclusters = nc > 1 ? nc : 0;
	for (unsigned c = 0; c < res->nclusters; c++) {
		struct dpk_bench_cluster *out = &res->cluster[c];
		unsigned nt = 0;

		out->per_floor = floors ? cl[c].p50 : 0;
		out->rounds = (unsigned)cl[c].n;
		out->first = UINT32_MAX;
		for (unsigned q = 0; q < nr; q++) {
			double x;

			if ((aside && aside[q]) || !rounds[q].kept ||
			    (floors && !(rounds[q].floor > 0)))
				continue;
			x = floors ? rounds[q].p50 / rounds[q].floor : rounds[q].p50;
			if (x < cl[c].lo || x > cl[c].hi)
				continue;
			t[nt++] = rounds[q].p50;
			if (q < out->first)
				out->first = q;
		}
		out->p50 = nt ? dpk_stats_median(t, nt) : NAN;
	}
}

/* Each round's median of @p s in ticks and, with @p cycles, in core cycles (NaN without
 * a pace), over the kept samples or, with @p slow_too, those set aside as slow as well.
 * False when out of memory. */
static bool round_figures(const struct dpk_bench_runner *r, const struct dpk_sample *s, size_t n,
                          unsigned nrounds, bool slow_too, bool cycles, double *p50,
                          double *p50_cycles, uint32_t *count)
{
	if (!dpk_stats_round_medians(s, n, nrounds, slow_too, p50, count))
		return false;
	if (cycles)
		dpk_stats_round_ratios(s, n, DPK_CORECLOCK_CHAIN_CYCLES, r->clock.read_cost,
		                       nrounds, slow_too, p50_cycles);
	for (unsigned q = 0; q < nrounds; q++)
		p50_cycles[q] = cycles ? p50[q] * p50_cycles[q] : NAN;
	return true;
}

void dpk_bench_single_rounds(const struct dpk_bench_runner *r, const struct dpk_sample *s, size_t n,
                             unsigned nrounds, struct dpk_bench_result *res)
{
	const size_t m = nrounds ? nrounds : 1;
	/* p50, cycles, whole, whole cycles, witness, kept p50s */
	double *f = malloc(6 * m * sizeof(*f));
	uint32_t *kept = malloc(2 * m * sizeof(*kept));
	const bool cyc = res->cycles.n > 0;
	unsigned nv = 0;

	res->rounds = f && kept ? calloc(m, sizeof(*res->rounds)) : NULL;
	if (!res->rounds || !round_figures(r, s, n, nrounds, false, cyc, f, f + m, kept) ||
	    !round_figures(r, s, n, nrounds, true, cyc, f + 2 * m, f + 3 * m, kept + m) ||
	    !dpk_stats_round_witness(s, n, nrounds, f + 4 * m)) {
		free(res->rounds);
		res->rounds = NULL;
		free(f);
		free(kept);
		return;
	}
	res->nrounds = nrounds;
	res->whole_rounds = true;
	for (unsigned q = 0; q < nrounds; q++) {
		res->rounds[q] = (struct dpk_bench_round){.p50 = f[q],
		                                          .p50_cycles = f[m + q],
		                                          .kept = kept[q],
		                                          .whole_p50 = f[2 * m + q],
		                                          .whole_p50_cycles = f[3 * m + q],
		                                          .whole = kept[m + q],
		                                          .whole_witness = f[4 * m + q]};
		if (kept[q])
			f[5 * m + nv++] = f[q];
	}
	dpk_stats_summarise(f + 5 * m, nv, &res->round_p50);
	dpk_bench_regimes(res->rounds, nrounds, NULL, false, res);
	free(f);
	free(kept);
}

double dpk_bench_counter_step(const struct dpk_bench_runner *r)
{
	return (double)(r->clock.min_delta > r->clock.granularity ? r->clock.min_delta
	                                                          : r->clock.granularity);
}

void dpk_bench_widen_by_step(const struct dpk_bench_runner *r, uint64_t batch,
                             struct dpk_summary *sum)
{
	const double q = batch ? dpk_bench_counter_step(r) / (double)batch : 0;

	/* A batch of n operations is timed to a counter step, so its per-operation figure, and
	 * any median of such figures, to a step over n at best. */
	if (sum->n && q > 0) {
		sum->p50_lo = fmin(sum->p50_lo, sum->p50 - q);
		sum->p50_hi = fmax(sum->p50_hi, sum->p50 + q);
	}
}
