/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench compare and dpk-bench report: option parsing, file handling, exit codes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "html.h"
#include "results.h"
#include "stats.h"
#include "witness.h"

#define PATTERNS_MAX 64
#define FILES_MAX    64
#define RUNS_MAX     (FILES_MAX * 8) /* runs a spread compares: files, or repeats in them */

const char dpk_cmd_compare_usage[] =
        "usage: dpk-bench compare BASE.json NEW.json [OPTIONS]\n"
        "\n"
        "Compare two dpk-bench results files (written with --json; add --raw to both runs for\n"
        "a significance test) case by case: the ratio new/base of the median with its 95%\n"
        "interval, a p-value, and a verdict: faster, slower or within noise.\n"
        "\n"
        "options:\n"
        "  --noise PCT        noise threshold in percent (default 2): a verdict of faster or\n"
        "                     slower needs p < 0.05 and the whole interval beyond it\n"
        "  --fail-above PCT   exit 1 when a case is slower by more than PCT percent (the\n"
        "                     interval's lower bound above it, and significant)\n"
        "  --pattern GLOB     compare only cases matching SUITE, SUITE/CASE or the full id\n"
        "                     SUITE/CASE/PARAM:V/.../placement:P (repeatable)\n"
        "  --unit UNIT        ticks (default) or cycles: compare the figures in core cycles,\n"
        "                     which single-lcore cases run in rounds have; cases without\n"
        "                     them on a side are skipped, with the reason\n"
        "  --json FILE        also write the comparison as JSON\n"
        "  --help             this text\n"
        "\n"
        "exit status: 0 compared (and the gate passed), 1 the gate failed, 2 bad input\n";

const char dpk_cmd_spread_usage[] =
        "usage: dpk-bench spread RESULTS.json [MORE.json...] [OPTIONS]\n"
        "\n"
        "How well runs agree: for every case that ran (status ok) in every run, the median\n"
        "of each run and the spread (largest - smallest) / smallest. Each repeat in a file\n"
        "(--repeat) is a run of its own, so one file of five repeats or five files of one\n"
        "both give five runs; at least two runs are needed. Under a case at or over the\n"
        "limit: how many time slices each run's median came from, where the files say.\n"
        "\n"
        "options:\n"
        "  --limit PCT        the spread a case must stay under (default 5); cases at or\n"
        "                     over it are marked '*' and make the exit status 1\n"
        "  --pattern GLOB     only cases matching SUITE, SUITE/CASE or the full id\n"
        "                     SUITE/CASE/PARAM:V/.../placement:P (repeatable)\n"
        "  --unit UNIT        ticks (default) or cycles: the medians in core cycles, which\n"
        "                     single-lcore cases run in rounds have; others are left out\n"
        "  --sets N           also take every set of N of the runs (2 or more, at most the\n"
        "                     runs given) and count the sets in which every case stays under\n"
        "                     the limit, and per case the sets it breaks\n"
        "  --help             this text\n"
        "\n"
        "exit status: 0 every case under the limit, 1 some case at or over it (over all the\n"
        "runs, whatever --sets found), 2 bad input\n";

const char dpk_cmd_report_usage[] =
        "usage: dpk-bench report RESULTS.json [NEW.json] -o REPORT.html [OPTIONS]\n"
        "\n"
        "Write one self-contained HTML page (no network access needed) with the environment\n"
        "verdicts, a chart per suite, sample histograms and, given two files, the comparison.\n"
        "\n"
        "options:\n"
        "  -o, --output FILE  where to write the page ('-' for standard output)\n"
        "  --noise PCT        noise threshold of the comparison (default 2)\n"
        "  --pattern GLOB     only cases matching SUITE, SUITE/CASE or the full id\n"
        "  --unit UNIT        ticks (default) or cycles: draw and compare the figures in core\n"
        "                     cycles, which single-lcore cases run in rounds have; the\n"
        "                     others are listed, not drawn\n"
        "  --title TEXT       the page title\n"
        "  --help             this text\n"
        "\n"
        "exit status: 0 written, 2 bad input\n";

struct args {
	const char *files[FILES_MAX];
	unsigned nfiles;
	double noise, fail_above, limit;
	const char *patterns[PATTERNS_MAX];
	unsigned npatterns;
	const char *json, *output, *title;
	bool cycles;   /* --unit cycles */
	unsigned sets; /* --sets N; 0: not asked */
	bool help;
};

static int usage_error(const char *cmd, const char *msg)
{
	fprintf(stderr, "dpk-bench %s: %s\n", cmd, msg);
	return 2;
}

static const char *const compare_opts[] = {"--noise", "--fail-above", "--pattern", "--unit",
                                           "--json",  "--help",       NULL};
static const char *const spread_opts[] = {"--limit", "--pattern", "--unit",
                                          "--sets",  "--help",    NULL};
static const char *const report_opts[] = {"--output", "-o",      "--noise", "--pattern",
                                          "--unit",   "--title", "--help",  NULL};

static bool takes_value(const char *opt)
{
	return strcmp(opt, "--help") != 0;
}

static void unknown_option(const char *cmd, const char *const *opts, const char *name, char *err,
                           size_t errlen)
{
	const char *best = dpk_cli_nearest(name, opts, 4);

	if (best)
		snprintf(err, errlen, "unknown option '%s' (did you mean '%s'?)", name, best);
	else
		snprintf(err, errlen, "unknown option '%s' (see 'dpk-bench %s --help')", name, cmd);
}

static int parse_args(const char *cmd, const char *const *opts, unsigned max_files, int argc,
                      char **argv, struct args *a, char *err, size_t errlen)
{
	bool no_more_options = false;

	memset(a, 0, sizeof(*a));
	a->noise = 0.02;
	a->fail_above = -1.0;
	a->limit = 0.05;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		char opt[32];
		size_t len;
		bool known = false;

		if (no_more_options || arg[0] != '-' || strcmp(arg, "-") == 0) {
			if (!arg[0]) {
				snprintf(err, errlen, "empty file name");
				return -EINVAL;
			}
			if (a->nfiles >= max_files) {
				char most[40];

				snprintf(most, sizeof(most), "at most %u results files", max_files);
				snprintf(err, errlen, "too many files: '%s' (%s takes %s)", arg,
				         cmd,
				         strcmp(cmd, "compare") == 0
				                 ? "exactly two: BASE.json NEW.json"
				         : strcmp(cmd, "report") == 0 ? "one or two results files"
				                                      : most);
				return -EINVAL;
			}
			a->files[a->nfiles++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			no_more_options = true;
			continue;
		}
		if (strcmp(arg, "-h") == 0) {
			a->help = true;
			return 0;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		snprintf(opt, sizeof(opt), "%.*s",
		         (int)(len < sizeof(opt) - 1 ? len : sizeof(opt) - 1), arg);
		for (unsigned k = 0; opts[k]; k++)
			known |= strcmp(opt, opts[k]) == 0 && len < sizeof(opt);
		if (!known) {
			unknown_option(cmd, opts, opt, err, errlen);
			return -EINVAL;
		}
		if (takes_value(opt)) {
			if (eq) {
				val = eq + 1;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				snprintf(err, errlen, "%s needs a value", opt);
				return -EINVAL;
			}
		} else if (eq) {
			snprintf(err, errlen, "%s takes no value: '%s'", opt, arg);
			return -EINVAL;
		}
		if (strcmp(opt, "--help") == 0) {
			a->help = true;
			return 0;
		} else if (strcmp(opt, "--noise") == 0) {
			if (dpk_cli_parse_pct(val, 100.0, &a->noise)) {
				snprintf(err, errlen,
				         "--noise: '%s' is not a percentage from 0 to 100 (e.g. 2 "
				         "or "
				         "2.5%%)",
				         val);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--fail-above") == 0) {
			if (dpk_cli_parse_pct(val, 1000.0, &a->fail_above)) {
				snprintf(err, errlen,
				         "--fail-above: '%s' is not a percentage from 0 to 1000 "
				         "(e.g. 5)",
				         val);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--limit") == 0) {
			if (dpk_cli_parse_pct(val, 1000.0, &a->limit) || a->limit <= 0) {
				snprintf(err, errlen,
				         "--limit: '%s' is not a percentage above 0 and below 1000 "
				         "(e.g. 5)",
				         val);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--sets") == 0) {
			char *end;
			unsigned long n = strtoul(val, &end, 10);

			if (!*val || *end || val[0] == '-' || n < 2 || n > RUNS_MAX) {
				snprintf(err, errlen,
				         "--sets: '%s' is not a whole number of runs from 2 to %d",
				         val, RUNS_MAX);
				return -EINVAL;
			}
			a->sets = (unsigned)n;
		} else if (strcmp(opt, "--pattern") == 0) {
			if (!*val) {
				snprintf(err, errlen, "--pattern: empty pattern");
				return -EINVAL;
			}
			if (a->npatterns >= PATTERNS_MAX) {
				snprintf(err, errlen, "too many --pattern (at most %d)",
				         PATTERNS_MAX);
				return -EINVAL;
			}
			a->patterns[a->npatterns++] = val;
		} else if (strcmp(opt, "--json") == 0) {
			if (!*val) {
				snprintf(err, errlen, "--json: empty file name");
				return -EINVAL;
			}
			a->json = val;
		} else if (strcmp(opt, "--output") == 0 || strcmp(opt, "-o") == 0) {
			if (!*val) {
				snprintf(err, errlen, "%s: empty file name", opt);
				return -EINVAL;
			}
			a->output = val;
		} else if (strcmp(opt, "--title") == 0) {
			a->title = val;
		} else if (strcmp(opt, "--unit") == 0) {
			if (strcmp(val, "ticks") != 0 && strcmp(val, "cycles") != 0) {
				snprintf(err, errlen, "--unit: '%s' is not 'ticks' or 'cycles'",
				         val);
				return -EINVAL;
			}
			a->cycles = strcmp(val, "cycles") == 0;
		}
	}
	return 0;
}

/* Parse the arguments of command @p cmd into @p a. True when the command ends here, with
 * its exit status in @p status (@p usage printed for --help, or a usage error); @p status
 * is left alone otherwise. */
static bool command_args(const char *cmd, const char *const *opts, unsigned max_files,
                         const char *usage, int argc, char **argv, struct args *a, int *status)
{
	char err[512];

	if (parse_args(cmd, opts, max_files, argc, argv, a, err, sizeof(err))) {
		*status = usage_error(cmd, err);
		return true;
	}
	if (a->help) {
		fputs(usage, stdout);
		*status = 0;
		return true;
	}
	return false;
}

static int load(const char *cmd, const char *path, struct dpk_results *r)
{
	char err[512];

	if (dpk_results_load(path, r, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "dpk-bench %s: %s: %s\n", cmd, path, err);
	return -EINVAL;
}

int dpk_cmd_compare(int argc, char **argv)
{
	struct dpk_results base, new;
	struct dpk_cmp_report rep;
	struct args a;
	char err[512];
	FILE *json = NULL;
	int status;

	if (command_args("compare", compare_opts, 2, dpk_cmd_compare_usage, argc, argv, &a,
	                 &status))
		return status;
	if (a.nfiles != 2)
		return usage_error("compare",
		                   a.nfiles == 0
		                           ? "needs two results files: BASE.json NEW.json"
		                           : "needs a second results file: BASE.json NEW.json");
	if (load("compare", a.files[0], &base)) {
		dpk_results_free(&base);
		return 2;
	}
	if (load("compare", a.files[1], &new)) {
		dpk_results_free(&base);
		dpk_results_free(&new);
		return 2;
	}
	struct dpk_cmp_options o = {
	        .noise = a.noise,
	        .fail_above = a.fail_above,
	        .patterns = a.patterns,
	        .npatterns = a.npatterns,
	        .cycles = a.cycles,
	};
	if (dpk_compare(&base, &new, &o, &rep, err, sizeof(err))) {
		fprintf(stderr, "dpk-bench compare: %s\n", err);
		dpk_results_free(&base);
		dpk_results_free(&new);
		return 2;
	}
	if (a.json && !(json = fopen(a.json, "w"))) {
		fprintf(stderr, "dpk-bench compare: cannot write --json '%s': %s\n", a.json,
		        strerror(errno));
		dpk_cmp_report_free(&rep);
		dpk_results_free(&base);
		dpk_results_free(&new);
		return 2;
	}
	for (unsigned i = 0; i < rep.nwarn; i++)
		fprintf(stderr, "dpk-bench compare: warning: %s\n", rep.warn[i]);
	dpk_cmp_print(stdout, &base, &new, &rep);
	fflush(stdout);
	status = rep.gate_failures ? 1 : 0;
	if (json && (dpk_cmp_write_json(json, &base, &new, &rep, status) | fclose(json))) {
		fprintf(stderr, "dpk-bench compare: writing '%s' failed\n", a.json);
		status = 2;
	}
	dpk_cmp_report_free(&rep);
	dpk_results_free(&base);
	dpk_results_free(&new);
	return status;
}

int dpk_cmd_report(int argc, char **argv)
{
	struct dpk_results r[2];
	struct dpk_cmp_report rep;
	struct args a;
	char err[512];
	bool have_cmp = false;
	FILE *out;
	int status = 0;

	if (command_args("report", report_opts, 2, dpk_cmd_report_usage, argc, argv, &a, &status))
		return status;
	if (a.nfiles == 0)
		return usage_error("report", "needs a results file: RESULTS.json [NEW.json]");
	if (!a.output)
		return usage_error("report", "needs -o FILE (or -o - for standard output)");
	memset(r, 0, sizeof(r));
	for (unsigned i = 0; i < a.nfiles; i++) {
		if (load("report", a.files[i], &r[i])) {
			for (unsigned k = 0; k <= i; k++)
				dpk_results_free(&r[k]);
			return 2;
		}
	}
	if (a.npatterns) {
		for (unsigned p = 0; p < a.npatterns; p++) {
			bool hit = false;
			for (unsigned i = 0; i < a.nfiles; i++)
				for (size_t k = 0; k < r[i].n && !hit; k++)
					hit = dpk_results_match(a.patterns[p], &r[i].e[k]);
			if (!hit) {
				fprintf(stderr,
				        "dpk-bench report: --pattern '%s' selects no case\n",
				        a.patterns[p]);
				status = 2;
				goto out;
			}
		}
	}
	/* In cycles, every file must have some: a page with one side drawn and the other
	 * noted, and no comparison, is not what was asked for (compare exits 2 likewise). */
	for (unsigned i = 0; a.cycles && i < a.nfiles; i++) {
		bool any = false;
		for (size_t k = 0; k < r[i].n && !any; k++)
			any = r[i].e[k].ok && isfinite(r[i].e[k].cycles.p50) &&
			      dpk_results_selected(a.patterns, a.npatterns, &r[i].e[k]);
		if (!any) {
			fprintf(stderr,
			        "dpk-bench report: --unit cycles: no case %shas figures in "
			        "cycles in %s\n",
			        a.npatterns ? "the patterns select " : "", a.files[i]);
			status = 2;
			goto out;
		}
	}
	if (a.nfiles == 2) {
		struct dpk_cmp_options o = {
		        .noise = a.noise,
		        .fail_above = -1.0,
		        .patterns = a.patterns,
		        .npatterns = a.npatterns,
		        .cycles = a.cycles,
		};
		if (dpk_compare(&r[0], &r[1], &o, &rep, err, sizeof(err)) == 0)
			have_cmp = true;
		else
			fprintf(stderr, "dpk-bench report: no comparison: %s\n", err);
	}
	out = strcmp(a.output, "-") == 0 ? stdout : fopen(a.output, "w");
	if (!out) {
		fprintf(stderr, "dpk-bench report: cannot write '%s': %s\n", a.output,
		        strerror(errno));
		status = 2;
		goto out;
	}
	{
		const struct dpk_results *files[2] = {&r[0], &r[1]};
		struct dpk_html_options ho = {
		        .title = a.title,
		        .patterns = a.patterns,
		        .npatterns = a.npatterns,
		        .cycles = a.cycles,
		};
		int rc = dpk_html_report(out, files, a.nfiles, have_cmp ? &rep : NULL, &ho);
		if (out != stdout)
			rc |= fclose(out);
		else
			rc |= fflush(out);
		if (rc) {
			fprintf(stderr, "dpk-bench report: writing '%s' failed\n", a.output);
			status = 2;
		}
	}
	if (status == 0 && out != stdout)
		fprintf(stderr, "dpk-bench report: wrote %s\n", a.output);
out:
	if (have_cmp)
		dpk_cmp_report_free(&rep);
	for (unsigned i = 0; i < a.nfiles; i++)
		dpk_results_free(&r[i]);
	return status;
}

/* ---- spread ------------------------------------------------------------------------ */

/* One run: a file and one of its repeats. */
struct spread_run {
	const struct dpk_results *file;
	unsigned repeat;
};

/* The median of case @p id in run @p run, or NaN when it did not run ok there; @p no_fast
 * tells whether most of its kept samples were slow by the run's witness reference,
 * @p slices how many slices they came from (NaN when the file does not say). With @p cycles,
 * the median in core cycles (NaN when the file has none). */
static double run_p50(const struct spread_run *run, const char *id, bool cycles, bool *no_fast,
                      double *slices)
{
	for (size_t i = 0; i < run->file->n; i++) {
		const struct dpk_res_entry *e = &run->file->e[i];
		if (e->repeat == run->repeat && e->ok && strcmp(e->id, id) == 0) {
			*no_fast = e->witness_slow_only;
			*slices = e->witness_kept_rounds;
			return cycles ? e->cycles.p50 : e->ticks.p50;
		}
	}
	*no_fast = false;
	*slices = NAN;
	return NAN;
}

/* Under a row over the limit: how many slices each run's median came from, when the files
 * say (a median from a few slices rests on a short stretch of its run). */
static void slices_line(const double *slices, unsigned nruns)
{
	bool any = false;

	for (unsigned q = 0; q < nruns; q++)
		any |= isfinite(slices[q]);
	if (!any)
		return;
	printf("      slices behind each median:");
	for (unsigned q = 0; q < nruns; q++)
		if (isfinite(slices[q]))
			printf(" %.0f", slices[q]);
		else
			printf(" -");
	printf("\n");
}

/* The speed witness's reference reading of each file, and a warning naming the files whose
 * machine was slower than the fastest file's by more than DPK_WITNESS_LIMIT, or with
 * medians in the table that come mostly from slow samples (@p flagged, per run). */
static void witness_lines(const struct spread_run *runs, unsigned nruns, const unsigned *flagged)
{
	double best = INFINITY;
	bool any = false;

	for (unsigned q = 0; q < nruns; q++)
		if (isfinite(runs[q].file->witness) && runs[q].file->witness < best)
			best = runs[q].file->witness;
	if (!isfinite(best))
		return;
	bool fastest = false;

	printf("speed witness, reference reading of each file (ticks):");
	for (unsigned q = 0; q < nruns; q++) {
		const struct dpk_results *f = runs[q].file;

		if (q > 0 && f == runs[q - 1].file) /* each file once */
			continue;
		if (isfinite(f->witness)) {
			printf(" %.2f%s", f->witness, f->witness_fastest ? "*" : "");
			fastest |= f->witness_fastest;
		} else {
			printf(" -");
		}
	}
	printf("\n");
	if (fastest)
		printf("  * the fastest reading: the file is from before the reference\n");
	for (unsigned q = 0; q < nruns; q++) {
		const struct dpk_results *f = runs[q].file;
		bool slower = isfinite(f->witness) && f->witness > dpk_bench_witness_limit(best);
		unsigned marked = 0;

		if (q > 0 && f == runs[q - 1].file)
			continue;
		for (unsigned x = q; x < nruns && runs[x].file == f; x++)
			marked += flagged[x];
		if (!slower && !marked)
			continue;
		if (!any)
			printf("warning: the machine was slower through part of these runs:\n");
		any = true;
		if (slower)
			printf("  %s: witness x%.2f of the fastest file's, and its figures slowed "
			       "too\n",
			       f->path, f->witness / best);
		if (marked)
			printf("  %s: %u of the medians above come mostly from slow samples "
			       "(marked !)\n",
			       f->path, marked);
	}
}

static bool any_of(const bool *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (b[i])
			return true;
	return false;
}

/* The most sets --sets may take. */
#define SETS_MAX 1000000.0

/* The number of sets of @p k among @p n, as a double (it only bounds the work). */
static double choose(unsigned n, unsigned k)
{
	double c = 1;

	for (unsigned i = 0; i < k; i++)
		c = c * (double)(n - i) / (double)(i + 1);
	return c;
}

/* With --sets K: over every set of K of the @p nruns runs, whether each of the @p ncases
 * cases (their medians in @p mat, a row of nruns per case) stays under the limit; prints
 * how many sets kept every case under it, and the cases that broke some, most first. */
static void sets_lines(const struct args *a, const double *mat, const char *const *ids,
                       size_t ncases, unsigned nruns)
{
	const unsigned k = a->sets;
	unsigned idx[RUNS_MAX];
	size_t *miss = calloc(ncases, sizeof(*miss)), good = 0, total = 0, shown = 0;

	if (!miss) {
		fprintf(stderr, "dpk-bench spread: out of memory\n");
		return;
	}
	for (unsigned i = 0; i < k; i++)
		idx[i] = i;
	for (;;) {
		bool ok = true;
		int i;

		for (size_t c = 0; c < ncases; c++) {
			const double *v = mat + c * nruns;
			double lo = v[idx[0]], hi = lo;

			for (unsigned j = 1; j < k; j++) {
				lo = v[idx[j]] < lo ? v[idx[j]] : lo;
				hi = v[idx[j]] > hi ? v[idx[j]] : hi;
			}
			if ((hi - lo) / lo >= a->limit) {
				miss[c]++;
				ok = false;
			}
		}
		good += ok;
		total++;
		/* The next set, in lexicographic order. */
		for (i = (int)k - 1; i >= 0 && idx[i] == nruns - k + (unsigned)i; i--)
			;
		if (i < 0)
			break;
		idx[i]++;
		for (unsigned j = (unsigned)i + 1; j < k; j++)
			idx[j] = idx[j - 1] + 1;
	}
	printf("sets of %u runs: every case under %.3g%% in %zu of %zu (%.0f%%)\n", k,
	       a->limit * 100.0, good, total, 100.0 * (double)good / (double)total);
	while (shown < 8) {
		size_t best = 0, at = 0;

		for (size_t c = 0; c < ncases; c++)
			if (miss[c] > best) {
				best = miss[c];
				at = c;
			}
		if (!best)
			break;
		printf("  %-52s at or over it in %zu of the sets\n", ids[at], best);
		miss[at] = 0;
		shown++;
	}
	free(miss);
}

/* Print the spread table of @p runs; returns the exit status (0 or 1). */
static int spread_print(const struct args *a, const struct spread_run *runs, unsigned nruns)
{
	const struct dpk_results *first = runs[0].file;
	double *spreads = calloc(first->n ? first->n : 1, sizeof(double));
	double *mat = a->sets ? calloc((first->n ? first->n : 1) * nruns, sizeof(double)) : NULL;
	const char **ids = a->sets ? calloc(first->n ? first->n : 1, sizeof(*ids)) : NULL;
	double v[RUNS_MAX], slices[RUNS_MAX];
	bool no_fast[RUNS_MAX];
	unsigned flagged[RUNS_MAX] = {0};
	size_t ncases = 0, over = 0, partial = 0;
	const char *worst_id = NULL;
	double worst = 0;
	int status;

	/* --sets is checked against the runs before anything is printed. */
	if (a->sets > nruns) {
		fprintf(stderr, "dpk-bench spread: --sets %u: only %u runs given\n", a->sets,
		        nruns);
		status = 2;
		goto out;
	}
	if (a->sets && choose(nruns, a->sets) > SETS_MAX) {
		fprintf(stderr,
		        "dpk-bench spread: --sets %u: %u runs make %.0f sets of %u, more than "
		        "%.0f\n",
		        a->sets, nruns, choose(nruns, a->sets), a->sets, SETS_MAX);
		status = 2;
		goto out;
	}
	if (!spreads || (a->sets && (!mat || !ids))) {
		fprintf(stderr, "dpk-bench spread: out of memory\n");
		status = 2;
		goto out;
	}
	printf("%u runs; per case the median of each run (%s per unit), then the spread\n", nruns,
	       a->cycles ? "core cycles" : "ticks");
	for (size_t i = 0; i < first->n; i++) {
		const struct dpk_res_entry *e = &first->e[i];
		double lo = INFINITY, hi = 0, sp;
		bool all = true;

		/* Each case once: at its first ok appearance in the first run. */
		if (e->repeat != runs[0].repeat || !e->ok ||
		    !dpk_results_selected(a->patterns, a->npatterns, e))
			continue;
		for (unsigned q = 0; q < nruns; q++) {
			v[q] = run_p50(&runs[q], e->id, a->cycles, &no_fast[q], &slices[q]);
			all &= isfinite(v[q]) && v[q] > 0;
		}
		if (!all) {
			partial++;
			continue;
		}
		printf("  %-52s", e->id);
		for (unsigned q = 0; q < nruns; q++) {
			lo = v[q] < lo ? v[q] : lo;
			hi = v[q] > hi ? v[q] : hi;
			if (nruns <= 8)
				printf(no_fast[q] ? " %7.2f!" : " %8.2f", v[q]);
		}
		for (unsigned q = 0; q < nruns; q++)
			flagged[q] += no_fast[q];
		if (nruns > 8)
			printf(" min %8.2f max %8.2f%s", lo, hi,
			       any_of(no_fast, nruns) ? " !" : "");
		sp = (hi - lo) / lo;
		printf("  %6.1f%%%s\n", sp * 100.0, sp >= a->limit ? " *" : "");
		if (sp >= a->limit)
			slices_line(slices, nruns);
		if (mat) {
			memcpy(mat + ncases * nruns, v, nruns * sizeof(*v));
			ids[ncases] = e->id;
		}
		spreads[ncases++] = sp;
		over += sp >= a->limit;
		if (sp > worst || !worst_id) {
			worst = sp;
			worst_id = e->id;
		}
	}
	if (ncases == 0) {
		fprintf(stderr, "dpk-bench spread: no case ran ok%s in every run%s\n",
		        a->cycles ? " with figures in cycles" : "",
		        a->npatterns ? " among those the patterns select" : "");
		status = 2;
		goto out;
	}
	printf("\n%zu cases in %u runs: median spread %.1f%%, largest %.1f%% (%s); %zu under "
	       "%.3g%%, %zu at or over it\n",
	       ncases, nruns, 100.0 * dpk_stats_median(spreads, ncases), worst * 100.0, worst_id,
	       ncases - over, a->limit * 100.0, over);
	if (partial)
		printf("%zu more cases did not run ok%s in every run and are left out\n", partial,
		       a->cycles ? ", or have no figures in cycles (multi-lcore cases never do),"
		                 : "");
	if (a->sets)
		sets_lines(a, mat, ids, ncases, nruns);
	witness_lines(runs, nruns, flagged);
	status = over ? 1 : 0;
out:
	free(spreads);
	free(mat);
	free(ids);
	return status;
}

int dpk_cmd_spread(int argc, char **argv)
{
	struct dpk_results *files = NULL;
	struct spread_run runs[RUNS_MAX];
	unsigned nruns = 0, loaded = 0;
	struct args a;
	int status = 2;

	if (command_args("spread", spread_opts, FILES_MAX, dpk_cmd_spread_usage, argc, argv, &a,
	                 &status))
		return status;
	if (a.nfiles == 0)
		return usage_error("spread", "needs results files: RUN1.json [RUN2.json...]");
	files = calloc(a.nfiles, sizeof(*files));
	if (!files)
		return usage_error("spread", "out of memory");
	for (; loaded < a.nfiles; loaded++)
		if (load("spread", a.files[loaded], &files[loaded])) {
			loaded++;
			goto out;
		}
	/* Runs: every distinct repeat of every file, in order. */
	for (unsigned f = 0; f < a.nfiles; f++) {
		for (size_t i = 0; i < files[f].n; i++) {
			bool seen = false;
			for (unsigned q = 0; q < nruns; q++)
				seen |= runs[q].file == &files[f] &&
				        runs[q].repeat == files[f].e[i].repeat;
			if (seen)
				continue;
			if (nruns == sizeof(runs) / sizeof(runs[0])) {
				fprintf(stderr, "dpk-bench spread: more than %zu runs\n",
				        sizeof(runs) / sizeof(runs[0]));
				goto out;
			}
			runs[nruns++] = (struct spread_run){&files[f], files[f].e[i].repeat};
		}
	}
	if (nruns < 2) {
		fprintf(stderr,
		        "dpk-bench spread: %u run%s found; give two or more files, or a file "
		        "written with --repeat 2 or more\n",
		        nruns, nruns == 1 ? "" : "s");
		goto out;
	}
	status = spread_print(&a, runs, nruns);
out:
	for (unsigned f = 0; f < loaded; f++)
		dpk_results_free(&files[f]);
	free(files);
	return status;
}
