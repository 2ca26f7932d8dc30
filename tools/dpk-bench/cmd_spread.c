/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench spread: how well several runs agree, per case (computed in spread.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "files.h"
#include "spread.h"
#include "witness.h"

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

/* Under a row with runs whose floor moved: those runs and their floors. */
static void moved_line(const struct dpk_spread *s, size_t c)
{
	const double *f = s->floor + c * s->nruns;
	const bool *moved = s->moved + c * s->nruns;
	bool out = false;

	printf("      floor moved in run");
	for (unsigned q = 0; q < s->nruns; q++)
		if (moved[q]) {
			printf(" %u (%.0f ticks)", q + 1, f[q]);
			out = !dpk_spread_counts(s, c, q);
		}
	printf(" against");
	for (unsigned q = 0; q < s->nruns; q++)
		if (!moved[q] && isfinite(f[q]))
			printf(" %.0f", f[q]);
	printf("%s\n", out ? "; left out of the spread" : "");
}

/* Case @p c's regimes over the runs, a line each: every run's median there (- where it has
 * too few rounds there; past 8 runs their range), the share of its rounds there, and the
 * spread of those medians. */
static void regime_lines(const struct dpk_spread *s, size_t c)
{
	for (unsigned k = 0; k < s->nregimes[c]; k++) {
		const size_t row = (c * DPK_SPREAD_REGIMES_MAX + k) * s->nruns;
		const double sp = s->regime_spread[c * DPK_SPREAD_REGIMES_MAX + k];
		double lo = INFINITY, hi = 0;

		printf("      regime %u: %-38s", k + 1, "");
		for (unsigned q = 0; q < s->nruns; q++) {
			const double v = s->regime_p50[row + q];

			if (s->nruns <= 8 && isfinite(v))
				printf(" %8.*f", s->per_floor ? 4 : 2, v);
			else if (s->nruns <= 8)
				printf(" %8s", "-");
			lo = isfinite(v) && v < lo ? v : lo;
			hi = isfinite(v) && v > hi ? v : hi;
		}
		if (s->nruns > 8)
			printf(" min %8.2f max %8.2f", lo, hi);
		if (isfinite(sp))
			printf("  %6.1f%%%s", sp * 100.0, sp >= s->limit ? " *" : "");
		printf("\n      %48s", "its rounds there:");
		for (unsigned q = 0; q < s->nruns && s->nruns <= 8; q++)
			printf(" %8u", s->regime_rounds[row + q]);
		printf("\n");
	}
}

/* Case @p c's row: its medians (or their range, past 8 runs; a run left out for its floor
 * marked ~), its spread, and the slices line when it is over the limit. */
static void case_row(const struct dpk_spread *s, size_t c)
{
	const double *v = s->p50 + c * s->nruns;
	const bool *slow = s->slow_only + c * s->nruns;
	double lo = INFINITY, hi = 0, sp = s->spread[c];
	bool any_slow = false;

	printf("  %-52s", s->id[c]);
	for (unsigned q = 0; q < s->nruns; q++) {
		const char mark = slow[q] ? '!' : s->moved[c * s->nruns + q] ? '~' : ' ';

		lo = v[q] < lo ? v[q] : lo;
		hi = v[q] > hi ? v[q] : hi;
		any_slow |= slow[q];
		if (s->nruns <= 8)
			printf(mark != ' ' ? " %7.*f%c" : " %8.*f", s->per_floor ? 4 : 2, v[q],
			       mark);
	}
	if (s->nruns > 8)
		printf(" min %8.2f max %8.2f%s", lo, hi, any_slow ? " !" : "");
	printf("  %6.1f%%%s\n", sp * 100.0, sp >= s->limit ? " *" : "");
	if (s->nmoved[c])
		moved_line(s, c);
	if (sp >= s->limit)
		slices_line(s->slices + c * s->nruns, s->nruns);
	regime_lines(s, c);
}

/* The speed witness's reading of each file, once. */
static void witness_readings(const struct dpk_spread *s)
{
	bool fastest = false;

	printf("speed witness, reference reading of each file (ticks):");
	for (unsigned q = 0; q < s->nruns; q++) {
		const struct dpk_results *f = s->runs[q].file;

		if (q > 0 && f == s->runs[q - 1].file)
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
}

/* The speed witness's reference reading of each file, and a warning naming the files whose
 * machine was slower than the fastest file's by more than DPK_WITNESS_LIMIT, or with
 * medians in the table that come mostly from slow samples. */
static void witness_lines(const struct dpk_spread *s)
{
	double best = INFINITY;
	bool any = false;

	for (unsigned q = 0; q < s->nruns; q++)
		if (isfinite(s->runs[q].file->witness) && s->runs[q].file->witness < best)
			best = s->runs[q].file->witness;
	if (!isfinite(best))
		return;
	witness_readings(s);
	for (unsigned q = 0; q < s->nruns; q++) {
		const struct dpk_results *f = s->runs[q].file;
		bool slower = isfinite(f->witness) && f->witness > dpk_bench_witness_limit(best);
		unsigned marked = 0;

		if (q > 0 && f == s->runs[q - 1].file)
			continue;
		for (unsigned x = q; x < s->nruns && s->runs[x].file == f; x++)
			marked += s->flagged[x];
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

/* How many sets of k runs kept every case under the limit, and the cases that broke some,
 * most first. */
static void sets_lines(const struct dpk_spread *s, struct dpk_spread_sets *sets)
{
	printf("sets of %u runs: every case under %.3g%% in %zu of %zu (%.0f%%)\n", sets->k,
	       s->limit * 100.0, sets->good, sets->total,
	       100.0 * (double)sets->good / (double)sets->total);
	for (unsigned shown = 0; shown < 8; shown++) {
		size_t best = 0, at = 0;

		for (size_t c = 0; c < s->ncases; c++)
			if (sets->miss[c] > best) {
				best = sets->miss[c];
				at = c;
			}
		if (!best)
			break;
		printf("  %-52s at or over it in %zu of the sets\n", s->id[at], best);
		sets->miss[at] = 0;
	}
}

static void print_spread(const struct dpk_spread *s, struct dpk_spread_sets *sets)
{
	printf("%u runs; per case the median of each run (%s), then the spread\n", s->nruns,
	       s->cycles      ? "core cycles per unit"
	       : s->per_floor ? "per unit over the case's own floor"
	                      : "ticks per unit");
	for (size_t c = 0; c < s->ncases; c++)
		case_row(s, c);
	printf("\n%zu cases in %u runs: median spread %.1f%%, largest %.1f%% (%s); %zu under "
	       "%.3g%%, %zu at or over it\n",
	       s->ncases, s->nruns, 100.0 * s->median, 100.0 * s->spread[s->worst], s->id[s->worst],
	       s->ncases - s->over, s->limit * 100.0, s->over);
	if (s->with_moved)
		printf("%zu cases ran in some runs where the host had moved their lcores (their "
		       "floor off the runs' median beyond noise: by over %.0f%%, or over %.0f%% "
		       "with its rounds' floors\nsaying so), named under them%s\n",
		       s->with_moved, DPK_CMP_FLOOR_MOVED * 100, DPK_STATS_FLOOR_STEP * 100,
		       s->per_floor || s->cycles ? "" : "; in ticks those runs are left out");
	if (s->with_regimes)
		printf("%zu cases' rounds fell into regimes over the runs (listed under them, each "
		       "run's median of its rounds there): every regime under %.3g%% in %zu of "
		       "them\n",
		       s->with_regimes, s->limit * 100.0, s->with_regimes - s->regimes_over);
	if (s->partial)
		printf("%zu more cases did not run ok%s in every run and are left out\n",
		       s->partial,
		       s->cycles ? ", or have no figures in cycles (multi-lcore cases never do),"
		       : s->per_floor
		               ? ", or have no floor of their own (one-lcore cases never do),"
		               : "");
	if (sets->k)
		sets_lines(s, sets);
	witness_lines(s);
}

/* With --sets: every set of that many runs, or a message. 0 or 2. */
static int take_sets(const struct dpk_cli *cli, const struct dpk_spread *s,
                     struct dpk_spread_sets *sets)
{
	int rc = cli->sets ? dpk_spread_sets(s, cli->sets, sets) : 0;

	if (rc == -EINVAL)
		return dpk_cli_fail(cli, "--sets %u: only %u runs given", cli->sets, s->nruns);
	if (rc == -E2BIG)
		return dpk_cli_fail(cli, "--sets %u: %u runs make %.0f sets of %u, more than %.0f",
		                    cli->sets, s->nruns, dpk_spread_choose(s->nruns, cli->sets),
		                    cli->sets, DPK_SPREAD_SETS_MAX);
	return rc ? dpk_cli_fail(cli, "out of memory") : 0;
}

int dpk_cmd_spread(struct dpk_cli *cli)
{
	struct dpk_results *files = calloc(cli->nwords, sizeof(*files));
	const struct dpk_spread_options o = {
	        .limit = cli->limit,
	        .cycles = cli->cycles,
	        .per_floor = cli->per_floor,
	        .patterns = cli->patterns.v,
	        .npatterns = cli->patterns.n,
	};
	struct dpk_spread_sets sets = {0};
	struct dpk_spread s = {0};
	char err[512];
	int rc;

	if (!files)
		return dpk_cli_fail(cli, "out of memory");
	if ((rc = dpk_files_load(cli, files))) {
		free(files);
		return rc;
	}
	if (dpk_spread_compute(files, cli->nwords, &o, &s, err, sizeof(err)))
		rc = dpk_cli_fail(cli, "%s", err);
	else if ((rc = take_sets(cli, &s, &sets)) == 0)
		print_spread(&s, &sets);
	/* Over all the runs, whatever the sets found. */
	if (rc == 0)
		rc = s.over ? 1 : 0;
	free(sets.miss);
	dpk_spread_free(&s);
	dpk_files_free(files, cli->nwords);
	free(files);
	return rc;
}
