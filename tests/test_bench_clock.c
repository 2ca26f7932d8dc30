/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness engine's core clock (a multiply chain timed beside the cases), its CSV rows,
 * the code layouts a case's copies sit at, and the case parameters.
 * Nothing here asserts how fast anything is.
 */
#define _GNU_SOURCE
#include "bench_fixture.h"

#if defined(__x86_64__)
/* A chain of @p cycles core cycles timed by @p timing is timed, not folded away: it sits on a
 * 64-byte boundary, and its median pace is a core clock a CPU could run at. */
static void chain_is_timed(double (*timing)(void), double cycles)
{
	double t[101], pace, mhz;

	EXPECT_EQ(0u, (unsigned)((uintptr_t)timing % 64));
	for (unsigned i = 0; i < 101; i++)
		t[i] = timing();
	pace = dpk_stats_median(t, 101) - runner.clock.read_cost;
	EXPECT_GT_F(pace, 0.0);
	mhz = cycles / pace * (double)runner.clock.hz / 1e6;
	EXPECT_GT_F(mhz, 200.0);
	EXPECT_LT_F(mhz, 10000.0);
}
#endif

/* The clock chain is timed, not folded away, and a case run in rounds gets its figures in
 * cycles from it. */
static void coreclock_reads_a_chain(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
#if defined(__x86_64__)
	chain_is_timed(dpk_bench_coreclock_timing, DPK_CORECLOCK_CHAIN_CYCLES);
#endif
	const struct dpk_bench_suite *suites[1] = {&suite};
	const struct dpk_bench_case *cases[1] = {&c_single};

	/* The path from the chain to cycles, whatever the check made of this host's multiply
	 * (coreclock_judge_table tests the judge). */
	runner.clock.cycles_on = true;
	runner.opt.time_s = 0.02;
	runner.opt.rounds = 4;
	dpk_bench_run_rounds(&runner, suites, cases, 1, 0, &res, NULL, NULL);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
#if defined(__x86_64__)
	ASSERT_GT(res.cycles.n, 0u);
	EXPECT_LE(res.cycles.n, res.reject[0]);
	EXPECT_GT_F(res.cycles.p50, 0.0);
	EXPECT_GT_F(res.core_hz, 200e6);
	EXPECT_LT_F(res.core_hz, 10e9);
#else
	EXPECT_EQ(0.0, dpk_bench_coreclock_timing());
	EXPECT_EQ_U(0, res.cycles.n);
#endif
	dpk_bench_result_free(&res);
	stop();
}

/* The multiply the chain assumes to take 3 cycles is judged against the add chain, which
 * is as many cycles: equal times (less the read cost) are 3 cycles a multiply; 10% either
 * way is the edge; a missing, non-finite or empty add chain gives no figure. */
static void coreclock_judge_table(void)
{
	static const struct {
		double mul, add, read;
		bool on;
		double cycles; /* NAN: none */
	} t[] = {
	        {661, 661, 73, true, 3.0},       /* the development VM: 588 ticks each */
	        {719.604, 661, 73, true, 3.299}, /* within 10% over */
	        {602.396, 661, 73, true, 2.701}, /* within 10% under */
	        {724, 661, 73, false, 3.3214},   /* just over */
	        {600, 661, 73, false, 2.6888},   /* just under */
	        {857, 661, 73, false, 4.0},      /* a 4-cycle multiply */
	        {661, 73, 73, false, NAN},       /* the add chain took no time */
	        {661, 0, 73, false, NAN},        /* no add chain */
	        {0, 661, 73, false, NAN},        /* no multiply chain */
	        {661, INFINITY, 73, false, NAN}, /* an add timing not finite */
	        {661, 661, NAN, false, NAN},     /* no read cost */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double cycles = -1;
		bool on = dpk_bench_coreclock_judge(t[i].mul, t[i].add, t[i].read, &cycles);

		EXPECT_EQ(t[i].on, on);
		if (isnan(t[i].cycles)) {
			EXPECT_TRUE(isnan(cycles));
		} else {
			EXPECT_LT_F(fabs(cycles - t[i].cycles), 1e-3);
		}
	}
}

/* The clock check judges the chain with the add chain's timing, and a runner whose check
 * turned the chain off times no chains and gives no figures in cycles. */
static void coreclock_off_gives_no_cycles(void)
{
	const struct dpk_bench_suite *suites[1] = {&suite};
	const struct dpk_bench_case *cases[1] = {&c_single};
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
#if defined(__x86_64__)
	/* The add chain is timed, not folded, and the check made a multiply a handful of
	 * cycles of it, not hundreds or a fraction. */
	chain_is_timed(dpk_bench_coreclock_add_timing, (double)DPK_CORECLOCK_ADDS);
	EXPECT_GT_F(runner.clock.mul_cycles, 1.0);
	EXPECT_LT_F(runner.clock.mul_cycles, 10.0);
#else
	EXPECT_EQ(0.0, dpk_bench_coreclock_add_timing());
	EXPECT_TRUE(isnan(runner.clock.mul_cycles));
	EXPECT_FALSE(runner.clock.cycles_on);
#endif
	runner.clock.cycles_on = false;
	runner.opt.time_s = 0.02;
	runner.opt.rounds = 4;
	dpk_bench_run_rounds(&runner, suites, cases, 1, 0, &res, NULL, NULL);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_GT(res.reject[0], 0u);
	EXPECT_EQ_U(0, res.cycles.n);
	EXPECT_EQ(0.0, res.core_hz);
	EXPECT_NULL(res.raw_cycles);
	dpk_bench_result_free(&res);
	stop();
}

/* The closing core-clock line for clock @p k and results @p res[0..n); the caller frees it. */
static char *coreclock_text(const struct dpk_bench_clock *k, const struct dpk_bench_result *res,
                            size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	dpk_report_coreclock(f, k, res, n);
	fclose(f);
	return buf;
}

/* The closing core-clock line: the clock the results rest on, or why there is none. */
static void coreclock_line_says_why_not(void)
{
	struct dpk_bench_clock k = {.mul_cycles = 3.0, .cycles_on = true};
	struct dpk_bench_result res[2] = {{.status = DPK_RESULT_OK}, {.status = DPK_RESULT_OK}};
	char *buf;

	res[0].cycles.n = 10;
	res[0].core_hz = 3.1e9;
	res[1].cycles.n = 10;
	res[1].core_hz = 3.2e9;
	buf = coreclock_text(&k, res, 2);
	ASSERT_NOT_NULL(buf);
	EXPECT_NOT_NULL(strstr(buf, "core clock: 3150 MHz median over 2 single-lcore results"));
	free(buf);

	k.mul_cycles = 4.0;
	k.cycles_on = false;
	buf = coreclock_text(&k, res, 2);
	ASSERT_NOT_NULL(buf);
	EXPECT_NOT_NULL(strstr(buf, "core clock: not read; a multiply took 4.00 cycles"));
	EXPECT_NULL(strstr(buf, "MHz"));
	free(buf);

	k.mul_cycles = NAN; /* no chain in the build, or it did not time */
	buf = coreclock_text(&k, res, 2);
	ASSERT_NOT_NULL(buf);
	EXPECT_NOT_NULL(strstr(buf, "core clock: not read; this build has no multiply chain"));
	EXPECT_NULL(strstr(buf, "MHz"));
	free(buf);
}

/* Every CSV row has the header's number of fields, whatever became of the result. */
static void csv_rows_have_one_width(void)
{
	struct dpk_bench_result res[4];
	struct dpk_bench_meta meta = {.runner = &runner};
	enum dpk_bench_status other[3] = {DPK_RESULT_FAILED, DPK_RESULT_SKIPPED, DPK_RESULT_EMPTY};
	char line[1024];
	long fields = -1;
	unsigned rows = 0;
	FILE *f = tmpfile();

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, start("0"));
	dpk_bench_run_case(&runner, &suite, &c_single, DPK_PLACE_SINGLE, 0, &res[0]);
	ASSERT_EQ(DPK_RESULT_OK, res[0].status);
	for (unsigned i = 0; i < 3; i++) {
		memset(&res[i + 1], 0, sizeof(res[i + 1]));
		res[i + 1].suite = &suite;
		res[i + 1].c = &c_pair;
		res[i + 1].placement = DPK_PLACE_CORE;
		res[i + 1].status = other[i];
	}
	ASSERT_EQ(0, dpk_report_csv(f, &meta, res, 4, true));
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		long n = 1;

		for (const char *c = line; *c; c++)
			n += *c == ',';
		if (fields < 0)
			fields = n;
		EXPECT_EQ(fields, n);
		rows++;
	}
	EXPECT_EQ(1 + 4 + res[0].nraw, rows); /* header, four results, the raw samples */
	fclose(f);
	for (unsigned i = 0; i < 4; i++)
		dpk_bench_result_free(&res[i]);
	stop();
}

/* ---- code layouts ---------------------------------------------------------------- */

/* Whether this compiler can place a function past a 64-byte boundary (bench.h). */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define LAYOUTS_PLACED 1
#endif
#endif
#ifndef LAYOUTS_PLACED
#define LAYOUTS_PLACED 0
#endif

/* Each copy of the layout case's body notes the share it is handed, the last LAYOUT_LOG
 * of them (the first batches, while the harness sizes them, are small and many). */
#define LAYOUT_LOG 4096
_Static_assert(LAYOUT_LOG % DPK_BENCH_LAYOUTS == 0, "the log keeps whole batches");
static struct layout_call {
	unsigned layout;
	uint64_t n;
} layout_log[LAYOUT_LOG];
static unsigned long layout_logged;

static struct layout_call layout_first[DPK_BENCH_LAYOUTS]; /* the first shares, kept */

static uint64_t layout_body(struct dpk_bench_run *run, unsigned k, uint64_t n)
{
	if (layout_logged < DPK_BENCH_LAYOUTS)
		layout_first[layout_logged] = (struct layout_call){k, n};
	layout_log[layout_logged++ % LAYOUT_LOG] = (struct layout_call){k, n};
	return body_spin(run, 0, n);
}

/* The body at code offset OFF, noting its share as layout OFF / 16. */
#define LAYOUT_BODY(OFF)                                                                           \
	DPK_BENCH_CODE_AT(OFF)                                                                     \
	static uint64_t body_at_##OFF(struct dpk_bench_run *run, unsigned role, uint64_t n)        \
	{                                                                                          \
		(void)role;                                                                        \
		return layout_body(run, (OFF) / DPK_BENCH_LAYOUT_STEP, n);                         \
	}

LAYOUT_BODY(0)
LAYOUT_BODY(16)
LAYOUT_BODY(32)
LAYOUT_BODY(48)

/* Shares come in threes. */
static const struct dpk_bench_case c_layouts = {
        .name = "layouts",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_CALL,
        .ops_multiple = 3,
        .body = body_at_0,
        .layouts = {body_at_0, body_at_16, body_at_32, body_at_48},
};

/* Copies in pairs at two offsets. */
static const struct dpk_bench_case c_layouts_paired = {
        .name = "layouts_paired",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_CALL,
        .body = body_at_0,
        .layouts = {body_at_0, body_at_0, body_at_32, body_at_32},
};

/* The copies sit where DPK_BENCH_CODE_AT() puts them, in this test and in the ring suites
 * (dpkit's, and DPDK's when built), where a case's plain body is its first copy. */
static void code_copies_sit_at_their_offsets(void)
{
	/* Copies count on the single placement only, and a case without them has one. */
	EXPECT_EQ(1u, dpk_bench_code_layouts(&c_layouts, DPK_PLACE_CORE));
	EXPECT_EQ(1u, dpk_bench_code_layouts(&c_single, DPK_PLACE_SINGLE));
	/* Distinct offsets count: four where the compiler places the copies, one where it
	 * cannot, two for copies that share offsets in pairs. */
	EXPECT_EQ(LAYOUTS_PLACED ? 4u : 1u, dpk_bench_code_layouts(&c_layouts, DPK_PLACE_SINGLE));
	EXPECT_EQ(LAYOUTS_PLACED ? 2u : 1u,
	          dpk_bench_code_layouts(&c_layouts_paired, DPK_PLACE_SINGLE));
	if (!LAYOUTS_PLACED)
		DPK_SKIP("the compiler has no patchable_function_entry attribute");
	for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++)
		EXPECT_EQ(k * DPK_BENCH_LAYOUT_STEP, dpk_bench_code_offset(c_layouts.layouts[k]));
	const struct dpk_bench_suite *all[16];
	unsigned nall = 0;

	for (unsigned i = 0; dpk_bench_dpkit_suites[i]; i++)
		all[nall++] = dpk_bench_dpkit_suites[i];
	for (unsigned i = 0; dpk_bench_peer_suites[i]; i++)
		all[nall++] = dpk_bench_peer_suites[i];
	for (unsigned i = 0; i < nall; i++) {
		const struct dpk_bench_suite *s = all[i];
		/* A stub of a suite the build lacks (bench/suites/ref_none.c) has one case. */
		bool ring = (strcmp(s->name, "ring") == 0 || strcmp(s->name, "dpdk_ring") == 0) &&
		            s->ncases > 1;
		unsigned placed = 0;

		for (unsigned c = 0; c < s->ncases; c++) {
			const struct dpk_bench_case *x = &s->cases[c];

			if (!x->layouts[0])
				continue;
			EXPECT_TRUE(x->body == x->layouts[0]);
			/* The offset is within a page, so that other code growing does not
			 * move a copy against the front end's page-indexed structures. */
			for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++)
				EXPECT_EQ(k * DPK_BENCH_LAYOUT_STEP,
				          (unsigned)((uintptr_t)x->layouts[k] %
				                     DPK_BENCH_CODE_ALIGN));
			EXPECT_EQ(4u, dpk_bench_code_layouts(x, DPK_PLACE_SINGLE));
			placed++;
		}
		/* Every one-lcore ring case: 10 per mode and element size for SP/SC and MP/MC, 6
		 * each for RTS and HTS, 6 per mode through pointers, 8 of zero copy and copying. */
		if (ring)
			EXPECT_EQ(72u, placed);
	}
}

/* A one-lcore batch hands an equal share to each copy in turn, a whole multiple of the
 * case's ops_multiple: the first batch, of the smallest size, gives each copy one
 * multiple, and every batch still in the log gives each the same. */
static void batches_share_out_over_the_layouts(void)
{
	struct dpk_bench_result res;
	unsigned long first, kept;
	unsigned batches = 0;

	ASSERT_EQ(0, start("0"));
	layout_logged = 0;
	dpk_bench_run_case(&runner, &suite, &c_layouts, DPK_PLACE_SINGLE, 0, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_EQ(0u, res.batch_ops % (3 * DPK_BENCH_LAYOUTS));
	ASSERT_GE(layout_logged, DPK_BENCH_LAYOUTS);
	for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++) {
		EXPECT_EQ(k, layout_first[k].layout);
		EXPECT_EQ(3u, layout_first[k].n);
	}
	/* LAYOUT_LOG is a multiple of the layouts, so the oldest share kept starts a batch. */
	kept = layout_logged < LAYOUT_LOG ? layout_logged : LAYOUT_LOG;
	first = layout_logged - kept;
	for (unsigned long i = first; i + DPK_BENCH_LAYOUTS <= layout_logged;
	     i += DPK_BENCH_LAYOUTS, batches++) {
		const uint64_t n0 = layout_log[i % LAYOUT_LOG].n;

		EXPECT_GT(n0, 0);
		EXPECT_EQ(0u, n0 % 3);
		for (unsigned k = 0; k < DPK_BENCH_LAYOUTS; k++) {
			const struct layout_call *c = &layout_log[(i + k) % LAYOUT_LOG];

			ASSERT_EQ(k, c->layout);
			ASSERT_EQ(n0, c->n);
		}
	}
	EXPECT_GT(batches, 0);
	dpk_bench_result_free(&res);
	stop();
}

/* Copy 16 of this case breaks the case on its first call. */
DPK_BENCH_CODE_AT(16)
static uint64_t body_breaks_at_16(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)role;
	(void)n;
	layout_body(run, 1, 0);
	dpk_bench_fail(run, "copy 16 broke");
	return 0;
}

static const struct dpk_bench_case c_layouts_break = {
        .name = "layouts_break",
        .kind = DPK_BENCH_SINGLE,
        .unit = DPK_UNIT_CALL,
        .body = body_at_0,
        .layouts = {body_at_0, body_breaks_at_16, body_at_32, body_at_48},
};

/* A pair case with copies runs its plain body on both lcores, never a copy. */
static const struct dpk_bench_case c_pair_layouts = {
        .name = "pair_layouts",
        .kind = DPK_BENCH_PAIR,
        .unit = DPK_UNIT_ITERATION,
        .counted_roles = 2,
        .body = body_spin,
        .layouts = {body_at_0, body_at_16, body_at_32, body_at_48},
};

/* A copy that comes back short ends its batch: the copies after it do not run on what it
 * left, and the case fails. Multi-lcore runs never use the copies. */
static void layouts_stop_at_a_short_share_and_stay_single(void)
{
	struct dpk_bench_result res;

	ASSERT_EQ(0, start("0"));
	layout_logged = 0;
	dpk_bench_run_case(&runner, &suite, &c_layouts_break, DPK_PLACE_SINGLE, 0, &res);
	EXPECT_EQ(DPK_RESULT_FAILED, res.status);
	ASSERT_EQ(2ul, layout_logged);
	EXPECT_EQ(0u, layout_log[0].layout);
	EXPECT_EQ(1u, layout_log[1].layout);
	dpk_bench_result_free(&res);
	stop();

	if (!have_two_cpus())
		DPK_SKIP("needs two online CPUs");
	ASSERT_EQ(0, start(NULL));
	runner.opt.time_s = 0.2;
	layout_logged = 0;
	dpk_bench_run_case(&runner, &suite, &c_pair_layouts, DPK_PLACE_OVERSUB, 0, &res);
	ASSERT_EQ(DPK_RESULT_OK, res.status);
	EXPECT_EQ(0ul, layout_logged);
	dpk_bench_result_free(&res);
	stop();
}

static void params_format(void)
{
	char buf[64];

	ASSERT_STREQ("x=3", dpk_bench_params_str(&c_single, buf, sizeof(buf)));
	ASSERT_STREQ("", dpk_bench_params_str(&c_fail, buf, sizeof(buf)));
	ASSERT_EQ(3, dpk_bench_param(&c_single, "x", 7));
	ASSERT_EQ(7, dpk_bench_param(&c_single, "y", 7));
	ASSERT_STREQ("per round trip", dpk_bench_unit_name(DPK_UNIT_ROUND_TRIP));
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(coreclock_reads_a_chain),
        DPK_TEST(coreclock_judge_table),
        DPK_TEST(coreclock_off_gives_no_cycles),
        DPK_TEST(coreclock_line_says_why_not),
        DPK_TEST(csv_rows_have_one_width),
        DPK_TEST(code_copies_sit_at_their_offsets),
        DPK_TEST(batches_share_out_over_the_layouts),
        DPK_TEST(layouts_stop_at_a_short_share_and_stay_single),
        DPK_TEST(params_format),
};

DPK_TEST_MAIN(cases)
