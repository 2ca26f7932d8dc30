/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench report: one self-contained HTML page from one or two results files. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "files.h"
#include "html.h"
#include "output.h"

/* Every --pattern selects some case of the files; in cycles, every file has some. 0 or 2. */
static int check_selection(const struct dpk_cli *cli, const struct dpk_results *r)
{
	for (unsigned p = 0; p < cli->patterns.n; p++) {
		bool hit = false;

		for (unsigned i = 0; i < cli->nwords; i++)
			for (size_t k = 0; k < r[i].n && !hit; k++)
				hit = dpk_results_match(cli->patterns.v[p], &r[i].e[k]);
		if (!hit)
			return dpk_cli_fail(cli, "--pattern '%s' selects no case",
			                    cli->patterns.v[p]);
	}
	/* A page with one side drawn and the other noted, and no comparison, is not what was
	 * asked for (compare exits 2 likewise). */
	for (unsigned i = 0; cli->cycles && i < cli->nwords; i++) {
		bool any = false;

		for (size_t k = 0; k < r[i].n && !any; k++)
			any = r[i].e[k].ok && isfinite(r[i].e[k].cycles.p50) &&
			      dpk_results_selected(cli->patterns.v, cli->patterns.n, &r[i].e[k]);
		if (!any)
			return dpk_cli_fail(
			        cli, "--unit cycles: no case %shas figures in cycles in %s",
			        cli->patterns.n ? "the patterns select " : "", cli->words[i]);
	}
	return 0;
}

/* Write the page of @p r, with the comparison @p rep (or NULL). 0 or 2. */
static int write_page(const struct dpk_cli *cli, struct dpk_output *o, const struct dpk_results *r,
                      const struct dpk_cmp_report *rep)
{
	const struct dpk_results *files[2] = {&r[0], &r[1]};
	const struct dpk_html_options ho = {
	        .title = cli->title,
	        .patterns = cli->patterns.v,
	        .npatterns = cli->patterns.n,
	        .cycles = cli->cycles,
	};
	FILE *out = dpk_output_open(o);
	int rc;

	if (!out)
		return 2;
	rc = dpk_html_report(out, files, cli->nwords, rep, &ho);
	if (rc | fclose(out)) {
		fprintf(stderr, "dpk-bench report: writing '%s' failed\n", cli->output);
		return 2;
	}
	if (!o->to_stdout)
		fprintf(stderr, "dpk-bench report: wrote %s\n", cli->output);
	return 0;
}

int dpk_cmd_report(struct dpk_cli *cli)
{
	struct dpk_results r[2];
	struct dpk_cmp_report rep;
	const struct dpk_cmp_options o = {
	        .noise = dpk_cli_or(cli->noise, DPK_CLI_NOISE),
	        .fail_above = -1.0,
	        .patterns = cli->patterns.v,
	        .npatterns = cli->patterns.n,
	        .unit = cli->cycles ? DPK_CMP_UNIT_CYCLES : DPK_CMP_UNIT_AUTO,
	        .run_sigma = cli->run_sigma,
	};
	struct dpk_output out;
	bool have_cmp = false;
	char err[512];
	int rc;

	if (!cli->output)
		return dpk_cli_fail(cli, "needs -o FILE (or -o - for standard output)");
	if ((rc = dpk_files_load(cli, r)))
		return rc;
	rc = dpk_files_output(cli, &out, "-o", cli->output);
	if (rc == 0)
		rc = check_selection(cli, r);
	if (rc == 0 && cli->nwords == 2) {
		have_cmp = dpk_compare(&r[0], &r[1], &o, &rep, err, sizeof(err)) == 0;
		if (!have_cmp)
			fprintf(stderr, "dpk-bench report: no comparison: %s\n", err);
	}
	if (rc == 0)
		rc = write_page(cli, &out, r, have_cmp ? &rep : NULL);
	if (have_cmp)
		dpk_cmp_report_free(&rep);
	dpk_output_release(&out);
	dpk_files_free(r, cli->nwords);
	return rc;
}
