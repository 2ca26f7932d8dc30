/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench run (the default command): the plan, its run, the table and the files. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dpk/cycles.h>

#include "commands.h"
#include "gbench.h"
#include "output.h"
#include "session.h"

#ifndef DPK_BUILD_TYPE
#define DPK_BUILD_TYPE "unknown"
#endif

/* What a run's hooks print with. */
struct run_out {
	const struct dpk_cli *cli;
	const struct dpk_bench_runner *runner;
	FILE *out; /* the table: stdout, unless a results file goes there */
	bool progress;
	double t0;  /* when the cases began, CLOCK_MONOTONIC seconds */
	double est; /* the plan's warm-up and measurement, seconds */
	struct dpk_report_layout table;
	bool failed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The cases a set run in rounds holds: the count its progress line starts with, as the
 * engine writes it ("ring: 40 single-lcore cases", "ring: 2 pair cases on core"); 1 when
 * it has none. */
static double set_cases(const char *what)
{
	const char *colon = strstr(what, ": ");
	double k = colon ? strtod(colon + 2, NULL) : 0;

	return k >= 1 ? k : 1;
}

/* "1:05" or "1:02:05". */
static void clock_text(char *buf, size_t len, double s)
{
	unsigned long t = s > 0 ? (unsigned long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

/* "0:12 elapsed, about 0:30 left": the rest at the pace so far, or by the plan before a
 * second of it has gone. */
static void eta_text(const struct run_out *o, const struct dpk_bench_progress *p, char *buf,
                     size_t len)
{
	double done = (double)p->done, spent = now_s() - o->t0, left;
	char a[32], b[32];

	if (p->rounds) /* a set's rounds, extra rounds at the end */
		done += set_cases(p->what) *
		        (p->round < p->rounds ? (double)p->round / p->rounds : 1.0);
	if (done > 0 && spent >= 1.0)
		left = spent * ((double)p->total - done) / done;
	else
		left = o->est - spent;
	clock_text(a, sizeof(a), spent);
	clock_text(b, sizeof(b), left);
	snprintf(buf, len, "%s elapsed, about %s left", a, b);
}

static void on_progress(void *ctx, const struct dpk_bench_progress *p)
{
	const struct run_out *o = ctx;
	char eta[96];

	if (!o->progress)
		return;
	if (!p) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
		return;
	}
	eta_text(o, p, eta, sizeof(eta));
	if (p->rounds && p->round < p->rounds)
		fprintf(stderr, "\r\033[K%s, round %u of %u (%s)", p->what, p->round + 1, p->rounds,
		        eta);
	else if (p->rounds)
		fprintf(stderr, "\r\033[K%s, extra round %u (too few samples at full speed; %s)",
		        p->what, p->round + 1 - p->rounds, eta);
	else
		fprintf(stderr, "\r\033[K[%zu/%zu] %s (%s)", p->done + 1, p->total, p->what, eta);
	fflush(stderr);
}

static void on_suite(void *ctx, const struct dpk_bench_plan *plan, size_t first, size_t end,
                     unsigned rep)
{
	struct run_out *o = ctx;

	/* Rows are printed as their cases end, so the case column is sized from all of the
	 * suite's cases before the header. */
	o->table.width = 0;
	for (size_t j = first; j < end; j++)
		o->table.width = dpk_report_case_width(plan->item[j].c, o->table.width);
	dpk_report_suite_header(o->out, plan->item[first].s, &o->runner->clock, &o->table);
	if (o->cli->opt.repeat > 1)
		fprintf(o->out, "  repeat %u of %u\n", rep + 1, o->cli->opt.repeat);
}

static void on_result(void *ctx, const struct dpk_bench_plan *plan, size_t i,
                      const struct dpk_bench_result *res)
{
	struct run_out *o = ctx;

	(void)plan;
	(void)i;
	o->failed |= res->status == DPK_RESULT_FAILED;
	dpk_report_row(o->out, res, &o->runner->clock, &o->table);
	fflush(o->out);
}

/* The plan's time: warm-up and measurement, and what extra rounds may add (@p more). */
static double plan_seconds(const struct dpk_cli *cli, const struct dpk_bench_plan *plan,
                           double *more)
{
	const double per = cli->opt.time_s + cli->opt.warmup_s;
	size_t nsingle = 0;

	/* Single-lcore cases may run up to twice their rounds when the speed witness finds
	 * samples slow (interleaved ones do not, but they are counted: a bound). */
	for (size_t i = 0; i < plan->n; i++)
		nsingle += plan->item[i].p == DPK_PLACE_SINGLE;
	*more = cli->opt.slow_limit > 0 ? (double)nsingle * cli->opt.repeat * per : 0;
	/* A single-lcore case warms up about twice over: the whole --warmup in its first
	 * slice, after sizing its batches, and a share of it before each later slice (counted
	 * here for every slice: a bound). */
	return ((double)plan->n * per + (double)nsingle * cli->opt.warmup_s) * cli->opt.repeat;
}

/* Print the head of a run: version, environment, placements, and the plan's time. */
static void print_head(FILE *f, const struct dpk_cli *cli, const struct dpk_bench_meta *meta,
                       const struct dpk_bench_plan *plan)
{
	double more, est = plan_seconds(cli, plan, &more);

	fprintf(f, "dpk-bench %s (git %s, %s build)\n", dpk_version(), dpk_bench_git_rev,
	        DPK_BUILD_TYPE);
	dpk_report_env(f, meta->env, &meta->runner->clock);
	dpk_report_placements(f, meta);
	char extra[128] = "";

	if (more > 0)
		snprintf(extra, sizeof(extra),
		         ", up to %.*f s more if slow phases of the machine add every extra round",
		         more < 10 ? 2 : 0, more);
	fprintf(f, "plan\n");
	dpk_report_fold(f, DPK_REPORT_COLUMNS, 4,
	                "  %zu case runs x %u: %.*f s of warm-up and measurement%s (set-ups and "
	                "tear-downs come on top)",
	                plan->n, cli->opt.repeat, est < 10 ? 2 : 0, est, extra);
}

/* The run's outputs. */
struct run_files {
	struct dpk_output json, csv;
	bool csv_raw; /* --raw: the CSV has a row per kept sample */
};

/* Write one results file, opened only now (output.h). 0 or 2. */
static int write_one(const struct dpk_cli *cli, struct dpk_output *out,
                     const struct dpk_bench_meta *meta, const struct dpk_bench_result *res,
                     size_t nres, bool csv_raw)
{
	FILE *f;
	int rc;

	if (!out->path)
		return 0;
	if (!(f = dpk_output_open(out)))
		return 2;
	if (strcmp(out->opt, "--csv") == 0)
		rc = dpk_report_csv(f, meta, res, nres, csv_raw);
	else if (cli->format == CLI_FORMAT_GBENCH)
		rc = dpk_report_gbench(f, meta, res, nres, cli->argv[0]);
	else
		rc = dpk_report_json(f, meta, res, nres);
	if (rc | (fclose(f) != 0)) {
		fprintf(stderr, "dpk-bench: writing '%s' failed\n", out->path);
		return 2;
	}
	return 0;
}

/* Run the plan and report it. */
static int run_plan(const struct dpk_cli *cli, struct dpk_session *s,
                    const struct dpk_bench_plan *plan, struct run_files *files)
{
	/* Standard output carries a results file alone, when one goes there. */
	struct run_out o = {.cli = cli,
	                    .runner = &s->runner,
	                    .table.wide = cli->wide,
	                    .out = files->json.to_stdout || files->csv.to_stdout ? stderr : stdout};
	double more;
	struct dpk_bench_plan_hooks h = {
	        .ctx = &o, .suite = on_suite, .result = on_result, .progress = on_progress};
	const size_t nres = plan->n * cli->opt.repeat;
	struct dpk_bench_result *res = calloc(nres, sizeof(*res));
	int rc;

	if (!res)
		return dpk_cli_fail(cli, "out of memory");
	if (!cli->quiet)
		print_head(o.out, cli, &s->meta, plan);
	o.progress = !cli->quiet && isatty(STDERR_FILENO);
	o.est = plan_seconds(cli, plan, &more);
	fflush(o.out);
	o.t0 = now_s();
	uint64_t t0 = dpk_tsc();
	if (dpk_bench_plan_run(&s->runner, plan, cli->opt.repeat, res, &h))
		fprintf(stderr, "dpk-bench: out of memory\n");
	s->meta.wall_s = (double)(dpk_tsc() - t0) / (double)s->runner.clock.hz;
	if (!cli->quiet) {
		fprintf(o.out, "\n%zu case runs in %.1f s%s\n", nres, s->meta.wall_s,
		        o.failed ? "; some FAILED their invariants" : "");
		dpk_report_witness(o.out, &s->runner, res, nres);
		dpk_report_coreclock(o.out, &s->runner.clock, res, nres);
		dpk_report_floors(o.out, res, nres);
	}
	fflush(o.out);
	rc = write_one(cli, &files->json, &s->meta, res, nres, files->csv_raw) |
	     write_one(cli, &files->csv, &s->meta, res, nres, files->csv_raw);
	rc = rc ? 2 : o.failed ? 1 : 0;
	for (size_t i = 0; i < nres; i++)
		dpk_bench_result_free(&res[i]);
	free(res);
	return rc;
}

/* Every input is checked before any case runs. */
static int check_inputs(const struct dpk_cli *cli, struct run_files *files)
{
	char err[512];
	int rc;

	if (cli->format == CLI_FORMAT_GBENCH && !cli->json)
		return dpk_cli_fail(cli,
		                    "--format gbench says what --json writes; give --json FILE");
	if (dpk_cli_check_patterns(cli, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	if ((rc = dpk_session_check_lcores(cli)))
		return rc;
	/* Checked, not opened: the outputs are truncated only once cases are sure to run. */
	if (dpk_output_prepare(&files->json, "--json", cli->json, err, sizeof(err)) ||
	    dpk_output_prepare(&files->csv, "--csv", cli->csv, err, sizeof(err)))
		return dpk_cli_fail(cli, "%s", err);
	/* From here on a FIFO's write end may be held: dpk_cmd_run() lets it go. */
	if (files->json.to_stdout && files->csv.to_stdout)
		return dpk_cli_fail(cli, "--json and --csv both name standard output; give one "
		                         "of them a file");
	if (dpk_output_clash(&files->json, &files->csv))
		return dpk_cli_fail(cli, "--json and --csv name the same file '%s'", cli->csv);
	return 0;
}

int dpk_cmd_run(struct dpk_cli *cli)
{
	struct dpk_session s;
	struct dpk_bench_plan plan;
	/* The gbench writer needs every kept sample; --raw still decides the CSV rows. */
	struct run_files files = {.json.fifo = -1, .csv.fifo = -1, .csv_raw = cli->opt.raw};
	int rc = check_inputs(cli, &files);

	if (cli->format == CLI_FORMAT_GBENCH)
		cli->opt.raw = true;
	if (rc == 0 && (rc = dpk_session_start(cli, &s)) == 0) {
		if ((rc = dpk_session_plan(cli, &s, &plan)) == 0) {
			rc = run_plan(cli, &s, &plan, &files);
			dpk_bench_plan_free(&plan);
		}
		dpk_session_stop(&s);
	}
	dpk_output_release(&files.json);
	dpk_output_release(&files.csv);
	return rc;
}
