/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * session.h - what run and env share: the lcores started, the clock checked, the
 * environment collected, and the record of the run (struct dpk_bench_meta).
 */
#ifndef DPK_BENCH_SESSION_H
#define DPK_BENCH_SESSION_H

#include "cli.h"
#include "env.h"
#include "report.h"

struct dpk_session {
	struct dpk_bench_runner runner;
	struct dpk_env env;
	struct dpk_bench_meta meta;
	char command[1024]; /**< the command line, for meta */
};

/**
 * Check --lcores (or the default spec) without starting anything.
 * @retval 0 / 2 with a message on stderr
 */
int dpk_session_check_lcores(const struct dpk_cli *cli);

/** The libraries the program noted with dpk_bench_library(), "DPDK 22.11.11, ck 0.7.1";
 *  "" when none (bench_main.c). */
void dpk_bench_libraries(char *buf, size_t len);

/**
 * Start the lcores of @p cli's options, check the clock, collect the environment and fill
 * the record, with the placements the lcores cannot offer.
 * @retval 0 started (stop it with dpk_session_stop()) / 2 with a message on stderr
 */
int dpk_session_start(const struct dpk_cli *cli, struct dpk_session *s);

/**
 * Make the plan of the cases @p cli selects on the lcores of @p s, interleaved as it says.
 * @retval 0 made (free it with dpk_bench_plan_free()) / 2 with a message on stderr (nothing
 *         to run on the chosen placements, or out of memory)
 */
int dpk_session_plan(struct dpk_cli *cli, struct dpk_session *s, struct dpk_bench_plan *plan);

void dpk_session_stop(struct dpk_session *s);

#endif /* DPK_BENCH_SESSION_H */
