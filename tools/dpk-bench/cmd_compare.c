/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench compare: before/after verdicts from two results files, and a CI gate. */
#include <stdio.h>

#include "commands.h"
#include "compare.h"
#include "files.h"
#include "output.h"

/* Print the comparison, and write it as JSON where asked; returns the exit status. */
static int show(struct dpk_output *out, const struct dpk_results *r,
                const struct dpk_cmp_report *rep)
{
	/* Standard output carries the JSON alone, when it goes there. */
	FILE *table = out->to_stdout ? stderr : stdout;
	int status = rep->gate_failures ? 1 : 0;
	FILE *json = NULL;

	if (out->path && !(json = dpk_output_open(out)))
		return 2;
	for (unsigned i = 0; i < rep->nwarn; i++)
		fprintf(stderr, "dpk-bench compare: warning: %s\n", rep->warn[i]);
	dpk_cmp_print(table, &r[0], &r[1], rep);
	fflush(table);
	if (json && (dpk_cmp_write_json(json, &r[0], &r[1], rep, status) | fclose(json))) {
		fprintf(stderr, "dpk-bench compare: writing '%s' failed\n", out->path);
		status = 2;
	}
	return status;
}

int dpk_cmd_compare(struct dpk_cli *cli)
{
	struct dpk_results r[2];
	struct dpk_cmp_report rep;
	const struct dpk_cmp_options o = {
	        .noise = dpk_cli_or(cli->noise, DPK_CLI_NOISE),
	        .fail_above = cli->fail_above,
	        .patterns = cli->patterns.v,
	        .npatterns = cli->patterns.n,
	        .unit = (enum dpk_cmp_unit_choice)cli->unit,
	        .run_sigma = cli->run_sigma,
	};
	struct dpk_output out;
	char err[512];
	int rc;

	if ((rc = dpk_files_load(cli, r)))
		return rc;
	rc = dpk_files_output(cli, &out, "--json", cli->json);
	if (rc == 0 && dpk_compare(&r[0], &r[1], &o, &rep, err, sizeof(err)) == 0) {
		rc = show(&out, r, &rep);
		dpk_cmp_report_free(&rep);
	} else if (rc == 0) {
		rc = dpk_cli_fail(cli, "%s", err);
	}
	dpk_output_release(&out);
	dpk_files_free(r, 2);
	return rc;
}
