/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk_bench_main(): the dpk-bench command line over a program's suites, a dispatcher. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/bench.h>

#include "cli.h"
#include "engine.h"
#include "env.h"
#include "report.h"
#include "session.h"

#ifndef DPK_BUILD_TYPE
#define DPK_BUILD_TYPE "unknown"
#endif

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

/* The libraries dpk_bench_library() noted, "NAME VERSION" each. */
static char libraries[DPK_BENCH_LIBRARIES_MAX][128];
static unsigned nlibraries;

int dpk_bench_library(const char *name, const char *version)
{
	if (!name || !version || !*name || !*version || strlen(name) > 63 || strlen(version) > 63)
		return -EINVAL;
	if (nlibraries == DPK_BENCH_LIBRARIES_MAX)
		return -ENOSPC;
	snprintf(libraries[nlibraries++], sizeof(libraries[0]), "%s %s", name, version);
	return 0;
}

void dpk_bench_libraries(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < nlibraries && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", libraries[i]);
}

/* "dpk-bench help [COMMAND]". */
static int help(const char *name)
{
	const struct dpk_cli_command *c = name ? dpk_cli_command(name) : NULL;

	if (name && !c) {
		fprintf(stderr, "dpk-bench help: no command '%s' (see 'dpk-bench --help')\n", name);
		return 2;
	}
	if (c)
		dpk_cli_help(stdout, c);
	else
		dpk_cli_usage(stdout);
	return 0;
}

/* Parse the command line and run the command it names. */
static int dispatch(int argc, char **argv, const struct dpk_bench_suite *const *suites)
{
	struct dpk_cli cli;
	char err[512];

	if (argc > 1 && strcmp(argv[1], "help") == 0)
		return help(argc > 2 ? argv[2] : NULL);
	if (dpk_cli_parse(argc, argv, suites, &cli, err, sizeof(err)))
		return dpk_cli_fail(&cli, "%s", err);
	if (cli.help) {
		/* Without a command name, the whole program's help. */
		if (argc > 1 && dpk_cli_command(argv[1]))
			dpk_cli_help(stdout, cli.cmd);
		else
			dpk_cli_usage(stdout);
		return 0;
	}
	if (cli.version) {
		printf("dpk-bench %s (git %s, %s)\n", dpk_version(), dpk_bench_git_rev,
		       DPK_BUILD_TYPE);
		return 0;
	}
	return cli.cmd->run(&cli);
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
	dpk_bench_text_huge();
	rc = dispatch(argc, argv, suites);
	free(suites);
	return rc;
}
