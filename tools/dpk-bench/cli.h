/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cli.h - dpk-bench's command line, parsed and checked before any case runs, so bad input
 * costs nothing and says exactly which token was wrong.
 */
#ifndef DPK_BENCH_CLI_H
#define DPK_BENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"

enum dpk_cli_command { CLI_RUN, CLI_LIST, CLI_ENV, CLI_HELP, CLI_VERSION, CLI_SERVE };

/** What --json writes: dpkit's own schema, or Google Benchmark's (see gbench.h). */
enum dpk_cli_format { CLI_FORMAT_DPKIT, CLI_FORMAT_GBENCH };

#define CLI_PATTERNS_MAX 64

struct dpk_cli {
	enum dpk_cli_command cmd;
	struct dpk_bench_options opt;
	const char *patterns[CLI_PATTERNS_MAX];
	unsigned npatterns;
	const char *json_path;
	const char *csv_path;
	enum dpk_cli_format format;
	bool quiet;
	bool interleave; /**< run single-lcore variants of one group batch by batch in turn */
	bool placement_given;
	bool first_is_pattern; /**< patterns[0] is argv[1], where a command word would stand */
	const struct dpk_bench_suite *const *suites; /**< the program's suites, NULL-terminated */
};

/**
 * Parse @p argv into @p cli. On bad input writes one message naming the problem to
 * @p err (of @p errlen bytes) and returns -EINVAL; returns 0 otherwise. Does not check
 * patterns against the suites (see dpk_cli_match_plan) nor open files.
 */
int dpk_cli_parse(int argc, char **argv, const struct dpk_bench_suite *const *suites,
                  struct dpk_cli *cli, char *err, size_t errlen);

/** Parse a duration: "0.5", "0.5s", "200ms", "50us"; seconds into *out. 0 or -EINVAL. */
int dpk_cli_parse_duration(const char *text, double *out);

/** Parse a percentage: "5", "5%", "0.5" -> 0.05, 0.05, 0.005 into *out; within [0, max)
 * percent. 0 or -EINVAL. */
int dpk_cli_parse_pct(const char *text, double max, double *out);

/** Whether @p pattern selects case @p c of suite @p s (glob on suite, suite/case). */
bool dpk_cli_pattern_matches(const char *pattern, const struct dpk_bench_suite *s,
                             const struct dpk_bench_case *c);

/**
 * Check that every pattern selects something. On a pattern that selects nothing, writes
 * "no case matches 'X'" with the nearest names as a suggestion to @p err and returns
 * -EINVAL. A first word nearer a command than any name has the command suggested.
 */
int dpk_cli_check_patterns(const struct dpk_cli *cli, char *err, size_t errlen);

/** Whether case @p c of @p s is selected by the patterns (or by default_on when none). */
bool dpk_cli_selected(const struct dpk_cli *cli, const struct dpk_bench_suite *s,
                      const struct dpk_bench_case *c);

/** Edit distance between two strings, a swap of neighbouring letters one edit (for
 * suggestions). */
unsigned dpk_cli_distance(const char *a, const char *b);

/** The entry of NULL-terminated @p list nearest @p word by dpk_cli_distance(), if it is
 * nearer than @p limit edits (the first such on a tie); NULL if none is. */
const char *dpk_cli_nearest(const char *word, const char *const *list, unsigned limit);

/** The usage text. */
extern const char dpk_cli_usage[];

#endif /* DPK_BENCH_CLI_H */
