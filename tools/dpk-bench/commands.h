/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commands.h - dpk-bench's commands that read results files instead of running cases:
 * compare (before/after verdicts, a CI gate), spread (how well several runs agree) and
 * report (one self-contained HTML page).
 * Each takes the command's own argv (argv[0] is the command name) and returns the exit
 * status: 0 fine, 1 the --fail-above gate failed (compare) or a case spread over the limit
 * (spread), 2 bad input.
 */
#ifndef DPK_BENCH_COMMANDS_H
#define DPK_BENCH_COMMANDS_H

/** dpk-bench compare BASE.json NEW.json [--noise PCT] [--fail-above PCT] ... */
int dpk_cmd_compare(int argc, char **argv);

/** dpk-bench report RESULTS.json [MORE.json] -o report.html */
int dpk_cmd_report(int argc, char **argv);

/** dpk-bench spread RUN1.json [RUN2.json...] [--limit PCT] [--pattern GLOB] */
int dpk_cmd_spread(int argc, char **argv);

/** run (the default), list and env over the program's NULL-terminated @p suites; @p argv
 *  is the whole command line. */
struct dpk_bench_suite;
int dpk_cmd_run(int argc, char **argv, const struct dpk_bench_suite *const *suites);

/** dpk-bench ab BASE NEW [PATTERN...] [OPTIONS] */
int dpk_cmd_ab(int argc, char **argv);

/** Usage text of the commands. */
extern const char dpk_cmd_compare_usage[];
extern const char dpk_cmd_spread_usage[];
extern const char dpk_cmd_report_usage[];

#endif /* DPK_BENCH_COMMANDS_H */
