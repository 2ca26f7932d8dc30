/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text table dpk-bench prints, on made-up results: what a row says about its
 * rejected samples, columns that stay in line whatever the length of a case's label or an
 * environment item's, a narrow table within 160 columns, and the floor across a run. Nothing runs;
 * the figures are whatever the results are given.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_test.h"
#include "report.h"
#include "engine.h"

static const struct dpk_bench_case c_short = {
        .name = "spsc_single",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_ELEMENT,
        .params = {{"esize", 8}},
};

/* A label of 46 characters, past the case column's 36. */
static const struct dpk_bench_case c_long = {
        .name = "app_iter_stats_1in128_longer",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_CALL,
        .params = {{"mt_safe", 1}, {"work", 64}},
};

static const struct dpk_bench_suite suite = {
        .name = "table",
        .desc = "made-up results",
        .cases = &c_short,
        .ncases = 1,
};

static const struct dpk_bench_clock clk = {.hz = 2000000000};

/* An ok result of @p c: @p kept samples of @p samples kept, the figures arbitrary. */
static struct dpk_bench_result result_of(const struct dpk_bench_case *c, size_t samples,
                                         size_t kept)
{
	struct dpk_bench_result r = {
	        .suite = &suite,
	        .c = c,
	        .placement = DPK_PLACE_SINGLE,
	        .status = DPK_RESULT_OK,
	        .nroles = 1,
	        .samples = samples,
	        .ticks = {.min = 7.6, .p50 = 8.0, .p90 = 8.4, .p99 = 9.6, .max = 108.3, .cv = 0.33},
	        .mops = 304.1,
	};

	r.reject[DPK_REJECT_NONE] = kept;
	return r;
}

/* The row dpk_report_row() prints for @p res in the wide layout or the narrow one; the
 * caller frees it. */
static char *row_in(const struct dpk_bench_result *res, bool wide)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct dpk_report_layout t = {dpk_report_case_width(res->c, 0), wide};

	if (!f)
		return NULL;
	dpk_report_row(f, res, &clk, &t);
	fclose(f);
	return buf;
}

/* The wide row printed for @p res ends with @p tail (its column of samples, say). */
static void expect_row_ends(const struct dpk_bench_result *res, const char *tail)
{
	char *row = row_in(res, true);
	size_t n, t = strlen(tail);

	ASSERT_NOT_NULL(row);
	n = strlen(row);
	EXPECT_STREQ(tail, n >= t ? row + n - t : row);
	free(row);
}

/* The samples column: the kept count, then the rejected ones by reason, only the reasons
 * that took any, in the order the rules run and under the JSON and CSV names. */
static void rejected_samples_are_listed_by_reason(void)
{
	struct dpk_bench_result r = result_of(&c_short, 1000, 1000);

	expect_row_ends(&r, "  1000\n");

	r = result_of(&c_short, 992, 974);
	r.reject[DPK_REJECT_CTX_SWITCH] = 18;
	expect_row_ends(&r, "  974 (18 rejected: 18 ctx_switch)\n");

	r = result_of(&c_short, 31000, 11956);
	r.reject[DPK_REJECT_GAP] = 181;
	r.reject[DPK_REJECT_SLOW] = 18863;
	expect_row_ends(&r, "  11956 (19044 rejected: 181 gap, 18863 slow)\n");

	r = result_of(&c_short, 110, 100);
	r.reject[DPK_REJECT_MIGRATION] = 1;
	r.reject[DPK_REJECT_CTX_SWITCH] = 2;
	r.reject[DPK_REJECT_GAP] = 3;
	r.reject[DPK_REJECT_SLOW] = 4;
	expect_row_ends(&r, "  100 (10 rejected: 1 migration, 2 ctx_switch, 3 gap, 4 slow)\n");

	/* The names are the JSON's and the CSV's. */
	EXPECT_STREQ("migration", dpk_reject_name(DPK_REJECT_MIGRATION));
	EXPECT_STREQ("ctx_switch", dpk_reject_name(DPK_REJECT_CTX_SWITCH));
	EXPECT_STREQ("gap", dpk_reject_name(DPK_REJECT_GAP));
	EXPECT_STREQ("slow", dpk_reject_name(DPK_REJECT_SLOW));
}

/* A result that kept its slow samples says so after the list. */
static void kept_slow_mark_follows_the_list(void)
{
	struct dpk_bench_result r = result_of(&c_short, 6121, 5235);

	r.reject[DPK_REJECT_GAP] = 11;
	r.reject[DPK_REJECT_SLOW] = 875;
	r.witness_kept_slow = true;
	expect_row_ends(&r, "  5235 (886 rejected: 11 gap, 875 slow) [too few samples at full "
	                    "speed]\n");

	r = result_of(&c_short, 40, 40);
	r.witness_kept_slow = true;
	expect_row_ends(&r, "  40 [too few samples at full speed]\n");
}

/* Where the column holding @p word starts in @p line: the first place @p word stands
 * between spaces (a placement's name may be inside a case's, "single" in "spsc_single"),
 * -1 if it does not. */
static long column_of(const char *line, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p == line || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return p - line;
	return -1;
}

/* A suite's header and rows, the case column sized over @p res: the column each of them
 * starts its placement, unit and samples in is the header's. */
static void expect_rows_in_line(const struct dpk_bench_result *res, unsigned n, long case_width,
                                bool wide)
{
	char *buf = NULL, *line, *rest;
	size_t len = 0;
	long place = -1, unit = -1, samples = -1;
	unsigned rows = 0;
	int width = 0;
	FILE *f;

	for (unsigned i = 0; i < n; i++)
		width = dpk_report_case_width(res[i].c, width);
	EXPECT_EQ(case_width, width);
	f = open_memstream(&buf, &len);
	ASSERT_NOT_NULL(f);
	const struct dpk_report_layout t = {width, wide};

	dpk_report_suite_header(f, &suite, &clk, &t);
	for (unsigned i = 0; i < n; i++)
		dpk_report_row(f, &res[i], &clk, &t);
	fclose(f);
	for (rest = buf; (line = strsep(&rest, "\n"));) {
		if (strncmp(line, "  case ", 7) == 0) {
			place = column_of(line, "place");
			unit = column_of(line, "unit");
			samples = column_of(line, "samples");
			/* Two spaces, the case column, one space. */
			EXPECT_EQ(2 + case_width + 1, place);
			continue;
		}
		if (place < 0 || !*line)
			continue;
		const struct dpk_bench_result *r = &res[rows++];
		char kept[32];
		long at;

		EXPECT_EQ(place, column_of(line, dpk_placement_name(r->placement)));
		EXPECT_EQ(unit, column_of(line, dpk_bench_unit_name(r->c->unit)));
		if (r->status != DPK_RESULT_OK)
			continue;
		/* The kept count follows the row's last two spaces. */
		for (at = (long)strlen(line) - 2; at > 0 && strncmp(line + at, "  ", 2); at--)
			;
		snprintf(kept, sizeof(kept), "%zu", r->reject[DPK_REJECT_NONE]);
		EXPECT_EQ(samples, at + 2);
		EXPECT_EQ(samples, column_of(line, kept));
	}
	EXPECT_EQ_U(n, rows);
	free(buf);
}

/* Labels within the case column leave it at 36; a longer one widens it for the header and
 * every row of the group, ok or not, so no row's figures stand out of line. */
static void long_case_label_widens_the_column(void)
{
	struct dpk_bench_result res[4] = {
	        result_of(&c_short, 1000, 1000),
	        result_of(&c_long, 992, 974),
	        result_of(&c_short, 1000, 993),
	        result_of(&c_long, 0, 0),
	};

	res[1].reject[DPK_REJECT_CTX_SWITCH] = 18;
	res[2].reject[DPK_REJECT_SLOW] = 7;
	res[3].status = DPK_RESULT_FAILED;
	snprintf(res[3].reason, sizeof(res[3].reason), "the ring lost an element");
	ASSERT_EQ(46, (long)strlen("app_iter_stats_1in128_longer mt_safe=1 work=64"));
	expect_rows_in_line(res, 4, 46, true);
	expect_rows_in_line(res, 4, 46, false);
	res[1] = result_of(&c_short, 1000, 998);
	res[3].c = &c_short;
	expect_rows_in_line(res, 4, 36, true);
	expect_rows_in_line(res, 4, 36, false);
}

/* An environment label past 24 characters moves the verdicts and the clock's figures
 * along with it: all start in one column. */
static void long_env_label_widens_the_column(void)
{
	struct dpk_env env = {.count = 3};
	struct dpk_bench_clock k = {.hz = 2000000000, .source = "calibrated", .mul_cycles = NAN};
	const char *label[3] = {"CPU model", "Address space randomisation", "Load average"};
	size_t col = 2 + strlen(label[1]) + 1;
	char *buf = NULL, *line, *rest;
	size_t len = 0;
	unsigned lines = 0;
	FILE *f;

	for (unsigned i = 0; i < 3; i++) {
		snprintf(env.item[i].label, sizeof(env.item[i].label), "%s", label[i]);
		snprintf(env.item[i].value, sizeof(env.item[i].value), "v%u", i);
		env.item[i].verdict = DPK_VERDICT_INFO;
	}
	f = open_memstream(&buf, &len);
	ASSERT_NOT_NULL(f);
	dpk_report_env(f, &env, &k);
	fclose(f);
	/* Each line under "environment" and "clock": two spaces, the label padded to the
	 * longest's length, one space, then the verdict or the figure. */
	for (rest = buf; (line = strsep(&rest, "\n"));) {
		if (strncmp(line, "  ", 2) != 0)
			continue;
		ASSERT_GT(strlen(line), col);
		if (line[col - 1] != ' ' || line[col] == ' ')
			dpk_test_fail(__FILE__, __LINE__, "not in column %zu: '%s'", col, line);
		lines++;
	}
	EXPECT_EQ_U(3 + 6, lines); /* the items, the clock's six lines */
	free(buf);
}

/* The clock's "counter resolution" line for counter @p k, from the env report's clock block. */
static void step_line(const struct dpk_bench_clock *k, char *out, size_t outlen)
{
	struct dpk_env env = {.count = 0};
	char *buf = NULL, *line, *rest;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NOT_NULL(f);
	dpk_report_env(f, &env, k);
	fclose(f);
	out[0] = '\0';
	for (rest = buf; (line = strsep(&rest, "\n"));)
		if (strstr(line, "counter resolution"))
			snprintf(out, outlen, "%s", line);
	free(buf);
}

/* The resolution shown is the one the sample length answers to: the GCD of the changes
 * between reads, or the smallest change when that is larger (a guest's scaled counter). */
static void counter_step_is_the_coarser_bound(void)
{
	struct dpk_bench_clock k = {.hz = 2000000000, .source = "calibrated", .mul_cycles = NAN};
	char line[256];

	k.granularity = 1;
	k.min_delta = 24;
	step_line(&k, line, sizeof(line));
	EXPECT_TRUE(strstr(line, " 24 ticks (the smallest change between back-to-back reads; "
	                         "the changes' GCD is 1)") != NULL);
	k.granularity = 26;
	k.min_delta = 26;
	step_line(&k, line, sizeof(line));
	EXPECT_TRUE(strstr(line, " 26 ticks (every change between two reads a multiple of it)") !=
	            NULL);
	k.bumps = 4977; /* reads the counter moved by one tick are said to be left out */
	step_line(&k, line, sizeof(line));
	EXPECT_TRUE(strstr(line,
	                   " 26 ticks (every change between two reads a multiple of it; "
	                   "4977 reads moved under a quarter of the median change, left out)") !=
	            NULL);
	k.bumps = 0;
	k.granularity = 1;
	k.min_delta = 1;
	step_line(&k, line, sizeof(line));
	EXPECT_TRUE(strstr(line, " 1 ticks (every change") != NULL);
}

/* The longest form of the resolution line (a smallest change above the GCD, and bumps left
 * out) folds within DPK_REPORT_COLUMNS, its whole text kept. */
static void counter_step_line_folds(void)
{
	struct dpk_bench_clock k = {.hz = 2000000000, .source = "calibrated", .mul_cycles = NAN};
	struct dpk_env env = {.count = 0};
	char *buf = NULL, *line, *rest, *joined;
	size_t len = 0, j = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NOT_NULL(f);
	k.granularity = 1;
	k.min_delta = 22;
	k.bumps = 7;
	dpk_report_env(f, &env, &k);
	fclose(f);
	joined = malloc(len + 1);
	ASSERT_NOT_NULL(joined);
	/* The text with each run of white space (a fold and its indent) as one space. */
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)buf[i]) || (j && joined[j - 1] != ' '))
			joined[j++] = isspace((unsigned char)buf[i]) ? ' ' : buf[i];
	joined[j] = '\0';
	EXPECT_TRUE(strstr(joined, "counter resolution 22 ticks (the smallest change between "
	                           "back-to-back reads; the changes' GCD is 1; 7 reads moved under "
	                           "a quarter of the median change, left out)") != NULL);
	for (rest = buf; (line = strsep(&rest, "\n"));)
		EXPECT_TRUE(strlen(line) <= DPK_REPORT_COLUMNS);
	free(joined);
	free(buf);
}

static const struct dpk_bench_case c_pair = {.name = "spsc_pair_bulk",
                                             .kind = DPK_BENCH_PAIR,
                                             .unit = DPK_UNIT_ELEMENT,
                                             .params = {{"esize", 8}, {"n", 1}}};
static const struct dpk_bench_suite s_ring = {.name = "ring", .cases = &c_pair, .ncases = 1};

/* An ok two-lcore result of @p c in @p s on @p p in repeat @p rep, median @p p50. */
static struct dpk_bench_result pair_result(const struct dpk_bench_suite *s,
                                           const struct dpk_bench_case *c, enum dpk_placement p,
                                           unsigned rep, double p50)
{
	struct dpk_bench_result r = result_of(c, 100, 100);

	r.suite = s;
	r.placement = p;
	r.repeat = rep;
	r.nroles = 2;
	r.ticks.p50 = p50;
	return r;
}

/* A pair row reads against its own floor: the ratio, the round trip and its range, and
 * the rounds set aside when it moved; a result with no floor has no floor line. */
static void pair_results_meet_their_floor(void)
{
	struct dpk_bench_result r = pair_result(&s_ring, &c_pair, DPK_PLACE_CORE, 0, 50.0);
	char *row;

	r.floor_rt = 200.0;
	r.floor_ref = 195.0;
	r.floor_min = 190.0;
	r.floor_max = 798.0;
	r.per_floor.p50 = 0.25;
	r.nrounds = 40;
	r.rounds_set_aside = 2;
	row = row_in(&r, true);
	EXPECT_TRUE(strstr(row, "      floor      per element: x0.25 a cache-line round trip on "
	                        "these lcores (p50 200.0 ticks, 190.0-798.0; 2 of 40 rounds set "
	                        "aside, their floor over +50% of 195.0)\n") != NULL);
	free(row);
	/* With its rounds at hand, the row says which were set aside and at what floor. */
	struct dpk_bench_round rounds[40];
	for (unsigned q = 0; q < 40; q++)
		rounds[q] = (struct dpk_bench_round){.p50 = 50.0, .floor = 200.0, .kept = 10};
	rounds[11] = (struct dpk_bench_round){.floor = 790.0, .set_aside = true};
	rounds[12] = (struct dpk_bench_round){.floor = 798.0, .set_aside = true};
	r.rounds = rounds;
	row = row_in(&r, true);
	EXPECT_TRUE(strstr(row, "of 195.0: rounds 12, 13 at 790-798)\n") != NULL);
	free(row);
	r.rounds = NULL;
	r.rounds_set_aside = 0;
	r.floor_max = 210.0;
	row = row_in(&r, true);
	EXPECT_TRUE(strstr(row, "(p50 200.0 ticks, 190.0-210.0 over 40 rounds)\n") != NULL);
	free(row);
	r.floor_rt = 0;
	row = row_in(&r, true);
	EXPECT_TRUE(strstr(row, "floor") == NULL);
	free(row);
}

/* What dpk_report_floors() prints for @p res (n results); the caller frees it. */
static char *floors_of(const struct dpk_bench_result *res, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	dpk_report_floors(f, res, n);
	fclose(f);
	/* Unfolded: a continuation's newline and indent back to one space. */
	for (char *p = buf; (p = strstr(p, "\n  ")) != NULL;) {
		*p = ' ';
		memmove(p + 1, p + 3, strlen(p + 3) + 1);
	}
	return buf;
}

/* Two suites of pair cases, each case its own, for the floor across a run. */
static const struct dpk_bench_case c_fl[8] = {
        {.name = "a0", .kind = DPK_BENCH_PAIR}, {.name = "a1", .kind = DPK_BENCH_PAIR},
        {.name = "a2", .kind = DPK_BENCH_PAIR}, {.name = "a3", .kind = DPK_BENCH_PAIR},
        {.name = "b0", .kind = DPK_BENCH_PAIR}, {.name = "b1", .kind = DPK_BENCH_PAIR},
        {.name = "b2", .kind = DPK_BENCH_PAIR}, {.name = "b3", .kind = DPK_BENCH_PAIR},
};
static const struct dpk_bench_suite s_a = {.name = "sa"}, s_b = {.name = "sb"};

/* The floor across a run, per pair of CPUs (either order): its range; where two stretches
 * of cases on either side of a cut between sets lie apart, the move and the first case
 * after it; a cut inside a set (whose cases ran together) never; nothing for a lone case. */
static void floors_across_the_run(void)
{
	static const double steady[7] = {171, 172, 171.5, 173, 172, 171, 172.5};
	static const double moved[7] = {171, 172, 171.5, 170.5, 178, 179, 178.5};
	struct dpk_bench_result r[8];
	char *out;

	for (unsigned i = 0; i < 8; i++) {
		r[i] = pair_result(i < 4 ? &s_a : &s_b, &c_fl[i], DPK_PLACE_CORE, 0, 5.0);
		r[i].role[0].cpu = i == 5 ? 1 : 0; /* the same pair, the roles the other way */
		r[i].role[1].cpu = i == 5 ? 0 : 1;
		r[i].floor_rt = i < 7 ? steady[i] : 172;
	}
	r[7].role[1].cpu = 2; /* another pair, alone on it */
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_STREQ("floor on cpus 0 and 1: 171.0-173.0 ticks over 7 cases; no move between its "
	             "sets of cases\n",
	             out);
	free(out);
	for (unsigned i = 0; i < 7; i++)
		r[i].floor_rt = moved[i];
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_TRUE(strstr(out, "floor on cpus 0 and 1: moved during the run, 170.5-172.0 ticks "
	                        "over the first 4 cases, 178.0-179.0 over the last 3 (from sb/b0 "
	                        "on): the host moved the two vCPUs") != NULL);
	free(out);
	/* No floor: not counted, and the cut falls after the three left. */
	r[2].floor_rt = 0;
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_TRUE(
	        strstr(out, "over the first 3 cases, 178.0-179.0 over the last 3 (from sb/b0") !=
	        NULL);
	free(out);
	r[2].floor_rt = 171.5;
	/* All in one set: the cases ran together, and no cut is tried. */
	for (unsigned i = 4; i < 7; i++)
		r[i].suite = &s_a;
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_STREQ("floor on cpus 0 and 1: 170.5-179.0 ticks over 7 cases\n", out);
	free(out);
	for (unsigned i = 4; i < 7; i++)
		r[i].suite = &s_b;
	/* The ranges meet: no move, whatever the medians. */
	r[1].floor_rt = 178.5;
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_TRUE(strstr(out, "170.5-179.0 ticks over 7 cases; no move") != NULL);
	free(out);
	/* The ranges apart, the medians within 2%: no move either. */
	for (unsigned i = 0; i < 7; i++)
		r[i].floor_rt = i < 4 ? 171.0 + 0.1 * i : 172.0 + 0.1 * i;
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_TRUE(strstr(out, "171.0-172.6 ticks over 7 cases; no move") != NULL);
	free(out);
	/* Rounds set aside for their floor: counted, and from a tenth of them on the line says
	 * the host moved the vCPUs within the sets, whatever the cases' floors say. */
	for (unsigned i = 0; i < 7; i++) {
		r[i].floor_rt = steady[i];
		r[i].floor_min = 160;
		r[i].floor_max = 190;
		r[i].nrounds = 40;
	}
	r[3].floor_min = 73;
	r[5].floor_max = 843;
	r[5].rounds_set_aside = 4;
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_TRUE(strstr(out, "over 7 cases; no move between its sets of cases, 4 of 280 rounds "
	                        "set aside for their floor\n") != NULL);
	free(out);
	r[4].rounds_set_aside = 24;
	ASSERT_NOT_NULL(out = floors_of(r, 8));
	EXPECT_TRUE(strstr(out, "171.0-173.0 ticks over 7 cases; 28 of 280 rounds set aside for") !=
	            NULL);
	EXPECT_TRUE(strstr(out, "their floor, which ran 73-843 ticks: the host moved the two") !=
	            NULL);
	EXPECT_TRUE(strstr(out, "no move") == NULL);
	free(out);
	ASSERT_NOT_NULL(out = floors_of(r, 1));
	EXPECT_STREQ("", out);
	free(out);
}

/* Rounds that fell into clusters apart are listed as regimes under the row. */
static void regimes_are_listed(void)
{
	struct dpk_bench_result r = pair_result(&s_ring, &c_pair, DPK_PLACE_CORE, 0, 12.0);
	char *row;

	r.nclusters = 2;
	r.cluster[0] = (struct dpk_bench_cluster){.p50 = 3.0, .per_floor = 0.018, .rounds = 14};
	r.cluster[1] = (struct dpk_bench_cluster){
	        .p50 = 12.1, .per_floor = 0.071, .rounds = 26, .first = 1};
	row = row_in(&r, true);
	EXPECT_TRUE(strstr(row, "      regimes    2 apart: 3.0 ticks (x0.018 the floor) in 14 "
	                        "rounds from round 1, 12.1 ticks (x0.071 the floor) in 26 rounds "
	                        "from round 2\n") != NULL);
	free(row);
	r.nclusters = 0;
	row = row_in(&r, true);
	EXPECT_TRUE(strstr(row, "regimes") == NULL);
	free(row);
}

static void role_lines_stay_in_line(void)
{
	struct dpk_bench_result r = pair_result(&s_ring, &c_pair, DPK_PLACE_CORE, 0, 50.0);
	char *row, *line, *rest;
	long col = -1;
	unsigned lines = 0;

	r.role[0].name = "distributor";
	r.role[1].name = "worker";
	r.floor_rt = 100.0;
	r.per_floor.p50 = 0.5;
	row = row_in(&r, true);
	ASSERT_NOT_NULL(row);
	for (rest = row; (line = strsep(&rest, "\n"));) {
		const char *at = strstr(line, " lcore ");

		if (strncmp(line, "      ", 6) != 0)
			continue;
		lines++;
		if (!at) /* the floor line: its figure starts where the roles' "lcore" does */
			at = strstr(line, " per element: x0.5 ");
		ASSERT_NOT_NULL(at);
		if (col < 0)
			col = at - line;
		EXPECT_EQ(col, at - line);
	}
	EXPECT_EQ_U(3, lines);
	free(row);
}

/* Each line of @p text is at most @p cols columns; the count of lines. */
static unsigned expect_lines_within(const char *text, long cols)
{
	unsigned lines = 0;

	for (const char *l = text; *l; lines++) {
		const char *nl = strchr(l, '\n');
		long n = nl ? nl - l : (long)strlen(l);

		EXPECT_TRUE(n <= cols);
		if (n > cols)
			fprintf(stderr, "# %ld columns: %.*s\n", n, (int)n, l);
		l += n + (nl != NULL);
	}
	return lines;
}

/* The narrow table fits 160 columns with a 44-character label, every rejection reason,
 * a floor that moved, regimes and the speed witness's mark; the wide one keeps min, max
 * and the reasons on one row. */
static void narrow_rows_fit_the_columns(void)
{
	static const struct dpk_bench_case c_pair_long = {
	        .name = "app_iter_two_lcores_longer",
	        .kind = DPK_BENCH_PAIR,
	        .unit = DPK_UNIT_CALL,
	        .params = {{"mt_safe", 1}, {"work", 64}},
	};
	struct dpk_bench_result r = pair_result(&s_ring, &c_pair_long, DPK_PLACE_CORE, 0, 123456.7);
	struct dpk_bench_round rounds[40];
	char *row;

	for (unsigned q = 0; q < 40; q++)
		rounds[q] = (struct dpk_bench_round){.p50 = 50.0, .floor = 200.0, .kept = 10};
	for (unsigned q = 10; q < 20; q++)
		rounds[q] = (struct dpk_bench_round){.floor = 790.0 + q, .set_aside = true};
	r.samples = 2567899;
	r.reject[DPK_REJECT_NONE] = 1234567;
	for (unsigned q = DPK_REJECT_NONE + 1; q < DPK_REJECT_COUNT; q++)
		r.reject[q] = 222222;
	r.mops = 1234.5;
	r.cycles = (struct dpk_summary){.n = 5, .p50 = 234567.8};
	r.witness_kept_slow = true;
	r.floor_rt = 200.0, r.floor_ref = 195.0, r.floor_min = 190.0, r.floor_max = 809.0;
	r.per_floor.p50 = 0.25, r.nrounds = 40, r.rounds_set_aside = 10, r.rounds = rounds;
	r.nclusters = 3;
	for (unsigned c = 0; c < 3; c++)
		r.cluster[c] = (struct dpk_bench_cluster){
		        .p50 = 123456.7, .per_floor = 0.0712, .rounds = 12, .first = 27};
	row = row_in(&r, false);
	ASSERT_NOT_NULL(row);
	EXPECT_TRUE(expect_lines_within(row, 160) >= 6);
	EXPECT_TRUE(strstr(row, "  1234567 of 2567899\n") != NULL);
	EXPECT_TRUE(strstr(row, "      witness    too few samples at full speed") != NULL);
	EXPECT_TRUE(strstr(row, "gap") == NULL && strstr(row, "108.3") == NULL);
	free(row);
	row = row_in(&r, true);
	ASSERT_NOT_NULL(row);
	EXPECT_TRUE(strstr(row, " 7.6 ") != NULL && strstr(row, " 108.3 ") != NULL);
	EXPECT_TRUE(strstr(row, "  1234567 (1333332 rejected: 222222 migration, 222222 ctx_switch, "
	                        "222222 gap, 222222 slow, 222222 floor, 222222 alone) [too few "
	                        "samples at full speed]\n") != NULL);
	EXPECT_TRUE(strstr(row, "rounds 11, 12, 13, 14 and 6 more at 800-809)\n") != NULL);
	free(row);
}

/* A row timed with both roles on one CPU says that the scheduler is in its figures. */
static void oversub_rows_name_the_scheduler(void)
{
	struct dpk_bench_result r = pair_result(&s_ring, &c_pair, DPK_PLACE_OVERSUB, 0, 2.08e7);
	char *row;

	r.role[0].cpu = r.role[1].cpu = 3;
	row = row_in(&r, false);
	ASSERT_NOT_NULL(row);
	EXPECT_TRUE(strstr(row, "      scheduler  the roles share cpu 3: the figures time the "
	                        "scheduler's hand-offs") != NULL);
	free(row);
	r.placement = DPK_PLACE_CORE;
	row = row_in(&r, false);
	ASSERT_NOT_NULL(row);
	EXPECT_TRUE(strstr(row, "scheduler") == NULL);
	free(row);
}

/* Folding breaks at spaces within the columns, indents what follows, loses no word and
 * prints a word longer than the line whole. */
static void prose_folds_at_spaces(void)
{
	char *buf = NULL, word[200], text[1200] = "", back[1400] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NOT_NULL(f);
	for (unsigned i = 0; i < 120; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%sw%u", i ? " " : "",
		         i * 37);
	memset(word, 'x', sizeof(word) - 1);
	word[sizeof(word) - 1] = 0;
	dpk_report_fold(f, 40, 4, "  %s", text);
	dpk_report_fold(f, 40, 4, "%s tail", word);
	dpk_report_fold(f, 0, 4, "%s", text);
	fclose(f);
	ASSERT_NOT_NULL(buf);
	unsigned n = 0;
	for (char *rest = buf, *line; (line = strsep(&rest, "\n")) && *line; n++) {
		if (strlen(line) == strlen(text)) { /* cols 0: the line as given */
			EXPECT_STREQ(text, line);
			continue;
		}
		if (line[0] == 'x') {
			EXPECT_EQ((long)sizeof(word) - 1, (long)strlen(line));
			continue;
		}
		if (strcmp(line, "    tail") == 0)
			continue;
		EXPECT_TRUE(strlen(line) <= 40);
		EXPECT_TRUE(strncmp(line, n ? "    w" : "  w0 ", 5) == 0);
		snprintf(back + strlen(back), sizeof(back) - strlen(back), "%s%s", n ? " " : "",
		         line + (n ? 4 : 2));
	}
	EXPECT_STREQ(text, back);
	EXPECT_TRUE(n > 20);
	free(buf);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(role_lines_stay_in_line),
        DPK_TEST(narrow_rows_fit_the_columns),
        DPK_TEST(oversub_rows_name_the_scheduler),
        DPK_TEST(prose_folds_at_spaces),
        DPK_TEST(pair_results_meet_their_floor),
        DPK_TEST(floors_across_the_run),
        DPK_TEST(regimes_are_listed),
        DPK_TEST(counter_step_is_the_coarser_bound),
        DPK_TEST(counter_step_line_folds),
        DPK_TEST(rejected_samples_are_listed_by_reason),
        DPK_TEST(kept_slow_mark_follows_the_list),
        DPK_TEST(long_case_label_widens_the_column),
        DPK_TEST(long_env_label_widens_the_column),
};

DPK_TEST_MAIN(cases)
