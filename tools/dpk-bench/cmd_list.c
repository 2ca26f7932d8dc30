/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench list: the suites and their cases. */
#include <stdio.h>

#include "cli.h"
#include "commands.h"

static const char *kind_name(enum dpk_bench_kind k)
{
	return k == DPK_BENCH_SINGLE ? "single" : k == DPK_BENCH_PAIR ? "pairs" : "all";
}

int dpk_cmd_list(struct dpk_cli *cli)
{
	const struct dpk_bench_suite *s;
	char err[512], params[64];

	if (dpk_cli_check_patterns(cli, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	for (unsigned k = 0; (s = cli->suites[k]); k++) {
		bool header = false;

		for (unsigned j = 0; j < s->ncases; j++) {
			const struct dpk_bench_case *c = &s->cases[j];

			/* Without patterns, every suite, default or not. */
			if (cli->nwords ? !dpk_cli_selected(cli, s, c)
			                : dpk_cli_excluded(cli, s, c))
				continue;
			if (!header) {
				printf("%s%s: %s\n", s->name, s->default_on ? "" : " (not default)",
				       s->desc);
				header = true;
			}
			dpk_bench_params_str(c, params, sizeof(params));
			printf("  %-22s %-18s %-7s %-15s %s\n", c->name, params, kind_name(c->kind),
			       dpk_bench_unit_name(c->unit), c->desc);
		}
	}
	return 0;
}
