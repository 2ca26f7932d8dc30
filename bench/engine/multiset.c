/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * multiset.c - the multi-lcore cases of a suite on one placement, in rounds: each round
 * gives every case in turn one slice (multi.c), set up afresh and bracketed by the floor
 * on its own lcores. A round whose floor is off the case's set it aside (the host moved or
 * crowded the lcores); the figure rests on the other rounds, and rounds whose medians fall
 * into clusters apart are reported as regimes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/lcore.h>

#include "engine_int.h"

/* The lcores of case @p c on placement @p p; 0 roles (and @p res skipped) when there are
 * none. */
static unsigned case_lcores(const struct dpk_bench_runner *r, const struct dpk_bench_case *c,
                            enum dpk_placement p, unsigned *lcores, struct dpk_bench_result *res)
{
	unsigned n = 0;
	char why[160];

	if (c->kind == DPK_BENCH_PAIR) {
		if (dpk_bench_placement_available(r, p, &lcores[0], &lcores[1], why, sizeof(why)))
			return 2;
		res->status = DPK_RESULT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason), "%s", why);
		return 0;
	}
	for (unsigned i = 0; i < r->nworkers && n < DPK_BENCH_ROLES_MAX; i++)
		if (r->all_member[i])
			lcores[n++] = r->workers[i];
	if (n == 0) {
		res->status = DPK_RESULT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason), "no worker lcores");
	}
	return n;
}

/* Whether lcores @p a and @p b run on two different single CPUs: a floor means something
 * there (two lcores on one CPU bounce a line only at context switches). */
static bool two_cpus(unsigned a, unsigned b)
{
	struct dpk_cpuset ca, cb;

	dpk_lcore_cpus(a, &ca);
	dpk_lcore_cpus(b, &cb);
	return dpk_cpuset_count(&ca) == 1 && dpk_cpuset_count(&cb) == 1 &&
	       dpk_cpuset_first(&ca) != dpk_cpuset_first(&cb);
}

static void mcase_free(struct dpk_bench_mcase *mc)
{
	for (unsigned i = 0; i < DPK_BENCH_ROLES_MAX; i++) {
		free(mc->role[i].samples);
		free(mc->role[i].ops);
		free(mc->role[i].window);
		free(mc->role[i].span);
	}
	free(mc->rounds);
	memset(mc, 0, sizeof(*mc));
}

/* Ready case @p mc for @p rounds rounds of up to @p cap samples a role. False when it
 * cannot run (@p res says why). */
static bool mcase_init(const struct dpk_bench_runner *r, struct dpk_bench_mcase *mc,
                       const struct dpk_bench_item *it, unsigned rounds, size_t cap,
                       struct dpk_bench_result *res)
{
	memset(mc, 0, sizeof(*mc));
	mc->s = it->s;
	mc->c = it->c;
	mc->placement = it->p;
	mc->nroles = case_lcores(r, it->c, it->p, mc->lcores, res);
	if (mc->nroles == 0)
		return false;
	mc->floors = it->p != DPK_PLACE_OVERSUB && two_cpus(mc->lcores[0], mc->lcores[1]);
	mc->rounds = calloc(rounds, sizeof(*mc->rounds));
	bool ok = mc->rounds != NULL;
	for (unsigned i = 0; ok && i < mc->nroles; i++) {
		struct dpk_bench_mrole *mr = &mc->role[i];

		mr->cap = cap;
		mr->samples = calloc(cap, sizeof(*mr->samples));
		mr->ops = calloc(rounds, sizeof(*mr->ops));
		mr->window = calloc(rounds, sizeof(*mr->window));
		mr->span = calloc(2 * cap, sizeof(*mr->span));
		ok = mr->samples && mr->ops && mr->window && mr->span;
	}
	if (!ok) {
		mcase_free(mc);
		dpk_bench_result_fail(res, "out of memory");
		return false;
	}
	mc->live = true;
	return true;
}

/* The rounds of a multi-lcore set: --rounds, fewer so that a slice is at least
 * DPK_BENCH_SLICE_MIN_S long; on oversub at least DPK_BENCH_OVERSUB_SLICE_MIN_S, as two
 * lcores on one CPU move only at the scheduler's switches. */
unsigned dpk_bench_multi_rounds_of(const struct dpk_bench_runner *r, enum dpk_placement p)
{
	unsigned q = dpk_bench_rounds_of(r);

	if (p == DPK_PLACE_OVERSUB) {
		double most = r->opt.time_s / DPK_BENCH_OVERSUB_SLICE_MIN_S;

		if ((double)q > most)
			q = (unsigned)most;
	}
	return q < 1 ? 1 : q;
}

/* Whether role @p i of @p c is counted. */
static bool counted(const struct dpk_bench_case *c, unsigned i)
{
	return !c->counted_roles || (c->counted_roles >> i) & 1;
}

bool dpk_bench_multi_open(struct dpk_bench_set *set)
{
	struct dpk_bench_runner *r = set->r;
	const size_t cap = r->opt.max_samples ? r->opt.max_samples : 1;

	set->planned = set->most =
	        dpk_bench_multi_rounds_of(r, set->k ? set->items[0].p : DPK_PLACE_CORE);
	set->slice_s = r->opt.time_s / set->planned;
	set->warm_s = r->opt.warmup_s / set->planned;
	set->mc = calloc(set->k ? set->k : 1, sizeof(*set->mc));
	for (unsigned i = 0; i < set->k; i++)
		if (!set->mc)
			dpk_bench_result_fail(&set->res[i], "out of memory");
		else
			mcase_init(r, &set->mc[i], &set->items[i], set->planned, cap, &set->res[i]);
	return set->mc != NULL;
}

bool dpk_bench_multi_round(struct dpk_bench_set *set, unsigned q)
{
	const struct dpk_bench_runner *r = set->r;
	bool any = false;

	if (q >= set->planned)
		return false;
	for (unsigned j = 0; j < set->k; j++) {
		const unsigned i = (q + j) % set->k;
		struct dpk_bench_mcase *m = &set->mc[i];
		uint64_t t0 = dpk_tsc();

		if (!m->live)
			continue;
		m->live = dpk_bench_multi_slice(r, m, q, m->slices ? set->warm_s : r->opt.warmup_s,
		                                set->slice_s, &m->rounds[q], &set->res[i]);
		m->spent += dpk_tsc() - t0;
		any |= m->live;
	}
	set->ran = q + 1;
	return any;
}

void dpk_bench_multi_close(struct dpk_bench_set *set)
{
	for (unsigned i = 0; set->mc && i < set->k; i++) {
		if (set->res[i].status == DPK_RESULT_OK)
			dpk_bench_finish_multi(set->r, &set->mc[i], &set->res[i]);
		set->res[i].elapsed_s = (double)set->mc[i].spent / (double)set->r->clock.hz;
		mcase_free(&set->mc[i]);
	}
	free(set->mc);
	set->mc = NULL;
}

/* ---- from rounds to a result -------------------------------------------------------- */

/* The counted roles' samples in one array (their own marks cleared). */
static struct dpk_sample *pool_counted(const struct dpk_bench_mcase *mc, size_t *n)
{
	struct dpk_sample *all;
	size_t total = 0, at = 0;

	for (unsigned i = 0; i < mc->nroles; i++)
		if (counted(mc->c, i))
			total += mc->role[i].ns;
	all = malloc((total ? total : 1) * sizeof(*all));
	for (unsigned i = 0; all && i < mc->nroles; i++)
		if (counted(mc->c, i)) {
			memcpy(all + at, mc->role[i].samples, mc->role[i].ns * sizeof(*all));
			at += mc->role[i].ns;
		}
	*n = total;
	return all;
}

/*
 * The floor rule: the reference is the lower quartile of the round floors; a round whose
 * floor is over it by more than DPK_BENCH_FLOOR_LIMIT is set aside (aside[q]). Rounds without
 * a floor (a bracket that timed nothing) are judged by the others. Returns the reference
 * (0: no floors).
 */
static double floor_rule(const struct dpk_bench_mcase *mc, unsigned nr, bool *aside,
                         struct dpk_bench_result *res)
{
	double f[DPK_BENCH_ROUNDS_MAX], ref;
	unsigned nf = 0;

	for (unsigned q = 0; q < nr; q++)
		if (mc->rounds[q].floor > 0)
			f[nf++] = mc->rounds[q].floor;
	res->floor_untimed = mc->floors && nf == 0;
	if (!mc->floors || nf == 0)
		return 0;
	dpk_stats_sort(f, nf);
	ref = dpk_stats_quantile(f, nf, 0.25);
	res->floor_min = f[0];
	res->floor_max = f[nf - 1];
	for (unsigned q = 0; q < nr; q++) {
		aside[q] = mc->rounds[q].floor > ref * (1.0 + DPK_BENCH_FLOOR_LIMIT);
		res->rounds_set_aside += aside[q];
	}
	return ref;
}

/* Summarise the samples of @p s still kept into @p sum, each of the @p nr rounds weighing
 * the same (dpk_stats_summarise_rounds(): a round in a fast regime takes more batches, and
 * pooled they would outvote the rest); with @p raw, a copy of them in the order taken.
 * False when out of memory. */
static bool kept_summary(const struct dpk_sample *s, size_t n, unsigned nr,
                         struct dpk_summary *sum, double **raw, size_t *nraw)
{
	memset(sum, 0, sizeof(*sum));
	if (raw) {
		if (!(*raw = malloc((n ? n : 1) * sizeof(**raw))))
			return false;
		*nraw = dpk_stats_kept_ticks(s, n, *raw);
	}
	return dpk_stats_summarise_rounds(s, n, nr, sum);
}

/*
 * The "alone" rule. Where several roles are counted (each times its own calls on a block
 * the others use at the same time: a shared ring, a pool), a batch during which no other
 * counted role ran a clean batch (one the earlier rules keep) timed the block uncontended:
 * the host had taken the others' CPUs. Such batches are fast and, while the others wait
 * for a CPU, many, so a crowded run's figure would be the uncontended cost
 * (docs/verdicts.md, "ab, A/A and A/B"). Not judged on oversub, where the roles take turns
 * on one CPU by design, nor when a role filled its sample store (its later batches were
 * not kept).
 */
_Static_assert(DPK_BENCH_ROLES_MAX <= DPK_STATS_ROLES_MAX, "dpk_stats_alone() takes every role");

struct alone {
	bool judged;
	bool *role[DPK_BENCH_ROLES_MAX]; /* per counted role's sample, NULL when not judged */
};

static bool alone_judged(const struct dpk_bench_mcase *mc)
{
	unsigned k = 0;

	if (mc->placement == DPK_PLACE_OVERSUB)
		return false;
	for (unsigned i = 0; i < mc->nroles; i++) {
		if (!counted(mc->c, i))
			continue;
		if (mc->role[i].ns >= mc->role[i].cap)
			return false;
		k++;
	}
	return k >= 2;
}

static void alone_free(struct alone *a)
{
	for (unsigned i = 0; i < DPK_BENCH_ROLES_MAX; i++)
		free(a->role[i]);
	memset(a, 0, sizeof(*a));
}

/*
 * The spans of role @p i's batches that ran clean: those the rules before "alone" keep
 * (no migration, no involuntary switch, no gap; dpk_stats_reject() marks the role's
 * samples, as role_figures() does again). A batch that was preempted spans the time its
 * role was off its CPU and overlaps everything then; it does not show the role running.
 */
static uint64_t *clean_spans(struct dpk_bench_mrole *mr, bool check_ctx, size_t *n)
{
	size_t counts[DPK_REJECT_COUNT];
	uint64_t *out = malloc((mr->ns ? mr->ns : 1) * 2 * sizeof(*out));

	*n = 0;
	if (!out)
		return NULL;
	dpk_stats_reject(mr->samples, mr->ns, check_ctx, counts);
	for (size_t j = 0; j < mr->ns; j++)
		if (mr->samples[j].reject == DPK_REJECT_NONE) {
			out[2 * *n] = mr->span[2 * j];
			out[2 * *n + 1] = mr->span[2 * j + 1];
			(*n)++;
		}
	return out;
}

/* The marks of the "alone" rule for case @p mc; false when out of memory. */
static bool alone_find(struct dpk_bench_mcase *mc, bool check_ctx, struct alone *a)
{
	uint64_t *clean[DPK_BENCH_ROLES_MAX] = {NULL};
	const uint64_t *spans[DPK_BENCH_ROLES_MAX];
	size_t ns[DPK_BENCH_ROLES_MAX];
	unsigned at_of[DPK_BENCH_ROLES_MAX], k = 0;
	bool ok = true;

	memset(a, 0, sizeof(*a));
	if (!alone_judged(mc))
		return true;
	for (unsigned i = 0; ok && i < mc->nroles; i++)
		if (counted(mc->c, i)) {
			ok = (clean[k] = clean_spans(&mc->role[i], check_ctx, &ns[k])) != NULL;
			spans[k] = clean[k];
			at_of[i] = k++;
		}
	for (unsigned i = 0; ok && i < mc->nroles; i++)
		if (counted(mc->c, i)) {
			/* Every batch of role i is judged, against the others' clean ones. */
			const unsigned me = at_of[i];
			const size_t keep = ns[me];

			ok = (a->role[i] = calloc(mc->role[i].ns ? mc->role[i].ns : 1,
			                          sizeof(bool))) != NULL;
			if (!ok)
				break;
			spans[me] = mc->role[i].span;
			ns[me] = mc->role[i].ns;
			dpk_stats_alone(spans, ns, k, me, a->role[i]);
			spans[me] = clean[me];
			ns[me] = keep;
		}
	for (unsigned i = 0; i < k; i++)
		free(clean[i]);
	if (ok) {
		a->judged = true;
		return true;
	}
	alone_free(a);
	return false;
}

/* The alone marks on @p all, the counted roles' samples in pool_counted()'s order. */
static void alone_mark_pooled(const struct dpk_bench_mcase *mc, const struct alone *a,
                              struct dpk_sample *all, size_t counts[DPK_REJECT_COUNT])
{
	size_t at = 0;

	for (unsigned i = 0; i < mc->nroles; i++)
		if (counted(mc->c, i)) {
			dpk_stats_mark_alone(all + at, mc->role[i].ns, a->role[i], counts);
			at += mc->role[i].ns;
		}
}

/* Per-role figures, each role's samples judged by the same rules and rounds; with @p rp50,
 * each judged role's round medians (before the floor rule) at rp50[i * nr + q]. */
static void role_figures(const struct dpk_bench_runner *r, const struct dpk_bench_mcase *mc,
                         const bool *aside, unsigned nr, bool check_ctx, const struct alone *alone,
                         double *rp50, struct dpk_bench_result *res)
{
	uint32_t rkept[DPK_BENCH_ROUNDS_MAX];

	for (unsigned i = 0; i < mc->nroles; i++) {
		const struct dpk_bench_mrole *mr = &mc->role[i];
		struct dpk_bench_role_result *rr = &res->role[i];
		size_t rej[DPK_REJECT_COUNT] = {0};
		uint64_t ops = 0, win = 0;

		dpk_stats_reject(mr->samples, mr->ns, check_ctx, rej);
		if (alone->role[i])
			dpk_stats_mark_alone(mr->samples, mr->ns, alone->role[i], rej);
		if (rp50 && alone->role[i] &&
		    !dpk_stats_round_medians(mr->samples, mr->ns, nr, false, rp50 + (size_t)i * nr, rkept))
			dpk_bench_result_fail(res, "out of memory");
		dpk_stats_mark_rounds(mr->samples, mr->ns, aside, nr, DPK_REJECT_FLOOR, rej);
		if (!kept_summary(mr->samples, mr->ns, nr, &rr->ticks, NULL, NULL))
			dpk_bench_result_fail(res, "out of memory");
		for (unsigned q = 0; q < nr; q++)
			if (!aside[q]) {
				ops += mr->ops[q];
				win += mr->window[q];
			}
		rr->lcore = mc->lcores[i];
		rr->cpu = dpk_lcore_cpu(mc->lcores[i]);
		rr->name = i < 2 && mc->c->role_names[i] ? mc->c->role_names[i] : NULL;
		rr->counted = counted(mc->c, i);
		rr->ops = ops;
		rr->window_s = (double)win / (double)r->clock.hz;
		rr->mops = rr->window_s > 0 ? (double)ops / rr->window_s / 1e6 : 0;
		rr->batch_ops = mr->batch;
		rr->samples = mr->ns;
		rr->kept = rr->ticks.n;
	}
}

/* The kept rounds' medians (and, with floors, their ratios to their floors) summarised, and
 * the regimes they fall into. */
static void round_figures(const struct dpk_bench_mcase *mc, unsigned nr, const bool *aside,
                          struct dpk_bench_result *res)
{
	double p[DPK_BENCH_ROUNDS_MAX], f[DPK_BENCH_ROUNDS_MAX], rf[DPK_BENCH_ROUNDS_MAX];
	unsigned np = 0, nf = 0;

	for (unsigned q = 0; q < nr; q++) {
		const struct dpk_bench_round *rd = &mc->rounds[q];

		if (aside[q] || !(rd->kept > 0))
			continue;
		p[np++] = rd->p50;
		if (rd->floor > 0) {
			rf[nf] = rd->p50 / rd->floor;
			f[nf++] = rd->floor;
		}
	}
	dpk_stats_summarise(p, np, &res->round_p50);
	if (mc->floors && nf) {
		res->floor_rt = dpk_stats_median(f, nf);
		dpk_stats_summarise(rf, nf, &res->per_floor);
	}
	dpk_bench_regimes(mc->rounds, nr, aside, mc->floors, res);
}

/*
 * Where the "alone" rule judges (several counted roles on CPUs of their own), a round's
 * figure is the median of its slowest counted role that kept samples in it: pooled, the
 * role that got more of its CPU would set the figure with its many batches against a block
 * the others touched only now and then (docs/verdicts.md).
 */
static void slowest_rounds(const struct dpk_bench_mcase *mc, const double *rp50, unsigned nr,
                           double *p50)
{
	for (unsigned q = 0; q < nr; q++) {
		double most = 0;

		for (unsigned i = 0; i < mc->nroles; i++)
			if (counted(mc->c, i)) {
				const double v = rp50[(size_t)i * nr + q];

				most = v > most ? v : most; /* NaN, a role without samples, compares
				                               false */
			}
		if (most > 0)
			p50[q] = most;
	}
}

/* The row's summary: the slowest counted role's, as slowest_rounds() takes its rounds. */
static void slowest_summary(const struct dpk_bench_mcase *mc, struct dpk_bench_result *res)
{
	const struct dpk_summary *most = NULL;

	for (unsigned i = 0; i < mc->nroles; i++)
		if (counted(mc->c, i) && res->role[i].ticks.n &&
		    (!most || res->role[i].ticks.p50 > most->p50))
			most = &res->role[i].ticks;
	if (most)
		res->ticks = *most;
}

void dpk_bench_finish_multi(const struct dpk_bench_runner *r, struct dpk_bench_mcase *mc,
                            struct dpk_bench_result *res)
{
	const unsigned nr = mc->slices;
	const bool check_ctx = mc->placement != DPK_PLACE_OVERSUB;
	bool aside[DPK_BENCH_ROUNDS_MAX] = {false};
	double p50[DPK_BENCH_ROUNDS_MAX];
	uint32_t kept[DPK_BENCH_ROUNDS_MAX];
	size_t n, counts[DPK_REJECT_COUNT] = {0};
	struct dpk_sample *all = pool_counted(mc, &n);
	uint64_t batches[DPK_BENCH_ROLES_MAX];
	unsigned nb = 0;
	struct alone alone;
	double *rp50;
	bool slowest;

	res->floor_ref = floor_rule(mc, nr, aside, res);
	if (!all || !alone_find(mc, check_ctx, &alone)) {
		free(all);
		dpk_bench_result_fail(res, "out of memory");
		return;
	}
	rp50 = alone.judged ? malloc((size_t)mc->nroles * (nr ? nr : 1) * sizeof(*rp50)) : NULL;
	role_figures(r, mc, aside, nr, check_ctx, &alone, rp50, res);
	dpk_stats_reject(all, n, check_ctx, counts);
	if (alone.judged)
		alone_mark_pooled(mc, &alone, all, counts);
	if (!dpk_stats_round_medians(all, n, nr, false, p50, kept) || (alone.judged && !rp50)) {
		alone_free(&alone);
		free(rp50);
		free(all);
		dpk_bench_result_fail(res, "out of memory");
		return;
	}
	slowest = rp50 != NULL;
	if (slowest)
		slowest_rounds(mc, rp50, nr, p50);
	alone_free(&alone);
	free(rp50);
	for (unsigned q = 0; q < nr; q++) {
		mc->rounds[q].p50 = p50[q];
		mc->rounds[q].p50_cycles = NAN;
		mc->rounds[q].kept = kept[q];
		mc->rounds[q].set_aside = aside[q];
	}
	dpk_stats_mark_rounds(all, n, aside, nr, DPK_REJECT_FLOOR, counts);
	res->nroles = mc->nroles;
	res->samples = n;
	memcpy(res->reject, counts, sizeof(counts));
	if (!kept_summary(all, n, nr, &res->ticks, r->opt.raw ? &res->raw : NULL, &res->nraw))
		dpk_bench_result_fail(res, "out of memory");
	if (slowest)
		slowest_summary(mc, res);
	free(all);
	for (unsigned i = 0; i < mc->nroles; i++)
		if (res->role[i].counted) {
			res->mops += res->role[i].mops;
			batches[nb++] = res->role[i].batch_ops;
		}
	for (unsigned i = 1; i < nb; i++)
		for (unsigned j = i; j > 0 && batches[j - 1] > batches[j]; j--) {
			uint64_t t = batches[j];

			batches[j] = batches[j - 1];
			batches[j - 1] = t;
		}
	res->batch_ops = nb ? batches[nb / 2] : 0;
	dpk_bench_widen_by_step(r, nb ? batches[0] : 0, &res->ticks);
	round_figures(mc, nr, aside, res);
	res->rounds = mc->rounds;
	res->nrounds = nr;
	mc->rounds = NULL;
	if (res->status == DPK_RESULT_OK && res->reject[0] == 0)
		dpk_bench_result_empty(res, r->opt.time_s);
}
