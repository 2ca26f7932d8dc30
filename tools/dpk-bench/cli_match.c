/* SPDX-License-Identifier: BSD-3-Clause */
/* Patterns over the program's suites, and the suggestions for words that select nothing. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

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

bool dpk_cli_pattern_matches(const char *pattern, const struct dpk_bench_suite *s,
                             const struct dpk_bench_case *c)
{
	char full[160];

	if (fnmatch(pattern, s->name, 0) == 0)
		return true;
	snprintf(full, sizeof(full), "%s/%s", s->name, c->name);
	return fnmatch(pattern, full, 0) == 0;
}

bool dpk_cli_excluded(const struct dpk_cli *cli, const struct dpk_bench_suite *s,
                      const struct dpk_bench_case *c)
{
	for (unsigned i = 0; i < cli->excludes.n; i++)
		if (dpk_cli_pattern_matches(cli->excludes.v[i], s, c))
			return true;
	return false;
}

bool dpk_cli_select(void *cli, const struct dpk_bench_suite *s, const struct dpk_bench_case *c)
{
	return dpk_cli_selected(cli, s, c);
}

bool dpk_cli_selected(const struct dpk_cli *cli, const struct dpk_bench_suite *s,
                      const struct dpk_bench_case *c)
{
	bool in = cli->nwords == 0 ? s->default_on : false;

	for (unsigned i = 0; i < cli->nwords && !in; i++)
		in = dpk_cli_pattern_matches(cli->words[i], s, c);
	return in && !dpk_cli_excluded(cli, s, c);
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
	const char *names[32];
	unsigned n = 0;

	if (strpbrk(word, "/*?["))
		return NULL;
	for (const struct dpk_cli_command *c = dpk_cli_commands; c->name && n < 31; c++)
		names[n++] = c->name;
	names[n] = NULL;
	return dpk_cli_nearest(word, names, name_d < 3 ? name_d : 3);
}

/* Keep @p name in @p best (of @p len bytes) when it is nearer @p p than *bd. */
static void nearer(const char *p, const char *name, const char *as, char *best, size_t len,
                   unsigned *bd)
{
	unsigned d = dpk_cli_distance(p, name);

	if (d < *bd) {
		*bd = d;
		snprintf(best, len, "%s", as);
	}
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
		nearer(p, s->name, s->name, best, len, &bd);
		for (unsigned j = 0; j < s->ncases; j++) {
			char full[160];

			if (dpk_cli_pattern_matches(p, s, &s->cases[j]))
				return true;
			snprintf(full, sizeof(full), "%s/%s", s->name, s->cases[j].name);
			nearer(p, full, full, best, len, &bd);
			nearer(p, s->cases[j].name, full, best, len, &bd);
		}
	}
	*dist = bd;
	return false;
}

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

bool dpk_cli_command_slip(const struct dpk_bench_suite *const *suites, const char *word, char *err,
                          size_t errlen)
{
	char best[160];
	unsigned bd;

	return !pattern_hits(suites, word, best, sizeof(best), &bd) &&
	       slip_of_command(word, bd, err, errlen);
}

/* "no case matches 'X' (did you mean 'Y'?)" for pattern @p p, whose nearest name @p best
 * lies @p bd edits away; @p what is how the message names it. */
static void no_match(const char *what, const char *p, const char *best, unsigned bd, char *err,
                     size_t errlen)
{
	/* Near enough to be the same word mistyped: one slip, and one more per three letters
	 * ('xyz' is four from 'ring', and no slip of it). */
	if (best[0] && bd <= 1 + strlen(p) / 3)
		snprintf(err, errlen, "%s (did you mean '%s'?)", what, best);
	else
		snprintf(err, errlen, "%s (see 'dpk-bench list')", what);
}

int dpk_cli_check_patterns(const struct dpk_cli *cli, char *err, size_t errlen)
{
	char best[160], what[200];
	unsigned bd;

	for (unsigned i = 0; i < cli->nwords; i++) {
		const char *p = cli->words[i];

		if (pattern_hits(cli->suites, p, best, sizeof(best), &bd))
			continue;
		if (i == 0 && cli->first_is_pattern && slip_of_command(p, bd, err, errlen))
			return -EINVAL;
		snprintf(what, sizeof(what), "no case matches '%s'", p);
		no_match(what, p, best, bd, err, errlen);
		return -EINVAL;
	}
	for (unsigned i = 0; i < cli->excludes.n; i++) {
		const char *p = cli->excludes.v[i];

		if (pattern_hits(cli->suites, p, best, sizeof(best), &bd))
			continue;
		snprintf(what, sizeof(what), "--exclude '%s' matches no case", p);
		no_match(what, p, best, bd, err, errlen);
		return -EINVAL;
	}
	return 0;
}
