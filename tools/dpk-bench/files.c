/* SPDX-License-Identifier: BSD-3-Clause */
/* The results files of the commands that read them (see files.h). */
#include <string.h>

#include "files.h"

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
	return 0;
}

void dpk_files_free(struct dpk_results *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dpk_results_free(&r[i]);
}
