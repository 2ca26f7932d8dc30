/* SPDX-License-Identifier: BSD-3-Clause */
/* set.c - cases in rounds: a set's steps, and the calls that run a whole set at once. */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "env.h"

struct dpk_bench_set *dpk_bench_set_open(struct dpk_bench_runner *r,
                                         const struct dpk_bench_item *items, unsigned k,
                                         unsigned repeat, struct dpk_bench_result *res)
{
	struct dpk_bench_set *set = calloc(1, sizeof(*set));
	bool ok;

	for (unsigned i = 0; i < k; i++)
		dpk_bench_result_init(&res[i], items[i].s, items[i].c, items[i].p, repeat);
	if (set)
		set->items = malloc((k ? k : 1) * sizeof(*items));
	if (!set || !set->items) {
		for (unsigned i = 0; i < k; i++)
			dpk_bench_result_fail(&res[i], "out of memory");
		free(set);
		return NULL;
	}
	memcpy(set->items, items, k * sizeof(*items));
	set->r = r;
	set->k = k;
	set->repeat = repeat;
	set->res = res;
	set->multi = k && items[0].c->kind != DPK_BENCH_SINGLE;
	ok = set->multi ? dpk_bench_multi_open(set) : dpk_bench_single_open(set);
	if (!ok) {
		free(set->items);
		free(set);
		return NULL;
	}
	return set;
}

unsigned dpk_bench_set_planned(const struct dpk_bench_set *set)
{
	return set->planned;
}

bool dpk_bench_set_wants(const struct dpk_bench_set *set, unsigned q)
{
	return set->multi ? q < set->planned : dpk_bench_single_wants(set, q);
}

bool dpk_bench_set_round(struct dpk_bench_set *set, unsigned q)
{
	if (!set->multi)
		dpk_bench_text_rehome();
	return set->multi ? dpk_bench_multi_round(set, q) : dpk_bench_single_round(set, q);
}

void dpk_bench_set_close(struct dpk_bench_set *set)
{
	if (!set)
		return;
	if (set->multi)
		dpk_bench_multi_close(set);
	else
		dpk_bench_single_close(set);
	free(set->items);
	free(set);
}

/* Run @p set's rounds, the planned ones and those it wants more, then close it. */
static void run_set(struct dpk_bench_set *set, dpk_bench_round_fn progress, void *ctx)
{
	for (unsigned q = 0; set && dpk_bench_set_wants(set, q); q++) {
		if (progress)
			progress(ctx, q, set->planned);
		if (!dpk_bench_set_round(set, q))
			break;
	}
	dpk_bench_set_close(set);
}

void dpk_bench_run_rounds(struct dpk_bench_runner *r, const struct dpk_bench_suite *const *suites,
                          const struct dpk_bench_case *const *cases, unsigned k, unsigned repeat,
                          struct dpk_bench_result *res, dpk_bench_round_fn progress, void *ctx)
{
	struct dpk_bench_item *items = malloc((k ? k : 1) * sizeof(*items));

	if (!items) {
		for (unsigned i = 0; i < k; i++) {
			dpk_bench_result_init(&res[i], suites[i], cases[i], DPK_PLACE_SINGLE,
			                      repeat);
			dpk_bench_result_fail(&res[i], "out of memory");
		}
		return;
	}
	for (unsigned i = 0; i < k; i++)
		items[i] = (struct dpk_bench_item){suites[i], cases[i], DPK_PLACE_SINGLE};
	run_set(dpk_bench_set_open(r, items, k, repeat, res), progress, ctx);
	free(items);
}

void dpk_bench_run_multi_rounds(struct dpk_bench_runner *r, const struct dpk_bench_item *items,
                                unsigned k, unsigned repeat, struct dpk_bench_result *res,
                                dpk_bench_round_fn progress, void *ctx)
{
	run_set(dpk_bench_set_open(r, items, k, repeat, res), progress, ctx);
}
