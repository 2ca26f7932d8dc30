/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cli.h - dpk-bench's command line: a table of commands, a table of options, and one parser
 * that drives every command's parsing, its --help and its suggestions from them.
 *
 * The whole command line is parsed and checked before any case runs or any file is written,
 * so bad input costs nothing and the message names the token that was wrong. A command is
 * one entry of dpk_cli_commands (cli_table.c) and one function; an option is one entry of
 * dpk_cli_options naming the commands that take it. An option may have several entries,
 * for commands where it means something else (--json of run and of compare); a command
 * finds at most one of them.
 */
#ifndef DPK_BENCH_CLI_H
#define DPK_BENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine.h"

/** The most words (patterns or files) a command takes, and the most --pattern/--exclude. */
#define DPK_CLI_WORDS_MAX 64

struct dpk_cli;

/** What the words after a command name are. */
enum dpk_cli_words {
	DPK_CLI_PATTERNS, /**< patterns over the program's suites (run, list) */
	DPK_CLI_FILES,    /**< results files */
};

/** A command. */
struct dpk_cli_command {
	const char *name;
	const char *usage;       /**< after "dpk-bench ": "compare BASE.json NEW.json [OPTIONS]" */
	const char *summary;     /**< one line for the list of commands */
	const char *about;       /**< the paragraph of its --help */
	const char *exit_status; /**< the closing lines of its --help, after "exit status: " */
	enum dpk_cli_words words;
	unsigned min, max;     /**< how many words it takes */
	const char *need[2];   /**< what a message says is missing with 0 and 1 words given */
	const char *takes;     /**< what it takes, for "too many files: 'x' (compare takes ...)" */
	const char *no_effect; /**< why other commands' options have nothing to act on here, as
	                            "env runs no case"; NULL: nothing to say */
	const char *forward;   /**< a command its options go on to, as given, when that command
	                            takes them too (ab's run options go to its builds' serve) */
	bool hidden;           /**< left out of the program's --help (serve: ab's, not people's) */
	int (*run)(struct dpk_cli *cli); /**< runs it; returns the exit status */
};

/** An option. */
struct dpk_cli_option {
	const char *name;  /**< "--json" */
	const char *alias; /**< "-o", or NULL */
	const char *value; /**< the placeholder of its value in --help ("FILE"); NULL: a flag */
	const char *cmds;  /**< the commands that take it, by name and space-separated; NULL:
	                        every command */
	bool repeatable;   /**< may be given more than once (--pattern); others are refused */
	const char *help;  /**< its --help text, wrapped when printed */
	/** Store @p value (NULL for a flag); on bad input a message to @p err and -EINVAL. */
	int (*set)(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *value,
	           char *err, size_t errlen);
	size_t field; /**< where a generic setter stores (offsetof into struct dpk_cli) */
};

/** What --json of run writes. */
enum dpk_cli_format { CLI_FORMAT_DPKIT, CLI_FORMAT_GBENCH };

/** What convert writes (--to). */
enum dpk_cli_to { CLI_TO_NONE, CLI_TO_GBENCH, CLI_TO_CSV, CLI_TO_MARKDOWN, CLI_TO_DPKIT };

/** Globs given with a repeatable option. */
struct dpk_cli_globs {
	const char *v[DPK_CLI_WORDS_MAX];
	unsigned n;
};

/** A parsed command line: the command, its words and every option's value. */
struct dpk_cli {
	const struct dpk_cli_command *cmd;
	int argc; /**< the whole command line, for the record of a run */
	char **argv;
	const struct dpk_bench_suite *const *suites; /**< the program's suites, NULL-terminated */
	const char *words[DPK_CLI_WORDS_MAX];        /**< patterns (run, list) or files */
	unsigned nwords;
	bool first_is_pattern;         /**< words[0] is argv[1], where a command name would stand */
	struct dpk_cli_globs patterns; /**< --pattern */
	struct dpk_cli_globs excludes; /**< --exclude */
	const char *fwd[2 * DPK_CLI_WORDS_MAX]; /**< the tokens of the options to forward */
	unsigned nfwd;
	bool help, version;
	/* run, list, env */
	struct dpk_bench_options opt;
	bool placement_given;
	const char *json, *csv; /**< --json, --csv (compare: --json) */
	enum dpk_cli_format format;
	bool quiet, interleave;
	bool wide; /**< --wide: the table with every column */
	/* compare, spread, report, convert */
	double noise; /**< NaN: not given */
	double fail_above, limit;
	unsigned sets;    /**< --sets N; 0: not asked */
	bool cycles;      /**< --unit cycles */
	bool per_floor;   /**< spread's and compare's --unit floor */
	int unit;         /**< compare's --unit: DPK_CMP_UNIT_AUTO (not given), _TICKS or _CYCLES */
	double run_sigma; /**< --run-sigma; negative: compare's default by unit */
	const char *output, *title, *html;
	unsigned long seed; /**< ab's --seed; 0: from the clock */
	unsigned processes; /**< ab's --processes; 0: not given */
	enum dpk_cli_to to;
};

/** The default noise threshold of compare, report and convert. */
#define DPK_CLI_NOISE 0.02

/** @p v, or @p dflt when it is NaN (an option not given whose default is the command's). */
static inline double dpk_cli_or(double v, double dflt)
{
	return v == v ? v : dflt;
}

/** The commands, ending with an entry whose name is NULL; the first is the default. */
extern const struct dpk_cli_command dpk_cli_commands[];
/** The most option entries: a longer table does not compile. */
#define DPK_CLI_OPTIONS_MAX 96

/** The options, ending with an entry whose name is NULL (at the latest, the last one). */
extern const struct dpk_cli_option dpk_cli_options[DPK_CLI_OPTIONS_MAX + 1];

/** The command named @p name, or NULL. */
const struct dpk_cli_command *dpk_cli_command(const char *name);

/**
 * Parse @p argv into @p cli: argv[1] names the command, or is the first word of the default
 * one (run). Checks every option and its value and the number of words; does not check
 * patterns against the suites (dpk_cli_check_patterns()) nor open files. With --help or
 * --version, cli->help or cli->version is set and the rest is not looked at.
 * @retval 0 parsed
 * @retval -EINVAL bad input; @p err (of @p errlen bytes) says which token and why
 */
int dpk_cli_parse(int argc, char **argv, const struct dpk_bench_suite *const *suites,
                  struct dpk_cli *cli, char *err, size_t errlen);

/**
 * As dpk_cli_parse(), then what a command checks of its words and options before it does
 * anything: the patterns of run and list, and the --lcores spec against the machine. Files
 * are not looked at and nothing is run, opened or written, so any command line may be
 * checked (the CLI's fuzz target does).
 * @retval 0 the command line is good
 * @retval -EINVAL bad input; @p err says which token and why
 */
int dpk_cli_check(int argc, char **argv, const struct dpk_bench_suite *const *suites,
                  struct dpk_cli *cli, char *err, size_t errlen);

/** Print the help of command @p c to @p f, from the tables. */
void dpk_cli_help(FILE *f, const struct dpk_cli_command *c);

/** Print the program's help to @p f: every command, and the options of run. */
void dpk_cli_usage(FILE *f);

/** Print "dpk-bench[ CMD]: MESSAGE" to stderr and return 2, the exit status of bad input. */
int dpk_cli_fail(const struct dpk_cli *cli, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/** Whether option entry @p o is taken by command @p c. */
bool dpk_cli_takes(const struct dpk_cli_option *o, const struct dpk_cli_command *c);

/** The forwarded option tokens (cli->fwd) into @p args but the options named in
 *  @p drop[0..ndrop), each with its value; how many (at most cli->nfwd). */
unsigned dpk_cli_forwarded(const struct dpk_cli *cli, const char *const *drop, unsigned ndrop,
                           const char **args);

/** The command line as given, words joined by spaces, cut to fit @p len. */
void dpk_cli_command_line(const struct dpk_cli *cli, char *buf, size_t len);

/* ---- values (cli_values.c) ---------------------------------------------------------- */

/** Parse a duration: "0.5", "0.5s", "200ms", "50us"; seconds into *out, which must lie in
 *  [@p lo, @p hi]. 0 or -EINVAL. */
int dpk_cli_parse_duration(const char *text, double lo, double hi, double *out);

/** Parse a percentage: "5", "5%", "0.5" -> 0.05, 0.05, 0.005 into *out; within [0, max)
 * percent. 0 or -EINVAL. */
int dpk_cli_parse_pct(const char *text, double max, double *out);

/* ---- patterns and suggestions (cli_match.c) ----------------------------------------- */

/** Whether @p pattern selects case @p c of @p s (glob on suite, suite/case). */
bool dpk_cli_pattern_matches(const char *pattern, const struct dpk_bench_suite *s,
                             const struct dpk_bench_case *c);

/**
 * Check that every pattern (the words of run and list) and every --exclude selects some
 * case. On one that selects nothing, writes "no case matches 'X'" (for --exclude, "--exclude
 * 'X' matches no case") with the nearest names as a suggestion to @p err and returns
 * -EINVAL. A first word nearer a command than any name has the command suggested.
 */
int dpk_cli_check_patterns(const struct dpk_cli *cli, char *err, size_t errlen);

/** Whether some --exclude selects case @p c of @p s. */
bool dpk_cli_excluded(const struct dpk_cli *cli, const struct dpk_bench_suite *s,
                      const struct dpk_bench_case *c);

/** dpk_cli_selected() as a plan's select function (dpk_bench_select_fn), @p cli its context. */
bool dpk_cli_select(void *cli, const struct dpk_bench_suite *s, const struct dpk_bench_case *c);

/** Whether case @p c of @p s is selected: by a pattern (or by default_on when none) and by
 *  no --exclude. */
bool dpk_cli_selected(const struct dpk_cli *cli, const struct dpk_bench_suite *s,
                      const struct dpk_bench_case *c);

/** When the first word @p word of an implicit run selects no case but is near a command's
 *  name, say so in @p err and return true. */
bool dpk_cli_command_slip(const struct dpk_bench_suite *const *suites, const char *word, char *err,
                          size_t errlen);

/** Edit distance between two strings, a swap of neighbouring letters one edit (for
 * suggestions). */
unsigned dpk_cli_distance(const char *a, const char *b);

/** The entry of NULL-terminated @p list nearest @p word by dpk_cli_distance(), if it is
 * nearer than @p limit edits (the first such on a tie); NULL if none is. */
const char *dpk_cli_nearest(const char *word, const char *const *list, unsigned limit);

#endif /* DPK_BENCH_CLI_H */
