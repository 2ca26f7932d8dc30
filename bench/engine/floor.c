/* SPDX-License-Identifier: BSD-3-Clause */
/* floor.c - the cache-line round trip a pair's figures are read against. */
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

static bool is_floor_pingpong(const struct dpk_bench_result *r)
{
	return r->suite && r->c && strcmp(r->suite->name, "floor") == 0 &&
	       strcmp(r->c->name, "pingpong") == 0;
}

double dpk_bench_floor_of(const struct dpk_bench_result *x, const struct dpk_bench_result *res,
                          size_t n)
{
	/* Not oversub: two lcores on one CPU bounce the line only at context switches, so
	 * their round trip is the scheduler's, no floor for a hand-off. */
	if (x->status != DPK_RESULT_OK || !x->c || x->c->kind == DPK_BENCH_SINGLE ||
	    x->placement == DPK_PLACE_SINGLE || x->placement == DPK_PLACE_ALL ||
	    x->placement == DPK_PLACE_OVERSUB || is_floor_pingpong(x))
		return 0;
	for (size_t j = 0; j < n; j++)
		if (is_floor_pingpong(&res[j]) && res[j].status == DPK_RESULT_OK &&
		    res[j].placement == x->placement && res[j].repeat == x->repeat &&
		    res[j].ticks.p50 > 0)
			return res[j].ticks.p50;
	return 0;
}

void dpk_bench_link_floor(struct dpk_bench_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		res[i].floor_rt = dpk_bench_floor_of(&res[i], res, n);
}
