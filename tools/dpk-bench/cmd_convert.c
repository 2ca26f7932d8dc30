/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench convert: a results file (or a comparison) in the formats other tools read. */
#define _POSIX_C_SOURCE 200809L
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "convert.h"
#include "files.h"
#include "output.h"

static const char *const to_names[] = {"", "gbench", "csv", "markdown", "dpkit"};

/* Whether @p e is left out: no --pattern of command line @p ctx selects it. */
static bool unselected(const struct dpk_res_entry *e, const void *ctx)
{
	const struct dpk_cli *cli = ctx;

	return !dpk_results_selected(cli->patterns.v, cli->patterns.n, e);
}

/* Whether glob @p p selects compared case @p c, as dpk_results_match() would its result. */
static bool case_match(const char *p, const struct dpk_cnv_case *c)
{
	char family[192];

	snprintf(family, sizeof(family), "%s/%s", c->suite, c->name);
	return fnmatch(p, c->suite, 0) == 0 || fnmatch(p, family, 0) == 0 ||
	       fnmatch(p, c->id, 0) == 0;
}

/* Keep the cases of @p cmp that the patterns select and no --exclude does; a pattern or an
 * exclude that selects none is refused. 0 or 2. */
static int select_cases(const struct dpk_cli *cli, struct dpk_cnv_cmp *cmp)
{
	const struct dpk_cli_globs *lists[2] = {&cli->patterns, &cli->excludes};
	size_t kept = 0;

	for (unsigned l = 0; l < 2; l++)
		for (unsigned g = 0; g < lists[l]->n; g++) {
			bool hit = false;

			for (size_t i = 0; i < cmp->n && !hit; i++)
				hit = case_match(lists[l]->v[g], &cmp->c[i]);
			if (!hit)
				return dpk_cli_fail(cli,
				                    "%s '%s' selects no case of the comparison",
				                    l ? "--exclude" : "--pattern", lists[l]->v[g]);
		}
	for (size_t i = 0; i < cmp->n; i++) {
		bool in = cli->patterns.n == 0, out = false;

		for (unsigned g = 0; g < cli->patterns.n && !in; g++)
			in = case_match(cli->patterns.v[g], &cmp->c[i]);
		for (unsigned g = 0; g < cli->excludes.n && !out; g++)
			out = case_match(cli->excludes.v[g], &cmp->c[i]);
		if (in && !out)
			cmp->c[kept++] = cmp->c[i];
	}
	/* The file's geometric mean is of every case: not of those shown. */
	if (kept < cmp->n)
		cmp->geomean = NAN;
	cmp->n = kept;
	return 0;
}

/* Write @p r (or, with @p cmp, the comparison) to @p o in cli->to. 0 or 2. */
static int write_out(const struct dpk_cli *cli, const struct dpk_results *r,
                     const struct dpk_cnv_cmp *cmp)
{
	struct dpk_output o;
	FILE *f;
	int rc = dpk_files_output(cli, &o, "-o", cli->output ? cli->output : "-");

	if (rc)
		return rc;
	if (!(f = dpk_output_open(&o))) {
		dpk_output_release(&o);
		return 2;
	}
	if (cmp)
		rc = dpk_convert_markdown_cmp(f, cmp);
	else if (cli->to == CLI_TO_GBENCH)
		rc = dpk_convert_gbench(f, r);
	else if (cli->to == CLI_TO_CSV)
		rc = dpk_convert_csv(f, r);
	else if (cli->to == CLI_TO_MARKDOWN)
		rc = dpk_convert_markdown(f, r);
	else
		rc = dpk_convert_dpkit(f, r);
	if ((fclose(f) != 0) | (rc != 0))
		return dpk_cli_fail(cli, "writing '%s' failed", o.path);
	return 0;
}

/* Two results files: their comparison, in Markdown. */
static int convert_two(const struct dpk_cli *cli)
{
	struct dpk_results r[2];
	struct dpk_cmp_report rep;
	struct dpk_cnv_cmp cmp;
	const struct dpk_cmp_options opt = {.noise = dpk_cli_or(cli->noise, DPK_CLI_NOISE),
	                                    .fail_above = -1.0,
	                                    .patterns = cli->patterns.v,
	                                    .npatterns = cli->patterns.n,
	                                    .unit = DPK_CMP_UNIT_AUTO,
	                                    .run_sigma = cli->run_sigma};
	char err[512];
	int rc;

	if (cli->to != CLI_TO_MARKDOWN)
		return dpk_cli_fail(cli,
		                    "--to %s takes one results file; two are compared, --to "
		                    "markdown",
		                    to_names[cli->to]);
	if ((rc = dpk_files_load(cli, r)))
		return rc;
	if (dpk_compare(&r[0], &r[1], &opt, &rep, err, sizeof(err))) {
		rc = dpk_cli_fail(cli, "%s", err);
	} else {
		rc = dpk_convert_cmp_report(&rep, &r[0], &r[1], &cmp)
		             ? dpk_cli_fail(cli, "out of memory")
		             : write_out(cli, NULL, &cmp);
		dpk_convert_cmp_free(&cmp);
		dpk_cmp_report_free(&rep);
	}
	dpk_files_free(r, 2);
	return rc;
}

/* A compare --json file (already parsed into r->doc, which dpk_results_load() refused). */
static int convert_comparison(const struct dpk_cli *cli, const struct dpk_results *r)
{
	struct dpk_cnv_cmp cmp;
	char err[512];
	int rc;

	if (cli->to != CLI_TO_MARKDOWN)
		return dpk_cli_fail(cli,
		                    "%s is a comparison (compare --json); it converts --to "
		                    "markdown only",
		                    r->path);
	if (dpk_convert_cmp_json(&r->doc, &cmp, err, sizeof(err)))
		rc = dpk_cli_fail(cli, "%s: %s", r->path, err);
	else if ((rc = select_cases(cli, &cmp)) == 0)
		rc = write_out(cli, NULL, &cmp);
	dpk_convert_cmp_free(&cmp);
	return rc;
}

/* Whether the file that did not load as results is a compare --json file. */
static bool is_comparison(const struct dpk_results *r)
{
	const struct dpk_jv *schema = dpk_jv_get(&r->doc, "schema");

	return schema && schema->type == DPK_JV_STRING &&
	       strcmp(schema->str.s, DPK_CMP_SCHEMA) == 0;
}

/* One file: a results file, or a comparison. */
static int convert_one(const struct dpk_cli *cli)
{
	struct dpk_results r;
	char err[512];
	int rc = 0;

	if (dpk_results_load(cli->words[0], &r, err, sizeof(err)) != 0) {
		rc = is_comparison(&r) ? convert_comparison(cli, &r)
		                       : dpk_cli_fail(cli, "%s: %s", cli->words[0], err);
		dpk_results_free(&r);
		return rc;
	}
	for (unsigned p = 0; p < cli->patterns.n && rc == 0; p++) {
		bool hit = false;

		for (size_t i = 0; i < r.n && !hit; i++)
			hit = dpk_results_match(cli->patterns.v[p], &r.e[i]);
		if (!hit)
			rc = dpk_cli_fail(cli, "--pattern '%s' selects no case",
			                  cli->patterns.v[p]);
	}
	if (rc == 0 && cli->to == CLI_TO_GBENCH && !(r.tsc_hz > 0))
		rc = dpk_cli_fail(cli, "%s: no clock.tsc_hz, so no nanoseconds for --to gbench",
		                  r.path);
	if (rc == 0 && (rc = dpk_files_exclude(cli, &r, 1)) == 0) {
		dpk_results_drop(&r, unselected, cli);
		rc = write_out(cli, &r, NULL);
	}
	dpk_results_free(&r);
	return rc;
}

int dpk_cmd_convert(struct dpk_cli *cli)
{
	if (cli->to == CLI_TO_NONE)
		return dpk_cli_fail(cli, "needs --to FORMAT (gbench, csv, markdown or dpkit)");
	return cli->nwords == 2 ? convert_two(cli) : convert_one(cli);
}
