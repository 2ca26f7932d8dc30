/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_misuse - suites of a user's program that break the rules of <dpk/bench.h>, for the
 * install test to check what the harness says of each and with which exit status:
 *
 *   run misuse/returns_more   a body that returns more operations than it was asked (1)
 *   run misuse/setup_fails    a set-up that returns -ENOMEM (1)
 *   run misuse/broken         a body whose invariant breaks: dpk_bench_fail() (1)
 *   run misuse/fine           a correct case beside them (0)
 *   --duplicate ...           two suites named "misuse" (2, before any command runs)
 *   --no-body ...             a case without a body (2)
 */
#include <errno.h>
#include <string.h>

#include <dpk/bench.h>

static uint64_t body_fine(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t acc = 0;

	(void)run;
	(void)role;
	for (uint64_t i = 0; i < n; i++)
		acc += i;
	DPK_BENCH_KEEP(acc);
	return n;
}

static uint64_t body_returns_more(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)run;
	(void)role;
	return n + 1;
}

static int setup_fails(struct dpk_bench_run *run)
{
	(void)run;
	return -ENOMEM;
}

static uint64_t body_broken(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)role;
	if (n > 0)
		dpk_bench_fail(run, "checksum %d, expected %d", 41, 42);
	return n;
}

#define CASE(nm, setup_fn, body_fn)                                                                \
	{                                                                                          \
		.name = nm, .desc = "a case that breaks a rule", .kind = DPK_BENCH_SINGLE,         \
		.unit = DPK_UNIT_CALL, .setup = setup_fn, .body = body_fn                          \
	}

static const struct dpk_bench_case cases[] = {
        CASE("fine", NULL, body_fine),
        CASE("returns_more", NULL, body_returns_more),
        CASE("setup_fails", setup_fails, body_fine),
        CASE("broken", NULL, body_broken),
};

static const struct dpk_bench_suite misuse = {
        .name = "misuse",
        .desc = "cases that break the rules",
        .cases = cases,
        .ncases = sizeof(cases) / sizeof(cases[0]),
        .default_on = true,
};

static const struct dpk_bench_case no_body_cases[] = {CASE("no_body", NULL, NULL)};

static const struct dpk_bench_suite no_body = {
        .name = "no_body",
        .desc = "a case without a body",
        .cases = no_body_cases,
        .ncases = 1,
};

static const struct dpk_bench_suite *const suites[] = {&misuse, NULL};
static const struct dpk_bench_suite *const with_no_body[] = {&no_body, NULL};

int main(int argc, char **argv)
{
	/* The first argument picks a bad table; the rest are dpk-bench's. */
	if (argc > 1 && strcmp(argv[1], "--duplicate") == 0)
		return dpk_bench_main(argc - 1, argv + 1, suites, suites, NULL);
	if (argc > 1 && strcmp(argv[1], "--no-body") == 0)
		return dpk_bench_main(argc - 1, argv + 1, suites, with_no_body, NULL);
	return dpk_bench_main(argc, argv, suites, NULL);
}
