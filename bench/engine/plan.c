/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan.c - what a run times and in which order: the plan of selected cases on their
 * placements, and its run, suite by suite: single-lcore cases in rounds, multi-lcore cases
 * in rounds per placement, and with interleave each group of variants in rounds of its
 * own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>

#include "engine_int.h"

/* Whether case @p c fits placement @p p by its kind; on oversub, a pair case that does not
 * ask for it only when @p every. */
static bool kind_fits(const struct dpk_bench_case *c, enum dpk_placement p, bool every)
{
	if (p == DPK_PLACE_OVERSUB && !every && !(c->flags & DPK_BENCH_ON_OVERSUB))
		return false;
	switch (c->kind) {
	case DPK_BENCH_SINGLE:
		return p == DPK_PLACE_SINGLE;
	case DPK_BENCH_ALL:
		return p == DPK_PLACE_ALL;
	case DPK_BENCH_PAIR:
		return p >= DPK_PLACE_SMT && p <= DPK_PLACE_OVERSUB;
	}
	return false;
}

static int plan_add(struct dpk_bench_plan *plan, size_t *cap, const struct dpk_bench_item *it)
{
	if (plan->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct dpk_bench_item *ni = realloc(plan->item, ncap * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		plan->item = ni;
		*cap = ncap;
	}
	plan->item[plan->n++] = *it;
	return 0;
}

/* With interleave, point each item at the first item of its kind and placement with its
 * group key. */
static void plan_groups(struct dpk_bench_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct dpk_bench_item *it = &plan->item[i];
		char ki[256], kj[256];

		plan->leader[i] = i;
		if (!plan->interleave)
			continue;
		dpk_bench_group_key(it->c, ki, sizeof(ki));
		for (size_t j = 0; j < i; j++)
			if (plan->leader[j] == j && plan->item[j].c->kind == it->c->kind &&
			    plan->item[j].p == it->p &&
			    strcmp(ki, dpk_bench_group_key(plan->item[j].c, kj, sizeof(kj))) == 0) {
				plan->leader[i] = j;
				break;
			}
	}
}

int dpk_bench_plan_make(struct dpk_bench_plan *plan, const struct dpk_bench_runner *r,
                        const struct dpk_bench_suite *const *suites, dpk_bench_select_fn sel,
                        void *ctx, bool interleave)
{
	size_t cap = 0;

	memset(plan, 0, sizeof(*plan));
	plan->interleave = interleave;
	for (unsigned k = 0; suites[k]; k++) {
		const struct dpk_bench_suite *s = suites[k];

		for (unsigned j = 0; j < s->ncases; j++) {
			const struct dpk_bench_case *c = &s->cases[j];

			if (!sel(ctx, s, c))
				continue;
			for (unsigned p = 0; p < DPK_PLACE_COUNT; p++) {
				const struct dpk_bench_item it = {s, c, (enum dpk_placement)p};
				unsigned a, b;
				char why[160];

				if (!kind_fits(c, it.p, r->opt.oversub_every) ||
				    !r->opt.placement_on[p])
					continue;
				if (c->kind == DPK_BENCH_PAIR &&
				    !dpk_bench_placement_available(r, it.p, &a, &b, why,
				                                   sizeof(why)))
					continue;
				if (plan_add(plan, &cap, &it)) {
					dpk_bench_plan_free(plan);
					return -ENOMEM;
				}
			}
		}
	}
	if (plan->n == 0)
		return -ENOENT;
	plan->leader = calloc(plan->n, sizeof(*plan->leader));
	if (!plan->leader) {
		dpk_bench_plan_free(plan);
		return -ENOMEM;
	}
	plan_groups(plan);
	return 0;
}

void dpk_bench_plan_free(struct dpk_bench_plan *plan)
{
	free(plan->item);
	free(plan->leader);
	memset(plan, 0, sizeof(*plan));
}

bool dpk_bench_plan_grouped(const struct dpk_bench_plan *plan, size_t i)
{
	for (size_t j = 0; j < plan->n; j++)
		if (j != i && plan->leader[j] == plan->leader[i])
			return true;
	return false;
}

/* ---- running it ------------------------------------------------------------------ */

/* A plan's run in progress. */
struct plan_run {
	struct dpk_bench_runner *r;
	const struct dpk_bench_plan *plan;
	const struct dpk_bench_plan_hooks *h;
	struct dpk_bench_result *out; /* this repeat's results, plan->n of them */
	bool *done;                   /* out[i] is filled */
	unsigned rep;
	struct dpk_bench_progress pg;
	char what[192];
};

static void progress(struct plan_run *pr, unsigned round, unsigned rounds)
{
	if (!pr->h->progress)
		return;
	pr->pg.what = pr->what;
	pr->pg.round = round;
	pr->pg.rounds = rounds;
	pr->h->progress(pr->h->ctx, &pr->pg);
}

static void progress_end(struct plan_run *pr)
{
	if (pr->h->progress)
		pr->h->progress(pr->h->ctx, NULL);
}

static void round_progress(void *ctx, unsigned round, unsigned rounds)
{
	progress(ctx, round, rounds);
}

/* Hand the @p k results @p rr of a set to their plan items @p at and count them done. */
static void deliver(struct plan_run *pr, const struct dpk_bench_result *rr, const size_t *at,
                    unsigned k)
{
	for (unsigned q = 0; q < k; q++) {
		pr->out[at[q]] = rr[q];
		pr->done[at[q]] = true;
	}
	pr->pg.done += k;
	progress_end(pr);
}

/*
 * Run the single-lcore cases of the suite whose items start at @p first in rounds, except
 * those an interleaved group takes. Returns 0 or -ENOMEM.
 */
static int suite_rounds(struct plan_run *pr, size_t first)
{
	const struct dpk_bench_plan *plan = pr->plan;
	const size_t n = plan->n;
	const struct dpk_bench_suite **ss = calloc(n, sizeof(*ss));
	const struct dpk_bench_case **cs = calloc(n, sizeof(*cs));
	struct dpk_bench_result *rr = calloc(n, sizeof(*rr));
	size_t *at = calloc(n, sizeof(*at));
	unsigned k = 0;
	int rc = ss && cs && rr && at ? 0 : -ENOMEM;

	for (size_t j = first; !rc && j < n && plan->item[j].s == plan->item[first].s; j++) {
		if (plan->item[j].c->kind != DPK_BENCH_SINGLE || pr->done[j] ||
		    (plan->interleave && dpk_bench_plan_grouped(plan, j)))
			continue;
		ss[k] = plan->item[j].s;
		cs[k] = plan->item[j].c;
		at[k++] = j;
	}
	if (!rc && k > 0) {
		snprintf(pr->what, sizeof(pr->what), "%s: %u single-lcore case%s",
		         plan->item[first].s->name, k, k == 1 ? "" : "s");
		dpk_bench_run_rounds(pr->r, ss, cs, k, pr->rep, rr, round_progress, pr);
		deliver(pr, rr, at, k);
	}
	free(ss);
	free(cs);
	free(rr);
	free(at);
	return rc;
}

/* Run the interleaved group that item @p i leads, when it has two or more members. */
static void run_group(struct plan_run *pr, size_t i)
{
	const struct dpk_bench_plan *plan = pr->plan;
	const struct dpk_bench_suite *gs[16];
	const struct dpk_bench_case *gc[16];
	struct dpk_bench_item items[16];
	struct dpk_bench_result gr[16];
	size_t gi[16];
	unsigned k = 0;
	char params[64];

	for (size_t j = i; j < plan->n && k < 16; j++)
		if (plan->leader[j] == i) {
			items[k] = plan->item[j];
			gs[k] = plan->item[j].s;
			gc[k] = plan->item[j].c;
			gi[k++] = j;
		}
	if (k < 2)
		return;
	snprintf(pr->what, sizeof(pr->what), "%u variants of %s %s%s%s, interleaved", k,
	         plan->item[i].c->name,
	         dpk_bench_params_str(plan->item[i].c, params, sizeof(params)),
	         items[0].c->kind == DPK_BENCH_SINGLE ? "" : " on ",
	         items[0].c->kind == DPK_BENCH_SINGLE ? "" : dpk_placement_name(items[0].p));
	progress(pr, 0, 0);
	if (items[0].c->kind == DPK_BENCH_SINGLE)
		dpk_bench_run_interleaved(pr->r, gs, gc, k, pr->rep, gr);
	else
		dpk_bench_run_interleaved_multi(pr->r, items, k, pr->rep, gr);
	deliver(pr, gr, gi, k);
}

/* Run the multi-lcore cases of item @p i's suite on its placement, item @p i first, in
 * rounds, except those an interleaved group takes. Returns 0 or -ENOMEM. */
static int run_multi_set(struct plan_run *pr, size_t i)
{
	const struct dpk_bench_plan *plan = pr->plan;
	const struct dpk_bench_item *it = &plan->item[i];
	struct dpk_bench_item *set = calloc(plan->n, sizeof(*set));
	struct dpk_bench_result *rr = calloc(plan->n, sizeof(*rr));
	size_t *at = calloc(plan->n, sizeof(*at));
	unsigned k = 0;
	int rc = set && rr && at ? 0 : -ENOMEM;

	for (size_t j = i; !rc && j < plan->n && plan->item[j].s == it->s; j++)
		if (!pr->done[j] && plan->item[j].p == it->p &&
		    !(plan->interleave && dpk_bench_plan_grouped(plan, j))) {
			set[k] = plan->item[j];
			at[k++] = j;
		}
	if (!rc) {
		snprintf(pr->what, sizeof(pr->what), "%s: %u %s case%s on %s", it->s->name, k,
		         it->c->kind == DPK_BENCH_ALL ? "all-lcore" : "pair", k == 1 ? "" : "s",
		         dpk_placement_name(it->p));
		dpk_bench_run_multi_rounds(pr->r, set, k, pr->rep, rr, round_progress, pr);
		deliver(pr, rr, at, k);
	}
	free(set);
	free(rr);
	free(at);
	return rc;
}

/* Run item @p i, unless a set run before it took it. Returns 0 or -ENOMEM. */
static int run_item(struct plan_run *pr, size_t i)
{
	const struct dpk_bench_item *it = &pr->plan->item[i];
	char params[64];

	if (!pr->done[i] && pr->plan->interleave && pr->plan->leader[i] == i)
		run_group(pr, i);
	if (!pr->done[i] && it->c->kind != DPK_BENCH_SINGLE)
		return run_multi_set(pr, i);
	if (pr->done[i])
		return 0;
	snprintf(pr->what, sizeof(pr->what), "%s/%s %s on %s", it->s->name, it->c->name,
	         dpk_bench_params_str(it->c, params, sizeof(params)), dpk_placement_name(it->p));
	progress(pr, 0, 0);
	dpk_bench_run_case(pr->r, it->s, it->c, it->p, pr->rep, &pr->out[i]);
	pr->done[i] = true;
	pr->pg.done++;
	progress_end(pr);
	return 0;
}

/* One repeat of the plan. */
static int run_repeat(struct plan_run *pr)
{
	const struct dpk_bench_plan *plan = pr->plan;

	memset(pr->done, 0, plan->n * sizeof(*pr->done));
	for (size_t i = 0; i < plan->n; i++) {
		const bool first = i == 0 || plan->item[i].s != plan->item[i - 1].s;

		if ((first && suite_rounds(pr, i)) || run_item(pr, i))
			return -ENOMEM;
		if (first && pr->h->suite) {
			size_t end = i;

			while (end < plan->n && plan->item[end].s == plan->item[i].s)
				end++;
			pr->h->suite(pr->h->ctx, plan, i, end, pr->rep);
		}
		if (pr->h->result)
			pr->h->result(pr->h->ctx, plan, i, &pr->out[i]);
	}
	return 0;
}

int dpk_bench_plan_run(struct dpk_bench_runner *r, const struct dpk_bench_plan *plan,
                       unsigned repeats, struct dpk_bench_result *res,
                       const struct dpk_bench_plan_hooks *h)
{
	static const struct dpk_bench_plan_hooks none;
	struct plan_run pr = {.r = r, .plan = plan, .h = h ? h : &none};
	const size_t total = (size_t)repeats * plan->n;
	int rc = 0;

	pr.done = calloc(plan->n ? plan->n : 1, sizeof(*pr.done));
	pr.pg.total = total;
	for (size_t i = 0; i < total; i++)
		dpk_bench_result_init(&res[i], plan->item[i % plan->n].s, plan->item[i % plan->n].c,
		                      plan->item[i % plan->n].p, (unsigned)(i / plan->n));
	for (unsigned rep = 0; pr.done && rep < repeats && !rc; rep++) {
		pr.rep = rep;
		pr.out = res + (size_t)rep * plan->n;
		rc = run_repeat(&pr);
	}
	if (!pr.done || rc) {
		for (size_t i = pr.pg.done; i < total; i++)
			if (res[i].status == DPK_RESULT_OK && res[i].samples == 0)
				dpk_bench_result_fail(&res[i], "out of memory");
		rc = -ENOMEM;
	}
	free(pr.done);
	dpk_bench_witness_finish(r, res, total);
	return rc;
}
