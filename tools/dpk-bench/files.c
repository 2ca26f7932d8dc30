/* SPDX-License-Identifier: BSD-3-Clause */
/* The results files of the commands that read them (see files.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "files.h"
#include "output.h"

int dpk_files_load(const struct dpk_cli *cli, struct dpk_results *r)
{
	char err[512];

	memset(r, 0, cli->nwords * sizeof(*r));
	for (unsigned i = 0; i < cli->nwords; i++) {
		if (dpk_results_load(cli->words[i], &r[i], err, sizeof(err)) == 0)
			continue;
		dpk_files_free(r, i + 1);
		return dpk_cli_fail(cli, "%s: %s", cli->words[i], err);
	}
	if (dpk_files_exclude(cli, r, cli->nwords) == 0)
		return 0;
	dpk_files_free(r, cli->nwords);
	return 2;
}

void dpk_files_free(struct dpk_results *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dpk_results_free(&r[i]);
}

/* Whether some --exclude of command line @p ctx selects @p e. */
static bool excluded(const struct dpk_res_entry *e, const void *ctx)
{
	const struct dpk_cli *cli = ctx;

	for (unsigned i = 0; i < cli->excludes.n; i++)
		if (dpk_results_match(cli->excludes.v[i], e))
			return true;
	return false;
}

/* Keep @p name in @p best (of @p len bytes) when it is nearer @p p than *bd. */
static void nearer(const char *p, const char *name, char *best, size_t len, unsigned *bd)
{
	unsigned d = dpk_cli_distance(p, name);

	if (d < *bd) {
		*bd = d;
		snprintf(best, len, "%s", name);
	}
}

/* Refuse --exclude @p p when it selects no case of the files, with the nearest name. */
static int exclude_hits(const struct dpk_cli *cli, const char *p, const struct dpk_results *r,
                        unsigned n)
{
	char best[320] = "";
	unsigned bd = UINT32_MAX;

	for (unsigned f = 0; f < n; f++)
		for (size_t i = 0; i < r[f].n; i++) {
			const struct dpk_res_entry *e = &r[f].e[i];

			if (dpk_results_match(p, e))
				return 0;
			nearer(p, e->suite, best, sizeof(best), &bd);
			nearer(p, e->family, best, sizeof(best), &bd);
			nearer(p, e->id, best, sizeof(best), &bd);
		}
	/* Near enough to be the same word mistyped, as with run's patterns. */
	if (best[0] && bd <= 1 + strlen(p) / 3)
		return dpk_cli_fail(cli,
		                    "--exclude '%s' matches no case in the files (did you mean "
		                    "'%s'?)",
		                    p, best);
	return dpk_cli_fail(cli, "--exclude '%s' matches no case in the files", p);
}

int dpk_files_exclude(const struct dpk_cli *cli, struct dpk_results *r, unsigned n)
{
	for (unsigned i = 0; i < cli->excludes.n; i++) {
		int rc = exclude_hits(cli, cli->excludes.v[i], r, n);

		if (rc)
			return rc;
	}
	for (unsigned f = 0; f < n; f++)
		dpk_results_drop(&r[f], excluded, cli);
	return 0;
}

int dpk_files_output(const struct dpk_cli *cli, struct dpk_output *o, const char *opt,
                     const char *path)
{
	char err[512];

	if (dpk_output_prepare(o, opt, path, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	for (unsigned i = 0; i < cli->nwords; i++) {
		if (!dpk_output_same(path, cli->words[i]))
			continue;
		dpk_output_release(o);
		return dpk_cli_fail(cli, "%s '%s' names the input %s, which it would overwrite",
		                    opt, path, cli->words[i]);
	}
	return 0;
}
