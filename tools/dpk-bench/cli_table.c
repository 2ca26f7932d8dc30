/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tables of dpk-bench's command line: its commands and their options. Parsing, --help
 * and suggestions all come from here (cli.c).
 */
#include <stddef.h>

#include "cli.h"
#include "cli_values.h"
#include "commands.h"

#define AT(member) offsetof(struct dpk_cli, member)

const struct dpk_cli_command dpk_cli_commands[] = {
        {
                .name = "run",
                .usage = "[run] [PATTERN...] [OPTIONS]",
                .summary = "run the cases PATTERN selects (default: the default suites)",
                .about = "Run the cases PATTERN selects, each on every placement its kind "
                         "fits and the lcores offer, and print a table of their figures.\n\n"
                         "PATTERN is a suite name or a glob on SUITE/CASE, e.g. ring, "
                         "'ring/spsc_*', '*pingpong'.\n\n"
                         "The whole command line is checked before any case runs, and the "
                         "files are written once the cases have run: a FIFO must have its "
                         "reader running when dpk-bench starts, or the run is refused.",
                .exit_status = "0 all cases ran, 1 a case failed its invariants, 2 bad input",
                .words = DPK_CLI_PATTERNS,
                .max = DPK_CLI_WORDS_MAX,
                .run = dpk_cmd_run,
        },
        {
                .name = "list",
                .usage = "list [PATTERN...] [OPTIONS]",
                .summary = "list suites and cases",
                .about = "List the suites and their cases (name, parameters, kind, unit and "
                         "what one operation is); with PATTERN, only the cases it selects.",
                .exit_status = "0 listed, 2 bad input",
                .words = DPK_CLI_PATTERNS,
                .max = DPK_CLI_WORDS_MAX,
                .no_effect = "list runs no case",
                .run = dpk_cmd_list,
        },
        {
                .name = "env",
                .usage = "env [--lcores SPEC] [--placement LIST]",
                .summary = "print the environment report and the clock self-check",
                .about = "Print the environment with its verdicts, the clock self-check, and "
                         "the lcores and placements a run with the same options would use.",
                .exit_status = "0 printed, 2 bad input",
                .words = DPK_CLI_PATTERNS,
                .no_effect = "env runs no case",
                .run = dpk_cmd_env,
        },
        {
                .name = "peers",
                .usage = "peers [PATTERN...] [OPTIONS]",
                .summary = "dpkit's blocks against DPDK's and ck's, twin by twin, with verdicts",
                .about = "Run every case of the peers' suites (DPDK's and Concurrency Kit's, "
                         "those this program was built with) beside its dpkit twin, the case "
                         "with its name, parameters and group, twins interleaved (in the same "
                         "rounds, on the same lcores), and print a table per block: dpkit's "
                         "median, the peer's, the ratio peer / dpkit with its 95% interval "
                         "(paired round by round) and a verdict: dpkit faster, dpkit slower or "
                         "within noise (--noise).\n\n"
                         "The run is made by --processes programs, one after the other, each "
                         "given --time / N a case: a ratio moves from one program to the next "
                         "by more than one program's interval, so a row's verdict is one each "
                         "of them gave.\n\n"
                         "PATTERN selects the pairings whose dpkit or peer case it matches: a "
                         "suite name or a glob on SUITE/CASE, e.g. ring, dpdk_mempool, "
                         "'pool/get_put'.",
                .exit_status = "0 compared, 1 a case failed its invariants (one skipped does "
                               "not count), 2 bad input or a process that failed (nothing is "
                               "written), 130 interrupted",
                .words = DPK_CLI_PATTERNS,
                .max = DPK_CLI_WORDS_MAX,
                .forward = "peers",
                .run = dpk_cmd_peers,
        },
        {
                .name = "compare",
                .usage = "compare BASE.json NEW.json [OPTIONS]",
                .summary = "before/after verdicts from two --json files (see compare --help)",
                .about = "Compare two dpk-bench results files (written with --json; add --raw "
                         "to both runs for a significance test) case by case: the ratio "
                         "new/base of the median with its 95% interval, a p-value, and a "
                         "verdict: faster, slower or within noise.",
                .exit_status = "0 compared (and the gate passed), 1 the gate failed, 2 bad "
                               "input",
                .words = DPK_CLI_FILES,
                .min = 2,
                .max = 2,
                .need = {"two results files: BASE.json NEW.json",
                         "a second results file: BASE.json NEW.json"},
                .takes = "exactly two: BASE.json NEW.json",
                .run = dpk_cmd_compare,
        },
        {
                .name = "spread",
                .usage = "spread RESULTS.json [MORE.json...] [OPTIONS]",
                .summary = "how well several runs agree: per case, the spread of the medians",
                .about = "How well runs agree: for every case that ran (status ok) in every "
                         "run, the median of each run and the spread (largest - smallest) / "
                         "smallest. Each repeat in a file (--repeat) is a run of its own, so "
                         "one file of five repeats or five files of one both give five runs; "
                         "at least two runs are needed. Under a case at or over the limit: "
                         "how many time slices each run's median came from, where the files "
                         "say.",
                .exit_status = "0 every case under the limit, 1 some case at or over it (over "
                               "all the runs, whatever --sets found), 2 bad input",
                .words = DPK_CLI_FILES,
                .min = 1,
                .max = DPK_CLI_WORDS_MAX,
                .need = {"results files: RUN1.json [RUN2.json...]"},
                .takes = "at most 64 results files",
                .run = dpk_cmd_spread,
        },
        {
                .name = "report",
                .usage = "report RESULTS.json [NEW.json] -o REPORT.html [OPTIONS]",
                .summary = "one self-contained HTML page from one or two --json files",
                .about = "Write one self-contained HTML page (no network access needed) with "
                         "the environment verdicts, a chart per suite, sample histograms "
                         "and, given two files, the comparison.",
                .exit_status = "0 written, 2 bad input",
                .words = DPK_CLI_FILES,
                .min = 1,
                .max = 2,
                .need = {"a results file: RESULTS.json [NEW.json]"},
                .takes = "one or two results files",
                .run = dpk_cmd_report,
        },
        {
                .name = "ab",
                .usage = "ab BASE NEW [PATTERN...] [OPTIONS]",
                .summary = "two builds measured round by round in turn, their rounds paired",
                .about = "Start two dpk-bench programs, BASE and NEW, each serving the cases "
                         "PATTERN selects ('dpk-bench serve'), one after the other, and run "
                         "every set of cases both have round by round, the order of each pair "
                         "of rounds drawn at random, on the same lcores: whatever the machine "
                         "does falls on both. Each case is judged on the ratios of its paired "
                         "rounds: their median and its sign-test interval. The run options "
                         "(--time, --lcores, ...) go to both programs.",
                .exit_status = "0 compared (and the gate passed), 1 the gate failed, 2 bad "
                               "input, or a program that failed, crashed or hung (both are "
                               "stopped and nothing is written), 130 interrupted",
                .words = DPK_CLI_PATTERNS,
                .min = 2,
                .max = DPK_CLI_WORDS_MAX,
                .need = {"two dpk-bench programs: BASE NEW",
                         "a second dpk-bench program: BASE NEW"},
                .forward = "serve",
                .run = dpk_cmd_ab,
        },
        {
                .name = "serve",
                .usage = "serve --json FILE [PATTERN...] [OPTIONS]",
                .summary = "serve a run's sets round by round over a pipe, for ab",
                .about = "Serve the sets of the cases PATTERN selects round by round, as told "
                         "on standard input, answering on standard output (the protocol is in "
                         "tools/dpk-bench/serve.h), and write their results to --json FILE at "
                         "the end. dpk-bench ab starts it; people need not.",
                .exit_status = "0 served and written, 2 bad input or a broken protocol",
                .words = DPK_CLI_PATTERNS,
                .max = DPK_CLI_WORDS_MAX,
                .hidden = true,
                .run = dpk_cmd_serve,
        },
        {
                .name = "convert",
                .usage = "convert IN.json [NEW.json] --to FORMAT [-o OUT] [OPTIONS]",
                .summary = "a results file in another format: gbench, csv, markdown, dpkit",
                .about = "Write a dpk-bench results file in a format other tools read: gbench, "
                         "Google Benchmark's JSON (its tools/compare.py reads it); csv, the "
                         "columns of run --csv, a row per result; markdown, a table for a "
                         "pull-request comment; dpkit, a normalised copy of the file. Given two "
                         "results files, or a file written by compare --json, markdown is the "
                         "comparison: ratio, interval and verdict per case.",
                .exit_status = "0 written, 2 bad input",
                .words = DPK_CLI_FILES,
                .min = 1,
                .max = 2,
                .need = {"a results file: IN.json --to FORMAT"},
                .takes = "one results file, or two to compare",
                .run = dpk_cmd_convert,
        },
        {0},
};

/* The commands that read results files. */
#define RUN_FILES "compare spread report convert"
#define PATTERN_HELP                                                                               \
	"only cases matching SUITE, SUITE/CASE or the full id "                                    \
	"SUITE/CASE/PARAM:V/.../placement:P (repeatable)"

const struct dpk_cli_option dpk_cli_options[DPK_CLI_OPTIONS_MAX + 1] = {
        /* run */
        {"--time", NULL, "T", "run serve ab peers", false,
         "measurement time per case, from 1 ms to 60 s (default 0.2s; e.g. 0.5, 500ms, 2s)",
         dpk_cli_set_duration, AT(opt.time_s)},
        {"--warmup", NULL, "T", "run serve ab peers", false,
         "warm-up time per case, from 0 (none) to 10 s (default 30ms)", dpk_cli_set_duration,
         AT(opt.warmup_s)},
        {"--lcores", NULL, "SPEC", "run env serve ab peers", false,
         "lcores to use, DPDK syntax: 0-3, 0,2, (0-1)@0, 2@(4-5) (default: main on the first "
         "CPU, a worker per CPU, and one more worker on the first CPU for the oversub "
         "placement; the CPUs are those of the process's affinity mask)",
         dpk_cli_set_lcores, 0},
        {"--placement", NULL, "LIST", "run env serve ab peers", false,
         "placements to run: single,smt,core,llc,numa,oversub,all", dpk_cli_set_placement, 0},
        {"--exclude", NULL, "PATTERN", "run list serve ab peers", true,
         "leave out the cases PATTERN selects (repeatable); one that selects no case is "
         "refused",
         dpk_cli_set_glob, AT(excludes)},
        {"--repeat", NULL, "N", "run", false, "run the whole selection N times (default 1)",
         dpk_cli_set_count, 0},
        {"--rounds", NULL, "N", "run serve ab peers", false,
         "cut each single-lcore case's time into N slices, run in turn with the suite's other "
         "cases (default 40; slices are at least 5 ms, so a short --time gets fewer; 1 = one "
         "block; with --slow-limit above 0, up to N more run while a case lacks samples the "
         "speed witness finds fast)",
         dpk_cli_set_count, 0},
        {"--slow-limit", NULL, "P", "run serve ab peers", false,
         "set aside the samples the speed witness finds slow and the rounds whose median is "
         "more than P% above the lower quartile of the case's round medians, weighted by "
         "samples (default 5; 0 = off; judges only with 5 or more rounds of 16 kept samples)",
         dpk_cli_set_pct, AT(opt.slow_limit)},
        {"--json", NULL, "FILE", "run serve", false,
         "write results as JSON (schema dpkit-bench v1); '-', or a name of standard output, "
         "writes them there alone and the table to standard error",
         dpk_cli_set_path, AT(json)},
        {"--format", NULL, "F", "run", false,
         "what --json writes: dpkit (default) or gbench, Google Benchmark's schema for its "
         "tools/compare.py",
         dpk_cli_set_format, 0},
        {"--csv", NULL, "FILE", "run", false, "write results as CSV; '-' as with --json",
         dpk_cli_set_path, AT(csv)},
        {"--raw", NULL, NULL, "run serve ab", false, "keep every sample in the JSON/CSV",
         dpk_cli_set_flag, AT(opt.raw)},
        {"--interleave", NULL, NULL, "run", false,
         "run variants of one question (the same case in ring and dpdk_ring, a case group) "
         "in the same rounds, slice by slice, on one placement at a time, and report each as "
         "a ratio to the first, round by round",
         dpk_cli_set_flag, AT(interleave)},
        {"--json", NULL, "FILE", "peers", false,
         "also write every case's results (schema dpkit-bench v1, which compare, report and "
         "convert read) with the tables' rows under \"peers\"; '-' puts it on standard output "
         "alone and the tables on standard error",
         dpk_cli_set_path, AT(json)},
        {"--quiet", NULL, NULL, "run peers", false, "no environment block and no progress line",
         dpk_cli_set_flag, AT(quiet)},
        {"--processes", NULL, "N", "peers", false,
         "run as N processes in turn, each given --time / N per case, and merge their rows: "
         "geometric means, an interval spanning theirs, a verdict only where every process "
         "gave it (default 2; 1 = this process alone)",
         dpk_cli_set_processes, 0},
        {"--wide", NULL, NULL, "run", false,
         "the table with every column (min, max) and the rejected samples by reason, past "
         "160 columns",
         dpk_cli_set_flag, AT(wide)},
        /* compare, spread, report, convert */
        {"--noise", NULL, "PCT", "compare", false,
         "noise threshold in percent (default 2): a verdict of faster or slower needs p < 0.05 "
         "and the whole interval beyond it",
         dpk_cli_set_pct, AT(noise)},
        {"--fail-above", NULL, "PCT", "compare", false,
         "exit 1 when a case is slower by more than PCT percent (the interval's lower bound "
         "above it, and significant)",
         dpk_cli_set_pct, AT(fail_above)},
        {"--limit", NULL, "PCT", "spread", false,
         "the spread a case must stay under (default 5); cases at or over it are marked '*' "
         "and make the exit status 1",
         dpk_cli_set_pct, AT(limit)},
        {"--output", "-o", "FILE", "report", false,
         "where to write the page ('-' for standard output)", dpk_cli_set_path, AT(output)},
        {"--noise", NULL, "PCT", "report", false, "noise threshold of the comparison (default 2)",
         dpk_cli_set_pct, AT(noise)},
        {"--pattern", NULL, "GLOB", RUN_FILES, true, PATTERN_HELP, dpk_cli_set_glob, AT(patterns)},
        {"--exclude", NULL, "GLOB", RUN_FILES, true,
         "leave out the cases GLOB matches, as --pattern would match them (repeatable); one "
         "that matches no case is refused",
         dpk_cli_set_glob, AT(excludes)},
        {"--unit", NULL, "UNIT", "compare", false,
         "auto (default: core cycles for single-lcore cases that have them, ticks otherwise, "
         "pair cases included), ticks, cycles, or floor (a pair's figure over its own floor); "
         "with cycles or floor, cases without them on a side are skipped, with the reason. A "
         "pair case whose floor moved beyond noise has no verdict: the placement changed",
         dpk_cli_set_unit, 0},
        {"--run-sigma", NULL, "PCT", "compare report convert", false,
         "what moves between two runs, as the standard deviation of the log of an A/A ratio, "
         "added to the rounds' intervals (default 0.8 in core cycles; 4.4 in ticks, or 0.3 times "
         "the interquartile range of the log of each side's rounds where that is more; 0 = "
         "none)",
         dpk_cli_set_pct, AT(run_sigma)},
        {"--unit", NULL, "UNIT", "spread", false,
         "ticks (default), cycles or floor: the medians in core cycles, which single-lcore "
         "cases run in rounds have, or over the case's own floor, which multi-lcore cases on "
         "two CPUs have; others are left out. In ticks a run whose floor moved (the host "
         "put the lcores elsewhere) is marked ~ and left out of its case's spread",
         dpk_cli_set_unit, 0},
        {"--unit", NULL, "UNIT", "report", false,
         "ticks (default) or cycles: draw and compare the figures in core cycles, which "
         "single-lcore cases run in rounds have; the others are listed, not drawn",
         dpk_cli_set_unit, 0},
        {"--sets", NULL, "N", "spread", false,
         "also take every set of N of the runs (2 or more, at most the runs given) and count "
         "the sets in which every case stays under the limit, and per case the sets it breaks",
         dpk_cli_set_sets, 0},
        {"--json", NULL, "FILE", "compare", false,
         "also write the comparison as JSON; '-' puts it on standard output alone and the "
         "table on standard error",
         dpk_cli_set_path, AT(json)},
        {"--title", NULL, "TEXT", "report", false, "the page title", dpk_cli_set_text, AT(title)},
        {"--to", NULL, "FORMAT", "convert", false,
         "what to write: gbench, csv, markdown (or md) or dpkit", dpk_cli_set_to, 0},
        {"--output", "-o", "FILE", "convert", false,
         "where to write it (default, or '-': standard output)", dpk_cli_set_path, AT(output)},
        {"--noise", NULL, "PCT", "convert", false,
         "noise threshold of a comparison of two files (default 2)", dpk_cli_set_pct, AT(noise)},
        {"--noise", NULL, "PCT", "peers", false,
         "noise threshold in percent (default 2): a verdict of faster or slower needs the whole "
         "interval beyond it",
         dpk_cli_set_pct, AT(noise)},
        /* ab */
        {"--noise", NULL, "PCT", "ab", false,
         "noise threshold in percent (default 1): a verdict of faster or slower needs the whole "
         "interval beyond it",
         dpk_cli_set_pct, AT(noise)},
        {"--fail-above", NULL, "PCT", "ab", false,
         "exit 1 when a case's interval lies wholly above 1 + PCT percent", dpk_cli_set_pct,
         AT(fail_above)},
        {"--json", NULL, "FILE", "ab", false,
         "also write the pairing as JSON (schema dpkit-bench-ab v1); '-' puts it on standard "
         "output alone and the table on standard error",
         dpk_cli_set_path, AT(json)},
        {"--html", NULL, "FILE", "ab", false, "also write an HTML page of the pairing",
         dpk_cli_set_path, AT(html)},
        {"--run-sigma", NULL, "PCT", "ab", false,
         "what differs between two runs of one build even paired, as the standard deviation "
         "of the log of an A/A ratio, added to each interval (default 0.5 in core cycles, 4.4 "
         "in ticks; 0 = none)",
         dpk_cli_set_pct, AT(run_sigma)},
        {"--processes", NULL, "N", "ab", false,
         "run each build as N processes, a pair (one of each) at a time, each given --time / "
         "N per case; a verdict needs every pair's median ratio beyond the noise (default 2; "
         "1 = one pair)",
         dpk_cli_set_processes, 0},
        {"--seed", NULL, "N", "ab", false,
         "the seed of the order of each pair of rounds (default: from the clock)", dpk_cli_set_seed,
         0},
        {"--quiet", NULL, NULL, "ab", false, "no progress line", dpk_cli_set_flag, AT(quiet)},
        /* every command */
        {"--help", "-h", NULL, NULL, false, "this text", dpk_cli_set_flag, AT(help)},
        {"--version", "-V", NULL, NULL, false, "print the version", dpk_cli_set_flag, AT(version)},
        {0},
};
