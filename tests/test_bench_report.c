/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text table dpk-bench prints, on made-up results: what a row says about its
 * rejected samples. Nothing runs; the figures are whatever the results are given.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_test.h"
#include "report.h"

static const struct dpk_bench_case c_short = {
        .name = "spsc_single",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_ELEMENT,
        .params = {{"esize", 8}},
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

/* The row dpk_report_row() prints for @p res; the caller frees it. */
static char *row_of(const struct dpk_bench_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	dpk_report_row(f, res, &clk);
	fclose(f);
	return buf;
}

/* The row printed for @p res ends with @p tail (its column of samples, say). */
static void expect_row_ends(const struct dpk_bench_result *res, const char *tail)
{
	char *row = row_of(res);
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

static const struct dpk_test_case cases[] = {
        DPK_TEST(rejected_samples_are_listed_by_reason),
        DPK_TEST(kept_slow_mark_follows_the_list),
};

DPK_TEST_MAIN(cases)
