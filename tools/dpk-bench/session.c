/* SPDX-License-Identifier: BSD-3-Clause */
/* The lcores, the clock check and the environment of run and env (see session.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>

#include "session.h"

#ifndef DPK_BUILD_CFLAGS
#define DPK_BUILD_CFLAGS "unknown"
#endif
#ifndef DPK_BUILD_TYPE
#define DPK_BUILD_TYPE "unknown"
#endif

#if defined(__clang__)
#define COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER "unknown"
#endif

int dpk_session_check_lcores(const struct dpk_cli *cli)
{
	struct dpk_lcore_spec spec;
	int rc = dpk_bench_lcore_spec(cli->opt.lcores, &spec);

	if (rc)
		return dpk_cli_fail(cli, "--lcores: %s",
		                    dpk_last_error()[0] ? dpk_last_error() : strerror(-rc));
	return 0;
}

static void collect_env(const struct dpk_bench_clock *k, const struct dpk_cpuset *cpus,
                        struct dpk_env *env)
{
	char libs[DPK_BENCH_LIBRARIES_MAX * 128];

	dpk_bench_libraries(libs, sizeof(libs));
	struct dpk_env_input in = {
	        .libraries = libs,
	        .cpus = cpus,
	        .compiler = COMPILER,
	        .cflags = DPK_BUILD_CFLAGS,
	        .build_type = DPK_BUILD_TYPE,
	        .version = dpk_version(),
	        .git_rev = dpk_bench_git_rev,
	        .tsc_hz = k->hz,
	        .tsc_source = k->source,
	        .tsc_hz_check = k->hz_check,
	};
	dpk_env_collect(&in, env);
}

/* The run's record, and the placements it lacks. */
static void make_meta(struct dpk_session *s, const struct dpk_cli *cli)
{
	struct dpk_bench_meta *meta = &s->meta;
	time_t t = time(NULL);
	struct tm tm;

	memset(meta, 0, sizeof(*meta));
	meta->runner = &s->runner;
	meta->env = &s->env;
	dpk_cli_command_line(cli, s->command, sizeof(s->command));
	meta->command = s->command;
	gmtime_r(&t, &tm);
	strftime(meta->started, sizeof(meta->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (unsigned p = DPK_PLACE_SMT; p <= DPK_PLACE_OVERSUB; p++) {
		unsigned a, b;
		if (!cli->opt.placement_on[p])
			continue;
		if (!dpk_bench_placement_available(&s->runner, p, &a, &b,
		                                   meta->skips[meta->nskips].reason,
		                                   sizeof(meta->skips[0].reason)))
			meta->skips[meta->nskips++].placement = p;
	}
}

int dpk_session_start(const struct dpk_cli *cli, struct dpk_session *s)
{
	int rc = dpk_bench_runner_init(&s->runner, &cli->opt);

	if (rc)
		return dpk_cli_fail(cli, "cannot start lcores: %s",
		                    dpk_last_error()[0] ? dpk_last_error() : strerror(-rc));
	collect_env(&s->runner.clock, &s->runner.cpus_used, &s->env);
	make_meta(s, cli);
	return 0;
}

int dpk_session_plan(struct dpk_cli *cli, struct dpk_session *s, struct dpk_bench_plan *plan)
{
	int rc = dpk_bench_plan_make(plan, &s->runner, cli->suites, dpk_cli_select, cli,
	                             cli->interleave);

	if (rc == 0)
		return 0;
	dpk_bench_plan_free(plan);
	return dpk_cli_fail(
	        cli, rc == -ENOENT ? "the selection has no case to run on the chosen placements"
	                           : "out of memory");
}

void dpk_session_stop(struct dpk_session *s)
{
	dpk_bench_runner_fini(&s->runner);
}
