/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench: run dpkit's perf suites and report what each block costs here. */
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
#include "suites.h"

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
	for (unsigned k = 0; (s = dpk_bench_suite_at(k)); k++) {
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

struct plan_item {
	const struct dpk_bench_suite *s;
	const struct dpk_bench_case *c;
	enum dpk_placement p;
};

static void round_progress(void *ctx, unsigned round, unsigned rounds)
{
	const char *what = ctx;

	if (round < rounds)
		fprintf(stderr, "\r\033[K%s, round %u of %u", what, round + 1, rounds);
	else
		fprintf(stderr, "\r\033[K%s, extra round %u (too few samples at full speed)", what,
		        round + 1 - rounds);
	fflush(stderr);
}

/* Whether plan item @p i belongs to an interleaved group of two or more. */
static bool in_group(const size_t *leader, size_t nplan, size_t i)
{
	for (size_t j = 0; j < nplan; j++)
		if (j != i && leader[j] == leader[i])
			return true;
	return false;
}

/*
 * Run the single-lcore cases of the suite that starts at plan item @p first in rounds
 * (dpk_bench_run_rounds), except those an --interleave group takes. Their results go to
 * out[] at their plan index and done[] is set. Returns 0, or -1 when out of memory.
 */
static int run_suite_rounds(struct dpk_bench_runner *runner, const struct plan_item *plan,
                            size_t nplan, size_t first, const size_t *leader, bool interleave,
                            unsigned rep, struct dpk_bench_result *out, bool *done, bool progress)
{
	const struct dpk_bench_suite **ss = calloc(nplan, sizeof(*ss));
	const struct dpk_bench_case **cs = calloc(nplan, sizeof(*cs));
	struct dpk_bench_result *rr = calloc(nplan, sizeof(*rr));
	size_t *at = calloc(nplan, sizeof(*at));
	unsigned k = 0;
	char what[160];

	if (!ss || !cs || !rr || !at) {
		free(ss);
		free(cs);
		free(rr);
		free(at);
		return -1;
	}
	for (size_t j = first; j < nplan && plan[j].s == plan[first].s; j++) {
		if (plan[j].c->kind != DPK_BENCH_SINGLE || done[j] ||
		    (interleave && in_group(leader, nplan, j)))
			continue;
		ss[k] = plan[j].s;
		cs[k] = plan[j].c;
		at[k++] = j;
	}
	if (k > 0) {
		snprintf(what, sizeof(what), "%s: %u single-lcore case%s", plan[first].s->name, k,
		         k == 1 ? "" : "s");
		dpk_bench_run_rounds(runner, ss, cs, k, rep, rr, progress ? round_progress : NULL,
		                     what);
		for (unsigned q = 0; q < k; q++) {
			out[at[q]] = rr[q];
			done[at[q]] = true;
		}
		if (progress)
			fprintf(stderr, "\r\033[K");
	}
	free(ss);
	free(cs);
	free(rr);
	free(at);
	return 0;
}

int main(int argc, char **argv)
{
	struct dpk_cli cli;
	struct dpk_bench_runner runner;
	struct dpk_bench_meta meta;
	struct dpk_env env;
	struct dpk_lcore_spec spec;
	struct plan_item *plan = NULL;
	struct dpk_bench_result *res = NULL;
	size_t nplan = 0, nres = 0;
	char err[512], command[1024];
	bool progress, failed = false;
	int rc;

	if (argc > 1 && strcmp(argv[1], "compare") == 0)
		return dpk_cmd_compare(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return dpk_cmd_report(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "spread") == 0)
		return dpk_cmd_spread(argc - 1, argv + 1);
	if (dpk_cli_parse(argc, argv, &cli, err, sizeof(err)))
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
		break;
	}

	/* Every input is checked before any case runs. */
	if (dpk_cli_check_patterns(&cli, err, sizeof(err)))
		return fail_input(err);
	rc = dpk_bench_lcore_spec(cli.opt.lcores, &spec);
	if (rc) {
		snprintf(err, sizeof(err), "--lcores: %s",
		         dpk_last_error()[0] ? dpk_last_error() : strerror(-rc));
		return fail_input(err);
	}
	/* Checked, not opened: the outputs are truncated only once cases are sure to run. */
	if (check_output("--json", cli.json_path, err, sizeof(err)) ||
	    check_output("--csv", cli.csv_path, err, sizeof(err)))
		return fail_input(err);
	if (dpk_output_same(cli.json_path, cli.csv_path)) {
		snprintf(err, sizeof(err), "--json and --csv name the same file '%s'",
		         cli.csv_path);
		return fail_input(err);
	}

	rc = dpk_bench_runner_init(&runner, &cli.opt);
	if (rc) {
		snprintf(err, sizeof(err), "cannot start lcores: %s",
		         dpk_last_error()[0] ? dpk_last_error() : strerror(-rc));
		fprintf(stderr, "dpk-bench: %s\n", err);
		return 2;
	}
	collect_env(&runner.clock, &runner.cpus_used, &env);

	memset(&meta, 0, sizeof(meta));
	meta.runner = &runner;
	meta.env = &env;
	join_args(argc, argv, command, sizeof(command));
	meta.command = command;
	now_iso(meta.started, sizeof(meta.started));
	for (unsigned p = DPK_PLACE_SMT; p <= DPK_PLACE_OVERSUB; p++) {
		unsigned a, b;
		if (!cli.opt.placement_on[p])
			continue;
		if (!dpk_bench_placement_available(&runner, p, &a, &b,
		                                   meta.skips[meta.nskips].reason,
		                                   sizeof(meta.skips[0].reason)))
			meta.skips[meta.nskips++].placement = p;
	}

	if (cli.cmd == CLI_ENV) {
		dpk_report_env(stdout, &env, &runner.clock);
		dpk_report_placements(stdout, &meta);
		dpk_bench_runner_fini(&runner);
		return 0;
	}

	/* The plan: selected cases on their enabled, available placements. */
	const struct dpk_bench_suite *s;
	for (unsigned k = 0; (s = dpk_bench_suite_at(k)); k++) {
		for (unsigned j = 0; j < s->ncases; j++) {
			const struct dpk_bench_case *c = &s->cases[j];
			if (!dpk_cli_selected(&cli, s, c))
				continue;
			for (unsigned p = 0; p < DPK_PLACE_COUNT; p++) {
				unsigned a, b;
				char why[160];
				bool fits =
				        (c->kind == DPK_BENCH_SINGLE && p == DPK_PLACE_SINGLE) ||
				        (c->kind == DPK_BENCH_ALL && p == DPK_PLACE_ALL) ||
				        (c->kind == DPK_BENCH_PAIR && p >= DPK_PLACE_SMT &&
				         p <= DPK_PLACE_OVERSUB);
				if (!fits || !cli.opt.placement_on[p])
					continue;
				if (c->kind == DPK_BENCH_PAIR &&
				    !dpk_bench_placement_available(&runner, p, &a, &b, why,
				                                   sizeof(why)))
					continue;
				struct plan_item *np = realloc(plan, (nplan + 1) * sizeof(*plan));
				if (!np) {
					fprintf(stderr, "dpk-bench: out of memory\n");
					return 2;
				}
				plan = np;
				plan[nplan++] = (struct plan_item){s, c, p};
			}
		}
	}
	if (nplan == 0) {
		dpk_bench_runner_fini(&runner);
		return fail_input("the selection has no case to run on the chosen placements");
	}
	res = calloc(nplan * cli.opt.repeat, sizeof(*res));
	if (!res) {
		fprintf(stderr, "dpk-bench: out of memory\n");
		return 2;
	}

	if (!cli.quiet) {
		double per = cli.opt.time_s + cli.opt.warmup_s;
		size_t nsingle = 0;

		/* Single-lcore cases may run up to twice their rounds when the speed witness
		 * finds samples slow (interleaved ones do not, but they are counted: a bound). */
		for (size_t i = 0; i < nplan; i++)
			nsingle += plan[i].p == DPK_PLACE_SINGLE;
		/* A single-lcore case warms up about twice over: the whole --warmup in its first
		 * slice, after sizing its batches, and a share of it before each later slice
		 * (counted here for every slice: a bound). */
		double est =
		        ((double)nplan * per + (double)nsingle * cli.opt.warmup_s) * cli.opt.repeat;
		printf("dpk-bench %s (git %s, %s build)\n", dpk_version(), dpk_bench_git_rev,
		       DPK_BUILD_TYPE);
		dpk_report_env(stdout, &env, &runner.clock);
		dpk_report_placements(stdout, &meta);
		double more = (double)nsingle * cli.opt.repeat * per;

		printf("plan\n  %zu case runs x %u: %.*f s of warm-up and measurement", nplan,
		       cli.opt.repeat, est < 10 ? 2 : 0, est);
		if (cli.opt.slow_limit > 0 && nsingle)
			printf(", up to %.*f s more if slow phases of the machine add every extra "
			       "round",
			       more < 10 ? 2 : 0, more);
		printf(" (set-ups and tear-downs come on top)\n");
	}
	progress = !cli.quiet && isatty(STDERR_FILENO);
	fflush(stdout);

	/* With --interleave, single-lcore cases sharing a group key run together; each
	 * group's members point at the first member's plan index. */
	size_t *leader = calloc(nplan ? nplan : 1, sizeof(*leader));
	if (!leader) {
		fprintf(stderr, "dpk-bench: out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < nplan; i++) {
		char ki[256], kj[256];
		leader[i] = i;
		if (!cli.interleave || plan[i].c->kind != DPK_BENCH_SINGLE)
			continue;
		dpk_bench_group_key(plan[i].c, ki, sizeof(ki));
		for (size_t j = 0; j < i; j++)
			if (leader[j] == j && plan[j].c->kind == DPK_BENCH_SINGLE &&
			    strcmp(ki, dpk_bench_group_key(plan[j].c, kj, sizeof(kj))) == 0) {
				leader[i] = j;
				break;
			}
	}

	bool *done = calloc(nplan, sizeof(*done));
	if (!done) {
		fprintf(stderr, "dpk-bench: out of memory\n");
		return 2;
	}
	uint64_t t0 = dpk_tsc();
	for (unsigned rep = 0; rep < cli.opt.repeat; rep++) {
		const struct dpk_bench_suite *cur = NULL;
		int width = 0;

		memset(done, 0, nplan * sizeof(*done));
		for (size_t i = 0; i < nplan; i++) {
			struct dpk_bench_result *x = &res[(size_t)rep * nplan + i];
			char params[64];

			if (i == 0 || plan[i].s != plan[i - 1].s) {
				if (run_suite_rounds(&runner, plan, nplan, i, leader,
				                     cli.interleave, rep, res + (size_t)rep * nplan,
				                     done, progress) != 0) {
					fprintf(stderr, "dpk-bench: out of memory\n");
					return 2;
				}
			}
			nres++;
			if (!done[i] && leader[i] == i && cli.interleave) {
				/* Run the whole group now; later members are printed in turn. */
				const struct dpk_bench_suite *gs[16];
				const struct dpk_bench_case *gc[16];
				struct dpk_bench_result gr[16];
				size_t gi[16];
				unsigned k = 0;
				for (size_t j = i; j < nplan && k < 16; j++)
					if (leader[j] == i) {
						gs[k] = plan[j].s;
						gc[k] = plan[j].c;
						gi[k++] = j;
					}
				if (k > 1) {
					if (progress) {
						dpk_bench_params_str(plan[i].c, params,
						                     sizeof(params));
						fprintf(stderr,
						        "\r\033[K[%zu/%zu] %u variants of %s %s, "
						        "interleaved",
						        nres, nplan * cli.opt.repeat, k,
						        plan[i].c->name, params);
						fflush(stderr);
					}
					dpk_bench_run_interleaved(&runner, gs, gc, k, rep, gr);
					for (unsigned q = 0; q < k; q++) {
						res[(size_t)rep * nplan + gi[q]] = gr[q];
						done[gi[q]] = true;
					}
				}
			}
			if (!done[i] && progress) {
				dpk_bench_params_str(plan[i].c, params, sizeof(params));
				fprintf(stderr, "\r\033[K[%zu/%zu] %s/%s %s on %s", nres,
				        nplan * cli.opt.repeat, plan[i].s->name, plan[i].c->name,
				        params, dpk_placement_name(plan[i].p));
				fflush(stderr);
			}
			if (!done[i])
				dpk_bench_run_case(&runner, plan[i].s, plan[i].c, plan[i].p, rep,
				                   x);
			done[i] = true;
			if (x->status == DPK_RESULT_FAILED)
				failed = true;
			if (progress)
				fprintf(stderr, "\r\033[K");
			if (plan[i].s != cur) {
				cur = plan[i].s;
				/* A suite's cases are next to each other in the plan. Rows are
				 * printed as their cases end, so the case column is sized from
				 * all of them before the header. */
				width = 0;
				for (size_t j = i; j < nplan && plan[j].s == cur; j++)
					width = dpk_report_case_width(plan[j].c, width);
				dpk_report_suite_header(stdout, cur, &runner.clock, width);
				if (cli.opt.repeat > 1)
					printf("  repeat %u of %u\n", rep + 1, cli.opt.repeat);
			}
			/* The floor ran before this row, in the default order: read the row
			 * against it (the JSON links every row once all have run). */
			x->floor_rt = dpk_bench_floor_of(x, &res[(size_t)rep * nplan], i);
			dpk_report_row(stdout, x, &runner.clock, width);
			fflush(stdout);
		}
	}
	free(done);
	free(leader);
	meta.wall_s = (double)(dpk_tsc() - t0) / (double)runner.clock.hz;
	dpk_bench_witness_finish(&runner, res, nres);
	dpk_bench_link_floor(res, nres);
	if (!cli.quiet) {
		printf("\n%zu case runs in %.1f s%s\n", nres, meta.wall_s,
		       failed ? "; some FAILED their invariants" : "");
		dpk_report_witness(stdout, &runner, res, nres);
		dpk_report_coreclock(stdout, &runner.clock, res, nres);
	}

	rc = failed ? 1 : 0;
	/* Only now are the outputs opened (output.h): a run stopped before this point leaves
	 * the files it would have replaced as they were. */
	if (cli.json_path) {
		FILE *f = dpk_output_open("--json", cli.json_path);

		if (!f) {
			rc = 2;
		} else if ((cli.format == CLI_FORMAT_GBENCH
		                    ? dpk_report_gbench(f, &meta, res, nres, argv[0])
		                    : dpk_report_json(f, &meta, res, nres)) |
		           (fclose(f) != 0)) {
			fprintf(stderr, "dpk-bench: writing '%s' failed\n", cli.json_path);
			rc = 2;
		}
	}
	if (cli.csv_path) {
		FILE *f = dpk_output_open("--csv", cli.csv_path);

		if (!f) {
			rc = 2;
		} else if (dpk_report_csv(f, &meta, res, nres, csv_raw) | (fclose(f) != 0)) {
			fprintf(stderr, "dpk-bench: writing '%s' failed\n", cli.csv_path);
			rc = 2;
		}
	}
	for (size_t i = 0; i < nres; i++)
		dpk_bench_result_free(&res[i]);
	free(res);
	free(plan);
	dpk_bench_runner_fini(&runner);
	return rc;
}
