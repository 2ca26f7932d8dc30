/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench ab BASE NEW [PATTERN...] [OPTIONS]: its outputs checked, then ab_run.c. */
#include <stdio.h>
#include <string.h>

#include "ab.h"
#include "ab_run.h"
#include "cli.h"
#include "cli_values.h"
#include "commands.h"

/* Check ab's --json and --html before any build starts. 0 or 2. */
static int check_outputs(const struct dpk_cli *cli, struct dpk_output *json,
                         struct dpk_output *html)
{
	char err[512];

	if (dpk_output_prepare(json, "--json", cli->json, err, sizeof(err)) ||
	    dpk_output_prepare(html, "--html", cli->html, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	if (json->to_stdout && html->to_stdout)
		return dpk_cli_fail(cli, "--json and --html both name standard output; give one "
		                         "of them a file");
	if (dpk_output_clash(json, html))
		return dpk_cli_fail(cli, "--json and --html name the same file '%s'", cli->html);
	return 0;
}

/* The builds get the run options as given but --time, which becomes each process's share
 * (@p time_arg), then "--" and the patterns, into @p args; how many. */
static unsigned child_args(const struct dpk_cli *cli, const char **args, const char *time_arg)
{
	static const char *const own[] = {"--time"};
	unsigned n = dpk_cli_forwarded(cli, own, 1, args);

	args[n++] = "--time";
	args[n++] = time_arg;
	if (cli->nwords > 2)
		args[n++] = "--";
	for (unsigned i = 2; i < cli->nwords; i++)
		args[n++] = cli->words[i];
	return n;
}

int dpk_cmd_ab(struct dpk_cli *cli)
{
	const char *args[sizeof(cli->fwd) / sizeof(cli->fwd[0]) + 3 + DPK_CLI_WORDS_MAX];
	const unsigned np = cli->processes ? cli->processes : DPK_AB_PROCESSES;
	char time_arg[32];
	struct dpk_output json = {.fifo = -1}, html = {.fifo = -1};
	struct dpk_ab_args a = {
	        .base = cli->words[0],
	        .new = cli->words[1],
	        .child_args = args,
	        .noise = dpk_cli_or(cli->noise, DPK_AB_NOISE),
	        .fail_above = cli->fail_above,
	        .process_sigma = cli->run_sigma,
	        .json = &json,
	        .html = &html,
	        .seed = cli->seed,
	        .quiet = cli->quiet,
	        .processes = np,
	};
	int rc = check_outputs(cli, &json, &html);

	if (rc == 0 && cli->opt.time_s / np < DPK_CLI_TIME_MIN)
		rc = dpk_cli_fail(cli,
		                  "--time %g s over %u pairs of processes leaves each under 1 ms a "
		                  "case; give a longer --time or fewer --processes",
		                  cli->opt.time_s, np);
	snprintf(time_arg, sizeof(time_arg), "%.9g", cli->opt.time_s / np);
	a.nchild_args = child_args(cli, args, time_arg);
	if (rc == 0)
		rc = dpk_ab_run(&a);
	dpk_output_release(&json);
	dpk_output_release(&html);
	return rc;
}
