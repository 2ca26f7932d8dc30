/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk_bench_main(): the dpk-bench command line over a program's suites. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/bench.h>

#include "commands.h"
#include "engine.h"

/* The suites of the NULL-terminated arrays in @p ap, in one NULL-terminated array. */
static const struct dpk_bench_suite **gather(va_list ap)
{
	const struct dpk_bench_suite **all = NULL, *const * list;
	size_t n = 0;

	while ((list = va_arg(ap, const struct dpk_bench_suite *const *)) != NULL) {
		for (size_t i = 0; list[i]; i++) {
			const struct dpk_bench_suite **na = realloc(all, (n + 2) * sizeof(*all));

			if (!na) {
				free(all);
				return NULL;
			}
			all = na;
			all[n++] = list[i];
		}
	}
	if (!all)
		all = calloc(1, sizeof(*all));
	else
		all[n] = NULL;
	return all;
}

int dpk_bench_main(int argc, char **argv, ...)
{
	const struct dpk_bench_suite **suites;
	char err[512];
	va_list ap;
	int rc;

	va_start(ap, argv);
	suites = gather(ap);
	va_end(ap);
	if (!suites) {
		fprintf(stderr, "dpk-bench: out of memory\n");
		return 2;
	}
	if (dpk_bench_suites_check(suites, err, sizeof(err))) {
		fprintf(stderr, "dpk-bench: %s\n", err);
		free(suites);
		return 2;
	}
	if (argc > 1 && strcmp(argv[1], "compare") == 0)
		rc = dpk_cmd_compare(argc - 1, argv + 1);
	else if (argc > 1 && strcmp(argv[1], "report") == 0)
		rc = dpk_cmd_report(argc - 1, argv + 1);
	else if (argc > 1 && strcmp(argv[1], "spread") == 0)
		rc = dpk_cmd_spread(argc - 1, argv + 1);
	else if (argc > 1 && strcmp(argv[1], "ab") == 0)
		rc = dpk_cmd_ab(argc - 1, argv + 1);
	else
		rc = dpk_cmd_run(argc, argv, suites);
	free(suites);
	return rc;
}
