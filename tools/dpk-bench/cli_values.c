/* SPDX-License-Identifier: BSD-3-Clause */
/* The values of dpk-bench's options: each entry's setter checks its value and stores it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_values.h"
#include "ab.h"
#include "compare.h"
#include "peers_rows.h"
#include "spread.h"

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

int dpk_cli_parse_duration(const char *text, double lo, double hi, double *out)
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
	if (!(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

/* A whole number from @p lo to @p hi; 0 or -EINVAL. */
static int parse_count(const char *text, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(text, &end, 10);
	if (!*text || *end || errno || n < lo || n > hi || text[0] == '-')
		return -EINVAL;
	*out = (unsigned)n;
	return 0;
}

#define FIELD(cli, o, type) ((type *)((char *)(cli) + (o)->field))

int dpk_cli_set_flag(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                     size_t errlen)
{
	(void)v;
	(void)err;
	(void)errlen;
	*FIELD(cli, o, bool) = true;
	return 0;
}

int dpk_cli_set_path(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                     size_t errlen)
{
	if (!*v) {
		snprintf(err, errlen, "%s: empty file name", o->name);
		return -EINVAL;
	}
	*FIELD(cli, o, const char *) = v;
	return 0;
}

int dpk_cli_set_text(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                     size_t errlen)
{
	(void)err;
	(void)errlen;
	*FIELD(cli, o, const char *) = v;
	return 0;
}

/* A glob added to the list at the option's field (--pattern, --exclude). */
int dpk_cli_set_glob(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                     size_t errlen)
{
	struct dpk_cli_globs *g = FIELD(cli, o, struct dpk_cli_globs);

	if (!*v) {
		snprintf(err, errlen, "%s: empty pattern", o->name);
		return -EINVAL;
	}
	if (g->n >= DPK_CLI_WORDS_MAX) {
		snprintf(err, errlen, "too many %s (at most %d)", o->name, DPK_CLI_WORDS_MAX);
		return -EINVAL;
	}
	g->v[g->n++] = v;
	return 0;
}

/* --time and --warmup: their bounds and examples, by option. */
int dpk_cli_set_duration(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v,
                         char *err, size_t errlen)
{
	static const struct {
		const char *name, *range, *example;
		double lo, hi;
	} durations[] = {
	        {"--time", "1 ms", "0.5, 500ms, 2s", DPK_CLI_TIME_MIN, DPK_CLI_TIME_MAX},
	        {"--warmup", "0 (no warm-up)", "30ms", 0, DPK_CLI_WARMUP_MAX},
	};

	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		if (strcmp(o->name, durations[i].name) != 0)
			continue;
		if (dpk_cli_parse_duration(v, durations[i].lo, durations[i].hi,
		                           FIELD(cli, o, double)) == 0)
			return 0;
		snprintf(err, errlen,
		         "%s: '%s' is not a duration from %s to %.0f s per case (e.g. %s)", o->name,
		         v, durations[i].range, durations[i].hi, durations[i].example);
		return -EINVAL;
	}
	snprintf(err, errlen, "%s: no bounds known", o->name);
	return -EINVAL;
}

int dpk_cli_set_lcores(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v,
                       char *err, size_t errlen)
{
	(void)o;
	if (!*v) {
		snprintf(err, errlen, "--lcores: empty spec");
		return -EINVAL;
	}
	cli->opt.lcores = v;
	return 0;
}

int dpk_cli_set_placement(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v,
                          char *err, size_t errlen)
{
	char buf[256], *save = NULL, *tok;
	bool on[DPK_PLACE_COUNT] = {false};

	(void)o;
	if (strlen(v) >= sizeof(buf) || !*v) {
		snprintf(err, errlen, "--placement: '%s' is not a placement list", v);
		return -EINVAL;
	}
	strcpy(buf, v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p = dpk_placement_from_name(tok);

		if (p < 0) {
			snprintf(err, errlen,
			         "--placement: unknown placement '%s' (one of single, smt, core, "
			         "llc, "
			         "numa, oversub, all)",
			         tok);
			return -EINVAL;
		}
		on[p] = true;
	}
	memcpy(cli->opt.placement_on, on, sizeof(on));
	/* Named, oversub takes every pair case, not only those that ask for it. */
	cli->opt.oversub_every = on[DPK_PLACE_OVERSUB];
	cli->placement_given = true;
	return 0;
}

/* --repeat and --rounds: a count from 1 to their most. */
int dpk_cli_set_count(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                      size_t errlen)
{
	const bool repeat = strcmp(o->name, "--repeat") == 0;
	const unsigned max = repeat ? 1000 : DPK_BENCH_ROUNDS_MAX;

	if (parse_count(v, 1, max, repeat ? &cli->opt.repeat : &cli->opt.rounds) == 0)
		return 0;
	snprintf(err, errlen, "%s: '%s' is not a count from 1 to %u", o->name, v, max);
	return -EINVAL;
}

int dpk_cli_set_sets(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                     size_t errlen)
{
	(void)o;
	if (parse_count(v, 2, DPK_SPREAD_RUNS_MAX, &cli->sets) == 0)
		return 0;
	snprintf(err, errlen, "--sets: '%s' is not a whole number of runs from 2 to %d", v,
	         DPK_SPREAD_RUNS_MAX);
	return -EINVAL;
}

/* One bound serves ab's pairs of processes and peers' processes. */
_Static_assert(DPK_PEERS_PROCESSES_MAX == DPK_AB_PROCESSES_MAX, "--processes has one bound");

int dpk_cli_set_processes(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v,
                          char *err, size_t errlen)
{
	(void)o;
	if (parse_count(v, 1, DPK_AB_PROCESSES_MAX, &cli->processes) == 0)
		return 0;
	snprintf(err, errlen, "--processes: '%s' is not a count from 1 to %d", v,
	         DPK_AB_PROCESSES_MAX);
	return -EINVAL;
}

/* The percentages: their bounds and examples, by option. */
int dpk_cli_set_pct(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                    size_t errlen)
{
	static const struct {
		const char *name, *range, *example;
		double max;
		bool max_in, zero_in; /* max itself allowed; 0 allowed */
	} pcts[] = {
	        {"--slow-limit", "from 0 to 1000", "5, 2.5%, 0 for off", 1000, true, true},
	        {"--noise", "from 0 to 100", "2 or 2.5%", 100, false, true},
	        {"--fail-above", "from 0 to 1000", "5", 1000, false, true},
	        {"--limit", "above 0 and below 1000", "5", 1000, false, false},
	        {"--run-sigma", "from 0 to 100", "0.8, 0 for none", 100, false, true},
	};
	double *out = FIELD(cli, o, double);

	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		const double max = pcts[i].max_in ? nextafter(pcts[i].max, INFINITY) : pcts[i].max;
		double x;

		if (strcmp(o->name, pcts[i].name) != 0)
			continue;
		if (dpk_cli_parse_pct(v, max, &x) == 0 && (pcts[i].zero_in || x > 0)) {
			*out = x;
			return 0;
		}
		snprintf(err, errlen, "%s: '%s' is not a percentage %s (e.g. %s)", o->name, v,
		         pcts[i].range, pcts[i].example);
		return -EINVAL;
	}
	snprintf(err, errlen, "%s: no bounds known", o->name);
	return -EINVAL;
}

int dpk_cli_set_seed(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                     size_t errlen)
{
	char *end;
	unsigned long n;

	(void)o;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*v && !*end && !errno && n > 0 && v[0] != '-') {
		cli->seed = n;
		return 0;
	}
	snprintf(err, errlen, "--seed: '%s' is not a whole number above 0", v);
	return -EINVAL;
}

int dpk_cli_set_format(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v,
                       char *err, size_t errlen)
{
	(void)o;
	if (strcmp(v, "dpkit") == 0) {
		cli->format = CLI_FORMAT_DPKIT;
	} else if (strcmp(v, "gbench") == 0) {
		cli->format = CLI_FORMAT_GBENCH;
	} else {
		snprintf(err, errlen, "--format: unknown format '%s' (dpkit or gbench)", v);
		return -EINVAL;
	}
	return 0;
}

int dpk_cli_set_unit(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                     size_t errlen)
{
	(void)o;
	const bool compare = strcmp(cli->cmd->name, "compare") == 0;
	const bool spread = strcmp(cli->cmd->name, "spread") == 0;

	if (strcmp(v, "ticks") != 0 && strcmp(v, "cycles") != 0 &&
	    (strcmp(v, "auto") != 0 || !compare) &&
	    (strcmp(v, "floor") != 0 || !(spread || compare))) {
		snprintf(err, errlen, "--unit: '%s' is not %s", v,
		         compare  ? "'auto', 'ticks', 'cycles' or 'floor'"
		         : spread ? "'ticks', 'cycles' or 'floor'"
		                  : "'ticks' or 'cycles'");
		return -EINVAL;
	}
	cli->cycles = strcmp(v, "cycles") == 0;
	cli->per_floor = strcmp(v, "floor") == 0;
	cli->unit = cli->cycles               ? DPK_CMP_UNIT_CYCLES
	            : strcmp(v, "ticks") == 0 ? DPK_CMP_UNIT_TICKS
	            : cli->per_floor          ? DPK_CMP_UNIT_FLOOR
	                                      : DPK_CMP_UNIT_AUTO;
	return 0;
}

int dpk_cli_set_to(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,
                   size_t errlen)
{
	static const struct {
		const char *name;
		enum dpk_cli_to to;
	} formats[] = {{"gbench", CLI_TO_GBENCH},
	               {"csv", CLI_TO_CSV},
	               {"markdown", CLI_TO_MARKDOWN},
	               {"md", CLI_TO_MARKDOWN},
	               {"dpkit", CLI_TO_DPKIT}};

	(void)o;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(v, formats[i].name) == 0) {
			cli->to = formats[i].to;
			return 0;
		}
	snprintf(err, errlen, "--to: unknown format '%s' (gbench, csv, markdown or dpkit)", v);
	return -EINVAL;
}
