/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench serve: a build's side of ab, its sets served round by round (serve.c). */
#include <stdio.h>

#include "commands.h"
#include "serve.h"
#include "session.h"

/* Every input is checked before any lcore starts. 0 or 2. */
static int check_inputs(const struct dpk_cli *cli, struct dpk_output *json)
{
	char err[512];
	int rc;

	if (!cli->json)
		return dpk_cli_fail(cli, "needs --json FILE, where the results go at the end");
	if (dpk_cli_check_patterns(cli, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	if ((rc = dpk_session_check_lcores(cli)))
		return rc;
	if (dpk_output_prepare(json, "--json", cli->json, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	return 0;
}

int dpk_cmd_serve(struct dpk_cli *cli)
{
	struct dpk_output json = {.fifo = -1};
	struct dpk_bench_plan plan;
	struct dpk_session s;
	int rc = check_inputs(cli, &json);

	if (rc == 0 && (rc = dpk_session_start(cli, &s)) == 0) {
		if ((rc = dpk_session_plan(cli, &s, &plan)) == 0) {
			rc = dpk_serve(&s.runner, &plan, &s.meta, &json, stdin, stdout);
			dpk_bench_plan_free(&plan);
		}
		dpk_session_stop(&s);
	}
	dpk_output_release(&json);
	return rc;
}
