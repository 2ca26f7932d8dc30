/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench ab BASE NEW [PATTERN...] [OPTIONS]: its options, then ab_run.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "ab_run.h"
#include "cli.h"
#include "commands.h"

int dpk_cmd_ab(int argc, char **argv)
{
	struct dpk_ab_args a = {.noise = DPK_AB_NOISE, .fail_above = -1};
	const char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int rc;

	if (!rest)
		return 2;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--noise") == 0 && v && !dpk_cli_parse_pct(v, 100, &a.noise))
			i++;
		else if (strcmp(argv[i], "--fail-above") == 0 && v &&
		         !dpk_cli_parse_pct(v, 1000, &a.fail_above))
			i++;
		else if (strcmp(argv[i], "--json") == 0 && v)
			a.json = argv[++i];
		else if (strcmp(argv[i], "--html") == 0 && v)
			a.html = argv[++i];
		else if (strcmp(argv[i], "--seed") == 0 && v)
			a.seed = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--quiet") == 0)
			a.quiet = true;
		else if (!a.base)
			a.base = argv[i];
		else if (!a.new)
			a.new = argv[i];
		else
			rest[a.nchild_args++] = argv[i];
	}
	if (!a.base || !a.new) {
		fprintf(stderr, "dpk-bench ab: needs two dpk-bench programs: BASE NEW\n");
		free(rest);
		return 2;
	}
	a.child_args = rest;
	rc = dpk_ab_run(&a);
	free(rest);
	return rc;
}
