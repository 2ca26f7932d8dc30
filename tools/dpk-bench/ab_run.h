/* SPDX-License-Identifier: BSD-3-Clause */
/* ab_run.h - dpk-bench ab: two builds measured round by round in turn (serve.h, ab.h). */
#ifndef DPK_BENCH_AB_RUN_H
#define DPK_BENCH_AB_RUN_H

#include <stdbool.h>

#include "output.h"

/** What an ab run is given. */
struct dpk_ab_args {
	const char *base, *new;        /**< the two dpk-bench programs */
	const char *const *child_args; /**< patterns and run options for both (--time a share) */
	unsigned nchild_args;
	double noise, fail_above; /**< as ab.h; fail_above negative: no gate */
	double process_sigma;     /**< as ab.h; negative: by unit */
	struct dpk_output *json;  /**< where the ab JSON goes (path NULL: nowhere), checked */
	struct dpk_output *html;  /**< where the HTML page goes (path NULL: nowhere), checked */
	unsigned long seed;       /**< the order of each pair of rounds; 0: from the clock */
	bool quiet;               /**< no progress line */
	unsigned processes;       /**< pairs of processes, one after the other (ab.h) */
};

/** Run @p a; the exit status: 0, 1 (the gate failed), 2 (bad input, a child that failed,
 *  crashed or hung), 130 (interrupted). */
int dpk_ab_run(const struct dpk_ab_args *a);

#endif /* DPK_BENCH_AB_RUN_H */
