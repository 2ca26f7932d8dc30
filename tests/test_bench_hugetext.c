/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The program's code moved onto 2 MB pages (bench/core/hugetext.c): this test program is
 * linked as dpk-bench is, its code segment alone on a 2 MB boundary; after the move and
 * after each later move its code is anonymous memory at the same addresses and still runs.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_test.h"
#include "env.h"

/* Some code that must still compute the same after every move. */
__attribute__((noinline)) static uint64_t mix(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* The mapping that holds @p addr: its start, and whether it is backed by a file. */
static bool mapping_of(uintptr_t addr, uintptr_t *start, bool *file)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long a, b, inode;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &a, &b, &inode) == 3 && addr >= a &&
		    addr < b) {
			*start = a;
			*file = inode != 0;
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void code_moves_and_still_runs(void)
{
	const uint64_t want = mix(42);
	uintptr_t at = (uintptr_t)&mix, start0 = 0, start = 0;
	bool file = true;

	ASSERT_TRUE(mapping_of(at, &start0, &file));
	ASSERT_TRUE(file); /* the file's pages before the move */
	if (!dpk_bench_text_huge()) {
		dpk_test_note("%s: %s", dpk_bench_text_state(), dpk_bench_text_why());
		ASSERT_STREQ("4 KiB pages of the file", dpk_bench_text_state());
		/* Linked for it, so the layout is never the reason. */
		ASSERT_TRUE(strstr(dpk_bench_text_why(), "max-page-size") == NULL);
		DPK_SKIP("the code stayed in place");
	}
	dpk_test_note("%s", dpk_bench_text_state());
	ASSERT_EQ(want, mix(42));
	ASSERT_TRUE(mapping_of(at, &start, &file));
	ASSERT_FALSE(file);
	ASSERT_EQ(0, start % ((uintptr_t)2 << 20));
	for (int k = 0; k < 5; k++) {
		dpk_bench_text_rehome();
		ASSERT_EQ(want, mix(42));
		ASSERT_TRUE(mapping_of(at, &start, &file));
		ASSERT_FALSE(file);
	}
	ASSERT_TRUE(strstr(dpk_bench_text_state(), "moved each round") != NULL);
}

/* DPK_BENCH_KEEP_CODE leaves the code in the file's pages, for profilers, and says so. */
static void keep_code_leaves_it(void)
{
	ASSERT_EQ(0, setenv("DPK_BENCH_KEEP_CODE", "1", 1));
	ASSERT_FALSE(dpk_bench_text_huge());
	ASSERT_TRUE(strstr(dpk_bench_text_why(), "DPK_BENCH_KEEP_CODE") != NULL);
	ASSERT_EQ(0, unsetenv("DPK_BENCH_KEEP_CODE"));
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(code_moves_and_still_runs),
        DPK_TEST(keep_code_leaves_it),
};

DPK_TEST_MAIN(cases)
