/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench command-line parsing and pattern checks. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char dpk_cli_usage[] =
        "usage: dpk-bench [run] [PATTERN...] [OPTIONS]\n"
        "       dpk-bench list [PATTERN...]\n"
        "       dpk-bench env [--lcores SPEC] [--placement LIST]\n"
        "       dpk-bench compare BASE.json NEW.json [--noise PCT] [--fail-above PCT] ...\n"
        "       dpk-bench spread RESULTS.json [MORE.json...] [--limit PCT]\n"
        "       dpk-bench report RESULTS.json [NEW.json] -o REPORT.html\n"
        "\n"
        "Measure what dpkit's building blocks cost on this machine.\n"
        "\n"
        "commands:\n"
        "  run        run the cases PATTERN selects (default: the default suites)\n"
        "  list       list suites and cases\n"
        "  env        print the environment report and the clock self-check\n"
        "  compare    before/after verdicts from two --json files (see compare --help)\n"
        "  spread     how well several runs agree: per case, the spread of the medians\n"
        "  report     one self-contained HTML page from one or two --json files\n"
        "\n"
        "PATTERN is a suite name or a glob on SUITE/CASE, e.g. ring, 'ring/spsc_*', '*pingpong'.\n"
        "\n"
        "options:\n"
        "  --time T          measurement time per case (default 0.2s; e.g. 0.5, 500ms, 2s)\n"
        "  --warmup T        warm-up time per case (default 30ms)\n"
        "  --lcores SPEC     lcores to use, DPDK syntax: 0-3, 0,2, (0-1)@0, 2@(4-5)\n"
        "                    (default: main on the first CPU, a worker per CPU, and one\n"
        "                    more worker on the first CPU for the oversub placement;\n"
        "                    the CPUs are those of the process's affinity mask)\n"
        "  --placement LIST  placements to run: single,smt,core,llc,numa,oversub,all\n"
        "  --repeat N        run the whole selection N times (default 1)\n"
        "  --rounds N        cut each single-lcore case's time into N slices, run in\n"
        "                    turn with the suite's other cases (default 40; slices are\n"
        "                    at least 5 ms, so a short --time gets fewer; 1 = one block;\n"
        "                    with --slow-limit above 0, up to N more run while a case\n"
        "                    lacks samples the speed witness finds fast)\n"
        "  --slow-limit P    set aside the samples the speed witness finds slow and the\n"
        "                    rounds whose median is more than P% above the lower\n"
        "                    quartile of the case's round medians, weighted by samples\n"
        "                    (default 5; 0 = off; judges only with 5 or more rounds of\n"
        "                    16 kept samples)\n"
        "  --json FILE       write results as JSON (schema dpkit-bench v1)\n"
        "  --format F        what --json writes: dpkit (default) or gbench, Google\n"
        "                    Benchmark's schema for its tools/compare.py\n"
        "  --csv FILE        write results as CSV\n"
        "  --raw             keep every sample in the JSON/CSV\n"
        "  --interleave      run single-lcore variants of one question (the same case in\n"
        "                    ring and dpdk_ring, a case group) batch by batch in turn, and\n"
        "                    report each as a paired ratio to the first\n"
        "  --quiet           no environment block and no progress line\n"
        "  --help            this text\n"
        "  --version         print the version\n"
        "\n"
        "exit status: 0 all cases ran, 1 a case failed its invariants, 2 bad input\n";

/* A count from 1 to @p max into *out; 0 or -EINVAL. */
static int parse_count(const char *text, unsigned max, unsigned *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(text, &end, 10);
	if (!*text || *end || errno || n < 1 || n > max || text[0] == '-')
		return -EINVAL;
	*out = (unsigned)n;
	return 0;
}

int dpk_cli_parse_pct(const char *text, double max, double *out)
{
	char *end;
	double v;

	if (!text || !*text)
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno || !isfinite(v))
		return -EINVAL;
	if (*end == '%')
		end++;
	if (*end || v < 0 || v >= max)
		return -EINVAL;
	*out = v / 100.0;
	return 0;
}

int dpk_cli_parse_duration(const char *text, double *out)
{
	char *end;
	double v, scale = 1.0;

	if (!text || !*text)
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno != 0 || !isfinite(v))
		return -EINVAL;
	if (*end == '\0' || strcmp(end, "s") == 0)
		scale = 1.0;
	else if (strcmp(end, "ms") == 0)
		scale = 1e-3;
	else if (strcmp(end, "us") == 0)
		scale = 1e-6;
	else
		return -EINVAL;
	v *= scale;
	if (!(v > 0) || v > 3600)
		return -EINVAL;
	*out = v;
	return 0;
}

static const char *const options[] = {
        "--time",   "--warmup", "--lcores",     "--placement", "--repeat", "--json",
        "--csv",    "--raw",    "--interleave", "--quiet",     "--help",   "--version",
        "--format", "--rounds", "--slow-limit", NULL,
};

/* The options env, which runs no case and writes no file, has a use for; and list's. */
static const char *const env_options[] = {"--lcores", "--placement", "--help", "--version", NULL};
static const char *const list_options[] = {"--help", "--version", NULL};

static bool listed(const char *opt, const char *const *list)
{
	for (unsigned k = 0; list[k]; k++)
		if (strcmp(opt, list[k]) == 0)
			return true;
	return false;
}

static bool takes_value(const char *opt)
{
	return strcmp(opt, "--time") == 0 || strcmp(opt, "--warmup") == 0 ||
	       strcmp(opt, "--lcores") == 0 || strcmp(opt, "--placement") == 0 ||
	       strcmp(opt, "--repeat") == 0 || strcmp(opt, "--json") == 0 ||
	       strcmp(opt, "--csv") == 0 || strcmp(opt, "--format") == 0 ||
	       strcmp(opt, "--rounds") == 0 || strcmp(opt, "--slow-limit") == 0;
}

unsigned dpk_cli_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned rows[3][128];
	unsigned *before = rows[0], *prev = rows[1], *row = rows[2], *tmp;

	if (lb >= 128)
		lb = 127;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned best = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			/* "lsit" is one slip from "list", not two. */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    before[j - 2] + 1 < best)
				best = before[j - 2] + 1;
			row[j] = best;
		}
		tmp = before;
		before = prev;
		prev = row;
		row = tmp;
	}
	return prev[lb];
}

const char *dpk_cli_nearest(const char *word, const char *const *list, unsigned limit)
{
	const char *best = NULL;

	for (unsigned i = 0; list[i]; i++) {
		unsigned d = dpk_cli_distance(word, list[i]);
		if (d < limit) {
			limit = d;
			best = list[i];
		}
	}
	return best;
}

static void suggest_option(const char *bad, char *err, size_t errlen)
{
	char name[64];
	const char *eq = strchr(bad, '=');
	size_t len = eq ? (size_t)(eq - bad) : strlen(bad);
	const char *best;

	snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), bad);
	best = dpk_cli_nearest(name, options, 4);
	if (best)
		snprintf(err, errlen, "unknown option '%s' (did you mean '%s'?)", name, best);
	else
		snprintf(err, errlen, "unknown option '%s' (see --help)", name);
}

static int parse_placements(const char *list, struct dpk_cli *cli, char *err, size_t errlen)
{
	char buf[256], *save = NULL, *tok;

	if (strlen(list) >= sizeof(buf) || !*list) {
		snprintf(err, errlen, "--placement: '%s' is not a placement list", list);
		return -EINVAL;
	}
	strcpy(buf, list);
	for (unsigned p = 0; p < DPK_PLACE_COUNT; p++)
		cli->opt.placement_on[p] = false;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p = dpk_placement_from_name(tok);
		if (p < 0) {
			snprintf(err, errlen,
			         "--placement: unknown placement '%s' (one of single, smt, core, "
			         "llc, numa, oversub, all)",
			         tok);
			return -EINVAL;
		}
		cli->opt.placement_on[p] = true;
	}
	cli->placement_given = true;
	return 0;
}

static int parse(int argc, char **argv, struct dpk_cli *cli, char *err, size_t errlen)
{
	int i = 1;

	memset(cli, 0, sizeof(*cli));
	dpk_bench_options_default(&cli->opt);
	cli->cmd = CLI_RUN;
	if (argc > 1 && argv[1][0] != '-') {
		if (strcmp(argv[1], "run") == 0) {
			cli->cmd = CLI_RUN;
			i = 2;
		} else if (strcmp(argv[1], "list") == 0) {
			cli->cmd = CLI_LIST;
			i = 2;
		} else if (strcmp(argv[1], "env") == 0) {
			cli->cmd = CLI_ENV;
			i = 2;
		} else if (strcmp(argv[1], "serve") == 0) {
			cli->cmd = CLI_SERVE;
			i = 2;
		} else if (strcmp(argv[1], "help") == 0) {
			cli->cmd = CLI_HELP;
			return 0;
		} else {
			/* anything else is a pattern of an implicit "run" */
			cli->first_is_pattern = true;
		}
	}
	for (; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char opt[32];

		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (cli->cmd == CLI_ENV) {
				snprintf(err, errlen, "env takes no patterns: '%s'", a);
				return -EINVAL;
			}
			if (cli->npatterns >= CLI_PATTERNS_MAX) {
				snprintf(err, errlen, "too many patterns (at most %d)",
				         CLI_PATTERNS_MAX);
				return -EINVAL;
			}
			cli->patterns[cli->npatterns++] = a;
			continue;
		}
		if (strcmp(a, "-h") == 0) {
			cli->cmd = CLI_HELP;
			return 0;
		}
		if (strcmp(a, "-V") == 0) {
			cli->cmd = CLI_VERSION;
			return 0;
		}
		const char *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		if (len >= sizeof(opt)) {
			suggest_option(a, err, errlen);
			return -EINVAL;
		}
		memcpy(opt, a, len);
		opt[len] = '\0';
		if (!listed(opt, options)) {
			suggest_option(a, err, errlen);
			return -EINVAL;
		}
		/* Refused rather than ignored: whoever asks "env --json e.json" expects an
		 * e.json, and env writes none. list takes patterns only. */
		if (cli->cmd == CLI_LIST && !listed(opt, list_options)) {
			snprintf(err, errlen,
			         "list runs no case, so %s has nothing to act on (list takes "
			         "patterns)",
			         opt);
			return -EINVAL;
		}
		if (cli->cmd == CLI_ENV && !listed(opt, env_options)) {
			snprintf(
			        err, errlen,
			        "env runs no case, so %s has nothing to act on (env takes --lcores "
			        "and --placement)",
			        opt);
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
			snprintf(err, errlen, "%s takes no value: '%s'", opt, a);
			return -EINVAL;
		}
		if (strcmp(opt, "--help") == 0) {
			cli->cmd = CLI_HELP;
			return 0;
		} else if (strcmp(opt, "--version") == 0) {
			cli->cmd = CLI_VERSION;
			return 0;
		} else if (strcmp(opt, "--time") == 0) {
			if (dpk_cli_parse_duration(val, &cli->opt.time_s)) {
				snprintf(err, errlen,
				         "--time: '%s' is not a duration between 0 and 3600 s "
				         "(e.g. 0.5, 500ms, 2s)",
				         val);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--warmup") == 0) {
			if (dpk_cli_parse_duration(val, &cli->opt.warmup_s)) {
				snprintf(err, errlen,
				         "--warmup: '%s' is not a duration between 0 and 3600 s "
				         "(e.g. 30ms)",
				         val);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--lcores") == 0) {
			if (!*val) {
				snprintf(err, errlen, "--lcores: empty spec");
				return -EINVAL;
			}
			cli->opt.lcores = val;
		} else if (strcmp(opt, "--placement") == 0) {
			if (parse_placements(val, cli, err, errlen))
				return -EINVAL;
		} else if (strcmp(opt, "--repeat") == 0 || strcmp(opt, "--rounds") == 0) {
			bool repeat = strcmp(opt, "--repeat") == 0;
			unsigned max = repeat ? 1000 : DPK_BENCH_ROUNDS_MAX;

			if (parse_count(val, max, repeat ? &cli->opt.repeat : &cli->opt.rounds)) {
				snprintf(err, errlen, "%s: '%s' is not a count from 1 to %u", opt,
				         val, max);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--slow-limit") == 0) {
			/* 1000 itself is allowed */
			if (dpk_cli_parse_pct(val, nextafter(1000.0, INFINITY),
			                      &cli->opt.slow_limit)) {
				snprintf(err, errlen,
				         "--slow-limit: '%s' is not a percentage from 0 to 1000 "
				         "(e.g. 5, 2.5%%, 0 for off)",
				         val);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--json") == 0) {
			if (!*val) {
				snprintf(err, errlen, "--json: empty file name");
				return -EINVAL;
			}
			cli->json_path = val;
		} else if (strcmp(opt, "--csv") == 0) {
			if (!*val) {
				snprintf(err, errlen, "--csv: empty file name");
				return -EINVAL;
			}
			cli->csv_path = val;
		} else if (strcmp(opt, "--format") == 0) {
			if (strcmp(val, "dpkit") == 0) {
				cli->format = CLI_FORMAT_DPKIT;
			} else if (strcmp(val, "gbench") == 0) {
				cli->format = CLI_FORMAT_GBENCH;
			} else {
				snprintf(err, errlen,
				         "--format: unknown format '%s' (dpkit or gbench)", val);
				return -EINVAL;
			}
		} else if (strcmp(opt, "--raw") == 0) {
			cli->opt.raw = true;
		} else if (strcmp(opt, "--interleave") == 0) {
			cli->interleave = true;
		} else if (strcmp(opt, "--quiet") == 0) {
			cli->quiet = true;
		}
	}
	if (cli->cmd == CLI_SERVE && (!cli->json_path || cli->interleave || cli->opt.repeat != 1)) {
		snprintf(err, errlen,
		         "serve needs --json FILE, and takes no --interleave or --repeat");
		return -EINVAL;
	}
	if (cli->format == CLI_FORMAT_GBENCH && !cli->json_path) {
		snprintf(err, errlen, "--format gbench says what --json writes; give --json FILE");
		return -EINVAL;
	}
	return 0;
}

bool dpk_cli_pattern_matches(const char *pattern, const struct dpk_bench_suite *s,
                             const struct dpk_bench_case *c)
{
	char full[160];

	if (fnmatch(pattern, s->name, 0) == 0)
		return true;
	snprintf(full, sizeof(full), "%s/%s", s->name, c->name);
	return fnmatch(pattern, full, 0) == 0;
}

bool dpk_cli_selected(const struct dpk_cli *cli, const struct dpk_bench_suite *s,
                      const struct dpk_bench_case *c)
{
	if (cli->npatterns == 0)
		return s->default_on;
	for (unsigned i = 0; i < cli->npatterns; i++)
		if (dpk_cli_pattern_matches(cli->patterns[i], s, c))
			return true;
	return false;
}

/*
 * The command that @p word, a first word that selects no case, may be a mistyping of, or
 * NULL. Two edits at most, as three turn any short word into "run" or "env"; and fewer
 * than @p name_d, its distance to the nearest suite or case name, so that a mistyped
 * pattern keeps a pattern's suggestion. A glob or a SUITE/CASE is a pattern whatever its
 * distance.
 */
static const char *near_command(const char *word, unsigned name_d)
{
	static const char *const commands[] = {"run",    "list",   "env", "compare",
	                                       "spread", "report", NULL};

	if (strpbrk(word, "/*?["))
		return NULL;
	return dpk_cli_nearest(word, commands, name_d < 3 ? name_d : 3);
}

/*
 * Whether @p p selects a case. When it does not, the nearest suite or case name goes to
 * @p best (of @p len bytes) and its distance to *dist.
 */
static bool pattern_hits(const struct dpk_bench_suite *const *suites, const char *p, char *best,
                         size_t len, unsigned *dist)
{
	unsigned bd = UINT32_MAX;
	const struct dpk_bench_suite *s;

	best[0] = '\0';
	for (unsigned k = 0; (s = suites[k]); k++) {
		unsigned d = dpk_cli_distance(p, s->name);
		if (d < bd) {
			bd = d;
			snprintf(best, len, "%s", s->name);
		}
		for (unsigned j = 0; j < s->ncases; j++) {
			char full[160];
			if (dpk_cli_pattern_matches(p, s, &s->cases[j]))
				return true;
			snprintf(full, sizeof(full), "%s/%s", s->name, s->cases[j].name);
			d = dpk_cli_distance(p, full);
			if (d < bd) {
				bd = d;
				snprintf(best, len, "%s", full);
			}
			d = dpk_cli_distance(p, s->cases[j].name);
			if (d < bd) {
				bd = d;
				snprintf(best, len, "%s", full);
			}
		}
	}
	*dist = bd;
	return false;
}

/*
 * Whether the first word, @p word, selects no case but is near a command; if so, the
 * message that says which goes to @p err.
 */
/* Whether @p word, which selects no case and lies @p name_d edits from the nearest name,
 * is nearer a command; if so, says so in @p err. */
static bool slip_of_command(const char *word, unsigned name_d, char *err, size_t errlen)
{
	const char *cmd = near_command(word, name_d);

	if (cmd)
		snprintf(err, errlen, "no case matches '%s'; did you mean the command '%s'?", word,
		         cmd);
	return cmd != NULL;
}

static bool command_slip(const struct dpk_bench_suite *const *suites, const char *word, char *err,
                         size_t errlen)
{
	char best[160];
	unsigned bd;

	return !pattern_hits(suites, word, best, sizeof(best), &bd) &&
	       slip_of_command(word, bd, err, errlen);
}

int dpk_cli_parse(int argc, char **argv, const struct dpk_bench_suite *const *suites,
                  struct dpk_cli *cli, char *err, size_t errlen)
{
	int rc = parse(argc, argv, cli, err, errlen);

	cli->suites = suites;

	/* "comapre a.json b.json --noise 5" fails on --noise, but the slip is the first word. */
	if (rc && cli->first_is_pattern)
		command_slip(suites, argv[1], err, errlen);
	return rc;
}

int dpk_cli_check_patterns(const struct dpk_cli *cli, char *err, size_t errlen)
{
	for (unsigned i = 0; i < cli->npatterns; i++) {
		const char *p = cli->patterns[i];
		char best[160];
		unsigned bd;

		if (pattern_hits(cli->suites, p, best, sizeof(best), &bd))
			continue;
		if (i == 0 && cli->first_is_pattern && slip_of_command(p, bd, err, errlen))
			return -EINVAL;
		/* Near enough to be the same word mistyped: one slip, and one more per three
		 * letters ('xyz' is four from 'ring', and no slip of it). */
		if (best[0] && bd <= 1 + strlen(p) / 3)
			snprintf(err, errlen, "no case matches '%s' (did you mean '%s'?)", p, best);
		else
			snprintf(err, errlen, "no case matches '%s' (see 'dpk-bench list')", p);
		return -EINVAL;
	}
	return 0;
}
