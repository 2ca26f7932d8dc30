/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench ab BASE NEW [PATTERN...] [OPTIONS]: its outputs checked, then ab_run.c. */
#include <stdio.h>

#include "ab.h"
#include "ab_run.h"
#include "cli.h"
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

int dpk_cmd_ab(struct dpk_cli *cli)
{
	/* The builds get the run options as given, then "--" and the patterns. */
	const char *args[sizeof(cli->fwd) / sizeof(cli->fwd[0]) + 1 + DPK_CLI_WORDS_MAX];
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
	};
	int rc = check_outputs(cli, &json, &html);

	for (unsigned i = 0; i < cli->nfwd; i++)
		args[a.nchild_args++] = cli->fwd[i];
	if (cli->nwords > 2)
		args[a.nchild_args++] = "--";
	for (unsigned i = 2; i < cli->nwords; i++)
		args[a.nchild_args++] = cli->words[i];
	if (rc == 0)
		rc = dpk_ab_run(&a);
	dpk_output_release(&json);
	dpk_output_release(&html);
	return rc;
}
