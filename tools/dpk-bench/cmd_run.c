/* SPDX-License-Identifier: BSD-3-Clause */
/* The commands that start lcores: run (the default), list and env. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dpk/cycles.h>

#include "cli.h"
#include "commands.h"
#include "env.h"
#include "gbench.h"
#include "output.h"
#include "report.h"
#include "serve.h"

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

static int fail_input(const char *msg)
{
	fprintf(stderr, "dpk-bench: %s\n", msg);
	return 2;
}

/* Check output @p path of option @p opt, if given; on failure a message in @p err. */
static int check_output(const char *opt, const char *path, char *err, size_t errlen)
{
	int rc = path ? dpk_output_check(path) : 0;

	if (rc)
		snprintf(err, errlen, "cannot write %s '%s': %s", opt, path, strerror(-rc));
	return rc;
}

static void collect_env(const struct dpk_bench_clock *k, const struct dpk_cpuset *cpus,
                        struct dpk_env *env)
{
	struct dpk_env_input in = {
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

static void list_cases(const struct dpk_cli *cli)
{
	char params[64];

	const struct dpk_bench_suite *s;
	for (unsigned k = 0; (s = cli->suites[k]); k++) {
		bool header = false;

		for (unsigned j = 0; j < s->ncases; j++) {
			const struct dpk_bench_case *c = &s->cases[j];
			if (cli->npatterns && !dpk_cli_selected(cli, s, c))
				continue;
			if (!header) {
				printf("%s%s: %s\n", s->name, s->default_on ? "" : " (not default)",
				       s->desc);
				header = true;
			}
			dpk_bench_params_str(c, params, sizeof(params));
			printf("  %-22s %-18s %-7s %-15s %s\n", c->name, params,
			       c->kind == DPK_BENCH_SINGLE ? "single"
			       : c->kind == DPK_BENCH_PAIR ? "pairs"
			                                   : "all",
			       dpk_bench_unit_name(c->unit), c->desc);
		}
	}
}

static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void join_args(int argc, char **argv, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc && off + 2 < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? " " : "", argv[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* What a run's hooks print with. */
struct run_out {
	const struct dpk_cli *cli;
	const struct dpk_bench_runner *runner;
	bool progress;
	int width;
	bool failed;
};

static void on_progress(void *ctx, const struct dpk_bench_progress *p)
{
	const struct run_out *o = ctx;

	if (!o->progress)
		return;
	if (!p)
		fprintf(stderr, "\r\033[K");
	else if (p->rounds && p->round < p->rounds)
		fprintf(stderr, "\r\033[K%s, round %u of %u", p->what, p->round + 1, p->rounds);
	else if (p->rounds)
		fprintf(stderr, "\r\033[K%s, extra round %u (too few samples at full speed)",
		        p->what, p->round + 1 - p->rounds);
	else
		fprintf(stderr, "\r\033[K[%zu/%zu] %s", p->done + 1, p->total, p->what);
	fflush(stderr);
}

static void on_suite(void *ctx, const struct dpk_bench_plan *plan, size_t first, size_t end,
                     unsigned rep)
{
	struct run_out *o = ctx;

	/* Rows are printed as their cases end, so the case column is sized from all of the
	 * suite's cases before the header. */
	o->width = 0;
	for (size_t j = first; j < end; j++)
		o->width = dpk_report_case_width(plan->item[j].c, o->width);
	dpk_report_suite_header(stdout, plan->item[first].s, &o->runner->clock, o->width);
	if (o->cli->opt.repeat > 1)
		printf("  repeat %u of %u\n", rep + 1, o->cli->opt.repeat);
}

static void on_result(void *ctx, const struct dpk_bench_plan *plan, size_t i,
                      const struct dpk_bench_result *res)
{
	struct run_out *o = ctx;

	(void)plan;
	(void)i;
	o->failed |= res->status == DPK_RESULT_FAILED;
	dpk_report_row(stdout, res, &o->runner->clock, o->width);
	fflush(stdout);
}

/* Print the head of a run: version, environment, placements, and the plan's time. */
static void print_head(const struct dpk_cli *cli, const struct dpk_bench_meta *meta,
                       const struct dpk_bench_plan *plan)
{
	double per = cli->opt.time_s + cli->opt.warmup_s;
	size_t nsingle = 0;

	/* Single-lcore cases may run up to twice their rounds when the speed witness finds
	 * samples slow (interleaved ones do not, but they are counted: a bound). */
	for (size_t i = 0; i < plan->n; i++)
		nsingle += plan->item[i].p == DPK_PLACE_SINGLE;
	/* A single-lcore case warms up about twice over: the whole --warmup in its first
	 * slice, after sizing its batches, and a share of it before each later slice (counted
	 * here for every slice: a bound). */
	double est =
	        ((double)plan->n * per + (double)nsingle * cli->opt.warmup_s) * cli->opt.repeat;
	double more = (double)nsingle * cli->opt.repeat * per;

	printf("dpk-bench %s (git %s, %s build)\n", dpk_version(), dpk_bench_git_rev,
	       DPK_BUILD_TYPE);
	dpk_report_env(stdout, meta->env, &meta->runner->clock);
	dpk_report_placements(stdout, meta);
	printf("plan\n  %zu case runs x %u: %.*f s of warm-up and measurement", plan->n,
	       cli->opt.repeat, est < 10 ? 2 : 0, est);
	if (cli->opt.slow_limit > 0 && nsingle)
		printf(", up to %.*f s more if slow phases of the machine add every extra round",
		       more < 10 ? 2 : 0, more);
	printf(" (set-ups and tear-downs come on top)\n");
}

/* Write the results files, opened only now (output.h). Returns the exit status part. */
static int write_outputs(const struct dpk_cli *cli, const struct dpk_bench_meta *meta,
                         const struct dpk_bench_result *res, size_t nres, bool csv_raw,
                         const char *prog)
{
	int rc = 0;

	if (cli->json_path) {
		FILE *f = dpk_output_open("--json", cli->json_path);

		if (!f) {
			rc = 2;
		} else if ((cli->format == CLI_FORMAT_GBENCH
		                    ? dpk_report_gbench(f, meta, res, nres, prog)
		                    : dpk_report_json(f, meta, res, nres)) |
		           (fclose(f) != 0)) {
			fprintf(stderr, "dpk-bench: writing '%s' failed\n", cli->json_path);
			rc = 2;
		}
	}
	if (cli->csv_path) {
		FILE *f = dpk_output_open("--csv", cli->csv_path);

		if (!f) {
			rc = 2;
		} else if (dpk_report_csv(f, meta, res, nres, csv_raw) | (fclose(f) != 0)) {
			fprintf(stderr, "dpk-bench: writing '%s' failed\n", cli->csv_path);
			rc = 2;
		}
	}
	return rc;
}

static bool selected(void *ctx, const struct dpk_bench_suite *s, const struct dpk_bench_case *c)
{
	return dpk_cli_selected(ctx, s, c);
}

/* Run the plan and report it. */
static int run_plan(struct dpk_cli *cli, struct dpk_bench_runner *runner,
                    struct dpk_bench_meta *meta, const struct dpk_bench_plan *plan, bool csv_raw,
                    const char *prog)
{
	struct run_out o = {.cli = cli, .runner = runner};
	struct dpk_bench_plan_hooks h = {
	        .ctx = &o, .suite = on_suite, .result = on_result, .progress = on_progress};
	const size_t nres = plan->n * cli->opt.repeat;
	struct dpk_bench_result *res = calloc(nres, sizeof(*res));
	int rc;

	if (!res)
		return fail_input("out of memory");
	if (!cli->quiet)
		print_head(cli, meta, plan);
	o.progress = !cli->quiet && isatty(STDERR_FILENO);
	fflush(stdout);
	uint64_t t0 = dpk_tsc();
	if (dpk_bench_plan_run(runner, plan, cli->opt.repeat, res, &h))
		fprintf(stderr, "dpk-bench: out of memory\n");
	meta->wall_s = (double)(dpk_tsc() - t0) / (double)runner->clock.hz;
	if (!cli->quiet) {
		printf("\n%zu case runs in %.1f s%s\n", nres, meta->wall_s,
		       o.failed ? "; some FAILED their invariants" : "");
		dpk_report_witness(stdout, runner, res, nres);
		dpk_report_coreclock(stdout, &runner->clock, res, nres);
	}
	rc = o.failed ? 1 : 0;
	rc = write_outputs(cli, meta, res, nres, csv_raw, prog) ?: rc;
	for (size_t i = 0; i < nres; i++)
		dpk_bench_result_free(&res[i]);
	free(res);
	return rc;
}

/* Every input is checked before any case runs. */
static int check_inputs(struct dpk_cli *cli, struct dpk_lcore_spec *spec)
{
	char err[512];
	int rc;

	if (dpk_cli_check_patterns(cli, err, sizeof(err)))
		return fail_input(err);
	rc = dpk_bench_lcore_spec(cli->opt.lcores, spec);
	if (rc) {
		snprintf(err, sizeof(err), "--lcores: %s",
		         dpk_last_error()[0] ? dpk_last_error() : strerror(-rc));
		return fail_input(err);
	}
	/* Checked, not opened: the outputs are truncated only once cases are sure to run. */
	if (check_output("--json", cli->json_path, err, sizeof(err)) ||
	    check_output("--csv", cli->csv_path, err, sizeof(err)))
		return fail_input(err);
	if (dpk_output_same(cli->json_path, cli->csv_path)) {
		snprintf(err, sizeof(err), "--json and --csv name the same file '%s'",
		         cli->csv_path);
		return fail_input(err);
	}
	return 0;
}

/* The run's metadata, and the placements it lacks. */
static void make_meta(struct dpk_bench_meta *meta, const struct dpk_cli *cli,
                      const struct dpk_bench_runner *runner, const struct dpk_env *env, int argc,
                      char **argv, char *command, size_t len)
{
	memset(meta, 0, sizeof(*meta));
	meta->runner = runner;
	meta->env = env;
	join_args(argc, argv, command, len);
	meta->command = command;
	now_iso(meta->started, sizeof(meta->started));
	for (unsigned p = DPK_PLACE_SMT; p <= DPK_PLACE_OVERSUB; p++) {
		unsigned a, b;
		if (!cli->opt.placement_on[p])
			continue;
		if (!dpk_bench_placement_available(runner, p, &a, &b,
		                                   meta->skips[meta->nskips].reason,
		                                   sizeof(meta->skips[0].reason)))
			meta->skips[meta->nskips++].placement = p;
	}
}

/* run, list and env, once parsed. */
static int run_command(struct dpk_cli *cli, int argc, char **argv, bool csv_raw)
{
	struct dpk_bench_runner runner;
	struct dpk_bench_meta meta;
	struct dpk_bench_plan plan;
	struct dpk_lcore_spec spec;
	struct dpk_env env;
	char command[1024];
	int rc = check_inputs(cli, &spec);

	if (rc)
		return rc;
	rc = dpk_bench_runner_init(&runner, &cli->opt);
	if (rc) {
		fprintf(stderr, "dpk-bench: cannot start lcores: %s\n",
		        dpk_last_error()[0] ? dpk_last_error() : strerror(-rc));
		return 2;
	}
	collect_env(&runner.clock, &runner.cpus_used, &env);
	make_meta(&meta, cli, &runner, &env, argc, argv, command, sizeof(command));
	if (cli->cmd == CLI_ENV) {
		dpk_report_env(stdout, &env, &runner.clock);
		dpk_report_placements(stdout, &meta);
		dpk_bench_runner_fini(&runner);
		return 0;
	}
	rc = dpk_bench_plan_make(&plan, &runner, cli->suites, selected, cli, cli->interleave);
	if (rc == 0 && cli->cmd == CLI_SERVE)
		rc = dpk_serve(&runner, &plan, &meta, cli->json_path, stdin, stdout);
	else if (rc == 0)
		rc = run_plan(cli, &runner, &meta, &plan, csv_raw, argv[0]);
	else if (rc == -ENOENT)
		rc = fail_input("the selection has no case to run on the chosen placements");
	else
		rc = fail_input("out of memory");
	dpk_bench_plan_free(&plan);
	dpk_bench_runner_fini(&runner);
	return rc;
}

int dpk_cmd_run(int argc, char **argv, const struct dpk_bench_suite *const *suites)
{
	struct dpk_cli cli;
	char err[512];

	if (dpk_cli_parse(argc, argv, suites, &cli, err, sizeof(err)))
		return fail_input(err);
	/* The gbench writer needs every kept sample; --raw still decides the CSV rows. */
	bool csv_raw = cli.opt.raw;
	if (cli.format == CLI_FORMAT_GBENCH)
		cli.opt.raw = true;
	switch (cli.cmd) {
	case CLI_HELP:
		fputs(dpk_cli_usage, stdout);
		return 0;
	case CLI_VERSION:
		printf("dpk-bench %s (git %s, %s)\n", dpk_version(), dpk_bench_git_rev,
		       DPK_BUILD_TYPE);
		return 0;
	case CLI_LIST:
		if (dpk_cli_check_patterns(&cli, err, sizeof(err)))
			return fail_input(err);
		list_cases(&cli);
		return 0;
	default:
		return run_command(&cli, argc, argv, csv_raw);
	}
}
