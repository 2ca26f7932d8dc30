/* SPDX-License-Identifier: BSD-3-Clause */
/* The one parser of every dpk-bench command, and the help it prints, from the tables. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct dpk_cli_command *dpk_cli_command(const char *name)
{
	for (const struct dpk_cli_command *c = dpk_cli_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Whether @p word is one of the space-separated words of @p list. */
static bool word_in(const char *word, const char *list)
{
	const size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

bool dpk_cli_takes(const struct dpk_cli_option *o, const struct dpk_cli_command *c)
{
	return !o->cmds || word_in(c->name, o->cmds);
}

static bool named(const struct dpk_cli_option *o, const char *name)
{
	return strcmp(o->name, name) == 0 || (o->alias && strcmp(o->alias, name) == 0);
}

/* The entry of option @p name that command @p c takes; *known says whether some command
 * takes an option of that name. */
static const struct dpk_cli_option *find_option(const struct dpk_cli_command *c, const char *name,
                                                bool *known)
{
	*known = false;
	for (const struct dpk_cli_option *o = dpk_cli_options; o->name; o++) {
		if (!named(o, name))
			continue;
		*known = true;
		if (dpk_cli_takes(o, c))
			return o;
	}
	return NULL;
}

/* "unknown option '--tme' (did you mean '--time'?)", among the options @p c takes. */
static void unknown_option(const struct dpk_cli_command *c, const char *name, char *err,
                           size_t errlen)
{
	const char *names[2 * (DPK_CLI_OPTIONS_MAX + 1) + 1];
	unsigned n = 0;
	const char *best;

	for (const struct dpk_cli_option *o = dpk_cli_options; o->name; o++) {
		if (!dpk_cli_takes(o, c))
			continue;
		names[n++] = o->name;
		if (o->alias)
			names[n++] = o->alias;
	}
	names[n] = NULL;
	best = dpk_cli_nearest(name, names, 4);
	if (best)
		snprintf(err, errlen, "unknown option '%s' (did you mean '%s'?)", name, best);
	else
		snprintf(err, errlen, "unknown option '%s' (see 'dpk-bench %s --help')", name,
		         c->name);
}

/* A parse in progress. */
struct parse {
	struct dpk_cli *cli;
	char **argv;
	int argc, i;
	/* The value each entry was first given ("" for a flag), or NULL. */
	const char *first[DPK_CLI_OPTIONS_MAX + 1];
	char *err;
	size_t errlen;
};

/* The value of the option @p o at token @p arg (which has it after '=' at @p eq, or not),
 * or NULL with a message. */
static const char *option_value(struct parse *ps, const struct dpk_cli_option *o, const char *name,
                                const char *arg, const char *eq)
{
	if (!o->value) {
		if (eq)
			snprintf(ps->err, ps->errlen, "%s takes no value: '%s'", name, arg);
		return eq ? NULL : "";
	}
	if (eq)
		return eq + 1;
	if (ps->i + 1 < ps->argc)
		return ps->argv[++ps->i];
	snprintf(ps->err, ps->errlen, "%s needs a value", name);
	return NULL;
}

/* A second value for an option given once already: refused, naming both. */
static int given_twice(struct parse *ps, const struct dpk_cli_option *o, const char *val)
{
	const char *was = ps->first[o - dpk_cli_options];

	if (o->value)
		snprintf(ps->err, ps->errlen, "%s given twice ('%s' and '%s'); give it once",
		         o->name, was, val);
	else
		snprintf(ps->err, ps->errlen, "%s given twice; give it once", o->name);
	return -EINVAL;
}

/* Keep the tokens of option @p o (@p arg, and its value @p val when apart) for the command
 * its command forwards to, if that one takes it too. */
static int forward(struct parse *ps, const struct dpk_cli_option *o, const char *arg,
                   const char *val)
{
	const struct dpk_cli_command *to =
	        ps->cli->cmd->forward ? dpk_cli_command(ps->cli->cmd->forward) : NULL;
	struct dpk_cli *cli = ps->cli;

	if (!to || !dpk_cli_takes(o, to))
		return 0;
	if (cli->nfwd + 2 > sizeof(cli->fwd) / sizeof(cli->fwd[0])) {
		snprintf(ps->err, ps->errlen, "too many options (at most %zu)",
		         sizeof(cli->fwd) / sizeof(cli->fwd[0]) / 2);
		return -EINVAL;
	}
	cli->fwd[cli->nfwd++] = arg;
	if (val)
		cli->fwd[cli->nfwd++] = val;
	return 0;
}

/* The option at token @p arg. */
static int parse_option(struct parse *ps, const char *arg)
{
	const struct dpk_cli_command *c = ps->cli->cmd;
	const char *eq = strchr(arg, '='), *val;
	const struct dpk_cli_option *o;
	char name[48];
	bool known;

	snprintf(name, sizeof(name), "%.*s", (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
	o = find_option(c, name, &known);
	if (!o && !known) {
		unknown_option(c, name, ps->err, ps->errlen);
		return -EINVAL;
	}
	if (!o) {
		snprintf(ps->err, ps->errlen, "%s takes no %s (%s%ssee 'dpk-bench %s --help')",
		         c->name, name, c->no_effect ? c->no_effect : "", c->no_effect ? "; " : "",
		         c->name);
		return -EINVAL;
	}
	if (!(val = option_value(ps, o, name, arg, eq)))
		return -EINVAL;
	if (ps->first[o - dpk_cli_options] && !o->repeatable)
		return given_twice(ps, o, val);
	ps->first[o - dpk_cli_options] = val;
	if (o->set(ps->cli, o, o->value ? val : NULL, ps->err, ps->errlen))
		return -EINVAL;
	return forward(ps, o, arg, o->value && !eq ? val : NULL);
}

/* Option token @p tok's name ("--time" of "--time=2s") into @p name; its value part or NULL. */
static const char *option_name(const char *tok, char *name, size_t len)
{
	const char *eq = strchr(tok, '=');

	snprintf(name, len, "%.*s", (int)(eq ? (size_t)(eq - tok) : strlen(tok)), tok);
	return eq;
}

unsigned dpk_cli_forwarded(const struct dpk_cli *cli, const char *const *drop, unsigned ndrop,
                           const char **args)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cli->nfwd; i++) {
		char name[48];
		const bool apart = !option_name(cli->fwd[i], name, sizeof(name));
		bool known, dropped = false;
		const struct dpk_cli_option *o = find_option(cli->cmd, name, &known);
		const bool valued = apart && o && o->value && i + 1 < cli->nfwd;

		for (unsigned d = 0; d < ndrop && !dropped; d++)
			dropped = strcmp(name, drop[d]) == 0;
		if (!dropped) {
			args[n++] = cli->fwd[i];
			if (valued)
				args[n++] = cli->fwd[i + 1];
		}
		i += valued; /* its value went with it */
	}
	return n;
}

void dpk_cli_command_line(const struct dpk_cli *cli, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < cli->argc && off + 2 < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? " " : "", cli->argv[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* A word: a pattern or a file, as the command takes. */
static int parse_word(struct parse *ps, const char *arg)
{
	struct dpk_cli *cli = ps->cli;
	const struct dpk_cli_command *c = cli->cmd;
	const char *what = c->words == DPK_CLI_FILES ? "files" : "patterns";

	if (c->max == 0) {
		snprintf(ps->err, ps->errlen, "%s takes no %s: '%s'", c->name, what, arg);
		return -EINVAL;
	}
	if (c->words == DPK_CLI_FILES && !arg[0]) {
		snprintf(ps->err, ps->errlen, "empty file name");
		return -EINVAL;
	}
	if (cli->nwords >= c->max) {
		if (c->words == DPK_CLI_FILES)
			snprintf(ps->err, ps->errlen, "too many files: '%s' (%s takes %s)", arg,
			         c->name, c->takes);
		else
			snprintf(ps->err, ps->errlen, "too many patterns (at most %u)", c->max);
		return -EINVAL;
	}
	cli->words[cli->nwords++] = arg;
	return 0;
}

/* Enough words for the command. */
static int check_words(const struct dpk_cli *cli, char *err, size_t errlen)
{
	const struct dpk_cli_command *c = cli->cmd;

	if (cli->nwords >= c->min)
		return 0;
	snprintf(err, errlen, "needs %s", c->need[cli->nwords ? 1 : 0]);
	return -EINVAL;
}

static void defaults(struct dpk_cli *cli, int argc, char **argv,
                     const struct dpk_bench_suite *const *suites)
{
	memset(cli, 0, sizeof(*cli));
	cli->argc = argc;
	cli->argv = argv;
	cli->suites = suites;
	dpk_bench_options_default(&cli->opt);
	cli->noise = NAN; /* each command has its own default */
	cli->fail_above = -1.0;
	cli->limit = 0.05;
	cli->run_sigma = -1.0;
}

static int parse_tokens(struct parse *ps, int from)
{
	bool options = true;

	for (ps->i = from; ps->i < ps->argc; ps->i++) {
		const char *arg = ps->argv[ps->i];
		int rc;

		if (options && strcmp(arg, "--") == 0) {
			options = false; /* words only from here on */
			continue;
		}
		if (options && arg[0] == '-' && arg[1] != '\0')
			rc = parse_option(ps, arg);
		else
			rc = parse_word(ps, arg);
		if (rc)
			return rc;
		if (ps->cli->help || ps->cli->version)
			return 0;
	}
	return check_words(ps->cli, ps->err, ps->errlen);
}

int dpk_cli_parse(int argc, char **argv, const struct dpk_bench_suite *const *suites,
                  struct dpk_cli *cli, char *err, size_t errlen)
{
	struct parse ps = {.cli = cli, .argv = argv, .argc = argc, .err = err, .errlen = errlen};
	const struct dpk_cli_command *named_cmd = argc > 1 ? dpk_cli_command(argv[1]) : NULL;
	int rc;

	defaults(cli, argc, argv, suites);
	cli->cmd = named_cmd ? named_cmd : &dpk_cli_commands[0];
	cli->first_is_pattern = !named_cmd && argc > 1 && argv[1][0] != '-';
	rc = parse_tokens(&ps, named_cmd ? 2 : 1);
	/* "comapre a.json b.json --noise 5" fails on --noise, but the slip is the first word. */
	if (rc && cli->first_is_pattern)
		dpk_cli_command_slip(suites, argv[1], err, errlen);
	return rc;
}

int dpk_cli_check(int argc, char **argv, const struct dpk_bench_suite *const *suites,
                  struct dpk_cli *cli, char *err, size_t errlen)
{
	struct dpk_lcore_spec spec;
	int rc = dpk_cli_parse(argc, argv, suites, cli, err, errlen);

	if (rc || cli->help || cli->version)
		return rc;
	if (cli->cmd->words == DPK_CLI_PATTERNS && (rc = dpk_cli_check_patterns(cli, err, errlen)))
		return rc;
	if (cli->opt.lcores && dpk_bench_lcore_spec(cli->opt.lcores, &spec) != 0) {
		snprintf(err, errlen, "--lcores: %s", dpk_last_error());
		return -EINVAL;
	}
	return 0;
}

int dpk_cli_fail(const struct dpk_cli *cli, const char *fmt, ...)
{
	va_list ap;

	if (cli && cli->cmd && cli->cmd != &dpk_cli_commands[0])
		fprintf(stderr, "dpk-bench %s: ", cli->cmd->name);
	else
		fprintf(stderr, "dpk-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* ---- help ---------------------------------------------------------------------------- */

#define HELP_WIDTH 92 /* columns of --help */
#define HELP_COL   21 /* where an option's text starts */

/* @p text wrapped at word boundaries to HELP_WIDTH, each line after the first indented by
 * @p indent (the first goes on from column @p col). */
static void wrap(FILE *f, const char *text, int indent, int col)
{
	const char *p = text;
	bool first = true;

	while (*p) {
		size_t len = strcspn(p, " ");

		if (!first && col + 1 + (int)len > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		first = false;
		fprintf(f, "%.*s", (int)len, p);
		col += (int)len;
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void option_help(FILE *f, const struct dpk_cli_option *o)
{
	char left[64];
	int w;

	snprintf(left, sizeof(left), "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "",
	         o->name, o->value ? " " : "", o->value ? o->value : "");
	w = fprintf(f, "  %-*s ", HELP_COL - 3, left);
	if (w > HELP_COL)
		w = fprintf(f, "\n%*s", HELP_COL, "") - 1;
	wrap(f, o->help, HELP_COL, w);
}

static void options_help(FILE *f, const struct dpk_cli_command *c)
{
	fprintf(f, "options:\n");
	for (const struct dpk_cli_option *o = dpk_cli_options; o->name; o++)
		if (dpk_cli_takes(o, c))
			option_help(f, o);
}

/* A paragraph: lines of text, each wrapped. */
static void paragraph(FILE *f, const char *text)
{
	char line[1024];

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (len)
			wrap(f, line, 0, 0);
		else
			fputc('\n', f);
		p += len + (p[len] == '\n');
	}
}

void dpk_cli_help(FILE *f, const struct dpk_cli_command *c)
{
	fprintf(f, "usage: dpk-bench %s\n\n", c->usage);
	paragraph(f, c->about);
	fputc('\n', f);
	options_help(f, c);
	fprintf(f, "\nexit status: ");
	wrap(f, c->exit_status, 0, 13);
}

void dpk_cli_usage(FILE *f)
{
	const struct dpk_cli_command *run = &dpk_cli_commands[0];

	for (const struct dpk_cli_command *c = dpk_cli_commands; c->name; c++)
		if (!c->hidden)
			fprintf(f, "%s dpk-bench %s\n", c == run ? "usage:" : "      ", c->usage);
	fprintf(f, "\nMeasure what dpkit's building blocks cost on this machine.\n\ncommands:\n");
	for (const struct dpk_cli_command *c = dpk_cli_commands; c->name; c++) {
		int w;

		if (c->hidden)
			continue;
		w = fprintf(f, "  %-10s ", c->name);
		wrap(f, c->summary, w, w);
	}
	fputc('\n', f);
	paragraph(f, run->about);
	fputc('\n', f);
	options_help(f, run);
	fprintf(f,
	        "\nEvery command has its own --help: dpk-bench COMMAND --help.\n\nexit status: ");
	wrap(f, run->exit_status, 0, 13);
}
